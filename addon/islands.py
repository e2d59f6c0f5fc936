"""Islands: connected groups of UV faces, and groups of islands that overlap.

Connectivity is defined by the indexing: faces that share a UV index belong
to one island, so every packed result stays representable as one UV per
index.  Files that store UVs per face corner (no shared indices) can pass the
faces' position indices as ``mesh_faces``: faces that share a mesh edge whose
UVs match are then joined, as Blender does.

Overlapping islands (``merge_overlapping``) are islands whose filled outlines
(outer boundaries, holes filled) overlap: stacked or mirrored copies sharing
texture space, and an island lying inside another's hole, which the artist
placed there on purpose.  This is Blender's rule too.  Islands that only touch
are not merged.

An island's outline holds every UV of the island: faces too thin for the
outline's grid (2**-28 of the island's size; zero-area faces, slivers, the
tips of spikes) add strips one grid step wide around their edges.  An
island whose faces all have zero area (a line or a point in UV space) is
such strips alone, with area 0.  Zero-area geometry inside or on another
island overlaps it, so ``merge_overlapping`` keeps it with that island.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._faces import FacesLike, check_finite, check_uvs, corners_of, faces_csr

__all__ = ["Island", "clipped_area", "tile_coverage", "find_islands", "island_faces_of"]


@dataclass
class Island:
    """One island (or one group of overlapping islands that move together).

    Attributes:
        index: position in the list returned by :func:`find_islands`.
        faces: indices of its faces in the input face list.
        uv_indices: the UV indices its faces use (sorted).
        outline: the union of its faces as rings (outer counter-clockwise,
            holes clockwise), with strips one grid step wide around faces
            too thin for the grid (see the module docstring).
        area: area of that union (0 when no face has area).
        bbox: ``(umin, vmin, umax, vmax)`` of its UVs.
        members: for a group of overlapping islands, the indices of the
            connected islands it merges (in the unmerged numbering); a single
            island has one member.
    """

    index: int
    faces: np.ndarray
    uv_indices: np.ndarray
    outline: List[np.ndarray]
    area: float
    bbox: Tuple[float, float, float, float]
    members: Tuple[int, ...] = field(default_factory=tuple)


def _edge_pairs(start: np.ndarray, idx: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Each face corner paired with the next corner of the same face."""
    nxt = np.arange(1, idx.size + 1)
    nxt[start[1:] - 1] = start[:-1]
    return idx, idx[nxt]


def _mesh_edge_pairs(uvs: np.ndarray, start: np.ndarray, idx: np.ndarray,
                     mesh_idx: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """UV index pairs to join: corners of faces that share a mesh edge with
    identical UVs at both ends (Blender's rule for corner-stored UVs)."""
    nxt = np.arange(1, idx.size + 1)
    nxt[start[1:] - 1] = start[:-1]
    m0, m1 = mesh_idx, mesh_idx[nxt]
    u0, u1 = idx, idx[nxt]
    swap = m0 > m1
    lo_m, hi_m = np.where(swap, m1, m0), np.where(swap, m0, m1)
    lo_u, hi_u = np.where(swap, u1, u0), np.where(swap, u0, u1)
    a, b = uvs[lo_u], uvs[hi_u]
    # corners by mesh edge (one sort of one key: sorting by all six took
    # 0.55 s at 500,000 corners); an edge of two faces pairs its two
    # corners when their UVs match, and the rare edges of more faces are
    # sorted by their UVs too, pairing neighbours that match
    edge = lo_m.astype(np.int64) * (int(hi_m.max()) + 1) + hi_m
    order = np.argsort(edge, kind="stable")
    e = edge[order]
    run = np.flatnonzero(np.concatenate(([True], e[1:] != e[:-1])))
    size = np.diff(np.append(run, e.size))
    i, j = order[run[size == 2]], order[run[size == 2] + 1]
    ok = (a[i] == a[j]).all(axis=1) & (b[i] == b[j]).all(axis=1)
    first, second = [i[ok]], [j[ok]]
    many = order[np.repeat(size > 2, size)]
    if many.size:
        sub = many[np.lexsort((b[many, 1], b[many, 0], a[many, 1], a[many, 0], edge[many]))]
        key = np.column_stack((edge[sub], a[sub], b[sub]))
        same = np.flatnonzero((key[1:] == key[:-1]).all(axis=1))
        first.append(sub[same])
        second.append(sub[same + 1])
    first, second = np.concatenate(first), np.concatenate(second)
    return (np.concatenate((lo_u[first], hi_u[first])),
            np.concatenate((lo_u[second], hi_u[second])))


def _clip_half_plane(pts: np.ndarray, axis: int, bound: float, keep_above: bool) -> np.ndarray:
    """Sutherland-Hodgman step: the part of a closed ring on one side of ``x[axis] = bound``."""
    if len(pts) == 0:
        return pts
    d = pts[:, axis] - bound if keep_above else bound - pts[:, axis]
    inside = d >= 0
    if inside.all():
        return pts
    if not inside.any():
        return pts[:0]
    nxt = np.roll(pts, -1, axis=0)
    d_next = np.roll(d, -1)
    crosses = inside != np.roll(inside, -1)
    t = d / np.where(crosses, d - d_next, 1.0)
    hit = pts + t[:, None] * (nxt - pts)
    hit[:, axis] = bound
    # per ring vertex: the vertex itself if inside, then the crossing on its outgoing edge
    return np.stack((pts, hit), axis=1)[np.stack((inside, crosses), axis=1)]


def clipped_area(rings: Sequence[np.ndarray], box: Tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)) -> float:
    """Area of the region bounded by ``rings`` (outer and hole rings, any
    consistent orientation) inside the rectangle ``box = (x0, y0, x1, y1)``.

    Each ring is clipped to the box (Sutherland-Hodgman, exact for a convex
    clip region: the zero-width parts it leaves along the box border have no
    area) and the signed areas are added, so holes subtract.
    """
    x0, y0, x1, y1 = box
    clipped = []
    for ring in rings:
        pts = np.asarray(ring, dtype=np.float64)
        for axis, bound, above in ((0, x0, True), (0, x1, False), (1, y0, True), (1, y1, False)):
            pts = _clip_half_plane(pts, axis, bound, above)
        if len(pts) >= 3:
            clipped.append(pts)
    return abs(float(ring_areas(clipped).sum()))


