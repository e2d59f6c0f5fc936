/*
 * hull.c - convex hulls on the grid (Andrew's monotone chain): the
 * simplification's fallback when no budget is met otherwise, and the float
 * entry point un_geom_hull.
 */
#include "internal.h"

#include <math.h>

static int cmp_pts(int32_t a, int32_t b, const void *ctx)
{
    const un_pt *p = (const un_pt *)ctx;
    int c = un_pt_cmp(p[a], p[b]);
    return c ? c : (a < b ? -1 : (a > b));
}

/* Monotone chain hull of all points of the outer rings (all rings when
 * hole is NULL). */
un_status un_hull_rings(const un_rings *r, const int8_t *hole, un_rings *out)
{
    int32_t n = un_rings_npts(r), i, k = 0, m = 0, t;
    int32_t *idx = (int32_t *)malloc(((size_t)n + 1) * sizeof *idx);
    int32_t *tmp = (int32_t *)malloc(((size_t)n + 1) * sizeof *tmp);
    un_pt *h = (un_pt *)malloc((2 * (size_t)n + 2) * sizeof *h);
    un_status s = UN_OK;
    if (!idx || !tmp || !h) { s = UN_ENOMEM; goto done; }
    for (t = 0; t < r->nrings; t++)
        if (!hole || !hole[t])
            for (i = r->start[t]; i < r->start[t + 1]; i++) idx[m++] = i;
    un_sort_idx(idx, m, cmp_pts, r->pts, tmp);
    for (i = 0; i < m; i++) {
        while (k >= 2 && un_orient(h[k - 2], h[k - 1], r->pts[idx[i]]) <= 0) k--;
        h[k++] = r->pts[idx[i]];
    }
    for (i = m - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && un_orient(h[k - 2], h[k - 1], r->pts[idx[i]]) <= 0) k--;
        h[k++] = r->pts[idx[i]];
    }
    un_rings_clear(out);
    if (k > 1) s = un_rings_add(out, h, k - 1);
done:
    free(idx); free(tmp); free(h);
    return s;
}

un_status un_geom_hull(const un_frings *in, un_frings *out)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_grid g;
    un_rings ir, res;
    un_status s;
    un_frings_free(out);
    if ((s = un_frings_bbox(in, lo, hi)) != UN_OK) return s;
    if ((s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    un_rings_init(&ir);
    un_rings_init(&res);
    if ((s = un_grid_in(&g, in, &ir)) == UN_OK && (s = un_hull_rings(&ir, NULL, &res)) == UN_OK &&
        (s = un_grid_out(&g, &res, out, 1)) == UN_OK)
        s = un_miter_outwards(out, g.step, 0, NULL); /* cover the rounding of the input */
    un_rings_free(&ir);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}
