/*
 * The engine lock. Application threads (MPI_THREAD_MULTIPLE) share a mutex.
 * The rescuer thread (progress.c) is kept out without a locked instruction on
 * the application's side, which takes the lock on every MPI call: a thread
 * inside the engine says so with a plain store, and the rescuer, before it
 * looks, makes every thread of the process execute a memory barrier
 * (membarrier(2), private expedited): the asymmetric form of Dekker's
 * algorithm. Either the rescuer then sees the application inside and backs
 * off, or the application sees the rescuer inside and waits for it. Where
 * membarrier is missing, the rescuer takes the mutex like everyone else.
 */
#ifndef WISP_P2P_LOCK_H
#define WISP_P2P_LOCK_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#pragma GCC visibility push(hidden)

struct wisp_p2p_locking {
    bool on;    /* a second thread may enter: the rescuer, or the application's */
    bool mutex; /* the application takes the mutex: threads, or no membarrier */
    bool asym;  /* the rescuer is kept out by the inside/rescuer flags */
};
extern struct wisp_p2p_locking wisp_p2p_locking;
extern pthread_mutex_t wisp_p2p_mutex;
extern _Atomic bool wisp_p2p_inside, wisp_p2p_rescuer_inside;

/* A spin-wait hint: the core backs off the lines it polls for a moment. */
static inline void wisp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* One round of waiting for another thread or process: a pause at first,
 * then, as the wait goes on, the core given away, since what it waits for
 * may need it (more threads than cores). `rounds` starts at 0. */
static inline void wisp_backoff(unsigned *rounds)
{
    if (++*rounds < 1024)
        wisp_cpu_relax();
    else
        sched_yield();
}

/* Set up for a process with a rescuer thread and/or application threads. */
void wisp_p2p_lock_init(bool rescuer, bool threads);
void wisp_p2p_lock_fini(void);

static inline void wisp_p2p_lock(void)
{
    if (!wisp_p2p_locking.on)
        return;
    if (wisp_p2p_locking.mutex)
        pthread_mutex_lock(&wisp_p2p_mutex);
    if (!wisp_p2p_locking.asym)
        return;
    for (;;) {
        atomic_store_explicit(&wisp_p2p_inside, true, memory_order_relaxed);
        atomic_signal_fence(memory_order_seq_cst); /* the rescuer's membarrier orders it */
        if (!atomic_load_explicit(&wisp_p2p_rescuer_inside, memory_order_acquire))
            return;
        atomic_store_explicit(&wisp_p2p_inside, false, memory_order_relaxed);
        /* The rescuer may have been preempted inside: back off, not spin. */
        for (unsigned rounds = 0;
             atomic_load_explicit(&wisp_p2p_rescuer_inside, memory_order_acquire);)
            wisp_backoff(&rounds);
    }
}

static inline void wisp_p2p_unlock(void)
{
    if (!wisp_p2p_locking.on)
        return;
    if (wisp_p2p_locking.asym)
        atomic_store_explicit(&wisp_p2p_inside, false, memory_order_release);
    if (wisp_p2p_locking.mutex)
        pthread_mutex_unlock(&wisp_p2p_mutex);
}

/* The rescuer: true when it may move the engine now (no application thread
 * inside); then wisp_p2p_rescuer_leave when done. */
bool wisp_p2p_rescuer_enter(void);
void wisp_p2p_rescuer_leave(void);

#pragma GCC visibility pop

#endif
