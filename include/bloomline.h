/* SPDX-License-Identifier: MIT */
/* bloomline: cache-line-blocked Bloom filters at memory speed. The only public header. */
#ifndef BLOOMLINE_H
#define BLOOMLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define BL_API
#elif defined(__GNUC__)
#define BL_API __attribute__((visibility("default")))
#else
#define BL_API
#endif

#define BLOOMLINE_VERSION_MAJOR 0
#define BLOOMLINE_VERSION_MINOR 1
#define BLOOMLINE_VERSION_PATCH 0
#define BLOOMLINE_VERSION_STRING "0.1.0"

/*
 * Thread safety
 * -------------
 * - Any number of threads may call the read-only functions (bl_contains*, bl_get_info, bl_save,
 *   bl_serialize, bl_export, ...) on a filter that no thread is modifying.
 * - Adding keys is not thread-safe by default. A filter created with BL_FLAG_CONCURRENT may be
 *   added to by many threads at once (bits are set with atomic OR, so no bit is ever lost) and
 *   queried at the same time; a query racing with an add of the same key may answer either way.
 *   (Queries read with plain SIMD loads, which C11 counts as a data race with the atomic ORs and
 *   ThreadSanitizer reports; on x86-64 and AArch64 each aligned word is read whole, old or new.)
 *   Only bl_clone keeps the flag: files do not record it, so loaded, mapped, deserialized and
 *   imported filters lack it, as do frozen ones. A scalable filter refuses it (BL_E_UNSUPPORTED:
 *   a new stage reallocates the chain under the adders).
 * - Faster for bulk builds, any filter of a line-local layout (blocked, sbbf, counting) may be
 *   built by several threads at once with bl_add_hash_batch_part, each thread owning one part
 *   of the filter's memory: plain stores, no atomics, no flag (see "Parallel builds").
 * - Functions never print or abort. They allocate only to create, load, map, deserialize,
 *   import, clone or freeze a filter, for the header block of bl_save and bl_save_fd, for the
 *   temporary file's name of bl_save and bl_export_save, for the 1 MiB piece in which
 *   bl_export_save and bl_export_fd convert a Guava export, and when adds or unions give a
 *   scalable filter new stages; a failed allocation is BL_E_NOMEM.
 * - Batched calls keep their hashes on the stack: up to ~22 KiB (a scalable query; ~10 KiB for
 *   the other layouts, gcc -fstack-usage on x86-64), which a thread with a small stack must spare.
 */

/* Every function that can fail returns a bl_status. Codes are appended, never renumbered. */
typedef enum bl_status {
    BL_OK = 0,
    BL_E_INVALID = 1,          /* an argument is invalid (NULL, n = 0, p outside (0,1), ...) */
    BL_E_NOMEM = 2,            /* allocation failed */
    BL_E_TOO_LARGE = 3,        /* the requested size overflows or exceeds a layout's limit */
    BL_E_UNSUPPORTED = 4,      /* kernel unknown or not supported by this CPU, an operation
                                  the layout does not have, or a filter an export's format
                                  cannot carry (or a variant an import does not read) */
    BL_E_MISMATCH = 5,         /* filters differ in identity (bl_same_identity) */
    BL_E_READ_ONLY = 6,        /* modifying a filter mapped read-only */
    BL_E_IO = 7,               /* a system call failed; errno tells which */
    BL_E_TRUNCATED = 8,        /* the file or buffer is shorter than its header says */
    BL_E_BAD_MAGIC = 9,        /* not a bloomline file */
    BL_E_BAD_VERSION = 10,     /* format version not understood by this build */
    BL_E_BAD_LAYOUT = 11,      /* unknown layout (a parameter, a name, a header's) or hash scheme */
    BL_E_BAD_GEOMETRY = 12,    /* sizes that overflow or disagree with each other or the data
                                  size */
    BL_E_BAD_K = 13,           /* number of hash functions out of range for the layout */
    BL_E_HEADER_CHECKSUM = 14, /* header checksum mismatch */
    BL_E_PAYLOAD_CHECKSUM = 15,/* payload checksum mismatch */
    BL_E_FORMAT = 16,          /* malformed foreign format (Parquet thrift header, Guava stream) */
    BL_E_NOT_PRESENT = 17,     /* counting filter: removing a key that was provably never added */
    BL_E_BUFFER_TOO_SMALL = 18,/* the caller's output buffer is too small */
    BL_E_NOT_DURABLE = 19      /* bl_save, bl_export_save: the new file replaced the old one but
                                * the directory's fsync failed (errno tells why): it is in place
                                * and readable, and a crash may yet undo the replacement */
} bl_status;

