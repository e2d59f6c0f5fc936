/*
 * arrange_merge.c - Stage 1 of an arrangement (arrange.c has the method):
 * collinear overlapping segments merged into disjoint pieces, each keeping
 * how many solid and container segments run along it forwards and
 * backwards.
 */
#include "arrange_state.h"

#include <math.h>

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a;
}

/* Count a weight into forward/backward tallies for direction dir (+1/-1). */
static void tally(int32_t w, int dir, int32_t *f, int32_t *b)
{
    if (w == 0) return;
    if ((w > 0) == (dir > 0)) *f += w > 0 ? w : -w;
    else *b += w > 0 ? w : -w;
}

/* ------------------------------------------------------ 1. collinear merge */

static int cmp_line(int32_t a, int32_t b, const void *ctx)
{
    const cseg *s = (const cseg *)ctx;
    const cseg *p = s + a, *q = s + b;
    if (p->ux != q->ux) return p->ux < q->ux ? -1 : 1;
    if (p->uy != q->uy) return p->uy < q->uy ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return a < b ? -1 : (a > b);
}

static int cmp_lev(int32_t a, int32_t b, const void *ctx)
{
    const lev *l = (const lev *)ctx;
    if (l[a].s != l[b].s) return l[a].s < l[b].s ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Count a solid segment with this tag in (+1) or out (-1) of the active
 * list act[0..*nact) of (tag, count) pairs. */
static un_status track_tag(un_arr *w, int32_t *nact, int32_t tag, int32_t delta)
{
    int32_t i;
    for (i = 0; i < *nact; i++)
        if (w->act[2 * i] == tag) {
            if ((w->act[2 * i + 1] += delta) == 0) {   /* gone: the last takes its place */
                (*nact)--;
                w->act[2 * i] = w->act[2 * *nact];
                w->act[2 * i + 1] = w->act[2 * *nact + 1];
            }
            return UN_OK;
        }
    UN_TRY(UN_RESERVE(w->act, w->cap_act, 2 * ((int64_t)*nact + 1)));
    w->act[2 * *nact] = tag;
    w->act[2 * *nact + 1] = delta;
    (*nact)++;
    return UN_OK;
}

/* The common tag of the active solid segments, TAG_MIXED when they differ,
 * -1 when there are none. */
static int32_t active_tag(const un_arr *w, int32_t nact)
{
    int32_t i, tag = -1;
    for (i = 0; i < nact; i++) {
        if (tag == -1) tag = w->act[2 * i];
        else if (tag != w->act[2 * i]) return TAG_MIXED;
    }
    return tag;
}

un_status un_ar_merge_collinear(un_arr *w, const un_seg *segs, int32_t n)
{
    int32_t i, k, m = 0;
    UN_TRY(UN_RESERVE(w->cs, w->cap_cs, n));
    for (i = 0; i < n; i++) {
        const un_seg *g = segs + i;
        cseg *c = w->cs + m;
        int dir = un_pt_cmp(g->a, g->b);
        int64_t dx, dy, gg;
        if (dir == 0 || (g->ws == 0 && g->wc == 0)) continue;
        dir = -dir; /* +1 when a < b */
        c->lo = dir > 0 ? g->a : g->b;
        c->hi = dir > 0 ? g->b : g->a;
        dx = c->hi.x - c->lo.x;
        dy = c->hi.y - c->lo.y;
        gg = gcd64(dx, dy);
        c->ux = dx / gg;
        c->uy = dy / gg;
        c->c = c->ux * c->lo.y - c->uy * c->lo.x;
        c->fs = c->bs = c->fc = c->bc = 0;
        tally(g->ws, dir, &c->fs, &c->bs);
        tally(g->wc, dir, &c->fc, &c->bc);
        c->tag = g->ws ? g->tag : -1;
        m++;
    }
    UN_TRY(UN_RESERVE(w->ord, w->cap_ord, m));
    UN_TRY(UN_RESERVE(w->tmp, w->cap_tmp, 2 * (int64_t)m + 2));
    for (i = 0; i < m; i++) w->ord[i] = i;
    un_sort_idx(w->ord, m, cmp_line, w->cs, w->tmp);

    w->nms = 0;
    for (i = 0; i < m; i = k) {
        const cseg *g0 = w->cs + w->ord[i];
        int32_t j, nl = 0, cur[4] = {0, 0, 0, 0};
        for (k = i; k < m; k++) {
            const cseg *g = w->cs + w->ord[k];
            if (g->ux != g0->ux || g->uy != g0->uy || g->c != g0->c) break;
        }
        if (k - i == 1) { /* alone on its line: the common case */
            mseg *o;
            UN_TRY(UN_RESERVE(w->ms, w->cap_ms, (int64_t)w->nms + 1));
            o = w->ms + w->nms++;
            o->lo = g0->lo; o->hi = g0->hi;
            o->fs = g0->fs; o->bs = g0->bs; o->fc = g0->fc; o->bc = g0->bc;
            o->tag = g0->tag;
            continue;
        }
        UN_TRY(UN_RESERVE(w->lv, w->cap_lv, 2 * (int64_t)(k - i)));
        for (j = i; j < k; j++) {
            const cseg *g = w->cs + w->ord[j];
            lev *a = w->lv + nl++, *b = w->lv + nl++;
            a->p = g->lo; b->p = g->hi;
            a->s = g0->ux ? g->lo.x : g->lo.y;
            b->s = g0->ux ? g->hi.x : g->hi.y;
            a->fs = g->fs; a->bs = g->bs; a->fc = g->fc; a->bc = g->bc;
            b->fs = -g->fs; b->bs = -g->bs; b->fc = -g->fc; b->bc = -g->bc;
            a->tag = b->tag = g->tag;
        }
        UN_TRY(UN_RESERVE(w->ord, w->cap_ord, m + (int64_t)nl));
        {
            int32_t *lo = w->ord + m; /* scratch after the segment order */
            for (j = 0; j < nl; j++) lo[j] = j;
            un_sort_idx(lo, nl, cmp_lev, w->lv, w->tmp);
            /* a piece's tag is that of the solid segments running along it
             * if they agree: the solids active on the line are counted by
             * tag (few at a time, so a short list) */
            {
                int32_t nact = 0, tag;
                for (j = 0; j < nl; j++) {
                    const lev *e = w->lv + lo[j];
                    cur[0] += e->fs; cur[1] += e->bs; cur[2] += e->fc; cur[3] += e->bc;
                    if (e->tag != -1 && (e->fs || e->bs)) UN_TRY(track_tag(w, &nact, e->tag, e->fs + e->bs > 0 ? 1 : -1));
                    if (j + 1 < nl && w->lv[lo[j + 1]].s != e->s &&
                        (cur[0] || cur[1] || cur[2] || cur[3])) {
                        mseg *o;
                        tag = active_tag(w, nact);
                        UN_TRY(UN_RESERVE(w->ms, w->cap_ms, (int64_t)w->nms + 1));
                        o = w->ms + w->nms++;
                        o->lo = e->p;
                        o->hi = w->lv[lo[j + 1]].p;
                        o->fs = cur[0]; o->bs = cur[1]; o->fc = cur[2]; o->bc = cur[3];
                        o->tag = (cur[0] || cur[1]) ? tag : -1;
                    }
                }
            }
        }
    }
    return UN_OK;
}
