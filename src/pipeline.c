/* SPDX-License-Identifier: MIT */
/* The batched pipeline shared by every layout that probes one block per key. */
#include "pipeline.h"

/* Byte keys may prefetch the bytes of any key before `limit`, so the stream runs on across the
 * chunk edge while the chunk is probed. Byte keys keep the full chunk: at 2^20 URL keys 512
 * measured the same as 1024, 256 0.2-0.7 and 128 0.9-1.6 ns/key slower (each kernel call
 * restarts its line window, ~35 ns). Prefetching the next keys' bytes in bursts between probe
 * calls gained nothing; prefetching the chunk's filter lines while hashing was ~1 ns/key slower
 * (it competes with the key stream for the same fill buffers). */
void bl_hash_keys(const bl_filter *f, const bl_keys *keys, size_t from, size_t count, size_t limit,
                  uint64_t *out)
{
    switch (keys->kind) {
    case BL_KEYS_BYTES:
        if (f->hash == BL_HASH_XXH64 && f->kern->hash_bytes_xxh64)
            f->kern->hash_bytes_xxh64(f->seed, keys->bytes, keys->lens, from, count, limit, out);
        else if (f->hash == BL_HASH_XXH3 && f->kern->hash_bytes_xxh3)
            f->kern->hash_bytes_xxh3(f->seed, keys->bytes, keys->lens, from, count, limit, out);
        else
            bl_hash_bytes_batch(f->hash, f->seed, keys->bytes, keys->lens, from, count, limit,
                                out);
        break;
    case BL_KEYS_U64:
        switch (f->hash) {
        case BL_HASH_XXH3: f->kern->hash_u64_xxh3(keys->values + from, count, f->seed, out); break;
        case BL_HASH_XXH64: f->kern->hash_u64_xxh64(keys->values + from, count, f->seed, out); break;
        case BL_HASH_MURMUR3_128: /* classic (bl_hash_u64_batch only): no vector kernel */
            for (size_t i = 0; i < count; i++)
                out[i] = bl_hash_u64(f, keys->values[from + i]);
            break;
        }
        break;
    case BL_KEYS_HASH:
        memcpy(out, keys->values + from, count * sizeof *out);
        break;
    }
}

/* The uint64 keys the next step will hash, [from, from + CHUNK), fetched while this step probes.
 * Hashing them is a burst of ~0.3 ns per key that otherwise waits on the key stream from memory
 * while the probe's window runs dry: at 2^24 keys on an AMD Zen 4, alternated in one process,
 * 5.27 against 5.83 and 4.34 against 4.48 ns/key, 2% at 2^27. Not in cache, where it cost 4%.
 * (Byte keys prefetch their own bytes as they are hashed: bl_hash_bytes_batch.) */
static void prefetch_next_u64(const uint64_t *values, size_t from, size_t n)
{
    const size_t to = n - from > BL_PIPELINE_CHUNK ? from + BL_PIPELINE_CHUNK : n;
    for (size_t j = from; j < to; j += 64 / sizeof *values)
        BL_PREFETCH_R(values + j);
}

/* Hits to take back among keys [base, base + n) of an unchecked query, whose hashes are h: a
 * NULL key of non-zero length was hashed as the empty key and answered so; it is absent. The
 * scan finds the chunk's pointers in cache, just read by the hash stage, where a separate pass
 * over the batch before hashing read them from memory (~0.3 ns/key at 2^20 URL keys). */
static size_t take_back_null_keys(bl_filter *f, const bl_keys *keys, size_t base, size_t n,
                                  const uint64_t *h, uint8_t *res, bl_stage_fn fn, void *ctx)
{
    const void *const *bytes = keys->bytes + base;
    const size_t *lens = keys->lens + base;
    if (bl_byte_keys_valid(f, bytes, lens, n))
        return 0;
    size_t undone = 0;
    for (size_t i = 0; i < n; i++) {
        if (!bl_key_is_bad(bytes[i], lens[i]))
            continue;
        undone += res != NULL ? res[i] : fn(f, h + i, 1, 1, NULL, ctx);
        if (res != NULL)
            res[i] = 0;
    }
    return undone;
}

size_t bl_pipeline(bl_filter *f, const bl_keys *keys, size_t n, uint8_t *res, bl_stage_fn fn,
                   void *ctx)
{
    if (n == 0)
        return 0;
    if (keys->kind == BL_KEYS_HASH) { /* nothing to hash: the kernel rolls over the whole array */
        const size_t got = fn(f, keys->values, n, n, res, ctx);
        return got == BL_STAGE_STOP ? 0 : got;
    }
    /* buf holds hashes of keys [base, base + filled). Each step probes CHUNK of them while the
     * kernel prefetches up to its window's depth beyond, so the window never drains at chunk
     * edges. */
    enum { CAP = BL_PIPELINE_CHUNK + BL_DEEP_WINDOW };
    uint64_t buf[CAP];
    size_t filled = n < CAP ? n : CAP;
    bl_hash_keys(f, keys, 0, filled, n, buf);
    size_t base = 0, total = 0;
    const bool prefetch_keys = keys->kind == BL_KEYS_U64 && f->nbytes > BL_CACHE_RESIDENT_BYTES;
    for (;;) {
        const size_t nprobe = filled < BL_PIPELINE_CHUNK ? filled : BL_PIPELINE_CHUNK;
        if (prefetch_keys)
            prefetch_next_u64(keys->values, base + filled, n);
        uint8_t *const chunk_res = res ? res + base : NULL;
        const size_t got = fn(f, buf, nprobe, filled, chunk_res, ctx);
        if (got == BL_STAGE_STOP)
            break;
        total += got;
        if (keys->unchecked)
            total -= take_back_null_keys(f, keys, base, nprobe, buf, chunk_res, fn, ctx);
        base += nprobe;
        if (base >= n)
            break;
        const size_t keep = filled - nprobe;
        memmove(buf, buf + nprobe, keep * sizeof *buf);
        const size_t want = n - base < CAP ? n - base : CAP;
        if (want > keep)
            bl_hash_keys(f, keys, base + keep, want - keep, n, buf + keep);
        filled = want;
    }
    return total;
}
