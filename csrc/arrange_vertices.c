/*
 * arrange_vertices.c - Stage 3 of an arrangement (arrange.c has the
 * method): the events on each piece sorted exactly, equal parameters merged
 * by a union-find into vertices, never rounding a coordinate.
 */
#include "arrange_state.h"

#include <math.h>

/* Intersection of pieces p and q; on a hit fills parameters t_p = np/d and
 * t_q = nq/d (d > 0) and returns 1. */
static int intersect(const mseg *p, const mseg *q, int64_t *np, int64_t *nq, int64_t *d)
{
    int o1 = un_orient(p->lo, p->hi, q->lo), o2 = un_orient(p->lo, p->hi, q->hi);
    int o3, o4;
    int64_t dpx, dpy, dqx, dqy, rx, ry, den;
    if (o1 == o2 && o1 != 0) return 0;
    o3 = un_orient(q->lo, q->hi, p->lo);
    o4 = un_orient(q->lo, q->hi, p->hi);
    if (o3 == o4 && o3 != 0) return 0;
    if (o1 == 0 && o2 == 0) {
        /* collinear: merged pieces only share an endpoint */
        *d = 1;
        if (un_pt_cmp(p->lo, q->hi) == 0) { *np = 0; *nq = 1; return 1; }
        if (un_pt_cmp(p->hi, q->lo) == 0) { *np = 1; *nq = 0; return 1; }
        return 0;
    }
    dpx = p->hi.x - p->lo.x; dpy = p->hi.y - p->lo.y;
    dqx = q->hi.x - q->lo.x; dqy = q->hi.y - q->lo.y;
    rx = q->lo.x - p->lo.x;  ry = q->lo.y - p->lo.y;
    den = un_cross(dpx, dpy, dqx, dqy);
    *np = un_cross(rx, ry, dqx, dqy);
    *nq = un_cross(rx, ry, dpx, dpy);
    if (den < 0) { den = -den; *np = -*np; *nq = -*nq; }
    *d = den;
    return 1;
}

static int32_t uf_find(int32_t *uf, int32_t x)
{
    while (uf[x] != x) { uf[x] = uf[uf[x]]; x = uf[x]; }
    return x;
}

static void uf_union(int32_t *uf, int32_t a, int32_t b)
{
    a = uf_find(uf, a);
    b = uf_find(uf, b);
    if (a != b) { if (a < b) uf[b] = a; else uf[a] = b; }
}

static int cmp_inc(int32_t a, int32_t b, const void *ctx)
{
    const inc *v = (const inc *)ctx;
    int c = un_sign_mul_sub(v[a].n, v[b].d, v[b].n, v[a].d);
    if (c) return c;
    return a < b ? -1 : (a > b);
}

