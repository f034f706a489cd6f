/*
 * A pending MPI_ANY_SOURCE receive on a communicator that spans nodes must
 * not deadlock against a blocking call that only the MPI serves. Rank 0
 * posts the wildcard receive of a large message (the MPI's rendezvous: its
 * sender blocks until the receiver's MPI matches it), then enters the call;
 * the last rank sends, then enters the same call (any others only enter
 * it). wisp keeps such a receive in its own queue and asks the MPI for it
 * only from its own calls, so around each of these it must lend the
 * receive to the MPI (before: a hang). Run with 3 processes and
 * WISP_VNODE_SIZE=2: the communicator is served (ranks 0 and 1 share a
 * node) and the sender is on the other node.
 * Steps: MPI_Comm_dup, MPI_Comm_split, MPI_Cart_create, MPI_Win_create and
 * MPI_Win_fence on private memory, MPI_Win_free, MPI_File_open/close.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

enum { BIG = 1 << 20 }; /* ints: 4 MiB, far above any eager limit */

static int rank, size;
static int *big;
static MPI_Win win;
static int win_mem[4];
static char path[64];

static void comm_dup(void)
{
    MPI_Comm c;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &c) == MPI_SUCCESS);
    MPI_Comm_free(&c);
}

static void comm_split(void)
{
    MPI_Comm c;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c) == MPI_SUCCESS);
    MPI_Comm_free(&c);
}

static void cart_create(void)
{
    MPI_Comm c;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){size}, (int[]){0}, 0, &c) == MPI_SUCCESS);
    MPI_Comm_free(&c);
}

static void win_create_fence(void)
{
    CHECK(MPI_Win_create(win_mem, sizeof win_mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) ==
          MPI_SUCCESS);
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
}

static void win_free(void)
{
    CHECK(MPI_Win_fence(0, win) == MPI_SUCCESS);
    CHECK(MPI_Win_free(&win) == MPI_SUCCESS);
}

static void file_open_close(void)
{
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, path,
                        MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS);
    CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

static const struct {
    const char *name;
    void (*call)(void);
} steps[] = {
    {"MPI_Comm_dup", comm_dup},       {"MPI_Comm_split", comm_split},
    {"MPI_Cart_create", cart_create}, {"MPI_Win_create + MPI_Win_fence", win_create_fence},
    {"MPI_Win_free", win_free},       {"MPI_File_open + MPI_File_close", file_open_close},
};

static volatile sig_atomic_t current;

static void hang(int sig)
{
    (void)sig;
    const char *a = "wildcard_blocking: hangs in ", *name = steps[current].name;
    if (write(2, a, strlen(a)) < 0 || write(2, name, strlen(name)) < 0 || write(2, "\n", 1) < 0)
        _exit(3);
    _exit(3);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "wildcard_blocking: needs 2 processes or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/wisp-wildcard-blocking-%d", pid);
    big = malloc(BIG * sizeof *big);
    signal(SIGALRM, hang);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        current = (sig_atomic_t)i;
        alarm(30); /* a hang is the failure this test looks for: say where */
        if (rank == 0) {
            MPI_Request r;
            MPI_Status st;
            memset(big, 0, BIG * sizeof *big);
            MPI_Irecv(big, BIG, MPI_INT, MPI_ANY_SOURCE, (int)i, MPI_COMM_WORLD, &r);
            steps[i].call();
            CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            CHECK(st.MPI_SOURCE == size - 1 && big[0] == (int)i &&
                  big[BIG - 1] == (int)i + BIG - 1);
        } else if (rank == size - 1) {
            for (int k = 0; k < BIG; k++)
                big[k] = (int)i + k;
            MPI_Send(big, BIG, MPI_INT, 0, (int)i, MPI_COMM_WORLD);
            steps[i].call();
        } else {
            steps[i].call();
        }
        if (failures)
            fprintf(stderr, "wildcard_blocking: rank %d: %s failed\n", rank, steps[i].name);
    }
    alarm(0);
    free(big);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wildcard_blocking: %s\n", all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
