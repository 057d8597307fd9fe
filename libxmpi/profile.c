/* PMPI wrappers for point-to-point and collective operations: each call is
 * timed and counted by type, bytes and communicator size, then passed on. */
#include <mpi.h>

#include "context.h"
#include "profile.h"
#include "xmpi.h"

/* The clock at the entry of a call. Under an emulated speed by dilation, the computation
 * since the last call is first stretched (a sleep), so that the call starts when a slower
 * processor would have reached it. */
static inline double enter(void)
{
    double t = PMPI_Wtime();
    struct xmpi_emulation *em = &xmpi_ctx->emu;
    return em->dilate ? xmpi_emulate_settle(em, t) : t;
}

/* Hot path: no allocation, no locks, no I/O; two clock reads and a few adds. */
static inline void account(enum xmpi_op op, double bytes, double t0, MPI_Comm comm)
{
    double now = PMPI_Wtime(), t = now - t0;
    xmpi_emulate_resume(&xmpi_ctx->emu, now);
    int p = 0;
    if (comm != MPI_COMM_NULL) PMPI_Comm_size(comm, &p);
    struct xmpi_opstat *s = &xmpi_ctx->profile[op];
    s->calls += 1;
    s->bytes += bytes;
    s->time += t;
    s->procs += p;
    /* --xmpi-otf2: the call as a region of this process's location. */
    if (xmpi_ctx->otf2.on) xmpi_otf2_mpi(xmpi_ctx, op, t0, now);
}

static inline double nbytes(double count, MPI_Datatype type)
{
    int size = 0;
    if (count > 0 && type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
    return count * size;
}

static inline int my_rank(MPI_Comm comm)
{
    int r = -1;
    PMPI_Comm_rank(comm, &r);
    return r;
}

static inline int comm_size(MPI_Comm comm)
{
    int p = 0;
    PMPI_Comm_size(comm, &p);
    return p;
}

static inline double sum_counts(const int *counts, int n)
{
    double s = 0;
    for (int i = 0; counts && i < n; i++) s += counts[i];
    return s;
}

/* Bytes actually received, from the status; falls back to the posted size. */
static inline double received(const MPI_Status *st, int count, MPI_Datatype type)
{
    int n = MPI_UNDEFINED;
    if (PMPI_Get_count(st, type, &n) != MPI_SUCCESS || n == MPI_UNDEFINED) n = count;
    return nbytes(n, type);
}

/* ---- point to point: bytes sent (Send, Isend), received (Recv), posted (Irecv) */

XMPI_PUBLIC int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    double t0 = enter();
    int rc = PMPI_Send(buf, count, type, dest, tag, comm);
    account(XMPIR_OP_SEND, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    double t0 = enter();
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    account(XMPIR_OP_RECV, rc == MPI_SUCCESS ? received(st, count, type) : 0, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    double t0 = enter();
    int rc = PMPI_Isend(buf, count, type, dest, tag, comm, req);
    account(XMPIR_OP_ISEND, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    double t0 = enter();
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    account(XMPIR_OP_IRECV, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                 MPI_Comm comm, MPI_Status *status)
{
    MPI_Status local;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    double t0 = enter();
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, st);
    double b = nbytes(scount, stype) + (rc == MPI_SUCCESS ? received(st, rcount, rtype) : 0);
    account(XMPIR_OP_SENDRECV, b, t0, comm);
    return rc;
}

/* Completion calls carry no bytes: those were counted when the request was posted. */
XMPI_PUBLIC int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    double t0 = enter();
    int rc = PMPI_Wait(req, status);
    account(XMPIR_OP_WAIT, 0, t0, MPI_COMM_NULL);
    return rc;
}

XMPI_PUBLIC int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    double t0 = enter();
    int rc = PMPI_Waitall(n, reqs, statuses);
    account(XMPIR_OP_WAITALL, 0, t0, MPI_COMM_NULL);
    return rc;
}

/* ---- collectives: bytes are the message size m of the Hockney model as this
 * rank sees it: the buffer (Bcast, Reduce, Allreduce), this rank's block
 * (Gather(v), Scatter(v), Allgather(v)), or all it sends (Alltoall(v)). */

XMPI_PUBLIC int MPI_Barrier(MPI_Comm comm)
{
    double t0 = enter();
    int rc = PMPI_Barrier(comm);
    account(XMPIR_OP_BARRIER, 0, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    double t0 = enter();
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    account(XMPIR_OP_BCAST, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    double t0 = enter();
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    account(XMPIR_OP_REDUCE, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    double t0 = enter();
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    account(XMPIR_OP_ALLREDUCE, nbytes(count, type), t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    /* In place, the root's block is described by the receive arguments. */
    double b = sbuf == MPI_IN_PLACE ? nbytes(rcount, rtype) : nbytes(scount, stype);
    double t0 = enter();
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    account(XMPIR_OP_GATHER, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                MPI_Comm comm)
{
    double b = sbuf == MPI_IN_PLACE ? nbytes(rcounts[my_rank(comm)], rtype)
                                    : nbytes(scount, stype);
    double t0 = enter();
    int rc = PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    account(XMPIR_OP_GATHERV, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    double b = rbuf == MPI_IN_PLACE ? nbytes(scount, stype) : nbytes(rcount, rtype);
    double t0 = enter();
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    account(XMPIR_OP_SCATTER, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype stype,
                 void *rbuf, int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    double b = rbuf == MPI_IN_PLACE ? nbytes(scounts[my_rank(comm)], stype)
                                    : nbytes(rcount, rtype);
    double t0 = enter();
    int rc = PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    account(XMPIR_OP_SCATTERV, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    double b = sbuf == MPI_IN_PLACE ? nbytes(rcount, rtype) : nbytes(scount, stype);
    double t0 = enter();
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    account(XMPIR_OP_ALLGATHER, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rtype, MPI_Comm comm)
{
    double b = sbuf == MPI_IN_PLACE ? nbytes(rcounts[my_rank(comm)], rtype)
                                    : nbytes(scount, stype);
    double t0 = enter();
    int rc = PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    account(XMPIR_OP_ALLGATHERV, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    double p = comm_size(comm);
    double b = sbuf == MPI_IN_PLACE ? nbytes(p * rcount, rtype) : nbytes(p * scount, stype);
    double t0 = enter();
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    account(XMPIR_OP_ALLTOALL, b, t0, comm);
    return rc;
}

XMPI_PUBLIC int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype stype,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rtype,
                  MPI_Comm comm)
{
    int p = comm_size(comm);
    double b = sbuf == MPI_IN_PLACE ? nbytes(sum_counts(rcounts, p), rtype)
                                    : nbytes(sum_counts(scounts, p), stype);
    double t0 = enter();
    int rc = PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    account(XMPIR_OP_ALLTOALLV, b, t0, comm);
    return rc;
}

/* ---- for the Fortran module's wrappers (profile.h) ---------------------------------------- */

double xmpi_profile_enter(void)
{
    return enter();
}

void xmpi_profile_account(int op, double bytes, double t0, MPI_Comm comm)
{
    if (op >= 0 && op < XMPIR_OP_COUNT) account((enum xmpi_op)op, bytes, t0, comm);
}
