/* io/trace.c, the rows: random interval summaries written and read back column by column
 * (work and bytes exactly), the model's columns, the cost columns last, the per-rank columns
 * left out (--xmpi-trace-ranks), rows appended in order
 * and each flushed, and write errors reported (a read-only stream, a full disk). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "suites.h"
#include "trace_csv.h"

#define MAXP 8

static double num(const char *text, const char *col)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    ck_assert_msg(end != text && *end == '\0' && errno == 0, "%s: '%s' is not a number", col,
                  text);
    return v;
}

static long long integer(const char *text, const char *col)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    ck_assert_msg(end != text && *end == '\0' && errno == 0, "%s: '%s' is not an integer", col,
                  text);
    return v;
}

/* Times are printed rounded; 1e-8 relative is far below anything a reader uses
 * and far above the rounding of %.9g or better. */
static void near(double got, double want, const char *col)
{
    ck_assert_msg(fabs(got - want) <= 1e-8 * fmax(fabs(got), fabs(want)),
                  "%s: read %.17g, wrote %.17g", col, got, want);
}

/* The summary's fields are set independently of any reduction, so only the
 * writer is under test here. */
static void random_summary(uint64_t *seed, struct xmpi_interval *s,
                           struct xmpi_rank_record *recs, int n)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < n; k++) rng_record(seed, &recs[k]);
    s->index = 1 + (int)(rng_next(seed) % 100000);
    s->iteration = (long)(rng_next(seed) % 1000000000000ULL);
    s->nprocs = n;
    s->iterations = 1 + rng_count(seed, 10000);
    s->t_real_max = rng_unit(seed) * 100;
    s->t_real_min = rng_unit(seed) * 0.01;
    s->t_real_sum = rng_unit(seed) * 800;
    s->t_cpu_max = rng_unit(seed) * 100;
    s->t_cpu_sum = rng_unit(seed) * 800;
    /* Full 53-bit mantissas: these two must survive the text round trip exactly. */
    s->work_sum = rng_unit(seed) * 1e13;
    s->comm_time_max = rng_unit(seed) * 3;
    s->comm_bytes_sum = rng_unit(seed) * 1e12;
    s->ranks = recs;
    s->elapsed = 1 + rng_unit(seed) * 99;
}

/* One written row checked against what was written, column by column. */
static void check_row(char *hdr_line, char *row_line, const struct xmpi_interval *s,
                      const char *source, const char *action)
{
    char *names[MAXF], *f[MAXF];
    int nh = split(hdr_line, ',', names, MAXF);
    int nr = split(row_line, ',', f, MAXF);
    ck_assert_msg(nr == nh, "row has %d fields, header %d", nr, nh);

    ck_assert_int_eq(integer(f[column(names, nh, "interval")], "interval"), s->index);
    ck_assert_int_eq(integer(f[column(names, nh, "iteration")], "iteration"), s->iteration);
    ck_assert_int_eq(integer(f[column(names, nh, "nprocs")], "nprocs"), s->nprocs);
    near(num(f[column(names, nh, "t_real_max")], "t_real_max"), s->t_real_max, "t_real_max");
    near(num(f[column(names, nh, "t_real_min")], "t_real_min"), s->t_real_min, "t_real_min");
    near(num(f[column(names, nh, "t_cpu_sum")], "t_cpu_sum"), s->t_cpu_sum, "t_cpu_sum");
    near(num(f[column(names, nh, "comm_time_max")], "comm_time_max"), s->comm_time_max,
         "comm_time_max");
    double w = num(f[column(names, nh, "work_sum")], "work_sum");
    ck_assert_msg(w == s->work_sum, "work_sum: read %.17g, wrote %.17g", w, s->work_sum);
    double b = num(f[column(names, nh, "comm_bytes_sum")], "comm_bytes_sum");
    ck_assert_msg(b == s->comm_bytes_sum, "comm_bytes_sum: read %.17g, wrote %.17g", b,
                  s->comm_bytes_sum);
    ck_assert_str_eq(f[column(names, nh, "work_source")], source);
    ck_assert_str_eq(f[column(names, nh, "action")], action);
    near(num(f[column(names, nh, "iterations")], "iterations"), s->iterations, "iterations");

    static const struct { const char *col; size_t off; } per[] = {
        {"t_real_ranks", offsetof(struct xmpi_rank_record, t_real)},
        {"t_cpu_ranks", offsetof(struct xmpi_rank_record, t_cpu)},
        {"work_ranks", offsetof(struct xmpi_rank_record, work)},
        {"comm_time_ranks", offsetof(struct xmpi_rank_record, comm_time)},
    };
    for (size_t c = 0; c < sizeof per / sizeof per[0]; c++) {
        char *v[MAXP + 1];
        int nv = split(f[column(names, nh, per[c].col)], ';', v, MAXP + 1);
        ck_assert_msg(nv == s->nprocs, "%s: %d entries for %d ranks", per[c].col, nv,
                      s->nprocs);
        for (int r = 0; r < nv; r++) {
            double want;
            memcpy(&want, (const char *)&s->ranks[r] + per[c].off, sizeof want);
            char what[64];
            snprintf(what, sizeof what, "%s[%d]", per[c].col, r);
            near(num(v[r], what), want, what);
        }
    }
}

