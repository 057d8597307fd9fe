/* Resource-manager backends behind XMPI_Get_system_status: none, predefined events
 * (schedule:FILE) or a live state file (file:PATH). Rank 0 polls; everyone gets the answer. */
#ifndef XMPI_RMS_H
#define XMPI_RMS_H

#include <stddef.h>

#include "../policies/scheduler.h"

/* Rank 0, at start-up: loads the schedule, or creates/adopts the state file with the
 * initial processes as allocated. -1 with a message on a bad file. */
int xmpi_rms_start(const struct xmpi_sched *s, char *err, size_t errlen);
/* Rank 0, after a spawn or a removal: the PEs the job now holds, written back. */
void xmpi_rms_spawned(const struct xmpi_pool *pool, const int *hosts, int n);
void xmpi_rms_removed(const struct xmpi_pool *pool, const int *hosts, int n);
void xmpi_rms_stop(void);

#endif
