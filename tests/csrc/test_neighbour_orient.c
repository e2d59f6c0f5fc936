/*
 * test_neighbour_orient.c - contact orientations (neighbour_orient.c): the
 * angle that runs an edge against a direction, the turn to parallel, the
 * distance of two segments, the contact orientations' versions and index,
 * and the angles the neighbour and refinement moves take from a layout.
 *
 * Oracles: the island's transform is applied with un_orient_matrix (its
 * own definition, tested in test_orient.c) and the edge's direction read
 * with atan2; segment distances against dense sampling of both segments;
 * the layouts are built here with known angles (squares turned by 0.3
 * radians, a neighbour 5 degrees off), so the angles that line their edges
 * up are known exactly.
 */
#include "tu.h"
#include "engine.h"

#define PI 3.14159265358979323846

/* Distance of angle a from b modulo m. */
static double gap_mod(double a, double b, double m)
{
    double d = fmod(fabs(a - b), m);
    return d < m - d ? d : m - d;
}

static double unit(uint64_t *s)
{
    return (double)(tu_rand(s) >> 11) / 9007199254740992.0;
}

/* The direction in place of local direction (dx, dy) under island `is` at
 * orientation o. */
static double placed_dir(const un_orients *os, const un_island *is, int32_t o, double dx, double dy)
{
    double m[4];
    un_orient_matrix(os, is, o, m);
    return atan2(m[2] * dx + m[3] * dy, m[0] * dx + m[1] * dy);
}

/* Engine orientations: one grid angle (the base), the candidates and the
 * contact orientations; both flips. */
static const double grid_zero[1] = {0};
static un_orients make_orients(void)
{
    un_orients os;
    os.ngrid = 1;
    os.nangles = 1 + UN_CANDIDATES + UN_CONTACT_ORIENTS;
    os.angles = (double *)grid_zero;
    os.flips = 2;
    return os;
}

/* un_align_angle runs the edge against w (antiparallel) for either flip. */
static void test_align_angle(void)
{
    uint64_t seed = 11;
    un_orients os = make_orients();
    un_island is;
    int32_t t, f;
    memset(&is, 0, sizeof is);
    for (t = 0; t < 200; t++)
        for (f = 0; f < 2; f++) {
            double dx = unit(&seed) - 0.5, dy = unit(&seed) - 0.5, w = (unit(&seed) - 0.5) * 4 * PI;
            double th = un_align_angle(dx, dy, f, w);
            CHECK(th > -PI - 1e-12 && th <= PI + 1e-12);
            is.base = th;   /* grid angle 0 at flip f: the angle th itself */
            CHECK_NEAR(gap_mod(placed_dir(&os, &is, f * os.nangles, dx, dy), w + PI, 2 * PI), 0, 1e-9);
        }
}

/* un_parallel_turn is the smallest turn to parallel, either way. */
static void test_parallel_turn(void)
{
    uint64_t seed = 5;
    int32_t t;
    for (t = 0; t < 500; t++) {
        double a = (unit(&seed) - 0.5) * 8 * PI, b = (unit(&seed) - 0.5) * 8 * PI, d = un_parallel_turn(a, b);
        CHECK(fabs(d) <= PI / 2 + 1e-12);
        CHECK_NEAR(gap_mod(a + d, b, PI), 0, 1e-9);
        /* no smaller turn does it: the other way round is longer */
        CHECK(fabs(d) <= PI - fabs(d) + 1e-12);
    }
    CHECK_NEAR(un_parallel_turn(0.1, 0.1 + PI), 0, 1e-12);
    CHECK_NEAR(un_parallel_turn(0, 0.2), 0.2, 1e-12);
    CHECK_NEAR(un_parallel_turn(0.2, 0), -0.2, 1e-12);
}

/* Minimum distance by sampling both segments (an upper bound within
 * the sampling step of the true distance). */
static double sampled_gap(const double a[4], const double b[4])
{
    double best = HUGE_VAL;
    int32_t i, j;
    for (i = 0; i <= 400; i++) {
        double s = i / 400.0, ax = a[0] + s * (a[2] - a[0]), ay = a[1] + s * (a[3] - a[1]);
        for (j = 0; j <= 400; j++) {
            double u = j / 400.0, d = hypot(b[0] + u * (b[2] - b[0]) - ax, b[1] + u * (b[3] - b[1]) - ay);
            if (d < best) best = d;
        }
    }
    return best;
}

