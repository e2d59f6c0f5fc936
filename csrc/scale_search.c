/*
 * scale_search.c - the search for the largest common scale (the smallest
 * container L).
 *
 * Start: the first layout is the bottom-left fill (every r = f = 0) at the
 * first container where everything fits: containers are estimated from the
 * islands' areas and perimeters (the margin) and the density the last fill
 * that stopped short reached; then the container is bisected.
 *
 * Search: annealing at a container slightly smaller than the best one.
 * When everything fits, the layout is checked (validate.c) and becomes the
 * best; the next container is smaller by a step that grows after each
 * success.  When the search stalls, the step is halved; when it is tiny,
 * the search restarts from the best layout with a small step and a reheat,
 * so it keeps improving for as long as it runs.
 */
#include "packer.h"

#include <math.h>

un_status un_pk_decode_all(un_packer *pk, int *complete)
{
    double waste;
    un_status s = un_decode(&pk->E, 0, &waste, complete);
    if (s == UN_OK) pk->A.cost = waste;
    return s;
}

un_status un_pk_try_scale(un_packer *pk, double L, int reheat)
{
    int complete;
    un_status s = un_engine_set_scale(&pk->E, L);
    if (s == UN_OK) s = un_pk_decode_all(pk, &complete);
    /* a decode cut short (cancelled) leaves placements of the last scale
     * behind, which moves would keep as their prefix: decode again first */
    pk->redecode = s != UN_OK;
    pk->since = 0;
    if (reheat) un_anneal_reheat(&pk->A);
    return s;
}

un_status un_pk_bisect_step(un_packer *pk, int *improved);

/* Is the bisection of the bottom-left fill still refining? */
static int bisect_due(const un_packer *pk)
{
    return pk->bisecting && pk->best_L - pk->lo > BISECT_TOLERANCE * pk->best_L;
}

/* The annealing schedule: reheat temperature T0 (CONTACT_HEAT times that
 * in the contact search), and stalls after STALL_BASE + STALL_PER_ISLAND n
 * moves without success, over which the temperature cools to T_END_SHARE
 * of T0 (n: the islands annealed). */
int64_t un_pk_stall_moves(int32_t n)
{
    return STALL_BASE + STALL_PER_ISLAND * (int64_t)n;
}

void un_pk_set_schedule(un_packer *pk, double T0, int32_t n)
{
    pk->A.T0 = pk->E.contact ? CONTACT_HEAT * T0 : T0;
    pk->stall = un_pk_stall_moves(n);
    pk->A.alpha = exp(log(T_END_SHARE) / (double)pk->stall);
}

/* The position a quick fill that stopped short at container L can go on
 * from in container L2 (larger), or 0 to fill anew.  Its islands before
 * the first one that did not fit keep their places, moved with the
 * container's corner (the padding grows with L): they lie in the larger
 * container too (its inside is no smaller, checked on the grid), and with
 * the same inflation they stay the margin apart.  Not with locked islands
 * (they move with L) nor before a complete annealed prefix. */
static int32_t fill_resumes_at(const un_packer *pk, double L2)
{
    const un_engine *E = &pk->E;
    double pad = E->padding * L2 / E->q;
    int64_t lo = (int64_t)ceil(pad), hx = (int64_t)floor(E->tw * L2 / E->q - pad),
            hy = (int64_t)floor(E->th * L2 / E->q - pad);
    int32_t p = 0;
    if (!E->fill_quick || E->nlocked > 0 || E->bins.nbins_max > 0) return 0;
    if (!(L2 >= E->L && L2 <= E->L_infl) || hx - lo < E->chi.x - E->clo.x || hy - lo < E->chi.y - E->clo.y)
        return 0;
    while (p < E->n && E->pl[p].placed && E->pl[p].sigma == 0) p++;
    return p > E->nanneal && p < E->n ? p : 0;
}

/* Bottom-left fill at scale L (its positions from `from` on; those before
 * kept, see fill_resumes_at): does everything fit, and is it valid? */
static un_status first_fill(un_packer *pk, double L, int32_t from, int *ok)
{
    int complete = 0;
    double waste;
    un_pt was = pk->E.clo;
    un_status s = un_engine_set_scale(&pk->E, L);
    int32_t p;
    *ok = 0;
    if (s == UN_ERANGE) return UN_ENOFIT;
    /* the places kept move with the container's corner */
    for (p = 0; p < from; p++) {
        un_place *q = pk->E.pl + p;
        int64_t dx = pk->E.clo.x - was.x, dy = pk->E.clo.y - was.y;
        q->t.x += dx; q->lo.x += dx; q->hi.x += dx;
        q->t.y += dy; q->lo.y += dy; q->hi.y += dy;
    }
    /* a filler that does not fit already decides: stop there */
    pk->E.fill_stop = 1;
    if (s == UN_OK) s = un_decode(&pk->E, from, &waste, &complete);
    if (s == UN_OK) pk->A.cost = waste;
    pk->E.fill_stop = 0;
    if (s == UN_OK && complete) s = un_pk_accept_layout(pk, ok);
    return s;
}

