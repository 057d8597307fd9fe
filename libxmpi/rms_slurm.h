/* Slurm as the resource manager (--xmpi-rms=slurm): rank 0 asks Slurm's command-line tools, each
 * under a time limit, and grows and shrinks the job's allocation with them. Behind rms.c. */
#ifndef XMPIR_RMS_SLURM_H
#define XMPIR_RMS_SLURM_H

#include <stddef.h>

#include "../io/resources.h"
#include "xmpi.h"

struct xmpi_ctx;
struct xmpi_rms_slurm;   /* rank 0's view of the job's allocation */

/* The pool when --xmpi-resources gives none: the nodes of the job's partition, each with its
 * CPUs, class its first feature (else the partition's name), cost 1. -1 with a message. */
int xmpi_rms_slurm_pool(struct xmpi_ctx *cx, struct xmpi_pool *pool, char *err, size_t errlen);
/* After the initial placement: finds the job (SLURM_JOB_ID), checks that the initial processes
 * run on its nodes, and bounds the pool to what the job holds. -1 with a message. */
int xmpi_rms_slurm_start(struct xmpi_ctx *cx, char *err, size_t errlen);
void xmpi_rms_slurm_stop(struct xmpi_ctx *cx);
/* "Slurm job N", for messages. */
const char *xmpi_rms_slurm_label(const struct xmpi_ctx *cx);
/* What Slurm asks now (at most one look a second; between looks, nothing): XMPI_SUCCESS, or
 * XMPI_ERR_RMS with err when Slurm cannot be asked. */
int xmpi_rms_slurm_poll(struct xmpi_ctx *cx, XMPI_System_status *st, char *err, size_t errlen);
/* Before placing n new processes: grows the allocation onto idle nodes when the job's own
 * CPUs are not enough. XMPI_ERR_SPAWN with why when Slurm refuses. */
int xmpi_rms_slurm_acquire(struct xmpi_ctx *cx, char *const cls[], int n, char *why, size_t len);
/* Choosing n processes to remove: the spawned ones on the nodes Slurm takes back first. 1 with
 * the ranks (increasing) when n were found there, else 0. */
int xmpi_rms_slurm_pick_remove(const struct xmpi_ctx *cx, char *const cls[], int n, int *ranks);
/* After a removal from pool entries `hosts`: gives the nodes it emptied back to Slurm. */
void xmpi_rms_slurm_removed(struct xmpi_ctx *cx, const int *hosts, int n);

#endif
