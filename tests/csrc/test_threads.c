/*
 * test_threads.c - the parallel search (chains.c) and its threads
 * (thread.c).  Also built with ThreadSanitizer (tests/test_c_units.py).
 *
 * The serial packer is the oracle: one chain must be it, call for call;
 * several chains must give the same layout however the moves are split
 * into calls, beat or match the serial search before their first
 * migration (chain 0 is the serial search until then), and stop at a
 * cancel set from another thread.
 */
#include "tu.h"
#include "pack_fixtures.h"
#include "chains.h"
#include "thread.h"
#include "pool_slots.h"


#define NISL 10

/* Ten right triangles of different sizes, side by side: their boxes waste
 * half, so the annealing (and its random moves) decides the layout. */
static void islands(un_frings *isl)
{
    int32_t i;
    for (i = 0; i < NISL; i++) {
        double a = 0.5 + 0.07 * i, b = 0.9 - 0.05 * i, xy[6];
        xy[0] = 2.0 * i; xy[1] = 0;
        xy[2] = 2.0 * i + a; xy[3] = 0;
        xy[4] = 2.0 * i; xy[5] = b;
        un_frings_init(isl + i);
        if (un_frings_add(isl + i, xy, 3) != UN_OK) abort();
    }
}

static void free_islands(un_frings *isl)
{
    int32_t i;
    for (i = 0; i < NISL; i++) un_frings_free(isl + i);
}

static un_chains *new_chains(const un_pack_options *o, int32_t threads, const un_frings *isl)
{
    un_chains *ch = NULL;
    int32_t i;
    CHECK_OK(un_chains_new(o, threads, &ch));
    if (!ch) return NULL;
    for (i = 0; i < NISL; i++) CHECK_OK(un_chains_add_island(ch, isl + i, fabs(tu_frings_area(isl + i))));
    return ch;
}

/* The packing tests' options, four islands annealed: a round is then
 * 2 (30 + 6 * 4) = 108 moves (tuning.h's ROUND_STALLS, STALL_BASE and STALL_PER_ISLAND). */
static un_pack_options options(uint64_t seed)
{
    un_pack_options o = pack_options(seed, 16.0 * 1024 * 1024);
    o.anneal_max = 4;
    return o;
}

#define ROUND 108

/* Run `moves` moves in calls of the sizes in calls[] (cycled). */
static void run_in_calls(un_chains *ch, int64_t moves, const int64_t *calls, int32_t ncalls)
{
    int32_t c = 0;
    int improved;
    while (moves > 0) {
        int64_t m = calls[c++ % ncalls];
        if (m > moves) m = moves;
        CHECK_OK(un_chains_run(ch, m, 1, NULL, &improved));
        moves -= m;
    }
}

/* Field by field (the structs have padding). */
static int same_transforms(const un_transform *ta, const un_transform *tb)
{
    int32_t i;
    for (i = 0; i < NISL; i++)
        if (ta[i].angle != tb[i].angle || ta[i].flip != tb[i].flip || ta[i].scale != tb[i].scale ||
            ta[i].tx != tb[i].tx || ta[i].ty != tb[i].ty || ta[i].bin != tb[i].bin)
            return 0;
    return 1;
}

static int same_layout(const un_chains *a, const un_chains *b)
{
    un_transform ta[NISL], tb[NISL];
    return un_chains_best(a, ta) && un_chains_best(b, tb) && same_transforms(ta, tb);
}

/* ------------------------------------------------------------------ pool */

/* Every job of every call runs once, with its own argument, whether the
 * pool has a worker for it or not, and the pool is reused call after call. */
static void test_pool_runs_every_job_once(void)
{
    slot s[9];
    int32_t size, n, i, call;
    for (size = 1; size <= 4; size++) {
        un_pool *p;
        CHECK_OK(un_pool_new(size, &p));
        CHECK_EQ(un_pool_workers(p), size - 1);
        for (call = 0; call < 50; call++) {
            n = 1 + call % 9;   /* fewer, as many and more jobs than threads */
            clear_slots(s, n);
            un_pool_run(p, fill_slot, s, sizeof *s, n);
            for (i = 0; i < n; i++) {
                CHECK_EQ(s[i].runs, 1);
                CHECK(s[i].value == slot_sum(i));
            }
        }
        un_pool_run(p, fill_slot, s, sizeof *s, 0);   /* nothing to do */
        un_pool_free(p);
    }
    un_pool_free(NULL);
}

