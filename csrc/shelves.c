/*
 * shelves.c - rectangles on shelves, with 90 degree turns: box mode beyond
 * BOX_SHELF_AT rectangles, where the skyline's scans of its whole length
 * get too slow.
 *
 * A shelf is a horizontal band of the container, as tall as the rectangle
 * that opened it, filled from the left.  A rectangle goes on the first
 * shelf (or, by the best-fit rule, on the shelf that leaves the least area
 * empty above it) where it fits, at whichever of its two orientations
 * leaves less empty above it; when none has room, a new shelf opens on
 * top, the rectangle lying flat (its shorter side its height).  With the
 * rectangles by shorter side, longest first, every later one fits any
 * shelf's height lying flat, and may stand up on a taller one (first fit
 * decreasing height with turns).  Linear in the number of shelves per
 * placement.
 */
#include "internal.h"

typedef struct {
    double y, h, x;   /* bottom, height, width filled from the left */
} shelf;

struct un_shelves {
    shelf  *sh;  int32_t cap;
    int32_t n;
    double  W, H;
};

un_shelves *un_shelves_new(void)
{
    return (un_shelves *)calloc(1, sizeof(un_shelves));
}

void un_shelves_free(un_shelves *s)
{
    if (s) free(s->sh);
    free(s);
}

void un_shelves_reset(un_shelves *s, double W, double H)
{
    s->n = 0;
    s->W = W;
    s->H = H;
}

/* Area left empty above a w x h rectangle on shelf i, < 0 when it does not
 * fit there. */
static double shelf_waste(const un_shelves *s, int32_t i, double w, double h)
{
    if (h > s->sh[i].h || s->sh[i].x + w > s->W) return -1;
    return (s->sh[i].h - h) * w;
}

un_status un_shelves_place(un_shelves *s, double w, double h, int rot, int fit, double *x, double *y,
                           int *rotated, int *placed)
{
    int32_t i, best = -1, o;
    double bw = 0;
    int brot = 0;
    un_status st;
    *placed = 0;
    for (i = 0; i < s->n && (best < 0 || fit); i++)
        for (o = 0; o < (rot ? 2 : 1); o++) {
            double waste = shelf_waste(s, i, o ? h : w, o ? w : h);
            if (waste >= 0 && (best < 0 || waste < bw)) {
                best = i;
                bw = waste;
                brot = o;
            }
        }
    if (best < 0) {   /* a new shelf on top, the rectangle lying flat if it can */
        double top = s->n ? s->sh[s->n - 1].y + s->sh[s->n - 1].h : 0;
        brot = rot && h > w;
        if (brot ? h > s->W : w > s->W) brot = !brot;
        if (!rot && brot) return UN_OK;
        if ((brot ? h : w) > s->W || top + (brot ? w : h) > s->H) return UN_OK;
        if ((st = UN_RESERVE(s->sh, s->cap, (int64_t)s->n + 1)) != UN_OK) return st;
        best = s->n++;
        s->sh[best].y = top;
        s->sh[best].h = brot ? w : h;
        s->sh[best].x = 0;
    }
    *x = s->sh[best].x;
    *y = s->sh[best].y;
    *rotated = brot;
    s->sh[best].x += brot ? h : w;
    *placed = 1;
    return UN_OK;
}
