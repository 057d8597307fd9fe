/* The load-balancing decision: detect imbalance on compute times, tell bursts from long-term
 * interference with a ring of k intervals, and place rows in proportion to measured power. */
#include "balance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../models/partition.h"

/* Compute time: the part of the iteration outside MPI. Blocking collectives make every rank
 * wait for the slowest, so wall times alone look balanced however uneven the work is. */
static double compute_time(const struct xmpi_balance_input *in, int i)
{
    double t = in->t_real[i] - (in->comm_time ? in->comm_time[i] : 0);
    return t > 0 ? t : 0;
}

/* The work rank i did, in the units the partition splits: its rows' weight under the nnz and
 * weight policies, else the measured work (declared or PAPI), else its row count. Mixing
 * units (declared FLOP for power, nonzeros for the split) would settle on a biased split. */
static double block_work(const struct xmpi_balance_input *in, int i, int measured)
{
    if (measured && !in->rowweight) return in->work[i];
    if (!in->rowweight) return in->count[i];
    double w = 0;
    for (int r = in->displ[i]; r < in->displ[i] + in->count[i]; r++) w += in->rowweight[r];
    return w;
}

int xmpi_balance_powers(const struct xmpi_balance_input *in, double *power)
{
    int measured_work = 0;
    for (int i = 0; in->work && i < in->nprocs; i++) measured_work |= in->work[i] > 0;
    int n = 0;
    double sum = 0;
    for (int i = 0; i < in->nprocs; i++) {
        double t = compute_time(in, i), w = block_work(in, i, measured_work);
        power[i] = t > 0 && w > 0 ? w / t : -1;
        if (power[i] > 0) {
            n++;
            sum += power[i];
        }
    }
    double mean = n ? sum / n : 1;
    for (int i = 0; i < in->nprocs; i++) {
        if (power[i] > 0) continue;
        double cs = 0;
        int cn = 0;
        for (int j = 0; in->rank_class && j < in->nprocs; j++)
            if (power[j] > 0 && in->rank_class[j] == in->rank_class[i]) {
                cs += power[j];
                cn++;
            }
        power[i] = cn ? cs / cn : mean;
    }
    return n;
}

static int bad_input(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st,
                     const struct xmpi_balance_input *in, struct xmpi_balance_decision *d)
{
    if (!prm || !st || !in || in->nprocs < 1 || in->size < 0 || !in->t_real || !in->t_cpu ||
        !in->count || !in->displ || prm->k < 1 || prm->k > XMPIR_LB_KMAX || !(prm->th1 >= 0) ||
        !(prm->th2 >= 0)) {
        snprintf(d->why, sizeof d->why, "invalid input (nprocs, size, k in 1..%d, thresholds >= 0)",
                 XMPIR_LB_KMAX);
        return 1;
    }
    return 0;
}

