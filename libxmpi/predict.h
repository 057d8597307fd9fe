/* The prediction model at run time, on rank 0: the calibration in use, the model fed with
 * every interval summary, the prediction made before each spawn or removal, and its
 * comparison with the first whole interval after it (from what the sink measured). */
#ifndef XMPIR_RTMODEL_H
#define XMPIR_RTMODEL_H

#include <stddef.h>

#include "../io/calibration.h"
#include "../models/config.h"
#include "../io/options.h"
#include "../models/predict.h"
#include "../io/trace.h"

struct xmpi_ctx;
struct xmpi_sched;

struct xmpi_predict_rt {
    /* The calibration: the file of --xmpi-calibration, or the documented defaults. */
    struct xmpi_calibration cal;
    char source[XMPIR_PATH_MAX];      /* the loaded file, "" for the defaults */
    unsigned defaulted;              /* keys the loaded file did not give */
    int on;
    struct xmpi_predict_model m;
    int *host_class;                 /* the model's class index of each pool host */
    int observed;                    /* index of the last interval the model took in */
    /* The prediction waiting for its interval. */
    int pending;
    char action[16];
    long after;                      /* compare with the first interval starting at or after this */
    struct xmpi_prediction p;
    double reconf_base, redist_base; /* the sink's totals when the prediction was made */
    double *profile;                 /* --xmpi-work-profile's work per iteration, or NULL */
    int nprofile;
    /* 1 from a spawn to the end of the next interval's decision: that interval warms the new
     * processes up (Open MPI opens its TCP connections to them at their first messages; their
     * caches and fresh blocks are cold), so it teaches the model nothing of the link and AMP
     * decides nothing on it (one such Jacobi interval took 1.20 s for 0.53 s predicted, 71% in
     * communication, and condemned every larger configuration for the rest of the run). */
    int warmup;
    /* A spawn's lag (xmpi_predict_learn_lag), measured on the intervals around it: those an
     * asynchronous spawn ran beside, against the pace (seconds per iteration) of the interval
     * before it, and the warm-up interval against the next one on the same processes. */
    struct {
        int state;                   /* 0 none, 1 beside an asynchronous spawn, 2 after the warm-up */
        double pace;                 /* the interval before the spawn: seconds per iteration */
        int procs;                   /* processes of the intervals compared */
        double loss;                 /* seconds lost so far */
        double warm_pace, warm_iters;
    } lag;
    double last_pace;                /* the last interval observed: seconds per iteration (0: none) */
    int last_procs;
    /* The first whole interval after a spawn or a removal, compared and ended with no action
     * of its own, waiting for the next one on the same processes: the two teach the model
     * the action's warm-up (xmpi_predict_learn_warmup), and a removal's settled computation
     * (xmpi_predict_learn_comp). */
    struct {
        int armed, kind, index, procs;
        double comp, comm;           /* the first interval's, per iteration */
    } first;
};

/* Rank 0 at start-up: the defaults, then `path` ("" or NULL: none). On a malformed or
 * unreadable file returns -1 with "xmpi: option --xmpi-calibration: FILE:LINE: ..." in err
 * and keeps the defaults. */
int xmpi_predict_calibrate(struct xmpi_predict_rt *md, const char *path, char *err, size_t errlen);
/* Rank 0 at start-up: the work profile of --xmpi-work-profile (path "" or NULL: none). On a
 * malformed or unreadable file returns -1 with "xmpi: option --xmpi-work-profile: ..." in err. */
int xmpi_predict_load_profile(struct xmpi_predict_rt *md, const char *path, char *err, size_t errlen);
/* "calibration: FILE" (with the keys it left at their defaults) or "calibration: defaults". */
void xmpi_predict_describe(const struct xmpi_predict_rt *md, char *buf, size_t len);
/* Rank 0, once the pool is known: the pool's classes become the model's. */
void xmpi_predict_start(struct xmpi_ctx *cx, const struct xmpi_pool *pool, int spawn_group);
/* Rank 0: the model's class index of each of the n ranks; -1 when unknown. */
int xmpi_predict_rank_classes(const struct xmpi_predict_rt *md, const struct xmpi_sched *s,
                              int *cls, int n);
/* Rank 0, each interval. */
void xmpi_predict_feed(struct xmpi_ctx *cx, const struct xmpi_interval *s);
/* Rank 0, just before a reconfiguration: the prediction of the next interval, kept until
 * the first interval that starts after the monitored iterations done now. */
void xmpi_predict_plan(struct xmpi_ctx *cx, const char *action, const struct xmpi_interval *s,
                       long iteration, const struct xmpi_config_change *ch, const int *rank_class,
                       const struct xmpi_struct_desc *d, int nd, const long *count,
                       const long *displ);
/* Rank 0: the model columns of the trace row of interval s, whose own end did `action`
 * ("none": nothing). */
void xmpi_predict_row(struct xmpi_ctx *cx, const struct xmpi_interval *s, const char *action,
                      struct xmpi_trace_model *row);
void xmpi_predict_free(struct xmpi_predict_rt *md);

#endif
