/* The malleability policy's decide step: rank 0 polls the resource manager, describes the
 * job to the pure policy (policies/malleability.c) and, for HPMP, prices each candidate with
 * the prediction model: the remaining iterations at the predicted time per iteration, plus
 * the spawn and the redistribution. The decision is broadcast. */
#include "malleability.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/config.h"
#include "../policies/amp.h"
#include "../policies/resize.h"
#include "context.h"
#include "xmpi.h"

enum { MAXD = 32, MAXNEW = 1024 };

/* What HPMP's predictions need, gathered once per decision. */
struct pricing {
    struct xmpi_ctx *cx;
    const struct xmpi_interval *s;
    const struct xmpi_app *app;
    int cls;                          /* the model's index of the offered class */
    int *rank_class, *group, *new_class;
    struct xmpi_struct_desc d[MAXD];
    int nd;
    long *part;                       /* counts, then displacements */
};

/* The model's prediction for the next interval with `delta` processes more (of class
 * `add_class`) or -delta fewer (the most recently spawned ones). */
static int predict_delta(struct pricing *pr, int delta, int add_class,
                         struct xmpi_prediction *out)
{
    struct xmpi_ctx *cx = pr->cx;
    int p = cx->size, nnew = delta > 0 ? delta : 0, nleave = delta < 0 ? -delta : 0;
    if (!pr->rank_class || nnew > MAXNEW || nleave >= p) return -1;
    int *leaving = nleave ? malloc(sizeof *leaving * (size_t)nleave) : NULL;
    if (nleave && !leaving) return -1;
    for (int i = 0; i < nnew; i++) pr->new_class[i] = add_class;
    /* The most recent spawns hold the highest ranks; the initial processes never leave,
     * unless the job resizes by checkpoint and restart (then the highest ranks go). */
    int k = 0;
    for (int r = p - 1; r >= 0 && k < nleave; r--)
        if (pr->group[r] > 0) leaving[k++] = r;
    if (k < nleave && xmpi_resize_possible(cx))
        for (int r = p - 1, k0 = k; r >= 0 && k < nleave; r--) {
            int taken = 0;
            for (int j = 0; j < k0; j++) taken |= leaving[j] == r;
            if (!taken) leaving[k++] = r;
        }
    struct xmpi_config_change ch;
    int rc = k < nleave ||
             xmpi_config_change(p, pr->rank_class, pr->group, pr->new_class, nnew, leaving, nleave, &ch);
    free(leaving);
    if (rc) return -1;
    struct xmpi_predict_request rq = {
        .interval = pr->s, .current = ch.current, .candidate = ch.candidate, .structs = pr->d,
        .nstructs = pr->nd, .part = {p, pr->nd ? pr->part : NULL, pr->nd ? pr->part + p : NULL},
        .rank_class = pr->rank_class, .next = NULL, .mixed_now = ch.mixed_now,
        .mixed_next = ch.mixed_next};
    if (xmpi_predict_interval(&cx->predict.m, &rq, out) != XMPIR_MODEL_OK || !(out->iterations > 0))
        return -1;
    return 0;
}

/* Rank 0: spawned processes of class index `cls` of the model (-1: any class). */
static int spawned_of(const struct xmpi_ctx *cx, int cls)
{
    const struct xmpi_sched *sc = &cx->world.sched;
    int n = 0;
    for (int i = 0; i < sc->nprocs; i++)
        if (sc->procs[i].group > 0 &&
            (cls < 0 || (cx->predict.host_class && cx->predict.host_class[sc->procs[i].host] == cls)))
            n++;
    return n;
}

/* The way a change of `delta` processes would be carried out (dyn_ok: dynamic processes can
 * do it), with the predicted seconds of each (t_dynamic from the model's prediction `out`,
 * NULL: unknown). */
