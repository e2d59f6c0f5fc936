/*
 * boxes.c - box mode: the islands' bounding rectangles on a skyline and on
 * shelves (beyond BOX_SHELF_AT, on shelves only), the best of several
 * orders and rules;
 * and the box layouts a search tries on its first moves.
 */
#include "packer.h"

#include <math.h>

/* Skyline (or, with `shelves`, shelves) of the islands' bounding rectangles
 * (at their base orientation, or turned a quarter) at scale L, in order
 * `ord`, by bottom-left / first fit or (fit) best fit; fills the
 * placements when everything fits.  With several targets (a fixed scale),
 * a rectangle that fits no more in the current one starts the next one. */
/* An island's bounding box on the grid, upright ([0]) and turned a
 * quarter ([1]).  The grid step and the shapes stay fixed during a start, so
 * un_pk_start_box computes them once: at 100,000 islands, computing them in
 * every comparison of the sorts and twice per island in every fill (each
 * a pass over the island's vertices with its rotation) was a third of the
 * box layout. */
typedef struct {
    un_pt lo[2], hi[2];
} island_box;

static void island_boxes(const un_engine *E, int32_t quarter, island_box *b)
{
    int32_t k;
    for (k = 0; k < E->n; k++) {
        un_island_bbox(&E->os, E->isl + k, 0, 1, E->q, &b[k].lo[0], &b[k].hi[0]);
        if (quarter > 0) un_island_bbox(&E->os, E->isl + k, quarter, 1, E->q, &b[k].lo[1], &b[k].hi[1]);
    }
}

static int32_t quarter_turn(const un_engine *E)
{
    return E->os.ngrid % 4 == 0 ? E->os.ngrid / 4 : -1;
}

static un_status box_fill(un_packer *pk, double L, const int32_t *ord, const island_box *box, int fit,
                          int shelves, int *ok)
{
    un_engine *E = &pk->E;
    un_skyline *sk = un_skyline_new();
    un_shelves *sh = un_shelves_new();
    int32_t p, quarter = quarter_turn(E), bin = 0, in_bin = 0;
    double W, H;
    /* rectangles grown by half the margin (and a clearance of BOX_CLEARANCE
     * grid steps) fill the target less padding, grown by half the margin:
     * the margin is between islands, not to the border */
    double half = E->margin * L / 2, grow = half + BOX_CLEARANCE * E->q, pad = E->padding * L;
    un_status s;
    *ok = 0;
    if (!sk || !sh) { s = UN_ENOMEM; goto done; }
    if ((s = un_engine_set_scale(E, L)) != UN_OK) goto done;
    W = E->tw * L - 2 * pad + 2 * half;
    H = E->th * L - 2 * pad + 2 * half;
    if ((s = un_skyline_reset(sk, W, H)) != UN_OK) goto done;
    un_shelves_reset(sh, W, H);
    for (p = 0; p < E->n; p++) {
        int32_t k = ord[p];
        un_pt lo = box[k].lo[0], hi = box[k].hi[0];
        double w, h, x, y;
        int rot = 0, placed;
        if (p % 256 == 255 && E->cancel && *E->cancel) { s = UN_ECANCELLED; goto done; }
        w = (double)(hi.x - lo.x) * E->q + 2 * grow;
        h = (double)(hi.y - lo.y) * E->q + 2 * grow;
        for (;;) {
            if (shelves) {
                if ((s = un_shelves_place(sh, w, h, quarter > 0, fit, &x, &y, &rot, &placed)) != UN_OK) goto done;
            } else {
                placed = un_skyline_place(sk, w, h, quarter > 0, fit, &x, &y, &rot);
            }
            if (placed) break;
            /* the next target, if there is one and this one holds anything */
            if (!in_bin || bin + 1 >= E->bins.nbins_max) goto done;
            bin++;
            in_bin = 0;
            un_shelves_reset(sh, W, H);
            if ((s = un_skyline_reset(sk, W, H)) != UN_OK) goto done;
        }
        if (!shelves && (s = un_skyline_add(sk, x, y, rot ? h : w, rot ? w : h)) != UN_OK) goto done;
        in_bin++;
        lo = box[k].lo[rot != 0];
        E->seq[p] = k;
        E->pl[p].placed = 1;
        E->pl[p].orient = rot ? quarter : 0;
        E->pl[p].sigma = 0;
        E->pl[p].bin = bin;
        /* the island's box (grid) starts inside its grown rectangle */
        E->pl[p].t.x = un_llround((x + pad - half + grow) / E->q) - lo.x;
        E->pl[p].t.y = un_llround((y + pad - half + grow) / E->q) - lo.y;
    }
    s = un_pk_accept_layout(pk, ok);
done:
    un_skyline_free(sk);
    un_shelves_free(sh);
    return s;
}

#define BOX_ORDERS 6       /* the orders box_key sorts by */
#define BOX_SHORT_SIDE 5   /* longest short side first: the shelves' order */

typedef struct {
    const island_box *box;
    int key;
} box_ctx;

static double box_key(const island_box *b, int key)
{
    double w = (double)(b->hi[0].x - b->lo[0].x), h = (double)(b->hi[0].y - b->lo[0].y);
    switch (key) {
    case 0: return h;
    case 1: return w;
    case 2: return w * h;
    case 3: return w > h ? w : h;
    case 4: return w + h;
    default: return w < h ? w : h;   /* BOX_SHORT_SIDE */
    }
}

