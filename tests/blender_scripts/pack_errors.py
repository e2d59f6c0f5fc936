"""The operator's errors inside Blender: a clear report, no traceback, UVs untouched.

Usage: ``<bpy python> pack_errors.py``.  In the bpy module an operator that
reports an ERROR raises ``RuntimeError`` with the report's text in the
calling script (in Blender's UI the text goes to the status bar); so each
case records that text, whether a Python traceback of the add-on leaked into
it, and whether the UVs stayed bit for bit the same.
"""
from __future__ import annotations

from typing import Any, Dict

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
import _common
# isort: on
import numpy as np


def uv_bits() -> np.ndarray:
    """Every loop UV of the meshes in edit mode, as raw bits."""
    out = []
    for obj in bpy.context.objects_in_mode_unique_data:
        bm = bmesh.from_edit_mesh(obj.data)
        uv = bm.loops.layers.uv.active
        if uv is not None:
            out.extend(loop[uv].uv[:] for face in bm.faces for loop in face.loops)
    return np.array(out, dtype=np.float32).view(np.uint32)


def attempt(**options: Any) -> Dict[str, Any]:
    """Run the operator (as the UI does, invoke; in background that is execute) and record the outcome."""
    before = uv_bits()
    try:
        result = sorted(bpy.ops.uv.uvnest_pack("INVOKE_DEFAULT", **options))
        message = ""
    except RuntimeError as exc:
        result = ["CANCELLED"]
        message = str(exc)
    return {"result": result, "message": message, "traceback": "Traceback" in message,
            "unchanged": bool(np.array_equal(before, uv_bits()))}


def main() -> None:
    _common.setup()
    out: Dict[str, Any] = {}
    obj = _common.subdivided_cube()
    bpy.ops.mesh.select_all(action="DESELECT")
    out["no_selection"] = attempt(time_limit=1.0)
    _common.select_all_faces()
    bm = bmesh.from_edit_mesh(obj.data)
    for face in bm.faces:
        face.hide_set(True)
    bmesh.update_edit_mesh(obj.data)
    out["all_hidden"] = attempt(time_limit=1.0)
    bpy.ops.mesh.reveal()
    _common.select_all_faces()
    out["margin_no_room"] = attempt(margin_method="FRACTION", margin=0.45, time_limit=1.0)
    out["margin_whole_tile"] = attempt(margin_method="FRACTION", margin=0.5, time_limit=1.0)
    out["ok_after_errors"] = attempt(margin=0.01, time_limit=0.5)

    _common.object_mode()
    bpy.ops.mesh.primitive_cube_add(location=(4, 0, 0))
    bare = bpy.context.object
    while bare.data.uv_layers:
        bare.data.uv_layers.remove(bare.data.uv_layers[0])
    _common.edit_mode([bare])
    _common.select_all_faces()
    out["no_uvs"] = attempt(time_limit=1.0)

    _common.object_mode()
    out["poll_in_object_mode"] = bpy.ops.uv.uvnest_pack.poll()
    _common.emit(out)


if __name__ == "__main__":
    main()
