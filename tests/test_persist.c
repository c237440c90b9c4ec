/* SPDX-License-Identifier: MIT */
/* Files: save/load/map round trips, corrupt and truncated files, failed saves, kill -9, > 2^32 bits. */
#include "test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "format.h"
#include "format_test.h"

static uint64_t g_seed;
static char g_dir[256];

static void path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static int setup(void **state)
{
    (void)state;
    return tu_temp_dir(g_dir, sizeof g_dir, "bl_persist") ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return tu_remove_tree(g_dir);
}

/* Files in the test directory whose name contains `part`. */
static size_t count_files(const char *part)
{
    return tu_count_files(g_dir, part);
}

static void poke(const char *path, uint64_t off, uint8_t mask)
{
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    uint8_t b;
    assert_int_equal(pread(fd, &b, 1, (off_t)off), 1);
    b ^= mask;
    assert_int_equal(pwrite(fd, &b, 1, (off_t)off), 1);
    close(fd);
}

/* ---- Round trips ------------------------------------------------------------------------------- */

static void test_save_load_map_every_layout(void **state)
{
    (void)state;
    static const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                        BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE, BL_LAYOUT_SCALABLE};
    uint64_t rng = g_seed;
    char path[512];
    for (size_t li = 0; li < BL_ARRAY_LEN(layouts); li++) {
        const bool manual = li == BL_ARRAY_LEN(layouts) - 1;
        const uint64_t stream = tu_next(&rng) & 0xffff;
        /* The hand-made chain is tiny (28 lines): keep it far from saturation. */
        const uint64_t n = manual ? 300 + tu_next(&rng) % 1000 : 1000 + tu_next(&rng) % 20000;
        bl_filter *f = ft_make_filled(layouts[li], stream, n, manual);
        printf("# %s%s: %llu keys\n", bl_layout_name(layouts[li]), manual ? " (by hand)" : "",
               (unsigned long long)n);
        path_in(path, sizeof path, "rt.blf");
        assert_int_equal(bl_save(f, path), BL_OK);
        /* The file is exactly the serialized form. */
        size_t flen = 0, slen = 0;
        uint8_t *file = ft_read_file(path, &flen);
        assert_non_null(file);
        assert_int_equal(bl_serialized_size(f, &slen), BL_OK);
        assert_int_equal(flen, slen);
        uint8_t *ser = malloc(slen);
        assert_int_equal(bl_serialize(f, ser, slen, NULL), BL_OK);
        assert_memory_equal(file, ser, flen);

        bl_filter *loaded = NULL, *mapped = NULL, *mapped2 = NULL, *copy = NULL;
        assert_int_equal(bl_load(&loaded, path), BL_OK);
        assert_int_equal(bl_map(&mapped, path), BL_OK);
        assert_int_equal(bl_map(&mapped2, path), BL_OK); /* any number of readers */
        ft_assert_same(f, loaded);
        ft_assert_same(f, mapped);
        ft_assert_same_answers(f, loaded, stream, n);
        ft_assert_same_answers(f, mapped, stream, n);
        ft_assert_same_negatives(mapped, mapped2, stream + 77, 2000);

        /* Mapped: zero copy, page-aligned payloads, read-only, explicit verification. */
        assert_int_equal(mapped->storage, BL_STORAGE_FILE_MAP);
        const bl_filter *s0 = layouts[li] == BL_LAYOUT_SCALABLE ? mapped->stages[0] : mapped;
        assert_int_equal((uintptr_t)s0->data % 4096, 0);
        assert_true(s0->data >= (uint8_t *)mapped->map_base &&
                    s0->data < (uint8_t *)mapped->map_base + mapped->map_len);
        bl_info info;
        assert_int_equal(bl_get_info(mapped, &info), BL_OK);
        assert_true(info.mapped);
        /* the version the file says: a little-endian u32 after the 8-byte magic */
        assert_int_equal(bl_format_version(), (uint32_t)file[8] | (uint32_t)file[9] << 8 |
                                                  (uint32_t)file[10] << 16 |
                                                  (uint32_t)file[11] << 24);
        assert_int_equal(bl_add(mapped, "x", 1), BL_E_READ_ONLY);
        assert_int_equal(bl_add_u64(mapped, 5), BL_E_READ_ONLY);
        assert_int_equal(bl_clear(mapped), BL_E_READ_ONLY);
        /* set operations write into dst: a mapping is refused, whatever the layout */
        assert_int_equal(bl_union(mapped, loaded), BL_E_READ_ONLY);
        assert_int_equal(bl_intersect(mapped, loaded), BL_E_READ_ONLY);
        assert_int_equal(bl_verify(mapped), BL_OK);
        assert_int_equal(bl_verify(loaded), BL_OK);
        assert_int_equal(bl_clone(&copy, mapped), BL_OK);
        assert_int_equal(ft_add_key(copy, stream, n), BL_OK);
        assert_true(ft_has_key(copy, stream, n));
        assert_int_equal(ft_add_key(loaded, stream, n), BL_OK);
        /* The mapping outlives the file name: atomic replacement does not disturb readers. */
        assert_int_equal(bl_save(loaded, path), BL_OK);
        ft_assert_same(f, mapped);
        assert_int_equal(bl_verify(mapped), BL_OK);
        assert_int_equal(count_files(".tmp"), 0);

        free(file);
        free(ser);
        ft_free(f);
        ft_free(loaded);
        ft_free(copy);
        bl_free(mapped); /* the chain's own free: stages must not unmap */
        bl_free(mapped2);
    }
}