static int cmp_box(int32_t a, int32_t b, const void *vctx)
{
    const box_ctx *c = (const box_ctx *)vctx;
    double ka = box_key(c->box + a, c->key), kb = box_key(c->box + b, c->key);
    if (ka != kb) return ka > kb ? -1 : 1;
    return a < b ? -1 : (a > b);
}

/* Box packing: for six orders (tallest, widest, largest, longest side,
 * largest perimeter, longest short side first), each with the skyline's
 * bottom-left and best-fit rules and the shelves' first-fit and best-fit
 * rules, the smallest scale at which everything fits; the best of them.
 * Beyond BOX_SHELF_AT islands, the shelves only, longest short side
 * first.  (On synthetic-1000 the
 * shelves won, 0.4535 against the skyline's 0.4347.)  At a fixed scale: the
 * tallest first on the skyline (beyond BOX_SHELF_AT, the longest short side
 * first on shelves), at that scale, over as many targets as it takes. */
un_status un_pk_start_box(un_packer *pk, double L_area)
{
    un_engine *E = &pk->E;
    int32_t *ord = (int32_t *)malloc((size_t)E->n * sizeof *ord), *tmp = (int32_t *)malloc((size_t)E->n * sizeof *tmp);
    int32_t key, i, tries, keys = E->n > BOX_SHELF_AT ? 2 : 4 * BOX_ORDERS;
    island_box *box = (island_box *)malloc((size_t)E->n * sizeof *box + 1);
    un_status s = UN_OK;
    if (!ord || !tmp || !box) { free(ord); free(tmp); free(box); return UN_ENOMEM; }
    island_boxes(E, quarter_turn(E), box);
    if (E->bins.nbins_max > 0) {
        int ok = 0;
        box_ctx c;
        c.box = box;
        c.key = E->n > BOX_SHELF_AT ? BOX_SHORT_SIDE : 0;
        for (i = 0; i < E->n; i++) ord[i] = i;
        un_sort_idx(ord, E->n, cmp_box, &c, tmp);
        s = box_fill(pk, L_area, ord, box, 0, E->n > BOX_SHELF_AT, &ok);
        if (s == UN_ERANGE) s = UN_ENOFIT;   /* islands beyond the grid's range */
        keys = 0;
    }
    for (key = 0; key < keys && s == UN_OK; key++) {
        box_ctx c;
        /* the skyline's orders and rules first, then the shelves'; beyond
         * BOX_SHELF_AT the shelves' two rules by the longest short side
         * only (the other orders came within 0.15 % of it on synthetic-10000
         * and 100,000 triangles, and took six times as long) */
        int many = E->n > BOX_SHELF_AT;
        int fit = many ? key : key / BOX_ORDERS % 2, shelves = many || key >= 2 * BOX_ORDERS;
        double lo = L_area, hi = L_area * BOX_FIRST_GROW;
        int ok = 0;
        c.box = box;
        c.key = many ? BOX_SHORT_SIDE : key % BOX_ORDERS;
        for (i = 0; i < E->n; i++) ord[i] = i;
        un_sort_idx(ord, E->n, cmp_box, &c, tmp);
        for (tries = 0; tries < BOX_TRIES && s == UN_OK; tries++, lo = hi, hi *= BOX_GROW)
            if (pk->have_best && hi >= pk->best_L) break;
            else if ((s = box_fill(pk, hi, ord, box, fit, shelves, &ok)) != UN_OK || ok) break;
        /* beyond the grid (a margin that needs a huge container): this
         * order fits nowhere */
        if (s == UN_ERANGE) { s = UN_OK; continue; }
        if (pk->have_best && hi > pk->best_L) hi = pk->best_L;
        while (s == UN_OK && hi - lo > BOX_TOLERANCE * hi) {
            double mid = 0.5 * (lo + hi);
            if ((s = box_fill(pk, mid, ord, box, fit, shelves, &ok)) != UN_OK) break;
            if (ok) hi = mid; else lo = mid;
        }
    }
    free(ord);
    free(tmp);
    free(box);
    if (s == UN_OK && !pk->have_best) s = UN_ENOFIT;
    return s;
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
    if ((s = un_pk_new_sub_packer(pk, &o, &sub)) != UN_OK) return s;
    s = un_packer_start(sub, cancel);
    pk->st.rejected += sub->st.rejected;   /* a box layout that broke the rules */
    if (s == UN_OK && sub->best_L < pk->best_L) s = un_pk_keep_layout(pk, sub->best, sub->best_L, improved);
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
 * with locked islands (the skyline knows nothing of them) or a fixed
 * scale.  Above BISECT_AT_START islands too: there, on the first move, they
 * beat the quick fills (synthetic-1000 0.4522 against 0.4356 in 0.35 s,
 * synthetic-10000 0.1643 against 0.1088 in 1.0 s, threads=1, loaded). */
int un_pk_box_layouts_due(const un_packer *pk)
{
    return !pk->no_boxes && !pk->opt.box && !(pk->opt.fixed_scale > 0) && !pk->E.nlocked;
}

un_status un_pk_try_box_layouts(un_packer *pk, volatile int *cancel, int *improved)
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
