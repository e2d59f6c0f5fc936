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
 * Cost: the blocking tests search a tree of boxes over the slots (see "slot
 * tree"), and the measure of the deviation an index over the input's edges
 * (see "edge index"); both reach exactly the decisions and values of a scan
 * over everything, so that a ring of n points takes about n log n steps
 * rather than n^2.
 */
#include "internal.h"

#include <math.h>

enum { OP_CHORD = 0, OP_EXTEND = 1, OP_FILL = 2 };

/* Both trees below: 2^TREE_LEAF items per leaf, at most TREE_MAXLEV levels
 * (enough for 2^31 items). */
enum { TREE_LEAF = 3, TREE_MAXLEV = 32 };

typedef struct { int64_t lx, ly, hx, hy; } ibox;

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
    int32_t  nslot, cap;
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
    /* slot tree (see below) */
    ibox    *tbox;
    int32_t *talive;
    int32_t  toff[TREE_MAXLEV + 1], tlev;
} simp;

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
 * they lie within a factor 1 +- NEAR_EXTREME of each other (they and hypot
 * are all within a few ulps), and hypot decides then.  cand (ex, ey, e2) is
 * a point whose hypot is the extreme so far; m is that hypot once known. */
#define NEAR_EXTREME 1e-12

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
    if (x->sign * e2 < x->sign * x->e2 * (1 - x->sign * NEAR_EXTREME)) return;
    if (x->sign * e2 > x->sign * x->e2 * (1 + x->sign * NEAR_EXTREME)) {
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

/* ------------------------------------------------------------ slot tree
 * Boxes over ranges of slots, for the blocking tests.  Slots are numbered in
 * input order, so a range is an arc of a ring and its box stays small.  Node
 * j of level l covers slots [j << (TREE_LEAF + l), (j + 1) << (TREE_LEAF + l));
 * the root is node 0 of level tlev - 1.  Invariant: a node's box holds the
 * position of every alive slot in its range and the edge leaving it, and a
 * parent's box holds its children's.  Boxes only grow (apply() grows them
 * where edges change, so they may be loose, never wrong); talive counts the
 * alive slots of a node, and a node without any gets an empty box. */

static int ibox_holds(const ibox *b, const ibox *c)
{
    return b->lx <= c->lx && b->ly <= c->ly && b->hx >= c->hx && b->hy >= c->hy;
}

static void ibox_add(ibox *b, const ibox *c)
{
    if (c->lx < b->lx) b->lx = c->lx;
    if (c->ly < b->ly) b->ly = c->ly;
    if (c->hx > b->hx) b->hx = c->hx;
    if (c->hy > b->hy) b->hy = c->hy;
}

static ibox ibox_of(un_pt a, un_pt b)
{
    ibox r;
    r.lx = a.x < b.x ? a.x : b.x;
    r.hx = a.x < b.x ? b.x : a.x;
    r.ly = a.y < b.y ? a.y : b.y;
    r.hy = a.y < b.y ? b.y : a.y;
    return r;
}

static int ibox_meets(const ibox *b, const ibox *c)
{
    return b->lx <= c->hx && c->lx <= b->hx && b->ly <= c->hy && c->ly <= b->hy;
}

/* Level sizes of a tree over n items into off[] (off[l] is the first node
 * of level l, off[levels] the total); returns the number of levels. */
static int32_t tree_levels(int32_t n, int32_t *off)
{
    int32_t l = 0, cnt = n > 0 ? ((n - 1) >> TREE_LEAF) + 1 : 1;
    off[0] = 0;
    for (;;) {
        off[l + 1] = off[l] + cnt;
        l++;
        if (cnt == 1) return l;
        cnt = (cnt + 1) / 2;
    }
}

static un_status tree_build(simp *S)
{
    int32_t l, j, i;
    S->tlev = tree_levels(S->nslot, S->toff);
    S->tbox = (ibox *)malloc((size_t)S->toff[S->tlev] * sizeof *S->tbox);
    S->talive = (int32_t *)calloc((size_t)S->toff[S->tlev], sizeof *S->talive);
    if (!S->tbox || !S->talive) return UN_ENOMEM;
    for (j = 0; j < S->toff[1]; j++) {
        S->tbox[j].lx = S->tbox[j].ly = INT64_MAX;
        S->tbox[j].hx = S->tbox[j].hy = INT64_MIN;
    }
    for (i = 0; i < S->nslot; i++) {
        ibox e = ibox_of(S->p[i], S->p[S->next[i]]);
        ibox_add(&S->tbox[i >> TREE_LEAF], &e);
        S->talive[i >> TREE_LEAF]++;
    }
    for (l = 1; l < S->tlev; l++)
        for (j = 0; j < S->toff[l + 1] - S->toff[l]; j++) {
            int32_t c = S->toff[l - 1] + 2 * j, k = S->toff[l] + j;
            S->tbox[k] = S->tbox[c];
            S->talive[k] = S->talive[c];
            if (c + 1 < S->toff[l]) {
                ibox_add(&S->tbox[k], &S->tbox[c + 1]);
                S->talive[k] += S->talive[c + 1];
            }
        }
    return UN_OK;
}

/* The edge leaving slot i is now a-b. */
static void tree_grow(simp *S, int32_t i, un_pt a, un_pt b)
{
    ibox e = ibox_of(a, b);
    int32_t l, j = i >> TREE_LEAF;
    for (l = 0; l < S->tlev; l++, j >>= 1) {
        ibox *x = &S->tbox[S->toff[l] + j];
        if (ibox_holds(x, &e)) break;   /* then so do its ancestors */
        ibox_add(x, &e);
    }
}

/* Slot i died: a node left without alive slots gets an empty box, which no
 * query meets (its parent's box still holds it, as before). */
static void tree_kill(simp *S, int32_t i)
{
    int32_t l, j = i >> TREE_LEAF;
    for (l = 0; l < S->tlev; l++, j >>= 1)
        if (--S->talive[S->toff[l] + j] == 0) {
            ibox *x = &S->tbox[S->toff[l] + j];
            x->lx = x->ly = INT64_MAX;
            x->hx = x->hy = INT64_MIN;
        }
}

/* A blocking test on the alive slots [a, b) of one leaf. */
typedef int (*leaf_fn)(const simp *S, int32_t a, int32_t b, const void *ctx);

/* Does any leaf whose box meets q hold a slot that blocks (by fn)?  Finds
 * every alive slot whose position or leaving edge meets q. */
static int tree_blocked(const simp *S, const ibox *q, leaf_fn fn, const void *ctx)
{
    int32_t lev[TREE_MAXLEV + 1], idx[TREE_MAXLEV + 1], sp = 0, l = S->tlev - 1;
    /* depth first over nodes that meet q: every pop pushes at most 2, so the
     * stack never holds more than one node per level plus one */
    if (ibox_meets(&S->tbox[S->toff[l]], q)) {
        lev[0] = l;
        idx[0] = 0;
        sp = 1;
    }
    while (sp > 0) {
        int32_t j, c;
        l = lev[--sp];
        j = idx[sp];
        if (l == 0) {
            int32_t a = j << TREE_LEAF, b = a + (1 << TREE_LEAF);
            if (fn(S, a, b < S->nslot ? b : S->nslot, ctx)) return 1;
            continue;
        }
        c = S->toff[l - 1] + 2 * j;
        if (ibox_meets(&S->tbox[c], q)) {
            lev[sp] = l - 1;
            idx[sp++] = 2 * j;
        }
        if (c + 1 < S->toff[l] && ibox_meets(&S->tbox[c + 1], q)) {
            lev[sp] = l - 1;
            idx[sp++] = 2 * j + 1;
        }
    }
    return 0;
}

typedef struct {
    un_pt a, b, c;          /* counter-clockwise */
    ibox box;
    const int32_t *skip;
} tri_query;

static int tri_leaf(const simp *S, int32_t i0, int32_t i1, const void *ctx)
{
    const tri_query *t = (const tri_query *)ctx;
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
    ibox bc;
    if (un_orient(a, b, c) < 0) { un_pt x = b; b = c; c = x; }
    t.a = a; t.b = b; t.c = c;
    t.box = ibox_of(a, b);
    bc = ibox_of(b, c);
    ibox_add(&t.box, &bc);
    t.skip = skip;
    return tree_blocked(S, &t.box, tri_leaf, &t);
}

typedef struct {
    un_pt a, b;
} seg_query;

static int seg_leaf(const simp *S, int32_t i0, int32_t i1, const void *ctx)
{
    const seg_query *g = (const seg_query *)ctx;
    int32_t i;
    for (i = i0; i < i1; i++) {
        un_pt c, d;
        if (!S->alive[i]) continue;
        c = S->p[i];
        d = S->p[S->next[i]];
        if (un_orient(g->a, g->b, c) * un_orient(g->a, g->b, d) < 0 &&
            un_orient(c, d, g->a) * un_orient(c, d, g->b) < 0)
            return 1;
    }
    return 0;
}

/* Does segment a-b properly cross any current edge?  (Crossing edges have
 * boxes that meet a-b's.) */
static int segment_blocked(const simp *S, un_pt a, un_pt b)
{
    seg_query g;
    ibox q = ibox_of(a, b);
    g.a = a;
    g.b = b;
    return tree_blocked(S, &q, seg_leaf, &g);
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
    tree_kill(S, v);
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
            tree_kill(S, k);
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
        tree_grow(S, u, S->p[u], S->p[w]);
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
        tree_grow(S, u, S->p[u], x);
        tree_grow(S, v, x, S->p[S->next[v]]);
        touch(S, v);
        touch(S, u);
        touch(S, S->next[v]);
        return push_ops(S, u) == UN_OK && push_ops(S, v) == UN_OK &&
                       push_ops(S, S->next[v]) == UN_OK && push_ops(S, S->prev[u]) == UN_OK
                   ? UN_OK : UN_ENOMEM;
    }
}

