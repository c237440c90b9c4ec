/* SPDX-License-Identifier: MIT */
/* The one internal header: the filter object, the kernel table, and the bit-selection spec. */
#ifndef BL_INTERNAL_H
#define BL_INTERNAL_H

#include "bloomline.h"

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* Payloads are little-endian words used in place; a big-endian port needs byte swaps here. */
#error "bloomline currently supports little-endian targets only"
#endif

#define BL_LINE_BYTES 64u          /* blocked/counting line: one cache line */
#define BL_LINE_BITS 512u
#define BL_SBBF_BLOCK_BYTES 32u    /* Parquet block: eight 32-bit words */
#define BL_COUNTING_SLOTS 128u     /* 4-bit counters per counting line */
#define BL_K_MAX_BLOCKED 16u
#define BL_K_MAX_CLASSIC 255u      /* Guava stores k in one byte */
#define BL_SBBF_K 8u
/* Largest payload accepted: 1 PiB, beyond any machine yet well inside 64-bit arithmetic, so an
 * absurd size is refused as BL_E_TOO_LARGE before the allocator is asked. */
#define BL_MAX_PAYLOAD_BYTES (UINT64_C(1) << 50)

/* How many keys ahead the batched pipelines prefetch. ~64 lines in flight covers DRAM latency
 * on the machines measured (docs/BENCHMARKS.md); the probe loop is short, so more does not help. */
#define BL_PREFETCH_DISTANCE 64u
/* The AVX2 and AVX-512 windows (bl_window) look twice as far ahead on filters of more than 4 and
 * at most 32 MiB: past L2, within a last-level cache (32 MiB per Zen 4 or Zen 5 complex), which
 * serves more misses at once than DRAM. The rolling probe over 20 MiB read 2.20 against 2.58
 * ns/key with 128 lines in flight on a Zen 5 and 4.39 against 4.56 on the Xeon of the recorded
 * run (equal on a Zen 4); at 160 MiB 128 was 3-7% slower, at 1.25 MiB 5% slower on the Zen 5.
 * The 2^24-key batched query on the Zen 5, alternated with 64: 1.14-1.20x of the paired probe
 * -> 1.03-1.13x on a quiet host, no difference on a busy one. */
#define BL_DEEP_WINDOW 128u
#define BL_DEEP_WINDOW_MIN_BYTES (UINT64_C(4) << 20)
#define BL_DEEP_WINDOW_MAX_BYTES (UINT64_C(32) << 20)
static inline size_t bl_window_depth(uint64_t nlines)
{
    const bool deep = nlines > BL_DEEP_WINDOW_MIN_BYTES / BL_LINE_BYTES &&
                      nlines <= BL_DEEP_WINDOW_MAX_BYTES / BL_LINE_BYTES;
    return deep ? BL_DEEP_WINDOW : BL_PREFETCH_DISTANCE;
}
/* Keys hashed per pipeline step; the hash buffer holds CHUNK + DEEP_WINDOW hashes on the stack.
 * 1024 rather than 256: each kernel call restarts its prefetch window, which cost ~8% in cache. */
#define BL_PIPELINE_CHUNK 1024u
/* Filters up to this size sit in L2 (2 MiB and more on current x86 cores). There the AVX-512
 * query skips the prefetch window, whose ring of line addresses is overhead in cache (probe stage
 * at 2^16 keys: 0.93 vs 1.12 ns/key); the AVX2 query keeps it (1.8 vs 2.05 ns/key: its longer
 * per-key chain gains from finding the line in L1). The pipeline prefetches uint64 keys only
 * above it. */
#define BL_CACHE_RESIDENT_BYTES (UINT64_C(1) << 20)

/* Batched uint64_t queries and adds of plain blocked filters larger than this hash each key as
 * its line enters the prefetch window (blocked_test_u64_keys, blocked_add_u64_keys, where a
 * kernel has them), rather than in the pipeline's hash stage, during which no line is fetched.
 * AVX2 on the Zen 3, bench_ab against the hash stage, new/old medians: queries 0.91-0.97 at 2^24
 * keys (20 MiB), 0.91-0.93 at 2^25, 0.90-0.95 at 2^27 (160 MiB); adds 0.79-0.93, 0.83, 0.88-0.95;
 * but queries 0.98 at 2^23 and 1.02 at 2^22 and 2^20: nearer the core the lines arrive too soon
 * for the overlap to pay. */
#define BL_KEYS_IN_WINDOW_MIN_BYTES (UINT64_C(16) << 20)
/* The AVX-512 kernel's threshold. bench_ab against the hash stage on a Zen 5, new/old medians of
 * 61 alternated repetitions: at 2^27 keys (160 MiB) queries 0.96 / 0.99 (hit / miss) and adds
 * 0.96; at 2^24 (20 MiB, inside its L3) queries 1.01 / 1.00 and adds 1.08; at 2^25 (40 MiB, 41
 * repetitions) too noisy to tell. Its hash stage costs less than AVX2's (vpmullq), so there is
 * less to hide, and the window pays only in DRAM. */
#define BL_KEYS_IN_WINDOW_MIN_BYTES_AVX512 (UINT64_C(64) << 20)

