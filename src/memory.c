/* SPDX-License-Identifier: MIT */
/* Payload memory: zeroed and 64-byte aligned; large payloads come from mmap with huge pages. */
#include "internal.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Above this, mmap: the kernel hands out zero pages lazily (a 2 GB filter costs nothing until
 * touched) and transparent huge pages cut TLB misses on random line access. With THP a touch
 * makes 2 MiB resident, not 4 KiB: the header says so at bl_create. */
#define BL_MMAP_THRESHOLD (2u << 20)

bl_status bl_payload_alloc(bl_filter *f, size_t nbytes)
{
    f->data = NULL;
    f->map_base = NULL;
    f->map_len = 0;
    f->nbytes = nbytes;
    if (nbytes >= BL_MMAP_THRESHOLD) {
        void *p = mmap(NULL, nbytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return BL_E_NOMEM;
#ifdef MADV_HUGEPAGE
        (void)madvise(p, nbytes, MADV_HUGEPAGE);
#endif
        f->data = p;
        f->map_base = p;
        f->map_len = nbytes;
        f->storage = BL_STORAGE_ANON_MAP;
        return BL_OK;
    }
    size_t rounded = (nbytes + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, rounded ? rounded : 64);
    if (p == NULL)
        return BL_E_NOMEM;
    memset(p, 0, rounded ? rounded : 64);
    f->data = p;
    f->storage = BL_STORAGE_HEAP;
    return BL_OK;
}

/* An anonymous mapping gives its pages back instead of being written: they read as zeros again
 * and become resident only as keys touch them, as after bl_create. A memset made the whole
 * payload resident (a 248 MB filter holding 100 keys went from 131 to 245 MB resident). Linux
 * only: elsewhere MADV_DONTNEED may keep the contents. A marker byte confirms the release:
 * qemu-user before 7.1 (and later ones that cannot pass the call on) return 0 and keep every
 * page, which left a "cleared" filter answering yes to all its keys. */
void bl_payload_clear(bl_filter *f)
{
#if defined(__linux__) && defined(MADV_DONTNEED)
    if (f->storage == BL_STORAGE_ANON_MAP) {
        volatile uint8_t *first = f->data;
        *first = 1;
        if (madvise(f->map_base, f->map_len, MADV_DONTNEED) == 0 && *first == 0)
            return;
    }
#endif
    memset(f->data, 0, f->nbytes);
}

void bl_payload_free(bl_filter *f)
{
    if (f->storage == BL_STORAGE_HEAP)
        free(f->data);
    else if (f->map_base != NULL)
        munmap(f->map_base, f->map_len);
    f->data = NULL;
    f->map_base = NULL;
    f->map_len = 0;
}
