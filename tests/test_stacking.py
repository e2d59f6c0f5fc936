"""``stack_similar``: congruent islands packed as one (issue 31, point 1).

Oracles: shapely (tests/pack_checker.py) for the margin between stacks and
other islands, the target, and the transforms reproducing the output from the
input; shapely again for "the copies of a stack lie on one another".
"""
from __future__ import annotations

import math
from typing import List, Tuple

import numpy as np
import pytest
import shapely

import uvnest
from uvnest.stacking import find_stacks
from tests.pack_checker import assert_valid, face_components, island_geometries

#: an L of 4 triangles (not symmetric: a mirrored L is another shape)
L_SHAPE = np.array([[0, 0], [2, 0], [2, 1], [1, 1], [1, 3], [0, 3]], float) * 0.1
L_FACES = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 5]]
SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float) * 0.3
SQUARE_FACES = [[0, 1, 2], [0, 2, 3]]


def turned(points: np.ndarray, angle: float, mirrored: bool, offset) -> np.ndarray:
    p = points * np.array([-1.0, 1.0]) if mirrored else points
    c, s = math.cos(angle), math.sin(angle)
    return p @ np.array([[c, s], [-s, c]]) + np.asarray(offset, float)


def mesh(parts: List[Tuple[np.ndarray, list]]) -> Tuple[np.ndarray, list]:
    uvs: List[np.ndarray] = []
    faces: list = []
    n = 0
    for pts, fs in parts:
        faces += [[i + n for i in f] for f in fs]
        uvs.append(pts)
        n += len(pts)
    return np.concatenate(uvs), faces


def l_copies(count: int, seed: int = 1) -> Tuple[np.ndarray, list]:
    """``count`` Ls, each turned by a random angle and put somewhere; every
    odd one mirrored; then one square."""
    rng = np.random.default_rng(seed)
    parts = [(turned(L_SHAPE, rng.uniform(0, 2 * math.pi), k % 2 == 1, rng.uniform(0, 3, 2)), L_FACES)
             for k in range(count)]
    return mesh(parts + [(SQUARE + 5, SQUARE_FACES)])


def output_polygons(result, uvs, faces):
    comp, n = face_components(faces, len(uvs))
    return island_geometries(np.asarray(result.uvs), faces, comp, n)


def assert_stacked_copies_coincide(result, uvs, faces, tolerance: float) -> None:
    geoms = output_polygons(result, uvs, faces)
    for stack in result.stacks:
        first = geoms[stack.members[0]]
        for i in stack.members[1:]:
            # shapely's Hausdorff distance between the first copy and this one
            gap = shapely.hausdorff_distance(first, geoms[i])
            assert gap <= tolerance, (stack.members, i, gap)


def test_turned_copies_stack_and_mirrored_ones_only_with_flip() -> None:
    uvs, faces = l_copies(8)
    before = uvs.copy()
    plain = uvnest.pack(uvs, faces, iterations=200, time_limit=None, seed=3)
    assert plain.stacks == []
    stacked = uvnest.pack(uvs, faces, iterations=200, time_limit=None, seed=3, stack_similar=True)
    assert [s.members for s in stacked.stacks] == [(0, 2, 4, 6), (1, 3, 5, 7)]
    assert len(stacked.islands) == 9   # every island is still its own, with its own transform
    assert_valid(stacked, uvs, faces, margin=0.001, flip=False, stacks=[s.members for s in stacked.stacks])
    assert_stacked_copies_coincide(stacked, uvs, faces, 1e-9)
    assert stacked.scale > 1.3 * plain.scale   # 3 shapes to pack instead of 9
    mirrored = uvnest.pack(uvs, faces, iterations=200, time_limit=None, seed=3, stack_similar=True, flip=True)
    assert [s.members for s in mirrored.stacks] == [tuple(range(8))]
    assert_valid(mirrored, uvs, faces, margin=0.001, stacks=[s.members for s in mirrored.stacks])
    assert_stacked_copies_coincide(mirrored, uvs, faces, 1e-9)
    assert np.array_equal(uvs, before)


def test_alignments_put_each_copy_on_the_first() -> None:
    uvs, faces = l_copies(4, seed=5)
    islands = uvnest.find_islands(uvs, faces)
    stacks = find_stacks(uvs, islands, range(len(islands)), 1e-6, flip=True)
    assert [[i for i, _ in s] for s in stacks] == [[0, 1, 2, 3]]
    assert [m.flipped for _, m in stacks[0]] == [False, True, False, True]
    first = shapely.Polygon(uvs[islands[0].uv_indices])
    for i, m in stacks[0]:
        moved = m.apply(uvs[islands[i].uv_indices])
        assert shapely.hausdorff_distance(first, shapely.Polygon(moved)) < 1e-12


@pytest.mark.parametrize("shift, stacks", [(0.25, True), (2.0, False)])
def test_copies_stack_only_within_the_tolerance(shift: float, stacks: bool) -> None:
    """One copy has a corner moved by ``shift`` times the tolerance (of the
    island's size): it stacks below the tolerance and not above, and a
    stack of near-copies still keeps the margin for every copy."""
    tolerance = 1e-3
    size = 2 * float(np.hypot(*(L_SHAPE - L_SHAPE.mean(axis=0)).T).max())
    bent = L_SHAPE.copy()
    bent[4] += [shift * tolerance * size, 0.0]
    uvs, faces = mesh([(L_SHAPE, L_FACES), (turned(bent, 1.0, False, (2, 2)), L_FACES),
                       (SQUARE + 5, SQUARE_FACES)])
    result = uvnest.pack(uvs, faces, iterations=100, time_limit=None, stack_similar=tolerance, margin=0.01)
    assert [s.members for s in result.stacks] == ([(0, 1)] if stacks else [])
    assert_valid(result, uvs, faces, margin=0.01, stacks=[s.members for s in result.stacks])
    if stacks:   # the bent corner lies within the tolerance of the first copy's, at the packed scale
        assert_stacked_copies_coincide(result, uvs, faces, shift * tolerance * size * result.scale * 1.001)


def test_locked_islands_never_stack_and_keep_their_numbering() -> None:
    uvs, faces = l_copies(4, seed=2)
    result = uvnest.pack(uvs, faces, iterations=50, time_limit=None, stack_similar=True, flip=True,
                         locked=[0], target=(-1, -1, 8, 8))
    assert [s.members for s in result.stacks] == [(1, 2, 3)]
    assert_valid(result, uvs, faces, margin=0.001, locked=[0], target=(-1, -1, 8, 8),
                 stacks=[s.members for s in result.stacks])


def test_different_islands_and_islands_without_area_do_not_stack() -> None:
    line = np.array([[0, 0], [0.2, 0], [0.4, 0]])   # a collapsed triangle
    uvs, faces = mesh([(SQUARE, SQUARE_FACES), (SQUARE * 1.5 + 2, SQUARE_FACES), (L_SHAPE + 4, L_FACES),
                       (line + 6, [[0, 1, 2]]), (line + 7, [[0, 1, 2]])])
    result = uvnest.pack(uvs, faces, iterations=20, time_limit=None, stack_similar=0.01)
    assert result.stacks == []


@pytest.mark.parametrize("bad", [-0.1, 0.5, float("nan"), "yes", None])
def test_stack_similar_rejects_bad_values(bad) -> None:
    uvs, faces = l_copies(2)
    with pytest.raises(ValueError, match="stack_similar"):
        uvnest.Packer(uvs, faces, stack_similar=bad)
