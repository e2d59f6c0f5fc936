/*
 * side_search.c - the side searches run alongside the main one: the
 * as-given, contact and aligned searches (below), each a packer of its own.
 */
#include "packer.h"

#include <math.h>

/* Up to a few hundred islands, a second search runs interleaved with the
 * main one, a packer of its own over the same islands:
 *
 * - The as-given search, when the main search chooses orientations
 *   (rotation any): every island in its input orientation only (no turn,
 *   no mirror: rotation none).  Jigsaw pieces and islands an artist
 *   straightened fit best as given, and a search with no angle to choose
 *   finds those fits far sooner than one choosing among 360 / step
 *   orientations per island (twice that with mirrors).
 * - The contact search, when the main search has one orientation (rotation
 *   none, the as-given search itself) or the quarter turns (rotation 90),
 *   at most CONTACT_MAX islands and at most CONTACT_VERTS vertices in the
 *   annealed ones:
 *   every island goes to the vertex of its collision-free regions where it
 *   touches its neighbours and the walls the most (contact.c), and the
 *   annealing moves only the sequence.  Interlocking pieces assemble that
 *   way: on the Dighe jigsaws it fills a container 8 % larger than the
 *   optimum within a hundred decodes, where choosing points by (r, f)
 *   takes thousands.  With rotation 90 each island also takes the quarter
 *   turn where it touches the most (decode.c): islands straightened but
 *   turned the wrong way, and puzzle pieces given in quarter turns of their
 *   fit.  (Below the as-given search of rotation any the contact search
 *   keeps one orientation: the four turns took 4 of the 18 terashima
 *   puzzles, given as they fit, from 0.97-1.00 to 0.85-0.93 at 10 s.)
 * - The aligned search: with rotation any, the side search of the
 *   main search when its islands are mostly turned (less than
 *   STRAIGHT_SHARE of their area with an edge on an axis as given), else of
 *   the as-given contact search (at most ALIGNED_MAX islands), within the
 *   contact search's limits and at most ALIGNED_VERTS vertices.  A contact
 *   search whose islands
 *   choose among their base angle and their candidates (orient.c), the
 *   orientations that turn an edge straight (PIN_SHARE of its moves pin an
 *   island to one of them instead, anneal.c).  Islands come out of an unwrap
 *   turned by any angle; there the as-given searches find nothing, and the
 *   main search's grid of angles never lines up an edge exactly.
 *
 * The side search gets a share of the work (collision-free regions
 * search computed: the share then holds however costly each search's moves are,
 * and stays deterministic): SIDE_AHEAD while it is ahead of the main
 * search, SIDE_NEAR while its best container is within SIDE_CLOSE of the main
 * search's, SIDE_FAR when it is further behind (islands that gain from
 * turning or from (r, f): the main search needs the time; a box layout
 * kept as the best does not count), and SIDE_CACHE_SHARE of the cache
 * budget.  Whenever its best layout beats the best, that layout (checked
 * again here) becomes the best.  The main search goes on below its own
 * best container, main_L, as if alone: it cannot express the side search's
 * layout, and aiming below a container it has not reached would only leave
 * it annealing islands that do not fit. */

/* Are the rotations the four quarter turns of the input (rotation 90)?
 * Then the contact search chooses among them. */
static int is_quarter_turns(const un_pack_options *o)
{
    int32_t i;
    if (o->align || o->nangles != 4) return 0;
    for (i = 0; i < 4; i++)
        if (fabs(o->angles[i] - 0.5 * UN_PI * i) > 1e-9) return 0;
    return 1;
}

/* Work done by a packer and its side search (and the side search's own),
 * in collision-free regions computed; contact scores count at what they
 * cost, CONTACT_PAIRS edge pairs compared for one region. */
static double total_work(const un_packer *pk)
{
    return (double)pk->E.work + (double)pk->E.touch.pairs / CONTACT_PAIRS +
           (pk->side ? total_work(pk->side) : 0);
}

/* Is the next move the side search's?  When its share of the work done by
 * both is below its due. */
int un_pk_side_turn(const un_packer *pk)
{
    const un_packer *sub = pk->side;
    double share;
    if (!sub) return 0;
    share = sub->best_L <= pk->main_L ? SIDE_AHEAD : sub->best_L <= SIDE_CLOSE * pk->main_L ? SIDE_NEAR : SIDE_FAR;
    return total_work(sub) * (1 - share) < share * (double)pk->E.work;
}

static un_status adopt_side(un_packer *pk, int *improved)
{
    const un_packer *sub = pk->side;
    if (!sub->have_best || sub->best_L >= pk->best_L) return UN_OK;
    return un_pk_keep_layout(pk, sub->best, sub->best_L, improved);
}

/* Vertices of the annealed islands' shapes (their contact scores cost
 * about the square of the vertices near each candidate point). */
static int64_t annealed_vertices(const un_engine *E)
{
    int64_t n = 0;
    int32_t i;
    for (i = 0; i < E->nanneal; i++) n += un_frings_npts(&E->isl[E->seq[i]].shape);
    return n;
}

/* Few enough islands, and vertices, for the contact search?  For the
 * aligned search (`aligned`)? */
static int contact_affordable(const un_engine *E, int aligned)
{
    return E->n <= CONTACT_MAX && annealed_vertices(E) <= (aligned ? ALIGNED_VERTS : CONTACT_VERTS);
}

