/*
 * Windows over communicators with the same processes in different orders,
 * alive at once: MPI_COMM_WORLD, a duplicate, the world in reverse order,
 * and the halves (even and odd ranks). The ghosts keep the internal
 * communicator of the first window over every process (src/ghost/icomm.c)
 * and use it again only for the same member list; a window over the
 * reversed world must get its own, or its ranks would name the wrong
 * processes where operations go to the target itself (WISP_ASYNC=off or
 * auto: with a ghost in between only the ghosts' ranks count). Each round creates the windows in
 * one order, puts each process's tag into its right neighbour's memory in every window (passive
 * target), checks what arrived and what a get reads back, and frees them
 * in another order.
 *
 * usage: ghost_icomm [rounds]   (default 4)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h" /* tests/check.h */

enum { NCOMMS = 4 };

static int tag_of(int world_rank, int c, int round)
{
    return 1000000 * (round + 1) + 1000 * c + world_rank;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 4;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comms[NCOMMS];
    comms[0] = MPI_COMM_WORLD;
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[2]); /* reversed */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &comms[3]);

    for (int round = 0; round < rounds; round++) {
        MPI_Win win[NCOMMS];
        int *mem[NCOMMS];
        for (int k = 0; k < NCOMMS; k++) { /* round 0: 0 1 2 3, round 1: 1 2 3 0, ... */
            int c = (k + round) % NCOMMS;
            MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, comms[c], &mem[c],
                             &win[c]);
            mem[c][0] = mem[c][1] = -1;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int c = 0; c < NCOMMS; c++) {
            int crank, csize;
            MPI_Comm_rank(comms[c], &crank);
            MPI_Comm_size(comms[c], &csize);
            int right = (crank + 1) % csize, tag = tag_of(rank, c, round);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win[c]);
            MPI_Put(&tag, 1, MPI_INT, right, 0, 1, MPI_INT, win[c]);
            MPI_Win_unlock(right, win[c]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int c = 0; c < NCOMMS; c++) {
            int crank, csize, left_world;
            MPI_Comm_rank(comms[c], &crank);
            MPI_Comm_size(comms[c], &csize);
            MPI_Group cg, wg;
            int left = (crank + csize - 1) % csize;
            MPI_Comm_group(comms[c], &cg);
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_translate_ranks(cg, 1, &left, wg, &left_world);
            MPI_Group_free(&cg);
            MPI_Group_free(&wg);
            MPI_Win_lock(MPI_LOCK_SHARED, crank, 0, win[c]);
            int here = mem[c][0];
            MPI_Win_unlock(crank, win[c]);
            CHECK(here == tag_of(left_world, c, round));
            /* Read back what the right neighbour received: this process's tag. */
            int right = (crank + 1) % csize, got = -1;
            MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win[c]);
            MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win[c]);
            MPI_Win_unlock(right, win[c]);
            CHECK(got == tag_of(rank, c, round));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int k = NCOMMS - 1; k >= 0; k--)
            MPI_Win_free(&win[(k + 2 * round) % NCOMMS]);
    }
    for (int c = 1; c < NCOMMS; c++)
        MPI_Comm_free(&comms[c]);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ghost_icomm: %d rounds of %d windows on %d processes: %s\n", rounds, NCOMMS, size,
               all ? "FAILED" : "OK");
    MPI_Finalize();
    return all ? 1 : 0;
}
