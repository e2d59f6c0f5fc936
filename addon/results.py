"""What a packing hands out: :class:`PackResult`, each island's
:class:`IslandTransform`, and :func:`apply_transforms`, which re-applies a
layout to UVs (the packer's own arithmetic: the same bits)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Sequence, Tuple

import numpy as np

from .errors import InputError
from .islands import Island
from .options import TextureSize, texel_aspect
from .stacking import Stack

__all__ = ["IDENTITY", "IslandTransform", "PackResult", "apply_transform", "apply_transforms", "compose_transforms"]


@dataclass(frozen=True)
class IslandTransform:
    """Where an island went: ``uv' = scale * R(rotation) * F * uv + translation``,
    with ``F`` mirroring u (``u -> -u``) when ``flipped``."""

    rotation: float
    flipped: bool
    translation: Tuple[float, float]
    scale: float


IDENTITY = IslandTransform(0.0, False, (0.0, 0.0), 1.0)


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


def apply_transform(t: IslandTransform, p: np.ndarray) -> np.ndarray:
    """Points ``p`` moved by transform ``t``."""
    if t.flipped:
        p = p * np.array([-1.0, 1.0])
    c, s = math.cos(t.rotation), math.sin(t.rotation)
    return np.column_stack([t.scale * (c * p[:, 0] - s * p[:, 1]) + t.translation[0],
                            t.scale * (s * p[:, 0] + c * p[:, 1]) + t.translation[1]])


def compose_transforms(t: IslandTransform, m: IslandTransform) -> IslandTransform:
    """The transform ``t`` after ``m`` (``t(m(p))``; ``m`` without scale)."""
    if m == IDENTITY:
        return t
    # F R(a) = R(-a) F: a mirrored t turns m's rotation the other way
    turn = t.rotation - m.rotation if t.flipped else t.rotation + m.rotation
    (tx, ty), = apply_transform(t, np.array([m.translation]))
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
