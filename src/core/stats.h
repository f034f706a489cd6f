/* WISP_STATS: per-rank counters of the time spent in MPI, printed at finalize. */
#ifndef WISP_CORE_STATS_H
#define WISP_CORE_STATS_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Messages this process received through shared memory, by protocol, and
 * the copies their payloads took (both sides'): the point-to-point engine
 * counts them, WISP_STATS and wisp_shm_counter() report them. */
struct wisp_stats_shm {
    uint64_t immediate, staged, single_copy, synergistic, self, copies, bytes;
};
extern struct wisp_stats_shm wisp_stats_shm;

/* Allocations of the MPI's own code that the shared heap left to glibc
 * (src/shm/callers.c), counted with WISP_STATS; wisp_shm_counter() and
 * WISP_STATS report them. */
extern _Atomic uint64_t wisp_stats_heap_mpi;

/* Start the clock and, with WISP_STATS, the wrappers' accounting. */
void wisp_core_stats_start(void);

/* Collective over `world`: with WISP_STATS, rank 0 prints one line per rank
 * on stderr; then accounting stops. */
void wisp_core_stats_finish(MPI_Comm world);

#pragma GCC visibility pop

#endif
