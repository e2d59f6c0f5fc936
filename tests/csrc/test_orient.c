/*
 * test_orient.c - orientation candidates (orient.c) and the orientation
 * index of island.c: grid angles, candidates, their quarter turns and the
 * no-fit polygon cache's key.
 *
 * Oracles: shapes are built here at a known angle (a polygon with an edge
 * on an axis, turned by a random angle), so the angle that straightens
 * them is known exactly; rotation matrices are compared with cos/sin of
 * the expected angle.
 */
#include "tu.h"
#include "engine.h"

#define PI 3.14159265358979323846

/* Distance of angle a from b modulo a whole turn. */
static double turn_gap(double a, double b)
{
    double d = fmod(fabs(a - b), 2 * PI);
    return d < 2 * PI - d ? d : 2 * PI - d;
}

/* Is an angle within tol of `want` (mod 2 pi) among the candidates? */
static int has_candidate(const double *cand, double want, double tol)
{
    int32_t i;
    for (i = 0; i < UN_CANDIDATES; i++)
        if (turn_gap(cand[i], want) <= tol) return 1;
    return 0;
}

/* Points xy[0..n) turned by a about the origin, added as one ring. */
static void add_turned(un_frings *f, const double *xy, int32_t n, double a)
{
    double buf[64];
    int32_t i;
    for (i = 0; i < n; i++) {
        buf[2 * i] = cos(a) * xy[2 * i] - sin(a) * xy[2 * i + 1];
        buf[2 * i + 1] = sin(a) * xy[2 * i] + cos(a) * xy[2 * i + 1];
    }
    if (un_frings_add(f, buf, n) != UN_OK) abort();
}

/* Terashima-like pieces, each with an edge on the x axis in its solution
 * orientation, turned by random angles: undoing the turn is a candidate,
 * whatever the base angle (here 0.3, not a straightening one). */
static void test_turned_pieces_recover_their_orientation(void)
{
    static const double quad[] = {0, 0, 422, 0, 422, 196, 0, 310};
    static const double tri[] = {0, 0, 152, 0, 152, 358};
    static const double five[] = {0, 0, 578, 0, 578, 98, 300, 326, 0, 226};
    const double *pieces[3] = {quad, tri, five};
    const int32_t sizes[3] = {4, 3, 5};
    int32_t t, k;
    srand(7);
    for (t = 0; t < 40; t++)
        for (k = 0; k < 3; k++) {
            double a = 2 * PI * rand() / ((double)RAND_MAX + 1), cand[UN_CANDIDATES];
            un_frings f;
            un_frings_init(&f);
            add_turned(&f, pieces[k], sizes[k], a);
            CHECK_OK(un_orient_candidates(&f, 0.3, cand));
            CHECK_MSG(has_candidate(cand, -a, 1e-9), "piece %d turned by %.6f", (int)k, a);
            /* the base's quarter turns come first */
            CHECK(has_candidate(cand, 0.3, 1e-12) && has_candidate(cand, 0.3 + PI, 1e-12));
            un_frings_free(&f);
        }
}

/* An L shape has edges in two directions only; its convex hull adds the
 * diagonal across the notch, which becomes a candidate too. */
static void test_hull_edges_are_candidates(void)
{
    static const double L[] = {0, 0, 300, 0, 300, 100, 100, 100, 100, 300, 0, 300};
    double cand[UN_CANDIDATES];
    un_frings f;
    un_frings_init(&f);
    add_turned(&f, L, 6, 0);
    CHECK_OK(un_orient_candidates(&f, 0, cand));
    /* the hull edge (300, 100) -> (100, 300) runs at 135 degrees */
    CHECK(has_candidate(cand, -0.75 * PI, 1e-9));
    CHECK(has_candidate(cand, 0, 1e-12));
    /* two directions in all: the other slots repeat them, and the search
     * knows (orientation 0, the base on a one-angle grid, repeats too) */
    {
        const double zero = 0;
        un_orients os;
        un_island is;
        int32_t o, distinct = 0;
        memset(&is, 0, sizeof is);
        memcpy(is.cand, cand, sizeof cand);
        os.ngrid = 1;
        os.nangles = 1 + UN_CANDIDATES;
        os.angles = (double *)&zero;
        os.flips = 2;
        for (o = 0; o < os.nangles * os.flips; o++) {
            int rep = un_orient_repeats(&os, &is, o), j;
            double th = un_orient_angle(&os, &is, o);
            int earlier = 0;
            for (j = o - o % os.nangles; j < o; j++) earlier |= turn_gap(un_orient_angle(&os, &is, j), th) < 1e-9;
            CHECK_EQ(rep, earlier);
            distinct += !rep;
        }
        CHECK_EQ(distinct, 2 * 8);   /* 2 flips x 2 directions x 4 quarter turns */
    }
    un_frings_free(&f);
}

