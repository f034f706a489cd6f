/*
 * Liveness of the node's processes (alive.h). A process of the job that
 * ends without MPI_Finalize leaves its peers waiting for it: in wisp's
 * waits (a receive from it, a command slot its ghost no longer reads, a
 * flush it no longer serves) and in the MPI's own. mpiexec and mpirun end
 * such a job themselves; srun without -K (Slurm's default) and other
 * launchers leave the others waiting until the time limit. So every
 * process watches the node's others from a thread that sleeps in poll(2) on
 * their pidfds, which become readable when a process ends: no timer, no
 * cost until then. A peer that ends died unless it had called
 * PMPI_Finalize and was not killed inside it: each process writes its
 * phase (running, finalizing, done) in a word the node shares (a memfd of
 * node rank 0's that the others open through /proc, so no name in
 * /dev/shm), and the watcher reads the ended peer's status from its stat
 * before its parent reaps it, where it can. Where the node shares no
 * phases, this process's own phase stands in: both MPIs' MPI_Finalize
 * waits for every process, so a peer that ends before this process calls
 * it did not finalize. The watcher then at once removes the files in
 * /dev/shm that the job could leave (the job's, /dev/shm/wisp-<WISP_JOB>+*,
 * and those this process created and is the only one to know), waits
 * GRACE_MS (mpiexec and mpirun end the job their own way and say why:
 * Open MPI's mpirun took 1-2 s here), then writes one line naming the
 * dead process and aborts the job (PMPI_Abort, which srun too obeys).
 *
 * Watching needs the peers' pids to mean the same processes here: each
 * process tells its pid and its pid namespace, and only peers of this
 * process's namespace are watched (a container per rank sharing /dev/shm
 * is watched by nobody, never taken for dead). Without pidfds (Linux
 * before 5.3, or a seccomp filter that forbids them) the thread looks
 * every POLL_MS instead (kill(pid, 0) and the process's state). A process
 * watches at most MAX_WATCHED peers, the node ranks after its own, so that
 * a large node costs few descriptors and every process still has watchers.
 */
#include "core/alive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/config.h"
#include "core/log.h"
#include "core/thread.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same on every architecture */
#endif

enum {
    MAX_WATCHED = 64,
    POLL_MS = 1000,  /* without pidfds */
    GRACE_MS = 3000, /* for the launcher to end the job its own way (Open MPI's: 1-2 s) */
    MAX_HELD = 16,   /* files only this process can remove */
    HELD_NAME = 128,
};

/* What each process tells the node about itself. */
struct self {
    int32_t world_rank, pid;
    uint64_t ns_dev, ns_ino; /* its pid namespace; 0, 0 when unknown */
    int32_t phases_fd;       /* node rank 0: the phases' memfd, or -1 */
};

struct watched {
    int world_rank, pid, node_rank;
    bool ghost, done; /* done: ended after its MPI_Finalize */
};

static struct watched watched[MAX_WATCHED];
static struct pollfd fds[MAX_WATCHED];
static int nwatched;
static bool pidfds; /* else look every POLL_MS */
/* A process: before PMPI_Finalize, in it, after it. Each process's in
 * `phases`, by node rank, where the node shares them (a memfd of node
 * rank 0's, which the others open through /proc: no name in /dev/shm). */
enum { RUNNING, FINALIZING, DONE };
static _Atomic int phase;
static _Atomic int32_t *phases;
static int node_rank;

static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static char held[MAX_HELD][HELD_NAME];

static void who_am_i(struct self *me, int world_rank)
{
    struct stat st;
    *me = (struct self){.world_rank = world_rank, .pid = (int32_t)getpid()};
    if (!stat("/proc/self/ns/pid", &st)) {
        me->ns_dev = (uint64_t)st.st_dev;
        me->ns_ino = (uint64_t)st.st_ino;
    }
}

/* The words of /proc/<pid>/stat after the command's name (the state
 * first, field 3), in `buf`; NULL where it cannot be read. */
static const char *stat_after_name(int pid, char *buf, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *end = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold anything */
    return end && end[1] == ' ' ? end + 2 : NULL;
}

/* Without a pidfd: gone, or a zombie that its parent has not reaped yet. */
static bool ended(int pid)
{
    if (kill(pid, 0) && errno == ESRCH)
        return true;
    char buf[1024];
    const char *state = stat_after_name(pid, buf, sizeof buf);
    return state && (state[0] == 'Z' || state[0] == 'X');
}

