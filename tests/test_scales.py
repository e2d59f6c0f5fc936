"""Bounded mixed scales, ``max_scale_ratio`` (issue 31, point 4).

Oracle: shapely (tests/pack_checker.py) for the margin, the target and the
transforms reproducing the output; the scale bound and the coverage gain
are measured on the transforms and on shapely's coverage.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest

import uvnest
from tests.pack_checker import check_pack


def rectangles(sizes: List[Tuple[float, float]]) -> Tuple[np.ndarray, List[List[int]]]:
    uvs, faces = [], []
    for k, (w, h) in enumerate(sizes):
        faces.append(list(range(4 * k, 4 * k + 4)))
        uvs.append(np.array([[0, 0], [w, 0], [w, h], [0, h]]) + [k % 6 * 1.2, k // 6 * 1.2])
    return np.concatenate(uvs), faces


def dominated() -> Tuple[np.ndarray, List[List[int]]]:
    """One long island that limits the common scale by its length, and 30
    small ones."""
    rng = np.random.default_rng(3)
    return rectangles([(1.0, 0.3)] + [tuple(rng.uniform(0.03, 0.1, 2)) for _ in range(30)])


def checked(result, uvs, faces, margin: float):
    rep = check_pack(result, uvs, faces, margin=margin, fit=False)
    assert rep.ok, rep.describe()
    return rep


@pytest.mark.parametrize("ratio", [1.5, 2.0])
def test_small_islands_grow_into_the_room_a_long_island_leaves(ratio: float) -> None:
    uvs, faces = dominated()
    common = uvnest.pack(uvs, faces, iterations=300, time_limit=None, seed=1)
    mixed = uvnest.pack(uvs, faces, iterations=300, time_limit=None, seed=1, max_scale_ratio=ratio)
    checked(common, uvs, faces, 0.001)
    rep = checked(mixed, uvs, faces, 0.001)
    assert rep.coverage == pytest.approx(mixed.coverage, abs=1e-6)
    assert mixed.coverage >= 1.03 * common.coverage
    scales = np.array([t.scale for t in mixed.transforms])
    assert scales.max() / scales.min() <= ratio * (1 + 1e-12)
    assert mixed.scale_ratio == pytest.approx(scales.max() / scales.min())
    assert scales[0] == scales.min()   # the long island keeps the common scale
    assert mixed.scale_ratio > 1.2


def test_islands_of_one_size_keep_one_scale() -> None:
    uvs, faces = rectangles([(0.2, 0.2)] * 12)
    result = uvnest.pack(uvs, faces, iterations=50, time_limit=None, max_scale_ratio=2.0)
    assert result.scale_ratio == 1.0
    checked(result, uvs, faces, 0.001)


@pytest.mark.parametrize("bad", [0.5, float("nan"), float("inf"), "2", True])
def test_max_scale_ratio_rejects_bad_values(bad) -> None:
    uvs, faces = dominated()
    with pytest.raises(ValueError, match="max_scale_ratio"):
        uvnest.Packer(uvs, faces, max_scale_ratio=bad)


def test_max_scale_ratio_needs_scale_fit() -> None:
    uvs, faces = dominated()
    with pytest.raises(ValueError, match="scale='fit'"):
        uvnest.Packer(uvs, faces, max_scale_ratio=2.0, scale="fixed")
