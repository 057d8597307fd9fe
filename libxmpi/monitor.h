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
/* Number of the last interval gathered (0 before the first). */
int xmpi_monitor_interval_index(void);
/* 1 between XMPI_Monitor_iter_begin and XMPI_Monitor_iter_end. */
int xmpi_monitor_in_iteration(void);
/* A spawned process counts on from its parents' iteration and interval numbers, so that
 * every member gathers the same intervals. */
void xmpi_monitor_join(long iterations, int interval_index);

/* What the library did since the last trace row ("rebalance", "spawn", ...): the next
 * row's action column. */
void xmpi_monitor_set_action(const char *action);

#endif