/* ----------------------------------------------------------- convex hull */

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
        *used = un_simplify_deviation(&fr, &fi);
    un_frings_free(&fr);
    un_frings_free(&fi);
    return s;
}

static void simp_free(simp *S)
{
    free(S->p); free(S->prev); free(S->next); free(S->ring); free(S->oa); free(S->ob);
    free(S->stamp); free(S->alive); free(S->edev); free(S->head); free(S->count);
    free(S->is_hole); free(S->heap); free(S->tbox); free(S->talive);
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
    if ((s = tree_build(S)) != UN_OK) return s;
    for (i = 0; i < n && s == UN_OK; i++) s = push_ops(S, i);
    *used = 0;
    while (s == UN_OK && S->nheap > 0) {
        op o = heap_pop(S);
        double dev;
        un_pt x;
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

un_status un_simplify_rings(const un_rings *in, double tol, int32_t max_vertices, int32_t max_pieces,
                            double min_hole, un_rings *out, double *used)
{
    int32_t pieces = 0, k;
    un_rings r;
    int8_t *hole = NULL;
    simp S;
    un_status s;
    memset(&S, 0, sizeof S);
    un_rings_init(&r);
    un_rings_clear(out);
    if (max_vertices < 4 || !(tol >= 0)) return UN_EINVAL;
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
        if ((s = un_hull_rings(&r, hole, &hull)) == UN_OK) s = run(&S, &hull, &outer, 0, max_vertices, &ignored);
        if (s == UN_OK) s = collect(&S, out);
        /* extensions can get stuck above the budget (every remaining pair of
         * turns adds up to half a turn or more): then the smallest
         * rectangle around the hull, which always meets a budget of 4 */
        if (s == UN_OK && un_rings_npts(out) > max_vertices && hull.nrings)
            s = min_rectangle(hull.pts, hull.start[1], out);
        un_rings_free(&hull);
        if (s == UN_OK) s = measure(out, in, used);
        /* the hull fills every hole: add the bookkeeping's share */
        for (k = 0; s == UN_OK && k < r.nrings; k++)
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

/* Move every ring of r outwards (to the right of each edge: rings have the
 * solid on their left) by d, with mitred corners; *moved receives the
 * largest vertex displacement.  Used to cover the rounding of the input.  A
 * sharp convex corner, whose mitre would reach more than 4d, gets a square
 * cap of two vertices instead while `spare` extra vertices remain. */
static un_status miter_outwards(un_frings *r, double d, int32_t spare, double *moved)
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

/* ---- the deviation actually used, measured -------------------------------
 * How far the result reaches beyond the input: the largest distance from a
 * point of the result to the input region (0 inside it).  Sampled at 33
 * points along every edge of the result (refined around the best one) and
 * on a grid inside it (refined by a pattern search), for the filled holes
 * and closed notches that lie inside.  Callers also keep the bookkeeping of
 * their steps and report the larger of the two.  Distances and parities come
 * from edge indexes of the input and the result, bit for bit as a scan of
 * every edge (kept below for when there is no memory for an index). */

/* Brute force: 0 inside r, else the distance to r's boundary; and the
 * parity test alone.  Used when there is no memory for an index. */
static double scan_dist(const un_frings *r, double x, double y)
{
    int32_t k, i;
    int in = 0;
    double best = HUGE_VAL;
    for (k = 0; k < r->nrings; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            const double *p = r->xy + 2 * (a + i), *q = r->xy + 2 * (a + (i + 1) % n);
            double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy, t = 0, d;
            if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) * dx / dy) in = !in;
            if (l2 > 0) {
                t = ((x - p[0]) * dx + (y - p[1]) * dy) / l2;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
            }
            d = hypot(p[0] + t * dx - x, p[1] + t * dy - y);
            if (d < best) best = d;
        }
    }
    return in ? 0 : best;
}

