"""The benchmark's coverage bound (tests/bench/bounds.py): exact on shapes
whose smallest square is known, never above a brute-force search, and never
below what a real packing reaches."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.bench.bounds import STEP_DEG, coverage_bound, smallest_square_side  # noqa: E402


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
