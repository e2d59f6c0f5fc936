/*
 * contact.c - how much of a placed piece's boundary touches its
 * neighbours and the container's walls.
 *
 * This is the score of the contact placement (decode.c): among the vertices
 * of its collision-free regions, a piece goes where it touches the most.  A
 * jigsaw piece, or an island in a pocket of its neighbours, fits exactly
 * where the pieces around it hug it on every side, and a bottom-left point
 * is usually not that place.
 *
 * Two pieces that touch have boundary edges that run against each other:
 * antiparallel, on one line, with overlapping extents.  Placement points are
 * rounded to the grid, so "on one line" allows a tolerance of a few grid
 * units.  The score steers a heuristic and never decides feasibility (the
 * collision-free region does), so it is computed in doubles.
 */
#include "internal.h"

#include <math.h>

/* Length along which edge a0->a1 runs against edge b0->b1: the edges point
 * in opposite directions, both ends of b lie within tol of a's line, and
 * the overlap of b's projection onto a with a itself. */
static double edge_contact(double a0x, double a0y, double a1x, double a1y, double b0x, double b0y,
                           double b1x, double b1y, double tol)
{
    double dx = a1x - a0x, dy = a1y - a0y, len = sqrt(dx * dx + dy * dy), s0, s1, lo, hi;
    if (len <= 0 || dx * (b1x - b0x) + dy * (b1y - b0y) >= 0) return 0;
    if (fabs(dx * (b0y - a0y) - dy * (b0x - a0x)) > tol * len) return 0;
    if (fabs(dx * (b1y - a0y) - dy * (b1x - a0x)) > tol * len) return 0;
    s0 = (dx * (b0x - a0x) + dy * (b0y - a0y)) / len;
    s1 = (dx * (b1x - a0x) + dy * (b1y - a0y)) / len;
    lo = s0 < s1 ? s0 : s1;
    hi = s0 < s1 ? s1 : s0;
    if (lo < 0) lo = 0;
    if (hi > len) hi = len;
    return hi > lo ? hi - lo : 0;
}

/* Ring k of r: its points and count. */
static const un_pt *ring_of(const un_rings *r, int32_t k, int32_t *n)
{
    *n = r->start[k + 1] - r->start[k];
    return r->pts + r->start[k];
}

double un_contact_rings(const un_rings *a, un_pt ta, const un_rings *b, un_pt tb, double tol)
{
    double sum = 0;
    int32_t ka, kb, i, j, na, nb;
    for (ka = 0; ka < a->nrings; ka++) {
        const un_pt *pa = ring_of(a, ka, &na);
        for (i = 0; i < na; i++) {
            un_pt p = pa[i], q = pa[(i + 1) % na];
            double a0x = (double)(p.x + ta.x), a0y = (double)(p.y + ta.y);
            double a1x = (double)(q.x + ta.x), a1y = (double)(q.y + ta.y);
            double lx = (a0x < a1x ? a0x : a1x) - tol, hx = (a0x < a1x ? a1x : a0x) + tol;
            double ly = (a0y < a1y ? a0y : a1y) - tol, hy = (a0y < a1y ? a1y : a0y) + tol;
            for (kb = 0; kb < b->nrings; kb++) {
                const un_pt *pb = ring_of(b, kb, &nb);
                for (j = 0; j < nb; j++) {
                    un_pt u = pb[j], v = pb[(j + 1) % nb];
                    double b0x = (double)(u.x + tb.x), b0y = (double)(u.y + tb.y);
                    double b1x = (double)(v.x + tb.x), b1y = (double)(v.y + tb.y);
                    /* an edge outside a's box (grown by tol) cannot touch it */
                    if ((b0x < lx && b1x < lx) || (b0x > hx && b1x > hx) ||
                        (b0y < ly && b1y < ly) || (b0y > hy && b1y > hy))
                        continue;
                    sum += edge_contact(a0x, a0y, a1x, a1y, b0x, b0y, b1x, b1y, tol);
                }
            }
        }
    }
    return sum;
}

double un_contact_walls(const un_rings *a, un_pt ta, un_pt lo, un_pt hi, double reach)
{
    double sum = 0;
    int32_t k, i, n;
    for (k = 0; k < a->nrings; k++) {
        const un_pt *pa = ring_of(a, k, &n);
        for (i = 0; i < n; i++) {
            un_pt p = pa[i], q = pa[(i + 1) % n];
            double x0 = (double)(p.x + ta.x), y0 = (double)(p.y + ta.y);
            double x1 = (double)(q.x + ta.x), y1 = (double)(q.y + ta.y);
            /* an edge within reach of a wall (or beyond it) lies along it
             * for the length of its extent parallel to that wall */
            if (x0 <= (double)lo.x + reach && x1 <= (double)lo.x + reach) sum += fabs(y1 - y0);
            if (x0 >= (double)hi.x - reach && x1 >= (double)hi.x - reach) sum += fabs(y1 - y0);
            if (y0 <= (double)lo.y + reach && y1 <= (double)lo.y + reach) sum += fabs(x1 - x0);
            if (y0 >= (double)hi.y - reach && y1 >= (double)hi.y - reach) sum += fabs(x1 - x0);
        }
    }
    return sum;
}
