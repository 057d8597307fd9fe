/* io/trace.c, opening the trace: the header alone, on disk at once, with every required
 * column exactly once; an earlier file truncated; a missing directory or a directory as the
 * path refused with a message that names it. The job's trace (xmpi_trace_begin/end): written to
 * PATH.part and renamed at the end, an earlier trace untouched until then and after a discard,
 * an input file refused under any of its names, a read-only file refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_begin_part_then_rename)
{
    char err[1024] = "", part[600], want[4096];
    struct xmpi_trace_dest d;
    snprintf(part, sizeof part, "%s.part", path);
    write_text(path, "an earlier trace\n");
    FILE *f = xmpi_trace_begin(path, NULL, 0, &d, err, sizeof err);
    ck_assert_msg(f != NULL, "begin failed: %s", err);
    ck_assert_str_eq(d.part, part);
    char *text = slurp(path, NULL);
    ck_assert_str_eq(text, "an earlier trace\n");   /* untouched while the job runs */
    free(text);
    ck_assert_int_eq(xmpi_trace_end(f, &d, err, sizeof err), 0);
    ck_assert(!exists(part));
    text = slurp(path, NULL);
    snprintf(want, sizeof want, "%s\n", xmpi_trace_header);
    ck_assert_str_eq(text, want);
    free(text);
    unlink(path);
}
END_TEST

/* The writer gave up after a failed write (f closed, NULL): the part is not renamed. */
START_TEST(test_end_after_failed_write_keeps_earlier)
{
    char err[1024] = "";
    struct xmpi_trace_dest d;
    write_text(path, "an earlier trace\n");
    FILE *f = xmpi_trace_begin(path, NULL, 0, &d, err, sizeof err);
    ck_assert_msg(f != NULL, "begin failed: %s", err);
    fclose(f);
    ck_assert_int_eq(xmpi_trace_end(NULL, &d, err, sizeof err), -1);
    ck_assert_msg(strstr(err, d.part) != NULL, "%s", err);
    char *text = slurp(path, NULL);
    ck_assert_str_eq(text, "an earlier trace\n");
    free(text);
    ck_assert(exists(d.part));
    unlink(d.part);
    unlink(path);
}
END_TEST

START_TEST(test_begin_discard_keeps_earlier)
{
    char err[1024] = "";
    struct xmpi_trace_dest d;
    write_text(path, "an earlier trace\n");
    FILE *f = xmpi_trace_begin(path, NULL, 0, &d, err, sizeof err);
    ck_assert_msg(f != NULL, "begin failed: %s", err);
    xmpi_trace_discard(f, &d);
    ck_assert(!exists(d.part));
    char *text = slurp(path, NULL);
    ck_assert_str_eq(text, "an earlier trace\n");
    free(text);
    unlink(path);
}
END_TEST

/* The input under its own name, ./name, a symbolic link, a hard link; and a name that does not
 * exist yet (a lock file) by its canonical path. */
START_TEST(test_begin_refuses_inputs)
{
    char in_path[600], sym[600], hard[600], dotted[700], err[1024];
    snprintf(in_path, sizeof in_path, "%s/res", dir);
    snprintf(sym, sizeof sym, "%s/sym", dir);
    snprintf(hard, sizeof hard, "%s/hard", dir);
    snprintf(dotted, sizeof dotted, "%s/./res", dir);
    write_text(in_path, "host:fast:2:1\n");
    ck_assert_int_eq(symlink(in_path, sym), 0);
    ck_assert_int_eq(link(in_path, hard), 0);
    struct xmpi_input_file in[2];
    snprintf(in[0].option, sizeof in[0].option, "option --xmpi-resources");
    snprintf(in[0].path, sizeof in[0].path, "%s", in_path);
    snprintf(in[1].option, sizeof in[1].option, "option --xmpi-rms");
    snprintf(in[1].path, sizeof in[1].path, "%s/state.lock", dir);
    const char *names[] = {in_path, sym, hard, dotted};
    for (int i = 0; i < 4; i++) {
        struct xmpi_trace_dest d;
        err[0] = '\0';
        ck_assert_ptr_null(xmpi_trace_begin(names[i], in, 2, &d, err, sizeof err));
        ck_assert_msg(strstr(err, "option --xmpi-trace: '") && strstr(err, "is not accepted") &&
                      strstr(err, "option --xmpi-resources"), "%s: %s", names[i], err);
    }
    char lock[700];
    snprintf(lock, sizeof lock, "%s/./state.lock", dir);
    struct xmpi_trace_dest d;
    ck_assert_ptr_null(xmpi_trace_begin(lock, in, 2, &d, err, sizeof err));
    ck_assert_msg(strstr(err, "option --xmpi-rms") != NULL, "%s", err);
    ck_assert(!exists(lock));
    char *text = slurp(in_path, NULL);
    ck_assert_str_eq(text, "host:fast:2:1\n");
    free(text);
    unlink(sym);
    unlink(hard);
    unlink(in_path);
}
END_TEST

START_TEST(test_begin_refuses_read_only)
{
    char err[1024] = "";
    struct xmpi_trace_dest d;
    write_text(path, "keep me\n");
    ck_assert_int_eq(chmod(path, 0444), 0);
    ck_assert_ptr_null(xmpi_trace_begin(path, NULL, 0, &d, err, sizeof err));
    ck_assert_msg(strstr(err, "read-only") != NULL, "%s", err);
    char *text = slurp(path, NULL);
    ck_assert_str_eq(text, "keep me\n");
    free(text);
    unlink(path);
}
END_TEST

START_TEST(test_options_inputs)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct xmpi_input_file in[XMPIR_INPUTS_MAX];
    ck_assert_int_eq(xmpi_options_inputs(&o, in, XMPIR_INPUTS_MAX), 0);
    snprintf(o.rms, sizeof o.rms, "none");
    ck_assert_int_eq(xmpi_options_inputs(&o, in, XMPIR_INPUTS_MAX), 0);
    snprintf(o.calibration, sizeof o.calibration, "cal");
    snprintf(o.work_profile, sizeof o.work_profile, "prof");
    snprintf(o.resources, sizeof o.resources, "res");
    snprintf(o.rms, sizeof o.rms, "file:st");
    ck_assert_int_eq(xmpi_options_inputs(&o, in, XMPIR_INPUTS_MAX), 5);
    const char *want[][2] = {{"option --xmpi-calibration", "cal"},
                             {"option --xmpi-work-profile", "prof"},
                             {"option --xmpi-resources", "res"},
                             {"option --xmpi-rms", "st"}, {"option --xmpi-rms", "st.lock"}};
    for (int i = 0; i < 5; i++) {
        ck_assert_str_eq(in[i].option, want[i][0]);
        ck_assert_str_eq(in[i].path, want[i][1]);
    }
    snprintf(o.rms, sizeof o.rms, "schedule:ev");
    ck_assert_int_eq(xmpi_options_inputs(&o, in, XMPIR_INPUTS_MAX), 4);
    ck_assert_str_eq(in[3].path, "ev");
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
    tcase_add_test(tc, test_begin_part_then_rename);
    tcase_add_test(tc, test_begin_discard_keeps_earlier);
    tcase_add_test(tc, test_end_after_failed_write_keeps_earlier);
    tcase_add_test(tc, test_begin_refuses_inputs);
    tcase_add_test(tc, test_begin_refuses_read_only);
    tcase_add_test(tc, test_options_inputs);
    suite_add_tcase(s, tc);
    return s;
}
