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

import argparse
import contextlib
import json
import math
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from queue import Empty
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, TextIO, Tuple

import numpy as np

from . import __version__, io
from .demo import demo_path
from .io import SUFFIXES, MeshIOError, atomic_write_bytes
from .islands import clipped_area, find_islands
from .packing import Packer
from .preview import PreviewUnavailable, is_uvnest_preview, require_pillow, write_preview

__all__ = ["main", "build_parser", "tile_coverage", "clipped_area", "pack_file", "PackTask", "FileResult",
           "Progress", "collect_inputs"]

UNIT_TILE = (0.0, 0.0, 1.0, 1.0)
#: How far (tile units) an island may reach past the tile and still count as inside it.
TILE_TOLERANCE = 1e-9
EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130  # argparse exits with 2 for bad arguments

# file statuses
PACKED = "packed"  # searched for the whole budget and written
KEPT = "kept"  # stopped early; the best layout found so far was written (--keep-best)
INTERRUPTED = "interrupted"  # stopped early; nothing written
FAILED = "error"  # a one-line error message says why
NOT_STARTED = "not started"  # the batch stopped before this file

#: Search time per file (seconds) when neither --time nor --iterations is given.
DEFAULT_TIME = 2.0
DEMO_OUTPUT = "uvnest_demo_packed.obj"
DEMO_OPTIONS: Dict[str, Any] = {"margin_px": 4.0, "texture_size": 1024}


# --------------------------------------------------------------------------- measures


def udim_box(tile: int) -> Tuple[float, float, float, float]:
    """The square of UDIM tile ``tile`` as ``(x0, y0, x1, y1)``."""
    u, v = (tile - 1001) % 10, (tile - 1001) // 10
    return (float(u), float(v), u + 1.0, v + 1.0)


def tile_coverage(islands: Iterable[Any], box: Tuple[float, float, float, float] = UNIT_TILE) -> float:
    """Share of ``box`` covered by the union of the islands.

    ``islands`` must come from ``find_islands(..., merge_overlapping=True)``:
    then each island's outline is the exact union of its faces and distinct
    islands do not overlap, so the union's area is the sum of the islands'
    areas clipped to the box.
    """
    x0, y0, x1, y1 = box
    return sum(clipped_area(isl.outline, box) for isl in islands) / ((x1 - x0) * (y1 - y0))


# --------------------------------------------------------------------------- inputs and outputs


