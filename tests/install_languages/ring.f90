! A program with `use mpi` (mpif90): a ring and a sum; "ring: ok" on rank 0.
program ring
  use mpi
  implicit none
  integer :: ierr, rank, np, got, total, st(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, np), 0, got, 1, MPI_INTEGER, &
                    mod(rank + np - 1, np), 0, MPI_COMM_WORLD, st, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. got == np - 1 .and. total == np * (np - 1) / 2) print '(a)', 'ring: ok'
  call MPI_Finalize(ierr)
end program ring
