/* The model's calibration: network (alpha, beta, gamma), spawn and remove costs per
 * process, measured power per node class; its text file, parser and writer. No MPI here. */
#ifndef XMPIR_MODELS_CALIBRATION_H
#define XMPIR_MODELS_CALIBRATION_H

#include <stddef.h>
#include <stdio.h>

#include "resources.h"

/* File format, one setting per line, '#' starts a comment, blank lines are skipped:
 *
 *   alpha SECONDS            latency of one message                  0 .. 1
 *   beta SECONDS             transfer time per byte                  0 .. 1e-3
 *   gamma SECONDS            reduction time per byte                 0 .. 1e-3
 *   spawn_single SECONDS     spawn cost per process, one per spawn   0 .. 3600
 *   spawn_group SECONDS      spawn cost per process, one group       0 .. 3600
 *   remove SECONDS           remove cost per process                 0 .. 3600
 *   remove_procs N           processes of the job that `remove` was    0 .. 1000000, whole
 *                            measured on, before the removal (0: not known); a removal
 *                            is then priced by the job's size (predict.c)
 *   spawn_join SECONDS       what an asynchronous spawn costs the job  0 .. 3600
 *                            per process: the join at an interval end
 *                            (the spawn itself runs beside the computation)
 *   spawn_lag SECONDS        what a spawn costs the job beyond itself,  0 .. 3600
 *                            per spawn: the new processes' first interval
 *                            slower than the next, and the intervals an
 *                            asynchronous spawn runs beside
 *   copy SECONDS             writing a byte into freshly allocated memory 0 .. 1e-3
 *                            (a redistribution fills new buffers)
 *   copy_contention G        copy grows by G x copy for every other    0 .. 100
 *                            process filling fresh memory at the same time
 *   touch SECONDS            a process's first read of a byte that an   0 .. 1e-3
 *                            MPI receive wrote into fresh memory
 *   alpha_spawned SECONDS    alpha and beta of the link between processes that different
 *   beta_spawned SECONDS     spawns started (Open MPI connects them over TCP even on one
 *                            host); same ranges as alpha and beta
 *   power CLASS WORK_PER_S   work per second of one process of CLASS, > 0 (at most
 *                            XMPIR_CAL_CLASSES_MAX classes, each once)
 *
 * and the lines xmpi-spawnbench writes, so that its output is a calibration file as is:
 *
 *   spawn|remove|raw MODE K SECONDS_PER_PROCESS      (MODE single or group, K >= 1)
 *
 * spawn_MODE is then the mean over that mode's spawn lines, remove the mean over all
 * remove lines, and raw lines (plain MPI, for comparison) are read and not used. A key
 * line wins over benchmark lines. Each key appears at most once. Numbers are decimal,
 * with an optional fraction and exponent. */

/* One link as the Hockney model sees it (models/hockney.c prices with it): a message of n
 * bytes between two processes takes alpha + n * beta; reducing n bytes locally takes n * gamma. */
struct xmpi_hockney {
    double alpha;   /* seconds per message (latency) */
    double beta;    /* seconds per byte transferred */
    double gamma;   /* seconds per byte reduced */
    double copy;    /* seconds per byte written into freshly allocated memory (page faults
                     * included); only the redistribution uses it (0: not counted) */
    double copy_contention;   /* copy grows by this share for every other process filling
                               * fresh memory at the same time (0: they do not disturb) */
    double touch;   /* seconds per byte a process first reads of memory an MPI receive filled
                     * (a page fault each under shadow paging; 0: not counted) */
    double cores;   /* the cores the processes share (0: not considered). An Allgather(v) of
                     * more processes than cores moves its messages one after another: it
                     * costs at least (p - 1) alpha + p (p - 1) n beta (hockney.c says where
                     * this was measured) */
};

#define XMPIR_CAL_CLASSES_MAX 64

/* The defaults, measured by xmpi-calibrate and make bench-spawn on 2 cores, Open MPI 4.1.4,
 * shared memory: calibration.c says how. */