static void test_save_replaces_and_keeps_mode(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "mode.blf");
    bl_filter *a = ft_make_filled(BL_LAYOUT_BLOCKED, 1, 100, false);
    bl_filter *b = ft_make_filled(BL_LAYOUT_BLOCKED, 2, 5000, false);
    assert_int_equal(bl_save(a, path), BL_OK);
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(bl_save(b, path), BL_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    bl_filter *g = NULL;
    assert_int_equal(bl_load(&g, path), BL_OK);
    ft_assert_same(b, g);
    assert_int_equal(count_files(".tmp"), 0);
    /* Root replacing another user's file leaves it theirs (it became root's). */
    if (geteuid() == 0) {
        assert_int_equal(chown(path, 12345, 23456), 0);
        assert_int_equal(bl_save(a, path), BL_OK);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_uid, 12345);
        assert_int_equal(st.st_gid, 23456);
        assert_int_equal(st.st_mode & 07777, 0640);
    }
    bl_free(a);
    bl_free(b);
    bl_free(g);
}

/* ---- Corrupt, truncated and missing files ------------------------------------------------------ */

static void test_corrupt_files(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "corrupt.blf");
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 3, 3000, false);
    assert_int_equal(bl_save(f, path), BL_OK);
    bl_filter *g = NULL, *m = NULL;

    /* Payload damage: load refuses; map accepts (header only) and bl_verify finds it, also
     * when the damage happens after mapping (the mapping is shared with the file). */
    assert_int_equal(bl_map(&m, path), BL_OK);
    assert_int_equal(bl_verify(m), BL_OK);
    poke(path, 4096 + 100, 0x10);
    assert_int_equal(bl_load(&g, path), BL_E_PAYLOAD_CHECKSUM);
    assert_null(g);
    assert_int_equal(bl_verify(m), BL_E_PAYLOAD_CHECKSUM);
    bl_free(m);
    assert_int_equal(bl_map(&m, path), BL_OK);
    assert_int_equal(bl_verify(m), BL_E_PAYLOAD_CHECKSUM);
    bl_free(m);
    poke(path, 4096 + 100, 0x10);
    assert_int_equal(bl_load(&g, path), BL_OK);
    bl_free(g);

    /* Header damage, each class through the file paths. */
    static const struct {
        uint64_t off;
        bl_status want;
    } flips[] = {{0, BL_E_BAD_MAGIC},          {7, BL_E_BAD_MAGIC},
                 {8, BL_E_BAD_VERSION},        {BL_FH_LAYOUT, BL_E_HEADER_CHECKSUM},
                 {BL_FH_NSTAGES, BL_E_HEADER_CHECKSUM}, {BL_FH_HEADER_CHECKSUM, BL_E_HEADER_CHECKSUM},
                 {BL_FORMAT_HEADER_BYTES + 3, BL_E_HEADER_CHECKSUM}, {4000, BL_E_HEADER_CHECKSUM}};
    for (size_t i = 0; i < BL_ARRAY_LEN(flips); i++) {
        poke(path, flips[i].off, 0x01);
        assert_int_equal(bl_load(&g, path), flips[i].want);
        assert_int_equal(bl_map(&m, path), flips[i].want);
        assert_null(g);
        assert_null(m);
        poke(path, flips[i].off, 0x01);
    }
    assert_int_equal(bl_load(&g, path), BL_OK);
    bl_free(g);

    /* Truncation at every offset of the header region and through the payload. The cut copies
     * live in a memory file: shrinking files on a disk mounted with discard is slow. */
    size_t len = 0;
    uint8_t *bytes = ft_read_file(path, &len);
    assert_non_null(bytes);
    char cut_path[512];
    int mfd = memfd_create("bl-cut", 0);
    assert_true(mfd >= 0);
    snprintf(cut_path, sizeof cut_path, "/proc/self/fd/%d", mfd);
    for (size_t cut = 0; cut < len; cut += cut < 4096 + 64 ? 1 : 509) {
        assert_int_equal(ftruncate(mfd, 0), 0);
        assert_int_equal(pwrite(mfd, bytes, cut, 0), (ssize_t)cut);
        bl_status a = bl_load(&g, cut_path), b = bl_map(&m, cut_path);
        if (a != BL_E_TRUNCATED || b != BL_E_TRUNCATED)
            fail_msg("cut at %zu: load %s, map %s", cut, bl_strerror(a), bl_strerror(b));
    }
    close(mfd);
    path_in(cut_path, sizeof cut_path, "cut.blf");
    /* Trailing bytes. */
    FILE *fp = fopen(cut_path, "wb");
    assert_int_equal(fwrite(bytes, 1, len, fp), len);
    fputc(0, fp);
    fclose(fp);
    assert_int_equal(bl_load(&g, cut_path), BL_E_BAD_GEOMETRY);
    assert_int_equal(bl_map(&m, cut_path), BL_E_BAD_GEOMETRY);
    free(bytes);

    /* Not files. */
    errno = 0;
    assert_int_equal(bl_load(&g, g_dir), BL_E_IO);
    assert_int_equal(errno, EISDIR);
    assert_int_equal(bl_map(&m, g_dir), BL_E_IO);
    path_in(cut_path, sizeof cut_path, "does-not-exist.blf");
    assert_int_equal(bl_load(&g, cut_path), BL_E_IO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(bl_map(&m, cut_path), BL_E_IO);
    assert_int_equal(bl_load(NULL, path), BL_E_INVALID);
    assert_int_equal(bl_map(&m, NULL), BL_E_INVALID);
    assert_int_equal(bl_verify(NULL), BL_E_INVALID);
    bl_free(f);
}

