/*
 * wisp's requests and matched-probe messages: objects of one pool, handed to
 * the application as MPI_Request / MPI_Message values the MPI never
 * produces. MPICH's handles are integers whose two top bits give the kind
 * (00 is "invalid" and used only by the null handles, 0x2c000000 and up),
 * so wisp's are 0x04000000 | index. Open MPI's are pointers, so wisp's are
 * addresses inside its pool.
 */
#include "p2p/request.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/log.h"
#include "core/states.h"
#include "core/wrapper.h"
#include "p2p/datatype.h"
#include "p2p/lock.h"
#include "p2p/state.h"

struct wisp_p2p_pool wisp_p2p_pool;
static struct wisp_p2p_req *free_list;

/*
 * Sends completed at once (immediate) all share one complete request, but
 * each gets a handle of its own, as an MPI's requests do (tools key by
 * them): the next value of a range that only these handles use, which
 * wisp_p2p_req_of maps to the shared request. No allocation per send.
 */
static unsigned long sent_count; /* lock held */

#if defined(MPICH)
_Static_assert(WISP_P2P_POOL_SIZE <= WISP_P2P_INDEX_MASK + 1, "indices fit beside the tag");
enum { SENT_NUMBERS = WISP_P2P_INDEX_MASK + 1 };

/* The handle of a send completed at once, by its number. */
static MPI_Request sent_handle(unsigned long n)
{
    return (MPI_Request)(WISP_P2P_SENT_TAG | (int)n);
}
MPI_Request wisp_p2p_req_handle(const struct wisp_p2p_req *req)
{
    if (req->life == WISP_P2P_LIFE_SENT) /* never 0x08000000 itself, MPICH's MPI_GROUP_NULL */
        return sent_handle(sent_count++ % WISP_P2P_INDEX_MASK + 1);
    return (MPI_Request)(WISP_P2P_HANDLE_TAG | (int)(req - WISP_P2P_POOL(reqs)));
}
struct wisp_p2p_req *wisp_p2p_msg_of(MPI_Message handle)
{
    return wisp_p2p_pool_at((unsigned)handle);
}
MPI_Message wisp_p2p_msg_handle(const struct wisp_p2p_req *req)
{
    return (MPI_Message)(WISP_P2P_HANDLE_TAG | (int)(req - WISP_P2P_POOL(reqs)));
}
#else
enum { SENT_NUMBERS = WISP_P2P_SENT_RANGE };

static MPI_Request sent_handle(unsigned long n)
{
    return (MPI_Request)(void *)(WISP_P2P_POOL(sent_range) + n);
}
MPI_Request wisp_p2p_req_handle(const struct wisp_p2p_req *req)
{
    if (req->life == WISP_P2P_LIFE_SENT)
        return sent_handle(sent_count++ % WISP_P2P_SENT_RANGE);
    return (MPI_Request)(void *)req;
}
struct wisp_p2p_req *wisp_p2p_msg_of(MPI_Message handle)
{
    return wisp_p2p_pool_at(handle);
}
MPI_Message wisp_p2p_msg_handle(const struct wisp_p2p_req *req)
{
    return (MPI_Message)(void *)req;
}
#endif

/* Integer handles, for Fortran (MPI_Request_c2f; Open MPI's own are indices
 * of its table, from 0 up) and for the MPI-5 standard ABI's
 * MPI_Request_toint: wisp's requests and messages by index, then the sends
 * completed at once by number, so that MPI_Request_f2c gives each its own
 * handle back (and makes none, which needs the lock). */
enum { INT_BASE = 0x40000000, INT_SENT = INT_BASE + WISP_P2P_POOL_SIZE };
_Static_assert(INT_SENT + (long long)SENT_NUMBERS <= 0x7fffffff, "integer handles fit an int");

int wisp_p2p_req_int(const struct wisp_p2p_req *req)
{
    return INT_BASE + (int)(req - WISP_P2P_POOL(reqs));
}

struct wisp_p2p_req *wisp_p2p_req_of_int(int handle)
{
    struct wisp_p2p_req *reqs = WISP_P2P_POOL(reqs);
    if (!reqs || handle < INT_BASE || (size_t)(handle - INT_BASE) >= WISP_P2P_POOL(used))
        return NULL;
    return &reqs[handle - INT_BASE];
}

