/* models/formats/options.c, precedence: argv wins over the environment option by option, the
 * environment fills the rest, the later argument wins, and only XMPI_ names in upper case are
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
    tcase_add_test(tc, test_env_fills_what_argv_lacks);
    tcase_add_test(tc, test_later_argv_wins);
    tcase_add_test(tc, test_env_ignores_other_names);
    tcase_add_test(tc, test_env_name_is_upper_case);
    suite_add_tcase(s, tc);
    return s;
}
