"""Live packing session: the engine side of the Blender operator, without bpy.

The Blender operator ("Pack Islands (uvnest)") is a thin shell over
:class:`LiveSession`.  Blender stores one UV per face corner (loop), so the
session works on loops:

1. *Gather*: the operator reads each mesh in edit mode into a
   :class:`MeshLoops` (per-loop UVs, face loop starts and sizes, per-loop
   vertex indices, and per-face masks for selected, hidden and pinned).
2. *Start*: :meth:`LiveSession.start` runs the search in a worker thread (the
   C engine releases the GIL, so Blender stays responsive);
   :meth:`LiveSession.run` runs it synchronously instead (scripts, the redo
   panel, background mode).
3. *Poll*: :meth:`LiveSession.poll` hands out the newest better layout
   (a :class:`Layout`: new UVs for the moving loops of every mesh), which the
   operator writes into the meshes at once.
4. *Keep or cancel*: :meth:`LiveSession.keep` stops the search and returns
   the best layout; :meth:`LiveSession.cancel` stops it and returns the
   original UVs of the moving loops, bit for bit.

The search ends by itself at the time limit, at the iteration limit, or
after a number of seconds without improvement (see :class:`Limits`), or at
once when the first layout cannot be improved (``Packer.final``: bounding
boxes, power-of-two squares).

Islands follow Blender's rule: faces are joined across a mesh edge whose UVs
match at both ends; faces that only share a UV corner stay separate.  Only
selected, visible faces move; hidden faces are never read as selected.
With ``lock_pinned``, islands that contain a pinned UV stay where they are
and the other islands are packed around them.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

import numpy as np

from .packing import Packer, PackResult

__all__ = [
    "Layout",
    "Limits",
    "LiveSession",
    "MeshLoops",
    "PackError",
    "PackSettings",
    "Progress",
    "TARGET_MODES",
    "closest_udim_tile",
    "udim_tile_at",
    "udim_tile_rect",
]

#: Where the islands go: the UDIM tile closest to the selection, the active
#: UDIM tile, or the selection's original bounding box (Blender's names).
TARGET_MODES = ("CLOSEST_UDIM", "ACTIVE_UDIM", "ORIGINAL_AABB", "UDIM_TILES")
#: Longest single search step of the worker, in seconds: it bounds how late
#: a limit, a keep or a cancel is noticed.
STEP_SECONDS = 0.05
#: Key help shown while the modal operator runs.
KEYS_TEXT = "Enter/Space/Click: keep   Esc/Right-click: cancel"


class PackError(Exception):
    """A problem the user can fix (no selection, no UVs, no room); the
    message is meant for Blender's status bar."""


# ----------------------------------------------------------------- inputs


@dataclass
class MeshLoops:
    """One mesh's loops, as the add-on reads them from Blender.

    Attributes:
        uvs: ``(L, 2)`` float32 UV per loop, or None when the mesh has no UV
            map (such a mesh is skipped).
        loop_start: ``(F,)`` first loop of each face.
        loop_total: ``(F,)`` number of loops of each face.
        loop_vert: ``(L,)`` mesh vertex index of each loop.
        selected: ``(F,)`` bool, face selected for packing (already
            following UV sync selection).
        hidden: ``(F,)`` bool, face hidden (never packed, even if selected).
        pinned: ``(F,)`` bool, face has a pinned UV.
        name: the object's name, for messages.
    """

    uvs: Optional[np.ndarray]
    loop_start: np.ndarray
    loop_total: np.ndarray
    loop_vert: np.ndarray
    selected: np.ndarray
    hidden: np.ndarray
    pinned: np.ndarray
    name: str = ""


