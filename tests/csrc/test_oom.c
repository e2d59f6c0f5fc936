/*
 * test_oom.c - allocation failure everywhere.
 *
 * Linked with -Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc,--wrap=free:
 * every allocation made by the library goes through the wrappers below,
 * which count live blocks and can fail the k-th allocation.  For each
 * scenario the allocations of a clean run are counted (N), then the
 * scenario is repeated with allocation k failing, for k = 1 .. N.  Every
 * call must then return UN_ENOMEM (or succeed with the same result as the
 * clean run), leave its outputs empty on failure, never crash, and leave
 * no block allocated once the outputs are freed.
 */
#include "tu.h"

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

/* ------------------------------------------------------------ scenarios */

typedef struct {
    un_status status;
    double sig[4]; /* a summary of the result, to compare with the clean run */
} result;

static void sig_frings(const un_frings *f, double *sig)
{
    int32_t i;
    sig[0] = f->nrings;
    sig[1] = un_frings_npts(f);
    sig[2] = 0;
    for (i = 0; i < 2 * un_frings_npts(f); i++) sig[2] += f->xy[i] * (1 + i % 7);
}

static void donut(un_frings *r, double x, double y)
{
    double o[8], h[8];
    o[0] = x; o[1] = y; o[2] = x + 3; o[3] = y; o[4] = x + 3; o[5] = y + 3; o[6] = x; o[7] = y + 3;
    h[0] = x + 1; h[1] = y + 1; h[2] = x + 1; h[3] = y + 2; h[4] = x + 2; h[5] = y + 2; h[6] = x + 2; h[7] = y + 1;
    if (un_frings_add(r, o, 4) != UN_OK || un_frings_add(r, h, 4) != UN_OK) abort();
}

#define SCENARIO_BEGIN(name)                 \
    static result name(long fail_at)         \
    {                                        \
        result res;                          \
        long saved;                          \
        memset(&res, 0, sizeof res);         \
        saved = fail_at;                     \
        oom_fail_at = 0;
#define ARM() do { oom_count = 0; oom_fail_at = saved; } while (0)
#define DISARM() do { oom_fail_at = 0; } while (0)
#define SCENARIO_END return res; }

SCENARIO_BEGIN(run_nfp)
    un_frings a, b, out;
    const double L[] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
    un_frings_init(&a); un_frings_init(&b); un_frings_init(&out);
    donut(&a, 0, 0);
    if (un_frings_add(&b, L, 6) != UN_OK) abort();
    ARM();
    res.status = un_geom_nfp(&a, &b, &out);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nrings, 0);
    sig_frings(&out, res.sig);
    un_frings_free(&a); un_frings_free(&b); un_frings_free(&out);
SCENARIO_END

SCENARIO_BEGIN(run_nfp_exact_fit)
    un_frings a, b, out;
    un_frings_init(&a); un_frings_init(&b); un_frings_init(&out);
    donut(&a, 0, 0);
    tu_fbox(&b, 0, 0, 1, 1);
    ARM();
    res.status = un_geom_nfp(&a, &b, &out);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nrings, 0);
    sig_frings(&out, res.sig);
    un_frings_free(&a); un_frings_free(&b); un_frings_free(&out);
SCENARIO_END

SCENARIO_BEGIN(run_outline)
    const double uv[] = {0, 0, 1, 0, 2, 0, 3, 0, 0, 1, 1, 1, 2, 1, 3, 1, 0, 2, 1, 2, 2, 2, 3, 2, 0.5, 0.5, 2.5, 1.5, 1.5, 0};
    const int32_t fi[] = {0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 4, 5, 9, 8, 6, 7, 11, 10, 12, 13, 8, 14, 3, 11};
    const int32_t fs[] = {0, 4, 8, 12, 16, 20, 23, 26};
    un_frings out;
    un_frings_init(&out);
    ARM();
    res.status = un_geom_outline(uv, 15, fs, 7, fi, &out);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nrings, 0);
    sig_frings(&out, res.sig);
    un_frings_free(&out);
SCENARIO_END

SCENARIO_BEGIN(run_simplify)
    un_frings in, out;
    double used = 0, xy[2 * 40];
    int i;
    un_frings_init(&in); un_frings_init(&out);
    for (i = 0; i < 40; i++) {
        double t = 6.283185307179586 * i / 40, r = 1 + 0.4 * (i % 3 == 0) - 0.3 * (i % 5 == 0);
        xy[2 * i] = r * cos(t);
        xy[2 * i + 1] = r * sin(t);
    }
    if (un_frings_add(&in, xy, 40) != UN_OK) abort();
    tu_fbox(&in, -0.2, -0.2, 0.2, 0.2);  /* a hole (nesting decides) */
    ARM();
    res.status = un_geom_simplify(&in, 0.05, 10, &out, &used);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nrings, 0);
    sig_frings(&out, res.sig);
    res.sig[3] = used;
    un_frings_free(&in); un_frings_free(&out);
SCENARIO_END

