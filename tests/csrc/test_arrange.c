/*
 * test_arrange.c - the arrangement / winding-number engine (arrange.c).
 *
 * Oracles: unions of integer rectangles by coordinate compression (exact
 * areas and point membership), and hand-made degenerate configurations.
 */
#include "tu.h"

typedef struct {
    int64_t x0, y0, x1, y1;
} rect;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Area of (union of rects) intersected with clip (or everything if NULL). */
static int64_t union_area(const rect *r, int n, const rect *clip)
{
    int64_t xs[64], ys[64], area = 0;
    int nx = 0, ny = 0, i, j, k;
    for (i = 0; i < n; i++) {
        xs[nx++] = r[i].x0; xs[nx++] = r[i].x1;
        ys[ny++] = r[i].y0; ys[ny++] = r[i].y1;
    }
    if (clip) {
        xs[nx++] = clip->x0; xs[nx++] = clip->x1;
        ys[ny++] = clip->y0; ys[ny++] = clip->y1;
    }
    qsort(xs, (size_t)nx, sizeof *xs, cmp_i64);
    qsort(ys, (size_t)ny, sizeof *ys, cmp_i64);
    for (i = 0; i + 1 < nx; i++)
        for (j = 0; j + 1 < ny; j++) {
            int64_t cx = xs[i] + xs[i + 1], cy = ys[j] + ys[j + 1]; /* 2 * centre */
            if (xs[i] == xs[i + 1] || ys[j] == ys[j + 1]) continue;
            if (clip && (cx < 2 * clip->x0 || cx > 2 * clip->x1 || cy < 2 * clip->y0 || cy > 2 * clip->y1)) continue;
            for (k = 0; k < n; k++)
                if (cx > 2 * r[k].x0 && cx < 2 * r[k].x1 && cy > 2 * r[k].y0 && cy < 2 * r[k].y1) break;
            if (k < n) area += (xs[i + 1] - xs[i]) * (ys[j + 1] - ys[j]);
        }
    return area;
}

static void push_rect(un_seg *s, int *n, rect r, int32_t ws, int32_t wc, int cw)
{
    un_pt c[4];
    int k;
    c[0] = tu_pt(r.x0, r.y0); c[1] = tu_pt(r.x1, r.y0); c[2] = tu_pt(r.x1, r.y1); c[3] = tu_pt(r.x0, r.y1);
    for (k = 0; k < 4; k++) {
        un_seg *g = s + (*n)++;
        g->a = cw ? c[(k + 1) % 4] : c[k];
        g->b = cw ? c[k] : c[(k + 1) % 4];
        g->ws = cw ? -ws : ws;
        g->wc = cw ? -wc : wc;
        g->tag = *n / 4; /* one solid per rectangle */
    }
}

/* Loops as integer rings (grid-rounded points). */
static void loops_as_rings(const un_arr *w, un_rings *out)
{
    const un_loop *L = un_arr_loops(w);
    int32_t k;
    un_rings_clear(out);
    for (k = 0; k < un_arr_nloops(w); k++)
        if (un_rings_add(out, un_arr_ipts(w) + L[k].start, L[k].end - L[k].start) != UN_OK) abort();
}

