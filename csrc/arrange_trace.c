/*
 * arrange_trace.c - Stage 5 of an arrangement (arrange.c has the method):
 * the half-edges on the boundary of the selected set, chained into loops
 * turning as far right as possible, and the isolated free points.
 */
#include "arrange_state.h"

#include <math.h>

static int side_in(un_select sel, int32_t ws, int32_t wc)
{
    switch (sel) {
    case UN_SEL_FREE: return ws <= 0 && wc >= 1;
    case UN_SEL_CONV: case UN_SEL_RCONV: return ws <= 0;
    case UN_SEL_COVERED: return ws >= 1;
    }
    return 0;
}

/* Exact test of the point at parameter n/d along piece k. */
static int verify_at(const un_verifier *vf, const mseg *g, int64_t n, int64_t d)
{
    return vf->free_at(vf->ctx, g->lo, g->hi.x - g->lo.x, g->hi.y - g->lo.y, n, d);
}

un_status un_ar_select_edges(un_arr *w, un_select sel, const un_verifier *vf)
{
    int32_t e;
    UN_TRY(UN_RESERVE(w->sel, w->cap_sel, 2 * (int64_t)w->ne));
    for (e = 0; e < w->ne; e++) {
        int32_t h = 2 * e, t = h + 1;
        const mseg *s = w->ms + w->eseg[e];
        int lin = side_in(sel, w->wsl[h], w->wcl[h]);
        int rin = side_in(sel, w->wsl[t], w->wcl[t]);
        int edge_in;
        w->sel[h] = w->sel[t] = 0;
        if (sel != UN_SEL_FREE) {
            /* regularized: only edges between an in and an out side */
            w->sel[h] = (int8_t)(lin && !rin);
            w->sel[t] = (int8_t)(rin && !lin);
            /* a convolution's winding cannot say whether an edge inside
             * the sum between two opposite contacts (a slot the piece fits
             * exactly) is free; the verifier decides at an inner point */
            if (sel == UN_SEL_CONV && vf && vf->free_at && !lin && !rin && s->fs > 0 && s->bs > 0) {
                const inc *p = w->in + w->einc[e], *q = p + 1;
                if (verify_at(vf, s, p->n + q->n, p->d + q->d))
                    w->sel[h] = w->sel[t] = 1;
            }
            continue;
        }
        /* next to a core (winding >= deep) the solids' counts do not say
         * whether the edge itself is free: no crack runs there, only a
         * boundary when the other side is free (possible only where a
         * rotated core pokes out of its solid by rounding) */
        if (vf && vf->deep > 0 && (w->wsl[h] >= vf->deep || w->wsl[t] >= vf->deep)) {
            w->sel[h] = (int8_t)lin;
            w->sel[t] = (int8_t)rin;
            continue;
        }
        /* open solids: a point on a solid's own boundary is free;
         * closed container: a point on the container boundary is inside */
        edge_in = side_in(sel, w->wsl[h] - s->fs, w->wcl[h] + s->bc);
        if (!edge_in || (lin && rin)) continue;
        /* a there-and-back piece between two covered sides is a crack only
         * if its points are free: the counts cannot tell two solids that
         * touch along it from one solid's zero-width spike (a rounded ring)
         * poking into another solid */
        if (!lin && !rin && s->fs > 0 && s->bs > 0 && vf && vf->free_at) {
            const inc *p = w->in + w->einc[e], *q = p + 1;
            if (!verify_at(vf, s, p->n + q->n, p->d + q->d)) continue;
        }
        w->sel[h] = (int8_t)(lin || !rin);
        w->sel[t] = (int8_t)(rin || !lin);
    }
    return UN_OK;
}

/* Does vertex v qualify as an isolated free point?  It has no selected
 * edge and no free wedge, and enough constraints meet there to pin a piece:
 * three or more distinct lines, or an edge with contacts from both sides. */
