/*
 * test_simplify_speed.c - simplification of big rings stays fast, and the
 * edge index (edgeindex.c) answers exactly as a scan of every edge does.
 *
 * simplify.c answers its blocking tests from a box tree over the slots,
 * and deviation.c measures the deviation through edge indexes, whose
 * queries must give the very values of a scan.  The scans are tu.h's
 * (tu_fpoint_in_rings, tu_fdist_to_rings), written independently with the
 * arithmetic the index claims to reproduce.  The blocking tests are covered
 * by test_simplify.c and the Python tests, the sampling of the measure by
 * known answers below and by the Python tests against shapely.
 */
#include "tu.h"

#include <time.h>

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* ----------------------------------------------------------- shapes */

/* A star-shaped ring of n points around (cx, cy), radius in [R (1 - jit), R],
 * optionally snapped to a grid of step q (collinear and repeated points),
 * clockwise when rev. */
static void add_star(un_frings *r, uint64_t *rng, int32_t n, double cx, double cy, double R, double jit, double q,
                     int rev)
{
    double *xy = (double *)malloc(2 * (size_t)n * sizeof *xy);
    int32_t i;
    if (!xy) abort();
    for (i = 0; i < n; i++) {
        double u = (double)(tu_rand(rng) >> 11) / 9007199254740992.0, v = (double)(tu_rand(rng) >> 11) / 9007199254740992.0;
        double th = 6.283185307179586 * (i + 0.8 * u) / n, rr = R * (1 - jit * v);
        double x = cx + rr * cos(th), y = cy + rr * sin(th);
        int32_t j = rev ? n - 1 - i : i;
        if (q > 0) { x = q * floor(x / q + 0.5); y = q * floor(y / q + 0.5); }
        xy[2 * j] = x;
        xy[2 * j + 1] = y;
    }
    if (un_frings_add(r, xy, n) != UN_OK) abort();
    free(xy);
}

/* The ring of tests/test_geometry_hostile.py: r = 1 + 0.3 sin 7t + 0.05 sin 97t. */
static void add_wavy(un_frings *r, int32_t n)
{
    double *xy = (double *)malloc(2 * (size_t)n * sizeof *xy);
    int32_t i;
    if (!xy) abort();
    for (i = 0; i < n; i++) {
        double th = 6.283185307179586 * i / n, rr = 1 + 0.3 * sin(7 * th) + 0.05 * sin(97 * th);
        xy[2 * i] = rr * cos(th);
        xy[2 * i + 1] = rr * sin(th);
    }
    if (un_frings_add(r, xy, n) != UN_OK) abort();
    free(xy);
}

/* A rectangle whose top side is a fine zigzag of n points: long straight
 * edges next to many short ones. */
static void add_zigzag_box(un_frings *r, int32_t n)
{
    double *xy = (double *)malloc(2 * ((size_t)n + 2) * sizeof *xy);
    int32_t i;
    if (!xy) abort();
    xy[0] = 0; xy[1] = 0;
    xy[2] = 10; xy[3] = 0;
    for (i = 0; i < n; i++) {
        xy[4 + 2 * i] = 10 - 10.0 * i / (n - 1);
        xy[5 + 2 * i] = 1 + 0.01 * (i & 1) + 0.2 * sin(0.001 * i);
    }
    if (un_frings_add(r, xy, n + 2) != UN_OK) abort();
    free(xy);
}

/* ------------------------------------------------------------ tests */

/* The scan's answer for the region of r: 0 inside, else the distance. */
static double scan_dist(const un_frings *r, double x, double y)
{
    return tu_fpoint_in_rings(r, x, y) ? 0 : tu_fdist_to_rings(r, x, y);
}

static int same_double(double a, double b)
{
    return a == b || (a != a && b != b);
}

/* The index of r against the scan at (x, y). */
static void check_point(const un_edgeindex *ix, const un_frings *r, double x, double y, const char *what, int k)
{
    int in = un_edgeindex_inside(ix, x, y), want_in = tu_fpoint_in_rings(r, x, y);
    double d = un_edgeindex_nearest(ix, x, y), want_d = tu_fdist_to_rings(r, x, y);
    CHECK_MSG(in == want_in, "%s %d: (%.17g, %.17g) inside %d, scan %d", what, k, x, y, in, want_in);
    CHECK_MSG(same_double(d, want_d), "%s %d: (%.17g, %.17g) nearest %.17g, scan %.17g", what, k, x, y, d, want_d);
    CHECK_MSG(same_double(un_edgeindex_dist(ix, x, y), scan_dist(r, x, y)), "%s %d: (%.17g, %.17g) dist", what, k,
              x, y);
}

/* Query points: every vertex, every edge's midpoint, points at the height
 * of every vertex (rays through vertices) and random points around the
 * rings; then walks along the edges of path (as deviation.c samples a
 * result), every step checked against the scan. */
