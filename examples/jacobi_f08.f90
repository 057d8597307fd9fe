! Jacobi in Fortran 2008 over libxmpi (module xmpi_f08 only): the twin of examples/jacobi.c.
! The same generated system, the same floating-point operations in the same order and the same
! result line, so that both print the same bits on the same input under every policy: static
! balancing (-b) and malleable runs (-d, XMPI_Eval_reconfig) that grow and shrink the job.
! A, b and x's local part are registered arrays (XMPI_Array_real64): the library moves their
! rows and the module re-points a%m, b%v and xloc%v at this process's block, bounded by global
! row numbers: column i of a%m (1-based) is row i - 1 of the C program's row-major matrix.
program jacobi_f08
    use xmpi_f08
    use, intrinsic :: iso_fortran_env, only: int8, int64, real64, error_unit, output_unit
    use, intrinsic :: ieee_arithmetic, only: ieee_is_nan, ieee_is_finite
    implicit none

    integer, parameter :: dp = real64, i8 = int64
    integer, parameter :: EXIT_RUNTIME = 1, EXIT_USAGE = 2, MAX_WEIGHTS = 4096
    integer, parameter :: INT_MAX = huge(0)
    integer(i8), parameter :: M16 = 65535_i8, M32 = 4294967295_i8

    ! Options.
    integer :: order = 1000, iterations = 100
    integer(i8) :: seed = 1_i8
    real(dp) :: tol = 0.0_dp
    logical :: balance = .false., dynamic = .false., no_work = .false., help = .false.
    real(dp), allocatable :: weights(:)
    integer :: nweights = 0

    ! The problem: this process's rows [displ, displ + count) (0-based, as the library counts).
    type(XMPI_Array_real64), target :: a, b, x, xloc
    integer :: n, count, displ
    integer, allocatable :: counts(:), displs(:)

    integer :: rank, nprocs, status, done, ierr, code, pstatus
    logical :: left, stop_now, registered = .false.
    real(dp) :: t0, diff, mine(2), red(2), elapsed, residual, error, e, mine_t
    character(len=768) :: msg
    character(len=256) :: rows
    integer :: r, used
    integer(i8) :: hash

    call MPI_Init()
    t0 = MPI_Wtime()   ! a spawned process's clock; the others restart it below
    call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
    call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
    status = 0
    done = 0
    left = .false.
    stop_now = .false.
    msg = ""
    code = 0

    call parse_options(code, msg)
    call XMPI_Get_process_status(pstatus)
    if (pstatus == XMPI_NEWLY_SPAWNED) then
        ! Started by -d: the parents accepted these options and wait for it in XMPI_Eval_reconfig.
        call join(code, msg)
        stop_now = code /= 0
    else
        status = agree(code, msg)
        if (status /= 0) call leave(status)
        if (help) then
            if (rank == 0) call usage()
            call leave(0)
        end if
        if (nweights > 0 .and. nweights /= nprocs) then
            write (msg, '(a,i0,a,i0,a)') "jacobi-f08: -p gives ", nweights, " weight(s) for ", nprocs, &
                " ranks; give one per rank"
            code = EXIT_USAGE
        else
            n = order
            call allocate_problem(code, msg)
            if (code == 0) call generate()
        end if
        ! Registration ends in a collective: every rank must get there, or none.
        status = agree(code, msg)
        if (status /= 0) call leave(status)
        ! Even blocks are what the library assumes at the first registration; only -p's need
        ! recording.
        if (balance .or. dynamic) call register_rows(dynamic, nweights > 0, code, msg)
        status = agree(code, msg)
        if (status /= 0) call leave(status)
        if (rank == 0) then
            write (output_unit, '(a,i0,a,i0,a,i0,a)') "jacobi-f08: order ", n, ", iterations ", iterations, &
                ", ranks ", nprocs, ", source generated, library xmpi"
            flush (output_unit)
        end if
        call MPI_Barrier(XMPI_COMM_WORLD)
        t0 = MPI_Wtime()
    end if

    do while (.not. stop_now .and. done < iterations)
        call XMPI_Monitor_iter_begin(ierror=ierr)
        call monitor_check(ierr, "XMPI_Monitor_iter_begin")
        diff = sweep()
        if (.not. no_work) then
            call XMPI_Monitor_add_work(2.0_dp * n * count, ierr)
            call monitor_check(ierr, "XMPI_Monitor_add_work")
        end if
        call MPI_Allgatherv(xloc%v, count, MPI_DOUBLE_PRECISION, x%v, counts, displs, MPI_DOUBLE_PRECISION, &
            XMPI_COMM_WORLD)
        ! One reduction settles both the stopping test and whether any rank failed, before
        ! iter_end, so that a rank that failed never leaves the others in the library's collective.
        mine = [diff, merge(1.0_dp, 0.0_dp, code /= 0)]
        call MPI_Allreduce(mine, red, 2, MPI_DOUBLE_PRECISION, MPI_MAX, XMPI_COMM_WORLD)
        if (red(2) > 0.0_dp) exit
        call XMPI_Monitor_iter_end(ierror=ierr)
        call monitor_check(ierr, "XMPI_Monitor_iter_end")
        done = done + 1
        if (balance .or. dynamic) then
            r = rebalance(done - 1)
            if (r /= 0) then
                left = r > 0
                exit
            end if
        end if
        if (tol > 0.0_dp .and. red(1) < tol) exit
    end do
    ! A removed process is no member of XMPI_COMM_WORLD any more: nothing to report.
    if (left) call leave(0)
    call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
    call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
    mine_t = MPI_Wtime() - t0
    status = agree(code, msg)
    if (status /= 0) call leave(status)
    call MPI_Allreduce(mine_t, elapsed, 1, MPI_DOUBLE_PRECISION, MPI_MAX, XMPI_COMM_WORLD)

    residual = true_residual()

    if (rank == 0) then
        error = 0.0_dp
        do r = 0, n - 1
            e = abs(x%v(r + 1) - x_true(r))
            if (e > error .or. ieee_is_nan(e)) error = e
        end do
        hash = fnv1a64(x%v)
        ! As the C program's snprintf loop: blocks while fewer than len - 16 characters are used.
        rows = ""
        used = 0
        do r = 1, nprocs
            if (used >= len(rows) - 16) exit
            if (r > 1) then
                write (rows(used + 1:), '(a,i0)') ",", counts(r)
            else
                write (rows(used + 1:), '(i0)') counts(r)
            end if
            used = len_trim(rows)
        end do
        write (output_unit, '(a,i0,a,i0,a,i0,*(a))') "result: order=", n, " iterations=", done, " ranks=", &
            nprocs, " residual=", trim(c_e17(residual)), " error=", trim(c_e17(error)), " checksum=", hex16(hash), &
            " time=", trim(c_f6(elapsed)), " iter_time=", trim(c_f6(merge(elapsed / max(done, 1), 0.0_dp, done > 0))), &
            " rows=" // trim(rows)
        flush (output_unit)
    end if
    call leave(0)

