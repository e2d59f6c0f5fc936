/*
 * chains.c - the parallel search: independent chains with migration.
 *
 * Design.  Each chain is a whole packer (packer.c) over the same islands,
 * with its own random stream, its own no-fit polygon cache (the budget
 * divided between them), its own side search and workspaces: chains share
 * no memory while they run, so they take no locks, and the engine's code
 * runs in them unchanged.  The price is memory: every chain holds the
 * islands, and no-fit polygons one chain computed are computed again by
 * the others (docs/performance.md estimates both).
 *
 * Rounds.  The chains move in rounds of K moves each (K = a couple of
 * stall periods, un_packer_round_moves).  At the end of a round, in the
 * calling thread, the chain with the best layout (of equals, the one
 * found at the earliest move) hands it to every other chain but the first
 * that is worse, and its restart point to every such chain whose own search got less far: they go
 * on from there, each with its own random moves.  Chain 0 takes nothing:
 * it is the serial search, move for move (the serial packer's random
 * stream, its box layouts), so at equal moves the best of the chains is
 * never worse than one thread's.  Measured side by side (2 threads, 10 s,
 * the quick benchmark's 7 models x 3 seeds, docs/performance.md): with
 * migration into chain 0 the best was below one thread's on 2 of 21, and
 * without on 1 of 21 (a search slowed by the load), at the same gains.  Rounds end at move counts, never at a time, so a
 * seed, a number of chains and a number of moves decide the layout,
 * however the moves were split into calls (each call hands the chains to
 * the pool's threads, started once at the first start and kept until
 * un_chains_free, and waits for them; a chain's moves do not depend on
 * where a call ended, nor on which thread made them).
 * That is the lockstep run, for a move budget.  A search bounded by time
 * runs free instead: chain 0 makes the moves asked, the others move until
 * it is done and are then cancelled (a free run's rounds end at chain 0's
 * count), so no chain waits for another.  A cancel reaches every chain
 * through the one flag they all poll (in a free run, through chain 0);
 * after one, chains may stand at different points of their round, and the
 * next lockstep calls bring each to the round's end before the migration.
 *
 * Start.  The first chain makes the first layout; meanwhile the others
 * make their own preparation (shapes, order, grid), and then copy the
 * first chain's start (un_packer_start_from): the start uses no random
 * numbers unless its rescue runs, so each would have found the same one.
 * Every chain making its own, at once, cost the cores twice the start's
 * work, and on a busy machine the wall time too (synthetic-1,000 under
 * load: 3.85 s with 2 threads against 2.04 s with one).  Where a copy
 * cannot be made (box layouts, a fixed scale, a start the rescue made, a
 * preparation cancelled) a chain makes its own start, at once with the
 * first chain's or in its next call.  The start is done when the first
 * chain's is; a chain whose start failed where the first's did not (the
 * rescue, by its random moves) drops out.
 *
 * With one chain every call is the packer's own: the serial search.
 */
#include "chains.h"
#include "thread.h"
#include "tuning.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct un_chains {
    un_packer **chain;
    int32_t     n;            /* chains made */
    int32_t     threads;      /* chains asked for (fewer with many islands) */
    int32_t     nislands;
    int64_t     round;        /* moves per round, once the first start is done */
    int64_t    *pos;          /* per chain: moves made in the current round */
    int        *dead;         /* per chain: its start failed, it takes no part */
    int         drifted;      /* a free run left the other chains' pos behind */
    un_pool    *pool;         /* the chains' threads, from the first start on */
    volatile int halt;        /* cancels the other chains of a free run: set
                               * when chain 0's moves are done */
    un_parallel_stats st;
};

/* One chain's share of a parallel section. */
typedef struct {
    un_packer    *pk;
    int32_t       chain;      /* its index */
    int64_t       moves;      /* to make; 0 with a start: the start only */
    int           prepare;    /* the start's preparation only (un_packer_prepare) */
    volatile int *cancel;
    volatile int *halt;       /* NULL, or set it when done (free runs' chain 0) */
    un_status     status;
    int64_t       made;       /* moves made */
    double        seconds;    /* time spent */
} chain_job;

