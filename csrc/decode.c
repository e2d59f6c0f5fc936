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
 *
 * Files: decode.c (this: the annealed positions, the containers, the cost,
 * the scale), place.c (one placement: no-fit polygons, obstacles,
 * collision-free regions, the point chosen in them, contact scores) and
 * fill.c (the fillers: windows and the index of placed islands).
 */
#include "decode.h"

#include <math.h>

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
    int32_t pin = E->par[3 * k + 2] > 0 ? un_orientation_of(E, E->par[3 * k]) : -1;
    double top = -1;
    un_pt wlo, whi, tbest = {0, 0};
    un_status s;
    for (o = pin < 0 ? 0 : pin; o < (pin < 0 ? no : pin + 1); o++) {
        /* a repeated angle places the same way (and costs as much) */
        if (pin < 0 && un_orient_repeats(&E->os, E->isl + k, o)) continue;
        if (!un_island_ifp(E, k, o, 0, &wlo, &whi)) continue;
        place_req rq = un_place_request(p, k, o, 0, 0, wlo, whi);
        place_out out;
        if ((s = un_try_place(E, &rq, &out)) != UN_OK) return s;
        if (out.found && out.score > top) { top = out.score; best = o; tbest = out.t; }
    }
    *found = best >= 0;
    if (*found) un_record_place(E, p, k, best, 0, 0, tbest);
    return UN_OK;
}

/* Island k of annealed position p at (o, level) in container 0 by its own
 * (r, f). */
static un_status try_annealed(un_engine *E, int32_t p, int32_t k, int32_t o, int32_t level, un_pt wlo, un_pt whi,
                              place_out *out)
{
    place_req rq = un_place_request(p, k, o, level, 0, wlo, whi);
    rq.r = E->par[3 * k + 1];
    rq.f = E->par[3 * k + 2];
    return un_try_place(E, &rq, out);
}

/* An annealed position: its own (theta, r, f), shrunk if it does not fit. */
static un_status place_annealed(un_engine *E, int32_t p)
{
    int32_t k = E->seq[p], o = un_orientation_of(E, E->par[3 * k]), lo = 1, hi = UN_SHRINK_LEVELS - 1, best = -1;
    un_pt wlo, whi, tbest = {0, 0};
    place_out out;
    int found;
    un_status s;
    E->pl[p].placed = 0;
    if (E->bins.nbins_max > 0) return un_place_in_bins(E, NULL, p, k, o, E->par[3 * k + 1], E->par[3 * k + 2]);
    if (E->contact) {
        if ((s = place_by_contact(E, p, k, &found)) != UN_OK || found) return s;
    } else if (un_island_ifp(E, k, o, 0, &wlo, &whi)) {
        if ((s = try_annealed(E, p, k, o, 0, wlo, whi, &out)) != UN_OK) return s;
        if (out.found) { un_record_place(E, p, k, o, 0, 0, out.t); return UN_OK; }
    }
    /* a first fill does not shrink: a shrunk island would not make it
     * complete, and its shrink levels' no-fit polygons (against detailed
     * islands, most of a failed fill's time on a dense mesh) serve no
     * later fill; the islands after it still go in at full size, for the
     * density the next container is estimated from */
    if (E->fill_stop) return UN_OK;
    /* largest shrink factor (smallest level) that fits */
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        out.found = 0;
        if (un_island_ifp(E, k, o, mid, &wlo, &whi) && (s = try_annealed(E, p, k, o, mid, wlo, whi, &out)) != UN_OK)
            return s;
        if (out.found) { best = mid; tbest = out.t; hi = mid - 1; }
        else lo = mid + 1;
    }
    if (best >= 0) un_record_place(E, p, k, o, best, 0, tbest);
    return UN_OK;
}

/* A group goes whole into a container only where its area fits within
 * GROUP_FILL (tuning.h) of what is left. */

/* May the first island of group g go to container `bin`, keeping the group
 * whole?  Yes when the group's area fits there (or fits no container). */
static int group_room(const un_engine *E, int32_t g, int32_t bin)
{
    double tile = (double)(E->chi.x - E->clo.x) * (double)(E->chi.y - E->clo.y) * E->q * E->q;
    if (g < 0 || E->bins.group_bin[g] >= 0 || E->bins.group_area[g] > GROUP_FILL * tile) return 1;
    return E->bins.bin_area[bin] + E->bins.group_area[g] <= GROUP_FILL * tile;
}

/* Try the group's container first, then every open one in order (first
 * fit), then (when `fresh`) a new one, at orientation o; *found when placed.
 * With `whole`, a group's first island skips containers its group does not
 * fit in whole.  An annealed island (F NULL) takes the point (r, f) of the
 * container's collision-free regions, a filler the leftmost free point
 * found by F's windows. */
