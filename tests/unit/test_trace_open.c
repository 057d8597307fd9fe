/* models/trace.c, opening the trace: the header alone, on disk at once, with every required
 * column exactly once; an earlier file truncated; a missing directory or a directory as the
 * path refused with a message that names it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suites.h"
#include "trace_csv.h"

static const char *const required[] = {
    "interval", "iteration", "nprocs", "t_real_max", "t_real_min", "t_cpu_sum", "work_sum",
    "work_source", "comm_time_max", "comm_bytes_sum", "action", "elapsed", "cost_interval",
    "cost_total",
};
#define NREQ (sizeof required / sizeof required[0])

START_TEST(test_open_writes_header_only)
{
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    fclose(f);
    char *text = slurp(path, NULL);
    char want[4096];
    snprintf(want, sizeof want, "%s\n", xmpi_trace_header);
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

/* The header must already be on disk before the first row: a job killed early
 * still leaves a readable file. */
START_TEST(test_open_flushes_header)
{
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    char *text = slurp(path, NULL);
    ck_assert_uint_eq(strlen(text), strlen(xmpi_trace_header) + 1);
    free(text);
    fclose(f);
}
END_TEST

START_TEST(test_header_has_required_columns)
{
    char hdr[4096];
    snprintf(hdr, sizeof hdr, "%s", xmpi_trace_header);
    ck_assert_ptr_null(strchr(hdr, '\n'));
    char *names[MAXF];
    int n = split(hdr, ',', names, MAXF);
    for (size_t i = 0; i < NREQ; i++) column(names, n, required[i]);
    for (int i = 0; i < n; i++) {
        ck_assert_msg(names[i][0] != '\0', "empty column name at %d", i);
        for (int j = 0; j < i; j++)
            ck_assert_msg(strcmp(names[i], names[j]) != 0, "column '%s' twice", names[i]);
    }
}
END_TEST

START_TEST(test_open_truncates)
{
    FILE *old = fopen(path, "w");
    ck_assert_ptr_nonnull(old);
    for (int i = 0; i < 100; i++) fprintf(old, "stale line %d of an earlier run\n", i);
    fclose(old);
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    fclose(f);
    char *text = slurp(path, NULL);
    char want[4096];
    snprintf(want, sizeof want, "%s\n", xmpi_trace_header);
    ck_assert_str_eq(text, want);
    free(text);
}
END_TEST

START_TEST(test_open_missing_dir)
{
    char bad[700];
    snprintf(bad, sizeof bad, "%s/no-such-dir/trace.csv", dir);
    char err[1024] = "";
    FILE *f = xmpi_trace_open(bad, err, sizeof err);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err, bad) != NULL, "message '%s' does not name %s", err, bad);
    struct stat st;
    ck_assert_int_ne(stat(bad, &st), 0);
}
END_TEST

START_TEST(test_open_directory)
{
    char err[1024] = "";
    FILE *f = xmpi_trace_open(dir, err, sizeof err);
    ck_assert_ptr_null(f);
    ck_assert_msg(strstr(err, dir) != NULL, "message '%s' does not name %s", err, dir);
}
END_TEST

Suite *trace_open_suite(void)
{
    Suite *s = suite_create("trace_open");
    TCase *tc = tcase_create("open");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, test_open_writes_header_only);
    tcase_add_test(tc, test_open_flushes_header);
    tcase_add_test(tc, test_header_has_required_columns);
    tcase_add_test(tc, test_open_truncates);
    tcase_add_test(tc, test_open_missing_dir);
    tcase_add_test(tc, test_open_directory);
    suite_add_tcase(s, tc);
    return s;
}
