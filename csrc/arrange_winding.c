/*
 * arrange_winding.c - Stage 4 of an arrangement (arrange.c has the method):
 * half-edges sorted by exact angle around each vertex and winding numbers
 * propagated from a ray to the left of each component's leftmost vertex;
 * 4b: the faces of a reduced convolution, each classified once.
 */
#include "arrange_state.h"

#include <math.h>

static int cmp_angle(int32_t a, int32_t b, const void *ctx)
{
    const un_arr *w = (const un_arr *)ctx;
    int64_t ax, ay, bx, by;
    hdir(w, a, &ax, &ay);
    hdir(w, b, &bx, &by);
    return un_angle_cmp(ax, ay, bx, by);
}

un_status un_ar_build_edges(un_arr *w)
{
    int32_t i, j, n = w->nms, ne = 0, nh;
    for (i = 0; i < n; i++) {
        int32_t a = w->inst[i], b = w->inst[i + 1];
        for (j = a + 1; j < b; j++)
            if (w->vid[w->in[j].node] != w->vid[w->in[j - 1].node]) ne++;
    }
    w->ne = ne;
    nh = 2 * ne;
    UN_TRY(UN_RESERVE(w->eu, w->cap_eu, nh));
    UN_TRY(UN_RESERVE(w->eseg, w->cap_eseg, ne));
    UN_TRY(UN_RESERVE(w->einc, w->cap_einc, ne));
    ne = 0;
    for (i = 0; i < n; i++) {
        int32_t a = w->inst[i], b = w->inst[i + 1];
        for (j = a + 1; j < b; j++) {
            int32_t u = w->vid[w->in[j - 1].node], v = w->vid[w->in[j].node];
            if (u == v) continue;
            w->eu[2 * ne] = u;
            w->eu[2 * ne + 1] = v;
            w->eseg[ne] = i;
            w->einc[ne] = j - 1;
            ne++;
        }
    }
    UN_TRY(UN_RESERVE(w->vst, w->cap_vst, (int64_t)w->nv + 1));
    UN_TRY(UN_RESERVE(w->vout, w->cap_vout, nh));
    UN_TRY(UN_RESERVE(w->hpos, w->cap_hpos, nh));
    UN_TRY(UN_RESERVE(w->tmp, w->cap_tmp, nh + 2));
    for (i = 0; i <= w->nv; i++) w->vst[i] = 0;
    for (i = 0; i < nh; i++) w->vst[w->eu[i] + 1]++;
    for (i = 0; i < w->nv; i++) w->vst[i + 1] += w->vst[i];
    for (i = 0; i < nh; i++) w->hpos[i] = 0;
    {
        int32_t *cur = w->tmp;
        for (i = 0; i < w->nv; i++) cur[i] = w->vst[i];
        for (i = 0; i < nh; i++) w->vout[cur[w->eu[i]]++] = i;
    }
    for (i = 0; i < w->nv; i++) {
        int32_t a = w->vst[i], b = w->vst[i + 1];
        un_sort_idx(w->vout + a, b - a, cmp_angle, w, w->tmp);
        for (j = a; j < b; j++) w->hpos[w->vout[j]] = j - a;
    }
    return UN_OK;
}

static int32_t jump_c(const un_arr *w, int32_t h)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    return (h & 1) ? s->bc - s->fc : s->fc - s->bc;
}

/* Winding numbers just left of integer point p (ray to the left, ray
 * nudged upwards: half-open rule on y).  Exact. */
static void ray_left(un_arr *w, un_pt p, int32_t *ws, int32_t *wc)
{
    int32_t r = (int32_t)((p.y - w->y0) / w->cy), c, cend;
    int32_t s = 0, t = 0;
    if (r >= w->gy) r = w->gy - 1;
    cend = (int32_t)((p.x - w->x0) / w->cx);
    if (cend >= w->gx) cend = w->gx - 1;
    w->stampv++;
    for (c = 0; c <= cend; c++) {
        int64_t cell = (int64_t)r * w->gx + c;
        int32_t i;
        for (i = w->cellcnt[cell]; i < w->cellcnt[cell + 1]; i++) {
            int32_t k = w->cellit[i];
            const mseg *g = w->ms + k;
            int32_t ns = g->fs - g->bs, nc = g->fc - g->bc;
            int64_t cr;
            if (w->stamp[k] == w->stampv) continue;
            w->stamp[k] = w->stampv;
            if (g->lo.y <= p.y && g->hi.y > p.y) {          /* upward lo->hi */
                cr = un_cross(g->hi.x - g->lo.x, g->hi.y - g->lo.y, p.x - g->lo.x, p.y - g->lo.y);
                if (cr < 0) { s -= ns; t -= nc; }
            } else if (g->hi.y <= p.y && g->lo.y > p.y) {   /* downward lo->hi */
                cr = un_cross(g->hi.x - g->lo.x, g->hi.y - g->lo.y, p.x - g->lo.x, p.y - g->lo.y);
                if (cr > 0) { s += ns; t += nc; }
            }
        }
    }
    *ws = s;
    *wc = t;
}

