/* One sampling interval, start to end: measure (gather the summary) -> model (observe,
 * compare) -> decide (balancer; next the malleability policy) -> act (move rows, spawn,
 * remove) -> record (trace row, verbose line, model columns). The program's own actions
 * (XMPI_Spawn, XMPI_Remove, XMPI_Redistribute_data, XMPI_Get_data) take the same act and
 * record path: the model is asked first and the executors report to the sink. */
#include "pipeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "../models/config.h"
#include "../models/partition.h"
#include "../io/trace.h"
#include "../policies/resize.h"
#include "context.h"
#include "malleability.h"
#include "xmpi.h"

static int spawn_processes(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                           MPI_Info info, char *node_class[]);
static int remove_processes(struct xmpi_ctx *cx, int nprocs, char *node_class[]);
static int spawn_async_begin(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                             char *node_class[]);
static void predict(struct xmpi_ctx *cx, const char *action, const int *new_hosts, int nnew,
                    const int *leaving, int nleave);
static void after_spawn(struct xmpi_ctx *cx, const int *hosts, int n, int done, int rc,
                        double seconds);
static int check_spawn(struct xmpi_ctx *cx, const char *command, int nprocs, MPI_Info info,
                       char *node_class[], int **hosts, char *why, size_t len);
static int agree(struct xmpi_ctx *cx, int rc, const char *call, const char *why);
static int async_busy(const struct xmpi_ctx *cx, const char *call);

/* ---- record ------------------------------------------------------------------------------ */

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

