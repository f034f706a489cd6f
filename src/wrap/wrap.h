/*
 * The three hook points of every generated MPI wrapper (src/wrap/gen/):
 * communicator translation, dispatch through a table of implementations, and
 * enter/exit accounting. Kept in one header so that the generated code stays
 * small and boring, and so the fast path (accounting off) compiles to a
 * compare and an indirect tail jump.
 */
#ifndef WISP_WRAP_H
#define WISP_WRAP_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "wisp_have.h" /* generated at configure time: WISP_HAVE_MPI_* */

/* Deprecated MPI functions are wrapped like any other. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC visibility push(hidden)

/* One slot per MPI function that the underlying mpi.h declares. A slot holds
 * PMPI_X until a hand-written implementation is registered in it. */
struct wisp_dispatch {
#define WISP_FN(f) __typeof__(P##f) *f;
#include "present.def"
#undef WISP_FN
};
extern struct wisp_dispatch wisp_dispatch;

/* Dense ids for the accounting arrays and the statistics report. */
enum wisp_fn_id {
#define WISP_FN(f) WISP_FN_ID_##f,
#include "present.def"
#undef WISP_FN
    WISP_FN_COUNT
};
extern const char *const wisp_fn_names[WISP_FN_COUNT];

/* The communicator the application sees as MPI_COMM_WORLD. It is the real
 * world until ghost processes are carved out of it. */
extern MPI_Comm wisp_wrap_user_world;

static inline MPI_Comm wisp_wrap_comm_in(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD ? wisp_wrap_user_world : comm;
}

/* Accounting is off (one predictable branch) unless WISP_STATS or a feature
 * that needs the time spent in MPI switches it on. */
extern bool wisp_wrap_accounting;
uint64_t wisp_wrap_enter(void);
void wisp_wrap_exit(enum wisp_fn_id id, uint64_t start);

#define WISP_WRAP_CALL(fn, args)                                               \
    do {                                                                       \
        if (__builtin_expect(wisp_wrap_accounting, 0)) {                       \
            uint64_t start_ = wisp_wrap_enter();                               \
            __typeof__(wisp_dispatch.fn args) rc_ = wisp_dispatch.fn args;     \
            wisp_wrap_exit(WISP_FN_ID_##fn, start_);                           \
            return rc_;                                                        \
        }                                                                      \
        return wisp_dispatch.fn args;                                          \
    } while (0)

#pragma GCC visibility pop

#endif
