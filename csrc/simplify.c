/*
 * simplify.c - conservative polygon simplification: the result contains the
 * input.
 *
 * Rings are oriented with the solid on their left (outer counter-clockwise,
 * holes clockwise).  Three operations only ever add area to the solid:
 *   chord      - remove a reflex (or straight) vertex v: the chord from its
 *                predecessor to its successor lies outside the solid;
 *   extension  - replace two convex vertices v, w by the point where the
 *                edges before v and after w meet (their turns sum to less
 *                than half a turn), on the grid and checked to still enclose
 *                v and w;
 *   fill       - remove a hole.
 * An operation is valid when the area it adds holds no vertex of any ring
 * and its new edges cross no edge, so rings stay simple and disjoint.
 *
 * Deviation is measured against the original rings: a chord deviates by the
 * largest distance of the original vertices it replaces, an extension point
 * by its distance to the original chain, a filled hole by half its smaller
 * bounding-box side.  Operations are applied cheapest first while they stay
 * within the tolerance, then further while the vertex count exceeds the
 * budget.  If the budget still cannot be met, the result is the convex hull,
 * reduced by extensions (every budget of 4 or more can be met).
 *
 * Cost: the blocking tests search a tree of boxes over the slots
 * (boxtree.c), and the measure of the deviation (deviation.c) an index over
 * the input's edges; both reach exactly the decisions and values of a scan
 * over everything, so that a ring of n points takes about n log n steps
 * rather than n^2.
 *
 * One concept from top to bottom (the heap of operations, their geometry
 * and blocking tests, applying them, the driver and its float entry
 * points), sharing one private state (simp): hence one file of about 800
 * lines.  The convex hull it falls back to is hull.c.
 */
#include "internal.h"

#include <math.h>

enum { OP_CHORD = 0, OP_EXTEND = 1, OP_FILL = 2 };

/* An operation: kind at slot v, packed as vk = 4 v + kind (16 bytes keep
 * the heap small); stamp is the slot's when it was evaluated. */
typedef struct {
    double  dev;
    int32_t vk, stamp;
} op;

#define OP_V(o)    ((o)->vk >> 2)
#define OP_KIND(o) ((o)->vk & 3)

typedef struct {
    un_pt   *p;           /* current position of every vertex slot */
    int32_t *prev, *next;
    int32_t *ring;        /* ring of the slot */
    int32_t *oa, *ob;     /* original chain covered: slots of the input */
    int32_t *stamp;       /* bumped whenever a slot or its neighbours change */
    int8_t  *alive;
    double  *edev;        /* deviation of the edge leaving the slot */
    int32_t  nslot;
    /* rings */
    int32_t *head, *count, nrings;
    int8_t  *is_hole;
    /* input, for deviations */
    const un_pt *orig;
    const int32_t *ostart;
    int32_t  total;
    /* heap */
    op      *heap;
    int32_t  nheap, capheap;
    un_boxtree tree;      /* the slot tree (see "blocking tests") */
    const volatile int *cancel;   /* read every CANCEL_EVERY steps (NULL: never) */
} simp;

/* Steps between two reads of the cancel flag: a step costs microseconds,
 * so a cancel is seen within milliseconds. */
#define CANCEL_EVERY 4096

/* ----------------------------------------------------------------- heap */

static int op_less(const op *a, const op *b)
{
    if (a->dev != b->dev) return a->dev < b->dev;
    return a->vk < b->vk;   /* by slot, then kind */
}

/* A 4-ary heap (half the depth of a binary one, for big inputs).  Which
 * heap does not matter for the result: op_less orders operations totally,
 * except copies of one (equal in all but maybe the stamp, so at most one is
 * current). */
static un_status heap_push(simp *S, op o)
{
    int32_t i;
    un_status s = UN_RESERVE(S->heap, S->capheap, (int64_t)S->nheap + 1);
    if (s != UN_OK) return s;
    i = S->nheap++;
    while (i > 0 && op_less(&o, &S->heap[(i - 1) / 4])) {
        S->heap[i] = S->heap[(i - 1) / 4];
        i = (i - 1) / 4;
    }
    S->heap[i] = o;
    return UN_OK;
}