/* Index (in v's sorted list) of the half-edge whose left wedge contains the
 * direction (-1, 0). */
static int32_t wedge_of_left(const un_arr *w, int32_t v)
{
    int32_t a = w->vst[v], b = w->vst[v + 1], j;
    /* the wedge after the last half-edge with angle < pi (cyclic) */
    int32_t best = b - 1;
    for (j = a; j < b; j++) {
        int64_t dx, dy;
        hdir(w, w->vout[j], &dx, &dy);
        if (un_angle_cmp(dx, dy, -1, 0) < 0) best = j;
    }
    return best - a;
}

un_status un_ar_propagate(un_arr *w)
{
    int32_t nh = 2 * w->ne, v, nq, qh;
    UN_TRY(UN_RESERVE(w->wsl, w->cap_wsl, nh));
    UN_TRY(UN_RESERVE(w->wcl, w->cap_wcl, nh));
    UN_TRY(UN_RESERVE(w->anchor, w->cap_anchor, w->nv));
    UN_TRY(UN_RESERVE(w->queue, w->cap_queue, w->nv));
    UN_TRY(UN_RESERVE(w->comp, w->cap_comp, w->nv));
    UN_TRY(UN_RESERVE(w->stamp, w->cap_stamp, w->nms));
    memset(w->stamp, 0, (size_t)w->nms * sizeof *w->stamp);
    w->stampv = 0;
    for (v = 0; v < w->nv; v++) { w->anchor[v] = -1; w->comp[v] = -1; }
    for (v = 0; v < w->nv; v++) {
        int32_t seed = -1, root = v;
        if (w->comp[v] >= 0 || w->vst[v] == w->vst[v + 1]) continue;
        /* find the component and its leftmost input endpoint */
        nq = 0; qh = 0;
        w->queue[nq++] = v;
        w->comp[v] = root;
        while (qh < nq) {
            int32_t u = w->queue[qh++], j;
            if (w->vint[u] && (seed < 0 || un_pt_cmp(w->vpt[u], w->vpt[seed]) < 0)) seed = u;
            for (j = w->vst[u]; j < w->vst[u + 1]; j++) {
                int32_t x = head(w, w->vout[j]);
                if (w->comp[x] < 0) { w->comp[x] = root; w->queue[nq++] = x; }
            }
        }
        if (seed < 0) return UN_EINTERNAL;
        {
            int32_t h0 = w->vout[w->vst[seed] + wedge_of_left(w, seed)];
            ray_left(w, w->vpt[seed], &w->wsl[h0], &w->wcl[h0]);
            w->anchor[seed] = h0;
        }
        /* propagate around vertices and along edges */
        nq = 0; qh = 0;
        w->queue[nq++] = seed;
        while (qh < nq) {
            int32_t u = w->queue[qh++];
            int32_t a = w->vst[u], deg = w->vst[u + 1] - a, p0 = w->hpos[w->anchor[u]], k, j = p0;
            /* counter-clockwise from the anchor: j runs p0 + 1 .. p0 + deg - 1
             * (cyclic, without a division per step) */
            for (k = 1; k < deg; k++) {
                int32_t prev = w->vout[a + j], h;
                if (++j == deg) j = 0;
                h = w->vout[a + j];
                w->wsl[h] = w->wsl[prev] + jump_s(w, h);
                w->wcl[h] = w->wcl[prev] + jump_c(w, h);
            }
            {   /* closing the circle must give back the anchor's value */
                int32_t last = w->vout[a + (p0 == 0 ? deg - 1 : p0 - 1)], h = w->anchor[u];
                if (w->wsl[last] + jump_s(w, h) != w->wsl[h] ||
                    w->wcl[last] + jump_c(w, h) != w->wcl[h])
                    return UN_EINTERNAL;
            }
            for (k = 0; k < deg; k++) {
                int32_t h = w->vout[a + k], t = h ^ 1, x = w->eu[t];
                if (w->anchor[x] >= 0) continue;
                w->wsl[t] = w->wsl[h] - jump_s(w, h);
                w->wcl[t] = w->wcl[h] - jump_c(w, h);
                w->anchor[x] = t;
                w->queue[nq++] = x;
            }
        }
    }
    return UN_OK;
}

