/* io/trace_table.c, a trace read back whole: every format version told from its header (each
 * a prefix of the writer's), rows the writer wrote read back under their column names, a last
 * row cut short left out and said, and one message naming the file (and line) for an empty
 * file, another file, a header of an unknown version, a malformed row and no rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/trace_table.h"
#include "suites.h"
#include "trace_csv.h"

/* The first n columns of the writer's header. */
static void header_prefix(char *out, size_t len, int n)
{
    const char *h = xmpi_trace_header;
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        at += strcspn(h + at, ",");
        if (k < n - 1) at++;
    }
    ck_assert_uint_lt(at, len);
    memcpy(out, h, at);
    out[at] = '\0';
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Reads path; returns the reader's code, err holding its message. */
static int read_table(struct xmpi_trace_table *t, char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_trace_table_read(f, "t.csv", t, err, len);
    fclose(f);
    return rc;
}

START_TEST(test_versions_from_headers)
{
    char h[4096];
    for (int v = 1; v <= XMPIR_TRACE_VERSION; v++) {
        header_prefix(h, sizeof h, xmpi_trace_version_columns[v - 1]);
        ck_assert_int_eq(xmpi_trace_version_of(h), v);
        strcat(h, "\r\n");
        ck_assert_int_eq(xmpi_trace_version_of(h), v);
    }
    /* The writer's own header is the newest version. */
    ck_assert_int_eq(xmpi_trace_version_of(xmpi_trace_header), XMPIR_TRACE_VERSION);
    int ncols = 1;
    for (const char *p = xmpi_trace_header; *p; p++) ncols += *p == ',';
    ck_assert_int_eq(xmpi_trace_version_columns[XMPIR_TRACE_VERSION - 1], ncols);
    /* A prefix that is no version, a column more, a renamed column: unknown versions. */
    header_prefix(h, sizeof h, 18);
    ck_assert_int_eq(xmpi_trace_version_of(h), 0);
    snprintf(h, sizeof h, "%s,extra", xmpi_trace_header);
    ck_assert_int_eq(xmpi_trace_version_of(h), 0);
    header_prefix(h, sizeof h, 16);
    h[strlen(h) - 1] = 'X';
    ck_assert_int_eq(xmpi_trace_version_of(h), 0);
    /* Anything else is no trace. */
    ck_assert_int_eq(xmpi_trace_version_of("hostname:class:2:1"), -1);
    ck_assert_int_eq(xmpi_trace_version_of(""), -1);
    ck_assert_int_eq(xmpi_trace_version_of("interval,iteration"), -1);
}
END_TEST

/* Two rows as the writer writes them, read back by column name. */
START_TEST(test_reads_writer_rows)
{
    struct xmpi_rank_record rr[3];
    memset(rr, 0, sizeof rr);
    for (int r = 0; r < 3; r++) {
        rr[r].t_real = 1.5 + r;
        rr[r].comm_time = 0.25 * r;
        rr[r].iterations = 10;
    }
    struct xmpi_interval s;
    xmpi_interval_reduce(&s, rr, 3);
    s.index = 1;
    s.iteration = 10;
    s.elapsed = 2.5;
    char err[512] = "";
    FILE *f = xmpi_trace_open(path, err, sizeof err);
    ck_assert_msg(f != NULL, "%s", err);
    struct xmpi_trace_model m;
    memset(&m, 0, sizeof m);
    m.calibration = "defaults";
    m.policy = "smp";
    snprintf(m.decision, sizeof m.decision, "spawn 1");
    snprintf(m.why, sizeof m.why, "offered, so spawning");
    snprintf(m.classes, sizeof m.classes, "fast=2;slow=1");
    m.costed = 1;
    m.cost_interval = m.cost_total = 0.5;
    ck_assert_int_eq(xmpi_trace_row(f, &s, "declared", "spawn+redistribute", &m), 0);
    s.index = 2;
    s.iteration = 20;
    ck_assert_int_eq(xmpi_trace_row(f, &s, "declared", "none", NULL), 0);
    fclose(f);

    struct xmpi_trace_table t;
    ck_assert_msg(read_table(&t, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(t.version, XMPIR_TRACE_VERSION);
    ck_assert_int_eq(t.nrows, 2);
    ck_assert_int_eq(t.cut, 0);
    ck_assert_int_eq(t.lines[0], 2);
    ck_assert_int_eq(t.lines[1], 3);
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "interval")), "1");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 1, xmpi_trace_table_col(&t, "iteration")), "20");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "action")),
                     "spawn+redistribute");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "t_real_ranks")),
                     "1.5;2.5;3.5");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "procs_by_class")),
                     "fast=2;slow=1");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "cost_total")), "0.5");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 1, xmpi_trace_table_col(&t, "decision")), "");
    ck_assert_int_eq(xmpi_trace_table_col(&t, "no_such_column"), -1);
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, -1), "");
    xmpi_trace_table_free(&t);
}
END_TEST

