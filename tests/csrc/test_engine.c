/*
 * test_engine.c - the packing engine: the packer (the files packer.h
 * lists, through the public un_packer_* interface, which drives decode.c,
 * anneal.c, island.c and nfpcache.c), and the helpers skyline.c, pow2.c,
 * components.c, rng.c, nfpcache.c and island.c directly.
 *
 * Oracles are written here, independently of the library:
 *   - layouts: every transform is applied to the input outline by the
 *     formula of uvnest.h, then each placed outline is checked against the
 *     target (every vertex inside, the padding kept: the target is convex)
 *     and against every other one and every locked island by brute-force
 *     segment distances plus a point-in-polygon test for nesting;
 *   - power-of-two squares: an occupancy raster per layer;
 *   - skyline: interval overlap arithmetic and a brute-force "lowest, then
 *     leftmost" search over every candidate position;
 *   - components: flood fill over an adjacency matrix;
 *   - PCG32: a reference implementation written from the published
 *     algorithm, and the reference generator's published first outputs.
 */
#include "tu.h"
#include "engine.h"
#include "pack_fixtures.h"

#define PI 3.14159265358979323846
#define TOL 1e-6 /* geometric tolerance of the layout checks (tile units ~ 1) */

/* ================================================================ shapes */

/* A w x h rectangle centred at (cx, cy), turned by a (counter-clockwise). */
static void ring_turned_rect(un_frings *f, double cx, double cy, double w, double h, double a)
{
    const double u[4] = {-1, 1, 1, -1}, v[4] = {-1, -1, 1, 1};
    double xy[8], c = cos(a), s = sin(a);
    int i;
    for (i = 0; i < 4; i++) {
        double x = 0.5 * w * u[i], y = 0.5 * h * v[i];
        xy[2 * i] = cx + c * x - s * y;
        xy[2 * i + 1] = cy + s * x + c * y;
    }
    if (un_frings_add(f, xy, 4) != UN_OK) abort();
}

/* A square frame: outer side `side`, a centred square hole of side `hole`. */
static void ring_frame(un_frings *f, double x, double y, double side, double hole)
{
    double o[8], h[8], a = x + 0.5 * (side - hole), b = a + hole, c = y + 0.5 * (side - hole), d = c + hole;
    o[0] = x; o[1] = y; o[2] = x + side; o[3] = y; o[4] = x + side; o[5] = y + side; o[6] = x; o[7] = y + side;
    h[0] = a; h[1] = c; h[2] = a; h[3] = d; h[4] = b; h[5] = d; h[6] = b; h[7] = c; /* clockwise */
    if (un_frings_add(f, o, 4) != UN_OK || un_frings_add(f, h, 4) != UN_OK) abort();
}

static void free_all(un_frings *f, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++) un_frings_free(f + i);
}

/* ======================================================== geometry oracle */