static void record(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                   const struct xmpi_reconfig_plan *plan, int decided, double t_decide,
                   const char *classes, double rate, int rate_procs)
{
    char action[sizeof cx->journal.action];
    xmpi_journal_take_action(&cx->journal, action, sizeof action);
    if (cx->rank != 0) return;
    struct xmpi_trace_model tm;
    xmpi_predict_row(cx, s, action, &tm);
    if (decided) {
        tm.policy = xmpi_policy_name(cx->opts.policy);
        snprintf(tm.event, sizeof tm.event, "%s", plan->event);
        if (plan->action == XMPIR_PLAN_KEEP) snprintf(tm.decision, sizeof tm.decision, "keep");
        else snprintf(tm.decision, sizeof tm.decision, "%s %d", plan_words[plan->action],
                      plan->count);
        snprintf(tm.why, sizeof tm.why, "%s", plan->why);
        tm.t_decide = t_decide;
    }
    snprintf(tm.classes, sizeof tm.classes, "%s", classes);
    /* The cost of the interval: from the previous row's end (MPI_Init for the first) to
     * this one's, at the rate of the processes that ran it (measured before the act step);
     * what the act step spends now falls into the next interval, at the new rate. */
    double cost = cost_charge(cx, rate, rate_procs, s->elapsed);
    if (cost >= 0) {
        tm.costed = 1;
        tm.cost_interval = cost;
        tm.cost_total = cx->cost.total;
    }
    const char *source = s->work_source_mixed ? "mixed" : cx->mon.source;
    if (cx->trace && xmpi_trace_row(cx->trace, s, source, action, &tm)) {
        xmpi_note(cx, 0, "cannot write the trace file %s any more; tracing stops", cx->opts.trace);
        fclose(cx->trace);
        cx->trace = NULL;
    }
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
    if (rc < 0) return XMPI_ERR_STATE;
    if (rc) return rc;
    *app->count = blocks[me];
    *app->displ = blocks[p + me];
    double t = xmpi_registry_stats(cx)->seconds, tmax = t;
    PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, cx->comm);
    xmpi_balance_moved(cx, tmax);
    xmpi_journal_did(&cx->journal, "rebalance", 1);
    xmpi_note(cx, 1, "interval %d: rebalanced in %.3f s", s->index, tmax);
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
    double all = 0;
    int nall = 0;
    for (int i = 0; i < p; i++) {
        double comp = s->ranks[i].t_real - s->ranks[i].comm_time, rows = count[i];
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
    return rc < 0 ? XMPI_ERR_STATE : rc;
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

static int reconfigure(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                       const struct xmpi_app *app, const struct xmpi_reconfig_plan *plan)
{
    char **classes = malloc(sizeof *classes * (size_t)plan->count);
    if (!classes) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    for (int i = 0, c = 0, k = 0; i < plan->count; i++) {
        while (plan->nclasses > 0 && c < plan->nclasses && k >= plan->class_count[c]) c++, k = 0;
        classes[i] = plan->nclasses > 0 && c < plan->nclasses ? (char *)plan->classes[c]
                                                               : (char *)plan->cls;
        k++;
    }
    int rc, async = cx->async;
    /* Rank 0's helper thread spawns: its process decides for all. */
    if (plan->action == XMPIR_PLAN_SPAWN) PMPI_Bcast(&async, 1, MPI_INT, 0, cx->comm);
    char exe[4096];
    const char *command = NULL;
    char **argv = NULL;
    if (plan->action == XMPIR_PLAN_SPAWN) spawn_command(cx, app, exe, sizeof exe, &command, &argv);
    if (plan->action == XMPIR_PLAN_SPAWN && async) {
        rc = spawn_async_begin(cx, command, argv, plan->count, classes);
    } else if (plan->action == XMPIR_PLAN_SPAWN) {
        double *power = malloc(sizeof *power * ((size_t)cx->size + (size_t)plan->count));
        if (!power) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
        double *map;
        powers_before_spawn(cx, s, app, classes, plan->count, power, &map);
        int before = cx->size;
        rc = spawn_processes(cx, command, argv, plan->count, MPI_INFO_NULL, classes);
        /* Processes that did start wait for their rows, even when a later one failed. */
        if (cx->size > before) {
            /* A failed move is the error to report: the new processes get it too. */
            int moved = spread_after_spawn(cx, app, power, map);
            if (moved != XMPI_SUCCESS) rc = moved;
        }
        free(map);
        free(power);
    } else {
        rc = remove_processes(cx, plan->count, classes);
        if (rc == XMPI_SUCCESS && cx->status == XMPI_REMOVED) *app->count = *app->displ = 0;
        else if (rc == XMPI_SUCCESS) xmpi_registry_own_block(cx, app->count, app->displ);
    }
    free(classes);
    return rc;
}

/* ---- act: an asynchronous spawn --------------------------------------------------------- */

/* Collective, when a policy grows the job and rank 0 spawns asynchronously: the checks and the
 * placement of a blocking spawn, then rank 0's helper thread starts the processes while the job
 * goes on; world.pending says how many are coming. A refusal leaves the job as it was. */
static int spawn_async_begin(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                             char *node_class[])
{
    int rc = XMPI_SUCCESS;
    char why[768] = "";
    int *hosts = NULL;
    if (cx->rank == 0) {
        rc = check_spawn(cx, command, nprocs, MPI_INFO_NULL, node_class, &hosts, why, sizeof why);
        if (!rc && (rc = xmpi_world_spawn_begin(cx, command, argv, hosts, nprocs, MPI_INFO_NULL)))
            snprintf(why, sizeof why, "out of memory starting an asynchronous spawn");
    }
    free(hosts);
    if ((rc = agree(cx, rc, "XMPI_Eval_reconfig", why))) return rc;
    cx->world.pending = nprocs;
    xmpi_journal_action(&cx->journal, "spawning");
    xmpi_note(cx, 2, "spawning %d process(es) asynchronously; the job computes meanwhile", nprocs);
    return XMPI_SUCCESS;
}

/* Collective, at the first interval end after rank 0 saw the asynchronous spawn finished: the
 * new processes join and take their rows, as after a blocking spawn. Only the join is the
 * job's time (the reconfiguration the model learns); `hidden` (s) ran beside it, `cpu` of it
 * on rank 0's helper thread. */
static int spawn_async_join(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                            const struct xmpi_app *app, struct xmpi_reconfig_plan *plan,
                            double hidden, double cpu)
{
    int n = cx->world.pending, before = cx->size, done = 0;
    const int *hosts = cx->rank == 0 ? xmpi_world_spawn_hosts(cx) : NULL;
    char **classes = calloc((size_t)n, sizeof *classes);
    double *power = malloc(sizeof *power * ((size_t)cx->size + (size_t)n));
    if (!classes || !power) xmpi_die_nomem(cx, "XMPI_Eval_reconfig");
    for (int k = 0; k < n; k++)
        classes[k] = hosts ? cx->world.pool.hosts[hosts[k]].cls : (char *)"";
    double *map;
    powers_before_spawn(cx, s, app, classes, n, power, &map);
    predict(cx, "spawn", hosts, n, NULL, 0);
    double t0 = PMPI_Wtime();
    struct xmpi_join join = {cx->mon.iterations, cx->mon.summary.index, cx->evaluates,
                             xmpi_monitor_source_code(cx)};
    int *placed = NULL;
    if (hosts && (placed = malloc(sizeof *placed * (size_t)n)))
        memcpy(placed, hosts, sizeof *placed * (size_t)n);
    int rc = xmpi_world_spawn_join(cx, &join, &done);
    double visible = PMPI_Wtime() - t0;
    after_spawn(cx, placed, n, done, rc, visible);
    if (cx->size > before) {
        int moved = spread_after_spawn(cx, app, power, map);
        if (moved != XMPI_SUCCESS) rc = moved;
    }
    snprintf(plan->why, sizeof plan->why, "asynchronous spawn of %d: %d started in %.3f s beside "
             "the computation (rank 0's helper thread used %.3f s of CPU); joined in %.3f s", n,
             done, hidden, cpu, visible);
    xmpi_note(cx, 1, "XMPI_Eval_reconfig: %s", plan->why);
    free(placed);
    free(map);
    free(power);
    free(classes);
    return rc;
}

/* ---- act: a new processor configuration by checkpoint and restart ------------------------- */

/* Writes the checkpoint and the RESIZE record, records the interval and ends the job for the
 * relauncher. Returns only when that failed, the job as it was: 1 when the interval's row was
 * recorded already (the record could not be written), 0 when not (the checkpoint failed). */
static int relaunch(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                     const struct xmpi_reconfig_plan *plan, int decided, double t_decide,
                     const char *classes, double rate, int rate_procs)
{
    int n = plan->action == XMPIR_PLAN_SPAWN ? cx->size + plan->count : cx->size - plan->count;
    if (xmpi_resize_prepare(cx) != XMPI_SUCCESS) return 0;
    xmpi_journal_action(&cx->journal, "relaunch");
    record(cx, s, plan, decided, t_decide, classes, rate, rate_procs);
    /* The row is written: this interval's end records nothing more, whatever follows. */
    if (xmpi_resize_commit(cx, n) != XMPI_SUCCESS) return 1;
    xmpi_note(cx, 0, "resizing from %d to %d processes by checkpoint and restart (%s): the job "
              "ends with exit status %d for xmpi-resume to relaunch it from %s/%s", cx->size, n,
              plan->why, XMPIR_RESIZE_EXIT, cx->opts.checkpoint, cx->ckpt.last_leaf);
    xmpi_resize_exit(cx);
}

/* ---- the interval ---------------------------------------------------------------------------- */

int xmpi_pipeline_interval_end(struct xmpi_ctx *cx, const struct xmpi_app *app)
{
    double mark[2];
    xmpi_monitor_lib_begin(mark);
    xmpi_otf2_enter(cx, XMPIR_OTF2_INTERVAL);
    /* measure */
    xmpi_monitor_gather(cx);
    const struct xmpi_interval *s = xmpi_monitor_summary(cx);
    /* model */
    if (cx->rank == 0) xmpi_predict_feed(cx, s);
    /* decide: an interval measured on other processes says nothing of these */
    int rc = XMPI_SUCCESS, *blocks = NULL, decided = 0, recorded = 0;
    char why[400] = "", classes[256] = "";
    struct xmpi_reconfig_plan plan = {0};
    /* Rank 0: the classes and the cost rate of the processes that ran this interval,
     * before the act step changes the job. */
    double rate = -1;
    int rate_procs = 0;
    if (cx->rank == 0) {
        classes_now(cx, classes, sizeof classes);
        rate = xmpi_world_cost_rate(&cx->world);
        rate_procs = cx->world.sched.nprocs;
    }
    /* An asynchronous spawn under way (world.pending, the same everywhere): has it finished?
     * Its processes join at an interval end the program evaluates for reconfiguration. */
    /* -1: none; 0: still running; 1: finished; seconds so far; the helper thread's CPU */
    double async[3] = {-1, 0, 0};
    if (cx->world.pending && app && app->reconfig) {
        if (cx->rank == 0) async[0] = xmpi_world_spawn_ready(cx, &async[1], &async[2]);
        PMPI_Bcast(async, 3, MPI_DOUBLE, 0, cx->comm);
    }
    double t_decide = PMPI_Wtime();
    if (app && s->nprocs == cx->size) {
        if (async[0] >= 0) {
            /* One reconfiguration at a time: the policy waits for the spawn it decided. */
            plan.action = async[0] > 0 ? XMPIR_PLAN_SPAWN : XMPIR_PLAN_KEEP;
            plan.count = cx->world.pending;
            snprintf(plan.why, sizeof plan.why, "asynchronous spawn of %d %s (%.3f s)",
                     plan.count, async[0] > 0 ? "ready: joining" : "under way", async[1]);
            decided = 1;
        } else if (app->reconfig && cx->opts.policy != XMPIR_POLICY_STATIC) {
            xmpi_policy_decide(cx, s, app, &plan);
            decided = 1;
        }
        /* After MPI refused a spawn, a policy that grows would only try again every interval;
         * the job is balanced instead. The flag is the same on every process (join_packet). */
        if (plan.action == XMPIR_PLAN_SPAWN && cx->world.spawn_refused && !plan.restart &&
            async[0] < 0) {
            plan.action = XMPIR_PLAN_KEEP;
            snprintf(plan.why, sizeof plan.why, "a spawn of %d is not tried: MPI refused an "
                     "earlier one", plan.count);
        }
        if (plan.action == XMPIR_PLAN_KEEP) {
            rc = xmpi_balance_step(cx, s, app, &blocks, why, sizeof why);
            if (rc) xmpi_note(cx, 0, "%s: %s", app->reconfig ? "XMPI_Eval_reconfig" :
                              "XMPI_Eval_lbalance", why);
        }
    }
    t_decide = PMPI_Wtime() - t_decide;
    cx->predict.warmup = 0;   /* decided on the warm-up interval, if this was one */
    /* act */
    if (plan.action != XMPIR_PLAN_KEEP && plan.restart) {
        /* By checkpoint and restart: the job ends here and is relaunched at the new size. */
        recorded = relaunch(cx, s, &plan, decided, t_decide, classes, rate, rate_procs);
        plan.action = XMPIR_PLAN_KEEP;   /* it failed: the job goes on as it was */
    } else if (plan.action != XMPIR_PLAN_KEEP) {
        int before = cx->size;
        rc = async[0] > 0 ? spawn_async_join(cx, s, app, &plan, async[1], async[2])
                          : reconfigure(cx, s, app, &plan);
        /* MPI refused the spawn and started nothing: a job that can be relaunched grows that
         * way instead (an MPI library that cannot spawn at all, Debian's MPICH 4.0.2). */
        if (plan.action == XMPIR_PLAN_SPAWN && rc == XMPI_ERR_SPAWN && cx->size == before &&
            xmpi_resize_possible(cx) && cx->opts.resize == XMPIR_RESIZE_AUTO) {
            cx->world.spawn_refused = 1;
            snprintf(plan.why, sizeof plan.why, "MPI refused the spawn of %d: by checkpoint and "
                     "restart instead", plan.count);
            xmpi_note(cx, 0, "XMPI_Eval_reconfig: %s", plan.why);
            plan.restart = 1;
            recorded = relaunch(cx, s, &plan, decided, t_decide, classes, rate, rate_procs);
            rc = XMPI_SUCCESS;   /* it failed: the job goes on as it was */
        }
        /* The resource manager could not make room (Slurm refused or did not answer an
         * expansion): no growth this interval, and not MPI's refusal (rank 0 said why). */
        if (plan.action == XMPIR_PLAN_SPAWN && rc == XMPI_ERR_RMS && cx->size == before)
            rc = XMPI_SUCCESS;
        /* A policy's spawn that MPI refused leaves the job as it was (or with the processes
         * that did start, rows spread) and is not the program's error: rank 0 said why, and
         * policies spawn no more. */
        if (plan.action == XMPIR_PLAN_SPAWN && rc == XMPI_ERR_SPAWN) {
            char pol[16] = "";
            xmpi_options_format(&cx->opts, "policy", pol, sizeof pol);
            cx->world.spawn_refused = 1;
            xmpi_note(cx, 0, "XMPI_Eval_reconfig: --xmpi-policy=%s spawns no more processes in "
                      "this run", pol);
            rc = XMPI_SUCCESS;
        }
    } else if (!rc && blocks) {
        rc = rebalance(cx, s, app, blocks);
    }
    free(blocks);
    /* checkpoint: the data as the act step left it (--xmpi-checkpoint) */
    if (!recorded && xmpi_ckpt_interval(cx, s)) xmpi_journal_action(&cx->journal, "checkpoint");
    /* record */
    if (!recorded) record(cx, s, &plan, decided, t_decide, classes, rate, rate_procs);
    xmpi_otf2_leave(cx, XMPIR_OTF2_INTERVAL, NULL);
    xmpi_monitor_lib_end(cx, mark);
    return rc;
}

/* An interval the program did not evaluate is measured and recorded before anything else
 * changes (the next interval, or the processes taking part). */
static void catch_up(struct xmpi_ctx *cx)
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

void xmpi_pipeline_finish(struct xmpi_ctx *cx)
{
    if (cx->status == XMPI_REMOVED) return;
    cx->ckpt.off = 1;   /* the program may have freed its registered buffers by now */
    int closed = 0;
    if (cx->mon.in_iter) xmpi_monitor_end_iteration(cx, NULL, &closed);
    catch_up(cx);
    if (xmpi_monitor_close_last(cx)) xmpi_pipeline_interval_end(cx, NULL);
    if (cx->rank == 0) cost_report(cx);
}

/* Under an emulated speed by dilation (emulate.c), the program's computation up to a library
 * call is stretched on entry, and the library's own time in the call (a spawn, a move) is not
 * computation: the stretch starts again at the exit. */
static void lib_enter(void)
{
    struct xmpi_emulation *em = &xmpi_ctx->emu;
    if (em->dilate) xmpi_emulate_settle(em, PMPI_Wtime());
}

static void lib_leave(void)
{
    struct xmpi_emulation *em = &xmpi_ctx->emu;
    if (em->dilate) xmpi_emulate_resume(em, PMPI_Wtime());
}

/* ---- the public calls that drive it ---------------------------------------------------------- */

int XMPI_Monitor_iter_end(long long *counts)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    if (cx->mon.in_iter && xmpi_member(cx) == XMPI_SUCCESS) catch_up(cx);
    int closed = 0, rc = xmpi_monitor_end_iteration(cx, counts, &closed);
    /* A program that evaluates runs the rest of the interval's end in its evaluation call. */
    if (!rc && closed && !cx->evaluates) xmpi_pipeline_interval_end(cx, NULL);
    return rc;
}

