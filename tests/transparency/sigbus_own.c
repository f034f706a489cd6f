/*
 * sigbus_own: a program's own SIGBUS handling behaves under wisp as it does
 * natively, though wisp catches SIGBUS for its shared heap (src/shm/fault.c).
 *
 * Every rank maps a file of two pages, truncates it to one and touches the
 * second page (a genuine SIGBUS, BUS_ADRERR), with: a SA_SIGINFO handler
 * installed before MPI_Init (it must run, with the right si_addr and
 * si_code, and sigaction() after MPI_Init must report it); one installed
 * with signal() after MPI_Init (signal() returns the one before); one with
 * a mask and one with SA_RESETHAND (the mask holds in the handler; the
 * action is SIG_DFL afterwards). Handlers leave with siglongjmp. Then, in
 * children of fork(): SIG_DFL must kill with SIGBUS; SIG_IGN must ignore a
 * sent SIGBUS but not a fault (the kernel kills then too). Rank 0 prints one
 * line per check, "yes" when it held on every rank.
 */
#include <mpi.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf back;
static volatile sig_atomic_t ran, right_place, masked;
static volatile char *expected;

static void on_bus_info(int sig, siginfo_t *info, void *context)
{
    (void)context;
    ran = sig == SIGBUS;
    right_place = info->si_addr == (void *)expected && info->si_code == BUS_ADRERR;
    siglongjmp(back, 1);
}

static void on_bus(int sig)
{
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    ran = sig == SIGBUS;
    masked = sigismember(&now, SIGUSR1) == 1 && sigismember(&now, SIGBUS) == 1;
    siglongjmp(back, 1);
}

/* Touches the page past the file's end: did a handler take us back? */
static int touch(void)
{
    ran = right_place = masked = 0;
    if (sigsetjmp(back, 1) == 0) {
        *expected = 1;
        return 0;
    }
    return ran;
}

/* How a child that sets `disposition` and then faults (or is sent SIGBUS) ends. */
static int child_dies_by_sigbus(void (*disposition)(int), int send)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction a = {.sa_handler = disposition};
        sigemptyset(&a.sa_mask);
        sigaction(SIGBUS, &a, NULL);
        if (send)
            kill(getpid(), SIGBUS);
        else
            *expected = 1;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS;
}

static void report(int rank, const char *what, int mine)
{
    int all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sigbus_own: %s: %s\n", what, all ? "yes" : "no");
}

int main(int argc, char **argv)
{
    struct sigaction first = {.sa_sigaction = on_bus_info, .sa_flags = SA_SIGINFO};
    sigemptyset(&first.sa_mask);
    sigaction(SIGBUS, &first, NULL);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    long page = sysconf(_SC_PAGESIZE);
    char path[] = "/tmp/sigbus_own-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, 2 * page)) {
        perror("sigbus_own: file");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    unlink(path);
    char *map = mmap(NULL, (size_t)(2 * page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED || ftruncate(fd, page)) {
        perror("sigbus_own: mmap");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    expected = map + page;

    struct sigaction now;
    sigaction(SIGBUS, NULL, &now);
    report(rank, "sigaction() reports the handler set before MPI_Init",
           (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == on_bus_info);
    int ran_first = touch();
    report(rank, "the handler set before MPI_Init runs", ran_first);
    report(rank, "with the faulting address and BUS_ADRERR", right_place);

    void (*old)(int) = signal(SIGBUS, on_bus);
    report(rank, "signal() returns the handler before", (void *)old == (void *)on_bus_info);
    report(rank, "the handler set with signal() after MPI_Init runs", touch());

    struct sigaction with_mask = {.sa_handler = on_bus};
    sigemptyset(&with_mask.sa_mask);
    sigaddset(&with_mask.sa_mask, SIGUSR1);
    sigaction(SIGBUS, &with_mask, NULL);
    int ran_masked = touch();
    report(rank, "a handler with a mask runs, the mask and SIGBUS blocked", ran_masked && masked);

    struct sigaction once = {.sa_sigaction = on_bus_info, .sa_flags = SA_SIGINFO | SA_RESETHAND};
    sigemptyset(&once.sa_mask);
    sigaction(SIGBUS, &once, NULL);
    int ran_once = touch();
    sigaction(SIGBUS, NULL, &now);
    report(rank, "SA_RESETHAND: runs once, SIG_DFL after", ran_once && now.sa_handler == SIG_DFL);

    report(rank, "SIG_DFL: a fault kills with SIGBUS", child_dies_by_sigbus(SIG_DFL, 0));
    report(rank, "SIG_DFL: a sent SIGBUS kills", child_dies_by_sigbus(SIG_DFL, 1));
    report(rank, "SIG_IGN: a fault still kills with SIGBUS", child_dies_by_sigbus(SIG_IGN, 0));
    report(rank, "SIG_IGN: a sent SIGBUS is ignored", !child_dies_by_sigbus(SIG_IGN, 1));

    munmap(map, (size_t)(2 * page));
    close(fd);
    MPI_Finalize();
    return 0;
}