@dataclass(frozen=True)
class PackSettings:
    """Packing options, with Blender's names and meanings where they overlap.

    Attributes:
        margin: smallest gap between islands as a fraction of the target's
            shorter side (Blender's margin method Fraction; for a UDIM tile
            this is in UV units).  Ignored when ``margin_px`` is set.
        margin_px: margin in texture pixels (margin method Pixels), with
            ``texture_size`` pixels per UV unit.
        texture_size: texture side in pixels, for ``margin_px``.
        rotation: ``'none'``, ``'90'`` or ``'any'``.
        rotation_step: degrees between tried angles with ``'any'``.
        flip: allow mirrored islands.
        shape: ``'concave'``, ``'convex'`` or ``'box'``.
        merge_overlapping: overlapping islands move together.
        lock_pinned: islands with a pinned UV stay put and are obstacles.
        target: one of :data:`TARGET_MODES`; ``'UDIM_TILES'`` keeps the
            islands' size and fills as few UDIM tiles as possible (the
            image's tiles in order when given, else 1001, 1002, ... in rows
            of 10).
        active_tile: UDIM tile number for ``'ACTIVE_UDIM'``.
        udim_tiles: the image's UDIM tiles; ``'CLOSEST_UDIM'`` picks among
            them and ``'UDIM_TILES'`` fills them, when given.
        udim_grid: ``(columns, rows)`` of the UV editor's tile grid, which
            bounds ``'CLOSEST_UDIM'`` without image tiles (None: 10 columns,
            any number of rows).
        seed: random seed of the search.
    """

    margin: float = 0.001
    margin_px: Optional[float] = None
    texture_size: Optional[int] = None
    rotation: str = "any"
    rotation_step: float = 5.0
    flip: bool = False
    shape: str = "concave"
    merge_overlapping: bool = True
    lock_pinned: bool = False
    target: str = "CLOSEST_UDIM"
    active_tile: int = 1001
    udim_tiles: Tuple[int, ...] = ()
    udim_grid: Optional[Tuple[int, int]] = None
    seed: int = 0


@dataclass(frozen=True)
class Limits:
    """When the search ends by itself; 0 switches a limit off.

    Attributes:
        time_limit: seconds since :meth:`LiveSession.start` (or ``run``).
        iterations: annealing moves.
        stall: seconds without a better layout.
    """

    time_limit: float = 0.0
    iterations: int = 0
    stall: float = 0.0

    @property
    def bounded(self) -> bool:
        """True when at least one limit is set, so the search ends by itself."""
        return self.time_limit > 0 or self.iterations > 0 or self.stall > 0


# ---------------------------------------------------------------- outputs


@dataclass(frozen=True)
class Layout:
    """A packed layout for the moving loops.

    Attributes:
        loop_uvs: per mesh, ``(M, 2)`` float32 UVs for the loops listed in
            :attr:`LiveSession.moving_loops` (same order).  Loops of locked
            islands keep their original values, bit for bit.
        coverage: share of the target covered by islands.
        scale: common scale of the moved islands.
        iterations: annealing moves made when this layout was found.
        elapsed: seconds since the session started when it was found.
        number: 0 for the first layout, then 1, 2, ... for each better one.
        islands: number of islands (groups of overlapping islands count
            once when ``merge_overlapping``), locked ones included.
    """

    loop_uvs: Tuple[np.ndarray, ...]
    coverage: float
    scale: float
    iterations: int
    elapsed: float
    number: int
    islands: int


@dataclass(frozen=True)
class Progress:
    """A snapshot of a running session, safe to read from any thread.

    Attributes:
        state: ``'ready'``, ``'running'``, ``'finished'`` (a limit was
            reached), ``'failed'``, ``'kept'`` or ``'cancelled'``.
        elapsed: seconds since the start.
        iterations: annealing moves so far.
        layouts: layouts found so far (the first one included).
        coverage: coverage of the best layout (0 before the first).
        scale: scale of the best layout (0 before the first).
        reason: why the search ended (empty while it runs).
    """

    state: str
    elapsed: float
    iterations: int
    layouts: int
    coverage: float
    scale: float
    reason: str


# ------------------------------------------------------------ UDIM tiles


def udim_tile_rect(number: int) -> Tuple[float, float, float, float]:
    """The ``(x0, y0, x1, y1)`` rectangle of UDIM tile ``number`` (1001-2000)."""
    if not 1001 <= number <= 2000:
        raise ValueError(f"UDIM tile numbers run from 1001 to 2000, got {number}")
    k = number - 1001
    u, v = k % 10, k // 10
    return (float(u), float(v), float(u + 1), float(v + 1))


