/*
 * uvnest.h - public interface of the uvnest core (pure C99).
 *
 * Robustness policy
 * -----------------
 * All geometry is decided on an integer grid with exact predicates.  Every
 * coordinate that enters a predicate is an integer with |v| <= UN_COORD_LIMIT
 * (2^29), so orientation tests are exact in 64-bit arithmetic; segment
 * intersection parameters are compared exactly with 128-bit products
 * (__int128 where the compiler has it, a portable fallback otherwise).
 * Intersection points are never rounded while an arrangement is being
 * built; they are rounded once, to the nearest grid point, on output.
 *
 * The float entry points (un_geom_*) quantize their input onto a grid whose
 * step is a power of two chosen from the input's extent (2^-27 of the largest
 * coordinate magnitude), so results are exact up to that step.
 *
 * Touching counts as feasible: no-fit polygons are open sets (their boundary
 * is feasible), and collision-free regions keep their degenerate parts -
 * segments where a piece fits exactly between obstacles and points where the
 * inner-fit region is a single point.  See cfr.c for the exact policy.
 *
 * Memory: every output structure is owned by the caller and released with
 * its *_free function.  Functions return UN_ENOMEM when allocation fails and
 * leave outputs empty; they never abort.  No function keeps global state, so
 * distinct objects may be used from distinct threads at the same time.
 */
#ifndef UVNEST_H
#define UVNEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    UN_OK = 0,
    UN_ENOMEM,      /* allocation failed */
    UN_EINVAL,      /* invalid argument (message names it) */
    UN_ERANGE,      /* coordinates or sizes outside the supported range */
    UN_ECANCELLED,  /* cancelled from another thread */
    UN_ENOFIT,      /* the islands cannot fit the target at all */
    UN_EINTERNAL    /* an internal consistency check failed (a bug) */
} un_status;

const char *un_status_str(un_status s);

#define UN_COORD_LIMIT ((int64_t)1 << 29)
#define UN_MAX_POINTS  ((int32_t)1 << 24)

/* Float polygon rings: ring k has points xy[2*start[k] .. 2*start[k+1]).
 * Outer rings are counter-clockwise, holes clockwise.  Rings are implicitly
 * closed (the first point is not repeated). */
typedef struct {
    double  *xy;
    int32_t *start;   /* nrings + 1 offsets */
    int32_t  nrings;
    int32_t  cap_pts, cap_rings;
} un_frings;

void      un_frings_init(un_frings *r);
void      un_frings_free(un_frings *r);
un_status un_frings_add(un_frings *r, const double *xy, int32_t n);
int32_t   un_frings_npts(const un_frings *r);

/* Collision-free regions: region k owns rings [region_start[k], region_start[k+1])
 * of `rings`: its outer boundary first (counter-clockwise from its leftmost
 * point), then its holes (clockwise).  A degenerate region is a segment chain
 * traversed there and back, or a single point. */
typedef struct {
    un_frings rings;
    int32_t  *region_start;
    int32_t   nregions;
} un_fregions;

void un_fregions_free(un_fregions *r);

/* ---- geometry on float input (quantized per call, see above) ---- */

/* Outline of one island: the union of its faces.  faces: face_start[0..nfaces]
 * offsets into face_idx, indices into uv (n points).  Zero-area faces are
 * ignored.  Result: outer rings CCW, holes CW. */
un_status un_geom_outline(const double *uv, int32_t n, const int32_t *face_start,
                          int32_t nfaces, const int32_t *face_idx, un_frings *out);

/* Conservative simplification: the result contains the input.  Reports the
 * largest deviation used in *used. */
un_status un_geom_simplify(const un_frings *in, double tolerance, int32_t max_vertices,
                           un_frings *out, double *used);

/* No-fit polygon: translations t at which interior(a) and interior(b + t)
 * overlap.  Boundary (touching) positions are feasible. */
un_status un_geom_nfp(const un_frings *a, const un_frings *b, un_frings *out);

/* Inner-fit region of piece inside a container polygon (rings). Empty result
 * when the piece does not fit.  A rectangle container is the fast case. */
un_status un_geom_ifp(const un_frings *container, const un_frings *piece, un_fregions *out);

/* Collision-free regions of `piece` inside `container` with `nplaced` placed
 * polygons (each already at its position), kept `margin` apart. */
un_status un_geom_cfr(const un_frings *container, const un_frings *placed, int32_t nplaced,
                      const un_frings *piece, double margin, un_fregions *out);

/* Point on region k's boundary at perimeter fraction r in [0,1). */
un_status un_region_point_at(const un_fregions *regions, int32_t k, double r, double out[2]);

/* Exact check: do a and b (float rings, both already placed) come closer
 * than margin?  *distance receives the distance (0 when they overlap). */
un_status un_geom_overlaps(const un_frings *a, const un_frings *b, double margin,
                           int *overlapping, double *distance);

#ifdef __cplusplus
}
#endif
#endif /* UVNEST_H */
