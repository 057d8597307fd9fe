/* models/formats/rms_schedule.c: the xmpi-rms schedule file (events sorted by iteration,
 * stably), every rejection path, events handed out one per poll, and loading from a file. */
#include <stdio.h>
#include <string.h>

#include "../../models/formats/rms_schedule.h"
#include "rms_util.h"
#include "suites.h"

static int parse_sched(struct xmpi_rms_schedule *s, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_rms_schedule_parse(s, f, "t.sched", err, sizeof err);
    fclose(f);
    return rc;
}

static void assert_event(const struct xmpi_rms_event *ev, long it, int act, int count,
                         const char *cls)
{
    ck_assert_ptr_nonnull(ev);
    ck_assert_msg(ev->iteration == it && ev->action == act && ev->count == count &&
                      !strcmp(ev->cls, cls),
                  "event %ld %d %d %s, want %ld %d %d %s", ev->iteration, ev->action, ev->count,
                  ev->cls, it, act, count, cls);
}

static const char sched_text[] =
    "# ITERATION spawn|remove COUNT CLASS\n"
    "200 spawn 1 a\n"
    "\n"
    "100\tremove 2 b   # a trailing comment\n"
    "  100 spawn 3 c\r\n"
    "0 spawn 1 x.y-z_9\n"
    "100 remove 1 d\n"
    "300 spawn 1000000 e";

START_TEST(test_schedule_parse)
{
    struct xmpi_rms_schedule s;
    ck_assert_msg(parse_sched(&s, sched_text) == 0, "%s", err);
    ck_assert_int_eq(s.n, 6);
    ck_assert_int_eq(s.next, 0);
    assert_event(&s.ev[0], 0, XMPIR_RMS_ACT_SPAWN, 1, "x.y-z_9");
    assert_event(&s.ev[1], 100, XMPIR_RMS_ACT_SHRINK, 2, "b");
    assert_event(&s.ev[2], 100, XMPIR_RMS_ACT_SPAWN, 3, "c");
    assert_event(&s.ev[3], 100, XMPIR_RMS_ACT_SHRINK, 1, "d");
    assert_event(&s.ev[4], 200, XMPIR_RMS_ACT_SPAWN, 1, "a");
    assert_event(&s.ev[5], 300, XMPIR_RMS_ACT_SPAWN, 1000000, "e");
    xmpi_rms_schedule_free(&s);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(s.ev);

    ck_assert_int_eq(parse_sched(&s, "# nothing\n\n"), 0);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 1000));
    xmpi_rms_schedule_free(&s);
}
END_TEST

START_TEST(test_schedule_stable_many)
{
    /* Many equal iterations: qsort alone would not keep their order. */
    char text[8192];
    size_t used = 0;
    for (int i = 0; i < 200; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%d spawn %d c%d\n",
                                 (i * 7) % 3, i + 1, i);
    struct xmpi_rms_schedule s;
    ck_assert_int_eq(parse_sched(&s, text), 0);
    ck_assert_int_eq(s.n, 200);
    for (int i = 1; i < s.n; i++) {
        ck_assert(s.ev[i - 1].iteration <= s.ev[i].iteration);
        if (s.ev[i - 1].iteration == s.ev[i].iteration)
            ck_assert_int_lt(s.ev[i - 1].count, s.ev[i].count);   /* count = file line */
    }
    xmpi_rms_schedule_free(&s);
}
END_TEST

struct bad_sched {
    const char *text, *want;
};

