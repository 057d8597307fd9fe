/* policies/balance.c, --xmpi-lb=time: the per-row cost map learned from block totals, and
 * the split it gives (xmpi_part_weighted with the map as row weights), run for a few moves on
 * synthetic row costs: uniform, a step, a ramp and a few hot rows, on equal and unequal
 * processors. The reference is the best contiguous split of the true costs, found by a binary
 * search over the largest block time (independent of the map and of the split). */
#include <math.h>
#include <stdlib.h>

#include "../../models/partition.h"
#include "../../policies/balance.h"
#include "lbalance_synth.h"
#include "rng.h"
#include "suites.h"

#define NMAX 2000

/* Time of each block of the true costs w on processors of speeds sp. */
static void block_times(const double *w, const double *sp, int p, const int *count,
                        const int *displ, double *t)
{
    for (int i = 0; i < p; i++) {
        t[i] = 0;
        for (int r = displ[i]; r < displ[i] + count[i]; r++) t[i] += w[r];
        t[i] /= sp[i];
    }
}

static double max_of(const double *t, int p)
{
    double m = 0;
    for (int i = 0; i < p; i++) m = t[i] > m ? t[i] : m;
    return m;
}

/* Can rows [0, n) go to p processors in rank order with no block time above cap? */
static int fits(const double *w, const double *sp, int n, int p, double cap)
{
    int r = 0;
    for (int i = 0; i < p && r < n; i++) {
        double t = 0;
        while (r < n && t + w[r] / sp[i] <= cap) t += w[r++] / sp[i];
    }
    return r == n;
}

/* The smallest largest block time of any contiguous split in rank order. */
static double best_split(const double *w, const double *sp, int n, int p)
{
    double lo = 0, hi = 0;
    for (int r = 0; r < n; r++) hi += w[r] / sp[0] + w[r] / sp[p - 1];
    for (int k = 0; k < 200; k++) {
        double mid = 0.5 * (lo + hi);
        if (fits(w, sp, n, p, mid)) hi = mid;
        else lo = mid;
    }
    return hi;
}

/* Runs `moves` intervals from even blocks: measure (block times, or work when `work_known`;
 * each time off by up to +-noise, a fraction, as a shared machine's are), learn, split.
 * Returns the largest true block time after the last move, over the reference. */
static double converge_noisy(const double *w, const double *sp, int n, int p, int moves,
                             int work_known, double noise, uint64_t seed)
{
    double cost[NMAX] = {0}, t[16], total[16], power[16], ptotal[16], slow[16];
    int count[16], displ[16], pcount[16], pdispl[16];
    xmpi_part_even(n, p, count, displ);
    for (int i = 0; i < p; i++) slow[i] = 1;
    char why[200];
    for (int m = 0; m < moves; m++) {
        block_times(w, sp, p, count, displ, t);
        for (int i = 0; i < p; i++) {
            total[i] = work_known ? t[i] * sp[i] : t[i];
            t[i] *= 1 + noise * (2 * rng_unit(&seed) - 1);
            total[i] = work_known ? total[i] : t[i];
        }
        ck_assert_int_eq(xmpi_balance_costmap_observe(cost, n, p, count, displ, total,
                                                 m ? pcount : NULL, pdispl, ptotal,
                                                 work_known ? NULL : slow), 0);
        /* Power as the balancer computes it: the block's cost over its time. */
        for (int i = 0; i < p; i++) {
            double c = 0;
            for (int r = displ[i]; r < displ[i] + count[i]; r++) c += cost[r];
            power[i] = t[i] > 0 && c > 0 ? c / t[i] : 1;
        }
        for (int i = 0; i < p; i++) {
            pcount[i] = count[i];
            pdispl[i] = displ[i];
            ptotal[i] = total[i];
        }
        ck_assert_int_eq(xmpi_part_weighted(n, p, cost, power, count, displ, why, sizeof why), 0);
        ck_assert_int_eq(xmpi_part_check(n, p, count, displ, why, sizeof why), 0);
    }
    block_times(w, sp, p, count, displ, t);
    return max_of(t, p) / best_split(w, sp, n, p);
}

