/*
 * prepare.c - island preparation, once per packer, before the first fill:
 * the islands in placement order (larger first), the annealed ones (the
 * largest, until they hold most of the area), the grid, and per island its
 * simplified shape (conservatively, within a quarter of the margin; fillers
 * as their convex hulls unless a hull wastes much of its island), its
 * reference point, base angle and orientation candidates.
 */
#include "packer.h"

#include <math.h>

/* Larger area first, then by index (a stable, deterministic order). */
static int cmp_area(int32_t a, int32_t b, const void *ctx)
{
    const un_island *is = (const un_island *)ctx;
    if (is[a].area != is[b].area) return is[a].area > is[b].area ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Angle that turns the island's minimal-area bounding rectangle axis
 * aligned, its longer side vertical. */
static double min_rect_angle(const un_frings *f)
{
    int32_t n = un_frings_npts(f), i, k;
    double best = HUGE_VAL, angle = 0;
    /* every edge direction of the (simplified, small) shape is tried: the
     * hull's edges are among them, and one of those is optimal */
    for (i = 0; i < n; i++) {
        const double *a = f->xy + 2 * i, *b = f->xy + 2 * ((i + 1) % n);
        double dx = b[0] - a[0], dy = b[1] - a[1], len = hypot(dx, dy), c, s;
        double lx = HUGE_VAL, hx = -HUGE_VAL, ly = HUGE_VAL, hy = -HUGE_VAL, area;
        if (len == 0) continue;
        c = dx / len;
        s = dy / len;
        for (k = 0; k < n; k++) {
            double u = c * f->xy[2 * k] + s * f->xy[2 * k + 1];
            double v = -s * f->xy[2 * k] + c * f->xy[2 * k + 1];
            if (u < lx) lx = u;
            if (u > hx) hx = u;
            if (v < ly) ly = v;
            if (v > hy) hy = v;
        }
        area = (hx - lx) * (hy - ly);
        if (area < best * (1 - 1e-9)) {
            best = area;
            angle = -atan2(dy, dx);
            /* the long side upright: the fill builds columns from the left */
            if (hx - lx > hy - ly) angle += UN_QUARTER_TURN;
        }
    }
    return angle;
}

/* Side of the bounding square of the shape turned by angle a. */
static double square_side(const un_frings *f, double a)
{
    int32_t n = un_frings_npts(f), k;
    double c = cos(a), s = sin(a), lx = HUGE_VAL, hx = -HUGE_VAL, ly = HUGE_VAL, hy = -HUGE_VAL;
    for (k = 0; k < n; k++) {
        double u = c * f->xy[2 * k] - s * f->xy[2 * k + 1], v = s * f->xy[2 * k] + c * f->xy[2 * k + 1];
        if (u < lx) lx = u;
        if (u > hx) hx = u;
        if (v < ly) ly = v;
        if (v > hy) hy = v;
    }
    return hx - lx > hy - ly ? hx - lx : hy - ly;
}

/* Total length of the rings. */
static double frings_perimeter(const un_frings *f)
{
    double len = 0;
    int32_t k;
    for (k = 0; k < f->nrings; k++) {
        un_ring_view v;
        v.xy = f->xy + 2 * f->start[k];
        v.n = f->start[k + 1] - f->start[k];
        len += un_rings_length(&v, 1);
    }
    return len;
}

/* Angle that minimizes the island's bounding square: a scan in 0.25 degree
 * steps over a quarter turn, then golden-section refinement.  For a lone
 * island this is the best orientation there is. */
static double min_square_angle(const un_frings *f)
{
    const double quarter = UN_QUARTER_TURN, step = quarter / SQUARE_SCAN_STEPS, g = 0.6180339887498949;
    double best = 0, side = HUGE_VAL, a, b, x1, x2, f1, f2;
    int32_t i;
    for (i = 0; i < SQUARE_SCAN_STEPS; i++) {
        double t = square_side(f, i * step);
        if (t < side) { side = t; best = i * step; }
    }
    a = best - step;
    b = best + step;
    x1 = b - g * (b - a);
    x2 = a + g * (b - a);
    f1 = square_side(f, x1);
    f2 = square_side(f, x2);
    for (i = 0; i < SQUARE_REFINE_STEPS; i++) {
        if (f1 < f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = square_side(f, x1); }
        else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = square_side(f, x2); }
    }
    a = 0.5 * (a + b);
    return square_side(f, a) < side ? a : best;
}

/* Allocate the search's arrays, order the islands by area and choose the
 * annealed ones and the grid (once). */