static void check_index(const un_frings *r, const un_frings *path, uint64_t *rng, const char *what, int k)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, w, h;
    int32_t n = un_frings_npts(r), i, j, ring;
    un_edgeindex ix;
    un_edgewalk walk;
    CHECK_OK(un_edgeindex_build(&ix, r));
    CHECK_OK(un_frings_bbox(r, lo, hi));
    w = hi[0] - lo[0];
    h = hi[1] - lo[1];
    for (i = 0; i < n; i++) {
        const double *p = r->xy + 2 * i, *q = r->xy + 2 * (i + 1 < n ? i + 1 : 0);
        double u = (double)(tu_rand(rng) >> 11) / 9007199254740992.0;
        check_point(&ix, r, p[0], p[1], what, k);
        check_point(&ix, r, 0.5 * (p[0] + q[0]), 0.5 * (p[1] + q[1]), what, k);
        check_point(&ix, r, lo[0] - 0.1 * w + 1.2 * w * u, p[1], what, k);
        u = (double)(tu_rand(rng) >> 11) / 9007199254740992.0;
        check_point(&ix, r, lo[0] - 0.1 * w + 1.2 * w * u,
                    lo[1] - 0.1 * h + 1.2 * h * (double)(tu_rand(rng) >> 11) / 9007199254740992.0, what, k);
    }
    un_edgewalk_begin(&walk, &ix);
    for (ring = 0; ring < path->nrings; ring++) {
        int32_t s0 = path->start[ring], m = path->start[ring + 1] - s0;
        for (i = 0; i < m; i++) {
            const double *p = path->xy + 2 * (s0 + i), *q = path->xy + 2 * (s0 + (i + 1) % m);
            for (j = 0; j <= 32; j++) {
                double t = (double)j / 32, x = p[0] + t * (q[0] - p[0]), y = p[1] + t * (q[1] - p[1]);
                double got = un_edgewalk_dist(&walk, x, y), want = scan_dist(r, x, y);
                CHECK_MSG(same_double(got, want), "%s %d: walk at (%.17g, %.17g) %.17g, scan %.17g", what, k, x, y,
                          got, want);
            }
        }
    }
    un_edgeindex_free(&ix);
}

static void test_index_matches_scan(void)
{
    uint64_t rng = 12345;
    int k;
    for (k = 0; k < 40; k++) {
        un_frings in, res;
        int32_t n = (int32_t)tu_range(&rng, 3, 200), m = (int32_t)tu_range(&rng, 3, 30);
        double q = k % 4 == 3 ? 0.05 : 0;
        un_frings_init(&in);
        un_frings_init(&res);
        add_star(&in, &rng, n, 0, 0, 1, 0.6, q, 0);
        if (k % 3 == 1) add_star(&in, &rng, n / 3 + 3, 0.05, 0, 0.3, 0.3, q, 1);
        if (k % 5 == 2) add_star(&in, &rng, 12, 3, 0, 0.5, 0.2, q, 0);
        add_star(&res, &rng, m, 0, 0, 1.1, 0.2, q, 0);
        if (k % 4 == 1) add_star(&res, &rng, 5, 0, 0, 0.2, 0.1, q, 1);
        check_index(&in, &res, &rng, "random", k);
        /* walks along the rings themselves: every sample on an edge */
        check_index(&in, &in, &rng, "itself", k);
        un_frings_free(&in);
        un_frings_free(&res);
    }
}

/* Horizontal edges at the height of query points, vertices on them, and
 * known deviations: a result grown by 0.5 to the left deviates by 0.5; a
 * filled 2 x 2 hole by 1 (its centre), found by the interior search. */
static void test_axis_aligned_shapes(void)
{
    uint64_t rng = 7;
    un_frings in, res;
    double dev = -1;
    int k;
    un_frings_init(&in);
    un_frings_init(&res);
    tu_fbox(&in, 0, 0, 4, 4);
    tu_fbox(&in, 1, 1, 3, 3);   /* a hole by parity */
    tu_fbox(&in, 5, 0, 6, 1);
    tu_fbox(&res, 0, 0, 6, 4);
    check_index(&in, &res, &rng, "boxes", 0);
    check_index(&in, &in, &rng, "boxes itself", 0);
    for (k = 1; k < 6; k++) {
        un_frings_free(&res);
        tu_fbox(&res, -0.5 * k, 0, 6, 4 + 0.25 * k);
        check_index(&in, &res, &rng, "boxes grown", k);
    }
    un_frings_free(&in);
    un_frings_free(&res);
    tu_fbox(&in, 0, 0, 4, 4);
    tu_fbox(&res, -0.5, 0, 4, 4);
    CHECK_OK(un_simplify_deviation(&res, &in, &dev));
    CHECK_MSG(dev == 0.5, "grown by 0.5: deviation %.17g", dev);
    tu_fbox(&in, 1, 1, 3, 3);
    un_frings_free(&res);
    tu_fbox(&res, 0, 0, 4, 4);
    CHECK_OK(un_simplify_deviation(&res, &in, &dev));
    CHECK_MSG(fabs(dev - 1) < 1e-9, "filled hole: deviation %.17g", dev);
    un_frings_free(&in);
    un_frings_free(&res);
}

static void simplify_big(un_frings *in, const char *what, double limit)
{
    un_frings out;
    double used = -1;
    clock_t t0 = clock();
    double secs;
    un_frings_init(&out);
    CHECK_OK(un_geom_simplify(in, 0.01, 64, &out, &used));
    secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK_MSG(un_frings_npts(&out) <= 64 && out.nrings >= 1, "%s: %d vertices", what, (int)un_frings_npts(&out));
    CHECK_MSG(used >= 0 && used < 1, "%s: deviation %g", what, used);
    CHECK_MSG(secs < limit, "%s (%d points): %.1f s of CPU time, allowed %.0f", what, (int)un_frings_npts(in), secs,
              limit);
    un_frings_free(&out);
}

static void test_big_rings_are_fast(void)
{
    /* the scans took about n^2 / 20 ns: 100 000 points took minutes */
    int32_t n = SANITIZED ? 30000 : 200000;
    un_frings in;
    un_frings_init(&in);
    add_wavy(&in, n);
    simplify_big(&in, "wavy ring", 60);
    un_frings_free(&in);
    add_zigzag_box(&in, n);
    simplify_big(&in, "zigzag box", 60);
    un_frings_free(&in);
}

int main(void)
{
    RUN(test_index_matches_scan);
    RUN(test_axis_aligned_shapes);
    RUN(test_big_rings_are_fast);
    return tu_report("test_simplify_speed");
}
