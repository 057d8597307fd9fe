/* io/rms_schedule.c: the xmpi-rms schedule file (iterations never go down, file
 * order kept), every rejection path, events handed out one per poll, the availability of
 * offer/reclaim lines against hand-computed counts, and loading from a file. */
#include <stdio.h>
#include <string.h>

#include "../../io/rms_schedule.h"
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
    "0 spawn 1 x.y-z_9\n"
    "\n"
    "100\tremove 2 b   # a trailing comment\n"
    "  100 spawn 3 c\r\n"
    "100 remove 1 d\n"
    "200 spawn 1 a\n"
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
    /* Many equal iterations keep their file order. */
    char text[8192];
    size_t used = 0;
    for (int i = 0; i < 200; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%d spawn %d c%d\n",
                                 i / 70, i + 1, i);
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
    {"1 Spawn 1 a\n", "t.sched:1: field action: 'Spawn' is not accepted; expected spawn, "
                      "remove, offer or reclaim"},
    {"1 Offer 1 a\n", "t.sched:1: field action: 'Offer'"},
    {"1 offer 0 a\n", "t.sched:1: field count: '0' is not accepted; expected a whole number "
                      "from 1"},
    {"1 reclaim -1 a\n", "t.sched:1: field count: '-1'"},
    /* Iterations never go down: the file is a timeline, not a set to sort. */
    {"10 spawn 1 a\n# c\n5 remove 1 a\n", "t.sched:3: field iteration: '5' is not accepted; "
                                            "expected a whole number from 10 (the previous "
                                            "line's)"},
    {"3 offer 1 a\n3 reclaim 1 a\n2 offer 1 a\n", "t.sched:3: field iteration: '2'"},
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
                    "spawn|remove|offer|reclaim COUNT CLASS"},
    {"1\n", "t.sched:1: field action: missing"},
    {"1 spawn 1 a b\n", "t.sched:1: more than 4 fields are not accepted; expected 4 fields"},
};
#define NBAD_SCHEDS ((int)(sizeof bad_scheds / sizeof bad_scheds[0]))

