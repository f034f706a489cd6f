/*
 * WISP_GHOST_WINDOWS=auto: serve windows where the MPI needs the target's
 * help for one-sided operations, that is where an origin waits while the
 * target computes outside MPI. MPICH 4 applies accumulates (and, without
 * RDMA, every operation) only when the target calls into MPI; MPICH 5 does
 * so only between machines. Open MPI
 * picks a one-sided component (osc) per window, and each component names
 * the windows it makes ("pt2pt window 3"): one window made at MPI_Init on
 * the whole job says which component the application's windows get.
 * osc/pt2pt carries every operation as a message that the target's MPI
 * must receive; osc/rdma runs only over transports that read and write
 * the target's memory themselves (shared memory, InfiniBand), and osc/sm is
 * shared memory; osc/ucx needs the target only when UCX carries operations
 * between machines over TCP, which it does where the machine has no RDMA
 * device.
 */
#include "ghost/target_help.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "core/config.h"
#include "core/log.h"
#include "core/mpi_impl.h"
#include "core/quirks.h"
#include "core/topo.h"

static bool target_helps = true;
static char because[160] = "";

bool wisp_ghost_windows_served(void)
{
    return wisp_config.GHOST_WINDOWS == WISP_GHOST_WINDOWS_ON ||
           (wisp_config.GHOST_WINDOWS == WISP_GHOST_WINDOWS_AUTO && target_helps);
}

const char *wisp_ghost_windows_because(void)
{
    return because;
}

#ifdef OPEN_MPI
/* Whether this machine has an RDMA device UCX could use instead of TCP. */
static bool rdma_device_here(void)
{
    DIR *d = opendir("/sys/class/infiniband");
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d)))
        found = e->d_name[0] != '.';
    closedir(d);
    return found;
}

/* The name of the one-sided component a window of the whole job gets, or
 * "" when the MPI can make none. */
static void probe_component(char *osc, size_t size)
{
    MPI_Comm comm;
    PMPI_Comm_dup(MPI_COMM_WORLD, &comm);
    PMPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    void *base;
    MPI_Win win;
    osc[0] = '\0';
    if (PMPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, comm, &base, &win) ==
        MPI_SUCCESS) {
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len = 0;
        PMPI_Win_get_name(win, name, &len);
        PMPI_Win_free(&win);
        snprintf(osc, size, "%.*s", (int)strcspn(name, " "), name); /* "pt2pt window 3" */
    }
    PMPI_Comm_free(&comm);
}

static bool component_needs_target(const char *osc)
{
    if (!osc[0]) /* the application's windows fail as they would without wisp */
        return false;
    if (!strcmp(osc, "rdma") || !strcmp(osc, "sm"))
        return false;
    if (!strcmp(osc, "ucx"))
        return wisp_topo.machine_procs < wisp_topo.world_size && !rdma_device_here();
    return true; /* pt2pt, and any component this rule does not know */
}
#endif

void wisp_ghost_windows_decide(void)
{
    if (wisp_config.GHOST_WINDOWS != WISP_GHOST_WINDOWS_AUTO)
        return;
#ifdef OPEN_MPI
    char osc[MPI_MAX_OBJECT_NAME];
    probe_component(osc, sizeof osc);
    int mine = component_needs_target(osc), any = 0;
    PMPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    target_helps = any;
    if (target_helps)
        wisp_core_quirks_windows_served(); /* Open MPI must yield for the ghosts */
    if (!osc[0])
        snprintf(because, sizeof because, "Open MPI has no one-sided component for this job");
    else
        snprintf(because, sizeof because, "Open MPI's osc/%s %s the target's help", osc,
                 target_helps ? "needs" : "progresses without");
#else
    /* MPICH 5 applies one-sided operations within a machine through shared
     * memory, the target busy or not (bench/rma_busy_target: an accumulate
     * and flush in 2 us natively, 3 ms waiting for a sleeping ghost on 2
     * cores); MPICH 4.0.2 waits for the target, and so does MPICH between
     * machines. Read from the library: the ABI build's MPI is known there.
     * Intel MPI (2021.19, under libwisp-mpich) does as MPICH 5 within a
     * machine: 10 accumulate+flush pairs during the target's 300 ms take
     * 0.012 ms natively, 306 ms through a ghost on 2 loaded cores
     * (docs/results/2026-12-06-every-mpi.md; between machines untested). */
    bool one_machine = wisp_topo.machine_procs == wisp_topo.world_size;
    bool intel = wisp_core_mpi_impl().family == WISP_IMPL_INTEL;
    target_helps = !((wisp_core_mpich_at_least(5) || intel) && one_machine);
    if (target_helps)
        snprintf(because, sizeof because, "MPICH needs the target's help");
    else
        snprintf(because, sizeof because,
                 "%s applies one-sided operations within a machine without the target",
                 intel ? "Intel MPI" : "MPICH 5");
#endif
    if (wisp_topo.world_rank == 0)
        wisp_log(1, "ghost windows %s (WISP_GHOST_WINDOWS=auto: %s)",
                 target_helps ? "served" : "not served", because);
}
