/* The adaptive malleability policy, AMP (FLEX-MPI thesis 5.4.3, Algorithm 8, phases 1 and 2):
 * at an interval end, spawn or remove processes so that the job lands on a completion-time
 * goal, choosing the PEs with the AMP mapping (mapping.h) under the efficiency or the cost
 * constraint. Pure: no MPI, nothing from libxmpi/; the prediction model is asked through
 * two callbacks, so every decision is unit tested on synthetic inputs.
 *
 * The predicted seconds of one interval of a configuration with total power P on n
 * processes are
 *     T(P, n) = work / P + comm(n)
 * (the computation balanced by the load balancer, the communication from the model).
 *
 * Phase 1. t_now = T(power_now, nprocs); t_goal = (goal - elapsed) / intervals_left.
 *   |t_now - t_goal| <= tol * t_goal: KEEP. Otherwise t_now > t_goal: too slow (grow);
 *   t_now < t_goal: too fast (shrink). When the goal has passed (elapsed >= goal), t_goal
 *   <= 0 and the job is always too slow. The verdict is in the plan (verdict -1, 0, 1).
 *
 * Confirming a shrink (not in the thesis). A too-fast job shrinks only when the interval
 * before was found too fast as well (fast_streak >= 1); otherwise it keeps and says it waits
 * for a second interval. One fast interval is often noise or a neighbour's pause: a Jacobi
 * run under the 30% efficiency goal shrank on one such interval and had to spawn 4 processes
 * later to catch up. A too-slow job grows at once: waiting there costs the goal.
 *
 * Deviation from the thesis. Algorithm 8 adds the reconfiguration overheads (spawn or
 * removal, data redistribution) to the prediction of one interval and compares that with
 * t_goal. They are paid once, while the goal is for the whole rest of the run, so here they
 * are amortised over it: a candidate changing the job by delta processes (delta > 0 spawns,
 * delta < 0 removes) must run each remaining interval within
 *     t_need(delta) = (goal - elapsed - overhead(delta)) / intervals_left,
 * i.e. its predicted completion elapsed + overhead(delta) + intervals_left * T is <= goal.
 *
 * Phase 2, too slow. For s = 1 .. min(max_spawn, sum of free avail):
 *     P_need = work / (t_need(s) - comm(nprocs + s))   (infeasible if the denominator <= 0),
 *     dP = P_need - power_now, and xmpi_map_solve(SPAWN, constraint, free, s, dP).
 *   The s whose mapping is OK are suitable. Efficiency: the smallest suitable s (and its
 *   mapping's choice: the least power over dP, then the least cost). Cost: the lowest cost
 *   rate after the action (cost_now + the added cost), ties by the smaller s.
 *   No suitable s: the removals of phase 2 "too fast" below are searched the same way (a job
 *   whose communication grows with its processes can reach the goal with fewer); the first
 *   suitable one by the constraint is the plan, reachable. None either: the goal is
 *   unreachable. Then every configuration is priced: keeping, spawning s = 1 .. that maximum
 *   on the s most powerful free PEs (maxpower(s): taken by power, then by the lower cost,
 *   then by the lower entry index; no LP), and removing r = 1 .. min(removable, nprocs - 1)
 *   of the weakest removable processes (by the lower power, then the higher cost, then the
 *   higher entry index), each at its predicted completion elapsed + overhead(delta) +
 *   intervals_left * T(power after, nprocs + delta). Fewer processes can be faster where
 *   communication grows with them. Of those within tol (relative, plus the tie) of the
 *   fastest completion, efficiency takes the fewest processes, cost the lowest cost rate
 *   after (ties: the fewer processes); unreachable = 1. Keeping: nothing finishes sooner by
 *   more than tol, or keeping is the constraint's choice among those that do not.
 *   The tolerance counts from the anchor, when one is given and it is sooner than the
 *   fastest now: a candidate qualifies within max(fastest, anchor * (1 + tol)). The caller
 *   passes the fastest completion of the first unreachable decision of a streak (the plan's
 *   `fastest`), so that steps each within tol of the last do not add up: without it a Jacobi
 *   run with an unreachable 35% goal gave up one process per interval, each step within
 *   tol of the one before.
 *
 * Phase 2, too fast. For r = 1 .. min(sum of removable avail, nprocs - 1):
 *     P_need = work / (t_need(-r) - comm(nprocs - r)), dP = power_now - P_need, the power
 *     that may go (infeasible if the denominator <= 0 or dP < 0), and
 *     xmpi_map_solve(REMOVE, constraint, removable, r, dP).
 *   Efficiency: the largest feasible r (its mapping: the most power removed within dP, then
 *   the most cost). Cost: the highest removed cost rate, ties by the larger r. None feasible:
 *   KEEP (the job is faster than needed, but no removal keeps it on the goal). The last
 *   process never leaves.
 *
 * The model. A callback returning -1 (or a negative or non-finite number of seconds) makes
 * that candidate unusable, not the decision: it is skipped in every phase. If comm(nprocs)
 * itself fails, the answer is KEEP ("the model cannot predict"), t_now = t_new = -1.
 *
 * Ties. Two cost rates are equal when they differ by at most XMPIR_AMP_TIE times the largest
 * per-process cost of the list (free or removable) the choice was made from; two completion
 * times when they differ by at most XMPIR_AMP_TIE times the larger of them.
 *
 * Cost of a decision: the efficiency constraint stops at the first suitable s (or r, counted
 * down). The cost constraint compares every candidate by its full mapping's cost, but maps
 * in full only those that may replace the best so far: one whose linear relaxation
 * (xmpi_map_cost_bound, no GLPK) or whose first objective alone (xmpi_map_solve_first: the
 * least cost, which the full mapping's tie-break may raise by up to the tie) cannot beat it
 * by more than the tie is done without the full mapping, so the plan is the one a full
 * mapping per candidate gives (docs/architecture.md has the figures).
 *
 * Many candidates. Each candidate is priced by the model (its overhead and communication: a
 * prediction that is O(P) on a job of P processes, the move's partition), so pricing every
 * count of a large pool cost O(S x P) on rank 0: 1.9 s at 4,096 processes with 1,024 free
 * PEs (xmpi-scalerank0, make bench-scale). Every count up to XMPIR_AMP_DENSE is a candidate
 * as above; beyond it the counts are taken on a grid, each about 1/8 beyond the last, and
 * the largest: O(XMPIR_AMP_DENSE + 8 ln(S / XMPIR_AMP_DENSE)) prices, 65 for S = 4,096.
 * The gap next to the grid count chosen is then searched by bisection: efficiency's
 * smallest suitable s (largest r) below (above) it, cost's cheapest s (dearest r) below
 * (above) the best. Where suitability is monotone in the gap (more processes, more power)
 * the plan is the one of every count; elsewhere it may be a count of the gap that is not
 * the extreme one. The unreachable search prices the grid counts only. */