/* A static, human-readable description of a status code. */
BL_API const char *bl_strerror(bl_status status);

/* ------------------------------------------------------------------------------------------ */
/* Layouts and creation                                                                       */

typedef enum bl_layout {
    BL_LAYOUT_BLOCKED = 0,  /* native: one 64-byte line per key, k bits in k of its 16 words */
    BL_LAYOUT_SBBF = 1,     /* Parquet split-block filter: 256-bit blocks, 8 bits per key */
    BL_LAYOUT_CLASSIC = 2,  /* m bits, k positions over the whole array (Guava's scheme) */
    BL_LAYOUT_COUNTING = 3, /* blocked with 4-bit counters: supports remove */
    BL_LAYOUT_SCALABLE = 4  /* a growing chain of blocked stages: n need not be known */
} bl_layout;

typedef enum bl_hash_scheme {
    BL_HASH_XXH3 = 1,        /* XXH3_64bits_withSeed over the key bytes (blocked, counting) */
    BL_HASH_XXH64 = 2,       /* XXH64 over the key bytes; seed 0 for Parquet (sbbf) */
    BL_HASH_MURMUR3_128 = 3  /* Murmur3 x64 128-bit over the key bytes (classic, Guava) */
} bl_hash_scheme;

/* Classic at seed 0 is Guava's scheme with its quirk: Murmur3 of the empty key is 0, so all its
 * k positions are bit 0 and an empty key is a false positive whenever bit 0 is set (about half
 * the time at the design load), not at rate p (docs/COMPATIBILITY.md). */

/* Filter creation flags. */
#define BL_FLAG_CONCURRENT 1u /* many threads may add at once (atomic OR); not for scalable */

/* Creation parameters. Initialise with bl_params_init, then set what you need. */
typedef struct bl_params {
    size_t struct_size;      /* sizeof(bl_params), set by bl_params_init: lets the struct grow
                                at its end (a smaller size: BL_E_INVALID) */
    bl_layout layout;        /* default BL_LAYOUT_BLOCKED */
    uint64_t expected_keys;  /* n: the number of distinct keys the filter is designed for
                                (scalable: the first stage's; 0 there picks 65536) */
    double fpp;              /* target false-positive rate p in (0,1); default 0.01 (not read
                                when bits_per_key, or bl_create_with_bits, sizes the filter) */
    double bits_per_key;     /* if > 0, size by bits per key instead of fpp (NaN, +inf:
                                BL_E_INVALID; scalable, whose stages are sized by fpp:
                                BL_E_INVALID) */
    unsigned k;              /* if > 0, force the number of hash functions (else chosen by sizing);
                                sized by fpp, the filter is as large as this k needs to meet it */
    uint64_t seed;           /* hash seed (part of the filter's identity); sbbf must use 0 for
                                Parquet. Classic hashes with Murmur3, whose seed has 32 bits:
                                the low 32 of this one (seeds that differ only above them hash
                                alike, yet are different identities) */
    unsigned flags;          /* BL_FLAG_* */
    const char *kernel;      /* "scalar", "avx2", "avx512", "neon", or NULL for BLOOMLINE_KERNEL
                                or else the best */
    double growth;           /* scalable: each stage this many times larger (default 2). Near
                                1 a chain opens a stage every key or two, each at a tighter
                                rate: growth 1.0067 with tightening 0.19 (first stage 1 key,
                                p = 0.01) made 42 stages, 6 GB of payload, for 84 keys */
    double tightening;       /* scalable: each stage's rate is this times the previous
                                (default 0.5). Smaller values make later stages dear fast, as
                                blocked lines need ever more bits at tiny rates: after 10 stages
                                (p = 0.01, growth 2) the chain averages 28 bits/key at 0.5, 123
                                at 0.1, 3400 at 0.01.
                                Values so extreme that the second stage could not be sized or
                                counted are BL_E_INVALID. A chain grows until its next stage is
                                too large (BL_E_TOO_LARGE) or cannot be allocated (BL_E_NOMEM):
                                a batched add that stops so has added the keys before the one
                                that needed the new stage. keys_added counts only the keys the
                                stages took (see bl_add), so it tells where only in a batch of
                                keys new to the chain; adding the batch again is safe, as the
                                newest stage passes over the keys it holds. */
} bl_params;

