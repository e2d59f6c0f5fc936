/*
 * regions.c - the collision-free regions of a traced free set, and points
 * on their boundaries.
 *
 * Regions are the connected parts of the free set: an outer loop (counter-
 * clockwise, or a there-and-back chain, or one point) with the hole loops
 * (clockwise) that lie inside it.  They are sorted by their leftmost point,
 * and each loop starts at its own leftmost point; (f, r) coordinates of the
 * search select region floor(f * m) and the point at fraction r of its
 * boundary length.
 */
#include "internal.h"

#include <math.h>

static int point_in_loop(const double *xy, int32_t n, double x, double y)
{
    int32_t i;
    int in = 0;
    for (i = 0; i < n; i++) {
        double ax = xy[2 * i], ay = xy[2 * i + 1];
        double bx = xy[2 * ((i + 1) % n)], by = xy[2 * ((i + 1) % n) + 1];
        if ((ay > y) != (by > y) && x < ax + (y - ay) * (bx - ax) / (by - ay)) in = !in;
    }
    return in;
}

static int32_t leftmost(const double *xy, int32_t n)
{
    int32_t i, b = 0;
    for (i = 1; i < n; i++)
        if (xy[2 * i] < xy[2 * b] || (xy[2 * i] == xy[2 * b] && xy[2 * i + 1] < xy[2 * b + 1])) b = i;
    return b;
}

typedef struct {
    const un_loop *L;
    const double  *xy;
} reg_ctx;