static int scan_inside(const un_frings *r, double x, double y)
{
    int32_t k, i;
    int in = 0;
    for (k = 0; k < r->nrings; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            const double *p = r->xy + 2 * (a + i), *q = r->xy + 2 * (a + (i + 1) % n);
            if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) * (q[0] - p[0]) / (q[1] - p[1])) in = !in;
        }
    }
    return in;
}

/* Edge index: boxes over ranges of the edges of float rings in ring order
 * (edge e runs from point e to the next point of its ring), laid out like
 * the slot tree and fixed once built.  Its queries give exactly the answers
 * of the brute force above, with the same arithmetic per edge: they only
 * skip edges that cannot change the answer, with an allowance (slack) for
 * rounding far above the few ulps it can be. */
typedef struct { double lx, ly, hx, hy; } fbox;

typedef struct {
    const un_frings *r;
    const double    *xy;
    int32_t         *succ;    /* the point after point e in its ring */
    fbox            *box;     /* NULL: no index, scan */
    int32_t          off[TREE_MAXLEV + 1], nlev;
    double           slack;
} eidx;

static void eidx_free(eidx *ix)
{
    free(ix->succ);
    free(ix->box);
}

static void fbox_add(fbox *b, const fbox *c)
{
    if (c->lx < b->lx) b->lx = c->lx;
    if (c->ly < b->ly) b->ly = c->ly;
    if (c->hx > b->hx) b->hx = c->hx;
    if (c->hy > b->hy) b->hy = c->hy;
}