/* The number of a send completed at once, from its handle. */
static inline unsigned long sent_number(MPI_Request handle)
{
#if defined(MPICH)
    return (unsigned)handle & WISP_P2P_INDEX_MASK;
#else
    return (unsigned long)((const char *)(void *)handle - WISP_P2P_POOL(sent_range));
#endif
}

/* A request's or message's integer handle, and back; `mpi` converts the
 * MPI's own (MPI_Request_c2f or MPI_Request_toint where those are functions:
 * MPICH's c2f are macros, and these are not compiled there). */
static inline int request_int(MPI_Request request, int (*mpi)(MPI_Request))
{
    struct wisp_p2p_req *req = wisp_p2p_req_of(request);
    if (!req)
        return mpi(request);
    return req->life == WISP_P2P_LIFE_SENT ? INT_SENT + (int)sent_number(request)
                                           : wisp_p2p_req_int(req);
}
static inline MPI_Request request_of_int(int handle, MPI_Request (*mpi)(int))
{
    if (handle >= INT_SENT && handle - INT_SENT < SENT_NUMBERS && WISP_P2P_POOL(sent))
        return sent_handle((unsigned long)(handle - INT_SENT));
    struct wisp_p2p_req *req = wisp_p2p_req_of_int(handle);
    return req ? wisp_p2p_req_handle(req) : mpi(handle);
}
static inline int message_int(MPI_Message message, int (*mpi)(MPI_Message))
{
    struct wisp_p2p_req *req = wisp_p2p_msg_of(message);
    return req ? wisp_p2p_req_int(req) : mpi(message);
}
static inline MPI_Message message_of_int(int handle, MPI_Message (*mpi)(int))
{
    struct wisp_p2p_req *req = wisp_p2p_req_of_int(handle);
    return req ? wisp_p2p_msg_handle(req) : mpi(handle);
}

#ifdef WISP_HAVE_MPI_Request_c2f
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "wisp's integer handles are MPI_Fint");
MPI_Fint wisp_p2p_request_c2f(MPI_Request request)
{
    return request_int(request, PMPI_Request_c2f);
}
MPI_Request wisp_p2p_request_f2c(MPI_Fint request)
{
    return request_of_int(request, PMPI_Request_f2c);
}
MPI_Fint wisp_p2p_message_c2f(MPI_Message message)
{
    return message_int(message, PMPI_Message_c2f);
}
MPI_Message wisp_p2p_message_f2c(MPI_Fint message)
{
    return message_of_int(message, PMPI_Message_f2c);
}
#endif
#ifdef WISP_HAVE_MPI_Request_toint
int wisp_p2p_request_toint(MPI_Request request)
{
    return request_int(request, PMPI_Request_toint);
}
MPI_Request wisp_p2p_request_fromint(int request)
{
    return request_of_int(request, PMPI_Request_fromint);
}
int wisp_p2p_message_toint(MPI_Message message)
{
    return message_int(message, PMPI_Message_toint);
}
MPI_Message wisp_p2p_message_fromint(int message)
{
    return message_of_int(message, PMPI_Message_fromint);
}
#endif

/* The pool's address space; with Open MPI after the range of the sent
 * handles, in one reservation, so that one comparison tells a handle of
 * wisp's from a pointer of the MPI's (wisp_p2p_any_ours). Lock held: the
 * fields are stored one by one (request.h says why relaxed is enough). */
#define SET(field, value) atomic_store_explicit(&p->field, value, memory_order_relaxed)
static void reserve(struct wisp_p2p_pool *p)
{
    wisp_core_begin(WISP_CORE_REQUESTS); /* before a handle of wisp's exists */
    size_t pool = sizeof(struct wisp_p2p_req) * WISP_P2P_POOL_SIZE, sent = 0;
#if !defined(MPICH)
    sent = WISP_P2P_SENT_RANGE;
#endif
    char *range =
        mmap(NULL, sent + pool, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED || mprotect(range + sent, pool, PROT_READ | PROT_WRITE))
        wisp_fatal("cannot reserve address space for %d requests", WISP_P2P_POOL_SIZE);
    SET(reqs, (struct wisp_p2p_req *)(void *)(range + sent));
#if !defined(MPICH)
    SET(sent_range, range);
    SET(base, (uintptr_t)range);
    SET(span, sent + pool);
#endif
}

