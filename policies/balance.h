/* FLEX-MPI's dynamic load balancing decision (thesis Algorithm 5) as a pure function over one
 * interval's per-rank measurements: imbalance, dedicated PEs, bursts vs long-term load. */
#ifndef XMPIR_POLICIES_LBALANCE_H
#define XMPIR_POLICIES_LBALANCE_H

#include <stddef.h>

#define XMPIR_LB_KMAX 64

enum xmpi_balance_policy { XMPIR_LB_ROWS = 0, XMPIR_LB_NNZ, XMPIR_LB_WEIGHT, XMPIR_LB_TIME };

struct xmpi_balance_params {
    double th1;        /* imbalance threshold on (max - min) / max of compute times */
    double th2;        /* a PE is non-dedicated when (t_real - t_cpu) / t_real > th2 */
    int k;             /* intervals of non-dedicated running that make a long-term load */
    int whole_run;     /* 1: a move's saving counts over every remaining iteration (the time
                        * policy, whose later moves refine what the first learned); 0: over
                        * one interval at most */
};

/* What the balancer remembers between intervals. Zero it to start (a zero floor counts
 * as none). After carrying out a move, the caller sets `moved` and `move_cost`. */
struct xmpi_balance_state {
    unsigned char dedicated[XMPIR_LB_KMAX];   /* circular: 1 = every PE ran dedicated */
    long intervals;                          /* intervals evaluated */
    double move_cost;                        /* seconds of the last move (0: none yet) */
    double rebuild_cost;                     /* seconds of the program's rebuild after it
                                              * (XMPI_Set_rebuild): every move pays it again */
    int moved;                               /* the caller made the planned move: the next
                                              * interval shows what it achieved */
    double floor;                            /* imbalance the last move could not remove
                                              * (0: none) */
    double last;                             /* imbalance of the last interval assessed */
};

/* One interval, per rank (rank order), plus the current blocks. */
struct xmpi_balance_input {
    int nprocs, size;
    const double *t_real;      /* wall seconds in monitored iterations */
    const double *t_cpu;       /* CPU seconds in monitored iterations */
    const double *comm_time;   /* seconds in MPI calls inside them (NULL: 0) */
    const double *work;        /* work units (NULL, or all 0: the rows' weight is the work) */
    const int *count, *displ;  /* current blocks */
    const double *rowweight;   /* size weights for the nnz/weight policies; NULL: rows */
    const int *rank_class;     /* NULL, or a class id per rank: unmeasured ranks (new ones)
                                * take the mean power of measured ranks of their class */
    double iterations;         /* iterations in the interval */
    double remaining;          /* iterations left in the run (< 0: unknown) */
};

enum xmpi_balance_interference { XMPIR_LB_NONE = 0, XMPIR_LB_BURST, XMPIR_LB_LONG };

struct xmpi_balance_decision {
    int rebalance;            /* 1: move to count/displ below */
    int imbalanced;           /* (max - min) / max > th1 */
    int dedicated;            /* every PE ran dedicated this interval */
    int interference;         /* enum xmpi_balance_interference */
    double imbalance;         /* (max - min) / max of the compute times */
    double gain;              /* seconds the move is expected to save before the run ends
                               * or over one interval, whichever is less (whole_run: before
                               * the run ends) */
    char why[320];            /* one sentence for the verbose log */
};

/* Decides for one interval and updates the state. count/displ (nprocs each) receive the new
 * blocks when d->rebalance is set (contiguous, rank order, proportional to each rank's power:
 * its work over its compute time t_real - comm_time). Returns 0, or -1 for invalid input
 * (why says what), -2 when out of memory. */
int xmpi_balance_decide(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d,
                   int *count, int *displ);

/* The two halves of xmpi_balance_decide, for a caller that gathers row weights only when a move
 * is possible: assess records the interval in the state and returns 1 when imbalance calls
 * for a partition (0: no move, d says why; -1: invalid input); plan then fills count/displ
 * and d->rebalance (0, -1 or -2 as xmpi_balance_decide). */
int xmpi_balance_assess(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d);
int xmpi_balance_plan(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st,
                 const struct xmpi_balance_input *in, struct xmpi_balance_decision *d, int *count, int *displ);

/* --xmpi-lb=time: a cost per row learned from what each interval measured, for rows whose cost
 * is uneven. cost[0..n) holds one estimate per row (0: none yet), in the units of block_total:
 * each block [displ[i], displ[i] + count[i]) of the interval just measured cost block_total[i]
 * (its compute seconds, or its measured work when the program declares it or PAPI counts).
 * Rows that have estimates keep their relative costs, scaled so that the block sums to its
 * total: what earlier intervals learned about the shape inside a block survives, and a move
 * that splits a block refines it. A block without estimates gets its total spread evenly.
 * Passed as row weights with each rank's power (block total over compute time), the split equalizes the predicted compute times; with rows of one cost it is
 * the thesis's split. With the previous interval's blocks and totals (pcount, pdispl, ptotal;
 * NULL: none), a block that moved one end only tells what the rows it gave up or took cost:
 * the difference of its two totals; those rows take that cost and the rest of the block the
 * remainder, so that a step in the costs is found in a few moves.
 * slow (p values, in and out; NULL when the totals are measured work, whose power is known):
 * each rank's seconds per unit of cost, relative to rank 0's (start them at 1). When totals
 * are seconds, a slow processor's rows look costly; the rows that moved between two adjacent
 * blocks, timed on both ranks, tell how much slower one is than the other (the ratio of the two
 * blocks' differences, when both exceed a quarter of the block's time), and the map then holds
 * time on rank 0: passed as row weights with each rank's power (cost over time = 1 / slow),
 * the split gives a slow rank fewer rows from the second move on. Returns 0, -1 for invalid
 * input (blocks outside [0, n), a negative or non-finite total, a slowness not > 0), or -2
 * when out of memory. */
int xmpi_balance_costmap_observe(double *cost, int n, int p, const int *count, const int *displ,
                            const double *block_total, const int *pcount, const int *pdispl,
                            const double *ptotal, double *slow);

/* What each block cost in the interval, in the units the time policy learns: the measured work
 * when any rank has some (declared or PAPI), else the compute time (t_real - comm_time).
 * total must hold nprocs values. Returns 1 when the work is measured. */
int xmpi_balance_block_totals(const struct xmpi_balance_input *in, double *total);

/* Each rank's power (work per second of compute), with unmeasured ranks filled in from their
 * class or the mean. power must hold nprocs values. Returns the number of measured ranks. */
int xmpi_balance_powers(const struct xmpi_balance_input *in, double *power);

#endif
