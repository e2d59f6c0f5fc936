/*
 * decode.h - what the files of the decoder share (decode.c, place.c,
 * fill.c); not part of the engine's interface (engine.h).
 */
#ifndef UVNEST_DECODE_H
#define UVNEST_DECODE_H

#include "engine.h"

/* One placement to try: island k for position p at orientation o and
 * shrink level, in container bin, its reference point in the box wlo..whi
 * of translation space (the inner-fit rectangle, or a window of it).  Its
 * obstacles are the placed positions cand[0..nc) (0..p-1 when cand is
 * NULL) and, in container 0, the locked islands.  (r, f) pick the point
 * of its collision-free regions (the contact search reads neither). */
typedef struct {
    int32_t        p, k, o, level, bin;
    const int32_t *cand;
    int32_t        nc;
    un_pt          wlo, whi;
    double         r, f;
} place_req;

/* What a placement found: the point t (when found) and, in the contact
 * search, its contact score. */
typedef struct {
    un_pt  t;
    double score;
    int    found;
} place_out;

/* The filler's state over one fill (fill.c). */
typedef struct filler filler;

/* ---------------------------------------------------------------- place.c */

/* A request with no candidate list and r = f = 0. */
place_req un_place_request(int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt wlo, un_pt whi);
/* Try request rq: the point (r, f) of its collision-free regions, or in the
 * contact search (E->contact) the contact placement and its score. */
un_status un_try_place(un_engine *E, const place_req *rq, place_out *out);
/* The inflated box of island k at (o, level) around its reference point. */
void      un_infl_box(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi);
/* Inner-fit rectangle of island k at (o, level); 0 when it cannot fit. */
int       un_island_ifp(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi);
/* Island k went to container `bin` (the groups' bookkeeping). */
void      un_count_bin(un_engine *E, int32_t k, int32_t bin);
/* Position p holds island k at (o, level) in container bin at t. */
void      un_record_place(un_engine *E, int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt t);
/* The orientation theta in [0, 1) picks. */
int32_t   un_orientation_of(const un_engine *E, double theta);

/* --------------------------------------------------------------- decode.c */

/* Island k of position p at orientation o over several containers (first
 * fit, groups kept whole when they fit); F NULL for an annealed island. */
un_status un_place_in_bins(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, double r, double f);

/* ----------------------------------------------------------------- fill.c */

/* The leftmost free point of container `bin` for filler k at position p. */
un_status un_fill_bin(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, int32_t bin, int *found);
/* Place the filler positions from..to-1. */
un_status un_fill(un_engine *E, int32_t from, int32_t to);

#endif /* UVNEST_DECODE_H */
