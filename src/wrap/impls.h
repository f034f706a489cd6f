/*
 * Prototypes of the hand-written implementations (src/<layer>/MPI_X.c).
 * Each has exactly the signature of PMPI_X, which the compiler checks here.
 */
#ifndef WISP_WRAP_IMPLS_H
#define WISP_WRAP_IMPLS_H

#include "wrap/wrap.h"

#define WISP_IMPL(f) extern __typeof__(P##f) wisp_impl_##f;
#include "gen/impls.def"
#undef WISP_IMPL

#endif
