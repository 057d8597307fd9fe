/* Hockney-model costs of the MPI operations as MPICH implements them (FLEX-MPI thesis
 * Table 5.2; Thakur, Rabenseifner, Gropp 2005), with MPICH's switch points. No MPI here. */
#ifndef XMPIR_MODELS_HOCKNEY_H
#define XMPIR_MODELS_HOCKNEY_H

#include "../io/calibration.h"
#include "../io/interval.h"
#include "../io/status.h"

/* Error codes of the models/ modules: io/status.h's, under the models' names. */
enum {
    XMPIR_MODEL_OK = XMPIR_OK,
    XMPIR_MODEL_EARG = XMPIR_EARG,         /* NULL, p < 1, negative or non-finite bytes, ... */
    XMPIR_MODEL_ENODATA = XMPIR_ENODATA,   /* nothing measured yet to predict from */
    XMPIR_MODEL_ESTATE = XMPIR_ESTATE,     /* the model has not observed the interval asked */
    XMPIR_MODEL_ENOMEM = XMPIR_ENOMEM,
};


/* MPICH's algorithm switch points, in bytes, as its defaults ship (MPIR_CVAR_* of MPICH
 * 3.x/4.x, e.g. src/util/cvar/mpich_cvars.c of 3.2; the selection logic of the intra-
 * communicator algorithms). The only place the model keeps them. */
#define XMPIR_MPICH_BCAST_SHORT_MSG 12288.0       /* MPIR_CVAR_BCAST_SHORT_MSG_SIZE: < binomial */
#define XMPIR_MPICH_BCAST_LONG_MSG 524288.0       /* MPIR_CVAR_BCAST_LONG_MSG_SIZE: >= ring allgather */
#define XMPIR_MPICH_BCAST_MIN_PROCS 8             /* MPIR_CVAR_BCAST_MIN_PROCS: fewer, binomial */
#define XMPIR_MPICH_ALLGATHER_SHORT_MSG 81920.0   /* MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE: total < Bruck */
#define XMPIR_MPICH_ALLGATHER_LONG_MSG 524288.0   /* MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE: total <, 2^k p: RD */
#define XMPIR_MPICH_REDUCE_SHORT_MSG 2048.0       /* MPIR_CVAR_REDUCE_SHORT_MSG_SIZE: <= binomial */
#define XMPIR_MPICH_ALLREDUCE_SHORT_MSG 2048.0    /* MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE: <= RD */
#define XMPIR_MPICH_ALLTOALL_SHORT_MSG 256.0      /* MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE: block <= Bruck */
#define XMPIR_MPICH_ALLTOALL_MEDIUM_MSG 32768.0   /* MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE: block <= isend */
#define XMPIR_MPICH_ALLTOALL_MIN_PROCS 8          /* Bruck only from 8 processes (alltoall.c) */

/* What n is for each operation: the profiler's bytes of one call on one rank (README,
 * "Communication profiling"), so that a record replays without conversion.
 *
 *   op                         n                                   algorithm(s)
 *   Send, Recv, Isend, Irecv   the message                         alpha + n beta
 *   Sendrecv                   bytes sent + bytes received         alpha + n/2 beta (duplex)
 *   Wait, Waitall              (0; their transfer is the post's)   0
 *   Barrier                    (0)                                 dissemination
 *   Bcast, Reduce, Allreduce   the buffer (whole message)          see Table 5.2
 *   Gather, Scatter            one rank's block (total = p n)      binomial
 *   Gatherv, Scatterv          one rank's block                    linear (MPICH's only one)
 *   Allgather                  one rank's block (total = p n)      RD / Bruck / ring
 *   Allgatherv                 the LARGEST block                   as Allgather
 *   Alltoall                   all one rank sends (block = n / p)  Bruck / isend / pairwise
 *   Alltoallv                  what the busiest rank sends or receives, to p - 1 peers
 *
 * log p is ceil(log2 p), the number of rounds. Collectives on one process cost 0.
 *
 * Every cost is non-decreasing in n: where one of MPICH's fixed switch points makes the
 * algorithm chosen for a larger message cheaper than the one chosen for n (it happens when
 * alpha/beta is smaller than the machine MPICH was tuned on), the cost is that of the
 * larger message. See hockney.c. */

/* The functions below return seconds, or a negative value for invalid arguments
 * (h NULL, p < 1, n < 0 or not finite, alpha/beta/gamma negative or not finite). */
double xmpi_hockney_p2p(const struct xmpi_hockney *h, double n);
double xmpi_hockney_sendrecv(const struct xmpi_hockney *h, double n);
double xmpi_hockney_barrier(const struct xmpi_hockney *h, int p);
double xmpi_hockney_bcast(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_scatter(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_gather(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_gatherv(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_scatterv(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_allgather(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_allgatherv(const struct xmpi_hockney *h, double nmax, int p);
double xmpi_hockney_reduce(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_allreduce(const struct xmpi_hockney *h, double n, int p);
double xmpi_hockney_alltoall(const struct xmpi_hockney *h, double n, int p);
/* nmax: bytes the busiest process sends or receives; peers: how many processes it
 * exchanges with (the profiler does not know: p - 1 then). 0 peers cost 0. */
double xmpi_hockney_alltoallv(const struct xmpi_hockney *h, double nmax, int peers);
/* An Allgather(v) of `total` bytes in all on p processes, more than h->cores: its messages one
 * after another, (p - 1) alpha + (p - 1) total beta; 0 where it is not crowded (cores 0, or
 * p <= cores). The price with the whole's bytes, where an Allgatherv's blocks are uneven and
 * the op's price takes the largest. */
double xmpi_hockney_crowded_gather(const struct xmpi_hockney *h, double total, int p);

/* The cost of one call of `op` (enum xmpi_op) with the profiler's bytes n on p processes:
 * 0 or XMPIR_MODEL_EARG (*cost untouched). */
int xmpi_hockney_op(const struct xmpi_hockney *h, int op, double n, int p, double *cost);

/* The name of the algorithm MPICH runs for (op, n, p), e.g. "binomial",
 * "scatter+ring-allgather"; "none" for p == 1 or an op without transfer, NULL if invalid. */
const char *xmpi_hockney_algorithm(int op, double n, int p);

/* ceil(log2 p) for p >= 1 (0 for p <= 1). */
int xmpi_hockney_lg(int p);

#endif