static const struct bad_sched bad_scheds[] = {
    {"-1 spawn 1 a\n", "t.sched:1: field iteration: '-1' is not accepted; expected a whole "
                       "number from 0"},
    {"# c\n\nabc spawn 1 a\n", "t.sched:3: field iteration: 'abc' is not accepted"},
    {"1e3 spawn 1 a\n", "t.sched:1: field iteration: '1e3'"},
    {"+5 spawn 1 a\n", "t.sched:1: field iteration: '+5'"},
    {"99999999999999999999 spawn 1 a\n", "t.sched:1: field iteration: '99999999999999999999'"},
    {"1 Spawn 1 a\n", "t.sched:1: field action: 'Spawn' is not accepted; expected spawn or "
                      "remove"},
    {"1 add 1 a\n", "t.sched:1: field action: 'add'"},
    {"1 spawn 1 a\n2 shrink 1 a\n", "t.sched:2: field action: 'shrink'"},
    {"1 spawn 0 a\n", "t.sched:1: field count: '0' is not accepted; expected a whole number "
                      "from 1 to 1000000"},
    {"1 spawn -2 a\n", "t.sched:1: field count: '-2'"},
    {"1 remove two a\n", "t.sched:1: field count: 'two'"},
    {"1 remove 1000001 a\n", "t.sched:1: field count: '1000001'"},
    {"1 spawn 1 a/b\n", "t.sched:1: field class: 'a/b' is not accepted; expected a class name"},
    {"1 spawn 1 a:b\n", "t.sched:1: field class: 'a:b'"},
    {"1 spawn 1 cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n",
     "t.sched:1: field class: 'cccccccccccccccccccccccccccccccccccccccc...'"},
    {"1 spawn 1\n", "t.sched:1: field class: missing; expected 4 fields: ITERATION "
                    "spawn|remove COUNT CLASS"},
    {"1\n", "t.sched:1: field action: missing"},
    {"1 spawn 1 a b\n", "t.sched:1: more than 4 fields are not accepted; expected 4 fields"},
};
#define NBAD_SCHEDS ((int)(sizeof bad_scheds / sizeof bad_scheds[0]))

START_TEST(test_schedule_bad)
{
    const struct bad_sched *b = &bad_scheds[_i];
    struct xmpi_rms_event sentinel;
    struct xmpi_rms_schedule s = {3, &sentinel, 2};
    ck_assert_msg(parse_sched(&s, b->text) == -1, "accepted: %s", b->text);
    assert_err_has(b->want);
    assert_err_has("expected");
    ck_assert_int_eq(s.n, 3);
    ck_assert_ptr_eq(s.ev, &sentinel);
    ck_assert_int_eq(s.next, 2);
}
END_TEST

START_TEST(test_schedule_due)
{
    struct xmpi_rms_schedule s;
    ck_assert_int_eq(parse_sched(&s, sched_text), 0);
    ck_assert_ptr_null(xmpi_rms_schedule_due(NULL, 5));
    assert_event(xmpi_rms_schedule_due(&s, 0), 0, XMPIR_RMS_ACT_SPAWN, 1, "x.y-z_9");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 0));
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 99));
    /* Three due at 100 come out one per call, in file order. */
    assert_event(xmpi_rms_schedule_due(&s, 100), 100, XMPIR_RMS_ACT_SHRINK, 2, "b");
    assert_event(xmpi_rms_schedule_due(&s, 100), 100, XMPIR_RMS_ACT_SPAWN, 3, "c");
    assert_event(xmpi_rms_schedule_due(&s, 150), 100, XMPIR_RMS_ACT_SHRINK, 1, "d");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 150));
    /* A late poll catches up, still one at a time. */
    assert_event(xmpi_rms_schedule_due(&s, 1000), 200, XMPIR_RMS_ACT_SPAWN, 1, "a");
    assert_event(xmpi_rms_schedule_due(&s, 1000), 300, XMPIR_RMS_ACT_SPAWN, 1000000, "e");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 1000));
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 100000));
    ck_assert_int_eq(s.next, 6);
    xmpi_rms_schedule_free(&s);
}
END_TEST

START_TEST(test_schedule_load)
{
    char d[512], p[600], want[800];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/events.txt", d);
    struct xmpi_rms_schedule s = {0, NULL, 0};
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot read the schedule file", p);
    assert_err_has(want);
    put(p, "10 spawn 2 fast\n5 remove 1 slow\n");
    ck_assert_msg(xmpi_rms_schedule_load(&s, p, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(s.n, 2);
    assert_event(&s.ev[0], 5, XMPIR_RMS_ACT_SHRINK, 1, "slow");
    assert_event(&s.ev[1], 10, XMPIR_RMS_ACT_SPAWN, 2, "fast");
    xmpi_rms_schedule_free(&s);
    put(p, "10 spawn 2 fast\n5 remove 1 slow\n7 remove x slow\n");
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: field count: 'x' is not accepted", p);
    assert_err_has(want);
}
END_TEST

Suite *rms_schedule_suite(void)
{
    Suite *s = suite_create("rms_schedule");
    TCase *tc = tcase_create("schedule");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    tcase_add_test(tc, test_schedule_parse);
    tcase_add_test(tc, test_schedule_stable_many);
    tcase_add_loop_test(tc, test_schedule_bad, 0, NBAD_SCHEDS);
    tcase_add_test(tc, test_schedule_due);
    tcase_add_test(tc, test_schedule_load);
    suite_add_tcase(s, tc);
    return s;
}