/* Grid angles, candidates, quarter turns and cache keys of un_orients. */
static void test_orientation_index(void)
{
    const double grid[8] = {0, PI / 4, PI / 2, 3 * PI / 4, PI, 5 * PI / 4, 3 * PI / 2, 7 * PI / 4};
    un_orients os;
    un_island is;
    int32_t o, q, oi, ok, i;
    memset(&is, 0, sizeof is);
    is.base = 0.2;
    for (i = 0; i < UN_CANDIDATES; i++) is.cand[i] = 0.1 * i + 0.05 * (i % 4) * PI;
    os.ngrid = 8;
    os.nangles = 8 + UN_CANDIDATES;
    os.angles = (double *)grid;
    os.flips = 2;
    for (o = 0; o < os.nangles * os.flips; o++) {
        int32_t a = o % os.nangles;
        double want = a < 8 ? 0.2 + grid[a] : is.cand[a - 8], m[4];
        CHECK_NEAR(un_orient_angle(&os, &is, o), want, 1e-12);
        un_orient_matrix(&os, &is, o, m);
        CHECK_NEAR(m[1], -sin(want), 1e-12);
        CHECK_NEAR(m[3], cos(want), 1e-12);
        CHECK_NEAR(m[0] * m[3] - m[1] * m[2], o < os.nangles ? 1 : -1, 1e-12);
    }
    /* quarter turns of the grid's angles stay on the grid; those of a
     * candidate stay in its group, a quarter turn further each */
    for (o = 0; o < os.nangles * os.flips; o++) {
        int32_t a = o % os.nangles;
        if (a >= 8 && (a - 8) % 4) continue;   /* the groups' first ones */
        for (q = 1; q < 4; q++) {
            int32_t oq = un_orient_quarter(&os, o, q);
            CHECK_EQ(oq / os.nangles, o / os.nangles);
            CHECK_EQ((oq % os.nangles) < 8, a < 8);
            if (a < 8) CHECK_NEAR(turn_gap(un_orient_angle(&os, &is, oq), un_orient_angle(&os, &is, o) + q * PI / 2), 0, 1e-9);
            else CHECK_EQ(oq % os.nangles, a + q);
        }
    }
    os.ngrid = 6;   /* no quarter turns on a grid of 6 */
    CHECK_EQ(un_orient_quarter(&os, 1, 1), -1);
    os.ngrid = 8;
    /* cache keys: equal keys mean the same relative turn of the pair */
    for (oi = 0; oi < os.nangles; oi++)
        for (ok = 0; ok < os.nangles; ok++) {
            int32_t key = un_orient_key(&os, oi, ok), oj, ol;
            double rel = un_orient_angle(&os, &is, ok) - un_orient_angle(&os, &is, oi);
            for (oj = 0; oj < os.nangles; oj += 5)
                for (ol = 0; ol < os.nangles; ol += 3)
                    if (un_orient_key(&os, oj, ol) == key)
                        CHECK(turn_gap(un_orient_angle(&os, &is, ol) - un_orient_angle(&os, &is, oj), rel) < 1e-9);
        }
}

int main(void)
{
    RUN(test_turned_pieces_recover_their_orientation);
    RUN(test_hull_edges_are_candidates);
    RUN(test_orientation_index);
    return tu_report("test_orient");
}
