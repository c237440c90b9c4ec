/* SPDX-License-Identifier: MIT */
/* Worker threads over input chunks: read under a lock, process in parallel, commit in order. */
#include "cli.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(BLOOMLINE_HAVE_HWLOC)
#include <hwloc.h>

static hwloc_topology_t topo;
static int topo_state; /* 0: not loaded, 1: loaded, -1: unavailable */

static void topo_free(void)
{
    if (topo_state == 1)
        hwloc_topology_destroy(topo);
    topo_state = 0;
}

/* Only the cores the process may run on (taskset, numactl, a service's CPUAffinity): from the
 * whole machine, the default -t counted cores it was kept off and pin_worker moved workers onto
 * them (taskset -c 1 bloomline query ran a worker on CPU 0). hwloc_topology_restrict is in
 * every hwloc 2.x; the load flag that does the same (RESTRICT_TO_CPUBINDING) came with 2.5. */
static void restrict_to_binding(void)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set != NULL && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 &&
        !hwloc_bitmap_iszero(set))
        (void)hwloc_topology_restrict(topo, set, 0);
    hwloc_bitmap_free(set);
}

static bool topo_load(void)
{
    if (topo_state == 0) {
        topo_state = -1;
        if (hwloc_topology_init(&topo) == 0) {
            /* Only cores and PUs matter here; skipping caches and I/O keeps the load quick. */
            hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
            hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
            if (hwloc_topology_load(topo) == 0) {
                restrict_to_binding();
                topo_state = 1;
                atexit(topo_free);
            } else {
                hwloc_topology_destroy(topo);
            }
        }
    }
    return topo_state == 1;
}

static unsigned topo_cores(void)
{
    if (!topo_load())
        return 0;
    int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    return n > 0 ? (unsigned)n : 0;
}

/* Worker i runs on core i (round robin past the core count), so that two workers never share a
 * core while another core idles. It is bound to the whole core, any of its PUs (hyperthreads):
 * bound to the core's first PU, the workers of -t 8 on 4 cores of 2 PUs shared those 4 PUs while
 * their siblings idled, and so did two runs side by side. Failure just leaves the thread free.
 * Only a run with a worker for every core is pinned (cli_run): fewer workers pinned to the
 * first cores put every concurrent run there (xargs -P 4 bloomline query -t 1 ... ran all four
 * on core 0 while the others idled), where the scheduler spreads them. */
static void pin_worker(unsigned i)
{
    const unsigned cores = topo_cores();
    if (cores == 0)
        return;
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, i % cores);
    if (core != NULL && core->cpuset != NULL)
        (void)hwloc_set_cpubind(topo, core->cpuset, HWLOC_CPUBIND_THREAD);
}
#else
static unsigned topo_cores(void) { return 0; }
static void pin_worker(unsigned i) { (void)i; }
#endif

static unsigned default_threads(void)
{
    unsigned n = topo_cores();
    if (n == 0) {
        /* The CPUs this process may run on (taskset), as above; else those online. */
        cpu_set_t set;
        long c = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                             : sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (unsigned)c : 1;
    }
    return n > 1024 ? 1024 : n;
}

unsigned cli_threads_for(unsigned asked, char *const *inputs, size_t ninputs)
{
    if (asked > 0)
        return asked;
    return cli_inputs_fit_one_chunk(inputs, ninputs) ? 1 : default_threads();
}

typedef struct pool {
    cli_job *job;
    pthread_mutex_t in_lock;
    uint64_t next_seq; /* under in_lock */
    pthread_mutex_t order_lock;
    pthread_cond_t order_cv;
    uint64_t commit_seq; /* under order_lock */
    int stop;            /* atomic: an error somewhere, everyone winds down */
    bool pin;            /* a worker for every core: each is placed on its own (pin_worker) */
} pool;

typedef struct worker_arg {
    pool *pl;
    unsigned id;
} worker_arg;