un_status un_ar_build_vertices(un_arr *w, int32_t ncand)
{
    int32_t i, k, n = w->nms, nev = 0, nodes;
    /* events: count per piece first */
    UN_TRY(UN_RESERVE(w->inst, w->cap_inst, (int64_t)n + 1));
    for (i = 0; i <= n; i++) w->inst[i] = 0;
    /* the candidates that meet are kept (in order) in cand[0, nev), their
     * parameters in hits[0, nev) */
    UN_TRY(UN_RESERVE(w->hits, w->cap_hits, ncand));
    for (k = 0; k < ncand; k++) {
        int32_t p = (int32_t)(w->cand[k] >> 32), q = (int32_t)(w->cand[k] & 0xffffffff);
        hit *x = w->hits + nev;
        if (!intersect(w->ms + p, w->ms + q, &x->np, &x->nq, &x->d)) continue;
        w->cand[nev++] = w->cand[k];
        w->inst[p + 1]++;
        w->inst[q + 1]++;
    }
    for (i = 0; i < n; i++) w->inst[i + 1] += w->inst[i] + 2;  /* + both endpoints */
    nodes = 2 * n + 2 * nev;
    UN_TRY(UN_RESERVE(w->in, w->cap_in, (int64_t)w->inst[n]));
    UN_TRY(UN_RESERVE(w->uf, w->cap_uf, nodes));
    UN_TRY(UN_RESERVE(w->tmp, w->cap_tmp, (int64_t)w->inst[n] + 2));
    UN_TRY(UN_RESERVE(w->ord, w->cap_ord, (int64_t)w->inst[n] + 2));
    for (i = 0; i < nodes; i++) w->uf[i] = i;
    {
        /* fill: endpoints, then events, using ord[] as per-piece cursors */
        int32_t *cur = w->ord;
        for (i = 0; i < n; i++) {
            inc *a = w->in + w->inst[i];
            a[0].n = 0; a[0].d = 1; a[0].node = 2 * i;
            a[1].n = 1; a[1].d = 1; a[1].node = 2 * i + 1;
            cur[i] = w->inst[i] + 2;
        }
        for (k = 0; k < nev; k++) {   /* event k: nodes 2n + 2k (on p), 2n + 2k + 1 (on q) */
            int32_t p = (int32_t)(w->cand[k] >> 32), q = (int32_t)(w->cand[k] & 0xffffffff);
            const hit *x = w->hits + k;
            w->in[cur[p]].n = x->np; w->in[cur[p]].d = x->d; w->in[cur[p]].node = 2 * n + 2 * k;
            w->in[cur[q]].n = x->nq; w->in[cur[q]].d = x->d; w->in[cur[q]].node = 2 * n + 2 * k + 1;
            cur[p]++; cur[q]++;
            uf_union(w->uf, 2 * n + 2 * k, 2 * n + 2 * k + 1);
        }
    }
    w->nev = nev;
    /* sort each piece's incidences; equal parameters are one vertex */
    {
        int32_t *idx = w->ord, *scratch = w->tmp;
        for (i = 0; i < n; i++) {
            int32_t a = w->inst[i], b = w->inst[i + 1], j, m = b - a;
            inc *v = w->in + a;
            if (m <= 16) {
                /* short lists (the common case): insertion sort in place */
                int32_t t;
                for (j = 1; j < m; j++) {
                    inc x = v[j];
                    for (t = j; t > 0 && un_sign_mul_sub(v[t - 1].n, x.d, x.n, v[t - 1].d) > 0; t--) v[t] = v[t - 1];
                    v[t] = x;
                }
            } else {
                inc *sorted = (inc *)malloc((size_t)m * sizeof(inc));
                if (!sorted) return UN_ENOMEM;
                for (j = 0; j < m; j++) idx[j] = j;
                un_sort_idx(idx, m, cmp_inc, v, scratch);
                for (j = 0; j < m; j++) sorted[j] = v[idx[j]];
                memcpy(v, sorted, (size_t)m * sizeof(inc));
                free(sorted);
            }
            for (j = 1; j < m; j++)
                if (un_sign_mul_sub(v[j].n, v[j - 1].d, v[j - 1].n, v[j].d) == 0)
                    uf_union(w->uf, v[j].node, v[j - 1].node);
        }
    }
    /* number the vertices and give them coordinates */
    UN_TRY(UN_RESERVE(w->vid, w->cap_vid, nodes));
    for (i = 0; i < nodes; i++) w->vid[i] = -1;
    w->nv = 0;
    for (i = 0; i < nodes; i++) {
        int32_t r = uf_find(w->uf, i);
        if (w->vid[r] < 0) w->vid[r] = w->nv++;
        w->vid[i] = w->vid[r];
    }
    UN_TRY(UN_RESERVE(w->vxy, w->cap_vxy, 2 * (int64_t)w->nv));
    UN_TRY(UN_RESERVE(w->vpt, w->cap_vpt, w->nv));
    UN_TRY(UN_RESERVE(w->vint, w->cap_vint, w->nv));
    UN_TRY(UN_RESERVE(w->vinc, w->cap_vinc, w->nv));
    UN_TRY(UN_RESERVE(w->vseg, w->cap_vseg, w->nv));
    memset(w->vint, 0, (size_t)w->nv);
    for (i = 0; i < w->nv; i++) w->vinc[i] = -1;
    for (i = 0; i < n; i++) {
        const mseg *s = w->ms + i;
        int32_t a = w->inst[i], b = w->inst[i + 1], j;
        for (j = a; j < b; j++) {
            const inc *c = w->in + j;
            int32_t v = w->vid[c->node];
            if (w->vinc[v] < 0) { w->vinc[v] = j; w->vseg[v] = i; }
            if (w->vint[v]) continue;
            if (c->n == 0 || c->n == c->d) {
                un_pt p = c->n == 0 ? s->lo : s->hi;
                w->vint[v] = 1;
                w->vpt[v] = p;
                w->vxy[2 * v] = (double)p.x;
                w->vxy[2 * v + 1] = (double)p.y;
            } else {
                long double t = (long double)c->n / (long double)c->d;
                w->vxy[2 * v] = (double)((long double)s->lo.x + t * (long double)(s->hi.x - s->lo.x));
                w->vxy[2 * v + 1] = (double)((long double)s->lo.y + t * (long double)(s->hi.y - s->lo.y));
            }
        }
    }
    return UN_OK;
}
