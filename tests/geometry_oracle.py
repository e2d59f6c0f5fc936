"""Independent oracles and generators for the geometry tests.

Nothing here calls uvnest: these helpers turn rings into shapely geometry,
evaluate point membership of ring sets (including the degenerate rings that
uvnest returns: there-and-back segments and single points, which are not
valid shapely polygons), build Minkowski sums from convex pieces, and draw
random test polygons with hypothesis.

Conventions (those of ``uvnest.geometry``): a polygon is a list of rings,
each an ``(n, 2)`` float array, implicitly closed; outer rings run
counter-clockwise, holes clockwise.
"""
from __future__ import annotations

import math
from typing import List

import numpy as np
import shapely
from shapely import affinity
from shapely.geometry import GeometryCollection, MultiPolygon, Polygon, box
from shapely.ops import unary_union

try:  # the strategies are optional: the oracle itself needs no hypothesis
    from hypothesis import assume
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    st = None

# ----------------------------------------------------------------- tolerances

#: uvnest quantizes every call onto a power-of-two grid of about 2**-27 of the
#: largest coordinate magnitude; results are exact up to that step.
GRID_FRACTION = 2.0 ** -27


def magnitude(*objs) -> float:
    """Largest absolute coordinate among rings / ring lists / shapely geometries."""
    m = 0.0
    for o in objs:
        if o is None:
            continue
        if hasattr(o, "geom_type"):
            if o.is_empty:
                continue
            b = o.bounds
            m = max(m, *(abs(v) for v in b))
        elif isinstance(o, np.ndarray):
            if o.size:
                m = max(m, float(np.abs(o).max()))
        else:
            for r in o:
                m = max(m, magnitude(r))
    return m


def grid_tol(*objs, steps: float = 16.0) -> float:
    """A tolerance of ``steps`` grid steps for a call on these inputs."""
    return steps * GRID_FRACTION * max(magnitude(*objs), 1e-300) * 2.0


# ------------------------------------------------------------- conversions

def as_ring(points) -> np.ndarray:
    a = np.asarray(points, dtype=float).reshape(-1, 2)
    if len(a) > 1 and np.array_equal(a[0], a[-1]):
        a = a[:-1]
    return np.ascontiguousarray(a)


def geom_to_rings(geom) -> List[np.ndarray]:
    """Shapely (Multi)Polygon -> rings, outer CCW and holes CW, not closed."""
    geom = shapely.orient_polygons(geom, exterior_cw=False)
    rings = []
    for p in polygons_of(geom):
        rings.append(as_ring(p.exterior.coords))
        for h in p.interiors:
            rings.append(as_ring(h.coords))
    return rings


def polygons_of(geom) -> List[Polygon]:
    """The polygonal parts of any geometry (lines and points dropped)."""
    if geom is None or geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    if isinstance(geom, (MultiPolygon, GeometryCollection)):
        out = []
        for g in geom.geoms:
            out.extend(polygons_of(g))
        return out
    return []


def signed_area(ring) -> float:
    r = np.asarray(ring, dtype=float)
    if len(r) < 3:
        return 0.0
    x, y = r[:, 0], r[:, 1]
    x0, y0 = x[0], y[0]
    xs, ys = x - x0, y - y0
    return 0.5 * float(np.sum(xs * np.roll(ys, -1) - np.roll(xs, -1) * ys))


def rings_area(rings) -> float:
    """Area of a ring set with outer rings CCW and holes CW (degenerate rings add 0)."""
    return float(sum(signed_area(r) for r in rings))


def rings_to_geom(rings):
    """The set bounded by ``rings`` by parity (even-odd over all rings).

    Each ring with area becomes a polygon (made valid, which resolves rings
    that touch themselves or carry zero-width spikes); the rings are combined
    by symmetric difference.  Degenerate rings (segments, points) have no area
    and are dropped.
    """
    acc = Polygon()
    for r in rings:
        r = as_ring(r)
        if len(r) < 3 or abs(signed_area(r)) == 0.0:
            continue
        p = shapely.make_valid(Polygon(r))
        parts = polygons_of(p)
        if not parts:
            continue
        acc = acc.symmetric_difference(unary_union(parts))
    return acc


# ---------------------------------------------------- point classification

def _segments(rings):
    """All ring edges as arrays (x1, y1, x2, y2); single points as zero-length."""
    segs = []
    for r in rings:
        r = np.asarray(r, dtype=float).reshape(-1, 2)
        if len(r) == 0:
            continue
        nxt = np.roll(r, -1, axis=0)
        segs.append(np.hstack([r, nxt]))
    if not segs:
        return np.zeros((0, 4))
    return np.vstack(segs)


