/*
 * buffer_flush: MPI-4.1's buffer flushes (as mpi4py's test_msgspec calls
 * them). Buffered sends to the other process of a node, then
 * MPI_Buffer_flush, MPI_Buffer_iflush and, with a buffer attached to a
 * communicator, MPI_Comm_iflush_buffer and MPI_Comm_flush_buffer, each
 * request waited for; the receiver checks every message. Built only over an
 * MPI that has MPI_Buffer_iflush (MPICH 5). Designed for 2 processes.
 */
#include <mpi.h>

#include "check.h"

#define W              MPI_COMM_WORLD
#define N              4
#define CHECK_RC(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)

static void bsend_round(MPI_Comm comm, int base)
{
    for (int i = 0; i < N; i++) {
        int v = base + i;
        MPI_Bsend(&v, 1, MPI_INT, 1, i, comm);
    }
}

static void recv_round(MPI_Comm comm, int base, const char *what)
{
    int ok = 1;
    for (int i = 0; i < N; i++) {
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, 0, i, comm, MPI_STATUS_IGNORE);
        CHECK_INT(v, base + i);
        ok &= v == base + i;
    }
    if (ok)
        tr_print_ranks("%s: %d messages", what, N);
    else
        tr_print_ranks("%s: wrong", what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tr_begin("buffer_flush", 2, 2);
    static char buffer[N * (MPI_BSEND_OVERHEAD + 64)];
    MPI_Buffer_attach(buffer, (int)sizeof buffer);
    MPI_Request req = MPI_REQUEST_NULL;

    if (tr_rank == 0) {
        bsend_round(W, 100);
        CHECK_RC(MPI_Buffer_flush());
        bsend_round(W, 200);
        CHECK_RC(MPI_Buffer_iflush(&req));
        CHECK_RC(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(req == MPI_REQUEST_NULL, "iflush's request not freed");
    }
    if (tr_rank == 1) {
        recv_round(W, 100, "Buffer_flush");
        recv_round(W, 200, "Buffer_iflush");
    } else {
        tr_print_ranks("sent");
        tr_print_ranks("sent");
    }

    /* A buffer of the communicator's own. */
    MPI_Comm dup;
    MPI_Comm_dup(W, &dup);
    static char cbuffer[N * (MPI_BSEND_OVERHEAD + 64)];
    CHECK_RC(MPI_Comm_attach_buffer(dup, cbuffer, (int)sizeof cbuffer));
    if (tr_rank == 0) {
        bsend_round(dup, 300);
        CHECK_RC(MPI_Comm_iflush_buffer(dup, &req));
        int done = 0;
        while (!done)
            CHECK_RC(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        bsend_round(dup, 400);
        CHECK_RC(MPI_Comm_flush_buffer(dup));
    }
    if (tr_rank == 1) {
        recv_round(dup, 300, "Comm_iflush_buffer");
        recv_round(dup, 400, "Comm_flush_buffer");
    } else {
        tr_print_ranks("sent");
        tr_print_ranks("sent");
    }
    void *addr;
    int size;
    CHECK_RC(MPI_Comm_detach_buffer(dup, &addr, &size));
    MPI_Comm_free(&dup);
    MPI_Buffer_detach(&addr, &size);
    return tr_finish();
}
