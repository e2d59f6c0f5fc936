/*
 * decode.c - turn a sequence and its (theta, r, f) parameters into a layout.
 *
 * Islands are placed one after another.  Island k at position p:
 *   - theta picks its orientation (angle and mirror);
 *   - its collision-free region is the inner-fit rectangle of the container
 *     minus the no-fit polygons of the islands placed before it (and of the
 *     locked islands);
 *   - f picks region floor(f * m) of the m regions sorted by leftmost point,
 *     and r the point at that fraction of the region's boundary.
 * With r = f = 0 this is the leftmost feasible point: a bottom-left fill.
 *
 * An annealed island that does not fit is shrunk by a depth-3 binary search
 * over the factors 7/8 .. 1/8, and placed at the largest that fits (its
 * wasted area feeds the cost, Martins & Tsuzuki).  Filler islands (the
 * small ones after the annealed prefix) are placed at their leftmost
 * feasible point by scanning the container in windows, so each collision-
 * free region only involves the islands near one window.
 */
#include "engine.h"

#include <math.h>

/* ----------------------------------------------------------- no-fit polygons */

static void matrix_tmul(const double a[4], const double b[4], double out[4])
{
    /* a^T * b (a orthogonal: its inverse) */
    out[0] = a[0] * b[0] + a[2] * b[2];
    out[1] = a[0] * b[1] + a[2] * b[3];
    out[2] = a[1] * b[0] + a[3] * b[2];
    out[3] = a[1] * b[1] + a[3] * b[3];
}

static un_status ensure_inflated(un_engine *E, int32_t k, int32_t level)
{
    return un_island_inflate(E->arr, E->isl + k, level, E->epoch, E->q, E->radius);
}

/* No-fit polygon of island k (orientation ok, shrink sk) around island i
 * (oi, si), in island i's frame. */
static un_status island_nfp(un_engine *E, int32_t i, int32_t oi, int32_t si, int32_t k, int32_t ok,
                            int32_t sk, const un_nfpval **out)
{
    un_nfpkey key;
    double mi[4], mk[4], rel[4];
    un_pt zero = {0, 0};
    un_rings nfp;
    un_status s;
    key.i = i; key.k = k;
    key.fi = oi / E->os.nangles; key.fk = ok / E->os.nangles;
    key.da = un_orient_key(&E->os, oi, ok);
    key.si = si; key.sk = sk;
    if ((*out = un_nfpcache_get(E->cache, &key)) != NULL) return UN_OK;
    if ((s = ensure_inflated(E, i, si)) != UN_OK) return s;
    if ((s = ensure_inflated(E, k, sk)) != UN_OK) return s;
    un_orient_matrix(&E->os, E->isl + i, oi, mi);
    un_orient_matrix(&E->os, E->isl + k, ok, mk);
    matrix_tmul(mi, mk, rel);
    un_rings_clear(&E->tmp);
    if ((s = un_rings_transform(&E->isl[k].infl[sk], rel, zero, &E->tmp)) != UN_OK) return s;
    un_rings_init(&nfp);
    s = un_msum_rings(E->arr, &E->isl[i].infl[si], &E->tmp, UN_MSUM_NFP, &nfp);
    if (s == UN_OK) s = un_nfpcache_put(E->cache, &key, &nfp, out);
    un_rings_free(&nfp);
    return s;
}

/* No-fit polygon of island k (ok, sk) around locked island j, in the
 * container frame at the current L. */
static un_status locked_nfp(un_engine *E, int32_t j, int32_t k, int32_t ok, int32_t sk,
                            const un_nfpval **out)
{
    un_nfpkey key;
    double mk[4];
    un_pt zero = {0, 0}, disk[UN_DISK_MAX_SIDES];
    un_rings a, d, infl, nfp;
    int32_t i, n, nd;
    un_status s;
    key.i = -1 - j; key.k = k;
    key.fi = E->lstep; key.fk = ok / E->os.nangles;
    key.da = ok % E->os.nangles;
    key.si = 0; key.sk = sk;
    if ((*out = un_nfpcache_get(E->cache, &key)) != NULL) return UN_OK;
    if ((s = ensure_inflated(E, k, sk)) != UN_OK) return s;
    un_rings_init(&a); un_rings_init(&d); un_rings_init(&infl); un_rings_init(&nfp);
    n = un_frings_npts(E->locked + j);
    s = un_reserve((void **)&a.pts, &a.cap_pts, n, sizeof *a.pts);
    for (i = 0; s == UN_OK && i < E->locked[j].nrings; i++) {
        int32_t st = E->locked[j].start[i], m = E->locked[j].start[i + 1] - st, t;
        un_pt *buf = (un_pt *)malloc((size_t)m * sizeof *buf);
        if (!buf) { s = UN_ENOMEM; break; }
        for (t = 0; t < m; t++) {
            buf[t].x = un_llround(E->locked[j].xy[2 * (st + t)] * E->L / E->q);
            buf[t].y = un_llround(E->locked[j].xy[2 * (st + t) + 1] * E->L / E->q);
        }
        s = un_rings_add(&a, buf, m);
        free(buf);
    }
    nd = un_disk_polygon(E->radius, UN_ENGINE_DISK_SIDES, disk);
    if (s == UN_OK) s = un_rings_add(&d, disk, nd);
    if (s == UN_OK) s = un_msum_rings(E->arr, &a, &d, 0, &infl);
    un_orient_matrix(&E->os, E->isl + k, ok, mk);
    un_rings_clear(&E->tmp);
    if (s == UN_OK) s = un_rings_transform(&E->isl[k].infl[sk], mk, zero, &E->tmp);
    if (s == UN_OK) s = un_msum_rings(E->arr, &infl, &E->tmp, UN_MSUM_NFP, &nfp);
    if (s == UN_OK) s = un_nfpcache_put(E->cache, &key, &nfp, out);
    un_rings_free(&a); un_rings_free(&d); un_rings_free(&infl); un_rings_free(&nfp);
    return s;
}

