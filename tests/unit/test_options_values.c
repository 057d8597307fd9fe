/* io/options.c, accepted values: the defaults, nothing given, every option from
 * argv and from the environment one at a time, help's on and off words, bare flags. */
#include <stdio.h>
#include <string.h>

#include "options_util.h"
#include "suites.h"

START_TEST(test_defaults)
{
    struct xmpi_options o;
    memset(&o, 0xa5, sizeof o);
    xmpi_options_defaults(&o);
    ck_assert_int_eq(o.si, 100);
    ck_assert_int_eq(o.verbose, 0);
    ck_assert_str_eq(o.trace, "");
    ck_assert_str_eq(o.events, "");
    ck_assert_int_eq(o.help, 0);
}
END_TEST

START_TEST(test_nothing_given)
{
    struct xmpi_options o, want;
    xmpi_options_defaults(&o);
    want = o;
    struct args a;
    mkargs(&a, "prog", "input.dat", "-v", NULL);
    char *env[] = {"PATH=/usr/bin", "HOME=/root", NULL};
    ck_assert_int_eq(parse(&o, &a, 1, env), 0);
    assert_same_options(&o, &want);
    assert_args_untouched(&a);
    /* NULL environment and NULL argv are both allowed. */
    ck_assert_int_eq(parse(&o, NULL, 1, NULL), 0);
    assert_same_options(&o, &want);
}
END_TEST

struct good {
    const char *arg;   /* the argv spelling */
    const char *env;   /* the environment spelling of the same setting */
    long si, verbose;
    int help;
    const char *trace, *events;
};

/* Expected fields are what each input says, starting from nondefault(). */
static const struct good goods[] = {
    {"--xmpi-si=1", "XMPI_SI=1", 1, 2, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-si=250", "XMPI_SI=250", 250, 2, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-si=1000000000", "XMPI_SI=1000000000", 1000000000L, 2, 0, "earlier.csv",
     "PAPI_TOT_INS"},
    {"--xmpi-verbose=0", "XMPI_VERBOSE=0", 42, 0, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-verbose=1", "XMPI_VERBOSE=1", 42, 1, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-trace=/tmp/run 1/t.csv", "XMPI_TRACE=/tmp/run 1/t.csv", 42, 2, 0,
     "/tmp/run 1/t.csv", "PAPI_TOT_INS"},
    {"--xmpi-events=PAPI_FP_OPS", "XMPI_EVENTS=PAPI_FP_OPS", 42, 2, 0, "earlier.csv",
     "PAPI_FP_OPS"},
    {"--xmpi-events=PAPI_DP_OPS,PAPI_TOT_CYC", "XMPI_EVENTS=PAPI_DP_OPS,PAPI_TOT_CYC", 42, 2, 0,
     "earlier.csv", "PAPI_DP_OPS,PAPI_TOT_CYC"},
    {"--xmpi-events=perf::TASK-CLOCK,cpu:event:u=1", "XMPI_EVENTS=perf::TASK-CLOCK,cpu:event:u=1",
     42, 2, 0, "earlier.csv", "perf::TASK-CLOCK,cpu:event:u=1"},
    {"--xmpi-help=1", "XMPI_HELP=1", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=yes", "XMPI_HELP=yes", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=true", "XMPI_HELP=true", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=on", "XMPI_HELP=on", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=YES", "XMPI_HELP=YES", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
};
#define NGOOD ((int)(sizeof goods / sizeof goods[0]))

static void check_good(const struct good *g, const struct xmpi_options *o)
{
    ck_assert_int_eq(o->si, g->si);
    ck_assert_int_eq(o->verbose, g->verbose);
    ck_assert_int_eq(o->help, g->help);
    ck_assert_str_eq(o->trace, g->trace);
    ck_assert_str_eq(o->events, g->events);
}

START_TEST(test_good_argv)
{
    const struct good *g = &goods[_i];
    struct xmpi_options o;
    nondefault(&o);
    struct args a;
    mkargs(&a, "prog", (char *)g->arg, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s rejected: %s", g->arg, err);
    check_good(g, &o);
}
END_TEST

START_TEST(test_good_env)
{
    const struct good *g = &goods[_i];
    struct xmpi_options o;
    nondefault(&o);
    char *env[] = {"OTHER=1", (char *)g->env, NULL};
    ck_assert_msg(parse(&o, NULL, 1, env) == 0, "%s rejected: %s", g->env, err);
    check_good(g, &o);
}
END_TEST

/* Off-words need help already on to show they switch it off. */
START_TEST(test_help_off_words)
{
    static const char *const words[] = {"0", "no", "false", "off", "No", "OFF"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char arg[64], env[64];
        snprintf(arg, sizeof arg, "--xmpi-help=%s", words[i]);
        snprintf(env, sizeof env, "XMPI_HELP=%s", words[i]);
        struct xmpi_options o;
        nondefault(&o);
        o.help = 1;
        struct args a;
        mkargs(&a, "prog", arg, NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s: %s", arg, err);
        ck_assert_msg(o.help == 0, "%s left help on", arg);
        nondefault(&o);
        o.help = 1;
        char *envp[] = {env, NULL};
        ck_assert_msg(parse(&o, NULL, 1, envp) == 0, "%s: %s", env, err);
        ck_assert_msg(o.help == 0, "%s left help on", env);
    }
}
END_TEST

START_TEST(test_verbose_two)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose=2", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    ck_assert_int_eq(o.verbose, 2);
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_VERBOSE=2", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), 0);
    ck_assert_int_eq(o.verbose, 2);
}
END_TEST

START_TEST(test_bare_flags)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose", "--xmpi-help", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_int_eq(o.help, 1);
    char *const rest[] = {a.orig[0], NULL};
    assert_args_are(&a, rest);
}
END_TEST

START_TEST(test_env_help_no)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    o.help = 1;
    char *env[] = {"XMPI_HELP=no", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), 0);
    ck_assert_int_eq(o.help, 0);
}
END_TEST

