"""The benchmark's independent checker on hand-made layouts, and the inputs it is fed."""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):  # plain `pytest` puts tests/ first on sys.path, not the repository
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.bench.checker import TOL, analyse, check_layout, face_islands  # noqa: E402
from tests.bench.common import Model, corners_to_indices  # noqa: E402
from tests.bench.peers_xatlas import padding_and_resolution  # noqa: E402
from tests.bench.puzzles import load_puzzle, puzzles_dir  # noqa: E402
from tests.bench.synthetic import generate, synthetic_model  # noqa: E402


def square(x: float, y: float, s: float) -> list:
    return [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]


def squares_model(*corners_sizes: tuple) -> Model:
    """One quad island per (x, y, side)."""
    uvs = np.array([p for (x, y, s) in corners_sizes for p in square(x, y, s)], dtype=float)
    faces = [[4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3] for i in range(len(corners_sizes))]
    return Model.from_faces("squares", "test", uvs, faces)


def test_valid_layout_has_exact_coverage():
    m = squares_model((0.0, 0.0, 0.4), (0.5, 0.0, 0.4))
    r = check_layout(m, m.uvs, 0.05, packer="hand")
    assert r.valid, r.violations
    assert r.coverage == pytest.approx(0.32, abs=1e-12)
    assert r.min_distance == pytest.approx(0.1)
    assert r.n_islands == 2 and r.n_groups == 2
    assert r.scale == pytest.approx(1.0)


def test_overlapping_pair_is_flagged_with_its_islands():
    m = squares_model((0.0, 0.0, 0.4), (0.6, 0.0, 0.3))
    out = m.uvs.copy()
    out[4:] -= [0.4, 0.0]  # second square now overlaps the first
    r = check_layout(m, out, 0.01, packer="bad")
    assert not r.valid
    assert r.coverage == 0.0
    assert r.raw_coverage > 0
    v = r.violations[0]
    assert v.kind == "overlap" and set(v.islands) == {0, 1}
    assert r.first_violation.startswith("[bad on squares] overlap")


def test_too_close_pair_is_flagged():
    m = squares_model((0.0, 0.0, 0.4), (0.403, 0.0, 0.4))
    r = check_layout(m, m.uvs, 0.005)
    assert not r.valid
    assert r.violations[0].kind == "too_close"
    assert r.violations[0].value == pytest.approx(0.003)
    # exactly the margin apart is fine, and so is a shortfall within the tolerance
    m2 = squares_model((0.0, 0.0, 0.4), (0.405 - TOL / 2, 0.0, 0.4))
    assert check_layout(m2, m2.uvs, 0.005).valid


def test_out_of_tile_is_flagged_but_tolerance_is_allowed():
    m = squares_model((0.0, 0.0, 0.4), (0.7, 0.7, 0.31))
    r = check_layout(m, m.uvs, 0.01)
    assert not r.valid
    assert [v.kind for v in r.violations] == ["outside_tile"]
    assert r.violations[0].islands == (1,)
    assert r.violations[0].value == pytest.approx(0.01)
    inside = squares_model((0.0, -TOL / 2, 0.4), (0.6, 0.6, 0.4 + TOL / 2))
    assert check_layout(inside, inside.uvs, 0.01).valid


def test_stacked_input_islands_may_stay_stacked():
    # islands 0 and 1 overlap in the input (distinct UV indices), island 2 is apart
    m = squares_model((0.0, 0.0, 0.3), (0.1, 0.1, 0.3), (0.6, 0.6, 0.2))
    isl = analyse(m)
    assert isl.n_islands == 3 and isl.n_groups == 2
    assert isl.island_group[0] == isl.island_group[1] != isl.island_group[2]
    out = m.uvs * 1.2  # moved together: still stacked, group apart from island 2
    r = check_layout(m, out, 0.01, islands=isl)
    assert r.valid, r.violations
    union = shapely.union_all([shapely.box(0, 0, 0.36, 0.36), shapely.box(0.12, 0.12, 0.48, 0.48)])
    assert r.coverage == pytest.approx(union.area + 0.24**2)  # union, not the sum of the stacked pair
    # but a group may not come close to another group
    out2 = out.copy()
    out2[8:] -= [0.24, 0.24]
    r2 = check_layout(m, out2, 0.01, islands=isl)
    assert not r2.valid and r2.violations[0].kind in ("overlap", "too_close")
    assert 2 in r2.violations[0].islands


def test_touching_input_islands_form_one_group_but_apart_ones_do_not():
    touching = squares_model((0.0, 0.0, 0.3), (0.3, 0.3, 0.2))
    assert analyse(touching).n_groups == 1
    apart = squares_model((0.0, 0.0, 0.3), (0.3 + 1e-4, 0.0, 0.2))
    assert analyse(apart).n_groups == 2


