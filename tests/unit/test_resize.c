/* Resizing by checkpoint and restart: policies/resize.c's choice between dynamic processes and
 * checkpoint/restart in every mode (against a decision table written out here), models/
 * resize.c's price against the sum worked by hand, and io/resize_record.c's record:
 * written and read back field for field, and every malformed record refused with its line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/resize_record.h"
#include "../../models/resize.h"
#include "../../policies/resize.h"
#include "suites.h"

/* ---- the choice ----------------------------------------------------------------------- */

static const struct {
    int mode, can, grow, dyn_ok;
    double t_dyn, t_cr;
    enum xmpi_resize_way want;
    const char *why;   /* a part of the sentence */
} ways[] = {
    /* spawn: dynamic processes or nothing, whatever the prices */
    {XMPIR_RESIZE_SPAWN, 1, 1, 1, 5, 1, XMPIR_WAY_DYNAMIC, "by dynamic processes"},
    {XMPIR_RESIZE_SPAWN, 1, 1, 0, -1, 1, XMPIR_WAY_NONE, "MPI refused an earlier spawn (--xmpi-resize=spawn)"},
    {XMPIR_RESIZE_SPAWN, 0, 0, 0, -1, -1, XMPIR_WAY_NONE, "only processes spawned during the run"},
    /* restart: always by checkpoint and restart when it can */
    {XMPIR_RESIZE_RESTART, 1, 1, 1, 0.1, 9, XMPIR_WAY_RESTART, "--xmpi-resize=restart"},
    {XMPIR_RESIZE_RESTART, 1, 0, 0, -1, -1, XMPIR_WAY_RESTART, "--xmpi-resize=restart"},
    {XMPIR_RESIZE_RESTART, 0, 1, 1, -1, -1, XMPIR_WAY_NONE, "needs --xmpi-checkpoint"},
    /* auto without a relauncher: as spawn */
    {XMPIR_RESIZE_AUTO, 0, 1, 1, 9, 0.1, XMPIR_WAY_DYNAMIC, "by dynamic processes"},
    {XMPIR_RESIZE_AUTO, 0, 0, 0, -1, -1, XMPIR_WAY_NONE, "run it under xmpi-resume"},
    /* auto with a relauncher */
    {XMPIR_RESIZE_AUTO, 1, 1, 0, -1, -1, XMPIR_WAY_RESTART, "MPI refused an earlier spawn"},
    {XMPIR_RESIZE_AUTO, 1, 0, 0, 0.5, -1, XMPIR_WAY_RESTART, "only processes spawned"},
    {XMPIR_RESIZE_AUTO, 1, 1, 1, 0.5, 0.4, XMPIR_WAY_RESTART, "predicted 0.4 s against 0.5 s"},
    {XMPIR_RESIZE_AUTO, 1, 0, 1, 0.5, 0.5, XMPIR_WAY_DYNAMIC, "predicted 0.5 s against 0.5 s"},
    {XMPIR_RESIZE_AUTO, 1, 1, 1, 0.3, 2.5, XMPIR_WAY_DYNAMIC, "predicted 0.3 s against 2.5 s"},
    {XMPIR_RESIZE_AUTO, 1, 1, 1, 0.3, -1, XMPIR_WAY_DYNAMIC, "checkpoint and restart not priced"},
    {XMPIR_RESIZE_AUTO, 1, 1, 1, -1, 0.1, XMPIR_WAY_DYNAMIC, "dynamic processes not priced"},
};

START_TEST(each_case_chooses_its_way_and_says_why)
{
    struct xmpi_resize_case c = {ways[_i].mode, ways[_i].can, ways[_i].grow, ways[_i].dyn_ok,
                                 ways[_i].t_dyn, ways[_i].t_cr};
    char why[256] = "";
    enum xmpi_resize_way w = xmpi_resize_choose(&c, why, sizeof why);
    ck_assert_msg(w == ways[_i].want, "case %d: way %d, want %d (%s)", _i, w, ways[_i].want, why);
    ck_assert_msg(strstr(why, ways[_i].why), "case %d: '%s' does not say '%s'", _i, why,
                  ways[_i].why);
}
END_TEST

/* ---- the price ------------------------------------------------------------------------ */

START_TEST(test_price_by_hand)
{
    struct xmpi_resize_estimate e;
    /* 400 MB written at 200 MB/s, read at 800 MB/s, a relaunch of 1.5 s: 2 + 1.5 + 0.5 s */
    struct xmpi_resize_measured m = {200e6, 800e6, 1.5, 0.3};
    ck_assert_int_eq(xmpi_resize_predict(&m, 400e6, &e), 0);
    ck_assert(fabs(e.t_write - 2) < 1e-12 && fabs(e.t_read - 0.5) < 1e-12);
    ck_assert(fabs(e.t_start - 1.5) < 1e-12 && fabs(e.total - 4) < 1e-12);
    ck_assert_int_eq(e.start_measured, 1);
    /* no read measured: the write's speed; no relaunch measured: the start-up's lower bound */
    m = (struct xmpi_resize_measured){200e6, 0, -1, 0.3};
    ck_assert_int_eq(xmpi_resize_predict(&m, 400e6, &e), 0);
    ck_assert(fabs(e.t_read - 2) < 1e-12 && fabs(e.total - 4.3) < 1e-12);
    ck_assert_int_eq(e.start_measured, 0);
}
END_TEST

