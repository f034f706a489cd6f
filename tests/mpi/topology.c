/*
 * What wisp.h reports about nodes, checked against what the launch implies:
 * all ranks run on this one machine, so without virtual nodes there is one
 * node of every rank; with WISP_VNODE_SIZE=k (given again as argv[1]) the
 * ranks form nodes of k consecutive ranks. Also checks the node communicator
 * and that the queries answer -1 / MPI_COMM_NULL outside MPI_Init..Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */
#include "wisp.h"

int main(int argc, char **argv)
{
    CHECK(wisp_node_rank() == -1 && wisp_node_size() == -1 && wisp_node_peer(0) == -1);
    CHECK(wisp_node_comm() == MPI_COMM_NULL);
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int k = argc > 1 ? atoi(argv[1]) : size;

    int first = rank / k * k; /* world rank of this node's first process */
    int expect_size = first + k <= size ? k : size - first;
    CHECK(wisp_node_rank() == rank - first);
    CHECK(wisp_node_size() == expect_size);
    CHECK(wisp_node_id() == rank / k);
    CHECK(wisp_node_count() == (size + k - 1) / k);
    for (int i = 0; i < expect_size; i++)
        CHECK(wisp_node_peer(i) == first + i);
    CHECK(wisp_node_peer(-1) == -1 && wisp_node_peer(expect_size) == -1);

    MPI_Comm node = wisp_node_comm();
    int node_rank, node_size, sum = 0;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    CHECK(node_rank == wisp_node_rank() && node_size == wisp_node_size());
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, node);
    CHECK(sum == expect_size * first + expect_size * (expect_size - 1) / 2);

    CHECK(wisp_machine_cores() >= 1);
    CHECK(wisp_machine_numa_nodes() >= 1);
    CHECK(wisp_bound_cores() >= 1 && wisp_bound_cores() <= wisp_machine_cores());

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    CHECK(wisp_node_rank() == -1 && wisp_node_comm() == MPI_COMM_NULL);
    if (rank == 0)
        printf("topology: %d ranks, nodes of %d: %s\n", size, k, all_failures ? "FAILED" : "ok");
    return all_failures || failures;
}
