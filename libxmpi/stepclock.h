/* The library's own time per step of an interval end and of a reconfiguration, wall and CPU,
 * for make bench-scale: kept only when LIBXMPI_STEPCLOCK=1 is in the environment at MPI_Init
 * (else every step costs one branch), never on the per-iteration path. */
#ifndef XMPIR_STEPCLOCK_H
#define XMPIR_STEPCLOCK_H

/* The steps timed; the order is the benchmark's. */
enum xmpi_step {
    XMPIR_STEP_INTERVAL,   /* a whole interval end (xmpi_pipeline_interval_end) */
    XMPIR_STEP_GATHER,     /* measure: the records' collective and the summary */
    XMPIR_STEP_MODEL,      /* model: rank 0's prediction model observes the interval */
    XMPIR_STEP_POLICY,     /* decide: the malleability policy (XMPI_Eval_reconfig) */
    XMPIR_STEP_BALANCE,    /* decide: the load balancer */
    XMPIR_STEP_RECORD,     /* record: the trace row and the verbose line */
    XMPIR_STEP_PLAN,       /* a move before any data moves: descriptions, checks, buffers */
    XMPIR_STEP_MOVE,       /* a move: the data itself */
    XMPIR_STEP_VIEWS,      /* after a change: halo views and plans, layouts, the rebuild */
    XMPIR_STEP_SPAWN_MPI,  /* a spawn round's MPI part: MPI_Comm_spawn, connect, merge */
    XMPIR_STEP_REMOVE_MPI, /* a removal's MPI part: the group and the two communicators */
    XMPIR_STEP_COUNT
};

struct xmpi_stepclock {
    int on;                          /* LIBXMPI_STEPCLOCK=1 at MPI_Init */
    double calls[XMPIR_STEP_COUNT];  /* running totals since MPI_Init */
    double wall[XMPIR_STEP_COUNT];   /* seconds, PMPI_Wtime */
    double cpu[XMPIR_STEP_COUNT];    /* seconds of the calling thread's CPU time */
    double trace_bytes;              /* rank 0: bytes of trace rows written */
};

struct xmpi_ctx;

/* Reads the environment once (MPI_Init). */
void xmpi_step_init(struct xmpi_ctx *cx);
/* Marks the start of a step (mark: 2 doubles); nothing when the clock is off. */
void xmpi_step_begin(const struct xmpi_ctx *cx, double *mark);
/* Adds the time since `mark` to step `step`. */
void xmpi_step_end(struct xmpi_ctx *cx, enum xmpi_step step, const double *mark);
/* The running totals (what the benchmark reads; it links libxmpi.a). */
const struct xmpi_stepclock *xmpi_step_totals(void);
/* "gather", ...; NULL out of range. */
const char *xmpi_step_name(int step);

#endif
