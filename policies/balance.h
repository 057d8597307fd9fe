/* FLEX-MPI's dynamic load balancing decision (thesis Algorithm 5) as pure functions over the
 * per-rank measurements of the intervals since the last move: imbalance on the median of
 * each rank's times, a rank off its CPU told from a slow one, a move only when it would have
 * gained in the recent intervals, and every move judged afterwards and undone when it made
 * things worse. */
#ifndef XMPIR_POLICIES_LBALANCE_H
#define XMPIR_POLICIES_LBALANCE_H

#include <stddef.h>

#define XMPIR_LB_KMAX 64

enum xmpi_balance_policy { XMPIR_LB_ROWS = 0, XMPIR_LB_NNZ, XMPIR_LB_WEIGHT, XMPIR_LB_TIME };

struct xmpi_balance_params {
    double th1;        /* imbalance threshold on (max - min) / max of compute times */
    double th2;        /* a PE is non-dedicated when (t_real - t_cpu) / t_real > th2 */
    int k;             /* a rank's CPU share that stays within th2 of itself for k intervals
                        * is a steady (long-term) load: its wall time counts. A share that
                        * changes is interference: the rank's time counts as if it had its
                        * CPU to itself (compute time x CPU share) */
    int whole_run;     /* 1: a move's saving counts over every remaining iteration (the time
                        * policy, whose later moves refine what the first learned); 0: over
                        * one interval at most */
};

/* Intervals of evidence kept on unchanged blocks, and how many a move or a verdict on the last
 * move needs at least (more when the intervals disagree: see xmpi_balance_plan). */
#define XMPIR_LB_WINDOW 8
#define XMPIR_LB_EVIDENCE 2

/* What the balancer remembers between intervals. Zero it to start; xmpi_balance_state_free
 * releases what it allocated (it sizes itself to the job on the first interval and starts
 * afresh when the number of ranks changes). After carrying out a planned move the caller sets
 * `moved`, `move_cost` and `rebuild_cost`. */
struct xmpi_balance_state {
    long intervals;                          /* intervals evaluated */
    double move_cost;                        /* seconds of the last move (0: none yet) */
    double rebuild_cost;                     /* seconds of the program's rebuild after it
                                              * (XMPI_Set_rebuild): every move pays it again */
    int moved;                               /* the caller made the planned move: the next
                                              * interval shows what it achieved */
    int moves, undone;                       /* moves planned, and of them undoing ones */
    /* The evidence: per rank, per interval on the current blocks (a ring of XMPIR_LB_WINDOW),
     * compute seconds per iteration, CPU share and measured work per iteration; and the CPU
     * shares of the last XMPIR_LB_KMAX intervals whatever the blocks. */
    int p, n, head, nshare, share_head;
    double *comp, *share, *work, *shares;
    int *blocks;                             /* 4p: the window's blocks (count, displ), and
                                              * the ones before the last move */
    /* Judging the last move: the slowest rank's time per iteration before it (median over
     * the window it was planned from) and that window's relative spread. */
    int judging, undoing, planned_undo;
    double before, before_spread, predicted;  /* predicted: the saving per iteration the
                                              * move was planned for */
    double *before_rank;                     /* p: each rank's median time per iteration
                                              * before the move */
    int hold, backoff;                       /* intervals left with no move; the next hold */
};

/* Releases the state's arrays and zeroes it. */
void xmpi_balance_state_free(struct xmpi_balance_state *st);

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
    int undo;                 /* the move puts back the blocks the last move left: that move
                               * made the slowest rank slower beyond the noise */
    int evidence;             /* intervals on the current blocks the decision rests on */
    char why[320];            /* one sentence for the verbose log */
};

/* Decides for one interval and updates the state. count/displ (nprocs each) receive the new
 * blocks when d->rebalance is set. The rules, in order:
 *   - Each rank's time per iteration is its compute time (t_real - comm_time) over the
 *     iterations, times its CPU share (t_cpu / t_real) unless that share has held steady for
 *     k intervals: a rank another program keeps off its CPU now and then is interfered, not
 *     slow. Imbalance is (max - min) / max of each rank's median over the intervals on the
 *     current blocks.
 *   - The interval after XMPIR_LB_EVIDENCE intervals on the blocks a move made, the move is
 *     judged: when the slowest rank's median time is above what it was before the move by
 *     more than the two windows' spread (and 3%), the rows go back (d->undo) and the balancer
 *     then holds off for 2k intervals; when it saved less than a quarter of what was
 *     predicted (the rows were not the cause), the rows stay and the balancer holds off.
 *     Each hold is twice as long as the one before, up to XMPIR_LB_KMAX intervals.
 *   - A move needs imbalance above th1 over at least XMPIR_LB_EVIDENCE intervals on the
 *     current blocks, and the proposed blocks (contiguous, rank order, proportional to each
 *     rank's median power: its work over its time) must have been faster in every one of
 *     them, or on average by more than twice the standard error once there are four. Its
 *     expected gain (the median over those intervals, for the rest of the run under
 *     whole_run, else for one interval at most) must exceed the last move's cost and the
 *     program's rebuild (move_cost + rebuild_cost).
 * Returns 0, or -1 for invalid input (why says what), -2 when out of memory. */
int xmpi_balance_decide(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d,
                   int *count, int *displ);

/* The two halves of xmpi_balance_decide, for a caller that gathers row weights only when a move
 * is possible: assess records the interval in the state and returns 1 when a partition is
 * called for (0: no move, d says why; -1: invalid input; -2: out of memory); plan then fills
 * count/displ and d->rebalance (0, -1 or -2 as xmpi_balance_decide) and keeps in the state
 * what the judgement of the move needs. Plan takes the same input as the assess before it. */
int xmpi_balance_assess(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d);
int xmpi_balance_plan(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
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