static void test_segment_gap(void)
{
    const double cross_a[4] = {0, 0, 10, 10}, cross_b[4] = {0, 10, 10, 0};
    const double par_a[4] = {0, 0, 10, 0}, par_b[4] = {2, 3, 8, 3};
    const double end_a[4] = {0, 0, 1, 0}, end_b[4] = {4, 4, 4, 9};
    uint64_t seed = 3;
    int32_t t;
    CHECK_NEAR(un_segment_gap(cross_a, cross_b), 0, 1e-12);
    CHECK_NEAR(un_segment_gap(par_a, par_b), 3, 1e-12);
    CHECK_NEAR(un_segment_gap(end_a, end_b), 5, 1e-12);
    for (t = 0; t < 60; t++) {
        double a[4], b[4], g, s;
        int32_t i;
        for (i = 0; i < 4; i++) { a[i] = unit(&seed) * 10; b[i] = unit(&seed) * 10; }
        g = un_segment_gap(a, b);
        s = sampled_gap(a, b);
        /* sampling 1/400 of segments up to 15 long finds within 0.04 */
        CHECK(g <= s + 1e-9);
        CHECK(s - g <= 0.04);
    }
}

/* Contact orientations: quarter turns of one angle, a new version for a
 * new angle only; their index follows the candidates' and only they carry
 * a version. */
static void test_contact_orientations(void)
{
    un_orients os = make_orients();
    un_island is;
    int32_t c, first = un_orient_contact_first(&os), o;
    memset(&is, 0, sizeof is);
    for (c = 0; c < UN_CANDIDATES; c++) is.cand[c] = 0.01 * c;
    un_contact_orient_reset(&is);
    CHECK_EQ(is.contact_ver, 0);
    if (UN_CONTACT_ORIENTS == 0) {
        CHECK_EQ(first, -1);
        return;
    }
    CHECK_EQ(first, 1 + UN_CANDIDATES);
    /* before any move: repeats of the first candidates */
    for (c = 0; c < UN_CONTACT_ORIENTS; c++) CHECK_NEAR(un_orient_angle(&os, &is, first + c), is.cand[c], 0);
    un_contact_orient_set(&is, 0.7);
    CHECK_EQ(is.contact_ver, 1);
    un_contact_orient_set(&is, 0.7);
    CHECK_EQ(is.contact_ver, 1);   /* the same angle: the same version */
    un_contact_orient_set(&is, -0.2);
    CHECK_EQ(is.contact_ver, 2);
    un_contact_orient_set(&is, 0.7);
    CHECK_EQ(is.contact_ver, 3);   /* never an old version for a new angle */
    for (o = 0; o < os.nangles * os.flips; o++) {
        int32_t a = o % os.nangles;
        CHECK_EQ(un_orient_version(&os, &is, o), a >= first ? 3 : 0);
        if (a >= first) CHECK_NEAR(un_orient_angle(&os, &is, o), 0.7 + (a - first) * PI / 2, 1e-12);
        if (a >= first) CHECK_EQ(un_orient_quarter(&os, o, 1) % os.nangles, first + (a - first + 1) % 4);
    }
}

/* ----------------------------------------------------- moves on a layout */

/* Island k: a convex polygon (xy[0..n)) about its bbox centre, base angle
 * `base`, placed at t (grid step 1) at grid angle 0 of flip f. */
static void place_island(un_engine *E, int32_t k, const double *xy, int32_t n, double base, int32_t f, un_pt t)
{
    un_island *is = E->isl + k;
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_pt blo, bhi;
    int32_t c;
    un_frings_free(&is->shape);   /* placed again: a new shape */
    un_frings_init(&is->shape);
    if (un_frings_add(&is->shape, xy, n) != UN_OK || un_frings_bbox(&is->shape, lo, hi) != UN_OK) abort();
    is->cx = 0.5 * (lo[0] + hi[0]);
    is->cy = 0.5 * (lo[1] + hi[1]);
    is->base = base;
    for (c = 0; c < UN_CANDIDATES; c++) is->cand[c] = base + (c % 4) * PI / 2;
    un_contact_orient_reset(is);
    E->seq[k] = k;
    E->pl[k].placed = 1;
    E->pl[k].orient = f * E->os.nangles;
    E->pl[k].sigma = 0;
    E->pl[k].bin = 0;
    E->pl[k].t = t;
    un_island_bbox(&E->os, is, E->pl[k].orient, 1, 1, &blo, &bhi);
    E->pl[k].lo.x = blo.x + t.x - E->radius; E->pl[k].lo.y = blo.y + t.y - E->radius;
    E->pl[k].hi.x = bhi.x + t.x + E->radius; E->pl[k].hi.y = bhi.y + t.y + E->radius;
}

typedef struct {
    un_engine E;
    un_island isl[3];
    int32_t   seq[3];
    un_place  pl[3];
} layout;

static void layout_init(layout *L)
{
    memset(L, 0, sizeof *L);
    L->E.isl = L->isl;
    L->E.seq = L->seq;
    L->E.pl = L->pl;
    L->E.n = 3;
    L->E.os = make_orients();
    L->E.q = 1;
    L->E.radius = 4;
    L->E.clo = tu_pt(-5000, -5000);
    L->E.chi = tu_pt(5000, 5000);
}

static void layout_free(layout *L)
{
    int32_t k;
    for (k = 0; k < 3; k++) un_frings_free(&L->isl[k].shape);
}

