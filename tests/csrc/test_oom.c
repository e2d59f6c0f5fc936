/*
 * test_oom.c - allocation failure everywhere in the geometry functions.
 *
 * Every allocation of each call below fails in turn (see oom.h): the call
 * must then return UN_ENOMEM (or succeed with the same result as the clean
 * run), leave its outputs empty on failure, never crash, and leave no block
 * allocated once the outputs are freed.
 */
#include "oom.h"

/* ------------------------------------------------------------- inputs */

/* The inputs of a scenario, built before it runs (unarmed). */
typedef struct {
    un_frings a, b;          /* nfp, overlaps: the pair; ifp, cfr: container, piece; simplify: a */
    un_frings placed[3];     /* cfr */
    int32_t   nplaced;
    double    margin;        /* cfr, overlaps */
} inputs;

static void inputs_init(inputs *in)
{
    int32_t i;
    memset(in, 0, sizeof *in);
    un_frings_init(&in->a);
    un_frings_init(&in->b);
    for (i = 0; i < 3; i++) un_frings_init(in->placed + i);
}

static void inputs_free(inputs *in)
{
    int32_t i;
    un_frings_free(&in->a);
    un_frings_free(&in->b);
    for (i = 0; i < 3; i++) un_frings_free(in->placed + i);
}

static void add_ring(un_frings *r, const double *xy, int32_t n)
{
    if (un_frings_add(r, xy, n) != UN_OK) abort();
}

static void donut(un_frings *r, double x, double y)
{
    double o[8], h[8];
    o[0] = x; o[1] = y; o[2] = x + 3; o[3] = y; o[4] = x + 3; o[5] = y + 3; o[6] = x; o[7] = y + 3;
    h[0] = x + 1; h[1] = y + 1; h[2] = x + 1; h[3] = y + 2; h[4] = x + 2; h[5] = y + 2; h[6] = x + 2; h[7] = y + 1;
    add_ring(r, o, 4);
    add_ring(r, h, 4);
}

/* A wavy 40-point ring around a square hole (nesting decides). */
static void wavy_with_hole(un_frings *r)
{
    double xy[2 * 40];
    int i;
    for (i = 0; i < 40; i++) {
        double t = 6.283185307179586 * i / 40, rr = 1 + 0.4 * (i % 3 == 0) - 0.3 * (i % 5 == 0);
        xy[2 * i] = rr * cos(t);
        xy[2 * i + 1] = rr * sin(t);
    }
    add_ring(r, xy, 40);
    tu_fbox(r, -0.2, -0.2, 0.2, 0.2);
}

/* ------------------------------------------------------------ results */

static void sig_frings(const un_frings *f, double *sig)
{
    int32_t i;
    sig[0] = f->nrings;
    sig[1] = un_frings_npts(f);
    sig[2] = 0;
    for (i = 0; i < 2 * un_frings_npts(f); i++) sig[2] += f->xy[i] * (1 + i % 7);
}

/* The result of a call that filled out (which must be empty if it failed);
 * frees out. */
static oom_result rings_result(un_status s, un_frings *out)
{
    oom_result res;
    memset(&res, 0, sizeof res);
    res.status = s;
    if (s != UN_OK) CHECK_EQ(out->nrings, 0);
    sig_frings(out, res.sig);
    un_frings_free(out);
    return res;
}

static oom_result regions_result(un_status s, un_fregions *out)
{
    oom_result res;
    if (s != UN_OK) CHECK_EQ(out->nregions, 0);
    res = rings_result(s, &out->rings);
    res.sig[3] = out->nregions;
    un_fregions_free(out);
    return res;
}

/* ------------------------------------------------------------ scenarios */

static oom_result run_nfp(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    un_frings out;
    un_status s;
    un_frings_init(&out);
    ARM();
    s = un_geom_nfp(&in->a, &in->b, &out, NULL);
    DISARM();
    return rings_result(s, &out);
}

static oom_result run_outline(long fail_at, const void *ctx)
{
    const double uv[] = {0, 0, 1, 0, 2, 0, 3, 0, 0, 1, 1, 1, 2, 1, 3, 1, 0, 2, 1, 2, 2, 2, 3, 2, 0.5, 0.5, 2.5, 1.5, 1.5, 0};
    const int32_t fi[] = {0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 4, 5, 9, 8, 6, 7, 11, 10, 12, 13, 8, 14, 3, 11};
    const int32_t fs[] = {0, 4, 8, 12, 16, 20, 23, 26};
    un_frings out;
    un_status s;
    (void)ctx;
    un_frings_init(&out);
    ARM();
    s = un_geom_outline(uv, 15, fs, 7, fi, &out);
    DISARM();
    return rings_result(s, &out);
}

