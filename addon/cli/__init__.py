"""The ``uvnest`` command line: ``pack``, ``info`` and ``demo``.

::

    uvnest pack chair.obj                      # writes chair_packed.obj
    uvnest pack models/ --out-dir packed/ --preview --report report.json
    uvnest info chair.obj --json
    uvnest demo

``pack`` works on files and folders (searched recursively for .obj, .gltf
and .glb), one file per process of a pool (``--jobs``).  Inputs are only
ever replaced with ``--in-place``; every output is written atomically.  A
bad file gets a one-line error and the batch goes on (unless
``--fail-fast``); the exit status is 1 when a file failed.  The first Ctrl-C
stops cleanly - finished files stay, files in progress are dropped (or,
with ``--keep-best``, written with the best layout found so far) - prints
the summary and exits with status 130; a second Ctrl-C aborts at once
(still without leaving partial files).

Coverage, as printed and reported, is the area of the union of the islands
inside the 0..1 tile: islands whose outlines overlap are merged into one
group whose outline is the exact union of their faces, different groups do
not overlap, and each group's rings are clipped to the tile exactly (see
:func:`tile_coverage`).  The same measure is used before and after packing.
"""
from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from ..islands import clipped_area, tile_coverage
from .arguments import build_parser
from .inputs import collect_inputs
from .pack import _looks_like_tiles
from .packfile import pack_file
from .results import EXIT_FAILED, EXIT_INTERRUPTED, FileResult, PackTask, Progress

__all__ = ["main", "build_parser", "tile_coverage", "clipped_area", "pack_file", "PackTask", "FileResult",
           "Progress", "collect_inputs"]


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``uvnest`` command line; returns the exit status."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # the command's own usage, not the top level's
        hint = ("; --udim takes no value: give the tiles with --tiles, e.g. --udim --tiles 1001-1010"
                if getattr(args, "udim", False) and any(_looks_like_tiles(e) for e in extra) else "")
        args.command_parser.error(f"unrecognized arguments: {' '.join(extra)}{hint}")
    try:
        return args.run(args, args.command_parser)
    except BrokenPipeError:  # e.g. 'uvnest info ... | head'
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("uvnest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
