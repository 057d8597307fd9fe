/* The C side of the Fortran 2008 module xmpi_f08 (include/xmpi_f08.f90): what Fortran cannot
 * do through bind(C) alone. Handle conversions (XMPI_COMM_WORLD, datatypes, info objects),
 * this process's block and the size of a buffer for the module's array views, rank 0's
 * one-line messages, and the timing of the MPI calls the module wraps. Not public API: the
 * names are xmpi_f08_*, exported only so that libxmpi_f08 can reach them, and the module is
 * their one caller. */
#include <mpi.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "context.h"
#include "profile.h"
#include "registry.h"
#include "runtime.h"
#include "xmpi.h"

/* MPI_Init, MPI_Init_thread (thread != 0) and MPI_Finalize (init == 0) of libxmpi, whatever
 * the order in which the program loaded libxmpi and the MPI library (runtime.h). Fortran's
 * command line is read from /proc/self/cmdline, as for MPI_Init(NULL, NULL). */
XMPI_PUBLIC int xmpi_f08_init(int init, int thread, int required, int *provided)
{
    if (!init) return xmpi_runtime_finalize();
    if (thread) return xmpi_runtime_init_thread(NULL, NULL, required, provided);
    return xmpi_runtime_init(NULL, NULL);
}

/* Fortran's handle of XMPI_COMM_WORLD into *handle: 0, or -1 when it is MPI_COMM_NULL (outside
 * MPI_Init..MPI_Finalize, when no handle may be converted, and on a removed process), which
 * the module knows the Fortran value of. The module asks again after each of its calls, since
 * every spawn and removal makes a new communicator. */
XMPI_PUBLIC int xmpi_f08_comm_world(MPI_Fint *handle)
{
    if (xmpi_ctx->phase != XMPIR_PHASE_RUNNING || XMPI_COMM_WORLD == MPI_COMM_NULL) return -1;
    *handle = MPI_Comm_c2f(XMPI_COMM_WORLD);
    return 0;
}

/* This process's block of the current partition (the rows its distributed arrays hold):
 * 0, or -1 with count = displ = 0 when it holds none that the library knows of (a spawned
 * process before XMPI_Get_data, a removed one, nothing registered). */
XMPI_PUBLIC int xmpi_f08_block(int *count, int *displ)
{
    const struct xmpi_ctx *cx = xmpi_ctx;
    if (xmpi_member(cx) != XMPI_SUCCESS) {
        *count = *displ = 0;
        return -1;
    }
    return xmpi_registry_own_block(cx, count, displ);
}

/* Bytes that the buffer at p can hold (at least what was asked of malloc); SIZE_MAX where the
 * C library cannot tell. The module never shows more elements of a buffer than it holds. */
XMPI_PUBLIC size_t xmpi_f08_capacity(void *p)
{
    if (!p) return 0;
#ifdef __GLIBC__
    return malloc_usable_size(p);
#else
    return SIZE_MAX;
#endif
}

/* XMPI_Register_vector (kind 0), _dense (1) or _sparse (2) with a Fortran datatype handle. */
XMPI_PUBLIC int xmpi_f08_register(int kind, void *address, void *address_ja, void *address_a, int size,
                                  MPI_Fint type, int scheme)
{
    MPI_Datatype t = MPI_Type_f2c(type);
    switch (kind) {
    case 0: return XMPI_Register_vector(address, size, t, (XMPI_Scheme)scheme);
    case 1: return XMPI_Register_dense(address, size, t, (XMPI_Scheme)scheme);
    case 2: return XMPI_Register_sparse(address, address_ja, address_a, size, t, (XMPI_Scheme)scheme);
    default: return XMPI_ERR_ARG;
    }
}

/* XMPI_Spawn with a Fortran info handle; argv and node_class as the C call takes them. */
XMPI_PUBLIC int xmpi_f08_spawn(const char *command, char **argv, int nprocs, MPI_Fint info,
                               char **node_class)
{
    return XMPI_Spawn(command, argv, nprocs, MPI_Info_f2c(info), node_class);
}

/* "xmpi: MESSAGE" on stderr, on rank 0 only: the module's refusals of bad input. */
XMPI_PUBLIC void xmpi_f08_note(const char *message)
{
    xmpi_note(xmpi_ctx, 0, "%s", message);
}

/* The module's end of a job after a refusal without ierror, once the reason is written: every
 * process aborts the same way, so that under MPICH none ends the job before rank 0's line is
 * out (context.h). */
XMPI_PUBLIC void xmpi_f08_abort(int code)
{
    xmpi_abort_said(code);
}

/* The index of the profiled operation named `name` ("MPI_Allreduce", ...), -1 for none:
 * the module asks once for each of the calls it wraps, so that it follows the library's own
 * numbering. */
XMPI_PUBLIC int xmpi_f08_op(const char *name)
{
    for (int op = 0; op < XMPIR_OP_COUNT; op++)
        if (strcmp(xmpi_op_name(op), name) == 0) return op;
    return -1;
}

/* Around an MPI call that the module makes for the program: enter returns the clock at the
 * call's start (after the emulated slowdown, as the C wrappers do) and in *mark how many
 * calls of `op` were counted so far; leave counts the call as one of op with count elements
 * of `type` on `comm` (Fortran handles), unless a C wrapper of libxmpi already counted it:
 * MPICH's Fortran bindings call the C MPI_ functions (which libxmpi wraps) for most calls
 * with a buffer, Open MPI's call PMPI_ ones directly (which it does not). */
XMPI_PUBLIC double xmpi_f08_prof_enter(int op, double *mark)
{
    *mark = op >= 0 && op < XMPIR_OP_COUNT ? xmpi_ctx->profile[op].calls : 0;
    return xmpi_profile_enter();
}

XMPI_PUBLIC void xmpi_f08_prof_leave(int op, double count, MPI_Fint type, double t0, MPI_Fint comm,
                                     double mark)
{
    if (op < 0 || op >= XMPIR_OP_COUNT || xmpi_ctx->profile[op].calls != mark) return;
    double bytes = 0;
    if (count > 0) {
        MPI_Datatype t = MPI_Type_f2c(type);
        int size = 0;
        if (t != MPI_DATATYPE_NULL && PMPI_Type_size(t, &size) == MPI_SUCCESS) bytes = count * size;
    }
    xmpi_profile_account(op, bytes, t0, MPI_Comm_f2c(comm));
}
