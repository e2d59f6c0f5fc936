/*
 * internal.h - types and helpers shared by the files of the uvnest core.
 * Not part of the public interface.
 */
#ifndef UVNEST_INTERNAL_H
#define UVNEST_INTERNAL_H

#include "uvnest.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- exact.c */

typedef struct { int64_t x, y; } un_pt;

/* Sign of a*b - c*d, exact for any int64 inputs. */
int un_sign_mul_sub(int64_t a, int64_t b, int64_t c, int64_t d);

/* Orientation of c relative to the directed line a->b: +1 left, -1 right,
 * 0 collinear.  Exact when all coordinates are within UN_COORD_LIMIT. */
int un_orient(un_pt a, un_pt b, un_pt c);

/* Cross product of two difference vectors, exact within UN_COORD_LIMIT. */
static inline int64_t un_cross(int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
    return ax * by - ay * bx;
}

/* Compare the directions of two non-zero vectors by angle in [0, 2pi) from
 * the positive x axis: returns <0, 0, >0.  Exact. */
int un_angle_cmp(int64_t ax, int64_t ay, int64_t bx, int64_t by);

/* Compare the counter-clockwise angles from direction a to d1 and to d2,
 * both in [0, 2pi).  Exact for components below 2^30. */
int un_angle_cmp_from(int64_t ax, int64_t ay, int64_t d1x, int64_t d1y, int64_t d2x, int64_t d2y);

/* Is direction d in the counter-clockwise arc from a to b?  incl_a/incl_b
 * say whether the arc's end directions belong to it.  a and b must not be
 * the same direction. */
int un_in_arc(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t dx, int64_t dy,
              int incl_a, int incl_b);

/* An exact rational point base + (dx, dy) * n / d, 0 < d < 2^62, on a
 * segment whose ends are within UN_COORD_LIMIT. */
typedef struct {
    un_pt   base;
    int64_t dx, dy, n, d;
} un_rpt;

/* p's coordinates in double: within 1e-5 of the exact ones (coordinates
 * below 2^31, a few roundings), for filters that keep a margin of 1. */
static inline double un_rpt_x_approx(const un_rpt *p)
{
    return (double)p->base.x + (double)p->dx * ((double)p->n / (double)p->d);
}

static inline double un_rpt_y_approx(const un_rpt *p)
{
    return (double)p->base.y + (double)p->dy * ((double)p->n / (double)p->d);
}

/* Signs of p.x - X, p.y - Y, and the orientation of p relative to a->b. */
int un_rpt_cmp_x(const un_rpt *p, int64_t X);
int un_rpt_cmp_y(const un_rpt *p, int64_t Y);
int un_rpt_orient(un_pt a, un_pt b, const un_rpt *p);
/* 1 inside, 0 outside, -1 on the boundary of ring r[0..n) (exact). */
int un_rpt_in_ring(const un_pt *r, int32_t n, const un_rpt *p);
/* One edge a->b of that test, py being p's y in double: -1 when p lies on
 * the edge, 1 when a ray from p to the right crosses it (half-open in y),
 * else 0.  Edges whose y range misses p.y always give 0. */
int un_rpt_edge_step(un_pt a, un_pt b, const un_rpt *p, double py);

/* The corners of box lo..hi, counter-clockwise from lo. */
static inline void un_box_corners(un_pt lo, un_pt hi, un_pt q[4])
{
    q[0] = lo;
    q[1].x = hi.x; q[1].y = lo.y;
    q[2] = hi;
    q[3].x = lo.x; q[3].y = hi.y;
}

/* Lexicographic (x, then y) comparison of two points. */
static inline int un_pt_cmp(un_pt a, un_pt b)
{
    if (a.x != b.x) return a.x < b.x ? -1 : 1;
    if (a.y != b.y) return a.y < b.y ? -1 : 1;
    return 0;
}

static inline int64_t un_llround(double v)
{
    return (int64_t)(v < 0 ? v - 0.5 : v + 0.5);
}

/* pi and a quarter turn as doubles (C99 has no M_PI). */
#define UN_PI 3.141592653589793
#define UN_QUARTER_TURN 1.5707963267948966