#ifndef XMPIR_AMP_H
#define XMPIR_AMP_H

#include "malleability.h" /* enum xmpi_plan_action */
#include "mapping.h"

#define XMPIR_AMP_TIE 1e-9
/* Candidate counts priced one by one; beyond, on a grid ("Many candidates" above). */
#define XMPIR_AMP_DENSE 16

struct xmpi_amp_input {
    double goal;             /* completion-time goal, seconds since the job started (> 0) */
    double elapsed;          /* seconds since the start, at this interval end (>= 0) */
    double intervals_left;   /* sampling intervals still to run (> 0) */
    double tol;              /* relative tolerance, e.g. 0.01 (>= 0) */
    enum xmpi_map_constraint constraint;   /* XMPIR_MAP_EFFICIENCY or XMPIR_MAP_COST */
    double work;             /* work of one interval (work units, > 0), as the model predicts it */
    double power_now;        /* total power of the current processes (work units per second, > 0) */
    double cost_now;         /* cost per second of the current processes (>= 0) */
    int nprocs;              /* processes now (>= 1) */
    int max_spawn;           /* at most this many more processes (the --xmpi-max-procs room, >= 0) */
    const struct xmpi_map_slot *free;      int nfree;       /* free PEs per pool entry: spawn candidates */
    const struct xmpi_map_slot *removable; int nremovable;  /* processes that may leave, per pool entry */
    int fast_streak;         /* interval ends just before this one found too fast, with no action
                              * since (>= 0); a too-fast job shrinks only when >= 1 */
    double anchor;           /* unreachable goal: the fastest completion predicted at the first
                              * unreachable decision of the streak (seconds, > 0), or 0: none */
};

