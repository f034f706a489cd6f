/* The engine lock (see lock.h). */
#include "p2p/lock.h"

#include "core/log.h"
#include "core/membarrier.h"

struct wisp_p2p_locking wisp_p2p_locking;
pthread_mutex_t wisp_p2p_mutex = PTHREAD_MUTEX_INITIALIZER;
_Atomic bool wisp_p2p_inside, wisp_p2p_rescuer_inside;

void wisp_p2p_lock_init(bool rescuer, bool threads)
{
    bool asym = rescuer && wisp_membarrier_register();
    wisp_p2p_locking = (struct wisp_p2p_locking){
        .on = rescuer || threads, .mutex = threads || (rescuer && !asym), .asym = asym};
    if (rescuer && !asym)
        wisp_log(2, "engine lock: no membarrier(2), every MPI call takes a mutex");
}

void wisp_p2p_lock_fini(void)
{
    wisp_p2p_locking = (struct wisp_p2p_locking){0};
}

/* The rescuer and the progress thread (src/progress) take turns. */
static pthread_mutex_t rescuers = PTHREAD_MUTEX_INITIALIZER;

bool wisp_p2p_rescuer_enter(void)
{
    if (!wisp_p2p_locking.asym)
        return !pthread_mutex_trylock(&wisp_p2p_mutex);
    if (pthread_mutex_trylock(&rescuers))
        return false;
    atomic_store_explicit(&wisp_p2p_rescuer_inside, true, memory_order_relaxed);
    wisp_membarrier();
    if (!atomic_load_explicit(&wisp_p2p_inside, memory_order_acquire))
        return true;
    atomic_store_explicit(&wisp_p2p_rescuer_inside, false, memory_order_release);
    pthread_mutex_unlock(&rescuers);
    return false;
}

void wisp_p2p_rescuer_leave(void)
{
    if (wisp_p2p_locking.asym) {
        atomic_store_explicit(&wisp_p2p_rescuer_inside, false, memory_order_release);
        pthread_mutex_unlock(&rescuers);
    } else {
        pthread_mutex_unlock(&wisp_p2p_mutex);
    }
}
