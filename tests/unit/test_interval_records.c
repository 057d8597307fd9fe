/* io/interval.c, record arithmetic: clearing, adding and differencing per-rank records,
 * checked field by named field against reference sums of random records (fixed seeds). */
#include <stdint.h>
#include <string.h>

#include "interval_util.h"
#include "rng.h"
#include "suites.h"

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
    for (int i = 0; i < XMPIR_SPARE_SLOTS; i++)
        ck_assert_msg(got->spare[i] == want->spare[i], "%s spare %d", what, i);
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
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
                      (NAMED_SCALARS + 4 * XMPIR_OP_COUNT + XMPIR_SPARE_SLOTS) * sizeof(double),
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
        for (int i = 0; i < XMPIR_SPARE_SLOTS; i++) want.spare[i] = r.spare[i];   /* not summed */
        for (int i = 0; i < XMPIR_OP_COUNT; i++) {
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
        for (int i = 0; i < XMPIR_OP_COUNT; i++) {
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
        /* One slot past the end, to catch a write beyond XMPIR_OP_COUNT entries. */
        struct xmpi_opstat out[XMPIR_OP_COUNT + 1];
        out[XMPIR_OP_COUNT].calls = out[XMPIR_OP_COUNT].bytes = -7.5;
        out[XMPIR_OP_COUNT].time = out[XMPIR_OP_COUNT].procs = -7.5;
        xmpi_opstat_diff(out, a.op, b.op);
        for (int i = 0; i < XMPIR_OP_COUNT; i++) {
            EQ(out[i].calls, a.op[i].calls - b.op[i].calls, "calls");
            EQ(out[i].bytes, a.op[i].bytes - b.op[i].bytes, "bytes");
            EQ(out[i].time, a.op[i].time - b.op[i].time, "time");
            EQ(out[i].procs, a.op[i].procs - b.op[i].procs, "procs");
        }
        ck_assert(out[XMPIR_OP_COUNT].calls == -7.5 && out[XMPIR_OP_COUNT].bytes == -7.5 &&
                  out[XMPIR_OP_COUNT].time == -7.5 && out[XMPIR_OP_COUNT].procs == -7.5);
    }
}
END_TEST

Suite *interval_records_suite(void)
{
    Suite *s = suite_create("interval_records");
    TCase *tc = tcase_create("records");
    tcase_add_test(tc, test_record_fields_all_checked);
    tcase_add_test(tc, test_record_clear);
    tcase_add_test(tc, test_record_add);
    tcase_add_test(tc, test_record_add_from_clear);
    tcase_add_test(tc, test_opstat_diff);
    suite_add_tcase(s, tc);
    return s;
}
