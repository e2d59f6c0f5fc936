/*
 * anneal.c - simulated annealing over the sequence and (theta, r, f).
 *
 * A move changes one parameter of one annealed island, or (one move in ten)
 * swaps two annealed islands in the sequence (in the contact search, whose
 * decode reads no parameter, every move swaps two islands or moves one,
 * but in the aligned search PIN_SHARE of them pin an island's orientation);
 * the placements before the first changed position are kept and only the
 * rest is decoded again.  The
 * cost is the share of the container not covered (non-fitting islands count
 * at the size they were shrunk to), so moves that bring an island closer to
 * fitting are rewarded.  Acceptance is Metropolis with geometric cooling;
 * every parameter of every island has its own step, widened after an
 * accepted move and narrowed after a rejected one (Martins & Tsuzuki's
 * crystallisation factor).  The caller reheats when it changes the scale
 * or when the search stalls.
 */
#include "engine.h"
#include "anneal.h"

#include <math.h>

/* The knobs of the moves (steps, shares) are in tuning.h. */

un_status un_anneal_init(un_anneal *A, int32_t n)
{
    int32_t i;
    memset(A, 0, sizeof *A);
    A->step = (double *)malloc((3 * (size_t)n + 1) * sizeof *A->step);
    A->save = (un_place *)malloc(((size_t)n + 1) * sizeof *A->save);
    if (!A->step || !A->save) return UN_ENOMEM;
    for (i = 0; i < 3 * n; i++) A->step[i] = PARAM_STEP_INIT;
    return UN_OK;
}

void un_anneal_free(un_anneal *A)
{
    free(A->step);
    free(A->save);
    memset(A, 0, sizeof *A);
}

/* Are there edge-aligned orientations other than the grid itself: the
 * islands' candidates, or quarter turns of the base among more angles? */
static int has_aligned(const un_orients *os)
{
    return os->nangles > os->ngrid || (os->ngrid % 4 == 0 && os->ngrid > 4);
}

/* An edge-aligned orientation drawn at random (any flip): one of the
 * island's candidates (not its contact orientations, which follow them),
 * or without them a quarter turn of the base. */
static int32_t aligned_orientation(const un_orients *os, un_rng *g)
{
    int32_t first = un_orient_contact_first(os), flip = un_rng_below(g, os->flips);
    int32_t ncand = (first >= 0 ? first : os->nangles) - os->ngrid;
    if (ncand > 0) return os->ngrid + un_rng_below(g, ncand) + flip * os->nangles;
    return un_rng_below(g, 4) * (os->ngrid / 4) + flip * os->nangles;
}

static double wrap(double v)
{
    v -= floor(v);
    return v >= 1 ? 0 : v;
}

/* Swap positions p and q of the sequence, or (insert) take the island at
 * p to position q, shifting those between; reorder(seq, q, p, insert)
 * undoes reorder(seq, p, q, insert). */
static void reorder(int32_t *seq, int32_t p, int32_t q, int insert)
{
    int32_t k = seq[p];
    if (!insert) {
        seq[p] = seq[q];
        seq[q] = k;
    } else if (p < q) {
        memmove(seq + p, seq + p + 1, (size_t)(q - p) * sizeof *seq);
        seq[q] = k;
    } else {
        memmove(seq + q + 1, seq + q, (size_t)(p - q) * sizeof *seq);
        seq[q] = k;
    }
}

/* What a move may overwrite of an island's contact orientations, for its
 * undo (is NULL: nothing).  Restoring the old version with the old angles
 * keeps the cache's entries of that version right. */
typedef struct {
    un_island *is;
    double     contact[4];
    int32_t    ver;
} contact_undo;

static void contact_restore(const contact_undo *u)
{
    if (!u->is) return;
    memcpy(u->is->contact, u->contact, sizeof u->contact);
    u->is->contact_ver = u->ver;
}

