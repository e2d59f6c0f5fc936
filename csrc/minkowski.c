/*
 * minkowski.c - Minkowski sums and no-fit polygons by convolution.
 *
 * For weakly simple rings P and Q (counter-clockwise outer boundary with
 * holes spliced in by bridge.c) the convolution P*Q is the set of segments
 *   p_i + [q_j, q_j+1]   where the direction of edge j of Q lies in the
 *                        turn of P at vertex i, and
 *   q_j + [p_i, p_i+1]   symmetrically,
 * with the segment reversed where the turn is clockwise (a reflex vertex).
 * The Minkowski sum P (+) Q is exactly the set of points with a positive
 * winding number of the convolution (Guibas, Ramshaw and Stolfi's kinetic
 * framework; checked against a convex-decomposition oracle in the tests).
 *
 * Sums are computed from the reduced convolution (Behar and Lien), the
 * segments at convex vertices only: p_i + [q_j, q_j+1] has p_i + (inside of
 * Q near that edge) just left of it, so the sum lies left of every such
 * segment, and every boundary point of the sum is on one.  Most of the full
 * convolution's segments, and most of its crossings, lie deep inside the
 * sum; the reduced one has far fewer.  Without closed cycles there are no
 * winding numbers, so arrange.c classifies faces (UN_SEL_RCONV) and asks
 * the exact triangle-pair test below for the few it cannot settle.
 *
 * Parallel edges: the turn at a vertex of P is taken half-open as (in, out]
 * and at a vertex of Q as [in, out) (sweep order), so each pair of parallel
 * edges is visited exactly once and the cycles close.
 *
 * The no-fit polygon of a and b is a (+) (-b): the translations t at which
 * the interiors of a and b + t overlap.  Its boundary and the degenerate
 * parts inside it (slots where b slides exactly, see arrange.c) are free.
 */
#include "internal.h"

#include <math.h>

/* Turn direction at vertex i of ring p (n points): +1 left, -1 right. */
static int turn_at(const un_pt *p, int32_t n, int32_t i, int64_t *ix, int64_t *iy, int64_t *ox,
                   int64_t *oy)
{
    un_pt a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n];
    int64_t t;
    *ix = b.x - a.x; *iy = b.y - a.y;
    *ox = c.x - b.x; *oy = c.y - b.y;
    t = un_cross(*ix, *iy, *ox, *oy);
    if (t == 0) {
        /* cleaned rings have no straight or spike vertices except at the
         * bridge ends, where a slit doubles back: a full turn to the left */
        return (*ix * *ox + *iy * *oy) < 0 ? 2 : 0;
    }
    return t > 0 ? 1 : -1;
}

static un_status push_seg(un_seg **segs, int32_t *n, int32_t *cap, un_pt a, un_pt b)
{
    un_status s = un_reserve((void **)segs, cap, (int64_t)*n + 1, sizeof **segs);
    if (s != UN_OK) return s;
    (*segs)[*n].a = a;
    (*segs)[*n].b = b;
    (*segs)[*n].ws = 1;
    (*segs)[*n].wc = 0;
    (*segs)[*n].tag = 0;
    (*n)++;
    return UN_OK;
}

/* Segments of vertex-of-A + edge-of-B.  first: A is the first operand
 * (half-open (in, out]); otherwise [in, out). */
static un_status conv_half(const un_pt *A, int32_t na, const un_pt *B, int32_t nb, int first,
                           int reduced, un_seg **segs, int32_t *n, int32_t *cap)
{
    int32_t i, j;
    for (i = 0; i < na; i++) {
        int64_t ix, iy, ox, oy;
        int t = turn_at(A, na, i, &ix, &iy, &ox, &oy);
        /* at a reflex vertex A covers more than a half-plane, so its
         * segments lie inside the sum: the reduced convolution drops them */
        if (t == 0 || (reduced && t < 0)) continue;
        for (j = 0; j < nb; j++) {
            un_pt q0 = B[j], q1 = B[(j + 1) % nb], s0, s1;
            int64_t fx = q1.x - q0.x, fy = q1.y - q0.y;
            int in;
            if (t == 2) {
                /* a slit's turning point: every direction except the
                 * incoming one is swept counter-clockwise */
                in = un_in_arc(ix, iy, ox, oy, fx, fy, !first, first) ||
                     un_in_arc(ox, oy, ix, iy, fx, fy, 1, 0);
            } else if (t > 0) {
                in = un_in_arc(ix, iy, ox, oy, fx, fy, !first, first);
            } else {
                in = un_in_arc(ox, oy, ix, iy, fx, fy, !first, first);
            }
            if (!in) continue;
            s0.x = A[i].x + q0.x; s0.y = A[i].y + q0.y;
            s1.x = A[i].x + q1.x; s1.y = A[i].y + q1.y;
            if (t < 0) { un_pt tp = s0; s0 = s1; s1 = tp; }
            if (push_seg(segs, n, cap, s0, s1) != UN_OK) return UN_ENOMEM;
        }
    }
    return UN_OK;
}

