/*
 * Bugs and behaviours of the MPI underneath that wisp works around
 * (docs/design.md, "Bugs of the MPI underneath").
 *
 * MPICH over UCX (seen with MPICH 4.0.2 and UCX 1.13): MPI_Win_create
 * registers the window's memory with ucp_mem_map and then takes the window's
 * base from ucp_mem_query. UCX's registration cache answers a window that
 * lies on a page where an earlier, freed window began at another address
 * with that earlier registration, so the window's base becomes the old
 * address and every put and accumulate lands there. Programs that create
 * windows over malloc'd buffers meet it under wisp, whose heap hands out
 * neighbouring addresses of one page where glibc reused the same one
 * (MPICH's rma/accfence2; tests/mpi/rma_same_page.c). Without UCX's cache
 * UCX registers each window afresh (and its transports keep their own
 * caches). A value the user set is left alone.
 *
 * Open MPI 4.1's osc pt2pt refuses MPI_THREAD_MULTIPLE: MPI_Win_allocate
 * fails ("The OSC pt2pt component does not support MPI_THREAD_MULTIPLE"),
 * and the window's error handler aborts. wisp raises the MPI's level for
 * its progress thread and for user-level threads on several kernel threads;
 * where osc pt2pt may serve windows it must not (core/init.c). Which osc
 * serves is decided per window, after MPI_Init; before it, the MCA
 * selection (environment, mpirun --mca, the parameter files: Debian's
 * excludes ucx and pt2pt) is read through MPI_T. osc pt2pt counts as a
 * candidate where it is selectable and osc ucx, which takes precedence
 * wherever UCX runs, is not. Open MPI 5 has no osc pt2pt (removed in 5.0)
 * and is not asked: Open MPI 5.0.11 (PyPI's) crashes in MPI_Init after an
 * MPI_T_init_thread/MPI_T_finalize before it (in
 * opal_common_ucx_support_level; natively too: tests/mpi/quirk_ompi5_mpit.c).
 *
 * Open MPI 4.1 counts ghosts (WISP_GHOSTS) as processes: a node that the
 * application's processes fit looks oversubscribed to mpirun, and every
 * process then calls sched_yield in each empty progress poll
 * (mpi_yield_when_idle). NWChem's polled flushes made 4 million such calls
 * a process, 3-4 s of system time in a 3 s run (docs/ghosts.md). A ghost
 * sleeps in the kernel until it is wanted, so wisp asks Open MPI not to
 * yield where the node would not be oversubscribed without its ghosts, as
 * natively; a value the user set is left alone. Not where the ghosts serve
 * Open MPI's windows: an origin whose flush waits for a ghost without a core
 * of its own must give the core up, and so must a target that waits in MPI
 * (MPICH's rma/transpose5 under WISP_GHOST_WINDOWS=on, 2 + a ghost on 2
 * cores: 151 s without the yield, 3-5 s with it; the busy-target probe over
 * osc pt2pt, bench/rma_busy_target over TCP: 0.6 ms with it, 25-35 ms
 * without, every accumulate + flush waiting a time slice for the ghost).
 * =on is known before MPI_Init; auto decides after it, from the component
 * a window gets (ghost/target_help.c), and reading the MCA selection before
 * it through MPI_T would cost every such job Open MPI's MPI_T_init, 250 ms
 * on a loaded 2-core machine. So where auto serves, the yield is given back
 * once MPI_Init has returned, as Open MPI's own MPI_Init sets it
 * (opal_progress_set_yield_when_idle, exported by libopen-pal).
 *
 * Intel MPI has MPICH's ABI (libmpi.so.12), so libwisp-mpich built on
 * Debian's MPICH 4.0.2 runs over it, and only MPI_Get_library_version tells
 * the two apart at run time. What wisp reads of MPICH's internals holds
 * there, each checked with a program over Intel MPI 2021.19 (tests/impi.sh,
 * docs/launch.md): its requests and messages are MPICH's handles
 * (0xac000000 direct, 0xec000000 indirect: never wisp's 0x04000000 and
 * 0x08000000, request.h), MPI_Status is MPICH's five ints, every
 * predefined constant of its mpi.h that MPICH 4.0.2's has is the same
 * value, the Fortran keyvals are the C ones plus one (fortran/attr.c),
 * a user error handler's error is returned (MPICH 4's way) and a rank's
 * _exit after MPI_Finalize ends nothing else (MPICH 4's way, not 5's:
 * mpi_exit.c). Its MPI-4.1 calls that MPICH 4.0.2 lacks are served by
 * wrap/newer.c. So nothing is adjusted: the report names the MPI.
 */
#include "core/quirks.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/config.h"
#include "core/launch.h"
#include "core/log.h"

#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
/* Is `name` selectable under an MCA component list ("a,b", "^a,b", "")? */
static bool mca_selects(const char *list, const char *name)
{
    bool exclude = list[0] == '^';
    size_t len = strlen(name);
    for (const char *p = list + exclude; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, name, len))
            return !exclude;
        p += n + (p[n] == ',');
    }
    return exclude || !list[0];
}

