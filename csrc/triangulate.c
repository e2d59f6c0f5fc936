/*
 * triangulate.c - ear clipping of a weakly simple ring.
 *
 * Used to decompose islands into convex pieces (triangles) for the exact
 * point-in-no-fit-polygon test of minkowski.c.  The ring is one component
 * from bridge.c (holes spliced in), counter-clockwise, on the integer grid.
 *
 * A vertex b with neighbours a, c is an ear when a-b-c turns left and no
 * other vertex lies inside or on the triangle; vertices at the same position
 * as a, b or c (the two ends of a slit) are not counted.  When a full pass
 * finds no ear, a vertex with zero turn is dropped (it adds no area); if
 * none exists the ring is not weakly simple and UN_EINVAL is returned, and
 * the caller falls back to its conservative answer.
 */
#include "internal.h"

static int in_or_on_triangle(un_pt a, un_pt b, un_pt c, un_pt p)
{
    return un_orient(a, b, p) >= 0 && un_orient(b, c, p) >= 0 && un_orient(c, a, p) >= 0;
}

static int is_ear(const un_pt *p, const int32_t *prev, const int32_t *next, int32_t b)
{
    int32_t a = prev[b], c = next[b], v;
    un_pt pa = p[a], pb = p[b], pc = p[c];
    if (un_orient(pa, pb, pc) <= 0) return 0;
    for (v = next[c]; v != a; v = next[v]) {
        un_pt q = p[v];
        if (un_pt_cmp(q, pa) == 0 || un_pt_cmp(q, pb) == 0 || un_pt_cmp(q, pc) == 0) continue;
        if (in_or_on_triangle(pa, pb, pc, q)) return 0;
    }
    return 1;
}

un_status un_triangulate(const un_pt *p, int32_t n, int32_t **tri, int32_t *ntri, int32_t *cap)
{
    int32_t *prev, *next, left = n, cur, scanned = 0, i;
    un_status s = UN_OK;
    *ntri = 0;
    if (n < 3) return UN_OK;
    prev = (int32_t *)malloc((size_t)n * sizeof *prev);
    next = (int32_t *)malloc((size_t)n * sizeof *next);
    if (!prev || !next) { free(prev); free(next); return UN_ENOMEM; }
    for (i = 0; i < n; i++) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
    }
    cur = 0;
    while (left > 3) {
        if (is_ear(p, prev, next, cur)) {
            if ((s = un_reserve((void **)tri, cap, 3 * ((int64_t)*ntri + 1), sizeof **tri)) != UN_OK) break;
            (*tri)[3 * *ntri] = prev[cur];
            (*tri)[3 * *ntri + 1] = cur;
            (*tri)[3 * *ntri + 2] = next[cur];
            (*ntri)++;
        } else if (scanned < left) {
            cur = next[cur];
            scanned++;
            continue;
        } else {
            /* no ear in a full pass: drop a vertex that adds no area */
            int32_t v = cur, k;
            for (k = 0; k < left; k++, v = next[v])
                if (un_orient(p[prev[v]], p[v], p[next[v]]) == 0) break;
            if (k == left) { s = UN_EINVAL; break; }
            cur = v;
        }
        next[prev[cur]] = next[cur];
        prev[next[cur]] = prev[cur];
        cur = next[cur];
        left--;
        scanned = 0;
    }
    if (s == UN_OK && left == 3 && un_orient(p[prev[cur]], p[cur], p[next[cur]]) > 0) {
        if ((s = un_reserve((void **)tri, cap, 3 * ((int64_t)*ntri + 1), sizeof **tri)) == UN_OK) {
            (*tri)[3 * *ntri] = prev[cur];
            (*tri)[3 * *ntri + 1] = cur;
            (*tri)[3 * *ntri + 2] = next[cur];
            (*ntri)++;
        }
    }
    free(prev);
    free(next);
    return s;
}
