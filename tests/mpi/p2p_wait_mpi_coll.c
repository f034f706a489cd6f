/* MPI_Waitall, MPI_Waitsome, MPI_Testsome and MPI_Testall over arrays that
 * mix a persistent collective of the MPI's (MPI_Allreduce_init with a
 * user-defined operation, which wisp leaves to the MPI; not
 * MPI_Allgather_init: MPICH 4.0.2's reads past its receive buffer from its
 * second round on, natively too) with point-to-point requests that wisp's
 * engine serves, the collective not complete yet when the completion call
 * starts (rank 0 starts it late). MPICH 4.0.2's MPI_Testall fails in the
 * call that completes its own persistent collective (MPI_ERR_IN_STATUS,
 * every status MPI_SUCCESS, through MPI_COMM_WORLD's error handler: by
 * default the job ends), natively too, and wisp polled the MPI's part of a
 * mixed MPI_Waitall with it: the wait failed where natively it works
 * (src/p2p/complete.c). Then a generalized request whose query reports an
 * error among wisp's requests: MPI_ERR_IN_STATUS, the error in its
 * status, as natively.
 *
 * Argument `testall` also runs the MPI_Testall loop over the mix (MPICH
 * 4.0.2's own fails it over its requests alone; wisp's mixed one works).
 * Not MPI_Waitany and MPI_Testany: MPICH 4.0.2's report its completed
 * (inactive) persistent collective again and again, and never the other
 * requests, natively too. MPIs without MPI_Allreduce_init (Open MPI 4.1)
 * run only the error case.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mpi/watchdog.h"

enum { N = 1000, REQS = 3 };
static int me, np, failures;

#define WRONG(...)                                                                                 \
    do {                                                                                           \
        fprintf(stderr, __VA_ARGS__);                                                              \
        failures++;                                                                                \
    } while (0)

enum how { WAITALL, WAITSOME, TESTSOME, TESTALL, HOWS };
static const char *names[] = {"MPI_Waitall", "MPI_Waitsome", "MPI_Testsome", "MPI_Testall"};

/* Complete every request of `reqs` the way `how` says; an MPI error code.
 * MPICH 4.0.2's MPI_Testsome reports its persistent collective complete
 * again after it was (inactive: it should skip it), natively too: a
 * request counts once. */
static int complete(enum how how, MPI_Request *reqs, MPI_Status *st)
{
    int rc = MPI_SUCCESS, left = REQS, flag, out, done[REQS];
    bool seen[REQS] = {false};
    MPI_Status one[REQS];
    while (rc == MPI_SUCCESS && left > 0) {
        switch (how) {
        case WAITALL:
            return MPI_Waitall(REQS, reqs, st);
        case TESTALL:
            rc = MPI_Testall(REQS, reqs, &flag, st);
            if (flag)
                left = 0;
            break;
        default:
            rc = how == WAITSOME ? MPI_Waitsome(REQS, reqs, &out, done, one)
                                 : MPI_Testsome(REQS, reqs, &out, done, one);
            if (rc == MPI_SUCCESS && out == MPI_UNDEFINED)
                left = 0;
            for (int k = 0; rc == MPI_SUCCESS && out != MPI_UNDEFINED && k < out; k++)
                if (!seen[done[k]])
                    st[done[k]] = one[k], seen[done[k]] = true, left--;
            break;
        }
    }
    return rc;
}

