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

/* Edge i of ring k of r, translated by t: e = (x0, y0, x1, y1).  Returns
 * the ring's point count (0: no edge i). */
static int32_t edge_at(const un_rings *r, int32_t k, int32_t i, un_pt t, double e[4])
{
    int32_t n = r->start[k + 1] - r->start[k];
    const un_pt *ring = r->pts + r->start[k];
    if (i >= n) return 0;
    e[0] = (double)(ring[i].x + t.x);
    e[1] = (double)(ring[i].y + t.y);
    e[2] = (double)(ring[(i + 1) % n].x + t.x);
    e[3] = (double)(ring[(i + 1) % n].y + t.y);
    return n;
}

double un_contact_rings(const un_rings *a, un_pt ta, const un_rings *b, un_pt tb, double tol)
{
    double sum = 0, ea[4], eb[4], blo[2] = {HUGE_VAL, HUGE_VAL}, bhi[2] = {-HUGE_VAL, -HUGE_VAL};
    int32_t ka, kb, i, j;
    for (i = 0; i < un_rings_npts(b); i++) {
        double x = (double)(b->pts[i].x + tb.x), y = (double)(b->pts[i].y + tb.y);
        blo[0] = x < blo[0] ? x : blo[0]; bhi[0] = x > bhi[0] ? x : bhi[0];
        blo[1] = y < blo[1] ? y : blo[1]; bhi[1] = y > bhi[1] ? y : bhi[1];
    }
    for (ka = 0; ka < a->nrings; ka++)
        for (i = 0; edge_at(a, ka, i, ta, ea); i++) {
            double lx = (ea[0] < ea[2] ? ea[0] : ea[2]) - tol, hx = (ea[0] < ea[2] ? ea[2] : ea[0]) + tol;
            double ly = (ea[1] < ea[3] ? ea[1] : ea[3]) - tol, hy = (ea[1] < ea[3] ? ea[3] : ea[1]) + tol;
            /* away from all of b (the usual case): no edge of b can touch
             * it, and the test below would skip each one */
            if (bhi[0] < lx || blo[0] > hx || bhi[1] < ly || blo[1] > hy) continue;
            for (kb = 0; kb < b->nrings; kb++)
                for (j = 0; edge_at(b, kb, j, tb, eb); j++) {
                    /* an edge outside a's box (grown by tol) cannot touch it */
                    if ((eb[0] < lx && eb[2] < lx) || (eb[0] > hx && eb[2] > hx) ||
                        (eb[1] < ly && eb[3] < ly) || (eb[1] > hy && eb[3] > hy))
                        continue;
                    sum += edge_contact(ea[0], ea[1], ea[2], ea[3], eb[0], eb[1], eb[2], eb[3], tol);
                }
        }
    return sum;
}

double un_contact_walls(const un_rings *a, un_pt ta, un_pt lo, un_pt hi, double reach)
{
    double sum = 0, e[4];
    int32_t k, i;
    for (k = 0; k < a->nrings; k++)
        for (i = 0; edge_at(a, k, i, ta, e); i++) {
            /* an edge within reach of a wall (or beyond it) lies along it
             * for the length of its extent parallel to that wall */
            if (e[0] <= (double)lo.x + reach && e[2] <= (double)lo.x + reach) sum += fabs(e[3] - e[1]);
            if (e[0] >= (double)hi.x - reach && e[2] >= (double)hi.x - reach) sum += fabs(e[3] - e[1]);
            if (e[1] <= (double)lo.y + reach && e[3] <= (double)lo.y + reach) sum += fabs(e[2] - e[0]);
            if (e[1] >= (double)hi.y - reach && e[3] >= (double)hi.y - reach) sum += fabs(e[2] - e[0]);
        }
    return sum;
}
