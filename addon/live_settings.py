"""What goes in and out of a :class:`uvnest.live.LiveSession`: its
settings (:class:`PackSettings`, Blender's Pack Islands options and their
choices), its :class:`Limits`, and what it reports (:class:`Layout`,
:class:`Progress`, :class:`PackError`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np

from .errors import REQUIRES, InputError, whole
from .options import AXIS_ROTATIONS, BLENDER_DEFAULTS, OPTIONS, ROTATIONS, PackOptions

__all__ = ["KEEP_TOGETHER", "Layout", "Limits", "MARGIN_METHODS", "PIN_METHODS", "PackError", "PackSettings",
           "Progress", "ROTATION_MODES", "SHARED_OPTIONS", "TARGET_MODES"]

#: Where the islands go (Blender's ``udim_source``): the UDIM tile closest to
#: the selection, the active UDIM tile, the selection's original bounding
#: box, a custom region; and uvnest's UDIM tiles at the current density.
TARGET_MODES = ("CLOSEST_UDIM", "ACTIVE_UDIM", "ORIGINAL_AABB", "CUSTOM_REGION", "UDIM_TILES", "REGION")
#: What each group of islands kept together is (``group_layout='together'``):
#: nothing (no groups), each mesh, each material.
KEEP_TOGETHER = ("NONE", "OBJECT", "MATERIAL")
#: How the margin is given: Blender's ``margin_method`` items, and pixels.
MARGIN_METHODS = ("SCALED", "ADD", "FRACTION", "PIXELS")
#: Which rotations the islands may take: none, quarter turns, any (by
#: ``rotation_step``), and Blender's axis-aligned methods (each island turned
#: to its smallest bounding box, then quarter turns; or lying; or standing).
ROTATION_MODES = ROTATIONS + tuple(AXIS_ROTATIONS)
#: The settings that are options of :class:`uvnest.PackOptions` too, with
#: its checks and (but for :data:`uvnest.options.BLENDER_DEFAULTS`) its defaults.
SHARED_OPTIONS = ("margin", "margin_px", "padding", "rotation_step", "flip", "shape", "merge_overlapping",
                  "stack_similar", "max_scale_ratio", "seed", "threads")
#: What pinned islands keep (Blender's ``pin_method``).
PIN_METHODS = ("LOCKED", "SCALE", "ROTATION", "ROTATION_SCALE")


#: The options' defaults (:class:`uvnest.PackOptions`).
_D = PackOptions()


class PackError(Exception):
    """A problem the user can fix (no selection, no UVs, no room); the
    message is meant for Blender's status bar."""


