/* Hardware event counting through PAPI, with a clean "not available" answer
 * when the machine (or VM) exposes no counters, or the library was built without PAPI. */
#ifndef XMPIR_HWCOUNT_H
#define XMPIR_HWCOUNT_H

#include <stddef.h>

#define XMPIR_MAX_EVENTS 8

/* One PAPI event set: PAPI_NULL when none exists. */
struct xmpi_hwcount {
    int eventset;
    int running;
    char why[160];   /* why the last read failed, for the monitor's note */
};

void xmpi_hwcount_init(struct xmpi_hwcount *hw);
/* Loads PAPI (it reads /proc and /sys: milliseconds), at MPI_Init rather than inside the
 * program's first monitored iteration. A failure is reported by xmpi_hwcount_start. */
void xmpi_hwcount_load(void);
/* Tries to count `names` (n >= 1) together. Returns 0 and starts counting, or -1
 * with the reason (naming the event PAPI refused) in why. A software-defined event
 * (sde:::LIBRARY::COUNTER) that no library in the process has registered is refused too:
 * PAPI accepts its name as a placeholder that reads -1. Never aborts. */
int xmpi_hwcount_start(struct xmpi_hwcount *hw, char *const names[], int n, char *why,
                       size_t whylen);
/* Current counter values (n entries); -1 if PAPI failed (hw->why says how), and counting
 * stops. */
int xmpi_hwcount_read(struct xmpi_hwcount *hw, long long *values);
void xmpi_hwcount_stop(struct xmpi_hwcount *hw);

#endif
