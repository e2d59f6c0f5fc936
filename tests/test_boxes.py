"""Box mode (``shape='box'``): the islands' bounding rectangles packed by
the skyline or on shelves."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import shapely

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvnest  # noqa: E402
from tests.pack_checker import assert_valid  # noqa: E402
from tests.pack_shapes import _rects  # noqa: E402


def test_box_mode_packs_turned_strips_by_their_smallest_rectangles():
    """Forty thin strips (8:1 to 20:1) turned at random angles.  Packed by
    their bounding boxes as given (at any quarter turn: the same area), the
    boxes at scale s fill at most the unit square, s^2 * sum(boxes) <= 1, so
    the coverage s^2 * sum(areas) is at most sum(areas) / sum(boxes).  Box
    mode with rotation any must beat that bound by far: only the strips'
    smallest rectangles (turned upright) reach it.  The layout is valid."""
    rng = np.random.default_rng(3)
    strips = [(rng.uniform(0.8, 2.0), 0.1, rng.uniform(10, 80)) for _ in range(40)]
    uvs, faces = _rects(strips)
    quads = [shapely.Polygon(uvs[f]) for f in faces]
    areas = sum(q.area for q in quads)
    boxes = sum(shapely.box(*q.bounds).area for q in quads)
    as_given_bound = areas / boxes
    res = uvnest.pack(uvs, faces, shape="box", rotation="any", margin=0.002, iterations=0, time_limit=None)
    assert res.coverage > 3 * as_given_bound, (res.coverage, as_given_bound)
    assert_valid(res, uvs, faces, margin=0.002, rotation="any")
