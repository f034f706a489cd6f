/*
 * The engine's progress and waiting (transport.h): a pass over the rings,
 * the slots and the copies, and over the receives that wait for the MPI
 * behind wildcards (match.c: progress is above matching, so it calls it
 * by name); the rescuer thread; naps on the doorbell; the calls into the
 * MPI's own progress.
 */
#include "p2p/progress.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/log.h"
#include "core/world.h"
#include "core/thread.h"
#include "core/wait.h"
#include "p2p/lend/lend.h"
#include "p2p/lock.h"
#include "p2p/match.h"
#include "p2p/recv.h"
#include "p2p/send.h"
#include "p2p/transport.h"

enum {
    POKE_EVERY = 128,         /* idle polls between calls into the MPI's own progress */
    SPIN_SLEEPY = 16,         /* idle polls before a sleepy process yields */
    NAP_MIN_NS = 10000,       /* first nap; each next one twice as long, up to: */
    NAP_NS = 200000,          /* longest nap: events the doorbell misses (the MPI's) */
    RESCUE_NS = 50000,        /* the rescuer's second look, once the application went quiet */
    RESCUE_IDLE_NS = 1000000, /* its look while the application moves the engine */
    CALL_AFTER_PASSES = 1024, /* idle progress passes before a waiting process calls rescuers */
    CALL_EVERY_NS = 1000000,  /* and then at most this often */
    QUICK_POLLS = 16,         /* a test's polls, after an idle pass, between passes */
};

static MPI_Comm poke_comm = MPI_COMM_NULL;
/* The rings into this process, one per peer of the node: every poll looks
 * at each, so their addresses are kept, not computed from the layout. */
static struct inbox {
    struct wisp_fastbox_ring *ring;
    _Atomic uint32_t *starved; /* the sender's starved count */
    int from;
    _Atomic uint32_t starved_seen; /* the sender's starved count when last acted on
                                      (the rescuer reads it unlocked) */
    bool starved_news;             /* it changed: spill what the sender waits for */
} * inbox;
static int ninbox;
static pthread_t rescuer;
static _Atomic bool rescuer_stop;

void wisp_p2p_progress_init(int node_size)
{
    inbox = malloc(sizeof *inbox * (size_t)node_size);
    if (!inbox)
        wisp_fatal("out of memory for the point-to-point engine");
    ninbox = 0;
    for (int p = 0; p < node_size; p++)
        if (p != wisp_p2p.node_rank)
            inbox[ninbox++] = (struct inbox){.ring = ring(p, wisp_p2p.node_rank),
                                             .starved = starved_count(p),
                                             .from = p,
                                             .starved_seen = atomic_load(starved_count(p))};
}

void wisp_p2p_progress_fini(void)
{
    free(inbox);
    inbox = NULL;
    ninbox = 0;
}

/* The MPI progresses on a probe of a communicator with peers; MPICH
 * answers one of MPI_COMM_SELF without moving anything. */
void wisp_p2p_poke_init(void)
{
    PMPI_Comm_dup(wisp_core_user_world, &poke_comm);
}

void wisp_p2p_poke_fini(void)
{
    if (poke_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&poke_comm);
}

static void *rescue(void *unused);

void wisp_p2p_rescuer_start(void)
{
    atomic_store(&rescuer_stop, false);
    int rc = wisp_core_thread_start(&rescuer, rescue, NULL, "wisp-rescuer");
    if (rc)
        wisp_fatal("cannot start the point-to-point rescuer thread: %s", strerror(rc));
}

void wisp_p2p_rescuer_stop(void)
{
    atomic_store(&rescuer_stop, true);
    wisp_doorbell_ring(rescue_bell(wisp_p2p.node_rank));
    pthread_join(rescuer, NULL);
}

/* ---- progress and waiting ---------------------------------------------- */

/* Has a sender run out of slots since this process last looked? Read
 * before the rings are drained: its notices are in by then. */
static bool starved_news(void)
{
    bool any = false;
    for (int i = 0; i < ninbox; i++) {
        uint32_t count = atomic_load_explicit(inbox[i].starved, memory_order_acquire);
        inbox[i].starved_news =
            count != atomic_load_explicit(&inbox[i].starved_seen, memory_order_relaxed);
        atomic_store_explicit(&inbox[i].starved_seen, count, memory_order_relaxed);
        any |= inbox[i].starved_news;
    }
    return any;
}

/* The same look without acting on it, for the rescuer (unlocked). */
static bool starved_unseen(void)
{
    for (int i = 0; i < ninbox; i++)
        if (atomic_load_explicit(inbox[i].starved, memory_order_relaxed) !=
            atomic_load_explicit(&inbox[i].starved_seen, memory_order_relaxed))
            return true;
    return false;
}

/* Did a peer give this process something since the last pass: a message
 * in its ring, or news that it starved? (Lock held.) */
static bool peer_news(void)
{
    for (int i = 0; i < ninbox; i++)
        if (wisp_fastbox_waiting(inbox[i].ring) ||
            atomic_load_explicit(inbox[i].starved, memory_order_relaxed) !=
                atomic_load_explicit(&inbox[i].starved_seen, memory_order_relaxed))
            return true;
    return false;
}