static double orient2(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static double point_seg_dist(const double *p, const double *a, const double *b)
{
    double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy, t = 0;
    if (l2 > 0) {
        t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
    }
    return hypot(a[0] + t * dx - p[0], a[1] + t * dy - p[1]);
}

/* Distance between segments ab and cd: 0 when they cross, else the
 * smallest endpoint-to-segment distance. */
static double seg_seg_dist(const double *a, const double *b, const double *c, const double *d)
{
    double o1 = orient2(a, b, c), o2 = orient2(a, b, d), o3 = orient2(c, d, a), o4 = orient2(c, d, b), m, t;
    if (((o1 > 0 && o2 < 0) || (o1 < 0 && o2 > 0)) && ((o3 > 0 && o4 < 0) || (o3 < 0 && o4 > 0))) return 0;
    m = point_seg_dist(a, c, d);
    if ((t = point_seg_dist(b, c, d)) < m) m = t;
    if ((t = point_seg_dist(c, a, b)) < m) m = t;
    if ((t = point_seg_dist(d, a, b)) < m) m = t;
    return m;
}

/* Distance between two placed outlines (0 when one holds a vertex of the
 * other inside: nesting or overlap). */
static double outline_distance(const un_frings *a, const un_frings *b)
{
    double best = HUGE_VAL;
    int32_t ka, kb, i, j;
    if (tu_fpoint_in_rings(b, a->xy[0], a->xy[1]) || tu_fpoint_in_rings(a, b->xy[0], b->xy[1])) return 0;
    for (ka = 0; ka < a->nrings; ka++) {
        int32_t sa = a->start[ka], na = a->start[ka + 1] - sa;
        for (i = 0; i < na; i++) {
            const double *p = a->xy + 2 * (sa + i), *q = a->xy + 2 * (sa + (i + 1) % na);
            for (kb = 0; kb < b->nrings; kb++) {
                int32_t sb = b->start[kb], nb = b->start[kb + 1] - sb;
                for (j = 0; j < nb; j++) {
                    double d = seg_seg_dist(p, q, b->xy + 2 * (sb + j), b->xy + 2 * (sb + (j + 1) % nb));
                    if (d < best) best = d;
                }
            }
        }
    }
    return best;
}

/* out = the outline under t, by the formula of uvnest.h:
 * uv' = scale * R(angle) * F^flip * uv + (tx, ty), F = diag(-1, 1). */
static void apply_transform(const un_frings *in, const un_transform *t, un_frings *out)
{
    double c = cos(t->angle), s = sin(t->angle);
    int32_t k, i;
    un_frings_init(out);
    for (k = 0; k < in->nrings; k++) {
        int32_t a = in->start[k], n = in->start[k + 1] - a;
        double *xy = (double *)malloc(2 * (size_t)n * sizeof *xy);
        if (!xy) abort();
        for (i = 0; i < n; i++) {
            double x = in->xy[2 * (a + i)], y = in->xy[2 * (a + i) + 1];
            if (t->flip) x = -x;
            xy[2 * i] = t->scale * (c * x - s * y) + t->tx;
            xy[2 * i + 1] = t->scale * (s * x + c * y) + t->ty;
        }
        if (un_frings_add(out, xy, n) != UN_OK) abort();
        free(xy);
    }
}

/* Every vertex of p at least `pad` inside box (the box is convex, so the
 * whole outline is then inside). */
static int inside_box(const un_frings *p, const double box[4], double pad)
{
    int32_t i, n = un_frings_npts(p);
    for (i = 0; i < n; i++) {
        double x = p->xy[2 * i], y = p->xy[2 * i + 1];
        if (x < box[0] + pad - TOL || x > box[2] - pad + TOL || y < box[1] + pad - TOL || y > box[3] - pad + TOL)
            return 0;
    }
    return 1;
}

/* Check a layout: islands inside the target with the padding, in a valid
 * bin, at the fixed scale if any; pairs in one bin and islands against the
 * locked ones (bin 0) at least the margin apart.  Returns the violations. */
static int check_layout(const un_frings *isl, int32_t n, const un_transform *t, const un_frings *locked,
                        int32_t nlocked, const un_pack_options *o)
{
    un_frings *placed = (un_frings *)calloc((size_t)n + 1, sizeof *placed);
    int32_t i, j, bins = o->fixed_scale > 0 ? o->max_bins : 1;
    int bad = 0;
    if (!placed) abort();
    for (i = 0; i < n; i++) apply_transform(isl + i, t + i, placed + i);
    for (i = 0; i < n; i++) {
        int ok_bin = t[i].bin >= 0 && t[i].bin < bins;
        int ok_in = inside_box(placed + i, o->target, o->padding);
        int ok_scale = o->fixed_scale > 0 ? fabs(t[i].scale - o->fixed_scale) <= 1e-12 * o->fixed_scale
                                          : t[i].scale > 0 && isfinite(t[i].scale);
        CHECK_MSG(ok_bin, "island %d in bin %d of %d", (int)i, (int)t[i].bin, (int)bins);
        CHECK_MSG(ok_in, "island %d leaves the target (padding %g)", (int)i, o->padding);
        CHECK_MSG(ok_scale, "island %d at scale %.17g (fixed %.17g)", (int)i, t[i].scale, o->fixed_scale);
        bad += !ok_bin + !ok_in + !ok_scale;
        for (j = 0; j < i; j++) {
            double d;
            if (t[i].bin != t[j].bin) continue;
            d = outline_distance(placed + i, placed + j);
            CHECK_MSG(d >= o->margin - TOL, "islands %d and %d are %.9g apart, margin %g", (int)j, (int)i, d,
                      o->margin);
            bad += !(d >= o->margin - TOL);
        }
        for (j = 0; j < nlocked && t[i].bin == 0; j++) {
            double d = outline_distance(placed + i, locked + j);
            CHECK_MSG(d >= o->margin - TOL, "island %d is %.9g from locked island %d, margin %g", (int)i, d,
                      (int)j, o->margin);
            bad += !(d >= o->margin - TOL);
        }
    }
    free_all(placed, n);
    free(placed);
    return bad;
}

/* Share of the target covered by the islands (true areas) in layout t,
 * over the bins it uses. */
static double coverage_of(const double *area, int32_t n, const un_transform *t, const un_pack_options *o)
{
    double cover = 0, tile = (o->target[2] - o->target[0]) * (o->target[3] - o->target[1]);
    int32_t i, bins = 0;
    for (i = 0; i < n; i++) {
        cover += area[i] * t[i].scale * t[i].scale;
        if (t[i].bin + 1 > bins) bins = t[i].bin + 1;
    }
    return cover / (tile * bins);
}

/* ========================================================= packer helpers */

static un_pack_options fit_options(void)
{
    return pack_options(12345, 16.0 * 1024 * 1024);
}

/* A packer with islands isl[0..n) (areas from the outlines) added. */
static un_packer *new_packer(const un_pack_options *o, const un_frings *isl, int32_t n)
{
    un_packer *pk = NULL;
    int32_t i;
    CHECK_OK(un_packer_new(o, &pk));
    if (!pk) return NULL;
    for (i = 0; i < n; i++) CHECK_OK(un_packer_add_island(pk, isl + i, fabs(tu_frings_area(isl + i))));
    return pk;
}

static void areas_of(const un_frings *isl, int32_t n, double *area)
{
    int32_t i;
    for (i = 0; i < n; i++) area[i] = fabs(tu_frings_area(isl + i));
}

/* Five rectangles and an L, away from the origin (transforms must carry
 * the islands' own offsets). */
static int32_t mixed_islands(un_frings *isl)
{
    int32_t i;
    for (i = 0; i < 6; i++) un_frings_init(isl + i);
    ring_rect(isl + 0, 3, 1, 2, 1);
    ring_rect(isl + 1, -4, 2, 1, 1);
    ring_rect(isl + 2, 0, 0, 1.5, 0.5);
    ring_rect(isl + 3, 10, 10, 0.7, 0.7);
    ring_rect(isl + 4, -1, -7, 3, 0.4);
    ring_L(isl + 5, 5, -5, 0.6);
    return 6;
}

/* ============================================================ rng.c */

/* PCG32 (XSH RR 64/32) written from O'Neill's reference pcg32_random_r and
 * pcg32_srandom_r. */
typedef struct {
    uint64_t state, inc;
} ref_pcg;

static uint32_t ref_next(ref_pcg *r)
{
    uint64_t old = r->state;
    uint32_t x = (uint32_t)(((old >> 18u) ^ old) >> 27u), rot = (uint32_t)(old >> 59u);
    r->state = old * 6364136223846793005ULL + r->inc;
    return (x >> rot) | (x << ((-rot) & 31));
}

static void ref_seed(ref_pcg *r, uint64_t initstate, uint64_t initseq)
{
    r->state = 0U;
    r->inc = (initseq << 1u) | 1u;
    ref_next(r);
    r->state += initstate;
    ref_next(r);
}

/* un_rng is PCG32: the published first outputs for seed 42, stream 54, and
 * the reference implementation for other seeds and streams. */
static void test_rng_is_pcg32(void)
{
    static const uint32_t published[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                          0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    const uint64_t seeds[4] = {0, 1, 0x5eed, 0xffffffffffffffffULL};
    un_rng g;
    ref_pcg r;
    int i, k;
    un_rng_seed(&g, 42, 54);
    for (i = 0; i < 6; i++) CHECK_EQ(un_rng_u32(&g), published[i]);
    for (k = 0; k < 4; k++) {
        un_rng_seed(&g, seeds[k], seeds[3 - k]);
        ref_seed(&r, seeds[k], seeds[3 - k]);
        for (i = 0; i < 1000; i++) CHECK_EQ(un_rng_u32(&g), ref_next(&r));
    }
}

/* unit() is in [0, 1) and built from two outputs (53 bits); below(n) is in
 * [0, n), roughly uniform, and 0 for n = 1; same seed, same sequence. */
static void test_rng_ranges(void)
{
    un_rng g, h;
    ref_pcg r;
    int32_t i, count[10] = {0};
    const int32_t bounds[6] = {1, 2, 3, 7, 1000003, INT32_MAX};
    const int32_t third = 3 << 29; /* 2^32 mod this = 2^30: a quarter of the draws are redrawn */
    int32_t thirds[3] = {0, 0, 0};
    un_rng_seed(&g, 7, 11);
    ref_seed(&r, 7, 11);
    for (i = 0; i < 10000; i++) {
        double u = un_rng_unit(&g);
        uint64_t hi = ref_next(&r) >> 5, lo = ref_next(&r) >> 6;
        CHECK(u >= 0 && u < 1);
        CHECK(u == (double)(hi * 67108864u + lo) / 9007199254740992.0);
    }
    for (i = 0; i < 6; i++) {
        int32_t j;
        for (j = 0; j < 2000; j++) {
            int32_t v = un_rng_below(&g, bounds[i]);
            CHECK(v >= 0 && v < bounds[i]);
        }
    }
    for (i = 0; i < 30000; i++) {
        int32_t v = un_rng_below(&g, third);
        CHECK(v >= 0 && v < third);
        thirds[v >> 29]++;
    }
    for (i = 0; i < 3; i++) CHECK_MSG(thirds[i] > 9400 && thirds[i] < 10600, "third %d: %d", (int)i, (int)thirds[i]);
    for (i = 0; i < 100000; i++) count[un_rng_below(&g, 10)]++;
    for (i = 0; i < 10; i++) CHECK_MSG(count[i] > 9400 && count[i] < 10600, "bucket %d: %d", (int)i, (int)count[i]);
    un_rng_seed(&g, 99, 3);
    un_rng_seed(&h, 99, 3);
    for (i = 0; i < 100; i++) CHECK_EQ(un_rng_below(&g, 1000), un_rng_below(&h, 1000));
    un_rng_seed(&h, 99, 4); /* another stream: another sequence */
    un_rng_seed(&g, 99, 3);
    for (i = 0, count[0] = 0; i < 100; i++) count[0] += un_rng_u32(&g) == un_rng_u32(&h);
    CHECK(count[0] < 5);
}

/* ===================================================== components.c */

/* Labels by flood fill, numbered in order of each component's smallest node. */
static void ref_components(int32_t n, const int32_t *a, const int32_t *b, int32_t npairs, int32_t *label,
                           int32_t *ncomp)
{
    static unsigned char adj[64][64];
    int32_t stack[64], i, k, top;
    memset(adj, 0, sizeof adj);
    for (k = 0; k < npairs; k++) adj[a[k]][b[k]] = adj[b[k]][a[k]] = 1;
    for (i = 0; i < n; i++) label[i] = -1;
    *ncomp = 0;
    for (i = 0; i < n; i++) {
        if (label[i] >= 0) continue;
        label[i] = *ncomp;
        stack[0] = i;
        top = 1;
        while (top) {
            int32_t v = stack[--top], w;
            for (w = 0; w < n; w++)
                if (adj[v][w] && label[w] < 0) { label[w] = *ncomp; stack[top++] = w; }
        }
        (*ncomp)++;
    }
}

/* A hand example, then random graphs against the flood fill. */
static void test_components(void)
{
    const int32_t a[4] = {4, 1, 5, 6}, b[4] = {2, 4, 3, 6}; /* {0} {1 2 4} {3 5} {6} */
    const int32_t want[7] = {0, 1, 1, 2, 1, 2, 3};
    int32_t label[64], ref[64], pa[80], pb[80], nc = -1, rc, t, i;
    uint64_t seed = 17;
    CHECK_OK(un_components(7, a, b, 4, label, &nc));
    CHECK_EQ(nc, 4);
    for (i = 0; i < 7; i++) CHECK_EQ(label[i], want[i]);
    CHECK_OK(un_components(0, a, b, 0, label, &nc));
    CHECK_EQ(nc, 0);
    for (t = 0; t < 200; t++) {
        int32_t n = (int32_t)tu_range(&seed, 1, 64), np = (int32_t)tu_range(&seed, 0, 80);
        for (i = 0; i < np; i++) {
            pa[i] = (int32_t)tu_range(&seed, 0, n - 1);
            pb[i] = (int32_t)tu_range(&seed, 0, n - 1);
        }
        CHECK_OK(un_components(n, pa, pb, np, label, &nc));
        ref_components(n, pa, pb, np, ref, &rc);
        CHECK_EQ(nc, rc);
        for (i = 0; i < n; i++) CHECK_EQ(label[i], ref[i]);
    }
}

/* Out-of-range nodes and a negative count are invalid. */
static void test_components_invalid(void)
{
    const int32_t a[1] = {0}, bad_hi[1] = {3}, bad_lo[1] = {-1};
    int32_t label[3], nc;
    CHECK_STATUS(un_components(3, a, bad_hi, 1, label, &nc), UN_EINVAL);
    CHECK_STATUS(un_components(3, bad_lo, a, 1, label, &nc), UN_EINVAL);
    CHECK_STATUS(un_components(-1, a, a, 0, label, &nc), UN_EINVAL);
}

/* =========================================================== pow2.c */

/* Pack random power-of-two squares into layers of side `layer` and check
 * with a raster: inside the layer, no cell twice, every layer but the last
 * full, and as few layers as the area allows. */
static void pow2_raster_case(uint64_t *seed, int64_t layer, int32_t n)
{
    int64_t sizes[300], xyl[900], total = 0, cells = layer * layer;
    int32_t nl = -1, i, le = 0, bad = 0;
    unsigned char *raster;
    while (((int64_t)1 << le) < layer) le++;
    for (i = 0; i < n; i++) {
        sizes[i] = (int64_t)1 << tu_range(seed, 0, le);
        total += sizes[i] * sizes[i];
    }
    CHECK_OK(un_pack_pow2(sizes, n, layer, xyl, &nl));
    CHECK_EQ(nl, (total + cells - 1) / cells);
    if (nl <= 0) return;
    raster = (unsigned char *)calloc((size_t)nl * (size_t)cells, 1);
    if (!raster) abort();
    for (i = 0; i < n && !bad; i++) {
        int64_t x0 = xyl[3 * i], y0 = xyl[3 * i + 1], l = xyl[3 * i + 2], x, y;
        if (x0 < 0 || y0 < 0 || x0 + sizes[i] > layer || y0 + sizes[i] > layer || l < 0 || l >= nl) {
            CHECK_MSG(0, "square %d (%lld) at (%lld, %lld) layer %lld is outside", (int)i, (long long)sizes[i],
                      (long long)x0, (long long)y0, (long long)l);
            bad = 1;
            break;
        }
        CHECK_MSG(x0 % sizes[i] == 0 && y0 % sizes[i] == 0, "square %d is not aligned", (int)i);
        for (y = y0; y < y0 + sizes[i]; y++)
            for (x = x0; x < x0 + sizes[i]; x++) {
                unsigned char *c = raster + l * cells + y * layer + x;
                if (*c) bad = 1;
                *c = 1;
            }
        CHECK_MSG(!bad, "square %d overlaps another", (int)i);
    }
    if (!bad) {
        int64_t l, c;
        for (l = 0; l + 1 < nl; l++) {
            for (c = 0; c < cells && raster[l * cells + c]; c++) continue;
            CHECK_MSG(c == cells, "layer %lld of %d is not full", (long long)l, (int)nl);
        }
    }
    free(raster);
}

static void test_pow2_zero_waste(void)
{
    uint64_t seed = 2024;
    const int64_t layers[5] = {1, 2, 8, 32, 64};
    int32_t t, k;
    for (k = 0; k < 5; k++)
        for (t = 0; t < 12; t++) pow2_raster_case(&seed, layers[k], (int32_t)tu_range(&seed, 1, 300));
}

/* A layer of 2^30 (too large for a raster): interval arithmetic. */
static void test_pow2_large_layer(void)
{
    const int64_t G = (int64_t)1 << 30;
    int64_t sizes[9], xyl[27];
    int32_t nl, i, j;
    sizes[0] = G >> 1;
    sizes[1] = 1;
    sizes[2] = G >> 1;
    sizes[3] = G;
    sizes[4] = G >> 1;
    sizes[5] = 1 << 10;
    sizes[6] = G >> 1;
    sizes[7] = 1;
    sizes[8] = G >> 20;
    CHECK_OK(un_pack_pow2(sizes, 9, G, xyl, &nl));
    CHECK_EQ(nl, 3); /* G^2 + 4 (G/2)^2 = 2 layers, then the small ones */
    CHECK_EQ(xyl[3 * 3 + 2], 0); /* the largest first */
    for (i = 0; i < 9; i++) {
        CHECK(xyl[3 * i] >= 0 && xyl[3 * i] + sizes[i] <= G);
        CHECK(xyl[3 * i + 1] >= 0 && xyl[3 * i + 1] + sizes[i] <= G);
        for (j = 0; j < i; j++) {
            int overlap = xyl[3 * i + 2] == xyl[3 * j + 2] && xyl[3 * i] < xyl[3 * j] + sizes[j] &&
                          xyl[3 * j] < xyl[3 * i] + sizes[i] && xyl[3 * i + 1] < xyl[3 * j + 1] + sizes[j] &&
                          xyl[3 * j + 1] < xyl[3 * i + 1] + sizes[i];
            CHECK_MSG(!overlap, "squares %d and %d overlap", (int)j, (int)i);
        }
    }
}

/* Sizes and layers that are not powers of two, sizes above the layer, a
 * layer above 2^30, a negative count: UN_EINVAL and no layers. */
static void test_pow2_invalid(void)
{
    const int64_t ok1[1] = {4}, three[1] = {3}, zero[1] = {0}, neg[1] = {-4}, big[1] = {16};
    int64_t xyl[3];
    int32_t nl;
    nl = 7;
    CHECK_OK(un_pack_pow2(ok1, 0, 8, xyl, &nl));
    CHECK_EQ(nl, 0);
    nl = 7;
    CHECK_STATUS(un_pack_pow2(three, 1, 8, xyl, &nl), UN_EINVAL);
    CHECK_EQ(nl, 0);
    CHECK_STATUS(un_pack_pow2(zero, 1, 8, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(neg, 1, 8, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(big, 1, 8, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(ok1, 1, 12, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(ok1, 1, 0, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(ok1, 1, -8, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(ok1, 1, (int64_t)1 << 31, xyl, &nl), UN_EINVAL);
    CHECK_STATUS(un_pack_pow2(ok1, -1, 8, xyl, &nl), UN_EINVAL);
    CHECK_OK(un_pack_pow2(ok1, 1, 4, xyl, &nl)); /* a square as large as the layer */
    CHECK_EQ(nl, 1);
    CHECK(xyl[0] == 0 && xyl[1] == 0 && xyl[2] == 0);
}

/* ========================================================= skyline.c */

typedef struct {
    double x, y, w, h;
} box2;

/* Height a w-wide rectangle rests at with its left side at x: the highest
 * top of the placed rectangles it overlaps horizontally. */
static double ref_rest(const box2 *r, int32_t n, double x, double w)
{
    double y = 0;
    int32_t i;
    for (i = 0; i < n; i++)
        if (r[i].x < x + w && x < r[i].x + r[i].w && r[i].y + r[i].h > y) y = r[i].y + r[i].h;
    return y;
}

/* Brute force: lowest, then leftmost, then unturned place; the leftmost
 * lowest place always has its left side at 0 or at a placed right side. */
static int ref_place(const box2 *r, int32_t n, double W, double H, double w, double h, int rot, double *bx,
                     double *by, int *brot)
{
    int32_t i, o, found = 0;
    for (o = 0; o < (rot ? 2 : 1); o++) {
        double rw = o ? h : w, rh = o ? w : h;
        for (i = -1; i < n; i++) {
            double x = i < 0 ? 0 : r[i].x + r[i].w, y;
            if (x + rw > W) continue;
            y = ref_rest(r, n, x, rw);
            if (y + rh > H) continue;
            if (!found || y < *by || (y == *by && x < *bx)) {
                *bx = x;
                *by = y;
                *brot = o;
                found = 1;
            }
        }
    }
    return found;
}

/* A hand example: resting on the skyline, turning to fit, refusing. */
static void test_skyline_basic(void)
{
    un_skyline *s = un_skyline_new();
    double x = -1, y = -1;
    int rot = -1;
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(un_skyline_reset(s, 10, 10));
    CHECK(un_skyline_place(s, 4, 2, 0, 0, &x, &y, &rot) && x == 0 && y == 0 && rot == 0);
    CHECK_OK(un_skyline_add(s, 0, 0, 4, 2));
    CHECK(un_skyline_place(s, 6, 3, 0, 0, &x, &y, &rot) && x == 4 && y == 0);
    CHECK_OK(un_skyline_add(s, 4, 0, 6, 3));
    CHECK(un_skyline_place(s, 3, 1, 1, 0, &x, &y, &rot) && x == 0 && y == 2 && rot == 0);
    CHECK_OK(un_skyline_add(s, 0, 2, 3, 1));
    /* skyline now [0,3)@3 [3,4)@2 [4,10)@3: a 1-wide slot at x = 3 */
    CHECK(un_skyline_place(s, 1, 5, 0, 0, &x, &y, &rot) && x == 3 && y == 2);
    /* 2 x 9.5 only fits turned */
    CHECK(un_skyline_place(s, 2, 9.5, 0, 0, &x, &y, &rot) == 0);
    CHECK(un_skyline_place(s, 2, 9.5, 1, 0, &x, &y, &rot) && x == 0 && y == 3 && rot == 1);
    CHECK(un_skyline_place(s, 11, 1, 1, 0, &x, &y, &rot) == 0);
    /* a rectangle added inside a segment splits it */
    CHECK_OK(un_skyline_reset(s, 10, 10));
    CHECK_OK(un_skyline_add(s, 2, 0, 3, 1)); /* [0,2)@0 [2,5)@1 [5,10)@0 */
    CHECK(un_skyline_place(s, 2, 1, 0, 0, &x, &y, &rot) && x == 0 && y == 0);
    CHECK(un_skyline_place(s, 3, 1, 0, 0, &x, &y, &rot) && x == 5 && y == 0);
    CHECK(un_skyline_place(s, 6, 1, 0, 0, &x, &y, &rot) && x == 0 && y == 1);
    CHECK_OK(un_skyline_add(s, 3, 1, 1, 2)); /* [0,2)@0 [2,3)@1 [3,4)@3 [4,5)@1 [5,10)@0 */
    CHECK(un_skyline_place(s, 6, 1, 0, 0, &x, &y, &rot) && x == 4 && y == 1);
    /* reset empties it */
    CHECK_OK(un_skyline_reset(s, 5, 20));
    CHECK(un_skyline_place(s, 5, 20, 0, 0, &x, &y, &rot) && x == 0 && y == 0);
    CHECK(un_skyline_place(s, 5.5, 1, 0, 0, &x, &y, &rot) == 0);
    un_skyline_free(s);
    un_skyline_free(NULL);
}

/* The best-fit rule: the place leaving the least area empty under the
 * rectangle, where bottom-left takes the lowest. */
static void test_skyline_best_fit(void)
{
    un_skyline *s = un_skyline_new();
    double x = -1, y = -1;
    int rot = -1;
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(un_skyline_reset(s, 10, 10));
    CHECK_OK(un_skyline_add(s, 0, 0, 3, 2));
    CHECK_OK(un_skyline_add(s, 4, 0, 6, 1)); /* [0,3)@2 [3,4)@0 [4,10)@1 */
    /* a 3 x 1: at x = 3 it rests at 1 over the 1 x 1 pit, at x = 4 at 1
     * on a flat segment, at x = 0 at 2 on a flat one */
    CHECK(un_skyline_place(s, 3, 1, 0, 0, &x, &y, &rot) && x == 3 && y == 1);
    CHECK(un_skyline_place(s, 3, 1, 0, 1, &x, &y, &rot) && x == 4 && y == 1);
    /* turning allowed: of the places without waste the lowest, turned
     * (1 x 3) into the pit */
    CHECK(un_skyline_place(s, 3, 1, 1, 1, &x, &y, &rot) && x == 3 && y == 0 && rot == 1);
    /* a 7 x 1 leaves area empty wherever it goes: at x = 0 5, at x = 3 1
     * (the pit) */
    CHECK(un_skyline_place(s, 7, 1, 0, 1, &x, &y, &rot) && x == 3 && y == 1);
    CHECK(un_skyline_place(s, 11, 1, 0, 1, &x, &y, &rot) == 0);
    un_skyline_free(s);
}

/* A w x h rectangle placed at (x, y) lies inside the W x H container and
 * overlaps none of the n rectangles r placed before it. */
static void check_placed(const box2 *r, int32_t n, double x, double y, double w, double h, double W, double H)
{
    int32_t i;
    CHECK(x >= 0 && y >= 0 && x + w <= W && y + h <= H);
    for (i = 0; i < n; i++)
        CHECK_MSG(!(r[i].x < x + w && x < r[i].x + r[i].w && r[i].y < y + h && y < r[i].y + r[i].h),
                  "overlaps rectangle %d", (int)i);
}

/* ========================================================= shelves.c */

/* A hand example: a new shelf per rectangle that fits no shelf, lying flat;
 * standing up on a taller shelf when that leaves less empty; first fit and
 * best fit; refusing what fits neither a shelf nor the room on top. */
static void test_shelves_basic(void)
{
    un_shelves *s = un_shelves_new();
    double x = -1, y = -1;
    int rot = -1, placed = -1;
    CHECK(s != NULL);
    if (!s) return;
    un_shelves_reset(s, 10, 10);
    /* 2 x 4 lies flat: the first shelf is 2 tall */
    CHECK_OK(un_shelves_place(s, 2, 4, 1, 0, &x, &y, &rot, &placed));
    CHECK(placed && x == 0 && y == 0 && rot == 1);
    /* without turns it opens a shelf as it is, on top */
    CHECK_OK(un_shelves_place(s, 2, 4, 0, 0, &x, &y, &rot, &placed));
    CHECK(placed && x == 0 && y == 2 && rot == 0);
    /* 1 x 3: on the 2-tall shelf (first fit), at height 1 (turned, waste
     * 1 * 3) or 3 > 2 (does not fit upright there) */
    CHECK_OK(un_shelves_place(s, 1, 3, 1, 0, &x, &y, &rot, &placed));
    CHECK(placed && x == 4 && y == 0 && rot == 1);
    /* 1 x 4 by best fit: standing on the 4-tall shelf wastes nothing */
    CHECK_OK(un_shelves_place(s, 1, 4, 1, 1, &x, &y, &rot, &placed));
    CHECK(placed && x == 2 && y == 2 && rot == 0);
    /* shelves 2 and 4 tall take 6 of 10: a 5 x 5 has no room */
    CHECK_OK(un_shelves_place(s, 5, 5, 1, 0, &x, &y, &rot, &placed));
    CHECK(!placed);
    /* wider than the container lying flat: stands up */
    un_shelves_reset(s, 3, 20);
    CHECK_OK(un_shelves_place(s, 1, 5, 1, 0, &x, &y, &rot, &placed));
    CHECK(placed && x == 0 && y == 0 && rot == 0);
    un_shelves_free(s);
    un_shelves_free(NULL);
}

/* Random rectangles (integer sizes) until the container is full, by both
 * rules, with and without turns: every one placed lies inside, overlapping
 * no earlier one; one refused fits no shelf's room and not on top. */
static void test_shelves_random(void)
{
    uint64_t seed = 91;
    int32_t trial;
    for (trial = 0; trial < 20; trial++) {
        const double W = (double)tu_range(&seed, 20, 120), H = (double)tu_range(&seed, 20, 120);
        box2 r[400];
        int32_t n = 0, attempt, i;
        int rot = trial % 2, fit = trial / 2 % 2;
        un_shelves *s = un_shelves_new();
        if (!s) abort();
        un_shelves_reset(s, W, H);
        for (attempt = 0; attempt < 400 && n < 400; attempt++) {
            double w = (double)tu_range(&seed, 1, 30), h = (double)tu_range(&seed, 1, 30), x, y, top = 0;
            int turned = 0, placed = 0;
            CHECK_OK(un_shelves_place(s, w, h, rot, fit, &x, &y, &turned, &placed));
            if (!placed) {
                for (i = 0; i < n; i++)
                    if (r[i].y + r[i].h > top) top = r[i].y + r[i].h;
                /* refused: no room on top (the last shelf's top is that of
                 * the rectangle that opened it), either way it may lie */
                CHECK(!((w <= W && top + h <= H) || (rot && h <= W && top + w <= H)));
                continue;
            }
            CHECK(!turned || rot);
            if (turned) { double t = w; w = h; h = t; }
            check_placed(r, n, x, y, w, h, W, H);
            r[n].x = x; r[n].y = y; r[n].w = w; r[n].h = h;
            n++;
        }
        CHECK(n > 3);
        un_shelves_free(s);
    }
}

/* Random rectangles (integer sizes: exact arithmetic) until the container
 * is full: every bottom-left placement is the brute-force one; by either
 * rule a rectangle fits exactly when the brute force finds a place (the
 * rules choose among the same places), and lies inside, overlapping no
 * earlier rectangle. */
static void test_skyline_random(void)
{
    uint64_t seed = 77;
    int32_t trial;
    for (trial = 0; trial < 20; trial++) {
        const double W = (double)tu_range(&seed, 20, 120), H = (double)tu_range(&seed, 20, 120);
        box2 r[400];
        int32_t n = 0, attempt;
        un_skyline *s = un_skyline_new();
        if (!s) abort();
        CHECK_OK(un_skyline_reset(s, W, H));
        for (attempt = 0; attempt < 400 && n < 400; attempt++) {
            double w = (double)tu_range(&seed, 1, 30), h = (double)tu_range(&seed, 1, 30), x, y, rx = 0, ry = 0;
            int rot = (int)tu_range(&seed, 0, 1), fit = trial % 2 && tu_range(&seed, 0, 1), turned = 0, rturned = 0;
            int got = un_skyline_place(s, w, h, rot, fit, &x, &y, &turned);
            int want = ref_place(r, n, W, H, w, h, rot, &rx, &ry, &rturned);
            CHECK_EQ(got, want);
            if (!got || !want) continue;
            if (!fit)
                CHECK_MSG(x == rx && y == ry && turned == rturned, "placed at (%g, %g)%s, expected (%g, %g)%s", x, y,
                          turned ? " turned" : "", rx, ry, rturned ? " turned" : "");
            if (turned) { double t = w; w = h; h = t; }
            check_placed(r, n, x, y, w, h, W, H);
            CHECK_OK(un_skyline_add(s, x, y, w, h));
            r[n].x = x; r[n].y = y; r[n].w = w; r[n].h = h;
            n++;
        }
        CHECK(n > 3);
        un_skyline_free(s);
    }
}

/* ======================================================== nfpcache.c */

static un_nfpkey make_key(int32_t i, int32_t k, int32_t fi, int32_t fk, int32_t da, int32_t si, int32_t sk)
{
    un_nfpkey key;
    key.i = i; key.k = k; key.fi = fi; key.fk = fk; key.da = da; key.si = si; key.sk = sk;
    key.vi = key.vk = 0;
    return key;
}

/* A rectangle (-1, -1 - v) .. (2v + 1, 1), tagged by v through its box. */
static void tagged_rings(un_rings *r, int64_t v)
{
    un_rings_init(r);
    tu_box(r, -1, -1 - v, 2 * v + 1, 1);
}

/* get after put returns the stored rings (ownership taken, bbox set); each
 * key field distinguishes entries; hits and misses are counted; clear
 * empties the cache. */
static void test_nfpcache_basic(void)
{
    un_nfpcache *c = un_nfpcache_new(1 << 20);
    const un_nfpval *v = NULL, *w;
    un_nfpkey keys[10];
    un_rings r;
    int32_t i;
    if (!c) { CHECK(0); return; }
    keys[0] = make_key(0, 1, 0, 0, 0, 0, 0);
    keys[1] = make_key(1, 1, 0, 0, 0, 0, 0);
    keys[2] = make_key(0, 2, 0, 0, 0, 0, 0);
    keys[3] = make_key(0, 1, 1, 0, 0, 0, 0);
    keys[4] = make_key(0, 1, 0, 1, 0, 0, 0);
    keys[5] = make_key(0, 1, 0, 0, 3, 0, 0);
    keys[6] = make_key(0, 1, 0, 0, 0, 2, 0);
    keys[7] = make_key(-3, 1, 0, 0, 0, 0, 5);
    /* the versions of contact orientations: another angle at one index */
    keys[8] = make_key(0, 1, 0, 0, 0, 0, 0);
    keys[8].vi = 1;
    keys[9] = make_key(0, 1, 0, 0, 0, 0, 0);
    keys[9].vk = 1;
    CHECK(un_nfpcache_get(c, keys + 0) == NULL);
    CHECK_EQ(un_nfpcache_misses(c), 1);
    for (i = 0; i < 10; i++) {
        tagged_rings(&r, i);
        CHECK_OK(un_nfpcache_put(c, keys + i, &r, &v));
        CHECK_EQ(r.nrings, 0); /* taken over */
        CHECK(v != NULL && v->rings.nrings == 1);
        if (v) CHECK(v->lo.x == -1 && v->lo.y == -1 - i && v->hi.x == 2 * i + 1 && v->hi.y == 1);
        un_rings_free(&r);
        un_nfpcache_release(c);
    }
    for (i = 0; i < 10; i++) {
        w = un_nfpcache_get(c, keys + i);
        CHECK(w != NULL);
        if (w) CHECK_EQ(w->hi.x, 2 * i + 1);
    }
    CHECK_EQ(un_nfpcache_hits(c), 10);
    CHECK(un_nfpcache_bytes(c) > 0);
    un_nfpcache_clear(c);
    CHECK_EQ(un_nfpcache_bytes(c), 0);
    CHECK(un_nfpcache_get(c, keys + 3) == NULL);
    un_nfpcache_free(c);
    un_nfpcache_free(NULL);
}

/* Entries are the same size here: measure one, then a budget of three. */
static size_t entry_bytes(void)
{
    un_nfpcache *c = un_nfpcache_new(1 << 20);
    un_nfpkey key = make_key(0, 0, 0, 0, 0, 0, 0);
    const un_nfpval *v;
    un_rings r;
    size_t b;
    if (!c) abort();
    tagged_rings(&r, 1);
    CHECK_OK(un_nfpcache_put(c, &key, &r, &v));
    un_rings_free(&r);
    b = un_nfpcache_bytes(c);
    un_nfpcache_free(c);
    return b;
}

/* Least recently used entries go first, the budget (or a new one) holds
 * once released; entries handed out since the last release are never
 * evicted. */
static void test_nfpcache_eviction(void)
{
    size_t e = entry_bytes();
    un_nfpcache *c = un_nfpcache_new(3 * e + e / 2);
    const un_nfpval *v, *pinned[6];
    un_nfpkey key[6];
    un_rings r;
    int32_t i;
    if (!c) abort();
    for (i = 0; i < 6; i++) key[i] = make_key(i, 0, 0, 0, 0, 0, 0);
    for (i = 0; i < 3; i++) { /* A, B, C */
        tagged_rings(&r, 1);
        CHECK_OK(un_nfpcache_put(c, key + i, &r, &v));
        un_nfpcache_release(c);
    }
    CHECK(un_nfpcache_get(c, key + 0) != NULL); /* A is now the most recent */
    un_nfpcache_release(c);
    tagged_rings(&r, 1);
    CHECK_OK(un_nfpcache_put(c, key + 3, &r, &v)); /* D evicts B */
    un_nfpcache_release(c);
    CHECK(un_nfpcache_bytes(c) <= 3 * e + e / 2);
    CHECK(un_nfpcache_get(c, key + 1) == NULL);
    CHECK(un_nfpcache_get(c, key + 0) != NULL);
    CHECK(un_nfpcache_get(c, key + 2) != NULL);
    CHECK(un_nfpcache_get(c, key + 3) != NULL);
    un_nfpcache_release(c);
    /* pinned: six entries held at once stay, over the budget */
    un_nfpcache_clear(c);
    for (i = 0; i < 6; i++) {
        tagged_rings(&r, i);
        CHECK_OK(un_nfpcache_put(c, key + i, &r, pinned + i));
    }
    CHECK(un_nfpcache_bytes(c) > 3 * e + e / 2);
    for (i = 0; i < 6; i++) CHECK_EQ(pinned[i]->hi.x, 2 * i + 1); /* still valid (ASan would catch a free) */
    un_nfpcache_release(c);
    /* released: the next entry evicts the oldest down to the budget */
    key[0] = make_key(9, 9, 0, 0, 0, 0, 0);
    tagged_rings(&r, 1);
    CHECK_OK(un_nfpcache_put(c, key + 0, &r, &v));
    CHECK(un_nfpcache_bytes(c) <= 3 * e + e / 2);
    CHECK(un_nfpcache_get(c, key + 5) != NULL);
    CHECK(un_nfpcache_get(c, key + 1) == NULL);
    un_nfpcache_release(c);
    /* a smaller budget (the packer's, once the as-given search takes its
     * share) holds from the next entry on */
    un_nfpcache_set_budget(c, e + e / 2);
    CHECK(un_nfpcache_bytes(c) > e + e / 2);
    key[1] = make_key(9, 8, 0, 0, 0, 0, 0);
    tagged_rings(&r, 1);
    CHECK_OK(un_nfpcache_put(c, key + 1, &r, &v));
    un_nfpcache_release(c);
    CHECK(un_nfpcache_bytes(c) <= e + e / 2);
    CHECK(un_nfpcache_get(c, key + 1) != NULL);
    CHECK(un_nfpcache_get(c, key + 5) == NULL);
    un_nfpcache_free(c);
}

/* Thousands of entries: the table grows and every entry stays reachable. */
static void test_nfpcache_grow(void)
{
    un_nfpcache *c = un_nfpcache_new((size_t)1 << 30);
    const un_nfpval *v;
    un_rings r;
    int32_t i, found = 0;
    if (!c) abort();
    for (i = 0; i < 3000; i++) {
        un_nfpkey key = make_key(i % 37, i / 37, i & 1, 0, i % 5, 0, 0);
        tagged_rings(&r, i % 100);
        CHECK_OK(un_nfpcache_put(c, &key, &r, &v));
        un_nfpcache_release(c);
    }
    for (i = 0; i < 3000; i++) {
        un_nfpkey key = make_key(i % 37, i / 37, i & 1, 0, i % 5, 0, 0);
        v = un_nfpcache_get(c, &key);
        found += v != NULL && v->hi.x == 2 * (i % 100) + 1;
    }
    CHECK_EQ(found, 3000);
    un_nfpcache_free(c);
}

/* ========================================================== island.c */

/* Orientation matrices are rotations (det +1) or mirrored rotations (det
 * -1) by base + angles[a]; un_island_bbox bounds the turned, shrunk shape;
 * un_rings_transform keeps rings counter-clockwise under a mirror;
 * un_bbox_transform bounds the image of a box. */
static void test_island_transforms(void)
{
    const double angles[3] = {0, 0.7, 2.0};
    un_orients os;
    un_island is;
    un_rings tri, out;
    int64_t tri_xy[6] = {0, 0, 40, 0, 10, 30};
    int32_t o, i;
    memset(&is, 0, sizeof is);
    un_frings_init(&is.shape);
    ring_L(&is.shape, 2, 3, 1.5);
    is.base = 0.3;
    is.cx = 3.5;
    is.cy = 4.5;
    os.nangles = os.ngrid = 3;
    os.angles = (double *)angles;
    os.flips = 2;
    for (o = 0; o < 6; o++) {
        double m[4], th = is.base + angles[o % 3], det, q = 0.01;
        un_pt lo, hi;
        un_orient_matrix(&os, &is, o, m);
        det = m[0] * m[3] - m[1] * m[2];
        CHECK_NEAR(det, o < 3 ? 1 : -1, 1e-12);
        CHECK_NEAR(m[0] * m[0] + m[2] * m[2], 1, 1e-12);
        CHECK_NEAR(m[0] * m[1] + m[2] * m[3], 0, 1e-12);
        /* (0, 1) is never mirrored: it goes to angle th + pi/2 */
        CHECK_NEAR(m[1], -sin(th), 1e-12);
        CHECK_NEAR(m[3], cos(th), 1e-12);
        un_island_bbox(&os, &is, o, 0.5, q, &lo, &hi);
        for (i = 0; i < un_frings_npts(&is.shape); i++) {
            double x = 0.5 * (is.shape.xy[2 * i] - is.cx), y = 0.5 * (is.shape.xy[2 * i + 1] - is.cy);
            double u = (m[0] * x + m[1] * y) / q, v = (m[2] * x + m[3] * y) / q;
            CHECK(u >= (double)lo.x && u <= (double)hi.x && v >= (double)lo.y && v <= (double)hi.y);
        }
    }
    un_frings_free(&is.shape);
    /* a mirror keeps the ring counter-clockwise (reversed), points mapped */
    un_rings_init(&tri);
    un_rings_init(&out);
    tu_add(&tri, tri_xy, 3);
    {
        const double mirror[4] = {-1, 0, 0, 1}, quarter[4] = {0, -1, 1, 0};
        const int64_t want_m[6] = {5, 7, -5, 37, -35, 7}, want_q[6] = {105, 200, 105, 240, 75, 210};
        un_pt off = tu_pt(5, 7), off2 = tu_pt(105, 200), blo, bhi;
        CHECK_OK(un_rings_transform(&tri, mirror, off, &out));
        CHECK(tu_rings_area2(&out) == tu_rings_area2(&tri));
        CHECK(tu_has_ring(&out, want_m, 3));
        un_rings_clear(&out);
        CHECK_OK(un_rings_transform(&tri, quarter, off2, &out));
        CHECK(tu_has_ring(&out, want_q, 3));
        un_bbox_transform(tu_pt(0, 0), tu_pt(40, 30), quarter, off2, &blo, &bhi);
        CHECK(blo.x <= 75 && bhi.x >= 105 && blo.y <= 200 && bhi.y >= 240);
        CHECK(blo.x >= 73 && bhi.x <= 107 && blo.y >= 198 && bhi.y <= 242); /* at most a unit more each side */
    }
    un_rings_free(&tri);
    un_rings_free(&out);
}

/* ======================================================== packer: fit */

/* Start, then run in chunks: after each step the best layout is valid,
 * stats.coverage matches the layout, coverage and scale never drop,
 * `improved` says exactly when a new layout was taken, and nothing was
 * rejected by the final check. */
static void run_and_check(un_packer *pk, const un_frings *isl, int32_t n, const un_frings *locked,
                          int32_t nlocked, const un_pack_options *o, int32_t chunks, int64_t moves)
{
    un_transform *t = (un_transform *)malloc((size_t)n * sizeof *t);
    double *area = (double *)malloc((size_t)n * sizeof *area), last_cov, last_scale;
    un_pack_stats st;
    int32_t c;
    int64_t layouts;
    if (!t || !area) abort();
    areas_of(isl, n, area);
    un_packer_stats(pk, &st);
    CHECK(un_packer_best(pk, t));
    CHECK_EQ(check_layout(isl, n, t, locked, nlocked, o), 0);
    CHECK_NEAR(st.coverage, coverage_of(area, n, t, o), 1e-9);
    CHECK(st.coverage > 0 && st.coverage <= 1 + 1e-9);
    last_cov = st.coverage;
    last_scale = st.scale;
    layouts = st.layouts;
    for (c = 0; c < chunks; c++) {
        int improved = -1;
        CHECK_OK(un_packer_run(pk, moves, NULL, &improved));
        un_packer_stats(pk, &st);
        CHECK(improved == 0 || improved == 1);
        CHECK_EQ(improved, st.layouts > layouts);
        CHECK(st.coverage >= last_cov - 1e-12);
        if (o->fixed_scale <= 0) CHECK(st.scale >= last_scale);
        CHECK(un_packer_best(pk, t));
        CHECK_EQ(check_layout(isl, n, t, locked, nlocked, o), 0);
        CHECK_NEAR(st.coverage, coverage_of(area, n, t, o), 1e-9);
        if (o->fixed_scale <= 0) CHECK_NEAR(st.scale, t[0].scale, 1e-12);
        last_cov = st.coverage;
        last_scale = st.scale;
        layouts = st.layouts;
    }
    CHECK_EQ(st.rejected, 0);
    if (chunks > 0 && moves > 0 && !o->box) CHECK(st.moves > 0);
    free(t);
    free(area);
}

/* A started packer with islands isl[0..n), run and checked by
 * run_and_check (chunks of moves); NULL if it could not be made. */
static un_packer *packed(const un_pack_options *o, const un_frings *isl, int32_t n, int32_t chunks, int64_t moves)
{
    un_packer *pk = new_packer(o, isl, n);
    if (pk) {
        CHECK_OK(un_packer_start(pk, NULL));
        run_and_check(pk, isl, n, NULL, 0, o, chunks, moves);
    }
    return pk;
}

/* Rectangles and an L (away from the origin) in a unit target. */
static void test_fit_rects_and_L(void)
{
    un_frings isl[6];
    int32_t n = mixed_islands(isl);
    un_pack_options o = fit_options();
    un_packer *pk = new_packer(&o, isl, n);
    un_pack_stats st;
    if (pk) {
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK_OK(un_packer_start(pk, NULL)); /* a second start is a no-op */
        run_and_check(pk, isl, n, NULL, 0, &o, 4, 100);
        un_packer_stats(pk, &st);
        CHECK(st.coverage > 0.4); /* 6 simple shapes: a bad layout would be far below */
        CHECK_EQ(st.bins, 1);
        CHECK_EQ(st.annealed, n);
        un_packer_free(pk);
    }
    free_all(isl, n);
}

/* A target away from the origin and not square, any of 8 angles, mirrors,
 * no padding, a wider margin; L shapes only. */
static void test_fit_L_shapes_offset_target(void)
{
    const double target[4] = {-3, 2, -1, 3};
    double angles[8];
    un_frings isl[5];
    un_pack_options o = fit_options();
    un_packer *pk;
    int32_t i;
    for (i = 0; i < 8; i++) angles[i] = i * PI / 4;
    for (i = 0; i < 5; i++) {
        un_frings_init(isl + i);
        ring_L(isl + i, 0.3 * i, -i, 0.5 + 0.1 * i);
    }
    memcpy(o.target, target, sizeof target);
    o.margin = 0.03;
    o.padding = 0;
    o.nangles = 8;
    o.angles = angles;
    o.flip = 1;
    o.seed = 3;
    pk = packed(&o, isl, 5, 3, 100);
    if (pk) {
        un_packer_free(pk);
    }
    free_all(isl, 5);
}

/* One island: the orientation of its smallest bounding square (a 2 x 1
 * rectangle turned by 0.4 rad comes out axis aligned at scale 1/2 minus
 * the padding); align = 0 keeps the given angle. */
static void test_fit_single_island(void)
{
    un_frings isl[1];
    un_pack_options o = fit_options();
    un_packer *pk;
    un_transform t;
    un_frings_init(isl);
    ring_turned_rect(isl, 5, 5, 2, 1, 0.4);
    o.margin = 0;
    o.padding = 0.01;
    pk = packed(&o, isl, 1, 2, 50);
    if (pk) {
        CHECK(un_packer_best(pk, &t));
        /* the bound is (1 - 2 pad) / 2 = 0.49; the bisection gets within 0.5% */
        CHECK(t.scale <= 0.49 + 1e-9 && t.scale > 0.49 * 0.99);
        un_packer_free(pk);
    }
    o.align = 0;
    o.nangles = 1;
    pk = packed(&o, isl, 1, 1, 20);
    if (pk) {
        CHECK(un_packer_best(pk, &t));
        CHECK(t.angle == 0 && t.flip == 0);
        un_packer_free(pk);
    }
    free_all(isl, 1);
}

/* Many small islands, one annealed (a frame with a hole): the filler
 * (windows, cell index) places the rest, and in the scale search's fills
 * stops at the first one that does not fit. */
static void test_fit_filler(void)
{
    un_frings isl[25];
    un_pack_options o = fit_options();
    un_packer *pk;
    un_pack_stats st;
    uint64_t seed = 5;
    int32_t i, n = 25;
    for (i = 0; i < 24; i++) {
        un_frings_init(isl + i);
        ring_rect(isl + i, (double)i, 0, 0.05 + 0.01 * (double)tu_range(&seed, 0, 10),
                  0.05 + 0.01 * (double)tu_range(&seed, 0, 10));
    }
    un_frings_init(isl + 24);
    ring_frame(isl + 24, -5, -5, 0.5, 0.3);
    o.anneal_max = 1;
    o.margin = 0.005;
    pk = packed(&o, isl, n, 2, 10);
    if (pk) {
        un_packer_stats(pk, &st);
        CHECK_EQ(st.annealed, 1);
        un_packer_free(pk);
    }
    free_all(isl, n);
}

/* Are the transforms a[0..n) and b[0..n) the same, field by field (their
 * padding may differ)? */
static int same_transforms(const un_transform *a, const un_transform *b, int32_t n)
{
    int32_t i;
    for (i = 0; i < n; i++)
        if (a[i].angle != b[i].angle || a[i].flip != b[i].flip || a[i].scale != b[i].scale || a[i].tx != b[i].tx ||
            a[i].ty != b[i].ty || a[i].bin != b[i].bin)
            return 0;
    return 1;
}

/* Two packers with the same seed and the same calls end bit-identical;
 * so does one that makes the same number of moves in other chunks. */
static void test_fit_determinism(void)
{
    un_frings isl[6];
    int32_t n = mixed_islands(isl), k;
    un_pack_options o = fit_options();
    un_transform t[3][6];
    un_pack_stats st[3];
    for (k = 0; k < 3; k++) {
        un_packer *pk = new_packer(&o, isl, n);
        int improved;
        if (!pk) continue;
        CHECK_OK(un_packer_start(pk, NULL));
        if (k < 2) {
            CHECK_OK(un_packer_run(pk, 300, NULL, &improved));
        } else {
            CHECK_OK(un_packer_run(pk, 1, NULL, &improved));
            CHECK_OK(un_packer_run(pk, 99, NULL, &improved));
            CHECK_OK(un_packer_run(pk, 200, NULL, &improved));
        }
        CHECK(un_packer_best(pk, t[k]));
        un_packer_stats(pk, st + k);
        un_packer_free(pk);
    }
    for (k = 1; k < 3; k++) {
        CHECK(same_transforms(t[0], t[k], n));
        CHECK(st[0].moves == st[k].moves && st[0].layouts == st[k].layouts && st[0].scale == st[k].scale);
    }
    free_all(isl, n);
}

/* Start pk, then run it with *cancel set: it stops at once, UN_ECANCELLED
 * and no move made; *before: the stats after the start. */
static void check_cancelled_run(un_packer *pk, volatile int *cancel, un_pack_stats *before)
{
    un_pack_stats after;
    int improved = -1;
    CHECK_OK(un_packer_start(pk, NULL));
    un_packer_stats(pk, before);
    CHECK_STATUS(un_packer_run(pk, 1000000000, cancel, &improved), UN_ECANCELLED);
    un_packer_stats(pk, &after);
    CHECK_EQ(after.moves, before->moves);
    CHECK_EQ(improved, 0);
}

/* A cancel flag set before run (or start) stops it at once: UN_ECANCELLED
 * and no move made; a later run (or start) without it goes on. */
static void test_fit_cancel(void)
{
    un_frings isl[6];
    int32_t n = mixed_islands(isl);
    un_pack_options o = fit_options();
    un_packer *pk = new_packer(&o, isl, n);
    volatile int cancel = 1;
    un_transform t[6];
    un_pack_stats before, after;
    int improved = -1;
    if (pk) {
        check_cancelled_run(pk, &cancel, &before);
        cancel = 0;
        CHECK_OK(un_packer_run(pk, 10, &cancel, &improved));
        un_packer_stats(pk, &after);
        CHECK_EQ(after.moves, before.moves + 10);
        un_packer_free(pk);
    }
    /* a cancelled start has no layout and cannot run; started again it
     * goes on where it stopped (each cancelled call still simplifies one
     * more island) and ends with the layout of an uncancelled start */
    cancel = 1;
    pk = new_packer(&o, isl, n);
    if (pk) {
        un_packer *ref = new_packer(&o, isl, n);
        un_transform u[6];
        int32_t calls;
        CHECK_STATUS(un_packer_start(pk, &cancel), UN_ECANCELLED);
        CHECK(!un_packer_best(pk, t));
        CHECK_STATUS(un_packer_run(pk, 10, NULL, &improved), UN_EINVAL);
        for (calls = 1; calls < 2 * n && un_packer_start(pk, &cancel) == UN_ECANCELLED; calls++) {}
        CHECK(calls >= n - 1);   /* one island per call */
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK_OK(un_packer_start(pk, NULL));   /* started: nothing to do */
        if (ref) {
            CHECK_OK(un_packer_start(ref, NULL));
            CHECK(un_packer_best(pk, t) && un_packer_best(ref, u));
            CHECK(same_transforms(t, u, n));
            un_packer_free(ref);
        }
        CHECK_OK(un_packer_run(pk, 10, NULL, &improved));
        un_packer_free(pk); /* LeakSanitizer: a resumed start frees cleanly */
    }
    /* cancelled and never resumed: frees cleanly */
    pk = new_packer(&o, isl, n);
    if (pk) {
        CHECK_STATUS(un_packer_start(pk, &cancel), UN_ECANCELLED);
        un_packer_free(pk);
    }
    o.fixed_scale = 0.2;
    o.max_bins = 4;
    pk = new_packer(&o, isl, n);
    if (pk) {
        check_cancelled_run(pk, &cancel, &before);
        un_packer_free(pk);
    }
    free_all(isl, n);
}

/* Locked islands (tile coordinates, target away from the origin) stay
 * obstacles: no island comes closer than the margin to them. */
static void test_locked(void)
{
    un_frings isl[6], locked[3];
    int32_t n = mixed_islands(isl), i;
    un_pack_options o = fit_options();
    un_packer *pk;
    o.target[0] = 10;
    o.target[1] = 20;
    o.target[2] = 11;
    o.target[3] = 21;
    o.margin = 0.02;
    for (i = 0; i < 3; i++) un_frings_init(locked + i);
    ring_rect(locked + 0, 10.35, 20.35, 0.3, 0.3);     /* the middle */
    ring_L(locked + 1, 9.9, 19.9, 0.25);               /* across the corner */
    ring_turned_rect(locked + 2, 10.8, 20.85, 0.3, 0.1, 0.5);
    pk = new_packer(&o, isl, n);
    if (pk) {
        for (i = 0; i < 3; i++) CHECK_OK(un_packer_add_locked(pk, locked + i));
        CHECK_OK(un_packer_start(pk, NULL));
        run_and_check(pk, isl, n, locked, 3, &o, 3, 100);
        un_packer_free(pk);
    }
    free_all(isl, n);
    free_all(locked, 3);
}

/* ====================================================== packer: fixed */

static un_pack_options fixed_options(double scale, int32_t max_bins)
{
    un_pack_options o = fit_options();
    o.fixed_scale = scale;
    o.max_bins = max_bins;
    o.padding = 0;
    o.margin = 0.02;
    return o;
}

static int32_t bins_used(const un_transform *t, int32_t n)
{
    int32_t i, b = 0;
    for (i = 0; i < n; i++)
        if (t[i].bin + 1 > b) b = t[i].bin + 1;
    return b;
}

/* n squares of side `side` (island units). */
static void squares(un_frings *isl, int32_t n, double side)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        un_frings_init(isl + i);
        ring_rect(isl + i, 2.0 * i, 0, side, side);
    }
}

/* A margin wide next to the islands: four unit squares at margin 0.8 fit
 * only one to a corner, and the bottom-left fill, which puts the third
 * mid-height, never places all four; the start's rescue annealing does.
 * Five cannot keep 0.8 apart in the unit square at all (two of any five
 * of its points are at most 0.71 apart): UN_ENOFIT, no layout. */
static void test_fit_margin_wider_than_islands(void)
{
    un_frings isl[5];
    un_pack_options o = fit_options();
    un_packer *pk;
    un_transform t[5];
    int32_t i, quadrants = 0;
    squares(isl, 5, 1);
    o.margin = 0.8;
    o.padding = 0;
    o.nangles = 1;
    o.align = 0;
    pk = packed(&o, isl, 4, 2, 20);
    if (pk) {
        CHECK(un_packer_best(pk, t));
        for (i = 0; i < 4; i++) {
            /* square i's centre (2i + 0.5, 0.5), unturned (one angle, no flip) */
            double cx = t[i].scale * (2.0 * i + 0.5) + t[i].tx, cy = t[i].scale * 0.5 + t[i].ty;
            CHECK(t[i].angle == 0 && t[i].flip == 0);
            quadrants |= 1 << ((cx > 0.5) + 2 * (cy > 0.5));
        }
        CHECK_EQ(quadrants, 15);
        un_packer_free(pk);
    }
    pk = new_packer(&o, isl, 5);
    if (pk) {
        CHECK_STATUS(un_packer_start(pk, NULL), UN_ENOFIT);
        CHECK_EQ(un_packer_best(pk, t), 0);
        un_packer_free(pk);
    }
    /* at margin 1.2 no scale helps: five disks of diameter 1.2 (one around
     * a point of each island) cover more than the unit square grown by 0.6
     * holds.  UN_ENOFIT at once: no fill ran (no no-fit polygon) */
    o.margin = 1.2;
    pk = new_packer(&o, isl, 5);
    if (pk) {
        un_pack_stats st;
        CHECK_STATUS(un_packer_start(pk, NULL), UN_ENOFIT);
        CHECK_EQ(un_packer_best(pk, t), 0);
        un_packer_stats(pk, &st);
        CHECK_EQ(st.cache_misses, 0);
        un_packer_free(pk);
    }
    free_all(isl, 5);
}

/* Above BISECT_AT_START islands the first layout is a quick fill, and one
 * that stops short goes on where it stopped in a larger container, its
 * islands and (with WINDOW_MAX windows across) its windows kept
 * (scale_search.c fill_resumes_at, fill.c un_fill_memo): one big triangle
 * and 400 small ones of varied shapes and sizes, margin 0.002, stop short
 * and go on; the layout passes the checker before and after moves. */
static void test_quick_fill_goes_on(void)
{
    enum { N = 401 };
    un_frings *isl = (un_frings *)malloc(N * sizeof *isl);
    un_pack_options o = fit_options();
    un_packer *pk;
    uint32_t h = 12345;
    int32_t i, j;
    if (!isl) abort();
    o.margin = 0.002;
    for (i = 0; i < N; i++) {
        double xy[6], size = i == 0 ? 12.0 : 0.3 + 0.7 * (double)(N - i) / N, a0;
        h = h * 1664525u + 1013904223u;
        a0 = 6.283185307179586 * (double)(h >> 8) / 16777216.0;
        for (j = 0; j < 3; j++) {
            double a = a0 + 2.0943951023931953 * j + 0.5 * (j == 1 ? (double)(h & 255) / 255.0 : 0);
            xy[2 * j] = 30.0 * (i % 20) + size * cos(a);
            xy[2 * j + 1] = 30.0 * (i / 20) + size * sin(a);
        }
        un_frings_init(isl + i);
        if (un_frings_add(isl + i, xy, 3) != UN_OK) abort();
    }
    pk = packed(&o, isl, N, 1, 2);
    if (pk) {
        un_pack_stats st;
        un_packer_stats(pk, &st);
        CHECK_EQ(st.rejected, 0);
        un_packer_free(pk);
    }
    free_all(isl, N);
    free(isl);
}

/* Islands keep the fixed scale; a set that needs exactly 3 targets gets 3:
 * 0.6 squares (1.2 at scale 0.5) one to a unit target, 0.45 squares four to
 * a target. */
static void test_fixed_exact_bins(void)
{
    static const struct {
        int32_t n;
        double side, scale;
        int32_t max_bins, moves;
    } cases[2] = {{3, 1.2, 0.5, 4, 50}, {9, 0.45, 1, 5, 100}};
    int32_t k;
    for (k = 0; k < 2; k++) {
        int32_t n = cases[k].n;
        un_frings isl[9];
        un_transform t[9];
        un_pack_stats st;
        un_pack_options o = fixed_options(cases[k].scale, cases[k].max_bins);
        un_packer *pk;
        squares(isl, n, cases[k].side);
        pk = packed(&o, isl, n, 2, cases[k].moves);
        if (pk) {
            un_packer_stats(pk, &st);
            CHECK(un_packer_best(pk, t));
            CHECK_EQ(st.bins, 3);
            CHECK_EQ(bins_used(t, n), 3);
            un_packer_free(pk);
        }
        free_all(isl, n);
    }
}

/* Fewer targets than needed, or an island larger than the target at the
 * fixed scale: UN_ENOFIT. */
static void test_fixed_enofit(void)
{
    un_frings isl[3];
    un_pack_options o = fixed_options(0.5, 2);
    un_packer *pk;
    un_transform t[3];
    squares(isl, 3, 1.2);
    pk = new_packer(&o, isl, 3);
    if (pk) {
        CHECK_STATUS(un_packer_start(pk, NULL), UN_ENOFIT);
        CHECK_EQ(un_packer_best(pk, t), 0);
        un_packer_free(pk);
    }
    free_all(isl, 3);
    un_frings_init(isl);
    ring_rect(isl, 0, 0, 2.2, 1); /* 1.1 wide at scale 0.5, in every orientation */
    o = fixed_options(0.5, 8);
    pk = new_packer(&o, isl, 1);
    if (pk) {
        CHECK_STATUS(un_packer_start(pk, NULL), UN_ENOFIT);
        un_packer_free(pk);
    }
    free_all(isl, 1);
}

/* An island wider than the target only fits turned: it is turned. */
static void test_fixed_turned_to_fit(void)
{
    un_frings isl[2];
    un_pack_options o = fixed_options(1, 1);
    un_packer *pk;
    un_transform t[2];
    un_frings_init(isl);
    un_frings_init(isl + 1);
    ring_rect(isl, 0, 0, 1.5, 0.4);
    ring_rect(isl + 1, 0, 0, 0.3, 0.3);
    o.target[2] = 1;
    o.target[3] = 2;
    o.align = 0;
    pk = packed(&o, isl, 2, 1, 40);
    if (pk) {
        CHECK(un_packer_best(pk, t));
        CHECK_NEAR(fabs(sin(t[0].angle)), 1, 1e-9);
        un_packer_free(pk);
    }
    free_all(isl, 2);
}

/* Affinity groups: six 0.45 squares, four to a target, in two groups of
 * three whose members alternate.  First fit would put four in target 0 and
 * split a group; with the groups each one stays in one target. */
static void test_fixed_groups(void)
{
    un_frings isl[6];
    un_pack_options o = fixed_options(1, 4);
    un_packer *pk;
    un_transform t[6];
    int32_t i;
    squares(isl, 6, 0.45);
    pk = new_packer(&o, isl, 6);
    if (pk) {
        for (i = 0; i < 6; i++) CHECK_OK(un_packer_set_group(pk, i, i % 2));
        CHECK_STATUS(un_packer_set_group(pk, 6, 0), UN_EINVAL);
        CHECK_STATUS(un_packer_set_group(pk, -1, 0), UN_EINVAL);
        CHECK_STATUS(un_packer_set_group(pk, 0, -1), UN_EINVAL);
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK(un_packer_best(pk, t));
        for (i = 2; i < 6; i++) CHECK_MSG(t[i].bin == t[i % 2].bin, "island %d left its group", (int)i);
        CHECK(t[0].bin != t[1].bin);
        run_and_check(pk, isl, 6, NULL, 0, &o, 3, 100);
        CHECK(un_packer_best(pk, t));
        for (i = 2; i < 6; i++) CHECK_MSG(t[i].bin == t[i % 2].bin, "island %d left its group after run", (int)i);
        CHECK_STATUS(un_packer_set_group(pk, 0, 1), UN_EINVAL); /* started */
        un_packer_free(pk);
    }
    /* only some islands grouped (the rest default to none), set before
     * more islands are added */
    pk = new_packer(&o, isl, 3);
    if (pk) {
        CHECK_OK(un_packer_set_group(pk, 1, 4));
        for (i = 3; i < 6; i++) CHECK_OK(un_packer_add_island(pk, isl + i, 0.45 * 0.45));
        CHECK_OK(un_packer_set_group(pk, 4, 4));
        CHECK_OK(un_packer_start(pk, NULL));
        /* the first fit lets ungrouped islands take the group's room (it
         * may split the group); the search joins it again */
        run_and_check(pk, isl, 6, NULL, 0, &o, 2, 100);
        CHECK(un_packer_best(pk, t));
        CHECK_EQ(t[1].bin, t[4].bin);
        un_packer_free(pk);
    }
    free_all(isl, 6);
}

/* ======================================================== packer: box */

/* Distance from a to the nearest multiple of step. */
static double off_grid(double a, double step)
{
    double r = fmod(fabs(a), step);
    return r < step - r ? r : step - r;
}

/* Box mode: the bounding rectangles are packed (skyline), the layout is
 * valid and final (run changes nothing). */
static void test_box_mode(void)
{
    un_frings isl[8];
    un_pack_options o = fit_options();
    un_packer *pk;
    un_transform before[8], after[8];
    int32_t i, n = 8;
    int improved = -1;
    for (i = 0; i < 6; i++) {
        un_frings_init(isl + i);
        ring_rect(isl + i, (double)i, 1, 0.2 + 0.15 * i, 1.1 - 0.12 * i);
    }
    un_frings_init(isl + 6);
    ring_L(isl + 6, 0, 0, 0.4);
    un_frings_init(isl + 7);
    ring_turned_rect(isl + 7, 3, 3, 0.9, 0.3, 0.5); /* align turns it straight */
    o.box = 1;
    o.margin = 0.02;
    o.padding = 0.01;
    pk = new_packer(&o, isl, n);
    if (pk) {
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK(un_packer_best(pk, before));
        CHECK_EQ(check_layout(isl, n, before, NULL, 0, &o), 0);
        CHECK_NEAR(off_grid(before[7].angle + 0.5, 0.5 * PI), 0, 1e-9); /* it was turned by 0.5 */
        CHECK_OK(un_packer_run(pk, 100, NULL, &improved));
        CHECK_EQ(improved, 0);
        CHECK(un_packer_best(pk, after));
        CHECK(same_transforms(before, after, n));
        run_and_check(pk, isl, n, NULL, 0, &o, 0, 0);
        un_packer_free(pk);
    }
    free_all(isl, n);
}

/* ===================================================== invalid input */

static void expect_new_invalid(const un_pack_options *o, const char *what)
{
    un_packer *pk = (un_packer *)&pk;
    un_status s = un_packer_new(o, &pk);
    CHECK_MSG(s == UN_EINVAL && pk == NULL, "%s: %s", what, un_status_str(s));
    un_packer_free(pk);
}

/* Options: negative, NaN or infinite margin and padding, no angles, a
 * NaN angle, empty or NaN targets, no cache, bad fixed scale or bins. */
static void test_invalid_options(void)
{
    const double nan_angles[2] = {0, NAN};
    un_pack_options o;
    un_packer *pk = NULL;
    expect_new_invalid(NULL, "no options");
    o = fit_options(); o.margin = -0.01; expect_new_invalid(&o, "negative margin");
    o = fit_options(); o.margin = NAN; expect_new_invalid(&o, "NaN margin");
    o = fit_options(); o.margin = INFINITY; expect_new_invalid(&o, "infinite margin");
    o = fit_options(); o.padding = -1; expect_new_invalid(&o, "negative padding");
    o = fit_options(); o.padding = NAN; expect_new_invalid(&o, "NaN padding");
    o = fit_options(); o.nangles = 0; expect_new_invalid(&o, "no angles");
    o = fit_options(); o.nangles = -2; expect_new_invalid(&o, "negative angle count");
    o = fit_options(); o.angles = NULL; expect_new_invalid(&o, "NULL angles");
    o = fit_options(); o.angles = nan_angles; o.nangles = 2; expect_new_invalid(&o, "NaN angle");
    o = fit_options(); o.target[2] = o.target[0]; expect_new_invalid(&o, "x1 == x0");
    o = fit_options(); o.target[2] = -1; expect_new_invalid(&o, "x1 < x0");
    o = fit_options(); o.target[3] = 0; expect_new_invalid(&o, "y1 == y0");
    o = fit_options(); o.target[1] = NAN; expect_new_invalid(&o, "NaN target");
    o = fit_options(); o.target[2] = INFINITY; expect_new_invalid(&o, "infinite target");
    o = fit_options(); o.cache_bytes = 0; expect_new_invalid(&o, "no cache");
    o = fit_options(); o.cache_bytes = NAN; expect_new_invalid(&o, "NaN cache");
    o = fixed_options(-1, 2); expect_new_invalid(&o, "negative fixed scale");
    o = fixed_options(NAN, 2); expect_new_invalid(&o, "NaN fixed scale");
    o = fixed_options(INFINITY, 2); expect_new_invalid(&o, "infinite fixed scale");
    o = fixed_options(1, 0); expect_new_invalid(&o, "no bins");
    o = fixed_options(1, 257); expect_new_invalid(&o, "too many bins");
    o = fixed_options(1, 256);
    CHECK_OK(un_packer_new(&o, &pk));
    un_packer_free(pk);
}

/* Islands and locked islands: no rings, a NaN or infinite coordinate, a
 * zero, negative or NaN area are refused; so are calls out of order (run
 * or nothing to pack before start, adding after start). */
static void test_invalid_islands(void)
{
    const double nan_xy[8] = {0, 0, 1, 0, NAN, 1, 0, 1}, inf_xy[8] = {0, 0, 1, 0, 1, INFINITY, 0, 1};
    un_pack_options o = fit_options();
    un_frings empty, nan_ring, inf_ring, good;
    un_packer *pk = NULL;
    un_transform t;
    un_pack_stats st;
    int improved = -1;
    un_frings_init(&empty);
    un_frings_init(&nan_ring);
    un_frings_init(&inf_ring);
    un_frings_init(&good);
    if (un_frings_add(&nan_ring, nan_xy, 4) != UN_OK || un_frings_add(&inf_ring, inf_xy, 4) != UN_OK) abort();
    ring_rect(&good, 0, 0, 1, 1);
    CHECK_OK(un_packer_new(&o, &pk));
    if (pk) {
        CHECK_STATUS(un_packer_add_island(pk, &empty, 1), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &nan_ring, 1), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &inf_ring, 1), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &good, 0), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &good, -1), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &good, NAN), UN_EINVAL);
        CHECK_STATUS(un_packer_add_island(pk, &good, INFINITY), UN_EINVAL);
        CHECK_STATUS(un_packer_add_locked(pk, &empty), UN_EINVAL);
        CHECK_STATUS(un_packer_add_locked(pk, &nan_ring), UN_EINVAL);
        CHECK_STATUS(un_packer_add_locked(pk, &inf_ring), UN_EINVAL);
        CHECK_STATUS(un_packer_set_group(pk, 0, 0), UN_EINVAL); /* no island 0 yet */
        CHECK_STATUS(un_packer_run(pk, 10, NULL, &improved), UN_EINVAL);
        CHECK_EQ(improved, 0);
        CHECK_EQ(un_packer_best(pk, &t), 0);
        un_packer_stats(pk, &st);
        CHECK(st.moves == 0 && st.layouts == 0 && st.bins == 0 && st.coverage == 0);
        CHECK_STATUS(un_packer_start(pk, NULL), UN_EINVAL); /* nothing to pack */
        CHECK_OK(un_packer_add_island(pk, &good, 1));
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK_STATUS(un_packer_add_island(pk, &good, 1), UN_EINVAL);
        CHECK_STATUS(un_packer_add_locked(pk, &good), UN_EINVAL);
        CHECK(un_packer_best(pk, &t));
        un_packer_free(pk);
    }
    un_packer_free(NULL);
    un_frings_free(&nan_ring);
    un_frings_free(&inf_ring);
    un_frings_free(&good);
}

/* ======================================================== known bugs */

/* Tests of csrc bugs found while writing this file (now fixed). */

/* Box mode with locked islands: the skyline knows nothing of them, so the
 * general engine packs the boxes; no layout may be rejected, and the one
 * returned keeps clear of the locked island in the bottom-left corner. */
static void test_bug_box_ignores_locked(void)
{
    un_frings isl[1], locked[1];
    un_pack_options o = fit_options();
    un_packer *pk;
    un_pack_stats st;
    un_transform t;
    un_frings_init(isl);
    un_frings_init(locked);
    ring_rect(isl, 0, 0, 1, 1);
    ring_rect(locked, 0, 0, 0.2, 0.2);
    o.box = 1;
    pk = new_packer(&o, isl, 1);
    if (pk) {
        CHECK_OK(un_packer_add_locked(pk, locked));
        CHECK_OK(un_packer_start(pk, NULL));
        un_packer_stats(pk, &st);
        CHECK_EQ(st.rejected, 0);
        if (un_packer_best(pk, &t)) CHECK_EQ(check_layout(isl, 1, &t, locked, 1, &o), 0);
        un_packer_free(pk);
    }
    free_all(isl, 1);
    free_all(locked, 1);
}

/* An island that rounds to a point on the engine grid (1e-7 .. 1e-9 of
 * the largest): its grown shape must still have an inside (it used to be
 * empty, with an empty no-fit polygon whose bounding box overflowed). */
static void test_bug_tiny_island(void)
{
    const double sides[3] = {1e-7, 1e-8, 1e-9};
    un_pack_options o = fit_options();
    int32_t k;
    for (k = 0; k < 3; k++) {
        un_frings isl[2];
        un_packer *pk;
        un_transform t[2];
        un_frings_init(isl);
        un_frings_init(isl + 1);
        ring_rect(isl, 0, 0, 1, 1);
        ring_rect(isl + 1, 0, 0, sides[k], sides[k]);
        pk = new_packer(&o, isl, 2);
        if (pk) {
            CHECK_OK(un_packer_start(pk, NULL));
            if (un_packer_best(pk, t)) CHECK_EQ(check_layout(isl, 2, t, NULL, 0, &o), 0);
            un_packer_free(pk);
        }
        free_all(isl, 2);
    }
}

/* An outline without area (found by tests/csrc/fuzz_core.c): its points
 * on one line simplify to no shape, whose centre was NaN and whose
 * bounding box converted inf to int64 (undefined).  Such outlines (a
 * segment, a point: collapsed islands, issue 26) now pack as what they
 * are: the layout places all three inside the target, with finite
 * transforms; an outline with no point at all is still UN_EINVAL. */
static void test_bug_outline_without_area(void)
{
    const double line_xy[6] = {0, 0, 0.5, 0.5, 1, 1}, point_xy[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    un_pack_options o = fit_options();
    un_frings isl[3];
    un_packer *pk;
    un_transform t[3];
    un_frings_init(isl);
    un_frings_init(isl + 1);
    un_frings_init(isl + 2);
    ring_rect(isl, 0, 0, 1, 1);
    if (un_frings_add(isl + 1, line_xy, 3) != UN_OK || un_frings_add(isl + 2, point_xy, 3) != UN_OK) abort();
    pk = new_packer(&o, isl, 1);
    if (pk) {
        /* the area is the caller's word; the outline has none */
        int32_t k;
        CHECK_OK(un_packer_add_island(pk, isl + 1, 0.5));
        CHECK_OK(un_packer_add_island(pk, isl + 2, 0.5));
        CHECK_OK(un_packer_start(pk, NULL));
        CHECK_EQ(un_packer_best(pk, t), 1);
        for (k = 0; k < 3; k++)
            CHECK(isfinite(t[k].angle) && isfinite(t[k].scale) && t[k].scale > 0 && isfinite(t[k].tx) &&
                  isfinite(t[k].ty));
        un_packer_free(pk);
    }
    free_all(isl, 3);
}

int main(void)
{
    RUN(test_rng_is_pcg32);
    RUN(test_rng_ranges);
    RUN(test_components);
    RUN(test_components_invalid);
    RUN(test_pow2_zero_waste);
    RUN(test_pow2_large_layer);
    RUN(test_pow2_invalid);
    RUN(test_skyline_basic);
    RUN(test_skyline_best_fit);
    RUN(test_skyline_random);
    RUN(test_shelves_basic);
    RUN(test_shelves_random);
    RUN(test_nfpcache_basic);
    RUN(test_nfpcache_eviction);
    RUN(test_nfpcache_grow);
    RUN(test_island_transforms);
    RUN(test_fit_rects_and_L);
    RUN(test_fit_L_shapes_offset_target);
    RUN(test_fit_single_island);
    RUN(test_fit_margin_wider_than_islands);
    RUN(test_quick_fill_goes_on);
    RUN(test_fit_filler);
    RUN(test_fit_determinism);
    RUN(test_fit_cancel);
    RUN(test_locked);
    RUN(test_fixed_exact_bins);
    RUN(test_fixed_enofit);
    RUN(test_fixed_turned_to_fit);
    RUN(test_fixed_groups);
    RUN(test_box_mode);
    RUN(test_invalid_options);
    RUN(test_invalid_islands);
    RUN(test_bug_box_ignores_locked);
    RUN(test_bug_tiny_island);
    RUN(test_bug_outline_without_area);
    return tu_report("test_engine");
}
