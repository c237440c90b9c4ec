/* SPDX-License-Identifier: MIT */
/* Exact hash sets (open addressing, linear probing): what users write instead of a filter. */
#ifndef BB_HASHSET_H
#define BB_HASHSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* uint64 keys: one 8-byte slot per key at load <= 1/2; key 0 is kept in a flag. */
typedef struct bb_set64 {
    uint64_t *slots;
    uint64_t mask;
    bool has_zero;
    size_t n;
} bb_set64;

int bb_set64_init(bb_set64 *s, size_t n);
void bb_set64_clear(bb_set64 *s);
void bb_set64_free(bb_set64 *s);
void bb_set64_insert(bb_set64 *s, uint64_t key);
bool bb_set64_contains(const bb_set64 *s, uint64_t key);
size_t bb_set64_bytes(const bb_set64 *s);

/* Byte-string keys: slots of (XXH3 hash, arena reference) at load <= 1/2; the keys are copied
 * into an arena, as a set that owns its strings must. */
typedef struct bb_setstr_slot {
    uint64_t hash;
    uint64_t ref; /* (offset + 1) << 16 | length; 0 = empty */
} bb_setstr_slot;

typedef struct bb_setstr {
    bb_setstr_slot *slots;
    uint64_t mask;
    char *arena;
    size_t used, cap;
    size_t n;
} bb_setstr;

int bb_setstr_init(bb_setstr *s, size_t n, size_t arena_bytes);
void bb_setstr_clear(bb_setstr *s);
void bb_setstr_free(bb_setstr *s);
/* Returns false when the arena is full. */
bool bb_setstr_insert(bb_setstr *s, const void *key, size_t len);
bool bb_setstr_contains(const bb_setstr *s, const void *key, size_t len);
size_t bb_setstr_bytes(const bb_setstr *s);

#endif
