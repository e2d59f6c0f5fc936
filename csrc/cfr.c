/*
 * cfr.c - inner-fit polygons (IFP) and collision-free regions (CFR).
 *
 * CFR = IFP - union of open no-fit polygons.  The IFP is closed: a piece may
 * touch the container.  No-fit polygons are open: a piece may touch a placed
 * piece.  The free set is traced by arrange.c in its exact mode, so it keeps
 *   - segments where the piece fits exactly between obstacles (or between an
 *     obstacle and the container), traced there and back, and
 *   - isolated points where it fits in exactly one position, found by an
 *     exact rational point test.
 * This is the degenerate-region policy of uvnest: exact fits are kept, there
 * is no clearance epsilon.
 *
 * The loops traced here become regions in regions.c; cfr_float.c holds
 * the float entry points (un_geom_ifp, un_geom_cfr, ...).
 */
#include "internal.h"

#include <math.h>

/* ------------------------------------------------------------------ IFP */

int un_ifp_rect(un_pt clo, un_pt chi, un_pt plo, un_pt phi, un_pt *lo, un_pt *hi)
{
    lo->x = clo.x - plo.x;
    lo->y = clo.y - plo.y;
    hi->x = chi.x - phi.x;
    hi->y = chi.y - phi.y;
    return lo->x <= hi->x && lo->y <= hi->y;
}

un_status un_ifp_poly(un_arr *w, const un_rings *container, const un_rings *piece, un_rings *out)
{
    /* {t : piece + t inside C} is the set of bounded free regions of the
     * no-fit polygon of (box minus C) and the piece, for a box large enough
     * that the piece cannot fit between C and the box's edge */
    un_pt clo, chi, plo, phi, box[4];
    un_rings s, nfp;
    int32_t k;
    un_status st;
    un_rings_clear(out);
    un_rings_bbox(container, &clo, &chi);
    un_rings_bbox(piece, &plo, &phi);
    un_rings_init(&s);
    un_rings_init(&nfp);
    box[0].x = clo.x - (phi.x - plo.x) - 2; box[0].y = clo.y - (phi.y - plo.y) - 2;
    box[2].x = chi.x + (phi.x - plo.x) + 2; box[2].y = chi.y + (phi.y - plo.y) + 2;
    box[1].x = box[2].x; box[1].y = box[0].y;
    box[3].x = box[0].x; box[3].y = box[2].y;
    if ((st = un_rings_add(&s, box, 4)) != UN_OK) goto done;
    for (k = 0; k < container->nrings; k++)
        if ((st = un_rings_add(&s, container->pts + container->start[k],
                               container->start[k + 1] - container->start[k])) != UN_OK)
            goto done;
    /* the container's rings become holes of s: bridge.c re-orients by
     * nesting, so orientation of the input does not matter */
    if ((st = un_msum_rings(w, &s, piece, UN_MSUM_NFP | UN_MSUM_EXACT, &nfp)) != UN_OK) goto done;
    /* obstacle rings of the result: the outer ring that comes from the box
     * (the largest), then the free regions inside it as clockwise holes
     * (degenerate ones included) and, inside those, counter-clockwise rings
     * where the container has holes.  Reversed, all but the first are the
     * closed IFP as container rings. */
    {
        int32_t big = -1;
        double best = 0;
        for (k = 0; k < nfp.nrings; k++) {
            double ar = un_ring_area2(&nfp, k);
            if (big < 0 || ar > best) { big = k; best = ar; }
        }
        for (k = 0; k < nfp.nrings; k++) {
            int32_t a = nfp.start[k], n = nfp.start[k + 1] - a, i;
            un_pt *p = nfp.pts + a;
            if (k == big) continue;
            for (i = 0; i < n / 2; i++) { un_pt t = p[i]; p[i] = p[n - 1 - i]; p[n - 1 - i] = t; }
            if ((st = un_rings_add(out, p, n)) != UN_OK) goto done;
        }
    }
done:
    un_rings_free(&s);
    un_rings_free(&nfp);
    if (st != UN_OK) un_rings_clear(out);
    return st;
}

/* ------------------------------------------------------------------ CFR */

typedef struct {
    const un_rings    *container;   /* NULL: the rectangle lo..hi */
    un_pt              lo, hi;
    const un_obstacle *obs;
    int32_t            nobs;
} cfr_ctx;