/* What the prediction model answers (the runtime implements these from its calibrated model). */
struct xmpi_amp_model {
    void *arg;
    /* communication seconds of one interval on n processes; 0 or -1 (cannot tell) */
    int (*comm)(void *arg, int n, double *seconds);
    /* one-off seconds of spawning delta > 0 processes or removing -delta processes, data
     * movement included; 0 or -1. Never called with delta = 0 (no action costs nothing). */
    int (*overhead)(void *arg, int delta, double *seconds);
};

struct xmpi_amp_plan {
    enum xmpi_plan_action action;   /* KEEP, SPAWN or REMOVE */
    int n;                   /* processes to spawn or remove */
    int *count;              /* caller's array (max(nfree, nremovable) entries; NULL allowed when
                              * both are 0): processes per entry of the free (spawn) or removable
                              * (remove) list; zeros for KEEP */
    double t_goal;           /* seconds one interval may take to land on the goal (keeping) */
    double t_now;            /* predicted seconds of the next interval as the job is (-1: no prediction) */
    double t_new;            /* predicted seconds of an interval after the chosen action (= t_now for KEEP) */
    double cost_rate;        /* cost per second after the action */
    double overhead;         /* one-off seconds of the chosen action (0 for KEEP) */
    double completion;       /* predicted completion: elapsed + overhead + intervals_left * t_new
                              * (-1 when the model cannot predict) */
    int unreachable;         /* 1: even the fastest configuration misses the goal; the fastest was chosen */
    double fastest;          /* unreachable: the fastest completion predicted (the next anchor); else -1 */
    int verdict;             /* phase 1: 1 too slow, -1 too fast, 0 within tol or no prediction */
    char why[256];           /* one sentence: what was measured/predicted, what was chosen and why */
};

/* 0 with the plan, or -1 on bad input (NULL pointers, goal <= 0, elapsed < 0,
 * intervals_left <= 0, tol < 0, work <= 0, power_now <= 0, cost_now < 0, NaN or infinite
 * values, nprocs < 1, max_spawn < 0, negative list lengths or avail, a slot's power <= 0 or
 * cost < 0, an unknown constraint, fast_streak < 0, anchor < 0) or if GLPK fails (never seen); why says what. `out->count`
 * is read, every other field of *out is written. */
int xmpi_policy_amp(const struct xmpi_amp_input *in, const struct xmpi_amp_model *m,
                    struct xmpi_amp_plan *out);

/* AMP's state across interval ends, kept by the runtime: rank 0 decides, said_maxit is on
 * every process. */
struct xmpi_amp_state {
    double goal;             /* seconds since MPI_Init; 0 until resolved */
    double static_estimate;  /* the static run's length (s from MPI_Init) that the goal
                              * was derived from; 0 until resolved */
    int waited;              /* intervals passed over before the goal, for balance */
    int started;
    double loop_start;       /* seconds from MPI_Init to the first iteration (about) */
    int unreachable_said;
    int said_maxit;
    int fast_streak;         /* decisions in a row that found the job too fast and kept */
    double anchor;           /* the fastest completion of the first decision of an
                              * unreachable streak; 0 while the goal is reachable */
};

#endif
