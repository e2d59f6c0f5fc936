"""One face with very many corners (issue 26: an OBJ with a single
300,000-corner ``f`` line stalled the CLI for over 180 s, although io.load
read it at once).  The outline tested every pair of the face's edges for a
crossing, and located every corner the cleaned face lost in a scan of the
face; both go through a box tree of the edges now.
"""
from __future__ import annotations

import time

import numpy as np
import pytest
import shapely

import uvnest
from uvnest import geometry


def wavy_circle(n: int) -> np.ndarray:
    """n corners of a simple, non-convex ring around (0.5, 0.5)."""
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    r = 0.4 + 0.05 * np.sin(7.0 * t)
    return np.stack([0.5 + r * np.cos(t), 0.5 + r * np.sin(t)], axis=1)


def outline_seconds(n: int) -> float:
    """Best of three timings of the island (outline and needles) of one
    n-corner face; on the grid some of its corners are collinear, so the
    cleaned face loses them and each lost corner is located."""
    uvs = wavy_circle(n)
    faces = [np.arange(n)]
    best = np.inf
    for _ in range(3):
        t0 = time.perf_counter()
        uvnest.find_islands(uvs, faces)
        best = min(best, time.perf_counter() - t0)
    return best


def test_outline_of_one_huge_face_scales_near_linearly() -> None:
    # 8x the corners: quadratic work takes 64x as long (before the fix,
    # 0.04 s -> 2.6 s for the crossing test alone; locating the lost corners
    # was quadratic too), O(n log n) work about 10x.  The bound leaves
    # room for a loaded machine without letting quadratic work through.
    small, large = outline_seconds(4_000), outline_seconds(32_000)
    assert large < 25.0 * max(small, 1e-3), (small, large)


def test_outline_of_one_huge_face_is_the_face() -> None:
    uvs = wavy_circle(20_000)
    rings = geometry.outline(uvs, [np.arange(len(uvs))])
    assert len(rings) == 1
    got, want = shapely.Polygon(rings[0]), shapely.Polygon(uvs)
    # every vertex is rounded to the grid of 2^-27 of the largest coordinate
    assert got.symmetric_difference(want).area < want.length * 2.0**-26


def fan(uvs: np.ndarray) -> shapely.Geometry:
    """What the outline covers for a face that crosses itself: the union of
    the triangles of its fan from the first corner."""
    tris = [shapely.Polygon([uvs[0], uvs[i], uvs[i + 1]]) for i in range(1, len(uvs) - 1)]
    return shapely.union_all([t for t in tris if t.area > 0])


@pytest.mark.parametrize("seed", range(20))
def test_crossing_faces_are_found_among_many_edges(seed: int) -> None:
    # Random rings of 5 to 300 corners (15 of the 20 cross themselves, 5 do
    # not): the box tree must find every crossing a scan over all pairs finds.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    t = np.sort(rng.uniform(0, 2 * np.pi, n))
    uvs = np.stack([np.cos(t), np.sin(t)], axis=1) * rng.uniform(0.2, 1.0, (n, 1))
    swaps = int(rng.integers(0, 3))
    for _ in range(swaps):  # swapping two corners of a star-shaped ring makes it cross itself
        i, j = rng.choice(n, 2, replace=False)
        uvs[[i, j]] = uvs[[j, i]]
    ring = shapely.LinearRing(uvs)
    want = shapely.Polygon(uvs) if ring.is_simple else fan(uvs)
    got = shapely.union_all([shapely.Polygon(r) for r in geometry.outline(uvs, [np.arange(n)])])
    assert abs(got.area - want.area) < ring.length * 2.0**-24, (ring.is_simple, got.area, want.area)
