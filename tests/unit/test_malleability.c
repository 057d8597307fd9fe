/* SMP and HPMP decisions (policies/malleability.c) on synthetic jobs and offers: caps,
 * reclaims obeyed without touching the initial processes, HPMP's choice against a brute-force
 * search over an independent cost model, including "take nothing". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../policies/malleability.h"
#include "suites.h"

static struct xmpi_event offer(int n) { return (struct xmpi_event){XMPIR_EVENT_OFFER, n, 1}; }
static struct xmpi_event reclaim(int n) { return (struct xmpi_event){XMPIR_EVENT_RECLAIM, n, 1}; }

START_TEST(smp_takes_the_whole_offer)
{
    struct xmpi_job job = {4, 0, 0, 0};
    struct xmpi_event ev = offer(3);
    struct xmpi_plan p;
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    ck_assert_int_eq(p.count, 3);
    ck_assert_int_eq(p.cls, 1);
}
END_TEST

START_TEST(smp_caps_at_max_procs)
{
    struct xmpi_job job = {4, 6, 0, 0};
    struct xmpi_event ev = offer(5);
    struct xmpi_plan p;
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    ck_assert_int_eq(p.count, 2);
    ck_assert_ptr_nonnull(strstr(p.why, "max-procs"));
    job.nprocs = 6;
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    job.nprocs = 7;   /* above the cap (set lower than the job): still nothing to spawn */
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
}
END_TEST

START_TEST(reclaims_never_touch_the_initial_processes)
{
    struct xmpi_job job = {5, 0, 2, 0};
    struct xmpi_event ev = reclaim(1);
    struct xmpi_plan p;
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_REMOVE);
    ck_assert_int_eq(p.count, 1);
    ev = reclaim(4);
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.count, 2);
    ck_assert_ptr_nonnull(strstr(p.why, "initial"));
    job.removable = 0;
    ck_assert_int_eq(xmpi_policy_smp(&job, &ev, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    /* HPMP obeys reclaims the same way, with no prediction asked for. */
    job.removable = 3;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, NULL, NULL, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_REMOVE);
    ck_assert_int_eq(p.count, 3);
}
END_TEST

START_TEST(nothing_offered_keeps_and_bad_input_is_refused)
{
    struct xmpi_job job = {2, 0, 0, 0};
    struct xmpi_event none = {XMPIR_EVENT_NONE, 0, 0}, bad = offer(0);
    struct xmpi_plan p;
    ck_assert_int_eq(xmpi_policy_smp(&job, &none, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    ck_assert_int_eq(xmpi_policy_smp(&job, &bad, &p), -1);
    ck_assert_int_eq(xmpi_policy_smp(NULL, &none, &p), -1);
    job.nprocs = 0;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &none, NULL, NULL, NULL, 0, &p), -1);
    job.nprocs = 2;
    struct xmpi_event ev = offer(2);
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, NULL, NULL, NULL, 0, &p), -1);
}
END_TEST

/* An independent cost model: work W split over p + s processes, a per-process communication
 * cost c (more processes, more messages) and a one-off spawn cost o per new process. */
struct cost { double W, c, o; int p; int fail_from; };

static double model_time(const struct cost *k, int s)
{
    return k->W / (k->p + s) + k->c * (k->p + s) + k->o * s;
}

static int predict(void *arg, int s, double *t)
{
    const struct cost *k = arg;
    if (k->fail_from > 0 && s >= k->fail_from) return -1;
    *t = model_time(k, s);
    return 0;
}

START_TEST(hpmp_picks_the_predicted_best_including_zero)
{
    struct xmpi_job job = {2, 0, 0, 0};
    struct xmpi_event ev = offer(6);
    struct xmpi_plan p;
    double times[7];
    /* Work dominates: every extra process helps up to sqrt(W/c) = 10 processes. */
    struct cost k = {100, 1, 0.01, 2, 0};
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, times, 7, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    ck_assert_int_eq(p.count, 6);
    ck_assert_int_eq(p.candidates, 7);
    for (int s = 0; s <= 6; s++) ck_assert(times[s] == model_time(&k, s));
    /* Spawning costs more than it saves: take nothing. */
    k.o = 50;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, times, 7, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    /* An interior optimum: W/(2+s) + (2+s) + 0 * s is least at 2 + s = 5 (s = 3). */
    k = (struct cost){25, 1, 0, 2, 0};
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    ck_assert_int_eq(p.count, 3);
}
END_TEST

START_TEST(hpmp_ties_take_fewer_and_missing_predictions_are_skipped)
{
    struct xmpi_job job = {2, 0, 0, 0};
    struct xmpi_event ev = offer(4);
    struct xmpi_plan p;
    double times[5];
    /* W/(2+s) + (2+s) with W = 12 is 7 for s = 1 and for s = 2: the policy takes s = 1. */
    struct cost k = {12, 1, 0, 2, 0};
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, times, 5, &p), 0);
    ck_assert(times[1] == times[2]);
    ck_assert_int_eq(p.count, 1);
    /* Predictions from s = 2 on fail: only 0 and 1 compete. */
    k = (struct cost){100, 0, 0, 2, 2};
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, times, 5, &p), 0);
    ck_assert_int_eq(p.count, 1);
    ck_assert(times[2] == -1 && times[4] == -1);
}
END_TEST