/* A chain's payloads start on pages, and the bytes between one payload's end and the next page
 * must be zero; no checksum covers them. bl_load reads them with pread, bl_verify on the
 * mapping: both refuse a set bit there at each end of the gap, and take the file back after. */
static void test_corrupt_chain_padding(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "padding.blf");
    bl_filter *f = ft_make_filled(BL_LAYOUT_SCALABLE, 4, 3000, false), *g = NULL, *m = NULL;
    bl_info info;
    assert_int_equal(bl_get_info(f, &info), BL_OK);
    assert_true(info.stages >= 2);
    assert_int_equal(bl_save(f, path), BL_OK);
    size_t len = 0;
    uint8_t *bytes = ft_read_file(path, &len);
    assert_non_null(bytes);
    bl_format_stage s0, s1; /* the records as the loader decodes them */
    bl_format_stage_at(bytes + BL_FORMAT_HEADER_BYTES, 0, &s0);
    bl_format_stage_at(bytes + BL_FORMAT_HEADER_BYTES, 1, &s1);
    const uint64_t end0 = s0.offset + s0.size, start1 = s1.offset;
    assert_true(end0 < start1 && start1 <= len);
    free(bytes);
    const uint64_t offs[] = {end0, start1 - 1};
    for (size_t i = 0; i < BL_ARRAY_LEN(offs); i++) {
        poke(path, offs[i], 0x80);
        assert_int_equal(bl_load(&g, path), BL_E_PAYLOAD_CHECKSUM);
        assert_null(g);
        assert_int_equal(bl_map(&m, path), BL_OK);
        assert_int_equal(bl_verify(m), BL_E_PAYLOAD_CHECKSUM);
        bl_free(m);
        poke(path, offs[i], 0x80);
    }
    assert_int_equal(bl_load(&g, path), BL_OK);
    ft_assert_same(f, g);
    assert_int_equal(bl_map(&m, path), BL_OK);
    assert_int_equal(bl_verify(m), BL_OK);
    bl_free(m);
    bl_free(g);
    bl_free(f);
}

/* Overwrite a file in place with another's bytes (no truncation: a mapping of it stays valid). */
static void overwrite_in_place(const char *path, const char *from)
{
    size_t len = 0;
    uint8_t *bytes = ft_read_file(from, &len);
    assert_non_null(bytes);
    int fd = open(path, O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, bytes, len, 0), (ssize_t)len);
    close(fd);
    free(bytes);
}

/* A mapped file rewritten in place with another filter: every checksum holds, but the mapped
 * object still probes with its old layout, size, k and seed, so bl_verify must not call it
 * sound. */
static void test_verify_file_rewritten_under_mapping(void **state)
{
    (void)state;
    char path[512], other[512];
    path_in(path, sizeof path, "rewritten.blf");
    path_in(other, sizeof other, "rewriter.blf");
    bl_filter *a = NULL, *m = NULL;
    assert_int_equal(bl_create_geometry(&a, BL_LAYOUT_BLOCKED, 64 * 512, 7, 1, 0, NULL), BL_OK);
    for (uint64_t i = 0; i < 200; i++)
        assert_int_equal(ft_add_key(a, 21, i), BL_OK);
    assert_int_equal(bl_save(a, path), BL_OK);
    assert_int_equal(bl_map(&m, path), BL_OK);
    assert_int_equal(bl_verify(m), BL_OK);

    /* Same identity, more keys (a later save of the same filter): still sound, and seen. */
    assert_int_equal(ft_add_key(a, 21, 200), BL_OK);
    assert_int_equal(bl_save(a, other), BL_OK);
    overwrite_in_place(path, other);
    assert_int_equal(bl_verify(m), BL_OK);
    assert_true(ft_has_key(m, 21, 200));

    /* Another seed, another k, another layout of the same size: the mapped object misses the
     * new file's keys, so the mapping no longer matches it (a check of k or layout dropped
     * would say BL_OK over those false negatives). Another size, smaller (the old file's tail
     * left behind it) or larger: a rewrite too, not a truncated file nor one with trailing
     * bytes. */
    const struct {
        bl_layout layout;
        uint64_t lines;
        unsigned k;
        uint64_t seed;
    } rewriters[] = {{BL_LAYOUT_BLOCKED, 64, 7, 2},  {BL_LAYOUT_BLOCKED, 64, 6, 1},
                     {BL_LAYOUT_COUNTING, 64, 7, 1}, {BL_LAYOUT_BLOCKED, 32, 7, 1},
                     {BL_LAYOUT_BLOCKED, 128, 7, 1}};
    for (size_t r = 0; r < BL_ARRAY_LEN(rewriters); r++) {
        bl_filter *b = NULL;
        assert_int_equal(bl_create_geometry(&b, rewriters[r].layout, rewriters[r].lines * 512,
                                            rewriters[r].k, rewriters[r].seed, 0, NULL),
                         BL_OK);
        for (uint64_t i = 0; i < 200; i++)
            assert_int_equal(ft_add_key(b, 22, i), BL_OK);
        assert_int_equal(bl_save(b, other), BL_OK);
        bl_free(b);
        assert_int_equal(bl_save(a, path), BL_OK);
        bl_free(m);
        assert_int_equal(bl_map(&m, path), BL_OK);
        overwrite_in_place(path, other);
        if (rewriters[r].lines == 64) { /* the mapped object reads the new payload whole */
            uint64_t missed = 0;
            for (uint64_t i = 0; i < 200; i++)
                missed += !ft_has_key(m, 22, i);
            assert_true(missed > 0);
        }
        assert_int_equal(bl_verify(m), BL_E_MISMATCH);
    }
    bl_free(m);
    bl_free(a);
}