def _cpu_count() -> int:
    """Cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


Found = List[Tuple[Path, Optional[Path]]]


def collect_inputs(paths: Sequence[str], skip_dir: Optional[Path] = None,
                   skip_stem_suffix: str = "") -> Tuple[Found, List[Tuple[str, str]], int]:
    """Expand files and folders into mesh files.

    Returns ``(files, errors, skipped)``: ``files`` are ``(path, root)``
    pairs in a stable order, ``root`` being the folder argument a file was
    found in (``None`` for files given directly); ``errors`` are
    ``(argument, one-line message)`` pairs for arguments that are neither
    files nor folders; ``skipped`` counts files left out because their name
    ends with ``skip_stem_suffix`` (outputs of an earlier run).  Folders are
    searched recursively for .obj, .gltf and .glb files, leaving out hidden
    files and folders and ``skip_dir``.  A file named twice is taken once.
    """
    skip = skip_dir.resolve() if skip_dir is not None else None
    seen = set()
    files: Found = []
    errors: List[Tuple[str, str]] = []
    skipped = 0

    def add(p: Path, root: Optional[Path]) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            files.append((p, root))

    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = []
            for folder, dirs, names in os.walk(p):
                here = Path(folder)
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and (skip is None or (here / d).resolve() != skip))
                for name in names:
                    f = here / name
                    if name.startswith(".") or f.suffix.lower() not in SUFFIXES:
                        continue
                    if skip_stem_suffix and f.stem.endswith(skip_stem_suffix):
                        skipped += 1
                        continue
                    found.append(f)
            for f in sorted(found, key=lambda f: f.relative_to(p).as_posix()):
                add(f, p)
        elif p.is_file():
            add(p, None)
        elif p.exists():
            errors.append((arg, f"{p}: not a regular file or folder"))
        else:
            errors.append((arg, f"{p}: no such file or folder"))
    return files, errors, skipped


@dataclass
class _Plan:
    """One input file and where its results go (or why it cannot be packed)."""

    path: Path
    output: Path
    preview: Optional[Path] = None
    error: Optional[str] = None


def _plan_outputs(files: Found, *, output: Optional[Path], out_dir: Optional[Path],
                  suffix: str, in_place: bool, preview: bool) -> List[_Plan]:
    """Output (and preview) path of every input, with per-file errors for
    outputs that would replace an input, collide with each other, or
    previews that would replace a PNG uvnest did not write."""
    plans: List[_Plan] = []
    for path, root in files:
        if in_place:
            out = path
        elif output is not None:
            out = output
        else:
            rel = path.relative_to(root) if root is not None else Path(path.name)
            folder = (out_dir / rel.parent) if out_dir is not None else path.parent
            out = folder / f"{path.stem}{suffix}{path.suffix}"
        plans.append(_Plan(path, out, out.with_suffix(".png") if preview else None))

    inputs = {p.path.resolve() for p in plans}
    claimed: Dict[Path, Path] = {}
    for plan in plans:
        out = plan.output.resolve()
        if plan.path.suffix.lower() in SUFFIXES and \
                SUFFIXES.get(plan.output.suffix.lower()) != SUFFIXES[plan.path.suffix.lower()]:
            plan.error = (f"{plan.path}: output {plan.output} must have the input's format "
                          f"({plan.path.suffix.lower()})")
        elif out in inputs and not in_place:
            plan.error = (f"{plan.path}: output {plan.output} would replace an input file "
                          "(use --in-place to pack files in place)")
        elif out in claimed:
            plan.error = f"{plan.path}: output {plan.output} is also the output of {claimed[out]}"
        elif plan.preview is not None and plan.preview.resolve() in claimed:
            plan.error = f"{plan.path}: preview {plan.preview} is also written for {claimed[plan.preview.resolve()]}"
        if plan.error is None:
            claimed[out] = plan.path
            if plan.preview is not None:
                claimed[plan.preview.resolve()] = plan.path
    if preview:
        for plan in plans:
            if plan.error is None and plan.preview is not None and plan.preview.exists() \
                    and not is_uvnest_preview(plan.preview):
                plan.error = (f"{plan.path}: the preview would replace {plan.preview}, which uvnest did not write "
                              "(a texture?); choose other output names with --suffix or --out-dir")
    return plans


# --------------------------------------------------------------------------- packing one file


class Progress(NamedTuple):
    """A better layout was found for file ``index``."""

    index: int
    coverage: float
    scale: float
    iterations: int


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


@dataclass
class FileResult:
    """What happened to one file; ``status`` is one of ``packed``, ``kept``,
    ``interrupted``, ``error`` and ``not started``.  Coverage is measured by
    :func:`tile_coverage`; ``time`` is the wall time for the whole file."""

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
    scale: Optional[float] = None
    tiles: Optional[List[int]] = None
    split_groups: Optional[List[str]] = None
    time: float = 0.0
    iterations: Optional[int] = None
    seed: Optional[int] = None
    uvnest_version: str = __version__


class _StopSignal:
    """A stop request that a signal handler may set: a plain attribute, no locks."""

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set


class _CancelOnStop:
    """While active, cancel ``packer`` as soon as ``stop`` is set.

    A thread polls ``stop`` every 50 ms (it may be a multiprocessing Event
    shared with the parent) and keeps calling ``packer.cancel()`` until the
    search returns: a cancel that lands between two search steps is reset
    by ``Packer.improvements`` and would otherwise be lost.
    """

    POLL_S = 0.05

    def __init__(self, stop: Any, packer: Any) -> None:
        self._stop = stop
        self._packer = packer
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="uvnest-cancel", daemon=True)
        self.fired = False

    def _watch(self) -> None:
        while not self._done.wait(self.POLL_S):
            if self._stop.is_set():
                self.fired = True
                self._packer.cancel()

    def __enter__(self) -> "_CancelOnStop":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._done.set()
        self._thread.join()


def pack_file(task: PackTask, stop: Any, progress: Optional[Callable[[Progress], None]] = None) -> FileResult:
    """Load, pack and write one file; never raises for a bad file.

    ``stop`` is anything with ``is_set()``: when it is set before the file
    starts, nothing is done (``not started``); during the search, the search
    ends and the file is dropped (``interrupted``) or, with
    ``task.keep_best``, written with the best layout so far (``kept``).
    ``progress`` is called with every better layout.  Errors become a
    ``FileResult`` with status ``error`` and a one-line message that starts
    with the file name.
    """
    t0 = time.perf_counter()
    res = FileResult(index=task.index, path=task.path, status=FAILED, seed=int(task.options.get("seed", 0)))
    try:
        if stop.is_set():
            res.status = NOT_STARTED
            return res
        mesh = io.load(task.path, uv_set=task.uv_set)
        if not mesh.faces:
            raise ValueError("has no faces with texture coordinates")
        extra: Dict[str, Any] = {}
        if task.keep_groups and mesh.face_groups is not None:
            extra["groups"] = mesh.face_groups
        if "texel_density" in task.options:
            extra["positions"] = mesh.positions if mesh.positions is not None else np.zeros((0, 3))
        packer = Packer(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, **_storable(task.options, mesh.uv_step),
                        **extra)
        before = (packer.islands if task.options.get("merge_overlapping", True)
                  else find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces))
        res.islands = sum(len(isl.members) for isl in before)
        res.groups = len(packer.islands)
        res.coverage_before = tile_coverage(before)
        best = packer.best
        with _CancelOnStop(stop, packer) as watcher:
            for best in packer.improvements(time_limit=task.time_limit, iterations=task.iterations):
                if progress is not None:
                    progress(Progress(task.index, best.coverage, best.scale, best.iterations))
        res.iterations = int(packer.stats["moves"])
        res.scale = best.scale
        if watcher.fired and not task.keep_best:
            res.status = INTERRUPTED
            return res
        after = find_islands(best.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)
        used = sorted(set(best.tile_of_island.tolist()))
        res.coverage_after = float(np.mean([tile_coverage(after, udim_box(t)) for t in used]))
        if task.options.get("scale") == "fixed":
            res.tiles = used
            res.split_groups = [mesh.group_names[k] for k in best.split_groups] if task.keep_groups else []
        out = Path(task.output)
        with _writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            io.save(mesh, out, uvs=best.uvs)
        res.output = task.output
        if task.preview is not None:
            with _writing(Path(task.preview)):
                write_preview(task.preview, after, size=task.preview_size, margin=_margin(task.options),
                              coverage=res.coverage_after, scale=best.scale,
                              title=out.name + (" (stopped early)" if watcher.fired else ""))
            res.preview = task.preview
        res.status = KEPT if watcher.fired else PACKED
    except MeshIOError as e:
        res.error = str(e)
    except _WriteError as e:
        res.error = f"{task.path}: {e}"
    except (ValueError, IndexError, TypeError, RuntimeError, MemoryError, OSError) as e:
        res.error = f"{task.path}: {_reason(e)}"
    except Exception as e:  # a bug: report it for this file and let the batch go on
        res.error = f"{task.path}: internal error, please report it: {type(e).__name__}: {_reason(e)}"
    finally:
        res.time = time.perf_counter() - t0
    return res


def _storable(options: Dict[str, Any], uv_step: float) -> Dict[str, Any]:
    """``options`` with the margin widened so that it survives rounding the
    UVs to a file's storage grid of spacing ``uv_step`` (normalized integer
    glTF UVs): each corner moves by at most half a step per axis, so two
    islands get closer by at most ``sqrt(2) * uv_step``."""
    if uv_step <= 0:
        return options
    wider = dict(options, margin=_margin(options) + math.sqrt(2.0) * uv_step)
    wider["margin_px"] = None
    return wider


def _margin(options: Dict[str, Any]) -> float:
    """The margin in tile units that ``options`` ask for (as ``Packer`` computes it)."""
    if options.get("margin_px") is not None:
        size = options["texture_size"]
        return float(options["margin_px"]) / float(max(size) if isinstance(size, (tuple, list)) else size)
    return float(options.get("margin", 0.001))


class _WriteError(Exception):
    """An output could not be written (the message names it)."""


@contextlib.contextmanager
def _writing(target: Path) -> Iterator[None]:
    """Turn an ``OSError`` of the block into a ``_WriteError`` naming ``target``."""
    try:
        yield
    except OSError as e:
        raise _WriteError(f"cannot write {target}: {e.strerror or e}") from None


def _reason(e: BaseException) -> str:
    """One line for an exception: its message, or its type when it has none."""
    if isinstance(e, OSError) and e.strerror:
        return e.strerror if e.filename is None else f"{e.filename}: {e.strerror}"
    text = " ".join(str(e).split())
    if isinstance(e, MemoryError):
        return "out of memory" + (f" ({text})" if text else "")
    return text or type(e).__name__


# --------------------------------------------------------------------------- the console


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


# --------------------------------------------------------------------------- running a batch


class _Interrupts:
    """SIGINT handling for a batch: the first Ctrl-C sets ``stop``, a second
    one raises ``KeyboardInterrupt``.  Only active in the main thread."""

    def __init__(self, stop: _StopSignal) -> None:
        self.stop = stop
        self.count = 0
        self._old: Any = None

    def _handle(self, signum: int, frame: Any) -> None:
        self.count += 1
        self.stop.set()
        if self.count > 1:
            raise KeyboardInterrupt

    def __enter__(self) -> "_Interrupts":
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)


OnResult = Callable[[FileResult], None]

_WORKER_STOP: Any = None
_WORKER_QUEUE: Any = None


def _init_worker(stop: Any, queue: Any) -> None:
    """Pool worker start-up: Ctrl-C is the parent's business (it sets ``stop``)."""
    global _WORKER_STOP, _WORKER_QUEUE
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    queue.cancel_join_thread()  # progress messages may be dropped at exit; never block on them
    _WORKER_STOP, _WORKER_QUEUE = stop, queue


