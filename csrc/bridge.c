/*
 * bridge.c - polygons with holes as weakly simple rings.
 *
 * A polygon given as rings of any orientation is split into components (an
 * outer ring and the holes directly inside it, found by exact point-in-ring
 * tests), outer rings are made counter-clockwise and holes clockwise, and
 * each hole is spliced into its outer ring through a zero-width slit
 * ("bridge"), as earcut does.  The slit has no area, so the interior of the
 * component is unchanged; the convolution in minkowski.c works on such
 * single rings.
 *
 * For a Minkowski sum or no-fit polygon, a hole of one operand that no
 * component of the other fits in (wider or taller than the hole's box) can
 * be filled first without changing the result (see fills_none below).
 * Small holes (rivets, cut-outs) then cost nothing in the convolution.
 *
 * A bridge runs from a hole's lexicographically smallest vertex h to a
 * smaller vertex v of the ring built so far.  Because every other point of
 * the hole is larger than h, the slit leaves the hole through its outside;
 * it must not cross or touch any edge, and it must enter v's interior wedge
 * (v may occur several times once earlier bridges end there).
 */
#include "internal.h"

/* 1 inside, 0 outside, -1 on the boundary of ring r[0..n). Exact. */
static int point_in_ring(const un_pt *r, int32_t n, un_pt p)
{
    int32_t i;
    int in = 0;
    for (i = 0; i < n; i++) {
        un_pt a = r[i], b = r[(i + 1) % n];
        int64_t c = un_cross(b.x - a.x, b.y - a.y, p.x - a.x, p.y - a.y);
        if (c == 0 && p.x >= (a.x < b.x ? a.x : b.x) && p.x <= (a.x < b.x ? b.x : a.x) &&
            p.y >= (a.y < b.y ? a.y : b.y) && p.y <= (a.y < b.y ? b.y : a.y))
            return -1;
        if ((a.y > p.y) != (b.y > p.y)) {
            if ((b.y > a.y) ? c > 0 : c < 0) in = !in;
        }
    }
    return in;
}

/* Is ring i inside ring j?  Tests vertices of i until one is not on j. */
static int ring_inside(const un_rings *r, int32_t i, int32_t j)
{
    int32_t k;
    const un_pt *pj = r->pts + r->start[j];
    int32_t nj = r->start[j + 1] - r->start[j];
    for (k = r->start[i]; k < r->start[i + 1]; k++) {
        int s = point_in_ring(pj, nj, r->pts[k]);
        if (s >= 0) return s;
    }
    return 0; /* every vertex on j: coincident rings, not nested */
}

