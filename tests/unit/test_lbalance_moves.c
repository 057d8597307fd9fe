/* policies/balance.c, the moves: blocks in proportion to measured power (new processes take
 * their class's), by row weight for the nnz policy, no move that costs more than it saves, a
 * move that went part of the way refined by the next, and every row kept on 2000 random
 * cases. */
#include <string.h>
#include <math.h>

#include "lbalance_sim.h"
#include "lbalance_synth.h"
#include "suites.h"

START_TEST(imbalanced_dedicated_moves_by_power)
{
    /* Rank 1 is twice as slow per row: it should get half the rows of each other rank. */
    struct synth s;
    double t[P] = {1.0, 2.0, 1.0, 1.0};
    synth(&s, P, 700, t);
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);   /* one interval: no evidence yet */
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    ck_assert_int_eq(d.interference, XMPIR_LB_NONE);
    /* Powers 175, 87.5, 175, 175 rows/s: shares 2/7, 1/7, 2/7, 2/7 of 700 rows. */
    int want[P] = {200, 100, 200, 200};
    char why[200];
    ck_assert_int_eq(xmpi_part_check(700, P, c, dp, why, sizeof why), 0);
    for (int i = 0; i < P; i++) ck_assert_int_eq(c[i], want[i]);
    for (int i = 1; i < P; i++) ck_assert_int_eq(dp[i], dp[i - 1] + c[i - 1]);
    /* Gain: slowest 2 s against 700 rows / 612.5 rows/s. */
    ck_assert(fabs(d.gain - (2.0 - 700 / 612.5)) < 1e-9);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(no_ping_pong)
{
    struct synth s;
    double t[P] = {1.0, 1.2, 1.0, 1.0};
    synth(&s, P, 1000, t);
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    /* A move that cost more than it would now save is not made. */
    st.move_cost = d.gain * 1.01;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);
    ck_assert_int_eq(d.imbalanced, 1);
    /* Nor one whose transfer alone would pay, but not with the program's rebuild after it
     * (XMPI_Set_rebuild): every move pays that again. */
    st.move_cost = d.gain * 0.6;
    st.rebuild_cost = d.gain * 0.5;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);
    ck_assert_msg(strstr(d.why, "the program's rebuild after it") != NULL, "%s", d.why);
    st.rebuild_cost = d.gain * 0.3;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    st.rebuild_cost = 0;
    /* Nor one at the end of the run: no iterations left to gain anything. */
    st.move_cost = 0;
    s.in.remaining = 0;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);
    /* Half an interval left: half the gain. */
    s.in.remaining = 50;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    double half = d.gain;
    s.in.remaining = -1;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert(fabs(2 * half - d.gain) < 1e-12);
    xmpi_balance_state_free(&st);
}
END_TEST