static oom_result run_simplify(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    un_frings out;
    double used = 0;
    un_status s;
    oom_result res;
    un_frings_init(&out);
    ARM();
    s = un_geom_simplify(&in->a, 0.05, 10, &out, &used);
    DISARM();
    res = rings_result(s, &out);
    res.sig[3] = used;
    return res;
}

static oom_result run_ifp(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    un_fregions out;
    un_status s;
    memset(&out, 0, sizeof out);
    ARM();
    s = un_geom_ifp(&in->a, &in->b, &out, NULL);
    DISARM();
    return regions_result(s, &out);
}

/* The free regions, and a point on the first. */
static oom_result run_cfr(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    un_fregions out;
    un_status s;
    double pt[2];
    memset(&out, 0, sizeof out);
    ARM();
    s = un_geom_cfr(&in->a, in->placed, in->nplaced, &in->b, in->margin, &out, NULL);
    if (s == UN_OK && out.nregions > 0) {
        un_status p = un_region_point_at(&out, 0, 0.3, pt);
        CHECK(p == UN_OK || p == UN_ENOMEM);
    }
    DISARM();
    return regions_result(s, &out);
}

/* Two calls on one workspace, ctx[0] then ctx[1]: a failure anywhere in
 * the first must leave the workspace fit for the second, whose regions are
 * the result. */
static oom_result run_cfr_reused(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    un_fregions out;
    un_workspace *ws;
    un_status s = UN_ENOMEM;
    memset(&out, 0, sizeof out);
    ARM();
    ws = un_workspace_new();
    if (ws) {
        s = un_geom_cfr(&in[0].a, in[0].placed, in[0].nplaced, &in[0].b, in[0].margin, &out, ws);
        CHECK(s == UN_OK || s == UN_ENOMEM);
        un_fregions_free(&out);
        s = un_geom_cfr(&in[1].a, in[1].placed, in[1].nplaced, &in[1].b, in[1].margin, &out, ws);
    }
    un_workspace_free(ws);
    DISARM();
    return regions_result(s, &out);
}

static oom_result run_overlaps(long fail_at, const void *ctx)
{
    const inputs *in = (const inputs *)ctx;
    oom_result res;
    int over = -1;
    double d = -1;
    memset(&res, 0, sizeof res);
    ARM();
    res.status = un_geom_overlaps(&in->a, &in->b, in->margin, &over, &d);
    DISARM();
    res.sig[0] = over;
    res.sig[1] = d;
    return res;
}

/* Obstacles large enough for cfr.c to cull their edges inside each
 * other's cores (1200 points, three cores): three overlapping 400-gons. */
typedef struct {
    un_rings    rings[3];
    un_core     core[3];
    un_obstacle obs[3];
} culled_scene;

static void culled_scene_make(culled_scene *c)
{
    const int64_t cx[3] = {0, 800, 400}, cy[3] = {0, 0, 700};
    un_pt p[400];
    double *scratch = NULL;
    int32_t cap = 0, i, k;
    int found;
    memset(c, 0, sizeof *c);
    for (k = 0; k < 3; k++) {
        un_rings_init(c->rings + k);
        for (i = 0; i < 400; i++)
            p[i] = tu_pt(cx[k] + llround(1000 * cos(6.283185307179586 * i / 400)),
                         cy[k] + llround(1000 * sin(6.283185307179586 * i / 400)));
        if (un_rings_add(c->rings + k, p, 400) != UN_OK) abort();
        c->obs[k].rings = c->rings + k;
        c->obs[k].r1 = 1;
        un_rings_bbox(c->rings + k, &c->obs[k].lo, &c->obs[k].hi);
        CHECK_OK(un_core_find(c->rings + k, 0, 1, c->obs[k].lo, c->obs[k].hi, &scratch, &cap, c->core + k, &found));
        CHECK(found);
        c->obs[k].core = found ? c->core + k : NULL;
    }
    free(scratch);
    {   /* the 400-gons do cross each other's cores */
        un_coreset cs;
        int64_t err = 0;
        un_coreset_init(&cs);
        for (k = 0; k < 3; k++) CHECK_OK(un_coreset_add(&cs, c->core + k, tu_pt(0, 0), k));
        CHECK_OK(un_coreset_index(&cs));
        for (k = 0; k < 3; k++) CHECK(un_coreset_cull(&cs, c->rings[k].pts, 400, p, &err) > 0);
        CHECK(err > 0);
        un_coreset_free(&cs);
    }
}

static void culled_scene_free(culled_scene *c)
{
    int32_t k;
    for (k = 0; k < 3; k++) un_rings_free(c->rings + k);
}