int xmpi_balance_assess(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d)
{
    *d = (struct xmpi_balance_decision){0};
    if (bad_input(prm, st, in, d)) return -1;
    int p = in->nprocs;
    /* Step 1: imbalance over the compute times. */
    double tmax = 0, tmin = INFINITY;
    for (int i = 0; i < p; i++) {
        double t = compute_time(in, i);
        tmax = t > tmax ? t : tmax;
        tmin = t < tmin ? t : tmin;
    }
    d->imbalance = tmax > 0 ? (tmax - tmin) / tmax : 0;
    /* The interval after a move tells whether rows were the cause. A move that did not halve
     * the imbalance shows what moving rows cannot remove (work that does not follow the rows,
     * measurement noise): imbalance up to a quarter above that floor is not chased again, or
     * the balancer would move rows every interval. A move that did halve it worked, only
     * from powers measured on the old blocks: what is left may be refined by the next move
     * (gain against move cost still decides). */
    /* Under the time policy a first move is expected to go only part of the way (the costs
     * inside a block are learned from the move itself): only a move that removed less than
     * a tenth of the imbalance sets the floor. */
    if (st->moved) {
        double kept = prm->whole_run ? 0.9 : 0.5;
        st->floor = d->imbalance > kept * st->last ? d->imbalance : 0;
        st->moved = 0;
    }
    st->last = d->imbalance;
    double bar = prm->th1;
    if (st->floor > 0 && st->floor * 1.25 > bar) bar = st->floor * 1.25;
    d->imbalanced = d->imbalance > bar;
    /* Steps 2-3: dedicated PEs, remembered over the last k intervals. */
    d->dedicated = 1;
    for (int i = 0; i < p; i++)
        if (in->t_real[i] > 0 && (in->t_real[i] - in->t_cpu[i]) / in->t_real[i] > prm->th2)
            d->dedicated = 0;
    st->dedicated[st->intervals % prm->k] = (unsigned char)d->dedicated;
    st->intervals++;
    if (!d->dedicated) {
        int all = st->intervals >= prm->k;
        for (int j = 0; all && j < prm->k; j++) all = !st->dedicated[j];
        d->interference = all ? XMPIR_LB_LONG : XMPIR_LB_BURST;
    }
    if (!d->imbalanced) {
        snprintf(d->why, sizeof d->why, "balanced: imbalance %.1f%% <= %.1f%%%s", 100 * d->imbalance,
                 100 * bar, bar > prm->th1 ? " (what the last move left)" : "");
        return 0;
    }
    if (d->interference == XMPIR_LB_BURST) {
        snprintf(d->why, sizeof d->why, "imbalance %.1f%% from a burst of interference: tolerated "
                 "(fewer than k = %d non-dedicated intervals in a row)", 100 * d->imbalance, prm->k);
        return 0;
    }
    return 1;
}

int xmpi_balance_plan(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st,
                 const struct xmpi_balance_input *in, struct xmpi_balance_decision *d, int *count, int *displ)
{
    if (bad_input(prm, st, in, d) || !count || !displ) return -1;
    int p = in->nprocs;
    double tmax = 0;
    for (int i = 0; i < p; i++) {
        double t = compute_time(in, i);
        tmax = t > tmax ? t : tmax;
    }
    /* Step 4: new blocks proportional to each rank's power. */
    double *power = malloc(sizeof *power * (size_t)p);
    if (!power) {
        snprintf(d->why, sizeof d->why, "out of memory");
        return -2;
    }
    xmpi_balance_powers(in, power);
    char sub[200];
    int rc = xmpi_part_weighted(in->size, p, in->rowweight, power, count, displ, sub, sizeof sub);
    if (rc) {
        free(power);
        snprintf(d->why, sizeof d->why, "no partition: %s", sub);
        return rc == -2 ? -2 : -1;
    }
    /* The expected gain: this interval's slowest compute time against the time the same work
     * takes when spread by power, over what is left of the run (at most one interval). */
    double total = 0, ptotal = 0;
    int measured_work = 0;
    for (int i = 0; in->work && i < p; i++) measured_work |= in->work[i] > 0;
    for (int i = 0; i < p; i++) {
        total += block_work(in, i, measured_work);
        ptotal += power[i];
    }
    free(power);
    double balanced = ptotal > 0 ? total / ptotal : tmax;
    double share = 1;
    if (in->remaining >= 0 && in->iterations > 0)
        share = in->remaining < in->iterations || prm->whole_run ? in->remaining / in->iterations
                                                                 : 1;
    d->gain = (tmax - balanced) * share;
    int same = 1;
    for (int i = 0; i < p; i++)
        same &= count[i] == in->count[i] && (count[i] == 0 || displ[i] == in->displ[i]);
    if (same) {
        snprintf(d->why, sizeof d->why, "imbalance %.1f%% but the proportional blocks are the "
                 "current ones", 100 * d->imbalance);
        return 0;
    }
    if (d->gain <= st->move_cost + st->rebuild_cost) {
        if (st->rebuild_cost > 0)
            snprintf(d->why, sizeof d->why, "imbalance %.1f%%: a move would save %.3g s, not more "
                     "than the last move cost (%.3g s) and the program's rebuild after it "
                     "(%.3g s)", 100 * d->imbalance, d->gain, st->move_cost, st->rebuild_cost);
        else
            snprintf(d->why, sizeof d->why, "imbalance %.1f%%: a move would save %.3g s, not "
                     "more than the last move cost (%.3g s)", 100 * d->imbalance, d->gain,
                     st->move_cost);
        return 0;
    }
    d->rebalance = 1;
    snprintf(d->why, sizeof d->why, "imbalance %.1f%%%s: rebalancing should save %.3g s",
             100 * d->imbalance, d->interference == XMPIR_LB_LONG ? " with long-term interference" : "",
             d->gain);
    return 0;
}