/* Fill params with the defaults: blocked, p = 0.01, seed 0, automatic kernel. */
BL_API void bl_params_init(bl_params *params);

typedef struct bl_filter bl_filter;

/* Create an empty filter sized for params->expected_keys at params->fpp (or bits_per_key).
 * BL_E_INVALID also when bits_per_key (or a forced k) is so small that the layout's model rate
 * at expected_keys is exactly 1: such a filter would answer yes to every key (a rate just below
 * 1, say 0.9999, is accepted: check bl_get_info's design_fpp). BL_E_TOO_LARGE when no
 * size up to the payload limit meets fpp (with a forced k, say k = 1 at p = 1e-9 for 10^9 keys;
 * for 1000 keys the size, about 125 GB, is within the limit: allocating it decides).
 * Memory: a payload of 2 MiB or more is an anonymous mapping advised for transparent huge pages
 * (fewer TLB misses on random lines), so it becomes resident as keys touch it, 2 MiB at a time
 * where THP is on. A filter sized far beyond the keys it gets is then resident all the same:
 * sized for 10^9 keys at p = 0.01 (1.2 GB), 100 keys made 0.20 GB resident (blocked; classic,
 * whose keys touch k places, 0.87 GB). prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) in the process
 * before bl_create keeps it to 4 KiB pages: 3 MB and 5 MB for the same.
 * Time: the first blocked or counting filter a process sizes fills that layout's model table
 * (about 60 million instructions: 20-50 ms measured on a busy 2-core Zen 3 guest, against 1.4 ms
 * for a second create), once per process; a latency-bound program can create a small filter at
 * start-up to pay it there. Opening or describing a filter fills only its own k's row, which
 * costs more as k grows: `bloomline info` takes 0.5 million instructions in all at k = 1, 1.4
 * million at k = 7 and 18 million at k = 16 (callgrind). Threads that create at once fill the
 * table once. */
BL_API bl_status bl_create(bl_filter **out, const bl_params *params);
/* As bl_create, but exactly `bits` in size (rounded up to the layout's unit, as
 * bl_create_geometry does; e.g. a power-of-two Parquet bitset) for params->expected_keys keys,
 * which it records as its design: k is the best for that many bits per key unless params->k
 * forces one, fpp is not read, and the design rate is the model's at expected_keys. bits = 0,
 * bits_per_key > 0 or the scalable layout: BL_E_INVALID; a size whose rate at expected_keys is
 * 1: BL_E_INVALID, as for bits_per_key. */
BL_API bl_status bl_create_with_bits(bl_filter **out, const bl_params *params, uint64_t bits);

/* Create an empty filter with an explicit geometry: total bits (rounded up to the layout's unit:
 * 512 for blocked and counting lines, 256 for sbbf blocks, 64 for classic words) and k. Used by
 * loaders and importers. A scalable chain has no single geometry: BL_E_UNSUPPORTED. */
BL_API bl_status bl_create_geometry(bl_filter **out, bl_layout layout, uint64_t bits, unsigned k,
                                    uint64_t seed, unsigned flags, const char *kernel);

/* Free a filter (NULL is fine). */
BL_API void bl_free(bl_filter *filter);

/* Deep copy (a mapped filter becomes an in-memory, mutable one). */
BL_API bl_status bl_clone(bl_filter **out, const bl_filter *filter);

/* Reset every bit (and the keys-added count) to zero. A scalable filter goes back to the chain
 * bl_create makes, its first stage alone (emptied): the later stages' memory is freed. On Linux
 * a payload of 2 MiB or more (an anonymous mapping, see bl_create) gives its pages back, to
 * become resident again only as keys touch them (locked pages are written with zeros instead).
 * The clear itself is quick, and a filter refilled densely pays the kernel's zeroing at those
 * first touches (4 million adds into a cleared 236 MiB filter: 60 ms, against 3 + 46 ms for a
 * memset and the same adds). */
BL_API bl_status bl_clear(bl_filter *filter);

/* ------------------------------------------------------------------------------------------ */
/* Keys. Three kinds: byte strings (any length, 0 included), uint64_t keys (hashed as their   */
/* 8 little-endian bytes, so bl_add_u64(f, x) == bl_add(f, &x_le, 8)), and pre-hashed values. */

