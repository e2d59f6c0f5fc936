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
 */
#include "internal.h"

#include <math.h>

un_status un_outline_rings(un_arr *w, const un_pt *pts, int32_t n, const int32_t *face_start,
                           int32_t nfaces, const int32_t *face_idx, un_rings *out)
{
    un_seg *segs = NULL;
    int32_t nseg = 0, cap = 0, f, k;
    un_rings face;
    un_status s = UN_OK;
    un_rings_init(&face);
    un_rings_clear(out);
    for (f = 0; f < nfaces && s == UN_OK; f++) {
        int32_t a = face_start[f], m = face_start[f + 1] - a, i;
        double area;
        un_rings_clear(&face);
        if ((s = un_reserve((void **)&face.pts, &face.cap_pts, m, sizeof *face.pts)) != UN_OK) break;
        for (i = 0; i < m; i++) {
            int32_t v = face_idx[a + i];
            if (v < 0 || v >= n) { s = UN_EINVAL; break; }
            face.pts[i] = pts[v];
        }
        if (s != UN_OK) break;
        if ((s = un_rings_add(&face, face.pts, m)) != UN_OK) break;
        if ((s = un_rings_clean(&face, 0)) != UN_OK) break;
        if (face.nrings == 0) continue;
        area = un_ring_area2(&face, 0);
        if (area == 0) continue;
        s = un_segs_from_rings(&segs, &nseg, &cap, &face, 1, 0, f, area < 0);
    }
    if (s == UN_OK && nseg > 0) s = un_arr_run(w, segs, nseg, UN_SEL_COVERED, NULL);
    if (s == UN_OK && nseg > 0) {
        const un_loop *L = un_arr_loops(w);
        const un_pt *p = un_arr_ipts(w);
        for (k = 0; k < un_arr_nloops(w) && s == UN_OK; k++)
            s = un_rings_add(out, p + L[k].start, L[k].end - L[k].start);
        if (s == UN_OK) s = un_rings_clean(out, 0);
    }
    free(segs);
    un_rings_free(&face);
    if (s != UN_OK) un_rings_clear(out);
    return s;
}

un_status un_geom_outline(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                          const int32_t *face_idx, un_frings *out)
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
    if (!pts || !(w = un_arr_new())) { s = UN_ENOMEM; goto done; }
    for (i = 0; i < n; i++) {
        double x = uv[2 * i], y = uv[2 * i + 1];
        /* unreferenced points may be anything; they are never used */
        pts[i].x = isfinite(x) && fabs((x - g.ox) / g.step) < (double)UN_COORD_LIMIT ? un_llround((x - g.ox) / g.step) : 0;
        pts[i].y = isfinite(y) && fabs((y - g.oy) / g.step) < (double)UN_COORD_LIMIT ? un_llround((y - g.oy) / g.step) : 0;
    }
    if ((s = un_outline_rings(w, pts, n, face_start, nfaces, face_idx, &res)) != UN_OK) goto done;
    s = un_grid_out(&g, &res, out, 1);
done:
    free(pts);
    un_arr_free(w);
    un_rings_free(&res);
    if (s != UN_OK) un_frings_free(out);
    return s;
}

un_status un_geom_outlines(const double *uv, int32_t n, const int32_t *face_start, int32_t nfaces,
                           const int32_t *face_idx, const int32_t *face_group, int32_t ngroups,
                           un_frings *out)
{
    /* faces sorted by group, then one outline per group (a counting sort
     * keeps the faces of each group in their input order) */
    int32_t *count = NULL, *order = NULL, *fs = NULL, *fi = NULL, g, f;
    un_status s = UN_OK;
    for (f = 0; f < nfaces; f++)
        if (face_group[f] < 0 || face_group[f] >= ngroups) return UN_EINVAL;
    count = (int32_t *)calloc((size_t)ngroups + 1, sizeof *count);
    order = (int32_t *)malloc(((size_t)nfaces + 1) * sizeof *order);
    fs = (int32_t *)malloc(((size_t)nfaces + 1) * sizeof *fs);
    fi = (int32_t *)malloc(((size_t)face_start[nfaces] + 1) * sizeof *fi);
    if (!count || !order || !fs || !fi) { s = UN_ENOMEM; goto done; }
    for (f = 0; f < nfaces; f++) count[face_group[f] + 1]++;
    for (g = 0; g < ngroups; g++) count[g + 1] += count[g];
    for (f = 0; f < nfaces; f++) order[count[face_group[f]]++] = f;
    /* count[g] is now the end of group g */
    for (g = 0; g < ngroups && s == UN_OK; g++) {
        int32_t a = g ? count[g - 1] : 0, b = count[g], k, m = 0;
        fs[0] = 0;
        for (k = a; k < b; k++) {
            int32_t face = order[k], j;
            for (j = face_start[face]; j < face_start[face + 1]; j++) fi[m++] = face_idx[j];
            fs[k - a + 1] = m;
        }
        s = un_geom_outline(uv, n, fs, b - a, fi, out + g);
    }
done:
    free(count); free(order); free(fs); free(fi);
    return s;
}
