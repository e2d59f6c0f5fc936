"""The packing options, in one place: :class:`PackOptions`.

Each option's name, default, type, choices, range and help text is declared
once, on its field below (an :class:`Option` in the field's metadata), and
every interface reads it from here:

* :func:`uvnest.pack` and :class:`uvnest.Packer` take the options as keyword
  arguments with these defaults and validate them by building a
  :class:`PackOptions`;
* the command line (``uvnest pack``) builds its arguments from
  :data:`OPTIONS` (defaults, choices, ranges and help text) and checks the
  combination by building a :class:`PackOptions`, without packing anything;
* the live session's :class:`uvnest.live_settings.PackSettings` and the Blender
  properties take their defaults, ranges and descriptions from
  :data:`OPTIONS` for the options they share with the Python API.  Blender's
  own Pack Islands names keep Blender's definitions (see
  :data:`BLENDER_DEFAULTS`).

A :class:`PackOptions` is frozen and holds only valid values: construction
raises :class:`uvnest.errors.InputError` (a ``ValueError``) naming the
argument, with a code (:mod:`uvnest.errors`), and ``TypeError`` for an
unknown name.  :meth:`PackOptions.resolved` gives the values the engine
works with (texel space, snapping grids, the margin and padding it keeps).

Adding an option:

1. a field on :class:`PackOptions` with ``_option(default, help, kind,
   ...)`` (its range, choices, ``cli`` flag); checks that involve other
   options go in ``__post_init__`` (``errors.requirement`` for "needs"),
   and what the engine needs from it in :class:`ResolvedOptions`;
2. the same keyword, with default ``_D.<name>``, on ``Packer.__init__`` and
   ``pack`` (``pack_inputs.option_arguments`` raises KeyError until both have
   it, and ``tests/test_options.py`` checks the signatures);
3. ``_add_option(group, "<name>")`` in ``cli/arguments.py`` for the
   command line (and ``cli/pack._packer_options`` to pass it on);
4. for the Blender add-on, a property built with
   ``blender.props.model_property("<name>")`` and its value passed on in
   ``live_settings.PackSettings`` (``SHARED_OPTIONS`` when it is the same setting).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
import os
from typing import Any, Callable, Dict, Optional, Tuple, Union

import numpy as np

from . import region as _region, tiles as _tiles
from .group_layout import GROUP_LAYOUTS
from .errors import NO_ROOM, InputError, flag, number, requirement, whole

__all__ = ["Option", "OPTIONS", "PackOptions", "ResolvedOptions", "ROTATIONS", "AXIS_ROTATIONS", "SHAPES",
           "SCALES", "BLENDER_DEFAULTS", "cpu_cores", "texel_aspect", "DEFAULT_TIME_LIMIT", "UNIT_TARGET"]

ROTATIONS = ("none", "90", "any")
#: Blender's axis-aligned rotate methods, which the command line and the
#: live session add to :data:`ROTATIONS`, as (pose, packer rotation): each
#: island is first turned to its smallest bounding box, standing (at least
#: as tall as wide) or lying, then packed with quarter turns (``axis``) or
#: as turned (``axis_x`` lying, ``axis_y`` standing).  The packer itself
#: takes :data:`ROTATIONS`.
AXIS_ROTATIONS: Dict[str, Tuple[str, str]] = {"axis": ("stand", "90"), "axis_x": ("lie", "none"),
                                              "axis_y": ("stand", "none")}
SHAPES = ("concave", "convex", "box")
SCALES = ("fit", "fixed")
#: The unit tile, the default target.
UNIT_TARGET = (0.0, 0.0, 1.0, 1.0)
#: Seconds :func:`uvnest.pack` and ``uvnest pack`` search by default (the
#: first layout included).
DEFAULT_TIME_LIMIT = 2.0
#: Where the Blender add-on and the live session default differently from
#: the Python API, and why: Blender's Pack Islands leaves overlapping
#: islands apart (``merge_overlap`` False), and the add-on takes Blender's
#: arguments with Blender's defaults.
BLENDER_DEFAULTS: Dict[str, Any] = {"merge_overlapping": False}


@dataclass(frozen=True)
class Option:
    """One option: its name, default, help text and what it accepts.

    ``help`` names other options as ``{name}`` (see :meth:`describe`).
    ``kind`` is ``'number'`` (a finite float within ``low`` .. ``high``),
    ``'whole'`` (an integer within them), ``'flag'`` (a bool),
    ``'choice'`` (one of ``choices``) or ``'value'`` (checked by
    :class:`PackOptions` itself: a size, a target, tiles).  With
    ``optional``, None is accepted too (it means what ``help`` says).
    ``low_open`` excludes ``low``; ``soft_high`` is where a slider in a user
    interface ends (larger values are allowed).  ``cli`` is the
    command-line flag, None when the command line spells the option
    another way (``scale``: ``--udim`` and ``--no-scale``) or has none.
    """

    name: str
    default: Any
    help: str
    kind: str
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    soft_high: Optional[float] = None
    choices: Tuple[str, ...] = ()
    optional: bool = False
    cli: Optional[str] = None

    def check(self, value: Any) -> Any:
        """``value`` if valid (normalised: floats, ints, bools), else an
        ``InputError`` naming the option (code ``'invalid'``)."""
        if value is None and self.optional:
            return None
        if self.kind == "flag":
            return flag(value, self.name)
        if self.kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                raise InputError(f"{self.name} must be one of {self.choices}, got {value!r}", self.name)
            return value
        if self.kind == "whole":
            return whole(value, self.name, int(self.low or 0), None if self.high is None else int(self.high) + 1)
        if self.kind == "number":
            return self._number(value)
        return _VALUE_CHECKS[self.name](value) if self.name in _VALUE_CHECKS else value

    def _number(self, value: Any) -> float:
        x = number(value, self.name, None if self.high is not None or self.low_open else self.low)
        low_ok = self.low is None or (x > self.low if self.low_open else x >= self.low)
        if not (low_ok and (self.high is None or x <= self.high)):
            raise InputError(f"{self.name} must be a finite number {self.span()}, got {value!r}", self.name)
        return x

    def describe(self, spell: Callable[[str], str] = str) -> str:
        """The help text, with the other options it mentions spelled by
        ``spell`` (the Python API's names by default; ``'--texture-size'``
        on the command line)."""
        return self.help.format(**{name: spell(name) for name in OPTIONS})

    def span(self) -> str:
        """The accepted range in words: ``'from 0.5 to 360'``, ``'>= 0'``, ``'> 0'``."""
        if self.high is not None:
            return f"from {self.low:g} to {self.high:g}"
        return f"{'>' if self.low_open else '>='} {self.low:g}"


def _option(default: Any, help: str, kind: str = "value", **spec: Any) -> Any:
    """A :class:`PackOptions` field declaring its :class:`Option` (named by the field)."""
    return field(default=default, metadata={"option": dict(default=default, help=help, kind=kind, **spec)})


TextureSize = Union[int, Tuple[int, int], None]


@dataclass(frozen=True)
class PackOptions:
    """The options of :func:`uvnest.pack` and :class:`uvnest.Packer`,
    validated (see the module's text).  ``PackOptions(**kwargs)`` checks
    every value and their combination; the fields hold the normalised values
    (``texture_size`` as ``(W, H)``, ``target`` as a tuple of floats or of
    rings, ``stack_similar`` as False or a tolerance)."""

    margin: float = _option(
        0.001, "smallest gap between islands, in tile units",
        "number", low=0.0, cli="--margin")
    margin_px: Optional[float] = _option(
        None, "margin in pixels of {texture_size} (overrides {margin})", "number", low=0.0, optional=True,
        cli="--margin-px")
    texture_size: TextureSize = _option(
        None, "texture size in pixels, square (an integer) or (W, H): for {margin_px}, {texel_density}, "
              "{pixel_perfect} and {block_align}; with W != H islands keep their shape in texels",
        optional=True, cli="--texture-size")
    rotation: str = _option(
        "any", "island rotations allowed: none, quarter turns (90), or any (by {rotation_step})", "choice",
        choices=ROTATIONS, cli="--rotation")
    rotation_step: float = _option(
        5.0, "angle between the rotations tried with any {rotation}, in degrees (measured from each island's "
             "smallest bounding box)",
        "number", low=0.5, high=360.0, cli="--rotation-step")
    flip: bool = _option(False, "allow mirrored islands", "flag", cli="--flip")
    shape: str = _option(
        "concave", "island shape used for packing: the outline (concave), its convex hull, or its bounding box",
        "choice", choices=SHAPES, cli="--shape")
    merge_overlapping: bool = _option(
        True, "overlapping islands move together", "flag", cli="--no-merge-overlapping")
    target: Any = _option(
        UNIT_TARGET, "the rectangle (x0, y0, x1, y1) to pack into (with {scale} 'fixed', the part of "
                     "every tile to use), or, with {scale} 'fit', a region of rings", cli="--target")
    padding: float = _option(
        0.0, "smallest gap between islands and the target's border, in tile units", "number", low=0.0,
        soft_high=0.5, cli="--padding")
    seed: int = _option(0, "random seed of the search", "whole", low=0, high=2**64 - 1, cli="--seed")
    cache_mb: float = _option(
        256.0, "no-fit polygon cache budget in MB, shared between the threads' searches", "number", low=0.0,
        low_open=True)
    anneal_max: Optional[int] = _option(
        None, "how many of the largest islands are annealed; the rest are filled around them (None: 24; "
              "with {scale} 'fixed' every island up to 300)", "whole", low=1, high=2**31 - 1, optional=True)
    scale: str = _option(
        "fit", "fit: the largest common scale that fits the target; fixed: keep the islands' size (or "
               "{texel_density}) and use as few UDIM tiles as possible", "choice", choices=SCALES)
    tiles: Optional[Tuple[int, ...]] = _option(
        None, "UDIM tiles to fill, in order (None: 1001 .. 1100, rows of 10); {scale} 'fixed' only",
        optional=True, cli="--tiles")
    texel_density: Optional[float] = _option(
        None, "texels per unit of 3D length for every island (needs {texture_size} and positions); "
              "{scale} 'fixed' only", "number", low=0.0, low_open=True, optional=True, cli="--texel-density")
    pixel_perfect: bool = _option(
        False, "snap island positions to the texel grid of {texture_size} (margins still hold)", "flag",
        cli="--pixel-perfect")
    block_align: Optional[int] = _option(
        None, "snap island positions to blocks of this many texels (4 for BCn/ETC) and keep every block to "
              "one island (needs {texture_size})", "whole", low=1, optional=True, cli="--block-align")
    stack_similar: Union[bool, float] = _option(
        False, "pack copies of one island shape (turned, or mirrored with {flip}) stacked as one: True, or "
               "how similar, a share of the island's size below 0.5 (True: 0.001)", cli="--stack-similar")
    max_scale_ratio: float = _option(
        1.0, "let island scales differ by up to this ratio where one long island limits the common scale "
             "(1: one common scale); only where the islands are scaled to fit", "number", low=1.0, soft_high=4.0,
        cli="--max-scale-ratio")
    group_layout: str = _option(
        "tiles", "what groups of islands (groups, one key per face) keep to: the same UDIM tile when it fits "
                 "(tiles, {scale} 'fixed'), or, with {scale} 'fit', a compact region of their own each, the "
                 "regions at least {margin} apart, all at one scale (together)", "choice",
        choices=GROUP_LAYOUTS, cli="--group-layout")
    threads: Optional[int] = _option(
        None, "cores the search runs on, one search each, sharing their best layout (None: every core "
              "this process may use); the layout depends on it, as on the seed", "whole", low=1, high=1024,
        optional=True, cli="--threads")

    def __post_init__(self) -> None:
        for name, option in OPTIONS.items():
            object.__setattr__(self, name, option.check(getattr(self, name)))
        object.__setattr__(self, "target", _target(self.target, self.scale))
        if self.tiles is not None and self.scale != "fixed":
            raise requirement("tiles", "scale='fixed'")
        for name, given in (("margin_px", self.margin_px is not None), ("pixel_perfect", self.pixel_perfect),
                            ("block_align", self.block_align is not None),
                            ("texel_density", self.texel_density is not None)):
            if given and self.texture_size is None:
                raise requirement(name, "texture_size")
        if self.texel_density is not None and self.scale != "fixed":
            raise requirement("texel_density", "scale='fixed'")
        if self.max_scale_ratio > 1 and self.scale != "fit":
            raise requirement("max_scale_ratio", "scale='fit'", " (with 'fixed' islands keep their size)")
        if self.group_layout == "together":
            if self.scale != "fit":
                raise requirement("group_layout", "scale='fit'", " for 'together' (with 'fixed', groups keep to "
                                                                 "tiles)")
            if self.max_scale_ratio > 1:
                raise requirement("group_layout", "max_scale_ratio=1", " for 'together' (one common scale)")
        object.__setattr__(self, "_resolved", _resolve(self))

    def resolved(self) -> "ResolvedOptions":
        """The values the engine works with (see :class:`ResolvedOptions`)."""
        return self._resolved  # type: ignore[attr-defined]

    def replace(self, **changes: Any) -> "PackOptions":
        """A copy with ``changes``, validated again."""
        return dataclasses.replace(self, **changes)

    def as_kwargs(self) -> Dict[str, Any]:
        """The options as keyword arguments of :func:`uvnest.pack`."""
        return {name: getattr(self, name) for name in OPTIONS}


#: Every option, by name, in declaration order.
OPTIONS: Dict[str, Option] = {f.name: Option(name=f.name, **f.metadata["option"])
                              for f in dataclasses.fields(PackOptions)}


def _texture(texture_size: Any) -> Optional[Tuple[int, int]]:
    """``texture_size`` as ``(W, H)``, None for None."""
    if texture_size is None:
        return None
    size = tuple(texture_size) if isinstance(texture_size, (tuple, list)) else (texture_size, texture_size)
    if len(size) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0
                                 for v in size):
        raise InputError(f"texture_size must be a positive integer or (width, height), got {texture_size!r}",
                         "texture_size")
    return int(size[0]), int(size[1])


def texel_aspect(texture_size: TextureSize) -> Tuple[float, float]:
    """Texel space per UV unit, the larger side 1: ``(W, H) / max(W, H)``."""
    texture = _texture(texture_size)
    if texture is None:
        return 1.0, 1.0
    side = max(texture)
    return texture[0] / side, texture[1] / side


def _stack_tolerance(stack_similar: Any) -> Union[bool, float]:
    """``stack_similar`` checked: a bool, or a tolerance from 0 to 0.5."""
    if isinstance(stack_similar, (bool, np.bool_)):
        return bool(stack_similar)
    tolerance = number(stack_similar, "stack_similar")
    if not tolerance < 0.5:
        raise InputError(f"stack_similar must be True, False or a tolerance from 0 to 0.5 (a fraction of the "
                         f"island's size), got {stack_similar!r}", "stack_similar")
    return tolerance


#: The checks of the options of kind ``'value'`` that do not depend on others.
_VALUE_CHECKS: Dict[str, Callable[[Any], Any]] = {"texture_size": _texture, "stack_similar": _stack_tolerance,
                                                  "tiles": _tiles.checked_tiles}


def _target(target: Any, scale: str) -> Tuple[Any, ...]:
    """A rectangle as 4 floats, or rings as tuples of points (checked)."""
    if not _region.is_rectangle(target):
        if scale == "fixed":
            raise requirement("target", "scale='fit'", " for a target of rings (with 'fixed' the target is a "
                                                       "rectangle (x0, y0, x1, y1) within each tile)")
        try:
            rings = _region.parse_region(target).rings
        except ValueError as e:
            raise e if isinstance(e, InputError) else InputError(str(e), "target") from None
        return tuple(tuple(map(tuple, r.tolist())) for r in rings)
    try:
        t = tuple(float(v) for v in target)
    except (TypeError, ValueError):
        t = ()
    if len(t) != 4 or not all(math.isfinite(v) for v in t) or not (t[2] > t[0] and t[3] > t[1]):
        raise InputError(f"target must be (x0, y0, x1, y1) with x1 > x0 and y1 > y0, or rings, got {target!r}",
                         "target")
    if scale == "fixed" and not (0 <= t[0] < t[2] <= 1 and 0 <= t[1] < t[3] <= 1):
        raise InputError(f"target: with scale='fixed' the target is a part of each unit tile, got {target!r}",
                         "target")
    return t


@dataclass(frozen=True)
class ResolvedOptions:
    """What the engine works with, from :class:`PackOptions`.

    Lengths are in texel space (``uv * aspect``, where texels are square):
    ``target``, ``region``, ``grid`` and the margins.
    """

    margin: float                           # margin_px resolved
    padding: float
    target: Tuple[float, float, float, float]
    angles: np.ndarray                      # the angles tried (radians)
    align: bool                             # also each island's edge-aligned angles
    fixed: bool                             # scale == 'fixed'
    tiles: Tuple[int, ...]                  # the tiles to fill ((1001,) with 'fit')
    texture: Optional[Tuple[int, int]]
    grid: Optional[Tuple[float, float]]     # snapping step (u, v), or None
    check_margin: float                     # margin a snapped layout is checked at (blocks included)
    engine_margin: float                    # margin the engine keeps (room for snapping and blocks)
    engine_padding: float
    cache_bytes: float
    anneal_max: int                         # 0: the engine's default
    threads: int                            # chains of the search (one per thread)
    flip: bool
    shape: str
    merge_overlapping: bool
    seed: int
    #: (W, H) / max(W, H) of a texture_size: the packing space is texel
    #: space, uv * aspect, where islands keep their shape in texels
    aspect: Tuple[float, float] = (1.0, 1.0)
    #: a target given as rings (then ``target`` is its bounding box)
    region: Optional[_region.Region] = None


def _angles(rotation: str, rotation_step: float) -> Tuple[np.ndarray, bool]:
    """The angles tried and whether edge-aligned angles are added."""
    if rotation == "none":
        return np.zeros(1), False
    if rotation == "90":
        return np.radians([0.0, 90.0, 180.0, 270.0]), False
    n = max(1, int(math.floor(360.0 / rotation_step + 1e-9)))
    return np.radians(np.arange(n) * float(rotation_step)), True


def _resolve(o: PackOptions) -> ResolvedOptions:
    """The engine's view of ``o``; ``InputError`` (``'no_room'``) when the
    margin and padding leave no room in the target."""
    texture = o.texture_size
    margin = o.margin if o.margin_px is None else o.margin_px / max(texture)
    region = None
    t = o.target
    if not _region.is_rectangle(t):
        region = _region.parse_region([np.array(r) for r in t])
        t = region.frame_box
    tile_list = (o.tiles or _tiles.checked_tiles(None)) if o.scale == "fixed" else (1001,)
    ax, ay = aspect = texel_aspect(texture)
    t = (t[0] * ax, t[1] * ay, t[2] * ax, t[3] * ay)
    if region is not None and aspect != (1.0, 1.0):
        region = region.scaled(aspect)
    grid = None
    block = 0.0
    if o.block_align is not None:
        grid = (o.block_align / texture[0] * ax, o.block_align / texture[1] * ay)
        block = math.hypot(*grid)   # closer than this, two islands could share a block
    elif o.pixel_perfect:
        grid = (ax / texture[0], ay / texture[1])
    engine_margin, engine_padding = max(margin, block), o.padding
    if grid is not None:
        # rounding moves each island by at most half a step per axis: a
        # pair closes in by at most one step diagonal, a border by half a step
        engine_margin += math.hypot(*grid) * (1 + 1e-9)
        engine_padding += 0.5 * max(grid) * (1 + 1e-9)
    side = min(t[2] - t[0], t[3] - t[1])
    if 2 * engine_padding >= side or engine_margin >= side:
        raise InputError(f"margin {engine_margin:g} and padding {engine_padding:g} leave no room in a "
                         f"target of side {side:g}", "margin", NO_ROOM)
    angles, align = _angles(o.rotation, o.rotation_step)
    return ResolvedOptions(margin, o.padding, t, angles, align, o.scale == "fixed", tile_list, texture, grid,
                           max(margin, block), engine_margin, engine_padding, o.cache_mb * 2**20,
                           o.anneal_max or 0, o.threads or cpu_cores(), o.flip, o.shape, o.merge_overlapping,
                           o.seed, aspect, region)


def cpu_cores() -> int:
    """The cores this process may use (its CPU affinity where the system
    has one): the default of ``threads``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)

