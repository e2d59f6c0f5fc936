/*
 * test_bridge_triangulate.c - ring orientation by nesting, hole bridging
 * (bridge.c) and ear clipping (triangulate.c).
 */
#include "tu.h"

/* Triangulate ring k of r; check every triangle is counter-clockwise with
 * positive area and that the areas add up to the ring's area. */
static int64_t check_triangulation(const un_pt *p, int32_t n, int64_t want2)
{
    int32_t *tri = NULL, ntri = 0, cap = 0, i;
    int64_t sum = 0;
    un_status s = un_triangulate(p, n, &tri, &ntri, &cap);
    CHECK_OK(s);
    for (i = 0; i < ntri; i++) {
        un_pt t[3];
        int j;
        for (j = 0; j < 3; j++) {
            int32_t v = tri[3 * i + j];
            CHECK(v >= 0 && v < n);
            t[j] = p[v];
        }
        CHECK(tu_area2(t, 3) > 0);
        sum += tu_area2(t, 3);
    }
    CHECK_MSG(sum == want2, "triangles add up to %lld/2, ring has %lld/2", (long long)sum, (long long)want2);
    free(tri);
    return sum;
}

static void test_orient_by_nesting(void)
{
    un_rings r;
    int8_t hole[4];
    const int64_t outer[] = {0, 0, 10, 0, 10, 10, 0, 10};
    const int64_t h[] = {2, 2, 8, 2, 8, 8, 2, 8};          /* given CCW: a hole by nesting */
    const int64_t island[] = {4, 4, 6, 4, 6, 6, 4, 6};
    const int64_t other[] = {20, 0, 21, 0, 21, 1, 20, 1};
    un_rings_init(&r);
    tu_add_rev(&r, outer, 4);   /* clockwise outer */
    tu_add(&r, h, 4);
    tu_add_rev(&r, island, 4);
    tu_add_rev(&r, other, 4);
    CHECK_OK(un_rings_orient(&r, hole));
    CHECK(hole[0] == 0 && hole[1] == 1 && hole[2] == 0 && hole[3] == 0);
    CHECK(un_ring_area2(&r, 0) > 0);
    CHECK(un_ring_area2(&r, 1) < 0);
    CHECK(un_ring_area2(&r, 2) > 0);
    CHECK(un_ring_area2(&r, 3) > 0);
    CHECK_OK(un_rings_orient(&r, NULL));
    un_rings_free(&r);
}

static void test_bridge_holes(void)
{
    un_rings r, out;
    const int64_t outer[] = {0, 0, 20, 0, 20, 10, 0, 10};
    const int64_t h1[] = {2, 2, 6, 2, 6, 6, 2, 6};
    const int64_t h2[] = {10, 3, 14, 3, 12, 7};
    const int64_t h3[] = {16, 2, 18, 2, 18, 4, 16, 4};
    const int64_t comp2[] = {30, 0, 34, 0, 34, 4, 30, 4};
    int64_t want2;
    un_rings_init(&r);
    un_rings_init(&out);
    tu_add(&r, outer, 4);
    tu_add(&r, h1, 4);          /* orientation does not matter */
    tu_add_rev(&r, h2, 3);
    tu_add(&r, h3, 4);
    tu_add_rev(&r, comp2, 4);
    want2 = 2 * (200 - 16 - 8 - 4) + 2 * 16;
    CHECK_OK(un_poly_bridge(&r, NULL, &out));
    CHECK_EQ(out.nrings, 2);
    CHECK_EQ(tu_rings_area2(&out), want2);
    if (out.nrings == 2) {
        int32_t k;
        for (k = 0; k < 2; k++) {
            const un_pt *p = out.pts + out.start[k];
            int32_t n = out.start[k + 1] - out.start[k];
            CHECK(tu_area2(p, n) > 0);
            check_triangulation(p, n, tu_area2(p, n));
            if (n > 4) CHECK_EQ(n, 4 + 4 + 3 + 4 + 2 * 3);   /* every hole and its slit */
        }
    }
    /* a hole touching the outer boundary at a vertex, and a hole whose
     * lowest-leftmost vertex lines up with another hole's */
    un_rings_clear(&r);
    {
        const int64_t o[] = {0, 0, 10, 0, 10, 10, 0, 10};
        const int64_t t[] = {0, 5, 3, 4, 3, 6};             /* touches (0, 5) */
        const int64_t a[] = {5, 2, 7, 2, 7, 4, 5, 4};
        const int64_t b[] = {5, 6, 7, 6, 7, 8, 5, 8};       /* same x as a */
        tu_add(&r, o, 4);
        tu_add_rev(&r, t, 3);
        tu_add_rev(&r, a, 4);
        tu_add_rev(&r, b, 4);
        CHECK_OK(un_poly_bridge(&r, NULL, &out));
        CHECK_EQ(out.nrings, 1);
        CHECK_EQ(tu_rings_area2(&out), 2 * (100 - 3 - 4 - 4));
        if (out.nrings == 1) check_triangulation(out.pts, out.start[1], tu_rings_area2(&out));
    }
    un_rings_free(&r);
    un_rings_free(&out);
}

static void test_triangulate_shapes(void)
{
    un_rings r;
    const int64_t convex[] = {0, 0, 4, 0, 6, 3, 4, 6, 0, 6, -2, 3};
    const int64_t comb[] = {0, 0, 9, 0, 9, 5, 8, 5, 8, 1, 7, 1, 7, 5, 6, 5, 6, 1, 5, 1, 5, 5,
                            4, 5, 4, 1, 3, 1, 3, 5, 0, 5};
    const int64_t straight[] = {0, 0, 2, 0, 4, 0, 4, 4, 2, 4, 0, 4, 0, 2};
    const int64_t spiral[] = {0, 0, 10, 0, 10, 10, 2, 10, 2, 4, 6, 4, 6, 6, 4, 6, 4, 8, 8, 8, 8, 2, 0, 2};
    un_rings_init(&r);
    tu_add(&r, convex, 6);
    tu_add(&r, comb, 16);
    tu_add(&r, straight, 7);
    tu_add(&r, spiral, 12);
    {
        int32_t k;
        for (k = 0; k < r.nrings; k++) {
            const un_pt *p = r.pts + r.start[k];
            int32_t n = r.start[k + 1] - r.start[k];
            check_triangulation(p, n, tu_area2(p, n));
        }
    }
    {   /* fewer than 3 points: nothing */
        int32_t *tri = NULL, ntri = 7, cap = 0;
        CHECK_OK(un_triangulate(r.pts, 2, &tri, &ntri, &cap));
        CHECK_EQ(ntri, 0);
        free(tri);
    }
    {   /* a self-intersecting bow tie is not weakly simple */
        const un_pt bow[4] = {{0, 0}, {4, 4}, {4, 0}, {0, 4}};
        int32_t *tri = NULL, ntri = 0, cap = 0;
        un_status s = un_triangulate(bow, 4, &tri, &ntri, &cap);
        CHECK(s == UN_EINVAL || s == UN_OK);
        free(tri);
    }
    un_rings_free(&r);
}

int main(void)
{
    RUN(test_orient_by_nesting);
    RUN(test_bridge_holes);
    RUN(test_triangulate_shapes);
    return tu_report("test_bridge_triangulate");
}
