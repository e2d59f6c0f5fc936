"""The Pack Islands (uvnest) operator: a thin Blender shell over
:class:`uvnest.live.LiveSession`.

:class:`PackJob` is the Blender side of one pack: it reads the selected
faces of every mesh in edit mode (bmesh), runs the session and writes
layouts into the edit meshes.  The operator drives it two ways:

* ``invoke`` (menus, the sidebar button): the search runs in a worker
  thread; a window-manager timer polls it every ``TIMER_SECONDS`` and writes
  each better layout.  Enter, Space or a left click keeps the best layout;
  Esc or a right click restores the original UVs and cancels.  It ends by
  itself at the time or iteration limit, or after the set seconds without
  improvement.
* ``execute`` (scripts, background mode): the search runs synchronously for
  the limits, then the best layout is written.

Finishing adds one undo step, "Pack Islands (uvnest)"; cancelling adds none.
There is no redo panel: redoing would run the whole search again on the
main thread and freeze Blender for up to the time limit.

The session survives ordinary editing.  No BMesh element is kept from one
timer tick to the next: each mesh is held by its object, its mesh and the
BMesh wrapper, which Blender invalidates when it frees the BMesh (undo,
redo, leaving Edit Mode, loading a file); loops are addressed by face index
and corner.  Every tick first checks that all of it is still there.  When
it is not, the session ends: the worker is stopped, the timer, header and
status text are cleared, and each mesh that still holds a streamed layout
gets its original UVs back (a mesh whose UVs changed otherwise, by an undo
for example, is left as it is); an INFO report says why.

Writing UVs through bmesh costs about 0.7 microseconds a loop on the main
thread.  Up to ``overlay.WRITTEN_LOOPS_MAX`` moving loops each better layout
is written into the meshes (in slices of at most ``WRITE_SLICE_SECONDS`` a
tick) and shown (``bmesh.update_edit_mesh`` and a redraw) once it is whole;
the 3D views show it too.  Denser meshes stream as a drawing over the UV
editors (:mod:`.overlay`), and their meshes are written once, when the
layout is kept.  Either way a layout is shown at most every
``REDRAW_INTERVAL`` seconds.
"""
# No ``from __future__ import annotations``: Blender reads the property
# definitions from the class annotations, which must stay objects.
import itertools
import time
import traceback
from dataclasses import replace
from typing import Any, Optional, Set

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable outside Blender
import bmesh
# isort: on
import numpy as np
from bpy.types import Context, Event, Object, Operator

from .._faces import corners_of
from ..live import KEYS_TEXT, Layout, Limits, LiveSession, MeshLoops, PackError
from .overlay import WRITTEN_LOOPS_MAX, LayoutOverlay
from .props import PackProperties, limits_from, settings_from

#: Seconds between two looks at the running search (a tick does little unless a
#: layout is being written, and then at most ``WRITE_SLICE_SECONDS``).
TIMER_SECONDS = 0.02
#: Main-thread seconds one tick may spend writing UVs (a dense mesh's layout
#: takes several ticks; Blender stays responsive in between).
WRITE_SLICE_SECONDS = 0.015
#: Faces written between two looks at the clock.
WRITE_BATCH_FACES = 256
#: Shortest time between two streamed layouts shown: at most 10 redraws a second.
REDRAW_INTERVAL = 0.1
#: Time limit of ``execute`` when no limit at all is set (it cannot run "until stopped").
SCRIPT_TIME_LIMIT = 10.0
#: Seconds to wait for the worker to stop after a keep, a cancel or an abandon.
STOP_TIMEOUT = 0.5
KEEP_EVENTS = {"RET", "NUMPAD_ENTER", "SPACE", "LEFTMOUSE"}
CANCEL_EVENTS = {"ESC", "RIGHTMOUSE"}
#: Events passed on while packing, so that the views can be panned and zoomed.
VIEW_EVENTS = {"MIDDLEMOUSE", "WHEELUPMOUSE", "WHEELDOWNMOUSE", "WHEELINMOUSE", "WHEELOUTMOUSE",
               "TRACKPADPAN", "TRACKPADZOOM", "MOUSEMOVE", "INBETWEEN_MOUSEMOVE", "NUMPAD_PLUS",
               "NUMPAD_MINUS"}

