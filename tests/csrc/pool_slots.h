/*
 * pool_slots.h - the jobs of the thread pool's tests (test_threads.c,
 * test_oom_pool.c): job i sums 1 / (1 + k) for k = 0 .. 1000 i into its own
 * slot and counts its runs, so a job run twice, not run, or run on another
 * job's argument shows in its slot.
 */
#ifndef UVNEST_POOL_SLOTS_H
#define UVNEST_POOL_SLOTS_H

#include <stdint.h>

typedef struct {
    int32_t index, runs;
    double  value;
} slot;

/* What job `index` computes. */
static double slot_sum(int32_t index)
{
    int32_t i;
    double v = 0;
    for (i = 0; i <= 1000 * index; i++) v += 1.0 / (1.0 + i);
    return v;
}

static void fill_slot(void *arg)
{
    slot *s = (slot *)arg;
    s->value = slot_sum(s->index);
    s->runs++;
}

/* Slots 0 .. n-1, not run yet. */
static void clear_slots(slot *s, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++) { s[i].index = i; s[i].runs = 0; s[i].value = 0; }
}

#endif /* UVNEST_POOL_SLOTS_H */
