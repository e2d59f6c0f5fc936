"""Pack islands with Blender's own ``uv.pack_islands``; runs *inside* the bpy interpreter.

Usage (see ``peers_blender.py``, which writes the job and reads the results)::

    <bpy python> blender_pack_script.py JOB_DIR

``JOB_DIR/job.json`` lists tasks, each ``{"task": id, "model": key,
"method": "CONCAVE" | "CONVEX" | "AABB", "margin": m, "rotate": bool}``, and
the repeat policy ``{"max_repeats": r, "repeat_budget": s}``.  Each model's
input is ``JOB_DIR/<key>.npz`` with ``uvs`` (N, 2), ``face_sizes`` and
``face_idx``: faces must be valid polygons (3+ distinct corners), already in
the unit tile.  For every task the script writes ``<task>.started`` just
before packing and ``<task>.npz`` when done (``corner_uvs`` (C, 2) float64
per face corner in input order, ``times`` in seconds, and memory numbers in
kB), so that the driver can enforce per-task timeouts by killing the process
and restarting it on the remaining tasks.

How the mesh is made: one mesh vertex per UV index at ``(u, v, 0)``, one
polygon per face, one UV per corner from the indexed UVs; so faces sharing UV
indices share mesh vertices and edges, and Blender sees the same islands
(edge-connected; faces touching only at a UV vertex are separate islands in
Blender).

How the UVs get selected: the bpy module has a window but no UV editor area,
and ``uv.pack_islands`` packs only selected UVs.  With UV sync selection on
(the scene default, set explicitly here) the UV selection follows the mesh
selection, so ``mesh.select_all(action='SELECT')`` in edit mode selects every
UV; no ``temp_override`` is needed.  The script counts selected faces before
each call and fails loudly if any is not selected.

Each repeat restores the input UVs first (in object mode), then enters edit
mode, selects all, and times only the operator call with
``time.perf_counter``.  Peak memory is the process's ``VmHWM`` after resetting
it through ``/proc/self/clear_refs`` before the call (Linux; elsewhere the
``ru_maxrss`` high-water mark of the whole process).
"""
from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import List, Tuple

import numpy as np

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
# isort: on


def _status_kb(field: str) -> int:
    """A ``kB`` field of ``/proc/self/status`` (0 when unavailable)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _reset_peak() -> bool:
    """Reset the process's peak RSS (Linux ``clear_refs`` 5); False when not possible."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _clear_scene() -> None:
    """Remove every object and mesh so that only the model being packed exists."""
    if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
        bpy.ops.object.mode_set(mode="OBJECT")
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for mesh in list(bpy.data.meshes):
        bpy.data.meshes.remove(mesh)


def _build(key: str, uvs: np.ndarray, face_sizes: np.ndarray, face_idx: np.ndarray) -> bpy.types.Object:
    """A mesh object with one vertex per UV index and one UV per face corner; made active."""
    _clear_scene()
    mesh = bpy.data.meshes.new(key)
    co = np.zeros((len(uvs), 3), dtype=np.float32)
    co[:, :2] = uvs
    mesh.vertices.add(len(uvs))
    mesh.vertices.foreach_set("co", co.ravel())
    mesh.loops.add(len(face_idx))
    mesh.loops.foreach_set("vertex_index", face_idx.astype(np.int32))
    starts = np.zeros(len(face_sizes), dtype=np.int32)
    np.cumsum(face_sizes[:-1], out=starts[1:])
    mesh.polygons.add(len(face_sizes))
    mesh.polygons.foreach_set("loop_start", starts)
    mesh.update(calc_edges=True)
    mesh.uv_layers.new(name="UVMap")
    obj = bpy.data.objects.new(key, mesh)
    bpy.context.scene.collection.objects.link(obj)
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    return obj


def _set_uvs(obj: bpy.types.Object, corner_uvs: np.ndarray) -> None:
    """Write per-corner UVs (object mode)."""
    obj.data.uv_layers.active.uv.foreach_set("vector", corner_uvs.astype(np.float32).ravel())


def _get_uvs(obj: bpy.types.Object) -> np.ndarray:
    """Read per-corner UVs (object mode) as float64."""
    out = np.empty(2 * len(obj.data.loops), dtype=np.float32)
    obj.data.uv_layers.active.uv.foreach_get("vector", out)
    return out.reshape(-1, 2).astype(np.float64)


def _select_all_uvs(obj: bpy.types.Object) -> None:
    """Select every UV: sync selection on, then select all mesh elements in edit mode."""
    bpy.context.scene.tool_settings.use_uv_select_sync = True
    bpy.ops.mesh.select_all(action="SELECT")
    bm = bmesh.from_edit_mesh(obj.data)
    unselected = sum(1 for f in bm.faces if not f.select)
    if unselected:
        raise RuntimeError(f"{unselected} faces not selected before packing")


def _pack_once(obj: bpy.types.Object, corner_in: np.ndarray, task: dict) -> Tuple[float, np.ndarray, int, int]:
    """One timed ``uv.pack_islands`` from the input UVs: (seconds, corner UVs, rss before, peak)."""
    bpy.ops.object.mode_set(mode="OBJECT")
    _set_uvs(obj, corner_in)
    bpy.ops.object.mode_set(mode="EDIT")
    _select_all_uvs(obj)
    rss_before = _status_kb("VmRSS")
    peak_ok = _reset_peak()
    t0 = time.perf_counter()
    result = bpy.ops.uv.pack_islands(
        udim_source="CLOSEST_UDIM", rotate=bool(task["rotate"]), rotate_method="ANY", scale=True,
        merge_overlap=True, margin_method="FRACTION", margin=float(task["margin"]), pin=False,
        shape_method=task["method"])
    seconds = time.perf_counter() - t0
    peak = _status_kb("VmHWM") if peak_ok else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if result != {"FINISHED"}:
        raise RuntimeError(f"uv.pack_islands returned {result}")
    bpy.ops.object.mode_set(mode="OBJECT")
    return seconds, _get_uvs(obj), rss_before, peak


def main(job_dir: Path) -> None:
    """Run every task of ``job_dir/job.json`` in order (see the module docstring)."""
    job = json.loads((job_dir / "job.json").read_text())
    max_repeats = int(job["max_repeats"])
    budget = float(job["repeat_budget"])
    current_key = None
    obj = None
    corner_in = np.zeros((0, 2))
    for task in job["tasks"]:
        if task["model"] != current_key:
            data = np.load(job_dir / f"{task['model']}.npz")
            uvs, face_sizes, face_idx = data["uvs"], data["face_sizes"], data["face_idx"]
            obj = _build(task["model"], uvs, face_sizes, face_idx)
            corner_in = uvs[face_idx]
            current_key = task["model"]
        (job_dir / f"{task['task']}.started").write_text(str(time.time()))
        times: List[float] = []
        peaks: List[int] = []
        befores: List[int] = []
        corner_out = corner_in
        while len(times) < max_repeats and (not times or sum(times) < budget):
            seconds, corner_out, before, peak = _pack_once(obj, corner_in, task)
            times.append(seconds)
            peaks.append(peak)
            befores.append(before)
        np.savez(job_dir / f"{task['task']}.tmp.npz", corner_uvs=corner_out, times=np.array(times),
                 rss_before_kb=np.array(befores), peak_kb=np.array(peaks))
        (job_dir / f"{task['task']}.tmp.npz").rename(job_dir / f"{task['task']}.npz")
    print(json.dumps({"blender": bpy.app.version_string,
                      "maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