/* Splits a whole file into its lines; the file must end with a newline. */
static int lines(char *text, char **out, int max)
{
    size_t len = strlen(text);
    ck_assert_msg(len > 0 && text[len - 1] == '\n', "file does not end with a newline");
    text[len - 1] = '\0';
    return split(text, '\n', out, max);
}

/* _i is nprocs - 1. */
START_TEST(test_row_values)
{
    int n = _i + 1;
    uint64_t seed = 500 + (uint64_t)n;
    struct xmpi_rank_record recs[MAXP];
    struct xmpi_interval s;
    for (int t = 0; t < 20; t++) {
        random_summary(&seed, &s, recs, n);
        const char *source = t % 2 ? "papi" : "declared";
        const char *action = t % 3 ? "none" : "expand";
        char err[1024] = "";
        FILE *f = xmpi_trace_open(path, err, sizeof err);
        ck_assert_msg(f != NULL, "open failed: %s", err);
        ck_assert_int_eq(xmpi_trace_row(f, &s, source, action, NULL), 0);
        fclose(f);
        char *text = slurp(path, NULL);
        char *ln[4];
        ck_assert_int_eq(lines(text, ln, 4), 2);
        check_row(ln[0], ln[1], &s, source, action);
        free(text);
    }
}
END_TEST

/* Two rows of one interval written with model columns a and b (NULL: none), read back: the
 * header's names and each row's fields (nh of them each); free *text afterwards. */
struct two_rows {
    char *text, *names[MAXF], *a[MAXF], *b[MAXF];
    int nh;
};

static void write_two_rows(uint64_t seed, int nprocs, const struct xmpi_trace_model *a,
                           const struct xmpi_trace_model *b, struct two_rows *r)
{
    struct xmpi_rank_record recs[MAXP];
    struct xmpi_interval s;
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    random_summary(&seed, &s, recs, nprocs);
    ck_assert_int_eq(xmpi_trace_row(f, &s, "papi", "spawn", a), 0);
    ck_assert_int_eq(xmpi_trace_row(f, &s, "papi", "none", b), 0);
    fclose(f);
    r->text = slurp(path, NULL);
    char *ln[4];
    ck_assert_int_eq(lines(r->text, ln, 4), 3);
    r->nh = split(ln[0], ',', r->names, MAXF);
    ck_assert_int_eq(split(ln[1], ',', r->a, MAXF), r->nh);
    ck_assert_int_eq(split(ln[2], ',', r->b, MAXF), r->nh);
}

/* The model's columns: empty when nothing is compared, the values under their names when
 * something is, and a calibration path that cannot break the row apart. */
START_TEST(test_row_model_columns)
{
    uint64_t seed = 900;
    struct xmpi_trace_model m = {.calibration = "/tmp/a,b\"c.txt", .compared = 1};
    snprintf(m.predicted_for, sizeof m.predicted_for, "spawn");
    double v[8];
    for (int i = 0; i < 8; i++) v[i] = rng_unit(&seed) * 10;
    m.pred_comp = v[0], m.meas_comp = v[1], m.pred_comm = v[2], m.meas_comm = v[3];
    m.pred_reconf = v[4], m.meas_reconf = v[5], m.pred_redist = v[6], m.meas_redist = v[7];
    struct xmpi_trace_model none = {.calibration = "defaults"};
    struct two_rows r;
    write_two_rows(seed, 3, &m, &none, &r);
    char **names = r.names, **a = r.a, **b = r.b;
    int nh = r.nh;
    ck_assert_str_eq(a[column(names, nh, "calibration")], "/tmp/a_b_c.txt");
    ck_assert_str_eq(a[column(names, nh, "predicted_for")], "spawn");
    const char *cols[8] = {"pred_comp", "meas_comp", "pred_comm", "meas_comm",
                           "pred_reconf", "meas_reconf", "pred_redist", "meas_redist"};
    for (int i = 0; i < 8; i++) {
        near(num(a[column(names, nh, cols[i])], cols[i]), v[i], cols[i]);
        ck_assert_str_eq(b[column(names, nh, cols[i])], "");
    }
    ck_assert_str_eq(b[column(names, nh, "calibration")], "defaults");
    ck_assert_str_eq(b[column(names, nh, "predicted_for")], "");
    free(r.text);
}
END_TEST

