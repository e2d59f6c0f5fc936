/*
 * test_oom_engine.c - allocation failure everywhere in the packing engine.
 *
 * Every allocation of each scenario fails in turn (see oom.h): the calls
 * must return UN_ENOMEM (or succeed with the clean run's result), never
 * crash, and leave no block allocated once everything is freed.  A packer
 * whose run() failed must stay usable: run again without failures, it
 * succeeds and its best layout is still valid (inside the target).
 */
#include "oom.h"
#include "engine.h"
#include "pack_fixtures.h"

/* ------------------------------------------------------- packer runs */

/* Summary of the best layout; *inside when every vertex of every island,
 * placed by its transform, lies inside the target less the padding (the
 * full pairwise check is test_engine.c's). */
static void sig_best(const un_packer *pk, const un_frings *isl, int32_t n, const un_pack_options *o, double *sig,
                     int *inside)
{
    un_transform t[16];
    int32_t i, j;
    *inside = 1;
    sig[0] = sig[1] = sig[2] = sig[3] = 0;
    if (n > 16 || !un_packer_best(pk, t)) return;
    sig[0] = 1;
    for (i = 0; i < n; i++) {
        double c = cos(t[i].angle), s = sin(t[i].angle), e = 1e-6;
        sig[1] += t[i].tx * (1 + i) + t[i].ty * (2 + i) + t[i].angle;
        sig[2] += t[i].scale + t[i].bin + t[i].flip;
        for (j = 0; j < un_frings_npts(isl + i); j++) {
            double x = t[i].flip ? -isl[i].xy[2 * j] : isl[i].xy[2 * j], y = isl[i].xy[2 * j + 1];
            double u = t[i].scale * (c * x - s * y) + t[i].tx, v = t[i].scale * (s * x + c * y) + t[i].ty;
            if (u < o->target[0] + o->padding - e || u > o->target[2] - o->padding + e ||
                v < o->target[1] + o->padding - e || v > o->target[3] - o->padding + e)
                *inside = 0;
        }
    }
}

/* What a scenario arms: everything from un_packer_new on, or only run()
 * (the packer is built and started without failures). */
enum { ARM_ALL, ARM_RUN };

typedef struct {
    const un_pack_options *o;
    const un_frings *isl;
    int32_t n;
    const int32_t *group;   /* per island, -1: none; NULL: no groups */
    const un_frings *locked;
    int32_t nlocked;
    int64_t moves;
    int arm;
} pack_case;

static un_status build_and_start(const pack_case *c, un_packer **pk)
{
    un_status s = un_packer_new(c->o, pk);
    int32_t i;
    for (i = 0; i < c->n && s == UN_OK; i++) s = un_packer_add_island(*pk, c->isl + i, fabs(tu_frings_area(c->isl + i)));
    for (i = 0; c->group && i < c->n && s == UN_OK; i++)
        if (c->group[i] >= 0) s = un_packer_set_group(*pk, i, c->group[i]);
    for (i = 0; i < c->nlocked && s == UN_OK; i++) s = un_packer_add_locked(*pk, c->locked + i);
    if (s == UN_OK) s = un_packer_start(*pk, NULL);
    return s;
}

/* Build, start and run the packer with allocation fail_at failing (from
 * the start or in run() only).  After a failed run the packer must go on:
 * run again unarmed, it succeeds with a layout inside the target. */
static oom_result pack_run(long fail_at, const pack_case *c)
{
    oom_result res;
    un_packer *pk = NULL;
    int improved = 0, inside = 1;
    memset(&res, 0, sizeof res);
    if (c->arm == ARM_ALL) ARM();
    res.status = build_and_start(c, &pk);
    if (c->arm == ARM_RUN) {
        CHECK_OK(res.status);
        ARM();
    }
    if (res.status == UN_OK && c->moves > 0) {
        res.status = un_packer_run(pk, c->moves, NULL, &improved);
        if (res.status != UN_OK) {
            un_status again;
            DISARM();
            again = un_packer_run(pk, 5, NULL, &improved);
            CHECK_MSG(again == UN_OK, "allocation %ld: run after a failed run returned %s", fail_at,
                      un_status_str(again));
            sig_best(pk, c->isl, c->n, c->o, res.sig, &inside);
            CHECK_MSG(res.sig[0] == 1 && inside, "allocation %ld: no valid layout after a failed run", fail_at);
        }
    }
    DISARM();
    if (res.status == UN_OK) {
        sig_best(pk, c->isl, c->n, c->o, res.sig, &inside);
        CHECK_MSG(res.sig[0] == 1 && inside, "allocation %ld: the best layout leaves the target", fail_at);
    }
    un_packer_free(pk);
    return res;
}

static oom_result run_pack(long fail_at, const void *ctx)
{
    return pack_run(fail_at, (const pack_case *)ctx);
}

/* A start that failed for want of memory is final: starting again and
 * running are refused (UN_EINVAL), nothing leaks (LeakSanitizer). */
