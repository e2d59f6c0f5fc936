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

This module holds ``Packer``'s set-up (islands, units, engines, first
layouts, results) and ``pack()``; ``Packer``'s search (``step()``,
``improvements()``, cancels and deadlines) is :mod:`uvnest.packer_search`,
its final check :mod:`uvnest.final_check`; the result types are in
:mod:`uvnest.results`, :class:`Cancel` in :mod:`uvnest.cancel`, the input
helpers in :mod:`uvnest.pack_inputs` (all importable from here too).
"""
from __future__ import annotations

import contextlib
import threading
import time
import weakref
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core, tiles as _tiles
from ._faces import FacesLike, check_uvs
from .cancel import Cancel, Cancelled
from .final_check import FinalCheck
from .errors import CannotFitError, InputError, requirement, seconds as _seconds, whole as _whole
from .group_layout import PROBE_MOVES, TIME_SHARE as CLUSTER_TIME_SHARE, build_clusters
from .islands import Island, clipped_area, find_islands, island_faces_of
from .options import DEFAULT_TIME_LIMIT, PackOptions, TextureSize, cpu_cores
from .pack_inputs import (in_texel_space, island_groups, locked_islands, min_area_rectangles, option_arguments,
                          packing_shape, packing_shapes)
from .packer_search import PackerSearch
from .results import IDENTITY, IslandTransform, PackResult, apply_transforms, compose_transforms
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


class Packer(PackerSearch, FinalCheck):
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
        #: the longest a result took to build and check (see ``_result``):
        #: deadlines of the search keep this much for the last one
        self._result_cost = 0.0
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
        self.options = PackOptions(**option_arguments(locals()))
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
        self._locked = locked_islands(locked, self.islands, n_faces)
        #: the stacks of similar islands (``stack_similar``), each packed as one island
        self.stacks: List[Stack] = []
        #: what the engine packs: the islands, a stack of similar ones as one
        self._units = [in_texel_space(isl, o.aspect) for isl in self.islands] if o.aspect != (1.0, 1.0) \
            else self.islands
        #: per island its unit and the alignment that puts it there (with stacks)
        self._unstack: Optional[Tuple[np.ndarray, List[IslandTransform]]] = None
        if self.options.stack_similar is not False:
            # grouped together, a stack keeps to one group
            together = group_layout == "together" and groups is not None
            self._stack(faces, DEFAULT_STACK_TOLERANCE if self.options.stack_similar is True
                        else self.options.stack_similar,
                        island_groups(groups, self.islands, n_faces)[1] if together else None)
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
        self._group_keys, self._group_of = island_groups(groups, moving, n_faces)
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
        for j, (k, (rings, area)) in enumerate(zip(self._prescale, packing_shapes(moving, o.shape, o.align))):
            if j % 4096 == 4095:
                self._check_cancel()
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
                    self._convex_layout(self._search_deadline(self._t0 + limit))
            deadline = None if limit is None or self.final or self._best is None else self._t0 + limit
            if not self._start(self._search_deadline(deadline)):
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
                core.add_island(*packing_shape(isl, o.shape, o.align))
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
        found = build_clusters(moving, [rings for rings, _ in packing_shapes(moving, o.shape, o.align)], self._group_of,
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
        self._unstack = (unit_of[before], [compose_transforms(motion[u], a) for u, a in zip(before, alignment)])
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
        rings, _ = packing_shape(self._units[i], "concave")
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
        if self._opt.align:
            # islands that turn freely: their (pre-scaled) shapes' smallest
            # rectangles, but for the thin ones (synthetic-10000: 0.165
            # against 0.130 with the boxes as given)
            rect = min_area_rectangles(self._shapes)
            side = np.minimum(np.linalg.norm(rect[:, 1] - rect[:, 0], axis=1),
                              np.linalg.norm(rect[:, 3] - rect[:, 0], axis=1))
            corners[side >= tiny] = rect[side >= tiny]
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
        """The engine's best layout (or ``core``'s) as a checked result;
        None when it is below the scale a group layout needs.  Its cost
        (the transforms applied to every UV and the exact check of every
        face: 0.3 s at 126,000 faces) is kept in ``_result_cost``."""
        t0 = time.perf_counter()
        try:
            return self._checked_result(core, kind)
        finally:
            self._result_cost = max(self._result_cost, time.perf_counter() - t0)

    def _search_deadline(self, deadline: Optional[float]) -> Optional[float]:
        """``deadline`` less the time the result found by then takes to build."""
        return None if deadline is None else deadline - self._result_cost

    def _paced_seconds(self, seconds: float, left: Optional[float] = None) -> float:
        """The seconds of one step of a loop of steps: ``seconds``, but at
        least twice what a result takes to build (a timed step keeps that
        free before its deadline, and a shorter step would make no move,
        however often it is repeated), and at most ``left`` (what is left of
        a time limit)."""
        paced = max(seconds, 2.0 * self._result_cost)
        return paced if left is None else max(0.0, min(paced, left))

    def _checked_result(self, core, kind: str) -> Optional[PackResult]:
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
            transforms = [compose_transforms(transforms[u], m) for u, m in zip(unit_of, alignment)]
            uvs = apply_transforms(self._input, self.islands, transforms, o.texture)
            self._check_output(uvs, angle, flip, scale, trans, bins)
            if self._together is not None:
                self._check_islands(unit_transforms)
            return self._packed(uvs, transforms, island_tiles[unit_of], scale, bins, kind)
        uvs = apply_transforms(self._input, self._units, transforms, o.texture)
        self._check_output(uvs, angle, flip, scale, trans, bins)
        return self._packed(uvs, transforms, island_tiles, scale, bins, kind)

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
    options = option_arguments(locals())
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
        # step() keeps the result's cost free before the end itself
        end = start + time_limit
        left = iterations
        with packer._stop_at(packer._search_deadline(end)):
            while time.perf_counter() < packer._search_deadline(end) and (left is None or left > 0) \
                    and not packer._stopped():
                before = packer.stats["moves"]
                packer.step(seconds=max(0.0, end - time.perf_counter()), iterations=left)
                if left is not None:
                    left -= packer.stats["moves"] - before
    return packer.best
