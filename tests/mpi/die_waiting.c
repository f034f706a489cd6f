/*
 * A process of the job dies by SIGKILL while the others wait for it; the
 * job must end within seconds, whatever the launcher (tests/die_waiting.sh
 * times it and looks in /dev/shm afterwards).
 *
 *   die_waiting recv   rank 1 dies while rank 0 waits in MPI_Recv from it
 *                      (a receive of wisp's engine on one node)
 *   die_waiting ghost  with WISP_GHOSTS=1: rank 0 kills the ghost that
 *                      serves the window while rank 1 accumulates and
 *                      flushes through it and rank 0 waits for rank 1
 *   die_waiting coll   rank 1 dies while rank 0 waits for it in an
 *                      MPI_Allreduce that wisp serves through the heap
 *   die_waiting finalize  rank 1 dies while rank 0 waits for it in
 *                      MPI_Finalize (Open MPI's lets it go: exit 3)
 *   die_waiting icoll1, icoll2  4 processes on virtual nodes of two
 *                      (WISP_VNODE_SIZE=2), the MPI at MPI_THREAD_MULTIPLE:
 *                      an MPI_Iallreduce that wisp serves in stages
 *                      (src/coll/hier.h), waited for, while rank 1 (rank
 *                      0's node peer: rank 0 waits for it in the heap) or
 *                      rank 2 (the other node's leader: rank 0 waits for
 *                      it in the leaders' MPI_Iallreduce) dies
 *
 * The death is reported on stderr ("die_waiting: killed ... at <date +%s.%N>").
 * Whatever happens after it, the program never exits 0: it prints
 * "die_waiting: survived" and exits 3 if a wait returned.
 */
#include <dirent.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The ghost of this node: a process with this one's parent and program
 * that is not one of the application's processes (`pids`, `n`). */
static pid_t find_ghost(const int *pids, int n)
{
    char exe[PATH_MAX], path[64], other[PATH_MAX], stat[512];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return -1;
    exe[len] = '\0';
    pid_t found = -1;
    int count = 0;
    DIR *proc = opendir("/proc");
    for (struct dirent *e; proc && (e = readdir(proc));) {
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid <= 0)
            continue;
        bool app = false;
        for (int i = 0; i < n; i++)
            app |= pids[i] == pid;
        snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
        ssize_t l = readlink(path, other, sizeof other - 1);
        if (app || l != len || memcmp(other, exe, (size_t)len))
            continue;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[got] = '\0';
        const char *after = strrchr(stat, ')');
        int ppid = 0;
        if (after && sscanf(after + 2, "%*c %d", &ppid) == 1 && ppid == (int)getppid()) {
            found = pid;
            count++;
        }
    }
    if (proc)
        closedir(proc);
    return count == 1 ? found : -1;
}

/* When the death came, on the clock of `date +%s.%N`, for the script. */
static void report(const char *what)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(stderr, "die_waiting: killed %s at %lld.%09ld\n", what, (long long)ts.tv_sec,
            ts.tv_nsec);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool across = !strncmp(mode, "icoll", 5);
    int provided;
    MPI_Init_thread(&argc, &argv, across ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != (across ? 4 : 2)) {
        fprintf(stderr, "die_waiting: needs %d application processes, has %d\n", across ? 4 : 2,
                size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (!strcmp(mode, "recv")) {
        int x = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            usleep(300000); /* rank 0 waits in its receive by now */
            report("rank 1");
            raise(SIGKILL);
        }
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "ghost")) {
        int pids[2], me = (int)getpid();
        MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
        double *base;
        MPI_Win win;
        MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                         &win);
        pid_t ghost = rank == 0 ? find_ghost(pids, 2) : 0;
        if (ghost < 0) {
            fprintf(stderr,
                    "die_waiting: cannot tell the ghost among the processes (WISP_GHOSTS=1?)\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            double one = 1;
            MPI_Win_lock_all(0, win);
            /* Ends only if nothing stops the job. */
            for (double t0 = MPI_Wtime(); MPI_Wtime() - t0 < 30;) {
                MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, win);
                MPI_Win_flush(0, win);
            }
            MPI_Win_unlock_all(win);
        } else {
            usleep(300000);
            kill(ghost, SIGKILL);
            report("the ghost");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_free(&win);
    } else if (!strcmp(mode, "coll")) {
        int x = 1, sum = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* the world's area is set up (WISP_COLL_AFTER=1) */
        if (rank == 1) {
            usleep(300000); /* rank 0 waits in its allreduce by now */
            report("rank 1");
            raise(SIGKILL);
        }
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (across) {
        int victim = !strcmp(mode, "icoll2") ? 2 : 1, x = 1, sum = 0;
        MPI_Request req;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD); /* the world's stages are set up */
        if (rank == victim) {
            usleep(300000); /* the others wait in their allreduce by now */
            report(victim == 1 ? "rank 1" : "rank 2");
            raise(SIGKILL);
        }
        MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (!strcmp(mode, "finalize")) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            usleep(300000); /* rank 0 waits in MPI_Finalize by now */
            report("rank 1");
            raise(SIGKILL);
        }
        MPI_Finalize(); /* waits for rank 1, or not: Open MPI's lets rank 0 go */
        printf("die_waiting: out of MPI_Finalize\n");
        return 3;
    } else {
        fprintf(stderr, "die_waiting: give recv, coll, ghost, icoll1, icoll2 or finalize\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    printf("die_waiting: survived\n");
    MPI_Finalize();
    return 3;
}