# Blender 5.0 keeps the UV selection on the loop; Blender 3.x and 4.x on the UV layer item.
_UV_SELECT_ON_LOOP = hasattr(bmesh.types.BMLoop, "uv_select_vert")


class MeshGone(Exception):
    """A mesh being packed is no longer the one that was read; the message says why."""


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """True when two float32 arrays hold the same bits."""
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


class EditMeshUVs:
    """One mesh in edit mode, held by identity, never by its elements.

    Keeps the mesh and its BMesh wrapper (checked on every use),
    the faces that move and, for their loops, the original UVs and the UVs
    written into the mesh so far.
    """

    def __init__(self, obj: Object) -> None:
        self.mesh = obj.data
        self.name = obj.name
        #: per material slot its material's name ("" for an empty slot)
        self.materials = [slot.material.name if slot.material is not None else "" for slot in obj.material_slots]
        self.bm = bmesh.from_edit_mesh(self.mesh)
        layer = self.bm.loops.layers.uv.active
        self.layer_name: Optional[str] = None if layer is None else layer.name
        self.n_faces = len(self.bm.faces)
        self.n_loops = 0
        self.loops = np.zeros(0, np.int64)         # moving loops (mesh loop indices, face order)
        self.faces = np.zeros(0, np.int64)         # their faces, in order
        self.face_first = np.zeros(1, np.int64)    # per moving face, its first row in ``loops`` (+ the end)
        self.original = np.zeros((0, 2), np.float32)
        self.written = np.zeros((0, 2), np.float32)
        self._target: Optional[np.ndarray] = None  # the layout being written, and how far
        self._todo = np.zeros(0, np.int64)         # its faces to write (positions in ``faces``)
        self._cursor = 0

    # ---------------------------------------------------------- identity

    def live_bmesh(self) -> Any:
        """The BMesh, when it is still the one that was read; else raise :class:`MeshGone`."""
        try:
            if not self.mesh.is_editmode:
                raise MeshGone(f"{self.name} left Edit Mode")
            bm = bmesh.from_edit_mesh(self.mesh)
        except ReferenceError:
            raise MeshGone("an object being packed was deleted") from None
        if bm is not self.bm or not bm.is_valid or len(bm.faces) != self.n_faces:
            raise MeshGone(f"{self.name} changed (undo, redo or an edit)")
        if self.layer_name is not None and bm.loops.layers.uv.get(self.layer_name) is None:
            raise MeshGone(f"{self.name} lost its UV map {self.layer_name!r}")
        return bm

    # ------------------------------------------------------------- read

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
        self.n_loops = int(total.sum())
        selected = np.fromiter((f.select for f in faces), bool, n_faces)
        hidden = np.fromiter((f.hide for f in faces), bool, n_faces)
        if self.layer_name is None or n_faces == 0:
            return MeshLoops(None, start, total, np.zeros(self.n_loops, np.int64), selected, hidden,
                             np.zeros(n_faces, bool), self.name)
        uv = self.bm.loops.layers.uv[self.layer_name]
        self.bm.verts.index_update()
        loops = [loop for f in faces for loop in f.loops]  # local: no element outlives this call
        n = len(loops)
        uvs = np.fromiter(itertools.chain.from_iterable(loop[uv].uv for loop in loops), np.float32, 2 * n)
        verts = np.fromiter((loop.vert.index for loop in loops), np.int64, n)
        pinned = np.logical_or.reduceat(np.fromiter((loop[uv].pin_uv for loop in loops), bool, n), start)
        shown = None  # with UV sync selection every visible face is in the UV editor
        if not sync:
            shown = selected & ~hidden  # the UV editor shows the faces selected in the mesh
            if _UV_SELECT_ON_LOOP:
                uv_selected = np.fromiter((loop.uv_select_vert for loop in loops), bool, n)
            else:
                uv_selected = np.fromiter((loop[uv].select for loop in loops), bool, n)
            selected &= np.logical_and.reduceat(uv_selected, start)
        names = np.array(self.materials + [""], str)   # an index past the slots: no material
        slot = np.fromiter((f.material_index for f in faces), np.int64, n_faces)
        material = names[np.minimum(slot, len(self.materials))]
        return MeshLoops(uvs.reshape(-1, 2), start, total, verts, selected, hidden, pinned, self.name, shown,
                         material)

    def bind(self, moving_loops: np.ndarray, original: np.ndarray, loop_total: np.ndarray) -> None:
        """Remember the loops that move (whole faces, in face order: the
        session's ``moving_loops``) and their original UVs."""
        self.loops = np.asarray(moving_loops, np.int64)
        self.original = np.array(original, np.float32)
        self.written = self.original.copy()
        face_of_loop = np.repeat(np.arange(len(loop_total), dtype=np.int64), loop_total)[self.loops]
        starts = np.flatnonzero(np.diff(face_of_loop, prepend=-1) != 0) if face_of_loop.size else face_of_loop
        self.faces = face_of_loop[starts]
        self.face_first = np.append(starts, face_of_loop.size).astype(np.int64)

    # ------------------------------------------------------------ write

    def begin(self, uvs: np.ndarray) -> None:
        """Start writing ``uvs`` (one row per moving loop): only the faces
        whose UVs differ from what the mesh holds are written (islands the
        search did not move keep their loops; a loop costs the main thread
        a quarter of a microsecond to write from Python, and a dense mesh
        has a hundred thousand)."""
        self._target = np.asarray(uvs, np.float32)
        moved = (self._target != self.written).any(axis=1)
        self._todo = (np.flatnonzero(np.logical_or.reduceat(moved, self.face_first[:-1]))
                      if len(self.faces) else np.zeros(0, np.int64))
        self._cursor = 0

    def write_some(self, deadline: float) -> bool:
        """Write the started layout until ``deadline`` (``time.perf_counter``);
        True once it is whole (then the edit mesh is updated for drawing).
        Raises :class:`MeshGone` when the mesh is no longer the one read."""
        if self._target is None:
            return True
        bm = self.live_bmesh()
        faces = bm.faces
        faces.ensure_lookup_table()
        uv = bm.loops.layers.uv[self.layer_name]
        k, n = self._cursor, len(self._todo)
        while k < n:
            end = min(k + WRITE_BATCH_FACES, n)
            batch = self._todo[k:end]
            loops = corners_of(self.face_first, batch)
            rows = iter(self._target[loops].tolist())
            for fi in self.faces[batch].tolist():
                for loop in faces[fi].loops:
                    loop[uv].uv = next(rows)
            self.written[loops] = self._target[loops]
            k = end
            if time.perf_counter() >= deadline:
                break
        self._cursor = k
        if k < n:
            return False
        self._target = None
        bmesh.update_edit_mesh(self.mesh, loop_triangles=False, destructive=False)
        return True

    def write_all(self, uvs: np.ndarray) -> None:
        """Write ``uvs`` whole, now."""
        self.begin(uvs)
        self.write_some(float("inf"))

    # ---------------------------------------------------------- restore

    def restore_if_streamed(self) -> bool:
        """After the session broke off: give the moving loops their original
        UVs back where the mesh still holds what was written (in Edit Mode,
        or in the mesh data after leaving it).  A mesh that was deleted, or
        whose UVs changed otherwise (an undo), is left alone.  True when UVs
        were restored."""
        if _same_bits(self.written, self.original):
            return False
        try:
            if self.mesh.is_editmode:
                return self._restore_edit_mesh()
            return self._restore_mesh_data()
        except ReferenceError:
            return False

    def _restore_edit_mesh(self) -> bool:
        bm = bmesh.from_edit_mesh(self.mesh)
        uv = bm.loops.layers.uv.get(self.layer_name) if self.layer_name is not None else None
        if uv is None or len(bm.faces) != self.n_faces:
            return False
        faces = bm.faces
        faces.ensure_lookup_table()
        now = np.array([loop[uv].uv[:] for fi in self.faces.tolist() for loop in faces[fi].loops],
                       np.float32).reshape(-1, 2)
        if not _same_bits(now, self.written):
            return False
        self.bm = bm
        self.write_all(self.original)
        return True

    def _restore_mesh_data(self) -> bool:
        layer = self.mesh.uv_layers.get(self.layer_name) if self.layer_name is not None else None
        if layer is None or len(self.mesh.loops) != self.n_loops:
            return False
        flat = np.empty(2 * self.n_loops, np.float32)
        layer.data.foreach_get("uv", flat)
        full = flat.reshape(-1, 2)
        if not _same_bits(full[self.loops], self.written):
            return False
        full[self.loops] = self.original
        layer.data.foreach_set("uv", flat)
        self.mesh.update()
        self.written = self.original.copy()
        return True


