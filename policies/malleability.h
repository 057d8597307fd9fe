/* Malleability policies (FLEX-MPI thesis 5.4): what to do with the processor configuration
 * at an interval end, given what the resource manager offers or reclaims. SMP (Algorithm 6)
 * follows availability up to a cap; HPMP (Algorithm 7) takes the number of offered PEs the
 * prediction model says finishes soonest, possibly none. Pure: the caller supplies the
 * predictions through a callback, so every decision is unit tested without MPI. */
#ifndef XMPIR_MALLEABILITY_H
#define XMPIR_MALLEABILITY_H

#include <stddef.h>

enum xmpi_policy { XMPIR_POLICY_STATIC = 0, XMPIR_POLICY_SMP, XMPIR_POLICY_HPMP, XMPIR_POLICY_AMP };

/* What the resource manager says at this interval end. */
enum xmpi_event_kind { XMPIR_EVENT_NONE = 0, XMPIR_EVENT_OFFER, XMPIR_EVENT_RECLAIM };
struct xmpi_event {
    enum xmpi_event_kind kind;
    int count;               /* PEs offered or reclaimed, >= 1 unless NONE */
    int cls;                 /* the class they belong to (the caller's index) */
};

/* The job as the policy sees it. */
struct xmpi_job {
    int nprocs;              /* processes now */
    int max_procs;           /* --xmpi-max-procs; 0: no cap */
    int removable;           /* processes of class `cls` of the event that may leave (spawned ones) */
    double min_gain;         /* HPMP: a spawn must be predicted at least this fraction faster
                              * than keeping the processes (0: any gain) */
};

enum xmpi_plan_action { XMPIR_PLAN_KEEP = 0, XMPIR_PLAN_SPAWN, XMPIR_PLAN_REMOVE };
struct xmpi_plan {
    enum xmpi_plan_action action;
    int count;               /* processes to spawn or remove */
    int cls;                 /* of this class */
    int candidates;          /* HPMP: how many s were evaluated (0..candidates-1) */
    char why[256];           /* one sentence for the verbose line and the trace */
};

/* The predicted time to the end of the run (or of the horizon the caller chose) with s more
 * processes of the offered class, overheads included: 0 and *seconds, or -1 when the model
 * cannot tell. */
typedef int (*xmpi_predict_fn)(void *arg, int s, double *seconds);

/* SMP: an offer is taken whole up to max_procs; a reclaim removes what may leave of it. */
int xmpi_policy_smp(const struct xmpi_job *job, const struct xmpi_event *ev,
                    struct xmpi_plan *plan);
/* HPMP: for an offer, evaluates s = 0 .. min(offered, room under max_procs) and takes the s
 * with the lowest predicted time (the fewest processes among equals, 0 when no prediction
 * for s > 0 is available), provided it is predicted at least job->min_gain (a fraction)
 * faster than s = 0: gains within the model's error are not worth a spawn; `times` (NULL allowed, candidates entries) receives each
 * prediction (-1 where none). A reclaim is obeyed as in SMP. */
int xmpi_policy_hpmp(const struct xmpi_job *job, const struct xmpi_event *ev,
                     xmpi_predict_fn predict, void *arg, double *times, int ntimes,
                     struct xmpi_plan *plan);

/* The policy's name ("static", "smp", "hpmp", "amp"). */
const char *xmpi_policy_name(enum xmpi_policy p);

#endif
