/* Per-rank iteration records (XMPI_Monitor_iter_begin, add_work, work_source), PAPI or
 * declared work, and the interval gather that makes one summary, identical on every rank. */
#include "monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "sde.h"
#include "xmpi.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void xmpi_monitor_init(struct xmpi_ctx *cx)
{
    struct xmpi_monitor *mon = &cx->mon;
    memset(mon, 0, sizeof *mon);
    strcpy(mon->source, "none");
    xmpi_hwcount_init(&cx->hw);
    xmpi_sde_register(cx);
}

void xmpi_monitor_free(struct xmpi_ctx *cx)
{
    xmpi_hwcount_stop(&cx->hw);
    free(cx->mon.ranks);
    cx->mon.ranks = NULL;
    cx->mon.ranks_cap = 0;
}

const struct xmpi_interval *xmpi_monitor_summary(const struct xmpi_ctx *cx)
{
    return cx->mon.have_summary ? &cx->mon.summary : NULL;
}

const struct xmpi_rank_record *xmpi_monitor_last_iteration(const struct xmpi_ctx *cx)
{
    return &cx->mon.iter;
}

long xmpi_monitor_iterations(const struct xmpi_ctx *cx)
{
    return cx->mon.iterations;
}

int xmpi_monitor_interval_index(const struct xmpi_ctx *cx)
{
    return cx->mon.summary.index;
}

void xmpi_monitor_join(struct xmpi_ctx *cx, long iterations, int interval_index)
{
    cx->mon.iterations = iterations;
    cx->mon.summary.index = interval_index;
    xmpi_record_clear(&cx->mon.acc);
}

int xmpi_monitor_source_code(const struct xmpi_ctx *cx)
{
    return cx->mon.configured ? cx->mon.papi : -1;
}

void xmpi_monitor_follow_source(struct xmpi_ctx *cx, int code)
{
    if (code == 1) xmpi_hwcount_load();
    else if (code == 0) cx->mon.joined_declared = 1;
}

const char *XMPI_Monitor_work_source(void)
{
    return xmpi_ctx->mon.source;
}

static int same_events(const struct xmpi_monitor *mon, char *events[])
{
    int n = 0;
    for (; events[n]; n++)
        if (n >= mon->nevents || strcmp(events[n], mon->names[n])) return 0;
    return n == mon->nevents;
}

/* Chooses the events to count (`events`, else --xmpi-events, else the first of the default
 * chain this machine counts) and starts counting them; mon->why says why none are counted. */
static int choose(struct xmpi_ctx *cx, char *events[])
{
    static const char *const chain[] = {"PAPI_DP_OPS", "PAPI_FP_OPS"};
    struct xmpi_monitor *mon = &cx->mon;
    char *why = mon->why;
    size_t used = 0;
    why[0] = '\0';
    mon->papi = 0;

    if (events && events[0]) {
        for (int n = 0; events[n]; n++) {
            size_t len = strlen(events[n]);
            if (n >= XMPIR_MAX_EVENTS || used + len + 1 > sizeof mon->names_buf) return XMPI_ERR_ARG;
            mon->names[n] = memcpy(mon->names_buf + used, events[n], len + 1);
            used += len + 1;
            mon->nevents = n + 1;
        }
    } else {
        mon->nevents = xmpi_options_events(&cx->opts, mon->names_buf, sizeof mon->names_buf,
                                          mon->names, XMPIR_MAX_EVENTS);
    }

    if (mon->joined_declared) {
        /* One work source per job: the balancer compares the ranks' work. */
        snprintf(why, sizeof mon->why, "as the processes it joined, which count no PAPI events");
    } else if (mon->nevents > 0) {
        mon->papi = xmpi_hwcount_start(&cx->hw, mon->names, mon->nevents, why, sizeof mon->why) == 0;
    } else {
        /* Default chain: count the first preset this machine has. */
        char first[256] = "";
        mon->nevents = 1;
        for (int i = 0; i < 2 && !mon->papi; i++) {
            mon->names[0] = (char *)chain[i];
            mon->papi = xmpi_hwcount_start(&cx->hw, mon->names, 1, why, sizeof mon->why) == 0;
            if (i == 0) snprintf(first, sizeof first, "%.255s", why);
        }
        if (!mon->papi) {
            char second[256];
            snprintf(second, sizeof second, "%.255s", why);
            snprintf(why, sizeof mon->why, "%s; %s", first, second);
        }
    }
    return XMPI_SUCCESS;
}

