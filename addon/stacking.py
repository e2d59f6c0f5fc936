"""Stacking similar islands: congruent islands packed as one.

Repeated parts (bolts, wheels, symmetric halves) often come out of an unwrap
as islands of the same shape in different places and orientations.  Stacked
on one another they share one piece of texture, which leaves room to scale
everything up.

Two islands are *similar* when one, turned (and mirrored, when mirroring is
allowed) about its centre, lies on the other within a tolerance: their sets
of UV points match point for point within ``tolerance`` times the first
island's size (twice its largest distance from its points' centre), in both directions, and they have
as many faces and outline area equal within what that tolerance allows.

The packer then moves every copy onto its stack's first island (the
*alignment*, a rigid motion) and packs the stack as one island whose outline
is the union of all its aligned copies, so the margin holds for every copy
exactly, whatever the tolerance let through.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._faces import FacesLike, faces_csr
from .islands import Island, _islands, island_faces_of

__all__ = ["Alignment", "Stack", "find_stacks", "stack_islands"]

#: tolerance used for ``stack_similar=True``: a thousandth of the island's size
DEFAULT_TOLERANCE = 1e-3
#: anchor candidates tried per pair of islands; shapes with more points at the
#: anchor's distance from the centre (finely sampled circles) stack only when
#: one of the first ones fits
MAX_ANCHORS = 64


@dataclass(frozen=True)
class Alignment:
    """The rigid motion ``p' = R(rotation) F p + translation`` (F mirrors u
    when ``flipped``) that puts an island on its stack's first island."""

    rotation: float
    flipped: bool
    translation: Tuple[float, float]

    def apply(self, p: np.ndarray) -> np.ndarray:
        """Points ``p`` (``(n, 2)``) moved by the alignment."""
        q = p * np.array([-1.0, 1.0]) if self.flipped else p
        c, s = math.cos(self.rotation), math.sin(self.rotation)
        return np.column_stack((c * q[:, 0] - s * q[:, 1] + self.translation[0],
                                s * q[:, 0] + c * q[:, 1] + self.translation[1]))


IDENTITY_ALIGNMENT = Alignment(0.0, False, (0.0, 0.0))


@dataclass
class _Shape:
    """What similarity compares of one island."""

    points: np.ndarray      # its distinct UV points
    centre: np.ndarray
    radius: np.ndarray      # each point's distance from the centre
    size: float             # twice the largest radius: turning does not change it
    faces: int
    area: float
    perimeter: float


def _perimeter(rings: Sequence[np.ndarray]) -> float:
    return float(sum(np.hypot(*(np.roll(r, -1, axis=0) - r).T).sum() for r in rings))


def _shape(uvs: np.ndarray, isl: Island) -> _Shape:
    pts = np.unique(uvs[isl.uv_indices], axis=0)
    centre = pts.mean(axis=0)
    radius = np.hypot(*(pts - centre).T)
    return _Shape(pts, centre, radius, 2.0 * float(radius.max()), int(isl.faces.size), isl.area,
                  _perimeter(isl.outline))


def _near(p: np.ndarray, q: np.ndarray, tol: float) -> bool:
    """Whether every point of ``p`` has a point of ``q`` within ``tol``
    (a grid of cells of side ``tol``: the 3 x 3 cells around a point hold
    every point within ``tol`` of it)."""
    if tol <= 0:
        return bool(np.array_equal(np.unique(p, axis=0), np.unique(q, axis=0)))
    lo = np.minimum(p.min(axis=0), q.min(axis=0))
    cp = np.floor((p - lo) / tol).astype(np.int64)
    cq = np.floor((q - lo) / tol).astype(np.int64)
    width = int(max(cp[:, 1].max(), cq[:, 1].max())) + 3
    key_q = (cq[:, 0] + 1) * width + cq[:, 1] + 1
    order = np.argsort(key_q, kind="stable")
    keys = key_q[order]
    found = np.zeros(len(p), dtype=bool)
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            key_p = (cp[:, 0] + 1 + dx) * width + cp[:, 1] + 1 + dy
            a, b = np.searchsorted(keys, key_p), np.searchsorted(keys, key_p, side="right")
            count = b - a
            if not count.any():
                continue
            which = np.repeat(np.arange(len(p)), count)
            cand = order[np.repeat(a - np.cumsum(count) + count, count) + np.arange(count.sum())]
            close = np.hypot(*(p[which] - q[cand]).T) <= tol
            found[which[close]] = True
    return bool(found.all())


def _alignment(a: _Shape, b: _Shape, tol: float, flip: bool) -> Alignment | None:
    """The alignment that puts island ``b`` on island ``a`` within ``tol``,
    or None.  The point of ``a`` farthest from its centre must land on a
    point of ``b`` at the same distance from ``b``'s centre: each such
    point gives one rotation to try."""
    anchor = a.points[int(np.argmax(a.radius))] - a.centre
    theta_a = math.atan2(anchor[1], anchor[0])
    candidates = np.flatnonzero(np.abs(b.radius - a.radius.max()) <= 2 * tol)[:MAX_ANCHORS]
    for flipped in ((False, True) if flip else (False,)):
        sign = np.array([-1.0, 1.0]) if flipped else np.ones(2)
        rel = (b.points - b.centre) * sign
        for k in candidates:
            theta = theta_a - math.atan2(rel[k, 1], rel[k, 0])
            c, s = math.cos(theta), math.sin(theta)
            turned = np.column_stack((c * rel[:, 0] - s * rel[:, 1], s * rel[:, 0] + c * rel[:, 1])) + a.centre
            if _near(turned, a.points, tol) and _near(a.points, turned, tol):
                m = Alignment(theta, flipped, (0.0, 0.0))
                shift = a.centre - m.apply(b.centre[None, :])[0]
                return Alignment(theta, flipped, (float(shift[0]), float(shift[1])))
    return None


