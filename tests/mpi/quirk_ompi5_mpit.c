/* The MPI's tool interface opened and closed before MPI_Init, as wisp did
 * on Open MPI to see whether osc pt2pt may serve windows (src/core/quirks.c):
 * Open MPI 5.0.11 then crashes in MPI_Init_thread (a NULL string in
 * opal_common_ucx_support_level), natively. tests/quirks.sh runs it
 * natively on Open MPI 5 and expects that crash, so that the day the MPI
 * stops crashing says the quirk may go. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int provided, cvars = 0;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_cvar_get_num(&cvars);
    MPI_T_finalize();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("quirk_ompi5_mpit: MPI_Init after MPI_T: ok (%d control variables)\n", cvars);
    MPI_Finalize();
    return 0;
}