int XMPI_Monitor_si_init(void)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!cx->mon.in_iter) return XMPI_Monitor_iter_begin(NULL);
    catch_up(cx);
    int closed = 0;
    if ((rc = xmpi_monitor_end_iteration(cx, NULL, &closed))) return rc;
    /* An interval closed here runs its end between the two iterations, outside both. */
    if (closed && !cx->evaluates) {
        xmpi_pipeline_interval_end(cx, NULL);
        return XMPI_Monitor_iter_begin(NULL);
    }
    return xmpi_monitor_begin_next(cx);
}

static int eval_lbalance_call(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    int first = !cx->evaluates;   /* spawned processes inherit it from their parents */
    cx->evaluates = 1;
    struct xmpi_app app = {rank, nprocs, it, maxit, count, displ, weight, 0, NULL, NULL};
    /* --xmpi-lb's data is checked at once, not at the first imbalanced interval. */
    if (first && (rc = xmpi_balance_check(cx, &app))) return rc;
    /* Between interval ends the call costs nothing. */
    if (!cx->mon.due) return XMPI_SUCCESS;
    return xmpi_pipeline_interval_end(cx, &app);
}

static int eval_reconfig_call(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight, char *argv[], const char *command)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    int first = !cx->evaluates;   /* spawned processes inherit it from their parents */
    cx->evaluates = 1;
    /* The evaluation ends the program's monitored iteration (opened by XMPI_Monitor_si_init at
     * the top of the loop), so that a reconfiguration is never inside one. */
    if (cx->mon.in_iter) {
        catch_up(cx);
        int closed = 0;
        if ((rc = xmpi_monitor_end_iteration(cx, NULL, &closed))) return rc;
    }
    struct xmpi_app app = {rank, nprocs, it, maxit, count, displ, weight, 1, argv, command};
    /* --xmpi-lb's data is checked at once: the balancer runs whenever the policy keeps. */
    if (first && (rc = xmpi_balance_check(cx, &app))) return rc;
    if (!cx->mon.due) return XMPI_SUCCESS;
    /* AMP lands on a completion time: it must know how many iterations are left. */
    if (cx->opts.policy == XMPIR_POLICY_AMP && maxit <= 0) {
        if (!cx->amp.said_maxit)
            xmpi_note(cx, 0, "XMPI_Eval_reconfig: --xmpi-policy=amp needs maxit, the number of "
                      "iterations of the run (got %d); nothing changes", maxit);
        cx->amp.said_maxit = 1;
        return XMPI_ERR_ARG;
    }
    return xmpi_pipeline_interval_end(cx, &app);
}

