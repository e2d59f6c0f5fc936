/*
 * engine.h - types shared by the files of the packing engine (island.c,
 * nfpcache.c, decode.c, anneal.c and the packer's files, packer.h).  Not
 * part of the public interface.
 *
 * Units.  The engine works in "island units" (the islands' own UV units)
 * on an integer grid of step q island units.  The target (width W, height H
 * in tile units) becomes a container of W*L by H*L island units, where L is
 * the inverse of the scale s that maps islands to the tile: searching for
 * the largest scale is searching for the smallest L.  No-fit polygons do not
 * depend on L, so they are cached across the whole search; only the margin,
 * m*L/2 island units per island, moves with L, and islands are re-inflated
 * (and the cache flushed) when L has drifted by more than a few percent.
 *
 * Slack.  Every island is inflated by SLACK grid units more than half the
 * margin.  That covers the roundings between the exact integer geometry and
 * the placed floats (outline quantization, rotating an inflated outline or
 * a no-fit polygon onto the grid, rounding the placement point): at most
 * about 4.3 grid units in all, against 2 * SLACK = 6.  The final check
 * (validate.c) therefore never sees two islands closer than the margin.
 */
#ifndef UVNEST_ENGINE_H
#define UVNEST_ENGINE_H

#include "internal.h"
#include "tuning.h"

#define UN_SLACK 3               /* grid units added to every inflation */
#define UN_GRID_BITS 24          /* the initial container is 2^24 grid units */
#define UN_ENGINE_DISK_SIDES 8   /* margin disk: an octagon (8% at worst) */
/* Containers (tiles) of a fixed-scale search at most: un_pack_options's
 * max_bins, and the size of the decode's per-container tables. */
#define UN_MAX_BINS 256

/* ------------------------------------------------------------------ rng.c */

typedef struct {
    uint64_t state, inc;
} un_rng;

void     un_rng_seed(un_rng *g, uint64_t seed, uint64_t stream);
uint32_t un_rng_u32(un_rng *g);
double   un_rng_unit(un_rng *g);            /* [0, 1) */
int32_t  un_rng_below(un_rng *g, int32_t n); /* [0, n) */

/* --------------------------------------------------------------- island.c */

typedef struct {
    un_frings outline;    /* full outline, island units (for validation) */
    un_frings shape;      /* simplified (containing) outline, island units */
    double    area;       /* true area of the island */
    double    perimeter;  /* of the simplified shape (island units) */
    double    base;       /* base angle of orientation 0 (radians) */
    double    cand[UN_CANDIDATES]; /* candidate angles (radians, absolute, not
                                    * offsets from base): 4 quarter turns per
                                    * direction (orient.c) */
    /* contact orientations (neighbour_orient.c): the quarter turns of the
     * last angle a neighbour or refinement move gave (absolute radians),
     * and its version.  The no-fit polygon cache keys them by version, so
     * a version is never reused for another angle: contact_ver only grows
     * (contact_next is the last one handed out; 2^31 moves of one island
     * are years of search) and an undone move restores both. */
    double    contact[4];   /* UN_CONTACT_ORIENTS of them are used (0 or 4) */
    int32_t   contact_ver, contact_next;
    double    cx, cy;     /* reference point: the shape's bbox centre */
    /* inflated shape on the grid, identity orientation, one per shrink
     * level (0 = full size), for the current inflation epoch */
    un_rings  infl[UN_SHRINK_LEVELS];
    int32_t   infl_epoch[UN_SHRINK_LEVELS];
    /* an annealed island's coarser view for the no-fit polygons of fillers
     * around it (no rings: none, the shape serves): it contains the shape,
     * so fillers kept off it are kept off the shape; inflated like infl[0] */
    un_frings coarse;
    un_rings  coarse_infl;
    int32_t   coarse_epoch;
    int32_t   filler;     /* placed by the fill, after the annealed islands */
} un_island;