/* Says once which work source is used; the choice is final from here on. */
static void announce(struct xmpi_ctx *cx)
{
    struct xmpi_monitor *mon = &cx->mon;
    if (mon->papi) {
        size_t used;
        used = (size_t)snprintf(mon->source, sizeof mon->source, "papi:%s", mon->names[0]);
        for (int i = 1; i < mon->nevents && used < sizeof mon->source; i++)
            used += (size_t)snprintf(mon->source + used, sizeof mon->source - used, "+%s",
                                     mon->names[i]);
        xmpi_note(cx, 0, "work source: %s", mon->source);
    } else {
        strcpy(mon->source, "declared");
        xmpi_note(cx, 0, "work source: declared by the program with XMPI_Monitor_add_work (%s)",
                  mon->why);
    }
    mon->configured = 1;
}

/* At the first monitored iteration: the events chosen at MPI_Init serve unless the program
 * names others. */
static int configure(struct xmpi_ctx *cx, char *events[])
{
    struct xmpi_monitor *mon = &cx->mon;
    int named = events && events[0];
    if (!mon->prechosen || (named && !same_events(mon, events))) {
        if (mon->prechosen) xmpi_hwcount_stop(&cx->hw);
        mon->prechosen = 0;
        int rc = choose(cx, events);
        if (rc) return rc;
    }
    announce(cx);
    return XMPI_SUCCESS;
}

void xmpi_monitor_prechoose(struct xmpi_ctx *cx)
{
    /* Only the default chain: an event the options name may be a software-defined one that a
     * library registers after MPI_Init. */
    if (cx->opts.events[0]) return;
    cx->mon.prechosen = choose(cx, NULL) == XMPI_SUCCESS;
}

/* A read failed mid-run (the event set is gone): declared work from here on. */
static void papi_stopped(struct xmpi_ctx *cx)
{
    cx->mon.papi = 0;
    strcpy(cx->mon.source, "declared");
    xmpi_note(cx, 0, "PAPI stopped counting (%s); work source: declared", cx->hw.why);
}

/* Opens an iteration; `from`, when not NULL, holds the readings (wall, CPU, counters) the
 * iteration just ended took, to start from instead of reading the clocks again. */
static int begin(struct xmpi_ctx *cx, char *events[], const struct xmpi_monitor *from)
{
    struct xmpi_monitor *mon = &cx->mon;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (mon->in_iter) return XMPI_ERR_STATE;
    if (!mon->configured) {
        if ((rc = configure(cx, events))) {
            mon->nevents = 0;
            return rc;
        }
    } else if (events && events[0] && !same_events(mon, events)) {
        return XMPI_ERR_ARG;
    }
    mon->declared = 0;
    if (from) memcpy(mon->hw0, from->end_hw, sizeof mon->hw0);
    else if (mon->papi && xmpi_hwcount_read(&cx->hw, mon->hw0)) papi_stopped(cx);
    memcpy(mon->snap, cx->profile, sizeof mon->snap);
    mon->in_iter = 1;
    mon->si_opened = 0;
    mon->si_ended = 0;
    if (cx->status == XMPI_NEWLY_SPAWNED) cx->status = XMPI_RUNNING;
    mon->lib_real = mon->lib_cpu = 0;
    if (from) {
        mon->t_real0 = from->end_real;
        mon->t_cpu0 = from->end_cpu;
    } else {
        /* The wall-clock window encloses the CPU-clock reads: a process held back by a CPU
         * quota is stopped at a system call such as this CPU-clock read, and that wait must
         * count in the iteration's wall time (else a throttled rank looks as fast as the
         * others). */
        mon->t_real0 = PMPI_Wtime();
        mon->t_cpu0 = cpu_now();
    }
    xmpi_otf2_enter_at(cx, XMPIR_OTF2_COMPUTE, mon->t_real0);
    return XMPI_SUCCESS;
}

