/*
 * exact.c - exact integer predicates.
 *
 * Coordinates are bounded by UN_COORD_LIMIT (2^29), so differences fit in
 * 31 bits and a cross product of two differences fits in 63 bits: plain
 * int64 arithmetic is exact for orientation tests.  Comparing two rational
 * intersection parameters n1/d1 and n2/d2 needs the sign of n1*d2 - n2*d1,
 * a difference of two 126-bit products; that is done in 128 bits, with
 * __int128 where the compiler provides it and a portable fallback elsewhere
 * (MSVC; the tests also build it with UN_NO_INT128), so results are the
 * same on every platform.
 */
#include "internal.h"

#if defined(__SIZEOF_INT128__) && !defined(UN_NO_INT128)

__extension__ typedef __int128 i128;

int un_sign_mul_sub(int64_t a, int64_t b, int64_t c, int64_t d)
{
    i128 l = (i128)a * b, r = (i128)c * d;
    return (l > r) - (l < r);
}

#else

/* 128-bit two's complement value as (hi, lo). */
typedef struct { int64_t hi; uint64_t lo; } wide;

static wide mul_wide(int64_t a, int64_t b)
{
    int neg = (a < 0) != (b < 0);
    uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    uint64_t a0 = ua & 0xffffffffu, a1 = ua >> 32, b0 = ub & 0xffffffffu, b1 = ub >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    uint64_t lo = (p00 & 0xffffffffu) | (mid << 32);
    uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    wide w;
    if (neg) { /* negate the 128-bit magnitude */
        lo = ~lo + 1;
        hi = ~hi + (lo == 0);
    }
    w.hi = (int64_t)hi;
    w.lo = lo;
    return w;
}

int un_sign_mul_sub(int64_t a, int64_t b, int64_t c, int64_t d)
{
    wide l = mul_wide(a, b), r = mul_wide(c, d);
    if (l.hi != r.hi) return l.hi > r.hi ? 1 : -1;
    if (l.lo != r.lo) return l.lo > r.lo ? 1 : -1;
    return 0;
}

#endif

int un_orient(un_pt a, un_pt b, un_pt c)
{
    int64_t v = un_cross(b.x - a.x, b.y - a.y, c.x - a.x, c.y - a.y);
    return (v > 0) - (v < 0);
}

/* Half-plane of a direction: 0 for angles in [0, pi), 1 for [pi, 2pi). */
static int half(int64_t x, int64_t y)
{
    return y < 0 || (y == 0 && x < 0);
}

int un_angle_cmp(int64_t ax, int64_t ay, int64_t bx, int64_t by)
{
    int ha = half(ax, ay), hb = half(bx, by);
    if (ha != hb) return ha - hb;
    /* same half plane: a before b when b is to the left of a */
    return -un_sign_mul_sub(ax, by, ay, bx);
}

int un_angle_cmp_from(int64_t ax, int64_t ay, int64_t d1x, int64_t d1y, int64_t d2x, int64_t d2y)
{
    /* express d1 and d2 in a frame whose x axis is a: (a.d, a x d) */
    return un_angle_cmp(ax * d1x + ay * d1y, un_cross(ax, ay, d1x, d1y),
                        ax * d2x + ay * d2y, un_cross(ax, ay, d2x, d2y));
}

int un_in_arc(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t dx, int64_t dy,
              int incl_a, int incl_b)
{
    int c;
    /* d along a: angle 0 */
    if (un_cross(ax, ay, dx, dy) == 0 && ax * dx + ay * dy > 0) return incl_a;
    c = un_angle_cmp_from(ax, ay, dx, dy, bx, by);
    if (c == 0) return incl_b;
    return c < 0;
}

/* ------------------------------------------------------ rational points
 * p = base + dir * n / d.  Every test is multiplied through by d > 0 and
 * becomes the sign of d*A + n*B with A, B below 2^62: one 128-bit compare. */

int un_rpt_cmp_x(const un_rpt *p, int64_t X)
{
    return un_sign_mul_sub(p->d, p->base.x - X, -p->dx, p->n);
}

int un_rpt_cmp_y(const un_rpt *p, int64_t Y)
{
    return un_sign_mul_sub(p->d, p->base.y - Y, -p->dy, p->n);
}

int un_rpt_orient(un_pt a, un_pt b, const un_rpt *p)
{
    int64_t ex = b.x - a.x, ey = b.y - a.y;
    int64_t c1 = un_cross(ex, ey, p->base.x - a.x, p->base.y - a.y);
    int64_t c2 = un_cross(ex, ey, p->dx, p->dy);
    return un_sign_mul_sub(p->d, c1, -c2, p->n);
}

int un_rpt_edge_step(un_pt a, un_pt b, const un_rpt *p, double py)
{
    int ya, yb, o;
    if (((double)a.y > py + 1 && (double)b.y > py + 1) || ((double)a.y < py - 1 && (double)b.y < py - 1))
        return 0;
    ya = un_rpt_cmp_y(p, a.y);
    yb = un_rpt_cmp_y(p, b.y);
    /* quick reject: p strictly above or below the edge */
    if (ya > 0 && yb > 0) return 0;
    o = un_rpt_orient(a, b, p);
    if (o == 0 && ya * yb <= 0) {
        int xa = un_rpt_cmp_x(p, a.x), xb = un_rpt_cmp_x(p, b.x);
        if (xa * xb <= 0) return -1;
    }
    /* crossing with the half-open rule: edge spans p.y (a.y > y) != (b.y > y) */
    return (ya < 0) != (yb < 0) && ((b.y > a.y) ? o > 0 : o < 0);
}

int un_rpt_in_ring(const un_pt *r, int32_t n, const un_rpt *p)
{
    /* p.y in double is off by far less than one grid unit: edges more than
     * a unit above or below it are settled without exact arithmetic */
    double py = un_rpt_y_approx(p);
    int32_t i;
    int in = 0;
    for (i = 0; i < n; i++) {
        int step = un_rpt_edge_step(r[i], r[(i + 1) % n], p, py);
        if (step < 0) return -1;
        in ^= step;
    }
    return in;
}
