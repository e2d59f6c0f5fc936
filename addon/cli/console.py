"""What ``uvnest pack`` prints on stderr while it runs."""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, TextIO, Tuple, Union

from .results import (FAILED, INTERRUPTED, KEPT, PACKED, PLANNED, SKIPPED, UNCHANGED, FileResult, Notice,
                      Progress)


def _tile_list(tiles: Sequence[int]) -> str:
    """``[1001, 1002, 1003, 1011]`` as ``1001-1003,1011``."""
    runs: List[List[int]] = []
    for t in tiles:
        if runs and t == runs[-1][1] + 1:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


class _Console:
    """What ``pack`` prints: on stderr, and JSON lines on ``records``.

    ``verbosity`` 0 (the default): a line per finished file (unless
    ``file_lines`` is False), warnings, errors and the summary, on a
    terminal or not; on a terminal also a live status line (files done out
    of total, the coverage of the files in progress).  1 (``-v``): also a
    line when a file starts, and the file lines give islands, groups,
    moves and seed.  -1 (``-q``): only warnings, errors and the summary.
    -2 (``-qq``): nothing.  ``records``, when given, gets one JSON object
    per finished file (:class:`FileResult`'s fields but ``index``).
    """

    REFRESH_S = 0.1

    def __init__(self, verbosity: int, total: int, stream: Optional[TextIO] = None, file_lines: bool = True,
                 records: Optional[TextIO] = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.verbosity = verbosity
        self.live = verbosity >= 0 and self.stream.isatty()
        self.file_lines = file_lines and verbosity >= 0
        self.records = records
        self.total = total
        self.done = 0
        self.running: Dict[int, Tuple[str, Optional[float]]] = {}
        self._warned: Set[Tuple[int, str]] = set()
        self._shown = False
        self._last = 0.0

    def _width(self) -> int:
        try:
            return max(20, os.get_terminal_size(self.stream.fileno()).columns - 1)
        except (OSError, ValueError, AttributeError):
            return 79

    def _clear(self) -> None:
        if self._shown:
            self.stream.write("\r\x1b[K")
            self._shown = False

    def _draw(self, force: bool = False) -> None:
        if not self.live:
            return
        now = time.monotonic()
        if not force and now - self._last < self.REFRESH_S:
            return
        self._last = now
        parts = [f"[{self.done}/{self.total}]"]
        for name, coverage in self.running.values():
            parts.append(f"{name} {'...' if coverage is None else format(coverage, '.1%')}")
        line = "  ".join(parts)
        width = self._width()
        if len(line) > width:
            line = line[:width - 3] + "..."
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()
        self._shown = True

    def _print(self, text: str) -> None:
        self._clear()
        self.stream.write(text + "\n")
        self.stream.flush()
        self._draw(force=True)

    def started(self, index: int, path: str) -> None:
        """A file is being packed."""
        self.running[index] = (Path(path).name, None)
        if self.verbosity >= 1:
            self._print(f"{path}: packing")
        else:
            self._draw(force=True)

    def progress(self, p: Union[Progress, Notice]) -> None:
        """A better layout for a file in progress, or a warning about it."""
        if isinstance(p, Notice):
            self.warning(p.index, p.text)
        elif p.index in self.running:
            self.running[p.index] = (self.running[p.index][0], p.coverage)
            self._draw()

    def warning(self, index: int, text: str) -> None:
        """A one-line warning about file ``index`` (once; shown unless ``-qq``)."""
        if (index, text) not in self._warned:
            self._warned.add((index, text))
            if self.verbosity >= -1:
                self._print(f"warning: {text}")

    def finished(self, r: FileResult) -> None:
        """A file is done (in any status)."""
        self.running.pop(r.index, None)
        self.done += 1
        for text in r.warnings:  # those a pool or cluster worker could not send while it ran
            self.warning(r.index, text)
        if r.status == FAILED:
            self.error(r.error or f"{r.path}: failed")
        elif self.file_lines and r.status in (PACKED, KEPT, UNCHANGED):
            self._print(self._file_line(r))
        elif self.file_lines and r.status == INTERRUPTED:
            self._print(f"{r.path}: stopped, not written")
        elif self.file_lines and r.status in (SKIPPED, PLANNED):
            self._print(f"{r.path} -> {r.output}: {'output exists, skipped' if r.status == SKIPPED else 'would pack'}")
        else:
            self._draw(force=True)
        if self.records is not None:
            self.records.write(json.dumps({k: v for k, v in asdict(r).items() if k != "index"},
                                          allow_nan=False) + "\n")
            self.records.flush()

    def _file_line(self, r: FileResult) -> str:
        note = {KEPT: " (stopped early: best layout so far)",
                UNCHANGED: " (worse: the input's layout was kept)"}.get(r.status, " (worse)" if r.worse else "")
        where = (f"{len(r.tiles)} UDIM tile{'s' if len(r.tiles) != 1 else ''} ({_tile_list(r.tiles)})"
                 if r.tiles else f"scale {r.scale:.4g}")
        split = f", groups split: {', '.join(r.split_groups)}" if r.split_groups else ""
        detail = (f", {r.groups} groups, {r.iterations} moves, seed {r.seed}" if self.verbosity >= 1 else "")
        return (f"{r.path} -> {r.output}: {r.islands} islands, coverage {r.coverage_before:.1%} -> "
                f"{r.coverage_after:.1%}, {where}{split}{detail}, {r.time:.1f} s{note}")

    def error(self, message: str) -> None:
        """A one-line error (shown unless ``-qq``)."""
        if self.verbosity >= -1:
            self._print(f"error: {message}")

    def summary(self, text: str) -> None:
        """The final line (shown unless ``-qq``)."""
        if self.verbosity >= -1:
            self._print(text)
        self.close()

    def close(self) -> None:
        """Remove the status line."""
        self._clear()
        self.stream.flush()