int XMPI_Monitor_iter_begin(char *events[])
{
    return begin(xmpi_ctx, events, NULL);
}

/* XMPI_Monitor_si_init's second half when nothing ran since the iteration ended: the next one
 * starts where it ended. Reading the process CPU clock is a system call (about 0.55 us where
 * the clock has no vDSO path, twice per iteration otherwise: overhead-micro's monitor figure). */
int xmpi_monitor_begin_next(struct xmpi_ctx *cx, int after_end)
{
    int rc = begin(cx, NULL, after_end && cx->mon.end_valid ? &cx->mon : NULL);
    if (!rc) cx->mon.si_opened = 1;
    return rc;
}

void xmpi_monitor_lib_begin(double *mark)
{
    mark[0] = PMPI_Wtime();
    mark[1] = cpu_now();
}

void xmpi_monitor_lib_end(struct xmpi_ctx *cx, const double *mark)
{
    if (!cx->mon.in_iter) return;
    cx->mon.lib_real += PMPI_Wtime() - mark[0];
    cx->mon.lib_cpu += cpu_now() - mark[1];
}

/* Every rank's record to rank 0, which sums them up; the summary (without the records) from
 * rank 0 to all. Only rank 0 keeps the records (s->ranks, NULL elsewhere): it decides, prices
 * and writes the trace. An Allgather gave every process all P records (736 bytes each) to
 * receive and sum up at every interval end: O(P) per process, P^2 over the job and P x
 * processes-per-node on a node's link (docs/scale.md, make bench-scale). */
void xmpi_monitor_gather(struct xmpi_ctx *cx)
{
    struct xmpi_monitor *mon = &cx->mon;
    int root = cx->rank == 0;
    if (root && mon->ranks_cap < cx->size) {
        struct xmpi_rank_record *r = realloc(mon->ranks, sizeof *r * (size_t)cx->size);
        if (!r) xmpi_die_nomem(cx, "the interval summary");
        mon->ranks = r;
        mon->ranks_cap = cx->size;
    }
    PMPI_Gather(&mon->closed, (int)XMPIR_RECORD_DOUBLES, MPI_DOUBLE, root ? mon->ranks : NULL,
                (int)XMPIR_RECORD_DOUBLES, MPI_DOUBLE, 0, cx->comm);
    struct xmpi_interval *s = &mon->summary;
    int index = s->index;
    if (root) xmpi_interval_reduce(s, mon->ranks, cx->size);
    PMPI_Bcast(s, (int)sizeof *s, MPI_BYTE, 0, cx->comm);
    s->ranks = root ? mon->ranks : NULL;
    s->index = index + 1;
    s->iteration = mon->closed_iteration;
    mon->have_summary = 1;
    mon->due = 0;
}

/* The interval ends here for this rank: its record waits for the gather. */
static void close_interval(struct xmpi_ctx *cx)
{
    struct xmpi_monitor *mon = &cx->mon;
    mon->acc.elapsed = PMPI_Wtime() - cx->t0;
    xmpi_registry_spares(cx, mon->acc.spare);
    mon->closed = mon->acc;
    mon->closed_iteration = mon->iterations;
    mon->due = 1;
    xmpi_record_clear(&mon->acc);
}