typedef struct {
    volatile int *flags;    /* one per job */
    int32_t       index, n;
    int           saw_all;  /* job 0: every other job ran while it waited */
} wait_job;

/* Jobs 1.. set their flags; job 0 waits (at most 10 s) until it sees them
 * all set, which happens only if they run at the same time as job 0, in
 * the workers, not in the calling thread after it. */
static void wait_for_the_others(void *arg)
{
    wait_job *j = (wait_job *)arg;
    double t0 = un_clock_seconds();
    int32_t i, seen = 0;
    if (j->index > 0) { j->flags[j->index] = 1; return; }
    while (seen < j->n - 1 && un_clock_seconds() - t0 < 10)
        for (i = 1, seen = 0; i < j->n; i++) seen += j->flags[i];
    j->saw_all = seen == j->n - 1;
}

static void test_pool_jobs_run_at_once(void)
{
    un_pool *p;
    volatile int flags[3];
    wait_job jobs[3];
    int32_t i, call;
    for (i = 0; i < 3; i++) UN_POLLED_FLAG(flags + i);
    CHECK_OK(un_pool_new(3, &p));
    for (call = 0; call < 20; call++) {
        for (i = 0; i < 3; i++) {
            flags[i] = 0;
            jobs[i].flags = flags;
            jobs[i].index = i;
            jobs[i].n = 3;
            jobs[i].saw_all = 0;
        }
        un_pool_run(p, wait_for_the_others, jobs, sizeof *jobs, 3);
        CHECK(jobs[0].saw_all);
    }
    un_pool_free(p);
}

static void test_pool_bad_arguments(void)
{
    un_pool *p = (un_pool *)&p;
    CHECK_STATUS(un_pool_new(0, &p), UN_EINVAL);
    CHECK(p == NULL);
    CHECK_EQ(un_pool_workers(NULL), 0);
}

static void test_clock_is_monotonic(void)
{
    double a = un_clock_seconds(), b = un_clock_seconds();
    CHECK(b >= a);
}

/* ------------------------------------------------------------- the chains */

/* One chain is the serial packer: the same layout and moves, call by call. */
static void test_one_chain_is_the_serial_packer(void)
{
    un_frings isl[NISL];
    un_pack_options o = options(7);
    un_chains *ch;
    un_packer *pk = NULL;
    un_transform ta[NISL], tb[NISL];
    un_pack_stats sa, sb;
    un_parallel_stats par;
    int32_t i, call;
    int ia, ib;
    islands(isl);
    ch = new_chains(&o, 1, isl);
    CHECK_OK(un_packer_new(&o, &pk));
    for (i = 0; i < NISL; i++) CHECK_OK(un_packer_add_island(pk, isl + i, fabs(tu_frings_area(isl + i))));
    CHECK_OK(un_chains_start(ch, NULL));
    CHECK_OK(un_packer_start(pk, NULL));
    for (call = 1; call <= 8; call++) {
        CHECK_OK(un_chains_run(ch, call * 7, 1, NULL, &ia));
        CHECK_OK(un_packer_run(pk, call * 7, NULL, &ib));
        CHECK_EQ(ia, ib);
        CHECK(un_chains_best(ch, ta) && un_packer_best(pk, tb));
        CHECK(same_transforms(ta, tb));
    }
    un_chains_stats(ch, &sa, &par);
    un_packer_stats(pk, &sb);
    CHECK_EQ(sa.moves, sb.moves);
    CHECK_EQ(sa.layouts, sb.layouts);
    CHECK_EQ(par.chains, 1);
    CHECK_EQ(par.moves_all, sb.moves);
    un_chains_free(ch);
    un_packer_free(pk);
    free_islands(isl);
}

