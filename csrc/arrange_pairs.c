/*
 * arrange_pairs.c - Stage 2 of an arrangement (arrange.c has the method):
 * the candidate pairs of pieces, from a uniform grid (a plain double loop
 * for small inputs), and the exact crossing of each pair that meets.
 */
#include "arrange_state.h"

#include <math.h>

/* Below this many pieces, candidate pairs come from a plain double loop. */
#define SMALL_INPUT 64

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

un_status un_ar_build_grid(un_arr *w)
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
un_status un_ar_find_candidates(un_arr *w, int32_t *ncand)
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
