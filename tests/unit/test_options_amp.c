/* AMP's options: --xmpi-goal (SECONDS or PCT%), --xmpi-constraint, --xmpi-tol; their values,
 * refusals naming what is accepted, and xmpi_options_goal's reading of a goal. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../io/options.h"
#include "options_util.h"
#include "suites.h"

START_TEST(test_defaults)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    ck_assert_str_eq(o.goal, "");
    ck_assert_int_eq(o.constraint, 0);
    ck_assert_int_eq(o.tol, 1);
}
END_TEST

/* Goals as the reader takes them: seconds, or a percentage with its sign. */
static const struct {
    const char *text;
    double seconds, pct;
} goals[] = {
    {"842", 842, 0}, {"0.5", 0.5, 0}, {"1e3", 1000, 0}, {"30%", 0, 30}, {"2.5%", 0, 2.5},
    {"99.9%", 0, 99.9},
};

START_TEST(test_goal_values)
{
    double s = -1, p = -1;
    ck_assert_int_eq(xmpi_options_goal(goals[_i].text, &s, &p), 0);
    ck_assert_double_eq_tol(s, goals[_i].seconds, 1e-12);
    ck_assert_double_eq_tol(p, goals[_i].pct, 1e-12);
    struct xmpi_options o;
    char arg[64];
    snprintf(arg, sizeof arg, "--xmpi-goal=%s", goals[_i].text);
    ck_assert_msg(parse_one(&o, arg) == 0, "%s: %s", arg, err);
    ck_assert_str_eq(o.goal, goals[_i].text);
}
END_TEST

static const char *const bad_goals[] = {"0", "-5", "0%", "100%", "150%", "-3%", "abc", "30 %",
                                        "30%%", "%", "nan", "inf", "12s", "1e999"};

START_TEST(test_goal_refused)
{
    ck_assert_int_eq(xmpi_options_goal(bad_goals[_i], NULL, NULL), -1);
    struct xmpi_options o;
    char arg[64];
    snprintf(arg, sizeof arg, "--xmpi-goal=%s", bad_goals[_i]);
    ck_assert_int_eq(parse_one(&o, arg), -1);
    ck_assert_msg(strstr(err, "--xmpi-goal") && strstr(err, "SECONDS") && strstr(err, "PCT%"), "%s",
                  err);
    ck_assert_str_eq(o.goal, "");
}
END_TEST

START_TEST(test_constraint_and_tol)
{
    struct xmpi_options o;
    ck_assert_int_eq(parse_one(&o, "--xmpi-constraint=cost"), 0);
    ck_assert_int_eq(o.constraint, 1);
    ck_assert_int_eq(parse_one(&o, "--xmpi-constraint=efficiency"), 0);
    ck_assert_int_eq(o.constraint, 0);
    ck_assert_int_eq(parse_one(&o, "--xmpi-constraint=speed"), -1);
    ck_assert_msg(strstr(err, "efficiency or cost"), "%s", err);
    ck_assert_int_eq(parse_one(&o, "--xmpi-tol=5"), 0);
    ck_assert_int_eq(o.tol, 5);
    ck_assert_int_eq(parse_one(&o, "--xmpi-tol=0"), 0);
    ck_assert_int_eq(o.tol, 0);
    ck_assert_int_eq(parse_one(&o, "--xmpi-tol=51"), -1);
    ck_assert_msg(strstr(err, "--xmpi-tol") && strstr(err, "0 to 50"), "%s", err);
    ck_assert_int_eq(parse_one(&o, "--xmpi-tol=-1"), -1);
}
END_TEST

Suite *options_amp_suite(void)
{
    Suite *s = suite_create("options_amp");
    TCase *tc = tcase_create("amp");
    tcase_add_test(tc, test_defaults);
    tcase_add_loop_test(tc, test_goal_values, 0, (int)(sizeof goals / sizeof goals[0]));
    tcase_add_loop_test(tc, test_goal_refused, 0, (int)(sizeof bad_goals / sizeof bad_goals[0]));
    tcase_add_test(tc, test_constraint_and_tol);
    suite_add_tcase(s, tc);
    return s;
}
