"""The one independent layout checker, used for every packer (shapely based).

Definitions (see also docs/design.md):

* **Island**: a connected component of faces that share an edge (two
  consecutive UV indices), which is Blender's notion.  Faces that share only
  a UV vertex are separate islands but always one merge group (they touch),
  so both conventions pass: uvnest keeps such faces together, Blender moves
  them apart and splits the shared vertex.  An island's polygon is the
  shapely union of its faces.  Faces of (numerically) zero area add nothing
  to a polygon, and an island made only of them is ignored altogether.
* **Merge group**: islands whose *input* outlines, holes filled, overlap or
  touch (are at most ``TOL`` apart) form one group, transitively; so an
  island lying in another's hole joins it (uvnest's and Blender's rule).
  Islands of one group may overlap in the output - every packer is asked to
  keep stacked islands together (Blender ``merge_overlap``, uvnest
  ``merge_overlapping``) - and are free to come apart.  Touching counts
  because Blender 5.0.1 keeps some islands that only touch at a point
  together (seen on ``homedecor_spiral_staircase``); keeping together what
  already touched in the input takes nothing from anyone.
* **Validity**: every pair of groups is at least ``margin - TOL`` apart, and
  every island lies inside the tile within ``TOL``.  With a margin not above
  ``TOL`` (puzzles use 0) groups may touch, but their overlap must not
  contain a disc of diameter ``TOL``.  Every island keeps its shape: its
  output corners are its input corners under one similarity (rotation,
  optional mirror, uniform scale, translation) within ``RIGID_TOL``,
  zero-area faces included (a packer that moves parts of an island apart
  stretches the faces between them); and all islands share one scale within
  ``SCALE_REL`` (islands whose output radius is below ``SCALE_MIN_RADIUS``
  are exempt from that comparison, as rounding dominates their fitted
  scale).
* **Coverage**: the area of the packed islands inside the tile divided by
  the tile area.  Groups of a valid layout are interior-disjoint, so this is
  the sum of the groups' clipped areas.  An invalid layout scores 0; its
  would-be coverage is kept as ``raw_coverage`` for diagnosis.

``TOL = 1e-6`` tile units: far below any margin worth packing with (one
texel of a 16k texture is 6e-5) and far above double rounding on unit
coordinates (1e-16), while covering the float32 output of xatlas and
Blender's own float32 UVs (about 6e-8 on [0, 1]).

Speed: faces become shapely polygons in one vectorised call, candidate pairs
come from an ``STRtree`` query, and distances are computed only for those
pairs.  On this 2-core machine the synthetic set of 10,000 islands (94,000
faces) takes about 4 s to analyse (once per model) and 5 s per layout.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import numpy as np
import shapely

from .common import Model, PackOutcome

#: Absolute tolerance in tile units for distances and the tile border.
TOL = 1e-6
#: Largest distance (tile units) of an output corner from the island's best-fit similarity image.
RIGID_TOL = 1e-5
#: Relative deviation of an island's scale from the common (median) scale that is tolerated.
SCALE_REL = 1e-2
#: Output RMS radius (tile units) below which an island is exempt from the scale comparison.
SCALE_MIN_RADIUS = 1e-3
#: Faces whose absolute area is at most this are ignored.
ZERO_AREA = 1e-18
#: How many violations a result keeps (the first ones found).
MAX_VIOLATIONS = 10

Tile = Tuple[float, float, float, float]
UNIT_TILE: Tile = (0.0, 0.0, 1.0, 1.0)


@dataclass
class Violation:
    """One broken rule.

    ``kind`` is "overlap", "too_close", "outside_tile", "deformed", "scale"
    or "nan" for a layout, or the packer's status ("timeout", "error",
    "late", "skipped") when it gave none.
    """

    kind: str
    islands: Tuple[int, ...]
    value: float
    detail: str

    def describe(self) -> str:
        """One-line human description."""
        who = " and ".join(f"island {i}" for i in self.islands)
        return f"{self.kind}: {who}: {self.detail}" if who else f"{self.kind}: {self.detail}"


@dataclass
class CheckResult:
    """Outcome of checking one layout (island and group counts leave out zero-area islands)."""

    packer: str
    model: str
    valid: bool
    coverage: float
    raw_coverage: float
    n_islands: int
    n_groups: int
    min_distance: float
    scale: float
    violations: List[Violation] = field(default_factory=list)

    @property
    def first_violation(self) -> str:
        """Description of the first violation with packer and model, or "" if valid."""
        if not self.violations:
            return ""
        return f"[{self.packer} on {self.model}] {self.violations[0].describe()}"


@dataclass
class Islands:
    """Island structure of a model, computed once and reused for every packer's layout."""

    face_island: np.ndarray  # (F,) island of each face
    n_islands: int
    face_ok: np.ndarray  # (F,) face has non-zero area in the input
    island_group: np.ndarray  # (n_islands,) merge group of each island
    n_groups: int
    input_polys: np.ndarray  # (n_islands,) shapely polygons of the input
    input_area: np.ndarray  # (n_islands,)

    @property
    def n_area_islands(self) -> int:
        """Islands with non-zero area (the ones that take part in packing)."""
        return int(np.count_nonzero(self.input_area > 0))

    @property
    def n_area_groups(self) -> int:
        """Merge groups holding an island with non-zero area."""
        return int(np.unique(self.island_group[self.input_area > 0]).size)


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Smallest node id of the connected component of every node of a graph with edges ``a[k]-b[k]``.

    Vectorised union-find: hook the larger root to the smaller, shortcut
    labels until stable, repeat; a handful of rounds even on long strips.
    """
    label = np.arange(n, dtype=np.int64)
    while True:
        la, lb = label[a], label[b]
        if np.array_equal(la, lb):
            return label
        low = np.minimum(la, lb)
        np.minimum.at(label, la, low)
        np.minimum.at(label, lb, low)
        while True:
            jumped = label[label]
            if np.array_equal(jumped, label):
                break
            label = jumped


def face_islands(face_sizes: np.ndarray, face_idx: np.ndarray, n_uvs: int) -> Tuple[np.ndarray, int]:
    """Islands: connected components of faces that share an edge (two consecutive UV indices).

    Edge connectivity is Blender's (and xatlas's) notion of a UV island.
    Faces that meet at a single UV index only are separate islands here; as
    they touch, they form one merge group, so a packer may keep them
    together (uvnest does: it joins faces sharing any index) or move them
    apart (Blender does, splitting the shared vertex).  Returns
    ``(face_island, n_islands)``, islands numbered in order of their first
    face.  ``n_uvs`` only bounds the indices.
    """
    n_faces = face_sizes.size
    if n_faces == 0:
        return np.zeros(0, dtype=np.int64), 0
    start = np.zeros(n_faces + 1, dtype=np.int64)
    np.cumsum(face_sizes, out=start[1:])
    corner_face = np.repeat(np.arange(n_faces), face_sizes)
    nxt = np.arange(face_idx.size) + 1
    nxt[start[1:] - 1] = start[:-1]
    u, v = face_idx, face_idx[nxt]
    keep = u != v  # a repeated corner is no edge
    key = np.minimum(u, v)[keep] * np.int64(max(n_uvs, 1)) + np.maximum(u, v)[keep]
    faces_of_edge = corner_face[keep]
    order = np.argsort(key, kind="stable")
    key, faces_of_edge = key[order], faces_of_edge[order]
    same = np.flatnonzero(key[1:] == key[:-1])
    root = _components(n_faces, faces_of_edge[same], faces_of_edge[same + 1])
    _, first = np.unique(root, return_index=True)
    rank = np.empty(n_faces, dtype=np.int64)
    rank[np.sort(first)] = np.arange(first.size)
    return rank[root], int(first.size)


def _face_polygons(coords: np.ndarray, face_sizes: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Shapely polygons of all faces from per-corner coordinates, plus signed areas.

    Self-intersecting faces (bow-tie quads) are repaired with ``make_valid``.
    """
    n_faces = face_sizes.size
    if n_faces == 0:
        return np.empty(0, dtype=object), np.zeros(0)
    corner_face = np.repeat(np.arange(n_faces), face_sizes)
    start = np.zeros(n_faces + 1, dtype=np.int64)
    np.cumsum(face_sizes, out=start[1:])
    nxt = np.arange(coords.shape[0]) + 1
    nxt[start[1:] - 1] = start[:-1]
    cross = coords[:, 0] * coords[nxt, 1] - coords[nxt, 0] * coords[:, 1]
    signed = 0.5 * np.add.reduceat(cross, start[:-1])
    rings = shapely.linearrings(coords, indices=corner_face)
    polys = shapely.polygons(rings)
    bad = ~shapely.is_valid(polys)
    if bad.any():
        polys[bad] = shapely.make_valid(polys[bad])
    return polys, signed


