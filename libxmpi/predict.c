/* The prediction model at run time (rank 0): the calibration in use, the model observing
 * every interval, and before a spawn or removal the prediction of the next interval, which
 * the trace row of that interval compares with what the sink measured. */
#include "predict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/trace.h"
#include "context.h"

int xmpi_predict_calibrate(struct xmpi_predict_rt *md, const char *path, char *err, size_t errlen)
{
    xmpi_calibration_defaults(&md->cal);
    md->source[0] = '\0';
    md->defaulted = XMPIR_CAL_ALL;
    if (!path || !path[0]) return 0;
    struct xmpi_calibration c;
    unsigned def = 0;
    char perr[900];
    if (xmpi_calibration_load(&c, path, &def, perr, sizeof perr)) {
        snprintf(err, errlen, "xmpi: option --xmpi-calibration: %s", perr);
        return -1;
    }
    md->cal = c;
    md->defaulted = def;
    snprintf(md->source, sizeof md->source, "%s", path);
    return 0;
}

int xmpi_predict_load_profile(struct xmpi_predict_rt *md, const char *path, char *err, size_t errlen)
{
    free(md->profile);
    md->profile = NULL;
    md->nprofile = 0;
    if (!path || !path[0]) return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "xmpi: option --xmpi-work-profile: cannot read '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    char perr[900];
    int rc = xmpi_trace_read_profile(f, path, &md->profile, &md->nprofile, perr, sizeof perr);
    fclose(f);
    if (rc) snprintf(err, errlen, "xmpi: option --xmpi-work-profile: %s", perr);
    return rc;
}

void xmpi_predict_describe(const struct xmpi_predict_rt *md, char *buf, size_t len)
{
    if (!md->source[0]) {
        snprintf(buf, len, "calibration: defaults (measured on the project's machine)");
        return;
    }
    char names[256];   /* every key: about 170 characters */
    xmpi_calibration_defaulted_names(md->defaulted, names, sizeof names);
    if (names[0]) snprintf(buf, len, "calibration: %s (defaults for %s)", md->source, names);
    else snprintf(buf, len, "calibration: %s", md->source);
}

void xmpi_predict_start(struct xmpi_ctx *cx, const struct xmpi_pool *pool, int spawn_group)
{
    struct xmpi_predict_rt *md = &cx->predict;
    char *names[XMPIR_MODEL_CLASSES_MAX];
    double speeds[XMPIR_MODEL_CLASSES_MAX];
    md->on = 0;
    md->host_class = malloc(sizeof *md->host_class * (size_t)(pool->nhosts ? pool->nhosts : 1));
    if (!md->host_class) return;
    int n = xmpi_config_classes(pool, md->host_class, names, speeds, XMPIR_MODEL_CLASSES_MAX);
    if (n < 0) {
        xmpi_note(cx, 1, "prediction model: more than %d node classes; the model is off",
                  XMPIR_MODEL_CLASSES_MAX);
        return;
    }
    xmpi_predict_init(&md->m, &md->cal, spawn_group);
    md->m.spawn_async = cx->async;   /* rank 0's helper thread spawns: the job pays the join */
    /* The cores the job's processes share, for the spawned link's crowding (hockney.h): this
     * host's, times the distinct host names of the pool (taken to be alike; names compared as
     * the scheduler and --xmpi-yield compare them). */
    int distinct = 0;
    for (int h = 0; h < pool->nhosts; h++) {
        int seen = 0;
        for (int k = 0; k < h && !seen; k++)
            seen = !strcmp(pool->hosts[k].name, pool->hosts[h].name);
        distinct += !seen;
    }
    md->m.cal.spawned.cores = (double)xmpi_local_pes() * (distinct > 0 ? distinct : 1);
    md->m.lb_tolerance = (double)cx->opts.lb_th1 / 100;
    /* Speed 0 in the resource file is a real, whole core: next to emulated classes it is
     * speed 1, so that a class never measured is priced relative to the measured ones. */
    int emulated = 0;
    for (int c = 0; c < n; c++) emulated |= speeds[c] > 0;
    for (int c = 0; c < n; c++)
        if (emulated && !(speeds[c] > 0)) speeds[c] = 1;
    for (int c = 0; c < n; c++)
        if (xmpi_predict_add_class(&md->m, names[c], speeds[c]) != c) {
            xmpi_note(cx, 1, "prediction model: class '%s' not taken in; the model is off",
                      names[c]);
            return;
        }
    if (md->profile) xmpi_predict_set_profile(&md->m, md->profile, md->nprofile);
    md->on = 1;
}

