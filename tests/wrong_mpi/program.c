/*
 * A program whose output is the same on every run (tests/wrong_mpi.sh):
 * each rank's lines, a sum over the world, who defines MPI_Comm_rank (the
 * MPI's library, or libwisp where it serves), the LD_PRELOAD the program
 * sees and that a child it forks and execs sees. Built with -DPLUGIN it is
 * a library whose wrong_mpi_main() a program without MPI calls after
 * dlopen, as python calls mpi4py (tests/wrong_mpi/host.c).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef PLUGIN
#define MAIN wrong_mpi_main
#else
#define MAIN main
#endif

int MAIN(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    Dl_info info;
    const char *by = "?";
    if (dladdr(dlsym(RTLD_DEFAULT, "MPI_Comm_rank"), &info) && info.dli_fname)
        by = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1 : info.dli_fname;
    const char *preload = getenv("LD_PRELOAD");
    printf("rank %d of %d: sum of ranks %d; MPI_Comm_rank from %s; LD_PRELOAD=%s\n", rank, size,
           sum, by, preload ? preload : "(unset)");
    fflush(stdout);
    MPI_Finalize();
    pid_t child = fork();
    if (child == 0) {
        char r[16];
        snprintf(r, sizeof r, "%d", rank);
        execl("/bin/sh", "sh", "-c", "echo \"rank $0's child: LD_PRELOAD=${LD_PRELOAD-(unset)}\"",
              r, (char *)NULL);
        _exit(127);
    }
    int status = 1;
    if (child < 0 || waitpid(child, &status, 0) != child || status != 0)
        return 1;
    return 0;
}
