/* The load balancer at run time: the "decide" step of the interval pipeline for
 * XMPI_Eval_lbalance, feeding the interval summary and the program's blocks to the pure
 * balancer (policies/balance.c) and returning the new partition it asks for. */
#ifndef XMPIR_BALANCER_H
#define XMPIR_BALANCER_H

#include <stddef.h>

#include "../io/interval.h"
#include "../policies/balance.h"

struct xmpi_ctx;

struct xmpi_balance_rt {
    int nprocs;                   /* the job size the state describes */
    struct xmpi_balance_state st;
    double *costmap;              /* rank 0, --xmpi-lb=time: cost per row (balance.h) */
    int costmap_n;                /* its rows */
    int *prev;                    /* rank 0: the last interval's blocks (count, displ) and */
    double *prev_total;           /* totals, prev_p of each, for the map's next update */
    double *slow;                 /* and each rank's seconds per unit of cost (balance.h) */
    int prev_p;
};

/* What the program passed to the evaluation call (rank, nprocs, it, maxit as in
 * XMPI_Eval_lbalance; count/displ INOUT: this process's block). */
struct xmpi_app {
    int rank, nprocs, it, maxit;
    int *count, *displ;
    double *weight;
    int reconfig;                 /* XMPI_Eval_reconfig: the malleability policy decides too */
    char **argv;                  /* for the processes it spawns (NULL: as mpirun gave them) */
    const char *command;          /* (NULL: this program) */
};

/* Collective over XMPI_COMM_WORLD. XMPI_SUCCESS with *blocks NULL (keep the partition) or
 * a malloc'ed 2 * nprocs array (new counts, then displacements) to move to; otherwise the
 * same XMPI error on every process, with why on rank 0. */
int xmpi_balance_step(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                         const struct xmpi_app *app, int **blocks, char *why, size_t len);
/* The program's first evaluation call (XMPI_Eval_lbalance, XMPI_Eval_reconfig), collective:
 * does it hold what --xmpi-lb's policy needs (nnz: a registered distributed sparse matrix;
 * weight: a weight array on every process that holds rows)? Rank 0 decides from every
 * process's facts and names what is missing in one line; every process returns the same
 * code (XMPI_ERR_ARG when it is missing). Interval ends check the same at every call. */
int xmpi_balance_check(struct xmpi_ctx *cx, const struct xmpi_app *app);
/* The move the balancer asked for took `seconds` (the slowest process), `rebuild` of them the
 * program's rebuild after it (XMPI_Set_rebuild), which every later move pays again. */
void xmpi_balance_moved(struct xmpi_ctx *cx, double seconds, double rebuild);

/* Frees what the balancer keeps (inside MPI_Finalize). */
void xmpi_balance_free(struct xmpi_balance_rt *lb);

#endif
