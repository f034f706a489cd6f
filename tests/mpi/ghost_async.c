/*
 * Adaptive asynchronous progress (docs/ghosts.md, "When a ghost serves"):
 * the route of the operations on each process of a served window (to a
 * ghost, or to the process itself) changes only at safe points, and every
 * result stays exact across the switches. Modes (argv[1]):
 *
 *   hint     100 rounds, each a safe point at MPI_Win_set_info where every
 *            process asks for its own route (async_config on or off, a
 *            different mix each round), checked with MPI_Win_get_info; then
 *            an exclusive-lock get/put counter, one origin's MPI_REPLACE
 *            sequence read back before its flush (accumulate ordering), and
 *            a fence epoch of accumulates. A set_info while an epoch is open
 *            keeps the routes. Counters exact at the end.
 *   profile  WISP_ASYNC=auto: rounds alternate a phase outside MPI and one
 *            inside it (MPI_Allreduce), then a fence: the route follows
 *            the phase; the same operations, exact.
 *   live     WISP_ASYNC=auto, lock_all with MPI_MODE_NOCHECK and no safe
 *            point: rank 0 alternates computing and polling MPI while the
 *            others put a value into their slot of its memory, flush, get
 *            it back, flush and compare; the node's ghost judges rank 0's
 *            live profile and the puts and gets follow it (Casper(GP)):
 *            both routes used (MPI_Win_get_info's counts), every value
 *            read back as written.
 *   wake     created with every route direct (the ghosts sleep, nobody
 *            wants them); rank 0 asks for a ghost and computes outside MPI
 *            until the others' accumulate+flush pairs all reached its
 *            memory, which with MPICH only a woken ghost applies meanwhile.
 *   gets     WISP_ASYNC=auto, one fence epoch in which the last rank gets
 *            rank 0's memory 20000 times (MPICH's rma/manyget): the first
 *            profile interval sends them to the node's ghost, which nobody
 *            wants and which sleeps between polls; the closing fence must
 *            still complete (the ghosts poll while a process flushes), the
 *            values exact. A hang detector, not a timing: ctest's timeout.
 *
 * Without ghosts (natively) the hints are ignored: the routes are not
 * checked, the results are.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h" /* tests/check.h */

enum { ROUNDS = 100, LOCKS = 5, SEQ = 20, WAKE_OPS = 20, DEADLINE_S = 30 };

static int rank, size;
static int served; /* run with ghosts: MPI_Win_get_info reports routes */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* This process's route as MPI_Win_get_info reports it: 1 on, 0 off, -1 none. */
static int route(MPI_Win win)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, "async_config", MPI_MAX_INFO_VAL, value, &flag);
    MPI_Info_free(&info);
    return flag ? strcmp(value, "on") == 0 : -1;
}

static void ask(MPI_Win win, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "async_config", value);
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
}

/* Window layout, ints: [0] the lock counter, [1] the fence counter, then
 * one slot per origin for its REPLACE sequence. */
enum { COUNTER, FENCED, SLOTS };

/* The operations of round `i`, in lock, lock_all and fence epochs. */
static void operate(MPI_Win win, int i)
{
    int target = i % size, one = 1;
    for (int k = 0; k < LOCKS; k++) {
        int v;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
        MPI_Get(&v, 1, MPI_INT, target, COUNTER, 1, MPI_INT, win);
        MPI_Win_flush(target, win);
        v++;
        MPI_Put(&v, 1, MPI_INT, target, COUNTER, 1, MPI_INT, win);
        MPI_Win_unlock(target, win);
    }
    int next = (rank + i + 1) % size, last = 0, seq[SEQ]; /* untouched until the flush */
    MPI_Win_lock_all(0, win);
    for (int s = 1; s <= SEQ; s++) {
        seq[s - 1] = i * 1000 + s;
        MPI_Accumulate(&seq[s - 1], 1, MPI_INT, next, SLOTS + rank, 1, MPI_INT, MPI_REPLACE, win);
    }
    MPI_Get_accumulate(NULL, 0, MPI_INT, &last, 1, MPI_INT, next, SLOTS + rank, 1, MPI_INT,
                       MPI_NO_OP, win);
    MPI_Win_flush(next, win);
    CHECK(last == i * 1000 + SEQ);
    MPI_Win_unlock_all(win);
    MPI_Win_fence(0, win);
    for (int t = 0; t < size; t++)
        MPI_Accumulate(&one, 1, MPI_INT, t, FENCED, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
}

static void check_counts(MPI_Win win, int *mem, int rounds)
{
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    int mine = 0;
    for (int i = 0; i < rounds; i++)
        mine += i % size == rank;
    CHECK(mem[COUNTER] == mine * LOCKS * size);
    CHECK(mem[FENCED] == rounds * size);
    MPI_Win_unlock(rank, win);
}

static void hint(MPI_Win win, int *mem)
{
    for (int i = 0; i < ROUNDS; i++) {
        int on = (i + rank) % 3 != 0;
        ask(win, on ? "on" : "off");
        if (served)
            CHECK(route(win) == on);
        operate(win, i);
        if (i % 10 == 9) { /* an open epoch keeps the routes */
            MPI_Win_lock_all(0, win);
            ask(win, on ? "off" : "on");
            MPI_Win_unlock_all(win);
            if (served)
                CHECK(route(win) == on);
        }
    }
    check_counts(win, mem, ROUNDS);
}

/* WISP_ASYNC=auto with a short WISP_ASYNC_INTERVAL: the phase decides. */
static void profile(MPI_Win win, int *mem)
{
    enum { PROFILE_ROUNDS = 40, PHASE_MS = 25 };
    int matched = 0;
    volatile double sink = 0;
    for (int i = 0; i < PROFILE_ROUNDS; i++) {
        int computing = i % 2 == 0;
        double end = now() + PHASE_MS * 1e-3;
        if (computing) {
            while (now() < end)
                for (int k = 0; k < 1000; k++)
                    sink += k * 0.5;
        } else {
            /* Inside MPI, blocked: a process descheduled there still counts
             * as with MPI (one between two polls would not). */
            for (int done = 0; !done;) {
                done = rank == 0 && now() >= end;
                MPI_Allreduce(MPI_IN_PLACE, &done, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            }
        }
        MPI_Win_fence(0, win); /* the safe point: the route follows the phase */
        matched += route(win) == computing;
        operate(win, i);
    }
    check_counts(win, mem, PROFILE_ROUNDS);
    /* A loaded machine may blur a phase or two (a fence that waited long
     * counts as time inside MPI); the route must follow nearly all. */
    if (served) {
        printf("rank %d: route followed the phase in %d of %d rounds\n", rank, matched,
               PROFILE_ROUNDS);
        CHECK(matched >= PROFILE_ROUNDS * 3 / 4);
    }
}

/* The counts of operations this origin sent each way (MPI_Win_get_info). */
static void sent(MPI_Win win, long *to_ghosts, long *direct)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, "wisp_ops_to_ghosts", MPI_MAX_INFO_VAL, value, &flag);
    *to_ghosts = flag ? atol(value) : -1;
    MPI_Info_get(info, "wisp_ops_direct", MPI_MAX_INFO_VAL, value, &flag);
    *direct = flag ? atol(value) : -1;
    MPI_Info_free(&info);
}