def tile_coverage(islands: Sequence["Island"], box: Tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)) -> float:
    """Share of ``box`` covered by the union of the islands.

    ``islands`` must come from ``find_islands(..., merge_overlapping=True)``:
    then each island's outline is the exact union of its faces and distinct
    islands do not overlap, so the union's area is the sum of the islands'
    areas clipped to the box.
    """
    x0, y0, x1, y1 = box
    return sum(clipped_area(isl.outline, box) for isl in islands) / ((x1 - x0) * (y1 - y0))


def ring_areas(rings: Sequence[np.ndarray]) -> np.ndarray:
    """Signed area of each (non-empty) ring, counter-clockwise positive, vectorised."""
    if not rings:
        return np.zeros(0)
    pts = np.concatenate(rings)
    sizes = np.fromiter((len(r) for r in rings), dtype=np.int64, count=len(rings))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    nxt = np.arange(1, len(pts) + 1)
    nxt[starts + sizes - 1] = starts
    # from each ring's first point: from the origin, rounding of order
    # eps * |uv|**2 swamps small islands far from it
    pts = pts - np.repeat(pts[starts], sizes, axis=0)
    cross = pts[:, 0] * pts[nxt, 1] - pts[nxt, 0] * pts[:, 1]
    return 0.5 * np.add.reduceat(cross, starts)


def _islands(uvs: np.ndarray, start: np.ndarray, idx: np.ndarray, face_group: np.ndarray,
             members: List[Tuple[int, ...]]) -> List[Island]:
    """Build the islands of a face grouping (groups numbered 0..)."""
    n = len(members)
    outlines, solid = _core.outlines(uvs, start, idx, face_group.astype(np.int32), n)
    order = np.argsort(face_group, kind="stable")
    bounds = np.searchsorted(face_group[order], np.arange(n + 1))
    # the UV indices of each group: unique (group, index) pairs, sorted
    corner_group = np.repeat(face_group, np.diff(start)).astype(np.int64)
    pairs = np.sort(corner_group * len(uvs) + idx)   # np.unique by hashing took 0.5 s at 500,000
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
    pair_group, used = np.divmod(pairs, len(uvs))
    used_bounds = np.searchsorted(pair_group, np.arange(n + 1))
    pts = uvs[used]
    lo = np.minimum.reduceat(pts, used_bounds[:-1], axis=0)
    hi = np.maximum.reduceat(pts, used_bounds[:-1], axis=0)
    ring_area = ring_areas([r for rings in outlines for r in rings])
    ring_bounds = np.concatenate(([0], np.cumsum([len(rings) for rings in outlines])))
    area = np.abs(np.add.reduceat(np.append(ring_area, 0.0), ring_bounds[:-1]))
    area[(ring_bounds[:-1] == ring_bounds[1:]) | ~solid] = 0.0
    return [Island(index=g, faces=order[bounds[g]:bounds[g + 1]].astype(np.int64),
                   uv_indices=used[used_bounds[g]:used_bounds[g + 1]], outline=outlines[g], area=float(area[g]),
                   bbox=(float(lo[g, 0]), float(lo[g, 1]), float(hi[g, 0]), float(hi[g, 1])), members=members[g])
            for g in range(n)]