/* A mapped file damaged in place after bl_map: bl_verify reads the header and the stage table
 * again and reports the damage as a load would, not BL_OK nor a mismatch. */
static void test_verify_file_damaged_under_mapping(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "damaged.blf");
    bl_filter *a = ft_make_filled(BL_LAYOUT_BLOCKED, 7, 200, false);
    const struct {
        uint64_t at;
        bl_status want;
    } cases[] = {
        {BL_FH_MAGIC, BL_E_BAD_MAGIC},
        {BL_FH_VERSION, BL_E_BAD_VERSION},
        {BL_FH_KEYS, BL_E_HEADER_CHECKSUM},
        {BL_FH_HEADER_CHECKSUM, BL_E_HEADER_CHECKSUM},
        /* the stage table, fields bl_verify does not compare with the mapped object itself */
        {BL_FORMAT_HEADER_BYTES + BL_FS_KEYS, BL_E_HEADER_CHECKSUM},
        {BL_FORMAT_HEADER_BYTES + BL_FS_DESIGN_FPP, BL_E_HEADER_CHECKSUM},
        {BL_FORMAT_HEADER_BYTES + BL_FS_RESERVED1, BL_E_HEADER_CHECKSUM},
        /* the zero padding between the table and the payload */
        {BL_FORMAT_HEADER_BYTES + BL_FORMAT_STAGE_BYTES + 100, BL_E_HEADER_CHECKSUM},
    };
    for (size_t i = 0; i < BL_ARRAY_LEN(cases); i++) {
        bl_filter *m = NULL;
        assert_int_equal(bl_save(a, path), BL_OK);
        assert_int_equal(bl_map(&m, path), BL_OK);
        assert_int_equal(bl_verify(m), BL_OK);
        poke(path, cases[i].at, 0x01); /* the mapping sees it: a shared file page */
        bl_status st = bl_verify(m);
        if (st != cases[i].want)
            fail_msg("byte %llu flipped: %s, want %s", (unsigned long long)cases[i].at,
                     bl_strerror(st), bl_strerror(cases[i].want));
        bl_free(m);
    }
    bl_free(a);
}

/* ---- Failed saves ------------------------------------------------------------------------------- */

static void expect_save_fails(const bl_filter *f, const char *path, int want_errno)
{
    errno = 0;
    bl_status st = bl_save(f, path);
    if (st != BL_E_IO || (want_errno && errno != want_errno))
        fail_msg("save to %s: %s, errno %d (%s)", path, bl_strerror(st), errno, strerror(errno));
}

static void test_save_errors(void **state)
{
    (void)state;
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 4, 1000, false);
    char path[512];
    path_in(path, sizeof path, "missing-dir/f.blf");
    expect_save_fails(f, path, ENOENT);
    /* A regular file used as a directory. */
    path_in(path, sizeof path, "plain");
    FILE *fp = fopen(path, "w");
    fclose(fp);
    path_in(path, sizeof path, "plain/f.blf");
    expect_save_fails(f, path, ENOTDIR);
    /* A directory nobody can create files in, even root. */
    expect_save_fails(f, "/proc/self/bloomline-test.blf", 0);
    /* A read-only directory (root ignores the mode bits, so only checked as a user). */
    path_in(path, sizeof path, "ro");
    assert_int_equal(mkdir(path, 0500), 0);
    path_in(path, sizeof path, "ro/f.blf");
    if (geteuid() != 0)
        expect_save_fails(f, path, EACCES);
    else
        printf("# running as root: read-only directory covered by /proc instead\n");
    assert_int_equal(bl_save(f, ""), BL_E_INVALID);
    assert_int_equal(bl_save(NULL, path), BL_E_INVALID);
    assert_int_equal(bl_save(f, NULL), BL_E_INVALID);
    assert_int_equal(count_files(".tmp"), 0);
    bl_free(f);
}

