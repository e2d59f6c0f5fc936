/*
 * triangulate.c - ear clipping of a weakly simple ring.
 *
 * Used to decompose islands into convex pieces (triangles) for the exact
 * point-in-no-fit-polygon test of minkowski.c.  The ring is one component
 * from bridge.c (holes spliced in), counter-clockwise, on the integer grid.
 *
 * A vertex b with neighbours a, c is an ear when a-b-c turns left and no
 * other vertex lies inside or on the triangle; vertices at the same position
 * as a, b or c (the two ends of a slit) are not counted.  When a full pass
 * finds no ear, a vertex with zero turn is dropped (it adds no area); if
 * none exists the ring is not weakly simple and UN_EINVAL is returned, and
 * the caller falls back to its conservative answer.
 */
#include "internal.h"

#include <string.h>

static int in_or_on_triangle(un_pt a, un_pt b, un_pt c, un_pt p)
{
    return un_orient(a, b, p) >= 0 && un_orient(b, c, p) >= 0 && un_orient(c, a, p) >= 0;
}

/* The ring's vertices bucketed by a uniform grid over their bounding box,
 * so that an ear test looks only at the vertices near its triangle: ear
 * clipping stays near-linear on rings of a million vertices. */
typedef struct {
    int64_t  x0, y0, w, h;     /* bounding box: origin and size + 1 */
    int32_t  g;                /* cells per side */
    int32_t *start;            /* per cell: first item (g * g + 1 entries) */
    int32_t *item;             /* vertex ids, by cell */
    int8_t  *alive;            /* per vertex: not clipped yet */
} vertex_grid;

static int32_t cell_x(const vertex_grid *G, int64_t x)
{
    int64_t c = (x - G->x0) * G->g / G->w;
    return (int32_t)(c < 0 ? 0 : c >= G->g ? G->g - 1 : c);
}

static int32_t cell_y(const vertex_grid *G, int64_t y)
{
    int64_t c = (y - G->y0) * G->g / G->h;
    return (int32_t)(c < 0 ? 0 : c >= G->g ? G->g - 1 : c);
}

static void grid_free(vertex_grid *G)
{
    free(G->start);
    free(G->item);
    free(G->alive);
}

static un_status grid_build(vertex_grid *G, const un_pt *p, int32_t n)
{
    int64_t x1 = p[0].x, y1 = p[0].y;
    int32_t i, cells;
    G->x0 = p[0].x;
    G->y0 = p[0].y;
    for (i = 1; i < n; i++) {
        if (p[i].x < G->x0) G->x0 = p[i].x;
        if (p[i].y < G->y0) G->y0 = p[i].y;
        if (p[i].x > x1) x1 = p[i].x;
        if (p[i].y > y1) y1 = p[i].y;
    }
    /* coordinates are below 2^30 in magnitude and g below 2^12: no overflow */
    G->w = x1 - G->x0 + 1;
    G->h = y1 - G->y0 + 1;
    for (G->g = 1; G->g < 4096 && (int64_t)G->g * G->g * 2 < n; G->g *= 2) {}
    cells = G->g * G->g;
    G->start = (int32_t *)calloc((size_t)cells + 1, sizeof *G->start);
    G->item = (int32_t *)malloc((size_t)n * sizeof *G->item);
    G->alive = (int8_t *)malloc((size_t)n);
    if (!G->start || !G->item || !G->alive) return UN_ENOMEM;
    for (i = 0; i < n; i++) G->start[cell_y(G, p[i].y) * G->g + cell_x(G, p[i].x) + 1]++;
    for (i = 0; i < cells; i++) G->start[i + 1] += G->start[i];
    for (i = 0; i < n; i++) {
        int32_t c = cell_y(G, p[i].y) * G->g + cell_x(G, p[i].x);
        G->item[G->start[c]++] = i;
        G->alive[i] = 1;
    }
    for (i = cells; i > 0; i--) G->start[i] = G->start[i - 1];   /* back to cell starts */
    G->start[0] = 0;
    return UN_OK;
}

/* b (between a and c) is an ear when a-b-c turns left and no other live
 * vertex lies inside or on the triangle (vertices at the position of a, b or
 * c, the ends of a slit, do not count). */
