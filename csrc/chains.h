/*
 * chains.h - the parallel search (chains.c): several packers ("chains")
 * over the same islands, each with its own random stream and no-fit
 * polygon cache, run side by side in threads; at fixed move counts the
 * best layout migrates to the others.  With one chain it is the packer
 * itself, call for call.
 *
 * Internal (not in uvnest.h): the Python binding (binding.c) runs every
 * search through it; C callers of the library use un_packer_*.
 */
#ifndef UVNEST_CHAINS_H
#define UVNEST_CHAINS_H

#include "uvnest.h"

typedef struct un_chains un_chains;

typedef struct {
    int32_t chains;           /* chains searching (1: the serial packer) */
    int64_t moves_all;        /* moves of every chain together */
    int64_t rounds;           /* migrations done */
    double  chain_seconds;    /* time the chains spent in their moves (summed) */
    double  wall_seconds;     /* wall time of the parallel sections */
    double  serial_seconds;   /* wall time of the migrations (no chain runs) */
    double  serial_coverage;  /* chain 0's best coverage: the serial search's
                               * at the same moves (it takes no migration) */
} un_parallel_stats;

/* `threads` chains (at least 1; fewer when the islands are many, see
 * chains.c), each with cache_bytes / chains of no-fit polygon cache.  The
 * calls below are those of un_packer: islands and locked islands go to
 * every chain. */
un_status un_chains_new(const un_pack_options *opt, int32_t threads, un_chains **out);
void      un_chains_free(un_chains *ch);
un_status un_chains_add_island(un_chains *ch, const un_frings *outline, double area);
un_status un_chains_set_group(un_chains *ch, int32_t k, int32_t g);
un_status un_chains_add_locked(un_chains *ch, const un_frings *outline);
/* Every chain's start, at once; done when the first chain's is (the
 * others, when cancelled, finish theirs on their next run). */
un_status un_chains_start(un_chains *ch, volatile int *cancel);
/* Search in threads; *improved when the best of all chains got better.
 * lockstep: every chain makes `moves` moves, and the layout depends on the
 * seed, the number of chains and the moves made so far, never on how they
 * were split into calls or on timing (unless cancelled).  Otherwise (a
 * search bounded by time): chain 0 makes `moves` moves and the others move
 * until it is done, then are cancelled, so no chain waits for another. */
un_status un_chains_run(un_chains *ch, int64_t moves, int lockstep, volatile int *cancel, int *improved);
/* The best layout of all chains (see un_packer_best). */
int       un_chains_best(const un_chains *ch, un_transform *out);
/* The best chain's statistics; moves are those of each chain, rejected
 * layouts and the cache summed over the chains; `par` (may be NULL) the
 * parallel search's own. */
void      un_chains_stats(const un_chains *ch, un_pack_stats *st, un_parallel_stats *par);

/* ---- what packer.c lends the chains (not for other callers) ---- */

/* Chain k's random stream (k = 0: the serial packer's); before the start. */
void    un_packer_set_stream(un_packer *pk, uint64_t k);
/* Leave the box layouts of the first moves to another chain. */
void    un_packer_skip_boxes(un_packer *pk);
/* Has pk's start finished (1), or failed for good (-1)? 0 while to go on. */
int     un_packer_start_state(const un_packer *pk);
/* Can pk's start be another chain's copy (un_packer_start_from)?  Then
 * un_packer_prepare does its own part of the start (cancellable), and
 * un_packer_start_from, once `from` (same islands and options) has
 * started, the rest; UN_EINVAL when it cannot (pk then starts itself). */
int       un_packer_start_copies(const un_packer *pk);
un_status un_packer_prepare(un_packer *pk, volatile int *cancel);
un_status un_packer_start_from(un_packer *pk, const un_packer *from);
/* Moves of a round between migrations (fixed once the start is done). */
int64_t un_packer_round_moves(const un_packer *pk);
/* The best layout's rank (smaller is better; HUGE_VAL without one), and
 * whether pk's best layout is better than one of rank `key`. */
double  un_packer_best_key(const un_packer *pk);
int     un_packer_beats(const un_packer *pk, double key);
/* The move count at which pk's best layout was found (by its chain, or by
 * the chain it was adopted from): layouts of equal rank rank by it. */
int64_t un_packer_best_move(const un_packer *pk);
/* pk adopts `from`'s best layout when it is better, and the restart point
 * of from's search when it got further (pk's next move restarts from it). */
void    un_packer_adopt(un_packer *pk, const un_packer *from);

#endif /* UVNEST_CHAINS_H */
