/*
 * test_simplify_speed.c - simplification of big rings stays fast, and the
 * indexed deviation measure gives exactly the brute force's answers.
 *
 * simplify.c answers its blocking tests from a tree of boxes over the slots
 * and measures the deviation with an index over the input's edges; both
 * must reach the very decisions and values of a scan over everything.  The
 * scan of the measure is copied here as the reference (the blocking tests
 * are covered by test_simplify.c and the Python tests).
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

/* ------------------------------------------- reference: the brute force */

static double ref_dist_to_region(const un_frings *r, double x, double y)
{
    int32_t k, i;
    int in = 0;
    double best = HUGE_VAL;
    for (k = 0; k < r->nrings; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            const double *p = r->xy + 2 * (a + i), *q = r->xy + 2 * (a + (i + 1) % n);
            double dx = q[0] - p[0], dy = q[1] - p[1], l2 = dx * dx + dy * dy, t = 0, d;
            if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) * dx / dy) in = !in;
            if (l2 > 0) {
                t = ((x - p[0]) * dx + (y - p[1]) * dy) / l2;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
            }
            d = hypot(p[0] + t * dx - x, p[1] + t * dy - y);
            if (d < best) best = d;
        }
    }
    return in ? 0 : best;
}

static int ref_inside(const un_frings *r, double x, double y)
{
    int32_t k, i;
    int in = 0;
    for (k = 0; k < r->nrings; k++) {
        int32_t a = r->start[k], n = r->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            const double *p = r->xy + 2 * (a + i), *q = r->xy + 2 * (a + (i + 1) % n);
            if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) * (q[0] - p[0]) / (q[1] - p[1])) in = !in;
        }
    }
    return in;
}

static double ref_interior_max(const un_frings *result, const un_frings *input, double best)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, bx = 0, by = 0, fb = -1, step;
    int32_t i, j;
    un_frings_bbox(result, lo, hi);
    for (i = 0; i < 48; i++)
        for (j = 0; j < 48; j++) {
            double x = lo[0] + (i + 0.5) * (hi[0] - lo[0]) / 48, y = lo[1] + (j + 0.5) * (hi[1] - lo[1]) / 48, f;
            if (!ref_inside(result, x, y)) continue;
            f = ref_dist_to_region(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; }
        }
    if (fb <= 0) return best;
    step = 0.5 * ((hi[0] - lo[0]) + (hi[1] - lo[1])) / 48;
    for (i = 0; i < 60 && step > 0; i++) {
        static const double dir[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
        int moved = 0;
        for (j = 0; j < 8; j++) {
            double x = bx + step * dir[j][0], y = by + step * dir[j][1], f;
            if (!ref_inside(result, x, y)) continue;
            f = ref_dist_to_region(input, x, y);
            if (f > fb) { fb = f; bx = x; by = y; moved = 1; }
        }
        if (!moved) step *= 0.5;
    }
    return fb > best ? fb : best;
}

static double ref_edge_dist(const un_frings *input, const double *p, const double *q, double t)
{
    return ref_dist_to_region(input, p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]));
}

static double ref_deviation(const un_frings *result, const un_frings *input)
{
    const double g = 0.6180339887498949;
    double best = 0;
    int32_t r, i, j, k;
    for (r = 0; r < result->nrings; r++) {
        int32_t s0 = result->start[r], n = result->start[r + 1] - s0;
        for (i = 0; i < n; i++) {
            const double *p = result->xy + 2 * (s0 + i), *q = result->xy + 2 * (s0 + (i + 1) % n);
            double f[33], a, b, x1, x2, f1, f2;
            int32_t top = 0;
            for (j = 0; j <= 32; j++) {
                f[j] = ref_edge_dist(input, p, q, (double)j / 32);
                if (f[j] > f[top]) top = j;
            }
            if (f[top] > best) best = f[top];
            a = (top > 0 ? top - 1 : 0) / 32.0;
            b = (top < 32 ? top + 1 : 32) / 32.0;
            x1 = b - g * (b - a); x2 = a + g * (b - a);
            f1 = ref_edge_dist(input, p, q, x1); f2 = ref_edge_dist(input, p, q, x2);
            for (k = 0; k < 40; k++) {
                if (f1 > f2) { b = x2; x2 = x1; f2 = f1; x1 = b - g * (b - a); f1 = ref_edge_dist(input, p, q, x1); }
                else { a = x1; x1 = x2; f1 = f2; x2 = a + g * (b - a); f2 = ref_edge_dist(input, p, q, x2); }
            }
            if (f1 > best) best = f1;
            if (f2 > best) best = f2;
        }
    }
    return ref_interior_max(result, input, best);
}

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

static void check_same(const un_frings *result, const un_frings *input, const char *what, int k)
{
    double got = un_simplify_deviation(result, input), want = ref_deviation(result, input);
    CHECK_MSG(got == want || (got != got && want != want), "%s %d: indexed %.17g, brute force %.17g", what, k, got,
              want);
}

static void test_deviation_matches_brute_force(void)
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
        check_same(&res, &in, "random", k);
        /* the input measured against itself: every sample on its boundary */
        check_same(&in, &in, "itself", k);
        un_frings_free(&in);
        un_frings_free(&res);
    }
}

static void test_deviation_of_axis_aligned_shapes(void)
{
    /* horizontal edges at the sample rows, vertices on sample points */
    un_frings in, res;
    int k;
    un_frings_init(&in);
    un_frings_init(&res);
    tu_fbox(&in, 0, 0, 4, 4);
    tu_fbox(&in, 1, 1, 3, 3);   /* a hole by parity */
    tu_fbox(&in, 5, 0, 6, 1);
    tu_fbox(&res, 0, 0, 6, 4);
    check_same(&res, &in, "boxes", 0);
    check_same(&in, &in, "boxes itself", 0);
    for (k = 1; k < 6; k++) {
        un_frings_free(&res);
        tu_fbox(&res, -0.5 * k, 0, 6, 4 + 0.25 * k);
        check_same(&res, &in, "boxes grown", k);
    }
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
    RUN(test_deviation_matches_brute_force);
    RUN(test_deviation_of_axis_aligned_shapes);
    RUN(test_big_rings_are_fast);
    return tu_report("test_simplify_speed");
}
