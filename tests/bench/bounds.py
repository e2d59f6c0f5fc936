"""Upper bounds on coverage that no packer with one common scale can beat.

All islands share one scale s and coverage is s^2 times the islands' total
area, so a bound on s is a bound on coverage.  Two bounds on s:

* **The largest island alone.**  Each island must fit in the unit tile, so s
  is at most 1 / (the side of the island's smallest bounding square over the
  allowed rotations).  With free rotation the side is searched on a grid of
  angles and lowered by what the grid can miss (a bounding box's width changes
  by at most 2 r per radian for points within r of the centre).
* **Two islands together** (each pair of the three largest).  Both must fit,
  at least the margin apart.  Each island is replaced by convex pieces inside
  it (:func:`convex_pieces`), and the pair is relaxed at fixed angles
  (:func:`pair_inverse_scale`): the pieces of one island move as one rigid
  body, every piece of one island keeps its distance from every piece of the
  other, both stay in the tile.  That relaxation is solved exactly for the
  scale.  A branch and bound over the two angles (:func:`pair_scale_bound`)
  bounds it over all angles: on a box of angles each piece is replaced by
  the part of it that every copy turned within the box contains
  (:func:`turning_core`), so the box's value bounds every angle in it.  The
  bound is the largest value of any box left open, so it stays a bound when
  the time runs out - it is then only less tight.  The margin counts as the
  square inscribed in its disc, and the checker's tolerance is allowed for.

Where a packer reaches a bound, nothing can beat it by more than the bound's
margin over the other packer - which is how docs/performance.md explains
the homedecor ratios near 1.01.

    python -m tests.bench.bounds bench-results/results.json

prints per homedecor model both bounds, uvnest's 10 s coverage and Blender
CONCAVE's, and the median of bound / Blender: no packer can reach a median
coverage ratio above it on that run.
"""
from __future__ import annotations

import argparse
import heapq
import itertools
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..geometry_oracle import signed_area

#: Angle grid of the free-rotation search for the largest island (degrees).
STEP_DEG = 0.05
#: Seconds of branch and bound per pair of islands.
PAIR_SECONDS = 30.0
#: The pair bound is tried on the pairs among this many largest islands.
PAIR_ISLANDS = 3
#: Relative tolerance of the benchmark's checker on distances and the tile
#: border (``checker.TOL``, in tile units); the pair bound allows for it.
CHECKER_TOL = 1e-6

Polygon2 = np.ndarray  # (n, 2) float64, a convex polygon, counter-clockwise


def smallest_square_side(rings: Sequence[np.ndarray], rotate: bool = True) -> float:
    """A lower bound on the side of the smallest square around ``rings``,
    over all rotations (or unrotated when ``rotate`` is False)."""
    pts = np.vstack([np.asarray(r, dtype=np.float64) for r in rings])
    pts = pts - pts.mean(axis=0)
    if not rotate:
        return float((pts.max(axis=0) - pts.min(axis=0)).max())
    step = np.radians(STEP_DEG)
    ang = np.arange(0.0, np.pi / 2, step)
    c, s = np.cos(ang)[:, None], np.sin(ang)[:, None]
    u = c * pts[None, :, 0] - s * pts[None, :, 1]
    v = s * pts[None, :, 0] + c * pts[None, :, 1]
    side = np.maximum(u.max(axis=1) - u.min(axis=1), v.max(axis=1) - v.min(axis=1)).min()
    # the true minimum lies within step / 2 of a grid angle, where the side
    # is at most r * step smaller (r: the largest distance from the centre)
    r = float(np.hypot(pts[:, 0], pts[:, 1]).max())
    return max(float(side) - r * step, 0.0)


def coverage_bound(outlines: Sequence[Sequence[np.ndarray]], areas: Sequence[float], rotate: bool = True) -> float:
    """Largest coverage any packer can reach with one common scale: the
    islands' total area over the square of the largest smallest-square side."""
    sides = [smallest_square_side(rings, rotate) for rings in outlines if len(rings)]
    largest = max(sides, default=0.0)
    if largest <= 0:
        return 1.0
    return min(1.0, float(sum(areas)) / largest ** 2)


# ------------------------------------------------------------ convex pieces

def counter_clockwise(ring: np.ndarray) -> Polygon2:
    """``ring`` as float64, reversed if it runs clockwise."""
    ring = np.asarray(ring, dtype=np.float64)
    return ring if signed_area(ring) > 0 else ring[::-1].copy()


