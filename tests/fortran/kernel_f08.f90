! The `use mpi_f08` kernel of c_main.c: the same halo exchange as
! kernel_exchange (kernel.f90), through mpi_f08's MPI_Isend, MPI_Irecv and
! MPI_Waitall (which MPICH's library sends to PMPI_Waitall itself).
subroutine kernel_exchange_f08(comm, peer, n, sendbuf, recvbuf, err) bind(C, name='kernel_exchange_f08')
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  implicit none
  integer(c_int), value :: comm, peer, n
  real(c_double), intent(in) :: sendbuf(n)
  real(c_double), intent(inout) :: recvbuf(n)
  integer(c_int), intent(out) :: err
  type(MPI_Comm) :: c
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: statuses(2)

  c%MPI_VAL = comm
  call MPI_Irecv(recvbuf, n, MPI_DOUBLE_PRECISION, peer, 13, c, reqs(1))
  call MPI_Isend(sendbuf, n, MPI_DOUBLE_PRECISION, peer, 13, c, reqs(2))
  call MPI_Waitall(2, reqs, statuses, err)
  if (statuses(1)%MPI_SOURCE /= peer .or. statuses(1)%MPI_TAG /= 13) err = -1
end subroutine
