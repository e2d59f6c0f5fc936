/*
 * test_oom_engine.c - allocation failure everywhere in the packing engine.
 *
 * Linked with -Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc,--wrap=free
 * (as test_oom.c): the wrappers count live blocks and can fail the k-th
 * allocation.  For each scenario the allocations of a clean run are
 * counted (N), then the scenario is repeated with allocation k failing,
 * for k = 1 .. N.  Every call must then return UN_ENOMEM (or succeed with
 * the clean run's result), never crash, and leave no block allocated once
 * everything is freed.  A packer whose run() failed must stay usable: run
 * again without failures, it succeeds and its best layout is still valid
 * (inside the target).
 */
#include "tu.h"
#include "engine.h"

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t n, size_t m);
void __real_free(void *p);

static long oom_count = 0;   /* allocations attempted so far */
static long oom_fail_at = 0; /* fail this one (1-based); 0: never */
static long oom_live = 0;    /* blocks currently allocated */

static int oom_should_fail(void)
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

#define ARM() do { oom_count = 0; oom_fail_at = fail_at; } while (0)
#define DISARM() do { oom_fail_at = 0; } while (0)

static const double QUARTERS[4] = {0, 1.5707963267948966, 3.141592653589793, 4.71238898038469};

typedef struct {
    un_status status;
    double sig[4]; /* a summary of the result, to compare with the clean run */
} result;

/* ------------------------------------------------------------ shapes */

static void ring_rect(un_frings *f, double x, double y, double w, double h)
{
    tu_fbox(f, x, y, x + w, y + h);
}

static void ring_L(un_frings *f, double x, double y, double s)
{
    const double xy[12] = {x, y, x + 2 * s, y, x + 2 * s, y + s, x + s, y + s, x + s, y + 2 * s, x, y + 2 * s};
    if (un_frings_add(f, xy, 6) != UN_OK) abort();
}