un_status un_chains_new(const un_pack_options *opt, int32_t threads, un_chains **out)
{
    un_chains *ch;
    un_pack_options o;
    int32_t k;
    un_status s = UN_OK;
    *out = NULL;
    if (!opt || threads < 1 || !(opt->cache_bytes > 0)) return UN_EINVAL;
    if (!(ch = (un_chains *)calloc(1, sizeof *ch))) return UN_ENOMEM;
    ch->threads = threads;
    ch->chain = (un_packer **)calloc((size_t)threads, sizeof *ch->chain);
    ch->pos = (int64_t *)calloc((size_t)threads, sizeof *ch->pos);
    ch->dead = (int *)calloc((size_t)threads, sizeof *ch->dead);
    if (!ch->chain || !ch->pos || !ch->dead) { un_chains_free(ch); return UN_ENOMEM; }
    UN_POLLED_FLAG(&ch->halt);
    o = *opt;
    o.cache_bytes = opt->cache_bytes / threads;
    for (k = 0; k < threads && s == UN_OK; k++) {
        if ((s = un_packer_new(&o, ch->chain + k)) != UN_OK) break;
        ch->n++;
        un_packer_set_stream(ch->chain[k], (uint64_t)k);
        /* the box layouts of the first moves are the same in every chain */
        if (k > 0) un_packer_skip_boxes(ch->chain[k]);
    }
    if (s != UN_OK) { un_chains_free(ch); return s; }
    ch->st.chains = ch->n;
    *out = ch;
    return UN_OK;
}

void un_chains_free(un_chains *ch)
{
    int32_t k;
    if (!ch) return;
    un_pool_free(ch->pool);
    for (k = 0; ch->chain && k < ch->n; k++) un_packer_free(ch->chain[k]);
    free(ch->chain);
    free(ch->pos);
    free(ch->dead);
    free(ch);
}

/* Chains beyond CHAIN_ISLANDS / islands are dropped before the start. */
static void drop_extra_chains(un_chains *ch)
{
    int32_t keep = ch->nislands > 0 ? CHAIN_ISLANDS / ch->nislands : ch->n;
    if (keep < 1) keep = 1;
    while (ch->n > keep) un_packer_free(ch->chain[--ch->n]);
    ch->st.chains = ch->n;
}

un_status un_chains_add_island(un_chains *ch, const un_frings *outline, double area)
{
    int32_t k;
    un_status s = UN_OK;
    /* the first chain decides (bad input fails there, before any copy) */
    for (k = 0; k < ch->n && s == UN_OK; k++) s = un_packer_add_island(ch->chain[k], outline, area);
    if (s == UN_OK) ch->nislands++;
    /* a later chain out of memory: the chains no longer agree, so none is
     * usable; un_packer_start then fails on the chain without the island */
    return s;
}

un_status un_chains_set_group(un_chains *ch, int32_t k, int32_t g)
{
    int32_t c;
    un_status s = UN_OK;
    for (c = 0; c < ch->n && s == UN_OK; c++) s = un_packer_set_group(ch->chain[c], k, g);
    return s;
}

un_status un_chains_add_locked(un_chains *ch, const un_frings *outline)
{
    int32_t c;
    un_status s = UN_OK;
    for (c = 0; c < ch->n && s == UN_OK; c++) s = un_packer_add_locked(ch->chain[c], outline);
    return s;
}

/* A chain's part: its start if not done, then its moves. */
static void chain_main(void *arg)
{
    chain_job *j = (chain_job *)arg;
    double t0 = un_clock_seconds();
    un_pack_stats before, after;
    int improved = 0;
    j->status = UN_OK;
    j->made = 0;
    if (j->prepare) j->status = un_packer_prepare(j->pk, j->cancel);
    else if (un_packer_start_state(j->pk) == 0) j->status = un_packer_start(j->pk, j->cancel);
    if (j->status == UN_OK && j->moves > 0) {
        un_packer_stats(j->pk, &before);
        j->status = un_packer_run(j->pk, j->moves, j->cancel, &improved);
        un_packer_stats(j->pk, &after);
        j->made = after.moves - before.moves;
    }
    if (j->halt) *j->halt = 1;
    j->seconds = un_clock_seconds() - t0;
}