static op heap_pop(simp *S)
{
    op top = S->heap[0], last = S->heap[--S->nheap];
    int32_t i = 0;
    for (;;) {
        int32_t c = 4 * i + 1, k, e = c + 4 < S->nheap ? c + 4 : S->nheap;
        if (c >= S->nheap) break;
        for (k = c + 1; k < e; k++)
            if (op_less(&S->heap[k], &S->heap[c])) c = k;
        if (!op_less(&S->heap[c], &last)) break;
        S->heap[i] = S->heap[c];
        i = c;
    }
    if (S->nheap) S->heap[i] = last;
    return top;
}

/* ------------------------------------------------------------ geometry */

/* The vector from (px, py) to the nearest point of segment a-b. */
static void pt_seg_vec(un_pt a, un_pt b, double px, double py, double *ex, double *ey)
{
    double dx = (double)(b.x - a.x), dy = (double)(b.y - a.y), l2 = dx * dx + dy * dy, t = 0;
    if (l2 > 0) {
        t = ((px - (double)a.x) * dx + (py - (double)a.y) * dy) / l2;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
    }
    *ex = (double)a.x + t * dx - px;
    *ey = (double)a.y + t * dy - py;
}

/* The slot after original slot k in ring r. */
static int32_t chain_next(const simp *S, int32_t r, int32_t k)
{
    return k + 1 < S->ostart[r + 1] ? k + 1 : S->ostart[r];
}

/* The extreme (largest or smallest) distance over a chain, with the exact
 * bits of hypot, the measure, but few calls to it: squares decide unless
 * they lie within a factor 1 +- UN_HYPOT_CLOSE of each other, and hypot
 * decides then.  (ex, ey, e2) is a point whose hypot is the extreme so far;
 * m is that hypot once known. */

typedef struct {
    double ex, ey, e2, m;
    int    known, sign;   /* sign: +1 largest, -1 smallest */
} extreme;

static extreme extreme_init(int sign)
{
    extreme x;
    x.ex = x.ey = 0;
    x.e2 = x.m = sign > 0 ? 0 : HUGE_VAL;
    x.known = 1;
    x.sign = sign;
    return x;
}

static void extreme_add(extreme *x, double ex, double ey)
{
    double e2 = ex * ex + ey * ey, d;
    if (x->sign * e2 < x->sign * x->e2 * (1 - x->sign * UN_HYPOT_CLOSE)) return;
    if (x->sign * e2 > x->sign * x->e2 * (1 + x->sign * UN_HYPOT_CLOSE)) {
        x->ex = ex; x->ey = ey; x->e2 = e2;
        x->known = 0;
        return;
    }
    if (!x->known) x->m = hypot(x->ex, x->ey);
    x->known = 1;
    d = hypot(ex, ey);
    if (x->sign * d > x->sign * x->m) {
        x->ex = ex; x->ey = ey; x->e2 = e2;
        x->m = d;
    }
}

static double extreme_get(const extreme *x)
{
    return x->known ? x->m : hypot(x->ex, x->ey);
}

/* The largest distance from segment u-w of the original slots a .. b of
 * ring r (cyclic, inclusive). */
static double chord_dev(const simp *S, int32_t r, int32_t a, int32_t b, un_pt u, un_pt w)
{
    extreme x = extreme_init(1);
    double ex, ey;
    int32_t k;
    for (k = a;; k = chain_next(S, r, k)) {
        pt_seg_vec(u, w, (double)S->orig[k].x, (double)S->orig[k].y, &ex, &ey);
        extreme_add(&x, ex, ey);
        if (k == b) break;
    }
    return extreme_get(&x);
}

/* The distance from (x, y) to the original chain of edges leaving slots
 * a .. b of ring r. */
static double point_chain_dist(const simp *S, int32_t r, int32_t a, int32_t b, double x, double y)
{
    extreme m = extreme_init(-1);
    double ex, ey;
    int32_t k;
    for (k = a;; k = chain_next(S, r, k)) {
        pt_seg_vec(S->orig[k], S->orig[chain_next(S, r, k)], x, y, &ex, &ey);
        extreme_add(&m, ex, ey);
        if (k == b) break;
    }
    return extreme_get(&m);
}

/* ------------------------------------------------------- blocking tests
 * The slot tree: a box tree over the slots, item i being slot i's position
 * and the edge leaving it (on the rings' own grid).  Slots are numbered in
 * input order, so a range of them is an arc of a ring and its box stays
 * small.  apply() grows the boxes where edges change and removes slots that
 * die. */

