/*
 * place.c - one placement: the obstacles of an island (the no-fit polygons
 * of the islands placed before it and of the locked ones, from the cache),
 * its collision-free regions in a box of translation space, and the point
 * chosen in them, by (r, f) or, in the contact search, where it touches
 * the most.
 */
#include "decode.h"

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
    return un_island_inflate(E->ws.arr, E->isl + k, level, E->epoch, E->q, E->radius);
}

/* Island i's inflated shape at level si as the no-fit polygon of island k
 * around it sees it: the coarse view of an annealed island at full size
 * when k is a filler (containing the shape: the placement stays exact),
 * else its shape.  The choice depends on (i, si, k) alone, so the cache's
 * key holds. */
static un_status fixed_view(un_engine *E, int32_t i, int32_t si, int32_t k, const un_rings **out)
{
    un_island *is = E->isl + i;
    un_status s;
    if (si == 0 && E->isl[k].filler && is->coarse.nrings > 0) {
        s = un_island_inflate_coarse(E->ws.arr, is, E->epoch, E->q, E->radius);
        *out = &is->coarse_infl;
        return s;
    }
    *out = &is->infl[si];
    return ensure_inflated(E, i, si);
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
    const un_rings *fixed;
    un_status s;
    key.i = i; key.k = k;
    key.fi = oi / E->os.nangles; key.fk = ok / E->os.nangles;
    key.da = un_orient_key(&E->os, oi, ok);
    key.si = si; key.sk = sk;
    key.vi = un_orient_version(&E->os, E->isl + i, oi);
    key.vk = un_orient_version(&E->os, E->isl + k, ok);
    if ((*out = un_nfpcache_get(E->ws.cache, &key)) != NULL) return UN_OK;
    if ((s = fixed_view(E, i, si, k, &fixed)) != UN_OK) return s;
    if ((s = ensure_inflated(E, k, sk)) != UN_OK) return s;
    un_orient_matrix(&E->os, E->isl + i, oi, mi);
    un_orient_matrix(&E->os, E->isl + k, ok, mk);
    matrix_tmul(mi, mk, rel);
    un_rings_clear(&E->ws.tmp);
    if ((s = un_rings_transform(&E->isl[k].infl[sk], rel, zero, &E->ws.tmp)) != UN_OK) return s;
    un_rings_init(&nfp);
    s = un_msum_rings(E->ws.arr, fixed, &E->ws.tmp, UN_MSUM_NFP, &nfp);
    if (s == UN_OK) s = un_nfpcache_put(E->ws.cache, &key, &nfp, out);
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
    key.vi = 0;
    key.vk = un_orient_version(&E->os, E->isl + k, ok);
    if ((*out = un_nfpcache_get(E->ws.cache, &key)) != NULL) return UN_OK;
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
    if (s == UN_OK) s = un_msum_rings(E->ws.arr, &a, &d, 0, &infl);
    un_orient_matrix(&E->os, E->isl + k, ok, mk);
    un_rings_clear(&E->ws.tmp);
    if (s == UN_OK) s = un_rings_transform(&E->isl[k].infl[sk], mk, zero, &E->ws.tmp);
    if (s == UN_OK) s = un_msum_rings(E->ws.arr, &infl, &E->ws.tmp, UN_MSUM_NFP, &nfp);
    if (s == UN_OK) s = un_nfpcache_put(E->ws.cache, &key, &nfp, out);
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
void un_infl_box(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi)
{
    un_island_bbox(&E->os, E->isl + k, o, un_shrink_factor(level), E->q, lo, hi);
    lo->x -= E->radius + 2; lo->y -= E->radius + 2;
    hi->x += E->radius + 2; hi->y += E->radius + 2;
}

/* A request with no candidate list and r = f = 0. */
place_req un_place_request(int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt wlo, un_pt whi)
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
    un_rings_clear(&E->ws.scratch);
    /* room for every candidate's core up front: obstacles point into it */
    if ((s = UN_RESERVE(E->ws.cores, E->ws.cap_cores, (int64_t)count + 1)) != UN_OK) return s;
    un_infl_box(E, k, o, level, &klo, &khi);
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
        if ((s = UN_RESERVE(E->ws.obs, E->ws.cap_obs, (int64_t)n + 1)) != UN_OK) return s;
        E->ws.obs[n].rings = &E->ws.scratch;
        E->ws.obs[n].r0 = E->ws.scratch.nrings;
        if ((s = un_rings_transform(&v->rings, m, q->t, &E->ws.scratch)) != UN_OK) return s;
        E->ws.obs[n].r1 = E->ws.scratch.nrings;
        E->ws.obs[n].off.x = E->ws.obs[n].off.y = 0;
        un_bbox_transform(v->lo, v->hi, m, q->t, &E->ws.obs[n].lo, &E->ws.obs[n].hi);
        E->ws.obs[n].core = v->has_core && un_core_transform(&v->core, m, q->t, E->ws.cores + n) ? E->ws.cores + n : NULL;
        n++;
    }
    for (j = 0; j < E->nlocked && bin == 0; j++) {
        const un_nfpval *v;
        if ((s = locked_nfp(E, j, k, o, level, &v)) != UN_OK) return s;
        if (!boxes_meet(v->lo, v->hi, wlo, whi)) continue;
        if ((s = UN_RESERVE(E->ws.obs, E->ws.cap_obs, (int64_t)n + 1)) != UN_OK) return s;
        E->ws.obs[n].rings = &v->rings;
        E->ws.obs[n].r0 = 0;
        E->ws.obs[n].r1 = v->rings.nrings;
        E->ws.obs[n].off.x = E->ws.obs[n].off.y = 0;
        E->ws.obs[n].lo = v->lo;
        E->ws.obs[n].hi = v->hi;
        E->ws.obs[n].core = v->has_core ? &v->core : NULL;
        n++;
    }
    *nobs = n;
    return UN_OK;
}