static int point_candidate(const un_arr *w, un_select sel, int32_t v)
{
    int32_t a = w->vst[v], b = w->vst[v + 1], j, k, lines = 0;
    int opposite = 0;
    for (j = a; j < b; j++) {
        int32_t h = w->vout[j];
        const mseg *s = w->ms + w->eseg[h >> 1];
        int64_t dx, dy;
        if (w->sel[h] || w->sel[h ^ 1] || side_in(sel, w->wsl[h], w->wcl[h])) return 0;
        if (s->fs + s->fc > 0 && s->bs + s->bc > 0) opposite = 1;
        hdir(w, h, &dx, &dy);
        for (k = a; k < j; k++) {
            int64_t ex, ey;
            hdir(w, w->vout[k], &ex, &ey);
            if (un_cross(dx, dy, ex, ey) == 0) break;
        }
        if (k == j) lines++;
    }
    return opposite || lines >= 3;
}

static un_status point_loop(un_arr *w, double x, double y, un_pt ip)
{
    un_loop *L;
    UN_TRY(UN_RESERVE(w->oxy, w->cap_oxy, 2 * ((int64_t)w->nout + 1)));
    UN_TRY(UN_RESERVE(w->opt, w->cap_opt, (int64_t)w->nout + 1));
    UN_TRY(UN_RESERVE(w->loops, w->cap_loops, (int64_t)w->nloops + 1));
    w->oxy[2 * w->nout] = x;
    w->oxy[2 * w->nout + 1] = y;
    w->opt[w->nout] = ip;
    L = w->loops + w->nloops++;
    L->start = w->nout;
    L->end = ++w->nout;
    L->hole = 0;
    L->area2 = 0;
    return UN_OK;
}

un_status un_arr_add_point(un_arr *w, un_pt p)
{
    return point_loop(w, (double)p.x, (double)p.y, p);
}

static un_status add_point_loop(un_arr *w, int32_t v)
{
    un_pt ip;
    if (w->vint[v]) ip = w->vpt[v];
    else {
        ip.x = un_llround(w->vxy[2 * v]);
        ip.y = un_llround(w->vxy[2 * v + 1]);
    }
    return point_loop(w, w->vxy[2 * v], w->vxy[2 * v + 1], ip);
}

/* Is vertex v free, decided from the windings around it (UN_SEL_FREE)?
 * Solids are open: a solid whose boundary passes through v does not contain
 * v.  Around v, each solid's own winding steps by the jumps of its edges;
 * the lowest step is the part outside it, so cov_t(W) = c_t(W) - min c_t is
 * how much solid t adds to wedge W, and v's winding is w(W) - sum cov_t(W)
 * for any wedge W.  The container is closed: v is in it when a container
 * edge passes through v or a wedge is inside.  Returns -1 when an edge
 * bounds several solids at once (the caller then asks the verifier). */
static int vertex_free(const un_arr *w, int32_t v)
{
    int32_t a = w->vst[v], deg = w->vst[v + 1] - a, j, k;
    int32_t wv = w->wsl[w->vout[a]], on_container = 0;
    for (j = 0; j < deg; j++) {
        const mseg *g = w->ms + w->eseg[w->vout[a + j] >> 1];
        if (g->tag == TAG_MIXED) return -1;
        if (g->fc || g->bc) on_container = 1;
    }
    for (j = 0; j < deg; j++) {
        /* one pass per solid, at its first edge around v */
        int32_t t = w->ms[w->eseg[w->vout[a + j] >> 1]].tag;
        int32_t c = 0, lo = 0, c0;
        if (t < 0) continue;
        for (k = 0; k < j; k++)
            if (w->ms[w->eseg[w->vout[a + k] >> 1]].tag == t) break;
        if (k < j) continue;
        /* c(W_0) = 0; W_k is left of half-edge k, entered across it */
        for (k = 1; k < deg; k++) {
            int32_t h = w->vout[a + k];
            if (w->ms[w->eseg[h >> 1]].tag == t) c += jump_s(w, h);
            if (c < lo) lo = c;
        }
        c0 = 0 - lo;   /* cov_t(W_0) */
        wv -= c0;
    }
    return wv <= 0 && (on_container || w->wcl[w->vout[a]] >= 1);
}

