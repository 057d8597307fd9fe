/* MPICH's algorithm choice per collective and the Hockney cost of each algorithm,
 * with the monotone envelope over the switch points. Pure functions. */
#include "hockney.h"

#include <math.h>
#include <stddef.h>

enum alg {
    ALG_NONE,
    ALG_P2P,
    ALG_SENDRECV,
    ALG_BARRIER,
    ALG_BCAST_BINOMIAL,
    ALG_BCAST_SCATTER_RD,     /* scatter + recursive-doubling allgather */
    ALG_BCAST_SCATTER_RING,   /* van de Geijn: scatter + ring allgather */
    ALG_GATHER_BINOMIAL,      /* Gather and Scatter */
    ALG_LINEAR,               /* Gatherv and Scatterv */
    ALG_AG_RD,
    ALG_AG_BRUCK,
    ALG_AG_RING,
    ALG_REDUCE_BINOMIAL,
    ALG_RABENSEIFNER,         /* reduce-scatter + gather (Reduce) or + allgather (Allreduce) */
    ALG_ALLREDUCE_RD,
    ALG_A2A_BRUCK,
    ALG_A2A_ISEND,            /* all isends/irecvs posted, throttled */
    ALG_A2A_PAIRWISE,
    ALG_A2AV,
};

static const char *const alg_names[] = {
    [ALG_NONE] = "none",
    [ALG_P2P] = "point-to-point",
    [ALG_SENDRECV] = "sendrecv",
    [ALG_BARRIER] = "dissemination",
    [ALG_BCAST_BINOMIAL] = "binomial",
    [ALG_BCAST_SCATTER_RD] = "scatter+recursive-doubling-allgather",
    [ALG_BCAST_SCATTER_RING] = "scatter+ring-allgather",
    [ALG_GATHER_BINOMIAL] = "binomial",
    [ALG_LINEAR] = "linear",
    [ALG_AG_RD] = "recursive-doubling",
    [ALG_AG_BRUCK] = "bruck",
    [ALG_AG_RING] = "ring",
    [ALG_REDUCE_BINOMIAL] = "binomial",
    [ALG_RABENSEIFNER] = "rabenseifner",
    [ALG_ALLREDUCE_RD] = "recursive-doubling",
    [ALG_A2A_BRUCK] = "bruck",
    [ALG_A2A_ISEND] = "isend-irecv",
    [ALG_A2A_PAIRWISE] = "pairwise-exchange",
    [ALG_A2AV] = "isend-irecv",
};

int xmpi_hockney_lg(int p)
{
    int lg = 0;
    for (long long q = 1; q < p; q <<= 1) lg++;
    return lg;
}

static int is_pof2(int p)
{
    return p > 0 && (p & (p - 1)) == 0;
}

static int params_ok(const struct xmpi_hockney *h)
{
    return h && isfinite(h->alpha) && isfinite(h->beta) && isfinite(h->gamma) &&
           h->alpha >= 0 && h->beta >= 0 && h->gamma >= 0;
}

static int bytes_ok(double n)
{
    return isfinite(n) && n >= 0;
}