def udim_tile_at(u: float, v: float, grid: Optional[Tuple[int, int]] = None) -> int:
    """The UDIM tile holding UV point ``(u, v)``, clamped to ``grid``
    (``(columns, rows)``; None: 10 columns and 100 rows)."""
    cols, rows = (10, 100) if grid is None else (max(1, min(int(grid[0]), 10)), max(1, min(int(grid[1]), 100)))
    iu = min(max(math.floor(u), 0), cols - 1)
    iv = min(max(math.floor(v), 0), rows - 1)
    return 1001 + iu + 10 * iv


def closest_udim_tile(point: Tuple[float, float], tiles: Sequence[int] = (),
                      grid: Optional[Tuple[int, int]] = None) -> int:
    """The UDIM tile closest to ``point``: among ``tiles`` when given (the
    lowest number wins a tie), else the grid tile holding it (see
    :func:`udim_tile_at`)."""
    if not tiles:
        return udim_tile_at(point[0], point[1], grid)

    def distance(number: int) -> float:
        x0, y0, x1, y1 = udim_tile_rect(number)
        dx = max(x0 - point[0], 0.0, point[0] - x1)
        dy = max(y0 - point[1], 0.0, point[1] - y1)
        return math.hypot(dx, dy)

    return min(sorted(tiles), key=distance)


# ---------------------------------------------------------------- session


def _check_mesh(k: int, m: MeshLoops) -> None:
    """Raise ``ValueError`` when the arrays of mesh ``k`` do not agree."""
    n_faces = len(m.loop_start)
    for name in ("loop_total", "selected", "hidden", "pinned"):
        if len(getattr(m, name)) != n_faces:
            raise ValueError(f"mesh {k}: {name} has {len(getattr(m, name))} entries for {n_faces} faces")
    if m.uvs is not None and (m.uvs.ndim != 2 or m.uvs.shape[1] != 2 or len(m.uvs) != len(m.loop_vert)):
        raise ValueError(f"mesh {k}: uvs must be (L, 2) with one row per loop, got {m.uvs.shape}")