static un_status prepare_once(un_packer *pk, double L_est)
{
    un_engine *E = &pk->E;
    int32_t i, *tmp;
    double ext = (E->tw > E->th ? E->tw : E->th) * L_est, min_hole;
    un_status s;
    if (pk->prepared) return UN_OK;
    E->seq = (int32_t *)malloc((size_t)E->n * sizeof *E->seq);
    E->par = (double *)calloc(3 * (size_t)E->n, sizeof *E->par);
    E->pl = (un_place *)calloc((size_t)E->n, sizeof *E->pl);
    pk->best = (un_transform *)calloc((size_t)E->n, sizeof *pk->best);
    pk->best_par = (double *)calloc(3 * (size_t)E->n, sizeof *pk->best_par);
    pk->best_contact = (double *)calloc((size_t)E->n, sizeof *pk->best_contact);
    pk->best_seq = (int32_t *)calloc((size_t)E->n, sizeof *pk->best_seq);
    E->touch.near_at = (int32_t *)malloc((size_t)E->n * sizeof *E->touch.near_at);
    E->touch.near_to = (int32_t *)malloc((size_t)E->n * sizeof *E->touch.near_to);
    tmp = (int32_t *)malloc((size_t)E->n * sizeof *tmp);
    if (!E->seq || !E->par || !E->pl || !pk->best || !pk->best_par || !pk->best_contact || !pk->best_seq || !E->touch.near_at ||
        !E->touch.near_to || !tmp) {
        free(tmp);
        return UN_ENOMEM;
    }
    for (i = 0; i < E->n; i++) E->seq[i] = i;
    un_sort_idx(E->seq, E->n, cmp_area, E->isl, tmp);
    free(tmp);
    /* anneal the islands that decide the scale: the largest ones, until
     * they hold most of the area; fill the rest around them (at a fixed
     * scale over several targets, unless told otherwise, every island is
     * annealed, up to a few hundred) */
    {
        double total = 0, acc = 0;
        int32_t cap = pk->opt.anneal_max > 0 ? pk->opt.anneal_max : DEFAULT_ANNEAL_MAX;
        if (pk->opt.fixed_scale > 0 && pk->opt.anneal_max <= 0 && E->n <= BISECT_AT_START) cap = E->n;
        for (i = 0; i < E->n; i++) total += E->isl[i].area;
        for (E->nanneal = 0; E->nanneal < E->n && E->nanneal < cap; E->nanneal++) {
            /* a few islands are all annealed; of many, those holding most
             * of the area */
            if (E->n > cap && E->nanneal >= ANNEAL_MIN && acc >= ANNEAL_AREA_SHARE * total) break;
            acc += E->isl[E->seq[E->nanneal]].area;
        }
    }
    if (pk->opt.fixed_scale > 0) {
        E->bins.nbins_max = pk->opt.max_bins;
        if (pk->ngrouped) {
            int32_t g;
            un_status st = UN_RESERVE(pk->group, pk->cap_group, E->n);
            if (st != UN_OK) return st;
            while (pk->ngrouped < E->n) pk->group[pk->ngrouped++] = -1; /* added after the last set */
            E->bins.group = pk->group;
            for (i = 0; i < E->n; i++)
                if (E->bins.group[i] + 1 > E->bins.ngroups) E->bins.ngroups = E->bins.group[i] + 1;
            E->bins.group_bin = (int32_t *)malloc(((size_t)E->bins.ngroups + 1) * sizeof *E->bins.group_bin);
            E->bins.group_area = (double *)calloc((size_t)E->bins.ngroups + 1, sizeof *E->bins.group_area);
            E->bins.bin_area = (double *)calloc((size_t)E->bins.nbins_max + 1, sizeof *E->bins.bin_area);
            E->bins.group_mark = (int32_t *)calloc((size_t)E->bins.ngroups + 1, sizeof *E->bins.group_mark);
            if (!E->bins.group_bin || !E->bins.group_area || !E->bins.bin_area || !E->bins.group_mark) return UN_ENOMEM;
            for (g = 0; g < E->bins.ngroups; g++) E->bins.group_bin[g] = -1;
            for (i = 0; i < E->n; i++)
                if (E->bins.group[i] >= 0) E->bins.group_area[E->bins.group[i]] += E->isl[i].area;
        }
    }
    /* the grid: the area-bound container is 2^UN_GRID_BITS units across */
    E->q = ext / (double)((int64_t)1 << UN_GRID_BITS);
    /* a hole thinner than the thinnest island (plus a margin each side)
     * can hold nothing */
    min_hole = HUGE_VAL;
    for (i = 0; i < E->n; i++) {
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, side;
        un_frings_bbox(&E->isl[i].outline, lo, hi);
        side = hi[0] - lo[0] < hi[1] - lo[1] ? hi[0] - lo[0] : hi[1] - lo[1];
        if (side < min_hole) min_hole = side;
    }
    pk->min_hole = 0.5 * min_hole + E->margin * L_est;
    if ((s = un_anneal_init(&pk->A, E->n)) == UN_OK) pk->prepared = 1;
    return s;
}

