! A fixed-form program with mpif.h (mpif77): each rank passes its rank
! round a ring and sums the ranks; prints "ring: ok" on rank 0.
      program ring
      include 'mpif.h'
      integer ierr, rank, np, got, total, st(MPI_STATUS_SIZE)
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
      call MPI_SENDRECV(rank, 1, MPI_INTEGER, mod(rank + 1, np), 0,
     &     got, 1, MPI_INTEGER, mod(rank + np - 1, np), 0,
     &     MPI_COMM_WORLD, st, ierr)
      call MPI_ALLREDUCE(rank, total, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. got .eq. np - 1 .and.
     &     total .eq. np * (np - 1) / 2) print '(a)', 'ring: ok'
      call MPI_FINALIZE(ierr)
      end
