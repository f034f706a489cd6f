/*
 * The dispatch tables. `wisp_impl` holds, per MPI function, PMPI_X or the
 * hand-written wisp_impl_MPI_X that tools/gen_wrappers.py found (listed in
 * gen/impls.def); `wisp_entry`, what the exported wrappers jump through,
 * starts as a copy of it and becomes `wisp_hooked` while hooks are on.
 */
#include <string.h>

#include "wrap/impls.h"
#include "wrap/wrap.h"

#pragma GCC diagnostic ignored "-Woverride-init" /* impls override defaults */

struct wisp_dispatch wisp_impl =
#include "wrap/implementations.inc"
    ;

struct wisp_dispatch wisp_entry =
#include "wrap/implementations.inc"
    ;

void wisp_wrap_hooks_enable(bool on)
{
    memcpy(&wisp_entry, on ? &wisp_hooked : &wisp_impl, sizeof wisp_entry);
}

const char *const wisp_fn_names[WISP_FN_COUNT] = {
#define WISP_FN(f) #f,
#include "present.def"
#undef WISP_FN
};

MPI_Comm wisp_wrap_user_world = MPI_COMM_WORLD;