/* How a process that ended did, as waitpid says it, while it is a zombie
 * (its parent has not reaped it yet): field 52 of its stat, Linux 3.5+;
 * -1 where it cannot be told. */
static int exit_status(int pid)
{
    char buf[1024];
    const char *p = stat_after_name(pid, buf, sizeof buf);
    if (!p || (p[0] != 'Z' && p[0] != 'X'))
        return -1;
    for (int field = 3; field < 52; field++) {
        p = strchr(p, ' ');
        if (!p)
            return -1;
        p++;
    }
    return atoi(p);
}

/* The index of a watched process that has ended, or -1. */
static int find_ended(void)
{
    for (int i = 0; i < nwatched; i++)
        if (!watched[i].done && (pidfds ? fds[i].fd < 0 || fds[i].revents : ended(watched[i].pid)))
            return i;
    return -1;
}

/* The job's files in /dev/shm: its tag's, and those this process holds. */
static void remove_files(void)
{
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < MAX_HELD; i++)
        if (held[i][0]) {
            shm_unlink(held[i]);
            held[i][0] = '\0';
        }
    pthread_mutex_unlock(&held_lock);
    const char *job = wisp_config.JOB;
    DIR *dir = job ? opendir("/dev/shm") : NULL;
    if (!dir)
        return;
    char prefix[HELD_NAME];
    int n = snprintf(prefix, sizeof prefix, "wisp-%s+", job);
    for (struct dirent *e; n > 0 && (size_t)n < sizeof prefix && (e = readdir(dir));)
        if (!strncmp(e->d_name, prefix, (size_t)n))
            unlinkat(dirfd(dir), e->d_name, 0);
    closedir(dir);
}

