/*
 * oom.h - allocation failure injection for the test_oom*.c programs.
 *
 * A program that includes this header is linked with
 * -Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc,--wrap=free: every
 * allocation made by the library goes through the wrappers below, which
 * count live blocks and can fail the k-th allocation.  (The wrappers are
 * defined here, so one program includes this header once.)
 *
 * A scenario is a function of fail_at (and of its inputs, ctx) that arms
 * the failure (ARM) around the calls under test, disarms it (DISARM) for
 * its own checks, and returns the status and a summary of the result.  oom_run_scenarios counts the
 * allocations of a clean run of each scenario (N), then repeats it with
 * allocation k failing, for k = 1 .. N.  Every call must then return
 * UN_ENOMEM or succeed with the clean run's result, never crash, and leave
 * no block allocated once everything is freed.
 */
#ifndef UVNEST_OOM_H
#define UVNEST_OOM_H

#include "tu.h"

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t n, size_t m);
void __real_free(void *p);

static long oom_count = 0;   /* allocations attempted so far */
static long oom_fail_at = 0; /* fail this one (1-based); 0: never */
static long oom_live = 0;    /* blocks currently allocated */
/* This run fails the allocations k with k % oom_shards == oom_shard - 1
 * (--shard i/n on the command line: the shards of one program run on
 * separate cores, and together fail every allocation) */
static long oom_shard = 1, oom_shards = 1;

static inline int oom_should_fail(void)
{
    oom_count++;
    return oom_fail_at && oom_count == oom_fail_at;
}

void *__wrap_malloc(size_t n)
{
    void *p;
    if (oom_should_fail()) return NULL;
    p = __real_malloc(n);
    if (p) oom_live++;
    return p;
}

void *__wrap_calloc(size_t n, size_t m)
{
    void *p;
    if (oom_should_fail()) return NULL;
    p = __real_calloc(n, m);
    if (p) oom_live++;
    return p;
}

void *__wrap_realloc(void *old, size_t n)
{
    void *p;
    if (oom_should_fail()) return NULL;
    p = __real_realloc(old, n);
    if (p && !old) oom_live++;
    return p;
}

void __wrap_free(void *p)
{
    if (p) oom_live--;
    __real_free(p);
}

/* In a scenario (its argument named fail_at): count allocations from here,
 * failing the fail_at-th; stop failing. */
#define ARM() do { oom_count = 0; oom_fail_at = fail_at; } while (0)
#define DISARM() do { oom_fail_at = 0; } while (0)

typedef struct {
    un_status status;
    double sig[4]; /* a summary of the result, to compare with the clean run */
} oom_result;

typedef oom_result (*oom_scenario_fn)(long fail_at, const void *ctx);

typedef struct {
    const char *name;
    oom_scenario_fn fn;
    const void *ctx;
} oom_scenario;

static inline void oom_run_all_failures(const oom_scenario *sc)
{
    oom_result clean;
    long n, k, live0;
    int enomem = 0, ok_same = 0;
    live0 = oom_live;
    clean = sc->fn(0, sc->ctx);
    n = oom_count;
    CHECK_MSG(clean.status == UN_OK, "%s: clean run returned %s", sc->name, un_status_str(clean.status));
    CHECK_MSG(oom_live == live0, "%s: clean run leaked %ld blocks", sc->name, oom_live - live0);
    for (k = oom_shard; k <= n; k += oom_shards) {
        oom_result r = sc->fn(k, sc->ctx);
        if (r.status == UN_ENOMEM) enomem++;
        else if (r.status == UN_OK) {
            int same = memcmp(r.sig, clean.sig, sizeof r.sig) == 0;
            CHECK_MSG(same, "%s: allocation %ld of %ld failed, the call succeeded with a different result", sc->name,
                      k, n);
            ok_same += same;
        } else {
            CHECK_MSG(0, "%s: allocation %ld of %ld failed, the call returned %s", sc->name, k, n,
                      un_status_str(r.status));
        }
        if (oom_live != live0) {
            CHECK_MSG(0, "%s: allocation %ld of %ld failed, %ld blocks leaked", sc->name, k, n, oom_live - live0);
            live0 = oom_live;
        }
    }
    printf("%s: %ld allocations, %d failures reported as out of memory, %d tolerated\n", sc->name, n, enomem, ok_same);
    CHECK(n > 0);
}

/* Read --shard i/n (1 <= i <= n) from the command line; 0 when it is
 * missing or malformed (then the program fails, rather than testing less). */
static inline int oom_read_shard(int argc, char **argv)
{
    if (argc == 1) return 1;
    if (argc != 3 || strcmp(argv[1], "--shard") != 0 ||
        sscanf(argv[2], "%ld/%ld", &oom_shard, &oom_shards) != 2 || oom_shards < 1 || oom_shard < 1 ||
        oom_shard > oom_shards) {
        fprintf(stderr, "usage: %s [--shard i/n]\n", argv[0]);
        return 0;
    }
    return 1;
}

/* Run every scenario of all[0..n); returns the program's exit status. */
static inline int oom_run_scenarios(const char *program, const oom_scenario *all, size_t n)
{
    size_t i;
    printf("shard %ld of %ld\n", oom_shard, oom_shards);
    for (i = 0; i < n; i++) {
        tu_current = all[i].name;
        oom_run_all_failures(all + i);
    }
    return tu_report(program);
}

#endif /* UVNEST_OOM_H */
