/*
 * fuzz_core.c - a fuzz target for the public C interface (uvnest.h).
 *
 * Every byte string decodes to one call of the interface with polygons,
 * faces and options taken from the bytes (bytes past the end read as
 * zero, so every input is a valid case).  Polygons are mostly star-shaped
 * rings, often with a hole, at a magnitude from 2^-24 to 2^20, sometimes
 * raw point lists (self-crossing, repeated or collinear points) and now
 * and then a NaN or an infinity.  Only "regular" inputs - simple polygons
 * whose hole lies strictly inside, what island outlines are - get the
 * geometric checks below; the rest need only be survived.  The target
 * aborts when a promise of the interface breaks:
 *   - a status outside un_status, or UN_EINTERNAL (a failed consistency
 *     check is a bug);
 *   - an output that is not empty after an error;
 *   - a translation well inside a no-fit polygon where the interiors do
 *     not overlap, or well outside where they do (un_geom_overlaps);
 *   - a collision-free position (un_region_point_at, margin > 0) where the
 *     piece comes closer than the margin to a placed polygon or leaves
 *     the rectangle, checked with un_geom_overlaps and the piece's box;
 *   - a packed layout whose islands come closer than the margin or leave
 *     the target, beyond the documented 2^-26 of the target's size.
 * Memory errors, leaks and undefined behaviour are the sanitizers' part.
 *
 * With libFuzzer (clang), coverage-guided:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined,float-cast-overflow -Icsrc tests/csrc/fuzz_core.c \
 *         $CORE -lm -o /tmp/fuzz_core       (CORE: the csrc .c files but binding.c)
 *   mkdir -p /tmp/corpus && /tmp/fuzz_core -max_total_time=1800 -max_len=512 /tmp/corpus
 * With gcc, fuzz_main.c runs seeded pseudo-random inputs (the C unit tests
 * do, under ASan/UBSan) or replays files, such as libFuzzer's artifacts.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvnest.h"

#define MAX_POLYS  6
#define MAX_RING   40
#define PI_        3.14159265358979323846

typedef struct {
    const uint8_t *p;
    size_t         n, at;
} reader;

static unsigned byte_(reader *r)
{
    return r->at < r->n ? r->p[r->at++] : 0u;
}

static unsigned word_(reader *r)
{
    unsigned lo = byte_(r);
    return lo | byte_(r) << 8;
}

static double unit_(reader *r)   /* [0, 1) */
{
    return word_(r) / 65536.0;
}

static void fail_(const char *what, const char *call, int line)
{
    fprintf(stderr, "fuzz_core: %s (%s, line %d)\n", what, call, line);
    abort();
}

#define FAIL(what, call) fail_(what, call, __LINE__)

static void check_range(un_status s, const char *call)
{
    if ((int)s < UN_OK || (int)s > UN_EINTERNAL) FAIL("status outside un_status", call);
}

static void check_status(un_status s, const char *call)
{
    check_range(s, call);
    if (s == UN_EINTERNAL) FAIL("UN_EINTERNAL (an internal check failed)", call);
}

/* A coordinate that is occasionally not finite. */
static double poison_(reader *r, double v)
{
    switch (byte_(r) % 64) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return 1e300;
    default: return v;
    }
}

/* One polygon (an outer ring, maybe a hole) at scale `mag`, centre (cx, cy).
 * *regular is set when it is a simple polygon with area whose hole lies
 * strictly inside it (the polygons every island outline is); raw point
 * lists and poisoned coordinates are not. */