static void eidx_leaves(eidx *ix, int32_t n)
{
    int32_t j, e;
    double m = 0;
    for (j = 0; j < ix->off[1]; j++) {
        ix->box[j].lx = ix->box[j].ly = HUGE_VAL;
        ix->box[j].hx = ix->box[j].hy = -HUGE_VAL;
    }
    for (e = 0; e < n; e++) {
        const double *p = ix->xy + 2 * e, *q = ix->xy + 2 * ix->succ[e];
        fbox *b = &ix->box[e >> TREE_LEAF], c;
        c.lx = p[0] < q[0] ? p[0] : q[0];
        c.hx = p[0] < q[0] ? q[0] : p[0];
        c.ly = p[1] < q[1] ? p[1] : q[1];
        c.hy = p[1] < q[1] ? q[1] : p[1];
        fbox_add(b, &c);
        if (fabs(p[0]) > m) m = fabs(p[0]);
        if (fabs(p[1]) > m) m = fabs(p[1]);
    }
    ix->slack = 1e-9 * m;
}

static void eidx_build(eidx *ix, const un_frings *r)
{
    int32_t n = un_frings_npts(r), k, e, l, j;
    memset(ix, 0, sizeof *ix);
    ix->r = r;
    ix->xy = r->xy;
    ix->nlev = tree_levels(n, ix->off);
    ix->succ = (int32_t *)malloc(((size_t)n + 1) * sizeof *ix->succ);
    ix->box = (fbox *)malloc((size_t)ix->off[ix->nlev] * sizeof *ix->box);
    if (!ix->succ || !ix->box) {
        eidx_free(ix);
        ix->succ = NULL;
        ix->box = NULL;
        return;
    }
    for (k = 0; k < r->nrings; k++)
        for (e = r->start[k]; e < r->start[k + 1]; e++)
            ix->succ[e] = e + 1 < r->start[k + 1] ? e + 1 : r->start[k];
    eidx_leaves(ix, n);
    for (l = 1; l < ix->nlev; l++)
        for (j = 0; j < ix->off[l + 1] - ix->off[l]; j++) {
            int32_t c = ix->off[l - 1] + 2 * j;
            ix->box[ix->off[l] + j] = ix->box[c];
            if (c + 1 < ix->off[l]) fbox_add(&ix->box[ix->off[l] + j], &ix->box[c + 1]);
        }
}