/* A move that went part of the way worked; what is left is refined by the next move. */
START_TEST(a_move_that_worked_is_refined)
{
    /* Four ranks of 200 rows at 10 us; rank 1 also spends 1 ms per iteration that does not
     * follow its rows (3 ms against 2). The proportional move leaves it 146 rows and 2.46 ms
     * against 2.18: two thirds of the predicted saving, and 11% imbalance left, refined by a
     * second move two intervals later; then nothing more. */
    struct sim s;
    sim_init(&s, 4, 800, 1e-5);
    s.fixed[1] = 1e-3;
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int at[3] = {-1, -1, -1}, m = 0;
    for (int j = 0; j < 20; j++) {
        sim_interval(&s);
        ck_assert_int_eq(sim_step(&s, &prm3, &st, &d), 0);
        if (d.rebalance && m < 3) at[m++] = j;
    }
    ck_assert_int_eq(at[0], 1);
    ck_assert_int_eq(at[1], 3);
    ck_assert_int_eq(at[2], -1);
    ck_assert_int_eq(s.undos, 0);
    sim_interval(&s);
    double hi = 0, lo = 1;
    for (int i = 0; i < 4; i++) {
        double t = sim_compute(&s, i);
        hi = t > hi ? t : hi;
        lo = t < lo ? t : lo;
    }
    ck_assert_msg((hi - lo) / hi <= 0.10, "imbalance %.3f left, rank 1 holds %d rows",
                  (hi - lo) / hi, s.count[1]);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(unmeasured_ranks_take_class_power)
{
    struct synth s;
    double t[P] = {1.0, 2.0, 0.0, 0.0};   /* ranks 2, 3 just joined: no measurement */
    synth(&s, P, 800, t);
    s.count[2] = s.count[3] = 0;
    s.count[0] = 400;
    s.count[1] = 400;
    s.displ[1] = 400;
    s.displ[2] = s.displ[3] = 800;
    s.work[0] = 400;
    s.work[1] = 400;
    s.work[2] = s.work[3] = 0;
    int cls[P] = {0, 1, 1, 0};
    s.in.rank_class = cls;
    double pw[P];
    ck_assert_int_eq(xmpi_balance_powers(&s.in, pw), 2);
    ck_assert(fabs(pw[0] - 400) < 1e-12);
    ck_assert(fabs(pw[1] - 200) < 1e-12);
    ck_assert(fabs(pw[2] - 200) < 1e-12);   /* class 1, like rank 1 */
    ck_assert(fabs(pw[3] - 400) < 1e-12);   /* class 0, like rank 0 */
    s.in.rank_class = NULL;
    ck_assert_int_eq(xmpi_balance_powers(&s.in, pw), 2);
    ck_assert(fabs(pw[2] - 300) < 1e-12);   /* no classes: the mean */
}
END_TEST

START_TEST(nnz_policy_balances_weight)
{
    /* 8 rows: row 0 weighs 30, the others 1 each (37 in all), 2 equal ranks measured on
     * even blocks. Rank 0 did 33 units in 3 s, rank 1 4 units in... equal power: 11/s. */
    double w[8] = {30, 1, 1, 1, 1, 1, 1, 1};
    struct synth s;
    double t[2] = {33.0 / 11, 4.0 / 11};
    synth(&s, 2, 8, t);
    s.work[0] = 33;
    s.work[1] = 4;
    s.in.rowweight = w;
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[2], dp[2];
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    /* Equal powers: half of 37 is 18.5; the boundary nearest is after row 0 (30). */
    ck_assert_int_eq(c[0], 1);
    ck_assert_int_eq(c[1], 7);
    /* Declared work in other units (FLOP, say) must not bias the split by weight: power is
     * the block's row weight over its compute time. */
    s.work[0] = 1000;
    s.work[1] = 1000;
    xmpi_balance_state_free(&st);
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    ck_assert_int_eq(c[0], 1);
    ck_assert_int_eq(c[1], 7);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(every_row_kept_random)
{
    unsigned seed = 12345;
    int moved = 0;
    for (int trial = 0; trial < 2000; trial++) {
        struct synth s;
        double t[P];
        int p = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % P;
        int size = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 300;
        for (int i = 0; i < P; i++)
            t[i] = 0.1 + (double)((seed = seed * 1103515245u + 12345u) >> 16 & 1023) / 256.0;
        synth(&s, p, size, t);
        struct xmpi_balance_params k1 = {0.0, 0.05, 1, 0};
        struct xmpi_balance_state st = {0};
        struct xmpi_balance_decision d;
        int c[P], dp[P];
        ck_assert_int_eq(xmpi_balance_decide(&k1, &st, &s.in, &d, c, dp), 0);
        ck_assert_int_eq(xmpi_balance_decide(&k1, &st, &s.in, &d, c, dp), 0);
        xmpi_balance_state_free(&st);
        if (!d.rebalance) continue;
        char why[200];
        ck_assert_msg(xmpi_part_check(size, p, c, dp, why, sizeof why) == 0, "trial %d: %s", trial, why);
        for (int i = 0; i < p && size >= p; i++) ck_assert_int_ge(c[i], 1);
        moved++;
    }
    /* Only the cases that move are checked: they must not become too few to prove anything
     * (1466 of the 2000 with this seed). */
    ck_assert_msg(moved >= 1000, "only %d of 2000 random cases moved rows", moved);
}
END_TEST

Suite *lbalance_moves_suite(void)
{
    Suite *s = suite_create("lbalance_moves");
    TCase *tc = tcase_create("decision");
    tcase_add_test(tc, imbalanced_dedicated_moves_by_power);
    tcase_add_test(tc, no_ping_pong);
    tcase_add_test(tc, a_move_that_worked_is_refined);
    tcase_add_test(tc, unmeasured_ranks_take_class_power);
    tcase_add_test(tc, nnz_policy_balances_weight);
    tcase_add_test(tc, every_row_kept_random);
    suite_add_tcase(s, tc);
    return s;
}