/* ------------------------------------------------------------ obstacles */

static int boxes_meet(un_pt alo, un_pt ahi, un_pt blo, un_pt bhi)
{
    /* obstacles are open: boxes that only touch do not meet */
    return alo.x < bhi.x && blo.x < ahi.x && alo.y < bhi.y && blo.y < ahi.y;
}

/* The inflated box of island k at (o, level) around its reference point. */
static void infl_box(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi)
{
    un_island_bbox(&E->os, E->isl + k, o, un_shrink_factor(level), E->q, lo, hi);
    lo->x -= E->radius + 2; lo->y -= E->radius + 2;
    hi->x += E->radius + 2; hi->y += E->radius + 2;
}

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

/* A request with no candidate list and r = f = 0. */
static place_req request(int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt wlo, un_pt whi)
{
    place_req rq;
    rq.p = p; rq.k = k; rq.o = o; rq.level = level; rq.bin = bin;
    rq.cand = NULL;
    rq.nc = 0;
    rq.wlo = wlo;
    rq.whi = whi;
    rq.r = rq.f = 0;
    return rq;
}

/* Gather the obstacles of request rq's island that reach its box of
 * translation space. */
static un_status gather(un_engine *E, const place_req *rq, int32_t *nobs)
{
    un_pt klo, khi, wlo = rq->wlo, whi = rq->whi;
    int32_t c, j, n = 0, count = rq->cand ? rq->nc : rq->p, k = rq->k, o = rq->o, level = rq->level, bin = rq->bin;
    const int32_t *cand = rq->cand;
    un_status s;
    un_rings_clear(&E->scratch);
    /* room for every candidate's core up front: obstacles point into it */
    if ((s = UN_RESERVE(E->cores, E->cap_cores, (int64_t)count + 1)) != UN_OK) return s;
    infl_box(E, k, o, level, &klo, &khi);
    for (c = 0; c < count; c++) {
        const un_place *q;
        const un_nfpval *v;
        un_pt blo, bhi;
        double m[4];
        j = cand ? cand[c] : c;
        q = E->pl + j;
        if (!q->placed || q->bin != bin) continue;
        blo.x = q->lo.x - khi.x; blo.y = q->lo.y - khi.y;
        bhi.x = q->hi.x - klo.x; bhi.y = q->hi.y - klo.y;
        if (!boxes_meet(blo, bhi, wlo, whi)) continue;
        /* a no-fit polygon of two detailed islands takes up to tens of ms */
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        if ((s = island_nfp(E, E->seq[j], q->orient, q->sigma, k, o, level, &v)) != UN_OK) return s;
        un_orient_matrix(&E->os, E->isl + E->seq[j], q->orient, m);
        if ((s = UN_RESERVE(E->obs, E->cap_obs, (int64_t)n + 1)) != UN_OK) return s;
        E->obs[n].rings = &E->scratch;
        E->obs[n].r0 = E->scratch.nrings;
        if ((s = un_rings_transform(&v->rings, m, q->t, &E->scratch)) != UN_OK) return s;
        E->obs[n].r1 = E->scratch.nrings;
        E->obs[n].off.x = E->obs[n].off.y = 0;
        un_bbox_transform(v->lo, v->hi, m, q->t, &E->obs[n].lo, &E->obs[n].hi);
        E->obs[n].core = v->has_core && un_core_transform(&v->core, m, q->t, E->cores + n) ? E->cores + n : NULL;
        n++;
    }
    for (j = 0; j < E->nlocked && bin == 0; j++) {
        const un_nfpval *v;
        if ((s = locked_nfp(E, j, k, o, level, &v)) != UN_OK) return s;
        if (!boxes_meet(v->lo, v->hi, wlo, whi)) continue;
        if ((s = UN_RESERVE(E->obs, E->cap_obs, (int64_t)n + 1)) != UN_OK) return s;
        E->obs[n].rings = &v->rings;
        E->obs[n].r0 = 0;
        E->obs[n].r1 = v->rings.nrings;
        E->obs[n].off.x = E->obs[n].off.y = 0;
        E->obs[n].lo = v->lo;
        E->obs[n].hi = v->hi;
        E->obs[n].core = v->has_core ? &v->core : NULL;
        n++;
    }
    *nobs = n;
    return UN_OK;
}

/* ------------------------------------------------------------- placement */

/* Two edges count as touching within CONTACT_TOL grid units (tuning.h). */

/* Inflated outline of the island at position j, in place (into E->near,
 * once per placement: E->near_at[j] is its first ring, or -1). */
static un_status near_rings(un_engine *E, int32_t j, int32_t *r0, int32_t *r1)
{
    const un_place *q = E->pl + j;
    double m[4];
    un_status s;
    if (E->near_at[j] < 0) {
        if ((s = ensure_inflated(E, E->seq[j], q->sigma)) != UN_OK) return s;
        un_orient_matrix(&E->os, E->isl + E->seq[j], q->orient, m);
        E->near_at[j] = E->near.nrings;
        if ((s = un_rings_transform(&E->isl[E->seq[j]].infl[q->sigma], m, q->t, &E->near)) != UN_OK) return s;
        E->near_to[j] = E->near.nrings;
    }
    *r0 = E->near_at[j];
    *r1 = E->near_to[j];
    return UN_OK;
}

