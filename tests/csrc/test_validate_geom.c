/*
 * test_validate_geom.c - the independent pair check (validate.c) and the
 * float entry points un_geom_* end to end, including their argument checks.
 */
#include "tu.h"

static void pair(const int64_t *a, int32_t na, const int64_t *b, int32_t nb, double margin, int *over, double *dist)
{
    un_rings x, y;
    un_rings_init(&x);
    un_rings_init(&y);
    tu_add(&x, a, na);
    tu_add(&y, b, nb);
    CHECK_OK(un_pair_check(&x, &y, margin, HUGE_VAL, over, dist));
    un_rings_free(&x);
    un_rings_free(&y);
}

static void test_pair_check(void)
{
    const int64_t sq[] = {0, 0, 100, 0, 100, 100, 0, 100};
    int64_t b[8];
    int over, i;
    double d;
    /* overlapping, touching along an edge, touching at a corner, apart */
    for (i = 0; i < 8; i++) b[i] = sq[i] + (i % 2 ? 0 : 50);
    pair(sq, 4, b, 4, 0, &over, &d);
    CHECK(over && d == 0);
    for (i = 0; i < 8; i++) b[i] = sq[i] + (i % 2 ? 0 : 100);
    pair(sq, 4, b, 4, 0, &over, &d);
    CHECK(!over && d == 0);
    pair(sq, 4, b, 4, 10, &over, &d);
    CHECK(over);
    for (i = 0; i < 8; i++) b[i] = sq[i] + 100;
    pair(sq, 4, b, 4, 0, &over, &d);
    CHECK(!over && d == 0);
    for (i = 0; i < 8; i++) b[i] = sq[i] + (i % 2 ? 30 : 130);
    pair(sq, 4, b, 4, 29, &over, &d);
    CHECK(!over);
    CHECK_NEAR(d, 30, 1e-12);
    pair(sq, 4, b, 4, 40, &over, &d);
    CHECK(over);
    /* identical polygons, given in opposite orientations */
    {
        int64_t r[8];
        for (i = 0; i < 4; i++) { r[2 * i] = sq[2 * (3 - i)]; r[2 * i + 1] = sq[2 * (3 - i) + 1]; }
        pair(sq, 4, r, 4, 0, &over, &d);
        CHECK(over);
    }
    /* containment without any crossing */
    {
        const int64_t small[] = {40, 40, 60, 40, 60, 60, 40, 60};
        pair(sq, 4, small, 4, 0, &over, &d);
        CHECK(over);
        pair(small, 4, sq, 4, 0, &over, &d);
        CHECK(over);
    }
    /* a diamond with its corners on the square's edges */
    {
        const int64_t dia[] = {50, 0, 100, 50, 50, 100, 0, 50};
        pair(sq, 4, dia, 4, 0, &over, &d);
        CHECK(over);
    }
    /* a piece exactly filling a hole: touching, not overlapping */
    {
        un_rings x, y;
        const int64_t h[] = {30, 30, 30, 70, 70, 70, 70, 30};
        const int64_t f[] = {30, 30, 70, 30, 70, 70, 30, 70};
        un_rings_init(&x);
        un_rings_init(&y);
        tu_add(&x, sq, 4);
        tu_add(&x, h, 4);
        tu_add(&y, f, 4);
        CHECK_OK(un_pair_check(&x, &y, 0, HUGE_VAL, &over, &d));
        CHECK(!over && d == 0);
        CHECK_OK(un_pair_check(&y, &x, 5, HUGE_VAL, &over, &d));
        CHECK(over);
        un_rings_free(&x);
        un_rings_free(&y);
    }
}

static void test_geom_overlaps(void)
{
    un_frings a, b;
    int over;
    double d;
    un_frings_init(&a);
    un_frings_init(&b);
    tu_fbox(&a, 0, 0, 1, 1);
    tu_fbox(&b, 1.25, 0, 2, 1);
    CHECK_OK(un_geom_overlaps(&a, &b, 0.2, &over, &d));
    CHECK(!over);
    CHECK_NEAR(d, 0.25, 1e-7);
    CHECK_OK(un_geom_overlaps(&a, &b, 0.3, &over, &d));
    CHECK(over);
    CHECK_STATUS(un_geom_overlaps(&a, &b, -0.1, &over, &d), UN_EINVAL);
    CHECK_STATUS(un_geom_overlaps(&a, &b, NAN, &over, &d), UN_EINVAL);
    b.xy[0] = NAN;
    CHECK_STATUS(un_geom_overlaps(&a, &b, 0, &over, &d), UN_EINVAL);
    un_frings_free(&a);
    un_frings_free(&b);
}