/* The parity of the edges e in [e0, e1) that straddle y and whose crossing
 * with it lies right of x (left: the others that straddle y). */
static int leaf_crossings(const eidx *ix, int32_t e0, int32_t e1, double x, double y, int left)
{
    int32_t e;
    int in = 0;
    for (e = e0; e < e1; e++) {
        const double *p = ix->xy + 2 * e, *q = ix->xy + 2 * ix->succ[e];
        double dx = q[0] - p[0], dy = q[1] - p[1];
        if ((p[1] > y) != (q[1] > y) && (x < p[0] + (y - p[1]) * dx / dy) != left) in = !in;
    }
    return in;
}

/* The parity of the edges crossed by the ray from (x, y) to the right, as
 * the brute force counts it.  An edge counts only if it straddles y
 * (min <= y < max, decided exactly) and its crossing, as computed, lies
 * right of x: within rounding of its x range, so a box whose right side
 * lies more than slack left of x holds no such edge.  Every ring has an
 * even number of edges that straddle y, so counting those whose crossing
 * does not lie right of x gives the same parity: the ray goes to the
 * nearer side of the rings' box. */
static int eidx_inside(const eidx *ix, double x, double y)
{
    int32_t lev[TREE_MAXLEV + 1], idx[TREE_MAXLEV + 1], sp = 1, n = un_frings_npts(ix->r);
    const fbox *root;
    int in = 0, left;
    if (!ix->box) return scan_inside(ix->r, x, y);
    lev[0] = ix->nlev - 1;
    idx[0] = 0;
    root = &ix->box[ix->off[ix->nlev - 1]];
    left = x - root->lx < root->hx - x;
    while (sp > 0) {
        int32_t l = lev[--sp], j = idx[sp];
        const fbox *b = &ix->box[ix->off[l] + j];
        if (b->ly > y || b->hy <= y || (left ? b->lx - x : x - b->hx) > ix->slack) continue;
        if (l == 0) {
            int32_t e0 = j << TREE_LEAF, e1 = e0 + (1 << TREE_LEAF);
            in ^= leaf_crossings(ix, e0, e1 < n ? e1 : n, x, y, left);
            continue;
        }
        if (ix->off[l - 1] + 2 * j + 1 < ix->off[l]) {
            lev[sp] = l - 1;
            idx[sp++] = 2 * j + 1;
        }
        lev[sp] = l - 1;
        idx[sp++] = 2 * j;
    }
    return in;
}

