/* The trace: a CSV file written by rank 0 with one row per sampling interval.
 * Only stdio here; the columns are documented in README.md. */
#ifndef XMPIR_TRACE_H
#define XMPIR_TRACE_H

#include <stdio.h>
#include "options.h"
#include "interval.h"

/* The header row, without the newline. */
extern const char xmpi_trace_header[];

/* Opens (truncates) `path` and writes the header. NULL with a message in err. */
FILE *xmpi_trace_open(const char *path, char *err, size_t errlen);

/* Where the job's trace goes: rows to `part` while the job runs, renamed to `target` at the
 * end; `target` empty when the trace is written directly (a device or a pipe). */
struct xmpi_trace_dest {
    char target[XMPIR_PATH_MAX + 8];
    char part[XMPIR_PATH_MAX + 16];
};

/* The job's trace for --xmpi-trace=PATH: refuses a PATH (or PATH.part) that is the same file
 * as one of the `nin` input files (same device and inode, or the same canonical path for
 * files not there yet), a directory or a read-only file; a symbolic link to a file traces to
 * that file. Then opens PATH.part with the header (a device or a pipe: PATH itself).
 * NULL with one message in err naming --xmpi-trace (and the input's option). */
FILE *xmpi_trace_begin(const char *path, const struct xmpi_input_file *in, int nin,
                       struct xmpi_trace_dest *d, char *err, size_t errlen);

/* At the end of the job: closes f and renames the part into place. f NULL (closed after a
 * failed write) or a failed flush leaves the part where it is and the target as it was.
 * 0, or -1 with a message saying where the rows stay. */
int xmpi_trace_end(FILE *f, const struct xmpi_trace_dest *d, char *err, size_t errlen);

/* A job stopped before any work: closes f and removes the part, so that nothing changed. */
void xmpi_trace_discard(FILE *f, const struct xmpi_trace_dest *d);

/* The prediction model's columns of a row. */
struct xmpi_trace_model {
    const char *calibration;   /* "defaults" or the calibration file's path */
    int compared;              /* 1: this interval is the first whole one after an action,
                                * and the fields below compare the prediction with it */
    char predicted_for[16];    /* the action: "spawn" or "remove" */
    double pred_comp, meas_comp, pred_comm, meas_comm;
    double pred_reconf, meas_reconf, pred_redist, meas_redist;
    /* The malleability policy's columns (XMPI_Eval_reconfig): empty when nothing to say. */
    const char *policy;        /* "static", "smp", "hpmp" */
    char event[96];            /* what the resource manager said: "offer 2 local", "reclaim 1 fast" */
    char decision[32];         /* "spawn 1", "remove 1", "keep" */
    char why[256];             /* the policy's sentence (HPMP: with its predictions) */
    char classes[256];         /* processes per node class in this interval: "fast=2;slow=1" */
    double t_decide;           /* rank 0's seconds in the decide step (policy and balancer),
                                * written with the policy's columns */
    /* Cost accounting (cost.h), the last two columns: the interval's cost, from the previous
     * row's elapsed (MPI_Init for the first) to this row's, at the rate of the processes
     * that ran the interval, and the running total. costed 0 leaves both empty. */
    double cost_interval, cost_total;
    int costed;
    /* 1: the per-rank columns (t_real_ranks, t_cpu_ranks, work_ranks, comm_time_ranks) are
     * left empty, the interval's own columns written as ever: a job larger than
     * --xmpi-trace-ranks (4 x P numbers a row would be formatted on rank 0, docs/scale.md). */
    int no_ranks;
};

/* Writes one row for summary `s`; `source` and `action` are single words; m NULL leaves the
 * model's columns empty (and writes the per-rank columns). 0 or -1. */
int xmpi_trace_row(FILE *f, const struct xmpi_interval *s, const char *source,
                   const char *action, const struct xmpi_trace_model *m);

/* The work profile of an earlier run, from its trace (--xmpi-work-profile): row by row,
 * work_sum / iterations, the columns found by name in the header, so interval i of that run
 * gives (*out)[i - 1]. *out is malloc'ed with *n >= 1 entries. -1, with "FILE:LINE: ..." in
 * err and nothing allocated, for a header without those columns, a row with fewer fields, a
 * number that does not parse or is not finite, iterations <= 0, work < 0, no rows at all, or
 * a read error. */
int xmpi_trace_read_profile(FILE *f, const char *fname, double **out, int *n, char *err,
                            size_t errlen);

/* Appends to f the rows of the trace file `from` (its header line left out, and only when it
 * is a trace of this format): the rows of the launch before a relaunch. 0, or -1 when `from`
 * cannot be read or is not such a trace. */
int xmpi_trace_carry(FILE *f, const char *from);

#endif