/* A file name near the file system's limit (255 bytes) is saved like any other: the temporary's
 * name, the target's plus ".<pid>.<n>.tmp", was too long, and the save failed (ENAMETOOLONG). */
static void test_save_long_name(void **state)
{
    (void)state;
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 8, 500, false);
    bl_filter *g = NULL;
    char name[256], path[512];
    memset(name, 'n', 250);
    name[250] = '\0';
    path_in(path, sizeof path, name);
    assert_int_equal(bl_save(f, path), BL_OK);
    assert_int_equal(bl_load(&g, path), BL_OK);
    ft_assert_same(f, g);
    assert_int_equal(bl_save(g, path), BL_OK); /* and replaced */
    assert_int_equal(count_files(".tmp"), 0);
    assert_int_equal(remove(path), 0);
    bl_free(f);
    bl_free(g);
}

/* The file at path holds exactly the len bytes at want. */
static void assert_file_holds(const char *path, const void *want, size_t len)
{
    size_t got_len;
    uint8_t *got = ft_read_file(path, &got_len);
    assert_non_null(got);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, want, len);
    free(got);
}

/* Where a save goes. A symlink is replaced, not followed, as FORMAT.md says. A path that is, or
 * links to, anything but a regular file is refused and left as it was: renaming over a FIFO or a
 * device turned it into a plain file (/dev/null, /dev/stdout for root). bl_export_save the same. */
static void test_save_targets(void **state)
{
    (void)state;
    bl_filter *a = ft_make_filled(BL_LAYOUT_BLOCKED, 5, 100, false);
    bl_filter *b = ft_make_filled(BL_LAYOUT_BLOCKED, 6, 3000, false);
    bl_filter *g = NULL;
    char file[512], link[512], fifo[512], path[512];
    struct stat st;
    path_in(file, sizeof file, "target.blf");
    path_in(link, sizeof link, "link.blf");
    assert_int_equal(bl_save(a, file), BL_OK);
    assert_int_equal(symlink("target.blf", link), 0);
    assert_int_equal(bl_save(b, link), BL_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(bl_load(&g, file), BL_OK); /* the link's old target is untouched */
    ft_assert_same(a, g);
    bl_free(g);

    /* Exports: the bytes of bl_export; a refused export leaves the file alone. */
    bl_filter *s = ft_make_filled(BL_LAYOUT_SBBF, 7, 500, false);
    size_t size;
    assert_int_equal(bl_export_size(s, BL_FORMAT_PARQUET, &size), BL_OK);
    uint8_t *bytes = malloc(size);
    assert_non_null(bytes);
    assert_int_equal(bl_export(s, BL_FORMAT_PARQUET, bytes, size, &size), BL_OK);
    path_in(path, sizeof path, "export.bin");
    assert_int_equal(bl_export_save(s, BL_FORMAT_PARQUET, path), BL_OK);
    assert_file_holds(path, bytes, size);
    assert_int_equal(bl_export_save(a, BL_FORMAT_PARQUET, path), BL_E_UNSUPPORTED);
    assert_file_holds(path, bytes, size);

    /* A FIFO, and a link to one, are neither replaced nor opened (which would wait for a
     * reader). */
    path_in(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    path_in(link, sizeof link, "fifo-link");
    assert_int_equal(symlink("fifo", link), 0);
    expect_save_fails(a, fifo, EINVAL);
    expect_save_fails(a, link, EINVAL);
    errno = 0;
    assert_int_equal(bl_export_save(s, BL_FORMAT_PARQUET, link), BL_E_IO);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    /* A directory; a dangling link is replaced like any link. */
    path_in(path, sizeof path, "sub");
    assert_int_equal(mkdir(path, 0700), 0);
    expect_save_fails(a, path, EISDIR);
    path_in(link, sizeof link, "dangling");
    assert_int_equal(symlink("nowhere/none.blf", link), 0);
    assert_int_equal(bl_save(a, link), BL_OK);
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(count_files(".tmp"), 0);
    free(bytes);
    bl_free(s);
    bl_free(a);
    bl_free(b);
}

/* A full disk, through RLIMIT_FSIZE in a child: the save fails, the old file is intact and the
 * temporary file is gone. */
static void test_save_disk_full_keeps_old_file(void **state)
{
    (void)state;
    char path[512];
    path_in(path, sizeof path, "full.blf");
    bl_filter *old = ft_make_filled(BL_LAYOUT_BLOCKED, 5, 1000, false);
    assert_int_equal(bl_save(old, path), BL_OK);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        bl_filter *big = ft_make_filled(BL_LAYOUT_BLOCKED, 6, 200000, false);
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {64 * 1024, 64 * 1024};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
            _exit(10);
        errno = 0;
        bl_status st = bl_save(big, path);
        _exit(st == BL_E_IO && errno == EFBIG ? 0 : 20 + (int)st);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    bl_filter *g = NULL;
    assert_int_equal(bl_load(&g, path), BL_OK);
    ft_assert_same(old, g);
    assert_int_equal(count_files(".tmp"), 0);
    bl_free(old);
    bl_free(g);
}

/* bl_save_fd writes bl_serialize's bytes in order, from the fd's position: into a pipe (it cannot
 * seek; a child writes, this process reads), into a file after bytes already there; refuses bad
 * arguments and reports a write that fails (a pipe with no reader: EPIPE). */
static void test_save_fd_streams(void **state)
{
    (void)state;
    static const bl_layout layouts[] = {BL_LAYOUT_BLOCKED, BL_LAYOUT_SBBF, BL_LAYOUT_CLASSIC,
                                        BL_LAYOUT_COUNTING, BL_LAYOUT_SCALABLE, BL_LAYOUT_SCALABLE};
    uint64_t rng = g_seed ^ 0xfd;
    char path[512];
    path_in(path, sizeof path, "stream.out");
    for (size_t li = 0; li < BL_ARRAY_LEN(layouts); li++) {
        const bool manual = li == BL_ARRAY_LEN(layouts) - 1; /* a chain of several stages */
        const uint64_t n = manual ? 300 + tu_next(&rng) % 1000 : 1000 + tu_next(&rng) % 20000;
        bl_filter *f = ft_make_filled(layouts[li], tu_next(&rng) & 0xffff, n, manual);
        size_t slen = 0;
        assert_int_equal(bl_serialized_size(f, &slen), BL_OK);
        uint8_t *ser = malloc(slen);
        assert_int_equal(bl_serialize(f, ser, slen, NULL), BL_OK);

        int from_child, to_parent;
        pid_t pid = tu_fork_piped(&from_child, &to_parent);
        if (pid == 0)
            _exit(bl_save_fd(f, to_parent) == BL_OK ? 0 : 1);
        size_t got_len = 0;
        uint8_t *got = tu_child_output(pid, from_child, &got_len);
        assert_int_equal(got_len, slen);
        assert_memory_equal(got, ser, slen);
        free(got);

        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "ahead", 5), 5);
        assert_int_equal(bl_save_fd(f, fd), BL_OK);
        assert_int_equal(close(fd), 0);
        got = ft_read_file(path, &got_len);
        assert_int_equal(got_len, 5 + slen);
        assert_memory_equal(got, "ahead", 5);
        assert_memory_equal(got + 5, ser, slen);
        free(got);
        free(ser);
        bl_free(f);
    }
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 3, 1000, false);
    assert_int_equal(bl_save_fd(NULL, STDOUT_FILENO), BL_E_INVALID);
    assert_int_equal(bl_save_fd(f, -1), BL_E_INVALID);
    int p[2];
    assert_int_equal(pipe(p), 0);
    close(p[0]);
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    errno = 0;
    assert_int_equal(bl_save_fd(f, p[1]), BL_E_IO);
    assert_int_equal(errno, EPIPE);
    signal(SIGPIPE, old);
    close(p[1]);
    bl_free(f);
    assert_int_equal(unlink(path), 0);
}