/* The kind of a rotation move of the main search: an edge-aligned
 * candidate (ALIGNED_SHARE), a contact orientation (NEIGHBOUR_SHARE,
 * REFINE_SHARE) where the islands have them, else a random step.  Draws
 * nothing without aligned orientations (as before there were kinds). */
static int theta_kind(const un_orients *os, un_rng *g)
{
    double u;
    if (!has_aligned(os)) return UN_THETA_RANDOM;
    u = un_rng_unit(g);
    if (u < ALIGNED_SHARE) return UN_THETA_WALL;
    if (un_orient_contact_first(os) >= 0) {
        if (u < ALIGNED_SHARE + NEIGHBOUR_SHARE) return UN_THETA_NEIGHBOUR;
        if (u < ALIGNED_SHARE + NEIGHBOUR_SHARE + REFINE_SHARE) return UN_THETA_REFINE;
    }
    return UN_THETA_RANDOM;
}

/* The kind of a pin of the aligned search: a contact orientation
 * (NEIGHBOUR_SHARE, REFINE_SHARE of them) or a random one of the
 * orientations, mostly edge-aligned candidates. */
static int pin_kind(const un_orients *os, un_rng *g)
{
    double u;
    if (un_orient_contact_first(os) < 0) return UN_THETA_WALL;
    u = un_rng_unit(g);
    if (u < NEIGHBOUR_SHARE) return UN_THETA_NEIGHBOUR;
    if (u < NEIGHBOUR_SHARE + REFINE_SHARE) return UN_THETA_REFINE;
    return UN_THETA_WALL;
}

/* The island at position p takes a contact orientation of `kind` from the
 * current layout, at its current flip: *o its index, or -1 when there is
 * none (the island's contact orientations are then untouched). */
static un_status contact_orientation(un_engine *E, int32_t p, int kind, un_rng *g, contact_undo *u, int32_t *o)
{
    un_island *is = E->isl + E->seq[p];
    int32_t first = un_orient_contact_first(&E->os);
    double angle;
    int found;
    un_status s;
    *o = -1;
    if (first < 0) return UN_OK;
    if ((s = un_contact_angle(E, p, kind == UN_THETA_REFINE, g, &angle, &found)) != UN_OK || !found) return s;
    u->is = is;
    memcpy(u->contact, is->contact, sizeof u->contact);
    u->ver = is->contact_ver;
    un_contact_orient_set(is, angle);
    *o = first + E->pl[p].orient / E->os.nangles * E->os.nangles;
    return UN_OK;
}

/* Count a rotation move of `kind` (< 0: none) and its outcome. */
static void count_theta(un_anneal *A, int kind, int accept, double delta, int full)
{
    if (kind < 0) return;
    A->theta[kind][UN_THETA_PROPOSED]++;
    A->theta[kind][UN_THETA_ACCEPTED] += accept;
    A->theta[kind][UN_THETA_IMPROVED] += accept && delta < 0;
    A->theta[kind][UN_THETA_COMPLETED] += accept && full;
}

/* One move.  Returns through *complete whether the (accepted) current
 * decode places every island at full size. */