static void test_geom_nfp(void)
{
    un_frings a, b, out;
    un_frings_init(&a); un_frings_init(&b); un_frings_init(&out);
    tu_fbox(&a, 0, 0, 3, 2);
    tu_fbox(&b, 10, 10, 11, 11);
    CHECK_OK(un_geom_nfp(&a, &b, &out, NULL));
    CHECK_EQ(out.nrings, 1);
    CHECK_NEAR(tu_frings_area(&out), 4 * 3, 1e-9);
    CHECK(tu_fpoint_in_rings(&out, -10.5, -10.5));
    CHECK(!tu_fpoint_in_rings(&out, -12, -10.5));
    CHECK_NEAR(tu_fdist_to_rings(&out, -11, -10.5), 0, 1e-9);
    b.xy[3] = INFINITY;
    CHECK_STATUS(un_geom_nfp(&a, &b, &out, NULL), UN_EINVAL);
    CHECK_EQ(out.nrings, 0);
    un_frings_free(&a); un_frings_free(&b); un_frings_free(&out);
}

static void test_geom_outline(void)
{
    const double uv[] = {0, 0, 1, 0, 1, 1, 0, 1, 2, 0, 2, 1};
    const int32_t fi[] = {0, 1, 2, 3, 1, 4, 5, 2};
    const int32_t fs[] = {0, 4, 8};
    const int32_t bad[] = {0, 1, 9, 3, 1, 4, 5, 2};
    un_frings out;
    un_frings_init(&out);
    CHECK_OK(un_geom_outline(uv, 6, fs, 2, fi, &out));
    CHECK_EQ(out.nrings, 1);
    CHECK_NEAR(tu_frings_area(&out), 2.0, 1e-12);
    CHECK_STATUS(un_geom_outline(uv, 6, fs, 2, bad, &out), UN_EINVAL);
    CHECK_EQ(out.nrings, 0);
    CHECK_STATUS(un_geom_outline(uv, -1, fs, 2, fi, &out), UN_EINVAL);
    un_frings_free(&out);
}

static void test_geom_simplify(void)
{
    const double star[] = {2, 0, 0.5, 0.5, 0, 2, -0.5, 0.5, -2, 0, -0.5, -0.5, 0, -2, 0.5, -0.5};
    un_frings in, out;
    double used = -1;
    un_frings_init(&in);
    un_frings_init(&out);
    CHECK_OK(un_frings_add(&in, star, 8));
    CHECK_OK(un_geom_simplify(&in, 0.0, 4, &out, &used));
    CHECK_EQ(un_frings_npts(&out), 4);
    /* the result reaches farthest from the star at the middle of its side,
     * (1, 1), sqrt(0.4) from the star's edge (2, 0)-(0.5, 0.5) */
    CHECK(used >= 0.632 && used < 0.75);
    CHECK(tu_fpoint_in_rings(&out, 1.99, 0) && tu_fpoint_in_rings(&out, 0, -1.99));
    CHECK_OK(un_geom_simplify(&in, 0.0, 100, &out, &used));
    CHECK_EQ(un_frings_npts(&out), 8);
    CHECK(used < 1e-6);
    CHECK_STATUS(un_geom_simplify(&in, -1.0, 10, &out, &used), UN_EINVAL);
    CHECK_STATUS(un_geom_simplify(&in, INFINITY, 10, &out, &used), UN_EINVAL);
    CHECK_STATUS(un_geom_simplify(&in, 0.1, 3, &out, &used), UN_EINVAL);
    un_frings_free(&in);
    un_frings_free(&out);
}

int main(void)
{
    RUN(test_pair_check);
    RUN(test_geom_overlaps);
    RUN(test_geom_nfp);
    RUN(test_geom_outline);
    RUN(test_geom_simplify);
    return tu_report("test_validate_geom");
}
