/* The job's OTF2 archive (--xmpi-otf2=DIR), for the readers of HPC performance tools (Vampir,
 * Score-P's otf2-print): every process records its computation, its profiled MPI calls and the
 * library's own work as regions on its own location, a process that joins later as a new
 * location; rank 0 makes the archive whole at MPI_Finalize. Built with libotf2 where it is
 * installed (XMPI_HAVE_OTF2); without it every hook does nothing and the option is refused at
 * start-up. */
#ifndef XMPIR_OTF2_H
#define XMPIR_OTF2_H

#include <stddef.h>

struct xmpi_ctx;
struct xmpi_otf2_writer;

/* The regions besides the profiled MPI calls (one region per operation of io/interval.h). */
enum xmpi_otf2_region {
    XMPIR_OTF2_COMPUTE = 0,   /* a monitored iteration: the program's computation, with its
                               * MPI calls nested (their time is not the region's own) */
    XMPIR_OTF2_INTERVAL,      /* an interval's end: measure, model, decide, act, record */
    XMPIR_OTF2_MOVE,          /* moving registered rows (rebalance, redistribution, hand-off) */
    XMPIR_OTF2_SPAWN,         /* starting and joining new processes */
    XMPIR_OTF2_REMOVE,        /* processes leaving the job */
    XMPIR_OTF2_CHECKPOINT,    /* writing a checkpoint */
    XMPIR_OTF2_NREGIONS
};

struct xmpi_otf2_rt {
    int on;                       /* this process records events: the PMPI wrappers' test */
    long ever;                    /* processes ever in the job (every member): the location
                                   * the next process to join takes */
    struct xmpi_otf2_writer *w;   /* this process's writer while it records */
};

/* Rank 0 at start-up, --xmpi-otf2 set: 0, or -1 with one message naming the option when this
 * build has no OTF2 or DIR cannot be the archive's (a file; a directory that holds other
 * files than an earlier archive; a parent that does not exist). Nothing is created. */
int xmpi_otf2_check(const struct xmpi_ctx *cx, char *err, size_t len);

/* The processes mpirun started, collectively over MPI_COMM_WORLD once the options are agreed:
 * each opens its location (its rank). Does nothing without --xmpi-otf2. */
void xmpi_otf2_start(struct xmpi_ctx *cx);

/* A region entered and left now, on this process; `what`, on rank 0, words the marker the
 * spawn, removal, move and checkpoint regions leave in the archive (NULL: their name). */
void xmpi_otf2_enter(struct xmpi_ctx *cx, enum xmpi_otf2_region r);
void xmpi_otf2_leave(struct xmpi_ctx *cx, enum xmpi_otf2_region r, const char *what);
/* The same at given clock readings (PMPI_Wtime), for the monitor's own. */
void xmpi_otf2_enter_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t);
void xmpi_otf2_leave_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t);
/* A profiled MPI call (enum xmpi_op) from t0 to t1: the hot path, called only when `on`. */
void xmpi_otf2_mpi(struct xmpi_ctx *cx, int op, double t0, double t1);

/* Collective over the new XMPI_COMM_WORLD after a merge of nnew processes, by every member:
 * `joined` is this process's index among the new ones (it opens its location then), -1 for
 * one that was there (it records the new size). */
void xmpi_otf2_merged(struct xmpi_ctx *cx, int nnew, int joined);
/* After a removal, on every process that took part: the staying ones record the new size,
 * the leaving ones close their location. */
void xmpi_otf2_removed(struct xmpi_ctx *cx);

/* Inside MPI_Finalize, collective over the members (a removed process only closes): every
 * location closes, then rank 0 writes the definitions and moves the events into DIR. */
void xmpi_otf2_finish(struct xmpi_ctx *cx);

#endif
