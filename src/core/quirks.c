/*
 * Bugs of the MPI underneath that wisp works around (docs/design.md, "Bugs
 * of the MPI underneath").
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
 */
#include "core/quirks.h"

#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/log.h"

static bool ucx_rcache_disabled;
static bool ucx_rcache_user_on;

void wisp_core_quirks_before_init(void)
{
#if defined(MPICH)
    const char *user = getenv("UCX_RCACHE_ENABLE");
    if (user) {
        ucx_rcache_user_on = !strcasecmp(user, "y") || !strcasecmp(user, "yes") ||
                             !strcasecmp(user, "on") || !strcmp(user, "1");
        return;
    }
    ucx_rcache_disabled = setenv("UCX_RCACHE_ENABLE", "n", 0) == 0;
#endif
}

void wisp_core_quirks_report(void)
{
    if (ucx_rcache_disabled)
        wisp_log(2, "UCX_RCACHE_ENABLE=n for MPICH: its windows over UCX take their base from "
                    "UCX's registration cache, which can return an earlier window's address");
    if (ucx_rcache_user_on)
        wisp_log(1, "UCX_RCACHE_ENABLE is on: MPICH over UCX may give a window on a page of an "
                    "earlier, freed window that window's base (docs/design.md)");
}
