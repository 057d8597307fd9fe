! Module xmpi_f08: libxmpi for Fortran 2008 programs, over include/xmpi.h. It re-exports mpi_f08,
! so that a program uses it in place of mpi_f08 and nothing else: every XMPI_ call (bind(C)
! over the C library, an optional ierror last), XMPI_COMM_WORLD as a TYPE(MPI_Comm), the
! constants, registered arrays that the library may move (XMPI_Array_* handles, below), and
! its own MPI_Init, MPI_Init_thread, MPI_Finalize and profiled MPI calls, which reach the
! library as a C program's calls do (a Fortran MPI binding need not pass through the C
! wrappers: Open MPI's never does, MPICH's only for some calls).
!
! Registered arrays: a program declares a handle, e.g. TYPE(XMPI_Array_real64), TARGET :: x,
! allocates its buffer with XMPI_Alloc (malloc, which the library may free) and uses x%v(:)
! (1-D) or x%m(:,:) (2-D). The C library keeps the address of the handle's buffer address
! (its void **) and writes a new buffer there after a move; every call of this module that
! may move rows re-points x%v and x%m at the buffer in place, sized and bounded to this
! process's block. Fortran cannot keep a reference to a program's own pointer variable, hence
! the handle: the program never holds a pointer of its own to a buffer across such a call.
module xmpi_f08_core
    use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_char, c_null_char, c_int, c_double, &
        c_float, c_int64_t, c_long_long, c_size_t, c_double_complex, c_loc, c_f_pointer, c_associated
    use mpi_f08, mpi_f08_init => MPI_Init, mpi_f08_init_thread => MPI_Init_thread, &
        mpi_f08_finalize => MPI_Finalize, mpi_f08_send => MPI_Send, mpi_f08_recv => MPI_Recv, &
        mpi_f08_isend => MPI_Isend, mpi_f08_irecv => MPI_Irecv, mpi_f08_sendrecv => MPI_Sendrecv, &
        mpi_f08_wait => MPI_Wait, mpi_f08_waitall => MPI_Waitall, mpi_f08_barrier => MPI_Barrier, &
        mpi_f08_bcast => MPI_Bcast, mpi_f08_reduce => MPI_Reduce, mpi_f08_allreduce => MPI_Allreduce, &
        mpi_f08_gather => MPI_Gather, mpi_f08_gatherv => MPI_Gatherv, mpi_f08_scatter => MPI_Scatter, &
        mpi_f08_scatterv => MPI_Scatterv, mpi_f08_allgather => MPI_Allgather, &
        mpi_f08_allgatherv => MPI_Allgatherv, mpi_f08_alltoall => MPI_Alltoall, &
        mpi_f08_alltoallv => MPI_Alltoallv
    implicit none

    ! What this module adds to mpi_f08 (module xmpi_f08, at the end, puts the two together).
    private
    public :: XMPI_VERSION_MAJOR, XMPI_VERSION_MINOR, XMPI_VERSION_STRING, XMPI_SUCCESS, XMPI_ERR_ARG, &
        XMPI_ERR_STATE, XMPI_ERR_NOMEM, XMPI_ERR_MPI, XMPI_ERR_PAPI, XMPI_ERR_NOT_FOUND, XMPI_ERR_CLASS, &
        XMPI_ERR_RESOURCES, XMPI_ERR_SPAWN, XMPI_ERR_RMS, XMPI_ERR_CHECKPOINT, XMPI_ERR_LAST, XMPI_RUNNING, &
        XMPI_NEWLY_SPAWNED, XMPI_REMOVED, XMPI_SYSTEM_NONE, XMPI_SYSTEM_SPAWN, XMPI_SYSTEM_SHRINK, &
        XMPI_DISTRIBUTED, XMPI_REPLICATED, XMPI_MAX_STRING, XMPI_COMM_WORLD

    ! ---- constants (include/xmpi.h) ------------------------------------------------------
    integer, parameter :: XMPI_VERSION_MAJOR = 0, XMPI_VERSION_MINOR = 1
    character(len=*), parameter :: XMPI_VERSION_STRING = "0.1.0"
    integer, parameter :: XMPI_SUCCESS = 0, XMPI_ERR_ARG = 1, XMPI_ERR_STATE = 2, XMPI_ERR_NOMEM = 3, &
        XMPI_ERR_MPI = 4, XMPI_ERR_PAPI = 5, XMPI_ERR_NOT_FOUND = 6, XMPI_ERR_CLASS = 7, &
        XMPI_ERR_RESOURCES = 8, XMPI_ERR_SPAWN = 9, XMPI_ERR_RMS = 10, XMPI_ERR_CHECKPOINT = 11, &
        XMPI_ERR_LAST = 12
    integer, parameter :: XMPI_RUNNING = 0, XMPI_NEWLY_SPAWNED = 1, XMPI_REMOVED = 2
    integer, parameter :: XMPI_SYSTEM_NONE = 0, XMPI_SYSTEM_SPAWN = 1, XMPI_SYSTEM_SHRINK = 2
    integer, parameter :: XMPI_DISTRIBUTED = 0, XMPI_REPLICATED = 1
    ! Room for any sentence of XMPI_Error_string and any XMPI_Monitor_work_source (an option's
    ! value may be longer: XMPI_Get_option says when its argument is too short).
    integer, parameter :: XMPI_MAX_STRING = 256

    ! The communicator programs use instead of MPI_COMM_WORLD: a variable that this module
    ! sets again after each of its calls (MPI_Init, every call of xmpi.h, MPI_Finalize), since
    ! every spawn and removal makes a new one. MPI_COMM_NULL outside MPI_Init..MPI_Finalize
    ! and on a removed process. A program whose C part grows or shrinks the job refreshes it
    ! with any XMPI_ call of this module (XMPI_Get_process_status, say).
    type(MPI_Comm), protected :: XMPI_COMM_WORLD = MPI_COMM_NULL

    ! XMPI_Get_system_status's answer.
    type, public :: XMPI_System_status
        integer :: action = XMPI_SYSTEM_NONE
        integer :: nprocs = 0
        character(len=64) :: node_class = ""
    end type

    ! ---- registered arrays ---------------------------------------------------------------
    ! The handle of one array whose buffer comes from malloc (XMPI_Alloc) and that the
    ! library may replace. Use it through an extension below, declared TARGET (registration
    ! refuses anything else at compile time) and left in place while registered.
    type, public :: XMPI_Array
        private
        type(c_ptr) :: addr = c_null_ptr   ! the buffer; c_loc(addr) is the C API's void **
        integer :: dims = 0                ! 1 or 2 once allocated or registered
        integer :: n1 = 0                  ! 2-D: the first extent
        integer :: reg = 0                 ! 0, or the registration this array belongs to
    end type
    ! The views: v(:) of a 1-D array, m(:,:) of a 2-D one (the other is not associated).
    ! Never ALLOCATE, DEALLOCATE or point them elsewhere: the module sets them.
    type, public, extends(XMPI_Array) :: XMPI_Array_real64
        real(c_double), pointer, contiguous :: v(:) => null(), m(:,:) => null()
    end type
    type, public, extends(XMPI_Array) :: XMPI_Array_real32
        real(c_float), pointer, contiguous :: v(:) => null(), m(:,:) => null()
    end type
    type, public, extends(XMPI_Array) :: XMPI_Array_int32
        integer(c_int), pointer, contiguous :: v(:) => null(), m(:,:) => null()
    end type
    type, public, extends(XMPI_Array) :: XMPI_Array_int64
        integer(c_int64_t), pointer, contiguous :: v(:) => null(), m(:,:) => null()
    end type
    type, public, extends(XMPI_Array) :: XMPI_Array_complex128
        complex(c_double_complex), pointer, contiguous :: v(:) => null(), m(:,:) => null()
    end type

    public :: XMPI_Alloc, XMPI_Free, XMPI_Register_vector, XMPI_Register_dense, XMPI_Register_sparse, &
        XMPI_Unregister, XMPI_Redistribute_data, XMPI_Get_data, XMPI_Get_wsize, XMPI_Error_string, &
        XMPI_Get_option, XMPI_Get_process_status, XMPI_Spawn, XMPI_Remove, XMPI_Get_system_status, &
        XMPI_Checkpoint, XMPI_Eval_lbalance, XMPI_Eval_reconfig, XMPI_Monitor_iter_begin, &
        XMPI_Monitor_iter_end, XMPI_Monitor_si_init, XMPI_Monitor_add_work, XMPI_Monitor_work_source, &
        XMPI_Command_argument_count, XMPI_Get_command_argument
    public :: MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Send, MPI_Recv, MPI_Isend, MPI_Irecv, &
        MPI_Sendrecv, MPI_Wait, MPI_Waitall, MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, &
        MPI_Gather, MPI_Gatherv, MPI_Scatter, MPI_Scatterv, MPI_Allgather, MPI_Allgatherv, &
        MPI_Alltoall, MPI_Alltoallv

    interface XMPI_Monitor_add_work
        module procedure add_work_real64, add_work_real32, add_work_int32, add_work_int64
    end interface

    ! The calls that replace mpi_f08's: each passes the call on to mpi_f08's PMPI_ version,
    ! timed and counted as the C library's wrappers count a C program's.
    interface MPI_Init
        module procedure f_init
    end interface
    interface MPI_Init_thread
        module procedure f_init_thread
    end interface
    interface MPI_Finalize
        module procedure f_finalize
    end interface
    interface MPI_Send
        module procedure f_send
    end interface
    interface MPI_Recv
        module procedure f_recv
    end interface
    interface MPI_Isend
        module procedure f_isend
    end interface
    interface MPI_Irecv
        module procedure f_irecv
    end interface
    interface MPI_Sendrecv
        module procedure f_sendrecv
    end interface
    interface MPI_Wait
        module procedure f_wait
    end interface
    interface MPI_Waitall
        module procedure f_waitall
    end interface
    interface MPI_Barrier
        module procedure f_barrier
    end interface
    interface MPI_Bcast
        module procedure f_bcast
    end interface
    interface MPI_Reduce
        module procedure f_reduce
    end interface
    interface MPI_Allreduce
        module procedure f_allreduce
    end interface
    interface MPI_Gather
        module procedure f_gather
    end interface
    interface MPI_Gatherv
        module procedure f_gatherv
    end interface
    interface MPI_Scatter
        module procedure f_scatter
    end interface
    interface MPI_Scatterv
        module procedure f_scatterv
    end interface
    interface MPI_Allgather
        module procedure f_allgather
    end interface
    interface MPI_Allgatherv
        module procedure f_allgatherv
    end interface
    interface MPI_Alltoall
        module procedure f_alltoall
    end interface
    interface MPI_Alltoallv
        module procedure f_alltoallv
    end interface

    ! ---- the C library ----------------------------------------------------------------------
    interface
        ! libxmpi's MPI_Init (init 1, thread 0), MPI_Init_thread (1, 1) and MPI_Finalize (0).
        integer(c_int) function c_f08_init(init, thread, required, provided) bind(C, name="xmpi_f08_init")
            import :: c_int
            integer(c_int), value :: init, thread, required
            integer(c_int) :: provided
        end function
        type(c_ptr) function c_malloc(bytes) bind(C, name="malloc")
            import :: c_ptr, c_size_t
            integer(c_size_t), value :: bytes
        end function
        subroutine c_free(p) bind(C, name="free")
            import :: c_ptr
            type(c_ptr), value :: p
        end subroutine
        type(c_ptr) function c_error_string(code) bind(C, name="XMPI_Error_string")
            import :: c_ptr, c_int
            integer(c_int), value :: code
        end function
        integer(c_int) function c_get_option(name, value, len) bind(C, name="XMPI_Get_option")
            import :: c_int, c_char
            character(kind=c_char) :: name(*), value(*)
            integer(c_int), value :: len
        end function
        integer(c_int) function c_get_process_status() bind(C, name="XMPI_Get_process_status")
            import :: c_int
        end function
        integer(c_int) function c_remove(nprocs, node_class) bind(C, name="XMPI_Remove")
            import :: c_int, c_ptr
            integer(c_int), value :: nprocs
            type(c_ptr), value :: node_class
        end function
        integer(c_int) function c_get_wsize(rank, nprocs, size, count, displ) bind(C, name="XMPI_Get_wsize")
            import :: c_int
            integer(c_int), value :: rank, nprocs, size
            integer(c_int) :: count, displ
        end function
        integer(c_int) function c_unregister(address) bind(C, name="XMPI_Unregister")
            import :: c_int, c_ptr
            type(c_ptr), value :: address
        end function
        integer(c_int) function c_redistribute_data(scount, sdispl, rcount, rdispl) &
                bind(C, name="XMPI_Redistribute_data")
            import :: c_int
            integer(c_int), value :: scount, sdispl, rcount, rdispl
        end function
        integer(c_int) function c_get_data(it) bind(C, name="XMPI_Get_data")
            import :: c_int
            integer(c_int) :: it
        end function
        integer(c_int) function c_checkpoint(name) bind(C, name="XMPI_Checkpoint")
            import :: c_int, c_ptr
            type(c_ptr), value :: name
        end function
        integer(c_int) function c_eval_lbalance(rank, nprocs, it, maxit, count, displ, weight) &
                bind(C, name="XMPI_Eval_lbalance")
            import :: c_int, c_ptr
            integer(c_int), value :: rank, nprocs, it, maxit
            integer(c_int) :: count, displ
            type(c_ptr), value :: weight
        end function
        integer(c_int) function c_eval_reconfig(rank, nprocs, it, maxit, count, displ, weight, argv, command) &
                bind(C, name="XMPI_Eval_reconfig")
            import :: c_int, c_ptr
            integer(c_int), value :: rank, nprocs, it, maxit
            integer(c_int) :: count, displ
            type(c_ptr), value :: weight, argv, command
        end function
        integer(c_int) function c_monitor_iter_begin(events) bind(C, name="XMPI_Monitor_iter_begin")
            import :: c_int, c_ptr
            type(c_ptr), value :: events
        end function
        integer(c_int) function c_monitor_iter_end(counts) bind(C, name="XMPI_Monitor_iter_end")
            import :: c_int, c_ptr
            type(c_ptr), value :: counts
        end function
        integer(c_int) function c_monitor_si_init() bind(C, name="XMPI_Monitor_si_init")
            import :: c_int
        end function
        integer(c_int) function c_monitor_add_work(flop) bind(C, name="XMPI_Monitor_add_work")
            import :: c_int, c_double
            real(c_double), value :: flop
        end function
        type(c_ptr) function c_monitor_work_source() bind(C, name="XMPI_Monitor_work_source")
            import :: c_ptr
        end function
        ! libxmpi/fortran.c
        integer(c_int) function c_f08_comm_world(handle) bind(C, name="xmpi_f08_comm_world")
            import :: c_int
            integer(c_int) :: handle
        end function
        integer(c_int) function c_f08_block(count, displ) bind(C, name="xmpi_f08_block")
            import :: c_int
            integer(c_int) :: count, displ
        end function
        integer(c_size_t) function c_f08_capacity(p) bind(C, name="xmpi_f08_capacity")
            import :: c_size_t, c_ptr
            type(c_ptr), value :: p
        end function
        integer(c_int) function c_f08_register(kind, address, address_ja, address_a, size, type, scheme) &
                bind(C, name="xmpi_f08_register")
            import :: c_int, c_ptr
            integer(c_int), value :: kind, size, type, scheme
            type(c_ptr), value :: address, address_ja, address_a
        end function
        integer(c_int) function c_f08_spawn(command, argv, nprocs, info, node_class) bind(C, name="xmpi_f08_spawn")
            import :: c_int, c_ptr, c_char
            character(kind=c_char) :: command(*)
            type(c_ptr), value :: argv, node_class
            integer(c_int), value :: nprocs, info
        end function
        subroutine c_f08_note(message) bind(C, name="xmpi_f08_note")
            import :: c_char
            character(kind=c_char) :: message(*)
        end subroutine
        subroutine c_f08_abort(code) bind(C, name="xmpi_f08_abort")
            import :: c_int
            integer(c_int), value :: code
        end subroutine
        integer(c_int) function c_f08_op(name) bind(C, name="xmpi_f08_op")
            import :: c_int, c_char
            character(kind=c_char) :: name(*)
        end function
        real(c_double) function c_f08_prof_enter(op, mark) bind(C, name="xmpi_f08_prof_enter")
            import :: c_int, c_double
            integer(c_int), value :: op
            real(c_double) :: mark
        end function
        subroutine c_f08_prof_leave(op, count, type, t0, comm, mark) bind(C, name="xmpi_f08_prof_leave")
            import :: c_int, c_double
            integer(c_int), value :: op, type, comm
            real(c_double), value :: count, t0, mark
        end subroutine
    end interface

    ! ---- the module's state ------------------------------------------------------------------
    ! One registration: an array (vector, dense) or the three of a CSR/CSC matrix.
    type :: registration
        class(XMPI_Array), pointer :: h => null()       ! the array, or a sparse matrix's ia
        class(XMPI_Array), pointer :: ja => null(), a => null()
        integer :: what = 0                             ! W_VECTOR, W_DENSE or W_SPARSE
        integer :: scheme = XMPI_DISTRIBUTED
        integer :: size = 0
        integer :: id = 0
    end type
    integer, parameter :: W_VECTOR = 0, W_DENSE = 1, W_SPARSE = 2
    type(registration), allocatable, save :: regs(:)
    integer, save :: nregs = 0, next_id = 0

    ! The profiled calls, in the order of op_names; their numbers in the library, from MPI_Init.
    integer, parameter :: OP_SEND = 1, OP_RECV = 2, OP_ISEND = 3, OP_IRECV = 4, OP_SENDRECV = 5, &
        OP_WAIT = 6, OP_WAITALL = 7, OP_BARRIER = 8, OP_BCAST = 9, OP_REDUCE = 10, OP_ALLREDUCE = 11, &
        OP_GATHER = 12, OP_GATHERV = 13, OP_SCATTER = 14, OP_SCATTERV = 15, OP_ALLGATHER = 16, &
        OP_ALLGATHERV = 17, OP_ALLTOALL = 18, OP_ALLTOALLV = 19, NOPS = 19
    character(len=14), parameter :: op_names(NOPS) = [character(len=14) :: "MPI_Send", "MPI_Recv", &
        "MPI_Isend", "MPI_Irecv", "MPI_Sendrecv", "MPI_Wait", "MPI_Waitall", "MPI_Barrier", "MPI_Bcast", &
        "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", &
        "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv"]
    integer(c_int), save :: op_id(NOPS) = -1
    type(c_ptr), save :: in_place_addr = c_null_ptr, status_ignore_addr = c_null_ptr

    ! The zero-size arrays that the views of empty blocks point at.
    real(c_double), target, save :: empty_real64(0)
    real(c_float), target, save :: empty_real32(0)
    integer(c_int), target, save :: empty_int32(0)
    integer(c_int64_t), target, save :: empty_int64(0)
    complex(c_double_complex), target, save :: empty_complex128(0)

    ! NUL-terminated C strings and a NULL-terminated array of pointers to them.
    type :: cstrings
        character(kind=c_char), allocatable :: buf(:)
        type(c_ptr), allocatable :: p(:)
    end type

