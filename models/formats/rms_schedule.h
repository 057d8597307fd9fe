/* The predefined-events resource manager (--xmpi-rms=schedule:FILE, the SMP configuration
 * file of FLEX-MPI 5.4.1): lines "ITERATION spawn|remove COUNT CLASS". No MPI here. */
#ifndef XMPIR_RMS_SCHEDULE_H
#define XMPIR_RMS_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>

#include "resources.h"

struct xmpi_rms_event {
    long iteration;             /* due once this many iterations are done */
    int action;                 /* XMPIR_RMS_ACT_SPAWN or XMPIR_RMS_ACT_SHRINK (rms_state.h) */
    int count;                  /* >= 1 */
    char cls[XMPIR_NAME_MAX];
};

struct xmpi_rms_schedule {
    int n;
    struct xmpi_rms_event *ev;  /* sorted by iteration, file order kept among equals */
    int next;                   /* first event not yet handed out */
};

/* '#' comments and blank lines allowed; errors name FILE:LINE and the field. */
int xmpi_rms_schedule_parse(struct xmpi_rms_schedule *s, FILE *f, const char *fname,
                            char *err, size_t errlen);
int xmpi_rms_schedule_load(struct xmpi_rms_schedule *s, const char *path, char *err,
                           size_t errlen);
void xmpi_rms_schedule_free(struct xmpi_rms_schedule *s);
/* The next event due at `iteration` (iteration >= its iteration), or NULL; advances. */
const struct xmpi_rms_event *xmpi_rms_schedule_due(struct xmpi_rms_schedule *s, long iteration);

#endif
