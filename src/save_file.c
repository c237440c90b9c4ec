/* SPDX-License-Identifier: MIT */
/* Replacing a file atomically, for bl_save and bl_export_save: the new bytes go to a temporary
 * beside the target, synced, then renamed over it, so a reader sees the old file or the new one,
 * never a torn one, and a failed save leaves the old file as it was (but for a failure of the
 * last step, the directory's fsync, BL_E_NOT_DURABLE: the new file is then in place, maybe not
 * durably). */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes of at most 1 GiB each (Linux writes at most ~2 GiB per call), retried on EINTR and
 * after short writes; at off with pwrite, or at fd's own position. */
static bool write_fully(int fd, const uint8_t *p, size_t n, uint64_t off, bool positioned)
{
    while (n > 0) {
        const size_t chunk = n < ((size_t)1 << 30) ? n : ((size_t)1 << 30);
        ssize_t w = positioned ? pwrite(fd, p, chunk, (off_t)off) : write(fd, p, chunk);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return false;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return true;
}

bool bl_pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t off)
{
    return write_fully(fd, p, n, off, true);
}

bool bl_write_all(int fd, const uint8_t *p, size_t n)
{
    return write_fully(fd, p, n, 0, false);
}

/* No permissions to keep: nothing regular is there (no mode has bits past 07777). */
#define NO_MODE ((mode_t)-1)

/* What a replaced file keeps: its permissions and owner. */
typedef struct {
    mode_t mode; /* NO_MODE: no regular file there */
    uid_t uid;
    gid_t gid;
} kept_attrs;

/* Whether a save may rename over path: nothing there, a regular file, or a symlink to one or to
 * nothing (replaced, not followed: following it would let a link planted in a shared directory
 * steer the rename onto any file, past the kernel's checks on opening through links). Anything
 * else, itself or behind a link, is refused (errno EISDIR or EINVAL) and left alone: renaming
 * over it turned a device or a FIFO into a plain file (/dev/null, /dev/stdout for root).
 * *kept: the permissions and owner of the regular file replaced, which the new one keeps. */
static bool replaceable(const char *path, kept_attrs *kept)
{
    struct stat st;
    kept->mode = NO_MODE;
    if (lstat(path, &st) != 0)
        return errno == ENOENT;
    if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
        return true; /* a dangling link, or a loop of links */
    if (S_ISREG(st.st_mode)) {
        *kept = (kept_attrs){.mode = st.st_mode & 07777, /* a private file stays private */
                             .uid = st.st_uid,
                             .gid = st.st_gid};
        return true;
    }
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    return false;
}

/* Open the directory holding path, whose name goes into dir (at least strlen(path) + 2 bytes):
 * before the rename, so that a failure to open it (EMFILE, EACCES) leaves the old file, and once
 * the target is replaced only the fsync that makes the rename durable can fail. */
static int open_dir(const char *path, char *dir)
{
    const char *slash = strrchr(path, '/');
    const size_t len = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (len == 0) {
        strcpy(dir, ".");
    } else {
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* How much of the target's name a temporary keeps when the whole name plus the suffix is too
 * long for the file system: enough to tell which save a stale temporary was. */
#define SHORT_NAME_BYTES 64u

/* A temporary beside target (same file system, so rename() is atomic), created exclusively. Its
 * name is the target's with ".<pid>.<n>.tmp" appended; when that is too long (ENAMETOOLONG: the
 * target's name is near the file system's limit, 255 bytes on most), it keeps only the start of
 * the target's name: the target is a valid name, and the save must not fail on the temporary's. */
static int create_temporary(const char *target, char *tmp, size_t cap)
{
    static unsigned counter;
    const char *slash = strrchr(target, '/');
    const int dir_len = slash == NULL ? 0 : (int)(slash + 1 - target);
    const char *name = target + dir_len;
    size_t name_len = strlen(name);
    int fd = -1;
    for (unsigned attempt = 0; fd < 0 && attempt < 100; attempt++) {
        unsigned c = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
        snprintf(tmp, cap, "%.*s%.*s.%ld.%u.tmp", dir_len, target, (int)name_len, name,
                 (long)getpid(), c);
        /* 0666 filtered by the umask, like any new file. */
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno == ENAMETOOLONG && name_len > SHORT_NAME_BYTES) {
            name_len = SHORT_NAME_BYTES;
            while (name_len > 0 && ((unsigned char)name[name_len] & 0xC0) == 0x80)
                name_len--; /* cut before a character, not inside a UTF-8 sequence */
            continue;
        }
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

bl_status bl_replace_file(const char *path, bl_file_writer write, const void *ctx)
{
    if (path == NULL || *path == '\0')
        return BL_E_INVALID;
    kept_attrs kept;
    if (!replaceable(path, &kept))
        return BL_E_IO;
    const size_t tmp_cap = strlen(path) + 64;
    char *tmp = malloc(tmp_cap + strlen(path) + 2); /* and the directory's name after it */
    if (tmp == NULL)
        return BL_E_NOMEM;
    int fd = create_temporary(path, tmp, tmp_cap);
    if (fd < 0) {
        free(tmp);
        return BL_E_IO;
    }
    if (kept.mode != NO_MODE) {
        /* Best effort, owner first (a chown clears set-id bits): root adding keys to another
         * user's filter left it root's; others may only give it a group of theirs (EPERM else,
         * and the file is theirs as any new file would be). */
        if (kept.uid != geteuid() || kept.gid != getegid())
            (void)fchown(fd, kept.uid, kept.gid);
        (void)fchmod(fd, kept.mode);
    }
    bl_status st = write(fd, ctx);
    if (st == BL_OK && fsync(fd) != 0)
        st = BL_E_IO;
    int e = errno;
    if (close(fd) != 0 && st == BL_OK) {
        st = BL_E_IO;
        e = errno;
    }
    const int dir_fd = st == BL_OK ? open_dir(path, tmp + tmp_cap) : -1;
    if (st == BL_OK && dir_fd < 0) {
        st = BL_E_IO;
        e = errno;
    }
    if (st == BL_OK && rename(tmp, path) != 0) {
        st = BL_E_IO;
        e = errno;
    }
    if (st != BL_OK) {
        (void)unlink(tmp); /* the old file, if any, is untouched */
    } else if (fsync(dir_fd) != 0) {
        /* The new file is in place, its rename maybe not durable: a status of its own, since a
         * caller must not take this for "nothing changed" (a script re-running an add or a
         * remove would apply it twice). */
        st = BL_E_NOT_DURABLE;
        e = errno;
    }
    if (dir_fd >= 0)
        close(dir_fd);
    free(tmp);
    errno = e;
    return st;
}
