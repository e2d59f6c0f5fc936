"""Write the UVs of a subdivided Suzanne after Smart UV Project to an .npz.

    python dense_suzanne.py LEVEL OUT.npz

Suzanne, a Subdivision Surface modifier of LEVEL applied, then
``uv.smart_project(island_margin=0)`` on every face: the dense meshes of
issue 27 (level 3: 31,488 faces; level 4: 125,952).  Saved: ``uvs`` (one UV
per face corner), ``face_sizes`` and ``vertex`` (the mesh vertex of each
corner, for joining split UVs as Blender does).
"""
import sys

import bpy
import numpy as np

level, out = int(sys.argv[-2]), sys.argv[-1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.mesh.primitive_monkey_add()
obj = bpy.context.active_object
modifier = obj.modifiers.new("subsurf", "SUBSURF")
modifier.levels = level
bpy.ops.object.modifier_apply(modifier=modifier.name)
bpy.ops.object.mode_set(mode="EDIT")
bpy.ops.mesh.select_all(action="SELECT")
bpy.ops.uv.smart_project(island_margin=0.0)
bpy.ops.object.mode_set(mode="OBJECT")
mesh = obj.data
uvs = np.empty(2 * len(mesh.loops))
mesh.uv_layers.active.data.foreach_get("uv", uvs)
sizes = np.empty(len(mesh.polygons), np.int64)
mesh.polygons.foreach_get("loop_total", sizes)
vertex = np.empty(len(mesh.loops), np.int64)
mesh.loops.foreach_get("vertex_index", vertex)
np.savez(out, uvs=uvs.reshape(-1, 2), face_sizes=sizes, vertex=vertex)
print(f"faces {len(mesh.polygons)}")
