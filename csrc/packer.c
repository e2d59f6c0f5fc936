/*
 * packer.c - the public packing interface: islands in, improving layouts
 * out.
 *
 * Start: islands are simplified (conservatively, within a quarter of the
 * margin), sorted larger first, and the largest are marked for annealing
 * (the rest are filled around them, as their convex hulls unless a hull
 * wastes much of its island).  The first layout is the bottom-left
 * fill (every r = f = 0) at the first container where everything fits:
 * containers are estimated from the islands' areas and perimeters (the
 * margin) and the density the last fill that stopped short reached.
 *
 * Search: annealing at a container slightly smaller than the best one.
 * When everything fits, the layout is checked (validate.c) and becomes the
 * best; the next container is smaller by a step that grows after each
 * success.  When the search stalls, the step is halved; when it is tiny,
 * the search restarts from the best layout with a small step and a reheat,
 * so it keeps improving for as long as it runs.  With free rotation a
 * second search keeps every island as given, interleaved (see "the
 * as-given search" below).  On the first moves, box layouts (the skyline
 * of shape box) are tried as well (see try_box_layouts).
 */
#include "uvnest.h"
#include "engine.h"
#include "anneal.h"
#include "chains.h"

#include <math.h>

/* The search's knobs are in tuning.h. */
#define PI UN_PI
#define RNG_STREAM 0x5eed   /* the random stream of chain 0 (chain k: this + k) */

struct un_packer {
    un_pack_options opt;
    double         *angles;
    un_engine       E;
    un_anneal       A;
    un_rng          rng;
    uint64_t        stream;       /* its random stream (RNG_STREAM + chain) */
    int32_t         cap_isl, cap_locked, started;
    /* scale search */
    int32_t         bisecting;    /* still refining the bottom-left fill */
    int32_t         redecode;     /* the last full decode did not finish */
    double          lo;           /* largest L at which the fill failed */
    double          delta;
    int64_t         since;        /* moves since the last success or scale change */
    int64_t         stall;        /* moves allowed without success at one scale */
    /* best layout */
    int32_t         have_best;
    double          best_L;
    double          main_L;       /* the main search's own best container (>= best_L) */
    double          best_cost;    /* with fixed scale: the cost of the best layout */
    int32_t        *group;        /* per island: affinity group, -1 */
    int32_t         cap_group, ngrouped;
    un_transform   *best;
    double         *best_par;
    int32_t        *best_seq;
    un_pack_stats   st;
    un_packer      *side;         /* the side search (see below), or NULL */
    int32_t         side_started; /* start_side ran (whether or not it made one) */
    int32_t         no_boxes;     /* a packer another runs: it tries no box layouts */
    int32_t         boxes_due;    /* box layouts are to be tried on the next move */
    /* the start's progress: a cancelled start resumes where it stopped */
    int32_t         prepared;     /* prepare() allocated, sorted and chose the annealed */
    int32_t         prep_next;    /* islands (in placement order) simplified so far */
    double          min_hole;     /* holes thinner than this hold nothing */
    int32_t         fill_tries;   /* first fills tried */
    double          fill_L;       /* the container the next first fill tries */
    int32_t         start_done;   /* un_packer_start finished: run() may search */
    int32_t         failed;       /* the start failed (not cancelled): unusable */
    un_packer      *side_pending; /* the side search, while its start is cancelled */
    int32_t         aligned_next; /* its contact search gets the aligned search as its side */
};

static un_status grow_islands(un_packer *pk)
{
    int32_t n = pk->E.n;
    un_status s = UN_RESERVE(pk->E.isl, pk->cap_isl, (int64_t)n + 1);
    if (s == UN_OK) memset(pk->E.isl + n, 0, sizeof *pk->E.isl);
    return s;
}

static un_status copy_frings(un_frings *dst, const un_frings *src)
{
    int32_t k;
    un_status s = UN_OK;
    un_frings_init(dst);
    for (k = 0; k < src->nrings && s == UN_OK; k++)
        s = un_frings_add(dst, src->xy + 2 * src->start[k], src->start[k + 1] - src->start[k]);
    return s;
}

/* Are the rotations the four quarter turns of the input (rotation 90)?
 * Then the contact search chooses among them. */
static int is_quarter_turns(const un_pack_options *o)
{
    int32_t i;
    if (o->align || o->nangles != 4) return 0;
    for (i = 0; i < 4; i++)
        if (fabs(o->angles[i] - 0.5 * PI * i) > 1e-9) return 0;
    return 1;
}

un_status un_packer_new(const un_pack_options *opt, un_packer **out)
{
    un_packer *pk;
    int32_t i;
    *out = NULL;
    if (!opt || !(opt->margin >= 0) || !isfinite(opt->margin) || !(opt->padding >= 0) ||
        !isfinite(opt->padding) || opt->nangles < 1 || !opt->angles || !(opt->cache_bytes > 0) ||
        !(opt->target[2] > opt->target[0]) || !(opt->target[3] > opt->target[1]) ||
        !isfinite(opt->target[0]) || !isfinite(opt->target[1]) || !isfinite(opt->target[2]) ||
        !isfinite(opt->target[3]))
        return UN_EINVAL;
    for (i = 0; i < opt->nangles; i++)
        if (!isfinite(opt->angles[i])) return UN_EINVAL;
    if (opt->fixed_scale != 0 && (!(opt->fixed_scale > 0) || !isfinite(opt->fixed_scale) || opt->max_bins < 1 ||
                                  opt->max_bins > UN_MAX_BINS))
        return UN_EINVAL;
    if (!(pk = (un_packer *)calloc(1, sizeof *pk))) return UN_ENOMEM;
    pk->opt = *opt;
    pk->angles = (double *)malloc((size_t)opt->nangles * sizeof *pk->angles);
    pk->E.cache = un_nfpcache_new((size_t)opt->cache_bytes);
    pk->E.arr = un_workspace_new();
    if (!pk->angles || !pk->E.cache || !pk->E.arr) { un_packer_free(pk); return UN_ENOMEM; }
    memcpy(pk->angles, opt->angles, (size_t)opt->nangles * sizeof *pk->angles);
    pk->opt.angles = pk->angles;
    /* free rotation (a base angle) adds each island's candidates (orient.c) */
    pk->E.os.ngrid = opt->nangles;
    pk->E.os.nangles = opt->nangles + (opt->align ? UN_CANDIDATES : 0);
    pk->E.os.angles = pk->angles;
    pk->E.os.flips = opt->flip ? 2 : 1;
    /* With one orientation (rotation none, and the as-given search) half
     * of r's range picks a vertex of the island's region: there it touches
     * two neighbours (or walls) at once, and a jigsaw piece or a
     * straightened island fits exactly only there, at a point the
     * continuous boundary hits with probability zero.  The other half keeps
     * the whole boundary, where UV islands often fit best.  With
     * orientations to choose r stays continuous (vertices did worse on
     * puzzles there). */
    pk->E.at_vertices = pk->E.os.nangles * pk->E.os.flips == 1;
    pk->E.tw = opt->target[2] - opt->target[0];
    pk->E.th = opt->target[3] - opt->target[1];
    pk->E.margin = opt->margin;
    pk->E.padding = opt->padding;
    pk->stream = RNG_STREAM;
    un_rng_seed(&pk->rng, opt->seed, pk->stream);
    *out = pk;
    return UN_OK;
}

