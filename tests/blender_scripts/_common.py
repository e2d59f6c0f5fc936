"""Helpers for the scripts that ``tests/test_blender.py`` runs inside Blender (the bpy module).

Each script builds a scene, does its work and ends with :func:`emit`, which
prints one line ``UVNEST-RESULT {json}`` for the test to parse (Blender and
bpy print other lines too).  Large arrays go through an ``.npz`` file the
test names on the command line.

Meshes are read back in object mode through ``mesh.uv_layers`` and
``mesh.polygons``: a different path from the add-on's own bmesh reading, so
the checks do not trust the code under test.
"""
from __future__ import annotations

import atexit
import json
import math
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence

import numpy as np

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
# isort: on

MARKER = "UVNEST-RESULT "


def emit(result: dict) -> None:
    """Print the script's result for the test (one JSON line after the marker)."""
    print(MARKER + json.dumps(result), flush=True)


def setup() -> None:
    """An empty scene with the add-on registered as Blender registers an
    extension: import the package, call its ``register()``.

    The add-on is unregistered again at exit: the bpy 4.2 module crashes
    while exiting with any operator class or menu function still registered
    (a bare ``bpy.types.Operator`` subclass is enough; 5.0 does not)."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    import uvnest

    uvnest.register()
    atexit.register(uvnest.unregister)


def object_mode() -> None:
    """Leave edit mode (writes the edit meshes back to the meshes)."""
    if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")


def edit_mode(objects: Sequence[bpy.types.Object]) -> None:
    """Enter multi-object edit mode on ``objects`` (the first one active)."""
    object_mode()
    bpy.ops.object.select_all(action="DESELECT")
    for obj in objects:
        obj.select_set(True)
    bpy.context.view_layer.objects.active = objects[0]
    bpy.ops.object.mode_set(mode="EDIT")


def select_all_faces(sync: bool = True) -> None:
    """Select every face (and, with sync off, every UV) of the meshes in edit mode."""
    bpy.context.scene.tool_settings.use_uv_select_sync = sync
    bpy.ops.mesh.select_all(action="SELECT")
    if not sync:
        for obj in bpy.context.objects_in_mode_unique_data:
            bm = bmesh.from_edit_mesh(obj.data)
            for face in bm.faces:
                for loop in face.loops:
                    loop.uv_select_vert_set(True)
                    loop.uv_select_edge_set(True)
            bmesh.update_edit_mesh(obj.data)


def suzanne() -> bpy.types.Object:
    """Suzanne after Smart UV Project (91 islands), in edit mode with all faces selected."""
    bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.context.object
    edit_mode([obj])
    select_all_faces()
    bpy.ops.uv.smart_project(island_margin=0.0)
    return obj


def subdivided_cube() -> bpy.types.Object:
    """A cube subdivided twice, seams on its 12 edges, after Unwrap (6 islands); edit mode, all selected."""
    bpy.ops.mesh.primitive_cube_add()
    obj = bpy.context.object
    edit_mode([obj])
    select_all_faces()
    bpy.ops.mesh.subdivide(number_cuts=2)
    bm = bmesh.from_edit_mesh(obj.data)
    for edge in bm.edges:
        edge.seam = len(edge.link_faces) == 2 and edge.calc_face_angle() > math.radians(45)
    bmesh.update_edit_mesh(obj.data)
    bpy.ops.uv.unwrap(margin=0.0)
    return obj


def multi_objects() -> List[bpy.types.Object]:
    """A cube and a flat box after Smart UV Project, together in multi-object
    edit mode (12 islands: shapes Blender's own packer handles in seconds; it
    takes minutes on cylinders and spheres on a 2-core machine)."""
    objects = []
    for location, scale in (((0, 0, 0), (1, 1, 1)), ((3, 0, 0), (1.0, 0.5, 0.3))):
        bpy.ops.mesh.primitive_cube_add(location=location, scale=scale)
        objects.append(bpy.context.object)
    edit_mode(objects)
    select_all_faces()
    bpy.ops.uv.smart_project(island_margin=0.0, scale_to_bounds=False)
    return objects


def scattered_islands(n_islands: int = 14, seed: int = 1) -> bpy.types.Object:
    """A mesh of ``n_islands`` separate 2x2-quad grids whose UVs are random,
    non-overlapping rectangles (a quick search finds many better layouts);
    edit mode, all selected."""
    rng = np.random.default_rng(seed)
    boxes: List[tuple] = []
    while len(boxes) < n_islands:
        w, h = 0.03 + 0.12 * rng.random(2)
        x, y = rng.random(2) * (1 - np.array([w, h]))
        if not any(x < bx + bw and bx < x + w and y < by + bh and by < y + h for bx, by, bw, bh in boxes):
            boxes.append((x, y, w, h))
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    for k, (x, y, w, h) in enumerate(boxes):
        verts = [[bm.verts.new((2.0 * k + i, j, 0.0)) for i in range(3)] for j in range(3)]
        for j in range(2):
            for i in range(2):
                corners = ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1))
                face = bm.faces.new([verts[b][a] for a, b in corners])
                for loop, (a, b) in zip(face.loops, corners):
                    loop[uv].uv = (x + w * a / 2, y + h * b / 2)
    mesh = bpy.data.meshes.new("scattered")
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new("scattered", mesh)
    bpy.context.scene.collection.objects.link(obj)
    edit_mode([obj])
    select_all_faces()
    return obj


def imported_obj(path: str) -> List[bpy.types.Object]:
    """The meshes of an OBJ file (``wm.obj_import``), in multi-object edit mode, all selected."""
    bpy.ops.wm.obj_import(filepath=path)
    objects = [obj for obj in bpy.context.scene.objects if obj.type == "MESH"]
    edit_mode(objects)
    select_all_faces()
    return objects


def read_loops(objects: Sequence[bpy.types.Object]) -> Dict[str, np.ndarray]:
    """Per-loop UVs and structure of ``objects``, concatenated (reads in object mode).

    Keys: ``uvs`` (L, 2) float32, ``vert`` (L,) vertex index made unique
    across objects, ``face_sizes`` (F,), ``face_object`` (F,), ``select``,
    ``hide`` (F,) and ``pin`` (L,).
    """
    mode = bpy.context.object.mode if bpy.context.object is not None else "OBJECT"
    object_mode()
    parts: Dict[str, List[np.ndarray]] = {k: [] for k in ("uvs", "vert", "face_sizes", "face_object",
                                                             "select", "hide", "pin")}
    offset = 0
    for k, obj in enumerate(objects):
        me = obj.data
        n_loops, n_faces = len(me.loops), len(me.polygons)
        uvs = np.empty(2 * n_loops, np.float32)
        me.uv_layers.active.uv.foreach_get("vector", uvs)
        vert = np.empty(n_loops, np.int64)
        me.loops.foreach_get("vertex_index", vert)
        sizes = np.empty(n_faces, np.int64)
        me.polygons.foreach_get("loop_total", sizes)
        select = np.empty(n_faces, bool)
        me.polygons.foreach_get("select", select)
        hide = np.empty(n_faces, bool)
        me.polygons.foreach_get("hide", hide)
        pin = np.zeros(n_loops, bool)
        if len(me.uv_layers.active.pin):  # the pin layer exists once something was pinned
            me.uv_layers.active.pin.foreach_get("value", pin)
        parts["uvs"].append(uvs.reshape(-1, 2))
        parts["vert"].append(vert + offset)
        parts["face_sizes"].append(sizes)
        parts["face_object"].append(np.full(n_faces, k))
        parts["select"].append(select)
        parts["hide"].append(hide)
        parts["pin"].append(pin)
        offset += len(me.vertices)
    if mode == "EDIT":
        bpy.ops.object.mode_set(mode="EDIT")
    return {k: np.concatenate(v) for k, v in parts.items()}


def face_islands(data: Dict[str, np.ndarray]) -> np.ndarray:
    """Island of every face by Blender's rule (faces joined across a mesh
    edge whose UVs match at both ends), from :func:`read_loops` arrays."""
    sizes = data["face_sizes"]
    start = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    face_of_loop = np.repeat(np.arange(sizes.size), sizes)
    nxt = np.arange(len(face_of_loop)) + 1
    nxt[start + sizes - 1] = start
    parent = list(range(sizes.size))

    def find(f: int) -> int:
        while parent[f] != f:
            parent[f] = parent[parent[f]]
            f = parent[f]
        return f

    uv_bits = data["uvs"].view(np.int32)
    seen: Dict[tuple, int] = {}
    for a, b in zip(range(len(nxt)), nxt.tolist()):
        va, vb = int(data["vert"][a]), int(data["vert"][b])
        if va > vb:
            a, b, va, vb = b, a, vb, va
        key = (va, vb, *uv_bits[a].tolist(), *uv_bits[b].tolist())
        f = int(face_of_loop[a])  # a and b are corners of the same face
        if key in seen:
            parent[find(seen[key])] = find(f)
        else:
            seen[key] = f
    roots = np.array([find(f) for f in range(sizes.size)])
    _, island = np.unique(roots, return_inverse=True)
    return island


def blender_pack(margin: float, merge_overlap: bool = False) -> float:
    """Blender's own Pack Islands on the selection, asked for the same gap
    ``margin`` between islands (FRACTION keeps ``margin`` around each island,
    so two islands end up twice as far apart: pass half).  Returns seconds."""
    t0 = time.perf_counter()
    result = bpy.ops.uv.pack_islands(udim_source="CLOSEST_UDIM", rotate=True, rotate_method="ANY", scale=True,
                                     merge_overlap=merge_overlap, margin_method="FRACTION",
                                     margin=margin / 2, pin=False, shape_method="CONCAVE")
    seconds = time.perf_counter() - t0
    if result != {"FINISHED"}:
        raise RuntimeError(f"uv.pack_islands returned {result}")
    return seconds


def set_loop_uvs(objects: Sequence[bpy.types.Object], uvs: np.ndarray) -> None:
    """Write concatenated per-loop UVs back into ``objects`` (object mode, then back to the mode before)."""
    mode = bpy.context.object.mode
    object_mode()
    start = 0
    for obj in objects:
        n = len(obj.data.loops)
        obj.data.uv_layers.active.uv.foreach_set("vector", np.ascontiguousarray(uvs[start:start + n],
                                                                                 np.float32).ravel())
        start += n
    if mode == "EDIT":
        bpy.ops.object.mode_set(mode="EDIT")


def out_path() -> Path:
    """The ``.npz`` path the test passed as the first argument."""
    return Path(sys.argv[1])
