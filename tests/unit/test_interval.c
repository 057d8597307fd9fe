/* models/interval.c: record arithmetic and the per-interval reduction, checked
 * against reference loops over named fields of random records (fixed seeds). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "../../models/interval.h"
#include "rng.h"
#include "suites.h"

#define TRIALS 50
#define MAXP 8

/* Exact comparison: the reference adds in the same rank order, so any difference
 * means a field was missed, mixed up or accumulated twice. */
#define EQ(got, want, ...)                                                              \
    ck_assert_msg((got) == (want), "%s: got %.17g, want %.17g", __VA_ARGS__, (double)(got), \
                  (double)(want))

/* Every field by name, so a field the implementation skips is noticed even if the
 * record layout changes. */
static void check_record(const struct xmpi_rank_record *got, const struct xmpi_rank_record *want,
                         const char *what)
{
    EQ(got->iterations, want->iterations, "iterations");
    EQ(got->t_real, want->t_real, "t_real");
    EQ(got->t_cpu, want->t_cpu, "t_cpu");
    EQ(got->work, want->work, "work");
    EQ(got->work_papi, want->work_papi, "work_papi");
    EQ(got->comm_time, want->comm_time, "comm_time");
    EQ(got->comm_bytes, want->comm_bytes, "comm_bytes");
    EQ(got->elapsed, want->elapsed, "elapsed");
    for (int i = 0; i < XMPI_OP_COUNT; i++) {
        ck_assert_msg(got->op[i].calls == want->op[i].calls, "%s op %d calls", what, i);
        ck_assert_msg(got->op[i].bytes == want->op[i].bytes, "%s op %d bytes", what, i);
        ck_assert_msg(got->op[i].time == want->op[i].time, "%s op %d time", what, i);
        ck_assert_msg(got->op[i].procs == want->op[i].procs, "%s op %d procs", what, i);
    }
}

#define NAMED_SCALARS 8   /* the scalar fields check_record() compares by name */

/* A field added to the record would slip past every by-name reference below. */
START_TEST(test_record_fields_all_checked)
{
    ck_assert_msg(sizeof(struct xmpi_rank_record) ==
                      (NAMED_SCALARS + 4 * XMPI_OP_COUNT) * sizeof(double),
                  "struct xmpi_rank_record has fields this suite does not compare");
}
END_TEST

START_TEST(test_record_clear)
{
    uint64_t seed = 11;
    struct xmpi_rank_record r, zero;
    rng_record(&seed, &r);
    r.t_real += 1;   /* at least one field surely nonzero before clearing */
    memset(&zero, 0, sizeof zero);
    xmpi_record_clear(&r);
    check_record(&r, &zero, "cleared");
}
END_TEST

START_TEST(test_record_add)
{
    uint64_t seed = 12;
    for (int t = 0; t < TRIALS; t++) {
        struct xmpi_rank_record r, d, want;
        rng_record(&seed, &r);
        rng_record(&seed, &d);
        want.iterations = r.iterations + d.iterations;
        want.t_real = r.t_real + d.t_real;
        want.t_cpu = r.t_cpu + d.t_cpu;
        want.work = r.work + d.work;
        want.work_papi = r.work_papi + d.work_papi;
        want.comm_time = r.comm_time + d.comm_time;
        want.comm_bytes = r.comm_bytes + d.comm_bytes;
        want.elapsed = r.elapsed + d.elapsed;
        for (int i = 0; i < XMPI_OP_COUNT; i++) {
            want.op[i].calls = r.op[i].calls + d.op[i].calls;
            want.op[i].bytes = r.op[i].bytes + d.op[i].bytes;
            want.op[i].time = r.op[i].time + d.op[i].time;
            want.op[i].procs = r.op[i].procs + d.op[i].procs;
        }
        struct xmpi_rank_record dcopy = d;
        xmpi_record_add(&r, &d);
        check_record(&r, &want, "sum");
        ck_assert_msg(memcmp(&d, &dcopy, sizeof d) == 0, "the added record was modified");
    }
}
END_TEST

/* Accumulating into a cleared record is how monitor.c builds an interval. */
START_TEST(test_record_add_from_clear)
{
    uint64_t seed = 13;
    struct xmpi_rank_record acc, d[5], want;
    xmpi_record_clear(&acc);
    memset(&want, 0, sizeof want);
    for (int k = 0; k < 5; k++) {
        rng_record(&seed, &d[k]);
        xmpi_record_add(&acc, &d[k]);
        want.iterations += d[k].iterations;
        want.t_real += d[k].t_real;
        want.t_cpu += d[k].t_cpu;
        want.work += d[k].work;
        want.work_papi += d[k].work_papi;
        want.comm_time += d[k].comm_time;
        want.comm_bytes += d[k].comm_bytes;
        want.elapsed += d[k].elapsed;
        for (int i = 0; i < XMPI_OP_COUNT; i++) {
            want.op[i].calls += d[k].op[i].calls;
            want.op[i].bytes += d[k].op[i].bytes;
            want.op[i].time += d[k].op[i].time;
            want.op[i].procs += d[k].op[i].procs;
        }
    }
    check_record(&acc, &want, "accumulated");
}
END_TEST

