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
 *
 * un_validate_holds ties this check to what is returned: every output UV
 * of an island must lie in the shape that was checked (or within the
 * tolerance of it), so faces, needles and collapsed islands included, the
 * output keeps what the shapes keep.
 */
#include "internal.h"

#include <math.h>

typedef struct {
    const un_pt *p;
    int32_t      n;       /* ring length */
} ring_ref;

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

/* The edges of a polygon's rings in horizontal slabs: slab k lists every
 * edge whose y-range meets it, so a point's tests read only the edges of
 * the slabs around its y (a polygon of 500 edges and 2,000 points took
 * 9 ms with every edge tested; slabs make it linear in practice). */
typedef struct {
    const un_rings *r;
    int64_t  y0, h;        /* slab k covers y0 + k h .. y0 + (k + 1) h */
    int32_t  nslab;
    int32_t *first;        /* nslab + 1 offsets into edge */
    int32_t *edge;         /* point index of each edge's start in r->pts */
    int32_t *next;         /* per point: the index of the edge's end */
} slabs;

static int32_t slab_of(const slabs *S, int64_t y)
{
    int64_t k = (y - S->y0) / S->h;
    return k < 0 ? 0 : k >= S->nslab ? S->nslab - 1 : (int32_t)k;
}

static void slabs_free(slabs *S)
{
    free(S->first); free(S->edge); free(S->next);
}

static un_status slabs_build(slabs *S, const un_rings *r)
{
    int32_t n = un_rings_npts(r), k, i, pass;
    un_pt lo, hi;
    memset(S, 0, sizeof *S);
    S->r = r;
    un_rings_bbox(r, &lo, &hi);
    S->nslab = n < 1 ? 1 : n > 65536 ? 65536 : n;
    S->y0 = lo.y;
    S->h = (hi.y - lo.y) / S->nslab + 1;
    S->first = (int32_t *)calloc((size_t)S->nslab + 2, sizeof *S->first);
    S->next = (int32_t *)malloc(((size_t)n + 1) * sizeof *S->next);
    if (!S->first || !S->next) return UN_ENOMEM;
    for (k = 0; k < r->nrings; k++)
        for (i = r->start[k]; i < r->start[k + 1]; i++) S->next[i] = i + 1 < r->start[k + 1] ? i + 1 : r->start[k];
    /* count, then fill (first[] ends as the starts) */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < n; i++) {
            int64_t ya = r->pts[i].y, yb = r->pts[S->next[i]].y;
            int32_t a = slab_of(S, ya < yb ? ya : yb), b = slab_of(S, ya < yb ? yb : ya), t;
            for (t = a; t <= b; t++) {
                if (pass == 0) S->first[t + 1]++;
                else S->edge[S->first[t]++] = i;
            }
        }
        if (pass == 0) {
            for (k = 0; k < S->nslab; k++) S->first[k + 1] += S->first[k];
            S->edge = (int32_t *)malloc(((size_t)S->first[S->nslab] + 1) * sizeof *S->edge);
            if (!S->edge) return UN_ENOMEM;
        }
    }
    for (k = S->nslab; k > 0; k--) S->first[k] = S->first[k - 1];
    S->first[0] = 0;
    return UN_OK;
}

/* 1 inside, 0 outside, -1 on the boundary (exact: crossings of the ray
 * to +x, each edge counted as half-open in y). */
static int slabs_inside(const slabs *S, un_pt q)
{
    const un_pt *p = S->r->pts;
    int32_t t = slab_of(S, q.y), j, in = 0;
    for (j = S->first[t]; j < S->first[t + 1]; j++) {
        un_pt a = p[S->edge[j]], b = p[S->next[S->edge[j]]];
        int o = un_orient(a, b, q);
        if (o == 0 && (a.x < b.x ? a.x : b.x) <= q.x && q.x <= (a.x < b.x ? b.x : a.x) &&
            (a.y < b.y ? a.y : b.y) <= q.y && q.y <= (a.y < b.y ? b.y : a.y))
            return -1;
        if ((a.y <= q.y) != (b.y <= q.y) && (o > 0) == (b.y > a.y)) in ^= 1;
    }
    return in;
}