static int redistribute_data_call(int scount, int sdispl, int rcount, int rdispl)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    struct xmpi_move mv = {scount, sdispl, rcount, rdispl, 0, NULL, 0, cx->mon.iterations, 0,
                           "XMPI_Redistribute_data"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc < 0) return XMPI_ERR_STATE;
    if (rc == XMPI_SUCCESS) xmpi_journal_action(&cx->journal, "redistribute");
    return rc;
}

static int get_data_call(int *it)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (cx->status != XMPI_NEWLY_SPAWNED || cx->reg.got_data) return XMPI_ERR_STATE;
    if (cx->ckpt.restarting) {
        /* --xmpi-restart: the rows come from the checkpoint, for every process of the job. */
        long resume = 0;
        rc = xmpi_ckpt_restore(cx, &resume);
        if (rc == XMPI_SUCCESS && it) *it = (int)resume;
        return rc;
    }
    struct xmpi_move mv = {0, 0, 0, 0, 1, NULL, 0, cx->mon.iterations, 0, "XMPI_Get_data"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc < 0) return XMPI_ERR_STATE;
    if (rc == XMPI_SUCCESS && it) *it = (int)mv.resume;
    return rc;
}

/* ---- program-requested reconfigurations ------------------------------------------------------ */

/* Collective (the registry's description): on rank 0, the model's prediction of the interval
 * after this action. New processes go to pool hosts new_hosts; leaving ranks are `leaving`. */