static oom_result run_fit_restart(long fail_at, const void *ctx)
{
    const un_frings *isl = (const un_frings *)ctx;
    un_pack_options o = pack_options(4, 1 << 22);
    un_packer *pk = NULL;
    un_transform t[2];
    int improved;
    oom_result res;
    memset(&res, 0, sizeof res);
    if (un_packer_new(&o, &pk) != UN_OK || un_packer_add_island(pk, isl, 2) != UN_OK ||
        un_packer_add_island(pk, isl + 1, 0.75) != UN_OK)
        abort();
    ARM();
    res.status = un_packer_start(pk, NULL);
    DISARM();
    if (res.status == UN_ENOMEM) {
        CHECK_MSG(un_packer_start(pk, NULL) == UN_EINVAL, "allocation %ld: a second start was not refused", fail_at);
        CHECK_MSG(!un_packer_best(pk, t), "allocation %ld: a failed start left a layout", fail_at);
        CHECK_MSG(un_packer_run(pk, 5, NULL, &improved) == UN_EINVAL, "allocation %ld: run was not refused",
                  fail_at);
    }
    un_packer_free(pk);
    return res;
}

/* ------------------------------------------------------- small helpers */

static oom_result run_pow2(long fail_at, const void *ctx)
{
    const int64_t sizes[5] = {4, 8, 2, 8, 1};
    int64_t xyl[15];
    int32_t nl = -1, i;
    oom_result res;
    (void)ctx;
    memset(&res, 0, sizeof res);
    ARM();
    res.status = un_pack_pow2(sizes, 5, 8, xyl, &nl);
    DISARM();
    res.sig[0] = nl;
    if (res.status == UN_OK)
        for (i = 0; i < 15; i++) res.sig[1] += (double)xyl[i] * (1 + i);
    else
        CHECK_EQ(nl, 0);
    return res;
}

static oom_result run_skyline(long fail_at, const void *ctx)
{
    un_skyline *s;
    double x, y;
    int rot, k;
    oom_result res;
    (void)ctx;
    memset(&res, 0, sizeof res);
    ARM();
    s = un_skyline_new();
    res.status = s ? un_skyline_reset(s, 10, 10) : UN_ENOMEM;
    for (k = 0; k < 12 && res.status == UN_OK; k++) {
        if (!un_skyline_place(s, 1 + k % 3, 2, 1, k % 2, &x, &y, &rot)) break;
        res.sig[0] += x * (1 + k) + y;
        res.status = un_skyline_add(s, x, y, rot ? 2 : 1 + k % 3, rot ? 1 + k % 3 : 2);
    }
    DISARM();
    un_skyline_free(s);
    return res;
}

static oom_result run_components(long fail_at, const void *ctx)
{
    const int32_t a[3] = {0, 2, 4}, b[3] = {1, 3, 0};
    int32_t label[6], nc = 0, i;
    oom_result res;
    (void)ctx;
    memset(&res, 0, sizeof res);
    ARM();
    res.status = un_components(6, a, b, 3, label, &nc);
    DISARM();
    res.sig[0] = nc;
    for (i = 0; res.status == UN_OK && i < 6; i++) res.sig[1] += label[i] * (1 + i);
    return res;
}

static un_status put_box(un_nfpcache *c, int32_t k, un_rings *r)
{
    un_pt box[4];
    un_nfpkey key;
    const un_nfpval *v = NULL;
    un_status s;
    memset(&key, 0, sizeof key);
    key.i = k;
    box[0] = tu_pt(0, 0); box[1] = tu_pt(1 + k, 0); box[2] = tu_pt(1 + k, 1); box[3] = tu_pt(0, 1);
    s = un_rings_add(r, box, 4);
    if (s == UN_OK) s = un_nfpcache_put(c, &key, r, &v);
    un_nfpcache_release(c);
    return s;
}

/* A failed put leaves the rings with the caller and the cache whole; a
 * failed table growth (at the 1025th entry) keeps the old table.  The
 * first 1020 entries go in unarmed. */
static oom_result run_nfpcache(long fail_at, const void *ctx)
{
    un_nfpcache *c = un_nfpcache_new(1 << 24);
    un_nfpkey key;
    un_rings r;
    int32_t k;
    oom_result res;
    (void)ctx;
    memset(&res, 0, sizeof res);
    memset(&key, 0, sizeof key);
    un_rings_init(&r);
    if (!c) abort();
    for (k = 0; k < 1020; k++)
        if (put_box(c, k, &r) != UN_OK) abort();
    ARM();
    for (k = 1020; k < 1030 && res.status == UN_OK; k++) res.status = put_box(c, k, &r);
    DISARM();
    for (k = 0; k < 1030; k++) {
        const un_nfpval *v;
        key.i = k;
        v = un_nfpcache_get(c, &key);
        if (v) res.sig[0] += (double)v->hi.x;
        else if (res.status == UN_OK || k < 1020) CHECK_MSG(0, "entry %d lost", (int)k);
    }
    un_rings_free(&r);
    un_nfpcache_free(c);
    return res;
}

