/*
 * mem.c - growable buffers and ring sets (integer and float).
 *
 * Ownership: a ring set owns its arrays; *_free releases them and leaves an
 * empty, reusable set.  Every allocation failure is reported as UN_ENOMEM
 * and leaves the set as it was.
 */
#include "internal.h"

const char *un_status_str(un_status s)
{
    switch (s) {
    case UN_OK: return "ok";
    case UN_ENOMEM: return "out of memory";
    case UN_EINVAL: return "invalid argument";
    case UN_ERANGE: return "value out of the supported range";
    case UN_ECANCELLED: return "cancelled";
    case UN_ENOFIT: return "the islands cannot fit the target";
    case UN_EINTERNAL: return "internal error";
    }
    return "unknown status";
}

un_status un_reserve(void **buf, int32_t *cap, int64_t need, size_t elem)
{
    int64_t ncap;
    void *p;
    if (need <= *cap) return UN_OK;
    if (need > INT32_MAX / 2) return UN_ERANGE;
    ncap = *cap < 16 ? 16 : (int64_t)*cap * 2;
    while (ncap < need) ncap *= 2;
    if ((uint64_t)ncap > SIZE_MAX / elem) return UN_ENOMEM;
    p = realloc(*buf, (size_t)ncap * elem);
    if (!p) return UN_ENOMEM;
    *buf = p;
    *cap = (int32_t)ncap;
    return UN_OK;
}

/* ---------------------------------------------------------- ring sets
 * un_rings and un_frings: points pts[0 .. start[nrings]) of elem bytes
 * each, ring k being points start[k] .. start[k + 1]. */

/* Append ring src[0..n); on failure the set is as it was. */
static un_status add_ring(void **pts, int32_t *cap_pts, int32_t **start, int32_t *cap_rings, int32_t *nrings,
                          const void *src, int32_t n, size_t elem)
{
    int32_t base = *nrings ? (*start)[*nrings] : 0;
    un_status s;
    if (n < 0) return UN_EINVAL;
    if ((s = un_reserve(pts, cap_pts, (int64_t)base + n, elem)) != UN_OK) return s;
    if ((s = UN_RESERVE(*start, *cap_rings, (int64_t)*nrings + 2)) != UN_OK) return s;
    if (n) memcpy((char *)*pts + (size_t)base * elem, src, (size_t)n * elem);
    (*start)[*nrings] = base;
    (*start)[*nrings + 1] = base + n;
    (*nrings)++;
    return UN_OK;
}

void un_rings_init(un_rings *r)
{
    memset(r, 0, sizeof *r);
}

void un_frings_init(un_frings *r)
{
    memset(r, 0, sizeof *r);
}

void un_rings_free(un_rings *r)
{
    free(r->pts);
    free(r->start);
    un_rings_init(r);
}

void un_frings_free(un_frings *r)
{
    free(r->xy);
    free(r->start);
    un_frings_init(r);
}

un_status un_rings_add(un_rings *r, const un_pt *pts, int32_t n)
{
    return add_ring((void **)&r->pts, &r->cap_pts, &r->start, &r->cap_rings, &r->nrings, pts, n, sizeof *pts);
}

/* xy holds 2 doubles per point; the capacity counts points */
un_status un_frings_add(un_frings *r, const double *xy, int32_t n)
{
    return add_ring((void **)&r->xy, &r->cap_pts, &r->start, &r->cap_rings, &r->nrings, xy, n, 2 * sizeof *xy);
}

int32_t un_frings_npts(const un_frings *r)
{
    return r->nrings ? r->start[r->nrings] : 0;
}

un_status un_frings_copy(un_frings *dst, const un_frings *src)
{
    int32_t k;
    un_status s = UN_OK;
    un_frings_init(dst);
    for (k = 0; k < src->nrings && s == UN_OK; k++)
        s = un_frings_add(dst, src->xy + 2 * src->start[k], src->start[k + 1] - src->start[k]);
    return s;
}

double un_frings_area(const un_frings *f)
{
    double a2 = 0;
    int32_t k, j;
    for (k = 0; k < f->nrings; k++) {
        int32_t a = f->start[k], n = f->start[k + 1] - a;
        for (j = 0; j < n; j++) {
            const double *p = f->xy + 2 * (a + j), *q = f->xy + 2 * (a + (j + 1) % n);
            a2 += p[0] * q[1] - q[0] * p[1];
        }
    }
    return a2 / 2;
}

void un_rings_clear(un_rings *r)
{
    r->nrings = 0;
}

un_status un_rings_copy(un_rings *dst, const un_rings *src)
{
    int32_t k;
    un_status s;
    un_rings_clear(dst);
    for (k = 0; k < src->nrings; k++) {
        s = un_rings_add(dst, src->pts + src->start[k], src->start[k + 1] - src->start[k]);
        if (s != UN_OK) return s;
    }
    return UN_OK;
}

