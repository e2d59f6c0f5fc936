/*
 * test_grid.c - the per-call integer grid (grid.c).
 */
#include "tu.h"

static int is_pow2(double s)
{
    int e;
    return frexp(s, &e) == 0.5;
}

static void test_fit(void)
{
    un_grid g;
    const double boxes[][4] = {{0, 0, 1, 1}, {-3, 2, 5, 2.5}, {1e-9, 1e-9, 2e-9, 3e-9}, {-1e9, -1e9, 1e9, 1e9},
                               {5, 5, 5, 5}, {0.25, 0.5, 0.75, 1.0}, {-7.3, 1e-3, -7.1, 1e-3}};
    int i;
    for (i = 0; i < (int)(sizeof boxes / sizeof boxes[0]); i++) {
        const double *b = boxes[i];
        double r = 0.5 * fmax(b[2] - b[0], b[3] - b[1]);
        CHECK_OK(un_grid_fit(&g, b[0], b[1], b[2], b[3], 0));
        CHECK(is_pow2(g.step));
        CHECK_NEAR(g.ox, 0.5 * (b[0] + b[2]), 0);
        CHECK_NEAR(g.oy, 0.5 * (b[1] + b[3]), 0);
        /* every input point maps within a quarter of the coordinate limit,
         * and the grid is as fine as that allows (within a factor 2) */
        CHECK(r / g.step <= (double)(UN_COORD_LIMIT / 4));
        if (r > 0) CHECK(r / g.step > (double)(UN_COORD_LIMIT / 8));
    }
    /* extra room (margins) is part of the extent */
    CHECK_OK(un_grid_fit(&g, 0, 0, 1, 1, 10));
    CHECK(10.5 / g.step <= (double)(UN_COORD_LIMIT / 4));
    /* an empty box (lo > hi) gets a default grid */
    CHECK_OK(un_grid_fit(&g, HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL, 0));
    CHECK(is_pow2(g.step) && isfinite(g.ox));
    CHECK_STATUS(un_grid_fit(&g, -1e308, 0, 1e308, 1, 0), UN_ERANGE);
    CHECK_STATUS(un_grid_fit(&g, 0, 0, 1, HUGE_VAL, 0), UN_ERANGE);
}

static void test_bbox(void)
{
    un_frings f;
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    const double a[] = {1, 2, -3, 4, 5, -6};
    double b[] = {0, 0, 1, 0, 0, 1};
    un_frings_init(&f);
    CHECK_OK(un_frings_add(&f, a, 3));
    CHECK_OK(un_frings_bbox(&f, lo, hi));
    CHECK(lo[0] == -3 && lo[1] == -6 && hi[0] == 5 && hi[1] == 4);
    b[3] = NAN;
    CHECK_OK(un_frings_add(&f, b, 3));
    CHECK_STATUS(un_frings_bbox(&f, lo, hi), UN_EINVAL);
    f.xy[2 * 4 + 1] = INFINITY;
    CHECK_STATUS(un_frings_bbox(&f, lo, hi), UN_EINVAL);
    un_frings_free(&f);
}

static void test_roundtrip(void)
{
    un_frings f, back;
    un_rings r;
    un_grid g;
    uint64_t s = 3;
    double xy[2 * 200];
    int i;
    un_frings_init(&f);
    un_frings_init(&back);
    un_rings_init(&r);
    for (i = 0; i < 200; i++) {
        xy[2 * i] = (double)tu_range(&s, -1000000, 1000000) * 1e-6 + 3.0;
        xy[2 * i + 1] = (double)tu_range(&s, -1000000, 1000000) * 1e-6 - 7.0;
    }
    CHECK_OK(un_frings_add(&f, xy, 200));
    CHECK_OK(un_grid_fit(&g, 2, -8, 4, -6, 0));
    CHECK_OK(un_grid_in(&g, &f, &r));
    CHECK_EQ(r.nrings, 1);
    CHECK_EQ(un_rings_npts(&r), 200);
    CHECK_OK(un_grid_out(&g, &r, &back, 1));
    for (i = 0; i < 400; i++) CHECK(fabs(back.xy[i] - xy[i]) <= 0.5 * g.step);
    /* points on the grid go through unchanged; without the shift the
     * origin is left out (translations) */
    for (i = 0; i < 200; i++) {
        xy[2 * i] = g.ox + (double)tu_range(&s, -1000, 1000) * g.step;
        xy[2 * i + 1] = g.oy + (double)tu_range(&s, -1000, 1000) * g.step;
    }
    un_frings_free(&f);
    un_frings_free(&back);
    CHECK_OK(un_frings_add(&f, xy, 200));
    CHECK_OK(un_grid_in(&g, &f, &r));
    CHECK_OK(un_grid_out(&g, &r, &back, 1));
    for (i = 0; i < 400; i++) CHECK(back.xy[i] == xy[i]);
    un_frings_free(&back);
    CHECK_OK(un_grid_out(&g, &r, &back, 0));
    for (i = 0; i < 200; i++) CHECK(back.xy[2 * i] == xy[2 * i] - g.ox && back.xy[2 * i + 1] == xy[2 * i + 1] - g.oy);
    /* a point outside the range of the grid */
    f.xy[10] = 1e6;
    CHECK_STATUS(un_grid_in(&g, &f, &r), UN_ERANGE);
    un_frings_free(&f);
    un_frings_free(&back);
    un_rings_free(&r);
}

int main(void)
{
    RUN(test_fit);
    RUN(test_bbox);
    RUN(test_roundtrip);
    return tu_report("test_grid");
}
