! Attributes from Fortran (`use mpi`), which each MPI's Fortran library keeps
! itself (src/fortran/attr.c): a value set on MPI_COMM_WORLD is found there,
! from C too, and on its duplicate; MPI_ATTR_PUT/GET the same; the world's
! predefined attributes equal what C reads (with ghosts: MPI_UNIVERSE_SIZE
! less them); a deleted one is gone; the world's name; a window's
! MPI_WIN_BASE is the memory MPI_WIN_ALLOCATE gave, and equals C's. (Not
! compared on the duplicate: natively Open MPI 4.1 gives Fortran an address
! there, not the value.) Before attr.c, under ghosts the duplicate lacked
! the value (MPICH) or the job stopped (Open MPI).
program attributes
  use mpi
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
  integer :: ierr, rank, key, key2, dup, win, cflag, flavor_flag, namelen, ivalue, i
  integer(kind=MPI_ADDRESS_KIND) :: extra, value, cvalue, base, cbase, bytes, flavor
  integer :: predefined(3)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, 123456789012_MPI_ADDRESS_KIND + rank, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag, ierr)
  call check(flag .and. value == 123456789012_MPI_ADDRESS_KIND + rank, 'set and get on the world')
  call c_comm_attr(MPI_COMM_WORLD, key, 0, cvalue, cflag)
  call check(cflag == 1 .and. cvalue == value, 'C reads the value set from Fortran')
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, key2, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key2, 4242 + rank, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, key, value, flag, ierr)
  call check(flag .and. value == 123456789012_MPI_ADDRESS_KIND + rank, 'the duplicate has the value')
  call MPI_Attr_get(dup, key2, ivalue, flag, ierr)
  call check(flag .and. ivalue == 4242 + rank, 'MPI_ATTR_GET on the duplicate')

  predefined = [MPI_TAG_UB, MPI_UNIVERSE_SIZE, MPI_WTIME_IS_GLOBAL]
  do i = 1, 3
    call MPI_Comm_get_attr(MPI_COMM_WORLD, predefined(i), value, flag, ierr)
    call c_comm_attr(MPI_COMM_WORLD, predefined(i), 1, cvalue, cflag)
    call check(flag .eqv. (cflag == 1), 'a predefined attribute found as C finds it')
    if (flag) call check(value == cvalue, 'a predefined attribute equals C''s')
  end do
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, value, flag, ierr)
  call check(flag .and. value >= 32767, 'MPI_TAG_UB')

  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag, ierr)
  call check(.not. flag, 'a deleted attribute is gone')
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, namelen, ierr)
  call check(name(1:namelen) == 'MPI_COMM_WORLD', 'the world''s name')

  bytes = 64
  call MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_BASE, value, flag, ierr)
  call check(flag .and. value == base, 'MPI_WIN_BASE is the allocated memory')
  call c_win_base(win, cbase)
  call check(cbase == base, 'C''s MPI_WIN_BASE')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, flavor, flag, ierr)
  flavor_flag = 0
  if (flag) flavor_flag = 1
  call check(flavor_flag == 1 .and. flavor == MPI_WIN_FLAVOR_ALLOCATE, 'MPI_WIN_CREATE_FLAVOR')
  call MPI_Win_free(win, ierr)

  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Keyval_free(key2, ierr)
  if (rank == 0) print '(a)', 'attributes: ok'
  call MPI_Finalize(ierr)
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    integer :: e
    if (.not. ok) then
      print '(a,i0,a,a)', 'attributes: rank ', rank, ' FAILED: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, e)
    end if
  end subroutine
end program