static double converge(const double *w, const double *sp, int n, int p, int moves,
                       int work_known)
{
    return converge_noisy(w, sp, n, p, moves, work_known, 0, 0);
}

enum shape { UNIFORM, STEP, RAMP, HOT };

static void make(double *w, int n, enum shape sh, uint64_t *seed)
{
    for (int r = 0; r < n; r++) {
        switch (sh) {
        case UNIFORM: w[r] = 1; break;
        case STEP: w[r] = r < n / 4 ? 4 : 1; break;            /* the case */
        case RAMP: w[r] = 1 + 3.0 * r / n; break;
        case HOT: w[r] = 1; break;
        }
    }
    if (sh == HOT)
        for (int k = 0; k < 5; k++) w[(int)rng_count(seed, (uint64_t)n)] = 50;
}

START_TEST(equal_processors_converge_for_every_shape)
{
    /* Equal processors, nothing but times: within 5% of the best split (plus a row) in
     * three moves, for each shape and 2, 3 and 4 processors. */
    uint64_t seed = 7;
    double w[NMAX], sp[4] = {1, 1, 1, 1};
    for (int sh = UNIFORM; sh <= HOT; sh++)
        for (int p = 2; p <= 4; p++) {
            make(w, 400, (enum shape)sh, &seed);
            double r = converge(w, sp, 400, p, 3, 0);
            ck_assert_msg(r <= 1.05 + 50.0 / 400, "shape %d, p %d: %.3f of the best", sh, p, r);
        }
}
END_TEST

START_TEST(step_is_balanced_in_three_moves)
{
    /* The case: a quarter of the rows costs four times the others, two equal ranks.
     * The first move sees the costly block as evenly costly and goes only part of the way
     * (140 rows for 87.5); each move after it learns the cost of the rows that changed hands
     * from the difference of a block's two totals: within 10% of the best after three. */
    double w[NMAX], sp[2] = {1, 1};
    uint64_t seed = 1;
    make(w, 400, STEP, &seed);
    double one = converge(w, sp, 400, 2, 1, 0), three = converge(w, sp, 400, 2, 3, 0);
    ck_assert_msg(one < 1.30 && three <= 1.10, "one move %.4f, three %.4f of the best", one, three);
}
END_TEST

START_TEST(uniform_rows_reduce_to_the_thesis_split)
{
    /* Rows of one cost: the map stays uniform, and with the power of each rank (work known)
     * the split is exactly the power-proportional one, in one move. */
    int n = 700, p = 4, count[4], displ[4], want_c[4], want_d[4];
    double cost[700] = {0}, total[4], power[4], sp[4] = {1, 0.5, 1, 1};
    xmpi_part_even(n, p, count, displ);
    for (int i = 0; i < p; i++) {
        total[i] = count[i];                 /* work: one unit per row */
        power[i] = total[i] / (count[i] / sp[i]);
    }
    char why[200];
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, n, p, count, displ, total, NULL, NULL, NULL, NULL), 0);
    for (int r = 1; r < n; r++) ck_assert(fabs(cost[r] - cost[0]) < 1e-12);
    ck_assert_int_eq(xmpi_part_weighted(n, p, cost, power, count, displ, why, sizeof why), 0);
    ck_assert_int_eq(xmpi_part_weighted(n, p, NULL, sp, want_c, want_d, why, sizeof why), 0);
    for (int i = 0; i < p; i++) ck_assert_int_eq(count[i], want_c[i]);
}
END_TEST