def _island_unions(face_polys: np.ndarray, face_island: np.ndarray, keep: np.ndarray,
                   n_islands: int) -> np.ndarray:
    """Union of each island's kept faces (empty polygon for islands with none)."""
    out = np.empty(n_islands, dtype=object)
    order = np.argsort(face_island, kind="stable")
    order = order[keep[order]]
    isl_sorted = face_island[order]
    cuts = np.flatnonzero(np.diff(isl_sorted)) + 1
    empty = shapely.Polygon()
    out[:] = [empty] * n_islands
    for chunk in np.split(order, cuts) if order.size else []:
        polys = face_polys[chunk]
        out[face_island[chunk[0]]] = polys[0] if polys.size == 1 else shapely.union_all(polys)
    return out


def _filled(polys: np.ndarray) -> np.ndarray:
    """The polygons with their holes filled (exterior rings only; parts of a multi-polygon united)."""
    parts, index = shapely.get_parts(polys, return_index=True)
    shells = shapely.polygons(shapely.get_exterior_ring(parts))
    out = polys.copy()
    count = np.bincount(index, minlength=polys.size)
    single = count[index] == 1
    out[index[single]] = shells[single]
    for i in np.flatnonzero(count > 1):
        out[i] = shapely.union_all(shells[index == i])
    return out


