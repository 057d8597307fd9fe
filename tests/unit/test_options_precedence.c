/* io/options.c, precedence: argv wins over the environment option by option (the
 * overridden variable is not even checked), the environment fills the rest, the later argument wins, and only XMPI_ names in upper case are
 * the library's. */
#include <string.h>

#include "options_util.h"
#include "suites.h"

START_TEST(test_argv_beats_env)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    /* Every option given both ways with different values, so any single option
     * where the environment wins shows up. */
    char *env[] = {"XMPI_SI=7", "XMPI_VERBOSE=2", "XMPI_TRACE=env.csv", "XMPI_EVENTS=ENV_EV",
                   "XMPI_HELP=1", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=9", "--xmpi-verbose=1", "--xmpi-trace=arg.csv",
           "--xmpi-events=ARG_EV", "--xmpi-help=0", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert_int_eq(o.si, 9);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_str_eq(o.trace, "arg.csv");
    ck_assert_str_eq(o.events, "ARG_EV");
    ck_assert_int_eq(o.help, 0);
}
END_TEST

/* The command line wins outright: the variable of an option it sets is not checked, whatever
 * it holds, for every kind of option (integer, flag, choice, file name, checked syntax). */
START_TEST(test_argv_overrides_bad_env)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_SI=0", "XMPI_VERBOSE=7", "XMPI_HELP=maybe", "XMPI_LB=fastest",
                   "XMPI_TRACE=", "XMPI_EVENTS=A,,B", "XMPI_GOAL=-3", "XMPI_RMS=nonsense",
                   "XMPI_EMULATE_PERIOD=999", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=5", "--xmpi-verbose", "--xmpi-help=0", "--xmpi-lb=weight",
           "--xmpi-trace=t.csv", "--xmpi-events=PAPI_TOT_CYC", "--xmpi-goal=30%",
           "--xmpi-rms=none", "--xmpi-emulate-period=2000", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_int_eq(o.help, 0);
    ck_assert_int_eq(o.lb, 2);
    ck_assert_str_eq(o.trace, "t.csv");
    ck_assert_str_eq(o.events, "PAPI_TOT_CYC");
    ck_assert_str_eq(o.goal, "30%");
    ck_assert_str_eq(o.rms, "none");
    ck_assert_int_eq(o.emulate_period, 2000);
}
END_TEST

/* ... but only those: a bad variable for an option the command line leaves alone is refused,
 * an unknown XMPI_ name too, and a bad argument whose variable is fine. */
START_TEST(test_effective_value_checked)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env1[] = {"XMPI_SI=0", "XMPI_VERBOSE=7", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=5", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, env1), -1);
    ck_assert_msg(strstr(err, "environment variable XMPI_VERBOSE: '7' is not accepted"), "%s", err);

    char *env2[] = {"XMPI_SI=0", "XMPI_SII=1", NULL};
    mkargs(&a, "prog", "--xmpi-si=5", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, env2), -1);
    ck_assert_msg(strstr(err, "unknown environment variable XMPI_SII") != NULL, "%s", err);

    char *env3[] = {"XMPI_SI=5", NULL};
    mkargs(&a, "prog", "--xmpi-si=0", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, env3), -1);
    ck_assert_msg(strstr(err, "option --xmpi-si: '0' is not accepted"), "%s", err);
    ck_assert_int_eq(o.si, 100);
}
END_TEST

START_TEST(test_env_fills_what_argv_lacks)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_SI=7", "XMPI_TRACE=env.csv", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=9", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert_int_eq(o.si, 9);
    ck_assert_str_eq(o.trace, "env.csv");
}
END_TEST

START_TEST(test_later_argv_wins)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=3", "--xmpi-si=4", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    ck_assert_int_eq(o.si, 4);
}
END_TEST

START_TEST(test_env_ignores_other_names)
{
    struct xmpi_options o, want;
    nondefault(&o);
    want = o;
    /* None of these is an XMPI_ variable, even the invalid-looking ones. */
    char *env[] = {"PATH=/bin", "MY_XMPI_SI=0", "xmpi_si=0", "XMPISI=abc", "XMPI=1",
                   "SI=0", "_XMPI_FOO=1", NULL};
    ck_assert_msg(parse(&o, NULL, 1, env) == 0, "%s", err);
    assert_same_options(&o, &want);
}
END_TEST

START_TEST(test_env_name_is_upper_case)
{
    /* XMPI_si is an XMPI_ variable but not one of ours: refused, not silently taken. */
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_si=5", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), -1);
    ck_assert_msg(strstr(err, "unknown environment variable XMPI_si") != NULL, "%s", err);
    ck_assert_int_eq(o.si, 100);
}
END_TEST

Suite *options_precedence_suite(void)
{
    Suite *s = suite_create("options_precedence");
    TCase *tc = tcase_create("precedence");
    tcase_add_test(tc, test_argv_beats_env);
    tcase_add_test(tc, test_argv_overrides_bad_env);
    tcase_add_test(tc, test_effective_value_checked);
    tcase_add_test(tc, test_env_fills_what_argv_lacks);
    tcase_add_test(tc, test_later_argv_wins);
    tcase_add_test(tc, test_env_ignores_other_names);
    tcase_add_test(tc, test_env_name_is_upper_case);
    suite_add_tcase(s, tc);
    return s;
}