/* A spawn must promise min_gain: just under it the policy keeps, just over it spawns, and the
 * best s is the same as without the margin when it is taken. */
START_TEST(hpmp_min_gain)
{
    struct xmpi_event ev = offer(6);
    struct xmpi_plan p;
    struct cost k = {100, 1, 0.01, 2, 0};
    struct xmpi_job job = {2, 0, 0, 0};
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    int best = p.count;
    double gain = 1 - model_time(&k, best) / model_time(&k, 0);
    ck_assert(gain > 0.01);
    job.min_gain = gain * 1.001;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    ck_assert_msg(strstr(p.why, "gain a spawn must promise") != NULL, "%s", p.why);
    job.min_gain = gain * 0.999;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_SPAWN);
    ck_assert_int_eq(p.count, best);
    /* Out of [0, 1) is bad input. */
    const double bad[] = {-0.1, 1.0, 2.0, NAN};
    for (int i = 0; i < 4; i++) {
        job.min_gain = bad[i];
        ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), -1);
    }
}
END_TEST

static int never(void *arg, int s, double *t)
{
    (void)arg;
    (void)s;
    (void)t;
    return -1;
}

START_TEST(hpmp_without_predictions_keeps)
{
    struct xmpi_job job = {3, 0, 0, 0};
    struct xmpi_event ev = offer(2);
    struct xmpi_plan p;
    ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, never, NULL, NULL, 0, &p), 0);
    ck_assert_int_eq(p.action, XMPIR_PLAN_KEEP);
    ck_assert_ptr_nonnull(strstr(p.why, "no prediction"));
}
END_TEST

START_TEST(hpmp_matches_brute_force_on_random_jobs)
{
    srand(12345);
    for (int trial = 0; trial < 2000; trial++) {
        struct cost k = {1 + rand() % 1000, (rand() % 100) / 10.0, (rand() % 100) / 10.0,
                         1 + rand() % 8, 0};
        struct xmpi_job job = {k.p, rand() % 3 ? 0 : k.p + rand() % 6, 0, 0};
        struct xmpi_event ev = offer(1 + rand() % 8);
        struct xmpi_plan p;
        ck_assert_int_eq(xmpi_policy_hpmp(&job, &ev, predict, &k, NULL, 0, &p), 0);
        int max = ev.count;
        if (job.max_procs && job.max_procs - job.nprocs < max)
            max = job.max_procs > job.nprocs ? job.max_procs - job.nprocs : 0;
        int best = 0;
        for (int s = 1; s <= max; s++)
            if (model_time(&k, s) < model_time(&k, best)) best = s;
        ck_assert_int_eq(p.action == XMPIR_PLAN_SPAWN ? p.count : 0, best);
        ck_assert_int_le(job.nprocs + (p.action == XMPIR_PLAN_SPAWN ? p.count : 0),
                         job.max_procs ? (job.max_procs > job.nprocs ? job.max_procs : job.nprocs)
                                       : 1 << 30);
    }
}
END_TEST

START_TEST(policy_names)
{
    ck_assert_str_eq(xmpi_policy_name(XMPIR_POLICY_STATIC), "static");
    ck_assert_str_eq(xmpi_policy_name(XMPIR_POLICY_SMP), "smp");
    ck_assert_str_eq(xmpi_policy_name(XMPIR_POLICY_HPMP), "hpmp");
    ck_assert_str_eq(xmpi_policy_name(XMPIR_POLICY_AMP), "amp");
    ck_assert_str_eq(xmpi_policy_name((enum xmpi_policy)9), "unknown");
}
END_TEST

Suite *malleability_suite(void)
{
    Suite *s = suite_create("malleability");
    TCase *tc = tcase_create("smp");
    tcase_add_test(tc, smp_takes_the_whole_offer);
    tcase_add_test(tc, smp_caps_at_max_procs);
    tcase_add_test(tc, reclaims_never_touch_the_initial_processes);
    tcase_add_test(tc, nothing_offered_keeps_and_bad_input_is_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("hpmp");
    tcase_add_test(tc, hpmp_picks_the_predicted_best_including_zero);
    tcase_add_test(tc, hpmp_ties_take_fewer_and_missing_predictions_are_skipped);
    tcase_add_test(tc, hpmp_without_predictions_keeps);
    tcase_add_test(tc, hpmp_min_gain);
    tcase_add_test(tc, hpmp_matches_brute_force_on_random_jobs);
    tcase_add_test(tc, policy_names);
    suite_add_tcase(s, tc);
    return s;
}
