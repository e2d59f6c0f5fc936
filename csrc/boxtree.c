/*
 * boxtree.c - a tree of boxes over ranges of items, searched by box.
 *
 * The caller numbers its items 0 .. n-1 so that neighbours in the numbering
 * lie near each other (the edges of a ring in ring order): a range of items
 * then has a small box.  Leaf j covers items [j << UN_BOXTREE_LEAF,
 * (j + 1) << UN_BOXTREE_LEAF), and node j of level l the leaves
 * [j << l, (j + 1) << l); the root is node 0 of the top level.
 *
 * Invariant: a node's box holds the box of every item under it that is still
 * present, and a parent's box holds its children's.  Boxes only grow
 * (un_boxtree_grow), or become empty once nothing under them is left
 * (un_boxtree_remove): they may be loose, never wrong, so a search visits
 * every item whose box meets the query (and maybe some others).
 */
#include "internal.h"

#include <math.h>

static const un_box EMPTY_BOX = {INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN};

static int box_holds(const un_box *b, const un_box *c)
{
    return b->lx <= c->lx && b->ly <= c->ly && b->hx >= c->hx && b->hy >= c->hy;
}

static int box_meets(const un_box *b, const un_box *c)
{
    return b->lx <= c->hx && c->lx <= b->hx && b->ly <= c->hy && c->ly <= b->hy;
}

/* The square of the distance from point p to box b, within rounding (the
 * empty box: +inf). */
static double box_dist2(const un_box *b, const double *p)
{
    double lx = (double)b->lx, ly = (double)b->ly, hx = (double)b->hx, hy = (double)b->hy;
    double dx = lx - p[0] > p[0] - hx ? lx - p[0] : p[0] - hx;
    double dy = ly - p[1] > p[1] - hy ? ly - p[1] : p[1] - hy;
    if (b->lx > b->hx) return HUGE_VAL;
    dx = dx > 0 ? dx : 0;
    dy = dy > 0 ? dy : 0;
    return dx * dx + dy * dy;
}

/* Level sizes of a tree over n items: off[l] is the first node of level l,
 * off[nlev] the number of nodes. */
static void set_levels(un_boxtree *t, int32_t n)
{
    int32_t cnt = n > 0 ? ((n - 1) >> UN_BOXTREE_LEAF) + 1 : 1;
    t->n = n;
    t->nlev = 0;
    t->off[0] = 0;
    for (;;) {
        t->off[t->nlev + 1] = t->off[t->nlev] + cnt;
        t->nlev++;
        if (cnt == 1) return;
        cnt = (cnt + 1) / 2;
    }
}

un_status un_boxtree_build(un_boxtree *t, int32_t n, un_item_box_fn item_box, const void *ctx)
{
    int32_t l, j, i;
    memset(t, 0, sizeof *t);
    set_levels(t, n);
    t->box = (un_box *)malloc((size_t)t->off[t->nlev] * sizeof *t->box);
    t->count = (int32_t *)calloc((size_t)t->off[t->nlev], sizeof *t->count);
    if (!t->box || !t->count) {
        un_boxtree_free(t);
        return UN_ENOMEM;
    }
    for (j = 0; j < t->off[1]; j++) t->box[j] = EMPTY_BOX;
    for (i = 0; i < n; i++) {
        un_box b;
        item_box(ctx, i, &b);
        un_box_add(&t->box[i >> UN_BOXTREE_LEAF], &b);
        t->count[i >> UN_BOXTREE_LEAF]++;
    }
    for (l = 1; l < t->nlev; l++)
        for (j = 0; j < t->off[l + 1] - t->off[l]; j++) {
            int32_t c = t->off[l - 1] + 2 * j, k = t->off[l] + j;
            t->box[k] = t->box[c];
            t->count[k] = t->count[c];
            if (c + 1 < t->off[l]) {   /* the last node of a level may have one child */
                un_box_add(&t->box[k], &t->box[c + 1]);
                t->count[k] += t->count[c + 1];
            }
        }
    return UN_OK;
}

void un_boxtree_free(un_boxtree *t)
{
    free(t->box);
    free(t->count);
    t->box = NULL;
    t->count = NULL;
}

