/*
 * core/wait.h, the policy of wisp's waits: the first polls spin without
 * the clock; a wait gives its core away once its spin time has passed, and
 * from then on at every poll; what a wait's yields found moves the spin
 * within its bounds (shorter after a yield that let the awaited one run,
 * longer after one that lost a time slice, back up after yields that found
 * the core free; shorter after a wait that was preempted while it spun and
 * was over when it ran again). Then two threads on one core ping-pong through the
 * policy's waits: each exchange needs the other thread to run, which only
 * a yield gives it (a wait that never yielded would take a time slice per
 * exchange; one that slept without a waker would hang: the alarm ends it).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "core/wait.h"

enum { EXCHANGES = 2000 };

static uint64_t spin(void)
{
    return atomic_load(&wisp_core_wait_spin);
}

/* A finished wait that yielded, with the given findings. */
static void learn(uint64_t switched_ns, unsigned after, bool busy)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    w.until = w.last = wisp_core_ticks();
    w.yielding = true;
    w.switched_ns = switched_ns;
    w.after = after;
    w.busy = busy;
    wisp_core_wait_end(&w);
}

static _Atomic unsigned turn;

static void wait_turn(unsigned want)
{
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    while (atomic_load_explicit(&turn, memory_order_acquire) != want)
        if (wisp_core_wait_due(&w))
            wisp_core_wait_yield(&w);
    wisp_core_wait_end(&w);
}

static void *partner(void *arg)
{
    (void)arg;
    for (unsigned i = 0; i < EXCHANGES; i++) {
        wait_turn(2 * i + 1);
        atomic_store_explicit(&turn, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(void)
{
    alarm(60);
    /* The first wait sets the spin up at its quiet length. */
    struct wisp_core_wait w = WISP_CORE_WAIT_INIT;
    for (unsigned p = 1; p < WISP_CORE_WAIT_FREE; p++)
        CHECK(!wisp_core_wait_due(&w)); /* no clock yet */
    unsigned long polls = 0;
    while (!wisp_core_wait_due(&w) && polls < 1000000000ul)
        polls++;
    CHECK(w.yielding);
    CHECK(wisp_core_wait_due(&w)); /* from then on, every poll */
    uint64_t quiet = spin();
    CHECK(quiet > 0);

    learn(5000, 1, false); /* the awaited one ran here: a quarter */
    CHECK(spin() == quiet / 4);
    for (int i = 0; i < 20; i++)
        learn(5000, 0, false);
    uint64_t shortest = spin();
    CHECK(shortest > 0 && shortest < quiet / 4);
    learn(5000, 1, false);
    CHECK(spin() == shortest); /* no shorter than its bound */
    learn(5000, 50, false);    /* another ran, the wait went on: no lesson */
    CHECK(spin() == shortest);
    learn(0, 50, false); /* the core was free: a little longer */
    CHECK(spin() > shortest && spin() < 2 * shortest);
    uint64_t before = spin();
    learn(400000, 0, true); /* a time slice lost: twice as long */
    CHECK(spin() == 2 * before);
    for (int i = 0; i < 40; i++)
        learn(0, 50, false);
    CHECK(spin() == quiet); /* back to the quiet spin, not beyond */
    learn(400000, 0, true);
    CHECK(spin() == quiet); /* the quiet spin is the longest */
    struct wisp_core_wait spun = WISP_CORE_WAIT_INIT;
    wisp_core_wait_end(&spun); /* a wait too short to read the clock teaches nothing */
    CHECK(spin() == quiet);
    spun.until = spun.last = wisp_core_ticks();
    wisp_core_wait_end(&spun); /* nor one that spun on its core throughout */
    CHECK(spin() == quiet);
    spun.last = wisp_core_ticks() - wisp_core_ns_to_ticks(1000000);
    wisp_core_wait_end(&spun); /* one preempted, over when it ran again: a quarter */
    CHECK(spin() == quiet / 4);
    for (int i = 0; i < 20; i++)
        learn(0, 50, false);
    CHECK(spin() == quiet);

    /* Two threads on one core. */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
    if (sched_setaffinity(0, sizeof one, &one))
        perror("sched_setaffinity"); /* then they may share no core: still a check */
    pthread_t t;
    CHECK(pthread_create(&t, NULL, partner, NULL) == 0);
    for (unsigned i = 0; i < EXCHANGES; i++) {
        atomic_store_explicit(&turn, 2 * i + 1, memory_order_release);
        wait_turn(2 * i + 2);
    }
    pthread_join(t, NULL);
    CHECK(atomic_load(&turn) == 2 * EXCHANGES);
    uint64_t after = spin();
    CHECK(after >= shortest && after <= quiet);
    printf("wait_test: %s (spin after %d exchanges on one core: %.0f%% of the quiet one)\n",
           failures ? "FAILED" : "ok", EXCHANGES, 100.0 * (double)after / (double)quiet);
    return failures ? 1 : 0;
}