/* The malleability policy's columns: what the resource manager said, the decision and why
 * (a comma in the sentence cannot split the row), the processes per class; empty without. */
START_TEST(test_row_policy_columns)
{
    struct xmpi_trace_model m = {.calibration = "defaults", .policy = "hpmp"};
    snprintf(m.event, sizeof m.event, "offer 2 fast");
    snprintf(m.decision, sizeof m.decision, "spawn 1");
    snprintf(m.why, sizeof m.why, "2 PE(s) offered: spawning 1, predicted 3 s");
    snprintf(m.classes, sizeof m.classes, "fast=1;slow=1");
    m.t_decide = 0.00123;
    struct two_rows r;
    write_two_rows(901, 2, &m, NULL, &r);
    char **names = r.names, **a = r.a, **b = r.b;
    int nh = r.nh;
    ck_assert_str_eq(a[column(names, nh, "policy")], "hpmp");
    ck_assert_str_eq(a[column(names, nh, "event")], "offer 2 fast");
    ck_assert_str_eq(a[column(names, nh, "decision")], "spawn 1");
    ck_assert_str_eq(a[column(names, nh, "why")], "2 PE(s) offered: spawning 1_ predicted 3 s");
    ck_assert_str_eq(a[column(names, nh, "procs_by_class")], "fast=1;slow=1");
    near(num(a[column(names, nh, "t_decide")], "t_decide"), 0.00123, "t_decide");
    const char *cols[6] = {"policy", "event", "decision", "why", "procs_by_class", "t_decide"};
    for (int i = 0; i < 6; i++) ck_assert_str_eq(b[column(names, nh, cols[i])], "");
    free(r.text);
}
END_TEST

/* The cost columns come last, in that order: a costed row ends with the interval's cost and
 * the total (exactly, as %.17g), an uncosted one and a row without the model's columns with
 * two empty fields. */
START_TEST(test_row_cost_columns)
{
    uint64_t seed = 902;
    struct xmpi_trace_model m = {.calibration = "defaults", .costed = 1};
    m.cost_interval = rng_unit(&seed) * 0.1;
    m.cost_total = m.cost_interval + rng_unit(&seed) * 10;
    struct xmpi_trace_model off = {.calibration = "defaults", .cost_interval = 1,
                                   .cost_total = 2};
    struct two_rows r;
    write_two_rows(seed, 2, &m, &off, &r);
    char **names = r.names, **a = r.a, **b = r.b;
    int nh = r.nh;
    ck_assert_int_ge(nh, 2);
    ck_assert_str_eq(names[nh - 2], "cost_interval");
    ck_assert_str_eq(names[nh - 1], "cost_total");
    ck_assert_int_eq(column(names, nh, "cost_interval"), nh - 2);
    double ci = num(a[nh - 2], "cost_interval"), ct = num(a[nh - 1], "cost_total");
    ck_assert_msg(ci == m.cost_interval, "cost_interval: read %.17g, wrote %.17g", ci,
                  m.cost_interval);
    ck_assert_msg(ct == m.cost_total, "cost_total: read %.17g, wrote %.17g", ct, m.cost_total);
    ck_assert_str_eq(b[nh - 2], "");
    ck_assert_str_eq(b[nh - 1], "");
    free(r.text);
    write_two_rows(seed, 1, &m, NULL, &r);
    ck_assert_str_eq(r.b[r.nh - 2], "");
    ck_assert_str_eq(r.b[r.nh - 1], "");
    ck_assert(num(r.a[r.nh - 1], "cost_total") == m.cost_total);
    free(r.text);
}
END_TEST

/* --xmpi-trace-ranks (issue 42): a row with no_ranks leaves the four per-rank columns empty
 * and every other field as the same interval's row with them; NULL model columns keep them. */