/* ---- CPU features and kernels ------------------------------------------------------------ */

#define BL_CPU_AVX2 (1u << 0)
#define BL_CPU_AVX512 (1u << 1) /* F + BW + DQ + VL, with the OS saving ZMM state */
#define BL_CPU_NEON (1u << 2)
/* A kernel with this bit in `required` is never auto-selected (NEON through SIMDe on x86). */
#define BL_CPU_FORCE_ONLY (1u << 31)

uint32_t bl_cpu_features(void);

struct bl_filter;
/* A single-key uint64_t query: the key's hash and probe in one call. */
typedef bool bl_contains_u64_fn(const struct bl_filter *f, uint64_t key);
/* A single-key uint64_t add to a plain blocked filter: the key's hash and bits, not counted. */
typedef void bl_add_u64_fn(struct bl_filter *f, uint64_t key);

/* Probe kernels. `h` holds `avail` >= `n` hashes; the kernel works on the first n and may
 * prefetch the lines of the rest. `res` may be NULL. Everything is little-endian words. */
struct bl_kernels {
    const char *name;
    uint32_t required;
    /* Hash stage for uint64_t keys: XXH3_64bits_withSeed / XXH64 of the 8 LE bytes. */
    void (*hash_u64_xxh3)(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
    void (*hash_u64_xxh64)(const uint64_t *keys, size_t n, uint64_t seed, uint64_t *out);
    /* Hash stage for byte keys with XXH64 (sbbf), where a kernel has a faster one than the
     * portable loop (bl_hash_bytes_batch); NULL otherwise. Keys [from, from + count) into out,
     * keys before `limit` valid. */
    void (*hash_bytes_xxh64)(uint64_t seed, const void *const *bytes, const size_t *lens,
                             size_t from, size_t count, size_t limit, uint64_t *out);
    /* The same for XXH3 (the blocked, counting and scalable layouts); NULL where the portable
     * loop is the fastest. */
    void (*hash_bytes_xxh3)(uint64_t seed, const void *const *bytes, const size_t *lens,
                            size_t from, size_t count, size_t limit, uint64_t *out);
    /* Whether every NULL pointer among n byte keys has length 0 (bl_byte_keys_valid); NULL
     * where the portable loop serves. */
    bool (*null_keys_empty)(const void *const *bytes, const size_t *lens, size_t n);
    /* Native blocked layout. */
    void (*blocked_add)(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h, size_t n,
                        size_t avail);
    size_t (*blocked_test)(const uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                           size_t n, size_t avail, uint8_t *res);
    /* The batched query of n uint64_t keys, each hashed (bl_xxh3_u64_flipped with `flip`) as
     * its line enters the prefetch window rather than by the pipeline's hash stage; NULL where
     * the kernel has none. Used on filters past keys_in_window_min_bytes. */
    size_t (*blocked_test_u64_keys)(const uint8_t *data, uint64_t nlines, unsigned k,
                                    const uint64_t *keys, size_t n, uint64_t flip, uint8_t *res);
    /* The same for a plain (not concurrent) filter's batched add of uint64_t keys. */
    void (*blocked_add_u64_keys)(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *keys,
                                 size_t n, uint64_t flip);
    /* The filter size in bytes past which the two above are used (BL_KEYS_IN_WINDOW_MIN_BYTES). */
    uint64_t keys_in_window_min_bytes;
    /* One key, no look-ahead: the single-key query paths (bl_contains_hash, bl_contains; and
     * bl_contains_u64, hashing with XXH3 inside so the whole query is one call). */
    bool (*blocked_contains)(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h);
    bl_contains_u64_fn *const *blocked_contains_u64_by_k; /* [k], k = 1..16: compiled for
                                                            * that k (BL_CONTAINS_U64_BY_K) */
    bl_add_u64_fn *const *blocked_add_u64_by_k;            /* the same for adds */
    bl_contains_u64_fn *const *blocked_contains_hash_by_k; /* the same for a caller's hash */
    bl_add_u64_fn *const *blocked_add_hash_by_k;           /* and its add */
    /* One key's add for any k, no look-ahead (add_hash's and the scalable stages' single adds;
     * a plain filter's bl_add, bl_add_u64 and bl_add_hash use the by-k tables). */
    void (*blocked_add_one)(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h);
    /* Adds that count only keys new to their line (scalable stages): h[0, n) in order, each
     * taken when its line lacked one of its bits (ORed in all the same), until `room` keys are
     * taken. Returns the keys gone through: n, or up to and including the one that took the
     * last place (0 when room is 0); adds the keys taken to *taken. */
    size_t (*blocked_add_new)(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                              size_t n, size_t avail, uint64_t room, uint64_t *taken);
    /* Parquet split-block layout. */
    void (*sbbf_add)(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail);
    size_t (*sbbf_test)(const uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n,
                        size_t avail, uint8_t *res);
    /* One key, no look-ahead: the single-key paths (the batch entries with n = 1 spent ~16 more
     * instructions on their loop and a hash stored to be read back). */
    void (*sbbf_add_one)(uint8_t *data, uint64_t nblocks, uint64_t h);
    bool (*sbbf_contains)(const uint8_t *data, uint64_t nblocks, uint64_t h);
    /* Whole-array counts over nbytes (a multiple of 8) of little-endian words, for the fill
     * behind bl_get_info's estimates: set bits, and non-zero nibbles (the counting layout's
     * counters). counts_scalar.c is their specification. */
    uint64_t (*count_bits)(const uint8_t *data, uint64_t nbytes);
    uint64_t (*count_nonzero_nibbles)(const uint8_t *data, uint64_t nbytes);
};

extern const struct bl_kernels bl_kernels_scalar;
/* The scalar single-key probes, also the NEON table's (one key leaves NEON nothing to batch). */
bool bl_blocked_contains_scalar(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h);
extern bl_contains_u64_fn *const bl_blocked_contains_u64_scalar[];
extern bl_contains_u64_fn *const bl_blocked_contains_hash_scalar[];
extern bl_add_u64_fn *const bl_blocked_add_hash_scalar[];
extern bl_add_u64_fn *const bl_blocked_add_u64_scalar[];
void bl_blocked_add_one_scalar(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h);
size_t bl_blocked_add_new_scalar(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                                 size_t n, size_t avail, uint64_t room, uint64_t *taken);
uint64_t bl_count_bits_scalar(const uint8_t *data, uint64_t nbytes);
uint64_t bl_count_nonzero_nibbles_scalar(const uint8_t *data, uint64_t nbytes);
#if defined(BLOOMLINE_HAVE_AVX2)
extern const struct bl_kernels bl_kernels_avx2;
#endif
#if defined(BLOOMLINE_HAVE_AVX512)
extern const struct bl_kernels bl_kernels_avx512;
#endif
#if defined(BLOOMLINE_HAVE_NEON)
extern const struct bl_kernels bl_kernels_neon;
uint64_t bl_count_bits_neon(const uint8_t *data, uint64_t nbytes);
uint64_t bl_count_nonzero_nibbles_neon(const uint8_t *data, uint64_t nbytes);
#endif

/* Resolve a kernel by name (NULL: BLOOMLINE_KERNEL, else the best supported). */
bl_status bl_kernel_resolve(const char *name, const struct bl_kernels **out);

/* ---- The filter object --------------------------------------------------------------------- */

typedef enum bl_storage {
    BL_STORAGE_HEAP = 0,     /* aligned_alloc */
    BL_STORAGE_ANON_MAP = 1, /* anonymous mmap (large filters; asks for huge pages) */
    BL_STORAGE_FILE_MAP = 2  /* read-only file mapping; payload points inside it */
} bl_storage;

struct bl_filter {
    bl_layout layout;
    bl_hash_scheme hash;
    unsigned k;
    unsigned flags;
    uint64_t seed;
    uint64_t xxh3_flip; /* bl_xxh3_u64_flip(seed), set with it by bl_filter_set_seed:
                         * bl_hash_u64 and the kernels' single-key query fold the seed once
                         * (3.6 -> 3.1 ns/key at 2^16) */
    uint64_t nbits;   /* payload bits (counting: 4 x counters) */
    uint64_t nblocks; /* lines (blocked, counting), blocks (sbbf), 64-bit words (classic) */
    uint8_t *data;    /* the payload, 64-byte aligned */
    size_t nbytes;
    uint64_t keys_added; /* updated with atomics under BL_FLAG_CONCURRENT */
    bool keys_known;
    uint64_t design_keys;
    double design_fpp;
    const struct bl_kernels *kern;
    /* bl_contains_u64 for this layout, kernel and k: one indirect call from the public entry,
     * no test of the layout and none of k (set with kern by bl_filter_set_kernel) */
    bl_contains_u64_fn *contains_u64;
    /* bl_contains_hash the same way: the argument is the caller's hash */
    bl_contains_u64_fn *contains_hash;
    /* bl_add_u64 for a plain (not concurrent) blocked filter, NULL for others; set with kern */
    bl_add_u64_fn *add_u64_plain;
    /* bl_add_hash the same way (NULL where add_u64_plain is) */
    bl_add_u64_fn *add_hash_plain;
    bl_storage storage;
    void *map_base; /* the whole mapping (anon or file) */
    size_t map_len;
    /* Scalable layout: the stages (each a blocked filter), oldest first. */
    struct bl_filter **stages;
    size_t nstages;
    size_t stages_cap;
    double growth;
    double tightening;
};

/* Payload memory: zeroed, 64-byte aligned; large sizes use mmap with transparent huge pages. */
bl_status bl_payload_alloc(bl_filter *f, size_t nbytes);
/* Zero a writable payload (bl_clear) without making an anonymous mapping resident. */
void bl_payload_clear(bl_filter *f);
void bl_payload_free(bl_filter *f);

/* Allocate an empty filter object with identity fields set and payload allocated. */
bl_status bl_filter_new(bl_filter **out, bl_layout layout, uint64_t nblocks, unsigned k,
                        uint64_t seed, unsigned flags, const struct bl_kernels *kern);
/* Set the filter's kernel and the single-key query that goes with it (its layout and k set). */
void bl_filter_set_kernel(bl_filter *f, const struct bl_kernels *kern);
/* Geometry helpers: bytes per block for a layout, the most blocks it can have, and validity of k. */
size_t bl_layout_block_bytes(bl_layout layout);
uint64_t bl_layout_max_blocks(bl_layout layout);
/* A layout this library knows (BL_E_BAD_LAYOUT for any other value). */
bool bl_layout_known(bl_layout layout);
bool bl_layout_k_valid(bl_layout layout, unsigned k);
/* bl_size_for_fpp with k forced (k_forced != 0: the smallest size at which it meets fpp;
 * BL_E_BAD_K if the layout cannot have it, BL_E_TOO_LARGE if no size up to the limit does). */
bl_status bl_size_for_fpp_k(bl_layout layout, uint64_t n, double fpp, unsigned k_forced,
                            uint64_t *bits, unsigned *k);
/* The k of the lowest model rate for n keys in exactly `bits` (whole blocks), as the size
 * searches choose it (classic up to 64). */
bl_status bl_best_k_for_bits(bl_layout layout, uint64_t bits, uint64_t n, unsigned *k);
bl_hash_scheme bl_layout_hash(bl_layout layout);

/* keys_added of a union or an add: the sum, held at UINT64_MAX rather than wrapping to a small
 * count (a count loaded from a file may be anything, and a filter may be united with itself). */
static inline uint64_t bl_keys_sum(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

/* bl_keys_sum for adders that run at once (concurrent mode, partitioned adds). Every add that
 * wraps stores the maximum after its own increment, so the count ends held there whatever the
 * interleaving (a reader may glimpse the wrapped value). */
static inline void bl_count_keys_atomic(bl_filter *f, uint64_t n)
{
    const uint64_t old = __atomic_fetch_add(&f->keys_added, n, __ATOMIC_RELAXED);
    if (old > UINT64_MAX - n)
        __atomic_store_n(&f->keys_added, UINT64_MAX, __ATOMIC_RELAXED);
}

static inline void bl_count_keys(bl_filter *f, uint64_t n)
{
    if (f->flags & BL_FLAG_CONCURRENT)
        bl_count_keys_atomic(f, n);
    else
        f->keys_added = bl_keys_sum(f->keys_added, n);
}

/* ---- Files (save_file.c) --------------------------------------------------------------------- */

bool bl_pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off);
/* The same at fd's own position, for descriptors that cannot seek (pipes, sockets). */
bool bl_write_all(int fd, const uint8_t *p, size_t n);
/* Puts a file's new contents into fd, a fresh empty temporary (with pwrite: no offset is set). */
typedef bl_status (*bl_file_writer)(int fd, const void *ctx);
/* Replace path atomically with what `write` puts in a temporary beside it. A symlink is replaced,
 * not followed; an entry that is neither a regular file nor absent, itself or behind a link, is
 * refused (BL_E_IO, errno EISDIR or EINVAL) rather than replaced. */
bl_status bl_replace_file(const char *path, bl_file_writer write, const void *ctx);

/* ---- Sizing models (sizing.c) ---------------------------------------------------------------- */

/* Expected false-positive rate of a line filter, keys spread over lines as Poisson(lambda = keys
 * per line): blocked (slots = 512) or counting (slots = 128), both selecting as the bit-selection
 * spec below. Exact occupancy model (not the fill^k approximation). */
double bl_model_line_fpp(unsigned slots, unsigned k, double lambda);
/* log of the probability that one key leaves a given slot of its line clear. */
double bl_model_line_clear_log(unsigned slots, unsigned k);
double bl_model_sbbf_fpp(double lambda);
double bl_model_classic_fpp(double m, unsigned k, double n);
/* The same at a known fill (the fraction of bits set), as bl_get_info measures it. */
double bl_model_classic_fpp_fill(double m, unsigned k, double fill, double n);

/* ---- Hash stage (hash.c) ----------------------------------------------------------------------- */

void bl_murmur3_x64_128(const void *key, size_t len, uint32_t seed, uint64_t out[2]);
/* XXH3 with seed over len bytes (key may be NULL when len is 0): the blocked layouts' hash. */
uint64_t bl_xxh3_bytes(const void *key, size_t len, uint64_t seed);
/* XXH64 with seed, the same way: the sbbf layout's hash. */
uint64_t bl_xxh64_bytes(const void *key, size_t len, uint64_t seed);
/* Murmur3 x64 128's low 64 bits (Guava's h1), the same way. */
uint64_t bl_murmur3_low64(const void *key, size_t len, uint64_t seed);

/* A byte key's 64-bit hash under a scheme: every single-key path (bl_hash, bl_add, bl_contains,
 * bl_remove, the CLI's feed) comes here. Inline, so that the caller's test calls the scheme's
 * function directly, its arguments already in place: out of line, the shuffle and the tests
 * cost 4-11 more instructions per sbbf or counting query or add. */
static inline uint64_t bl_hash_bytes_scheme(bl_hash_scheme scheme, uint64_t seed, const void *key,
                                            size_t len)
{
    /* tests in this order, not a switch, whose compares gcc put XXH3 (the default) last */
    if (scheme == BL_HASH_XXH3)
        return bl_xxh3_bytes(key, len, seed);
    if (scheme == BL_HASH_XXH64)
        return bl_xxh64_bytes(key, len, seed);
    if (scheme == BL_HASH_MURMUR3_128)
        return bl_murmur3_low64(key, len, seed);
    return 0;
}

static inline uint64_t bl_rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

/* XXH3_64bits_withSeed over the 8 little-endian bytes of key, unrolled (xxHash 0.8 len 4..8
 * path); test_hash checks it against the library for every seed it tries. */
#define BL_XXH3_BITFLIP_8 0xc73ab174c5ecd5a2ULL /* readLE64(kSecret+8) ^ readLE64(kSecret+16) */
#define BL_XXH3_RRMXMX 0x9FB21C651E98DF25ULL
static inline uint64_t bl_xxh3_u64_seed_fold(uint64_t seed)
{
    uint32_t lo = (uint32_t)seed;
    return seed ^ ((uint64_t)__builtin_bswap32(lo) << 32);
}
/* The seed's whole contribution, computed once per filter for the single-key path. */
static inline uint64_t bl_xxh3_u64_flip(uint64_t seed)
{
    return BL_XXH3_BITFLIP_8 - bl_xxh3_u64_seed_fold(seed);
}
static inline uint64_t bl_xxh3_u64_flipped(uint64_t key, uint64_t flip)
{
    uint64_t h = bl_rotl64(key, 32) ^ flip;
    h ^= bl_rotl64(h, 49) ^ bl_rotl64(h, 24);
    h *= BL_XXH3_RRMXMX;
    h ^= (h >> 35) + 8;
    h *= BL_XXH3_RRMXMX;
    return h ^ (h >> 28);
}
static inline uint64_t bl_xxh3_u64(uint64_t key, uint64_t seed)
{
    return bl_xxh3_u64_flipped(key, bl_xxh3_u64_flip(seed));
}

/* A filter's seed and the flip derived from it, set together wherever a filter object is made. */
static inline void bl_filter_set_seed(struct bl_filter *f, uint64_t seed)
{
    f->seed = seed;
    f->xxh3_flip = bl_xxh3_u64_flip(seed);
}

#define BL_XXH64_P1 0x9E3779B185EBCA87ULL
#define BL_XXH64_P2 0xC2B2AE3D27D4EB4FULL
#define BL_XXH64_P3 0x165667B19E3779F9ULL
#define BL_XXH64_P4 0x85EBCA77C2B2AE63ULL
#define BL_XXH64_P5 0x27D4EB2F165667C5ULL
/* XXH64 over the 8 little-endian bytes of key (Parquet hashes INT64 this way). */
static inline uint64_t bl_xxh64_u64(uint64_t key, uint64_t seed)
{
    uint64_t h = seed + BL_XXH64_P5 + 8;
    uint64_t k1 = bl_rotl64(key * BL_XXH64_P2, 31) * BL_XXH64_P1;
    h ^= k1;
    h = bl_rotl64(h, 27) * BL_XXH64_P1 + BL_XXH64_P4;
    h ^= h >> 33;
    h *= BL_XXH64_P2;
    h ^= h >> 29;
    h *= BL_XXH64_P3;
    h ^= h >> 32;
    return h;
}

/* ---- Bit selection: the specification every kernel must match -------------------------------- */

/* Blocked: the line is the high half of h * nlines (a multiply-shift range reduction that
 * works for any 64-bit line count). Inside it a key sets one bit in each of k distinct 32-bit
 * words, both chosen from the low 32 bits of h:
 *  - probe i goes to word (r + D_k[i]) mod 16, with r = the top 4 bits of (uint32)h and D_k a
 *    fixed set of k word offsets (bl_blocked_offsets below; blocked_maps.c says how chosen);
 *  - it sets bit ((uint32)h * bl_blocked_mul[i]) >> 27 of that word.
 * Why: distinct words make a key's 512-bit mask a permutation of its k bit values (one vpermd,
 * no scatter), so an add is one line read-modify-write; and the word indices are one shift and
 * one add from the hash, so queries stay nearly as short as with free positions (1.35 vs 1.31
 * ns/key batched at 2^16). D_k is chosen so that its 16 translates overlap as evenly as random
 * k-subsets would: the model rate at 10 bits/key is 0.972% (random k-subsets: 0.962%;
 * consecutive words: 1.06%; version 1's free positions, whose repeats waste bits: 0.957%).
 * sizing.c models the scheme exactly. The multipliers and the sets are fixed forever: they are
 * part of the format (version 2). */
static const uint32_t bl_blocked_mul[16] = {
    0x556f4675u, 0x97c69b05u, 0x923d592du, 0xfa626315u, 0xa37774e5u, 0x422cfd25u,
    0x77e68e55u, 0x78bd6055u, 0xc9e4c63du, 0xf6125f8du, 0xb32e2b25u, 0x582e34a5u,
    0xc869a2cdu, 0x8d0a1fddu, 0x99bd3555u, 0xafc85605u};

/* Hidden in the declaration too, so kernels address the tables relative to the instruction
 * pointer rather than loading their address from the GOT (one instruction less per probe). */
#define BL_HIDDEN __attribute__((visibility("hidden")))

/* D_k (row k: offsets of probes 0..k-1, 0 past k; blocked_maps.c tells how the sets were
 * chosen). Here rather than there so that a kernel compiled for one k folds its row into
 * constants (AVX2's D_k << 28). */
static const uint32_t bl_blocked_offsets[BL_K_MAX_BLOCKED + 1][16]
    __attribute__((aligned(64))) = {
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 0 */
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 1 */
    {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 2 */
    {0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 3 */
    {0, 1, 4, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 4 */
    {0, 1, 4, 6, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 5 */
    {0, 1, 4, 5, 7, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 6 */
    {0, 1, 3, 4, 5, 8, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 7 */
    {0, 1, 2, 3, 5, 6, 9, 11, 0, 0, 0, 0, 0, 0, 0, 0}, /* k = 8 */
    {0, 1, 2, 4, 5, 6, 8, 9, 11, 0, 0, 0, 0, 0, 0, 0}, /* k = 9 */
    {0, 1, 3, 4, 5, 6, 8, 9, 10, 12, 0, 0, 0, 0, 0, 0}, /* k = 10 */
    {0, 1, 2, 3, 4, 5, 7, 8, 10, 11, 12, 0, 0, 0, 0, 0}, /* k = 11 */
    {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13, 0, 0, 0, 0}, /* k = 12 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14, 0, 0, 0}, /* k = 13 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 0}, /* k = 14 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0}, /* k = 15 */
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, /* k = 16 */
};
/* D_k's inverse (row k, column d and d + 16: the probe with offset d, or 15, a lane past k,
 * when none has it). */
extern const uint32_t bl_blocked_probe_of[BL_K_MAX_BLOCKED + 1][32] BL_HIDDEN;
/* The multiplier of word d's probe for each k (0 where no probe of k has offset d), stored twice
 * over in the same way (blocked_maps.c). */
extern const uint32_t bl_blocked_mul_of_word[BL_K_MAX_BLOCKED + 1][32] BL_HIDDEN;

/* The key's word shift r. */
static inline uint32_t bl_blocked_shift(uint64_t h) { return (uint32_t)h >> 28; }

static inline uint64_t bl_mulhi64(uint64_t a, uint64_t b)
{
    __extension__ typedef unsigned __int128 bl_u128; /* GCC and Clang on 64-bit targets */
    return (uint64_t)(((bl_u128)a * b) >> 64);
}
static inline uint64_t bl_blocked_line(uint64_t h, uint64_t nlines) { return bl_mulhi64(h, nlines); }
/* Byte offset of the key's line. The empty asm keeps Clang from taking line * 64 straight from
 * the 128-bit product as shld(hi, lo, 6) & ~63: shld costs several cycles on AMD cores, and a
 * Clang build's 2^16 batched query took 1.7 instead of 1.25 ns/key on a Zen 4. */
static inline uint64_t bl_blocked_line_offset(uint64_t h, uint64_t nlines)
{
    uint64_t line = bl_blocked_line(h, nlines);
#if defined(__clang__)
    __asm__("" : "+r"(line));
#endif
    return line * BL_LINE_BYTES;
}
/* The first byte of the key's line in the payload DATA. A macro so that one definition serves
 * readers and writers: the line is const exactly when DATA is. */
#define BL_LINE_AT(data, nlines, h) ((data) + bl_blocked_line_offset((h), (nlines)))

/* NAME[BL_K_MAX_BLOCKED + 1]: ONE(NAME, OP, K) made for each k = 1..16 (NAME_K), a table of them
 * of type FN with STORAGE (static, or empty for a table other kernels share). */
#define BL_BY_K(ONE, STORAGE, FN, NAME, OP)                                                        \
    ONE(NAME, OP, 1) ONE(NAME, OP, 2) ONE(NAME, OP, 3) ONE(NAME, OP, 4) ONE(NAME, OP, 5)           \
    ONE(NAME, OP, 6) ONE(NAME, OP, 7) ONE(NAME, OP, 8) ONE(NAME, OP, 9) ONE(NAME, OP, 10)          \
    ONE(NAME, OP, 11) ONE(NAME, OP, 12) ONE(NAME, OP, 13) ONE(NAME, OP, 14) ONE(NAME, OP, 15)      \
    ONE(NAME, OP, 16)                                                                              \
    STORAGE FN *const NAME[BL_K_MAX_BLOCKED + 1] = {                                              \
        NULL,       NAME##_1,  NAME##_2,  NAME##_3,  NAME##_4,  NAME##_5,                         \
        NAME##_6,   NAME##_7,  NAME##_8,  NAME##_9,  NAME##_10, NAME##_11,                        \
        NAME##_12,  NAME##_13, NAME##_14, NAME##_15, NAME##_16}

/* A kernel's single-key uint64_t query compiled once for each k, so that the query a filter
 * calls (bl_filter_set_kernel) has no branch on k and its word offsets and lane mask as
 * constants. With bl_contains_u64 one indirect call to it (no layout test, no kernel table):
 * 3.27 -> 2.83 ns/key (AVX-512) and 3.20 -> 2.74 (AVX2) at 2^16 keys, k = 6, on a Zen 5
 * (bench_filters, four runs alternated with the previous build). PROBE(data, nlines, k, h) is
 * the kernel's test of one hash, an inline function. */
#define BL_CONTAINS_U64_ONE_K(NAME, PROBE, K)                                                      \
    static bool NAME##_##K(const struct bl_filter *f, uint64_t key)                              \
    {                                                                                              \
        return PROBE(f->data, f->nblocks, K, bl_xxh3_u64_flipped(key, f->xxh3_flip));             \
    }
#define BL_CONTAINS_U64_BY_K(STORAGE, NAME, PROBE)                                                 \
    BL_BY_K(BL_CONTAINS_U64_ONE_K, STORAGE, bl_contains_u64_fn, NAME, PROBE)
/* The same for bl_contains_hash, whose caller hashed: the probe alone, k a constant. */
#define BL_CONTAINS_HASH_ONE_K(NAME, PROBE, K)                                                     \
    static bool NAME##_##K(const struct bl_filter *f, uint64_t h)                                \
    {                                                                                              \
        return PROBE(f->data, f->nblocks, K, h);                                                   \
    }
#define BL_CONTAINS_HASH_BY_K(STORAGE, NAME, PROBE)                                                \
    BL_BY_K(BL_CONTAINS_HASH_ONE_K, STORAGE, bl_contains_u64_fn, NAME, PROBE)
/* The same for a plain blocked filter's single-key add (the key's bits ORed in, not counted):
 * ADD(data, nlines, k, h) is the kernel's add of one hash. */
#define BL_ADD_U64_ONE_K(NAME, ADD, K)                                                             \
    static void NAME##_##K(struct bl_filter *f, uint64_t key)                                    \
    {                                                                                              \
        ADD(f->data, f->nblocks, K, bl_xxh3_u64_flipped(key, f->xxh3_flip));                      \
    }
#define BL_ADD_U64_BY_K(STORAGE, NAME, ADD) BL_BY_K(BL_ADD_U64_ONE_K, STORAGE, bl_add_u64_fn, NAME, ADD)
#define BL_ADD_HASH_ONE_K(NAME, ADD, K)                                                            \
    static void NAME##_##K(struct bl_filter *f, uint64_t h) { ADD(f->data, f->nblocks, K, h); }
#define BL_ADD_HASH_BY_K(STORAGE, NAME, ADD) BL_BY_K(BL_ADD_HASH_ONE_K, STORAGE, bl_add_u64_fn, NAME, ADD)
/* Word and bit of probe i of k. */
static inline uint32_t bl_blocked_word(uint64_t h, unsigned k, unsigned i)
{
    return (bl_blocked_shift(h) + bl_blocked_offsets[k][i]) & 15u;
}
static inline uint32_t bl_blocked_bit(uint64_t h, unsigned i)
{
    return ((uint32_t)h * bl_blocked_mul[i]) >> 27;
}
/* Bit position 0..511 of probe i inside the line: bit (pos & 31) of 32-bit word (pos >> 5). */
static inline uint32_t bl_blocked_pos(uint64_t h, unsigned k, unsigned i)
{
    return bl_blocked_word(h, k, i) << 5 | bl_blocked_bit(h, i);
}

/* Add one key; whether its line lacked one of its bits (the key was new to it). */
static inline bool bl_blocked_add_one(uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    uint32_t *w = (uint32_t *)(void *)BL_LINE_AT(data, nlines, h);
    uint32_t lacked = 0;
    for (unsigned i = 0; i < k; i++) {
        const uint32_t pos = bl_blocked_pos(h, k, i), bit = 1u << (pos & 31);
        lacked |= ~w[pos >> 5] & bit;
        w[pos >> 5] |= bit;
    }
    return lacked != 0;
}
static inline bool bl_blocked_test_one(const uint8_t *data, uint64_t nlines, unsigned k, uint64_t h)
{
    const uint32_t *w =
        (const uint32_t *)(const void *)BL_LINE_AT(data, nlines, h);
    uint32_t ok = 1;
    for (unsigned i = 0; i < k; i++) {
        uint32_t pos = bl_blocked_pos(h, k, i);
        ok &= w[pos >> 5] >> (pos & 31);
    }
    return ok & 1;
}

/* Parquet split block (parquet-format BloomFilter.md): block = ((h >> 32) * nblocks) >> 32,
 * one bit in each of the 8 words from (uint32)h times the spec's salt, top 5 bits. */
static const uint32_t bl_sbbf_salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                         0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};
static inline uint64_t bl_sbbf_block(uint64_t h, uint64_t nblocks)
{
    return ((h >> 32) * nblocks) >> 32;
}
static inline void bl_sbbf_add_one(uint8_t *data, uint64_t nblocks, uint64_t h)
{
    uint32_t *w = (uint32_t *)(void *)(data + bl_sbbf_block(h, nblocks) * BL_SBBF_BLOCK_BYTES);
    for (unsigned i = 0; i < 8; i++)
        w[i] |= 1u << (((uint32_t)h * bl_sbbf_salt[i]) >> 27);
}
static inline bool bl_sbbf_test_one(const uint8_t *data, uint64_t nblocks, uint64_t h)
{
    const uint32_t *w =
        (const uint32_t *)(const void *)(data + bl_sbbf_block(h, nblocks) * BL_SBBF_BLOCK_BYTES);
    uint32_t ok = 1;
    for (unsigned i = 0; i < 8; i++)
        ok &= w[i] >> (((uint32_t)h * bl_sbbf_salt[i]) >> 27);
    return ok & 1;
}

/* Classic (Guava MURMUR128_MITZ_64): index i = ((h1 + i*h2) & INT64_MAX) mod m, bit (idx & 63)
 * of 64-bit word idx / 64. A pre-hashed 64-bit value h is used as h1 = h, h2 = rotl(h, 32) * odd
 * constant, so that the k indexes still differ. */
static inline void bl_classic_hashes_from_prehash(uint64_t h, uint64_t *h1, uint64_t *h2)
{
    *h1 = h;
    *h2 = bl_rotl64(h, 32) * BL_XXH64_P1;
}

/* Probe i's bit index in a classic filter of m bits, from combined = h1 + i*h2 (the add and the
 * query step it, combined += h2). Guava adds with wrapping 64-bit longs and masks the sign bit
 * before the modulus; uint64_t arithmetic wraps identically. One definition for the add, the
 * query and bl_hash_line, so that they cannot drift apart. */
static inline uint64_t bl_classic_index(uint64_t combined, uint64_t m)
{
    return (combined & INT64_MAX) % m;
}

/* One query's answer (0 or 1), written to res[i] when the caller asked for answers (res is NULL
 * when only the count is wanted); returns it, to be added to the hits. */
static inline size_t bl_answer(uint8_t *res, size_t i, int hit)
{
    if (res)
        res[i] = (uint8_t)hit;
    return (size_t)hit;
}

/* Prefetch helpers: read for queries, write intent for adds. */
#define BL_PREFETCH_R(p) __builtin_prefetch((p), 0, 3)
#define BL_PREFETCH_W(p) __builtin_prefetch((p), 1, 3)

/* The i-th piece of memory (from 0) a query or add of hash h reads in f, NULL past the last: the
 * line of a blocked or counting filter, the block of an sbbf, probe i's 64-bit word of a classic
 * filter, stage i's line of a scalable chain counted from the newest (bl_prefetch_hash). */
const uint8_t *bl_hash_line(const bl_filter *f, uint64_t h, size_t i);

/* ---- Layout operations ---------------------------------------------------------------------- */

/* Atomic (BL_FLAG_CONCURRENT) adds; scalar, identical bits to every kernel. */
void bl_blocked_add_atomic(uint8_t *data, uint64_t nlines, unsigned k, const uint64_t *h,
                           size_t n, size_t avail);
void bl_sbbf_add_atomic(uint8_t *data, uint64_t nblocks, const uint64_t *h, size_t n, size_t avail);

/* Classic layout (classic.c). */
void bl_classic_add_h(bl_filter *f, uint64_t h1, uint64_t h2);
bool bl_classic_test_h(const bl_filter *f, uint64_t h1, uint64_t h2);


/* ---- Hooks of the counting and scalable layouts (counting.c, scalable.c) -------------------- */

/* Number of non-zero counters of a counting filter. */
uint64_t bl_counting_nonzero(const bl_filter *f);
/* dst = counter-wise saturating sum (union) or minimum (intersection); identities already equal. */
void bl_counting_merge(bl_filter *dst, const bl_filter *src, bool intersect);
/* Scalable: identity over all stages, set operations stage by stage, info summed over stages. */
bool bl_scalable_same_identity(const bl_filter *a, const bl_filter *b);
bl_status bl_scalable_merge(bl_filter *dst, const bl_filter *src, bool intersect);
bl_status bl_scalable_get_info(const bl_filter *f, bl_info *info);
/* Empty a writable chain back to the one bl_create makes: its first stage, cleared. */
void bl_scalable_clear(bl_filter *f);
/* The loader's check that a chain's fields (design_keys, design_fpp, growth, tightening) describe
 * its stages: a walk over the capacity and rate each stage gets from them, oldest stage first.
 * A stage fits when its lines and k hold its capacity at about its rate; one that does not would
 * be filled past what it holds (if the newest) while the chain reports its design rate. */
typedef struct bl_scalable_walk {
    size_t stage;
    double keys; /* the stage's capacity before rounding */
} bl_scalable_walk;
void bl_scalable_walk_start(const bl_filter *chain, bl_scalable_walk *walk);
bool bl_scalable_walk_stage(const bl_filter *chain, bl_scalable_walk *walk, uint64_t lines,
                            unsigned k);
/* Whether a chain can open its next stage (stage chain->nstages): a chain with no stage that
 * cannot would refuse every add. */
bool bl_scalable_can_grow(const bl_filter *chain);

#endif /* BL_INTERNAL_H */
