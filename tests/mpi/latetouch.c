/*
 * Issue 49's latetouch: blocks allocated while /dev/shm has room, touched
 * only after another job filled it (tests/shm_full.sh). Each process
 * allocates NBLOCKS blocks of BLOCK_MIB MiB (argv[1]: "malloc", the default,
 * or "alloc_mem": MPI_Alloc_mem, which wisp serves from its heap in every
 * build), calls MPI_Barrier, waits (4 s, or until the file named by
 * $LATETOUCH_GO exists once rank 0 has created $LATETOUCH_READY), writes
 * every byte of every block, and rank 0 sends its first and last blocks to
 * rank 1, which checks every byte. Natively the touch is anonymous memory
 * and works; under wisp the heap must not raise SIGBUS.
 *
 * Prints, from rank 1: "latetouch: block B of M MiB intact" per block
 * received, and from every rank "latetouch rank R: N MiB written". With
 * argv[2] "handler", a SIGBUS handler of the program's, installed after
 * MPI_Init, says so and exits 3 if it ever runs (wisp's faults are not the
 * program's). argv[3]: how many blocks are written (all by default; the
 * others are a pool never used, tests/shm_cgroup.sh), the first and the
 * last of them sent. argv[4] may name "fork": after writing, each rank
 * forks a child that checks every written block ("a child of fork() sees
 * them intact"); and "window": rank 1 then reads three pages
 * of rank 0's first block through a window (MPI_Win_create, fences):
 * "latetouch: window intact" (with WISP_GHOSTS, a ghost may serve it only
 * if it can reach every page; Open MPI cannot create a window at all
 * natively once /dev/shm is full); and "burst": rank 0 then starts BURST
 * sends of 1 MiB at once, more than wisp has rendezvous slots, before
 * rank 1 receives them in the reverse order, "latetouch: burst of BURST
 * intact" (the sender runs out of slots, so the receiver's rescuer copies
 * the waiting messages aside into memory fresh from malloc, on a full
 * /dev/shm).
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { NBLOCKS = 8, BLOCK_MIB = 24, MIB = 1 << 20 };

static unsigned char pattern(int block, size_t i)
{
    return (unsigned char)(block * 37 + i + (i >> 12));
}

static void on_bus(int sig)
{
    static const char line[] = "latetouch: SIGBUS reached the program\n";
    ssize_t ignored = write(STDOUT_FILENO, line, sizeof line - 1);
    (void)ignored, (void)sig;
    _exit(3);
}

static void wait_go(int rank)
{
    const char *ready = getenv("LATETOUCH_READY"), *go = getenv("LATETOUCH_GO");
    if (!ready || !go) {
        sleep(4);
        return;
    }
    if (rank == 0) {
        FILE *f = fopen(ready, "w");
        if (f)
            fclose(f);
    }
    for (int i = 0; i < 600 && access(go, F_OK); i++)
        usleep(100000);
}

/* Rank 1 reads three pages of rank 0's `block` (block 0) through a window. */
static void read_window(unsigned char *block, size_t bytes, int rank, int size)
{
    MPI_Win win;
    MPI_Win_create(block, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    enum { PAGE = 4096 };
    static unsigned char got[3][PAGE];
    size_t at[3] = {0, bytes / 2 + 123, bytes - PAGE};
    if (size > 1 && rank == 1)
        for (int k = 0; k < 3; k++)
            MPI_Get(got[k], PAGE, MPI_BYTE, 0, (MPI_Aint)at[k], PAGE, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    if (size > 1 && rank == 1) {
        size_t bad = 0;
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < PAGE; i++)
                bad += got[k][i] != pattern(0, at[k] + i);
        printf("latetouch: window %s\n", bad ? "CORRUPTED" : "intact");
    }
    MPI_Win_free(&win);
}

enum { BURST = 80, PIECE = MIB, SOURCES = 20 }; /* pieces of block 0's first 20 MiB */

static void burst(unsigned char *block, int rank, int size)
{
    if (size < 2 || rank > 1)
        return;
    if (rank == 0) {
        MPI_Request req[BURST];
        MPI_Status st[BURST]; /* MPI_STATUSES_IGNORE: a warning of GCC's about MPICH's mpi.h */
        for (int k = 0; k < BURST; k++)
            MPI_Isend(block + (size_t)(k % SOURCES) * PIECE, PIECE, MPI_BYTE, 1, 100 + k,
                      MPI_COMM_WORLD, &req[k]);
        MPI_Waitall(BURST, req, st);
        return;
    }
    unsigned char *in = malloc((size_t)BURST * PIECE);
    if (!in) {
        fprintf(stderr, "latetouch rank 1: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(in, 0xff, (size_t)BURST * PIECE);
    for (int k = BURST - 1; k >= 0; k--)
        MPI_Recv(in + (size_t)k * PIECE, PIECE, MPI_BYTE, 0, 100 + k, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)BURST * PIECE; i++)
        bad += in[i] != pattern(0, (size_t)(i / PIECE % SOURCES) * PIECE + i % PIECE);
    printf("latetouch: burst of %d %s\n", BURST, bad ? "CORRUPTED" : "intact");
    free(in);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int alloc_mem = argc > 1 && !strcmp(argv[1], "alloc_mem");
    if (argc > 2 && !strcmp(argv[2], "handler"))
        signal(SIGBUS, on_bus);
    int used = argc > 3 ? atoi(argv[3]) : NBLOCKS;
    if (used < 1 || used > NBLOCKS)
        used = NBLOCKS;
    size_t bytes = (size_t)BLOCK_MIB * MIB;
    unsigned char *block[NBLOCKS];
    for (int b = 0; b < NBLOCKS; b++) {
        if (alloc_mem)
            MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &block[b]);
        else
            block[b] = malloc(bytes);
        if (!block[b]) {
            fprintf(stderr, "latetouch rank %d: no memory\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    wait_go(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = 0; b < used; b++)
        for (size_t i = 0; i < bytes; i++)
            block[b][i] = pattern(b, i);
    printf("latetouch rank %d: %d MiB written\n", rank, used * BLOCK_MIB);
    /* A child of fork() gets a copy of every block (wisp: also of the pages
     * that went private when /dev/shm was full). */
    const char *extra = argc > 4 ? argv[4] : "";
    pid_t child = strstr(extra, "fork") ? fork() : -2;
    if (child == 0) {
        for (int b = 0; b < used; b++)
            for (size_t i = 0; i < bytes; i += 4096)
                if (block[b][i] != pattern(b, i))
                    _exit(1);
        _exit(0);
    }
    int status = 1;
    if (child > 0)
        waitpid(child, &status, 0);
    if (child != -2)
        printf("latetouch rank %d: a child of fork() sees them %s\n", rank,
               status == 0 ? "intact" : "CORRUPTED");
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    int sent[2] = {0, used - 1};
    if (size > 1 && rank == 0) {
        for (int k = 0; k < 2; k++)
            MPI_Send(block[sent[k]], BLOCK_MIB * MIB, MPI_BYTE, 1, k, MPI_COMM_WORLD);
    } else if (size > 1 && rank == 1) {
        for (int k = 0; k < 2; k++) {
            /* Into a block of its own, overwritten: every byte must arrive. */
            memset(block[k], 0xff, bytes);
            MPI_Recv(block[k], BLOCK_MIB * MIB, MPI_BYTE, 0, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            size_t bad = 0;
            for (size_t i = 0; i < bytes; i++)
                bad += block[k][i] != pattern(sent[k], i);
            printf("latetouch: block %d of %d MiB %s\n", sent[k], BLOCK_MIB,
                   bad ? "CORRUPTED" : "intact");
        }
    }
    if (strstr(extra, "window"))
        read_window(block[0], bytes, rank, size);
    if (strstr(extra, "burst"))
        burst(block[0], rank, size);
    for (int b = 0; b < NBLOCKS; b++) {
        if (alloc_mem)
            MPI_Free_mem(block[b]);
        else
            free(block[b]);
    }
    MPI_Finalize();
    return 0;
}