un_status un_convolve(const un_pt *P, int32_t np, const un_pt *Q, int32_t nq, int reduced,
                      un_seg **segs, int32_t *n, int32_t *cap)
{
    un_status s = conv_half(P, np, Q, nq, 1, reduced, segs, n, cap);
    if (s != UN_OK) return s;
    return conv_half(Q, nq, P, np, 0, reduced, segs, n, cap);
}

/* Turn the free-set loops of a no-fit computation into obstacle rings:
 * reversed, so outer boundaries are counter-clockwise and holes clockwise
 * (degenerate free parts become zero-area holes, which keeps them free when
 * the rings are used as an obstacle). */
un_status un_loops_to_obstacles(const un_arr *w, un_rings *out)
{
    int32_t k, nl = un_arr_nloops(w);
    const un_loop *L = un_arr_loops(w);
    const un_pt *p = un_arr_ipts(w);
    un_pt *buf = NULL;
    int32_t cap = 0;
    un_status s = UN_OK;
    for (k = 0; k < nl; k++) {
        int32_t m = L[k].end - L[k].start, i;
        if ((s = un_reserve((void **)&buf, &cap, m, sizeof *buf)) != UN_OK) break;
        for (i = 0; i < m; i++) buf[i] = p[L[k].end - 1 - i];
        if ((s = un_rings_add(out, buf, m)) != UN_OK) break;
    }
    free(buf);
    return s;
}

/* ---- exact point tests by convex pieces ------------------------------
 * t is inside the sum exactly when it is inside the Minkowski sum of some
 * triangle of a and some triangle of b (or -b).  A point is strictly inside
 * a sum of two triangles when it is strictly inside each of the six
 * supporting half-planes (the edge normals of both triangles).  The
 * triangles are made on the first test: most sums need none. */

typedef struct {
    const un_rings *a, *b;  /* the bridged operands (b already negated) */
    un_pt  *p;      /* triangle corners, 3 per triangle, a's then b's */
    int32_t na, nb; /* triangle counts */
    double *box;    /* per triangle: minx, miny, maxx, maxy */
    int32_t cap, capbox;
    int     built;
    un_status err;  /* a failure while triangulating (reported after) */
} tri_set;

/* Append the triangles of every ring of r after the current ones (counted
 * in t->nb). */
static un_status add_triangles(tri_set *t, const un_rings *r)
{
    int32_t k, *tri = NULL, ntri = 0, tcap = 0, i;
    un_status s = UN_OK;
    for (k = 0; k < r->nrings && s == UN_OK; k++) {
        const un_pt *p = r->pts + r->start[k];
        int32_t n0 = t->na + t->nb;
        if ((s = un_triangulate(p, r->start[k + 1] - r->start[k], &tri, &ntri, &tcap)) != UN_OK) break;
        if ((s = un_reserve((void **)&t->p, &t->cap, 3 * ((int64_t)n0 + ntri), sizeof *t->p)) != UN_OK) break;
        if ((s = un_reserve((void **)&t->box, &t->capbox, 4 * ((int64_t)n0 + ntri), sizeof *t->box)) != UN_OK) break;
        for (i = 0; i < ntri; i++) {
            un_pt a = p[tri[3 * i]], b = p[tri[3 * i + 1]], c = p[tri[3 * i + 2]];
            double *bx = t->box + 4 * (n0 + i);
            t->p[3 * (n0 + i)] = a;
            t->p[3 * (n0 + i) + 1] = b;
            t->p[3 * (n0 + i) + 2] = c;
            bx[0] = (double)(a.x < b.x ? (a.x < c.x ? a.x : c.x) : (b.x < c.x ? b.x : c.x));
            bx[1] = (double)(a.y < b.y ? (a.y < c.y ? a.y : c.y) : (b.y < c.y ? b.y : c.y));
            bx[2] = (double)(a.x > b.x ? (a.x > c.x ? a.x : c.x) : (b.x > c.x ? b.x : c.x));
            bx[3] = (double)(a.y > b.y ? (a.y > c.y ? a.y : c.y) : (b.y > c.y ? b.y : c.y));
        }
        t->nb += ntri;
    }
    free(tri);
    return s;
}

