/* The prediction model at run time (rank 0): the model observes every interval; before a spawn
 * or removal it predicts the next interval, and the trace row of that interval compares. */
#include "predictor.h"

#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "monitor.h"
#include "runtime.h"

static struct {
    int on;
    struct xmpi_model m;
    int observed;             /* index of the last interval the model took in */
    /* The prediction waiting for its interval. */
    int pending;
    char action[16];
    long after;               /* compare with the first interval starting at or after this */
    struct xmpi_prediction p;
    double reconf;            /* measured spawn/remove seconds */
    double redist;            /* measured redistribution seconds since the plan */
    int reconf_done;
} P;

void xmpi_predictor_start(char *const *names, const double *speeds, int nclasses,
                          int spawn_group)
{
    memset(&P, 0, sizeof P);
    xmpi_model_init(&P.m, xmpi_calib_get(), spawn_group);
    for (int c = 0; c < nclasses; c++)
        if (xmpi_model_add_class(&P.m, names[c], speeds ? speeds[c] : 0) != c) {
            xmpi_note(1, "prediction model: class '%s' not taken in; the model is off", names[c]);
            return;
        }
    P.on = 1;
}

void xmpi_predictor_observe(const struct xmpi_interval *s, const int *rank_class)
{
    if (!P.on || !s) return;
    if (xmpi_model_observe(&P.m, s, rank_class) == XMPI_MODEL_OK) P.observed = s->index;
}

void xmpi_predictor_plan(const char *action, long iteration, const int *current,
                         const int *candidate, const int *rank_class,
                         const struct xmpi_struct_desc *d, int nd, const long *count,
                         const long *displ, int nparts, int mixed_now, int mixed_next)
{
    if (!P.on) return;
    const struct xmpi_interval *s = xmpi_monitor_summary();
    if (P.pending)
        xmpi_note(2, "prediction model: the prediction for the %s at iteration %ld is dropped "
                  "(another action came before a whole interval)", P.action, P.after);
    P.pending = 0;
    if (!s || s->index != P.observed) {
        xmpi_note(2, "prediction model: no interval observed yet; the %s is not predicted", action);
        return;
    }
    struct xmpi_predict_request rq = {
        .interval = s, .current = current, .candidate = candidate, .structs = d,
        .nstructs = count && displ ? nd : 0,
        .part = {nparts, count, displ}, .rank_class = rank_class, .next = NULL,
        .mixed_now = mixed_now, .mixed_next = mixed_next};
    int rc = xmpi_model_predict(&P.m, &rq, &P.p);
    if (rc != XMPI_MODEL_OK) {
        xmpi_note(1, "prediction model: cannot predict the %s (code %d: %s)", action, rc,
                  rc == XMPI_MODEL_ENODATA ? "no power or work measured yet" : "bad input");
        return;
    }
    snprintf(P.action, sizeof P.action, "%s", action);
    P.after = iteration;
    P.reconf = P.redist = 0;
    P.reconf_done = 0;
    P.pending = 1;
    xmpi_note(1, "prediction model: %s to %d processes at iteration %ld: the next %g iterations "
              "should take %.4g s computing, %.4g s communicating; the %s %.4g s and the "
              "redistribution %.4g s (%.3g MB)", action, P.p.nprocs, iteration, P.p.iterations,
              P.p.t_comp, P.p.t_comm, action, P.p.t_spawn + P.p.t_remove, P.p.t_redist,
              P.p.redist_bytes / 1e6);
}

void xmpi_predictor_reconfigured(double seconds)
{
    if (!P.pending || P.reconf_done) return;
    P.reconf = seconds - P.redist;
    P.reconf_done = 1;
}

void xmpi_predictor_moved(double seconds)
{
    if (P.pending) P.redist += seconds;
}

void xmpi_predictor_row(const struct xmpi_interval *s, struct xmpi_trace_model *row)
{
    memset(row, 0, sizeof *row);
    const char *src = xmpi_calib_source();
    row->calibration = src && src[0] ? src : "defaults";
    if (!P.pending || !s || (double)s->iteration - s->iterations < (double)P.after) return;
    P.pending = 0;
    if (!(s->iterations > 0) || s->nprocs != P.p.nprocs) {
        xmpi_note(1, "prediction model: the interval after the %s has %d processes, not the %d "
                  "predicted; not compared", P.action, s->nprocs, P.p.nprocs);
        return;
    }
    /* The model speaks of one process of a balanced configuration: its compute time is the
     * mean over the ranks of wall time outside MPI, its communication the mean time inside.
     * A last, shorter interval is compared per iteration. */
    double scale = P.p.iterations > 0 ? s->iterations / P.p.iterations : 1;
    double comp = 0;
    for (int r = 0; r < s->nprocs; r++) comp += s->ranks[r].t_real - s->ranks[r].comm_time;
    row->compared = 1;
    snprintf(row->predicted_for, sizeof row->predicted_for, "%s", P.action);
    row->pred_comp = P.p.t_comp * scale;
    row->meas_comp = comp / s->nprocs;
    row->pred_comm = P.p.t_comm * scale;
    row->meas_comm = xmpi_interval_comm_time(s);
    row->pred_reconf = P.p.t_spawn + P.p.t_remove;
    row->meas_reconf = P.reconf;
    row->pred_redist = P.p.t_redist;
    row->meas_redist = P.redist;
    xmpi_note(1, "prediction model: after the %s, interval %d: computing %.4g s (predicted "
              "%.4g), communicating %.4g s (%.4g), %s %.4g s (%.4g), redistribution %.4g s "
              "(%.4g)", P.action, s->index, row->meas_comp, row->pred_comp, row->meas_comm,
              row->pred_comm, P.action, row->meas_reconf, row->pred_reconf, row->meas_redist,
              row->pred_redist);
}
