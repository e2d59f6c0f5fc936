/*
 * validate.c - the independent final check of layouts.
 *
 * This code shares nothing with the placement machinery (no arrangements,
 * no no-fit polygons): it looks at the placed outlines themselves.  Two
 * polygons are too close when
 *   - their boundaries cross properly, or
 *   - a vertex of one lies strictly inside the other, or
 *   - a point just inside one of its edges lies strictly inside the other
 *     (boundaries that coincide with both interiors on the same side), or
 *   - the smallest distance between their boundaries is below the margin
 *     by more than the tolerance.
 * Crossing and inside tests are exact on the integer grid of the check;
 * distances are computed in double.  The tolerance is two grid steps.
 */
#include "internal.h"

#include <math.h>

typedef struct {
    const un_pt *p;
    int32_t      n;       /* ring length */
} ring_ref;

/* 1 inside, 0 outside, -1 on the boundary, for a polygon given as rings
 * (parity over all rings).  Exact. */
static int point_in_rings(const un_rings *r, un_pt q)
{
    un_rpt p;
    int32_t k;
    int in = 0;
    p.base = q; p.dx = p.dy = 0; p.n = 0; p.d = 1;
    for (k = 0; k < r->nrings; k++) {
        int s = un_rpt_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], &p);
        if (s < 0) return -1;
        in ^= s;
    }
    return in;
}

static double seg_point_dist(un_pt a, un_pt b, double px, double py)
{
    double dx = (double)(b.x - a.x), dy = (double)(b.y - a.y);
    double l2 = dx * dx + dy * dy, t = 0;
    if (l2 > 0) {
        t = ((px - (double)a.x) * dx + (py - (double)a.y) * dy) / l2;
        if (t < 0) t = 0;
        if (t > 1) t = 1;
    }
    return hypot((double)a.x + t * dx - px, (double)a.y + t * dy - py);
}

static double seg_seg_dist(un_pt a, un_pt b, un_pt c, un_pt d)
{
    double m = seg_point_dist(a, b, (double)c.x, (double)c.y), t;
    t = seg_point_dist(a, b, (double)d.x, (double)d.y); if (t < m) m = t;
    t = seg_point_dist(c, d, (double)a.x, (double)a.y); if (t < m) m = t;
    t = seg_point_dist(c, d, (double)b.x, (double)b.y); if (t < m) m = t;
    return m;
}

/* A grid point just left of the middle of edge a->b (inside, for a ring
 * with its interior on the left): the rounded midpoint plus a unit step
 * (-sign dy, sign dx), whose cross product with the edge is |dx| + |dy|,
 * more than the rounding can take away.  0 for edges too short. */
static int inner_sample(un_pt a, un_pt b, un_pt *q)
{
    int64_t dx = b.x - a.x, dy = b.y - a.y;
    if ((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) < 4) return 0;
    q->x = a.x + dx / 2 - (dy > 0) + (dy < 0);
    q->y = a.y + dy / 2 + (dx > 0) - (dx < 0);
    return 1;
}

/* Do any edges of x properly cross edges of y, and what is the smallest
 * edge distance (only pairs within `reach` are measured)? */
static int cross_and_dist(const un_rings *x, const un_rings *y, double reach, double *dmin)
{
    int32_t i, j, kx, ky;
    for (kx = 0; kx < x->nrings; kx++) {
        int32_t ax = x->start[kx], nx = x->start[kx + 1] - ax;
        for (i = 0; i < nx; i++) {
            un_pt a = x->pts[ax + i], b = x->pts[ax + (i + 1) % nx];
            double lx = (double)(a.x < b.x ? a.x : b.x) - reach, hx = (double)(a.x < b.x ? b.x : a.x) + reach;
            double ly = (double)(a.y < b.y ? a.y : b.y) - reach, hy = (double)(a.y < b.y ? b.y : a.y) + reach;
            for (ky = 0; ky < y->nrings; ky++) {
                int32_t ay = y->start[ky], ny = y->start[ky + 1] - ay;
                for (j = 0; j < ny; j++) {
                    un_pt c = y->pts[ay + j], d = y->pts[ay + (j + 1) % ny];
                    double dd;
                    if (((double)c.x < lx && (double)d.x < lx) || ((double)c.x > hx && (double)d.x > hx) ||
                        ((double)c.y < ly && (double)d.y < ly) || ((double)c.y > hy && (double)d.y > hy))
                        continue;
                    if (un_orient(a, b, c) * un_orient(a, b, d) < 0 &&
                        un_orient(c, d, a) * un_orient(c, d, b) < 0)
                        return 1;
                    dd = seg_seg_dist(a, b, c, d);
                    if (dd < *dmin) *dmin = dd;
                }
            }
        }
    }
    return 0;
}

/* Is some vertex or inner edge sample of x strictly inside y? */
static int inside_samples(const un_rings *x, const un_rings *y)
{
    int32_t k, i;
    for (k = 0; k < x->nrings; k++) {
        int32_t a = x->start[k], n = x->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            un_pt q;
            if (point_in_rings(y, x->pts[a + i]) == 1) return 1;
            if (inner_sample(x->pts[a + i], x->pts[a + (i + 1) % n], &q) && point_in_rings(y, q) == 1)
                return 1;
        }
    }
    return 0;
}

un_status un_pair_check(un_rings *a, un_rings *b, double margin_units, double reach, int *overlapping,
                        double *distance)
{
    double d = HUGE_VAL;
    *overlapping = 0;
    /* interior on the left of every ring, as inner_sample expects */
    un_rings_orient(a, NULL);
    un_rings_orient(b, NULL);
    if (cross_and_dist(a, b, reach, &d) || inside_samples(a, b) || inside_samples(b, a)) {
        *overlapping = 1;
        *distance = 0;
        return UN_OK;
    }
    *distance = d;
    *overlapping = d < margin_units - 2;
    return UN_OK;
}

un_status un_geom_overlaps(const un_frings *a, const un_frings *b, double margin, int *overlapping,
                           double *distance)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_grid g;
    un_rings ia, ib;
    un_status s;
    if (!(margin >= 0) || !isfinite(margin)) return UN_EINVAL;
    if ((s = un_frings_bbox(a, lo, hi)) != UN_OK) return s;
    if ((s = un_frings_bbox(b, lo, hi)) != UN_OK) return s;
    if ((s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    un_rings_init(&ia);
    un_rings_init(&ib);
    if ((s = un_grid_in(&g, a, &ia)) == UN_OK && (s = un_grid_in(&g, b, &ib)) == UN_OK) {
        s = un_pair_check(&ia, &ib, margin / g.step, HUGE_VAL, overlapping, distance);
        if (s == UN_OK && *distance < HUGE_VAL) *distance *= g.step;
    }
    un_rings_free(&ia);
    un_rings_free(&ib);
    return s;
}