static enum xmpi_resize_way way_of(struct xmpi_ctx *cx, int delta, int dyn_ok,
                                   const struct xmpi_prediction *out, double *t_dyn,
                                   double *t_cr, char *why, size_t len)
{
    int can = xmpi_resize_possible(cx);
    struct xmpi_resize_case c = {
        .mode = cx->opts.resize, .can_restart = can, .grow = delta > 0, .dynamic_ok = dyn_ok,
        .t_dynamic = out ? out->t_spawn + out->t_remove + out->t_redist : -1,
        .t_restart = can ? xmpi_resize_price(cx) : -1};
    *t_dyn = c.t_dynamic;
    *t_cr = c.t_restart;
    return xmpi_resize_choose(&c, why, len);
}

/* Dynamic processes can change the job by `delta` processes of model class `cls` (-1: any):
 * MPI did not refuse a spawn; for a removal, as many spawned processes are there. */
static int dynamic_ok(const struct xmpi_ctx *cx, int delta, int cls)
{
    return delta > 0 ? !cx->world.spawn_refused : -delta <= spawned_of(cx, cls);
}

/* What a change of `delta` processes costs the job beside its iterations: the spawn or
 * removal and the redistribution, or the checkpoint, relaunch and restart when the job
 * would resize that way; and a grow's lag (the new processes warming up, and what an
 * asynchronous spawn takes from the intervals it runs beside) or a shrink's warm-up (the
 * first interval on the new blocks, predict.h t_warm), either way. */
static double overhead_of(struct xmpi_ctx *cx, int delta, int cls, const struct xmpi_prediction *out)
{
    double dyn, cr;
    char why[200];
    if (delta == 0) return out->t_spawn + out->t_remove + out->t_lag + out->t_redist;
    enum xmpi_resize_way w = way_of(cx, delta, dynamic_ok(cx, delta, cls), out, &dyn, &cr, why,
                                    sizeof why);
    /* A warm-up learned below 0 (a first interval measured faster than the next) is noise,
     * not a gain a shrink could be made for. */
    double warm = out->t_warm > 0 ? out->t_warm : 0;
    return (w == XMPIR_WAY_RESTART && cr >= 0 ? cr : dyn) + (delta > 0 ? out->t_lag : warm);
}

/* The time to the end of the run with k more processes of the offered class (the next
 * interval when the program gave no maxit). */
static int price(void *arg, int k, double *seconds)
{
    struct pricing *pr = arg;
    struct xmpi_prediction out;
    if (predict_delta(pr, k, pr->cls, &out)) return -1;
    double per_iter = (out.t_comp + out.t_comm) / out.iterations;
    double left = pr->app->maxit > 0 ? (double)pr->app->maxit - pr->app->it - 1 : out.iterations;
    if (left < 0) left = 0;
    *seconds = per_iter * left + overhead_of(pr->cx, k, pr->cls, &out);
    return 0;
}

/* ---- AMP ---------------------------------------------------------------------------------- */

struct amp_pricing {
    struct pricing *pr;
    int add_class;      /* the most powerful class with free PEs: what a grown job adds */
    double scale;       /* intervals of the model (its iterations) to one sampling interval */
    /* AMP asks the communication and the overhead of the same candidate one after the
     * other: the last prediction is kept (rc -2: none yet). */
    int delta, rc;
    struct xmpi_prediction out;
};

static const struct xmpi_prediction *amp_predict(struct amp_pricing *ap, int delta)
{
    if (ap->rc == -2 || ap->delta != delta) {
        ap->delta = delta;
        ap->rc = predict_delta(ap->pr, delta, ap->add_class, &ap->out);
    }
    return ap->rc ? NULL : &ap->out;
}

static int amp_comm(void *arg, int n, double *seconds)
{
    struct amp_pricing *ap = arg;
    const struct xmpi_prediction *out = amp_predict(ap, n - ap->pr->cx->size);
    if (!out) return -1;
    *seconds = out->t_comm * ap->scale;
    return 0;
}

static int amp_overhead(void *arg, int delta, double *seconds)
{
    struct amp_pricing *ap = arg;
    const struct xmpi_prediction *out = amp_predict(ap, delta);
    if (!out) return -1;
    *seconds = overhead_of(ap->pr->cx, delta, delta > 0 ? ap->add_class : -1, out);
    return 0;
}

