/*
 * obstacle_cores.c - cores of obstacles (convex boxes inside a no-fit
 * polygon), and the culling of obstacle edges inside them.
 *
 * A collision-free region is traced from the arrangement of all the no-fit
 * polygons around it (cfr.c), yet in a packed layout most of their edges lie
 * deep inside a neighbour's no-fit polygon and bound nothing.  A core of an
 * open obstacle O is a convex quadrilateral K whose closure lies inside O
 * (usually an axis-aligned box, rotated with its obstacle in the engine).
 * Culling replaces every run of two or more edges of an obstacle ring that
 * lies in one core K by the chord between the run's ends.
 *
 * Why the free set stays exactly the same: chain and chord lie in convex K,
 * so the closed curve they form lies in the chain's bounding box (inside K)
 * and the ring's winding number changes only there, by at most that curve's
 * edge count.  For every core that culled something cfr.c adds the box of
 * its culled runs (its "span", one unit larger but still inside K; K itself
 * when K is not axis-aligned) as a solid of weight W = (all those edge counts together) + (number of
 * obstacles) + 1, so that
 *   - a point inside a span has winding at least nobs + 1 (it is covered,
 *     and truly: K lies in O), and
 *   - a point outside every span has its original winding, at most nobs.
 * The arrangement is told that threshold (un_verifier.deep): edges and
 * vertices next to a winding at or above it are covered, whatever the
 * per-solid counts of their edges say (those no longer count solids there).
 * Culling pays only on large inputs (cfr.c decides): the spans' edges cross
 * the kept edges, and at 200 placed islands 31,000 edges become 5,200.
 *
 * A core that pokes out of its obstacle (the engine rotates cached cores,
 * which rounds their corners) only makes the answer conservative: its
 * points count as covered, and the arrangement then traces the free side of
 * its edges as a boundary.  un_core_find checks its boxes exactly.
 */
#include "internal.h"

#include <math.h>

/* Smallest core side worth keeping, in grid units: thinner boxes hold no
 * run of edges, and rounding a rotated one could make it non-convex. */
#define CORE_MIN_SIDE 8
/* Distance kept from the obstacle's edges (grid units, in every direction):
 * more than the double arithmetic of the growth can be off by, and more
 * than rounding a rotated copy of core and obstacle can move them. */
#define CORE_CLEARANCE 2

/* ------------------------------------------------------------ finding */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Edge i of ring k of r: point i (a) and its cyclic successor (b). */
#define RING_EDGE(r, k, i, a, b)                                                  \
    do {                                                                          \
        int32_t s_ = (r)->start[k], n_ = (r)->start[(k) + 1] - s_;                \
        (a) = (r)->pts[s_ + (i)];                                                 \
        (b) = (r)->pts[s_ + ((i) + 1 == n_ ? 0 : (i) + 1)];                       \
    } while (0)

/* The midpoint of the widest interval of the line y = v inside rings
 * r0..r1 (parity rule); v is a half-integer, so it passes no vertex. */
static int scan_seed(const un_rings *r, int32_t r0, int32_t r1, double v, double *xs, double *cx)
{
    int32_t k, i, n = 0;
    double best = 0;
    for (k = r0; k < r1; k++)
        for (i = 0; i < r->start[k + 1] - r->start[k]; i++) {
            un_pt a, b;
            RING_EDGE(r, k, i, a, b);
            if (((double)a.y > v) != ((double)b.y > v))
                xs[n++] = (double)a.x + (v - (double)a.y) * (double)(b.x - a.x) / (double)(b.y - a.y);
        }
    qsort(xs, (size_t)n, sizeof *xs, cmp_double);
    for (i = 0; i + 1 < n; i += 2)
        if (xs[i + 1] - xs[i] > best) {
            best = xs[i + 1] - xs[i];
            *cx = 0.5 * (xs[i] + xs[i + 1]);
        }
    return best > 0;
}

