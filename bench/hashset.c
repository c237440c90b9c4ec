/* SPDX-License-Identifier: MIT */
/* Exact hash sets (open addressing, linear probing): what users write instead of a filter. */
#include "hashset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bench_common.h"

static uint64_t pow2_at_least(size_t n)
{
    uint64_t c = 16;
    while (c < n)
        c <<= 1;
    return c;
}

/* Big tables come from mmap (with huge pages, as a careful user would ask for) and are touched
 * at once, like the filters, so neither side pays first-touch faults in the timed loops. */
static void *table_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    bb_advise_huge(p, bytes);
    memset(p, 0, bytes);
    return p;
}

int bb_set64_init(bb_set64 *s, size_t n)
{
    memset(s, 0, sizeof *s);
    uint64_t cap = pow2_at_least(2 * n);
    s->slots = table_alloc(cap * sizeof *s->slots);
    if (s->slots == NULL)
        return -1;
    s->mask = cap - 1;
    return 0;
}

void bb_set64_clear(bb_set64 *s)
{
    memset(s->slots, 0, (s->mask + 1) * sizeof *s->slots);
    s->has_zero = false;
    s->n = 0;
}

void bb_set64_free(bb_set64 *s)
{
    if (s->slots != NULL)
        munmap(s->slots, (s->mask + 1) * sizeof *s->slots);
    memset(s, 0, sizeof *s);
}

void bb_set64_insert(bb_set64 *s, uint64_t key)
{
    if (key == 0) {
        s->n += !s->has_zero;
        s->has_zero = true;
        return;
    }
    for (uint64_t i = bb_mix(key) & s->mask;; i = (i + 1) & s->mask) {
        if (s->slots[i] == key)
            return;
        if (s->slots[i] == 0) {
            s->slots[i] = key;
            s->n++;
            return;
        }
    }
}

bool bb_set64_contains(const bb_set64 *s, uint64_t key)
{
    if (key == 0)
        return s->has_zero;
    for (uint64_t i = bb_mix(key) & s->mask;; i = (i + 1) & s->mask) {
        if (s->slots[i] == key)
            return true;
        if (s->slots[i] == 0)
            return false;
    }
}

size_t bb_set64_bytes(const bb_set64 *s) { return (s->mask + 1) * sizeof *s->slots; }

int bb_setstr_init(bb_setstr *s, size_t n, size_t arena_bytes)
{
    memset(s, 0, sizeof *s);
    uint64_t cap = pow2_at_least(2 * n);
    s->slots = table_alloc(cap * sizeof *s->slots);
    s->arena = malloc(arena_bytes ? arena_bytes : 1);
    if (s->slots == NULL || s->arena == NULL) {
        bb_setstr_free(s);
        return -1;
    }
    /* The arena is touched too: bench_filters times the inserts of the last keys of a large
     * build, whose copies land on arena pages nothing had written yet (a first-touch fault
     * every ~80 URLs charged to the set's insert column). */
    bb_touch(s->arena, arena_bytes);
    s->mask = cap - 1;
    s->cap = arena_bytes;
    return 0;
}

void bb_setstr_clear(bb_setstr *s)
{
    memset(s->slots, 0, (s->mask + 1) * sizeof *s->slots);
    s->used = 0;
    s->n = 0;
}

void bb_setstr_free(bb_setstr *s)
{
    if (s->slots != NULL)
        munmap(s->slots, (s->mask + 1) * sizeof *s->slots);
    free(s->arena);
    memset(s, 0, sizeof *s);
}

static bool slot_is(const bb_setstr *s, const bb_setstr_slot *sl, uint64_t h, const void *key,
                    size_t len)
{
    return sl->hash == h && (sl->ref & 0xffff) == len &&
           memcmp(s->arena + (sl->ref >> 16) - 1, key, len) == 0;
}

bool bb_setstr_insert(bb_setstr *s, const void *key, size_t len)
{
    const uint64_t h = XXH3_64bits(key, len);
    for (uint64_t i = h & s->mask;; i = (i + 1) & s->mask) {
        bb_setstr_slot *sl = &s->slots[i];
        if (sl->ref == 0) {
            if (s->used + len > s->cap || len > 0xffff)
                return false;
            memcpy(s->arena + s->used, key, len);
            sl->hash = h;
            sl->ref = ((uint64_t)(s->used + 1) << 16) | len;
            s->used += len;
            s->n++;
            return true;
        }
        if (slot_is(s, sl, h, key, len))
            return true;
    }
}

bool bb_setstr_contains(const bb_setstr *s, const void *key, size_t len)
{
    const uint64_t h = XXH3_64bits(key, len);
    for (uint64_t i = h & s->mask;; i = (i + 1) & s->mask) {
        const bb_setstr_slot *sl = &s->slots[i];
        if (sl->ref == 0)
            return false;
        if (slot_is(s, sl, h, key, len))
            return true;
    }
}

size_t bb_setstr_bytes(const bb_setstr *s)
{
    return (s->mask + 1) * sizeof *s->slots + s->used;
}