/* Contact score of request rq's island (its inflated outline `self`, box
 * klo..khi relative to its reference point) at translation t: its boundary
 * along the container's walls and along its obstacles among the placed
 * islands. */
static un_status contact_score(un_engine *E, const place_req *rq, const un_rings *self, un_pt klo, un_pt khi,
                               un_pt t, double *score)
{
    const int32_t *cand = rq->cand;
    int32_t c, j, r0, r1, count = cand ? rq->nc : rq->p, bin = rq->bin;
    un_pt lo, hi, zero = {0, 0};
    int64_t tol = (int64_t)CONTACT_TOL;
    un_status s;
    lo.x = klo.x + t.x - tol; lo.y = klo.y + t.y - tol;
    hi.x = khi.x + t.x + tol; hi.y = khi.y + t.y + tol;
    *score = un_contact_walls(self, t, E->clo, E->chi, CONTACT_TOL);
    for (c = 0; c < count; c++) {
        un_rings view;
        j = cand ? cand[c] : c;
        if (!E->pl[j].placed || E->pl[j].bin != bin || !boxes_meet(E->pl[j].lo, E->pl[j].hi, lo, hi)) continue;
        if ((s = near_rings(E, j, &r0, &r1)) != UN_OK) return s;
        /* a view of rings r0..r1 of E->near */
        view = E->near;
        view.start = E->near.start + r0;
        view.nrings = r1 - r0;
        *score += un_contact_rings(self, t, &view, zero, CONTACT_TOL);
        E->contact_pairs += (int64_t)un_rings_npts(self) * (E->near.start[r1] - E->near.start[r0]);
    }
    return UN_OK;
}

/* The contact placement: of every vertex of every collision-free region,
 * the one where request rq's island touches the most (ties: the leftmost,
 * then the lowest), and its contact score; out->found = 0 when there is
 * none.  The regions are those of the last un_regions_build. */
static un_status contact_point(un_engine *E, const place_req *rq, place_out *out)
{
    int32_t j, v, nv, i, nt = 0, k = rq->k, o = rq->o, level = rq->level;
    un_pt *best = &out->t;
    double *top = &out->score;
    double m[4], score;
    un_pt klo, khi, zero = {0, 0};
    un_status s;
    /* the vertices first: inflating an island below reuses the workspace
     * the regions live in */
    for (j = 0; j < E->reg.nregions; j++) {
        nv = E->reg.rstart[j + 1] - E->reg.rstart[j];
        if ((s = UN_RESERVE(E->views, E->cap_views, nv)) != UN_OK) return s;
        nv = un_region_views(E->arr, &E->reg, j, E->views, nv);
        for (v = 0; v < nv; v++) {
            if ((s = UN_RESERVE(E->spots, E->cap_spots, (int64_t)nt + E->views[v].n)) != UN_OK) return s;
            for (i = 0; i < E->views[v].n; i++, nt++) {
                E->spots[nt].x = un_llround(E->views[v].xy[2 * i]);
                E->spots[nt].y = un_llround(E->views[v].xy[2 * i + 1]);
            }
        }
    }
    for (j = 0; j < rq->p; j++) E->near_at[j] = -1;
    un_rings_clear(&E->near);
    un_rings_clear(&E->self);
    if ((s = ensure_inflated(E, k, level)) != UN_OK) return s;
    un_orient_matrix(&E->os, E->isl + k, o, m);
    if ((s = un_rings_transform(&E->isl[k].infl[level], m, zero, &E->self)) != UN_OK) return s;
    infl_box(E, k, o, level, &klo, &khi);
    *top = -1;
    for (i = 0; i < nt; i++) {
        un_pt t = E->spots[i];
        /* many vertices against detailed neighbours take a while */
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        if ((s = contact_score(E, rq, &E->self, klo, khi, t, &score)) != UN_OK) return s;
        if (score > *top || (score == *top && (t.x < best->x || (t.x == best->x && t.y < best->y)))) {
            *top = score;
            *best = t;
        }
    }
    out->found = *top >= 0;
    return UN_OK;
}

/* Try request rq: the point (r, f) of its collision-free regions, or in the
 * contact search (E->contact) the contact placement and its score. */
static un_status try_place(un_engine *E, const place_req *rq, place_out *out)
{
    int32_t nobs, m, j, nv;
    double pt[2], r = rq->r, f = rq->f;
    un_status s;
    out->found = 0;
    E->work++;
    s = gather(E, rq, &nobs);
    if (s == UN_OK) s = un_cfr_loops_clip(E->arr, NULL, rq->wlo, rq->whi, E->obs, nobs, 1, &E->segs, &E->cap_segs);
    if (s == UN_OK) s = un_regions_build(E->arr, &E->reg);
    un_nfpcache_release(E->cache);
    if (s != UN_OK || (m = E->reg.nregions) == 0) return s;
    if (E->contact) return contact_point(E, rq, out);
    j = (int32_t)(f * m);
    if (j >= m) j = m - 1;
    nv = E->reg.rstart[j + 1] - E->reg.rstart[j];
    if ((s = UN_RESERVE(E->views, E->cap_views, nv)) != UN_OK) return s;
    nv = un_region_views(E->arr, &E->reg, j, E->views, nv);
    /* with vertices on: r in [0, 1/2) picks a vertex, [1/2, 1) a point of
     * the boundary (r = 0 stays the leftmost point) */
    if (E->at_vertices && r < 0.5) un_rings_vertex_at(E->views, nv, 2 * r, pt);
    else if (E->at_vertices) un_rings_point_at(E->views, nv, 2 * r - 1, pt);
    else un_rings_point_at(E->views, nv, r, pt);
    out->t.x = un_llround(pt[0]);
    out->t.y = un_llround(pt[1]);
    out->found = 1;
    return UN_OK;
}