/* Copy aside what starved senders wait for (starve). */
static void spill_for_starved(void)
{
    for (int i = 0; i < ninbox; i++)
        if (inbox[i].starved_news) {
            inbox[i].starved_news = false;
            wisp_p2p_spill_held(inbox[i].from);
        }
}

/* Everything that needs no call into the MPI. */
static bool progress_local(void)
{
    bool moved = false, starved = starved_news();
    for (int i = 0; i < ninbox; i++)
        moved |= wisp_p2p_drain(inbox[i].ring, inbox[i].from);
    if (starved) {
        spill_for_starved();
        moved = true;
    }
    moved |= wisp_p2p_advance_sends();
    moved |= wisp_p2p_copy_receiving();
    moved |= wisp_p2p_lend_progress();
    moved |= wisp_p2p_send_notices();
    if (wisp_p2p_count(&wisp_p2p.above))
        moved |= wisp_p2p_up.above();
    return moved;
}

/* This process waits and nothing moves: what it waits for may be a peer's
 * work stuck behind a call wisp does not see there (a collective, say).
 * Ring the doorbells of the peers' rescuers that sleep, at most once per
 * CALL_EVERY_NS; a rescuer with nothing in flight goes back to sleep. */
static void call_rescuers(void)
{
    static uint64_t last;
    uint64_t now = wisp_core_clock_ns();
    if (now - last < CALL_EVERY_NS)
        return;
    last = now;
    for (int p = 0; p < wisp_p2p.node_size; p++)
        if (p != wisp_p2p.node_rank)
            wisp_doorbell_ring(rescue_bell(p));
}

static unsigned idle_passes; /* passes in a row that moved nothing */

