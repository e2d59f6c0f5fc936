"""``uv.uvnest_pack`` takes the arguments of Blender's ``uv.pack_islands``.

Usage: ``<bpy python> pack_signature.py rna`` or
``<bpy python> pack_signature.py layouts OUT.npz``.

``rna`` emits both operators' property definitions (name, type, subtype,
enum items, default, range), read from their RNA at run time, for the test
to compare.

``layouts`` packs one mesh of turned islands (a quad grid each, one of them
pinned) with ``bpy.ops.uv.pack_islands(**kwargs)`` and with
``bpy.ops.uv.uvnest_pack(**kwargs)``, the same ``kwargs`` unchanged, for a
spread of argument sets (``CASES``), then the cases of uvnest's own options
(``OWN_CASES``: obstacles, custom region, pin methods).  Every case starts
from the same UVs with every face selected (UV sync selection on), except
where its set-up says otherwise.  OUT.npz gets ``vert``, ``face_sizes``,
``uvs_in``, ``pinned`` (per face), and per case ``blender_<n>`` /
``uvnest_<n>`` (per-loop UVs) and ``selected_<n>`` (per face); the result
line has each case's arguments and operator results.
"""
from __future__ import annotations

import math
import sys
import time
from typing import Any, Dict, List, Tuple

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
import _common
# isort: on
import numpy as np

#: Argument sets given unchanged to both operators (the pinned island is pinned in every case;
#: it only stays put with ``pin=True``).
CASES: List[Dict[str, Any]] = [
    {},
    {"margin_method": "FRACTION", "margin": 0.01, "rotate": False},
    {"margin_method": "ADD", "margin": 0.02, "rotate_method": "CARDINAL", "shape_method": "CONVEX"},
    {"margin_method": "SCALED", "margin": 0.1, "rotate_method": "AXIS_ALIGNED", "shape_method": "AABB"},
    {"udim_source": "ORIGINAL_AABB", "margin_method": "FRACTION", "margin": 0.005,
     "rotate_method": "AXIS_ALIGNED_X"},
    {"udim_source": "CUSTOM_REGION", "margin": 0.05, "rotate_method": "AXIS_ALIGNED_Y", "merge_overlap": True},
    {"scale": False, "margin_method": "ADD", "margin": 0.01, "udim_source": "ACTIVE_UDIM"},
    {"pin": True, "margin_method": "FRACTION", "margin": 0.004, "shape_method": "AABB"},
    {"pin": True, "pin_method": "ROTATION_SCALE", "margin_method": "FRACTION", "margin": 0.003,
     "shape_method": "AABB"},
    {"pin": True, "pin_method": "ROTATION", "margin_method": "ADD", "margin": 0.005},
    {"pin": True, "pin_method": "SCALE", "scale": False, "margin_method": "SCALED", "margin": 0.05,
     "shape_method": "AABB"},
    {"pin": True, "pin_method": "SCALE", "margin_method": "ADD", "margin": 0.01, "shape_method": "AABB"},
]
#: uvnest's own options (uvnest only): (name, set-up, arguments).
OWN_CASES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("obstacles", "deselect", {"margin_method": "FRACTION", "margin": 0.004}),
    ("no_obstacles", "deselect", {"margin_method": "FRACTION", "margin": 0.004, "obstacles": False}),
    ("region", "", {"udim_source": "CUSTOM_REGION", "custom_region": (0.2, 0.3, 0.7, 0.6),
                    "margin_method": "FRACTION", "margin": 0.004}),
    ("padding", "", {"margin_method": "FRACTION", "margin": 0.004, "padding": 0.05}),
    ("pixels", "", {"margin_method": "PIXELS", "margin_pixels": 8.0, "padding_pixels": 30.0,
                    "texture_size": 1000}),
]
#: Given to both operators with a texture twice as wide as high on the mesh.
ASPECT_CASE: Dict[str, Any] = {"rotate_method": "CARDINAL", "margin_method": "FRACTION", "margin": 0.004,
                               "shape_method": "AABB"}
#: Given to both operators run from a UV editor showing a UDIM image.
CLOSEST_CASE: Dict[str, Any] = {"udim_source": "CLOSEST_UDIM", "margin_method": "FRACTION", "margin": 0.004,
                                "shape_method": "AABB"}
#: Islands deselected by the "deselect" set-up.
DESELECTED = (1, 4, 7)
#: The pinned island.
PINNED = 2


def rotated_islands(n: int = 10, seed: int = 5) -> bpy.types.Object:
    """``_common.scattered_islands`` with each rectangle turned by a random
    angle and shrunk to stay inside its old place (so none overlap); edit
    mode, all selected."""
    obj = _common.scattered_islands(n, seed)
    data = _common.read_loops([obj])
    loop_island = np.repeat(_common.face_islands(data), data["face_sizes"])
    uvs = data["uvs"].astype(np.float64)
    rng = np.random.default_rng(seed)
    for k in range(int(loop_island.max()) + 1):
        mine = loop_island == k
        lo, hi = uvs[mine].min(axis=0), uvs[mine].max(axis=0)
        (w, h), centre = hi - lo, (lo + hi) / 2
        angle = rng.uniform(0, math.pi)
        c, s = abs(math.cos(angle)), abs(math.sin(angle))
        shrink = min(w / (w * c + h * s), h / (w * s + h * c))
        d = (uvs[mine] - centre) * shrink
        c, s = math.cos(angle), math.sin(angle)
        uvs[mine] = centre + np.column_stack([d[:, 0] * c - d[:, 1] * s, d[:, 0] * s + d[:, 1] * c])
    _common.set_loop_uvs([obj], uvs.astype(np.float32))
    _common.select_all_faces()
    return obj


