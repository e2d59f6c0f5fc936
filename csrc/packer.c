/*
 * packer.c - the public packing interface: islands in, improving layouts
 * out (packer.h lists the files that make up the packer).
 *
 * Start: islands are prepared (prepare.c), then the first layout is made:
 * the bottom-left fill at the first container where everything fits,
 * bisected (scale_search.c), or in box mode the skyline (boxes.c), or at a
 * fixed scale the first fit over several targets (fixed_scale.c).
 *
 * Moves: annealing at a container slightly smaller than the best one
 * (scale_search.c).  With free rotation a second search keeps every island
 * as given, interleaved, and with one orientation a contact search
 * (side_search.c).  On the first moves, box layouts are tried as well
 * (boxes.c).  A layout becomes the best only once checked (best_layout.c).
 */
#include "packer.h"
#include "chains.h"

#include <math.h>

#define RNG_STREAM 0x5eed   /* the random stream of chain 0 (chain k: this + k) */

static un_status grow_islands(un_packer *pk)
{
    int32_t n = pk->E.n;
    un_status s = UN_RESERVE(pk->E.isl, pk->cap_isl, (int64_t)n + 1);
    if (s == UN_OK) memset(pk->E.isl + n, 0, sizeof *pk->E.isl);
    return s;
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
    pk->E.ws.cache = un_nfpcache_new((size_t)opt->cache_bytes);
    pk->E.ws.arr = un_workspace_new();
    if (!pk->angles || !pk->E.ws.cache || !pk->E.ws.arr) { un_packer_free(pk); return UN_ENOMEM; }
    memcpy(pk->angles, opt->angles, (size_t)opt->nangles * sizeof *pk->angles);
    pk->opt.angles = pk->angles;
    /* free rotation (a base angle) adds each island's candidates (orient.c)
     * and its contact orientations (neighbour_orient.c) */
    pk->E.os.ngrid = opt->nangles;
    pk->E.os.nangles = opt->nangles + (opt->align ? UN_CANDIDATES + UN_CONTACT_ORIENTS : 0);
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
        un_frings_free(&pk->E.isl[i].coarse);
        un_rings_free(&pk->E.isl[i].coarse_infl);
    }
    for (i = 0; i < pk->E.nlocked; i++) un_frings_free(pk->E.locked + i);
    free(pk->E.isl);
    free(pk->E.locked);
    un_fill_memo_free(&pk->E);
    un_nfpcache_free(pk->E.ws.cache);
    un_workspace_free(pk->E.ws.arr);
    un_regions_free(&pk->E.ws.reg);
    free(pk->E.ws.segs);
    un_rings_free(&pk->E.ws.scratch);
    un_rings_free(&pk->E.ws.tmp);
    free(pk->E.ws.obs);
    free(pk->E.ws.cores);
    free(pk->E.ws.views);
    free(pk->E.touch.spots);
    un_rings_free(&pk->E.touch.self);
    un_rings_free(&pk->E.touch.near);
    free(pk->E.touch.near_at);
    free(pk->E.touch.near_to);
    free(pk->E.seq);
    free(pk->E.par);
    free(pk->E.pl);
    un_anneal_free(&pk->A);
    free(pk->best);
    free(pk->best_par);
    free(pk->best_contact);
    free(pk->best_seq);
    free(pk->group);
    free(pk->E.bins.group_bin);
    free(pk->E.bins.group_area);
    free(pk->E.bins.bin_area);
    free(pk->E.bins.group_mark);
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
    if ((s = un_frings_copy(&is->outline, outline)) != UN_OK) { un_frings_free(&is->outline); return s; }
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
    if ((s = un_frings_copy(f, outline)) != UN_OK) { un_frings_free(f); return s; }
    /* stored relative to the target's corner */
    np = un_frings_npts(f);
    for (i = 0; i < np; i++) {
        f->xy[2 * i] -= pk->opt.target[0];
        f->xy[2 * i + 1] -= pk->opt.target[1];
    }
    pk->E.nlocked++;
    return UN_OK;
}

/* The start is done: run() may search. */
static void start_finished(un_packer *pk)
{
    pk->start_done = 1;
    pk->side_started = un_pk_side_kind(pk) == SIDE_NONE;   /* no move spent on none */
    pk->boxes_due = un_pk_box_layouts_due(pk);
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
    s = un_pk_start_layout(pk, cancel);
    if (s == UN_ECANCELLED) return s;
    if (s != UN_OK) {
        pk->have_best = 0;
        pk->failed = 1;
        return s;
    }
    start_finished(pk);
    return UN_OK;
}

un_status un_packer_run(un_packer *pk, int64_t moves, volatile int *cancel, int *improved)
{
    int64_t i;
    un_status s = UN_OK;
    *improved = 0;
    if (!pk->start_done) return UN_EINVAL;   /* not started, or the start failed */
    pk->E.cancel = cancel;
    if (pk->opt.box && pk->E.nlocked == 0) return UN_OK; /* the skyline's best is final */
    if (pk->opt.fixed_scale > 0) return un_pk_run_fixed(pk, moves, cancel, improved);
    for (i = 0; i < moves && s == UN_OK; i++) {
        int complete = 0;
        if (cancel && *cancel) return UN_ECANCELLED;
        pk->st.moves++;
        if (!pk->side_started) { s = un_pk_start_side(pk, cancel, improved); continue; }
        if (pk->boxes_due) { s = un_pk_try_box_layouts(pk, cancel, improved); continue; }
        if (un_pk_side_turn(pk)) { s = un_pk_side_move(pk, cancel, improved); continue; }
        if (pk->bisecting) { s = un_pk_bisect_step(pk, improved); continue; }
        if (pk->redecode) { s = un_pk_try_scale(pk, pk->E.L, 0); continue; }
        if (pk->since >= pk->stall) { s = un_pk_on_stall(pk); continue; }
        s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete);
        pk->since++;
        if (s == UN_OK && complete) s = un_pk_on_success(pk, improved);
    }
    return s;
}

