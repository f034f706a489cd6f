/*
 * Cross-memory attach: the receiver of a large message from private memory
 * (which the other processes of the node cannot map) copies it once, out of
 * the sender's address space, with process_vm_readv, as MPICH and Open MPI
 * do for their own large messages, instead of the two copies of the staged
 * protocol. The kernel allows it between processes of one user unless
 * ptrace is restricted (Yama, containers): MPI_Init tries it between
 * neighbours, and the node uses it only if every process succeeded.
 */
#include "p2p/cma.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/log.h"
#include "p2p/state.h"
#include "shm/heap.h"

static pid_t *pids; /* per node rank */
static const uint64_t probe_word = 0x5749535043d4a00dULL;

bool wisp_p2p_cma_init(MPI_Comm node, bool wanted)
{
    struct {
        int64_t pid;
        uint64_t word; /* the address of probe_word in that process */
    } me = {getpid(), (uint64_t)(uintptr_t)&probe_word}, *all;
    int n = 0, rank = 0;
    PMPI_Comm_size(node, &n);
    PMPI_Comm_rank(node, &rank);
    all = calloc((size_t)n, sizeof *all);
    pids = calloc((size_t)n, sizeof *pids);
    if (!all || !pids)
        wisp_fatal("out of memory for the point-to-point engine");
    PMPI_Allgather(&me, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T, node);
    for (int i = 0; i < n; i++)
        pids[i] = (pid_t)all[i].pid;
    int next = (rank + 1) % n, ok = wanted;
    if (ok) {
        uint64_t seen = 0;
        struct iovec local = {&seen, sizeof seen};
        struct iovec remote = {(void *)(uintptr_t)all[next].word, sizeof seen};
        ok = process_vm_readv(pids[next], &local, 1, &remote, 1, 0) == (ssize_t)sizeof seen &&
             seen == probe_word;
        if (!ok)
            wisp_log(2,
                     "cross-memory attach to node rank %d refused (%s): private messages "
                     "are staged",
                     next, strerror(errno));
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node);
    free(all);
    return all_ok;
}

void wisp_p2p_cma_fini(void)
{
    free(pids);
    pids = NULL;
}

/* `n` bytes between this process's `mine` and node rank `peer`'s `theirs`:
 * into theirs when `write`, else out of it. The kernel may move less than
 * asked. */
static void move(int peer, void *mine, void *theirs, uint64_t n, bool write)
{
    uint64_t done = 0;
    wisp_shm_heap_prefault(mine, n);
    while (done < n) {
        struct iovec local = {(char *)mine + done, n - done};
        struct iovec remote = {(char *)theirs + done, n - done};
        ssize_t moved = write ? process_vm_writev(pids[peer], &local, 1, &remote, 1, 0)
                              : process_vm_readv(pids[peer], &local, 1, &remote, 1, 0);
        if (moved <= 0)
            wisp_fatal("cannot %s a message of %llu bytes %s node rank %d's memory (%s: %s); "
                       "WISP_SHM_CMA=off stages them instead",
                       write ? "write" : "read", (unsigned long long)n, write ? "into" : "from",
                       peer, write ? "process_vm_writev" : "process_vm_readv", strerror(errno));
        done += (uint64_t)moved;
    }
}

void wisp_p2p_cma_copy(int from, void *dst, const void *src, uint64_t n)
{
    move(from, dst, (void *)src, n, false);
}

void wisp_p2p_cma_write(int to, void *dst, const void *src, uint64_t n)
{
    move(to, (void *)src, dst, n, true);
}

uint64_t wisp_p2p_cma_readv(int from, const struct iovec *local, int nlocal,
                            const struct iovec *remote, int nremote)
{
    for (int i = 0; i < nlocal; i++)
        wisp_shm_heap_prefault(local[i].iov_base, local[i].iov_len);
    ssize_t moved = process_vm_readv(pids[from], local, (unsigned long)nlocal, remote,
                                     (unsigned long)nremote, 0);
    if (moved <= 0)
        wisp_fatal("cannot read a message from node rank %d's memory (process_vm_readv: %s); "
                   "WISP_SHM_CMA=off stages them instead",
                   from, moved < 0 ? strerror(errno) : "nothing moved");
    return (uint64_t)moved;
}