/* Exact: is p in the closed container and in no open obstacle? */
static int cfr_free_at(void *vctx, un_pt base, int64_t dx, int64_t dy, int64_t n, int64_t d)
{
    const cfr_ctx *c = (const cfr_ctx *)vctx;
    un_rpt p;
    int32_t i, k;
    double px, py;
    p.base = base; p.dx = dx; p.dy = dy; p.n = n; p.d = d;
    if (c->container) {
        int in = 0;
        for (k = 0; k < c->container->nrings; k++) {
            const un_rings *r = c->container;
            int s = un_rpt_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], &p);
            if (s < 0) { in = 1; break; }
            in ^= s;
        }
        if (!in) return 0;
    } else if (un_rpt_cmp_x(&p, c->lo.x) < 0 || un_rpt_cmp_x(&p, c->hi.x) > 0 ||
               un_rpt_cmp_y(&p, c->lo.y) < 0 || un_rpt_cmp_y(&p, c->hi.y) > 0) {
        return 0;
    }
    px = un_rpt_x_approx(&p);
    py = un_rpt_y_approx(&p);
    for (i = 0; i < c->nobs; i++) {
        const un_rings *r = c->obs[i].rings;
        int in = 0;
        un_rpt q = p;
        double ox = (double)c->obs[i].off.x, oy = (double)c->obs[i].off.y;
        /* far outside the obstacle's box (by more than a grid unit, which
         * the double values cannot be off by): no exact test needed */
        if (px - ox < (double)c->obs[i].lo.x - 1 || px - ox > (double)c->obs[i].hi.x + 1 ||
            py - oy < (double)c->obs[i].lo.y - 1 || py - oy > (double)c->obs[i].hi.y + 1)
            continue;
        /* test p - offset against the obstacle's own rings */
        q.base.x -= c->obs[i].off.x;
        q.base.y -= c->obs[i].off.y;
        if (un_rpt_cmp_x(&q, c->obs[i].lo.x) < 0 || un_rpt_cmp_x(&q, c->obs[i].hi.x) > 0 ||
            un_rpt_cmp_y(&q, c->obs[i].lo.y) < 0 || un_rpt_cmp_y(&q, c->obs[i].hi.y) > 0)
            continue;
        for (k = c->obs[i].r0; k < c->obs[i].r1; k++) {
            int s = un_rpt_in_ring(r->pts + r->start[k], r->start[k + 1] - r->start[k], &q);
            if (s < 0) { in = 0; break; }  /* on its boundary: touching is free */
            in ^= s;
        }
        if (in) return 0;
    }
    return 1;
}

/* ---- clipping, for the engine's small windows ----------------------------
 * Parts of an obstacle far outside the rectangle cost time but do not
 * change the free set inside it.  A ring is clipped (Sutherland-Hodgman) to
 * the rectangle grown by CLIP_PAD; the clipped ring has the same winding
 * inside that rectangle.  New vertices on the clip lines are rounded to the
 * grid, which tilts the clipped edges by at most half a unit where they
 * enter the rectangle: within the engine's slack, so only the engine asks
 * for clipping. */
#define CLIP_PAD 8

static int32_t clip_half(const un_pt *in, int32_t n, un_pt *out, int axis, int64_t v, int keep_above)
{
    int32_t i, m = 0;
    for (i = 0; i < n; i++) {
        un_pt a = in[i], b = in[(i + 1) % n];
        int64_t av = axis ? a.y : a.x, bv = axis ? b.y : b.x;
        int ain = keep_above ? av >= v : av <= v, bin = keep_above ? bv >= v : bv <= v;
        if (ain) out[m++] = a;
        if (ain != bin) {
            double t = (double)(v - av) / (double)(bv - av);
            un_pt c;
            if (axis) { c.y = v; c.x = un_llround((double)a.x + t * (double)(b.x - a.x)); }
            else { c.x = v; c.y = un_llround((double)a.y + t * (double)(b.y - a.y)); }
            out[m++] = c;
        }
    }
    return m;
}