/* A process out of address space gets BL_E_NOMEM from bl_map (mmap's ENOMEM) as from bl_load,
 * not the BL_E_IO of a file that cannot be read. The child caps its address space at what it
 * uses plus 16 MiB and maps a 32 MiB filter. Sanitizers reserve terabytes of shadow memory, so
 * the cap cannot be set under them. */
static void test_map_no_address_space(void **state)
{
    (void)state;
#if defined(TU_SANITIZED)
    skip();
#else
    char path[512];
    path_in(path, sizeof path, "big-map.blf");
    bl_filter *f = NULL;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, UINT64_C(1) << 28, 6, 0, 0, NULL),
                     BL_OK);
    assert_int_equal(bl_save(f, path), BL_OK);
    bl_free(f);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsigned long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (statm == NULL || fscanf(statm, "%lu", &pages) != 1)
            _exit(10);
        fclose(statm);
        const rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (16u << 20);
        struct rlimit rl = {cap, cap};
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(11);
        void *volatile probe = malloc(64u << 20); /* volatile: not folded away */
        if (probe != NULL) /* the cap is not applied (qemu-user keeps RLIMIT_AS for itself) */
            _exit(77);
        bl_filter *m = NULL;
        bl_status st = bl_map(&m, path);
        if (st != BL_E_NOMEM || m != NULL)
            _exit(20 + (int)st);
        st = bl_load(&m, path);
        _exit(st == BL_E_NOMEM && m == NULL ? 0 : 40 + (int)st);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(unlink(path), 0);
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* Only regular files are read. A FIFO nobody writes to is refused at once: opening it for
 * reading used to wait for a writer, so bl_load and bl_map hung (the child here is stopped by
 * its alarm after 5 s if they do). */
