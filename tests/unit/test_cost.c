/* models/cost.c: the job's cost rate against a sum per host class written here another way
 * (PE-hours counted per distinct cost, then converted), a running account against one
 * computed from the whole history at once, the first interval (charged from MPI_Init), pools
 * that cost nothing, and bad input refused with -1 and the account left as it was. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../../models/cost.h"
#include "near.h"
#include "rng.h"
#include "suites.h"

#define MAXP 64
#define NCOSTS 4

/* Random processes on a few distinct host costs (as a pool of classes has). */
static int random_job(uint64_t *seed, double *cost, int *which, const double *costs)
{
    int n = 1 + (int)(rng_next(seed) % MAXP);
    for (int i = 0; i < n; i++) {
        which[i] = (int)(rng_next(seed) % NCOSTS);
        cost[i] = costs[which[i]];
    }
    return n;
}

/* The rate as count-per-cost times cost, per second: another order of the same sum. */
static double rate_by_count(const int *which, int n, const double *costs)
{
    int count[NCOSTS] = {0};
    for (int i = 0; i < n; i++) count[which[i]]++;
    double per_second = 0;
    for (int k = 0; k < NCOSTS; k++) per_second += count[k] * (costs[k] / 3600.0);
    return per_second;
}

START_TEST(test_rate_random)
{
    uint64_t seed = 1300;
    double cost[MAXP], costs[NCOSTS];
    int which[MAXP];
    for (int t = 0; t < 200; t++) {
        for (int k = 0; k < NCOSTS; k++) costs[k] = rng_unit(&seed) * 10;
        int n = random_job(&seed, cost, which, costs);
        NEAR(xmpi_cost_rate(cost, n), rate_by_count(which, n, costs));
    }
}
END_TEST

/* One PE at 3.6 units per PE-hour costs 0.001 per second; two cost twice that. */
START_TEST(test_rate_by_hand)
{
    double one[1] = {3.6}, two[2] = {3.6, 3.6}, mixed[3] = {1, 2, 0.5};
    NEAR(xmpi_cost_rate(one, 1), 0.001);
    NEAR(xmpi_cost_rate(two, 2), 0.002);
    NEAR(xmpi_cost_rate(mixed, 3), 3.5 / 3600);
}
END_TEST

START_TEST(test_rate_zero_cost)
{
    double zero[5] = {0, 0, 0, 0, 0};
    ck_assert(xmpi_cost_rate(zero, 5) == 0);
    struct xmpi_cost c;
    memset(&c, 0, sizeof c);
    ck_assert(xmpi_cost_step(&c, 0, 5, 12.5) == 0);
    ck_assert(xmpi_cost_step(&c, 0, 5, 20) == 0);
    ck_assert(c.total == 0);
    NEAR(c.pe_seconds, 5 * 20.0);
    ck_assert(xmpi_cost_at_initial(&c, 100) == 0);
}
END_TEST

START_TEST(test_rate_bad_input)
{
    double ok[2] = {1, 2}, neg[3] = {1, -0.5, 2}, nan3[2] = {1, NAN}, inf2[2] = {INFINITY, 1};
    ck_assert(xmpi_cost_rate(ok, 0) == -1);
    ck_assert(xmpi_cost_rate(ok, -3) == -1);
    ck_assert(xmpi_cost_rate(NULL, 2) == -1);
    ck_assert(xmpi_cost_rate(neg, 3) == -1);
    ck_assert(xmpi_cost_rate(nan3, 2) == -1);
    ck_assert(xmpi_cost_rate(inf2, 2) == -1);
}
END_TEST

/* Random runs: interval ends at increasing elapsed times, each at its own configuration's
 * rate; the account against the sum of rate * span computed from the list of ends. */
