/* One sampling interval, read top to bottom as the library runs it at an interval end:
 *
 *   measure -> model -> decide -> act -> checkpoint -> record
 *
 * xmpi_pipeline_interval_end at the bottom is that sequence, one call per phase. Decide
 * returns a complete step (keep, rebalance, spawn, asynchronous spawn, join, remove,
 * relaunch), with what is already known to be refused resolved; act is one switch over it;
 * record runs once. The executors (registry.c, world.c, reconfig.c, resize.c) report what they
 * did to the journal. The program's own calls that reach here are in calls.c. */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../io/trace.h"
#include "../models/partition.h"
#include "../policies/resize.h"
#include "context.h"
#include "errors.h"
#include "malleability.h"
#include "reconfig.h"
#include "xmpi.h"

/* What the interval end carries out, decided whole before anything changes. */
enum step {
    STEP_KEEP,          /* nothing moves */
    STEP_REBALANCE,     /* rows to the balancer's new blocks */
    STEP_SPAWN,         /* a blocking spawn, rows spread by measured power */
    STEP_SPAWN_ASYNC,   /* rank 0's helper thread starts the processes; the job computes on */
    STEP_JOIN,          /* the processes an asynchronous spawn started join */
    STEP_REMOVE,        /* processes leave after handing their rows over */
    STEP_RELAUNCH       /* checkpoint, end, and be relaunched at the new size (resize.c) */
};

/* Where an asynchronous spawn stands, as rank 0 saw it (broadcast as three doubles). */
struct async_check {
    double state;     /* -1: none under way; 0: still running; 1: finished */
    double seconds;   /* since it started */
    double cpu;       /* its helper thread's CPU time */
};
_Static_assert(sizeof(struct async_check) == 3 * sizeof(double), "broadcast as 3 doubles");

/* One interval end, from phase to phase. */
struct interval_end {
    const struct xmpi_app *app;       /* the program's evaluation call; NULL: monitoring only */
    const struct xmpi_interval *s;    /* measure: the summary, identical on every rank */
    struct async_check async;
    enum step step;                   /* decide */
    struct xmpi_reconfig_plan plan;   /* the policy's plan (the trace's decision columns) */
    int decided;                      /* a policy or an asynchronous spawn decided */
    double t_decide;                  /* seconds the decision took */
    int *blocks;                      /* STEP_REBALANCE: counts, then displacements */
    int relaunching;                  /* act wrote the resize checkpoint: end after record */
    /* Rank 0, before act changes the job: the classes and the cost rate of the processes
     * that ran this interval. */
    char classes[256];
    double rate;
    int rate_procs;
};


