! Not a test: the one-way time of a 1 MiB Fortran ping-pong (`use mpi`),
! median of 7 repetitions of 200 round trips, printed by rank 0, to compare
! wisp with the MPI alone (docs/fortran.md):
!   build/<mpi>/wisprun [--native] -n 2 build/<mpi>/tests/tf_latency
program latency
  use mpi
  implicit none
  integer, parameter :: n = 131072, iters = 200, reps = 7
  double precision, allocatable :: a(:)
  double precision :: t(reps), t0
  integer :: rank, ierr, r, i, peer

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  allocate(a(n))
  a = 1
  do r = 1, reps
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    t0 = MPI_Wtime()
    do i = 1, iters
      if (rank == 0) then
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(a, n, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      else
        call MPI_Recv(a, n, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        call MPI_Send(a, n, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, ierr)
      end if
    end do
    t(r) = (MPI_Wtime() - t0) / (2 * iters)
  end do
  call sort(t)
  if (rank == 0) print '(a,f8.2,a)', '1 MiB one way: ', t((reps + 1) / 2) * 1d6, ' us (median)'
  call MPI_Finalize(ierr)
contains
  subroutine sort(x)
    double precision, intent(inout) :: x(:)
    integer :: j, k
    double precision :: v
    do j = 2, size(x)
      v = x(j)
      k = j - 1
      do while (k >= 1)
        if (x(k) <= v) exit
        x(k + 1) = x(k)
        k = k - 1
      end do
      x(k + 1) = v
    end do
  end subroutine
end program
