! The Fortran 2008 module's contract, written from its comments (include/xmpi_f08.f90) and
! include/xmpi.h: TAP lines on rank 0, each check true on every process. tests/sh/fortran.sh
! runs it in these modes (the first argument that is not a --xmpi- option):
!   constants         prints every constant, for comparison with the C header's
!   api               XMPI_COMM_WORLD, strings, registered arrays moved between partitions
!                     (views re-pointed, bounded to the block, values kept), every refusal of
!                     bad input (an error code, nothing registered), and profiled MPI calls
!   abort             a refusal without ierror: the job ends, saying why
!   grow              XMPI_Spawn of this program (mode child) and XMPI_Remove, views on all
!   checkpoint DIR    writes a checkpoint of the arrays; restart reads it back on any
!   restart           number of processes (--xmpi-restart)
program f08_api
    use xmpi_f08
    use, intrinsic :: iso_fortran_env, only: real64, real32, int32, int64, output_unit
    implicit none

    integer, parameter :: dp = real64
    integer :: rank, nprocs, n
    character(len=64) :: mode
    ! api's registered arrays and this process's block.
    type(XMPI_Array_real64), target :: x, a
    type(XMPI_Array_int64), target :: r
    type(XMPI_Array_int32), target :: ia, ja
    type(XMPI_Array_real32), target :: av
    integer :: count, displ

    call MPI_Init()
    call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
    call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
    mode = "api"
    if (XMPI_Command_argument_count() >= 1) call XMPI_Get_command_argument(1, mode)
    select case (trim(mode))
    case ("constants")
        call constants()
    case ("api")
        call api()
    case ("abort")
        call abort_without_ierror()
    case ("grow", "child")
        call grow(trim(mode) == "child")
    case ("checkpoint", "restart")
        call checkpoint_restart(trim(mode) == "restart")
    case default
        if (rank == 0) print '(3a)', "not ok - unknown mode '", trim(mode), "'"
    end select
    call MPI_Finalize()

