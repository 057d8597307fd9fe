/* SMP and HPMP (FLEX-MPI thesis Algorithms 6 and 7) as pure decisions: the resource
 * manager's offer or reclaim in, the processes to spawn or remove out, with the reason. */
#include "malleability.h"

#include <stdio.h>
#include <string.h>

const char *xmpi_policy_name(enum xmpi_policy p)
{
    static const char *const names[] = {"static", "smp", "hpmp", "amp"};
    return (unsigned)p < sizeof names / sizeof *names ? names[p] : "unknown";
}

static int bad_input(const struct xmpi_job *job, const struct xmpi_event *ev,
                     struct xmpi_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    if (!job || !ev || job->nprocs < 1 || job->max_procs < 0 || job->removable < 0 ||
        !(job->min_gain >= 0 && job->min_gain < 1) ||
        (ev->kind != XMPIR_EVENT_NONE && ev->count < 1)) {
        snprintf(plan->why, sizeof plan->why, "bad input to the policy");
        return -1;
    }
    plan->cls = ev->cls;
    return 0;
}

/* Room under the cap for new processes. */
static int room(const struct xmpi_job *job)
{
    if (job->max_procs == 0) return 1 << 30;
    return job->max_procs > job->nprocs ? job->max_procs - job->nprocs : 0;
}

/* Both policies obey a reclaim (Algorithms 6 and 7, lines "SHRINK_ACTION"): the processes of
 * that class that may leave do, never the initial ones. */
static void reclaim(const struct xmpi_job *job, const struct xmpi_event *ev,
                    struct xmpi_plan *plan)
{
    int n = ev->count < job->removable ? ev->count : job->removable;
    if (n == 0) {
        snprintf(plan->why, sizeof plan->why, "%d PE(s) reclaimed, but no process of that class "
                 "may leave (the initial processes stay)", ev->count);
        return;
    }
    plan->action = XMPIR_PLAN_REMOVE;
    plan->count = n;
    if (n < ev->count)
        snprintf(plan->why, sizeof plan->why, "%d PE(s) reclaimed: removing the %d process(es) "
                 "that may leave (the initial processes stay)", ev->count, n);
    else
        snprintf(plan->why, sizeof plan->why, "%d PE(s) reclaimed: removing %d process(es)",
                 ev->count, n);
}

int xmpi_policy_smp(const struct xmpi_job *job, const struct xmpi_event *ev,
                    struct xmpi_plan *plan)
{
    if (bad_input(job, ev, plan)) return -1;
    if (ev->kind == XMPIR_EVENT_NONE) {
        snprintf(plan->why, sizeof plan->why, "nothing offered or reclaimed");
        return 0;
    }
    if (ev->kind == XMPIR_EVENT_RECLAIM) {
        reclaim(job, ev, plan);
        return 0;
    }
    int r = room(job), n = ev->count < r ? ev->count : r;
    if (n == 0) {
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered, but the job has its maximum of "
                 "%d processes", ev->count, job->max_procs);
        return 0;
    }
    plan->action = XMPIR_PLAN_SPAWN;
    plan->count = n;
    if (n < ev->count)
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: spawning %d (--xmpi-max-procs=%d)",
                 ev->count, n, job->max_procs);
    else
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: spawning %d", ev->count, n);
    return 0;
}

int xmpi_policy_hpmp(const struct xmpi_job *job, const struct xmpi_event *ev,
                     xmpi_predict_fn predict, void *arg, double *times, int ntimes,
                     struct xmpi_plan *plan)
{
    if (bad_input(job, ev, plan)) return -1;
    if (ev->kind != XMPIR_EVENT_OFFER) return xmpi_policy_smp(job, ev, plan);
    if (!predict) {
        snprintf(plan->why, sizeof plan->why, "bad input to the policy");
        return -1;
    }
    int r = room(job), max = ev->count < r ? ev->count : r;
    plan->candidates = max + 1;
    int best = -1;
    double best_t = 0, t0 = -1;
    for (int s = 0; s <= max; s++) {
        double t;
        int ok = predict(arg, s, &t) == 0 && t >= 0;
        if (times && s < ntimes) times[s] = ok ? t : -1;
        if (!ok) continue;
        if (s == 0) t0 = t;
        /* Strictly better only: among equal predictions the fewest processes. */
        if (best < 0 || t < best_t) {
            best = s;
            best_t = t;
        }
    }
    /* A gain below the margin is within the model's error: keep, and say so. */
    if (best > 0 && t0 >= 0 && job->min_gain > 0 && best_t > t0 * (1 - job->min_gain)) {
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: the best, spawning %d, is "
                 "predicted %.4g s against %.4g s, under the %.3g%% gain a spawn must promise",
                 ev->count, best, best_t, t0, 100 * job->min_gain);
        return 0;
    }
    if (best <= 0) {
        if (best < 0)
            snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: no prediction available; "
                     "keeping %d processes", ev->count, job->nprocs);
        else
            snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: no s in 1..%d is predicted "
                     "faster than %.4g s with the current processes", ev->count, max, t0);
        return 0;
    }
    plan->action = XMPIR_PLAN_SPAWN;
    plan->count = best;
    if (t0 >= 0)
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: spawning %d, predicted %.4g s "
                 "against %.4g s with the current processes", ev->count, best, best_t, t0);
    else
        snprintf(plan->why, sizeof plan->why, "%d PE(s) offered: spawning %d, predicted %.4g s "
                 "(no prediction for the current processes)", ev->count, best, best_t);
    return 0;
}
