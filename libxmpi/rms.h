/* Resource-manager backends behind XMPI_Get_system_status: none, predefined events
 * (schedule:FILE) or a live state file (file:PATH). Rank 0 polls; everyone gets the answer. */
#ifndef XMPIR_RMS_H
#define XMPIR_RMS_H

#include <stddef.h>

#include "../models/formats/rms_schedule.h"
#include "xmpi.h"

struct xmpi_ctx;

enum xmpi_rms_backend { RMS_NONE, RMS_SCHEDULE, RMS_FILE };

struct xmpi_rms {
    enum xmpi_rms_backend kind;
    const char *path;                  /* into the options' rms */
    struct xmpi_rms_schedule schedule; /* with its availability: free, held, reclaimed PEs */
};

/* Rank 0, at start-up (after the placement of the initial processes): loads the schedule,
 * or creates/adopts the state file with the initial processes as allocated. -1 with a
 * message on a bad file. */
int xmpi_rms_start(struct xmpi_ctx *cx, char *err, size_t errlen);
/* Rank 0, after a spawn or a removal: the PEs the job now holds (pool hosts), written back
 * to the state file or to the schedule's availability. */
void xmpi_rms_spawned(struct xmpi_ctx *cx, const int *hosts, int n);
void xmpi_rms_removed(struct xmpi_ctx *cx, const int *hosts, int n);
void xmpi_rms_stop(struct xmpi_ctx *cx);
/* Rank 0: what the resource manager asks of the job now (the schedule's next due spawn/remove
 * line or its free/reclaimed PEs, or the state file's offer or reclaim). XMPI_ERR_RMS with err when the file cannot be read. */
int xmpi_rms_poll(struct xmpi_ctx *cx, XMPI_System_status *st, char *err, size_t errlen);

#endif