SCENARIO_BEGIN(run_ifp_polygon)
    un_frings c, p;
    un_fregions out;
    const double L[] = {0, 0, 4, 0, 4, 1, 1, 1, 1, 4, 0, 4};
    un_frings_init(&c); un_frings_init(&p);
    if (un_frings_add(&c, L, 6) != UN_OK) abort();
    tu_fbox(&p, 0, 0, 0.5, 0.5);
    memset(&out, 0, sizeof out);
    ARM();
    res.status = un_geom_ifp(&c, &p, &out);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nregions, 0);
    sig_frings(&out.rings, res.sig);
    res.sig[3] = out.nregions;
    un_fregions_free(&out);
    un_frings_free(&c); un_frings_free(&p);
SCENARIO_END

SCENARIO_BEGIN(run_cfr)
    un_frings c, p, pl[3];
    un_fregions out;
    double pt[2];
    un_frings_init(&c); un_frings_init(&p);
    un_frings_init(pl); un_frings_init(pl + 1); un_frings_init(pl + 2);
    tu_fbox(&c, 0, 0, 6, 5);
    donut(pl, 0, 0);
    tu_fbox(pl + 1, 4, 0, 5, 1);
    tu_fbox(pl + 2, 3.5, 3, 6, 5);
    tu_fbox(&p, 0, 0, 1, 1);
    memset(&out, 0, sizeof out);
    ARM();
    res.status = un_geom_cfr(&c, pl, 3, &p, 0.0, &out);
    if (res.status == UN_OK && out.nregions > 0) {
        un_status s = un_region_point_at(&out, 0, 0.3, pt);
        CHECK(s == UN_OK || s == UN_ENOMEM);
    }
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nregions, 0);
    sig_frings(&out.rings, res.sig);
    res.sig[3] = out.nregions;
    un_fregions_free(&out);
    un_frings_free(&c); un_frings_free(&p);
    un_frings_free(pl); un_frings_free(pl + 1); un_frings_free(pl + 2);
SCENARIO_END

SCENARIO_BEGIN(run_cfr_margin_polygon_container)
    un_frings c, p, pl[2];
    un_fregions out;
    const double L[] = {0, 0, 6, 0, 6, 2, 2, 2, 2, 6, 0, 6};
    const double tri[] = {0, 0, 1, 0, 0, 1};
    un_frings_init(&c); un_frings_init(&p);
    un_frings_init(pl); un_frings_init(pl + 1);
    if (un_frings_add(&c, L, 6) != UN_OK || un_frings_add(&p, tri, 3) != UN_OK) abort();
    tu_fbox(pl, 3, 0.5, 4, 1.5);
    tu_fbox(pl + 1, 0.5, 3, 1.5, 4);
    memset(&out, 0, sizeof out);
    ARM();
    res.status = un_geom_cfr(&c, pl, 2, &p, 0.1, &out);
    DISARM();
    if (res.status != UN_OK) CHECK_EQ(out.nregions, 0);
    sig_frings(&out.rings, res.sig);
    res.sig[3] = out.nregions;
    un_fregions_free(&out);
    un_frings_free(&c); un_frings_free(&p);
    un_frings_free(pl); un_frings_free(pl + 1);
SCENARIO_END

SCENARIO_BEGIN(run_overlaps)
    un_frings a, b;
    int over = -1;
    double d = -1;
    un_frings_init(&a); un_frings_init(&b);
    donut(&a, 0, 0);
    tu_fbox(&b, 1.2, 1.2, 1.8, 1.8);
    ARM();
    res.status = un_geom_overlaps(&a, &b, 0.1, &over, &d);
    DISARM();
    res.sig[0] = over;
    res.sig[1] = d;
    un_frings_free(&a); un_frings_free(&b);
SCENARIO_END

SCENARIO_BEGIN(run_overlaps_clockwise)
    /* identical clockwise squares: only the re-orientation of the rings
     * lets the edge samples see that the interiors coincide */
    un_frings a, b;
    const double cw[] = {0, 0, 0, 1, 1, 1, 1, 0};
    int over = -1;
    double d = -1;
    un_frings_init(&a); un_frings_init(&b);
    if (un_frings_add(&a, cw, 4) != UN_OK || un_frings_add(&b, cw, 4) != UN_OK) abort();
    ARM();
    res.status = un_geom_overlaps(&a, &b, 0.0, &over, &d);
    DISARM();
    res.sig[0] = over;
    res.sig[1] = d;
    un_frings_free(&a); un_frings_free(&b);
SCENARIO_END

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
    } all[] = {{"nfp", run_nfp},
               {"nfp exact fit", run_nfp_exact_fit},
               {"outline", run_outline},
               {"simplify", run_simplify},
               {"ifp polygon", run_ifp_polygon},
               {"cfr", run_cfr},
               {"cfr margin polygon container", run_cfr_margin_polygon_container},
               {"overlaps", run_overlaps},
               {"overlaps clockwise", run_overlaps_clockwise}};
    size_t i;
    for (i = 0; i < sizeof all / sizeof all[0]; i++) {
        tu_current = all[i].name;
        run_all_failures(all[i].name, all[i].fn);
    }
    return tu_report("test_oom");
}