def definitions(idname: str) -> Dict[str, Dict[str, Any]]:
    """The property definitions of operator ``idname`` (``uv.name``), from its RNA."""
    op = getattr(bpy.ops.uv, idname.split(".")[1])
    out: Dict[str, Dict[str, Any]] = {}
    for p in op.get_rna_type().properties:
        if p.identifier == "rna_type":
            continue
        d: Dict[str, Any] = {"type": p.type, "subtype": p.subtype, "name": p.name}
        if p.type == "ENUM":
            d["items"] = [[i.identifier, i.name] for i in p.enum_items]
            d["flag"] = bool(p.is_enum_flag)
            d["default"] = sorted(p.default_flag) if p.is_enum_flag else p.default
        elif getattr(p, "is_array", False):
            d["default"] = list(p.default_array)
        else:
            d["default"] = p.default
        if p.type in ("FLOAT", "INT"):
            d["range"] = [p.hard_min, p.hard_max]
        out[p.identifier] = d
    return out


def pin_island(obj: bpy.types.Object, faces: np.ndarray) -> None:
    """Pin one UV of the first of ``faces`` (enough to pin its island)."""
    bm = bmesh.from_edit_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    uv = bm.loops.layers.uv.active
    bm.faces[int(faces[0])].loops[0][uv].pin_uv = True
    bmesh.update_edit_mesh(obj.data)


def deselect(obj: bpy.types.Object, faces: np.ndarray) -> None:
    """Deselect ``faces`` (UV sync selection on)."""
    bm = bmesh.from_edit_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    for f in faces.tolist():
        bm.faces[f].select_set(False)
    bmesh.update_edit_mesh(obj.data)


def main() -> None:
    _common.setup()
    if sys.argv[1] == "rna":
        _common.emit({"blender": definitions("uv.pack_islands"), "uvnest": definitions("uv.uvnest_pack")})
        return
    out = sys.argv[2]
    obj = rotated_islands()
    data = _common.read_loops([obj])
    island = _common.face_islands(data)
    pin_island(obj, np.flatnonzero(island == PINNED))
    before = _common.read_loops([obj])
    arrays: Dict[str, np.ndarray] = {}
    results: Dict[str, Any] = {"cases": CASES, "own": [[n, s, kw] for n, s, kw in OWN_CASES]}

    def start(setup: str = "") -> None:
        _common.set_loop_uvs([obj], before["uvs"])
        _common.select_all_faces()
        if setup == "deselect":
            deselect(obj, np.flatnonzero(np.isin(island, DESELECTED)))

    for n, kwargs in enumerate(CASES):
        for name, op in (("blender", bpy.ops.uv.pack_islands), ("uvnest", bpy.ops.uv.uvnest_pack)):
            start()
            t0 = time.perf_counter()
            results[f"{name}_{n}"] = sorted(op(**kwargs))
            results[f"{name}_{n}_seconds"] = time.perf_counter() - t0
            arrays[f"{name}_{n}"] = _common.read_loops([obj])["uvs"]
    for name, setup, kwargs in OWN_CASES:
        start(setup)
        selected = _common.read_loops([obj])["select"]
        results[name] = sorted(bpy.ops.uv.uvnest_pack(**kwargs))
        arrays[f"uvnest_{name}"] = _common.read_loops([obj])["uvs"]
        arrays[f"selected_{name}"] = selected
    # Closest UDIM from a UV editor whose image has tiles 1003 and 1011 only (tile grid 1 x 1): islands
    # in the grid stay in its tile 1001; islands above it go to the tile with the nearest centre, 1011
    area = next(a for a in bpy.context.screen.areas if a.type == "PROPERTIES")
    area.ui_type = "UV"
    space = area.spaces.active
    space.image = bpy.data.images.new("far", 64, 64, tiled=True)
    for number in (1003, 1011):
        space.image.tiles.new(tile_number=number)
    space.image.tiles.remove(space.image.tiles[0])
    for case, shift in (("in_grid", 0.0), ("above_grid", 2.1)):
        results[f"closest_{case}"] = CLOSEST_CASE
        for name, op in (("blender", bpy.ops.uv.pack_islands), ("uvnest", bpy.ops.uv.uvnest_pack)):
            _common.set_loop_uvs([obj], before["uvs"] + np.float32([0.0, shift]))
            _common.select_all_faces()
            with bpy.context.temp_override(area=area, space_data=space, region=area.regions[-1]):
                results[f"{name}_closest_{case}"] = sorted(op(**CLOSEST_CASE))
            arrays[f"{name}_closest_{case}"] = _common.read_loops([obj])["uvs"]
    # last, as it gives the mesh a material: a texture twice as wide as high, whose aspect
    # Blender corrects (the active image texture of the active face's material)
    image = bpy.data.images.new("wide", 256, 128)
    material = bpy.data.materials.new("wide")
    material.use_nodes = True
    material.node_tree.nodes.active = material.node_tree.nodes.new("ShaderNodeTexImage")
    material.node_tree.nodes.active.image = image
    obj.data.materials.append(material)
    bm = bmesh.from_edit_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    bm.faces.active = bm.faces[0]
    results["aspect"] = ASPECT_CASE
    for name, op in (("blender", bpy.ops.uv.pack_islands), ("uvnest", bpy.ops.uv.uvnest_pack)):
        start()
        results[f"{name}_aspect"] = sorted(op(**ASPECT_CASE))
        arrays[f"{name}_aspect"] = _common.read_loops([obj])["uvs"]
    np.savez(out, vert=before["vert"], face_sizes=before["face_sizes"], uvs_in=before["uvs"],
             pinned=island == PINNED, island=island, **arrays)
    _common.emit(results)


if __name__ == "__main__":
    main()
