/*
 * NUMA placement of the shared heap (WISP_HEAP_NUMA), as the kernel reports
 * it: argv[1] = "local" (the default: no policy on the heap's pages, so
 * tmpfs places each where the allocating thread runs) or "interleave" (the
 * file's pages carry MPOL_INTERLEAVE over the nodes this process may use,
 * set before they are committed). Checked on a large block and a small one
 * of MPI_Alloc_mem (served by the heap in every build, the sanitizer's too):
 * the policy at their addresses, in the owner and in a peer (it belongs to
 * the file), that every touched page lies on an allowed node, and that the
 * memory is still the node's (a peer reads, through the same pointer, what
 * the owner wrote).
 */
#include <linux/mempolicy.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

#define MAX_NODES 1024
#define LONGS     (MAX_NODES / (8 * sizeof(unsigned long)))
#define BIG       (32u << 20)

static unsigned long allowed[LONGS];

static int is_allowed(int node)
{
    unsigned bits = 8 * sizeof(unsigned long);
    return (int)(allowed[(unsigned)node / bits] >> ((unsigned)node % bits) & 1);
}

static int policy_at(const void *p, unsigned long *nodes)
{
    int mode = -1;
    memset(nodes, 0, LONGS * sizeof *nodes);
    CHECK(syscall(SYS_get_mempolicy, &mode, nodes, (unsigned long)MAX_NODES, p, MPOL_F_ADDR) == 0);
    return mode;
}

static int node_of(const void *p)
{
    int node = -1;
    CHECK(syscall(SYS_get_mempolicy, &node, NULL, 0UL, p, MPOL_F_NODE | MPOL_F_ADDR) == 0);
    return node;
}

static void check_placement(const char *what, const char *p, size_t size, int interleave)
{
    unsigned long nodes[LONGS];
    int mode = policy_at(p, nodes);
    if (interleave) {
        if (mode != MPOL_INTERLEAVE || memcmp(nodes, allowed, sizeof nodes))
            fprintf(stderr, "%s: policy %d, not interleaved over the allowed nodes\n", what, mode);
        CHECK(mode == MPOL_INTERLEAVE && !memcmp(nodes, allowed, sizeof nodes));
    } else {
        if (mode != MPOL_DEFAULT)
            fprintf(stderr, "%s: policy %d, not the default (local)\n", what, mode);
        CHECK(mode == MPOL_DEFAULT);
    }
    long page = sysconf(_SC_PAGESIZE);
    for (size_t off = 0; off < size; off += (size_t)page) {
        int node = node_of(p + off);
        CHECK(node >= 0 && node < MAX_NODES && is_allowed(node));
    }
}

int main(int argc, char **argv)
{
    int interleave = argc > 1 && !strcmp(argv[1], "interleave");
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK(syscall(SYS_get_mempolicy, NULL, allowed, (unsigned long)MAX_NODES, NULL,
                  MPOL_F_MEMS_ALLOWED) == 0);

    MPI_Comm node = wisp_node_comm();
    int node_rank, node_size;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    char *big = NULL, *small = NULL;
    CHECK(MPI_Alloc_mem(BIG, MPI_INFO_NULL, &big) == MPI_SUCCESS && wisp_heap_contains(big));
    CHECK(MPI_Alloc_mem(64, MPI_INFO_NULL, &small) == MPI_SUCCESS && wisp_heap_contains(small));
    for (size_t i = 0; i < BIG; i++)
        big[i] = (char)(i * 7 + (size_t)node_rank);
    strcpy(small, "placed");
    check_placement("32 MiB block", big, BIG, interleave);
    check_placement("64-byte block", small, 64, interleave);

    /* Still the node's memory: the next process reads what this one wrote. */
    char *peer[2] = {big, small};
    char *theirs[2];
    int from = (node_rank + node_size - 1) % node_size, to = (node_rank + 1) % node_size;
    MPI_Sendrecv(peer, sizeof peer, MPI_BYTE, to, 0, theirs, sizeof theirs, MPI_BYTE, from, 0, node,
                 MPI_STATUS_IGNORE);
    for (size_t i = 0; i < BIG; i += 4093)
        CHECK(theirs[0][i] == (char)(i * 7 + (size_t)from));
    CHECK(!strcmp(theirs[1], "placed"));
    /* The policy is the file's, not this mapping's: a peer sees it too. */
    check_placement("the previous process's 32 MiB block", theirs[0], BIG, interleave);
    MPI_Barrier(node);
    MPI_Free_mem(big);
    MPI_Free_mem(small);

    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("heap_numa %s: %s\n", interleave ? "interleave" : "local", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
