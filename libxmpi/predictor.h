/* The prediction model at run time, on rank 0: fed every interval summary, asked before each
 * spawn or removal, and compared with what followed in the first whole interval after it. */
#ifndef XMPI_PREDICTOR_H
#define XMPI_PREDICTOR_H

#include "../models/predict.h"
#include "../models/trace.h"

/* Rank 0 at start-up, after the calibration is loaded: the node classes in the order that
 * defines their indices, with their declared relative speeds (0: not declared). */
void xmpi_predictor_start(char *const *names, const double *speeds, int nclasses,
                          int spawn_group);
/* Rank 0, each interval: rank_class gives each rank's class index (NULL: unknown). */
void xmpi_predictor_observe(const struct xmpi_interval *s, const int *rank_class);

/* Rank 0, just before a reconfiguration is carried out. current/candidate: processes per class
 * (nclasses entries); rank_class: the class of each current rank; the registered structures
 * and the current partition (nd 0: nothing registered); mixed_now/next: the job holds, or will
 * hold, processes of different spawns (see struct xmpi_predict_request). The prediction is kept until the first
 * interval that starts after `iteration` (the monitored iterations done now). */
void xmpi_predictor_plan(const char *action, long iteration, const int *current,
                         const int *candidate, const int *rank_class,
                         const struct xmpi_struct_desc *d, int nd, const long *count,
                         const long *displ, int nparts, int mixed_now, int mixed_next);
/* Rank 0: the spawn or removal just planned took `seconds` in all (a removal's hand-off of
 * rows, already reported through xmpi_predictor_moved, is taken out). */
void xmpi_predictor_reconfigured(double seconds);
/* Rank 0: a redistribution took `seconds`; counted when it follows a planned action. */
void xmpi_predictor_moved(double seconds);

/* Rank 0: the model columns of the trace row of interval s. */
void xmpi_predictor_row(const struct xmpi_interval *s, struct xmpi_trace_model *row);

#endif