/* Run jobs[0..n) at once; the first failure (not a cancel) of a live
 * chain, else UN_ECANCELLED if a chain was cancelled (with `halted`, only
 * chain 0's cancel counts: the others were halted), else UN_OK.  A chain
 * whose start failed drops out (the first chain's failure is returned). */
static un_status run_jobs(un_chains *ch, chain_job *jobs, int32_t n, int halted)
{
    double t0 = un_clock_seconds();
    un_status s = UN_OK;
    int cancelled = 0;
    int32_t i;
    un_pool_run(ch->pool, chain_main, jobs, sizeof *jobs, n);
    ch->st.wall_seconds += un_clock_seconds() - t0;
    for (i = 0; i < n; i++) {
        ch->st.chain_seconds += jobs[i].seconds;
        ch->st.moves_all += jobs[i].made;
        if (jobs[i].status == UN_ECANCELLED) cancelled |= !halted || jobs[i].chain == 0;
        else if (jobs[i].status != UN_OK && s == UN_OK) {
            if (jobs[i].pk != ch->chain[0] && un_packer_start_state(jobs[i].pk) < 0 && jobs[i].status == UN_ENOFIT)
                continue;
            s = jobs[i].status;
        }
    }
    return s != UN_OK ? s : cancelled ? UN_ECANCELLED : UN_OK;
}

/* Chains whose start failed drop out. */
static void mark_dead(un_chains *ch)
{
    int32_t k;
    for (k = 1; k < ch->n; k++)
        if (un_packer_start_state(ch->chain[k]) < 0) ch->dead[k] = 1;
}

un_status un_chains_start(un_chains *ch, volatile int *cancel)
{
    chain_job *jobs;
    int32_t k, n = 0;
    un_status s;
    if (un_packer_start_state(ch->chain[0]) == 0 && ch->round == 0) drop_extra_chains(ch);
    if (ch->n == 1) return un_packer_start(ch->chain[0], cancel);
    /* the threads are started once, for the chains that remain, and kept
     * until un_chains_free */
    if (!ch->pool && (s = un_pool_new(ch->n, &ch->pool)) != UN_OK) return s;
    if (!(jobs = (chain_job *)calloc((size_t)ch->n, sizeof *jobs))) return UN_ENOMEM;
    for (k = 0; k < ch->n; k++)
        if (!ch->dead[k] && (k == 0 || un_packer_start_state(ch->chain[k]) == 0)) {
            jobs[n].pk = ch->chain[k];
            jobs[n].cancel = cancel;
            jobs[n].chain = k;
            jobs[n].prepare = k > 0 && un_packer_start_copies(ch->chain[k]);
            n++;
        }
    s = run_jobs(ch, jobs, n, 0);
    free(jobs);
    /* the others copy the first chain's start (when they cannot, they
     * make their own in their next call) */
    for (k = 1; k < ch->n && un_packer_start_state(ch->chain[0]) == 1; k++)
        if (!ch->dead[k] && un_packer_start_state(ch->chain[k]) == 0)
            (void)un_packer_start_from(ch->chain[k], ch->chain[0]);
    mark_dead(ch);
    /* done when the first chain is: the others finish on their next run */
    if (s == UN_ECANCELLED && un_packer_start_state(ch->chain[0]) == 1) s = UN_OK;
    if (s == UN_OK) ch->round = un_packer_round_moves(ch->chain[0]);
    return s;
}

/* Does chain a's best layout rank above chain b's?  Of equal ones, the
 * one found at the earlier move does (then the lower chain): in lockstep
 * every chain stands at the same move count at a call's end, so the best
 * of all chains is the same however the moves were split into calls; by
 * the first of equals at each call's end, a layout one chain found at
 * move 40 would be the best after a call ending at move 50, and another
 * chain's equal one found at move 45 after a single call of 120 moves. */
