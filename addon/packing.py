"""Packing: ``uvnest.pack`` and the incremental ``uvnest.Packer``.

Islands are placed by the C engine: a bottom-left fill first, then a
simulated-annealing search over each island's (rotation, region, position on
the region's boundary) and a search on scale.  Every layout handed out has
passed an exact final check on its output faces: islands at least ``margin``
apart and inside the target less the padding, every face, vertex and edge
(zero-area faces and slivers as the segments or points they are), within
``FINAL_TOLERANCE``, 2**-26 of the target's size (on top of which the engine
keeps a clearance of about 1e-7); with ``scale='fixed'`` islands may
overhang their tile by up to ``FIXED_OVERHANG`` (2**-20).  The engine checks
the placed shapes (each island's outline, which holds every UV of the island:
see ``uvnest.islands``), then every output UV is checked to lie in its
island's placed shape and in the target; a layout that fails raises
RuntimeError (an engine bug), it is never returned.

With ``scale='fixed'`` the islands keep their size (or take a texel density)
and go into as few UDIM tiles as possible; ``pixel_perfect`` and
``block_align`` snap translations to the texel grid or to compression blocks.
Snapped layouts are checked again, exactly, at the requested margin.

Time limits count from the call.  ``Packer(..., time_limit=T)`` returns by
then with the box layout (the skyline of the islands' bounding rectangles,
milliseconds), or the convex layout (the islands' hulls packed, when it is
ready in time and better), when the exact first layout is not ready
(``PackResult.kind`` ``'box'`` or ``'convex'``, ``Packer.exact`` False);
``step()`` goes on with the exact first layout where it stopped.  A :class:`Cancel` passed in
stops construction (raising :class:`Cancelled`) and later searches.  In
the main thread the C work runs in a helper thread, so Ctrl-C
(KeyboardInterrupt) reaches the caller within a few tens of milliseconds.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import threading
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, tiles as _tiles
from ._faces import FacesLike, check_uvs
from .errors import CannotFitError, InputError, requirement, seconds as _seconds, whole as _whole
from .islands import Island, clipped_area, find_islands, island_faces_of, ring_areas
from .options import DEFAULT_TIME_LIMIT, OPTIONS, PackOptions, TextureSize, cpu_cores, texel_aspect
from .group_layout import PROBE_MOVES, TIME_SHARE as CLUSTER_TIME_SHARE, build_clusters, check_islands
from .scales import mixed_scales
from .stacking import DEFAULT_TOLERANCE as DEFAULT_STACK_TOLERANCE, Stack, stack_islands
from .tiles import pack_pow2_squares

__all__ = ["Cancel", "Cancelled", "IslandTransform", "PackOptions", "PackResult", "Packer", "pack",
           "pack_pow2_squares", "apply_transforms", "cpu_cores"]

#: The options' defaults, for the signatures of ``Packer`` and ``pack``.
_D = PackOptions()
#: With scale='fixed' an island may reach this far (tile units) past its
#: tile's border (less padding): the engine keeps a clearance of about 1e-7,
#: so without it an island exactly one tile in size could never be placed.
#: 2**-20 is a thousandth of a texel of a 1K texture.
FIXED_OVERHANG = 2.0 ** -20
#: The final check's tolerance, relative to the target's size: a returned
#: layout keeps the margin and the target (less the padding) on every face,
#: vertex and edge within this (the engine's exact check allows two grid
#: steps of its grid, 2**-26 of the layout's extent).
FINAL_TOLERANCE = 2.0 ** -26


@dataclass(frozen=True)
class IslandTransform:
    """Where an island went: ``uv' = scale * R(rotation) * F * uv + translation``,
    with ``F`` mirroring u (``u -> -u``) when ``flipped``."""

    rotation: float
    flipped: bool
    translation: Tuple[float, float]
    scale: float


IDENTITY = IslandTransform(0.0, False, (0.0, 0.0), 1.0)


class Cancelled(Exception):
    """Raised by :class:`Packer` (and :func:`pack`) when the :class:`Cancel`
    passed in was set before the first layout was ready."""


class Cancel:
    """A thread-safe cancel flag for :class:`Packer` and :func:`pack`.

    ``set()`` from any thread stops what the packers it was passed to are
    doing within a few tens of milliseconds: construction raises
    :class:`Cancelled`, ``step()`` returns False and ``improvements()``
    ends.  A flag once set stays set.
    """

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._hooks: Dict[int, Callable[[], Any]] = {}
        self._next = 0

    def set(self) -> None:
        """Set the flag and stop every packer it was passed to."""
        with self._lock:
            self._event.set()
            hooks = list(self._hooks.values())
        for hook in hooks:
            hook()

    def is_set(self) -> bool:
        """Whether ``set()`` was called."""
        return self._event.is_set()

    def _add(self, hook: Callable[[], Any]) -> int:
        """Call ``hook()`` on ``set()`` (at once when set already); returns a key for :meth:`_remove`."""
        with self._lock:
            key = self._next
            self._next += 1
            self._hooks[key] = hook
            now = self._event.is_set()
        if now:
            hook()
        return key

    def _remove(self, key: int) -> None:
        with self._lock:
            self._hooks.pop(key, None)


def _in_c(call: Callable[[], Any], stop: Callable[[], Any]) -> Any:
    """``call()``, a C call that releases the GIL and stops when ``stop()``
    is called.  In the main thread it runs in a helper thread, so that a
    KeyboardInterrupt (Ctrl-C) reaches the caller at once: then ``stop()``,
    wait for the call to end (milliseconds), and re-raise."""
    if threading.current_thread() is not threading.main_thread():
        return call()
    out: Dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as e:  # noqa: B036 - handed to the caller
            out["error"] = e

    worker = threading.Thread(target=run, name="uvnest-c", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except BaseException:
        stop()
        worker.join()
        raise
    if "error" in out:
        raise out["error"]
    return out["value"]


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
        tile_of_island: per island its UDIM tile number (``scale='fixed'``;
            with ``'fit'`` every island is in the target, numbered 1001).
        tile_count: UDIM tiles used.
        tile_lower_bound: no layout can use fewer tiles: ceil(sum of the
            islands' areas grown by margin / 2, over a tile's room).
        tile_fill: ``f = sum(U**2) / tile_count``, U each tile's share
            covered (1 when every tile is full).
        split_groups: affinity group keys whose islands ended up in more
            than one tile.
        scale_ratio: the largest island scale over the smallest (the
            texel-density spread ``max_scale_ratio`` allows; 1 with one
            common scale).
        stacks: the stacks of similar islands packed as one
            (``stack_similar``; see :class:`uvnest.stacking.Stack`).
        kind: ``'exact'`` for a layout of the packer's own engine (the
            exact first layout of the requested shape, or one the search
            found); ``'box'`` for the box layout (the skyline of the
            islands' bounding rectangles, as ``shape='box'`` packs) handed
            out when the exact first layout was not ready by the time
            limit; ``'convex'`` for the convex layout (the islands' hulls
            packed by the engine, as ``shape='convex'`` packs), handed out
            the same way when it is ready before the exact one and beats
            the box layout.  All passed the same exact final check.
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
    tile_of_island: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    tile_count: int = 1
    tile_lower_bound: int = 1
    tile_fill: float = 0.0
    split_groups: List = field(default_factory=list)
    scale_ratio: float = 1.0
    kind: str = "exact"
    stacks: List[Stack] = field(default_factory=list)


def _packing_shape(isl: Island, shape: str) -> Tuple[List[np.ndarray], float]:
    """The outline the engine packs (it holds every UV of the island, needles
    and zero-area faces too: see ``uvnest.islands``), and the area the
    engine counts (the island's, or the outline's when it has none: a strip
    of a tiny segment far from the origin can round to no area in floats,
    and the engine needs some)."""
    area = isl.area if isl.area > 0 else float(abs(ring_areas(isl.outline).sum()))
    area = max(area, float(np.finfo(np.float64).tiny))
    if shape == "convex":
        return _core.hull(isl.outline), area
    if shape == "box":
        pts = np.concatenate(isl.outline)
        (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
        return [np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])], area
    return isl.outline, area


def _in_texel_space(isl: Island, aspect: Tuple[float, float]) -> Island:
    """``isl`` in texel space (see ``uvnest.options.ResolvedOptions.aspect``)."""
    ax, ay = aspect
    x0, y0, x1, y1 = isl.bbox
    return dataclasses.replace(isl, outline=[r * aspect for r in isl.outline], area=isl.area * ax * ay,
                               bbox=(x0 * ax, y0 * ay, x1 * ax, y1 * ay))


def _locked_islands(locked, islands: List[Island], n_faces: int) -> np.ndarray:
    """Boolean mask over islands from a face mask or island indices."""
    mask = np.zeros(len(islands), dtype=bool)
    if locked is None:
        return mask
    arr = np.asarray(locked)
    if arr.dtype == bool:
        if arr.shape != (n_faces,):
            raise InputError(f"locked as a mask must have one entry per face ({n_faces}), got {arr.shape}", "locked")
        for isl in islands:
            mask[isl.index] = bool(arr[isl.faces].any())
        return mask
    if arr.size == 0:
        return mask
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"locked must be a boolean mask over faces or integer island indices, got {arr.dtype} "
                         "values", "locked")
    idx = arr.astype(np.int64).reshape(-1)
    if idx.min() < 0 or idx.max() >= len(islands):
        raise InputError(f"locked island index out of range 0..{len(islands) - 1}", "locked")
    mask[idx] = True
    return mask


def _apply(t: IslandTransform, p: np.ndarray) -> np.ndarray:
    """Points ``p`` moved by transform ``t``."""
    if t.flipped:
        p = p * np.array([-1.0, 1.0])
    c, s = math.cos(t.rotation), math.sin(t.rotation)
    return np.column_stack([t.scale * (c * p[:, 0] - s * p[:, 1]) + t.translation[0],
                            t.scale * (s * p[:, 0] + c * p[:, 1]) + t.translation[1]])


def _compose(t: IslandTransform, m: IslandTransform) -> IslandTransform:
    """The transform ``t`` after ``m`` (``t(m(p))``; ``m`` without scale)."""
    if m == IDENTITY:
        return t
    # F R(a) = R(-a) F: a mirrored t turns m's rotation the other way
    turn = t.rotation - m.rotation if t.flipped else t.rotation + m.rotation
    (tx, ty), = _apply(t, np.array([m.translation]))
    return IslandTransform(turn, t.flipped != m.flipped, (float(tx), float(ty)), t.scale)


def apply_transforms(uvs, islands: Sequence[Island], transforms: Sequence[IslandTransform],
                     texture_size: TextureSize = None) -> np.ndarray:
    """A new UV array with each island's UVs moved by its transform (the
    island's ``uv_indices``); UVs of no island are copied unchanged.  Use it
    to re-apply a packing to another copy of the same UVs.

    With a non-square ``texture_size`` (W, H), transforms act in texel
    space, as the packer made them: on ``uv * (W, H) / max(W, H)``.
    """
    if len(islands) != len(transforms):
        raise InputError(f"transforms: {len(islands)} islands but {len(transforms)} transforms", "transforms")
    src = np.asarray(uvs, dtype=np.float64)
    out = src.copy()
    moved = [(isl.uv_indices, t) for isl, t in zip(islands, transforms) if t != IDENTITY]
    if not moved:
        return out
    # every island at once (one island at a time took 2.5 s at 100,000
    # islands), with _apply's arithmetic: the same bits
    idx = np.concatenate([u for u, _ in moved])
    size = np.fromiter((u.size for u, _ in moved), dtype=np.int64, count=len(moved))
    c, s, k, tx, ty, f = np.array([(math.cos(t.rotation), math.sin(t.rotation), t.scale, t.translation[0],
                                    t.translation[1], -1.0 if t.flipped else 1.0) for _, t in moved]).repeat(size, axis=0).T
    ax, ay = texel_aspect(texture_size)
    if (ax, ay) == (1.0, 1.0):
        x, y = src[idx, 0] * f, src[idx, 1]
        out[idx, 0] = k * (c * x - s * y) + tx
        out[idx, 1] = k * (s * x + c * y) + ty
    else:
        x, y = src[idx, 0] * ax * f, src[idx, 1] * ay
        out[idx, 0] = (k * (c * x - s * y) + tx) / ax
        out[idx, 1] = (k * (s * x + c * y) + ty) / ay
    return out


def _group_codes(groups, n_faces: int) -> Tuple[Sequence[Any], np.ndarray]:
    """The distinct keys of ``groups`` and each face's key number: sorted
    for numbers and strings, in order of first use for other hashable keys
    (objects, or numbers and strings mixed, which numpy would turn into
    strings)."""
    try:
        arr = np.asarray(groups)
    except ValueError:
        arr = np.empty(0, dtype=object)
    if arr.ndim != 1 or arr.shape[0] != n_faces:
        raise InputError(f"groups must have one key per face ({n_faces}), got shape {arr.shape}", "groups")
    if arr.dtype.kind in "biuf" or (arr.dtype.kind == "U" and (isinstance(groups, np.ndarray)
                                                               or all(isinstance(k, str) for k in groups))):
        keys, codes = np.unique(arr, return_inverse=True)
        return keys, codes.reshape(-1)
    number: Dict[Any, int] = {}
    try:
        codes = np.fromiter((number.setdefault(k, len(number)) for k in groups), dtype=np.int64, count=n_faces)
    except TypeError:
        raise InputError("groups must hold one hashable key per face", "groups") from None
    return list(number), codes


def _island_groups(groups, moving: List[Island], n_faces: int) -> Tuple[list, np.ndarray]:
    """Affinity group keys and per moving island its group (the key most of
    its faces have), -1 without groups."""
    if groups is None:
        return [], np.full(len(moving), -1, dtype=np.int64)
    keys, codes = _group_codes(groups, n_faces)
    of = np.array([int(np.bincount(codes[isl.faces]).argmax()) for isl in moving], dtype=np.int64)
    used, of = np.unique(of, return_inverse=True)
    return [keys[k].item() if hasattr(keys[k], "item") else keys[k] for k in used], of.reshape(-1)


def _option_arguments(arguments: Dict[str, Any]) -> Dict[str, Any]:
    """The options among a call's ``arguments`` (its ``locals()``): every
    name of :data:`uvnest.options.OPTIONS` is a keyword of ``pack`` and
    ``Packer`` (a KeyError here at once if one were left out)."""
    return {name: arguments[name] for name in OPTIONS}


class Packer:
    """Incremental packer: a first layout at once, then better ones on demand.

    ``Packer(uvs, faces, **options)`` finds the islands and computes the first
    layout (a bottom-left fill).  ``step()`` searches for a while;
    ``improvements()`` yields each strictly better layout; ``cancel()`` stops a
    search from another thread.  The C work runs with the GIL released, so
    several packers can run in parallel threads, and the search itself runs
    on ``threads`` cores.  Results are deterministic: the same input,
    options, seed, number of iterations and ``threads`` give bit-identical
    layouts.

    The options are validated by :class:`uvnest.PackOptions`, which
    declares each one's default, range and choices once; ``Packer.options``
    keeps them.  Options (Blender's names where they overlap):
        margin: smallest gap between islands, a fraction of the target
            (default 0.001); or ``margin_px`` with ``texture_size``.  With
            ``scale='fit'`` islands shrink to at most an eighth of the side
            they would have if they filled the target: a margin that needs
            them smaller (wider than about 0.85 of the target for four
            islands) is reported as leaving no room.
        texture_size: the texture's side in pixels, or ``(W, H)``.  With
            W != H the layout is made in texel space: islands keep their
            shape in texels (not in UV units), ``margin_px``, ``margin``
            and ``padding`` (fractions of the larger side) and the snapping
            hold in texels on both axes, and ``transforms`` act on
            ``uv * (W, H) / max(W, H)`` (``apply_transforms(...,
            texture_size=)`` applies them).
        rotation: ``'none'``, ``'90'`` or ``'any'`` (default), with
            ``rotation_step`` in degrees for ``'any'`` (default 5, at least
            0.5; angles are relative to each island's minimal bounding box),
            plus each island's edge-aligned angles: those that put one of
            its long edges, or its convex hull's, on an axis.
            With ``'any'`` and up to 300 islands, a second search with
            every island as given (unturned) runs alongside and wins when
            it packs tighter: pieces cut to fit, or islands an artist
            straightened, keep their orientation.  With one orientation
            (``'none'`` without flips, and that as-given search) or the
            quarter turns (``'90'``) and up to 64 islands, a contact search
            runs alongside: each island goes where it touches its
            neighbours and the border the most, which assembles
            interlocking pieces; with ``'90'`` it also picks the quarter
            turn that touches the most.  With ``'any'`` and up to 64
            islands, an aligned contact search picks among each island's
            edge-aligned angles the one that touches the most (instead of
            the as-given searches when most islands have no edge on an
            axis as given: islands turned by an unwrap).
        flip: allow mirroring (default False).
        shape: ``'concave'`` (default), ``'convex'`` or ``'box'`` (bounding
            rectangles, skyline bottom-left: the fastest).  With
            ``'concave'`` the annealed islands (see ``anneal_max``) keep
            their outlines; the smaller ones filled in around them pack
            as their convex hulls, unless a hull is more than 10 % larger
            than its island: L and U shapes, frames and rings keep their
            pockets and holes, and smaller islands nest there.
        merge_overlapping: overlapping islands move together (default True).
        locked: islands that stay where they are and are obstacles: a
            boolean mask over faces, or island indices.  With
            ``scale='fixed'`` they must lie in the first tile.
        target: ``(x0, y0, x1, y1)`` (default the unit tile; with
            ``scale='fixed'``, the part of every tile to use), or, with
            ``scale='fit'``, a region of rings: ``(n, 2)`` arrays, outer
            rings counter-clockwise, holes (keep-out zones) clockwise,
            several outer rings allowed.  Islands stay inside the region
            and out of its holes; ``coverage`` is a share of its area.
        padding: smallest distance from the target's border (default 0);
            for a region, from its boundary, holes included, where islands
            keep at least the margin too (see :mod:`uvnest.region`).
        seed: random seed (default 0).
        cache_mb: no-fit polygon cache budget (default 256), shared out
            between the threads' searches.
        threads: cores the search runs on (default None: every core this
            process may use, :func:`cpu_cores`).  Each thread runs a search
            of its own (its own random moves and cache) and every few
            hundred moves the best layout found by any goes to the others;
            an iteration is one move of every thread's search, and the
            layout depends on ``threads`` (``threads=1`` is the serial
            search).  The islands are held once per thread (about 35 KB per
            island), so there are at most 20,000 / islands searches (two
            at 10,000 islands, one from 20,000).
        anneal_max: how many of the largest islands are annealed; the rest
            are filled around them (default 24; with ``scale='fixed'``
            every island up to 300 islands).
        mesh_faces: per face its 3D vertex ids: faces that share a mesh edge
            join one island even where their UVs are split.
        time_limit: seconds from the call by which the constructor returns
            (None: when the exact first layout is ready).  When the exact
            first layout is not ready by then, ``best`` is the box layout
            or the convex one (``best.kind``, ``exact`` False) and
            ``step()`` goes on with the exact one.  Finding the islands is
            not bounded.
        stack_similar: pack similar islands as one, stacked on each other
            (default False): islands that are copies of each other up to
            rotation (and mirroring, with ``flip``) within a tolerance, a
            fraction of the island's size (True: 0.001).  Each stack packs
            as the union of its aligned copies; ``stacks`` (and the
            result's ``stacks``) say which islands were stacked and how.
        max_scale_ratio: with ``scale='fit'``, let island scales differ by
            up to this ratio (default 1: one common scale).  When an island
            limits the common scale by its extent (a long strip), the
            others grow by up to this ratio into the room it leaves (see
            :mod:`uvnest.scales`).  ``transforms`` carry each island's
            scale, and the result's ``scale_ratio`` the spread.
        cancel: a :class:`Cancel`; when set, construction raises
            :class:`Cancelled` within a few tens of milliseconds, and later
            ``step()`` / ``improvements()`` stop as with :meth:`cancel`.

    Multi-tile and texel options:
        scale: ``'fit'`` (default: the largest common scale that fits the
            target) or ``'fixed'`` (keep the islands' size, or
            ``texel_density``, and use as few UDIM tiles as possible).
        tiles: UDIM tile numbers to fill in order (default 1001 .. 1100,
            rows of 10); ``scale='fixed'`` only.
        texel_density: texels per unit of 3D length for every island (needs
            ``texture_size`` and ``positions``); ``scale='fixed'`` only.
        positions: ``(V, 3)`` vertex positions, indexed by ``mesh_faces``
            when given, else by ``faces``.
        groups: one hashable key per face (an object, a material): islands
            with the same key go to the same tile whenever it fits; with
            ``group_layout='together'`` (and ``scale='fit'``), each group
            gets a compact region of its own.
        group_layout: ``'tiles'`` (default: as above) or ``'together'``:
            each group's islands are packed among themselves into a cluster,
            and the clusters into the target as their convex hulls, so the
            groups' hulls are disjoint and at least ``margin`` apart, all
            islands at one scale (see :mod:`uvnest.group_layout`; an island
            belongs to the group most of its faces have, a stack of similar
            islands forms within one group).  With a ``time_limit`` the
            clusters take up to 60 % of it.
        pixel_perfect: snap translations to the texel grid of
            ``texture_size``; the margin still holds exactly.
        block_align: snap translations to blocks of this many texels (4 for
            BCn/ETC) and keep islands a block diagonal apart, so that no
            block holds two islands.
    """

    def __init__(self, uvs, faces: FacesLike, *, margin: float = _D.margin, margin_px: Optional[float] = _D.margin_px,
                 texture_size: TextureSize = _D.texture_size, rotation: str = _D.rotation,
                 rotation_step: float = _D.rotation_step, flip: bool = _D.flip, shape: str = _D.shape,
                 merge_overlapping: bool = _D.merge_overlapping, locked=None, target=_D.target,
                 padding: float = _D.padding, seed: int = _D.seed, cache_mb: float = _D.cache_mb,
                 anneal_max: Optional[int] = _D.anneal_max, mesh_faces: Optional[FacesLike] = None,
                 scale: str = _D.scale, tiles: Optional[Sequence[int]] = _D.tiles,
                 texel_density: Optional[float] = _D.texel_density, positions=None, groups=None,
                 pixel_perfect: bool = _D.pixel_perfect, block_align: Optional[int] = _D.block_align,
                 stack_similar: Union[bool, float] = _D.stack_similar,
                 max_scale_ratio: float = _D.max_scale_ratio, group_layout: str = _D.group_layout,
                 time_limit: Optional[float] = None,
                 cancel: Optional[Cancel] = None, threads: Optional[int] = _D.threads) -> None:
        self._t0 = time.perf_counter()
        limit = _seconds(time_limit, "time_limit")
        if cancel is not None and not isinstance(cancel, Cancel):
            raise InputError(f"cancel must be a uvnest.Cancel or None, got {cancel!r}", "cancel")
        self._user_cancel = cancel
        self._check_cancel()
        self._lock = threading.Lock()
        self._cancelled = False
        self._core = None
        #: the C packers a cancel must reach (the exact one, the box one)
        self._running: List[Any] = []
        #: moves per call into C: grown while moves are cheap (a move is a
        #: decode, which at thousands of islands takes seconds)
        self._chunk = 1
        #: bumped when a deadline is disarmed, so a late timer cancels nothing
        self._deadline_generation = 0
        self._deadline_lock = threading.Lock()
        self._best: Optional[PackResult] = None
        self._exact = False
        #: the shapes and UV indices _check_output reads, flat (built once)
        self._flat: Optional[tuple] = None
        if cancel is not None:
            hook = weakref.WeakMethod(self._stop_running)
            self._cancel_key = cancel._add(lambda: (hook() or (lambda: None))())
            weakref.finalize(self, cancel._remove, self._cancel_key)
        #: the options, validated (see :class:`uvnest.PackOptions`)
        self.options = PackOptions(**_option_arguments(locals()))
        self._opt = o = self.options.resolved()
        #: the input UVs (a copy: the caller's array is never touched)
        self._input = np.array(check_uvs(uvs), copy=True)
        #: the islands (as :func:`find_islands` finds them with ``merge_overlapping``)
        self.islands: List[Island] = find_islands(self._input, faces, mesh_faces=mesh_faces,
                                                  merge_overlapping=o.merge_overlapping,
                                                  checkpoint=self._check_cancel)
        self._check_cancel()
        #: the UVs in packing space (texel space, see ResolvedOptions.aspect)
        self._uvs = self._input * o.aspect if o.aspect != (1.0, 1.0) else self._input
        n_faces = int(sum(isl.faces.size for isl in self.islands))
        self._locked = _locked_islands(locked, self.islands, n_faces)
        #: the stacks of similar islands (``stack_similar``), each packed as one island
        self.stacks: List[Stack] = []
        #: what the engine packs: the islands, a stack of similar ones as one
        self._units = [_in_texel_space(isl, o.aspect) for isl in self.islands] if o.aspect != (1.0, 1.0) \
            else self.islands
        #: per island its unit and the alignment that puts it there (with stacks)
        self._unstack: Optional[Tuple[np.ndarray, List[IslandTransform]]] = None
        if self.options.stack_similar is not False:
            # grouped together, a stack keeps to one group
            together = group_layout == "together" and groups is not None
            self._stack(faces, DEFAULT_STACK_TOLERANCE if self.options.stack_similar is True
                        else self.options.stack_similar,
                        _island_groups(groups, self.islands, n_faces)[1] if together else None)
        self._island_of_face = island_faces_of(self.islands, n_faces)
        self._moving = np.flatnonzero(~self._locked)
        if self._moving.size == 0:
            raise InputError("locked: there is nothing to pack, every island is locked", "locked")
        moving = [self._units[i] for i in self._moving]
        self._prescale = self._island_scales(moving, faces, mesh_faces, positions)
        ratio = self.options.max_scale_ratio
        if ratio > 1:
            x0, y0, x1, y1 = o.target
            self._prescale = self._prescale * mixed_scales(
                [isl.outline for isl in moving], np.array([isl.area for isl in moving]), ratio,
                (x1 - x0 - 2 * o.padding, y1 - y0 - 2 * o.padding), o.align or len(o.angles) > 1)
        self._group_keys, self._group_of = _island_groups(groups, moving, n_faces)
        self._fixed_shapes = [self._locked_shape(i) for i in np.flatnonzero(self._locked)]
        #: area of the locked islands inside the target (they may reach out of it)
        self._locked_area = sum(clipped_area(rings, o.target) if self._units[i].area > 0 else 0.0
                                for i, rings in zip(np.flatnonzero(self._locked), self._fixed_shapes))
        if o.region is not None:   # the box less the region: obstacles, grown to keep the padding
            self._fixed_shapes += o.region.obstacles(max(0.0, o.engine_padding - o.engine_margin))
        #: with group_layout='together', the smallest scale at which the
        #: margin holds inside the groups' clusters (see uvnest.group_layout)
        self._together: Optional[float] = None
        if self.options.group_layout == "together":
            if groups is None:
                raise requirement("group_layout", "groups", " (one key per face) for 'together'")
            moving = self._cluster(moving, None if limit is None else self._t0 + CLUSTER_TIME_SHARE * limit)
        self._shapes = []     # per moving island: what the engine packs, pre-scaled
        self._areas = []      # the area the engine counts per island
        for j, (k, isl) in enumerate(zip(self._prescale, moving)):
            if j % 4096 == 4095:
                self._check_cancel()
            rings, area = _packing_shape(isl, o.shape)
            self._shapes.append([r * k for r in rings])
            self._areas.append(area * k * k)
        self._areas = np.array(self._areas)
        #: the area each island covers (0 for a segment or a point)
        self._cover = np.array([isl.area for isl in moving]) * self._prescale ** 2
        self._check_cancel()
        self._pow2 = self._pow2_layout(moving)
        #: True when the first layout is final (power-of-two squares, boxes):
        #: searching further cannot improve it
        self.final = self._pow2 is not None or (o.shape == "box" and not o.fixed and not self._fixed_shapes)
        if self._pow2 is None:
            if self._together is None:
                self._core = self._engine(o.shape == "box" and not o.fixed)
            if limit is not None and not self.final and self._together is None:
                # a valid layout at once, should the exact one take longer
                # (none when even the boxes cannot fit: concave islands may
                # still nest, so the exact start decides, unbounded)
                with contextlib.suppress(ValueError):
                    self._best = self._result(self._box_layout(), kind="box")
                if o.shape == "concave" and self._best is not None:
                    self._convex_layout(self._t0 + limit)
            deadline = None if limit is None or self.final or self._best is None else self._t0 + limit
            if not self._start(deadline):
                self._check_cancel()
                if self._best is None:   # stopped by a KeyboardInterrupt's stop()
                    raise Cancelled("the packer was stopped before its first layout")
                return
        self._best = self._result()
        self._exact = True

    # ------------------------------------------------------------ set-up

    def _stack(self, faces, tolerance: float, classes: Optional[np.ndarray]) -> None:
        """Pack the stacks of similar islands as one unit each (of one class
        each, with ``classes``: per island a number)."""
        was_locked = self._locked
        aligned, self._units, unit_of, self.stacks = stack_islands(
            self._uvs, faces, self.islands, np.flatnonzero(~was_locked), tolerance, self._opt.flip, classes)
        if not self.stacks:
            return
        alignment = [IDENTITY] * len(self.islands)
        for stack in self.stacks:
            for i, m in zip(stack.members, stack.alignments):
                alignment[i] = IslandTransform(m.rotation, m.flipped, m.translation, 1.0)
        self._unstack = (unit_of, alignment)
        self._uvs = aligned
        self._locked = np.zeros(len(self._units), dtype=bool)
        self._locked[unit_of[was_locked]] = True
        self._check_cancel()

    def _cluster(self, moving: List[Island], deadline: Optional[float]) -> List[Island]:
        """``group_layout='together'``: pack each group's islands into a
        cluster and make the clusters the units the engine packs (after the
        locked units); returns the clusters (see :mod:`uvnest.group_layout`)."""
        o = self._opt
        box_engine = o.shape == "box"

        def new_core(box, as_boxes: bool):
            return _core.Packer(box, 0.0, 0.0, o.angles, o.align, o.flip, o.seed, o.cache_bytes, o.anneal_max,
                                0.0, 0, as_boxes, o.threads)

        def call(core, until: Optional[float], method: str, *args):
            with self._stop_at(until, core):
                out = self._call(core, method, *args)
            self._check_cancel()   # a cancelled call is no deadline: construction stops
            return out

        def probe(clusters: List[Island], until: Optional[float]):
            core = self._new_core(box_engine, o.threads)
            for isl in clusters:
                core.add_island(*_packing_shape(isl, o.shape))
            self._add_groups_and_locked(core, groups=False)
            ready = self._call(core, "start")
            if not ready:
                self._check_cancel()
                if ready is None:
                    return None
                raise Cancelled("the packer was stopped before its first layout")
            if not box_engine:
                call(core, until, "run", PROBE_MOVES, until is None)
            self._check_cancel()
            return core, float(np.min(core.best()[2]))

        x0, y0, x1, y1 = o.target
        area = o.region.area if o.region is not None else (x1 - x0) * (y1 - y0)
        found = build_clusters(moving, [_packing_shape(isl, o.shape)[0] for isl in moving], self._group_of,
                               o.engine_margin, o.target, area, new_core, call, probe, deadline)
        locked = np.flatnonzero(self._locked)
        unit_of = np.empty(len(self._units), dtype=np.int64)
        unit_of[locked] = np.arange(locked.size)
        unit_of[self._moving] = locked.size + found.cluster_of
        motion = [IDENTITY] * len(self._units)
        for j, m in zip(self._moving, found.motions):
            motion[j] = IslandTransform(m.rotation, m.flipped, m.translation, 1.0)
        # per island: its unit's motion into its cluster after its alignment
        # onto its unit (with stacks)
        before, alignment = self._unstack or (np.arange(len(self._units)), [IDENTITY] * len(self._units))
        self._unstack = (unit_of[before], [_compose(motion[u], a) for u, a in zip(before, alignment)])
        self._units = [self._units[i] for i in locked] + found.units
        self._locked = np.arange(len(self._units)) < locked.size
        self._moving = np.flatnonzero(~self._locked)
        self._group_of = np.arange(len(found.units), dtype=np.int64)
        self._prescale = np.ones(len(found.units))   # fit mode, one common scale: it was all ones
        self._together = found.scale
        #: what the clusters were made of: the units, per unit its cluster
        #: and its motion into it
        self._clustered = (moving, found.cluster_of,
                           [IslandTransform(m.rotation, m.flipped, m.translation, 1.0) for m in found.motions])
        self._core = found.core
        return found.units

    def _check_islands(self, cluster_transforms: List[IslandTransform]) -> None:
        """The exact check of every moved island of a group layout at the
        requested margin (``group_layout='together'``): each unit the
        clusters were made of (an island, or a stack of similar ones) where
        its cluster's transform (``cluster_transforms``, per unit) took it."""
        o = self._opt
        units, cluster_of, motions = self._clustered
        placed = [[_apply(_compose(cluster_transforms[self._moving[c]], m), r) for r in isl.outline]
                  for isl, c, m in zip(units, cluster_of, motions)]
        x0, y0, x1, y1 = self._engine_target()
        check_islands(placed, self._fixed_shapes, o.check_margin,
                      (x0 + o.padding, y0 + o.padding, x1 - o.padding, y1 - o.padding))

    def _island_scales(self, moving: List[Island], faces, mesh_faces, positions) -> np.ndarray:
        """Per moving island the scale applied before packing (1, or the
        scale that gives it ``texel_density``)."""
        density = self.options.texel_density
        if density is None:
            return np.ones(len(moving))
        if positions is None:
            raise requirement("texel_density", "positions", " (the mesh's 3D vertex positions)")
        return _tiles.texel_scales(moving, self._input, faces, positions,
                                   mesh_faces if mesh_faces is not None else faces, density, self._opt.texture)

    def _locked_shape(self, i: int) -> List[np.ndarray]:
        """A locked island's outline, relative to the first tile."""
        rings, _ = _packing_shape(self._units[i], "concave")
        if not self._opt.fixed:
            return rings
        ax, ay = self._opt.aspect
        u0, v0 = _tiles.udim_origin(self._opt.tiles[0])
        u0, v0 = u0 * ax, v0 * ay
        x0, y0, x1, y1 = self._units[i].bbox
        if not (u0 <= x0 and x1 <= u0 + ax and v0 <= y0 and y1 <= v0 + ay):
            raise InputError(f"locked island {i} is not inside tile {self._opt.tiles[0]}, the first tile "
                             "(with scale='fixed' locked islands must lie in the first tile)", "locked")
        return [r - np.array([u0, v0]) for r in rings]

    def _engine_target(self) -> Tuple[float, float, float, float]:
        """The target the engine fills (and a layout is checked against)."""
        x0, y0, x1, y1 = self._opt.target
        d = FIXED_OVERHANG if self._opt.fixed else 0.0
        return (x0 - d, y0 - d, x1 + d, y1 + d)

    def _new_core(self, box: bool, threads: int = 1):
        """An empty C packer with the options (``box``: the skyline)."""
        o = self._opt
        return _core.Packer(self._engine_target(), o.engine_margin, o.engine_padding, o.angles, o.align, o.flip,
                            o.seed, o.cache_bytes, o.anneal_max, 1.0 if o.fixed else 0.0,
                            len(o.tiles) if o.fixed else 0, box, threads)

    def _add_groups_and_locked(self, core, groups: bool = True) -> None:
        """The affinity groups (of every island, when ``groups``) and the
        locked islands, into ``core``."""
        if groups:
            for k, g in enumerate(self._group_of):
                if g >= 0:
                    core.set_group(k, int(g))
        for rings in self._fixed_shapes:
            core.add_locked(rings)

    def _engine(self, box: bool, only: Optional[int] = None):
        """A C packer holding the islands (or only island ``only``)."""
        core = self._new_core(box, self._opt.threads if only is None else 1)
        for k, (rings, area) in enumerate(zip(self._shapes, self._areas)):
            if k % 4096 == 4095:   # 100,000 islands take a few tenths of a second
                self._check_cancel()
            if only is None or k == only:
                core.add_island(rings, area)
        self._add_groups_and_locked(core, groups=only is None)
        return core

    def _stopped(self) -> bool:
        """Whether the caller's :class:`Cancel` is set."""
        return self._user_cancel is not None and self._user_cancel.is_set()

    def _check_cancel(self) -> None:
        """Raise :class:`Cancelled` when the caller's :class:`Cancel` is set."""
        if self._stopped():
            raise Cancelled("the packer was cancelled")

    def _stop_running(self) -> None:
        """Stop the C calls under way, and the packer's own (from any thread)."""
        for core in [self._core, *self._running]:
            if core is not None:
                core.cancel()

    def _call(self, core, method: str, *args) -> Any:
        """``core.method(*args)``, reachable by cancels, deadlines and Ctrl-C."""
        self._running.append(core)
        try:
            if self._stopped():
                core.cancel()
            return _in_c(lambda: getattr(core, method)(*args), core.cancel)
        finally:
            self._running.remove(core)

    def _start(self, deadline: Optional[float] = None) -> bool:
        """Go on with the exact first layout until it is ready (True) or
        until ``deadline``, a cancel or a stop (False)."""
        if deadline is not None and time.perf_counter() >= deadline:
            return False
        try:
            with self._stop_at(deadline, self._core):
                return self._started(self._core)
        except CannotFitError:
            if self._opt.fixed:
                self._explain_no_fit()
            raise

    def _started(self, core) -> bool:
        """``core.start()``: True when its first layout is ready, False when
        it was stopped first; ``CannotFitError`` when there is none."""
        ready = self._call(core, "start")
        if ready is None:
            raise CannotFitError()
        return bool(ready)

    def _box_layout(self):
        """The box layout's C packer: the skyline of the islands' bounding
        rectangles (over as many tiles as it takes with a fixed scale;
        through the general engine with locked islands), started."""
        core = self._new_core(True)
        # each island's UVs' bounding box (it holds every face, slivers
        # too), pre-scaled, and a tiny square for islands without area
        box = np.array([self._units[i].bbox for i in self._moving]) * self._prescale[:, None]
        tiny = 1e-6 * max(float(np.ptp(box[:, [0, 2]])), float(np.ptp(box[:, [1, 3]])), 1e-300)
        thin = (box[:, 2] - box[:, 0] < tiny) | (box[:, 3] - box[:, 1] < tiny)
        box[thin] += np.array([-tiny, -tiny, tiny, tiny])
        corners = box[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2)
        for k, (ring, area) in enumerate(zip(corners, self._areas)):
            if k % 4096 == 4095:
                self._check_cancel()
            core.add_island([ring], area)
        self._add_groups_and_locked(core)
        if not self._started(core):
            self._check_cancel()
            raise Cancelled("the packer was stopped before its first layout")
        return core

    def _convex_layout(self, deadline: float) -> None:
        """Make the convex layout the best when it is ready by ``deadline``
        and beats the box layout: the islands' hulls (which hold them)
        packed by the engine.  Its no-fit polygons are a few linear merges
        where the outlines' take arrangements: on the 31,488-face Suzanne
        it is ready in a tenth of the time of the exact one, with nine
        tenths of its coverage."""
        core = self._new_core(False)
        for k, (rings, area) in enumerate(zip(self._shapes, self._areas)):
            if k % 256 == 255:   # thousands of hulls take tenths of a second
                self._check_cancel()
                if time.perf_counter() >= deadline:
                    return
            core.add_island(_core.hull(rings), area)
        self._add_groups_and_locked(core)
        try:
            with self._stop_at(deadline, core):
                ready = bool(self._call(core, "start"))
        except ValueError:   # the hulls do not fit where the outlines may
            return
        self._check_cancel()
        result = self._result(core, kind="convex") if ready else None
        if result is not None:   # None: below the scale a group layout needs
            self._offer(result)

    def _explain_no_fit(self) -> None:
        """Name the first island too large for a tile on its own."""
        for k, i in enumerate(self._moving):
            if self._engine(False, only=k).start() is None:
                x0, y0, x1, y1 = self._units[i].bbox
                s = self._prescale[k]
                raise CannotFitError(f"island {int(i)} ({(x1 - x0) * s:.4g} x {(y1 - y0) * s:.4g} at the requested "
                                     "scale) is larger than a tile with this margin and padding")
        raise CannotFitError(f"the islands need more than the {len(self._opt.tiles)} tiles allowed "
                             f"({self._opt.tiles[0]} .. {self._opt.tiles[-1]}); pass more tiles")

    def _pow2_layout(self, moving: List[Island]) -> Optional[Tuple[np.ndarray, np.ndarray]]:
        """Zero-waste layout when every island's bounding square is a power
        of two in texels (fixed scale, square texture, no margin, padding,
        snapping to coarser blocks, groups or locked islands): per island
        its texel corner and tile index."""
        o = self._opt
        if (not o.fixed or o.texture is None or o.texture[0] != o.texture[1] or o.margin > 0 or o.padding > 0
                or o.target != (0.0, 0.0, 1.0, 1.0) or self._fixed_shapes or self._group_keys
                or (o.grid is not None and max(o.grid) * o.texture[0] > 1)):
            return None
        texels = o.texture[0]
        bb = np.array([isl.bbox for isl in moving]) * self._prescale[:, None] * texels
        side = np.maximum(bb[:, 2] - bb[:, 0], bb[:, 3] - bb[:, 1])
        sizes = np.round(side)
        if ((np.abs(side - sizes) > 1e-6 * np.maximum(1.0, sizes)) | (sizes < 1) | (sizes > texels)).any():
            return None
        sizes = sizes.astype(np.int64)
        if ((sizes & (sizes - 1)) != 0).any() or (texels & (texels - 1)) != 0:
            return None
        xyl = pack_pow2_squares(sizes, texels)
        if xyl[:, 2].max() >= len(o.tiles):
            raise CannotFitError(f"the islands need {int(xyl[:, 2].max()) + 1} tiles, more than the "
                                 f"{len(o.tiles)} allowed; pass more tiles")
        # each island's bounding box goes to the corner of its square
        shift = xyl[:, :2] / texels - bb[:, :2] / texels
        return shift, xyl[:, 2]

    # ----------------------------------------------------------- results

    def _placement(self, core=None):
        """Per moving island (angle, flip, scale, translation, tile index),
        translations relative to the tile, from ``core`` (default the
        packer's own)."""
        if self._pow2 is not None:
            shift, bins = self._pow2
            n = len(bins)
            return np.zeros(n), np.zeros(n, bool), np.ones(n), shift, bins
        return (core or self._core).best()

    def _result(self, core=None, kind: str = "exact") -> Optional[PackResult]:
        placement = self._placement(core)
        if placement is None:
            return None
        angle, flip, scale, trans, bins = placement
        o = self._opt
        scale = np.asarray(scale, dtype=np.float64) * self._prescale
        if self._together is not None and scale.min() < self._together:
            return None   # the margin inside the groups needs this scale (a box layout cut short)
        trans = np.array(trans, dtype=np.float64)
        if o.grid is not None and self._pow2 is None:
            trans = _tiles.snap_translations(trans, o.grid)
        if o.grid is not None or self._pow2 is not None:
            self._check_layout(angle, flip, scale, trans, bins)
        tile_numbers = np.array(o.tiles, dtype=np.int64)[np.asarray(bins, dtype=np.int64)]
        numbers, which = np.unique(tile_numbers, return_inverse=True)
        origins = np.array([_tiles.udim_origin(t) for t in numbers], dtype=np.float64).reshape(-1, 2)[which.reshape(-1)]
        origins *= o.aspect
        if o.fixed:
            trans = trans + origins
        n = len(self._units)
        transforms: List[IslandTransform] = [IDENTITY] * n
        island_tiles = np.full(n, 1001 if not o.fixed else o.tiles[0], dtype=np.int64)
        for j, i in enumerate(self._moving):
            transforms[i] = IslandTransform(float(angle[j]), bool(flip[j]), (float(trans[j, 0]), float(trans[j, 1])),
                                            float(scale[j]))
            island_tiles[i] = tile_numbers[j]
        if self._unstack is not None:   # per island: its unit's transform after its alignment
            unit_of, alignment = self._unstack
            unit_transforms = transforms
            transforms = [_compose(transforms[u], m) for u, m in zip(unit_of, alignment)]
            uvs = apply_transforms(self._input, self.islands, transforms, o.texture)
            self._check_output(uvs, angle, flip, scale, trans, bins)
            if self._together is not None:
                self._check_islands(unit_transforms)
            return self._packed(uvs, transforms, island_tiles[unit_of], scale, bins, kind)
        uvs = apply_transforms(self._input, self._units, transforms, o.texture)
        self._check_output(uvs, angle, flip, scale, trans, bins)
        return self._packed(uvs, transforms, island_tiles, scale, bins, kind)

    def _check_output(self, uvs: np.ndarray, angle, flip, scale, trans, bins) -> None:
        """The final check on what is returned, on top of the engine's exact
        check of the placed shapes (margin and target): every output UV of
        every moved island lies in its placed shape (which holds its faces,
        needles and collapsed islands too) and in the target less the
        padding, within ``FINAL_TOLERANCE`` of the target's size.  Raises
        RuntimeError (an engine bug) rather than hand the layout out."""
        o = self._opt
        flat = self._flat_shapes()
        ring_xy, ring_start, poly_ring, point_island, uv_index, uv_start = flat
        n = len(self._moving)
        k = scale / self._prescale
        c, s, f = np.cos(angle), np.sin(angle), np.where(np.asarray(flip, bool), -1.0, 1.0)
        x, y = ring_xy[:, 0] * f[point_island], ring_xy[:, 1]
        placed = np.column_stack([k[point_island] * (c[point_island] * x - s[point_island] * y) + trans[point_island, 0],
                                  k[point_island] * (s[point_island] * x + c[point_island] * y) + trans[point_island, 1]])
        pts = uvs[uv_index] * np.array(o.aspect)
        x0, y0, x1, y1 = self._engine_target()
        tol = FINAL_TOLERANCE * max(x1 - x0, y1 - y0)
        bad = _core.validate_holds(placed, ring_start, poly_ring, n, pts, uv_start, tol)
        if bad < 0 and pts.size:
            # every UV in the target (less the padding), in its own tile
            origin = np.zeros((n, 2))
            if o.fixed:
                tiles = np.array(o.tiles, dtype=np.int64)[np.asarray(bins, dtype=np.int64)]
                origin = np.array([_tiles.udim_origin(t) for t in tiles], dtype=np.float64).reshape(-1, 2) * o.aspect
            nonempty = np.flatnonzero(np.diff(uv_start) > 0)
            lo = np.minimum.reduceat(pts, uv_start[nonempty], axis=0) - origin[nonempty]
            hi = np.maximum.reduceat(pts, uv_start[nonempty], axis=0) - origin[nonempty]
            out = ((lo < np.array([x0, y0]) + o.padding - tol) | (hi > np.array([x1, y1]) - o.padding + tol)).any(axis=1)
            if out.any():
                bad = int(nonempty[np.flatnonzero(out)[0]])
        if bad >= 0:
            raise RuntimeError(f"internal error: the layout failed the final check of its output (island "
                               f"{int(self._moving[bad])}); please report this input")

    def _flat_shapes(self):
        """The moving islands' shapes and output UV indices as flat arrays
        for ``_check_output`` (built once): ring points, ring and polygon
        offsets, per point its moving island; UV indices and their offsets."""
        if self._flat is None:
            # one pass over 100,000 islands takes a tenth of a second: no more
            rings = [r for shape in self._shapes for r in shape]
            ring_len = np.fromiter(map(len, rings), dtype=np.int64, count=len(rings))
            ring_start = np.concatenate(([0], np.cumsum(ring_len))).astype(np.int32)
            poly_ring = np.concatenate(([0], np.cumsum(np.fromiter(map(len, self._shapes), dtype=np.int64,
                                                                     count=len(self._shapes))))).astype(np.int32)
            point_island = np.repeat(np.arange(len(self._shapes)), np.diff(ring_start[poly_ring]))
            uv_lists = [self._units[i].uv_indices for i in self._moving]
            uv_len = np.fromiter((u.size for u in uv_lists), dtype=np.int64, count=len(uv_lists))
            uv_start = np.concatenate(([0], np.cumsum(uv_len))).astype(np.int32)
            self._flat = (np.concatenate(rings), ring_start, poly_ring, point_island,
                          np.concatenate(uv_lists).astype(np.int64), uv_start)
        return self._flat

    def _packed(self, uvs, transforms, island_tiles, scale, bins, kind: str) -> PackResult:
        o = self._opt
        moving_area = float(np.sum(self._cover * (scale / self._prescale) ** 2))
        locked_area = self._locked_area
        used = np.unique(bins)
        tile_area = o.region.area if o.region is not None else (o.target[2] - o.target[0]) * (o.target[3] - o.target[1])
        shares = np.bincount(np.asarray(bins, dtype=np.int64), weights=self._cover * (scale / self._prescale) ** 2,
                             minlength=len(o.tiles))[used] / tile_area
        split = [key for g, key in enumerate(self._group_keys)
                 if np.unique(np.asarray(bins)[self._group_of == g]).size > 1]
        st = self.stats
        return PackResult(uvs=uvs, transforms=transforms, island_of_face=self._island_of_face.copy(),
                          islands=self.islands, coverage=(moving_area + locked_area) / (tile_area * used.size),
                          scale=float(scale[0] / self._prescale[0]), iterations=int(st["moves"]),
                          elapsed=time.perf_counter() - self._t0, seed=o.seed, tile_of_island=island_tiles,
                          tile_count=int(used.size), tile_lower_bound=self._lower_bound(scale),
                          tile_fill=float(np.sum(shares ** 2) / used.size), split_groups=split, kind=kind,
                          stacks=list(self.stacks), scale_ratio=float(scale.max() / scale.min()))

    def _lower_bound(self, scale: np.ndarray) -> int:
        o = self._opt
        if not o.fixed:
            return 1
        areas = [_tiles.inflated_area([r * (s / k) for r in rings], o.margin / 2)
                 for rings, s, k in zip(self._shapes, scale, self._prescale)]
        return _tiles.tile_lower_bound(areas, o.margin, o.padding,
                                       (o.target[2] - o.target[0], o.target[3] - o.target[1]))

    def _check_layout(self, angle, flip, scale, trans, bins) -> None:
        """Exact check of a layout made outside the engine (snapped, or
        power-of-two) at the requested margin (and, with block_align, the
        block diagonal), tile by tile."""
        o = self._opt
        x0, y0, x1, y1 = self._engine_target()
        box = (x0 + o.padding, y0 + o.padding, x1 - o.padding, y1 - o.padding)
        bins = np.asarray(bins)
        for b in np.unique(bins):
            members = np.flatnonzero(bins == b)
            polys = []
            for j in members:
                t = IslandTransform(float(angle[j]), bool(flip[j]), (float(trans[j, 0]), float(trans[j, 1])),
                                    float(scale[j] / self._prescale[j]))
                polys.append([_apply(t, r) for r in self._shapes[j]])
            fixed = self._fixed_shapes if b == 0 else []
            bad_a, bad_b = _core.validate(polys + fixed, len(fixed), o.check_margin, box)
            if bad_a >= 0:
                raise RuntimeError(f"internal error: a snapped layout failed its check (islands {bad_a} and {bad_b} "
                                   "of a tile); please report this input")

    @property
    def best(self) -> PackResult:
        """The best layout found so far (validated)."""
        assert self._best is not None
        return self._best

    @property
    def exact(self) -> bool:
        """Whether the exact first layout exists (False while ``best`` is
        the box or convex layout a time limit left; ``step()`` builds it).
        ``best`` stays that layout while it beats the engine's layouts."""
        return self._exact

    def _offer(self, result: PackResult) -> bool:
        """Make ``result`` the best layout: always over a layout of the
        packer's engine (the engine judged it better), over the box or
        convex layout when it beats it; True when it did."""
        old = self._best
        if old is not None and old.kind != "exact":
            if self._opt.fixed:
                if (result.tile_count, -result.tile_fill) >= (old.tile_count, -old.tile_fill):
                    return False
            elif result.coverage <= old.coverage:
                return False
        self._best = result
        return True

    @property
    def stats(self) -> dict:
        """Engine counters: moves (of each thread's search), layouts,
        rejected layouts (always 0 unless there is a bug), coverage, cache
        use (all threads), tiles used; and the threads' own: ``chains``,
        ``moves_all`` (every thread's moves), ``rounds`` (migrations of the
        best layout), ``chain_seconds`` (time in moves, summed over the
        threads), ``wall_seconds`` (of the parallel sections) and
        ``serial_seconds`` (of the migrations)."""
        if self._core is None:   # the power-of-two layout is final
            return {"moves": 0, "layouts": 1, "rejected": 0, "bins": int(np.unique(self._pow2[1]).size)}
        return self._core.stats()

    # ------------------------------------------------------------ search

    def step(self, seconds: Optional[float] = 0.1, iterations: Optional[int] = None) -> bool:
        """Search for up to ``seconds`` (wall time) and/or ``iterations``
        annealing moves; returns True when the best layout improved.
        Without the exact first layout (see ``exact``), it first goes on
        with that, within the same time."""
        seconds = _seconds(seconds, "seconds")
        if iterations is not None:
            iterations = _whole(iterations, "iterations", 0)
        if seconds is None and iterations is None:
            raise requirement("step", "seconds or iterations")
        return self._step(seconds, iterations, hard=True)

    def _step(self, seconds: Optional[float], iterations: Optional[int], hard: bool) -> bool:
        """``step()``; ``hard``: cancel the move under way at the deadline
        (else only stop between moves: the moves made then depend on the
        iterations alone, not on timing)."""
        if self.final:
            return False
        with self._lock:
            # a cancel() that came while nothing ran is over: this call runs
            self._core.reset_cancel()
            if self._stopped():
                return False
            deadline = None if seconds is None else time.perf_counter() + seconds
            # when the moves alone decide (a move budget, no deadline cutting
            # a move short) every thread's search makes every move; else
            # no thread waits for another
            lockstep = iterations is not None and not (hard and deadline is not None)
            with self._stop_at(deadline if hard else None):
                return self._search(deadline, iterations, lockstep)

    def _search(self, deadline: Optional[float], left: Optional[int], lockstep: bool) -> bool:
        """The body of ``step()``, with the deadline armed."""
        improved = False
        if not self._exact:
            if not self._start():
                return False
            self._exact = True
            improved = self._offer(self._result())
        while True:
            if left is not None and left <= 0:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            n = self._chunk if left is None else min(self._chunk, left)
            t0 = time.perf_counter()
            better, cancelled = self._call(self._core, "run", n, lockstep)
            spent = time.perf_counter() - t0
            if left is not None:
                left -= n
            if better:
                improved = self._offer(self._result()) or improved
            if cancelled:
                self._core.reset_cancel()
                break
            # aim for chunks of about 20 ms, so time limits and cancel
            # are honoured promptly
            if spent < 0.01:
                self._chunk = min(self._chunk * 2, 1 << 20)
            elif spent > 0.04 and self._chunk > 1:
                self._chunk //= 2
        return improved

    @contextlib.contextmanager
    def _stop_at(self, deadline: Optional[float], core=None) -> Iterator[None]:
        """While active, cancel the running search (or first layout) at
        ``deadline`` (``time.perf_counter()`` seconds), in the middle of a
        move if need be: a move is a whole decode, which at thousands of
        islands takes seconds, and a time limit is a promise.  ``step()``
        keeps the best layout and searches again on its next call."""
        core = core or self._core
        if deadline is None or core is None:
            yield
            return
        with self._deadline_lock:
            generation = self._deadline_generation

        def fire() -> None:
            with self._deadline_lock:
                if generation == self._deadline_generation:
                    core.cancel()

        timer = threading.Timer(max(0.0, deadline - time.perf_counter()), fire)
        timer.daemon = True
        timer.start()
        try:
            yield
        finally:
            with self._deadline_lock:
                self._deadline_generation += 1
            timer.cancel()

    def improvements(self, time_limit: Optional[float] = None,
                     iterations: Optional[int] = None) -> Iterator[PackResult]:
        """Yield the current best layout, then each strictly better one,
        until ``time_limit`` seconds or ``iterations`` moves (both None:
        until cancelled).  Without the exact first layout the search first
        builds it (see ``step``)."""
        time_limit = _seconds(time_limit, "time_limit")
        if iterations is not None:
            iterations = _whole(iterations, "iterations", 0)
        # reset before the first yield: a cancel() after it must hold
        self._cancelled = False
        return self._improvements(time_limit, iterations)

    def _improvements(self, time_limit: Optional[float], iterations: Optional[int]) -> Iterator[PackResult]:
        yield self.best
        deadline = None if time_limit is None else time.perf_counter() + time_limit
        done = 0
        while not self._cancelled and not self._stopped():
            if deadline is not None and time.perf_counter() >= deadline:
                return
            if iterations is not None and done >= iterations:
                return
            before = self.stats["moves"]
            budget = None if deadline is None else max(0.0, min(0.05, deadline - time.perf_counter()))
            n = None if iterations is None else iterations - done
            with self._stop_at(deadline):
                better = self._step(budget if budget is not None else 0.05, n, hard=deadline is not None)
            if better:
                yield self.best
            done += self.stats["moves"] - before
            if self.final:
                return

    def cancel(self) -> None:
        """Stop a running ``step()`` or ``improvements()`` promptly (safe from
        any thread); a later call searches again."""
        self._cancelled = True
        self._stop_running()


def pack(uvs, faces: FacesLike, *, time_limit: Optional[float] = DEFAULT_TIME_LIMIT,
         iterations: Optional[int] = None, margin: float = _D.margin, margin_px: Optional[float] = _D.margin_px,
         texture_size: TextureSize = _D.texture_size, rotation: str = _D.rotation,
         rotation_step: float = _D.rotation_step, flip: bool = _D.flip, shape: str = _D.shape,
         merge_overlapping: bool = _D.merge_overlapping, locked=None, target=_D.target,
         padding: float = _D.padding, seed: int = _D.seed, cache_mb: float = _D.cache_mb,
         anneal_max: Optional[int] = _D.anneal_max, mesh_faces: Optional[FacesLike] = None,
         scale: str = _D.scale, tiles: Optional[Sequence[int]] = _D.tiles,
         texel_density: Optional[float] = _D.texel_density, positions=None, groups=None,
         pixel_perfect: bool = _D.pixel_perfect, block_align: Optional[int] = _D.block_align,
         stack_similar: Union[bool, float] = _D.stack_similar, max_scale_ratio: float = _D.max_scale_ratio,
         group_layout: str = _D.group_layout, cancel: Optional[Cancel] = None,
         threads: Optional[int] = _D.threads) -> PackResult:
    """Pack the islands of ``uvs``/``faces`` into the target.

    Returns the best layout found within ``time_limit`` seconds of the call,
    first layout included (the box or convex layout, ``kind``, when the
    exact first layout is not ready by then) and/or ``iterations`` annealing
    moves (``time_limit=None`` with ``iterations`` is deterministic).  With
    ``cancel`` set it raises :class:`Cancelled` before the first layout and
    returns the best layout so far after it.

    Args:
        uvs: ``(N, 2)`` UVs (not modified).
        faces: per face its UV indices (an ``(F, k)`` array or lists).
        time_limit: seconds from the call (default 2; None: no limit).
        iterations: annealing moves (None: no limit).
        locked, mesh_faces, positions, groups, cancel: as for :class:`Packer`.
        margin ... threads: the packing options, as for :class:`Packer`;
            each one's default, range and meaning is declared once in
            :class:`uvnest.PackOptions` (``uvnest.options.OPTIONS``).
    """
    options = _option_arguments(locals())
    time_limit = _seconds(time_limit, "time_limit")
    if iterations is not None:
        iterations = _whole(iterations, "iterations", 0)
    start = time.perf_counter()
    packer = Packer(uvs, faces, time_limit=time_limit, locked=locked, mesh_faces=mesh_faces, positions=positions,
                    groups=groups, cancel=cancel, **options)
    if packer.final or (time_limit is None and iterations is None):
        return packer.best
    if time_limit is None:
        packer.step(seconds=None, iterations=iterations)
    else:
        deadline = start + time_limit
        left = iterations
        with packer._stop_at(deadline):
            while time.perf_counter() < deadline and (left is None or left > 0) and not packer._stopped():
                before = packer.stats["moves"]
                packer.step(seconds=max(0.0, deadline - time.perf_counter()), iterations=left)
                if left is not None:
                    left -= packer.stats["moves"] - before
    return packer.best
