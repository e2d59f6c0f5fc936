/*
 * pow2.c - power-of-two squares with zero waste (quadtree slot counting, as
 * Magnum's atlasArrayPowerOfTwo does).
 *
 * Squares sorted by size, largest first, are laid along the Z-order
 * (Morton) curve of a layer: the area used so far is a multiple of the next
 * square's area (every earlier square is a larger power of two), so its
 * slot number times its size decodes to a free, aligned position, and the
 * squares tile each layer without a gap.  A layer is full when its area is
 * used up; every layer but the last is therefore full.  Sorting is a
 * counting sort by exponent: linear time.
 */
#include "internal.h"

static int32_t log2_exact(int64_t v)
{
    int32_t e = 0;
    if (v <= 0 || (v & (v - 1))) return -1;
    while ((v >> e) > 1) e++;
    return e;
}

/* x and y of Morton index m (bits interleaved, x in the even bits). */
static void morton_decode(uint64_t m, int64_t *x, int64_t *y)
{
    int32_t b;
    *x = *y = 0;
    for (b = 0; b < 32; b++) {
        *x |= (int64_t)((m >> (2 * b)) & 1u) << b;
        *y |= (int64_t)((m >> (2 * b + 1)) & 1u) << b;
    }
}

un_status un_pack_pow2(const int64_t *sizes, int32_t n, int64_t layer, int64_t *out_xyl, int32_t *nlayers)
{
    int32_t le = log2_exact(layer), e, i, *count = NULL, *order = NULL;
    uint64_t used = 0, area;
    int64_t lay = 0;
    *nlayers = 0;
    if (le < 0 || le > 30 || n < 0) return UN_EINVAL;
    for (i = 0; i < n; i++) {
        e = log2_exact(sizes[i]);
        if (e < 0 || e > le) return UN_EINVAL;
    }
    count = (int32_t *)calloc((size_t)le + 2, sizeof *count);
    order = (int32_t *)malloc(((size_t)n + 1) * sizeof *order);
    if (!count || !order) { free(count); free(order); return UN_ENOMEM; }
    /* counting sort by exponent, largest first, stable */
    for (i = 0; i < n; i++) count[le - log2_exact(sizes[i]) + 1]++;
    for (e = 0; e <= le; e++) count[e + 1] += count[e];
    for (i = 0; i < n; i++) order[count[le - log2_exact(sizes[i])]++] = i;
    area = (uint64_t)layer * (uint64_t)layer;
    for (i = 0; i < n; i++) {
        int32_t k = order[i];
        uint64_t s = (uint64_t)sizes[k], slot;
        int64_t x, y;
        if (used == area) { used = 0; lay++; }
        slot = used / (s * s);
        morton_decode(slot, &x, &y);
        out_xyl[3 * k] = x * (int64_t)s;
        out_xyl[3 * k + 1] = y * (int64_t)s;
        out_xyl[3 * k + 2] = lay;
        used += s * s;
    }
    *nlayers = n ? (int32_t)lay + 1 : 0;
    free(count);
    free(order);
    return UN_OK;
}