/* Clip ring p (n points) to the box; result in buf (capacity 2n + 8). */
static int32_t clip_ring(const un_pt *p, int32_t n, un_pt lo, un_pt hi, un_pt *buf, un_pt *tmp)
{
    int32_t m = n;
    memcpy(buf, p, (size_t)n * sizeof *p);
    m = clip_half(buf, m, tmp, 0, lo.x, 1);
    m = clip_half(tmp, m, buf, 0, hi.x, 0);
    m = clip_half(buf, m, tmp, 1, lo.y, 1);
    m = clip_half(tmp, m, buf, 1, hi.y, 0);
    return m;
}

/* Is box lo..hi strictly inside the convex ring p (counter-clockwise)? */
static int box_inside_convex(const un_pt *p, int32_t n, un_pt off, un_pt lo, un_pt hi)
{
    int32_t i, c;
    un_pt q[4];
    un_box_corners(lo, hi, q);
    for (i = 0; i < n; i++) {
        un_pt a = p[i], b = p[(i + 1) % n], d = p[(i + 2) % n];
        a.x += off.x; a.y += off.y; b.x += off.x; b.y += off.y; d.x += off.x; d.y += off.y;
        if (un_orient(a, b, d) <= 0) return 0; /* not convex (or degenerate) */
        for (c = 0; c < 4; c++)
            if (un_orient(a, b, q[c]) <= 0) return 0;
    }
    return 1;
}

un_status un_cfr_loops(un_arr *w, const un_rings *container, un_pt lo, un_pt hi,
                       const un_obstacle *obs, int32_t nobs, un_seg **segs, int32_t *cap)
{
    return un_cfr_loops_clip(w, container, lo, hi, obs, nobs, 0, segs, cap);
}

/* Does obstacle i (open) miss the closed rectangle lo..hi? */
static int misses_rect(const un_obstacle *o, un_pt lo, un_pt hi)
{
    return o->lo.x + o->off.x >= hi.x || o->hi.x + o->off.x <= lo.x ||
           o->lo.y + o->off.y >= hi.y || o->hi.y + o->off.y <= lo.y;
}

typedef struct {
    un_seg    **segs;
    int32_t    *cap, nseg;
    un_pt      *buf;         /* ring work area */
    int32_t     cap_buf;
    un_coreset *cores;       /* NULL: no culling */
    int64_t     err;         /* edges of the curves culling made (obstacle_cores.c) */
} emitter;

/* Append the segments of the obstacles' rings (clipped to clo..chi when
 * clip, culled when e->cores), as solids tagged by obstacle. */
static un_status emit_obstacles(emitter *e, const un_obstacle *obs, int32_t nobs, const un_rings *container,
                                un_pt lo, un_pt hi, int clip, un_pt clo, un_pt chi)
{
    int32_t i, k, j;
    for (i = 0; i < nobs; i++) {
        const un_rings *r = obs[i].rings;
        /* an obstacle is open, so one whose box only touches the closed
         * rectangle covers none of it */
        if (!container && misses_rect(obs + i, lo, hi)) continue;
        for (k = obs[i].r0; k < obs[i].r1; k++) {
            int32_t a = r->start[k], m = r->start[k + 1] - a;
            /* the ring moved into place, then two clip work areas (each
             * clip stage at most doubles the count, so 16m + 16 covers all
             * four), then the culled ring */
            int32_t room = clip ? 16 * m + 16 : m, m0 = m;
            un_pt *p;
            UN_TRY(un_reserve((void **)&e->buf, &e->cap_buf, m + 3 * (int64_t)room, sizeof *e->buf));
            for (j = 0; j < m; j++) {
                e->buf[j].x = r->pts[a + j].x + obs[i].off.x;
                e->buf[j].y = r->pts[a + j].y + obs[i].off.y;
            }
            p = e->buf;
            if (clip) {
                p = e->buf + m;
                m = clip_ring(e->buf, m, clo, chi, p, p + room);
            }
            if (e->cores) {
                un_pt *out = e->buf + m0 + 2 * room;
                m = un_coreset_cull(e->cores, p, m, out, &e->err);
                p = out;
            }
            UN_TRY(un_reserve((void **)e->segs, e->cap, (int64_t)e->nseg + m, sizeof **e->segs));
            for (j = 0; j < m; j++) {
                un_seg *g = *e->segs + e->nseg++;
                g->a = p[j];
                g->b = p[(j + 1) % m];
                g->ws = 1;
                g->wc = 0;
                g->tag = i;
            }
        }
    }
    return UN_OK;
}