/* Inner-fit rectangle of island k at (o, level); 0 when it cannot fit. */
static int ifp(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi)
{
    un_pt blo, bhi;
    un_island_bbox(&E->os, E->isl + k, o, un_shrink_factor(level), E->q, &blo, &bhi);
    return un_ifp_rect(E->clo, E->chi, blo, bhi, lo, hi);
}

/* Island k went to container `bin`: the first island of a group claims the
 * container for the group and books the whole group's area there (so that
 * other groups look elsewhere); a member outside it books its own. */
static void count_bin(un_engine *E, int32_t k, int32_t bin)
{
    int32_t g = E->group ? E->group[k] : -1;
    if (g >= 0 && E->group_bin[g] < 0) {
        E->group_bin[g] = bin;
        E->bin_area[bin] += E->group_area[g];
    } else if (E->bin_area && (g < 0 || E->group_bin[g] != bin)) {
        E->bin_area[bin] += E->isl[k].area;
    }
}

static void record(un_engine *E, int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt t)
{
    un_place *q = E->pl + p;
    un_pt lo, hi;
    infl_box(E, k, o, level, &lo, &hi);
    q->placed = 1;
    q->bin = bin;
    if (bin >= E->nopen) E->nopen = bin + 1;
    count_bin(E, k, bin);
    q->orient = o;
    q->sigma = level;
    q->t = t;
    q->lo.x = lo.x + t.x; q->lo.y = lo.y + t.y;
    q->hi.x = hi.x + t.x; q->hi.y = hi.y + t.y;
}

static int32_t orientation(const un_engine *E, double theta)
{
    int32_t no = E->os.nangles * E->os.flips, o = (int32_t)(theta * no);
    return o < 0 ? 0 : o >= no ? no - 1 : o;
}

/* A group goes whole into a container only where its area fits within
 * GROUP_FILL (tuning.h) of what is left. */

/* May the first island of group g go to container `bin`, keeping the group
 * whole?  Yes when the group's area fits there (or fits no container). */
static int group_room(const un_engine *E, int32_t g, int32_t bin)
{
    double tile = (double)(E->chi.x - E->clo.x) * (double)(E->chi.y - E->clo.y) * E->q * E->q;
    if (g < 0 || E->group_bin[g] >= 0 || E->group_area[g] > GROUP_FILL * tile) return 1;
    return E->bin_area[bin] + E->group_area[g] <= GROUP_FILL * tile;
}

typedef struct filler filler;
static un_status fill_bin(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, int32_t bin, int *found);

/* Try the group's container first, then every open one in order (first
 * fit), then (when `fresh`) a new one, at orientation o; *found when placed.
 * With `whole`, a group's first island skips containers its group does not
 * fit in whole.  An annealed island (F NULL) takes the point (r, f) of the
 * container's collision-free regions, a filler the leftmost free point
 * found by F's windows. */
static un_status first_fit(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, double r, double f,
                           int fresh, int whole, int *found)
{
    int32_t g = E->group ? E->group[k] : -1, pref = g >= 0 ? E->group_bin[g] : -1, i, last;
    un_pt wlo, whi;
    place_req rq;
    place_out out;
    un_status s;
    *found = 0;
    if (!ifp(E, k, o, 0, &wlo, &whi)) return UN_OK;
    last = E->nopen < E->nbins_max ? E->nopen - 1 + (fresh != 0) : E->nbins_max - 1;
    for (i = -1; i <= last; i++) {
        int32_t bin = i < 0 ? pref : i;
        if (bin < 0 || (i >= 0 && bin == pref)) continue;
        if (whole && bin < E->nopen && !group_room(E, g, bin)) continue;
        if (F) {
            if ((s = fill_bin(E, F, p, k, o, bin, found)) != UN_OK || *found) return s;
            continue;
        }
        rq = request(p, k, o, 0, bin, wlo, whi);
        rq.r = r;
        rq.f = f;
        if ((s = try_place(E, &rq, &out)) != UN_OK) return s;
        if ((*found = out.found)) { record(E, p, k, o, 0, bin, out.t); return UN_OK; }
    }
    return UN_OK;
}

/* Several containers at a fixed scale; nothing shrinks.  The island's own
 * orientation in the open containers, then its other quarter turns there
 * (a turned island in an open tile beats a new tile), then a new container
 * at its own orientation, then at any orientation (an island wider than a
 * tile may fit turned).  All of that first keeping its group whole, then
 * not.  Deterministic in the parameters, like every decode. */
static un_status place_in_bins(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, double r, double f)
{
    int32_t na = E->os.nangles, no = na * E->os.flips, q, j;
    int found = 0, whole;
    un_status s;
    for (whole = E->group && E->group[k] >= 0; whole >= 0; whole--) {
        if ((s = first_fit(E, F, p, k, o, r, f, 0, whole, &found)) != UN_OK || found) return s;
        for (q = 1; q < 4; q++) {
            int32_t oq = un_orient_quarter(&E->os, o, q);
            if (oq < 0) break;
            if ((s = first_fit(E, F, p, k, oq, r, f, 0, whole, &found)) != UN_OK || found) return s;
        }
        for (j = 0; j < no; j++)
            if ((s = first_fit(E, F, p, k, (o + j) % no, r, f, 1, whole, &found)) != UN_OK || found) return s;
    }
    return UN_OK;
}