/* Rank 0: "class=N;..." for the processes in the job now, in pool order. */
static void classes_now(const struct xmpi_ctx *cx, char *out, size_t len)
{
    const struct xmpi_world *w = &cx->world;
    size_t used = 0;
    out[0] = '\0';
    if (!w->have_sched) return;
    for (int h = 0; h < w->pool.nhosts; h++) {
        const char *cls = w->pool.hosts[h].cls;
        int seen = 0, n = 0;
        for (int k = 0; k < h; k++) seen |= !strcmp(w->pool.hosts[k].cls, cls);
        if (seen) continue;
        for (int i = 0; i < w->sched.nprocs; i++)
            n += !strcmp(w->pool.hosts[w->sched.procs[i].host].cls, cls);
        if (n > 0 && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%s=%d", used ? ";" : "", cls, n);
    }
}

/* Rank 0: charges the account from its last elapsed to `elapsed` at `rate` (the rate of
 * the processes that ran the span), for `nprocs` processes. The span from the previous
 * interval's end includes the reconfiguration done there: it is charged at the new
 * configuration's rate. Clocks of other ranks may put `elapsed` before the account's end:
 * that span costs 0. The span's cost, or -1 when nothing could be charged. */
static double cost_charge(struct xmpi_ctx *cx, double rate, int nprocs, double elapsed)
{
    struct xmpi_cost *acct = &cx->cost;
    if (!(rate >= 0)) return -1;
    if (elapsed < acct->last_elapsed) elapsed = acct->last_elapsed;
    return xmpi_cost_step(acct, rate, nprocs, elapsed);
}

static const char *const plan_words[] = {"keep", "spawn", "remove"};

/* Rank 0: whether the trace row of s leaves its per-rank columns out (a job larger than
 * --xmpi-trace-ranks: 4 x P numbers a row); said once, at the first such row. */
static int trace_no_ranks(struct xmpi_ctx *cx, const struct xmpi_interval *s)
{
    if (!cx->trace || s->nprocs <= cx->opts.trace_ranks) return 0;
    if (!cx->trace_ranks_said)
        xmpi_note(cx, 0, "the trace's per-rank columns (t_real_ranks, t_cpu_ranks, work_ranks, "
                  "comm_time_ranks) are left empty from interval %d on while the job has more "
                  "than %ld processes (%d now; --xmpi-trace-ranks)", s->index,
                  cx->opts.trace_ranks, s->nprocs);
    cx->trace_ranks_said = 1;
    return 1;
}

/* The interval's trace row and --xmpi-verbose line, once per interval end. */
static void record(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    const struct xmpi_interval *s = ie->s;
    const struct xmpi_reconfig_plan *plan = &ie->plan;
    char action[sizeof cx->journal.action];
    xmpi_journal_take_action(&cx->journal, action, sizeof action);
    if (cx->rank != 0) return;
    struct xmpi_trace_model tm;
    xmpi_predict_row(cx, s, action, &tm);
    if (ie->decided) {
        tm.policy = xmpi_policy_name(cx->opts.policy);
        snprintf(tm.event, sizeof tm.event, "%s", plan->event);
        if (plan->action == XMPIR_PLAN_KEEP) snprintf(tm.decision, sizeof tm.decision, "keep");
        else snprintf(tm.decision, sizeof tm.decision, "%s %d", plan_words[plan->action],
                      plan->count);
        snprintf(tm.why, sizeof tm.why, "%s", plan->why);
        tm.t_decide = ie->t_decide;
    }
    snprintf(tm.classes, sizeof tm.classes, "%s", ie->classes);
    tm.no_ranks = trace_no_ranks(cx, s);
    /* The cost of the interval: from the previous row's end (MPI_Init for the first) to
     * this one's, at the rate of the processes that ran it (measured before the act step);
     * what the act step spends now falls into the next interval, at the new rate. */
    double cost = cost_charge(cx, ie->rate, ie->rate_procs, s->elapsed);
    if (cost >= 0) {
        tm.costed = 1;
        tm.cost_interval = cost;
        tm.cost_total = cx->cost.total;
    }
    const char *source = s->work_source_mixed ? "mixed" : cx->mon.source;
    long at = cx->steps.on && cx->trace ? ftell(cx->trace) : -1;
    if (cx->trace && xmpi_trace_row(cx->trace, s, source, action, &tm)) {
        xmpi_note(cx, 0, "cannot write the trace file %s any more; tracing stops", cx->opts.trace);
        fclose(cx->trace);
        cx->trace = NULL;
    }
    if (at >= 0 && cx->trace) cx->steps.trace_bytes += (double)(ftell(cx->trace) - at);
    double t = s->t_real_max > 0 ? s->t_real_max : 1;
    xmpi_note(cx, 1, "interval %d (iteration %ld): %d procs, t_real %.4g-%.4g s, imbalance "
              "%.1f%%, comm %.1f%%, work %.4g (%s), elapsed %.2f s, action %s",
              s->index, s->iteration, s->nprocs, s->t_real_min, s->t_real_max,
              100 * xmpi_interval_imbalance(s), 100 * s->comm_time_max / t, s->work_sum, source,
              s->elapsed, action);
}

/* ---- act: rows to new blocks --------------------------------------------------------------- */

static int rebalance(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                     const struct xmpi_app *app, const int *blocks)
{
    int p = cx->size, me = cx->rank;
    struct xmpi_move mv = {*app->count, *app->displ, blocks[me], blocks[p + me], 0, NULL, 0,
                           cx->mon.iterations, 0,
                           app->reconfig ? "XMPI_Eval_reconfig" : "XMPI_Eval_lbalance"};
    int rc = xmpi_registry_move(cx, &mv);
    if (rc) return xmpi_error_code(rc);
    *app->count = blocks[me];
    *app->displ = blocks[p + me];
    /* The move's seconds include the program's rebuild (XMPI_Set_rebuild): the slowest
     * process's of each. */
    double t[2] = {xmpi_registry_stats(cx)->seconds, cx->reg.rebuild_seconds}, tmax[2];
    PMPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, cx->comm);
    xmpi_balance_moved(cx, tmax[0], tmax[1]);
    xmpi_journal_did(&cx->journal, "rebalance", 1);
    xmpi_note(cx, 1, "interval %d: rebalanced in %.3f s", s->index, tmax[0]);
    return XMPI_SUCCESS;
}