/* A scalable chain's newest stage passes over a key it already answers yes for (a repeat, or a
 * false positive, which answers yes for good anyway): such keys change no bit and are not
 * counted, so a stream that repeats its keys fills stages with its distinct keys, not its
 * lines. Only the newest stage is asked (one line per add), so a key held by older stages
 * alone is taken once more by the newest. A stage takes each key once at most, so the chain
 * grows no further than its first stage that can hold all the distinct keys: with growth 2
 * (the default) or more, one stage more than the same keys once each; nearer 1, more (growth
 * 1.1: 26 stages where 8 hold the keys once each). The chain is the same however the keys are
 * split into calls.
 * Errors: BL_E_INVALID for a NULL filter or a NULL key with len != 0, BL_E_READ_ONLY for a mapped
 * filter; a scalable chain that cannot open its next stage: BL_E_TOO_LARGE or BL_E_NOMEM. */
BL_API bl_status bl_add(bl_filter *filter, const void *key, size_t len);
BL_API bl_status bl_add_u64(bl_filter *filter, uint64_t key);
BL_API bl_status bl_add_hash(bl_filter *filter, uint64_t hash);

BL_API bool bl_contains(const bl_filter *filter, const void *key, size_t len);
BL_API bool bl_contains_u64(const bl_filter *filter, uint64_t key);
BL_API bool bl_contains_hash(const bl_filter *filter, uint64_t hash);

/* The filter's own hash of a key, to pass later to the *_hash functions. 0 for a NULL filter, or
 * a NULL key with len != 0. Classic filters excepted: their keys need Murmur3's 128 bits, so there
 * the *_hash functions address their own key space (docs/DESIGN.md), and a key added with bl_add
 * is not found by bl_contains_hash(f, bl_hash(f, key)): use one kind of call per classic filter. */
BL_API uint64_t bl_hash(const bl_filter *filter, const void *key, size_t len);
BL_API uint64_t bl_hash_u64(const bl_filter *filter, uint64_t key);

/* Start fetching the memory that a query or add of this hash (bl_hash, bl_hash_u64) will read: its
 * line (blocked, counting), its block (sbbf), its probes' words (classic), its line in each stage
 * (scalable). For callers whose keys come one at a time and cannot be batched: hash the key as it
 * arrives, prefetch, and query or add its hash some dozens of keys later, so that DRAM's latency
 * passes while other keys are handled, as in the batched calls (bench_parts, docs/BENCHMARKS.md).
 * Not for classic filters whose keys come through bl_add or bl_add_u64: there bl_hash does not
 * stand for the key (see bl_hash), and the hash's query would miss keys. A hint only: it changes
 * nothing and gives no answer; a NULL filter is ignored. Safe wherever a query is. */
BL_API void bl_prefetch_hash(const bl_filter *filter, uint64_t hash);

/* Batched calls: hashing, prefetching and probing are pipelined, so these are several times
 * faster than loops of single calls on filters larger than the cache. Byte keys come as two
 * arrays of n entries: keys[i] may be NULL only where lens[i] == 0 (adds, removes and hashes
 * return BL_E_INVALID otherwise; a query answers 0 for such a key, as bl_contains does).
 * Queries write one result per key (1 = may be present, 0 = certainly absent) into results,
 * which may be NULL to count only, and return the number of hits. A NULL filter or key array
 * gives 0 and writes no results, as a single-key query on a NULL filter gives false. The
 * results (and the hash batches' out) must not overlap the arrays passed in. Arrays of uint64_t
 * and size_t are aligned as C requires for their type (8 bytes); key bytes may be anywhere. */
BL_API bl_status bl_add_batch(bl_filter *filter, const void *const *keys, const size_t *lens,
                              size_t n);
BL_API bl_status bl_add_u64_batch(bl_filter *filter, const uint64_t *keys, size_t n);
BL_API bl_status bl_add_hash_batch(bl_filter *filter, const uint64_t *hashes, size_t n);

BL_API size_t bl_contains_batch(const bl_filter *filter, const void *const *keys,
                                const size_t *lens, size_t n, uint8_t *results);
BL_API size_t bl_contains_u64_batch(const bl_filter *filter, const uint64_t *keys, size_t n,
                                    uint8_t *results);
BL_API size_t bl_contains_hash_batch(const bl_filter *filter, const uint64_t *hashes, size_t n,
                                     uint8_t *results);

