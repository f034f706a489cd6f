! A function wisp's Fortran entry points do not convert (an attribute value):
! MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB) goes to the MPI's own, and
! works; with ghosts it would see the real world, so wisp stops the job with
! one line instead (tests/fortran/unserved.sh).
program unserved
  use mpi
  implicit none
  integer :: ierr, rank
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub < 32767) then
    print '(a)', 'unserved: FAILED: MPI_TAG_UB'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print '(a)', 'unserved: ok'
  call MPI_Finalize(ierr)
end program