/* ---------------------------------- 4b. face classification (RCONV) */

/* The half-edge after h around the face on h's left: at h's head, the
 * outgoing half-edge just clockwise of h's twin. */
static int32_t face_next(const un_arr *w, int32_t h)
{
    int32_t u = head(w, h), a = w->vst[u], deg = w->vst[u + 1] - a, p = w->hpos[h ^ 1];
    return w->vout[a + (p == 0 ? deg - 1 : p - 1)];
}

/* Does a segment of the reduced convolution run along h with h's left side
 * on its own left?  Then that side is inside the sum. */
static int left_is_sum(const un_arr *w, int32_t h)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    return (h & 1) ? s->bs > 0 : s->fs > 0;
}

/* Exact test just left of half-edge h, next to its tail. */
static int inside_left_of(const un_arr *w, int32_t h, const un_verifier *vf)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    const inc *t = w->in + w->einc[h >> 1] + (h & 1);   /* the tail's incidence */
    int64_t dx = s->hi.x - s->lo.x, dy = s->hi.y - s->lo.y;
    int64_t ex = (h & 1) ? -dx : dx, ey = (h & 1) ? -dy : dy;
    return vf->inside_near(vf->ctx, s->lo, dx, dy, t->n, t->d, ex, ey);
}

/* Winding stand-ins for a reduced convolution: wsl[h] = 1 when the face
 * left of h is inside the sum, else 0.  Faces are the cycles of face_next.
 * A face is inside when any of its edges has it on a segment's left; the
 * face left of the leftmost vertex is unbounded, so outside; the rest
 * (holes of the sum, and faces around nested components) are tested
 * exactly.  A face with several boundary cycles (around nested
 * components) gets the same answer from each, as every rule is exact. */
un_status un_ar_classify_faces(un_arr *w, const un_verifier *vf)
{
    int32_t nh = 2 * w->ne, h, nf = 0, v, lm = -1, unbounded = -1;
    UN_TRY(UN_RESERVE(w->wsl, w->cap_wsl, nh));
    UN_TRY(UN_RESERVE(w->wcl, w->cap_wcl, nh));
    UN_TRY(UN_RESERVE(w->face, w->cap_face, nh));
    for (h = 0; h < nh; h++) w->face[h] = -1;
    for (v = 0; v < w->nv; v++)
        if (w->vst[v] < w->vst[v + 1] && w->vint[v] && (lm < 0 || un_pt_cmp(w->vpt[v], w->vpt[lm]) < 0))
            lm = v;
    /* the leftmost vertex is an input endpoint: crossings lie between the
     * endpoints of their pieces */
    if (lm >= 0) unbounded = w->vout[w->vst[lm] + wedge_of_left(w, lm)];
    for (h = 0; h < nh; h++) {
        int32_t g = h, steps = 0, in = 0, outer = 0;
        if (w->face[h] >= 0) continue;
        do {
            w->face[g] = nf;
            in |= left_is_sum(w, g);
            outer |= g == unbounded;
            g = face_next(w, g);
            if (++steps > nh) return UN_EINTERNAL;
        } while (g != h);
        UN_TRY(UN_RESERVE(w->fin, w->cap_fin, (int64_t)nf + 1));
        /* the unbounded face left of a segment would mean the segments do
         * not bound the sum (operands that break the reduced convolution's
         * promise): the caller falls back to the full convolution */
        if (in && outer) return UN_EINTERNAL;
        w->fin[nf] = (int8_t)(in ? 1 : outer ? 0 : inside_left_of(w, h, vf));
        nf++;
    }
    for (h = 0; h < nh; h++) {
        w->wsl[h] = w->fin[w->face[h]];
        w->wcl[h] = 0;
    }
    return UN_OK;
}
