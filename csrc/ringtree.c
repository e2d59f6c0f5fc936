/*
 * ringtree.c - a box tree over the edges of one ring, for the questions
 * outline.c asks of a face with very many corners: does the ring cross
 * itself, and where does a point lie?
 *
 * Both answers only involve edges whose boxes meet a query box (the other
 * edge of a crossing, the edges a horizontal ray from the point can cross),
 * and edges in ring order make a tree of small boxes.  For the faces of
 * real meshes that is O(m log m) for the crossing test and O(log m) plus
 * the crossings per point; a scan over all pairs took minutes on a single
 * 300,000-corner OBJ face.  The answers are those of the scans: the same
 * exact predicates on the same edges, minus edges that cannot change them.
 */
#include "internal.h"

static void ring_edge_box(const void *ctx, int32_t i, un_box *b)
{
    const un_ringtree *rt = (const un_ringtree *)ctx;
    *b = un_box_of_segment(rt->p[i], rt->p[(i + 1) % rt->m]);
}

un_status un_ringtree_build(un_ringtree *rt, const un_pt *p, int32_t m)
{
    rt->p = p;
    rt->m = m;
    return un_boxtree_build(&rt->tree, m, ring_edge_box, rt);
}

void un_ringtree_free(un_ringtree *rt)
{
    un_boxtree_free(&rt->tree);
}

static int proper_crossing(un_pt a, un_pt b, un_pt c, un_pt d)
{
    return un_orient(a, b, c) * un_orient(a, b, d) < 0 && un_orient(c, d, a) * un_orient(c, d, b) < 0;
}

/* Rings of up to this many corners are scanned pair by pair: cheaper than
 * building a tree for the quads and small n-gons of most meshes. */
#define SCAN_MAX 32

/* Does edge i cross one of the edges first .. end - 1 that comes after it
 * (j > i + 1) and is not its neighbour (edge m - 1 is edge 0's)?  Each
 * pair is tested once, from its first edge. */
static int crosses_later(const un_pt *p, int32_t m, int32_t i, int32_t first, int32_t end)
{
    un_pt a = p[i], b = p[(i + 1) % m];
    int32_t j;
    for (j = first > i + 2 ? first : i + 2; j < end; j++) {
        if ((j + 1) % m == i) continue;   /* the edge before i: adjacent */
        if (proper_crossing(a, b, p[j], p[(j + 1) % m])) return 1;
    }
    return 0;
}

static int tree_crosses_itself(const un_ringtree *rt)
{
    int32_t i, first, end;
    for (i = 0; i < rt->m; i++) {
        un_box q = un_box_of_segment(rt->p[i], rt->p[(i + 1) % rt->m]);
        un_boxwalk w;
        un_boxwalk_begin(&w, &rt->tree, &q);
        while (un_boxwalk_next(&w, &first, &end))
            if (crosses_later(rt->p, rt->m, i, first, end)) return 1;
    }
    return 0;
}

un_status un_ring_crosses_itself(const un_pt *p, int32_t m, int *crossing)
{
    un_ringtree rt;
    int32_t i;
    *crossing = 0;
    if (m <= SCAN_MAX) {
        for (i = 0; i < m && !*crossing; i++) *crossing = crosses_later(p, m, i, 0, m);
        return UN_OK;
    }
    if (un_ringtree_build(&rt, p, m) != UN_OK) return UN_ENOMEM;
    *crossing = tree_crosses_itself(&rt);
    un_ringtree_free(&rt);
    return UN_OK;
}

int un_ringtree_locate(const un_ringtree *rt, un_pt q)
{
    un_rpt at;
    un_box row;
    un_boxwalk w;
    int32_t first, end, j;
    int in = 0;
    at.base = q;
    at.dx = at.dy = at.n = 0;
    at.d = 1;
    /* only edges whose y range holds q.y can cross the ray or hold q */
    row.lx = INT64_MIN;
    row.hx = INT64_MAX;
    row.ly = row.hy = q.y;
    un_boxwalk_begin(&w, &rt->tree, &row);
    while (un_boxwalk_next(&w, &first, &end))
        for (j = first; j < end; j++) {
            int step = un_rpt_edge_step(rt->p[j], rt->p[(j + 1) % rt->m], &at, (double)q.y);
            if (step < 0) return -1;
            in ^= step;
        }
    return in;
}
