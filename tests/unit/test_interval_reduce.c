/* io/interval.c, the per-interval reduction and its imbalance: every aggregate exactly as a
 * plain reference loop computes it, for 1 to MAXP ranks of random records (fixed seeds), with
 * the work source mixed or not and the extremes in every position. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interval_util.h"
#include "rng.h"
#include "suites.h"

#define MAXP 8

/* The plain reference the reduction must agree with exactly. */
struct ref {
    double iterations, t_real_max, t_real_min, t_real_sum, t_cpu_max, t_cpu_sum, work_sum;
    double comm_time_max, comm_bytes_sum, elapsed_max;
    int mixed;
    struct xmpi_opstat op[XMPIR_OP_COUNT];
};

static void reference(struct ref *f, const struct xmpi_rank_record *r, int n)
{
    memset(f, 0, sizeof *f);
    f->iterations = r[0].iterations;
    f->t_real_max = f->t_real_min = r[0].t_real;
    f->t_cpu_max = r[0].t_cpu;
    f->comm_time_max = r[0].comm_time;
    f->elapsed_max = r[0].elapsed;
    int papi = 0, declared = 0;
    for (int k = 0; k < n; k++) {
        f->iterations = fmax(f->iterations, r[k].iterations);
        f->t_real_max = fmax(f->t_real_max, r[k].t_real);
        f->t_real_min = fmin(f->t_real_min, r[k].t_real);
        f->t_cpu_max = fmax(f->t_cpu_max, r[k].t_cpu);
        f->comm_time_max = fmax(f->comm_time_max, r[k].comm_time);
        f->elapsed_max = fmax(f->elapsed_max, r[k].elapsed);
        f->t_real_sum += r[k].t_real;
        f->t_cpu_sum += r[k].t_cpu;
        f->work_sum += r[k].work;
        f->comm_bytes_sum += r[k].comm_bytes;
        if (r[k].work_papi != 0) papi = 1; else declared = 1;
        for (int i = 0; i < XMPIR_OP_COUNT; i++) {
            f->op[i].calls += r[k].op[i].calls;
            f->op[i].bytes += r[k].op[i].bytes;
            f->op[i].time += r[k].op[i].time;
            f->op[i].procs += r[k].op[i].procs;
        }
    }
    f->mixed = papi && declared;
}

static void check_reduce(const struct xmpi_rank_record *recs, int n)
{
    struct ref f;
    reference(&f, recs, n);

    struct xmpi_interval s;
    /* Leftovers from an earlier interval must not leak into the aggregates. */
    memset(&s, 0x55, sizeof s);
    s.index = 17;
    s.iteration = 123456789L;
    xmpi_interval_reduce(&s, recs, n);

    ck_assert_int_eq(s.nprocs, n);
    ck_assert_ptr_eq(s.ranks, recs);
    EQ(s.iterations, f.iterations, "iterations");
    EQ(s.t_real_max, f.t_real_max, "t_real_max");
    EQ(s.t_real_min, f.t_real_min, "t_real_min");
    EQ(s.t_real_sum, f.t_real_sum, "t_real_sum");
    EQ(s.t_cpu_max, f.t_cpu_max, "t_cpu_max");
    EQ(s.t_cpu_sum, f.t_cpu_sum, "t_cpu_sum");
    EQ(s.work_sum, f.work_sum, "work_sum");
    EQ(s.comm_time_max, f.comm_time_max, "comm_time_max");
    EQ(s.comm_bytes_sum, f.comm_bytes_sum, "comm_bytes_sum");
    EQ(s.elapsed, f.elapsed_max, "elapsed");
    ck_assert_msg(!!s.work_source_mixed == f.mixed, "work_source_mixed %d, want %d (n=%d)",
                  s.work_source_mixed, f.mixed, n);
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
        ck_assert_msg(s.op[i].calls == f.op[i].calls, "op %d calls (n=%d)", i, n);
        ck_assert_msg(s.op[i].bytes == f.op[i].bytes, "op %d bytes (n=%d)", i, n);
        ck_assert_msg(s.op[i].time == f.op[i].time, "op %d time (n=%d)", i, n);
        ck_assert_msg(s.op[i].procs == f.op[i].procs, "op %d procs (n=%d)", i, n);
    }
    /* The caller owns these two. */
    ck_assert_int_eq(s.index, 17);
    ck_assert_int_eq(s.iteration, 123456789L);
}

/* _i is nprocs - 1, one test case per process count. */
START_TEST(test_reduce_random)
{
    int n = _i + 1;
    uint64_t seed = 1000 + (uint64_t)n;
    struct xmpi_rank_record recs[MAXP];
    for (int t = 0; t < TRIALS; t++) {
        for (int k = 0; k < n; k++) rng_record(&seed, &recs[k]);
        check_reduce(recs, n);
    }
}
END_TEST