def parity_inside(rings, pts) -> np.ndarray:
    """Even-odd membership of points in the ring set (boundary undefined)."""
    pts = np.atleast_2d(np.asarray(pts, dtype=float))
    s = _segments(rings)
    if len(s) == 0:
        return np.zeros(len(pts), dtype=bool)
    px, py = pts[:, 0:1], pts[:, 1:2]
    x1, y1, x2, y2 = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    cond = (y1 > py) != (y2 > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        xint = x1 + (py - y1) * (x2 - x1) / (y2 - y1)
    cross = cond & (px < xint)
    return (np.count_nonzero(cross, axis=1) % 2) == 1


def dist_to_rings(rings, pts) -> np.ndarray:
    """Distance from each point to the nearest ring edge or ring point."""
    pts = np.atleast_2d(np.asarray(pts, dtype=float))
    s = _segments(rings)
    if len(s) == 0:
        return np.full(len(pts), np.inf)
    px, py = pts[:, 0:1], pts[:, 1:2]
    x1, y1, x2, y2 = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    dx, dy = x2 - x1, y2 - y1
    l2 = dx * dx + dy * dy
    with np.errstate(divide="ignore", invalid="ignore"):
        t = ((px - x1) * dx + (py - y1) * dy) / l2
    t = np.where(l2 > 0, np.clip(t, 0.0, 1.0), 0.0)
    qx, qy = x1 + t * dx, y1 + t * dy
    return np.sqrt((px - qx) ** 2 + (py - qy) ** 2).min(axis=1)


def strictly_inside(rings, pts, tol: float) -> np.ndarray:
    """Inside by parity and farther than ``tol`` from every ring edge/point."""
    return parity_inside(rings, pts) & (dist_to_rings(rings, pts) > tol)


def in_closed_regions(regions, pts, tol: float) -> np.ndarray:
    """Membership in the closure of a list of regions (each a list of rings):
    inside some region by parity, or within ``tol`` of any of its rings."""
    pts = np.atleast_2d(np.asarray(pts, dtype=float))
    res = np.zeros(len(pts), dtype=bool)
    for reg in regions:
        res |= parity_inside(reg, pts) | (dist_to_rings(reg, pts) <= tol)
    return res


# --------------------------------------------------------------- relations

def interiors_overlap(a, b) -> bool:
    """Do the interiors of two shapely geometries overlap (in 2-D)?"""
    return bool(a.relate_pattern(b, "2********"))


def overlaps_deeper_than(a, b, tol: float) -> bool:
    """Do the interiors of a and b overlap by more than ``tol`` (their
    intersection survives an erosion by tol)?  Slivers thinner than the
    core's grid close when the input is rounded to it."""
    return interiors_overlap(a, b) and not a.intersection(b).buffer(-tol).is_empty


def translate(geom, t):
    return affinity.translate(geom, float(t[0]), float(t[1]))


def translate_rings(rings, t):
    t = np.asarray(t, dtype=float)
    return [np.asarray(r, dtype=float) + t for r in rings]


# ------------------------------------------------------ Minkowski oracle

def triangles(geom) -> List[np.ndarray]:
    """Constrained Delaunay triangles of a polygonal geometry, as (3, 2) arrays."""
    out = []
    for p in polygons_of(geom):
        tri = shapely.constrained_delaunay_triangles(p)
        for t in getattr(tri, "geoms", []):
            c = np.asarray(t.exterior.coords, dtype=float)[:3]
            if abs(signed_area(c)) > 0:
                out.append(c)
    return out


def minkowski_oracle(a, b, negate_b: bool = True):
    """a (+) (-b) (or a (+) b) as the union of convex hulls of sums of
    triangle pairs.  Independent of uvnest's convolution."""
    ta = triangles(a)
    tb = triangles(b)
    if negate_b:
        tb = [-t for t in tb]
    hulls = []
    for x in ta:
        for y in tb:
            pts = (x[:, None, :] + y[None, :, :]).reshape(-1, 2)
            hulls.append(shapely.MultiPoint(pts).convex_hull)
    return unary_union(hulls)


# ------------------------------------------------------ region helpers

def region_length(region) -> float:
    tot = 0.0
    for r in region:
        r = np.asarray(r, dtype=float)
        tot += float(np.sum(np.hypot(*(np.roll(r, -1, axis=0) - r).T)))
    return tot


def walk_point(region, frac: float):
    """Oracle of point_at: the point at fraction ``frac`` of the region's
    boundary length, walking ring after ring from each ring's first point."""
    total = region_length(region)
    first = np.asarray(region[0], dtype=float)[0]
    if not (0 < frac < 1) or total <= 0:
        return tuple(first)
    target = frac * total
    acc = 0.0
    for r in region:
        r = np.asarray(r, dtype=float)
        n = len(r)
        for i in range(n):
            a, b = r[i], r[(i + 1) % n]
            e = math.hypot(*(b - a))
            if e > 0 and acc + e >= target:
                t = (target - acc) / e
                return (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
            acc += e
    return tuple(first)


def leftmost_index(ring) -> int:
    r = np.asarray(ring, dtype=float)
    return int(np.lexsort((r[:, 1], r[:, 0]))[0])


# --------------------------------------------------------------- generators

def box_ring(x0, y0, w, h) -> np.ndarray:
    return np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], dtype=float)


