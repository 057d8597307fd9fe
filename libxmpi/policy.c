/* The malleability policy's decide step: rank 0 polls the resource manager, describes the
 * job to the pure policy (policies/malleability.c) and, for HPMP, prices each candidate with
 * the prediction model: the remaining iterations at the predicted time per iteration, plus
 * the spawn and the redistribution. The decision is broadcast. */
#include "policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/config.h"
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

/* The time to the end of the run with k more processes of the offered class (the next
 * interval when the program gave no maxit). */
static int price(void *arg, int k, double *seconds)
{
    struct pricing *pr = arg;
    struct xmpi_ctx *cx = pr->cx;
    int p = cx->size;
    /* Without the ranks' classes (no pool, the model off) nothing can be priced. */
    if (!pr->rank_class || k > MAXNEW) return -1;
    for (int i = 0; i < k; i++) pr->new_class[i] = pr->cls;
    struct xmpi_config_change ch;
    if (xmpi_config_change(p, pr->rank_class, pr->group, pr->new_class, k, NULL, 0, &ch))
        return -1;
    struct xmpi_predict_request rq = {
        .interval = pr->s, .current = ch.current, .candidate = ch.candidate, .structs = pr->d,
        .nstructs = pr->nd, .part = {p, pr->nd ? pr->part : NULL, pr->nd ? pr->part + p : NULL},
        .rank_class = pr->rank_class, .next = NULL, .mixed_now = ch.mixed_now,
        .mixed_next = ch.mixed_next};
    struct xmpi_prediction out;
    if (xmpi_model_predict(&cx->model.m, &rq, &out) != XMPIR_MODEL_OK || !(out.iterations > 0))
        return -1;
    double per_iter = (out.t_comp + out.t_comm) / out.iterations;
    double left = pr->app->maxit > 0 ? (double)pr->app->maxit - pr->app->it - 1 : out.iterations;
    if (left < 0) left = 0;
    *seconds = per_iter * left + out.t_spawn + out.t_remove + out.t_redist;
    return 0;
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
    ev->cls = cx->model.host_class ? cx->model.host_class[host] : 0;
    snprintf(cls, len, "%s", st.node_class);
    return 1;
}

/* Rank 0: spawned processes of class `cls` (the ones that may leave). */
static int removable(const struct xmpi_ctx *cx, const char *cls)
{
    const struct xmpi_sched *sc = &cx->world.sched;
    int n = 0;
    for (int i = 0; i < sc->nprocs; i++)
        if (sc->procs[i].group > 0 && !strcmp(cx->world.pool.hosts[sc->procs[i].host].cls, cls))
            n++;
    return n;
}

static void decide_root(struct xmpi_ctx *cx, struct pricing *pr, struct xmpi_reconfig_plan *out)
{
    struct xmpi_event ev;
    if (!read_event(cx, &ev, out->cls, sizeof out->cls, out->event, sizeof out->event)) return;
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
    int hpmp = cx->opts.policy == XMPIR_POLICY_HPMP;
    int root = cx->rank == 0 && cx->world.have_sched;
    if (hpmp && root && cx->model.on) pr.part = malloc(sizeof *pr.part * 2 * (size_t)p);
    if (hpmp) pr.nd = xmpi_registry_describe(cx, pr.d, MAXD, pr.part, pr.part ? pr.part + p : NULL);
    if (pr.part) {
        pr.rank_class = malloc(sizeof *pr.rank_class * 2 * (size_t)p);
        pr.new_class = malloc(sizeof *pr.new_class * MAXNEW);
        if (pr.rank_class && pr.new_class &&
            !xmpi_rtmodel_rank_classes(&cx->model, &cx->world.sched, pr.rank_class, p)) {
            pr.group = pr.rank_class + p;
            for (int i = 0; i < p; i++) pr.group[i] = cx->world.sched.procs[i].group;
        } else {
            free(pr.rank_class);
            pr.rank_class = NULL;
        }
    }
    if (root) decide_root(cx, &pr, out);
    /* Every event the resource manager raised gets its answer, taken or not. */
    if (root && out->why[0])
        xmpi_note(cx, 1, "interval %d: %s: %s", s->index, xmpi_policy_name(cx->opts.policy),
                  out->why);
    free(pr.part);
    free(pr.rank_class);
    free(pr.new_class);
    PMPI_Bcast(out, (int)sizeof *out, MPI_BYTE, 0, cx->comm);
}
