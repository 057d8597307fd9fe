/* policies/balance.c, when to balance: a balanced interval is left alone, imbalance hidden in
 * MPI wait time is found after two intervals of evidence, a rank off its CPU counts as slow
 * only once its load has lasted k intervals (k = 1, 3, 5), and twice as long as a load seen
 * to end before; the TH1 and TH2 edges, and invalid input. */
#include <math.h>

#include "lbalance_synth.h"
#include "suites.h"

START_TEST(balanced_no_move)
{
    struct synth s;
    double t[P] = {1.0, 0.97, 1.02, 0.99};
    synth(&s, P, 1000, t);
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 0);
    ck_assert_int_eq(d.imbalanced, 0);
    ck_assert_int_eq(d.dedicated, 1);
    ck_assert(fabs(d.imbalance - (1.02 - 0.97) / 1.02) < 1e-12);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(comm_time_is_not_compute)
{
    /* Wall times are equal because the fast ranks wait in MPI for the slow one. */
    struct synth s;
    double t[P] = {2.0, 2.0, 2.0, 2.0};
    synth(&s, P, 800, t);
    s.comm[0] = 1.0;
    s.comm[2] = 1.0;
    s.comm[3] = 1.0;
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.imbalanced, 1);
    ck_assert_int_eq(d.rebalance, 0);   /* one interval is no evidence */
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.rebalance, 1);
    ck_assert_int_lt(c[1], c[0]);
    xmpi_balance_state_free(&st);
}
END_TEST

/* Rank 0's rows cost what the others' do, but another program takes 30% of its CPU when
 * `loaded`: its wall time is 1 / 0.7 of theirs. Returns whether the balancer moves. */
static int interfered(struct xmpi_balance_state *st, const struct xmpi_balance_params *prm, int loaded,
                      struct xmpi_balance_decision *d)
{
    struct synth s;
    double t[P] = {loaded ? 1.0 / 0.7 : 1.0, 1.0, 1.0, 1.0};
    synth(&s, P, 1000, t);
    if (loaded) s.t_cpu[0] = 1.0;
    int c[P], dp[P];
    ck_assert_int_eq(xmpi_balance_decide(prm, st, &s.in, d, c, dp), 0);
    return d->rebalance;
}

START_TEST(burst_tolerated_k_minus_1_intervals)
{
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 0);
    ck_assert_int_eq(d.interference, XMPIR_LB_BURST);
    ck_assert(d.imbalance < 1e-12);   /* its time as if it had its CPU: like the others' */
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 0);
    ck_assert_int_eq(d.interference, XMPIR_LB_BURST);
    /* The k-th interval with the same share: a lasting load, balanced by wall time. */
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 1);
    ck_assert_int_eq(d.interference, XMPIR_LB_LONG);
    ck_assert(fabs(d.imbalance - 0.3) < 1e-9);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(a_load_seen_to_end_must_last_twice_as_long)
{
    /* Two loaded intervals, then a free one: the load ended after 2. The next load counts as
     * lasting after max(k, 2 x 2) = 4 intervals, not 3. */
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 0);
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 0);
    ck_assert_int_eq(interfered(&st, &prm3, 0, &d), 0);
    ck_assert_int_eq(d.interference, XMPIR_LB_NONE);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 0);
        ck_assert_int_eq(d.interference, XMPIR_LB_BURST);
    }
    ck_assert_int_eq(interfered(&st, &prm3, 1, &d), 1);
    ck_assert_int_eq(d.interference, XMPIR_LB_LONG);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(k1_takes_a_load_at_once_but_waits_for_evidence)
{
    struct xmpi_balance_params k1 = prm3;
    k1.k = 1;
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    ck_assert_int_eq(interfered(&st, &k1, 1, &d), 0);
    ck_assert_int_eq(d.interference, XMPIR_LB_LONG);
    ck_assert_int_eq(d.imbalanced, 1);
    ck_assert_int_eq(interfered(&st, &k1, 1, &d), 1);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(k5_waits_five)
{
    struct xmpi_balance_params k5 = prm3;
    k5.k = 5;
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    for (int i = 0; i < 4; i++) ck_assert_int_eq(interfered(&st, &k5, 1, &d), 0);
    ck_assert_int_eq(interfered(&st, &k5, 1, &d), 1);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(th1_edge)
{
    struct synth s;
    /* (max - min) / max = 0.25 exactly (binary fractions). */
    double t[P] = {1.0, 0.75, 1.0, 1.0};
    synth(&s, P, 400, t);
    s.in.iterations = 128;   /* times per iteration stay binary fractions */
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    struct xmpi_balance_params at = {0.25, 0.05, 3, 0}, below = {0.24, 0.05, 3, 0};
    ck_assert_int_eq(xmpi_balance_decide(&at, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.imbalanced, 0);
    ck_assert_int_eq(xmpi_balance_decide(&below, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.imbalanced, 1);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(th2_is_exclusive_a_share_at_the_threshold_is_dedicated)
{
    struct synth s;
    double t[P] = {1.0, 1.0, 1.0, 1.0};
    synth(&s, P, 400, t);
    s.t_cpu[2] = 0.75;   /* (real - cpu) / real = 0.25 */
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    struct xmpi_balance_params at = {0.10, 0.25, 3, 0}, below = {0.10, 0.24, 3, 0};
    ck_assert_int_eq(xmpi_balance_decide(&at, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.dedicated, 1);
    ck_assert_int_eq(xmpi_balance_decide(&below, &st, &s.in, &d, c, dp), 0);
    ck_assert_int_eq(d.dedicated, 0);
    xmpi_balance_state_free(&st);
}
END_TEST

START_TEST(invalid_input)
{
    struct synth s;
    double t[P] = {1, 1, 1, 1};
    synth(&s, P, 100, t);
    struct xmpi_balance_state st = {0};
    struct xmpi_balance_decision d;
    int c[P], dp[P];
    struct xmpi_balance_params bad = {0.1, 0.05, 0, 0};
    ck_assert_int_eq(xmpi_balance_decide(&bad, &st, &s.in, &d, c, dp), -1);
    bad.k = XMPIR_LB_KMAX + 1;
    ck_assert_int_eq(xmpi_balance_decide(&bad, &st, &s.in, &d, c, dp), -1);
    bad = (struct xmpi_balance_params){NAN, 0.05, 3, 0};
    ck_assert_int_eq(xmpi_balance_decide(&bad, &st, &s.in, &d, c, dp), -1);
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, NULL, dp), -1);
    s.in.nprocs = 0;
    ck_assert_int_eq(xmpi_balance_decide(&prm3, &st, &s.in, &d, c, dp), -1);
    ck_assert_int_eq(st.intervals, 0);   /* refused input leaves the state alone */
}
END_TEST

Suite *lbalance_detect_suite(void)
{
    Suite *s = suite_create("lbalance_detect");
    TCase *tc = tcase_create("decision");
    tcase_add_test(tc, balanced_no_move);
    tcase_add_test(tc, comm_time_is_not_compute);
    tcase_add_test(tc, burst_tolerated_k_minus_1_intervals);
    tcase_add_test(tc, a_load_seen_to_end_must_last_twice_as_long);
    tcase_add_test(tc, k1_takes_a_load_at_once_but_waits_for_evidence);
    tcase_add_test(tc, k5_waits_five);
    tcase_add_test(tc, th1_edge);
    tcase_add_test(tc, th2_is_exclusive_a_share_at_the_threshold_is_dedicated);
    tcase_add_test(tc, invalid_input);
    suite_add_tcase(s, tc);
    return s;
}
