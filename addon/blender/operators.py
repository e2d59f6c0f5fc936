"""The Pack Islands (uvnest) operator: a thin Blender shell over
:class:`uvnest.live.LiveSession`.

:class:`PackJob` is the Blender side of one pack: it reads the selected
faces of every mesh in edit mode (bmesh), runs the session and writes
layouts into the edit meshes.  The operator drives it two ways:

* ``invoke`` (menus, the sidebar button): the search runs in a worker
  thread; a window-manager timer polls it every ``TIMER_SECONDS`` and writes
  each better layout at once.  Enter, Space or a left click keeps the best
  layout; Esc or a right click restores the original UVs and cancels.  It
  ends by itself at the time or iteration limit, or after the set seconds
  without improvement.
* ``execute`` (scripts, the redo panel, background mode): the search runs
  synchronously for the limits, then the best layout is written.

Finishing adds one undo step, "Pack Islands (uvnest)"; cancelling adds none.
"""
# No ``from __future__ import annotations``: Blender reads the property
# definitions from the class annotations, which must stay objects.
import itertools
from dataclasses import replace
from typing import Any, List, Optional, Set

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable outside Blender
import bmesh
# isort: on
import numpy as np
from bpy.types import Context, Event, Object, Operator

from ..live import KEYS_TEXT, Layout, Limits, LiveSession, MeshLoops, PackError
from .props import PackOptions, draw_options, image_size, limits_from, settings_from

#: Seconds between two looks at the running search.
TIMER_SECONDS = 0.05
#: Time limit of ``execute`` when no limit at all is set (it cannot run "until stopped").
SCRIPT_TIME_LIMIT = 10.0
#: Seconds to wait for the worker to stop after a keep or cancel.
STOP_TIMEOUT = 2.0
KEEP_EVENTS = {"RET", "NUMPAD_ENTER", "SPACE", "LEFTMOUSE"}
CANCEL_EVENTS = {"ESC", "RIGHTMOUSE"}
#: Events passed on while packing, so that the views can be panned and zoomed.
VIEW_EVENTS = {"MIDDLEMOUSE", "WHEELUPMOUSE", "WHEELDOWNMOUSE", "WHEELINMOUSE", "WHEELOUTMOUSE",
               "TRACKPADPAN", "TRACKPADZOOM", "MOUSEMOVE", "INBETWEEN_MOUSEMOVE", "NUMPAD_PLUS",
               "NUMPAD_MINUS"}

# Blender 5.0 keeps the UV selection on the loop; Blender 4.x on the UV layer item.
_UV_SELECT_ON_LOOP = hasattr(bmesh.types.BMLoop, "uv_select_vert")


