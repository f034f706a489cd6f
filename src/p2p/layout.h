/*
 * Writing a received message's bytes into its receive's buffer or layout
 * (layout.c).
 */
#ifndef WISP_P2P_LAYOUT_H
#define WISP_P2P_LAYOUT_H

#include <stdint.h>

#include "dt/dt.h"
#include "p2p/types.h"

#pragma GCC visibility push(hidden)

/* memcpy, shared among idle threads when it is large. */
void wisp_p2p_copy(char *dst, const char *src, uint64_t n);
/* Bytes [at, at + n) of a receive's message, from `src` here, or from node
 * rank `from`'s private memory (cross-memory attach), into its buffer. */
void wisp_p2p_recv_put(struct wisp_p2p_req *req, uint64_t at, const void *src, uint64_t n);
void wisp_p2p_recv_put_peer(struct wisp_p2p_req *req, uint64_t at, int from, const char *src,
                            uint64_t n);
/* The first `n` bytes of a sender's layout in the heap (base, count,
 * desc) into a receive's buffer: one copy, no packing. */
void wisp_p2p_recv_get_layout(struct wisp_p2p_req *req, const char *base, MPI_Count count,
                              const wisp_dt_desc_t *desc, uint64_t n);

#pragma GCC visibility pop

#endif
