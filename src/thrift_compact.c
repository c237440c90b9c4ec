/* SPDX-License-Identifier: MIT */
/* A strict thrift compact-protocol codec for exactly Parquet's BloomFilterHeader struct. */
#include "thrift_compact.h"

/* Compact-protocol type codes (thrift's TCompactProtocol). Only these two occur here. */
#define BL_TC_STOP 0u
#define BL_TC_I32 5u
#define BL_TC_STRUCT 12u

/* Varint limits: an i32 takes at most 5 bytes (35 bits for 32), a field id (i16) at most 3. */
#define BL_TC_I32_BYTES 5u
#define BL_TC_I16_BYTES 3u

/* Field ids of BloomFilterHeader; every one is required. */
enum { BL_TF_NUM_BYTES = 1, BL_TF_ALGORITHM = 2, BL_TF_HASH = 3, BL_TF_COMPRESSION = 4 };
/* The one member each union may hold: BLOCK, XXHASH, UNCOMPRESSED are all field 1. */
#define BL_TF_UNION_MEMBER 1

/* ---- Writer ---------------------------------------------------------------------------------- */

static size_t write_varint(uint8_t *out, uint32_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

static uint32_t zigzag32(int32_t v)
{
    /* (v << 1) ^ (v >> 31) done on unsigned values: no signed overflow, no implementation-defined
     * right shift of a negative number. */
    uint32_t u = (uint32_t)v;
    return (u << 1) ^ (0u - (u >> 31));
}

/* Short-form field header: the id delta (1..15) in the high nibble, the type in the low one. */
static uint8_t field_byte(int delta, unsigned type) { return (uint8_t)((unsigned)delta << 4 | type); }

size_t bl_thrift_write_bloom_header(uint8_t *out, int32_t num_bytes)
{
    size_t n = 0;
    out[n++] = field_byte(BL_TF_NUM_BYTES, BL_TC_I32);
    n += write_varint(out + n, zigzag32(num_bytes));
    /* algorithm, hash, compression: each a union (a struct) holding member 1, an empty struct.
     * Field ids run 2, 3, 4, so each is one past the previous: delta 1. */
    for (int field = BL_TF_ALGORITHM; field <= BL_TF_COMPRESSION; field++) {
        out[n++] = field_byte(1, BL_TC_STRUCT);
        out[n++] = field_byte(BL_TF_UNION_MEMBER, BL_TC_STRUCT);
        out[n++] = BL_TC_STOP; /* end of the empty member struct */
        out[n++] = BL_TC_STOP; /* end of the union */
    }
    out[n++] = BL_TC_STOP; /* end of BloomFilterHeader */
    return n;
}

size_t bl_thrift_bloom_header_size(int32_t num_bytes)
{
    uint8_t tmp[BL_THRIFT_BLOOM_HEADER_MAX];
    return bl_thrift_write_bloom_header(tmp, num_bytes);
}

/* ---- Reader ---------------------------------------------------------------------------------- */

typedef struct bl_thrift_reader {
    const uint8_t *p;
    const uint8_t *end;
} bl_thrift_reader;

/* An unsigned LEB128 varint of at most max_bytes bytes. Non-minimal encodings (a final 0x00
 * after a continuation byte) are refused too: no thrift writer emits them, and accepting them
 * would let one header have many spellings. */
static bl_status read_varint(bl_thrift_reader *r, unsigned max_bytes, uint64_t limit,
                             uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < max_bytes; i++) {
        if (r->p == r->end)
            return BL_E_FORMAT; /* truncated */
        const uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (b == 0 && i > 0)
                return BL_E_FORMAT; /* non-minimal */
            if (v > limit)
                return BL_E_FORMAT; /* bits beyond the type's width */
            *out = v;
            return BL_OK;
        }
    }
    return BL_E_FORMAT; /* overlong */
}

static int32_t unzigzag32(uint32_t u) { return (int32_t)((u >> 1) ^ (0u - (u & 1))); }