def connected_interior(rings: Sequence[np.ndarray]) -> bool:
    """Whether the island is one valid polygon (so its interior is connected)."""
    import shapely

    outer = [r for r in rings if signed_area(r) > 0]
    if len(outer) != 1:
        return False
    return bool(shapely.is_valid(shapely.Polygon(outer[0], [r for r in rings if signed_area(r) < 0])))


def convex_pieces(rings: Sequence[np.ndarray], other_area: float, other_connected: bool,
                  keep_fraction: float = 0.995, max_pieces: int = 16) -> List[Polygon2]:
    """Convex polygons inside the island (with the holes the other island cannot use filled).

    A hole whose area is below ``other_area`` is filled when the other
    island's interior is connected: the other island cannot lie inside the
    hole, so reaching into it means crossing its rim, which is this island.
    The rest is triangulated and neighbouring pieces are merged while their
    union stays convex (Hertel and Mehlhorn); the largest pieces are kept,
    up to ``keep_fraction`` of the area or ``max_pieces``.  Any subset of
    the island serves the bound; more of it makes the bound tighter, and an
    island of several outer rings is represented by its largest.  An island
    without area has no pieces.
    """
    import shapely

    area = [signed_area(r) for r in rings]
    outer = [k for k, a in enumerate(area) if a > 0]
    if not outer:
        return []
    shell = shapely.Polygon(rings[max(outer, key=area.__getitem__)])
    holes = [r for r, a in zip(rings, area) if a < 0 and not (other_connected and -a < other_area)
             and shell.contains(shapely.Polygon(r).representative_point())]
    poly = shapely.Polygon(shell.exterior.coords, holes)
    hull = poly.convex_hull
    if poly.area >= hull.area * (1 - 1e-12):
        return [counter_clockwise(np.asarray(hull.exterior.coords)[:-1])]
    pieces = [t for t in shapely.constrained_delaunay_triangles(poly).geoms if t.area > 0]
    merged = True
    while merged:
        merged = False
        pieces.sort(key=lambda p: -p.area)
        for i, j in itertools.combinations(range(len(pieces)), 2):
            if pieces[i].intersection(pieces[j]).length <= 0:
                continue  # not neighbours along an edge
            union = pieces[i].union(pieces[j])
            if union.geom_type == "Polygon" and union.convex_hull.area <= union.area * (1 + 1e-12):
                pieces[i] = union.convex_hull
                del pieces[j]
                merged = True
                break
    pieces.sort(key=lambda p: -p.area)
    kept: List[Polygon2] = []
    covered = 0.0
    for p in pieces:
        if covered >= keep_fraction * poly.area or len(kept) >= max_pieces:
            break
        kept.append(counter_clockwise(np.asarray(p.exterior.coords)[:-1]))
        covered += p.area
    return kept


# ------------------------------------------------- a pair at fixed angles

def turned(p: Polygon2, angle: float) -> Polygon2:
    """``p`` turned counter-clockwise by ``angle`` radians about the origin."""
    c, s = math.cos(angle), math.sin(angle)
    return p @ np.array([[c, s], [-s, c]])


def clip_convex(poly: Polygon2, cutter: Polygon2) -> Polygon2:
    """Convex ``poly`` clipped to convex ``cutter`` (both counter-clockwise;
    empty when they do not overlap)."""
    edges = np.roll(cutter, -1, axis=0) - cutter
    for start, edge in zip(cutter, edges):
        if not edge.any():
            continue
        side = (poly - start) @ np.array([edge[1], -edge[0]])  # > 0: outside
        out = []
        for k in range(len(poly)):
            a, b, da, db = poly[k], poly[(k + 1) % len(poly)], side[k], side[(k + 1) % len(poly)]
            if da <= 0:
                out.append(a)
            if (da <= 0) != (db <= 0):
                out.append(a + da / (da - db) * (b - a))
        if len(out) < 3:
            return np.zeros((0, 2))
        poly = np.array(out)
    return poly


def turning_core(p: Polygon2, half: float) -> Polygon2:
    """Points of convex ``p`` that stay inside it while it turns about the
    origin by any angle up to ``half`` either way (a subset of every such copy).

    A point x stays inside when its arc of radius |x| does; the arc lies in
    the triangle of its ends and the meeting point of their tangents, x / cos
    half, so x qualifies when those three points lie in ``p``: x in ``p``
    turned by -half, by +half, and ``p`` scaled by cos half.
    """
    if half <= 0:
        return p
    return clip_convex(clip_convex(math.cos(half) * p, turned(p, half)), turned(p, -half))