/* Several chains: the layout depends on the moves, not on the calls. */
static void test_chains_are_deterministic_whatever_the_calls(void)
{
    static const int64_t one_call[1] = {2 * ROUND + 20}, calls[6] = {1, 2, 5, 97, 3, 13};
    un_frings isl[NISL];
    un_pack_options o = options(3);
    un_chains *a, *b;
    un_pack_stats sa, sb;
    un_parallel_stats pa, pb;
    islands(isl);
    a = new_chains(&o, 3, isl);
    b = new_chains(&o, 3, isl);
    CHECK_OK(un_chains_start(a, NULL));
    CHECK_OK(un_chains_start(b, NULL));
    run_in_calls(a, 2 * ROUND + 20, one_call, 1);
    run_in_calls(b, 2 * ROUND + 20, calls, 6);
    un_chains_stats(a, &sa, &pa);
    un_chains_stats(b, &sb, &pb);
    CHECK_EQ(pa.chains, 3);
    CHECK_EQ(pa.rounds, 2);
    CHECK_EQ(pb.rounds, 2);
    CHECK_EQ(sa.moves, 2 * ROUND + 20);
    CHECK_EQ(pa.moves_all, 3 * (2 * ROUND + 20));
    CHECK_EQ(pb.moves_all, 3 * (2 * ROUND + 20));
    CHECK(same_layout(a, b));
    CHECK(sa.coverage == sb.coverage);
    CHECK_EQ(sa.rejected + sb.rejected, 0);
    CHECK(sa.coverage > 0.4);
    un_chains_free(a);
    un_chains_free(b);
    free_islands(isl);
}

/* Chain 0 is the serial search, move for move, across migrations (it
 * takes no other chain's layout): at equal moves the best of the chains
 * is at least as good, for several seeds; and more chains use other random
 * streams, so some seed gives a different layout. */
static void test_chains_match_or_beat_the_serial_search(void)
{
    static const int64_t calls[4] = {5, ROUND, 2 * ROUND, 11};
    un_frings isl[NISL];
    uint64_t seed;
    int differ = 0;
    islands(isl);
    for (seed = 1; seed <= 6; seed++) {
        un_pack_options o = options(seed);
        un_chains *one = new_chains(&o, 1, isl), *two = new_chains(&o, 2, isl);
        un_pack_stats s1, s2;
        un_parallel_stats p2;
        int32_t c;
        int improved;
        CHECK_OK(un_chains_start(one, NULL));
        CHECK_OK(un_chains_start(two, NULL));
        for (c = 0; c < 4; c++) {
            CHECK_OK(un_chains_run(one, calls[c], 1, NULL, &improved));
            CHECK_OK(un_chains_run(two, calls[c], 1, NULL, &improved));
            un_chains_stats(one, &s1, NULL);
            un_chains_stats(two, &s2, &p2);
            CHECK(s2.coverage >= s1.coverage);
        }
        CHECK_EQ(p2.rounds, 3);
        CHECK_EQ(p2.moves_all, 2 * (3 * ROUND + 16));
        CHECK_EQ(s2.moves, s1.moves);   /* chain 0's */
        CHECK(p2.serial_coverage == s1.coverage);   /* chain 0 took no migration */
        differ |= !same_layout(one, two);
        un_chains_free(one);
        un_chains_free(two);
    }
    CHECK(differ);
    free_islands(isl);
}

/* At a fixed scale (tiles) the chains compare by cost; deterministic too. */
static void test_chains_at_a_fixed_scale(void)
{
    static const int64_t calls_a[1] = {200}, calls_b[2] = {33, 7};
    un_frings isl[NISL];
    un_pack_options o = pack_options(5, 16.0 * 1024 * 1024);
    un_chains *a, *b;
    un_pack_stats sa, sb;
    un_parallel_stats pa;
    islands(isl);
    o.fixed_scale = 0.2;
    o.max_bins = 4;
    o.anneal_max = 3;   /* at a fixed scale the stall counts every island: rounds of 180 */
    a = new_chains(&o, 2, isl);
    b = new_chains(&o, 2, isl);
    CHECK_OK(un_chains_start(a, NULL));
    CHECK_OK(un_chains_start(b, NULL));
    run_in_calls(a, 200, calls_a, 1);
    run_in_calls(b, 200, calls_b, 2);
    un_chains_stats(a, &sa, &pa);
    CHECK_EQ(pa.rounds, 1);
    un_chains_stats(b, &sb, NULL);
    CHECK(same_layout(a, b));
    CHECK(sa.bins >= 1 && sa.bins == sb.bins);
    CHECK_EQ(sa.rejected, 0);
    un_chains_free(a);
    un_chains_free(b);
    free_islands(isl);
}

typedef struct {
    un_chains    *ch;        /* job 0: the search; job 1: the canceller */
    volatile int *cancel;
    double        after;     /* seconds the canceller waits */
    un_status     status;
    double        stopped;   /* when the search returned */
    double        set_at;    /* when the flag was set */
} cancel_job;

