/*
 * The engine's settings and counters, its node segment and its callbacks
 * (state.h), defined here at the bottom, so that every file of the engine
 * reads them without depending on start.c, which fills them.
 */
#include "p2p/state.h"

struct wisp_p2p wisp_p2p;
struct wisp_p2p_segment wisp_p2p_seg;
struct wisp_p2p_callbacks wisp_p2p_up;
_Atomic unsigned long wisp_p2p_passes;
/* Communicators with receives that wait for the MPI (match.c), for a look
 * without the lock (wisp_p2p_remote_waiting). */
_Atomic unsigned wisp_p2p_remote_count;