/* n in the unit of the op (hockney.h's table), p >= 2 unless the algorithm ignores p. */
static double alg_cost(enum alg a, const struct xmpi_hockney *h, double n, int p)
{
    const double al = h->alpha, be = h->beta, ga = h->gamma;
    const double lg = xmpi_hockney_lg(p), q = p, frac = (q - 1) / q;
    switch (a) {
    case ALG_NONE: return 0;
    case ALG_P2P: return al + n * be;
    /* Both directions share the call and travel at once (full duplex). */
    case ALG_SENDRECV: return al + n / 2 * be;
    case ALG_BARRIER: return lg * al;
    case ALG_BCAST_BINOMIAL: return lg * (al + n * be);
    case ALG_BCAST_SCATTER_RD: return 2 * lg * al + 2 * frac * n * be;
    case ALG_BCAST_SCATTER_RING: return (lg + q - 1) * al + 2 * frac * n * be;
    /* n is one block: (p-1)/p of the p n bytes of the whole. */
    case ALG_GATHER_BINOMIAL: return lg * al + (q - 1) * n * be;
    /* The root posts one receive (send) per other process, and all its bytes pass it. */
    case ALG_LINEAR: return (q - 1) * al + (q - 1) * n * be;
    case ALG_AG_RD:
    case ALG_AG_BRUCK: return lg * al + (q - 1) * n * be;
    case ALG_AG_RING: return (q - 1) * al + (q - 1) * n * be;
    case ALG_REDUCE_BINOMIAL: return lg * (al + n * be + n * ga);
    case ALG_RABENSEIFNER: return 2 * lg * al + 2 * frac * n * be + frac * n * ga;
    case ALG_ALLREDUCE_RD: return lg * al + n * lg * be + n * lg * ga;
    /* n is all one process sends; Bruck forwards about half of it in each of lg p rounds. */
    case ALG_A2A_BRUCK: return lg * al + n / 2 * lg * be;
    /* The Hockney model has no contention, so posting everything at once and exchanging
     * in p - 1 ordered steps cost the same: one message and n bytes per other process. */
    case ALG_A2A_ISEND:
    case ALG_A2A_PAIRWISE: return (q - 1) * al + n * be;
    case ALG_A2AV: return (q - 1) * al + n * be;
    }
    return 0;
}

/* MPICH's choice for (op, n, p), p >= 2; the conditions are MPICH's, strict or not. */
static enum alg select_alg(int op, double n, int p)
{
    double total;
    switch (op) {
    case XMPIR_OP_SEND:
    case XMPIR_OP_RECV:
    case XMPIR_OP_ISEND:
    case XMPIR_OP_IRECV: return ALG_P2P;
    case XMPIR_OP_SENDRECV: return ALG_SENDRECV;
    case XMPIR_OP_WAIT:
    case XMPIR_OP_WAITALL: return ALG_NONE;
    case XMPIR_OP_BARRIER: return ALG_BARRIER;
    case XMPIR_OP_BCAST:
        if (n < XMPIR_MPICH_BCAST_SHORT_MSG || p < XMPIR_MPICH_BCAST_MIN_PROCS)
            return ALG_BCAST_BINOMIAL;
        if (n < XMPIR_MPICH_BCAST_LONG_MSG && is_pof2(p)) return ALG_BCAST_SCATTER_RD;
        return ALG_BCAST_SCATTER_RING;
    case XMPIR_OP_GATHER:
    case XMPIR_OP_SCATTER: return ALG_GATHER_BINOMIAL;
    case XMPIR_OP_GATHERV:
    case XMPIR_OP_SCATTERV: return ALG_LINEAR;
    case XMPIR_OP_ALLGATHER:
    case XMPIR_OP_ALLGATHERV:
        total = n * p;   /* MPICH decides on the bytes every process ends up with */
        if (total < XMPIR_MPICH_ALLGATHER_LONG_MSG && is_pof2(p)) return ALG_AG_RD;
        if (total < XMPIR_MPICH_ALLGATHER_SHORT_MSG) return ALG_AG_BRUCK;
        return ALG_AG_RING;
    case XMPIR_OP_REDUCE:
        return n <= XMPIR_MPICH_REDUCE_SHORT_MSG ? ALG_REDUCE_BINOMIAL : ALG_RABENSEIFNER;
    case XMPIR_OP_ALLREDUCE:
        return n <= XMPIR_MPICH_ALLREDUCE_SHORT_MSG ? ALG_ALLREDUCE_RD : ALG_RABENSEIFNER;
    case XMPIR_OP_ALLTOALL: {
        double block = n / p;   /* MPICH decides on the bytes per destination */
        if (block <= XMPIR_MPICH_ALLTOALL_SHORT_MSG && p >= XMPIR_MPICH_ALLTOALL_MIN_PROCS)
            return ALG_A2A_BRUCK;
        if (block <= XMPIR_MPICH_ALLTOALL_MEDIUM_MSG) return ALG_A2A_ISEND;
        return ALG_A2A_PAIRWISE;
    }
    case XMPIR_OP_ALLTOALLV: return ALG_A2AV;
    }
    return ALG_NONE;
}

