/* Plain structs describing one sampling interval: per-operation communication
 * statistics, one record per rank, and the summary every rank holds. No MPI here. */
#ifndef XMPIR_MODELS_INTERVAL_H
#define XMPIR_MODELS_INTERVAL_H

#include <stddef.h>

/* Profiled MPI operations. The order is the trace's and the model's; append only. */
enum xmpi_op {
    XMPIR_OP_SEND, XMPIR_OP_RECV, XMPIR_OP_ISEND, XMPIR_OP_IRECV, XMPIR_OP_SENDRECV,
    XMPIR_OP_WAIT, XMPIR_OP_WAITALL,
    XMPIR_OP_BARRIER, XMPIR_OP_BCAST, XMPIR_OP_REDUCE, XMPIR_OP_ALLREDUCE,
    XMPIR_OP_GATHER, XMPIR_OP_GATHERV, XMPIR_OP_SCATTER, XMPIR_OP_SCATTERV,
    XMPIR_OP_ALLGATHER, XMPIR_OP_ALLGATHERV, XMPIR_OP_ALLTOALL, XMPIR_OP_ALLTOALLV,
    XMPIR_OP_COUNT
};

/* "MPI_Send", ... ; NULL for an out-of-range op. */
const char *xmpi_op_name(int op);

/* Buffers a process keeps for its next move, at most (libxmpi/registry.h XMPIR_SPARES). */
#define XMPIR_SPARE_SLOTS 8

/* Statistics of one operation type. Doubles so a whole record travels as one
 * MPI_DOUBLE array; integers stay exact below 2^53. */
struct xmpi_opstat {
    double calls;   /* number of calls */
    double bytes;   /* payload bytes, as defined per operation in profile.c */
    double time;    /* seconds spent inside the MPI call */
    double procs;   /* sum over calls of the communicator size (mean = procs / calls) */
};

/* What one rank measured over a span of iterations (one iteration or one interval). */
struct xmpi_rank_record {
    double iterations;   /* monitored iterations in the span */
    double t_real;       /* wall-clock seconds inside monitored iterations */
    double t_cpu;        /* process CPU seconds inside monitored iterations */
    double work;         /* work units (PAPI count of the first event, or declared FLOP) */
    double work_papi;    /* 1 when `work` came from PAPI, 0 when declared */
    double comm_time;    /* seconds in profiled MPI calls inside monitored iterations */
    double comm_bytes;   /* bytes of those calls */
    double elapsed;      /* seconds since MPI_Init when the interval record was sent */
    struct xmpi_opstat op[XMPIR_OP_COUNT];
    /* Bytes of each buffer the process keeps from its moves for the next one
     * (--xmpi-redist-spare), 0 for an empty slot: set when the interval's record closes (an
     * iteration's record holds zeros), so that the model prices a move into that memory as
     * memory already mapped. */
    double spare[XMPIR_SPARE_SLOTS];
};

#define XMPIR_RECORD_DOUBLES (sizeof(struct xmpi_rank_record) / sizeof(double))

/* The summary of one sampling interval, identical on every rank. */
struct xmpi_interval {
    int index;                 /* 1 for the first interval */
    long iteration;            /* monitored iterations completed at the interval's end */
    int nprocs;
    double iterations;         /* iterations in this interval (max over ranks) */
    double t_real_max, t_real_min, t_real_sum;
    double t_cpu_max, t_cpu_sum;
    double work_sum;
    int work_source_mixed;     /* ranks disagree on PAPI vs declared work */
    double comm_time_max, comm_bytes_sum;
    struct xmpi_opstat op[XMPIR_OP_COUNT];   /* summed over ranks */
    const struct xmpi_rank_record *ranks;   /* nprocs records, rank order; not owned. At
                                             * run time rank 0's alone (NULL elsewhere) */
    double elapsed;            /* seconds since MPI_Init at the interval's end (max over ranks) */
};

void xmpi_record_clear(struct xmpi_rank_record *r);
/* r += d, every field but the spares (left as r has them) */
void xmpi_record_add(struct xmpi_rank_record *r, const struct xmpi_rank_record *d);
/* out = a - b for each operation (a later snapshot minus an earlier one). */
void xmpi_opstat_diff(struct xmpi_opstat *out, const struct xmpi_opstat *a,
                      const struct xmpi_opstat *b);

/* Fills the aggregates of `out` from nprocs >= 1 per-rank records; keeps `ranks`
 * as out->ranks. index and iteration are left to the caller. */
void xmpi_interval_reduce(struct xmpi_interval *out, const struct xmpi_rank_record *ranks,
                          int nprocs);

/* (max - min) / max of the ranks' wall times; 0 when max is 0. */
double xmpi_interval_imbalance(const struct xmpi_interval *s);

#endif