typedef struct {
    int32_t nangles;      /* orientations per flip: the grid, then the candidates,
                           * then the contact orientations */
    int32_t ngrid;        /* grid angles: angles[0..ngrid) */
    double *angles;       /* the grid: offsets from each island's base angle */
    int32_t flips;        /* 1 or 2 */
} un_orients;

/* Angle of orientation o = a + nangles * flip: base + angles[a] for a grid
 * angle (a < ngrid), else the island's candidate cand[a - ngrid], or past
 * the candidates its contact orientation. */
double  un_orient_angle(const un_orients *os, const un_island *is, int32_t o);
/* The first contact orientation's index (per flip), or -1 when the
 * engine has none. */
int32_t un_orient_contact_first(const un_orients *os);
/* The version of o's angle for the no-fit polygon cache: the island's
 * contact version for a contact orientation, else 0 (fixed angles). */
int32_t un_orient_version(const un_orients *os, const un_island *is, int32_t o);
/* Island transform for orientation o: a point p (relative to the reference
 * point) maps to R(un_orient_angle) F^flip p. */
void    un_orient_matrix(const un_orients *os, const un_island *is, int32_t o, double m[4]);
/* The no-fit polygon cache's key for the angles of orientations oi (the
 * fixed island) and ok (the moving one): their difference when both are
 * grid angles (the polygon, in the fixed island's frame, depends on
 * nothing else), else a value >= ngrid unique to the pair. */
int32_t un_orient_key(const un_orients *os, int32_t oi, int32_t ok);
/* Does an earlier orientation of the same flip turn island `is` by the
 * same angle (a candidate that repeats its base or another candidate)? */
int     un_orient_repeats(const un_orients *os, const un_island *is, int32_t o);
/* Orientation o turned by q more quarter turns (same flip), or -1 when o
 * is a grid angle and the grid does not hold quarter turns. */
int32_t un_orient_quarter(const un_orients *os, int32_t o, int32_t q);

/* ---------------------------------------------------------------- orient.c */

/* The candidate angles of a shape whose base angle is `base` (see orient.c). */
un_status un_orient_candidates(const un_frings *shape, double base, double cand[UN_CANDIDATES]);

/* Bounding box on the grid (rounded outwards) of the raw shape of island
 * `is` at orientation o, shrink factor sigma, grid step q. */
void un_island_bbox(const un_orients *os, const un_island *is, int32_t o, double sigma, double q,
                    un_pt *lo, un_pt *hi);

/* ------------------------------------------------------------- nfpcache.c */

typedef struct un_nfpcache un_nfpcache;

typedef struct {
    int32_t i, k;         /* fixed island, moving island */
    int32_t fi, fk;       /* their flips */
    int32_t da;           /* angle index of k minus that of i, mod nangles */
    int32_t si, sk;       /* shrink levels */
    int32_t vi, vk;       /* versions of their angles (un_orient_version) */
} un_nfpkey;

typedef struct {
    un_rings rings;       /* no-fit polygon in island i's frame */
    un_pt    lo, hi;
    un_core  core;        /* a box inside it (obstacle_cores.c), if has_core */
    int      has_core;
} un_nfpval;

un_nfpcache     *un_nfpcache_new(size_t budget_bytes);
void             un_nfpcache_set_budget(un_nfpcache *c, size_t budget_bytes); /* applies from the next put */
void             un_nfpcache_free(un_nfpcache *c);
void             un_nfpcache_clear(un_nfpcache *c);
/* Entries handed out since the last un_nfpcache_release stay valid. */
const un_nfpval *un_nfpcache_get(un_nfpcache *c, const un_nfpkey *key);
un_status        un_nfpcache_put(un_nfpcache *c, const un_nfpkey *key, un_rings *rings,
                                 const un_nfpval **out);
