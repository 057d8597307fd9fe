/* Aggregation of per-rank interval records into the interval summary.
 * Pure functions over the plain structs of interval.h. */
#include "interval.h"

#include <stddef.h>
#include <string.h>

static const char *const op_names[XMPIR_OP_COUNT] = {
    "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Sendrecv",
    "MPI_Wait", "MPI_Waitall",
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce",
    "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv",
    "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
};

_Static_assert(sizeof(struct xmpi_rank_record) % sizeof(double) == 0,
               "a record must travel as a whole number of MPI_DOUBLEs");
_Static_assert(offsetof(struct xmpi_rank_record, spare) + XMPIR_SPARE_SLOTS * sizeof(double) ==
                   sizeof(struct xmpi_rank_record),
               "the spares close the record: xmpi_record_add stops before them");

const char *xmpi_op_name(int op)
{
    return op >= 0 && op < XMPIR_OP_COUNT ? op_names[op] : NULL;
}

void xmpi_record_clear(struct xmpi_rank_record *r)
{
    memset(r, 0, sizeof *r);
}

void xmpi_record_add(struct xmpi_rank_record *r, const struct xmpi_rank_record *d)
{
    /* The record is all doubles by construction (checked above), so add it as an array, up to
     * the spares: a snapshot set when the interval closes, not a sum (and 8 additions fewer
     * in the per-iteration monitor). */
    double *a = (double *)r;
    const double *b = (const double *)d;
    for (size_t i = 0; i < offsetof(struct xmpi_rank_record, spare) / sizeof(double); i++)
        a[i] += b[i];
}

void xmpi_opstat_diff(struct xmpi_opstat *out, const struct xmpi_opstat *a,
                      const struct xmpi_opstat *b)
{
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
        out[i].calls = a[i].calls - b[i].calls;
        out[i].bytes = a[i].bytes - b[i].bytes;
        out[i].time = a[i].time - b[i].time;
        out[i].procs = a[i].procs - b[i].procs;
    }
}

void xmpi_interval_reduce(struct xmpi_interval *out, const struct xmpi_rank_record *ranks,
                          int nprocs)
{
    out->nprocs = nprocs;
    out->ranks = ranks;
    out->iterations = out->t_real_max = out->t_real_sum = 0;
    out->t_cpu_max = out->t_cpu_sum = out->work_sum = 0;
    out->comm_time_max = out->comm_bytes_sum = out->elapsed = 0;
    out->t_real_min = nprocs > 0 ? ranks[0].t_real : 0;
    out->work_source_mixed = 0;
    memset(out->op, 0, sizeof out->op);

    for (int r = 0; r < nprocs; r++) {
        const struct xmpi_rank_record *x = &ranks[r];
        if (x->iterations > out->iterations) out->iterations = x->iterations;
        if (x->t_real > out->t_real_max) out->t_real_max = x->t_real;
        if (x->t_real < out->t_real_min) out->t_real_min = x->t_real;
        if (x->t_cpu > out->t_cpu_max) out->t_cpu_max = x->t_cpu;
        if (x->comm_time > out->comm_time_max) out->comm_time_max = x->comm_time;
        if (x->elapsed > out->elapsed) out->elapsed = x->elapsed;
        if (x->work_papi != ranks[0].work_papi) out->work_source_mixed = 1;
        out->t_real_sum += x->t_real;
        out->t_cpu_sum += x->t_cpu;
        out->work_sum += x->work;
        out->comm_bytes_sum += x->comm_bytes;
        for (int i = 0; i < XMPIR_OP_COUNT; i++) {
            out->op[i].calls += x->op[i].calls;
            out->op[i].bytes += x->op[i].bytes;
            out->op[i].time += x->op[i].time;
            out->op[i].procs += x->op[i].procs;
        }
    }
}

double xmpi_interval_imbalance(const struct xmpi_interval *s)
{
    return s->t_real_max > 0 ? (s->t_real_max - s->t_real_min) / s->t_real_max : 0;
}
