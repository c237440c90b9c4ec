/* SPDX-License-Identifier: MIT */
/* Internal entry points of the compatibility formats (compat.c dispatches to these). */
#ifndef BL_COMPAT_H
#define BL_COMPAT_H

#include "internal.h"
#include "thrift_compact.h"

#include <stdbool.h>

/* An export as its pieces: the format's header, then the filter's payload, as it is or converted
 * (Guava's big-endian longs). Its bytes [off, off + len) can be produced on their own, so a
 * stream or a file gets them a piece at a time, never as one copy of the filter. */
typedef struct bl_export_plan {
    uint8_t header[BL_THRIFT_BLOOM_HEADER_MAX]; /* the longest header: Parquet's */
    size_t header_len;
    const uint8_t *payload; /* the filter's own bytes */
    size_t payload_len;
    /* Writes bytes [off, off + len) of the converted payload into dst; NULL: the payload's bytes
     * are the export's. */
    void (*convert)(uint8_t *dst, const uint8_t *payload, size_t off, size_t len);
} bl_export_plan;

/* The plan of an export (compat.c): the exporters' refusals (BL_E_UNSUPPORTED), BL_E_INVALID for
 * an unknown format. */
bl_status bl_export_plan_of(const bl_filter *filter, bl_foreign_format format,
                            bl_export_plan *plan);
/* Bytes [off, off + len) of the export, which has plan->header_len + plan->payload_len bytes. */
void bl_export_piece(const bl_export_plan *plan, uint8_t *out, size_t off, size_t len);

/* Parquet split-block filters (compat_parquet.c); raw = the bitset without the thrift header.
 * BL_E_UNSUPPORTED for a filter the format cannot carry. */
bl_status bl_parquet_export_plan(const bl_filter *f, bool raw, bl_export_plan *plan);
bl_status bl_parquet_import(bl_filter **out, bool raw, const uint8_t *buf, size_t len);

/* Guava BloomFilter.writeTo streams (compat_guava.c). */
bl_status bl_guava_export_plan(const bl_filter *f, bl_export_plan *plan);
bl_status bl_guava_import(bl_filter **out, const uint8_t *buf, size_t len);

/* An imported filter records that the number of keys in it is unknown. */
static inline void bl_compat_mark_imported(bl_filter *f)
{
    f->keys_added = 0;
    f->keys_known = false;
    f->design_keys = 0;
    f->design_fpp = 0;
}

#endif /* BL_COMPAT_H */
