/*
 * Cross-memory attach (cma.c): a process of the node reads, or writes,
 * another's private memory with process_vm_readv / process_vm_writev.
 */
#ifndef WISP_P2P_CMA_H
#define WISP_P2P_CMA_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#pragma GCC visibility push(hidden)

/* Collective over the node; true when every
 * process `wanted` it (WISP_SHM_CMA) and may read its neighbour's memory
 * with process_vm_readv. */
bool wisp_p2p_cma_init(MPI_Comm node, bool wanted);
void wisp_p2p_cma_fini(void);
/* Copy `n` bytes at `src` in node process `from` to `dst`. */
void wisp_p2p_cma_copy(int from, void *dst, const void *src, uint64_t n);
/* The same, the other way: `n` bytes from `src` here into `dst` in node rank
 * `to`'s memory (process_vm_writev: a sender's share of a synergistic copy
 * into a private receive buffer). */
void wisp_p2p_cma_write(int to, void *dst, const void *src, uint64_t n);
/* What the kernel moves at once of node rank `from`'s `remote` pieces into
 * the `local` ones, in order (at least a byte; the caller goes on from
 * there). */
uint64_t wisp_p2p_cma_readv(int from, const struct iovec *local, int nlocal,
                            const struct iovec *remote, int nremote);

#pragma GCC visibility pop

#endif