/* (max - min) / max of the ranks' compute times (wall time outside MPI calls), as the
 * balancer measures imbalance: wall times alone are even, the fast ranks wait in MPI. */
static double comp_imbalance(const struct xmpi_interval *s)
{
    double lo = 0, hi = 0;
    for (int i = 0; i < s->nprocs; i++) {
        double c = s->ranks[i].t_real - s->ranks[i].comm_time;
        if (i == 0 || c < lo) lo = c;
        if (i == 0 || c > hi) hi = c;
    }
    return hi > 0 ? (hi - lo) / hi : 0;
}

/* Rank 0, AMP's first step: the goal for the rest of the run, fixed at the first decision.
 * Returns 1 with out->why said when this interval end keeps without asking the policy. */
static int amp_goal(struct xmpi_ctx *cx, const struct xmpi_interval *s, double elapsed,
                    double left_iters, struct xmpi_reconfig_plan *out)
{
    struct xmpi_amp_state *st = &cx->amp;
    /* AMP starts from a balanced interval: before the balancer's moves take effect, an
     * interval is as slow as its slowest process and says little of the job's pace (the
     * static estimate from a first Jacobi interval on speeds 1 : 0.4 came out 64% too long,
     * from the interval right after the first move 12% too long). It waits for an interval
     * within the balancer's threshold that no move preceded, three intervals at most. A goal
     * in seconds needs no estimate, but its first decision waits as well: the model prices
     * the next interval from the last one, and an unbalanced one is as slow as its slowest
     * process (make bench-amp, GOAL_MODE=seconds). */
    double sec = 0, pct = 0;
    xmpi_options_goal(cx->opts.goal, &sec, &pct);
    /* Where the iterations began (the first interval's end minus its span): a PCT% goal is
     * that much off the iterations, as the thesis's static estimate (first interval x maxit)
     * is, not off the program's start-up (the epidemic builds its graph for most of a short
     * run on the slow classes). */
    if (!st->started) {
        st->started = 1;
        st->loop_start = s->elapsed - s->t_real_max > 0 ? s->elapsed - s->t_real_max : 0;
    }
    double imb = comp_imbalance(s);
    int settled = imb <= (double)cx->opts.lb_th1 / 100 && !cx->balance.st.moved;
    if (!(st->goal > 0) && !settled && st->waited < 3) {
        st->waited++;
        snprintf(out->why, sizeof out->why, "waiting for a balanced interval before %s "
                 "(imbalance %.1f%%%s): keeping", pct > 0 ? "estimating the run" : "deciding",
                 100 * imb, cx->balance.st.moved ? ", rows moved before it" : "");
        return 1;
    }
    /* The goal: seconds from MPI_Init, or PCT% sooner than the static estimate (this
     * interval's pace for the iterations left). */
    if (!(st->goal > 0)) {
        double per_iter = s->iterations > 0 ? s->t_real_max / s->iterations : 0;
        double estimate = elapsed + left_iters * per_iter;
        if (pct > 0) st->static_estimate = estimate;
        double t0 = st->loop_start < estimate ? st->loop_start : 0;
        st->goal = sec > 0 ? sec : t0 + (estimate - t0) * (1 - pct / 100);
        char how[160];
        if (pct > 0)
            snprintf(how, sizeof how, "%g%% sooner than the static estimate, %.4g s, for the "
                     "iterations from %.4g s on", pct, estimate, t0);
        else snprintf(how, sizeof how, "--xmpi-goal=%s", cx->opts.goal);
        xmpi_note(cx, 1, "amp: goal %.4g s from the start (%s), constraint %s, tol %ld%%",
                  st->goal, how, cx->opts.constraint ? "cost" : "efficiency", cx->opts.tol);
    }
    snprintf(out->event, sizeof out->event, "goal %.4g s", st->goal);
    if (cx->predict.warmup) {
        snprintf(out->why, sizeof out->why, "the new processes' first interval, a warm-up (Open "
                 "MPI's connections to them, cold caches): keeping, and deciding on the next");
        return 1;
    }
    if (!(left_iters / (double)cx->opts.si > 0)) {
        snprintf(out->why, sizeof out->why, "the last interval: nothing to gain");
        return 1;
    }
    return 0;
}

