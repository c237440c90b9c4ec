/* SPDX-License-Identifier: MIT */
/* bloomline import: a Parquet or Guava filter into a native filter file. */
#include "cli.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct option import_longopts[] = {{"format", required_argument, NULL, 'F'},
                                                {"output", required_argument, NULL, 'o'},
                                                {"help", no_argument, NULL, 'h'},
                                                {NULL, 0, NULL, 0}};

/* The longest input a format can hold: a longer one (say /dev/zero) is refused as it passes
 * this, where it was read until memory ran out. */
static uint64_t max_input(bl_foreign_format fmt)
{
    const uint64_t bitset = UINT64_C(128) << 20; /* Parquet's largest */
    switch (fmt) {
    case BL_FORMAT_PARQUET_RAW: return bitset;
    case BL_FORMAT_PARQUET: return bitset + 4096; /* its thrift header takes tens of bytes */
    case BL_FORMAT_GUAVA: return 6 + UINT64_C(8) * INT32_MAX; /* strategy, k, count, words */
    }
    return 0;
}

/* A Parquet or Guava input whose first bytes are refused for anything but being short is bad
 * whatever follows (0): its header is wrong. A Guava header also says how long the stream is
 * (words of 8 bytes after 6 header bytes), so a longer one is refused as it passes that. A raw
 * bitset has no header: any prefix may be short. */
static uint64_t input_limit(const unsigned char *prefix, size_t n, const void *ctx)
{
    const bl_foreign_format fmt = *(const bl_foreign_format *)ctx;
    if (fmt == BL_FORMAT_PARQUET_RAW)
        return max_input(fmt);
    bl_filter *f = NULL;
    const bl_status st = bl_import(&f, fmt, prefix, n);
    bl_free(f);
    if (st != BL_OK && st != BL_E_TRUNCATED && st != BL_E_NOMEM)
        return 0;
    if (fmt == BL_FORMAT_GUAVA && n >= 6) {
        const uint32_t words = (uint32_t)prefix[2] << 24 | (uint32_t)prefix[3] << 16 |
                               (uint32_t)prefix[4] << 8 | prefix[5];
        return 6 + UINT64_C(8) * words;
    }
    return max_input(fmt);
}

/* A named regular file is imported from a read-only mapping, not from a copy read into memory:
 * the copy took as much memory as the filter made from it (a 5.4 GB Guava import peaked at
 * 10.5 GB resident), so a Guava filter of over half the memory could not be imported although
 * it fits, while a mapping's pages are page cache, which the kernel can take back. 1: mapped
 * (*map, *len); 0: not mapped (standard input, not a regular file, empty, or mmap refused):
 * read it instead; -1: longer than any filter of the format (reported). */
static int map_input(const char *path, uint64_t max, const char *what, void **map, size_t *len)
{
    *map = NULL;
    if (strcmp(path, "-") == 0)
        return 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0; /* cli_read_file reports it */
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        if ((uint64_t)st.st_size > max) {
            cli_error("%s: larger than any %s filter (at most %llu bytes)", path, what,
                      (unsigned long long)max);
            rc = -1;
        } else if ((uint64_t)st.st_size <= SIZE_MAX) { /* else (32-bit) read it: it fails */
            void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m != MAP_FAILED) {
                (void)madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
                *map = m;
                *len = (size_t)st.st_size;
                rc = 1;
            }
        }
    }
    close(fd);
    return rc;
}

int cli_cmd_import(int argc, char **argv)
{
    const char *out = NULL, *format = NULL;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "o:F:h", import_longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'F': format = optarg; break;
        case 'h': return cli_print_help("import");
        default: return cli_bad_option(optopt, argv[optind - 1], import_longopts);
        }
    }
    bl_foreign_format fmt;
    if (cli_parse_format(format, &fmt) != 0)
        return CLI_EXIT_ERROR;
    if (cli_check_output(out, "FILTER") != 0)
        return CLI_EXIT_ERROR;
    if (optind + 1 != argc)
        return cli_usage_error(optind >= argc ? "missing IN" : "one IN at a time");
    const char *in = argv[optind];
    if (cli_output_is_an_input(out, argv + optind, 1, false, "the filter") != 0)
        return CLI_EXIT_ERROR;
    unsigned char *buf = NULL;
    void *map;
    size_t len;
    const int mapped = map_input(in, max_input(fmt), format, &map, &len);
    if (mapped < 0 ||
        (mapped == 0 &&
         cli_read_file(in, max_input(fmt), format, input_limit, &fmt, &buf, &len) < 0))
        return CLI_EXIT_ERROR;
    const unsigned char *bytes = mapped ? map : buf;
    if (mapped)
        cli_sigbus_names(map, len, cli_input_name(in));
    bl_filter *f = NULL;
    bl_status st = bl_import(&f, fmt, bytes, len);
    /* Guava's strategy 0 is refused as unsupported, whose bl_strerror text is about kernels (what
     * it means here when BLOOMLINE_KERNEL names a bad one): that stream gets its own message. */
    const bool mitz32 = fmt == BL_FORMAT_GUAVA && len > 0 && bytes[0] == 0;
    if (mapped) {
        cli_sigbus_names(NULL, 0, "");
        munmap(map, len);
    } else {
        free(buf);
    }
    if (st == BL_E_UNSUPPORTED && mitz32) {
        cli_error("%s: cannot import: a Guava filter of strategy 0 (MURMUR128_MITZ_32, Guava "
                  "before release 17), which bloomline does not implement",
                  cli_input_name(in));
        return CLI_EXIT_ERROR;
    }
    if (st == BL_E_BAD_GEOMETRY && fmt == BL_FORMAT_PARQUET_RAW) {
        /* The only geometry a raw bitset has is its length: bl_strerror's "sizes overflow or
         * disagree with the data" would describe neither. */
        cli_error("%s: not a valid %s filter: a %zu-byte bitset (Parquet bitsets are a power of "
                  "two from 32 bytes to 128 MiB)",
                  cli_input_name(in), format, len);
        return CLI_EXIT_ERROR;
    }
    if (st == BL_E_NOMEM) { /* the input is fine: the filter it describes does not fit */
        cli_error("%s: cannot import: %s", cli_input_name(in), bl_strerror(st));
        return CLI_EXIT_ERROR;
    }
    if (st != BL_OK) {
        cli_error("%s: not a valid %s filter: %s", cli_input_name(in), format, bl_strerror(st));
        return CLI_EXIT_ERROR;
    }
    int rc = cli_save_filter(f, out);
    bl_free(f);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
