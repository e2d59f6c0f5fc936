"""``python -m uvnest``: the ``uvnest`` command line (see ``uvnest.cli``)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
