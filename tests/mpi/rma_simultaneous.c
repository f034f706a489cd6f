/*
 * Several windows and simultaneous epochs of different kinds on disjoint
 * groups (Casper 4.5.4): ghosts serve every window of their node, so no
 * epoch of one group may block a ghost that another group needs.
 *
 * The ranks form groups of two (of one with 2 ranks; the last group of an
 * odd count has one), each with two windows of its own, A and B, from one
 * MPI_Win_allocate over the group. In round r, group g holds an epoch of
 * kind (g + r) % 3 on A and, nested in it, one of kind (g + r + 1) % 3 on B
 * (fence, PSCW, lock: an exclusive read-modify-write, then a shared lock),
 * so neighbouring groups are in epochs of different kinds at once, and each
 * process is in two epochs of different kinds on two windows. Meanwhile a
 * window over everyone stays in a lock_all epoch, with accumulates into
 * every rank each round. Every round's results are checked.
 *
 * The fence epochs end with MPI_Win_fence(0), not MPI_MODE_NOSUCCEED: the
 * lock and PSCW epochs that follow on the same window, and MPI_Win_free,
 * must accept that (no epoch is open unless another fence follows).
 *
 * With virtual nodes of two application processes (WISP_VNODE_SIZE=3,
 * WISP_GHOSTS=1, 6 processes) each group is one node, so its windows are
 * served, by the same ghost as the window over everyone.
 */
#include <mpi.h>
#include <stdio.h>

#include "check.h" /* tests/check.h */

/* Windows of whole pages: MPICH 4.0.2 (ch4/ucx) targets the start of the page
 * that holds a smaller MPI_Win_allocate window (fixed by pmodels/mpich PR 6140). */
enum { PAGE = 4096 };

enum { ROUNDS = 6 };
enum kind { FENCE, PSCW, LOCK, KINDS };
enum slot { PUT_SLOT, ACC_SLOT, LOCK_SLOT, SLOTS };

struct group_win {
    MPI_Win win;
    long *mem;
    long locked_rounds; /* rounds in which the partner incremented LOCK_SLOT */
};

static int rank, size, grank, gsize, partner;
static MPI_Comm group;
static MPI_Group partner_group;

static long value(int origin, int round, int w)
{
    return 1000L * round + 10L * origin + w + 1;
}

static void open_epoch(enum kind k, MPI_Win win)
{
    if (k == FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    else if (k == PSCW) {
        MPI_Win_post(partner_group, 0, win);
        MPI_Win_start(partner_group, 0, win);
    }
}

/* The round's operations on the partner: a put, an accumulate and, in a
 * lock epoch, an exclusive read-modify-write, then a shared-lock read. */
static void operate(enum kind k, struct group_win *gw, int round, int w)
{
    long v = value(grank, round, w), add = round + 1;
    if (k == LOCK) {
        long old = -1, seen = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, partner, 0, gw->win);
        MPI_Put(&v, 1, MPI_LONG, partner, PUT_SLOT, 1, MPI_LONG, gw->win);
        MPI_Accumulate(&add, 1, MPI_LONG, partner, ACC_SLOT, 1, MPI_LONG, MPI_SUM, gw->win);
        MPI_Get(&old, 1, MPI_LONG, partner, LOCK_SLOT, 1, MPI_LONG, gw->win);
        MPI_Win_flush(partner, gw->win);
        old++;
        MPI_Put(&old, 1, MPI_LONG, partner, LOCK_SLOT, 1, MPI_LONG, gw->win);
        MPI_Win_unlock(partner, gw->win);
        MPI_Win_lock(MPI_LOCK_SHARED, partner, 0, gw->win);
        MPI_Get(&seen, 1, MPI_LONG, partner, LOCK_SLOT, 1, MPI_LONG, gw->win);
        MPI_Win_unlock(partner, gw->win);
        CHECK(seen == old);
        return;
    }
    MPI_Put(&v, 1, MPI_LONG, partner, PUT_SLOT, 1, MPI_LONG, gw->win);
    MPI_Accumulate(&add, 1, MPI_LONG, partner, ACC_SLOT, 1, MPI_LONG, MPI_SUM, gw->win);
}