int xmpi_predict_rank_classes(const struct xmpi_predict_rt *md, const struct xmpi_sched *s,
                              int *cls, int n)
{
    if (!md->host_class || !s || n != s->nprocs) return -1;
    for (int i = 0; i < n; i++) cls[i] = md->host_class[s->procs[i].host];
    return 0;
}

/* --xmpi-lb=time and no work measured (none declared, no PAPI): the work of each rank is its
 * compute time at rank 0's speed (the balancer's cost units: balance.h, "slow"), so that
 * the model's computation term, work over the processes' summed power, is the time of a
 * configuration whose rows are split by cost, however uneven the rows. Returns s itself
 * when the work is measured; else *out, whose records *rec (malloc'ed) the caller frees. */
static const struct xmpi_interval *timed_work(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                                              struct xmpi_interval *out,
                                              struct xmpi_rank_record **rec)
{
    *rec = NULL;
    if (cx->opts.lb != XMPIR_LB_TIME || s->work_sum > 0 || !s->ranks || s->nprocs < 1) return s;
    struct xmpi_rank_record *r = malloc(sizeof *r * (size_t)s->nprocs);
    if (!r) return s;
    const struct xmpi_balance_rt *lb = &cx->balance;
    int speeds = lb->slow && lb->prev_p == s->nprocs;
    for (int i = 0; i < s->nprocs; i++) {
        r[i] = s->ranks[i];
        double comp = r[i].t_real - r[i].comm_time;
        r[i].work = comp > 0 ? comp / (speeds ? lb->slow[i] : 1) : 0;
    }
    xmpi_interval_reduce(out, r, s->nprocs);
    out->index = s->index;
    out->iteration = s->iteration;
    *rec = r;
    return out;
}

/* The computation of interval s as the model speaks of it: one process of a balanced
 * configuration, the mean over the ranks of wall time outside MPI. */
static double mean_comp(const struct xmpi_interval *s)
{
    double comp = 0;
    for (int r = 0; r < s->nprocs; r++) comp += s->ranks[r].t_real - s->ranks[r].comm_time;
    return s->nprocs > 0 ? comp / s->nprocs : 0;
}

/* The computation measured over md->p's iterations against md->p's, for a job changed by
 * delta processes (xmpi_predict_learn_comp). */
static void learn_comp(struct xmpi_ctx *cx, double comp, int delta)
{
    struct xmpi_predict_rt *md = &cx->predict;
    if (xmpi_predict_learn_comp(&md->m, &md->p, delta, comp) == XMPIR_MODEL_OK)
        xmpi_note(cx, 2, "prediction model: %+d processes computed %.4g s where %.4g s was "
                  "predicted; the computation now scales by %.4g per process gained",
                  delta, comp, md->p.t_comp, exp(md->m.learned.comp_k));
}

/* A spawn's lag, from the interval s just measured (model.h): the intervals an asynchronous
 * spawn ran beside (world.pending) lose against the pace before it; the new processes' first
 * interval (warmup) against the next. The model learns the sum once that next interval is
 * in; anything else in between (another spawn, a removal, a failed spawn) drops it. */
static void observe_lag(struct xmpi_ctx *cx, const struct xmpi_interval *s)
{
    struct xmpi_predict_rt *md = &cx->predict;
    double per = s->iterations > 0 ? s->t_real_max / s->iterations : 0;
    if (cx->world.pending) {
        if (md->lag.state != 1) {
            md->lag.state = 1;
            md->lag.loss = 0;
            md->lag.pace = md->last_pace;
            md->lag.procs = md->last_procs;
        }
        if (md->lag.pace > 0 && per > 0 && s->nprocs == md->lag.procs)
            md->lag.loss += s->t_real_max - md->lag.pace * s->iterations;
    } else if (md->warmup) {
        if (md->lag.state != 1) md->lag.loss = 0;   /* a blocking spawn: nothing ran beside */
        md->lag.state = per > 0 ? 2 : 0;
        md->lag.warm_pace = per;
        md->lag.warm_iters = s->iterations;
        md->lag.procs = s->nprocs;
    } else if (md->lag.state == 2 && per > 0 && s->nprocs == md->lag.procs) {
        double lost = md->lag.loss + (md->lag.warm_pace - per) * md->lag.warm_iters;
        xmpi_predict_learn_lag(&md->m, lost);
        xmpi_note(cx, 2, "prediction model: the last spawn cost the iterations %.4g s beyond "
                  "itself (%.4g s beside it, %.4g s warming up); a spawn's lag is now %.4g s",
                  lost, md->lag.loss, lost - md->lag.loss, md->m.learned.lag);
        /* The spawn's computation, warmed up, against its prediction (still md->p: nothing
         * was predicted since). */
        if (md->p.nprocs == s->nprocs && md->p.nspawn > 0 && !md->p.nremove && s->ranks &&
            md->p.iterations > 0)
            learn_comp(cx, mean_comp(s) * md->p.iterations / s->iterations, md->p.nspawn);
        md->lag.state = 0;
    } else {
        md->lag.state = 0;
    }
    md->last_pace = per;
    md->last_procs = s->nprocs;
}