static un_pack_options base_options(void)
{
    un_pack_options o;
    memset(&o, 0, sizeof o);
    o.target[2] = 1;
    o.target[3] = 1;
    o.margin = 0.01;
    o.padding = 0.005;
    o.nangles = 4;
    o.angles = QUARTERS;
    o.align = 1;
    o.seed = 4;
    o.cache_bytes = 1 << 22;
    return o;
}

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
static result pack_run(long fail_at, const pack_case *c)
{
    result res;
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

/* A rectangle and an L: fit mode, armed from un_packer_new through start
 * (the scale search's fills), or in run() only (annealing moves). */
static result fit_case(long fail_at, int arm)
{
    un_frings isl[2];
    un_pack_options o = base_options();
    pack_case c;
    result r;
    un_frings_init(isl);
    un_frings_init(isl + 1);
    ring_rect(isl, 0, 0, 2, 1);
    ring_L(isl + 1, 3, 3, 0.5);
    memset(&c, 0, sizeof c);
    c.o = &o;
    c.isl = isl;
    c.n = 2;
    c.moves = arm == ARM_RUN ? 12 : 0;
    c.arm = arm;
    r = pack_run(fail_at, &c);
    un_frings_free(isl);
    un_frings_free(isl + 1);
    return r;
}

static result run_fit_start(long fail_at) { return fit_case(fail_at, ARM_ALL); }
static result run_fit_moves(long fail_at) { return fit_case(fail_at, ARM_RUN); }

/* Fixed scale over several targets: three squares and an L, two groups,
 * a locked island in target 0, one orientation (each orientation costs a
 * no-fit polygon per pair); armed throughout. */
static result run_fixed(long fail_at)
{
    un_frings isl[4], locked[1];
    const int32_t group[4] = {0, 1, 0, -1};
    un_pack_options o = base_options();
    pack_case c;
    result r;
    int32_t i;
    for (i = 0; i < 4; i++) {
        un_frings_init(isl + i);
        if (i == 3) ring_L(isl + i, 2.0 * i, 0, 0.2);
        else ring_rect(isl + i, 2.0 * i, 0, 0.45, 0.45);
    }
    un_frings_init(locked);
    ring_rect(locked, 0.8, 0.8, 0.15, 0.15);
    o.fixed_scale = 1;
    o.max_bins = 3;
    o.padding = 0;
    o.nangles = 1;
    memset(&c, 0, sizeof c);
    c.o = &o;
    c.isl = isl;
    c.n = 4;
    c.group = group;
    c.locked = locked;
    c.nlocked = 1;
    c.moves = 20;
    c.arm = ARM_ALL;
    r = pack_run(fail_at, &c);
    for (i = 0; i < 4; i++) un_frings_free(isl + i);
    un_frings_free(locked);
    return r;
}

/* Box mode (skyline over bounding rectangles): three rectangles. */
static result run_box(long fail_at)
{
    un_frings isl[3];
    un_pack_options o = base_options();
    pack_case c;
    result r;
    int32_t i;
    for (i = 0; i < 3; i++) {
        un_frings_init(isl + i);
        ring_rect(isl + i, 0, 0, 0.3 + 0.2 * i, 0.8 - 0.2 * i);
    }
    o.box = 1;
    memset(&c, 0, sizeof c);
    c.o = &o;
    c.isl = isl;
    c.n = 3;
    c.moves = 5;
    c.arm = ARM_ALL;
    r = pack_run(fail_at, &c);
    for (i = 0; i < 3; i++) un_frings_free(isl + i);
    return r;
}

/* A start that failed for want of memory is final: starting again and
 * running are refused (UN_EINVAL), nothing leaks (LeakSanitizer). */
static result run_fit_restart(long fail_at)
{
    un_frings isl[2];
    un_pack_options o = base_options();
    un_packer *pk = NULL;
    un_transform t[2];
    int improved;
    result res;
    memset(&res, 0, sizeof res);
    un_frings_init(isl);
    un_frings_init(isl + 1);
    ring_rect(isl, 0, 0, 2, 1);
    ring_L(isl + 1, 3, 3, 0.5);
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
    un_frings_free(isl);
    un_frings_free(isl + 1);
    return res;
}

/* ------------------------------------------------------- small helpers */

static result run_pow2(long fail_at)
{
    const int64_t sizes[5] = {4, 8, 2, 8, 1};
    int64_t xyl[15];
    int32_t nl = -1, i;
    result res;
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

static result run_skyline(long fail_at)
{
    un_skyline *s;
    double x, y;
    int rot, k;
    result res;
    memset(&res, 0, sizeof res);
    ARM();
    s = un_skyline_new();
    res.status = s ? un_skyline_reset(s, 10, 10) : UN_ENOMEM;
    for (k = 0; k < 12 && res.status == UN_OK; k++) {
        if (!un_skyline_place(s, 1 + k % 3, 2, 1, &x, &y, &rot)) break;
        res.sig[0] += x * (1 + k) + y;
        res.status = un_skyline_add(s, x, y, rot ? 2 : 1 + k % 3, rot ? 1 + k % 3 : 2);
    }
    DISARM();
    un_skyline_free(s);
    return res;
}

static result run_components(long fail_at)
{
    const int32_t a[3] = {0, 2, 4}, b[3] = {1, 3, 0};
    int32_t label[6], nc = 0, i;
    result res;
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
static result run_nfpcache(long fail_at)
{
    un_nfpcache *c = un_nfpcache_new(1 << 24);
    un_nfpkey key;
    un_rings r;
    int32_t k;
    result res;
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

/* ------------------------------------------------------------ driver */

typedef result (*scenario_fn)(long);

static void run_all_failures(const char *name, scenario_fn fn)
{
    result clean;
    long n, k, live0;
    int enomem = 0, ok_same = 0;
    live0 = oom_live;
    clean = fn(0);
    n = oom_count;
    CHECK_MSG(clean.status == UN_OK, "%s: clean run returned %s", name, un_status_str(clean.status));
    CHECK_MSG(oom_live == live0, "%s: clean run leaked %ld blocks", name, oom_live - live0);
    for (k = 1; k <= n; k++) {
        result r = fn(k);
        if (r.status == UN_ENOMEM) enomem++;
        else if (r.status == UN_OK) {
            int same = memcmp(r.sig, clean.sig, sizeof r.sig) == 0;
            CHECK_MSG(same, "%s: allocation %ld of %ld failed, the call succeeded with a different result", name,
                      k, n);
            ok_same += same;
        } else {
            CHECK_MSG(0, "%s: allocation %ld of %ld failed, the call returned %s", name, k, n,
                      un_status_str(r.status));
        }
        if (oom_live != live0) {
            CHECK_MSG(0, "%s: allocation %ld of %ld failed, %ld blocks leaked", name, k, n, oom_live - live0);
            live0 = oom_live;
        }
    }
    printf("%s: %ld allocations, %d failures reported as out of memory, %d tolerated\n", name, n, enomem, ok_same);
    CHECK(n > 0);
}

int main(void)
{
    static const struct {
        const char *name;
        scenario_fn fn;
    } all[] = {
               {"pack fit: start again after a failed start", run_fit_restart},
               {"pack fit: start", run_fit_start},
               {"pack fit: run", run_fit_moves},
               {"pack fixed: groups, locked", run_fixed},
               {"pack box", run_box},
               {"pow2", run_pow2},
               {"skyline", run_skyline},
               {"components", run_components},
               {"nfpcache", run_nfpcache}};
    size_t i;
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tu_current = all[i].name;
        run_all_failures(all[i].name, all[i].fn);
    }
    return tu_report("test_oom_engine");
}