contains

    ! ---- helpers ------------------------------------------------------------------------------

    ! ok when cond holds on every process of XMPI_COMM_WORLD (collective).
    subroutine check(what, cond)
        character(len=*), intent(in) :: what
        logical, intent(in) :: cond
        logical :: all
        call MPI_Allreduce(cond, all, 1, MPI_LOGICAL, MPI_LAND, XMPI_COMM_WORLD)
        if (rank == 0) then
            if (all) then
                write (output_unit, '(2a)') "ok - ", what
            else
                write (output_unit, '(2a)') "not ok - ", what
            end if
            flush (output_unit)
        end if
    end subroutine

    ! The values every array holds for global row i (1-based), column j.
    real(dp) function vec(i)
        integer, intent(in) :: i
        vec = i + 0.5_dp
    end function
    real(dp) function mat(j, i)
        integer, intent(in) :: j, i
        mat = 1000.0_dp * i + j
    end function
    integer(int64) function rep(i)
        integer, intent(in) :: i
        rep = int(i, int64)**2 + 3_int64
    end function
    ! CSR row i (1-based) has mod(i, 3) nonzeros, in columns mod(i + k, n) (0-based), valued i + k / 4.
    integer function nnz_of(i)
        integer, intent(in) :: i
        nnz_of = mod(i, 3)
    end function

    subroutine fill(x, a, r, ia, ja, av, first, count)
        type(XMPI_Array_real64), intent(inout) :: x, a
        type(XMPI_Array_int64), intent(inout) :: r
        type(XMPI_Array_int32), intent(inout) :: ia, ja
        type(XMPI_Array_real32), intent(inout) :: av
        integer, intent(in) :: first, count
        integer :: i, j, k, p
        do i = first, first + count - 1
            x%v(i) = vec(i)
            do j = 1, n
                a%m(j, i) = mat(j, i)
            end do
        end do
        do i = 1, n
            r%v(i) = rep(i)
        end do
        p = 0
        ia%v(first) = 0
        do i = first, first + count - 1
            do k = 0, nnz_of(i) - 1
                p = p + 1
                ja%v(p) = mod(i + k, n)
                av%v(p) = real(i, real32) + k / 4.0_real32
            end do
            ia%v(i + 1) = p
        end do
    end subroutine

    integer function block_nnz(first, count)
        integer, intent(in) :: first, count
        integer :: i
        block_nnz = 0
        do i = first, first + count - 1
            block_nnz = block_nnz + nnz_of(i)
        end do
    end function

    ! Whether the views show exactly this process's block [displ + 1, displ + count] with the
    ! values of its rows.
    logical function views_hold(x, a, r, ia, ja, av, displ, count)
        type(XMPI_Array_real64), intent(in) :: x, a
        type(XMPI_Array_int64), intent(in) :: r
        type(XMPI_Array_int32), intent(in) :: ia, ja
        type(XMPI_Array_real32), intent(in) :: av
        integer, intent(in) :: displ, count
        integer :: i, j, k, p, first
        first = displ + 1
        views_hold = associated(x%v) .and. associated(a%m) .and. associated(r%v) .and. associated(ia%v) &
            .and. associated(ja%v) .and. associated(av%v)
        if (.not. views_hold) return
        views_hold = size(x%v) == count .and. size(a%m, 1) == n .and. size(a%m, 2) == count .and. &
            size(r%v) == n .and. size(ia%v) == count + 1 .and. size(ja%v) == block_nnz(first, count) .and. &
            size(av%v) == size(ja%v) .and. .not. associated(x%m) .and. .not. associated(a%v)
        if (.not. views_hold) return
        if (count > 0) views_hold = lbound(x%v, 1) == first .and. lbound(a%m, 2) == first .and. &
            lbound(a%m, 1) == 1 .and. lbound(ia%v, 1) == first .and. lbound(r%v, 1) == 1 .and. &
            lbound(ja%v, 1) == 1
        if (.not. views_hold) return
        do i = 1, n
            if (r%v(i) /= rep(i)) views_hold = .false.
        end do
        p = 0
        if (ia%v(first) /= 0) views_hold = .false.
        do i = first, first + count - 1
            if (x%v(i) /= vec(i)) views_hold = .false.
            do j = 1, n
                if (a%m(j, i) /= mat(j, i)) views_hold = .false.
            end do
            do k = 0, nnz_of(i) - 1
                p = p + 1
                if (ja%v(p) /= mod(i + k, n) .or. av%v(p) /= real(i, real32) + k / 4.0_real32) views_hold = .false.
            end do
            if (ia%v(i + 1) /= p) views_hold = .false.
        end do
    end function

    ! ---- constants ----------------------------------------------------------------------------

    subroutine constants()
        if (rank /= 0) return
        print '(a,1x,i0)', "XMPI_SUCCESS", XMPI_SUCCESS, "XMPI_ERR_ARG", XMPI_ERR_ARG, &
            "XMPI_ERR_STATE", XMPI_ERR_STATE, "XMPI_ERR_NOMEM", XMPI_ERR_NOMEM, "XMPI_ERR_MPI", XMPI_ERR_MPI, &
            "XMPI_ERR_PAPI", XMPI_ERR_PAPI, "XMPI_ERR_NOT_FOUND", XMPI_ERR_NOT_FOUND, &
            "XMPI_ERR_CLASS", XMPI_ERR_CLASS, "XMPI_ERR_RESOURCES", XMPI_ERR_RESOURCES, &
            "XMPI_ERR_SPAWN", XMPI_ERR_SPAWN, "XMPI_ERR_RMS", XMPI_ERR_RMS, &
            "XMPI_ERR_CHECKPOINT", XMPI_ERR_CHECKPOINT, "XMPI_ERR_LAST", XMPI_ERR_LAST, &
            "XMPI_RUNNING", XMPI_RUNNING, "XMPI_NEWLY_SPAWNED", XMPI_NEWLY_SPAWNED, &
            "XMPI_REMOVED", XMPI_REMOVED, "XMPI_SYSTEM_NONE", XMPI_SYSTEM_NONE, &
            "XMPI_SYSTEM_SPAWN", XMPI_SYSTEM_SPAWN, "XMPI_SYSTEM_SHRINK", XMPI_SYSTEM_SHRINK, &
            "XMPI_DISTRIBUTED", XMPI_DISTRIBUTED, "XMPI_REPLICATED", XMPI_REPLICATED, &
            "XMPI_VERSION_MAJOR", XMPI_VERSION_MAJOR, "XMPI_VERSION_MINOR", XMPI_VERSION_MINOR
        print '(2a)', "XMPI_VERSION_STRING ", XMPI_VERSION_STRING
    end subroutine

    ! ---- api ----------------------------------------------------------------------------------

    subroutine api()
        type(XMPI_Array_real64), target :: y, z, m2, fa
        type(XMPI_Array_int32), target :: iv
        integer :: rc, rc2, world_rank, world_size, l, i, it, k
        integer :: oc(2), od(2)
        character(len=XMPI_MAX_STRING) :: s
        type(MPI_Datatype) :: three_reals
        real(dp) :: w(1), buf3(3), got3(3), pair(2), back(2), g(2)
        integer :: b5(5), sbuf(4), rbuf(4)
        type(MPI_Request) :: reqs(2)
        type(MPI_Status) :: st

        n = 11
        call MPI_Comm_rank(MPI_COMM_WORLD, world_rank)
        call MPI_Comm_size(MPI_COMM_WORLD, world_size)
        call check("XMPI_COMM_WORLD holds the job: same size and rank as MPI_COMM_WORLD", &
            world_rank == rank .and. world_size == nprocs .and. XMPI_COMM_WORLD /= MPI_COMM_NULL)
        call XMPI_Get_process_status(i)
        call check("XMPI_Get_process_status: XMPI_RUNNING in a process mpirun started", i == XMPI_RUNNING)
        call XMPI_Error_string(XMPI_ERR_ARG, s, l)
        call check("XMPI_Error_string(XMPI_ERR_ARG): the C sentence, and its length", &
            s(1:l) == "invalid argument (NULL, out of range or inconsistent between processes)" .and. l == len_trim(s))
        call XMPI_Get_option("si", s, l, rc)
        call check("XMPI_Get_option('si') is the command line's 4", rc == XMPI_SUCCESS .and. s(1:l) == "4")
        call XMPI_Get_option("no-such-option", s, l, rc)
        call check("XMPI_Get_option of an unknown name: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Get_command_argument(1, s, l, rc)
        call check("the command line without --xmpi- options: one argument, 'api'", &
            XMPI_Command_argument_count() == 1 .and. s(1:l) == "api" .and. rc == 0)
        call XMPI_Get_command_argument(2, s, l, rc)
        call check("XMPI_Get_command_argument past the last one: status non-zero, empty", rc /= 0 .and. l == 0)

        ! Arrays from XMPI_Alloc, bounded by global rows from the start.
        call XMPI_Get_wsize(rank, nprocs, n, count, displ)
        call XMPI_Alloc(x, count, first=displ + 1)
        call XMPI_Alloc(a, n, count, first=displ + 1)
        call XMPI_Alloc(r, n)
        call XMPI_Alloc(ia, count + 1, first=displ + 1)
        call XMPI_Alloc(ja, block_nnz(displ + 1, count))
        call XMPI_Alloc(av, block_nnz(displ + 1, count))
        call check("XMPI_Alloc: x%v(displ+1:displ+count), a%m(1:n, displ+1:displ+count), r%v(1:n)", &
            lbound(x%v, 1) == displ + 1 .and. ubound(x%v, 1) == displ + count .and. all(shape(a%m) == [n, count]) &
            .and. lbound(a%m, 2) == displ + 1 .and. size(r%v) == n .and. .not. associated(a%v))
        call fill(x, a, r, ia, ja, av, displ + 1, count)
        call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call XMPI_Register_dense(a, n, MPI_REAL8, XMPI_DISTRIBUTED, rc2)
        rc = max(rc, rc2)
        call XMPI_Register_vector(r, n, MPI_INTEGER8, XMPI_REPLICATED, rc2)
        rc = max(rc, rc2)
        call XMPI_Register_sparse(ia, ja, av, n, MPI_REAL, XMPI_DISTRIBUTED, rc2)
        rc = max(rc, rc2)
        call check("registering a vector, a dense matrix, a replicated int64 vector and a CSR matrix", &
            rc == XMPI_SUCCESS)
        call check("after registration the views show the block with its values", &
            views_hold(x, a, r, ia, ja, av, displ, count))

        ! Moves: uneven, one block empty, back to even. The views follow every one.
        oc = [3, n - 3]
        od = [0, 3]
        call move(oc, od, "3 and 8 rows")
        oc = [n, 0]
        od = [0, n]
        call move(oc, od, "all rows on rank 0, none on rank 1")
        oc = [0, n]
        od = [0, 0]
        call move(oc, od, "none on rank 0, all on rank 1")
        oc = [6, 5]
        od = [0, 6]
        call move(oc, od, "back to even blocks")

        ! ---- bad input: an error code, one line on rank 0, nothing registered ----------------
        call XMPI_Alloc(y, 4)
        call XMPI_Register_dense(y, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("a 1-D array as a dense matrix", rc, y)
        call XMPI_Alloc(m2, n, 2)
        call XMPI_Register_vector(m2, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("a 2-D array as a vector", rc, m2)
        call XMPI_Free(m2)
        call XMPI_Alloc(m2, n + 1, 2)
        call XMPI_Register_dense(m2, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("a dense matrix whose rows hold n + 1 elements", rc, m2)
        call XMPI_Alloc(fa, 3)
        call XMPI_Alloc(iv, 3)
        call XMPI_Alloc(z, 3)
        call XMPI_Register_sparse(fa, iv, z, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("CSR row pointers of real64 (a wrong kind)", rc, fa)
        call XMPI_Register_sparse(iv, fa, z, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("CSR column indices of real64 (a wrong kind)", rc, iv)
        call XMPI_Register_vector(y, n, MPI_INTEGER, XMPI_DISTRIBUTED, rc)
        call refused("a real64 array with MPI_INTEGER", rc, y)
        call XMPI_Register_vector(iv, n, MPI_REAL, XMPI_DISTRIBUTED, rc)
        call refused("an int32 array with MPI_REAL", rc, iv)
        call XMPI_Register_vector(y, n, MPI_REAL, XMPI_DISTRIBUTED, rc)
        call refused("a real64 array with MPI_REAL (a kind of another size)", rc, y)
        call MPI_Type_contiguous(3, MPI_REAL, three_reals)
        call MPI_Type_commit(three_reals)
        call XMPI_Register_vector(y, n, three_reals, XMPI_DISTRIBUTED, rc)
        call refused("a real64 array with a derived datatype of 12 bytes", rc, y)
        call MPI_Type_free(three_reals)
        call XMPI_Register_vector(y, n, MPI_DATATYPE_NULL, XMPI_DISTRIBUTED, rc)
        call refused("MPI_DATATYPE_NULL", rc, y)
        call XMPI_Register_vector(y, n + 1, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("a size other than the registered arrays'", rc, y)
        call XMPI_Register_vector(y, n, MPI_DOUBLE_PRECISION, 7, rc)
        call refused("an unknown scheme", rc, y)
        call XMPI_Free(y)
        call XMPI_Register_vector(y, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("an array without a buffer in a process mpirun started", rc, y)
        allocate (y%v(4))
        call XMPI_Register_vector(y, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call refused("a view ALLOCATEd by Fortran (memory the library cannot free)", rc, y)
        deallocate (y%v)
        call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call check("registering an array twice: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Free(x, rc)
        call check("XMPI_Free of a registered array: XMPI_ERR_ARG, the buffer kept", &
            rc == XMPI_ERR_ARG .and. views_hold(x, a, r, ia, ja, av, od(rank + 1), oc(rank + 1)))
        call XMPI_Alloc(x, 3, ierror=rc)
        call check("XMPI_Alloc of an array that has a buffer: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Alloc(z, -1, ierror=rc)
        call check("XMPI_Alloc of a negative extent: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Unregister(ja, rc)
        call check("XMPI_Unregister of a CSR matrix's ja (not its ia): XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Get_wsize(nprocs, nprocs, n, i, l, rc)
        call check("XMPI_Get_wsize of a rank outside the job: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Spawn("f08_api", nprocs=2, info=MPI_INFO_NULL, node_class=["local"], ierror=rc)
        i = count_procs()
        call check("XMPI_Spawn with fewer node classes than processes: XMPI_ERR_ARG, no spawn", &
            rc == XMPI_ERR_ARG .and. i == nprocs)

        ! ---- monitoring and the profiled MPI calls (bytes checked in the trace) ----------------
        ! Per process and iteration: Allreduce 3 x 8, Bcast 5 x 4, Sendrecv 2 x 8 each way,
        ! Isend and Irecv 4 x 4 each, Allgatherv 1 x 8, Barrier 0: 116 bytes.
        k = 0
        do it = 1, 8
            call XMPI_Monitor_iter_begin(ierror=rc)
            buf3 = [1.0_dp, 2.0_dp, real(rank, dp)]
            call MPI_Allreduce(buf3, got3, 3, MPI_DOUBLE_PRECISION, MPI_SUM, XMPI_COMM_WORLD)
            b5 = it
            call MPI_Bcast(b5, 5, MPI_INTEGER, 0, XMPI_COMM_WORLD)
            pair = rank
            call MPI_Sendrecv(pair, 2, MPI_DOUBLE_PRECISION, 1 - rank, 7, back, 2, MPI_DOUBLE_PRECISION, &
                1 - rank, 7, XMPI_COMM_WORLD, st)
            sbuf = rank
            call MPI_Irecv(rbuf, 4, MPI_INTEGER, 1 - rank, 8, XMPI_COMM_WORLD, reqs(1))
            call MPI_Isend(sbuf, 4, MPI_INTEGER, 1 - rank, 8, XMPI_COMM_WORLD, reqs(2))
            call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
            w(1) = rank
            call MPI_Allgatherv(w, 1, MPI_DOUBLE_PRECISION, g, [1, 1], [0, 1], MPI_DOUBLE_PRECISION, XMPI_COMM_WORLD)
            call MPI_Barrier(XMPI_COMM_WORLD)
            call XMPI_Monitor_add_work(10.0_dp)
            call XMPI_Monitor_iter_end(ierror=rc2)
            k = k + merge(1, 0, got3(3) /= 1.0_dp .or. back(1) /= 1 - rank .or. rbuf(1) /= 1 - rank .or. &
                g(2) /= 1.0_dp .or. b5(5) /= it)
        end do
        call check("MPI calls through the module give MPI's results", k == 0 .and. rc == 0 .and. rc2 == 0)
        call XMPI_Monitor_work_source(s, l)
        call check("XMPI_Monitor_work_source: 'declared' after XMPI_Monitor_add_work", &
            s(1:l) == "declared" .or. s(1:5) == "papi:")
        call XMPI_Eval_lbalance(rank, nprocs, 7, 8, oc(rank + 1), od(rank + 1), [1.0_dp], ierror=rc)
        call check("XMPI_Eval_lbalance with fewer weights than rows: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)

        call XMPI_Unregister(x, rc)
        call XMPI_Unregister(a, rc2)
        rc = max(rc, rc2)
        call XMPI_Unregister(r, rc2)
        rc = max(rc, rc2)
        call XMPI_Unregister(ia, rc2)
        rc = max(rc, rc2)
        call check("XMPI_Unregister of every array (a CSR matrix by its ia)", rc == XMPI_SUCCESS)
        call XMPI_Unregister(x, rc)
        call check("XMPI_Unregister again: XMPI_ERR_ARG", rc == XMPI_ERR_ARG)
        call XMPI_Free(x)
        call XMPI_Free(a)
        call XMPI_Free(r)
        call XMPI_Free(ia)
        call XMPI_Free(ja)
        call XMPI_Free(av, rc)
        call check("XMPI_Free leaves the views not associated", rc == 0 .and. .not. associated(x%v) .and. &
            .not. associated(a%m))
        call XMPI_Free(fa)
        call XMPI_Free(iv)
        call XMPI_Free(z)
        call XMPI_Free(m2)

    end subroutine

    ! XMPI_Redistribute_data from the current blocks to c/d, then the views.
    subroutine move(c, d, what)
        integer, intent(in) :: c(2), d(2)
        character(len=*), intent(in) :: what
        integer :: rc, count0, displ0
        count0 = count
        displ0 = displ
        call XMPI_Redistribute_data(count0, displ0, c(rank + 1), d(rank + 1), rc)
        count = c(rank + 1)
        displ = d(rank + 1)
        call check("XMPI_Redistribute_data to " // what // ": views re-pointed at the new block, values kept", &
            rc == XMPI_SUCCESS .and. views_hold(x, a, r, ia, ja, av, displ, count))
    end subroutine

    subroutine refused(what, rc, h)
        character(len=*), intent(in) :: what
        integer, intent(in) :: rc
        class(XMPI_Array), intent(inout), target :: h
        integer :: again
        call XMPI_Unregister(h, again)
        call check("refused: " // what // ": XMPI_ERR_ARG, nothing registered", &
            rc == XMPI_ERR_ARG .and. again == XMPI_ERR_ARG)
    end subroutine


    integer function count_procs()
        call MPI_Comm_size(XMPI_COMM_WORLD, count_procs)
    end function

    ! A refusal without ierror ends the job (as MPI's default error handler).
    subroutine abort_without_ierror()
        type(XMPI_Array_real64), target :: y
        call XMPI_Alloc(y, 3)
        call XMPI_Register_dense(y, 3, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED)
        if (rank == 0) print '(a)', "still running after a refused registration"
    end subroutine

    ! ---- grow and shrink ------------------------------------------------------------------------

    ! 2 processes spawn one (this program, mode child), which receives rows [8, 12) of 12; then
    ! it is removed and hands them back.
    subroutine grow(child)
        logical, intent(in) :: child
        type(XMPI_Array_real64), target :: x, a, rr
        integer :: count, displ, rc, it, st, i, j
        character(len=256) :: self
        logical :: ok
        it = 0
        n = 12
        call XMPI_Get_process_status(st)
        if (child) then
            ! Its own conditions, reported with the parents' at the first check they share.
            ok = st == XMPI_NEWLY_SPAWNED
            call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
            ok = ok .and. rc == 0
            call XMPI_Register_dense(a, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
            ok = ok .and. rc == 0
            call XMPI_Register_vector(rr, n, MPI_DOUBLE_PRECISION, XMPI_REPLICATED, rc)
            ok = ok .and. rc == 0 .and. size(x%v) == 0 .and. size(a%m) == 0 .and. size(rr%v) == 0
            call XMPI_Get_data(it, rc)
            ok = ok .and. it == 0
            count = 4
            displ = 8
        else
            call XMPI_Get_wsize(rank, nprocs, n, count, displ)
            call XMPI_Alloc(x, count, first=displ + 1)
            call XMPI_Alloc(a, n, count, first=displ + 1)
            call XMPI_Alloc(rr, n)
            do i = displ + 1, displ + count
                x%v(i) = vec(i)
                do j = 1, n
                    a%m(j, i) = mat(j, i)
                end do
            end do
            do i = 1, n
                rr%v(i) = vec(i) * 2
            end do
            call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
            call XMPI_Register_dense(a, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
            call XMPI_Register_vector(rr, n, MPI_DOUBLE_PRECISION, XMPI_REPLICATED, rc)
            call XMPI_Get_command_argument(0, self)
            call XMPI_Spawn(trim(self), ["child"], 1, MPI_INFO_NULL, ierror=rc)
            ok = rc == XMPI_SUCCESS
            call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
            call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
            call XMPI_Redistribute_data(count, displ, 4, 4 * rank, rc)
            count = 4
            displ = 4 * rank
        end if
        call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
        call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
        call check("XMPI_Spawn of this program from Fortran; the new process sees XMPI_NEWLY_SPAWNED, " // &
            "registers without buffers (empty views) and XMPI_Get_data resumes it at iteration 0", ok)
        call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
        call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
        call check("after the spawn: 3 processes, XMPI_COMM_WORLD refreshed on every one", nprocs == 3 .and. rc == 0)
        call check("after the spawn: every view holds its block of 4 rows (the new process's from XMPI_Get_data)", &
            holds(x, a, rr, displ, count))
        call XMPI_Remove(1, ierror=rc)
        call XMPI_Get_process_status(st)
        if (st == XMPI_REMOVED) then
            ok = XMPI_COMM_WORLD == MPI_COMM_NULL .and. size(x%v) == 0 .and. size(a%m) == 0 .and. rc == 0
            call XMPI_Unregister(x)
            call XMPI_Unregister(a)
            call XMPI_Unregister(rr)
            call XMPI_Free(x)
            call XMPI_Free(a)
            call XMPI_Free(rr)
            if (.not. ok) print '(a)', "not ok - the removed process: XMPI_COMM_WORLD null, empty views"
            return
        end if
        call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
        call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
        call XMPI_Get_wsize(rank, nprocs, n, count, displ)
        call check("after XMPI_Remove: 2 processes, the removed one's rows handed over (blocks of 6)", &
            rc == 0 .and. nprocs == 2 .and. count == 6 .and. displ == 6 * rank)
        call check("after XMPI_Remove: the views show the grown blocks with their values", holds(x, a, rr, displ, count))
        call XMPI_Unregister(x)
        call XMPI_Unregister(a)
        call XMPI_Unregister(rr)
        call XMPI_Free(x)
        call XMPI_Free(a)
        call XMPI_Free(rr)
    end subroutine

    logical function holds(x, a, rr, displ, count)
        type(XMPI_Array_real64), intent(in) :: x, a, rr
        integer, intent(in) :: displ, count
        integer :: i, j
        holds = size(x%v) == count .and. lbound(x%v, 1) == displ + 1 .and. all(shape(a%m) == [n, count]) .and. &
            lbound(a%m, 2) == displ + 1 .and. size(rr%v) == n
        if (.not. holds) return
        do i = displ + 1, displ + count
            if (x%v(i) /= vec(i)) holds = .false.
            do j = 1, n
                if (a%m(j, i) /= mat(j, i)) holds = .false.
            end do
        end do
        do i = 1, n
            if (rr%v(i) /= vec(i) * 2) holds = .false.
        end do
    end function

    ! ---- checkpoint and restart -----------------------------------------------------------------

    subroutine checkpoint_restart(restart)
        logical, intent(in) :: restart
        type(XMPI_Array_real64), target :: x, a, rr
        integer :: count, displ, rc, it, st, i, j
        n = 13
        call XMPI_Get_process_status(st)
        if (restart) then
            call check("under --xmpi-restart every process starts XMPI_NEWLY_SPAWNED", st == XMPI_NEWLY_SPAWNED)
        else
            call XMPI_Get_wsize(rank, nprocs, n, count, displ)
            call XMPI_Alloc(x, count, first=displ + 1)
            call XMPI_Alloc(a, n, count, first=displ + 1)
            call XMPI_Alloc(rr, n)
            do i = displ + 1, displ + count
                x%v(i) = vec(i)
                do j = 1, n
                    a%m(j, i) = mat(j, i)
                end do
            end do
            do i = 1, n
                rr%v(i) = vec(i) * 2
            end do
        end if
        call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call XMPI_Register_dense(a, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        call XMPI_Register_vector(rr, n, MPI_DOUBLE_PRECISION, XMPI_REPLICATED, rc)
        if (restart) then
            call XMPI_Get_data(it, rc)
            call XMPI_Get_wsize(rank, nprocs, n, count, displ)
            call check("XMPI_Get_data from the checkpoint: the views show even blocks of the new job's size", &
                rc == 0 .and. holds(x, a, rr, displ, count))
        else
            call XMPI_Checkpoint("f08", rc)
            call check("XMPI_Checkpoint of Fortran arrays", rc == XMPI_SUCCESS)
        end if
        call XMPI_Unregister(x)
        call XMPI_Unregister(a)
        call XMPI_Unregister(rr)
        call XMPI_Free(x)
        call XMPI_Free(a)
        call XMPI_Free(rr)
    end subroutine

end program f08_api
