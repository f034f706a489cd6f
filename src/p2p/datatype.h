/*
 * What the engine needs to know of a datatype (datatype.c): its size in
 * bytes, whether it is one contiguous run, and packing; and the MPI
 * functions on datatypes that wisp serves (MPI_Type_free, MPI_Pack,
 * MPI_Unpack).
 */
#ifndef WISP_P2P_DATATYPE_H
#define WISP_P2P_DATATYPE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* `count` elements of `type` as bytes: their number, and whether they are one
 * contiguous run starting at `*offset` bytes from the buffer; `predefined`
 * (may be NULL): whether the type is one of the MPI's own. */
int wisp_p2p_type_bytes(MPI_Datatype type, MPI_Count count, uint64_t *bytes, bool *contig,
                        MPI_Aint *offset, bool *predefined);
/* At start, before any other thread calls MPI: ask what the MPI makes of
 * MPI_DATATYPE_NULL. */
void wisp_p2p_type_init(void);
void wisp_p2p_type_fini(void);
int wisp_p2p_type_free(MPI_Datatype *type); /* MPI_Type_free */
/* MPI_Pack and MPI_Unpack (and their _c forms when `large`: position is
 * then an MPI_Count, else an int). */
int wisp_p2p_user_pack(const void *inbuf, MPI_Count incount, MPI_Datatype type, void *outbuf,
                       MPI_Count outsize, void *position, bool large, MPI_Comm comm);
int wisp_p2p_user_unpack(const void *inbuf, MPI_Count insize, void *position, void *outbuf,
                         MPI_Count outcount, MPI_Datatype type, bool large, MPI_Comm comm);
/* A reference of wisp's own to a derived type (a duplicate, in *held), for a
 * request that outlives its call; false for predefined types (none needed).
 * Given back with wisp_p2p_type_unhold, never by the rescuer (it calls the MPI). */
bool wisp_p2p_type_hold(MPI_Datatype type, MPI_Datatype *held);
void wisp_p2p_type_unhold(MPI_Datatype held);
/* MPI_Pack_size / MPI_Pack / MPI_Unpack on MPI_COMM_SELF, with counts of
 * any size, also for MPI_BOTTOM buffers. */
int wisp_p2p_pack_size(MPI_Count count, MPI_Datatype type, MPI_Count *size);
int wisp_p2p_pack(const void *buf, MPI_Count count, MPI_Datatype type, void *out, MPI_Count size,
                  MPI_Count *position);
int wisp_p2p_unpack(const void *in, MPI_Count size, MPI_Count *position, void *buf, MPI_Count count,
                    MPI_Datatype type);

#pragma GCC visibility pop

#endif