bool wisp_p2p_progress(void)
{
    if (!wisp_p2p.on) /* WISP_SHM=off: only MPI_Isendrecv's requests of wisp */
        return false;
    /* The lock is held: a plain increment (no locked instruction) will do. */
    atomic_store_explicit(&wisp_p2p_passes,
                          atomic_load_explicit(&wisp_p2p_passes, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    bool moved = progress_local();
    if (wisp_p2p_count(&wisp_p2p.deferred))
        wisp_p2p_finish_deferred();
    moved |= wisp_p2p_remote_advance();
    moved |= wisp_p2p_finish_forwarded();
    if (moved)
        idle_passes = 0;
    else if (++idle_passes % CALL_AFTER_PASSES == 0)
        call_rescuers();
    return moved;
}

/* A test's pass. A loop that polls a test millions of times (HPCC's
 * MPIRandomAccess: one MPI_Testany of a wildcard receive per update) would
 * pay a whole pass per poll, twice the instructions of the MPI's own poll
 * (Open MPI); once a pass moved nothing, the next polls look only for what
 * a peer gave this process (a message in a ring, a starved sender) or
 * deferred work, and make a whole pass every QUICK_POLLS-th time: what only
 * a pass sees (a slot a receiver freed or drained, the MPI for wildcards of
 * remote senders) moves at most that many polls later. Lock held. */
bool wisp_p2p_progress_test(void)
{
    static unsigned quick;
    if (idle_passes && ++quick % QUICK_POLLS != 0 && !peer_news() &&
        !wisp_p2p_count(&wisp_p2p.deferred))
        return false;
    quick = 0;
    return wisp_p2p_progress();
}

/*
 * The rescuer: a thread that, when work is in flight and no application
 * thread has moved the engine since its last look (they are computing, or
 * blocked inside the MPI, in a collective say), moves it: so a peer waiting
 * for this process's staged chunks, queued sends or copy of its message is
 * never stuck behind a call wisp does not see. With nothing in flight it
 * sleeps on its doorbell (no timer), which a peer that waits in vain rings
 * (call_rescuers); with work in flight it looks on a timer until the work
 * is done. It never calls the MPI (whose thread level may be single), so
 * receives that need the MPI to unpack are finished by the application's
 * next call.
 */
static bool rescuer_called(void *unused)
{
    (void)unused;
    return atomic_load(&rescuer_stop) || wisp_p2p_count(&wisp_p2p.outstanding) || starved_unseen();
}

static void *rescue(void *unused)
{
    (void)unused;
    unsigned long seen = 0;
    bool quiet = false;
    while (!atomic_load(&rescuer_stop)) {
        if (!wisp_p2p_count(&wisp_p2p.outstanding) && !starved_unseen()) {
            wisp_doorbell_wait(rescue_bell(wisp_p2p.node_rank), rescuer_called, NULL);
            seen = atomic_load_explicit(&wisp_p2p_passes, memory_order_relaxed);
            quiet = true; /* called: look again soon */
            continue;
        }
        /* Every wakeup takes a core from a spinning process for a few
         * microseconds: look often only when the last look found the
         * application quiet. */
        nanosleep(&(struct timespec){0, quiet ? RESCUE_NS : RESCUE_IDLE_NS}, NULL);
        unsigned long now = atomic_load_explicit(&wisp_p2p_passes, memory_order_relaxed);
        quiet = now == seen;
        if (!quiet) {
            seen = now;
            continue;
        }
        /* Looking costs the application a barrier (lock.h): only for work. */
        if ((wisp_p2p_count(&wisp_p2p.outstanding) || starved_unseen()) &&
            wisp_p2p_rescuer_enter()) {
            wisp_p2p.rescuing = true;
            progress_local();
            wisp_p2p.rescuing = false;
            wisp_p2p_rescuer_leave();
        }
    }
    return NULL;
}

bool wisp_p2p_progress_async(void)
{
    /* Unlocked looks: work that appears meanwhile waits for the next call. */
    if (!wisp_p2p.on || (!wisp_p2p_count(&wisp_p2p.outstanding) &&
                         !wisp_p2p_count(&wisp_p2p.deferred) && !wisp_p2p_remote_waiting()))
        return false;
    if (!wisp_p2p_rescuer_enter())
        return false; /* an application thread is inside: it moves the engine */
    wisp_p2p_progress();
    wisp_p2p_rescuer_leave();
    return true;
}

static bool has_message(void *unused)
{
    (void)unused;
    for (int i = 0; i < ninbox; i++)
        if (wisp_fastbox_waiting(inbox[i].ring))
            return true;
    return false;
}

void wisp_p2p_progress_thread(bool rung)
{
    wisp_p2p.ring_always = rung;
#if defined(OPEN_MPI)
    wisp_p2p.waitall_polls = true;
#endif
}

bool wisp_p2p_nap(long ns)
{
    if (!wisp_p2p.on)
        return false;
    wisp_doorbell_wait_for(bell(wisp_p2p.node_rank), has_message, NULL, ns);
    return true;
}

void wisp_p2p_nap_end(void)
{
    if (wisp_p2p.on)
        wisp_doorbell_ring(bell(wisp_p2p.node_rank));
}

void wisp_p2p_poke(void)
{
    int flag;
    if (poke_comm == MPI_COMM_NULL) /* WISP_SHM=off: no engine to keep moving */
        return;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, poke_comm, &flag, MPI_STATUS_IGNORE);
}

void wisp_p2p_poke_idle(void)
{
    /* Threads may count over each other (a relaxed load and store, no
     * locked instruction): it only spaces the pokes. */
    static _Atomic unsigned polls;
    unsigned n = atomic_load_explicit(&polls, memory_order_relaxed) + 1;
    atomic_store_explicit(&polls, n, memory_order_relaxed);
    if (n % POKE_EVERY == 0)
        wisp_p2p_poke();
}

/*
 * Waiting backs off. On a node with more processes than cores (sleepy),
 * the process this one waits for may well be waiting for its core: after a
 * few idle polls it yields the core at each poll, and every 64th naps on
 * its doorbell, which a local peer rings when it gives it something, each
 * nap longer (events of the MPI ring no bell: a short wait of the MPI's
 * loses little, a long one costs no core). Measured with pairs of 4
 * processes on 2 cores, a spin of 256 polls before yielding tripled the
 * small-message latency against a spin of 16 (docs/benchmarks.md).
 * Elsewhere it spins as the MPI's own waits do, then yields at every poll
 * after core/wait.h's spin, which adapts to what the yields find: on a
 * core shared with other jobs the peer may wait behind this process.
 */
void wisp_p2p_wait_until(bool (*done)(void *), void *arg)
{
    unsigned idle = 0, naps = 0;
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    while (!done(arg)) {
        if (wisp_p2p_progress()) {
            idle = naps = 0;
            wisp_core_wait_end(&w); /* an idle stretch is over: the spin starts again */
            w = (struct wisp_core_wait)WISP_CORE_WAIT_INIT;
            continue;
        }
        idle++;
        wisp_cpu_relax(); /* fewer loads of the line a peer is about to write */
        bool rest = wisp_p2p.sleepy && idle > SPIN_SLEEPY;
        bool nap = rest && idle % 64 == 0;
        if (idle % POKE_EVERY == 0 || nap || w.yielding) /* a yield's poll: 1 us or more */
            wisp_p2p_poke();
        bool yield = (rest && !nap) || (!rest && wisp_core_wait_due(&w));
        /* The rescuer looks only when no pass was made for a while, so the
         * lock is let go between polls only for other application threads
         * and around a yield or a nap. */
        if (!nap && !yield && !wisp_p2p.threads)
            continue;
        wisp_p2p_unlock();
        if (nap) {
            long ns = (long)NAP_MIN_NS << (naps < 5 ? naps : 5);
            naps++;
            wisp_doorbell_wait_for(bell(wisp_p2p.node_rank), has_message, NULL,
                                   ns < NAP_NS ? ns : NAP_NS);
        } else if (yield) {
            wisp_core_wait_yield(&w);
        }
        wisp_p2p_lock();
    }
    wisp_core_wait_end(&w);
}