START_TEST(test_row_no_ranks)
{
    uint64_t seed = 903;
    struct xmpi_trace_model m = {.calibration = "defaults", .no_ranks = 1};
    struct xmpi_trace_model with = {.calibration = "defaults"};
    static const char *const per_rank[4] = {"t_real_ranks", "t_cpu_ranks", "work_ranks",
                                            "comm_time_ranks"};
    struct two_rows r;
    write_two_rows(seed, MAXP, &m, &with, &r);
    int blank = 0;
    for (int i = 0; i < r.nh; i++) {
        int ranks = 0;
        for (int k = 0; k < 4; k++) ranks |= !strcmp(r.names[i], per_rank[k]);
        if (ranks) {
            ck_assert_str_eq(r.a[i], "");
            ck_assert_int_eq((int)strlen(r.b[i]) > 0, 1);
            blank++;
        } else if (strcmp(r.names[i], "action")) {
            ck_assert_msg(!strcmp(r.a[i], r.b[i]), "%s: '%s' without the ranks, '%s' with",
                          r.names[i], r.a[i], r.b[i]);
        }
    }
    ck_assert_int_eq(blank, 4);
    free(r.text);
    write_two_rows(seed, 2, &m, NULL, &r);
    ck_assert_int_eq((int)strlen(r.b[column(r.names, r.nh, "t_real_ranks")]) > 0, 1);
    free(r.text);
}
END_TEST

/* Apart from the other columns so that its precision is reported on its own. */
START_TEST(test_row_elapsed)
{
    uint64_t seed = 600;
    struct xmpi_rank_record recs[MAXP];
    struct xmpi_interval s;
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    double want[10];
    for (int t = 0; t < 10; t++) {
        random_summary(&seed, &s, recs, 1 + t % MAXP);
        want[t] = s.elapsed;
        ck_assert_int_eq(xmpi_trace_row(f, &s, "papi", "none", NULL), 0);
    }
    fclose(f);
    char *text = slurp(path, NULL);
    char *ln[12];
    ck_assert_int_eq(lines(text, ln, 12), 11);
    char *names[MAXF];
    int nh = split(ln[0], ',', names, MAXF);
    int c = column(names, nh, "elapsed");
    for (int t = 0; t < 10; t++) {
        char *fl[MAXF];
        ck_assert_int_eq(split(ln[1 + t], ',', fl, MAXF), nh);
        near(num(fl[c], "elapsed"), want[t], "elapsed");
    }
    free(text);
}
END_TEST

/* Rows append in order under the one header, each flushed as written. */
START_TEST(test_rows_append)
{
    uint64_t seed = 700;
    struct xmpi_rank_record recs[5][MAXP];
    struct xmpi_interval s[5];
    const char *const actions[5] = {"none", "expand", "none", "shrink", "none"};
    char err[1024] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "open failed: %s", err);
    for (int t = 0; t < 5; t++) {
        random_summary(&seed, &s[t], recs[t], 1 + t);
        s[t].index = t + 1;
        ck_assert_int_eq(xmpi_trace_row(f, &s[t], "papi", actions[t], NULL), 0);
        char *text = slurp(path, NULL);
        char *ln[8];
        ck_assert_int_eq(lines(text, ln, 8), t + 2);
        free(text);
    }
    fclose(f);
    char *text = slurp(path, NULL);
    char *ln[8];
    ck_assert_int_eq(lines(text, ln, 8), 6);
    for (int t = 0; t < 5; t++) {
        char hdr[4096];
        snprintf(hdr, sizeof hdr, "%s", ln[0]);
        check_row(hdr, ln[1 + t], &s[t], "papi", actions[t]);
    }
    free(text);
}
END_TEST

/* A full disk or a closed descriptor must be reported, not lost silently. */
START_TEST(test_row_write_error)
{
    FILE *w = fopen(path, "w");
    ck_assert_ptr_nonnull(w);
    fclose(w);
    FILE *ro = fopen(path, "r");
    ck_assert_ptr_nonnull(ro);
    uint64_t seed = 800;
    struct xmpi_rank_record recs[MAXP];
    struct xmpi_interval s;
    random_summary(&seed, &s, recs, 3);
    ck_assert_int_eq(xmpi_trace_row(ro, &s, "papi", "none", NULL), -1);
    fclose(ro);
}
END_TEST

/* ENOSPC only shows at the flush, after every fprintf has succeeded. */
START_TEST(test_row_dev_full)
{
    FILE *f = fopen("/dev/full", "w");
    ck_assert_msg(f != NULL, "/dev/full: %s", strerror(errno));
    uint64_t seed = 801;
    struct xmpi_rank_record recs[MAXP];
    struct xmpi_interval s;
    random_summary(&seed, &s, recs, 2);
    ck_assert_int_eq(xmpi_trace_row(f, &s, "papi", "none", NULL), -1);
    fclose(f);
}
END_TEST

/* A work profile read back from a trace written by xmpi_trace_row (with the model's and the
 * policy's free-text columns filled, commas included) is each row's work_sum / iterations. */
