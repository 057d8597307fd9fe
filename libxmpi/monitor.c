/* XMPI_Monitor_* : per-rank iteration records, PAPI or declared work, and the
 * interval gather that makes one summary, identical on every rank. */
#include "monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hwcount.h"
#include "predictor.h"
#include "profile.h"
#include "runtime.h"
#include "../models/trace.h"
#include "world.h"
#include "xmpi.h"

static struct {
    int configured;                      /* events chosen (first iteration seen) */
    int in_iter;
    int nevents;                         /* requested events; counts[] has this many */
    char names_buf[XMPI_EVENTS_MAX];
    char *names[XMPI_MAX_EVENTS];
    int papi;                            /* 1 when the events are being counted */
    char source[XMPI_EVENTS_MAX + 8];
    double declared;                     /* work declared in the current iteration */
    double t_real0, t_cpu0;
    long long hw0[XMPI_MAX_EVENTS];
    struct xmpi_opstat snap[XMPI_OP_COUNT];
    struct xmpi_rank_record iter;        /* last complete iteration */
    struct xmpi_rank_record acc;         /* current interval so far */
    long iterations;
    struct xmpi_interval summary;
    int have_summary;
    struct xmpi_rank_record *ranks;      /* gather buffer, size nprocs */
    int ranks_cap;
    char action[96];                     /* for the next trace row; "" = none */
} mon;

void xmpi_monitor_set_action(const char *action)
{
    /* Several things can happen between two rows (a spawn, then the move of the data): the
     * row names each kind once, in order, joined by '+'. */
    size_t n = strlen(action), have = strlen(mon.action);
    for (const char *p = mon.action; *p;) {
        const char *e = strchr(p, '+');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, action, n)) return;
        p += len + (e ? 1 : 0);
    }
    if (have + (have ? 1 : 0) + n >= sizeof mon.action) return;
    snprintf(mon.action + have, sizeof mon.action - have, "%s%s", have ? "+" : "", action);
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void xmpi_monitor_init(void)
{
    struct xmpi_rank_record *keep = mon.ranks;
    int cap = mon.ranks_cap;
    memset(&mon, 0, sizeof mon);
    mon.ranks = keep;
    mon.ranks_cap = cap;
    strcpy(mon.source, "none");
}

const struct xmpi_interval *xmpi_monitor_summary(void)
{
    return mon.have_summary ? &mon.summary : NULL;
}

const struct xmpi_rank_record *xmpi_monitor_last_iteration(void)
{
    return &mon.iter;
}

long xmpi_monitor_iterations(void)
{
    return mon.iterations;
}

int xmpi_monitor_interval_index(void)
{
    return mon.summary.index;
}

int xmpi_monitor_in_iteration(void)
{
    return mon.in_iter;
}

void xmpi_monitor_join(long iterations, int interval_index)
{
    mon.iterations = iterations;
    mon.summary.index = interval_index;
    xmpi_record_clear(&mon.acc);
}

/* Monitoring belongs to the processes that are still members of XMPI_COMM_WORLD. */
static int member(void)
{
    int rc = xmpi_runtime_ready();
    if (rc) return rc;
    return xmpi_rt.status == XMPI_REMOVED ? XMPI_ERR_STATE : XMPI_SUCCESS;
}

const char *XMPI_Monitor_work_source(void)
{
    return mon.source;
}

static int same_events(char *events[])
{
    int n = 0;
    for (; events[n]; n++)
        if (n >= mon.nevents || strcmp(events[n], mon.names[n])) return 0;
    return n == mon.nevents;
}

