/*
 * cfr_float.c - the float entry points of the inner-fit polygons and
 * collision-free regions (un_geom_ifp, un_geom_cfr, un_geom_cfr_nfps,
 * un_region_point_at): float rings onto one grid fitted to all the inputs,
 * the integer work of cfr.c and regions.c, and the regions back to floats.
 */
#include "internal.h"

#include <math.h>

static int is_axis_rect(const un_rings *r)
{
    const un_pt *p = r->pts;
    int32_t i;
    if (r->nrings != 1 || r->start[1] != 4) return 0;
    for (i = 0; i < 4; i++) {
        un_pt a = p[i], b = p[(i + 1) % 4];
        if (a.x != b.x && a.y != b.y) return 0;
    }
    return 1;
}

static un_status regions_out(un_arr *w, const un_grid *g, un_fregions *out)
{
    un_regions reg;
    int32_t r, k, i, nr = 0;
    double *buf = NULL;
    int32_t cap = 0;
    un_status s;
    memset(&reg, 0, sizeof reg);
    if ((s = un_regions_build(w, &reg)) != UN_OK) goto done;
    out->region_start = (int32_t *)malloc(((size_t)reg.nregions + 1) * sizeof(int32_t));
    if (!out->region_start) { s = UN_ENOMEM; goto done; }
    for (r = 0; r < reg.nregions; r++) {
        out->region_start[r] = nr;
        for (k = reg.rstart[r]; k < reg.rstart[r + 1]; k++) {
            const un_loop *l = un_arr_loops(w) + reg.order[k];
            const double *xy = un_arr_xy(w) + 2 * l->start;
            int32_t n = l->end - l->start;
            if ((s = un_reserve((void **)&buf, &cap, 2 * (int64_t)n, sizeof *buf)) != UN_OK) goto done;
            for (i = 0; i < 2 * n; i++) buf[i] = xy[i] * g->step;
            if ((s = un_frings_add(&out->rings, buf, n)) != UN_OK) goto done;
            nr++;
        }
    }
    out->region_start[reg.nregions] = nr;
    out->nregions = reg.nregions;
done:
    free(buf);
    un_regions_free(&reg);
    return s;
}

/* Container and piece on the grid; the IFP as a rectangle (lo..hi, *rect
 * set) or as rings in *ifp. *empty when the piece cannot fit. */
static un_status ifp_any(un_arr *w, const un_rings *c, const un_rings *p, int *rect, un_pt *lo,
                         un_pt *hi, un_rings *ifp, int *empty)
{
    un_pt clo, chi, plo, phi;
    *empty = 0;
    *rect = is_axis_rect(c);
    if (*rect) {
        un_rings_bbox(c, &clo, &chi);
        un_rings_bbox(p, &plo, &phi);
        *empty = !un_ifp_rect(clo, chi, plo, phi, lo, hi);
        return UN_OK;
    }
    {
        un_status s = un_ifp_poly(w, c, p, ifp);
        *empty = s == UN_OK && ifp->nrings == 0;
        return s;
    }
}

/* A grid for sets[0..n) (sets[1] is the piece) with room for the piece's
 * extent on every side: the polygon inner-fit region works in a box that
 * large, and no-fit polygons add the piece once more. */
static un_status geom_fit(un_grid *g, const un_frings *const *sets, int32_t nsets, double extra)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    double plo[2] = {HUGE_VAL, HUGE_VAL}, phi[2] = {-HUGE_VAL, -HUGE_VAL};
    int32_t k;
    un_status s;
    for (k = 0; k < nsets; k++)
        if ((s = un_frings_bbox(sets[k], lo, hi)) != UN_OK) return s;
    if ((s = un_frings_bbox(sets[1], plo, phi)) != UN_OK) return s;
    extra += phi[0] - plo[0] > phi[1] - plo[1] ? phi[0] - plo[0] : phi[1] - plo[1];
    return un_grid_fit(g, lo[0], lo[1], hi[0], hi[1], extra);
}

