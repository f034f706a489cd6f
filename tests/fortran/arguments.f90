! `use mpi`: argument forms the generated entry points convert, checked as
! the MPI's own bindings treat them: CHARACTER arguments lose their leading
! and trailing blanks; a status's MPI_ERROR field is left as the caller set
! it by matched probes and receives, MPI_Improbe and MPI_Recv (the standard
! leaves it undefined; natively MPICH's MPI_Probe and Open MPI's MPI_Wait
! and MPI_Sendrecv write it, so those are not checked); MPI_Improbe that finds nothing returns with flag false.
program arguments
  use mpi
  implicit none
  integer :: rank, size, peer, from, info, valuelen, msg, req, rreq, sbuf, rbuf, ierr
  integer :: status(MPI_STATUS_SIZE)
  logical :: flag
  character(len=16) :: value

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  peer = mod(rank + 1, size)
  from = mod(rank + size - 1, size)
  sbuf = 100 + rank

  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  mykey', '  hello  ', ierr)
  call MPI_Info_get_valuelen(info, 'mykey  ', valuelen, flag, ierr)
  call check(flag .and. valuelen == 5, 'MPI_Info_get_valuelen of a blank-padded key')
  call MPI_Info_get(info, 'mykey', len(value), value, flag, ierr)
  call check(flag .and. value == 'hello', 'MPI_Info_get of a blank-padded key')
  call MPI_Info_free(info, ierr)

  ! A message to self, through the matched probe.
  call MPI_Isend(sbuf, 1, MPI_INTEGER, rank, 7, MPI_COMM_WORLD, req, ierr)
  status(MPI_ERROR) = 11
  call MPI_Mprobe(rank, 7, MPI_COMM_WORLD, msg, status, ierr)
  call check(status(MPI_ERROR) == 11 .and. status(MPI_TAG) == 7, 'MPI_Mprobe')
  status(MPI_ERROR) = 12
  call MPI_Mrecv(rbuf, 1, MPI_INTEGER, msg, status, ierr)
  call check(status(MPI_ERROR) == 12 .and. rbuf == sbuf, 'MPI_Mrecv')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  ! Nothing to find: flag false, and the call returns.
  status(MPI_ERROR) = 14
  call MPI_Improbe(peer, 99, MPI_COMM_WORLD, flag, msg, status, ierr)
  call check(.not. flag .and. ierr == MPI_SUCCESS, 'MPI_Improbe of nothing')

  ! From the previous rank, with a wildcard.
  call MPI_Isend(sbuf, 1, MPI_INTEGER, peer, 8, MPI_COMM_WORLD, req, ierr)
  flag = .false.
  do while (.not. flag)
    status(MPI_ERROR) = 15
    call MPI_Improbe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, flag, msg, status, ierr)
    call check(status(MPI_ERROR) == 15, 'MPI_Improbe')
  end do
  call check(status(MPI_SOURCE) == from, 'MPI_Improbe source')
  call MPI_Imrecv(rbuf, 1, MPI_INTEGER, msg, rreq, ierr)
  call MPI_Wait(rreq, MPI_STATUS_IGNORE, ierr)
  call check(rbuf == 100 + from, 'MPI_Imrecv then MPI_Wait')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  call MPI_Sendrecv(sbuf, 1, MPI_INTEGER, peer, 9, rbuf, 1, MPI_INTEGER, MPI_ANY_SOURCE, 9, &
                    MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == from, 'MPI_Sendrecv')

  call MPI_Isend(sbuf, 1, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, req, ierr)
  call MPI_Probe(from, 10, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_TAG) == 10, 'MPI_Probe')
  status(MPI_ERROR) = 19
  call MPI_Recv(rbuf, 1, MPI_INTEGER, from, 10, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_ERROR) == 19 .and. rbuf == 100 + from, 'MPI_Recv')
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  call MPI_Finalize(ierr)
  if (rank == 0) print '(a)', 'arguments: OK'

contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAILED on rank ', rank, ': ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine
end program