/* The filter's hashes of many keys (out[i] = bl_hash / bl_hash_u64 of key i), vectorized and
 * prefetched like the batched adds: the first half of a parallel build (below). */
BL_API bl_status bl_hash_batch(const bl_filter *filter, const void *const *keys,
                               const size_t *lens, size_t n, uint64_t *out);
BL_API bl_status bl_hash_u64_batch(const bl_filter *filter, const uint64_t *keys, size_t n,
                                   uint64_t *out);

/* Parallel builds. The memory of a blocked, sbbf or counting filter splits into `parts` ranges
 * of whole lines (blocks); every key's bits lie in the one part that holds its line.
 * bl_add_hash_batch_part adds those of the n hashes whose line is in part `part` (0 <= part <
 * parts) and skips the others. Threads that call it at the same time with different parts
 * write disjoint memory, so they need neither BL_FLAG_CONCURRENT nor atomic instructions: e.g.
 * each of T threads hashes its share of the keys (bl_hash_batch), the threads meet at a barrier,
 * then thread t calls bl_add_hash_batch_part(f, hashes_of_u, n_u, t, T) for every thread u's
 * hashes. The result is byte-identical to adding all hashes with bl_add_hash_batch, and each key
 * is counted once in keys_added. No other call may modify the filter meanwhile. Other layouts
 * give BL_E_UNSUPPORTED; part >= parts or parts = 0 give BL_E_INVALID.
 * bl_hash_part stores in *part the part a hash's line falls in, for callers that route hashes
 * to their owning thread instead (cheaper than every thread scanning all hashes when there are
 * many threads). */
BL_API bl_status bl_add_hash_batch_part(bl_filter *filter, const uint64_t *hashes, size_t n,
                                        unsigned part, unsigned parts);
BL_API bl_status bl_hash_part(const bl_filter *filter, uint64_t hash, unsigned parts,
                              unsigned *part);

/* Counting layout only: remove keys. Returns BL_E_NOT_PRESENT (and changes nothing for that key)
 * when the key was provably never added; saturated counters are never decremented. Remove only
 * keys that were added (and no more often): a key never added that the filter answers yes to (a
 * false positive, at rate current_fpp) cannot be told from one that was, so its remove succeeds
 * and decrements counters that added keys share, and those keys may then answer no.
 * Errors as bl_add's; other layouts: BL_E_UNSUPPORTED. */
BL_API bl_status bl_remove(bl_filter *filter, const void *key, size_t len);
BL_API bl_status bl_remove_u64(bl_filter *filter, uint64_t key);
BL_API bl_status bl_remove_hash(bl_filter *filter, uint64_t hash);
/* Batched remove: every key is processed; *absent (may be NULL) receives how many were reported
 * not present. Returns BL_E_NOT_PRESENT when at least one was (the others are removed), else
 * BL_OK. */
BL_API bl_status bl_remove_batch(bl_filter *filter, const void *const *keys, const size_t *lens,
                                 size_t n, size_t *absent);
BL_API bl_status bl_remove_u64_batch(bl_filter *filter, const uint64_t *keys, size_t n,
                                     size_t *absent);

/* Counting layout only: a read-only-serving copy where each counter > 0 becomes a set bit. It
 * answers every query exactly as the counting filter does. It is a blocked filter whose key
 * probes each set a whole counter's 4 bits; bl_get_info tells it by those whole nibbles (also
 * once saved and loaded) and estimates it with the counting model. A union of it with a filter
 * built by adds is estimated with the blocked model, which counts the frozen keys up to 4 times
 * and underrates the current rate. */
BL_API bl_status bl_freeze(bl_filter **out, const bl_filter *counting);

/* ------------------------------------------------------------------------------------------ */
/* Sizing                                                                                     */

/* The smallest geometry (total bits) and best k for n keys at rate p with a layout's own model;
 * sbbf then rounds up to a power of two when that is at most 128 MiB (as Parquet writers size
 * it), and classic's may be a few percent above the smallest (its rate depends a little on m's
 * factors, so the search is not exact there).
 * Both searches give BL_E_TOO_LARGE past what the layout can hold: the 1 PiB payload limit, and
 * for sbbf 2^32 blocks (128 GiB), as bl_create_geometry does. Scalable chains size their stages
 * themselves: BL_E_UNSUPPORTED. */
