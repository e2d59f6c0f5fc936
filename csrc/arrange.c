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
 * The stages are in arrange_merge.c, arrange_pairs.c, arrange_vertices.c,
 * arrange_winding.c and arrange_trace.c (arrange_state.h lists them).
 *
 * Vertices are exact rationals internally; loops report them as doubles and
 * rounded to the nearest grid point.
 */
#include "arrange_state.h"

#include <math.h>

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
    UN_TRY(un_ar_merge_collinear(w, segs, nsegs));
    if (w->nms == 0) return UN_OK;
    UN_TRY(un_ar_build_grid(w));
    UN_TRY(un_ar_find_candidates(w, &ncand));
    UN_TRY(un_ar_build_vertices(w, ncand));
    UN_TRY(un_ar_build_edges(w));
    if (sel == UN_SEL_RCONV) {
        if (!verify || !verify->inside_near) return UN_EINVAL;
        UN_TRY(un_ar_classify_faces(w, verify));
        sel = UN_SEL_CONV;   /* from here on, sides are known as for a full one */
    } else {
        UN_TRY(un_ar_propagate(w));
    }
    UN_TRY(un_ar_select_edges(w, sel, verify));
    UN_TRY(un_ar_trace(w));
    UN_TRY(un_ar_isolated_points(w, sel, verify));
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
