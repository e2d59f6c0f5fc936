/*
 * test_cfr.c - inner-fit regions, collision-free regions, region grouping
 * and boundary walking (cfr.c).
 */
#include "tu.h"

/* No-fit polygons of `piece` around each placed ring set, as obstacles of
 * un_cfr_loops, then the free set of the rectangle lo..hi (container NULL)
 * or of the container rings; regions grouped. */
typedef struct {
    un_arr *w;
    un_rings nfp[8];
    un_obstacle obs[8];
    un_regions reg;
    un_seg *segs;
    int32_t cap;
} scene;

static void scene_init(scene *s)
{
    int i;
    memset(s, 0, sizeof *s);
    s->w = un_workspace_new();
    for (i = 0; i < 8; i++) un_rings_init(s->nfp + i);
}

static void scene_free(scene *s)
{
    int i;
    for (i = 0; i < 8; i++) un_rings_free(s->nfp + i);
    un_regions_free(&s->reg);
    free(s->segs);
    un_workspace_free(s->w);
}

static un_status scene_run(scene *s, const un_rings *container, un_pt lo, un_pt hi, const un_rings *placed,
                           int32_t nplaced, const un_rings *piece)
{
    int32_t i;
    un_status st;
    for (i = 0; i < nplaced; i++) {
        if ((st = un_msum_rings(s->w, placed + i, piece, UN_MSUM_NFP | UN_MSUM_EXACT, s->nfp + i)) != UN_OK) return st;
        memset(s->obs + i, 0, sizeof s->obs[i]);
        s->obs[i].rings = s->nfp + i;
        s->obs[i].r0 = 0;
        s->obs[i].r1 = s->nfp[i].nrings;
        s->obs[i].off = tu_pt(0, 0);
        un_rings_bbox(s->nfp + i, &s->obs[i].lo, &s->obs[i].hi);
    }
    if ((st = un_cfr_loops(s->w, container, lo, hi, s->obs, nplaced, &s->segs, &s->cap)) != UN_OK) return st;
    return un_regions_build(s->w, &s->reg);
}

/* Region r's loops as integer rings. */
static void region_rings(const scene *s, int32_t r, un_rings *out)
{
    const un_loop *L = un_arr_loops(s->w);
    int32_t k;
    un_rings_clear(out);
    for (k = s->reg.rstart[r]; k < s->reg.rstart[r + 1]; k++) {
        const un_loop *l = L + s->reg.order[k];
        if (un_rings_add(out, un_arr_ipts(s->w) + l->start, l->end - l->start) != UN_OK) abort();
    }
}

static int region_is_point(const scene *s, int32_t r, un_pt p)
{
    un_rings x;
    int ok;
    un_rings_init(&x);
    region_rings(s, r, &x);
    ok = x.nrings == 1 && un_rings_npts(&x) == 1 && x.pts[0].x == p.x && x.pts[0].y == p.y;
    un_rings_free(&x);
    return ok;
}

static void test_ifp_rect(void)
{
    un_pt lo, hi;
    CHECK(un_ifp_rect(tu_pt(0, 0), tu_pt(10, 8), tu_pt(2, 3), tu_pt(5, 4), &lo, &hi));
    CHECK(lo.x == -2 && lo.y == -3 && hi.x == 5 && hi.y == 4);
    CHECK(un_ifp_rect(tu_pt(0, 0), tu_pt(10, 8), tu_pt(0, 0), tu_pt(10, 8), &lo, &hi));
    CHECK(lo.x == 0 && lo.y == 0 && hi.x == 0 && hi.y == 0);
    CHECK(!un_ifp_rect(tu_pt(0, 0), tu_pt(10, 8), tu_pt(0, 0), tu_pt(11, 1), &lo, &hi));
}

