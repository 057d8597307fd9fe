/* MPI scenario: PAPI's counting path run for real through software-defined events. The program
 * registers its own counters (sde:::xmpitest::WORK and ROWS) and the monitor counts them.
 * Modes (first argument; tests/sh/sde.sh runs each and checks the output and the trace):
 *   count    with --xmpi-events=sde:::xmpitest::WORK,sde:::xmpitest::ROWS,sde:::libxmpi::MPI_BYTES:
 *            the counts and the records equal the program's own count, the load balancer runs
 *            on that work, then ROWS is unregistered and the work source becomes declared
 *   unknown  with --xmpi-events=sde:::xmpitest::NOSUCH: declared work from the start
 *   lib      libxmpi's own events read through PAPI_start, against the program's own tally
 *   spawn    two monitored iterations on the events given, then XMPI_Spawn of one more process
 *            of this program: it must work from its parents' source, and load PAPI only when
 *            that source is PAPI's (run with --xmpi-si above 3 and --xmpi-oversubscribe)
 * Prints "ok - ..." / "not ok - ..." lines on rank 0; exits non-zero on any failure. */
#include <mpi.h>
#include <stdio.h>

#ifndef XMPI_HAVE_SDE
int main(void)
{
    printf("ok - PAPI software-defined events # SKIP libxmpi was built without PAPI's libsde\n");
    return 0;
}
#else
#include <math.h>
#include <papi.h>
#include <sde_lib.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmpi.h"
#include "../../libxmpi/context.h"
#include "../../libxmpi/monitor.h"

enum { N = 1200, SI = 5, ITERS = 60, AFTER = 10, VEC = 4, UNIT = 1000 };
static const double DECLARED = 3.0;   /* distinct from any counted work */

static int rank, size, failures;
static long long sde_work, sde_rows;  /* what PAPI reads through libsde */
static papi_handle_t sde;

/* A row's cost in work units: the upper half of the rows costs four times the lower one. */
static long long row_units(int row) { return row < N / 2 ? 1 : 4; }

/* The program's own count of a block's work, from the rows alone (not from the counters). */
static long long block_units(int count, int displ)
{
    int lo = displ, hi = displ + count, mid = N / 2;
    int low = lo < mid ? (hi < mid ? hi : mid) - lo : 0;
    return (long long)low * 1 + (long long)(count - low) * 4;
}

/* The computation: reads the rows, counts its work in the SDE counters as it goes. */
static double compute(const double *x, int count, int displ)
{
    double acc = 0;
    for (int i = 0; i < count; i++) {
        long long u = row_units(displ + i);
        for (long long k = 0; k < u * UNIT; k++) acc = acc * 0.999 + x[i] * 1e-9;
        sde_work += u;
        sde_rows += 1;
    }
    return acc;
}

/* One check over every rank: ok when it holds everywhere; rank 0 prints the TAP line. */
static void check(int ok, const char *fmt, ...)
{
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) failures++;
    if (rank) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("%s - %s\n", all ? "ok" : "not ok", msg);
}

static int data_ok(const double *x, int count, int displ)
{
    for (int j = 0; j < count; j++)
        if (x[j] != (double)(displ + j)) return 0;
    return 1;
}

/* Bytes a move from block (c0, d0) to (c1, d1) sends and receives (rows kept stay put). */
static void moved_bytes(int c0, int d0, int c1, int d1, double *sent, double *recv)
{
    int lo = d0 > d1 ? d0 : d1, hi = d0 + c0 < d1 + c1 ? d0 + c0 : d1 + c1;
    int keep = hi > lo ? hi - lo : 0;
    *sent += (double)(c0 - keep) * sizeof(double);
    *recv += (double)(c1 - keep) * sizeof(double);
}