static void live(MPI_Win win)
{
    enum { PHASES = 6, PHASE_MS = 80 };
    volatile double sink = 0;
    int rounds = 0;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    double end = now() + PHASES * PHASE_MS * 1e-3;
    for (int phase = 0; rank == 0 && phase < PHASES; phase++) {
        double until = now() + PHASE_MS * 1e-3;
        while (now() < until) {
            if (phase % 2 == 0) {
                for (int k = 0; k < 1000; k++)
                    sink += k * 0.5;
            } else {
                int flag;
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            }
        }
    }
    while (rank != 0 && now() < end) {
        int v = rank * 100000 + rounds++, back = -1;
        MPI_Put(&v, 1, MPI_INT, 0, SLOTS + rank, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Get(&back, 1, MPI_INT, 0, SLOTS + rank, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        CHECK(back == v);
    }
    MPI_Win_unlock_all(win);
    if (rank != 0 && served) {
        long to_ghosts, direct;
        sent(win, &to_ghosts, &direct);
        printf("rank %d: %d rounds, %ld operations to the ghost, %ld directly\n", rank, rounds,
               to_ghosts, direct);
        CHECK(to_ghosts > 0 && direct > 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void wake(MPI_Win win, int *mem)
{
    if (served)
        CHECK(route(win) == 0); /* created with WISP_ASYNC=off */
    struct timespec nap = {0, 200 * 1000 * 1000};
    nanosleep(&nap, NULL); /* long enough for the ghosts to sleep */
    ask(win, rank == 0 ? "on" : "off");
    if (served)
        CHECK(route(win) == (rank == 0));
    int want = (size - 1) * WAKE_OPS;
    MPI_Win_lock_all(0, win);
    if (rank == 0) {
        double deadline = now() + DEADLINE_S;
        while (__atomic_load_n(&mem[COUNTER], __ATOMIC_ACQUIRE) < want && now() < deadline)
            ;
        CHECK(__atomic_load_n(&mem[COUNTER], __ATOMIC_ACQUIRE) == want);
    } else {
        int one = 1;
        for (int k = 0; k < WAKE_OPS; k++) {
            MPI_Accumulate(&one, 1, MPI_INT, 0, COUNTER, 1, MPI_INT, MPI_SUM, win);
            MPI_Win_flush(0, win);
        }
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void gets(MPI_Win win, int *mem)
{
    enum { GETS = 20000 };
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    mem[0] = 1000 + rank;
    MPI_Win_unlock(rank, win);
    MPI_Win_fence(0, win);
    int got[64] = {0};
    if (rank == size - 1)
        for (int i = 0; i < GETS; i++)
            MPI_Get(&got[i % 64], 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; rank == size - 1 && i < 64; i++)
        CHECK(got[i] == 1000);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "hint";
    const char *ghosts = getenv("WISP_GHOSTS");
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(sizeof *mem * (size_t)(SLOTS + size), sizeof *mem, MPI_INFO_NULL,
                     MPI_COMM_WORLD, &mem, &win);
    served = ghosts && atoi(ghosts) > 0;
    if (served)
        CHECK(route(win) >= 0);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
    memset(mem, 0, sizeof *mem * (size_t)(SLOTS + size));
    MPI_Win_unlock(rank, win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (strcmp(mode, "hint") == 0)
        hint(win, mem);
    else if (strcmp(mode, "profile") == 0)
        profile(win, mem);
    else if (strcmp(mode, "live") == 0)
        live(win);
    else if (strcmp(mode, "wake") == 0)
        wake(win, mem);
    else if (strcmp(mode, "gets") == 0)
        gets(win, mem);
    else
        CHECK(!"mode is hint, profile, live, wake or gets");

    MPI_Win_free(&win);
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ghost_async %s: %s\n", mode, all ? "FAILED" : "ok");
    MPI_Finalize();
    return all != 0;
}
