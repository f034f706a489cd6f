/*
 * The reductions wisp computes itself (op.c): the predefined operations on
 * the predefined types they are defined for (MPI-4.1 section 6.9.2),
 * element by element, `acc = acc op in`. Everything else (a user's
 * operation, a derived type, a pair the standard does not define an
 * operation on) goes to the MPI, which also reports the errors.
 *
 * Same bits everywhere: the algorithms fold the members' contributions in
 * rank order, x0 op x1 op ... op x(n-1), whatever order they arrive in, and
 * IEEE addition and multiplication are commutative, so every member that
 * folds an element gets the same bits, run after run.
 */
#ifndef WISP_COLL_OP_H
#define WISP_COLL_OP_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#pragma GCC visibility push(hidden)

/* A type and an operation wisp folds: which loop, and the element's bytes. */
struct wisp_coll_fold {
    int kernel; /* op.c's index; -1: the MPI's */
    size_t size;
};

/* How to fold `op` over `type`; kernel -1 when the MPI must. */
struct wisp_coll_fold wisp_coll_fold_of(MPI_Datatype type, MPI_Op op);
/* acc[k] = acc[k] op in[k] for `count` elements. */
void wisp_coll_fold(struct wisp_coll_fold f, void *acc, const void *in, size_t count);
/* The predefined types wisp knows, for a broadcast's contiguity: their size,
 * or 0 for a type it does not know. */
size_t wisp_coll_type_size(MPI_Datatype type);
void wisp_coll_op_init(void);

#pragma GCC visibility pop

#endif
