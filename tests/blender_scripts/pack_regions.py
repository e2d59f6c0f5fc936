"""Regions from the scene (``uvnest.blender.regions``): the selected faces'
outline in another object's UV map, and a curve's shape.

Usage: ``<bpy python> pack_regions.py OUT.npz``.

Builds a 4 x 4 grid mesh whose UVs span the unit tile with its four middle
faces deselected (a square ring: an outer ring and a hole), and a curve of
a Bezier circle with a square Poly spline inside (a disc with a hole).
OUT.npz gets the grid's selected UV faces (``face_uvs``, ``face_sizes``),
the curve's control points, and the rings read (``uv_ring_<k>``,
``curve_ring_<k>``) for the test's independent checks.

Then the operator packs scattered islands into each region
(``udim_source`` ``CURVE_REGION`` and ``UV_REGION``; ``uvs_curve``,
``uvs_uv``), and two objects with Keep Together ``OBJECT``
(``uvs_together``, ``face_object``); the packed meshes' loops go to
OUT.npz as ``_common.read_loops`` reads them.
"""
from __future__ import annotations

from typing import Any, Dict, List

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
import _common
# isort: on
import numpy as np


def grid_mesh() -> bpy.types.Object:
    """4 x 4 quads, UVs (i / 4, j / 4), the middle 2 x 2 deselected; a
    second UV map shifted by (1, 0) is the active one."""
    bm = bmesh.new()
    first = bm.loops.layers.uv.new("Region")
    other = bm.loops.layers.uv.new("Other")
    verts = [[bm.verts.new((i, j, 0.0)) for i in range(5)] for j in range(5)]
    for j in range(4):
        for i in range(4):
            corners = ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1))
            face = bm.faces.new([verts[b][a] for a, b in corners])
            face.select = not (1 <= i <= 2 and 1 <= j <= 2)
            for loop, (a, b) in zip(face.loops, corners):
                loop[first].uv = (a / 4, b / 4)
                loop[other].uv = (a / 4 + 1, b / 4)
    mesh = bpy.data.meshes.new("RegionMesh")
    bm.to_mesh(mesh)
    bm.free()
    mesh.uv_layers.active = mesh.uv_layers["Other"]
    obj = bpy.data.objects.new("RegionMesh", mesh)
    bpy.context.scene.collection.objects.link(obj)
    return obj


def region_curve() -> bpy.types.Object:
    """A Bezier circle (radius 0.45 around (0.5, 0.5)) and a Poly square
    (0.4 .. 0.6) inside it, moved by the object's location."""
    bpy.ops.curve.primitive_bezier_circle_add(radius=0.45, location=(0.0, 0.0, 0.0))
    obj = bpy.context.object
    obj.name = "RegionCurve"
    obj.location = (0.5, 0.5, 3.0)   # Z is ignored
    square = obj.data.splines.new("POLY")
    square.points.add(3)
    for p, (x, y) in zip(square.points, ((-0.1, -0.1), (0.1, -0.1), (0.1, 0.1), (-0.1, 0.1))):
        p.co = (x, y, 0.0, 1.0)
    square.use_cyclic_u = True
    bpy.context.view_layer.update()
    return obj


def main() -> None:
    out = _common.out_path()
    _common.setup()
    from uvnest.blender.regions import region_rings

    grid = grid_mesh()
    curve = region_curve()
    arrays: Dict[str, np.ndarray] = {}
    results: Dict[str, Any] = {}
    mesh = grid.data
    selected = [p for p in mesh.polygons if p.select]
    layer = mesh.uv_layers["Region"]
    arrays["face_uvs"] = np.array([layer.data[k].uv[:] for p in selected for k in p.loop_indices])
    arrays["face_sizes"] = np.array([p.loop_total for p in selected])
    circle = curve.data.splines[0]
    arrays["bezier"] = np.array([[*p.handle_left[:2], *p.co[:2], *p.handle_right[:2]] for p in circle.bezier_points])
    results["resolution"] = int(curve.data.resolution_u)
    rings: List[np.ndarray] = region_rings("UV_REGION", "RegionMesh", "Region")
    arrays.update({f"uv_ring_{k}": r for k, r in enumerate(rings)})
    # the same in Edit Mode (read from the edit mesh), with one more face deselected
    _common.edit_mode([grid])
    bm = bmesh.from_edit_mesh(mesh)
    bm.faces.ensure_lookup_table()
    bm.faces[0].select = False
    edit = region_rings("UV_REGION", "RegionMesh", "Region")
    arrays.update({f"edit_ring_{k}": r for k, r in enumerate(edit)})
    _common.object_mode()
    curve_rings = region_rings("CURVE_REGION", "RegionCurve")
    arrays.update({f"curve_ring_{k}": r for k, r in enumerate(curve_rings)})
    errors = {}
    for name, args in (("no_object", ("UV_REGION", "")), ("not_a_curve", ("CURVE_REGION", "RegionMesh")),
                       ("no_uv_map", ("UV_REGION", "RegionMesh", "Nope"))):
        try:
            region_rings(*args)
            errors[name] = None
        except ValueError as exc:
            errors[name] = str(exc)
    results["errors"] = errors
    # the operator: scattered islands into the curve's shape, then into the UV region
    scattered = _common.scattered_islands(12, seed=3)
    before = _common.read_loops([scattered])
    arrays.update(vert=before["vert"], face_sizes_packed=before["face_sizes"])
    common = dict(margin_method="FRACTION", margin=0.002, time_limit=1.0)
    for case, options in (("curve", dict(udim_source="CURVE_REGION", region_object="RegionCurve")),
                          ("uv", dict(udim_source="UV_REGION", region_object="RegionMesh", region_uv_map="Region"))):
        _common.set_loop_uvs([scattered], before["uvs"])
        _common.select_all_faces()
        results[case] = sorted(bpy.ops.uv.uvnest_pack(**common, **options))
        arrays[f"uvs_{case}"] = _common.read_loops([scattered])["uvs"]
    # no region object picked: a clear report, nothing packed
    try:
        bpy.ops.uv.uvnest_pack(**common, udim_source="CURVE_REGION", region_object="")
        results["missing"] = "no error"
    except RuntimeError as exc:
        results["missing"] = str(exc)
    # Keep Together: the islands of each of two objects in a region of their own
    _common.object_mode()
    objects = _common.multi_objects()
    results["together"] = sorted(bpy.ops.uv.uvnest_pack(**common, keep_together="OBJECT"))
    packed = _common.read_loops(objects)
    arrays.update(uvs_together=packed["uvs"], vert_together=packed["vert"], face_sizes_together=packed["face_sizes"],
                  face_object=packed["face_object"])
    np.savez(out, **arrays)
    _common.emit(results)


if __name__ == "__main__":
    main()