/* ------------------------------------------------------------- placement */

/* Two edges count as touching within CONTACT_TOL grid units (tuning.h). */

/* Inflated outline of the island at position j, in place (into E->touch.near,
 * once per placement: E->touch.near_at[j] is its first ring, or -1). */
static un_status near_rings(un_engine *E, int32_t j, int32_t *r0, int32_t *r1)
{
    const un_place *q = E->pl + j;
    double m[4];
    un_status s;
    if (E->touch.near_at[j] < 0) {
        if ((s = ensure_inflated(E, E->seq[j], q->sigma)) != UN_OK) return s;
        un_orient_matrix(&E->os, E->isl + E->seq[j], q->orient, m);
        E->touch.near_at[j] = E->touch.near.nrings;
        if ((s = un_rings_transform(&E->isl[E->seq[j]].infl[q->sigma], m, q->t, &E->touch.near)) != UN_OK) return s;
        E->touch.near_to[j] = E->touch.near.nrings;
    }
    *r0 = E->touch.near_at[j];
    *r1 = E->touch.near_to[j];
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
        /* a view of rings r0..r1 of E->touch.near */
        view = E->touch.near;
        view.start = E->touch.near.start + r0;
        view.nrings = r1 - r0;
        *score += un_contact_rings(self, t, &view, zero, CONTACT_TOL);
        E->touch.pairs += (int64_t)un_rings_npts(self) * (E->touch.near.start[r1] - E->touch.near.start[r0]);
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
    for (j = 0; j < E->ws.reg.nregions; j++) {
        nv = E->ws.reg.rstart[j + 1] - E->ws.reg.rstart[j];
        if ((s = UN_RESERVE(E->ws.views, E->ws.cap_views, nv)) != UN_OK) return s;
        nv = un_region_views(E->ws.arr, &E->ws.reg, j, E->ws.views, nv);
        for (v = 0; v < nv; v++) {
            if ((s = UN_RESERVE(E->touch.spots, E->touch.cap_spots, (int64_t)nt + E->ws.views[v].n)) != UN_OK) return s;
            for (i = 0; i < E->ws.views[v].n; i++, nt++) {
                E->touch.spots[nt].x = un_llround(E->ws.views[v].xy[2 * i]);
                E->touch.spots[nt].y = un_llround(E->ws.views[v].xy[2 * i + 1]);
            }
        }
    }
    for (j = 0; j < rq->p; j++) E->touch.near_at[j] = -1;
    un_rings_clear(&E->touch.near);
    un_rings_clear(&E->touch.self);
    if ((s = ensure_inflated(E, k, level)) != UN_OK) return s;
    un_orient_matrix(&E->os, E->isl + k, o, m);
    if ((s = un_rings_transform(&E->isl[k].infl[level], m, zero, &E->touch.self)) != UN_OK) return s;
    un_infl_box(E, k, o, level, &klo, &khi);
    *top = -1;
    for (i = 0; i < nt; i++) {
        un_pt t = E->touch.spots[i];
        /* many vertices against detailed neighbours take a while */
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        if ((s = contact_score(E, rq, &E->touch.self, klo, khi, t, &score)) != UN_OK) return s;
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
un_status un_try_place(un_engine *E, const place_req *rq, place_out *out)
{
    int32_t nobs, m, j, nv;
    double pt[2], r = rq->r, f = rq->f;
    un_status s;
    out->found = 0;
    E->work++;
    s = gather(E, rq, &nobs);
    if (s == UN_OK) s = un_cfr_loops_clip(E->ws.arr, NULL, rq->wlo, rq->whi, E->ws.obs, nobs, 1, &E->ws.segs, &E->ws.cap_segs);
    if (s == UN_OK) s = un_regions_build(E->ws.arr, &E->ws.reg);
    un_nfpcache_release(E->ws.cache);
    if (s != UN_OK || (m = E->ws.reg.nregions) == 0) return s;
    if (E->contact) return contact_point(E, rq, out);
    j = (int32_t)(f * m);
    if (j >= m) j = m - 1;
    nv = E->ws.reg.rstart[j + 1] - E->ws.reg.rstart[j];
    if ((s = UN_RESERVE(E->ws.views, E->ws.cap_views, nv)) != UN_OK) return s;
    nv = un_region_views(E->ws.arr, &E->ws.reg, j, E->ws.views, nv);
    /* with vertices on: r in [0, 1/2) picks a vertex, [1/2, 1) a point of
     * the boundary (r = 0 stays the leftmost point) */
    if (E->at_vertices && r < 0.5) un_rings_vertex_at(E->ws.views, nv, 2 * r, pt);
    else if (E->at_vertices) un_rings_point_at(E->ws.views, nv, 2 * r - 1, pt);
    else un_rings_point_at(E->ws.views, nv, r, pt);
    out->t.x = un_llround(pt[0]);
    out->t.y = un_llround(pt[1]);
    out->found = 1;
    return UN_OK;
}

/* Inner-fit rectangle of island k at (o, level); 0 when it cannot fit. */
int un_island_ifp(const un_engine *E, int32_t k, int32_t o, int32_t level, un_pt *lo, un_pt *hi)
{
    un_pt blo, bhi;
    un_island_bbox(&E->os, E->isl + k, o, un_shrink_factor(level), E->q, &blo, &bhi);
    return un_ifp_rect(E->clo, E->chi, blo, bhi, lo, hi);
}

/* Island k went to container `bin`: the first island of a group claims the
 * container for the group and books the whole group's area there (so that
 * other groups look elsewhere); a member outside it books its own. */
void un_count_bin(un_engine *E, int32_t k, int32_t bin)
{
    int32_t g = E->bins.group ? E->bins.group[k] : -1;
    if (g >= 0 && E->bins.group_bin[g] < 0) {
        E->bins.group_bin[g] = bin;
        E->bins.bin_area[bin] += E->bins.group_area[g];
    } else if (E->bins.bin_area && (g < 0 || E->bins.group_bin[g] != bin)) {
        E->bins.bin_area[bin] += E->isl[k].area;
    }
}

void un_record_place(un_engine *E, int32_t p, int32_t k, int32_t o, int32_t level, int32_t bin, un_pt t)
{
    un_place *q = E->pl + p;
    un_pt lo, hi;
    un_infl_box(E, k, o, level, &lo, &hi);
    q->placed = 1;
    q->bin = bin;
    if (bin >= E->bins.nopen) E->bins.nopen = bin + 1;
    un_count_bin(E, k, bin);
    q->orient = o;
    q->sigma = level;
    q->t = t;
    q->lo.x = lo.x + t.x; q->lo.y = lo.y + t.y;
    q->hi.x = hi.x + t.x; q->hi.y = hi.y + t.y;
}

int32_t un_orientation_of(const un_engine *E, double theta)
{
    int32_t no = E->os.nangles * E->os.flips, o = (int32_t)(theta * no);
    return o < 0 ? 0 : o >= no ? no - 1 : o;
}
