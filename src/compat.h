/* SPDX-License-Identifier: MIT */
/* Internal entry points of the compatibility formats (compat.c dispatches to these). */
#ifndef BL_COMPAT_H
#define BL_COMPAT_H

#include "internal.h"

#include <stdbool.h>

/* Parquet split-block filters (compat_parquet.c); raw = the bitset without the thrift header. */
bl_status bl_parquet_export_size(const bl_filter *f, bool raw, size_t *size);
bl_status bl_parquet_export(const bl_filter *f, bool raw, uint8_t *buf, size_t cap,
                            size_t *written);
bl_status bl_parquet_import(bl_filter **out, bool raw, const uint8_t *buf, size_t len);

/* Guava BloomFilter.writeTo streams (compat_guava.c). */
bl_status bl_guava_export_size(const bl_filter *f, size_t *size);
bl_status bl_guava_export(const bl_filter *f, uint8_t *buf, size_t cap, size_t *written);
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