/* max(|u0 + t du|, |v0 + t dv|) at t, t clamped to [0, 1]. */
static double linf_at(double u0, double du, double v0, double dv, double t)
{
    double u, v;
    if (!(t > 0)) t = 0;   /* also catches NaN from a zero divisor */
    if (t > 1) t = 1;
    u = fabs(u0 + t * du);
    v = fabs(v0 + t * dv);
    return u > v ? u : v;
}

/* L-infinity distance from (cx, cy) to segment ab: the half side of the
 * largest square around the point that misses the segment.  The maximum of
 * two absolute linear functions is smallest at an end, at a zero of one of
 * them, or where they are equal. */
static double linf_dist(double cx, double cy, un_pt a, un_pt b)
{
    double u0 = (double)a.x - cx, v0 = (double)a.y - cy;
    double du = (double)(b.x - a.x), dv = (double)(b.y - a.y);
    double t[6], best = HUGE_VAL;
    int i;
    t[0] = 0; t[1] = 1;
    t[2] = du != 0 ? -u0 / du : 0;
    t[3] = dv != 0 ? -v0 / dv : 0;
    t[4] = du != dv ? (v0 - u0) / (du - dv) : 0;
    t[5] = du != -dv ? -(u0 + v0) / (du + dv) : 0;
    for (i = 0; i < 6; i++) {
        double d = linf_at(u0, du, v0, dv, t[i]);
        if (d < best) best = d;
    }
    return best;
}

/* L-infinity distance from (cx, cy) to the bounding box of segment ab (0
 * inside it): a lower bound of linf_dist. */
static double box_linf(double cx, double cy, un_pt a, un_pt b)
{
    double x0 = (double)(a.x < b.x ? a.x : b.x), x1 = (double)(a.x < b.x ? b.x : a.x);
    double y0 = (double)(a.y < b.y ? a.y : b.y), y1 = (double)(a.y < b.y ? b.y : a.y);
    double dx = cx < x0 ? x0 - cx : cx > x1 ? cx - x1 : 0;
    double dy = cy < y0 ? y0 - cy : cy > y1 ? cy - y1 : 0;
    return dx > dy ? dx : dy;
}

/* Push side `dir` of box b (0: right, 1: top, 2: left, 3: bottom; b is
 * x0, y0, x1, y1) out to CORE_CLEARANCE short of the nearest edge of the
 * rings that lies in the box's slab on that side. */
static void grow_side(const un_rings *r, int32_t r0, int32_t r1, int dir, double b[4])
{
    int axis = dir & 1, sgn = dir < 2 ? 1 : -1;
    /* in (u, w) coordinates the box grows towards +u */
    double wlo = b[1 - axis], whi = b[3 - axis];
    double ufar = sgn > 0 ? b[2 + axis] : -b[axis], ulim = HUGE_VAL;
    int32_t k, i;
    for (k = r0; k < r1; k++)
        for (i = 0; i < r->start[k + 1] - r->start[k]; i++) {
            un_pt a, c;
            double au, aw, cu, cw, tlo = 0, thi = 1, u1, u2;
            RING_EDGE(r, k, i, a, c);
            au = sgn * (double)(axis ? a.y : a.x);
            cu = sgn * (double)(axis ? c.y : c.x);
            aw = (double)(axis ? a.x : a.y);
            cw = (double)(axis ? c.x : c.y);
            if ((aw < wlo && cw < wlo) || (aw > whi && cw > whi)) continue;
            if (aw != cw) {
                double ta = (wlo - aw) / (cw - aw), tb = (whi - aw) / (cw - aw);
                tlo = ta < tb ? ta : tb;
                thi = ta < tb ? tb : ta;
                if (tlo < 0) tlo = 0;
                if (thi > 1) thi = 1;
            }
            u1 = au + tlo * (cu - au);
            u2 = au + thi * (cu - au);
            if (u2 < u1) u1 = u2;
            if (u1 >= ufar && u1 < ulim) ulim = u1;
        }
    if (ulim == HUGE_VAL) return;
    ulim = floor(ulim) - CORE_CLEARANCE;
    if (ulim <= ufar) return;
    if (sgn > 0) b[2 + axis] = ulim;
    else b[axis] = -ulim;
}