/* Triangles of a, then of b; 0 when they cannot be made (t->err says). */
static int tri_ready(tri_set *t)
{
    if (!t->built) {
        t->built = 1;
        t->err = add_triangles(t, t->a);
        t->na = t->nb;
        t->nb = 0;
        if (t->err == UN_OK) t->err = add_triangles(t, t->b);
    }
    return t->err == UN_OK;
}

static int sign64(int64_t v) { return (v > 0) - (v < 0); }

/* Side of the point base + dir*n/d + e1 (ex, ey) + e2 (-ey, ex) relative to
 * the line {x : x.nrm = H}: the sign of x.nrm - H, ties broken by the
 * perturbation terms in order (ex = ey = 0: no perturbation). */
static int side_of(un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d, int64_t ex,
                   int64_t ey, int64_t nx, int64_t ny, int64_t H)
{
    int64_t c = base.x * nx + base.y * ny - H, dn = dx * nx + dy * ny;
    int s = un_sign_mul_sub(d, c, -dn, n);  /* sign(d*c + dn*n) */
    if (s) return s;
    if ((s = sign64(ex * nx + ey * ny)) != 0) return s;
    return sign64(ex * ny - ey * nx);
}

/* Support value of a triangle in direction (nx, ny). */
static int64_t support(const un_pt *tri, int64_t nx, int64_t ny)
{
    int64_t a = tri[0].x * nx + tri[0].y * ny, b = tri[1].x * nx + tri[1].y * ny;
    int64_t c = tri[2].x * nx + tri[2].y * ny;
    return a > b ? (a > c ? a : c) : (b > c ? b : c);
}

/* Is the (perturbed) point strictly inside the sum of some triangle pair? */
static int tri_inside(const tri_set *t, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d,
                      int64_t ex, int64_t ey)
{
    un_rpt at;
    double tx, ty;
    int32_t i, j, k, m;
    at.base = base; at.dx = dx; at.dy = dy; at.n = n; at.d = d;
    tx = un_rpt_x_approx(&at);
    ty = un_rpt_y_approx(&at);
    for (i = 0; i < t->na; i++) {
        const double *ba = t->box + 4 * i;
        for (j = t->na; j < t->na + t->nb; j++) {
            const double *bb = t->box + 4 * j;
            const un_pt *tri[2];
            int sep = 0;
            if (tx < ba[0] + bb[0] - 1 || tx > ba[2] + bb[2] + 1 || ty < ba[1] + bb[1] - 1 ||
                ty > ba[3] + bb[3] + 1)
                continue;
            tri[0] = t->p + 3 * i;
            tri[1] = t->p + 3 * j;
            for (m = 0; m < 2 && !sep; m++) {
                for (k = 0; k < 3 && !sep; k++) {
                    un_pt p = tri[m][k], q = tri[m][(k + 1) % 3];
                    int64_t nx = q.y - p.y, ny = p.x - q.x;
                    sep = side_of(base, dx, dy, n, d, ex, ey, nx, ny,
                                  support(tri[0], nx, ny) + support(tri[1], nx, ny)) >= 0;
                }
            }
            if (!sep) return 1;
        }
    }
    return 0;
}

/* Failures to triangulate answer conservatively (not free, inside); running
 * out of memory is reported by un_msum_rings afterwards. */
static int tri_free_at(void *ctx, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d)
{
    tri_set *t = (tri_set *)ctx;
    return tri_ready(t) && !tri_inside(t, base, dx, dy, n, d, 0, 0);
}

static int tri_inside_near(void *ctx, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d,
                           int64_t ex, int64_t ey)
{
    tri_set *t = (tri_set *)ctx;
    return !tri_ready(t) || tri_inside(t, base, dx, dy, n, d, ex, ey);
}

/* Is ring p (cleaned, counter-clockwise) convex: every turn to the left and
 * the edge directions going round exactly once? */
static int is_convex(const un_pt *p, int32_t n)
{
    int32_t i, wraps = 0;
    if (n < 3) return 0;
    for (i = 0; i < n; i++) {
        un_pt a = p[(i + n - 1) % n], b = p[i], c = p[(i + 1) % n];
        if (un_orient(a, b, c) <= 0) return 0;
        /* count the passes of the edge direction through angle 0 */
        if (un_angle_cmp(c.x - b.x, c.y - b.y, b.x - a.x, b.y - a.y) < 0) wraps++;
    }
    return wraps == 1;
}

