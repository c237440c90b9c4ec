/* SPDX-License-Identifier: MIT */
/* bloomline add and remove: keys into an existing filter file, or out of a counting one, saved
 * atomically. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct option add_longopts[] = {
    {"threads", required_argument, NULL, 't'},
    {"field", required_argument, NULL, 'f'},
    {"delimiter", required_argument, NULL, 'd'},
    {"quiet", no_argument, NULL, 'q'},
    {"null-data", no_argument, NULL, 'z'},
    CLI_COMMON_LONGOPT_MAX_LINE,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Only counting filters can remove: in the others a bit may be shared by many keys, and
 * clearing one key's bits would lose the others. */
static bool can_remove(const char *path, const bl_info *info)
{
    if (info->layout == BL_LAYOUT_COUNTING)
        return true;
    cli_error("%s: a %s filter cannot remove keys: only counting filters can (build with "
              "-l counting)", path, info->layout_name ? info->layout_name : "?");
    return false;
}

/* Keys never added that the filter answers yes to cannot be told apart: they were removed, and
 * their decrements may hide keys that were added (removing 5000 keys never added took out ~10
 * false positives, and 42 of 15000 kept keys then answered no). Say so. */
static void warn_absent(const char *path, uint64_t absent, uint64_t removed)
{
    if (absent > 0)
        cli_warn("%s: %llu of %llu keys were never added (nothing removed for them); any others "
                 "never added that the filter took for added keys were removed, and may hide "
                 "keys that were added", path, (unsigned long long)absent,
                 (unsigned long long)removed);
}

/* add F.blf F.blf, a typo for the key file, added the filter's own bytes as keys, and remove
 * took them out of a counting filter, where such decrements may hide keys that were added. */
static bool filter_is_an_input(const char *path, bool remove, char *const *inputs, size_t n)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    const size_t i = cli_input_index_of(&st, inputs, n, 0);
    if (i == n)
        return false;
    const bool is_stdin = strcmp(inputs[i], "-") == 0, same_name = strcmp(inputs[i], path) == 0;
    cli_error("%s is the filter%s%s: its own bytes would be %s as keys (the key files come after "
              "the filter)", is_stdin ? "standard input" : inputs[i], same_name ? "" : " ",
              same_name ? "" : path, remove ? "removed" : "added");
    return true;
}

/* Adds and removes of one filter file take turns: each loads the whole filter, changes it and
 * saves a new file over it, so two at once both started from the old filter and the last save
 * dropped the other's keys (two concurrent adds of 500000 keys each: one set answered no,
 * both exited 0). A write lock on the file, held from before the load until after the save,
 * serializes them. It is an open-file-description lock on one byte far past any filter's end:
 * - not flock: flock(1) around an add (flock F bloomline add F, the way to serialize adds
 *   before there was a lock) holds that lock in the parent, and the add waited for it forever;
 *   fcntl and flock locks do not meet on Linux's local file systems;
 * - not a classic POSIX lock, which closing any descriptor of the file (the load does) drops;
 * - past the end: where byte-range locks are mandatory (SMB), one on the data would fail the
 *   load's own reads.
 * A save replaces the file, so a waiter may wake holding the lock of one no longer at path: it
 * then locks the new one. -1 when there is nothing to lock (no regular file there:
 * cli_open_filter says why) or no lock could be had (said, then run unlocked, as before); else
 * the descriptor holding the lock, to close after the save. */
#ifdef F_OFD_SETLKW
static int try_lock(int fd, bool wait)
{
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    l.l_start = (off_t)1 << (8 * sizeof(off_t) - 2);
    l.l_len = 1;
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &l);
}
#define LOCK_OPEN_MODE O_RDWR /* a write lock needs a descriptor open for writing */
#else
static int try_lock(int fd, bool wait) { return flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)); }
#define LOCK_OPEN_MODE O_RDONLY
#endif

/* A filter this user may not write is refused, though the directory would let the save replace
 * it: its mode or its owner says it is not this user's to change (a 0444 filter was rewritten
 * with a warning; a root-owned one came to belong to the user who added to it). As `test -w`
 * decides it, so root may change any filter on a writable file system. A missing file or path
 * is left to cli_open_filter to explain. */
static bool filter_writable(const char *path)
{
    if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
        return true;
    const int e = errno;
    if (e != EACCES && e != EPERM && e != EROFS && e != ETXTBSY)
        return true;
    cli_error("%s: %s: the filter is not writable, so it is left as it is", path, strerror(e));
    return false;
}