static void predict(struct xmpi_ctx *cx, const char *action, const int *new_hosts, int nnew,
                    const int *leaving, int nleave)
{
    enum { MAXD = 32 };
    struct xmpi_struct_desc d[MAXD];
    int p = cx->size;
    int ready = cx->rank == 0 && cx->world.have_sched && cx->predict.on;
    long *part = ready ? malloc(sizeof *part * 2 * (size_t)p) : NULL;
    int nd = xmpi_registry_describe(cx, d, MAXD, part, part ? part + p : NULL);
    int *rank_class = part ? malloc(sizeof *rank_class * 2 * (size_t)p) : NULL;
    int *new_class = part ? malloc(sizeof *new_class * ((size_t)nnew + 1)) : NULL;
    int *group = rank_class ? rank_class + p : NULL;
    if (rank_class && new_class &&
        xmpi_predict_rank_classes(&cx->predict, &cx->world.sched, rank_class, p) == 0) {
        for (int i = 0; i < p; i++) group[i] = cx->world.sched.procs[i].group;
        for (int i = 0; i < nnew; i++) new_class[i] = cx->predict.host_class[new_hosts[i]];
        struct xmpi_config_change ch;
        if (xmpi_config_change(p, rank_class, group, new_class, nnew, leaving, nleave, &ch) == 0)
            xmpi_predict_plan(cx, action, xmpi_monitor_summary(cx), cx->mon.iterations, &ch,
                              rank_class, d, nd, nd ? part : NULL, nd ? part + p : NULL);
    }
    free(new_class);
    free(rank_class);
    free(part);
}