def _similar_sizes(a: _Shape, b: _Shape, tol: float) -> bool:
    """Cheap necessary conditions: equal point and face counts, outline
    area and perimeter within what moving points by ``tol`` can change."""
    return (len(a.points) == len(b.points) and a.faces == b.faces
            and abs(a.area - b.area) <= 2 * tol * (a.perimeter + b.perimeter) + 4 * tol * tol
            and abs(a.size - b.size) <= 2 * tol)


def find_stacks(uvs: np.ndarray, islands: Sequence[Island], candidates: Sequence[int], tolerance: float,
                flip: bool, classes: Optional[np.ndarray] = None) -> List[List[Tuple[int, Alignment]]]:
    """Stacks of similar islands among ``candidates`` (indices into
    ``islands``); with ``classes`` (per island a number), islands of
    different classes never stack.

    Each stack lists ``(island index, alignment onto the stack's first
    island)``, first island first (with the identity); only stacks of two
    or more islands are returned.  An island joins the first earlier stack
    it matches, so the stacks do not depend on how similar copies are
    among themselves.  Islands without area never stack.
    """
    shapes = {i: _shape(uvs, islands[i]) for i in candidates if islands[i].area > 0}
    # similar islands have equal counts and sizes within 2 tol = 2 tolerance
    # size: buckets of sizes that wide (on a log scale) hold each island's
    # matches in its own bucket and the two beside it
    width = math.log1p(4 * max(tolerance, 1e-9))
    buckets: Dict[Tuple[int, int, int, int], List[List[Tuple[int, Alignment]]]] = {}
    stacks: List[List[Tuple[int, Alignment]]] = []
    for i, b in shapes.items():
        key = (len(b.points), b.faces, int(math.floor(math.log(max(b.size, 1e-300)) / width)),
               -1 if classes is None else int(classes[i]))
        match = None
        for near in (key, (key[0], key[1], key[2] - 1, key[3]), (key[0], key[1], key[2] + 1, key[3])):
            for stack in buckets.get(near, ()):
                a = shapes[stack[0][0]]
                tol = tolerance * a.size
                if _similar_sizes(a, b, tol):
                    m = _alignment(a, b, tol, flip)
                    if m is not None:
                        match = (stack, m)
                        break
            if match:
                break
        if match:
            match[0].append((i, match[1]))
        else:
            stack = [(i, IDENTITY_ALIGNMENT)]
            buckets.setdefault(key, []).append(stack)
            stacks.append(stack)
    stacks = [s for s in stacks if len(s) > 1]
    stacks.sort(key=lambda s: s[0][0])
    return stacks


@dataclass(frozen=True)
class Stack:
    """Similar islands packed as one.

    Attributes:
        island: the stack's index in the packer's (and result's) ``islands``.
        members: the stacked islands, numbered as :func:`uvnest.find_islands`
            numbers them (with the packer's ``merge_overlapping``), the first
            island first.
        alignments: per member, the rigid motion that puts it on the first
            member (the identity for the first).  A member's packed UVs are
            ``transforms[island]`` applied to its UVs moved by its alignment.
    """

    island: int
    members: Tuple[int, ...]
    alignments: Tuple[Alignment, ...]


def stack_islands(uvs: np.ndarray, faces: FacesLike, islands: List[Island], candidates: Sequence[int],
                  tolerance: float, flip: bool,
                  classes: Optional[np.ndarray] = None) -> Tuple[np.ndarray, List[Island], np.ndarray, List[Stack]]:
    """Merge the stacks of similar islands among ``candidates`` (of one
    class each, with ``classes``: see :func:`find_stacks`).

    Returns the UVs with every stacked copy moved onto its stack's first
    island (a new array; ``uvs`` is not modified), the islands after
    stacking (each stack one island, in order of first face, its outline the
    union of its aligned copies), per island before stacking its index
    after, and the stacks.
    """
    found = find_stacks(uvs, islands, candidates, tolerance, flip, classes)
    if not found:
        return uvs, islands, np.arange(len(islands)), []
    aligned = uvs.copy()
    label = np.arange(len(islands))
    for stack in found:
        for i, m in stack[1:]:
            idx = islands[i].uv_indices
            aligned[idx] = m.apply(uvs[idx])
            label[i] = stack[0][0]
    start, idx = faces_csr(faces, len(uvs))
    reps, new_of_old = np.unique(label, return_inverse=True)
    face_group = new_of_old[island_faces_of(islands, len(start) - 1)]
    members: List[List[int]] = [[] for _ in reps]
    for old, new in enumerate(new_of_old):
        members[new].extend(islands[old].members)
    merged = _islands(aligned, start, idx, face_group, [tuple(sorted(m)) for m in members])
    stacks = [Stack(int(new_of_old[s[0][0]]), tuple(int(i) for i, _ in s), tuple(m for _, m in s)) for s in found]
    return aligned, merged, new_of_old, stacks