START_TEST(unequal_processors)
{
    /* Speeds 1 and 0.5. With the work known, power is known and the map converges as on
     * equal processors (three moves). With times only, the first move takes the slow rank's
     * rows for costly ones; the rows it moved, timed on both ranks, tell the speeds apart:
     * within 10% after three moves (eight before the speeds were learned), also with times
     * off by up to 3%, and with three processors. */
    uint64_t seed = 3;
    double w[NMAX], sp[2] = {1, 0.5}, sp3[3] = {1, 0.5, 1};
    for (int sh = UNIFORM; sh <= HOT; sh++) {
        make(w, 600, (enum shape)sh, &seed);
        double known = converge(w, sp, 600, 2, 3, 1);
        ck_assert_msg(known <= 1.10, "shape %d, work known: %.3f of the best", sh, known);
        double times = converge(w, sp, 600, 2, 3, 0);
        ck_assert_msg(times <= 1.10, "shape %d, times only: %.3f of the best", sh, times);
        double noisy = converge_noisy(w, sp, 600, 2, 3, 0, 0.03, 11);
        ck_assert_msg(noisy <= 1.10, "shape %d, noisy times: %.3f of the best", sh, noisy);
        if (sh == STEP || sh == HOT) continue;   /* three processors, a step or hot rows: the
                                                  * middle block moves both ends and teaches no
                                                  * speed; it takes more moves */
        double three = converge(w, sp3, 600, 3, 3, 0);
        ck_assert_msg(three <= 1.10, "shape %d, three ranks: %.3f of the best", sh, three);
    }
}
END_TEST

START_TEST(speeds_are_learned_from_the_rows_that_moved)
{
    /* Uniform rows on speeds 1 and 0.25 (times only). On even blocks (250 / 250) the slow
     * block looks four times as costly, and the first split equalizes that apparent cost
     * (about 344 / 156). The 94 rows it moved are timed on both ranks: the second observation
     * gives the slowness ratio exactly (4), and the split is then the power-proportional
     * one (400 / 100). */
    int n = 500, p = 2, count[2], displ[2], pc[2], pd[2], want_c[2], want_d[2];
    double cost[500] = {0}, sp[2] = {1, 0.25}, slow[2] = {1, 1}, t[2], pt[2], power[2], w[500];
    for (int r = 0; r < n; r++) w[r] = 1;
    char why[200];
    xmpi_part_even(n, p, count, displ);
    for (int m = 0; m < 2; m++) {
        block_times(w, sp, p, count, displ, t);
        ck_assert_int_eq(xmpi_balance_costmap_observe(cost, n, p, count, displ, t, m ? pc : NULL,
                                                 pd, pt, slow), 0);
        if (m == 0) ck_assert(slow[1] == 1);   /* nothing moved yet: nothing learned */
        for (int i = 0; i < p; i++) {
            double c = 0;
            for (int r = displ[i]; r < displ[i] + count[i]; r++) c += cost[r];
            power[i] = c / t[i];
            pc[i] = count[i], pd[i] = displ[i], pt[i] = t[i];
        }
        ck_assert_int_eq(xmpi_part_weighted(n, p, cost, power, count, displ, why, sizeof why), 0);
    }
    ck_assert_msg(fabs(slow[1] / slow[0] - 4) < 1e-9, "slowness ratio %.6f", slow[1] / slow[0]);
    ck_assert_int_eq(xmpi_part_weighted(n, p, NULL, sp, want_c, want_d, why, sizeof why), 0);
    ck_assert_int_eq(count[0], want_c[0]);
    ck_assert_int_eq(count[1], want_c[1]);
}
END_TEST

START_TEST(small_differences_teach_no_speed)
{
    /* The boundary moved by 20 rows of 100: each block's time changed by 20%, within what
     * noise and a first move on equal processors do; the slowness is left as it was. A
     * slowness that is not > 0 is refused. */
    double cost[200] = {0}, slow[2] = {1, 1}, t0[2] = {100, 100}, t1[2] = {120, 70};
    int c0[2] = {100, 100}, d0[2] = {0, 100}, c1[2] = {120, 80}, d1[2] = {0, 120};
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 200, 2, c0, d0, t0, NULL, NULL, NULL, slow), 0);
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 200, 2, c1, d1, t1, c0, d0, t0, slow), 0);
    ck_assert(slow[0] == 1 && slow[1] == 1);
    double zero[2] = {1, 0}, nan2[2] = {1, NAN}, before = cost[0];
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 200, 2, c1, d1, t1, c0, d0, t0, zero), -1);
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 200, 2, c1, d1, t1, c0, d0, t0, nan2), -1);
    ck_assert(cost[0] == before);
}
END_TEST