/* ------------------------------------------------------------------ mem.c */

/* dst (initialised here) becomes a copy of src; on failure dst holds part
 * of it and must still be freed. */
un_status un_frings_copy(un_frings *dst, const un_frings *src);
/* Signed area of the rings (holes, clockwise, count negative). */
double    un_frings_area(const un_frings *f);

/* Grow *buf (element size elem) so that it holds at least `need` elements. */
un_status un_reserve(void **buf, int32_t *cap, int64_t need, size_t elem);
#define UN_RESERVE(buf, cap, need) un_reserve((void **)&(buf), &(cap), (need), sizeof(*(buf)))

/* Return the status of x from the calling function unless it is UN_OK (for
 * functions that own nothing to free on failure). */
#define UN_TRY(x) do { un_status un_try_ = (x); if (un_try_ != UN_OK) return un_try_; } while (0)

/* Stable merge sort of n int32 keys with a comparator taking a context;
 * tmp must hold n elements. */
typedef int (*un_cmp_fn)(int32_t a, int32_t b, const void *ctx);
void un_sort_idx(int32_t *v, int32_t n, un_cmp_fn cmp, const void *ctx, int32_t *tmp);

/* Integer rings, same layout as un_frings. */
typedef struct {
    un_pt   *pts;
    int32_t *start;
    int32_t  nrings;
    int32_t  cap_pts, cap_rings;
} un_rings;

void      un_rings_init(un_rings *r);
void      un_rings_free(un_rings *r);
void      un_rings_clear(un_rings *r);
un_status un_rings_add(un_rings *r, const un_pt *pts, int32_t n);
un_status un_rings_copy(un_rings *dst, const un_rings *src);
static inline int32_t un_rings_npts(const un_rings *r)
{
    return r->nrings ? r->start[r->nrings] : 0;
}
/* Twice the signed area of ring k (exact; positive for counter-clockwise). */
double un_ring_area2(const un_rings *r, int32_t k);
void   un_rings_bbox(const un_rings *r, un_pt *lo, un_pt *hi);
/* Bounding box of points p[0..n) (empty: lo = INT64_MAX, hi = INT64_MIN). */
void   un_pts_bbox(const un_pt *p, int32_t n, un_pt *lo, un_pt *hi);
/* Drop repeated points, zero-length edges and straight vertices, and (unless
 * keep_spikes) spikes where a ring doubles back; drop rings left with fewer
 * than 3 points (keep_spikes: fewer than 1). */
un_status un_rings_clean(un_rings *r, int keep_spikes);

/* ------------------------------------------------------------- arrange.c */

/* A directed input segment.  ws is its weight in the winding number of the
 * obstacle ("solid") set, wc its weight for the container: crossing the
 * segment from its right to its left adds ws (and wc).  tag names the solid
 * the segment bounds (used to decide isolated points exactly). */
typedef struct {
    un_pt   a, b;
    int32_t ws, wc, tag;
} un_seg;

typedef enum {
    UN_SEL_FREE,      /* {container winding > 0} (closed) minus {solid
                         winding > 0} (open), degenerate parts kept.  Needs
                         solids whose rings are simple, so that the winding
                         number counts the solids containing a point. */
    UN_SEL_CONV,      /* {winding <= 0} of a convolution, regularized (the
                         closure of its open part) */
    UN_SEL_RCONV,     /* the same for a reduced convolution: segments whose
                         left side is inside the sum, covering its boundary
                         but not closing into cycles.  A face is inside when
                         one of its edges has it on its left, outside when it
                         is unbounded, and otherwise asks inside_near. */
    UN_SEL_COVERED    /* boundary of the closure of {solid winding > 0} */
} un_select;

/* A traced boundary loop: points [start, end) of the workspace's output
 * arrays.  hole: the free (or covered) side lies outside this loop. */
typedef struct {
    int32_t start, end;
    int32_t hole;
    double  area2;   /* twice the signed area (approximate) */
} un_loop;

typedef struct un_arr un_arr;   /* the workspace of uvnest.h (un_workspace), see arrange.c */

