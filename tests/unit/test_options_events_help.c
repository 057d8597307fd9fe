/* models/formats/options.c, the events list split into names (up to a maximum, the options
 * left intact) and the help text, which names every option. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options_util.h"
#include "suites.h"

START_TEST(test_events_split)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    snprintf(o.events, sizeof o.events, "A,B,C");
    char buf[XMPI_EVENTS_MAX];
    char *names[8];
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), 3);
    ck_assert_str_eq(names[0], "A");
    ck_assert_str_eq(names[1], "B");
    ck_assert_str_eq(names[2], "C");
    for (int i = 0; i < 3; i++)
        ck_assert_msg(names[i] >= buf && names[i] < buf + sizeof buf, "names[%d] not in buf",
                      i);
    /* The options themselves stay intact for the next caller. */
    ck_assert_str_eq(o.events, "A,B,C");
}
END_TEST

START_TEST(test_events_default_and_max)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char buf[XMPI_EVENTS_MAX];
    char *names[8];
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), 0);

    snprintf(o.events, sizeof o.events, "PAPI_DP_OPS,PAPI_FP_OPS,PAPI_TOT_CYC,PAPI_TOT_INS");
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 2), 2);
    ck_assert_str_eq(names[0], "PAPI_DP_OPS");
    ck_assert_str_eq(names[1], "PAPI_FP_OPS");
}
END_TEST

/* Parsed and then split, as runtime code does: the count follows the input. */
START_TEST(test_events_round_trip)
{
    static const char *const ev[] = {"PAPI_DP_OPS", "perf::TASK-CLOCK", "PAPI_TOT_CYC",
                                     "cpu:event:u=1", "PAPI_L1_DCM"};
    for (int n = 1; n <= 5; n++) {
        char arg[512];
        size_t k = (size_t)snprintf(arg, sizeof arg, "--xmpi-events=");
        for (int i = 0; i < n; i++)
            k += (size_t)snprintf(arg + k, sizeof arg - k, "%s%s", i ? "," : "", ev[i]);
        struct xmpi_options o;
        xmpi_options_defaults(&o);
        struct args a;
        mkargs(&a, "prog", arg, NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s: %s", arg, err);
        char buf[XMPI_EVENTS_MAX];
        char *names[8];
        ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), n);
        for (int i = 0; i < n; i++) ck_assert_str_eq(names[i], ev[i]);
    }
}
END_TEST

START_TEST(test_help_text)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, "my-solver");
    fclose(f);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "my-solver") != NULL, "program name missing:\n%s", text);
    for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++)
        ck_assert_msg(strstr(text, all_args[i]) != NULL, "%s missing from help:\n%s",
                      all_args[i], text);
    ck_assert_msg(strstr(text, "XMPI_") != NULL, "help does not mention the environment");
    free(text);

    /* No program name is allowed too. */
    text = NULL;
    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, NULL);
    fclose(f);
    ck_assert_uint_gt(len, 0);
    free(text);
}
END_TEST

Suite *options_events_help_suite(void)
{
    Suite *s = suite_create("options_events_help");
    TCase *tc = tcase_create("events_help");
    tcase_add_test(tc, test_events_split);
    tcase_add_test(tc, test_events_default_and_max);
    tcase_add_test(tc, test_events_round_trip);
    tcase_add_test(tc, test_help_text);
    suite_add_tcase(s, tc);
    return s;
}
