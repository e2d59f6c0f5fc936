"""Regions from Blender scenes (``uvnest.blender.regions``) and the operator
packing into them, in real Blender 5.0.1 and 4.2 LTS (the bpy modules,
headless): the selected faces' outline in another UV map, and a curve's
shape, against shapely geometry built here from the raw data the script
read back (faces' UVs, Bezier control points)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import List

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.test_blender import VERSIONS, island_polygons, loop_model, run_script  # noqa: E402

pytestmark = pytest.mark.blender


def rings_of(d, prefix: str) -> List[np.ndarray]:
    return [d[k] for k in sorted((k for k in d.files if k.startswith(prefix)), key=lambda k: int(k.rsplit("_", 1)[1]))]


def as_shape(rings: List[np.ndarray]) -> shapely.Geometry:
    """Rings as uvnest gives them (outer counter-clockwise, holes clockwise), in shapely."""
    outer = [shapely.Polygon(r) for r in rings if shapely.Polygon(r).exterior.is_ccw]
    holes = [shapely.Polygon(r) for r in rings if not shapely.Polygon(r).exterior.is_ccw]
    return shapely.difference(shapely.union_all(outer), shapely.union_all(holes) if holes else shapely.Polygon())


def bezier_polygon(controls: np.ndarray, steps: int) -> shapely.Polygon:
    """The closed cubic Bezier spline through ``controls`` (rows: left
    handle, point, right handle), finely sampled."""
    t = np.linspace(0, 1, steps, endpoint=False)[:, None]
    pts = []
    for k in range(len(controls)):
        p0, p1 = controls[k, 2:4], controls[k, 4:6]
        nxt = controls[(k + 1) % len(controls)]
        p2, p3 = nxt[0:2], nxt[2:4]
        pts.append((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2 + t ** 3 * p3)
    return shapely.Polygon(np.concatenate(pts))


@VERSIONS
def test_regions_from_a_uv_map_and_a_curve(tmp_path, version: str) -> None:
    out = tmp_path / "regions.npz"
    result = run_script("pack_regions.py", str(out), version=version)
    d = np.load(out)
    # the selected faces' UVs: a square ring, the union of the faces
    sizes = d["face_sizes"]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    faces = [shapely.Polygon(d["face_uvs"][s:s + n]) for s, n in zip(starts, sizes)]
    expected = shapely.union_all(faces)
    got = as_shape(rings_of(d, "uv_ring_"))
    assert len(rings_of(d, "uv_ring_")) == 2   # the outer ring and the hole
    assert shapely.symmetric_difference(got, expected).area < 1e-9
    # in Edit Mode the edit mesh's selection counts: one corner face less
    edit = as_shape(rings_of(d, "edit_ring_"))
    assert shapely.symmetric_difference(edit, shapely.difference(expected, faces[0])).area < 1e-9
    # the curve: the circle (its Bezier spline, moved by the object) less the square hole
    controls = d["bezier"] + np.tile([0.5, 0.5], 3)
    disc = shapely.difference(bezier_polygon(controls, 400), shapely.box(0.4, 0.4, 0.6, 0.6))
    curve = as_shape(rings_of(d, "curve_ring_"))
    # sampled at the curve's resolution: chords fall inside the circle, by at most the sagitta
    # (the reference's own chords, 400 per quarter, and float32 points are within 1e-5)
    sagitta = 0.45 * (1 - np.cos(np.pi / (2 * (result["resolution"]))))
    assert curve.within(disc.buffer(1e-5))
    assert disc.difference(curve).area < 2 * np.pi * 0.45 * sagitta
    assert not curve.contains(shapely.Point(0.5, 0.5)) and curve.contains(shapely.Point(0.5, 0.1))
    # the operator packed into each region: every island inside it, out of its hole
    model = loop_model(d["vert"], d["face_sizes_packed"], d["uvs_curve"].astype(np.float64), "regions")
    for case, region in (("curve", curve), ("uv", expected)):
        assert result[case] == ["FINISHED"], result
        polys = island_polygons(model, d[f"uvs_{case}"].astype(np.float64))
        assert len(polys) == 12
        for k, poly in enumerate(polys):
            assert region.buffer(1e-6).contains(poly), f"{case}: island {k} leaves the region"
        assert shapely.union_all(polys).area > 0.2 * region.area   # scaled to fill, not left small
    assert "Pick the curve object" in result["missing"]
    # Keep Together: each object's islands in a region of their own, the regions apart
    assert result["together"] == ["FINISHED"]
    uvs = d["uvs_together"].astype(np.float64)
    sizes = d["face_sizes_together"]
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    faces = [shapely.Polygon(uvs[s:s + n]) for s, n in zip(starts, sizes)]
    hulls = [shapely.union_all([f for f, o in zip(faces, d["face_object"]) if o == k]).convex_hull for k in (0, 1)]
    assert shapely.distance(*hulls) >= 0.004 - 1e-6   # FRACTION 0.002: 0.004 between islands
    errors = result["errors"]
    assert "Pick the mesh object" in errors["no_object"]
    assert "is not a curve" in errors["not_a_curve"]
    assert "no UV map 'Nope'" in errors["no_uv_map"]
