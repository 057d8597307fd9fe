/* Resizing a job by checkpoint and restart (--xmpi-resize, docs/checkpoint.md): the job
 * writes a checkpoint and the RESIZE record beside it, ends with exit status 75, and the
 * relauncher (tools/xmpi-resume) runs it again at the new size from that checkpoint. The
 * relaunched job goes on with the run's clock, AMP's goal and the cost account. An executor:
 * the policy decides (malleability.c), the pipeline calls it in its act step. */
#ifndef XMPIR_RELAUNCH_H
#define XMPIR_RELAUNCH_H

#include <stddef.h>

#include "../io/resize_record.h"
#include "../models/resize.h"

struct xmpi_ctx;
struct xmpi_interval;

struct xmpi_resize_rt {
    /* rank 0 */
    struct xmpi_resize_measured meas;     /* what was measured of the three parts */
    double bytes;                     /* the registered data's bytes (last checkpoint's) */
    int relaunched;                   /* this job is a resize's relaunch (its RESIZE matched) */
    struct xmpi_resize_record rec;    /* that record */
};

/* From the options alone (the same on every process): --xmpi-checkpoint, and
 * --xmpi-resize=restart or auto with --xmpi-relaunch. */
int xmpi_resize_possible(const struct xmpi_ctx *cx);
/* Rank 0, when the job can be relaunched: how many processes of class `cls` may leave (all of
 * them, as long as one process of the job stays). */
int xmpi_resize_removable(const struct xmpi_ctx *cx, const char *cls);
/* Rank 0 at MPI_Init, after xmpi_ckpt_check: --xmpi-resize=restart without
 * --xmpi-checkpoint is refused (err); a restart from the checkpoint a RESIZE record names
 * takes the record in (and removes the file, which served). */
void xmpi_resize_check(struct xmpi_ctx *cx, char *err, size_t len);
/* Collective at the end of MPI_Init of the processes mpirun started, when the job can resize
 * by checkpoint and restart: the start-up measured; for a relaunched job, the run's clock goes on (t0 moved back on every process) and rank 0
 * takes back AMP's goal, the cost account and the measured relaunch time. */
void xmpi_resize_start(struct xmpi_ctx *cx);
/* Rank 0: the predicted seconds of a resize by checkpoint and restart, -1 when it cannot be
 * priced yet (no checkpoint written by this run, no start-up measured). */
double xmpi_resize_price(const struct xmpi_ctx *cx);
/* Collective, the act step: writes the checkpoint the job is relaunched from. XMPI_SUCCESS,
 * or an error code (said on rank 0) with the job as it was. */
int xmpi_resize_prepare(struct xmpi_ctx *cx);
/* Collective, after the interval's row is recorded (so that the cost account holds it): the
 * RESIZE record for `nprocs` processes. XMPI_SUCCESS, or an error code (said on rank 0): the
 * job is not resized. */
int xmpi_resize_commit(struct xmpi_ctx *cx, int nprocs);
/* Collective, after xmpi_resize_commit: MPI_Finalize, then exit with status 75
 * (rank 0) or 0 (the others). */
void xmpi_resize_exit(struct xmpi_ctx *cx) __attribute__((noreturn));

#endif
