/* Per-iteration monitoring (wall time, CPU time, work, communication) and the
 * gathering of per-rank records into one interval summary every si iterations. */
#ifndef XMPI_MONITOR_H
#define XMPI_MONITOR_H

#include "../models/interval.h"

void xmpi_monitor_init(void);
/* Closes an open iteration and reports a last, partial interval (collective). */
void xmpi_monitor_finish(void);

/* The last complete interval summary, or NULL before the first one. */
const struct xmpi_interval *xmpi_monitor_summary(void);
/* This rank's record of the last monitored iteration. */
const struct xmpi_rank_record *xmpi_monitor_last_iteration(void);
/* Monitored iterations completed by this rank. */
long xmpi_monitor_iterations(void);

#endif