static double leaf_nearest(const eidx *ix, int32_t e0, int32_t e1, double x, double y, double best)
{
    int32_t e;
    for (e = e0; e < e1; e++) {
        const double *p = ix->xy + 2 * e, *q = ix->xy + 2 * ix->succ[e];
        double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy, t = 0, ex, ey, d;
        if (l2 > 0) {
            t = ((x - p[0]) * dx + (y - p[1]) * dy) / l2;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
        }
        ex = p[0] + t * dx - x;
        ey = p[1] + t * dy - y;
        /* hypot only near or below best (see NEAR_EXTREME), while the
         * squares neither overflow nor underflow */
        if (best > 1e-150 && best < 1e150 && ex * ex + ey * ey >= best * best * (1 + NEAR_EXTREME)) continue;
        d = hypot(ex, ey);
        if (d < best) best = d;
    }
    return best;
}

/* The square of the distance from (x, y) to box b, within rounding. */
static double fbox_dist2(const fbox *b, double x, double y)
{
    double dx = b->lx - x > x - b->hx ? b->lx - x : x - b->hx, dy = b->ly - y > y - b->hy ? b->ly - y : y - b->hy;
    dx = dx > 0 ? dx : 0;
    dy = dy > 0 ? dy : 0;
    return dx * dx + dy * dy;
}

/* The smallest distance from (x, y) to an edge, as the brute force computes
 * it.  The computed distance to an edge is at least its box's, less a
 * rounding error far below s: boxes farther than best + s are skipped
 * (compared by squares, whose rounding s covers as well, unless they
 * underflow; an infinite best skips nothing). */
static double eidx_nearest(const eidx *ix, double x, double y)
{
    int32_t lev[TREE_MAXLEV + 1], idx[TREE_MAXLEV + 1], sp = 1, n = un_frings_npts(ix->r);
    double lb[TREE_MAXLEV + 1], best = HUGE_VAL, s = ix->slack + 1e-9 * (fabs(x) + fabs(y));
    lev[0] = ix->nlev - 1;
    idx[0] = 0;
    lb[0] = 0;
    /* depth first, nearer child first; every pop pushes at most 2, so the
     * stack holds at most one node per level plus one */
    while (sp > 0) {
        int32_t l = lev[--sp], j = idx[sp], c;
        double d0, d1;
        if (best + s > 1e-150 && lb[sp] > (best + s) * (best + s)) continue;
        if (l == 0) {
            int32_t e0 = j << TREE_LEAF, e1 = e0 + (1 << TREE_LEAF);
            best = leaf_nearest(ix, e0, e1 < n ? e1 : n, x, y, best);
            continue;
        }
        c = ix->off[l - 1] + 2 * j;
        d0 = fbox_dist2(&ix->box[c], x, y);
        if (c + 1 < ix->off[l]) {
            d1 = fbox_dist2(&ix->box[c + 1], x, y);
            lev[sp] = l - 1;
            idx[sp] = 2 * j + (d1 < d0 ? 0 : 1);
            lb[sp++] = d1 < d0 ? d0 : d1;
            lev[sp] = l - 1;
            idx[sp] = 2 * j + (d1 < d0 ? 1 : 0);
            lb[sp++] = d1 < d0 ? d1 : d0;
        } else {
            lev[sp] = l - 1;
            idx[sp] = 2 * j;
            lb[sp++] = d0;
        }
    }
    return best;
}

/* 0 inside the indexed region, else the distance to its boundary. */
static double dist_to_region(const eidx *ix, double x, double y)
{
    if (!ix->box) return scan_dist(ix->r, x, y);
    return eidx_inside(ix, x, y) ? 0 : eidx_nearest(ix, x, y);
}

/* The sign of the orientation of c relative to a->b when the rounding
 * cannot have changed it (the first error bound of Shewchuk's orient2d),
 * else 0. */
