/*
 * MPI_Get_accumulate element by element, where Open MPI's own would return
 * wrong results (getacc_split.c).
 */
#ifndef WISP_GHOST_GETACC_SPLIT_H
#define WISP_GHOST_GETACC_SPLIT_H

#include <mpi.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* Whether an MPI_Get_accumulate with these datatypes must go element by
 * element, and doing so to rank `grank` of internal window `iwin`. */
bool wisp_ghost_getacc_split_needed(MPI_Datatype origin, MPI_Datatype result, MPI_Datatype target,
                                    MPI_Op op);
int wisp_ghost_getacc_split(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                            void *result_addr, int result_count, MPI_Datatype result_datatype,
                            int grank, MPI_Aint gdisp, int target_count,
                            MPI_Datatype target_datatype, MPI_Op op, MPI_Win iwin);

#pragma GCC visibility pop

#endif
