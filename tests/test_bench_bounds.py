"""The benchmark's coverage bounds (tests/bench/bounds.py): the largest island
alone is exact on shapes whose smallest square is known and never above a
brute-force search; the pair bound is tight on pairs with a known packing
(two discs, two squares, a square in an L's notch, a bar across its corner,
a square in a donut's hole); neither is ever below what a real packing
reaches."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.bench.bounds import (STEP_DEG, convex_pieces, coverage_bound, pair_coverage_bound,  # noqa: E402
                                smallest_square_side)
from tests.geometry_oracle import signed_area  # noqa: E402


def rotated(p: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    return p @ np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])


SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


@pytest.mark.parametrize("deg", [0.0, 17.0, 30.0, 45.0, 81.3])
def test_a_turned_square_has_its_own_side(deg):
    side = smallest_square_side([rotated(SQUARE, deg)])
    assert 1 - 2e-3 < side <= 1 + 1e-12


def test_a_two_by_one_rectangle_alone_covers_half_the_tile():
    rect = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]])
    side = smallest_square_side([rotated(rect, 23.0)])
    assert 2 - 3e-3 < side <= 2 + 1e-12
    assert coverage_bound([[rect]], [2.0]) == pytest.approx(0.5, rel=3e-3)
    # unrotated, the turned rectangle needs its turned box
    turned = rotated(rect, 23.0)
    box = (turned.max(axis=0) - turned.min(axis=0)).max()
    assert smallest_square_side([turned], rotate=False) == pytest.approx(box)


def test_never_above_a_fine_search():
    rng = np.random.default_rng(3)
    ang = np.radians(np.arange(0, 90, 0.002))
    for _ in range(20):
        k = int(rng.integers(3, 12))
        p = rng.normal(size=(k, 2)) * rng.uniform(0.2, 3.0, 2)
        c, s = np.cos(ang)[:, None], np.sin(ang)[:, None]
        u = c * p[None, :, 0] - s * p[None, :, 1]
        v = s * p[None, :, 0] + c * p[None, :, 1]
        fine = np.maximum(u.max(1) - u.min(1), v.max(1) - v.min(1)).min()
        side = smallest_square_side([p])
        assert side <= fine + 1e-12
        r = np.hypot(*(p - p.mean(axis=0)).T).max()
        assert side >= fine - 2 * r * math.radians(STEP_DEG)


def test_real_packings_stay_below_the_bound():
    rng = np.random.default_rng(8)
    uvs, faces, x = [], [], 0.0
    for _ in range(6):
        w, h = rng.uniform(0.2, 1.0, 2)
        b = len(uvs)
        uvs += [[x, 0], [x + w, 0], [x + w, h], [x, h]]
        faces.append([b, b + 1, b + 2, b + 3])
        x += w + 0.1
    uvs = np.array(uvs)
    res = uvnest.pack(uvs, faces, margin=0.0, rotation="any", iterations=300, time_limit=None)
    islands = uvnest.find_islands(uvs, faces)
    bound = coverage_bound([i.outline for i in islands], [i.area for i in islands])
    assert res.coverage <= bound + 1e-9


# ----------------------------------------------------------- the pair bound

def regular(n: int, radius: float, centre=(0.0, 0.0)) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)]


def two_discs_scale(gap: float) -> float:
    """Largest scale of two discs of diameter 1 in the unit tile, ``gap``
    apart: centres in opposite corners, sqrt(2) (1 - 2r) = 2r + gap."""
    radius = (math.sqrt(2) - gap) / (2 * math.sqrt(2) + 2)
    return 2 * radius


@pytest.mark.parametrize("gap", [0.0, 0.02])
def test_two_discs_are_bounded_by_their_known_packing(gap):
    disc = regular(64, 0.5)
    area = signed_area(disc)
    alone = coverage_bound([[disc], [disc]], [area, area])
    bound = pair_coverage_bound([[disc], [disc]], [area, area], gap, seconds=8, known=alone)
    # the 64-gons lie inside the discs, so the discs' packing is reachable
    # (the bound counts a gap as its inscribed square, hence 2 % of slack)
    reachable = 2 * area * two_discs_scale(gap) ** 2
    assert alone == 1.0
    assert reachable <= bound <= reachable * 1.02


def test_two_squares_fit_at_half_scale():
    bound = pair_coverage_bound([[SQUARE], [SQUARE]], [1.0, 1.0], 0.0, seconds=5)
    assert 0.5 <= bound <= 0.51


def test_a_square_in_an_l_shapes_notch():
    # an L (a 2 x 2 square less its top right quarter) and a unit square fill
    # the tile at scale 1/2; the L becomes convex pieces that must stay rigid
    ell = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]])
    bound = pair_coverage_bound([[ell], [SQUARE]], [3.0, 1.0], 0.0, seconds=10)
    assert bound >= 4 * 0.5 ** 2 - 1e-9
    pieces = convex_pieces([ell], 1.0, True)
    union = shapely.union_all([shapely.Polygon(p) for p in pieces])
    assert union.area == pytest.approx(3.0) and union.equals(shapely.Polygon(ell))
    # a 2 x 1 bar is too long for the notch: side by side the two reach scale
    # 1/3, but across the far corner, its long side square to the diagonal,
    # the bar reaches s = 6 - 4 sqrt(2) = 0.343 (checked here with shapely)
    bar = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]])
    s = 6 - 4 * math.sqrt(2)
    d, h = 1 - s / math.sqrt(2), s / math.sqrt(2)  # the bar's outer side is centred on (d, d)
    across = np.array([[d + h, d - h], [d - h, d + h], [d - 2 * h, d], [d, d - 2 * h]])
    placed = [shapely.Polygon(s * ell), shapely.Polygon(across)]
    assert shapely.box(0, 0, 1, 1).buffer(1e-9).contains(shapely.union_all(placed))
    assert placed[0].intersection(placed[1]).area < 1e-12
    assert across.max() == pytest.approx(1.0)
    bound = pair_coverage_bound([[ell], [bar]], [3.0, 2.0], 0.0, seconds=10)
    assert 5 * s ** 2 <= bound <= 5 * s ** 2 * 1.01


def test_holes_the_other_island_could_use_are_kept():
    outer = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    big_hole = np.array([[0.2, 0.2], [0.2, 0.8], [0.8, 0.8], [0.8, 0.2]])  # clockwise
    small = 0.5 * SQUARE
    donut = [outer, big_hole]
    # the small square nests in the hole: scale 1 is reachable
    reachable = 1 - 0.36 + 0.25
    assert pair_coverage_bound([donut, [small]], [0.64, 0.25], 0.0, seconds=10) >= reachable - 1e-9
    # a hole smaller than the other island is filled: side by side, a + b <= 1
    tiny_hole = np.array([[0.4, 0.4], [0.4, 0.6], [0.6, 0.6], [0.6, 0.4]])
    other = 0.3 * SQUARE
    bound = pair_coverage_bound([[outer, tiny_hole], [other]], [0.96, 0.09], 0.0, seconds=10)
    assert 1.05 / 1.3 ** 2 - 1e-9 <= bound <= 1.05 / 1.3 ** 2 * 1.01
    assert len(convex_pieces([outer, tiny_hole], 0.09, True)) == 1
    assert len(convex_pieces([outer, tiny_hole], 0.09, False)) > 1  # the other may be in pieces: keep it


@pytest.mark.parametrize("seed", [1, 2])
def test_real_packings_stay_below_the_pair_bound(seed):
    rng = np.random.default_rng(seed)
    uvs, faces, x = [], [], 0.0
    for _ in range(4):
        # concave islands: L shapes of random proportions, as two quads
        w, h = rng.uniform(0.3, 1.0, 2)
        t = rng.uniform(0.2, 0.6) * min(w, h)
        b = len(uvs)
        uvs += [[x, 0], [x + w, 0], [x + w, t], [x + t, t], [x + t, h], [x, h]]
        faces += [[b, b + 1, b + 2, b + 3], [b, b + 3, b + 4, b + 5]]
        x += w + 0.1
    uvs = np.array(uvs)
    margin = 0.01
    res = uvnest.pack(uvs, faces, margin=margin, rotation="any", iterations=400, time_limit=None, seed=seed)
    islands = uvnest.find_islands(uvs, faces)
    outlines, areas = [i.outline for i in islands], [i.area for i in islands]
    bound = pair_coverage_bound(outlines, areas, margin, seconds=10, known=coverage_bound(outlines, areas))
    assert res.coverage <= bound + 1e-9


def test_islands_without_area_or_in_parts():
    # no outer ring (an island of zero-area faces): no pieces, and no pair bound
    assert convex_pieces([], 1.0, True) == []
    assert pair_coverage_bound([[], [SQUARE]], [0.0, 1.0], 0.0, seconds=1, known=0.7) == 0.7
    # two outer rings: the larger one stands for the island, with its own hole only
    big = 2.0 * SQUARE
    hole = np.array([[0.5, 0.5], [0.5, 1.5], [1.5, 1.5], [1.5, 0.5]])  # clockwise, inside `big`
    far = SQUARE + [5.0, 0.0]
    far_hole = np.array([[5.4, 0.4], [5.4, 0.6], [5.6, 0.6], [5.6, 0.4]])
    pieces = convex_pieces([far, far_hole, big, hole], 0.5, True)  # the other island fits in `hole`
    union = shapely.union_all([shapely.Polygon(p) for p in pieces])
    assert union.equals(shapely.Polygon(big, [hole]))
