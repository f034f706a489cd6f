/*
 * The elements of (count, datatype), for the operations that wisp cuts
 * into pieces (split.c, getacc_split.c): elements.c.
 */
#ifndef WISP_GHOST_ELEMENTS_H
#define WISP_GHOST_ELEMENTS_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Byte offsets, from the buffer's address, of the *n elements of esize
 * bytes of (count, type), in packed order; NULL when memory is short
 * (from the datatype engine, from the MPI's MPI_Pack for types the engine
 * refuses; _mpi always from MPI_Pack, for tests). The predefined type a
 * derived type of one type is made of; MPI_BYTE for a type of several. */
MPI_Aint *wisp_ghost_element_offsets(MPI_Count count, MPI_Datatype type, int esize, int *n);
MPI_Aint *wisp_ghost_element_offsets_mpi(MPI_Count count, MPI_Datatype type, int esize, int *n);
MPI_Datatype wisp_ghost_basic_type(MPI_Datatype type);

#pragma GCC visibility pop

#endif
