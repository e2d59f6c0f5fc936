/*
 * best_layout.c - a layout becomes the best only once it passes the exact
 * final check (validate.c) on every target it uses; what describes it
 * (coverage, scale, targets) is kept with it, and the main search's
 * restart point with it when the main search made it.
 */
#include "packer.h"

#include <math.h>

/* Tile-space outline of island k under transform t. */
static un_status place_outline(const un_island *is, const un_transform *t, un_frings *out)
{
    double c = cos(t->angle), s = sin(t->angle);
    int32_t i, n;
    un_status st = un_frings_copy(out, &is->outline);
    if (st != UN_OK) return st;
    n = un_frings_npts(out);
    for (i = 0; i < n; i++) {
        double x = out->xy[2 * i], y = out->xy[2 * i + 1];
        if (t->flip) x = -x;
        out->xy[2 * i] = t->scale * (c * x - s * y) + t->tx;
        out->xy[2 * i + 1] = t->scale * (s * x + c * y) + t->ty;
    }
    return UN_OK;
}

static void transforms_of(const un_packer *pk, un_transform *out)
{
    const un_engine *E = &pk->E;
    int32_t p;
    for (p = 0; p < E->n; p++) {
        int32_t k = E->seq[p];
        const un_place *q = E->pl + p;
        const un_island *is = E->isl + k;
        double m[4], inv = 1 / E->L, cx, cy;
        un_orient_matrix(&E->os, is, q->orient, m);
        /* tile = target corner + (M (p - c) + t q) / L */
        cx = m[0] * is->cx + m[1] * is->cy;
        cy = m[2] * is->cx + m[3] * is->cy;
        out[k].angle = un_orient_angle(&E->os, is, q->orient);
        out[k].flip = q->orient / E->os.nangles;
        out[k].scale = inv;
        out[k].tx = pk->opt.target[0] + ((double)q->t.x * E->q - cx) * inv;
        out[k].ty = pk->opt.target[1] + ((double)q->t.y * E->q - cy) * inv;
        out[k].bin = q->bin;
    }
}

/* Check target `bin` of layout t: its islands (and, in target 0, the
 * locked ones) against each other and the target. *bad when it fails. */
static un_status check_bin(const un_packer *pk, const un_transform *t, int32_t bin, int *bad)
{
    const un_engine *E = &pk->E;
    int32_t n = 0, i, nfix = bin == 0 ? E->nlocked : 0, bad_a, bad_b;
    un_frings *polys = (un_frings *)calloc((size_t)E->n + E->nlocked + 1, sizeof *polys);
    un_status s = UN_OK;
    *bad = 0;
    if (!polys) return UN_ENOMEM;
    for (i = 0; i < E->n && s == UN_OK; i++)
        if (t[i].bin == bin) s = place_outline(E->isl + i, t + i, polys + n++);
    for (i = 0; i < nfix && s == UN_OK; i++) {
        int32_t k, np;
        s = un_frings_copy(polys + n, E->locked + i);
        np = un_frings_npts(polys + n);
        for (k = 0; k < np; k++) {
            polys[n].xy[2 * k] += pk->opt.target[0];
            polys[n].xy[2 * k + 1] += pk->opt.target[1];
        }
        n++;
    }
    if (s == UN_OK && n > 0) {
        /* the moving islands must keep the padding from the target's border */
        const double *tg = pk->opt.target, pad = pk->opt.padding;
        double inner[4] = {tg[0] + pad, tg[1] + pad, tg[2] - pad, tg[3] - pad};
        s = un_validate_layout(polys, n, nfix, E->margin, inner, &bad_a, &bad_b);
        *bad = bad_a >= 0;
    }
    for (i = 0; i < n; i++) un_frings_free(polys + i);
    free(polys);
    return s;
}

/* The main search's restart point: its current parameters and sequence,
 * and their container as its own best. */
void un_pk_keep_restart_point(un_packer *pk)
{
    un_engine *E = &pk->E;
    int32_t k;
    memcpy(pk->best_par, E->par, 3 * (size_t)E->n * sizeof *E->par);
    memcpy(pk->best_seq, E->seq, (size_t)E->n * sizeof *E->seq);
    for (k = 0; k < E->n; k++) pk->best_contact[k] = E->isl[k].contact[0];
    pk->main_L = E->L;
}

void un_pk_back_to_restart_point(un_packer *pk)
{
    int32_t k;
    memcpy(pk->E.par, pk->best_par, 3 * (size_t)pk->E.n * sizeof *pk->E.par);
    memcpy(pk->E.seq, pk->best_seq, (size_t)pk->E.n * sizeof *pk->E.seq);
    /* a new version where the angle changed since (or came from another
     * chain, whose versions are its own) */
    for (k = 0; k < pk->E.n; k++) un_contact_orient_set(pk->E.isl + k, pk->best_contact[k]);
}

/* Check layout t (at container L); when it passes, make it the best and
 * set *kept. */
un_status un_pk_keep_layout(un_packer *pk, const un_transform *t, double L, int *kept)
{
    un_engine *E = &pk->E;
    int32_t i, b, bins = 0;
    double cover = 0, f = 0, tile = L * L * E->tw * E->th;
    int bad = 0;
    un_status s = UN_OK;
    for (i = 0; i < E->n; i++)
        if (t[i].bin + 1 > bins) bins = t[i].bin + 1;
    for (b = 0; b < bins && s == UN_OK && !bad; b++) s = check_bin(pk, t, b, &bad);
    if (s != UN_OK) return s;
    if (bad) {
        /* the engine produced a layout that breaks the rules: never hand it
         * out; counted so that tests can catch it */
        pk->st.rejected++;
        return UN_OK;
    }
    memcpy(pk->best, t, (size_t)E->n * sizeof *t);
    pk->best_L = L;
    pk->best_cost = pk->A.cost;
    pk->best_move = pk->st.moves;
    pk->have_best = 1;
    for (b = 0; b < bins; b++) {
        double c = 0;
        for (i = 0; i < E->n; i++)
            if (t[i].bin == b) c += E->isl[i].area;
        f += (c / tile) * (c / tile);
        cover += c;
    }
    pk->st.coverage = cover / (tile * bins);
    pk->st.scale = 1 / L;
    pk->st.bins = bins;
    pk->st.bins_f = f / bins;
    pk->st.layouts++;
    *kept = 1;
    return UN_OK;
}

/* Check the current complete layout; on success make it the best, and the
 * main search's restart point. */
un_status un_pk_accept_layout(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    un_transform *t = (un_transform *)malloc((size_t)E->n * sizeof *t);
    int kept = 0;
    un_status s;
    if (!t) return UN_ENOMEM;
    transforms_of(pk, t);
    s = un_pk_keep_layout(pk, t, E->L, &kept);
    free(t);
    if (kept) {
        un_pk_keep_restart_point(pk);
        *improved = 1;
    }
    return s;
}
