"""Packing one file: load, search, measure, write atomically; never raises
for a bad file (the result says what went wrong)."""
from __future__ import annotations

import contextlib
import math
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, Optional

import numpy as np

from .. import io
from ..io import MeshIOError
from ..islands import find_islands, tile_coverage
from ..packing import Packer
from ..preview import write_preview
from ..tiles import udim_box
from .results import FAILED, INTERRUPTED, KEPT, NOT_STARTED, PACKED, FileResult, PackTask, Progress

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