def _groups_from_contacts(polys: np.ndarray) -> Tuple[np.ndarray, int]:
    """Merge groups: components of "filled outlines at most ``TOL`` apart"."""
    n = polys.size
    if n < 2:
        return np.zeros(n, dtype=np.int64), n
    filled = _filled(polys)
    tree = shapely.STRtree(filled)
    left, right = tree.query(filled, predicate="dwithin", distance=TOL)
    root = _components(n, left, right)
    _, group = np.unique(root, return_inverse=True)
    return group.astype(np.int64), int(group.max()) + 1


def analyse(model: Model) -> Islands:
    """Islands, input polygons and merge groups of ``model`` (independent of any packer)."""
    face_island, n_islands = face_islands(model.face_sizes, model.face_idx, len(model.uvs))
    polys, signed = _face_polygons(model.uvs[model.face_idx], model.face_sizes)
    face_ok = np.abs(signed) > ZERO_AREA
    island_polys = _island_unions(polys, face_island, face_ok, n_islands)
    areas = shapely.area(island_polys)
    group, n_groups = _groups_from_contacts(island_polys)
    return Islands(face_island=face_island, n_islands=n_islands, face_ok=face_ok, island_group=group,
                   n_groups=n_groups, input_polys=island_polys, input_area=areas)