int main(int argc, char **argv)
{
    const int32_t group[4] = {0, 1, 0, -1};
    un_frings fit[2], fixed[4], locked[1], box[3], corners[4];
    un_pack_options fit_o = pack_options(4, 1 << 22), fixed_o = fit_o, filled_o, box_o = fit_o, wide_o = fit_o, contact_o,
                    turns_o = fit_o;
    int32_t i;
    int rc;
    for (i = 0; i < 4; i++) un_frings_init(fixed + i);
    for (i = 0; i < 3; i++) un_frings_init(box + i);
    for (i = 0; i < 4; i++) un_frings_init(corners + i);
    un_frings_init(fit);
    un_frings_init(fit + 1);
    un_frings_init(locked);
    /* fit mode: a rectangle and an L */
    ring_rect(fit, 0, 0, 2, 1);
    ring_L(fit + 1, 3, 3, 0.5);
    /* fixed scale over several targets: three squares and an L, two
     * groups, a locked island in target 0, one orientation (each costs a
     * no-fit polygon per pair) */
    for (i = 0; i < 3; i++) ring_rect(fixed + i, 2.0 * i, 0, 0.45, 0.45);
    ring_L(fixed + 3, 6, 0, 0.2);
    ring_rect(locked, 0.8, 0.8, 0.15, 0.15);
    fixed_o.fixed_scale = 1;
    fixed_o.max_bins = 3;
    fixed_o.padding = 0;
    fixed_o.nangles = 1;
    /* the same with only the largest annealed: the rest go through the
     * windowed filler, tile by tile */
    filled_o = fixed_o;
    filled_o.anneal_max = 1;
    /* box mode (skyline over bounding rectangles): three rectangles */
    for (i = 0; i < 3; i++) ring_rect(box + i, 0, 0, 0.3 + 0.2 * i, 0.8 - 0.2 * i);
    box_o.box = 1;
    /* a margin wide next to the islands: no bottom-left fill places four
     * unit squares at margin 0.8, the start's rescue annealing does */
    for (i = 0; i < 4; i++) ring_rect(corners + i, 2.0 * i, 0, 1, 1);
    wide_o.margin = 0.8;
    wide_o.padding = 0;
    wide_o.nangles = 1;
    wide_o.align = 0;
    /* one orientation at margin 0: the contact search starts on the first
     * move and runs interleaved with the main one */
    contact_o = wide_o;
    contact_o.margin = 0;
    /* the quarter turns as given (rotation 90): the contact search tries
     * each island at every quarter turn */
    turns_o.align = 0;
    turns_o.margin = 0;
    {
        /* options, islands, groups, locked islands, moves, what is armed */
        const pack_case fit_start = {&fit_o, fit, 2, NULL, NULL, 0, 0, ARM_ALL};
        const pack_case fit_moves = {&fit_o, fit, 2, NULL, NULL, 0, 12, ARM_RUN};
        const pack_case fixed_all = {&fixed_o, fixed, 4, group, locked, 1, 20, ARM_ALL};
        const pack_case fixed_filled = {&filled_o, fixed, 4, group, locked, 1, 20, ARM_ALL};
        const pack_case box_all = {&box_o, box, 3, NULL, NULL, 0, 5, ARM_ALL};
        /* no moves after the rescued start: the rescue is what this one
         * adds, and the moves ("pack fit: run") would double its 4,900
         * allocations, the failures of which cost the square of the count */
        const pack_case wide_start = {&wide_o, corners, 4, NULL, NULL, 0, 0, ARM_ALL};
        const pack_case contact_moves = {&contact_o, fit, 2, NULL, NULL, 0, 40, ARM_RUN};
        const pack_case turns_moves = {&turns_o, fit, 2, NULL, NULL, 0, 40, ARM_RUN};
        const oom_scenario all[] = {{"pack fit: start again after a failed start", run_fit_restart, fit},
                                    {"pack fit: start", run_pack, &fit_start},
                                    {"pack fit: run", run_pack, &fit_moves},
                                    {"pack fixed: groups, locked", run_pack, &fixed_all},
                                    {"pack fixed: filled tile by tile", run_pack, &fixed_filled},
                                    {"pack box", run_pack, &box_all},
                                    {"pack fit: rescue annealing at the start", run_pack, &wide_start},
                                    {"pack fit: the contact search", run_pack, &contact_moves},
                                    {"pack fit: the contact search over quarter turns", run_pack, &turns_moves},
                                    {"pow2", run_pow2, NULL},
                                    {"skyline", run_skyline, NULL},
                                    {"components", run_components, NULL},
                                    {"nfpcache", run_nfpcache, NULL}};
        rc = oom_read_shard(argc, argv) ? oom_run_scenarios("test_oom_engine", all, sizeof all / sizeof all[0]) : 2;
    }
    for (i = 0; i < 4; i++) un_frings_free(fixed + i);
    for (i = 0; i < 3; i++) un_frings_free(box + i);
    for (i = 0; i < 4; i++) un_frings_free(corners + i);
    un_frings_free(fit);
    un_frings_free(fit + 1);
    un_frings_free(locked);
    return rc;
}
