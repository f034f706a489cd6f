/*
 * Messages within and between hosts (tests/hosts/split.sh): 4 ranks, 2 on
 * each of two hosts (ranks 0 and 1 on one, 2 and 3 on the other).
 *
 * - Named sources: every rank sends one int to its host peer (rank ^ 1)
 *   and one to its counterpart on the other host (rank ^ 2), and receives
 *   both from the named sources.
 * - Wildcards: every rank sends one int to each of the other three and
 *   receives three with MPI_ANY_SOURCE, each source exactly once (one
 *   through wisp's shared memory, two through the MPI).
 *
 * Under wisp each rank thus sends 2 messages through shared memory and 3
 * through the MPI; split.sh reads that from WISP_STATS. Every payload is
 * checked; rank 0 prints one line.
 */
#include <mpi.h>
#include <stdio.h>

#include "check.h" /* tests/check.h */

static int payload(int from, int to, int round)
{
    return 1000 * round + 10 * from + to;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 4);
    if (size != 4)
        MPI_Abort(MPI_COMM_WORLD, 1);

    int peers[2] = {rank ^ 1, rank ^ 2}, in[3], out[3];
    MPI_Request reqs[6];
    for (int i = 0; i < 2; i++) {
        out[i] = payload(rank, peers[i], 1);
        MPI_Irecv(&in[i], 1, MPI_INT, peers[i], 1, MPI_COMM_WORLD, &reqs[i]);
        MPI_Isend(&out[i], 1, MPI_INT, peers[i], 1, MPI_COMM_WORLD, &reqs[2 + i]);
    }
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 2; i++)
        CHECK(in[i] == payload(peers[i], rank, 1));

    int n = 0;
    for (int to = 0; to < size; to++)
        if (to != rank) {
            out[n] = payload(rank, to, 2);
            MPI_Isend(&out[n], 1, MPI_INT, to, 2, MPI_COMM_WORLD, &reqs[n]);
            n++;
        }
    int seen[4] = {0};
    for (int i = 0; i < 3; i++) {
        MPI_Status st;
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size && st.MPI_SOURCE != rank);
        if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size) {
            seen[st.MPI_SOURCE]++;
            CHECK(v == payload(st.MPI_SOURCE, rank, 2));
        }
    }
    MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    for (int r = 0; r < size; r++)
        CHECK(seen[r] == (r != rank));

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("split: %s\n", all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