def check_layout(model: Model, uvs: Optional[np.ndarray], margin: float, *, packer: str = "?",
                 corner_uvs: Optional[np.ndarray] = None, tile: Tile = UNIT_TILE,
                 islands: Optional[Islands] = None, scale_ratio: float = 1.0,
                 island_stack: Optional[np.ndarray] = None) -> CheckResult:
    """Check a packed layout of ``model`` and measure its coverage.

    ``uvs`` is (N, 2) in the model's indexing; ``corner_uvs`` (C, 2), when
    given, takes precedence and holds one UV per face corner (for packers that
    split shared vertices).  ``islands`` may carry :func:`analyse` of the model
    to skip recomputing it.  A layout with any violation has coverage 0.

    Options a packer may have been given: ``scale_ratio``, how far island
    scales may spread (the largest over the smallest; 1: one common scale),
    and ``island_stack``, per island a stack number (-1 for none): islands
    of one stack were packed on one another (``stack_similar``) and form one
    group, like islands overlapping in the input.
    """
    isl = islands if islands is not None else analyse(model)
    if island_stack is not None:
        isl = _stacked(isl, np.asarray(island_stack))
    if corner_uvs is None:
        if uvs is None:
            raise ValueError("need uvs or corner_uvs")
        coords = np.asarray(uvs, dtype=np.float64)[model.face_idx]
    else:
        coords = np.asarray(corner_uvs, dtype=np.float64)
    violations: List[Violation] = []
    corner_ok = np.repeat(isl.face_ok, model.face_sizes)
    nan_corner = ~np.isfinite(coords).all(axis=1)
    if (nan_corner & corner_ok).any():
        face = int(np.repeat(np.arange(model.n_faces), model.face_sizes)[np.argmax(nan_corner & corner_ok)])
        isl_id = int(isl.face_island[face])
        violations.append(Violation("nan", (isl_id,), float("nan"),
                                    f"face {face} has a non-finite UV"))
        return CheckResult(packer, model.name, False, 0.0, 0.0, isl.n_area_islands, isl.n_area_groups,
                           float("nan"), float("nan"), violations)
    if nan_corner.any():  # only on ignored zero-area faces: give them a harmless position
        coords = np.where(nan_corner[:, None], 0.0, coords)
    polys, _ = _face_polygons(coords, model.face_sizes)
    out_polys = _island_unions(polys, isl.face_island, isl.face_ok, isl.n_islands)
    scale, shape_violations = _shape_violations(model, isl, coords, scale_ratio)
    violations.extend(shape_violations)

    # inside the tile
    x0, y0, x1, y1 = tile
    bounds = shapely.bounds(out_polys)
    present = ~shapely.is_empty(out_polys)
    over = np.max(np.stack([x0 - bounds[:, 0], y0 - bounds[:, 1],
                            bounds[:, 2] - x1, bounds[:, 3] - y1], axis=1), axis=1)
    outside = np.flatnonzero(present & (over > TOL))
    for i in outside[:MAX_VIOLATIONS]:
        violations.append(Violation("outside_tile", (int(i),), float(over[i]),
                                    f"sticks out of the tile by {over[i]:.3g}"))

    # groups and their distances
    group_polys = _group_unions(out_polys, isl.island_group, isl.n_groups)
    min_distance, pair_violations = _pair_violations(group_polys, margin, out_polys, isl.island_group)
    violations.extend(pair_violations)

    clipped = shapely.area(shapely.intersection(group_polys, shapely.box(*tile)))
    raw_coverage = float(clipped.sum() / ((x1 - x0) * (y1 - y0)))
    valid = not violations
    return CheckResult(packer, model.name, valid, raw_coverage if valid else 0.0, raw_coverage,
                       isl.n_area_islands, isl.n_area_groups, min_distance, scale,
                       violations[:MAX_VIOLATIONS])