un_status un_first_fit(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, double r, double f,
                           int fresh, int whole, int *found)
{
    int32_t g = E->bins.group ? E->bins.group[k] : -1, pref = g >= 0 ? E->bins.group_bin[g] : -1, i, last;
    un_pt wlo, whi;
    place_req rq;
    place_out out;
    un_status s;
    *found = 0;
    if (!un_island_ifp(E, k, o, 0, &wlo, &whi)) return UN_OK;
    last = E->bins.nopen < E->bins.nbins_max ? E->bins.nopen - 1 + (fresh != 0) : E->bins.nbins_max - 1;
    for (i = -1; i <= last; i++) {
        int32_t bin = i < 0 ? pref : i;
        if (bin < 0 || (i >= 0 && bin == pref)) continue;
        if (whole && bin < E->bins.nopen && !group_room(E, g, bin)) continue;
        if (F) {
            if ((s = un_fill_bin(E, F, p, k, o, bin, found)) != UN_OK || *found) return s;
            continue;
        }
        rq = un_place_request(p, k, o, 0, bin, wlo, whi);
        rq.r = r;
        rq.f = f;
        if ((s = un_try_place(E, &rq, &out)) != UN_OK) return s;
        if ((*found = out.found)) { un_record_place(E, p, k, o, 0, bin, out.t); return UN_OK; }
    }
    return UN_OK;
}

/* Several containers at a fixed scale; nothing shrinks.  The island's own
 * orientation in the open containers, then its other quarter turns there
 * (a turned island in an open tile beats a new tile), then a new container
 * at its own orientation, then at any orientation (an island wider than a
 * tile may fit turned).  All of that first keeping its group whole, then
 * not.  Deterministic in the parameters, like every decode. */
un_status un_place_in_bins(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, double r, double f)
{
    int32_t na = E->os.nangles, no = na * E->os.flips, q, j;
    int found = 0, whole;
    un_status s;
    for (whole = E->bins.group && E->bins.group[k] >= 0; whole >= 0; whole--) {
        if ((s = un_first_fit(E, F, p, k, o, r, f, 0, whole, &found)) != UN_OK || found) return s;
        for (q = 1; q < 4; q++) {
            int32_t oq = un_orient_quarter(&E->os, o, q);
            if (oq < 0) break;
            if ((s = un_first_fit(E, F, p, k, oq, r, f, 0, whole, &found)) != UN_OK || found) return s;
        }
        for (j = 0; j < no; j++)
            if ((s = un_first_fit(E, F, p, k, (o + j) % no, r, f, 1, whole, &found)) != UN_OK || found) return s;
    }
    return UN_OK;
}

/* ------------------------------------------------------------------ decode */

/* With several containers: the state the prefix 0..from-1 leaves. */
static void bins_from_prefix(un_engine *E, int32_t from)
{
    int32_t p;
    E->bins.nopen = 0;
    for (p = 0; p < E->bins.ngroups; p++) E->bins.group_bin[p] = -1;
    if (E->bins.bin_area)
        for (p = 0; p < E->bins.nbins_max; p++) E->bins.bin_area[p] = 0;
    for (p = 0; p < from; p++) {
        const un_place *q = E->pl + p;
        if (!q->placed) continue;
        if (q->bin >= E->bins.nopen) E->bins.nopen = q->bin + 1;
        un_count_bin(E, E->seq[p], q->bin);
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
    for (p = 0; p < E->bins.ngroups; p++) E->bins.group_mark[p] = 0;
    for (p = 0; p < E->n; p++) {
        const un_place *q = E->pl + p;
        int32_t k = E->seq[p], g = E->bins.group ? E->bins.group[k] : -1;
        double a = E->isl[k].area;
        if (!q->placed) { left += a; continue; }
        cover[q->bin < UN_MAX_BINS ? q->bin : UN_MAX_BINS - 1] += a;
        if (q->bin + 1 > used) used = q->bin + 1;
        if (g >= 0 && q->bin != E->bins.group_bin[g] && !E->bins.group_mark[g]) { E->bins.group_mark[g] = 1; split++; }
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
    if (E->bins.nbins_max > 0) bins_from_prefix(E, from);
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
        if ((s = un_fill(E, from > na ? from : na, E->n)) != UN_OK) return s;
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
    *waste = E->bins.nbins_max > 0 ? bins_cost(E) : area > 0 ? 1 - cover / area : 1;
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
        /* (the hint's range within a rounding: a hint of L / (1 - drift)
         * must cover L) */
        double at = E->infl_hint >= L && E->infl_hint * (1 - drift) <= L * (1 + 1e-9) ? E->infl_hint : L;
        /* never wider than the margin of the largest container allowed */
        if (at > un_engine_largest_scale(E) / LARGEST_SCALE_SHARE) at = L;
        /* margin m*L/2 per island, in grid units, plus the slack */
        E->L_infl = at;
        E->radius = (int64_t)ceil(E->margin * at / (2 * E->q)) + UN_SLACK;
        E->epoch++;
        un_nfpcache_clear(E->ws.cache);
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