/* Exact tests at a point p = base + (dx, dy) * n / d (0 <= n/d <= 1,
 * 0 < d < 2^62).
 * free_at: is p itself free?  Used where winding numbers cannot decide:
 *   degenerate parts of a convolution's free set, and isolated free points.
 *   May be NULL (those parts are then dropped, which is conservative).
 * inside_near: is the point p + e1 (ex, ey) + e2 (-ey, ex), for
 *   0 < e2 << e1 << 1, inside the solid?  That point lies off every line,
 *   so the answer is the same for open and closed solids.  Needed by
 *   UN_SEL_RCONV, which classifies faces instead of counting windings. */
typedef struct {
    int (*free_at)(void *ctx, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d);
    int (*inside_near)(void *ctx, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d,
                       int64_t ex, int64_t ey);
    void *ctx;
    /* when > 0: a winding at or above it lies inside a core
     * (obstacle_cores.c), so edges and vertices next to it are covered;
     * set by cfr.c */
    int32_t deep;
} un_verifier;

/* Build the arrangement of segs and trace the boundary selected by sel.
 * verify may be NULL (then degenerate parts that need it are dropped).
 * Results stay valid until the next call on the same workspace. */
un_status un_arr_run(un_arr *w, const un_seg *segs, int32_t nsegs, un_select sel,
                     const un_verifier *verify);
int32_t        un_arr_nloops(const un_arr *w);
/* The selection the last un_arr_run was asked for (for tests: did a sum
 * use the reduced convolution or fall back to the full one?). */
un_select      un_arr_ran(const un_arr *w);
const un_loop *un_arr_loops(const un_arr *w);
/* Loop points: exact rational vertices as doubles, and rounded to the grid. */
const double  *un_arr_xy(const un_arr *w);
const un_pt   *un_arr_ipts(const un_arr *w);
/* Isolated free points (only for UN_SEL_FREE with a degenerate container). */

/* Append a one-point loop (an isolated free point found by the caller). */
un_status un_arr_add_point(un_arr *w, un_pt p);

/* Append the segments of rings (weights ws/wc, tag, reversed when rev) to a
 * segment buffer. */
un_status un_segs_from_rings(un_seg **segs, int32_t *n, int32_t *cap, const un_rings *r,
                             int32_t ws, int32_t wc, int32_t tag, int rev);

/* -------------------------------------------------------------- bridge.c */

/* Orient rings by nesting: rings inside an odd number of others are holes
 * (clockwise), the rest outer rings (counter-clockwise).  hole may be NULL. */
un_status un_rings_orient(un_rings *r, int8_t *hole);

/* Components of a polygon (rings of any orientation) as weakly simple
 * counter-clockwise rings, holes spliced in through zero-width slits.
 * other: NULL, or the other operand of a sum, bridged; then the holes that
 * none of its components fits in are filled (the rings of `in` and of the
 * other operand must be simple and apart: un_rings_simple). */
un_status un_poly_bridge(const un_rings *in, const un_rings *other, un_rings *out);

/* ---------------------------------------------------------- simplering.c */

/* *simple = 1 when every ring has at least 3 points, no ring touches or
 * crosses itself or runs back along itself, and no two rings meet. */
un_status un_rings_simple(const un_rings *r, int *simple);

/* ----------------------------------------------------------- minkowski.c */

/* Append the convolution segments of weakly simple rings P and Q; with
 * reduced, only those at convex vertices (Behar and Lien's reduced
 * convolution: it still covers the boundary of the sum, and the sum lies
 * just left of each of its segments). */
un_status un_convolve(const un_pt *P, int32_t np, const un_pt *Q, int32_t nq, int reduced,
                      un_seg **segs, int32_t *n, int32_t *cap);
/* Minkowski sum a (+) b, or with UN_MSUM_NFP the no-fit polygon a (+) (-b),
 * of polygons given as rings of any orientation, as obstacle rings (outer
 * counter-clockwise, holes clockwise).  With UN_MSUM_EXACT, degenerate free
 * parts inside the result (zero-width slots, single positions) are found and
 * kept by an exact test; without it they are closed, which is conservative
 * and much cheaper for shapes with many parallel edges. */