/* Rank 0: the pool by the model's classes: free PEs (free_pes) and the processes that may
 * leave (leavers: the spawned ones; any but one when the job can resize by checkpoint and
 * restart), with each class's power and cost per second. A class the model cannot price is neither grown onto nor
 * shrunk from. Returns the most powerful class with free PEs, or -1. */
static int amp_pool(struct xmpi_ctx *cx, struct xmpi_map_slot *free_pes, struct xmpi_map_slot *leavers)
{
    const struct xmpi_predict_model *m = &cx->predict.m;
    const struct xmpi_pool *pool = &cx->world.pool;
    const struct xmpi_sched *sc = &cx->world.sched;
    int nc = m->nclasses, add_class = -1, known[XMPIR_MODEL_CLASSES_MAX];
    for (int c = 0; c < nc; c++) {
        double power = 0;
        known[c] = xmpi_predict_class_power(m, c, &power) == XMPIR_MODEL_OK && power > 0;
        free_pes[c] = (struct xmpi_map_slot){0, known[c] ? power : 1, 0};
        leavers[c] = free_pes[c];
    }
    for (int h = 0; h < pool->nhosts; h++) {
        int c = cx->predict.host_class[h];
        if (c < 0 || c >= nc) continue;
        int room = pool->hosts[h].pes - pool->hosts[h].procs;
        free_pes[c].avail += room > 0 ? room : 0;
        free_pes[c].cost = leavers[c].cost = pool->hosts[h].cost / 3600;   /* per PE-hour -> per second */
    }
    for (int i = 0, left = cx->size - 1; i < sc->nprocs; i++) {
        int c = cx->predict.host_class[sc->procs[i].host];
        if (c >= 0 && c < nc && (sc->procs[i].group > 0 || xmpi_resize_possible(cx)) &&
            left > 0)
            leavers[c].avail++, left--;
    }
    for (int c = 0; c < nc; c++)
        if (!known[c]) free_pes[c].avail = leavers[c].avail = 0;
    for (int c = 0; c < nc; c++)
        if (free_pes[c].avail > 0 && (add_class < 0 || free_pes[c].power > free_pes[add_class].power)) add_class = c;
    return add_class;
}

/* --xmpi-verbose=2: the pool and the model's answers around the current size. */
static void amp_explain(struct xmpi_ctx *cx, struct amp_pricing *ap,
                        const struct xmpi_amp_input *in)
{
    const struct xmpi_predict_model *m = &cx->predict.m;
    char list[512];
    size_t used = 0;
    for (int c = 0; c < m->nclasses && used < sizeof list; c++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s: %d free, %d may leave, "
                                 "power %.4g, cost %.3g/s", c ? "; " : "", m->cls[c].name,
                                 in->free[c].avail, in->removable[c].avail, in->free[c].power,
                                 in->free[c].cost);
    xmpi_note(cx, 2, "amp: work %.4g per interval, power now %.4g; %s", in->work, in->power_now,
              list);
    for (int d = -2; d <= 2; d++) {
        double cm = -1, ov = -1;
        if (in->nprocs + d < 1) continue;
        amp_comm(ap, in->nprocs + d, &cm);
        if (d) amp_overhead(ap, d, &ov);
        xmpi_note(cx, 2, "amp: %+d processes: communication %.4g s per interval, overhead %.4g s",
                  d, cm, ov);
    }
}

/* Rank 0: AMP's state after its decision, and the decision as the plan of this interval. A
 * shrink waits for a second fast interval; an unreachable goal's tolerance counts from the
 * streak's first decision (amp.h). */
