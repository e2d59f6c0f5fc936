/*
 * test_mem.c - buffers, ring sets, ring cleaning and the stable sort (mem.c).
 */
#include "tu.h"

static void test_status_strings(void)
{
    un_status all[] = {UN_OK, UN_ENOMEM, UN_EINVAL, UN_ERANGE, UN_ECANCELLED, UN_ENOFIT, UN_EINTERNAL};
    int i, j, n = (int)(sizeof all / sizeof all[0]);
    for (i = 0; i < n; i++) {
        CHECK(un_status_str(all[i]) != NULL && strlen(un_status_str(all[i])) > 0);
        for (j = 0; j < i; j++) CHECK(strcmp(un_status_str(all[i]), un_status_str(all[j])) != 0);
    }
    CHECK(un_status_str((un_status)1234) != NULL);
}

static void test_reserve(void)
{
    int64_t *buf = NULL;
    int32_t cap = 0;
    int64_t need;
    CHECK_OK(UN_RESERVE(buf, cap, 0));
    CHECK_OK(UN_RESERVE(buf, cap, 1));
    CHECK(cap >= 1 && buf != NULL);
    for (need = 1; need < 5000; need = need * 3 + 1) {
        int64_t i;
        CHECK_OK(UN_RESERVE(buf, cap, need));
        CHECK(cap >= need);
        for (i = 0; i < need; i++) buf[i] = i; /* ASAN: the whole range is writable */
    }
    CHECK_STATUS(UN_RESERVE(buf, cap, (int64_t)INT32_MAX), UN_ERANGE);
    CHECK(cap >= 1); /* unchanged on failure */
    free(buf);
}

static void test_rings_basic(void)
{
    un_rings r, c;
    const int64_t sq[] = {0, 0, 4, 0, 4, 4, 0, 4};
    const int64_t tri[] = {10, 10, 12, 10, 10, 13};
    un_pt lo, hi;
    un_rings_init(&r);
    un_rings_init(&c);
    CHECK_EQ(un_rings_npts(&r), 0);
    tu_add(&r, sq, 4);
    tu_add_rev(&r, tri, 3);
    CHECK_EQ(r.nrings, 2);
    CHECK_EQ(un_rings_npts(&r), 7);
    CHECK_EQ(r.start[0], 0);
    CHECK_EQ(r.start[1], 4);
    CHECK_EQ(r.start[2], 7);
    CHECK_NEAR(un_ring_area2(&r, 0), 32, 0);
    CHECK_NEAR(un_ring_area2(&r, 1), -6, 0);
    un_rings_bbox(&r, &lo, &hi);
    CHECK(lo.x == 0 && lo.y == 0 && hi.x == 12 && hi.y == 13);
    CHECK_OK(un_rings_copy(&c, &r));
    CHECK_EQ(c.nrings, 2);
    CHECK(memcmp(c.pts, r.pts, 7 * sizeof(un_pt)) == 0);
    CHECK_STATUS(un_rings_add(&c, NULL, -1), UN_EINVAL);
    CHECK_OK(un_rings_add(&c, NULL, 0));
    CHECK_EQ(c.nrings, 3);
    un_rings_clear(&c);
    CHECK_EQ(c.nrings, 0);
    CHECK_EQ(un_rings_npts(&c), 0);
    un_rings_free(&r);
    un_rings_free(&c);
    CHECK(r.pts == NULL && r.nrings == 0);
    un_rings_free(&r); /* freeing twice is harmless */
}

static void test_area_large_coordinates(void)
{
    un_rings r;
    const int64_t L = UN_COORD_LIMIT;
    int64_t big[8];
    un_rings_init(&r);
    big[0] = -L; big[1] = -L; big[2] = L; big[3] = -L; big[4] = L; big[5] = L; big[6] = -L; big[7] = L;
    tu_add(&r, big, 4);
    CHECK_NEAR(un_ring_area2(&r, 0), 2.0 * (2.0 * L) * (2.0 * L), 0);
    un_rings_free(&r);
}

