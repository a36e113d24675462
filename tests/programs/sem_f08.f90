! sem_f08.f90 -- semantics through the mpi_f08 bindings: the
! Fortran sentinels MPI_IN_PLACE, MPI_BOTTOM, MPI_STATUS_IGNORE,
! MPI_STATUSES_IGNORE, status arrays, MPI_PROC_NULL, ANY_SOURCE/ANY_TAG,
! 1-based Waitany/Waitsome indices, persistent requests, Bsend with a
! user buffer, ierr under MPI_ERRORS_RETURN, MPI_Init_thread.  Every rank records lines;
! rank 0 prints them all in rank order.  Ranks work in pairs (2 or 4 ranks).
program sem_f08
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_loc, c_associated
  implicit none
  integer, parameter :: maxl = 60, ll = 110
  character(len=ll) :: lines(maxl)
  character(len=ll), allocatable :: all(:, :)
  character(len=ll) :: s
  integer :: nl, ierr, rank, nprocs, partner, i, k, v, w(8), cnt, idx, outc, cls
  type(MPI_Status) :: status, stats(4)
  type(MPI_Request) :: req(4)
  integer :: ind(4), provided
  logical :: low, flag
  integer :: a, ra
  double precision :: d, rd
  type(MPI_Datatype) :: ty, rty, types(2)
  integer :: blens(2)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2)
  integer :: bsize
  character, allocatable, target :: bbuf(:)
  type(c_ptr) :: bp, bp0
  logical :: same

  nl = 0
  lines = ' '
  call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  partner = ieor(rank, 1)
  low = rank < partner

  write (s, '(A,L1)') 'init_thread: provided funneled or more ', provided >= MPI_THREAD_FUNNELED
  call add(s)

  ! IN_PLACE
  v = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  write (s, '(A,I0,A,I0)') 'allreduce in place: ', v, ' ierr ', ierr
  call add(s)
  w = -1
  w(rank + 1) = 10 * rank
  if (rank == 0) then
     call MPI_Gather(MPI_IN_PLACE, 1, MPI_INTEGER, w, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
     write (s, '(A,8(1X,I0))') 'gather in place:', w(1:nprocs)
     call add(s)
  else
     call MPI_Gather(w(rank + 1), 1, MPI_INTEGER, w, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if

  ! ANY_SOURCE / ANY_TAG with a status array
  if (low) then
     v = 100 + rank
     call MPI_Send(v, 1, MPI_INTEGER, partner, 11, MPI_COMM_WORLD, ierr)
  else
     status%MPI_SOURCE = -99
     call MPI_Recv(v, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
     call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
     write (s, '(A,I0,A,I0,A,I0,A,I0)') 'any/any: ', v, ' source ', status%MPI_SOURCE, ' tag ', &
          status%MPI_TAG, ' count ', cnt
     call add(s)
  end if

  ! STATUS_IGNORE and STATUSES_IGNORE
  v = -1
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, partner, 12, v, 1, MPI_INTEGER, partner, 12, &
       MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  write (s, '(A,I0,A,I0)') 'sendrecv ignore: ', v, ' ierr ', ierr
  call add(s)
  call MPI_Irecv(w(1), 1, MPI_INTEGER, partner, 13, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, partner, 13, MPI_COMM_WORLD, req(2), ierr)
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
  write (s, '(A,I0,A,I0,A,L1)') 'waitall ignore: ', w(1), ' ierr ', ierr, ' null ', req(1) == MPI_REQUEST_NULL
  call add(s)
  v = 5
  call MPI_Sendrecv_replace(v, 1, MPI_INTEGER, partner, 14, partner, 14, MPI_COMM_WORLD, status, ierr)
  write (s, '(A,I0,A,I0)') 'sendrecv_replace: ', v, ' source ', status%MPI_SOURCE
  call add(s)

  ! PROC_NULL
  status%MPI_SOURCE = -99
  v = 77
  call MPI_Recv(v, 1, MPI_INTEGER, MPI_PROC_NULL, 15, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  write (s, '(A,L1,A,L1,A,I0,A,I0)') 'recv PROC_NULL: source is PROC_NULL ', status%MPI_SOURCE == MPI_PROC_NULL, &
       ' tag is ANY_TAG ', status%MPI_TAG == MPI_ANY_TAG, ' count ', cnt, ' buf ', v
  call add(s)
  call MPI_Send(v, 1, MPI_INTEGER, MPI_PROC_NULL, 15, MPI_COMM_WORLD, ierr)

  ! MPI_BOTTOM with absolute addresses
  a = 1000 + rank
  d = rank + 0.5d0
  blens = 1
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call MPI_Get_address(a, disp(1), ierr)
  call MPI_Get_address(d, disp(2), ierr)
  call MPI_Type_create_struct(2, blens, disp, types, ty, ierr)
  call MPI_Type_commit(ty, ierr)
  ra = -1
  rd = -1
  call MPI_Get_address(ra, disp(1), ierr)
  call MPI_Get_address(rd, disp(2), ierr)
  call MPI_Type_create_struct(2, blens, disp, types, rty, ierr)
  call MPI_Type_commit(rty, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, ty, partner, 16, MPI_BOTTOM, 1, rty, partner, 16, MPI_COMM_WORLD, status, ierr)
  write (s, '(A,I0,A,F4.1,A,I0)') 'bottom: ', ra, ' ', rd, ' ierr ', ierr
  call add(s)
  call MPI_Type_free(ty, ierr)
  call MPI_Type_free(rty, ierr)

  ! errors
  call MPI_Send(v, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, k)
  write (s, '(A,L1,A,L1)') 'send to rank size: failed ', ierr /= MPI_SUCCESS, ' class is MPI_ERR_RANK ', cls == MPI_ERR_RANK
  call add(s)
  call MPI_Send(v, 1, MPI_INTEGER, 0, -3, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, k)
  write (s, '(A,L1)') 'send with tag -3: class is MPI_ERR_TAG ', cls == MPI_ERR_TAG
  call add(s)

  ! Waitany / Waitsome indices (1-based); the partner decides what completes
  if (low) then
     req(1) = MPI_REQUEST_NULL
     call MPI_Irecv(w(2), 1, MPI_INTEGER, partner, 51, MPI_COMM_WORLD, req(2), ierr)
     call MPI_Irecv(w(3), 1, MPI_INTEGER, partner, 53, MPI_COMM_WORLD, req(3), ierr)
     call go()
     call MPI_Waitany(3, req, idx, status, ierr)
     write (s, '(A,I0,A,I0,A,I0)') 'waitany: index ', idx, ' tag ', status%MPI_TAG, ' value ', w(3)
     call add(s)
     call MPI_Testany(3, req, idx, flag, status, ierr)
     write (s, '(A,L1,A,L1)') 'testany before the send: flag ', flag, ' undefined ', idx == MPI_UNDEFINED
     call add(s)
     call go()
     call MPI_Waitany(3, req, idx, MPI_STATUS_IGNORE, ierr)
     write (s, '(A,I0,A,I0)') 'waitany ignore: index ', idx, ' value ', w(2)
     call add(s)
     call MPI_Waitany(3, req, idx, status, ierr)
     write (s, '(A,L1)') 'waitany all null: undefined ', idx == MPI_UNDEFINED
     call add(s)
     do i = 1, 4
        call MPI_Irecv(w(i), 1, MPI_INTEGER, partner, 60 + i, MPI_COMM_WORLD, req(i), ierr)
     end do
     call go()
     k = 0
     w(5:8) = 0
     do while (k < 2)
        call MPI_Waitsome(4, req, outc, ind, stats, ierr)
        if (outc == MPI_UNDEFINED) exit
        do i = 1, outc
           w(4 + ind(i)) = stats(i)%MPI_TAG
        end do
        k = k + outc
     end do
     write (s, '(A,4(1X,I0))') 'waitsome: tags by index', w(5:8)
     call add(s)
     call go()
     do while (k < 4)
        call MPI_Testsome(4, req, outc, ind, MPI_STATUSES_IGNORE, ierr)
        if (outc == MPI_UNDEFINED) exit
        do i = 1, outc
           w(4 + ind(i)) = -ind(i)
        end do
        k = k + outc
     end do
     write (s, '(A,4(1X,I0))') 'testsome ignore: marks by index', w(5:8)
     call add(s)
  else
     call wait_go()
     v = 530
     call MPI_Send(v, 1, MPI_INTEGER, partner, 53, MPI_COMM_WORLD, ierr)
     call wait_go()
     v = 510
     call MPI_Send(v, 1, MPI_INTEGER, partner, 51, MPI_COMM_WORLD, ierr)
     call wait_go()
     call MPI_Send(v, 1, MPI_INTEGER, partner, 61, MPI_COMM_WORLD, ierr)
     call MPI_Send(v, 1, MPI_INTEGER, partner, 63, MPI_COMM_WORLD, ierr)
     call wait_go()
     call MPI_Send(v, 1, MPI_INTEGER, partner, 64, MPI_COMM_WORLD, ierr)
     call MPI_Send(v, 1, MPI_INTEGER, partner, 62, MPI_COMM_WORLD, ierr)
  end if

  ! Test and Iprobe flags
  call MPI_Irecv(w(1), 1, MPI_INTEGER, partner, 70, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, partner, 70, MPI_COMM_WORLD, ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Test(req(1), flag, status, ierr)
  end do
  write (s, '(A,L1,A,I0,A,I0)') 'test: flag ', flag, ' value ', w(1), ' source ', status%MPI_SOURCE
  call add(s)
  call MPI_Iprobe(partner, 999, MPI_COMM_WORLD, flag, status, ierr)
  write (s, '(A,L1)') 'iprobe for a tag never sent: ', flag
  call add(s)

  ! persistent
  call MPI_Send_init(v, 1, MPI_INTEGER, partner, 80, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Recv_init(w(1), 1, MPI_INTEGER, partner, 80, MPI_COMM_WORLD, req(2), ierr)
  do i = 1, 3
     v = rank * 10 + i
     call MPI_Startall(2, req, ierr)
     call MPI_Waitall(2, req, stats, ierr)
     write (s, '(A,I0,A,I0,A,I0,A,L1)') 'persistent ', i, ': ', w(1), ' tag ', stats(2)%MPI_TAG, &
          ' kept ', req(2) /= MPI_REQUEST_NULL
     call add(s)
  end do
  call MPI_Request_free(req(1), ierr)
  call MPI_Request_free(req(2), ierr)

  ! Bsend with a user buffer
  call MPI_Pack_size(1, MPI_INTEGER, MPI_COMM_WORLD, bsize, ierr)
  bsize = bsize + MPI_BSEND_OVERHEAD
  allocate (bbuf(bsize))
  bp0 = c_loc(bbuf(1))
  call MPI_Buffer_attach(bbuf, bsize, ierr)
  v = 900 + rank
  call MPI_Bsend(v, 1, MPI_INTEGER, partner, 90, MPI_COMM_WORLD, ierr)
  call MPI_Recv(w(1), 1, MPI_INTEGER, partner, 90, MPI_COMM_WORLD, status, ierr)
  k = -1
  call MPI_Buffer_detach(bp, k, ierr)
  same = c_associated(bp, bp0)
  write (s, '(A,I0,A,L1,A,L1,A,I0)') 'bsend: ', w(1), ' detached size matches ', k == bsize, &
       ' address matches ', same, ' ierr ', ierr
  call add(s)

  ! gather the lines to rank 0
  allocate (all(maxl, nprocs))
  call MPI_Gather(lines, maxl * ll, MPI_CHARACTER, all, maxl * ll, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     print '(A,I0)', 'size ', nprocs
     do k = 1, nprocs
        do i = 1, maxl
           if (len_trim(all(i, k)) > 0) print '(A,I0,A,A)', 'r', k - 1, ': ', trim(all(i, k))
        end do
     end do
  end if
  call MPI_Finalize(ierr)
  if (rank == 0) print '(A,I0)', 'finalize ierr ', ierr

contains

  subroutine add(str)
    character(len=*), intent(in) :: str
    if (nl < maxl) then
       nl = nl + 1
       lines(nl) = str
    end if
  end subroutine add

  subroutine go()
    integer :: e, z
    z = 0
    call MPI_Send(z, 0, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, e)
  end subroutine go

  subroutine wait_go()
    integer :: e, z
    call MPI_Recv(z, 0, MPI_INTEGER, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, e)
  end subroutine wait_go

end program sem_f08