BL_API bl_status bl_size_for_fpp(bl_layout layout, uint64_t n, double fpp, uint64_t *bits,
                                 unsigned *k);
/* The geometry for n keys at a given bits-per-key budget, with the best k. A budget so small
 * that the model rates it 1 at n keys is sized all the same (bl_expected_fpp says so); bl_create
 * refuses such a design. NaN or +inf: BL_E_INVALID. */
BL_API bl_status bl_size_for_bits_per_key(bl_layout layout, uint64_t n, double bits_per_key,
                                          uint64_t *bits, unsigned *k);
/* The model's expected false-positive rate of a filter of this geometry holding n keys; 1 for a
 * geometry the layout cannot have (0 bits, k out of its range), for scalable (a chain has no one
 * geometry: bl_get_info gives its current rate) and for an unknown layout. */
BL_API double bl_expected_fpp(bl_layout layout, uint64_t bits, unsigned k, uint64_t n);

/* ------------------------------------------------------------------------------------------ */
/* Set operations, identity, estimates                                                        */

/* True when a and b have the same layout, geometry, k, hash scheme and seed; scalable chains
 * when they have the same design (first stage's keys and rate, growth, tightening) and seed,
 * however far each has grown. */
BL_API bool bl_same_identity(const bl_filter *a, const bl_filter *b);
/* dst |= src (union) or dst &= src (intersection); BL_E_MISMATCH unless identities are equal.
 * A union answers yes for every key either held; an intersection for every key both held.
 * Counting filters add their counters (saturating) or take the smaller. keys_added becomes the
 * sum, a count of insertions (a filter united with itself counts its keys twice), or the
 * smaller, after an intersection only a bound on the common keys. The kernels the filters are
 * bound to are no part of their identity.
 * An intersection is not the filter of the common keys: bits both filters set for different
 * keys stay set, so it answers yes to more absent keys than a filter built from the common keys
 * would, and its estimated_keys exceeds the common keys (50000 keys each, 10000 common,
 * designed for 100000: 15000 to 19200 estimated). The estimates of a, b and their union give
 * the common keys: est(a) + est(b) - est(a | b) (9800-10150 there).
 * An intersection's current_fpp rates its fill as if keys had set it: at or above the rate it
 * answers at (blocked and counting 90000 keys each, 10000 common: 1.2x and 1.7x what they
 * measured).
 * Scalable filters unite stage by stage (intersection: BL_E_UNSUPPORTED, as a common key
 * may sit in different stages): stage i then holds both chains' stage-i keys, and the union's
 * rate can exceed the design rate (bl_get_info's current_fpp says what it is). */
BL_API bl_status bl_union(bl_filter *dst, const bl_filter *src);
BL_API bl_status bl_intersect(bl_filter *dst, const bl_filter *src);

typedef struct bl_info {
    bl_layout layout;
    const char *layout_name;   /* "blocked", "sbbf", "classic", "counting", "scalable" */
    bl_hash_scheme hash;
    const char *hash_name;     /* "xxh3", "xxh64", "murmur3_x64_128" */
    uint64_t seed;
    uint64_t bits;             /* total bits (counters x 4 for counting) over all stages */
    size_t bytes;              /* payload bytes over all stages */
    uint64_t blocks;           /* lines (blocked, counting), 256-bit blocks (sbbf), words
                                  (classic) */
    unsigned k;
    uint64_t design_keys;      /* n the filter was sized for (0 if unknown) */
    double design_fpp;         /* p the filter was sized for (0 if unknown) */
    uint64_t keys_added;       /* keys added (counting insert calls, duplicates included; a
                                  counting filter subtracts the keys removed). Scalable: the
                                  keys its stages took, where a stage passes over a key it
                                  already answers yes for (see bl_add) */
    bool keys_known;           /* false for filters imported from formats that do not record it */
    double fill_ratio;         /* fraction of bits (or counters) that are non-zero */
    double estimated_keys;     /* distinct keys estimated from the fill ratio: the layout's
                                  model of the fill inverted (measured from 1% of the design
                                  keys to 3x past them: bias within 0.6%, spread 0.1% at 10^5
                                  design keys, 1-1.7% at 10^3). A full filter (fill_ratio 1) has no
                                  estimate: it gives a floor, the keys at which half a bit
                                  would stay clear, and any count above fits as well. Scalable:
                                  the sum of its stages', so a key that two stages hold (added
                                  again after the chain grew, or held by both chains of a
                                  union) counts in each. After bl_intersect, see there. */
    double current_fpp;        /* expected rate now, from the fill ratio: the layout's model
                                  at the estimated keys; 1 when full */
    size_t stages;             /* scalable: number of stages (1 for the others) */
    bool mapped;               /* payload is a read-only file mapping */
    const char *kernel;        /* the probe kernel this filter uses */
} bl_info;

