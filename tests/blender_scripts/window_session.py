"""The modal operator in a real Blender window: real timer ticks, real key events.

Usage (from ``tests/test_blender_window.py``)::

    xvfb-run blender --factory-startup --enable-event-simulate EMPTY.blend \\
        --python window_session.py -- OUT_DIR MODEL.obj CASE [CASE ...]

Blender opens a window (no splash: a file is given) and runs its own event
loop; this script only registers the add-on and one ``bpy.app.timers``
function that drives each case as a generator: a case yields the seconds to
wait before its next step.  The operator is started as a user starts it,
``bpy.ops.uv.uvnest_pack('INVOKE_DEFAULT')`` in the context of the UV
editor of the "UV Editing" workspace, and keys are pressed with
``window.event_simulate``.  The checks read the meshes independently of the
add-on (bmesh in Edit Mode, ``mesh.uv_layers`` in Object Mode), the worker
threads with ``threading.enumerate``; the test reads the reports from
Blender's output.  Results go to ``OUT_DIR/result.json``; Blender quits at the end.
"""
from __future__ import annotations

import json
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, Dict, Generator, List, Optional

# isort: off
import bpy  # first: importing bpy is what makes bmesh importable
import bmesh
# isort: on
import numpy as np

Case = Generator[float, None, None]

args = sys.argv[sys.argv.index("--") + 1:]
OUT = Path(args[0])
MODEL = Path(args[1])
CASES = args[2:]
results: Dict[str, Any] = {"blender": bpy.app.version_string, "numpy": np.__version__}
#: Seconds between two looks at the mesh while waiting for layouts.
LOOK = 0.02


# ----------------------------------------------------------------- scene


def window() -> Any:
    return bpy.context.window_manager.windows[0]


def uv_area() -> Any:
    """The UV editor of the current screen (the largest image editor)."""
    areas = [a for a in window().screen.areas if a.type == "IMAGE_EDITOR"]
    return max(areas, key=lambda a: a.width * a.height) if areas else None


def region_of(area: Any) -> Any:
    return next(r for r in area.regions if r.type == "WINDOW")


def override(area: Optional[Any] = None) -> Any:
    """The context of ``area`` (default: the UV editor) in the window."""
    area = area or uv_area()
    if area is None:
        return bpy.context.temp_override(window=window())
    return bpy.context.temp_override(window=window(), area=area, region=region_of(area))


def _fresh_scene() -> None:
    with override(area=None):
        if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)


def _show(obj: Any) -> Any:
    """``obj`` alone, active, in the "UV Editing" workspace with UV sync selection."""
    window().workspace = bpy.data.workspaces["UV Editing"]
    bpy.context.view_layer.objects.active = obj
    obj.select_set(True)
    bpy.context.scene.tool_settings.use_uv_select_sync = True
    return obj


def model_scene() -> Generator[float, None, Any]:
    """The real model (an OBJ of the homedecor corpus) with its own UVs, in
    Edit Mode with everything selected."""
    _fresh_scene()
    with override(area=None):
        bpy.ops.wm.obj_import(filepath=str(MODEL))
    obj = _show(bpy.data.objects[-1])
    with override():
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.ed.undo_push(message="selected")
    yield 0.2
    return obj


def suzanne_scene(subdivisions: int) -> Generator[float, None, Any]:
    """Suzanne subdivided ``subdivisions`` times and unwrapped by Smart UV
    Project (islands without margin), in Edit Mode with everything selected."""
    _fresh_scene()
    with override(area=None):
        bpy.ops.mesh.primitive_monkey_add()
    obj = bpy.data.objects[-1]
    mod = obj.modifiers.new("subsurf", "SUBSURF")
    mod.levels = subdivisions
    with bpy.context.temp_override(window=window(), object=obj, active_object=obj):
        bpy.ops.object.modifier_apply(modifier=mod.name)
    _show(obj)
    with override():
        bpy.ops.object.mode_set(mode="EDIT")
        bpy.ops.mesh.select_all(action="SELECT")
        bpy.ops.uv.smart_project(island_margin=0.0)
        bpy.ops.ed.undo_push(message="unwrapped")
    yield 0.2
    return obj