static int orient_sure(const double *a, const double *b, const double *c)
{
    double l = (b[0] - a[0]) * (c[1] - a[1]), r = (b[1] - a[1]) * (c[0] - a[0]), det = l - r;
    double bound = 3.3306690738754716e-16 * (fabs(l) + fabs(r));
    if (fabs(l) + fabs(r) < 1e-280) return 0;   /* underflow: unsure */
    return det > bound ? 1 : det < -bound ? -1 : 0;
}

/* Does segment a-b properly cross segment c-d: 1 surely, 0 surely not, -1
 * too close to call. */
static int cross_sure(const double *a, const double *b, const double *c, const double *d)
{
    int o1 = orient_sure(a, b, c), o2 = orient_sure(a, b, d), o3 = orient_sure(c, d, a), o4 = orient_sure(c, d, b);
    if ((o1 && o1 == o2) || (o3 && o3 == o4)) return 0;
    return o1 && o2 && o3 && o4 ? 1 : -1;
}

static int leaf_seg_parity(const eidx *ix, int32_t e0, int32_t e1, const double *a, const double *b)
{
    int32_t e;
    int in = 0;
    for (e = e0; e < e1; e++) {
        const double *c = ix->xy + 2 * e, *d = ix->xy + 2 * ix->succ[e];
        int k;
        if ((c[0] < a[0] && c[0] < b[0] && d[0] < a[0] && d[0] < b[0]) ||
            (c[0] > a[0] && c[0] > b[0] && d[0] > a[0] && d[0] > b[0]) ||
            (c[1] < a[1] && c[1] < b[1] && d[1] < a[1] && d[1] < b[1]) ||
            (c[1] > a[1] && c[1] > b[1] && d[1] > a[1] && d[1] > b[1]))
            continue;   /* boxes apart */
        if ((k = cross_sure(a, b, c, d)) < 0) return -1;
        in ^= k;
    }
    return in;
}

/* The parity of the edges that properly cross segment a-b, or -1 when an
 * edge comes too close to it to call. */
static int eidx_seg_parity(const eidx *ix, const double *a, const double *b)
{
    int32_t lev[TREE_MAXLEV + 1], idx[TREE_MAXLEV + 1], sp = 1, n = un_frings_npts(ix->r);
    double lx = a[0] < b[0] ? a[0] : b[0], hx = a[0] < b[0] ? b[0] : a[0];
    double ly = a[1] < b[1] ? a[1] : b[1], hy = a[1] < b[1] ? b[1] : a[1];
    int in = 0;
    if (a[0] == b[0] && a[1] == b[1]) return 0;
    lev[0] = ix->nlev - 1;
    idx[0] = 0;
    while (sp > 0) {
        int32_t l = lev[--sp], j = idx[sp];
        const fbox *bx = &ix->box[ix->off[l] + j];
        if (bx->lx > hx || bx->hx < lx || bx->ly > hy || bx->hy < ly) continue;
        if (l == 0) {
            int32_t e0 = j << TREE_LEAF, e1 = e0 + (1 << TREE_LEAF), k;
            if ((k = leaf_seg_parity(ix, e0, e1 < n ? e1 : n, a, b)) < 0) return -1;
            in ^= k;
            continue;
        }
        if (ix->off[l - 1] + 2 * j + 1 < ix->off[l]) {
            lev[sp] = l - 1;
            idx[sp++] = 2 * j + 1;
        }
        lev[sp] = l - 1;
        idx[sp++] = 2 * j;
    }
    return in;
}

/* dist_to_region for points visited one after another along the result's
 * edges, which mostly lie outside the input and cross its boundary seldom,
 * while a ray from them may cross it very often (think of a comb).  A
 * point farther than the rounding allowance s from every edge has the
 * parity of exact arithmetic, and the ray of the brute force gets it right
 * too (the crossing it computes for an edge lies about as far from the
 * point as the edge); so its parity is that of the last such point (ref)
 * and of the edges that cross the segment between them.  Near an edge, or
 * when a crossing is too close to call, the ray decides. */
typedef struct {
    const eidx *ix;
    double      ref[2];
    int         in, valid;
} walker;

