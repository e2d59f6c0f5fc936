"""Options that come from the UV editor: the image's size for a pixel margin, UDIM tiles, the 2D cursor.

Usage: ``<bpy python> pack_targets.py OUT.npz``.

The bpy module's window has no UV editor, so the script turns one of its
areas into an image editor showing UVs, gives it an image, and runs the
operator with ``context.temp_override(area=..., space_data=...)``, as it
runs from the editor's menu.  Every case starts from the same scattered
islands in tile 1001; OUT.npz gets ``vert``, ``face_sizes``, ``uvs_in`` and
``uvs_<case>`` for the test's checks.
"""
from __future__ import annotations

from typing import Any, Dict

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import _common
# isort: on
import numpy as np


def main() -> None:
    out = _common.out_path()
    _common.setup()
    obj = _common.scattered_islands(10, seed=4)
    before = _common.read_loops([obj])
    area = next(a for a in bpy.context.screen.areas if a.type == "PROPERTIES")
    area.ui_type = "UV"  # an image editor in UV editing mode
    space = area.spaces.active
    flat = bpy.data.images.new("flat", 256, 128)
    udim = bpy.data.images.new("udim", 64, 64, tiled=True)
    udim.tiles.new(tile_number=1002)
    far = bpy.data.images.new("far", 64, 64, tiled=True)  # tiles 1003 and 1011 only
    far.tiles.new(tile_number=1003)
    far.tiles.new(tile_number=1011)
    far.tiles.remove(far.tiles[0])
    results: Dict[str, Any] = {}
    arrays: Dict[str, np.ndarray] = {}

    def run(name: str, image: bpy.types.Image, start: np.ndarray = before["uvs"], **options: Any) -> None:
        _common.set_loop_uvs([obj], start)
        _common.select_all_faces()
        space.image = image
        # islands 0.001 apart: Blender's FRACTION margin keeps half of it around each island
        options = {"margin_method": "FRACTION", "margin": 0.0005, **options}
        with bpy.context.temp_override(area=area, space_data=space, region=area.regions[-1]):
            results[name] = {"show_uvedit": bool(space.show_uvedit),
                             "result": sorted(bpy.ops.uv.uvnest_pack(time_limit=1.0, **options))}
        arrays[f"uvs_{name}"] = _common.read_loops([obj])["uvs"]

    # pixel margin: 6 px of the image's 256 (its larger side), not of the Texture Size field
    run("pixels", flat, margin_method="PIXELS", margin_pixels=6.0, texture_size=4096)
    udim.tiles.active_index = [t.number for t in udim.tiles].index(1002)
    run("active_tile", udim, udim_source="ACTIVE_UDIM")
    # islands above the UV editor's 1 x 1 tile grid (Blender keeps islands in the grid where they are):
    # of the grid's tile 1001 and the image's 1003 and 1011, 1011 has the nearest centre
    run("closest_tile", far, start=before["uvs"] + np.float32([0.0, 2.1]), udim_source="CLOSEST_UDIM")
    space.uv_editor.tile_grid_shape = (3, 1)
    space.cursor_location = (2.5, 0.5)
    run("cursor_tile", flat, udim_source="ACTIVE_UDIM")
    side = float(np.min(before["uvs"].max(axis=0).astype(np.float64) - before["uvs"].min(axis=0)))
    run("bounds", flat, udim_source="ORIGINAL_AABB", margin=0.0005 * side)  # FRACTION margins are UV units
    # UDIM tiles at the current density: islands grown 4 times need several tiles
    grown = before["uvs"] * 4.0
    arrays["uvs_grown"] = grown
    many = bpy.data.images.new("many", 64, 64, tiled=True)
    for number in (1012, 1003, 1011):
        many.tiles.new(tile_number=number)
    many.tiles.remove(many.tiles[0])   # tiles 1003, 1011, 1012
    run("udim_tiles", many, start=grown, udim_source="UDIM_TILES")
    run("udim_default", flat, start=grown, udim_source="UDIM_TILES")
    np.savez(out, vert=before["vert"], face_sizes=before["face_sizes"], uvs_in=before["uvs"], **arrays)
    _common.emit(results)


if __name__ == "__main__":
    main()