START_TEST(test_schedule_bad)
{
    const struct bad_sched *b = &bad_scheds[_i];
    struct xmpi_rms_event sentinel;
    struct xmpi_rms_avail av_sentinel;
    struct xmpi_rms_schedule s = {3, &sentinel, 2, 1, &av_sentinel};
    ck_assert_msg(parse_sched(&s, b->text) == -1, "accepted: %s", b->text);
    assert_err_has(b->want);
    assert_err_has("expected");
    ck_assert_int_eq(s.n, 3);
    ck_assert_ptr_eq(s.ev, &sentinel);
    ck_assert_int_eq(s.next, 2);
    ck_assert_int_eq(s.nav, 1);
    ck_assert_ptr_eq(s.av, &av_sentinel);
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

static void assert_poll(struct xmpi_rms_schedule *s, long it, int act, int count,
                        const char *cls)
{
    int n = -1;
    char c[XMPIR_NAME_MAX] = "junk";
    int got = xmpi_rms_schedule_poll(s, it, &n, c, sizeof c);
    ck_assert_msg(got == act && n == count && !strcmp(c, cls),
                  "poll at %ld: %d %d '%s', want %d %d '%s'", it, got, n, c, act, count, cls);
}

static const struct xmpi_rms_avail *avail(struct xmpi_rms_schedule *s, const char *cls)
{
    for (int i = 0; i < s->nav; i++)
        if (!strcmp(s->av[i].cls, cls)) return &s->av[i];
    ck_abort_msg("no availability for %s", cls);
    return NULL;
}

static void assert_avail(struct xmpi_rms_schedule *s, const char *cls, int free, int held,
                         int reclaim)
{
    const struct xmpi_rms_avail *a = avail(s, cls);
    ck_assert_msg(a->free == free && a->held == held && a->reclaim == reclaim,
                  "%s: free %d held %d reclaim %d, want %d %d %d", cls, a->free, a->held,
                  a->reclaim, free, held, reclaim);
}

START_TEST(test_schedule_avail)
{
    enum { NONE = XMPIR_RMS_ACT_NONE, SPAWN = XMPIR_RMS_ACT_SPAWN, SHRINK = XMPIR_RMS_ACT_SHRINK };
    struct xmpi_rms_schedule s;
    ck_assert_msg(parse_sched(&s, "10 offer 2 a\n"
                                  "10 offer 1 a\n"
                                  "20 spawn 1 b\n"
                                  "20 offer 1 c\n"
                                  "30 reclaim 2 a\n"
                                  "40 reclaim 5 a\n"
                                  "50 remove 1 a\n"
                                  "50 reclaim 1 c\n") == 0,
                  "%s", err);
    ck_assert_int_eq(s.n, 8);
    assert_event(&s.ev[0], 10, XMPIR_RMS_SCHED_OFFER, 2, "a");
    assert_event(&s.ev[4], 30, XMPIR_RMS_SCHED_RECLAIM, 2, "a");
    ck_assert_int_eq(s.nav, 2);               /* a and c: b has no availability lines */
    ck_assert_str_eq(s.av[0].cls, "a");
    ck_assert_str_eq(s.av[1].cls, "c");
    assert_poll(NULL, 10, NONE, 0, "");
    assert_poll(&s, 9, NONE, 0, "");
    /* Offers accumulate, and the free PEs are offered at every poll until taken. */
    assert_poll(&s, 10, SPAWN, 3, "a");
    assert_poll(&s, 15, SPAWN, 3, "a");
    assert_avail(&s, "a", 3, 0, 0);
    /* The job declined, then takes 1: 2 stay free. A spawn of a class without lines is
     * ignored. */
    xmpi_rms_schedule_took(&s, "a", 1);
    xmpi_rms_schedule_took(&s, "b", 4);
    assert_avail(&s, "a", 2, 1, 0);
    /* A due spawn line is handed out once; the offer of c after it, at the next poll. */
    assert_poll(&s, 25, SPAWN, 1, "b");
    assert_avail(&s, "c", 0, 0, 0);
    assert_poll(&s, 25, SPAWN, 2, "a");
    assert_avail(&s, "c", 1, 0, 0);
    /* Taking more than is free (oversubscription) leaves none free, never below zero. */
    xmpi_rms_schedule_took(&s, "a", 3);
    assert_avail(&s, "a", 0, 4, 0);
    assert_poll(&s, 25, SPAWN, 1, "c");
    /* Reclaim 2 of a: nothing free, so the job is asked for 2. */
    assert_poll(&s, 30, SHRINK, 2, "a");
    assert_avail(&s, "a", 0, 4, 2);
    /* Reclaim 5 more: only the 2 other spawned ones can be asked back. */
    assert_poll(&s, 40, SHRINK, 4, "a");
    assert_avail(&s, "a", 0, 4, 4);
    /* The job gives 3: the pending reclaim falls by 3; given PEs are not free again. */
    xmpi_rms_schedule_gave(&s, "a", 3);
    assert_avail(&s, "a", 0, 1, 1);
    /* The remove line is handed out once; the reclaim of c takes its free PE back. */
    assert_poll(&s, 50, SHRINK, 1, "a");
    assert_poll(&s, 50, SHRINK, 1, "a");    /* the pending reclaim of a */
    assert_avail(&s, "c", 0, 0, 0);
    xmpi_rms_schedule_gave(&s, "a", 5);
    assert_avail(&s, "a", 0, 0, 0);
    assert_poll(&s, 1000, NONE, 0, "");
    xmpi_rms_schedule_gave(&s, "zz", 1);
    xmpi_rms_schedule_took(&s, "a", 0);
    assert_avail(&s, "a", 0, 0, 0);
    xmpi_rms_schedule_free(&s);
    ck_assert_int_eq(s.nav, 0);
    ck_assert_ptr_null(s.av);

    /* A reclaim takes free PEs first, then asks for the rest: of 4, the 1 free one, then 2
     * of the 2 taken (the 4th was never the job's). */
    ck_assert_int_eq(parse_sched(&s, "0 offer 3 a\n5 reclaim 4 a\n"), 0);
    assert_poll(&s, 0, SPAWN, 3, "a");
    xmpi_rms_schedule_took(&s, "a", 2);
    assert_avail(&s, "a", 1, 2, 0);
    assert_poll(&s, 4, SPAWN, 1, "a");
    assert_poll(&s, 5, SHRINK, 2, "a");
    assert_avail(&s, "a", 0, 2, 2);
    xmpi_rms_schedule_free(&s);
}
END_TEST

START_TEST(test_schedule_load)
{
    char d[512], p[600], want[800];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/events.txt", d);
    struct xmpi_rms_schedule s = {0, NULL, 0, 0, NULL};
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot read the schedule file", p);
    assert_err_has(want);
    put(p, "5 remove 1 slow\n10 spawn 2 fast\n");
    ck_assert_msg(xmpi_rms_schedule_load(&s, p, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(s.n, 2);
    assert_event(&s.ev[0], 5, XMPIR_RMS_ACT_SHRINK, 1, "slow");
    assert_event(&s.ev[1], 10, XMPIR_RMS_ACT_SPAWN, 2, "fast");
    xmpi_rms_schedule_free(&s);
    put(p, "5 remove 1 slow\n10 spawn 2 fast\n17 remove x slow\n");
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: field count: 'x' is not accepted", p);
    assert_err_has(want);
}
END_TEST

/* The pool of the checks: fast 2 + 2 PEs with 2 initial processes, slow 3 PEs with none. */
static struct xmpi_host check_hosts[] = {
    {"a", "fast", 2, 1, 0, 2}, {"b", "fast", 2, 1, 0, 0}, {"a", "slow", 3, 1, 0, 0}};
static const struct xmpi_pool check_pool = {3, check_hosts};

static const struct {
    const char *text;
    int oversubscribe, from_lines;
    const char *want;   /* NULL: accepted */
} checks[] = {
    {"5 spawn 2 fast\n9 remove 2 fast\n20 offer 3 slow\n30 reclaim 3 slow\n", 0, 1, NULL},
    {"5 spawn 2 fast\n7 spawn 1 gpu\n", 0, 0,
     "t.sched:2: field class: 'gpu' is not accepted; expected a class of the job's pool: fast, "
     "slow"},
    {"# a comment\n\n5 spawn 3 fast\n", 0, 0,
     "t.sched:3: field count: '3' is not accepted; expected at most 2: class fast has 4 PEs "
     "and the initial processes use 2 of them, so the job can never take more "
     "(--xmpi-oversubscribe allows more)"},
    {"5 spawn 3 fast\n", 1, 0, NULL},
    {"5 offer 4 slow\n", 0, 0, "t.sched:1: field count: '4' is not accepted; expected at most 3"},
    {"5 spawn 2 fast\n6 remove 3 fast\n", 0, 0,
     "t.sched:2: field count: '3' is not accepted; expected at most 2: the job can never hold "
     "more than 2 processes of class fast beside its 2 initial ones (4 PEs), and the initial "
     "processes never leave"},
    {"5 reclaim 4 slow\n", 0, 0, "t.sched:1: field count: '4' is not accepted; expected at most 3"},
    /* From the lines (SMP, HPMP): nothing spawned, nothing to remove. */
    {"5 remove 1 fast\n", 0, 1,
     "t.sched:1: field count: '1' is not accepted; expected at most 0: the spawn and offer "
     "lines before it add up to 0 processes of class fast, and the initial processes never "
     "leave"},
    {"5 remove 1 fast\n", 0, 0, NULL},
    {"5 spawn 1 slow\n6 offer 1 slow\n7 remove 2 slow\n8 reclaim 3 slow\n", 0, 1,
     "t.sched:4: field count: '3' is not accepted; expected at most 2: the spawn and offer "
     "lines before it add up to 2 processes of class slow"},
    {"5 spawn 1 slow\n7 remove 1 fast\n", 1, 1, "t.sched:2: field count: '1'"},
    /* Resizing by checkpoint and restart (2): the initial processes may leave too, up to the
     * class's PEs; what the job may take is bounded as before. */
    {"5 remove 1 fast\n", 0, 2, NULL},
    {"5 spawn 2 fast\n6 remove 4 fast\n", 0, 2, NULL},
    {"5 remove 5 fast\n", 0, 2,
     "t.sched:1: field count: '5' is not accepted; expected at most 4: class fast has 4 PEs"},
    {"5 remove 5 fast\n", 1, 2, NULL},
    {"5 spawn 3 fast\n", 0, 2, "t.sched:1: field count: '3' is not accepted; expected at most 2"},
    {"5 reclaim 3 slow\n", 0, 2, NULL},
};
#define NCHECKS ((int)(sizeof checks / sizeof checks[0]))

START_TEST(test_schedule_check)
{
    struct xmpi_rms_schedule s;
    ck_assert_msg(parse_sched(&s, checks[_i].text) == 0, "parse: %s", err);
    err[0] = '\0';
    int rc = xmpi_rms_schedule_check(&s, "t.sched", &check_pool, checks[_i].oversubscribe,
                                     checks[_i].from_lines, err, sizeof err);
    if (!checks[_i].want) {
        ck_assert_msg(rc == 0, "refused: %s", err);
    } else {
        ck_assert_int_eq(rc, -1);
        assert_err_has(checks[_i].want);
    }
    xmpi_rms_schedule_free(&s);
}
END_TEST

/* A restart at iteration 10: the lines due by then are not handed out again, and the
 * availability they made is there, as a run that polled them one by one has it. */
START_TEST(test_schedule_replay)
{
    static const char *text = "5 offer 2 slow\n8 spawn 1 fast\n10 reclaim 1 slow\n"
                              "20 spawn 1 fast\n";
    struct xmpi_rms_schedule a, b;
    char cls[64];
    int n;
    ck_assert_msg(parse_sched(&a, text) == 0 && parse_sched(&b, text) == 0, "parse: %s", err);
    /* a: the job that ran through iteration 10 (it spawned the line's process) */
    ck_assert_int_eq(xmpi_rms_schedule_poll(&a, 10, &n, cls, sizeof cls), XMPIR_RMS_ACT_SPAWN);
    ck_assert(n == 1 && !strcmp(cls, "fast"));
    xmpi_rms_schedule_took(&a, "fast", 1);
    /* b: its restart from the checkpoint at iteration 10 */
    xmpi_rms_schedule_replay(&b, 10);
    ck_assert_int_eq(b.next, 3);
    /* Both go on alike (a applies the reclaim line at its next poll, b did at the replay):
     * the slow PE still offered, then the line of iteration 20. */
    for (long it = 15; it <= 20; it += 5) {
        char ca[64], cb[64];
        int na, nb;
        int ra = xmpi_rms_schedule_poll(&a, it, &na, ca, sizeof ca);
        int rb = xmpi_rms_schedule_poll(&b, it, &nb, cb, sizeof cb);
        ck_assert_msg(ra == rb && na == nb && !strcmp(ca, cb), "iteration %ld: %d %d %s, want "
                      "%d %d %s", it, rb, nb, cb, ra, na, ca);
        for (int i = 0; i < a.nav; i++)
            ck_assert_msg(a.av[i].free == b.av[i].free && a.av[i].held == b.av[i].held &&
                              a.av[i].reclaim == b.av[i].reclaim,
                          "iteration %ld, class %s: %d %d %d, want %d %d %d", it, b.av[i].cls,
                          b.av[i].free, b.av[i].held, b.av[i].reclaim, a.av[i].free,
                          a.av[i].held, a.av[i].reclaim);
    }
    ck_assert_int_eq(xmpi_rms_schedule_poll(&b, 15, &n, cls, sizeof cls), XMPIR_RMS_ACT_SPAWN);
    ck_assert(n == 1 && !strcmp(cls, "slow"));
    ck_assert_int_eq(b.next, 4);
    xmpi_rms_schedule_free(&a);
    xmpi_rms_schedule_free(&b);
}
END_TEST

/* What the job never carried out: the lines due and not handed out, in file order, with
 * their line numbers; nothing once they were handed out, nothing of what is not due yet. */
START_TEST(test_schedule_unserved)
{
    struct xmpi_rms_schedule s;
    char out[512];
    ck_assert_int_eq(parse_sched(&s, "10 spawn 1 a\n15 remove 1 a\n40 spawn 2 b\n"), 0);
    ck_assert_int_eq(xmpi_rms_schedule_unserved(&s, 5, out, sizeof out), 0);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(xmpi_rms_schedule_unserved(&s, 20, out, sizeof out), 2);
    ck_assert_str_eq(out, "the spawn of 1 a due at iteration 10 (line 1), "
                          "the removal of 1 a due at iteration 15 (line 2)");
    assert_event(xmpi_rms_schedule_due(&s, 20), 10, XMPIR_RMS_ACT_SPAWN, 1, "a");
    ck_assert_int_eq(xmpi_rms_schedule_unserved(&s, 20, out, sizeof out), 1);
    ck_assert_str_eq(out, "the removal of 1 a due at iteration 15 (line 2)");
    ck_assert_int_eq(xmpi_rms_schedule_unserved(NULL, 20, out, sizeof out), 0);
    xmpi_rms_schedule_free(&s);
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
    tcase_add_test(tc, test_schedule_unserved);
    tcase_add_test(tc, test_schedule_avail);
    tcase_add_test(tc, test_schedule_load);
    tcase_add_loop_test(tc, test_schedule_check, 0, NCHECKS);
    tcase_add_test(tc, test_schedule_replay);
    suite_add_tcase(s, tc);
    return s;
}
