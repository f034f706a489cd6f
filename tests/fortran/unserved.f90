! A function wisp's Fortran entry points do not convert and that has no
! communicator to pass on (a callback): MPI_COMM_CREATE_ERRHANDLER goes to
! the MPI's own, and works; with ghosts wisp would need to wrap the callback,
! so under Open MPI it stops the job with one line instead
! (tests/fortran/unserved.sh).
subroutine on_error(comm, code)
  integer :: comm, code
end subroutine

program unserved
  use mpi
  implicit none
  external :: on_error
  integer :: ierr, rank, handler

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_create_errhandler(on_error, handler, ierr)
  if (ierr /= MPI_SUCCESS .or. handler == MPI_ERRHANDLER_NULL) then
    print '(a)', 'unserved: FAILED: MPI_COMM_CREATE_ERRHANDLER'
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  call MPI_Errhandler_free(handler, ierr)
  if (rank == 0) print '(a)', 'unserved: ok'
  call MPI_Finalize(ierr)
end program
