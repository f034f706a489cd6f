/*
 * MPI Sessions (MPI-4) and ghost processes. argv[1]:
 *   world    MPI_Init first, then a session: the process set mpi://WORLD is
 *            the program's MPI_COMM_WORLD (without ghosts: its group, its
 *            mpi_size, a communicator made from it that reduces over the
 *            program's processes only), mpi://SELF one process.
 *   alone    a session without MPI_Init, no ghosts: the same over every
 *            launched process.
 *   refused  a session without MPI_Init under WISP_GHOSTS: the ghosts are
 *            set aside in MPI_Init, so wisp refuses the session
 *            (MPI_ERRORS_RETURN: an error code and no session) instead of
 *            letting the ghost processes run the program as ranks of their
 *            own (they printed its output twice before).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h" /* tests/check.h */

static void check_world_pset(MPI_Session session, int expected)
{
    MPI_Group group, self;
    CHECK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group) == MPI_SUCCESS);
    int size = -1;
    MPI_Group_size(group, &size);
    CHECK(size == expected);

    MPI_Info info;
    char value[32] = "";
    int flag = 0;
    CHECK(MPI_Session_get_pset_info(session, "mpi://WORLD", &info) == MPI_SUCCESS);
    MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag);
    CHECK(flag && atoi(value) == expected);
    MPI_Info_free(&info);

    CHECK(MPI_Group_from_session_pset(session, "mpi://SELF", &self) == MPI_SUCCESS);
    MPI_Group_size(self, &size);
    CHECK(size == 1);
    MPI_Group_free(&self);

    MPI_Comm comm;
    CHECK(MPI_Comm_create_from_group(group, "wisp.ghost_sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                     &comm) == MPI_SUCCESS);
    int rank = -1, sum = -1;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    CHECK(size == expected);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
    CHECK(sum == expected * (expected - 1) / 2);
    MPI_Comm_free(&comm);
    MPI_Group_free(&group);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "world";
    int world = !strcmp(mode, "world"), refused = !strcmp(mode, "refused");
    int size = 0;
    if (world) {
        MPI_Init(&argc, &argv);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    MPI_Session session = MPI_SESSION_NULL;
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session);
    if (refused) {
        CHECK(rc != MPI_SUCCESS && session == MPI_SESSION_NULL);
        printf("ghost_sessions refused: %s\n", failures ? "FAILED" : "ok");
        return failures != 0;
    }
    CHECK(rc == MPI_SUCCESS);
    if (!world) { /* the launched processes, from the session itself */
        MPI_Group group;
        MPI_Group_from_session_pset(session, "mpi://WORLD", &group);
        MPI_Group_size(group, &size);
        MPI_Group_free(&group);
    }
    check_world_pset(session, size);
    CHECK(MPI_Session_finalize(&session) == MPI_SUCCESS);
    if (world)
        MPI_Finalize();
    printf("ghost_sessions %s: %d processes: %s\n", mode, size, failures ? "FAILED" : "ok");
    return failures != 0;
}