/* Area of the target (tile units) that locked islands lying wholly inside
 * it cover, counting overlaps twice: an estimate, used only to size the
 * grid (never as a bound on the scale). */
static double locked_area_inside(const un_packer *pk)
{
    const un_engine *E = &pk->E;
    double covered = 0;
    int32_t i;
    for (i = 0; i < E->nlocked; i++) {
        const un_frings *f = E->locked + i;
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};   /* un_frings_bbox widens them */
        if (un_frings_bbox(f, lo, hi) != UN_OK || lo[0] < 0 || lo[1] < 0 || hi[0] > E->tw || hi[1] > E->th)
            continue;
        covered += un_frings_area(f);
    }
    return covered;
}

/* The container that holds every island, each grown by half the margin,
 * at a given density.  Plain areas are not enough: the margin weighs more
 * as islands get smaller.  A shape of area a and perimeter p grown by h
 * covers about a + p h + pi h^2 (exactly, when convex); h = margin X / 2
 * in island units for a container X times the target. */
static double scale_at_density(const un_engine *E, double density)
{
    double area = 0, perimeter = 0, a, b;
    int32_t i;
    for (i = 0; i < E->n; i++) {
        area += E->isl[i].area;
        perimeter += E->isl[i].perimeter;
    }
    /* density tw th X^2 = area + perimeter m X / 2 + n pi (m X / 2)^2 */
    a = density * E->tw * E->th - E->n * UN_PI * 0.25 * E->margin * E->margin;
    b = 0.5 * perimeter * E->margin;
    if (!(a > 0)) return HUGE_VAL;
    return (b + sqrt(b * b + 4 * a * area)) / (2 * a);
}

/* The density (of islands grown by half the margin) that a fill at L
 * reached before it stopped at the first island that did not fit. */
static double fill_density(const un_engine *E, double L)
{
    const double h = 0.5 * E->margin * L;
    double placed = 0;
    int32_t p;
    for (p = 0; p < E->n; p++)
        if (E->pl[p].placed) {
            const un_island *is = E->isl + E->seq[p];
            double f = un_shrink_factor(E->pl[p].sigma);
            placed += f * f * is->area + f * is->perimeter * h + UN_PI * h * h;
        }
    return placed / (E->tw * E->th * L * L);
}

/* Islands at least the margin apart hold disjoint disks of diameter the
 * margin, centred in the target: their area must fit in the target grown
 * by half the margin, however small the islands (and at any scale: the
 * margin is in tile units). */
static int too_many_for_the_margin(const un_engine *E)
{
    return E->n * UN_PI * 0.25 * E->margin * E->margin > (E->tw + E->margin) * (E->th + E->margin);
}

/* No bottom-left fill placed every island in any container tried.  That
 * happens when the margin is large next to the islands: the margin grows
 * with the container, so the leftmost free point can leave the islands
 * after it no room at every scale.  Anneal in the largest container,
 * whose cost rewards every island brought closer to fitting, reheating
 * when stalled, until a decode places every island (or the budget runs
 * out: the start then fails with UN_ENOFIT). */
static un_status rescue_layout(un_packer *pk, double L)
{
    un_engine *E = &pk->E;
    int64_t since = 0, work0 = E->work, moves;
    int complete = 0, ok = 0;
    un_status s;
    if (too_many_for_the_margin(E)) return UN_OK;
    if (E->nanneal == 0) return UN_OK;
    if ((s = un_pk_try_scale(pk, L, 0)) != UN_OK) return s;
    /* hot enough to give up a typical island's share now and then */
    un_pk_set_schedule(pk, T0_SHARE / E->nanneal, E->nanneal);
    un_anneal_reheat(&pk->A);
    /* a move computes regions unless no island fits its container even
     * shrunk: bound the moves too */
    for (moves = 0; !ok && moves < RESCUE_WORK && E->work - work0 < RESCUE_WORK; moves++) {
        if (E->cancel && *E->cancel) return UN_ECANCELLED;
        if ((s = un_anneal_move(E, &pk->A, &pk->rng, &complete)) != UN_OK) return s;
        if (complete && (s = un_pk_accept_layout(pk, &ok)) != UN_OK) return s;
        if (++since >= pk->stall) {
            un_anneal_reheat(&pk->A);
            since = 0;
        }
    }
    return UN_OK;
}

/* A container smaller than this cannot hold every island in any
 * orientation: an island's diameter, at least its longest bounding-box
 * side, cannot exceed the target's diagonal times L. */
