/* The AMP mapping (FLEX-MPI thesis 5.4.3.1, "mappingSimplex" of Algorithm 8) as an integer
 * program solved by GLPK's branch and bound (glp_intopt): which n processes to spawn on the
 * free PEs, or which n to remove, so that the power added reaches the need (spawn) or the
 * power removed stays within it (remove), chosen by the efficiency or the cost constraint.
 * Pure: no MPI, nothing from libxmpi/; the caller describes the pool as plain slots.
 *
 * Variables: x_i, the processes taken from slot i, integer, 0 <= x_i <= avail_i.
 * Rows:      sum x_i = n;  sum power_i x_i >= need (spawn) or <= need (remove).
 * Objectives, lexicographic (the first, then the second among the first's optima):
 *   spawn  + efficiency: min power (surplus over need),  then min cost
 *   spawn  + cost:       min cost,                        then min power (surplus)
 *   remove + efficiency: max power removed (closest to need from below), then max cost
 *   remove + cost:       max cost removed,                then max power removed
 * The second objective is a second glp_intopt with the first optimum fixed as a row
 * (skipped when every slot that can be used has the same second coefficient). Two values
 * are tied when they differ by at most XMPIR_MAP_TIE times the largest per-process power
 * (or cost) of the slots: the solver's rounding, not a difference. */
#ifndef XMPIR_MAPPING_H
#define XMPIR_MAPPING_H

#include <stddef.h>

#include "../io/status.h"

#define XMPIR_MAP_TIE 1e-9

enum xmpi_map_action { XMPIR_MAP_SPAWN = 0, XMPIR_MAP_REMOVE };
enum xmpi_map_constraint { XMPIR_MAP_EFFICIENCY = 0, XMPIR_MAP_COST };

enum xmpi_map_status {
    XMPIR_MAP_OK = 0,
    XMPIR_MAP_INFEASIBLE = 1,    /* no choice of n processes within avail meets the need */
    XMPIR_MAP_EINPUT = XMPIR_EARG,       /* bad input: NULL, negative avail, power <= 0, NaN */
    XMPIR_MAP_ESOLVER = XMPIR_ESOLVER,   /* GLPK failed in a way the input does not explain */
};

/* One (host, class) entry of the pool. Spawn: avail = free PEs there, power = work per
 * second of one process there (> 0), cost = cost per second of one PE (>= 0). Remove:
 * avail = processes there that may leave (spawned ones), power and cost of one of them. */
struct xmpi_map_slot {
    int avail;
    double power;
    double cost;
};

/* The choice: count[i] processes from slot i (the caller's array), and these totals. */
struct xmpi_map_result {
    int n;           /* sum of count[] */
    double power;    /* sum of power_i * count[i] */
    double cost;     /* sum of cost_i * count[i] */
};

/* Exactly n processes (n >= 0; n = 0 is the empty choice, feasible for a spawn only when
 * need <= 0 and for a remove only when need >= 0). need must be finite. count (nslots
 * entries) and res are always written: zeros unless OK. why (NULL allowed) receives one
 * sentence for EINPUT, INFEASIBLE (the need and the most, or least, power n processes can
 * give) and ESOLVER; it is "" on OK. */
enum xmpi_map_status xmpi_map_solve(enum xmpi_map_action action,
                                    enum xmpi_map_constraint constraint,
                                    const struct xmpi_map_slot *slots, int nslots, int n,
                                    double need, int *count, struct xmpi_map_result *res,
                                    char *why, size_t len);

/* As xmpi_map_solve, with the first objective only: the choice is an optimum of the
 * constraint's first objective, not necessarily the best of them by the second. For a
 * caller that compares candidates by the first objective alone (AMP's cost constraint,
 * scanning every n) and solves the one it keeps again with xmpi_map_solve; half the solver
 * time or less. */
enum xmpi_map_status xmpi_map_solve_first(enum xmpi_map_action action,
                                          enum xmpi_map_constraint constraint,
                                          const struct xmpi_map_slot *slots, int nslots, int n,
                                          double need, int *count, struct xmpi_map_result *res,
                                          char *why, size_t len);

/* A bound on the cost of exactly n processes meeting the need, without GLPK: the optimum of
 * the linear relaxation (x_i real in [0, avail_i]), so that every choice xmpi_map_solve can
 * return costs at least *bound (spawn) or removes at most *bound (remove). It is the
 * Lagrangian dual of the power row (the row sum x_i = n and the bounds kept, a polytope with
 * integral vertices, so the dual's maximum is the relaxation's optimum), maximised by
 * bisection on the multiplier; the value is the best multiplier's tried, less a bound on its
 * rounding, so it stays a valid bound where the bisection stops short (a very large
 * multiplier makes it weaker, never wrong). The need is taken with the tolerance
 * xmpi_map_solve accepts (XMPIR_MAP_TIE of the largest power). OK; INFEASIBLE when no n
 * processes can meet the need even fractionally (then xmpi_map_solve does not find one
 * either), with the same sentence; EINPUT as xmpi_map_solve. For a caller that skips the
 * candidates whose bound cannot beat the best found (AMP's cost scan): microseconds against
 * 0.04-3 ms for a glp_intopt. */
enum xmpi_map_status xmpi_map_cost_bound(enum xmpi_map_action action,
                                         const struct xmpi_map_slot *slots, int nslots, int n,
                                         double need, double *bound, char *why, size_t len);

/* The best choice over every n in 0..max_n (max_n is cut to the processes available), for a
 * caller that wants the fewest processes for a need that does not depend on n (one that
 * does calls xmpi_map_solve per n, as Algorithm 8 does):
 *   spawn  + efficiency: the smallest feasible n (its xmpi_map_solve choice);
 *   remove + efficiency: the largest feasible n;
 *   spawn  + cost: the lowest cost over all feasible n, ties by the lowest power, then the
 *                  smallest n;
 *   remove + cost: the highest removed cost, ties by the highest removed power, then the
 *                  largest n.
 * INFEASIBLE when no n is: for a spawn, the message names the need and the most power the
 * max_n processes give; a remove is infeasible only for a need below 0 (n = 0 always fits). */
enum xmpi_map_status xmpi_map_best(enum xmpi_map_action action,
                                   enum xmpi_map_constraint constraint,
                                   const struct xmpi_map_slot *slots, int nslots, int max_n,
                                   double need, int *count, struct xmpi_map_result *res,
                                   char *why, size_t len);

#endif
