/* models/predict.c, reconfiguration costs: processes spawned (singly or as a group) and
 * removed between two configurations, at the calibration's price. */
#include "predict_util.h"
#include "suites.h"

START_TEST(test_reconfig)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    const int cur[4] = {2, 1, 0, 0}, cand[4] = {3, 0, 2, 0};
    struct xmpi_reconfig r;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    ck_assert_int_eq(r.nspawn, 3);
    ck_assert_int_eq(r.nremove, 1);
    NEAR(r.t_spawn, 3 * XMPIR_CAL_DEFAULT_SPAWN_SINGLE);
    NEAR(r.t_remove, 1 * XMPIR_CAL_DEFAULT_REMOVE);
    NEAR(r.t_lag, XMPIR_CAL_DEFAULT_SPAWN_LAG);   /* one per spawn, not per process */
    m.spawn_group = 1;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    NEAR(r.t_spawn, 3 * XMPIR_CAL_DEFAULT_SPAWN_GROUP);
    /* Asynchronous spawns: the job pays their join, whatever the mode; removals are as they
     * were. */
    m.spawn_async = 1;
    m.cal.spawn_join = 0.011;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    NEAR(r.t_spawn, 3 * 0.011);
    NEAR(r.t_remove, 1 * XMPIR_CAL_DEFAULT_REMOVE);
    m.spawn_group = 0;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    NEAR(r.t_spawn, 3 * 0.011);
    m.spawn_async = 0;
    m.spawn_group = 1;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cur, &r), 0);
    ck_assert_int_eq(r.nspawn + r.nremove, 0);
    NEAR(r.t_spawn + r.t_remove + r.t_lag, 0);
    const int fewer[4] = {1, 1, 0, 0};   /* a removal has no lag */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, fewer, &r), 0);
    NEAR(r.t_lag, 0);
    const int neg[4] = {-1, 0, 0, 0};
    ck_assert_int_eq(xmpi_predict_reconfig(&m, neg, cand, &r), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, NULL, &r), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, NULL), XMPIR_MODEL_EARG);
}
END_TEST

/* The job's measurements replace the calibration's prices: the mean per process of each
 * kind (spawn in either mode), and the mean fixed cost of a move added to later moves; bad
 * measurements are refused and change nothing. */
START_TEST(test_learn)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    const int cur[4] = {2, 1, 0, 0}, grow[4] = {3, 1, 2, 0}, shrink[4] = {2, 0, 0, 0};
    struct xmpi_prediction sp = {.nspawn = 3, .t_redist = 0.010, .redist_bytes = 1e6};
    struct xmpi_prediction rm = {.nremove = 1, .nprocs = 2, .t_redist = 0.002, .redist_bytes = 1e5};
    ck_assert_int_eq(xmpi_predict_learn(&m, &sp, -1, 0.1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn(&m, &sp, 0.1, NAN), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn(NULL, &sp, 0.1, 0.1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(m.learned.nspawn + m.learned.nremove + m.learned.nredist[0] +
                     m.learned.nredist[1] + m.learned.nredist[2], 0);
    /* 0.9 s for 3 processes, then 2.1 s for 3: 0.3 and 0.7 per process, mean 0.5. */
    ck_assert_int_eq(xmpi_predict_learn(&m, &sp, 0.9, 0.110), 0);
    ck_assert_int_eq(xmpi_predict_learn(&m, &sp, 2.1, 0.050), 0);
    struct xmpi_reconfig r;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, grow, &r), 0);
    NEAR(r.t_spawn, 3 * 0.5);
    m.spawn_group = 1;   /* the job's price holds whatever the mode */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, grow, &r), 0);
    NEAR(r.t_spawn, 3 * 0.5);
    /* Removals keep the calibration until one is measured. */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, shrink, &r), 0);
    NEAR(r.t_remove, 1 * XMPIR_CAL_DEFAULT_REMOVE);
    /* Fixed costs of moves after a spawn: 0.110 - 0.010 and 0.050 - 0.010, mean 0.070; none
     * yet after a removal. A removal measured against its transfer alone starts its own mean. */
    NEAR(m.learned.redist_fixed[0], 0.070);
    ck_assert_int_eq(m.learned.nredist[1], 0);
    ck_assert_int_eq(xmpi_predict_learn(&m, &rm, 0.004, 0.002 + 0.160), 0);
    NEAR(m.learned.redist_fixed[1], 0.160);
    NEAR(m.learned.redist_fixed[0], 0.070);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, shrink, &r), 0);
    NEAR(r.t_remove, 0.004);   /* 0.002 per process of the 3 beyond the first, times 2 */
    /* A move priced with a fixed cost is measured against the transfer alone; one faster
     * than its transfer's price counts a fixed cost of 0, not less. */
    rm.redist_fixed = 0.160;
    rm.t_redist += 0.160;
    ck_assert_int_eq(xmpi_predict_learn(&m, &rm, 0.004, 0.001), 0);
    NEAR(m.learned.redist_fixed[1], (0.160 + 0) / 2);
}
END_TEST