static void test_union_of_rectangles(void)
{
    un_arr *w = un_workspace_new();
    un_rings loops;
    uint64_t s = 2024;
    int iter;
    un_rings_init(&loops);
    for (iter = 0; iter < 400; iter++) {
        rect r[12];
        un_seg segs[48];
        int n = (int)tu_range(&s, 1, 12), nseg = 0, i, k;
        int64_t want, got2 = 0;
        for (i = 0; i < n; i++) {
            r[i].x0 = tu_range(&s, 0, 9); r[i].x1 = tu_range(&s, r[i].x0 + 1, 10);
            r[i].y0 = tu_range(&s, 0, 9); r[i].y1 = tu_range(&s, r[i].y0 + 1, 10);
            /* a clockwise rectangle with negated weight is the same solid */
            push_rect(segs, &nseg, r[i], 1, 0, (int)(tu_rand(&s) & 1));
        }
        want = union_area(r, n, NULL);
        CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL));
        loops_as_rings(w, &loops);
        for (k = 0; k < loops.nrings; k++) {
            int64_t a2 = tu_area2(loops.pts + loops.start[k], loops.start[k + 1] - loops.start[k]);
            CHECK_MSG((a2 < 0) == (un_arr_loops(w)[k].hole != 0), "iter %d loop %d: area2 %lld hole %d", iter,
                      (int)k, (long long)a2, (int)un_arr_loops(w)[k].hole);
            CHECK_NEAR(un_arr_loops(w)[k].area2, (double)a2, 1e-6);
            got2 += a2;
        }
        CHECK_MSG(got2 == 2 * want, "iter %d: union area %lld, traced %lld/2", iter, (long long)want,
                  (long long)got2);
        /* membership of cell centres: parity of the loops = covered */
        {
            int64_t x, y;
            for (x = 0; x < 10; x++)
                for (y = 0; y < 10; y++) {
                    int in_union = 0, in_loops;
                    un_pt p;
                    for (i = 0; i < n; i++)
                        if (x >= r[i].x0 && x + 1 <= r[i].x1 && y >= r[i].y0 && y + 1 <= r[i].y1) in_union = 1;
                    /* test the point (x + 0.5, y + 0.5) on a doubled copy */
                    {
                        un_rings dbl;
                        int32_t j;
                        un_rings_init(&dbl);
                        if (un_rings_copy(&dbl, &loops) != UN_OK) abort();
                        for (j = 0; j < un_rings_npts(&dbl); j++) { dbl.pts[j].x *= 2; dbl.pts[j].y *= 2; }
                        p = tu_pt(2 * x + 1, 2 * y + 1);
                        in_loops = tu_point_in_rings(&dbl, p);
                        un_rings_free(&dbl);
                    }
                    if (in_loops != in_union) {
                        CHECK_MSG(0, "iter %d: cell (%d, %d) covered=%d traced=%d", iter, (int)x, (int)y, in_union,
                                  in_loops);
                        x = y = 10;
                    }
                }
        }
    }
    un_rings_free(&loops);
    un_workspace_free(w);
}

static void test_free_set_of_container_minus_open_rectangles(void)
{
    un_arr *w = un_workspace_new();
    uint64_t s = 77;
    int iter;
    for (iter = 0; iter < 300; iter++) {
        rect c, r[10];
        un_seg segs[44];
        int n = (int)tu_range(&s, 0, 10), nseg = 0, i, k;
        int64_t want;
        double got2 = 0;
        c.x0 = 0; c.y0 = 0; c.x1 = tu_range(&s, 4, 10); c.y1 = tu_range(&s, 4, 10);
        push_rect(segs, &nseg, c, 0, 1, 0);
        for (i = 0; i < n; i++) {
            r[i].x0 = tu_range(&s, -2, 9); r[i].x1 = tu_range(&s, r[i].x0 + 1, 11);
            r[i].y0 = tu_range(&s, -2, 9); r[i].y1 = tu_range(&s, r[i].y0 + 1, 11);
            push_rect(segs, &nseg, r[i], 1, 0, (int)(tu_rand(&s) & 1));
        }
        want = (c.x1 - c.x0) * (c.y1 - c.y0) - union_area(r, n, &c);
        CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_FREE, NULL));
        for (k = 0; k < un_arr_nloops(w); k++) {
            const un_loop *L = un_arr_loops(w) + k;
            got2 += L->area2;
            /* a loop with area: holes run clockwise, outer loops counter-clockwise */
            if (L->area2 != 0)
                CHECK_MSG((L->area2 < 0) == (L->hole != 0), "iter %d loop %d area2 %g hole %d", iter, (int)k,
                          L->area2, (int)L->hole);
        }
        CHECK_MSG(fabs(got2 - 2.0 * (double)want) < 1e-6, "iter %d: free area %lld, traced %g/2", iter,
                  (long long)want, got2);
    }
    un_workspace_free(w);
}

static void test_hole_touching_the_container(void)
{
    /* container [0, 9]^2 (closed), open obstacle (0, 2) x (2, 4) touching
     * the left wall along x = 0: the loop around the obstacle is a hole of
     * the free set (its leftmost vertex lies on the wall) */
    un_arr *w = un_workspace_new();
    un_seg segs[8];
    int nseg = 0, k, holes = 0, outers = 0;
    rect c = {0, 0, 9, 9}, o = {0, 2, 2, 4};
    push_rect(segs, &nseg, c, 0, 1, 0);
    push_rect(segs, &nseg, o, 1, 0, 0);
    CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_FREE, NULL));
    for (k = 0; k < un_arr_nloops(w); k++) {
        const un_loop *L = un_arr_loops(w) + k;
        if (L->hole) holes++;
        else outers++;
        if (L->area2 < 0) CHECK_MSG(L->hole, "clockwise loop %d (area2 %g) not flagged as a hole", (int)k, L->area2);
    }
    CHECK_EQ(outers, 1);
    CHECK_EQ(holes, 1);
    un_workspace_free(w);
}

