/* SPDX-License-Identifier: MIT */
/* Save (atomic, sparse), load, map and (de)serialize filters in the native format. */
#include "format.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Payloads are written and read in pieces this large: zero pieces become holes in the file, so
 * a mostly empty multi-GB filter costs little disk and little time. */
#define BL_IO_CHUNK ((size_t)1 << 16)
/* Mapped payloads at least this large ask for transparent huge pages. */
#define BL_THP_MIN ((size_t)2 << 20)

static bool is_zero(const uint8_t *p, size_t n);

/* Check the payload checksums (and the zero padding between payloads, which no checksum covers)
 * of a validated object held entirely in memory at base. */
static bl_status verify_payloads(const bl_format_header *h, const uint8_t *base)
{
    const uint8_t *table = base + BL_FORMAT_HEADER_BYTES;
    uint64_t end = bl_format_prefix_bytes(h->nstages);
    for (uint32_t i = 0; i < h->nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(table, i, &s);
        if (!is_zero(base + end, (size_t)(s.offset - end)) ||
            bl_format_checksum(base + s.offset, (size_t)s.size) != s.checksum)
            return BL_E_PAYLOAD_CHECKSUM;
        end = s.offset + s.size;
    }
    return BL_OK;
}

/* Decode and fully validate header and table of an object of `len` bytes at buf. */
static bl_status decode_all(const uint8_t *buf, size_t len, bl_format_header *h)
{
    bl_status st = bl_format_decode_header(buf, len, len, h);
    if (st == BL_OK)
        st = bl_format_decode_table(h, buf + BL_FORMAT_HEADER_BYTES, len);
    return st;
}

/* The same for a new file mapping of len >= BL_FORMAT_HEADER_BYTES bytes at base, from private
 * copies of the header and table (*table, to free on success). The mapping is shared with the
 * file, which another process may write at any moment: fields read from it twice could pass the
 * checks at the first read and be used unchecked at the second (a payload offset past the end of
 * the mapping). */
static bl_status decode_mapped(const uint8_t *base, size_t len, bl_format_header *h,
                               uint8_t **table)
{
    *table = NULL;
    uint8_t hdr[BL_FORMAT_HEADER_BYTES];
    memcpy(hdr, base, sizeof hdr);
    bl_status st = bl_format_decode_header(hdr, sizeof hdr, len, h);
    if (st != BL_OK)
        return st;
    /* Bounded by len, which the header decoder checked the table against. */
    const size_t table_len = (size_t)(bl_format_prefix_bytes(h->nstages) - BL_FORMAT_HEADER_BYTES);
    uint8_t *copy = malloc(table_len ? table_len : 1);
    if (copy == NULL)
        return BL_E_NOMEM;
    memcpy(copy, base + BL_FORMAT_HEADER_BYTES, table_len);
    st = bl_format_decode_table(h, copy, len);
    if (st != BL_OK) {
        free(copy);
        return st;
    }
    *table = copy;
    return BL_OK;
}

/* ---- Memory buffers ------------------------------------------------------------------------- */

bl_status bl_serialized_size(const bl_filter *filter, size_t *size)
{
    if (size == NULL)
        return BL_E_INVALID;
    *size = 0;
    bl_format_header h;
    bl_status st = bl_format_describe(filter, &h);
    if (st == BL_OK)
        *size = (size_t)h.file_size;
    return st;
}

bl_status bl_serialize(const bl_filter *filter, void *buf, size_t cap, size_t *written)
{
    if (written != NULL)
        *written = 0;
    bl_format_header h;
    bl_status st = bl_format_describe(filter, &h);
    if (st != BL_OK)
        return st;
    if (buf == NULL || cap < h.file_size) {
        if (written != NULL)
            *written = (size_t)h.file_size; /* tells the caller how much is needed */
        return buf == NULL && cap != 0 ? BL_E_INVALID : BL_E_BUFFER_TOO_SMALL;
    }
    uint8_t *out = buf;
    st = bl_format_encode(filter, out, cap, &h);
    if (st != BL_OK)
        return st;
    uint64_t end = bl_format_prefix_bytes(h.nstages);
    for (uint32_t i = 0; i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(out + BL_FORMAT_HEADER_BYTES, i, &s);
        memset(out + end, 0, (size_t)(s.offset - end));
        memcpy(out + s.offset, bl_format_stage_filter(filter, i)->data, (size_t)s.size);
        end = s.offset + s.size;
    }
    if (written != NULL)
        *written = (size_t)h.file_size;
    return BL_OK;
}