un_status un_ar_isolated_points(un_arr *w, un_select sel, const un_verifier *vf)
{
    int32_t v;
    if (sel == UN_SEL_COVERED) return UN_OK;
    for (v = 0; v < w->nv; v++) {
        const inc *c;
        int32_t a = w->vst[v], b = w->vst[v + 1], j, f;
        if (a == b) continue;
        if (sel == UN_SEL_FREE) {
            /* no selected edge and no free wedge, yet free itself; a
             * vertex with a wedge inside a core is covered */
            for (j = a; j < b; j++) {
                int32_t h = w->vout[j];
                if (w->sel[h] || w->sel[h ^ 1] || side_in(sel, w->wsl[h], w->wcl[h])) break;
                if (vf && vf->deep > 0 && w->wsl[h] >= vf->deep) break;
            }
            if (j < b || (f = vertex_free(w, v)) == 0) continue;
            if (f == 1) { UN_TRY(add_point_loop(w, v)); continue; }
        } else if (!point_candidate(w, sel, v)) {
            continue;
        }
        if (!vf || !vf->free_at) continue;
        c = w->in + w->vinc[v];
        if (verify_at(vf, w->ms + w->vseg[v], c->n, c->d)) UN_TRY(add_point_loop(w, v));
    }
    return UN_OK;
}

un_status un_ar_trace(un_arr *w)
{
    int32_t nh = 2 * w->ne, h0, budget = 0;
    w->nloops = 0;
    w->nout = 0;
    for (h0 = 0; h0 < nh; h0++) budget += w->sel[h0];
    for (h0 = 0; h0 < nh; h0++) {
        int32_t h = h0, start = w->nout, steps = 0;
        un_loop *L;
        if (w->sel[h0] != 1) continue;
        do {
            int32_t v = w->eu[h], u = head(w, h), a, deg, p, k, next = -1;
            UN_TRY(UN_RESERVE(w->oxy, w->cap_oxy, 2 * ((int64_t)w->nout + 1)));
            UN_TRY(UN_RESERVE(w->opt, w->cap_opt, (int64_t)w->nout + 1));
            w->oxy[2 * w->nout] = w->vxy[2 * v];
            w->oxy[2 * w->nout + 1] = w->vxy[2 * v + 1];
            if (w->vint[v]) w->opt[w->nout] = w->vpt[v];
            else {
                w->opt[w->nout].x = un_llround(w->vxy[2 * v]);
                w->opt[w->nout].y = un_llround(w->vxy[2 * v + 1]);
            }
            w->nout++;
            w->sel[h] = 2; /* used */
            a = w->vst[u];
            deg = w->vst[u + 1] - a;
            p = w->hpos[h ^ 1];
            /* the successor rule is a permutation of the selected
             * half-edges, so the first selected one found is either unused
             * or the start of this loop */
            for (k = 1; k <= deg; k++) {
                int32_t c;
                if (++p == deg) p = 0;
                c = w->vout[a + p];
                if (w->sel[c]) { next = c; break; }
            }
            if (next < 0 || (w->sel[next] == 2 && next != h0) || ++steps > budget)
                return UN_EINTERNAL;
            h = next;
        } while (h != h0);
        UN_TRY(UN_RESERVE(w->loops, w->cap_loops, (int64_t)w->nloops + 1));
        L = w->loops + w->nloops++;
        L->start = start;
        L->end = w->nout;
        {
            /* the free (or covered) side is on the loop's left, so outer
             * boundaries run counter-clockwise and holes clockwise; loops
             * made only of there-and-back runs have no area and count as
             * (degenerate) outer boundaries.  Areas are taken relative to
             * the first point, from the exact vertices rounded to doubles */
            int32_t i;
            double acc = 0, bx = w->oxy[2 * start], by = w->oxy[2 * start + 1];
            for (i = start + 1; i + 1 < w->nout; i++)
                acc += (w->oxy[2 * i] - bx) * (w->oxy[2 * i + 3] - by) -
                       (w->oxy[2 * i + 1] - by) * (w->oxy[2 * i + 2] - bx);
            L->area2 = acc;
            L->hole = acc < 0;
        }
    }
    return UN_OK;
}
