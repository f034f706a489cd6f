/*
 * The internal communicators of served windows (icomm.h). Creating one is a
 * collective of its own (MPI_Comm_create_group: a context agreed among the
 * members), a tenth of a served window's creation on 2 cores. Most windows
 * of most programs are over every application process (MPI_COMM_WORLD or a
 * duplicate of it), so the first communicator whose members are the whole
 * world is kept, and used again for the same member list. Every process of
 * the world takes part in that first creation, and every member sees the
 * same creations in the same order, so the members of a later one always
 * agree on whether they create a communicator or take the kept one. Any
 * other list gets a new communicator, freed after use.
 */
#include "ghost/icomm.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"

enum { TAG_ICOMM = 0x5749 };

static struct {
    MPI_Comm comm;
    int *members; /* as given: every world rank once */
    int n;
} kept = {.comm = MPI_COMM_NULL};

bool wisp_ghost_icomm_get(const int *members, int n, MPI_Comm *icomm)
{
    size_t bytes = sizeof *members * (size_t)n;
    if (kept.comm != MPI_COMM_NULL && n == kept.n && !memcmp(members, kept.members, bytes)) {
        *icomm = kept.comm;
        return true;
    }
    MPI_Group all, group;
    PMPI_Comm_group(MPI_COMM_WORLD, &all);
    PMPI_Group_incl(all, n, members, &group);
    int rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, TAG_ICOMM, icomm);
    PMPI_Group_free(&group);
    PMPI_Group_free(&all);
    if (rc != MPI_SUCCESS || *icomm == MPI_COMM_NULL)
        return false;
    int world = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    /* A process that could not keep it would create again where the others
     * take the kept one: a hang, so no memory for 4 bytes a process is fatal. */
    if (kept.comm == MPI_COMM_NULL && n == world) {
        if (!(kept.members = malloc(bytes)))
            wisp_fatal("out of memory for the member list of a ghost window's communicator");
        memcpy(kept.members, members, bytes);
        kept.n = n;
        kept.comm = *icomm;
    }
    return true;
}

bool wisp_ghost_icomm_keeps(const int *members, int n)
{
    if (kept.comm != MPI_COMM_NULL)
        return n == kept.n && !memcmp(members, kept.members, sizeof *members * (size_t)n);
    int world = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &world);
    return n == world;
}

void wisp_ghost_icomm_put(MPI_Comm *icomm)
{
    if (*icomm != kept.comm)
        PMPI_Comm_free(icomm);
    *icomm = MPI_COMM_NULL;
}

void wisp_ghost_icomm_release(void)
{
    if (kept.comm != MPI_COMM_NULL)
        PMPI_Comm_free(&kept.comm);
    free(kept.members);
    kept.members = NULL;
    kept.n = 0;
}