/* ---- act: a new processor configuration ------------------------------------------------ */

/* --xmpi-lb=time, collective over the processes there: rank 0's map of the cost per row
 * (balance.h), on every process, when it has one for the rows registered; else NULL. */
static double *share_costmap(struct xmpi_ctx *cx)
{
    int n = xmpi_registry_size(cx);
    int have = cx->opts.lb == XMPIR_LB_TIME && n > 0 && cx->rank == 0 && cx->balance.costmap &&
               cx->balance.costmap_n == n;
    PMPI_Bcast(&have, 1, MPI_INT, 0, cx->comm);
    if (!have) return NULL;
    double *map = malloc(sizeof *map * (size_t)n);
    if (!map) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    if (cx->rank == 0) memcpy(map, cx->balance.costmap, sizeof *map * (size_t)n);
    PMPI_Bcast(map, n, MPI_DOUBLE, 0, cx->comm);
    return map;
}

/* Before a spawn, collective over the processes there: the rows each holds and its rows per
 * second of compute in interval s, and one power for every new process (the mean of the
 * measured processes of its class, else of all). *power has room for p + nnew entries.
 * Under --xmpi-lb=time with a cost map (*map, malloc'ed, else NULL), a process's power is
 * the cost of its rows per second, so that the new blocks equalize predicted times for
 * rows of uneven cost as the balancer's do. */
static void powers_before_spawn(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                                const struct xmpi_app *app, char *const cls[], int nnew,
                                double *power, double **map)
{
    int p = cx->size;
    int *count = malloc(sizeof *count * 3 * ((size_t)p + (size_t)nnew));
    if (!count) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    int *klass = count + p + nnew, *displ = klass + p + nnew;
    PMPI_Allgather(app->count, 1, MPI_INT, count, 1, MPI_INT, cx->comm);
    PMPI_Allgather(app->displ, 1, MPI_INT, displ, 1, MPI_INT, cx->comm);
    *map = share_costmap(cx);
    int n = xmpi_registry_size(cx);
    for (int i = 0; *map && i < p; i++)
        if (count[i] < 0 || (count[i] > 0 && (displ[i] < 0 || displ[i] > n - count[i]))) {
            free(*map);   /* blocks the registry would refuse: the move will say so */
            *map = NULL;
        }
    /* Classes are known on rank 0: the model's index of each rank, and of each new one. */
    if (cx->rank == 0) {
        if (xmpi_predict_rank_classes(&cx->predict, &cx->world.sched, klass, p))
            for (int i = 0; i < p; i++) klass[i] = 0;
        for (int k = 0; k < nnew; k++) {
            int h = xmpi_pool_find_class(&cx->world.pool, cls[k]);
            klass[p + k] = h >= 0 && cx->predict.host_class ? cx->predict.host_class[h] : 0;
        }
    }
    PMPI_Bcast(klass, p + nnew, MPI_INT, 0, cx->comm);
    /* Each process's compute time, from the records only rank 0 holds (monitor.c). */
    for (int i = 0; cx->rank == 0 && i < p; i++)
        power[i] = s->ranks[i].t_real - s->ranks[i].comm_time;
    PMPI_Bcast(power, p, MPI_DOUBLE, 0, cx->comm);
    double all = 0;
    int nall = 0;
    for (int i = 0; i < p; i++) {
        double comp = power[i], rows = count[i];
        if (*map) {
            rows = 0;
            for (int r = displ[i]; r < displ[i] + count[i]; r++) rows += (*map)[r];
        }
        power[i] = count[i] > 0 && comp > 0 && rows > 0 ? rows / comp : 0;
        if (power[i] > 0) all += power[i], nall++;
    }
    double mean = nall ? all / nall : 1;
    for (int k = 0; k < nnew; k++) {
        double same = 0;
        int nsame = 0;
        for (int i = 0; i < p; i++)
            if (power[i] > 0 && klass[i] == klass[p + k]) same += power[i], nsame++;
        power[p + k] = nsame ? same / nsame : mean;
    }
    for (int i = 0; i < p; i++)
        if (power[i] <= 0) power[i] = mean;
    free(count);
}

/* After a spawn: every process's rows in proportion to its power (computed before), the
 * new processes receiving theirs through XMPI_Get_data, the others moving in one call. */