def _worker_pack(task: PackTask) -> FileResult:
    return pack_file(task, _WORKER_STOP, _WORKER_QUEUE.put)


def _run_serial(tasks: Sequence[PackTask], stop: _StopSignal, console: _Console, on_result: OnResult) -> None:
    for task in tasks:
        if stop.is_set():
            on_result(_not_started(task))
            continue
        console.started(task.index, task.path)
        on_result(pack_file(task, stop, console.progress))


def _not_started(task: PackTask) -> FileResult:
    return FileResult(index=task.index, path=task.path, status=NOT_STARTED, seed=int(task.options.get("seed", 0)))


def _drain(queue: Any, console: _Console) -> None:
    while True:
        try:
            p = queue.get_nowait()
        except Empty:
            return
        console.progress(p)


def _run_pool(tasks: Sequence[PackTask], jobs: int, stop: _StopSignal, console: _Console,
              on_result: OnResult) -> None:
    """Pack ``tasks`` in ``jobs`` worker processes, at most ``jobs`` files in
    flight.  Workers ignore SIGINT; the parent turns ``stop`` into a shared
    event that cancels their searches, and starts no new file.  If a worker
    dies, the files in flight fail and a new pool takes the rest."""
    ctx = multiprocessing.get_context()
    shared_stop = ctx.Event()
    queue = ctx.Queue()
    todo = deque(tasks)
    while todo and not stop.is_set():
        with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_init_worker,
                                 initargs=(shared_stop, queue)) as pool:
            try:
                _feed_pool(pool, todo, jobs, stop, shared_stop, queue, console, on_result)
            except BaseException:
                shared_stop.set()  # a second Ctrl-C: the pool's shutdown then waits only for cancelled searches
                raise
    for task in todo:
        on_result(_not_started(task))


