/* Placing ghosts near the memory they serve (place.c, WISP_GHOST_BIND). */
#ifndef WISP_GHOST_PLACE_H
#define WISP_GHOST_PLACE_H

#pragma GCC visibility push(hidden)

/* The NUMA node (hwloc logical index) where this process runs. */
int wisp_ghost_numa_here(void);

/* In ghost `ghost` of its node: `numa` gives the NUMA node of each of the
 * node's `users` application processes; bind as WISP_GHOST_BIND asks and say
 * where it runs (WISP_VERBOSE=2). */
void wisp_ghost_place(int ghost, const int *numa, int users, int ghosts);

#pragma GCC visibility pop

#endif