def edit_uvs(obj: Any, limit: Optional[int] = None) -> np.ndarray:
    """Loop UVs of the edit mesh in face order (the first ``limit`` loops)."""
    bm = bmesh.from_edit_mesh(obj.data)
    layer = bm.loops.layers.uv.active
    out: List[float] = []
    for face in bm.faces:
        for loop in face.loops:
            out.extend(loop[layer].uv)
        if limit is not None and len(out) >= 2 * limit:
            break
    return np.array(out, np.float32).reshape(-1, 2)


def mesh_uvs(obj: Any) -> np.ndarray:
    """Loop UVs of the mesh data (Object Mode)."""
    layer = obj.data.uv_layers.active
    flat = np.empty(2 * len(obj.data.loops), np.float32)
    layer.data.foreach_get("uv", flat)
    return flat.reshape(-1, 2)


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.array_equal(a.view(np.uint32), b.view(np.uint32)))


def workers() -> List[str]:
    return [t.name for t in threading.enumerate() if t.name == "uvnest-pack" and t.is_alive()]


def invoke(**options: Any) -> Any:
    settings = dict(time_limit=20.0, stall_limit=0.0, margin=0.002, merge_overlap=False)
    settings.update(options)
    with override():
        return sorted(bpy.ops.uv.uvnest_pack("INVOKE_DEFAULT", **settings))


def stream(obj: Any, want: int, timeout: float, limit: Optional[int] = None) -> Generator[float, None, List[float]]:
    """Watch the mesh until ``want`` distinct layouts other than the
    original were seen (or ``timeout``); return the seconds each appeared at."""
    t0 = time.perf_counter()
    seen = [edit_uvs(obj, limit)]
    times: List[float] = []
    while len(times) < want and time.perf_counter() - t0 < timeout:
        yield LOOK
        now = edit_uvs(obj, limit)
        if not any(same(now, s) for s in seen):
            seen.append(now)
            times.append(time.perf_counter() - t0)
    return times


def press(kind: str, **modifiers: bool) -> None:
    window().event_simulate(type=kind, value="PRESS", **modifiers)
    window().event_simulate(type=kind, value="RELEASE", **modifiers)


def settle(seconds: float = 0.6) -> Generator[float, None, None]:
    """Let the event loop run ``seconds`` (the worker must be gone by then)."""
    yield seconds


# ----------------------------------------------------------------- cases


def case_esc_restores() -> Case:
    obj = yield from model_scene()
    original = edit_uvs(obj)
    r = results["esc_restores"] = {"invoke": invoke()}
    times = yield from stream(obj, 3, 15.0)
    r["layout_times"] = times
    with override():
        bpy.ops.screen.screenshot(filepath=str(OUT / "streaming.png"))
    r["screenshot"] = (OUT / "streaming.png").stat().st_size
    r["still_running_before_esc"] = bool(workers())
    press("ESC")
    yield from settle()
    r["workers_after"] = workers()
    r["restored"] = same(edit_uvs(obj), original)
    yield 0.3
    r["stable_after"] = same(edit_uvs(obj), original)
    with override():
        bpy.ops.screen.screenshot(filepath=str(OUT / "after_esc.png"))


def case_enter_keeps_and_undo() -> Case:
    obj = yield from model_scene()
    original = edit_uvs(obj)
    r = results["enter_keeps_and_undo"] = {"invoke": invoke()}
    r["layout_times"] = yield from stream(obj, 3, 15.0)
    press("RET")
    yield from settle()
    r["workers_after"] = workers()
    kept = edit_uvs(obj)
    r["kept_changed"] = not same(kept, original)
    yield 0.3
    r["kept_stable"] = same(edit_uvs(obj), kept)
    with override():
        bpy.ops.ed.undo()
    yield 0.2
    r["undo_restores"] = same(edit_uvs(obj), original)
    with override():
        bpy.ops.ed.redo()
    yield 0.2
    r["redo_repacks"] = same(edit_uvs(obj), kept)


