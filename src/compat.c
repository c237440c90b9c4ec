/* SPDX-License-Identifier: MIT */
/* Public entry points of the compatibility formats: validate arguments, dispatch per format. */
#include "compat.h"

#include <stdlib.h>

bl_status bl_format_from_name(const char *name, bl_foreign_format *format)
{
    static const struct {
        const char *name;
        bl_foreign_format format;
    } names[] = {{"parquet", BL_FORMAT_PARQUET},
                 {"parquet-raw", BL_FORMAT_PARQUET_RAW},
                 {"guava", BL_FORMAT_GUAVA}};
    if (name == NULL || format == NULL)
        return BL_E_INVALID;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *format = names[i].format;
            return BL_OK;
        }
    }
    return BL_E_INVALID;
}

bl_status bl_export_size(const bl_filter *filter, bl_foreign_format format, size_t *size)
{
    if (filter == NULL || size == NULL)
        return BL_E_INVALID;
    *size = 0;
    switch (format) {
    case BL_FORMAT_PARQUET: return bl_parquet_export_size(filter, false, size);
    case BL_FORMAT_PARQUET_RAW: return bl_parquet_export_size(filter, true, size);
    case BL_FORMAT_GUAVA: return bl_guava_export_size(filter, size);
    }
    return BL_E_INVALID;
}

bl_status bl_export(const bl_filter *filter, bl_foreign_format format, void *buf, size_t cap,
                    size_t *written)
{
    if (written != NULL)
        *written = 0;
    if (filter == NULL || (buf == NULL && cap != 0))
        return BL_E_INVALID;
    size_t w = 0;
    bl_status st;
    switch (format) {
    case BL_FORMAT_PARQUET: st = bl_parquet_export(filter, false, buf, cap, &w); break;
    case BL_FORMAT_PARQUET_RAW: st = bl_parquet_export(filter, true, buf, cap, &w); break;
    case BL_FORMAT_GUAVA: st = bl_guava_export(filter, buf, cap, &w); break;
    default: return BL_E_INVALID;
    }
    if (st == BL_OK && written != NULL)
        *written = w;
    /* as bl_serialize: tell the caller how much is needed */
    if (st == BL_E_BUFFER_TOO_SMALL && written != NULL &&
        bl_export_size(filter, format, &w) == BL_OK)
        *written = w;
    return st;
}

typedef struct exported {
    const uint8_t *bytes;
    size_t len;
} exported;

static bl_status write_exported(int fd, const void *ctx)
{
    const exported *x = ctx;
    return bl_pwrite_all(fd, x->bytes, x->len, 0) ? BL_OK : BL_E_IO;
}

bl_status bl_export_save(const bl_filter *filter, bl_foreign_format format, const char *path)
{
    size_t size;
    bl_status st = bl_export_size(filter, format, &size);
    if (st != BL_OK)
        return st;
    uint8_t *buf = malloc(size ? size : 1);
    if (buf == NULL)
        return BL_E_NOMEM;
    st = bl_export(filter, format, buf, size, &size);
    if (st == BL_OK)
        st = bl_replace_file(path, write_exported, &(exported){buf, size});
    free(buf);
    return st;
}

bl_status bl_import(bl_filter **out, bl_foreign_format format, const void *buf, size_t len)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (buf == NULL && len != 0)
        return BL_E_INVALID;
    switch (format) {
    case BL_FORMAT_PARQUET: return bl_parquet_import(out, false, buf, len);
    case BL_FORMAT_PARQUET_RAW: return bl_parquet_import(out, true, buf, len);
    case BL_FORMAT_GUAVA: return bl_guava_import(out, buf, len);
    }
    return BL_E_INVALID;
}