static un_status read_polygon(reader *r, double mag, double cx, double cy, int hostile, un_frings *out,
                              int *regular)
{
    double xy[2 * MAX_RING], hole[8];
    unsigned kind = byte_(r), n = 3 + byte_(r) % (MAX_RING - 2), i;
    double inner = 0;   /* radius of a disk about the centre inside the polygon */
    un_status s;
    *regular = 0;
    if (kind % 4 == 3) {
        /* raw points: anything, self-crossing included */
        for (i = 0; i < n; i++) {
            xy[2 * i] = cx + mag * ((double)(int8_t)byte_(r) / 128.0);
            xy[2 * i + 1] = cy + mag * ((double)(int8_t)byte_(r) / 128.0);
        }
    } else {
        /* star-shaped: increasing angles, radii from the bytes.  When no
         * gap between neighbours reaches pi, the points in angular order
         * make a simple polygon that holds the disk of radius
         * rmin cos(gap / 2) about the centre (its every point projects
         * onto the bisector of its gap by at least that); a larger gap
         * may make the closing edge cross the others */
        double a = 0, first = 0, last = 0, rmin = HUGE_VAL, gap = 0;
        for (i = 0; i < n; i++) {
            double rad = mag * (0.05 + (byte_(r) % 20) / 20.0);
            double step = 2 * PI_ / n * (kind & 4 ? (0.5 + (byte_(r) % 4) / 4.0) : 1.0);
            a += step;
            if (a >= 2 * PI_ - 1e-9) { n = i; break; }
            if (i == 0) first = a;
            else gap = fmax(gap, step);
            last = a;
            rmin = fmin(rmin, rad);
            xy[2 * i] = cx + rad * cos(a);
            xy[2 * i + 1] = cy + rad * sin(a);
        }
        gap = fmax(gap, 2 * PI_ - last + first);   /* the closing edge */
        *regular = gap < 0.9 * PI_;   /* (not nearly pi: the disk would be a point) */
        inner = *regular ? rmin * cos(gap / 2) : 0;
        if (n < 3) {
            /* a triangle; its nearest side is mag / sqrt(5) from the centre */
            n = 3;
            xy[0] = cx - mag; xy[1] = cy - mag; xy[2] = cx + mag; xy[3] = cy - mag; xy[4] = cx; xy[5] = cy + mag;
            inner = mag / sqrt(5.0);
            *regular = 1;
        }
    }
    if (hostile) {
        unsigned at = 2 * (byte_(r) % n);
        double v = poison_(r, xy[at]);
        if (!(v == xy[at])) xy[at] = v, *regular = 0;
    }
    if (kind & 8) {   /* clockwise input */
        for (i = 0; i < n / 2; i++) {
            double tx = xy[2 * i], ty = xy[2 * i + 1];
            xy[2 * i] = xy[2 * (n - 1 - i)]; xy[2 * i + 1] = xy[2 * (n - 1 - i) + 1];
            xy[2 * (n - 1 - i)] = tx; xy[2 * (n - 1 - i) + 1] = ty;
        }
    }
    if ((s = un_frings_add(out, xy, (int32_t)n)) != UN_OK) return s;
    if (kind & 16) {
        /* a square hole, clockwise: inside the inner disk (corners at 0.6
         * of its radius), or anywhere for raw points */
        double h = inner > 0 ? inner * 0.6 / sqrt(2.0) * (0.2 + (byte_(r) % 5) / 5.0) : mag * (byte_(r) % 16) / 40.0;
        double off = inner > 0 ? 0 : mag / 512.0;
        double hx = cx + off * (int8_t)byte_(r), hy = cy + off * (int8_t)byte_(r);
        hole[0] = hx - h; hole[1] = hy - h;
        hole[2] = hx - h; hole[3] = hy + h;
        hole[4] = hx + h; hole[5] = hy + h;
        hole[6] = hx + h; hole[7] = hy - h;
        if ((s = un_frings_add(out, hole, 4)) != UN_OK) return s;
    }
    return UN_OK;
}

static double magnitude_(reader *r)
{
    return ldexp(1.0, (int)(byte_(r) % 45) - 24);
}

static double extent_(const un_frings *f, int32_t n, double m)
{
    int32_t k, i;
    for (k = 0; k < n; k++)
        for (i = 0; i < 2 * un_frings_npts(f + k); i++) m = fmax(m, fabs(f[k].xy[i]));
    return m;
}

static void free_all(un_frings *f, int32_t n)
{
    int32_t k;
    for (k = 0; k < n; k++) un_frings_free(f + k);
}

static void expect_empty_frings(un_status s, const un_frings *f, const char *call)
{
    check_status(s, call);
    if (s != UN_OK && f->nrings != 0) FAIL("output not empty after an error", call);
}