static double dist_walk(walker *w, double x, double y)
{
    const eidx *ix = w->ix;
    double d, p[2];
    int in;
    if (!ix->box) return scan_dist(ix->r, x, y);
    d = eidx_nearest(ix, x, y);
    if (!(d > ix->slack + 1e-9 * (fabs(x) + fabs(y)))) return eidx_inside(ix, x, y) ? 0 : d;
    p[0] = x;
    p[1] = y;
    in = w->valid ? eidx_seg_parity(ix, w->ref, p) : -1;
    in = in < 0 ? eidx_inside(ix, x, y) : in ^ w->in;
    w->ref[0] = x;
    w->ref[1] = y;
    w->in = in;
    w->valid = 1;
    return in ? 0 : d;
}

/* The farthest point from the input may lie inside the result (a filled
 * hole, a closed notch): a 48 x 48 grid over the result, then a pattern
 * search from the best grid point, staying inside the result. */
static double interior_max(const eidx *result, const eidx *input, double best)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, bx = 0, by = 0, fb = -1, step;
    int32_t i, j;
    un_frings_bbox(result->r, lo, hi);
    for (i = 0; i < 48; i++)
        for (j = 0; j < 48; j++) {
            double x = lo[0] + (i + 0.5) * (hi[0] - lo[0]) / 48, y = lo[1] + (j + 0.5) * (hi[1] - lo[1]) / 48, f;
            if (!eidx_inside(result, x, y)) continue;
            f = dist_to_region(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; }
        }
    if (fb <= 0) return best;
    step = 0.5 * ((hi[0] - lo[0]) + (hi[1] - lo[1])) / 48;
    for (i = 0; i < 60 && step > 0; i++) {
        static const double dir[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
        int moved = 0;
        for (j = 0; j < 8; j++) {
            double x = bx + step * dir[j][0], y = by + step * dir[j][1], f;
            if (!eidx_inside(result, x, y)) continue;
            f = dist_to_region(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; moved = 1; }
        }
        if (!moved) step *= 0.5;
    }
    return fb > best ? fb : best;
}

static double edge_dist(walker *input, const double *p, const double *q, double t)
{
    return dist_walk(input, p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]));
}

static double edges_max(const un_frings *result, walker *input)
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

double un_simplify_deviation(const un_frings *result, const un_frings *input)
{
    eidx ir, ii;
    walker w;
    double d;
    eidx_build(&ir, result);
    eidx_build(&ii, input);
    w.ix = &ii;
    w.valid = 0;
    d = interior_max(&ir, &ii, edges_max(result, &w));
    eidx_free(&ir);
    eidx_free(&ii);
    return d;
}

un_status un_geom_simplify(const un_frings *in, double tolerance, int32_t max_vertices, un_frings *out,
                           double *used)
{
    double ops;
    un_status s = un_simplify_pieces(in, tolerance, max_vertices, INT32_MAX, 0, out, &ops);
    if (s == UN_OK) {
        /* the bookkeeping of the steps, or the measure, whichever is larger */
        double measured = un_simplify_deviation(out, in);
        *used = ops > measured ? ops : measured;
    }
    return s;
}

un_status un_simplify_pieces(const un_frings *in, double tolerance, int32_t max_vertices, int32_t max_pieces,
                             double min_hole, un_frings *out, double *used)
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
        (s = un_simplify_rings(&ir, tolerance / g.step, max_vertices, max_pieces, min_hole / g.step, &res,
                               used)) == UN_OK) {
        /* the result contains the input as rounded to the grid; moving it
         * out by one grid step covers the rounding (at most 0.71 step) */
        double moved = 0;
        if ((s = un_grid_out(&g, &res, out, 1)) == UN_OK &&
            (s = miter_outwards(out, g.step, max_vertices - un_frings_npts(out), &moved)) == UN_OK)
            *used = *used * g.step + moved;
    }
    un_rings_free(&ir);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
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
        s = miter_outwards(out, g.step, 0, NULL); /* cover the rounding of the input */
    un_rings_free(&ir);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}
