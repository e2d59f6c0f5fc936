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

/* Scratch memory of the geometry calls (their arrangements' arrays).  The
 * calls below that take one use it when it is not NULL, so a caller making
 * many calls keeps that memory allocated and warm between them; with NULL
 * each call allocates and frees its own.  A workspace serves one call at a
 * time (no locking: give each thread its own).  Results never depend on
 * whether or which workspace is used. */
typedef struct un_arr un_workspace;

un_workspace *un_workspace_new(void);      /* NULL when out of memory */
void          un_workspace_free(un_workspace *ws);

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

/* Convex hull of all points of the rings (one counter-clockwise ring),
 * moved out by one grid step so that it contains the input. */
un_status un_geom_hull(const un_frings *in, un_frings *out);

/* No-fit polygon: translations t at which interior(a) and interior(b + t)
 * overlap.  Boundary (touching) positions are feasible. */
un_status un_geom_nfp(const un_frings *a, const un_frings *b, un_frings *out, un_workspace *ws);

/* Inner-fit region of piece inside a container polygon (rings). Empty result
 * when the piece does not fit.  A rectangle container is the fast case. */
un_status un_geom_ifp(const un_frings *container, const un_frings *piece, un_fregions *out,
                      un_workspace *ws);

/* Collision-free regions of `piece` inside `container` with `nplaced` placed
 * polygons (each already at its position), kept `margin` apart. */
un_status un_geom_cfr(const un_frings *container, const un_frings *placed, int32_t nplaced,
                      const un_frings *piece, double margin, un_fregions *out, un_workspace *ws);

/* The same from no-fit polygons computed before (un_geom_nfp of each placed
 * island and the piece, translated to where the island sits): the engine's
 * way, with every no-fit polygon from its cache. */
un_status un_geom_cfr_nfps(const un_frings *container, const un_frings *nfps, int32_t n,
                           const un_frings *piece, un_fregions *out, un_workspace *ws);

/* Point on region k's boundary at perimeter fraction r in [0,1). */
un_status un_region_point_at(const un_fregions *regions, int32_t k, double r, double out[2]);

/* Exact check: do a and b (float rings, both already placed) come closer
 * than margin?  *distance receives the distance (0 when they overlap). */
un_status un_geom_overlaps(const un_frings *a, const un_frings *b, double margin,
                           int *overlapping, double *distance);

/* ---- islands, outlines and checks (what the Python package calls besides
 * the packer) ---- */

/* Connected components of n nodes joined by pairs (a[k], b[k]); label[i]
 * numbers components 0.. in order of their smallest node (components.c). */
un_status un_components(int32_t n, const int32_t *a, const int32_t *b, int64_t npairs, int32_t *label,
                        int32_t *ncomp);

/* Group polygons whose interiors overlap: label[i] numbers the groups in
 * order of their first polygon.  Empty polygons stay alone (components.c). */
un_status un_overlap_groups(const un_frings *polys, int32_t n, int32_t *label);

/* Outlines of several islands in one call: faces of group g (face_group[f]
 * in 0..ngroups) give out[g], needles kept: each outline holds every UV of
 * its faces, zero-area islands included.  solid[g]: whether some face of
 * group g has area (else out[g] is strips only, around a segment or a
 * point) (outline.c). */
un_status un_geom_outlines(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                           const int32_t *face_idx, const int32_t *face_group, int32_t ngroups,
                           un_frings *out, int8_t *solid);

/* Power-of-two squares sizes[0..n) (each at most layer) in square layers of
 * side layer (a power of two): out_xyl[3k..3k+3) = x, y, layer.  Zero waste:
 * every layer but the last is full.  UN_EINVAL if a size or the layer is
 * not a power of two (pow2.c). */
un_status un_pack_pow2(const int64_t *sizes, int32_t n, int64_t layer, int64_t *out_xyl, int32_t *nlayers);

/* Check a whole layout (tile coordinates): polys[0 .. n-nfixed) are placed
 * islands, the last nfixed are fixed (locked) ones.  Placed islands must lie
 * inside box (x0, y0, x1, y1) and every pair not both fixed must keep the
 * margin, all within two grid steps of the check (2^-26 of the layout's
 * extent).  *bad_a = -1 when valid; else the offending island (and *bad_b
 * the other one of a pair, or -1 for an island outside the box)
 * (validate.c). */
un_status un_validate_layout(const un_frings *polys, int32_t n, int32_t nfixed, double margin,
                             const double box[4], int32_t *bad_a, int32_t *bad_b);

/* Does every point lie in its polygon, or within tol of it?  Polygon k is
 * rings poly_ring[k] .. poly_ring[k+1] of ring_xy / ring_start (as in
 * un_frings) and must hold the points pts[2 pt_start[k] .. 2 pt_start[k+1])
 * (x, y pairs); *bad = -1, or the first polygon that does not (a NaN point
 * does not) (validate.c). */
