"""Exact polygon geometry from the uvnest C core.

Polygons cross this boundary as lists of rings.  Each ring is an ``(n, 2)``
float64 array; outer rings run counter-clockwise and holes clockwise (input
rings may have either orientation: nesting decides which ring is a hole).
Rings are implicitly closed: do not repeat the first point.

Every function quantizes its input onto an integer grid whose step is a power
of two, about ``2**-27`` of the largest coordinate magnitude of the call, and
decides everything on that grid with exact integer predicates.  Results are
exact up to that step.

Touching counts as feasible: the boundary of a no-fit polygon is feasible,
and collision-free regions keep their degenerate parts - segments where a
piece fits exactly between obstacles, and single points where it fits in only
one position.  A degenerate region is returned as a ring that runs along the
segment and back (``[[x0, y0], [x1, y1]]``) or as a single point.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._faces import check_finite, check_uvs, faces_csr
from .errors import InputError, number, whole

Ring = np.ndarray
Rings = List[np.ndarray]
Region = List[np.ndarray]

__all__ = ["outline", "simplify", "convex_hull", "nfp", "ifp", "cfr", "cfr_from_nfps", "point_at", "overlaps",
           "Workspace", "box_angle", "turned"]

Workspace = _core.Workspace  # reusable scratch memory (its docstring: csrc/binding.c)


def _polygons(placed, name: str) -> list:
    """A list of polygons (each a list of rings), or a clear error."""
    if isinstance(placed, np.ndarray) or not isinstance(placed, (list, tuple)):
        raise InputError(f"{name} must be a list of polygons (each a list of rings), not {type(placed).__name__}",
                         name)
    return list(placed)


def outline(uvs, faces) -> Rings:
    """Outer boundary and holes of the union of ``faces`` (one island).

    ``uvs`` is an ``(N, 2)`` array; ``faces`` an ``(F, k)`` integer array or a
    list of index sequences (triangles, quads, n-gons).  Robust to
    T-junctions, duplicate vertices, zero-area faces and overlapping or folded
    faces.  Returns outer rings (counter-clockwise) and holes (clockwise).
    Faces that touch only at a corner give one ring that touches itself there.
    """
    uvs = check_uvs(uvs)
    start, idx = faces_csr(faces, len(uvs))
    check_finite(uvs, start, idx)
    return _core.outline(uvs, start, idx)


def simplify(rings: Sequence, tolerance: float, max_vertices: int) -> Tuple[Rings, float]:
    """Conservative simplification: the result contains the input.

    Removes vertices while the result stays within ``tolerance`` of the input,
    and further (beyond the tolerance) while it has more than
    ``max_vertices`` vertices (at least 4).  Returns ``(rings, deviation)``,
    the deviation being the largest distance actually used.
    """
    tolerance = number(tolerance, "tolerance")
    max_vertices = whole(max_vertices, "max_vertices", 4)
    # a budget beyond any ring the core accepts means "no budget"
    return _core.simplify(rings, tolerance, min(max_vertices, 2**31 - 1))


def convex_hull(rings: Sequence) -> Rings:
    """Convex hull of all points of ``rings``, as one counter-clockwise ring
    that contains them (moved out by one grid step to cover rounding)."""
    return _core.hull(rings)


def nfp(a: Sequence, b: Sequence, *, workspace: Optional[Workspace] = None) -> Rings:
    """No-fit polygon of ``b`` around ``a``.

    The translations ``t`` at which the interiors of ``a`` and ``b + t``
    overlap.  Its holes are the places where ``b`` fits inside a hole or pocket
    of ``a``; positions where they touch lie on its boundary and are feasible
    (zero-width slots are returned as rings that run there and back).
    """
    return _core.nfp(a, b, workspace)


def ifp(container: Sequence, piece: Sequence, *, workspace: Optional[Workspace] = None) -> List[Region]:
    """Inner-fit region: translations placing ``piece`` inside ``container``.

    ``container`` is any polygon; an axis-aligned rectangle is the fast case.
    Returns a list of regions (each a list of rings, outer first); empty when
    the piece does not fit.
    """
    return _core.ifp(container, piece, workspace)


def cfr(container: Sequence, placed: Sequence[Sequence], piece: Sequence, margin: float = 0.0, *,
        workspace: Optional[Workspace] = None) -> List[Region]:
    """Collision-free regions: the inner-fit region minus the no-fit polygons.

    ``placed`` is a list of polygons (lists of rings) already at their
    positions; the piece keeps at least ``margin`` from each (the margin disk
    is approximated from outside by a 32-gon, so the regions are at most 0.5%
    of the margin smaller than exact).  Regions are sorted by their leftmost
    point and each ring starts at its own leftmost point.
    """
    return _core.cfr(container, _polygons(placed, "placed"), piece, number(margin, "margin"), workspace)


def cfr_from_nfps(container: Sequence, nfps: Sequence[Sequence], piece: Sequence, *,
                  workspace: Optional[Workspace] = None) -> List[Region]:
    """Collision-free regions from no-fit polygons computed before.

    ``nfps`` holds, for each placed island, ``nfp(island, piece)`` computed
    with the island at the origin and moved by the island's translation (a
    no-fit polygon moves with its island and does not change otherwise).
    The result is that of ``cfr(container, placed, piece)`` with margin 0:
    the inner-fit region minus the union of ``nfps``.  This is how the
    packing engine works, with every no-fit polygon taken from its cache;
    a script that places many pieces among the same islands can do the same,
    passing one :class:`Workspace` to every call as the engine keeps one.
    """
    return _core.cfr_from_nfps(container, _polygons(nfps, "nfps"), piece, workspace)


def point_at(region: Sequence, r: float) -> Tuple[float, float]:
    """The point at fraction ``r`` in [0, 1) of a region's boundary length.

    Walks the outer ring counter-clockwise from its leftmost point, then the
    holes.  ``(f, r)`` of the packer's search are: region ``floor(f * m)`` of
    the ``m`` collision-free regions, then this point.
    """
    return _core.point_at(region, number(r, "r", None))


def overlaps(a: Sequence, b: Sequence, margin: float = 0.0) -> Tuple[bool, float]:
    """Exact check: do placed polygons ``a`` and ``b`` come closer than ``margin``?

    Returns ``(too_close, distance)``; ``distance`` is 0 when the interiors
    overlap.  Crossings and containment are decided exactly on the grid of the
    call; distances are compared with a tolerance of two grid steps.
    """
    return _core.overlaps(a, b, number(margin, "margin"))


def box_angle(points: np.ndarray, pose: str = "stand") -> float:
    """The turn (radians, counter-clockwise) that gives ``points`` their
    smallest bounding box, then stands it up (``'stand'``: at least as tall
    as wide) or lays it down (``'lie'``), as Blender's pack pre-rotates an
    island (``uv_pack.cc``, ``calculate_pre_rotation_``)."""
    hull = convex_hull([np.asarray(points, np.float64)])[0]
    edges = np.roll(hull, -1, axis=0) - hull
    theta = np.arctan2(edges[:, 1], edges[:, 0])
    c, s = np.cos(theta), np.sin(theta)
    x = hull[:, 0][None, :] * c[:, None] + hull[:, 1][None, :] * s[:, None]   # turned by -theta
    y = -hull[:, 0][None, :] * s[:, None] + hull[:, 1][None, :] * c[:, None]
    w, h = np.ptp(x, axis=1), np.ptp(y, axis=1)
    k = int(np.argmin(w * h))
    angle = -float(theta[k])
    if (pose == "stand" and w[k] > h[k]) or (pose == "lie" and h[k] > w[k]):
        angle += math.pi / 2
    return math.remainder(angle, 2 * math.pi)


def turned(uvs: np.ndarray, angle: float) -> np.ndarray:
    """``uvs`` turned by ``angle`` about the centre of their bounding box."""
    centre = (uvs.min(axis=0) + uvs.max(axis=0)) / 2
    c, s = math.cos(angle), math.sin(angle)
    d = uvs - centre
    return np.column_stack([d[:, 0] * c - d[:, 1] * s, d[:, 0] * s + d[:, 1] * c]) + centre