def case_ctrl_z_key_is_held_back() -> Case:
    """Ctrl-Z pressed while streaming: the operator holds it back (as Blender's
    own modal tools do) and goes on; Esc still restores."""
    obj = yield from model_scene()
    original = edit_uvs(obj)
    r = results["ctrl_z_key"] = {"invoke": invoke()}
    r["before"] = len((yield from stream(obj, 1, 15.0)))
    press("Z", ctrl=True)
    yield 0.2
    r["after"] = len((yield from stream(obj, 1, 15.0)))
    r["running"] = bool(workers())
    press("ESC")
    yield from settle()
    r["workers_after"] = workers()
    r["restored"] = same(edit_uvs(obj), original)


def interrupted(name: str, act: Callable[[Any], None], read: Callable[[Any], Optional[np.ndarray]]) -> Case:
    """Start streaming, wait for a layout, do ``act(obj)`` behind the
    operator's back; record what the operator left."""
    obj = yield from model_scene()
    original = edit_uvs(obj)
    r = results[name] = {"invoke": invoke()}
    r["layouts"] = len((yield from stream(obj, 1, 15.0)))
    name_of_obj = obj.name
    act(obj)
    yield from settle()
    r["workers_after"] = workers()
    obj = bpy.data.objects.get(name_of_obj)
    uvs = read(obj) if obj is not None else None
    r["restored"] = uvs is not None and same(uvs, original)
    with override():
        r["operator_polls"] = bpy.ops.uv.uvnest_pack.poll()


def to_object_mode(obj: Any) -> None:
    with override():
        bpy.ops.object.mode_set(mode="OBJECT")


def delete_object(obj: Any) -> None:
    with override():
        bpy.ops.object.mode_set(mode="OBJECT")
    bpy.data.objects.remove(obj)


def undo(obj: Any) -> None:
    with override():
        bpy.ops.ed.undo()


def case_mode_switch() -> Case:
    yield from interrupted("mode_switch", to_object_mode, mesh_uvs)


def case_delete_object() -> Case:
    yield from interrupted("delete_object", delete_object, mesh_uvs)


def case_undo_mid_run() -> Case:
    yield from interrupted("undo_mid_run", undo, edit_uvs)


def case_close_editor() -> Case:
    def close(obj: Any) -> None:
        with override():
            bpy.ops.screen.area_close()
    yield from interrupted("close_editor", close, edit_uvs)


def case_file_load() -> Case:
    """Opening a file while streaming: Blender ends the operator (its
    ``cancel``); no worker is left and the new file loads."""
    def load(obj: Any) -> None:
        with override(area=None):
            bpy.ops.wm.open_mainfile(filepath=bpy.data.filepath)
    yield from interrupted("file_load", load, lambda obj: None)
    results["file_load"]["objects_after"] = len(bpy.data.objects)


def case_dense_time_limit() -> Case:
    """Subsurf 3 (31,488 faces): with a time limit of 1 s a layout must be
    on screen by 1.5 s after the call, and the session must end."""
    obj = yield from suzanne_scene(3)
    r = results["dense_time_limit"] = {"faces": len(obj.data.polygons)}
    original = edit_uvs(obj, 4000)
    t0 = time.perf_counter()
    r["invoke"] = invoke(time_limit=1.0)
    r["invoke_seconds"] = time.perf_counter() - t0
    first = None
    last, gap = time.perf_counter(), 0.0
    while time.perf_counter() - t0 < 10.0 and (first is None or workers()):
        if first is None and not same(edit_uvs(obj, 4000), original):
            first = time.perf_counter() - t0
        yield LOOK
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    r["first_layout_seconds"] = first
    r["ended_seconds"] = time.perf_counter() - t0
    # the longest the main thread was away from this timer while streaming
    # (the operator's ticks, Blender's drawing of 31k faces, the checks here)
    r["longest_tick_gap"] = gap
    yield 0.5
    press("RET")  # the session ended by itself: the key goes to Blender, not to uvnest
    yield 0.3


#: Main-thread seconds of the operator's timer work (``PackJob.update``:
#: each call, and whether it showed a layout) and of its drawing, recorded
#: by wrapping the real methods (``instrument``).
UPDATES: List[Any] = []
DRAWS: List[float] = []


