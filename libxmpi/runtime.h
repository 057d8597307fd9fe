/* Library state between MPI_Init and MPI_Finalize: options, the library's
 * private communicator, the process status, and the notice/log helpers. */
#ifndef XMPI_RUNTIME_H
#define XMPI_RUNTIME_H

#include <mpi.h>
#include <stdio.h>

#include "../models/formats/options.h"

enum xmpi_phase { XMPI_PHASE_BEFORE = 0, XMPI_PHASE_RUNNING, XMPI_PHASE_DONE };

struct xmpi_runtime {
    enum xmpi_phase phase;
    int rank, size;          /* in XMPI_COMM_WORLD */
    MPI_Comm comm;           /* private twin of XMPI_COMM_WORLD for the library's own collectives */
    struct xmpi_options opts;
    double t0;               /* MPI_Wtime at MPI_Init */
    int status;              /* XMPI_RUNNING, ... */
    FILE *trace;             /* rank 0 only, when --xmpi-trace is set */
    char progname[256];
};

extern struct xmpi_runtime xmpi_rt;

/* XMPI_SUCCESS while the library runs, XMPI_ERR_STATE before MPI_Init or after MPI_Finalize. */
int xmpi_runtime_ready(void);

/* "xmpi: ..." on stderr, on rank 0 only, when --xmpi-verbose >= level (level 0: always). */
void xmpi_note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