def box_norm_minimum(a: np.ndarray, b: np.ndarray, centre: np.ndarray, half: np.ndarray) -> float:
    """The least ``max_i(|x_i - centre_i| + half_i)`` over the segments a -> b.

    On a segment it is convex and piecewise linear in the parameter, so the
    least value is at an end, where a coordinate crosses the centre, or
    where the two terms are equal."""
    d0, d = a - centre, b - a
    cands = [np.zeros(len(a)), np.ones(len(a))]
    with np.errstate(divide="ignore", invalid="ignore"):
        cands += [-d0[:, 0] / d[:, 0], -d0[:, 1] / d[:, 1]]
        for sx, sy in itertools.product((1, -1), repeat=2):
            cands.append((sy * d0[:, 1] + half[1] - sx * d0[:, 0] - half[0]) / (sx * d[:, 0] - sy * d[:, 1]))
    t = np.clip(np.nan_to_num(np.vstack(cands), nan=0.0, posinf=0.0, neginf=0.0), 0.0, 1.0)
    x = np.abs(d0[None, :, 0] + t * d[None, :, 0]) + half[0]
    y = np.abs(d0[None, :, 1] + t * d[None, :, 1]) + half[1]
    return float(np.maximum(x, y).min())


def _edge_table(pieces: Sequence[Polygon2], width: int) -> Tuple[np.ndarray, np.ndarray]:
    """Per convex piece: its lowest (then leftmost) vertex and its edges from
    there, counter-clockwise, padded with zero edges to ``width``."""
    starts, edges = np.zeros((len(pieces), 2)), np.zeros((len(pieces), width, 2))
    for k, p in enumerate(pieces):
        first = int(np.lexsort((p[:, 0], p[:, 1]))[0])
        p = np.roll(p, -first, axis=0)
        starts[k] = p[0]
        edges[k, :len(p)] = np.roll(p, -1, axis=0) - p
    return starts, edges


def minkowski_sums(first: Sequence[Polygon2], second: Sequence[Polygon2]) -> np.ndarray:
    """The Minkowski sums (as vertex rings) of each piece of ``first`` but its
    last with each piece of ``second`` and with ``first``'s last (a shared
    summand): convex sums by merging the edges by angle, all pairs at once."""
    width = max(len(p) for p in (*first, *second))
    a_start, a_edge = _edge_table(first[:-1], width)
    b_start, b_edge = _edge_table(second, width)
    c_start, c_edge = _edge_table(first[-1:], width)
    na, nb = len(a_start), len(b_start)
    edges = np.concatenate([np.repeat(a_edge, nb, axis=0), np.tile(b_edge, (na, 1, 1)),
                            np.repeat(c_edge, na * nb, axis=0)], axis=1)
    # angles in [0, 2 pi) from the lowest vertex; zero edges go last (angle 2 pi)
    angle = np.mod(np.arctan2(edges[..., 1], edges[..., 0]), 2 * np.pi)
    angle[(edges == 0).all(axis=2)] = 2 * np.pi
    order = np.argsort(angle, axis=1, kind="stable")
    edges = np.take_along_axis(edges, order[..., None], axis=1)
    start = np.repeat(a_start, nb, axis=0) + np.tile(b_start, (na, 1)) + c_start[0]
    return start[:, None, :] + np.concatenate([np.zeros((na * nb, 1, 2)), np.cumsum(edges[:, :-1], axis=1)], axis=1)


def pair_inverse_scale(ps: Sequence[Polygon2], qs: Sequence[Polygon2], inflate: float) -> float:
    """The least 1 / s at which the rigid bodies ``ps`` and ``qs`` (convex
    pieces at fixed angles) fit in the unit tile with no piece of one
    overlapping a piece of the other, each no-fit polygon grown by a square of
    half-side ``inflate`` (the margin, in units of the scale).

    Divided by s, the offset d of ``qs`` from ``ps`` ranges over a box that
    grows with u = 1 / s about a fixed centre, and must avoid the union U of
    the no-fit polygons; so u is the least box norm of a point outside U's
    interior: at the centre when the centre is outside, else on U's boundary.
    """
    import shapely

    pa, qa = np.vstack(ps), np.vstack(qs)
    wp, wq = pa.max(axis=0) - pa.min(axis=0), qa.max(axis=0) - qa.min(axis=0)
    alone = float(max(wp.max(), wq.max()))
    centre = (pa.max(axis=0) - qa.min(axis=0) + pa.min(axis=0) - qa.max(axis=0)) / 2
    square = inflate * np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    union = shapely.union_all(shapely.polygons(minkowski_sums([*ps, square], [-q for q in qs])))
    if not union.contains(shapely.Point(centre)):
        return alone
    rings = [np.asarray(r.coords) for g in getattr(union, "geoms", [union]) for r in (g.exterior, *g.interiors)]
    a = np.vstack([r[:-1] for r in rings])
    b = np.vstack([r[1:] for r in rings])
    return max(alone, box_norm_minimum(a, b, centre, (wp + wq) / 2))


