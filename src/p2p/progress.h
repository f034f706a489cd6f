/*
 * The engine's progress and waiting (progress.c): a pass over the rings,
 * the slots and the copies; the rescuer thread; the progress thread's
 * passes and naps; pokes of the MPI.
 */
#ifndef WISP_P2P_PROGRESS_H
#define WISP_P2P_PROGRESS_H

#include <stdbool.h>

#pragma GCC visibility push(hidden)

/* One pass over everything in flight; true when something moved. Lock held. */
bool wisp_p2p_progress(void);
/* The same for a test (MPI_Test, MPI_Testany), which a loop may poll
 * millions of times: after a pass that moved nothing, a whole pass only
 * every few polls, unless a peer gave this process something. Lock held. */
bool wisp_p2p_progress_test(void);
/* The progress thread (src/progress; the MPI is MPI_THREAD_MULTIPLE): one
 * pass, calls into the MPI included, unless an application thread is inside
 * the engine or nothing waits (false then). Takes the lock. */
bool wisp_p2p_progress_async(void);
/* A progress thread moves the engine and the MPI from now on. With `rung`
 * (it has a core of its own), it waits for local work in wisp_p2p_nap: on
 * this process's doorbell, which local peers ring when they give it
 * something, at most `ns`; and this process rings its peers' doorbells
 * after every put (WISP_PROGRESS is read alike by every process of a job,
 * so their threads wait there too; one that does not merely wakes on its
 * timer). Under Open MPI, MPI_Waitall of the MPI's requests then polls
 * MPI_Testall: Open MPI 4.1's MPI_Waitall misses a request that fails (a
 * truncated receive) while another thread moves the MPI, and hangs
 * (reproduced without wisp; MPI_Wait, MPI_Waitany, MPI_Waitsome and
 * MPI_Testall do not). wisp_p2p_nap is false, at once, without the
 * engine. */
void wisp_p2p_progress_thread(bool rung);
bool wisp_p2p_nap(long ns);
void wisp_p2p_nap_end(void); /* wakes the thread from wisp_p2p_nap */

/* Let the MPI move its own messages (it does only when called). */
void wisp_p2p_poke(void);
/* After a poll (test, probe) that wisp answered alone and found nothing:
 * the same, every so many polls (a poke costs as much as the MPI's own poll). */
void wisp_p2p_poke_idle(void);
/* Wait, progressing the engine and the MPI, until `done(arg)`; with the lock
 * held on entry and exit (dropped while idle). */
void wisp_p2p_wait_until(bool (*done)(void *), void *arg);

void wisp_p2p_progress_init(int node_size);
void wisp_p2p_progress_fini(void);
void wisp_p2p_poke_init(void);
void wisp_p2p_poke_fini(void);
void wisp_p2p_rescuer_start(void);
void wisp_p2p_rescuer_stop(void);

#pragma GCC visibility pop

#endif
