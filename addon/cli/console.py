"""What ``uvnest pack`` prints on stderr while it runs."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from .results import FAILED, INTERRUPTED, KEPT, PACKED, FileResult, Progress

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
    """What ``pack`` prints on stderr.

    ``quiet`` 0 on a terminal: a live status line (files done out of total,
    the coverage of the files in progress), a line per finished file (unless
    ``file_lines`` is False), errors and the summary.  ``quiet`` 0 when
    stderr is not a terminal, or 1: only errors and the summary.  ``quiet``
    2 or more: nothing.
    """

    REFRESH_S = 0.1

    def __init__(self, quiet: int, total: int, stream: Optional[TextIO] = None, file_lines: bool = True) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.live = quiet == 0 and self.stream.isatty()
        self.file_lines = file_lines and self.live
        self.total = total
        self.done = 0
        self.running: Dict[int, Tuple[str, Optional[float]]] = {}
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
        self._draw(force=True)

    def progress(self, p: Progress) -> None:
        """A better layout for a file in progress."""
        if p.index in self.running:
            self.running[p.index] = (self.running[p.index][0], p.coverage)
            self._draw()

    def finished(self, r: FileResult) -> None:
        """A file is done (in any status)."""
        self.running.pop(r.index, None)
        self.done += 1
        if r.status == FAILED:
            self.error(r.error or f"{r.path}: failed")
        elif self.file_lines and r.status in (PACKED, KEPT):
            note = " (stopped early: best layout so far)" if r.status == KEPT else ""
            where = (f"{len(r.tiles)} UDIM tile{'s' if len(r.tiles) != 1 else ''} ({_tile_list(r.tiles)})"
                     if r.tiles else f"scale {r.scale:.4g}")
            split = f", groups split: {', '.join(r.split_groups)}" if r.split_groups else ""
            self._print(f"{r.path} -> {r.output}: {r.islands} islands, coverage {r.coverage_before:.1%} -> "
                        f"{r.coverage_after:.1%}, {where}{split}, {r.time:.1f} s{note}")
        elif self.file_lines and r.status == INTERRUPTED:
            self._print(f"{r.path}: stopped, not written")
        else:
            self._draw(force=True)

    def error(self, message: str) -> None:
        """A one-line error (shown unless ``quiet`` >= 2)."""
        if self.quiet < 2:
            self._print(f"error: {message}")

    def summary(self, text: str) -> None:
        """The final line (shown unless ``quiet`` >= 2)."""
        if self.quiet < 2:
            self._print(text)
        self.close()

    def close(self) -> None:
        """Remove the status line."""
        self._clear()
        self.stream.flush()