static double longest_reach(const un_engine *E)
{
    double reach = 0;
    int32_t i;
    for (i = 0; i < E->n; i++) {
        double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
        if (un_frings_bbox(&E->isl[i].outline, lo, hi) != UN_OK) continue;
        if (hi[0] - lo[0] > reach) reach = hi[0] - lo[0];
        if (hi[1] - lo[1] > reach) reach = hi[1] - lo[1];
    }
    return reach / hypot(E->tw, E->th);
}

/* The start's preparation (prepare.c), the grid sized for the islands:
 * and *L_area, the container of the islands' area (or, when longer, the
 * one the longest island needs). */
static un_status start_prepare(un_packer *pk, double *L_area_out)
{
    un_engine *E = &pk->E;
    double total = 0, L_area, L_grid, free_area, L;
    int32_t i;
    for (i = 0; i < E->n; i++) total += E->isl[i].area;
    L_area = sqrt(total / (E->tw * E->th));
    /* the grid spans a few times the container whose free part (less the
     * locked islands, at least LOCKED_FREE_MIN of the target) holds the
     * islands' area */
    free_area = E->tw * E->th - locked_area_inside(pk);
    if (free_area < LOCKED_FREE_MIN * E->tw * E->th) free_area = LOCKED_FREE_MIN * E->tw * E->th;
    L_grid = sqrt(total / free_area);
    /* ... and at least the container the longest island needs: thin
     * islands and segments have next to no area, and a grid sized by area
     * alone could not reach the container they need */
    L = longest_reach(E);
    if (L > L_area) L_area = L;
    if (L > L_grid) L_grid = L;
    if (pk->opt.fixed_scale > 0) L_area = L_grid = 1 / pk->opt.fixed_scale;
    *L_area_out = L_area;
    return un_pk_prepare(pk, L_grid);
}

un_status un_pk_start_prepare(un_packer *pk, volatile int *cancel)
{
    double L_area;
    pk->E.cancel = cancel;
    return start_prepare(pk, &L_area);
}

un_status un_pk_start_layout(un_packer *pk, volatile int *cancel)
{
    un_engine *E = &pk->E;
    double L_area, L;
    int ok = 0;
    un_status s;
    E->cancel = cancel;
    /* no layout at any scale: say so at once (100,000 triangles at margin
     * 0.005 filled growing containers, seconds each, with no answer after
     * 120 s in issue 27's run; now CannotFitError after 1.8 s, the islands
     * found in Python) */
    if (!(pk->opt.fixed_scale > 0) && too_many_for_the_margin(E)) return UN_ENOFIT;
    if ((s = start_prepare(pk, &L_area)) != UN_OK) return s;
    /* the skyline knows nothing of locked islands: with them, boxes go
     * through the general engine (the caller passes box outlines) */
    if (pk->opt.box && E->nlocked == 0) return un_pk_start_box(pk, L_area);
    if (pk->opt.fixed_scale > 0) return un_pk_start_fixed(pk);
    /* first layout: the bottom-left fill (every r = f = 0) at the first
     * container tried where everything fits; run() then bisects down
     * before it anneals.  Until then the islands stay inflated over a
     * range of L (every re-inflation recomputes every no-fit polygon: on a
     * dense mesh, 7 of the 9 fills did, for most of the time) */
    E->drift = E->margin > START_GAP / START_DRIFT ? START_GAP / E->margin : START_DRIFT;
    if (E->drift < UN_INFLATION_DRIFT) E->drift = UN_INFLATION_DRIFT;
    if (!pk->have_best) {
        if (pk->fill_tries == 0) {
            pk->lo = L_area;
            /* the first try assumes a dense fill; each next one the density
             * the last one reached (FILL_ROOM, FILL_GROW_MIN, FILL_GROW_MAX) */
            L = scale_at_density(E, E->n > BISECT_AT_START ? QUICK_FIRST_DENSITY : FIRST_DENSITY);
            pk->fill_L = !isfinite(L) || L < FIRST_ABOVE_AREA * L_area ? FIRST_ABOVE_AREA * L_area : L;
        }
        /* many islands: the first layout from quick fills (the first
         * window with room), streamed at once; the bisection refines with
         * full ones */
        E->fill_quick = E->n > BISECT_AT_START;
        for (; pk->fill_tries < FIRST_TRIES; pk->fill_tries++) {
            double grow;
            L = pk->fill_L;
            E->infl_hint = L / (1 - E->drift);   /* room for the next, larger tries */
            s = first_fill(pk, L, pk->fill_from, &ok);
            pk->fill_from = 0;
            if (s != UN_OK || ok) break;
            grow = FILL_ROOM * scale_at_density(E, fill_density(E, L)) / L;
            pk->lo = L;
            pk->fill_L = L * (grow < FILL_GROW_MIN ? FILL_GROW_MIN : grow > FILL_GROW_MAX ? FILL_GROW_MAX : grow);
            /* the largest container the islands' inflation holds first: a
             * fill there reuses every no-fit polygon computed so far, one
             * beyond inflates again and computes them all anew */
            if (pk->fill_L > E->L_infl && E->L_infl >= L * FILL_GROW_MIN) pk->fill_L = E->L_infl;
            /* a quick fill goes on where it stopped, in a container a small
             * step larger, while the inflation holds it: the islands it
             * placed are not placed again */
            if (fill_resumes_at(pk, L * RESUME_GROW)) {
                if (pk->fill_L > L * RESUME_GROW) pk->fill_L = L * RESUME_GROW;
                pk->fill_from = fill_resumes_at(pk, pk->fill_L);
            } else if (fill_resumes_at(pk, E->L_infl) && E->L_infl > L) {
                pk->fill_L = E->L_infl;
                pk->fill_from = fill_resumes_at(pk, pk->fill_L);
            }
        }
        E->fill_quick = 0;
        if (s != UN_OK && s != UN_ENOFIT) return s;  /* UN_ENOFIT: beyond the grid */
        if (!pk->have_best) {
            pk->rescued = 1;
            if ((s = rescue_layout(pk, un_engine_largest_scale(E))) != UN_OK) return s;
            pk->lo = L_area;
        }
        if (!pk->have_best) return UN_ENOFIT;
        pk->bisecting = 1;
    }
    /* for up to a few hundred islands a fill costs milliseconds: bisect now,
     * so that the first layout handed out is already tight; cancelled, the
     * first layout is the last fill that fitted, and run() bisects on.  The
     * bisection's last step, which sets up the annealing (a decode at a new
     * scale), is run()'s first move */
    s = UN_OK;
    /* (not the aligned search: its fills, 4 * UN_CAND_DIRS + 1 contact
     * placements per island, are costly, and its parent, which starts it
     * within one move, would be charged for all of them at once) */
    if (E->n <= BISECT_AT_START && !(E->contact && pk->opt.align)) {
        int improved = 0;
        while (bisect_due(pk) && s == UN_OK && !(cancel && *cancel)) s = un_pk_bisect_step(pk, &improved);
        if (s == UN_ECANCELLED) s = UN_OK;
    }
    return s;
}