/* Culling pays for its index and its cores' edges only on large inputs:
 * below this many obstacle points it is skipped. */
#define CULL_MIN_POINTS 1000

/* The cores of the obstacles that reach the rectangle, indexed; none when
 * the obstacles are too small to be worth it.  *covered: one core holds
 * all of lo..hi (checked either way: it answers at once). */
static un_status gather_cores(un_coreset *cs, const un_obstacle *obs, int32_t nobs, const un_rings *container,
                              un_pt lo, un_pt hi, int *covered)
{
    int32_t i;
    int64_t npts = 0;
    *covered = 0;
    for (i = 0; i < nobs; i++) {
        if (!container && misses_rect(obs + i, lo, hi)) continue;
        npts += obs[i].rings->start[obs[i].r1] - obs[i].rings->start[obs[i].r0];
        if (!container && obs[i].core) {
            /* the core is in the obstacle's frame: move the rectangle */
            un_pt a, b;
            a.x = lo.x - obs[i].off.x; a.y = lo.y - obs[i].off.y;
            b.x = hi.x - obs[i].off.x; b.y = hi.y - obs[i].off.y;
            if (un_core_has_box(obs[i].core, a, b)) {
                *covered = 1;
                return UN_OK;
            }
        }
    }
    if (npts < CULL_MIN_POINTS) return UN_OK;
    for (i = 0; i < nobs; i++)
        if (obs[i].core && (container || !misses_rect(obs + i, lo, hi)))
            UN_TRY(un_coreset_add(cs, obs[i].core, obs[i].off, i));
    return cs->n >= 2 ? un_coreset_index(cs) : UN_OK;
}

/* Append, for every core that culled something, a solid of weight W
 * (obstacle_cores.c) around the curves its culling made: the box of its runs (one
 * unit more, within the core) when the core is a box, else the core.  W
 * exceeds every winding change culling made plus every winding outside the
 * cores.  0 in *deep when the weights would not fit the arrangement's
 * int32 counts. */
static un_status emit_cores(emitter *e, int32_t nobs, int32_t *deep)
{
    const un_coreset *cs = e->cores;
    int64_t W = e->err + nobs + 1, used = 0;
    int32_t i, k;
    *deep = 0;
    for (i = 0; i < cs->n; i++) used += cs->span[2 * i].x <= cs->span[2 * i + 1].x;
    if (used == 0) return UN_OK;
    if (used * W + nobs >= ((int64_t)1 << 30)) return UN_OK;
    UN_TRY(un_reserve((void **)e->segs, e->cap, (int64_t)e->nseg + 4 * used, sizeof **e->segs));
    for (i = 0; i < cs->n; i++) {
        const un_core *c = cs->cores + i;
        un_pt lo = cs->span[2 * i], hi = cs->span[2 * i + 1], q[4];
        if (lo.x > hi.x) continue;
        if (c->box) {
            lo.x = lo.x - 1 > c->lo.x ? lo.x - 1 : c->lo.x;
            lo.y = lo.y - 1 > c->lo.y ? lo.y - 1 : c->lo.y;
            hi.x = hi.x + 1 < c->hi.x ? hi.x + 1 : c->hi.x;
            hi.y = hi.y + 1 < c->hi.y ? hi.y + 1 : c->hi.y;
            un_box_corners(lo, hi, q);
        } else {
            memcpy(q, c->q, sizeof q);
        }
        for (k = 0; k < 4; k++) {
            un_seg *g = *e->segs + e->nseg++;
            g->a = q[k];
            g->b = q[(k + 1) & 3];
            g->ws = (int32_t)W;
            g->wc = 0;
            g->tag = c->tag;
        }
    }
    *deep = nobs + 1;
    return UN_OK;
}

