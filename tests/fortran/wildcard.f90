! Wildcard receives (MPI_ANY_SOURCE, MPI_ANY_TAG) from every other rank,
! through mpif.h: each message found once, its status naming its sender;
! then one completed by MPI_WAITANY (a 1-based index).
program wildcard
  implicit none
  include 'mpif.h'
  integer :: rank, size, ierr, i, src, got, value, req
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: seen(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  allocate(seen(0:size - 1))
  seen = 0
  if (rank == 0) then
    do i = 1, 3 * (size - 1)
      call MPI_Recv(value, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      src = status(MPI_SOURCE)
      if (value /= 100 * src + status(MPI_TAG)) call fail('value does not match its status')
      seen(src) = seen(src) + 1
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr) ! the tag-9 messages come after
    ! A nonblocking wildcard receive completed by MPI_WAITANY.
    call MPI_Irecv(value, 1, MPI_INTEGER, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, req, ierr)
    call MPI_Waitany(1, req, got, status, ierr)
    if (got /= 1) call fail('waitany index is not 1-based')
    if (value /= 100 * status(MPI_SOURCE) + 9) call fail('waitany value')
    do i = 2, size - 1
      call MPI_Recv(value, 1, MPI_INTEGER, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    end do
    do src = 1, size - 1
      if (seen(src) /= 3) call fail('a sender was not seen 3 times')
    end do
    print '(a,i0,a)', 'wildcard: ', 3 * (size - 1), ' messages matched'
  else
    do i = 1, 3
      value = 100 * rank + i
      call MPI_Send(value, 1, MPI_INTEGER, 0, i, MPI_COMM_WORLD, ierr)
    end do
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    value = 100 * rank + 9
    call MPI_Send(value, 1, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, ierr)
  end if
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(2a)', 'wildcard: FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