def _filled(outlines: List[List[np.ndarray]]) -> List[List[np.ndarray]]:
    """The outer rings of each outline (its holes filled)."""
    positive = iter(ring_areas([r for rings in outlines for r in rings]) > 0)
    return [[r for r in rings if next(positive)] for rings in outlines]


def find_islands(uvs, faces: FacesLike, mesh_faces: Optional[FacesLike] = None,
                 merge_overlapping: bool = True, checkpoint: Optional[Callable[[], None]] = None) -> List[Island]:
    """Find the islands of a UV layout.

    Args:
        uvs: ``(N, 2)`` UV coordinates.
        faces: per-face index sequences into ``uvs``, or an ``(F, k)`` array
            (triangles, quads and n-gons).
        mesh_faces: optional position indices with the same shape as
            ``faces``; faces sharing a mesh edge with matching UVs are joined
            (for files that store one UV per face corner).
        merge_overlapping: group islands whose UV areas overlap (mirrored
            halves sharing texture space, stacked copies) so that they move
            together.
        checkpoint: called between the steps (each tens of milliseconds
            on a 30,000-face mesh); whatever it raises stops the search
            (``Packer`` raises ``Cancelled`` there).

    Returns:
        Islands in order of their first face.  Raises ``ValueError`` or
        ``IndexError`` naming the face for NaN or infinite UVs, out-of-range
        indices, faces with fewer than 3 corners, or an empty face list.
    """
    check = checkpoint or (lambda: None)
    uvs = check_uvs(uvs)
    start, idx = faces_csr(faces, len(uvs))
    check_finite(uvs, start, idx)
    check()
    a, b = _edge_pairs(start, idx)
    if mesh_faces is not None:
        mstart, midx = faces_csr(mesh_faces, 2**31 - 1, "mesh_faces")
        if not np.array_equal(mstart, start):
            raise ValueError("mesh_faces must have the same shape as faces")
        ma, mb = _mesh_edge_pairs(uvs, start, idx, midx)
        a, b = np.concatenate((a, ma)), np.concatenate((b, mb))
        check()
    labels, _ = _core.components(len(uvs), a, b)
    face_label = labels[idx[start[:-1]]]
    # number islands by their first face
    uniq, first = np.unique(face_label, return_index=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    face_island = rank[np.searchsorted(uniq, face_label)]
    check()
    islands = _islands(uvs, start, idx, face_island, [(k,) for k in range(first.size)])
    if not merge_overlapping or len(islands) < 2:
        return islands
    check()
    groups = _core.overlap_groups(_filled([isl.outline for isl in islands]))
    if groups.max() + 1 == len(islands):
        return islands
    check()
    return _merged(islands, groups, uvs, start, idx, face_island)


def _face_subset(start: np.ndarray, idx: np.ndarray, faces: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """The ``(start, indices)`` arrays of the faces ``faces`` alone."""
    sub_start = np.zeros(faces.size + 1, dtype=np.int32)
    np.cumsum(np.diff(start)[faces], out=sub_start[1:])
    return sub_start, idx[corners_of(start, faces)]


def _merged(islands: List[Island], groups: np.ndarray, uvs: np.ndarray, start: np.ndarray, idx: np.ndarray,
            face_island: np.ndarray) -> List[Island]:
    """The islands with each overlap group (``groups``: per island its
    group, numbered 0..) joined into one.  Only the groups of several islands
    are built again from their faces (an outline is the union of its own
    faces alone, so the others keep theirs): on a 126,000-face mesh with
    three merged pairs, rebuilding every island took a quarter of the time
    of finding the islands."""
    n = int(groups.max()) + 1
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(n + 1))
    members = [tuple(order[bounds[g]:bounds[g + 1]].tolist()) for g in range(n)]
    several = np.flatnonzero(np.diff(bounds) > 1)
    face_group = groups[face_island]
    faces = np.flatnonzero(np.isin(face_group, several))
    sub_start, sub_idx = _face_subset(start, idx, faces)
    joined = _islands(uvs, sub_start, sub_idx, np.searchsorted(several, face_group[faces]),
                      [members[g] for g in several])
    rebuilt = dict(zip(several.tolist(), joined))
    out = []
    for g in range(n):
        isl = rebuilt.get(g)
        if isl is None:
            out.append(replace(islands[members[g][0]], index=g, members=members[g]))
        else:
            out.append(replace(isl, index=g, faces=faces[isl.faces]))
    return out


def island_faces_of(islands: Sequence[Island], n_faces: int) -> np.ndarray:
    """Per face, the index of its island (-1 for none)."""
    out = np.full(n_faces, -1, dtype=np.int64)
    for isl in islands:
        out[isl.faces] = isl.index
    return out