static void test_side_by_side_segment(void)
{
    scene s;
    un_rings placed[1], piece, x;
    scene_init(&s);
    un_rings_init(placed);
    un_rings_init(&piece);
    un_rings_init(&x);
    tu_box(placed, 0, 0, 10, 10);
    tu_box(&piece, 0, 0, 10, 10);
    /* container 20 x 15: IFP [0, 10] x [0, 5] minus the open (-10, 10)^2 */
    CHECK_OK(scene_run(&s, NULL, tu_pt(0, 0), tu_pt(10, 5), placed, 1, &piece));
    CHECK_EQ(s.reg.nregions, 1);
    if (s.reg.nregions == 1) {
        const int64_t seg[] = {10, 0, 10, 5};
        region_rings(&s, 0, &x);
        CHECK_OK(un_rings_clean(&x, 1));
        CHECK(tu_has_ring(&x, seg, 2));
        CHECK(x.pts[0].x == 10 && x.pts[0].y == 0);  /* starts at its leftmost (lowest) point */
    }
    un_rings_free(placed); un_rings_free(&piece); un_rings_free(&x);
    scene_free(&s);
}

/* An obstacle ring with a zero-width spike (rounding a rotated no-fit
 * polygon makes such rings) that pokes into another obstacle: the spike's
 * points are covered, so no free loop may run along it. */
static void test_spike_into_another_obstacle_is_not_free(void)
{
    const int64_t a[] = {0, 0, 100, 0, 100, 100, 0, 100};
    const int64_t b[] = {200, 0, 300, 0, 300, 100, 200, 100, 200, 50, 50, 50, 200, 50};
    un_rings ra, rb;
    un_obstacle obs[2];
    un_arr *w = un_workspace_new();
    un_seg *segs = NULL;
    int32_t cap = 0, k, i;
    un_rings_init(&ra);
    un_rings_init(&rb);
    tu_add(&ra, a, 4);
    tu_add(&rb, b, 7);
    memset(obs, 0, sizeof obs);
    obs[0].rings = &ra;
    obs[1].rings = &rb;
    for (k = 0; k < 2; k++) {
        obs[k].r1 = 1;
        un_rings_bbox(obs[k].rings, &obs[k].lo, &obs[k].hi);
    }
    CHECK_OK(un_cfr_loops(w, NULL, tu_pt(-50, -50), tu_pt(350, 150), obs, 2, &segs, &cap));
    for (k = 0; k < un_arr_nloops(w); k++)
        for (i = un_arr_loops(w)[k].start; i < un_arr_loops(w)[k].end; i++) {
            un_pt p = un_arr_ipts(w)[i];
            CHECK_MSG(!(p.x > 0 && p.x < 100 && p.y > 0 && p.y < 100), "free point (%lld, %lld) inside A",
                      (long long)p.x, (long long)p.y);
        }
    CHECK(un_arr_nloops(w) >= 1);
    free(segs);
    un_workspace_free(w);
    un_rings_free(&ra);
    un_rings_free(&rb);
}

static void test_exact_fit_points(void)
{
    /* 2 x 2 cells of 10: with three cells taken the fourth is one point */
    const int64_t cells[4][2] = {{0, 0}, {10, 0}, {0, 10}, {10, 10}};
    int f;
    for (f = 0; f < 4; f++) {
        scene s;
        un_rings placed[3], piece;
        int i, n = 0;
        scene_init(&s);
        un_rings_init(&piece);
        tu_box(&piece, 0, 0, 10, 10);
        for (i = 0; i < 4; i++) {
            if (i == f) continue;
            un_rings_init(placed + n);
            tu_box(placed + n, cells[i][0], cells[i][1], cells[i][0] + 10, cells[i][1] + 10);
            n++;
        }
        CHECK_OK(scene_run(&s, NULL, tu_pt(0, 0), tu_pt(10, 10), placed, 3, &piece));
        CHECK_MSG(s.reg.nregions == 1 && region_is_point(&s, 0, tu_pt(cells[f][0], cells[f][1])),
                  "free cell (%d, %d): %d regions", (int)cells[f][0], (int)cells[f][1], (int)s.reg.nregions);
        for (i = 0; i < 3; i++) un_rings_free(placed + i);
        un_rings_free(&piece);
        scene_free(&s);
    }
    {   /* a piece between two placed ones in a 30 x 10 row: one point */
        scene s;
        un_rings placed[2], piece;
        scene_init(&s);
        un_rings_init(placed); un_rings_init(placed + 1); un_rings_init(&piece);
        tu_box(placed, 0, 0, 10, 10);
        tu_box(placed + 1, 20, 0, 30, 10);
        tu_box(&piece, 0, 0, 10, 10);
        CHECK_OK(scene_run(&s, NULL, tu_pt(0, 0), tu_pt(20, 0), placed, 2, &piece));
        CHECK(s.reg.nregions == 1 && region_is_point(&s, 0, tu_pt(10, 0)));
        un_rings_free(placed); un_rings_free(placed + 1); un_rings_free(&piece);
        scene_free(&s);
    }
}