contains

    ! ==== helpers ===============================================================================

    ! ierror when the program passed one; else, as MPI's default error handler does, an error
    ! ends the job, after one line saying which call failed and why (rank 0 for a collective
    ! call, the process itself for a local one). XMPI_ERR_PAPI is a warning: monitoring goes on.
    subroutine finish(rc, ierror, what, local)
        integer, intent(in) :: rc
        integer, optional, intent(out) :: ierror
        character(len=*), intent(in) :: what
        logical, intent(in) :: local
        character(len=XMPI_MAX_STRING) :: why
        integer :: rank, len, ignore
        logical :: up, down
        call XMPI_COMM_WORLD_refresh()
        if (present(ierror)) then
            ierror = rc
            return
        end if
        if (rc == XMPI_SUCCESS .or. rc == XMPI_ERR_PAPI) return
        call XMPI_Error_string(rc, why, len)
        rank = 0
        call PMPI_Initialized(up, ignore)
        call PMPI_Finalized(down, ignore)
        up = up .and. .not. down
        if (up) call PMPI_Comm_rank(MPI_COMM_WORLD, rank, ignore)
        if (local .and. rank /= 0) then
            write (0, '(a,i0,5a)') "xmpi: rank ", rank, ": ", what, " failed: ", why(1:len), &
                " (pass ierror to handle it)"
        else
            call note(what//" failed: "//why(1:len)//" (pass ierror to handle it)")
        end if
        if (up) call c_f08_abort(int(rc, c_int))
        error stop 1
    end subroutine

    ! "xmpi: MESSAGE" on rank 0.
    subroutine note(message)
        character(len=*), intent(in) :: message
        call c_f08_note(message//c_null_char)
    end subroutine

    subroutine XMPI_COMM_WORLD_refresh()
        integer(c_int) :: handle
        handle = 0
        if (c_f08_comm_world(handle) == 0) then
            XMPI_COMM_WORLD%MPI_VAL = int(handle)
        else
            XMPI_COMM_WORLD = MPI_COMM_NULL
        end if
    end subroutine

    ! A C string (NUL-terminated; at most len(s) + 1 bytes read) into s, blank-padded; its
    ! length, at most len(s).
    subroutine from_c(p, s, n)
        type(c_ptr), intent(in) :: p
        character(len=*), intent(out) :: s
        integer, intent(out) :: n
        character(kind=c_char), pointer :: c(:)
        integer :: i
        s = ""
        n = 0
        if (.not. c_associated(p)) return
        call c_f_pointer(p, c, [len(s) + 1])
        do i = 1, len(s) + 1
            if (c(i) == c_null_char) exit
            if (i <= len(s)) s(i:i) = c(i)
            n = i
        end do
        n = min(n, len(s))
    end subroutine

    ! list's entries, trimmed, as C strings; blank ones as NULL when blank_null.
    subroutine to_cstrings(list, cs, blank_null)
        character(len=*), intent(in) :: list(:)
        type(cstrings), intent(out), target :: cs
        logical, intent(in) :: blank_null
        integer :: i, k, total, n
        total = 0
        do i = 1, size(list)
            total = total + len_trim(list(i)) + 1
        end do
        allocate (cs%buf(max(total, 1)), cs%p(size(list) + 1))
        k = 1
        do i = 1, size(list)
            n = len_trim(list(i))
            if (blank_null .and. n == 0) then
                cs%p(i) = c_null_ptr
                cycle
            end if
            cs%buf(k:k + n - 1) = transfer(list(i)(1:n), cs%buf(1:n))
            cs%buf(k + n) = c_null_char
            cs%p(i) = c_loc(cs%buf(k))
            k = k + n + 1
        end do
        cs%p(size(list) + 1) = c_null_ptr
    end subroutine

    function addr_of(x) result(p)
        type(*), dimension(..), intent(in), target :: x
        type(c_ptr) :: p
        p = c_loc(x)
    end function

    ! ==== MPI_Init, MPI_Init_thread, MPI_Finalize =============================================
    ! libxmpi's own (the C program's MPI_Init wrapper, whatever the order in which the program
    ! loaded libxmpi and the MPI library), which starts the library reading the --xmpi- options
    ! from the command line; Fortran's arguments keep them (see XMPI_Get_command_argument). MPI
    ! initialized from C serves Fortran (MPI-3.1, 17.2.3).

    subroutine f_init(ierror)
        integer, optional, intent(out) :: ierror
        integer :: rc
        integer(c_int) :: got
        got = 0
        rc = int(c_f08_init(1_c_int, 0_c_int, 0_c_int, got))
        call after_init()
        if (present(ierror)) ierror = rc
    end subroutine

    subroutine f_init_thread(required, provided, ierror)
        integer, intent(in) :: required
        integer, intent(out) :: provided
        integer, optional, intent(out) :: ierror
        integer :: rc
        integer(c_int) :: got
        got = 0
        rc = int(c_f08_init(1_c_int, 1_c_int, int(required, c_int), got))
        provided = int(got)
        call after_init()
        if (present(ierror)) ierror = rc
    end subroutine

    subroutine after_init()
        integer :: i
        do i = 1, NOPS
            op_id(i) = c_f08_op(trim(op_names(i))//c_null_char)
        end do
        in_place_addr = addr_of(MPI_IN_PLACE)
        status_ignore_addr = addr_of(MPI_STATUS_IGNORE)
        call XMPI_COMM_WORLD_refresh()
    end subroutine

    ! The library forgets every registration at MPI_Finalize; so does the module (the
    ! buffers stay the program's: XMPI_Free them).
    subroutine f_finalize(ierror)
        integer, optional, intent(out) :: ierror
        integer :: rc, i
        integer(c_int) :: got
        got = 0
        rc = int(c_f08_init(0_c_int, 0_c_int, 0_c_int, got))
        do i = 1, nregs
            call forget(regs(i))
        end do
        nregs = 0
        call XMPI_COMM_WORLD_refresh()
        if (present(ierror)) ierror = rc
    end subroutine

    ! ==== registered arrays =====================================================================

    ! Element size in bytes of the handle's type.
    pure integer function elsize(h)
        class(XMPI_Array), intent(in) :: h
        select type (h)
        type is (XMPI_Array_real64)
            elsize = 8
        type is (XMPI_Array_real32)
            elsize = 4
        type is (XMPI_Array_int32)
            elsize = 4
        type is (XMPI_Array_int64)
            elsize = 8
        type is (XMPI_Array_complex128)
            elsize = 16
        class default
            elsize = 0
        end select
    end function

    pure character(len=16) function kind_name(h)
        class(XMPI_Array), intent(in) :: h
        select type (h)
        type is (XMPI_Array_real64)
            kind_name = "real64"
        type is (XMPI_Array_real32)
            kind_name = "real32"
        type is (XMPI_Array_int32)
            kind_name = "int32"
        type is (XMPI_Array_int64)
            kind_name = "int64"
        type is (XMPI_Array_complex128)
            kind_name = "complex128"
        class default
            kind_name = "untyped"
        end select
    end function

    ! Points the handle's view at `elems` elements of its buffer: v(first:) when 1-D, m(1:n1,
    ! first:) when 2-D (elems a multiple of n1); the zero-size array when there are none.
    subroutine set_view(h, elems, first)
        class(XMPI_Array), intent(inout) :: h
        integer(c_size_t), intent(in) :: elems
        integer, intent(in) :: first
        integer :: rows
        logical :: none
        none = elems == 0 .or. .not. c_associated(h%addr)
        rows = 0
        if (h%dims == 2 .and. h%n1 > 0 .and. .not. none) rows = int(elems / h%n1)
        select type (h)
        type is (XMPI_Array_real64)
            block
                real(c_double), pointer, contiguous :: f(:)
                nullify (h%v, h%m)
                f => empty_real64
                if (.not. none) call c_f_pointer(h%addr, f, [elems])
                if (h%dims == 1) h%v(first:) => f
                if (h%dims == 2) h%m(1:h%n1, first:first + rows - 1) => f
            end block
        type is (XMPI_Array_real32)
            block
                real(c_float), pointer, contiguous :: f(:)
                nullify (h%v, h%m)
                f => empty_real32
                if (.not. none) call c_f_pointer(h%addr, f, [elems])
                if (h%dims == 1) h%v(first:) => f
                if (h%dims == 2) h%m(1:h%n1, first:first + rows - 1) => f
            end block
        type is (XMPI_Array_int32)
            block
                integer(c_int), pointer, contiguous :: f(:)
                nullify (h%v, h%m)
                f => empty_int32
                if (.not. none) call c_f_pointer(h%addr, f, [elems])
                if (h%dims == 1) h%v(first:) => f
                if (h%dims == 2) h%m(1:h%n1, first:first + rows - 1) => f
            end block
        type is (XMPI_Array_int64)
            block
                integer(c_int64_t), pointer, contiguous :: f(:)
                nullify (h%v, h%m)
                f => empty_int64
                if (.not. none) call c_f_pointer(h%addr, f, [elems])
                if (h%dims == 1) h%v(first:) => f
                if (h%dims == 2) h%m(1:h%n1, first:first + rows - 1) => f
            end block
        type is (XMPI_Array_complex128)
            block
                complex(c_double_complex), pointer, contiguous :: f(:)
                nullify (h%v, h%m)
                f => empty_complex128
                if (.not. none) call c_f_pointer(h%addr, f, [elems])
                if (h%dims == 1) h%v(first:) => f
                if (h%dims == 2) h%m(1:h%n1, first:first + rows - 1) => f
            end block
        end select
    end subroutine

    ! Whether the view components still show the handle's buffer (the program did not point
    ! them elsewhere, nor ALLOCATE them).
    logical function views_own(h)
        class(XMPI_Array), intent(in) :: h
        type(c_ptr) :: p
        p = c_null_ptr
        select type (h)
        type is (XMPI_Array_real64)
            if (associated(h%v)) p = view_addr(h%v, size(h%v, kind=c_size_t))
            if (associated(h%m)) p = view_addr(h%m, size(h%m, kind=c_size_t))
        type is (XMPI_Array_real32)
            if (associated(h%v)) p = view_addr(h%v, size(h%v, kind=c_size_t))
            if (associated(h%m)) p = view_addr(h%m, size(h%m, kind=c_size_t))
        type is (XMPI_Array_int32)
            if (associated(h%v)) p = view_addr(h%v, size(h%v, kind=c_size_t))
            if (associated(h%m)) p = view_addr(h%m, size(h%m, kind=c_size_t))
        type is (XMPI_Array_int64)
            if (associated(h%v)) p = view_addr(h%v, size(h%v, kind=c_size_t))
            if (associated(h%m)) p = view_addr(h%m, size(h%m, kind=c_size_t))
        type is (XMPI_Array_complex128)
            if (associated(h%v)) p = view_addr(h%v, size(h%v, kind=c_size_t))
            if (associated(h%m)) p = view_addr(h%m, size(h%m, kind=c_size_t))
        end select
        views_own = .not. c_associated(p) .or. c_associated(p, h%addr)
    end function

    ! The address of a non-empty view's first element (C_NULL_PTR for an empty one).
    function view_addr(x, n) result(p)
        type(*), dimension(..), intent(in), target :: x
        integer(c_size_t), intent(in) :: n
        type(c_ptr) :: p
        p = c_null_ptr
        if (n > 0) p = c_loc(x)
    end function

    ! XMPI_Alloc: a buffer of n elements (1-D: x%v(first:first+n-1)) or of n x m elements
    ! (2-D, column-major: x%m(1:n, first:first+m-1), so that column j is row j of a C
    ! row-major matrix) from malloc, uninitialized. XMPI_ERR_ARG for a negative extent, a
    ! handle that already has a buffer (XMPI_Free it first) or is registered; XMPI_ERR_NOMEM.
    ! Local.
    subroutine XMPI_Alloc(x, n, m, first, ierror)
        class(XMPI_Array), intent(inout) :: x
        integer, intent(in) :: n
        integer, optional, intent(in) :: m, first
        integer, optional, intent(out) :: ierror
        integer(c_size_t) :: elems
        integer :: lo
        character(len=160) :: why
        why = ""
        lo = 1
        if (present(first)) lo = first
        if (n < 0) why = "a negative extent"
        if (present(m)) then
            if (m < 0) why = "a negative extent"
        end if
        if (why /= "") then
            continue
        else if (x%reg /= 0) then
            why = "the array is registered; XMPI_Unregister it first"
        else if (c_associated(x%addr)) then
            why = "the array already has a buffer; XMPI_Free it first"
        else if (elsize(x) == 0) then
            why = "an XMPI_Array without a type: declare an extension such as XMPI_Array_real64"
        end if
        if (why /= "") then
            call note("XMPI_Alloc: "//trim(why))
            call finish(XMPI_ERR_ARG, ierror, "XMPI_Alloc", .true.)
            return
        end if
        elems = int(n, c_size_t)
        x%dims = 1
        x%n1 = 0
        if (present(m)) then
            elems = elems * int(m, c_size_t)
            x%dims = 2
            x%n1 = n
        end if
        ! A buffer even for no element: NULL means that malloc failed.
        x%addr = c_malloc(max(elems * int(elsize(x), c_size_t), 1_c_size_t))
        if (.not. c_associated(x%addr)) then
            x%dims = 0
            call note("XMPI_Alloc: out of memory")
            call finish(XMPI_ERR_NOMEM, ierror, "XMPI_Alloc", .true.)
            return
        end if
        call set_view(x, elems, lo)
        call finish(XMPI_SUCCESS, ierror, "XMPI_Alloc", .true.)
    end subroutine

    ! XMPI_Free: frees the buffer (the program's or one the library installed) and leaves the
    ! views not associated. XMPI_ERR_ARG for a registered array (XMPI_Unregister it first).
    ! Local; nothing to do for a handle without a buffer.
    subroutine XMPI_Free(x, ierror)
        class(XMPI_Array), intent(inout) :: x
        integer, optional, intent(out) :: ierror
        if (x%reg /= 0) then
            call note("XMPI_Free: the array is registered; XMPI_Unregister it first")
            call finish(XMPI_ERR_ARG, ierror, "XMPI_Free", .true.)
            return
        end if
        if (c_associated(x%addr)) call c_free(x%addr)
        x%addr = c_null_ptr
        x%dims = 0
        x%n1 = 0
        call set_view(x, 0_c_size_t, 1)
        call finish(XMPI_SUCCESS, ierror, "XMPI_Free", .true.)
    end subroutine

    ! Why `datatype` cannot describe one element of h ("" when it can): a predefined datatype of
    ! the handle's kind, or a derived one of its size (the C library also refuses gaps).
    function type_problem(h, datatype) result(why)
        class(XMPI_Array), intent(in) :: h
        type(MPI_Datatype), intent(in) :: datatype
        character(len=160) :: why
        integer :: ni, na, nt, combiner, tsize, ignore
        logical :: ok
        why = ""
        if (datatype == MPI_DATATYPE_NULL) then
            why = "the datatype is MPI_DATATYPE_NULL"
            return
        end if
        call PMPI_Type_get_envelope(datatype, ni, na, nt, combiner, ignore)
        if (combiner /= MPI_COMBINER_NAMED) then
            call PMPI_Type_size(datatype, tsize, ignore)
            if (tsize /= elsize(h)) write (why, '(a,i0,3a,i0,a)') "a derived datatype of ", tsize, &
                " bytes for an array of ", trim(kind_name(h)), " (", elsize(h), " bytes)"
            return
        end if
        select type (h)
        type is (XMPI_Array_real64)
            ok = datatype == MPI_DOUBLE_PRECISION .or. datatype == MPI_REAL8
        type is (XMPI_Array_real32)
            ok = datatype == MPI_REAL .or. datatype == MPI_REAL4
        type is (XMPI_Array_int32)
            ok = datatype == MPI_INTEGER .or. datatype == MPI_INTEGER4 .or. datatype == MPI_INT32_T
        type is (XMPI_Array_int64)
            ok = datatype == MPI_INTEGER8 .or. datatype == MPI_INT64_T
        type is (XMPI_Array_complex128)
            ok = datatype == MPI_DOUBLE_COMPLEX .or. datatype == MPI_COMPLEX16 .or. &
                datatype == MPI_C_DOUBLE_COMPLEX
        class default
            ok = .false.
        end select
        if (.not. ok) why = "the datatype does not match an array of "//trim(kind_name(h))
    end function

    ! Why h cannot be registered as one array of `dims` dimensions ("" when it can): its
    ! buffer is one XMPI_Alloc made (or none on a process that will receive its rows).
    function array_problem(h, dims, n1, what) result(why)
        class(XMPI_Array), intent(in) :: h
        integer, intent(in) :: dims, n1
        character(len=*), intent(in) :: what
        character(len=160) :: why
        character(len=8), parameter :: ranks(2) = ["1-D", "2-D"]
        integer :: status
        why = ""
        status = int(c_get_process_status())
        if (elsize(h) == 0) then
            why = "the "//what//" is an XMPI_Array without a type: declare an extension such as XMPI_Array_real64"
        else if (h%reg /= 0) then
            why = "the "//what//" is registered already"
        else if (.not. views_own(h)) then
            why = "the "//what//"'s view was pointed elsewhere or allocated: buffers come from XMPI_Alloc"
        else if (status == XMPI_NEWLY_SPAWNED .and. c_associated(h%addr)) then
            why = "a process that joins the job registers its arrays without a buffer (XMPI_Get_data brings them)"
        else if (status /= XMPI_NEWLY_SPAWNED .and. .not. c_associated(h%addr)) then
            why = "the "//what//" has no buffer: XMPI_Alloc it first (0 elements for no rows)"
        else if (c_associated(h%addr) .and. h%dims /= dims) then
            why = "the "//what//" is "//trim(ranks(h%dims))//"; it must be "//ranks(dims)
        else if (dims == 2 .and. c_associated(h%addr) .and. h%n1 /= n1) then
            write (why, '(3a,i0,a,i0)') "the ", what, "'s rows (first extent) hold ", h%n1, &
                " elements; they must hold size = ", n1
        end if
    end function

    ! The checks shared by the three registrations: size, scheme, and an array's place among
    ! the registered ones.
    function common_problem(size, scheme) result(why)
        integer, intent(in) :: size, scheme
        character(len=160) :: why
        why = ""
        if (size < 0) then
            why = "size < 0"
        else if (nregs > 0) then
            if (size /= regs(1)%size) write (why, '(a,i0,a,i0)') "size ", size, &
                " differs from the registered arrays' ", regs(1)%size
        end if
        if (why == "" .and. scheme /= XMPI_DISTRIBUTED .and. scheme /= XMPI_REPLICATED) &
            why = "the scheme is neither XMPI_DISTRIBUTED nor XMPI_REPLICATED"
    end function

    ! XMPI_Register_vector / _dense / _sparse: as the C calls (include/xmpi.h), for arrays that
    ! XMPI_Alloc made. x is the TARGET handle (the compiler refuses any other); a process
    ! mpirun started registers its allocated arrays (0 elements for no rows), a process that
    ! XMPI_Spawn or --xmpi-restart started registers them without a buffer and calls
    ! XMPI_Get_data. Dense matrices are 2-D with size elements per row: x%m(1:size, row).
    ! CSR: ia, ja are XMPI_Array_int32 and hold the C values, 0-based: row i's nonzeros are
    ! a%v(ia%v(i) + 1 : ia%v(i + 1)), their columns ja%v(k) + 1. XMPI_ERR_ARG, with one line
    ! on rank 0 saying why and nothing registered, for a wrong kind or rank of array, a
    ! buffer XMPI_Alloc did not make, a missing buffer (or one where the rows will arrive), a
    ! datatype that does not match the array's kind, and what the C calls refuse. After every
    ! call that may move rows (XMPI_Redistribute_data, XMPI_Get_data, XMPI_Eval_*, XMPI_Spawn,
    ! XMPI_Remove, ...) the views show this process's block: v(displ + 1 : displ + count) and
    ! m(1:size, displ + 1 : displ + count) for distributed arrays (ia(displ + 1 : displ + count
    ! + 1) and ja, a(1:nnz) for CSR), all size rows for replicated ones, empty ones on a
    ! removed process; never more elements than the buffer holds.
    subroutine XMPI_Register_vector(x, size, datatype, scheme, ierror)
        class(XMPI_Array), pointer, intent(in) :: x
        integer, intent(in) :: size, scheme
        type(MPI_Datatype), intent(in) :: datatype
        integer, optional, intent(out) :: ierror
        call register(W_VECTOR, "XMPI_Register_vector", x, x, x, size, datatype, scheme, ierror)
    end subroutine

    subroutine XMPI_Register_dense(x, size, datatype, scheme, ierror)
        class(XMPI_Array), pointer, intent(in) :: x
        integer, intent(in) :: size, scheme
        type(MPI_Datatype), intent(in) :: datatype
        integer, optional, intent(out) :: ierror
        call register(W_DENSE, "XMPI_Register_dense", x, x, x, size, datatype, scheme, ierror)
    end subroutine

    subroutine XMPI_Register_sparse(ia, ja, a, size, datatype, scheme, ierror)
        class(XMPI_Array), pointer, intent(in) :: ia, ja, a
        integer, intent(in) :: size, scheme
        type(MPI_Datatype), intent(in) :: datatype
        integer, optional, intent(out) :: ierror
        call register(W_SPARSE, "XMPI_Register_sparse", ia, ja, a, size, datatype, scheme, ierror)
    end subroutine

    subroutine register(what, name, x, ja, a, nrows, datatype, scheme, ierror)
        integer, intent(in) :: what, nrows, scheme
        character(len=*), intent(in) :: name
        class(XMPI_Array), pointer, intent(in) :: x, ja, a
        type(MPI_Datatype), intent(in) :: datatype
        integer, optional, intent(out) :: ierror
        character(len=160) :: why
        type(registration), allocatable :: grown(:)
        integer :: rc, status
        why = ""
        status = int(c_get_process_status())
        if (status < 0 .or. status == XMPI_REMOVED) then
            call finish(XMPI_ERR_STATE, ierror, name, .true.)
            return
        end if
        if (.not. (associated(x) .and. associated(ja) .and. associated(a))) then
            why = "a pointer to the array is not associated"
        else if (what == W_SPARSE) then
            if (associated(x, ja) .or. associated(x, a) .or. associated(ja, a)) then
                why = "ia, ja and a must be three arrays"
            else if (elsize(x) /= 0 .and. .not. is_int32(x)) then
                why = "the row pointers ia are "//trim(kind_name(x))//"; they must be XMPI_Array_int32"
            else if (elsize(ja) /= 0 .and. .not. is_int32(ja)) then
                why = "the column indices ja are "//trim(kind_name(ja))//"; they must be XMPI_Array_int32"
            end if
            if (why == "") why = array_problem(x, 1, 0, "row pointers ia")
            if (why == "") why = array_problem(ja, 1, 0, "column indices ja")
            if (why == "") why = array_problem(a, 1, 0, "values a")
            if (why == "") why = type_problem(a, datatype)
        else
            why = array_problem(x, merge(2, 1, what == W_DENSE), nrows, &
                trim(merge("dense matrix", "vector      ", what == W_DENSE)))
            if (why == "") why = type_problem(x, datatype)
        end if
        if (why == "") why = common_problem(nrows, scheme)
        if (why /= "") then
            call note(name//": "//trim(why))
            call finish(XMPI_ERR_ARG, ierror, name, .true.)
            return
        end if
        rc = int(c_f08_register(int(what, c_int), c_loc(x%addr), c_loc(ja%addr), c_loc(a%addr), &
            int(nrows, c_int), int(datatype%MPI_VAL, c_int), int(scheme, c_int)))
        if (rc /= XMPI_SUCCESS) then
            call finish(rc, ierror, name, .true.)
            return
        end if
        if (.not. allocated(regs)) allocate (regs(8))
        if (nregs == size(regs)) then
            allocate (grown(2 * nregs))
            grown(1:nregs) = regs(1:nregs)
            call move_alloc(grown, regs)
        end if
        next_id = next_id + 1
        nregs = nregs + 1
        regs(nregs)%h => x
        regs(nregs)%ja => null()
        regs(nregs)%a => null()
        if (what == W_SPARSE) then
            regs(nregs)%ja => ja
            regs(nregs)%a => a
        end if
        regs(nregs)%what = what
        regs(nregs)%scheme = scheme
        regs(nregs)%size = nrows
        regs(nregs)%id = next_id
        x%reg = next_id
        x%dims = merge(2, 1, what == W_DENSE)
        x%n1 = merge(nrows, 0, what == W_DENSE)
        if (what == W_SPARSE) then
            ja%reg = next_id
            ja%dims = 1
            a%reg = next_id
            a%dims = 1
        end if
        ! Registration moves nothing: a buffer keeps the view XMPI_Alloc gave it (a program
        ! that starts from uneven blocks records them with XMPI_Redistribute_data next); an
        ! array without one gets an empty view of the registered rank.
        if (.not. c_associated(x%addr)) call set_view(x, 0_c_size_t, 1)
        if (what == W_SPARSE) then
            if (.not. c_associated(ja%addr)) call set_view(ja, 0_c_size_t, 1)
            if (.not. c_associated(a%addr)) call set_view(a, 0_c_size_t, 1)
        end if
        call finish(XMPI_SUCCESS, ierror, name, .true.)
    end subroutine

    pure logical function is_int32(h)
        class(XMPI_Array), intent(in) :: h
        select type (h)
        type is (XMPI_Array_int32)
            is_int32 = .true.
        class default
            is_int32 = .false.
        end select
    end function

    ! XMPI_Unregister: forgets the array (a sparse matrix by its ia); its buffer stays the
    ! program's (XMPI_Free). XMPI_ERR_ARG when it is not registered. Local.
    subroutine XMPI_Unregister(x, ierror)
        class(XMPI_Array), intent(inout), target :: x
        integer, optional, intent(out) :: ierror
        integer :: i, rc
        do i = 1, nregs
            if (associated(regs(i)%h, x)) then
                rc = int(c_unregister(c_loc(x%addr)))
                if (rc == XMPI_SUCCESS) then
                    call forget(regs(i))
                    regs(i:nregs - 1) = regs(i + 1:nregs)
                    nregs = nregs - 1
                end if
                call finish(rc, ierror, "XMPI_Unregister", .true.)
                return
            end if
        end do
        if (x%reg /= 0) then
            call note("XMPI_Unregister: a sparse matrix is unregistered by its row pointers ia")
        else
            call note("XMPI_Unregister: the array is not registered")
        end if
        call finish(XMPI_ERR_ARG, ierror, "XMPI_Unregister", .true.)
    end subroutine

    subroutine forget(r)
        type(registration), intent(inout) :: r
        if (associated(r%h)) r%h%reg = 0
        if (associated(r%ja)) r%ja%reg = 0
        if (associated(r%a)) r%a%reg = 0
    end subroutine

    ! Points the views of every registered array at its buffer, sized and bounded to this
    ! process's block, and never beyond what the buffer holds.
    subroutine refresh_views()
        integer(c_int) :: count, displ
        integer :: i, rows, first, known
        integer(c_size_t) :: elems, nnz
        integer(c_int), pointer :: ia(:)
        known = int(c_f08_block(count, displ))
        do i = 1, nregs
            associate (r => regs(i))
                rows = int(count)
                first = int(displ) + 1
                if (r%scheme == XMPI_REPLICATED) then
                    rows = merge(r%size, 0, known == 0)
                    first = 1
                end if
                select case (r%what)
                case (W_VECTOR)
                    call set_view(r%h, fit(r%h, int(rows, c_size_t)), first)
                case (W_DENSE)
                    call set_view(r%h, fit(r%h, int(rows, c_size_t) * int(r%size, c_size_t)), first)
                case (W_SPARSE)
                    elems = fit(r%h, int(rows + 1, c_size_t))
                    call set_view(r%h, elems, first)
                    nnz = 0
                    if (elems == int(rows + 1, c_size_t)) then
                        call c_f_pointer(r%h%addr, ia, [rows + 1])
                        nnz = int(max(ia(rows + 1), 0_c_int), c_size_t)
                    end if
                    call set_view(r%ja, fit(r%ja, nnz), 1)
                    call set_view(r%a, fit(r%a, nnz), 1)
                end select
            end associate
        end do
    end subroutine

    ! want elements, or fewer if h's buffer cannot hold them (whole rows of a 2-D array).
    integer(c_size_t) function fit(h, want)
        class(XMPI_Array), intent(in) :: h
        integer(c_size_t), intent(in) :: want
        integer(c_size_t) :: cap
        cap = c_f08_capacity(h%addr) / int(elsize(h), c_size_t)
        fit = min(want, cap)
        if (h%dims == 2 .and. h%n1 > 0) fit = fit - mod(fit, int(h%n1, c_size_t))
    end function

    ! After a call that may have moved rows or changed the job: the communicator and the views.
    subroutine settle()
        call XMPI_COMM_WORLD_refresh()
        call refresh_views()
    end subroutine

    ! ==== the C calls ===========================================================================

    subroutine XMPI_Redistribute_data(scount, sdispl, rcount, rdispl, ierror)
        integer, intent(in) :: scount, sdispl, rcount, rdispl
        integer, optional, intent(out) :: ierror
        integer :: rc
        rc = int(c_redistribute_data(int(scount, c_int), int(sdispl, c_int), int(rcount, c_int), &
            int(rdispl, c_int)))
        call settle()
        call finish(rc, ierror, "XMPI_Redistribute_data", .false.)
    end subroutine

    ! it: the iteration to resume at (monitored iterations completed, counted from 0).
    subroutine XMPI_Get_data(it, ierror)
        integer, optional, intent(out) :: it
        integer, optional, intent(out) :: ierror
        integer :: rc
        integer(c_int) :: cit
        cit = 0
        rc = int(c_get_data(cit))
        if (present(it)) it = int(cit)
        call settle()
        call finish(rc, ierror, "XMPI_Get_data", .false.)
    end subroutine

    ! rank counts from 0, as in XMPI_COMM_WORLD; displ is the number of rows before the block.
    subroutine XMPI_Get_wsize(rank, nprocs, size, count, displ, ierror)
        integer, intent(in) :: rank, nprocs, size
        integer, intent(out) :: count, displ
        integer, optional, intent(out) :: ierror
        integer :: rc
        integer(c_int) :: c, d
        c = 0
        d = 0
        rc = int(c_get_wsize(int(rank, c_int), int(nprocs, c_int), int(size, c_int), c, d))
        count = int(c)
        displ = int(d)
        call finish(rc, ierror, "XMPI_Get_wsize", .true.)
    end subroutine

    ! The sentence for errorcode into string (blank-padded), its length into resultlen.
    subroutine XMPI_Error_string(errorcode, string, resultlen, ierror)
        integer, intent(in) :: errorcode
        character(len=*), intent(out) :: string
        integer, intent(out) :: resultlen
        integer, optional, intent(out) :: ierror
        call from_c(c_error_string(int(errorcode, c_int)), string, resultlen)
        call XMPI_COMM_WORLD_refresh()
        if (present(ierror)) ierror = XMPI_SUCCESS
    end subroutine

    ! The effective value of option `name` into value, its length into resultlen; XMPI_ERR_ARG
    ! for an unknown name or a value longer than len(value).
    subroutine XMPI_Get_option(name, value, resultlen, ierror)
        character(len=*), intent(in) :: name
        character(len=*), intent(out) :: value
        integer, intent(out) :: resultlen
        integer, optional, intent(out) :: ierror
        character(kind=c_char), target :: buf(len(value) + 1)
        integer :: rc
        value = ""
        resultlen = 0
        buf = c_null_char
        rc = int(c_get_option(trim(name)//c_null_char, buf, int(len(value) + 1, c_int)))
        if (rc == XMPI_SUCCESS) call from_c(c_loc(buf), value, resultlen)
        call finish(rc, ierror, "XMPI_Get_option", .true.)
    end subroutine

    ! XMPI_RUNNING, XMPI_NEWLY_SPAWNED or XMPI_REMOVED (-1 outside MPI_Init..MPI_Finalize).
    subroutine XMPI_Get_process_status(status, ierror)
        integer, intent(out) :: status
        integer, optional, intent(out) :: ierror
        status = int(c_get_process_status())
        call XMPI_COMM_WORLD_refresh()
        if (present(ierror)) ierror = XMPI_SUCCESS
    end subroutine

    ! argv: the arguments (trimmed; absent: none); node_class: at least nprocs entries, a
    ! blank one for any class (absent: any class for all).
    subroutine XMPI_Spawn(command, argv, nprocs, info, node_class, ierror)
        character(len=*), intent(in) :: command
        character(len=*), intent(in), optional :: argv(:)
        integer, intent(in) :: nprocs
        type(MPI_Info), intent(in) :: info
        character(len=*), intent(in), optional :: node_class(:)
        integer, optional, intent(out) :: ierror
        type(cstrings), target :: args, classes
        type(c_ptr) :: pa, pc
        integer :: rc
        pa = c_null_ptr
        pc = c_null_ptr
        if (present(argv)) then
            call to_cstrings(argv, args, .false.)
            pa = c_loc(args%p)
        end if
        if (present(node_class)) then
            if (size(node_class) < nprocs) then
                call note("XMPI_Spawn: node_class has fewer entries than nprocs")
                call finish(XMPI_ERR_ARG, ierror, "XMPI_Spawn", .false.)
                return
            end if
            call to_cstrings(node_class, classes, .true.)
            pc = c_loc(classes%p)
        end if
        rc = int(c_f08_spawn(trim(command)//c_null_char, pa, int(nprocs, c_int), int(info%MPI_VAL, c_int), pc))
        call settle()
        call finish(rc, ierror, "XMPI_Spawn", .false.)
    end subroutine

    subroutine XMPI_Remove(nprocs, node_class, ierror)
        integer, intent(in) :: nprocs
        character(len=*), intent(in), optional :: node_class(:)
        integer, optional, intent(out) :: ierror
        type(cstrings), target :: classes
        type(c_ptr) :: pc
        integer :: rc
        pc = c_null_ptr
        if (present(node_class)) then
            if (size(node_class) < nprocs) then
                call note("XMPI_Remove: node_class has fewer entries than nprocs")
                call finish(XMPI_ERR_ARG, ierror, "XMPI_Remove", .false.)
                return
            end if
            call to_cstrings(node_class, classes, .true.)
            pc = c_loc(classes%p)
        end if
        rc = int(c_remove(int(nprocs, c_int), pc))
        call settle()
        call finish(rc, ierror, "XMPI_Remove", .false.)
    end subroutine

    subroutine XMPI_Get_system_status(status, ierror)
        type(XMPI_System_status), intent(out) :: status
        integer, optional, intent(out) :: ierror
        type, bind(C) :: c_status
            integer(c_int) :: action, nprocs
            character(kind=c_char) :: node_class(64)
        end type
        interface
            integer(c_int) function c_get_system_status(s) bind(C, name="XMPI_Get_system_status")
                import :: c_int, c_status
                type(c_status) :: s
            end function
        end interface
        type(c_status), target :: s
        integer :: rc, n
        s%action = 0
        s%nprocs = 0
        s%node_class = c_null_char
        rc = int(c_get_system_status(s))
        status%action = int(s%action)
        status%nprocs = int(s%nprocs)
        call from_c(c_loc(s%node_class), status%node_class, n)
        call settle()
        call finish(rc, ierror, "XMPI_Get_system_status", .false.)
    end subroutine

    ! name absent: the automatic name ckpt-ITERATION.
    subroutine XMPI_Checkpoint(name, ierror)
        character(len=*), intent(in), optional :: name
        integer, optional, intent(out) :: ierror
        character(kind=c_char), allocatable, target :: c(:)
        type(c_ptr) :: p
        integer :: rc, n
        p = c_null_ptr
        if (present(name)) then
            n = len_trim(name)
            allocate (c(n + 1))
            c(1:n) = transfer(name(1:n), c(1:n))
            c(n + 1) = c_null_char
            p = c_loc(c)
        end if
        rc = int(c_checkpoint(p))
        call settle()
        call finish(rc, ierror, "XMPI_Checkpoint", .false.)
    end subroutine

    ! it: the iteration just completed, counted from 0 (as the C call's); count and displ:
    ! this process's block, updated; weight: at least count values (--xmpi-lb=weight).
    subroutine XMPI_Eval_lbalance(rank, nprocs, it, maxit, count, displ, weight, ierror)
        integer, intent(in) :: rank, nprocs, it, maxit
        integer, intent(inout) :: count, displ
        real(c_double), intent(in), target, contiguous, optional :: weight(:)
        integer, optional, intent(out) :: ierror
        integer(c_int) :: c, d
        type(c_ptr) :: pw
        integer :: rc
        pw = c_null_ptr
        if (present(weight)) then
            if (size(weight) < count) then
                call note("XMPI_Eval_lbalance: weight holds fewer values than count")
                call finish(XMPI_ERR_ARG, ierror, "XMPI_Eval_lbalance", .false.)
                return
            end if
            if (size(weight) > 0) pw = c_loc(weight)
        end if
        c = int(count, c_int)
        d = int(displ, c_int)
        rc = int(c_eval_lbalance(int(rank, c_int), int(nprocs, c_int), int(it, c_int), int(maxit, c_int), &
            c, d, pw))
        count = int(c)
        displ = int(d)
        call settle()
        call finish(rc, ierror, "XMPI_Eval_lbalance", .false.)
    end subroutine

    ! As XMPI_Eval_lbalance; argv and command (absent: this program with its arguments) for
    ! the processes the policy spawns.
    subroutine XMPI_Eval_reconfig(rank, nprocs, it, maxit, count, displ, weight, argv, command, ierror)
        integer, intent(in) :: rank, nprocs, it, maxit
        integer, intent(inout) :: count, displ
        real(c_double), intent(in), target, contiguous, optional :: weight(:)
        character(len=*), intent(in), optional :: argv(:)
        character(len=*), intent(in), optional :: command
        integer, optional, intent(out) :: ierror
        integer(c_int) :: c, d
        type(c_ptr) :: pw, pa, pc
        type(cstrings), target :: args
        character(kind=c_char), allocatable, target :: cmd(:)
        integer :: rc, n
        pw = c_null_ptr
        pa = c_null_ptr
        pc = c_null_ptr
        if (present(weight)) then
            if (size(weight) < count) then
                call note("XMPI_Eval_reconfig: weight holds fewer values than count")
                call finish(XMPI_ERR_ARG, ierror, "XMPI_Eval_reconfig", .false.)
                return
            end if
            if (size(weight) > 0) pw = c_loc(weight)
        end if
        if (present(argv)) then
            call to_cstrings(argv, args, .false.)
            pa = c_loc(args%p)
        end if
        if (present(command)) then
            n = len_trim(command)
            allocate (cmd(n + 1))
            cmd(1:n) = transfer(command(1:n), cmd(1:n))
            cmd(n + 1) = c_null_char
            pc = c_loc(cmd)
        end if
        c = int(count, c_int)
        d = int(displ, c_int)
        rc = int(c_eval_reconfig(int(rank, c_int), int(nprocs, c_int), int(it, c_int), int(maxit, c_int), &
            c, d, pw, pa, pc))
        count = int(c)
        displ = int(d)
        call settle()
        call finish(rc, ierror, "XMPI_Eval_reconfig", .false.)
    end subroutine

    ! events: PAPI event names (absent: the default).
    subroutine XMPI_Monitor_iter_begin(events, ierror)
        character(len=*), intent(in), optional :: events(:)
        integer, optional, intent(out) :: ierror
        type(cstrings), target :: ev
        type(c_ptr) :: pe
        integer :: rc
        pe = c_null_ptr
        if (present(events)) then
            call to_cstrings(events, ev, .false.)
            pe = c_loc(ev%p)
        end if
        rc = int(c_monitor_iter_begin(pe))
        call finish(rc, ierror, "XMPI_Monitor_iter_begin", .false.)
    end subroutine

    ! counts: one value per requested event (absent: not wanted).
    subroutine XMPI_Monitor_iter_end(counts, ierror)
        integer(c_long_long), intent(out), target, contiguous, optional :: counts(:)
        integer, optional, intent(out) :: ierror
        type(c_ptr) :: pc
        integer :: rc
        pc = c_null_ptr
        if (present(counts)) then
            if (size(counts) > 0) pc = c_loc(counts)
        end if
        rc = int(c_monitor_iter_end(pc))
        call settle()
        call finish(rc, ierror, "XMPI_Monitor_iter_end", .false.)
    end subroutine

    subroutine XMPI_Monitor_si_init(ierror)
        integer, optional, intent(out) :: ierror
        integer :: rc
        rc = int(c_monitor_si_init())
        call settle()
        call finish(rc, ierror, "XMPI_Monitor_si_init", .false.)
    end subroutine

    ! XMPI_Monitor_add_work takes the work in any real or integer kind.
    subroutine add_work_real64(flop, ierror)
        real(c_double), intent(in) :: flop
        integer, optional, intent(out) :: ierror
        call finish(int(c_monitor_add_work(flop)), ierror, "XMPI_Monitor_add_work", .true.)
    end subroutine

    subroutine add_work_real32(flop, ierror)
        real(c_float), intent(in) :: flop
        integer, optional, intent(out) :: ierror
        call add_work_real64(real(flop, c_double), ierror)
    end subroutine

    subroutine add_work_int32(flop, ierror)
        integer(c_int), intent(in) :: flop
        integer, optional, intent(out) :: ierror
        call add_work_real64(real(flop, c_double), ierror)
    end subroutine

    subroutine add_work_int64(flop, ierror)
        integer(c_int64_t), intent(in) :: flop
        integer, optional, intent(out) :: ierror
        call add_work_real64(real(flop, c_double), ierror)
    end subroutine

    subroutine XMPI_Monitor_work_source(source, resultlen, ierror)
        character(len=*), intent(out) :: source
        integer, intent(out) :: resultlen
        integer, optional, intent(out) :: ierror
        call from_c(c_monitor_work_source(), source, resultlen)
        call XMPI_COMM_WORLD_refresh()
        if (present(ierror)) ierror = XMPI_SUCCESS
    end subroutine

    ! ---- the command line without the --xmpi- options --------------------------------------
    ! MPI_Init takes the --xmpi-NAME=VALUE words out of a C program's argv; Fortran's command
    ! line keeps them. These two are COMMAND_ARGUMENT_COUNT and GET_COMMAND_ARGUMENT without
    ! those words (number 0 is the program).
    integer function XMPI_Command_argument_count()
        integer :: k
        XMPI_Command_argument_count = 0
        do k = 1, command_argument_count()
            if (.not. is_xmpi_option(k)) XMPI_Command_argument_count = XMPI_Command_argument_count + 1
        end do
    end function

    subroutine XMPI_Get_command_argument(number, value, length, status)
        integer, intent(in) :: number
        character(len=*), intent(out), optional :: value
        integer, intent(out), optional :: length, status
        integer :: k, seen
        if (number <= 0) then
            call get_command_argument(number, value, length, status)
            return
        end if
        seen = 0
        do k = 1, command_argument_count()
            if (is_xmpi_option(k)) cycle
            seen = seen + 1
            if (seen == number) then
                call get_command_argument(k, value, length, status)
                return
            end if
        end do
        if (present(value)) value = ""
        if (present(length)) length = 0
        if (present(status)) status = 1
    end subroutine

    logical function is_xmpi_option(k)
        integer, intent(in) :: k
        character(len=7) :: head
        call get_command_argument(k, head)
        is_xmpi_option = head == "--xmpi-"
    end function

    ! ==== the profiled MPI calls ================================================================
    ! Bytes as the C wrappers count them (libxmpi/profile.c): a message's size, this rank's
    ! block of a gather or scatter, all it sends of an all-to-all; in place, the receive side's.

    logical function in_place(buf)
        type(*), dimension(..), intent(in), target :: buf
        in_place = c_associated(c_loc(buf), in_place_addr)
    end function

    subroutine f_send(buf, count, datatype, dest, tag, comm, ierror)
        type(*), dimension(..), intent(in) :: buf
        integer, intent(in) :: count, dest, tag
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_SEND), mark)
        call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
        call c_f08_prof_leave(op_id(OP_SEND), real(count, c_double), datatype%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    subroutine f_recv(buf, count, datatype, source, tag, comm, status, ierror)
        type(*), dimension(..) :: buf
        integer, intent(in) :: count, source, tag
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Comm), intent(in) :: comm
        type(MPI_Status), target :: status
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        type(MPI_Status) :: st
        integer :: rc
        t0 = c_f08_prof_enter(op_id(OP_RECV), mark)
        call PMPI_Recv(buf, count, datatype, source, tag, comm, st, rc)
        call c_f08_prof_leave(op_id(OP_RECV), received(rc, st, count, datatype), datatype%MPI_VAL, t0, &
            comm%MPI_VAL, mark)
        if (.not. c_associated(c_loc(status), status_ignore_addr)) status = st
        if (present(ierror)) ierror = rc
    end subroutine

    ! Elements actually received, from the status; the posted count when it does not say.
    real(c_double) function received(rc, st, count, datatype)
        integer, intent(in) :: rc, count
        type(MPI_Status), intent(in) :: st
        type(MPI_Datatype), intent(in) :: datatype
        integer :: n, ignore
        received = 0
        if (rc /= MPI_SUCCESS) return
        call PMPI_Get_count(st, datatype, n, ignore)
        if (n == MPI_UNDEFINED) n = count
        received = real(n, c_double)
    end function

    subroutine f_isend(buf, count, datatype, dest, tag, comm, request, ierror)
        type(*), dimension(..), intent(in), asynchronous :: buf
        integer, intent(in) :: count, dest, tag
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Comm), intent(in) :: comm
        type(MPI_Request), intent(out) :: request
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_ISEND), mark)
        call PMPI_Isend(buf, count, datatype, dest, tag, comm, request, ierror)
        call c_f08_prof_leave(op_id(OP_ISEND), real(count, c_double), datatype%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    subroutine f_irecv(buf, count, datatype, source, tag, comm, request, ierror)
        type(*), dimension(..), asynchronous :: buf
        integer, intent(in) :: count, source, tag
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Comm), intent(in) :: comm
        type(MPI_Request), intent(out) :: request
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_IRECV), mark)
        call PMPI_Irecv(buf, count, datatype, source, tag, comm, request, ierror)
        call c_f08_prof_leave(op_id(OP_IRECV), real(count, c_double), datatype%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    ! Bytes sent plus bytes received: counted in units of sendtype, the received ones
    ! converted through their datatype's size.
    subroutine f_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, &
            source, recvtag, comm, status, ierror)
        type(*), dimension(..), intent(in) :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount, dest, sendtag, recvcount, source, recvtag
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        type(MPI_Status), target :: status
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark, units
        type(MPI_Status) :: st
        integer :: rc, ssize, rsize, ignore
        t0 = c_f08_prof_enter(op_id(OP_SENDRECV), mark)
        call PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, &
            source, recvtag, comm, st, rc)
        call PMPI_Type_size(sendtype, ssize, ignore)
        call PMPI_Type_size(recvtype, rsize, ignore)
        ! Both sides in bytes, then as MPI_BYTE elements.
        units = real(sendcount, c_double) * ssize + received(rc, st, recvcount, recvtype) * rsize
        call c_f08_prof_leave(op_id(OP_SENDRECV), units, MPI_BYTE%MPI_VAL, t0, comm%MPI_VAL, mark)
        if (.not. c_associated(c_loc(status), status_ignore_addr)) status = st
        if (present(ierror)) ierror = rc
    end subroutine

    subroutine f_wait(request, status, ierror)
        type(MPI_Request), intent(inout) :: request
        type(MPI_Status) :: status
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_WAIT), mark)
        call PMPI_Wait(request, status, ierror)
        call c_f08_prof_leave(op_id(OP_WAIT), 0.0_c_double, MPI_DATATYPE_NULL%MPI_VAL, t0, &
            MPI_COMM_NULL%MPI_VAL, mark)
    end subroutine

    subroutine f_waitall(count, array_of_requests, array_of_statuses, ierror)
        integer, intent(in) :: count
        type(MPI_Request), intent(inout) :: array_of_requests(count)
        type(MPI_Status) :: array_of_statuses(*)
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_WAITALL), mark)
        call PMPI_Waitall(count, array_of_requests, array_of_statuses, ierror)
        call c_f08_prof_leave(op_id(OP_WAITALL), 0.0_c_double, MPI_DATATYPE_NULL%MPI_VAL, t0, &
            MPI_COMM_NULL%MPI_VAL, mark)
    end subroutine

    subroutine f_barrier(comm, ierror)
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_BARRIER), mark)
        call PMPI_Barrier(comm, ierror)
        call c_f08_prof_leave(op_id(OP_BARRIER), 0.0_c_double, MPI_DATATYPE_NULL%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    subroutine f_bcast(buffer, count, datatype, root, comm, ierror)
        type(*), dimension(..) :: buffer
        integer, intent(in) :: count, root
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_BCAST), mark)
        call PMPI_Bcast(buffer, count, datatype, root, comm, ierror)
        call c_f08_prof_leave(op_id(OP_BCAST), real(count, c_double), datatype%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    subroutine f_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
        type(*), dimension(..), intent(in) :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: count, root
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Op), intent(in) :: op
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_REDUCE), mark)
        call PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm, ierror)
        call c_f08_prof_leave(op_id(OP_REDUCE), real(count, c_double), datatype%MPI_VAL, t0, comm%MPI_VAL, mark)
    end subroutine

    subroutine f_allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
        type(*), dimension(..), intent(in) :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: count
        type(MPI_Datatype), intent(in) :: datatype
        type(MPI_Op), intent(in) :: op
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        t0 = c_f08_prof_enter(op_id(OP_ALLREDUCE), mark)
        call PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
        call c_f08_prof_leave(op_id(OP_ALLREDUCE), real(count, c_double), datatype%MPI_VAL, t0, &
            comm%MPI_VAL, mark)
    end subroutine

    subroutine f_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount, recvcount, root
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        logical :: inp
        inp = in_place(sendbuf)
        t0 = c_f08_prof_enter(op_id(OP_GATHER), mark)
        call PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        if (inp) then
            call c_f08_prof_leave(op_id(OP_GATHER), real(recvcount, c_double), recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_GATHER), real(sendcount, c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount, root
        integer, intent(in) :: recvcounts(*), displs(*)
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        integer :: me, ignore
        logical :: inp
        inp = in_place(sendbuf)
        t0 = c_f08_prof_enter(op_id(OP_GATHERV), mark)
        call PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, ierror)
        if (inp) then
            call PMPI_Comm_rank(comm, me, ignore)
            call c_f08_prof_leave(op_id(OP_GATHERV), real(recvcounts(me + 1), c_double), recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_GATHERV), real(sendcount, c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        type(*), dimension(..), intent(in) :: sendbuf
        type(*), dimension(..), target :: recvbuf
        integer, intent(in) :: sendcount, recvcount, root
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        logical :: inp
        inp = in_place(recvbuf)
        t0 = c_f08_prof_enter(op_id(OP_SCATTER), mark)
        call PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        if (inp) then
            call c_f08_prof_leave(op_id(OP_SCATTER), real(sendcount, c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_SCATTER), real(recvcount, c_double), recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        type(*), dimension(..), intent(in) :: sendbuf
        type(*), dimension(..), target :: recvbuf
        integer, intent(in) :: sendcounts(*), displs(*)
        integer, intent(in) :: recvcount, root
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        integer :: me, ignore
        logical :: inp
        inp = in_place(recvbuf)
        t0 = c_f08_prof_enter(op_id(OP_SCATTERV), mark)
        call PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, ierror)
        if (inp) then
            call PMPI_Comm_rank(comm, me, ignore)
            call c_f08_prof_leave(op_id(OP_SCATTERV), real(sendcounts(me + 1), c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_SCATTERV), real(recvcount, c_double), recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount, recvcount
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        logical :: inp
        inp = in_place(sendbuf)
        t0 = c_f08_prof_enter(op_id(OP_ALLGATHER), mark)
        call PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
        if (inp) then
            call c_f08_prof_leave(op_id(OP_ALLGATHER), real(recvcount, c_double), recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_ALLGATHER), real(sendcount, c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount
        integer, intent(in) :: recvcounts(*), displs(*)
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        integer :: me, ignore
        logical :: inp
        inp = in_place(sendbuf)
        t0 = c_f08_prof_enter(op_id(OP_ALLGATHERV), mark)
        call PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, ierror)
        if (inp) then
            call PMPI_Comm_rank(comm, me, ignore)
            call c_f08_prof_leave(op_id(OP_ALLGATHERV), real(recvcounts(me + 1), c_double), recvtype%MPI_VAL, &
                t0, comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_ALLGATHERV), real(sendcount, c_double), sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcount, recvcount
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        integer :: p, ignore
        logical :: inp
        inp = in_place(sendbuf)
        call PMPI_Comm_size(comm, p, ignore)
        t0 = c_f08_prof_enter(op_id(OP_ALLTOALL), mark)
        call PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, ierror)
        if (inp) then
            call c_f08_prof_leave(op_id(OP_ALLTOALL), real(p, c_double) * recvcount, recvtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_ALLTOALL), real(p, c_double) * sendcount, sendtype%MPI_VAL, t0, &
                comm%MPI_VAL, mark)
        end if
    end subroutine

    subroutine f_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, &
            comm, ierror)
        type(*), dimension(..), intent(in), target :: sendbuf
        type(*), dimension(..) :: recvbuf
        integer, intent(in) :: sendcounts(*), sdispls(*), recvcounts(*), rdispls(*)
        type(MPI_Datatype), intent(in) :: sendtype, recvtype
        type(MPI_Comm), intent(in) :: comm
        integer, optional, intent(out) :: ierror
        real(c_double) :: t0, mark
        integer :: p, ignore
        logical :: inp
        inp = in_place(sendbuf)
        call PMPI_Comm_size(comm, p, ignore)
        t0 = c_f08_prof_enter(op_id(OP_ALLTOALLV), mark)
        call PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, &
            comm, ierror)
        if (inp) then
            call c_f08_prof_leave(op_id(OP_ALLTOALLV), real(sum(recvcounts(1:p)), c_double), recvtype%MPI_VAL, &
                t0, comm%MPI_VAL, mark)
        else
            call c_f08_prof_leave(op_id(OP_ALLTOALLV), real(sum(sendcounts(1:p)), c_double), sendtype%MPI_VAL, &
                t0, comm%MPI_VAL, mark)
        end if
    end subroutine

