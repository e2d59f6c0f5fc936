/*
 * simplering.c - are a polygon's rings simple and apart?
 *
 * The reduced convolution (minkowski.c) needs every edge of an operand to
 * have the operand's inside just on its left.  That holds when each ring is
 * simple and no two rings meet: nesting then decides the orientation of
 * every ring.  Rings that cross, touch or run back over themselves (which
 * rounding a rotated outline to the grid can produce) fail this test and
 * are summed by the full convolution, whose winding numbers need nothing.
 *
 * Edges are numbered in ring order, so a box tree over ranges of them is
 * tight; each edge is tested against the edges after it whose boxes meet
 * its own.  Exact: integer orientation tests only.
 */
#include "internal.h"

typedef struct {
    const un_rings *r;
    int32_t        *ring;   /* ring of each edge (edge e starts at point e) */
} edge_set;

static un_pt edge_end(const edge_set *s, int32_t e)
{
    int32_t k = s->ring[e];
    return s->r->pts[e + 1 < s->r->start[k + 1] ? e + 1 : s->r->start[k]];
}

static void edge_box(const void *ctx, int32_t e, un_box *b)
{
    const edge_set *s = (const edge_set *)ctx;
    *b = un_box_of_segment(s->r->pts[e], edge_end(s, e));
}

/* Is c on the closed segment ab, given that the three are collinear? */
static int on_segment(un_pt a, un_pt b, un_pt c)
{
    return (a.x < b.x ? a.x <= c.x && c.x <= b.x : b.x <= c.x && c.x <= a.x) &&
           (a.y < b.y ? a.y <= c.y && c.y <= b.y : b.y <= c.y && c.y <= a.y);
}

/* Do the closed segments ab and cd share a point? */
static int segments_meet(un_pt a, un_pt b, un_pt c, un_pt d)
{
    int o1 = un_orient(a, b, c), o2 = un_orient(a, b, d);
    int o3 = un_orient(c, d, a), o4 = un_orient(c, d, b);
    if (o1 * o2 < 0 && o3 * o4 < 0) return 1;
    return (o1 == 0 && on_segment(a, b, c)) || (o2 == 0 && on_segment(a, b, d)) ||
           (o3 == 0 && on_segment(c, d, a)) || (o4 == 0 && on_segment(c, d, b));
}

/* Edges e and f (e < f) of the same ring that follow each other: they share
 * exactly one end.  Returns 1 when that end is f's start, -1 when it is e's
 * start (f closes the ring), 0 when they are not neighbours. */
static int neighbours(const edge_set *s, int32_t e, int32_t f)
{
    int32_t k = s->ring[e];
    if (s->ring[f] != k) return 0;
    if (f == e + 1) return 1;
    if (e == s->r->start[k] && f == s->r->start[k + 1] - 1) return -1;
    return 0;
}

/* Neighbouring edges p->q->t: do they overlap beyond their shared point q
 * (a spike running back along itself)? */
static int spike(un_pt p, un_pt q, un_pt t)
{
    return un_orient(p, q, t) == 0 && (q.x - p.x) * (t.x - q.x) + (q.y - p.y) * (t.y - q.y) < 0;
}

static int edges_clash(const edge_set *s, int32_t e, int32_t f)
{
    un_pt a = s->r->pts[e], b = edge_end(s, e), c = s->r->pts[f], d = edge_end(s, f);
    int nb = neighbours(s, e, f);
    if (nb > 0) return spike(a, b, d);
    if (nb < 0) return spike(c, d, b);
    return segments_meet(a, b, c, d);
}

un_status un_rings_simple(const un_rings *r, int *simple)
{
    edge_set s;
    un_boxtree t;
    int32_t n = un_rings_npts(r), k, e;
    un_status st;
    *simple = 1;
    for (k = 0; k < r->nrings; k++)
        if (r->start[k + 1] - r->start[k] < 3) *simple = 0;
    if (!*simple || n == 0) return UN_OK;
    s.r = r;
    s.ring = (int32_t *)malloc((size_t)n * sizeof *s.ring);
    if (!s.ring) return UN_ENOMEM;
    for (k = 0; k < r->nrings; k++)
        for (e = r->start[k]; e < r->start[k + 1]; e++) s.ring[e] = k;
    memset(&t, 0, sizeof t);
    st = un_boxtree_build(&t, n, edge_box, &s);
    for (e = 0; st == UN_OK && e < n && *simple; e++) {
        un_boxwalk w;
        un_box q;
        int32_t f0, f1, f;
        edge_box(&s, e, &q);
        un_boxwalk_begin(&w, &t, &q);
        while (*simple && un_boxwalk_next(&w, &f0, &f1))
            for (f = f0 > e + 1 ? f0 : e + 1; f < f1; f++)
                if (edges_clash(&s, e, f)) { *simple = 0; break; }
    }
    un_boxtree_free(&t);
    free(s.ring);
    return st;
}