#define XMPIR_CAL_DEFAULT_ALPHA 5.0e-7
#define XMPIR_CAL_DEFAULT_BETA 3.7e-10
#define XMPIR_CAL_DEFAULT_GAMMA 2.6e-10
#define XMPIR_CAL_DEFAULT_SPAWN_SINGLE 0.32
#define XMPIR_CAL_DEFAULT_SPAWN_GROUP 0.12
#define XMPIR_CAL_DEFAULT_REMOVE 0.010
#define XMPIR_CAL_DEFAULT_SPAWN_JOIN 0.008
#define XMPIR_CAL_DEFAULT_SPAWN_LAG 0.3
#define XMPIR_CAL_DEFAULT_COPY 4.4e-10
#define XMPIR_CAL_DEFAULT_ALPHA_SPAWNED 7.0e-6
#define XMPIR_CAL_DEFAULT_BETA_SPAWNED 2.5e-10

/* Bits of the keys a parse left at their default. */
enum {
    XMPIR_CAL_ALPHA = 1 << 0,
    XMPIR_CAL_BETA = 1 << 1,
    XMPIR_CAL_GAMMA = 1 << 2,
    XMPIR_CAL_SPAWN_SINGLE = 1 << 3,
    XMPIR_CAL_SPAWN_GROUP = 1 << 4,
    XMPIR_CAL_REMOVE = 1 << 5,
    XMPIR_CAL_ALPHA_SPAWNED = 1 << 6,
    XMPIR_CAL_BETA_SPAWNED = 1 << 7,
    XMPIR_CAL_COPY = 1 << 8,
    XMPIR_CAL_SPAWN_JOIN = 1 << 9,
    XMPIR_CAL_SPAWN_LAG = 1 << 10,
    XMPIR_CAL_REMOVE_PROCS = 1 << 11,
    XMPIR_CAL_COPY_CONTENTION = 1 << 12,
    XMPIR_CAL_TOUCH = 1 << 13,
    XMPIR_CAL_ALL = (1 << 14) - 1,
};

struct xmpi_cal_class {
    char name[XMPIR_NAME_MAX];
    double power;   /* work units per second of one process */
};

struct xmpi_calibration {
    struct xmpi_hockney net;
    /* The link between processes of different spawns (and mpirun's): alpha and beta measured
     * across it; gamma and copy are the net's. */
    struct xmpi_hockney spawned;
    double spawn_single;   /* seconds per process, one MPI_Comm_spawn each */
    double spawn_group;    /* seconds per process, all in one MPI_Comm_spawn */
    double remove;         /* seconds per process */
    double remove_procs;   /* the job's processes before the removal `remove` timed; 0: unknown */
    double spawn_join;     /* seconds per process an asynchronous spawn costs the job */
    double spawn_lag;      /* seconds per spawn the job loses after and beside it */
    int nclasses;
    struct xmpi_cal_class cls[XMPIR_CAL_CLASSES_MAX];
};

void xmpi_calibration_defaults(struct xmpi_calibration *c);

/* Reads a calibration file. Keys missing from it keep their defaults and are flagged in
 * *defaulted (may be NULL). On error returns -1 with "FILE:LINE: ..." in err and leaves *c
 * unchanged; 0 on success. */
int xmpi_calibration_parse(struct xmpi_calibration *c, FILE *f, const char *fname,
                           unsigned *defaulted, char *err, size_t errlen);
/* Opens and parses `path`. */
int xmpi_calibration_load(struct xmpi_calibration *c, const char *path, unsigned *defaulted,
                          char *err, size_t errlen);
/* Writes every key and power line, with comments, in a form the parser reads back to the
 * same values. 0, or -1 on a write error. */
int xmpi_calibration_write(const struct xmpi_calibration *c, FILE *f);

/* "alpha, remove": the key names of the bits in `defaulted`, "" for none. */
void xmpi_calibration_defaulted_names(unsigned defaulted, char *buf, size_t len);
/* The power listed for class `name`, or 0. */
double xmpi_calibration_power(const struct xmpi_calibration *c, const char *name);

#endif
