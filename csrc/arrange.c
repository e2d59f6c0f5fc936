/*
 * arrange.c - exact segment arrangements with winding numbers, and the
 * tracing of the boundary of a free (or covered) set.
 *
 * This is the single Boolean engine of uvnest.  Outlines (union of faces),
 * no-fit polygons (winding of a convolution) and collision-free regions
 * (container minus obstacles) are all "trace the boundary of the points whose
 * winding numbers satisfy a predicate" over a set of directed segments.
 *
 * Method
 * 1. Collinear overlapping segments are merged into disjoint pieces; each
 *    piece keeps how many solid (fs/bs) and container (fc/bc) segments run
 *    along it forwards and backwards.  After this, two pieces meet in at
 *    most one point.
 * 2. Candidate pairs come from a uniform grid; each pair meeting in a point
 *    gives an event with exact rational parameters t = n/d on both pieces.
 * 3. Per piece, events are sorted exactly (128-bit cross multiplication);
 *    equal parameters are merged with a union-find, which identifies every
 *    vertex without ever rounding a coordinate.
 * 4. Half-edges around each vertex are sorted by exact angle.  Winding
 *    numbers are propagated around vertices and along edges; each connected
 *    component is seeded by shooting a ray to the left of its leftmost
 *    vertex (an input endpoint, so the ray test is exact integer math).
 *    A reduced convolution (UN_SEL_RCONV) has no winding numbers: its faces
 *    are walked instead and each is classified once (4b).
 * 5. Edges are classified with open semantics for solids (a point on a
 *    solid's boundary is free) and closed semantics for the container, and
 *    the selected half-edges are chained into loops, turning as far right as
 *    possible (rotating counter-clockwise from the reversed incoming edge).
 *    That keeps degenerate free parts - zero-width corridors ("cracks") are
 *    walked there and back - and joins free regions that touch at a point.
 *
 * Vertices are exact rationals internally; loops report them as doubles and
 * rounded to the nearest grid point.
 */
#include "internal.h"

#include <math.h>

/* tag of a merged piece whose input segments bound different solids */
#define TAG_MIXED (-2)

typedef struct {
    un_pt   lo, hi;
    int64_t ux, uy, c;     /* reduced direction and line offset (line key) */
    int32_t fs, bs, fc, bc;
    int32_t tag;
} cseg;

typedef struct {
    un_pt   lo, hi;
    int32_t fs, bs, fc, bc;
    int32_t tag;           /* the solid its solid segments bound, or TAG_MIXED */
} mseg;

typedef struct {
    int64_t s;             /* position along the line */
    un_pt   p;
    int32_t fs, bs, fc, bc; /* signed changes at this position */
    int32_t tag;
} lev;

typedef struct {
    int64_t n, d;          /* parameter n/d in [0, 1] along the piece */
    int32_t node;
} inc;

typedef struct {
    int64_t np, nq, d;     /* a crossing: t = np/d on piece p, nq/d on q */
} hit;