#define UN_MSUM_NFP   1
#define UN_MSUM_EXACT 2
un_status un_msum_rings(un_arr *w, const un_rings *a, const un_rings *b, int flags, un_rings *out);
/* The operands un_msum_rings convolves: a and b bridged (for a no-fit
 * polygon b reflected), with the holes the other operand cannot enter
 * filled when both are simple.  *simple: 1 when the rings of a and b are
 * simple and apart, 0 when not, -1 when not tested (neither has holes). */
un_status un_sum_operands(const un_rings *a, const un_rings *b, int flags, un_rings *pa, un_rings *pb,
                          int *simple);
/* A regular polygon with `sides` vertices (at most UN_DISK_MAX_SIDES)
 * containing the disk of the given radius around the origin; returns its
 * vertex count (0 for radius <= 0). */
#define UN_DISK_MAX_SIDES 32
int32_t un_disk_polygon(int64_t radius, int32_t sides, un_pt *out);
/* The last traced free loops of w, reversed into obstacle rings. */
un_status un_loops_to_obstacles(const un_arr *w, un_rings *out);

/* ---------------------------------------------------------- regularize.c */

/* The region rings `in` bound (oriented by nesting), traced from the exact
 * arrangement of their edges: valid rings whatever the rounding to the grid
 * made of the caller's polygon (a hole overlapping its outer ring's edge). */
un_status un_rings_regularize(un_arr *w, const un_rings *in, un_rings *out);
/* Append the loops of a covered-set arrangement (UN_SEL_COVERED) to out:
 * the covered side on their left, outer rings counter-clockwise. */
un_status un_covered_loops(const un_arr *w, un_rings *out);
/* Segment a-b grown by one grid unit each way (a hexagon; a square when
 * a == b), appended counter-clockwise with weight 1 (tmp: scratch). */
un_status un_segs_add_strip(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tmp, un_pt a, un_pt b,
                            int32_t tag);
/* Strips around the edges of ring p[0..m) that reach a vertex outside ring
 * 0 of `kept` (its cleaned self), every edge when kept is empty. */
un_status un_segs_add_lost_parts(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tmp, const un_pt *p,
                                 int32_t m, const un_rings *kept, int32_t tag);
/* Rings that the grid made degenerate (flat rings, spikes that cleaning
 * would drop, as needles and segments become on a coarse grid) made solid:
 * their region united with strips one unit wide around the lost parts, so
 * the result holds every point of the input and every later step (sums,
 * arrangements) sees rings with an inside.  *changed = 0 when nothing was
 * lost (out is a copy of in). */
un_status un_rings_solidify(un_arr *w, const un_rings *in, un_rings *out, int *changed);

/* ------------------------------------------------------------- outline.c */

/* --------------------------------------------------------- triangulate.c */

/* Ear-clip a weakly simple counter-clockwise ring; appends index triples. */
un_status un_triangulate(const un_pt *p, int32_t n, int32_t **tri, int32_t *ntri, int32_t *cap);

/* The union of the faces (outline.c); with `needles`, faces that lose area
 * or corners on the grid add strips one grid unit wide around the lost
 * parts, so the result holds every corner and edge of every face. */
un_status un_outline_rings(un_arr *w, const un_pt *pts, int32_t n, const int32_t *face_start,
                           int32_t nfaces, const int32_t *face_idx, int needles, un_rings *out,
                           int32_t *nsolid);

/* ------------------------------------------------------- obstacle_cores.c */

/* A convex quadrilateral (counter-clockwise) whose closure lies inside an
 * open obstacle: edges of other obstacles in it can be culled. */
typedef struct {
    un_pt   q[4];
    un_pt   lo, hi;    /* its bounding box */
    int32_t box;       /* 1: it is that box (q are its corners) */
    int32_t tag;       /* in a coreset: the obstacle it belongs to */
} un_core;

/* A largest-possible axis-aligned box core of the open set of rings r0..r1
 * (bounding box lo..hi), checked exactly; *found = 0 when there is none
 * worth keeping.  scratch/cap: caller's buffer. */
un_status un_core_find(const un_rings *r, int32_t r0, int32_t r1, un_pt lo, un_pt hi, double **scratch,
                       int32_t *cap, un_core *core, int *found);
