"""Polygon targets with keep-out zones (issue 31, point 3).

Oracle: shapely.  The region is built as a shapely geometry from the same
rings; every island's output faces (tests/pack_checker.py) must lie inside
it, keep ``max(padding, margin)`` from its boundary (holes included; see
uvnest.region for why a padding below the margin is kept only along the
region's box), and keep the margin from each other.  Coverage is measured on
the region's area.
"""
from __future__ import annotations

from typing import List, Tuple

import numpy as np
import pytest
import shapely

import uvnest
from tests.pack_checker import check_pack, in_pixels

SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
#: a unit square with a square keep-out zone in the middle, and a second,
#: separate rectangle: rings as the API takes them
HOLE = np.array([[0.3, 0.3], [0.3, 0.7], [0.7, 0.7], [0.7, 0.3]], float)     # clockwise
SECOND = np.array([[1.2, 0], [1.6, 0], [1.6, 0.5], [1.2, 0.5]], float)
REGION = [SQUARE, HOLE, SECOND]
SHAPE = shapely.union(shapely.Polygon(SQUARE, [HOLE]), shapely.Polygon(SECOND))


def boxes(count: int, seed: int) -> Tuple[np.ndarray, List[List[int]]]:
    rng = np.random.default_rng(seed)
    uvs, faces = [], []
    for k in range(count):
        w, h = rng.uniform(0.05, 0.3, 2)
        faces.append(list(range(4 * k, 4 * k + 4)))
        uvs.append(np.array([[0, 0], [w, 0], [w, h], [0, h]]) + [k % 5 * 0.6, k // 5 * 0.6])
    return np.concatenate(uvs), faces


def check_in_region(result, uvs, faces, region_shape, margin: float, padding: float, box, size=None) -> None:
    view = in_pixels(result, size) if size else result
    scale = np.array(size, float) if size else np.ones(2)
    rep = check_pack(view, uvs * scale, faces, margin=margin * (max(size) if size else 1), target=box, fit=False)
    assert rep.ok, rep.describe()
    keep = max(padding, margin) * (max(size) if size else 1)
    for i, g in enumerate(rep.geoms):
        assert region_shape.buffer(rep.tol).contains(g), f"island {i} leaves the region"
        gap = shapely.distance(region_shape.boundary, g)
        assert gap >= keep - rep.tol, f"island {i} is {gap:.6g} from the region's boundary, wanted {keep:.6g}"
    covered = shapely.area(shapely.intersection(shapely.union_all(rep.geoms), region_shape))
    assert abs(covered / region_shape.area - result.coverage) < 1e-6


@pytest.mark.parametrize("padding, margin", [(0.0, 0.01), (0.03, 0.01), (0.02, 0.0)])
def test_islands_stay_in_the_region_and_out_of_its_holes(padding: float, margin: float) -> None:
    uvs, faces = boxes(20, seed=1)
    result = uvnest.pack(uvs, faces, target=REGION, padding=padding, margin=margin, iterations=150,
                         time_limit=None)
    check_in_region(result, uvs, faces, SHAPE, margin, padding, (0, 0, 1.6, 1))
    # the keep-out zone is empty, and islands went into the second rectangle too
    geoms = check_pack(result, uvs, faces, margin=margin, target=(0, 0, 1.6, 1), fit=False).geoms
    assert not any(shapely.intersects(g, shapely.Polygon(HOLE)) for g in geoms)
    assert any(shapely.within(g, shapely.Polygon(SECOND)) for g in geoms)


def test_a_single_ring_and_a_non_square_texture() -> None:
    """An L-shaped region as one array; a 2:1 texture: the region is in UV
    units, the margin in pixels."""
    ell = np.array([[0, 0], [1, 0], [1, 0.4], [0.4, 0.4], [0.4, 1], [0, 1]], float)
    uvs, faces = boxes(10, seed=2)
    size = (2048, 1024)
    result = uvnest.pack(uvs, faces, target=ell, texture_size=size, margin_px=4, iterations=60, time_limit=None)
    shape_px = shapely.Polygon(ell * size)
    check_in_region(result, uvs, faces, shape_px, 4 / 2048, 0.0, (0, 0, *size), size=size)


@pytest.mark.parametrize("bad, message", [
    ([[[0, 0], [1, 0], [np.nan, 1]]], "NaN"),
    ([[[0, 0], [1, 0]]], "n >= 3"),
    ([[[0, 0], [1, 0], [2, 0]]], "no area"),
    ([SQUARE[::-1]], "counter-clockwise"),
])
def test_bad_regions_are_value_errors(bad, message: str) -> None:
    uvs, faces = boxes(2, seed=3)
    with pytest.raises(ValueError, match=message):
        uvnest.Packer(uvs, faces, target=bad)


def test_a_region_needs_scale_fit() -> None:
    uvs, faces = boxes(2, seed=3)
    with pytest.raises(ValueError, match="scale='fit'"):
        uvnest.Packer(uvs, faces, target=REGION, scale="fixed")


def test_region_files_json_and_svg_give_the_same_rings(tmp_path) -> None:
    """The CLI's files: JSON rings as written, SVG paths (absolute and
    relative commands, any winding) mapped from the viewBox onto the tile
    with v up; both oriented by nesting."""
    from uvnest.region import load_region

    (tmp_path / "r.json").write_text("[[[0,0],[0,1],[1,1],[1,0]], [[0.3,0.3],[0.7,0.3],[0.7,0.7],[0.3,0.7]]]")
    (tmp_path / "r.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">'
        '<path d="M 0 0 H 200 V 100 H 0 Z"/><path d="m 60 30 l 80 0 l 0 40 l -80 0 z"/></svg>')
    for name, scale in (("r.json", (1, 1)), ("r.svg", (1, 1))):
        rings = load_region(str(tmp_path / name))
        shape = shapely.Polygon(rings[0], rings[1:])
        assert shapely.equals_exact(shapely.normalize(shape), shapely.normalize(
            shapely.Polygon(SQUARE, [HOLE])), tolerance=1e-12), name
        assert shapely.Polygon(rings[0]).exterior.is_ccw and not shapely.LinearRing(rings[1]).is_ccw


@pytest.mark.parametrize("text, message", [
    ('<svg viewBox="0 0 1 1"><path d="M 0 0 C 1 0 1 1 0 1 Z"/></svg>', "curves"),
    ("[[0, 1]]", "ring 0"),
    ("not json", "not a JSON list"),
])
def test_bad_region_files_name_the_file(tmp_path, text: str, message: str) -> None:
    from uvnest.region import load_region

    path = tmp_path / ("bad.svg" if text.startswith("<svg") else "bad.json")
    path.write_text(text)
    with pytest.raises(ValueError, match=f"{path.name}.*{message}"):
        load_region(str(path))


def test_command_line_packs_into_a_region_file(tmp_path) -> None:
    """``uvnest pack --target-region FILE --stack-similar --max-scale-ratio``
    on a real OBJ: every output face inside the region (shapely)."""
    import json as _json

    from uvnest import io
    from uvnest.cli import main

    uvs, faces = boxes(8, seed=5)
    src = tmp_path / "boxes.obj"
    lines = [f"v {k} 0 0" for k in range(len(uvs))] + [f"vt {u:.17g} {v:.17g}" for u, v in uvs]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}" for i in f) for f in faces]
    src.write_text("\n".join(lines) + "\n")
    (tmp_path / "region.json").write_text(_json.dumps([r.tolist() for r in REGION]))
    out = tmp_path / "out.obj"
    code = main(["pack", str(src), "-o", str(out), "--target-region", str(tmp_path / "region.json"),
                 "--stack-similar", "--max-scale-ratio", "1.5", "--iterations", "50"])
    assert code == 0
    packed = io.load(str(out))
    for face in packed.faces:
        assert SHAPE.buffer(1e-6).contains(shapely.Polygon(packed.uvs[face]))


def test_rings_of_different_lengths_are_a_region() -> None:
    """A circle of 40 points with a square hole: rings numpy cannot stack
    (``region.is_rectangle`` once raised on them); islands stay inside."""
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    outer = np.column_stack([0.5 + 0.45 * np.cos(t), 0.5 + 0.45 * np.sin(t)])
    hole = np.array([[0.4, 0.4], [0.4, 0.6], [0.6, 0.6], [0.6, 0.4]])
    uvs, faces = boxes(6, seed=8)
    result = uvnest.pack(uvs, faces, target=[outer, hole], margin=0.01, iterations=10, time_limit=None, threads=1)
    disc = shapely.Polygon(outer, [hole])
    rep = check_pack(result, uvs, faces, margin=0.01, target=disc.bounds, fit=False)
    assert rep.ok, rep.describe()
    assert all(disc.buffer(rep.tol).contains(g) for g in rep.geoms)