bl_status bl_deserialize(bl_filter **out, const void *buf, size_t len)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    if (buf == NULL && len != 0)
        return BL_E_INVALID;
    static const uint8_t empty[1];
    const uint8_t *in = buf != NULL ? buf : empty;
    bl_format_header h;
    bl_status st = decode_all(in, len, &h);
    /* Checksums before allocation: nothing is allocated for a corrupt buffer. */
    if (st == BL_OK)
        st = verify_payloads(&h, in);
    if (st != BL_OK)
        return st;
    bl_filter *f;
    st = bl_format_build(&h, in + BL_FORMAT_HEADER_BYTES, NULL, 0, &f);
    if (st != BL_OK)
        return st;
    for (uint32_t i = 0; i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(in + BL_FORMAT_HEADER_BYTES, i, &s);
        memcpy(bl_format_built_stage(f, i)->data, in + s.offset, (size_t)s.size);
    }
    *out = f;
    return BL_OK;
}

/* ---- File I/O helpers ----------------------------------------------------------------------- */

/* Reads exactly n bytes; a short file gives BL_E_TRUNCATED. */
static bl_status pread_all(int fd, uint8_t *p, size_t n, uint64_t off)
{
    while (n > 0) {
        ssize_t r = pread(fd, p, n < ((size_t)1 << 30) ? n : ((size_t)1 << 30), (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return BL_E_IO;
        if (r == 0)
            return BL_E_TRUNCATED;
        p += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return BL_OK;
}

static bool is_zero(const uint8_t *p, size_t n)
{
    /* Word compares where aligned (payloads are 64-byte aligned), bytes elsewhere. */
    uint64_t acc = 0;
    size_t i = 0;
    for (; i < n && ((uintptr_t)(p + i) & 7) != 0; i++)
        acc |= p[i];
    const uint64_t *w = (const uint64_t *)(const void *)(p + i);
    for (size_t j = 0; j < (n - i) / 8; j++) {
        acc |= w[j];
        if ((j & 511) == 511 && acc != 0)
            return false;
    }
    for (i += (n - i) & ~(size_t)7; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* Write a payload, leaving holes where whole chunks are zero (the file is extended to its full
 * size with ftruncate at the end, so holes read back as zeros). */
static bool write_sparse(int fd, const uint8_t *p, size_t n, uint64_t off)
{
    size_t run = 0, run_len = 0; /* pending run of non-zero chunks */
    for (size_t i = 0; i < n; i += BL_IO_CHUNK) {
        const size_t c = n - i < BL_IO_CHUNK ? n - i : BL_IO_CHUNK;
        if (!is_zero(p + i, c)) {
            if (run_len == 0)
                run = i;
            run_len += c;
            continue;
        }
        if (run_len != 0 && !bl_pwrite_all(fd, p + run, run_len, off + run))
            return false;
        run_len = 0;
    }
    return run_len == 0 || bl_pwrite_all(fd, p + run, run_len, off + run);
}

/* Read n bytes at off into dst, which is already zeroed: holes of a sparse file are skipped. */
static bl_status read_sparse(int fd, uint8_t *dst, size_t n, uint64_t off)
{
    const uint64_t end = off + n;
    uint64_t pos = off;
    while (pos < end) {
        off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
        off_t hole = (off_t)end;
        if (data < 0) {
            if (errno == ENXIO)
                break; /* only a hole up to the end of the file */
            data = (off_t)pos; /* SEEK_DATA unsupported: read everything */
        } else if ((uint64_t)data >= end) {
            break;
        } else {
            hole = lseek(fd, data, SEEK_HOLE);
            if (hole < 0 || (uint64_t)hole > end)
                hole = (off_t)end;
        }
        bl_status st = pread_all(fd, dst + ((uint64_t)data - off), (size_t)(hole - data),
                                 (uint64_t)data);
        if (st != BL_OK)
            return st;
        pos = (uint64_t)hole;
    }
    return BL_OK;
}

/* Close fd after a failed call and report it with that call's errno. */
static bl_status close_failed(int fd, int err)
{
    close(fd);
    errno = err;
    return BL_E_IO;
}

/* Open a regular file for reading and return its size. O_NONBLOCK: opening a FIFO with no
 * writer (or a terminal line waiting for carrier) would block, forever, before fstat could
 * refuse it; a regular file ignores it, and it is cleared once the file is known to be one. */
static bl_status open_regular(const char *path, int *fd, uint64_t *size)
{
    if (path == NULL)
        return BL_E_INVALID;
    *fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (*fd < 0)
        return BL_E_IO;
    struct stat st;
    if (fstat(*fd, &st) != 0)
        return close_failed(*fd, errno);
    if (!S_ISREG(st.st_mode))
        return close_failed(*fd, S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
    const int fl = fcntl(*fd, F_GETFL);
    if (fl < 0 || fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
        return close_failed(*fd, errno);
    *size = (uint64_t)st.st_size;
    if (*size > SIZE_MAX) {
        close(*fd);
        return BL_E_TOO_LARGE;
    }
    return BL_OK;
}

/* ---- Save ------------------------------------------------------------------------------------- */

/* bl_save's filter, with the stage count its description found. */
typedef struct native_save {
    const bl_filter *filter;
    uint32_t nstages;
} native_save;

/* bl_replace_file's writer for bl_save: the header block, then each stage's payload. */
static bl_status write_native(int fd, const void *ctx)
{
    const native_save *ns = ctx;
    const bl_filter *f = ns->filter;
    const size_t prefix = (size_t)bl_format_prefix_bytes(ns->nstages);
    uint8_t *block = malloc(prefix);
    if (block == NULL)
        return BL_E_NOMEM;
    bl_format_header h;
    bl_status st = bl_format_encode(f, block, prefix, &h);
    if (st == BL_OK && !bl_pwrite_all(fd, block, prefix, 0))
        st = BL_E_IO;
    for (uint32_t i = 0; st == BL_OK && i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(block + BL_FORMAT_HEADER_BYTES, i, &s);
        if (!write_sparse(fd, bl_format_stage_filter(f, i)->data, (size_t)s.size, s.offset))
            st = BL_E_IO;
    }
    free(block);
    if (st == BL_OK && ftruncate(fd, (off_t)h.file_size) != 0) /* the zero tail: a hole */
        st = BL_E_IO;
    return st;
}

bl_status bl_save(const bl_filter *filter, const char *path)
{
    if (filter == NULL)
        return BL_E_INVALID;
    bl_format_header h; /* a filter the format cannot hold is refused before any file is made */
    bl_status st = bl_format_describe(filter, &h);
    if (st != BL_OK)
        return st;
    return bl_replace_file(path, write_native, &(native_save){filter, h.nstages});
}

/* n zero bytes at fd's position, from one static page: the gaps between stages. */
static bool write_zeros(int fd, uint64_t n)
{
    static const uint8_t zeros[4096];
    for (; n > 0; n -= n < sizeof zeros ? n : sizeof zeros)
        if (!bl_write_all(fd, zeros, n < sizeof zeros ? (size_t)n : sizeof zeros))
            return false;
    return true;
}

/* bl_serialize's bytes in order, straight from the filter: writing a stream through a buffer
 * took twice the filter's memory (a 2 GiB filter to standard output peaked at 4.2 GB). */
bl_status bl_save_fd(const bl_filter *filter, int fd)
{
    if (filter == NULL || fd < 0)
        return BL_E_INVALID;
    bl_format_header h;
    bl_status st = bl_format_describe(filter, &h);
    if (st != BL_OK)
        return st;
    const size_t prefix = (size_t)bl_format_prefix_bytes(h.nstages);
    uint8_t *block = malloc(prefix);
    if (block == NULL)
        return BL_E_NOMEM;
    st = bl_format_encode(filter, block, prefix, &h);
    if (st == BL_OK && !bl_write_all(fd, block, prefix))
        st = BL_E_IO;
    uint64_t end = prefix;
    for (uint32_t i = 0; st == BL_OK && i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(block + BL_FORMAT_HEADER_BYTES, i, &s);
        if (!write_zeros(fd, s.offset - end) ||
            !bl_write_all(fd, bl_format_stage_filter(filter, i)->data, (size_t)s.size))
            st = BL_E_IO;
        end = s.offset + s.size;
    }
    if (st == BL_OK && !write_zeros(fd, h.file_size - end))
        st = BL_E_IO;
    free(block);
    return st;
}

/* ---- Load ------------------------------------------------------------------------------------- */

static bl_status load_fd(int fd, uint64_t total, bl_filter **out)
{
    uint8_t hdr[BL_FORMAT_HEADER_BYTES];
    const size_t avail = total < sizeof hdr ? (size_t)total : sizeof hdr;
    bl_status st = pread_all(fd, hdr, avail, 0);
    bl_format_header h;
    if (st == BL_OK)
        st = bl_format_decode_header(hdr, avail, total, &h);
    if (st != BL_OK)
        return st;
    /* Bounded by the real file size, which the header decoder checked the table against. */
    const size_t table_len = (size_t)(bl_format_prefix_bytes(h.nstages) - BL_FORMAT_HEADER_BYTES);
    uint8_t *table = malloc(table_len ? table_len : 1);
    if (table == NULL)
        return BL_E_NOMEM;
    st = pread_all(fd, table, table_len, BL_FORMAT_HEADER_BYTES);
    if (st == BL_OK)
        st = bl_format_decode_table(&h, table, total);
    bl_filter *f = NULL;
    if (st == BL_OK)
        st = bl_format_build(&h, table, NULL, 0, &f);
    uint64_t end = bl_format_prefix_bytes(h.nstages);
    for (uint32_t i = 0; st == BL_OK && i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(table, i, &s);
        bl_filter *sf = bl_format_built_stage(f, i);
        /* Padding between payloads is under one page and must be zero. */
        uint8_t pad[BL_FORMAT_ALIGN];
        const size_t gap = (size_t)(s.offset - end);
        st = pread_all(fd, pad, gap, end);
        if (st == BL_OK && !is_zero(pad, gap))
            st = BL_E_PAYLOAD_CHECKSUM;
        if (st == BL_OK)
            st = read_sparse(fd, sf->data, (size_t)s.size, s.offset);
        if (st == BL_OK && bl_format_checksum(sf->data, (size_t)s.size) != s.checksum)
            st = BL_E_PAYLOAD_CHECKSUM;
        end = s.offset + s.size;
    }
    free(table);
    if (st != BL_OK) {
        bl_format_discard(f);
        return st;
    }
    *out = f;
    return BL_OK;
}

bl_status bl_load(bl_filter **out, const char *path)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    int fd;
    uint64_t total;
    bl_status st = open_regular(path, &fd, &total);
    if (st != BL_OK)
        return st;
    st = load_fd(fd, total, out);
    int e = errno;
    close(fd);
    errno = e;
    return st;
}

/* ---- Map -------------------------------------------------------------------------------------- */

bl_status bl_map(bl_filter **out, const char *path)
{
    if (out == NULL)
        return BL_E_INVALID;
    *out = NULL;
    int fd;
    uint64_t total;
    bl_status st = open_regular(path, &fd, &total);
    if (st != BL_OK)
        return st;
    if (total < BL_FORMAT_HEADER_BYTES) {
        /* Too short to map usefully (and mmap refuses 0 bytes): report what the bytes are. */
        st = load_fd(fd, total, out);
        close(fd);
        if (st == BL_OK) { /* unreachable: every valid object has a full header */
            bl_format_discard(*out);
            *out = NULL;
            st = BL_E_TRUNCATED;
        }
        return st;
    }
    void *map = mmap(NULL, (size_t)total, PROT_READ, MAP_SHARED, fd, 0);
    int e = errno;
    close(fd); /* the mapping keeps the file alive */
    if (map == MAP_FAILED) {
        errno = e;
        return e == ENOMEM ? BL_E_NOMEM : BL_E_IO; /* no address space or map count left */
    }
    bl_format_header h;
    uint8_t *table;
    st = decode_mapped(map, (size_t)total, &h, &table);
    if (st == BL_OK) {
        st = bl_format_build(&h, table, map, (size_t)total, out);
        free(table);
    }
    if (st != BL_OK) {
        munmap(map, (size_t)total);
        return st;
    }
    /* Queries touch random lines: read-ahead would only waste page cache. */
    (void)madvise(map, (size_t)total, MADV_RANDOM);
#ifdef MADV_HUGEPAGE
    if (total >= BL_THP_MIN)
        (void)madvise(map, (size_t)total, MADV_HUGEPAGE); /* honoured on tmpfs and THP-for-fs */
#endif
    return BL_OK;
}

bl_status bl_verify(const bl_filter *filter)
{
    if (filter == NULL)
        return BL_E_INVALID;
    /* An in-memory filter was verified when it was loaded; only a mapping can change under us. */
    if (filter->storage != BL_STORAGE_FILE_MAP || filter->map_base == NULL)
        return BL_OK;
    const uint8_t *base = filter->map_base;
    const size_t len = filter->map_len;
    /* The file may be written while we read it (the mapping is shared): every field is read once
     * into a local copy, and offsets and sizes are used only once they equal the object's own,
     * which were validated when it was mapped. */
    uint8_t hdr[BL_FORMAT_HEADER_BYTES];
    memcpy(hdr, base, sizeof hdr);
    bl_format_header h;
    /* The header is judged on its own first (no file length to hold it to): a sound header of
     * another size is a rewrite, not the truncated or overlong file that the length checks
     * against the mapping would call it. */
    bl_status st = bl_format_decode_header(hdr, sizeof hdr, UINT64_MAX, &h);
    if (st != BL_OK)
        return st;
    /* Rewritten in place with another filter, the file's checksums hold for its new bytes, but
     * the object still probes with the old geometry, k and seed (its stages at the old offsets),
     * which would give false negatives. Counts may differ: they do not change answers. */
    const size_t nstages = filter->layout == BL_LAYOUT_SCALABLE ? filter->nstages : 1;
    if (h.layout != filter->layout || h.seed != filter->seed || h.nstages != nstages ||
        h.file_size != len)
        return BL_E_MISMATCH;
    st = bl_format_decode_table(&h, base + BL_FORMAT_HEADER_BYTES, len);
    if (st != BL_OK)
        return st;
    (void)madvise(filter->map_base, len, MADV_SEQUENTIAL);
    uint64_t end = bl_format_prefix_bytes(h.nstages);
    for (uint32_t i = 0; st == BL_OK && i < h.nstages; i++) {
        bl_format_stage s;
        bl_format_stage_at(base + BL_FORMAT_HEADER_BYTES, i, &s);
        const bl_filter *sf = bl_format_stage_filter(filter, i);
        if ((uintptr_t)sf->data - (uintptr_t)base != s.offset || sf->nbytes != s.size ||
            sf->nblocks != s.nblocks || sf->k != s.k || sf->seed != s.seed || s.offset < end)
            st = BL_E_MISMATCH;
        else if (!is_zero(base + end, (size_t)(s.offset - end)) ||
                 bl_format_checksum(base + s.offset, (size_t)s.size) != s.checksum)
            st = BL_E_PAYLOAD_CHECKSUM;
        end = s.offset + s.size;
    }
    (void)madvise(filter->map_base, len, MADV_RANDOM);
    return st;
}
