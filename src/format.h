/* SPDX-License-Identifier: MIT */
/* The native file format (docs/FORMAT.md): header and stage-table codec shared by the loaders. */
#ifndef BL_FORMAT_H
#define BL_FORMAT_H

#include "internal.h"

#define BL_FORMAT_MAGIC "\x89" "BLOOM\r\n" /* 8 bytes; the CR LF catches text-mode transfers */
#define BL_FORMAT_MAGIC_LEN 8u
#define BL_FORMAT_VERSION 2u
#define BL_FORMAT_HEADER_BYTES 128u  /* fixed header */
#define BL_FORMAT_STAGE_BYTES 96u    /* one stage record of the stage table */
#define BL_FORMAT_ALIGN 4096u        /* every payload starts on a page boundary of the file */
#define BL_FORMAT_FLAG_KEYS_KNOWN 1u

/* Byte offsets of the fixed header's fields. */
enum {
    BL_FH_MAGIC = 0,
    BL_FH_VERSION = 8,
    BL_FH_LAYOUT = 12,
    BL_FH_HASH = 16,
    BL_FH_K = 20,
    BL_FH_SEED = 24,
    BL_FH_KEYS = 32,
    BL_FH_DESIGN_KEYS = 40,
    BL_FH_DESIGN_FPP = 48,
    BL_FH_GROWTH = 56,
    BL_FH_TIGHTENING = 64,
    BL_FH_FLAGS = 72,
    BL_FH_NSTAGES = 76,
    BL_FH_NBITS = 80,
    BL_FH_FILE_SIZE = 88,
    BL_FH_TABLE_CHECKSUM = 96,
    BL_FH_RESERVED = 104, /* 16 bytes, zero */
    BL_FH_HEADER_CHECKSUM = 120
};

/* Byte offsets inside one stage record. */
enum {
    BL_FS_NBLOCKS = 0,
    BL_FS_NBITS = 8,
    BL_FS_K = 16,
    BL_FS_RESERVED0 = 20, /* 4 bytes, zero */
    BL_FS_SEED = 24,
    BL_FS_KEYS = 32,
    BL_FS_DESIGN_KEYS = 40,
    BL_FS_DESIGN_FPP = 48,
    BL_FS_OFFSET = 56,
    BL_FS_SIZE = 64,
    BL_FS_CHECKSUM = 72,
    BL_FS_RESERVED1 = 80 /* 16 bytes, zero */
};

/* The decoded fixed header. */
typedef struct bl_format_header {
    bl_layout layout;
    bl_hash_scheme hash;
    unsigned k;
    uint64_t seed;
    uint64_t keys_added;
    uint64_t design_keys;
    double design_fpp;
    double growth;
    double tightening;
    bool keys_known;
    uint32_t nstages;
    uint64_t nbits;
    uint64_t file_size;
    uint64_t table_checksum;
} bl_format_header;

/* One decoded stage record: a payload and the identity of the (sub)filter it holds. */
typedef struct bl_format_stage {
    uint64_t nblocks;
    uint64_t nbits;
    unsigned k;
    uint64_t seed;
    uint64_t keys_added;
    uint64_t design_keys;
    double design_fpp;
    uint64_t offset;
    uint64_t size;
    uint64_t checksum;
} bl_format_stage;

/* XXH3-64 (seed 0): the checksum of headers, tables and payloads. */
uint64_t bl_format_checksum(const void *data, size_t len);

/* Bytes of header plus stage table, and where the payloads start. */
uint64_t bl_format_table_end(uint32_t nstages);
uint64_t bl_format_align(uint64_t off);

/* Describe a filter for writing: fills the header (file size, nstages, total bits; not the
 * checksums). */
bl_status bl_format_describe(const bl_filter *f, bl_format_header *h);
/* Stage i of a filter: its stages for the scalable layout, else the filter itself. */
const bl_filter *bl_format_stage_filter(const bl_filter *f, uint32_t i);
/* Bytes before the first payload: header, stage table and padding to the page boundary. */
uint64_t bl_format_prefix_bytes(uint32_t nstages);
/* Encode header and stage table (with every payload checksum) into out, which must hold
 * bl_format_prefix_bytes(nstages); padding is zeroed. Fills h. */
bl_status bl_format_encode(const bl_filter *f, uint8_t *out, size_t out_len, bl_format_header *h);

/* Decode and validate the fixed header from the first `avail` bytes of an object of `total`
 * bytes. Checks, in order: magic, version, presence of the header, its checksum, then every
 * field against the others. Does not read the stage table. */
bl_status bl_format_decode_header(const uint8_t *buf, size_t avail, uint64_t total,
                                  bl_format_header *h);
/* Validate the table region [header end, bl_format_prefix_bytes(nstages)) -- the stage table and
 * its zero padding, already known to be present -- against the header and the total size. */
bl_status bl_format_decode_table(const bl_format_header *h, const uint8_t *table, uint64_t total);
/* Decode stage record i of an already validated table. */
void bl_format_stage_at(const uint8_t *table, uint32_t i, bl_format_stage *s);

/* Build the (empty) filter objects a validated header and table describe. With map_base NULL the
 * payloads are allocated (zeroed); otherwise each payload points into the mapping at its offset
 * and the top-level object owns the mapping. */
bl_status bl_format_build(const bl_format_header *h, const uint8_t *table, uint8_t *map_base,
                          size_t map_len, bl_filter **out);
/* The payload of stage i of a built filter (the filter itself unless scalable). */
bl_filter *bl_format_built_stage(bl_filter *f, uint32_t i);
/* Free a filter built by bl_format_build that was not handed out (frees stages itself). */
void bl_format_discard(bl_filter *f);

#endif
