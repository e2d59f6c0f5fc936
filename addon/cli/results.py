"""What ``uvnest pack`` hands to a worker and gets back: the task, the
per-file result, progress messages and the file statuses (all picklable,
for process pools and Dask workers alike)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .. import __version__

__all__ = ["PACKED", "KEPT", "INTERRUPTED", "FAILED", "NOT_STARTED", "UNCHANGED", "SKIPPED", "PLANNED", "WRITTEN",
           "Progress", "Notice", "PackTask", "FileResult",
           "EXIT_OK", "EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_USAGE"]

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

# file statuses
PACKED = "packed"  # searched for the whole budget and written
KEPT = "kept"  # stopped early; the best layout found so far was written (--keep-best)
INTERRUPTED = "interrupted"  # stopped early; nothing written
FAILED = "error"  # a one-line error message says why
NOT_STARTED = "not started"  # the batch stopped before this file
UNCHANGED = "unchanged"  # packing would lower coverage; the original bytes were kept (--only-if-better)
SKIPPED = "skipped"  # the output exists already (--skip-existing)
PLANNED = "dry run"  # --dry-run: what would be packed, and where to
#: Statuses of files whose output holds a layout (a new or the original one).
WRITTEN = (PACKED, KEPT, UNCHANGED)


class Progress(NamedTuple):
    """A better layout was found for file ``index``."""

    index: int
    coverage: float
    scale: float
    iterations: int


class Notice(NamedTuple):
    """A warning about file ``index`` sent while it is packed (before its
    search: e.g. islands outside the tile)."""

    index: int
    text: str


@dataclass(frozen=True)
class PackTask:
    """Everything a worker needs to pack one file (picklable).

    ``options`` are :class:`uvnest.Packer` keyword options.  The search runs
    for ``time_limit`` seconds and/or ``iterations`` moves.
    """

    index: int
    path: str
    output: str
    options: Dict[str, Any]
    time_limit: Optional[float]
    iterations: Optional[int]
    uv_set: int = 0
    preview: Optional[str] = None
    preview_size: int = 1024
    keep_best: bool = False
    keep_groups: bool = False
    only_if_better: bool = False
    locked_groups: Tuple[str, ...] = ()


@dataclass
class FileResult:
    """What happened to one file; ``status`` is one of ``packed``, ``kept``,
    ``unchanged``, ``interrupted``, ``error``, ``not started``, ``skipped``
    and ``dry run``.  Coverage before and after is measured the same way
    (:func:`uvnest.cli.packfile.layout_coverage`); ``worse`` is True when
    the packed layout covers less than the input (written unless
    ``--only-if-better``: then the status is ``unchanged``).  ``warnings``
    are one-line messages (islands outside the tile, a worse layout, ...);
    ``time`` is the wall time for the whole file."""

    index: int
    path: str
    status: str
    output: Optional[str] = None
    preview: Optional[str] = None
    error: Optional[str] = None
    islands: Optional[int] = None
    groups: Optional[int] = None
    coverage_before: Optional[float] = None
    coverage_after: Optional[float] = None
    worse: Optional[bool] = None
    out_of_tile: Optional[int] = None
    scale: Optional[float] = None
    tiles: Optional[List[int]] = None
    split_groups: Optional[List[str]] = None
    time: float = 0.0
    iterations: Optional[int] = None
    seed: Optional[int] = None
    warnings: List[str] = field(default_factory=list)
    uvnest_version: str = __version__