static int spread_after_spawn(struct xmpi_ctx *cx, const struct xmpi_app *app,
                              const double *power, const double *map)
{
    int p = cx->size, n = xmpi_registry_size(cx), me = cx->rank;
    if (n < 0) return XMPI_SUCCESS;
    int *nc = malloc(sizeof *nc * 2 * (size_t)p);
    if (!nc) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    int *nd = nc + p;
    char why[300];
    /* Every process that was there computes the same blocks from the same numbers. */
    int rc = xmpi_part_weighted(n, p, map, power, nc, nd, why, sizeof why);
    if (rc) {
        /* Keep the old blocks: the new processes take nothing (the balancer moves rows to
         * them at a later interval). */
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: no partition for the new processes (%s); they "
                  "start without rows", why);
        nc[me] = *app->count;
        nd[me] = *app->displ;
    } else if (map && cx->rank == 0 && cx->opts.verbose >= 1) {
        char list[256] = "";
        for (int i = 0, at = 0; i < p && at < (int)sizeof list - 12; i++)
            at += snprintf(list + at, sizeof list - (size_t)at, "%s%d", i ? "," : "", nc[i]);
        xmpi_note(cx, 1, "XMPI_Eval_reconfig: rows after the spawn by the cost of each row "
                  "(--xmpi-lb=time): %s", list);
    }
    struct xmpi_move mv = {*app->count, *app->displ, nc[me], nd[me], 0, NULL, 0,
                           cx->mon.iterations, 0, "XMPI_Eval_reconfig"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc == XMPI_SUCCESS) {
        *app->count = nc[me];
        *app->displ = nd[me];
        xmpi_journal_action(&cx->journal, "redistribute");
    }
    free(nc);
    return xmpi_error_code(rc);
}

/* The program's own command line, or what it passed. */
static void spawn_command(struct xmpi_ctx *cx, const struct xmpi_app *app, char *exe,
                          size_t len, const char **command, char ***argv)
{
    *command = app->command;
    *argv = app->argv ? app->argv : cx->argv;
    if (*command) return;
    ssize_t k = readlink("/proc/self/exe", exe, len - 1);
    if (k > 0) {
        exe[k] = '\0';
        *command = exe;
    } else {
        *command = cx->progname;
    }
}


/* The node class of each of the plan's processes, in order (malloc'ed). */
static char **plan_classes(struct xmpi_ctx *cx, const struct xmpi_reconfig_plan *plan)
{
    char **classes = malloc(sizeof *classes * (size_t)plan->count);
    if (!classes) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    for (int i = 0, c = 0, k = 0; i < plan->count; i++) {
        while (plan->nclasses > 0 && c < plan->nclasses && k >= plan->class_count[c]) c++, k = 0;
        classes[i] = plan->nclasses > 0 && c < plan->nclasses ? (char *)plan->classes[c]
                                                               : (char *)plan->cls;
        k++;
    }
    return classes;
}

/* ---- act: one function per step ---------------------------------------------------------- */

/* STEP_SPAWN: a blocking spawn; the rows are spread over every process by measured power. */
static int act_spawn(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    const struct xmpi_reconfig_plan *plan = &ie->plan;
    char **classes = plan_classes(cx, plan);
    char exe[4096];
    const char *command = NULL;
    char **argv = NULL;
    spawn_command(cx, ie->app, exe, sizeof exe, &command, &argv);
    double *power = malloc(sizeof *power * ((size_t)cx->size + (size_t)plan->count));
    if (!power) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    double *map;
    powers_before_spawn(cx, ie->s, ie->app, classes, plan->count, power, &map);
    int before = cx->size;
    int rc = xmpi_reconfig_spawn(cx, command, argv, plan->count, MPI_INFO_NULL, classes);
    /* Processes that did start wait for their rows, even when a later one failed; a failed
     * move is the error to report, and the new processes get it too. */
    if (cx->size > before) {
        int moved = spread_after_spawn(cx, ie->app, power, map);
        if (moved != XMPI_SUCCESS) rc = moved;
    }
    free(map);
    free(power);
    free(classes);
    return rc;
}

/* STEP_SPAWN_ASYNC: the checks and the placement of a blocking spawn, then rank 0's helper
 * thread starts the processes while the job goes on; world.pending says how many are coming.
 * A refusal leaves the job as it was. */
