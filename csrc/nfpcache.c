/*
 * nfpcache.c - a bounded least-recently-used cache of no-fit polygons.
 *
 * Keyed by (fixed island, moving island, their flips, their angle
 * difference, their shrink levels, the versions of contact orientations): the no-fit polygon of two islands only
 * depends on their relative orientation, so it is stored in the fixed
 * island's frame and rotated into place when used.  The memory budget
 * counts the polygons and the bookkeeping; the least recently used entries
 * are evicted first.  Entries handed out since the last release are pinned:
 * a collision-free region computation holds several at once, and they must
 * not be freed under it (the cache may exceed its budget by those).
 *
 * Entries are allocated one by one so that handed-out pointers stay valid
 * while the table grows.
 */
#include "engine.h"

typedef struct entry {
    un_nfpkey     key;
    un_nfpval     val;
    struct entry *hnext;          /* hash chain */
    struct entry *prev, *next;    /* LRU list, most recent first */
    int32_t       pin;
    size_t        bytes;
} entry;

struct un_nfpcache {
    entry  **bucket;
    size_t   nbucket, count;
    entry   *head, *tail;
    size_t   bytes, budget;
    int32_t  stamp;
    int64_t  hits, misses;
};

static uint64_t hash_key(const un_nfpkey *k)
{
    uint64_t h = 1469598103934665603ULL;
    const int32_t v[9] = {k->i, k->k, k->fi, k->fk, k->da, k->si, k->sk, k->vi, k->vk};
    int32_t j;
    for (j = 0; j < 9; j++) {
        h ^= (uint64_t)(uint32_t)v[j];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static int key_eq(const un_nfpkey *a, const un_nfpkey *b)
{
    return a->i == b->i && a->k == b->k && a->fi == b->fi && a->fk == b->fk && a->da == b->da &&
           a->si == b->si && a->sk == b->sk && a->vi == b->vi && a->vk == b->vk;
}

un_nfpcache *un_nfpcache_new(size_t budget_bytes)
{
    un_nfpcache *c = (un_nfpcache *)calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nbucket = 1024;
    c->bucket = (entry **)calloc(c->nbucket, sizeof *c->bucket);
    if (!c->bucket) { free(c); return NULL; }
    c->budget = budget_bytes;
    c->stamp = 1;
    return c;
}

void un_nfpcache_set_budget(un_nfpcache *c, size_t budget_bytes)
{
    c->budget = budget_bytes;
}

static void lru_unlink(un_nfpcache *c, entry *e)
{
    if (e->prev) e->prev->next = e->next; else c->head = e->next;
    if (e->next) e->next->prev = e->prev; else c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_front(un_nfpcache *c, entry *e)
{
    e->next = c->head;
    e->prev = NULL;
    if (c->head) c->head->prev = e;
    c->head = e;
    if (!c->tail) c->tail = e;
}

static void drop(un_nfpcache *c, entry *e)
{
    entry **p = &c->bucket[hash_key(&e->key) & (c->nbucket - 1)];
    while (*p != e) p = &(*p)->hnext;
    *p = e->hnext;
    lru_unlink(c, e);
    c->bytes -= e->bytes;
    c->count--;
    un_rings_free(&e->val.rings);
    free(e);
}

void un_nfpcache_clear(un_nfpcache *c)
{
    while (c->head) drop(c, c->head);
}

void un_nfpcache_free(un_nfpcache *c)
{
    if (!c) return;
    un_nfpcache_clear(c);
    free(c->bucket);
    free(c);
}

const un_nfpval *un_nfpcache_get(un_nfpcache *c, const un_nfpkey *key)
{
    entry *e = c->bucket[hash_key(key) & (c->nbucket - 1)];
    for (; e; e = e->hnext) {
        if (!key_eq(&e->key, key)) continue;
        lru_unlink(c, e);
        lru_front(c, e);
        e->pin = c->stamp;
        c->hits++;
        return &e->val;
    }
    c->misses++;
    return NULL;
}

static void grow(un_nfpcache *c)
{
    size_t nb = c->nbucket * 2, j;
    entry **b = (entry **)calloc(nb, sizeof *b);
    entry *e;
    if (!b) return; /* keep the old table: longer chains, still correct */
    for (e = c->head; e; e = e->next) {
        size_t h = hash_key(&e->key) & (nb - 1);
        e->hnext = b[h];
        b[h] = e;
    }
    for (j = 0; j < c->nbucket; j++) c->bucket[j] = NULL;
    free(c->bucket);
    c->bucket = b;
    c->nbucket = nb;
}

un_status un_nfpcache_put(un_nfpcache *c, const un_nfpkey *key, un_rings *rings, const un_nfpval **out)
{
    entry *e = (entry *)calloc(1, sizeof *e);
    size_t h;
    if (!e) return UN_ENOMEM;
    e->key = *key;
    e->val.rings = *rings;       /* take ownership */
    un_rings_init(rings);
    un_rings_bbox(&e->val.rings, &e->val.lo, &e->val.hi);
    {
        /* the core is found once here and moved with the polygon */
        double *scratch = NULL;
        int32_t cap = 0;
        un_status s = un_core_find(&e->val.rings, 0, e->val.rings.nrings, e->val.lo, e->val.hi, &scratch, &cap,
                                   &e->val.core, &e->val.has_core);
        free(scratch);
        if (s != UN_OK) {
            *rings = e->val.rings;   /* ownership stays with the caller */
            free(e);
            return s;
        }
    }
    e->bytes = sizeof *e + (size_t)e->val.rings.cap_pts * sizeof(un_pt) +
               (size_t)e->val.rings.cap_rings * sizeof(int32_t);
    e->pin = c->stamp;
    /* evict unpinned entries from the cold end */
    while (c->bytes + e->bytes > c->budget && c->tail && c->tail->pin != c->stamp) drop(c, c->tail);
    if (c->count + 1 > c->nbucket) grow(c);
    h = hash_key(key) & (c->nbucket - 1);
    e->hnext = c->bucket[h];
    c->bucket[h] = e;
    lru_front(c, e);
    c->bytes += e->bytes;
    c->count++;
    *out = &e->val;
    return UN_OK;
}

void un_nfpcache_release(un_nfpcache *c)
{
    c->stamp++;
}

size_t un_nfpcache_bytes(const un_nfpcache *c) { return c->bytes; }
int64_t un_nfpcache_hits(const un_nfpcache *c) { return c->hits; }
int64_t un_nfpcache_misses(const un_nfpcache *c) { return c->misses; }