/* Does segment ab meet the closed box lo..hi?  Exact. */
static int seg_meets_box(un_pt a, un_pt b, un_pt lo, un_pt hi)
{
    un_pt q[4];
    int i, pos = 0, neg = 0;
    if ((a.x < lo.x && b.x < lo.x) || (a.x > hi.x && b.x > hi.x) ||
        (a.y < lo.y && b.y < lo.y) || (a.y > hi.y && b.y > hi.y))
        return 0;
    un_box_corners(lo, hi, q);
    for (i = 0; i < 4; i++) {
        int o = un_orient(a, b, q[i]);
        pos |= o >= 0;
        neg |= o <= 0;
    }
    return pos && neg;   /* the line through ab meets the box */
}

/* Is the closed box lo..hi inside the open set of rings r0..r1?  Exact: no
 * edge meets the box, and its corner lo is inside by the parity rule. */
static int box_inside(const un_rings *r, int32_t r0, int32_t r1, un_pt lo, un_pt hi)
{
    int32_t k, i;
    int in = 0;
    un_rpt at;
    for (k = r0; k < r1; k++)
        for (i = 0; i < r->start[k + 1] - r->start[k]; i++) {
            un_pt a, b;
            RING_EDGE(r, k, i, a, b);
            if (seg_meets_box(a, b, lo, hi)) return 0;
        }
    /* no edge passes lo, so it is strictly inside or outside each ring */
    at.base = lo;
    at.dx = at.dy = at.n = 0;
    at.d = 1;
    for (k = r0; k < r1; k++) in ^= un_rpt_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], &at);
    return in;
}

static void core_from_box(un_pt lo, un_pt hi, un_core *c)
{
    un_box_corners(lo, hi, c->q);
    c->lo = lo;
    c->hi = hi;
    c->box = 1;
    c->tag = -1;
}

un_status un_core_find(const un_rings *r, int32_t r0, int32_t r1, un_pt lo, un_pt hi, double **scratch,
                       int32_t *cap, un_core *core, int *found)
{
    int32_t k, n = 0;
    double cx = 0, cy, half = HUGE_VAL, b[4];
    un_pt blo, bhi, glo, ghi;
    *found = 0;
    for (k = r0; k < r1; k++) n += r->start[k + 1] - r->start[k];
    if (n < 3 || hi.x - lo.x < CORE_MIN_SIDE || hi.y - lo.y < CORE_MIN_SIDE) return UN_OK;
    UN_TRY(un_reserve((void **)scratch, cap, n, sizeof **scratch));
    /* seed: the middle of the widest inside stretch of the middle line */
    cy = floor(0.5 * ((double)lo.y + (double)hi.y)) + 0.5;
    if (!scan_seed(r, r0, r1, cy, *scratch, &cx)) return UN_OK;
    /* the largest square around the seed, then each side pushed out */
    for (k = r0; k < r1; k++) {
        int32_t i;
        for (i = 0; i < r->start[k + 1] - r->start[k]; i++) {
            un_pt a, c;
            double d;
            RING_EDGE(r, k, i, a, c);
            /* the distance to the edge is at least that to its box: skip
             * edges whose box is no nearer than the nearest edge so far */
            if (box_linf(cx, cy, a, c) >= half) continue;
            d = linf_dist(cx, cy, a, c);
            if (d < half) half = d;
        }
    }
    half -= CORE_CLEARANCE;
    if (!(half > 0.5 * CORE_MIN_SIDE)) return UN_OK;
    b[0] = ceil(cx - half); b[1] = ceil(cy - half);
    b[2] = floor(cx + half); b[3] = floor(cy + half);
    /* right, left, then top and bottom over the whole width */
    grow_side(r, r0, r1, 0, b);
    grow_side(r, r0, r1, 2, b);
    grow_side(r, r0, r1, 1, b);
    grow_side(r, r0, r1, 3, b);
    blo.x = (int64_t)b[0]; blo.y = (int64_t)b[1];
    bhi.x = (int64_t)b[2]; bhi.y = (int64_t)b[3];
    if (!box_inside(r, r0, r1, blo, bhi)) return UN_OK;
    /* the growth keeps its clearance only towards the side it grows: make
     * sure of it all round (a rotated copy rounds by up to a unit) */
    glo.x = blo.x - CORE_CLEARANCE; glo.y = blo.y - CORE_CLEARANCE;
    ghi.x = bhi.x + CORE_CLEARANCE; ghi.y = bhi.y + CORE_CLEARANCE;
    if (!box_inside(r, r0, r1, glo, ghi)) {
        blo.x += CORE_CLEARANCE; blo.y += CORE_CLEARANCE;
        bhi.x -= CORE_CLEARANCE; bhi.y -= CORE_CLEARANCE;
    }
    if (bhi.x - blo.x < CORE_MIN_SIDE || bhi.y - blo.y < CORE_MIN_SIDE) return UN_OK;
    core_from_box(blo, bhi, core);
    *found = 1;
    return UN_OK;
}

