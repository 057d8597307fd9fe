/* io/options.c, options without effect: an option the user set that the rest of the job's
 * options make idle is named once with what would make it act; defaults are never named, and
 * the same option where it acts is not. */
#include <string.h>

#include "options_util.h"
#include "suites.h"

/* The idle lines for argv (after "prog"), with `emulated` classes or not; *n their number. */
static int idle(struct xmpi_options *o, char lines[][256], int emulated, struct args *a)
{
    xmpi_options_defaults(o);
    ck_assert_msg(parse(o, a, 1, NULL) == 0, "%s", err);
    return xmpi_options_idle(o, emulated, lines, 16);
}

static int names(char lines[][256], int n, const char *opt)
{
    int k = 0;
    for (int i = 0; i < n; i++) k += strstr(lines[i], opt) != NULL;
    return k;
}

START_TEST(test_defaults_say_nothing)
{
    struct xmpi_options o;
    char lines[16][256];
    struct args a;
    mkargs(&a, "prog", NULL);
    ck_assert_int_eq(idle(&o, lines, 0, &a), 0);
    /* Set to their defaults explicitly, under a policy where they act: nothing either. */
    mkargs(&a, "prog", "--xmpi-policy=amp", "--xmpi-goal=30%", "--xmpi-tol=1",
           "--xmpi-checkpoint=/tmp", "--xmpi-checkpoint-keep=2", NULL);
    ck_assert_int_eq(idle(&o, lines, 0, &a), 0);
}
END_TEST

START_TEST(test_policy_options_under_static)
{
    struct xmpi_options o;
    char lines[16][256];
    struct args a;
    mkargs(&a, "prog", "--xmpi-rms=schedule:/dev/null", "--xmpi-goal=30%", "--xmpi-tol=5",
           "--xmpi-constraint=cost", "--xmpi-hpmp-gain=10", "--xmpi-max-procs=4",
           "--xmpi-spawn-async=off", NULL);
    int n = idle(&o, lines, 0, &a);
    ck_assert_int_eq(n, 7);
    ck_assert_int_eq(names(lines, n, "option --xmpi-rms has no effect"), 1);
    ck_assert_int_eq(names(lines, n, "XMPI_Get_system_status"), 1);
    ck_assert_int_eq(names(lines, n, "option --xmpi-goal has no effect in this job; it acts with "
                                     "--xmpi-policy=amp"), 1);
    ck_assert_int_eq(names(lines, n, "--xmpi-hpmp-gain has no effect"), 1);
    /* Under hpmp: the RMS, the cap, the gain and the asynchronous spawn act; amp's do not. */
    mkargs(&a, "prog", "--xmpi-policy=hpmp", "--xmpi-rms=schedule:/dev/null", "--xmpi-goal=30%",
           "--xmpi-hpmp-gain=10", "--xmpi-max-procs=4", "--xmpi-spawn-async=off", NULL);
    n = idle(&o, lines, 0, &a);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(names(lines, n, "--xmpi-goal"), 1);
}
END_TEST

START_TEST(test_checkpoint_and_emulation)
{
    struct xmpi_options o;
    char lines[16][256];
    struct args a;
    mkargs(&a, "prog", "--xmpi-checkpoint-every=10", "--xmpi-checkpoint-keep=3",
           "--xmpi-emulate=quota", "--xmpi-emulate-period=20000", NULL);
    int n = idle(&o, lines, 0, &a);
    ck_assert_int_eq(n, 4);
    ck_assert_int_eq(names(lines, n, "it acts with --xmpi-checkpoint=DIR"), 2);
    /* With an emulated class the quota mode and its period act... (the parse took the
     * arguments out of argv: they are given again) */
    mkargs(&a, "prog", "--xmpi-checkpoint-every=10", "--xmpi-checkpoint-keep=3",
           "--xmpi-emulate=quota", "--xmpi-emulate-period=20000", NULL);
    n = idle(&o, lines, 1, &a);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(names(lines, n, "emulate"), 0);
    /* ... and the period does not under dilation. */
    mkargs(&a, "prog", "--xmpi-emulate-period=20000", NULL);
    n = idle(&o, lines, 1, &a);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(names(lines, n, "--xmpi-emulate=quota"), 1);
}
END_TEST

/* The environment sets options as the command line does. */
START_TEST(test_environment_counts_as_given)
{
    struct xmpi_options o;
    char lines[16][256];
    char *env[] = {"XMPI_GOAL=20%", NULL};
    struct args a;
    mkargs(&a, "prog", NULL);
    xmpi_options_defaults(&o);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert(xmpi_options_given(&o, "goal"));
    ck_assert(!xmpi_options_given(&o, "si"));
    ck_assert_int_eq(xmpi_options_idle(&o, 0, lines, 16), 1);
}
END_TEST

Suite *options_idle_suite(void)
{
    Suite *s = suite_create("options_idle");
    TCase *tc = tcase_create("idle");
    tcase_add_test(tc, test_defaults_say_nothing);
    tcase_add_test(tc, test_policy_options_under_static);
    tcase_add_test(tc, test_checkpoint_and_emulation);
    tcase_add_test(tc, test_environment_counts_as_given);
    suite_add_tcase(s, tc);
    return s;
}