/* Decides once which events are counted and says which work source is used. */
static int configure(char *events[])
{
    static const char *const chain[] = {"PAPI_DP_OPS", "PAPI_FP_OPS"};
    char why[512] = "";
    size_t used = 0;

    if (events && events[0]) {
        for (int n = 0; events[n]; n++) {
            size_t len = strlen(events[n]);
            if (n >= XMPI_MAX_EVENTS || used + len + 1 > sizeof mon.names_buf) return XMPI_ERR_ARG;
            mon.names[n] = memcpy(mon.names_buf + used, events[n], len + 1);
            used += len + 1;
            mon.nevents = n + 1;
        }
    } else {
        mon.nevents = xmpi_options_events(&xmpi_rt.opts, mon.names_buf, sizeof mon.names_buf,
                                          mon.names, XMPI_MAX_EVENTS);
    }

    if (mon.nevents > 0) {
        mon.papi = xmpi_hwcount_start(mon.names, mon.nevents, why, sizeof why) == 0;
    } else {
        /* Default chain: count the first preset this machine has. */
        char first[256] = "";
        mon.nevents = 1;
        for (int i = 0; i < 2 && !mon.papi; i++) {
            mon.names[0] = (char *)chain[i];
            mon.papi = xmpi_hwcount_start(mon.names, 1, why, sizeof why) == 0;
            if (i == 0) snprintf(first, sizeof first, "%s", why);
        }
        if (!mon.papi) {
            char second[256];
            snprintf(second, sizeof second, "%s", why);
            snprintf(why, sizeof why, "%s; %s", first, second);
        }
    }

    if (mon.papi) {
        used = (size_t)snprintf(mon.source, sizeof mon.source, "papi:%s", mon.names[0]);
        for (int i = 1; i < mon.nevents && used < sizeof mon.source; i++)
            used += (size_t)snprintf(mon.source + used, sizeof mon.source - used, "+%s",
                                     mon.names[i]);
        xmpi_note(0, "work source: %s", mon.source);
    } else {
        strcpy(mon.source, "declared");
        xmpi_note(0, "work source: declared by the program with XMPI_Monitor_add_work (%s)", why);
    }
    mon.configured = 1;
    return XMPI_SUCCESS;
}

int XMPI_Monitor_iter_begin(char *events[])
{
    int rc = member();
    if (rc) return rc;
    if (mon.in_iter) return XMPI_ERR_STATE;
    if (!mon.configured) {
        if ((rc = configure(events))) {
            mon.nevents = 0;
            return rc;
        }
    } else if (events && events[0] && !same_events(events)) {
        return XMPI_ERR_ARG;
    }
    mon.declared = 0;
    if (mon.papi && xmpi_hwcount_read(mon.hw0)) {
        mon.papi = 0;
        strcpy(mon.source, "declared");
        xmpi_note(0, "PAPI stopped counting; work source: declared");
    }
    memcpy(mon.snap, xmpi_profile_total, sizeof mon.snap);
    mon.in_iter = 1;
    if (xmpi_rt.status == XMPI_NEWLY_SPAWNED) xmpi_rt.status = XMPI_RUNNING;
    /* The wall-clock window encloses the CPU-clock reads: a process held back by a CPU quota
     * is stopped at a system call such as this CPU-clock read, and that wait must count in
     * the iteration's wall time (else a throttled rank looks as fast as the others). */
    mon.t_real0 = PMPI_Wtime();
    mon.t_cpu0 = cpu_now();
    return XMPI_SUCCESS;
}

static void close_interval(void)
{
    if (mon.ranks_cap < xmpi_rt.size) {
        struct xmpi_rank_record *r = realloc(mon.ranks, sizeof *r * (size_t)xmpi_rt.size);
        if (!r) {
            /* Skipping a gather on one rank would hang the others: abort loudly instead. */
            fprintf(stderr, "xmpi: rank %d: out of memory for the interval summary\n",
                    xmpi_rt.rank);
            PMPI_Abort(MPI_COMM_WORLD, 3);
        }
        mon.ranks = r;
        mon.ranks_cap = xmpi_rt.size;
    }
    mon.acc.elapsed = PMPI_Wtime() - xmpi_rt.t0;
    PMPI_Allgather(&mon.acc, (int)XMPI_RECORD_DOUBLES, MPI_DOUBLE, mon.ranks,
                   (int)XMPI_RECORD_DOUBLES, MPI_DOUBLE, xmpi_rt.comm);
    struct xmpi_interval *s = &mon.summary;
    xmpi_interval_reduce(s, mon.ranks, xmpi_rt.size);
    s->index++;
    s->iteration = mon.iterations;
    mon.have_summary = 1;
    xmpi_record_clear(&mon.acc);
    char action[sizeof mon.action];
    snprintf(action, sizeof action, "%s", mon.action[0] ? mon.action : "none");
    mon.action[0] = '\0';

    if (xmpi_rt.rank != 0) return;
    int *cls = malloc(sizeof *cls * (size_t)s->nprocs);
    xmpi_predictor_observe(s, cls && xmpi_world_rank_classes(cls, s->nprocs) == 0 ? cls : NULL);
    free(cls);
    struct xmpi_trace_model tm;
    xmpi_predictor_row(s, &tm);
    const char *source = s->work_source_mixed ? "mixed" : mon.source;
    if (xmpi_rt.trace && xmpi_trace_row(xmpi_rt.trace, s, source, action, &tm)) {
        xmpi_note(0, "cannot write the trace file %s any more; tracing stops", xmpi_rt.opts.trace);
        fclose(xmpi_rt.trace);
        xmpi_rt.trace = NULL;
    }
    double t = s->t_real_max > 0 ? s->t_real_max : 1;
    xmpi_note(1, "interval %d (iteration %ld): %d procs, t_real %.4g-%.4g s, imbalance %.1f%%, "
              "comm %.1f%%, work %.4g (%s), elapsed %.2f s",
              s->index, s->iteration, s->nprocs, s->t_real_min, s->t_real_max,
              100 * xmpi_interval_imbalance(s), 100 * s->comm_time_max / t, s->work_sum, source,
              s->elapsed);
}

