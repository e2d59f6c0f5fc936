"""``python -m tests.bench``: run the benchmark (see ``tests/bench/run.py``)."""
import sys

from .run import main

sys.exit(main())