static void expect_empty_regions(un_status s, const un_fregions *f, const char *call)
{
    check_status(s, call);
    if (s != UN_OK && (f->nregions != 0 || f->rings.nrings != 0)) FAIL("regions not empty after an error", call);
}

/* Print rings as a Python list of point lists, to reproduce a failure. */
static void dump_(const char *name, const un_frings *f)
{
    int32_t k, i;
    fprintf(stderr, "%s = [", name);
    for (k = 0; k < f->nrings; k++) {
        fprintf(stderr, "%s[", k ? ", " : "");
        for (i = f->start[k]; i < f->start[k + 1]; i++)
            fprintf(stderr, "%s(%.17g, %.17g)", i > f->start[k] ? ", " : "", f->xy[2 * i], f->xy[2 * i + 1]);
        fprintf(stderr, "]");
    }
    fprintf(stderr, "]\n");
}

/* out = a copy of src, ring by ring (the caller then moves its points). */
static un_status copy_rings(const un_frings *src, un_frings *out)
{
    int32_t k;
    un_status s = UN_OK;
    for (k = 0; k < src->nrings && s == UN_OK; k++)
        s = un_frings_add(out, src->xy + 2 * src->start[k], src->start[k + 1] - src->start[k]);
    return s;
}

/* dst (a copy of src's rings) = src moved by t. */
static void translate_(const un_frings *src, const double t[2], un_frings *dst)
{
    int32_t i;
    for (i = 0; i < un_frings_npts(src); i++) {
        dst->xy[2 * i] = src->xy[2 * i] + t[0];
        dst->xy[2 * i + 1] = src->xy[2 * i + 1] + t[1];
    }
}

/* ---------------------------------------------------------------- calls */

static void fuzz_outline(reader *r)
{
    double uv[2 * 64];
    int32_t fs[33], fi[4 * 32], nuv = (int32_t)(byte_(r) % 64), nf = (int32_t)(byte_(r) % 32), f, k, c = 0;
    double mag = magnitude_(r);
    un_frings out;
    un_frings_init(&out);
    for (k = 0; k < nuv; k++) {
        uv[2 * k] = mag * (byte_(r) % 16) / 16.0;
        uv[2 * k + 1] = poison_(r, mag * (byte_(r) % 16) / 16.0);
    }
    fs[0] = 0;
    for (f = 0; f < nf; f++) {
        int32_t corners = 3 + (int32_t)(byte_(r) % 2);
        for (k = 0; k < corners; k++) {
            int32_t v = (int32_t)byte_(r);
            fi[c++] = nuv ? v % (nuv + 1) - (v % 97 == 0) : v % 3 - 1;   /* some out of range */
        }
        fs[f + 1] = c;
    }
    expect_empty_frings(un_geom_outline(uv, nuv, fs, nf, fi, &out), &out, "un_geom_outline");
    un_frings_free(&out);
}

static void fuzz_simplify_hull(reader *r)
{
    un_frings in, out;
    double used = 0, mag = magnitude_(r), tol = mag * unit_(r) * 0.2;
    int32_t maxv = (int32_t)(byte_(r) % 40) - 2;
    int regular;
    un_frings_init(&in);
    un_frings_init(&out);
    if (read_polygon(r, mag, 0, 0, 1, &in, &regular) == UN_OK) {
        expect_empty_frings(un_geom_simplify(&in, tol, maxv, &out, &used), &out, "un_geom_simplify");
        un_frings_free(&out);
        expect_empty_frings(un_geom_hull(&in, &out), &out, "un_geom_hull");
    }
    un_frings_free(&in);
    un_frings_free(&out);
}

static void fuzz_overlaps(reader *r)
{
    un_frings a, b;
    double mag = magnitude_(r), margin = mag * unit_(r) * 0.5, d = 0;
    int over = 0, regular;
    un_frings_init(&a);
    un_frings_init(&b);
    if (read_polygon(r, mag, 0, 0, 1, &a, &regular) == UN_OK &&
        read_polygon(r, mag, mag * ((int8_t)byte_(r) / 64.0), mag * ((int8_t)byte_(r) / 64.0), 1, &b, &regular) == UN_OK)
        check_status(un_geom_overlaps(&a, &b, margin, &over, &d), "un_geom_overlaps");
    un_frings_free(&a);
    un_frings_free(&b);
}

