/*
 * grid.c - the integer grid of a float geometry call.
 *
 * Each un_geom_* call maps its input to integers with one power-of-two step
 * chosen from the input's extent, so that every coordinate (and every sum
 * of two, as in a Minkowski sum) stays within UN_COORD_LIMIT.  The origin is
 * the centre of the input's bounding box; it cancels in translation-space
 * results (no-fit, inner-fit and collision-free regions) and is added back to
 * shapes (outlines, simplified rings).
 */
#include "internal.h"

#include <math.h>

/* Largest magnitude a call's input may reach on the grid: a quarter of the
 * coordinate limit leaves room for sums, differences and margins. */
#define GRID_HALF_EXTENT ((double)(UN_COORD_LIMIT / 4))

un_status un_grid_fit(un_grid *g, double minx, double miny, double maxx, double maxy, double extra)
{
    double r, e;
    if (!(minx <= maxx) || !(miny <= maxy)) { minx = miny = 0; maxx = maxy = 1; }
    g->ox = 0.5 * (minx + maxx);
    g->oy = 0.5 * (miny + maxy);
    r = 0.5 * (maxx - minx);
    if (0.5 * (maxy - miny) > r) r = 0.5 * (maxy - miny);
    r += extra;
    if (!isfinite(r) || !isfinite(g->ox) || !isfinite(g->oy)) return UN_ERANGE;
    if (r <= 0) r = 1;
    e = ceil(log2(r / GRID_HALF_EXTENT));
    if (e < -1000 || e > 1000) return UN_ERANGE;
    g->step = ldexp(1.0, (int)e);
    return UN_OK;
}

un_status un_frings_bbox(const un_frings *r, double *lo, double *hi)
{
    int32_t i, n = un_frings_npts(r);
    for (i = 0; i < n; i++) {
        double x = r->xy[2 * i], y = r->xy[2 * i + 1];
        if (!isfinite(x) || !isfinite(y)) return UN_EINVAL;
        if (x < lo[0]) lo[0] = x;
        if (y < lo[1]) lo[1] = y;
        if (x > hi[0]) hi[0] = x;
        if (y > hi[1]) hi[1] = y;
    }
    return UN_OK;
}

un_status un_grid_in(const un_grid *g, const un_frings *in, un_rings *out)
{
    int32_t k, i;
    un_pt *buf = NULL;
    int32_t cap = 0;
    un_status s = UN_OK;
    un_rings_clear(out);
    for (k = 0; k < in->nrings && s == UN_OK; k++) {
        int32_t a = in->start[k], n = in->start[k + 1] - a;
        if ((s = un_reserve((void **)&buf, &cap, n, sizeof *buf)) != UN_OK) break;
        for (i = 0; i < n; i++) {
            double x = (in->xy[2 * (a + i)] - g->ox) / g->step;
            double y = (in->xy[2 * (a + i) + 1] - g->oy) / g->step;
            if (!(fabs(x) <= (double)UN_COORD_LIMIT) || !(fabs(y) <= (double)UN_COORD_LIMIT)) {
                s = UN_ERANGE;
                break;
            }
            buf[i].x = un_llround(x);
            buf[i].y = un_llround(y);
        }
        if (s == UN_OK) s = un_rings_add(out, buf, n);
    }
    free(buf);
    return s;
}

un_status un_grid_out(const un_grid *g, const un_rings *in, un_frings *out, int shift)
{
    int32_t k, i;
    double *buf = NULL;
    int32_t cap = 0;
    un_status s = UN_OK;
    double ox = shift ? g->ox : 0, oy = shift ? g->oy : 0;
    for (k = 0; k < in->nrings && s == UN_OK; k++) {
        int32_t a = in->start[k], n = in->start[k + 1] - a;
        if ((s = un_reserve((void **)&buf, &cap, 2 * (int64_t)n, sizeof *buf)) != UN_OK) break;
        for (i = 0; i < n; i++) {
            buf[2 * i] = (double)in->pts[a + i].x * g->step + ox;
            buf[2 * i + 1] = (double)in->pts[a + i].y * g->step + oy;
        }
        s = un_frings_add(out, buf, n);
    }
    free(buf);
    return s;
}