class EditMeshUVs:
    """One mesh in edit mode: reads its loops, writes UVs to the loops that move."""

    def __init__(self, obj: Object) -> None:
        self.obj = obj
        self.mesh = obj.data
        self.bm = bmesh.from_edit_mesh(self.mesh)
        self.uv_layer = self.bm.loops.layers.uv.active
        self._loops: List[Any] = []
        self._moving: List[Any] = []

    def read(self, sync: bool) -> MeshLoops:
        """The mesh's loops for the session.

        Selected means: with UV sync selection, the face is selected in the
        mesh; without it, the face is selected in the mesh (so the UV editor
        shows it) and all its UVs are selected.  Hidden faces are never
        selected.  A face is pinned when one of its UVs is.
        """
        faces = self.bm.faces
        n_faces = len(faces)
        total = np.fromiter((len(f.loops) for f in faces), np.int64, n_faces)
        start = np.zeros(n_faces, np.int64)
        np.cumsum(total[:-1], out=start[1:])
        selected = np.fromiter((f.select for f in faces), bool, n_faces)
        hidden = np.fromiter((f.hide for f in faces), bool, n_faces)
        uv = self.uv_layer
        if uv is None or n_faces == 0:
            return MeshLoops(None, start, total, np.zeros(int(total.sum()), np.int64), selected, hidden,
                             np.zeros(n_faces, bool), self.obj.name)
        self.bm.verts.index_update()
        self._loops = [loop for f in faces for loop in f.loops]
        n = len(self._loops)
        uvs = np.fromiter(itertools.chain.from_iterable(loop[uv].uv for loop in self._loops), np.float32, 2 * n)
        verts = np.fromiter((loop.vert.index for loop in self._loops), np.int64, n)
        pinned = np.logical_or.reduceat(np.fromiter((loop[uv].pin_uv for loop in self._loops), bool, n), start)
        if not sync:
            if _UV_SELECT_ON_LOOP:
                uv_selected = np.fromiter((loop.uv_select_vert for loop in self._loops), bool, n)
            else:
                uv_selected = np.fromiter((loop[uv].select for loop in self._loops), bool, n)
            selected &= np.logical_and.reduceat(uv_selected, start)
        return MeshLoops(uvs.reshape(-1, 2), start, total, verts, selected, hidden, pinned, self.obj.name)

    def bind(self, loop_indices: np.ndarray) -> None:
        """Remember the loops that move (the session's ``moving_loops`` for this mesh)."""
        self._moving = [self._loops[i] for i in loop_indices.tolist()]

    def write(self, uvs: np.ndarray) -> None:
        """Write ``uvs`` (one row per moving loop) into the edit mesh."""
        if not self._moving:
            return
        uv = self.uv_layer
        for loop, value in zip(self._moving, uvs.tolist()):
            loop[uv].uv = value
        bmesh.update_edit_mesh(self.mesh, loop_triangles=False, destructive=False)


class PackJob:
    """The Blender side of one pack: the meshes in edit mode, their session,
    and the layout currently written into them.

    Raises :class:`uvnest.live.PackError` when there is nothing to pack.
    """

    def __init__(self, context: Context, options: Any, limits: Limits) -> None:
        sync = context.scene.tool_settings.use_uv_select_sync
        objects = [obj for obj in context.objects_in_mode_unique_data if obj.type == "MESH"]
        self.meshes = [EditMeshUVs(obj) for obj in objects]
        loops = [m.read(sync) for m in self.meshes]
        self.session = LiveSession(loops, settings_from(options, context), limits)
        for m, moving in zip(self.meshes, self.session.moving_loops):
            m.bind(moving)
        self.applied: Optional[Layout] = None

    def write(self, uvs_per_mesh: Any) -> None:
        """Write per-mesh UVs of the moving loops into the edit meshes."""
        for m, uvs in zip(self.meshes, uvs_per_mesh):
            m.write(uvs)

    def update(self) -> Optional[Layout]:
        """Write the newest better layout, if any; return it."""
        layout = self.session.poll()
        if layout is not None:
            self.write(layout.loop_uvs)
            self.applied = layout
        return layout

    def keep(self) -> Optional[Layout]:
        """Stop the search and leave the best layout in the meshes (None and
        nothing changed when it stopped before the first layout)."""
        layout = self.session.keep(STOP_TIMEOUT)
        if layout is not None and layout is not self.applied:
            self.write(layout.loop_uvs)
            self.applied = layout
        return layout

    def cancel(self) -> None:
        """Stop the search and write the original UVs back, bit for bit."""
        originals = self.session.cancel(STOP_TIMEOUT)
        if self.applied is not None:
            self.write(originals)
            self.applied = None

    def summary(self, layout: Layout) -> str:
        """A report line for ``layout``."""
        p = self.session.progress
        why = f" ({p.reason})" if p.reason else ""
        return (f"Packed {layout.islands} islands: coverage {layout.coverage:.1%}, scale {layout.scale:.4g}, "
                f"{p.iterations:,} iterations in {p.elapsed:.1f} s{why}")


def _redraw(context: Context) -> None:
    """Redraw the UV editors and 3D views of the screen."""
    screen = context.screen
    for area in screen.areas if screen is not None else ():
        if area.type in {"IMAGE_EDITOR", "VIEW_3D"}:
            area.tag_redraw()