def _feed_pool(pool: ProcessPoolExecutor, todo: "deque[PackTask]", jobs: int, stop: _StopSignal, shared_stop: Any,
               queue: Any, console: _Console, on_result: OnResult) -> None:
    """Keep ``jobs`` files in flight until ``todo`` is empty, ``stop`` is set
    or the pool breaks; returns when no file is in flight."""
    running: Dict[Future, PackTask] = {}
    broken = False
    while True:
        while todo and not broken and not stop.is_set() and len(running) < jobs:
            task = todo.popleft()
            console.started(task.index, task.path)
            running[pool.submit(_worker_pack, task)] = task
        if not running:
            return
        done, _ = wait(running, timeout=0.1, return_when=FIRST_COMPLETED)
        if stop.is_set() and not shared_stop.is_set():
            shared_stop.set()
        _drain(queue, console)
        for future in done:
            task = running.pop(future)
            try:
                result = future.result()
            except BrokenProcessPool:
                broken = True
                result = replace(_not_started(task), status=FAILED,
                                 error=f"{task.path}: the worker process packing it died")
            on_result(result)


# --------------------------------------------------------------------------- pack


def _tile_list(tiles: Sequence[int]) -> str:
    """``[1001, 1002, 1003, 1011]`` as ``1001-1003,1011``."""
    runs: List[List[int]] = []
    for t in tiles:
        if runs and t == runs[-1][1] + 1:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    return ",".join(f"{a}-{b}" if b > a else f"{a}" for a, b in runs)


