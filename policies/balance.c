/* The load-balancing decision: imbalance on the median of each rank's time per iteration over
 * the intervals since the last move, a rank off its CPU told from a slow one by its CPU share,
 * a move only on evidence that it would have paid, and every move judged afterwards. */
#include "balance.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void xmpi_balance_state_free(struct xmpi_balance_state *st)
{
    free(st->comp);
    free(st->shares);
    free(st->blocks);
    memset(st, 0, sizeof *st);
}

/* Sizes the state to p ranks: a job of another size starts afresh. 0, or -2 out of memory. */
static int state_fit(struct xmpi_balance_state *st, int p)
{
    if (st->p == p && st->comp) return 0;
    if (st->comp) xmpi_balance_state_free(st);   /* a fresh state keeps what the caller set */
    st->comp = calloc((size_t)p * (3 * XMPIR_LB_WINDOW + 1), sizeof *st->comp);
    st->shares = calloc((size_t)p * XMPIR_LB_KMAX, sizeof *st->shares);
    st->blocks = calloc((size_t)p * 4, sizeof *st->blocks);
    if (!st->comp || !st->shares || !st->blocks) {
        xmpi_balance_state_free(st);
        return -2;
    }
    st->share = st->comp + (size_t)p * XMPIR_LB_WINDOW;
    st->work = st->share + (size_t)p * XMPIR_LB_WINDOW;
    st->before_rank = st->work + (size_t)p * XMPIR_LB_WINDOW;
    st->p = p;
    st->blocks[0] = -1;   /* no window yet: the first interval's blocks start one */
    return 0;
}

/* Slot of the j-th oldest interval of the window. */
static int slot(const struct xmpi_balance_state *st, int j)
{
    return (st->head - st->n + j + 2 * XMPIR_LB_WINDOW) % XMPIR_LB_WINDOW;
}

/* Rank i's CPU share in its j-th newest interval. */
static double share_back(const struct xmpi_balance_state *st, int i, int j)
{
    return st->shares[(size_t)((st->share_head - 1 - j + 2 * XMPIR_LB_KMAX) % XMPIR_LB_KMAX) *
                      st->p + i];
}

/* The CPU share rank i can count on: the middle of its current phase (the newest intervals
 * whose shares lie within 2 th2 of each other) once that phase has lasted long enough to be
 * a lasting load, else 1 (what load there is comes and goes). Long enough: k intervals, and
 * twice the longest earlier phase of non-dedicated running in the rank's history, so that a
 * load seen to come and go every few intervals is not taken for a lasting one the next time
 * it has lasted a few intervals. *lasting says which. */
