! Collectives through `use mpi`: MPI_ALLREDUCE (also with MPI_IN_PLACE),
! MPI_BCAST, MPI_GATHER and a communicator split; every result checked.
program collective
  use mpi
  implicit none
  integer :: rank, size, ierr, i, sub, subrank, subsize
  integer :: x(4), y(4)
  integer, allocatable :: all(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  x = [(rank + i, i = 1, 4)]
  call MPI_Allreduce(x, y, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  do i = 1, 4
    if (y(i) /= size * i + size * (size - 1) / 2) call fail('allreduce')
  end do
  call MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (any(x /= [(size - 1 + i, i = 1, 4)])) call fail('allreduce in place')
  y = 0
  if (rank == 0) y = [7, 8, 9, 10]
  call MPI_Bcast(y, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (any(y /= [7, 8, 9, 10])) call fail('bcast')
  allocate(all(size))
  call MPI_Gather(rank * 3, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. any(all /= [(3 * i, i = 0, size - 1)])) call fail('gather')
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, sub, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  call MPI_Comm_size(sub, subsize, ierr)
  if (subsize /= (size + 1 - mod(rank, 2)) / 2) call fail('split size')
  if (subrank /= subsize - 1 - rank / 2) call fail('split rank (keys reversed)')
  call MPI_Comm_free(sub, ierr)
  if (sub /= MPI_COMM_NULL) call fail('comm_free')
  if (rank == 0) print '(a,i0,a)', 'collective: ', size, ' processes ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'collective: rank ', rank, ' FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