int un_packer_best(const un_packer *pk, un_transform *out)
{
    if (!pk->have_best) return 0;
    memcpy(out, pk->best, (size_t)pk->E.n * sizeof *out);
    return 1;
}

void un_pack_stats_add_theta(un_pack_stats *st, const un_pack_stats *more)
{
    int32_t a, b;
    for (a = 0; a < UN_THETA_KINDS; a++)
        for (b = 0; b < UN_THETA_COUNTS; b++) st->theta[a][b] += more->theta[a][b];
}

void un_packer_stats(const un_packer *pk, un_pack_stats *st)
{
    *st = pk->st;
    memcpy(st->theta, pk->A.theta, sizeof st->theta);
    st->cache_bytes = un_nfpcache_bytes(pk->E.ws.cache);
    st->cache_hits = un_nfpcache_hits(pk->E.ws.cache);
    st->cache_misses = un_nfpcache_misses(pk->E.ws.cache);
    if (pk->side) {
        un_pack_stats side;
        un_packer_stats(pk->side, &side);   /* and its own side search */
        st->rejected += side.rejected;
        st->cache_bytes += side.cache_bytes;
        st->cache_hits += side.cache_hits;
        st->cache_misses += side.cache_misses;
        un_pack_stats_add_theta(st, &side);
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
    return ROUND_STALLS * un_pk_stall_moves(pk->opt.fixed_scale > 0 ? pk->E.n : pk->E.nanneal);
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

int64_t un_packer_best_move(const un_packer *pk)
{
    return pk->best_move;
}

int un_packer_start_copies(const un_packer *pk)
{
    /* the bottom-left fills of the scale search, not the skyline's boxes
     * nor the fixed scale's containers */
    return !(pk->opt.box && pk->E.nlocked == 0) && !(pk->opt.fixed_scale > 0);
}

un_status un_packer_prepare(un_packer *pk, volatile int *cancel)
{
    if (pk->failed || pk->E.n == 0 || !un_packer_start_copies(pk)) return UN_EINVAL;
    if (pk->start_done) return UN_OK;
    pk->started = 1;
    return un_pk_start_prepare(pk, cancel);
}

un_status un_packer_start_from(un_packer *pk, const un_packer *from)
{
    un_engine *E = &pk->E;
    const un_engine *F = &from->E;
    const size_t n = (size_t)E->n;
    /* a start that needed the rescue's random moves (and their contact
     * orientations) is the chain's own; so is one not fully prepared */
    if (pk->start_done || !from->start_done || from->rescued || !un_packer_start_copies(pk) ||
        !pk->prepared || pk->prep_next < E->n || E->n != F->n)
        return UN_EINVAL;
    /* the first layout and where the scale search stands: the start uses
     * no random numbers but the rescue's, so pk's own start would have
     * ended exactly here (with the same islands, order and shapes, from
     * the same options) */
    memcpy(pk->best, from->best, n * sizeof *pk->best);
    memcpy(pk->best_par, from->best_par, 3 * n * sizeof *pk->best_par);
    memcpy(pk->best_contact, from->best_contact, n * sizeof *pk->best_contact);
    memcpy(pk->best_seq, from->best_seq, n * sizeof *pk->best_seq);
    memcpy(E->par, F->par, 3 * n * sizeof *E->par);
    memcpy(E->seq, F->seq, n * sizeof *E->seq);
    pk->have_best = from->have_best;
    pk->best_L = from->best_L;
    pk->main_L = from->main_L;
    pk->best_cost = from->best_cost;
    pk->best_move = from->best_move;
    pk->bisecting = from->bisecting;
    pk->lo = from->lo;
    pk->fill_tries = from->fill_tries;
    pk->fill_L = from->fill_L;
    pk->A.cost = from->A.cost;
    pk->st.coverage = from->st.coverage;
    pk->st.scale = from->st.scale;
    pk->st.bins = from->st.bins;
    pk->st.bins_f = from->st.bins_f;
    pk->st.layouts = from->st.layouts;
    pk->st.rejected = from->st.rejected;
    /* the work counts that share the moves between the main search and
     * its side search */
    E->work = F->work;
    E->touch.pairs = F->touch.pairs;
    /* the inflation the next fills see (shapes inflate again on use: a
     * new epoch), within the start's drift */
    E->drift = F->drift;
    E->infl_hint = F->infl_hint;
    E->L_infl = F->L_infl;
    E->radius = F->radius;
    E->epoch++;
    un_nfpcache_clear(E->ws.cache);
    if (F->L > 0 && un_engine_set_scale(E, F->L) != UN_OK) return UN_EINVAL;
    start_finished(pk);
    return UN_OK;
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
    pk->best_move = from->best_move;
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
        memcpy(pk->best_contact, from->best_contact, n * sizeof *pk->best_contact);
        memcpy(pk->best_seq, from->best_seq, n * sizeof *pk->best_seq);
        pk->main_L = from->main_L;
        /* the next move is a stall's: back to the restart point, hot (the
         * decode that takes runs in the chain's thread, not here) */
        pk->since = pk->stall;
    }
}