def _chosen_loops(m: MeshLoops) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The faces to pack (selected and visible), their loop counts, and
    their loops in face order."""
    chosen = np.flatnonzero(np.asarray(m.selected, bool) & ~np.asarray(m.hidden, bool))
    start = np.asarray(m.loop_start, np.int64)[chosen]
    total = np.asarray(m.loop_total, np.int64)[chosen]
    first = np.cumsum(total) - total  # where each face's loops begin in the result
    loops = np.repeat(start - first, total) + np.arange(int(total.sum()), dtype=np.int64)
    return chosen, total, loops


class LiveSession:
    """Pack the selected islands of several meshes, live or synchronously.

    ``LiveSession(meshes, settings, limits)`` checks the selection and
    prepares the packer's input; nothing is computed yet.  Then either
    :meth:`start` (a worker thread; :meth:`poll` for each better layout,
    :meth:`keep` or :meth:`cancel` to end) or :meth:`run` (blocks until a
    limit and returns the best layout).

    Raises :class:`PackError` when there is nothing to pack (no UV map, no
    selected visible face), when a UV is not finite, or when the margin
    leaves no room in the target.  Errors found while building the first
    layout (the islands cannot fit) come from :meth:`run`, or through
    :attr:`error` after :meth:`start`.
    """

    def __init__(self, meshes: Sequence[MeshLoops], settings: PackSettings = PackSettings(),
                 limits: Limits = Limits()) -> None:
        self.settings = settings
        self.limits = limits
        if settings.target not in TARGET_MODES:
            raise ValueError(f"target must be one of {TARGET_MODES}, got {settings.target!r}")
        for k, m in enumerate(meshes):
            _check_mesh(k, m)
        with_uvs = [m for m in meshes if m.uvs is not None and len(m.loop_start)]
        if not with_uvs:
            raise PackError("No UV map to pack: the meshes in edit mode have no UVs")
        moving: List[np.ndarray] = []
        originals: List[np.ndarray] = []
        faces: List[np.ndarray] = []
        mesh_faces: List[np.ndarray] = []
        locked: List[np.ndarray] = []
        vert_offset = 0
        loop_offset = 0
        for m in meshes:
            if m.uvs is None:
                moving.append(np.zeros(0, dtype=np.int64))
                originals.append(np.zeros((0, 2), dtype=np.float32))
                continue
            chosen, total, loops = _chosen_loops(m)
            uvs = np.asarray(m.uvs, dtype=np.float32)[loops]
            bad = np.flatnonzero(~np.isfinite(uvs).all(axis=1))
            if bad.size:
                face = int(chosen[np.searchsorted(np.cumsum(total), bad[0], side="right")])
                raise PackError(f"{m.name or 'A mesh'} has a UV that is not a number (face {face}): "
                                "fix it before packing")
            moving.append(loops)
            originals.append(uvs)
            new_start = np.concatenate(([0], np.cumsum(total)[:-1])).astype(np.int64) + loop_offset
            faces.extend(np.arange(s, s + t) for s, t in zip(new_start.tolist(), total.tolist()))
            mesh_faces.append(np.asarray(m.loop_vert, np.int64)[loops] + vert_offset)
            locked.append(np.asarray(m.pinned, bool)[chosen])
            if len(m.loop_vert):  # the next mesh's vertices get numbers of their own
                vert_offset += int(np.max(m.loop_vert)) + 1
            loop_offset += loops.size
        if loop_offset == 0:
            raise PackError("No faces selected: select the faces (or, with UV sync selection off, "
                            "their UVs) to pack")
        self.moving_loops: Tuple[np.ndarray, ...] = tuple(moving)
        """Per mesh, the loops that may move (those of selected, visible faces)."""
        self._originals = tuple(originals)
        self._uvs = np.concatenate([o for o in originals if o.size]).astype(np.float64)
        self._faces = faces
        self._mesh_faces = np.concatenate(mesh_faces)
        self._locked = np.concatenate(locked)
        self._bounds = np.cumsum([len(o) for o in originals])[:-1]
        self.target = self._resolve_target()
        """The target rectangle ``(x0, y0, x1, y1)`` in UV space."""
        side = min(self.target[2] - self.target[0], self.target[3] - self.target[1])
        self.margin = (settings.margin_px / settings.texture_size
                       if settings.margin_px is not None and settings.texture_size else settings.margin * side)
        """The margin in UV units."""
        if not self.margin < side:
            raise PackError(f"The margin ({self.margin:.4g} UV) leaves no room in the target "
                            f"(side {side:.4g} UV): use a smaller margin")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._packer: Optional[Packer] = None
        self._best: Optional[Layout] = None
        self._polled = -1
        self._error: Optional[PackError] = None
        self._state = "ready"
        self._reason = ""
        self._t0 = 0.0
        self._moves = 0
        self._elapsed = 0.0

    # -------------------------------------------------------------- setup

    @property
    def original(self) -> Tuple[np.ndarray, ...]:
        """Per mesh, the original UVs of :attr:`moving_loops` (bit for bit)."""
        return self._originals

    @property
    def n_faces(self) -> int:
        """Number of faces packed (selected and visible)."""
        return len(self._faces)

    def _resolve_target(self) -> Tuple[float, float, float, float]:
        s = self.settings
        if s.target == "UDIM_TILES":
            return (0.0, 0.0, 1.0, 1.0)   # each tile: the margin is in UV units
        if s.target == "ACTIVE_UDIM":
            return udim_tile_rect(s.active_tile)
        lo, hi = self._uvs.min(axis=0), self._uvs.max(axis=0)
        if s.target == "ORIGINAL_AABB":
            if not (hi[0] > lo[0] and hi[1] > lo[1]):
                raise PackError("The selection's bounding box is empty: pick another target")
            return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        centre = (float(lo[0] + hi[0]) / 2, float(lo[1] + hi[1]) / 2)
        return udim_tile_rect(closest_udim_tile(centre, s.udim_tiles, s.udim_grid))

    def _make_packer(self) -> Packer:
        """Find the islands and compute the first layout (may take a while)."""
        s = self.settings
        sizes = {len(f) for f in self._faces}
        faces = np.stack(self._faces) if len(sizes) == 1 else self._faces
        mesh_faces = self._mesh_faces.reshape(faces.shape) if len(sizes) == 1 else [
            self._mesh_faces[f] for f in self._faces]
        if s.target == "UDIM_TILES":
            placement = {"scale": "fixed", "tiles": sorted(s.udim_tiles) or None}
        else:
            placement = {"target": self.target}
        try:
            return Packer(self._uvs, faces, mesh_faces=mesh_faces, margin=self.margin, rotation=s.rotation,
                          rotation_step=s.rotation_step, flip=s.flip, shape=s.shape,
                          merge_overlapping=s.merge_overlapping,
                          locked=self._locked if s.lock_pinned else None, seed=s.seed, **placement)
        except (ValueError, IndexError) as exc:
            text = str(exc)
            raise PackError(text[:1].upper() + text[1:]) from exc

    # ------------------------------------------------------------- search

    def start(self) -> None:
        """Start the search in a worker thread; returns at once."""
        if self._state != "ready":
            raise RuntimeError("a session can be started once")
        self._state = "running"
        self._t0 = time.perf_counter()
        self._thread = threading.Thread(target=self._work, name="uvnest-pack", daemon=True)
        self._thread.start()

    def run(self) -> Layout:
        """Search in this thread until a limit; return the best layout.

        Needs bounded :attr:`limits`.  Raises :class:`PackError` when the
        islands cannot be packed (for example the margin leaves no room).
        """
        if not self.limits.bounded:
            raise ValueError("run() needs a time, iteration or no-improvement limit")
        if self._state != "ready":
            raise RuntimeError("a session can be started once")
        self._state = "running"
        self._t0 = time.perf_counter()
        self._work()
        if self._error is not None:
            raise self._error
        assert self._best is not None
        return self._best

    def _work(self) -> None:
        """The search loop (worker thread, or the caller's in :meth:`run`)."""
        try:
            packer = self._make_packer()
        except PackError as exc:
            self._end("failed", str(exc), exc)
            return
        except Exception as exc:  # an engine failure must reach the operator, not die with the thread
            self._end("failed", str(exc), PackError(f"uvnest failed: {type(exc).__name__}: {exc}"))
            return
        with self._lock:
            self._packer = packer
        if self._stop.is_set():
            self._end("stopped", "stopped")
            return
        self._publish(packer.best, packer.stats["moves"])
        if packer.final:  # e.g. bounding boxes: searching cannot improve the first layout
            self._end("finished", "final layout")
            return
        lim = self.limits
        with packer._stop_at(self._t0 + lim.time_limit if lim.time_limit > 0 else None):
            self._search(packer)

    def _search(self, packer: Packer) -> None:
        """Step ``packer`` until a limit is reached or the session is stopped."""
        last = time.perf_counter()
        lim = self.limits
        while True:
            now = time.perf_counter()
            moves = int(packer.stats["moves"])
            if self._stop.is_set():
                self._end("stopped", "stopped")
                return
            if lim.time_limit > 0 and now - self._t0 >= lim.time_limit:
                self._end("finished", "time limit")
                return
            if lim.iterations > 0 and moves >= lim.iterations:
                self._end("finished", "iteration limit")
                return
            if lim.stall > 0 and now - last >= lim.stall:
                self._end("finished", f"no improvement for {lim.stall:g} s")
                return
            budget = STEP_SECONDS
            if lim.time_limit > 0:
                budget = min(budget, self._t0 + lim.time_limit - now)
            if lim.stall > 0:
                budget = min(budget, last + lim.stall - now)
            left = lim.iterations - moves if lim.iterations > 0 else None
            if packer.step(seconds=max(budget, 0.0), iterations=left):
                self._publish(packer.best, packer.stats["moves"])
                last = time.perf_counter()
            else:
                with self._lock:
                    self._moves = int(packer.stats["moves"])
                    self._elapsed = time.perf_counter() - self._t0

    def _publish(self, result: PackResult, moves: int) -> None:
        """Make ``result`` the best layout (worker side)."""
        uvs = result.uvs.astype(np.float32)
        parts = tuple(np.split(uvs, self._bounds))
        elapsed = time.perf_counter() - self._t0
        with self._lock:
            number = 0 if self._best is None else self._best.number + 1
            self._best = Layout(loop_uvs=parts, coverage=float(result.coverage), scale=float(result.scale),
                                iterations=int(result.iterations), elapsed=elapsed, number=number,
                                islands=len(result.islands))
            self._moves = int(moves)
            self._elapsed = elapsed

    def _end(self, state: str, reason: str, error: Optional[PackError] = None) -> None:
        """Record why the worker stopped; ``'stopped'`` (by keep or cancel)
        leaves the state to those methods."""
        with self._lock:
            if self._state != "running":
                return
            self._reason = reason
            self._error = error
            self._elapsed = time.perf_counter() - self._t0
            if state != "stopped":
                self._state = state

    # -------------------------------------------------------------- query

    def poll(self) -> Optional[Layout]:
        """The newest layout not handed out by ``poll`` before, or None.

        Layouts found between two polls are skipped: only the best one
        matters.  Their coverage increases from one poll to the next.
        """
        with self._lock:
            best = self._best
        if best is None or best.number == self._polled:
            return None
        self._polled = best.number
        return best

    @property
    def best(self) -> Optional[Layout]:
        """The best layout so far (None before the first one)."""
        with self._lock:
            return self._best

    @property
    def done(self) -> bool:
        """True once the search ended by itself (a limit, or a failure)."""
        with self._lock:
            return self._state in ("finished", "failed")

    @property
    def error(self) -> Optional[PackError]:
        """Why the search failed (None unless it did)."""
        with self._lock:
            return self._error

    @property
    def progress(self) -> Progress:
        """What the search is doing now."""
        with self._lock:
            best = self._best
            running = self._state == "running"
            return Progress(state=self._state,
                            elapsed=(time.perf_counter() - self._t0) if running else self._elapsed,
                            iterations=self._moves, layouts=0 if best is None else best.number + 1,
                            coverage=0.0 if best is None else best.coverage,
                            scale=0.0 if best is None else best.scale, reason=self._reason)

    def status_text(self) -> str:
        """One line for Blender's header: coverage, scale, time, iterations."""
        p = self.progress
        if p.layouts == 0:
            return f"uvnest: finding the first layout ({p.elapsed:.1f} s)"
        return (f"uvnest: coverage {p.coverage:.2%}   scale {p.scale:.4g}   {p.elapsed:.1f} s   "
                f"{p.iterations:,} iterations   {p.layouts} layouts")

    def full_uvs(self, uvs: Sequence[np.ndarray], layout: Layout) -> List[np.ndarray]:
        """Whole-mesh loop UVs: copies of ``uvs`` (one ``(L, 2)`` array per
        mesh) with the moving loops taken from ``layout``."""
        out = []
        for full, loops, new in zip(uvs, self.moving_loops, layout.loop_uvs):
            if full is None:
                out.append(None)
                continue
            arr = np.array(full, dtype=np.float32, copy=True)
            arr[loops] = new
            out.append(arr)
        return out

    # ---------------------------------------------------------------- end

    def _halt(self, timeout: float) -> None:
        """Stop the worker; once the search runs, wait up to ``timeout``
        seconds for it (a search step stops within milliseconds).  While the
        first layout is still being built (that cannot be interrupted) the
        worker is not waited for: it notices the stop when done and exits."""
        self._stop.set()
        with self._lock:
            packer = self._packer
        if packer is None:
            return
        packer.cancel()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def keep(self, timeout: float = 2.0) -> Optional[Layout]:
        """Stop the search and return the best layout (None when it was
        stopped before the first layout was found, or failed)."""
        self._halt(timeout)
        with self._lock:
            if self._state in ("ready", "running", "finished"):
                self._state = "kept"
            return self._best

    def cancel(self, timeout: float = 2.0) -> Tuple[np.ndarray, ...]:
        """Stop the search and return the original UVs of the moving loops
        (per mesh, bit for bit), to be written back."""
        self._halt(timeout)
        with self._lock:
            if self._state != "failed":
                self._state = "cancelled"
        return self._originals