/* The malleability options: each policy by name from argv and the environment, the cap, and
 * one message naming what is accepted for a bad value. */
START_TEST(test_policy_and_max_procs)
{
    static const char *const names[] = {"static", "smp", "hpmp", "amp"};
    for (int k = 0; k < 4; k++) {
        struct xmpi_options o;
        xmpi_options_defaults(&o);
        ck_assert_int_eq(o.policy, 0);
        ck_assert_int_eq(o.max_procs, 0);
        char arg[64], env[64];
        snprintf(arg, sizeof arg, "--xmpi-policy=%s", names[k]);
        struct args a;
        mkargs(&a, "prog", arg, "--xmpi-max-procs=8", NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s rejected: %s", arg, err);
        ck_assert_int_eq(o.policy, k);
        ck_assert_int_eq(o.max_procs, 8);
        xmpi_options_defaults(&o);
        snprintf(env, sizeof env, "XMPI_POLICY=%s", names[k]);
        char *envp[] = {env, "XMPI_MAX_PROCS=3", NULL};
        ck_assert_msg(parse(&o, NULL, 1, envp) == 0, "%s rejected: %s", env, err);
        ck_assert_int_eq(o.policy, k);
        ck_assert_int_eq(o.max_procs, 3);
    }
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-policy=fastest", NULL);
    ck_assert_int_ne(parse(&o, &a, 1, NULL), 0);
    assert_err_has("--xmpi-policy");
    assert_err_has("static, smp, hpmp or amp");
    mkargs(&a, "prog", "--xmpi-max-procs=-1", NULL);
    ck_assert_int_ne(parse(&o, &a, 1, NULL), 0);
    assert_err_has("--xmpi-max-procs");
}
END_TEST

START_TEST(test_integers_write_their_own_field_only)
{
    /* An integer option is stored as a long: a field declared narrower was written past its
     * end (--xmpi-wait-timeout, an int before, cleared the first bytes of --xmpi-resources when
     * given after it). Each integer option after every string option leaves them whole. */
    static const char *const ints[] = {"--xmpi-wait-timeout=86400", "--xmpi-si=7",
                                       "--xmpi-redist-spare=1048576", "--xmpi-lb-k=64",
                                       "--xmpi-tol=50", "--xmpi-checkpoint-keep=5"};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        struct xmpi_options o;
        xmpi_options_defaults(&o);
        struct args a;
        mkargs(&a, "prog", "--xmpi-resources=r.res", "--xmpi-rms=schedule:s.ev",
               "--xmpi-initial=a:1", "--xmpi-goal=30%", (char *)ints[i], NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s: %s", ints[i], err);
        ck_assert_msg(!strcmp(o.resources, "r.res") && !strcmp(o.rms, "schedule:s.ev") &&
                      !strcmp(o.initial, "a:1") && !strcmp(o.goal, "30%"),
                      "%s changed a string option: '%s' '%s' '%s' '%s'", ints[i], o.resources,
                      o.rms, o.initial, o.goal);
    }
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-wait-timeout=86400", "--xmpi-redist-spare=0", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    ck_assert_int_eq(o.wait_timeout, 86400);
    ck_assert_int_eq(o.redist_spare, 0);
}
END_TEST

Suite *options_values_suite(void)
{
    Suite *s = suite_create("options_values");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_policy_and_max_procs);
    tcase_add_test(tc, test_nothing_given);
    tcase_add_loop_test(tc, test_good_argv, 0, NGOOD);
    tcase_add_loop_test(tc, test_good_env, 0, NGOOD);
    tcase_add_test(tc, test_help_off_words);
    tcase_add_test(tc, test_verbose_two);
    tcase_add_test(tc, test_bare_flags);
    tcase_add_test(tc, test_integers_write_their_own_field_only);
    tcase_add_test(tc, test_env_help_no);
    suite_add_tcase(s, tc);
    return s;
}
