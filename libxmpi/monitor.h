/* Per-iteration monitoring (wall time, CPU time, work, communication), the closing of a
 * sampling interval every si iterations and the gather of the per-rank records into one
 * interval summary (the pipeline's "measure" step). */
#ifndef XMPIR_MONITOR_H
#define XMPIR_MONITOR_H

#include "../io/options.h"
#include "../io/interval.h"
#include "hwcount.h"

struct xmpi_ctx;

struct xmpi_monitor {
    int configured;                      /* events chosen (first iteration seen) */
    int in_iter;
    int si_opened;                       /* the open iteration began at XMPI_Monitor_si_init */
    int si_ended;                        /* ... and a call other than an end call ended it:
                                          * an XMPI_Monitor_iter_end after it is satisfied */
    long long end_counts[XMPIR_MAX_EVENTS];   /* that iteration's counts, for that call */
    int nevents;                         /* requested events; counts[] has this many */
    char names_buf[XMPIR_EVENTS_MAX];
    char *names[XMPIR_MAX_EVENTS];
    int papi;                            /* 1 when the events are being counted */
    int joined_declared;                 /* spawned into a job that counts declared work: PAPI
                                          * is neither loaded nor tried */
    char source[XMPIR_EVENTS_MAX + 8];
    char why[512];                       /* why no events are counted */
    int prechosen;                       /* events chosen and started at MPI_Init */
    double declared;                     /* work declared in the current iteration */
    double t_real0, t_cpu0;
    double lib_real, lib_cpu;            /* the library's own time inside the open iteration */
    double end_real, end_cpu;            /* the readings that ended the last iteration */
    long long end_hw[XMPIR_MAX_EVENTS];
    int end_valid;                       /* ... and the next may start from them */
    long long hw0[XMPIR_MAX_EVENTS];
    struct xmpi_opstat snap[XMPIR_OP_COUNT];
    struct xmpi_rank_record iter;        /* last complete iteration */
    struct xmpi_rank_record acc;         /* current interval so far */
    struct xmpi_rank_record closed;      /* the interval closed and not yet gathered */
    long closed_iteration;               /* iterations done when it closed */
    int due;                             /* 1 while `closed` waits for the gather */
    long iterations;
    struct xmpi_interval summary;
    int have_summary;
    struct xmpi_rank_record *ranks;      /* rank 0: gather buffer, size nprocs */
    int ranks_cap;
};

void xmpi_monitor_init(struct xmpi_ctx *cx);
/* At MPI_Init of the processes mpirun started, when --xmpi-events names none: chooses and
 * starts the default chain's event now, so that PAPI's probing (about 30 page faults, 1-2 ms) is not the
 * first monitored iteration's; that iteration only says which source is used, and chooses
 * again if the program names other events. */
void xmpi_monitor_prechoose(struct xmpi_ctx *cx);
/* Library work inside an open iteration (an interval end reached from an evaluation call
 * between XMPI_Monitor_si_init's marks: moves, checkpoints, rank 0's decisions) is not the
 * program's computation: lib_begin marks its start (mark: 2 doubles), lib_end takes it out
 * of the iteration's wall and CPU time, so that work done on one rank alone (rank 0 writing
 * a checkpoint's manifest) does not read as a slower process. */
void xmpi_monitor_lib_begin(double *mark);
void xmpi_monitor_lib_end(struct xmpi_ctx *cx, const double *mark);
void xmpi_monitor_free(struct xmpi_ctx *cx);

/* XMPI_Monitor_si_init's begin: the iteration is marked as opened by it (the evaluation calls
 * and XMPI_Checkpoint end such an iteration: it has no end call of its own). after_end: the
 * iteration that just ended was followed by nothing, and this one starts from its readings;
 * the clocks are read when those cannot serve. */
int xmpi_monitor_begin_next(struct xmpi_ctx *cx, int after_end);
/* Ends the current iteration (an XMPI code); *closed is 1 when it closed a sampling interval
 * (the record waits in `closed`, due, for xmpi_monitor_gather). */
int xmpi_monitor_end_iteration(struct xmpi_ctx *cx, long long *counts, int *closed);
/* At MPI_Finalize: ends an open iteration and closes a last, partial interval if any rank
 * has iterations left over (collective); returns 1 when one was closed. */
int xmpi_monitor_close_last(struct xmpi_ctx *cx);
/* Collective over the library's communicator: the due records of every rank become the
 * interval summary, the same on every process; its per-rank records (s->ranks) are rank 0's
 * alone (NULL on the others). */
void xmpi_monitor_gather(struct xmpi_ctx *cx);

/* The last complete interval summary, or NULL before the first one. */
const struct xmpi_interval *xmpi_monitor_summary(const struct xmpi_ctx *cx);
/* This rank's record of the last monitored iteration. */
const struct xmpi_rank_record *xmpi_monitor_last_iteration(const struct xmpi_ctx *cx);
/* Monitored iterations completed by this rank. */
long xmpi_monitor_iterations(const struct xmpi_ctx *cx);
/* Number of the last interval gathered (0 before the first). */
int xmpi_monitor_interval_index(const struct xmpi_ctx *cx);
/* A spawned process counts on from its parents' iteration and interval numbers, so that
 * every member gathers the same intervals. */
void xmpi_monitor_join(struct xmpi_ctx *cx, long iterations, int interval_index);
/* The job's work source as new processes learn it (struct xmpi_join's papi): 1 PAPI counts,
 * 0 declared work, -1 not chosen yet (no monitored iteration). */
int xmpi_monitor_source_code(const struct xmpi_ctx *cx);
/* A spawned process takes its parents' source `code`: under PAPI it loads PAPI now; under
 * declared work it will neither load nor try it; -1 leaves the choice to its own first
 * monitored iteration. May be called again with a newer code. */
void xmpi_monitor_follow_source(struct xmpi_ctx *cx, int code);

#endif
