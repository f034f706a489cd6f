/*
 * Where a collective's bytes are (layout.c): their number, where they start,
 * and whether they are one block; packing for the other types.
 */
#ifndef WISP_COLL_LAYOUT_H
#define WISP_COLL_LAYOUT_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct wisp_coll_layout {
    uint64_t bytes;  /* count * the type's size: the same in every member */
    MPI_Aint lb;     /* the first byte's offset from the buffer */
    bool contiguous; /* the bytes are [buffer + lb, + bytes) */
};

/* `count` elements of `type`; false where wisp leaves the call to the MPI
 * (a type it cannot look at, a packed size that needs large counts). */
bool wisp_coll_layout_of(MPI_Datatype type, MPI_Count count, struct wisp_coll_layout *l);
/* Pack or unpack `bytes` bytes of `count` elements (false: the MPI failed). */
bool wisp_coll_pack(const void *buffer, MPI_Count count, MPI_Datatype type, void *packed,
                    uint64_t bytes, MPI_Comm comm);
bool wisp_coll_unpack(const void *packed, uint64_t bytes, void *buffer, MPI_Count count,
                      MPI_Datatype type, MPI_Comm comm);

/* A nonblocking collective that unpacks into `type` in its last call
 * keeps it (the user may free it before then, MPI-4.1 section 5.1.10): a
 * derived type is duplicated (a predefined one is returned as it is), and
 * let go of after the unpacking. */
MPI_Datatype wisp_coll_type_keep(MPI_Datatype type, MPI_Comm comm);
void wisp_coll_type_let_go(MPI_Datatype type);

#pragma GCC visibility pop

#endif
