/* PAPI event set management. PAPI errors are reported as text and never
 * propagate: monitoring falls back to declared work instead. */
#include "hwcount.h"

#include <papi.h>
#include <stdio.h>

static int eventset = PAPI_NULL;
static int running;

int xmpi_hwcount_start(char *const names[], int n, char *why, size_t whylen)
{
    int rc;
    if (n < 1 || n > XMPI_MAX_EVENTS) {
        snprintf(why, whylen, "between 1 and %d events can be counted", XMPI_MAX_EVENTS);
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
    xmpi_hwcount_stop();
    if ((rc = PAPI_create_eventset(&eventset)) != PAPI_OK) {
        snprintf(why, whylen, "PAPI_create_eventset: %s", PAPI_strerror(rc));
        eventset = PAPI_NULL;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if ((rc = PAPI_add_named_event(eventset, names[i])) != PAPI_OK) {
            snprintf(why, whylen, "PAPI cannot count %s: %s", names[i], PAPI_strerror(rc));
            xmpi_hwcount_stop();
            return -1;
        }
    }
    if ((rc = PAPI_start(eventset)) != PAPI_OK) {
        snprintf(why, whylen, "PAPI_start: %s", PAPI_strerror(rc));
        xmpi_hwcount_stop();
        return -1;
    }
    running = 1;
    return 0;
}

int xmpi_hwcount_read(long long *values)
{
    if (!running) return -1;
    if (PAPI_read(eventset, values) != PAPI_OK) {
        xmpi_hwcount_stop();
        return -1;
    }
    return 0;
}

void xmpi_hwcount_stop(void)
{
    if (eventset == PAPI_NULL) return;
    long long scratch[XMPI_MAX_EVENTS];
    if (running) PAPI_stop(eventset, scratch);
    PAPI_cleanup_eventset(eventset);
    PAPI_destroy_eventset(&eventset);
    eventset = PAPI_NULL;
    running = 0;
}