START_TEST(test_opstat_diff)
{
    uint64_t seed = 14;
    for (int t = 0; t < TRIALS; t++) {
        struct xmpi_rank_record a, b;
        rng_record(&seed, &a);
        rng_record(&seed, &b);
        /* One slot past the end, to catch a write beyond XMPI_OP_COUNT entries. */
        struct xmpi_opstat out[XMPI_OP_COUNT + 1];
        out[XMPI_OP_COUNT].calls = out[XMPI_OP_COUNT].bytes = -7.5;
        out[XMPI_OP_COUNT].time = out[XMPI_OP_COUNT].procs = -7.5;
        xmpi_opstat_diff(out, a.op, b.op);
        for (int i = 0; i < XMPI_OP_COUNT; i++) {
            EQ(out[i].calls, a.op[i].calls - b.op[i].calls, "calls");
            EQ(out[i].bytes, a.op[i].bytes - b.op[i].bytes, "bytes");
            EQ(out[i].time, a.op[i].time - b.op[i].time, "time");
            EQ(out[i].procs, a.op[i].procs - b.op[i].procs, "procs");
        }
        ck_assert(out[XMPI_OP_COUNT].calls == -7.5 && out[XMPI_OP_COUNT].bytes == -7.5 &&
                  out[XMPI_OP_COUNT].time == -7.5 && out[XMPI_OP_COUNT].procs == -7.5);
    }
}
END_TEST

/* The plain reference the reduction must agree with exactly. */
struct ref {
    double iterations, t_real_max, t_real_min, t_real_sum, t_cpu_max, t_cpu_sum, work_sum;
    double comm_time_max, comm_bytes_sum, elapsed_max;
    int mixed;
    struct xmpi_opstat op[XMPI_OP_COUNT];
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
        for (int i = 0; i < XMPI_OP_COUNT; i++) {
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
    for (int i = 0; i < XMPI_OP_COUNT; i++) {
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

/* The op's name follows from its enum identifier: XMPI_OP_ALLREDUCE is
 * MPI_Allreduce. Spelling the identifiers here catches a reordered name table. */
#define OPN(x) {XMPI_OP_##x, #x}
static const struct { int op; const char *id; } op_ids[] = {
    OPN(SEND), OPN(RECV), OPN(ISEND), OPN(IRECV), OPN(SENDRECV), OPN(WAIT), OPN(WAITALL),
    OPN(BARRIER), OPN(BCAST), OPN(REDUCE), OPN(ALLREDUCE), OPN(GATHER), OPN(GATHERV),
    OPN(SCATTER), OPN(SCATTERV), OPN(ALLGATHER), OPN(ALLGATHERV), OPN(ALLTOALL),
    OPN(ALLTOALLV),
};

START_TEST(test_op_names)
{
    for (int op = 0; op < XMPI_OP_COUNT; op++) {
        const char *n = xmpi_op_name(op);
        ck_assert_msg(n != NULL, "op %d has no name", op);
        ck_assert_msg(strncmp(n, "MPI_", 4) == 0 && n[4] != '\0', "op %d: '%s'", op, n);
        for (int o = 0; o < op; o++)
            ck_assert_msg(strcmp(n, xmpi_op_name(o)) != 0, "ops %d and %d both '%s'", o, op,
                          n);
    }
}
END_TEST

START_TEST(test_op_names_match_enum)
{
    ck_assert_int_eq((int)(sizeof op_ids / sizeof op_ids[0]), XMPI_OP_COUNT);
    for (size_t i = 0; i < sizeof op_ids / sizeof op_ids[0]; i++) {
        const char *n = xmpi_op_name(op_ids[i].op);
        ck_assert_ptr_nonnull(n);
        ck_assert_msg(strcasecmp(n + 4, op_ids[i].id) == 0, "XMPI_OP_%s is named '%s'",
                      op_ids[i].id, n);
    }
}
END_TEST

START_TEST(test_op_name_out_of_range)
{
    ck_assert_ptr_null(xmpi_op_name(-1));
    ck_assert_ptr_null(xmpi_op_name(XMPI_OP_COUNT));
    ck_assert_ptr_null(xmpi_op_name(XMPI_OP_COUNT + 1));
    ck_assert_ptr_null(xmpi_op_name(-1000));
}
END_TEST

Suite *interval_suite(void)
{
    Suite *s = suite_create("interval");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, test_record_fields_all_checked);
    tcase_add_test(tc, test_record_clear);
    tcase_add_test(tc, test_record_add);
    tcase_add_test(tc, test_record_add_from_clear);
    tcase_add_test(tc, test_opstat_diff);
    suite_add_tcase(s, tc);

    tc = tcase_create("reduce");
    tcase_add_loop_test(tc, test_reduce_random, 0, MAXP);
    tcase_add_loop_test(tc, test_reduce_work_source, 0, MAXP);
    tcase_add_loop_test(tc, test_reduce_extreme_positions, 0, MAXP);
    suite_add_tcase(s, tc);

    tc = tcase_create("imbalance");
    tcase_add_test(tc, test_imbalance_random);
    tcase_add_test(tc, test_imbalance_known);
    tcase_add_test(tc, test_imbalance_all_zero_ranks);
    suite_add_tcase(s, tc);

    tc = tcase_create("op_names");
    tcase_add_test(tc, test_op_names);
    tcase_add_test(tc, test_op_names_match_enum);
    tcase_add_test(tc, test_op_name_out_of_range);
    suite_add_tcase(s, tc);
    return s;
}