static int lock_filter(const char *path, bool quiet)
{
    bool told = false;
    for (int attempt = 0;; attempt++) {
        struct stat held, now;
        if (stat(path, &now) != 0 || !S_ISREG(now.st_mode))
            return -1;
        const int fd = open(path, LOCK_OPEN_MODE | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
            /* Past filter_writable, only where its answer and open's differ (an ACL or a
             * mount changed between them): run unlocked; the save says if it cannot replace. */
            if (!quiet && errno != EROFS)
                cli_warn("%s: cannot lock it (not writable): adds or removes run at the same "
                         "time may lose keys", path);
            return -1;
        }
        if (fd < 0)
            return -1;
        /* A holder may take long, or forever (an add left reading a terminal): someone at a
         * terminal is told why nothing happens; scripts running many adds are not (one line
         * per waiter in their logs). */
        if (try_lock(fd, false) != 0 && (errno == EAGAIN || errno == EACCES) && !told &&
            !quiet && isatty(STDERR_FILENO)) {
            cli_warn("%s: another add or remove is changing it: waiting for it to finish", path);
            told = true;
        }
        if (try_lock(fd, true) != 0) {
            const int e = errno;
            close(fd);
            if (!quiet)
                cli_warn("%s: cannot lock it (%s): adds or removes run at the same time may "
                         "lose keys", path, strerror(e));
            return -1;
        }
        /* Bounded: a file system whose inode numbers differ between stat and fstat of one file
         * (overlayfs before Linux 4.19) would never agree; then the lock held is kept. */
        if ((fstat(fd, &held) == 0 && stat(path, &now) == 0 && held.st_dev == now.st_dev &&
             held.st_ino == now.st_ino) ||
            attempt == 100)
            return fd;
        close(fd);
    }
}

/* Load the filter, add or remove the keys, save it: the work done under the lock. */
static int change_filter(const char *path, bool remove, const cli_common *cm,
                         char *const *inputs, size_t ninputs)
{
    bl_filter *f;
    bl_info info;
    if (cli_open_filter(path, true, true, &f, &info) != 0)
        return CLI_EXIT_ERROR;
    if (remove && !can_remove(path, &info)) {
        bl_free(f);
        return CLI_EXIT_ERROR;
    }
    uint64_t fed = 0, absent = 0;
    cli_feed_opts fo = {.layout = info.layout,
                        .inputs = inputs,
                        .ninputs = ninputs,
                        .field = cm->field,
                        .eol = cm->eol,
                        .max_line = cm->max_line,
                        .threads = cm->threads,
                        .quiet = cm->quiet,
                        .absent = remove ? &absent : NULL};
    int rc = cli_feed(f, &fo, &fed);
    if (rc == 0)
        rc = cli_save_filter(f, path);
    if (rc == 0 && remove)
        warn_absent(path, absent, fed);
    else if (rc == 0)
        cli_warn_capacity(path, f);
    bl_free(f);
    return rc == 0 ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

static int add_or_remove(int argc, char **argv, bool remove)
{
    const char *cmd = remove ? "remove" : "add";
    cli_common cm;
    cli_common_init(&cm);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "h" CLI_COMMON_SHORTOPTS, add_longopts, NULL)) != -1) {
        int r = cli_common_option(&cm, c, optarg);
        if (r < 0)
            return CLI_EXIT_ERROR;
        if (r > 0)
            continue;
        if (c == 'h')
            return cli_print_help(cmd);
        return cli_bad_option(optopt, argv[optind - 1], add_longopts);
    }
    if (cli_common_finish(&cm) != 0)
        return CLI_EXIT_ERROR;
    if (optind >= argc)
        return cli_usage_error("missing FILTER");
    const char *path = argv[optind++];
    size_t ninputs;
    char *const *inputs = cli_inputs(argc, argv, optind, &ninputs);
    cm.threads = cli_threads_for(cm.threads, inputs, ninputs);
    if (filter_is_an_input(path, remove, inputs, ninputs))
        return CLI_EXIT_ERROR;

    if (!filter_writable(path))
        return CLI_EXIT_ERROR;
    const int lock = lock_filter(path, cm.quiet);
    const int rc = change_filter(path, remove, &cm, inputs, ninputs);
    if (lock >= 0)
        close(lock);
    return rc;
}

int cli_cmd_add(int argc, char **argv)
{
    return add_or_remove(argc, argv, false);
}

int cli_cmd_remove(int argc, char **argv)
{
    return add_or_remove(argc, argv, true);
}