static void test_regions_sorted_with_holes(void)
{
    /* container [0, 100]^2 for a 10 x 10 piece: IFP [0, 90]^2; placed boxes
     * split it into a left and a right part, one with a hole */
    scene s;
    un_rings placed[3], piece, x;
    int32_t r;
    scene_init(&s);
    un_rings_init(&piece); un_rings_init(&x);
    tu_box(&piece, 0, 0, 10, 10);
    un_rings_init(placed); tu_box(placed, 40, -10, 50, 110);       /* wall: NFP (30, 50) x ... */
    un_rings_init(placed + 1); tu_box(placed + 1, 70, 40, 80, 50); /* island right: NFP (60, 80) x (30, 50) */
    un_rings_init(placed + 2); tu_box(placed + 2, 15, 40, 20, 45); /* island left: NFP (5, 20) x (30, 45) */
    CHECK_OK(scene_run(&s, NULL, tu_pt(0, 0), tu_pt(90, 90), placed, 3, &piece));
    CHECK_EQ(s.reg.nregions, 2);
    for (r = 0; r < s.reg.nregions; r++) {
        int32_t k;
        region_rings(&s, r, &x);
        CHECK_EQ(x.nrings, 2);
        CHECK(tu_area2(x.pts, x.start[1]) > 0);
        for (k = 1; k < x.nrings; k++) CHECK(tu_area2(x.pts + x.start[k], x.start[k + 1] - x.start[k]) < 0);
        for (k = 0; k < x.nrings; k++) {   /* each loop starts at its leftmost point */
            int32_t i;
            for (i = x.start[k]; i < x.start[k + 1]; i++)
                CHECK(un_pt_cmp(x.pts[x.start[k]], x.pts[i]) <= 0);
        }
    }
    if (s.reg.nregions == 2) {
        region_rings(&s, 0, &x);
        CHECK(x.pts[0].x == 0 && x.pts[0].y == 0);
        region_rings(&s, 1, &x);
        CHECK(x.pts[0].x == 50 && x.pts[0].y == 0);
    }
    {   /* walking a region: the views see the same loops */
        un_ring_view v[4];
        int32_t nv = un_region_views(s.w, &s.reg, 0, v, 4);
        double len, pt[2];
        CHECK_EQ(nv, 2);
        len = un_rings_length(v, nv);
        CHECK_NEAR(len, 2 * 30 + 2 * 90 + 4 * 15, 1e-9);   /* [0,30]x[0,90] + hole 15 x 15 */
        un_rings_point_at(v, nv, 0.0, pt);
        CHECK(pt[0] == 0 && pt[1] == 0);
        un_rings_point_at(v, nv, 15.0 / len, pt);    /* 15 along the bottom edge */
        CHECK_NEAR(pt[0], 15, 1e-9);
        CHECK_NEAR(pt[1], 0, 1e-9);
        /* vertices: 4 of the outer loop from (0, 0) counter-clockwise, then
         * 4 of the hole [5, 20] x [30, 45] from its leftmost-lowest corner */
        un_rings_vertex_at(v, nv, 0.0, pt);
        CHECK(pt[0] == 0 && pt[1] == 0);
        un_rings_vertex_at(v, nv, 0.13, pt);         /* vertex 1 of 8 */
        CHECK(pt[0] == 30 && pt[1] == 0);
        un_rings_vertex_at(v, nv, 0.37, pt);         /* vertex 2 */
        CHECK(pt[0] == 30 && pt[1] == 90);
        un_rings_vertex_at(v, nv, 0.5, pt);          /* vertex 4: the hole's first */
        CHECK(pt[0] == 5 && pt[1] == 30);
        un_rings_vertex_at(v, nv, 0.9999, pt);       /* vertex 7: a corner of the hole */
        CHECK((pt[0] == 5 || pt[0] == 20) && (pt[1] == 30 || pt[1] == 45) && !(pt[0] == 5 && pt[1] == 30));
        un_rings_vertex_at(v, nv, 1.0, pt);          /* outside [0, 1): the first */
        CHECK(pt[0] == 0 && pt[1] == 0);
        un_rings_vertex_at(v, nv, NAN, pt);
        CHECK(pt[0] == 0 && pt[1] == 0);
    }
    un_rings_free(placed); un_rings_free(placed + 1); un_rings_free(placed + 2);
    un_rings_free(&piece); un_rings_free(&x);
    scene_free(&s);
}

