/*
 * A pending MPI_ANY_SOURCE receive and a collective that wisp serves through
 * the shared heap must not deadlock (docs/coll.md, "Waiting"). Four
 * processes, WISP_VNODE_SIZE=2: nodes {0, 1} and {2, 3}, and a communicator
 * per node, which wisp serves. Rank 0 posts a wildcard receive of a large
 * message on MPI_COMM_WORLD (wisp asks the MPI for it with matched probes,
 * from its own calls), then enters the collective on its node's
 * communicator; rank 1 first waits for a message from rank 2; rank 2 sends
 * the large message synchronously to rank 0 (it completes only once rank 0
 * matched it), then rank 1's; rank 3 enters its node's collective. Unless
 * rank 0's wait inside the collective asks the MPI for the wildcard's
 * message, rank 0 waits for rank 1, rank 1 for rank 2 and rank 2 for rank 0.
 * Once for each of MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, small
 * and large (the staged path); the program passes natively too.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h" /* IWYU pragma: keep */
#include "wisp.h"

enum { BIG = 1 << 18, DATA = 1 << 16 }; /* ints: 1 MiB, far above any eager limit */

static int me, np;
static MPI_Comm node;
static int *data, *result;

static void collective(int which, int count)
{
    int rank;
    MPI_Comm_rank(node, &rank);
    for (int i = 0; i < count; i++)
        data[i] = rank + i;
    switch (which) {
    case 0:
        CHECK(MPI_Barrier(node) == MPI_SUCCESS);
        break;
    case 1:
        CHECK(MPI_Bcast(data, count, MPI_INT, 1, node) == MPI_SUCCESS);
        for (int i = 0; i < count; i++)
            CHECK(data[i] == 1 + i);
        break;
    case 2:
        CHECK(MPI_Reduce(data, result, count, MPI_INT, MPI_SUM, 0, node) == MPI_SUCCESS);
        for (int i = 0; i < count && rank == 0; i++)
            CHECK(result[i] == 1 + 2 * i);
        break;
    default:
        CHECK(MPI_Allreduce(data, result, count, MPI_INT, MPI_SUM, node) == MPI_SUCCESS);
        for (int i = 0; i < count; i++)
            CHECK(result[i] == 1 + 2 * i);
    }
}

int main(int argc, char **argv)
{
    watchdog_start("coll_lent", 100);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 4) {
        if (me == 0)
            fprintf(stderr, "coll_lent: run with 4 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_split(MPI_COMM_WORLD, me / 2, me, &node);
    int *big = malloc(BIG * sizeof(int));
    data = malloc(DATA * sizeof(int));
    result = malloc(DATA * sizeof(int));
    for (int i = 0; i < 3; i++) /* past WISP_COLL_AFTER: the next ones are wisp's */
        MPI_Barrier(node);
    unsigned long long before = wisp_coll_counter("served");
    int rounds = 0;
    for (int which = 0; which < 4; which++)
        for (int size = 0; size < 2; size++) {
            int count = size ? DATA : 1;
            int tag = 10 + rounds++, token = 0;
            MPI_Request req;
            MPI_Status st;
            switch (me) {
            case 0:
                MPI_Irecv(big, BIG, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &req);
                collective(which, count);
                MPI_Wait(&req, &st);
                CHECK(st.MPI_SOURCE == 2 && big[0] == tag && big[BIG - 1] == -tag);
                break;
            case 1:
                MPI_Recv(&token, 1, MPI_INT, 2, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(token == tag);
                collective(which, count);
                break;
            case 2:
                big[0] = tag;
                big[BIG - 1] = -tag;
                MPI_Ssend(big, BIG, MPI_INT, 0, tag, MPI_COMM_WORLD);
                token = tag;
                MPI_Send(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
                collective(which, count);
                break;
            default:
                collective(which, count);
            }
        }
    unsigned long long served = wisp_coll_counter("served") - before;
    if (argc > 1 && !strcmp(argv[1], "served"))
        CHECK(served == 8); /* every one of them through the heap */
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("coll_lent: %s\n", all ? "FAILED" : "ok");
    MPI_Comm_free(&node);
    free(big);
    free(data);
    free(result);
    MPI_Finalize();
    return all ? 1 : 0;
}