/* Where, in the op's n, a different algorithm may take over (for p processes). */
static int switch_points(int op, int p, double *t)
{
    switch (op) {
    case XMPIR_OP_BCAST:
        t[0] = XMPIR_MPICH_BCAST_SHORT_MSG;
        t[1] = XMPIR_MPICH_BCAST_LONG_MSG;
        return 2;
    case XMPIR_OP_ALLGATHER:
    case XMPIR_OP_ALLGATHERV:
        t[0] = XMPIR_MPICH_ALLGATHER_SHORT_MSG / p;
        t[1] = XMPIR_MPICH_ALLGATHER_LONG_MSG / p;
        return 2;
    case XMPIR_OP_REDUCE: t[0] = XMPIR_MPICH_REDUCE_SHORT_MSG; return 1;
    case XMPIR_OP_ALLREDUCE: t[0] = XMPIR_MPICH_ALLREDUCE_SHORT_MSG; return 1;
    case XMPIR_OP_ALLTOALL:
        t[0] = XMPIR_MPICH_ALLTOALL_SHORT_MSG * p;
        t[1] = XMPIR_MPICH_ALLTOALL_MEDIUM_MSG * p;
        return 2;
    }
    return 0;
}

static int is_collective(int op)
{
    return op >= XMPIR_OP_BARRIER && op < XMPIR_OP_COUNT;
}

/* MPICH's fixed switch points were tuned for one machine; with another alpha/beta the
 * algorithm it picks just below a switch point can cost more, in this model, than the
 * one it picks just above. A policy must never see a configuration get cheaper because
 * it sends more, so the cost is the least over all sizes >= n: the chosen algorithm at n,
 * or any later algorithm at the start of its range (each algorithm alone grows with n).
 * Where the jumps go up, as with the thesis's cluster parameters, this is MPICH's cost. */
/* More processes than cores. Across Open MPI's TCP link between spawns, on 2 cores (a loop of
 * MPI_Allgather over 2 mpirun processes and 0-4 spawned ones, 16 KiB to 4 MiB in all): 1-4 MiB took 0.6 times the ping-pong's beta per byte of the whole on 2
 * processes, 2.1-2.5 times on 3 and 4, 6.2-6.4 times on 6, where the algorithms price
 * (p - 1)/p of it. CG's communication per iteration, every class at full speed, grew with
 * p - 1 at one rate per byte of its vector: 1.4 ms on 4 processes and 2.5 ms on 6 for a
 * 1 MB vector, 0.12 ms on 2 of one spawn. With more processes than cores, the bytes each
 * process receives wait for the cores the others' transfers hold. The price is then that of
 * every process's messages one after another: a message per other process, (p - 1) alpha,
 * and all that the processes receive, p (p - 1) n beta for blocks of n. It is never below
 * the algorithms' own (at most (p - 1) alpha + (p - 1) n beta). n is the op's, which for an
 * Allgatherv is the largest block (hockney.h): with uneven blocks this is a bound, and
 * xmpi_hockney_crowded_gather prices the bytes of the whole instead. */
static double crowded_allgather_floor(const struct xmpi_hockney *h, int op, double n, int p, double c)
{
    if (!(h->cores > 0) || !(p > h->cores) ||
        (op != XMPIR_OP_ALLGATHER && op != XMPIR_OP_ALLGATHERV))
        return c;
    double q = p;
    return (q - 1) * h->alpha + q * (q - 1) * n * h->beta;
}

double xmpi_hockney_crowded_gather(const struct xmpi_hockney *h, double total, int p)
{
    if (!params_ok(h) || !bytes_ok(total) || p < 1) return XMPIR_MODEL_EARG;
    if (!(h->cores > 0) || !(p > h->cores)) return 0;
    double q = p;
    return (q - 1) * h->alpha + (q - 1) * total * h->beta;
}

