! A program with `use mpi_f08`: a ring and a sum; "ring: ok" on rank 0.
program ring
  use mpi_f08
  implicit none
  integer :: rank, np, got, total
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, mod(rank + 1, np), 0, got, 1, MPI_INTEGER, &
                    mod(rank + np - 1, np), 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. got == np - 1 .and. total == np * (np - 1) / 2) print '(a)', 'ring: ok'
  call MPI_Finalize()
end program ring