contains

    ! ---- the end: unregister, free, MPI_Finalize, exit status --------------------------------

    subroutine leave(code)
        integer, intent(in) :: code
        integer :: ignore
        if (registered) then
            call XMPI_Unregister(a, ignore)
            call XMPI_Unregister(b, ignore)
            call XMPI_Unregister(xloc, ignore)
            if (dynamic) call XMPI_Unregister(x, ignore)
        end if
        call XMPI_Free(a, ignore)
        call XMPI_Free(b, ignore)
        call XMPI_Free(xloc, ignore)
        call XMPI_Free(x, ignore)
        call MPI_Finalize()
        if (code /= 0) stop code, quiet=.true.
        stop
    end subroutine

    ! ---- failures: the lowest failing rank speaks for all, and every rank takes the same exit -

    integer function agree(code, msg)
        integer, intent(in) :: code
        character(len=*), intent(in) :: msg
        integer :: in(2), out(2)
        in = [code, merge(-rank, -nprocs, code /= 0)]
        call MPI_Allreduce(in, out, 2, MPI_INTEGER, MPI_MAX, XMPI_COMM_WORLD)
        if (out(1) /= 0 .and. -out(2) == rank) then
            write (error_unit, '(a)') trim(msg)
            flush (error_unit)
        end if
        agree = out(1)
    end function

    subroutine fail(c, m, code, msg)
        integer, intent(in) :: c
        character(len=*), intent(in) :: m
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        if (code /= 0) return
        code = c
        msg = m
    end subroutine

    ! Monitoring carries on without PAPI, so losing counters is no reason to stop.
    subroutine monitor_check(rc, what)
        integer, intent(in) :: rc
        character(len=*), intent(in) :: what
        character(len=XMPI_MAX_STRING) :: why
        integer :: l
        logical, save :: warned = .false.
        if (rc == XMPI_SUCCESS) return
        call XMPI_Error_string(rc, why, l)
        if (rc == XMPI_ERR_PAPI) then
            if (.not. warned) write (error_unit, '(a,i0,4a)') "jacobi-f08: rank ", rank, ": warning: ", what, &
                ": ", why(1:l)
            warned = .true.
            return
        end if
        write (msg, '(a,i0,4a)') "jacobi-f08: rank ", rank, ": ", what, " failed: ", why(1:l)
        if (code == 0) code = EXIT_RUNTIME
    end subroutine

    ! ---- options ------------------------------------------------------------------------------

    subroutine usage()
        write (output_unit, '(a)') &
            "usage: jacobi-f08 [-n ORDER] [-i ITERATIONS] [-s SEED] [-t TOL] [-p W,W,...] [-b] [-d] [-w] [-h]", &
            "  -n ORDER       order of the generated system, 1 to 2147483647 (default 1000)", &
            "  -i ITERATIONS  Jacobi sweeps to run, 0 to 2147483647 (default 100)", &
            "  -s SEED        seed of the generated matrix, 0 to 18446744073709551615 (default 1)", &
            "  -t TOL         stop once max|x_new - x_old| < TOL; 0 runs every iteration (default 0)", &
            "  -p W,W,...     start from blocks in proportion to these weights, one per rank", &
            "  -b             balance the load: register A, b and x's rows, XMPI_Eval_lbalance each iteration", &
            "  -d             malleable: XMPI_Eval_reconfig each iteration (--xmpi-policy grows and shrinks", &
            "                 the job); spawned processes receive their rows and resume, removed ones exit 0", &
            "                 without a result line", &
            "  -w             declare no work to the library (XMPI_Monitor_add_work)", &
            "  -h             print this help", &
            "The result line is examples/jacobi.c's, bit for bit, on the same options."
    end subroutine

    subroutine parse_options(code, msg)
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        integer :: k, nargs, l
        character(len=512) :: word, val
        character :: c
        logical :: got
        nargs = XMPI_Command_argument_count()
        k = 1
        do while (k <= nargs .and. code == 0)
            call XMPI_Get_command_argument(k, word, l)
            k = k + 1
            if (l < 2 .or. word(1:1) /= "-" .or. word(1:2) == "--") then
                if (word(1:2) == "--" .and. l > 2) then
                    call fail(EXIT_USAGE, "jacobi-f08: unknown option '" // trim(word) // &
                        "'; long options are not accepted, only -n -i -s -t -p -b -d -w -h", code, msg)
                else
                    call fail(EXIT_USAGE, "jacobi-f08: unexpected argument '" // trim(word) // &
                        "'; everything is given through options (see -h)", code, msg)
                end if
                return
            end if
            c = word(2:2)
            select case (c)
            case ("b")
                balance = .true.
            case ("d")
                dynamic = .true.
            case ("w")
                no_work = .true.
            case ("h")
                help = .true.
                return
            case ("n", "i", "s", "t", "p")
                got = .true.
                if (l > 2) then
                    val = word(3:l)
                else if (k <= nargs) then
                    call XMPI_Get_command_argument(k, val)
                    k = k + 1
                else
                    got = .false.
                end if
                if (.not. got) then
                    call fail(EXIT_USAGE, "jacobi-f08: option '-" // c // "' needs a value (see jacobi-f08 -h)", &
                        code, msg)
                    return
                end if
                call take_value(c, trim(val), code, msg)
            case default
                call fail(EXIT_USAGE, "jacobi-f08: unknown option '-" // c // &
                    "'; accepted: -n ORDER -i ITERATIONS -s SEED -t TOL -p W,W,... -b -d -w -h", code, msg)
                return
            end select
            if (l > 2 .and. index("bdwh", c) > 0) then
                call fail(EXIT_USAGE, "jacobi-f08: unknown option '" // trim(word) // "'; give -b, -d, -w apart", &
                    code, msg)
                return
            end if
        end do
    end subroutine

    subroutine take_value(c, s, code, msg)
        character, intent(in) :: c
        character(len=*), intent(in) :: s
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        integer(i8) :: v
        integer :: ios
        select case (c)
        case ("n")
            if (.not. parse_int(s, 1_i8, int(INT_MAX, i8), v)) then
                call fail(EXIT_USAGE, "jacobi-f08: bad order '-n " // s // &
                    "': expected an integer from 1 to 2147483647", code, msg)
                return
            end if
            order = int(v)
        case ("i")
            if (.not. parse_int(s, 0_i8, int(INT_MAX, i8), v)) then
                call fail(EXIT_USAGE, "jacobi-f08: bad iteration count '-i " // s // &
                    "': expected an integer from 0 to 2147483647", code, msg)
                return
            end if
            iterations = int(v)
        case ("s")
            if (.not. parse_u64(s, seed)) then
                call fail(EXIT_USAGE, "jacobi-f08: bad seed '-s " // s // &
                    "': expected an integer from 0 to 18446744073709551615", code, msg)
                return
            end if
        case ("t")
            ios = 1
            if (is_number(s)) read (s, *, iostat=ios) tol
            if (ios /= 0 .or. .not. ieee_is_finite(tol) .or. tol < 0.0_dp) then
                call fail(EXIT_USAGE, "jacobi-f08: bad tolerance '-t " // s // &
                    "': expected a finite number >= 0 (0 runs every iteration)", code, msg)
                return
            end if
        case ("p")
            if (.not. parse_weights(s)) then
                call fail(EXIT_USAGE, "jacobi-f08: bad weights '-p " // s // &
                    "': expected 1 to 4096 comma-separated positive finite numbers, one per rank", code, msg)
                return
            end if
        end select
    end subroutine

    ! An optional sign and decimal digits, within [lo, hi].
    logical function parse_int(s, lo, hi, v)
        character(len=*), intent(in) :: s
        integer(i8), intent(in) :: lo, hi
        integer(i8), intent(out) :: v
        integer :: k, start
        logical :: neg
        parse_int = .false.
        v = 0
        if (len(s) == 0) return
        neg = s(1:1) == "-"
        start = 1
        if (s(1:1) == "-" .or. s(1:1) == "+") start = 2
        if (start > len(s) .or. len(s) - start + 1 > 12) return
        do k = start, len(s)
            if (s(k:k) < "0" .or. s(k:k) > "9") return
            v = 10 * v + (ichar(s(k:k)) - ichar("0"))
        end do
        if (neg) v = -v
        parse_int = v >= lo .and. v <= hi
    end function

    ! Decimal digits of an unsigned 64-bit number, kept as its bits in an int64.
    logical function parse_u64(s, v)
        character(len=*), intent(in) :: s
        integer(i8), intent(out) :: v
        integer :: k
        parse_u64 = .false.
        v = 0
        if (len(s) == 0 .or. len(s) > 20) return
        do k = 1, len(s)
            if (s(k:k) < "0" .or. s(k:k) > "9") return
        end do
        if (len(s) == 20 .and. s > "18446744073709551615") return
        do k = 1, len(s)
            v = add64(mul64(v, 10_i8), int(ichar(s(k:k)) - ichar("0"), i8))
        end do
        parse_u64 = .true.
    end function

    ! Only what strtod reads of a finite decimal number: sign, digits, point, exponent.
    logical function is_number(s)
        character(len=*), intent(in) :: s
        is_number = len(s) > 0 .and. verify(s, "0123456789+-.eE") == 0 .and. scan(s, "0123456789") > 0
    end function

    logical function parse_weights(s)
        character(len=*), intent(in) :: s
        integer :: from, to, ios
        real(dp) :: w
        real(dp), allocatable :: got(:)
        parse_weights = .false.
        allocate (got(MAX_WEIGHTS))
        nweights = 0
        from = 1
        do
            to = index(s(from:), ",")
            if (to == 0) then
                to = len(s) + 1
            else
                to = from + to - 1
            end if
            if (to == from .or. nweights == MAX_WEIGHTS) return
            ios = 1
            if (is_number(s(from:to - 1))) read (s(from:to - 1), *, iostat=ios) w
            if (ios /= 0 .or. .not. ieee_is_finite(w) .or. .not. w > 0.0_dp) return
            nweights = nweights + 1
            got(nweights) = w
            if (to > len(s)) exit
            from = to + 1
        end do
        weights = got(1:nweights)
        parse_weights = .true.
    end function

    ! ---- 64-bit unsigned arithmetic on int64 bits (Fortran has no unsigned type) -----------

    ! a + b mod 2^64.
    integer(i8) function add64(a, b)
        integer(i8), intent(in) :: a, b
        integer(i8) :: lo, hi
        lo = iand(a, M32) + iand(b, M32)
        hi = shiftr(a, 32) + shiftr(b, 32) + shiftr(lo, 32)
        add64 = ior(shiftl(iand(hi, M32), 32), iand(lo, M32))
    end function

    ! a * b mod 2^64, by 16-bit limbs (every partial sum below 2^35).
    integer(i8) function mul64(a, b)
        integer(i8), intent(in) :: a, b
        integer(i8) :: x(0:3), y(0:3), r, carry
        integer :: i, j, k
        do k = 0, 3
            x(k) = iand(shiftr(a, 16 * k), M16)
            y(k) = iand(shiftr(b, 16 * k), M16)
        end do
        mul64 = 0
        carry = 0
        do k = 0, 3
            r = carry
            do i = 0, k
                j = k - i
                r = r + x(i) * y(j)
            end do
            mul64 = ior(mul64, shiftl(iand(r, M16), 16 * k))
            carry = shiftr(r, 16)
        end do
    end function

    integer(i8) function u64(hi, lo)
        integer(i8), intent(in) :: hi, lo
        u64 = ior(shiftl(hi, 32), lo)
    end function

    integer(i8) function splitmix64(z0)
        integer(i8), intent(in) :: z0
        integer(i8) :: z
        z = add64(z0, u64(int(z'9E3779B9', i8), int(z'7F4A7C15', i8)))
        z = mul64(ieor(z, shiftr(z, 30)), u64(int(z'BF58476D', i8), int(z'1CE4E5B9', i8)))
        z = mul64(ieor(z, shiftr(z, 27)), u64(int(z'94D049BB', i8), int(z'133111EB', i8)))
        splitmix64 = ieor(z, shiftr(z, 31))
    end function

    ! FNV-1a over the bytes of v, as they lie in memory.
    integer(i8) function fnv1a64(v)
        real(dp), intent(in) :: v(:)
        integer(int8) :: bytes(8)
        integer(i8) :: h, prime
        integer :: k, m
        h = u64(int(z'CBF29CE4', i8), int(z'84222325', i8))
        prime = u64(int(z'00000100', i8), int(z'000001B3', i8))
        do k = 1, size(v)
            bytes = transfer(v(k), bytes)
            do m = 1, 8
                h = mul64(ieor(h, iand(int(bytes(m), i8), 255_i8)), prime)
            end do
        end do
        fnv1a64 = h
    end function

    ! ---- C's printf formats -------------------------------------------------------------------

    ! %016llx
    character(len=16) function hex16(h)
        integer(i8), intent(in) :: h
        character(len=16), parameter :: digits = "0123456789abcdef"
        integer :: k
        do k = 0, 15
            hex16(16 - k:16 - k) = digits(iand(shiftr(h, 4 * k), 15_i8) + 1:iand(shiftr(h, 4 * k), 15_i8) + 1)
        end do
    end function

    ! %.17e: mantissa as Fortran writes it, exponent with a sign and at least two digits.
    character(len=40) function c_e17(v)
        real(dp), intent(in) :: v
        character(len=40) :: s
        integer :: epos, ex
        if (ieee_is_nan(v)) then
            c_e17 = "nan"
            return
        else if (.not. ieee_is_finite(v)) then
            c_e17 = merge("-inf", "inf ", v < 0)
            return
        end if
        write (s, '(ES30.17E4)') v
        s = adjustl(s)
        epos = index(s, "E")
        read (s(epos + 1:), *) ex
        write (c_e17, '(a,a,i2.2)') s(1:epos - 1), merge("e-", "e+", ex < 0), abs(ex)
        if (abs(ex) >= 100) write (c_e17, '(a,a,i0)') s(1:epos - 1), merge("e-", "e+", ex < 0), abs(ex)
    end function

    ! %.6f
    character(len=40) function c_f6(v)
        real(dp), intent(in) :: v
        character(len=40) :: s
        write (s, '(F40.6)') v
        s = adjustl(s)
        if (s(1:1) == ".") s = "0" // s(1:39)
        if (s(1:2) == "-.") s = "-0" // s(2:39)
        c_f6 = s
    end function

    ! ---- the problem --------------------------------------------------------------------------

    ! Rows in proportion to w: each rank floor(n w / sum), then one more row to the largest
    ! remainders (the lower rank on a tie), so that the blocks tile [0, n).
    subroutine weighted_blocks(n, np, w, c, d)
        integer, intent(in) :: n, np
        real(dp), intent(in) :: w(:)
        integer, intent(out) :: c(:), d(:)
        real(dp) :: total, most, frac
        integer(i8) :: given, left_over
        integer :: r, best
        total = 0.0_dp
        do r = 1, np
            total = total + w(r)
        end do
        given = 0
        do r = 1, np
            c(r) = int(floor(real(n, dp) * (w(r) / total)))
            given = given + c(r)
        end do
        do left_over = n - given, 1, -1
            best = 1
            most = -1.0_dp
            do r = 1, np
                frac = real(n, dp) * (w(r) / total) - c(r)
                if (frac > most) then
                    most = frac
                    best = r
                end if
            end do
            c(best) = c(best) + 1
        end do
        d(1) = 0
        do r = 2, np
            d(r) = d(r - 1) + c(r - 1)
        end do
    end subroutine

    ! Even blocks, as XMPI_Get_wsize makes them.
    subroutine even_block(r, np, n, c, d)
        integer, intent(in) :: r, np, n
        integer, intent(out) :: c, d
        integer :: base, extra
        base = n / np
        extra = mod(n, np)
        c = base + merge(1, 0, r < extra)
        d = r * base + min(r, extra)
    end subroutine

    subroutine allocate_problem(code, msg)
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        integer :: r, ierr(4)
        allocate (counts(nprocs), displs(nprocs))
        if (nweights > 0) then
            call weighted_blocks(n, nprocs, weights, counts, displs)
        else
            do r = 1, nprocs
                call even_block(r - 1, nprocs, n, counts(r), displs(r))
            end do
        end if
        count = counts(rank + 1)
        displ = displs(rank + 1)
        call XMPI_Alloc(a, n, count, first=displ + 1, ierror=ierr(1))
        call XMPI_Alloc(b, count, first=displ + 1, ierror=ierr(2))
        call XMPI_Alloc(x, n, ierror=ierr(3))
        call XMPI_Alloc(xloc, count, first=displ + 1, ierror=ierr(4))
        if (any(ierr /= XMPI_SUCCESS)) then
            call fail(EXIT_RUNTIME, "jacobi-f08: out of memory", code, msg)
            return
        end if
        x%v = 0.0_dp
        ! Overwritten by every sweep before it is read; written here so that its first touch
        ! happens before the clock starts, as in the C program.
        xloc%v = 0.0_dp
    end subroutine

    ! A pure function of (seed, i, j), 0-based, so no rank needs another rank's rows.
    real(dp) function element(i, j)
        integer, intent(in) :: i, j
        integer(i8) :: h
        h = splitmix64(ieor(splitmix64(ieor(splitmix64(seed), int(i, i8))), int(j, i8)))
        element = real(shiftr(h, 11), dp) * 2.0_dp**(-52) - 1.0_dp   ! 53 random bits: exact, in [-1, 1)
    end function

    real(dp) function x_true(j)
        integer, intent(in) :: j
        x_true = 1.0_dp + mod(j, 7) / 8.0_dp
    end function

    ! Row by row, column by column in increasing order (0-based i, j as in the C program).
    subroutine generate()
        integer :: i, j
        real(dp) :: off, s
        do i = displ, displ + count - 1
            associate (row => a%m(:, i + 1))
                off = 0.0_dp
                do j = 0, n - 1
                    row(j + 1) = element(i, j)
                    if (j /= i) off = off + abs(row(j + 1))
                end do
                row(i + 1) = off + 1.0_dp   ! strict diagonal dominance: Jacobi converges
                s = 0.0_dp
                do j = 0, n - 1
                    s = s + row(j + 1) * x_true(j)
                end do
                b%v(i + 1) = s
            end associate
        end do
    end subroutine

    ! One sweep over this process's rows: j in increasing order, so x comes out the same bits
    ! whatever the partition. Returns this process's max |x_new - x_old|.
    real(dp) function sweep()
        integer :: i, j
        real(dp) :: s, v, d
        sweep = 0.0_dp
        do i = displ + 1, displ + count
            associate (row => a%m(:, i), xv => x%v)
                s = 0.0_dp
                do j = 1, i - 1
                    s = s + row(j) * xv(j)
                end do
                do j = i + 1, n
                    s = s + row(j) * xv(j)
                end do
                v = (b%v(i) - s) / row(i)
                d = abs(v - xv(i))
                if (d > sweep) sweep = d
                xloc%v(i) = v
            end associate
        end do
    end function

    ! ||A x - b|| / ||b|| on rank 0, summed over the rows in global order, so that it is the same
    ! bits whatever partition -b and -d left.
    real(dp) function true_residual()
        real(dp), allocatable :: mine(:), all(:)
        type(MPI_Datatype) :: pair
        real(dp) :: s, rr, bb, res
        integer :: i, j
        allocate (mine(2 * max(count, 1)), all(merge(2 * n, 1, rank == 0)))
        do i = displ + 1, displ + count
            s = 0.0_dp
            do j = 1, n
                s = s + a%m(j, i) * x%v(j)
            end do
            res = s - b%v(i)
            mine(2 * (i - displ) - 1) = res * res
            mine(2 * (i - displ)) = b%v(i) * b%v(i)
        end do
        ! One element per row keeps the counts within int for any order.
        call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, pair)
        call MPI_Type_commit(pair)
        call MPI_Gatherv(mine, count, pair, all, counts, displs, pair, 0, XMPI_COMM_WORLD)
        call MPI_Type_free(pair)
        true_residual = 0.0_dp
        if (rank == 0) then
            rr = 0.0_dp
            bb = 0.0_dp
            do i = 1, n
                rr = rr + all(2 * i - 1)
                bb = bb + all(2 * i)
            end do
            if (bb > 0) then
                true_residual = sqrt(rr) / sqrt(bb)
            else
                true_residual = sqrt(rr)
            end if
        end if
    end function

    ! ---- libxmpi: registration, balancing, growing and shrinking -------------------------------

    ! The rows move with their data: A, b and x's local part, and with -d the whole x as a
    ! replicated vector (a spawned process receives it with its rows). `record` tells the library
    ! the uneven blocks -p starts from; a spawned process registers the same arrays without
    ! buffers and records nothing.
    subroutine register_rows(with_x, record, code, msg)
        logical, intent(in) :: with_x, record
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        integer :: rc
        character(len=XMPI_MAX_STRING) :: why
        integer :: l
        call XMPI_Register_dense(a, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        if (rc == 0) call XMPI_Register_vector(b, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        if (rc == 0) call XMPI_Register_vector(xloc, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED, rc)
        if (rc == 0 .and. with_x) call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_REPLICATED, rc)
        if (rc /= 0) then
            call XMPI_Error_string(rc, why, l)
            call fail(EXIT_RUNTIME, "jacobi-f08: registering the rows failed: " // why(1:l), code, msg)
        end if
        registered = rc == 0
        ! Called even after a failed registration: the library then refuses the move on every
        ! process alike, where skipping it here would leave the others waiting in it.
        if (record) then
            call XMPI_Redistribute_data(count, displ, count, displ, rc)
            if (rc /= 0) then
                call XMPI_Error_string(rc, why, l)
                call fail(EXIT_RUNTIME, "jacobi-f08: XMPI_Redistribute_data recording the initial blocks failed: " &
                    // why(1:l), code, msg)
            end if
        end if
    end subroutine

    ! After the rows may have moved: rank and size from XMPI_COMM_WORLD, every rank's block from
    ! the library, and one reduction (new processes included) saying whether any process failed.
    logical function settle_blocks()
        integer :: r, bad, any
        call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
        call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
        if (allocated(counts)) deallocate (counts, displs)
        allocate (counts(nprocs), displs(nprocs))
        do r = 1, nprocs
            call XMPI_Get_wsize(r - 1, nprocs, n, counts(r), displs(r))
        end do
        count = counts(rank + 1)
        displ = displs(rank + 1)
        bad = merge(1, 0, code /= 0)
        call MPI_Allreduce(bad, any, 1, MPI_INTEGER, MPI_MAX, XMPI_COMM_WORLD)
        settle_blocks = any /= 0
    end function

    ! After iteration `it` (-b, -d): XMPI_Eval_lbalance, or with -d XMPI_Eval_reconfig, which
    ! also grows and shrinks the job as --xmpi-policy decides. 0: go on; 1: this process was
    ! removed and must leave; -1: stop.
    integer function rebalance(it)
        integer, intent(in) :: it
        integer :: before, rc, size, r, st, l
        character(len=XMPI_MAX_STRING) :: why
        before = nprocs
        if (dynamic) then
            call XMPI_Eval_reconfig(rank, nprocs, it, iterations, count, displ, ierror=rc)
        else
            call XMPI_Eval_lbalance(rank, nprocs, it, iterations, count, displ, ierror=rc)
        end if
        rebalance = 0
        if (rc /= 0) then
            call XMPI_Error_string(rc, why, l)
            call fail(EXIT_RUNTIME, "jacobi-f08: " // trim(merge("XMPI_Eval_reconfig", "XMPI_Eval_lbalance", dynamic)) &
                // " failed: " // why(1:l), code, msg)
            rebalance = -1
            return
        end if
        call XMPI_Get_process_status(st)
        if (st == XMPI_REMOVED) then
            rebalance = 1
            return
        end if
        call MPI_Comm_size(XMPI_COMM_WORLD, size)
        if (size /= before) then
            ! The new processes meet this in join().
            if (settle_blocks()) then
                rebalance = -1
                return
            end if
            call announce(it + 1, before, nprocs)
            return
        end if
        do r = 1, size
            call XMPI_Get_wsize(r - 1, size, n, counts(r), displs(r))
        end do
    end function

    ! Rank 0's line for each change of the job's size after iteration it (counted from 1).
    subroutine announce(it, before, after)
        integer, intent(in) :: it, before, after
        integer :: howmany
        if (rank /= 0 .or. before == after) return
        howmany = abs(after - before)
        write (output_unit, '(a,i0,3a,i0,3a,i0,a)') "jacobi-f08: iteration ", it, ": ", &
            trim(merge("spawned", "removed", after > before)), " ", howmany, " process", &
            trim(merge("  ", "es", howmany == 1)), " (now ", after, ")"
        flush (output_unit)
    end subroutine

    ! A process that -d spawned: the arrays registered without buffers in the parents' order,
    ! then its rows and the iteration to resume at, collectively with the parents'
    ! XMPI_Eval_reconfig.
    subroutine join(code, msg)
        integer, intent(inout) :: code
        character(len=*), intent(inout) :: msg
        integer :: rc, l
        character(len=XMPI_MAX_STRING) :: why
        n = order
        call register_rows(.true., .false., code, msg)
        call XMPI_Get_data(done, rc)
        if (rc /= 0) then
            call XMPI_Error_string(rc, why, l)
            call fail(EXIT_RUNTIME, "jacobi-f08: XMPI_Get_data failed: " // why(1:l), code, msg)
        end if
        if (settle_blocks()) code = max(code, EXIT_RUNTIME)
    end subroutine

end program jacobi_f08