end module xmpi_f08_core

! The module programs use: all of mpi_f08 but the calls xmpi_f08_core replaces, and all of
! xmpi_f08_core's public names.
module xmpi_f08
    use mpi_f08, mpi_f08_init => MPI_Init, mpi_f08_init_thread => MPI_Init_thread, &
        mpi_f08_finalize => MPI_Finalize, mpi_f08_send => MPI_Send, mpi_f08_recv => MPI_Recv, &
        mpi_f08_isend => MPI_Isend, mpi_f08_irecv => MPI_Irecv, mpi_f08_sendrecv => MPI_Sendrecv, &
        mpi_f08_wait => MPI_Wait, mpi_f08_waitall => MPI_Waitall, mpi_f08_barrier => MPI_Barrier, &
        mpi_f08_bcast => MPI_Bcast, mpi_f08_reduce => MPI_Reduce, mpi_f08_allreduce => MPI_Allreduce, &
        mpi_f08_gather => MPI_Gather, mpi_f08_gatherv => MPI_Gatherv, mpi_f08_scatter => MPI_Scatter, &
        mpi_f08_scatterv => MPI_Scatterv, mpi_f08_allgather => MPI_Allgather, &
        mpi_f08_allgatherv => MPI_Allgatherv, mpi_f08_alltoall => MPI_Alltoall, &
        mpi_f08_alltoallv => MPI_Alltoallv
    use xmpi_f08_core
    implicit none
    private :: mpi_f08_init, mpi_f08_init_thread, mpi_f08_finalize, mpi_f08_send, mpi_f08_recv, &
        mpi_f08_isend, mpi_f08_irecv, mpi_f08_sendrecv, mpi_f08_wait, mpi_f08_waitall, &
        mpi_f08_barrier, mpi_f08_bcast, mpi_f08_reduce, mpi_f08_allreduce, mpi_f08_gather, &
        mpi_f08_gatherv, mpi_f08_scatter, mpi_f08_scatterv, mpi_f08_allgather, mpi_f08_allgatherv, &
        mpi_f08_alltoall, mpi_f08_alltoallv
end module xmpi_f08
