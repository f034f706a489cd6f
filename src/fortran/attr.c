/*
 * Attribute calls from Fortran. Each MPI's Fortran library keeps a value
 * set from Fortran itself and records its language (a C get of it returns
 * the address of the stored integer): MPICH's mpif.h calls its internal
 * MPII_Comm_set_attr, never the C MPI_Comm_set_attr. So wisp cannot serve
 * these through the C functions; it passes them on to the MPI's own entry
 * point with the application's world in place of MPI_COMM_WORLD, where the
 * application's attributes live and which MPI_Comm_dup copies them from,
 * and answers itself what the ghosts change: the attributes the MPI keeps on
 * the real world only (MPI_TAG_UB, MPI_UNIVERSE_SIZE less the ghosts, ...)
 * and the base and flavor of a window whose memory a ghost holds. Without
 * ghosts every call goes to the MPI's unchanged.
 */
#include <stdbool.h>

#include "core/world.h"
#include "fortran/fortran.h"
#include "ghost/world_attr.h"

static bool carved(void)
{
    return wisp_core_user_world != MPI_COMM_WORLD;
}

/* A predefined keyval as C spells it: MPICH's Fortran ones are the C ones
 * plus one (its mpif.h: MPI_TAG_UB is 0x64400002, the C one 0x64400001);
 * Open MPI's are the C ones (consecutive, so only MPICH's may be mapped). */
static int c_keyval(MPI_Fint keyval)
{
#if defined(MPICH_VERSION)
    static const int predefined[] = {MPI_TAG_UB,
                                     MPI_HOST,
                                     MPI_IO,
                                     MPI_WTIME_IS_GLOBAL,
                                     MPI_UNIVERSE_SIZE,
                                     MPI_APPNUM,
                                     MPI_LASTUSEDCODE,
                                     MPI_WIN_BASE,
                                     MPI_WIN_SIZE,
                                     MPI_WIN_DISP_UNIT,
                                     MPI_WIN_CREATE_FLAVOR,
                                     MPI_WIN_MODEL};
    for (size_t i = 0; i < sizeof predefined / sizeof *predefined; i++)
        if (keyval == predefined[i] + 1)
            return predefined[i];
#endif
    return keyval;
}

static void forward(wisp_f_any_fn next, const void *a0, const void *a1, const void *a2,
                    const void *a3, const void *a4)
{
    next((long)a0, (long)a1, (long)a2, (long)a3, (long)a4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}

/* A get of a predefined attribute of the world: asked of wisp's C
 * MPI_Comm_get_attr (ghost/world_attr.c), whose values are ints. */
static bool world_only_get(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Aint *value,
                           MPI_Fint *flag, MPI_Fint *ierror)
{
    int key = c_keyval(*keyval);
    if (!carved() || !wisp_ghost_world_only(key))
        return false;
    int *c = NULL;
    int found = 0;
    int rc = MPI_Comm_get_attr(PMPI_Comm_f2c(*comm), key, &c, &found);
    if (rc == MPI_SUCCESS) {
        if (found)
            *value = *c;
        *flag = wisp_f_logical_out(found);
    }
    if (ierror)
        *ierror = rc;
    return true;
}

void wisp_f_comm_get_attr(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                          MPI_Fint *flag, MPI_Fint *ierror)
{
    if (!world_only_get(comm, keyval, value, flag, ierror))
        forward(next, wisp_f_comm_in(comm), keyval, value, flag, ierror);
}

void wisp_f_attr_get(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *flag, MPI_Fint *ierror)
{
    MPI_Aint wide = 0;
    if (world_only_get(comm, keyval, &wide, flag, ierror)) {
        if (*flag)
            *value = (MPI_Fint)wide;
        return;
    }
    forward(next, wisp_f_comm_in(comm), keyval, value, flag, ierror);
}

void wisp_f_comm_set_attr(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *value,
                          MPI_Fint *ierror)
{
    forward(next, wisp_f_comm_in(comm), keyval, value, ierror, NULL);
}

void wisp_f_attr_put(wisp_f_any_fn next, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *value,
                     MPI_Fint *ierror)
{
    forward(next, wisp_f_comm_in(comm), keyval, value, ierror, NULL);
}

void wisp_f_win_get_attr(wisp_f_any_fn next, MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *value,
                         MPI_Fint *flag, MPI_Fint *ierror)
{
    forward(next, win, keyval, value, flag, ierror);
    int key = c_keyval(*keyval);
    if (!carved() || (key != MPI_WIN_BASE && key != MPI_WIN_CREATE_FLAVOR) ||
        (ierror && *ierror != MPI_SUCCESS) || !wisp_f_logical_in(*flag))
        return;
    /* wisp's C MPI_Win_get_attr knows the windows a ghost serves. */
    void *c = NULL;
    int found = 0;
    if (MPI_Win_get_attr(PMPI_Win_f2c(*win), key, &c, &found) == MPI_SUCCESS && found)
        *value = key == MPI_WIN_BASE ? (MPI_Aint)c : *(int *)c;
}
