/*
 * The fast paths of polls and of calls that carry nothing (issue 10), with
 * MPI's semantics: sends to and probes of MPI_PROC_NULL, probes that wisp
 * answers without calling the MPI (every member of the communicator on this
 * node) and still find local messages and still let the MPI move its own,
 * wildcard probes that the MPI must answer (a remote sender under
 * WISP_VNODE_SIZE=1), MPI_Testany over requests all the MPI's or all
 * wisp's, and persistent requests and MPI_Isendrecv on communicators wisp
 * leaves to the MPI (MPI_COMM_SELF and its duplicates, with no peer).
 *
 * Usage: p2p_polling [rule...]     (any number of processes; all rules by default)
 */
#include <mpi.h>

#include <stdlib.h>
#include <string.h>

#include "../check.h"

static int rank, size;

static int count_of(const MPI_Status *st, MPI_Datatype type)
{
    int n = -1;
    MPI_Get_count(st, type, &n);
    return n;
}

static int is_proc_null(const MPI_Status *st)
{
    return st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG &&
           count_of(st, MPI_INT) == 0;
}

/* Every send mode to MPI_PROC_NULL succeeds; every probe of it finds the
 * empty message at once; on a served communicator, a self-only one and one
 * the MPI made without wisp. */
static void rule_proc_null(void)
{
    MPI_Comm idup, comms[3] = {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL};
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    comms[2] = idup;
    int x = 7;
    for (int c = 0; c < 3; c++) {
        CHECK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, comms[c]) == MPI_SUCCESS);
        CHECK(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, comms[c]) == MPI_SUCCESS);
        CHECK(MPI_Bsend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, comms[c]) == MPI_SUCCESS);
        CHECK(MPI_Rsend(&x, 1, MPI_INT, MPI_PROC_NULL, 1, comms[c]) == MPI_SUCCESS);
        MPI_Status st;
        int flag = 0;
        memset(&st, 0x55, sizeof st);
        CHECK(MPI_Iprobe(MPI_PROC_NULL, 3, comms[c], &flag, &st) == MPI_SUCCESS);
        CHECK(flag && is_proc_null(&st));
        memset(&st, 0x55, sizeof st);
        CHECK(MPI_Probe(MPI_PROC_NULL, MPI_ANY_TAG, comms[c], &st) == MPI_SUCCESS);
        CHECK(is_proc_null(&st));
        MPI_Message m = MPI_MESSAGE_NULL;
        flag = 0;
        CHECK(MPI_Improbe(MPI_PROC_NULL, 3, comms[c], &flag, &m, &st) == MPI_SUCCESS);
        CHECK(flag && m == MPI_MESSAGE_NO_PROC && is_proc_null(&st));
        CHECK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st) == MPI_SUCCESS && x == 7);
        CHECK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, comms[c], &st) == MPI_SUCCESS);
        CHECK(is_proc_null(&st) && x == 7);
    }
    MPI_Comm_free(&idup);
}

/* Poll with MPI_Iprobe until a message matches; returns its status. */
static MPI_Status iprobe_until(int source, int tag, MPI_Comm comm)
{
    MPI_Status st;
    for (int flag = 0; !flag;)
        MPI_Iprobe(source, tag, comm, &flag, &st);
    return st;
}

/* Probes see messages to self (served communicators: wisp's queues; self
 * only: the MPI's) and from a peer, by Iprobe and by Probe. */