static int act_spawn_async(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    int nprocs = ie->plan.count, rc = XMPI_SUCCESS;
    char **classes = plan_classes(cx, &ie->plan);
    char exe[4096], why[768] = "";
    const char *command = NULL;
    char **argv = NULL;
    int *hosts = NULL;
    spawn_command(cx, ie->app, exe, sizeof exe, &command, &argv);
    if (cx->rank == 0) {
        rc = xmpi_reconfig_check_spawn(cx, command, nprocs, MPI_INFO_NULL, classes, &hosts, why,
                                       sizeof why);
        if (!rc && (rc = xmpi_world_spawn_begin(cx, command, argv, hosts, nprocs, MPI_INFO_NULL)))
            snprintf(why, sizeof why, "out of memory starting an asynchronous spawn");
    }
    free(hosts);
    free(classes);
    if ((rc = xmpi_reconfig_agree(cx, rc, "XMPI_Eval_reconfig", why))) return rc;
    cx->world.pending = nprocs;
    xmpi_journal_action(&cx->journal, "spawning");
    xmpi_note(cx, 2, "spawning %d process(es) asynchronously; the job computes meanwhile", nprocs);
    return XMPI_SUCCESS;
}

/* STEP_JOIN, at the first interval end after rank 0 saw the asynchronous spawn finished: the
 * new processes join and take their rows, as after a blocking spawn. Only the join is the
 * job's time (the reconfiguration the model learns); the spawn ran beside the computation. */
static int act_join(struct xmpi_ctx *cx, struct interval_end *ie)
{
    int n = cx->world.pending, before = cx->size, done = 0;
    const int *hosts = cx->rank == 0 ? xmpi_world_spawn_hosts(cx) : NULL;
    char **classes = calloc((size_t)n, sizeof *classes);
    double *power = malloc(sizeof *power * ((size_t)cx->size + (size_t)n));
    if (!classes || !power) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    for (int k = 0; k < n; k++)
        classes[k] = hosts ? cx->world.pool.hosts[hosts[k]].cls : (char *)"";
    double *map;
    powers_before_spawn(cx, ie->s, ie->app, classes, n, power, &map);
    xmpi_reconfig_predict(cx, "spawn", hosts, n, NULL, 0);
    double t0 = PMPI_Wtime();
    struct xmpi_join join = {cx->mon.iterations, cx->mon.summary.index, cx->evaluates,
                             xmpi_monitor_source_code(cx)};
    int *placed = NULL;
    if (hosts && (placed = malloc(sizeof *placed * (size_t)n)))
        memcpy(placed, hosts, sizeof *placed * (size_t)n);
    int rc = xmpi_world_spawn_join(cx, &join, &done);
    double visible = PMPI_Wtime() - t0;
    xmpi_reconfig_after_spawn(cx, placed, n, done, rc, visible);
    if (cx->size > before) {
        int moved = spread_after_spawn(cx, ie->app, power, map);
        if (moved != XMPI_SUCCESS) rc = moved;
    }
    snprintf(ie->plan.why, sizeof ie->plan.why, "asynchronous spawn of %d: %d started in %.3f s "
             "beside the computation (rank 0's helper thread used %.3f s of CPU); joined in "
             "%.3f s", n, done, ie->async.seconds, ie->async.cpu, visible);
    xmpi_note(cx, 1, "XMPI_Eval_reconfig: %s", ie->plan.why);
    free(placed);
    free(map);
    free(power);
    free(classes);
    return rc;
}

/* STEP_REMOVE: the plan's processes hand their rows over and leave. */
static int act_remove(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    char **classes = plan_classes(cx, &ie->plan);
    int rc = xmpi_reconfig_remove(cx, ie->plan.count, classes);
    const struct xmpi_app *app = ie->app;
    if (rc == XMPI_SUCCESS && cx->status == XMPI_REMOVED) *app->count = *app->displ = 0;
    else if (rc == XMPI_SUCCESS) xmpi_registry_own_block(cx, app->count, app->displ);
    free(classes);
    return rc;
}

/* STEP_RELAUNCH: writes the checkpoint the relaunched job starts from. When it cannot, the job
 * goes on as it was; else the interval is recorded and the job ends (relaunch_end). */
static int act_relaunch(struct xmpi_ctx *cx, struct interval_end *ie, int fallback)
{
    if (xmpi_resize_prepare(cx) != XMPI_SUCCESS) {
        ie->step = STEP_KEEP;
        /* A relaunch the policy chose is recorded as not done; one that replaced a refused
         * spawn still shows the spawn that was decided. */
        if (!fallback) ie->plan.action = XMPIR_PLAN_KEEP;
        return XMPI_SUCCESS;
    }
    xmpi_journal_action(&cx->journal, "relaunch");
    ie->relaunching = 1;
    return XMPI_SUCCESS;
}

