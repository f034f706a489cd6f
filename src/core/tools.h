/*
 * Other profiling-interface tools in the process (mpiP, Score-P, Darshan,
 * a site's monitor): libraries that define MPI functions too. One found
 * ahead of libwisp takes the application's calls of those functions past
 * wisp, which must then serve nothing (a message it serves needs both ends
 * to reach it); one after libwisp sees none of the calls wisp defines.
 */
#ifndef WISP_CORE_TOOLS_H
#define WISP_CORE_TOOLS_H

#pragma GCC visibility push(hidden)

struct wisp_tools {
    int ahead, after;                    /* MPI functions defined ahead of / after libwisp */
    char ahead_by[256], after_by[256];   /* the first library found each way */
    char ahead_fns[160], after_fns[160]; /* the first few functions, comma-separated */
};

/* What the dynamic linker says, for every MPI function wisp defines. */
void wisp_core_tools_find(struct wisp_tools *t);

#pragma GCC visibility pop

#endif
