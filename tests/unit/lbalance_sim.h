/* A synthetic machine for the balancer's suites: ranks of given speeds run rows of given
 * costs, other programs take a share of their CPUs, times are off by a random fraction, and
 * a rank may have time that does not follow its rows or a cliff past some rows (a cache it
 * outgrows). Each call to sim_interval measures one interval on the current blocks, as the
 * monitor would (a rank that finishes first waits in MPI, busy); sim_step runs the
 * balancer on it and carries out what it plans, as the runtime does. The runs are
 * reproducible: the noise comes from rng.h with a fixed seed. */
#ifndef XMPIR_TESTS_UNIT_LBALANCE_SIM_H
#define XMPIR_TESTS_UNIT_LBALANCE_SIM_H

#include <string.h>

#include "../../models/partition.h"
#include "../../policies/balance.h"
#include "rng.h"

#define SIM_P 4
#define SIM_N 1200

struct sim {
    int p, n;
    double cost[SIM_N];           /* seconds per iteration of each row at speed 1 */
    double speed[SIM_P];          /* relative speed of each rank */
    double share[SIM_P];          /* CPU share the rank gets this interval (1: its own) */
    double fixed[SIM_P];          /* seconds per iteration that do not follow the rows */
    int cliff[SIM_P];             /* rows past which the rank's rows cost `cliff_x` as much */
    double cliff_x;
    double noise;                 /* each time off by up to +-noise (a fraction) */
    double iters, remaining;      /* iterations per interval; left in the run (< 0: unknown) */
    double move_cost;             /* seconds a move takes, told to the balancer */
    uint64_t seed;
    int count[SIM_P], displ[SIM_P];
    double t_real[SIM_P], t_cpu[SIM_P], comm[SIM_P], work[SIM_P];
    struct xmpi_balance_input in;
    /* --xmpi-lb=time, as libxmpi/balance.c keeps it: the cost per row and the blocks and
     * totals of the last interval. */
    int learn;
    double costmap[SIM_N], prev_total[SIM_P], slow[SIM_P];
    int prev[2 * SIM_P], have_prev;
    int moves, undos;
};

/* p equal ranks on even blocks of n rows of cost `unit`, dedicated, no noise. */
static inline void sim_init(struct sim *s, int p, int n, double unit)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->n = n;
    for (int r = 0; r < n; r++) s->cost[r] = unit;
    for (int i = 0; i < p; i++) {
        s->speed[i] = s->share[i] = s->slow[i] = 1;
        s->cliff[i] = n;
    }
    s->cliff_x = 1;
    s->iters = 50;
    s->remaining = -1;
    s->seed = 42;
    xmpi_part_even(n, p, s->count, s->displ);
}

/* Rank i's compute seconds per iteration with its CPU to itself. */
static inline double sim_compute(const struct sim *s, int i)
{
    double t = s->fixed[i];
    for (int r = 0; r < s->count[i]; r++)
        t += s->cost[s->displ[i] + r] * (r >= s->cliff[i] ? s->cliff_x : 1) / s->speed[i];
    return t;
}

/* One interval on the current blocks, in s->in. Returns the slowest rank's wall seconds per
 * iteration: what the program's iterations take. */
static inline double sim_interval(struct sim *s)
{
    double wall[SIM_P], slowest = 0;
    for (int i = 0; i < s->p; i++) {
        double c = sim_compute(s, i) * (1 + s->noise * (2 * rng_unit(&s->seed) - 1));
        wall[i] = c / s->share[i];
        slowest = wall[i] > slowest ? wall[i] : slowest;
    }
    for (int i = 0; i < s->p; i++) {
        s->comm[i] = (slowest - wall[i]) * s->iters;
        s->t_real[i] = slowest * s->iters;
        s->t_cpu[i] = s->share[i] * s->t_real[i];
        s->work[i] = 0;
    }
    s->in = (struct xmpi_balance_input){s->p, s->n, s->t_real, s->t_cpu, s->comm, s->work,
                                        s->count, s->displ, NULL, NULL, s->iters, s->remaining};
    return slowest;
}

/* The balancer's decision on the interval just measured; a planned move is carried out
 * (the blocks change, the state learns its cost). With s->learn, the cost per row is
 * learned first and passed as row weights (--xmpi-lb=time with no work declared). */
static inline int sim_step(struct sim *s, const struct xmpi_balance_params *prm,
                           struct xmpi_balance_state *st, struct xmpi_balance_decision *d)
{
    if (s->learn) {
        double total[SIM_P];
        xmpi_balance_block_totals(&s->in, total);
        if (xmpi_balance_costmap_observe(s->costmap, s->n, s->p, s->count, s->displ, total,
                                         s->have_prev ? s->prev : NULL, s->prev + s->p,
                                         s->prev_total, s->slow))
            return -1;
        memcpy(s->prev, s->count, sizeof s->count);
        memcpy(s->prev + s->p, s->displ, sizeof(int) * (size_t)s->p);
        memcpy(s->prev_total, total, sizeof total);
        s->have_prev = 1;
        s->in.rowweight = s->costmap;
    }
    int c[SIM_P], dp[SIM_P];
    int rc = xmpi_balance_decide(prm, st, &s->in, d, c, dp);
    if (rc || !d->rebalance) return rc;
    char why[200];
    if (xmpi_part_check(s->n, s->p, c, dp, why, sizeof why)) return -1;
    memcpy(s->count, c, sizeof(int) * (size_t)s->p);
    memcpy(s->displ, dp, sizeof(int) * (size_t)s->p);
    st->moved = 1;
    st->move_cost = s->move_cost;
    s->moves++;
    s->undos += d->undo;
    return 0;
}

#endif