static void rule_probe_local(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Comm comms[3] = {MPI_COMM_WORLD, MPI_COMM_SELF, dup};
    for (int c = 0; c < 3; c++) {
        int me, x = 40 + c, y = 0;
        MPI_Comm_rank(comms[c], &me);
        MPI_Request r;
        MPI_Isend(&x, 1, MPI_INT, me, 11, comms[c], &r);
        /* (tag 11: the peer's message below may already be there) */
        MPI_Status st = iprobe_until(MPI_ANY_SOURCE, 11, comms[c]);
        CHECK(st.MPI_SOURCE == me && st.MPI_TAG == 11 && count_of(&st, MPI_INT) == 1);
        memset(&st, 0, sizeof st);
        MPI_Probe(me, 11, comms[c], &st);
        CHECK(st.MPI_SOURCE == me && st.MPI_TAG == 11);
        MPI_Recv(&y, 1, MPI_INT, me, 11, comms[c], &st);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(y == x);
        int flag = 1;
        MPI_Iprobe(MPI_ANY_SOURCE, 11, comms[c], &flag, &st);
        CHECK(!flag); /* taken */
    }
    MPI_Comm_free(&dup);
    /* From the pair's other rank: a wildcard probe polled until it comes
     * (with WISP_VNODE_SIZE=1 from another node: the MPI must be asked). */
    int peer = rank ^ 1;
    if (peer < size) {
        int x = 100 + rank, y = 0;
        if (rank % 2)
            MPI_Send(&x, 1, MPI_INT, peer, 12, MPI_COMM_WORLD);
        else {
            MPI_Status st = iprobe_until(MPI_ANY_SOURCE, 12, MPI_COMM_WORLD);
            CHECK(st.MPI_SOURCE == peer && count_of(&st, MPI_INT) == 1);
            MPI_Recv(&y, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(y == 100 + peer);
        }
        if (rank % 2 == 0) /* and back, found by a blocking probe */
            MPI_Send(&x, 1, MPI_INT, peer, 13, MPI_COMM_WORLD);
        else {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE == peer);
            MPI_Recv(&y, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(y == 100 + peer);
        }
    }
}

/* A loop of MPI_Iprobe on the world (which wisp may answer without calling
 * the MPI) must still let the MPI move a large message of a communicator
 * only the MPI serves (MPI_Comm_idup): the peer sends on the world only
 * after it received that one. */
static void rule_probe_progress(void)
{
    MPI_Comm idup;
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &idup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    enum { N = 1 << 20 };
    int *big = malloc(N * sizeof *big), peer = rank ^ 1;
    CHECK(big != NULL);
    if (big && peer < size) {
        if (rank % 2 == 0) {
            for (int i = 0; i < N; i++)
                big[i] = i;
            MPI_Isend(big, N, MPI_INT, peer, 21, idup, &r);
            MPI_Status st = iprobe_until(MPI_ANY_SOURCE, 22, MPI_COMM_WORLD);
            CHECK(st.MPI_SOURCE == peer);
            int ok = 0;
            MPI_Recv(&ok, 1, MPI_INT, peer, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(ok == 1);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(big, N, MPI_INT, peer, 21, idup, MPI_STATUS_IGNORE);
            int ok = big[0] == 0 && big[N - 1] == N - 1;
            MPI_Send(&ok, 1, MPI_INT, peer, 22, MPI_COMM_WORLD);
        }
    }
    free(big);
    MPI_Comm_free(&idup);
}

/* MPI_Testany over 8 pending receives: nothing while nothing came, then
 * the one that matched, with its status; over the MPI's (MPI_COMM_SELF) and
 * over wisp's where it serves the world. Then over null requests only. */
static void rule_testany(void)
{
    enum { K = 8 };
    MPI_Comm comms[2] = {MPI_COMM_SELF, MPI_COMM_WORLD};
    for (int c = 0; c < 2; c++) {
        int me, in[K], x = 77;
        MPI_Comm_rank(comms[c], &me);
        MPI_Request reqs[K];
        for (int i = 0; i < K; i++)
            MPI_Irecv(&in[i], 1, MPI_INT, me, 300 + i, comms[c], &reqs[i]);
        int index = -5, flag = 1;
        MPI_Status st;
        for (int i = 0; i < 1000; i++) {
            MPI_Testany(K, reqs, &index, &flag, &st);
            if (flag)
                break;
        }
        CHECK(!flag && index == MPI_UNDEFINED);
        MPI_Send(&x, 1, MPI_INT, me, 303, comms[c]);
        for (flag = 0; !flag;)
            MPI_Testany(K, reqs, &index, &flag, &st);
        CHECK(index == 3 && reqs[3] == MPI_REQUEST_NULL && in[3] == 77);
        CHECK(st.MPI_SOURCE == me && st.MPI_TAG == 303 && count_of(&st, MPI_INT) == 1);
        for (int i = 0; i < K; i++)
            if (i != 3) {
                MPI_Cancel(&reqs[i]);
                MPI_Wait(&reqs[i], &st);
                int cancelled = 0;
                MPI_Test_cancelled(&st, &cancelled);
                CHECK(cancelled);
            }
        index = -5;
        flag = 0;
        MPI_Testany(K, reqs, &index, &flag, &st);
        CHECK(flag && index == MPI_UNDEFINED);
    }
}

/* Persistent requests and MPI_Isendrecv on a communicator that wisp leaves
 * to the MPI: they work after the user freed the communicator, and
 * MPI_Start of an active one is reported through its error handler. */
static int handler_calls;
static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handler_calls++;
}

static void rule_persistent_self(void)
{
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    int x = 5, y = 0;
    MPI_Request r[2];
    MPI_Recv_init(&y, 1, MPI_INT, 0, 4, dup, &r[0]);
    MPI_Send_init(&x, 1, MPI_INT, 0, 4, dup, &r[1]);
    MPI_Comm_free(&dup); /* the requests keep it */
    for (int round = 0; round < 3; round++, x++) {
        MPI_Startall(2, r);
        MPI_Status st[2];
        MPI_Waitall(2, r, st);
        CHECK(y == x && st[0].MPI_SOURCE == 0 && st[0].MPI_TAG == 4);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);

    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_SELF, &dup);
    MPI_Comm_create_errhandler(count_error, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Recv_init(&y, 1, MPI_INT, 0, 6, dup, &r[0]);
    MPI_Start(&r[0]);
    handler_calls = 0;
    int rc = MPI_Start(&r[0]); /* erroneous: wisp reports it (MPICH alone aborts) */
    if (rc != MPI_SUCCESS)
        CHECK(handler_calls == 1);
    MPI_Send(&x, 1, MPI_INT, 0, 6, dup);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(y == x);
    MPI_Request_free(&r[0]);
#if MPI_VERSION >= 4
    int out = 9, in = 0;
    MPI_Status st;
    MPI_Isendrecv(&out, 1, MPI_INT, 0, 8, &in, 1, MPI_INT, MPI_ANY_SOURCE, 8, dup, &r[0]);
    MPI_Wait(&r[0], &st);
    CHECK(in == 9 && st.MPI_SOURCE == 0 && st.MPI_TAG == 8 && count_of(&st, MPI_INT) == 1);
#endif
    MPI_Comm_free(&dup);
    MPI_Errhandler_free(&eh);
}

static const struct {
    const char *name;
    void (*run)(void);
} rules[] = {
    {"proc_null", rule_proc_null},
    {"probe_local", rule_probe_local},
    {"probe_progress", rule_probe_progress},
    {"testany", rule_testany},
    {"persistent_self", rule_persistent_self},
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char bsend_space[1024];
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    int n = (int)(sizeof rules / sizeof rules[0]), ran = 0;
    for (int i = 0; i < n; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= !strcmp(argv[a], rules[i].name);
        if (!wanted)
            continue;
        int before = failures;
        rules[i].run();
        MPI_Barrier(MPI_COMM_WORLD);
        ran++;
        if (rank == 0)
            printf("p2p_polling: %-16s %s\n", rules[i].name, failures == before ? "ok" : "FAILED");
    }
    void *buf;
    int bsize;
    MPI_Buffer_detach(&buf, &bsize);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p_polling: %d ranks, %d rules, %s\n", size, ran, all ? "FAILED" : "OK");
    MPI_Finalize();
    return all != 0 || ran == 0;
}
