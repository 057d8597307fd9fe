/* models/predict.c, reconfiguration costs: processes spawned (singly or as a group) and
 * removed between two configurations, at the calibration's price. */
#include "predict_util.h"
#include "suites.h"

START_TEST(test_reconfig)
{
    struct xmpi_model m;
    four_classes(&m);
    const int cur[4] = {2, 1, 0, 0}, cand[4] = {3, 0, 2, 0};
    struct xmpi_reconfig r;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    ck_assert_int_eq(r.nspawn, 3);
    ck_assert_int_eq(r.nremove, 1);
    NEAR(r.t_spawn, 3 * XMPIR_CAL_DEFAULT_SPAWN_SINGLE);
    NEAR(r.t_remove, 1 * XMPIR_CAL_DEFAULT_REMOVE);
    m.spawn_group = 1;
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, &r), 0);
    NEAR(r.t_spawn, 3 * XMPIR_CAL_DEFAULT_SPAWN_GROUP);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cur, &r), 0);
    ck_assert_int_eq(r.nspawn + r.nremove, 0);
    NEAR(r.t_spawn + r.t_remove, 0);
    const int neg[4] = {-1, 0, 0, 0};
    ck_assert_int_eq(xmpi_predict_reconfig(&m, neg, cand, &r), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, NULL, &r), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_reconfig(&m, cur, cand, NULL), XMPIR_MODEL_EARG);
}
END_TEST

Suite *predict_reconfig_suite(void)
{
    Suite *s = suite_create("predict_reconfig");
    TCase *tc = tcase_create("reconfig");
    tcase_add_test(tc, test_reconfig);
    suite_add_tcase(s, tc);
    return s;
}