/* The contact search at full size: island k at its contact placement in
 * every orientation the engine has (one, or with rotation 90 the quarter
 * turns of the input, or in the aligned search its base and candidates),
 * and the one that touches the most wins (ties: the first, the island as
 * given), unless the search pinned its orientation.  A jigsaw piece turned a quarter from where
 * it belongs touches its neighbours at a corner at most; as it belongs,
 * along whole edges. */
static un_status place_by_contact(un_engine *E, int32_t p, int32_t k, int *found)
{
    int32_t no = E->os.nangles * E->os.flips, o, best = -1;
    /* an island the search pinned (f > 0, which the contact search does
     * not read otherwise) tries only its own orientation, theta's */
    int32_t pin = E->par[3 * k + 2] > 0 ? orientation(E, E->par[3 * k]) : -1;
    double top = -1;
    un_pt wlo, whi, tbest = {0, 0};
    un_status s;
    for (o = pin < 0 ? 0 : pin; o < (pin < 0 ? no : pin + 1); o++) {
        /* a repeated angle places the same way (and costs as much) */
        if (pin < 0 && un_orient_repeats(&E->os, E->isl + k, o)) continue;
        if (!ifp(E, k, o, 0, &wlo, &whi)) continue;
        place_req rq = request(p, k, o, 0, 0, wlo, whi);
        place_out out;
        if ((s = try_place(E, &rq, &out)) != UN_OK) return s;
        if (out.found && out.score > top) { top = out.score; best = o; tbest = out.t; }
    }
    *found = best >= 0;
    if (*found) record(E, p, k, best, 0, 0, tbest);
    return UN_OK;
}

/* Island k of annealed position p at (o, level) in container 0 by its own
 * (r, f). */
static un_status try_annealed(un_engine *E, int32_t p, int32_t k, int32_t o, int32_t level, un_pt wlo, un_pt whi,
                              place_out *out)
{
    place_req rq = request(p, k, o, level, 0, wlo, whi);
    rq.r = E->par[3 * k + 1];
    rq.f = E->par[3 * k + 2];
    return try_place(E, &rq, out);
}

/* An annealed position: its own (theta, r, f), shrunk if it does not fit. */
static un_status place_annealed(un_engine *E, int32_t p)
{
    int32_t k = E->seq[p], o = orientation(E, E->par[3 * k]), lo = 1, hi = UN_SHRINK_LEVELS - 1, best = -1;
    un_pt wlo, whi, tbest = {0, 0};
    place_out out;
    int found;
    un_status s;
    E->pl[p].placed = 0;
    if (E->nbins_max > 0) return place_in_bins(E, NULL, p, k, o, E->par[3 * k + 1], E->par[3 * k + 2]);
    if (E->contact) {
        if ((s = place_by_contact(E, p, k, &found)) != UN_OK || found) return s;
    } else if (ifp(E, k, o, 0, &wlo, &whi)) {
        if ((s = try_annealed(E, p, k, o, 0, wlo, whi, &out)) != UN_OK) return s;
        if (out.found) { record(E, p, k, o, 0, 0, out.t); return UN_OK; }
    }
    /* largest shrink factor (smallest level) that fits */
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        out.found = 0;
        if (ifp(E, k, o, mid, &wlo, &whi) && (s = try_annealed(E, p, k, o, mid, wlo, whi, &out)) != UN_OK)
            return s;
        if (out.found) { best = mid; tbest = out.t; hi = mid - 1; }
        else lo = mid + 1;
    }
    if (best >= 0) record(E, p, k, o, best, 0, tbest);
    return UN_OK;
}

/* ------------------------------------------------------- the filler index */

/* Placed positions by grid cell of their inflated boxes, for windows. */
typedef struct {
    int32_t  g;                  /* cells per side */
    int64_t  cw, ch;             /* cell size */
    int32_t *head;  int32_t cap_head;   /* per cell: first item */
    int32_t *next;  int32_t cap_next;   /* per item: next item */
    int32_t *pos;   int32_t cap_pos;    /* per item: position */
    int32_t  nitem;
    int32_t *stamp; int32_t cap_stamp;  /* per position */
    int32_t  stampv;
    int32_t *cand;  int32_t cap_cand;
} cell_index;

static void cell_range(const cell_index *ci, const un_engine *E, un_pt lo, un_pt hi, int32_t *c0,
                       int32_t *c1, int32_t *r0, int32_t *r1)
{
    int64_t a = (lo.x - E->clo.x) / ci->cw, b = (hi.x - E->clo.x) / ci->cw;
    int64_t c = (lo.y - E->clo.y) / ci->ch, d = (hi.y - E->clo.y) / ci->ch;
    *c0 = (int32_t)(a < 0 ? 0 : a >= ci->g ? ci->g - 1 : a);
    *c1 = (int32_t)(b < 0 ? 0 : b >= ci->g ? ci->g - 1 : b);
    *r0 = (int32_t)(c < 0 ? 0 : c >= ci->g ? ci->g - 1 : c);
    *r1 = (int32_t)(d < 0 ? 0 : d >= ci->g ? ci->g - 1 : d);
}