struct un_arr {
    cseg    *cs;    int32_t cap_cs;
    int32_t *ord;   int32_t cap_ord;
    int32_t *tmp;   int32_t cap_tmp;
    lev     *lv;    int32_t cap_lv;
    int32_t *act;   int32_t cap_act;     /* (tag, count) of solids active on a line */
    mseg    *ms;    int32_t cap_ms;  int32_t nms;
    /* grid */
    int32_t *cellcnt; int32_t cap_cellcnt;
    int32_t *cellit;  int32_t cap_cellit;
    int32_t *pairc;   int32_t cap_pairc;   /* (cell, seg) pairs, flattened */
    int64_t *cand;    int32_t cap_cand;
    hit     *hits;    int32_t cap_hits;    /* per candidate that meets */
    int32_t gx, gy;
    int64_t x0, y0, cx, cy;
    /* incidences */
    inc     *in;    int32_t cap_in;
    int32_t *inst;  int32_t cap_inst;
    int32_t *uf;    int32_t cap_uf;
    int32_t nev;
    /* vertices */
    int32_t  nv;
    int32_t *vid;   int32_t cap_vid;     /* node -> vertex */
    double  *vxy;   int32_t cap_vxy;     /* 2 per vertex */
    un_pt   *vpt;   int32_t cap_vpt;     /* exact point for input endpoints */
    int8_t  *vint;  int32_t cap_vint;
    int32_t *vinc;  int32_t cap_vinc;    /* an incidence at the vertex */
    int32_t *vseg;  int32_t cap_vseg;    /* the piece of that incidence */
    /* edges / half-edges */
    int32_t  ne;
    int32_t *eu;    int32_t cap_eu;      /* 2 per edge: tail vertex of 2e and of 2e+1 */
    int32_t *eseg;  int32_t cap_eseg;
    int32_t *einc;  int32_t cap_einc;    /* incidence of the edge's tail */
    int32_t *vst;   int32_t cap_vst;
    int32_t *vout;  int32_t cap_vout;
    int32_t *hpos;  int32_t cap_hpos;
    int32_t *wsl;   int32_t cap_wsl;     /* solid winding left of each half-edge */
    int32_t *wcl;   int32_t cap_wcl;
    int32_t *anchor; int32_t cap_anchor; /* per vertex: half-edge with known left winding */
    int32_t *queue; int32_t cap_queue;
    int32_t *comp;  int32_t cap_comp;
    int8_t  *sel;   int32_t cap_sel;     /* half-edge selected for the boundary */
    int32_t *stamp; int32_t cap_stamp;   /* per merged segment, for ray dedupe */
    int32_t *face;  int32_t cap_face;    /* per half-edge: the face on its left */
    int8_t  *fin;   int32_t cap_fin;     /* per face: inside the sum (RCONV) */
    int32_t  stampv;
    /* output */
    un_loop *loops; int32_t cap_loops; int32_t nloops;
    double  *oxy;   int32_t cap_oxy;
    un_pt   *opt;   int32_t cap_opt;
    int32_t  nout;
    un_select ran;   /* the selection the last run was asked for */
};


/* Below this many pieces, candidate pairs come from a plain double loop. */
#define SMALL_INPUT 64

un_workspace *un_workspace_new(void)
{
    return (un_arr *)calloc(1, sizeof(un_arr));
}

void un_workspace_free(un_workspace *w)
{
    if (!w) return;
    free(w->cs); free(w->ord); free(w->tmp); free(w->lv); free(w->act); free(w->ms);
    free(w->cellcnt); free(w->cellit); free(w->pairc); free(w->cand); free(w->hits);
    free(w->in); free(w->inst); free(w->uf);
    free(w->vid); free(w->vxy); free(w->vpt); free(w->vint); free(w->vinc); free(w->vseg);
    free(w->eu); free(w->eseg); free(w->einc); free(w->vst); free(w->vout); free(w->hpos);
    free(w->wsl); free(w->wcl); free(w->anchor); free(w->queue); free(w->comp);
    free(w->sel); free(w->stamp); free(w->face); free(w->fin);
    free(w->loops); free(w->oxy); free(w->opt); 
    free(w);
}

int32_t un_arr_nloops(const un_arr *w) { return w->nloops; }
un_select un_arr_ran(const un_arr *w) { return w->ran; }
const un_loop *un_arr_loops(const un_arr *w) { return w->loops; }
const double *un_arr_xy(const un_arr *w) { return w->oxy; }
const un_pt *un_arr_ipts(const un_arr *w) { return w->opt; }

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

static un_status merge_collinear(un_arr *w, const un_seg *segs, int32_t n)
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

/* ------------------------------------------------- 2. candidate pairs */