static int ranks_above(const un_chains *ch, int32_t a, int32_t b)
{
    const un_packer *pa = ch->chain[a], *pb = ch->chain[b];
    if (un_packer_beats(pa, un_packer_best_key(pb))) return 1;
    if (un_packer_beats(pb, un_packer_best_key(pa)) || un_packer_best_key(pa) == HUGE_VAL) return 0;
    return un_packer_best_move(pa) < un_packer_best_move(pb);
}

/* The index of the chain with the best layout. */
static int32_t best_chain(const un_chains *ch)
{
    int32_t k, best = 0;
    for (k = 1; k < ch->n; k++)
        if (!ch->dead[k] && ranks_above(ch, k, best)) best = k;
    return best;
}

/* The end of a round: the best chain's layout to the others but chain 0
 * (the serial search's trajectory, kept whole). */
static void migrate(un_chains *ch)
{
    double t0 = un_clock_seconds();
    int32_t k, best = best_chain(ch);
    for (k = 0; k < ch->n; k++) {
        if (k > 0 && k != best && !ch->dead[k]) un_packer_adopt(ch->chain[k], ch->chain[best]);
        ch->pos[k] = 0;
    }
    ch->st.rounds++;
    ch->st.serial_seconds += un_clock_seconds() - t0;
}

/* The jobs of the next parallel section: each live chain up to the end of
 * its round or of its moves (left), and a chain whose start is not done
 * at least its start.  Returns how many. */
static int32_t next_jobs(const un_chains *ch, const int64_t *left, volatile int *cancel, chain_job *jobs)
{
    int32_t k, n = 0;
    for (k = 0; k < ch->n; k++) {
        int64_t quota = ch->round - ch->pos[k] < left[k] ? ch->round - ch->pos[k] : left[k];
        if (ch->dead[k] || (quota <= 0 && un_packer_start_state(ch->chain[k]) == 1)) continue;
        jobs[n].pk = ch->chain[k];
        jobs[n].moves = quota > 0 ? quota : 0;
        jobs[n].cancel = cancel;
        jobs[n].chain = k;
        jobs[n].halt = NULL;
        n++;
    }
    return n;
}

/* Lockstep: every chain makes its moves, rounds end when all have made
 * the round's. */
static un_status run_lockstep(un_chains *ch, int64_t moves, volatile int *cancel, chain_job *jobs, int64_t *left)
{
    int32_t k, i, n;
    un_status s = UN_OK;
    if (ch->drifted) {
        /* after free runs, chain 0's count is the round's */
        for (k = 1; k < ch->n; k++) ch->pos[k] = ch->pos[0];
        ch->drifted = 0;
    }
    for (k = 0; k < ch->n; k++) left[k] = ch->dead[k] ? 0 : moves;
    while ((n = next_jobs(ch, left, cancel, jobs)) > 0) {
        int more = 0, at_end = 1;
        s = run_jobs(ch, jobs, n, 0);
        mark_dead(ch);
        for (i = 0; i < n; i++) {
            /* without a cancel a chain makes every move asked (or has none
             * to make: a box layout is final) */
            int64_t made = s == UN_OK ? jobs[i].moves : jobs[i].made;
            ch->pos[jobs[i].chain] += made;
            left[jobs[i].chain] -= made;
        }
        for (k = 0; k < ch->n; k++) {
            if (ch->dead[k]) continue;
            if (ch->pos[k] < ch->round) at_end = 0;
            if (left[k] > 0) more = 1;
        }
        if (s != UN_OK) break;
        if (at_end) migrate(ch);
        if (!more) break;
    }
    return s;
}

/* Free: chain 0 makes its moves, the others move until it is done (then
 * they are cancelled, in the middle of a move if need be: a chain's move
 * may take seconds, its side search's start far longer, and chain 0 must
 * not wait for it).  A section (one hand-off to the threads, one join)
 * lasts the call's moves or FREE_SECTION_ROUNDS rounds, whichever ends
 * first, and the best layout migrates at its end once chain 0 has made a
 * round's moves since the last migration: where moves cost microseconds a
 * section per round would cost as much as the moves.  A chain whose start
 * is not done (a cancel came during un_chains_start) finishes it under the
 * caller's cancel: cancelled at every call, a start of fills longer than a
 * call would never end. */
