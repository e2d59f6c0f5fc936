/*
 * rng.c - PCG32 (O'Neill): small, fast, and the same sequence on every
 * platform, so a seed reproduces a search bit for bit.
 */
#include "engine.h"

void un_rng_seed(un_rng *g, uint64_t seed, uint64_t stream)
{
    g->state = 0;
    g->inc = (stream << 1) | 1u;
    un_rng_u32(g);
    g->state += seed;
    un_rng_u32(g);
}

uint32_t un_rng_u32(un_rng *g)
{
    uint64_t old = g->state;
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    g->state = old * 6364136223846793005ULL + g->inc;
    return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
}

double un_rng_unit(un_rng *g)
{
    /* 53 random bits */
    uint64_t hi = un_rng_u32(g) >> 5, lo = un_rng_u32(g) >> 6;
    return (double)(hi * 67108864u + lo) / 9007199254740992.0;
}

int32_t un_rng_below(un_rng *g, int32_t n)
{
    /* Lemire's multiply-shift with rejection: unbiased */
    uint32_t bound = (uint32_t)n, x = un_rng_u32(g);
    uint64_t m = (uint64_t)x * bound;
    uint32_t l = (uint32_t)m;
    if (l < bound) {
        uint32_t t = (uint32_t)(-bound) % bound;
        while (l < t) {
            x = un_rng_u32(g);
            m = (uint64_t)x * bound;
            l = (uint32_t)m;
        }
    }
    return (int32_t)(m >> 32);
}