/* The run stops: no worker takes another chunk, and one waiting for a stream's input wakes.
 * The caller wakes the workers waiting for their turn to commit (under order_lock). */
static void request_stop(pool *pl)
{
    __atomic_store_n(&pl->stop, 1, __ATOMIC_RELEASE);
    cli_reader_stop(pl->job->reader);
}

static void set_stop(pool *pl)
{
    request_stop(pl);
    pthread_mutex_lock(&pl->order_lock);
    pthread_cond_broadcast(&pl->order_cv);
    pthread_mutex_unlock(&pl->order_lock);
}

static bool stopped(pool *pl) { return __atomic_load_n(&pl->stop, __ATOMIC_ACQUIRE) != 0; }

static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    pool *pl = wa->pl;
    cli_job *job = pl->job;
    if (pl->pin)
        pin_worker(wa->id);
    cli_chunk c;
    memset(&c, 0, sizeof c);
    for (;;) {
        pthread_mutex_lock(&pl->in_lock);
        int r = stopped(pl) ? 0 : cli_reader_next(job->reader, &c);
        if (r == 1)
            c.seq = pl->next_seq++;
        cli_progress_update(job->progress, job->reader->bytes);
        pthread_mutex_unlock(&pl->in_lock);
        if (r < 0)
            set_stop(pl);
        if (r != 1)
            break;
        if (cli_chunk_load(job->reader, &c) != 0)
            set_stop(pl);
        else if (job->process(job->ctx, wa->id, &c) != 0 ||
                 cli_chunk_check(job->reader, &c) != 0)
            set_stop(pl);
        if (job->commit != NULL) {
            pthread_mutex_lock(&pl->order_lock);
            while (pl->commit_seq != c.seq && !stopped(pl))
                pthread_cond_wait(&pl->order_cv, &pl->order_lock);
            /* Committing under the lock keeps the order; the work in commit is short. */
            if (!stopped(pl) && job->commit(job->ctx, wa->id, &c) != 0)
                request_stop(pl); /* the broadcast below wakes the others (holding the lock) */
            pl->commit_seq++;
            pthread_cond_broadcast(&pl->order_cv);
            pthread_mutex_unlock(&pl->order_lock);
        }
    }
    cli_chunk_release(&c);
    return NULL;
}

int cli_run(cli_job *job)
{
    pool pl;
    memset(&pl, 0, sizeof pl);
    pl.job = job;
    pthread_mutex_init(&pl.in_lock, NULL);
    pthread_mutex_init(&pl.order_lock, NULL);
    pthread_cond_init(&pl.order_cv, NULL);
    const unsigned n = job->threads ? job->threads : 1;
    worker_arg *args = cli_malloc(n * sizeof *args);
    pthread_t *tids = cli_malloc(n * sizeof *tids);
    unsigned started = 1;
    /* Load the topology here, before the workers read it. Not for one worker, which is pinned
     * only on a one-core machine, where pinning changes nothing: the load's ~85 file opens and
     * ~300 allocations took ~2 of a small -t 1 query's 3.6 ms (bench/cli.sh's start-up table). */
    pl.pin = n > 1 && topo_cores() > 0 && n >= topo_cores();
    for (unsigned i = 0; i < n; i++)
        args[i] = (worker_arg){&pl, i};
    /* The calling thread is worker 0. */
    for (unsigned i = 1; i < n; i++) {
        if (pthread_create(&tids[i], NULL, worker_main, &args[i]) != 0)
            break; /* fewer threads than asked still do all the work */
        started++;
    }
    worker_main(&args[0]);
    for (unsigned i = 1; i < started; i++)
        pthread_join(tids[i], NULL);
    cli_progress_end(job->progress);
    pthread_cond_destroy(&pl.order_cv);
    pthread_mutex_destroy(&pl.order_lock);
    pthread_mutex_destroy(&pl.in_lock);
    free(args);
    free(tids);
    return stopped(&pl) ? -1 : 0;
}