def instrument() -> None:
    """Time the operator's tick work and drawing on the main thread."""
    from uvnest.blender import operators, overlay

    def timed(real: Callable[..., Any], out: List[Any], with_result: bool) -> Callable[..., Any]:
        def call(self: Any) -> Any:
            t0 = time.perf_counter()
            answer = real(self)
            out.append((time.perf_counter() - t0, bool(answer)) if with_result else time.perf_counter() - t0)
            return answer
        return call

    operators.PackJob.update = timed(operators.PackJob.update, UPDATES, True)
    overlay.LayoutOverlay._draw = timed(overlay.LayoutOverlay._draw, DRAWS, False)


def overlay_pixels(name: str) -> int:
    """Pixels of the drawn layout's colour in a screenshot of the window."""
    from uvnest.blender.overlay import EDGE_COLOR

    path = OUT / name
    with override():
        bpy.ops.screen.screenshot(filepath=str(path))
    image = bpy.data.images.load(str(path))
    try:
        rgba = np.empty(len(image.pixels), np.float32)
        image.pixels.foreach_get(rgba)
    finally:
        bpy.data.images.remove(image)
    rgb = rgba.reshape(-1, 4)[:, :3]
    return int((np.abs(rgb - np.array(EDGE_COLOR[:3], np.float32)) < 0.1).all(axis=1).sum())


def uv_editor_draw_seconds() -> float:
    """Seconds Blender takes to draw the UV editor's main region once."""
    with override():
        t0 = time.perf_counter()
        bpy.ops.wm.redraw_timer(type="DRAW", iterations=1)
        return time.perf_counter() - t0


def uv_drawing(space: Any) -> List[Any]:
    """What decides whether an image editor draws the mesh's UVs: its mode
    and (Blender 4.x and later) its "UV" overlay."""
    return [space.mode, getattr(space.uv_editor, "show_uv", None)]


def drawn_interrupted(name: str, act: Callable[[Any], None]) -> Case:
    """As :func:`interrupted`, with every layout drawn, not written (the
    operator's loop limit forced to 0): wait for a drawn layout, ``act``,
    and record what was left: workers, the editor's drawing, the mesh."""
    from uvnest.blender import operators

    obj = yield from model_scene()
    original = edit_uvs(obj)
    space = uv_area().spaces.active
    drawing = uv_drawing(space)
    real_limit, operators.WRITTEN_LOOPS_MAX = operators.WRITTEN_LOOPS_MAX, 0
    try:
        del UPDATES[:]
        r = results[name] = {"invoke": invoke()}
        t0 = time.perf_counter()
        while not any(shown for _, shown in UPDATES) and time.perf_counter() - t0 < 15.0:
            yield LOOK
        r["layouts"] = sum(shown for _, shown in UPDATES)
        r["mesh_unchanged"] = same(edit_uvs(obj), original)
        name_of_obj = obj.name
        act(obj)
        yield from settle()
    finally:
        operators.WRITTEN_LOOPS_MAX = real_limit
    r["workers_after"] = workers()
    area = uv_area()
    r["drawing_back"] = area is None or area.spaces.active.as_pointer() != space.as_pointer() or \
        uv_drawing(area.spaces.active) == drawing
    obj = bpy.data.objects.get(name_of_obj)
    r["unchanged"] = obj is None or same(mesh_uvs(obj) if obj.mode == "OBJECT" else edit_uvs(obj), original)
    r["pixels"] = overlay_pixels(f"{name}.png")