/* Column range of segment s within grid row r (conservative). */
static void row_cols(const un_arr *w, const mseg *s, int32_t r, int32_t *c0, int32_t *c1)
{
    double ya = (double)(w->y0 + r * w->cy), yb = ya + (double)w->cy;
    double xa, xb, lo, hi;
    int64_t dy = s->hi.y - s->lo.y;
    if (dy == 0) {
        lo = (double)s->lo.x; hi = (double)s->hi.x;
    } else {
        double miny = (double)(dy > 0 ? s->lo.y : s->hi.y), maxy = (double)(dy > 0 ? s->hi.y : s->lo.y);
        double dx = (double)(s->hi.x - s->lo.x);
        if (ya < miny) ya = miny;
        if (yb > maxy) yb = maxy;
        xa = (double)s->lo.x + (ya - (double)s->lo.y) * dx / (double)dy;
        xb = (double)s->lo.x + (yb - (double)s->lo.y) * dx / (double)dy;
        lo = xa < xb ? xa : xb;
        hi = xa < xb ? xb : xa;
        lo -= 2; hi += 2;
        if (lo < (double)s->lo.x) lo = (double)s->lo.x;
        if (hi > (double)s->hi.x) hi = (double)s->hi.x;
    }
    *c0 = (int32_t)floor((lo - (double)w->x0) / (double)w->cx);
    *c1 = (int32_t)floor((hi - (double)w->x0) / (double)w->cx);
    if (*c0 < 0) *c0 = 0;
    if (*c1 >= w->gx) *c1 = w->gx - 1;
}

static void seg_rows(const un_arr *w, const mseg *s, int32_t *r0, int32_t *r1)
{
    int64_t miny = s->lo.y < s->hi.y ? s->lo.y : s->hi.y;
    int64_t maxy = s->lo.y < s->hi.y ? s->hi.y : s->lo.y;
    *r0 = (int32_t)((miny - w->y0) / w->cy);
    *r1 = (int32_t)((maxy - w->y0) / w->cy);
    if (*r1 >= w->gy) *r1 = w->gy - 1;
}

static un_status build_grid(un_arr *w)
{
    int32_t i, n = w->nms, npairs = 0;
    int64_t x1 = INT64_MIN, y1 = INT64_MIN, g, ncell;
    w->x0 = w->y0 = INT64_MAX;
    for (i = 0; i < n; i++) {
        const mseg *s = w->ms + i;
        int64_t a = s->lo.y < s->hi.y ? s->lo.y : s->hi.y, b = s->lo.y < s->hi.y ? s->hi.y : s->lo.y;
        if (s->lo.x < w->x0) w->x0 = s->lo.x;
        if (s->hi.x > x1) x1 = s->hi.x;
        if (a < w->y0) w->y0 = a;
        if (b > y1) y1 = b;
    }
    g = (int64_t)ceil(sqrt((double)n) * 0.75);
    if (g < 1) g = 1;
    if (g > 1024) g = 1024;
    w->cx = (x1 - w->x0) / g + 1;
    w->cy = (y1 - w->y0) / g + 1;
    w->gx = (int32_t)((x1 - w->x0) / w->cx + 1);
    w->gy = (int32_t)((y1 - w->y0) / w->cy + 1);
    ncell = (int64_t)w->gx * w->gy;
    UN_TRY(UN_RESERVE(w->cellcnt, w->cap_cellcnt, ncell + 1));
    memset(w->cellcnt, 0, (size_t)(ncell + 1) * sizeof *w->cellcnt);
    /* pass 1: count (cell, seg) incidences */
    for (i = 0; i < n; i++) {
        int32_t r, r0, r1, c0, c1, c;
        seg_rows(w, w->ms + i, &r0, &r1);
        for (r = r0; r <= r1; r++) {
            row_cols(w, w->ms + i, r, &c0, &c1);
            for (c = c0; c <= c1; c++) w->cellcnt[(int64_t)r * w->gx + c + 1]++;
            npairs += c1 - c0 + 1;
            if (npairs > INT32_MAX / 4) return UN_ERANGE;
        }
    }
    for (i = 0; i < ncell; i++) w->cellcnt[i + 1] += w->cellcnt[i];
    UN_TRY(UN_RESERVE(w->cellit, w->cap_cellit, npairs));
    UN_TRY(UN_RESERVE(w->pairc, w->cap_pairc, ncell + 1));
    memcpy(w->pairc, w->cellcnt, (size_t)(ncell + 1) * sizeof *w->pairc);
    for (i = 0; i < n; i++) {
        int32_t r, r0, r1, c0, c1, c;
        seg_rows(w, w->ms + i, &r0, &r1);
        for (r = r0; r <= r1; r++) {
            row_cols(w, w->ms + i, r, &c0, &c1);
            for (c = c0; c <= c1; c++) w->cellit[w->pairc[(int64_t)r * w->gx + c]++] = i;
        }
    }
    return UN_OK;
}