#if MPI_VERSION >= 4
/* A sum that only the MPI runs (wisp leaves user-defined operations to it). */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void mixed(enum how how)
{
    int *mine = malloc(N * sizeof(int)), *all = malloc(N * sizeof(int));
    int *out = malloc(N * sizeof(int)), *in = malloc(N * sizeof(int));
    MPI_Op sum;
    MPI_Op_create(user_sum, 1, &sum);
    MPI_Request reqs[REQS];
    MPI_Status st[REQS];
    MPI_Allreduce_init(mine, all, N, MPI_INT, sum, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++)
            mine[i] = me * N + i + round, out[i] = me * 7 + i, in[i] = -1, all[i] = -1;
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0)
            sleep_ms(100); /* the others' collective is not complete for a while */
        int from = (me + np - 1) % np, to = (me + 1) % np;
        MPI_Start(&reqs[0]);
        MPI_Irecv(in, N, MPI_INT, from, round, MPI_COMM_WORLD, &reqs[1]);
        MPI_Isend(out, N, MPI_INT, to, round, MPI_COMM_WORLD, &reqs[2]);
        int rc = complete(how, reqs, st);
        if (rc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, text, &len);
            WRONG("p2p_wait_mpi_coll: rank %d: %s over a persistent allreduce and two "
                  "point-to-point requests: %s\n",
                  me, names[how], text);
            MPI_Waitall(REQS, reqs, st); /* whatever is left */
            continue;
        }
        for (int i = 0; i < N; i++)
            if (all[i] != N * np * (np - 1) / 2 + np * (i + round))
                WRONG("p2p_wait_mpi_coll: %s: allreduce element %d is %d\n", names[how], i, all[i]);
        for (int i = 0; i < N; i++)
            if (in[i] != from * 7 + i) {
                WRONG("p2p_wait_mpi_coll: %s: received element %d is %d\n", names[how], i, in[i]);
                break;
            }
        int count;
        MPI_Get_count(&st[1], MPI_INT, &count);
        if (st[1].MPI_SOURCE != from || st[1].MPI_TAG != round || count != N)
            WRONG("p2p_wait_mpi_coll: %s: the receive's status says %d, %d, %d\n", names[how],
                  st[1].MPI_SOURCE, st[1].MPI_TAG, count);
        for (int i = 0; i < REQS; i++)
            if (i && reqs[i] != MPI_REQUEST_NULL)
                WRONG("p2p_wait_mpi_coll: %s: request %d not freed\n", names[how], i);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Op_free(&sum);
    free(mine), free(all), free(out), free(in);
}
#endif

/* A generalized request whose query reports an error class. */
static int query_error(void *extra, MPI_Status *status)
{
    (void)extra;
    MPI_Status_set_elements(status, MPI_BYTE, 0);
    MPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = MPI_ERR_OTHER;
    return MPI_ERR_OTHER;
}
static int free_nothing(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int cancel_nothing(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* MPI_Waitall over a generalized request that failed and two point-to-point
 * requests wisp serves: MPI_ERR_IN_STATUS, the error in the generalized
 * request's status, success in the others'. */
static void real_error(void)
{
    int out = me, in = -1;
    MPI_Request reqs[REQS];
    MPI_Status st[REQS];
    MPI_Grequest_start(query_error, free_nothing, cancel_nothing, NULL, &reqs[0]);
    int from = (me + np - 1) % np, to = (me + 1) % np;
    MPI_Irecv(&in, 1, MPI_INT, from, 99, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(&out, 1, MPI_INT, to, 99, MPI_COMM_WORLD, &reqs[2]);
    MPI_Grequest_complete(reqs[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* the message is there: all complete */
    for (int i = 0; i < REQS; i++)
        st[i].MPI_ERROR = -5;
    int rc = MPI_Waitall(REQS, reqs, st), cls = -1, cls0 = -1;
    MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_IN_STATUS)
        MPI_Error_class(st[0].MPI_ERROR, &cls0);
    /* The others: complete (MPI_SUCCESS) or not yet (MPI_ERR_PENDING, as
     * MPICH says of those after the failed one), then waited for. */
    bool others = true;
    for (int i = 1; i < REQS; i++)
        others = others && (st[i].MPI_ERROR == MPI_SUCCESS || st[i].MPI_ERROR == MPI_ERR_PENDING);
    MPI_Status rest[REQS];
    MPI_Waitall(REQS - 1, reqs + 1, rest);
    if (cls != MPI_ERR_IN_STATUS || cls0 != MPI_ERR_OTHER || !others || in != from)
        WRONG("p2p_wait_mpi_coll: rank %d: MPI_Waitall over a failed generalized request: "
              "class %d (want %d), statuses' errors %d %d %d, received %d\n",
              me, cls, MPI_ERR_IN_STATUS, st[0].MPI_ERROR, st[1].MPI_ERROR, st[2].MPI_ERROR, in);
    if (reqs[0] != MPI_REQUEST_NULL)
        MPI_Request_free(&reqs[0]);
}

int main(int argc, char **argv)
{
    bool testall = argc > 1 && !strcmp(argv[1], "testall");
    watchdog_start("p2p_wait_mpi_coll", 120);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
#if MPI_VERSION >= 4
    for (enum how how = WAITALL; how < HOWS; how++)
        if (how != TESTALL || testall)
            mixed(how);
#else
    if (me == 0)
        printf("p2p_wait_mpi_coll: no MPI_Allreduce_init in this MPI; the error case alone\n");
#endif
    real_error();
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("p2p_wait_mpi_coll: %d wrong\n", total);
    MPI_Finalize();
    return total != 0;
}