static void slot_box(const void *ctx, int32_t i, un_box *b)
{
    const simp *S = (const simp *)ctx;
    *b = un_box_of_segment(S->p[i], S->p[S->next[i]]);
}

typedef struct {
    un_pt a, b, c;          /* counter-clockwise */
    un_box box;
    const int32_t *skip;
} tri_query;

static int tri_leaf(const simp *S, int32_t i0, int32_t i1, const tri_query *t)
{
    int32_t i;
    for (i = i0; i < i1; i++) {
        un_pt q;
        if (!S->alive[i] || i == t->skip[0] || i == t->skip[1] || i == t->skip[2] || i == t->skip[3]) continue;
        q = S->p[i];
        if (q.x < t->box.lx || q.x > t->box.hx || q.y < t->box.ly || q.y > t->box.hy) continue;
        if (un_orient(t->a, t->b, q) >= 0 && un_orient(t->b, t->c, q) >= 0 && un_orient(t->c, t->a, q) >= 0)
            return 1;
    }
    return 0;
}

/* Does the closed triangle (a, b, c), of either orientation, hold a vertex
 * of any ring other than the slots listed in skip[0..4)? */
static int triangle_blocked(const simp *S, un_pt a, un_pt b, un_pt c, const int32_t *skip)
{
    tri_query t;
    un_box bc;
    un_boxwalk w;
    int32_t i0, i1;
    if (un_orient(a, b, c) < 0) { un_pt x = b; b = c; c = x; }
    t.a = a; t.b = b; t.c = c;
    t.box = un_box_of_segment(a, b);
    bc = un_box_of_segment(b, c);
    un_box_add(&t.box, &bc);
    t.skip = skip;
    un_boxwalk_begin(&w, &S->tree, &t.box);
    while (un_boxwalk_next(&w, &i0, &i1))
        if (tri_leaf(S, i0, i1, &t)) return 1;
    return 0;
}

static int seg_leaf(const simp *S, int32_t i0, int32_t i1, un_pt a, un_pt b)
{
    int32_t i;
    for (i = i0; i < i1; i++) {
        un_pt c, d;
        if (!S->alive[i]) continue;
        c = S->p[i];
        d = S->p[S->next[i]];
        if (un_orient(a, b, c) * un_orient(a, b, d) < 0 && un_orient(c, d, a) * un_orient(c, d, b) < 0) return 1;
    }
    return 0;
}

/* Does segment a-b properly cross any current edge?  (Crossing edges have
 * boxes that meet a-b's.) */
static int segment_blocked(const simp *S, un_pt a, un_pt b)
{
    un_box q = un_box_of_segment(a, b);
    un_boxwalk w;
    int32_t i0, i1;
    un_boxwalk_begin(&w, &S->tree, &q);
    while (un_boxwalk_next(&w, &i0, &i1))
        if (seg_leaf(S, i0, i1, a, b)) return 1;
    return 0;
}

/* The edge leaving slot i is now a-b. */
static void edge_changed(simp *S, int32_t i, un_pt a, un_pt b)
{
    un_box e = un_box_of_segment(a, b);
    un_boxtree_grow(&S->tree, i, &e);
}

