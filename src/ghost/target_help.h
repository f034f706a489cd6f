/*
 * Whether the ghosts serve windows at all (WISP_GHOST_WINDOWS; target_help.c).
 */
#ifndef WISP_GHOST_TARGET_HELP_H
#define WISP_GHOST_TARGET_HELP_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* WISP_GHOST_WINDOWS=auto: collective over MPI_COMM_WORLD at MPI_Init,
 * ghosts included: find out whether the MPI needs the target's help for
 * one-sided operations, and say so with WISP_VERBOSE. */
void wisp_ghost_windows_decide(void);
/* Whether the ghosts serve windows at all; and, under auto, why (or why not). */
bool wisp_ghost_windows_served(void);
const char *wisp_ghost_windows_because(void);

#pragma GCC visibility pop

#endif
