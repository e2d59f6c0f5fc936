"""Packing one file: load, search, measure, write atomically; never raises
for a bad file (the result says what went wrong)."""
from __future__ import annotations

import contextlib
import fnmatch
import math
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .. import io
from ..geometry import box_angle, turned
from ..io import MeshIOError
from ..islands import Island, find_islands, tile_coverage
from ..options import AXIS_ROTATIONS, PackOptions
from ..packing import Packer
from ..region import is_rectangle, parse_region
from ..preview import write_preview
from ..tiles import off_tile, udim_box, udim_tile_of
from .results import FAILED, INTERRUPTED, KEPT, NOT_STARTED, PACKED, UNCHANGED, FileResult, Notice, PackTask, Progress

UNIT_TILE = (0.0, 0.0, 1.0, 1.0)

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


#: Coverage may drop by this much (a share of the tile) and not count as
#: worse: room for the float32 storage of glTF UVs and the engine's own
#: rounding when the layout cannot improve (homedecor_bottle with
#: --no-scale, the islands' size kept: 1.4e-6); far below what a print
#: (0.1 %) shows, and below a 0.001 margin's cost on a full tile (1.2e-3).
WORSE_TOLERANCE = 1e-5


Region = Tuple[float, float, float, float]


def layout_coverage(islands: Sequence[Island], regions: Sequence[Region]) -> float:
    """Mean share of ``regions`` covered by the union of ``islands`` (merged
    overlapping islands, as :func:`uvnest.find_islands` gives by default);
    0 when there is no region.  Before and after packing, a file is measured
    by this one function."""
    if not regions:
        return 0.0
    return float(np.mean([tile_coverage(islands, r) for r in regions]))


def _input_regions(islands: Sequence[Island], options: Dict[str, Any]) -> List[Region]:
    """Where the input layout is measured: the target (default the 0..1
    tile; for a region of rings its box), or with ``scale='fixed'`` the UDIM tiles holding the islands'
    centres, as the packed layout is measured in the tiles it uses."""
    if options.get("scale") != "fixed":
        target = options.get("target", UNIT_TILE)
        return [tuple(target) if is_rectangle(target) else parse_region(target).box]   # a region: its box
    tiles = {udim_tile_of((i.bbox[0] + i.bbox[2]) / 2, (i.bbox[1] + i.bbox[3]) / 2) for i in islands}
    return [udim_box(t) for t in sorted(t for t in tiles if t is not None)]


def _off_tile_warning(path: str, islands: Sequence[Island], fixed: bool) -> Tuple[int, Optional[str]]:
    """How many islands reach outside the tile (any single UDIM tile when
    ``fixed``; the islands of a group of overlapping ones count when the
    group does), and a warning saying so (None when none does)."""
    boxes = np.array([isl.bbox for isl in islands], dtype=np.float64).reshape(-1, 4)
    out = off_tile(boxes, any_tile=fixed)
    if not out.size:
        return 0, None
    lo, hi = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    where = "a single UDIM tile" if fixed else "the 0..1 tile"
    count = sum(len(islands[i].members) for i in out)  # an overlapping group counts its islands
    total = sum(len(isl.members) for isl in islands)
    return count, (f"{path}: {count} of {total} islands reach outside {where} (UVs span "
                           f"u {lo[0]:.3g}..{hi[0]:.3g}, v {lo[1]:.3g}..{hi[1]:.3g}: tiling or offset UVs?); "
                           "packing moves them into the tile, so textures that repeat will no longer line up")


def _locked_faces(mesh: Any, names: Sequence[str], path: str, warn: Callable[[str], None]) -> Optional[np.ndarray]:
    """Faces of the objects, groups or materials named ``names`` (exact
    names or globs, matched against each part of a group name such as
    ``o Chair, usemtl wood`` without its keyword, and the whole of it), as
    a mask over ``mesh.faces``; None when ``names`` is empty.  Names that
    match nothing are warned about."""
    if not names:
        return None
    keys = np.asarray(mesh.face_groups if mesh.face_groups is not None else np.zeros(len(mesh.faces), np.int64))
    group_names = list(mesh.group_names) if mesh.face_groups is not None else ["(default)"]
    matched = np.zeros(len(group_names), bool)
    for name in names:
        hits = [k for k, g in enumerate(group_names) if _names_match(g, name)]
        if not hits:
            warn(f"{path}: --locked {name}: no object, group or material of that name")
        matched[hits] = True
    return matched[keys]


def _names_match(group_name: str, pattern: str) -> bool:
    parts = [part.strip().split(" ", 1)[-1] for part in group_name.split(",")]
    return any(fnmatch.fnmatchcase(p, pattern) for p in [group_name, *parts])


def engine_rotation(options: Dict[str, Any]) -> Tuple[Dict[str, Any], Optional[str]]:
    """``options`` as :class:`uvnest.Packer` takes them, and the pose
    islands are turned to first (None unless ``rotation`` is axis-aligned)."""
    pose, engine = AXIS_ROTATIONS.get(options.get("rotation", "any"), (None, None))
    return (options if engine is None else dict(options, rotation=engine)), pose


