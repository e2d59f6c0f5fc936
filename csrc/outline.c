/*
 * outline.c - the outline of an island: the union of its faces.
 *
 * Every face with non-zero area becomes a counter-clockwise ring (faces that
 * are clockwise, as in mirrored UVs, are reversed) and the union is traced
 * from the arrangement of all face edges (arrange.c, covered mode).  This is
 * robust to T-junctions, duplicate vertices and faces that overlap or fold:
 * the outline is the boundary of the set the faces cover.  Zero-area faces
 * cover nothing and are skipped.  Faces that touch only at a vertex give one
 * ring that touches itself there (a weakly simple ring).
 *
 * A self-intersecting face (a bow-tie quad, as at the poles of some sphere
 * unwraps) has no single meaning: its {winding != 0} lobes (what shapely's
 * make_valid keeps) or the triangles a renderer draws, which depend on the
 * diagonal it picks.  The outline takes a superset of all of these: a quad's
 * four corner triangles (both diagonals), an n-gon's fan from its first
 * corner (every point of non-zero winding lies in a fan triangle).
 *
 * Needles.  The outline of a packed island (un_geom_outlines) must hold every
 * UV of the island, or the final check validates a shape that misses parts
 * of the output.  A face thinner than the grid collapses onto a segment or a
 * point and has no area; a spike (a face doubling back on itself) loses its
 * tip when the ring is cleaned.  With `needles` set, such a face adds a strip
 * around each edge that reaches the lost part: the edge grown by one grid
 * unit on every side (a hexagon, a square for a point), so the union keeps
 * every snapped vertex and edge of every face.  Inside an island the strips
 * vanish in the union; sticking out, they cost two grid units of width.
 */
#include "internal.h"

#include <math.h>

/* Edge keys for cancelling: the segment's endpoints in (x, y) order and its
 * direction along that order. */
typedef struct {
    un_pt   lo, hi;
    int32_t dir;   /* +1: a = lo, -1: a = hi */
    int32_t seg;
} edge_key;

static int cmp_edge_key(const void *pa, const void *pb)
{
    const edge_key *a = (const edge_key *)pa, *b = (const edge_key *)pb;
    if (a->lo.x != b->lo.x) return a->lo.x < b->lo.x ? -1 : 1;
    if (a->lo.y != b->lo.y) return a->lo.y < b->lo.y ? -1 : 1;
    if (a->hi.x != b->hi.x) return a->hi.x < b->hi.x ? -1 : 1;
    if (a->hi.y != b->hi.y) return a->hi.y < b->hi.y ? -1 : 1;
    return a->seg < b->seg ? -1 : a->seg > b->seg;   /* stable: the result does not depend on qsort */
}

/* Drop pairs of equal segments of opposite direction: the edges two
 * neighbouring faces share.  Their winding contributions cancel exactly
 * (the covered set is {winding > 0} and each face adds its indicator), so
 * the union is unchanged while a large island keeps only about its boundary
 * edges for the arrangement.  Survivors keep their input order. */
static un_status cancel_shared_edges(un_seg *segs, int32_t *nseg)
{
    int32_t n = *nseg, i, j, m = 0;
    edge_key *key;
    int8_t *keep;
    if (n < 2) return UN_OK;
    key = (edge_key *)malloc((size_t)n * sizeof *key);
    keep = (int8_t *)malloc((size_t)n);
    if (!key || !keep) { free(key); free(keep); return UN_ENOMEM; }
    for (i = 0; i < n; i++) {
        int fwd = segs[i].a.x < segs[i].b.x || (segs[i].a.x == segs[i].b.x && segs[i].a.y < segs[i].b.y);
        key[i].lo = fwd ? segs[i].a : segs[i].b;
        key[i].hi = fwd ? segs[i].b : segs[i].a;
        key[i].dir = fwd ? 1 : -1;
        key[i].seg = i;
        keep[i] = 1;
    }
    qsort(key, (size_t)n, sizeof *key, cmp_edge_key);
    for (i = 0; i < n; i = j) {
        int32_t net = 0, k;
        for (j = i; j < n && key[j].lo.x == key[i].lo.x && key[j].lo.y == key[i].lo.y &&
                    key[j].hi.x == key[i].hi.x && key[j].hi.y == key[i].hi.y; j++)
            net += key[j].dir * segs[key[j].seg].ws;
        /* keep the first |net| segments of the winning direction; drop the rest */
        for (k = i; k < j; k++) {
            int32_t d = key[k].dir * segs[key[k].seg].ws;
            if (net != 0 && (d > 0) == (net > 0)) net -= d;
            else keep[key[k].seg] = 0;
        }
    }
    for (i = 0; i < n; i++)
        if (keep[i]) segs[m++] = segs[i];
    *nseg = m;
    free(key);
    free(keep);
    return UN_OK;
}

/* The arrangement rounds each crossing to the grid (half a unit each way):
 * a face narrower than this many units can lose what sticks out of its
 * neighbours, tip and all. */
#define THIN_WIDTH 4.0