# ------------------------------------------------ a pair over all angles

def pair_scale_bound(ps: Sequence[Polygon2], qs: Sequence[Polygon2], gap: float, s_cap: float,
                     rotate: bool = True, seconds: float = PAIR_SECONDS, stop_at: float = math.inf,
                     rel_tol: float = 2e-4) -> float:
    """An upper bound on the common scale at which two islands, given as
    convex pieces, fit in the unit tile at least ``gap`` apart.

    ``s_cap`` is a known bound (each island alone).  With ``rotate`` the
    angles are free, else both islands keep theirs.  The search stops when
    the bound is within ``rel_tol`` of a scale the relaxation reaches, when
    that scale reaches ``stop_at`` (the pair cannot beat a bound already
    known), or after ``seconds``.
    """
    def centred(pieces):
        c = np.vstack(pieces).mean(axis=0)
        pieces = [p - c for p in pieces]
        return pieces, max(float(np.hypot(p[:, 0], p[:, 1]).max()) for p in pieces)

    ps, rp = centred(ps)  # rp, rq: how far a point can move per radian of turn
    qs, rq = centred(qs)
    cap = s_cap  # a bound on the scale so far; it falls as the search goes on

    def scale(p_pieces, q_pieces, a, b):
        if not p_pieces or not q_pieces:
            return cap
        # the grown no-fit polygons are in units of the scale: a square of
        # half-side gap / sqrt(2) / s fits in the gap's disc; s <= cap makes
        # it no larger
        u = pair_inverse_scale([turned(p, a) for p in p_pieces], [turned(q, b) for q in q_pieces],
                               gap / math.sqrt(2) / cap)
        return min(cap, 1.0 / u) if u > 0 else cap

    if not rotate:
        for _ in range(3):  # each pass grows the margin by the last bound
            cap = scale(ps, qs, 0.0, 0.0)
        return cap
    shrunk: Dict[Tuple[int, float], List[Polygon2]] = {}

    def inner(which, pieces, half):
        # what every copy turned by at most `half` contains
        key = (which, half)
        if key not in shrunk:
            shrunk[key] = [x for x in (turning_core(p, half) for p in pieces) if len(x) >= 3]
        return shrunk[key]

    def box_bound(a, ha, b, hb):
        return scale(inner(0, ps, ha), inner(1, qs, hb), a, b)

    # the tile is symmetric under quarter turns: the first island turns by [0, 90)
    na, nb = 8, 32
    ha0, hb0 = math.pi / 4 / na, math.pi / nb
    reached, heap = 0.0, []
    for i, j in itertools.product(range(na), range(nb)):
        a, b = (2 * i + 1) * ha0, (2 * j + 1) * hb0
        reached = max(reached, scale(ps, qs, a, b))
        heap.append((-box_bound(a, ha0, b, hb0), a, ha0, b, hb0))
    heapq.heapify(heap)
    deadline = time.perf_counter() + seconds
    while heap and -heap[0][0] > reached * (1 + rel_tol) and reached < stop_at and time.perf_counter() < deadline:
        cap = min(cap, max(-heap[0][0], reached))
        _, a, ha, b, hb = heapq.heappop(heap)
        if rp * ha >= rq * hb:
            kids = [(a - ha / 2, ha / 2, b, hb), (a + ha / 2, ha / 2, b, hb)]
        else:
            kids = [(a, ha, b - hb / 2, hb / 2), (a, ha, b + hb / 2, hb / 2)]
        for ka, kha, kb, khb in kids:
            reached = max(reached, scale(ps, qs, ka, kb))
            value = box_bound(ka, kha, kb, khb)
            if value > reached:
                heapq.heappush(heap, (-value, ka, kha, kb, khb))
    return max(-heap[0][0] if heap else reached, reached)