def test_island_in_a_hole_joins_the_holed_island():
    frame = [[0, 0], [0.5, 0], [0.5, 0.5], [0, 0.5], [0.1, 0.1], [0.4, 0.1], [0.4, 0.4], [0.1, 0.4]]
    ring = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]
    uvs = np.array(frame + square(0.2, 0.2, 0.1) + square(0.7, 0.7, 0.1), dtype=float)
    m = Model.from_faces("hole", "test", uvs, ring + [[8, 9, 10, 11], [12, 13, 14, 15]])
    isl = analyse(m)
    assert isl.n_islands == 3 and isl.n_groups == 2
    assert isl.island_group.tolist() == [0, 0, 1]  # the square in the hole joins the frame


def test_zero_margin_allows_touching_but_not_overlap():
    m = squares_model((0.0, 0.0, 0.5), (0.6, 0.0, 0.5))
    out = m.uvs.copy()
    out[4:] -= [0.1, 0.0]  # now touching along x = 0.5
    r = check_layout(m, out, 0.0)
    assert r.valid and r.coverage == pytest.approx(0.5)
    out[4:] -= [1e-3, 0.0]
    r = check_layout(m, out, 0.0)
    assert not r.valid and r.violations[0].kind == "overlap"


def test_deformed_and_rescaled_islands_are_invalid_but_rigid_motion_and_mirror_are_fine():
    m = squares_model((0.0, 0.0, 0.2), (0.5, 0.0, 0.2), (0.0, 0.5, 0.2))
    theta = 0.7
    rot = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    moved = m.uvs @ rot.T * 1.3 + [0.3, 0.0]
    moved[4:8, 0] = 1.2 - moved[4:8, 0]  # mirror island 1 in place
    assert check_layout(m, moved - moved.min(axis=0), 0.01).valid
    deformed = moved - moved.min(axis=0)
    deformed[2] += [0.01, 0.0]
    r = check_layout(m, deformed, 0.01)
    assert [v.kind for v in r.violations] == ["deformed"] and r.violations[0].islands == (0,)
    rescaled = moved - moved.min(axis=0)
    c = rescaled[8:12].mean(axis=0)
    rescaled[8:12] = c + (rescaled[8:12] - c) * 0.9
    r = check_layout(m, rescaled, 0.01)
    assert [v.kind for v in r.violations] == ["scale"] and r.violations[0].islands == (2,)


def test_zero_area_bridge_keeps_islands_rigid_together():
    # two triangles joined only through a degenerate (collinear) quad sharing an edge with each
    uvs = np.array([[0, 0], [0.2, 0], [0, 0.2], [0.4, 0], [0.6, 0], [0.6, 0.2]], dtype=float)
    m = Model.from_faces("bridge", "test", uvs, [[0, 1, 2], [3, 4, 5], [0, 1, 3, 4]])
    isl = analyse(m)
    assert isl.n_islands == 1 and not isl.face_ok[2]
    assert check_layout(m, uvs + 0.1, 0.01).valid
    apart = uvs + 0.1
    apart[3:] += [0.2, 0.1]  # the two triangles move apart: the bridge face is stretched
    r = check_layout(m, apart, 0.01)
    assert not r.valid and r.violations[0].kind == "deformed"


def test_non_finite_uvs_are_invalid():
    m = squares_model((0.0, 0.0, 0.2), (0.5, 0.5, 0.2))
    out = m.uvs.copy()
    out[5] = np.nan
    r = check_layout(m, out, 0.01)
    assert not r.valid and r.violations[0].kind == "nan" and r.violations[0].islands == (1,)


def test_faces_meeting_at_a_vertex_may_be_split_but_edge_neighbours_may_not():
    # triangles 0 and 1 share only UV index 1; triangle 2 shares the edge 3-4 with triangle 1
    uvs = np.array([[0, 0], [0.2, 0], [0, 0.2], [0.4, 0], [0.2, 0.2], [0.4, 0.2]], dtype=float)
    m = Model.from_faces("split", "test", uvs, [[0, 1, 2], [1, 3, 4], [3, 5, 4]])
    isl = analyse(m)
    assert isl.n_islands == 2 and isl.n_groups == 1  # separate islands, touching: one group
    corners = uvs[m.face_idx] + 0.1
    assert check_layout(m, None, 0.01, corner_uvs=corners).valid  # kept together, as uvnest does
    split = corners.copy()
    split[3:] += [0.3, 0.3]  # second island moved away, vertex 1 split in two, as Blender does
    folded, spread = corners_to_indices(m.face_idx, split, len(uvs))
    assert spread == pytest.approx(math.hypot(0.3, 0.3))
    assert np.allclose(folded[0], [0.1, 0.1])
    assert check_layout(m, None, 0.01, corner_uvs=split).valid
    torn = corners.copy()
    torn[6:] += [0.3, 0.3]  # the edge neighbours come apart: a shared edge is torn
    r = check_layout(m, None, 0.01, corner_uvs=torn)
    assert not r.valid and r.violations[0].kind == "deformed" and r.violations[0].islands == (1,)


