"""The modal operator on a real mesh, its own ``modal()`` fed with events; undo of the operator.

Usage: ``<bpy python> live_modal.py CASE WANT`` with CASE ``suzanne`` or
``scattered`` (random rectangles: many improvements in a second); each run
takes events until WANT layouts were written (or 20 s passed).  Suzanne
(a real model) is cancelled with Esc and kept with Enter; the scattered
islands also go through the other keys, the iteration limit and an error.

The bpy module has no event loop: Blender never sends timer or key events,
and ``invoke()`` cannot hand a modal handler to a window manager that never
runs.  So the script sets up what ``invoke()`` sets up (a ``PackJob`` whose
worker thread is started, a real window-manager timer) on a stand-in object
that carries the operator's own ``modal``, ``_finish``, ``_show_status`` and
``_clear_status`` functions, and calls ``modal()`` with TIMER events (every
50 ms, as the timer would), a view event, an unrelated key, and finally
Enter or Esc.  Meshes are read back through bmesh and through the mesh data
in object mode, independently of the job.

Then the undo of the operator: an undo step is pushed, the operator runs,
``ed.undo`` must bring back the UVs from before bit for bit, ``ed.redo`` the
packed ones (one undo step); a cancelled run (an error) must leave no step.
"""
from __future__ import annotations

import sys
import time
from types import SimpleNamespace
from typing import Any, List, Set, Tuple

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
import _common
# isort: on
import numpy as np

from uvnest.blender.operators import TIMER_SECONDS, UV_OT_uvnest_pack, PackJob
from uvnest.blender.props import limits_from


class ModalStandIn:
    """The state ``invoke()`` leaves on the operator, with the operator's own methods."""

    modal = UV_OT_uvnest_pack.modal
    _step = UV_OT_uvnest_pack._step
    _finish = UV_OT_uvnest_pack._finish
    _abandon = UV_OT_uvnest_pack._abandon
    _show_status = UV_OT_uvnest_pack._show_status
    _header_area = UV_OT_uvnest_pack._header_area
    _clear = UV_OT_uvnest_pack._clear

    def __init__(self, job: PackJob) -> None:
        self._job = job
        self._area = 0  # no editor: the bpy module has no screen areas
        self._status_at = -1.0
        self._timer = bpy.context.window_manager.event_timer_add(TIMER_SECONDS, window=bpy.context.window)
        self.reports: List[Tuple[List[str], str]] = []

    def report(self, kind: Set[str], text: str) -> None:
        self.reports.append((sorted(kind), text))


def event(kind: str, value: str = "PRESS") -> Any:
    return SimpleNamespace(type=kind, value=value)


def bmesh_uvs(obj: bpy.types.Object) -> np.ndarray:
    """All loop UVs of the edit mesh, in face order (float32)."""
    bm = bmesh.from_edit_mesh(obj.data)
    uv = bm.loops.layers.uv.active
    return np.array([loop[uv].uv[:] for face in bm.faces for loop in face.loops], dtype=np.float32)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(np.asarray(a, np.float32).view(np.uint32), np.asarray(b, np.float32).view(np.uint32)))


def drive(obj: bpy.types.Object, finish: str, want: int, **options: Any) -> dict:
    """Feed ``modal()`` timer events until ``want`` layouts were written or it
    ends by itself, then ``finish`` (an event type, e.g. ``RET`` or ``ESC``)."""
    settings = bpy.context.scene.uvnest
    settings.margin = 0.005
    settings.merge_overlap = False
    settings.time_limit = 20.0
    settings.stall_limit = 0.0
    settings.iteration_limit = 0
    for key, value in options.items():
        setattr(settings, key, value)
    original = bmesh_uvs(obj)
    op = ModalStandIn(PackJob(bpy.context, settings, limits_from(settings)))
    op._job.session.start()
    loops = op._job.session.moving_loops[0]
    coverages: List[float] = []
    numbers: List[int] = []
    written_ok = True
    states = set()
    t0 = time.perf_counter()
    state = {"RUNNING_MODAL"}
    while len(coverages) < want and state == {"RUNNING_MODAL"}:
        before = op._job.applied
        state = op.modal(bpy.context, event("TIMER", "NOTHING"))
        states.add(tuple(state))
        layout = op._job.applied
        if layout is not None and layout is not before:
            written_ok &= same_bits(bmesh_uvs(obj)[loops], layout.loop_uvs[0])
            coverages.append(layout.coverage)
            numbers.append(layout.number)
        time.sleep(TIMER_SECONDS)
    result = {"view_event": sorted(op.modal(bpy.context, event("MIDDLEMOUSE"))) if state == {"RUNNING_MODAL"} else [],
              "other_key": sorted(op.modal(bpy.context, event("A"))) if state == {"RUNNING_MODAL"} else [],
              "status": op._job.session.status_text(),
              "changed_while_running": not same_bits(bmesh_uvs(obj), original)}
    if state == {"RUNNING_MODAL"}:
        state = op.modal(bpy.context, event(finish))
    best = op._job.session.best
    final = bmesh_uvs(obj)
    in_mesh = _common.read_loops([obj])["uvs"]  # through object mode and the mesh data
    result.update(result=sorted(state), timer_states=sorted(states), reports=op.reports, coverages=coverages,
                  numbers=numbers, written_ok=written_ok, seconds=time.perf_counter() - t0,
                  reason=op._job.session.progress.reason, restored=same_bits(final, original),
                  final_is_best=best is not None and same_bits(final[loops], best.loop_uvs[0]),
                  best_coverage=best.coverage if best is not None else 0.0,
                  mesh_matches_bmesh=same_bits(in_mesh, final))
    return result


