"""PNG previews: ``uvnest pack --preview`` and ``uvnest.preview`` itself.

Pixels are sampled where an independent shapely model of the layout says
there is an island, an island's margin band, empty tile or the frame.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

import numpy as np
import pytest
import shapely

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PIL_Image = pytest.importorskip("PIL.Image")

import uvnest  # noqa: E402
from uvnest import io, preview  # noqa: E402
from uvnest.demo import demo_path  # noqa: E402
from tests.test_cli import assert_obj_packed, run_uvnest, temp_files  # noqa: E402


def island_polygons(mesh: io.Mesh, uvs: np.ndarray) -> List[shapely.Geometry]:
    """The islands of ``mesh`` laid out with ``uvs``, as shapely unions of their faces."""
    islands = uvnest.find_islands(mesh.uvs, mesh.faces, mesh_faces=mesh.mesh_faces)
    return [shapely.union_all([shapely.make_valid(shapely.Polygon(uvs[mesh.faces[f]])) for f in isl.faces])
            for isl in islands]


def pixel(img, uv, size: int) -> tuple:
    x, y = preview.uv_to_pixel(np.array([uv]), size)[0]
    return img.getpixel((int(x), int(y)))


def test_pack_preview_shows_the_layout(tmp_path: Path) -> None:
    size, margin = 512, 0.02
    src = tmp_path / "demo.obj"
    src.write_bytes(demo_path().read_bytes())
    done = run_uvnest("pack", src, "--preview", "--preview-size", size, "--margin", margin, "--iterations", "100")
    assert done.returncode == 0, done.stderr
    out, png = tmp_path / "demo_packed.obj", tmp_path / "demo_packed.png"
    assert_obj_packed(src, out, margin)
    assert temp_files(tmp_path) == []
    with PIL_Image.open(png) as img:
        assert img.format == "PNG" and img.size == (size, size) and img.mode == "RGB"
        assert img.text["Software"] == f"uvnest {uvnest.__version__}"
        img.load()
    colours = {c for _, c in img.getcolors(maxcolors=size * size)}
    assert len(colours) > 20

    polys = island_polygons(io.load(src), io.load(out).uvs)
    px = 1.0 / preview.uv_to_pixel(np.array([[1.0, 0.0]]), size)[0, 0]  # tile units per pixel, roughly
    inside = 0
    for poly in polys:
        core = poly.buffer(-3 * px)
        if core.is_empty:
            continue  # thinner than a few pixels
        c = pixel(img, core.representative_point().coords[0], size)
        assert c not in (preview.TILE_COLOUR, preview.BACKGROUND), "no island drawn where the layout has one"
        inside += 1
    assert inside >= 20

    union = shapely.union_all(polys)
    grid = [(u, v) for u in np.linspace(0.01, 0.99, 60) for v in np.linspace(0.01, 0.99, 60)]
    empty = [p for p in grid if union.distance(shapely.Point(p)) > margin / 2 + 3 * px]
    assert empty, "the packed layout leaves no free space to look at"
    assert all(pixel(img, p, size) == preview.TILE_COLOUR for p in empty)
    assert img.getpixel((1, 1)) == preview.BACKGROUND

    # the margin band: just outside an island, away from the others and
    # inside the tile (islands may touch its border), is lighter than the
    # empty tile
    lit = 0
    tile_brightness = sum(preview.TILE_COLOUR)
    for k, poly in enumerate(polys):
        others = shapely.union_all(polys[:k] + polys[k + 1:])
        ring = poly.buffer(margin / 4, join_style="mitre").exterior
        for t in np.linspace(0, 1, 7)[:-1]:
            p = ring.interpolate(t, normalized=True)
            in_tile = 2 * px < p.x < 1 - 2 * px and 2 * px < p.y < 1 - 2 * px
            # (a mitred corner of the buffer can reach past the band)
            if in_tile and others.distance(p) > margin and 1.5 * px < poly.distance(p) < margin / 2 - 1.5 * px:
                assert sum(pixel(img, p.coords[0], size)) > tile_brightness + 30
                lit += 1
    assert lit > 10


def test_holes_stay_empty_and_islands_in_holes_are_filled() -> None:
    """A frame with a square in its hole (one merged group) and a separate square."""
    frame_outer = [(0.1, 0.1), (0.6, 0.1), (0.6, 0.6), (0.1, 0.6)]
    frame_inner = [(0.2, 0.2), (0.5, 0.2), (0.5, 0.5), (0.2, 0.5)]
    uvs = np.array(frame_outer + frame_inner + [(0.3, 0.3), (0.4, 0.3), (0.4, 0.4), (0.3, 0.4)]
                   + [(0.7, 0.7), (0.9, 0.7), (0.9, 0.9), (0.7, 0.9)])
    faces = [[0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7], [8, 9, 10, 11], [12, 13, 14, 15]]
    islands = uvnest.find_islands(uvs, faces)
    assert [len(i.members) for i in islands] == [2, 1]
    size = 400
    img = preview.render_preview(islands, size=size, margin=0.01, coverage=0.5, scale=1.0, title="holes")
    assert img.size == (size, size)
    in_frame, in_hole, in_key, in_other = (pixel(img, p, size) for p in ((0.15, 0.35), (0.25, 0.35), (0.35, 0.35),
                                                                          (0.8, 0.8)))
    assert in_hole == preview.TILE_COLOUR
    assert in_frame == in_key != preview.TILE_COLOUR  # one group, one colour
    assert in_other not in (in_frame, preview.TILE_COLOUR)
    with pytest.raises(ValueError, match="at least"):
        preview.render_preview(islands, size=16)


def test_preview_never_replaces_a_texture(tmp_path: Path) -> None:
    src = tmp_path / "crate.obj"
    src.write_bytes(demo_path().read_bytes())
    texture = tmp_path / "crate.png"
    PIL_Image.new("RGB", (8, 8), (200, 10, 10)).save(texture)
    before = (src.read_bytes(), texture.read_bytes())
    done = run_uvnest("pack", src, "--in-place", "--preview", "--time", "0.1")
    assert done.returncode == 2  # a path error, found before any search
    assert "crate.png, which uvnest did not write" in done.stderr
    assert (src.read_bytes(), texture.read_bytes()) == before

    texture.unlink()
    for _ in range(2):  # a preview uvnest wrote may be replaced
        done = run_uvnest("pack", src, "--in-place", "--preview", "--time", "0.1", "--preview-size", "256")
        assert done.returncode == 0, done.stderr
        assert preview.is_uvnest_preview(texture)


def test_preview_without_pillow_is_a_clear_error(tmp_path: Path) -> None:
    src = tmp_path / "demo.obj"
    src.write_bytes(demo_path().read_bytes())
    code = ("import sys; sys.modules['PIL'] = None; from uvnest.cli import main; "
            f"sys.exit(main(['pack', {str(src)!r}, '--preview', '--time', '0.1']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--preview" in done.stderr and "pip install 'uvnest[preview]'" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.obj"]
