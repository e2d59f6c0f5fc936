"""Box mode (``shape='box'``): the islands' bounding rectangles packed by
the skyline or on shelves."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from uvnest.pack_inputs import min_area_rectangles  # noqa: E402
from tests.pack_checker import assert_box_layouts_kept, assert_valid  # noqa: E402
from tests.pack_shapes import _rects  # noqa: E402


def test_min_area_rectangles_hold_every_point_at_the_smallest_area():
    """Random point sets of 3 to 8 points (batched by hull size), a circle
    of 3,000 points (its edges a batch at a time), a point and a diagonal
    segment: each rectangle is a rectangle holding every point, of
    shapely's minimum rotated rectangle's area (up to the hull's outward
    rounding); the point (whose hull has no area) gets its box as given."""
    rng = np.random.default_rng(7)
    outlines = [[rng.random((int(rng.integers(3, 9)), 2)) * 10 - 5] for _ in range(300)]
    ang = np.linspace(0, 2 * np.pi, 3000, endpoint=False)
    outlines.append([np.column_stack([np.cos(ang), np.sin(ang)]) * 3 + 7])
    outlines += [[np.full((3, 2), 0.25)], [np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])]]
    rects = min_area_rectangles(outlines)
    assert rects.shape == (len(outlines), 4, 2) and np.all(np.isfinite(rects))
    for rect, rings in zip(rects[:-2], outlines[:-2]):
        pts = shapely.MultiPoint(np.concatenate(rings))
        poly = shapely.Polygon(rect)
        sides = np.diff(np.vstack([rect, rect[:1]]), axis=0)
        assert abs(float(np.dot(sides[0], sides[1]))) <= 1e-9 * float(np.dot(sides[0], sides[0]))  # right angle
        assert poly.contains(pts) or poly.buffer(1e-12).contains(pts)
        best = shapely.minimum_rotated_rectangle(pts).area
        assert poly.area <= best * (1 + 1e-6) + 1e-12, (poly.area, best)
    assert np.allclose(rects[-2], 0.25)
    assert shapely.Polygon(rects[-1]).buffer(1e-12).contains(shapely.MultiPoint(outlines[-1][0]))


def test_box_mode_packs_turned_strips_by_their_smallest_rectangles():
    """Forty thin strips (8:1 to 20:1) turned at random angles.  Packed by
    their bounding boxes as given (at any quarter turn: the same area), the
    boxes at scale s fill at most the unit square, s^2 * sum(boxes) <= 1, so
    the coverage s^2 * sum(areas) is at most sum(areas) / sum(boxes).  Box
    mode with rotation any must beat that bound by far: only the strips'
    smallest rectangles (turned upright) reach it.  The layout is valid."""
    uvs, faces, as_given_bound = _turned_strips()
    res = uvnest.pack(uvs, faces, shape="box", rotation="any", margin=0.002, iterations=0, time_limit=None)
    assert res.coverage > 3 * as_given_bound, (res.coverage, as_given_bound)
    assert_valid(res, uvs, faces, margin=0.002, rotation="any")


def test_box_mode_packs_turned_strips_by_their_smallest_rectangles_in_group_clusters():
    """The same with three affinity groups packed together (each group a
    cluster first): the clusters' strips too (0.12 before, 0.76 after)."""
    uvs, faces, as_given_bound = _turned_strips()
    groups = np.arange(len(faces)) % 3
    res = uvnest.pack(uvs, faces, shape="box", rotation="any", margin=0.002, groups=groups,
                      group_layout="together", time_limit=2)
    assert res.coverage > 3 * as_given_bound, (res.coverage, as_given_bound)
    assert_valid(res, uvs, faces, margin=0.002, rotation="any")


def _turned_strips():
    """Forty strips 8:1 to 20:1 at random angles, and the bound on the
    coverage of any packing of their boxes as given: the sum of their areas
    over the sum of their boxes' (the boxes at scale s fill at most the
    unit square)."""
    rng = np.random.default_rng(3)
    uvs, faces = _rects([(rng.uniform(0.8, 2.0), 0.1, rng.uniform(10, 80)) for _ in range(40)])
    quads = [shapely.Polygon(uvs[f]) for f in faces]
    return uvs, faces, sum(q.area for q in quads) / sum(shapely.box(*q.bounds).area for q in quads)


def test_box_layouts_are_tried_above_the_bisected_counts():
    """320 strips at random angles, more islands than are bisected at the
    start (BISECT_AT_START, 300), so the first layout is a quick fill.  On
    the first move the packer tries its box layouts (the islands' smallest
    rectangles, skyline and shelves), which pack strips tighter than that
    fill: after it the best is at least shape box's layout, valid."""
    uvs, faces = _many_turned_strips()
    assert_box_layouts_kept(uvs, faces, 1, margin=0.002, rotation="any", threads=1)


def test_the_quick_box_layout_packs_smallest_rectangles():
    """With a time limit too short for the exact first layout, the layout
    given at once (the box layout) packs the 320 turned strips' smallest
    rectangles: above 3 times the bound of their boxes as given (0.82
    against 0.19; 0.17 before), valid."""
    uvs, faces = _many_turned_strips()
    quads = [shapely.Polygon(uvs[f]) for f in faces]
    as_given_bound = sum(q.area for q in quads) / sum(shapely.box(*q.bounds).area for q in quads)
    packer = uvnest.Packer(uvs, faces, margin=0.002, rotation="any", threads=1, time_limit=0.01)
    assert not packer.exact, "the exact first layout was ready: the test shows nothing"
    assert packer.best.kind == "box"
    assert packer.best.coverage > 3 * as_given_bound, (packer.best.coverage, as_given_bound)
    assert_valid(packer.best, uvs, faces, margin=0.002, rotation="any")


def _many_turned_strips():
    """320 strips (6:1 to 25:1) at random angles: more islands than are
    bisected at the start."""
    rng = np.random.default_rng(5)
    return _rects([(rng.uniform(0.5, 1.0), rng.uniform(0.04, 0.08), rng.uniform(0, 180)) for _ in range(320)])
