/*
 * The C side of tests/fortran/attributes.f90 and attributes_f08.f90: what C
 * reads of an attribute (wisp's C functions, which know the ghosts), for
 * the Fortran side to compare with what its own calls returned.
 */
#include <mpi.h>
#include <stddef.h>

/* A communicator attribute as C reads it: a value set from Fortran comes
 * back as the address of the stored integer (MPI-4.0 example 19.19), a
 * predefined one as the address of an int. */
void c_comm_attr(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *predefined,
                 MPI_Aint *value, MPI_Fint *flag)
{
    void *p = NULL;
    int found = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &p, &found);
    *flag = found;
    if (found)
        *value = *predefined ? *(int *)p : *(MPI_Aint *)p;
}

/* MPI_WIN_BASE as C reads it: the address itself. */
void c_win_base(const MPI_Fint *win, MPI_Aint *base)
{
    void *p = NULL;
    int found = 0;
    MPI_Win_get_attr(MPI_Win_f2c(*win), MPI_WIN_BASE, &p, &found);
    *base = found ? (MPI_Aint)p : -1;
}