/* Evaluate an operation at slot v; returns 0 when not possible now. */
static int eval(const simp *S, int32_t v, int kind, double *dev, un_pt *xp)
{
    int32_t r = S->ring[v];
    if (kind == OP_FILL) {
        un_pt lo, hi;
        int32_t k = S->head[r], i;
        if (!S->is_hole[r] || S->count[r] == 0 || v != S->head[r]) return 0;
        lo = hi = S->p[k];
        for (i = 0; i < S->count[r]; i++, k = S->next[k]) {
            un_pt q = S->p[k];
            if (q.x < lo.x) lo.x = q.x;
            if (q.y < lo.y) lo.y = q.y;
            if (q.x > hi.x) hi.x = q.x;
            if (q.y > hi.y) hi.y = q.y;
        }
        *dev = 0.5 * (double)((hi.x - lo.x) < (hi.y - lo.y) ? (hi.x - lo.x) : (hi.y - lo.y));
        return 1;
    }
    if (S->count[r] <= 3) return 0;
    if (kind == OP_CHORD) {
        int32_t u = S->prev[v], w = S->next[v];
        int32_t skip[4];
        if (un_orient(S->p[u], S->p[v], S->p[w]) > 0) return 0;
        skip[0] = u; skip[1] = v; skip[2] = w; skip[3] = -1;
        if (triangle_blocked(S, S->p[u], S->p[v], S->p[w], skip)) return 0;
        *dev = chord_dev(S, r, S->oa[u], S->ob[w], S->p[u], S->p[w]);
        if (S->edev[u] > *dev) *dev = S->edev[u];
        if (S->edev[v] > *dev) *dev = S->edev[v];
        return 1;
    } else {
        /* extension of edges (u, v) and (w, z) through X, replacing v, w */
        int32_t u = S->prev[v], w = S->next[v], z = S->next[w], k;
        un_pt pu = S->p[u], pv = S->p[v], pw = S->p[w], pz = S->p[z], best;
        int64_t d1x = pv.x - pu.x, d1y = pv.y - pu.y, d2x = pz.x - pw.x, d2y = pz.y - pw.y;
        int64_t den = un_cross(d1x, d1y, d2x, d2y);
        double s, X, Y, bestdev = HUGE_VAL;
        int32_t skip[4];
        if (S->count[r] < 4) return 0;
        if (un_orient(pu, pv, pw) <= 0 || un_orient(pv, pw, pz) <= 0 || den <= 0) return 0;
        s = (double)un_cross(pw.x - pv.x, pw.y - pv.y, d2x, d2y) / (double)den;
        if (!(s >= 0)) return 0;
        X = (double)pv.x + s * (double)d1x;
        Y = (double)pv.y + s * (double)d1y;
        if (fabs(X) > (double)UN_COORD_LIMIT || fabs(Y) > (double)UN_COORD_LIMIT) return 0;
        skip[0] = u; skip[1] = v; skip[2] = w; skip[3] = z;
        /* nearest grid points around X that still enclose v and w */
        for (k = 0; k < 4; k++) {
            un_pt q;
            double d;
            q.x = (int64_t)(k & 1 ? ceil(X) : floor(X));
            q.y = (int64_t)(k & 2 ? ceil(Y) : floor(Y));
            if (un_orient(pu, q, pv) < 0 || un_orient(q, pz, pw) < 0) continue;
            if (un_orient(pu, q, pz) <= 0) continue;
            d = point_chain_dist(S, r, S->oa[v], S->ob[w], (double)q.x, (double)q.y);
            if (d < bestdev) { bestdev = d; best = q; }
        }
        if (bestdev == HUGE_VAL) return 0;
        if (triangle_blocked(S, pv, best, pw, skip) || segment_blocked(S, pu, best) ||
            segment_blocked(S, best, pz))
            return 0;
        if (S->edev[u] > bestdev) bestdev = S->edev[u];
        if (S->edev[w] > bestdev) bestdev = S->edev[w];
        *dev = bestdev;
        *xp = best;
        return 1;
    }
}

static un_status push_ops(simp *S, int32_t v)
{
    int kind;
    for (kind = OP_CHORD; kind <= OP_FILL; kind++) {
        double dev;
        un_pt x;
        op o;
        if (!S->alive[v] || !eval(S, v, kind, &dev, &x)) continue;
        o.dev = dev;
        o.vk = 4 * v + kind;
        o.stamp = S->stamp[v];
        if (heap_push(S, o) != UN_OK) return UN_ENOMEM;
    }
    return UN_OK;
}

static void touch(simp *S, int32_t v)
{
    S->stamp[v]++;
    S->stamp[S->prev[v]]++;
    S->stamp[S->next[v]]++;
}

static void unlink_slot(simp *S, int32_t v)
{
    int32_t r = S->ring[v];
    S->next[S->prev[v]] = S->next[v];
    S->prev[S->next[v]] = S->prev[v];
    S->alive[v] = 0;
    un_boxtree_remove(&S->tree, v);
    if (S->head[r] == v) S->head[r] = S->next[v];
    S->count[r]--;
    S->total--;
}

