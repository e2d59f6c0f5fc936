"""Meshes as Blender holds them: one UV per face corner (loop).  A
:class:`MeshLoops` is what the add-on reads from an edit-mode mesh; the
functions here check one and pick the loops of the faces to pack and of
the obstacles (see :class:`uvnest.live.LiveSession`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from .errors import InputError

__all__ = ["MeshLoops", "check_mesh", "chosen_loops", "packer_faces", "face_loops", "obstacle_loops"]


@dataclass
class MeshLoops:
    """One mesh's loops, as the add-on reads them from Blender.

    Attributes:
        uvs: ``(L, 2)`` float32 UV per loop, or None when the mesh has no UV
            map (such a mesh is skipped).
        loop_start: ``(F,)`` first loop of each face.
        loop_total: ``(F,)`` number of loops of each face.
        loop_vert: ``(L,)`` mesh vertex index of each loop.
        selected: ``(F,)`` bool, face selected for packing (already
            following UV sync selection).
        hidden: ``(F,)`` bool, face hidden (never packed, even if selected).
        pinned: ``(F,)`` bool, face has a pinned UV.
        name: the object's name, for messages.
        material: ``(F,)`` per face its material's name ("" without one),
            or None, for :attr:`uvnest.live_settings.PackSettings.keep_together` ``'MATERIAL'``.
        shown: ``(F,)`` bool, face shown in the UV editor (with UV sync
            selection off, the faces selected in the mesh), or None: every
            face that is not hidden.  Shown faces that are not selected are
            the obstacles of :attr:`uvnest.live_settings.PackSettings.obstacles`.
    """

    uvs: Optional[np.ndarray]
    loop_start: np.ndarray
    loop_total: np.ndarray
    loop_vert: np.ndarray
    selected: np.ndarray
    hidden: np.ndarray
    pinned: np.ndarray
    name: str = ""
    shown: Optional[np.ndarray] = None
    material: Optional[np.ndarray] = None


def check_mesh(k: int, m: MeshLoops) -> None:
    """Raise ``InputError`` (a ``ValueError``) when the arrays of mesh ``k`` do not agree."""
    n_faces = len(m.loop_start)
    for name in ("loop_total", "selected", "hidden", "pinned") + (("shown",) if m.shown is not None else ()):
        if len(getattr(m, name)) != n_faces:
            raise InputError(f"mesh {k}: {name} has {len(getattr(m, name))} entries for {n_faces} faces", "meshes")
    if m.uvs is not None and (m.uvs.ndim != 2 or m.uvs.shape[1] != 2 or len(m.uvs) != len(m.loop_vert)):
        raise InputError(f"mesh {k}: uvs must be (L, 2) with one row per loop, got {m.uvs.shape}", "meshes")


def face_loops(m: MeshLoops, mask: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The faces of ``mask``, their loop counts, and their loops in face order."""
    chosen = np.flatnonzero(mask)
    start = np.asarray(m.loop_start, np.int64)[chosen]
    total = np.asarray(m.loop_total, np.int64)[chosen]
    first = np.cumsum(total) - total  # where each face's loops begin in the result
    loops = np.repeat(start - first, total) + np.arange(int(total.sum()), dtype=np.int64)
    return chosen, total, loops


def chosen_loops(m: MeshLoops) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The faces to pack (selected and visible), their loop counts, and
    their loops in face order."""
    return face_loops(m, np.asarray(m.selected, bool) & ~np.asarray(m.hidden, bool))


def shown_faces(m: MeshLoops) -> np.ndarray:
    """Per face, whether the UV editor shows it (bool)."""
    hidden = np.asarray(m.hidden, bool)
    return ~hidden if m.shown is None else np.asarray(m.shown, bool) & ~hidden


def shown_edges(m: MeshLoops) -> np.ndarray:
    """The edges of the faces the UV editor shows: ``(n, 2)`` uint32 pairs
    of loop indices, each loop and the next of its face."""
    _, total, loops = face_loops(m, shown_faces(m))
    corner = np.arange(loops.size, dtype=np.int64) - np.repeat(np.cumsum(total) - total, total)
    following = loops - corner + (corner + 1) % np.repeat(total, total)
    return np.stack([loops, following], axis=1).astype(np.uint32)


def outline_edges(m: MeshLoops) -> np.ndarray:
    """The edges of the shown faces that lie on an island's outline in UV
    space (no other shown face has the same edge with the same two UVs):
    ``(n, 2)`` uint32 pairs of loop indices, a subset of :func:`shown_edges`."""
    edges = shown_edges(m)
    if not edges.size:
        return edges
    # a loop's UV as one 64-bit key: its two float32s, bit for bit
    key = np.ascontiguousarray(m.uvs, np.float32).view(np.uint64).ravel()
    a, b = key[edges[:, 0]], key[edges[:, 1]]
    low, high = np.minimum(a, b), np.maximum(a, b)
    order = np.lexsort((high, low))
    low, high = low[order], high[order]
    # in sorted order, an edge shared by another face equals a neighbour
    equal = (low[1:] == low[:-1]) & (high[1:] == high[:-1])
    shared = np.zeros(len(order), bool)
    shared[1:] |= equal
    shared[:-1] |= equal
    return edges[np.sort(order[~shared])]


def obstacle_loops(m: MeshLoops) -> Tuple[np.ndarray, np.ndarray]:
    """The obstacle faces (shown, not selected, not hidden, finite UVs):
    their loop counts and their loops in face order."""
    _, total, loops = face_loops(m, shown_faces(m) & ~np.asarray(m.selected, bool))
    if not total.size:
        return total, loops
    finite = np.isfinite(np.asarray(m.uvs)[loops]).all(axis=1)
    good = np.logical_and.reduceat(finite, np.cumsum(total) - total)
    return total[good], loops[np.repeat(good, total)]


def packer_faces(faces: List[np.ndarray], verts: np.ndarray):
    """Faces and mesh faces as the packer takes them: ``(F, k)`` arrays when
    every face has ``k`` corners, else lists."""
    if len({len(f) for f in faces}) == 1:
        arr = np.stack(faces)
        return arr, verts[arr]
    return faces, [verts[f] for f in faces]