START_TEST(the_shape_inside_a_block_survives)
{
    /* Rows 0-3 cost 1, 2, 3, 4 as learned earlier; the block now measures 20: the shape is
     * kept and scaled (2, 4, 6, 8). A block with an unknown row starts again evenly. */
    double cost[8] = {1, 2, 3, 4, 0, 0, 0, 0}, total[2] = {20, 8};
    int count[2] = {4, 4}, displ[2] = {0, 4};
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 8, 2, count, displ, total, NULL, NULL, NULL, NULL), 0);
    double want[8] = {2, 4, 6, 8, 2, 2, 2, 2};
    for (int r = 0; r < 8; r++) ck_assert(fabs(cost[r] - want[r]) < 1e-12);
}
END_TEST

START_TEST(bad_input_is_refused_and_changes_nothing)
{
    double cost[4] = {1, 1, 1, 1}, ok[2] = {1, 1}, neg[2] = {1, -1}, nan2[2] = {1, NAN};
    int count[2] = {2, 2}, displ[2] = {0, 2}, out[2] = {2, 3};
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 4, 2, count, displ, neg, NULL, NULL, NULL, NULL), -1);
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 4, 2, count, displ, nan2, NULL, NULL, NULL, NULL), -1);
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 4, 2, count, out, ok, NULL, NULL, NULL, NULL), -1);
    ck_assert_int_eq(xmpi_balance_costmap_observe(NULL, 4, 2, count, displ, ok, NULL, NULL, NULL, NULL), -1);
    ck_assert_int_eq(xmpi_balance_costmap_observe(cost, 4, 0, count, displ, ok, NULL, NULL, NULL, NULL), -1);
    for (int r = 0; r < 4; r++) ck_assert(cost[r] == 1);
}
END_TEST

START_TEST(the_time_policy_counts_the_whole_run)
{
    /* 33% imbalance, 100 iterations per interval, 1000 left: one interval's saving is the
     * slowest 1.5 s against 1000 rows at the summed power (3 x 250 + 250 / 1.5 rows/s); over
     * the run ten times that. A move costing 1 s is refused by the one-interval rule and
     * made under the time policy's whole-run rule. The saving is the whole rows' split's:
     * within a row's time on the slow rank (1.5 s / 250) of the ideal. */
    double saving = 1.5 - 1000.0 / (3 * 250 + 250 / 1.5);
    struct synth s;
    double t[P] = {1.0, 1.5, 1.0, 1.0};
    synth(&s, P, 1000, t);
    s.in.remaining = 1000;
    struct xmpi_balance_params one = prm3, whole = prm3;
    whole.whole_run = 1;
    struct xmpi_balance_state st = {.move_cost = 1};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(&one, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(xmpi_balance_decide(&one, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);
    ck_assert_msg(fabs(d.gain - saving) < 1.5 / 250, "%.6g against %.6g", d.gain, saving);
    struct xmpi_balance_state st2 = {.move_cost = 1};
    ck_assert_int_eq(xmpi_balance_decide(&whole, &st2, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(xmpi_balance_decide(&whole, &st2, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    ck_assert(fabs(d.gain - 10 * saving) < 10 * 1.5 / 250);
    xmpi_balance_state_free(&st);
    xmpi_balance_state_free(&st2);
}
END_TEST

Suite *lbalance_time_suite(void)
{
    Suite *s = suite_create("lbalance_time");
    TCase *tc = tcase_create("costmap");
    tcase_add_test(tc, equal_processors_converge_for_every_shape);
    tcase_add_test(tc, step_is_balanced_in_three_moves);
    tcase_add_test(tc, uniform_rows_reduce_to_the_thesis_split);
    tcase_add_test(tc, unequal_processors);
    tcase_add_test(tc, speeds_are_learned_from_the_rows_that_moved);
    tcase_add_test(tc, small_differences_teach_no_speed);
    tcase_add_test(tc, the_shape_inside_a_block_survives);
    tcase_add_test(tc, bad_input_is_refused_and_changes_nothing);
    tcase_add_test(tc, the_time_policy_counts_the_whole_run);
    suite_add_tcase(s, tc);
    return s;
}
