"""Packing: ``uvnest.pack`` and the incremental ``uvnest.Packer``.

Islands are placed by the C engine: a bottom-left fill first, then a
simulated-annealing search over each island's (rotation, region, position on
the region's boundary) and a search on scale.  Every layout handed out has
passed the engine's exact final check: islands at least ``margin`` apart and
inside the target, within a tolerance of 2**-26 of the target's size (on top
of which the engine keeps a clearance of about 1e-7).
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._faces import FacesLike
from .islands import Island, find_islands, island_faces_of

__all__ = ["IslandTransform", "PackResult", "Packer", "pack"]

ROTATIONS = ("none", "90", "any")
SHAPES = ("concave", "convex", "box")


@dataclass(frozen=True)
class IslandTransform:
    """Where an island went: ``uv' = scale * R(rotation) * F * uv + translation``,
    with ``F`` mirroring u (``u -> -u``) when ``flipped``."""

    rotation: float
    flipped: bool
    translation: Tuple[float, float]
    scale: float


@dataclass
class PackResult:
    """A packed layout.

    Attributes:
        uvs: a new ``(N, 2)`` array of packed UVs (the input is not modified).
        transforms: one :class:`IslandTransform` per island (see ``islands``).
        island_of_face: per input face, the index of its island.
        islands: the islands (merged groups when overlapping islands move
            together).
        coverage: share of the target covered by islands.
        scale: the common scale applied to every moved island.
        iterations: annealing moves made so far.
        elapsed: seconds since the packer was created.
        seed: the random seed.
    """

    uvs: np.ndarray
    transforms: List[IslandTransform]
    island_of_face: np.ndarray
    islands: List[Island]
    coverage: float
    scale: float
    iterations: int
    elapsed: float
    seed: int


@dataclass(frozen=True)
class _Options:
    margin: float
    padding: float
    target: Tuple[float, float, float, float]
    angles: np.ndarray
    align: bool
    flip: bool
    shape: str
    merge_overlapping: bool
    seed: int
    cache_bytes: float
    anneal_max: int


def _angles(rotation: str, rotation_step: float) -> Tuple[np.ndarray, bool]:
    if rotation == "none":
        return np.zeros(1), False
    if rotation == "90":
        return np.radians([0.0, 90.0, 180.0, 270.0]), False
    if not (isinstance(rotation_step, (int, float)) and 0.5 <= rotation_step <= 360):
        raise ValueError(f"rotation_step must be a number of degrees from 0.5 to 360, got {rotation_step!r}")
    n = max(1, int(math.floor(360.0 / rotation_step + 1e-9)))
    return np.radians(np.arange(n) * float(rotation_step)), True


def _options(margin: float, margin_px: Optional[float], texture_size, rotation: str, rotation_step: float,
             flip: bool, shape: str, merge_overlapping: bool, target, padding: float, seed: int,
             cache_mb: float, anneal_max: Optional[int]) -> _Options:
    if margin_px is not None:
        if texture_size is None:
            raise ValueError("margin_px needs texture_size")
        size = float(max(texture_size) if isinstance(texture_size, (tuple, list)) else texture_size)
        if not size > 0:
            raise ValueError(f"texture_size must be positive, got {texture_size!r}")
        if not (math.isfinite(margin_px) and margin_px >= 0):
            raise ValueError(f"margin_px must be a finite number >= 0, got {margin_px!r}")
        margin = float(margin_px) / size
    if not (isinstance(margin, (int, float)) and math.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    if not (isinstance(padding, (int, float)) and math.isfinite(padding) and padding >= 0):
        raise ValueError(f"padding must be a finite number >= 0, got {padding!r}")
    if rotation not in ROTATIONS:
        raise ValueError(f"rotation must be one of {ROTATIONS}, got {rotation!r}")
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    t = tuple(float(v) for v in target)
    if len(t) != 4 or not all(math.isfinite(v) for v in t) or not (t[2] > t[0] and t[3] > t[1]):
        raise ValueError(f"target must be (x0, y0, x1, y1) with x1 > x0 and y1 > y0, got {target!r}")
    side = min(t[2] - t[0], t[3] - t[1])
    if 2 * padding >= side or margin >= side:
        raise ValueError(f"margin {margin} and padding {padding} leave no room in a target of side {side}")
    if not (cache_mb > 0):
        raise ValueError(f"cache_mb must be positive, got {cache_mb!r}")
    angles, align = _angles(rotation, rotation_step)
    return _Options(float(margin), float(padding), t, angles, align, bool(flip), shape, bool(merge_overlapping),
                    int(seed), float(cache_mb) * 2**20, int(anneal_max or 0))


def _packing_shape(isl: Island, shape: str, tiny: float) -> Tuple[List[np.ndarray], float]:
    """The outline the engine packs, and the area it reports."""
    if not isl.outline or isl.area <= 0:
        # zero-area island: a tiny square around its bounding box
        x0, y0, x1, y1 = isl.bbox
        ring = np.array([[x0 - tiny, y0 - tiny], [x1 + tiny, y0 - tiny], [x1 + tiny, y1 + tiny], [x0 - tiny, y1 + tiny]])
        return [ring], (x1 - x0 + 2 * tiny) * (y1 - y0 + 2 * tiny)
    if shape == "convex":
        return _core.hull(isl.outline), isl.area
    if shape == "box":
        x0, y0, x1, y1 = isl.bbox
        return [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])], isl.area
    return isl.outline, isl.area


def _locked_islands(locked, islands: List[Island], n_faces: int) -> np.ndarray:
    """Boolean mask over islands from a face mask or island indices."""
    mask = np.zeros(len(islands), dtype=bool)
    if locked is None:
        return mask
    arr = np.asarray(locked)
    if arr.dtype == bool:
        if arr.shape != (n_faces,):
            raise ValueError(f"locked as a mask must have one entry per face ({n_faces}), got {arr.shape}")
        for isl in islands:
            mask[isl.index] = bool(arr[isl.faces].any())
        return mask
    idx = arr.astype(np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= len(islands)):
        raise IndexError(f"locked island index out of range 0..{len(islands) - 1}")
    mask[idx] = True
    return mask


class Packer:
    """Incremental packer: a first layout at once, then better ones on demand.

    ``Packer(uvs, faces, **options)`` finds the islands and computes the first
    layout (a bottom-left fill).  ``step()`` searches for a while;
    ``improvements()`` yields each strictly better layout; ``cancel()`` stops a
    search from another thread.  The C work runs with the GIL released, so
    several packers can run in parallel threads.  Results are deterministic:
    the same input, options, seed and number of iterations give bit-identical
    layouts.

    Options (Blender's names where they overlap):
        margin: smallest gap between islands, a fraction of the target
            (default 0.001); or ``margin_px`` with ``texture_size``.
        rotation: ``'none'``, ``'90'`` or ``'any'`` (default), with
            ``rotation_step`` in degrees for ``'any'`` (default 5, at least
            0.5; angles are relative to each island's minimal bounding box).
        flip: allow mirroring (default False).
        shape: ``'concave'`` (default), ``'convex'`` or ``'box'``.
        merge_overlapping: overlapping islands move together (default True).
        locked: islands that stay where they are and are obstacles: a
            boolean mask over faces, or island indices.
        target: ``(x0, y0, x1, y1)`` (default the unit tile).
        padding: smallest distance from the target's border (default 0).
        seed: random seed (default 0).
        cache_mb: no-fit polygon cache budget (default 256).
        anneal_max: how many of the largest islands are annealed; the rest
            are filled around them (default 48).
    """

    def __init__(self, uvs, faces: FacesLike, *, margin: float = 0.001, margin_px: Optional[float] = None,
                 texture_size: Union[int, Tuple[int, int], None] = None, rotation: str = "any",
                 rotation_step: float = 5.0, flip: bool = False, shape: str = "concave",
                 merge_overlapping: bool = True, locked=None, target=(0.0, 0.0, 1.0, 1.0),
                 padding: float = 0.0, seed: int = 0, cache_mb: float = 256.0,
                 anneal_max: Optional[int] = None, mesh_faces: Optional[FacesLike] = None) -> None:
        self._t0 = time.perf_counter()
        self._opt = _options(margin, margin_px, texture_size, rotation, rotation_step, flip, shape,
                             merge_overlapping, target, padding, seed, cache_mb, anneal_max)
        self._uvs = np.array(uvs, dtype=np.float64, copy=True)
        self.islands: List[Island] = find_islands(self._uvs, faces, mesh_faces=mesh_faces,
                                                  merge_overlapping=self._opt.merge_overlapping)
        n_faces = int(sum(isl.faces.size for isl in self.islands))
        self._island_of_face = island_faces_of(self.islands, n_faces)
        self._locked = _locked_islands(locked, self.islands, n_faces)
        self._moving = np.flatnonzero(~self._locked)
        if self._moving.size == 0:
            raise ValueError("there is nothing to pack: every island is locked")
        o = self._opt
        self._core = _core.Packer(o.target, o.margin, o.padding, o.angles, o.align, o.flip, o.seed,
                                  o.cache_bytes, o.anneal_max)
        ext = float(np.ptp(self._uvs[np.concatenate([isl.uv_indices for isl in self.islands])], axis=0).max())
        tiny = 1e-6 * (ext if ext > 0 else 1.0)
        for i in self._moving:
            rings, area = _packing_shape(self.islands[i], o.shape, tiny)
            self._core.add_island(rings, area)
        for i in np.flatnonzero(self._locked):
            isl = self.islands[i]
            rings, _ = _packing_shape(isl, "concave", tiny)
            self._core.add_locked(rings)
        self._lock = threading.Lock()
        self._cancelled = False
        self._core.start()
        self._best = self._result()

    # ----------------------------------------------------------- results

    def _result(self) -> Optional[PackResult]:
        best = self._core.best()
        if best is None:
            return None
        angle, flip, scale, trans = best
        n = len(self.islands)
        transforms: List[IslandTransform] = [IslandTransform(0.0, False, (0.0, 0.0), 1.0)] * n
        uvs = self._uvs.copy()
        for j, i in enumerate(self._moving):
            t = IslandTransform(float(angle[j]), bool(flip[j]), (float(trans[j, 0]), float(trans[j, 1])),
                                float(scale[j]))
            transforms[i] = t
            idx = self.islands[i].uv_indices
            p = self._uvs[idx]
            if t.flipped:
                p = p * np.array([-1.0, 1.0])
            c, s = math.cos(t.rotation), math.sin(t.rotation)
            uvs[idx, 0] = t.scale * (c * p[:, 0] - s * p[:, 1]) + t.translation[0]
            uvs[idx, 1] = t.scale * (s * p[:, 0] + c * p[:, 1]) + t.translation[1]
        st = self._core.stats()
        o = self._opt
        covered = sum(self.islands[i].area for i in self._moving) * float(scale[0]) ** 2
        covered += sum(self.islands[i].area for i in np.flatnonzero(self._locked))
        area = (o.target[2] - o.target[0]) * (o.target[3] - o.target[1])
        return PackResult(uvs=uvs, transforms=transforms, island_of_face=self._island_of_face.copy(),
                          islands=self.islands, coverage=covered / area, scale=float(scale[0]),
                          iterations=int(st["moves"]), elapsed=time.perf_counter() - self._t0, seed=o.seed)

    @property
    def best(self) -> PackResult:
        """The best layout found so far (validated)."""
        assert self._best is not None
        return self._best

    @property
    def stats(self) -> dict:
        """Engine counters: moves, layouts, rejected layouts (always 0 unless
        there is a bug), coverage, cache use."""
        return self._core.stats()

    # ------------------------------------------------------------ search

    def step(self, seconds: Optional[float] = 0.1, iterations: Optional[int] = None) -> bool:
        """Search for up to ``seconds`` (wall time) and/or ``iterations``
        annealing moves; returns True when the best layout improved."""
        if seconds is None and iterations is None:
            raise ValueError("step needs seconds or iterations")
        with self._lock:
            improved = False
            left = iterations
            deadline = None if seconds is None else time.perf_counter() + seconds
            chunk = 8
            while True:
                if left is not None and left <= 0:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                n = chunk if left is None else min(chunk, left)
                t0 = time.perf_counter()
                better, cancelled = self._core.run(n)
                spent = time.perf_counter() - t0
                if left is not None:
                    left -= n
                if better:
                    improved = True
                    self._best = self._result()
                if cancelled:
                    self._core.reset_cancel()
                    break
                # aim for chunks of about 20 ms, so time limits and cancel
                # are honoured promptly
                if spent < 0.01:
                    chunk = min(chunk * 2, 1 << 20)
                elif spent > 0.04 and chunk > 1:
                    chunk //= 2
            return improved

    def improvements(self, time_limit: Optional[float] = None,
                     iterations: Optional[int] = None) -> Iterator[PackResult]:
        """Yield the current best layout, then each strictly better one,
        until ``time_limit`` seconds or ``iterations`` moves (both None:
        until cancelled)."""
        yield self.best
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        done = 0
        self._cancelled = False
        while not self._cancelled:
            if deadline is not None and time.perf_counter() >= deadline:
                return
            if iterations is not None and done >= iterations:
                return
            before = self.best.iterations
            budget = None if deadline is None else max(0.0, min(0.05, deadline - time.perf_counter()))
            n = None if iterations is None else iterations - done
            if self.step(seconds=budget if budget is not None else 0.05, iterations=n):
                yield self.best
            done += self._core.stats()["moves"] - before

    def cancel(self) -> None:
        """Stop a running search promptly (safe from any thread)."""
        self._cancelled = True
        self._core.cancel()


def pack(uvs, faces: FacesLike, *, time_limit: Optional[float] = 2.0, iterations: Optional[int] = None,
         **options) -> PackResult:
    """Pack the islands of ``uvs``/``faces`` into the target.

    Returns the best layout found within ``time_limit`` seconds and/or
    ``iterations`` annealing moves (``time_limit=None`` with ``iterations``
    is deterministic).  Options are those of :class:`Packer`.
    """
    packer = Packer(uvs, faces, **options)
    if time_limit is None and iterations is None:
        return packer.best
    if time_limit is None:
        packer.step(seconds=None, iterations=iterations)
    else:
        deadline = time.perf_counter() + time_limit
        left = iterations
        while time.perf_counter() < deadline and (left is None or left > 0):
            before = packer.stats["moves"]
            packer.step(seconds=max(0.0, deadline - time.perf_counter()), iterations=left)
            if left is not None:
                left -= packer.stats["moves"] - before
    return packer.best