un_status un_geom_ifp(const un_frings *container, const un_frings *piece, un_fregions *out,
                      un_workspace *ws)
{
    const un_frings *sets[2];
    un_grid g;
    un_rings c, p, ifp;
    un_arr *w = ws ? ws : un_workspace_new();
    un_seg *segs = NULL;
    int32_t cap = 0;
    un_pt lo, hi;
    int rect, empty;
    un_status s;
    memset(out, 0, sizeof *out);
    un_rings_init(&c); un_rings_init(&p); un_rings_init(&ifp);
    sets[0] = container; sets[1] = piece;
    if (!w) return UN_ENOMEM;
    if ((s = geom_fit(&g, sets, 2, 0)) != UN_OK) goto done;
    if ((s = un_grid_in(&g, container, &c)) != UN_OK) goto done;
    if ((s = un_grid_in(&g, piece, &p)) != UN_OK) goto done;
    if ((s = ifp_any(w, &c, &p, &rect, &lo, &hi, &ifp, &empty)) != UN_OK || empty) goto done;
    if ((s = un_cfr_loops(w, rect ? NULL : &ifp, lo, hi, NULL, 0, &segs, &cap)) != UN_OK) goto done;
    s = regions_out(w, &g, out);
done:
    free(segs);
    if (!ws) un_workspace_free(w);
    un_rings_free(&c); un_rings_free(&p); un_rings_free(&ifp);
    if (s != UN_OK) un_fregions_free(out);
    return s;
}

/* The inner-fit region of piece in container minus obstacles.  With
 * nfps_given the polygons are no-fit polygons computed before (translated
 * to where their islands sit); otherwise they are the placed islands, and
 * their no-fit polygons (grown by margin) are computed here. */
