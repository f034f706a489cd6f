/*
 * omp_barrier.c - what wisp's parking of idle threads costs an OpenMP
 * program's barriers under LLVM's libomp (docs/datatypes.md, "Idle
 * threads"): inside one parallel region, thread 0 works a given time before
 * each barrier while the others wait at it, where wisp's OMPT callback
 * parks them (WISP_DT_THREADS=auto) or lets them go (off).
 *
 *   omp_barrier [ROUNDS]     ROUNDS barriers per imbalance (default 2000)
 *
 * Thread 0's work before each barrier: 0, 20, 100 and 500 us. Metrics:
 * barrier_us_<imbalance> (a round's time, the work included; the best of
 * 5 repetitions). The check: each round thread 0 writes the round's number
 * before the barrier, and every other thread must read it after.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void work(double us)
{
    double end = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < end)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    static const int late_us[] = {0, 20, 100, 500};
    int bad = 0;
    for (size_t k = 0; k < sizeof late_us / sizeof late_us[0]; k++) {
        int n = late_us[k] >= 100 ? rounds / 10 + 1 : rounds;
        double best = 1e30;
        for (int rep = 0; rep < 5; rep++) {
            volatile int posted = -1;
            double t = MPI_Wtime();
#pragma omp parallel reduction(+ : bad)
            for (int i = 0; i < n; i++) {
                if (omp_get_thread_num() == 0) {
                    work(late_us[k]);
                    posted = i;
                }
#pragma omp barrier
                bad += posted != i;
#pragma omp barrier
            }
            t = (MPI_Wtime() - t) / n * 1e6;
            best = t < best ? t : best;
        }
        printf("metric barrier_us_%d %.2f us lower\n", late_us[k], best);
    }
    printf("threads %d\n%s\n", omp_get_max_threads(),
           bad ? "FAILED: a barrier let a thread through early" : "check ok");
    MPI_Finalize();
    return bad != 0;
}