static void test_load_non_regular(void **state)
{
    (void)state;
    char fifo[512], dir[512];
    path_in(fifo, sizeof fifo, "load-fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    path_in(dir, sizeof dir, "load-dir");
    assert_int_equal(mkdir(dir, 0700), 0);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(5);
        const char *paths[] = {fifo, dir};
        const int want[] = {EINVAL, EISDIR};
        for (int i = 0; i < 2; i++) {
            bl_filter *f = (bl_filter *)1;
            errno = 0;
            if (bl_load(&f, paths[i]) != BL_E_IO || errno != want[i] || f != NULL)
                _exit(10 + i);
            f = (bl_filter *)1;
            errno = 0;
            if (bl_map(&f, paths[i]) != BL_E_IO || errno != want[i] || f != NULL)
                _exit(20 + i);
        }
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("load of a FIFO: child killed by signal %d (hung)", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- kill -9 during saves of a large filter ------------------------------------------------------ */

#define KILL_BASE_KEYS 1000000u
#define KILL_STEP_KEYS 5000u


static void kill_child(const char *path, int ready_fd)
{
    bl_filter *f = NULL;
    if (bl_create_geometry(&f, BL_LAYOUT_BLOCKED, (UINT64_C(1) << 22) * 512, 7, 99, 0, NULL) !=
        BL_OK) /* 256 MiB */
        _exit(3);
    uint64_t next = 0;
    uint64_t *keys = malloc(KILL_BASE_KEYS * sizeof *keys);
    for (uint64_t i = 0; i < KILL_BASE_KEYS; i++)
        keys[i] = next++;
    bl_add_u64_batch(f, keys, KILL_BASE_KEYS);
    if (bl_save(f, path) != BL_OK)
        _exit(4);
    if (write(ready_fd, "r", 1) != 1)
        _exit(5);
    for (;;) {
        for (uint64_t i = 0; i < KILL_STEP_KEYS; i++)
            keys[i] = next++;
        bl_add_u64_batch(f, keys, KILL_STEP_KEYS);
        if (bl_save(f, path) != BL_OK)
            _exit(6);
    }
}

/* The slow file-system tests do not depend on the probe kernel: the per-kernel reruns of this
 * suite (BLOOMLINE_KERNEL set) leave them to the default run. */
static bool kernel_rerun(void)
{
    if (getenv("BLOOMLINE_KERNEL") == NULL)
        return false;
    printf("# skipped in a per-kernel rerun (no kernel-specific work)\n");
    return true;
}

static void test_kill_during_save(void **state)
{
    (void)state;
    if (kernel_rerun())
        skip();
    char path[512];
    path_in(path, sizeof path, "killed.blf");
    uint64_t rng = g_seed ^ 0x4b11;
    size_t torn_temps = 0;
    uint64_t *keys = malloc(KILL_BASE_KEYS * 4 * sizeof *keys);
    uint8_t *res = malloc(KILL_BASE_KEYS * 4);
    for (int round = 0; round < 4; round++) {
        int from_child, to_parent;
        pid_t pid = tu_fork_piped(&from_child, &to_parent);
        if (pid == 0)
            kill_child(path, to_parent);
        char c;
        assert_int_equal(read(from_child, &c, 1), 1);
        close(from_child);
        /* Somewhere inside one of the next few saves. */
        usleep((useconds_t)(tu_next(&rng) % 1500000));
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));

        bl_filter *g = NULL;
        bl_status st = bl_load(&g, path);
        if (st != BL_OK)
            fail_msg("round %d: load after kill -9: %s", round, bl_strerror(st));
        /* Exactly one of the saved versions: keys_added tells which, and all its keys are in. */
        const uint64_t n = g->keys_added;
        assert_true(n >= KILL_BASE_KEYS && (n - KILL_BASE_KEYS) % KILL_STEP_KEYS == 0);
        assert_true(n <= KILL_BASE_KEYS * 4);
        for (uint64_t i = 0; i < n; i++)
            keys[i] = i;
        assert_int_equal(bl_contains_u64_batch(g, keys, (size_t)n, res), n);
        bl_free(g);
        /* A killed save leaves its temporary behind (never the target): clean it up. */
        DIR *d = opendir(g_dir);
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strstr(e->d_name, "killed.blf.") != NULL) {
                char tmp[1024];
                snprintf(tmp, sizeof tmp, "%s/%s", g_dir, e->d_name);
                unlink(tmp);
                torn_temps++;
            }
        }
        closedir(d);
        printf("# round %d: file holds %llu keys\n", round, (unsigned long long)n);
    }
    printf("# %zu saves interrupted mid-write (temporary files left behind)\n", torn_temps);
    free(keys);
    free(res);
}

/* ---- Files written under a mapping ------------------------------------------------------------ */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Another process rewrites a mapped file's stage offset, valid and absurd in turn, as fast as it
 * can. bl_map and bl_verify read the table out of the shared mapping: what they validated must
 * be what they use, so a map that succeeds has its payload inside the mapping and bl_verify
 * never reads outside it. */
