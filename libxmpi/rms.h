/* Resource-manager backends behind XMPI_Get_system_status: none, predefined events
 * (schedule:FILE), a live state file (file:PATH) or Slurm (rms_slurm.c). Rank 0 polls;
 * everyone gets the answer. */
#ifndef XMPIR_RMS_H
#define XMPIR_RMS_H

#include <stddef.h>

#include "../io/resources.h"
#include "../io/rms_schedule.h"
#include "xmpi.h"

struct xmpi_ctx;
struct xmpi_rms_slurm;

enum xmpi_rms_backend { XMPIR_RMS_NONE, XMPIR_RMS_SCHEDULE, XMPIR_RMS_FILE, XMPIR_RMS_SLURM };

struct xmpi_rms {
    enum xmpi_rms_backend kind;
    const char *path;                  /* into the options' rms; "Slurm job N" for slurm */
    struct xmpi_rms_schedule schedule; /* with its availability: free, held, reclaimed PEs */
    struct xmpi_rms_slurm *slurm;      /* rank 0's view of the Slurm job (rms_slurm.c) */
};

/* Rank 0, at start-up, before the initial placement, when --xmpi-resources gives no pool: the
 * pool the resource manager describes (slurm: the nodes of the job's partition). 1 when the
 * backend describes none (the local host is then the pool), 0 with the pool, -1 with a
 * message. */
int xmpi_rms_pool(struct xmpi_ctx *cx, struct xmpi_pool *pool, char *err, size_t errlen);

/* Rank 0, at start-up (after the placement of the initial processes): loads the schedule,
 * or creates/adopts the state file with the initial processes as allocated. -1 with a
 * message on a bad file. */
int xmpi_rms_start(struct xmpi_ctx *cx, char *err, size_t errlen);
/* Rank 0, after a spawn or a removal: the PEs the job now holds (pool hosts), written back
 * to the state file or to the schedule's availability. */
void xmpi_rms_spawned(struct xmpi_ctx *cx, const int *hosts, int n);
void xmpi_rms_removed(struct xmpi_ctx *cx, const int *hosts, int n);
void xmpi_rms_stop(struct xmpi_ctx *cx);
/* Rank 0, before placing n new processes of classes cls (NULL: any): lets the resource manager
 * make room for them (slurm: grows the allocation onto idle nodes). XMPI_SUCCESS, or an error
 * code with why, and no process may start. */
int xmpi_rms_acquire(struct xmpi_ctx *cx, char *const cls[], int n, char *why, size_t len);
/* Rank 0, choosing n processes to remove: 1 with their ranks (increasing) when the resource
 * manager takes hosts back and n spawned processes of those classes run there (slurm), 0 to
 * leave the choice to the scheduler. */
int xmpi_rms_pick_remove(const struct xmpi_ctx *cx, char *const cls[], int n, int *ranks);
/* Rank 0: what the resource manager asks of the job now (the schedule's next due spawn/remove
 * line or its free/reclaimed PEs, or the state file's offer or reclaim). XMPI_ERR_RMS with err when the file cannot be read. */
int xmpi_rms_poll(struct xmpi_ctx *cx, XMPI_System_status *st, char *err, size_t errlen);

#endif