/* Apply a valid operation; returns the slots whose operations changed. */
static un_status apply(simp *S, const op *o, un_pt x)
{
    int32_t v = OP_V(o), r = S->ring[v];
    if (OP_KIND(o) == OP_FILL) {
        int32_t k = S->head[r], i, n = S->count[r];
        for (i = 0; i < n; i++) {
            int32_t nx = S->next[k];
            S->alive[k] = 0;
            un_boxtree_remove(&S->tree, k);
            k = nx;
        }
        S->total -= n;
        S->count[r] = 0;
        return UN_OK;
    }
    if (OP_KIND(o) == OP_CHORD) {
        int32_t u = S->prev[v], w = S->next[v];
        /* the new edge (u, w) covers the original chain u.oa .. w.ob */
        S->edev[u] = o->dev;
        unlink_slot(S, v);
        edge_changed(S, u, S->p[u], S->p[w]);
        touch(S, u);
        touch(S, w);
        return push_ops(S, u) == UN_OK && push_ops(S, w) == UN_OK && push_ops(S, S->prev[u]) == UN_OK
                   ? UN_OK : UN_ENOMEM;
    } else {
        int32_t u = S->prev[v], w = S->next[v];
        /* v becomes X, w goes */
        S->p[v] = x;
        S->ob[v] = S->ob[w];
        S->edev[u] = o->dev > S->edev[u] ? o->dev : S->edev[u];
        S->edev[v] = o->dev;
        unlink_slot(S, w);
        edge_changed(S, u, S->p[u], x);
        edge_changed(S, v, x, S->p[S->next[v]]);
        touch(S, v);
        touch(S, u);
        touch(S, S->next[v]);
        return push_ops(S, u) == UN_OK && push_ops(S, v) == UN_OK &&
                       push_ops(S, S->next[v]) == UN_OK && push_ops(S, S->prev[u]) == UN_OK
                   ? UN_OK : UN_ENOMEM;
    }
}

/* ------------------------------------------------------------------ main */

/* The rings left in S. */
static un_status collect(const simp *S, un_rings *out)
{
    int32_t k, i;
    un_status s = UN_OK;
    un_pt *buf = (un_pt *)malloc(((size_t)S->nslot + 1) * sizeof *buf);
    if (!buf) return UN_ENOMEM;
    for (k = 0; k < S->nrings && s == UN_OK; k++) {
        int32_t v = S->head[k], m = S->count[k];
        if (m < 3) continue;
        for (i = 0; i < m; i++, v = S->next[v]) buf[i] = S->p[v];
        s = un_rings_add(out, buf, m);
    }
    free(buf);
    return s;
}

/* The smallest-area rectangle around ring p (a convex hull), one of whose
 * sides lies along a hull edge, widened by one grid unit so that rounding
 * its corners keeps the hull inside. */
static un_status min_rectangle(const un_pt *p, int32_t n, un_rings *out)
{
    int32_t i, k, best = -1;
    double best_area = HUGE_VAL;
    int64_t bu0 = 0, bu1 = 0, bv0 = 0, bv1 = 0, bdx = 1, bdy = 0;
    un_pt c[4];
    for (i = 0; i < n; i++) {
        int64_t dx = p[(i + 1) % n].x - p[i].x, dy = p[(i + 1) % n].y - p[i].y;
        int64_t u0 = INT64_MAX, u1 = INT64_MIN, v0 = INT64_MAX, v1 = INT64_MIN;
        double area;
        if (dx == 0 && dy == 0) continue;
        for (k = 0; k < n; k++) {
            int64_t u = p[k].x * dx + p[k].y * dy, v = p[k].y * dx - p[k].x * dy;
            if (u < u0) u0 = u;
            if (u > u1) u1 = u;
            if (v < v0) v0 = v;
            if (v > v1) v1 = v;
        }
        area = (double)(u1 - u0) * (double)(v1 - v0) / ((double)dx * dx + (double)dy * dy);
        if (area < best_area) {
            best_area = area; best = i;
            bu0 = u0; bu1 = u1; bv0 = v0; bv1 = v1; bdx = dx; bdy = dy;
        }
    }
    if (best < 0) return UN_OK;
    {
        /* corners (u, v) of the frame (d, d-perp) scaled by |d|^2; widen by
         * |d| (one unit) on every side before rounding */
        double l2 = (double)bdx * bdx + (double)bdy * bdy, l = sqrt(l2);
        double us[2], vs[2];
        int32_t j;
        us[0] = (double)bu0 - l; us[1] = (double)bu1 + l;
        vs[0] = (double)bv0 - l; vs[1] = (double)bv1 + l;
        for (j = 0; j < 4; j++) {
            double u = us[j == 1 || j == 2], v = vs[j >= 2];
            c[j].x = un_llround((u * (double)bdx - v * (double)bdy) / l2);
            c[j].y = un_llround((u * (double)bdy + v * (double)bdx) / l2);
        }
    }
    un_rings_clear(out);
    return un_rings_add(out, c, 4);
}