def _udim_tiles(text: str) -> List[int]:
    """An argparse type for ``--udim``: a comma list of tiles and ranges
    such as ``1001-1010,1021``."""
    tiles: List[int] = []
    try:
        for part in text.split(","):
            lo, _, hi = part.strip().partition("-")
            tiles += list(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a tile list such as 1001-1010,1021: {text!r}") from None
    if not tiles:
        raise argparse.ArgumentTypeError(f"no tiles in {text!r}")
    return tiles


def _packer_options(args: argparse.Namespace) -> Dict[str, Any]:
    options = {"margin": args.margin, "margin_px": args.margin_px, "texture_size": args.texture_size,
               "rotation": args.rotation, "rotation_step": args.rotation_step, "flip": args.flip,
               "shape": args.shape, "merge_overlapping": not args.no_merge_overlapping, "seed": args.seed,
               "padding": args.padding, "pixel_perfect": args.pixel_perfect, "block_align": args.block_align}
    if args.udim is not None or args.texel_density is not None:
        options["scale"] = "fixed"
        options["tiles"] = args.udim
    if args.texel_density is not None:
        options["texel_density"] = args.texel_density
    return options


def _check_options(options: Dict[str, Any]) -> Optional[str]:
    """The packer's own complaint about ``options`` (checked once on a
    single triangle), or None when they are fine."""
    try:
        Packer(np.array([[0.0, 0.0], [0.01, 0.0], [0.0, 0.01]]), [[0, 1, 2]],
               positions=np.eye(3) * 1e-9 if "texel_density" in options else None, **options)
    except ValueError as e:
        return str(e)
    return None


def _summary(results: Sequence[FileResult], elapsed: float, interrupted: bool, skipped_outputs: int) -> str:
    count = {s: sum(r.status == s for r in results) for s in (PACKED, KEPT, INTERRUPTED, FAILED, NOT_STARTED)}
    n = len(results)
    parts = [f"packed {count[PACKED]} of {n} file{'s' if n != 1 else ''}"]
    if count[KEPT]:
        parts.append(f"{count[KEPT]} stopped early and written with the best layout so far")
    if count[INTERRUPTED]:
        parts.append(f"{count[INTERRUPTED]} stopped and not written")
    if count[FAILED]:
        parts.append(f"{count[FAILED]} failed")
    if count[NOT_STARTED]:
        parts.append(f"{count[NOT_STARTED]} not started")
    text = ", ".join(parts) + f" in {elapsed:.1f} s"
    written = [r for r in results if r.status in (PACKED, KEPT)]
    if written:
        before = sum(r.coverage_before or 0.0 for r in written) / len(written)
        after = sum(r.coverage_after or 0.0 for r in written) / len(written)
        text += f"; mean coverage {before:.1%} -> {after:.1%}"
    if skipped_outputs:
        text += f" (left out {skipped_outputs} earlier output{'s' if skipped_outputs != 1 else ''})"
    return f"uvnest: {'interrupted: ' if interrupted else ''}{text}"


def _write_report(path: Path, results: Sequence[FileResult], args: argparse.Namespace, elapsed: float,
                  interrupted: bool) -> None:
    doc = {
        "uvnest_version": __version__,
        "interrupted": interrupted,
        "time": elapsed,
        "options": {**_packer_options(args), "time": args.time, "iterations": args.iterations,
                    "uv_set": args.uv_set},
        "files": [{k: v for k, v in asdict(r).items() if k != "index"} for r in results],
    }
    atomic_write_bytes(path, (json.dumps(doc, indent=2, allow_nan=False) + "\n").encode("utf-8"))


def _budget(args: argparse.Namespace, default_time: float) -> Tuple[Optional[float], Optional[int]]:
    """(time limit, iterations): ``--time`` defaults to ``default_time``
    unless ``--iterations`` is given (then there is no time limit)."""
    if args.time is None and args.iterations is None:
        return default_time, None
    return args.time, args.iterations


def _run_batch(tasks: Sequence[PackTask], jobs: int, console: _Console,
               fail_fast: bool) -> Tuple[List[FileResult], bool]:
    """Pack ``tasks`` (serially or in a pool); returns the results in task
    order and whether Ctrl-C stopped the batch."""
    stop = _StopSignal()
    results: Dict[int, FileResult] = {}

    def on_result(r: FileResult) -> None:
        results[r.index] = r
        console.finished(r)
        if fail_fast and r.status == FAILED:
            stop.set()

    with _Interrupts(stop) as interrupts:
        try:
            if jobs > 1 and len(tasks) > 1:
                _run_pool(tasks, min(jobs, len(tasks)), stop, console, on_result)
            else:
                _run_serial(tasks, stop, console, on_result)
        except KeyboardInterrupt:  # a second Ctrl-C: give up on the files in progress at once
            interrupts.count = max(interrupts.count, 1)
            for task in tasks:
                if task.index not in results:
                    r = _not_started(task)
                    results[task.index] = replace(r, status=INTERRUPTED) if task.index in console.running else r
    return [results[t.index] for t in tasks], interrupts.count > 0


def _cmd_pack(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    t0 = time.perf_counter()
    if args.output is not None and (len(args.paths) != 1 or Path(args.paths[0]).is_dir()):
        parser.error("-o/--output needs exactly one input file (use --out-dir for several files or folders)")
    if args.suffix is not None and (args.in_place or args.output is not None):
        parser.error("--suffix cannot be combined with --in-place or -o/--output")
    if args.keep_groups and args.udim is None and args.texel_density is None:
        parser.error("--keep-groups needs --udim")
    if args.margin_px is not None and args.texture_size is None:
        parser.error("--margin-px needs --texture-size")
    if args.preview:
        try:
            require_pillow()
        except PreviewUnavailable as e:
            parser.error(f"--preview: {e}")
    options = _packer_options(args)
    problem = _check_options(options)
    if problem:
        parser.error(problem)
    suffix = args.suffix if args.suffix is not None else ("" if args.out_dir is not None else "_packed")
    out_dir = Path(args.out_dir) if args.out_dir is not None else None
    files, missing, skipped = collect_inputs(
        args.paths, skip_dir=out_dir, skip_stem_suffix=suffix if not args.in_place and args.output is None else "")
    plans = _plan_outputs(files, output=Path(args.output) if args.output else None, out_dir=out_dir,
                          suffix=suffix, in_place=args.in_place, preview=args.preview)
    time_limit, iterations = _budget(args, DEFAULT_TIME)

    console = _Console(args.quiet, len(missing) + len(plans))
    # one index space in input order: arguments that do not exist, then the planned files
    early: List[FileResult] = [FileResult(index=k, path=arg, status=FAILED, error=m)
                               for k, (arg, m) in enumerate(missing)]
    tasks: List[PackTask] = []
    for k, plan in enumerate(plans, start=len(missing)):
        if plan.error is not None:
            early.append(FileResult(index=k, path=str(plan.path), status=FAILED, error=plan.error))
            continue
        tasks.append(PackTask(index=k, path=str(plan.path), output=str(plan.output), options=options,
                              time_limit=time_limit, iterations=iterations, uv_set=args.uv_set,
                              preview=str(plan.preview) if plan.preview else None, preview_size=args.preview_size,
                              keep_best=args.keep_best, keep_groups=args.keep_groups))
    if not early and not tasks:
        console.summary("uvnest: no .obj, .gltf or .glb files found")
        return EXIT_FAILED
    for r in early:
        console.finished(r)
    if early and args.fail_fast:
        tasks_run: List[FileResult] = [_not_started(t) for t in tasks]
        interrupted = False
    else:
        tasks_run, interrupted = _run_batch(tasks, args.jobs or _cpu_count(), console, args.fail_fast)
    results = sorted(early + tasks_run, key=lambda r: r.index)
    elapsed = time.perf_counter() - t0
    status = EXIT_INTERRUPTED if interrupted else (EXIT_FAILED if any(r.status == FAILED for r in results)
                                                   else EXIT_OK)
    if args.report:
        try:
            _write_report(Path(args.report), results, args, elapsed, interrupted)
        except OSError as e:
            console.error(f"{args.report}: cannot write the report: {e.strerror or e}")
            status = status or EXIT_FAILED
    console.summary(_summary(results, elapsed, interrupted, skipped))
    return status


# --------------------------------------------------------------------------- info


def _classify_group(member_areas: Sequence[float], union_area: float) -> str:
    """``stacked`` (every member lies within the largest: copies sharing
    texture space), ``nested`` (members do not overlap in area: an island in
    another's hole) or ``overlapping``."""
    total = float(sum(member_areas))
    largest = max(member_areas) if member_areas else 0.0
    tol = 1e-6 * max(total, 1e-300)
    if union_area <= largest + tol:
        return "stacked"
    if union_area >= total - tol:
        return "nested"
    return "overlapping"


def mesh_info(path: Path, uv_set: int = 0) -> Dict[str, Any]:
    """The UV statistics ``uvnest info`` prints for one file (raises
    ``MeshIOError``/``ValueError`` for files it cannot read)."""
    mesh = io.load(path, uv_set=uv_set)
    info: Dict[str, Any] = {"path": str(path), "format": mesh.format, "faces": len(mesh.faces),
                            "uvs": int(len(mesh.uvs)), "skipped_faces": mesh.skipped_faces,
                            "skipped_primitives": list(mesh.skipped_primitives)}
    if not mesh.faces:
        info.update(islands=0, groups=0, overlapping_groups=[], out_of_tile=[], coverage=0.0, island_area=0.0)
        return info
    single = find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=False)
    merged = find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=True)
    bbox = np.array([isl.bbox for isl in single], dtype=np.float64).reshape(-1, 4)
    t = TILE_TOLERANCE
    outside = np.flatnonzero((bbox[:, 0] < -t) | (bbox[:, 1] < -t) | (bbox[:, 2] > 1 + t) | (bbox[:, 3] > 1 + t))
    groups = [{"group": g.index, "islands": list(g.members),
               "kind": _classify_group([single[m].area for m in g.members], g.area)}
              for g in merged if len(g.members) > 1]
    info.update(islands=len(single), groups=len(merged), overlapping_groups=groups,
                out_of_tile=[int(i) for i in outside], coverage=tile_coverage(merged),
                island_area=float(sum(isl.area for isl in single)))
    return info


