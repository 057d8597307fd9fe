/* PAPI event set management. PAPI errors are reported as text and never
 * propagate: monitoring falls back to declared work instead. */
#include "hwcount.h"

#include <stdio.h>
#include <string.h>

#ifdef XMPI_HAVE_PAPI
#include <papi.h>

void xmpi_hwcount_init(struct xmpi_hwcount *hw)
{
    hw->eventset = PAPI_NULL;
    hw->running = 0;
    hw->why[0] = '\0';
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
    /* PAPI's SDE component takes any sde::: name, so that a library may register it later,
     * and by its convention reads -1 from such a placeholder; a registered counter reads 0
     * right after PAPI_start (its change since the start). The events are chosen at the
     * first monitored iteration: a counter not registered by then counts nothing here. */
    long long v[XMPIR_MAX_EVENTS];
    if ((rc = PAPI_read(hw->eventset, v)) != PAPI_OK) {
        snprintf(why, whylen, "PAPI_read: %s", PAPI_strerror(rc));
        xmpi_hwcount_stop(hw);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (!strncmp(names[i], "sde:::", 6) && v[i] == -1) {
            snprintf(why, whylen, "PAPI cannot count %s: no library in this process has "
                     "registered that software-defined event", names[i]);
            xmpi_hwcount_stop(hw);
            return -1;
        }
    }
    return 0;
}

int xmpi_hwcount_read(struct xmpi_hwcount *hw, long long *values)
{
    if (!hw->running) return -1;
    int rc = PAPI_read(hw->eventset, values);
    if (rc != PAPI_OK) {
        snprintf(hw->why, sizeof hw->why, "PAPI_read: %s", PAPI_strerror(rc));
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

#else /* built without PAPI: nothing can be counted, and the reason says why */

void xmpi_hwcount_init(struct xmpi_hwcount *hw)
{
    hw->eventset = -1;
    hw->running = 0;
    hw->why[0] = '\0';
}

void xmpi_hwcount_load(void) {}

int xmpi_hwcount_start(struct xmpi_hwcount *hw, char *const names[], int n, char *why,
                       size_t whylen)
{
    (void)hw, (void)n;
    snprintf(why, whylen, "libxmpi was built without PAPI, so it cannot count %s", names[0]);
    return -1;
}

int xmpi_hwcount_read(struct xmpi_hwcount *hw, long long *values)
{
    (void)hw, (void)values;
    return -1;
}

void xmpi_hwcount_stop(struct xmpi_hwcount *hw)
{
    hw->running = 0;
}

#endif
