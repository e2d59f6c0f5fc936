/*
 * edgeindex.c - distances and parities against the edges of float rings,
 * through a box tree over the edges.
 *
 * Every query answers bit for bit as a scan over all edges would: 0 inside
 * by an even-odd ray to the right, else the smallest hypot() of the vector
 * to an edge.  The index only skips edges that cannot change the answer,
 * with an allowance (slack) for rounding far above the few ulps it can be;
 * each edge it does not skip gets the scan's arithmetic.
 */
#include "internal.h"

#include <math.h>

/* Boxes live on a grid of `scale` units per unit, a power of two that puts
 * the rings within 2^50 grid units: scaling is exact, and boxes rounded
 * outward to the grid hold what they bound.  Query boxes are rounded
 * outward too, and clamped to GRID_CLAMP, beyond every edge's box. */
#define GRID_CLAMP 4611686018427387904.0   /* 2^62 */

/* v, a whole number of grid units, clamped. */
static int64_t grid_clamped(double v)
{
    return v < -GRID_CLAMP ? -(int64_t)GRID_CLAMP : v > GRID_CLAMP ? (int64_t)GRID_CLAMP : (int64_t)v;
}

static int64_t grid_down(const un_edgeindex *ix, double v)
{
    return grid_clamped(floor(v * ix->scale));
}

static int64_t grid_up(const un_edgeindex *ix, double v)
{
    return grid_clamped(ceil(v * ix->scale));
}

/* The grid box holding the box of points a and b. */
static un_box grid_box(const un_edgeindex *ix, const double *a, const double *b)
{
    un_box r;
    r.lx = grid_down(ix, a[0] < b[0] ? a[0] : b[0]);
    r.hx = grid_up(ix, a[0] < b[0] ? b[0] : a[0]);
    r.ly = grid_down(ix, a[1] < b[1] ? a[1] : b[1]);
    r.hy = grid_up(ix, a[1] < b[1] ? b[1] : a[1]);
    return r;
}

static void edge_box(const void *ctx, int32_t e, un_box *b)
{
    const un_edgeindex *ix = (const un_edgeindex *)ctx;
    *b = grid_box(ix, ix->xy + 2 * e, ix->xy + 2 * ix->succ[e]);
}

un_status un_edgeindex_build(un_edgeindex *ix, const un_frings *r)
{
    int32_t n = un_frings_npts(r), k, e, bits;
    double m = 0;
    memset(ix, 0, sizeof *ix);
    ix->xy = r->xy;
    ix->succ = (int32_t *)malloc(((size_t)n + 1) * sizeof *ix->succ);
    if (!ix->succ) return UN_ENOMEM;
    for (k = 0; k < r->nrings; k++)
        for (e = r->start[k]; e < r->start[k + 1]; e++)
            ix->succ[e] = e + 1 < r->start[k + 1] ? e + 1 : r->start[k];
    for (e = 0; e < 2 * n; e++)
        if (fabs(r->xy[e]) > m) m = fabs(r->xy[e]);
    ix->slack = 1e-9 * m;
    frexp(m, &bits);   /* m < 2^bits */
    ix->scale = ldexp(1, 50 - bits < 1000 ? 50 - bits : 1000);   /* finite for tiny m */
    if (un_boxtree_build(&ix->tree, n, edge_box, ix) != UN_OK) {
        un_edgeindex_free(ix);
        return UN_ENOMEM;
    }
    return UN_OK;
}

void un_edgeindex_free(un_edgeindex *ix)
{
    free(ix->succ);
    ix->succ = NULL;
    un_boxtree_free(&ix->tree);
}

/* ---------------------------------------------------------------- parity */

/* The parity of the edges e in [e0, e1) that straddle y and whose crossing
 * with it lies right of x (left: the others that straddle y). */
