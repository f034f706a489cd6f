/*
 * The shared heap never kills a program. Blocks of 1 MiB and more are left
 * to first touch (heap.c, commit_later) and tmpfs allocates a page when it
 * is first touched: if /dev/shm has filled since (another job, the MPI, a
 * data loader), that touch raises SIGBUS, where anonymous memory would have
 * worked. The story, in one place:
 *
 * 1. The fault. A SIGBUS handler, installed when the heap starts serving,
 *    takes faults at heap addresses (BUS_ADRERR). Under a per-process
 *    spinlock it first commits the page (fallocate: room may exist again)
 *    and returns, so the instruction retries on a shared page. When tmpfs
 *    still has no room, the page is a hole (zeros) and the handler maps
 *    private anonymous memory over exactly that page (MAP_FIXED), having
 *    recorded it in a per-process bitmap: a second thread that faulted on
 *    the same page before the mapping finds the record and only retries
 *    (mapping again would wipe the first thread's writes). The program goes
 *    on, that page private to it; WISP_VERBOSE=1 says so once per process
 *    (a line prepared before, written with write(2)).
 *
 * 2. The others. A private page is no longer shared: no other process may
 *    read or write it through the heap. A node-shared table (after the heap
 *    in the same file, committed at MPI_Init) keeps one state per chunk of
 *    the heap (64 KiB; more for heaps over 16 GiB, the table at most 256
 *    KiB), moved by CAS and only out of UNKNOWN (heap.h):
 *    the handler moves its chunk to PRIVATE before it maps; whoever wants
 *    another process to reach a range (wisp_shm_heap_holds: single copy in
 *    p2p, windows the ghosts serve) commits its UNKNOWN chunks whole and
 *    moves them to BACKED, or gets false (a PRIVATE chunk, or no room) and
 *    takes the copying path. Both moves start from UNKNOWN, so exactly one
 *    wins: a handler that loses to BACKED finds its page committed and
 *    retries; a holds() that loses to PRIVATE answers false. A BACKED chunk
 *    has no hole left, so nobody ever faults in it again; that is why a
 *    peer never faults on another partition's hole. Eager commits of whole
 *    chunks (heap.c's commit_range) mark them BACKED at once.
 *
 * 3. Everybody else's SIGBUS. Faults outside the heap, or of another kind
 *    (BUS_ADRERR of a truncated file the program mapped, BUS_MCEERR_*,
 *    kill -BUS), go to the action the program set, as natively: the action
 *    in place when ours was installed, and any the program sets later, since
 *    libwisp interposes sigaction() and signal() for SIGBUS while its handler
 *    is in (the program sees and replaces only its own action; sigset(),
 *    sysv_signal() and the raw system call are not interposed). Chaining
 *    applies the action's mask, SA_NODEFER and SA_RESETHAND; SIG_DFL kills
 *    with SIGBUS (the fault recurs with the default action), SIG_IGN ignores
 *    a sent SIGBUS and, like the kernel, not a fault. One difference stays:
 *    the kernel holds wisp's handler, so a SIGBUS the program set to SIG_IGN
 *    is back to SIG_DFL in a program it exec()s.
 *
 * fork(): the child's partition is a copy read from the file (heap.c), so
 * the private pages are copied over it (wisp_shm_fault_overlay); the child
 * never writes the table and never commits.
 */
#include "shm/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "core/config.h"
#include "core/export.h"
#include "core/log.h"
#include "shm/heap.h"

/* The heap's descriptor (heap.h), defined in the lowest file that reads it:
 * heap.c fills it, and calls down into this file. */
struct wisp_shm_heap wisp_shm_heap;

#define CHUNK     ((size_t)1 << wisp_shm_heap.chunk_shift)
#define WORD_BITS (8 * sizeof(unsigned long))

enum {
    MIN_CHUNK_SHIFT = 16,  /* 64 KiB: what holds() commits past a range, at most */
    MAX_TABLE = 256 << 10, /* larger heaps get larger chunks */
};

/* glibc's sigaction, which ours below (exported) stands before. */
extern int __sigaction(int sig, const struct sigaction *act, struct sigaction *old);
extern __sighandler_t bsd_signal(int sig, __sighandler_t handler);

static int fault_fd = -1; /* the heap file; -1 in a child of fork() */
static bool forked;
static size_t page;
static atomic_flag fault_lock = ATOMIC_FLAG_INIT;
/* One bit per page of the heap, set when this process made it private:
 * anonymous memory reserved at the start, touched only where bits are set. */