void un_packer_free(un_packer *pk)
{
    int32_t i, l;
    if (!pk) return;
    for (i = 0; i < pk->E.n; i++) {
        un_frings_free(&pk->E.isl[i].outline);
        un_frings_free(&pk->E.isl[i].shape);
        for (l = 0; l < UN_SHRINK_LEVELS; l++) un_rings_free(&pk->E.isl[i].infl[l]);
    }
    for (i = 0; i < pk->E.nlocked; i++) un_frings_free(pk->E.locked + i);
    free(pk->E.isl);
    free(pk->E.locked);
    un_nfpcache_free(pk->E.cache);
    un_workspace_free(pk->E.arr);
    un_regions_free(&pk->E.reg);
    free(pk->E.segs);
    un_rings_free(&pk->E.scratch);
    un_rings_free(&pk->E.tmp);
    free(pk->E.obs);
    free(pk->E.cores);
    free(pk->E.views);
    free(pk->E.spots);
    un_rings_free(&pk->E.self);
    un_rings_free(&pk->E.near);
    free(pk->E.near_at);
    free(pk->E.near_to);
    free(pk->E.seq);
    free(pk->E.par);
    free(pk->E.pl);
    un_anneal_free(&pk->A);
    free(pk->best);
    free(pk->best_par);
    free(pk->best_seq);
    free(pk->group);
    free(pk->E.group_bin);
    free(pk->E.group_area);
    free(pk->E.bin_area);
    free(pk->E.group_mark);
    free(pk->angles);
    un_packer_free(pk->side);
    un_packer_free(pk->side_pending);
    free(pk);
}

un_status un_packer_add_island(un_packer *pk, const un_frings *outline, double area)
{
    un_island *is;
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_status s;
    if (pk->started || outline->nrings < 1 || !(area > 0) || !isfinite(area)) return UN_EINVAL;
    if ((s = un_frings_bbox(outline, lo, hi)) != UN_OK) return s;
    if ((s = grow_islands(pk)) != UN_OK) return s;
    is = pk->E.isl + pk->E.n;
    if ((s = copy_frings(&is->outline, outline)) != UN_OK) { un_frings_free(&is->outline); return s; }
    is->area = area;
    pk->E.n++;
    return UN_OK;
}

un_status un_packer_set_group(un_packer *pk, int32_t k, int32_t g)
{
    un_status s;
    if (pk->started || k < 0 || k >= pk->E.n || g < 0) return UN_EINVAL;
    if ((s = UN_RESERVE(pk->group, pk->cap_group, pk->E.n)) != UN_OK) return s;
    while (pk->ngrouped < pk->E.n) pk->group[pk->ngrouped++] = -1;
    pk->group[k] = g;
    return UN_OK;
}

un_status un_packer_add_locked(un_packer *pk, const un_frings *outline)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_frings *f;
    int32_t i, np;
    un_status s;
    if (pk->started || outline->nrings < 1) return UN_EINVAL;
    if ((s = un_frings_bbox(outline, lo, hi)) != UN_OK) return s;
    if ((s = UN_RESERVE(pk->E.locked, pk->cap_locked, (int64_t)pk->E.nlocked + 1)) != UN_OK) return s;
    f = pk->E.locked + pk->E.nlocked;
    if ((s = copy_frings(f, outline)) != UN_OK) { un_frings_free(f); return s; }
    /* stored relative to the target's corner */
    np = un_frings_npts(f);
    for (i = 0; i < np; i++) {
        f->xy[2 * i] -= pk->opt.target[0];
        f->xy[2 * i + 1] -= pk->opt.target[1];
    }
    pk->E.nlocked++;
    return UN_OK;
}

/* ------------------------------------------------------------ preparing */

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