un_status un_anneal_move(un_engine *E, un_anneal *A, un_rng *g, int *complete)
{
    int32_t na = E->nanneal, n = E->n, no = E->os.nangles * E->os.flips, p, q = -1, k = 0, j = -1, from, o = -1;
    double old = 0, old_theta = -1, waste, delta;
    int full, accept, insert = 0, kind = -1;
    contact_undo undo;
    un_status s = UN_OK;
    *complete = 0;
    undo.is = NULL;
    if (na == 0) return UN_OK;
    p = un_rng_below(g, na);
    if (E->contact && E->os.nangles > E->os.ngrid && un_rng_unit(g) < PIN_SHARE) {
        /* pin (f = 1) to an orientation, or unpin (f = 0); theta's old
         * value is kept in old_theta for the undo */
        k = E->seq[p];
        j = 2;
        old = E->par[3 * k + 2];
        old_theta = E->par[3 * k];
        if (old > 0 && un_rng_unit(g) < UNPIN_SHARE) {
            E->par[3 * k + 2] = 0;
        } else {
            E->par[3 * k + 2] = 1;
            kind = pin_kind(&E->os, g);
            if (kind != UN_THETA_WALL) s = contact_orientation(E, p, kind, g, &undo, &o);
            if (o < 0) {
                if (kind != UN_THETA_WALL) A->theta[kind][UN_THETA_NO_PAIR]++;   /* a random pin */
                kind = UN_THETA_WALL;
                o = un_rng_below(g, no);
            }
            E->par[3 * k] = ((double)o + 0.5) / no;
        }
        from = p;
    } else if (na >= 2 && (E->contact || un_rng_unit(g) < SWAP_SHARE)) {
        q = un_rng_below(g, na - 1);
        if (q >= p) q++;
        /* the contact search places by the sequence alone: half its moves
         * take one island to another place in it */
        insert = E->contact && un_rng_unit(g) < INSERT_SHARE;
        reorder(E->seq, p, q, insert);
        from = p < q ? p : q;
    } else {
        int32_t nparam = no > 1 ? 3 : 2;
        k = E->seq[p];
        j = 3 - nparam + un_rng_below(g, nparam);   /* skip theta with one orientation */
        old = E->par[3 * k + j];
        if (j == 0) kind = theta_kind(&E->os, g);
        if (kind == UN_THETA_WALL) o = aligned_orientation(&E->os, g);
        else if (kind == UN_THETA_NEIGHBOUR || kind == UN_THETA_REFINE) s = contact_orientation(E, p, kind, g, &undo, &o);
        if (o < 0 && (kind == UN_THETA_NEIGHBOUR || kind == UN_THETA_REFINE)) {
            A->theta[kind][UN_THETA_NO_PAIR]++;   /* no edge pair: a random step */
            kind = UN_THETA_RANDOM;
        }
        if (o >= 0) E->par[3 * k] = ((double)o + 0.5) / no;
        else E->par[3 * k + j] = wrap(old + A->step[3 * k + j] * (2 * un_rng_unit(g) - 1));
        from = p;
    }
    memcpy(A->save + from, E->pl + from, (size_t)(n - from) * sizeof *A->save);
    if (s != UN_OK || (s = un_decode(E, from, &waste, &full)) != UN_OK) {
        /* leave the state as it was: cancelled or out of memory mid-way */
        memcpy(E->pl + from, A->save + from, (size_t)(n - from) * sizeof *A->save);
        if (q >= 0) reorder(E->seq, q, p, insert);
        else E->par[3 * k + j] = old;
        if (old_theta >= 0) E->par[3 * k] = old_theta;
        contact_restore(&undo);
        return s;
    }
    delta = waste - A->cost;
    accept = delta <= 0 || (A->T > 0 && un_rng_unit(g) < exp(-delta / A->T));
    count_theta(A, kind, accept, delta, full);
    if (accept) {
        A->cost = waste;
        A->accepted++;
        if (j >= 0 && (A->step[3 * k + j] *= PARAM_STEP_WIDEN) > PARAM_STEP_MAX) A->step[3 * k + j] = PARAM_STEP_MAX;
        *complete = full;
    } else {
        memcpy(E->pl + from, A->save + from, (size_t)(n - from) * sizeof *A->save);
        if (q >= 0) reorder(E->seq, q, p, insert);
        else {
            E->par[3 * k + j] = old;
            if (old_theta >= 0) E->par[3 * k] = old_theta;
            if ((A->step[3 * k + j] *= PARAM_STEP_NARROW) < PARAM_STEP_MIN) A->step[3 * k + j] = PARAM_STEP_MIN;
            contact_restore(&undo);
        }
    }
    A->T *= A->alpha;
    A->moves++;
    return UN_OK;
}

void un_anneal_reheat(un_anneal *A)
{
    A->T = A->T0;
}
