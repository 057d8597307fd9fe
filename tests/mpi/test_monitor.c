/* MPI scenario: interval aggregation on real runs (declared work, profiled bytes,
 * identical summary on every rank, the per-rank records on rank 0) and the trace file checked
 * after MPI_Finalize.
 * Run as: test_monitor --xmpi-si=4 --xmpi-trace=FILE (the test reads both back). */
#include <stdlib.h>
#include <string.h>

#include "mpicheck.h"
#include "xmpi.h"
#include "../../libxmpi/monitor.h"
#include "../../libxmpi/context.h"
#include "../../io/trace.h"

enum { ITERS = 10, VEC = 3 };
static int rank, size;
static char trace_path[4096];
static int argc_seen;

static double work_of(int r, int it) { return 1000.0 * (r + 1) + it; }

/* One iteration as a solver would do it: declared work, one Allreduce of VEC doubles,
 * plus traffic outside the monitored region that must not be counted. */
static void iteration(int it)
{
    double in[VEC] = {rank, it, 1}, out[VEC];
    ck_assert_int_eq(XMPI_Monitor_iter_begin(NULL), XMPI_SUCCESS);
    ck_assert_int_eq(XMPI_Monitor_add_work(work_of(rank, it)), XMPI_SUCCESS);
    MPI_Allreduce(in, out, VEC, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
    ck_assert_int_eq(XMPI_Monitor_iter_end(NULL), XMPI_SUCCESS);
    /* The per-iteration record holds exactly this iteration. */
    const struct xmpi_rank_record *r = xmpi_monitor_last_iteration(xmpi_ctx);
    ck_assert(r->iterations == 1 && r->work == work_of(rank, it));
    ck_assert(r->op[XMPIR_OP_ALLREDUCE].calls == 1);
    ck_assert(r->comm_bytes == VEC * sizeof(double));
    ck_assert(r->t_real >= r->comm_time);
    MPI_Barrier(XMPI_COMM_WORLD);
}

START_TEST(options_were_taken_from_argv)
{
    ck_assert_int_eq(xmpi_ctx->opts.si, 4);
    ck_assert_str_eq(xmpi_ctx->opts.trace, trace_path);
    ck_assert_int_eq(argc_seen, 1);   /* both --xmpi- arguments were removed */
}
END_TEST

START_TEST(interval_summary)
{
    ck_assert_ptr_null(xmpi_monitor_summary(xmpi_ctx));
    for (int it = 0; it < 4; it++) iteration(it);
    const struct xmpi_interval *s = xmpi_monitor_summary(xmpi_ctx);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(s->index, 1);
    ck_assert_int_eq(s->iteration, 4);
    ck_assert_int_eq(s->nprocs, size);
    ck_assert(s->iterations == 4);

    /* The per-rank records are rank 0's alone (the others get the summary without them). */
    double work = 0;
    if (rank != 0) ck_assert_ptr_null(s->ranks);
    for (int r = 0; r < size; r++) {
        double wr = 0;
        for (int it = 0; it < 4; it++) wr += work_of(r, it);
        if (rank == 0)
            ck_assert_msg(s->ranks[r].work == wr && s->ranks[r].iterations == 4,
                          "rank %d work %g over %g iterations, expected %g over 4", r,
                          s->ranks[r].work, s->ranks[r].iterations, wr);
        work += wr;
    }
    ck_assert(s->work_sum == work);
    /* Only the Allreduce inside the iterations counts, not the Barrier after them. */
    ck_assert(s->op[XMPIR_OP_ALLREDUCE].calls == 4.0 * size);
    ck_assert(s->op[XMPIR_OP_BARRIER].calls == 0);
    ck_assert(s->comm_bytes_sum == 4.0 * size * VEC * sizeof(double));
    ck_assert(s->t_real_max >= s->t_real_min && s->t_real_min > 0);
    ck_assert(s->comm_time_max <= s->t_real_max);

    /* Every rank holds the same summary, bit for bit. */
    double mine[6] = {s->t_real_max, s->t_real_min, s->t_cpu_sum, s->work_sum,
                      s->comm_time_max, s->elapsed};
    double all[6 * 16];
    ck_assert(size <= 16);
    PMPI_Allgather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 1; r < size; r++)
        ck_assert_msg(!memcmp(all, all + 6 * r, sizeof mine), "rank %d's summary differs", r);
}
END_TEST

