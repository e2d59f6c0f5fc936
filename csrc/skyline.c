/*
 * skyline.c - rectangles by skyline bottom-left (as stb_rect_pack does),
 * with 90 degree turns: the fast path of shape='box'.
 *
 * The skyline is the upper edge of what has been placed, a list of
 * horizontal segments from x = 0 to the container's width.  A rectangle may
 * rest with its left side on any segment's start; it sits on the highest
 * segment below it.  Among all such places (both orientations) the lowest,
 * then the leftmost, wins; or, by the best-fit rule (stb_rect_pack's
 * "best fit" skyline heuristic), the one that leaves the least area empty
 * under the rectangle, then the lowest, then the leftmost.  The skyline
 * then gets a segment at the rectangle's top, replacing what it covers.
 */
#include "internal.h"

typedef struct {
    double x, y, w;
} node;

struct un_skyline {
    node   *nd;  int32_t cap;
    int32_t n;
    double  W, H;
};

un_skyline *un_skyline_new(void)
{
    return (un_skyline *)calloc(1, sizeof(un_skyline));
}

void un_skyline_free(un_skyline *s)
{
    if (s) free(s->nd);
    free(s);
}

un_status un_skyline_reset(un_skyline *s, double W, double H)
{
    un_status st = UN_RESERVE(s->nd, s->cap, 16);
    if (st != UN_OK) return st;
    s->n = 1;
    s->nd[0].x = 0;
    s->nd[0].y = 0;
    s->nd[0].w = W;
    s->W = W;
    s->H = H;
    return UN_OK;
}

/* Height a w-wide rectangle rests at when its left side is at node i's
 * start; < 0 when it sticks out of the container on the right. */
static double rest_height(const un_skyline *s, int32_t i, double w)
{
    double x = s->nd[i].x, y = 0, end = x + w;
    int32_t j;
    if (end > s->W) return -1;
    for (j = i; j < s->n && s->nd[j].x < end; j++)
        if (s->nd[j].y > y) y = s->nd[j].y;
    return y;
}

/* Area left empty under a w-wide rectangle resting at height y with its
 * left side at node i's start. */
static double waste_under(const un_skyline *s, int32_t i, double w, double y)
{
    double x = s->nd[i].x, end = x + w, waste = 0;
    int32_t j;
    for (j = i; j < s->n && s->nd[j].x < end; j++) {
        double b = s->nd[j].x + s->nd[j].w;
        waste += (y - s->nd[j].y) * ((b < end ? b : end) - s->nd[j].x);
    }
    return waste;
}

int un_skyline_place(un_skyline *s, double w, double h, int rot, int fit, double *x, double *y, int *rotated)
{
    int32_t i, best = -1, o;
    double by = 0, bx = 0, bw = 0;
    int brot = 0;
    for (o = 0; o < (rot ? 2 : 1); o++) {
        double rw = o ? h : w, rh = o ? w : h;
        for (i = 0; i < s->n; i++) {
            double ry = rest_height(s, i, rw), waste;
            if (ry < 0 || ry + rh > s->H) continue;
            waste = fit ? waste_under(s, i, rw, ry) : 0;
            if (best < 0 || waste < bw || (waste == bw && (ry < by || (ry == by && s->nd[i].x < bx)))) {
                best = i;
                by = ry;
                bx = s->nd[i].x;
                bw = waste;
                brot = o;
            }
        }
    }
    if (best < 0) return 0;
    *x = bx;
    *y = by;
    *rotated = brot;
    return 1;
}

un_status un_skyline_add(un_skyline *s, double x, double y, double w, double h)
{
    /* replace the part of the skyline under [x, x + w) by one segment */
    double end = x + w;
    int32_t i, j, k = 0;
    node *tmp;
    un_status st = UN_RESERVE(s->nd, s->cap, (int64_t)s->n + 2);
    if (st != UN_OK) return st;
    tmp = (node *)malloc(((size_t)s->n + 2) * sizeof *tmp);
    if (!tmp) return UN_ENOMEM;
    for (i = 0; i < s->n && s->nd[i].x + s->nd[i].w <= x; i++) tmp[k++] = s->nd[i];
    if (i < s->n && s->nd[i].x < x) { /* keep the part left of x */
        tmp[k] = s->nd[i];
        tmp[k].w = x - s->nd[i].x;
        k++;
    }
    tmp[k].x = x; tmp[k].y = y + h; tmp[k].w = w; k++;
    for (j = i; j < s->n; j++) {
        double a = s->nd[j].x, b = a + s->nd[j].w;
        if (b <= end) continue;
        tmp[k] = s->nd[j];
        if (a < end) { tmp[k].x = end; tmp[k].w = b - end; }
        k++;
    }
    /* merge neighbours of equal height */
    s->n = 0;
    for (j = 0; j < k; j++) {
        if (s->n && s->nd[s->n - 1].y == tmp[j].y) s->nd[s->n - 1].w += tmp[j].w;
        else s->nd[s->n++] = tmp[j];
    }
    free(tmp);
    return UN_OK;
}