struct wisp_p2p_req *wisp_p2p_req_new(uint8_t kind, enum wisp_p2p_life life)
{
    struct wisp_p2p_pool *p = &wisp_p2p_pool;
    if (!WISP_P2P_POOL(reqs))
        reserve(p);
    struct wisp_p2p_req *req = free_list;
    if (req) {
        free_list = (struct wisp_p2p_req *)req->link.next;
    } else {
        size_t used = WISP_P2P_POOL(used);
        if (used == WISP_P2P_POOL_SIZE)
            wisp_fatal("more than %d point-to-point requests alive at once", WISP_P2P_POOL_SIZE);
        req = &WISP_P2P_POOL(reqs)[used];
        SET(used, used + 1); /* a load and a store: the lock makes this the only writer */
    }
    memset(req, 0, sizeof *req);
    wisp_list_init(&req->link);
    wisp_list_init(&req->rlink);
    wisp_list_init(&req->lent);
    req->kind = kind;
    req->life = life;
    req->inner = req->anchor = MPI_REQUEST_NULL;
    req->slot = -1;
    return req;
}

struct wisp_p2p_req *wisp_p2p_req_sent(void)
{
    struct wisp_p2p_pool *p = &wisp_p2p_pool;
    if (!WISP_P2P_POOL(sent)) {
        struct wisp_p2p_req *sent = wisp_p2p_req_new(WISP_P2P_SEND, WISP_P2P_LIFE_SENT);
        sent->st_source = MPI_ANY_SOURCE;
        sent->st_tag = MPI_ANY_TAG;
        sent->st_error = MPI_SUCCESS;
        SET(sent, sent);
    }
    return WISP_P2P_POOL(sent);
}

/* Through wisp_p2p_req_move only: the move left nobody holding it. */
void wisp_p2p_req_release(struct wisp_p2p_req *req)
{
    if (req->tmp) /* free() is wisp's heap's, not free of charge: most requests have none */
        free(req->tmp);
    if (req->layout)
        wisp_dt_desc_release(req->layout);
    if (req->send_layout)
        wisp_dt_desc_release(req->send_layout);
    if (req->type_ref == WISP_P2P_TYPE_HELD)
        wisp_p2p_type_unhold(req->type);
    if (req->anchor != MPI_REQUEST_NULL)
        PMPI_Request_free(&req->anchor);
    req->kind = 0;
    req->link.next = (struct wisp_list *)free_list;
    free_list = req;
}

#if !defined(MPICH) && !defined(OPEN_MPI)
/* The standard ABI leaves a status's hidden fields (MPI_internal) to the
 * implementation. Where they hold the count and the cancelled flag as
 * MPICH's do (two ints: the count's low word, and its high word shifted left
 * past the flag), found by setting them through the MPI and checked by
 * reading them back through it, wisp writes them directly; elsewhere it
 * sets them through the MPI, two calls per message. */
static int count_lo = -1, count_hi; /* indices into MPI_internal; -1: through the MPI */
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void status_encode(MPI_Status *s, int lo, int hi, uint64_t bytes, bool cancelled)
{
    s->MPI_internal[lo] = (int)bytes;
    s->MPI_internal[hi] = (int)((bytes >> (8 * sizeof(int))) << 1) | (cancelled != 0);
}

static bool status_reads(const MPI_Status *s, uint64_t bytes, bool cancelled)
{
    MPI_Count count = -1;
    int flag = -1;
    return PMPI_Get_elements_x(s, MPI_BYTE, &count) == MPI_SUCCESS && count == (MPI_Count)bytes &&
           PMPI_Test_cancelled(s, &flag) == MPI_SUCCESS && flag == (int)cancelled;
}

