/*
 * The dispatch table: every slot starts at PMPI_X, or at the hand-written
 * wisp_impl_MPI_X that tools/gen_wrappers.py found (listed in gen/impls.def).
 * Layers may re-point slots at MPI_Init when their feature is switched on.
 */
#include "wrap/impls.h"
#include "wrap/wrap.h"

#pragma GCC diagnostic ignored "-Woverride-init" /* impls override defaults */

struct wisp_dispatch wisp_dispatch = {
#define WISP_FN(f) .f = P##f,
#include "present.def"
#undef WISP_FN
#define WISP_IMPL(f) .f = wisp_impl_##f,
#include "gen/impls.def"
#undef WISP_IMPL
};

const char *const wisp_fn_names[WISP_FN_COUNT] = {
#define WISP_FN(f) #f,
#include "present.def"
#undef WISP_FN
};

MPI_Comm wisp_wrap_user_world = MPI_COMM_WORLD;