/* The deviation of integer rings, by the float measure. */
static un_status measure(const un_rings *result, const un_rings *input, double *used)
{
    un_frings fr, fi;
    un_grid unit;
    un_status s;
    unit.step = 1;
    unit.ox = unit.oy = 0;
    un_frings_init(&fr);
    un_frings_init(&fi);
    if ((s = un_grid_out(&unit, result, &fr, 0)) == UN_OK && (s = un_grid_out(&unit, input, &fi, 0)) == UN_OK)
        s = un_simplify_deviation(&fr, &fi, used);
    un_frings_free(&fr);
    un_frings_free(&fi);
    return s;
}

static void simp_free(simp *S)
{
    free(S->p); free(S->prev); free(S->next); free(S->ring); free(S->oa); free(S->ob);
    free(S->stamp); free(S->alive); free(S->edev); free(S->head); free(S->count);
    free(S->is_hole); free(S->heap);
    un_boxtree_free(&S->tree);
}

static un_status run(simp *S, const un_rings *in, const int8_t *hole, double tol, int32_t budget,
                     double *used)
{
    int32_t n = un_rings_npts(in), k, i;
    un_status s = UN_OK;
    if (n > INT32_MAX / 4) return UN_ERANGE;   /* op.vk */
    S->nslot = n;
    S->nrings = in->nrings;
    S->orig = in->pts;
    S->ostart = in->start;
    S->total = n;
#define ALLOC(f, cnt) if (!(S->f = calloc((size_t)(cnt) + 1, sizeof *S->f))) return UN_ENOMEM
    ALLOC(p, n); ALLOC(prev, n); ALLOC(next, n); ALLOC(ring, n); ALLOC(oa, n); ALLOC(ob, n);
    ALLOC(stamp, n); ALLOC(alive, n); ALLOC(edev, n);
    ALLOC(head, in->nrings); ALLOC(count, in->nrings); ALLOC(is_hole, in->nrings);
#undef ALLOC
    for (k = 0; k < in->nrings; k++) {
        int32_t a = in->start[k], m = in->start[k + 1] - a;
        S->head[k] = a;
        S->count[k] = m;
        S->is_hole[k] = hole[k];
        for (i = 0; i < m; i++) {
            int32_t v = a + i;
            S->p[v] = in->pts[v];
            S->prev[v] = a + (i + m - 1) % m;
            S->next[v] = a + (i + 1) % m;
            S->ring[v] = k;
            S->oa[v] = S->ob[v] = v;
            S->alive[v] = 1;
        }
    }
    if ((s = un_boxtree_build(&S->tree, n, slot_box, S)) != UN_OK) return s;
    for (i = 0; i < n && s == UN_OK; i++) s = push_ops(S, i);
    *used = 0;
    for (k = 1; s == UN_OK && S->nheap > 0; k++) {
        op o = heap_pop(S);
        double dev;
        un_pt x;
        if (S->cancel && k % CANCEL_EVERY == 0 && *S->cancel) return UN_ECANCELLED;
        if (!S->alive[OP_V(&o)] || o.stamp != S->stamp[OP_V(&o)]) continue;
        if (o.dev > tol && S->total <= budget) break;
        /* other operations may have changed what this one would touch */
        if (!eval(S, OP_V(&o), OP_KIND(&o), &dev, &x)) continue;
        if (dev > o.dev) { o.dev = dev; s = heap_push(S, o); continue; }
        o.dev = dev;
        if (dev > *used) *used = dev;
        s = apply(S, &o, x);
    }
    return s;
}

