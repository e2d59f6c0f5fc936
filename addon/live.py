"""Live packing session: the engine side of the Blender operator, without bpy.

The Blender operator ("Pack Islands (uvnest)") is a thin shell over
:class:`LiveSession`.  Blender stores one UV per face corner (loop), so the
session works on loops:

1. *Gather*: the operator reads each mesh in edit mode into a
   :class:`MeshLoops` (per-loop UVs, face loop starts and sizes, per-loop
   vertex indices, and per-face masks for selected, hidden and pinned).
2. *Start*: :meth:`LiveSession.start` runs the search in a worker thread (the
   C engine releases the GIL, so Blender stays responsive);
   :meth:`LiveSession.run` runs it synchronously instead (scripts, the redo
   panel, background mode).
3. *Poll*: :meth:`LiveSession.poll` hands out the newest better layout
   (a :class:`Layout`: new UVs for the moving loops of every mesh), which the
   operator writes into the meshes at once.
4. *Keep or cancel*: :meth:`LiveSession.keep` stops the search and returns
   the best layout; :meth:`LiveSession.cancel` stops it and returns the
   original UVs of the moving loops, bit for bit.

The search ends by itself at the time limit, at the iteration limit, or
after a number of seconds without improvement (see :class:`Limits`), or at
once when the first layout cannot be improved (``Packer.final``: bounding
boxes, power-of-two squares).

Islands follow Blender's rule: faces are joined across a mesh edge whose UVs
match at both ends; faces that only share a UV corner stay separate.  Only
selected, visible faces move; hidden faces are never read as selected.
With ``lock_pinned``, islands that contain a pinned UV keep what
``pin_method`` says (their place, as obstacles the others are packed
around; or their orientation, their size, or both).  With ``obstacles``,
the unselected faces shown in the UV editor stay where they are and the
packed islands keep the margin from them.  :class:`PackSettings` follows
Blender's Pack Islands options (``uv.pack_islands`` in Blender 5.0).

The settings, limits and reports live in :mod:`uvnest.live_settings`, the
loop arrays in :mod:`uvnest.mesh_loops`, the UDIM tile helpers in
:mod:`uvnest.tiles`; they are importable from here too.
"""
from __future__ import annotations

import math
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from .cancel import Cancel, Cancelled
from .errors import REQUIRES, InputError
from .geometry import box_angle, turned
from .islands import Island, find_islands, ring_areas
from .live_settings import (KEEP_TOGETHER, MARGIN_METHODS, PIN_METHODS, ROTATION_MODES, SHARED_OPTIONS, TARGET_MODES,
                            Layout, Limits, PackError, PackSettings, Progress)
from .mesh_loops import MeshLoops, check_mesh, chosen_loops, obstacle_loops, packer_faces
from .options import AXIS_ROTATIONS
from .packing import Packer
from .results import PackResult
from .tiles import closest_udim_tile, inflated_area, udim_box, udim_tile_at

__all__ = [
    "KEEP_TOGETHER",
    "Layout",
    "Limits",
    "LiveSession",
    "MeshLoops",
    "PackError",
    "PackSettings",
    "Progress",
    "MARGIN_METHODS",
    "PIN_METHODS",
    "ROTATION_MODES",
    "SHARED_OPTIONS",
    "TARGET_MODES",
    "box_angle",
    "closest_udim_tile",
    "udim_tile_at",
]

#: Longest single search step of the worker, in seconds: it bounds how late
#: a limit is noticed (a keep or a cancel stops a step at once).
STEP_SECONDS = 0.05
#: Seconds the exact first layout may take before the box layout (the
#: skyline of the islands' bounding rectangles, milliseconds) is shown in
#: its place; the search then goes on with the exact one where it stopped.
#: Short: on a dense mesh the artist sees a layout at once, and the main
#: thread has time to write it well before the time limit.
FIRST_LAYOUT_SECONDS = 0.2
#: The same with Keep Together: the groups are packed among themselves
#: while the packer is made, in up to 60 % of this (see uvnest.group_layout)
TOGETHER_FIRST_SECONDS = 2.0
#: Key help shown while the modal operator runs.
KEYS_TEXT = "Enter/Space/Click: keep   Esc/Right-click: cancel"