/* Describe a filter. It reads the whole payload to count the fill, with the filter's kernel:
 * at the speed of a plain read of memory with AVX2 (a 640 MiB filter: 45 ms on a 2-core Zen 3
 * guest; bench_parts), at about half that speed with the scalar kernel (86 ms). A program that
 * asks often about a large filter pays that pass each time. */
BL_API bl_status bl_get_info(const bl_filter *filter, bl_info *info);
/* Scalable layout: describe stage i (0 = oldest). */
BL_API bl_status bl_get_stage_info(const bl_filter *filter, size_t stage, bl_info *info);

/* "blocked", "sbbf", "classic", "counting", "scalable"; "unknown" for any other value. */
BL_API const char *bl_layout_name(bl_layout layout);
/* Parse "blocked", "sbbf", "classic", "counting", "scalable" (BL_E_BAD_LAYOUT for any other). */
BL_API bl_status bl_layout_from_name(const char *name, bl_layout *layout);
/* The numbers of hash functions (bl_params.k) a layout accepts, from *k_min to *k_max: 1-16 for
 * blocked and counting, 8 alone for sbbf (Parquet's), 1-255 for classic (Guava keeps k in one
 * byte). For scalable, the range of its stages' k: bl_create sizes those by rate and refuses a
 * forced k (BL_E_INVALID). Either pointer may be NULL. BL_E_BAD_LAYOUT for an unknown layout. */
BL_API bl_status bl_layout_k_range(bl_layout layout, unsigned *k_min, unsigned *k_max);

/* ------------------------------------------------------------------------------------------ */
/* Kernels                                                                                    */

/* The kernel new filters get here: BLOOMLINE_KERNEL if set, else the best the CPU runs. NULL if
 * BLOOMLINE_KERNEL names a kernel that is unknown or unsupported here. */
BL_API const char *bl_kernel_name(void);
/* The kernel a filter was bound to at creation. */
BL_API const char *bl_filter_kernel(const bl_filter *filter);
/* Whether a named kernel exists in this build and runs on this CPU. */
BL_API bool bl_kernel_supported(const char *name);
/* The i-th kernel compiled into this build (best first), or NULL past the end. */
BL_API const char *bl_kernel_at(size_t i);

/* ------------------------------------------------------------------------------------------ */
/* Persistence (docs/FORMAT.md)                                                               */

/* The file format version bl_save and bl_serialize write, the only one bl_load, bl_map and
 * bl_deserialize read (others: BL_E_BAD_VERSION). */
BL_API unsigned bl_format_version(void);

/* Loaded, mapped, deserialized and imported filters get the kernel of bl_kernel_name(): where
 * BLOOMLINE_KERNEL names one that is unknown or unsupported here, they fail with
 * BL_E_UNSUPPORTED, as bl_create does. */

/* Save atomically: temp file in the same directory, fsync, rename, fsync the directory. A file
 * replaced keeps its permissions, and its owner and group where the process may give them (root
 * may; others may keep a group of theirs). A symlink at path is replaced, not followed. A path
 * that is, or links to, anything but a regular file (a directory, a device, a FIFO) is refused
 * with BL_E_IO (errno EISDIR or EINVAL) and left alone: write to such a stream with bl_save_fd
 * instead. A process killed during the save leaves the target as it was and the
 * temporary (its name plus ".<pid>.<n>.tmp") beside it; the bloomline command holds SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT until the save is done. Past a file size limit (RLIMIT_FSIZE) the
 * kernel sends SIGXFSZ, which kills by default: a process that ignores it (as the command does)
 * gets BL_E_IO with errno EFBIG, the temporary removed.
 * Every failure (BL_E_IO, BL_E_NOMEM, ...) leaves the old file (or none). The one exception is
 * the last step's, with its own status: BL_E_NOT_DURABLE says the rename is done and only the
 * directory's fsync failed, so the new file is in place but a crash may undo it. Its directory
 * is opened before the rename, so only that fsync can fail after it. */
