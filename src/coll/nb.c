/*
 * The nonblocking collectives through the area: coroutines that run the
 * blocking algorithms (nb.h tells the story).
 *
 * An operation's states, each move checked where it comes from (op_move):
 *
 *   QUEUED   started by the user, behind an earlier one of its communicator
 *   RUNNING  on its stack, stopped at a wait for another member (or moving)
 *   RAN      its algorithm returned: the result is in place, but for what
 *            `settle` does (unpacking a type that is not one block, through
 *            the MPI's MPI_Unpack: in a call of the user's, never the
 *            rescuer's); its communicator's next operations run meanwhile
 *   DONE     its request completed; the operation is gone
 *
 *   QUEUED -> RUNNING -> RAN -> DONE
 */
#include "coll/nb.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "core/log.h"
#include "p2p/lock.h"
#include "p2p/p2p.h"
#include "ult/fcontext.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define NB_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define NB_TSAN 1
#endif

/* A coroutine's stack: reserved, touched only as deep as the algorithms
 * go (the sanitizers' frames are larger), a guard page below. */
enum { STACK_BYTES = 256 << 10, GUARD = 4096, SPARE_STACKS = 16 };

enum op_state { OP_QUEUED, OP_RUNNING, OP_RAN, OP_DONE };

struct wisp_coll_op {
    enum op_state state;
    struct wisp_coll_comm *c;
    struct wisp_p2p_req *req;
    void (*run)(struct wisp_coll_comm *c, void *args);
    int (*settle)(struct wisp_coll_comm *c, void *args);
    void (*done)(void *args); /* after its request completed; NULL: free(args) */
    void *args;
    int rc; /* an error its algorithm met (wisp_coll_nb_error), or MPI_SUCCESS */
    /* the coroutine */
    char *stack;         /* its mapping, guard first; NULL once it ran */
    wisp_fcontext self;  /* where it stopped */
    wisp_fcontext mover; /* whoever moves it now */
#ifdef NB_ASAN
    void *fake;               /* its fake stack while it does not run */
    const void *mover_bottom; /* the mover's stack */
    size_t mover_size;
#endif
#ifdef NB_TSAN
    void *fiber, *mover_fiber;
#endif
    struct wisp_coll_op *next; /* its communicator's queue */
};

/* The coroutine running on this thread, if any. A coroutine may go on on
 * another thread than the one it stopped on (the rescuer, the progress
 * thread, another of the application's): code that runs in it reads this
 * only through wisp_coll_nb_current, a call, so that no address of the
 * previous thread's variable is kept across a switch. */
static _Thread_local struct wisp_coll_op *running;

__attribute__((noinline)) bool wisp_coll_nb_current(void)
{
    return running != NULL;
}

/* Under the engine lock: the spare stacks, and the communicators with
 * operations in flight (each one's queue: c->nb_first .. c->nb_last). */
static char *spare[SPARE_STACKS];
static int spares;
static struct wisp_coll_comm *busy; /* linked by nb_busy_next */

static void op_move(struct wisp_coll_op *op, enum op_state from, enum op_state to)
{
    if (op->state != from) {
        wisp_log_error("internal error: a nonblocking collective in state %d cannot go to %d",
                       (int)op->state, (int)to);
        abort();
    }
    op->state = to;
}

/* ---- stacks and switches ----------------------------------------------------- */

static char *stack_get(void)
{
    if (spares)
        return spare[--spares];
    char *map = mmap(NULL, GUARD + STACK_BYTES, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED)
        return NULL;
    if (mprotect(map, GUARD, PROT_NONE)) {
        munmap(map, GUARD + STACK_BYTES);
        return NULL;
    }
    return map;
}

static void stack_put(char *map)
{
    if (spares < SPARE_STACKS)
        spare[spares++] = map;
    else
        munmap(map, GUARD + STACK_BYTES);
}