/* Signed area of the rings (holes, clockwise, count negative). */
static double frings_area(const un_frings *f)
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
    pk->best_seq = (int32_t *)calloc((size_t)E->n, sizeof *pk->best_seq);
    E->near_at = (int32_t *)malloc((size_t)E->n * sizeof *E->near_at);
    E->near_to = (int32_t *)malloc((size_t)E->n * sizeof *E->near_to);
    tmp = (int32_t *)malloc((size_t)E->n * sizeof *tmp);
    if (!E->seq || !E->par || !E->pl || !pk->best || !pk->best_par || !pk->best_seq || !E->near_at ||
        !E->near_to || !tmp) {
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
        E->nbins_max = pk->opt.max_bins;
        if (pk->ngrouped) {
            int32_t g;
            un_status st = UN_RESERVE(pk->group, pk->cap_group, E->n);
            if (st != UN_OK) return st;
            while (pk->ngrouped < E->n) pk->group[pk->ngrouped++] = -1; /* added after the last set */
            E->group = pk->group;
            for (i = 0; i < E->n; i++)
                if (E->group[i] + 1 > E->ngroups) E->ngroups = E->group[i] + 1;
            E->group_bin = (int32_t *)malloc(((size_t)E->ngroups + 1) * sizeof *E->group_bin);
            E->group_area = (double *)calloc((size_t)E->ngroups + 1, sizeof *E->group_area);
            E->bin_area = (double *)calloc((size_t)E->nbins_max + 1, sizeof *E->bin_area);
            E->group_mark = (int32_t *)calloc((size_t)E->ngroups + 1, sizeof *E->group_mark);
            if (!E->group_bin || !E->group_area || !E->bin_area || !E->group_mark) return UN_ENOMEM;
            for (g = 0; g < E->ngroups; g++) E->group_bin[g] = -1;
            for (i = 0; i < E->n; i++)
                if (E->group[i] >= 0) E->group_area[E->group[i]] += E->isl[i].area;
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
static un_status prepare(un_packer *pk, double L_est)
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
        if (s == UN_OK && i >= E->nanneal && frings_area(&is->shape) > HULL_WASTE_MAX * is->area)
            s = un_simplify_pieces(&is->outline, tol, VERTS_FILLED, MAX_PIECES, min_hole, &is->shape, NULL,
                                   E->cancel);
        if (s != UN_OK) break;
        /* an outline without area (a segment, a point, a needle strip
         * thinner than its coordinates' rounding) simplifies to nothing:
         * it packs as it is, made solid on the grid when inflated
         * (un_rings_solidify) */
        if (is->shape.nrings == 0) {
            if (un_frings_npts(&is->outline) == 0) { s = UN_EINVAL; break; }
            if ((s = copy_frings(&is->shape, &is->outline)) != UN_OK) break;
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
        pk->prep_next = i + 1;
        if (E->cancel && *E->cancel && i + 1 < E->n) s = UN_ECANCELLED;
    }
    return s;
}

/* ------------------------------------------------------------ best layout */

/* Tile-space outline of island k under transform t. */
static un_status place_outline(const un_island *is, const un_transform *t, un_frings *out)
{
    double c = cos(t->angle), s = sin(t->angle);
    int32_t i, n;
    un_status st = copy_frings(out, &is->outline);
    if (st != UN_OK) return st;
    n = un_frings_npts(out);
    for (i = 0; i < n; i++) {
        double x = out->xy[2 * i], y = out->xy[2 * i + 1];
        if (t->flip) x = -x;
        out->xy[2 * i] = t->scale * (c * x - s * y) + t->tx;
        out->xy[2 * i + 1] = t->scale * (s * x + c * y) + t->ty;
    }
    return UN_OK;
}

static void transforms_of(const un_packer *pk, un_transform *out)
{
    const un_engine *E = &pk->E;
    int32_t p;
    for (p = 0; p < E->n; p++) {
        int32_t k = E->seq[p];
        const un_place *q = E->pl + p;
        const un_island *is = E->isl + k;
        double m[4], inv = 1 / E->L, cx, cy;
        un_orient_matrix(&E->os, is, q->orient, m);
        /* tile = target corner + (M (p - c) + t q) / L */
        cx = m[0] * is->cx + m[1] * is->cy;
        cy = m[2] * is->cx + m[3] * is->cy;
        out[k].angle = un_orient_angle(&E->os, is, q->orient);
        out[k].flip = q->orient / E->os.nangles;
        out[k].scale = inv;
        out[k].tx = pk->opt.target[0] + ((double)q->t.x * E->q - cx) * inv;
        out[k].ty = pk->opt.target[1] + ((double)q->t.y * E->q - cy) * inv;
        out[k].bin = q->bin;
    }
}

/* Check target `bin` of layout t: its islands (and, in target 0, the
 * locked ones) against each other and the target. *bad when it fails. */
static un_status check_bin(const un_packer *pk, const un_transform *t, int32_t bin, int *bad)
{
    const un_engine *E = &pk->E;
    int32_t n = 0, i, nfix = bin == 0 ? E->nlocked : 0, bad_a, bad_b;
    un_frings *polys = (un_frings *)calloc((size_t)E->n + E->nlocked + 1, sizeof *polys);
    un_status s = UN_OK;
    *bad = 0;
    if (!polys) return UN_ENOMEM;
    for (i = 0; i < E->n && s == UN_OK; i++)
        if (t[i].bin == bin) s = place_outline(E->isl + i, t + i, polys + n++);
    for (i = 0; i < nfix && s == UN_OK; i++) {
        int32_t k, np;
        s = copy_frings(polys + n, E->locked + i);
        np = un_frings_npts(polys + n);
        for (k = 0; k < np; k++) {
            polys[n].xy[2 * k] += pk->opt.target[0];
            polys[n].xy[2 * k + 1] += pk->opt.target[1];
        }
        n++;
    }
    if (s == UN_OK && n > 0) {
        /* the moving islands must keep the padding from the target's border */
        const double *tg = pk->opt.target, pad = pk->opt.padding;
        double inner[4] = {tg[0] + pad, tg[1] + pad, tg[2] - pad, tg[3] - pad};
        s = un_validate_layout(polys, n, nfix, E->margin, inner, &bad_a, &bad_b);
        *bad = bad_a >= 0;
    }
    for (i = 0; i < n; i++) un_frings_free(polys + i);
    free(polys);
    return s;
}

/* The main search's restart point: its current parameters and sequence,
 * and their container as its own best. */
static void keep_restart_point(un_packer *pk)
{
    un_engine *E = &pk->E;
    memcpy(pk->best_par, E->par, 3 * (size_t)E->n * sizeof *E->par);
    memcpy(pk->best_seq, E->seq, (size_t)E->n * sizeof *E->seq);
    pk->main_L = E->L;
}

/* Check layout t (at container L); when it passes, make it the best and
 * set *kept. */
static un_status keep_layout(un_packer *pk, const un_transform *t, double L, int *kept)
{
    un_engine *E = &pk->E;
    int32_t i, b, bins = 0;
    double cover = 0, f = 0, tile = L * L * E->tw * E->th;
    int bad = 0;
    un_status s = UN_OK;
    for (i = 0; i < E->n; i++)
        if (t[i].bin + 1 > bins) bins = t[i].bin + 1;
    for (b = 0; b < bins && s == UN_OK && !bad; b++) s = check_bin(pk, t, b, &bad);
    if (s != UN_OK) return s;
    if (bad) {
        /* the engine produced a layout that breaks the rules: never hand it
         * out; counted so that tests can catch it */
        pk->st.rejected++;
        return UN_OK;
    }
    memcpy(pk->best, t, (size_t)E->n * sizeof *t);
    pk->best_L = L;
    pk->best_cost = pk->A.cost;
    pk->have_best = 1;
    for (b = 0; b < bins; b++) {
        double c = 0;
        for (i = 0; i < E->n; i++)
            if (t[i].bin == b) c += E->isl[i].area;
        f += (c / tile) * (c / tile);
        cover += c;
    }
    pk->st.coverage = cover / (tile * bins);
    pk->st.scale = 1 / L;
    pk->st.bins = bins;
    pk->st.bins_f = f / bins;
    pk->st.layouts++;
    *kept = 1;
    return UN_OK;
}

/* Check the current complete layout; on success make it the best, and the
 * main search's restart point. */
static un_status accept_layout(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    un_transform *t = (un_transform *)malloc((size_t)E->n * sizeof *t);
    int kept = 0;
    un_status s;
    if (!t) return UN_ENOMEM;
    transforms_of(pk, t);
    s = keep_layout(pk, t, E->L, &kept);
    free(t);
    if (kept) {
        keep_restart_point(pk);
        *improved = 1;
    }
    return s;
}

/* --------------------------------------------------------------- search */

static un_status decode_all(un_packer *pk, int *complete)
{
    double waste;
    un_status s = un_decode(&pk->E, 0, &waste, complete);
    if (s == UN_OK) pk->A.cost = waste;
    return s;
}

static un_status try_scale(un_packer *pk, double L, int reheat)
{
    int complete;
    un_status s = un_engine_set_scale(&pk->E, L);
    if (s == UN_OK) s = decode_all(pk, &complete);
    /* a decode cut short (cancelled) leaves placements of the last scale
     * behind, which moves would keep as their prefix: decode again first */
    pk->redecode = s != UN_OK;
    pk->since = 0;
    if (reheat) un_anneal_reheat(&pk->A);
    return s;
}

static un_status bisect_step(un_packer *pk, int *improved);

/* Is the bisection of the bottom-left fill still refining? */
static int bisect_due(const un_packer *pk)
{
    return pk->bisecting && pk->best_L - pk->lo > BISECT_TOLERANCE * pk->best_L;
}

/* The annealing schedule: reheat temperature T0 (CONTACT_HEAT times that
 * in the contact search), and stalls after STALL_BASE + STALL_PER_ISLAND n
 * moves without success, over which the temperature cools to T_END_SHARE
 * of T0 (n: the islands annealed). */
static int64_t stall_moves(int32_t n)
{
    return STALL_BASE + STALL_PER_ISLAND * (int64_t)n;
}

static void set_schedule(un_packer *pk, double T0, int32_t n)
{
    pk->A.T0 = pk->E.contact ? CONTACT_HEAT * T0 : T0;
    pk->stall = stall_moves(n);
    pk->A.alpha = exp(log(T_END_SHARE) / (double)pk->stall);
}

/* ------------------------------------------------------- fixed scale */

/* Every island at the given scale, over up to max_bins targets: the first
 * layout is the first fit (every r = f = 0); annealing then lowers the
 * cost (targets used, then how full they are). */
static un_status start_fixed(un_packer *pk)
{
    un_status s = un_engine_set_scale(&pk->E, 1 / pk->opt.fixed_scale);
    int complete = 0, ok = 0;
    int32_t moves;
    /* many islands: every decode fills quickly (the first window with room),
     * or moves, each a whole decode, would take seconds */
    pk->E.fill_quick = pk->E.n > BISECT_AT_START;
    if (s == UN_ERANGE) return UN_ENOFIT;
    if (s == UN_OK) s = decode_all(pk, &complete);
    if (s == UN_OK && !complete) return UN_ENOFIT;
    if (s == UN_OK) s = accept_layout(pk, &ok);
    set_schedule(pk, FIXED_T0, pk->E.n);
    un_anneal_reheat(&pk->A);
    /* the first fit failed the final check (an engine bug, counted in
     * `rejected`; seen with needles of islands at the wall): anneal on, as
     * the search at a fitted scale does, until a layout passes */
    for (moves = 0; s == UN_OK && !ok && moves < FIXED_RESCUE_MOVES; moves++) {
        if ((s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete)) == UN_OK && complete)
            s = accept_layout(pk, &ok);
    }
    if (s == UN_OK && !ok) return UN_EINTERNAL;
    return s;
}

