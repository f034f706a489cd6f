/*
 * Each protocol of the point-to-point engine is chosen where it should be and
 * copies the payload as often as it should, by wisp's own counters
 * (wisp_shm_counter): a send buffer in the shared heap is copied once (single
 * copy), a large private one once too (cross-memory attach, where the kernel
 * lets processes read each other: not with Yama's ptrace_scope >= 1, nor
 * with argument "nocma", for WISP_SHM_CMA=off) or else twice (staged); from
 * WISP_SHM_SYNERGY on, by both sides together (into a private receive
 * buffer only with cross-memory attach); a small message rides in the
 * fastbox ring.
 * A blocking send of a heap buffer that fits the staging area completes even
 * before its receive is posted (the sender takes it back and stages it), as
 * with an MPI's eager protocol: programs that rely on that keep working.
 * Immediate sends return distinct handles, though they complete at once.
 * Two processes of one node; argument "off": WISP_SHM=off, nothing counted.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ptrace_scope.h"
#include "wisp.h"

/* EAGER: a single-copy size that both MPIs also send eagerly (WISP_SHM=off). */
enum { BIG = 1 << 20, HUGE = 4 << 20, EAGER = 1024 };

static char private_buf[HUGE]; /* not in the heap: static storage */

struct counts {
    unsigned long long immediate, staged, single_copy, synergistic, copies;
};

static struct counts now(void)
{
    return (struct counts){wisp_shm_counter("immediate"), wisp_shm_counter("staged"),
                           wisp_shm_counter("single_copy"), wisp_shm_counter("synergistic"),
                           wisp_shm_counter("copies")};
}

static int pattern_ok(const char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)(i * 7 + (size_t)seed))
            return 0;
    return 1;
}

static void fill(char *p, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (char)(i * 7 + (size_t)seed);
}

/* Ask rank 0 for one message (so nothing else arrives meanwhile), receive
 * it into `buf` and check what it cost. */
static void expect(char *buf, size_t n, int tag, struct counts want)
{
    memset(buf, 0, n);
    struct counts before = now();
    MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    struct counts after = now();
    CHECK(pattern_ok(buf, n, tag));
    CHECK(after.immediate - before.immediate == want.immediate);
    CHECK(after.staged - before.staged == want.staged);
    CHECK(after.single_copy - before.single_copy == want.single_copy);
    CHECK(after.synergistic - before.synergistic == want.synergistic);
    CHECK(after.copies - before.copies == want.copies);
    if (failures)
        fprintf(stderr,
                "shm_copies: message with tag %d: %llu immediate, %llu staged, %llu single "
                "copy, %llu synergistic, %llu copies\n",
                tag, after.immediate - before.immediate, after.staged - before.staged,
                after.single_copy - before.single_copy, after.synergistic - before.synergistic,
                after.copies - before.copies);
}

/* Immediate sends complete at once, each with a handle of its own (MPICH
 * hands out one shared handle for its completed eager sends, so this is
 * wisp's behaviour, not the standard's). */
enum { WINDOW = 16 };
static void immediate_handles(int on)
{
    MPI_Request req[WINDOW];
    for (int i = 0; i < WINDOW; i++)
        MPI_Isend(private_buf, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, &req[i]);
    int distinct = 1;
    for (int i = 0; i < WINDOW; i++)
        for (int j = 0; j < i; j++)
            distinct &= req[i] != req[j];
    if (on)
        CHECK(distinct);
    int flag = 0;
    MPI_Test(&req[0], &flag, MPI_STATUS_IGNORE);
    CHECK(!on || (flag && req[0] == MPI_REQUEST_NULL));
    MPI_Status st[WINDOW];
    CHECK(MPI_Waitall(WINDOW, req, st) == MPI_SUCCESS);
    for (int i = 0; i < WINDOW; i++)
        CHECK(req[i] == MPI_REQUEST_NULL);
}

/* wisp's own copy of a message for a local peer cannot be allocated (a
 * buffered send of 64 GiB, more than the machine has): the error is
 * MPI_ERR_NO_MEM through the communicator's error handler, once; the MPI,
 * where the receiver would never look, does not get the message. */
static int handler_calls, handler_class;
static void count_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void no_memory(int rank)
{
    MPI_Comm comm;
    MPI_Errhandler handler;
    MPI_Datatype block;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(count_error, &handler);
    MPI_Comm_set_errhandler(comm, handler);
    MPI_Type_contiguous(64, MPI_BYTE, &block);
    MPI_Type_commit(&block);
    if (rank == 0) {
        int rc = MPI_Bsend(private_buf, 1 << 30, block, 1, 8, comm), cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_NO_MEM && handler_calls == 1 && handler_class == MPI_ERR_NO_MEM);
    }
    MPI_Type_free(&block);
    MPI_Errhandler_free(&handler);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int on = !(argc > 1 && !strcmp(argv[1], "off"));
    int cma = on && !(argc > 1 && !strcmp(argv[1], "nocma")) && ptrace_open();
    char *shared;
    MPI_Alloc_mem(HUGE, MPI_INFO_NULL, &shared); /* in the heap, also in the sanitizer build */
    CHECK(size == 2 && wisp_node_size() == 2);
    CHECK(wisp_heap_contains(shared) == on);
    if (rank == 0) {
        struct {
            char *buf;
            size_t n;
        } sends[] = {{shared, BIG}, {private_buf, BIG}, {private_buf, 8}, {shared, HUGE}};
        for (int tag = 1; tag <= 4; tag++) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fill(sends[tag - 1].buf, sends[tag - 1].n, tag);
            MPI_Send(sends[tag - 1].buf, (int)sends[tag - 1].n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
        }
        /* Nothing more until rank 1 has counted tag 4: the messages below
         * would otherwise arrive while it still waits for that one. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* Tag 5 is received only after tag 6, which follows the return of
         * this MPI_Send and the reuse of its buffer. */
        fill(shared, EAGER, 5);
        MPI_Send(shared, EAGER, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
        fill(shared, EAGER, 9);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
        immediate_handles(on);
    } else {
        struct counts none = {0};
        /* 1 MiB reaches WISP_SHM_SYNERGY: sender and receiver copy together,
         * into a private receive buffer by cross-memory attach. */
        struct counts staged = {.staged = 1, .copies = 2}, once = {.single_copy = 1, .copies = 1},
                      together = {.synergistic = 1, .copies = 1};
        expect(private_buf, BIG, 1, !on ? none : cma ? together : once);
        expect(private_buf, BIG, 2, !on ? none : cma ? together : staged);
        expect(private_buf, 8, 3, on ? (struct counts){.immediate = 1, .copies = 2} : none);
        expect(shared, HUGE, 4, on ? (struct counts){.synergistic = 1, .copies = 1} : none);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        struct counts before = now();
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(private_buf, EAGER, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        struct counts after = now();
        CHECK(pattern_ok(private_buf, EAGER, 5));
        CHECK(after.staged - before.staged == (on ? 1u : 0u)); /* taken back and staged */
        CHECK(after.single_copy - before.single_copy == 0);
        for (int i = 0; i < WINDOW; i++)
            MPI_Recv(private_buf, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (on)
        no_memory(rank);
    MPI_Free_mem(shared);
    MPI_Finalize();
    return failures != 0;
}
