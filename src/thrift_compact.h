/* SPDX-License-Identifier: MIT */
/* A strict thrift compact-protocol codec for exactly Parquet's BloomFilterHeader struct. */
#ifndef BL_THRIFT_COMPACT_H
#define BL_THRIFT_COMPACT_H

#include "bloomline.h"

#include <stddef.h>
#include <stdint.h>

/*
 * parquet.thrift:
 *   struct BloomFilterHeader {
 *     1: required i32 numBytes;
 *     2: required BloomFilterAlgorithm algorithm;     union { 1: SplitBlockAlgorithm BLOCK }
 *     3: required BloomFilterHash hash;               union { 1: XxHash XXHASH }
 *     4: required BloomFilterCompression compression; union { 1: Uncompressed UNCOMPRESSED }
 *   }
 * where the three member structs are empty. Nothing else is accepted: this is not a general
 * thrift reader, so an unknown field is an error instead of something to skip.
 */

/* Longest header: 1 field byte + a 5-byte varint for numBytes + 3 x (field, member, 2 stops)
 * + the final stop. */
#define BL_THRIFT_BLOOM_HEADER_MAX 19u

/* Bytes bl_thrift_write_bloom_header writes for this numBytes. */
size_t bl_thrift_bloom_header_size(int32_t num_bytes);

/* Write the header (the bytes parquet-java writes) into out, which has room for
 * bl_thrift_bloom_header_size(num_bytes) bytes; returns the number of bytes written. */
size_t bl_thrift_write_bloom_header(uint8_t *out, int32_t num_bytes);

/* Parse a header at the start of buf. On success stores numBytes (not yet range-checked) and the
 * header's length. Any deviation from the struct above (truncation, unknown or duplicate field,
 * wrong type, wrong union member, missing field, overlong or non-minimal varint) is BL_E_FORMAT,
 * and so is an empty buffer. */
bl_status bl_thrift_read_bloom_header(const uint8_t *buf, size_t len, int32_t *num_bytes,
                                      size_t *header_len);

#endif /* BL_THRIFT_COMPACT_H */
