/*
 * test_exact.c - exact predicates of exact.c.
 *
 * Built twice by test_c_units.py: with __int128 and with the portable
 * fallback (-DUN_NO_INT128 for exact.c).  The reference here always uses
 * the compiler's 128-bit integers where they exist (gcc and clang on
 * 64-bit targets), independently of UN_NO_INT128, and exact small-number
 * arithmetic otherwise.
 */
#include "tu.h"

#if defined(__SIZEOF_INT128__)
__extension__ typedef __int128 ref128;
#define HAVE_REF128 1
static int ref_sign_mul_sub(int64_t a, int64_t b, int64_t c, int64_t d)
{
    ref128 l = (ref128)a * b, r = (ref128)c * d;
    return (l > r) - (l < r);
}
#else
#define HAVE_REF128 0
static int ref_sign_mul_sub(int64_t a, int64_t b, int64_t c, int64_t d)
{
    long double l = (long double)a * b, r = (long double)c * d;
    return (l > r) - (l < r);
}
#endif

static void test_sign_mul_sub_edges(void)
{
    const int64_t v[] = {0, 1, -1, 2, -2, 3, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
                         (int64_t)1 << 31, -((int64_t)1 << 31), ((int64_t)1 << 32) - 1, (int64_t)1 << 32,
                         ((int64_t)1 << 62) + 12345, -((int64_t)1 << 62) - 7, 4294967297LL, -4294967297LL};
    const int nv = (int)(sizeof v / sizeof v[0]);
    int a, b, c, d;
    for (a = 0; a < nv; a++)
        for (b = 0; b < nv; b++)
            for (c = 0; c < nv; c += 3)
                for (d = 0; d < nv; d += 2) {
                    if (!HAVE_REF128 && (a > 5 || b > 5 || c > 5 || d > 5)) continue;
                    CHECK_MSG(un_sign_mul_sub(v[a], v[b], v[c], v[d]) == ref_sign_mul_sub(v[a], v[b], v[c], v[d]),
                              "%lld*%lld vs %lld*%lld", (long long)v[a], (long long)v[b], (long long)v[c],
                              (long long)v[d]);
                }
    /* equal products with different factors */
    CHECK_EQ(un_sign_mul_sub((int64_t)3 << 40, (int64_t)1 << 20, (int64_t)1 << 60, 3), 0);
    CHECK_EQ(un_sign_mul_sub(INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN), 0);
    CHECK_EQ(un_sign_mul_sub(INT64_MIN, -1, INT64_MAX, 1), 1);          /* 2^63 > 2^63 - 1 */
    CHECK_EQ(un_sign_mul_sub(INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN), -1);
    CHECK_EQ(un_sign_mul_sub(INT64_MIN, INT64_MAX, INT64_MIN, INT64_MIN), -1);
    /* products that differ only in the lowest bit of 126 */
    CHECK_EQ(un_sign_mul_sub(((int64_t)1 << 62) + 1, ((int64_t)1 << 62) - 1, (int64_t)1 << 62, (int64_t)1 << 62), -1);
    CHECK_EQ(un_sign_mul_sub(-(((int64_t)1 << 62) + 1), ((int64_t)1 << 62) - 1, -((int64_t)1 << 62), (int64_t)1 << 62), 1);
}

static void test_sign_mul_sub_random(void)
{
    uint64_t s = 12345;
    int i;
    for (i = 0; i < 200000; i++) {
        int shift = (int)(tu_rand(&s) % 64);
        int64_t a = (int64_t)(tu_rand(&s) >> shift), b = (int64_t)(tu_rand(&s) >> (tu_rand(&s) % 64));
        int64_t c = (int64_t)(tu_rand(&s) >> shift), d = (int64_t)(tu_rand(&s) >> (tu_rand(&s) % 64));
        if (tu_rand(&s) & 1) a = -a;
        if (tu_rand(&s) & 1) b = -b;
        if (tu_rand(&s) & 1) c = -c;
        if (tu_rand(&s) & 1) d = -d;
        if (i % 7 == 0) { c = a; d = b + (int64_t)(tu_rand(&s) % 3) - 1; }  /* near ties */
        if (!HAVE_REF128) { a %= 1 << 20; b %= 1 << 20; c %= 1 << 20; d %= 1 << 20; }
        if (un_sign_mul_sub(a, b, c, d) != ref_sign_mul_sub(a, b, c, d)) {
            CHECK_MSG(0, "%lld*%lld vs %lld*%lld", (long long)a, (long long)b, (long long)c, (long long)d);
            break;
        }
    }
    CHECK(i == 200000);
}