/* A spawn's lag: the calibration's until the job measured one, then the mean of what it
 * measured (a negative loss counting 0), whatever the spawn's size; in the prediction and its
 * total. */
START_TEST(test_learn_lag)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    const int cur[4] = {2, 1, 0, 0}, grow1[4] = {3, 1, 0, 0}, grow3[4] = {3, 1, 2, 0};
    m.cal.spawn_lag = 0.25;
    struct xmpi_reconfig r;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, grow3, &r), 0);
    NEAR(r.t_lag, 0.25);
    ck_assert_int_eq(xmpi_predict_learn_lag(&m, NAN), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_lag(&m, INFINITY), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_learn_lag(NULL, 0.1), XMPIR_MODEL_EARG);
    ck_assert_int_eq(m.learned.nlag, 0);
    ck_assert_int_eq(xmpi_predict_learn_lag(&m, 0.5), 0);
    ck_assert_int_eq(xmpi_predict_learn_lag(&m, -0.2), 0);
    ck_assert_int_eq(xmpi_predict_learn_lag(&m, 0.4), 0);
    ck_assert_int_eq(m.learned.nlag, 3);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, grow1, &r), 0);
    NEAR(r.t_lag, (0.5 + 0 + 0.4) / 3);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, grow3, &r), 0);
    NEAR(r.t_lag, (0.5 + 0 + 0.4) / 3);
}
END_TEST

/* A removal is priced by the job's size, not by the processes removed: per process of the job
 * beyond the first, from the job's own removals (whatever they removed), else from the
 * calibration scaled from the size its removal was timed on, else (size unknown) per process
 * removed as Eq. 5.7. */
START_TEST(test_remove_by_size)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    const int five[4] = {2, 1, 2, 0}, four[4] = {2, 1, 1, 0}, two[4] = {1, 1, 0, 0};
    const int three[4] = {2, 1, 0, 0};
    struct xmpi_reconfig r;
    m.cal.remove = 0.012;
    m.cal.remove_procs = 0;   /* unknown */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, five, two, &r), 0);
    NEAR(r.t_remove, 3 * 0.012);
    m.cal.remove_procs = 1;   /* says nothing of a size either */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, five, two, &r), 0);
    NEAR(r.t_remove, 3 * 0.012);
    m.cal.remove_procs = 3;   /* timed from 3 to 2: 0.006 per process beyond the first */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, five, two, &r), 0);
    NEAR(r.t_remove, 0.012 * 4 / 2);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, five, four, &r), 0);
    NEAR(r.t_remove, 0.012 * 4 / 2);   /* removing 1 of 5 costs what removing 3 does */
    ck_assert_int_eq(xmpi_predict_reconfig(&m, three, two, &r), 0);
    NEAR(r.t_remove, 0.012 * 2 / 2);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, two, three, &r), 0);
    NEAR(r.t_remove, 0);   /* a grow removes nothing */
    /* The job's own: 5 -> 2 took 0.008 s (0.002 per process beyond the first), 3 -> 2 took
     * 0.006 (0.003): mean 0.0025. */
    struct xmpi_prediction a = {.nremove = 3, .nprocs = 2}, b = {.nremove = 1, .nprocs = 2};
    ck_assert_int_eq(xmpi_predict_learn(&m, &a, 0.008, 0), 0);
    ck_assert_int_eq(xmpi_predict_learn(&m, &b, 0.006, 0), 0);
    NEAR(m.learned.remove, 0.0025);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, five, four, &r), 0);
    NEAR(r.t_remove, 0.0025 * 4);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, three, two, &r), 0);
    NEAR(r.t_remove, 0.0025 * 2);
}
END_TEST

Suite *predict_reconfig_suite(void)
{
    Suite *s = suite_create("predict_reconfig");
    TCase *tc = tcase_create("reconfig");
    tcase_add_test(tc, test_reconfig);
    tcase_add_test(tc, test_learn);
    tcase_add_test(tc, test_learn_lag);
    tcase_add_test(tc, test_remove_by_size);
    suite_add_tcase(s, tc);
    return s;
}