static double op_cost(const struct xmpi_hockney *h, int op, double n, int p)
{
    if (is_collective(op) && p == 1) return 0;
    double best = alg_cost(select_alg(op, n, p), h, n, p);
    double t[2];
    int nt = switch_points(op, p, t);
    for (int i = 0; i < nt; i++) {
        if (t[i] < n) continue;
        /* Just above t, whether MPICH's condition at t is strict or not. */
        double c = alg_cost(select_alg(op, nextafter(t[i], INFINITY), p), h, t[i], p);
        if (c < best) best = c;
    }
    return crowded_allgather_floor(h, op, n, p, best);
}

static double checked(const struct xmpi_hockney *h, int op, double n, int p)
{
    if (!params_ok(h) || !bytes_ok(n) || p < 1) return XMPIR_MODEL_EARG;
    return op_cost(h, op, n, p);
}

double xmpi_hockney_p2p(const struct xmpi_hockney *h, double n)
{
    return checked(h, XMPIR_OP_SEND, n, 2);
}

double xmpi_hockney_sendrecv(const struct xmpi_hockney *h, double n)
{
    return checked(h, XMPIR_OP_SENDRECV, n, 2);
}

double xmpi_hockney_barrier(const struct xmpi_hockney *h, int p)
{
    return checked(h, XMPIR_OP_BARRIER, 0, p);
}

double xmpi_hockney_bcast(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_BCAST, n, p);
}

double xmpi_hockney_scatter(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_SCATTER, n, p);
}

double xmpi_hockney_gather(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_GATHER, n, p);
}

double xmpi_hockney_gatherv(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_GATHERV, n, p);
}

double xmpi_hockney_scatterv(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_SCATTERV, n, p);
}

double xmpi_hockney_allgather(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_ALLGATHER, n, p);
}

/* Each step of the ring (and of the other two) waits for the block in flight, and
 * every block is in flight at some step, so the largest block paces them all: the
 * Allgather cost with that block is exact for even blocks and the bound for uneven ones. */
double xmpi_hockney_allgatherv(const struct xmpi_hockney *h, double nmax, int p)
{
    return checked(h, XMPIR_OP_ALLGATHERV, nmax, p);
}

double xmpi_hockney_reduce(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_REDUCE, n, p);
}

double xmpi_hockney_allreduce(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_ALLREDUCE, n, p);
}

double xmpi_hockney_alltoall(const struct xmpi_hockney *h, double n, int p)
{
    return checked(h, XMPIR_OP_ALLTOALL, n, p);
}

/* MPICH's Alltoallv posts nonblocking sends and receives for the nonzero counts only, so
 * transfers between disjoint pairs overlap and the busiest process sets the pace: one
 * latency per message it posts, and its bytes through its own link (full duplex, so the
 * larger of what it sends and receives). A repartition of rows mostly moves data between
 * neighbours, which a pairwise (p - 1)-step model would overcharge in latency. */
double xmpi_hockney_alltoallv(const struct xmpi_hockney *h, double nmax, int peers)
{
    if (!params_ok(h) || !bytes_ok(nmax) || peers < 0) return XMPIR_MODEL_EARG;
    if (peers == 0) return 0;
    return peers * h->alpha + nmax * h->beta;
}

int xmpi_hockney_op(const struct xmpi_hockney *h, int op, double n, int p, double *cost)
{
    if (!cost || op < 0 || op >= XMPIR_OP_COUNT) return XMPIR_MODEL_EARG;
    double c = checked(h, op, n, p);
    if (c < 0) return XMPIR_MODEL_EARG;
    *cost = c;
    return XMPIR_MODEL_OK;
}

const char *xmpi_hockney_algorithm(int op, double n, int p)
{
    if (op < 0 || op >= XMPIR_OP_COUNT || !bytes_ok(n) || p < 1) return NULL;
    if (is_collective(op) && p == 1) return alg_names[ALG_NONE];
    return alg_names[select_alg(op, n, p)];
}