/* in rotated by m (rotation, maybe mirrored) and moved by off; 0 when
 * rounding made it degenerate (then it must not be used). */
int un_core_transform(const un_core *in, const double m[4], un_pt off, un_core *out);
/* Is the closed box lo..hi inside core c? */
int un_core_has_box(const un_core *c, un_pt lo, un_pt hi);

/* Cores indexed on a grid, for culling the rings of obstacles. */
typedef struct {
    un_core *cores;  int32_t n, cap_cores;
    un_pt   *span;   int32_t cap_span;    /* per core: box of the runs it culled
                                             (lo, hi; empty when lo > hi) */
    int32_t *cell;   int32_t cap_cell;    /* g*g+1 starts into item */
    int32_t *item;   int32_t cap_item;
    int32_t  g;
    un_pt    o, size;                     /* grid origin and cell size */
} un_coreset;

void      un_coreset_init(un_coreset *cs);
void      un_coreset_free(un_coreset *cs);
/* Add core c moved by off, belonging to obstacle tag; then index once. */
un_status un_coreset_add(un_coreset *cs, const un_core *c, un_pt off, int32_t tag);
un_status un_coreset_index(un_coreset *cs);
/* Ring p[0..m) with every run of two or more edges inside one core
 * replaced by its chord, into out (capacity m); returns the new point
 * count (0: nothing of the ring is left).  Adds to *err the edge counts of
 * the closed curves (run + chord) it made, and grows the cores' spans. */
int32_t   un_coreset_cull(un_coreset *cs, const un_pt *p, int32_t m, un_pt *out, int64_t *err);

/* ----------------------------------------------------------------- cfr.c */

/* An obstacle: rings r0..r1 of `rings` (an open set) translated by off;
 * lo/hi bound those rings before translation; core (or NULL) lies inside
 * them, before translation too. */
typedef struct {
    const un_rings *rings;
    int32_t r0, r1;
    un_pt off, lo, hi;
    const un_core *core;
} un_obstacle;

/* Regions of the last traced free set: region r is loops
 * order[rstart[r] .. rstart[r+1]) of the workspace, outer loop first. */
typedef struct {
    int32_t *order;  int32_t cap_order;
    int32_t *rstart; int32_t cap_rstart;
    int32_t  nregions;
} un_regions;

/* IFP of a piece (bbox plo..phi) in rectangle clo..chi; 0 when empty. */
int un_ifp_rect(un_pt clo, un_pt chi, un_pt plo, un_pt phi, un_pt *lo, un_pt *hi);
/* IFP of a piece in a polygon container, as closed container rings. */
un_status un_ifp_poly(un_arr *w, const un_rings *container, const un_rings *piece, un_rings *out);
/* Trace the free set of a closed container (rings, or the rectangle lo..hi
 * when container is NULL) minus open obstacles.  segs/cap: scratch. */
un_status un_cfr_loops(un_arr *w, const un_rings *container, un_pt lo, un_pt hi,
                       const un_obstacle *obs, int32_t nobs, un_seg **segs, int32_t *cap);
/* The same, with clip: obstacles clipped to (a little more than) the
 * rectangle first, and a rectangle inside one convex obstacle answered at
 * once.  Clipping rounds to the grid: for the engine only (see cfr.c). */
un_status un_cfr_loops_clip(un_arr *w, const un_rings *container, un_pt lo, un_pt hi,
                            const un_obstacle *obs, int32_t nobs, int clip, un_seg **segs, int32_t *cap);
/* ------------------------------------------------------------- regions.c */

/* Group the traced loops into regions sorted by leftmost point (rotates
 * every loop to start at its leftmost point). */
un_status un_regions_build(un_arr *w, un_regions *g);
void      un_regions_free(un_regions *g);

/* A ring seen as points xy[0 .. 2n). */
typedef struct {
    const double *xy;
    int32_t       n;
} un_ring_view;

double  un_rings_length(const un_ring_view *v, int32_t k);
/* Point at fraction frac in [0,1) of the total boundary length of rings
 * v[0..k), walked ring after ring from each ring's first point. */
