! Point-to-point through mpif.h-style calls (`use mpi`): blocking and
! nonblocking ping-pong between ranks 0 and 1 with statuses checked (source,
! tag, count), MPI_STATUS_IGNORE, MPI_WAITALL and MPI_TEST; every byte checked.
program pingpong
  use mpi
  implicit none
  integer, parameter :: n = 100000
  integer :: rank, size, ierr, peer, i, iter, count
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2)
  double precision, allocatable :: a(:), b(:)
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  if (size /= 2) call fail('needs 2 processes')
  peer = 1 - rank
  allocate(a(n), b(n))
  do iter = 1, 5
    do i = 1, n
      a(i) = rank * 1000000 + iter * 1000 + i
    end do
    b = -1
    if (rank == 0) then
      call MPI_Send(a, n, MPI_DOUBLE_PRECISION, peer, iter, MPI_COMM_WORLD, ierr)
      call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, peer, iter + 100, MPI_COMM_WORLD, status, ierr)
    else
      call MPI_Recv(b, n, MPI_DOUBLE_PRECISION, peer, iter, MPI_COMM_WORLD, status, ierr)
      call MPI_Send(a, n, MPI_DOUBLE_PRECISION, peer, iter + 100, MPI_COMM_WORLD, ierr)
    end if
    if (ierr /= MPI_SUCCESS) call fail('send/recv error')
    if (status(MPI_SOURCE) /= peer) call fail('status source')
    if (status(MPI_TAG) /= iter + 100 * (1 - rank)) call fail('status tag')
    call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count, ierr)
    if (count /= n) call fail('status count')
    do i = 1, n
      if (b(i) /= peer * 1000000 + iter * 1000 + i) call fail('blocking data')
    end do
  end do

  ! Nonblocking both ways, completed by MPI_WAITALL with statuses.
  b = -1
  call MPI_Irecv(b, n, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, n, MPI_DOUBLE_PRECISION, peer, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) call fail('requests not freed')
  if (statuses(MPI_SOURCE, 1) /= peer .or. statuses(MPI_TAG, 1) /= 7) call fail('waitall status')
  do i = 1, n
    if (b(i) /= peer * 1000000 + 5 * 1000 + i) call fail('nonblocking data')
  end do

  ! MPI_TEST until done, then MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE.
  call MPI_Irecv(b, 1, MPI_DOUBLE_PRECISION, peer, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(a, 1, MPI_DOUBLE_PRECISION, peer, 8, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, status, ierr)
  end do
  if (status(MPI_TAG) /= 8 .or. reqs(1) /= MPI_REQUEST_NULL) call fail('test')
  call MPI_Irecv(b, 1, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(a, 1, MPI_DOUBLE_PRECISION, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE, ierr)

  if (rank == 0) print '(a)', 'pingpong: ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'pingpong: rank ', rank, ' FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine
end program
