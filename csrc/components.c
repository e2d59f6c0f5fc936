/*
 * components.c - connected components by union-find, for island finding:
 * UV indices joined by face edges (and by matching mesh edges) form islands.
 */
#include "internal.h"

static int32_t find(int32_t *p, int32_t x)
{
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

un_status un_components(int32_t n, const int32_t *a, const int32_t *b, int64_t npairs, int32_t *label,
                        int32_t *ncomp)
{
    int32_t *p, i;
    int64_t k;
    if (n < 0) return UN_EINVAL;
    p = (int32_t *)malloc(((size_t)n + 1) * sizeof *p);
    if (!p) return UN_ENOMEM;
    for (i = 0; i < n; i++) p[i] = i;
    for (k = 0; k < npairs; k++) {
        int32_t x, y;
        if (a[k] < 0 || a[k] >= n || b[k] < 0 || b[k] >= n) { free(p); return UN_EINVAL; }
        x = find(p, a[k]);
        y = find(p, b[k]);
        /* the smaller root wins, so labels do not depend on pair order */
        if (x < y) p[y] = x; else if (y < x) p[x] = y;
    }
    /* label components 0.. in order of their smallest member */
    *ncomp = 0;
    for (i = 0; i < n; i++) label[i] = -1;
    for (i = 0; i < n; i++) {
        int32_t r = find(p, i);
        if (label[r] < 0) label[r] = (*ncomp)++;
        label[i] = label[r];
    }
    free(p);
    return UN_OK;
}