static void amp_adopt(struct xmpi_ctx *cx, const struct xmpi_amp_plan *plan, const int *counts,
                      struct xmpi_reconfig_plan *out)
{
    struct xmpi_amp_state *st = &cx->amp;
    const struct xmpi_predict_model *m = &cx->predict.m;
    st->fast_streak = plan->verdict < 0 && plan->action == XMPIR_PLAN_KEEP ? st->fast_streak + 1
                                                                           : 0;
    if (!plan->unreachable) st->anchor = 0;
    else if (!(st->anchor > 0) && plan->fastest > 0) st->anchor = plan->fastest;
    if (plan->unreachable && !st->unreachable_said) {
        xmpi_note(cx, 0, "amp: the goal of %.4g s cannot be met (predicted %.4g s at best); "
                  "running the fastest configuration", st->goal, plan->completion);
        st->unreachable_said = 1;
    }
    snprintf(out->why, sizeof out->why, "%s", plan->why);
    if (plan->action == XMPIR_PLAN_KEEP || plan->n < 1) return;
    out->action = plan->action;
    out->count = plan->n;
    for (int c = 0; c < m->nclasses && out->nclasses < XMPIR_PLAN_CLASSES; c++) {
        if (counts[c] < 1) continue;
        snprintf(out->classes[out->nclasses], sizeof out->classes[0], "%s", m->cls[c].name);
        out->class_count[out->nclasses++] = counts[c];
    }
    snprintf(out->cls, sizeof out->cls, "%s", out->nclasses ? out->classes[0] : "");
}

/* Rank 0, AMP (thesis Algorithm 8): the goal, the job and the pool by class, and the pure
 * decision (policies/amp.c) with the model's answers. */
static void decide_amp(struct xmpi_ctx *cx, struct pricing *pr, struct xmpi_reconfig_plan *out)
{
    const struct xmpi_app *app = pr->app;
    int nc = cx->predict.m.nclasses, p = cx->size;
    double elapsed = PMPI_Wtime() - cx->t0;
    double left_iters = (double)app->maxit - app->it - 1;
    if (!pr->rank_class || nc < 1) {
        snprintf(out->why, sizeof out->why, "no model of the classes: keeping");
        return;
    }
    if (amp_goal(cx, pr->s, elapsed, left_iters, out)) return;
    struct xmpi_prediction now;
    if (predict_delta(pr, 0, 0, &now) || !(now.t_comp > 0) || !(now.work > 0)) {
        snprintf(out->why, sizeof out->why, "amp: the model cannot predict this interval: keeping");
        return;
    }
    struct xmpi_map_slot free_pes[XMPIR_MODEL_CLASSES_MAX], leavers[XMPIR_MODEL_CLASSES_MAX];
    int add_class = amp_pool(cx, free_pes, leavers);
    double cost_now = xmpi_world_cost_rate(&cx->world);
    int room = cx->opts.max_procs > 0 ? (int)cx->opts.max_procs - p : 1 << 20;
    struct amp_pricing price = {pr, add_class < 0 ? 0 : add_class,
                             now.iterations > 0 ? (double)cx->opts.si / now.iterations : 1, 0, -2,
                             {0}};
    struct xmpi_amp_input input = {
        .goal = cx->amp.goal, .elapsed = elapsed,
        .intervals_left = left_iters / (double)cx->opts.si, .tol = (double)cx->opts.tol / 100,
        .constraint = cx->opts.constraint ? XMPIR_MAP_COST : XMPIR_MAP_EFFICIENCY,
        .work = now.work * price.scale, .power_now = now.work / now.t_comp,
        .cost_now = cost_now > 0 ? cost_now : 0,
        .nprocs = p, .max_spawn = room > 0 ? room : 0, .free = free_pes, .nfree = nc,
        .removable = leavers, .nremovable = nc, .fast_streak = cx->amp.fast_streak,
        .anchor = cx->amp.anchor};
    struct xmpi_amp_model model = {&price, amp_comm, amp_overhead};
    if (cx->opts.verbose >= 2) amp_explain(cx, &price, &input);
    int counts[XMPIR_MODEL_CLASSES_MAX] = {0};
    struct xmpi_amp_plan plan = {.count = counts};
    if (xmpi_policy_amp(&input, &model, &plan)) {
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: amp: %s", plan.why);
        return;
    }
    amp_adopt(cx, &plan, counts, out);
}

