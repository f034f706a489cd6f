! The Fortran half of c_main.c: a kernel called from C that exchanges a
! halo with MPI_ISEND/MPI_IRECV and completes it with MPI_WAITALL, and one
! that completes a request the C side started (a C handle made Fortran's
! with MPI_Request_c2f).
subroutine kernel_exchange(comm, peer, n, sendbuf, recvbuf, err) bind(C, name='kernel_exchange')
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  implicit none
  integer(c_int), value :: comm, peer, n
  real(c_double), intent(in) :: sendbuf(n)
  real(c_double), intent(inout) :: recvbuf(n)
  integer(c_int), intent(out) :: err
  integer :: reqs(2), statuses(MPI_STATUS_SIZE, 2), ierr, count

  call MPI_Irecv(recvbuf, n, MPI_DOUBLE_PRECISION, peer, 11, comm, reqs(1), ierr)
  call MPI_Isend(sendbuf, n, MPI_DOUBLE_PRECISION, peer, 11, comm, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  err = ierr
  if (statuses(MPI_SOURCE, 1) /= peer .or. statuses(MPI_TAG, 1) /= 11) err = -1
  call MPI_Get_count(statuses(:, 1), MPI_DOUBLE_PRECISION, count, ierr)
  if (count /= n) err = -2
end subroutine

subroutine kernel_wait(request, source, err) bind(C, name='kernel_wait')
  use mpi
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  integer(c_int), intent(inout) :: request
  integer(c_int), intent(out) :: source, err
  integer :: status(MPI_STATUS_SIZE)

  call MPI_Wait(request, status, err)
  source = status(MPI_SOURCE)
end subroutine