static void died(const struct watched *w, int status)
{
    remove_files();
    nanosleep(&(struct timespec){GRACE_MS / 1000, GRACE_MS % 1000 * 1000000L}, NULL);
    if (atomic_load(&phase) == DONE) /* this process's MPI_Finalize went through all the same */
        return;
    char how[64] = "killed?";
    if (status >= 0 && WIFSIGNALED(status))
        snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
    else if (status >= 0 && WIFEXITED(status))
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    wisp_log_error("%s of world rank %d (pid %d, on this node) ended without MPI_Finalize (%s): "
                   "ending the job",
                   w->ghost ? "the ghost" : "the process", w->world_rank, w->pid, how);
    PMPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

/* Whether a peer that ended (with `status`, -1 if unknown) died. Where
 * the node shares the phases: if it had not called PMPI_Finalize, or was
 * killed or failed inside. Else from this process's phase: both MPIs'
 * MPI_Finalize waits for every process, so a peer that ends before this
 * process calls it did not finalize; one that ends while this process is in
 * it did, unless its status (read before its parent reaps it) says
 * otherwise. */
static bool is_dead(const struct watched *w, int status)
{
    int its = phases ? atomic_load(&phases[w->node_rank]) : -1;
    if (its >= 0)
        return its == RUNNING || (its == FINALIZING && status > 0);
    int now = atomic_load(&phase);
    return now == RUNNING || (now == FINALIZING && status > 0);
}

static void *watch(void *unused)
{
    (void)unused;
    for (int left = nwatched; left > 0 && atomic_load(&phase) != DONE;) {
        int i = find_ended();
        if (i >= 0) {
            int status = exit_status(watched[i].pid);
            if (is_dead(&watched[i], status))
                died(&watched[i], status);
            watched[i].done = true; /* a normal end: watch the others */
            if (fds[i].fd >= 0)
                close(fds[i].fd);
            fds[i].fd = -1;
            left--;
            continue;
        }
        if (poll(fds, (nfds_t)nwatched, pidfds ? -1 : POLL_MS) < 0 && errno != EINTR) {
            wisp_log(1, "no more watching the node's processes: poll: %m");
            break;
        }
    }
    for (int i = 0; i < nwatched; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    return NULL;
}

/* Open a pidfd for each watched process; false (none open) where the
 * kernel has none to give. A process already gone has none (ESRCH): it
 * counts as ended. */
static bool open_pidfds(void)
{
    for (int i = 0; i < nwatched; i++) {
        int fd = (int)syscall(SYS_pidfd_open, watched[i].pid, 0);
        if (fd < 0 && errno != ESRCH) {
            wisp_log(2, "no pidfd for the node's processes (%m): looking every %d ms", POLL_MS);
            for (int k = 0; k < i; k++)
                if (fds[k].fd >= 0)
                    close(fds[k].fd);
            for (int k = 0; k < nwatched; k++)
                fds[k] = (struct pollfd){.fd = -1};
            return false;
        }
        fds[i] = (struct pollfd){.fd = fd, .events = POLLIN};
    }
    return true;
}

/* Node rank 0: the node's phases in a memfd, which it keeps open for the
 * others to open through /proc; -1 where there is none. */
static int share_phases(int size)
{
    size_t bytes = sizeof *phases * (size_t)size;
    int fd = memfd_create("wisp-alive", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (fd >= 0 && !ftruncate(fd, (off_t)bytes))
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        wisp_log(2, "no phases shared on the node (%m)");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    phases = p;
    return fd;
}

/* The others: node rank 0's memfd, where it is the same process here. */
static void open_phases(const struct self *me, const struct self *leader, int size)
{
    if (leader->phases_fd < 0 || !me->ns_ino || leader->ns_ino != me->ns_ino ||
        leader->ns_dev != me->ns_dev)
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)leader->pid, (int)leader->phases_fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    void *p = fd < 0 ? MAP_FAILED
                     : mmap(NULL, sizeof *phases * (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED,
                            fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED)
        wisp_log(2, "no phases shared on the node: %s: %m", path);
    else
        phases = p;
}

void wisp_core_alive_start(MPI_Comm node, int ghosts)
{
    int rank, size, world_rank;
    PMPI_Comm_rank(node, &rank);
    PMPI_Comm_size(node, &size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (size < 2)
        return;
    struct self me, *all = malloc(sizeof *all * (size_t)size);
    who_am_i(&me, world_rank);
    node_rank = rank;
    me.phases_fd = rank == 0 ? share_phases(size) : -1;
    if (!all) {
        wisp_log(1, "out of memory to watch the node's processes");
        me.ns_ino = 0; /* so that nobody counts on this one */
    }
    PMPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, node);
    if (!all)
        return;
    if (rank != 0)
        open_phases(&me, &all[0], size);
    /* Every process has its phases or none (the node's processes agree). */
    int mine = phases != NULL, shared = 0;
    PMPI_Allreduce(&mine, &shared, 1, MPI_INT, MPI_MIN, node);
    if (!shared && phases) {
        munmap((void *)phases, sizeof *phases * (size_t)size);
        phases = NULL;
    }
    nwatched = 0;
    for (int k = 1; k < size && nwatched < MAX_WATCHED; k++) {
        const struct self *p = &all[(rank + k) % size];
        if (!me.ns_ino || p->ns_ino != me.ns_ino || p->ns_dev != me.ns_dev)
            continue; /* its pid may name another process here */
        watched[nwatched++] = (struct watched){.world_rank = p->world_rank,
                                               .pid = p->pid,
                                               .node_rank = (rank + k) % size,
                                               .ghost = (rank + k) % size >= size - ghosts};
    }
    free(all);
    if (!nwatched)
        return;
    pidfds = open_pidfds();
    pthread_t thread;
    int err = wisp_core_thread_start(&thread, watch, NULL, "wisp-watcher");
    if (err) {
        errno = err;
        wisp_log(1, "no thread to watch the node's processes (%m): a process that dies may "
                    "leave the others waiting");
        return;
    }
    pthread_detach(thread);
}

static void set_phase(int now)
{
    atomic_store(&phase, now);
    if (phases)
        atomic_store(&phases[node_rank], now);
}

int wisp_core_alive_finalize(void)
{
    set_phase(FINALIZING);
    int rc = PMPI_Finalize();
    set_phase(DONE);
    return rc;
}

void wisp_core_alive_hold(const char *name)
{
    if (strlen(name) >= HELD_NAME)
        return;
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < MAX_HELD; i++)
        if (!held[i][0]) {
            strcpy(held[i], name);
            break;
        }
    pthread_mutex_unlock(&held_lock);
}

void wisp_core_alive_let_go(const char *name)
{
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < MAX_HELD; i++)
        if (!strcmp(held[i], name))
            held[i][0] = '\0';
    pthread_mutex_unlock(&held_lock);
}
