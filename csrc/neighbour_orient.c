/*
 * neighbour_orient.c - contact orientations: the angles at which an
 * island's edges run against the edges of the placed islands it touches.
 *
 * The candidates (orient.c) put an edge of an island on an axis, which
 * recovers every piece of a tiling with an edge on the border or on a
 * straight cut.  A piece wedged between others at an angle (18 of the 201
 * Terashima pieces) has no such edge: it fits only where its edges run
 * against its neighbours' edges, at angles that depend on how those are
 * turned, that is on the layout.  So they are computed from the current
 * layout when a move asks for one:
 *
 * - a neighbour move: one edge of the island and one edge of a neighbour
 *   that touches it (each drawn by length), and the angle at which the
 *   two run against each other (antiparallel, as touching edges of two
 *   counter-clockwise outlines do);
 * - a refinement: the island's edge nearest a neighbour's edge or a wall
 *   that is nearly, but not quite, parallel to it (within REFINE_MAX_TURN),
 *   and the small turn that makes them parallel.
 *
 * Neighbours are the islands placed before it (they stay where they are
 * when the island is placed again).  The angle goes into the island's
 * contact orientations (its quarter turns) with a new version, and the
 * island is placed again by the decode: through its collision-free region
 * like any placement, so the layout stays exact whatever the angle.  The
 * geometry here only steers the search and is computed in doubles.
 */
#include "engine.h"

#include <math.h>

#define QUARTER UN_QUARTER_TURN

/* An edge of a placed island (or a wall) in grid units: its ends, length
 * and the flip of its island (touching edges of islands of different
 * flips run the same way: a mirror reverses an outline's winding). */
typedef struct {
    double  x0, y0, x1, y1, len;
    int32_t flip;
} world_edge;

void un_contact_orient_reset(un_island *is)
{
    int32_t c;
    /* the first candidates (the base's quarter turns): repeats, which the
     * contact search skips, until a move gives another angle */
    for (c = 0; c < UN_CONTACT_ORIENTS; c++) is->contact[c] = is->cand[c];
    is->contact_ver = is->contact_next = 0;
}

void un_contact_orient_set(un_island *is, double angle)
{
    int32_t c;
    if (UN_CONTACT_ORIENTS == 0 || is->contact[0] == angle) return;
    for (c = 0; c < UN_CONTACT_ORIENTS; c++) is->contact[c] = angle + c * QUARTER;
    is->contact_ver = ++is->contact_next;
}

double un_align_angle(double dx, double dy, int32_t flip, double w)
{
    /* the island maps a direction d to R(theta) F^flip d, F = diag(-1, 1) */
    double phi = atan2(dy, flip ? -dx : dx);
    return remainder(w + UN_PI - phi, 2 * UN_PI);
}

double un_parallel_turn(double a, double b)
{
    return remainder(b - a, UN_PI);
}

/* Distance from point (px, py) to segment a..b. */
static double point_segment(double px, double py, double ax, double ay, double bx, double by)
{
    double dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy, t = 0;
    if (l2 > 0) t = ((px - ax) * dx + (py - ay) * dy) / l2;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return hypot(px - ax - t * dx, py - ay - t * dy);
}

