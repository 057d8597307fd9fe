/* Communication profiling through PMPI: cumulative per-operation counters that
 * the monitor samples at iteration boundaries. */
#ifndef XMPI_PROFILE_H
#define XMPI_PROFILE_H

#include "../models/interval.h"

/* Cumulative counters since the process started; only the PMPI wrappers write
 * them, one communicating thread at a time (see README: threads). */
extern struct xmpi_opstat xmpi_profile_total[XMPI_OP_COUNT];

#endif