static void test_hole_touching_the_wall(void)
{
    /* the obstacle's no-fit polygon (0, 20) x (20, 40) touches the wall
     * x = 0 of the IFP [0, 90]^2: still one region with one hole */
    scene s;
    un_rings placed[1], piece, x;
    scene_init(&s);
    un_rings_init(placed); un_rings_init(&piece); un_rings_init(&x);
    tu_box(placed, 10, 30, 20, 40);
    tu_box(&piece, 0, 0, 10, 10);
    CHECK_OK(scene_run(&s, NULL, tu_pt(0, 0), tu_pt(90, 90), placed, 1, &piece));
    CHECK_EQ(s.reg.nregions, 1);
    if (s.reg.nregions >= 1) {
        region_rings(&s, 0, &x);
        CHECK_EQ(x.nrings, 2);
    }
    un_rings_free(placed); un_rings_free(&piece); un_rings_free(&x);
    scene_free(&s);
}

static void test_ifp_polygon(void)
{
    un_arr *w = un_workspace_new();
    un_rings c, p, out;
    const int64_t L[] = {0, 0, 20, 0, 20, 10, 10, 10, 10, 20, 0, 20};
    un_rings_init(&c); un_rings_init(&p); un_rings_init(&out);
    tu_add(&c, L, 6);
    tu_box(&p, 100, 100, 105, 105);
    /* a 5 x 5 piece in the L: translations t with [100, 105]^2 + t in L */
    CHECK_OK(un_ifp_poly(w, &c, &p, &out));
    {
        const int64_t want[] = {-100, -100, -85, -100, -85, -95, -95, -95, -95, -85, -100, -85};
        un_rings x;
        un_rings_init(&x);
        CHECK_OK(un_rings_copy(&x, &out));
        CHECK_OK(un_rings_clean(&x, 0));
        CHECK_EQ(x.nrings, 1);
        CHECK(x.nrings == 1 && tu_area2(x.pts, x.start[1]) > 0);
        CHECK(tu_has_ring(&x, want, 6));
        un_rings_free(&x);
    }
    /* the piece equal to the container: the single point (0, 0) */
    un_rings_clear(&p);
    tu_add(&p, L, 6);
    CHECK_OK(un_ifp_poly(w, &c, &p, &out));
    {
        int32_t i;
        int found = 0;
        for (i = 0; i < un_rings_npts(&out); i++) found |= out.pts[i].x == 0 && out.pts[i].y == 0;
        CHECK_MSG(found, "exact fit: %d rings, %d points", (int)out.nrings, (int)un_rings_npts(&out));
    }
    /* a container with a hole: the piece may not cover it */
    un_rings_clear(&c);
    un_rings_clear(&p);
    tu_box(&c, 0, 0, 100, 100);
    {
        const int64_t h[] = {40, 40, 40, 60, 60, 60, 60, 40};
        tu_add(&c, h, 4);
    }
    tu_box(&p, 0, 0, 10, 10);
    CHECK_OK(un_ifp_poly(w, &c, &p, &out));
    CHECK_MSG(tu_point_in_rings(&out, tu_pt(45, 45)) == 0, "translation (45, 45) covers the container's hole");
    CHECK_EQ(tu_point_in_rings(&out, tu_pt(10, 10)), 1);
    CHECK_EQ(tu_rings_area2(&out), 2 * (90 * 90 - 30 * 30));
    un_rings_free(&c); un_rings_free(&p); un_rings_free(&out);
    un_workspace_free(w);
}