/* Is piece + t inside [lo, hi] and at least `margin` from every placed
 * polygon, within `tol`? */
static void check_position(const un_frings *piece, const double t[2], const un_frings *placed, int32_t np,
                           const double lo[2], const double hi[2], double margin, double tol)
{
    un_frings moved;
    int32_t i;
    un_frings_init(&moved);
    if (copy_rings(piece, &moved) != UN_OK) { un_frings_free(&moved); return; }   /* out of memory */
    translate_(piece, t, &moved);
    for (i = 0; i < un_frings_npts(&moved); i++) {
        double x = moved.xy[2 * i], y = moved.xy[2 * i + 1];
        if (x < lo[0] - tol || x > hi[0] + tol || y < lo[1] - tol || y > hi[1] + tol)
            FAIL("a collision-free position leaves the container", "un_region_point_at");
    }
    for (i = 0; i < np; i++) {
        int over = 0;
        double d = 0;
        if (un_geom_overlaps(placed + i, &moved, margin, &over, &d) != UN_OK) continue;
        if (d < margin - tol) {
            dump_("piece", piece);
            dump_("placed", placed + i);
            fprintf(stderr, "t = (%.17g, %.17g)\nmargin = %.17g\ndistance = %.17g\ntol = %.17g\n", t[0], t[1],
                    margin, d, tol);
            FAIL("a collision-free position is closer than the margin to a placed polygon", "un_geom_cfr");
        }
    }
    un_frings_free(&moved);
}

static void fuzz_cfr(reader *r, int from_nfps)
{
    un_frings container, piece, placed[MAX_POLYS], nfps[MAX_POLYS];
    un_fregions regions;
    double mag = magnitude_(r), side = mag * (1.5 + (byte_(r) % 8)), margin = 0;
    double lo[2] = {0, 0}, hi[2] = {side, side};
    int32_t np = (int32_t)(byte_(r) % (MAX_POLYS + 1)), i, k;
    int general = byte_(r) % 4 == 0, ok = 1, regular = 1, reg;
    un_status s;
    memset(&regions, 0, sizeof regions);
    un_frings_init(&container);
    un_frings_init(&piece);
    for (i = 0; i < MAX_POLYS; i++) un_frings_init(placed + i), un_frings_init(nfps + i);
    if (byte_(r) % 2) margin = mag * unit_(r) * 0.3;
    if (general) {
        ok = read_polygon(r, side / 2, side / 2, side / 2, 0, &container, &reg) == UN_OK;
    } else {
        double rect[8] = {0, 0, side, 0, side, side, 0, side};
        ok = un_frings_add(&container, rect, 4) == UN_OK;
    }
    ok = ok && read_polygon(r, mag * (0.2 + unit_(r)), 0, 0, byte_(r) % 8 == 0, &piece, &regular) == UN_OK;
    for (i = 0; ok && i < np; i++) {
        ok = read_polygon(r, mag * (0.2 + unit_(r)), side * unit_(r), side * unit_(r), 0, placed + i, &reg) == UN_OK;
        regular &= reg;
    }
    if (ok && from_nfps) {
        for (i = 0; i < np; i++) {
            s = un_geom_nfp(placed + i, &piece, nfps + i, NULL);
            expect_empty_frings(s, nfps + i, "un_geom_nfp");
            if (s != UN_OK) { ok = 0; break; }
        }
    }
    if (ok) {
        s = from_nfps ? un_geom_cfr_nfps(&container, nfps, np, &piece, &regions, NULL)
                      : un_geom_cfr(&container, placed, np, &piece, margin, &regions, NULL);
        expect_empty_regions(s, &regions, from_nfps ? "un_geom_cfr_nfps" : "un_geom_cfr");
        if (s == UN_OK) {
            double tol = 64 * ldexp(extent_(placed, np, extent_(&piece, 1, extent_(&container, 1, 0)) + side), -27);
            for (k = 0; k < regions.nregions; k++) {
                for (i = 0; i < 3; i++) {
                    double t[2];
                    check_status(un_region_point_at(&regions, k, unit_(r) * 0.999, t), "un_region_point_at");
                    if (!general && !from_nfps && regular && margin > tol)
                        check_position(&piece, t, placed, np, lo, hi, margin, tol);
                }
            }
            if (un_region_point_at(&regions, regions.nregions, 0.5, lo) != UN_EINVAL)
                FAIL("a region index past the end was accepted", "un_region_point_at");
        }
    }
    un_fregions_free(&regions);
    un_frings_free(&container);
    un_frings_free(&piece);
    free_all(placed, MAX_POLYS);
    free_all(nfps, MAX_POLYS);
}

