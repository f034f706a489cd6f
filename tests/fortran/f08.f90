! `use mpi_f08`: MPI_Init, nonblocking messages completed by MPI_Waitall and
! MPI_Test, a wildcard receive with its status, an optional ierror left
! out, MPI_STATUS(ES)_IGNORE; every value checked.
program f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 50000
  integer :: rank, size, peer, i, ierr
  type(MPI_Request) :: reqs(2)
  type(MPI_Status) :: statuses(2), status
  integer, allocatable :: a(:), b(:)
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  if (size /= 2) call fail('needs 2 processes')
  peer = 1 - rank
  allocate(a(n), b(n))
  a = [(rank * n + i, i = 1, n)]
  b = -1
  call MPI_Irecv(b, n, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a, n, MPI_INTEGER, peer, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (ierr /= MPI_SUCCESS) call fail('waitall error')
  if (reqs(1) /= MPI_REQUEST_NULL) call fail('request not freed')
  if (statuses(1)%MPI_SOURCE /= peer .or. statuses(1)%MPI_TAG /= 3) call fail('waitall status')
  if (any(b /= [(peer * n + i, i = 1, n)])) call fail('waitall data')

  ! Wildcard receive, completed by MPI_Test.
  call MPI_Irecv(b, n, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(1))
  call MPI_Send(a, 10, MPI_INTEGER, peer, 40 + rank, MPI_COMM_WORLD)
  flag = .false.
  do while (.not. flag)
    call MPI_Test(reqs(1), flag, status)
  end do
  if (status%MPI_SOURCE /= peer .or. status%MPI_TAG /= 40 + peer) call fail('wildcard status')
  if (any(b(1:10) /= [(peer * n + i, i = 1, 10)])) call fail('wildcard data')

  call MPI_Irecv(b, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(a, 1, MPI_INTEGER, peer, 5, MPI_COMM_WORLD, reqs(2))
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  call MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a)', 'f08: ok'
  call MPI_Finalize()
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'f08: rank ', rank, ' FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine
end program