static void test_float_api(void)
{
    un_frings c, p, pl[2];
    un_fregions out;
    double pt[2];
    un_frings_init(&c); un_frings_init(&p); un_frings_init(pl); un_frings_init(pl + 1);
    tu_fbox(&c, 0, 0, 2, 1.5);
    tu_fbox(&p, 0, 0, 1, 1);
    tu_fbox(pl, 0, 0, 1, 1);
    CHECK_OK(un_geom_cfr(&c, pl, 1, &p, 0.0, &out, NULL));
    CHECK_EQ(out.nregions, 1);
    if (out.nregions == 1) {
        CHECK_EQ(out.region_start[1] - out.region_start[0], 1);
        CHECK_EQ(un_frings_npts(&out.rings), 2);
        CHECK_OK(un_region_point_at(&out, 0, 0.25, pt));   /* a segment is walked there and back */
        CHECK_NEAR(pt[0], 1.0, 1e-12);
        CHECK_NEAR(pt[1], 0.25, 1e-12);
        CHECK_OK(un_region_point_at(&out, 0, 0.75, pt));
        CHECK_NEAR(pt[1], 0.25, 1e-12);
    }
    CHECK_STATUS(un_region_point_at(&out, 1, 0.5, pt), UN_EINVAL);
    CHECK_STATUS(un_region_point_at(&out, 0, 1.0, pt), UN_EINVAL);
    CHECK_STATUS(un_region_point_at(&out, 0, NAN, pt), UN_EINVAL);
    un_fregions_free(&out);
    /* margin: the piece keeps 0.25 from the placed square */
    CHECK_OK(un_geom_cfr(&c, pl, 1, &p, 0.25, &out, NULL));
    CHECK_EQ(out.nregions, 0);
    un_fregions_free(&out);
    CHECK_STATUS(un_geom_cfr(&c, pl, 1, &p, -1.0, &out, NULL), UN_EINVAL);
    un_fregions_free(&out);
    CHECK_STATUS(un_geom_cfr(&c, pl, 1, &p, NAN, &out, NULL), UN_EINVAL);
    un_fregions_free(&out);
    /* the IFP of a piece as large as the container is a point */
    CHECK_OK(un_geom_ifp(&c, &c, &out, NULL));
    CHECK(out.nregions == 1 && un_frings_npts(&out.rings) == 1 && out.rings.xy[0] == 0 && out.rings.xy[1] == 0);
    un_fregions_free(&out);
    un_frings_free(&c); un_frings_free(&p); un_frings_free(pl); un_frings_free(pl + 1);
}

static int same_regions(const un_fregions *a, const un_fregions *b);

/* An empty no-fit polygon among the obstacles (found by fuzz_core.c: a
 * placed polygon without area has one) blocks nothing; with a container
 * that is not a rectangle its missing ring offsets were read through a
 * null pointer. */
static void test_empty_nfp_obstacle(void)
{
    const double pentagon[10] = {0, 0, 4, 0, 4, 2, 2, 4, 0, 4};
    un_frings c, p, nfps[2];
    un_fregions with_empty, alone;
    un_frings_init(&c); un_frings_init(&p); un_frings_init(nfps); un_frings_init(nfps + 1);
    if (un_frings_add(&c, pentagon, 5) != UN_OK) abort();
    tu_fbox(&p, 0, 0, 1, 1);
    tu_fbox(nfps + 1, 0, 0, 1, 1);   /* nfps[0] stays empty */
    CHECK_OK(un_geom_cfr_nfps(&c, nfps, 2, &p, &with_empty, NULL));
    CHECK_OK(un_geom_cfr_nfps(&c, nfps + 1, 1, &p, &alone, NULL));
    CHECK(same_regions(&with_empty, &alone));
    CHECK(with_empty.nregions > 0);
    un_fregions_free(&with_empty);
    un_fregions_free(&alone);
    CHECK_OK(un_geom_cfr_nfps(&c, nfps, 1, &p, &alone, NULL));   /* only the empty one: the whole IFP */
    CHECK_EQ(alone.nregions, 1);
    un_fregions_free(&alone);
    un_frings_free(&c); un_frings_free(&p); un_frings_free(nfps); un_frings_free(nfps + 1);
}