int xmpi_monitor_end_iteration(struct xmpi_ctx *cx, long long *counts, int *closed)
{
    /* The computation since the last MPI call belongs to this iteration (dilation). */
    double t_real = PMPI_Wtime();
    if (cx->emu.dilate && cx->phase == XMPIR_PHASE_RUNNING && cx->mon.in_iter) {
        t_real = xmpi_emulate_settle(&cx->emu, t_real);
        xmpi_emulate_resume(&cx->emu, t_real);
    }
    double t_cpu = cpu_now();
    struct xmpi_monitor *mon = &cx->mon;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!mon->in_iter) return XMPI_ERR_STATE;
    *closed = 0;
    mon->in_iter = 0;
    mon->end_valid = 0;
    xmpi_otf2_leave_at(cx, XMPIR_OTF2_COMPUTE, t_real);

    struct xmpi_rank_record *it = &mon->iter;
    long long hw[XMPIR_MAX_EVENTS];
    int counted = mon->papi && xmpi_hwcount_read(&cx->hw, hw) == 0;
    xmpi_record_clear(it);
    it->iterations = 1;
    it->t_real = t_real - mon->t_real0 - mon->lib_real;
    it->t_cpu = t_cpu - mon->t_cpu0 - mon->lib_cpu;
    if (it->t_real < 0) it->t_real = 0;
    if (it->t_cpu < 0) it->t_cpu = 0;
    /* Under an emulated speed s the process is throttled (quota) or sleeps (dilation) for
     * (1 - s) of its computing; a real processor s times as fast would have been busy all
     * that time. Its CPU time is what that processor would show, so that the balancer does
     * not take the emulation itself for interference (other programs still lower it). */
    double speed = xmpi_emulate_speed(&cx->emu);
    if (speed > 0) {
        it->t_cpu /= speed;
        if (it->t_cpu > it->t_real) it->t_cpu = it->t_real;
    }
    it->work_papi = counted;
    it->work = counted ? (double)(hw[0] - mon->hw0[0]) : mon->declared;
    xmpi_opstat_diff(it->op, cx->profile, mon->snap);
    for (int i = 0; i < XMPIR_OP_COUNT; i++) {
        it->comm_time += it->op[i].time;
        it->comm_bytes += it->op[i].bytes;
    }
    for (int i = 0; counts && i < mon->nevents; i++)
        counts[i] = counted ? hw[i] - mon->hw0[i] : -1;
    if (mon->papi && !counted) papi_stopped(cx);
    /* The readings the next iteration may start from (xmpi_monitor_begin_next). Under dilation
     * the end settled the emulated sleep, and the next iteration reads its clocks anew. */
    mon->end_real = t_real;
    mon->end_cpu = t_cpu;
    if (counted) memcpy(mon->end_hw, hw, sizeof mon->end_hw);
    mon->end_valid = !cx->emu.dilate && (counted || !mon->papi);

    xmpi_record_add(&mon->acc, it);
    mon->iterations++;
    if (mon->iterations % cx->opts.si) return XMPI_SUCCESS;
    close_interval(cx);
    *closed = 1;
    return XMPI_SUCCESS;
}

int XMPI_Monitor_add_work(double flop)
{
    struct xmpi_monitor *mon = &xmpi_ctx->mon;
    int rc = xmpi_member(xmpi_ctx);
    if (rc) return rc;
    if (!(flop >= 0) || flop > 1e300) return XMPI_ERR_ARG;
    mon->declared += flop;
    return XMPI_SUCCESS;
}

int xmpi_monitor_close_last(struct xmpi_ctx *cx)
{
    struct xmpi_monitor *mon = &cx->mon;
    /* A removed process has left XMPI_COMM_WORLD: it takes part in no more gathers. */
    if (cx->status == XMPI_REMOVED) return 0;
    /* Every rank takes part, whether or not it has iterations left over. */
    int left = mon->acc.iterations > 0, any = 0;
    PMPI_Allreduce(&left, &any, 1, MPI_INT, MPI_MAX, cx->comm);
    if (!any) return 0;
    close_interval(cx);
    return 1;
}