def pair_coverage_bound(outlines: Sequence[Sequence[np.ndarray]], areas: Sequence[float], margin: float,
                        rotate: bool = True, seconds: float = PAIR_SECONDS,
                        known: float = 1.0) -> float:
    """Largest coverage with one common scale, by the pairs among the
    ``PAIR_ISLANDS`` largest islands (at most ``known``, a bound already
    known).  Layouts are allowed the checker's tolerance: the tile may be
    ``CHECKER_TOL`` larger on each side and the gap that much smaller."""
    total = float(sum(areas))
    if total <= 0 or len(outlines) < 2:
        return known
    order = sorted(range(len(outlines)), key=lambda k: -areas[k])[:PAIR_ISLANDS]
    # a layout in the tile grown by the tolerance, shrunk back into the unit
    # tile, keeps a gap of at least (margin - tol) / grow at scale s / grow
    grow = 1 + 2 * CHECKER_TOL
    gap = max(margin - CHECKER_TOL, 0.0) / grow
    best_s = math.sqrt(known / total) if known < 1 else math.inf  # each island alone, unit tile
    connected = {k: connected_interior(outlines[k]) for k in order}
    side = {k: smallest_square_side(outlines[k], rotate) for k in order if len(outlines[k])}
    for i, j in itertools.combinations(order, 2):
        ps = convex_pieces(outlines[i], areas[j], connected[j])
        qs = convex_pieces(outlines[j], areas[i], connected[i])
        if not ps or not qs:
            continue
        s_cap = 1.0 / max(side[i], side[j])
        s = pair_scale_bound(ps, qs, gap, min(s_cap, best_s), rotate, seconds, stop_at=best_s)
        best_s = min(best_s, s)
    return min(known, (grow * best_s) ** 2 * total)


def homedecor_bounds(results: Dict, pair_seconds: float = PAIR_SECONDS,
                     names: Optional[Sequence[str]] = None) -> List[Dict]:
    """Per homedecor model of a benchmark ``results.json``: both bounds and
    the coverages of uvnest at 10 s and Blender CONCAVE (0 when its layout
    was invalid)."""
    import uvnest
    from .corpus_islands import homedecor_models

    rows = []
    measured = {m["name"]: m for m in results["models"] if m["kind"] == "homedecor"}
    for model in homedecor_models(sorted(names or measured)):
        islands = uvnest.find_islands(model.uvs, model.faces, merge_overlapping=True)
        outlines, areas = [i.outline for i in islands], [i.area for i in islands]
        rotate = model.rotation != "none"
        alone = coverage_bound(outlines, areas, rotate=rotate)
        pair = pair_coverage_bound(outlines, areas, measured[model.name]["margin"], rotate=rotate,
                                   seconds=pair_seconds, known=alone)
        packers = measured[model.name]["packers"]
        blender = packers["blender-concave"]
        rows.append({"model": model.name, "islands": len(islands), "alone": alone, "bound": min(alone, pair),
                     "uvnest_10s": packers["uvnest-10s"]["coverage"],
                     "blender": blender["coverage"] if blender["valid"] else 0.0})
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.bounds", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", type=Path, help="results.json of a benchmark run")
    parser.add_argument("--pair-seconds", type=float, default=PAIR_SECONDS,
                        help="branch and bound time per pair of islands (default %(default)s)")
    parser.add_argument("--models", help="comma-separated model names (default: all homedecor models of the run)")
    args = parser.parse_args(argv)
    names = args.models.split(",") if args.models else None
    rows = homedecor_bounds(json.loads(args.results.read_text()), args.pair_seconds, names)
    print(f"{'model':45s} {'islands':>7s} {'alone':>7s} {'bound':>7s} {'uvnest 10 s':>11s} {'of bound':>8s} "
          f"{'Blender':>7s} {'bound / Blender':>15s}")
    for r in rows:
        ratio = f"{r['bound'] / r['blender']:.3f}" if r["blender"] > 0 else "-"
        print(f"{r['model']:45s} {r['islands']:7d} {r['alone']:7.4f} {r['bound']:7.4f} {r['uvnest_10s']:11.4f} "
              f"{r['uvnest_10s'] / r['bound']:8.3f} {r['blender']:7.4f} {ratio:>15s}")
    near = sum(r["uvnest_10s"] >= 0.995 * r["bound"] for r in rows)
    print(f"uvnest within 0.5 % of the bound on {near} of {len(rows)} models")
    ratios = [r["bound"] / r["blender"] for r in rows if r["blender"] > 0]
    if ratios:
        print(f"bound / Blender: median {statistics.median(ratios):.3f} over the {len(ratios)} models with a valid "
              f"Blender layout, below 1.05 on {sum(x < 1.05 for x in ratios)}: no packer with one common scale "
              f"reaches a higher median coverage ratio against this run's Blender")
    return 0


if __name__ == "__main__":
    sys.exit(main())
