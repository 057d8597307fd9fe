/* models/predict.c, computation: the work of the next interval (extrapolated from the last ones
 * or from a profile with its correction), the power of each class (measured, derived from a
 * declared speed, or from the calibration) and the compute time on a set of processes. */
#include <stdio.h>
#include <string.h>

#include "predict_util.h"
#include "suites.h"

static struct xmpi_interval observe_work(struct xmpi_predict_model *m, int index, double wpi)
{
    struct xmpi_interval s;
    interval_init(&s, index, 2, 50, wpi * 50);
    ck_assert_int_eq(xmpi_predict_observe(m, &s, NULL), 0);
    return s;
}

START_TEST(test_extrapolation)
{
    struct xmpi_predict_model m;
    model_with_net(&m, 0);
    double w;
    ck_assert_int_eq(xmpi_predict_work(&m, 1, &w), XMPIR_MODEL_ENODATA);

    /* One interval: the same work. */
    observe_work(&m, 1, 500);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 500);

    /* The last K = 4 points lie on 100 + 10 i: earlier outliers no longer count. */
    observe_work(&m, 2, 9999);
    for (int i = 3; i <= 6; i++) observe_work(&m, i, 100 + 10 * i);
    ck_assert_int_eq(m.nhist, XMPIR_MODEL_HISTORY);
    ck_assert_int_eq(xmpi_predict_work(&m, 7, &w), 0);
    NEAR(w, 170);
    ck_assert_int_eq(xmpi_predict_work(&m, 9, &w), 0);
    NEAR(w, 190);

    /* Noise around a level, by hand: x = 3..6, y = 990, 1010, 990, 1010; slope 20/5 = 4,
     * at 7: 1000 + 4 * 2.5 = 1010. */
    xmpi_predict_init(&m, NULL, 0);
    for (int i = 3; i <= 6; i++) observe_work(&m, i, i % 2 ? 990 : 1010);
    ck_assert_int_eq(xmpi_predict_work(&m, 7, &w), 0);
    NEAR(w, 1010);

    /* A falling trend stops at zero. */
    xmpi_predict_init(&m, NULL, 0);
    observe_work(&m, 1, 60);
    observe_work(&m, 2, 20);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 0);

    /* The same interval observed twice replaces its point; an older one starts over. */
    observe_work(&m, 2, 40);
    ck_assert_int_eq(m.nhist, 2);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 20);
    observe_work(&m, 1, 7);
    ck_assert_int_eq(m.nhist, 1);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 7);

    ck_assert_int_eq(xmpi_predict_work(&m, 0, &w), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_work(NULL, 2, &w), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, NULL), XMPIR_MODEL_EARG);
}
END_TEST

START_TEST(test_profile_correction)
{
    static const double profile[] = {10, 20, 30, 40, 50};
    struct xmpi_predict_model m;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_predict_set_profile(&m, profile, 5), 0);
    double w;

    /* Interval 2 measured 30 per iteration against 20 profiled: this run does 1.5 times
     * the work, so interval 3 is predicted at 1.5 x 30. */
    observe_work(&m, 1, 15);
    observe_work(&m, 2, 30);
    ck_assert_int_eq(xmpi_predict_work(&m, 3, &w), 0);
    NEAR(w, 45);
    ck_assert_int_eq(xmpi_predict_work(&m, 5, &w), 0);
    NEAR(w, 75);

    /* An irregular run: the profile's shape is kept although the history is a line. */
    observe_work(&m, 3, 15);   /* 0.5 of the profile */
    ck_assert_int_eq(xmpi_predict_work(&m, 4, &w), 0);
    NEAR(w, 20);

    /* Past the profile's end: extrapolation over the history (15, 30, 15 at 1..3). */
    ck_assert_int_eq(xmpi_predict_work(&m, 6, &w), 0);
    double xm = 2, ym = 20, slope = ((-1) * (15 - ym) + 1 * (15 - ym)) / 2.0;
    NEAR(w, ym + slope * (6 - xm));

    /* A profiled zero gives no scale: the profile is taken as it is. */
    static const double zero_first[] = {0, 8, 9};
    xmpi_predict_init(&m, NULL, 0);
    ck_assert_int_eq(xmpi_predict_set_profile(&m, zero_first, 3), 0);
    observe_work(&m, 1, 5);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 8);

    /* Back to extrapolation. */
    ck_assert_int_eq(xmpi_predict_set_profile(&m, NULL, 0), 0);
    ck_assert_int_eq(xmpi_predict_work(&m, 2, &w), 0);
    NEAR(w, 5);

    static const double bad[] = {1, -2};
    ck_assert_int_eq(xmpi_predict_set_profile(&m, bad, 2), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_set_profile(&m, NULL, 3), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_set_profile(&m, profile, -1), XMPIR_MODEL_EARG);
}
END_TEST

