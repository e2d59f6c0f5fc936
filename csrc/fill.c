/*
 * fill.c - the fillers: the small islands after the annealed prefix, each
 * at its leftmost free point, found by scanning the container in windows
 * so that each collision-free region only involves the islands near one
 * window (an index of placed islands by grid cell finds them).
 */
#include "decode.h"

#include <math.h>

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

/* The windows of the start's last quick fill (one container), kept for a
 * fill that goes on where it stopped in a larger container with the same
 * inflation and corner (scale_search.c, fill_resumes_at): its windows
 * are where they were, and what failed there still fails, but in windows
 * that the old container's edge cut (within the largest box of the
 * islands still to place), which the larger container widens.  Without
 * them every window was tried anew until it failed WINDOW_DEAD times:
 * 100,000 triangles at margin 0.001, 6,000 islands in 15 s after a
 * resume against 51,000 in 22 s in the first pass; kept, 2,000 to 5,000
 * islands in 0.7 to 2.4 s.  Kept only where new windows would be no finer
 * (WINDOW_MAX across both times): finer windows, made for the smaller
 * islands left, place them closer to the leftmost point (synthetic-1,000:
 * coverage 0.436 with new windows, 0.410 with the kept ones). */
struct un_fill_memo {
    windows wd;
    un_pt   clo, chi;    /* the container they were made for */
    int32_t epoch;       /* and its inflation */
};

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

/* Windows per side: about WINDOW_FILLERS typical fillers across. */
static int32_t window_count(const un_engine *E, const filler *F)
{
    int64_t side = E->chi.x - E->clo.x, g = side / (WINDOW_FILLERS * (F->size > 0 ? F->size : 1)) + 1;
    return (int32_t)(g < WINDOW_MIN ? WINDOW_MIN : g > WINDOW_MAX ? WINDOW_MAX : g);
}

/* Container `bin`'s state: cells of 1/FILL_CELLS of the container; windows
 * about WINDOW_FILLERS times the typical filler across (WINDOW_MIN to
 * WINDOW_MAX per side). */
static un_status bin_state(un_engine *E, filler *F, int32_t bin, bin_fill **out)
{
    bin_fill *b = F->bins + bin;
    int32_t g = FILL_CELLS, i;
    un_status s;
    *out = b;
    if (b->ready) return UN_OK;
    b->ready = 1;
    b->ci.g = g;
    b->ci.cw = (E->chi.x - E->clo.x) / g + 1;
    b->ci.ch = (E->chi.y - E->clo.y) / g + 1;
    if ((s = UN_RESERVE(b->ci.head, b->ci.cap_head, (int64_t)g * g)) != UN_OK) return s;
    if ((s = UN_RESERVE(b->ci.stamp, b->ci.cap_stamp, E->n)) != UN_OK) return s;
    for (i = 0; i < g * g; i++) b->ci.head[i] = -1;
    memset(b->ci.stamp, 0, (size_t)E->n * sizeof *b->ci.stamp);
    if (b->wd.g > 0) return UN_OK;   /* kept from the last fill (kept_windows) */
    b->wd.g = window_count(E, F);
    b->wd.ww = (E->chi.x - E->clo.x) / b->wd.g + 1;
    b->wd.wh = (E->chi.y - E->clo.y) / b->wd.g + 1;
    if ((s = UN_RESERVE(b->wd.fail, b->wd.cap_fail, 3 * (int64_t)b->wd.g * b->wd.g)) != UN_OK) return s;
    for (i = 0; i < b->wd.g * b->wd.g; i++) {
        b->wd.fail[3 * i] = b->wd.fail[3 * i + 1] = -1;
        b->wd.fail[3 * i + 2] = 0;
    }
    return UN_OK;
}

void un_fill_memo_free(un_engine *E)
{
    if (E->fill_memo) free(E->fill_memo->wd.fail);
    free(E->fill_memo);
    E->fill_memo = NULL;
}

/* The kept windows for a fill going on from position `from`, in F's one
 * container (the old ones where they were, new ones beyond; records
 * cleared where the old edge cut a window, see un_fill_memo). */