static void test_crack_is_traced_there_and_back(void)
{
    /* two open obstacles leave exactly the line x = 4 of the container
     * [0, 10]^2: the free set is that segment */
    un_arr *w = un_workspace_new();
    un_seg segs[12];
    int nseg = 0, k, found_lo = 0, found_hi = 0;
    rect c = {0, 0, 10, 10}, a = {-1, -1, 4, 11}, b = {4, -1, 11, 11};
    push_rect(segs, &nseg, c, 0, 1, 0);
    push_rect(segs, &nseg, a, 1, 0, 0);
    push_rect(segs, &nseg, b, 1, 0, 0);
    CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_FREE, NULL));
    CHECK_EQ(un_arr_nloops(w), 1);
    for (k = 0; k < un_arr_nloops(w); k++) {
        const un_loop *L = un_arr_loops(w) + k;
        int32_t i;
        CHECK_NEAR(L->area2, 0, 0);
        for (i = L->start; i < L->end; i++) {
            un_pt p = un_arr_ipts(w)[i];
            CHECK(p.x == 4 && p.y >= 0 && p.y <= 10);
            found_lo |= p.y == 0;
            found_hi |= p.y == 10;
        }
    }
    CHECK(found_lo && found_hi);
    un_workspace_free(w);
}

static void test_collinear_overlaps_and_shared_edges(void)
{
    /* three rectangles sharing collinear, partly overlapping edges */
    un_arr *w = un_workspace_new();
    un_seg segs[12];
    int nseg = 0;
    rect r[3] = {{0, 0, 4, 2}, {2, 2, 6, 4}, {4, 0, 8, 2}};
    un_rings loops;
    const int64_t want[] = {0, 0, 8, 0, 8, 2, 6, 2, 6, 4, 2, 4, 2, 2, 0, 2};
    un_rings_init(&loops);
    push_rect(segs, &nseg, r[0], 1, 0, 0);
    push_rect(segs, &nseg, r[1], 1, 0, 0);
    push_rect(segs, &nseg, r[2], 1, 0, 0);
    CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL));
    loops_as_rings(w, &loops);
    CHECK_OK(un_rings_clean(&loops, 0));
    CHECK_EQ(loops.nrings, 1);
    CHECK(tu_has_ring(&loops, want, 8));
    un_rings_free(&loops);
    un_workspace_free(w);
}

static void test_fan_of_triangles_through_one_point(void)
{
    /* 8 triangles around the origin, every edge through (0, 0): the union
     * is the octagon-like star polygon; its area is the sum */
    un_arr *w = un_workspace_new();
    un_seg segs[24];
    const int64_t v[8][2] = {{10, 0}, {7, 7}, {0, 10}, {-7, 7}, {-10, 0}, {-7, -7}, {0, -10}, {7, -7}};
    int nseg = 0, k;
    int64_t want2 = 0;
    double got2 = 0;
    for (k = 0; k < 8; k++) {
        un_pt o = tu_pt(0, 0), a = tu_pt(v[k][0], v[k][1]), b = tu_pt(v[(k + 1) % 8][0], v[(k + 1) % 8][1]);
        un_pt t[3];
        int j;
        t[0] = o; t[1] = a; t[2] = b;
        want2 += tu_area2(t, 3);
        for (j = 0; j < 3; j++) {
            segs[nseg].a = t[j];
            segs[nseg].b = t[(j + 1) % 3];
            segs[nseg].ws = 1;
            segs[nseg].wc = 0;
            segs[nseg].tag = k;
            nseg++;
        }
    }
    CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL));
    CHECK_EQ(un_arr_nloops(w), 1);
    for (k = 0; k < un_arr_nloops(w); k++) got2 += un_arr_loops(w)[k].area2;
    CHECK_NEAR(got2, (double)want2, 1e-9);
    un_workspace_free(w);
}