static void cancel_main(void *arg)
{
    cancel_job *j = (cancel_job *)arg;
    if (j->ch) {
        int improved;
        j->status = un_chains_run(j->ch, (int64_t)1 << 40, 0, j->cancel, &improved);
        j->stopped = un_clock_seconds();
    } else {
        double t0 = un_clock_seconds();
        while (un_clock_seconds() - t0 < j->after) {}
        *j->cancel = 1;
        j->set_at = un_clock_seconds();
    }
}

/* A cancel set from another thread stops every chain (un_chains_run
 * returns only when all have); the search then goes on. */
static void test_a_cancel_reaches_every_chain(void)
{
    un_frings isl[NISL];
    un_pack_options o = options(11);
    volatile int cancel = 0;
    cancel_job jobs[2];
    un_chains *ch;
    un_pack_stats st;
    un_parallel_stats par;
    int improved;
    UN_POLLED_FLAG(&cancel);   /* set from the canceller thread */
    islands(isl);
    ch = new_chains(&o, 3, isl);
    CHECK_OK(un_chains_start(ch, &cancel));
    memset(jobs, 0, sizeof jobs);
    jobs[0].ch = ch;
    jobs[0].cancel = jobs[1].cancel = &cancel;
    jobs[1].after = 0.2;
    {
        un_pool *pool;
        CHECK_OK(un_pool_new(2, &pool));
        un_pool_run(pool, cancel_main, jobs, sizeof *jobs, 2);
        un_pool_free(pool);
    }
    CHECK_STATUS(jobs[0].status, UN_ECANCELLED);
    /* a move is a few milliseconds here (more under the sanitizers) */
    CHECK_MSG(jobs[0].stopped - jobs[1].set_at < 1.0, "stopped %.3f s after the cancel",
              jobs[0].stopped - jobs[1].set_at);
    un_chains_stats(ch, &st, &par);
    CHECK(par.moves_all > 0);
    cancel = 0;
    CHECK_OK(un_chains_run(ch, ROUND, 1, &cancel, &improved));
    un_chains_stats(ch, &st, &par);
    CHECK(par.rounds >= 1);
    CHECK_EQ(par.chains, 3);
    CHECK_EQ(st.rejected, 0);
    un_chains_free(ch);
    free_islands(isl);
}

/* Free runs (a search bounded by time): chain 0 makes the moves asked,
 * the others as many as they manage meanwhile, rounds end at chain 0's
 * count; lockstep runs go on after them. */
static void test_free_runs(void)
{
    un_frings isl[NISL];
    un_pack_options o = options(13);
    un_chains *ch;
    un_pack_stats st;
    un_parallel_stats par;
    int improved, call;
    islands(isl);
    ch = new_chains(&o, 3, isl);
    CHECK_OK(un_chains_start(ch, NULL));
    for (call = 0; call < 3; call++) CHECK_OK(un_chains_run(ch, 50, 0, NULL, &improved));
    un_chains_stats(ch, &st, &par);
    CHECK_EQ(st.moves, 150);
    CHECK_EQ(par.rounds, 1);
    CHECK(par.moves_all > 150);   /* the others moved too */
    CHECK_OK(un_chains_run(ch, ROUND, 1, NULL, &improved));
    un_chains_stats(ch, &st, &par);
    CHECK_EQ(st.moves, 150 + ROUND);
    CHECK_EQ(par.rounds, 2);
    CHECK_EQ(st.rejected, 0);
    un_chains_free(ch);
    free_islands(isl);
}

/* A start cancelled before it began: nothing is lost, it goes on later. */
static void test_a_cancelled_start_goes_on(void)
{
    un_frings isl[NISL];
    un_pack_options o = options(2);
    volatile int cancel = 1;
    un_chains *ch;
    un_transform t[NISL];
    int improved;
    islands(isl);
    ch = new_chains(&o, 2, isl);
    CHECK_STATUS(un_chains_start(ch, &cancel), UN_ECANCELLED);
    CHECK(!un_chains_best(ch, t));
    CHECK_STATUS(un_chains_run(ch, 10, 1, &cancel, &improved), UN_EINVAL);   /* not started */
    cancel = 0;
    CHECK_OK(un_chains_start(ch, &cancel));
    CHECK(un_chains_best(ch, t));
    CHECK_OK(un_chains_run(ch, 200, 1, &cancel, &improved));
    un_chains_free(ch);
    free_islands(isl);
}