static int leaf_crossings(const un_edgeindex *ix, int32_t e0, int32_t e1, double x, double y, int left)
{
    int32_t e;
    int in = 0;
    for (e = e0; e < e1; e++) {
        const double *p = ix->xy + 2 * e, *q = ix->xy + 2 * ix->succ[e];
        double dx = q[0] - p[0], dy = q[1] - p[1];
        if ((p[1] > y) != (q[1] > y) && (x < p[0] + (y - p[1]) * dx / dy) != left) in = !in;
    }
    return in;
}

/* An edge counts only if it straddles y (min <= y < max, decided exactly)
 * and its crossing, as computed, lies right of x: within rounding of its x
 * range, so a box whose right side lies more than slack left of x holds no
 * such edge.  Every ring has an even number of edges that straddle y, so
 * counting those whose crossing does not lie right of x gives the same
 * parity: the ray goes to the nearer side of the rings' box. */
int un_edgeindex_inside(const un_edgeindex *ix, double x, double y)
{
    const un_box *all = un_boxtree_bounds(&ix->tree);
    double gx = x * ix->scale;
    int left = gx - (double)all->lx < (double)all->hx - gx, in = 0;
    un_box q;
    un_boxwalk w;
    int32_t e0, e1;
    q.lx = left ? -(int64_t)GRID_CLAMP : grid_down(ix, x - ix->slack);
    q.hx = left ? grid_up(ix, x + ix->slack) : (int64_t)GRID_CLAMP;
    q.ly = grid_down(ix, y);
    q.hy = grid_up(ix, y);
    un_boxwalk_begin(&w, &ix->tree, &q);
    while (un_boxwalk_next(&w, &e0, &e1)) in ^= leaf_crossings(ix, e0, e1, x, y, left);
    return in;
}

/* ------------------------------------------------------------- distance */

static double leaf_nearest(const un_edgeindex *ix, int32_t e0, int32_t e1, double x, double y, double best)
{
    int32_t e;
    for (e = e0; e < e1; e++) {
        const double *p = ix->xy + 2 * e, *q = ix->xy + 2 * ix->succ[e];
        double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy, t = 0, ex, ey, d;
        if (l2 > 0) {
            t = ((x - p[0]) * dx + (y - p[1]) * dy) / l2;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
        }
        ex = p[0] + t * dx - x;
        ey = p[1] + t * dy - y;
        /* the exact bits of hypot decide, but only near or below best
         * (while the squares neither overflow nor underflow) */
        if (best > 1e-150 && best < 1e150 && ex * ex + ey * ey >= best * best * (1 + UN_HYPOT_CLOSE)) continue;
        d = hypot(ex, ey);
        if (d < best) best = d;
    }
    return best;
}

/* The computed distance to an edge is at least its box's, less a rounding
 * error far below s: boxes farther than best + s are skipped (compared by
 * squares in grid units, whose rounding s covers as well, unless they
 * underflow; an infinite best skips nothing).  The point is clamped to the
 * grid's range like the query boxes: that only brings it nearer to every
 * box. */
double un_edgeindex_nearest(const un_edgeindex *ix, double x, double y)
{
    double best = HUGE_VAL, s = ix->slack + 1e-9 * (fabs(x) + fabs(y)), p[2];
    un_boxwalk w;
    int32_t e0, e1;
    p[0] = fmax(-GRID_CLAMP, fmin(GRID_CLAMP, x * ix->scale));
    p[1] = fmax(-GRID_CLAMP, fmin(GRID_CLAMP, y * ix->scale));
    un_boxwalk_begin_near(&w, &ix->tree, p);
    while (un_boxwalk_next(&w, &e0, &e1)) {
        double reach;
        best = leaf_nearest(ix, e0, e1, x, y, best);
        reach = (best + s) * ix->scale;
        w.reach2 = reach > 1e-150 ? reach * reach : HUGE_VAL;
    }
    return best;
}

double un_edgeindex_dist(const un_edgeindex *ix, double x, double y)
{
    return un_edgeindex_inside(ix, x, y) ? 0 : un_edgeindex_nearest(ix, x, y);
}

/* ------------------------------------------------------------ along a path */

/* The sign of the orientation of c relative to a->b when the rounding
 * cannot have changed it (the first error bound of Shewchuk's orient2d),
 * else 0. */