static un_status index_add(cell_index *ci, const un_engine *E, int32_t p)
{
    int32_t c0, c1, r0, r1, c, r;
    un_status s;
    cell_range(ci, E, E->pl[p].lo, E->pl[p].hi, &c0, &c1, &r0, &r1);
    for (r = r0; r <= r1; r++)
        for (c = c0; c <= c1; c++) {
            int32_t cell = r * ci->g + c;
            if ((s = UN_RESERVE(ci->next, ci->cap_next, (int64_t)ci->nitem + 1)) != UN_OK) return s;
            if ((s = UN_RESERVE(ci->pos, ci->cap_pos, (int64_t)ci->nitem + 1)) != UN_OK) return s;
            ci->pos[ci->nitem] = p;
            ci->next[ci->nitem] = ci->head[cell];
            ci->head[cell] = ci->nitem++;
        }
    return UN_OK;
}

/* Positions whose boxes may meet box lo..hi. */
static un_status index_query(cell_index *ci, const un_engine *E, un_pt lo, un_pt hi, int32_t *nc)
{
    int32_t c0, c1, r0, r1, c, r, n = 0, it;
    un_status s;
    ci->stampv++;
    cell_range(ci, E, lo, hi, &c0, &c1, &r0, &r1);
    for (r = r0; r <= r1; r++)
        for (c = c0; c <= c1; c++)
            for (it = ci->head[r * ci->g + c]; it >= 0; it = ci->next[it]) {
                int32_t p = ci->pos[it];
                if (ci->stamp[p] == ci->stampv) continue;
                ci->stamp[p] = ci->stampv;
                if ((s = UN_RESERVE(ci->cand, ci->cap_cand, (int64_t)n + 1)) != UN_OK) return s;
                ci->cand[n++] = p;
            }
    *nc = n;
    return UN_OK;
}

static void index_free(cell_index *ci)
{
    free(ci->head); free(ci->next); free(ci->pos); free(ci->stamp); free(ci->cand);
}

/* Windows of translation space for the filler, fixed for one fill pass,
 * with what failed in each (the layout only fills up during a pass): the
 * smallest island that found no room there, and how many did.  A window is
 * skipped for islands no smaller, and for everyone once WINDOW_DEAD islands
 * in a row failed there (with one container only: with several, what does
 * not fit opens a whole new one).  Skipping is a heuristic for the small
 * islands: it can only cost density, never validity (WINDOW_DEAD and the
 * windows' sizes are in tuning.h). */
typedef struct {
    int32_t  g;                  /* windows per side */
    int64_t  ww, wh;             /* window size */
    int64_t *fail;  int32_t cap_fail;   /* 3 per window: width, height (-1: none), failures */
} windows;

/* Per container: its placed positions by cell, and its windows; made when
 * the fill first looks there. */
typedef struct {
    cell_index ci;
    windows    wd;
    int        ready;
} bin_fill;

struct filler {
    bin_fill *bins;     /* one per container (nbins_max, or 1) */
    int32_t   nbins;
    int64_t   size;     /* a typical filler's inflated box, across */
};

static void bin_fill_free(bin_fill *b)
{
    index_free(&b->ci);
    free(b->wd.fail);
}

/* Container `bin`'s state: cells of 1/FILL_CELLS of the container; windows
 * about WINDOW_FILLERS times the typical filler across (WINDOW_MIN to
 * WINDOW_MAX per side). */
static un_status bin_state(un_engine *E, filler *F, int32_t bin, bin_fill **out)
{
    bin_fill *b = F->bins + bin;
    int32_t g = FILL_CELLS, i;
    int64_t side = E->chi.x - E->clo.x;
    un_status s;
    *out = b;
    if (b->ready) return UN_OK;
    b->ci.g = g;
    b->ci.cw = (E->chi.x - E->clo.x) / g + 1;
    b->ci.ch = (E->chi.y - E->clo.y) / g + 1;
    if ((s = UN_RESERVE(b->ci.head, b->ci.cap_head, (int64_t)g * g)) != UN_OK) return s;
    if ((s = UN_RESERVE(b->ci.stamp, b->ci.cap_stamp, E->n)) != UN_OK) return s;
    for (i = 0; i < g * g; i++) b->ci.head[i] = -1;
    memset(b->ci.stamp, 0, (size_t)E->n * sizeof *b->ci.stamp);
    b->wd.g = (int32_t)(side / (WINDOW_FILLERS * (F->size > 0 ? F->size : 1)) + 1);
    if (b->wd.g < WINDOW_MIN) b->wd.g = WINDOW_MIN;
    if (b->wd.g > WINDOW_MAX) b->wd.g = WINDOW_MAX;
    b->wd.ww = (E->chi.x - E->clo.x) / b->wd.g + 1;
    b->wd.wh = (E->chi.y - E->clo.y) / b->wd.g + 1;
    if ((s = UN_RESERVE(b->wd.fail, b->wd.cap_fail, 3 * (int64_t)b->wd.g * b->wd.g)) != UN_OK) return s;
    for (i = 0; i < b->wd.g * b->wd.g; i++) {
        b->wd.fail[3 * i] = b->wd.fail[3 * i + 1] = -1;
        b->wd.fail[3 * i + 2] = 0;
    }
    b->ready = 1;
    return UN_OK;
}