void    un_rings_point_at(const un_ring_view *v, int32_t k, double frac, double out[2]);
/* Vertex number floor(frac * n) of the n vertices of rings v[0..k), counted
 * ring after ring from each ring's first point (frac outside [0,1): the
 * first). */
void    un_rings_vertex_at(const un_ring_view *v, int32_t k, double frac, double out[2]);
/* Views of region r's loops (at most cap); returns how many. */
int32_t un_region_views(const un_arr *w, const un_regions *g, int32_t r, un_ring_view *v, int32_t cap);

/* ------------------------------------------------------------- contact.c */

/* Length along which the boundary of a (translated by ta) runs against the
 * boundary of b (translated by tb): antiparallel edges whose ends lie within
 * tol of each other's line, where their extents overlap.  A heuristic
 * score in doubles, symmetric up to rounding. */
double un_contact_rings(const un_rings *a, un_pt ta, const un_rings *b, un_pt tb, double tol);
/* Length of a's boundary (translated by ta) that lies along the walls of
 * the box lo..hi: edges within reach of a wall, or beyond it, count with
 * their extent parallel to it. */
double un_contact_walls(const un_rings *a, un_pt ta, un_pt lo, un_pt hi, double reach);

/* ------------------------------------------------------------- boxtree.c */

/* An axis-aligned box on an integer grid.  The empty box, lx = ly =
 * INT64_MAX and hx = hy = INT64_MIN, meets no box whose coordinates are
 * smaller in size (queries keep theirs so). */
typedef struct { int64_t lx, ly, hx, hy; } un_box;

/* The box of segment a-b (or of the two points). */
static inline un_box un_box_of_segment(un_pt a, un_pt b)
{
    un_box r;
    r.lx = a.x < b.x ? a.x : b.x;
    r.hx = a.x < b.x ? b.x : a.x;
    r.ly = a.y < b.y ? a.y : b.y;
    r.hy = a.y < b.y ? b.y : a.y;
    return r;
}

static inline void un_box_add(un_box *b, const un_box *c)
{
    if (c->lx < b->lx) b->lx = c->lx;
    if (c->ly < b->ly) b->ly = c->ly;
    if (c->hx > b->hx) b->hx = c->hx;
    if (c->hy > b->hy) b->hy = c->hy;
}

/* A tree of boxes over items 0 .. n-1, 2^UN_BOXTREE_LEAF items to a leaf;
 * node j of level l is box[off[l] + j] (leaves are level 0).
 * UN_BOXTREE_MAXLEV levels are enough for 2^31 items. */
enum { UN_BOXTREE_LEAF = 3, UN_BOXTREE_MAXLEV = 32 };

typedef struct {
    un_box  *box;
    int32_t *count;   /* items present under each node (for remove) */
    int32_t  n, nlev, off[UN_BOXTREE_MAXLEV + 1];
} un_boxtree;

/* Writes the box of item i. */
typedef void (*un_item_box_fn)(const void *ctx, int32_t i, un_box *b);

un_status un_boxtree_build(un_boxtree *t, int32_t n, un_item_box_fn item_box, const void *ctx);
void      un_boxtree_free(un_boxtree *t);
/* Item i's box grew to hold b. */
void      un_boxtree_grow(un_boxtree *t, int32_t i, const un_box *b);
/* Item i is gone (each item at most once). */
void      un_boxtree_remove(un_boxtree *t, int32_t i);

static inline const un_box *un_boxtree_bounds(const un_boxtree *t)
{
    return &t->box[t->off[t->nlev - 1]];
}

/* A search of a box tree: begin, then call next until it returns 0.  Each
 * call gives the items [*first, *end) of one more leaf (present or not: the
 * caller checks).  A box walk visits the leaves whose boxes meet q; a near
 * walk those whose boxes lie within sqrt(reach2) of point p (grid units, at
 * first everywhere: the caller lowers reach2 as it finds nearer items), of
 * two children the nearer first. */
typedef struct {
    const un_boxtree *t;
    un_box            q;
    const double     *near;   /* p of a near walk, else NULL */
    double            reach2;
    int32_t           lev[UN_BOXTREE_MAXLEV + 1], idx[UN_BOXTREE_MAXLEV + 1], sp;
    double            key[UN_BOXTREE_MAXLEV + 1];
} un_boxwalk;

