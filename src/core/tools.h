/*
 * Other profiling-interface tools in the process (mpiP, Score-P, Darshan,
 * a site's monitor): libraries that define MPI functions too, found when
 * libwisp is loaded (src/wrap/pmpi.h says how wisp serves beside them).
 */
#ifndef WISP_CORE_TOOLS_H
#define WISP_CORE_TOOLS_H

#pragma GCC visibility push(hidden)

/* At MPI_Init, from world rank 0: at WISP_VERBOSE=1, the tools found. */
void wisp_core_tools_report(void);

#pragma GCC visibility pop

#endif
