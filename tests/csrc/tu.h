/*
 * tu.h - a tiny test harness for the uvnest C unit tests (C99, no framework).
 *
 * A test program is a main() that calls RUN(fn) for each test function and
 * returns tu_report(name).  Checks never stop the program: every failed
 * check prints file, line and expression to stderr, so one run lists all
 * failures.  Helpers build integer and float rings and answer exact
 * geometric questions independently of the code under test (orientation
 * and areas in 128-bit or exact int64 arithmetic).
 */
#ifndef UVNEST_TU_H
#define UVNEST_TU_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int tu_failed = 0, tu_checks = 0;
static const char *tu_current = "";

#define TU_FAIL_(fmt, ...)                                                                     \
    do {                                                                                       \
        tu_failed++;                                                                           \
        fprintf(stderr, "%s:%d: [%s] " fmt "\n", __FILE__, __LINE__, tu_current, __VA_ARGS__); \
    } while (0)

#define CHECK(c)                                        \
    do {                                                \
        tu_checks++;                                    \
        if (!(c)) TU_FAIL_("CHECK(%s) failed", #c);     \
    } while (0)

#define CHECK_MSG(c, ...)                                \
    do {                                                 \
        tu_checks++;                                     \
        if (!(c)) {                                      \
            TU_FAIL_("CHECK(%s) failed", #c);            \
            fprintf(stderr, "    ");                     \
            fprintf(stderr, __VA_ARGS__);                \
            fprintf(stderr, "\n");                       \
        }                                                \
    } while (0)

#define CHECK_EQ(a, b)                                                                          \
    do {                                                                                        \
        long long a_ = (long long)(a), b_ = (long long)(b);                                     \
        tu_checks++;                                                                            \
        if (a_ != b_) TU_FAIL_("CHECK_EQ(%s, %s) failed: %lld != %lld", #a, #b, a_, b_);        \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                   \
    do {                                                                                        \
        double a_ = (double)(a), b_ = (double)(b);                                              \
        tu_checks++;                                                                            \
        if (!(fabs(a_ - b_) <= (tol)))                                                          \
            TU_FAIL_("CHECK_NEAR(%s, %s) failed: %.17g vs %.17g", #a, #b, a_, b_);              \
    } while (0)

#define CHECK_STATUS(s, want)                                                                   \
    do {                                                                                        \
        un_status s_ = (s);                                                                     \
        tu_checks++;                                                                            \
        if (s_ != (want))                                                                       \
            TU_FAIL_("%s returned %s, expected %s", #s, un_status_str(s_), un_status_str(want)); \
    } while (0)

#define CHECK_OK(s) CHECK_STATUS(s, UN_OK)

#define RUN(fn)                 \
    do {                        \
        tu_current = #fn;       \
        fn();                   \
    } while (0)

static inline int tu_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, tu_checks, tu_failed);
    return tu_failed ? 1 : 0;
}

/* ------------------------------------------------------------ rng */

static inline uint64_t tu_rand(uint64_t *s)
{ /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* uniform integer in [lo, hi] */
static inline int64_t tu_range(uint64_t *s, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1u;
    return lo + (int64_t)(span ? tu_rand(s) % span : tu_rand(s));
}

/* ------------------------------------------------------------ rings */

static inline un_pt tu_pt(int64_t x, int64_t y)
{
    un_pt p;
    p.x = x;
    p.y = y;
    return p;
}

/* Append a ring given as n (x, y) pairs. */
static inline void tu_add(un_rings *r, const int64_t *xy, int32_t n)
{
    un_pt buf[256];
    int32_t i;
    if (n > 256) abort();
    for (i = 0; i < n; i++) buf[i] = tu_pt(xy[2 * i], xy[2 * i + 1]);
    if (un_rings_add(r, buf, n) != UN_OK) abort();
}

static inline void tu_add_rev(un_rings *r, const int64_t *xy, int32_t n)
{
    un_pt buf[256];
    int32_t i;
    if (n > 256) abort();
    for (i = 0; i < n; i++) buf[n - 1 - i] = tu_pt(xy[2 * i], xy[2 * i + 1]);
    if (un_rings_add(r, buf, n) != UN_OK) abort();
}

static inline void tu_box(un_rings *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
    int64_t xy[8];
    xy[0] = x0; xy[1] = y0; xy[2] = x1; xy[3] = y0;
    xy[4] = x1; xy[5] = y1; xy[6] = x0; xy[7] = y1;
    tu_add(r, xy, 4);
}

static inline void tu_fbox(un_frings *r, double x0, double y0, double x1, double y1)
{
    double xy[8];
    xy[0] = x0; xy[1] = y0; xy[2] = x1; xy[3] = y0;
    xy[4] = x1; xy[5] = y1; xy[6] = x0; xy[7] = y1;
    if (un_frings_add(r, xy, 4) != UN_OK) abort();
}

/* Twice the signed area of points p[0..n), exact in int64 for the small
 * coordinates the tests use. */
static inline int64_t tu_area2(const un_pt *p, int32_t n)
{
    int64_t a = 0;
    int32_t i;
    for (i = 0; i < n; i++) {
        un_pt u = p[i], v = p[(i + 1) % n];
        a += u.x * v.y - v.x * u.y;
    }
    return a;
}

static inline int64_t tu_rings_area2(const un_rings *r)
{
    int64_t a = 0;
    int32_t k;
    for (k = 0; k < r->nrings; k++) a += tu_area2(r->pts + r->start[k], r->start[k + 1] - r->start[k]);
    return a;
}

static inline double tu_frings_area(const un_frings *r)
{
    double a = 0;
    int32_t k, i;
    for (k = 0; k < r->nrings; k++) {
        int32_t s = r->start[k], n = r->start[k + 1] - s;
        for (i = 0; i < n; i++) {
            const double *u = r->xy + 2 * (s + i), *v = r->xy + 2 * (s + (i + 1) % n);
            a += u[0] * v[1] - v[0] * u[1];
        }
    }
    return 0.5 * a;
}

/* Independent point-in-ring (even-odd) with boundary detection, exact for
 * integer points: 1 inside, 0 outside, -1 on the boundary. */
static inline int tu_point_in_ring(const un_pt *r, int32_t n, un_pt p)
{
    int32_t i;
    int in = 0;
    for (i = 0; i < n; i++) {
        un_pt a = r[i], b = r[(i + 1) % n];
        int64_t c = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        if (c == 0 && (p.x - a.x) * (p.x - b.x) <= 0 && (p.y - a.y) * (p.y - b.y) <= 0) return -1;
        if ((a.y > p.y) != (b.y > p.y)) {
            /* x of the edge at p.y compared to p.x, exactly: sign of c
             * relative to the edge direction */
            if ((b.y > a.y) ? c > 0 : c < 0) in = !in;
        }
    }
    return in;
}

/* Parity over all rings; -1 when on any ring. */
static inline int tu_point_in_rings(const un_rings *r, un_pt p)
{
    int32_t k;
    int in = 0;
    for (k = 0; k < r->nrings; k++) {
        int s = tu_point_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], p);
        if (s < 0) return -1;
        in ^= s;
    }
    return in;
}

/* Does ring k of r contain the point (x, y)?  Float even-odd test. */
static inline int tu_fpoint_in_rings(const un_frings *r, double x, double y)
{
    int32_t k, i;
    int in = 0;
    for (k = 0; k < r->nrings; k++) {
        int32_t s = r->start[k], n = r->start[k + 1] - s;
        for (i = 0; i < n; i++) {
            const double *a = r->xy + 2 * (s + i), *b = r->xy + 2 * (s + (i + 1) % n);
            if ((a[1] > y) != (b[1] > y) && x < a[0] + (y - a[1]) * (b[0] - a[0]) / (b[1] - a[1])) in = !in;
        }
    }
    return in;
}

/* Smallest distance from (x, y) to any edge (or point) of the float rings. */
static inline double tu_fdist_to_rings(const un_frings *r, double x, double y)
{
    double best = HUGE_VAL;
    int32_t k, i;
    for (k = 0; k < r->nrings; k++) {
        int32_t s = r->start[k], n = r->start[k + 1] - s;
        for (i = 0; i < n; i++) {
            const double *a = r->xy + 2 * (s + i), *b = r->xy + 2 * (s + (i + 1) % n);
            double dx = b[0] - a[0], dy = b[1] - a[1], l2 = dx * dx + dy * dy, t = 0, d;
            if (l2 > 0) {
                t = ((x - a[0]) * dx + (y - a[1]) * dy) / l2;
                t = t < 0 ? 0 : t > 1 ? 1 : t;
            }
            d = hypot(a[0] + t * dx - x, a[1] + t * dy - y);
            if (d < best) best = d;
        }
    }
    return best;
}

/* Has ring set r a ring equal to xy (n points) up to rotation? */
static inline int tu_has_ring(const un_rings *r, const int64_t *xy, int32_t n)
{
    int32_t k, s, i;
    for (k = 0; k < r->nrings; k++) {
        const un_pt *p = r->pts + r->start[k];
        if (r->start[k + 1] - r->start[k] != n) continue;
        for (s = 0; s < n; s++) {
            for (i = 0; i < n; i++)
                if (p[(s + i) % n].x != xy[2 * i] || p[(s + i) % n].y != xy[2 * i + 1]) break;
            if (i == n) return 1;
        }
    }
    return 0;
}

#endif /* UVNEST_TU_H */