static int is_ear(const un_pt *p, const vertex_grid *G, int32_t a, int32_t b, int32_t c)
{
    un_pt pa = p[a], pb = p[b], pc = p[c];
    int64_t lx = pa.x < pb.x ? pa.x : pb.x, hx = pa.x > pb.x ? pa.x : pb.x;
    int64_t ly = pa.y < pb.y ? pa.y : pb.y, hy = pa.y > pb.y ? pa.y : pb.y;
    int32_t cx, cy, cx1, cy1, k;
    if (un_orient(pa, pb, pc) <= 0) return 0;
    lx = pc.x < lx ? pc.x : lx; hx = pc.x > hx ? pc.x : hx;
    ly = pc.y < ly ? pc.y : ly; hy = pc.y > hy ? pc.y : hy;
    cx1 = cell_x(G, hx);
    cy1 = cell_y(G, hy);
    for (cy = cell_y(G, ly); cy <= cy1; cy++)
        for (cx = cell_x(G, lx); cx <= cx1; cx++) {
            int32_t cell = cy * G->g + cx;
            for (k = G->start[cell]; k < G->start[cell + 1]; k++) {
                int32_t v = G->item[k];
                un_pt q = p[v];
                if (!G->alive[v] || v == a || v == b || v == c) continue;
                if (q.x < lx || q.x > hx || q.y < ly || q.y > hy) continue;
                if (un_pt_cmp(q, pa) == 0 || un_pt_cmp(q, pb) == 0 || un_pt_cmp(q, pc) == 0) continue;
                if (in_or_on_triangle(pa, pb, pc, q)) return 0;
            }
        }
    return 1;
}

un_status un_triangulate(const un_pt *p, int32_t n, int32_t **tri, int32_t *ntri, int32_t *cap)
{
    int32_t *prev, *next, left = n, cur, scanned = 0, i;
    vertex_grid G;
    un_status s = UN_OK;
    *ntri = 0;
    if (n < 3) return UN_OK;
    memset(&G, 0, sizeof G);
    prev = (int32_t *)malloc((size_t)n * sizeof *prev);
    next = (int32_t *)malloc((size_t)n * sizeof *next);
    if (!prev || !next || (s = grid_build(&G, p, n)) != UN_OK) {
        free(prev); free(next); grid_free(&G);
        return UN_ENOMEM;
    }
    for (i = 0; i < n; i++) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
    }
    cur = 0;
    while (left > 3) {
        if (is_ear(p, &G, prev[cur], cur, next[cur])) {
            if ((s = un_reserve((void **)tri, cap, 3 * ((int64_t)*ntri + 1), sizeof **tri)) != UN_OK) break;
            (*tri)[3 * *ntri] = prev[cur];
            (*tri)[3 * *ntri + 1] = cur;
            (*tri)[3 * *ntri + 2] = next[cur];
            (*ntri)++;
        } else if (scanned < left) {
            cur = next[cur];
            scanned++;
            continue;
        } else {
            /* no ear in a full pass: drop a vertex that adds no area */
            int32_t v = cur, k;
            for (k = 0; k < left; k++, v = next[v])
                if (un_orient(p[prev[v]], p[v], p[next[v]]) == 0) break;
            if (k == left) { s = UN_EINVAL; break; }
            cur = v;
        }
        next[prev[cur]] = next[cur];
        prev[next[cur]] = prev[cur];
        G.alive[cur] = 0;
        cur = next[cur];
        left--;
        scanned = 0;
    }
    if (s == UN_OK && left == 3 && un_orient(p[prev[cur]], p[cur], p[next[cur]]) > 0) {
        if ((s = un_reserve((void **)tri, cap, 3 * ((int64_t)*ntri + 1), sizeof **tri)) == UN_OK) {
            (*tri)[3 * *ntri] = prev[cur];
            (*tri)[3 * *ntri + 1] = cur;
            (*tri)[3 * *ntri + 2] = next[cur];
            (*ntri)++;
        }
    }
    free(prev);
    free(next);
    grid_free(&G);
    return s;
}
