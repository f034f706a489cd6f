! tests/fortran/attributes.f90 in `use mpi_f08`, whose entry points differ
! (MPICH: mpi_x_f08_; Open MPI: mostly through the mpif.h ones).
program attributes_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  interface
    subroutine c_comm_attr(comm, keyval, predefined, value, flag) bind(C)
      import :: MPI_ADDRESS_KIND
      integer :: comm, keyval, predefined, flag
      integer(kind=MPI_ADDRESS_KIND) :: value
    end subroutine
    subroutine c_win_base(win, base) bind(C)
      import :: MPI_ADDRESS_KIND
      integer :: win
      integer(kind=MPI_ADDRESS_KIND) :: base
    end subroutine
  end interface
  type(MPI_Comm) :: dup
  type(MPI_Win) :: win
  type(c_ptr) :: baseptr
  integer :: rank, key, cflag, i, namelen
  integer(kind=MPI_ADDRESS_KIND) :: extra, value, cvalue, base, cbase, flavor
  integer :: predefined(2)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 123456789012_MPI_ADDRESS_KIND + rank)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag)
  call check(flag .and. value == 123456789012_MPI_ADDRESS_KIND + rank, 'set and get on the world')
  call c_comm_attr(MPI_COMM_WORLD%MPI_VAL, key, 0, cvalue, cflag)
  call check(cflag == 1 .and. cvalue == value, 'C reads the value set from Fortran')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_get_attr(dup, key, value, flag)
  call check(flag .and. value == 123456789012_MPI_ADDRESS_KIND + rank, 'the duplicate has the value')

  predefined = [MPI_TAG_UB, MPI_UNIVERSE_SIZE]
  do i = 1, 2
    call MPI_Comm_get_attr(MPI_COMM_WORLD, predefined(i), value, flag)
    call c_comm_attr(MPI_COMM_WORLD%MPI_VAL, predefined(i), 1, cvalue, cflag)
    call check(flag .eqv. (cflag == 1), 'a predefined attribute found as C finds it')
    if (flag) call check(value == cvalue, 'a predefined attribute equals C''s')
  end do
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, value, flag)
  call check(flag .and. value >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag)
  call check(.not. flag, 'a deleted attribute is gone')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, namelen)
  call check(name(1:namelen) == 'MPI_COMM_WORLD', 'the world''s name')

  call MPI_Win_allocate(64_MPI_ADDRESS_KIND, 8, MPI_INFO_NULL, MPI_COMM_WORLD, baseptr, win)
  base = transfer(baseptr, base)
  call MPI_Win_get_attr(win, MPI_WIN_BASE, value, flag)
  call check(flag .and. value == base, 'MPI_WIN_BASE is the allocated memory')
  call c_win_base(win%MPI_VAL, cbase)
  call check(cbase == base, 'C''s MPI_WIN_BASE')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, flavor, flag)
  call check(flag .and. flavor == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_free(win)

  call MPI_Comm_free(dup)
  call MPI_Comm_free_keyval(key)
  if (rank == 0) print '(a)', 'attributes_f08: ok'
  call MPI_Finalize()
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,a,a)', 'attributes_f08: rank ', rank, ' FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1)
    end if
  end subroutine
end program
