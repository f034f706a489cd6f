/*
 * Work-arounds for bugs and behaviours of the MPIs underneath that wisp's
 * own would expose (Open MPI's yield on a node that only ghosts
 * oversubscribe): set before the MPI starts, reported once it has.
 */
#ifndef WISP_CORE_QUIRKS_H
#define WISP_CORE_QUIRKS_H

#pragma GCC visibility push(hidden)

/* Before PMPI_Init: adjust what the MPI reads from the environment. */
void wisp_core_quirks_before_init(void);

/* Before PMPI_Init: why raising the MPI to MPI_THREAD_MULTIPLE would make a
 * correct program's windows fail, or NULL. Open MPI 4.1's osc pt2pt (the
 * one-sided component over TCP and other networks without RDMA) refuses
 * MPI_THREAD_MULTIPLE when a window is created; it may serve windows where
 * the MCA selection allows it and not osc ucx. */
const char *wisp_core_quirks_multiple_breaks_windows(void);

/* After PMPI_Init, where WISP_GHOST_WINDOWS=auto found that the ghosts serve
 * the windows: give Open MPI back the yield that before_init took away. */
void wisp_core_quirks_windows_served(void);

/* After PMPI_Init (the log knows the rank): say what was adjusted. */
void wisp_core_quirks_report(void);

#pragma GCC visibility pop

#endif