class UV_OT_uvnest_pack(PackOptions, Operator):
    """Pack the selected UV islands with uvnest's search; the layout improves while it runs"""

    bl_idname = "uv.uvnest_pack"
    bl_label = "Pack Islands (uvnest)"
    bl_options = {"REGISTER", "UNDO"}

    @classmethod
    def poll(cls, context: Context) -> bool:
        return context.mode == "EDIT_MESH"

    def draw(self, context: Context) -> None:
        draw_options(self.layout, self, image_size(context))

    def execute(self, context: Context) -> Set[str]:
        limits = limits_from(self)
        if not limits.bounded:
            limits = replace(limits, time_limit=SCRIPT_TIME_LIMIT)
        try:
            job = PackJob(context, self, limits)
            layout = job.session.run()
        except PackError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        job.write(layout.loop_uvs)
        self.report({"INFO"}, job.summary(layout))
        return {"FINISHED"}

    def invoke(self, context: Context, event: Event) -> Set[str]:
        if bpy.app.background or context.window is None:
            return self.execute(context)  # no event loop to drive a modal operator
        try:
            self._job = PackJob(context, self, limits_from(self))
        except PackError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self._job.session.start()
        wm = context.window_manager
        self._timer = wm.event_timer_add(TIMER_SECONDS, window=context.window)
        wm.modal_handler_add(self)
        self._show_status(context)
        return {"RUNNING_MODAL"}

    def modal(self, context: Context, event: Event) -> Set[str]:
        job = self._job
        if event.type == "TIMER":
            if job.update() is not None:
                _redraw(context)
            if job.session.error is not None:
                return self._finish(context, keep=False)
            if job.session.done:
                return self._finish(context, keep=True)
            self._show_status(context)
            return {"RUNNING_MODAL"}
        if event.value == "PRESS" and event.type in KEEP_EVENTS:
            return self._finish(context, keep=True)
        if event.value == "PRESS" and event.type in CANCEL_EVENTS:
            return self._finish(context, keep=False)
        if event.type in VIEW_EVENTS:
            return {"PASS_THROUGH"}
        return {"RUNNING_MODAL"}

    def cancel(self, context: Context) -> None:
        # Blender ends the modal operator (window closed, file loaded): stop
        # the worker without touching meshes that may be going away.
        self._job.session.cancel(STOP_TIMEOUT)
        self._clear_status(context)

    def _show_status(self, context: Context) -> None:
        if context.area is not None:
            context.area.header_text_set(f"{self._job.session.status_text()}   |   {KEYS_TEXT}")
        if context.workspace is not None:
            context.workspace.status_text_set(KEYS_TEXT)

    def _clear_status(self, context: Context) -> None:
        context.window_manager.event_timer_remove(self._timer)
        if context.area is not None:
            context.area.header_text_set(None)
        if context.workspace is not None:
            context.workspace.status_text_set(None)

    def _finish(self, context: Context, keep: bool) -> Set[str]:
        """Keep the best layout or restore the original UVs, and end."""
        job = self._job
        self._clear_status(context)
        error = job.session.error
        if keep and error is None:
            layout = job.keep()
            _redraw(context)
            if layout is None:
                self.report({"WARNING"}, "Stopped before the first layout: nothing changed")
                return {"CANCELLED"}
            self.report({"INFO"}, job.summary(layout))
            return {"FINISHED"}
        job.cancel()
        _redraw(context)
        if error is not None:
            self.report({"ERROR"}, str(error))
        else:
            self.report({"INFO"}, "Pack cancelled: original UVs restored")
        return {"CANCELLED"}


classes = (UV_OT_uvnest_pack,)


def register() -> None:
    """Register the operator."""
    for cls in classes:
        bpy.utils.register_class(cls)


def unregister() -> None:
    """Unregister the operator."""
    for cls in reversed(classes):
        bpy.utils.unregister_class(cls)