def case_dense_stream_is_drawn() -> Case:
    """Subsurf 3 (125,952 loops, above ``WRITTEN_LOOPS_MAX``): better layouts
    are drawn over the UV editor, the mesh is untouched until Enter, Esc
    leaves it bit for bit and gives the editor its own drawing back; Enter
    writes the layout once and one undo restores."""
    obj = yield from suzanne_scene(3)
    original = edit_uvs(obj)
    editor = uv_area().spaces.active
    drawing = uv_drawing(editor)
    r = results["dense_stream"] = {"before": overlay_pixels("dense_before.png"),
                                   "blender_draw_seconds": min(uv_editor_draw_seconds() for _ in range(3))}
    for key in ("ESC", "RET"):
        del UPDATES[:], DRAWS[:]
        run = r[key] = {"invoke": invoke(time_limit=30.0)}
        t0 = time.perf_counter()
        while sum(shown for _, shown in UPDATES) < 2 and time.perf_counter() - t0 < 15.0:
            yield LOOK
        yield 0.3
        run["streaming"] = overlay_pixels(f"dense_streaming_{key}.png")
        run["drawing_hidden"] = uv_drawing(editor) != drawing
        run["mesh_unchanged"] = same(edit_uvs(obj), original)
        press(key)
        yield from settle()
        run["workers_after"] = workers()
        run["drawing_back"] = uv_drawing(editor) == drawing
        run["after"] = overlay_pixels(f"dense_after_{key}.png")
        run["shown_update_seconds"] = [t for t, shown in UPDATES if shown]
        run["update_seconds"] = max((t for t, _ in UPDATES), default=None)
        run["draw_seconds"] = list(DRAWS)
        run["unchanged"] = same(edit_uvs(obj), original)
    name = obj.name
    with override():
        bpy.ops.ed.undo()
    yield 0.3
    r["undo_restores"] = same(edit_uvs(bpy.data.objects[name]), original)


def case_failed_start_leaves_nothing() -> Case:
    """The session's start fails after the drawing was set up (forced: the
    drawn stream for any mesh, and a start that raises): the call raises,
    and no worker, drawing or hidden UV drawing is left."""
    from uvnest.blender import operators

    obj = yield from model_scene()
    original = edit_uvs(obj)
    editor = uv_area().spaces.active
    drawing = uv_drawing(editor)
    r = results["failed_start"] = {}
    real_start, real_limit = operators.LiveSession.start, operators.WRITTEN_LOOPS_MAX

    def failing_start(self: Any, since: Optional[float] = None) -> None:
        raise RuntimeError("start failed on purpose")

    operators.LiveSession.start, operators.WRITTEN_LOOPS_MAX = failing_start, 0
    try:
        invoke()
        r["raised"] = None
    except RuntimeError as exc:
        r["raised"] = str(exc)
    finally:
        operators.LiveSession.start, operators.WRITTEN_LOOPS_MAX = real_start, real_limit
    yield from settle()
    r["workers_after"] = workers()
    r["drawing_back"] = uv_drawing(editor) == drawing
    r["unchanged"] = same(edit_uvs(obj), original)
    r["pixels"] = overlay_pixels("failed_start.png")
    with override():
        r["operator_polls"] = bpy.ops.uv.uvnest_pack.poll()


def case_drawn_mode_switch() -> Case:
    yield from drawn_interrupted("drawn_mode_switch", to_object_mode)


def case_drawn_file_load() -> Case:
    def load(obj: Any) -> None:
        with override(area=None):
            bpy.ops.wm.open_mainfile(filepath=bpy.data.filepath)
    yield from drawn_interrupted("drawn_file_load", load)


def case_dense_esc_during_first_layout() -> Case:
    obj = yield from suzanne_scene(3)
    original = edit_uvs(obj, 4000)
    r = results["dense_esc"] = {"invoke": invoke(time_limit=30.0)}
    yield 0.3
    t0 = time.perf_counter()
    press("ESC")
    while workers() and time.perf_counter() - t0 < 10.0:
        yield 0.01
    r["stop_seconds"] = time.perf_counter() - t0
    yield 0.3
    r["unchanged"] = same(edit_uvs(obj, 4000), original)


# ---------------------------------------------------------------- driver


def driver() -> Generator[float, None, None]:
    import uvnest

    uvnest.register()
    instrument()
    yield 0.5
    for name in CASES:
        try:
            yield from globals()[f"case_{name}"]()
        except Exception:
            results.setdefault("errors", {})[name] = traceback.format_exc()
    (OUT / "result.json").write_text(json.dumps(results))


def main() -> None:
    steps = driver()

    def tick() -> Optional[float]:
        try:
            return next(steps)
        except StopIteration:
            bpy.ops.wm.quit_blender()
        except Exception:
            results.setdefault("errors", {})["driver"] = traceback.format_exc()
            (OUT / "result.json").write_text(json.dumps(results))
            bpy.ops.wm.quit_blender()
        return None

    bpy.app.timers.register(tick, first_interval=1.0, persistent=True)  # persistent: a case loads a file


main()