static int bbox_overlap(const mseg *a, const mseg *b)
{
    int64_t ay0 = a->lo.y < a->hi.y ? a->lo.y : a->hi.y, ay1 = a->lo.y ^ a->hi.y ^ ay0;
    int64_t by0 = b->lo.y < b->hi.y ? b->lo.y : b->hi.y, by1 = b->lo.y ^ b->hi.y ^ by0;
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && ay0 <= by1 && by0 <= ay1;
}

/* Sort q values of one bucket ascending (buckets are short: insertion sort,
 * with a merge sort through the shared index sorter for long ones). */
static int cmp_q(int32_t a, int32_t b, const void *ctx)
{
    const int32_t *q = (const int32_t *)ctx;
    return (q[a] > q[b]) - (q[a] < q[b]);
}

/* Candidate pairs (p < q, bounding boxes overlap), unique and ordered by
 * (p, q): the order fixes the numbering of events and vertices, so it must
 * not depend on the grid.  The grid reports a pair once per shared cell; a
 * counting sort by p and a short sort by q per bucket order them (no
 * general sort of 64-bit keys). */
static un_status find_candidates(un_arr *w, int32_t *ncand)
{
    int64_t cell, ncell = (int64_t)w->gx * w->gy;
    int32_t nc = 0, i, j, k, n = w->nms, *qs, *start;
    if (n <= SMALL_INPUT) {
        /* few pieces: every pair, already in order and unique */
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++) {
                if (!bbox_overlap(w->ms + i, w->ms + j)) continue;
                UN_TRY(UN_RESERVE(w->cand, w->cap_cand, (int64_t)nc + 1));
                w->cand[nc++] = ((int64_t)i << 32) | j;
            }
        *ncand = nc;
        return UN_OK;
    }
    for (cell = 0; cell < ncell; cell++) {
        int32_t a = w->cellcnt[cell], b = w->cellcnt[cell + 1];
        for (i = a; i < b; i++) {
            for (j = i + 1; j < b; j++) {
                int32_t p = w->cellit[i], q = w->cellit[j];
                if (!bbox_overlap(w->ms + p, w->ms + q)) continue;
                UN_TRY(UN_RESERVE(w->cand, w->cap_cand, (int64_t)nc + 1));
                w->cand[nc++] = p < q ? ((int64_t)p << 32) | q : ((int64_t)q << 32) | p;
            }
        }
    }
    /* buckets by p in qs = ord[0, nc); ord[nc, 2 nc) and tmp are scratch
     * for long buckets (all three are free at this stage) */
    UN_TRY(UN_RESERVE(w->ord, w->cap_ord, 2 * (int64_t)nc + 2));
    UN_TRY(UN_RESERVE(w->tmp, w->cap_tmp, (int64_t)nc + 2));
    UN_TRY(UN_RESERVE(w->inst, w->cap_inst, (int64_t)n + 2));
    start = w->inst;
    qs = w->ord;
    for (i = 0; i <= n + 1; i++) start[i] = 0;
    for (k = 0; k < nc; k++) start[(w->cand[k] >> 32) + 2]++;
    for (i = 0; i < n; i++) start[i + 2] += start[i + 1];
    for (k = 0; k < nc; k++) qs[start[(w->cand[k] >> 32) + 1]++] = (int32_t)(w->cand[k] & 0xffffffff);
    /* now start[p] .. start[p + 1] is bucket p */
    for (i = 0, k = 0; i < n; i++) {
        int32_t a = start[i], b = start[i + 1], m = b - a, t, last = -1;
        int32_t *v = qs + a;
        if (m <= 32) {
            for (j = 1; j < m; j++) {
                int32_t x = v[j];
                for (t = j; t > 0 && v[t - 1] > x; t--) v[t] = v[t - 1];
                v[t] = x;
            }
        } else {
            int32_t *idx = qs + nc, *sorted = w->tmp; /* both hold m <= nc */
            for (j = 0; j < m; j++) idx[j] = j;
            un_sort_idx(idx, m, cmp_q, v, sorted);
            for (j = 0; j < m; j++) sorted[j] = v[idx[j]];
            memcpy(v, sorted, (size_t)m * sizeof *v);
        }
        for (j = 0; j < m; j++) {
            if (v[j] == last) continue;
            last = v[j];
            w->cand[k++] = ((int64_t)i << 32) | v[j];
        }
    }
    *ncand = k;
    return UN_OK;
}

