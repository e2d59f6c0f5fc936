/*
 * test_regularize.c - rings the grid made degenerate (regularize.c), needle
 * strips in outlines (outline.c) and the check that output points lie in
 * their shapes (un_validate_holds, validate.c).
 */
#include "tu.h"

/* 1 inside, 0 outside, -1 on the boundary of rings r (parity). */
static int inside(const un_rings *r, int64_t x, int64_t y)
{
    un_rpt p;
    int32_t k;
    int in = 0;
    p.base.x = x; p.base.y = y; p.dx = p.dy = p.n = 0; p.d = 1;
    for (k = 0; k < r->nrings; k++) {
        int s = un_rpt_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], &p);
        if (s < 0) return -1;
        in ^= s;
    }
    return in;
}

static double area2(const un_rings *r)
{
    double a = 0;
    int32_t k;
    for (k = 0; k < r->nrings; k++) a += un_ring_area2(r, k);
    return a;
}

/* A hole whose edge lies on the outer ring's edge once rounded: the
 * region is traced as one weakly simple ring of the same area. */
static void test_regularize_hole_on_the_outer_edge(void)
{
    const int64_t outer[] = {0, 0, 100, 0, 100, 100, 0, 100};
    const int64_t hole[] = {0, 20, 0, 60, 30, 40};   /* its edge 0,20-0,60 on the outer one */
    un_rings in, out;
    un_arr *w = un_workspace_new();
    CHECK(w != NULL);
    un_rings_init(&in);
    un_rings_init(&out);
    tu_add(&in, outer, 4);
    tu_add(&in, hole, 3);
    CHECK_OK(un_rings_regularize(w, &in, &out));
    CHECK(out.nrings >= 1);
    CHECK_NEAR(area2(&out), 2 * (10000.0 - 600.0), 1e-9);
    CHECK_EQ(inside(&out, 10, 40), 0);
    CHECK_EQ(inside(&out, 50, 50), 1);
    un_rings_free(&in);
    un_rings_free(&out);
    un_workspace_free(w);
}

/* A square with a flat spike (a needle) and a flat ring (a segment): the
 * solid shape holds the needle's tip and the segment, and has an inside
 * around each; a clean square comes back unchanged. */
static void test_solidify_keeps_needles_and_segments(void)
{
    const int64_t spiked[] = {0, 0, 100, 0, 100, 100, 300, 300, 100, 100, 0, 100};
    const int64_t flat[] = {500, 0, 600, 50, 700, 100};
    const int64_t sq[] = {0, 0, 100, 0, 100, 100, 0, 100};
    un_rings in, out;
    int changed = 0;
    un_arr *w = un_workspace_new();
    CHECK(w != NULL);
    un_rings_init(&in);
    un_rings_init(&out);
    tu_add(&in, spiked, 6);
    tu_add(&in, flat, 3);
    CHECK_OK(un_rings_solidify(w, &in, &out, &changed));
    CHECK(changed);
    CHECK(inside(&out, 300, 300) != 0);
    CHECK(inside(&out, 200, 200) != 0);
    CHECK(inside(&out, 500, 0) != 0 && inside(&out, 700, 100) != 0 && inside(&out, 600, 50) == 1);
    CHECK(inside(&out, 50, 50) == 1);
    CHECK(inside(&out, 200, 100) == 0);
    /* strips are one unit wide: the needle adds little area */
    CHECK(area2(&out) < 2 * (10000.0 + 2 * 300 * 1.5 + 2 * 224 * 1.5 + 100));
    un_rings_clear(&in);
    tu_add(&in, sq, 4);
    CHECK_OK(un_rings_solidify(w, &in, &out, &changed));
    CHECK(!changed && out.nrings == 1 && out.start[1] == 4);
    un_rings_free(&in);
    un_rings_free(&out);
    un_workspace_free(w);
}

/* Outlines with needles: a flat triangle from a square's corner is kept as
 * a strip; without needles it is dropped (geometry.outline). */
static void test_outline_keeps_needles(void)
{
    const un_pt pts[] = {{0, 0}, {100, 0}, {100, 100}, {0, 100}, {400, 400}, {250, 250}};
    const int32_t start[] = {0, 4, 7}, idx[] = {0, 1, 2, 3, 2, 4, 5};
    un_rings out;
    int32_t nsolid = -1;
    un_arr *w = un_workspace_new();
    CHECK(w != NULL);
    un_rings_init(&out);
    CHECK_OK(un_outline_rings(w, pts, 6, start, 2, idx, 1, &out, &nsolid));
    CHECK_EQ(nsolid, 1);
    CHECK(inside(&out, 400, 400) != 0 && inside(&out, 250, 250) != 0);
    CHECK_OK(un_outline_rings(w, pts, 6, start, 2, idx, 0, &out, NULL));
    CHECK(inside(&out, 400, 400) == 0);
    /* a lone point: a square two units wide around it, no solid face */
    {
        const int32_t s1[] = {0, 3}, i1[] = {4, 4, 4};
        CHECK_OK(un_outline_rings(w, pts, 6, s1, 1, i1, 1, &out, &nsolid));
        CHECK_EQ(nsolid, 0);
        CHECK(inside(&out, 400, 400) == 1);
        CHECK_NEAR(area2(&out), 8.0, 1e-12);
    }
    un_rings_free(&out);
    un_workspace_free(w);
}

/* Output points against their shapes: inside, on the edge and within the
 * tolerance pass; a needle tip outside fails and names its polygon. */
static void test_validate_holds(void)
{
    /* polygon 0: unit square; polygon 1: square [2, 3]^2 with a hole */
    const double xy[] = {0, 0, 1, 0, 1, 1, 0, 1,
                         2, 2, 3, 2, 3, 3, 2, 3,   2.4, 2.4, 2.4, 2.6, 2.6, 2.6, 2.6, 2.4};
    const int32_t ring_start[] = {0, 4, 8, 12}, poly_ring[] = {0, 1, 3};
    double pts[] = {0.5, 0.5, 1, 0.3, 1 + 1e-9, 0.5, 2.1, 2.1, 2.9, 2.5};
    const int32_t pt_start[] = {0, 3, 5};
    int32_t bad = 7;
    CHECK_OK(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, 1e-8, &bad));
    CHECK_EQ(bad, -1);
    pts[8] = 2.5; pts[9] = 2.5;   /* in polygon 1's hole */
    CHECK_OK(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, 1e-8, &bad));
    CHECK_EQ(bad, 1);
    pts[8] = 2.9; pts[9] = 2.5;
    pts[4] = 1.4;                  /* a needle tip out of polygon 0 */
    CHECK_OK(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, 1e-8, &bad));
    CHECK_EQ(bad, 0);
    CHECK_OK(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, 0.5, &bad));
    CHECK_EQ(bad, -1);
    pts[4] = NAN;
    CHECK_OK(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, 0.5, &bad));
    CHECK_EQ(bad, 0);
    CHECK_STATUS(un_validate_holds(xy, ring_start, poly_ring, 2, pts, pt_start, -1, &bad), UN_EINVAL);
}

int main(void)
{
    RUN(test_regularize_hole_on_the_outer_edge);
    RUN(test_solidify_keeps_needles_and_segments);
    RUN(test_outline_keeps_needles);
    RUN(test_validate_holds);
    return tu_report("test_regularize");
}
