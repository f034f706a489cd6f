/* WISP_STATS: per-rank counters of the time spent in MPI, printed at finalize. */
#ifndef WISP_CORE_STATS_H
#define WISP_CORE_STATS_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Start the clock and, with WISP_STATS, the wrappers' accounting. */
void wisp_core_stats_start(void);

/* Collective over `world`: with WISP_STATS, rank 0 prints one line per rank
 * on stderr; then accounting stops. */
void wisp_core_stats_finish(MPI_Comm world);

#pragma GCC visibility pop

#endif
