/* SPDX-License-Identifier: MIT */
/* Public entry points of the compatibility formats: validate arguments, dispatch per format, and
 * produce an export whole (bl_export) or a piece at a time (bl_export_save, bl_export_fd). */
#include "compat.h"

#include <errno.h>
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

/* Converted exports (Guava's) are written this many bytes at a time. */
#define BL_EXPORT_PIECE ((size_t)1 << 20)

bl_status bl_export_plan_of(const bl_filter *filter, bl_foreign_format format,
                            bl_export_plan *plan)
{
    switch (format) {
    case BL_FORMAT_PARQUET: return bl_parquet_export_plan(filter, false, plan);
    case BL_FORMAT_PARQUET_RAW: return bl_parquet_export_plan(filter, true, plan);
    case BL_FORMAT_GUAVA: return bl_guava_export_plan(filter, plan);
    }
    return BL_E_INVALID;
}

void bl_export_piece(const bl_export_plan *plan, uint8_t *out, size_t off, size_t len)
{
    if (off < plan->header_len) {
        const size_t n = plan->header_len - off < len ? plan->header_len - off : len;
        memcpy(out, plan->header + off, n);
        out += n;
        off += n;
        len -= n;
    }
    if (len == 0)
        return;
    off -= plan->header_len;
    if (plan->convert != NULL)
        plan->convert(out, plan->payload, off, len);
    else
        memcpy(out, plan->payload + off, len);
}

bl_status bl_export_size(const bl_filter *filter, bl_foreign_format format, size_t *size)
{
    if (filter == NULL || size == NULL)
        return BL_E_INVALID;
    *size = 0;
    bl_export_plan plan;
    bl_status st = bl_export_plan_of(filter, format, &plan);
    if (st == BL_OK)
        *size = plan.header_len + plan.payload_len;
    return st;
}

bl_status bl_export(const bl_filter *filter, bl_foreign_format format, void *buf, size_t cap,
                    size_t *written)
{
    if (written != NULL)
        *written = 0;
    if (filter == NULL || (buf == NULL && cap != 0))
        return BL_E_INVALID;
    bl_export_plan plan;
    bl_status st = bl_export_plan_of(filter, format, &plan);
    if (st != BL_OK)
        return st;
    const size_t size = plan.header_len + plan.payload_len;
    if (written != NULL)
        *written = size; /* as bl_serialize, also on BL_E_BUFFER_TOO_SMALL: the size needed */
    if (cap < size)
        return BL_E_BUFFER_TOO_SMALL;
    bl_export_piece(&plan, buf, 0, size); /* the whole export as one piece */
    return BL_OK;
}

/* The export in order at fd's position: a payload written as it is straight from the filter,
 * a converted one through a piece of BL_EXPORT_PIECE bytes. Either way no copy of the filter:
 * bl_export_save's full copy had taken twice the filter's memory. */
static bl_status write_export(int fd, const bl_export_plan *plan)
{
    if (plan->convert == NULL) {
        const bool ok = bl_write_all(fd, plan->header, plan->header_len) &&
                        bl_write_all(fd, plan->payload, plan->payload_len);
        return ok ? BL_OK : BL_E_IO;
    }
    const size_t size = plan->header_len + plan->payload_len;
    const size_t cap = size < BL_EXPORT_PIECE ? size : BL_EXPORT_PIECE;
    uint8_t *piece = malloc(cap);
    if (piece == NULL)
        return BL_E_NOMEM;
    bl_status st = BL_OK;
    for (size_t off = 0; st == BL_OK && off < size; off += cap) {
        const size_t n = size - off < cap ? size - off : cap;
        bl_export_piece(plan, piece, off, n);
        if (!bl_write_all(fd, piece, n))
            st = BL_E_IO;
    }
    const int e = errno;
    free(piece);
    errno = e;
    return st;
}

/* bl_replace_file's writer: the temporary is new, so its position is its start. */
static bl_status write_export_file(int fd, const void *ctx)
{
    return write_export(fd, ctx);
}

bl_status bl_export_save(const bl_filter *filter, bl_foreign_format format, const char *path)
{
    if (filter == NULL)
        return BL_E_INVALID;
    bl_export_plan plan; /* a filter the format cannot hold is refused before any file is made */
    bl_status st = bl_export_plan_of(filter, format, &plan);
    if (st != BL_OK)
        return st;
    return bl_replace_file(path, write_export_file, &plan);
}

bl_status bl_export_fd(const bl_filter *filter, bl_foreign_format format, int fd)
{
    if (filter == NULL || fd < 0)
        return BL_E_INVALID;
    bl_export_plan plan;
    bl_status st = bl_export_plan_of(filter, format, &plan);
    if (st != BL_OK)
        return st;
    return write_export(fd, &plan);
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
