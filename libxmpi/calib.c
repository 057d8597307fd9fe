/* The job's calibration, loaded once on rank 0 at MPI_Init from --xmpi-calibration, or the
 * defaults; what the runtime tells the user about where its figures come from. */
#include "calib.h"

#include <stdio.h>
#include <string.h>

#include "../models/formats/options.h"

static struct xmpi_calibration cal;
static int ready;             /* cal holds the defaults or a loaded file */
static char source[XMPI_PATH_MAX];
static unsigned defaulted;    /* keys the loaded file did not give */

int xmpi_calib_start(const char *path, char *err, size_t errlen)
{
    xmpi_calibration_defaults(&cal);
    ready = 1;
    source[0] = '\0';
    defaulted = XMPI_CAL_ALL;
    if (!path || !path[0]) return 0;
    struct xmpi_calibration c;
    unsigned def = 0;
    char perr[900];
    if (xmpi_calibration_load(&c, path, &def, perr, sizeof perr)) {
        snprintf(err, errlen, "xmpi: option --xmpi-calibration: %s", perr);
        return -1;
    }
    cal = c;
    defaulted = def;
    snprintf(source, sizeof source, "%s", path);
    return 0;
}

const struct xmpi_calibration *xmpi_calib_get(void)
{
    if (!ready) {
        xmpi_calibration_defaults(&cal);
        ready = 1;
    }
    return &cal;
}

const char *xmpi_calib_source(void)
{
    return source;
}

void xmpi_calib_describe(char *buf, size_t len)
{
    if (!source[0]) {
        snprintf(buf, len, "calibration: defaults (measured on the project's machine)");
        return;
    }
    char names[128];
    xmpi_calibration_defaulted_names(defaulted, names, sizeof names);
    if (names[0]) snprintf(buf, len, "calibration: %s (defaults for %s)", source, names);
    else snprintf(buf, len, "calibration: %s", source);
}