static un_status run_fixed(un_packer *pk, int64_t moves, volatile int *cancel, int *improved)
{
    int64_t i;
    un_status s = UN_OK;
    for (i = 0; i < moves && s == UN_OK; i++) {
        int complete = 0;
        if (cancel && *cancel) return UN_ECANCELLED;
        pk->st.moves++;
        if (pk->since >= pk->stall) {
            /* back to the best layout, hot */
            memcpy(pk->E.par, pk->best_par, 3 * (size_t)pk->E.n * sizeof *pk->E.par);
            memcpy(pk->E.seq, pk->best_seq, (size_t)pk->E.n * sizeof *pk->E.seq);
            if ((s = decode_all(pk, &complete)) != UN_OK) break;
            un_anneal_reheat(&pk->A);
            pk->since = 0;
            continue;
        }
        s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete);
        pk->since++;
        if (s == UN_OK && complete && pk->A.cost < pk->best_cost - FIXED_COST_EPS) {
            int ok = 0;
            if ((s = accept_layout(pk, &ok)) == UN_OK && ok) {
                *improved = 1;
                pk->since = 0;
            }
        }
    }
    return s;
}

/* ------------------------------------------------------------ boxes */

/* Skyline of the islands' bounding rectangles (at their base orientation,
 * or turned a quarter) at scale L, in order `ord`, by bottom-left or (fit)
 * best fit; fills the placements when everything fits.  With several
 * targets (a fixed scale), a rectangle that fits no more in the current one
 * starts the next one. */
/* More than BOX_SHELF_AT rectangles go on shelves (tuning.h). */

/* Next-fit shelf: the rectangle goes right of the last one on the current
 * shelf, or at the left of a new shelf on top of the tallest rectangle of
 * the current one.  shelf[0..2]: cursor x, shelf bottom, shelf height. */
static int shelf_place(double shelf[3], double W, double H, double w, double h, double *x, double *y)
{
    if (shelf[0] + w > W) {
        shelf[1] += shelf[2];
        shelf[0] = shelf[2] = 0;
    }
    if (shelf[0] + w > W || shelf[1] + h > H) return 0;
    *x = shelf[0];
    *y = shelf[1];
    shelf[0] += w;
    if (h > shelf[2]) shelf[2] = h;
    return 1;
}

static un_status box_fill(un_packer *pk, double L, const int32_t *ord, int fit, int *ok)
{
    un_engine *E = &pk->E;
    un_skyline *sk = un_skyline_new();
    int32_t p, quarter = E->os.ngrid % 4 == 0 ? E->os.ngrid / 4 : -1, bin = 0, in_bin = 0;
    int shelves = E->n > BOX_SHELF_AT;
    double shelf[3] = {0, 0, 0}, W, H;
    /* rectangles grown by half the margin (and a clearance of BOX_CLEARANCE
     * grid steps) fill the target less padding, grown by half the margin:
     * the margin is between islands, not to the border */
    double half = E->margin * L / 2, grow = half + BOX_CLEARANCE * E->q, pad = E->padding * L;
    un_status s;
    *ok = 0;
    if (!sk) return UN_ENOMEM;
    if ((s = un_engine_set_scale(E, L)) != UN_OK) goto done;
    W = E->tw * L - 2 * pad + 2 * half;
    H = E->th * L - 2 * pad + 2 * half;
    if ((s = un_skyline_reset(sk, W, H)) != UN_OK) goto done;
    for (p = 0; p < E->n; p++) {
        int32_t k = ord[p], o;
        un_pt lo, hi;
        double w, h, x, y;
        int rot = 0;
        if (p % 256 == 255 && E->cancel && *E->cancel) { s = UN_ECANCELLED; goto done; }
        un_island_bbox(&E->os, E->isl + k, 0, 1, E->q, &lo, &hi);
        w = (double)(hi.x - lo.x) * E->q + 2 * grow;
        h = (double)(hi.y - lo.y) * E->q + 2 * grow;
        while (shelves ? !shelf_place(shelf, W, H, w, h, &x, &y)
                       : !un_skyline_place(sk, w, h, quarter > 0, fit, &x, &y, &rot)) {
            /* the next target, if there is one and this one holds anything */
            if (!in_bin || bin + 1 >= E->nbins_max) goto done;
            bin++;
            in_bin = 0;
            shelf[0] = shelf[1] = shelf[2] = 0;
            if ((s = un_skyline_reset(sk, W, H)) != UN_OK) goto done;
        }
        if (!shelves && (s = un_skyline_add(sk, x, y, rot ? h : w, rot ? w : h)) != UN_OK) goto done;
        in_bin++;
        o = rot ? quarter : 0;
        un_island_bbox(&E->os, E->isl + k, o, 1, E->q, &lo, &hi);
        E->seq[p] = k;
        E->pl[p].placed = 1;
        E->pl[p].orient = o;
        E->pl[p].sigma = 0;
        E->pl[p].bin = bin;
        /* the island's box (grid) starts inside its grown rectangle */
        E->pl[p].t.x = un_llround((x + pad - half + grow) / E->q) - lo.x;
        E->pl[p].t.y = un_llround((y + pad - half + grow) / E->q) - lo.y;
    }
    s = accept_layout(pk, ok);
done:
    un_skyline_free(sk);
    return s;
}

#define BOX_ORDERS 6   /* the orders box_key sorts by */

typedef struct {
    const un_engine *E;
    int key;
} box_ctx;

static double box_key(const un_engine *E, int32_t k, int key)
{
    un_pt lo, hi;
    double w, h;
    un_island_bbox(&E->os, E->isl + k, 0, 1, E->q, &lo, &hi);
    w = (double)(hi.x - lo.x);
    h = (double)(hi.y - lo.y);
    switch (key) {
    case 0: return h;
    case 1: return w;
    case 2: return w * h;
    case 3: return w > h ? w : h;
    case 4: return w + h;
    default: return w < h ? w : h;
    }
}