static void test_crossing_segments_exact_vertex(void)
{
    /* two triangles crossing at non-integer points: the traced vertices are
     * reported exactly (doubles) and rounded (ipts) */
    un_arr *w = un_workspace_new();
    un_seg segs[6];
    const int64_t t1[] = {0, 0, 3, 0, 0, 3}, t2[] = {1, -1, 4, 2, 1, 2};
    int nseg = 0, j, k, found = 0;
    for (j = 0; j < 3; j++) {
        segs[nseg].a = tu_pt(t1[2 * j], t1[2 * j + 1]);
        segs[nseg].b = tu_pt(t1[2 * ((j + 1) % 3)], t1[2 * ((j + 1) % 3) + 1]);
        segs[nseg].ws = 1; segs[nseg].wc = 0; segs[nseg].tag = 0; nseg++;
    }
    for (j = 0; j < 3; j++) {
        segs[nseg].a = tu_pt(t2[2 * j], t2[2 * j + 1]);
        segs[nseg].b = tu_pt(t2[2 * ((j + 1) % 3)], t2[2 * ((j + 1) % 3) + 1]);
        segs[nseg].ws = 1; segs[nseg].wc = 0; segs[nseg].tag = 1; nseg++;
    }
    CHECK_OK(un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL));
    CHECK_EQ(un_arr_nloops(w), 1);
    /* the hypotenuse x + y = 3 meets the edge y = x - 2 at (2.5, 0.5) */
    for (k = 0; k < un_arr_nloops(w); k++) {
        const un_loop *L = un_arr_loops(w) + k;
        int32_t i;
        for (i = L->start; i < L->end; i++) {
            const double *p = un_arr_xy(w) + 2 * i;
            if (p[0] == 2.5 && p[1] == 0.5) {
                un_pt q = un_arr_ipts(w)[i];
                found = 1;
                CHECK((q.x == 2 || q.x == 3) && (q.y == 0 || q.y == 1));
            }
        }
    }
    CHECK(found);
    un_workspace_free(w);
}

static void test_inputs_checked(void)
{
    un_arr *w = un_workspace_new();
    un_seg s[3];
    s[0].a = tu_pt(0, 0); s[0].b = tu_pt(UN_COORD_LIMIT + 1, 0); s[0].ws = 1; s[0].wc = 0; s[0].tag = 0;
    CHECK_STATUS(un_arr_run(w, s, 1, UN_SEL_COVERED, NULL), UN_ERANGE);
    CHECK_OK(un_arr_run(w, s, 0, UN_SEL_COVERED, NULL));
    CHECK_EQ(un_arr_nloops(w), 0);
    /* zero-length and zero-weight segments are ignored */
    s[0].b = tu_pt(0, 0);
    s[1].a = tu_pt(0, 0); s[1].b = tu_pt(5, 5); s[1].ws = 0; s[1].wc = 0; s[1].tag = 0;
    CHECK_OK(un_arr_run(w, s, 2, UN_SEL_COVERED, NULL));
    CHECK_EQ(un_arr_nloops(w), 0);
    /* a point loop added by hand */
    CHECK_OK(un_arr_add_point(w, tu_pt(3, 4)));
    CHECK_EQ(un_arr_nloops(w), 1);
    CHECK(un_arr_ipts(w)[un_arr_loops(w)[0].start].x == 3);
    un_workspace_free(w);
    un_workspace_free(NULL);
}

static void test_segs_from_rings(void)
{
    un_rings r;
    un_seg *segs = NULL;
    int32_t n = 0, cap = 0;
    const int64_t sq[] = {0, 0, 4, 0, 4, 4, 0, 4}, tri[] = {9, 9, 10, 9, 9, 10};
    un_rings_init(&r);
    tu_add(&r, sq, 4);
    tu_add(&r, tri, 3);
    CHECK_OK(un_segs_from_rings(&segs, &n, &cap, &r, 1, 2, 7, 0));
    CHECK_EQ(n, 7);
    CHECK(segs[3].a.x == 0 && segs[3].a.y == 4 && segs[3].b.x == 0 && segs[3].b.y == 0);
    CHECK(segs[6].a.x == 9 && segs[6].a.y == 10 && segs[6].b.x == 9 && segs[6].b.y == 9);
    CHECK(segs[0].ws == 1 && segs[0].wc == 2 && segs[0].tag == 7);
    CHECK_OK(un_segs_from_rings(&segs, &n, &cap, &r, -1, 0, 8, 1));
    CHECK_EQ(n, 14);
    CHECK(segs[7].a.x == 4 && segs[7].a.y == 0 && segs[7].b.x == 0 && segs[7].b.y == 0);
    CHECK(segs[7].ws == -1);
    free(segs);
    un_rings_free(&r);
}

int main(void)
{
    RUN(test_union_of_rectangles);
    RUN(test_free_set_of_container_minus_open_rectangles);
    RUN(test_hole_touching_the_container);
    RUN(test_crack_is_traced_there_and_back);
    RUN(test_collinear_overlaps_and_shared_edges);
    RUN(test_fan_of_triangles_through_one_point);
    RUN(test_crossing_segments_exact_vertex);
    RUN(test_inputs_checked);
    RUN(test_segs_from_rings);
    return tu_report("test_arrange");
}