static void learn_layout(void)
{
    static const uint64_t probes[] = {0, 1, 0x7fffffff, 0x123456789};
    enum { WORDS = sizeof((MPI_Status *)0)->MPI_internal / sizeof(int) };
    MPI_Status s;
    memset(&s, 0, sizeof s);
    if (PMPI_Status_set_elements_x(&s, MPI_BYTE, 0x123456789) != MPI_SUCCESS ||
        PMPI_Status_set_cancelled(&s, 1) != MPI_SUCCESS)
        return;
    int lo = -1, hi = -1;
    for (int i = 0; i < WORDS; i++) {
        if (s.MPI_internal[i] == 0x23456789)
            lo = i;
        else if (s.MPI_internal[i] == ((0x1 << 1) | 1))
            hi = i;
    }
    if (lo < 0 || hi < 0)
        return;
    for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++)
        for (int c = 0; c < 2; c++) {
            memset(&s, 0, sizeof s);
            status_encode(&s, lo, hi, probes[p], c);
            if (!status_reads(&s, probes[p], c))
                return;
        }
    count_lo = lo, count_hi = hi;
}
#endif

void wisp_p2p_status_set(MPI_Status *status, int source, int tag, uint64_t bytes, bool cancelled)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = source;
    status->MPI_TAG = tag;
    /* The hidden fields directly, as the MPI's own MPI_Status_set_* write
     * them: two calls per message would cost more than the message. */
#if defined(MPICH)
    status->count_lo = (int)bytes;
    status->count_hi_and_cancelled = (int)((bytes >> (8 * sizeof(int))) << 1) | (cancelled != 0);
#elif defined(OPEN_MPI)
    status->_ucount = (size_t)bytes;
    status->_cancelled = cancelled;
#else
    pthread_once(&layout_once, learn_layout);
    if (count_lo >= 0) {
        status_encode(status, count_lo, count_hi, bytes, cancelled);
        return;
    }
    PMPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)bytes);
    PMPI_Status_set_cancelled(status, cancelled);
#endif
}

int wisp_p2p_req_status(struct wisp_p2p_req *req, MPI_Status *status)
{
    if (req->from_inner) {
        if (status != MPI_STATUS_IGNORE) { /* MPI_ERROR stays the caller's */
            int error = status->MPI_ERROR;
            *status = req->inner_status;
            status->MPI_ERROR = error;
        }
        return req->st_error;
    }
    wisp_p2p_status_set(status, req->st_source, req->st_tag, req->st_bytes, req->st_cancelled);
    return req->st_error;
}

void wisp_p2p_req_bad_move(const struct wisp_p2p_req *req, enum wisp_p2p_event event)
{
    static const char *const lives[] = {
#define X(life) #life,
        WISP_P2P_LIVES(X)
#undef X
    };
    static const char *const events[] = {
#define X(event, name) name,
        WISP_P2P_REQ_EVENTS(X)
#undef X
    };
    if (WISP_STATES_CHECKED) {
        fprintf(stderr, "wisp: internal error: a request in %s cannot %s\n", lives[req->life],
                events[event]);
        abort();
    }
}

struct wisp_p2p_req *wisp_p2p_above_start(void *op, MPI_Comm comm, MPI_Request *handle)
{
    struct wisp_p2p_req *req = wisp_p2p_req_new(WISP_P2P_ABOVE, WISP_P2P_LIFE_ACTIVE);
    req->form = WISP_P2P_FORM_ABOVE;
    req->above = op;
    req->handle = comm;
    wisp_p2p_req_move(req, WISP_P2P_HOLD);
    wisp_p2p_count_add(&wisp_p2p.above, 1);
    wisp_p2p_count_add(&wisp_p2p.outstanding, 1);
    *handle = wisp_p2p_req_handle(req);
    return req;
}

void wisp_p2p_above_finish(struct wisp_p2p_req *req, int rc)
{
    req->above = NULL;
    req->st_source = MPI_ANY_SOURCE;
    req->st_tag = MPI_ANY_TAG;
    req->st_error = rc;
    wisp_p2p_count_add(&wisp_p2p.above, -1);
    wisp_p2p_count_add(&wisp_p2p.outstanding, -1);
    wisp_p2p_req_move(req, WISP_P2P_COMPLETE);
    wisp_p2p_req_move(req, WISP_P2P_LET_GO); /* released here if the user freed it */
}

void wisp_p2p_req_retire(struct wisp_p2p_req *req, MPI_Request *handle)
{
    if (req->form == WISP_P2P_PERSISTENT) {
        wisp_p2p_req_move(req, WISP_P2P_REST);
        return;
    }
    *handle = MPI_REQUEST_NULL;
    wisp_p2p_req_move(req, WISP_P2P_FREE);
}