static const double square100[8] = {-50, -50, 50, -50, 50, 50, -50, 50};
static const double square60[8] = {0, 0, 60, 0, 60, 60, 0, 60};
static const double triangle[6] = {0, 0, 80, 0, 10, 50};

/* Does some edge of polygon xy (n points) under orientation o of island
 * `is` lie along direction d, modulo `mod`? */
static int edge_along(const un_orients *os, const un_island *is, int32_t o, const double *xy, int32_t n, double d,
                      double mod)
{
    int32_t i;
    for (i = 0; i < n; i++) {
        const double *u = xy + 2 * i, *v = xy + 2 * ((i + 1) % n);
        if (gap_mod(placed_dir(os, is, o, v[0] - u[0], v[1] - u[1]), d, mod) < 1e-9) return 1;
    }
    return 0;
}

/* A triangle beside a square turned by 0.3: every neighbour angle runs one
 * of the triangle's edges along a side of the square (0.3 modulo a quarter
 * turn), for either flip of the triangle; the third island, far away, is
 * no neighbour; the first island has none. */
static void test_neighbour_move(void)
{
    layout L;
    un_rng g;
    int32_t f, t, first;
    layout_init(&L);
    first = un_orient_contact_first(&L.E.os);
    un_rng_seed(&g, 9, 1);
    for (f = 0; f < 2; f++) {
        place_island(&L.E, 0, square100, 4, 0.3, 0, tu_pt(0, 0));
        place_island(&L.E, 1, triangle, 3, 1.1, f, tu_pt(0, 110));
        place_island(&L.E, 2, square60, 4, 0.9, 0, tu_pt(3000, 3000));
        for (t = 0; t < 40; t++) {
            double angle;
            int found;
            CHECK_OK(un_contact_angle(&L.E, 1, 0, &g, &angle, &found));
            if (UN_CONTACT_ORIENTS == 0) { CHECK(!found); break; }
            CHECK(found);
            if (!found) break;
            un_contact_orient_set(L.isl + 1, angle);
            CHECK(edge_along(&L.E.os, L.isl + 1, first + f * L.E.os.nangles, triangle, 3, 0.3, PI / 2));
        }
        {
            double angle = 0;
            int found = 1;
            CHECK_OK(un_contact_angle(&L.E, 0, 0, &g, &angle, &found));
            CHECK(!found);   /* nothing placed before it */
            L.pl[2].placed = 1;
            /* the far island: only the square and the triangle before it,
             * neither within reach */
            CHECK_OK(un_contact_angle(&L.E, 2, 0, &g, &angle, &found));
            CHECK(!found);
        }
    }
    layout_free(&L);
}

/* A square turned 5 degrees off its neighbour's sides, 5 units from it:
 * a refinement turns it back by those 5 degrees (to parallel, 0.3 modulo
 * a quarter turn); exactly parallel, or 30 degrees off (beyond
 * REFINE_MAX_TURN), or far from everything, it finds nothing. */
static void test_refine_move(void)
{
    layout L;
    un_rng g;
    const double off = 5 * PI / 180, n = 0.3 + PI / 2;
    /* the centre 50 + 30 + 5 out along the square's side normal */
    un_pt near = tu_pt((int64_t)llround(85 * cos(n)), (int64_t)llround(85 * sin(n)));
    double angle;
    int found, t;
    layout_init(&L);
    un_rng_seed(&g, 4, 2);
    place_island(&L.E, 0, square100, 4, 0.3, 0, tu_pt(0, 0));
    place_island(&L.E, 1, square60, 4, 0.3 + off, 0, near);
    place_island(&L.E, 2, square60, 4, 0.9, 0, tu_pt(3000, 3000));
    for (t = 0; t < 20; t++) {
        CHECK_OK(un_contact_angle(&L.E, 1, 1, &g, &angle, &found));
        if (UN_CONTACT_ORIENTS == 0) { CHECK(!found); break; }
        CHECK(found);
        if (found) {
            CHECK_NEAR(gap_mod(angle, 0.3, PI / 2), 0, 1e-9);
            CHECK_NEAR(gap_mod(angle, 0.3 + off, 2 * PI), off, 1e-9);
        }
    }
    place_island(&L.E, 1, square60, 4, 0.3, 0, near);
    CHECK_OK(un_contact_angle(&L.E, 1, 1, &g, &angle, &found));
    CHECK(!found);
    place_island(&L.E, 1, square60, 4, 0.3 + PI / 6, 0, near);
    CHECK_OK(un_contact_angle(&L.E, 1, 1, &g, &angle, &found));
    CHECK(!found);
    /* the far square is within reach of no edge, walls included */
    CHECK_OK(un_contact_angle(&L.E, 2, 1, &g, &angle, &found));
    CHECK(!found);
    layout_free(&L);
}

int main(void)
{
    RUN(test_align_angle);
    RUN(test_parallel_turn);
    RUN(test_segment_gap);
    RUN(test_contact_orientations);
    RUN(test_neighbour_move);
    RUN(test_refine_move);
    return tu_report("test_neighbour_orient");
}
