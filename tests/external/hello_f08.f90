! A Fortran program written outside the tree, as a user would: it uses xmpi_f08 and nothing else,
! builds with CMake (find_package(xmpi), xmpi::xmpi_f08) and runs a monitored loop over a
! registered vector that the balancer may move.
program hello_f08
    use xmpi_f08
    implicit none
    type(XMPI_Array_real64), target :: x
    integer :: rank, nprocs, it, count, displ, bad
    integer, parameter :: n = 1000, iters = 30
    double precision :: mine, total

    call MPI_Init()
    call MPI_Comm_rank(XMPI_COMM_WORLD, rank)
    call MPI_Comm_size(XMPI_COMM_WORLD, nprocs)
    call XMPI_Get_wsize(rank, nprocs, n, count, displ)
    call XMPI_Alloc(x, count, first=displ + 1)
    x%v = 1
    call XMPI_Register_vector(x, n, MPI_DOUBLE_PRECISION, XMPI_DISTRIBUTED)
    bad = 0
    do it = 0, iters - 1
        call XMPI_Monitor_si_init()
        mine = sum(x%v)
        call XMPI_Monitor_add_work(dble(count))
        call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, XMPI_COMM_WORLD)
        if (abs(total - n) > 0.5d0) bad = 1
        call XMPI_Eval_lbalance(rank, nprocs, it, iters, count, displ)
    end do
    if (rank == 0) print '(a,i0,a,i0,2a)', "hello_f08: ", nprocs, " ranks, ", iters, " iterations, ", &
        trim(merge("sums correct", "WRONG sums  ", bad == 0))
    call XMPI_Unregister(x)
    call XMPI_Free(x)
    call MPI_Finalize()
end program