START_TEST(test_step_random)
{
    uint64_t seed = 1400;
    enum { NI = 30 };
    for (int t = 0; t < 50; t++) {
        double end[NI], rate[NI];
        int procs[NI];
        double at = 0;
        for (int i = 0; i < NI; i++) {
            at += rng_unit(&seed) * 5 + (i % 7 == 3 ? 0 : 1e-3);
            end[i] = at;
            rate[i] = rng_unit(&seed) * 0.01;
            procs[i] = 1 + (int)(rng_next(&seed) % 16);
        }
        struct xmpi_cost c;
        memset(&c, 0, sizeof c);
        for (int i = 0; i < NI; i++) {
            double before = c.total;
            double got = xmpi_cost_step(&c, rate[i], procs[i], end[i]);
            double start = i ? end[i - 1] : 0;
            NEAR(got, rate[i] * (end[i] - start));
            NEAR(c.total, before + got);
        }
        /* The whole history at once: the ends' differences weighted, summed backwards. */
        double want = 0, pes = 0;
        for (int i = NI - 1; i >= 0; i--) {
            double span = end[i] - (i ? end[i - 1] : 0);
            want += span * rate[i];
            pes += span * procs[i];
        }
        ck_assert_msg(fabs(c.total - want) <= 1e-12 * want, "total %.17g, want %.17g", c.total,
                      want);
        ck_assert_msg(fabs(c.pe_seconds - pes) <= 1e-12 * pes, "PE-seconds %.17g, want %.17g",
                      c.pe_seconds, pes);
        ck_assert(c.last_elapsed == end[NI - 1]);
        ck_assert_int_eq(c.steps, NI);
        ck_assert(c.first_rate == rate[0]);
        NEAR(xmpi_cost_at_initial(&c, 42), rate[0] * 42);
    }
}
END_TEST

/* The first interval is charged from MPI_Init: its whole elapsed time. */
START_TEST(test_step_first_interval)
{
    struct xmpi_cost c;
    memset(&c, 0, sizeof c);
    ck_assert(xmpi_cost_at_initial(&c, 10) == -1);
    NEAR(xmpi_cost_step(&c, 0.002, 2, 7.5), 0.002 * 7.5);
    NEAR(c.total, 0.015);
    NEAR(c.pe_seconds, 15);
    ck_assert(c.last_elapsed == 7.5);
    ck_assert(c.first_rate == 0.002);
    /* The next span at another rate leaves the initial one alone. */
    NEAR(xmpi_cost_step(&c, 0.003, 3, 10), 0.003 * 2.5);
    ck_assert(c.first_rate == 0.002);
    NEAR(xmpi_cost_at_initial(&c, 10), 0.02);
    /* A step to the same elapsed costs nothing and is still a step. */
    ck_assert(xmpi_cost_step(&c, 0.003, 3, 10) == 0);
    ck_assert_int_eq(c.steps, 3);
}
END_TEST

/* Bad input: -1, and the account as it was. */
START_TEST(test_step_bad_input)
{
    struct xmpi_cost c;
    memset(&c, 0, sizeof c);
    ck_assert(xmpi_cost_step(&c, 0.001, 1, 5) >= 0);
    struct xmpi_cost keep = c;
    ck_assert(xmpi_cost_step(&c, -0.001, 1, 6) == -1);
    ck_assert(xmpi_cost_step(&c, NAN, 1, 6) == -1);
    ck_assert(xmpi_cost_step(&c, INFINITY, 1, 6) == -1);
    ck_assert(xmpi_cost_step(&c, 0.001, 0, 6) == -1);
    ck_assert(xmpi_cost_step(&c, 0.001, -1, 6) == -1);
    ck_assert(xmpi_cost_step(&c, 0.001, 1, 4.9) == -1);
    ck_assert(xmpi_cost_step(&c, 0.001, 1, NAN) == -1);
    ck_assert(xmpi_cost_step(&c, 0.001, 1, INFINITY) == -1);
    ck_assert(xmpi_cost_step(NULL, 0.001, 1, 6) == -1);
    ck_assert(c.total == keep.total && c.last_elapsed == keep.last_elapsed &&
              c.pe_seconds == keep.pe_seconds && c.first_rate == keep.first_rate &&
              c.steps == keep.steps);
    ck_assert(xmpi_cost_at_initial(&c, -1) == -1);
    ck_assert(xmpi_cost_at_initial(&c, NAN) == -1);
    ck_assert(xmpi_cost_at_initial(NULL, 1) == -1);
}
END_TEST

Suite *cost_suite(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = tcase_create("cost");
    tcase_add_test(tc, test_rate_random);
    tcase_add_test(tc, test_rate_by_hand);
    tcase_add_test(tc, test_rate_zero_cost);
    tcase_add_test(tc, test_rate_bad_input);
    tcase_add_test(tc, test_step_random);
    tcase_add_test(tc, test_step_first_interval);
    tcase_add_test(tc, test_step_bad_input);
    suite_add_tcase(s, tc);
    return s;
}