class PackJob:
    """The Blender side of one pack: the meshes in edit mode, their session,
    and the layout written into them (or, with ``streamed`` and more than
    ``WRITTEN_LOOPS_MAX`` moving loops, drawn over the UV editors until it
    is kept).

    Raises :class:`uvnest.live.PackError` when there is nothing to pack.
    """

    def __init__(self, context: Context, options: Any, limits: Limits, streamed: bool = False) -> None:
        sync = context.scene.tool_settings.use_uv_select_sync
        objects = [obj for obj in context.objects_in_mode_unique_data if obj.type == "MESH"]
        self.meshes = [EditMeshUVs(obj) for obj in objects]
        loops = [m.read(sync) for m in self.meshes]
        self.session = LiveSession(loops, settings_from(options, context), limits)
        for m, read, moving, original in zip(self.meshes, loops, self.session.moving_loops,
                                             self.session.original):
            m.bind(moving, original, read.loop_total)
        self.applied: Optional[Layout] = None
        self._writing: Optional[Layout] = None
        self._shown_at = -REDRAW_INTERVAL
        self._read_uvs = [read.uvs for read in loops]
        self.overlay: Optional[LayoutOverlay] = None
        if streamed and sum(len(m) for m in self.session.moving_loops) > WRITTEN_LOOPS_MAX:
            try:
                self.overlay = LayoutOverlay(context.window_manager, loops)
            except Exception:  # nothing to draw with (no GPU): write the layouts
                traceback.print_exc()

    # ---------------------------------------------------------- checks

    def check(self, context: Context) -> None:
        """Raise :class:`MeshGone` unless Edit Mode and every mesh read are still there."""
        if context.mode != "EDIT_MESH":
            raise MeshGone("Edit Mode was left")
        for m in self.meshes:
            m.live_bmesh()

    # --------------------------------------------------------- streaming

    @property
    def writing(self) -> bool:
        """True while a streamed layout is only partly written."""
        return self._writing is not None

    def update(self) -> bool:
        """Write a slice of the newest better layout (or draw it whole);
        True when one became whole this tick (then the views want a
        redraw)."""
        now = time.perf_counter()
        if self._writing is None:
            if now - self._shown_at < REDRAW_INTERVAL:
                return False
            layout = self.session.poll()
            if layout is None:
                return False
            if self.overlay is not None:
                self.overlay.show(self.session.full_uvs(self._read_uvs, layout))
                self._shown_at = time.perf_counter()
                return True
            self._writing = layout
            for m, uvs in zip(self.meshes, layout.loop_uvs):
                m.begin(uvs)
        deadline = now + WRITE_SLICE_SECONDS
        if not all([m.write_some(deadline) for m in self.meshes]):
            return False
        self.applied, self._writing = self._writing, None
        self._shown_at = time.perf_counter()
        return True

    def write_all(self, layout: Layout) -> None:
        """Write ``layout`` whole, now."""
        for m, uvs in zip(self.meshes, layout.loop_uvs):
            m.write_all(uvs)
        self.applied, self._writing = layout, None

    # --------------------------------------------------------------- end

    def keep(self) -> Optional[Layout]:
        """Stop the search and leave the best layout in the meshes (None when
        it stopped before the first layout: then the original UVs are back)."""
        layout = self.session.keep(STOP_TIMEOUT)
        if layout is None:
            self.restore()
            return None
        if layout is not self.applied or self._writing is not None:
            self.write_all(layout)
        return layout

    def restore(self) -> None:
        """Write the original UVs back, bit for bit, where anything was written."""
        for m in self.meshes:
            if not _same_bits(m.written, m.original):
                m.write_all(m.original)
        self.applied, self._writing = None, None

    def cancel(self) -> None:
        """Stop the search and write the original UVs back."""
        self.session.cancel(STOP_TIMEOUT)
        self.restore()

    def abandon(self) -> bool:
        """Stop the search after the meshes changed under it: restore what
        still holds a streamed layout, touch nothing else.  True when any
        mesh was restored."""
        self.session.cancel(STOP_TIMEOUT)
        restored = False
        for m in self.meshes:
            restored |= m.restore_if_streamed()
        return restored

    @property
    def shown_in(self) -> Set[str]:
        """The kinds of areas a streamed layout shows in."""
        return {"IMAGE_EDITOR"} if self.overlay is not None else {"IMAGE_EDITOR", "VIEW_3D"}

    def close(self) -> None:
        """Stop drawing streamed layouts (the count of those drawn stays)."""
        if self.overlay is not None:
            self.overlay.remove()

    def summary(self, layout: Layout) -> str:
        """A report line for ``layout``."""
        p = self.session.progress
        why = f" ({p.reason})" if p.reason else ""
        drawn = f"; {self.overlay.drawn} layouts drawn while streaming" if self.overlay is not None else ""
        return (f"Packed {layout.islands} islands: coverage {layout.coverage:.1%}, scale {layout.scale:.4g}, "
                f"{p.iterations:,} iterations in {p.elapsed:.1f} s{why}{drawn}")