static void test_map_while_file_written(void **state)
{
    (void)state;
    if (kernel_rerun())
        skip();
    char path[512];
    path_in(path, sizeof path, "racing.blf");
    bl_filter *f = ft_make_filled(BL_LAYOUT_BLOCKED, 23, 100, false);
    assert_int_equal(bl_save(f, path), BL_OK);
    const off_t field = BL_FORMAT_HEADER_BYTES + BL_FS_OFFSET;
    uint8_t good[8], bad[8];
    const uint64_t absurd = UINT64_C(1) << 40; /* little-endian target, as the format */
    memcpy(bad, &absurd, 8);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, good, 8, field), 8);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* Never outlive a parent that crashed. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
            _exit(1);
        for (;;)
            if (pwrite(fd, bad, 8, field) != 8 || pwrite(fd, good, 8, field) != 8)
                _exit(1);
    }
    close(fd);
    size_t mapped = 0, outside = 0, tries = 0;
    const double t0 = now_seconds();
    for (unsigned i = 0; i < 100000 && outside == 0 && now_seconds() - t0 < 3.0; i++) {
        bl_filter *m = NULL;
        tries++;
        if (bl_map(&m, path) != BL_OK)
            continue;
        mapped++;
        const uintptr_t lo = (uintptr_t)m->map_base, at = (uintptr_t)m->data;
        if (at < lo || at - lo > m->map_len || m->nbytes > m->map_len - (at - lo))
            outside++;
        else
            (void)bl_verify(m);
        bl_free(m);
    }
    /* One mapping verified again and again while the file changes: an error or BL_OK, never a
     * read outside the mapping (ASan, or a fault, would stop the test). */
    bl_filter *m = NULL;
    for (unsigned i = 0; i < 1000000 && m == NULL; i++)
        (void)bl_map(&m, path);
    size_t verified = 0;
    for (unsigned i = 0; m != NULL && i < 20000 && now_seconds() - t0 < 6.0; i++)
        verified += bl_verify(m) == BL_OK;
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    printf("# %zu verifications passed\n", verified);
    assert_non_null(m);
    bl_free(m);
    printf("# %zu maps, %zu successful, %zu with the payload outside the mapping\n", tries, mapped,
           outside);
    assert_int_equal(outside, 0);
    assert_true(mapped > 0);
    bl_free(f);
}

/* ---- More than 2^32 bits ----------------------------------------------------------------------- */

static void test_over_2_32_bits(void **state)
{
    (void)state;
    if (kernel_rerun())
        skip();
    const uint64_t bits = (UINT64_C(1) << 32) + 512;
    bl_filter *f = NULL;
    assert_int_equal(bl_create_geometry(&f, BL_LAYOUT_BLOCKED, bits, 7, 1, 0, NULL), BL_OK);
    assert_true(f->nbits > (UINT64_C(1) << 32));
    uint64_t rng = g_seed ^ 0x2032;
    uint64_t h[34]; /* few: each touched region costs a huge page in memory */
    h[0] = UINT64_MAX; /* the very last line, past bit 2^32 */
    h[1] = 0;
    for (size_t i = 2; i < BL_ARRAY_LEN(h); i++)
        h[i] = tu_next(&rng);
    assert_int_equal(bl_add_hash_batch(f, h, BL_ARRAY_LEN(h)), BL_OK);
    assert_true(bl_blocked_line(h[0], f->nblocks) == f->nblocks - 1);

    char path[512];
    path_in(path, sizeof path, "huge.blf");
    assert_int_equal(bl_save(f, path), BL_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true((uint64_t)st.st_size == 4096 + f->nbytes);
    printf("# %llu-bit filter: file %lld bytes, %lld allocated on disk (sparse)\n",
           (unsigned long long)f->nbits, (long long)st.st_size, (long long)st.st_blocks * 512);

    bl_filter *g = NULL, *m = NULL;
    assert_int_equal(bl_load(&g, path), BL_OK);
    assert_int_equal(bl_map(&m, path), BL_OK);
    assert_true(g->nbits == f->nbits && m->nbits == f->nbits);
    assert_int_equal(bl_contains_hash_batch(g, h, BL_ARRAY_LEN(h), NULL), BL_ARRAY_LEN(h));
    assert_int_equal(bl_contains_hash_batch(m, h, BL_ARRAY_LEN(h), NULL), BL_ARRAY_LEN(h));
    const uint8_t *last = f->data + (f->nblocks - 1) * 64;
    assert_memory_equal(g->data + (f->nblocks - 1) * 64, last, 64);
    assert_memory_equal(m->data + (f->nblocks - 1) * 64, last, 64);
    assert_true(memcmp(g->data, f->data, f->nbytes) == 0);
    assert_int_equal(bl_verify(m), BL_OK);
    bl_free(f);
    bl_free(g);
    bl_free(m);
}

int main(void)
{
    g_seed = tu_seed("test_persist");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_load_map_every_layout),
        cmocka_unit_test(test_save_replaces_and_keeps_mode),
        cmocka_unit_test(test_corrupt_files),
        cmocka_unit_test(test_corrupt_chain_padding),
        cmocka_unit_test(test_verify_file_rewritten_under_mapping),
        cmocka_unit_test(test_verify_file_damaged_under_mapping),
        cmocka_unit_test(test_save_errors),
        cmocka_unit_test(test_save_long_name),
        cmocka_unit_test(test_save_disk_full_keeps_old_file),
        cmocka_unit_test(test_save_targets),
        cmocka_unit_test(test_save_fd_streams),
        cmocka_unit_test(test_map_no_address_space),
        cmocka_unit_test(test_load_non_regular),
        cmocka_unit_test(test_kill_during_save),
        cmocka_unit_test(test_map_while_file_written),
        cmocka_unit_test(test_over_2_32_bits),
    };
    if (getenv("BLOOMLINE_TEST_FILTER") != NULL) /* run one test: name pattern */
        cmocka_set_test_filter(getenv("BLOOMLINE_TEST_FILTER"));
    return cmocka_run_group_tests(tests, setup, teardown);
}