int un_core_transform(const un_core *in, const double m[4], un_pt off, un_core *out)
{
    int mirror = m[0] * m[3] - m[1] * m[2] < 0;
    int i;
    for (i = 0; i < 4; i++) {
        /* a mirror reverses the order: keep the quadrilateral counter-clockwise */
        un_pt p = in->q[mirror ? 3 - i : i];
        double x = (double)p.x, y = (double)p.y;
        out->q[i].x = un_llround(m[0] * x + m[1] * y) + off.x;
        out->q[i].y = un_llround(m[2] * x + m[3] * y) + off.y;
    }
    out->lo = out->hi = out->q[0];
    for (i = 0; i < 4; i++) {
        /* rounding must leave it strictly convex: chords rely on that */
        if (un_orient(out->q[i], out->q[(i + 1) & 3], out->q[(i + 2) & 3]) <= 0) return 0;
        if (out->q[i].x < out->lo.x) out->lo.x = out->q[i].x;
        if (out->q[i].y < out->lo.y) out->lo.y = out->q[i].y;
        if (out->q[i].x > out->hi.x) out->hi.x = out->q[i].x;
        if (out->q[i].y > out->hi.y) out->hi.y = out->q[i].y;
    }
    /* quarter turns keep a box a box */
    out->box = (out->q[0].x == out->q[1].x || out->q[0].y == out->q[1].y) &&
               (out->q[1].x == out->q[2].x || out->q[1].y == out->q[2].y);
    out->tag = in->tag;
    return 1;
}

/* Is p in the closed core c? */
static int core_has(const un_core *c, un_pt p)
{
    int i;
    if (p.x < c->lo.x || p.x > c->hi.x || p.y < c->lo.y || p.y > c->hi.y) return 0;
    if (c->box) return 1;
    for (i = 0; i < 4; i++)
        if (un_orient(c->q[i], c->q[(i + 1) & 3], p) < 0) return 0;
    return 1;
}

int un_core_has_box(const un_core *c, un_pt lo, un_pt hi)
{
    un_pt p;
    p.x = hi.x; p.y = lo.y;
    if (!core_has(c, lo) || !core_has(c, hi) || !core_has(c, p)) return 0;
    p.x = lo.x; p.y = hi.y;
    return core_has(c, p);
}

/* ------------------------------------------------------------ culling */

void un_coreset_init(un_coreset *cs)
{
    memset(cs, 0, sizeof *cs);
}

