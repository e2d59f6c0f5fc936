/*
 * pack_fixtures.h - islands and options shared by the packing tests
 * (test_engine.c, test_oom_engine.c).
 */
#ifndef UVNEST_PACK_FIXTURES_H
#define UVNEST_PACK_FIXTURES_H

#include "tu.h"

/* Quarter turns: the rotations the packing tests allow. */
static const double QUARTERS[4] = {0, 1.5707963267948966, 3.141592653589793, 4.71238898038469};

/* A w x h rectangle with its lower left corner at (x, y). */
static inline void ring_rect(un_frings *f, double x, double y, double w, double h)
{
    tu_fbox(f, x, y, x + w, y + h);
}

/* An L: the 2s square at (x, y) without its upper-right s square (area 3 s^2). */
static inline void ring_L(un_frings *f, double x, double y, double s)
{
    const double xy[12] = {x, y, x + 2 * s, y, x + 2 * s, y + s, x + s, y + s, x + s, y + 2 * s, x, y + 2 * s};
    if (un_frings_add(f, xy, 6) != UN_OK) abort();
}

/* Fit mode in the unit square, margin 0.01, padding 0.005, quarter turns,
 * aligned base angles. */
static inline un_pack_options pack_options(uint64_t seed, double cache_bytes)
{
    un_pack_options o;
    memset(&o, 0, sizeof o);
    o.target[2] = o.target[3] = 1;
    o.margin = 0.01;
    o.padding = 0.005;
    o.nangles = 4;
    o.angles = QUARTERS;
    o.align = 1;
    o.seed = seed;
    o.cache_bytes = cache_bytes;
    return o;
}

#endif /* UVNEST_PACK_FIXTURES_H */