static int sched_error(int rc)
{
    switch (rc) {
    case XMPIR_SCHED_ECLASS: return XMPI_ERR_CLASS;
    case XMPIR_SCHED_ENOPE:
    case XMPIR_SCHED_ECOUNT:
    case XMPIR_SCHED_EGROUP: return XMPI_ERR_RESOURCES;
    case XMPIR_SCHED_ENOMEM: return XMPI_ERR_NOMEM;
    default: return XMPI_ERR_ARG;
    }
}

/* Arguments are checked on rank 0 and the verdict shared, so that every process returns
 * the same code and none starts a collective the others skip. */
static int agree(struct xmpi_ctx *cx, int rc, const char *call, const char *why)
{
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc && cx->rank == 0) xmpi_note(cx, 0, "%s: %s", call, why);
    return rc;
}

static int usable(const struct xmpi_ctx *cx, const char *call)
{
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!cx->mon.in_iter) return XMPI_SUCCESS;
    xmpi_note(cx, 0, "%s: called inside a monitored iteration (after XMPI_Monitor_iter_begin "
              "or XMPI_Monitor_si_init); call it between iterations; nothing changed", call);
    return XMPI_ERR_STATE;
}

/* Rank 0: the checks of XMPI_Spawn's arguments and the placement of the new processes. */
static int check_spawn(struct xmpi_ctx *cx, const char *command, int nprocs, MPI_Info info,
                       char *node_class[], int **hosts, char *why, size_t len)
{
    if (nprocs < 1) {
        snprintf(why, len, "nprocs is %d; expected at least 1", nprocs);
        return XMPI_ERR_ARG;
    }
    if (!command || !command[0]) {
        snprintf(why, len, "no program given");
        return XMPI_ERR_ARG;
    }
    if (!xmpi_world_find_program(command)) {
        snprintf(why, len, "cannot find the program '%s' (not an executable file in the "
                 "working directory or PATH); no process started", command);
        return XMPI_ERR_NOT_FOUND;
    }
    if (!(*hosts = malloc(sizeof **hosts * (size_t)nprocs))) {
        snprintf(why, len, "out of memory");
        return XMPI_ERR_NOMEM;
    }
    /* The resource manager makes room first (Slurm: the allocation grows onto idle nodes). */
    int rc = xmpi_rms_acquire(cx, node_class, nprocs, why, len);
    if (rc) return rc;
    int s = xmpi_sched_place(&cx->world.sched, node_class, nprocs, *hosts, why, len);
    if (s) return sched_error(s);
    return cx->opts.spawn_check == 0 ? xmpi_world_spawn_precheck(cx, nprocs, info, why, len)
                                     : XMPI_SUCCESS;
}