static void test_clean(void)
{
    un_rings r;
    /* repeated points, a straight vertex and a spike */
    const int64_t a[] = {0, 0, 0, 0, 2, 0, 4, 0, 4, 4, 4, 6, 4, 4, 0, 4, 0, 0};
    /* a ring that is only a there-and-back segment */
    const int64_t seg[] = {0, 0, 5, 5, 0, 0};
    /* removing a spike exposes another straight vertex */
    const int64_t b[] = {0, 0, 3, 0, 6, 0, 6, 3, 8, 3, 6, 3, 6, 6, 0, 6};
    const int64_t want_a[] = {0, 0, 4, 0, 4, 4, 0, 4};
    const int64_t want_b[] = {0, 0, 6, 0, 6, 6, 0, 6};
    un_rings_init(&r);
    tu_add(&r, a, 9);
    tu_add(&r, seg, 3);
    tu_add(&r, b, 8);
    CHECK_OK(un_rings_clean(&r, 0));
    CHECK_EQ(r.nrings, 2);
    CHECK(tu_has_ring(&r, want_a, 4));
    CHECK(tu_has_ring(&r, want_b, 4));
    CHECK_EQ(un_rings_npts(&r), 8);
    un_rings_clear(&r);
    /* keep_spikes: the spike and the segment stay, repeats and straight
     * vertices go */
    tu_add(&r, a, 9);
    tu_add(&r, seg, 3);
    CHECK_OK(un_rings_clean(&r, 1));
    CHECK_EQ(r.nrings, 2);
    {
        /* (4, 4) before the spike is straight ((4, 0) -> (4, 4) -> (4, 6)) */
        const int64_t want_spiky[] = {0, 0, 4, 0, 4, 6, 4, 4, 0, 4};
        const int64_t want_seg[] = {0, 0, 5, 5};
        CHECK(tu_has_ring(&r, want_spiky, 5));
        CHECK(tu_has_ring(&r, want_seg, 2));
    }
    un_rings_clear(&r);
    /* a single point and a collapsed ring */
    {
        const int64_t p[] = {3, 3, 3, 3, 3, 3};
        tu_add(&r, p, 3);
        CHECK_OK(un_rings_clean(&r, 0));
        CHECK_EQ(r.nrings, 0);
        tu_add(&r, p, 3);
        CHECK_OK(un_rings_clean(&r, 1));
        CHECK_EQ(r.nrings, 1);
        CHECK_EQ(un_rings_npts(&r), 1);
    }
    un_rings_free(&r);
}

typedef struct {
    const int32_t *key;
} key_ctx;

static int cmp_key(int32_t a, int32_t b, const void *ctx)
{
    const key_ctx *c = (const key_ctx *)ctx;
    return (c->key[a] > c->key[b]) - (c->key[a] < c->key[b]);
}

static void test_sort_stable(void)
{
    uint64_t s = 5;
    int32_t n;
    for (n = 0; n <= 3000; n = n < 40 ? n + 1 : n * 2) {
        int32_t *v = (int32_t *)malloc(((size_t)n + 1) * sizeof *v);
        int32_t *tmp = (int32_t *)malloc(((size_t)n + 1) * sizeof *tmp);
        int32_t *key = (int32_t *)malloc(((size_t)n + 1) * sizeof *key);
        int32_t i, mode;
        key_ctx c;
        c.key = key;
        for (mode = 0; mode < 4; mode++) {
            int ok = 1;
            for (i = 0; i < n; i++) {
                v[i] = i;
                key[i] = mode == 0 ? (int32_t)(tu_rand(&s) % 7)          /* many ties */
                       : mode == 1 ? i                                   /* sorted */
                       : mode == 2 ? n - i                               /* reversed */
                       : (int32_t)(tu_rand(&s) % 1000000);
            }
            un_sort_idx(v, n, cmp_key, &c, tmp);
            for (i = 1; i < n; i++) {
                if (key[v[i - 1]] > key[v[i]]) ok = 0;
                if (key[v[i - 1]] == key[v[i]] && v[i - 1] > v[i]) ok = 0; /* stable */
            }
            {   /* a permutation */
                int32_t *seen = (int32_t *)calloc((size_t)n + 1, sizeof *seen);
                for (i = 0; i < n; i++) {
                    if (v[i] < 0 || v[i] >= n || seen[v[i]]) ok = 0;
                    else seen[v[i]] = 1;
                }
                free(seen);
            }
            CHECK_MSG(ok, "n=%d mode=%d", (int)n, mode);
        }
        free(v); free(tmp); free(key);
    }
}

static void test_frings(void)
{
    un_frings f;
    un_fregions g;
    const double xy[] = {0, 0, 1, 0, 1, 1, 0.5, 2};
    un_frings_init(&f);
    CHECK_EQ(un_frings_npts(&f), 0);
    CHECK_OK(un_frings_add(&f, xy, 4));
    CHECK_OK(un_frings_add(&f, xy, 3));
    CHECK_STATUS(un_frings_add(&f, xy, -2), UN_EINVAL);
    CHECK_EQ(f.nrings, 2);
    CHECK_EQ(un_frings_npts(&f), 7);
    CHECK(f.xy[2 * 4] == 0 && f.xy[2 * 6 + 1] == 1);
    un_frings_free(&f);
    CHECK(f.xy == NULL && f.nrings == 0);
    memset(&g, 0, sizeof g);
    un_fregions_free(&g);
    CHECK(g.nregions == 0);
}

int main(void)
{
    RUN(test_status_strings);
    RUN(test_reserve);
    RUN(test_rings_basic);
    RUN(test_area_large_coordinates);
    RUN(test_clean);
    RUN(test_sort_stable);
    RUN(test_frings);
    return tu_report("test_mem");
}
