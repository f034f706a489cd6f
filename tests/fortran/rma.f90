! One-sided communication through `use mpi`: MPI_WIN_ALLOCATE, puts under
! MPI_WIN_LOCK/UNLOCK, then gets and an accumulate between fences; the
! window's contents checked on every rank.
program rma
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  integer, parameter :: n = 64
  integer :: rank, size, ierr, win, i, target, intsize
  integer(kind=MPI_ADDRESS_KIND) :: bytes, disp, base
  type(c_ptr) :: p
  integer, pointer :: mem(:)
  integer :: buf(n)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Type_size(MPI_INTEGER, intsize, ierr)
  bytes = n * intsize
  call MPI_Win_allocate(bytes, intsize, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  p = transfer(base, p)
  call c_f_pointer(p, mem, [n])
  mem = -1
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! Each rank puts its rank into slot `rank` of the next rank's window.
  target = mod(rank + 1, size)
  buf(1) = 1000 + rank
  disp = rank
  call MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win, ierr)
  call MPI_Put(buf, 1, MPI_INTEGER, target, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(target, win, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win, ierr) ! see the window's memory
  i = mod(rank - 1 + size, size)
  if (mem(i + 1) /= 1000 + i) call fail('put under lock')
  call MPI_Win_unlock(rank, win, ierr)

  ! Fence epochs: everyone adds rank+1 to slot n of rank 0, then gets it.
  call MPI_Win_fence(0, win, ierr)
  if (rank == 0) mem(n) = 0
  call MPI_Win_fence(0, win, ierr)
  buf(1) = rank + 1
  disp = n - 1
  call MPI_Accumulate(buf, 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Get(buf(2), 1, MPI_INTEGER, 0, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  if (buf(2) /= size * (size + 1) / 2) call fail('accumulate and get under fences')
  call MPI_Win_free(win, ierr)
  if (win /= MPI_WIN_NULL) call fail('win_free')
  if (rank == 0) print '(a,i0,a)', 'rma: ', size, ' processes ok'
  call MPI_Finalize(ierr)
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print '(a,i0,2a)', 'rma: rank ', rank, ' FAILED: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine
end program