START_TEST(si_init_form)
{
    /* The high-level form: each call ends the previous iteration and begins the next. */
    long before = xmpi_monitor_iterations(xmpi_ctx);
    for (int it = 4; it < 8; it++) {
        ck_assert_int_eq(XMPI_Monitor_si_init(), XMPI_SUCCESS);
        XMPI_Monitor_add_work(work_of(rank, it));
        double in[VEC] = {rank, it, 1}, out[VEC];
        MPI_Allreduce(in, out, VEC, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
    }
    ck_assert_int_eq(xmpi_monitor_iterations(xmpi_ctx), before + 3);
    ck_assert_int_eq(XMPI_Monitor_iter_end(NULL), XMPI_SUCCESS);   /* closes the 4th */
    ck_assert_int_eq(xmpi_monitor_iterations(xmpi_ctx), before + 4);
    ck_assert_int_eq(xmpi_monitor_summary(xmpi_ctx)->index, 2);
    for (int it = 8; it < ITERS; it++) iteration(it);   /* a partial third interval */
}
END_TEST

static Suite *run_suite(void)
{
    Suite *s = suite_create("monitor");
    TCase *tc = tcase_create("mpi");
    tcase_add_test(tc, options_were_taken_from_argv);
    tcase_add_test(tc, interval_summary);
    tcase_add_test(tc, si_init_form);
    suite_add_tcase(s, tc);
    return s;
}

/* ---- after MPI_Finalize: the trace rank 0 wrote ---------------------------- */

static int nprocs_run;

static int split(char *line, char **f, int max, char sep)
{
    int n = 0;
    for (char *p = line; n < max; p++) {
        f[n++] = p;
        p = strchr(p, sep);
        if (!p) break;
        *p = '\0';
    }
    return n;
}

START_TEST(trace_file)
{
    FILE *f = fopen(trace_path, "r");
    ck_assert_msg(f != NULL, "no trace at %s", trace_path);
    char line[8192];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    line[strcspn(line, "\n")] = '\0';
    ck_assert_str_eq(line, xmpi_trace_header);
    const char *required[] = {"interval", "iteration", "nprocs", "t_real_max", "t_real_min",
                              "t_cpu_sum", "work_sum", "work_source", "comm_time_max",
                              "comm_bytes_sum", "action", "elapsed"};
    char hdr[8192];
    strcpy(hdr, line);
    char *h[32];
    int nh = split(hdr, h, 32, ',');
    for (int i = 0; i < 12; i++) ck_assert_str_eq(h[i], required[i]);

    /* Intervals end at iterations 4 and 8 (si = 4), and the partial one at 10. */
    const long ends[] = {4, 8, 10};
    double prev_elapsed = 0;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c[32];
        ck_assert_int_eq(split(line, c, 32, ','), nh);
        ck_assert_int_lt(rows, 3);
        long first = rows ? ends[rows - 1] : 0, last = ends[rows];
        double work = 0;
        for (int r = 0; r < nprocs_run; r++)
            for (long it = first; it < last; it++) work += work_of(r, (int)it);
        ck_assert_int_eq(atoi(c[0]), rows + 1);
        ck_assert_int_eq(atol(c[1]), last);
        ck_assert_int_eq(atoi(c[2]), nprocs_run);
        ck_assert(strtod(c[3], NULL) >= strtod(c[4], NULL));
        ck_assert_msg(strtod(c[6], NULL) == work, "row %d work_sum %s, expected %.17g", rows,
                      c[6], work);
        ck_assert(!strcmp(c[7], "declared") || !strncmp(c[7], "papi:", 5));
        ck_assert(strtod(c[9], NULL) == (double)(last - first) * nprocs_run * VEC * sizeof(double));
        ck_assert_str_eq(c[10], "none");
        ck_assert(strtod(c[11], NULL) >= prev_elapsed);
        prev_elapsed = strtod(c[11], NULL);
        char *per[64];
        ck_assert_int_eq(split(c[13], per, 64, ';'), nprocs_run);
        rows++;
    }
    fclose(f);
    ck_assert_int_eq(rows, 3);
}
END_TEST

int main(int argc, char **argv)
{
    /* Read our own options before MPI_Init removes them. */
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--xmpi-trace=", 13)) snprintf(trace_path, sizeof trace_path, "%s", argv[i] + 13);
    MPI_Init(&argc, &argv);
    argc_seen = argc;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    nprocs_run = size;
    int failed = mpicheck_run(run_suite());
    MPI_Finalize();
    if (rank != 0) return failed != 0;

    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("file");
    tcase_add_test(tc, trace_file);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed += srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed != 0;
}