/* prepare_once, then the islands' shapes: simplified outlines, bases
 * and reference points, island by island (cancellable: a later call goes
 * on with the next island). */
un_status un_pk_prepare(un_packer *pk, double L_est)
{
    un_engine *E = &pk->E;
    int32_t i;
    double ext = (E->tw > E->th ? E->tw : E->th) * L_est, min_hole;
    un_status s = prepare_once(pk, L_est);
    min_hole = pk->min_hole;
    for (i = pk->prep_next; i < E->n && s == UN_OK; i++) {
        int32_t k = E->seq[i], cap = VERTS_BUDGET / E->nanneal;
        un_island *is = E->isl + k;
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
        /* conservative simplification within a quarter of the margin; the
         * vertex cap keeps no-fit polygons affordable */
        double tol = SIMPLIFY_MARGIN_SHARE * E->margin * L_est;
        if (tol < SIMPLIFY_TOL_MIN * ext) tol = SIMPLIFY_TOL_MIN * ext;
        if (cap < VERTS_ANNEALED_MIN) cap = VERTS_ANNEALED_MIN;
        if (cap > VERTS_ANNEALED_MAX) cap = VERTS_ANNEALED_MAX;
        /* filler islands pack as convex hulls, whose no-fit polygons are
         * merges of sorted edges with no arrangement at all, unless the
         * hull is more than HULL_WASTE_MAX times the island: then their
         * pockets and holes (L and U shapes, frames, rings) are worth the
         * arrangements, since smaller islands nest in them */
        s = un_simplify_pieces(&is->outline, tol, i < E->nanneal ? cap : VERTS_FILLED,
                               i < E->nanneal ? MAX_PIECES : 0, min_hole, &is->shape, NULL, E->cancel);
        if (s == UN_OK && i >= E->nanneal && un_frings_area(&is->shape) > HULL_WASTE_MAX * is->area)
            s = un_simplify_pieces(&is->outline, tol, VERTS_FILLED, MAX_PIECES, min_hole, &is->shape, NULL,
                                   E->cancel);
        /* fillers meet an island of many vertices as a coarser view of
         * its shape (containing it) */
        is->filler = i >= E->nanneal;
        if (s == UN_OK && i < E->nanneal && un_frings_npts(&is->shape) > VERTS_FILLER_VIEW)
            s = un_simplify_pieces(&is->shape, tol, VERTS_FILLER_VIEW, MAX_PIECES, min_hole, &is->coarse, NULL,
                                   E->cancel);
        if (s != UN_OK) break;
        /* an outline without area (a segment, a point, a needle strip
         * thinner than its coordinates' rounding) simplifies to nothing:
         * it packs as it is, made solid on the grid when inflated
         * (un_rings_solidify) */
        if (is->shape.nrings == 0) {
            if (un_frings_npts(&is->outline) == 0) { s = UN_EINVAL; break; }
            if ((s = un_frings_copy(&is->shape, &is->outline)) != UN_OK) break;
        }
        un_frings_bbox(&is->shape, lo, hi);
        is->perimeter = frings_perimeter(&is->shape);
        is->cx = 0.5 * (lo[0] + hi[0]);
        is->cy = 0.5 * (lo[1] + hi[1]);
        /* a lone island: the orientation of its smallest bounding square;
         * several: that of the smallest bounding rectangle, which lines up
         * straight edges with their neighbours' */
        is->base = !pk->opt.align ? 0 : E->n == 1 ? min_square_angle(&is->shape) : min_rect_angle(&is->shape);
        if (pk->opt.align && (s = un_orient_candidates(&is->shape, is->base, is->cand)) != UN_OK) break;
        un_contact_orient_reset(is);
        pk->prep_next = i + 1;
        if (E->cancel && *E->cancel && i + 1 < E->n) s = UN_ECANCELLED;
    }
    return s;
}