static void test_orient(void)
{
    const int64_t L = UN_COORD_LIMIT;
    uint64_t s = 99;
    int i;
    CHECK_EQ(un_orient(tu_pt(0, 0), tu_pt(1, 0), tu_pt(0, 1)), 1);
    CHECK_EQ(un_orient(tu_pt(0, 0), tu_pt(1, 0), tu_pt(0, -1)), -1);
    CHECK_EQ(un_orient(tu_pt(0, 0), tu_pt(1, 0), tu_pt(5, 0)), 0);
    CHECK_EQ(un_orient(tu_pt(-L, -L), tu_pt(L, L), tu_pt(L - 1, L)), 1);
    CHECK_EQ(un_orient(tu_pt(-L, -L), tu_pt(L, L), tu_pt(L, L - 1)), -1);
    CHECK_EQ(un_orient(tu_pt(-L, -L), tu_pt(L, L), tu_pt(0, 0)), 0);
    /* nearly collinear at the coordinate limit */
    CHECK_EQ(un_orient(tu_pt(-L, -L + 1), tu_pt(L, L), tu_pt(L - 2, L - 2)), -1);
    for (i = 0; i < 100000; i++) {
        un_pt a = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        un_pt b = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        un_pt c;
        int64_t t = tu_range(&s, -4, 4);
        if (i % 2) c = tu_pt(a.x + t * (b.x - a.x) / 4, a.y + t * (b.y - a.y) / 4);
        else c = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        if (c.x < -L || c.x > L || c.y < -L || c.y > L) continue;
        {
            int ref = ref_sign_mul_sub(b.x - a.x, c.y - a.y, b.y - a.y, c.x - a.x);
            if (un_orient(a, b, c) != ref) {
                CHECK_MSG(0, "orient mismatch at %d", i);
                break;
            }
            /* antisymmetry */
            if (un_orient(b, a, c) != -ref || un_orient(a, c, b) != -ref) {
                CHECK_MSG(0, "orient not antisymmetric at %d", i);
                break;
            }
        }
    }
}

static void test_angle_cmp(void)
{
    /* directions in strictly increasing angle from the positive x axis */
    const int64_t d[][2] = {{1, 0}, {1000000, 1}, {1, 1}, {0, 1}, {-1, 1}, {-1000000, 1}, {-1, 0},
                            {-1000000, -1}, {-1, -1}, {0, -1}, {1, -1}, {1000000, -1}};
    const int n = (int)(sizeof d / sizeof d[0]);
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            int c = un_angle_cmp(d[i][0], d[i][1], d[j][0], d[j][1]);
            int want = (i > j) - (i < j);
            CHECK_MSG((c > 0) - (c < 0) == want, "angle(%d) vs angle(%d): %d", i, j, c);
        }
    CHECK_EQ(un_angle_cmp(2, 0, 7, 0), 0);
    CHECK_EQ(un_angle_cmp(-3, -3, -1, -1), 0);
    CHECK(un_angle_cmp(1, 0, -1, 0) < 0);
    CHECK(un_angle_cmp((int64_t)1 << 29, -1, 1, 0) > 0); /* just below 2 pi */
    /* from a reference direction */
    CHECK(un_angle_cmp_from(0, 1, -1, 0, 1, 0) < 0);   /* from +y: -x at 90, +x at 270 */
    CHECK(un_angle_cmp_from(0, 1, 0, 1, 1, 0) < 0);    /* a itself is angle 0 */
    CHECK_EQ(un_angle_cmp_from(1, 1, 2, 2, 3, 3), 0);
    CHECK(un_angle_cmp_from(-1, 0, 0, -1, 0, 1) < 0);
}

static void test_in_arc(void)
{
    /* ccw arc from +x to +y */
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 1, 1, 0, 0), 1);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, -1, 1, 0, 0), 0);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 1, -1, 0, 0), 0);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 5, 0, 0, 0), 0);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 5, 0, 1, 0), 1);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 0, 3, 0, 0), 0);
    CHECK_EQ(un_in_arc(1, 0, 0, 1, 0, 3, 0, 1), 1);
    /* reflex arc from +y ccw to +x (270 degrees) */
    CHECK_EQ(un_in_arc(0, 1, 1, 0, -1, -1, 0, 0), 1);
    CHECK_EQ(un_in_arc(0, 1, 1, 0, 1, 1, 0, 0), 0);
    /* arc crossing the angle wrap: from (1, -1) to (1, 1) */
    CHECK_EQ(un_in_arc(1, -1, 1, 1, 1, 0, 0, 0), 1);
    CHECK_EQ(un_in_arc(1, -1, 1, 1, -1, 0, 0, 0), 0);
}