/* After a spawn step: what MPI's or the resource manager's refusal means for the job. MPI
 * refused and started nothing: a job that can be relaunched grows that way instead; the
 * resource manager could not make room: no growth this interval (rank 0 said why); MPI refused
 * a policy's spawn: the job goes on as it was (or with the processes that did start, rows
 * spread), it is not the program's error, and the policies spawn no more in this run. */
static int spawn_refused(struct xmpi_ctx *cx, struct interval_end *ie, int rc, int before)
{
    if (rc == XMPI_ERR_SPAWN && cx->size == before && xmpi_resize_possible(cx) &&
        cx->opts.resize == XMPIR_RESIZE_AUTO) {
        cx->world.spawn_refused = 1;
        snprintf(ie->plan.why, sizeof ie->plan.why, "MPI refused the spawn of %d: by checkpoint "
                 "and restart instead", ie->plan.count);
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: %s", ie->plan.why);
        ie->plan.restart = 1;
        ie->step = STEP_RELAUNCH;
        return act_relaunch(cx, ie, 1);
    }
    if (rc == XMPI_ERR_RMS && cx->size == before) return XMPI_SUCCESS;
    if (rc == XMPI_ERR_SPAWN) {
        char pol[16] = "";
        xmpi_options_format(&cx->opts, "policy", pol, sizeof pol);
        cx->world.spawn_refused = 1;
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: --xmpi-policy=%s spawns no more processes in this "
                  "run", pol);
        return XMPI_SUCCESS;
    }
    return rc;
}

/* ---- the phases ----------------------------------------------------------------------------- */

/* measure: the per-rank records become the interval's summary, identical on every rank; rank 0
 * notes who ran it at what cost rate, before act changes the job. */
static void measure(struct xmpi_ctx *cx, struct interval_end *ie)
{
    double mark[2];
    xmpi_step_begin(cx, mark);
    xmpi_monitor_gather(cx);
    ie->s = xmpi_monitor_summary(cx);
    xmpi_step_end(cx, XMPIR_STEP_GATHER, mark);
    if (cx->rank != 0) return;
    classes_now(cx, ie->classes, sizeof ie->classes);
    ie->rate = xmpi_world_cost_rate(&cx->world);
    ie->rate_procs = cx->world.sched.nprocs;
}

/* model: rank 0 feeds the prediction model and compares a pending prediction with what came. */
static void model(struct xmpi_ctx *cx, struct interval_end *ie)
{
    if (cx->rank != 0) return;
    double mark[2];
    xmpi_step_begin(cx, mark);
    xmpi_predict_feed(cx, ie->s);
    xmpi_step_end(cx, XMPIR_STEP_MODEL, mark);
}

/* Collective: has the asynchronous spawn under way (world.pending, the same everywhere)
 * finished? Its processes join at an interval end the program evaluates for reconfiguration. */
static void check_async(struct xmpi_ctx *cx, struct interval_end *ie)
{
    ie->async = (struct async_check){-1, 0, 0};
    if (!cx->world.pending || !ie->app || !ie->app->reconfig) return;
    if (cx->rank == 0) ie->async.state = xmpi_world_spawn_ready(cx, &ie->async.seconds, &ie->async.cpu);
    PMPI_Bcast(&ie->async, 3, MPI_DOUBLE, 0, cx->comm);
}

/* The policy's plan as a step, with what is known to be refused resolved first: one
 * reconfiguration at a time (the policy waits for the spawn it decided), and no spawn once MPI
 * refused one (a policy that grows would only try again every interval). Rank 0's helper
 * thread spawns, so its process says for all whether the spawn is asynchronous. */
