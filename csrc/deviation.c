/*
 * deviation.c - how far a simplified result reaches beyond its input,
 * measured.
 *
 * The largest distance from a point of the result to the input region (0
 * inside it), sampled at 33 points along every edge of the result (refined
 * around the best one) and on a grid inside it (refined by a pattern
 * search), for the filled holes and closed notches that lie inside.
 * Callers also keep the bookkeeping of their steps and report the larger of
 * the two.  Distances and parities come from edge indexes of the input and
 * the result (edgeindex.c).
 */
#include "internal.h"

#include <math.h>

/* The farthest point from the input may lie inside the result (a filled
 * hole, a closed notch): a 48 x 48 grid over the result, then a pattern
 * search from the best grid point, staying inside the result. */
static double interior_max(const un_frings *result, const un_edgeindex *inside, const un_edgeindex *input,
                           double best)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, bx = 0, by = 0, fb = -1, step;
    int32_t i, j;
    /* an empty result (an input without area on the grid) has no inside,
     * and its infinite box would make every sample NaN */
    if (result->nrings == 0) return best;
    un_frings_bbox(result, lo, hi);
    for (i = 0; i < 48; i++)
        for (j = 0; j < 48; j++) {
            double x = lo[0] + (i + 0.5) * (hi[0] - lo[0]) / 48, y = lo[1] + (j + 0.5) * (hi[1] - lo[1]) / 48, f;
            if (!un_edgeindex_inside(inside, x, y)) continue;
            f = un_edgeindex_dist(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; }
        }
    if (fb <= 0) return best;
    step = 0.5 * ((hi[0] - lo[0]) + (hi[1] - lo[1])) / 48;
    for (i = 0; i < 60 && step > 0; i++) {
        static const double dir[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
        int moved = 0;
        for (j = 0; j < 8; j++) {
            double x = bx + step * dir[j][0], y = by + step * dir[j][1], f;
            if (!un_edgeindex_inside(inside, x, y)) continue;
            f = un_edgeindex_dist(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; moved = 1; }
        }
        if (!moved) step *= 0.5;
    }
    return fb > best ? fb : best;
}

static double edge_dist(un_edgewalk *input, const double *p, const double *q, double t)
{
    return un_edgewalk_dist(input, p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]));
}

static double edges_max(const un_frings *result, un_edgewalk *input)
{
    const double g = 0.6180339887498949;
    double best = 0;
    int32_t r, i, j, k;
    for (r = 0; r < result->nrings; r++) {
        int32_t s0 = result->start[r], n = result->start[r + 1] - s0;
        for (i = 0; i < n; i++) {
            const double *p = result->xy + 2 * (s0 + i), *q = result->xy + 2 * (s0 + (i + 1) % n);
            double f[33], a, b, x1, x2, f1, f2;
            int32_t top = 0;
            for (j = 0; j <= 32; j++) {
                f[j] = edge_dist(input, p, q, (double)j / 32);
                if (f[j] > f[top]) top = j;
            }
            if (f[top] > best) best = f[top];
            /* refine the best sample's neighbourhood by golden section */
            a = (top > 0 ? top - 1 : 0) / 32.0;
            b = (top < 32 ? top + 1 : 32) / 32.0;
            x1 = b - g * (b - a); x2 = a + g * (b - a);
            f1 = edge_dist(input, p, q, x1); f2 = edge_dist(input, p, q, x2);
            for (k = 0; k < 40; k++) {
                if (f1 > f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = edge_dist(input, p, q, x1); }
                else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = edge_dist(input, p, q, x2); }
            }
            if (f1 > best) best = f1;
            if (f2 > best) best = f2;
        }
    }
    return best;
}

un_status un_simplify_deviation(const un_frings *result, const un_frings *input, double *dev)
{
    un_edgeindex ir, ii;
    un_edgewalk w;
    un_status s;
    memset(&ir, 0, sizeof ir);
    if ((s = un_edgeindex_build(&ii, input)) == UN_OK && (s = un_edgeindex_build(&ir, result)) == UN_OK) {
        un_edgewalk_begin(&w, &ii);
        *dev = interior_max(result, &ir, &ii, edges_max(result, &w));
    }
    un_edgeindex_free(&ir);
    un_edgeindex_free(&ii);
    return s;
}
