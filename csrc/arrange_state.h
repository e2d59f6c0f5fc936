/*
 * arrange_state.h - the state an arrangement (arrange.c) shares between the
 * files of its stages; not part of any interface.
 *
 *   arrange.c           the workspace, the driver (un_arr_run) and segments
 *   arrange_merge.c     1. collinear overlapping segments merged into pieces
 *   arrange_pairs.c     2. candidate pairs of pieces from a uniform grid
 *   arrange_vertices.c  3. events on each piece, vertices identified exactly
 *   arrange_winding.c   4. half-edges around vertices, winding numbers
 *                       (4b: the faces of a reduced convolution)
 *   arrange_trace.c     5. the selected half-edges chained into loops
 */
#ifndef UVNEST_ARRANGE_STATE_H
#define UVNEST_ARRANGE_STATE_H

#include "internal.h"

/* tag of a merged piece whose input segments bound different solids */
#define TAG_MIXED (-2)

typedef struct {
    un_pt   lo, hi;
    int64_t ux, uy, c;     /* reduced direction and line offset (line key) */
    int32_t fs, bs, fc, bc;
    int32_t tag;
} cseg;

typedef struct {
    un_pt   lo, hi;
    int32_t fs, bs, fc, bc;
    int32_t tag;           /* the solid its solid segments bound, or TAG_MIXED */
} mseg;

typedef struct {
    int64_t s;             /* position along the line */
    un_pt   p;
    int32_t fs, bs, fc, bc; /* signed changes at this position */
    int32_t tag;
} lev;

typedef struct {
    int64_t n, d;          /* parameter n/d in [0, 1] along the piece */
    int32_t node;
} inc;

typedef struct {
    int64_t np, nq, d;     /* a crossing: t = np/d on piece p, nq/d on q */
} hit;

struct un_arr {
    cseg    *cs;    int32_t cap_cs;
    int32_t *ord;   int32_t cap_ord;
    int32_t *tmp;   int32_t cap_tmp;
    lev     *lv;    int32_t cap_lv;
    int32_t *act;   int32_t cap_act;     /* (tag, count) of solids active on a line */
    mseg    *ms;    int32_t cap_ms;  int32_t nms;
    /* grid */
    int32_t *cellcnt; int32_t cap_cellcnt;
    int32_t *cellit;  int32_t cap_cellit;
    int32_t *pairc;   int32_t cap_pairc;   /* (cell, seg) pairs, flattened */
    int64_t *cand;    int32_t cap_cand;
    hit     *hits;    int32_t cap_hits;    /* per candidate that meets */
    int32_t gx, gy;
    int64_t x0, y0, cx, cy;
    /* incidences */
    inc     *in;    int32_t cap_in;
    int32_t *inst;  int32_t cap_inst;
    int32_t *uf;    int32_t cap_uf;
    int32_t nev;
    /* vertices */
    int32_t  nv;
    int32_t *vid;   int32_t cap_vid;     /* node -> vertex */
    double  *vxy;   int32_t cap_vxy;     /* 2 per vertex */
    un_pt   *vpt;   int32_t cap_vpt;     /* exact point for input endpoints */
    int8_t  *vint;  int32_t cap_vint;
    int32_t *vinc;  int32_t cap_vinc;    /* an incidence at the vertex */
    int32_t *vseg;  int32_t cap_vseg;    /* the piece of that incidence */
    /* edges / half-edges */
    int32_t  ne;
    int32_t *eu;    int32_t cap_eu;      /* 2 per edge: tail vertex of 2e and of 2e+1 */
    int32_t *eseg;  int32_t cap_eseg;
    int32_t *einc;  int32_t cap_einc;    /* incidence of the edge's tail */
    int32_t *vst;   int32_t cap_vst;
    int32_t *vout;  int32_t cap_vout;
    int32_t *hpos;  int32_t cap_hpos;
    int32_t *wsl;   int32_t cap_wsl;     /* solid winding left of each half-edge */
    int32_t *wcl;   int32_t cap_wcl;
    int32_t *anchor; int32_t cap_anchor; /* per vertex: half-edge with known left winding */
    int32_t *queue; int32_t cap_queue;
    int32_t *comp;  int32_t cap_comp;
    int8_t  *sel;   int32_t cap_sel;     /* half-edge selected for the boundary */
    int32_t *stamp; int32_t cap_stamp;   /* per merged segment, for ray dedupe */
    int32_t *face;  int32_t cap_face;    /* per half-edge: the face on its left */
    int8_t  *fin;   int32_t cap_fin;     /* per face: inside the sum (RCONV) */
    int32_t  stampv;
    /* output */
    un_loop *loops; int32_t cap_loops; int32_t nloops;
    double  *oxy;   int32_t cap_oxy;
    un_pt   *opt;   int32_t cap_opt;
    int32_t  nout;
    un_select ran;   /* the selection the last run was asked for */
};

/* Direction of half-edge h (its piece reversed for odd h). */
static inline void hdir(const un_arr *w, int32_t h, int64_t *dx, int64_t *dy)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    *dx = s->hi.x - s->lo.x;
    *dy = s->hi.y - s->lo.y;
    if (h & 1) { *dx = -*dx; *dy = -*dy; }
}

static inline int32_t head(const un_arr *w, int32_t h) { return w->eu[h ^ 1]; }

/* Winding jumps (right to left) across half-edge h. */
static inline int32_t jump_s(const un_arr *w, int32_t h)
{
    const mseg *s = w->ms + w->eseg[h >> 1];
    return (h & 1) ? s->bs - s->fs : s->fs - s->bs;
}

/* The stages, in the order un_arr_run calls them. */
un_status un_ar_merge_collinear(un_arr *w, const un_seg *segs, int32_t n);
un_status un_ar_build_grid(un_arr *w);
un_status un_ar_find_candidates(un_arr *w, int32_t *ncand);
un_status un_ar_build_vertices(un_arr *w, int32_t ncand);
un_status un_ar_build_edges(un_arr *w);
un_status un_ar_propagate(un_arr *w);
un_status un_ar_classify_faces(un_arr *w, const un_verifier *vf);
un_status un_ar_select_edges(un_arr *w, un_select sel, const un_verifier *vf);
un_status un_ar_trace(un_arr *w);
un_status un_ar_isolated_points(un_arr *w, un_select sel, const un_verifier *vf);

#endif /* UVNEST_ARRANGE_STATE_H */