static double cross3(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

double un_segment_gap(const double a[4], const double b[4])
{
    double d1 = cross3(a[0], a[1], a[2], a[3], b[0], b[1]), d2 = cross3(a[0], a[1], a[2], a[3], b[2], b[3]);
    double d3 = cross3(b[0], b[1], b[2], b[3], a[0], a[1]), d4 = cross3(b[0], b[1], b[2], b[3], a[2], a[3]);
    double g, h;
    if (((d1 < 0 && d2 > 0) || (d1 > 0 && d2 < 0)) && ((d3 < 0 && d4 > 0) || (d3 > 0 && d4 < 0))) return 0;
    g = point_segment(a[0], a[1], b[0], b[1], b[2], b[3]);
    h = point_segment(a[2], a[3], b[0], b[1], b[2], b[3]);
    g = h < g ? h : g;
    h = point_segment(b[0], b[1], a[0], a[1], a[2], a[3]);
    g = h < g ? h : g;
    h = point_segment(b[2], b[3], a[0], a[1], a[2], a[3]);
    return h < g ? h : g;
}

/* ------------------------------------------------------ the layout's edges */

/* Append the edges of the island at position j, in place, that meet box
 * lo..hi (grid units, doubles); *n counts them, *cap their room. */
static un_status add_placed_edges(const un_engine *E, int32_t j, const double lo[2], const double hi[2],
                                  world_edge **e, int32_t *n, int32_t *cap)
{
    const un_place *q = E->pl + j;
    const un_island *is = E->isl + E->seq[j];
    const un_frings *f = &is->shape;
    double m[4], sc = un_shrink_factor(q->sigma) / E->q;
    int32_t r, i;
    un_orient_matrix(&E->os, is, q->orient, m);
    for (r = 0; r < f->nrings; r++) {
        int32_t a = f->start[r], cnt = f->start[r + 1] - a;
        for (i = 0; i < cnt; i++) {
            const double *u = f->xy + 2 * (a + i), *v = f->xy + 2 * (a + (i + 1) % cnt);
            double ux = (u[0] - is->cx) * sc, uy = (u[1] - is->cy) * sc;
            double vx = (v[0] - is->cx) * sc, vy = (v[1] - is->cy) * sc;
            world_edge w;
            w.x0 = m[0] * ux + m[1] * uy + (double)q->t.x;
            w.y0 = m[2] * ux + m[3] * uy + (double)q->t.y;
            w.x1 = m[0] * vx + m[1] * vy + (double)q->t.x;
            w.y1 = m[2] * vx + m[3] * vy + (double)q->t.y;
            w.len = hypot(w.x1 - w.x0, w.y1 - w.y0);
            w.flip = q->orient / E->os.nangles;
            if (!(w.len > 0) || fmax(w.x0, w.x1) < lo[0] || fmin(w.x0, w.x1) > hi[0] ||
                fmax(w.y0, w.y1) < lo[1] || fmin(w.y0, w.y1) > hi[1])
                continue;
            if (*n == *cap) {
                int32_t nc = *cap ? 2 * *cap : 64;
                world_edge *g = (world_edge *)realloc(*e, (size_t)nc * sizeof *g);
                if (!g) return UN_ENOMEM;
                *e = g;
                *cap = nc;
            }
            (*e)[(*n)++] = w;
        }
    }
    return UN_OK;
}

/* The container's walls as edges (clockwise: the container's inside is
 * on their right, as an island's outside is on the right of its own). */
static un_status add_walls(const un_engine *E, world_edge **e, int32_t *n, int32_t *cap)
{
    const double x0 = (double)E->clo.x, y0 = (double)E->clo.y, x1 = (double)E->chi.x, y1 = (double)E->chi.y;
    const double c[5][2] = {{x0, y0}, {x0, y1}, {x1, y1}, {x1, y0}, {x0, y0}};
    int32_t i;
    if (*cap < *n + 4) {
        world_edge *g = (world_edge *)realloc(*e, (size_t)(*n + 4) * sizeof *g);
        if (!g) return UN_ENOMEM;
        *e = g;
        *cap = *n + 4;
    }
    for (i = 0; i < 4; i++) {
        world_edge w;
        w.x0 = c[i][0]; w.y0 = c[i][1]; w.x1 = c[i + 1][0]; w.y1 = c[i + 1][1];
        w.len = hypot(w.x1 - w.x0, w.y1 - w.y0);
        w.flip = 0;
        (*e)[(*n)++] = w;
    }
    return UN_OK;
}

/* The edges near the island at position p: those of the islands placed
 * before it (in its container) within reach of its box, and with `walls`
 * the container's. */
static un_status near_edges(const un_engine *E, int32_t p, int walls, world_edge **e, int32_t *n)
{
    const un_place *q = E->pl + p;
    double reach = NEAR_RADII * (double)E->radius + CONTACT_TOL;
    double lo[2] = {(double)q->lo.x - reach, (double)q->lo.y - reach};
    double hi[2] = {(double)q->hi.x + reach, (double)q->hi.y + reach};
    int32_t j, cap = 0;
    un_status s = UN_OK;
    *n = 0;
    *e = NULL;
    for (j = 0; j < p && s == UN_OK; j++) {
        const un_place *o = E->pl + j;
        if (!o->placed || o->bin != q->bin || o->hi.x < lo[0] || o->lo.x > hi[0] || o->hi.y < lo[1] ||
            o->lo.y > hi[1])
            continue;
        s = add_placed_edges(E, j, lo, hi, e, n, &cap);
    }
    if (s == UN_OK && walls) s = add_walls(E, e, n, &cap);
    return s;
}

/* Index of an entry drawn with probability proportional to w[i]
 * (stride apart), or -1 when they sum to nothing. */
static int32_t draw_weighted(const double *w, int32_t n, size_t stride, un_rng *g)
{
    double sum = 0, u;
    int32_t i;
    for (i = 0; i < n; i++) sum += *(const double *)((const char *)w + i * stride);
    if (!(sum > 0)) return -1;
    u = un_rng_unit(g) * sum;
    for (i = 0; i < n - 1; i++) {
        u -= *(const double *)((const char *)w + i * stride);
        if (u < 0) return i;
    }
    return n - 1;
}

/* ------------------------------------------------------------- the moves */

/* The shape's edge lengths summed (`upto` < 0), or the direction of the
 * edge where the running sum passes `upto` (the last edge at worst);
 * returns the sum so far. */
static double walk_edges(const un_frings *f, double upto, double *dx, double *dy)
{
    double sum = 0;
    int32_t r, i;
    for (r = 0; r < f->nrings; r++) {
        int32_t a = f->start[r], cnt = f->start[r + 1] - a;
        for (i = 0; i < cnt; i++) {
            const double *u = f->xy + 2 * (a + i), *v = f->xy + 2 * (a + (i + 1) % cnt);
            *dx = v[0] - u[0];
            *dy = v[1] - u[1];
            sum += hypot(*dx, *dy);
            if (upto >= 0 && sum > upto) return sum;
        }
    }
    return sum;
}

/* A neighbour move: an edge of the island (local, drawn by length) against
 * an edge of a neighbour (drawn by length).  *found = 0 without one. */
static void neighbour_angle(const un_engine *E, int32_t p, const world_edge *near, int32_t nn, un_rng *g,
                            double *angle, int *found)
{
    const un_frings *f = &E->isl[E->seq[p]].shape;
    int32_t flip = E->pl[p].orient / E->os.nangles, ne;
    double dx = 0, dy = 0, sum, dir;
    const world_edge *w;
    *found = 0;
    if (nn == 0 || (ne = draw_weighted(&near[0].len, nn, sizeof *near, g)) < 0) return;
    w = near + ne;
    if (!((sum = walk_edges(f, -1, &dx, &dy)) > 0)) return;
    walk_edges(f, un_rng_unit(g) * sum, &dx, &dy);
    /* antiparallel to the neighbour's edge when both outlines wind the
     * same way in place, else parallel */
    dir = atan2(w->y1 - w->y0, w->x1 - w->x0) + (w->flip == flip ? 0 : UN_PI);
    *angle = un_align_angle(dx, dy, flip, dir);
    *found = 1;
}

/* A refinement: over the pairs of the island's edges in place and the
 * edges near it within reach, nearly parallel (a turn within
 * REFINE_MAX_TURN, more than SAME_DIRECTION), one drawn by the shorter
 * edge's length over one plus the gap in reaches; the island's angle
 * turned by that pair's turn.  *found = 0 without one. */
static un_status refine_angle(const un_engine *E, int32_t p, const world_edge *near, int32_t nn, un_rng *g,
                              double *angle, int *found)
{
    const un_place *q = E->pl + p;
    double reach = NEAR_RADII * (double)E->radius + CONTACT_TOL, *score = NULL, *turn = NULL;
    const double all_lo[2] = {-HUGE_VAL, -HUGE_VAL}, all_hi[2] = {HUGE_VAL, HUGE_VAL};
    world_edge *self = NULL;
    int32_t ns = 0, cap = 0, a, b, c, npair;
    un_status s;
    *found = 0;
    /* the island's own edges, in place */
    if ((s = add_placed_edges(E, p, all_lo, all_hi, &self, &ns, &cap)) != UN_OK) goto done;
    npair = ns * nn;
    if (npair == 0) goto done;
    score = (double *)malloc((size_t)npair * sizeof *score);
    turn = (double *)malloc((size_t)npair * sizeof *turn);
    if (!score || !turn) { s = UN_ENOMEM; goto done; }
    for (a = 0; a < ns; a++)
        for (b = 0; b < nn; b++) {
            const world_edge *x = self + a, *y = near + b;
            double ex[4] = {x->x0, x->y0, x->x1, x->y1}, ey[4] = {y->x0, y->y0, y->x1, y->y1};
            double t = un_parallel_turn(atan2(ex[3] - ex[1], ex[2] - ex[0]), atan2(ey[3] - ey[1], ey[2] - ey[0]));
            double gap;
            c = a * nn + b;
            score[c] = 0;
            turn[c] = t;
            if (fabs(t) <= SAME_DIRECTION || fabs(t) > REFINE_MAX_TURN) continue;
            if ((gap = un_segment_gap(ex, ey)) > reach) continue;
            score[c] = (x->len < y->len ? x->len : y->len) / (1 + gap / reach);
        }
    if ((c = draw_weighted(score, npair, sizeof *score, g)) >= 0) {
        *angle = remainder(un_orient_angle(&E->os, E->isl + E->seq[p], q->orient) + turn[c], 2 * UN_PI);
        *found = 1;
    }
done:
    free(self);
    free(score);
    free(turn);
    return s;
}

un_status un_contact_angle(const un_engine *E, int32_t p, int refine, un_rng *g, double *angle, int *found)
{
    world_edge *near = NULL;
    int32_t nn = 0;
    un_status s;
    *found = 0;
    if (UN_CONTACT_ORIENTS == 0 || !E->pl[p].placed) return UN_OK;
    /* a refinement may straighten an edge against a wall as well */
    s = near_edges(E, p, refine, &near, &nn);
    if (s == UN_OK && refine) s = refine_angle(E, p, near, nn, g, angle, found);
    else if (s == UN_OK) neighbour_angle(E, p, near, nn, g, angle, found);
    free(near);
    return s;
}