/* Parity of a ray to the right from (x, y) over all rings, and the
 * distance from (x, y) to the nearest edge: plain floating point, which
 * is all the samples below need (they keep away from the boundary). */
static int inside_rings(const un_frings *f, double x, double y, double *dist)
{
    int32_t k, i, in = 0;
    *dist = HUGE_VAL;
    for (k = 0; k < f->nrings; k++) {
        int32_t a = f->start[k], n = f->start[k + 1] - a;
        for (i = 0; i < n; i++) {
            const double *p = f->xy + 2 * (a + i), *q = f->xy + 2 * (a + (i + 1) % n);
            double dx = q[0] - p[0], dy = q[1] - p[1], len2 = dx * dx + dy * dy;
            double t = len2 > 0 ? ((x - p[0]) * dx + (y - p[1]) * dy) / len2 : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            *dist = fmin(*dist, hypot(x - p[0] - t * dx, y - p[1] - t * dy));
            if ((p[1] > y) != (q[1] > y) && x < p[0] + (y - p[1]) / (q[1] - p[1]) * dx) in ^= 1;
        }
    }
    return in;
}

/* t strictly inside nfp(a, b) exactly when the interiors of a and b + t
 * overlap, at translations more than tol from the no-fit polygon's
 * boundary; the overlap is decided by un_geom_overlaps (validate.c, which
 * shares nothing with minkowski.c). */
static void check_nfp(reader *r, const un_frings *a, const un_frings *b, const un_frings *nfp)
{
    double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL}, tol;
    un_frings moved;
    int32_t k, i;
    if (nfp->nrings == 0) return;
    for (i = 0; i < un_frings_npts(nfp); i++) {
        lo[0] = fmin(lo[0], nfp->xy[2 * i]); hi[0] = fmax(hi[0], nfp->xy[2 * i]);
        lo[1] = fmin(lo[1], nfp->xy[2 * i + 1]); hi[1] = fmax(hi[1], nfp->xy[2 * i + 1]);
    }
    tol = 64 * ldexp(extent_(nfp, 1, extent_(a, 1, extent_(b, 1, 0))), -27);
    un_frings_init(&moved);
    if (copy_rings(b, &moved) != UN_OK) { un_frings_free(&moved); return; }
    for (k = 0; k < 8; k++) {
        double t[2], d;
        int inside, over = 0;
        t[0] = lo[0] - 0.1 * (hi[0] - lo[0]) + 1.2 * (hi[0] - lo[0]) * unit_(r);
        t[1] = lo[1] - 0.1 * (hi[1] - lo[1]) + 1.2 * (hi[1] - lo[1]) * unit_(r);
        inside = inside_rings(nfp, t[0], t[1], &d);
        if (d <= tol) continue;
        translate_(b, t, &moved);
        if (un_geom_overlaps(a, &moved, 0.0, &over, &d) != UN_OK) continue;
        if (over != inside) {
            dump_("a", a);
            dump_("b", b);
            fprintf(stderr, "t = (%.17g, %.17g)\ninside the nfp: %d, interiors overlap: %d\n", t[0], t[1], inside,
                    over);
            FAIL("the no-fit polygon disagrees with the overlap test", "un_geom_nfp");
        }
    }
    un_frings_free(&moved);
}

