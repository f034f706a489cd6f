/*
 * A preloaded shim for tests: in the world rank named by SLOW_AGREEMENT_RANK,
 * wisp's context agreement (an in-place MPI_BAND allreduce of MPI_UINT64_T
 * words) returns 200 ms late, so that a peer that finished creating a
 * communicator sends on it while this process is still creating it.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static int world_rank(void)
{
    const char *r = getenv("PMI_RANK");
    if (!r)
        r = getenv("OMPI_COMM_WORLD_RANK");
    return r ? atoi(r) : -1;
}

__attribute__((visibility("default"))) int PMPI_Allreduce(const void *sendbuf, void *recvbuf,
                                                          int count, MPI_Datatype datatype,
                                                          MPI_Op op, MPI_Comm comm)
{
    static int (*real)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
    if (!real)
        real = (int (*)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm))dlsym(
            RTLD_NEXT, "PMPI_Allreduce");
    int rc = real(sendbuf, recvbuf, count, datatype, op, comm);
    const char *slow = getenv("SLOW_AGREEMENT_RANK");
    if (slow && sendbuf == MPI_IN_PLACE && datatype == MPI_UINT64_T && op == MPI_BAND &&
        world_rank() == atoi(slow))
        nanosleep(&(struct timespec){0, 200000000}, NULL);
    return rc;
}
