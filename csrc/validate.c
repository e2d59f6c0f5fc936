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
    un_status s;
    *overlapping = 0;
    /* interior on the left of every ring, as inner_sample expects */
    if ((s = un_rings_orient(a, NULL)) != UN_OK || (s = un_rings_orient(b, NULL)) != UN_OK) return s;
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

/* ----------------------------------------------------------- whole layouts */

/* Polygons on one grid, with their bounding boxes, in the order of their
 * boxes' left sides: a sweep over x meets every pair whose boxes meet. */
typedef struct {
    double lo[2], hi[2];
} fbox;

typedef struct {
    un_grid   g;
    un_rings *q;     /* on the grid */
    fbox     *bx;
    int32_t  *ord;
    int32_t   n;
} sweep;

static int cmp_left(int32_t a, int32_t b, const void *ctx)
{
    const fbox *bx = (const fbox *)ctx;
    if (bx[a].lo[0] != bx[b].lo[0]) return bx[a].lo[0] < bx[b].lo[0] ? -1 : 1;
    return a < b ? -1 : (a > b);
}

static void sweep_free(sweep *w)
{
    int32_t i;
    for (i = 0; w->q && i < w->n; i++) un_rings_free(w->q + i);
    free(w->q); free(w->bx); free(w->ord);
}

/* The grid fits the polygons and the box lo..hi (empty: lo = +inf,
 * hi = -inf). */
static un_status sweep_build(sweep *w, const un_frings *polys, int32_t n, double lo[2], double hi[2])
{
    int32_t i, *tmp;
    un_status s = UN_OK;
    memset(w, 0, sizeof *w);
    for (i = 0; i < n && s == UN_OK; i++) s = un_frings_bbox(polys + i, lo, hi);
    if (s != UN_OK || (s = un_grid_fit(&w->g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    w->n = n;
    w->q = (un_rings *)calloc((size_t)n + 1, sizeof *w->q);
    w->bx = (fbox *)malloc(((size_t)n + 1) * sizeof *w->bx);
    w->ord = (int32_t *)malloc(((size_t)n + 1) * sizeof *w->ord);
    tmp = (int32_t *)malloc(((size_t)n + 1) * sizeof *tmp);
    if (!w->q || !w->bx || !w->ord || !tmp) s = UN_ENOMEM;
    for (i = 0; i < n && s == UN_OK; i++) {
        w->bx[i].lo[0] = w->bx[i].lo[1] = HUGE_VAL;
        w->bx[i].hi[0] = w->bx[i].hi[1] = -HUGE_VAL;
        un_frings_bbox(polys + i, w->bx[i].lo, w->bx[i].hi);
        s = un_grid_in(&w->g, polys + i, w->q + i);
        w->ord[i] = i;
    }
    if (s == UN_OK) un_sort_idx(w->ord, n, cmp_left, w->bx, tmp);
    free(tmp);
    if (s != UN_OK) sweep_free(w);
    return s;
}

un_status un_validate_layout(const un_frings *polys, int32_t n, int32_t nfixed, double margin,
                             const double box[4], int32_t *bad_a, int32_t *bad_b)
{
    double lo[2], hi[2], reach, tol;
    sweep w;
    int32_t i, j;
    un_status s;
    *bad_a = *bad_b = -1;
    lo[0] = box[0]; lo[1] = box[1]; hi[0] = box[2]; hi[1] = box[3];
    if ((s = sweep_build(&w, polys, n, lo, hi)) != UN_OK) return s;
    /* every movable island inside the target, within two grid steps */
    tol = 2 * w.g.step;
    for (i = 0; i < n - nfixed; i++) {
        const fbox *b = w.bx + i;
        if (b->lo[0] < box[0] - tol || b->lo[1] < box[1] - tol || b->hi[0] > box[2] + tol || b->hi[1] > box[3] + tol) {
            *bad_a = i;
            goto done;
        }
    }
    /* pairs whose boxes come within the margin */
    reach = margin + tol;
    for (i = 0; i < n; i++) {
        int32_t a = w.ord[i];
        for (j = i + 1; j < n; j++) {
            int32_t b = w.ord[j];
            int over;
            double d;
            if (w.bx[b].lo[0] > w.bx[a].hi[0] + reach) break;
            if (a >= n - nfixed && b >= n - nfixed) continue; /* fixed pairs are given */
            if (w.bx[b].lo[1] > w.bx[a].hi[1] + reach || w.bx[a].lo[1] > w.bx[b].hi[1] + reach) continue;
            if ((s = un_pair_check(w.q + a, w.q + b, margin / w.g.step, reach / w.g.step, &over, &d)) != UN_OK)
                goto done;
            if (over) {
                *bad_a = a < b ? a : b;
                *bad_b = a < b ? b : a;
                goto done;
            }
        }
    }
done:
    sweep_free(&w);
    return s;
}

un_status un_overlap_groups(const un_frings *polys, int32_t n, int32_t *label)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    sweep w;
    int32_t *pa = NULL, *pb = NULL, i, j, np = 0, capa = 0, capb = 0, nc;
    un_status s;
    if ((s = sweep_build(&w, polys, n, lo, hi)) != UN_OK) return s;
    for (i = 0; i < n; i++) {
        int32_t a = w.ord[i];
        if (w.q[a].nrings == 0) continue;
        for (j = i + 1; j < n; j++) {
            int32_t b = w.ord[j];
            int over;
            double d;
            /* interiors meet only if the boxes overlap with positive area */
            if (w.bx[b].lo[0] >= w.bx[a].hi[0]) break;
            if (w.q[b].nrings == 0 || w.bx[b].lo[1] >= w.bx[a].hi[1] || w.bx[a].lo[1] >= w.bx[b].hi[1]) continue;
            if ((s = un_pair_check(w.q + a, w.q + b, 0, 0, &over, &d)) != UN_OK) goto done;
            if (!over) continue;
            if ((s = UN_RESERVE(pa, capa, (int64_t)np + 1)) != UN_OK) goto done;
            if ((s = UN_RESERVE(pb, capb, (int64_t)np + 1)) != UN_OK) goto done;
            pa[np] = a;
            pb[np++] = b;
        }
    }
    s = un_components(n, pa, pb, np, label, &nc);
done:
    sweep_free(&w);
    free(pa); free(pb);
    return s;
}