un_status un_cfr_loops_clip(un_arr *w, const un_rings *container, un_pt lo, un_pt hi,
                            const un_obstacle *obs, int32_t nobs, int clip, un_seg **segs, int32_t *cap)
{
    int32_t k, i, nbase = 0;
    un_pt clo, chi;
    cfr_ctx ctx;
    un_verifier vf;
    un_coreset cs;
    emitter e;
    int covered;
    un_status s;
    ctx.container = container;
    ctx.lo = lo;
    ctx.hi = hi;
    ctx.obs = obs;
    ctx.nobs = nobs;
    vf.free_at = cfr_free_at;
    vf.inside_near = NULL;
    vf.ctx = &ctx;
    vf.deep = 0;
    clip = clip && !container;
    clo.x = lo.x - CLIP_PAD; clo.y = lo.y - CLIP_PAD;
    chi.x = hi.x + CLIP_PAD; chi.y = hi.y + CLIP_PAD;
    if (clip) {
        /* a window inside one convex obstacle has no free point */
        for (i = 0; i < nobs; i++) {
            const un_rings *r = obs[i].rings;
            if (obs[i].r1 - obs[i].r0 == 1 &&
                box_inside_convex(r->pts + r->start[obs[i].r0], r->start[obs[i].r0 + 1] - r->start[obs[i].r0],
                                  obs[i].off, lo, hi))
                return un_arr_run(w, NULL, 0, UN_SEL_FREE, NULL);
        }
    }
    if (container) {
        UN_TRY(un_segs_from_rings(segs, &nbase, cap, container, 0, 1, -1, 0));
    } else {
        un_pt c[4];
        un_box_corners(lo, hi, c);
        UN_TRY(un_reserve((void **)segs, cap, 4, sizeof **segs));
        for (k = 0; k < 4; k++) {
            (*segs)[nbase].a = c[k];
            (*segs)[nbase].b = c[(k + 1) % 4];
            (*segs)[nbase].ws = 0;
            (*segs)[nbase].wc = 1;
            (*segs)[nbase].tag = -1;
            nbase++;
        }
    }
    memset(&e, 0, sizeof e);
    e.segs = segs;
    e.cap = cap;
    e.nseg = nbase;
    un_coreset_init(&cs);
    if ((s = gather_cores(&cs, obs, nobs, container, lo, hi, &covered)) != UN_OK) goto done;
    if (covered) {
        /* the rectangle lies in one obstacle: nothing is free */
        s = un_arr_run(w, NULL, 0, UN_SEL_FREE, NULL);
        goto done;
    }
    e.cores = cs.n >= 2 ? &cs : NULL;
    if ((s = emit_obstacles(&e, obs, nobs, container, lo, hi, clip, clo, chi)) != UN_OK) goto done;
    if (e.cores) {
        if ((s = emit_cores(&e, nobs, &vf.deep)) != UN_OK) goto done;
        if (vf.deep == 0 && e.err > 0) {
            /* the cores' weights would overflow: start again unculled */
            e.nseg = nbase;
            e.cores = NULL;
            if ((s = emit_obstacles(&e, obs, nobs, container, lo, hi, clip, clo, chi)) != UN_OK) goto done;
        }
    }
    if ((s = un_arr_run(w, *segs, e.nseg, UN_SEL_FREE, &vf)) != UN_OK) goto done;
    /* one-point rings carry no segment: a one-point IFP, a container ring
     * that is a single point, an obstacle's one-point hole (where a piece
     * fits in exactly one position) - test those points directly */
    if (!container && lo.x == hi.x && lo.y == hi.y && cfr_free_at(&ctx, lo, 0, 0, 0, 1))
        s = un_arr_add_point(w, lo);
    for (k = 0; container && s == UN_OK && k < container->nrings; k++)
        if (container->start[k + 1] - container->start[k] == 1) {
            un_pt p = container->pts[container->start[k]];
            if (cfr_free_at(&ctx, p, 0, 0, 0, 1)) s = un_arr_add_point(w, p);
        }
    for (i = 0; s == UN_OK && i < nobs; i++)
        for (k = obs[i].r0; s == UN_OK && k < obs[i].r1; k++)
            if (obs[i].rings->start[k + 1] - obs[i].rings->start[k] == 1) {
                un_pt p = obs[i].rings->pts[obs[i].rings->start[k]];
                p.x += obs[i].off.x;
                p.y += obs[i].off.y;
                if (cfr_free_at(&ctx, p, 0, 0, 0, 1)) s = un_arr_add_point(w, p);
            }
done:
    free(e.buf);
    un_coreset_free(&cs);
    return s;
}
