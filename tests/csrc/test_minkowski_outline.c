/*
 * test_minkowski_outline.c - convolution, Minkowski sums and no-fit
 * polygons (minkowski.c), and outlines of faces (outline.c).
 *
 * Oracle for convex sums: the convex hull of all pairwise vertex sums.
 */
#include "tu.h"

static int cmp_pt(const void *a, const void *b)
{
    return un_pt_cmp(*(const un_pt *)a, *(const un_pt *)b);
}

/* Convex hull (counter-clockwise, no collinear points) of p[0..n); returns
 * its size, written to h (capacity 2n). */
static int32_t hull(un_pt *p, int32_t n, un_pt *h)
{
    int32_t i, k = 0, t;
    qsort(p, (size_t)n, sizeof *p, cmp_pt);
    for (i = 0; i < n; i++) {
        while (k >= 2 && un_orient(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    for (i = n - 2, t = k + 1; i >= 0; i--) {
        while (k >= t && un_orient(h[k - 2], h[k - 1], p[i]) <= 0) k--;
        h[k++] = p[i];
    }
    return k - 1;
}

static void random_convex(uint64_t *s, un_rings *r, int64_t off)
{
    un_pt pts[16], h[32];
    int32_t n = (int32_t)tu_range(s, 3, 16), i, m;
    for (;;) {
        for (i = 0; i < n; i++) pts[i] = tu_pt(off + tu_range(s, -20, 20), tu_range(s, -20, 20));
        m = hull(pts, n, h);
        if (m >= 3) break;
    }
    un_rings_clear(r);
    if (un_rings_add(r, h, m) != UN_OK) abort();
}

static void test_convex_sums_match_hull_of_sums(void)
{
    un_arr *w = un_workspace_new();
    un_rings a, b, out;
    uint64_t s = 11;
    int iter;
    un_rings_init(&a); un_rings_init(&b); un_rings_init(&out);
    for (iter = 0; iter < 500; iter++) {
        un_pt sums[256], h[512];
        int32_t i, j, m, na, nb, neg = iter & 1;
        random_convex(&s, &a, 0);
        random_convex(&s, &b, 100);
        if (iter % 3 == 0) { /* clockwise input */
            un_pt *p = b.pts;
            int32_t n = b.start[1];
            for (i = 0; i < n / 2; i++) { un_pt t = p[i]; p[i] = p[n - 1 - i]; p[n - 1 - i] = t; }
        }
        na = a.start[1];
        nb = b.start[1];
        for (i = 0; i < na; i++)
            for (j = 0; j < nb; j++)
                sums[i * nb + j] = tu_pt(a.pts[i].x + (neg ? -b.pts[j].x : b.pts[j].x),
                                         a.pts[i].y + (neg ? -b.pts[j].y : b.pts[j].y));
        m = hull(sums, na * nb, h);
        CHECK_OK(un_msum_rings(w, &a, &b, neg ? UN_MSUM_NFP : 0, &out));
        CHECK_OK(un_rings_clean(&out, 0));
        CHECK_EQ(out.nrings, 1);
        if (out.nrings == 1) {
            int64_t hx[1024];
            for (i = 0; i < m; i++) { hx[2 * i] = h[i].x; hx[2 * i + 1] = h[i].y; }
            CHECK_MSG(tu_has_ring(&out, hx, m), "iter %d: sum differs from the hull of vertex sums", iter);
        }
    }
    un_rings_free(&a); un_rings_free(&b); un_rings_free(&out);
    un_workspace_free(w);
}

static void test_nfp_degenerate_parts(void)
{
    un_arr *w = un_workspace_new();
    un_rings a, b, out;
    const int64_t outer[] = {0, 0, 30, 0, 30, 30, 0, 30}, hole[] = {10, 10, 10, 20, 20, 20, 20, 10};
    const int64_t sq10[] = {0, 0, 10, 0, 10, 10, 0, 10};
    const int64_t U[] = {0, 0, 30, 0, 30, 20, 20, 20, 20, 10, 10, 10, 10, 20, 0, 20};
    int32_t k;
    int point_hole = 0, slot = 0;
    un_rings_init(&a); un_rings_init(&b); un_rings_init(&out);
    /* exact fit in a hole: a one-point ring at (10, 10) */
    tu_add(&a, outer, 4);
    tu_add(&a, hole, 4);
    tu_add(&b, sq10, 4);
    CHECK_OK(un_msum_rings(w, &a, &b, UN_MSUM_NFP | UN_MSUM_EXACT, &out));
    for (k = 0; k < out.nrings; k++)
        if (out.start[k + 1] - out.start[k] == 1 && out.pts[out.start[k]].x == 10 && out.pts[out.start[k]].y == 10)
            point_hole = 1;
    CHECK(point_hole);
    CHECK_EQ(tu_rings_area2(&out), 2 * 40 * 40);
    /* zero-width slot: the segment x = 10, 10 <= y <= 20 is on the boundary */
    un_rings_clear(&a);
    tu_add(&a, U, 8);
    CHECK_OK(un_msum_rings(w, &a, &b, UN_MSUM_NFP | UN_MSUM_EXACT, &out));
    for (k = 0; k < un_rings_npts(&out); k++) {
        un_pt p = out.pts[k];
        if (p.x == 10 && p.y == 10) slot = 1;
    }
    CHECK(slot);
    {
        un_pt q = tu_pt(10, 15);
        CHECK_EQ(tu_point_in_rings(&out, q), -1);
        q = tu_pt(9, 15);
        CHECK_EQ(tu_point_in_rings(&out, q), 1);
        q = tu_pt(11, 15);
        CHECK_EQ(tu_point_in_rings(&out, q), 1);
    }
    un_rings_free(&a); un_rings_free(&b); un_rings_free(&out);
    un_workspace_free(w);
}

static void test_convolve_counts(void)
{
    /* convex P (4 edges) and Q (3 edges): every edge of each is swept once
     * by the other's vertices: 4 + 3 segments */
    const un_pt P[4] = {{0, 0}, {4, 0}, {4, 4}, {0, 4}};
    const un_pt Q[3] = {{0, 0}, {2, 0}, {0, 2}};
    un_seg *segs = NULL;
    int32_t n = 0, cap = 0, i;
    CHECK_OK(un_convolve(P, 4, Q, 3, 0, &segs, &n, &cap));
    CHECK_EQ(n, 7);
    for (i = 0; i < n; i++) CHECK(segs[i].ws == 1 && segs[i].wc == 0);
    free(segs);
}

static void test_disk_polygon(void)
{
    un_pt d[UN_DISK_MAX_SIDES];
    int64_t radii[] = {1, 2, 7, 100, 12345, (int64_t)1 << 26};
    int32_t sides[] = {3, 8, 16, UN_DISK_MAX_SIDES};
    int i, j, k;
    CHECK_EQ(un_disk_polygon(0, UN_DISK_MAX_SIDES, d), 0);
    CHECK_EQ(un_disk_polygon(-5, UN_DISK_MAX_SIDES, d), 0);
    CHECK_EQ(un_disk_polygon(10, 2, d), 0);
    for (i = 0; i < (int)(sizeof radii / sizeof radii[0]); i++)
        for (j = 0; j < (int)(sizeof sides / sizeof sides[0]); j++) {
            int32_t n = un_disk_polygon(radii[i], sides[j], d);
            double R = (double)radii[i];
            CHECK_EQ(n, sides[j]);
            CHECK(tu_area2(d, n) > 0);
            for (k = 0; k < n; k++) {
                /* every edge (and so the polygon) stays outside the disk;
                 * tiny radii may round two vertices onto one grid point */
                un_pt a = d[k], b = d[(k + 1) % n];
                double ex = (double)(b.x - a.x), ey = (double)(b.y - a.y), dist;
                if (ex == 0 && ey == 0) continue;
                dist = ((double)a.x * ey - (double)a.y * ex) / hypot(ex, ey);
                CHECK_MSG(fabs(dist) >= R, "radius %g sides %d: edge %d at %g", R, (int)sides[j], k, dist);
                CHECK(un_orient(a, b, tu_pt(0, 0)) > 0);
                /* and not much beyond it */
                CHECK(hypot((double)a.x, (double)a.y) <= R / cos(3.14159265358979 / n) + 2);
            }
        }
}

static void test_outline_faces(void)
{
    un_arr *w = un_workspace_new();
    un_rings out;
    /* a 2x2 grid of cells (scale 10): a ccw quad, a cell split at x = 15
     * into two quads (a T-junction with the cell above), two triangles, a
     * clockwise quad; plus a zero-area face and a triangle inside */
    const un_pt pts[] = {{0, 0}, {10, 0}, {20, 0}, {0, 10}, {10, 10}, {20, 10}, {0, 20}, {10, 20}, {20, 20},
                         {15, 0}, {15, 10}, {5, 5}, {6, 6}, {7, 7}, {3, 3}, {8, 2}, {2, 8}};
    const int32_t idx[] = {0, 1, 4, 3,            /* ccw quad */
                           1, 9, 10, 4,           /* left half of the split cell */
                           9, 2, 5, 10,           /* right half */
                           3, 4, 7, 3, 7, 6,      /* two triangles */
                           7, 8, 5, 4,            /* clockwise quad */
                           11, 12, 13,            /* zero area */
                           14, 15, 16};           /* inside, overlapping */
    const int32_t start[] = {0, 4, 8, 12, 15, 18, 22, 25, 28};
    const int64_t want[] = {0, 0, 20, 0, 20, 20, 0, 20};
    un_rings_init(&out);
    CHECK_OK(un_outline_rings(w, pts, 17, start, 8, idx, 0, &out, NULL));
    CHECK_EQ(out.nrings, 1);
    CHECK_EQ(tu_rings_area2(&out), 2 * 400);
    {
        un_rings c;
        un_rings_init(&c);
        CHECK_OK(un_rings_copy(&c, &out));
        CHECK_OK(un_rings_clean(&c, 0));
        CHECK(tu_has_ring(&c, want, 4));
        un_rings_free(&c);
    }
    /* a frame of 8 cells around an empty middle: outer ccw + hole cw */
    {
        un_pt g[16];
        int32_t fi[32], fs[9], nf = 0, i, j, k = 0;
        for (j = 0; j < 4; j++)
            for (i = 0; i < 4; i++) g[j * 4 + i] = tu_pt(10 * i, 10 * j);
        fs[0] = 0;
        for (j = 0; j < 3; j++)
            for (i = 0; i < 3; i++) {
                if (i == 1 && j == 1) continue;
                fi[k++] = j * 4 + i; fi[k++] = j * 4 + i + 1; fi[k++] = (j + 1) * 4 + i + 1; fi[k++] = (j + 1) * 4 + i;
                fs[++nf] = k;
            }
        CHECK_OK(un_outline_rings(w, g, 16, fs, nf, fi, 0, &out, NULL));
        CHECK_EQ(out.nrings, 2);
        CHECK_EQ(tu_rings_area2(&out), 2 * 800);
        if (out.nrings == 2)
            CHECK((tu_area2(out.pts, out.start[1]) < 0) != (tu_area2(out.pts + out.start[1], out.start[2] - out.start[1]) < 0));
    }
    /* a bad index */
    {
        const int32_t bad[] = {0, 1, 99};
        const int32_t bs[] = {0, 3};
        CHECK_STATUS(un_outline_rings(w, pts, 17, bs, 1, bad, 0, &out, NULL), UN_EINVAL);
        CHECK_EQ(out.nrings, 0);
    }
    un_rings_free(&out);
    un_workspace_free(w);
}

/* A random star polygon around (cx, cy): simple when every radius is
 * positive; with a random centre offset, often not (the sorted angles then
 * zig-zag).  Coarse coordinates give collinear and touching edges. */
static void random_star(uint64_t *s, un_rings *r, int64_t cx, int64_t cy, int64_t rad, int64_t shift, int hole)
{
    un_pt p[48];
    int32_t n = (int32_t)tu_range(s, 3, 40), i;
    double th[48], pi = 3.14159265358979323846;
    for (i = 0; i < n; i++) th[i] = 2 * pi * (double)tu_range(s, 0, 1 << 20) / (double)(1 << 20);
    for (i = 1; i < n; i++) {   /* sort the angles */
        double x = th[i];
        int32_t j = i;
        while (j > 0 && th[j - 1] > x) { th[j] = th[j - 1]; j--; }
        th[j] = x;
    }
    for (i = 0; i < n; i++) {
        double rr = (double)rad * (0.4 + 0.6 * (double)tu_range(s, 0, 1000) / 1000.0);
        p[i] = tu_pt(cx + shift + (int64_t)(rr * cos(th[i])), cy + (int64_t)(rr * sin(th[i])));
    }
    if (un_rings_add(r, p, n) != UN_OK) abort();
    if (hole) {
        int64_t h = rad / 5 > 1 ? rad / 5 : 1;
        un_pt q[4];
        q[0] = tu_pt(cx - h, cy - h); q[1] = tu_pt(cx - h, cy + h);
        q[2] = tu_pt(cx + h, cy + h); q[3] = tu_pt(cx + h, cy - h);
        if (un_rings_add(r, q, 4) != UN_OK) abort();
    }
}

/* The no-fit polygon from the full convolution and winding numbers: what
 * un_msum_rings computed before the reduced convolution.  same_operands:
 * of the operands un_msum_rings convolves (holes filled where the other
 * cannot enter them); otherwise with every hole kept. */
static un_status full_nfp(un_arr *w, const un_rings *a, const un_rings *b, int same_operands, un_rings *out)
{
    un_rings pa, pb;
    un_seg *segs = NULL;
    int32_t n = 0, cap = 0, i, j, k;
    int simple;
    un_status s;
    un_rings_init(&pa); un_rings_init(&pb);
    un_rings_clear(out);
    if (same_operands) {
        s = un_sum_operands(a, b, UN_MSUM_NFP, &pa, &pb, &simple);
    } else {
        s = un_poly_bridge(a, NULL, &pa);
        if (s == UN_OK) s = un_poly_bridge(b, NULL, &pb);
        for (k = 0; s == UN_OK && k < un_rings_npts(&pb); k++) { pb.pts[k].x = -pb.pts[k].x; pb.pts[k].y = -pb.pts[k].y; }
    }
    for (i = 0; s == UN_OK && i < pa.nrings; i++)
        for (j = 0; s == UN_OK && j < pb.nrings; j++)
            s = un_convolve(pa.pts + pa.start[i], pa.start[i + 1] - pa.start[i], pb.pts + pb.start[j],
                            pb.start[j + 1] - pb.start[j], 0, &segs, &n, &cap);
    if (s == UN_OK) s = un_arr_run(w, segs, n, UN_SEL_CONV, NULL);
    if (s == UN_OK) s = un_loops_to_obstacles(w, out);
    if (s == UN_OK) s = un_rings_clean(out, 1);
    free(segs);
    un_rings_free(&pa); un_rings_free(&pb);
    return s;
}

/* Index of ring k's lowest-leftmost point. */
static int32_t ring_first(const un_rings *r, int32_t k)
{
    int32_t i, best = r->start[k];
    for (i = r->start[k] + 1; i < r->start[k + 1]; i++)
        if (un_pt_cmp(r->pts[i], r->pts[best]) < 0) best = i;
    return best;
}

/* Do x and y hold the same rings, whatever point each ring starts at and
 * whatever order the rings come in? */
static int rings_equal(const un_rings *x, const un_rings *y)
{
    int32_t k, j, i;
    if (x->nrings != y->nrings || un_rings_npts(x) != un_rings_npts(y)) return 0;
    for (k = 0; k < x->nrings; k++) {
        int32_t n = x->start[k + 1] - x->start[k], fx = ring_first(x, k), found = 0;
        for (j = 0; j < y->nrings && !found; j++) {
            int32_t fy = ring_first(y, j);
            if (y->start[j + 1] - y->start[j] != n || un_pt_cmp(x->pts[fx], y->pts[fy]) != 0) continue;
            for (i = 0; i < n; i++) {
                int32_t a = x->start[k] + (fx - x->start[k] + i) % n, b = y->start[j] + (fy - y->start[j] + i) % n;
                if (un_pt_cmp(x->pts[a], y->pts[b]) != 0) break;
            }
            found = i == n;
        }
        if (!found) return 0;
    }
    return 1;
}

static void test_reduced_convolution_matches_full(void)
{
    /* without UN_MSUM_EXACT both close the degenerate parts, so the two
     * methods must give the very same rings (up to where each starts): the
     * reduced convolution for simple operands, the fallback to the full one
     * for the others */
    un_arr *w = un_workspace_new(), *w2 = un_workspace_new();
    un_rings a, b, got, want, pa, pb;
    uint64_t s = 2027;
    int iter, nsimple = 0, nholes = 0, nfailed = 0, nreduced = 0, nfilled = 0;
    un_rings_init(&a); un_rings_init(&b); un_rings_init(&got); un_rings_init(&want);
    un_rings_init(&pa); un_rings_init(&pb);
    for (iter = 0; iter < 1500; iter++) {
        int64_t scale = iter % 3 == 0 ? 12 : iter % 3 == 1 ? 1000 : 1000000;
        int simple_a, simple_b, holes = iter % 5 == 0;
        un_status st_want, st_got;
        un_rings_clear(&a); un_rings_clear(&b);
        random_star(&s, &a, 0, 0, scale, iter % 4 == 3 ? scale / 2 : 0, holes);
        random_star(&s, &b, 0, 0, scale / 2 + 1, iter % 7 == 6 ? scale / 3 : 0, iter % 9 == 0);
        CHECK_OK(un_rings_simple(&a, &simple_a));
        CHECK_OK(un_rings_simple(&b, &simple_b));
        nsimple += simple_a && simple_b;
        nholes += holes && simple_a;
        /* the full convolution may give up on spiky crossing rings: the
         * same answer is expected then */
        st_want = full_nfp(w2, &a, &b, 1, &want);
        CHECK_OK(un_arr_run(w, NULL, 0, UN_SEL_COVERED, NULL));   /* marks "no arrangement" */
        st_got = un_msum_rings(w, &a, &b, UN_MSUM_NFP, &got);
        CHECK_EQ(st_got, st_want);
        /* simple operands are summed by the reduced convolution itself, not
         * by the fallback (two convex rings need no arrangement at all) */
        if (simple_a && simple_b && st_got == UN_OK && un_arr_ran(w) != UN_SEL_COVERED) {
            CHECK_MSG(un_arr_ran(w) == UN_SEL_RCONV, "iteration %d fell back to the full convolution", iter);
            nreduced++;
        }
        nfailed += st_want != UN_OK;
        CHECK_MSG(rings_equal(&got, &want), "iteration %d (simple %d %d): %d rings, full %d", iter, simple_a,
                  simple_b, (int)got.nrings, (int)want.nrings);
        /* filling the holes the other operand cannot enter changes nothing
         * (at fine coordinates; at coarse ones the rounding of crossings to
         * the grid depends on which segments there are) */
        if (st_got == UN_OK && scale == 1000000 && (a.nrings > 1 || b.nrings > 1)) {
            int32_t kept = 0;
            CHECK_OK(un_sum_operands(&a, &b, UN_MSUM_NFP, &pa, &pb, &simple_a));
            kept = un_rings_npts(&pa) + un_rings_npts(&pb);
            CHECK_OK(un_poly_bridge(&a, NULL, &pa));
            CHECK_OK(un_poly_bridge(&b, NULL, &pb));
            nfilled += kept < un_rings_npts(&pa) + un_rings_npts(&pb);
            CHECK_OK(full_nfp(w2, &a, &b, 0, &want));
            CHECK_MSG(rings_equal(&got, &want), "iteration %d: %d rings, with every hole kept %d", iter,
                      (int)got.nrings, (int)want.nrings);
        }
    }
    /* both kinds were exercised */
    CHECK(nsimple > 300 && nsimple < 1400);
    CHECK(nholes > 50);
    CHECK(nfailed < 15);
    CHECK(nreduced > 300);
    CHECK(nfilled > 30);   /* 66 of the 100 fine ones with holes */
    un_rings_free(&a); un_rings_free(&b); un_rings_free(&got); un_rings_free(&want);
    un_rings_free(&pa); un_rings_free(&pb);
    un_workspace_free(w); un_workspace_free(w2);
}

static double total_area2(const un_rings *r)
{
    double t = 0;
    int32_t k;
    for (k = 0; k < r->nrings; k++) t += un_ring_area2(r, k);
    return t;
}

static void test_unreachable_holes_filled(void)
{
    /* a: a 100 square with a 10x10 hole (b fits in no way: filled), a
     * 30x20 one (b's size: kept, unless b is turned), a 25x25 one (too small
     * for b, but kept: it holds a 5x5 island) and a 5x50 slot (filled).  b: 30x20
     * (or turned) with a 2x2 hole (nothing of a fits: filled) or a 6x6 one
     * (a's island fits: kept).  Filled or not, every sum must equal the full
     * convolution's with every hole kept. */
    un_arr *w = un_workspace_new(), *w2 = un_workspace_new();
    un_rings a, b, pa, pb, got, want;
    int turn, hole, order;
    un_rings_init(&a); un_rings_init(&b); un_rings_init(&pa); un_rings_init(&pb);
    un_rings_init(&got); un_rings_init(&want);
    tu_box(&a, 0, 0, 100, 100);
    tu_box(&a, 10, 10, 20, 20);
    tu_box(&a, 40, 10, 70, 30);
    tu_box(&a, 10, 40, 35, 65);
    tu_box(&a, 20, 55, 25, 60);
    tu_box(&a, 80, 40, 85, 90);
    for (turn = 0; turn < 2; turn++)
        for (hole = 2; hole <= 6; hole += 4) {
            un_rings_clear(&b);
            if (turn) { tu_box(&b, 0, 0, 20, 30); tu_box(&b, 7, 12, 7 + hole, 12 + hole); }
            else      { tu_box(&b, 0, 0, 30, 20); tu_box(&b, 12, 7, 12 + hole, 7 + hole); }
            CHECK_OK(un_poly_bridge(&b, NULL, &pb));
            CHECK_OK(un_poly_bridge(&a, &pb, &pa));
            CHECK(total_area2(&pa) == 2.0 * (10000 - 625 - (turn ? 0 : 600) + 25));
            CHECK_OK(un_poly_bridge(&b, &pa, &pb));
            CHECK(total_area2(&pb) == 2.0 * (600 - (hole == 6 ? 36 : 0)));
            for (order = 0; order < 2; order++) {
                const un_rings *x = order ? &b : &a, *y = order ? &a : &b;
                CHECK_OK(full_nfp(w2, x, y, 0, &want));
                CHECK_OK(un_msum_rings(w, x, y, UN_MSUM_NFP, &got));
                CHECK_EQ(un_arr_ran(w), UN_SEL_RCONV);
                CHECK_MSG(rings_equal(&got, &want), "turn %d hole %d order %d: %d rings, full %d", turn, hole,
                          order, (int)got.nrings, (int)want.nrings);
            }
        }
    un_rings_free(&a); un_rings_free(&b); un_rings_free(&pa); un_rings_free(&pb);
    un_rings_free(&got); un_rings_free(&want);
    un_workspace_free(w); un_workspace_free(w2);
}

static void test_rings_simple(void)
{
    static const int64_t square[] = {0, 0, 10, 0, 10, 10, 0, 10};
    static const int64_t hole[] = {3, 3, 3, 6, 6, 6, 6, 3};
    static const int64_t eight[] = {0, 0, 10, 10, 10, 0, 0, 10};
    static const int64_t spike[] = {0, 0, 10, 0, 10, 10, 10, 5};
    static const int64_t pinch[] = {0, 0, 5, 5, 10, 0, 10, 10, 5, 5, 0, 10};
    static const int64_t beside[] = {10, 2, 14, 2, 14, 6, 10, 6};   /* shares x = 10 */
    static const int64_t far[] = {20, 0, 24, 0, 24, 4};
    un_rings r;
    int simple;
    un_rings_init(&r);
    tu_add(&r, square, 4);
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 1);
    tu_add(&r, hole, 4);                      /* a hole inside, apart */
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 1);
    tu_add(&r, far, 3);
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 1);
    tu_add(&r, beside, 4);                    /* touches the square */
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 0);
    un_rings_clear(&r);
    tu_add(&r, eight, 4);
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 0);
    un_rings_clear(&r);
    tu_add(&r, spike, 4);
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 0);
    un_rings_clear(&r);
    tu_add(&r, pinch, 6);                     /* touches itself at (5, 5) */
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 0);
    un_rings_clear(&r);
    tu_add(&r, far, 2);                       /* too short */
    CHECK_OK(un_rings_simple(&r, &simple)); CHECK_EQ(simple, 0);
    un_rings_free(&r);
}

int main(void)
{
    RUN(test_convex_sums_match_hull_of_sums);
    RUN(test_nfp_degenerate_parts);
    RUN(test_convolve_counts);
    RUN(test_reduced_convolution_matches_full);
    RUN(test_unreachable_holes_filled);
    RUN(test_rings_simple);
    RUN(test_disk_polygon);
    RUN(test_outline_faces);
    return tu_report("test_minkowski_outline");
}
