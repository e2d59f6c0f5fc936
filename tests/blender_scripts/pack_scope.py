"""What the operator packs: selection (with and without UV sync selection), hidden faces, pinned islands.

Usage: ``<bpy python> pack_scope.py OUT.npz MODE MARGIN SECONDS`` with MODE
``sync`` or ``nosync``, on Suzanne after Smart UV Project.

``sync`` (UV sync selection on): island A is pinned (and ``pin=True``),
island B hidden *and* flagged selected (hidden must win), islands C and D
deselected, and half of island E's faces deselected.

``nosync`` (UV sync selection off): every face is selected in the mesh
except island F (whose UVs are all selected: it is not shown in the UV
editor, so it must not move); the UVs of the first half of the islands are
selected, plus a single corner of island G (a face needs all its UVs
selected).

Saves ``uvs_in``, ``uvs_out`` (per loop), ``vert``, ``face_sizes``,
``moving`` (faces expected to move), ``pinned_faces`` to OUT.npz and emits
the operator's result.
"""
from __future__ import annotations

import sys

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
import _common
# isort: on
import numpy as np


def main() -> None:
    out, mode, margin, seconds = _common.out_path(), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    _common.setup()
    obj = _common.suzanne()
    data = _common.read_loops([obj])
    island = _common.face_islands(data)
    n_islands = int(island.max()) + 1
    sizes = data["face_sizes"]
    n_faces = sizes.size
    moving = np.ones(n_faces, bool)
    pinned_faces = np.zeros(n_faces, bool)
    bpy.context.tool_settings.mesh_select_mode = (False, False, True)
    bm = bmesh.from_edit_mesh(obj.data)
    bm.faces.ensure_lookup_table()
    uv = bm.loops.layers.uv.active
    faces = bm.faces
    if mode == "sync":
        bpy.context.scene.tool_settings.use_uv_select_sync = True
        a, b, c, d, e = 0, 1, 2, 3, 4
        pinned_faces = island == a
        for f in np.flatnonzero(pinned_faces):
            faces[int(f)].loops[0][uv].pin_uv = True  # one pinned UV locks the island
        for f in np.flatnonzero(island == b):
            faces[int(f)].hide_set(True)
            faces[int(f)].select = True  # an inconsistent flag: hidden must still win
        for f in np.flatnonzero((island == c) | (island == d)):
            faces[int(f)].select = False
        half = np.flatnonzero(island == e)
        for f in half[: len(half) // 2]:
            faces[int(f)].select = False
        moving = ~np.isin(island, (b, c, d))
        moving[half[: len(half) // 2]] = False
        moving[pinned_faces] = True  # selected: packed as an obstacle that stays put
    elif mode == "nosync":
        bpy.context.scene.tool_settings.use_uv_select_sync = False
        chosen = island < n_islands // 2
        f_island, g_island = n_islands // 4, n_islands - 1
        for k, face in enumerate(faces):
            face.select = bool(island[k] != f_island)
            for loop in face.loops:
                on = bool(chosen[k])
                loop.uv_select_vert_set(on)
                loop.uv_select_edge_set(on)
        g_face = int(np.flatnonzero(island == g_island)[0])
        faces[g_face].loops[0].uv_select_vert_set(True)
        moving = chosen & (island != f_island)
    else:
        raise SystemExit(f"unknown mode {mode!r}")
    bmesh.update_edit_mesh(obj.data)
    before = _common.read_loops([obj])
    result = bpy.ops.uv.uvnest_pack(margin_method="FRACTION", margin=margin / 2, time_limit=seconds,
                                    stall_limit=0.0, pin=True, merge_overlap=False)
    after = _common.read_loops([obj])
    np.savez(out, uvs_in=before["uvs"], uvs_out=after["uvs"], vert=before["vert"], face_sizes=sizes,
             moving=moving, pinned_faces=pinned_faces, hide=after["hide"])
    _common.emit({"result": sorted(result), "islands": n_islands, "faces": int(n_faces),
                  "moving_faces": int(moving.sum())})


if __name__ == "__main__":
    main()