BL_API bl_status bl_save(const bl_filter *filter, const char *path);
/* Write the file format (bl_serialize's bytes) to fd from its current position, in order, with
 * no copy of the filter: for pipes, sockets and standard output. Not atomic: a failed write
 * (BL_E_IO, errno set) leaves part of the bytes written. A non-blocking fd must be writable
 * without EAGAIN, which is BL_E_IO here. A pipe or socket whose reader has gone raises SIGPIPE,
 * which kills by default (the library leaves signals to the program): a process that ignores it
 * gets BL_E_IO with errno EPIPE. The same holds for bl_export_fd. (The bloomline command does not
 * ignore it: like other tools in a pipeline, it ends by SIGPIPE, status 141.) */
BL_API bl_status bl_save_fd(const bl_filter *filter, int fd);
/* Load into memory (mutable); verifies both checksums. */
BL_API bl_status bl_load(bl_filter **out, const char *path);
/* Map read-only (zero copy, shared page cache). Verifies the header only; see bl_verify. The
 * file must not be truncated or rewritten in place while mapped (cp over it, > in a shell): a
 * query that reads a page past the file's new end gets SIGBUS, as any mapping does. bl_save and
 * bl_export_save replace a file by renaming a new one over it, which mappings survive. */
BL_API bl_status bl_map(bl_filter **out, const char *path);
/* Verify the payload checksum (for mapped filters; O(size)). BL_E_MISMATCH if the mapped file
 * was rewritten in place with another filter (geometry, k or seed no longer the mapped one's). */
BL_API bl_status bl_verify(const bl_filter *filter);

/* Serialize into a caller buffer in the file format. bl_serialized_size gives the bytes needed;
 * a smaller cap gives BL_E_BUFFER_TOO_SMALL with that size in *written (if not NULL). */
BL_API bl_status bl_serialized_size(const bl_filter *filter, size_t *size);
BL_API bl_status bl_serialize(const bl_filter *filter, void *buf, size_t cap, size_t *written);
/* Deserialize (copying) from a buffer, validating everything; verifies both checksums. */
BL_API bl_status bl_deserialize(bl_filter **out, const void *buf, size_t len);

/* ------------------------------------------------------------------------------------------ */
/* Compatibility formats (docs/COMPATIBILITY.md)                                              */

typedef enum bl_foreign_format {
    BL_FORMAT_PARQUET = 1,     /* thrift-compact BloomFilterHeader + bitset (sbbf layout) */
    BL_FORMAT_PARQUET_RAW = 2, /* the bitset alone (sbbf layout) */
    BL_FORMAT_GUAVA = 3        /* Guava BloomFilter.writeTo stream (classic layout) */
} bl_foreign_format;

/* Export into a caller buffer; sizes and BL_E_BUFFER_TOO_SMALL as for bl_serialize. */
BL_API bl_status bl_export_size(const bl_filter *filter, bl_foreign_format format, size_t *size);
BL_API bl_status bl_export(const bl_filter *filter, bl_foreign_format format, void *buf,
                           size_t cap, size_t *written);
/* Export into a file, replaced atomically as bl_save replaces one (with the same statuses,
 * BL_E_NOT_DURABLE included); like bl_export_fd, it writes from the filter without a copy of it. */
BL_API bl_status bl_export_save(const bl_filter *filter, bl_foreign_format format,
                                const char *path);
/* Write bl_export's bytes to fd from its current position, in order, with no copy of the
 * filter (Guava's words are converted a 1 MiB piece at a time): for pipes, sockets and standard
 * output. Refuses what bl_export_size refuses (BL_E_UNSUPPORTED for a filter the format cannot
 * carry, BL_E_INVALID for an unknown format), before writing anything; a negative fd is
 * BL_E_INVALID. Not atomic: a failed write (BL_E_IO, errno set) leaves part of the bytes
 * written. A non-blocking fd must be writable without EAGAIN, which is BL_E_IO here. */
BL_API bl_status bl_export_fd(const bl_filter *filter, bl_foreign_format format, int fd);
/* Import a foreign filter; the keys count is recorded as unknown. */
BL_API bl_status bl_import(bl_filter **out, bl_foreign_format format, const void *buf, size_t len);
/* Parse "parquet", "parquet-raw", "guava". */
BL_API bl_status bl_format_from_name(const char *name, bl_foreign_format *format);

#ifdef __cplusplus
}
#endif
#endif /* BLOOMLINE_H */