void             un_nfpcache_release(un_nfpcache *c);
size_t           un_nfpcache_bytes(const un_nfpcache *c);
int64_t          un_nfpcache_hits(const un_nfpcache *c);
int64_t          un_nfpcache_misses(const un_nfpcache *c);

/* ---------------------------------------------------------------- decode.c */

typedef struct {
    int32_t placed;       /* 0: not placed (did not fit even shrunk) */
    int32_t orient;
    int32_t sigma;        /* shrink level: 0 full size .. UN_SHRINK_LEVELS-1 */
    int32_t bin;          /* container (tile) it went to; always 0 with one */
    un_pt   t;            /* translation of the reference point (grid) */
    un_pt   lo, hi;       /* inflated bbox in the container (grid) */
} un_place;

double    un_shrink_factor(int32_t level);
/* Inflate island `is` at a shrink level for an epoch (no-op if current). */
un_status un_island_inflate(un_arr *w, un_island *is, int32_t level, int32_t epoch, double q,
                            int64_t radius);
/* The same for the coarse view, at full size. */
un_status un_island_inflate_coarse(un_arr *w, un_island *is, int32_t epoch, double q, int64_t radius);
/* Append the rings of `in` mapped by m (2x2, row-major) and translated by
 * off, rounded to the grid; mirrored rings are reversed. */
un_status un_rings_transform(const un_rings *in, const double m[4], un_pt off, un_rings *out);
/* Box around the image of box lo..hi under m, translated by off. */
void      un_bbox_transform(un_pt lo, un_pt hi, const double m[4], un_pt off, un_pt *olo, un_pt *ohi);

/* The engine's workspaces: reused by every placement (place.c). */
typedef struct {
    un_nfpcache *cache;
    un_arr      *arr;
    un_regions   reg;
    un_seg      *segs;  int32_t cap_segs;
    un_rings     scratch;        /* transformed obstacles of one placement */
    un_rings     tmp;            /* a rotated inflated island */
    un_obstacle *obs;   int32_t cap_obs;
    un_core     *cores; int32_t cap_cores;  /* obstacles' cores, moved into place */
    un_ring_view *views; int32_t cap_views;
} un_engine_ws;

/* Fixed scale over several containers (tiles): nbins_max > 0. */
typedef struct {
    int32_t     nbins_max;
    int32_t     nopen;           /* containers opened by the current decode */
    int32_t    *group;           /* per island: affinity group, -1 for none */
    int32_t    *group_bin;       /* per group: its container in the current decode, -1 */
    double     *group_area;      /* per group: its islands' total area */
    double     *bin_area;        /* per container: island area the current decode put there */
    int32_t    *group_mark;      /* per group: scratch flag */
    int32_t     ngroups;
} un_engine_bins;

/* The contact search's state (place.c). */
typedef struct {
    un_pt      *spots;  int32_t cap_spots;  /* candidate points of one placement */
    un_rings    self;                       /* the island being placed, inflated, turned */
    un_rings    near;                       /* placed islands near it, in place */
    int32_t    *near_at, *near_to;          /* per position: its rings in near, or -1 */
    int64_t     pairs;                      /* edge pairs the contact scores compared */
} un_engine_touch;

/* The engine: one search over one set of islands.  Owned by the packer
 * (packer.h); decode.c places islands, anneal.c searches. */