@dataclass(frozen=True)
class PackSettings:
    """Packing options, with Blender's names and meanings where they overlap
    (``uv.pack_islands``: ``margin_method``, ``margin``, ``rotate_method``,
    ``scale``, ``pin_method``, ``udim_source``).

    Attributes:
        margin: Blender's margin, read by ``margin_method``: ``'FRACTION'``
            keeps ``margin`` UV units around each island (islands end
            ``2 * margin`` apart); ``'ADD'`` keeps ``margin`` in the
            islands' own units, scaled with them; ``'SCALED'`` keeps
            ``margin * 0.1 * sum(sqrt(w * h))`` over the islands' bounding
            boxes (``w * h`` after an island turns to its smallest box when
            it may rotate freely), scaled with them.  Blender keeps the same
            band between the islands and the target's border.
        margin_method: one of :data:`MARGIN_METHODS`; ``'PIXELS'``: the gap
            between islands is ``margin_px`` texture pixels.
        margin_px: gap in texture pixels (``'PIXELS'``), with
            ``texture_size`` pixels per UV unit.
        texture_size: texture side in pixels, for ``margin_px``.
        padding: smallest distance in UV units between the islands and the
            target's border, on top of Blender's band.
        rotation: one of :data:`ROTATION_MODES`.
        rotation_step: degrees between tried angles with ``'any'``.
        flip: allow mirrored islands.
        shape: ``'concave'``, ``'convex'`` or ``'box'``.
        scale: scale the islands to fill the target (False: they keep their
            size; when they do not fit, they continue in copies of the
            target to its right, in rows of 10, as UDIM tiles do).
        merge_overlapping: overlapping islands move together.
        stack_similar: islands of one shape (turned, or mirrored with
            ``flip``) pack stacked on each other (``Packer``'s option).
        max_scale_ratio: island scales may differ by up to this ratio
            (``Packer``'s option; with ``scale`` only).
        lock_pinned: islands with a pinned UV keep what ``pin_method`` says.
        pin_method: one of :data:`PIN_METHODS`: ``'LOCKED'`` pinned islands
            stay put as obstacles; ``'ROTATION'`` they keep their
            orientation; ``'SCALE'`` their size; ``'ROTATION_SCALE'`` both.
        obstacles: the unselected faces shown in the UV editor (see
            :attr:`uvnest.mesh_loops.MeshLoops.shown`) stay put, and the packed islands keep
            the margin from them.
        target: one of :data:`TARGET_MODES`; ``'UDIM_TILES'`` keeps the
            islands' size and fills as few UDIM tiles as possible (the
            image's tiles in order when given, else 1001, 1002, ... in rows
            of 10).
        custom_region: ``(x0, y0, x1, y1)`` for ``'CUSTOM_REGION'``.
        region: the rings of a polygon target for ``'REGION'`` (outer
            rings counter-clockwise, holes clockwise, in UV space; see
            :mod:`uvnest.region`; needs ``scale``).
        keep_together: one of :data:`KEEP_TOGETHER`: the islands of each
            mesh (``'OBJECT'``) or of each material (``'MATERIAL'``) pack
            in a compact region of their own (``Packer``'s
            ``group_layout='together'``; needs ``scale``), or with
            ``'UDIM_TILES'`` in one tile whenever it fits.
        active_tile: UDIM tile number for ``'ACTIVE_UDIM'``.
        udim_tiles: the image's UDIM tiles; ``'CLOSEST_UDIM'`` picks among
            them and the grid's (see :func:`uvnest.tiles.closest_udim_tile`) and
            ``'UDIM_TILES'`` fills them, when given.
        udim_grid: ``(columns, rows)`` of the UV editor's tile grid (None:
            no UV editor, where Blender's Closest UDIM is tile 1001).
        seed: random seed of the search.
        threads: cores the search runs on (None: every core); the session
            shows the best layout of all of them.
        aspect: the image's width and height over the larger one: the
            islands are packed where texels are square, as Blender corrects
            the aspect, so turning an island does not stretch its texels
            (margins and padding are then in units of the longer side;
            ignored by ``'UDIM_TILES'``).
    """

    margin: float = _D.margin
    margin_method: str = "SCALED"
    margin_px: Optional[float] = _D.margin_px
    texture_size: Optional[int] = _D.texture_size
    padding: float = _D.padding
    rotation: str = _D.rotation
    rotation_step: float = _D.rotation_step
    flip: bool = _D.flip
    shape: str = _D.shape
    scale: bool = True
    merge_overlapping: bool = BLENDER_DEFAULTS["merge_overlapping"]
    stack_similar: bool = _D.stack_similar
    max_scale_ratio: float = _D.max_scale_ratio
    lock_pinned: bool = False
    pin_method: str = "LOCKED"
    obstacles: bool = True
    target: str = "CLOSEST_UDIM"
    custom_region: Tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
    region: Tuple[np.ndarray, ...] = ()
    keep_together: str = "NONE"
    active_tile: int = 1001
    udim_tiles: Tuple[int, ...] = ()
    udim_grid: Optional[Tuple[int, int]] = None
    seed: int = _D.seed
    threads: Optional[int] = _D.threads
    aspect: Tuple[float, float] = (1.0, 1.0)

    def __post_init__(self) -> None:
        """Check every setting: those shared with :class:`uvnest.PackOptions`
        by its checks (an ``InputError`` naming the setting)."""
        for name, value, allowed in (("target", self.target, TARGET_MODES),
                                     ("margin_method", self.margin_method, MARGIN_METHODS),
                                     ("rotation", self.rotation, ROTATION_MODES),
                                     ("pin_method", self.pin_method, PIN_METHODS),
                                     ("keep_together", self.keep_together, KEEP_TOGETHER)):
            if value not in allowed:
                raise InputError(f"{name} must be one of {allowed}, got {value!r}", name)
        for name in SHARED_OPTIONS:
            object.__setattr__(self, name, OPTIONS[name].check(getattr(self, name)))
        if self.texture_size is not None:
            object.__setattr__(self, "texture_size", whole(self.texture_size, "texture_size", 1))
        if self.margin_method == "PIXELS" and not (self.margin_px is not None and self.texture_size):
            raise InputError("margin_method 'PIXELS' needs margin_px and texture_size", "margin_method", REQUIRES,
                             "margin_px")
        if not (len(self.aspect) == 2 and all(0 < v <= 1 for v in self.aspect) and max(self.aspect) == 1):
            raise InputError(f"aspect must be the image's width and height over the larger, got {self.aspect!r}",
                             "aspect")


@dataclass(frozen=True)
class Limits:
    """When the search ends by itself; 0 switches a limit off.

    Attributes:
        time_limit: seconds since :meth:`uvnest.live.LiveSession.start` (or ``run``).
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
            :attr:`uvnest.live.LiveSession.moving_loops` (same order).  Loops of locked
            islands keep their original values, bit for bit.
        coverage: share of the target covered by islands.
        scale: common scale of the moved islands.
        iterations: annealing moves made when this layout was found.
        elapsed: seconds since the session started when it was found.
        number: 0 for the first layout, then 1, 2, ... for each better one.
        islands: number of islands (groups of overlapping islands count
            once when ``merge_overlapping``), locked ones included.
        kind: ``'exact'``, or ``'box'`` / ``'convex'`` for the layouts shown while the
            exact first layout takes longer than :data:`uvnest.live.FIRST_LAYOUT_SECONDS`
            (or the time limit).
    """

    loop_uvs: Tuple[np.ndarray, ...]
    coverage: float
    scale: float
    iterations: int
    elapsed: float
    number: int
    islands: int
    kind: str = "exact"


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