/* Is cleaned face ring 0 (twice its area: area2) thinner than THIN_WIDTH?
 * Its width is at least area2 over its bounding box's diagonal. */
static int thin_face(const un_rings *face, double area2)
{
    un_pt lo, hi;
    un_rings_bbox(face, &lo, &hi);
    return fabs(area2) < THIN_WIDTH * hypot((double)(hi.x - lo.x), (double)(hi.y - lo.y));
}

/* Add triangle (a, b, c), counter-clockwise, unless it has no area (then,
 * with `needles`, the strips around its edges). */
static un_status add_triangle(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tri, un_pt a, un_pt b,
                              un_pt c, int32_t tag, int needles)
{
    un_pt t[3];
    int o = un_orient(a, b, c);
    if (o == 0) {
        if (!needles) return UN_OK;
        UN_TRY(un_segs_add_strip(segs, nseg, cap, tri, a, b, tag));
        UN_TRY(un_segs_add_strip(segs, nseg, cap, tri, b, c, tag));
        return un_segs_add_strip(segs, nseg, cap, tri, c, a, tag);
    }
    t[0] = a; t[1] = b; t[2] = c;
    un_rings_clear(tri);
    UN_TRY(un_rings_add(tri, t, 3));
    return un_segs_from_rings(segs, nseg, cap, tri, 1, 0, tag, o < 0);
}

/* The segments of a self-intersecting face (see the file comment). */
static un_status crossing_face(un_seg **segs, int32_t *nseg, int32_t *cap, un_rings *tri, const un_pt *p,
                               int32_t m, int32_t tag, int needles)
{
    int32_t i;
    if (m == 4) {
        for (i = 0; i < 4; i++)
            UN_TRY(add_triangle(segs, nseg, cap, tri, p[i], p[(i + 1) % 4], p[(i + 2) % 4], tag, needles));
        return UN_OK;
    }
    for (i = 1; i + 1 < m; i++) UN_TRY(add_triangle(segs, nseg, cap, tri, p[0], p[i], p[i + 1], tag, needles));
    return UN_OK;
}

un_status un_outline_rings(un_arr *w, const un_pt *pts, int32_t n, const int32_t *face_start,
                           int32_t nfaces, const int32_t *face_idx, int needles, un_rings *out,
                           int32_t *nsolid)
{
    un_seg *segs = NULL;
    un_pt *raw = NULL;
    int32_t nseg = 0, cap = 0, cap_raw = 0, f;
    int thin;
    un_rings face, tri, none;
    un_status s = UN_OK;
    un_rings_init(&face);
    un_rings_init(&tri);
    un_rings_init(&none);
    un_rings_clear(out);
    if (nsolid) *nsolid = 0;
    for (f = 0; f < nfaces && s == UN_OK; f++) {
        int32_t a = face_start[f], m = face_start[f + 1] - a, i;
        int crossing;
        double area;
        un_rings_clear(&face);
        if ((s = un_reserve((void **)&face.pts, &face.cap_pts, m, sizeof *face.pts)) != UN_OK) break;
        for (i = 0; i < m; i++) {
            int32_t v = face_idx[a + i];
            if (v < 0 || v >= n) { s = UN_EINVAL; break; }
            face.pts[i] = pts[v];
        }
        if (s != UN_OK) break;
        if ((s = un_ring_crosses_itself(face.pts, m, &crossing)) != UN_OK) break;
        if (crossing) {
            s = crossing_face(&segs, &nseg, &cap, &tri, face.pts, m, f, needles);
            continue;
        }
        if ((s = un_rings_add(&face, face.pts, m)) != UN_OK) break;
        if ((s = un_rings_clean(&face, 0)) != UN_OK) break;
        area = face.nrings ? un_ring_area2(&face, 0) : 0;
        if (area == 0) face.nrings = 0;
        /* corners lost to the clean, or a face so thin that the rounding
         * of the union's crossings can close what sticks out of the other
         * faces: strips around its edges (the raw corners stay in
         * face.pts[0..m) unless the clean kept all of them) */
        thin = face.nrings > 0 && thin_face(&face, area);
        if (needles && (face.nrings == 0 || face.start[1] < m || thin)) {
            if ((s = un_reserve((void **)&raw, &cap_raw, m, sizeof *raw)) != UN_OK) break;
            for (i = 0; i < m; i++) raw[i] = pts[face_idx[a + i]];
            if ((s = un_segs_add_lost_parts(&segs, &nseg, &cap, &tri, raw, m, thin ? &none : &face, f)) != UN_OK)
                break;
        }
        if (face.nrings == 0) continue;
        if (nsolid) ++*nsolid;
        s = un_segs_from_rings(&segs, &nseg, &cap, &face, 1, 0, f, area < 0);
    }
    if (s == UN_OK) s = cancel_shared_edges(segs, &nseg);
    if (s == UN_OK && nseg > 0) s = un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL);
    if (s == UN_OK && nseg > 0) {
        s = un_covered_loops(w, out);
        if (s == UN_OK) s = un_rings_clean(out, 0);
    }
    free(segs);
    free(raw);
    un_rings_free(&face);
    un_rings_free(&tri);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}

