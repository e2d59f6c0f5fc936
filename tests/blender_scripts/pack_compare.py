"""Pack one scene with ``bpy.ops.uv.uvnest_pack`` (execute path) and with Blender's ``uv.pack_islands``.

Usage: ``<bpy python> pack_compare.py OUT.npz CASE MARGIN SECONDS [OBJ_PATH]`` with CASE one of
``suzanne``, ``cube``, ``multi``, ``obj`` (OBJ_PATH then names the file).

Both packers start from the same UVs with every face selected (UV sync
selection on).  Saves the loop structure (``vert``, ``face_sizes``), the
input UVs and both outputs to OUT.npz for the test's independent checker;
emits the operator's result, its report-free timing, and Blender's time.
"""
from __future__ import annotations

import sys
import time

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import _common
# isort: on
import numpy as np


def main() -> None:
    out, case, margin, seconds = _common.out_path(), sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
    _common.setup()
    if case == "suzanne":
        objects = [_common.suzanne()]
    elif case == "cube":
        objects = [_common.subdivided_cube()]
    elif case == "multi":
        objects = _common.multi_objects()
    elif case == "obj":
        objects = _common.imported_obj(sys.argv[5])
    else:
        raise SystemExit(f"unknown case {case!r}")
    before = _common.read_loops(objects)
    _common.select_all_faces()
    t0 = time.perf_counter()
    # islands ``margin`` apart and no band at the border, as the benchmarks compare (Blender's FRACTION
    # margin, half the gap, also keeps a band at the border): a pixel margin has none
    result = bpy.ops.uv.uvnest_pack(margin_method="PIXELS", margin_pixels=margin * 1024, texture_size=1024,
                                    time_limit=seconds, stall_limit=0.0, merge_overlap=False)
    uvnest_seconds = time.perf_counter() - t0
    packed = _common.read_loops(objects)

    _common.set_loop_uvs(objects, before["uvs"])
    _common.select_all_faces()
    blender_seconds = _common.blender_pack(margin)
    blender = _common.read_loops(objects)

    np.savez(out, vert=before["vert"], face_sizes=before["face_sizes"], uvs_in=before["uvs"],
             uvs_uvnest=packed["uvs"], uvs_blender=blender["uvs"])
    _common.emit({"result": sorted(result), "objects": len(objects), "loops": int(len(before["uvs"])),
                  "faces": int(len(before["face_sizes"])), "uvnest_seconds": uvnest_seconds,
                  "blender_seconds": blender_seconds})


if __name__ == "__main__":
    main()