/* A version-1 trace: 16 columns, the later ones absent ("" for each). */
START_TEST(test_reads_old_version)
{
    char h[4096], text[8192];
    header_prefix(h, sizeof h, xmpi_trace_version_columns[0]);
    snprintf(text, sizeof text, "%s\n1,10,2,1,1,1,100,declared,0.1,80,none,1.5,10,1;1,1;1,50;50\n",
             h);
    write_file(text);
    struct xmpi_trace_table t;
    char err[512];
    ck_assert_msg(read_table(&t, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(t.version, 1);
    ck_assert_int_eq(t.ncols, 16);
    ck_assert_int_eq(xmpi_trace_table_col(&t, "comm_time_ranks"), -1);
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "cost_total")), "");
    ck_assert_str_eq(xmpi_trace_table_cell(&t, 0, xmpi_trace_table_col(&t, "work_ranks")), "50;50");
    xmpi_trace_table_free(&t);
}
END_TEST

/* A job that died while writing its last row: the whole rows are read, the last left out. */
START_TEST(test_cut_last_row)
{
    char h[4096], text[8192];
    header_prefix(h, sizeof h, xmpi_trace_version_columns[0]);
    for (int nl = 0; nl < 2; nl++) {
        /* cut without a newline, or (a truncated copy) with fewer fields and one */
        snprintf(text, sizeof text, "%s\n1,10,2,1,1,1,100,declared,0.1,80,none,1.5,10,1;1,1;1,50;50\n"
                 "2,20,2,1,1,1,100,decl%s", h, nl ? "\n" : "");
        write_file(text);
        struct xmpi_trace_table t;
        char err[512];
        ck_assert_msg(read_table(&t, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(t.nrows, 1);
        ck_assert_int_eq(t.cut, 1);
        ck_assert_int_eq(t.cut_fields, 8);
        xmpi_trace_table_free(&t);
    }
    /* A whole last row without its newline is cut short too: its last field may be. */
    snprintf(text, sizeof text, "%s\n1,10,2,1,1,1,100,declared,0.1,80,none,1.5,10,1;1,1;1,50;50\n"
             "2,20,2,1,1,1,100,declared,0.1,80,none,1.5,10,1;1,1;1,50;5", h);
    write_file(text);
    struct xmpi_trace_table t;
    char err[512];
    ck_assert_msg(read_table(&t, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(t.nrows, 1);
    ck_assert_int_eq(t.cut, 1);
    xmpi_trace_table_free(&t);
}
END_TEST

/* refused TEXT WANT: the reader fails with a message containing WANT. */
static void refused(const char *text, const char *want)
{
    write_file(text);
    struct xmpi_trace_table t;
    char err[1024];
    ck_assert_int_eq(read_table(&t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
    ck_assert_int_eq(t.nrows, 0);
    ck_assert_ptr_null(t.cells);
}

START_TEST(test_refusals)
{
    char h[4096], text[8192];
    refused("", "t.csv: empty file");
    refused("host:fast:2:1\n", "t.csv:1: not a libxmpi trace");
    snprintf(text, sizeof text, "%s,newer\n", xmpi_trace_header);
    refused(text, "t.csv:1: a trace header of an unknown format version (36 columns, 1 more");
    header_prefix(h, sizeof h, 20);
    snprintf(text, sizeof text, "%s\n", h);
    refused(text, "t.csv:1: a trace header of an unknown format version (20 columns");
    header_prefix(h, sizeof h, 16);
    snprintf(text, sizeof text, "%s\n", h);
    refused(text, "t.csv: no rows");
    snprintf(text, sizeof text, "%s\n1,2,3\n1,10,2,1,1,1,100,declared,0.1,80,none,1.5,10,1;1,1;1,50;50\n",
             h);
    refused(text, "t.csv:2: 3 fields where the header has 16");
}
END_TEST

Suite *trace_table_suite(void)
{
    Suite *s = suite_create("trace_table");
    TCase *tc = tcase_create("read");
    tcase_add_unchecked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, test_versions_from_headers);
    tcase_add_test(tc, test_reads_writer_rows);
    tcase_add_test(tc, test_reads_old_version);
    tcase_add_test(tc, test_cut_last_row);
    tcase_add_test(tc, test_refusals);
    suite_add_tcase(s, tc);
    return s;
}