/* In the coroutine, just switched to: where its mover is. */
static void arrived(struct wisp_coll_op *op, struct wisp_transfer t)
{
    op->mover = t.ctx;
#ifdef NB_ASAN
    __sanitizer_finish_switch_fiber(op->fake, &op->mover_bottom, &op->mover_size);
#else
    (void)op;
#endif
}

static void entry(struct wisp_transfer t)
{
    struct wisp_coll_op *op = t.data;
    arrived(op, t);
    op->run(op->c, op->args);
    op_move(op, OP_RUNNING, OP_RAN);
#ifdef NB_ASAN
    __sanitizer_start_switch_fiber(NULL, op->mover_bottom, op->mover_size); /* never back */
#endif
#ifdef NB_TSAN
    __tsan_switch_to_fiber(op->mover_fiber, 0);
#endif
    wisp_ult_jump_fcontext(op->mover, op);
    abort(); /* a coroutine that ran is never moved again */
}

__attribute__((noinline)) void wisp_coll_nb_error(int rc)
{
    if (running->rc == MPI_SUCCESS)
        running->rc = rc;
}

__attribute__((noinline)) void wisp_coll_nb_yield(void)
{
    struct wisp_coll_op *op = running;
#ifdef NB_ASAN
    __sanitizer_start_switch_fiber(&op->fake, op->mover_bottom, op->mover_size);
#endif
#ifdef NB_TSAN
    __tsan_switch_to_fiber(op->mover_fiber, 0);
#endif
    arrived(op, wisp_ult_jump_fcontext(op->mover, op));
}

/* Run `op` (RUNNING) from where it stopped to its next wait or its end. */
static void resume(struct wisp_coll_op *op)
{
    running = op;
#ifdef NB_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, op->stack + GUARD, STACK_BYTES);
#endif
#ifdef NB_TSAN
    op->mover_fiber = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(op->fiber, 0);
#endif
    struct wisp_transfer t = wisp_ult_jump_fcontext(op->self, op);
#ifdef NB_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    op->self = t.ctx;
    running = NULL;
}

/* ---- the queues ------------------------------------------------------------- */

/* `op` (RAN; after `prev` in its queue, or first) completes: its request
 * with it. False where its settle says not yet (it stays RAN). */
static bool complete(struct wisp_coll_op *prev, struct wisp_coll_op *op)
{
    struct wisp_coll_comm *c = op->c;
    int rc = op->settle ? op->settle(c, op->args) : MPI_SUCCESS;
    if (rc == WISP_COLL_NB_NOT_YET)
        return false;
    if (rc == MPI_SUCCESS)
        rc = op->rc;
    if (prev)
        prev->next = op->next;
    else
        c->nb_first = op->next;
    if (c->nb_last == op)
        c->nb_last = prev;
    op_move(op, OP_RAN, OP_DONE);
#ifdef NB_TSAN
    __tsan_destroy_fiber(op->fiber);
#endif
    wisp_p2p_above_finish(op->req, rc);
    if (op->done)
        op->done(op->args);
    else
        free(op->args);
    free(op);
    return true;
}

/* Move `c`'s queue (lock held): the first operation that has not run, from
 * where it stopped, and the next ones once those before ran. An operation
 * with something to settle (an unpacking, which calls the MPI) completes
 * only in a call of the user's (`user`), never in the rescuer's; its phases
 * are over, so the ones behind it move meanwhile (the rescuer's pass must
 * move them: a peer may wait for them while this member is in a call wisp
 * does not see). True if anything moved. */
static bool move_queue(struct wisp_coll_comm *c, bool user)
{
    bool moved = false;
    struct wisp_coll_op *prev = NULL;
    for (struct wisp_coll_op *op = c->nb_first; op;) {
        if (op->state == OP_QUEUED) {
            op_move(op, OP_QUEUED, OP_RUNNING);
            op->self = wisp_ult_make_fcontext(op->stack + GUARD + STACK_BYTES, STACK_BYTES, entry);
        }
        if (op->state == OP_RUNNING) {
            uint64_t phase = c->phase;
            resume(op);
            moved |= c->phase != phase;
            if (op->state != OP_RAN)
                return moved;
            stack_put(op->stack);
            op->stack = NULL;
        }
        struct wisp_coll_op *next = op->next;
        if ((op->settle && !user) || !complete(prev, op))
            prev = op;
        else
            moved = true;
        op = next;
    }
    return moved;
}