un_status un_validate_holds(const double *ring_xy, const int32_t *ring_start, const int32_t *poly_ring, int32_t n,
                            const double *pts, const int32_t *pt_start, double tol, int32_t *bad);

/* ---- packing ---- */

typedef struct un_packer un_packer;

typedef struct {
    double        target[4];   /* x0, y0, x1, y1: the target rectangle (tile units) */
    double        margin;      /* smallest distance between islands (tile units) */
    double        padding;     /* smallest distance from the target's border */
    int32_t       nangles;     /* allowed rotations: angles[0..nangles) */
    const double *angles;      /* radians, added to each island's base angle */
    int32_t       align;       /* base angle: 1 = minimal bounding rectangle, 0 = as given */
    int32_t       flip;        /* mirroring allowed */
    uint64_t      seed;
    double        cache_bytes; /* budget of the no-fit polygon cache */
    int32_t       anneal_max;  /* largest islands annealed (the rest are filled); 0: default */
    double        fixed_scale; /* > 0: keep this scale and use up to max_bins targets */
    int32_t       max_bins;    /* with fixed_scale: how many targets (tiles) may be used */
    int32_t       box;         /* pack bounding rectangles (skyline bottom-left) */
} un_pack_options;

/* uv' = scale * R(angle) * F^flip * uv + (tx, ty), F = diag(-1, 1), in
 * target number `bin` (always 0 unless fixed_scale is set; the caller maps
 * bins to tiles: the transform is relative to the target rectangle). */
typedef struct {
    double  angle;
    int32_t flip;
    double  scale;
    double  tx, ty;
    int32_t bin;
} un_transform;

/* The kinds of rotation moves (with rotation any), in un_pack_stats.theta:
 * an edge on an axis (a candidate), an edge against a neighbour's, a
 * refinement at contact, a random step; and what is counted of each: moves
 * proposed, accepted, improving the current layout (lower cost), and
 * making a complete layout (every island placed: a new best); and of the
 * neighbour and refinement moves, those that found no edge pair (they ran
 * as random steps, counted there). */
enum { UN_THETA_WALL, UN_THETA_NEIGHBOUR, UN_THETA_REFINE, UN_THETA_RANDOM, UN_THETA_KINDS };
enum { UN_THETA_PROPOSED, UN_THETA_ACCEPTED, UN_THETA_IMPROVED, UN_THETA_COMPLETED, UN_THETA_NO_PAIR,
       UN_THETA_COUNTS };

typedef struct {
    int64_t moves;             /* annealing moves so far */
    int64_t layouts;           /* improving layouts found */
    int64_t rejected;          /* layouts that failed the final check: a bug if > 0 */
    double  coverage, scale;   /* of the best layout */
    size_t  cache_bytes;
    int64_t cache_hits, cache_misses;
    int32_t annealed;          /* islands annealed; the rest are filled */
    double  trying;            /* scale the search is trying now */
    double  waste;             /* share of that container not covered now */
    int32_t bins;              /* targets the best layout uses */
    double  bins_f;            /* sum(U^2) / bins, U each target's share covered */
    /* rotation moves by kind (main and side searches; in the aligned
     * search the pins: a random candidate counts as UN_THETA_WALL) */
    int64_t theta[UN_THETA_KINDS][UN_THETA_COUNTS];
} un_pack_stats;

un_status un_packer_new(const un_pack_options *opt, un_packer **out);
void      un_packer_free(un_packer *pk);
/* Add an island: its outline (island units) and its true area (> 0).  An
 * outline without area (all its points on one line, or one point) packs as
 * the segment or point it is, grown by the margin. */
un_status un_packer_add_island(un_packer *pk, const un_frings *outline, double area);
/* Put island k (in the order added) in affinity group g >= 0: with several
 * targets, islands of one group go to the same one whenever it fits. */
un_status un_packer_set_group(un_packer *pk, int32_t k, int32_t g);
/* Add a locked island: an obstacle, given in tile coordinates. */
un_status un_packer_add_locked(un_packer *pk, const un_frings *outline);
/* Prepare and find the first layout (a bottom-left fill).  Cancelled
 * (UN_ECANCELLED), a later call goes on where it stopped, keeping the work
 * done; after a success it does nothing; after any other failure it
 * returns UN_EINVAL.  The search's side search starts on the first move. */
un_status un_packer_start(un_packer *pk, volatile int *cancel);
/* Search for up to `moves` annealing moves; *improved when a better layout
 * was found.  cancel may be set from another thread. */
un_status un_packer_run(un_packer *pk, int64_t moves, volatile int *cancel, int *improved);
/* The best layout so far (one transform per island, in the order added);
 * returns 0 when there is none yet. */
int       un_packer_best(const un_packer *pk, un_transform *out);
void      un_packer_stats(const un_packer *pk, un_pack_stats *st);
/* Add more's rotation moves (un_pack_stats.theta) to st's. */
void      un_pack_stats_add_theta(un_pack_stats *st, const un_pack_stats *more);

#ifdef __cplusplus
}
#endif
#endif /* UVNEST_H */