def _pre_turned(uvs: np.ndarray, islands: Sequence[Island], locked: Optional[np.ndarray], pose: str) -> np.ndarray:
    """``uvs`` with every island but the locked ones turned to its smallest
    bounding box in ``pose`` (as Blender's pack pre-rotates an island), and
    moved onto shelves beside the layout: turned in place, islands could
    overlap and then be merged into one group by the packer.  Where they
    start does not matter to the packer, only their shapes and groups."""
    out = np.array(uvs, dtype=np.float64, copy=True)
    moving = [isl for isl in islands if not (locked is not None and locked[isl.faces].any())]
    for isl in moving:
        if isl.area > 0:
            out[isl.uv_indices] = turned(out[isl.uv_indices], box_angle(out[isl.uv_indices], pose))
    if not moving:
        return out
    lo = np.array([out[isl.uv_indices].min(axis=0) for isl in moving])
    size = np.array([out[isl.uv_indices].max(axis=0) for isl in moving]) - lo
    gap = 0.01 * float(size.max()) + 1e-9
    width = max(math.sqrt(float(np.prod(size + gap, axis=1).sum())), float(size[:, 0].max())) + gap
    x, y, shelf = float(out[:, 0].max()) + gap, float(out[:, 1].min()), 0.0
    x0 = x
    for isl, corner, (w, h) in zip(moving, lo, size):
        if x > x0 and x + w > x0 + width:  # next shelf
            x, y, shelf = x0, y + shelf + gap, 0.0
        out[isl.uv_indices] += np.array([x, y]) - corner
        x, shelf = x + w + gap, max(shelf, h)
    return out


def pack_file(task: PackTask, stop: Any, progress: Optional[Callable[[Any], None]] = None) -> FileResult:
    """Load, pack and write one file; never raises for a bad file.

    ``stop`` is anything with ``is_set()``: when it is set before the file
    starts, nothing is done (``not started``); during the search, the search
    ends and the file is dropped (``interrupted``) or, with
    ``task.keep_best``, written with the best layout so far (``kept``).
    ``progress`` is called with a :class:`Notice` for each warning (islands
    outside the tile come before the search) and a :class:`Progress` for
    every better layout.  A layout that covers less than the input is
    written with a warning (``worse``), or with ``task.only_if_better`` the
    output gets the input's layout (status ``unchanged``; an input packed in
    place is not touched).  Errors become a ``FileResult`` with status
    ``error`` and a one-line message that starts with the file name.
    """
    t0 = time.perf_counter()
    res = FileResult(index=task.index, path=task.path, status=FAILED, seed=int(task.options.get("seed", 0)))

    def warn(text: str) -> None:
        res.warnings.append(text)
        if progress is not None:
            progress(Notice(task.index, text))

    try:
        if stop.is_set():
            res.status = NOT_STARTED
            return res
        mesh = io.load(task.path, uv_set=task.uv_set)
        if not mesh.faces:
            raise ValueError("has no faces with texture coordinates")
        fixed = task.options.get("scale") == "fixed"
        before = find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)
        res.islands = sum(len(isl.members) for isl in before)
        res.coverage_before = layout_coverage(before, _input_regions(before, task.options))
        res.out_of_tile, off = _off_tile_warning(task.path, before, fixed)
        if off:
            warn(off)
        extra: Dict[str, Any] = {}
        if task.keep_groups and mesh.face_groups is not None:
            extra["groups"] = mesh.face_groups
        if task.options.get("group_layout") == "together":   # a file of one group is one region
            extra["groups"] = mesh.face_groups if mesh.face_groups is not None else np.zeros(len(mesh.faces), np.int64)
        if "texel_density" in task.options:
            extra["positions"] = mesh.positions if mesh.positions is not None else np.zeros((0, 3))
        locked = _locked_faces(mesh, task.locked_groups, task.path, warn)
        if locked is not None and locked.any():
            extra["locked"] = locked
        options, pose = engine_rotation(task.options)
        uvs = mesh.uvs
        if pose is not None:
            islands = before if options.get("merge_overlapping", True) else \
                find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces, merge_overlapping=False)
            uvs = _pre_turned(mesh.uvs, islands, extra.get("locked"), pose)
        packer = Packer(uvs, mesh.faces, mesh_faces=mesh.mesh_faces, **_storable(options, mesh.uv_step), **extra)
        res.groups = len(packer.islands)
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
        regions = [udim_box(t) for t in used] if fixed else _input_regions(after, task.options)
        res.coverage_after = layout_coverage(after, regions)
        res.worse = res.coverage_after < res.coverage_before - WORSE_TOLERANCE
        if fixed:
            res.tiles = used
            res.split_groups = [mesh.group_names[k] for k in best.split_groups] if task.keep_groups else []
        keep_input = bool(res.worse and task.only_if_better)
        if res.worse:
            warn(f"{task.path}: packing lowers coverage {res.coverage_before:.1%} -> {res.coverage_after:.1%}; "
                 + ("kept the input's layout (--only-if-better)" if keep_input
                    else "written anyway (--only-if-better keeps the input's layout)"))
        out = Path(task.output)
        if not (keep_input and out.resolve() == Path(task.path).resolve()):  # in place: leave the input alone
            with _writing(out):
                out.parent.mkdir(parents=True, exist_ok=True)
                io.save(mesh, out, uvs=None if keep_input else best.uvs)
        res.output = task.output
        if task.preview is not None:
            shown = before if keep_input else after
            with _writing(Path(task.preview)):
                write_preview(task.preview, shown, size=task.preview_size, margin=_margin(task.options),
                              coverage=res.coverage_before if keep_input else res.coverage_after,
                              scale=1.0 if keep_input else best.scale,
                              title=out.name + (" (input layout kept)" if keep_input else
                                                " (stopped early)" if watcher.fired else ""))
            res.preview = task.preview
        res.status = UNCHANGED if keep_input else KEPT if watcher.fired else PACKED
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
    """The margin in tile units that ``options`` ask for (``margin_px`` resolved)."""
    return PackOptions(**engine_rotation(options)[0]).resolved().margin


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
