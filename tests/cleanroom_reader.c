/* SPDX-License-Identifier: MIT */
/* Clean-room reader of the bloomline format, from docs/FORMAT.md (and the sizing model of
 * docs/DESIGN.md it refers to) alone: no library header or source. Where the document named no
 * status or order, test_cleanroom's experiments against the library decided (FORMAT.md says
 * them since). Portable to any byte order: every field and payload word is assembled from bytes. */
#include "cleanroom_reader.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Header-only xxHash: nothing to link, and no clash with the library's copy. */
#define XXH_INLINE_ALL
#include <xxhash.h>

_Static_assert(sizeof(double) == 8, "doubles are stored as IEEE 754 binary64");

enum { HEADER = 128, RECORD = 96, ALIGN = 4096, LINE = 64 };

static const uint8_t magic[8] = {0x89, 0x42, 0x4C, 0x4F, 0x4F, 0x4D, 0x0D, 0x0A};

/* FORMAT.md, "Payloads": fixed forever. */
static const uint32_t mul[16] = {
    0x556f4675u, 0x97c69b05u, 0x923d592du, 0xfa626315u, 0xa37774e5u, 0x422cfd25u,
    0x77e68e55u, 0x78bd6055u, 0xc9e4c63du, 0xf6125f8du, 0xb32e2b25u, 0x582e34a5u,
    0xc869a2cdu, 0x8d0a1fddu, 0x99bd3555u, 0xafc85605u};
static const uint8_t dk[17][16] = {
    {0},
    {0},
    {0, 1},
    {0, 1, 3},
    {0, 1, 4, 6},
    {0, 1, 4, 6, 8},
    {0, 1, 4, 5, 7, 9},
    {0, 1, 3, 4, 5, 8, 10},
    {0, 1, 2, 3, 5, 6, 9, 11},
    {0, 1, 2, 4, 5, 6, 8, 9, 11},
    {0, 1, 3, 4, 5, 6, 8, 9, 10, 12},
    {0, 1, 2, 3, 4, 5, 7, 8, 10, 11, 12},
    {0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 13},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 14},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
static const uint32_t salt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                                 0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