typedef struct un_engine {
    /* problem */
    un_island  *isl;
    int32_t     n;
    un_orients  os;
    double      tw, th;          /* target width and height (tile units) */
    double      margin;          /* tile units */
    double      padding;         /* distance kept from the target border (tile units) */
    un_frings  *locked;          /* locked islands, tile coordinates relative to the target */
    int32_t     nlocked;
    /* grid and scale */
    double      q;               /* grid step (island units) */
    double      L;               /* container scale: the target is tw*L by th*L island units */
    double      L_infl;          /* L the current inflation was made for (>= L) */
    double      drift;           /* L may fall this share below L_infl before islands
                                  * are inflated again (0: UN_INFLATION_DRIFT) */
    double      infl_hint;       /* inflate for this L when it covers L (0: none) */
    int32_t     epoch;           /* inflation epoch */
    int32_t     lstep;           /* bumped whenever L changes (locked obstacles) */
    int64_t     radius;          /* inflation radius, grid units */
    un_pt       clo, chi;        /* container on the grid */
    un_engine_ws ws;             /* workspaces of one placement */
    /* the sequence: islands in placement order, parameters per island */
    int32_t    *seq;
    double     *par;             /* 3 per island: theta, r, f in [0, 1) */
    un_place   *pl;              /* per position */
    int32_t     nanneal;         /* positions annealed; the rest are filled */
    un_engine_bins bins;         /* fixed scale over several containers */
    int32_t     fill_stop;       /* stop filling at the first island that does not fit */
    int32_t     fill_quick;      /* fillers take the first window with room (column by
                                  * column), not the leftmost point of all windows */
    struct un_fill_memo *fill_memo; /* the windows of the start's last quick fill, for
                                  * one that goes on where it stopped (fill.c) */
    int64_t     work;            /* collision-free regions computed so far */
    int32_t     at_vertices;     /* half of r's range picks a vertex of the region */
    /* the contact search: every island goes to the vertex of its regions
     * where it touches the most (decode.c), and only the sequence moves */
    int32_t     contact;
    un_engine_touch touch;       /* its state */
    volatile int *cancel;
} un_engine;

/* Free the windows a quick fill of the start kept (E->fill_memo, fill.c). */
void un_fill_memo_free(un_engine *E);

/* Place positions from.. after positions 0..from-1: the annealed ones by
 * their parameters, then - only when every annealed island fits at full
 * size - the filler ones.  Sets *waste to the share of the container not
 * covered (shrunk islands counted at their size) and *complete when every
 * island is placed at full size.  With several containers (nbins_max > 0)
 * each island goes to its group's container if it fits there, else to the
 * first open one where it fits, else to a new one; *waste is then the cost
 * (containers used) - sum(U^2) / (containers used), U each container's
 * share covered, plus a penalty for islands left out. */
un_status un_decode(un_engine *E, int32_t from, double *waste, int *complete);
/* Set L and the container; re-inflates islands (and flushes the no-fit
 * polygon cache) when L moved above the inflation or below it by more than
 * the drift allowed, for infl_hint when that lies within the drift above L,
 * else for L. */
un_status un_engine_set_scale(un_engine *E, double L);
/* The largest L un_engine_set_scale accepts, less a percent. */
double    un_engine_largest_scale(const un_engine *E);

/* ------------------------------------------------------ neighbour_orient.c */

/* The contact orientations of island `is` back to repeats of its first
 * candidates, version 0. */
void      un_contact_orient_reset(un_island *is);
/* Its contact orientations: the quarter turns of `angle`, under a new
 * version unless they are those already. */
void      un_contact_orient_set(un_island *is, double angle);
/* The angle (in (-pi, pi]) at which an island of flip `flip` runs its edge
 * of local direction (dx, dy) against world direction w: antiparallel. */
double    un_align_angle(double dx, double dy, int32_t flip, double w);
/* The smallest turn (in (-pi/2, pi/2]) that makes direction a parallel to
 * direction b, either way. */
double    un_parallel_turn(double a, double b);
/* Distance between segments a and b (x0, y0, x1, y1); 0 when they cross. */
double    un_segment_gap(const double a[4], const double b[4]);
/* An angle for the island at position p (placed) from the current layout:
 * against a neighbour's edge, or (refine) turned until its edge nearest a
 * neighbour's or a wall lies parallel to it.  *found = 0 when there is
 * none (no neighbour, no nearly parallel pair within reach). */
un_status un_contact_angle(const un_engine *E, int32_t p, int refine, un_rng *g, double *angle, int *found);

#endif /* UVNEST_ENGINE_H */