static void fuzz_ifp_nfp(reader *r)
{
    un_frings a, b, out;
    un_fregions regions;
    double mag = magnitude_(r);
    int regular_a, regular_b;
    un_status s;
    memset(&regions, 0, sizeof regions);
    un_frings_init(&a);
    un_frings_init(&b);
    un_frings_init(&out);
    if (read_polygon(r, mag, 0, 0, 1, &a, &regular_a) == UN_OK &&
        read_polygon(r, mag * (0.1 + 2 * unit_(r)), mag * unit_(r), 0, 1, &b, &regular_b) == UN_OK) {
        s = un_geom_nfp(&a, &b, &out, NULL);
        expect_empty_frings(s, &out, "un_geom_nfp");
        if (s == UN_OK && regular_a && regular_b) check_nfp(r, &a, &b, &out);
        expect_empty_regions(un_geom_ifp(&a, &b, &regions, NULL), &regions, "un_geom_ifp");
    }
    un_fregions_free(&regions);
    un_frings_free(&a);
    un_frings_free(&b);
    un_frings_free(&out);
}

/* Print a packing case, to reproduce a failure. */
static void dump_pack(const un_frings *isl, int32_t n, const un_pack_options *o)
{
    int32_t i;
    char name[32];
    fprintf(stderr, "target = (%.17g, %.17g, %.17g, %.17g)\nmargin = %.17g\npadding = %.17g\n", o->target[0],
            o->target[1], o->target[2], o->target[3], o->margin, o->padding);
    fprintf(stderr, "nangles = %d, align = %d, flip = %d, seed = %llu, cache_bytes = %g, anneal_max = %d, "
            "fixed_scale = %.17g, max_bins = %d, box = %d\n", (int)o->nangles, (int)o->align, (int)o->flip,
            (unsigned long long)o->seed, o->cache_bytes, (int)o->anneal_max, o->fixed_scale, (int)o->max_bins,
            (int)o->box);
    for (i = 0; i < n; i++) {
        sprintf(name, "island%d", (int)i);
        dump_(name, isl + i);
    }
}

/* Place every island by its transform and check the layout. */
static void check_layout(const un_frings *isl, int32_t n, const un_transform *tr, const un_pack_options *o)
{
    un_frings placed[MAX_POLYS];
    double size = fmax(o->target[2] - o->target[0], o->target[3] - o->target[1]);
    double tol = ldexp(size, -26), bin_w = o->target[2] - o->target[0];
    int32_t i, j, k;
    for (i = 0; i < n; i++) {
        double c = cos(tr[i].angle), s = sin(tr[i].angle);
        un_frings_init(placed + i);
        if (copy_rings(isl + i, placed + i) != UN_OK) { i++; goto done; }
        for (k = 0; k < un_frings_npts(isl + i); k++) {
            double x = isl[i].xy[2 * k] * (tr[i].flip ? -1 : 1), y = isl[i].xy[2 * k + 1];
            /* bins lie side by side in x (the caller maps them to tiles) */
            double px = tr[i].scale * (c * x - s * y) + tr[i].tx, py = tr[i].scale * (s * x + c * y) + tr[i].ty;
            placed[i].xy[2 * k] = px + tr[i].bin * 2 * bin_w;
            placed[i].xy[2 * k + 1] = py;
            if (px < o->target[0] + o->padding - tol || px > o->target[2] - o->padding + tol ||
                py < o->target[1] + o->padding - tol || py > o->target[3] - o->padding + tol) {
                dump_pack(isl, n, o);
                FAIL("a packed island leaves the target", "un_packer_best");
            }
        }
    }
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            int over = 0;
            double d = 0;
            if (un_geom_overlaps(placed + i, placed + j, o->margin, &over, &d) != UN_OK) continue;
            if (o->margin > tol ? d < o->margin - tol : over) {
                dump_pack(isl, n, o);
                fprintf(stderr, "islands %d and %d, distance %.17g\n", (int)i, (int)j, d);
                FAIL("packed islands closer than the margin", "un_packer_best");
            }
        }
    i = n;
done:
    free_all(placed, i);
}