/* Lowest (then leftmost) vertex: where the edges start at angle ~0. */
static int32_t bottom_vertex(const un_pt *p, int32_t n)
{
    int32_t i, b = 0;
    for (i = 1; i < n; i++)
        if (p[i].y < p[b].y || (p[i].y == p[b].y && p[i].x < p[b].x)) b = i;
    return b;
}

/* Minkowski sum of two convex counter-clockwise rings: their edges merged
 * by angle, O(n + m) and exact. */
static un_status convex_sum(const un_pt *P, int32_t np, const un_pt *Q, int32_t nq, un_rings *out)
{
    int32_t i = 0, j = 0, bp = bottom_vertex(P, np), bq = bottom_vertex(Q, nq), m = 0;
    un_pt *buf = (un_pt *)malloc(((size_t)np + nq) * sizeof *buf);
    un_status s;
    if (!buf) return UN_ENOMEM;
    while (i < np || j < nq) {
        un_pt p0 = P[(bp + i) % np], p1 = P[(bp + i + 1) % np];
        un_pt q0 = Q[(bq + j) % nq], q1 = Q[(bq + j + 1) % nq];
        int c;
        buf[m].x = p0.x + q0.x;
        buf[m].y = p0.y + q0.y;
        m++;
        if (i == np) c = 1;
        else if (j == nq) c = -1;
        else c = un_angle_cmp(p1.x - p0.x, p1.y - p0.y, q1.x - q0.x, q1.y - q0.y);
        if (c <= 0) i++;
        if (c >= 0) j++;
    }
    s = un_rings_add(out, buf, m);
    free(buf);
    if (s == UN_OK) s = un_rings_clean(out, 0);
    return s;
}

/* Arrange the convolutions (reduced or full) of every component pair of
 * the bridged operands: their union is the sum. */
static un_status convolve_all(un_arr *w, const un_rings *pa, const un_rings *pb, int reduced,
                              const un_verifier *vf, un_seg **segs, int32_t *nseg, int32_t *cap)
{
    int32_t i, j;
    un_status s;
    *nseg = 0;
    for (i = 0; i < pa->nrings; i++)
        for (j = 0; j < pb->nrings; j++) {
            s = un_convolve(pa->pts + pa->start[i], pa->start[i + 1] - pa->start[i], pb->pts + pb->start[j],
                            pb->start[j + 1] - pb->start[j], reduced, segs, nseg, cap);
            if (s != UN_OK) return s;
        }
    return un_arr_run(w, *segs, *nseg, reduced ? UN_SEL_RCONV : UN_SEL_CONV, vf);
}

static un_status both_simple(const un_rings *a, const un_rings *b, int *simple)
{
    int simple_b;
    UN_TRY(un_rings_simple(a, simple));
    UN_TRY(un_rings_simple(b, &simple_b));
    *simple = *simple && simple_b;
    return UN_OK;
}

un_status un_sum_operands(const un_rings *a, const un_rings *b, int flags, un_rings *pa, un_rings *pb,
                          int *simple)
{
    *simple = -1;
    un_rings_clear(pa);
    un_rings_clear(pb);
    /* with holes, simple rings let bridging fill the holes the other
     * operand cannot enter (bridge.c) */
    if (a->nrings > 1 || b->nrings > 1) UN_TRY(both_simple(a, b, simple));
    {
        /* the operand with fewer rings first (bridging nests rings, which
         * is quadratic in their number), then the other against it, then
         * the first again if it had holes (the second's bridged rings have
         * the boxes of its outer rings, holes filled or not) */
        int a_first = a->nrings <= b->nrings;
        const un_rings *x = a_first ? a : b, *y = a_first ? b : a;
        un_rings *px = a_first ? pa : pb, *py = a_first ? pb : pa;
        UN_TRY(un_poly_bridge(x, NULL, px));
        UN_TRY(un_poly_bridge(y, *simple == 1 ? px : NULL, py));
        if (*simple == 1 && px->nrings < x->nrings) {
            un_rings_clear(px);
            UN_TRY(un_poly_bridge(x, py, px));
        }
    }
    /* -b: a point reflection keeps the orientation */
    if (flags & UN_MSUM_NFP) {
        int32_t k;
        for (k = 0; k < un_rings_npts(pb); k++) {
            pb->pts[k].x = -pb->pts[k].x;
            pb->pts[k].y = -pb->pts[k].y;
        }
    }
    return UN_OK;
}

