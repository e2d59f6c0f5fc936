/*
 * orient.c - orientation candidates: the angles at which an island's
 * straight edges lie parallel to the walls.
 *
 * An island turned by an arbitrary angle packs best where its edges line
 * up with the container's walls and with its neighbours' edges, which the
 * walls hold straight in turn.  Most pieces of a tiling have an edge on the
 * container's border or along a straight cut: turning that edge
 * horizontal or vertical recovers their orientation exactly, where a
 * search over a grid of angles (5 degrees apart) only comes near it.
 *
 * The candidates of an island are the quarter turns of UN_CAND_DIRS edge
 * directions: first the direction its base angle straightens (its minimal
 * bounding rectangle's side), then the directions (modulo a quarter turn)
 * that carry the most edge length, counting the edges of its shape and of
 * its convex hull (a hull edge spans a concavity, and lies against a wall
 * as well as a real edge does).
 */
#include "engine.h"

#include <math.h>

#define QUARTER UN_QUARTER_TURN

typedef struct {
    double dir;   /* direction modulo a quarter turn, [0, QUARTER) */
    double len;
} edge_dir;

/* Direction of the edge a -> b modulo a quarter turn. */
static double quarter_dir(const double *a, const double *b)
{
    double d = fmod(atan2(b[1] - a[1], b[0] - a[0]), QUARTER);
    if (d < 0) d += QUARTER;
    return d >= QUARTER ? 0 : d;
}

/* Distance between two directions modulo a quarter turn. */
static double dir_gap(double a, double b)
{
    double d = fabs(a - b);
    return d < QUARTER - d ? d : QUARTER - d;
}

static void add_edge(edge_dir *e, int32_t *n, const double *a, const double *b)
{
    double len = hypot(b[0] - a[0], b[1] - a[1]);
    if (!(len > 0)) return;
    e[*n].dir = quarter_dir(a, b);
    e[*n].len = len;
    (*n)++;
}

/* Is c strictly right of a -> b, or on its line beyond b (then b is not
 * a hull vertex after a)? */
static int beats(const double *a, const double *b, const double *c)
{
    double cr = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    if (cr != 0) return cr < 0;
    return hypot(c[0] - a[0], c[1] - a[1]) > hypot(b[0] - a[0], b[1] - a[1]);
}

/* The convex hull's edges of the shape's points (gift wrapping: the
 * shapes are small), appended to e. */
static void add_hull_edges(const un_frings *f, edge_dir *e, int32_t *n)
{
    int32_t np = un_frings_npts(f), start = 0, cur, next, i, steps;
    for (i = 1; i < np; i++) {
        const double *p = f->xy + 2 * i, *s = f->xy + 2 * start;
        if (p[1] < s[1] || (p[1] == s[1] && p[0] < s[0])) start = i;
    }
    cur = start;
    /* at most np edges: the bound also ends the loop on rounding ties */
    for (steps = 0; steps < np; steps++) {
        next = cur == 0 ? 1 % np : 0;
        for (i = 0; i < np; i++)
            if (i != cur && beats(f->xy + 2 * cur, f->xy + 2 * next, f->xy + 2 * i)) next = i;
        add_edge(e, n, f->xy + 2 * cur, f->xy + 2 * next);
        cur = next;
        if (cur == start) break;
    }
}

/* Edge length within SAME_DIRECTION of direction d. */
static double weight_of(const edge_dir *e, int32_t n, double d)
{
    double w = 0;
    int32_t i;
    for (i = 0; i < n; i++)
        if (dir_gap(e[i].dir, d) <= SAME_DIRECTION) w += e[i].len;
    return w;
}

/* The heaviest direction of e not within SAME_DIRECTION of the first
 * `got` of dirs, or -1 when every one is. */
static double heaviest_new(const edge_dir *e, int32_t n, const double *dirs, int32_t got)
{
    double best = -1, wbest = 0, lbest = 0;
    int32_t i, j;
    for (i = 0; i < n; i++) {
        double w;
        for (j = 0; j < got && dir_gap(e[i].dir, dirs[j]) > SAME_DIRECTION; j++) {}
        if (j < got) continue;
        w = weight_of(e, n, e[i].dir);
        /* ties: the longer edge's own direction (exact for that edge) */
        if (w > wbest || (w == wbest && e[i].len > lbest)) {
            wbest = w;
            lbest = e[i].len;
            best = e[i].dir;
        }
    }
    return best;
}

un_status un_orient_candidates(const un_frings *shape, double base, double cand[UN_CANDIDATES])
{
    int32_t np = un_frings_npts(shape), n = 0, got = 1, k, i, d;
    double dirs[UN_CAND_DIRS];
    edge_dir *e = (edge_dir *)malloc(2 * ((size_t)np + 1) * sizeof *e);
    if (!e) return UN_ENOMEM;
    for (k = 0; k < shape->nrings; k++) {
        int32_t a = shape->start[k], m = shape->start[k + 1] - a;
        for (i = 0; i < m; i++) add_edge(e, &n, shape->xy + 2 * (a + i), shape->xy + 2 * (a + (i + 1) % m));
    }
    if (np > 1) add_hull_edges(shape, e, &n);
    /* the base angle turns direction -base horizontal */
    dirs[0] = fmod(-base, QUARTER);
    if (dirs[0] < 0) dirs[0] += QUARTER;
    while (got < UN_CAND_DIRS) {
        double dnew = heaviest_new(e, n, dirs, got);
        if (dnew < 0) break;
        dirs[got++] = dnew;
    }
    free(e);
    /* fewer directions than slots: the first ones again (a candidate move
     * then picks those more often) */
    for (d = 0; d < UN_CAND_DIRS; d++) {
        double dir = dirs[d < got ? d : (d - got) % got];
        for (i = 0; i < 4; i++) cand[4 * d + i] = i * QUARTER - dir;
    }
    return UN_OK;
}
