"""Streamed layouts of dense meshes, drawn in the UV editors instead of
written into the meshes.

Writing a layout into an edit mesh costs the main thread about 0.7
microseconds a loop (bmesh has no bulk UV access), so a mesh of a hundred
thousand loops would hold Blender for 70 to 100 ms a layout.  Above
``WRITTEN_LOOPS_MAX`` moving loops the operator draws each better layout
instead: one vertex buffer of the meshes' loop UVs (filled from numpy in a
millisecond) and a fixed index buffer of the islands' outlines (the edges
of the faces the UV editor shows that no other shown face shares), drawn
over every UV editor while Blender's own UV drawing there is hidden.  The meshes are written once, when the layout is kept.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import bpy
import gpu
import numpy as np

from ..mesh_loops import MeshLoops, outline_edges

#: Moving loops above which a streamed layout is drawn, not written: at the
#: 0.5 to 0.7 microseconds a loop measured in Blender 5.0.1, a written
#: layout stays under 15 ms of the main thread (the subsurf-3 Suzanne has
#: 125,952 loops: 63 to 108 ms written, about 2 ms drawn).
WRITTEN_LOOPS_MAX = 20_000
#: The drawn layout's edge colour (linear RGBA): a cyan that no UV editor
#: theme colour of Blender's uses, so that it reads as "not applied yet".
EDGE_COLOR = (0.0, 0.85, 1.0, 1.0)


def _shader() -> Tuple[Any, int]:
    """The built-in uniform-colour shader and the size of its positions
    (Blender 3.3 and earlier have only the 2D one; 4.0 and later only the
    one with 3D positions)."""
    try:
        return gpu.shader.from_builtin("UNIFORM_COLOR"), 3
    except ValueError:
        return gpu.shader.from_builtin("2D_UNIFORM_COLOR"), 2


def _uv_editors(window_manager: Any, showing_uvs: bool = True) -> Dict[int, Any]:
    """Every image editor (``showing_uvs``: that shows UVs) in every window,
    by the address of its space (never keep the space itself: once its
    area is closed the Python object would point at freed memory)."""
    out = {}
    for window in window_manager.windows:
        for area in window.screen.areas if window.screen is not None else ():
            if area.type == "IMAGE_EDITOR" and (area.spaces.active.show_uvedit or not showing_uvs):
                out[area.spaces.active.as_pointer()] = area.spaces.active
    return out


def _drawing_switch(space: Any) -> Tuple[Any, str, Any]:
    """What hides a UV editor's own UV drawing: (owner, property, value).
    Blender 4.x and 5.0 can hide the UVs whole; 3.x shows the image alone
    in VIEW mode (its UV opacity leaves the vertices drawn)."""
    if hasattr(space.uv_editor, "show_uv"):
        return space.uv_editor, "show_uv", False
    return space, "mode", "VIEW"


class HiddenUVs:
    """Blender's own UV drawing hidden in every UV editor, and put back."""

    def __init__(self, window_manager: Any) -> None:
        self._window_manager = window_manager
        self._saved: Dict[int, Any] = {}
        try:
            for key, space in _uv_editors(window_manager).items():
                owner, name, hidden = _drawing_switch(space)
                self._saved[key] = getattr(owner, name)
                setattr(owner, name, hidden)
        except Exception:
            self.restore()
            raise

    def __contains__(self, space: Any) -> bool:
        """Is ``space`` one of the editors whose drawing is hidden?"""
        return space is not None and space.as_pointer() in self._saved

    def restore(self) -> None:
        """Put every setting back, in the editors still open (once)."""
        saved, self._saved = self._saved, {}
        try:   # hidden, they no longer show UVs
            editors = _uv_editors(self._window_manager, showing_uvs=False)
        except ReferenceError:  # a file was loaded: its editors are new
            return
        for key, space in editors.items():
            if key in saved:
                owner, name, _ = _drawing_switch(space)
                setattr(owner, name, saved[key])


class LayoutOverlay:
    """The newest streamed layout, drawn in every UV editor.

    ``reads`` are the meshes as read (their faces: which the UV editor
    shows, and their loops).  Raises whatever the GPU module raises when
    it cannot draw (no GPU).
    """

    def __init__(self, window_manager: Any, reads: Sequence[MeshLoops]) -> None:
        self._shader, self._dims = _shader()
        self._format = gpu.types.GPUVertFormat()
        self._format.attr_add(id="pos", comp_type="F32", len=self._dims, fetch_mode="FLOAT")
        # per mesh, the outlines of the islands the UV editor shows (None:
        # none): every face's edges would cost a software renderer as much
        # as Blender's own UV drawing
        self._edges: List[Optional[Any]] = []
        for read in reads:
            edges = outline_edges(read) if read.uvs is not None else np.zeros((0, 2), np.uint32)
            self._edges.append(gpu.types.GPUIndexBuf(type="LINES", seq=edges) if edges.size else None)
        self._batches: List[Any] = []
        #: how many layouts were handed in, and how many of them Blender drew
        self.layouts = 0
        self.drawn = 0
        self._drawn_generation = 0
        self._hidden = HiddenUVs(window_manager)
        try:
            self._handler: Optional[Any] = bpy.types.SpaceImageEditor.draw_handler_add(
                self._draw, (), "WINDOW", "POST_VIEW")
        except Exception:
            self._hidden.restore()
            raise

    def show(self, loop_uvs: Sequence[Optional[np.ndarray]]) -> None:
        """Draw these UVs (per mesh, every loop's; None for a mesh without a
        UV map) from the next redraw on."""
        batches = []
        for edges, uvs in zip(self._edges, loop_uvs):
            if edges is None or uvs is None:
                continue
            pos = np.zeros((len(uvs), self._dims), np.float32)
            pos[:, :2] = uvs
            vbo = gpu.types.GPUVertBuf(self._format, len(pos))
            vbo.attr_fill("pos", pos)
            batches.append(gpu.types.GPUBatch(type="LINES", buf=vbo, elem=edges))
        self._batches = batches
        self.layouts += 1

    def _draw(self) -> None:
        if not self._batches or bpy.context.space_data not in self._hidden:
            return
        self._shader.bind()
        self._shader.uniform_float("color", EDGE_COLOR)
        for batch in self._batches:
            batch.draw(self._shader)
        if self._drawn_generation != self.layouts:
            self._drawn_generation = self.layouts
            self.drawn += 1

    def remove(self) -> None:
        """Stop drawing and give the UV editors their own drawing back (once)."""
        handler, self._handler = self._handler, None
        if handler is not None:
            bpy.types.SpaceImageEditor.draw_handler_remove(handler, "WINDOW")
        self._hidden.restore()
        self._batches = []
