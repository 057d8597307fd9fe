/* PAPI event set management. PAPI errors are reported as text and never
 * propagate: monitoring falls back to declared work instead. */
#include "hwcount.h"

#include <papi.h>
#include <stdio.h>

void xmpi_hwcount_init(struct xmpi_hwcount *hw)
{
    hw->eventset = PAPI_NULL;
    hw->running = 0;
}

void xmpi_hwcount_load(void)
{
    if (PAPI_is_initialized() == PAPI_NOT_INITED) PAPI_library_init(PAPI_VER_CURRENT);
}

int xmpi_hwcount_start(struct xmpi_hwcount *hw, char *const names[], int n, char *why,
                       size_t whylen)
{
    int rc;
    if (n < 1 || n > XMPIR_MAX_EVENTS) {
        snprintf(why, whylen, "between 1 and %d events can be counted", XMPIR_MAX_EVENTS);
        return -1;
    }
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        rc = PAPI_library_init(PAPI_VER_CURRENT);
        if (rc != PAPI_VER_CURRENT) {
            snprintf(why, whylen, "PAPI_library_init failed: %s",
                     rc > 0 ? "version mismatch" : PAPI_strerror(rc));
            return -1;
        }
    }
    xmpi_hwcount_stop(hw);
    if ((rc = PAPI_create_eventset(&hw->eventset)) != PAPI_OK) {
        snprintf(why, whylen, "PAPI_create_eventset: %s", PAPI_strerror(rc));
        hw->eventset = PAPI_NULL;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if ((rc = PAPI_add_named_event(hw->eventset, names[i])) != PAPI_OK) {
            snprintf(why, whylen, "PAPI cannot count %s: %s", names[i], PAPI_strerror(rc));
            xmpi_hwcount_stop(hw);
            return -1;
        }
    }
    if ((rc = PAPI_start(hw->eventset)) != PAPI_OK) {
        snprintf(why, whylen, "PAPI_start: %s", PAPI_strerror(rc));
        xmpi_hwcount_stop(hw);
        return -1;
    }
    hw->running = 1;
    return 0;
}

int xmpi_hwcount_read(struct xmpi_hwcount *hw, long long *values)
{
    if (!hw->running) return -1;
    if (PAPI_read(hw->eventset, values) != PAPI_OK) {
        xmpi_hwcount_stop(hw);
        return -1;
    }
    return 0;
}

void xmpi_hwcount_stop(struct xmpi_hwcount *hw)
{
    if (hw->eventset == PAPI_NULL) return;
    long long scratch[XMPIR_MAX_EVENTS];
    if (hw->running) PAPI_stop(hw->eventset, scratch);
    PAPI_cleanup_eventset(hw->eventset);
    PAPI_destroy_eventset(&hw->eventset);
    hw->eventset = PAPI_NULL;
    hw->running = 0;
}
