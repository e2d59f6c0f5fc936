/*
 * fixed_scale.c - every island at a given scale over as few targets (UDIM
 * tiles) as possible: the first fit, then annealing on the cost (targets
 * used, then how full they are; decode.c).
 */
#include "packer.h"

#include <math.h>

/* Every island at the given scale, over up to max_bins targets: the first
 * layout is the first fit (every r = f = 0); annealing then lowers the
 * cost (targets used, then how full they are). */
un_status un_pk_start_fixed(un_packer *pk)
{
    un_status s = un_engine_set_scale(&pk->E, 1 / pk->opt.fixed_scale);
    int complete = 0, ok = 0;
    int32_t moves;
    /* many islands: every decode fills quickly (the first window with room),
     * or moves, each a whole decode, would take seconds */
    pk->E.fill_quick = pk->E.n > BISECT_AT_START;
    if (s == UN_ERANGE) return UN_ENOFIT;
    if (s == UN_OK) s = un_pk_decode_all(pk, &complete);
    if (s == UN_OK && !complete) return UN_ENOFIT;
    if (s == UN_OK) s = un_pk_accept_layout(pk, &ok);
    un_pk_set_schedule(pk, FIXED_T0, pk->E.n);
    un_anneal_reheat(&pk->A);
    /* the first fit failed the final check (an engine bug, counted in
     * `rejected`; seen with needles of islands at the wall): anneal on, as
     * the search at a fitted scale does, until a layout passes */
    for (moves = 0; s == UN_OK && !ok && moves < FIXED_RESCUE_MOVES; moves++) {
        if ((s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete)) == UN_OK && complete)
            s = un_pk_accept_layout(pk, &ok);
    }
    if (s == UN_OK && !ok) return UN_EINTERNAL;
    return s;
}

un_status un_pk_run_fixed(un_packer *pk, int64_t moves, volatile int *cancel, int *improved)
{
    int64_t i;
    un_status s = UN_OK;
    for (i = 0; i < moves && s == UN_OK; i++) {
        int complete = 0;
        if (cancel && *cancel) return UN_ECANCELLED;
        pk->st.moves++;
        if (pk->since >= pk->stall) {
            /* back to the best layout, hot */
            un_pk_back_to_restart_point(pk);
            if ((s = un_pk_decode_all(pk, &complete)) != UN_OK) break;
            un_anneal_reheat(&pk->A);
            pk->since = 0;
            continue;
        }
        s = un_anneal_move(&pk->E, &pk->A, &pk->rng, &complete);
        pk->since++;
        if (s == UN_OK && complete && pk->A.cost < pk->best_cost - FIXED_COST_EPS) {
            int ok = 0;
            if ((s = un_pk_accept_layout(pk, &ok)) == UN_OK && ok) {
                *improved = 1;
                pk->since = 0;
            }
        }
    }
    return s;
}