static void fuzz_pack(reader *r)
{
    double angles[8], mag = ldexp(1.0, (int)(byte_(r) % 9) - 6);
    un_frings isl[MAX_POLYS];
    un_transform tr[MAX_POLYS];
    un_pack_options o;
    un_packer *pk = NULL;
    int32_t n = 1 + (int32_t)(byte_(r) % MAX_POLYS), i, added = 0;
    volatile int cancel = 0;
    int improved = 0, regular = 1, reg;
    un_status s;
    memset(&o, 0, sizeof o);
    o.target[0] = 0; o.target[1] = 0;
    o.target[2] = 1 + (byte_(r) % 4) / 2.0; o.target[3] = 1;
    o.margin = (byte_(r) % 3) ? 0.2 * unit_(r) * unit_(r) : 0;
    o.padding = byte_(r) % 4 == 0 ? 0.05 * unit_(r) : 0;
    o.nangles = 1 + (int32_t)(byte_(r) % 8);
    for (i = 0; i < o.nangles; i++) angles[i] = 2 * PI_ * i / o.nangles;
    o.angles = angles;
    o.align = (int32_t)(byte_(r) % 2);
    o.flip = (int32_t)(byte_(r) % 2);
    o.seed = byte_(r);
    o.cache_bytes = byte_(r) % 4 == 0 ? 4096 : 1 << 24;   /* a tiny cache evicts all the time */
    o.anneal_max = (int32_t)(byte_(r) % 4);
    o.box = byte_(r) % 5 == 0;
    if (byte_(r) % 4 == 0) o.fixed_scale = 0.25 + unit_(r), o.max_bins = 1 + (int32_t)(byte_(r) % 3);
    for (i = 0; i < n; i++) un_frings_init(isl + i);
    s = un_packer_new(&o, &pk);
    check_status(s, "un_packer_new");
    if (s != UN_OK) goto done;
    for (i = 0; i < n; i++) {
        double area;
        if (read_polygon(r, mag * (0.1 + unit_(r)), 0, 0, 0, isl + i, &reg) != UN_OK) goto done;
        regular &= reg;
        area = mag * mag * (0.01 + unit_(r));
        s = un_packer_add_island(pk, isl + i, area);
        check_status(s, "un_packer_add_island");
        if (s != UN_OK) goto done;
        added++;
        if (byte_(r) % 4 == 0) check_status(un_packer_set_group(pk, i, (int32_t)(byte_(r) % 2)), "un_packer_set_group");
    }
    if (byte_(r) % 4 == 0) {
        un_frings lock;
        un_frings_init(&lock);
        if (read_polygon(r, 0.1, 0.5, 0.5, 0, &lock, &reg) == UN_OK)
            check_status(un_packer_add_locked(pk, &lock), "un_packer_add_locked");
        regular &= reg;
        un_frings_free(&lock);
    }
    /* self-crossing outlines are outside the contract (islands are unions
     * of faces): the packer must survive them, but its search may then
     * propose layouts its final check rejects (UN_EINTERNAL when the first
     * one is) */
    s = un_packer_start(pk, &cancel);
    (regular ? check_status : check_range)(s, "un_packer_start");
    if (s == UN_OK) {
        s = un_packer_run(pk, 1 + byte_(r) % 24, &cancel, &improved);
        (regular ? check_status : check_range)(s, "un_packer_run");
    }
    if (un_packer_best(pk, tr) && regular) {
        un_pack_stats st;
        un_packer_stats(pk, &st);
        if (st.rejected != 0) {
            dump_pack(isl, added, &o);
            FAIL("the packer's final check rejected a layout", "un_packer_stats");
        }
        check_layout(isl, added, tr, &o);
    }
done:
    un_packer_free(pk);
    free_all(isl, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r;
    r.p = data;
    r.n = size;
    r.at = 0;
    switch (byte_(&r) % 7) {
    case 0: fuzz_outline(&r); break;
    case 1: fuzz_simplify_hull(&r); break;
    case 2: fuzz_overlaps(&r); break;
    case 3: fuzz_cfr(&r, 0); break;
    case 4: fuzz_cfr(&r, 1); break;
    case 5: fuzz_ifp_nfp(&r); break;
    default: fuzz_pack(&r); break;
    }
    return 0;
}
