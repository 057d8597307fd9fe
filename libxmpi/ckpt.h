/* Checkpoint and restart of the registered structures (docs/checkpoint.md): collective MPI-IO
 * into one file per array in global row order, a manifest, atomic publication; and the
 * restart that fills the structures for any number of processes. An executor. */
#ifndef XMPIR_CHECKPOINT_H
#define XMPIR_CHECKPOINT_H

#include <stddef.h>
#include <stdio.h>

#include "../io/ckpt_manifest.h"
#include "../io/options.h"

struct xmpi_ctx;
struct xmpi_interval;

struct xmpi_ckpt_state {
    long long last_it;      /* rank 0: iteration and elapsed time of the last checkpoint */
    double last_t;
    int written;            /* checkpoints this process helped publish */
    int off;                /* inside MPI_Finalize: the program's buffers may be gone */
    int restarting;         /* --xmpi-restart: XMPI_Get_data loads the checkpoint */
    char restart_dir[XMPIR_PATH_MAX];
    struct xmpi_ckpt_manifest *manifest;   /* the restart's, on every process */
    /* rank 0: the last checkpoint this job wrote (its name, bytes and seconds) and the
     * restart's read; 0 when none */
    char last_leaf[256];
    double last_bytes, last_seconds;
    double read_bytes, read_seconds;
};

/* MPI_Init of a process mpirun started, rank 0: resolves --xmpi-restart and reads its
 * manifest; a message in err when it cannot. */
void xmpi_ckpt_check(struct xmpi_ctx *cx, char *err, size_t len);
/* Collective, after the options were agreed: every process learns the restart's manifest.
 * Returns 1 when the job restarts. */
int xmpi_ckpt_start(struct xmpi_ctx *cx);
/* The pipeline's checkpoint step at an interval end (collective): an automatic checkpoint
 * when --xmpi-checkpoint-every says it is due (skipped when the act step resized the job).
 * Returns 1 when one was written. */
int xmpi_ckpt_interval(struct xmpi_ctx *cx, const struct xmpi_interval *s);
/* Collective: an automatic checkpoint now, whatever --xmpi-checkpoint-every says (a resize by
 * checkpoint and restart); `call` names the caller in messages. An XMPI code, the same
 * everywhere; rank 0 has its name in last_leaf. */
int xmpi_ckpt_now(struct xmpi_ctx *cx, const char *call);
/* Rank 0: DIR/NAME replaced atomically by what fill(f, arg) writes (0 on success): written to
 * DIR/.NAME.tmp, synced, renamed, DIR synced. 0, or -1 with errno (nothing replaced). */
int xmpi_ckpt_publish_file(const char *dir, const char *name,
                           int (*fill)(FILE *, const void *), const void *arg);
/* XMPI_Checkpoint, wrapped in pipeline.c as every public call (an XMPI code). */
int xmpi_ckpt_call(const char *name);
/* XMPI_Get_data of a restarted process (collective): fills the registered structures; *it
 * the iteration to resume at. An XMPI code, the same everywhere; nothing loaded on error. */
int xmpi_ckpt_restore(struct xmpi_ctx *cx, long *it);
void xmpi_ckpt_free(struct xmpi_ctx *cx);

#endif