/* Random work_papi is mixed almost always for n > 2; force the uniform cases and
 * a single differing rank in each position. */
START_TEST(test_reduce_work_source)
{
    int n = _i + 1;
    uint64_t seed = 2000 + (uint64_t)n;
    struct xmpi_rank_record recs[MAXP];
    for (int k = 0; k < n; k++) rng_record(&seed, &recs[k]);
    for (int base = 0; base <= 1; base++) {
        for (int k = 0; k < n; k++) recs[k].work_papi = base;
        check_reduce(recs, n);
        for (int odd = 0; odd < n; odd++) {
            recs[odd].work_papi = !base;
            check_reduce(recs, n);
            recs[odd].work_papi = base;
        }
    }
}
END_TEST

/* The smallest or largest rank in each position, including rank 0 and the last. */
START_TEST(test_reduce_extreme_positions)
{
    int n = _i + 1;
    uint64_t seed = 3000 + (uint64_t)n;
    struct xmpi_rank_record recs[MAXP];
    for (int pos = 0; pos < n; pos++) {
        for (int k = 0; k < n; k++) {
            rng_record(&seed, &recs[k]);
            recs[k].t_real = 10 + rng_unit(&seed);
            recs[k].comm_time = 1 + rng_unit(&seed);
            recs[k].iterations = 50 + rng_count(&seed, 10);
            recs[k].elapsed = 100 + rng_unit(&seed);
        }
        recs[pos].t_real = pos % 2 ? 0.5 : 20.0;
        recs[pos].comm_time = 3.0;
        recs[pos].iterations = 100;
        recs[pos].elapsed = 200;
        check_reduce(recs, n);
    }
}
END_TEST

START_TEST(test_imbalance_random)
{
    uint64_t seed = 4000;
    for (int t = 0; t < TRIALS; t++) {
        int n = 1 + (int)(rng_next(&seed) % MAXP);
        struct xmpi_rank_record recs[MAXP];
        double mx = 0, mn = 0;
        for (int k = 0; k < n; k++) {
            rng_record(&seed, &recs[k]);
            if (k == 0 || recs[k].t_real > mx) mx = recs[k].t_real;
            if (k == 0 || recs[k].t_real < mn) mn = recs[k].t_real;
        }
        struct xmpi_interval s;
        memset(&s, 0, sizeof s);
        xmpi_interval_reduce(&s, recs, n);
        double want = mx > 0 ? (mx - mn) / mx : 0;
        double got = xmpi_interval_imbalance(&s);
        EQ(got, want, "imbalance");
        ck_assert(got >= 0 && got <= 1);
    }
}
END_TEST

START_TEST(test_imbalance_known)
{
    struct xmpi_interval s;
    memset(&s, 0, sizeof s);
    s.t_real_max = 4.0;
    s.t_real_min = 1.0;
    ck_assert(xmpi_interval_imbalance(&s) == 0.75);
    s.t_real_min = 4.0;
    ck_assert(xmpi_interval_imbalance(&s) == 0.0);
    /* An interval with no timed work must not divide by zero. */
    s.t_real_max = s.t_real_min = 0.0;
    double z = xmpi_interval_imbalance(&s);
    ck_assert_msg(z == 0.0, "max 0 gives %g", z);
}
END_TEST

START_TEST(test_imbalance_all_zero_ranks)
{
    struct xmpi_rank_record recs[4];
    for (int k = 0; k < 4; k++) xmpi_record_clear(&recs[k]);
    struct xmpi_interval s;
    memset(&s, 0, sizeof s);
    xmpi_interval_reduce(&s, recs, 4);
    ck_assert(s.t_real_max == 0.0 && s.t_real_min == 0.0);
    ck_assert(xmpi_interval_imbalance(&s) == 0.0);
}
END_TEST

Suite *interval_reduce_suite(void)
{
    Suite *s = suite_create("interval_reduce");
    TCase *tc = tcase_create("reduce");
    tcase_add_loop_test(tc, test_reduce_random, 0, MAXP);
    tcase_add_loop_test(tc, test_reduce_work_source, 0, MAXP);
    tcase_add_loop_test(tc, test_reduce_extreme_positions, 0, MAXP);
    tcase_add_test(tc, test_imbalance_random);
    tcase_add_test(tc, test_imbalance_known);
    tcase_add_test(tc, test_imbalance_all_zero_ranks);
    suite_add_tcase(s, tc);
    return s;
}
