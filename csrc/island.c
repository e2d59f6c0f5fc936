/*
 * island.c - islands under the engine's transforms: orientations, bounding
 * boxes, and the margin-inflated shape on the grid.
 *
 * An island is rotated and mirrored about its reference point (the centre
 * of its bounding box), which keeps grid coordinates small.  The inflated
 * shape - the simplified outline plus a disk of half the margin and the
 * slack, as an octagon from outside - is computed once per inflation epoch
 * and shrink level, at the identity orientation; other orientations rotate
 * it onto the grid (the disk is rotation invariant, and the slack covers the
 * rounding).
 */
#include "engine.h"

#include <math.h>

double un_orient_angle(const un_orients *os, const un_island *is, int32_t o)
{
    int32_t a = o % os->nangles, c = un_orient_contact_first(os);
    if (a < os->ngrid) return is->base + os->angles[a];
    return c >= 0 && a >= c ? is->contact[a - c] : is->cand[a - os->ngrid];
}

int32_t un_orient_contact_first(const un_orients *os)
{
    /* the candidates and the contact orientations come together (align) */
    return UN_CONTACT_ORIENTS > 0 && os->nangles > os->ngrid ? os->ngrid + UN_CANDIDATES : -1;
}

int32_t un_orient_version(const un_orients *os, const un_island *is, int32_t o)
{
    int32_t c = un_orient_contact_first(os);
    return c >= 0 && o % os->nangles >= c ? is->contact_ver : 0;
}

int32_t un_orient_key(const un_orients *os, int32_t oi, int32_t ok)
{
    int32_t ai = oi % os->nangles, ak = ok % os->nangles;
    if (ai < os->ngrid && ak < os->ngrid) return ak - ai;   /* in (-ngrid, ngrid) */
    return os->ngrid + ai * os->nangles + ak;
}

int un_orient_repeats(const un_orients *os, const un_island *is, int32_t o)
{
    int32_t f = o / os->nangles, a;
    double th = un_orient_angle(os, is, o);
    for (a = 0; a < o % os->nangles; a++)
        if (fabs(remainder(un_orient_angle(os, is, a + f * os->nangles) - th, 2 * UN_PI)) <= 1e-12)
            return 1;
    return 0;
}

int32_t un_orient_quarter(const un_orients *os, int32_t o, int32_t q)
{
    int32_t a = o % os->nangles, f = o / os->nangles, c = a - os->ngrid;
    if (a < os->ngrid)
        return os->ngrid % 4 ? -1 : (a + q * (os->ngrid / 4)) % os->ngrid + f * os->nangles;
    /* candidates come in groups of four quarter turns */
    return os->ngrid + c - c % 4 + (c % 4 + q) % 4 + f * os->nangles;
}

void un_orient_matrix(const un_orients *os, const un_island *is, int32_t o, double m[4])
{
    int32_t f = o / os->nangles;
    double th = un_orient_angle(os, is, o), c = cos(th), s = sin(th);
    /* R(th) * F^f, F = diag(-1, 1) */
    m[0] = f ? -c : c;
    m[1] = -s;
    m[2] = f ? -s : s;
    m[3] = c;
}

void un_island_bbox(const un_orients *os, const un_island *is, int32_t o, double sigma, double q,
                    un_pt *lo, un_pt *hi)
{
    double m[4], lx = HUGE_VAL, ly = HUGE_VAL, hx = -HUGE_VAL, hy = -HUGE_VAL;
    int32_t i, n = un_frings_npts(&is->shape);
    un_orient_matrix(os, is, o, m);
    for (i = 0; i < n; i++) {
        double x = (is->shape.xy[2 * i] - is->cx) * sigma, y = (is->shape.xy[2 * i + 1] - is->cy) * sigma;
        double u = m[0] * x + m[1] * y, v = m[2] * x + m[3] * y;
        if (u < lx) lx = u;
        if (u > hx) hx = u;
        if (v < ly) ly = v;
        if (v > hy) hy = v;
    }
    /* outwards, plus one unit for the rounding of the rotation itself */
    lo->x = (int64_t)floor(lx / q) - 1;
    lo->y = (int64_t)floor(ly / q) - 1;
    hi->x = (int64_t)ceil(hx / q) + 1;
    hi->y = (int64_t)ceil(hy / q) + 1;
}

double un_shrink_factor(int32_t level)
{
    return (double)(UN_SHRINK_LEVELS - level) / UN_SHRINK_LEVELS;
}

/* The sum of rings r with the disk when the exact sum cannot trace r (a
 * hole touching its outer ring along edges and at several corners, as
 * merged islands with needles give once rounded): the convex hull of r's
 * points, each grown by a unit square so that it has an inside, plus the
 * disk.  It holds the exact sum (the island only loses its pockets), and
 * two convex rings are summed without an arrangement. */
static un_status hull_sum(un_arr *w, const un_rings *r, const un_rings *disk, un_rings *out)
{
    un_rings grown, hull;
    int32_t c, i, n = un_rings_npts(r);
    un_status s = UN_OK;
    un_rings_init(&grown);
    un_rings_init(&hull);
    for (c = 0; c < 4 && s == UN_OK; c++) {
        int32_t base = un_rings_npts(&grown);
        if ((s = un_rings_add(&grown, r->pts, n)) != UN_OK) break;
        for (i = 0; i < n; i++) {
            grown.pts[base + i].x += (c & 1) ? 1 : -1;
            grown.pts[base + i].y += (c & 2) ? 1 : -1;
        }
    }
    if (s == UN_OK) s = un_hull_rings(&grown, NULL, &hull);
    if (s == UN_OK) s = un_msum_rings(w, &hull, disk, 0, out);
    un_rings_free(&grown);
    un_rings_free(&hull);
    return s;
}