static void plan_step(struct xmpi_ctx *cx, struct interval_end *ie)
{
    struct xmpi_reconfig_plan *plan = &ie->plan;
    if (ie->async.state >= 0) {
        plan->action = ie->async.state > 0 ? XMPIR_PLAN_SPAWN : XMPIR_PLAN_KEEP;
        plan->count = cx->world.pending;
        snprintf(plan->why, sizeof plan->why, "asynchronous spawn of %d %s (%.3f s)", plan->count,
                 ie->async.state > 0 ? "ready: joining" : "under way", ie->async.seconds);
        ie->decided = 1;
        ie->step = ie->async.state > 0 ? STEP_JOIN : STEP_KEEP;
        return;
    }
    if (ie->app->reconfig && cx->opts.policy != XMPIR_POLICY_STATIC) {
        double mark[2];
        xmpi_step_begin(cx, mark);
        xmpi_policy_decide(cx, ie->s, ie->app, plan);
        xmpi_step_end(cx, XMPIR_STEP_POLICY, mark);
        ie->decided = 1;
    }
    if (plan->action == XMPIR_PLAN_SPAWN && cx->world.spawn_refused && !plan->restart) {
        plan->action = XMPIR_PLAN_KEEP;
        snprintf(plan->why, sizeof plan->why, "a spawn of %d is not tried: MPI refused an earlier "
                 "one", plan->count);
    }
    if (plan->action == XMPIR_PLAN_KEEP) return;
    if (plan->restart) {
        ie->step = STEP_RELAUNCH;
    } else if (plan->action == XMPIR_PLAN_SPAWN) {
        int async = cx->async;
        PMPI_Bcast(&async, 1, MPI_INT, 0, cx->comm);
        ie->step = async ? STEP_SPAWN_ASYNC : STEP_SPAWN;
    } else {
        ie->step = STEP_REMOVE;
    }
}

/* decide: the complete step of this interval end. Only an evaluation call decides, and only
 * on an interval its processes measured (one measured on others says nothing of these); when
 * the policy keeps, the balancer decides. */
static int decide(struct xmpi_ctx *cx, struct interval_end *ie)
{
    int rc = XMPI_SUCCESS;
    ie->step = STEP_KEEP;
    check_async(cx, ie);
    double t0 = PMPI_Wtime();
    if (ie->app && ie->s->nprocs == cx->size) {
        plan_step(cx, ie);
        if (ie->plan.action == XMPIR_PLAN_KEEP) {
            char why[400] = "";
            double mark[2];
            xmpi_step_begin(cx, mark);
            rc = xmpi_balance_step(cx, ie->s, ie->app, &ie->blocks, why, sizeof why);
            xmpi_step_end(cx, XMPIR_STEP_BALANCE, mark);
            if (rc) xmpi_note(cx, 0, "%s: %s", ie->app->reconfig ? "XMPI_Eval_reconfig" :
                              "XMPI_Eval_lbalance", why);
            if (!rc && ie->blocks) ie->step = STEP_REBALANCE;
        }
    }
    ie->t_decide = PMPI_Wtime() - t0;
    cx->predict.warmup = 0;   /* decided on the warm-up interval, if this was one */
    return rc;
}

/* act: carries the step out. A spawn MPI refuses may become a relaunch (spawn_refused). */
static int act(struct xmpi_ctx *cx, struct interval_end *ie)
{
    int before = cx->size;
    switch (ie->step) {
    case STEP_KEEP: return XMPI_SUCCESS;
    case STEP_REBALANCE: return rebalance(cx, ie->s, ie->app, ie->blocks);
    case STEP_SPAWN: return spawn_refused(cx, ie, act_spawn(cx, ie), before);
    case STEP_SPAWN_ASYNC: return spawn_refused(cx, ie, act_spawn_async(cx, ie), before);
    case STEP_JOIN: return spawn_refused(cx, ie, act_join(cx, ie), before);
    case STEP_REMOVE: return act_remove(cx, ie);
    case STEP_RELAUNCH: return act_relaunch(cx, ie, 0);
    }
    return XMPI_SUCCESS;
}

/* checkpoint: --xmpi-checkpoint's automatic checkpoint, of the data as act left it (a relaunch
 * wrote its own). */
static void checkpoint(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    if (!ie->relaunching && xmpi_ckpt_interval(cx, ie->s))
        xmpi_journal_action(&cx->journal, "checkpoint");
}

/* After the row of a relaunching interval: the RESIZE record, and the job ends for the
 * relauncher; when the record cannot be written, the job goes on as it was. */
static void relaunch_end(struct xmpi_ctx *cx, const struct interval_end *ie)
{
    const struct xmpi_reconfig_plan *plan = &ie->plan;
    int n = plan->action == XMPIR_PLAN_SPAWN ? cx->size + plan->count : cx->size - plan->count;
    if (xmpi_resize_commit(cx, n) != XMPI_SUCCESS) return;
    xmpi_note(cx, 0, "resizing from %d to %d processes by checkpoint and restart (%s): the job "
              "ends with exit status %d for xmpi-resume to relaunch it from %s/%s", cx->size, n,
              plan->why, XMPIR_RESIZE_EXIT, cx->opts.checkpoint, cx->ckpt.last_leaf);
    xmpi_resize_exit(cx);
}