/* One step of the bisection of the bottom-left fill; when it is fine
 * enough, set up the annealing. */
un_status un_pk_bisect_step(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    int ok = 0;
    un_status s;
    if (bisect_due(pk)) {
        double mid = 0.5 * (pk->lo + pk->best_L);
        E->infl_hint = pk->best_L;   /* every later mid lies below */
        if ((s = first_fill(pk, mid, 0, &ok)) != UN_OK) return s;
        if (ok) *improved = 1;
        else pk->lo = mid;
        return UN_OK;
    }
    pk->bisecting = 0;
    /* the annealing inflates for its own L, within the usual drift */
    E->drift = E->infl_hint = 0;
    /* annealing: the reheat temperature accepts losing a typical island's
     * share of the container about one time in three */
    un_pk_set_schedule(pk, T0_SHARE * pk->st.coverage / E->nanneal, E->nanneal);
    pk->delta = SCALE_STEP_FIRST;
    return un_pk_try_scale(pk, pk->main_L * (1 - pk->delta), 1);
}

/* The main search placed everything in a container smaller than its own
 * best: the best layout when it beats the as-given search's too; either
 * way the point the main search restarts from, and smaller containers
 * next. */
un_status un_pk_on_success(un_packer *pk, int *improved)
{
    un_engine *E = &pk->E;
    un_status s;
    if (E->L < pk->best_L) {
        if ((s = un_pk_accept_layout(pk, improved)) != UN_OK) return s;
    } else {
        un_pk_keep_restart_point(pk);
    }
    pk->delta *= SCALE_STEP_GROW;
    if (pk->delta > SCALE_STEP_MAX) pk->delta = SCALE_STEP_MAX;
    /* go on from this layout at the same temperature */
    return un_pk_try_scale(pk, pk->main_L * (1 - pk->delta), 0);
}

un_status un_pk_on_stall(un_packer *pk)
{
    /* a smaller step, from the best layout, hot again; below the smallest
     * step, start over with a small one */
    pk->delta *= SCALE_STEP_STALL;
    if (pk->delta < SCALE_STEP_MIN) pk->delta = SCALE_STEP_RESTART;
    un_pk_back_to_restart_point(pk);
    return un_pk_try_scale(pk, pk->main_L * (1 - pk->delta), 1);
}