def _redraw(context: Context, kinds: Set[str] = frozenset({"IMAGE_EDITOR", "VIEW_3D"})) -> None:
    """Redraw the areas of these kinds (the UV editors and 3D views) in every window."""
    for window in context.window_manager.windows:
        for area in window.screen.areas if window.screen is not None else ():
            if area.type in kinds:
                area.tag_redraw()


def _area_by_pointer(context: Context, pointer: int) -> Any:
    """The area whose address is ``pointer`` in any window, or None once it was closed."""
    for window in context.window_manager.windows:
        for area in window.screen.areas if window.screen is not None else ():
            if area.as_pointer() == pointer:
                return area
    return None


class UV_OT_uvnest_pack(PackProperties, Operator):
    """Pack the selected UV islands with uvnest's search; the layout improves while it runs"""

    bl_idname = "uv.uvnest_pack"
    bl_label = "Pack Islands (uvnest)"
    # No REGISTER: the redo panel would re-run the whole search synchronously.
    bl_options = {"UNDO"}

    @classmethod
    def poll(cls, context: Context) -> bool:
        return context.mode == "EDIT_MESH"

    def execute(self, context: Context) -> Set[str]:
        called = time.perf_counter()  # time limits count from the call
        limits = limits_from(self)
        if not limits.bounded:
            limits = replace(limits, time_limit=SCRIPT_TIME_LIMIT)
        try:
            job = PackJob(context, self, limits)
            layout = job.session.run(called)
        except PackError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        job.write_all(layout)
        self.report({"INFO"}, job.summary(layout))
        return {"FINISHED"}

    def invoke(self, context: Context, event: Event) -> Set[str]:
        if bpy.app.background or context.window is None:
            return self.execute(context)  # no event loop to drive a modal operator
        called = time.perf_counter()  # time limits count from the call
        try:
            self._job = PackJob(context, self, limits_from(self), streamed=True)
        except PackError as exc:
            self.report({"ERROR"}, str(exc))
            return {"CANCELLED"}
        self._area = context.area.as_pointer() if context.area is not None else 0
        self._status_at = -REDRAW_INTERVAL
        self._timer = None
        try:
            self._job.session.start(called)
            wm = context.window_manager
            self._timer = wm.event_timer_add(TIMER_SECONDS, window=context.window)
            wm.modal_handler_add(self)
            self._show_status(context)
        except BaseException:  # no worker, timer, drawing or header left behind
            try:
                self._job.session.cancel(STOP_TIMEOUT)
            finally:
                self._clear(context)
            raise
        return {"RUNNING_MODAL"}

    def modal(self, context: Context, event: Event) -> Set[str]:
        try:
            return self._step(context, event)
        except Exception as exc:  # never leave a worker, a timer or a header behind
            traceback.print_exc()
            try:
                self._job.abandon()
            finally:
                self._clear(context)
            self.report({"ERROR"}, f"uvnest stopped: {type(exc).__name__}: {exc}")
            return {"CANCELLED"}

    def _step(self, context: Context, event: Event) -> Set[str]:
        job = self._job
        try:
            job.check(context)
            if self._area and _area_by_pointer(context, self._area) is None:
                raise MeshGone("the editor it ran in was closed")
            if event.type == "TIMER" and job.update():
                _redraw(context, job.shown_in)
        except MeshGone as gone:
            return self._abandon(context, str(gone))
        if event.type == "TIMER":
            if job.session.error is not None:
                return self._finish(context, keep=False)
            if job.session.done and not job.writing:
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
        try:
            self._job.session.cancel(STOP_TIMEOUT)
        finally:
            self._clear(context)

    # ------------------------------------------------------------ status

    def _header_area(self, context: Context) -> Any:
        return _area_by_pointer(context, self._area) if self._area else None

    def _show_status(self, context: Context) -> None:
        """The header and status text, at most every ``REDRAW_INTERVAL``."""
        now = time.perf_counter()
        if now - self._status_at < REDRAW_INTERVAL:
            return
        self._status_at = now
        area = self._header_area(context)
        if area is not None:
            area.header_text_set(f"{self._job.session.status_text()}   |   {KEYS_TEXT}")
        if context.workspace is not None:
            context.workspace.status_text_set(KEYS_TEXT)

    def _clear(self, context: Context) -> None:
        """Remove the timer, the drawing, the header and the status text
        (once), and redraw."""
        self._job.close()
        timer, self._timer = self._timer, None
        if timer is not None:
            context.window_manager.event_timer_remove(timer)
        area = self._header_area(context)
        if area is not None:
            area.header_text_set(None)
        if context.workspace is not None:
            context.workspace.status_text_set(None)
        _redraw(context)

    # --------------------------------------------------------------- end

    def _abandon(self, context: Context, why: str) -> Set[str]:
        """End after the meshes or the editor changed under the session."""
        try:
            restored = self._job.abandon()
        finally:
            self._clear(context)
        after = "original UVs restored" if restored else "UVs left as they are"
        self.report({"INFO"}, f"Pack stopped: {why}; {after}")
        return {"CANCELLED"}

    def _finish(self, context: Context, keep: bool) -> Set[str]:
        """Keep the best layout or restore the original UVs, and end."""
        job = self._job
        error = job.session.error
        layout: Optional[Layout] = None
        try:
            if keep and error is None:
                layout = job.keep()
            else:
                job.cancel()
        finally:
            self._clear(context)
        if layout is not None:
            self.report({"INFO"}, job.summary(layout))
            return {"FINISHED"}
        if error is not None:
            self.report({"ERROR"}, str(error))
        elif keep:
            self.report({"WARNING"}, "Stopped before the first layout: nothing changed")
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