static void unbusy(struct wisp_coll_comm *c)
{
    for (struct wisp_coll_comm **at = &busy; *at; at = &(*at)->nb_busy_next)
        if (*at == c) {
            *at = c->nb_busy_next;
            c->nb_busy_next = NULL;
            return;
        }
}

/* wisp_p2p_up.above: every pass of the engine, the rescuer's too. */
static bool move_all(void)
{
    bool moved = false;
    for (struct wisp_coll_comm *c = busy, *next; c; c = next) {
        next = c->nb_busy_next;
        moved |= move_queue(c, false);
        if (!c->nb_first)
            unbusy(c);
    }
    return moved;
}

/* wisp_p2p_up.above_test: the user tests or waits for one of the requests. */
static bool test(struct wisp_p2p_req *req)
{
    struct wisp_coll_comm *c = ((struct wisp_coll_op *)req->above)->c;
    move_queue(c, !wisp_p2p.rescuing);
    if (!c->nb_first)
        unbusy(c);
    return wisp_p2p_req_done(req); /* its operation is gone then */
}

bool wisp_coll_nb_settle(struct wisp_coll_comm *c)
{
    wisp_p2p_lock();
    move_queue(c, true);
    bool empty = !c->nb_first;
    if (empty)
        unbusy(c);
    wisp_p2p_unlock();
    return empty;
}

int wisp_coll_nb_begin(struct wisp_coll_comm *c, void (*run)(struct wisp_coll_comm *, void *),
                       int (*settle)(struct wisp_coll_comm *, void *), void *args,
                       MPI_Request *request)
{
    return wisp_coll_nb_round(c, run, settle, NULL, args, request);
}

int wisp_coll_nb_round(struct wisp_coll_comm *c, void (*run)(struct wisp_coll_comm *, void *),
                       int (*settle)(struct wisp_coll_comm *, void *), void (*done)(void *),
                       void *args, MPI_Request *request)
{
    struct wisp_coll_op *op = calloc(1, sizeof *op);
    wisp_p2p_lock();
    char *stack = op ? stack_get() : NULL;
    if (!stack) {
        wisp_p2p_unlock();
        wisp_log_error("a nonblocking collective: no memory for its stack (%d KiB)",
                       STACK_BYTES >> 10);
        PMPI_Abort(c->handle, 1);
    }
    *op = (struct wisp_coll_op){.state = OP_QUEUED,
                                .c = c,
                                .run = run,
                                .settle = settle,
                                .done = done,
                                .args = args,
                                .rc = MPI_SUCCESS,
                                .stack = stack};
#ifdef NB_TSAN
    op->fiber = __tsan_create_fiber(0);
#endif
    op->req = wisp_p2p_above_start(op, c->handle, request);
    if (c->nb_first) {
        c->nb_last->next = op;
    } else {
        c->nb_first = op;
        c->nb_busy_next = busy;
        busy = c;
    }
    c->nb_last = op;
    move_queue(c, true);
    if (!c->nb_first)
        unbusy(c);
    wisp_p2p_unlock();
    return MPI_SUCCESS;
}

/* ---- start and stop --------------------------------------------------------- */

void wisp_coll_nb_start(void)
{
    wisp_p2p_up.above = move_all;
    wisp_p2p_up.above_test = test;
}

void wisp_coll_nb_stop(void)
{
    /* Operations still in flight at MPI_Finalize belong to an erroneous
     * program: left as they are. */
    busy = NULL;
    while (spares)
        munmap(spare[--spares], GUARD + STACK_BYTES);
}