static un_status kept_windows(un_engine *E, filler *F, int32_t from)
{
    struct un_fill_memo *m = E->fill_memo;
    windows *wd = &F->bins[0].wd;
    int64_t reach = 0, *fail;
    int32_t g, c, r, p, cap = 0;
    if (!m || m->epoch != E->epoch || m->clo.x != E->clo.x || m->clo.y != E->clo.y || m->chi.x > E->chi.x ||
        m->chi.y > E->chi.y)
        return UN_OK;
    /* only where new windows would be no finer (see un_fill_memo) */
    if (window_count(E, F) > m->wd.g) return UN_OK;
    for (p = from; p < E->n; p++) {
        un_pt lo, hi;
        int32_t k = E->seq[p];
        un_infl_box(E, k, un_orientation_of(E, E->par[3 * k]), 0, &lo, &hi);
        if (hi.x - lo.x > reach) reach = hi.x - lo.x;
        if (hi.y - lo.y > reach) reach = hi.y - lo.y;
    }
    g = (int32_t)((E->chi.x - E->clo.x) / m->wd.ww + 1);
    c = (int32_t)((E->chi.y - E->clo.y) / m->wd.wh + 1);
    if (c > g) g = c;
    if (g < m->wd.g) g = m->wd.g;
    fail = NULL;
    if (un_reserve((void **)&fail, &cap, 3 * (int64_t)g * g, sizeof *fail) != UN_OK) return UN_ENOMEM;
    for (c = 0; c < g; c++)
        for (r = 0; r < g; r++) {
            int64_t *fw = fail + 3 * ((int64_t)c * g + r);
            int64_t x1 = E->clo.x + (c + 1) * m->wd.ww, y1 = E->clo.y + (r + 1) * m->wd.wh;
            int cut = x1 > m->chi.x - reach || y1 > m->chi.y - reach;
            if (c < m->wd.g && r < m->wd.g && !cut) {
                memcpy(fw, m->wd.fail + 3 * ((int64_t)c * m->wd.g + r), 3 * sizeof *fw);
            } else {
                fw[0] = fw[1] = -1;
                fw[2] = 0;
            }
        }
    wd->g = g;
    wd->ww = m->wd.ww;
    wd->wh = m->wd.wh;
    wd->fail = fail;
    wd->cap_fail = cap;
    return UN_OK;
}

/* Keep the windows of a quick fill of the start (one container) for one
 * that goes on from where it stopped; they pass to E->fill_memo. */
static un_status keep_windows(un_engine *E, filler *F)
{
    windows *wd = &F->bins[0].wd;
    if (!E->fill_memo && !(E->fill_memo = (struct un_fill_memo *)calloc(1, sizeof *E->fill_memo)))
        return UN_ENOMEM;
    free(E->fill_memo->wd.fail);
    E->fill_memo->wd = *wd;
    E->fill_memo->clo = E->clo;
    E->fill_memo->chi = E->chi;
    E->fill_memo->epoch = E->epoch;
    wd->fail = NULL;
    wd->g = 0;
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
un_status un_fill_bin(un_engine *E, filler *F, int32_t p, int32_t k, int32_t o, int32_t bin, int *found)
{
    bin_fill *b;
    windows *wd;
    int32_t c, r;
    un_pt ilo, ihi, klo, khi, best = {0, 0};
    int64_t kw, kh;
    int have = 0;
    un_status s;
    *found = 0;
    if (!un_island_ifp(E, k, o, 0, &ilo, &ihi)) return UN_OK;
    if ((s = bin_state(E, F, bin, &b)) != UN_OK) return s;
    wd = &b->wd;
    un_infl_box(E, k, o, 0, &klo, &khi);
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
            if ((fw[2] >= WINDOW_DEAD && E->bins.nbins_max == 0) ||
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
            rq = un_place_request(p, k, o, 0, bin, wlo, whi);
            rq.cand = b->ci.cand;
            rq.nc = nc;
            if ((s = un_try_place(E, &rq, &out)) != UN_OK) return s;
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
    un_record_place(E, p, k, o, 0, bin, best);
    *found = 1;
    return index_add(&b->ci, E, p);
}

/* A filler position: with one container the leftmost free point there, with
 * several the containers in the order annealed islands try them. */
static un_status place_filler(un_engine *E, filler *F, int32_t p)
{
    int32_t k = E->seq[p], o = un_orientation_of(E, E->par[3 * k]);
    int found;
    E->pl[p].placed = 0;
    if (E->bins.nbins_max > 0) return un_place_in_bins(E, F, p, k, o, 0, 0);
    return un_fill_bin(E, F, p, k, o, 0, &found);
}

un_status un_fill(un_engine *E, int32_t from, int32_t to)
{
    filler F;
    int32_t p;
    /* the start's quick fills, one container: their windows are kept */
    int start_fill = E->fill_quick && E->fill_stop && E->bins.nbins_max == 0;
    un_status s = UN_OK;
    F.nbins = E->bins.nbins_max > 0 ? E->bins.nbins_max : 1;
    if (!(F.bins = (bin_fill *)calloc((size_t)F.nbins, sizeof *F.bins))) return UN_ENOMEM;
    /* windows sized for the typical (median) filler */
    {
        un_pt lo, hi;
        un_infl_box(E, E->seq[from + (to - from) / 2], 0, 0, &lo, &hi);
        F.size = (hi.x - lo.x) > (hi.y - lo.y) ? hi.x - lo.x : hi.y - lo.y;
    }
    /* a quick fill of the start going on where the last one stopped */
    if (start_fill && from > E->nanneal) s = kept_windows(E, &F, from);
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
    if (s == UN_OK && start_fill && F.bins[0].wd.g > 0) s = keep_windows(E, &F);
    for (p = 0; p < F.nbins; p++) bin_fill_free(F.bins + p);
    free(F.bins);
    return s;
}