START_TEST(test_profile_round_trip)
{
    FILE *f = xmpi_trace_open(path, (char[256]){0}, 256);
    ck_assert_ptr_nonnull(f);
    uint64_t seed = 900;
    double want[12];
    struct xmpi_trace_model m;
    memset(&m, 0, sizeof m);
    m.calibration = "a,b.txt";
    m.policy = "amp";
    snprintf(m.why, sizeof m.why, "keeping 2 processes, within 1%%");
    for (int i = 0; i < 12; i++) {
        struct xmpi_rank_record recs[MAXP];
        struct xmpi_interval s;
        random_summary(&seed, &s, recs, 1 + i % MAXP);
        want[i] = s.work_sum / s.iterations;
        ck_assert_int_eq(xmpi_trace_row(f, &s, "declared", "none", i % 2 ? &m : NULL), 0);
    }
    fclose(f);
    f = fopen(path, "r");
    double *got = NULL;
    int n = 0;
    char err[512] = "";
    ck_assert_msg(xmpi_trace_read_profile(f, path, &got, &n, err, sizeof err) == 0, "%s", err);
    fclose(f);
    ck_assert_int_eq(n, 12);
    for (int i = 0; i < 12; i++) near(got[i], want[i], "work per iteration");
    free(got);
}
END_TEST

START_TEST(test_profile_long_rows)
{
    /* Rows longer than any fixed buffer (a job of thousands of ranks): each is one row. */
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("ranks,iterations,work_sum\n", f);
    for (int row = 0; row < 3; row++) {
        for (int r = 0; r < 20000; r++) fprintf(f, "%s%d", r ? ";" : "\"", r);
        fprintf(f, "\",%d,%d\n", 10 * (row + 1), 100 * (row + 1) * (row + 2));
    }
    fclose(f);
    f = fopen(path, "r");
    double *got = NULL;
    int n = 0;
    char err[512] = "";
    ck_assert_msg(xmpi_trace_read_profile(f, path, &got, &n, err, sizeof err) == 0, "%s", err);
    fclose(f);
    ck_assert_int_eq(n, 3);
    for (int row = 0; row < 3; row++) near(got[row], 10.0 * (row + 2), "work per iteration");
    free(got);
}
END_TEST

/* Each malformed trace is refused with its line, and nothing is left allocated. */
static const struct { const char *text, *says; } bad_profiles[] = {
    {"", ":1: empty file"},
    {"interval,work_sum\n1,5\n", ":1: no column 'iterations'"},
    {"iterations,x\n1,5\n", ":1: no column 'work_sum'"},
    {"iterations,work_sum\n", "no rows"},
    {"iterations,work_sum\n10,100\n0,100\n", ":3: iterations '0'"},
    {"iterations,work_sum\n10,-1\n", ":2: iterations '10', work_sum '-1'"},
    {"iterations,work_sum\n10,abc\n", ":2: iterations '10', work_sum 'abc'"},
    {"iterations,work_sum\n10,nan\n", ":2:"},
    {"a,iterations,work_sum\n1,10\n", ":2: the row ends before"},
};

START_TEST(test_profile_refused)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(bad_profiles[_i].text, f);
    fclose(f);
    f = fopen(path, "r");
    double *got = (double *)&got;
    int n = 7;
    char err[512] = "";
    ck_assert_int_eq(xmpi_trace_read_profile(f, path, &got, &n, err, sizeof err), -1);
    fclose(f);
    ck_assert_ptr_null(got);
    ck_assert_int_eq(n, 0);
    ck_assert_msg(strstr(err, bad_profiles[_i].says) && strstr(err, path), "case %d: '%s'", _i,
                  err);
}
END_TEST

Suite *trace_rows_suite(void)
{
    Suite *s = suite_create("trace_rows");
    TCase *tc = tcase_create("rows");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_add_loop_test(tc, test_row_values, 0, MAXP);
    tcase_add_test(tc, test_row_elapsed);
    tcase_add_test(tc, test_row_model_columns);
    tcase_add_test(tc, test_row_policy_columns);
    tcase_add_test(tc, test_row_cost_columns);
    tcase_add_test(tc, test_row_no_ranks);
    tcase_add_test(tc, test_rows_append);
    tcase_add_test(tc, test_row_write_error);
    tcase_add_test(tc, test_row_dev_full);
    tcase_add_test(tc, test_profile_round_trip);
    tcase_add_test(tc, test_profile_long_rows);
    tcase_add_loop_test(tc, test_profile_refused, 0,
                        (int)(sizeof bad_profiles / sizeof bad_profiles[0]));
    suite_add_tcase(s, tc);
    return s;
}