START_TEST(test_price_unknown)
{
    struct xmpi_resize_estimate e;
    struct xmpi_resize_measured none = {0, 0, -1, -1}, nowrite = {0, 1e9, 1, 1},
                            nostart = {1e9, 1e9, -1, -1};
    ck_assert_int_eq(xmpi_resize_predict(&none, 1e6, &e), -1);
    ck_assert_int_eq(xmpi_resize_predict(&nowrite, 1e6, &e), -1);
    ck_assert_int_eq(xmpi_resize_predict(&nostart, 1e6, &e), -1);
    struct xmpi_resize_measured ok = {1e9, 1e9, 1, 1};
    ck_assert_int_eq(xmpi_resize_predict(&ok, -1, &e), -1);
    ck_assert_int_eq(xmpi_resize_predict(&ok, NAN, &e), -1);
    ck_assert_int_eq(xmpi_resize_predict(NULL, 1, &e), -1);
    ck_assert_int_eq(xmpi_resize_predict(&ok, 0, &e), 0);
    ck_assert(fabs(e.total - 1) < 1e-12);
}
END_TEST

/* ---- the record ----------------------------------------------------------------------- */

static const struct xmpi_resize_record sample = {
    3, 2, "ckpt-000000000020", 12.5, 1790000000.25, 0.125, 4096, -1, 0.0625, 81.75, 120.5,
    0.001953125, 2.5, 0.000555};

static char *written(const struct xmpi_resize_record *r)
{
    static char buf[4096];
    FILE *f = fmemopen(buf, sizeof buf, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(xmpi_resize_record_write(f, r), 0);
    fclose(f);
    return buf;
}

START_TEST(test_record_roundtrip)
{
    struct xmpi_resize_record got;
    char err[512] = "";
    ck_assert_msg(xmpi_resize_record_parse(written(&sample), "c/RESIZE", &got, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_int_eq(got.nprocs, 3);
    ck_assert_int_eq(got.from, 2);
    ck_assert_str_eq(got.checkpoint, "ckpt-000000000020");
    ck_assert(got.elapsed == 12.5 && got.at == 1790000000.25 && got.write_seconds == 0.125);
    ck_assert(got.bytes == 4096 && got.start_seconds == -1 && got.read_seconds == 0.0625);
    ck_assert(got.amp_goal == 81.75 && got.amp_static == 120.5);
    ck_assert(got.cost_total == 0.001953125 && got.cost_pe_seconds == 2.5);
    ck_assert(got.cost_first_rate == 0.000555);
}
END_TEST

/* A line of the written record replaced (or removed, new NULL), and the message wanted. */
static const struct {
    const char *key, *line, *want;
} bad[] = {
    {"nprocs ", "nprocs 0", "c/RESIZE:2: field nprocs: '0' is not accepted; expected an integer from 1"},
    {"nprocs ", "nprocs 3x", "field nprocs: '3x' is not accepted"},
    {"from ", NULL, "c/RESIZE: no key from; expected every key"},
    {"checkpoint ", "checkpoint ../x", "field checkpoint: '../x' is not accepted"},
    {"checkpoint ", "checkpoint .hidden", "field checkpoint: '.hidden' is not accepted"},
    {"elapsed ", "elapsed -1", "field elapsed: '-1' is not accepted"},
    {"start-seconds ", "start-seconds -2", "field start-seconds: '-2' is not accepted; expected a number of seconds >= 0, or -1"},
    {"at ", "at nan", "field at: 'nan' is not accepted"},
    {"bytes ", "bytes 1e999", "field bytes: '1e999' is not accepted"},
    {"amp-goal ", "amp-goal 1 2", "c/RESIZE:11:"},
    {"cost-total ", "colour blue", "field KEY: 'colour' is not accepted; expected one of nprocs"},
    {"read-seconds ", "elapsed 3", "key elapsed a second time"},
    {"xmpi-resize ", "xmpi-resize 2", "field VERSION: '2' is not accepted; expected 1"},
    {"xmpi-resize ", "xmpi-checkpoint 1", "field keyword: 'xmpi-checkpoint' is not accepted"},
    {"end", NULL, "no 'end' line"},
    {"end", "end\nnprocs 2", "a line after 'end'"},
};

START_TEST(test_record_refused)
{
    const char *text = written(&sample);
    char edited[4096] = "", err[512] = "";
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (!strncmp(p, bad[_i].key, strlen(bad[_i].key))) {
            if (bad[_i].line) {
                strcat(edited, bad[_i].line);
                strcat(edited, "\n");
            }
        } else {
            strncat(edited, p, n);
            strcat(edited, "\n");
        }
        p += n + (nl ? 1 : 0);
    }
    ck_assert_msg(strcmp(edited, text), "case %d changed nothing", _i);
    struct xmpi_resize_record got;
    ck_assert_int_eq(xmpi_resize_record_parse(edited, "c/RESIZE", &got, err, sizeof err), -1);
    ck_assert_msg(strstr(err, bad[_i].want), "case %d: '%s' does not say '%s'", _i, err,
                  bad[_i].want);
}
END_TEST

START_TEST(test_record_empty)
{
    struct xmpi_resize_record got;
    char err[512] = "";
    ck_assert_int_eq(xmpi_resize_record_parse("", "c/RESIZE", &got, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "c/RESIZE: empty"));
    ck_assert_int_eq(xmpi_resize_record_parse("xmpi-resize 1\nnprocs 2\0junk", "c/RESIZE", &got, err,
                                       sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no key from"));
}
END_TEST

Suite *resize_suite(void)
{
    Suite *s = suite_create("resize");
    TCase *tc = tcase_create("resize");
    tcase_add_loop_test(tc, each_case_chooses_its_way_and_says_why, 0, (int)(sizeof ways / sizeof ways[0]));
    tcase_add_test(tc, test_price_by_hand);
    tcase_add_test(tc, test_price_unknown);
    tcase_add_test(tc, test_record_roundtrip);
    tcase_add_loop_test(tc, test_record_refused, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_record_empty);
    suite_add_tcase(s, tc);
    return s;
}