def _similarity_fit(a: np.ndarray, b: np.ndarray, island: np.ndarray,
                    n: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per island, the best similarity b ~ z * a + t over complex corner arrays.

    Returns (|z|, max residual, RMS radius of b) per island; islands whose
    input corners all coincide get ``|z| = nan``.
    """
    count = np.bincount(island, minlength=n).astype(np.float64)
    safe = np.maximum(count, 1.0)
    ma = (np.bincount(island, a.real, n) + 1j * np.bincount(island, a.imag, n)) / safe
    mb = (np.bincount(island, b.real, n) + 1j * np.bincount(island, b.imag, n)) / safe
    da, db = a - ma[island], b - mb[island]
    num_c = np.conj(da) * db
    num = np.bincount(island, num_c.real, n) + 1j * np.bincount(island, num_c.imag, n)
    den = np.bincount(island, np.abs(da) ** 2, n)
    z = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    res = np.abs(db - z[island] * da)
    worst = np.zeros(n)
    np.maximum.at(worst, island, np.nan_to_num(res, nan=0.0))
    radius = np.sqrt(np.bincount(island, np.abs(db) ** 2, n) / safe)
    return np.abs(z), worst, radius


def _shape_violations(model: Model, isl: "Islands", coords: np.ndarray,
                      scale_ratio: float = 1.0) -> Tuple[float, List[Violation]]:
    """Common scale and the islands that are deformed or scaled apart from the rest
    (beyond ``scale_ratio`` between the largest and smallest scale).

    Fits a similarity per island from input to output corners, with and
    without a mirror, and keeps the better one.  Islands of zero area (only
    degenerate faces) cover nothing and are exempt.
    """
    corner_island = np.repeat(isl.face_island, model.face_sizes)
    a_xy = model.uvs[model.face_idx]
    a = a_xy[:, 0] + 1j * a_xy[:, 1]
    b = coords[:, 0] + 1j * coords[:, 1]
    n = isl.n_islands
    scale_d, res_d, radius = _similarity_fit(a, b, corner_island, n)
    scale_m, res_m, _ = _similarity_fit(np.conj(a), b, corner_island, n)
    mirrored = res_m < res_d
    fitted = np.where(mirrored, scale_m, scale_d)
    residual = np.where(isl.input_area > 0, np.where(mirrored, res_m, res_d), 0.0)
    violations: List[Violation] = []
    for i in np.flatnonzero(residual > RIGID_TOL)[:MAX_VIOLATIONS]:
        violations.append(Violation("deformed", (int(i),), float(residual[i]),
                                    f"corners are up to {residual[i]:.3g} off any similar copy of the input"))
    measured = (np.isfinite(fitted) & (radius > SCALE_MIN_RADIUS) & (residual <= RIGID_TOL)
                & (isl.input_area > 0))
    if not measured.any():
        return float(np.nanmedian(fitted)) if np.isfinite(fitted).any() else float("nan"), violations
    common = float(np.median(fitted[measured]))
    dev = np.abs(fitted / common - 1.0)
    if scale_ratio > 1:   # spread from the smallest scale
        common = float(fitted[measured].min())
        dev = np.maximum(fitted / common - scale_ratio, 0.0) / scale_ratio
    for i in np.flatnonzero(measured & (dev > SCALE_REL))[:MAX_VIOLATIONS]:
        violations.append(Violation("scale", (int(i),), float(fitted[i] / common),
                                    f"scaled {fitted[i] / common:.4f} x the common scale"))
    return common, violations


def _stacked(isl: Islands, island_stack: np.ndarray) -> Islands:
    """``isl`` with the merge groups of each stack joined into one."""
    stacked = np.flatnonzero(island_stack >= 0)
    order = stacked[np.argsort(island_stack[stacked], kind="stable")]
    same = island_stack[order[1:]] == island_stack[order[:-1]]
    a = isl.island_group[order[:-1][same]]
    b = isl.island_group[order[1:][same]]
    root = _components(isl.n_groups, a, b)
    _, group = np.unique(root, return_inverse=True)
    group = group.reshape(-1)[isl.island_group]
    return dataclasses.replace(isl, island_group=group, n_groups=int(group.max()) + 1)


def _group_unions(out_polys: np.ndarray, island_group: np.ndarray, n_groups: int) -> np.ndarray:
    """Output polygon of every merge group (a single island's polygon is used as is)."""
    counts = np.bincount(island_group, minlength=n_groups)
    groups = np.empty(n_groups, dtype=object)
    single = counts[island_group] == 1
    groups[island_group[single]] = out_polys[single]
    for g in np.flatnonzero(counts > 1):
        groups[g] = shapely.union_all(out_polys[island_group == g])
    return groups


def _culprits(a: int, b: int, out_polys: np.ndarray, island_group: np.ndarray) -> Tuple[int, int]:
    """The closest pair of islands between groups ``a`` and ``b``."""
    ia = np.flatnonzero(island_group == a)
    ib = np.flatnonzero(island_group == b)
    if ia.size == 1 and ib.size == 1:
        return int(ia[0]), int(ib[0])
    ga, gb = np.meshgrid(ia, ib, indexing="ij")
    d = shapely.distance(out_polys[ga.ravel()], out_polys[gb.ravel()])
    k = int(np.argmin(d))
    return int(ga.ravel()[k]), int(gb.ravel()[k])


def _pair_violations(groups: np.ndarray, margin: float, out_polys: np.ndarray,
                     island_group: np.ndarray) -> Tuple[float, List[Violation]]:
    """Smallest distance between two groups, and the pairs that break the margin.

    The smallest distance comes from a nearest-neighbour ``STRtree`` query
    (``inf`` with fewer than two non-empty groups); violations are looked for
    among the pairs the tree reports within ``max(margin, TOL)``.
    """
    present = np.flatnonzero(~shapely.is_empty(groups))
    if present.size < 2:
        return float("inf"), []
    tree = shapely.STRtree(groups)
    _, dists = tree.query_nearest(groups[present], exclusive=True, return_distance=True)
    min_distance = float(dists.min()) if dists.size else float("inf")
    left, right = tree.query(groups, predicate="dwithin", distance=max(margin, TOL))
    sel = left < right
    left, right = left[sel], right[sel]
    if left.size == 0:
        return min_distance, []
    dist = shapely.distance(groups[left], groups[right])
    violations: List[Violation] = []
    if margin > TOL:
        bad = np.flatnonzero(dist < margin - TOL)
        for k in bad[np.argsort(dist[bad], kind="stable")][:MAX_VIOLATIONS]:
            pair = _culprits(int(left[k]), int(right[k]), out_polys, island_group)
            kind = "overlap" if dist[k] == 0.0 else "too_close"
            violations.append(Violation(kind, pair, float(dist[k]),
                                        f"distance {dist[k]:.3g} < margin {margin:.3g}"))
        return min_distance, violations
    touching = np.flatnonzero(dist == 0.0)
    if touching.size:
        inter = shapely.intersection(groups[left[touching]], groups[right[touching]])
        thick = ~shapely.is_empty(shapely.buffer(inter, -TOL / 2))
        for k in touching[thick][:MAX_VIOLATIONS]:
            pair = _culprits(int(left[k]), int(right[k]), out_polys, island_group)
            area = float(shapely.area(shapely.intersection(groups[left[k]], groups[right[k]])))
            violations.append(Violation("overlap", pair, area, f"overlap area {area:.3g}"))
    return min_distance, violations


def check_outcome(model: Model, outcome: PackOutcome, margin: float,
                  islands: Optional[Islands] = None, tile: Tile = UNIT_TILE) -> CheckResult:
    """:func:`check_layout` of a packer's outcome; a failed run counts as invalid with coverage 0."""
    if not outcome.ok:
        isl = islands if islands is not None else analyse(model)
        return CheckResult(outcome.packer, model.name, False, 0.0, 0.0, isl.n_area_islands, isl.n_area_groups,
                           float("nan"), float("nan"),
                           [Violation(outcome.status, (), float("nan"), outcome.message or outcome.status)])
    return check_layout(model, outcome.uvs, margin, packer=outcome.packer,
                        corner_uvs=outcome.corner_uvs, tile=tile, islands=islands)


def describe_all(results: Sequence[CheckResult]) -> List[str]:
    """The first violation of every invalid result, one line each."""
    return [r.first_violation for r in results if not r.valid]