void un_boxtree_grow(un_boxtree *t, int32_t i, const un_box *b)
{
    int32_t l, j = i >> UN_BOXTREE_LEAF;
    for (l = 0; l < t->nlev; l++, j >>= 1) {
        un_box *x = &t->box[t->off[l] + j];
        if (box_holds(x, b)) break;   /* then so do its ancestors */
        un_box_add(x, b);
    }
}

/* A node left without items gets the empty box, which meets no query (its
 * parent's box still holds the old one: loose, not wrong). */
void un_boxtree_remove(un_boxtree *t, int32_t i)
{
    int32_t l, j = i >> UN_BOXTREE_LEAF;
    for (l = 0; l < t->nlev; l++, j >>= 1)
        if (--t->count[t->off[l] + j] == 0) t->box[t->off[l] + j] = EMPTY_BOX;
}

/* ------------------------------------------------------------------ walk
 * A box walk pushes only the nodes whose boxes meet q.  A near walk keys
 * each node it pushes with the square of its box's distance from the
 * point, and enters it only if the key is still at most reach2 when it is
 * popped.  The stack's size is passed as *sp, kept in a register while the
 * walk runs. */

static void push(un_boxwalk *w, int32_t *sp, int32_t level, int32_t j)
{
    w->lev[*sp] = level;
    w->idx[(*sp)++] = j;
}

static void push_keyed(un_boxwalk *w, int32_t *sp, int32_t level, int32_t j, double key)
{
    w->key[*sp] = key;
    push(w, sp, level, j);
}

/* Push the children of node j of level l (the last node of a level may
 * have only one), the one to visit first last. */
static void push_children(un_boxwalk *w, int32_t *sp, int32_t l, int32_t j, int near)
{
    const un_boxtree *t = w->t;
    const un_box *b = &t->box[t->off[l - 1] + 2 * j];
    int two = t->off[l - 1] + 2 * j + 1 < t->off[l];
    if (!near) {
        if (box_meets(b, &w->q)) push(w, sp, l - 1, 2 * j);
        if (two && box_meets(b + 1, &w->q)) push(w, sp, l - 1, 2 * j + 1);
    } else if (!two) {
        push_keyed(w, sp, l - 1, 2 * j, box_dist2(b, w->near));
    } else {
        double d0 = box_dist2(b, w->near), d1 = box_dist2(b + 1, w->near);
        push_keyed(w, sp, l - 1, 2 * j + (d1 < d0 ? 0 : 1), d1 < d0 ? d0 : d1);
        push_keyed(w, sp, l - 1, 2 * j + (d1 < d0 ? 1 : 0), d1 < d0 ? d1 : d0);
    }
}

void un_boxwalk_begin(un_boxwalk *w, const un_boxtree *t, const un_box *q)
{
    w->t = t;
    w->q = *q;
    w->near = NULL;
    w->sp = 0;
    if (box_meets(un_boxtree_bounds(t), q)) push(w, &w->sp, t->nlev - 1, 0);
}

void un_boxwalk_begin_near(un_boxwalk *w, const un_boxtree *t, const double *p)
{
    w->t = t;
    w->near = p;
    w->reach2 = HUGE_VAL;
    w->sp = 0;
    push_keyed(w, &w->sp, t->nlev - 1, 0, 0);
}

/* Depth first: every pop pushes at most two children, so the stack holds
 * at most one node per level plus one (UN_BOXTREE_MAXLEV + 1 entries).
 * near is a constant in each call below, so that each kind of walk gets
 * code of its own. */
static inline int walk_next(un_boxwalk *w, int32_t *first, int32_t *end, int near)
{
    int32_t sp = w->sp;
    while (sp > 0) {
        int32_t l = w->lev[--sp], j = w->idx[sp];
        if (near && w->key[sp] > w->reach2) continue;   /* reach2 shrank since the push */
        if (l > 0) {
            push_children(w, &sp, l, j, near);
            continue;
        }
        *first = j << UN_BOXTREE_LEAF;
        *end = w->t->n - *first > (1 << UN_BOXTREE_LEAF) ? *first + (1 << UN_BOXTREE_LEAF) : w->t->n;
        w->sp = sp;
        return 1;
    }
    w->sp = 0;
    return 0;
}

int un_boxwalk_next(un_boxwalk *w, int32_t *first, int32_t *end)
{
    return w->near ? walk_next(w, first, end, 1) : walk_next(w, first, end, 0);
}