/* The interval after an action's first one (md->first): the warm-up is their difference, and
 * after a removal this one tells the settled computation. */
static void observe_first(struct xmpi_ctx *cx, const struct xmpi_interval *s)
{
    struct xmpi_predict_rt *md = &cx->predict;
    int armed = md->first.armed;
    md->first.armed = 0;
    if (!armed || s->index != md->first.index + 1 || s->nprocs != md->first.procs || !s->ranks ||
        !(s->iterations > 0))
        return;
    double comp = mean_comp(s) / s->iterations, comm = xmpi_interval_comm_time(s) / s->iterations;
    int k = md->first.kind;
    if (xmpi_predict_learn_warmup(&md->m, k, md->first.comp, md->first.comm, comp, comm) ==
        XMPIR_MODEL_OK)
        xmpi_note(cx, 2, "prediction model: the first interval after the %s computed %.4g s and "
                  "communicated %.4g s per iteration, the next %.4g and %.4g; a %s's first "
                  "interval now computes %.4g times the settled one and communicates %+.4g s "
                  "per iteration more", k ? "removal" : "spawn", md->first.comp, md->first.comm,
                  comp, comm, k ? "removal" : "spawn", exp(md->m.learned.warm_comp[k]),
                  md->m.learned.warm_comm[k]);
    /* A spawn's settled computation is learned with its lag (observe_lag). */
    if (k == 1 && md->p.nremove > 0 && !md->p.nspawn && md->p.iterations > 0)
        learn_comp(cx, comp * md->p.iterations, -md->p.nremove);
}

void xmpi_predict_feed(struct xmpi_ctx *cx, const struct xmpi_interval *s)
{
    struct xmpi_predict_rt *md = &cx->predict;
    if (!md->on || !s) return;
    observe_lag(cx, s);
    observe_first(cx, s);
    struct xmpi_interval timed;
    struct xmpi_rank_record *rec;
    s = timed_work(cx, s, &timed, &rec);
    int *cls = malloc(sizeof *cls * (size_t)s->nprocs);
    const struct xmpi_sched *sc = cx->world.have_sched ? &cx->world.sched : NULL;
    int known = cls && xmpi_predict_rank_classes(md, sc, cls, s->nprocs) == 0;
    if (xmpi_predict_observe(&md->m, s, known ? cls : NULL) == XMPIR_MODEL_OK) {
        md->observed = s->index;
        /* Processes of several spawns (mpirun's are one) talk over the spawned link. */
        int mixed = 0;
        for (int i = 1; sc && known && i < sc->nprocs; i++)
            mixed |= sc->procs[i].group != sc->procs[0].group;
        if (!md->warmup) xmpi_predict_observe_link(&md->m, s, mixed);
        else xmpi_note(cx, 2, "prediction model: interval %d is the new processes' first: the "
                       "link is not learned from it", s->index);
    }
    free(cls);
    free(rec);
}