/* Share of the islands' area in islands that lie straight as given: an
 * edge among their candidates' directions (orient.c) already on an axis. */
static double straight_share(const un_engine *E)
{
    double straight = 0, total = 0;
    int32_t i, c;
    for (i = 0; i < E->n; i++) {
        const un_island *is = E->isl + i;
        total += is->area;
        for (c = 0; c < UN_CANDIDATES; c++) {
            double r = remainder(is->cand[c], 0.5 * UN_PI);
            if (fabs(r) <= STRAIGHT_TOLERANCE) { straight += is->area; break; }
        }
    }
    return total > 0 ? straight / total : 0;
}

int un_pk_side_kind(const un_packer *pk)
{
    const un_engine *E = &pk->E;
    if (pk->opt.fixed_scale > 0 || pk->opt.box || E->n > BISECT_AT_START) return SIDE_NONE;
    /* rotation any: islands mostly straight as given get the as-given
     * search, its contact search and below that (few islands) the aligned
     * search; islands mostly turned get the aligned search */
    if (E->contact) return pk->aligned_next && E->n <= ALIGNED_MAX && contact_affordable(E, 1) ? SIDE_ALIGNED : SIDE_NONE;
    if (pk->opt.align && straight_share(E) < STRAIGHT_SHARE && contact_affordable(E, 1)) return SIDE_ALIGNED;
    if (pk->opt.align) return SIDE_AS_GIVEN;
    return (E->at_vertices || is_quarter_turns(&pk->opt)) && contact_affordable(E, 0) ? SIDE_CONTACT : SIDE_NONE;
}

/* A packer of its own over the same islands (and locked islands) with
 * options o, not started. */
un_status un_pk_new_sub_packer(const un_packer *pk, const un_pack_options *o, un_packer **out)
{
    const un_engine *E = &pk->E;
    un_packer *sub;
    int32_t k;
    un_status s = un_packer_new(o, &sub);
    *out = NULL;
    if (s != UN_OK) return s;
    sub->no_boxes = 1;   /* only the packer the caller made tries boxes */
    /* a chain's side search draws from the chain's stream */
    sub->stream = pk->stream;
    un_rng_seed(&sub->rng, o->seed, sub->stream);
    for (k = 0; k < E->n && s == UN_OK; k++) s = un_packer_add_island(sub, &E->isl[k].outline, E->isl[k].area);
    /* locked islands: already relative to the target's corner */
    if (s == UN_OK && E->nlocked) s = UN_RESERVE(sub->E.locked, sub->cap_locked, E->nlocked);
    for (k = 0; k < E->nlocked && s == UN_OK; k++) {
        s = un_frings_copy(sub->E.locked + k, E->locked + k);
        sub->E.nlocked++;   /* counted even if the copy failed: freed with sub */
    }
    if (s != UN_OK) {
        un_packer_free(sub);
        return s;
    }
    *out = sub;
    return UN_OK;
}

/* Start the side search, on the first move, so that it never delays the
 * first layout (the as-given search's start is a whole second start: on
 * dense meshes it took 40 % of the first layout's time). */
un_status un_pk_start_side(un_packer *pk, volatile int *cancel, int *improved)
{
    const double as_given = 0;
    un_pack_options o = pk->opt;
    un_packer *sub = pk->side_pending;
    int32_t kind = un_pk_side_kind(pk);
    un_status s;
    if (kind == SIDE_NONE) { pk->side_started = 1; return UN_OK; }
    if (!sub) {
        if (kind != SIDE_CONTACT) {
            o.nangles = 1;
            o.angles = &as_given;
            o.flip = 0;
        }
        /* the aligned search: each island's base and candidates */
        o.align = kind == SIDE_ALIGNED;
        o.cache_bytes = SIDE_CACHE_SHARE * pk->opt.cache_bytes;
        if ((s = un_pk_new_sub_packer(pk, &o, &sub)) != UN_OK) return s;
        sub->E.contact = kind != SIDE_AS_GIVEN;
        sub->aligned_next = kind == SIDE_AS_GIVEN || (kind == SIDE_CONTACT && pk->aligned_next);
        pk->side_pending = sub;
    }
    /* cancelled: its start goes on on the next move, unless it is the
     * aligned search and has cost too much already: then there is none */
    s = un_packer_start(sub, cancel);
    if (s == UN_ECANCELLED && !(sub->E.contact && sub->opt.align && sub->E.touch.pairs > ALIGNED_START_PAIRS))
        return s;
    pk->side_pending = NULL;
    pk->side_started = 1;
    if (s == UN_ECANCELLED) {
        un_packer_free(sub);
        return UN_OK;
    }
    if (s != UN_OK) {
        un_packer_free(sub);
        /* islands that fit only turned: no as-given search */
        return s == UN_ENOFIT ? UN_OK : s;
    }
    un_nfpcache_set_budget(pk->E.ws.cache, (size_t)((1 - SIDE_CACHE_SHARE) * pk->opt.cache_bytes));
    pk->side = sub;
    return adopt_side(pk, improved);
}

/* One move of the side search. */
un_status un_pk_side_move(un_packer *pk, volatile int *cancel, int *improved)
{
    int better = 0;
    un_status s = un_packer_run(pk->side, 1, cancel, &better);
    return s == UN_OK && better ? adopt_side(pk, improved) : s;
}