int xmpi_balance_decide(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d,
                   int *count, int *displ)
{
    if (!count || !displ) {
        *d = (struct xmpi_balance_decision){0};
        snprintf(d->why, sizeof d->why, "no room for the new blocks");
        return -1;
    }
    int rc = xmpi_balance_assess(prm, st, in, d);
    if (rc <= 0) return rc;
    return xmpi_balance_plan(prm, st, in, d, count, displ);
}

int xmpi_balance_block_totals(const struct xmpi_balance_input *in, double *total)
{
    int measured = 0;
    for (int i = 0; in->work && i < in->nprocs; i++) measured |= in->work[i] > 0;
    for (int i = 0; i < in->nprocs; i++) total[i] = measured ? in->work[i] : compute_time(in, i);
    return measured;
}

/* Blocks [displ[i], displ[i] + count[i]) inside [0, n) with finite totals >= 0. */
static int valid_blocks(int n, int p, const int *count, const int *displ, const double *total)
{
    for (int i = 0; i < p; i++)
        if (count[i] < 0 || (count[i] > 0 && (displ[i] < 0 || displ[i] > n - count[i])) ||
            !(total[i] >= 0) || !isfinite(total[i]))
            return 0;
    return 1;
}

/* The rows [lo, hi) that a block gave up or took, while its other end stayed: they cost the
 * difference `diff` of its two totals (same process, its other rows the same). Sets them to
 * that cost, evenly, and marks them; a non-positive difference (noise larger than the rows'
 * cost) tells nothing. */
static void from_difference(double *cost, unsigned char *fixed, int lo, int hi, double diff)
{
    if (hi <= lo || !(diff > 0)) return;
    double each = diff / (hi - lo);
    for (int r = lo; r < hi; r++) {
        cost[r] = fixed[r] ? 0.5 * (cost[r] + each) : each;
        fixed[r] = 1;
    }
}

/* Rows that moved across the boundary between blocks i and j = i + 1 alone (each kept its
 * other end) were timed on both: the rank that gave them up lost what they cost at its speed,
 * the one that took them gained what they cost at its own. The two differences give how much
 * slower j is than i, when both stand well out of the noise (a quarter of the block's time:
 * on equal processors a first move rarely changes a block that much, and short intervals on
 * a shared machine vary by a tenth). */
static void learn_speed(int p, const int *count, const int *displ, const double *total,
                        const int *pcount, const int *pdispl, const double *ptotal, double *slow)
{
    for (int i = 0; i + 1 < p; i++) {
        int j = i + 1;
        if (count[i] <= 0 || count[j] <= 0 || pcount[i] <= 0 || pcount[j] <= 0 ||
            displ[i] != pdispl[i] || displ[j] + count[j] != pdispl[j] + pcount[j] ||
            displ[i] + count[i] != displ[j] || pdispl[i] + pcount[i] != pdispl[j] ||
            displ[j] == pdispl[j] || !(slow[i] > 0))
            continue;
        double di = total[i] - ptotal[i], dj = total[j] - ptotal[j];
        double ni = 0.25 * (total[i] > ptotal[i] ? total[i] : ptotal[i]);
        double nj = 0.25 * (total[j] > ptotal[j] ? total[j] : ptotal[j]);
        if (!(di * dj < 0) || fabs(di) < ni || fabs(dj) < nj) continue;
        double ratio = -dj / di;
        ratio = ratio < 1.0 / 8 ? 1.0 / 8 : ratio > 8 ? 8 : ratio;
        slow[j] = slow[i] * ratio;
    }
}

