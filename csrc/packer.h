/*
 * packer.h - the packer's state, shared by the files that make it up.  Not
 * part of the public interface (uvnest.h declares the packer's API).
 *
 *   packer.c        the API: options, islands, start, moves, the best
 *                   layout, and the hooks of the parallel chains
 *   prepare.c       island preparation: order, annealed set, shapes
 *   best_layout.c   checking a layout and keeping it as the best
 *   scale_search.c  the largest common scale: first fill, bisection,
 *                   annealing at ever smaller containers
 *   fixed_scale.c   a given scale over several targets (UDIM tiles)
 *   boxes.c         box mode: skyline or shelves of bounding rectangles
 *   side_search.c   the as-given, contact and aligned searches
 *
 * Functions shared between these files are named un_pk_*.
 */
#ifndef UVNEST_PACKER_H
#define UVNEST_PACKER_H

#include "uvnest.h"
#include "engine.h"
#include "anneal.h"

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
    int64_t         best_move;    /* st.moves when the best layout was kept (or,
                                   * adopted, when its chain kept it) */
    int32_t        *group;        /* per island: affinity group, -1 */
    int32_t         cap_group, ngrouped;
    un_transform   *best;
    double         *best_par;
    double         *best_contact; /* per island: its contact orientation then (angle) */
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
    int32_t         fill_from;    /* ... from this position on (the places before kept) */
    int32_t         rescued;      /* the start ran rescue_layout (random moves) */
    int32_t         start_done;   /* un_packer_start finished: run() may search */
    int32_t         failed;       /* the start failed (not cancelled): unusable */
    un_packer      *side_pending; /* the side search, while its start is cancelled */
    int32_t         aligned_next; /* its contact search gets the aligned search as its side */
};

/* The side search a packer runs (side_search.c). */
enum { SIDE_NONE, SIDE_AS_GIVEN, SIDE_CONTACT, SIDE_ALIGNED };

/* ------------------------------------------------------------- prepare.c */

/* Order the islands, choose the annealed ones and the grid (once), then
 * simplify the islands' shapes; cancellable, a later call goes on with the
 * next island.  L_est: the container the grid is sized for. */
un_status un_pk_prepare(un_packer *pk, double L_est);

/* --------------------------------------------------------- best_layout.c */

/* The main search's restart point: its current parameters and sequence,
 * and their container as its own best. */
void      un_pk_keep_restart_point(un_packer *pk);
/* The main search's parameters and sequence back to its restart point
 * (the caller decodes them again). */
void      un_pk_back_to_restart_point(un_packer *pk);
/* Check layout t (at container L); when it passes, make it the best and
 * set *kept. */
un_status un_pk_keep_layout(un_packer *pk, const un_transform *t, double L, int *kept);
/* Check the current complete layout; on success make it the best, and the
 * main search's restart point (*improved set). */
un_status un_pk_accept_layout(un_packer *pk, int *improved);

/* -------------------------------------------------------- scale_search.c */

/* Decode the whole sequence; the waste becomes the annealing's cost. */
un_status un_pk_decode_all(un_packer *pk, int *complete);
/* Set container L and decode everything (reheating when asked). */
un_status un_pk_try_scale(un_packer *pk, double L, int reheat);
/* Moves without success before a stall, for n annealed islands. */
int64_t   un_pk_stall_moves(int32_t n);
/* The annealing schedule: reheat temperature T0, stall length for n. */
void      un_pk_set_schedule(un_packer *pk, double T0, int32_t n);
/* The start's preparation alone (for un_packer_prepare). */
un_status un_pk_start_prepare(un_packer *pk, volatile int *cancel);
/* The first layout (of every mode: boxes, fixed scale, the first fill). */
un_status un_pk_start_layout(un_packer *pk, volatile int *cancel);
/* One step of the bisection of the first fill; at its end, the set-up of
 * the annealing. */
un_status un_pk_bisect_step(un_packer *pk, int *improved);
/* The main search placed everything: keep it, aim smaller. */
un_status un_pk_on_success(un_packer *pk, int *improved);
/* The main search stalled: a smaller step from the best layout, hot. */
un_status un_pk_on_stall(un_packer *pk);

/* --------------------------------------------------------- fixed_scale.c */

un_status un_pk_start_fixed(un_packer *pk);
un_status un_pk_run_fixed(un_packer *pk, int64_t moves, volatile int *cancel, int *improved);

/* --------------------------------------------------------------- boxes.c */

/* Box mode's layout at container L_area and larger (or, at a fixed scale,
 * over several targets). */
un_status un_pk_start_box(un_packer *pk, double L_area);
/* Does this packer try box layouts on one of its first moves? */
int       un_pk_box_layouts_due(const un_packer *pk);
un_status un_pk_try_box_layouts(un_packer *pk, volatile int *cancel, int *improved);

/* --------------------------------------------------------- side_search.c */

/* Which side search the packer runs (SIDE_NONE ...). */
int       un_pk_side_kind(const un_packer *pk);
/* A packer of its own over the same islands (and locked islands) with
 * options o, not started. */
un_status un_pk_new_sub_packer(const un_packer *pk, const un_pack_options *o, un_packer **out);
/* Start the side search (on the first move); its best may become the best. */
un_status un_pk_start_side(un_packer *pk, volatile int *cancel, int *improved);
/* Is the next move the side search's? */
int       un_pk_side_turn(const un_packer *pk);
/* One move of the side search. */
un_status un_pk_side_move(un_packer *pk, volatile int *cancel, int *improved);

#endif /* UVNEST_PACKER_H */
