/*
 * MPI_Win_allocate's windows that no ghost serves, made by MPI_Win_create
 * over memory of wisp's shared heap where the MPI's own cost far more to
 * make and are no faster to use (WISP_WIN_ALLOCATE=auto: MPICH 4.0,
 * core/quirks.c). The window keeps its memory in an attribute of wisp's,
 * whose delete callback gives it back to the heap when MPI_Win_free frees
 * the window; MPI_Win_get_attr still says MPI_WIN_FLAVOR_ALLOCATE (win.c).
 *
 * Every process of the communicator must make the window the same way: it
 * is decided together, by an allreduce in the creation (a collective call
 * of them all already), so that one whose heap is full sends them all to
 * the MPI's MPI_Win_allocate.
 */
#include "ghost/heap_win.h"

#include <pthread.h>
#include <stdatomic.h>

#include "core/config.h"
#include "core/log.h"
#include "core/quirks.h"
#include "shm/heap.h"

/* Whole pages: MPICH 4.0.2 over UCX targets the start of the page that
 * holds a window of its own that begins within it (tests/mpi/rma_attrs.c). */
enum { PAGE = 4096 };

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static _Atomic bool made;

static int give_back(MPI_Win win, int key, void *memory, void *extra)
{
    (void)win, (void)key, (void)extra;
    wisp_shm_heap_free(memory);
    return MPI_SUCCESS;
}

static void make_keyval(void)
{
    if (PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, give_back, &keyval, NULL) != MPI_SUCCESS)
        keyval = MPI_KEYVAL_INVALID;
}

static bool wanted(void)
{
    switch (wisp_config.WIN_ALLOCATE) {
    case WISP_WIN_ALLOCATE_HEAP:
        return true;
    case WISP_WIN_ALLOCATE_MPI:
        return false;
    default:
        return wisp_core_quirks_slow_win_allocate();
    }
}

bool wisp_ghost_heap_win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                                  void *baseptr, MPI_Win *win, int *rc)
{
    int inter = 1;
    if (!wanted() || !wisp_shm_heap.base || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return false; /* the same in every process: settings and communicators are the job's */
    /* Arguments the MPI rejects get its own error, from its MPI_Win_allocate.
     * No bytes, no memory: the base is NULL, as MPICH gives it. */
    void *memory =
        size > 0 && disp_unit > 0 ? wisp_shm_heap_alloc((size_t)size, PAGE, false) : NULL;
    int mine = size == 0 ? disp_unit > 0 : memory != NULL, all = 0;
    if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS || !all) {
        wisp_shm_heap_free(memory);
        return false;
    }
    pthread_once(&keyval_once, make_keyval);
    *rc = PMPI_Win_create(memory, size, disp_unit, info, comm, win);
    if (*rc != MPI_SUCCESS) {
        wisp_shm_heap_free(memory);
        return true;
    }
    if (keyval == MPI_KEYVAL_INVALID || PMPI_Win_set_attr(*win, keyval, memory) != MPI_SUCCESS)
        wisp_log(1,
                 "MPI_Win_allocate: the window's memory (%lld bytes) stays in the shared heap "
                 "after MPI_Win_free (no attribute to give it back)",
                 (long long)size);
    if (!atomic_exchange_explicit(&made, true, memory_order_relaxed))
        wisp_log(2, "MPI_Win_allocate: windows no ghost serves are made by MPI_Win_create over "
                    "the shared heap (WISP_WIN_ALLOCATE)");
    *(void **)baseptr = memory;
    return true;
}

bool wisp_ghost_heap_win_any(void)
{
    return atomic_load_explicit(&made, memory_order_relaxed);
}

bool wisp_ghost_heap_win_is(MPI_Win win)
{
    void *memory;
    int found = 0;
    return wisp_ghost_heap_win_any() && keyval != MPI_KEYVAL_INVALID &&
           PMPI_Win_get_attr(win, keyval, &memory, &found) == MPI_SUCCESS && found;
}
