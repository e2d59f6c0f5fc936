"""Polygon targets: pack into a region of rings, keep out of its holes.

A region is a list of rings: outer rings counter-clockwise, holes
(keep-out zones) clockwise, several outer rings allowed.  The engine fills a
rectangle, so a region becomes its bounding rectangle plus obstacles that
cover everything else: one frame (a rectangle around the box, with each
outer ring cut out of it) and one obstacle per hole.  The engine keeps every
island ``margin`` away from obstacles, as from each other; a ``padding``
wider than the margin grows the obstacles by the difference (a Minkowski sum
with a polygon around the disk, so the region shrinks by at least that).  A
narrower padding holds along the region's bounding box (the engine's own
padding) and elsewhere the margin does: the engine keeps one distance from
every obstacle, and no smaller obstacle keeps a padding below the margin
exactly at a convex corner of a hole (a hole shrunk by the difference lets
islands as close as the margin less 1.41 times that difference to its
corners).
"""
from __future__ import annotations

import math
from typing import List, Sequence, Tuple

import numpy as np

from . import _core
from .islands import ring_areas

__all__ = ["Region", "is_rectangle", "parse_region"]

#: sides of the polygon standing in for the disk that grows obstacles; the
#: polygon circumscribes the disk, so the growth is at least the radius
DISK_SIDES = 32
#: how far beyond the region's box the frame reaches (a share of its size)
FRAME_REACH = 0.25


class Region:
    """A polygon target: its rings, bounding box and area."""

    def __init__(self, rings: List[np.ndarray]) -> None:
        self.rings = rings
        pts = np.concatenate(rings)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        self.box: Tuple[float, float, float, float] = (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        self.area = float(ring_areas(rings).sum())

    def scaled(self, aspect: Tuple[float, float]) -> "Region":
        """The region in texel space (see ``packing._Options.aspect``)."""
        return Region([r * np.asarray(aspect) for r in self.rings])

    def obstacles(self, grow: float) -> List[List[np.ndarray]]:
        """Polygons (lists of rings) covering the box less the region,
        grown by at least ``grow`` >= 0."""
        x0, y0, x1, y1 = self.box
        reach = FRAME_REACH * max(x1 - x0, y1 - y0) + 2 * grow
        frame_ring = np.array([[x0 - reach, y0 - reach], [x1 + reach, y0 - reach],
                               [x1 + reach, y1 + reach], [x0 - reach, y1 + reach]])
        areas = ring_areas(self.rings)
        outer = [r for r, a in zip(self.rings, areas) if a > 0]
        holes = [r for r, a in zip(self.rings, areas) if a < 0]
        polys = [[frame_ring] + [r[::-1] for r in outer]] + [[r[::-1]] for r in holes]
        return [_grown(p, grow) for p in polys] if grow > 0 else polys


def _grown(rings: List[np.ndarray], by: float) -> List[np.ndarray]:
    """``rings`` grown by at least ``by``: the Minkowski sum with a regular
    polygon around the disk of radius ``by`` (the no-fit polygon of a
    centred, symmetric piece is that sum)."""
    k = np.arange(DISK_SIDES)
    radius = by / math.cos(math.pi / DISK_SIDES) * (1 + 1e-9)
    disk = radius * np.column_stack((np.cos(2 * math.pi * k / DISK_SIDES), np.sin(2 * math.pi * k / DISK_SIDES)))
    return [np.asarray(r, dtype=np.float64) for r in _core.nfp(rings, [disk], None)]


def _ring(value, k: int) -> np.ndarray:
    try:
        ring = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"target ring {k} is not an array of (u, v) points") from None
    if ring.ndim != 2 or ring.shape[1] != 2 or ring.shape[0] < 3:
        raise ValueError(f"target ring {k} must be an (n, 2) array with n >= 3, got shape {ring.shape}")
    if not np.isfinite(ring).all():
        raise ValueError(f"target ring {k} has NaN or infinite coordinates")
    return ring


def is_rectangle(target) -> bool:
    """Whether ``target`` is given as ``(x0, y0, x1, y1)``, not as rings."""
    try:
        arr = np.asarray(target, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return arr.ndim <= 1


def parse_region(target: Sequence) -> Region:
    """A :class:`Region` from rings (outer counter-clockwise, holes
    clockwise; a single ``(n, 2)`` array is one outer ring)."""
    one_ring = len(target) > 0 and np.ndim(target[0]) == 1   # a list of points, not of rings
    raw = [target] if one_ring else list(target)
    rings = [_ring(r, k) for k, r in enumerate(raw)]
    if not rings:
        raise ValueError("target has no rings")
    areas = ring_areas(rings)
    if (areas == 0).any():
        raise ValueError(f"target ring {int(np.flatnonzero(areas == 0)[0])} has no area")
    region = Region(rings)
    if not region.area > 0:
        raise ValueError("target rings enclose no area: outer rings go counter-clockwise, holes clockwise")
    return region
