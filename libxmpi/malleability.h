/* The malleability policy's "decide" step for XMPI_Eval_reconfig: what the resource manager
 * offers or reclaims, the job as the pure policy sees it, and (HPMP) the model's predicted
 * time for each candidate; decided on rank 0 and known to every process. */
#ifndef XMPIR_RT_MALLEABILITY_H
#define XMPIR_RT_MALLEABILITY_H

#include "../io/interval.h"
#include "../policies/malleability.h"
#include "balance.h"

struct xmpi_ctx;

/* The decision as every process learns it. */
#define XMPIR_PLAN_CLASSES 8

struct xmpi_reconfig_plan {
    int action;                  /* enum xmpi_plan_action */
    int count;
    char cls[64];                /* node class of the processes to spawn or remove */
    /* AMP may spawn or remove on several classes at once: when nclasses > 0, class_count[i]
     * processes of classes[i] (summing to count), instead of count of cls. */
    int nclasses;
    char classes[XMPIR_PLAN_CLASSES][64];
    int class_count[XMPIR_PLAN_CLASSES];
    char event[96];              /* what the resource manager said, "" for nothing */
    char why[256];
    int restart;                 /* carried out by checkpoint and restart (policies/resize.h) */
};

/* Collective over XMPI_COMM_WORLD at an interval end (interval s, already observed by the
 * model). Never fails: an unreadable resource manager or a bad offer is said on rank 0 and
 * decided as "keep". */
void xmpi_policy_decide(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                        const struct xmpi_app *app, struct xmpi_reconfig_plan *out);

#endif