un_status un_msum_rings(un_arr *w, const un_rings *a, const un_rings *b, int flags, un_rings *out)
{
    un_rings pa, pb;
    un_seg *segs = NULL;
    int32_t nseg = 0, cap = 0;
    int simple;
    tri_set tris;
    un_verifier vf;
    un_status s;
    un_rings_init(&pa);
    un_rings_init(&pb);
    memset(&tris, 0, sizeof tris);
    un_rings_clear(out);
    if ((s = un_sum_operands(a, b, flags, &pa, &pb, &simple)) != UN_OK) goto done;
    /* two convex rings: no arrangement needed */
    if (pa.nrings == 1 && pb.nrings == 1 && is_convex(pa.pts, pa.start[1]) && is_convex(pb.pts, pb.start[1])) {
        s = convex_sum(pa.pts, pa.start[1], pb.pts, pb.start[1], out);
        goto done;
    }
    /* faces the reduced convolution cannot classify, and (with
     * UN_MSUM_EXACT) degenerate free parts, are decided by triangles of a
     * and -b */
    tris.a = &pa;
    tris.b = &pb;
    vf.free_at = (flags & UN_MSUM_EXACT) ? tri_free_at : NULL;
    vf.inside_near = tri_inside_near;
    vf.ctx = &tris;
    vf.deep = 0;
    if (simple < 0 && (s = both_simple(a, b, &simple)) != UN_OK) goto done;
    s = simple ? convolve_all(w, &pa, &pb, 1, &vf, &segs, &nseg, &cap) : UN_EINTERNAL;
    if (s == UN_EINTERNAL) {
        /* rings that meet (or, defensively, faces that did not close):
         * the full convolution's winding numbers need no such promise */
        s = convolve_all(w, &pa, &pb, 0, &vf, &segs, &nseg, &cap);
    }
    /* rings that cannot be triangulated (they cross themselves) leave
     * their degenerate parts closed, as with no UN_MSUM_EXACT */
    if (s == UN_OK && tris.err == UN_ENOMEM) s = UN_ENOMEM;
    if (s != UN_OK) goto done;
    if ((s = un_loops_to_obstacles(w, out)) == UN_OK) s = un_rings_clean(out, 1);
done:
    free(segs);
    free(tris.p);
    free(tris.box);
    un_rings_free(&pa);
    un_rings_free(&pb);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}

un_status un_geom_nfp(const un_frings *a, const un_frings *b, un_frings *out, un_workspace *ws)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_grid g;
    un_rings ia, ib, res;
    un_arr *w = ws;
    un_status s;
    un_frings_free(out);
    if ((s = un_frings_bbox(a, lo, hi)) != UN_OK) return s;
    if ((s = un_frings_bbox(b, lo, hi)) != UN_OK) return s;
    if ((s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    un_rings_init(&ia);
    un_rings_init(&ib);
    un_rings_init(&res);
    if ((s = un_grid_in(&g, a, &ia)) != UN_OK) goto done;
    if ((s = un_grid_in(&g, b, &ib)) != UN_OK) goto done;
    if (!w && !(w = un_workspace_new())) { s = UN_ENOMEM; goto done; }
    /* the caller's polygons, valid on the grid (regularize.c) */
    if ((s = un_rings_regularize(w, &ia, &res)) != UN_OK || (s = un_rings_copy(&ia, &res)) != UN_OK) goto done;
    if ((s = un_rings_regularize(w, &ib, &res)) != UN_OK || (s = un_rings_copy(&ib, &res)) != UN_OK) goto done;
    if ((s = un_msum_rings(w, &ia, &ib, UN_MSUM_NFP | UN_MSUM_EXACT, &res)) != UN_OK) goto done;
    s = un_grid_out(&g, &res, out, 0);
done:
    if (!ws) un_workspace_free(w);
    un_rings_free(&ia);
    un_rings_free(&ib);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}

int32_t un_disk_polygon(int64_t radius, int32_t sides, un_pt *out)
{
    /* a regular polygon around the disk: vertices on the circumscribed
     * circle plus one unit, so rounding each vertex to the grid (at most
     * 0.71) still leaves every edge outside the disk */
    const double pi = UN_PI;
    double R = (double)radius / cos(pi / sides) + 1.0;
    int32_t k;
    if (radius <= 0 || sides < 3) return 0;
    for (k = 0; k < sides; k++) {
        double a = 2 * pi * (k + 0.5) / sides;
        out[k].x = un_llround(R * cos(a));
        out[k].y = un_llround(R * sin(a));
    }
    return sides;
}
