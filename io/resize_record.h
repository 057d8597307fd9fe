/* The resize record (docs/checkpoint.md#resizing-by-checkpoint-and-restart): what a job that
 * resizes itself by checkpoint and restart leaves beside its checkpoints for the relauncher
 * (the new number of processes) and for the relaunched job (the run's clock, AMP's goal, the
 * cost so far and the measured costs of the way). Text, key value per line. Pure. */
#ifndef XMPIR_FORMATS_RESIZE_H
#define XMPIR_FORMATS_RESIZE_H

#include <stddef.h>
#include <stdio.h>

#define XMPIR_RESIZE_VERSION 1
#define XMPIR_RESIZE_FILE "RESIZE"
/* The exit status of a job that ends to be relaunched at another size (EX_TEMPFAIL). */
#define XMPIR_RESIZE_EXIT 75

struct xmpi_resize_record {
    int nprocs;              /* processes to relaunch with (>= 1) */
    int from;                /* processes that wrote it */
    char checkpoint[64];     /* the checkpoint's name in the directory (the relaunch's) */
    double elapsed;          /* seconds of the run (from its first MPI_Init) at the exit */
    double at;               /* wall clock at the exit, seconds since the epoch */
    double write_seconds;    /* the checkpoint's write, measured */
    double bytes;            /* its bytes */
    double start_seconds;    /* the last relaunch's gap (exit to the relaunched MPI_Init's
                              * end), measured; -1 unknown */
    double read_seconds;     /* the last restart's read, measured; -1 unknown */
    double amp_goal;         /* AMP's goal, seconds of the run; 0 none yet */
    double amp_static;       /* AMP's static estimate; 0 none */
    double cost_total;       /* the cost account (models/cost.h) at the exit */
    double cost_pe_seconds;
    double cost_first_rate;  /* -1 before any step */
};

int xmpi_resize_record_write(FILE *out, const struct xmpi_resize_record *r);
/* text: the whole file, NUL-terminated. 0, or -1 with one "FNAME:LINE: ... expected ..."
 * message. Every key once, in any order; an unknown key, a missing one, a value out of range
 * or a line after `end` is refused. */
int xmpi_resize_record_parse(const char *text, const char *fname, struct xmpi_resize_record *r,
                      char *err, size_t errlen);

#endif