int xmpi_balance_costmap_observe(double *cost, int n, int p, const int *count, const int *displ,
                            const double *block_total, const int *pcount, const int *pdispl,
                            const double *ptotal, double *slow)
{
    if (!cost || n < 0 || p < 1 || !count || !displ || !block_total ||
        !valid_blocks(n, p, count, displ, block_total))
        return -1;
    for (int i = 0; slow && i < p; i++)
        if (!(slow[i] > 0) || !isfinite(slow[i])) return -1;
    int prev = pcount && pdispl && ptotal && valid_blocks(n, p, pcount, pdispl, ptotal);
    /* Times become cost in the units of rank 0's speed: each block's time over its rank's
     * slowness (learned first, from this interval's rows that changed hands). */
    double *norm = slow ? malloc(sizeof *norm * 2 * (size_t)p) : NULL;
    if (slow && !norm) return -2;
    if (slow) {
        if (prev) learn_speed(p, count, displ, block_total, pcount, pdispl, ptotal, slow);
        for (int i = 0; i < p; i++) {
            norm[i] = block_total[i] / slow[i];
            norm[p + i] = prev ? ptotal[i] / slow[i] : 0;
        }
        block_total = norm;
        ptotal = prev ? norm + p : ptotal;
    }
    unsigned char *fixed = prev ? calloc((size_t)n + 1, 1) : NULL;
    /* Rows that changed hands, where a block moved one of its ends only. */
    for (int i = 0; fixed && i < p; i++) {
        int a = displ[i], b = a + count[i], pa = pdispl[i], pb = pa + pcount[i];
        if (count[i] == 0 || pcount[i] == 0 || b <= pa || pb <= a || (a != pa) == (b != pb))
            continue;
        double grew = block_total[i] - ptotal[i];
        if (a == pa) from_difference(cost, fixed, b < pb ? b : pb, b < pb ? pb : b, b > pb ? grew : -grew);
        else from_difference(cost, fixed, a < pa ? a : pa, a < pa ? pa : a, a < pa ? grew : -grew);
    }
    for (int i = 0; i < p; i++) {
        double *c = cost + displ[i], fixed_sum = 0, free_sum = 0;
        int all_known = 1, free_known = 1, nfree = 0;
        for (int r = 0; r < count[i]; r++) {
            all_known &= c[r] > 0;
            if (fixed && fixed[displ[i] + r]) {
                fixed_sum += c[r];
            } else {
                free_sum += c[r];
                free_known &= c[r] > 0;
                nfree++;
            }
        }
        /* The rows just learned from a difference keep their cost and the others share the
         * rest, unless that would leave them nothing (noise): then the block is scaled as one. */
        int keep = fixed_sum > 0 && nfree > 0 && block_total[i] > fixed_sum;
        double target = keep ? block_total[i] - fixed_sum : block_total[i];
        double sum = keep ? free_sum : free_sum + fixed_sum;
        int known = keep ? free_known : all_known, m = keep ? nfree : count[i];
        /* A row with no estimate (or one that measured nothing) would stay at 0 for ever if
         * scaled: such a block starts again from an even spread. */
        double scale = known && sum > 0 && isfinite(sum) ? target / sum : -1;
        for (int r = 0; r < count[i]; r++) {
            if (keep && fixed[displ[i] + r]) continue;
            c[r] = scale >= 0 ? c[r] * scale : target / m;
        }
    }
    free(fixed);
    free(norm);
    return 0;
}