/* un_geom_outline, with needles kept as strips when `needles` is set;
 * *nsolid (may be NULL): how many faces have area on the grid. */
static un_status outline_on_grid(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                                 const int32_t *face_idx, int needles, un_frings *out, int32_t *nsolid)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
    un_grid g;
    un_pt *pts = NULL;
    un_rings res;
    un_arr *w = NULL;
    int32_t i;
    un_status s = UN_OK;
    un_frings_free(out);
    if (n < 0 || nfaces < 0) return UN_EINVAL;
    for (i = 0; i < face_start[nfaces]; i++)
        if (face_idx[i] < 0 || face_idx[i] >= n) return UN_EINVAL;
    for (i = 0; i < face_start[nfaces]; i++) {
        double x = uv[2 * face_idx[i]], y = uv[2 * face_idx[i] + 1];
        if (!isfinite(x) || !isfinite(y)) return UN_EINVAL;
        if (x < lo[0]) lo[0] = x;
        if (y < lo[1]) lo[1] = y;
        if (x > hi[0]) hi[0] = x;
        if (y > hi[1]) hi[1] = y;
    }
    if ((s = un_grid_fit(&g, lo[0], lo[1], hi[0], hi[1], 0)) != UN_OK) return s;
    un_rings_init(&res);
    pts = (un_pt *)malloc((size_t)(n > 0 ? n : 1) * sizeof *pts);
    if (!pts || !(w = un_workspace_new())) { s = UN_ENOMEM; goto done; }
    for (i = 0; i < n; i++) {
        double x = uv[2 * i], y = uv[2 * i + 1];
        /* unreferenced points may be anything; they are never used */
        pts[i].x = isfinite(x) && fabs((x - g.ox) / g.step) < (double)UN_COORD_LIMIT ? un_llround((x - g.ox) / g.step) : 0;
        pts[i].y = isfinite(y) && fabs((y - g.oy) / g.step) < (double)UN_COORD_LIMIT ? un_llround((y - g.oy) / g.step) : 0;
    }
    if ((s = un_outline_rings(w, pts, n, face_start, nfaces, face_idx, needles, &res, nsolid)) != UN_OK) goto done;
    s = un_grid_out(&g, &res, out, 1);
done:
    free(pts);
    un_workspace_free(w);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}

un_status un_geom_outline(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                          const int32_t *face_idx, un_frings *out)
{
    return outline_on_grid(uv, n, face_start, nfaces, face_idx, 0, out, NULL);
}

un_status un_geom_outlines(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                           const int32_t *face_idx, const int32_t *face_group, int32_t ngroups,
                           un_frings *out, int8_t *solid)
{
    /* faces sorted by group, then one outline per group (a counting sort
     * keeps the faces of each group in their input order) */
    int32_t *count = NULL, *order = NULL, *fs = NULL, *fi = NULL, g, f;
    double *local = NULL;
    un_status s = UN_OK;
    for (f = 0; f < nfaces; f++)
        if (face_group[f] < 0 || face_group[f] >= ngroups) return UN_EINVAL;
    count = (int32_t *)calloc((size_t)ngroups + 1, sizeof *count);
    order = (int32_t *)malloc(((size_t)nfaces + 1) * sizeof *order);
    fs = (int32_t *)malloc(((size_t)nfaces + 1) * sizeof *fs);
    fi = (int32_t *)malloc(((size_t)face_start[nfaces] + 1) * sizeof *fi);
    local = (double *)malloc(((size_t)face_start[nfaces] + 1) * 2 * sizeof *local);
    if (!count || !order || !fs || !fi || !local) { s = UN_ENOMEM; goto done; }
    for (f = 0; f < nfaces; f++) count[face_group[f] + 1]++;
    for (g = 0; g < ngroups; g++) count[g + 1] += count[g];
    for (f = 0; f < nfaces; f++) order[count[face_group[f]]++] = f;
    /* count[g] is now the end of group g.  Each group gets its own corner
     * points (local index = corner number), so a group costs its own size,
     * not the mesh's. */
    for (g = 0; g < ngroups && s == UN_OK; g++) {
        int32_t a = g ? count[g - 1] : 0, b = count[g], k, m = 0;
        fs[0] = 0;
        for (k = a; k < b; k++) {
            int32_t face = order[k], j;
            for (j = face_start[face]; j < face_start[face + 1]; j++) {
                int32_t v = face_idx[j];
                if (v < 0 || v >= n) { s = UN_EINVAL; break; }
                local[2 * m] = uv[2 * v];
                local[2 * m + 1] = uv[2 * v + 1];
                fi[m] = m;
                m++;
            }
            fs[k - a + 1] = m;
        }
        if (s == UN_OK) {
            int32_t nsolid = 0;
            s = outline_on_grid(local, m, fs, b - a, fi, 1, out + g, &nsolid);
            solid[g] = nsolid > 0;
        }
    }
done:
    free(count); free(order); free(fs); free(fi); free(local);
    return s;
}