/* un_cfr_loops on a rectangle around the culled scene: its loops. */
static oom_result run_cfr_culled(long fail_at, const void *ctx)
{
    const culled_scene *c = (const culled_scene *)ctx;
    oom_result res;
    un_arr *w;
    un_seg *segs = NULL;
    int32_t cap = 0, k, i;
    memset(&res, 0, sizeof res);
    ARM();
    w = un_workspace_new();
    res.status = w ? un_cfr_loops(w, NULL, tu_pt(-1200, -1200), tu_pt(2000, 1900), c->obs, 3, &segs, &cap) : UN_ENOMEM;
    if (res.status == UN_OK) {
        res.sig[0] = un_arr_nloops(w);
        for (k = 0; k < un_arr_nloops(w); k++) {
            const un_loop *l = un_arr_loops(w) + k;
            res.sig[1] += l->end - l->start;
            for (i = l->start; i < l->end; i++)
                res.sig[2] += (double)un_arr_ipts(w)[i].x * (1 + i % 7) + (double)un_arr_ipts(w)[i].y;
        }
    }
    un_workspace_free(w);
    free(segs);
    DISARM();
    return res;
}

/* The inputs, one set per scenario that takes any. */
enum { NFP_L, NFP_FIT, SIMPLIFY, IFP, CFR, CFR_MARGIN, OVERLAPS, OVERLAPS_CW, NINPUTS };

int main(int argc, char **argv)
{
    const double L[] = {0, 0, 2, 0, 2, 1, 1, 1, 1, 2, 0, 2};
    const double long_L[] = {0, 0, 4, 0, 4, 1, 1, 1, 1, 4, 0, 4};
    const double wide_L[] = {0, 0, 6, 0, 6, 2, 2, 2, 2, 6, 0, 6};
    const double tri[] = {0, 0, 1, 0, 0, 1};
    const double cw[] = {0, 0, 0, 1, 1, 1, 1, 0};
    inputs in[NINPUTS];
    culled_scene culled;
    int32_t i;
    int rc;
    for (i = 0; i < NINPUTS; i++) inputs_init(in + i);
    donut(&in[NFP_L].a, 0, 0);
    add_ring(&in[NFP_L].b, L, 6);
    donut(&in[NFP_FIT].a, 0, 0);
    tu_fbox(&in[NFP_FIT].b, 0, 0, 1, 1);
    wavy_with_hole(&in[SIMPLIFY].a);
    add_ring(&in[IFP].a, long_L, 6);
    tu_fbox(&in[IFP].b, 0, 0, 0.5, 0.5);
    tu_fbox(&in[CFR].a, 0, 0, 6, 5);
    tu_fbox(&in[CFR].b, 0, 0, 1, 1);
    donut(in[CFR].placed, 0, 0);
    tu_fbox(in[CFR].placed + 1, 4, 0, 5, 1);
    tu_fbox(in[CFR].placed + 2, 3.5, 3, 6, 5);
    in[CFR].nplaced = 3;
    add_ring(&in[CFR_MARGIN].a, wide_L, 6);
    add_ring(&in[CFR_MARGIN].b, tri, 3);
    tu_fbox(in[CFR_MARGIN].placed, 3, 0.5, 4, 1.5);
    tu_fbox(in[CFR_MARGIN].placed + 1, 0.5, 3, 1.5, 4);
    in[CFR_MARGIN].nplaced = 2;
    in[CFR_MARGIN].margin = 0.1;
    donut(&in[OVERLAPS].a, 0, 0);
    tu_fbox(&in[OVERLAPS].b, 1.2, 1.2, 1.8, 1.8);
    in[OVERLAPS].margin = 0.1;
    /* identical clockwise squares: only the re-orientation of the rings
     * lets the edge samples see that the interiors coincide */
    add_ring(&in[OVERLAPS_CW].a, cw, 4);
    add_ring(&in[OVERLAPS_CW].b, cw, 4);
    culled_scene_make(&culled);
    {
        const oom_scenario all[] = {{"nfp", run_nfp, in + NFP_L},
                                    {"nfp exact fit", run_nfp, in + NFP_FIT},
                                    {"outline", run_outline, NULL},
                                    {"simplify", run_simplify, in + SIMPLIFY},
                                    {"ifp polygon", run_ifp, in + IFP},
                                    {"cfr", run_cfr, in + CFR},
                                    {"cfr margin polygon container", run_cfr, in + CFR_MARGIN},
                                    /* CFR_MARGIN follows CFR in in[] */
                                    {"cfr twice on one workspace", run_cfr_reused, in + CFR},
                                    {"overlaps", run_overlaps, in + OVERLAPS},
                                    {"overlaps clockwise", run_overlaps, in + OVERLAPS_CW},
                                    {"cfr culled", run_cfr_culled, &culled}};
        rc = oom_read_shard(argc, argv) ? oom_run_scenarios("test_oom", all, sizeof all / sizeof all[0]) : 2;
    }
    for (i = 0; i < NINPUTS; i++) inputs_free(in + i);
    culled_scene_free(&culled);
    return rc;
}
