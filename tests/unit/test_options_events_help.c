/* io/options.c, the events list split into names (up to a maximum, the options
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
    char buf[XMPIR_EVENTS_MAX];
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
    char buf[XMPIR_EVENTS_MAX];
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
        char buf[XMPIR_EVENTS_MAX];
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

/* The Markdown page: one table row per option, and a '|' inside a cell is escaped so that it
 * does not split the row. */
START_TEST(test_markdown_table)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_markdown(f);
    fclose(f);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++) {
        char cell[96];
        snprintf(cell, sizeof cell, "| `%s", all_args[i]);
        ck_assert_msg(strstr(text, cell) != NULL, "no row for %s:\n%s", all_args[i], text);
    }
    int rows = 0, header_cells = -1;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (line[0] != '|') continue;
        int cells = 0;
        for (char *p = line; *p; p++)
            if (*p == '|' && (p == line || p[-1] != '\\')) cells++;
        if (header_cells < 0) header_cells = cells;
        ck_assert_msg(cells == header_cells, "row with %d separators, header %d: %s", cells,
                      header_cells, line);
        rows++;
    }
    free(text);

    /* As many option rows as the help lists options: the header and its rule are the 2 more. */
    text = NULL;
    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, NULL);
    fclose(f);
    int options = 0;
    for (const char *p = text; (p = strstr(p, "\n  --xmpi-")); p++) options++;
    ck_assert_int_gt(options, 5);
    ck_assert_int_eq(rows, options + 2);
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
    tcase_add_test(tc, test_markdown_table);
    suite_add_tcase(s, tc);
    return s;
}
