/* The runtime context: every runtime module's state in one struct, owned by the runtime
 * from MPI_Init to MPI_Finalize. Internal functions take the context they work on; the
 * one process-wide pointer, xmpi_ctx, is for the PMPI wrappers and the public API. */
#ifndef XMPIR_CONTEXT_H
#define XMPIR_CONTEXT_H

#include <mpi.h>
#include <stdio.h>

#include "../models/cost.h"
#include "../policies/amp.h"
#include "../io/options.h"
#include "../io/interval.h"
#include "balance.h"
#include "ckpt.h"
#include "emulate.h"
#include "halo.h"
#include "hwcount.h"
#include "predict.h"
#include "monitor.h"
#include "otf2.h"
#include "registry.h"
#include "resize.h"
#include "rms.h"
#include "stepclock.h"
#include "journal.h"
#include "watchdog.h"
#include "world.h"

enum xmpi_phase { XMPIR_PHASE_BEFORE = 0, XMPIR_PHASE_RUNNING, XMPIR_PHASE_DONE };

struct xmpi_ctx {
    enum xmpi_phase phase;
    int rank, size;          /* in XMPI_COMM_WORLD */
    MPI_Comm comm;           /* private twin of XMPI_COMM_WORLD for the library's own collectives */
    struct xmpi_options opts;
    struct xmpi_watchdog watch;   /* bounds the waits of reconfigurations */
    double t0;               /* MPI_Wtime at MPI_Init */
    int status;              /* XMPI_RUNNING, ... */
    int evaluates;           /* the program calls XMPI_Eval_*: the pipeline waits for it */
    FILE *trace;             /* rank 0 only, when --xmpi-trace is set */
    int trace_ranks_said;    /* rank 0: the trace's per-rank columns were left out once */
    char progname[256];
    int yield;               /* MPI progress gives up the core while waiting (decided before
                              * PMPI_Init; the processes it spawns are told the same) */
    char yield_why[160];     /* why, for the verbose start-up line */
    int async_want;          /* a policy may grow the job and --xmpi-spawn-async=on: MPI_Init
                              * asks for MPI_THREAD_MULTIPLE (decided before PMPI_Init) */
    int async;               /* policies' spawns run on a helper thread (world.h) */
    int spawned;             /* the library spawned this process (its mark, world.h): it
                              * joins its parents' job inside MPI_Init */
    char **argv;             /* the program's arguments without argv[0] and --xmpi- options:
                              * what XMPI_Eval_reconfig gives the processes it spawns */

    /* Cumulative per-operation counters since the process started; only the PMPI wrappers
     * write them, one communicating thread at a time. */
    struct xmpi_opstat profile[XMPIR_OP_COUNT];
    struct xmpi_monitor mon;
    struct xmpi_hwcount hw;
    struct xmpi_registry reg;
    struct xmpi_halo halo;   /* halo views and ghost plans (halo.h) */
    /* The program's data for joining processes (XMPI_Set_app_data): rank 0's travels with
     * every join and in every checkpoint; a joining process holds the copy it received. */
    char *app_data;
    int app_bytes;
    struct xmpi_world world;
    struct xmpi_emulation emu;
    struct xmpi_rms rms;
    struct xmpi_predict_rt predict;
    struct xmpi_balance_rt balance;
    struct xmpi_journal journal;
    struct xmpi_amp_state amp;   /* AMP across interval ends (policies/amp.h) */
    /* Rank 0, with a scheduler: the job's cost so far (cost.h), moved on by record() at
     * every interval end and closed at MPI_Finalize. */
    struct xmpi_cost cost;
    struct xmpi_ckpt_state ckpt;   /* checkpoint and restart (checkpoint.h) */
    struct xmpi_resize_rt resize;  /* resizing by checkpoint and restart (resize.h) */
    struct xmpi_otf2_rt otf2;      /* the OTF2 archive's writer (--xmpi-otf2, otf2.h) */
    struct xmpi_stepclock steps;   /* the steps' own time, for make bench-scale (stepclock.h) */
};

/* The process's context: always valid (zeroed before MPI_Init). */
extern struct xmpi_ctx *const xmpi_ctx;

/* XMPI_SUCCESS while the library runs, XMPI_ERR_STATE before MPI_Init or after MPI_Finalize. */
int xmpi_ready(const struct xmpi_ctx *cx);
/* As xmpi_ready, and XMPI_ERR_STATE on a process that was removed from the job. */
int xmpi_member(const struct xmpi_ctx *cx);

/* "xmpi: ..." on stderr, on rank 0 only, when --xmpi-verbose >= level (level 0: always). */
void xmpi_note(const struct xmpi_ctx *cx, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* MPI_Abort(MPI_COMM_WORLD, code) once this process (or rank 0) wrote why to stderr: the
 * path of every "say why, then end the job". Under MPICH after a moment, so that the launcher
 * forwards those lines before it ends the job. */
void xmpi_abort_said(int code);
/* Out of memory where skipping a collective would hang the others: stop loudly. */
void xmpi_die_nomem(const struct xmpi_ctx *cx, const char *where) __attribute__((noreturn));

#endif
