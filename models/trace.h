/* The trace: a CSV file written by rank 0 with one row per sampling interval.
 * Only stdio here; the columns are documented in README.md. */
#ifndef XMPIR_TRACE_H
#define XMPIR_TRACE_H

#include <stdio.h>
#include "interval.h"

/* The header row, without the newline. */
extern const char xmpi_trace_header[];

/* Opens (truncates) `path` and writes the header. NULL with a message in err. */
FILE *xmpi_trace_open(const char *path, char *err, size_t errlen);

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
};

/* Writes one row for summary `s`; `source` and `action` are single words; m NULL leaves the
 * model's columns empty. 0 or -1. */
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

#endif