def mode_switch(obj: bpy.types.Object) -> dict:
    """Leave Edit Mode behind the operator's back once a layout is written:
    the next tick ends the session, stops the worker and restores the
    original UVs in the mesh data."""
    _common.select_all_faces()
    settings = bpy.context.scene.uvnest
    settings.time_limit, settings.stall_limit, settings.margin = 20.0, 0.0, 0.005
    original = bmesh_uvs(obj)
    op = ModalStandIn(PackJob(bpy.context, settings, limits_from(settings)))
    op._job.session.start()
    t0 = time.perf_counter()
    while op._job.applied is None and time.perf_counter() - t0 < 20:
        op.modal(bpy.context, event("TIMER", "NOTHING"))
        time.sleep(TIMER_SECONDS)
    streamed = op._job.applied is not None
    bpy.ops.object.mode_set(mode="OBJECT")
    state = op.modal(bpy.context, event("TIMER", "NOTHING"))
    thread = op._job.session._thread
    out = {"streamed": streamed, "result": sorted(state), "reports": op.reports,
           "worker_alive": thread is not None and thread.is_alive(),
           "restored": same_bits(_common.read_loops([obj])["uvs"], original), "timer_cleared": op._timer is None}
    bpy.ops.object.mode_set(mode="EDIT")
    return out


def undo_checks(obj: bpy.types.Object) -> dict:
    """Undo of a finished run, and no undo step for a cancelled one.

    ``bpy.ops`` calls from Python push no undo step unless asked: the second
    positional argument ``True`` makes Blender push it exactly as the window
    manager does after an operator with ``'UNDO'`` finishes (one step named
    after ``bl_label``); a cancelled operator pushes none.
    """
    _common.select_all_faces()
    bpy.ops.ed.undo_push(message="before uvnest")
    before = bmesh_uvs(obj)
    result = bpy.ops.uv.uvnest_pack("INVOKE_DEFAULT", True, margin=0.004, time_limit=1.0, merge_overlap=False)
    packed = bmesh_uvs(obj)
    bpy.ops.ed.undo()
    undone = bmesh_uvs(obj)
    bpy.ops.ed.redo()
    redone = bmesh_uvs(obj)
    bpy.ops.ed.undo()
    # a cancelled run (an error) must leave the UVs and push no step: a
    # pushed step would drop the redo step of the packed state
    try:
        bpy.ops.uv.uvnest_pack("EXEC_DEFAULT", True, margin_method="FRACTION", margin=0.45, time_limit=1.0)
        error = ""
    except RuntimeError as exc:
        error = str(exc)
    after_error = bmesh_uvs(obj)
    redo_kept = bpy.ops.ed.redo.poll()
    bpy.ops.ed.redo()
    redone_after_error = bmesh_uvs(obj)
    return {"invoke_result": sorted(result), "packed_changed": not same_bits(packed, before),
            "undo_restores": same_bits(undone, before), "redo_repacks": same_bits(redone, packed),
            "error": error, "error_left_uvs": same_bits(after_error, before), "redo_kept_after_error": redo_kept,
            "redo_after_error_repacks": same_bits(redone_after_error, packed)}


def main() -> None:
    case, want = sys.argv[1], int(sys.argv[2])
    _common.setup()
    if case == "suzanne":
        obj = _common.suzanne()
    elif case == "scattered":
        obj = _common.scattered_islands()
    else:
        raise SystemExit(f"unknown case {case!r}")
    out = {"esc": drive(obj, "ESC", want), "enter": drive(obj, "RET", want)}
    if case == "scattered":  # the other keys and endings, where the first layout is quick
        out.update(right_click=drive(obj, "RIGHTMOUSE", 1), space=drive(obj, "SPACE", 1),
                   click=drive(obj, "LEFTMOUSE", 1), iteration_limit=drive(obj, "ESC", 10 ** 6, iteration_limit=30),
                   no_room=drive(obj, "ESC", 10 ** 6, margin_method="FRACTION", margin=0.45))
    out["mode_switch"] = mode_switch(obj)
    out["undo"] = undo_checks(obj)
    _common.emit(out)


if __name__ == "__main__":
    main()