void un_coreset_free(un_coreset *cs)
{
    free(cs->cores);
    free(cs->cell);
    free(cs->item);
    free(cs->span);
    un_coreset_init(cs);
}

un_status un_coreset_add(un_coreset *cs, const un_core *c, un_pt off, int32_t tag)
{
    un_core *d;
    int i;
    UN_TRY(UN_RESERVE(cs->cores, cs->cap_cores, (int64_t)cs->n + 1));
    UN_TRY(UN_RESERVE(cs->span, cs->cap_span, 2 * ((int64_t)cs->n + 1)));
    d = cs->cores + cs->n;
    for (i = 0; i < 4; i++) {
        d->q[i].x = c->q[i].x + off.x;
        d->q[i].y = c->q[i].y + off.y;
    }
    d->lo.x = c->lo.x + off.x; d->lo.y = c->lo.y + off.y;
    d->hi.x = c->hi.x + off.x; d->hi.y = c->hi.y + off.y;
    d->box = c->box;
    d->tag = tag;
    /* empty span: lo above hi */
    cs->span[2 * cs->n] = d->hi;
    cs->span[2 * cs->n + 1] = d->lo;
    cs->n++;
    return UN_OK;
}

/* Cell range of [a, b] along one axis of the index. */
static void cell_span(int64_t a, int64_t b, int64_t o, int64_t size, int32_t g, int32_t *c0, int32_t *c1)
{
    int64_t x = (a - o) / size, y = (b - o) / size;
    *c0 = (int32_t)(x < 0 ? 0 : x >= g ? g - 1 : x);
    *c1 = (int32_t)(y < 0 ? 0 : y >= g ? g - 1 : y);
}

un_status un_coreset_index(un_coreset *cs)
{
    int32_t i, g = 1, c, total = 0;
    un_pt lo, hi;
    if (cs->n == 0) return UN_OK;
    while (g < 128 && g * g < 4 * cs->n) g++;   /* about 4 cells per core */
    lo = cs->cores[0].lo;
    hi = cs->cores[0].hi;
    for (i = 1; i < cs->n; i++) {
        if (cs->cores[i].lo.x < lo.x) lo.x = cs->cores[i].lo.x;
        if (cs->cores[i].lo.y < lo.y) lo.y = cs->cores[i].lo.y;
        if (cs->cores[i].hi.x > hi.x) hi.x = cs->cores[i].hi.x;
        if (cs->cores[i].hi.y > hi.y) hi.y = cs->cores[i].hi.y;
    }
    cs->g = g;
    cs->o = lo;
    cs->size.x = (hi.x - lo.x) / g + 1;
    cs->size.y = (hi.y - lo.y) / g + 1;
    UN_TRY(UN_RESERVE(cs->cell, cs->cap_cell, (int64_t)g * g + 1));
    memset(cs->cell, 0, ((size_t)g * g + 1) * sizeof *cs->cell);
    /* counting sort of (cell, core) pairs: count, prefix, fill */
    for (i = 0; i < cs->n; i++) {
        int32_t x0, x1, y0, y1, x, y;
        cell_span(cs->cores[i].lo.x, cs->cores[i].hi.x, lo.x, cs->size.x, g, &x0, &x1);
        cell_span(cs->cores[i].lo.y, cs->cores[i].hi.y, lo.y, cs->size.y, g, &y0, &y1);
        for (y = y0; y <= y1; y++)
            for (x = x0; x <= x1; x++) cs->cell[y * g + x + 1]++;
        total += (x1 - x0 + 1) * (y1 - y0 + 1);
    }
    for (c = 0; c < g * g; c++) cs->cell[c + 1] += cs->cell[c];
    UN_TRY(UN_RESERVE(cs->item, cs->cap_item, total));
    for (i = 0; i < cs->n; i++) {
        int32_t x0, x1, y0, y1, x, y;
        cell_span(cs->cores[i].lo.x, cs->cores[i].hi.x, lo.x, cs->size.x, g, &x0, &x1);
        cell_span(cs->cores[i].lo.y, cs->cores[i].hi.y, lo.y, cs->size.y, g, &y0, &y1);
        for (y = y0; y <= y1; y++)
            for (x = x0; x <= x1; x++) cs->item[cs->cell[y * g + x]++] = i;
    }
    /* the fill advanced every start to the next cell's: shift back */
    for (c = g * g; c > 0; c--) cs->cell[c] = cs->cell[c - 1];
    cs->cell[0] = 0;
    return UN_OK;
}