def largest_polygon(geom):
    parts = polygons_of(geom)
    if not parts:
        return Polygon()
    return max(parts, key=lambda p: p.area)


if st is not None:

    @st.composite
    def grid_shapes(draw, G: int = 8):
        """One rectangle or triangle with integer corners in [0, G]."""
        if draw(st.booleans()):
            x0, x1 = sorted(draw(st.lists(st.integers(0, G), min_size=2, max_size=2, unique=True)))
            y0, y1 = sorted(draw(st.lists(st.integers(0, G), min_size=2, max_size=2, unique=True)))
            return box(x0, y0, x1, y1)
        pts = draw(st.lists(st.tuples(st.integers(0, G), st.integers(0, G)), min_size=3, max_size=3))
        p = Polygon(pts)
        assume(p.area > 0)
        return p

    @st.composite
    def grid_polygons(draw, G: int = 8, max_parts: int = 4, holes: bool = True,
                      scale=(0.25, 0.5, 1.0)):
        """A connected concave polygon: the union of random grid rectangles and
        triangles, minus up to two more (holes or notches), scaled by a dyadic
        factor so that coordinates stay exact in binary and parallel and
        collinear edges are common."""
        parts = draw(st.lists(grid_shapes(G), min_size=1, max_size=max_parts))
        g = unary_union(parts)
        if holes:
            for h in draw(st.lists(grid_shapes(G), min_size=0, max_size=2)):
                h = affinity.scale(h, 0.5, 0.5, origin=(0, 0))
                h = affinity.translate(h, draw(st.integers(0, G // 2)), draw(st.integers(0, G // 2)))
                g = g.difference(h)
        g = largest_polygon(g)
        assume(not g.is_empty and g.area > 0.5)
        s = draw(st.sampled_from(scale))
        g = affinity.scale(g, s, s, origin=(0, 0))
        assume(g.is_valid)
        return shapely.orient_polygons(g, exterior_cw=False)

    @st.composite
    def holed_polygons(draw, G: int = 8):
        """A polygon with holes: one or two rectangles minus one to three
        rectangles or triangles drawn inside (holes that may touch each
        other or the outer boundary, or open into notches)."""
        W = draw(st.integers(3, G))
        H = draw(st.integers(3, G))
        g = box(0, 0, W, H)
        if draw(st.booleans()):
            g = g.union(box(draw(st.integers(-2, W - 1)), draw(st.integers(-2, H - 1)),
                            draw(st.integers(W, W + 3)), draw(st.integers(1, H))))
        for h in draw(st.lists(grid_shapes(2 * max(W, H) - 4), min_size=1, max_size=3)):
            h = affinity.scale(h, 0.5, 0.5, origin=(0, 0))
            g = g.difference(affinity.translate(h, 1, 1))
        g = largest_polygon(g)
        assume(not g.is_empty and g.area > 0.5 and g.is_valid)
        s = draw(st.sampled_from((0.25, 0.5, 1.0)))
        g = affinity.scale(g, s, s, origin=(0, 0))
        return shapely.orient_polygons(g, exterior_cw=False)

    @st.composite
    def star_polygons(draw, max_k: int = 14):
        """A random star-shaped polygon (float coordinates, off any grid)."""
        k = draw(st.integers(3, max_k))
        w = draw(st.lists(st.floats(0.2, 1.0), min_size=k, max_size=k))
        a0 = draw(st.floats(0, 2 * math.pi))
        cw = np.cumsum([0.0] + w[:-1])
        ang = list(a0 + 2 * math.pi * cw / sum(w))
        rad = draw(st.lists(st.floats(0.3, 2.0), min_size=k, max_size=k))
        cx = draw(st.floats(-1, 1))
        cy = draw(st.floats(-1, 1))
        pts = [(cx + r * math.cos(a), cy + r * math.sin(a)) for a, r in zip(ang, rad)]
        p = Polygon(pts)
        assume(p.is_valid and p.area > 0.05)
        return shapely.orient_polygons(p, exterior_cw=False)

    def polygons(G: int = 8, max_parts: int = 4, holes: bool = True):
        if not holes:
            return st.one_of(grid_polygons(G, max_parts, False), star_polygons())
        return st.one_of(grid_polygons(G, max_parts, True), holed_polygons(G), star_polygons())


# ------------------------------------------------------- simplify helpers

def set_hausdorff_lower_bound(inner, outer, samples: int = 400) -> float:
    """A lower bound of sup over points q of ``outer`` of dist(q, ``inner``)
    (the Hausdorff distance of two sets when ``inner`` lies inside ``outer``).

    Samples the densified boundary of ``outer`` and the centres of the largest
    circles inscribed in the parts of ``outer - inner``; shapely's distance
    from a point to a polygon is 0 inside it."""
    if outer.is_empty:
        return 0.0
    pts = []
    seg = max(outer.length / samples, 1e-300)
    dense = shapely.segmentize(outer, max_segment_length=seg)
    for p in polygons_of(dense):
        pts.append(np.asarray(p.exterior.coords))
        for h in p.interiors:
            pts.append(np.asarray(h.coords))
    for part in polygons_of(outer.difference(inner)):
        if part.area <= 0:
            continue
        c = shapely.maximum_inscribed_circle(part, tolerance=max(part.length * 1e-4, 1e-300))
        pts.append(np.asarray(c.coords)[:1])
    pts = np.vstack(pts)
    return float(shapely.distance(inner, shapely.points(pts)).max())


def max_turn_cos_half(rings) -> float:
    """Smallest cos(phi/2) over the turning angles phi of all ring vertices
    (1 for straight, 0 for a full reversal)."""
    best = 1.0
    for r in rings:
        r = np.asarray(r, dtype=float)
        if len(r) < 3:
            continue
        e1 = r - np.roll(r, 1, axis=0)
        e2 = np.roll(r, -1, axis=0) - r
        l1 = np.hypot(*e1.T)
        l2 = np.hypot(*e2.T)
        ok = (l1 > 0) & (l2 > 0)
        c = np.sum(e1 * e2, axis=1)[ok] / (l1[ok] * l2[ok])
        c = np.clip(c, -1, 1)
        best = min(best, float(np.sqrt((1 + c) / 2).min(initial=1.0)))
    return best


def grid_step(*objs) -> float:
    """The documented grid step of one call: the power of two at about
    2**-27 of the largest half-extent of the inputs' bounding box."""
    pts = []
    for o in objs:
        if isinstance(o, np.ndarray):
            pts.append(o.reshape(-1, 2))
        else:
            for r in o:
                pts.append(np.asarray(r, dtype=float).reshape(-1, 2))
    p = np.vstack(pts)
    r = 0.5 * float((p.max(axis=0) - p.min(axis=0)).max())
    if r <= 0:
        r = 1.0
    return 2.0 ** math.ceil(math.log2(r / 2.0 ** 27))


# ----------------------------------------------------------- meshes

def mesh_union(uv, faces):
    """Shapely union of the faces with non-zero area."""
    uv = np.asarray(uv, dtype=float)
    polys = []
    for f in faces:
        p = Polygon(uv[list(f)])
        if p.area > 0:
            polys.append(shapely.make_valid(p))
    return unary_union(polys) if polys else Polygon()


# ----------------------------------------------------------- puzzles

def _lexmin_yx(geom):
    best = None
    for p in polygons_of(geom):
        for ring in [p.exterior, *p.interiors]:
            for x, y in ring.coords:
                if best is None or (y, x) < (best[1], best[0]):
                    best = (x, y)
    return best


def reconstruct_tiling(container, pieces, tol=1e-7):
    """Translations that make ``pieces`` (lists of (x, y), at their given
    orientation) tile the rectangle [0, W] x [0, H] exactly, or None.

    Exact cover by backtracking: the lowest (then leftmost) point P of the
    uncovered region is a corner of the region, and the piece that covers the
    region next to P has P as its own lowest-leftmost vertex, so each piece
    has exactly one candidate position per step.  Identical pieces are tried
    once.  Coordinates of the puzzles are integers, so shapely decides
    coverage exactly."""
    W, H = container
    polys = [Polygon(p) for p in pieces]
    mins = [_lexmin_yx(p) for p in polys]
    pos = [None] * len(polys)

    def rec(R, left):
        if not left:
            return R.area <= tol
        P = _lexmin_yx(R)
        tried = set()
        for i in sorted(left):
            key = tuple(map(tuple, pieces[i]))
            if key in tried:
                continue
            tried.add(key)
            t = (P[0] - mins[i][0], P[1] - mins[i][1])
            q = translate(polys[i], t)
            if not R.buffer(tol).covers(q):
                continue
            pos[i] = t
            if rec(R.difference(q), left - {i}):
                return True
            pos[i] = None
        return False

    if rec(box(0, 0, W, H), frozenset(range(len(polys)))):
        return [np.array(p, dtype=float) for p in pos]
    return None
