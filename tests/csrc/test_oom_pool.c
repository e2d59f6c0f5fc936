/*
 * test_oom_pool.c - allocation failure in the thread pool's creation.
 *
 * Every allocation of un_pool_new fails in turn (see oom.h): it must then
 * return UN_ENOMEM and leave nothing allocated, or succeed, and the pool
 * must run every job once, call after call, and free all it holds.  (The
 * jobs allocate nothing: oom.h's counters are not meant for threads.)
 */
#include "oom.h"
#include "thread.h"
#include "pool_slots.h"

/* A pool of n threads, three calls of n + 1 jobs (one more than threads). */
static oom_result run_pool(long fail_at, const void *ctx)
{
    const int32_t n = *(const int32_t *)ctx;
    oom_result res;
    un_pool *p = NULL;
    slot s[5];
    int32_t i, call;
    memset(&res, 0, sizeof res);
    ARM();
    res.status = un_pool_new(n, &p);
    DISARM();
    if (res.status != UN_OK) {
        CHECK(p == NULL);
        return res;
    }
    clear_slots(s, n + 1);
    for (call = 0; call < 3; call++) un_pool_run(p, fill_slot, s, sizeof *s, n + 1);
    for (i = 0; i <= n; i++) {
        res.sig[0] += s[i].value;
        res.sig[2] += s[i].runs;
    }
    res.sig[1] = un_pool_workers(p);
    un_pool_free(p);
    return res;
}

int main(int argc, char **argv)
{
    const int32_t one = 1, two = 2, four = 4;
    const oom_scenario all[] = {{"pool of one (no thread)", run_pool, &one},
                                {"pool of two", run_pool, &two},
                                {"pool of four", run_pool, &four}};
    return oom_read_shard(argc, argv) ? oom_run_scenarios("test_oom_pool", all, sizeof all / sizeof all[0]) : 2;
}