void xmpi_predict_plan(struct xmpi_ctx *cx, const char *action, const struct xmpi_interval *s,
                       long iteration, const struct xmpi_config_change *ch, const int *rank_class,
                       const struct xmpi_struct_desc *d, int nd, const long *count,
                       const long *displ)
{
    struct xmpi_predict_rt *md = &cx->predict;
    if (!md->on) return;
    if (md->pending)
        xmpi_note(cx, 2, "prediction model: the prediction for the %s at iteration %ld is "
                  "dropped (another action came before a whole interval)", md->action, md->after);
    md->pending = 0;
    md->first.armed = 0;
    if (!s || s->index != md->observed) {
        xmpi_note(cx, 2, "prediction model: no interval observed yet; the %s is not predicted",
                  action);
        return;
    }
    struct xmpi_predict_request rq = {
        .interval = s, .current = ch->current, .candidate = ch->candidate, .structs = d,
        .nstructs = count && displ ? nd : 0,
        .part = {cx->size, count, displ, NULL}, .rank_class = rank_class, .next = NULL,
        .mixed_now = ch->mixed_now, .mixed_next = ch->mixed_next};
    int rc = xmpi_predict_interval(&md->m, &rq, &md->p);
    if (rc != XMPIR_MODEL_OK) {
        xmpi_note(cx, 1, "prediction model: cannot predict the %s (%s)", action,
                  rc == XMPIR_MODEL_ENODATA ? "no power or work measured yet" : "bad input");
        return;
    }
    snprintf(md->action, sizeof md->action, "%s", action);
    md->after = iteration;
    md->reconf_base = cx->journal.reconf_seconds;
    md->redist_base = cx->journal.redist_seconds;
    md->pending = 1;
    xmpi_note(cx, 1, "prediction model: %s to %d processes at iteration %ld: the next %g "
              "iterations should take %.4g s computing, %.4g s communicating; the %s %.4g s and "
              "the redistribution %.4g s (%.3g MB)", action, md->p.nprocs, iteration,
              md->p.iterations, md->p.t_comp, md->p.t_comm, action, md->p.t_spawn + md->p.t_remove,
              md->p.t_redist, md->p.redist_bytes / 1e6);
}

void xmpi_predict_row(struct xmpi_ctx *cx, const struct xmpi_interval *s, const char *action,
                      struct xmpi_trace_model *row)
{
    struct xmpi_predict_rt *md = &cx->predict;
    memset(row, 0, sizeof *row);
    row->calibration = md->source[0] ? md->source : "defaults";
    if (!md->pending || !s || (double)s->iteration - s->iterations < (double)md->after) return;
    md->pending = 0;
    if (!(s->iterations > 0) || s->nprocs != md->p.nprocs) {
        xmpi_note(cx, 1, "prediction model: the interval after the %s has %d processes, not the "
                  "%d predicted; not compared", md->action, s->nprocs, md->p.nprocs);
        return;
    }
    /* The model speaks of one process of a balanced configuration: its compute time is the
     * mean over the ranks of wall time outside MPI, its communication the mean time inside.
     * A last, shorter interval is compared per iteration. */
    double scale = md->p.iterations > 0 ? s->iterations / md->p.iterations : 1;
    row->compared = 1;
    snprintf(row->predicted_for, sizeof row->predicted_for, "%s", md->action);
    row->pred_comp = md->p.t_comp * md->p.warm_comp * scale;
    row->meas_comp = mean_comp(s);
    row->pred_comm = (md->p.t_comm + md->p.warm_comm) * scale;
    row->meas_comm = xmpi_interval_comm_time(s);
    row->pred_reconf = md->p.t_spawn + md->p.t_remove;
    row->meas_reconf = cx->journal.reconf_seconds - md->reconf_base;
    row->pred_redist = md->p.t_redist;
    row->meas_redist = cx->journal.redist_seconds - md->redist_base;
    /* The job's own costs price its next actions (predict.h, xmpi_predict_learn). */
    xmpi_predict_learn(&md->m, &md->p, row->meas_reconf, row->meas_redist);
    /* The next interval, if this one's end leaves the job as it is, tells the warm-up and
     * the settled computation (observe_first). */
    if ((md->p.nspawn > 0) != (md->p.nremove > 0) && (!action || !strcmp(action, "none")) &&
        s->iterations > 0) {
        md->first.armed = 1;
        md->first.kind = md->p.nremove > 0;
        md->first.index = s->index;
        md->first.procs = s->nprocs;
        md->first.comp = row->meas_comp / s->iterations;
        md->first.comm = row->meas_comm / s->iterations;
    }
    xmpi_note(cx, 1, "prediction model: after the %s, interval %d: computing %.4g s (predicted "
              "%.4g), communicating %.4g s (%.4g), %s %.4g s (%.4g), redistribution %.4g s "
              "(%.4g)", md->action, s->index, row->meas_comp, row->pred_comp, row->meas_comm,
              row->pred_comm, md->action, row->meas_reconf, row->pred_reconf, row->meas_redist,
              row->pred_redist);
}

void xmpi_predict_free(struct xmpi_predict_rt *md)
{
    free(md->host_class);
    md->host_class = NULL;
    free(md->profile);
    md->profile = NULL;
    md->nprofile = 0;
    md->on = 0;
    md->pending = 0;
}