static int spawn_call(const char *command, char *argv[], int nprocs, MPI_Info info, char *node_class[])
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = usable(cx, "XMPI_Spawn");
    if (!rc) rc = async_busy(cx, "XMPI_Spawn");
    if (rc) return rc;
    return spawn_processes(cx, command, argv, nprocs, info, node_class);
}

static int spawn_processes(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                           MPI_Info info, char *node_class[])
{
    int rc = XMPI_SUCCESS;
    char why[768] = "";
    int *hosts = NULL, n = nprocs;
    if (cx->rank == 0) rc = check_spawn(cx, command, nprocs, info, node_class, &hosts, why, sizeof why);
    if ((rc = agree(cx, rc, "XMPI_Spawn", why))) {
        free(hosts);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, cx->comm);
    catch_up(cx);
    predict(cx, "spawn", hosts, n, NULL, 0);
    double t0 = PMPI_Wtime();
    struct xmpi_join join = {cx->mon.iterations, cx->mon.summary.index, cx->evaluates,
                             xmpi_monitor_source_code(cx)};
    int done = 0;
    rc = xmpi_world_spawn(cx, command, argv, hosts, n, info, &join, &done);
    after_spawn(cx, hosts, n, done, rc, PMPI_Wtime() - t0);
    free(hosts);
    return rc;
}

/* After a spawn of n processes on pool hosts `hosts` (rank 0) of which `done` joined, in
 * `seconds` of the job's time: the resource manager, the notes, the sink and the model. */
static void after_spawn(struct xmpi_ctx *cx, const int *hosts, int n, int done, int rc,
                        double seconds)
{
    if (cx->rank == 0) {
        if (done > 0 && hosts) xmpi_rms_spawned(cx, hosts, done);
        if (rc) {
            char hint[512];
            xmpi_world_spawn_hint(cx, hint, sizeof hint);
            xmpi_note(cx, 0, "XMPI_Spawn: MPI_Comm_spawn failed after %d of %d processes; "
                      "XMPI_COMM_WORLD goes on with %d: %s", done, n, cx->size, hint);
        }
        xmpi_note(cx, 2, "spawned %d process(es); XMPI_COMM_WORLD has %d", done, cx->size);
        if (done == n) xmpi_journal_reconfigured(&cx->journal, seconds);
    }
    if (done > 0) {
        xmpi_journal_did(&cx->journal, "spawn", done);
        cx->predict.warmup = 1;   /* the next interval warms them up (model.h) */
    }
}

/* XMPI_Spawn and XMPI_Remove wait for nothing a policy started: while an asynchronous spawn
 * is under way (the same on every process) they change nothing. */
static int async_busy(const struct xmpi_ctx *cx, const char *call)
{
    if (!cx->world.pending) return XMPI_SUCCESS;
    xmpi_note(cx, 0, "%s: an asynchronous spawn of %d process(es) that --xmpi-policy decided is "
              "under way; its processes join at the next interval end of XMPI_Eval_reconfig; "
              "nothing changed", call, cx->world.pending);
    return XMPI_ERR_STATE;
}

/* Rank 0: the checks of XMPI_Remove's arguments and which ranks leave. */
static int check_remove(struct xmpi_ctx *cx, int nprocs, char *node_class[], int **ranks,
                        char *why, size_t len)
{
    if (nprocs < 1) {
        snprintf(why, len, "nprocs is %d; expected at least 1", nprocs);
        return XMPI_ERR_ARG;
    }
    if (!(*ranks = malloc(sizeof **ranks * (size_t)nprocs))) {
        snprintf(why, len, "out of memory");
        return XMPI_ERR_NOMEM;
    }
    /* The processes on the hosts the resource manager takes back go first (Slurm). */
    if (xmpi_rms_pick_remove(cx, node_class, nprocs, *ranks)) return XMPI_SUCCESS;
    int s = xmpi_sched_pick_remove(&cx->world.sched, node_class, nprocs, *ranks, why, len);
    return s ? sched_error(s) : XMPI_SUCCESS;
}

