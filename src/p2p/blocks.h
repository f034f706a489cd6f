/*
 * The blocks of a synergistic message (blocks.c), which sender and receiver
 * both copy, claimed from the slot's counter.
 */
#ifndef WISP_P2P_BLOCKS_H
#define WISP_P2P_BLOCKS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "dt/dt.h"
#include "p2p/transport.h"

#pragma GCC visibility push(hidden)

/* How one side copies its blocks of a synergistic message: in its own
 * address space (both buffers reachable: its own and the shared heap), or
 * across into / out of the other process's private memory (cma.c). */
typedef void wisp_p2p_copy_fn(int peer, char *dst, const char *src, uint64_t n);
void wisp_p2p_copy_here(int peer, char *dst, const char *src, uint64_t n);
void wisp_p2p_copy_from_peer(int peer, char *dst, const char *src, uint64_t n);
void wisp_p2p_copy_to_peer(int peer, char *dst, const char *src, uint64_t n);

/* A block, bytes [at, at + len) of the message: one run of each side, or
 * the sender's layout into the receiver's (or its one run). */
struct wisp_p2p_blocks {
    const char *src;
    char *dst;
    wisp_p2p_copy_fn *copy; /* one run each */
    int peer;
    MPI_Count scount, dcount;
    const wisp_dt_desc_t *sdesc, *ddesc; /* sdesc: layouts; ddesc NULL: dst is one run */
};
/* Claim and copy blocks of a synergistic message; true if any. */
bool wisp_p2p_claim_blocks(struct slot *s, const struct wisp_p2p_blocks *c);
/* Whether every byte `count` elements of `desc` at `buf` may touch is in
 * the shared heap. */
bool wisp_p2p_layout_in_heap(const char *buf, MPI_Count count, const wisp_dt_desc_t *desc);

#pragma GCC visibility pop

#endif
