"""What ``uvnest.pack`` returns is checked on the output faces themselves
(issue 26): slivers, needles and collapsed islands stay in the target and
keep the margin, collapsed islands move with the island they lie in, and
valid input never raises an internal error.  Judged by the independent
shapely checker (tests/pack_checker.py), zero-area faces as the segments or
points they are."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from uvnest import packing  # noqa: E402
from tests.pack_checker import assert_valid  # noqa: E402


def _square(x, y, side=1.0):
    return np.array([[x, y], [x + side, y], [x + side, y + side], [x, y + side]], float)


def test_a_sliver_from_a_corner_stays_in_the_tile_and_keeps_the_margin():
    """Issue 26's example: a sliver of area 1.2e-9 from the square's corner
    (1, 1) to (1.8, 1.8) was below the outline grid, left out of the island,
    and its tip landed at (1.395, 1.397)."""
    uvs = np.vstack([_square(0, 0), [[1.8, 1.8 + 3e-9]], _square(3, 0), [[1.8, 1.8]]])
    faces = [[0, 1, 2, 3], [2, 9, 4], [5, 6, 7, 8]]   # (1, 1) -> (1.8, 1.8) -> (1.8, 1.8 + 3e-9)
    res = uvnest.pack(uvs, faces, margin=0.01, rotation="none", iterations=0, time_limit=None)
    assert_valid(res, uvs, faces, margin=0.01, rotation="none")
    assert (res.uvs[[0, 1, 2, 3, 4, 9]] <= 1.0).all()


@pytest.mark.parametrize("kind", ["spike", "needle"])
def test_needles_sticking_out_keep_the_margin_to_their_neighbours(kind):
    """A needle (zero-area face) or a spike (a face doubling back) from the
    corner of each of several squares: every face stays in the tile and
    keeps the margin, whatever the search does."""
    rng = np.random.default_rng(3)
    uvs, faces = [], []
    for k in range(6):
        base = sum(len(u) for u in uvs)
        a = rng.uniform(0, 2 * np.pi)
        tip = np.array([1.0, 1.0]) + rng.uniform(0.3, 1.0) * np.array([np.cos(a), np.sin(a)])
        sq = _square(0, 0) + 3 * k
        pts = np.vstack([sq, tip + 3 * k, (tip + 3 * k) * (1 + (1e-12 if kind == "spike" else 0))])
        uvs.append(pts)
        faces += [[base, base + 1, base + 2, base + 3]]
        faces += [[base + 2, base + 4, base + 5]] if kind == "spike" else [[base + 2, base + 4, base + 2]]
    uvs = np.vstack(uvs)
    for rotation in ("none", "any"):
        res = uvnest.pack(uvs, faces, margin=0.02, rotation=rotation, iterations=30, time_limit=None, seed=1)
        assert_valid(res, uvs, faces, margin=0.02, rotation=rotation)


def test_collapsed_islands_inside_another_move_with_it():
    """Issue 26's game model: 180 stacked full-tile quads and collapsed
    islands (a segment, a point) inside them or on their border.  They were
    packed as islands of their own (coverage 0.64 to 0.73); now they merge
    with the quads under merge_overlapping and keep their place: one rigid
    move, the stack fills the tile."""
    uvs = [_square(0, 0)] * 180 + [np.array([[0.2, 0.3], [0.6, 0.7], [0.4, 0.5]]),  # a segment inside
                                 np.array([[0.5, 0.5]] * 3),                          # a point inside
                                 np.array([[1.0, 0.2], [1.0, 0.8], [1.0, 0.5]])]      # a segment on the border
    faces, base = [], 0
    for u in uvs:
        faces.append(list(range(base, base + len(u))))
        base += len(u)
    uvs = np.vstack(uvs)
    islands = uvnest.find_islands(uvs, faces)
    assert len(islands) == 1 and islands[0].members == tuple(range(183))
    res = uvnest.pack(uvs, faces, margin=0.01, rotation="none", iterations=0, time_limit=None)
    assert_valid(res, uvs, faces, margin=0.01, rotation="none", separated=False)
    # one rigid move: every UV keeps its offset from the first corner
    np.testing.assert_allclose((res.uvs - res.uvs[0]) / res.scale, uvs - uvs[0], atol=1e-9)
    assert res.coverage > 0.99


def test_collapsed_islands_elsewhere_take_only_margin_room():
    """A point and a short segment away from the square pack as what they
    are (the segment along the square's top): the square keeps almost the
    whole tile."""
    uvs = np.vstack([_square(0, 0), [[5, 5]] * 3, [[7, 7], [7.05, 7], [7.1, 7]]])
    faces = [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    res = uvnest.pack(uvs, faces, margin=0.005, rotation="none", iterations=0, time_limit=None)
    assert_valid(res, uvs, faces, margin=0.005, rotation="none")
    alone = uvnest.pack(_square(0, 0), [[0, 1, 2, 3]], margin=0.005, rotation="none", iterations=0, time_limit=None)
    assert res.coverage > 0.9 * alone.coverage


@pytest.mark.parametrize("margin", [0.0, 1e-3])
@pytest.mark.parametrize("thickness", [1e-8, 1e-9])
def test_two_thin_rectangles_at_a_fixed_scale_pack(margin, thickness):
    """Issue 26: two thin rectangles, scale='fixed', rotation none, no
    moves raised 'start: internal consistency check failed': thinner than
    the engine's grid (2**-24 of the tile), they rounded flat, and a flat
    shape grew from one point only (the layout then failed its check)."""
    t = thickness
    uvs = np.vstack([np.array([[0, 0], [0.9, 0], [0.9, t], [0, t]]),
                     np.array([[0, 1], [t, 1], [t, 1.9], [0, 1.9]])])
    faces = [[0, 1, 2, 3], [4, 5, 6, 7]]
    res = uvnest.pack(uvs, faces, scale="fixed", margin=margin, rotation="none", iterations=0, time_limit=None)
    assert_valid(res, uvs, faces, margin=margin, rotation="none", fit=False, tiles=True)


@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_thin_islands_and_segments_fit_at_the_scale_their_length_needs(margin):
    """Islands with next to no area (a 0.56 x 1e-4 box, a lone segment)
    said 'cannot fit': the engine's grid was sized by area alone and could
    not reach the container their length needs."""
    uvs = np.array([[0, 0], [0.56, 0], [0.56, 1e-4], [0, 1e-4], [2, 2], [2.4, 2.6], [2.8, 3.2]], float)
    faces = [[0, 1, 2, 3], [4, 5, 6]]
    for rotation in ("none", "90"):
        res = uvnest.pack(uvs, faces, margin=margin, rotation=rotation, iterations=0, time_limit=None)
        assert_valid(res, uvs, faces, margin=margin, rotation=rotation)


def test_the_final_check_raises_rather_than_return_a_shape_that_misses_a_needle(monkeypatch):
    """The check on the output can fail: packed as the outline without its
    needle strips (the old outline, geometry.outline), the sliver of the
    issue's example escapes its shape and pack raises instead of returning
    the layout."""
    uvs = np.vstack([_square(0, 0), [[1.8, 1.8 + 3e-9]], _square(3, 0), [[1.8, 1.8]]])
    faces = [[0, 1, 2, 3], [2, 9, 4], [5, 6, 7, 8]]
    real = packing.packing_shapes

    def without_needles(islands, shape, align):
        islands = list(islands)
        for isl, (rings, area) in zip(islands, real(islands, shape, align)):
            faces_of = [faces[f] for f in isl.faces]
            yield (uvnest.geometry.outline(uvs, faces_of) if shape == "concave" else rings), area

    monkeypatch.setattr(packing, "packing_shapes", without_needles)
    with pytest.raises(RuntimeError, match="final check"):
        uvnest.pack(uvs, faces, margin=0.01, rotation="none", iterations=0, time_limit=None)


def test_fixed_scale_needles_at_the_wall_get_a_valid_first_layout():
    """The slow fuzz tier's seed 100397: squares with needles at a fixed
    scale, snapped to texels: the first fit put two needle tips at the left
    wall 0.0063 apart (margin 0.0064 with the snapping), its final check
    rejected it, and the start raised 'internal consistency check failed'.
    The start now anneals on until a layout passes."""
    from tests.fuzz_inputs import make_case
    from tests.test_fuzz import run_case
    case = make_case(100397, 300)
    assert case.options.get("scale") == "fixed" and case.options.get("pixel_perfect")
    assert run_case(case) == ("valid", None)
