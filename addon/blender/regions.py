"""Polygon targets taken from the scene, for *Pack to* a region (see
:mod:`uvnest.region`):

* **Selected region of a UV map**: the outline, in one of an object's UV
  maps, of that object's selected faces (the union of their UV faces: outer
  boundaries and holes), read from the edit mesh when the object is in Edit
  Mode, else from the mesh.
* **Curve shape**: a curve object's closed splines, seen from above (their
  world X and Y taken as U and V); Bezier segments are sampled at the
  curve's preview resolution.  Nesting makes rings holes (a ring inside
  another is a keep-out zone), whatever their direction.

Both return rings as :func:`uvnest.region.parse_region` takes them; problems
(no such object, nothing selected, no closed spline) raise ``ValueError``
with a message for the user.
"""
# No ``from __future__ import annotations``, like the other add-on modules.
from typing import List

import numpy as np

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable outside Blender
import bmesh
# isort: on
from mathutils import Vector
from mathutils.geometry import interpolate_bezier

from ..geometry import outline
from ..region import oriented, parse_region

__all__ = ["curve_region", "region_rings", "uv_region"]

#: the sources of a region: Pack to's items that take one
SOURCES = ("UV_REGION", "CURVE_REGION")


def _object(name: str, kind: str) -> bpy.types.Object:
    obj = bpy.data.objects.get(name) if name else None
    if obj is None:
        raise ValueError(f"Pick the {kind} object whose shape is the region to pack into"
                         + (f" (there is no object {name!r})" if name else ""))
    return obj


def _checked(rings: List[np.ndarray], what: str) -> List[np.ndarray]:
    try:
        return parse_region(oriented(rings)).rings
    except ValueError as exc:
        raise ValueError(f"{what} is not a region to pack into: {exc}") from None


def uv_region(obj: bpy.types.Object, uv_map: str = "") -> List[np.ndarray]:
    """The outline in UV map ``uv_map`` (the active one when empty) of the
    selected faces of mesh object ``obj``."""
    if obj.type != "MESH":
        raise ValueError(f"{obj.name!r} is not a mesh: a UV region comes from a mesh's UV map")
    mesh = obj.data
    layer_name = uv_map or (mesh.uv_layers.active.name if mesh.uv_layers.active else "")
    if obj.mode == "EDIT":
        bm = bmesh.from_edit_mesh(mesh)
        layer = bm.loops.layers.uv.get(layer_name)
        if layer is None:
            raise ValueError(f"{obj.name!r} has no UV map {layer_name!r}")
        faces = [f for f in bm.faces if f.select]
        uvs = np.array([loop[layer].uv for f in faces for loop in f.loops], np.float64).reshape(-1, 2)
        sizes = np.array([len(f.loops) for f in faces], np.int64)
    else:
        layer = mesh.uv_layers.get(layer_name)
        if layer is None:
            raise ValueError(f"{obj.name!r} has no UV map {layer_name!r}")
        n_loops, n_faces = len(mesh.loops), len(mesh.polygons)
        flat = np.empty(2 * n_loops, np.float32)
        layer.data.foreach_get("uv", flat)
        selected = np.empty(n_faces, bool)
        mesh.polygons.foreach_get("select", selected)
        starts, counts = np.empty(n_faces, np.int64), np.empty(n_faces, np.int64)
        mesh.polygons.foreach_get("loop_start", starts)
        mesh.polygons.foreach_get("loop_total", counts)
        sizes = counts[selected]
        loops = np.concatenate([np.arange(s, s + c) for s, c in zip(starts[selected], sizes)]) if sizes.size \
            else np.zeros(0, np.int64)
        uvs = flat.reshape(-1, 2)[loops].astype(np.float64)
    if sizes.size == 0:
        raise ValueError(f"No faces of {obj.name!r} are selected: select the faces whose UVs outline the region")
    ends = np.cumsum(sizes)
    faces_list = [np.arange(e - s, e) for s, e in zip(sizes, ends)]
    return _checked(outline(uvs, faces_list), f"The selected faces' UVs of {obj.name!r}")


def _spline_ring(spline: bpy.types.Spline, matrix, resolution: int) -> np.ndarray:
    """A closed spline's points in world X and Y."""
    if spline.type == "BEZIER":
        pts = spline.bezier_points
        points: List[Vector] = []
        for k in range(len(pts)):
            a, b = pts[k], pts[(k + 1) % len(pts)]
            points += list(interpolate_bezier(a.co, a.handle_right, b.handle_left, b.co, resolution + 1))[:-1]
    elif spline.type == "POLY":
        points = [p.co.xyz for p in spline.points]
    else:
        raise ValueError("NURBS splines are not read: convert the curve to Bezier or Poly first")
    return np.array([(matrix @ Vector(p))[:2] for p in points], np.float64)


def curve_region(obj: bpy.types.Object) -> List[np.ndarray]:
    """The closed splines of curve object ``obj`` seen from above (world X
    and Y as U and V)."""
    if obj.type != "CURVE":
        raise ValueError(f"{obj.name!r} is not a curve")
    resolution = max(1, int(obj.data.resolution_u))
    rings = [_spline_ring(s, obj.matrix_world, resolution) for s in obj.data.splines if s.use_cyclic_u]
    rings = [r for r in rings if len(r) >= 3]
    if not rings:
        raise ValueError(f"The curve {obj.name!r} has no closed spline: close one (Alt+C) to make a region")
    return _checked(rings, f"The curve {obj.name!r}")


def region_rings(source: str, object_name: str, uv_map: str = "") -> List[np.ndarray]:
    """The region of Pack to's ``source`` (one of :data:`SOURCES`): of the
    object named ``object_name`` (and its UV map ``uv_map``)."""
    if source == "UV_REGION":
        return uv_region(_object(object_name, "mesh"), uv_map)
    if source == "CURVE_REGION":
        return curve_region(_object(object_name, "curve"))
    raise ValueError(f"{source!r} is not a region source (one of {SOURCES})")