def _info_text(info: Dict[str, Any]) -> str:
    lines = [f"{info['path']}: {info['format']}, {info['faces']} faces with UVs, {info['uvs']} UVs"
             + (f", {info['skipped_faces']} faces without UVs" if info["skipped_faces"] else "")]
    for reason in info["skipped_primitives"]:
        lines.append(f"  skipped {reason}")
    lines.append(f"  islands: {info['islands']} ({info['groups']} groups that move together)")
    groups = info["overlapping_groups"]
    if groups:
        kinds = {k: sum(g["kind"] == k for g in groups) for k in ("stacked", "overlapping", "nested")}
        detail = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
        lines.append(f"  overlapping groups: {len(groups)} ({detail}; "
                     f"{sum(len(g['islands']) for g in groups)} islands)")
    else:
        lines.append("  overlapping groups: none")
    lines.append(f"  outside the 0..1 tile: {len(info['out_of_tile'])} islands")
    lines.append(f"  coverage: {info['coverage']:.2%} of the tile (islands' total area {info['island_area']:.4g})")
    return "\n".join(lines)


def _cmd_info(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    files, errors, _ = collect_inputs(args.paths)
    entries: List[Dict[str, Any]] = [{"path": arg, "error": m} for arg, m in errors]
    for m in errors:
        print(f"error: {m[1]}", file=sys.stderr)
    for path, _root in files:
        try:
            entry = mesh_info(path, args.uv_set)
        except MeshIOError as e:
            entry = {"path": str(path), "error": str(e)}
        except (ValueError, IndexError, TypeError, MemoryError, OSError) as e:
            entry = {"path": str(path), "error": f"{path}: {_reason(e)}"}
        entries.append(entry)
        if "error" in entry:
            print(f"error: {entry['error']}", file=sys.stderr, flush=True)
        elif not args.json:
            print(_info_text(entry), flush=True)
    if args.json:
        json.dump(entries, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    if not entries:
        print("uvnest: no .obj, .gltf or .glb files found", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if any("error" in e for e in entries) else EXIT_OK


# --------------------------------------------------------------------------- demo


def _cmd_demo(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    out_dir = Path(args.out_dir) if args.out_dir is not None else Path.cwd()
    output = out_dir / DEMO_OUTPUT
    try:
        require_pillow()
        png: Optional[Path] = output.with_suffix(".png")
        no_png = ""
    except PreviewUnavailable as e:
        png, no_png = None, str(e)
    task = PackTask(index=0, path=str(demo_path()), output=str(output), options=dict(DEMO_OPTIONS),
                    time_limit=args.time, iterations=None, preview=str(png) if png else None,
                    preview_size=args.preview_size, keep_best=True)
    console = _Console(0, 1, file_lines=False)
    (result,), interrupted = _run_batch([task], 1, console, fail_fast=False)
    console.close()
    if result.status not in (PACKED, KEPT):
        print(f"error: {result.error or result.status}", file=sys.stderr)
        return EXIT_INTERRUPTED if interrupted else EXIT_FAILED
    print(f"packed the uvnest demo model ({result.islands} islands, margin {DEMO_OPTIONS['margin_px']:g} px on a "
          f"{DEMO_OPTIONS['texture_size']} px texture, {result.time:.1f} s{', stopped early' if interrupted else ''})")
    print(f"coverage: {result.coverage_before:.1%} before -> {result.coverage_after:.1%} after "
          f"(scale {result.scale:.3f})")
    print(f"wrote {result.output}")
    if result.preview:
        print(f"wrote {result.preview}")
    else:
        print(f"no preview image: {no_png}")
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


# --------------------------------------------------------------------------- arguments


def _number(kind: Callable[[str], Any], low: Optional[float] = None, high: Optional[float] = None,
            low_open: bool = False) -> Callable[[str], Any]:
    """An argparse type: ``kind`` within bounds, with a clear message."""

    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a{'n integer' if kind is int else ' number'}: {text!r}") \
                from None
        if kind is float and not np.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be finite: {text!r}")
        if low is not None and (value <= low if low_open else value < low):
            raise argparse.ArgumentTypeError(f"must be {'>' if low_open else '>='} {low:g}: {text!r}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"must be <= {high:g}: {text!r}")
        return value

    convert.__name__ = kind.__name__
    return convert


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the descriptions' line breaks; wider option column."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=32)


def build_parser() -> argparse.ArgumentParser:
    """The ``uvnest`` argument parser (subcommands ``pack``, ``info``, ``demo``)."""
    parser = argparse.ArgumentParser(
        prog="uvnest", formatter_class=_Formatter,
        description="Exact UV island packing for OBJ and glTF files.",
        epilog="Run 'uvnest COMMAND --help' for the options of a command. Start with: uvnest demo")
    parser.add_argument("--version", action="version", version=f"uvnest {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "pack", formatter_class=_Formatter, help="pack the UV islands of mesh files",
        description=(
            "Pack the UV islands of OBJ, glTF and GLB files into the 0..1 tile, as large as possible,\n"
            "at least --margin apart.  Only the UVs change.  Folders are searched recursively.\n\n"
            "Outputs: by default chair.obj -> chair_packed.obj next to it (--suffix); -o for one file;\n"
            "--out-dir mirrors folder structure; inputs are replaced only with --in-place.  Every file\n"
            "is written atomically.  A .gltf output gets its buffers as <name>.bin next to it; images\n"
            "it references are not copied."),
        epilog=(
            "exit status: 0 all files packed, 1 a file failed, 2 bad arguments, 130 interrupted.\n"
            "Ctrl-C stops cleanly: finished files stay, files in progress are dropped (or written\n"
            "with --keep-best); press it twice to abort at once.\n\n"
            "examples:\n"
            "  uvnest pack chair.obj\n"
            "  uvnest pack models/ --out-dir packed/ --margin-px 4 --texture-size 2048 --preview\n"
            "  uvnest pack scene.glb -o scene_packed.glb --time 10 --rotation 90 --flip\n"
            "  uvnest pack models/ --iterations 20000 --seed 1 --report report.json"))
    p.add_argument("paths", nargs="+", metavar="PATH", help="mesh files (.obj, .gltf, .glb) or folders")
    out = p.add_argument_group("output")
    where = out.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", metavar="OUT", help="output file (one input file only)")
    where.add_argument("--out-dir", metavar="DIR",
                       help="write outputs into DIR, mirroring the folders' structure (names kept unless "
                            "--suffix is given)")
    where.add_argument("--in-place", action="store_true", help="replace the input files")
    out.add_argument("--suffix", metavar="TEXT",
                     help="added to output names (default: _packed, or none with --out-dir); when searching "
                          "folders, files whose name already ends with it are left out as earlier outputs")
    out.add_argument("--preview", action="store_true",
                     help="also write a PNG of each layout next to its output (chair_packed.obj -> "
                          "chair_packed.png; needs Pillow)")
    out.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                     help="preview side in pixels (default: %(default)s)")
    out.add_argument("--report", metavar="FILE.json",
                     help="write per-file results (coverage before and after, scale, time, status) as JSON")

    opt = p.add_argument_group("packing")
    opt.add_argument("--margin", type=_number(float, 0.0), default=0.001,
                     help="smallest gap between islands, in tile units (default: %(default)s)")
    opt.add_argument("--margin-px", type=_number(float, 0.0), metavar="PX",
                     help="margin in pixels of --texture-size (overrides --margin)")
    opt.add_argument("--texture-size", type=_number(int, 0, low_open=True), metavar="PX",
                     help="texture side in pixels, for --margin-px")
    opt.add_argument("--rotation", choices=("none", "90", "any"), default="any",
                     help="island rotations allowed (default: %(default)s)")
    opt.add_argument("--rotation-step", type=_number(float, 0.5, 360.0), default=5.0, metavar="DEG",
                     help="angle step for --rotation any, in degrees (default: %(default)s)")
    opt.add_argument("--flip", action="store_true", help="allow mirrored islands")
    opt.add_argument("--shape", choices=("concave", "convex", "box"), default="concave",
                     help="island shape used for packing (default: %(default)s)")
    opt.add_argument("--no-merge-overlapping", action="store_true",
                     help="pack overlapping (stacked) islands separately instead of moving them together")
    opt.add_argument("--padding", type=_number(float, 0.0), default=0.0,
                     help="smallest gap between islands and the tile border, in tile units (default: %(default)s)")
    opt.add_argument("--seed", type=_number(int, 0), default=0, help="random seed (default: %(default)s)")

    udim = p.add_argument_group("UDIM tiles and the texel grid")
    udim.add_argument("--udim", nargs="?", const="1001-1100", type=_udim_tiles, metavar="TILES",
                      help="keep the islands' size and use as few UDIM tiles as possible; optionally the tiles "
                           "to fill, in order, e.g. 1001-1010,1021 (default: 1001-1100)")
    udim.add_argument("--texel-density", type=_number(float, 0.0, low_open=True), metavar="PX_PER_UNIT",
                      help="give every island this many texels per unit of 3D length (needs --texture-size; "
                           "implies --udim)")
    udim.add_argument("--keep-groups", action="store_true",
                      help="with --udim, keep each OBJ object/group/material (glTF primitive) in one tile "
                           "whenever it fits")
    udim.add_argument("--pixel-perfect", action="store_true",
                      help="snap island positions to the texel grid of --texture-size (margins still hold)")
    udim.add_argument("--block-align", type=_number(int, 1), metavar="PX",
                      help="snap island positions to PX x PX blocks (4 for BCn/ETC) and keep every block to one "
                           "island (needs --texture-size)")

    run = p.add_argument_group("search and batch")
    run.add_argument("--time", type=_number(float, 0.0), metavar="SECONDS",
                     help=f"search time per file (default: {DEFAULT_TIME:g}, or no time limit with --iterations)")
    run.add_argument("--iterations", type=_number(int, 0), metavar="N",
                     help="search moves per file: with a fixed seed the result is the same on every run")
    run.add_argument("--uv-set", type=_number(int, 0), default=0, metavar="N",
                     help="glTF UV set to pack, TEXCOORD_N (default: %(default)s)")
    run.add_argument("-j", "--jobs", type=_number(int, 1), metavar="N",
                     help=f"files packed in parallel (default: all cores, here {_cpu_count()})")
    run.add_argument("--fail-fast", action="store_true", help="stop at the first file that fails")
    run.add_argument("--keep-best", action="store_true",
                     help="on Ctrl-C, write the best layout found so far for the files in progress")
    run.add_argument("-q", "--quiet", action="count", default=0,
                     help="no progress display: only errors and the summary; -qq: nothing")
    p.set_defaults(run=_cmd_pack)

    i = sub.add_parser(
        "info", formatter_class=_Formatter, help="show the UV islands of mesh files",
        description=(
            "Per file: islands, groups of overlapping islands (stacked copies, islands in another's\n"
            "hole, partial overlaps) that move together when packing, islands outside the 0..1 tile,\n"
            "UV coverage of the tile (area of the union of the islands inside it), faces and UVs."))
    i.add_argument("paths", nargs="+", metavar="PATH", help="mesh files (.obj, .gltf, .glb) or folders")
    i.add_argument("--json", action="store_true", help="print a JSON list, one object per file")
    i.add_argument("--uv-set", type=_number(int, 0), default=0, metavar="N",
                   help="glTF UV set, TEXCOORD_N (default: %(default)s)")
    i.set_defaults(run=_cmd_info)

    d = sub.add_parser(
        "demo", formatter_class=_Formatter, help="pack the sample model shipped with uvnest",
        description=(
            "Pack the sample model shipped with uvnest (a UV-unwrapped gadget with badly laid out\n"
            f"islands) and write {DEMO_OUTPUT} and its preview {Path(DEMO_OUTPUT).with_suffix('.png')}\n"
            "(needs Pillow) into the current folder or --out-dir."))
    d.add_argument("--out-dir", metavar="DIR", help="where to write (default: the current folder)")
    d.add_argument("--time", type=_number(float, 0.0), default=2.0, metavar="SECONDS",
                   help="search time (default: %(default)s)")
    d.add_argument("--preview-size", type=_number(int, 128, 16384), default=1024, metavar="PX",
                   help="preview side in pixels (default: %(default)s)")
    d.set_defaults(run=_cmd_demo)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the ``uvnest`` command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args, parser)
    except BrokenPipeError:  # e.g. 'uvnest info ... | head'
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("uvnest: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
