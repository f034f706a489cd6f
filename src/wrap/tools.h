/*
 * Other profiling-interface tools in the process (mpiP, Score-P, Darshan,
 * a site's monitor): libraries that define MPI functions too, found when
 * libwisp is loaded (pmpi.h says how wisp serves beside them).
 */
#ifndef WISP_WRAP_TOOLS_H
#define WISP_WRAP_TOOLS_H

#pragma GCC visibility push(hidden)

/* At MPI_Init, from world rank 0 (through core/component.h): at
 * WISP_VERBOSE=1, the tools found. */
void wisp_wrap_tools_report(void);

#pragma GCC visibility pop

#endif
