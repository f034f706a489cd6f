/*
 * The one convention for wisp's explicit state machines (a message's copy
 * and route in p2p, a parked thread in the team): every change of state
 * goes through its machine's move function, which names the states it may
 * come from as a mask (1u << state) and calls wisp_state_check. In the
 * debug and sanitizer builds a change from anywhere else stops the process
 * with one line that names the machine and both states; release builds
 * only assign. Header-only, so that tests which compile a layer's files on
 * their own need nothing more.
 */
#ifndef WISP_CORE_STATES_H
#define WISP_CORE_STATES_H

#include <stdio.h>
#include <stdlib.h>

#if !defined(NDEBUG) || defined(__SANITIZE_ADDRESS__)
#define WISP_STATES_CHECKED 1
#else
#define WISP_STATES_CHECKED 0
#endif

/* `machine` in state `was` (names[was]) may go to `to` only from a state in `from`. */
static inline void wisp_state_check(const char *machine, const char *const names[], unsigned was,
                                    unsigned from, unsigned to)
{
    if (WISP_STATES_CHECKED && !(from & 1u << was)) {
        fprintf(stderr, "wisp: internal error: %s went %s -> %s\n", machine, names[was], names[to]);
        abort();
    }
}

#endif