/* Ratio of the largest to the smallest block work over the ranks. */
static double work_ratio(int count, int displ)
{
    long long w = block_units(count, displ), hi = 0, lo = 0;
    PMPI_Allreduce(&w, &hi, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    PMPI_Allreduce(&w, &lo, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    return lo > 0 ? (double)hi / (double)lo : 1e9;
}

struct run {
    double *x;
    int count, displ;
    int moves;                 /* moves: intervals after which any process's block changed */
    int first_gain;            /* rows the first move added to this process's block */
    double sent, recv;         /* bytes they moved, by the program's own account */
    long long bytes, calls;    /* profiled MPI traffic the program made */
    double interval_work[(ITERS + AFTER) / SI + 1];   /* expected trace work_sum, this rank */
};

/* One monitored iteration and the balancer. counts receives what the monitor counted.
 * Returns the work the program itself counted for the iteration. */
static long long iteration(struct run *r, int it, long long *counts, double declared)
{
    double in[VEC] = {rank, it, 1, 2}, out[VEC];
    long long mine = block_units(r->count, r->displ);
    XMPI_Monitor_iter_begin(NULL);
    volatile double sink = compute(r->x, r->count, r->displ);
    (void)sink;
    XMPI_Monitor_add_work(declared > 0 ? declared : (double)mine);
    MPI_Allreduce(in, out, VEC, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
    r->bytes += VEC * sizeof(double);
    r->calls += 1;
    XMPI_Monitor_iter_end(counts);
    int c0 = r->count, d0 = r->displ;
    XMPI_Eval_lbalance(rank, size, it, ITERS + AFTER, &r->count, &r->displ, NULL);
    /* A move may leave this process's block as it was (the boundary between two others
     * moved): a move is one if any block changed. PMPI: not a call the profile counts. */
    int changed = r->count != c0 || r->displ != d0, any = 0;
    PMPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    if (any) {
        if (!r->moves) r->first_gain = r->count - c0;
        r->moves++;
        moved_bytes(c0, d0, r->count, r->displ, &r->sent, &r->recv);
    }
    return mine;
}

static void start_run(struct run *r)
{
    memset(r, 0, sizeof *r);
    XMPI_Get_wsize(rank, size, N, &r->count, &r->displ);
    r->x = malloc(sizeof *r->x * (size_t)(r->count ? r->count : 1));
    for (int j = 0; j < r->count; j++) r->x[j] = r->displ + j;
    XMPI_Register_vector(&r->x, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
}

static void mode_count(void)
{
    const char *want = "papi:sde:::xmpitest::WORK+sde:::xmpitest::ROWS+sde:::libxmpi::MPI_BYTES";
    struct run r;
    start_run(&r);
    double before = work_ratio(r.count, r.displ);
    int bad_counts = 0, bad_record = 0, bad_data = 0, bad_source = 0;
    for (int it = 0; it < ITERS; it++) {
        long long counts[3] = {-2, -2, -2};
        int rows = r.count;
        long long mine = iteration(&r, it, counts, DECLARED);
        r.interval_work[it / SI] += (double)mine;
        const struct xmpi_rank_record *rec = xmpi_monitor_last_iteration(xmpi_ctx);
        if (counts[0] != mine || counts[1] != rows || counts[2] != VEC * (long long)sizeof(double)) {
            if (!bad_counts++)
                fprintf(stderr, "rank %d iteration %d: counts %lld %lld %lld, expected %lld %d %zu\n",
                        rank, it, counts[0], counts[1], counts[2], mine, rows, VEC * sizeof(double));
        }
        if (rec->work != (double)mine || rec->work_papi != 1 || rec->comm_bytes != (double)counts[2]) {
            if (!bad_record++)
                fprintf(stderr, "rank %d iteration %d: record work %g (papi %g), expected %lld\n",
                        rank, it, rec->work, rec->work_papi, mine);
        }
        bad_source += strcmp(XMPI_Monitor_work_source(), want) != 0;
        bad_data += !data_ok(r.x, r.count, r.displ);
    }
    check(!bad_source, "work source is %s", XMPI_Monitor_work_source());
    check(!bad_counts, "XMPI_Monitor_iter_end's counts of 3 SDE events equal the program's own "
          "work, rows and bytes in each of %d iterations", ITERS);
    check(!bad_record, "each iteration's record holds the PAPI-counted work, not the declared one");
    double after = work_ratio(r.count, r.displ);
    check(r.moves >= 1, "the balancer moved rows on PAPI-measured work (%d moves)", r.moves);
    /* Rank 0's rows cost a quarter of the last rank's: the measured work per row says so, and
     * rows go to rank 0 unless it ran four times slower than the others (where it ends depends
     * on the measured times as well, and is only printed). */
    check(rank != 0 || r.first_gain > 0, "the first move gave rank 0 rows (%+d; work per rank "
          "max/min %.2f at the start, %.2f at the end)", r.first_gain, before, after);
    check(!bad_data, "every registered row holds its value after the moves");
    /* The prediction model observed the same interval: its power of the job's one class is
     * the mean of each rank's PAPI-counted work over its compute time. */
    {
        double want = 0, got = 0;
        int n = 0, ok = 1;
        if (rank == 0) {   /* the model runs on rank 0 */
            const struct xmpi_interval *s = xmpi_monitor_summary(xmpi_ctx);
            got = xmpi_ctx->predict.m.cls[0].power;
            for (int i = 0; s && s->ranks && i < s->nprocs; i++) {
                double busy = s->ranks[i].t_real - s->ranks[i].comm_time;
                if (busy > 0 && s->ranks[i].work > 0) {
                    want += s->ranks[i].work / busy;
                    n++;
                }
            }
            want = n ? want / n : 0;
            ok = n == size && xmpi_ctx->predict.m.nclasses == 1 && fabs(got - want) <= 1e-9 * want;
        }
        check(ok, "the model's power is PAPI-counted work per compute second: %g = %g (%d ranks)",
              got, want, n);
    }

    /* PAPI stops counting: the program withdraws one of the counted events. */
    papi_sde_unregister_counter(sde, "ROWS");
    int bad_fallback = 0;
    for (int it = ITERS; it < ITERS + AFTER; it++) {
        long long counts[3] = {-2, -2, -2};
        iteration(&r, it, counts, DECLARED);
        r.interval_work[it / SI] += DECLARED;
        const struct xmpi_rank_record *rec = xmpi_monitor_last_iteration(xmpi_ctx);
        bad_fallback += counts[0] != -1 || counts[1] != -1 || counts[2] != -1 ||
                        rec->work != DECLARED || rec->work_papi != 0 ||
                        strcmp(XMPI_Monitor_work_source(), "declared") != 0;
    }
    check(!bad_fallback, "after an event fails to read: work source %s, counts -1, declared "
          "work in the records", XMPI_Monitor_work_source());
    XMPI_Unregister(&r.x);
    free(r.x);

    /* What the trace's work_sum must say per interval (tests/sh/sde.sh compares). */
    double total[(ITERS + AFTER) / SI + 1];
    PMPI_Reduce(r.interval_work, total, (ITERS + AFTER) / SI, MPI_DOUBLE, MPI_SUM, 0,
                MPI_COMM_WORLD);
    if (rank == 0)
        for (int i = 0; i < (ITERS + AFTER) / SI; i++)
            printf("expect interval %d work_sum %.17g\n", i + 1, total[i]);
}

static void mode_unknown(void)
{
    struct run r;
    start_run(&r);
    int bad = 0;
    for (int it = 0; it < 2 * SI; it++) {
        long long counts[1] = {-2};
        iteration(&r, it, counts, DECLARED);
        const struct xmpi_rank_record *rec = xmpi_monitor_last_iteration(xmpi_ctx);
        bad += counts[0] != -1 || rec->work != DECLARED || rec->work_papi != 0;
    }
    check(!strcmp(XMPI_Monitor_work_source(), "declared"), "an unregistered SDE event: work "
          "source %s", XMPI_Monitor_work_source());
    check(!bad, "... counts -1 and the declared work in every record");
    XMPI_Unregister(&r.x);
    free(r.x);
}

static const char *const lib_events[] = {
    "sde:::libxmpi::MPI_BYTES", "sde:::libxmpi::MPI_CALLS", "sde:::libxmpi::MPI_ALLREDUCE_CALLS",
    "sde:::libxmpi::ITERATIONS", "sde:::libxmpi::INTERVALS", "sde:::libxmpi::REBALANCES",
    "sde:::libxmpi::REDISTRIBUTIONS", "sde:::libxmpi::REDIST_BYTES_SENT",
    "sde:::libxmpi::REDIST_BYTES_RECV", "sde:::libxmpi::MPI_SECONDS",
};
enum { NLIB = sizeof lib_events / sizeof *lib_events };

static void mode_lib(void)
{
    int es = PAPI_NULL, rc = PAPI_OK;
    if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
    if ((rc = PAPI_create_eventset(&es)) == PAPI_OK)
        for (int i = 0; i < NLIB && rc == PAPI_OK; i++) rc = PAPI_add_named_event(es, lib_events[i]);
    if (rc == PAPI_OK) rc = PAPI_start(es);
    check(rc == PAPI_OK, "PAPI counts %d of libxmpi's events (%s)", NLIB, PAPI_strerror(rc));
    if (rc != PAPI_OK) return;

    struct run r;
    start_run(&r);
    for (int it = 0; it < ITERS; it++) iteration(&r, it, NULL, 0);
    long long v[NLIB];
    rc = PAPI_stop(es, v);
    check(rc == PAPI_OK, "PAPI_stop reads them");
    double seconds, lib_seconds = 0;
    memcpy(&seconds, &v[9], sizeof seconds);
    for (int i = 0; i < XMPIR_OP_COUNT; i++) lib_seconds += xmpi_ctx->profile[i].time;
    check(v[0] == r.bytes, "MPI_BYTES %lld = the bytes the program passed to MPI_Allreduce %lld",
          v[0], r.bytes);
    check(v[1] == r.calls && v[2] == r.calls, "MPI_CALLS %lld and MPI_ALLREDUCE_CALLS %lld = its "
          "calls %lld", v[1], v[2], r.calls);
    check(v[3] == ITERS && v[3] == xmpi_monitor_iterations(xmpi_ctx), "ITERATIONS %lld = %d", v[3],
          ITERS);
    check(v[4] == ITERS / SI && v[4] == xmpi_monitor_interval_index(xmpi_ctx),
          "INTERVALS %lld = %d", v[4], ITERS / SI);
    check(r.moves >= 1 && v[5] == r.moves && v[6] == r.moves,
          "REBALANCES %lld and REDISTRIBUTIONS %lld = the block changes the program saw (%d)",
          v[5], v[6], r.moves);
    check(v[7] == (long long)r.sent && v[8] == (long long)r.recv, "REDIST_BYTES_SENT %lld and "
          "_RECV %lld = the rows that left and entered the block, 8 bytes each (%.0f, %.0f)",
          v[7], v[8], r.sent, r.recv);
    check(seconds > 0 && seconds == lib_seconds, "MPI_SECONDS (a double) %g = the library's "
          "profile %g", seconds, lib_seconds);
    check(data_ok(r.x, r.count, r.displ), "every registered row holds its value after the moves");
    PAPI_cleanup_eventset(es);
    PAPI_destroy_eventset(&es);
    XMPI_Unregister(&r.x);
    free(r.x);
}

static void mode_spawn(const char *self)
{
    char source[XMPIR_EVENTS_MAX + 8] = "";
    int spawned = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED, rc = XMPI_SUCCESS;
    if (!spawned) {
        for (int it = 0; it < 2; it++) {
            XMPI_Monitor_iter_begin(NULL);
            XMPI_Monitor_add_work(DECLARED);
            XMPI_Monitor_iter_end(NULL);
        }
        char *args[] = {"spawn", NULL};
        rc = XMPI_Spawn(self, args, 1, MPI_INFO_NULL, NULL);
        snprintf(source, sizeof source, "%s", XMPI_Monitor_work_source());
    }
    if (!spawned) check(rc == XMPI_SUCCESS, "XMPI_Spawn of one process: %s", XMPI_Error_string(rc));
    if (rc != XMPI_SUCCESS) return;
    /* All three: rank 0's source to the new process, then one more iteration each. */
    MPI_Bcast(source, sizeof source, MPI_CHAR, 0, XMPI_COMM_WORLD);
    int me = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &me);
    XMPI_Monitor_iter_begin(NULL);
    XMPI_Monitor_add_work(DECLARED);
    XMPI_Monitor_iter_end(NULL);
    /* The new process's facts, to the parents (MPI_MAX over zeros from them). */
    int facts[3] = {0, 0, 0};
    if (spawned) {
        facts[0] = 1 + !strcmp(XMPI_Monitor_work_source(), source);
        facts[1] = 1 + (PAPI_is_initialized() != PAPI_NOT_INITED);
        facts[2] = 1 + !strncmp(source, "papi:", 5);
    }
    MPI_Allreduce(MPI_IN_PLACE, facts, 3, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    if (spawned) return;
    int papi = facts[2] == 2;
    check(facts[0] == 2, "the new process works from its parents' source (%s)", source);
    check(facts[1] == 1 + papi, "... and has %sloaded PAPI (%s)", papi ? "" : "not ",
          facts[1] == 2 ? "loaded" : "not loaded");
}

int main(int argc, char **argv)
{
    /* The program's counters exist before the first monitored iteration, as the monitor
     * chooses its events there. */
    sde = papi_sde_init("xmpitest");
    papi_sde_register_counter(sde, "WORK", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                              &sde_work);
    papi_sde_register_counter(sde, "ROWS", PAPI_SDE_RO | PAPI_SDE_DELTA, PAPI_SDE_long_long,
                              &sde_rows);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "count")) mode_count();
    else if (!strcmp(mode, "unknown")) mode_unknown();
    else if (!strcmp(mode, "lib")) mode_lib();
    else if (!strcmp(mode, "spawn")) mode_spawn(argv[0]);
    else check(0, "mode '%s': expected count, unknown, lib or spawn", mode);
    MPI_Finalize();
    return failures != 0;
}
#endif