/* The leftmost free point of island k (orientation o) in container `bin`.
 * Windows are scanned column by column; in the first column with a free
 * point, the leftmost of its windows' free points is the leftmost of the
 * whole inner-fit rectangle (up to the windows skipped: an island no
 * smaller in area, and no smaller in at least one direction, than one that
 * failed there).  With fill_quick the first window with a free point
 * decides (its leftmost point): most of the work of a full scan is in the
 * windows above it, which rarely win.  Records the placement when found. */
static un_status fill_bin(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, int32_t bin, int *found)
{
    bin_fill *b;
    windows *wd;
    int32_t c, r;
    un_pt ilo, ihi, klo, khi, best = {0, 0};
    int64_t kw, kh;
    int have = 0;
    un_status s;
    *found = 0;
    if (!ifp(E, k, o, 0, &ilo, &ihi)) return UN_OK;
    if ((s = bin_state(E, F, bin, &b)) != UN_OK) return s;
    wd = &b->wd;
    infl_box(E, k, o, 0, &klo, &khi);
    kw = khi.x - klo.x;
    kh = khi.y - klo.y;
    for (c = 0; c < wd->g && !have; c++) {
        int64_t x0 = E->clo.x + c * wd->ww, x1 = x0 + wd->ww;
        if (x1 < ilo.x || x0 > ihi.x) continue;
        for (r = 0; r < wd->g; r++) {
            int64_t y0 = E->clo.y + r * wd->wh, y1 = y0 + wd->wh, *fw = wd->fail + 3 * ((int64_t)c * wd->g + r);
            un_pt wlo, whi, qlo, qhi;
            place_req rq;
            place_out out;
            int32_t nc;
            if (y1 < ilo.y || y0 > ihi.y) continue;
            if ((fw[2] >= WINDOW_DEAD && E->nbins_max == 0) ||
                (fw[0] >= 0 && kw * kh >= fw[0] * fw[1] && (kw >= fw[0] || kh >= fw[1])))
                continue;
            if (E->cancel && *E->cancel) return UN_ECANCELLED;
            wlo.x = x0 > ilo.x ? x0 : ilo.x;
            wlo.y = y0 > ilo.y ? y0 : ilo.y;
            whi.x = x1 < ihi.x ? x1 : ihi.x;
            whi.y = y1 < ihi.y ? y1 : ihi.y;
            /* rows above a free point can only win further left */
            if (have) {
                if (best.x <= wlo.x) break;
                whi.x = best.x - 1;
            }
            /* placed boxes that can reach the window: it grown by k's box */
            qlo.x = wlo.x + klo.x; qlo.y = wlo.y + klo.y;
            qhi.x = whi.x + khi.x; qhi.y = whi.y + khi.y;
            if ((s = index_query(&b->ci, E, qlo, qhi, &nc)) != UN_OK) return s;
            rq = request(p, k, o, 0, bin, wlo, whi);
            rq.cand = b->ci.cand;
            rq.nc = nc;
            if ((s = try_place(E, &rq, &out)) != UN_OK) return s;
            if (!out.found) {
                /* only a failure over the whole window says it is full */
                if (!have) {
                    if (fw[0] < 0 || kw * kh < fw[0] * fw[1]) { fw[0] = kw; fw[1] = kh; }
                    fw[2]++;
                }
                continue;
            }
            fw[2] = 0;
            if (!have || out.t.x < best.x || (out.t.x == best.x && out.t.y < best.y)) {
                best = out.t;
                have = 1;
            }
            if (E->fill_quick) break;
        }
    }
    if (!have) return UN_OK;
    record(E, p, k, o, 0, bin, best);
    *found = 1;
    return index_add(&b->ci, E, p);
}

/* A filler position: with one container the leftmost free point there, with
 * several the containers in the order annealed islands try them. */
static un_status place_filler(un_engine *E, filler *F, int32_t p)
{
    int32_t k = E->seq[p], o = orientation(E, E->par[3 * k]);
    int found;
    E->pl[p].placed = 0;
    if (E->nbins_max > 0) return place_in_bins(E, F, p, k, o, 0, 0);
    return fill_bin(E, F, p, k, o, 0, &found);
}

static un_status fill(un_engine *E, int32_t from, int32_t to)
{
    filler F;
    int32_t p;
    un_status s = UN_OK;
    F.nbins = E->nbins_max > 0 ? E->nbins_max : 1;
    if (!(F.bins = (bin_fill *)calloc((size_t)F.nbins, sizeof *F.bins))) return UN_ENOMEM;
    /* windows sized for the typical (median) filler */
    {
        un_pt lo, hi;
        infl_box(E, E->seq[from + (to - from) / 2], 0, 0, &lo, &hi);
        F.size = (hi.x - lo.x) > (hi.y - lo.y) ? hi.x - lo.x : hi.y - lo.y;
    }
    for (p = 0; p < from && s == UN_OK; p++)
        if (E->pl[p].placed) {
            bin_fill *b;
            if ((s = bin_state(E, &F, E->pl[p].bin, &b)) == UN_OK) s = index_add(&b->ci, E, p);
        }
    for (p = from; p < to && s == UN_OK; p++) {
        s = place_filler(E, &F, p);
        if (s == UN_OK && E->fill_stop && !E->pl[p].placed) {
            while (++p < to) E->pl[p].placed = 0;
            break;
        }
    }
    for (p = 0; p < F.nbins; p++) bin_fill_free(F.bins + p);
    free(F.bins);
    return s;
}

/* ------------------------------------------------------------------ decode */