START_TEST(test_class_power)
{
    struct xmpi_predict_model m;
    double pw;
    model_with_net(&m, 0);
    ck_assert_int_eq(xmpi_predict_add_class(&m, "a", 1), 0);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), XMPIR_MODEL_ENODATA);

    four_classes(&m);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), 0);
    NEAR(pw, 100);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 300);   /* the mean of its two processes */
    ck_assert_int_eq(xmpi_predict_class_power(&m, 3, &pw), 0);
    NEAR(pw, 4 * (100 / 1.0 + 300 / 2.0) / 2);   /* speed x mean power per speed */
    ck_assert_int_eq(xmpi_predict_class_power(&m, 2, &pw), 0);
    NEAR(pw, 200);   /* no declared speed: the mean measured power */

    /* Only classes without declared speed measured: the mean for everybody. */
    model_with_net(&m, 0);
    xmpi_predict_add_class(&m, "x", 0);
    xmpi_predict_add_class(&m, "y", 3);
    m.cls[0].power = 50;
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 50);

    /* The calibration's power lines are measurements from an earlier run. */
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    cal.nclasses = 1;
    snprintf(cal.cls[0].name, sizeof cal.cls[0].name, "y");
    cal.cls[0].power = 77;
    xmpi_predict_init(&m, &cal, 0);
    xmpi_predict_add_class(&m, "x", 1);
    xmpi_predict_add_class(&m, "y", 1);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 1, &pw), 0);
    NEAR(pw, 77);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, &pw), 0);
    NEAR(pw, 77);

    ck_assert_int_eq(xmpi_predict_class_power(&m, 2, &pw), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_class_power(&m, -1, &pw), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_class_power(&m, 0, NULL), XMPIR_MODEL_EARG);
}
END_TEST

START_TEST(test_power_measurement)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    /* A later interval replaces a class's power; classes absent from it keep theirs, and
     * ranks with no work or no compute time tell nothing. */
    struct xmpi_rank_record r[3];
    memset(r, 0, sizeof r);
    r[0].work = 500, r[0].t_real = 10;        /* a: now 50 / s */
    r[1].work = 0, r[1].t_real = 10;          /* b: idle, ignored */
    r[2].work = 10, r[2].t_real = 1, r[2].comm_time = 1;   /* b: all in MPI, ignored */
    struct xmpi_interval s;
    interval_init(&s, 2, 3, 10, 510);
    s.ranks = r;
    const int rank_class[3] = {0, 1, 1};
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, rank_class), 0);
    NEAR(m.cls[0].power, 50);
    NEAR(m.cls[1].power, 300);
    const int bad_class[3] = {0, 1, 4};
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, bad_class), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_observe(NULL, &s, NULL), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_observe(&m, NULL, NULL), XMPIR_MODEL_EARG);
    s.iterations = 0;
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, NULL), XMPIR_MODEL_EARG);
    s.iterations = 10;
    s.nprocs = 0;
    ck_assert_int_eq(xmpi_predict_observe(&m, &s, NULL), XMPIR_MODEL_EARG);
}
END_TEST

START_TEST(test_comp_time)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    double t;
    const int two_a_one_b[4] = {2, 1, 0, 0};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, two_a_one_b, &t), 0);
    NEAR(t, 1e6 / (2 * 100 + 300));
    const int with_d[4] = {0, 0, 1, 2};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, with_d, &t), 0);
    NEAR(t, 1e6 / (200 + 2 * 500));

    const int none[4] = {0, 0, 0, 0}, neg[4] = {1, -1, 0, 0};
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, none, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, neg, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, -1, two_a_one_b, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, NULL, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, two_a_one_b, NULL), XMPIR_MODEL_EARG);
    struct xmpi_predict_model empty;
    model_with_net(&empty, 0);
    xmpi_predict_add_class(&empty, "a", 1);
    const int one[1] = {1};
    ck_assert_int_eq(xmpi_predict_comp(&empty, 1e6, one, &t), XMPIR_MODEL_ENODATA);
}
END_TEST

/* For a fixed amount of work, one more process of any class never makes it slower. */
START_TEST(test_more_processes_never_slower)
{
    struct xmpi_predict_model m;
    four_classes(&m);
    for (int c = 0; c < 4; c++) {
        int counts[4] = {1, 1, 0, 0};
        double prev, t;
        ck_assert_int_eq(xmpi_predict_comp(&m, 3.3e7, counts, &prev), 0);
        for (int k = 0; k < 100; k++) {
            counts[c]++;
            ck_assert_int_eq(xmpi_predict_comp(&m, 3.3e7, counts, &t), 0);
            ck_assert_msg(t < prev, "class %d, %d processes: %g >= %g", c, counts[c], t, prev);
            prev = t;
        }
    }
    /* Homogeneous: exactly work / (n power). */
    for (int n = 1; n <= 64; n++) {
        int counts[4] = {n, 0, 0, 0};
        double t;
        ck_assert_int_eq(xmpi_predict_comp(&m, 1e6, counts, &t), 0);
        NEAR(t, 1e6 / (n * 100.0));
    }
}
END_TEST

Suite *predict_comp_suite(void)
{
    Suite *s = suite_create("predict_comp");
    TCase *tc = tcase_create("comp");
    tcase_add_test(tc, test_extrapolation);
    tcase_add_test(tc, test_profile_correction);
    tcase_add_test(tc, test_class_power);
    tcase_add_test(tc, test_power_measurement);
    tcase_add_test(tc, test_comp_time);
    tcase_add_test(tc, test_more_processes_never_slower);
    suite_add_tcase(s, tc);
    return s;
}