int XMPI_Monitor_iter_end(long long *counts)
{
    double t_cpu = cpu_now();
    double t_real = PMPI_Wtime();
    int rc = member();
    if (rc) return rc;
    if (!mon.in_iter) return XMPI_ERR_STATE;
    mon.in_iter = 0;

    struct xmpi_rank_record *it = &mon.iter;
    long long hw[XMPI_MAX_EVENTS];
    int counted = mon.papi && xmpi_hwcount_read(hw) == 0;
    xmpi_record_clear(it);
    it->iterations = 1;
    it->t_real = t_real - mon.t_real0;
    it->t_cpu = t_cpu - mon.t_cpu0;
    /* Under an emulated speed s the kernel throttles the process for the rest of each quota
     * period; a real processor s times as fast would have been busy all that time. Its CPU
     * time is what that processor would show, so that the balancer does not take the
     * emulation itself for interference (other programs still lower it). */
    double speed = xmpi_world_emulated_speed();
    if (speed > 0) {
        it->t_cpu /= speed;
        if (it->t_cpu > it->t_real) it->t_cpu = it->t_real;
    }
    it->work_papi = counted;
    it->work = counted ? (double)(hw[0] - mon.hw0[0]) : mon.declared;
    xmpi_opstat_diff(it->op, xmpi_profile_total, mon.snap);
    for (int i = 0; i < XMPI_OP_COUNT; i++) {
        it->comm_time += it->op[i].time;
        it->comm_bytes += it->op[i].bytes;
    }
    for (int i = 0; counts && i < mon.nevents; i++)
        counts[i] = counted ? hw[i] - mon.hw0[i] : -1;
    if (mon.papi && !counted) {
        mon.papi = 0;
        strcpy(mon.source, "declared");
        xmpi_note(0, "PAPI stopped counting; work source: declared");
    }

    xmpi_record_add(&mon.acc, it);
    mon.iterations++;
    if (mon.iterations % xmpi_rt.opts.si == 0) close_interval();
    return XMPI_SUCCESS;
}

int XMPI_Monitor_si_init(void)
{
    int rc = member();
    if (rc) return rc;
    if (mon.in_iter && (rc = XMPI_Monitor_iter_end(NULL))) return rc;
    return XMPI_Monitor_iter_begin(NULL);
}

int XMPI_Monitor_add_work(double flop)
{
    int rc = member();
    if (rc) return rc;
    if (!(flop >= 0) || flop > 1e300) return XMPI_ERR_ARG;
    mon.declared += flop;
    return XMPI_SUCCESS;
}

void xmpi_monitor_finish(void)
{
    /* A removed process has left XMPI_COMM_WORLD: it takes part in no more gathers. */
    if (xmpi_rt.status != XMPI_REMOVED) {
        if (mon.in_iter) XMPI_Monitor_iter_end(NULL);
        /* Every rank takes part, whether or not it has iterations left over. */
        int left = mon.acc.iterations > 0, any = 0;
        PMPI_Allreduce(&left, &any, 1, MPI_INT, MPI_MAX, xmpi_rt.comm);
        if (any) close_interval();
    }
    xmpi_hwcount_stop();
    free(mon.ranks);
    mon.ranks = NULL;
    mon.ranks_cap = 0;
}