/* ------------------------------------------------------ 3. events */

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

static un_status build_vertices(un_arr *w, int32_t ncand)
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

/* ------------------------------------------------ 4. half-edges, winding */

static void hdir(const un_arr *w, int32_t h, int64_t *dx, int64_t *dy)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    *dx = s->hi.x - s->lo.x;
    *dy = s->hi.y - s->lo.y;
    if (h & 1) { *dx = -*dx; *dy = -*dy; }
}

static int cmp_angle(int32_t a, int32_t b, const void *ctx)
{
    const un_arr *w = (const un_arr *)ctx;
    int64_t ax, ay, bx, by;
    hdir(w, a, &ax, &ay);
    hdir(w, b, &bx, &by);
    return un_angle_cmp(ax, ay, bx, by);
}

static un_status build_edges(un_arr *w)
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

static int32_t head(const un_arr *w, int32_t h) { return w->eu[h ^ 1]; }

/* Winding jumps (right to left) across half-edge h. */
static int32_t jump_s(const un_arr *w, int32_t h)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    return (h & 1) ? s->bs - s->fs : s->fs - s->bs;
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

static un_status propagate(un_arr *w)
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
static un_status classify_faces(un_arr *w, const un_verifier *vf)
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

/* ------------------------------------------------- 5. select and trace */

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

static un_status select_edges(un_arr *w, un_select sel, const un_verifier *vf)
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

static un_status isolated_points(un_arr *w, un_select sel, const un_verifier *vf)
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

static un_status trace(un_arr *w)
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

un_status un_arr_run(un_arr *w, const un_seg *segs, int32_t nsegs, un_select sel,
                     const un_verifier *verify)
{
    int32_t i, ncand;
    w->nloops = 0;
    w->nout = 0;
    for (i = 0; i < nsegs; i++) {
        const un_seg *g = segs + i;
        if (g->a.x < -UN_COORD_LIMIT || g->a.x > UN_COORD_LIMIT || g->a.y < -UN_COORD_LIMIT ||
            g->a.y > UN_COORD_LIMIT || g->b.x < -UN_COORD_LIMIT || g->b.x > UN_COORD_LIMIT ||
            g->b.y < -UN_COORD_LIMIT || g->b.y > UN_COORD_LIMIT)
            return UN_ERANGE;
    }
    w->ran = sel;
    UN_TRY(merge_collinear(w, segs, nsegs));
    if (w->nms == 0) return UN_OK;
    UN_TRY(build_grid(w));
    UN_TRY(find_candidates(w, &ncand));
    UN_TRY(build_vertices(w, ncand));
    UN_TRY(build_edges(w));
    if (sel == UN_SEL_RCONV) {
        if (!verify || !verify->inside_near) return UN_EINVAL;
        UN_TRY(classify_faces(w, verify));
        sel = UN_SEL_CONV;   /* from here on, sides are known as for a full one */
    } else {
        UN_TRY(propagate(w));
    }
    UN_TRY(select_edges(w, sel, verify));
    UN_TRY(trace(w));
    UN_TRY(isolated_points(w, sel, verify));
    return UN_OK;
}

un_status un_segs_from_rings(un_seg **segs, int32_t *n, int32_t *cap, const un_rings *r,
                             int32_t ws, int32_t wc, int32_t tag, int rev)
{
    int32_t k, i;
    UN_TRY(un_reserve((void **)segs, cap, (int64_t)*n + un_rings_npts(r), sizeof **segs));
    for (k = 0; k < r->nrings; k++) {
        int32_t s = r->start[k], m = r->start[k + 1] - s;
        for (i = 0; i < m; i++) {
            un_seg *g = *segs + (*n)++;
            un_pt a = r->pts[s + i], b = r->pts[s + (i + 1) % m];
            g->a = rev ? b : a;
            g->b = rev ? a : b;
            g->ws = ws;
            g->wc = wc;
            g->tag = tag;
        }
    }
    return UN_OK;
}
