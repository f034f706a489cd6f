/*
 * User-level threads without MPI (the API works without MPI_Init): fork,
 * join, yield order, many ULTs, nested forks, stacks given back, errors,
 * several kernel threads (argv[1]: the WISP_ULT_THREADS the test was
 * started with), the guard page (an overflow faults, in a child), and
 * fork() from a ULT (the child runs none of the parent's other ULTs, and
 * can join each of them: a lost one hangs the child).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "wisp.h"

/* ---- yield order on one kernel thread ---------------------------------- */

enum { TURNS = 3, PLAYERS = 4 };
static int order[TURNS * PLAYERS], played;

static void player(void *arg)
{
    for (int t = 0; t < TURNS; t++) {
        order[played++] = (int)(long)arg;
        wisp_ult_yield();
    }
}

static void check_round_robin(void)
{
    wisp_ult_t u[PLAYERS];
    for (long i = 0; i < PLAYERS; i++)
        CHECK(wisp_ult_fork(player, (void *)i, &u[i]) == 0);
    for (int i = 0; i < PLAYERS; i++)
        CHECK(wisp_ult_join(u[i]) == 0);
    CHECK(played == TURNS * PLAYERS);
    /* The primary joins by yielding, so the players take turns in order. */
    for (int i = 0; i < played; i++)
        CHECK(order[i] == i % PLAYERS);
}

/* ---- many, nested, self ------------------------------------------------ */

static atomic_long total;

static void leaf(void *arg)
{
    CHECK(wisp_ult_self() != NULL);
    atomic_fetch_add(&total, (long)arg);
    wisp_ult_yield();
}

static void parent(void *arg)
{
    long base = (long)arg;
    wisp_ult_t kids[8];
    for (long i = 0; i < 8; i++)
        CHECK(wisp_ult_fork(leaf, (void *)(base + i), &kids[i]) == 0);
    for (int i = 0; i < 8; i++)
        CHECK(wisp_ult_join(kids[i]) == 0);
    CHECK(wisp_ult_join(wisp_ult_self()) == EDEADLK);
}

static void check_nested(void)
{
    enum { PARENTS = 50 };
    wisp_ult_t u[PARENTS];
    atomic_store(&total, 0);
    long expect = 0;
    for (long p = 0; p < PARENTS; p++) {
        CHECK(wisp_ult_fork(parent, (void *)(p * 8), &u[p]) == 0);
        for (long i = 0; i < 8; i++)
            expect += p * 8 + i;
    }
    for (int p = 0; p < PARENTS; p++)
        CHECK(wisp_ult_join(u[p]) == 0);
    CHECK(atomic_load(&total) == expect);
}

/* ---- stacks are given back ---------------------------------------------- */

static int mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

static void check_stacks_freed(void)
{
    enum { WAVE = 200, WAVES = 20 };
    static wisp_ult_t u[WAVE];
    int before = 0;
    for (int w = 0; w < WAVES; w++) {
        for (long i = 0; i < WAVE; i++)
            CHECK(wisp_ult_fork(leaf, (void *)0, &u[i]) == 0);
        for (int i = 0; i < WAVE; i++)
            CHECK(wisp_ult_join(u[i]) == 0);
        if (w == 0)
            before = mappings();
    }
    /* 4000 ULTs later the address space holds no more stacks than after
     * the first 200 (kept ones are reused; the rest were unmapped). */
    CHECK(mappings() <= before + 4);
}

/* ---- the guard page ----------------------------------------------------- */

static long deep(long n)
{
    volatile char pad[4096];
    pad[0] = (char)n;
    return n ? deep(n - 1) + pad[0] : 0;
}

static void overflow(void *arg)
{
    (void)arg;
    deep(1L << 30);
}

static void check_guard(void)
{
    pid_t child = fork();
    if (child == 0) {
        wisp_ult_t u;
        if (wisp_ult_fork(overflow, NULL, &u) == 0)
            wisp_ult_join(u);
        _exit(0); /* not reached: the overflow faults */
    }
    int status = 0;
    waitpid(child, &status, 0);
    /* A fault, or AddressSanitizer's report of one (exit status 1). */
    CHECK((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
          (WIFEXITED(status) && WEXITSTATUS(status) != 0));
}

/* ---- fork() from a ULT ------------------------------------------------ */

static int fork_pipe[2];
static _Atomic int go;
static wisp_ult_t writers[2];

/* Writes one byte once `go` is set: in the parent, never in the child. */
static void writer(void *arg)
{
    (void)arg;
    while (!atomic_load(&go))
        wisp_ult_yield();
    CHECK(write(fork_pipe[1], "w", 1) == 1);
}

static void forker(void *arg)
{
    pid_t *pid = arg;
    *pid = fork();
    if (*pid != 0)
        return;
    /* The child: the writers would write now if they ran here. */
    atomic_store(&go, 1);
    wisp_ult_t u;
    int bad = wisp_ult_fork(leaf, NULL, &u) != 0 || wisp_ult_join(u) != 0;
    for (int i = 0; i < 100; i++)
        wisp_ult_yield();
    for (int i = 0; i < 2; i++)
        bad |= wisp_ult_join(writers[i]) != ESRCH;
    _exit(bad);
}

static void check_fork(void)
{
    atomic_store(&go, 0);
    CHECK(pipe(fork_pipe) == 0);
    pid_t pid = -1;
    wisp_ult_t f;
    for (int i = 0; i < 2; i++)
        CHECK(wisp_ult_fork(writer, NULL, &writers[i]) == 0);
    CHECK(wisp_ult_fork(forker, &pid, &f) == 0);
    CHECK(wisp_ult_join(f) == 0);
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    atomic_store(&go, 1);
    for (int i = 0; i < 2; i++)
        CHECK(wisp_ult_join(writers[i]) == 0);
    close(fork_pipe[1]);
    char bytes[8];
    ssize_t n, all = 0;
    while ((n = read(fork_pipe[0], bytes, sizeof bytes)) > 0)
        all += n;
    close(fork_pipe[0]);
    CHECK(all == 2); /* the parent's two writers, and none from the child */
}

int main(int argc, char **argv)
{
    wisp_ult_t u;
    if (argc > 1 && strcmp(argv[1], "bad") == 0) { /* a bad WISP_ULT_* value is set */
        CHECK(wisp_ult_fork(leaf, NULL, &u) == EINVAL);
        CHECK(wisp_ult_threads() == 0);
        return failures != 0;
    }
    int threads = argc > 1 ? atoi(argv[1]) : 1;
    CHECK(wisp_ult_fork(NULL, NULL, &u) == EINVAL);
    CHECK(wisp_ult_fork(leaf, NULL, NULL) == EINVAL);
    CHECK(wisp_ult_join(NULL) == EINVAL);
    CHECK(wisp_ult_self() == NULL);
    CHECK(wisp_ult_threads() == threads);
    wisp_ult_yield(); /* nothing to run: returns */
    if (threads == 1)
        check_round_robin();
    check_nested();
    check_stacks_freed();
    if (threads == 1)
        check_guard();
    /* With several kernel threads the fork lands at a different moment of
     * the other streams' switches each time. */
    for (int i = 0; i < (threads > 1 ? 50 : 1); i++)
        check_fork();
    if (failures)
        fprintf(stderr, "ult_test: %d checks failed\n", failures);
    else
        printf("ult_test: ok (%d kernel threads)\n", threads);
    return failures != 0;
}