static _Atomic unsigned long *private_bits;
static size_t private_bits_bytes;
static _Atomic size_t private_pages;
static char private_line[160]; /* WISP_VERBOSE's line, written from the handler */
static size_t private_line_len;
static atomic_bool private_said;

/* The program's own SIGBUS action (what it set, or what was there). */
static struct sigaction program_action;
static atomic_flag action_lock = ATOMIC_FLAG_INIT;
static atomic_bool installed;

static void spin_lock(atomic_flag *f)
{
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire))
        ;
}

static void spin_unlock(atomic_flag *f)
{
    atomic_flag_clear_explicit(f, memory_order_release);
}

/* ---- the chunk table ---------------------------------------------------- */

/* Chunks of 64 KiB, or larger where the table would pass MAX_TABLE bytes:
 * small, since holds() commits whole chunks (what it commits around a
 * range is memory the program may never use, which a memory cgroup
 * charges), and a table that stays small (it is committed whole). */
static unsigned table_shift(size_t span)
{
    unsigned shift = MIN_CHUNK_SHIFT;
    while ((span >> shift) > MAX_TABLE)
        shift++;
    return shift;
}

size_t wisp_shm_fault_table_bytes(size_t span)
{
    size_t p = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = (span >> table_shift(span)) + 1;
    return (n + p - 1) & ~(p - 1);
}

bool wisp_shm_fault_table_map(int fd, size_t span)
{
    size_t bytes = wisp_shm_fault_table_bytes(span);
    int err = posix_fallocate(fd, (off_t)span, (off_t)bytes);
    if (err) {
        errno = err;
        wisp_log(1, "cannot commit the shared heap's table of %zu bytes in /dev/shm: %m", bytes);
        return false;
    }
    void *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)span);
    if (t == MAP_FAILED) {
        wisp_log(1, "cannot map the shared heap's table: %m");
        return false;
    }
    wisp_shm_heap.chunks = t;
    wisp_shm_heap.chunk_shift = table_shift(span);
    return true;
}

void wisp_shm_fault_table_unmap(size_t span)
{
    if (wisp_shm_heap.chunks)
        munmap((void *)wisp_shm_heap.chunks, wisp_shm_fault_table_bytes(span));
    wisp_shm_heap.chunks = NULL;
}

/* The one move of a chunk's state: out of UNKNOWN, into BACKED or PRIVATE.
 * True when this call made it or it was already `to`; false, with the
 * state found in *found, when the chunk holds the other final state. */
static bool chunk_move(size_t i, enum wisp_shm_chunk to, unsigned char *found)
{
    unsigned char from = WISP_SHM_CHUNK_UNKNOWN;
    if (atomic_compare_exchange_strong_explicit(&wisp_shm_heap.chunks[i], &from, (unsigned char)to,
                                                memory_order_acq_rel, memory_order_acquire) ||
        from == to)
        return true;
    *found = from; /* the other final state: no move out of it */
    return false;
}

void wisp_shm_fault_committed(const char *start, size_t size)
{
    if (!wisp_shm_heap.chunks || forked)
        return;
    size_t off = (size_t)(start - wisp_shm_heap.base);
    size_t first = (off + CHUNK - 1) / CHUNK, end = (off + size) / CHUNK;
    unsigned char found;
    for (size_t i = first; i < end; i++)
        chunk_move(i, WISP_SHM_CHUNK_BACKED, &found); /* a PRIVATE one stays so */
}

void wisp_shm_heap_prefault_range(const char *p, uint64_t n)
{
    size_t step = (size_t)sysconf(_SC_PAGESIZE);
    const char *base = wisp_shm_heap.base;
    for (const char *at = p; at < p + n;) {
        const char *to = p + n; /* the end of at's chunk, or of the range */
        if (wisp_shm_heap.chunks) {
            const char *end = base + ((size_t)(at - base) / CHUNK + 1) * CHUNK;
            to = end < to ? end : to;
        }
        if (!wisp_shm_heap_back(at, (uint64_t)(to - at))) /* no table, PRIVATE, or no room */
            for (const char *q = base + ((size_t)(at - base) & ~(step - 1)); q < to; q += step)
                (void)*(const volatile char *)q; /* a fault here is this process's to resolve */
        at = to;
    }
}