static void test_rational_points(void)
{
    const int64_t L = UN_COORD_LIMIT;
    uint64_t s = 7;
    int i;
    un_rpt p;
    /* midpoint of (0,0)-(10,0) is x = 5 exactly */
    p.base = tu_pt(0, 0); p.dx = 10; p.dy = 0; p.n = 1; p.d = 2;
    CHECK_EQ(un_rpt_cmp_x(&p, 5), 0);
    CHECK_EQ(un_rpt_cmp_x(&p, 4), 1);
    CHECK_EQ(un_rpt_cmp_x(&p, 6), -1);
    CHECK_EQ(un_rpt_cmp_y(&p, 0), 0);
    CHECK_EQ(un_rpt_orient(tu_pt(5, -1), tu_pt(5, 1), &p), 0);
    /* 1/3 along (0,0)-(3,3): (1, 1) */
    p.dx = 3; p.dy = 3; p.n = 1; p.d = 3;
    CHECK_EQ(un_rpt_orient(tu_pt(0, 2), tu_pt(2, 0), &p), 0);
    CHECK_EQ(un_rpt_orient(tu_pt(0, 2), tu_pt(3, 0), &p), -1);
    for (i = 0; i < 50000; i++) {
        un_pt a = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        un_pt b = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        un_pt e0 = tu_pt(tu_range(&s, -L, L), tu_range(&s, -L, L));
        int64_t X = tu_range(&s, -L, L);
        p.base = a;
        p.dx = b.x - a.x;
        p.dy = b.y - a.y;
        p.d = tu_range(&s, 1, ((int64_t)1 << 61));
        p.n = tu_range(&s, 0, p.d);
#if HAVE_REF128
        {
            /* p.x - X = (d*(a.x - X) + dx*n) / d */
            ref128 num = (ref128)p.d * (a.x - X) + (ref128)p.dx * p.n;
            int want = (num > 0) - (num < 0);
            ref128 c1, c2, v;
            int w2;
            if (un_rpt_cmp_x(&p, X) != want) { CHECK_MSG(0, "cmp_x mismatch at %d", i); break; }
            /* orientation of p against e0 -> b: d*cross(e, base - e0) + n*cross(e, dir);
             * every cross product is below 2^62 for coordinates within the limit */
            c1 = (ref128)(b.x - e0.x) * (a.y - e0.y) - (ref128)(b.y - e0.y) * (a.x - e0.x);
            c2 = (ref128)(b.x - e0.x) * p.dy - (ref128)(b.y - e0.y) * p.dx;
            v = (ref128)p.d * c1 + (ref128)p.n * c2;
            w2 = (v > 0) - (v < 0);
            if (un_rpt_orient(e0, b, &p) != w2) { CHECK_MSG(0, "rpt_orient mismatch at %d", i); break; }
        }
#else
        (void)X; (void)e0;
#endif
    }
}

static void test_rpt_in_ring(void)
{
    /* square 0..10 */
    const un_pt sq[4] = {{0, 0}, {10, 0}, {10, 10}, {0, 10}};
    un_rpt p;
    int64_t x, y;
    p.dx = p.dy = 0; p.n = 0; p.d = 1;
    for (x = -1; x <= 11; x++)
        for (y = -1; y <= 11; y++) {
            int want = (x < 0 || x > 10 || y < 0 || y > 10) ? 0 : (x == 0 || x == 10 || y == 0 || y == 10) ? -1 : 1;
            p.base = tu_pt(x, y);
            CHECK_MSG(un_rpt_in_ring(sq, 4, &p) == want, "(%lld, %lld)", (long long)x, (long long)y);
        }
    /* rational points: the middle of a diagonal through the corner */
    p.base = tu_pt(-5, -5); p.dx = 10; p.dy = 10; p.n = 1; p.d = 2;   /* (0, 0): a vertex */
    CHECK_EQ(un_rpt_in_ring(sq, 4, &p), -1);
    p.n = 2; p.d = 3;   /* (1.67, 1.67): inside */
    CHECK_EQ(un_rpt_in_ring(sq, 4, &p), 1);
    p.n = 1; p.d = 3;   /* (-1.67, -1.67): outside */
    CHECK_EQ(un_rpt_in_ring(sq, 4, &p), 0);
    p.base = tu_pt(10, -7); p.dx = 0; p.dy = 21; p.n = 1; p.d = 3;  /* (10, 0): a corner */
    CHECK_EQ(un_rpt_in_ring(sq, 4, &p), -1);
    p.n = 2; p.d = 3;   /* (10, 7): on the right edge */
    CHECK_EQ(un_rpt_in_ring(sq, 4, &p), -1);
    /* a concave ring with a horizontal edge at the test point's height */
    {
        const un_pt u[8] = {{0, 0}, {6, 0}, {6, 4}, {4, 4}, {4, 2}, {2, 2}, {2, 4}, {0, 4}};
        p.dx = p.dy = 0; p.n = 0; p.d = 1;
        p.base = tu_pt(3, 3);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), 0);
        p.base = tu_pt(3, 2);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), -1);
        p.base = tu_pt(3, 1);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), 1);
        p.base = tu_pt(1, 2);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), 1);
        p.base = tu_pt(5, 4);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), -1);
        p.base = tu_pt(-1, 2); CHECK_EQ(un_rpt_in_ring(u, 8, &p), 0);
        p.base = tu_pt(7, 2);  CHECK_EQ(un_rpt_in_ring(u, 8, &p), 0);
    }
}

int main(void)
{
    RUN(test_sign_mul_sub_edges);
    RUN(test_sign_mul_sub_random);
    RUN(test_orient);
    RUN(test_angle_cmp);
    RUN(test_in_arc);
    RUN(test_rational_points);
    RUN(test_rpt_in_ring);
    return tu_report("test_exact");
}