const char *cr_status_name(cr_status st)
{
    switch (st) {
    case CR_OK: return "BL_OK";
    case CR_E_TRUNCATED: return "BL_E_TRUNCATED";
    case CR_E_BAD_MAGIC: return "BL_E_BAD_MAGIC";
    case CR_E_BAD_VERSION: return "BL_E_BAD_VERSION";
    case CR_E_BAD_LAYOUT: return "BL_E_BAD_LAYOUT";
    case CR_E_BAD_GEOMETRY: return "BL_E_BAD_GEOMETRY";
    case CR_E_BAD_K: return "BL_E_BAD_K";
    case CR_E_HEADER_CHECKSUM: return "BL_E_HEADER_CHECKSUM";
    case CR_E_PAYLOAD_CHECKSUM: return "BL_E_PAYLOAD_CHECKSUM";
    case CR_E_NOMEM: return "BL_E_NOMEM";
    case CR_E_IO: return "BL_E_IO";
    }
    return "?";
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static double ledouble(const uint8_t *p)
{
    const uint64_t bits = le64(p);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static unsigned popcount16(uint32_t x)
{
    unsigned n = 0;
    for (; x != 0; x &= x - 1)
        n++;
    return n;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* The high half of the 128-bit product, in portable C. */
static uint64_t mulhi64(uint64_t a, uint64_t b)
{
    const uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

static uint64_t round_up(uint64_t x) /* x <= UINT64_MAX - 4095 */
{
    return (x + ALIGN - 1) / ALIGN * ALIGN;
}

static bool in_open_unit(double p)
{
    return p > 0.0 && p < 1.0; /* false for NaN */
}

static unsigned scheme_of(unsigned layout)
{
    return layout == CR_SBBF ? 2 : layout == CR_CLASSIC ? 3 : 1;
}

static bool k_valid(unsigned layout, unsigned k)
{
    switch (layout) {
    case CR_SBBF: return k == 8;
    case CR_CLASSIC: return k >= 1 && k <= 255;
    default: return k >= 1 && k <= 16; /* blocked, counting, a chain's stages */
    }
}

static uint64_t block_bytes(unsigned layout)
{
    return layout == CR_SBBF ? 32 : layout == CR_CLASSIC ? 8 : LINE;
}

/* ---- The blocked model (docs/DESIGN.md, "Sizing models") -------------------------------- */

/* A line with Poisson(lambda) keys, the query on the translate D_k (the translates form a
 * group, so any one stands for all): inclusion-exclusion over the query words S left clear,
 * sum_S (-1)^|S| E[f(S)^L] with f(S) = mean over translates W_r of a^|S & W_r|, a = 31/32; the
 * Poisson mean of f^L is exp(-lambda (1 - f)). Written with expm1 so each term is O(lambda),
 * not O(1), which keeps the cancellation of the alternating sum small at light loads.
 * f(S) depends only on how many translates meet S in c words, for c = 0..16: subsets are
 * grouped by that histogram (integer work), and each group costs one expm1l (binary128 in
 * software on aarch64: with one per subset test_cleanroom took 60 s under qemu, grouped 16). */
enum { CLASSES = 1024 };
typedef struct model_class {
    uint8_t hist[17];
    bool used;
    int64_t weight; /* the signed number of subsets in the class */
} model_class;

double cr_blocked_model(uint64_t lines, unsigned k, double n)
{
    if (lines == 0 || k < 1 || k > 16)
        return 1.0;
    const long double lambda = (long double)n / (long double)lines;
    long double miss[17]; /* 1 - a^c: a key that covers c words of S sets one of their bits */
    for (unsigned c = 0; c <= 16; c++)
        miss[c] = -expm1l((long double)c * log1pl(-1.0L / 32));
    uint32_t trans[16];
    for (unsigned r = 0; r < 16; r++) {
        trans[r] = 0;
        for (unsigned i = 0; i < k; i++)
            trans[r] |= 1u << ((dk[k][i] + r) & 15);
    }
    model_class cls[CLASSES];
    memset(cls, 0, sizeof cls);
    long double sum = 0;
    for (uint32_t s = 1; s < (1u << k); s++) {
        uint32_t words = 0;
        for (unsigned i = 0; i < k; i++)
            if (s >> i & 1)
                words |= 1u << dk[k][i];
        uint8_t hist[17] = {0};
        uint64_t hash = 0;
        for (unsigned r = 0; r < 16; r++)
            hist[popcount16(words & trans[r])]++;
        for (unsigned c = 0; c <= 16; c++)
            hash = hash * 31 + hist[c];
        const int sign = (popcount16(s) & 1) ? -1 : 1;
        size_t at = (size_t)(hash % CLASSES), probes = 0;
        while (cls[at].used && memcmp(cls[at].hist, hist, sizeof hist) != 0 && ++probes < CLASSES)
            at = (at + 1) % CLASSES;
        if (probes == CLASSES) { /* never with 16 translates; evaluated alone if it were */
            long double g = 0;
            for (unsigned c = 0; c <= 16; c++)
                g += hist[c] * miss[c];
            sum += sign * expm1l(-lambda * g / 16);
            continue;
        }
        if (!cls[at].used) {
            cls[at].used = true;
            memcpy(cls[at].hist, hist, sizeof hist);
        }
        cls[at].weight += sign;
    }
    for (size_t i = 0; i < CLASSES; i++) {
        if (!cls[i].used || cls[i].weight == 0)
            continue;
        long double g = 0;
        for (unsigned c = 0; c <= 16; c++)
            g += cls[i].hist[c] * miss[c];
        sum += (long double)cls[i].weight * expm1l(-lambda * g / 16);
    }
    return sum < 0 ? 0.0 : (double)sum;
}

/* ---- Validation (FORMAT.md, "Validation order") ------------------------------------------- */

/* 2^53: the largest key count a stage is designed for (FORMAT.md, the chain rule). */
#define CR_MAX_STAGE_KEYS 9007199254740992.0

/* The chain rule: stage i is designed for ceil(n g^i) keys (products in order) at
 * p (1 - r) r^i, and its lines and k must hold them at no more than twice that rate. */
static bool stage_holds(const cr_filter *f, uint32_t i, uint64_t lines, unsigned k)
{
    double keys = (double)f->design_n, rate = f->design_p * (1.0 - f->tightening);
    for (uint32_t j = 0; j < i; j++) {
        keys *= f->growth;
        rate *= f->tightening;
    }
    keys = ceil(keys);
    if (!(keys <= CR_MAX_STAGE_KEYS))
        return false;
    return cr_blocked_model(lines, k, keys) <= 2 * rate;
}

static cr_status check_header(cr_filter *f, const uint8_t *b, size_t len, uint64_t *p0)
{
    /* 4: the fields in the order the document lists them. */
    f->layout = le32(b + 12);
    if (f->layout > CR_SCALABLE)
        return CR_E_BAD_LAYOUT;
    f->hash = le32(b + 16);
    if (f->hash != scheme_of(f->layout))
        return CR_E_BAD_LAYOUT;
    f->flags = le32(b + 72);
    if ((f->flags & ~1u) != 0 || !all_zero(b + 104, 16))
        return CR_E_BAD_VERSION;
    f->k = le32(b + 20);
    if (f->layout == CR_SCALABLE ? f->k > 16 : !k_valid(f->layout, f->k))
        return CR_E_BAD_K;
    f->seed = le64(b + 24);
    f->keys = le64(b + 32);
    f->design_n = le64(b + 40);
    f->design_p = ledouble(b + 48);
    f->growth = ledouble(b + 56);
    f->tightening = ledouble(b + 64);
    f->nstages = le32(b + 76);
    f->total_bits = le64(b + 80);
    f->size = le64(b + 88);
    if (f->layout == CR_SCALABLE) {
        if (!(isfinite(f->growth) && f->growth > 1.0) || !in_open_unit(f->tightening) ||
            f->design_n < 1 || !in_open_unit(f->design_p))
            return CR_E_BAD_GEOMETRY;
    } else if (le64(b + 56) != 0 || le64(b + 64) != 0) {
        return CR_E_BAD_GEOMETRY;
    }
    if (f->design_p != 0.0 && !in_open_unit(f->design_p))
        return CR_E_BAD_GEOMETRY;
    if (f->layout != CR_SCALABLE && f->nstages != 1)
        return CR_E_BAD_GEOMETRY;
    if (f->nstages == 0) {
        /* A chain of no stage must be able to make its first one: some k holds n keys at
         * p (1 - r), no slack, in 2^44 lines (1 PiB), the largest stage bl_create makes. */
        bool ok = false;
        const double rate = f->design_p * (1.0 - f->tightening);
        for (unsigned k = 1; k <= 16 && !ok && (double)f->design_n <= CR_MAX_STAGE_KEYS; k++)
            ok = cr_blocked_model(UINT64_C(1) << 44, k, (double)f->design_n) <= rate;
        if (!ok)
            return CR_E_BAD_GEOMETRY;
    }
    *p0 = f->nstages == 0 ? HEADER : round_up(HEADER + (uint64_t)RECORD * f->nstages);
    if (*p0 > f->size)
        return CR_E_BAD_GEOMETRY;
    if (*p0 > len)
        return CR_E_TRUNCATED;
    return CR_OK;
}

static void read_record(const uint8_t *b, uint32_t i, cr_stage *s)
{
    const uint8_t *r = b + HEADER + (uint64_t)RECORD * i;
    s->blocks = le64(r);
    s->bits = le64(r + 8);
    s->k = le32(r + 16);
    s->seed = le64(r + 24);
    s->keys = le64(r + 32);
    s->design_n = le64(r + 40);
    s->design_p = ledouble(r + 48);
    s->offset = le64(r + 56);
    s->bytes = le64(r + 64);
    s->checksum = le64(r + 72);
}

/* 5: the table checksum and padding, each record in turn, then the chain rule and the totals.
 * Records are read from the buffer: nothing is allocated before step 6 has passed. */
static cr_status check_table(const cr_filter *f, const uint8_t *b, uint64_t p0)
{
    if (XXH3_64bits(b + HEADER, (size_t)(p0 - HEADER)) != le64(b + 96))
        return CR_E_HEADER_CHECKSUM;
    const uint64_t table_end = HEADER + (uint64_t)RECORD * f->nstages;
    if (!all_zero(b + table_end, (size_t)(p0 - table_end)))
        return CR_E_BAD_VERSION;
    const unsigned stage_layout = f->layout == CR_SCALABLE ? CR_BLOCKED : f->layout;
    const uint64_t bb = block_bytes(stage_layout);
    uint64_t end = table_end, bits = 0, keys = 0;
    bool bits_overflow = false;
    for (uint32_t i = 0; i < f->nstages; i++) {
        const uint8_t *r = b + HEADER + (uint64_t)RECORD * i;
        cr_stage s;
        read_record(b, i, &s);
        if (le32(r + 20) != 0 || !all_zero(r + 80, 16))
            return CR_E_BAD_VERSION;
        if (!k_valid(stage_layout, s.k) || (f->layout != CR_SCALABLE && s.k != f->k))
            return CR_E_BAD_K;
        if (s.blocks < 1 || (stage_layout == CR_SBBF && s.blocks > UINT64_C(1) << 32))
            return CR_E_BAD_GEOMETRY;
        /* Exact products: 8 x bytes must fit the bits field, so no payload reaches 2^61. */
        if (s.blocks > SIZE_MAX / 2 / bb || s.bytes != s.blocks * bb)
            return CR_E_BAD_GEOMETRY;
        if (s.bits / 8 != s.bytes || s.bits % 8 != 0)
            return CR_E_BAD_GEOMETRY;
        if (s.seed != f->seed)
            return CR_E_BAD_GEOMETRY;
        if (f->layout != CR_SCALABLE &&
            (s.keys != f->keys || s.design_n != f->design_n || le64(r + 48) != le64(b + 48)))
            return CR_E_BAD_GEOMETRY;
        if (s.design_p != 0.0 && !in_open_unit(s.design_p))
            return CR_E_BAD_GEOMETRY;
        if (end > UINT64_MAX - (ALIGN - 1) || s.offset != round_up(end))
            return CR_E_BAD_GEOMETRY;
        /* Within the declared size record by record, so this outranks a later record's k or
         * reserved bytes; it also keeps every sum below from wrapping. */
        if (s.bytes > f->size || s.offset > f->size - s.bytes)
            return CR_E_BAD_GEOMETRY;
        end = s.offset + s.bytes;
        bits_overflow |= bits + s.bits < bits;
        bits += s.bits;
        keys = keys + s.keys < keys ? UINT64_MAX : keys + s.keys;
    }
    /* The chain rule only once every record passed: a later record's k or reserved bytes
     * outrank it. */
    for (uint32_t i = 0; f->layout == CR_SCALABLE && i < f->nstages; i++) {
        cr_stage s;
        read_record(b, i, &s);
        if (!stage_holds(f, i, s.blocks, s.k))
            return CR_E_BAD_GEOMETRY;
    }
    if (f->layout == CR_SCALABLE && keys != f->keys)
        return CR_E_BAD_GEOMETRY;
    if (bits_overflow || bits != f->total_bits)
        return CR_E_BAD_GEOMETRY;
    if (f->size != (f->nstages == 0 ? HEADER : end))
        return CR_E_BAD_GEOMETRY;
    return CR_OK;
}

cr_status cr_open(cr_filter *f, const void *buf, size_t len)
{
    const uint8_t *b = buf;
    memset(f, 0, sizeof *f);
    /* 1: magic; a short prefix of it is a cut file. */
    if (len > 0 && memcmp(b, magic, len < 8 ? len : 8) != 0)
        return CR_E_BAD_MAGIC;
    if (len < 8)
        return CR_E_TRUNCATED;
    /* 2: the version, before the checksum (a later version may checksum otherwise); an object
     * too short to hold it whole is cut, whatever its bytes 8-10. */
    if (len < 12)
        return CR_E_TRUNCATED;
    if (le32(b + 8) != 2)
        return CR_E_BAD_VERSION;
    /* 3 */
    if (len < HEADER)
        return CR_E_TRUNCATED;
    if (XXH3_64bits(b, 120) != le64(b + 120))
        return CR_E_HEADER_CHECKSUM;
    uint64_t p0;
    cr_status st = check_header(f, b, len, &p0);
    if (st == CR_OK)
        st = check_table(f, b, p0);
    /* 6: the declared size against the real one. */
    if (st == CR_OK && f->size > len)
        st = CR_E_TRUNCATED;
    if (st == CR_OK && f->size < len)
        st = CR_E_BAD_GEOMETRY;
    if (st != CR_OK)
        return st;
    /* The object lies within the buffer now, which bounds this allocation. */
    if (f->nstages > 0 && (f->stages = calloc(f->nstages, sizeof *f->stages)) == NULL)
        return CR_E_NOMEM;
    /* 7: the padding before each payload and the payload checksums. */
    uint64_t prev_end = HEADER + (uint64_t)RECORD * f->nstages;
    for (uint32_t i = 0; st == CR_OK && i < f->nstages; i++) {
        cr_stage *s = &f->stages[i];
        read_record(b, i, s);
        s->payload = b + s->offset; /* within the buffer: steps 5 and 6 passed */
        if (!all_zero(b + prev_end, (size_t)(s->offset - prev_end)) ||
            XXH3_64bits(s->payload, (size_t)s->bytes) != s->checksum)
            st = CR_E_PAYLOAD_CHECKSUM;
        prev_end = s->offset + s->bytes;
    }
    if (st != CR_OK)
        cr_close(f);
    return st;
}

void cr_close(cr_filter *f)
{
    free(f->stages);
    memset(f, 0, sizeof *f);
}

cr_status cr_read_file(const char *path, uint8_t **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (fp == NULL)
        return CR_E_IO;
    size_t cap = 1 << 16, n = 0;
    uint8_t *p = malloc(cap);
    cr_status st = p ? CR_OK : CR_E_NOMEM;
    while (st == CR_OK) {
        if (n == cap) {
            uint8_t *q = cap > SIZE_MAX / 2 ? NULL : realloc(p, cap * 2);
            if (q == NULL) {
                st = CR_E_NOMEM;
                break;
            }
            p = q;
            cap *= 2;
        }
        const size_t got = fread(p + n, 1, cap - n, fp);
        n += got;
        if (got == 0)
            break;
    }
    if (st == CR_OK && ferror(fp))
        st = CR_E_IO;
    fclose(fp);
    if (st != CR_OK) {
        free(p);
        return st;
    }
    *buf = p;
    *len = n;
    return CR_OK;
}

/* ---- Hashes ------------------------------------------------------------------------------- */

static uint64_t rotl64(uint64_t x, unsigned r)
{
    return x << r | x >> (64 - r);
}

static uint64_t fmix64(uint64_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    k *= UINT64_C(0xc4ceb9fe1a85ec53);
    k ^= k >> 33;
    return k;
}

/* The two lanes' mixes of a block's (or the tail's) 64-bit halves. */
static const uint64_t mm_c1 = UINT64_C(0x87c37b91114253d5), mm_c2 = UINT64_C(0x4cf5ad432745937f);

static uint64_t mix_k1(uint64_t k)
{
    return rotl64(k * mm_c1, 31) * mm_c2;
}

static uint64_t mix_k2(uint64_t k)
{
    return rotl64(k * mm_c2, 33) * mm_c1;
}

/* MurmurHash3_x64_128 as published (Austin Appleby, public domain), blocks read little-endian. */
void cr_murmur3_x64_128(const void *key, size_t len, uint32_t seed, uint64_t out[2])
{
    const uint8_t *data = key;
    uint64_t h1 = seed, h2 = seed;
    const size_t nblocks = len / 16;
    for (size_t i = 0; i < nblocks; i++) {
        h1 ^= mix_k1(le64(data + 16 * i));
        h1 = rotl64(h1, 27);
        h1 += h2;
        h1 = h1 * 5 + 0x52dce729;
        h2 ^= mix_k2(le64(data + 16 * i + 8));
        h2 = rotl64(h2, 31);
        h2 += h1;
        h2 = h2 * 5 + 0x38495ab5;
    }
    const uint8_t *tail = data + 16 * nblocks;
    const size_t rest = len & 15;
    uint64_t k1 = 0, k2 = 0;
    for (size_t i = rest; i > 8; i--)
        k2 ^= (uint64_t)tail[i - 1] << (8 * (i - 9));
    if (rest > 8)
        h2 ^= mix_k2(k2);
    for (size_t i = rest < 8 ? rest : 8; i > 0; i--)
        k1 ^= (uint64_t)tail[i - 1] << (8 * (i - 1));
    if (rest > 0)
        h1 ^= mix_k1(k1);
    h1 ^= (uint64_t)len;
    h2 ^= (uint64_t)len;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 += h2;
    h2 += h1;
    out[0] = h1;
    out[1] = h2;
}

/* ---- Queries (FORMAT.md, "Payloads") -------------------------------------------------------- */

static bool blocked_has(const cr_stage *s, uint64_t h)
{
    const uint8_t *line = s->payload + mulhi64(h, s->blocks) * LINE;
    const uint32_t x = (uint32_t)h;
    for (unsigned i = 0; i < s->k; i++) {
        const unsigned word = ((x >> 28) + dk[s->k][i]) & 15;
        const unsigned bit = (uint32_t)(x * mul[i]) >> 27;
        if ((le32(line + 4 * word) >> bit & 1) == 0)
            return false;
    }
    return true;
}

static bool counting_has(const cr_stage *s, uint64_t h)
{
    const uint8_t *line = s->payload + mulhi64(h, s->blocks) * LINE;
    const uint32_t x = (uint32_t)h;
    for (unsigned i = 0; i < s->k; i++) {
        const unsigned word = ((x >> 28) + dk[s->k][i]) & 15;
        const unsigned c = 8 * word + ((uint32_t)(x * mul[i]) >> 29);
        const unsigned nibble = (line[c >> 1] >> (4 * (c & 1))) & 15;
        if (nibble == 0)
            return false;
    }
    return true;
}

static bool sbbf_has(const cr_stage *s, uint64_t h)
{
    const uint8_t *block = s->payload + (((h >> 32) * s->blocks) >> 32) * 32;
    for (unsigned i = 0; i < 8; i++) {
        const unsigned bit = (uint32_t)((uint32_t)h * salt[i]) >> 27;
        if ((le32(block + 4 * i) >> bit & 1) == 0)
            return false;
    }
    return true;
}

static bool classic_has(const cr_stage *s, const uint64_t hh[2])
{
    const uint64_t m = s->bits;
    uint64_t combined = hh[0];
    for (unsigned i = 0; i < s->k; i++, combined += hh[1]) {
        const uint64_t bit = (combined & INT64_MAX) % m;
        if ((le64(s->payload + 8 * (bit >> 6)) >> (bit & 63) & 1) == 0)
            return false;
    }
    return true;
}

bool cr_contains(const cr_filter *f, const void *key, size_t len)
{
    static const uint8_t none = 0;
    if (key == NULL)
        key = &none; /* a zero-length key may come as NULL; the hashes read nothing of it */
    switch (f->layout) {
    case CR_BLOCKED:
        return blocked_has(&f->stages[0], XXH3_64bits_withSeed(key, len, f->seed));
    case CR_COUNTING:
        return counting_has(&f->stages[0], XXH3_64bits_withSeed(key, len, f->seed));
    case CR_SBBF:
        return sbbf_has(&f->stages[0], XXH64(key, len, f->seed));
    case CR_CLASSIC: {
        uint64_t hh[2];
        cr_murmur3_x64_128(key, len, (uint32_t)f->seed, hh);
        return classic_has(&f->stages[0], hh);
    }
    case CR_SCALABLE: {
        const uint64_t h = XXH3_64bits_withSeed(key, len, f->seed);
        for (uint32_t i = 0; i < f->nstages; i++)
            if (blocked_has(&f->stages[i], h))
                return true;
        return false;
    }
    }
    return false;
}

bool cr_contains_u64(const cr_filter *f, uint64_t key)
{
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(key >> (8 * i));
    return cr_contains(f, b, sizeof b);
}