static un_status run_free(un_chains *ch, int64_t moves, volatile int *cancel, chain_job *jobs)
{
    int32_t k, n;
    un_status s = UN_OK;
    ch->drifted = 1;
    while (moves > 0 && s == UN_OK) {
        int64_t section = FREE_SECTION_ROUNDS * ch->round - ch->pos[0];
        if (section < 1) section = 1;
        for (k = 0, n = 0; k < ch->n; k++) {
            int started = un_packer_start_state(ch->chain[k]) == 1;
            if (ch->dead[k]) continue;
            jobs[n].pk = ch->chain[k];
            jobs[n].chain = k;
            jobs[n].cancel = k == 0 || !started ? cancel : &ch->halt;
            jobs[n].halt = k == 0 ? &ch->halt : NULL;
            /* (a chain finishing its start makes no move: under the
             * caller's cancel nothing would halt its moves) */
            jobs[n].moves = k == 0 ? (section < moves ? section : moves) : started ? INT64_MAX : 0;
            n++;
        }
        ch->halt = 0;   /* before the threads start: they see it */
        s = run_jobs(ch, jobs, n, 1);
        mark_dead(ch);
        ch->pos[0] += s == UN_OK ? jobs[0].moves : jobs[0].made;
        moves -= jobs[0].moves;
        if (s == UN_OK && ch->pos[0] >= ch->round) migrate(ch);
        /* a section cancelled past a round's end skips its migrations;
         * chain 0 stands in the round its moves reached (else the next
         * lockstep call, which moves each chain to the round's end, would
         * find every chain past it and make no move) */
        else if (ch->round > 0 && ch->pos[0] >= ch->round) ch->pos[0] %= ch->round;
    }
    return s;
}

un_status un_chains_run(un_chains *ch, int64_t moves, int lockstep, volatile int *cancel, int *improved)
{
    chain_job *jobs;
    int64_t *left;
    un_status s;
    double was;
    *improved = 0;
    if (ch->n == 1) return un_packer_run(ch->chain[0], moves, cancel, improved);
    if (un_packer_start_state(ch->chain[0]) != 1) return UN_EINVAL;
    jobs = (chain_job *)calloc((size_t)ch->n, sizeof *jobs);
    left = (int64_t *)malloc((size_t)ch->n * sizeof *left);
    if (!jobs || !left) { free(jobs); free(left); return UN_ENOMEM; }
    was = un_packer_best_key(ch->chain[best_chain(ch)]);
    s = lockstep ? run_lockstep(ch, moves, cancel, jobs, left) : run_free(ch, moves, cancel, jobs);
    free(jobs);
    free(left);
    /* improved: a better layout than the best before the call */
    *improved = un_packer_beats(ch->chain[best_chain(ch)], was);
    return s;
}

int un_chains_best(const un_chains *ch, un_transform *out)
{
    return un_packer_best(ch->chain[best_chain(ch)], out);
}

void un_chains_stats(const un_chains *ch, un_pack_stats *st, un_parallel_stats *par)
{
    int32_t k, best = best_chain(ch);
    un_packer_stats(ch->chain[best], st);
    if (ch->n > 1) {
        un_pack_stats first;
        un_packer_stats(ch->chain[0], &first);
        st->moves = first.moves;   /* every chain's, unless cancelled */
        st->trying = first.trying;
        st->waste = first.waste;
        st->rejected = st->cache_hits = st->cache_misses = 0;
        st->cache_bytes = 0;
        memset(st->theta, 0, sizeof st->theta);
        for (k = 0; k < ch->n; k++) {
            un_pack_stats c;
            un_packer_stats(ch->chain[k], &c);
            st->rejected += c.rejected;
            st->cache_bytes += c.cache_bytes;
            st->cache_hits += c.cache_hits;
            st->cache_misses += c.cache_misses;
            un_pack_stats_add_theta(st, &c);
        }
    }
    if (par) {
        un_pack_stats first;
        un_packer_stats(ch->chain[0], &first);
        *par = ch->st;
        par->serial_coverage = first.coverage;
        if (ch->n == 1) par->moves_all = st->moves;
    }
}