/* Shape src (island units, about the reference point cx, cy) at shrink
 * factor sigma on the grid, grown by the disk of the given radius, into out
 * (cleared first). */
static un_status inflate_frings(un_arr *w, const un_frings *src, double cx, double cy, double sigma, double q,
                                int64_t radius, un_rings *out)
{
    un_rings grid;
    un_pt disk[UN_DISK_MAX_SIDES];
    un_rings dk;
    int32_t k, i, nd;
    un_status s = UN_OK;
    un_rings_clear(out);
    un_rings_init(&grid);
    un_rings_init(&dk);
    for (k = 0; k < src->nrings && s == UN_OK; k++) {
        int32_t a = src->start[k], n = src->start[k + 1] - a;
        un_pt *buf = (un_pt *)malloc((size_t)n * sizeof *buf);
        if (!buf) { s = UN_ENOMEM; break; }
        for (i = 0; i < n; i++) {
            buf[i].x = un_llround((src->xy[2 * (a + i)] - cx) * sigma / q);
            buf[i].y = un_llround((src->xy[2 * (a + i) + 1] - cy) * sigma / q);
        }
        s = un_rings_add(&grid, buf, n);
        free(buf);
    }
    /* at least one grid step: an island far smaller than the largest one
     * rounds to a point or a segment, and its grown shape must still have
     * an inside (an empty shape would have an empty no-fit polygon) */
    nd = un_disk_polygon(radius > 1 ? radius : 1, UN_ENGINE_DISK_SIDES, disk);
    if (s == UN_OK) s = un_rings_add(&dk, disk, nd);
    /* needles, segments and points flattened by the grid: solid strips
     * around them (the sum drops flat parts, and would grow the island
     * from what is left) */
    if (s == UN_OK) {
        int changed = 0;
        un_rings solid;
        un_rings_init(&solid);
        s = un_rings_solidify(w, &grid, &solid, &changed);
        if (s == UN_OK && changed) s = un_rings_copy(&grid, &solid);
        un_rings_free(&solid);
    }
    if (s == UN_OK) s = un_msum_rings(w, &grid, &dk, 0, out);
    if (s == UN_EINTERNAL) s = hull_sum(w, &grid, &dk, out);
    if (s == UN_OK && out->nrings == 0) {
        /* everything rounded to one point: the disk around it */
        un_pt at = grid.nrings ? grid.pts[0] : (un_pt){0, 0};
        for (i = 0; i < nd; i++) { disk[i].x += at.x; disk[i].y += at.y; }
        s = un_rings_add(out, disk, nd);
    }
    un_rings_free(&grid);
    un_rings_free(&dk);
    return s;
}

un_status un_island_inflate(un_arr *w, un_island *is, int32_t level, int32_t epoch, double q,
                            int64_t radius)
{
    un_status s;
    if (is->infl_epoch[level] == epoch && is->infl[level].nrings) return UN_OK;
    s = inflate_frings(w, &is->shape, is->cx, is->cy, un_shrink_factor(level), q, radius, &is->infl[level]);
    if (s == UN_OK) is->infl_epoch[level] = epoch;
    return s;
}

un_status un_island_inflate_coarse(un_arr *w, un_island *is, int32_t epoch, double q, int64_t radius)
{
    un_status s;
    if (is->coarse_epoch == epoch && is->coarse_infl.nrings) return UN_OK;
    s = inflate_frings(w, &is->coarse, is->cx, is->cy, 1, q, radius, &is->coarse_infl);
    if (s == UN_OK) is->coarse_epoch = epoch;
    return s;
}

un_status un_rings_transform(const un_rings *in, const double m[4], un_pt off, un_rings *out)
{
    /* a mirror reverses orientation: reverse the rings to keep outer rings
     * counter-clockwise (obstacle rings need winding +1 inside) */
    int mirror = m[0] * m[3] - m[1] * m[2] < 0;
    int32_t k, i;
    un_status s;
    for (k = 0; k < in->nrings; k++) {
        int32_t a = in->start[k], n = in->start[k + 1] - a, base = un_rings_npts(out);
        if ((s = un_rings_add(out, in->pts + a, n)) != UN_OK) return s;
        for (i = 0; i < n; i++) {
            const un_pt p = in->pts[a + (mirror ? n - 1 - i : i)];
            double x = (double)p.x, y = (double)p.y;
            out->pts[base + i].x = un_llround(m[0] * x + m[1] * y) + off.x;
            out->pts[base + i].y = un_llround(m[2] * x + m[3] * y) + off.y;
        }
    }
    return UN_OK;
}

void un_bbox_transform(un_pt lo, un_pt hi, const double m[4], un_pt off, un_pt *olo, un_pt *ohi)
{
    double xs[2], ys[2], lx = HUGE_VAL, ly = HUGE_VAL, hx = -HUGE_VAL, hy = -HUGE_VAL;
    int32_t a, b;
    xs[0] = (double)lo.x; xs[1] = (double)hi.x;
    ys[0] = (double)lo.y; ys[1] = (double)hi.y;
    for (a = 0; a < 2; a++)
        for (b = 0; b < 2; b++) {
            double u = m[0] * xs[a] + m[1] * ys[b], v = m[2] * xs[a] + m[3] * ys[b];
            if (u < lx) lx = u;
            if (u > hx) hx = u;
            if (v < ly) ly = v;
            if (v > hy) hy = v;
        }
    olo->x = (int64_t)floor(lx) - 1 + off.x;
    olo->y = (int64_t)floor(ly) - 1 + off.y;
    ohi->x = (int64_t)ceil(hx) + 1 + off.x;
    ohi->y = (int64_t)ceil(hy) + 1 + off.y;
}