static int cmp_region(int32_t a, int32_t b, const void *vctx)
{
    const reg_ctx *c = (const reg_ctx *)vctx;
    const double *pa = c->xy + 2 * c->L[a].start, *pb = c->xy + 2 * c->L[b].start;
    /* loops have been rotated to start at their leftmost point */
    if (pa[0] != pb[0]) return pa[0] < pb[0] ? -1 : 1;
    if (pa[1] != pb[1]) return pa[1] < pb[1] ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Reverse points [i, j) of a loop, in both its float and grid copies. */
static void reverse_points(double *xy, un_pt *ip, int32_t i, int32_t j)
{
    for (j--; i < j; i++, j--) {
        double x = xy[2 * i], y = xy[2 * i + 1];
        un_pt p = ip[i];
        xy[2 * i] = xy[2 * j];
        xy[2 * i + 1] = xy[2 * j + 1];
        xy[2 * j] = x;
        xy[2 * j + 1] = y;
        ip[i] = ip[j];
        ip[j] = p;
    }
}

un_status un_regions_build(un_arr *w, un_regions *g)
{
    int32_t nl = un_arr_nloops(w), k, j, nouter = 0, *parent = NULL, *tmp = NULL;
    un_loop *L = (un_loop *)un_arr_loops(w);
    double *xy = (double *)un_arr_xy(w);
    un_pt *ip = (un_pt *)un_arr_ipts(w);
    reg_ctx ctx;
    un_status s = UN_OK;
    g->nregions = 0;
    /* rotate every loop to start at its leftmost point */
    for (k = 0; k < nl; k++) {
        int32_t a = L[k].start, n = L[k].end - a, m = leftmost(xy + 2 * a, n);
        /* rotate left by m as three reversals: linear, in place */
        reverse_points(xy + 2 * a, ip + a, 0, m);
        reverse_points(xy + 2 * a, ip + a, m, n);
        reverse_points(xy + 2 * a, ip + a, 0, n);
    }
    if ((s = UN_RESERVE(g->order, g->cap_order, nl)) != UN_OK) return s;
    if ((s = UN_RESERVE(g->rstart, g->cap_rstart, (int64_t)nl + 1)) != UN_OK) return s;
    parent = (int32_t *)malloc(((size_t)nl + 1) * sizeof *parent);
    tmp = (int32_t *)malloc(((size_t)nl + 1) * sizeof *tmp);
    if (!parent || !tmp) { s = UN_ENOMEM; goto done; }
    for (k = 0; k < nl; k++)
        if (!L[k].hole) g->order[nouter++] = k;
    ctx.L = L;
    ctx.xy = xy;
    un_sort_idx(g->order, nouter, cmp_region, &ctx, tmp);
    /* each hole goes to the smallest outer loop around its first point */
    for (k = 0; k < nl; k++) {
        double best = 0;
        parent[k] = -1;
        if (!L[k].hole) continue;
        for (j = 0; j < nouter; j++) {
            const un_loop *o = L + g->order[j];
            double ar = fabs(o->area2);
            if (o->end - o->start < 3) continue;
            if (!point_in_loop(xy + 2 * o->start, o->end - o->start, xy[2 * L[k].start] + 0.0,
                               xy[2 * L[k].start + 1]))
                continue;
            if (parent[k] < 0 || ar < best) { parent[k] = j; best = ar; }
        }
    }
    /* region r: outer loop order[r], then its holes in loop order */
    {
        int32_t n = 0, r;
        for (r = 0; r < nouter; r++) tmp[r] = g->order[r];
        for (r = 0; r < nouter; r++) {
            g->rstart[r] = n;
            g->order[n++] = tmp[r];
            for (k = 0; k < nl; k++)
                if (L[k].hole && parent[k] == r) g->order[n++] = k;
        }
        g->rstart[nouter] = n;
        g->nregions = nouter;
    }
done:
    free(parent);
    free(tmp);
    return s;
}

void un_regions_free(un_regions *g)
{
    free(g->order);
    free(g->rstart);
    memset(g, 0, sizeof *g);
}

/* Boundary length of rings v[0..k). */
double un_rings_length(const un_ring_view *v, int32_t k)
{
    double len = 0;
    int32_t r, i;
    for (r = 0; r < k; r++)
        for (i = 0; i < v[r].n; i++) {
            const double *a = v[r].xy + 2 * i, *b = v[r].xy + 2 * ((i + 1) % v[r].n);
            len += hypot(b[0] - a[0], b[1] - a[1]);
        }
    return len;
}

void un_rings_point_at(const un_ring_view *v, int32_t k, double frac, double out[2])
{
    double total, target, acc = 0;
    int32_t r, i;
    out[0] = v[0].xy[0];
    out[1] = v[0].xy[1];
    total = un_rings_length(v, k);
    if (!(frac > 0) || !(frac < 1) || total <= 0) return;
    target = frac * total;
    for (r = 0; r < k; r++)
        for (i = 0; i < v[r].n; i++) {
            const double *a = v[r].xy + 2 * i, *b = v[r].xy + 2 * ((i + 1) % v[r].n);
            double e = hypot(b[0] - a[0], b[1] - a[1]);
            if (e > 0 && acc + e >= target) {
                double t = (target - acc) / e;
                out[0] = a[0] + t * (b[0] - a[0]);
                out[1] = a[1] + t * (b[1] - a[1]);
                return;
            }
            acc += e;
        }
}

void un_rings_vertex_at(const un_ring_view *v, int32_t k, double frac, double out[2])
{
    int64_t n = 0, i;
    int32_t r;
    out[0] = v[0].xy[0];
    out[1] = v[0].xy[1];
    for (r = 0; r < k; r++) n += v[r].n;
    if (!(frac > 0) || !(frac < 1) || n <= 0) return;
    i = (int64_t)(frac * (double)n);
    if (i >= n) i = n - 1;
    for (r = 0; r < k; i -= v[r].n, r++)
        if (i < v[r].n) {
            out[0] = v[r].xy[2 * i];
            out[1] = v[r].xy[2 * i + 1];
            return;
        }
}

int32_t un_region_views(const un_arr *w, const un_regions *g, int32_t r, un_ring_view *v, int32_t cap)
{
    const un_loop *L = un_arr_loops(w);
    const double *xy = un_arr_xy(w);
    int32_t k, n = 0;
    for (k = g->rstart[r]; k < g->rstart[r + 1] && n < cap; k++) {
        const un_loop *l = L + g->order[k];
        v[n].xy = xy + 2 * l->start;
        v[n].n = l->end - l->start;
        n++;
    }
    return n;
}