/* Drop hole rings whose bounding box is thinner than min_hole. */
static void drop_small_holes(un_rings *r, int8_t *hole, double min_hole)
{
    int32_t k, w = 0, out = 0;
    for (k = 0; k < r->nrings; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a, i;
        int64_t lx = r->pts[a].x, hx = lx, ly = r->pts[a].y, hy = ly;
        for (i = 1; i < n; i++) {
            un_pt p = r->pts[a + i];
            if (p.x < lx) lx = p.x;
            if (p.x > hx) hx = p.x;
            if (p.y < ly) ly = p.y;
            if (p.y > hy) hy = p.y;
        }
        if (hole[k] && (double)(hx - lx < hy - ly ? hx - lx : hy - ly) < min_hole) continue;
        memmove(r->pts + w, r->pts + a, (size_t)n * sizeof *r->pts);
        hole[out] = hole[k];
        r->start[out++] = w;
        w += n;
    }
    r->nrings = out;
    r->start[out] = w;
}

static un_status simplify_rings(const un_rings *in, double tol, int32_t max_vertices, int32_t max_pieces,
                                double min_hole, un_rings *out, double *used, const volatile int *cancel)
{
    int32_t pieces = 0, k;
    un_rings r;
    int8_t *hole = NULL;
    simp S;
    double unread;
    int wanted = used != NULL;
    un_status s;
    memset(&S, 0, sizeof S);
    S.cancel = cancel;
    un_rings_init(&r);
    un_rings_clear(out);
    if (max_vertices < 4 || !(tol >= 0)) return UN_EINVAL;
    if (!wanted) used = &unread;
    if ((s = un_rings_copy(&r, in)) != UN_OK) goto done;
    if ((s = un_rings_clean(&r, 0)) != UN_OK) goto done;
    if (!(hole = (int8_t *)calloc((size_t)r.nrings + 1, 1))) { s = UN_ENOMEM; goto done; }
    /* solid on the left of every ring */
    if ((s = un_rings_orient(&r, hole)) != UN_OK) goto done;
    if (min_hole > 0) drop_small_holes(&r, hole, min_hole);
    for (k = 0; k < r.nrings; k++) pieces += !hole[k];
    if (pieces <= max_pieces && (s = run(&S, &r, hole, tol, max_vertices, used)) != UN_OK) goto done;
    if (pieces > max_pieces || S.total > max_vertices) {
        /* the budget cannot be met by local steps (or there are too many
         * separate pieces): take the convex hull of the outer rings and
         * extend its edges, cheapest first, until it fits; the deviation is
         * then measured against the input */
        un_rings hull;
        int8_t outer = 0;
        double ignored;
        un_rings_init(&hull);
        simp_free(&S);
        memset(&S, 0, sizeof S);
        S.cancel = cancel;
        if ((s = un_hull_rings(&r, hole, &hull)) == UN_OK) s = run(&S, &hull, &outer, 0, max_vertices, &ignored);
        if (s == UN_OK) s = collect(&S, out);
        /* extensions can get stuck above the budget (every remaining pair of
         * turns adds up to half a turn or more): then the smallest
         * rectangle around the hull, which always meets a budget of 4 */
        if (s == UN_OK && un_rings_npts(out) > max_vertices && hull.nrings)
            s = min_rectangle(hull.pts, hull.start[1], out);
        un_rings_free(&hull);
        if (s == UN_OK && wanted) s = measure(out, in, used);
        /* the hull fills every hole: add the bookkeeping's share */
        for (k = 0; s == UN_OK && wanted && k < r.nrings; k++)
            if (hole[k]) {
                int64_t lx = INT64_MAX, ly = INT64_MAX, hx = INT64_MIN, hy = INT64_MIN;
                int32_t i;
                double h;
                for (i = r.start[k]; i < r.start[k + 1]; i++) {
                    un_pt q = r.pts[i];
                    if (q.x < lx) lx = q.x;
                    if (q.x > hx) hx = q.x;
                    if (q.y < ly) ly = q.y;
                    if (q.y > hy) hy = q.y;
                }
                h = 0.5 * (double)(hx - lx < hy - ly ? hx - lx : hy - ly);
                if (h > *used) *used = h;
            }
    } else {
        s = collect(&S, out);
    }
done:
    simp_free(&S);
    free(hole);
    un_rings_free(&r);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}

un_status un_simplify_rings(const un_rings *in, double tol, int32_t max_vertices, int32_t max_pieces,
                            double min_hole, un_rings *out, double *used)
{
    return simplify_rings(in, tol, max_vertices, max_pieces, min_hole, out, used, NULL);
}

