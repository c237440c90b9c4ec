/* SPDX-License-Identifier: MIT */
/* Status codes to messages. */
#include "bloomline.h"

const char *bl_strerror(bl_status status)
{
    switch (status) {
    case BL_OK: return "success";
    case BL_E_INVALID: return "invalid argument";
    case BL_E_NOMEM: return "out of memory";
    case BL_E_TOO_LARGE: return "size too large (overflow or beyond the layout's limit)";
    case BL_E_UNSUPPORTED:
        return "unsupported: unknown kernel or one this CPU lacks, an operation this layout does "
               "not have, or a filter (or variant) the foreign format cannot carry";
    case BL_E_MISMATCH:
        return "filters differ in layout, geometry, k, hash scheme or seed (scalable: in design)";
    case BL_E_READ_ONLY: return "filter is mapped read-only";
    case BL_E_IO: return "I/O error (see errno)";
    case BL_E_TRUNCATED: return "truncated: data shorter than its header says";
    case BL_E_BAD_MAGIC: return "bad magic: not a bloomline filter";
    case BL_E_BAD_VERSION: return "unsupported format version";
    case BL_E_BAD_LAYOUT: return "unknown layout or hash scheme";
    case BL_E_BAD_GEOMETRY: return "inconsistent geometry (sizes overflow or disagree with the data)";
    case BL_E_BAD_K: return "number of hash functions out of range";
    case BL_E_HEADER_CHECKSUM: return "header checksum mismatch";
    case BL_E_PAYLOAD_CHECKSUM: return "payload checksum mismatch (corrupt data)";
    case BL_E_FORMAT: return "malformed foreign filter format";
    case BL_E_NOT_PRESENT: return "key was never added (counter already zero)";
    case BL_E_BUFFER_TOO_SMALL: return "output buffer too small";
    case BL_E_NOT_DURABLE:
        return "file replaced, but syncing its directory failed (see errno): a crash may undo it";
    }
    return "unknown status";
}