def test_face_islands_follow_shared_edges():
    face_sizes = np.array([3, 3, 3, 4, 3])
    # 0-1 share edge 1-2; 2 shares only index 2 with face 1; 3 shares edge 6-7 (reversed) with 2;
    # 4 repeats a corner and touches nothing
    face_idx = np.array([0, 1, 2, 2, 1, 3, 2, 6, 7, 7, 6, 8, 9, 10, 10, 11])
    face_island, n = face_islands(face_sizes, face_idx, 12)
    assert n == 3
    assert face_island.tolist() == [0, 0, 1, 1, 2]


def test_fan_triangles_of_ngons():
    m = Model.from_faces("ngon", "test", np.zeros((7, 2)), [[0, 1, 2, 3, 4], [4, 5, 6]])
    assert m.triangles().tolist() == [[0, 1, 2], [0, 2, 3], [0, 3, 4], [4, 5, 6]]


def test_xatlas_padding_gives_exactly_the_margin():
    assert padding_and_resolution(0.005) == (3, 1200)
    assert padding_and_resolution(0.0) == (0, 1024)
    for m in (0.001, 0.002, 0.0037, 0.01, 0.03):
        padding, resolution = padding_and_resolution(m)
        assert padding >= 1
        assert 2 * padding / resolution == pytest.approx(m, rel=2e-3)


def test_synthetic_sets_are_deterministic_valid_inputs():
    uvs_a, faces_a = generate(100, seed=3)
    uvs_b, faces_b = generate(100, seed=3)
    assert np.array_equal(uvs_a, uvs_b) and all(np.array_equal(a, b) for a, b in zip(faces_a, faces_b))
    assert not np.array_equal(generate(100, seed=4)[0][:10], uvs_a[:10])
    m = synthetic_model(100, seed=3)
    isl = analyse(m)
    assert isl.n_islands == 100 and isl.n_groups == 100  # no island touches another in the input
    sizes = np.sort(isl.input_area)
    assert sizes[-1] / sizes[len(sizes) // 2] > 5  # a few large, many small
    assert {3, 4} <= set(m.face_sizes.tolist())  # triangles and quad strips


def test_checker_handles_a_thousand_islands_quickly():
    m = synthetic_model(1000, seed=0)
    scaled = m.uvs / (m.uvs.max() * 1.001)
    t0 = time.perf_counter()
    r = check_layout(m, scaled, 1e-4)
    assert r.valid, r.first_violation
    assert time.perf_counter() - t0 < 10.0


def test_puzzles_become_non_overlapping_unit_area_islands():
    m = load_puzzle(puzzles_dir() / "dighe1.json")
    isl = analyse(m)
    assert m.rotation == "none" and m.margin == 0.0 and m.optimum == 1.0
    assert isl.n_islands == isl.n_groups == 16
    assert isl.input_area.sum() == pytest.approx(1.0)
    assert load_puzzle(puzzles_dir() / "terashima1-TA001-bin0.json").rotation == "any"


def test_scale_ratio_allows_that_spread_and_no_more():
    m = squares_model((0.0, 0.0, 0.2), (0.5, 0.0, 0.2), (0.0, 0.5, 0.2))
    out = m.uvs.copy()
    out[4:8] = (out[4:8] - [0.5, 0.0]) * 1.5 + [0.5, 0.0]      # the second square 1.5 times as large
    assert not check_layout(m, out, 0.01).valid                 # one common scale: invalid
    assert check_layout(m, out, 0.01, scale_ratio=1.6).valid
    r = check_layout(m, out, 0.01, scale_ratio=1.3)
    assert not r.valid and r.violations[0].kind == "scale"


def test_islands_of_one_stack_may_overlap_but_not_the_others():
    m = squares_model((0.0, 0.0, 0.3), (0.5, 0.0, 0.3), (0.0, 0.5, 0.3))
    out = m.uvs.copy()
    out[4:8] -= [0.5, 0.0]                                      # the second square on the first
    assert not check_layout(m, out, 0.01).valid
    r = check_layout(m, out, 0.01, island_stack=np.array([0, 0, -1]))
    assert r.valid and r.coverage == pytest.approx(0.18)       # the stack counts once
    out[8:12] = out[:4] + [0.1, 0.0]                             # the third one over it too: not stacked
    assert not check_layout(m, out, 0.01, island_stack=np.array([0, 0, -1])).valid
