/*
 * The engine's start and end (start.c).
 */
#ifndef WISP_P2P_START_H
#define WISP_P2P_START_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Collective over the world, after the topology and the heap. */
void wisp_p2p_init(int thread_level);
void wisp_p2p_fini(void);

#pragma GCC visibility pop

#endif