un_status un_miter_outwards(un_frings *r, double d, int32_t spare, double *moved)
{
    int32_t k, i;
    double worst = 0;
    un_frings out;
    double *tmp = NULL;
    int32_t cap = 0;
    un_status s = UN_OK;
    un_frings_init(&out);
    for (k = 0; k < r->nrings && s == UN_OK; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a, m = 0;
        const double *p = r->xy + 2 * a;
        if ((s = un_reserve((void **)&tmp, &cap, 4 * (int64_t)n, sizeof *tmp)) != UN_OK) break;
        for (i = 0; i < n; i++) {
            const double *u = p + 2 * ((i + n - 1) % n), *v = p + 2 * i, *w = p + 2 * ((i + 1) % n);
            double e1x = v[0] - u[0], e1y = v[1] - u[1], e2x = w[0] - v[0], e2y = w[1] - v[1];
            double l1 = hypot(e1x, e1y), l2 = hypot(e2x, e2y), n1x, n1y, n2x, n2y, den, mx, my, len;
            n1x = e1y / l1; n1y = -e1x / l1;
            n2x = e2y / l2; n2y = -e2x / l2;
            den = 1 + n1x * n2x + n1y * n2y;
            if (den < 1.0 / 8 && spare > 0 && e1x * e2y - e1y * e2x > 0) {
                /* square cap: both offset edges carried on by d past v */
                double tx = e1x / l1 - e2x / l2, ty = e1y / l1 - e2y / l2, tl = hypot(tx, ty);
                tx /= tl; ty /= tl;
                tmp[2 * m] = v[0] + d * (n1x + tx);
                tmp[2 * m + 1] = v[1] + d * (n1y + ty);
                m++;
                tmp[2 * m] = v[0] + d * (n2x + tx);
                tmp[2 * m + 1] = v[1] + d * (n2y + ty);
                m++;
                spare--;
                if (1.4143 * d > worst) worst = 1.4143 * d;
                continue;
            }
            /* only a corner that doubles back exactly (den 0) caps the mitre */
            if (den < 1e-18) den = 1e-18;
            mx = (n1x + n2x) / den * d;
            my = (n1y + n2y) / den * d;
            len = hypot(mx, my);
            if (len > worst) worst = len;
            tmp[2 * m] = v[0] + mx;
            tmp[2 * m + 1] = v[1] + my;
            m++;
        }
        s = un_frings_add(&out, tmp, m);
    }
    free(tmp);
    if (s == UN_OK) {
        un_frings_free(r);
        *r = out;
        if (moved) *moved = worst;
    } else {
        un_frings_free(&out);
    }
    return s;
}

un_status un_geom_simplify(const un_frings *in, double tolerance, int32_t max_vertices, un_frings *out,
                           double *used)
{
    double ops, measured;
    un_status s = un_simplify_pieces(in, tolerance, max_vertices, INT32_MAX, 0, out, &ops, NULL);
    if (s == UN_OK && (s = un_simplify_deviation(out, in, &measured)) != UN_OK) un_frings_free(out);
    /* the bookkeeping of the steps, or the measure, whichever is larger */
    if (s == UN_OK) *used = ops > measured ? ops : measured;
    return s;
}

un_status un_simplify_pieces(const un_frings *in, double tolerance, int32_t max_vertices, int32_t max_pieces,
                             double min_hole, un_frings *out, double *used, const volatile int *cancel)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_grid g;
    un_rings ir, res;
    un_status s;
    un_frings_free(out);
    if (!(tolerance >= 0) || !isfinite(tolerance) || max_vertices < 4) return UN_EINVAL;
    if ((s = un_frings_bbox(in, lo, hi)) != UN_OK) return s;
    if ((s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    un_rings_init(&ir);
    un_rings_init(&res);
    if ((s = un_grid_in(&g, in, &ir)) == UN_OK &&
        (s = simplify_rings(&ir, tolerance / g.step, max_vertices, max_pieces, min_hole / g.step, &res,
                            used, cancel)) == UN_OK) {
        /* the result contains the input as rounded to the grid; moving it
         * out by one grid step covers the rounding (at most 0.71 step) */
        double moved = 0;
        if ((s = un_grid_out(&g, &res, out, 1)) == UN_OK &&
            (s = un_miter_outwards(out, g.step, max_vertices - un_frings_npts(out), &moved)) == UN_OK && used)
            *used = *used * g.step + moved;
    }
    un_rings_free(&ir);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}