static int orient_sure(const double *a, const double *b, const double *c)
{
    double l = (b[0] - a[0]) * (c[1] - a[1]), r = (b[1] - a[1]) * (c[0] - a[0]), det = l - r;
    double bound = 3.3306690738754716e-16 * (fabs(l) + fabs(r));
    if (fabs(l) + fabs(r) < 1e-280) return 0;   /* underflow: unsure */
    return det > bound ? 1 : det < -bound ? -1 : 0;
}

/* Does segment a-b properly cross segment c-d: 1 surely, 0 surely not, -1
 * too close to call. */
static int cross_sure(const double *a, const double *b, const double *c, const double *d)
{
    int o1 = orient_sure(a, b, c), o2 = orient_sure(a, b, d), o3 = orient_sure(c, d, a), o4 = orient_sure(c, d, b);
    if ((o1 && o1 == o2) || (o3 && o3 == o4)) return 0;
    return o1 && o2 && o3 && o4 ? 1 : -1;
}

static int leaf_seg_parity(const un_edgeindex *ix, int32_t e0, int32_t e1, const double *a, const double *b)
{
    int32_t e;
    int in = 0;
    for (e = e0; e < e1; e++) {
        const double *c = ix->xy + 2 * e, *d = ix->xy + 2 * ix->succ[e];
        int k;
        if ((c[0] < a[0] && c[0] < b[0] && d[0] < a[0] && d[0] < b[0]) ||
            (c[0] > a[0] && c[0] > b[0] && d[0] > a[0] && d[0] > b[0]) ||
            (c[1] < a[1] && c[1] < b[1] && d[1] < a[1] && d[1] < b[1]) ||
            (c[1] > a[1] && c[1] > b[1] && d[1] > a[1] && d[1] > b[1]))
            continue;   /* boxes apart */
        if ((k = cross_sure(a, b, c, d)) < 0) return -1;
        in ^= k;
    }
    return in;
}

/* The parity of the edges that properly cross segment a-b, or -1 when an
 * edge comes too close to it to call. */
static int seg_parity(const un_edgeindex *ix, const double *a, const double *b)
{
    un_box q = grid_box(ix, a, b);
    un_boxwalk w;
    int32_t e0, e1;
    int in = 0, k;
    if (a[0] == b[0] && a[1] == b[1]) return 0;
    un_boxwalk_begin(&w, &ix->tree, &q);
    while (un_boxwalk_next(&w, &e0, &e1)) {
        if ((k = leaf_seg_parity(ix, e0, e1, a, b)) < 0) return -1;
        in ^= k;
    }
    return in;
}

void un_edgewalk_begin(un_edgewalk *w, const un_edgeindex *ix)
{
    w->ix = ix;
    w->valid = 0;
}

/* Points along a path mostly lie outside the rings and cross them seldom,
 * while a ray from them may cross them very often (think of a comb).  A
 * point farther than the rounding allowance s from every edge has the
 * parity of exact arithmetic, and the scan's ray gets it right too (the
 * crossing it computes for an edge lies about as far from the point as the
 * edge); so its parity is that of the last such point (ref) and of the
 * edges that cross the segment between them.  Near an edge, or when a
 * crossing is too close to call, the ray decides. */
double un_edgewalk_dist(un_edgewalk *w, double x, double y)
{
    const un_edgeindex *ix = w->ix;
    double d = un_edgeindex_nearest(ix, x, y), p[2];
    int in;
    if (!(d > ix->slack + 1e-9 * (fabs(x) + fabs(y)))) return un_edgeindex_inside(ix, x, y) ? 0 : d;
    p[0] = x;
    p[1] = y;
    in = w->valid ? seg_parity(ix, w->ref, p) : -1;
    in = in < 0 ? un_edgeindex_inside(ix, x, y) : in ^ w->in;
    w->ref[0] = x;
    w->ref[1] = y;
    w->in = in;
    w->valid = 1;
    return in ? 0 : d;
}