static void reverse(un_pt *p, int32_t n)
{
    int32_t i;
    for (i = 0; i < n / 2; i++) {
        un_pt t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

/* Does segment h-v cross or touch ring q (other than at v itself)? */
static int blocked_by(un_pt h, un_pt v, const un_pt *q, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        un_pt a = q[i], b = q[(i + 1) % n];
        int o1 = un_orient(h, v, a), o2 = un_orient(h, v, b);
        int o3 = un_orient(a, b, h), o4 = un_orient(a, b, v);
        if (o1 * o2 < 0 && o3 * o4 < 0) return 1;
        /* a vertex strictly inside the slit */
        if (o1 == 0 && un_pt_cmp(a, h) != 0 && un_pt_cmp(a, v) != 0 &&
            ((un_pt_cmp(h, a) < 0) == (un_pt_cmp(a, v) < 0)))
            return 1;
    }
    return 0;
}

typedef struct {
    const un_pt *p;
    un_pt h;
} dist_ctx;

static int cmp_dist(int32_t a, int32_t b, const void *ctx)
{
    const dist_ctx *c = (const dist_ctx *)ctx;
    int64_t ax = c->p[a].x - c->h.x, ay = c->p[a].y - c->h.y;
    int64_t bx = c->p[b].x - c->h.x, by = c->p[b].y - c->h.y;
    /* squared lengths below 2^61 */
    int64_t da = ax * ax + ay * ay, db = bx * bx + by * by;
    if (da != db) return da < db ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Splice hole (n points, clockwise, starting at its smallest vertex) into
 * *ring (m points).  Returns 0 when no bridge exists (invalid input). */
static un_status splice(un_pt **ring, int32_t *m, int32_t *cap, const un_pt *hole, int32_t n,
                        const un_rings *others, int32_t first_other, int *done)
{
    un_pt h = hole[0];
    int32_t *idx = NULL, *tmp = NULL, i, k, found = -1;
    dist_ctx ctx;
    un_status s = UN_OK;
    *done = 0;
    /* a hole that touches the ring at h needs no slit: splice it in at the
     * touching point (a pinch), where the hole starts into the interior */
    for (i = 0; i < *m; i++) {
        un_pt a = (*ring)[i], b = (*ring)[(i + 1) % *m], pv = (*ring)[(i + *m - 1) % *m];
        un_pt h1 = hole[1 % n];
        int at_vertex = un_pt_cmp(a, h) == 0;
        int in_edge = !at_vertex && un_pt_cmp(b, h) != 0 && un_orient(a, b, h) == 0 &&
                      (un_pt_cmp(a, h) < 0) == (un_pt_cmp(h, b) < 0);
        int32_t at, extra;
        if (!at_vertex && !in_edge) continue;
        if (at_vertex) {
            if (!un_in_arc(b.x - a.x, b.y - a.y, pv.x - a.x, pv.y - a.y, h1.x - h.x, h1.y - h.y, 1, 1)) continue;
        } else if (un_orient(a, b, h1) < 0) {
            continue;
        }
        /* ring[0..i] (+ h inside an edge) + hole[1..n) + h + ring[i+1..m) */
        extra = at_vertex ? n : n + 1;
        if ((s = un_reserve((void **)ring, cap, (int64_t)*m + extra, sizeof **ring)) != UN_OK) return s;
        at = i + 1;
        memmove(*ring + at + extra, *ring + at, (size_t)(*m - at) * sizeof **ring);
        if (!at_vertex) (*ring)[at++] = h;
        memcpy(*ring + at, hole + 1, (size_t)(n - 1) * sizeof *hole);
        (*ring)[at + n - 1] = h;
        *m += extra;
        *done = 1;
        return UN_OK;
    }
    idx = (int32_t *)malloc((size_t)(*m > 0 ? *m : 1) * sizeof *idx);
    tmp = (int32_t *)malloc((size_t)(*m > 0 ? *m : 1) * sizeof *tmp);
    if (!idx || !tmp) { s = UN_ENOMEM; goto out; }
    for (i = 0; i < *m; i++) idx[i] = i;
    ctx.p = *ring;
    ctx.h = h;
    un_sort_idx(idx, *m, cmp_dist, &ctx, tmp);
    for (k = 0; k < *m && found < 0; k++) {
        int32_t j = idx[k], r;
        un_pt v = (*ring)[j], nx = (*ring)[(j + 1) % *m], pv = (*ring)[(j + *m - 1) % *m];
        if (un_pt_cmp(v, h) >= 0) continue;
        /* the slit must start into v's interior wedge: ccw from the
         * outgoing edge to the reversed incoming edge */
        if (!un_in_arc(nx.x - v.x, nx.y - v.y, pv.x - v.x, pv.y - v.y, h.x - v.x, h.y - v.y, 0, 0))
            continue;
        if (blocked_by(h, v, *ring, *m) || blocked_by(h, v, hole, n)) continue;
        for (r = first_other; r < others->nrings; r++)
            if (blocked_by(h, v, others->pts + others->start[r], others->start[r + 1] - others->start[r]))
                break;
        if (r < others->nrings) continue;
        found = j;
    }
    if (found < 0) goto out;
    if ((s = un_reserve((void **)ring, cap, (int64_t)*m + n + 2, sizeof **ring)) != UN_OK) goto out;
    /* ring[0..found] + hole[0..n) + h + ring[found..m) */
    memmove(*ring + found + n + 2, *ring + found, (size_t)(*m - found) * sizeof **ring);
    memcpy(*ring + found + 1, hole, (size_t)n * sizeof *hole);
    (*ring)[found + 1 + n] = h;
    *m += n + 2;
    *done = 1;
out:
    free(idx);
    free(tmp);
    return s;
}

static int32_t lexmin_index(const un_pt *p, int32_t n)
{
    int32_t i, b = 0;
    for (i = 1; i < n; i++)
        if (un_pt_cmp(p[i], p[b]) < 0) b = i;
    return b;
}

static int cmp_hole(int32_t a, int32_t b, const void *ctx)
{
    const un_rings *r = (const un_rings *)ctx;
    un_pt pa = r->pts[r->start[a] + lexmin_index(r->pts + r->start[a], r->start[a + 1] - r->start[a])];
    un_pt pb = r->pts[r->start[b] + lexmin_index(r->pts + r->start[b], r->start[b + 1] - r->start[b])];
    int c = un_pt_cmp(pa, pb);
    return c ? c : (a < b ? -1 : (a > b));
}

/* depth[i]: how many rings contain ring i.  Then orient: even depth
 * counter-clockwise (outer), odd clockwise (hole). */
static void nest_and_orient(un_rings *r, int32_t *depth)
{
    int32_t i, j, n = r->nrings;
    for (i = 0; i < n; i++) {
        depth[i] = 0;
        for (j = 0; j < n; j++)
            if (j != i && ring_inside(r, i, j)) depth[i]++;
    }
    for (i = 0; i < n; i++)
        if ((un_ring_area2(r, i) < 0) != (depth[i] % 2 == 1))
            reverse(r->pts + r->start[i], r->start[i + 1] - r->start[i]);
}

un_status un_rings_orient(un_rings *r, int8_t *hole)
{
    int32_t i, *depth = (int32_t *)malloc(((size_t)r->nrings + 1) * sizeof *depth);
    if (!depth) return UN_ENOMEM;
    nest_and_orient(r, depth);
    for (i = 0; hole && i < r->nrings; i++) hole[i] = (int8_t)(depth[i] % 2);
    free(depth);
    return UN_OK;
}

/* Width and height of ring k's bounding box. */
static un_pt ring_extent(const un_rings *r, int32_t k)
{
    un_pt lo, hi, e;
    un_pts_bbox(r->pts + r->start[k], r->start[k + 1] - r->start[k], &lo, &hi);
    e.x = hi.x - lo.x;
    e.y = hi.y - lo.y;
    return e;
}

/* Can hole ring hl of r be filled for a sum with an operand whose
 * components have the box extents ext[0..n)?
 *
 * The sum changes where the filled hole meets some translate of a component
 * C of the other operand that misses the polygon itself.  C is connected and
 * every point of the hole's boundary touches the polygon's interior (the
 * rings are simple and apart, which the caller checks), so such a translate
 * lies inside the hole: its box fits in the hole's box.  When each
 * component is wider or taller than the hole, none does.  This holds for
 * the open (no-fit) and the closed (sum) reading alike, and -other has the
 * same boxes.  A hole with rings inside it is kept: filling it would leave
 * those rings overlapping a filled component. */
static int fills_none(const un_rings *r, const int32_t *parent, int32_t hl, const un_pt *ext, int32_t n)
{
    un_pt e = ring_extent(r, hl);
    int32_t k;
    for (k = 0; k < r->nrings; k++)
        if (parent[k] == hl) return 0;
    for (k = 0; k < n; k++)
        if (ext[k].x <= e.x && ext[k].y <= e.y) return 0;
    return 1;
}

un_status un_poly_bridge(const un_rings *in, const un_rings *other, un_rings *out)
{
    un_rings r;
    int32_t *depth = NULL, *parent = NULL, *order = NULL, *tmp = NULL, i, j, n;
    un_pt *ring = NULL, *hole = NULL, *ext = NULL;
    int32_t cap_ring = 0, cap_hole = 0;
    un_status s;
    un_rings_init(&r);
    un_rings_clear(out);
    if ((s = un_rings_copy(&r, in)) != UN_OK) goto out;
    if ((s = un_rings_clean(&r, 0)) != UN_OK) goto out;
    n = r.nrings;
    depth = (int32_t *)malloc(((size_t)n + 1) * sizeof *depth);
    parent = (int32_t *)malloc(((size_t)n + 1) * sizeof *parent);
    order = (int32_t *)malloc(((size_t)n + 1) * sizeof *order);
    tmp = (int32_t *)malloc(((size_t)n + 1) * sizeof *tmp);
    if (!depth || !parent || !order || !tmp) { s = UN_ENOMEM; goto out; }
    if (other) {
        /* the other operand's components: each of its bridged rings */
        if (!(ext = (un_pt *)malloc(((size_t)other->nrings + 1) * sizeof *ext))) { s = UN_ENOMEM; goto out; }
        for (i = 0; i < other->nrings; i++) ext[i] = ring_extent(other, i);
    }
    nest_and_orient(&r, depth);
    /* parent: the containing ring one level up with the smallest area (an
     * outer ring for a hole, a hole for an outer ring inside one) */
    for (i = 0; i < n; i++) {
        double best = 0;
        parent[i] = -1;
        if (depth[i] == 0 || (depth[i] % 2 == 0 && !other)) continue;
        for (j = 0; j < n; j++) {
            double a;
            if (j == i || depth[j] != depth[i] - 1 || !ring_inside(&r, i, j)) continue;
            a = un_ring_area2(&r, j);
            if (a < 0) a = -a;
            if (parent[i] < 0 || a < best) { parent[i] = j; best = a; }
        }
    }
    for (i = 0; i < n; i++) order[i] = i;
    un_sort_idx(order, n, cmp_hole, &r, tmp);
    for (i = 0; i < n; i++) {
        int32_t m = r.start[i + 1] - r.start[i], k;
        if (depth[i] % 2 == 1) continue;
        if ((s = un_reserve((void **)&ring, &cap_ring, m, sizeof *ring)) != UN_OK) goto out;
        memcpy(ring, r.pts + r.start[i], (size_t)m * sizeof *ring);
        for (k = 0; k < n; k++) {
            int32_t hi = order[k], hn, h0, done;
            if (parent[hi] != i || (ext && fills_none(&r, parent, hi, ext, other->nrings))) continue;
            hn = r.start[hi + 1] - r.start[hi];
            if ((s = un_reserve((void **)&hole, &cap_hole, hn, sizeof *hole)) != UN_OK) goto out;
            h0 = lexmin_index(r.pts + r.start[hi], hn);
            for (j = 0; j < hn; j++) hole[j] = r.pts[r.start[hi] + (h0 + j) % hn];
            /* holes are bridged smallest first, so the later ones are the
             * only other rings a slit can still run into */
            if ((s = splice(&ring, &m, &cap_ring, hole, hn, &r, 0, &done)) != UN_OK) goto out;
            /* without a valid bridge (self-intersecting input) the hole is
             * dropped, which only makes the polygon larger */
        }
        if ((s = un_rings_add(out, ring, m)) != UN_OK) goto out;
    }
out:
    un_rings_free(&r);
    free(depth); free(parent); free(order); free(tmp); free(ring); free(hole); free(ext);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}