static int same_regions(const un_fregions *a, const un_fregions *b)
{
    int32_t n = un_frings_npts(&a->rings);
    return a->nregions == b->nregions && a->rings.nrings == b->rings.nrings && n == un_frings_npts(&b->rings) &&
           memcmp(a->region_start, b->region_start, ((size_t)a->nregions + 1) * sizeof *a->region_start) == 0 &&
           memcmp(a->rings.start, b->rings.start, ((size_t)a->rings.nrings + 1) * sizeof *a->rings.start) == 0 &&
           memcmp(a->rings.xy, b->rings.xy, 2 * (size_t)n * sizeof *a->rings.xy) == 0;
}

/* One workspace through calls of different sizes and kinds gives exactly
 * what fresh memory gives: no state carries over from call to call. */
static void test_workspace_reuse(void)
{
    un_frings c, p, pl[12], nfps[12];
    un_fregions fresh[3], reused;
    un_workspace *ws = un_workspace_new();
    int32_t i, round;
    CHECK(ws != NULL);
    un_frings_init(&c); un_frings_init(&p);
    tu_fbox(&c, 0, 0, 8, 6);
    tu_fbox(&p, 0, 0, 1.3, 0.7);
    for (i = 0; i < 12; i++) {
        /* staggered boxes, with room between some of them */
        double x = (i % 4) * 2.0 + 0.3 * (i % 3), y = (i / 4) * 2.0 + 0.2 * (i % 2);
        un_frings_init(pl + i);
        un_frings_init(nfps + i);
        tu_fbox(pl + i, x, y, x + 1.1 + 0.1 * (i % 5), y + 0.9);
        CHECK_OK(un_geom_nfp(pl + i, &p, nfps + i, i % 2 ? ws : NULL));
    }
    CHECK_OK(un_geom_cfr(&c, pl, 12, &p, 0.0, fresh, NULL));
    CHECK_OK(un_geom_cfr(&c, pl, 3, &p, 0.05, fresh + 1, NULL));
    CHECK_OK(un_geom_cfr_nfps(&c, nfps, 12, &p, fresh + 2, NULL));
    CHECK(fresh[0].nregions > 1);
    /* large, small, from no-fit polygons, and again: each the same */
    for (round = 0; round < 2; round++) {
        CHECK_OK(un_geom_cfr(&c, pl, 12, &p, 0.0, &reused, ws));
        CHECK(same_regions(fresh, &reused));
        un_fregions_free(&reused);
        CHECK_OK(un_geom_cfr(&c, pl, 3, &p, 0.05, &reused, ws));
        CHECK(same_regions(fresh + 1, &reused));
        un_fregions_free(&reused);
        CHECK_OK(un_geom_cfr_nfps(&c, nfps, 12, &p, &reused, ws));
        CHECK(same_regions(fresh + 2, &reused));
        un_fregions_free(&reused);
        CHECK_OK(un_geom_ifp(&c, &p, &reused, ws));
        CHECK_EQ(reused.nregions, 1);
        un_fregions_free(&reused);
    }
    for (i = 0; i < 3; i++) un_fregions_free(fresh + i);
    for (i = 0; i < 12; i++) { un_frings_free(pl + i); un_frings_free(nfps + i); }
    un_frings_free(&c); un_frings_free(&p);
    un_workspace_free(ws);
    un_workspace_free(NULL);
}

int main(void)
{
    RUN(test_ifp_rect);
    RUN(test_side_by_side_segment);
    RUN(test_exact_fit_points);
    RUN(test_spike_into_another_obstacle_is_not_free);
    RUN(test_regions_sorted_with_holes);
    RUN(test_hole_touching_the_wall);
    RUN(test_ifp_polygon);
    RUN(test_float_api);
    RUN(test_workspace_reuse);
    RUN(test_empty_nfp_obstacle);
    return tu_report("test_cfr");
}