class LiveSession:
    """Pack the selected islands of several meshes, live or synchronously.

    ``LiveSession(meshes, settings, limits)`` checks the selection and
    prepares the packer's input; nothing is computed yet.  Then either
    :meth:`start` (a worker thread; :meth:`poll` for each better layout,
    :meth:`keep` or :meth:`cancel` to end) or :meth:`run` (blocks until a
    limit and returns the best layout).

    Raises :class:`PackError` when there is nothing to pack (no UV map, no
    selected visible face), when a UV is not finite, or when the margin
    leaves no room in the target.  Errors found while building the first
    layout (the islands cannot fit) come from :meth:`run`, or through
    :attr:`error` after :meth:`start`.
    """

    def __init__(self, meshes: Sequence[MeshLoops], settings: PackSettings = PackSettings(),
                 limits: Limits = Limits()) -> None:
        self.settings = settings
        self.limits = limits
        for k, m in enumerate(meshes):
            check_mesh(k, m)
        with_uvs = [m for m in meshes if m.uvs is not None and len(m.loop_start)]
        if not with_uvs:
            raise PackError("No UV map to pack: the meshes in edit mode have no UVs")
        moving: List[np.ndarray] = []
        originals: List[np.ndarray] = []
        faces: List[np.ndarray] = []
        mesh_faces: List[np.ndarray] = []
        pinned: List[np.ndarray] = []
        still_uvs: List[np.ndarray] = []
        still_sizes: List[np.ndarray] = []
        still_verts: List[np.ndarray] = []
        face_mesh: List[np.ndarray] = []
        face_material: List[np.ndarray] = []
        vert_offset = 0
        loop_offset = 0
        for k, m in enumerate(meshes):
            if m.uvs is None:
                moving.append(np.zeros(0, dtype=np.int64))
                originals.append(np.zeros((0, 2), dtype=np.float32))
                continue
            chosen, total, loops = chosen_loops(m)
            uvs = np.asarray(m.uvs, dtype=np.float32)[loops]
            bad = np.flatnonzero(~np.isfinite(uvs).all(axis=1))
            if bad.size:
                face = int(chosen[np.searchsorted(np.cumsum(total), bad[0], side="right")])
                raise PackError(f"{m.name or 'A mesh'} has a UV that is not a number (face {face}): "
                                "fix it before packing")
            moving.append(loops)
            originals.append(uvs)
            new_start = np.concatenate(([0], np.cumsum(total)[:-1])).astype(np.int64) + loop_offset
            faces.extend(np.arange(s, s + t) for s, t in zip(new_start.tolist(), total.tolist()))
            mesh_faces.append(np.asarray(m.loop_vert, np.int64)[loops] + vert_offset)
            pinned.append(np.asarray(m.pinned, bool)[chosen])
            face_mesh.append(np.full(len(chosen), k, np.int64))
            face_material.append(np.asarray(m.material, str)[chosen] if m.material is not None
                                 else np.full(len(chosen), "", str))
            if settings.obstacles:
                o_total, o_loops = obstacle_loops(m)
                still_uvs.append(np.asarray(m.uvs, np.float32)[o_loops])
                still_sizes.append(o_total)
                still_verts.append(np.asarray(m.loop_vert, np.int64)[o_loops] + vert_offset)
            if len(m.loop_vert):  # the next mesh's vertices get numbers of their own
                vert_offset += int(np.max(m.loop_vert)) + 1
            loop_offset += loops.size
        if loop_offset == 0:
            raise PackError("No faces selected: select the faces (or, with UV sync selection off, "
                            "their UVs) to pack")
        self.moving_loops: Tuple[np.ndarray, ...] = tuple(moving)
        """Per mesh, the loops that may move (those of selected, visible faces)."""
        self._originals = tuple(originals)
        self._uvs = np.concatenate([o for o in originals if o.size]).astype(np.float64)
        self._faces = faces
        self._mesh_faces = np.concatenate(mesh_faces)
        self._pinned = np.concatenate(pinned)
        #: per packed face its mesh and its material (Keep Together)
        self._face_mesh = np.concatenate(face_mesh)
        self._face_material = np.concatenate(face_material)
        self._bounds = np.cumsum([len(o) for o in originals])[:-1]
        # obstacles: their vertices get numbers after every mesh's, so they never join a moving island
        self._still_uvs = np.concatenate(still_uvs).astype(np.float64) if still_uvs else np.zeros((0, 2))
        self._still_sizes = np.concatenate(still_sizes) if still_sizes else np.zeros(0, np.int64)
        self._still_verts = np.concatenate(still_verts) + vert_offset if still_verts else np.zeros(0, np.int64)
        self._islands: Optional[List[Island]] = None
        self._band = 0.0  # ADD and SCALED: the band around each island at scale 1
        self._frame: Optional[Tuple[np.ndarray, float]] = None
        self._locked_loops = np.zeros(0, np.int64)
        self.target = self._resolve_target()
        """The target rectangle ``(x0, y0, x1, y1)`` in UV space."""
        # pack where texels are square (u and v times the image's sides over its longer side), as
        # Blender corrects the aspect: turning an island there does not stretch its texels
        self._texel = np.array((1.0, 1.0) if settings.target == "UDIM_TILES" else settings.aspect, np.float64)
        self._raw = self._uvs
        if (self._texel != 1).any():
            self._uvs = self._uvs * self._texel
            self._still_uvs = self._still_uvs * self._texel
        self._target = tuple(float(v) for v in np.array(self.target) * np.tile(self._texel, 2))
        self.margin: Optional[float] = None
        """The gap between islands in UV units (units of the image's longer
        side when it is not square; ADD and SCALED: None until the first
        layout is being built, as it needs the islands)."""
        self.padding: Optional[float] = None
        """The islands' distance from the target's border (as :attr:`margin`)."""
        if settings.margin_method in ("FRACTION", "PIXELS") or settings.margin == 0:
            self._set_gaps()
        self._lock = threading.Lock()
        # set by keep() and cancel(); every packer of the session gets it, so it also
        # stops the island finding and the first layout
        self._stop = Cancel()
        self._thread: Optional[threading.Thread] = None
        self._best: Optional[Layout] = None
        self._polled = -1
        self._error: Optional[PackError] = None
        self._state = "ready"
        self._reason = ""
        self._t0 = 0.0
        self._moves = 0
        self._elapsed = 0.0

    # -------------------------------------------------------------- setup

    @property
    def original(self) -> Tuple[np.ndarray, ...]:
        """Per mesh, the original UVs of :attr:`moving_loops` (bit for bit)."""
        return self._originals

    @property
    def n_faces(self) -> int:
        """Number of faces packed (selected and visible)."""
        return len(self._faces)

    def _resolve_target(self) -> Tuple[float, float, float, float]:
        s = self.settings
        if s.target == "UDIM_TILES":
            return (0.0, 0.0, 1.0, 1.0)   # each tile: the margin is in UV units
        if s.target == "ACTIVE_UDIM":
            return udim_box(s.active_tile)
        if s.target == "REGION":
            if not s.region:
                raise PackError("The region to pack into has no rings")
            lo = np.min([r.min(axis=0) for r in s.region], axis=0)
            hi = np.max([r.max(axis=0) for r in s.region], axis=0)
            return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        if s.target == "CUSTOM_REGION":
            x0, y0, x1, y1 = (float(v) for v in s.custom_region)
            if not (all(math.isfinite(v) for v in (x0, y0, x1, y1)) and x1 > x0 and y1 > y0):
                raise PackError(f"The custom region {s.custom_region} is empty: give it a width and a height")
            return (x0, y0, x1, y1)
        lo, hi = self._uvs.min(axis=0), self._uvs.max(axis=0)
        if s.target == "ORIGINAL_AABB":
            if not (hi[0] > lo[0] and hi[1] > lo[1]):
                raise PackError("The selection's bounding box is empty: pick another target")
            return (float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1]))
        centre = (float(lo[0] + hi[0]) / 2, float(lo[1] + hi[1]) / 2)
        return udim_box(closest_udim_tile(centre, s.udim_tiles, s.udim_grid))

    # ------------------------------------------------ Blender's options

    def _island_list(self) -> List[Island]:
        """The islands of the packed faces, as the packer finds them (found once)."""
        if self._islands is None:
            faces, mesh_faces = packer_faces(self._faces, self._mesh_faces)
            self._islands = find_islands(self._uvs, faces, mesh_faces=mesh_faces,
                                         merge_overlapping=self.settings.merge_overlapping)
        return self._islands

    def _pinned_islands(self) -> np.ndarray:
        """Per island, whether it holds a pinned face and ``lock_pinned`` is on."""
        islands = self._island_list()
        if not self.settings.lock_pinned:
            return np.zeros(len(islands), bool)
        return np.array([bool(self._pinned[isl.faces].any()) for isl in islands], bool)

    def _keeps_rotation(self) -> bool:
        """True when pinned islands keep their orientation (pin methods
        ROTATION and ROTATION_SCALE) and there are some."""
        s = self.settings
        return s.lock_pinned and s.pin_method in ("ROTATION", "ROTATION_SCALE") and bool(self._pinned.any())

    def _turns(self) -> np.ndarray:
        """Per island, the turn given before packing (radians): Blender's
        axis-aligned methods turn each island to its smallest bounding box,
        standing (AXIS_ALIGNED, and Any when pinned islands keep their
        orientation) or lying (AXIS_ALIGNED_X); pinned islands that keep
        their orientation or place do not turn."""
        s = self.settings
        pose = AXIS_ROTATIONS[s.rotation][0] if s.rotation in AXIS_ROTATIONS else None
        if pose is None and s.rotation == "any" and self._keeps_rotation():
            pose = "stand"
        if pose is None:
            return np.zeros(0)
        islands = self._island_list()
        turns = np.zeros(len(islands))
        keep = self._pinned_islands() & (s.pin_method != "SCALE")
        for k, isl in enumerate(islands):
            if not keep[k] and isl.area > 0:
                turns[k] = box_angle(self._uvs[isl.uv_indices], pose)
        return turns

    def _set_gaps(self) -> None:
        """Set :attr:`margin` and :attr:`padding`; raise :class:`PackError` when they leave no room."""
        self.margin, self.padding = self._gaps()
        side = min(self._target[2] - self._target[0], self._target[3] - self._target[1])
        if not (self.margin < side and 2 * self.padding < side):
            raise PackError(f"The margin ({self.margin:.4g} UV) leaves no room in the target "
                            f"(side {side:.4g} UV): use a smaller margin")

    def _gaps(self) -> Tuple[float, float]:
        """The gap between islands and the distance from the target's
        border, in UV units, by Blender's margin formulas (``uv_pack.cc``):
        a band of ``m`` around each island, with ``m`` the margin
        (FRACTION), the margin in the islands' units (ADD), or
        ``margin * 0.1 * sum(sqrt(w * h))`` of the islands' bounding boxes
        in their units (SCALED), the last two times the islands' final
        scale.  That scale is known only at the end of the search: the
        bound used is one no layout exceeds (:meth:`_scale_bound`; 1 when
        the islands keep their size), so the gap is at least Blender's."""
        s = self.settings
        if s.margin_method == "PIXELS":
            return float(s.margin_px) / float(s.texture_size), s.padding
        m = float(s.margin)
        if s.margin_method != "FRACTION" and m > 0:
            if s.margin_method == "SCALED":
                m *= 0.1 * float(sum(math.sqrt(a) for a in self._box_areas()))
            self._band = m
            m *= self._scale_bound(m)
        return 2 * m, m + s.padding

    def _box_areas(self) -> List[float]:
        """Per island the area of its bounding box after the turn Blender
        gives it before packing (its smallest box when it may turn freely)."""
        s = self.settings
        free = s.rotation in ("any", "axis", "axis_x", "axis_y")
        keep = self._pinned_islands() & (s.pin_method != "SCALE")
        out = []
        for k, isl in enumerate(self._island_list()):
            pts = self._uvs[isl.uv_indices]
            if free and not keep[k] and isl.area > 0:
                pts = turned(pts, box_angle(pts, "stand"))
            w, h = np.ptp(pts, axis=0)
            out.append(float(w * h))
        return out

    def _scale_bound(self, band: float) -> float:
        """No layout scales the islands more than this (1 when they keep
        their size): at scale ``k`` each island grown by ``band * k`` (its
        band) stays clear of the others' and inside the target less the
        padding, so ``k ** 2`` times the islands' areas grown by ``band``
        fit in that room."""
        s = self.settings
        if not s.scale or s.target == "UDIM_TILES":
            return 1.0
        x0, y0, x1, y1 = self._target
        room = max(x1 - x0 - 2 * s.padding, 0.0) * max(y1 - y0 - 2 * s.padding, 0.0)
        fixed = self._pinned_islands() & (s.pin_method != "ROTATION")
        grown = sum(inflated_area(isl.outline, band) for k, isl in enumerate(self._island_list()) if not fixed[k])
        return math.sqrt(room / grown) if grown > 0 else 1.0

    def _engine_rotation(self) -> Tuple[str, bool]:
        """The packer's rotation and flip for the settings."""
        s = self.settings
        if self._keeps_rotation():
            return "none", False
        return (AXIS_ROTATIONS[s.rotation][1] if s.rotation in AXIS_ROTATIONS else s.rotation), s.flip

    def _obstacles_near(self, box: Tuple[float, float, float, float], inside: bool) -> np.ndarray:
        """Per obstacle face, whether it can touch the islands in ``box``
        (within the margin of it; with ``inside``, only faces wholly in it)."""
        sizes = self._still_sizes
        if not sizes.size:
            return np.zeros(0, bool)
        starts = np.cumsum(sizes) - sizes
        lo = np.minimum.reduceat(self._still_uvs, starts, axis=0)
        hi = np.maximum.reduceat(self._still_uvs, starts, axis=0)
        x0, y0, x1, y1 = box
        if inside:
            return (lo[:, 0] >= x0) & (lo[:, 1] >= y0) & (hi[:, 0] <= x1) & (hi[:, 1] <= y1)
        d = self.margin
        return (hi[:, 0] >= x0 - d) & (hi[:, 1] >= y0 - d) & (lo[:, 0] <= x1 + d) & (lo[:, 1] <= y1 + d)

    def _packer_input(self) -> Tuple[np.ndarray, List[np.ndarray], np.ndarray, np.ndarray]:
        """The packer's UVs (islands given their turn), faces, mesh faces and
        locked faces: the packed faces, then the obstacle faces near the target."""
        s = self.settings
        n = len(self._uvs)
        uvs = self._uvs.copy()
        turns = self._turns()
        for isl, turn in zip(self._island_list() if turns.size else (), turns):
            if turn:
                uvs[isl.uv_indices] = turned(uvs[isl.uv_indices], turn)
        if s.target == "UDIM_TILES":
            near = self._obstacles_near(udim_box(min(s.udim_tiles) if s.udim_tiles else 1001), inside=True)
        else:
            near = self._obstacles_near(self._target, inside=False)
        if s.merge_overlapping and near.any():
            near[near] = ~self._merging_obstacles(np.flatnonzero(near))
        sizes = self._still_sizes
        keep_loops = np.repeat(near, sizes)
        faces = list(self._faces)
        starts = n + np.cumsum(sizes[near]) - sizes[near]
        faces.extend(np.arange(a, a + t) for a, t in zip(starts.tolist(), sizes[near].tolist()))
        locked = self._pinned & (s.lock_pinned and s.pin_method == "LOCKED")
        return (np.concatenate([uvs, self._still_uvs[keep_loops]]), faces,
                np.concatenate([self._mesh_faces, self._still_verts[keep_loops]]),
                np.concatenate([locked, np.ones(int(near.sum()), bool)]))

    def _merging_obstacles(self, chosen: np.ndarray) -> np.ndarray:
        """Per obstacle face of ``chosen``, whether it overlaps a packed island
        (holes filled): with ``merge_overlapping`` the packer would merge it
        into that island and hold the island in place, where Blender merges
        only the selected islands.  Such faces are left out of the obstacles."""
        sizes = self._still_sizes
        starts = np.cumsum(sizes) - sizes
        rings = []
        for f in chosen.tolist():
            ring = self._still_uvs[starts[f]:starts[f] + sizes[f]]
            rings.append([ring if ring_areas([ring])[0] >= 0 else ring[::-1]])
        islands = self._island_list()
        outlines = [[r for r in isl.outline if ring_areas([r])[0] > 0] for isl in islands]
        groups = _core.overlap_groups(outlines + rings)
        return np.isin(groups[len(islands):], groups[:len(islands)])

    def _unit_frame(self, uvs: np.ndarray, faces: List[np.ndarray],
                    locked: np.ndarray) -> Tuple[np.ndarray, float]:
        """Origin and side of a square holding the target and the locked
        faces: islands that keep their size pack in it as in a unit tile."""
        box = np.array(self._target, np.float64)
        if locked.any():
            held = uvs[np.concatenate([faces[f] for f in np.flatnonzero(locked)])]
            box = np.concatenate([np.minimum(box[:2], held.min(axis=0)), np.maximum(box[2:], held.max(axis=0))])
        return box[:2], float(max(box[2] - box[0], box[3] - box[1])) * (1 + 1e-7)

    def _new_packer(self, uvs: np.ndarray, faces: List[np.ndarray], verts: np.ndarray, locked: np.ndarray,
                    margin: float, padding: float, **placement) -> Packer:
        """A packer with the settings' rotation, shape and seed; its errors as :class:`PackError`."""
        s = self.settings
        rotation, flip = self._engine_rotation()
        if self._frame is not None:
            origin, k = self._frame
            uvs, margin, padding = (uvs - origin) / k, margin / k, padding / k
            t = (np.array(self._target) - np.tile(origin, 2)) / k
            placement = {"scale": "fixed", "target": tuple(float(v) for v in np.clip(t, 0.0, 1.0)), **placement}
        faces_arg, mesh_faces = packer_faces(faces, verts)
        try:
            # mixed scales only where the islands are scaled to fit
            ratio = s.max_scale_ratio if placement.get("scale") != "fixed" else 1.0
            return Packer(uvs, faces_arg, mesh_faces=mesh_faces, margin=margin, padding=padding,
                          rotation=rotation, rotation_step=s.rotation_step, flip=flip, shape=s.shape,
                          merge_overlapping=s.merge_overlapping, stack_similar=s.stack_similar,
                          max_scale_ratio=ratio, locked=locked if locked.any() else None,
                          seed=s.seed, threads=s.threads, cancel=self._stop,
                          time_limit=self._first_layout_seconds(),
                          **placement)
        except (ValueError, IndexError) as exc:
            text = str(exc)
            raise PackError(text[:1].upper() + text[1:]) from exc

    def _make_packer(self) -> Packer:
        """Find the islands and compute the first layout (may take a while)."""
        s = self.settings
        if self.margin is None:
            self._set_gaps()
        if self._stop.is_set():  # finding the islands for the margin takes a while on dense meshes
            raise Cancelled("stopped before the first layout")
        uvs, faces, verts, locked = self._packer_input()
        self._frame = None
        if s.target == "UDIM_TILES":
            packer = self._new_packer(uvs, faces, verts, locked, self.margin, self.padding, scale="fixed",
                                      tiles=sorted(s.udim_tiles) or None, **self._groups(len(faces), "tiles"))
        else:
            keeps = s.lock_pinned and s.pin_method in ("SCALE", "ROTATION_SCALE") and bool(self._pinned.any())
            keep_size = self._pinned_islands() if keeps else np.zeros(0, bool)
            if (s.target == "REGION" or s.keep_together != "NONE") and (not s.scale or keep_size.any()):
                what = "A region target" if s.target == "REGION" else "Keep Together"
                raise PackError(f"{what} needs Scale on (and no pinned island keeping its size)")
            if not s.scale or keep_size.any():
                # pack at fixed scale in a unit frame holding the target (sizes, margin and padding scaled
                # down alike, then back up)
                self._frame = self._unit_frame(uvs, faces, locked)
            if s.scale and keep_size.any():
                packer = self._keep_pinned_size(uvs, faces, verts, locked, keep_size)
            else:
                placement = {"target": self._target} if s.scale else {"scale": "fixed"}
                if s.target == "REGION":
                    placement["target"] = [np.asarray(r, np.float64) * self._texel for r in s.region]
                placement.update(self._groups(len(faces), "together"))
                packer = self._new_packer(uvs, faces, verts, locked, self.margin, self.padding, **placement)
        n = len(self._uvs)
        held = [isl.uv_indices for isl in packer.islands if locked[isl.faces].any()]
        loops = np.concatenate(held) if held else np.zeros(0, np.int64)
        self._locked_loops = loops[loops < n]
        return packer

    def _groups(self, n_faces: int, layout: str) -> Dict[str, Any]:
        """The packer's ``groups`` and ``group_layout`` (``layout``) for Keep
        Together (none without it); ``n_faces`` faces go to the packer, the
        packed ones first."""
        s = self.settings
        if s.keep_together == "NONE":
            return {}
        keys = self._face_mesh if s.keep_together == "OBJECT" else self._face_material
        # obstacle faces after the packed ones are locked: their key does not matter
        return {"groups": np.concatenate([keys, np.repeat(keys[:1], n_faces - len(keys))]), "group_layout": layout}

    def _keep_pinned_size(self, uvs: np.ndarray, faces: List[np.ndarray], verts: np.ndarray,
                          locked: np.ndarray, keep_size: np.ndarray) -> Packer:
        """Pinned islands keep their size while the others scale to fill the
        target: the others are scaled by ``f`` before a fixed-scale pack into
        the target alone, with the largest ``f`` that fits found by
        bisection (to 0.2 %, within half the time limit, 5 s without one)."""
        s = self.settings
        free = [isl.uv_indices for isl, keep in zip(self._island_list(), keep_size) if not keep]
        free_loops = np.concatenate(free) if free else np.zeros(0, np.int64)
        band = self._band if s.margin_method in ("ADD", "SCALED") else None

        def attempt(f: float) -> Packer:
            scaled = uvs.copy()
            scaled[free_loops] *= f
            m = band * f if band is not None else self.margin / 2
            gap = self.margin if s.margin_method == "PIXELS" else 2 * m
            pad = s.padding if s.margin_method == "PIXELS" else m + s.padding
            return self._new_packer(scaled, faces, verts, locked, gap, pad, tiles=[1001])

        lim = self.limits
        deadline = time.perf_counter() + (lim.time_limit / 2 if lim.time_limit > 0 else 5.0)
        hi = self._scale_bound(band or 0.0)
        try:
            return attempt(hi)
        except PackError as exc:
            error = exc
        lo, best = hi, None
        while best is None:
            lo /= 2
            if lo < hi * 1e-6:
                raise error
            try:
                best = attempt(lo)
            except PackError as exc:
                error, hi = exc, lo
        while hi > lo * 1.002 and time.perf_counter() < deadline and not self._stop.is_set():
            mid = math.sqrt(lo * hi)
            try:
                best, lo = attempt(mid), mid
            except PackError:
                hi = mid
        return best

    def _output_uvs(self, result: PackResult) -> np.ndarray:
        """The packed UVs of the moving loops: obstacles left out, the
        keep-size frame undone, locked islands exactly as they were."""
        n = len(self._uvs)
        uvs = np.array(result.uvs[:n], dtype=np.float64, copy=True)
        if self._frame is not None:
            origin, k = self._frame
            uvs = uvs * k + origin
        uvs /= self._texel
        uvs[self._locked_loops] = self._raw[self._locked_loops]
        return uvs

    # ------------------------------------------------------------- search

    def start(self, since: Optional[float] = None) -> None:
        """Start the search in a worker thread; returns at once.

        ``since``: the ``time.perf_counter()`` the time limit counts from
        (default: now), such as when the user started the operator, before
        the meshes were read."""
        if self._state != "ready":
            raise RuntimeError("a session can be started once")
        self._state = "running"
        self._t0 = time.perf_counter() if since is None else since
        self._thread = threading.Thread(target=self._work, name="uvnest-pack", daemon=True)
        self._thread.start()

    def run(self, since: Optional[float] = None) -> Layout:
        """Search in this thread until a limit; return the best layout.

        Needs bounded :attr:`limits`; ``since`` as for :meth:`start`.
        Raises :class:`PackError` when the islands cannot be packed (for
        example the margin leaves no room).
        """
        if not self.limits.bounded:
            raise InputError("run() needs a time, iteration or no-improvement limit", "limits", REQUIRES, "limits")
        if self._state != "ready":
            raise RuntimeError("a session can be started once")
        self._state = "running"
        self._t0 = time.perf_counter() if since is None else since
        self._work()
        if self._error is not None:
            raise self._error
        assert self._best is not None
        return self._best

    def _first_layout_seconds(self) -> float:
        """How long a packer being made may take before it hands out the box
        layout: what is left of the time limit, at most :data:`FIRST_LAYOUT_SECONDS`
        (with Keep Together, at most :data:`TOGETHER_FIRST_SECONDS`: its
        groups are packed then, and no box layout stands in for them)."""
        lim = self.limits
        most = FIRST_LAYOUT_SECONDS if self.settings.keep_together == "NONE" else TOGETHER_FIRST_SECONDS
        if lim.time_limit <= 0:
            return most
        return min(max(self._t0 + lim.time_limit - time.perf_counter(), 0.0), most)

    def _work(self) -> None:
        """The search loop (worker thread, or the caller's in :meth:`run`)."""
        try:
            packer = self._make_packer()
        except Cancelled:
            self._end("stopped", "stopped")
            return
        except PackError as exc:
            self._end("failed", str(exc), exc)
            return
        except Exception as exc:  # an engine failure must reach the operator, not die with the thread
            self._end("failed", str(exc), PackError(f"uvnest failed: {type(exc).__name__}: {exc}"))
            return
        if self._stop.is_set():
            self._end("stopped", "stopped")
            return
        self._publish(packer.best, packer.stats["moves"])
        if packer.final:  # e.g. bounding boxes: searching cannot improve the first layout
            self._end("finished", "final layout")
            return
        lim = self.limits
        with packer._stop_at(self._t0 + lim.time_limit if lim.time_limit > 0 else None):
            self._search(packer)

    def _search(self, packer: Packer) -> None:
        """Step ``packer`` until a limit is reached or the session is stopped."""
        last = time.perf_counter()
        lim = self.limits
        while True:
            now = time.perf_counter()
            moves = int(packer.stats["moves"])
            if self._stop.is_set():
                self._end("stopped", "stopped")
                return
            if lim.time_limit > 0 and now - self._t0 >= lim.time_limit:
                self._end("finished", "time limit")
                return
            if lim.iterations > 0 and moves >= lim.iterations:
                self._end("finished", "iteration limit")
                return
            if lim.stall > 0 and now - last >= lim.stall:
                self._end("finished", f"no improvement for {lim.stall:g} s")
                return
            # without its exact first layout (a box layout is shown) the packer
            # builds it in one go, and no move more: the step returns as soon
            # as it is ready, so that it is shown at once
            budget = packer._paced_seconds(STEP_SECONDS) if packer.exact else 3600.0
            if lim.time_limit > 0:
                budget = min(budget, self._t0 + lim.time_limit - now)
            if lim.stall > 0:
                budget = min(budget, last + lim.stall - now)
            left = (lim.iterations - moves if lim.iterations > 0 else None) if packer.exact else 0
            if packer.step(seconds=max(budget, 0.0), iterations=left):
                self._publish(packer.best, packer.stats["moves"])
                last = time.perf_counter()
            else:
                with self._lock:
                    self._moves = int(packer.stats["moves"])
                    self._elapsed = time.perf_counter() - self._t0

    def _publish(self, result: PackResult, moves: int) -> None:
        """Make ``result`` the best layout (worker side)."""
        uvs = self._output_uvs(result).astype(np.float32)
        parts = tuple(np.split(uvs, self._bounds))
        elapsed = time.perf_counter() - self._t0
        with self._lock:
            number = 0 if self._best is None else self._best.number + 1
            self._best = Layout(loop_uvs=parts, coverage=float(result.coverage), scale=float(result.scale),
                                iterations=int(result.iterations), elapsed=elapsed, number=number,
                                islands=len(result.islands), kind=result.kind)
            self._moves = int(moves)
            self._elapsed = elapsed

    def _end(self, state: str, reason: str, error: Optional[PackError] = None) -> None:
        """Record why the worker stopped; ``'stopped'`` (by keep or cancel)
        leaves the state to those methods."""
        with self._lock:
            if self._state != "running":
                return
            self._reason = reason
            self._error = error
            self._elapsed = time.perf_counter() - self._t0
            if state != "stopped":
                self._state = state

    # -------------------------------------------------------------- query

    def poll(self) -> Optional[Layout]:
        """The newest layout not handed out by ``poll`` before, or None.

        Layouts found between two polls are skipped: only the best one
        matters.  Their coverage increases from one poll to the next.
        """
        with self._lock:
            best = self._best
        if best is None or best.number == self._polled:
            return None
        self._polled = best.number
        return best

    @property
    def best(self) -> Optional[Layout]:
        """The best layout so far (None before the first one)."""
        with self._lock:
            return self._best

    @property
    def done(self) -> bool:
        """True once the search ended by itself (a limit, or a failure)."""
        with self._lock:
            return self._state in ("finished", "failed")

    @property
    def error(self) -> Optional[PackError]:
        """Why the search failed (None unless it did)."""
        with self._lock:
            return self._error

    @property
    def progress(self) -> Progress:
        """What the search is doing now."""
        with self._lock:
            best = self._best
            running = self._state == "running"
            return Progress(state=self._state,
                            elapsed=(time.perf_counter() - self._t0) if running else self._elapsed,
                            iterations=self._moves, layouts=0 if best is None else best.number + 1,
                            coverage=0.0 if best is None else best.coverage,
                            scale=0.0 if best is None else best.scale, reason=self._reason)

    def status_text(self) -> str:
        """One line for Blender's header: coverage, scale, time, iterations."""
        p = self.progress
        if p.layouts == 0:
            return f"uvnest: finding the first layout ({p.elapsed:.1f} s)"
        box = f"   ({self.best.kind} layout; the exact one is being built)" if self.best.kind != "exact" else ""
        return (f"uvnest: coverage {p.coverage:.2%}   scale {p.scale:.4g}   {p.elapsed:.1f} s   "
                f"{p.iterations:,} iterations   {p.layouts} layouts{box}")

    def full_uvs(self, uvs: Sequence[np.ndarray], layout: Layout) -> List[np.ndarray]:
        """Whole-mesh loop UVs: copies of ``uvs`` (one ``(L, 2)`` array per
        mesh) with the moving loops taken from ``layout``."""
        out = []
        for full, loops, new in zip(uvs, self.moving_loops, layout.loop_uvs):
            if full is None:
                out.append(None)
                continue
            arr = np.array(full, dtype=np.float32, copy=True)
            arr[loops] = new
            out.append(arr)
        return out

    # ---------------------------------------------------------------- end

    def _halt(self, timeout: float) -> None:
        """Stop the worker in whatever phase (finding islands, the first
        layout, the search: each stops within tens of milliseconds) and wait
        up to ``timeout`` seconds for it."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def keep(self, timeout: float = 2.0) -> Optional[Layout]:
        """Stop the search and return the best layout (None when it was
        stopped before the first layout was found, or failed)."""
        self._halt(timeout)
        with self._lock:
            if self._state in ("ready", "running", "finished"):
                self._state = "kept"
            return self._best

    def cancel(self, timeout: float = 2.0) -> Tuple[np.ndarray, ...]:
        """Stop the search and return the original UVs of the moving loops
        (per mesh, bit for bit), to be written back."""
        self._halt(timeout)
        with self._lock:
            if self._state != "failed":
                self._state = "cancelled"
        return self._originals