static void close_epoch(enum kind k, MPI_Win win)
{
    if (k == FENCE)
        MPI_Win_fence(0, win); /* deliberately not MPI_MODE_NOSUCCEED, see above */
    else if (k == PSCW) {
        MPI_Win_complete(win);
        MPI_Win_wait(win);
    }
}

/* What this process's window holds after round `round`, in which the
 * partner (origin) used kind k. */
static void check_window(struct group_win *gw, enum kind k, int round, int w)
{
    int origin = (grank + gsize - 1) % gsize; /* the partner, in groups of at most 2 */
    if (k == LOCK)
        gw->locked_rounds++;
    MPI_Win_lock(MPI_LOCK_SHARED, grank, 0, gw->win);
    CHECK(gw->mem[PUT_SLOT] == value(origin, round, w));
    CHECK(gw->mem[ACC_SLOT] == (long)(round + 1) * (round + 2) / 2);
    CHECK(gw->mem[LOCK_SLOT] == gw->locked_rounds);
    MPI_Win_unlock(grank, gw->win);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int per_group = size >= 3 ? 2 : 1, g = rank / per_group;
    MPI_Comm_split(MPI_COMM_WORLD, g, rank, &group);
    MPI_Comm_rank(group, &grank);
    MPI_Comm_size(group, &gsize);
    partner = (grank + 1) % gsize;
    MPI_Group all;
    MPI_Comm_group(group, &all);
    MPI_Group_incl(all, 1, &partner, &partner_group);
    MPI_Group_free(&all);

    /* One group after the other: Open MPI 4.1.4 names the shared memory of a
     * window after its communicator's context id, which disjoint groups split
     * from one communicator share, so windows allocated at once by two groups
     * get the same memory (reproduced without wisp). */
    struct group_win gw[2] = {{0}};
    for (int turn = 0; turn < (size + per_group - 1) / per_group; turn++) {
        if (turn == g)
            for (int w = 0; w < 2; w++)
                MPI_Win_allocate(PAGE, sizeof(long), MPI_INFO_NULL, group, &gw[w].mem, &gw[w].win);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    for (int w = 0; w < 2; w++) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, grank, 0, gw[w].win);
        for (int s = 0; s < SLOTS; s++)
            gw[w].mem[s] = 0;
        MPI_Win_unlock(grank, gw[w].win);
    }
    long *everyone;
    MPI_Win all_win;
    MPI_Win_allocate(PAGE, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &everyone, &all_win);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, all_win);
    everyone[0] = 0;
    MPI_Win_unlock(rank, all_win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, all_win);
    for (int round = 0; round < ROUNDS; round++) {
        enum kind ka = (enum kind)((g + round) % KINDS), kb = (enum kind)((g + round + 1) % KINDS);
        open_epoch(ka, gw[0].win);
        open_epoch(kb, gw[1].win);
        operate(ka, &gw[0], round, 0);
        operate(kb, &gw[1], round, 1);
        close_epoch(kb, gw[1].win);
        close_epoch(ka, gw[0].win);
        /* Meanwhile, on the window of everyone. */
        long one = 1;
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_LONG, (rank + t) % size, 0, 1, MPI_LONG, MPI_SUM, all_win);
        MPI_Win_flush_all(all_win);
        /* Lock epochs end at the origin only: the group meets before checking. */
        MPI_Barrier(group);
        check_window(&gw[0], ka, round, 0);
        check_window(&gw[1], kb, round, 1);
    }
    MPI_Win_unlock_all(all_win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, all_win);
    CHECK(everyone[0] == (long)size * ROUNDS);
    MPI_Win_unlock(rank, all_win);

    MPI_Win_free(&all_win);
    for (int w = 0; w < 2; w++)
        CHECK(MPI_Win_free(&gw[w].win) == MPI_SUCCESS);
    MPI_Group_free(&partner_group);
    MPI_Comm_free(&group);

    int all_failures = 0;
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_simultaneous: %d ranks in groups of %d: %s\n", size, per_group,
               all_failures ? "FAILED" : "ok");
    MPI_Finalize();
    return all_failures != 0;
}