bool wisp_shm_heap_back(const char *p, uint64_t n)
{
    if (forked || fault_fd < 0 || !wisp_shm_heap.chunks)
        return false;
    size_t first = (size_t)(p - wisp_shm_heap.base) / CHUNK;
    size_t last = (size_t)(p + n - 1 - wisp_shm_heap.base) / CHUNK;
    for (size_t i = first; i <= last; i++) {
        unsigned char s = atomic_load_explicit(&wisp_shm_heap.chunks[i], memory_order_acquire);
        if (s == WISP_SHM_CHUNK_BACKED)
            continue;
        if (s == WISP_SHM_CHUNK_PRIVATE)
            return false;
        /* Committed whole before it is BACKED: a peer may then touch any of it. */
        if (fallocate(fault_fd, 0, (off_t)(i * CHUNK), (off_t)CHUNK))
            return false;
        if (!chunk_move(i, WISP_SHM_CHUNK_BACKED, &s))
            return false; /* a page of it went private meanwhile */
    }
    return true;
}

/* ---- the fault ---------------------------------------------------------- */

static bool is_private(size_t index)
{
    _Atomic unsigned long *bits = atomic_load_explicit(&private_bits, memory_order_relaxed);
    if (!bits)
        return false;
    unsigned long word = atomic_load_explicit(&bits[index / WORD_BITS], memory_order_relaxed);
    return (word >> (index % WORD_BITS)) & 1;
}

static void say_private(void)
{
    if (private_line_len && !atomic_exchange(&private_said, true)) {
        ssize_t ignored = write(STDERR_FILENO, private_line, private_line_len);
        (void)ignored;
    }
}

/* Under fault_lock: the page at `at` (index `index`) becomes private. */
static bool make_private(char *at, size_t index)
{
    unsigned char found;
    size_t chunk = (size_t)(at - wisp_shm_heap.base) / CHUNK;
    if (!forked && wisp_shm_heap.chunks && !chunk_move(chunk, WISP_SHM_CHUNK_PRIVATE, &found))
        return true; /* BACKED meanwhile: the page is committed now, retry */
    _Atomic unsigned long *bits = atomic_load_explicit(&private_bits, memory_order_relaxed);
    if (!bits)
        return false;
    /* The system call itself: the MPI's memory hooks (UCX's ucm, Open MPI's
     * patcher) replace mmap and are no code for a signal handler. */
    void *p = (void *)syscall(SYS_mmap, at, page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != at)
        return false;
    atomic_fetch_or_explicit(&bits[index / WORD_BITS], 1ul << (index % WORD_BITS),
                             memory_order_relaxed);
    atomic_fetch_add_explicit(&private_pages, 1, memory_order_relaxed);
    say_private();
    return true;
}

/* A fault at `addr` in the heap: false when it cannot be resolved (it is
 * then the program's, as natively). */
static bool resolve(void *addr)
{
    char *at = (char *)((uintptr_t)addr & ~(uintptr_t)(page - 1));
    size_t index = (size_t)(at - wisp_shm_heap.base) / page;
    spin_lock(&fault_lock);
    bool ok =
        is_private(index) ||
        (fault_fd >= 0 && !fallocate(fault_fd, 0, (off_t)(at - wisp_shm_heap.base), (off_t)page)) ||
        make_private(at, index);
    spin_unlock(&fault_lock);
    return ok;
}

/* Runs the program's action for this SIGBUS as the kernel would have. */
static void chain(int sig, siginfo_t *info, void *context)
{
    spin_lock(&action_lock);
    struct sigaction a = program_action;
    if (a.sa_flags & SA_RESETHAND) /* as the kernel does: the flags stay */
        program_action.sa_handler = SIG_DFL;
    spin_unlock(&action_lock);
    bool fault = info->si_code > 0; /* raised by the kernel for an access, not sent */
    if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) { /* whatever SA_SIGINFO says */
        if (a.sa_handler == SIG_IGN && !fault)
            return;
        /* The default action, ours out of the way: the fault recurs as we
         * return, a sent signal is raised again; either kills with SIGBUS. */
        struct sigaction dfl = {.sa_handler = SIG_DFL};
        sigemptyset(&dfl.sa_mask);
        __sigaction(SIGBUS, &dfl, NULL);
        if (!fault)
            raise(SIGBUS);
        return;
    }
    /* The mask the program's handler would run with. */
    sigset_t mask = ((ucontext_t *)context)->uc_sigmask, old;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&a.sa_mask, s) == 1)
            sigaddset(&mask, s);
    if (a.sa_flags & SA_NODEFER)
        sigdelset(&mask, SIGBUS);
    else
        sigaddset(&mask, SIGBUS);
    pthread_sigmask(SIG_SETMASK, &mask, &old);
    if (a.sa_flags & SA_SIGINFO)
        a.sa_sigaction(sig, info, context);
    else
        a.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    int saved = errno;
    if (!(info->si_code == BUS_ADRERR && wisp_shm_heap_contains(info->si_addr) &&
          resolve(info->si_addr)))
        chain(sig, info, context);
    errno = saved;
}