void un_boxwalk_begin(un_boxwalk *w, const un_boxtree *t, const un_box *q);
void un_boxwalk_begin_near(un_boxwalk *w, const un_boxtree *t, const double *p);
int  un_boxwalk_next(un_boxwalk *w, int32_t *first, int32_t *end);

/* ------------------------------------------------------------ ringtree.c */

/* A box tree over the edges of ring p[0..m) (edge i runs from p[i] to
 * p[(i + 1) % m]); the points are borrowed and must outlive it. */
typedef struct {
    const un_pt *p;
    int32_t      m;
    un_boxtree   tree;
} un_ringtree;

un_status un_ringtree_build(un_ringtree *rt, const un_pt *p, int32_t m);
void      un_ringtree_free(un_ringtree *rt);
/* *crossing = 1 when two edges of ring p[0..m) cross properly (not at
 * shared corners, touching or overlapping), else 0; UN_ENOMEM when the
 * tree a long ring needs cannot be allocated. */
un_status un_ring_crosses_itself(const un_pt *p, int32_t m, int *crossing);
/* As un_rpt_in_ring for the grid point q: 1 inside, 0 outside, -1 on the
 * boundary. */
int       un_ringtree_locate(const un_ringtree *rt, un_pt q);

/* ----------------------------------------------------------- edgeindex.c */

/* Distances are the exact bits of hypot(), but found with few calls to it:
 * the squares ex^2 + ey^2 agree with the squares of hypot to a few ulps, so
 * squares that differ by more than this factor order the distances as
 * hypot does, and only closer calls need hypot (here and in simplify.c). */
#define UN_HYPOT_CLOSE 1e-12

/* An index over the edges of float rings (edge e runs from point e to the
 * next point of its ring) whose queries answer exactly as a scan of every
 * edge would, with the same arithmetic per edge. */
typedef struct {
    const double *xy;
    int32_t      *succ;   /* the point after point e in its ring */
    un_boxtree    tree;   /* item e: edge e's box, in grid units */
    double        scale;  /* grid units per unit: a power of two */
    double        slack;  /* allowance for rounding, far above the few ulps it can be */
} un_edgeindex;

/* r must outlive the index. */
un_status un_edgeindex_build(un_edgeindex *ix, const un_frings *r);
void      un_edgeindex_free(un_edgeindex *ix);
/* Even-odd parity of (x, y) in the rings, by a ray to the right; the
 * smallest distance to an edge; 0 inside, else that distance. */
int       un_edgeindex_inside(const un_edgeindex *ix, double x, double y);
double    un_edgeindex_nearest(const un_edgeindex *ix, double x, double y);
double    un_edgeindex_dist(const un_edgeindex *ix, double x, double y);

/* un_edgeindex_dist for points visited one after another along a path
 * (faster when a ray from them would cross the rings often). */
typedef struct {
    const un_edgeindex *ix;
    double              ref[2];   /* the last point far from every edge */
    int                 in, valid;
} un_edgewalk;

void   un_edgewalk_begin(un_edgewalk *w, const un_edgeindex *ix);
double un_edgewalk_dist(un_edgewalk *w, double x, double y);

/* ----------------------------------------------------------- deviation.c */

/* How far result reaches beyond input: the largest distance from a point
 * of the result to the input region (0 inside it), sampled. */
un_status un_simplify_deviation(const un_frings *result, const un_frings *input, double *dev);

/* ------------------------------------------------------------ simplify.c */

/* Conservative simplification on the grid (tol in grid units); *used is the
 * largest deviation, in grid units, of the result from the input.  With
 * used NULL the deviation of a hull (which is measured, not tracked) is not
 * computed: the engine never reads it, and at thousands of islands the
 * measure is a sixth of the first layout. */
un_status un_simplify_rings(const un_rings *in, double tol, int32_t max_vertices, int32_t max_pieces,
                            double min_hole, un_rings *out, double *used);