/* Is q within reach (grid units) of an edge? */
static int slabs_near(const slabs *S, un_pt q, double reach)
{
    const un_pt *p = S->r->pts;
    int32_t t0 = slab_of(S, q.y - (int64_t)reach - 1), t1 = slab_of(S, q.y + (int64_t)reach + 1), t, j;
    for (t = t0; t <= t1; t++)
        for (j = S->first[t]; j < S->first[t + 1]; j++)
            if (seg_point_dist(p[S->edge[j]], p[S->next[S->edge[j]]], (double)q.x, (double)q.y) <= reach) return 1;
    return 0;
}

/* The slabs lo..hi (clamped; lo, hi in grid units, possibly infinite). */
static void slab_range(const slabs *S, double lo, double hi, int32_t *t0, int32_t *t1)
{
    double a = (lo - (double)S->y0) / (double)S->h, b = (hi - (double)S->y0) / (double)S->h;
    *t0 = a < 0 ? 0 : a >= S->nslab ? S->nslab - 1 : (int32_t)a;
    *t1 = b < 0 ? 0 : b >= S->nslab ? S->nslab - 1 : (int32_t)b;
}

/* Do any edges of x properly cross edges of Y, and what is the smallest
 * edge distance (only pairs within `reach` are measured)?  Y's edges come
 * from the slabs an edge of x (grown by reach) meets, edges of x away from
 * Y's box (grown by reach) meet none: the same pairs as all against all,
 * some several times. */