static bl_status read_i32(bl_thrift_reader *r, int32_t *out)
{
    uint64_t v;
    bl_status st = read_varint(r, BL_TC_I32_BYTES, UINT32_MAX, &v);
    if (st == BL_OK)
        *out = unzigzag32((uint32_t)v);
    return st;
}

/* A field header relative to the previous field id: short form (delta 1..15 in the high
 * nibble) or long form (high nibble 0, then the id as a zigzag i16 varint). STOP must be the
 * single byte 0x00. */
static bl_status read_field(bl_thrift_reader *r, int32_t last_id, int32_t *id, unsigned *type)
{
    if (r->p == r->end)
        return BL_E_FORMAT;
    const uint8_t b = *r->p++;
    *type = b & 0x0f;
    const unsigned delta = b >> 4;
    if (*type == BL_TC_STOP) {
        *id = 0;
        return delta == 0 ? BL_OK : BL_E_FORMAT;
    }
    if (delta != 0) {
        *id = last_id + (int32_t)delta;
        return BL_OK;
    }
    uint64_t v;
    bl_status st = read_varint(r, BL_TC_I16_BYTES, UINT16_MAX, &v);
    if (st != BL_OK)
        return st;
    *id = unzigzag32((uint32_t)v);
    return BL_OK;
}

static bl_status expect_stop(bl_thrift_reader *r, int32_t last_id)
{
    int32_t id;
    unsigned type;
    bl_status st = read_field(r, last_id, &id, &type);
    if (st != BL_OK)
        return st;
    return type == BL_TC_STOP ? BL_OK : BL_E_FORMAT;
}

/* A union whose only allowed member is field 1, an empty struct: exactly one member, then STOP.
 * The nesting depth is fixed by this code, so hostile input cannot make it recurse. */
static bl_status read_empty_member_union(bl_thrift_reader *r)
{
    int32_t id;
    unsigned type;
    bl_status st = read_field(r, 0, &id, &type);
    if (st != BL_OK)
        return st;
    if (id != BL_TF_UNION_MEMBER || type != BL_TC_STRUCT)
        return BL_E_FORMAT; /* empty union, another member, or a member of the wrong type */
    st = expect_stop(r, 0); /* the member struct has no fields */
    if (st != BL_OK)
        return st;
    return expect_stop(r, id); /* a union holds exactly one member */
}

bl_status bl_thrift_read_bloom_header(const uint8_t *buf, size_t len, int32_t *num_bytes,
                                      size_t *header_len)
{
    if (num_bytes == NULL || header_len == NULL)
        return BL_E_INVALID;
    if (buf == NULL || len == 0)
        return BL_E_FORMAT; /* also keeps NULL + 0 out of the pointer arithmetic below */
    bl_thrift_reader r = {buf, buf + len};
    unsigned seen = 0;
    int32_t last_id = 0, nb = 0;
    for (;;) {
        int32_t id;
        unsigned type;
        bl_status st = read_field(&r, last_id, &id, &type);
        if (st != BL_OK)
            return st;
        if (type == BL_TC_STOP)
            break;
        if (id < BL_TF_NUM_BYTES || id > BL_TF_COMPRESSION || (seen & (1u << id)))
            return BL_E_FORMAT; /* unknown or repeated field */
        seen |= 1u << id;
        if (id == BL_TF_NUM_BYTES) {
            if (type != BL_TC_I32)
                return BL_E_FORMAT;
            st = read_i32(&r, &nb);
        } else {
            if (type != BL_TC_STRUCT)
                return BL_E_FORMAT;
            st = read_empty_member_union(&r);
        }
        if (st != BL_OK)
            return st;
        last_id = id;
    }
    const unsigned all = 1u << BL_TF_NUM_BYTES | 1u << BL_TF_ALGORITHM | 1u << BL_TF_HASH |
                         1u << BL_TF_COMPRESSION;
    if (seen != all)
        return BL_E_FORMAT; /* a required field is missing */
    *num_bytes = nb;
    *header_len = (size_t)(r.p - buf);
    return BL_OK;
}