static int cmp_box(int32_t a, int32_t b, const void *vctx)
{
    const box_ctx *c = (const box_ctx *)vctx;
    double ka = box_key(c->E, a, c->key), kb = box_key(c->E, b, c->key);
    if (ka != kb) return ka > kb ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Box packing: for six orders (tallest, widest, largest, longest side,
 * largest perimeter, longest short side first), each with the skyline's
 * bottom-left and best-fit rules, the smallest scale at which the skyline
 * fits everything; the best of them.  Beyond BOX_SHELF_AT islands, shelves
 * of the tallest first.  At a fixed scale: the tallest first, at that
 * scale, over as many targets as it takes. */
static un_status start_box(un_packer *pk, double L_area)
{
    un_engine *E = &pk->E;
    int32_t *ord = (int32_t *)malloc((size_t)E->n * sizeof *ord), *tmp = (int32_t *)malloc((size_t)E->n * sizeof *tmp);
    int32_t key, i, tries, keys = E->n > BOX_SHELF_AT ? 1 : 2 * BOX_ORDERS;
    un_status s = UN_OK;
    if (!ord || !tmp) { free(ord); free(tmp); return UN_ENOMEM; }
    if (E->nbins_max > 0) {
        int ok = 0;
        box_ctx c;
        c.E = E;
        c.key = 0;
        for (i = 0; i < E->n; i++) ord[i] = i;
        un_sort_idx(ord, E->n, cmp_box, &c, tmp);
        s = box_fill(pk, L_area, ord, 0, &ok);
        if (s == UN_ERANGE) s = UN_ENOFIT;   /* islands beyond the grid's range */
        keys = 0;
    }
    for (key = 0; key < keys && s == UN_OK; key++) {
        box_ctx c;
        int fit = key >= BOX_ORDERS;
        double lo = L_area, hi = L_area * BOX_FIRST_GROW;
        int ok = 0;
        c.E = E;
        c.key = key % BOX_ORDERS;
        for (i = 0; i < E->n; i++) ord[i] = i;
        un_sort_idx(ord, E->n, cmp_box, &c, tmp);
        for (tries = 0; tries < BOX_TRIES && s == UN_OK; tries++, lo = hi, hi *= BOX_GROW)
            if (pk->have_best && hi >= pk->best_L) break;
            else if ((s = box_fill(pk, hi, ord, fit, &ok)) != UN_OK || ok) break;
        /* beyond the grid (a margin that needs a huge container): this
         * order fits nowhere */
        if (s == UN_ERANGE) { s = UN_OK; continue; }
        if (pk->have_best && hi > pk->best_L) hi = pk->best_L;
        while (s == UN_OK && hi - lo > BOX_TOLERANCE * hi) {
            double mid = 0.5 * (lo + hi);
            if ((s = box_fill(pk, mid, ord, fit, &ok)) != UN_OK) break;
            if (ok) hi = mid; else lo = mid;
        }
    }
    free(ord);
    free(tmp);
    if (s == UN_OK && !pk->have_best) s = UN_ENOFIT;
    return s;
}

/* Bottom-left fill at scale L: does everything fit, and is it valid? */
static un_status first_fill(un_packer *pk, double L, int *ok)
{
    int complete = 0;
    un_status s = un_engine_set_scale(&pk->E, L);
    *ok = 0;
    if (s == UN_ERANGE) return UN_ENOFIT;
    /* a filler that does not fit already decides: stop there */
    pk->E.fill_stop = 1;
    if (s == UN_OK) s = decode_all(pk, &complete);
    pk->E.fill_stop = 0;
    if (s == UN_OK && complete) s = accept_layout(pk, ok);
    return s;
}

/* Area of the target (tile units) that locked islands lying wholly inside
 * it cover, counting overlaps twice: an estimate, used only to size the
 * grid (never as a bound on the scale). */
static double locked_area_inside(const un_packer *pk)
{
    const un_engine *E = &pk->E;
    double covered = 0;
    int32_t i;
    for (i = 0; i < E->nlocked; i++) {
        const un_frings *f = E->locked + i;
        double lo[2], hi[2];
        if (un_frings_bbox(f, lo, hi) != UN_OK || lo[0] < 0 || lo[1] < 0 || hi[0] > E->tw || hi[1] > E->th)
            continue;
        covered += frings_area(f);
    }
    return covered;
}

/* The container that holds every island, each grown by half the margin,
 * at a given density.  Plain areas are not enough: the margin weighs more
 * as islands get smaller.  A shape of area a and perimeter p grown by h
 * covers about a + p h + pi h^2 (exactly, when convex); h = margin X / 2
 * in island units for a container X times the target. */
static double scale_at_density(const un_engine *E, double density)
{
    double area = 0, perimeter = 0, a, b;
    int32_t i;
    for (i = 0; i < E->n; i++) {
        area += E->isl[i].area;
        perimeter += E->isl[i].perimeter;
    }
    /* density tw th X^2 = area + perimeter m X / 2 + n pi (m X / 2)^2 */
    a = density * E->tw * E->th - E->n * PI * 0.25 * E->margin * E->margin;
    b = 0.5 * perimeter * E->margin;
    if (!(a > 0)) return HUGE_VAL;
    return (b + sqrt(b * b + 4 * a * area)) / (2 * a);
}

/* The density (of islands grown by half the margin) that a fill at L
 * reached before it stopped at the first island that did not fit. */
static double fill_density(const un_engine *E, double L)
{
    const double h = 0.5 * E->margin * L;
    double placed = 0;
    int32_t p;
    for (p = 0; p < E->n; p++)
        if (E->pl[p].placed) {
            const un_island *is = E->isl + E->seq[p];
            double f = un_shrink_factor(E->pl[p].sigma);
            placed += f * f * is->area + f * is->perimeter * h + PI * h * h;
        }
    return placed / (E->tw * E->th * L * L);
}

/* No bottom-left fill placed every island in any container tried.  That
 * happens when the margin is large next to the islands: the margin grows
 * with the container, so the leftmost free point can leave the islands
 * after it no room at every scale.  Anneal in the largest container,
 * whose cost rewards every island brought closer to fitting, reheating
 * when stalled, until a decode places every island (or the budget runs
 * out: the start then fails with UN_ENOFIT). */
static un_status rescue_layout(un_packer *pk, double L)
{
    un_engine *E = &pk->E;
    int64_t since = 0, work0 = E->work, moves;
    int complete = 0, ok = 0;
    un_status s;
    /* islands at least the margin apart hold disjoint disks of diameter
     * the margin, centred in the target: their area must fit in the target
     * grown by half the margin, however small the islands */
    if (E->n * PI * 0.25 * E->margin * E->margin > (E->tw + E->margin) * (E->th + E->margin)) return UN_OK;
    if (E->nanneal == 0) return UN_OK;
    if ((s = try_scale(pk, L, 0)) != UN_OK) return s;
    /* hot enough to give up a typical island's share now and then */
    set_schedule(pk, T0_SHARE / E->nanneal, E->nanneal);
    un_anneal_reheat(&pk->A);
    /* a move computes regions unless no island fits its container even
     * shrunk: bound the moves too */
    for (moves = 0; !ok && moves < RESCUE_WORK && E->work - work0 < RESCUE_WORK; moves++) {
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        if ((s = un_anneal_move(E, &pk->A, &pk->rng, &complete)) != UN_OK) return s;
        if (complete && (s = accept_layout(pk, &ok)) != UN_OK) return s;
        if (++since >= pk->stall) {
            un_anneal_reheat(&pk->A);
            since = 0;
        }
    }
    return UN_OK;
}

/* A container smaller than this cannot hold every island in any
 * orientation: an island's diameter, at least its longest bounding-box
 * side, cannot exceed the target's diagonal times L. */
static double longest_reach(const un_engine *E)
{
    double reach = 0;
    int32_t i;
    for (i = 0; i < E->n; i++) {
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
        if (un_frings_bbox(&E->isl[i].outline, lo, hi) != UN_OK) continue;
        if (hi[0] - lo[0] > reach) reach = hi[0] - lo[0];
        if (hi[1] - lo[1] > reach) reach = hi[1] - lo[1];
    }
    return reach / hypot(E->tw, E->th);
}

static un_status start_layout(un_packer *pk, volatile int *cancel)
{
    un_engine *E = &pk->E;
    double total = 0, L_area, L_grid, free_area, L;
    int32_t i;
    int ok = 0;
    un_status s;
    E->cancel = cancel;
    for (i = 0; i < E->n; i++) total += E->isl[i].area;
    L_area = sqrt(total / (E->tw * E->th));
    /* the grid spans a few times the container whose free part (less the
     * locked islands, at least LOCKED_FREE_MIN of the target) holds the
     * islands' area */
    free_area = E->tw * E->th - locked_area_inside(pk);
    if (free_area < LOCKED_FREE_MIN * E->tw * E->th) free_area = LOCKED_FREE_MIN * E->tw * E->th;
    L_grid = sqrt(total / free_area);
    /* ... and at least the container the longest island needs: thin
     * islands and segments have next to no area, and a grid sized by area
     * alone could not reach the container they need */
    L = longest_reach(E);
    if (L > L_area) L_area = L;
    if (L > L_grid) L_grid = L;
    if (pk->opt.fixed_scale > 0) L_area = L_grid = 1 / pk->opt.fixed_scale;
    if ((s = prepare(pk, L_grid)) != UN_OK) return s;
    /* the skyline knows nothing of locked islands: with them, boxes go
     * through the general engine (the caller passes box outlines) */
    if (pk->opt.box && E->nlocked == 0) return start_box(pk, L_area);
    if (pk->opt.fixed_scale > 0) return start_fixed(pk);
    /* first layout: the bottom-left fill (every r = f = 0) at the first
     * container tried where everything fits; run() then bisects down
     * before it anneals.  Until then the islands stay inflated over a
     * range of L (every re-inflation recomputes every no-fit polygon: on a
     * dense mesh, 7 of the 9 fills did, for most of the time) */
    E->drift = E->margin > START_GAP / START_DRIFT ? START_GAP / E->margin : START_DRIFT;
    if (E->drift < UN_INFLATION_DRIFT) E->drift = UN_INFLATION_DRIFT;
    if (!pk->have_best) {
        if (pk->fill_tries == 0) {
            pk->lo = L_area;
            /* the first try assumes a dense fill; each next one the density
             * the last one reached (FILL_ROOM, FILL_GROW_MIN, FILL_GROW_MAX) */
            L = scale_at_density(E, FIRST_DENSITY);
            pk->fill_L = !isfinite(L) || L < FIRST_ABOVE_AREA * L_area ? FIRST_ABOVE_AREA * L_area : L;
        }
        /* many islands: the first layout from quick fills (the first
         * window with room), streamed at once; the bisection refines with
         * full ones */
        E->fill_quick = E->n > BISECT_AT_START;
        for (; pk->fill_tries < FIRST_TRIES; pk->fill_tries++) {
            double grow;
            L = pk->fill_L;
            E->infl_hint = L / (1 - E->drift);   /* room for the next, larger tries */
            s = first_fill(pk, L, &ok);
            if (s != UN_OK || ok) break;
            grow = FILL_ROOM * scale_at_density(E, fill_density(E, L)) / L;
            pk->lo = L;
            pk->fill_L = L * (grow < FILL_GROW_MIN ? FILL_GROW_MIN : grow > FILL_GROW_MAX ? FILL_GROW_MAX : grow);
        }
        E->fill_quick = 0;
        if (s != UN_OK && s != UN_ENOFIT) return s;  /* UN_ENOFIT: beyond the grid */
        if (!pk->have_best) {
            if ((s = rescue_layout(pk, un_engine_largest_scale(E))) != UN_OK) return s;
            pk->lo = L_area;
        }
        if (!pk->have_best) return UN_ENOFIT;
        pk->bisecting = 1;
    }
    /* for up to a few hundred islands a fill costs milliseconds: bisect now,
     * so that the first layout handed out is already tight; cancelled, the
     * first layout is the last fill that fitted, and run() bisects on.  The
     * bisection's last step, which sets up the annealing (a decode at a new
     * scale), is run()'s first move */
    s = UN_OK;
    /* (not the aligned search: its fills, 4 * UN_CAND_DIRS + 1 contact
     * placements per island, are costly, and its parent, which starts it
     * within one move, would be charged for all of them at once) */
    if (E->n <= BISECT_AT_START && !(E->contact && pk->opt.align)) {
        int improved = 0;
        while (bisect_due(pk) && s == UN_OK && !(cancel && *cancel)) s = bisect_step(pk, &improved);
        if (s == UN_ECANCELLED) s = UN_OK;
    }
    return s;
}

/* ------------------------------------------------------- the side search */

/* Up to a few hundred islands, a second search runs interleaved with the
 * main one, a packer of its own over the same islands:
 *
 * - The as-given search, when the main search chooses orientations
 *   (rotation any): every island in its input orientation only (no turn,
 *   no mirror: rotation none).  Jigsaw pieces and islands an artist
 *   straightened fit best as given, and a search with no angle to choose
 *   finds those fits far sooner than one choosing among 360 / step
 *   orientations per island (twice that with mirrors).
 * - The contact search, when the main search has one orientation (rotation
 *   none, the as-given search itself) or the quarter turns (rotation 90),
 *   at most CONTACT_MAX islands and at most CONTACT_VERTS vertices in the
 *   annealed ones:
 *   every island goes to the vertex of its collision-free regions where it
 *   touches its neighbours and the walls the most (contact.c), and the
 *   annealing moves only the sequence.  Interlocking pieces assemble that
 *   way: on the Dighe jigsaws it fills a container 8 % larger than the
 *   optimum within a hundred decodes, where choosing points by (r, f)
 *   takes thousands.  With rotation 90 each island also takes the quarter
 *   turn where it touches the most (decode.c): islands straightened but
 *   turned the wrong way, and puzzle pieces given in quarter turns of their
 *   fit.  (Below the as-given search of rotation any the contact search
 *   keeps one orientation: the four turns took 4 of the 18 terashima
 *   puzzles, given as they fit, from 0.97-1.00 to 0.85-0.93 at 10 s.)
 * - The aligned search: with rotation any, the side search of the
 *   main search when its islands are mostly turned (less than
 *   STRAIGHT_SHARE of their area with an edge on an axis as given), else of
 *   the as-given contact search (at most ALIGNED_MAX islands), within the
 *   contact search's limits and at most ALIGNED_VERTS vertices.  A contact
 *   search whose islands
 *   choose among their base angle and their candidates (orient.c), the
 *   orientations that turn an edge straight (PIN_SHARE of its moves pin an
 *   island to one of them instead, anneal.c).  Islands come out of an unwrap
 *   turned by any angle; there the as-given searches find nothing, and the
 *   main search's grid of angles never lines up an edge exactly.
 *
 * The side search gets a share of the work (collision-free regions
 * search computed: the share then holds however costly each search's moves are,
 * and stays deterministic): SIDE_AHEAD while it is ahead of the main
 * search, SIDE_NEAR while its best container is within SIDE_CLOSE of the main
 * search's, SIDE_FAR when it is further behind (islands that gain from
 * turning or from (r, f): the main search needs the time; a box layout
 * kept as the best does not count), and SIDE_CACHE_SHARE of the cache
 * budget.  Whenever its best layout beats the best, that layout (checked
 * again here) becomes the best.  The main search goes on below its own
 * best container, main_L, as if alone: it cannot express the side search's
 * layout, and aiming below a container it has not reached would only leave
 * it annealing islands that do not fit. */

/* Work done by a packer and its side search (and the side search's own),
 * in collision-free regions computed; contact scores count at what they
 * cost, CONTACT_PAIRS edge pairs compared for one region. */
static double total_work(const un_packer *pk)
{
    return (double)pk->E.work + (double)pk->E.contact_pairs / CONTACT_PAIRS +
           (pk->side ? total_work(pk->side) : 0);
}

/* Is the next move the side search's?  When its share of the work done by
 * both is below its due. */
static int side_turn(const un_packer *pk)
{
    const un_packer *sub = pk->side;
    double share;
    if (!sub) return 0;
    share = sub->best_L <= pk->main_L ? SIDE_AHEAD : sub->best_L <= SIDE_CLOSE * pk->main_L ? SIDE_NEAR : SIDE_FAR;
    return total_work(sub) * (1 - share) < share * (double)pk->E.work;
}

static un_status adopt_side(un_packer *pk, int *improved)
{
    const un_packer *sub = pk->side;
    if (!sub->have_best || sub->best_L >= pk->best_L) return UN_OK;
    return keep_layout(pk, sub->best, sub->best_L, improved);
}

enum { SIDE_NONE, SIDE_AS_GIVEN, SIDE_CONTACT, SIDE_ALIGNED };

/* Vertices of the annealed islands' shapes (their contact scores cost
 * about the square of the vertices near each candidate point). */
static int64_t annealed_vertices(const un_engine *E)
{
    int64_t n = 0;
    int32_t i;
    for (i = 0; i < E->nanneal; i++) n += un_frings_npts(&E->isl[E->seq[i]].shape);
    return n;
}

/* Few enough islands, and vertices, for the contact search?  For the
 * aligned search (`aligned`)? */
static int contact_affordable(const un_engine *E, int aligned)
{
    return E->n <= CONTACT_MAX && annealed_vertices(E) <= (aligned ? ALIGNED_VERTS : CONTACT_VERTS);
}

/* Share of the islands' area in islands that lie straight as given: an
 * edge among their candidates' directions (orient.c) already on an axis. */
static double straight_share(const un_engine *E)
{
    double straight = 0, total = 0;
    int32_t i, c;
    for (i = 0; i < E->n; i++) {
        const un_island *is = E->isl + i;
        total += is->area;
        for (c = 0; c < UN_CANDIDATES; c++) {
            double r = remainder(is->cand[c], 0.5 * PI);
            if (fabs(r) <= STRAIGHT_TOLERANCE) { straight += is->area; break; }
        }
    }
    return total > 0 ? straight / total : 0;
}

static int side_kind(const un_packer *pk)
{
    const un_engine *E = &pk->E;
    if (pk->opt.fixed_scale > 0 || pk->opt.box || E->n > BISECT_AT_START) return SIDE_NONE;
    /* rotation any: islands mostly straight as given get the as-given
     * search, its contact search and below that (few islands) the aligned
     * search; islands mostly turned get the aligned search */
    if (E->contact) return pk->aligned_next && E->n <= ALIGNED_MAX && contact_affordable(E, 1) ? SIDE_ALIGNED : SIDE_NONE;
    if (pk->opt.align && straight_share(E) < STRAIGHT_SHARE && contact_affordable(E, 1)) return SIDE_ALIGNED;
    if (pk->opt.align) return SIDE_AS_GIVEN;
    return (E->at_vertices || is_quarter_turns(&pk->opt)) && contact_affordable(E, 0) ? SIDE_CONTACT : SIDE_NONE;
}

/* A packer of its own over the same islands (and locked islands) with
 * options o, not started. */
static un_status new_sub_packer(const un_packer *pk, const un_pack_options *o, un_packer **out)
{
    const un_engine *E = &pk->E;
    un_packer *sub;
    int32_t k;
    un_status s = un_packer_new(o, &sub);
    *out = NULL;
    if (s != UN_OK) return s;
    sub->no_boxes = 1;   /* only the packer the caller made tries boxes */
    /* a chain's side search draws from the chain's stream */
    sub->stream = pk->stream;
    un_rng_seed(&sub->rng, o->seed, sub->stream);
    for (k = 0; k < E->n && s == UN_OK; k++) s = un_packer_add_island(sub, &E->isl[k].outline, E->isl[k].area);
    /* locked islands: already relative to the target's corner */
    if (s == UN_OK && E->nlocked) s = UN_RESERVE(sub->E.locked, sub->cap_locked, E->nlocked);
    for (k = 0; k < E->nlocked && s == UN_OK; k++) {
        s = copy_frings(sub->E.locked + k, E->locked + k);
        sub->E.nlocked++;   /* counted even if the copy failed: freed with sub */
    }
    if (s != UN_OK) {
        un_packer_free(sub);
        return s;
    }
    *out = sub;
    return UN_OK;
}

/* Start the side search, on the first move, so that it never delays the
 * first layout (the as-given search's start is a whole second start: on
 * dense meshes it took 40 % of the first layout's time). */
static un_status start_side(un_packer *pk, volatile int *cancel, int *improved)
{
    const double as_given = 0;
    un_pack_options o = pk->opt;
    un_packer *sub = pk->side_pending;
    int32_t kind = side_kind(pk);
    un_status s;
    if (kind == SIDE_NONE) { pk->side_started = 1; return UN_OK; }
    if (!sub) {
        if (kind != SIDE_CONTACT) {
            o.nangles = 1;
            o.angles = &as_given;
            o.flip = 0;
        }
        /* the aligned search: each island's base and candidates */
        o.align = kind == SIDE_ALIGNED;
        o.cache_bytes = SIDE_CACHE_SHARE * pk->opt.cache_bytes;
        if ((s = new_sub_packer(pk, &o, &sub)) != UN_OK) return s;
        sub->E.contact = kind != SIDE_AS_GIVEN;
        sub->aligned_next = kind == SIDE_AS_GIVEN || (kind == SIDE_CONTACT && pk->aligned_next);
        pk->side_pending = sub;
    }
    /* cancelled: its start goes on on the next move, unless it is the
     * aligned search and has cost too much already: then there is none */
    s = un_packer_start(sub, cancel);
    if (s == UN_ECANCELLED && !(sub->E.contact && sub->opt.align && sub->E.contact_pairs > ALIGNED_START_PAIRS))
        return s;
    pk->side_pending = NULL;
    pk->side_started = 1;
    if (s == UN_ECANCELLED) {
        un_packer_free(sub);
        return UN_OK;
    }
    if (s != UN_OK) {
        un_packer_free(sub);
        /* islands that fit only turned: no as-given search */
        return s == UN_ENOFIT ? UN_OK : s;
    }
    un_nfpcache_set_budget(pk->E.cache, (size_t)((1 - SIDE_CACHE_SHARE) * pk->opt.cache_bytes));
    pk->side = sub;
    return adopt_side(pk, improved);
}

/* The skyline's layout of the islands' bounding rectangles (what shape
 * box packs, a few milliseconds) with options o, kept as the best when it
 * beats it. */
static un_status try_boxes(un_packer *pk, un_pack_options o, volatile int *cancel, int *improved)
{
    un_packer *sub;
    un_status s;
    o.box = 1;
    o.cache_bytes = BOX_CACHE_BYTES;
    if ((s = new_sub_packer(pk, &o, &sub)) != UN_OK) return s;
    s = un_packer_start(sub, cancel);
    pk->st.rejected += sub->st.rejected;   /* a box layout that broke the rules */
    if (s == UN_OK && sub->best_L < pk->best_L) s = keep_layout(pk, sub->best, sub->best_L, improved);
    un_packer_free(sub);
    /* islands whose boxes do not fit at any scale the skyline tries */
    return s == UN_ENOFIT ? UN_OK : s;
}

/* On one of the first moves, box layouts become the best when they beat it:
 * islands whose boxes tile well (strips, panels) pack that way tighter
 * than the search has got by then.  The boxes at the orientations the
 * search starts from (with rotation any each island's minimal box, and its
 * quarter turns when the step divides them), and with rotation any also as
 * given.  Not on the first layout, which stays the bottom-left fill; not
 * with locked islands (the skyline knows nothing of them), a fixed scale,
 * or more islands than are bisected at the start (there the skyline falls
 * behind the quick fills). */
static int box_layouts_due(const un_packer *pk)
{
    return !pk->no_boxes && !pk->opt.box && !(pk->opt.fixed_scale > 0) && !pk->E.nlocked &&
           pk->E.n <= BISECT_AT_START;
}

static un_status try_box_layouts(un_packer *pk, volatile int *cancel, int *improved)
{
    const double as_given = 0;
    un_pack_options o = pk->opt;
    un_status s = try_boxes(pk, o, cancel, improved);
    if (s == UN_OK && pk->opt.align) {
        o.nangles = 1;
        o.angles = &as_given;
        o.align = 0;
        o.flip = 0;
        s = try_boxes(pk, o, cancel, improved);
    }
    /* cancelled: again on the next move */
    pk->boxes_due = s == UN_ECANCELLED;
    return s;
}

/* One move of the side search. */
static un_status side_move(un_packer *pk, volatile int *cancel, int *improved)
{
    int better = 0;
    un_status s = un_packer_run(pk->side, 1, cancel, &better);
    return s == UN_OK && better ? adopt_side(pk, improved) : s;
}

un_status un_packer_start(un_packer *pk, volatile int *cancel)
{
    un_status s;
    /* starting again after a success does nothing; a cancelled start goes
     * on where it stopped (its shapes and no-fit polygons kept); a failed
     * one (no memory, no fit) leaves the packer unusable, with no layout,
     * rather than half prepared */
    if (pk->start_done) return UN_OK;
    if (pk->failed || pk->E.n == 0) return UN_EINVAL;
    pk->started = 1;
    s = start_layout(pk, cancel);
    if (s == UN_ECANCELLED) return s;
    if (s != UN_OK) {
        pk->have_best = 0;
        pk->failed = 1;
        return s;
    }
    pk->start_done = 1;
    pk->side_started = side_kind(pk) == SIDE_NONE;   /* no move spent on none */
    pk->boxes_due = box_layouts_due(pk);
    return UN_OK;
}

/* One step of the bisection of the bottom-left fill; when it is fine
 * enough, set up the annealing. */
static un_status bisect_step(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    int ok = 0;
    un_status s;
    if (bisect_due(pk)) {
        double mid = 0.5 * (pk->lo + pk->best_L);
        E->infl_hint = pk->best_L;   /* every later mid lies below */
        if ((s = first_fill(pk, mid, &ok)) != UN_OK) return s;
        if (ok) *improved = 1;
        else pk->lo = mid;
        return UN_OK;
    }
    pk->bisecting = 0;
    /* the annealing inflates for its own L, within the usual drift */
    E->drift = E->infl_hint = 0;
    /* annealing: the reheat temperature accepts losing a typical island's
     * share of the container about one time in three */
    set_schedule(pk, T0_SHARE * pk->st.coverage / E->nanneal, E->nanneal);
    pk->delta = SCALE_STEP_FIRST;
    return try_scale(pk, pk->main_L * (1 - pk->delta), 1);
}

/* The main search placed everything in a container smaller than its own
 * best: the best layout when it beats the as-given search's too; either
 * way the point the main search restarts from, and smaller containers
 * next. */
static un_status on_success(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    un_status s;
    if (E->L < pk->best_L) {
        if ((s = accept_layout(pk, improved)) != UN_OK) return s;
    } else {
        keep_restart_point(pk);
    }
    pk->delta *= SCALE_STEP_GROW;
    if (pk->delta > SCALE_STEP_MAX) pk->delta = SCALE_STEP_MAX;
    /* go on from this layout at the same temperature */
    return try_scale(pk, pk->main_L * (1 - pk->delta), 0);
}

static un_status on_stall(un_packer *pk)
{
    /* a smaller step, from the best layout, hot again; below the smallest
     * step, start over with a small one */
    pk->delta *= SCALE_STEP_STALL;
    if (pk->delta < SCALE_STEP_MIN) pk->delta = SCALE_STEP_RESTART;
    memcpy(pk->E.par, pk->best_par, 3 * (size_t)pk->E.n * sizeof *pk->E.par);
    memcpy(pk->E.seq, pk->best_seq, (size_t)pk->E.n * sizeof *pk->E.seq);
    return try_scale(pk, pk->main_L * (1 - pk->delta), 1);
}

un_status un_packer_run(un_packer *pk, int64_t moves, volatile int *cancel, int *improved)
{
    int64_t i;
    un_status s = UN_OK;
    *improved = 0;
    if (!pk->start_done) return UN_EINVAL;   /* not started, or the start failed */
    pk->E.cancel = cancel;
    if (pk->opt.box && pk->E.nlocked == 0) return UN_OK; /* the skyline's best is final */
    if (pk->opt.fixed_scale > 0) return run_fixed(pk, moves, cancel, improved);
    for (i = 0; i < moves && s == UN_OK; i++) {
        int complete = 0;
        if (cancel && *cancel) return UN_ECANCELLED;
        pk->st.moves++;
        if (!pk->side_started) { s = start_side(pk, cancel, improved); continue; }
        if (pk->boxes_due) { s = try_box_layouts(pk, cancel, improved); continue; }
        if (side_turn(pk)) { s = side_move(pk, cancel, improved); continue; }
        if (pk->bisecting) { s = bisect_step(pk, improved); continue; }
        if (pk->redecode) { s = try_scale(pk, pk->E.L, 0); continue; }
        if (pk->since >= pk->stall) { s = on_stall(pk); continue; }
        s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete);
        pk->since++;
        if (s == UN_OK && complete) s = on_success(pk, improved);
    }
    return s;
}