/* A packer that copies another's start (chains.c: every chain but the
 * first) searches as if it had made its own: the same layouts, move for
 * move, as a packer of the same stream that started itself. */
static void test_a_copied_start_is_the_own_start(void)
{
    un_frings isl[NISL];
    un_pack_options o = options(5), box = options(5);
    un_packer *own = NULL, *copy = NULL, *first = NULL, *boxes = NULL;
    un_transform ta[NISL], tb[NISL];
    un_pack_stats sa, sb;
    int32_t i, call;
    int ia, ib;
    islands(isl);
    CHECK_OK(un_packer_new(&o, &own));
    CHECK_OK(un_packer_new(&o, &copy));
    CHECK_OK(un_packer_new(&o, &first));
    for (i = 0; i < NISL; i++) {
        double area = fabs(tu_frings_area(isl + i));
        CHECK_OK(un_packer_add_island(own, isl + i, area));
        CHECK_OK(un_packer_add_island(copy, isl + i, area));
        CHECK_OK(un_packer_add_island(first, isl + i, area));
    }
    un_packer_set_stream(own, 1);
    un_packer_set_stream(copy, 1);
    CHECK(un_packer_start_copies(copy));
    CHECK_OK(un_packer_prepare(copy, NULL));
    CHECK_STATUS(un_packer_start_from(copy, first), UN_EINVAL);   /* `first` has not started */
    CHECK_EQ(un_packer_start_state(copy), 0);
    CHECK_OK(un_packer_start(first, NULL));
    CHECK_OK(un_packer_start(own, NULL));
    CHECK_OK(un_packer_start_from(copy, first));
    CHECK_EQ(un_packer_start_state(copy), 1);
    CHECK_STATUS(un_packer_start_from(copy, first), UN_EINVAL);   /* started already */
    CHECK(un_packer_best(own, ta) && un_packer_best(copy, tb));
    CHECK(same_transforms(ta, tb));
    for (call = 1; call <= 6; call++) {
        CHECK_OK(un_packer_run(own, 50, NULL, &ia));
        CHECK_OK(un_packer_run(copy, 50, NULL, &ib));
        CHECK_EQ(ia, ib);
        CHECK(un_packer_best(own, ta) && un_packer_best(copy, tb));
        CHECK(same_transforms(ta, tb));
    }
    un_packer_stats(own, &sa);
    un_packer_stats(copy, &sb);
    CHECK_EQ(sa.moves, sb.moves);
    CHECK_EQ(sa.layouts, sb.layouts);
    CHECK(sa.layouts > 1);   /* the search found more than the start */
    /* box layouts are no fills: a packer of them makes its own start */
    box.box = 1;
    CHECK_OK(un_packer_new(&box, &boxes));
    for (i = 0; i < NISL; i++) CHECK_OK(un_packer_add_island(boxes, isl + i, fabs(tu_frings_area(isl + i))));
    CHECK(!un_packer_start_copies(boxes));
    CHECK_STATUS(un_packer_prepare(boxes, NULL), UN_EINVAL);
    un_packer_free(own);
    un_packer_free(copy);
    un_packer_free(first);
    un_packer_free(boxes);
    free_islands(isl);
}

static void test_bad_arguments(void)
{
    un_pack_options o = pack_options(1, 16.0 * 1024 * 1024);
    un_chains *ch = (un_chains *)&o;
    CHECK_STATUS(un_chains_new(&o, 0, &ch), UN_EINVAL);
    CHECK(ch == NULL);
    CHECK_STATUS(un_chains_new(NULL, 2, &ch), UN_EINVAL);
    o.cache_bytes = 0;
    CHECK_STATUS(un_chains_new(&o, 2, &ch), UN_EINVAL);
    un_chains_free(NULL);
}

int main(void)
{
    RUN(test_pool_runs_every_job_once);
    RUN(test_pool_jobs_run_at_once);
    RUN(test_pool_bad_arguments);
    RUN(test_clock_is_monotonic);
    RUN(test_one_chain_is_the_serial_packer);
    RUN(test_chains_are_deterministic_whatever_the_calls);
    RUN(test_chains_match_or_beat_the_serial_search);
    RUN(test_chains_at_a_fixed_scale);
    RUN(test_free_runs);
    RUN(test_a_cancel_reaches_every_chain);
    RUN(test_a_cancelled_start_goes_on);
    RUN(test_a_copied_start_is_the_own_start);
    RUN(test_bad_arguments);
    return tu_report("test_threads");
}