void wisp_shm_fault_start(int fd)
{
    fault_fd = fd;
    page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = wisp_shm_heap_span() / page;
    size_t bytes = (pages + WORD_BITS - 1) / WORD_BITS * sizeof(unsigned long);
    void *bits = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (bits == MAP_FAILED) {
        wisp_log(1, "no memory to record the shared heap's private pages (%m): a page /dev/shm "
                    "cannot back raises SIGBUS");
        return;
    }
    private_bits_bytes = bytes;
    atomic_store(&private_bits, bits);
    if (wisp_config.VERBOSE >= 1) {
        int n = snprintf(private_line, sizeof private_line,
                         "wisp[%d]: /dev/shm is full: pages of the shared heap first touched now "
                         "are private to this process (messages from them are copied)\n",
                         wisp_core_log_rank);
        private_line_len = n > 0 && (size_t)n < sizeof private_line ? (size_t)n : 0;
    }
    if (atomic_load(&installed))
        return;
    struct sigaction ours = {.sa_sigaction = on_sigbus,
                             .sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART};
    /* Nothing else runs on this thread while it holds fault_lock: another
     * handler that touched a fresh heap page there would wait for it
     * forever. chain() sets the program's own mask. */
    sigfillset(&ours.sa_mask);
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    spin_lock(&action_lock);
    /* Set first: a sigaction() of another thread meanwhile waits for the lock
     * and then changes the program's action, not ours. */
    atomic_store(&installed, true);
    if (__sigaction(SIGBUS, &ours, &program_action))
        atomic_store(&installed, false);
    spin_unlock(&action_lock);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (!atomic_load(&installed))
        wisp_log(1, "cannot catch SIGBUS (%m): a page /dev/shm cannot back raises it");
}

void wisp_shm_fault_overlay(char *to, const char *from, size_t len)
{
    _Atomic unsigned long *bits = atomic_load(&private_bits);
    if (!bits || !atomic_load(&private_pages))
        return;
    size_t first = (size_t)(from - wisp_shm_heap.base) / page;
    for (size_t i = 0; i < len / page; i++)
        if (is_private(first + i))
            memcpy(to + i * page, from + i * page, page);
}

void wisp_shm_fault_forked(void)
{
    forked = true;
    fault_fd = -1;
    /* The heap was mapped again in the child: its records no longer hold.
     * Fresh zeros in place, by the system call (heap.c's fork handlers say
     * why not through mmap). */
    void *bits = (void *)atomic_load(&private_bits);
    if (bits &&
        (void *)syscall(SYS_mmap, bits, private_bits_bytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) != bits)
        atomic_store(&private_bits, NULL);
    atomic_store(&private_pages, 0);
}

size_t wisp_shm_fault_private_pages(void)
{
    return atomic_load_explicit(&private_pages, memory_order_relaxed);
}

/* ---- the program's own SIGBUS action ------------------------------------ */

WISP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig != SIGBUS || !atomic_load_explicit(&installed, memory_order_acquire))
        return __sigaction(sig, act, old);
    sigset_t all, mask;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &mask);
    spin_lock(&action_lock);
    if (old)
        *old = program_action;
    /* Ours handed back by someone who read it before (a raw query) stays. */
    if (act && !((act->sa_flags & SA_SIGINFO) && act->sa_sigaction == on_sigbus))
        program_action = *act;
    spin_unlock(&action_lock);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    return 0;
}

WISP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
    if (sig != SIGBUS || !atomic_load_explicit(&installed, memory_order_acquire))
        return bsd_signal(sig, handler); /* glibc's signal(), under its other name */
    /* glibc's signal(): BSD semantics. */
    struct sigaction act = {.sa_handler = handler, .sa_flags = SA_RESTART}, old;
    sigemptyset(&act.sa_mask);
    sigaddset(&act.sa_mask, sig);
    if (handler == SIG_ERR) {
        errno = EINVAL;
        return SIG_ERR;
    }
    sigaction(sig, &act, &old);
    return old.sa_handler;
}