/* Rank 0: the event, in the policy's terms; 0 when there is none to act on. */
static int read_event(struct xmpi_ctx *cx, struct xmpi_event *ev, char *cls, size_t len,
                      char *event, size_t elen)
{
    XMPI_System_status st;
    char err[512] = "";
    memset(ev, 0, sizeof *ev);
    if (xmpi_rms_poll(cx, &st, err, sizeof err)) {
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: the resource manager cannot be read (%s); no "
                  "reconfiguration this interval", err);
        return 0;
    }
    if (st.action == XMPI_SYSTEM_NONE) return 0;
    int host = xmpi_pool_find_class(&cx->world.pool, st.node_class);
    if (host < 0) {
        char classes[256];
        xmpi_pool_classes(&cx->world.pool, classes, sizeof classes);
        snprintf(event, elen, "%s %d %s", st.action == XMPI_SYSTEM_SPAWN ? "offer" : "reclaim",
                 st.nprocs, st.node_class);
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: the resource manager %s %d PE(s) of class '%s', "
                  "which the job's pool does not have (classes: %s); ignored",
                  st.action == XMPI_SYSTEM_SPAWN ? "offers" : "reclaims", st.nprocs,
                  st.node_class, classes);
        return 0;
    }
    ev->kind = st.action == XMPI_SYSTEM_SPAWN ? XMPIR_EVENT_OFFER : XMPIR_EVENT_RECLAIM;
    snprintf(event, elen, "%s %d %s", ev->kind == XMPIR_EVENT_OFFER ? "offer" : "reclaim",
             st.nprocs, st.node_class);
    ev->count = st.nprocs;
    ev->cls = cx->predict.host_class ? cx->predict.host_class[host] : 0;
    snprintf(cls, len, "%s", st.node_class);
    return 1;
}

/* Rank 0: the processes of class `cls` that may leave: the spawned ones, or, when the job
 * can be relaunched, all of them as long as one process stays. */
static int removable(const struct xmpi_ctx *cx, const char *cls)
{
    if (xmpi_resize_possible(cx)) return xmpi_resize_removable(cx, cls);
    const struct xmpi_sched *sc = &cx->world.sched;
    int n = 0;
    for (int i = 0; i < sc->nprocs; i++)
        if (sc->procs[i].group > 0 && !strcmp(cx->world.pool.hosts[sc->procs[i].host].cls, cls))
            n++;
    return n;
}

/* The model's class index of pool class `name`, -1 when unknown. */
static int model_class(const struct xmpi_ctx *cx, const char *name)
{
    int h = xmpi_pool_find_class(&cx->world.pool, name);
    return h >= 0 && cx->predict.host_class ? cx->predict.host_class[h] : -1;
}

/* Rank 0, after the policy chose a spawn or a removal: how it is carried out. */
static void choose_way(struct xmpi_ctx *cx, struct pricing *pr, struct xmpi_reconfig_plan *out)
{
    int grow = out->action == XMPIR_PLAN_SPAWN, delta = grow ? out->count : -out->count;
    /* The class: the plan's only one (AMP's several classes: the first, for the price). */
    int cls = model_class(cx, out->nclasses ? out->classes[0] : out->cls);
    /* A removal over several classes: the spawned processes of each must suffice. */
    int dyn = out->nclasses > 1 ? 1 : dynamic_ok(cx, delta, cls);
    for (int c = 0; c < out->nclasses && out->nclasses > 1; c++)
        dyn &= dynamic_ok(cx, grow ? out->class_count[c] : -out->class_count[c],
                          model_class(cx, out->classes[c]));
    struct xmpi_prediction pred;
    int priced = xmpi_resize_possible(cx) && cx->opts.resize == XMPIR_RESIZE_AUTO && cls >= 0 &&
                 !predict_delta(pr, delta, cls, &pred);
    double t_dyn, t_cr;
    char why[200];
    enum xmpi_resize_way w = way_of(cx, delta, dyn, priced ? &pred : NULL, &t_dyn, &t_cr, why,
                                    sizeof why);
    size_t k = strlen(out->why);
    snprintf(out->why + k, sizeof out->why - k, "%s%s", k ? "; " : "", why);
    if (w == XMPIR_WAY_NONE) {
        out->action = XMPIR_PLAN_KEEP;
        out->count = 0;
    }
    out->restart = w == XMPIR_WAY_RESTART;
}