static un_status geom_cfr(const un_frings *container, const un_frings *polys, int32_t nplaced,
                          const un_frings *piece, double margin, int nfps_given, un_fregions *out,
                          un_workspace *ws)
{
    un_grid g;
    un_rings c, p, ifp, pl, disk, infl, *nfps = NULL;
    un_obstacle *obs = NULL;
    un_core *cores = NULL;
    double *scratch = NULL;
    int32_t cap_scratch = 0;
    un_arr *w = ws ? ws : un_workspace_new();
    un_seg *segs = NULL;
    int32_t cap = 0, i, nd, nobs = 0;
    un_pt lo, hi, dpts[UN_DISK_MAX_SIDES];
    int rect, empty;
    const un_frings **sets = NULL;
    un_status s = UN_OK;
    memset(out, 0, sizeof *out);
    un_rings_init(&c); un_rings_init(&p); un_rings_init(&ifp);
    un_rings_init(&pl); un_rings_init(&disk); un_rings_init(&infl);
    if (!w) return UN_ENOMEM;
    if (!(margin >= 0) || !isfinite(margin)) { s = UN_EINVAL; goto done; }
    sets = (const un_frings **)malloc(((size_t)nplaced + 2) * sizeof *sets);
    nfps = (un_rings *)calloc((size_t)nplaced + 1, sizeof *nfps);
    obs = (un_obstacle *)calloc((size_t)nplaced + 1, sizeof *obs);
    cores = (un_core *)calloc((size_t)nplaced + 1, sizeof *cores);
    if (!sets || !nfps || !obs || !cores) { s = UN_ENOMEM; goto done; }
    sets[0] = container;
    sets[1] = piece;
    for (i = 0; i < nplaced; i++) sets[i + 2] = polys + i;
    if ((s = geom_fit(&g, sets, nplaced + 2, margin)) != UN_OK) goto done;
    if ((s = un_grid_in(&g, container, &c)) != UN_OK) goto done;
    if ((s = un_grid_in(&g, piece, &p)) != UN_OK) goto done;
    if ((s = ifp_any(w, &c, &p, &rect, &lo, &hi, &ifp, &empty)) != UN_OK || empty) goto done;
    nd = un_disk_polygon((int64_t)ceil(margin / g.step), UN_DISK_MAX_SIDES, dpts);
    if (nd && (s = un_rings_add(&disk, dpts, nd)) != UN_OK) goto done;
    for (i = 0; i < nplaced; i++) {
        if (nfps_given) {
            /* no-fit polygons live in translation space, where the grid has
             * no origin offset (it cancels between island and piece); as
             * obstacles they must be oriented by nesting (+1 inside) */
            un_grid tg = g;
            tg.ox = tg.oy = 0;
            if ((s = un_grid_in(&tg, polys + i, nfps + i)) != UN_OK) goto done;
            if ((s = un_rings_orient(nfps + i, NULL)) != UN_OK) goto done;
        } else {
            if ((s = un_grid_in(&g, polys + i, &pl)) != UN_OK) goto done;
            if (nd) {
                if ((s = un_msum_rings(w, &pl, &disk, 0, &infl)) != UN_OK) goto done;
                if ((s = un_rings_copy(&pl, &infl)) != UN_OK) goto done;
            }
            if ((s = un_msum_rings(w, &pl, &p, UN_MSUM_NFP | UN_MSUM_EXACT, nfps + i)) != UN_OK) goto done;
        }
        /* an empty no-fit polygon (a piece or a placed polygon without
         * area) blocks nothing */
        if (nfps[i].nrings == 0) continue;
        obs[nobs].rings = nfps + i;
        obs[nobs].r0 = 0;
        obs[nobs].r1 = nfps[i].nrings;
        un_rings_bbox(nfps + i, &obs[nobs].lo, &obs[nobs].hi);
        {
            int found;
            if ((s = un_core_find(nfps + i, 0, nfps[i].nrings, obs[nobs].lo, obs[nobs].hi, &scratch,
                                  &cap_scratch, cores + i, &found)) != UN_OK)
                goto done;
            obs[nobs].core = found ? cores + i : NULL;
        }
        nobs++;
    }
    if ((s = un_cfr_loops(w, rect ? NULL : &ifp, lo, hi, obs, nobs, &segs, &cap)) != UN_OK) goto done;
    s = regions_out(w, &g, out);
done:
    for (i = 0; nfps && i < nplaced; i++) un_rings_free(nfps + i);
    free(nfps); free(obs); free(cores); free(scratch); free(sets); free(segs);
    if (!ws) un_workspace_free(w);
    un_rings_free(&c); un_rings_free(&p); un_rings_free(&ifp);
    un_rings_free(&pl); un_rings_free(&disk); un_rings_free(&infl);
    if (s != UN_OK) un_fregions_free(out);
    return s;
}

un_status un_geom_cfr(const un_frings *container, const un_frings *placed, int32_t nplaced,
                      const un_frings *piece, double margin, un_fregions *out, un_workspace *ws)
{
    return geom_cfr(container, placed, nplaced, piece, margin, 0, out, ws);
}

un_status un_geom_cfr_nfps(const un_frings *container, const un_frings *nfps, int32_t n,
                           const un_frings *piece, un_fregions *out, un_workspace *ws)
{
    return geom_cfr(container, nfps, n, piece, 0, 1, out, ws);
}

un_status un_region_point_at(const un_fregions *regions, int32_t k, double r, double out[2])
{
    un_ring_view v[64], *vp = v;
    int32_t a, b, i;
    if (k < 0 || k >= regions->nregions || !(r >= 0 && r < 1)) return UN_EINVAL;
    a = regions->region_start[k];
    b = regions->region_start[k + 1];
    if (b - a > 64 && !(vp = (un_ring_view *)malloc((size_t)(b - a) * sizeof *vp))) return UN_ENOMEM;
    for (i = a; i < b; i++) {
        vp[i - a].xy = regions->rings.xy + 2 * regions->rings.start[i];
        vp[i - a].n = regions->rings.start[i + 1] - regions->rings.start[i];
    }
    un_rings_point_at(vp, b - a, r, out);
    if (vp != v) free(vp);
    return UN_OK;
}