void un_fregions_free(un_fregions *r)
{
    un_frings_free(&r->rings);
    free(r->region_start);
    r->region_start = NULL;
    r->nregions = 0;
}

/* ------------------------------------------------------------ int rings */

double un_ring_area2(const un_rings *r, int32_t k)
{
    const un_pt *p = r->pts + r->start[k];
    int32_t n = r->start[k + 1] - r->start[k], i;
    /* Sum exact int64 cross products relative to the first point; each term
     * is exact, the running sum is exact while it fits 2^63 (it does for
     * rings within UN_COORD_LIMIT of modest size) and is then converted. */
    double acc = 0;
    for (i = 1; i + 1 < n; i++)
        acc += (double)un_cross(p[i].x - p[0].x, p[i].y - p[0].y,
                                p[i + 1].x - p[0].x, p[i + 1].y - p[0].y);
    return acc;
}

void un_pts_bbox(const un_pt *p, int32_t n, un_pt *lo, un_pt *hi)
{
    int32_t i;
    lo->x = lo->y = INT64_MAX;
    hi->x = hi->y = INT64_MIN;
    for (i = 0; i < n; i++) {
        if (p[i].x < lo->x) lo->x = p[i].x;
        if (p[i].y < lo->y) lo->y = p[i].y;
        if (p[i].x > hi->x) hi->x = p[i].x;
        if (p[i].y > hi->y) hi->y = p[i].y;
    }
}

void un_rings_bbox(const un_rings *r, un_pt *lo, un_pt *hi)
{
    un_pts_bbox(r->pts, un_rings_npts(r), lo, hi);
}

/* Remove repeated points and straight vertices (and spikes, where the ring
 * doubles back, unless keep_spikes) from one ring, in place; returns the new
 * length.  Repeats until stable because a removal can expose another. */
static int32_t clean_ring(un_pt *p, int32_t n, int keep_spikes)
{
    int changed = 1, single = n > 0;
    int32_t i;
    for (i = 1; i < n && single; i++) single = un_pt_cmp(p[i], p[0]) == 0;
    /* a ring of one repeated point is a point (a degenerate region) */
    if (single) return keep_spikes ? 1 : 0;
    while (changed && n >= 2) {
        int32_t i, m = 0;
        changed = 0;
        for (i = 0; i < n; i++) {
            un_pt prev = m ? p[m - 1] : p[n - 1];
            un_pt next = p[(i + 1) % n];
            int drop = un_pt_cmp(p[i], prev) == 0;
            if (!drop && un_orient(prev, p[i], next) == 0) {
                int64_t dot = (p[i].x - prev.x) * (next.x - p[i].x) + (p[i].y - prev.y) * (next.y - p[i].y);
                drop = dot > 0 || !keep_spikes;
            }
            if (drop) { changed = 1; continue; }
            p[m++] = p[i];
        }
        /* the wrap-around pair may now be repeated or collinear */
        n = m;
    }
    if (keep_spikes) return n;
    return n >= 3 ? n : 0;
}

un_status un_rings_clean(un_rings *r, int keep_spikes)
{
    int32_t k, out = 0, w = 0;
    for (k = 0; k < r->nrings; k++) {
        int32_t s = r->start[k], n = r->start[k + 1] - s;
        if (w != s) memmove(r->pts + w, r->pts + s, (size_t)n * sizeof *r->pts);
        n = clean_ring(r->pts + w, n, keep_spikes);
        if (n == 0) continue;
        r->start[out++] = w;
        w += n;
    }
    r->nrings = out;
    if (r->start) r->start[out] = w;
    return UN_OK;
}

/* ------------------------------------------------------------- sorting */

static void merge_sort(int32_t *v, int32_t *tmp, int32_t n, un_cmp_fn cmp, const void *ctx)
{
    int32_t i, j, k, h;
    if (n < 12) { /* insertion sort: short runs are the common case */
        for (i = 1; i < n; i++) {
            int32_t x = v[i];
            for (j = i; j > 0 && cmp(v[j - 1], x, ctx) > 0; j--) v[j] = v[j - 1];
            v[j] = x;
        }
        return;
    }
    h = n / 2;
    merge_sort(v, tmp, h, cmp, ctx);
    merge_sort(v + h, tmp, n - h, cmp, ctx);
    if (cmp(v[h - 1], v[h], ctx) <= 0) return;
    memcpy(tmp, v, (size_t)h * sizeof *v);
    for (i = 0, j = h, k = 0; i < h && j < n;)
        v[k++] = cmp(tmp[i], v[j], ctx) <= 0 ? tmp[i++] : v[j++];
    while (i < h) v[k++] = tmp[i++];
}

void un_sort_idx(int32_t *v, int32_t n, un_cmp_fn cmp, const void *ctx, int32_t *tmp)
{
    if (n > 1) merge_sort(v, tmp, n, cmp, ctx);
}
