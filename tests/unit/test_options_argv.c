/* io/options.c, argv editing: recognised arguments are removed in place (or not,
 * when asked), the others keep their order, and nothing after "--" or in argv[0] is parsed. */
#include "options_util.h"
#include "suites.h"

START_TEST(test_remove_keeps_order)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "a", "--xmpi-si=5", "-b", "--xmpi-verbose", "c", "--xmpi-trace=t.csv",
           "--xmpi-events=PAPI_FP_OPS", "--xmpi-help=0", "d", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    char *const want[] = {a.orig[0], a.orig[1], a.orig[3], a.orig[5], a.orig[9], NULL};
    assert_args_are(&a, want);
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_str_eq(o.trace, "t.csv");
    ck_assert_str_eq(o.events, "PAPI_FP_OPS");
}
END_TEST

START_TEST(test_remove_all_but_argv0)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=5", "--xmpi-verbose=1", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    char *const want[] = {a.orig[0], NULL};
    assert_args_are(&a, want);
}
END_TEST

START_TEST(test_no_remove)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "a", "--xmpi-si=5", "b", "--xmpi-verbose", NULL);
    ck_assert_int_eq(parse(&o, &a, 0, NULL), 0);
    assert_args_untouched(&a);
    /* Parsed all the same. */
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 1);
}
END_TEST

/* What follows "--" belongs to the program: never parsed, never removed, and the
 * "--" stays so the program's own parser still sees the separator. */
START_TEST(test_double_dash)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "x", "--xmpi-si=5", "--", "--xmpi-si=abc", "--xmpi-bogus", "--",
           "--xmpi-verbose=2", "y", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 0);
    char *const want[] = {a.orig[0], a.orig[1], a.orig[3], a.orig[4], a.orig[5],
                          a.orig[6], a.orig[7], a.orig[8], NULL};
    assert_args_are(&a, want);

    xmpi_options_defaults(&o);
    mkargs(&a, "prog", "--", "--xmpi-si=abc", NULL);
    ck_assert_int_eq(parse(&o, &a, 0, NULL), 0);
    ck_assert_int_eq(o.si, 100);
    assert_args_untouched(&a);
}
END_TEST

START_TEST(test_argv0_not_an_option)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "--xmpi-si=abc", "--xmpi-verbose=1", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 100);
    ck_assert_int_eq(o.verbose, 1);
    char *const want[] = {a.orig[0], NULL};
    assert_args_are(&a, want);

    /* A program named "--" does not switch option parsing off. */
    xmpi_options_defaults(&o);
    mkargs(&a, "--", "--xmpi-si=3", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 3);
    char *const want2[] = {a.orig[0], NULL};
    assert_args_are(&a, want2);
}
END_TEST

START_TEST(test_non_xmpi_dashes_kept)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi", "-xmpi-si=3", "--xmpisi=3", "--XMPI-si=3", "--verbose", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 100);
    assert_args_untouched(&a);
}
END_TEST

Suite *options_argv_suite(void)
{
    Suite *s = suite_create("options_argv");
    TCase *tc = tcase_create("argv");
    tcase_add_test(tc, test_remove_keeps_order);
    tcase_add_test(tc, test_remove_all_but_argv0);
    tcase_add_test(tc, test_no_remove);
    tcase_add_test(tc, test_double_dash);
    tcase_add_test(tc, test_argv0_not_an_option);
    tcase_add_test(tc, test_non_xmpi_dashes_kept);
    suite_add_tcase(s, tc);
    return s;
}
