/*
 * regularize.c - polygons given by a caller, made valid on the grid.
 *
 * A polygon that is valid in floating point can stop being valid once its
 * points are rounded to a call's grid: a hole whose edge runs within a grid
 * step of the outer ring's edge (both of slope 5 at a shared corner, say)
 * ends up overlapping that edge.  The reduced convolution relies on rings
 * that are simple and apart, and its fallback could not trace such input
 * (an "internal consistency check failed").  Regularizing traces the set
 * the rings bound - rings oriented by nesting (outer counter-clockwise,
 * holes clockwise), the points of winding at least 1 - from the exact
 * arrangement of their edges, as outlines are (outline.c): the same region
 * for valid input, and for input made degenerate by the rounding a weakly
 * simple polygon of the same region, which every later step handles.
 *
 * Solidifying keeps what rounding flattens instead: a needle, a segment or
 * a point (an island far smaller than the engine's grid step) becomes a
 * strip one unit wide around it (the hull of the unit squares at its ends),
 * united with the rest, so that the shape holds every point it had.
 */
#include "internal.h"

/* Segment a-b grown by one grid unit on every side: the convex hull of the
 * unit square's corners around a and b (monotone chain over 8 points),
 * counter-clockwise; a square when a == b. */
un_status un_segs_add_strip(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tmp, un_pt a, un_pt b,
                            int32_t tag)
{
    un_pt c[8], h[16];
    int32_t i, j, k = 0, lower;
    for (i = 0; i < 4; i++) {
        un_pt d;
        d.x = (i & 1) ? 1 : -1;
        d.y = (i & 2) ? 1 : -1;
        c[i].x = a.x + d.x; c[i].y = a.y + d.y;
        c[i + 4].x = b.x + d.x; c[i + 4].y = b.y + d.y;
    }
    for (i = 1; i < 8; i++) {   /* insertion sort, lexicographic */
        un_pt x = c[i];
        for (j = i; j > 0 && un_pt_cmp(c[j - 1], x) > 0; j--) c[j] = c[j - 1];
        c[j] = x;
    }
    for (i = 0; i < 8; i++) {
        while (k >= 2 && un_orient(h[k - 2], h[k - 1], c[i]) <= 0) k--;
        h[k++] = c[i];
    }
    for (i = 6, lower = k + 1; i >= 0; i--) {
        while (k >= lower && un_orient(h[k - 2], h[k - 1], c[i]) <= 0) k--;
        h[k++] = c[i];
    }
    un_rings_clear(tmp);
    UN_TRY(un_rings_add(tmp, h, k - 1));   /* the last point repeats the first */
    return un_segs_from_rings(segs, nseg, cap, tmp, 1, 0, tag, 0);
}

/* Strips around the edges of ring p[0..m) that reach a vertex outside the
 * cleaned face `kept` (every edge when the face kept nothing).  Each corner
 * is located once, through a ring tree of the kept face: a face of very
 * many corners stays O(m log m). */
un_status un_segs_add_lost_parts(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tmp, const un_pt *p,
                                 int32_t m, const un_rings *kept, int32_t tag)
{
    int8_t *in = NULL;   /* per corner: inside or on the kept face */
    un_status s = UN_OK;
    int32_t i;
    if (kept->nrings > 0) {
        un_ringtree rt;
        in = (int8_t *)malloc((size_t)m);
        if (!in || un_ringtree_build(&rt, kept->pts, kept->start[1]) != UN_OK) {
            free(in);
            return UN_ENOMEM;
        }
        for (i = 0; i < m; i++) in[i] = un_ringtree_locate(&rt, p[i]) != 0;
        un_ringtree_free(&rt);
    }
    for (i = 0; i < m && s == UN_OK; i++) {
        /* the face is one ring: outside it is outside its union */
        if (in && in[i] && in[(i + 1) % m]) continue;
        s = un_segs_add_strip(segs, nseg, cap, tmp, p[i], p[(i + 1) % m], tag);
    }
    free(in);
    return s;
}


un_status un_covered_loops(const un_arr *w, un_rings *out)
{
    const un_loop *L = un_arr_loops(w);
    const un_pt *p = un_arr_ipts(w);
    int32_t k;
    for (k = 0; k < un_arr_nloops(w); k++) UN_TRY(un_rings_add(out, p + L[k].start, L[k].end - L[k].start));
    return UN_OK;
}

un_status un_rings_regularize(un_arr *w, const un_rings *in, un_rings *out)
{
    un_rings r;
    un_seg *segs = NULL;
    int32_t nseg = 0, cap = 0;
    un_status s;
    un_rings_init(&r);
    un_rings_clear(out);
    /* orient by nesting on a cleaned copy: flat rings (no area) add nothing */
    if ((s = un_rings_copy(&r, in)) == UN_OK && (s = un_rings_clean(&r, 0)) == UN_OK &&
        (s = un_rings_orient(&r, NULL)) == UN_OK && r.nrings > 0 &&
        (s = un_segs_from_rings(&segs, &nseg, &cap, &r, 1, 0, 0, 0)) == UN_OK &&
        (s = un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL)) == UN_OK &&
        (s = un_covered_loops(w, out)) == UN_OK)
        s = un_rings_clean(out, 0);
    free(segs);
    un_rings_free(&r);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}

un_status un_rings_solidify(un_arr *w, const un_rings *in, un_rings *out, int *changed)
{
    un_rings ring, tmp;
    un_seg *segs = NULL;
    int32_t nseg = 0, cap = 0, k;
    un_status s = UN_OK;
    *changed = 0;
    un_rings_init(&ring);
    un_rings_init(&tmp);
    un_rings_clear(out);
    for (k = 0; k < in->nrings && s == UN_OK; k++) {
        const un_pt *p = in->pts + in->start[k];
        int32_t m = in->start[k + 1] - in->start[k];
        un_rings_clear(&ring);
        if ((s = un_rings_add(&ring, p, m)) != UN_OK || (s = un_rings_clean(&ring, 0)) != UN_OK) break;
        if (ring.nrings && un_ring_area2(&ring, 0) == 0) ring.nrings = 0;
        if (ring.nrings && ring.start[1] == m) continue;   /* nothing lost */
        /* strips around what the clean lost: when no ring loses anything,
         * no segment is added and the input is returned as it is */
        s = un_segs_add_lost_parts(&segs, &nseg, &cap, &tmp, p, m, &ring, k);
    }
    if (s == UN_OK && nseg > 0) {
        *changed = 1;
        /* the rings themselves, oriented by nesting, then the union */
        if ((s = un_rings_copy(&ring, in)) == UN_OK && (s = un_rings_clean(&ring, 0)) == UN_OK &&
            (s = un_rings_orient(&ring, NULL)) == UN_OK)
            s = un_segs_from_rings(&segs, &nseg, &cap, &ring, 1, 0, 0, 0);
        if (s == UN_OK) s = un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL);
        if (s == UN_OK) s = un_covered_loops(w, out);
        if (s == UN_OK) s = un_rings_clean(out, 0);
    } else if (s == UN_OK) {
        s = un_rings_copy(out, in);
    }
    free(segs);
    un_rings_free(&ring);
    un_rings_free(&tmp);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}
