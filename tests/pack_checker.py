"""An independent shapely check of ``uvnest.pack`` / ``uvnest.Packer`` results.

Nothing here uses the engine's geometry: islands are recomputed from the
faces (faces sharing a UV index form one island, uvnest's rule), each island
is the shapely union of its output faces (``make_valid`` on bad faces), and
every rule is measured on those polygons.

Tolerance: ``addon/packing.py`` documents that every layout passed an exact
check "within a tolerance of 2**-26 of the target's size"; ``csrc/validate.c``
is that check ("two grid steps", the grid fitted over the target and the
placed outlines, ``csrc/internal.h``: "2^-26 of the layout's extent").  So a
distance may fall short of the margin, and an island may overhang the target,
by at most ``DOC_TOL_REL`` times the larger side of the bounding box of the
target and the islands.  Nothing looser is used.

The face polygons and the vectorised components come from the benchmark's
checker (``tests/bench/checker.py``), whose own tolerance (1e-6) is far too
loose for the engine's documented guarantee, hence this second front end.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import List, Optional, Sequence, Tuple

import numpy as np
import shapely

from tests.bench.checker import _components, _face_polygons

#: Documented tolerance of the engine's exact final check, relative to the
#: layout's extent (packing.py docstring, validate.c, internal.h).
DOC_TOL_REL = 2.0 ** -26
#: How far an island may overhang its tile with ``scale='fixed'`` (packing.py).
FIXED_OVERHANG = 2.0 ** -20
#: Transforms must reproduce the output UVs this closely (tile units).
TRANSFORM_TOL = 1e-9
#: Coverage must match the shapely measure this closely.
COVERAGE_TOL = 1e-6
#: A face whose area is at most this times its bounding box's squared
#: diagonal (narrower than about this share of its size) counts as the path
#: through its corners.
FLAT_WIDTH = 1e-10


def faces_csr(faces) -> Tuple[np.ndarray, np.ndarray]:
    """``(face_sizes, face_idx)`` of a face list or an ``(F, k)`` array."""
    rows = [np.asarray(f, dtype=np.int64).reshape(-1) for f in faces]
    sizes = np.array([r.size for r in rows], dtype=np.int64)
    idx = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    return sizes, idx


def face_components(faces, n_uvs: int) -> Tuple[np.ndarray, int]:
    """Per face its island, faces sharing any UV index joined, islands
    numbered in order of their first face (as ``uvnest.find_islands``)."""
    sizes, idx = faces_csr(faces)
    corner_face = np.repeat(np.arange(sizes.size), sizes)
    # nodes: faces then UV indices; an edge from every corner's face to its UV
    root = _components(sizes.size + n_uvs, corner_face, sizes.size + idx)[:sizes.size]
    _, first, inv = np.unique(root, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    return rank[inv.reshape(-1)], int(first.size)


def signed_face_areas(uvs: np.ndarray, faces) -> np.ndarray:
    """Shoelace area of every face (counter-clockwise positive)."""
    sizes, idx = faces_csr(faces)
    _, signed = _face_polygons(np.asarray(uvs, dtype=np.float64)[idx], sizes)
    return signed


def island_geometries(uvs: np.ndarray, faces, face_island: np.ndarray, n: int) -> np.ndarray:
    """Per island the union of its faces: faces of non-zero area as
    polygons, every other face as the segments (or the point) its edges
    are, so that slivers, needles and collapsed islands count where they
    are."""
    sizes, idx = faces_csr(faces)
    uvs = np.asarray(uvs, dtype=np.float64)
    polys, signed = _face_polygons(uvs[idx], sizes)
    # flat: narrower than FLAT_WIDTH of its own size (a sliver within that
    # of the path through its corners; GEOS unions of such slivers drop
    # polygons), or nothing left once repaired (make_valid of a near-flat
    # face can give an empty or a lower-dimensional shape)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    lo = np.minimum.reduceat(uvs[idx], starts, axis=0) if idx.size else np.zeros((0, 2))
    hi = np.maximum.reduceat(uvs[idx], starts, axis=0) if idx.size else np.zeros((0, 2))
    diag = np.hypot(*(hi - lo).T)
    flat = np.flatnonzero(~(np.abs(signed) > FLAT_WIDTH * diag ** 2)
                          | shapely.is_empty(polys) | ~(shapely.area(polys) > 0))
    if flat.size:
        # each flat face as the closed path through its corners
        start = np.concatenate(([0], np.cumsum(sizes)))
        rows = [np.append(idx[start[f]:start[f + 1]], idx[start[f]]) for f in flat]
        paths = shapely.linestrings(uvs[np.concatenate(rows)],
                                    indices=np.repeat(np.arange(flat.size), sizes[flat] + 1))
        # a face whose corners all coincide is the point it is (shapely
        # unites zero-length lines into an empty line)
        point = shapely.is_empty(paths) | ~(shapely.length(paths) > 0)
        paths[point] = shapely.points(uvs[idx[start[flat[point]]]])
        polys[flat] = paths
    # the faces with area united; the flat ones kept beside them in a
    # collection (GEOS's union of lines along polygon edges can drop a
    # polygon: a quad strip with a flat face on its edge lost half its area)
    is_flat = np.zeros(len(polys), dtype=bool)
    is_flat[flat] = True
    order = np.argsort(face_island, kind="stable")
    cuts = np.searchsorted(face_island[order], np.arange(n + 1))
    out = np.empty(n, dtype=object)
    for i in range(n):
        mine = order[cuts[i]:cuts[i + 1]]
        solid, thin = polys[mine[~is_flat[mine]]], polys[mine[is_flat[mine]]]
        body = solid[0] if solid.size == 1 else shapely.union_all(solid) if solid.size else shapely.Polygon()
        out[i] = body if not thin.size else shapely.geometrycollections([body, *thin])
    return out


def polygonal(geom):
    """The part of an island geometry with area (see island_geometries)."""
    return geom.geoms[0] if geom.geom_type == "GeometryCollection" else geom


def check_tolerance(target: Sequence[float], geoms: np.ndarray) -> float:
    """The documented tolerance for a layout: 2**-26 of its extent."""
    lo = np.array(target[:2], dtype=np.float64)
    hi = np.array(target[2:], dtype=np.float64)
    if len(geoms):
        b = shapely.bounds(geoms)
        lo = np.minimum(lo, np.nanmin(b[:, :2], axis=0))
        hi = np.maximum(hi, np.nanmax(b[:, 2:], axis=0))
    return DOC_TOL_REL * float((hi - lo).max())


def transform_points(t, p: np.ndarray) -> np.ndarray:
    """``t.scale * R(t.rotation) * F * p + t.translation`` (own implementation)."""
    x = -p[:, 0] if t.flipped else p[:, 0]
    y = p[:, 1]
    c, s = math.cos(t.rotation), math.sin(t.rotation)
    return np.column_stack([t.scale * (c * x - s * y) + t.translation[0],
                            t.scale * (s * x + c * y) + t.translation[1]])


def angle_off_grid(angle: float, step: float) -> float:
    """Distance of ``angle`` from the nearest multiple of ``step`` (radians)."""
    k = round(angle / step)
    return abs(angle - k * step)


@dataclass
class Report:
    """Outcome of :func:`check_pack`."""

    problems: List[str]
    geoms: np.ndarray
    tol: float
    min_distance: float
    coverage: float
    face_island: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def ok(self) -> bool:
        return not self.problems

    def describe(self, limit: int = 8) -> str:
        return "; ".join(self.problems[:limit]) + (f" (+{len(self.problems) - limit} more)"
                                                    if len(self.problems) > limit else "")


def check_pack(result, uvs_in: np.ndarray, faces, *, margin: float,
               target: Sequence[float] = (0.0, 0.0, 1.0, 1.0), padding: float = 0.0,
               locked: Sequence[int] = (), flip: Optional[bool] = None, rotation: Optional[str] = None,
               separated: bool = True, seed: Optional[int] = None, fit: bool = True,
               stacks: Sequence[Sequence[int]] = (), tiles: bool = False) -> Report:
    """Check a :class:`uvnest.PackResult` against the input it came from.

    ``locked``: island indices (of ``result.islands``) that must not move.
    ``flip=False``: no island may be mirrored.  ``rotation``: ``'none'`` or
    ``'90'`` restrict the angles ('any' is checked by the caller, as its
    angles are relative to each island's own base orientation).
    ``separated``: the input islands neither overlap nor touch, so the
    packer's islands must be exactly the face components.  ``stacks``:
    groups of islands stacked on one another (``stack_similar``): no margin
    between them.
    ``tiles`` (``scale='fixed'``): each island is checked in its own UDIM
    tile (``result.tile_of_island``), ``target`` being the part of every
    tile to use, against the islands of that tile only; islands may
    overhang their tile by ``FIXED_OVERHANG`` (packing.py).
    """
    problems: List[str] = []
    uvs_in = np.asarray(uvs_in, dtype=np.float64)
    out = np.asarray(result.uvs)
    sizes, idx = faces_csr(faces)
    n_faces = sizes.size
    if out.shape != uvs_in.shape or out.dtype != np.float64:
        problems.append(f"uvs have shape {out.shape} / {out.dtype}, input {uvs_in.shape}")
        return Report(problems, np.empty(0, dtype=object), 0.0, float("nan"), float("nan"))
    if not np.isfinite(out[idx]).all():
        problems.append("output uvs are not finite")
        return Report(problems, np.empty(0, dtype=object), 0.0, float("nan"), float("nan"))

    # ---- islands and the face -> island map
    comp, n_comp = face_components(faces, len(uvs_in))
    islands = result.islands
    n = len(islands)
    iof = np.asarray(result.island_of_face)
    if iof.shape != (n_faces,):
        problems.append(f"island_of_face has shape {iof.shape}, expected ({n_faces},)")
    else:
        seen = np.zeros(n_faces, dtype=np.int64)
        for i, isl in enumerate(islands):
            if isl.index != i:
                problems.append(f"island {i} has index {isl.index}")
            seen[isl.faces] += 1
            if not (iof[isl.faces] == i).all():
                problems.append(f"island_of_face disagrees with islands[{i}].faces")
            want = np.unique(idx[np.repeat(np.isin(np.arange(n_faces), isl.faces), sizes)])
            if not np.array_equal(np.asarray(isl.uv_indices), want):
                problems.append(f"islands[{i}].uv_indices are not the UVs of its faces")
        if not (seen == 1).all():
            problems.append("faces are not in exactly one island")
        # every packer island is a union of whole components; with separated
        # input, exactly the components (same numbering, by first face)
        for c in range(n_comp):
            if np.unique(iof[comp == c]).size != 1:
                problems.append(f"component {c} is split between islands")
        if separated and not np.array_equal(iof, comp):
            problems.append(f"islands differ from the face components ({n} vs {n_comp})")
    if problems:
        return Report(problems, np.empty(0, dtype=object), 0.0, float("nan"), float("nan"))

    # ---- transforms reproduce the output, input untouched elsewhere
    trs = result.transforms
    if len(trs) != n:
        problems.append(f"{len(trs)} transforms for {n} islands")
        return Report(problems, np.empty(0, dtype=object), 0.0, float("nan"), float("nan"))
    used = np.zeros(len(uvs_in), dtype=bool)
    locked_set = {int(i) for i in locked}
    for i, (isl, t) in enumerate(zip(islands, trs)):
        ui = np.asarray(isl.uv_indices)
        used[ui] = True
        if not all(math.isfinite(v) for v in (t.rotation, t.scale, *t.translation)):
            problems.append(f"island {i}: non-finite transform {t}")
            continue
        if i in locked_set:
            if out[ui].tobytes() != uvs_in[ui].tobytes():
                problems.append(f"locked island {i} moved")
            if (t.rotation, t.flipped, tuple(t.translation), t.scale) != (0.0, False, (0.0, 0.0), 1.0):
                problems.append(f"locked island {i} has transform {t}")
            continue
        want = transform_points(t, uvs_in[ui])
        err = float(np.abs(want - out[ui]).max()) if ui.size else 0.0
        if not err <= TRANSFORM_TOL * max(1.0, float(np.abs(want).max())):
            problems.append(f"island {i}: transform {t} misses the output by {err:.3g}")
        if flip is False and t.flipped:
            problems.append(f"island {i} flipped although flip=False")
        if rotation == "none" and angle_off_grid(t.rotation, 2 * math.pi) > 1e-9:
            problems.append(f"island {i} rotated by {t.rotation} with rotation='none'")
        if rotation == "90" and angle_off_grid(t.rotation, math.pi / 2) > 1e-9:
            problems.append(f"island {i} rotated by {t.rotation} with rotation='90'")
        if not t.scale > 0:
            problems.append(f"island {i}: scale {t.scale}")
        if fit and t.scale != result.scale:
            problems.append(f"island {i}: scale {t.scale} differs from the common scale {result.scale}")
    if not np.array_equal(out[~used], uvs_in[~used], equal_nan=True):
        problems.append("UVs of no face changed")

    # ---- orientation: a flip turns every face, a rotation none.  The
    # shoelace sum of a face at coordinates c loses about eps * c**2 to
    # rounding (slivers far from the origin): that much is allowed.
    a_in = signed_face_areas(uvs_in, faces)
    a_out = signed_face_areas(out, faces)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    c_in = np.maximum.reduceat(np.abs(uvs_in[idx]).max(axis=1), starts) if n_faces else np.zeros(0)
    c_out = np.maximum.reduceat(np.abs(out[idx]).max(axis=1), starts) if n_faces else np.zeros(0)
    round_off = 64 * np.finfo(np.float64).eps * sizes
    for i, (isl, t) in enumerate(zip(islands, trs)):
        f = np.asarray(isl.faces)
        slack = round_off[f] * (c_out[f] ** 2 + t.scale ** 2 * c_in[f] ** 2)
        want = (-1.0 if t.flipped else 1.0) * t.scale ** 2 * a_in[f]
        big = np.abs(want) > 4 * slack
        if not (np.abs(a_out[f] - want)[big] <= 1e-6 * np.abs(want[big]) + slack[big]).all():
            problems.append(f"island {i}: face areas/orientation not those of the transform (flipped={t.flipped})")

    # ---- geometry
    tile = np.zeros(n, dtype=np.int64)
    if tiles:
        # every island moved back into tile 1001 by its UDIM origin
        tile = np.asarray(result.tile_of_island, dtype=np.int64)
        shift = np.zeros_like(out)
        for i, isl in enumerate(islands):
            shift[np.asarray(isl.uv_indices)] = ((tile[i] - 1001) % 10, (tile[i] - 1001) // 10)
        out = out - shift
        d = FIXED_OVERHANG
        target = (target[0] - d, target[1] - d, target[2] + d, target[3] + d)
    geoms = island_geometries(out, faces, iof, n)
    tol = check_tolerance(target, geoms)
    x0, y0, x1, y1 = (float(v) for v in target)
    room = (x0 + padding - tol, y0 + padding - tol, x1 - padding + tol, y1 - padding + tol)
    bounds = shapely.bounds(geoms)
    for i in range(n):
        if i in locked_set:
            continue
        b = bounds[i]
        if b[0] < room[0] or b[1] < room[1] or b[2] > room[2] or b[3] > room[3]:
            over = max(room[0] - b[0], room[1] - b[1], b[2] - room[2], b[3] - room[3]) + tol
            problems.append(f"island {i} leaves the target (less padding {padding}) by {over:.3g} "
                            f"(tolerance {tol:.3g})")
    min_d = math.inf
    if n >= 2:
        tree = shapely.STRtree(geoms)
        reach = max(margin, tol)
        left, right = tree.query(geoms, predicate="dwithin", distance=reach)
        sel = (left < right) & (tile[left] == tile[right])
        left, right = left[sel], right[sel]
        both_locked = np.isin(left, list(locked_set)) & np.isin(right, list(locked_set))
        stack_of = np.arange(n)
        for k, members in enumerate(stacks):
            stack_of[list(members)] = n + k
        stacked = stack_of[left] == stack_of[right]
        left, right = left[~both_locked & ~stacked], right[~both_locked & ~stacked]
        if left.size:
            d = shapely.distance(geoms[left], geoms[right])
            min_d = float(d.min())
            for a, b, dist in zip(left, right, d):
                if margin > tol:
                    if dist < margin - tol:
                        problems.append(f"islands {a} and {b} are {dist:.6g} apart, margin {margin:.6g} "
                                        f"(tolerance {tol:.3g})")
                elif dist == 0.0:
                    # one reaches more than tol into the other (a needle
                    # into an interior too, where the overlap has no area)
                    if (shapely.intersects(geoms[a], shapely.buffer(geoms[b], -tol))
                            or shapely.intersects(geoms[b], shapely.buffer(geoms[a], -tol))):
                        inter = shapely.intersection(geoms[a], geoms[b])
                        problems.append(f"islands {a} and {b} overlap (area {shapely.area(inter):.3g})")

    # ---- coverage: union of the output inside the target
    inside = shapely.intersection(shapely.union_all([polygonal(g) for g in geoms]), shapely.box(x0, y0, x1, y1))
    coverage = float(shapely.area(inside)) / ((x1 - x0) * (y1 - y0))
    if fit and not abs(coverage - result.coverage) <= COVERAGE_TOL:
        problems.append(f"coverage {result.coverage!r} but shapely measures {coverage!r}")
    if not (math.isfinite(result.scale) and result.scale > 0):
        problems.append(f"scale {result.scale}")
    if not (isinstance(result.iterations, int) and result.iterations >= 0):
        problems.append(f"iterations {result.iterations!r}")
    if not (isinstance(result.elapsed, float) and 0 <= result.elapsed < 3600):
        problems.append(f"elapsed {result.elapsed!r}")
    if seed is not None and result.seed != seed:
        problems.append(f"seed {result.seed!r}, asked {seed}")
    return Report(problems, geoms, tol, min_d, coverage, iof)


def in_pixels(result, size: Tuple[int, int]):
    """A result of ``texture_size=size`` seen in pixel coordinates, for
    :func:`check_pack`: UVs times (W, H), translations (texel space, the
    larger side 1) times max(W, H).  There the transforms are similarities
    if the islands are rigid in texels."""
    side = max(size)
    moved = [dataclasses.replace(t, translation=(t.translation[0] * side, t.translation[1] * side))
             for t in result.transforms]
    return SimpleNamespace(**{**result.__dict__, "uvs": np.asarray(result.uvs) * np.array(size), "transforms": moved})


def assert_valid(result, uvs_in, faces, **kw) -> Report:
    """:func:`check_pack`, failing with every problem found."""
    rep = check_pack(result, uvs_in, faces, **kw)
    assert rep.ok, rep.describe()
    return rep


def assert_box_layouts_kept(uvs, faces, moves: int, margin: float, rotation: str, **options) -> None:
    """The packer's first layout (a fill) packs these islands worse than
    shape box; after ``moves`` moves (which try the engine's box layouts)
    its best is at least shape box's layout, none was rejected, and it is
    valid by this checker."""
    import uvnest

    opts = dict(margin=margin, rotation=rotation, **options)
    box = uvnest.pack(uvs, faces, shape="box", iterations=0, time_limit=None, **opts)
    packer = uvnest.Packer(uvs, faces, **opts)
    first = packer.best.coverage
    assert first < box.coverage - 0.02, "the fill packs the islands as well as boxes: the test shows nothing"
    packer.step(seconds=None, iterations=moves)
    assert packer.best.coverage >= box.coverage - 1e-12, (first, box.coverage, packer.best.coverage)
    assert packer.stats["rejected"] == 0
    assert_valid(packer.best, uvs, faces, margin=margin, rotation=rotation)