static double lasting_share(const struct xmpi_balance_params *prm,
                            const struct xmpi_balance_state *st, int i, int *lasting)
{
    int age = 0, longest = 0;
    double now = 1;
    for (int j = 0, phase = 0; j < st->nshare; phase++) {
        double lo = share_back(st, i, j), hi = lo;
        int len = 0;
        for (; j < st->nshare; j++, len++) {
            double v = share_back(st, i, j);
            if ((v > hi ? v : hi) - (v < lo ? v : lo) > 2 * prm->th2) break;
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (phase == 0) {
            age = len;
            now = 0.5 * (lo + hi);
        } else if (hi < 1 - prm->th2 && len > longest) {
            longest = len;
        }
    }
    *lasting = age >= prm->k && age >= 2 * longest;
    return *lasting && now > 0 ? now : 1;
}

/* Does every rank that ran off its CPU in the newest interval have a lasting load? Then the
 * loads are the job's conditions for a while, and wall times count (the thesis's long-term
 * interference); while any load comes and goes, every rank's time counts as if it had its CPU
 * to itself, or a lasting load on one rank beside a passing one on another would look like
 * an imbalance that the next change of load reverses. */
static int loads_last(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st)
{
    for (int i = 0; i < st->p; i++) {
        int lasting;
        lasting_share(prm, st, i, &lasting);
        if (st->nshare > 0 && share_back(st, i, 0) < 1 - prm->th2 && !lasting) return 0;
    }
    return 1;
}

/* Rank i's time per iteration in each interval of the window (x[0..n)): what it would have
 * taken with the CPU share it can count on (lasting_share when `lasting`, else all of it):
 * its compute time times the share it had, over that one. */
static void rank_times(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st,
                       int i, int lasting, double *x)
{
    int is;
    double ref = lasting ? lasting_share(prm, st, i, &is) : 1;
    for (int j = 0; j < st->n; j++) {
        size_t at = (size_t)slot(st, j) * st->p + i;
        x[j] = st->comp[at] * st->share[at] / ref;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (reordered); 0 for n = 0. */
static double median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* (max - min) / median of v[0..n): the relative spread of a short series (0 below 2). */
static double spread(const double *v, int n)
{
    if (n < 2) return 0;
    double lo = v[0], hi = v[0], *c = malloc(sizeof *c * (size_t)n);
    if (!c) return 0;
    for (int j = 0; j < n; j++) {
        lo = v[j] < lo ? v[j] : lo;
        hi = v[j] > hi ? v[j] : hi;
        c[j] = v[j];
    }
    double m = median(c, n);
    free(c);
    return m > 0 ? (hi - lo) / m : 0;
}

/* The evidence, n = st->n intervals: x[i * n + j] rank i's time per iteration in interval j,
 * and slowest[j] the largest of them. NULL when out of memory (free the result). */
static double *window_times(const struct xmpi_balance_params *prm,
                            const struct xmpi_balance_state *st, double *slowest)
{
    int p = st->p, n = st->n;
    double *x = malloc(sizeof *x * ((size_t)p * n + 1));
    if (!x) return NULL;
    for (int j = 0; j < n; j++) slowest[j] = 0;
    int lasting = loads_last(prm, st);
    for (int i = 0; i < p; i++) {
        rank_times(prm, st, i, lasting, x + (size_t)i * n);
        for (int j = 0; j < n; j++)
            slowest[j] = x[(size_t)i * n + j] > slowest[j] ? x[(size_t)i * n + j] : slowest[j];
    }
    return x;
}

/* Puts this interval in the window. Blocks other than the window's start a new one: the
 * balancer's move, whose intervals then judge it (or the undo of one, after which the
 * balancer holds off), or the program's own new partition. */
static void record(struct xmpi_balance_state *st, const struct xmpi_balance_input *in)
{
    int p = in->nprocs, same = st->blocks[0] >= 0 || p == 0;
    for (int i = 0; same && i < p; i++)
        same = st->blocks[i] == in->count[i] && st->blocks[p + i] == in->displ[i];
    if (!same) {
        st->judging = st->moved && !st->planned_undo && st->blocks[0] >= 0;
        if (st->moved && st->planned_undo) st->hold = st->backoff;
        st->n = 0;
        memcpy(st->blocks, in->count, sizeof *st->blocks * (size_t)p);
        memcpy(st->blocks + p, in->displ, sizeof *st->blocks * (size_t)p);
    }
    st->moved = st->planned_undo = 0;
    double it = in->iterations > 0 ? in->iterations : 1;
    int measured = 0;
    for (int i = 0; in->work && i < p; i++) measured |= in->work[i] > 0;
    for (int i = 0; i < p; i++) {
        size_t at = (size_t)st->head * p + i;
        double cpu = in->t_real[i] > 0 ? in->t_cpu[i] / in->t_real[i] : 1;
        cpu = cpu > 1 ? 1 : cpu > 0 ? cpu : 0;
        st->comp[at] = compute_time(in, i) / it;
        st->share[at] = cpu;
        st->work[at] = measured ? in->work[i] / it : 0;
        st->shares[(size_t)st->share_head * p + i] = cpu;
    }
    st->head = (st->head + 1) % XMPIR_LB_WINDOW;
    st->n += st->n < XMPIR_LB_WINDOW;
    st->share_head = (st->share_head + 1) % XMPIR_LB_KMAX;
    st->nshare += st->nshare < XMPIR_LB_KMAX;
}

/* Dedicated PEs this interval, and what kind of interference the others have. */
static void classify(const struct xmpi_balance_params *prm, const struct xmpi_balance_state *st,
                     const struct xmpi_balance_input *in, struct xmpi_balance_decision *d)
{
    d->dedicated = 1;
    for (int i = 0; i < in->nprocs; i++)
        if (in->t_real[i] > 0 && (in->t_real[i] - in->t_cpu[i]) / in->t_real[i] > prm->th2)
            d->dedicated = 0;
    d->interference = d->dedicated ? XMPIR_LB_NONE : loads_last(prm, st) ? XMPIR_LB_LONG
                                                                         : XMPIR_LB_BURST;
}

/* Iterations a move's saving per iteration counts for: the rest of the run under whole_run,
 * else one interval at most; one interval when the run's length is unknown. */
static double horizon(const struct xmpi_balance_params *prm, const struct xmpi_balance_input *in)
{
    if (in->remaining < 0) return in->iterations;
    return prm->whole_run || in->remaining < in->iterations ? in->remaining : in->iterations;
}

/* The next hold after a move that did not pay: 2k intervals, then twice the last. */
static int hold_length(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st)
{
    st->backoff = st->backoff ? 2 * st->backoff : 2 * prm->k;
    st->backoff = st->backoff > XMPIR_LB_KMAX ? XMPIR_LB_KMAX : st->backoff;
    return st->backoff;
}

/* Did a rank the move took rows from get slower too, beyond the noise? Then the outside
 * load changed under the move (less work cannot make a rank slower), and the intervals say
 * nothing about it. med[0..p): each rank's median time per iteration since the move. */
static int load_changed(const struct xmpi_balance_state *st, const double *med, double noise)
{
    for (int i = 0; i < st->p; i++)
        if (st->blocks[i] < st->blocks[2 * st->p + i] && st->before_rank[i] > 0 &&
            med[i] > st->before_rank[i] * (1 + noise))
            return 1;
    return 0;
}

/* Once the intervals on a move's blocks are enough to judge it: 1 when the move made the
 * slowest rank slower beyond the noise while the ranks it relieved did not slow down, and
 * putting the rows back would pay (the state plans the undo), else 0. slowest[0..n): the
 * slowest rank's time per iteration in each interval; med: each rank's median. */
static int judge(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                 const struct xmpi_balance_input *in, double *slowest, const double *med,
                 struct xmpi_balance_decision *d)
{
    if (!st->judging || st->n < XMPIR_LB_EVIDENCE) return 0;
    st->judging = 0;
    double noise = spread(slowest, st->n);
    noise = noise > st->before_spread ? noise : st->before_spread;
    noise = noise > 0.03 ? noise : 0.03;
    double after = median(slowest, st->n);
    if (load_changed(st, med, noise)) return 0;
    if (!(after > st->before * (1 + noise))) {
        if (st->before - after < 0.25 * st->predicted) st->hold = hold_length(prm, st);
        return 0;
    }
    d->gain = (after - st->before) * horizon(prm, in);
    if (d->gain <= st->move_cost + st->rebuild_cost) return 0;
    st->undoing = 1;
    d->undo = 1;
    snprintf(d->why, sizeof d->why, "the last move made the slowest rank %.1f%% slower per "
             "iteration (%.3g s -> %.3g s over %d intervals; noise %.1f%%): putting its rows back",
             100 * (after / st->before - 1), st->before, after, st->n, 100 * noise);
    return 1;
}

/* Imbalance over the window: (max - min) / max of each rank's median time per iteration,
 * the medians into med[0..p). */
static double window_imbalance(const struct xmpi_balance_state *st, double *x, double *med)
{
    double hi = 0, lo = INFINITY;
    for (int i = 0; i < st->p; i++) {
        double m = med[i] = median(x + (size_t)i * st->n, st->n);
        hi = m > hi ? m : hi;
        lo = m < lo ? m : lo;
    }
    return hi > 0 ? (hi - lo) / hi : 0;
}

int xmpi_balance_assess(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                   const struct xmpi_balance_input *in, struct xmpi_balance_decision *d)
{
    *d = (struct xmpi_balance_decision){0};
    if (bad_input(prm, st, in, d)) return -1;
    double *slowest = state_fit(st, in->nprocs) ? NULL
                    : malloc(sizeof(double) * (XMPIR_LB_WINDOW + (size_t)in->nprocs));
    if (!slowest) {
        snprintf(d->why, sizeof d->why, "out of memory");
        return -2;
    }
    record(st, in);
    st->intervals++;
    classify(prm, st, in, d);
    d->evidence = st->n;
    double *x = window_times(prm, st, slowest);
    double *med = slowest + XMPIR_LB_WINDOW;
    if (x) d->imbalance = window_imbalance(st, x, med);   /* reorders x */
    free(x);
    int undo = x && judge(prm, st, in, slowest, med, d);
    free(slowest);
    if (!x) {
        snprintf(d->why, sizeof d->why, "out of memory");
        return -2;
    }
    if (undo) return 1;
    d->imbalanced = d->imbalance > prm->th1;
    if (st->hold > 0) {
        snprintf(d->why, sizeof d->why, "imbalance %.1f%%: holding off for %d more interval(s) "
                 "after a move that did not pay", 100 * d->imbalance, st->hold--);
        return 0;
    }
    if (!d->imbalanced) {
        snprintf(d->why, sizeof d->why, "balanced: imbalance %.1f%% <= %.1f%% (median of %d "
                 "interval(s) on these blocks)", 100 * d->imbalance, 100 * prm->th1, st->n);
        return 0;
    }
    if (st->n < XMPIR_LB_EVIDENCE) {
        snprintf(d->why, sizeof d->why, "imbalance %.1f%% in %d interval(s) on these blocks: "
                 "waiting for %d", 100 * d->imbalance, st->n, XMPIR_LB_EVIDENCE);
        return 0;
    }
    return 1;
}

/* Ranks without a measurement (new ones) take the mean power of the measured ranks of their
 * class, else of all measured ranks. power[i] <= 0 marks them. */
static void fill_unmeasured(const struct xmpi_balance_input *in, double *power)
{
    int n = 0;
    double sum = 0;
    for (int i = 0; i < in->nprocs; i++)
        if (power[i] > 0) {
            n++;
            sum += power[i];
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
}

/* Row weight of rows [lo, lo + n): rows, or their summed weights. */
static double weight_of(const struct xmpi_balance_input *in, int lo, int n)
{
    if (!in->rowweight) return n;
    double w = 0;
    for (int r = lo; r < lo + n; r++) w += in->rowweight[r];
    return w;
}

/* What the balancer plans from: the window's times x (rank-major, n per rank) and slowest
 * rank per interval, each rank's power (median over the window) in the units the partition
 * splits, and in row-weight units (rate), the row weight of each current block (wr) and of
 * each proposed one (wr + p). */
struct evidence {
    int p, n;
    double *x, *slowest, *power, *rate, *wr;
};

static void evidence_free(struct evidence *e)
{
    free(e->x);
    free(e->slowest);
    free(e->power);
}

static int evidence_build(const struct xmpi_balance_params *prm,
                          const struct xmpi_balance_state *st,
                          const struct xmpi_balance_input *in, struct evidence *e)
{
    int p = in->nprocs, n = st->n;
    *e = (struct evidence){p, n, NULL, malloc(sizeof(double) * (n + 1)),
                           malloc(sizeof(double) * (4 * (size_t)p + n + 1)), NULL, NULL};
    if (!e->slowest || !e->power || !(e->x = window_times(prm, st, e->slowest))) return -2;
    e->rate = e->power + p;
    e->wr = e->rate + p;
    double *tmp = e->wr + 2 * (size_t)p;
    int measured = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < p; i++) measured |= st->work[(size_t)slot(st, j) * p + i] > 0;
    for (int i = 0; i < p; i++) {
        e->wr[i] = weight_of(in, in->displ[i], in->count[i]);
        int m = 0, r = 0;
        for (int j = 0; j < n; j++) {
            double x = e->x[(size_t)i * n + j];
            double num = measured && !in->rowweight ? st->work[(size_t)slot(st, j) * p + i]
                                                    : e->wr[i];
            if (x > 0 && num > 0) tmp[m++] = num / x;
        }
        e->power[i] = m ? median(tmp, m) : -1;
        for (int j = 0; j < n; j++)
            if (e->x[(size_t)i * n + j] > 0 && e->wr[i] > 0) tmp[r++] = e->wr[i] / e->x[(size_t)i * n + j];
        e->rate[i] = r ? median(tmp, r) : -1;
    }
    fill_unmeasured(in, e->power);
    fill_unmeasured(in, e->rate);
    return 0;
}

/* The proposed blocks' gain per iteration in each interval of the window, g[0..n): the slowest
 * rank's time against the slowest of the new blocks at each rank's speed in that interval. */
static void counterfactual(const struct evidence *e, double *g)
{
    for (int j = 0; j < e->n; j++) {
        double after = 0;
        for (int i = 0; i < e->p; i++) {
            double x = e->x[(size_t)i * e->n + j];
            double per = x > 0 && e->wr[i] > 0 ? x / e->wr[i] : 1 / e->rate[i];
            double t = e->wr[e->p + i] * per;
            after = t > after ? t : after;
        }
        g[j] = e->slowest[j] - after;
    }
}

/* Would the proposed blocks have been faster in every interval, or on average by more than
 * twice the standard error over four or more? Counts the intervals they win in *won. */
static int convincing(const double *g, int n, int *won)
{
    double sum = 0, sq = 0;
    *won = 0;
    for (int j = 0; j < n; j++) {
        *won += g[j] > 0;
        sum += g[j];
    }
    if (n >= XMPIR_LB_EVIDENCE && *won == n) return 1;
    if (n < 4) return 0;
    double mean = sum / n;
    for (int j = 0; j < n; j++) sq += (g[j] - mean) * (g[j] - mean);
    return mean - 2 * sqrt(sq / (n - 1) / n) > 0;
}

/* The undo the judgement asked for: the blocks before the last move, and a hold that grows. */
static void plan_undo(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                      int p, struct xmpi_balance_decision *d, int *count, int *displ)
{
    memcpy(count, st->blocks + 2 * p, sizeof *count * (size_t)p);
    memcpy(displ, st->blocks + 3 * p, sizeof *displ * (size_t)p);
    hold_length(prm, st);   /* counted from when the rows are back */
    st->undoing = 0;
    st->planned_undo = 1;
    st->moves++;
    st->undone++;
    d->rebalance = d->undo = 1;
    size_t len = strlen(d->why);
    snprintf(d->why + len, sizeof d->why - len, "; then no move for %d intervals", st->backoff);
}

/* A move was decided: what its judgement needs (the slowest rank's times before it, the
 * blocks to go back to). */
static void plan_move(struct xmpi_balance_state *st, const struct xmpi_balance_input *in,
                      const struct evidence *e, double predicted, struct xmpi_balance_decision *d)
{
    int p = in->nprocs;
    st->predicted = predicted;
    st->before_spread = spread(e->slowest, st->n);
    st->before = median(e->slowest, st->n);
    for (int i = 0; i < p; i++) {   /* median(e->slowest) above may reorder: x is intact */
        double c[XMPIR_LB_WINDOW];
        memcpy(c, e->x + (size_t)i * st->n, sizeof *c * (size_t)st->n);
        st->before_rank[i] = median(c, st->n);
    }
    memcpy(st->blocks + 2 * p, in->count, sizeof *st->blocks * (size_t)p);
    memcpy(st->blocks + 3 * p, in->displ, sizeof *st->blocks * (size_t)p);
    st->moves++;
    d->rebalance = 1;
    snprintf(d->why, sizeof d->why, "imbalance %.1f%%%s: the proportional blocks would have "
             "been faster in the last %d intervals; rebalancing should save %.3g s",
             100 * d->imbalance, d->interference == XMPIR_LB_LONG ? " with a steady outside load" : "",
             st->n, d->gain);
}

/* Is a move worth it? 1 when yes; else 0 with the reason in d->why. */
static int worth_it(const struct xmpi_balance_state *st, int won, int ok,
                    struct xmpi_balance_decision *d)
{
    if (!ok) {
        snprintf(d->why, sizeof d->why, "imbalance %.1f%%: the proportional blocks would have been "
                 "faster in %d of the last %d intervals: waiting for steadier evidence",
                 100 * d->imbalance, won, st->n);
        return 0;
    }
    if (d->gain > st->move_cost + st->rebuild_cost) return 1;
    if (st->rebuild_cost > 0)
        snprintf(d->why, sizeof d->why, "imbalance %.1f%%: a move would save %.3g s, not more "
                 "than the last move cost (%.3g s) and the program's rebuild after it (%.3g s)",
                 100 * d->imbalance, d->gain, st->move_cost, st->rebuild_cost);
    else
        snprintf(d->why, sizeof d->why, "imbalance %.1f%%: a move would save %.3g s, not more "
                 "than the last move cost (%.3g s)", 100 * d->imbalance, d->gain, st->move_cost);
    return 0;
}

int xmpi_balance_plan(const struct xmpi_balance_params *prm, struct xmpi_balance_state *st,
                 const struct xmpi_balance_input *in, struct xmpi_balance_decision *d, int *count, int *displ)
{
    if (bad_input(prm, st, in, d) || !count || !displ || st->p != in->nprocs) return -1;
    int p = in->nprocs;
    if (st->undoing) {
        plan_undo(prm, st, p, d, count, displ);
        return 0;
    }
    struct evidence e = {0};
    double *g = malloc(sizeof *g * ((size_t)st->n + 1));
    if (!g || evidence_build(prm, st, in, &e)) {
        free(g);
        evidence_free(&e);
        snprintf(d->why, sizeof d->why, "out of memory");
        return -2;
    }
    char sub[200];
    int rc = xmpi_part_weighted(in->size, p, in->rowweight, e.power, count, displ, sub, sizeof sub);
    int same = !rc;
    for (int i = 0; !rc && i < p; i++)
        same &= count[i] == in->count[i] && (count[i] == 0 || displ[i] == in->displ[i]);
    if (rc) snprintf(d->why, sizeof d->why, "no partition: %s", sub);
    else if (same)
        snprintf(d->why, sizeof d->why, "imbalance %.1f%% but the proportional blocks are the "
                 "current ones", 100 * d->imbalance);
    if (!rc && !same) {
        for (int i = 0; i < p; i++) e.wr[p + i] = weight_of(in, displ[i], count[i]);
        counterfactual(&e, g);
        int won, ok = convincing(g, st->n, &won);
        double per = median(g, st->n);
        d->gain = per * horizon(prm, in);
        if (worth_it(st, won, ok, d)) plan_move(st, in, &e, per, d);
    }
    free(g);
    evidence_free(&e);
    return rc == -2 ? -2 : rc ? -1 : 0;
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

int xmpi_balance_powers(const struct xmpi_balance_input *in, double *power)
{
    int measured_work = 0;
    for (int i = 0; in->work && i < in->nprocs; i++) measured_work |= in->work[i] > 0;
    int n = 0;
    for (int i = 0; i < in->nprocs; i++) {
        double t = compute_time(in, i), w = block_work(in, i, measured_work);
        power[i] = t > 0 && w > 0 ? w / t : -1;
        n += power[i] > 0;
    }
    fill_unmeasured(in, power);
    return n;
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

/* Each block's rows take its total: the rows just learned from a difference keep their cost
 * and the others share the rest, keeping the shape earlier intervals learned. */
static void spread_blocks(double *cost, const unsigned char *fixed, int p, const int *count,
                          const int *displ, const double *block_total)
{
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
}

/* Are the costs of rows [a, b) all the same (spread evenly from one sum)? */
static int even_run(const double *cost, int a, int b)
{
    for (int r = a + 1; r < b; r++)
        if (fabs(cost[r] - cost[a]) > 1e-9 * fabs(cost[a])) return 0;
    return b - a >= 2 && cost[a] > 0;
}

/* Rows [a, b) known only by their sum, spread evenly, between rows of cost dl (left) and dr
 * (right): a single step, rows near each end at that end's cost, when the mean lies well
 * between the two. A step in the costs (the common shape: a region of costlier rows) is then
 * placed where the sum says, instead of being smeared over the run. */
static void step_between(double *cost, int a, int b, double dl, double dr)
{
    double u = cost[a], lo = dl < dr ? dl : dr, hi = dl < dr ? dr : dl;
    if (!(u > lo + 0.1 * (hi - lo) && u < hi - 0.1 * (hi - lo))) return;
    double sum = u * (b - a), s = a + (sum - dr * (b - a)) / (dl - dr);
    for (int r = a; r < b; r++) {
        double left = s - r;   /* the part of row r left of the step */
        left = left < 0 ? 0 : left > 1 ? 1 : left;
        cost[r] = left * dl + (1 - left) * dr;
    }
}

/* Rows [a, b) known only by their sum, spread evenly, next to rows of cost dn at their `near`
 * end (the other end has no known neighbour): a ramp from dn, so that a block whose rows just
 * learned cost much less than its mean puts the excess towards its far end. Left alone when
 * the ramp would go negative. */
static void ramp_from(double *cost, int a, int b, double dn, int near_left)
{
    int m = b - a;
    double sum = cost[a] * m, g = 2 * (sum - m * dn) / ((double)m * m);
    if (dn + g * m < 0 || dn <= 0) return;
    for (int k = 0; k < m; k++) cost[near_left ? a + k : b - 1 - k] = dn + g * (k + 0.5);
}

/* End of the run of rows starting at a whose `fixed` marks equal a's. */
static int run_end(const unsigned char *fixed, int n, int a)
{
    int b = a + 1;
    while (b < n && fixed[b] == fixed[a]) b++;
    return b;
}

/* Mean cost of rows [a, b). */
static double mean_cost(const double *cost, int a, int b)
{
    double sum = 0;
    for (int r = a; r < b; r++) sum += cost[r];
    return b > a ? sum / (b - a) : 0;
}

/* The shape inside what only sums tell: a run of rows spread evenly that touches the first or
 * last row takes a ramp from the mean of the rows just learned that it borders; then each run
 * of rows just learned from a difference takes a step between its neighbours' costs. */
static void shape_runs(double *cost, int n, const unsigned char *fixed)
{
    for (int a = 0, b; a < n; a = b) {
        b = run_end(fixed, n, a);
        if (fixed[a] || !even_run(cost, a, b)) continue;
        if (a == 0 && b < n) ramp_from(cost, a, b, mean_cost(cost, b, run_end(fixed, n, b)), 0);
        else if (b == n && a > 0) {
            int c = a - 1;
            while (c > 0 && fixed[c - 1]) c--;
            ramp_from(cost, a, b, mean_cost(cost, c, a), 1);
        }
    }
    for (int a = 0, b; a < n; a = b) {
        b = run_end(fixed, n, a);
        if (fixed[a] && a > 0 && b < n && even_run(cost, a, b))
            step_between(cost, a, b, cost[a - 1], cost[b]);
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
    spread_blocks(cost, fixed, p, count, displ, block_total);
    if (fixed) shape_runs(cost, n, fixed);
    free(fixed);
    free(norm);
    return 0;
}