int un_packer_best(const un_packer *pk, un_transform *out)
{
    if (!pk->have_best) return 0;
    memcpy(out, pk->best, (size_t)pk->E.n * sizeof *out);
    return 1;
}

void un_packer_stats(const un_packer *pk, un_pack_stats *st)
{
    *st = pk->st;
    st->cache_bytes = un_nfpcache_bytes(pk->E.cache);
    st->cache_hits = un_nfpcache_hits(pk->E.cache);
    st->cache_misses = un_nfpcache_misses(pk->E.cache);
    if (pk->side) {
        un_pack_stats side;
        un_packer_stats(pk->side, &side);   /* and its own side search */
        st->rejected += side.rejected;
        st->cache_bytes += side.cache_bytes;
        st->cache_hits += side.cache_hits;
        st->cache_misses += side.cache_misses;
    }
    st->annealed = pk->E.nanneal;
    st->trying = pk->E.L > 0 ? 1 / pk->E.L : 0;
    if (!pk->have_best) st->bins = 0;
    st->waste = pk->A.cost;
}

/* ------------------------------------------------- for the chains (chains.c) */

void un_packer_set_stream(un_packer *pk, uint64_t k)
{
    pk->stream = RNG_STREAM + k;
    un_rng_seed(&pk->rng, pk->opt.seed, pk->stream);
}