static void decide_root(struct xmpi_ctx *cx, struct pricing *pr, struct xmpi_reconfig_plan *out)
{
    struct xmpi_event ev;
    int got = read_event(cx, &ev, out->cls, sizeof out->cls, out->event, sizeof out->event);
    /* AMP decides from the pool at every interval end; a reclaim is still obeyed. */
    if (cx->opts.policy == XMPIR_POLICY_AMP && !(got && ev.kind == XMPIR_EVENT_RECLAIM)) {
        memset(out, 0, sizeof *out);
        decide_amp(cx, pr, out);
        return;
    }
    if (!got) return;
    struct xmpi_job job = {cx->size, (int)cx->opts.max_procs, removable(cx, out->cls),
                           (double)cx->opts.hpmp_gain / 100};
    struct xmpi_plan plan;
    int rc;
    if (cx->opts.policy == XMPIR_POLICY_HPMP) {
        pr->cls = ev.cls;
        double times[65];
        rc = xmpi_policy_hpmp(&job, &ev, price, pr, times, 65, &plan);
        if (!rc && plan.candidates > 1 && cx->opts.verbose >= 1) {
            char list[512];
            size_t used = 0;
            for (int k = 0; k < plan.candidates && k < 65 && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%d:%.4g",
                                         k ? " " : "", k, times[k]);
            xmpi_note(cx, 1, "hpmp: predicted seconds to the end for s processes more: %s", list);
        }
    } else {
        rc = xmpi_policy_smp(&job, &ev, &plan);
    }
    if (rc) {
        xmpi_note(cx, 0, "XMPI_Eval_reconfig: %s", plan.why);
        return;
    }
    out->action = plan.action;
    out->count = plan.count;
    snprintf(out->why, sizeof out->why, "%s", plan.why);
}

void xmpi_policy_decide(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                        const struct xmpi_app *app, struct xmpi_reconfig_plan *out)
{
    int p = cx->size;
    struct pricing pr = {.cx = cx, .s = s, .app = app};
    memset(out, 0, sizeof *out);
    /* HPMP prices the redistribution of the registered structures: their description is
     * collective, so every process takes part before rank 0 decides. */
    int hpmp = cx->opts.policy == XMPIR_POLICY_HPMP || cx->opts.policy == XMPIR_POLICY_AMP ||
               (xmpi_resize_possible(cx) && cx->opts.resize == XMPIR_RESIZE_AUTO);
    int root = cx->rank == 0 && cx->world.have_sched;
    if (hpmp && root && cx->predict.on) pr.part = malloc(sizeof *pr.part * 2 * (size_t)p);
    if (hpmp) pr.nd = xmpi_registry_describe(cx, pr.d, MAXD, pr.part, pr.part ? pr.part + p : NULL);
    if (pr.part) {
        pr.rank_class = malloc(sizeof *pr.rank_class * 2 * (size_t)p);
        pr.new_class = malloc(sizeof *pr.new_class * MAXNEW);
        if (pr.rank_class && pr.new_class &&
            !xmpi_predict_rank_classes(&cx->predict, &cx->world.sched, pr.rank_class, p)) {
            pr.group = pr.rank_class + p;
            for (int i = 0; i < p; i++) pr.group[i] = cx->world.sched.procs[i].group;
        } else {
            free(pr.rank_class);
            pr.rank_class = NULL;
        }
    }
    if (root) decide_root(cx, &pr, out);
    if (root && out->action != XMPIR_PLAN_KEEP) choose_way(cx, &pr, out);
    /* Every event the resource manager raised gets its answer, taken or not. */
    if (root && out->why[0])
        xmpi_note(cx, 1, "interval %d: %s: %s", s->index, xmpi_policy_name(cx->opts.policy),
                  out->why);
    free(pr.part);
    free(pr.rank_class);
    free(pr.new_class);
    PMPI_Bcast(out, (int)sizeof *out, MPI_BYTE, 0, cx->comm);
}