/* Items of the cell holding p: [*a, *b) of cs->item (empty outside). */
static void cell_of(const un_coreset *cs, un_pt p, int32_t *a, int32_t *b)
{
    int64_t x = (p.x - cs->o.x), y = (p.y - cs->o.y);
    int32_t c;
    *a = *b = 0;
    if (cs->n == 0 || x < 0 || y < 0) return;
    x /= cs->size.x;
    y /= cs->size.y;
    if (x >= cs->g || y >= cs->g) return;
    c = (int32_t)(y * cs->g + x);
    *a = cs->cell[c];
    *b = cs->cell[c + 1];
}

/* Is p in any core? */
static int in_any(const un_coreset *cs, un_pt p)
{
    int32_t a, b;
    cell_of(cs, p, &a, &b);
    for (; a < b; a++)
        if (core_has(cs->cores + cs->item[a], p)) return 1;
    return 0;
}

/* The longest run of points p[i], p[i+1], ... (cyclic, at most left edges)
 * inside one core that holds p[i] and p[i+1]: its edge count (1 when no
 * core holds both), and the core in *core. */
static int32_t longest_run(const un_coreset *cs, const un_pt *p, int32_t m, int32_t i, int32_t left,
                           int32_t *core)
{
    int32_t a, b, best = 1, nx = i + 1 == m ? 0 : i + 1;
    *core = -1;
    cell_of(cs, p[i], &a, &b);
    for (; a < b; a++) {
        const un_core *c = cs->cores + cs->item[a];
        int32_t len = 1, j = nx;
        if (!core_has(c, p[i]) || !core_has(c, p[nx])) continue;
        while (len < left) {
            j = j + 1 == m ? 0 : j + 1;
            if (!core_has(c, p[j])) break;
            len++;
        }
        if (len > best) { best = len; *core = cs->item[a]; }
    }
    return best;
}

int32_t un_coreset_cull(un_coreset *cs, const un_pt *p, int32_t m, un_pt *out, int64_t *err)
{
    int32_t s = 0, pos, done = 0, n = 0;
    if (m < 3 || cs->n == 0) {
        memcpy(out, p, (size_t)m * sizeof *p);
        return m;
    }
    /* start at a point outside every core when there is one, so that no
     * run is cut in two where the walk closes */
    while (s < m && in_any(cs, p[s])) s++;
    if (s == m) s = 0;
    pos = s;
    out[n++] = p[s];
    while (done < m) {
        int32_t core, len = longest_run(cs, p, m, pos, m - done, &core);
        if (len >= 2) {
            /* the chain pos .. pos+len and its chord: a closed curve of
             * len + 1 edges inside the core, and inside the chain's box */
            int32_t t, j = pos;
            un_pt *lo = cs->span + 2 * core, *hi = lo + 1;
            *err += len + 1;
            for (t = 0; t <= len; t++, j = j + 1 == m ? 0 : j + 1) {
                if (p[j].x < lo->x) lo->x = p[j].x;
                if (p[j].y < lo->y) lo->y = p[j].y;
                if (p[j].x > hi->x) hi->x = p[j].x;
                if (p[j].y > hi->y) hi->y = p[j].y;
            }
        }
        pos = (int32_t)(((int64_t)pos + len) % m);
        done += len;
        if (done < m) out[n++] = p[pos];
    }
    return n >= 3 ? n : 0;
}