static int remove_call(int nprocs, char *node_class[])
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = usable(cx, "XMPI_Remove");
    if (!rc) rc = async_busy(cx, "XMPI_Remove");
    if (rc) return rc;
    return remove_processes(cx, nprocs, node_class);
}

static int remove_processes(struct xmpi_ctx *cx, int nprocs, char *node_class[])
{
    int rc = XMPI_SUCCESS;
    char why[768] = "";
    int n = nprocs, *ranks = NULL, *hosts = NULL;
    if (cx->rank == 0) rc = check_remove(cx, nprocs, node_class, &ranks, why, sizeof why);
    if ((rc = agree(cx, rc, "XMPI_Remove", why))) {
        free(ranks);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, cx->comm);
    if (cx->rank != 0 && !(ranks = malloc(sizeof *ranks * (size_t)n)))
        xmpi_die_nomem(cx, "XMPI_Remove");
    PMPI_Bcast(ranks, n, MPI_INT, 0, cx->comm);
    catch_up(cx);
    predict(cx, "remove", NULL, 0, ranks, n);
    double t0 = PMPI_Wtime(), moved0 = cx->journal.redist_seconds;
    /* The leaving processes' rows go to the others first; if they cannot, nobody leaves. */
    int sc = 0, sd = 0;
    xmpi_registry_own_block(cx, &sc, &sd);
    struct xmpi_move mv = {sc, sd, 0, 0, 0, ranks, n, cx->mon.iterations, 0, "XMPI_Remove"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc > 0) {
        free(ranks);
        return rc;
    }
    if (cx->rank == 0 && (hosts = malloc(sizeof *hosts * (size_t)n)))
        for (int i = 0; i < n; i++) hosts[i] = cx->world.sched.procs[ranks[i]].host;
    xmpi_world_remove(cx, ranks, n);
    xmpi_registry_after_remove(cx, ranks, n);
    xmpi_journal_did(&cx->journal, "remove", n);
    if (cx->rank == 0) {
        if (hosts) xmpi_rms_removed(cx, hosts, n);
        xmpi_note(cx, 2, "removed %d process(es); XMPI_COMM_WORLD has %d", n, cx->size);
        xmpi_journal_reconfigured(&cx->journal,
                               PMPI_Wtime() - t0 - (cx->journal.redist_seconds - moved0));
    }
    free(hosts);
    free(ranks);
    return XMPI_SUCCESS;
}

/* ---- the public calls: the library's own time is not the program's computation ------ */

int XMPI_Eval_lbalance(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight)
{
    lib_enter();
    int rc = eval_lbalance_call(rank, nprocs, it, maxit, count, displ, weight);
    lib_leave();
    return rc;
}

int XMPI_Eval_reconfig(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight, char *argv[], const char *command)
{
    lib_enter();
    int rc = eval_reconfig_call(rank, nprocs, it, maxit, count, displ, weight, argv, command);
    lib_leave();
    return rc;
}

int XMPI_Redistribute_data(int scount, int sdispl, int rcount, int rdispl)
{
    lib_enter();
    int rc = redistribute_data_call(scount, sdispl, rcount, rdispl);
    lib_leave();
    return rc;
}

int XMPI_Get_data(int *it)
{
    lib_enter();
    int rc = get_data_call(it);
    lib_leave();
    return rc;
}

int XMPI_Spawn(const char *command, char *argv[], int nprocs, MPI_Info info, char *node_class[])
{
    lib_enter();
    int rc = spawn_call(command, argv, nprocs, info, node_class);
    lib_leave();
    return rc;
}

int XMPI_Remove(int nprocs, char *node_class[])
{
    lib_enter();
    int rc = remove_call(nprocs, node_class);
    lib_leave();
    return rc;
}

int XMPI_Checkpoint(const char *name)
{
    lib_enter();
    double mark[2];
    xmpi_monitor_lib_begin(mark);
    int rc = xmpi_ckpt_call(name);
    xmpi_monitor_lib_end(xmpi_ctx, mark);
    lib_leave();
    return rc;
}