static int cross_and_dist(const un_rings *x, const slabs *Y, un_pt ylo, un_pt yhi, double reach, double *dmin)
{
    const un_pt *p = Y->r->pts;
    int32_t i, j, t, t0, t1, kx;
    for (kx = 0; kx < x->nrings; kx++) {
        int32_t ax = x->start[kx], nx = x->start[kx + 1] - ax;
        for (i = 0; i < nx; i++) {
            un_pt a = x->pts[ax + i], b = x->pts[ax + (i + 1) % nx];
            double lx = (double)(a.x < b.x ? a.x : b.x) - reach, hx = (double)(a.x < b.x ? b.x : a.x) + reach;
            double ly = (double)(a.y < b.y ? a.y : b.y) - reach, hy = (double)(a.y < b.y ? b.y : a.y) + reach;
            if (hx < (double)ylo.x || lx > (double)yhi.x || hy < (double)ylo.y || ly > (double)yhi.y) continue;
            slab_range(Y, ly, hy, &t0, &t1);
            for (t = t0; t <= t1; t++)
                for (j = Y->first[t]; j < Y->first[t + 1]; j++) {
                    un_pt c = p[Y->edge[j]], d = p[Y->next[Y->edge[j]]];
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
    return 0;
}

/* Is q strictly inside Y (box ylo..yhi)?  Outside the box it cannot be. */
static int strictly_inside(const slabs *Y, un_pt ylo, un_pt yhi, un_pt q)
{
    if (q.x <= ylo.x || q.x >= yhi.x || q.y <= ylo.y || q.y >= yhi.y) return 0;
    return slabs_inside(Y, q) == 1;
}

/* Is some vertex or inner edge sample of x strictly inside Y? */
static int inside_samples(const un_rings *x, const slabs *Y, un_pt ylo, un_pt yhi)
{
    int32_t k, i;
    for (k = 0; k < x->nrings; k++) {
        int32_t a = x->start[k], n = x->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            un_pt q;
            if (strictly_inside(Y, ylo, yhi, x->pts[a + i])) return 1;
            if (inner_sample(x->pts[a + i], x->pts[a + (i + 1) % n], &q) && strictly_inside(Y, ylo, yhi, q))
                return 1;
        }
    }
    return 0;
}

un_status un_pair_check(un_rings *a, un_rings *b, double margin_units, double reach, int *overlapping,
                        double *distance)
{
    double d = HUGE_VAL;
    slabs A, B;
    un_pt alo, ahi, blo, bhi;
    un_status s;
    *overlapping = 0;
    *distance = d;
    /* a polygon without points meets nothing */
    if (un_rings_npts(a) == 0 || un_rings_npts(b) == 0) return UN_OK;
    /* interior on the left of every ring, as inner_sample expects */
    if ((s = un_rings_orient(a, NULL)) != UN_OK || (s = un_rings_orient(b, NULL)) != UN_OK) return s;
    un_rings_bbox(a, &alo, &ahi);
    un_rings_bbox(b, &blo, &bhi);
    memset(&A, 0, sizeof A);
    memset(&B, 0, sizeof B);
    if ((s = slabs_build(&A, a)) == UN_OK && (s = slabs_build(&B, b)) == UN_OK) {
        if (cross_and_dist(a, &B, blo, bhi, reach, &d) || inside_samples(a, &B, blo, bhi) ||
            inside_samples(b, &A, alo, ahi)) {
            *overlapping = 1;
            *distance = 0;
        } else {
            *distance = d;
            *overlapping = d < margin_units - 2;
        }
    }
    slabs_free(&A);
    slabs_free(&B);
    return s;
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

/* ------------------------------------------------- output against shapes */

/* Does every point of pts[0..m) lie in polygon f or within tol of it? */
static un_status holds_points(const un_frings *f, const double *pts, int32_t m, double tol, int *ok)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_rings r;
    un_grid g;
    slabs S;
    int32_t i;
    un_status s;
    *ok = 1;
    if (m == 0) return UN_OK;
    for (i = 0; i < m; i++) {
        double x = pts[2 * i], y = pts[2 * i + 1];
        if (!isfinite(x) || !isfinite(y)) { *ok = 0; return UN_OK; }
        if (x < lo[0]) lo[0] = x;
        if (x > hi[0]) hi[0] = x;
        if (y < lo[1]) lo[1] = y;
        if (y > hi[1]) hi[1] = y;
    }
    if (f->nrings == 0) { *ok = 0; return UN_OK; }
    if ((s = un_frings_bbox(f, lo, hi)) != UN_OK || (s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK)
        return s;
    un_rings_init(&r);
    memset(&S, 0, sizeof S);
    if ((s = un_grid_in(&g, f, &r)) == UN_OK && (s = slabs_build(&S, &r)) == UN_OK) {
        /* a point rounds by up to 0.71 units, the rings' vertices too */
        double reach = tol / g.step + 2;
        for (i = 0; i < m && *ok; i++) {
            un_pt q;
            q.x = un_llround((pts[2 * i] - g.ox) / g.step);
            q.y = un_llround((pts[2 * i + 1] - g.oy) / g.step);
            if (slabs_inside(&S, q) == 0 && !slabs_near(&S, q, reach)) *ok = 0;
        }
    }
    slabs_free(&S);
    un_rings_free(&r);
    return s;
}

un_status un_validate_holds(const double *ring_xy, const int32_t *ring_start, const int32_t *poly_ring, int32_t n,
                            const double *pts, const int32_t *pt_start, double tol, int32_t *bad)
{
    int32_t k, *start = NULL, cap = 0;
    un_status s = UN_OK;
    *bad = -1;
    if (!(tol >= 0)) return UN_EINVAL;
    for (k = 0; k < n && s == UN_OK && *bad < 0; k++) {
        /* polygon k as a view of the rings it owns */
        int32_t r0 = poly_ring[k], nr = poly_ring[k + 1] - r0, i;
        un_frings f;
        int ok = 1;
        if ((s = un_reserve((void **)&start, &cap, (int64_t)nr + 1, sizeof *start)) != UN_OK) break;
        for (i = 0; i <= nr; i++) start[i] = ring_start[r0 + i] - ring_start[r0];
        f.xy = (double *)ring_xy + 2 * (size_t)ring_start[r0];
        f.start = start;
        f.nrings = nr;
        f.cap_pts = f.cap_rings = 0;
        s = holds_points(&f, pts + 2 * (size_t)pt_start[k], pt_start[k + 1] - pt_start[k], tol, &ok);
        if (s == UN_OK && !ok) *bad = k;
    }
    free(start);
    return s;
}