void un_packer_skip_boxes(un_packer *pk)
{
    pk->no_boxes = 1;
}

int un_packer_start_state(const un_packer *pk)
{
    return pk->start_done ? 1 : pk->failed ? -1 : 0;
}

int64_t un_packer_round_moves(const un_packer *pk)
{
    /* the stall of the schedule the search runs (set_schedule's n) */
    return ROUND_STALLS * stall_moves(pk->opt.fixed_scale > 0 ? pk->E.n : pk->E.nanneal);
}

double un_packer_best_key(const un_packer *pk)
{
    if (!pk->have_best) return HUGE_VAL;
    return pk->opt.fixed_scale > 0 ? pk->best_cost : pk->best_L;
}

int un_packer_beats(const un_packer *pk, double key)
{
    if (!pk->have_best) return 0;
    if (pk->opt.fixed_scale > 0) return pk->best_cost < key - FIXED_COST_EPS;   /* run_fixed's test */
    return pk->best_L < key;
}

void un_packer_adopt(un_packer *pk, const un_packer *from)
{
    const size_t n = (size_t)pk->E.n;
    int fixed = pk->opt.fixed_scale > 0;
    /* a chain still bisecting its first fill has no annealing to restart */
    if (!pk->start_done || !from->start_done || pk->bisecting || from->bisecting) return;
    if (!un_packer_beats(from, un_packer_best_key(pk))) return;
    /* the layout itself, checked by `from` already, and what describes it */
    memcpy(pk->best, from->best, n * sizeof *pk->best);
    pk->best_L = from->best_L;
    pk->best_cost = from->best_cost;
    pk->have_best = 1;
    pk->st.coverage = from->st.coverage;
    pk->st.scale = from->st.scale;
    pk->st.bins = from->st.bins;
    pk->st.bins_f = from->st.bins_f;
    /* the main search's restart point, when from's got further (its best
     * may be a side search's or a box layout, which pk's main search
     * cannot express); at a fixed scale the restart point is the best */
    if (fixed || from->main_L < pk->main_L) {
        memcpy(pk->best_par, from->best_par, 3 * n * sizeof *pk->best_par);
        memcpy(pk->best_seq, from->best_seq, n * sizeof *pk->best_seq);
        pk->main_L = from->main_L;
        /* the next move is a stall's: back to the restart point, hot (the
         * decode that takes runs in the chain's thread, not here) */
        pk->since = pk->stall;
    }
}