/* ---- the interval ---------------------------------------------------------------------------- */

int xmpi_pipeline_interval_end(struct xmpi_ctx *cx, const struct xmpi_app *app)
{
    struct interval_end ie = {.app = app};
    double mark[2], smark[2];
    xmpi_step_begin(cx, smark);
    xmpi_monitor_lib_begin(mark);
    xmpi_otf2_enter(cx, XMPIR_OTF2_INTERVAL);
    measure(cx, &ie);
    model(cx, &ie);
    int rc = decide(cx, &ie);
    if (!rc) rc = act(cx, &ie);
    checkpoint(cx, &ie);
    double rmark[2];
    xmpi_step_begin(cx, rmark);
    record(cx, &ie);
    xmpi_step_end(cx, XMPIR_STEP_RECORD, rmark);
    if (ie.relaunching) relaunch_end(cx, &ie);
    free(ie.blocks);
    xmpi_otf2_leave(cx, XMPIR_OTF2_INTERVAL, NULL);
    xmpi_monitor_lib_end(cx, mark);
    xmpi_step_end(cx, XMPIR_STEP_INTERVAL, smark);
    return rc;
}

/* An interval the program did not evaluate is measured and recorded before anything else
 * changes (the next interval, or the processes taking part). */
void xmpi_pipeline_catch_up(struct xmpi_ctx *cx)
{
    if (cx->mon.due) xmpi_pipeline_interval_end(cx, NULL);
}

/* Rank 0 at MPI_Finalize: charges the time since the last interval's end at the rate of the
 * job now, so that the account covers MPI_Init..MPI_Finalize, and says what the run cost;
 * with AMP's static estimate, also what the static run would have cost at the initial
 * configuration's rate. */
static void cost_report(struct xmpi_ctx *cx)
{
    const struct xmpi_cost *acct = &cx->cost;
    /* The processes in the job now ran since the last interval's end (a reconfiguration
     * at an interval end happens before that interval's row is written). */
    double rate = xmpi_world_cost_rate(&cx->world);
    if (cost_charge(cx, rate, cx->world.sched.nprocs, PMPI_Wtime() - cx->t0) < 0 &&
        acct->steps == 0)
        return;
    char line[160];
    int n = snprintf(line, sizeof line, "cost: %.4g units over %.4g s (%.4g PE-seconds)",
                     acct->total, acct->last_elapsed, acct->pe_seconds);
    double est = cx->amp.static_estimate;
    double scost = est > 0 ? xmpi_cost_at_initial(acct, est) : -1;
    if (scost >= 0 && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, ", static estimate: %.4g units over %.4g s "
                 "at the initial configuration's rate", scost, est);
    xmpi_note(cx, 1, "%s", line);
}

/* Rank 0 at MPI_Finalize: what the job was asked and never did, said once. Under the static
 * policy the resource manager's events were said to be idle at MPI_Init already. */
static void say_unserved(struct xmpi_ctx *cx)
{
    int pending = cx->world.pending;
    if (pending)
        xmpi_note(cx, 0, "the asynchronous spawn of %d process(es) had not joined when the job "
                  "ended; they leave without running the program", pending);
    char what[768];
    if (cx->rms.kind == XMPIR_RMS_SCHEDULE && cx->opts.policy != XMPIR_POLICY_STATIC &&
        xmpi_rms_schedule_unserved(&cx->rms.schedule, cx->mon.iterations, what, sizeof what) > 0)
        xmpi_note(cx, 0, "option --xmpi-rms: the job ended before it carried out %s%s", what,
                  pending ? " (the resource manager's events wait for the asynchronous spawn's "
                            "join)" : "");
}

void xmpi_pipeline_finish(struct xmpi_ctx *cx)
{
    if (cx->status == XMPI_REMOVED) return;
    cx->ckpt.off = 1;   /* the program may have freed its registered buffers by now */
    int closed = 0;
    if (cx->mon.in_iter) xmpi_monitor_end_iteration(cx, NULL, &closed);
    xmpi_pipeline_catch_up(cx);
    if (xmpi_monitor_close_last(cx)) xmpi_pipeline_interval_end(cx, NULL);
    if (cx->rank == 0) cost_report(cx);
    if (cx->rank == 0) say_unserved(cx);
}

