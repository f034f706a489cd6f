/*
 * MPI Sessions under ghosts. Ghosts are set aside in MPI_Init, collectively;
 * MPI_Session_init is not collective, so a program that starts through it
 * alone never has its ghosts set aside, and they would run it as ranks of
 * their own (every line printed twice, a world one process too large):
 * refused. After MPI_Init, the process set mpi://WORLD is what the
 * application's MPI_COMM_WORLD is, the real world less the ghosts.
 */
#include "ghost/sessions.h"

#include <stdbool.h>
#include <stdio.h>
#include <strings.h>

#include "core/config.h"
#include "core/log.h"
#include "core/quirks.h"
#include "core/world.h"
#include "ghost/ghost.h"

#if defined(WISP_HAVE_MPI_Session_init)

/* Ghosts are set aside: the real world and the application's differ. */
static int carved(void)
{
    return wisp_ghost_count() > 0;
}

static void complain(void *ctx, const char *line)
{
    (void)ctx;
    wisp_log_error("%s", line);
}

/* Before MPI_Init has read the configuration: does the environment ask for
 * ghosts? A value MPI_Init would refuse counts as asking (and is named). */
static bool ghosts_asked(void)
{
    struct wisp_config cfg;
    bool asked = wisp_core_config_parse_some(&cfg, "WISP_GHOSTS=", complain, NULL) || cfg.GHOSTS;
    wisp_core_config_free(&cfg);
    return asked;
}

/* MPICH compares process set names without case. */
static int is_world(const char *pset_name)
{
    return pset_name && !strcasecmp(pset_name, "mpi://WORLD");
}

int wisp_ghost_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    wisp_core_quirks_before_init(); /* a session may be what starts the MPI */
    int rc = PMPI_Session_init(info, errhandler, session), initialized = 0;
    PMPI_Initialized(&initialized);
    if (rc != MPI_SUCCESS || initialized || !ghosts_asked())
        return rc; /* after MPI_Init: served, the ghosts are set aside or there are none */
    wisp_log_error("WISP_GHOSTS: MPI_Session_init before MPI_Init is not served: the ghost "
                   "processes are set aside in MPI_Init, and without it they would run this "
                   "program as processes of their own; run it without ghosts (docs/ghosts.md)");
    /* MPICH 4.0.2 aborts in MPI_Session_call_errhandler even when the
     * handler is MPI_ERRORS_RETURN: that one is not called. */
    if (errhandler != MPI_ERRORS_RETURN)
        PMPI_Session_call_errhandler(*session, MPI_ERR_OTHER);
    PMPI_Session_finalize(session); /* the handler returned: the caller gets no session */
    return MPI_ERR_OTHER;
}

int wisp_ghost_group_from_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    if (!carved() || !is_world(pset_name))
        return PMPI_Group_from_session_pset(session, pset_name, newgroup);
    return PMPI_Comm_group(wisp_core_user_world, newgroup);
}

int wisp_ghost_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    int rc = PMPI_Session_get_pset_info(session, pset_name, info);
    if (rc != MPI_SUCCESS || !carved() || !is_world(pset_name))
        return rc;
    int size;
    char value[16];
    PMPI_Comm_size(wisp_core_user_world, &size);
    snprintf(value, sizeof value, "%d", size);
    return PMPI_Info_set(*info, "mpi_size", value);
}

#endif