/* With several containers: the state the prefix 0..from-1 leaves. */
static void bins_from_prefix(un_engine *E, int32_t from)
{
    int32_t p;
    E->nopen = 0;
    for (p = 0; p < E->ngroups; p++) E->group_bin[p] = -1;
    if (E->bin_area)
        for (p = 0; p < E->nbins_max; p++) E->bin_area[p] = 0;
    for (p = 0; p < from; p++) {
        const un_place *q = E->pl + p;
        if (!q->placed) continue;
        if (q->bin >= E->nopen) E->nopen = q->bin + 1;
        count_bin(E, E->seq[p], q->bin);
    }
}

/* containers used - sum(U^2) / containers used, plus LEFT_OUT_COST per
 * container's worth of islands left out, plus GROUP_SPLIT_COST per affinity
 * group spread over several containers (tuning.h) */

static double bins_cost(const un_engine *E)
{
    double cover[UN_MAX_BINS], tile, cost, f = 0, left = 0;
    int32_t p, b, used = 0, split = 0;
    tile = (double)(E->chi.x - E->clo.x) * (double)(E->chi.y - E->clo.y) * E->q * E->q;
    for (b = 0; b < UN_MAX_BINS; b++) cover[b] = 0;
    for (p = 0; p < E->ngroups; p++) E->group_mark[p] = 0;
    for (p = 0; p < E->n; p++) {
        const un_place *q = E->pl + p;
        int32_t k = E->seq[p], g = E->group ? E->group[k] : -1;
        double a = E->isl[k].area;
        if (!q->placed) { left += a; continue; }
        cover[q->bin < UN_MAX_BINS ? q->bin : UN_MAX_BINS - 1] += a;
        if (q->bin + 1 > used) used = q->bin + 1;
        if (g >= 0 && q->bin != E->group_bin[g] && !E->group_mark[g]) { E->group_mark[g] = 1; split++; }
    }
    for (b = 0; b < used && b < UN_MAX_BINS; b++) f += (cover[b] / tile) * (cover[b] / tile);
    cost = used ? used - f / used : 0;
    return cost + LEFT_OUT_COST * left / tile + GROUP_SPLIT_COST * split;
}

un_status un_decode(un_engine *E, int32_t from, double *waste, int *complete)
{
    int32_t p, na = E->nanneal;
    double cover = 0, area;
    int prefix = 1;
    un_status s = UN_OK;
    if (E->nbins_max > 0) bins_from_prefix(E, from);
    for (p = from; p < na && s == UN_OK; p++) {
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        s = place_annealed(E, p);
    }
    if (s != UN_OK) return s;
    for (p = 0; p < na; p++)
        if (!E->pl[p].placed || E->pl[p].sigma != 0) prefix = 0;
    /* the filler only runs around a complete annealed prefix; otherwise the
     * filler islands count as not placed */
    if (prefix && E->n > na) {
        if ((s = fill(E, from > na ? from : na, E->n)) != UN_OK) return s;
    } else {
        for (p = na; p < E->n; p++) E->pl[p].placed = 0;
    }
    *complete = 1;
    for (p = 0; p < E->n; p++) {
        const un_place *q = E->pl + p;
        double sg;
        if (!q->placed || q->sigma != 0) *complete = 0;
        if (!q->placed) continue;
        sg = un_shrink_factor(q->sigma);
        cover += sg * sg * E->isl[E->seq[p]].area;
    }
    area = (double)(E->chi.x - E->clo.x) * (double)(E->chi.y - E->clo.y) * E->q * E->q;
    *waste = E->nbins_max > 0 ? bins_cost(E) : area > 0 ? 1 - cover / area : 1;
    return UN_OK;
}

/* Containers span at most UN_COORD_LIMIT / 4 grid units across (the
 * margin, the no-fit polygons and their sums stay within the limit). */
#define UN_CONTAINER_LIMIT (UN_COORD_LIMIT / 4)
/* The largest container allowed is this share of the limit (a percent of
 * room for the roundings of the scale). */
#define LARGEST_SCALE_SHARE 0.99

double un_engine_largest_scale(const un_engine *E)
{
    double side = E->tw > E->th ? E->tw : E->th;
    return LARGEST_SCALE_SHARE * (double)UN_CONTAINER_LIMIT * E->q / side;
}

un_status un_engine_set_scale(un_engine *E, double L)
{
    double pad, drift = E->drift > 0 ? E->drift : UN_INFLATION_DRIFT;
    if (!(L > 0)) return UN_EINVAL;
    if (L > E->L_infl || L < E->L_infl * (1 - drift)) {
        double at = E->infl_hint >= L && E->infl_hint * (1 - drift) <= L ? E->infl_hint : L;
        /* never wider than the margin of the largest container allowed */
        if (at > un_engine_largest_scale(E) / LARGEST_SCALE_SHARE) at = L;
        /* margin m*L/2 per island, in grid units, plus the slack */
        E->L_infl = at;
        E->radius = (int64_t)ceil(E->margin * at / (2 * E->q)) + UN_SLACK;
        E->epoch++;
        un_nfpcache_clear(E->cache);
    }
    E->L = L;
    E->lstep++;
    pad = E->padding * L / E->q;
    E->clo.x = (int64_t)ceil(pad);
    E->clo.y = (int64_t)ceil(pad);
    E->chi.x = (int64_t)floor(E->tw * L / E->q - pad);
    E->chi.y = (int64_t)floor(E->th * L / E->q - pad);
    if (E->chi.x > UN_CONTAINER_LIMIT || E->chi.y > UN_CONTAINER_LIMIT) return UN_ERANGE;
    return UN_OK;
}