/* un_geom_simplify for packing: more separate outer rings than max_pieces
 * are replaced by their convex hull, and holes whose bounding box is
 * thinner than min_hole (nothing could go there) are filled.  used may be
 * NULL, as for un_simplify_rings.  cancel (may be NULL) is read every few
 * thousand steps: once set, UN_ECANCELLED (one 300,000-corner outline
 * takes seconds, longer than a time limit may wait). */
un_status un_simplify_pieces(const un_frings *in, double tolerance, int32_t max_vertices, int32_t max_pieces,
                             double min_hole, un_frings *out, double *used, const volatile int *cancel);

/* Move every ring of r outwards (to the right of each edge: rings have the
 * solid on their left) by d, with mitred corners; *moved (may be NULL)
 * receives the largest vertex displacement.  Used to cover the rounding of
 * the input.  A sharp convex corner, whose mitre would reach more than 4d,
 * gets a square cap of two vertices instead while `spare` extra vertices
 * remain. */
un_status un_miter_outwards(un_frings *r, double d, int32_t spare, double *moved);

/* --------------------------------------------------------------- hull.c */

/* Convex hull (one counter-clockwise ring) of the rings not flagged in
 * hole (every ring when hole is NULL). */
un_status un_hull_rings(const un_rings *r, const int8_t *hole, un_rings *out);

/* ------------------------------------------------------------ validate.c */

/* Exact check of two polygons on one grid (rings are re-oriented in place):
 * *overlapping when their interiors meet or their boundaries come closer
 * than margin_units - 2; *distance is the smallest boundary distance among
 * edge pairs within `reach` (HUGE_VAL if none), 0 when overlapping. */
un_status un_pair_check(un_rings *a, un_rings *b, double margin_units, double reach, int *overlapping,
                        double *distance);

/* un_validate_layout and un_validate_holds: uvnest.h. */

/* -------------------------------------------------------------- skyline.c */

typedef struct un_skyline un_skyline;
un_skyline *un_skyline_new(void);
void        un_skyline_free(un_skyline *s);
un_status   un_skyline_reset(un_skyline *s, double W, double H);
/* Lowest, then leftmost place for a w x h rectangle (or h x w when rot);
 * with fit, the place leaving the least area empty under it first; 0 when
 * it does not fit. */
int         un_skyline_place(un_skyline *s, double w, double h, int rot, int fit, double *x, double *y, int *rotated);
/* Record a rectangle placed at (x, y). */
un_status   un_skyline_add(un_skyline *s, double x, double y, double w, double h);

/* -------------------------------------------------------------- shelves.c */

typedef struct un_shelves un_shelves;
un_shelves *un_shelves_new(void);
void        un_shelves_free(un_shelves *s);
/* Empty the container, W wide and H tall. */
void        un_shelves_reset(un_shelves *s, double W, double H);
/* Place a w x h rectangle (or h x w when rot allows and it wastes less) on
 * the first shelf with room (fit: the one leaving the least area empty), or
 * on a new shelf; *placed 0 when it does not fit.  UN_ENOMEM when a new
 * shelf cannot be recorded. */
un_status   un_shelves_place(un_shelves *s, double w, double h, int rot, int fit, double *x, double *y,
                             int *rotated, int *placed);

/* pow2.c (un_pack_pow2), components.c (un_components, un_overlap_groups)
 * and outline.c's un_geom_outlines: uvnest.h. */

/* ---------------------------------------------------------------- grid.c */

/* Map between float coordinates and the integer grid of one call:
 * i = round((x - ox) / step), step a power of two. */
typedef struct {
    double step, ox, oy;
} un_grid;

/* Fit a grid to a bounding box plus `extra` on every side. */
un_status un_grid_fit(un_grid *g, double minx, double miny, double maxx, double maxy, double extra);
/* Grow a bounding box (lo = +inf, hi = -inf initially) by float rings;
 * UN_EINVAL on a NaN or infinite coordinate. */
un_status un_frings_bbox(const un_frings *r, double *lo, double *hi);
un_status un_grid_in(const un_grid *g, const un_frings *in, un_rings *out);
/* shift: add the origin back (shapes); 0 for translations. */
un_status un_grid_out(const un_grid *g, const un_rings *in, un_frings *out, int shift);

#endif /* UVNEST_INTERNAL_H */