/* The string value of the MPI_T control variable `name` into `out`, or false. */
static bool mpit_string(const char *name, char *out, size_t size)
{
    int provided, count, found = 0;
    if (PMPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return false;
    int vars = 0;
    PMPI_T_cvar_get_num(&vars);
    for (int i = 0; i < vars && !found; i++) {
        char var[256], desc[8];
        int var_len = sizeof var, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum values;
        if (PMPI_T_cvar_get_info(i, var, &var_len, &verbosity, &type, &values, desc, &desc_len,
                                 &bind, &scope) != MPI_SUCCESS ||
            strcmp(var, name) || type != MPI_CHAR)
            continue;
        MPI_T_cvar_handle handle;
        if (PMPI_T_cvar_handle_alloc(i, NULL, &handle, &count) != MPI_SUCCESS)
            continue;
        char *value = calloc((size_t)count + 1, 1);
        if (value && PMPI_T_cvar_read(handle, value) == MPI_SUCCESS) {
            snprintf(out, size, "%s", value);
            found = 1;
        }
        free(value);
        PMPI_T_cvar_handle_free(&handle);
    }
    PMPI_T_finalize();
    return found;
}
#endif

const char *wisp_core_quirks_multiple_breaks_windows(void)
{
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION < 5
    static char why[512];
    char osc[256];
    if (!mpit_string("osc", osc, sizeof osc))
        osc[0] = '\0';
    if (!mca_selects(osc, "pt2pt") || mca_selects(osc, "ucx"))
        return NULL;
    snprintf(why, sizeof why,
             "Open MPI's one-sided component osc pt2pt (MCA osc='%s') refuses "
             "MPI_THREAD_MULTIPLE",
             osc);
    return why;
#else
    return NULL;
#endif
}

static bool ucx_rcache_disabled;
static bool ucx_rcache_user_on;
static bool ompi_yield_off;
static bool ompi_yield_back;

#if defined(OPEN_MPI)
/* mpirun judged this node oversubscribed (more processes than slots) only
 * because of the ghosts: the application's processes of this machine fit
 * its share of the slots (mpirun's environment; none under other launchers). */
static bool oversubscribed_by_ghosts(void)
{
    const char *over = getenv("OMPI_MCA_mpi_oversubscribe");
    long here = wisp_core_launch_number(getenv("OMPI_COMM_WORLD_LOCAL_SIZE")),
         slots = wisp_core_launch_number(getenv("OMPI_UNIVERSE_SIZE")),
         nodes = wisp_core_launch_number(getenv("OMPI_MCA_orte_num_nodes"));
    if (wisp_config.GHOSTS <= 0 || !over || strcmp(over, "1") || here < 1 || slots < 1 || nodes < 1)
        return false;
    long vnode = (long)wisp_config.VNODE_SIZE;
    long node_count = vnode > 0 ? (here + vnode - 1) / vnode : 1; /* the ghosts are per node */
    return here - wisp_config.GHOSTS * node_count <= slots / nodes;
}
#endif

void wisp_core_quirks_before_init(void)
{
#if defined(OPEN_MPI)
    if (!getenv("OMPI_MCA_mpi_yield_when_idle") &&
        wisp_config.GHOST_WINDOWS != WISP_GHOST_WINDOWS_ON && oversubscribed_by_ghosts())
        ompi_yield_off = setenv("OMPI_MCA_mpi_yield_when_idle", "0", 0) == 0;
#elif defined(MPICH)
    const char *user = getenv("UCX_RCACHE_ENABLE");
    if (user) {
        ucx_rcache_user_on = !strcasecmp(user, "y") || !strcasecmp(user, "yes") ||
                             !strcasecmp(user, "on") || !strcmp(user, "1");
        return;
    }
    ucx_rcache_disabled = setenv("UCX_RCACHE_ENABLE", "n", 0) == 0;
#endif
}

void wisp_core_quirks_windows_served(void)
{
#if defined(OPEN_MPI)
    if (!ompi_yield_off)
        return;
    void (*set_yield)(bool) =
        (void (*)(bool))dlsym(RTLD_DEFAULT, "opal_progress_set_yield_when_idle");
    if (set_yield) {
        set_yield(true);
        ompi_yield_off = false;
        ompi_yield_back = true;
    } else {
        wisp_log(1, "the ghosts serve Open MPI's windows on a node that they oversubscribe, and "
                    "Open MPI's yield cannot be given back (no opal_progress_set_yield_when_idle): "
                    "set OMPI_MCA_mpi_yield_when_idle=1");
    }
#endif
}

void wisp_core_quirks_report(void)
{
#if defined(MPICH)
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (PMPI_Get_library_version(version, &len) == MPI_SUCCESS &&
        !strncmp(version, "Intel(R) MPI Library", strlen("Intel(R) MPI Library"))) {
        version[strcspn(version, "\n")] = '\0';
        wisp_log(1, "the MPI is %s: MPICH's ABI, served as MPICH %s (built for it)", version,
                 MPICH_VERSION);
    }
#endif
    if (ompi_yield_back)
        wisp_log(2, "Open MPI yields in its empty polls: the node is oversubscribed only by wisp's "
                    "ghosts, and they serve its windows");
    if (ompi_yield_off)
        wisp_log(2, "OMPI_MCA_mpi_yield_when_idle=0: the node is oversubscribed only by wisp's "
                    "ghosts, which sleep until they are wanted");
    if (ucx_rcache_disabled)
        wisp_log(2, "UCX_RCACHE_ENABLE=n for MPICH: its windows over UCX take their base from "
                    "UCX's registration cache, which can return an earlier window's address");
    if (ucx_rcache_user_on)
        wisp_log(1, "UCX_RCACHE_ENABLE is on: MPICH over UCX may give a window on a page of an "
                    "earlier, freed window that window's base (docs/design.md)");
}
