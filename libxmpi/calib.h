/* The calibration the job runs with: the file of --xmpi-calibration, read by rank 0 at
 * MPI_Init, or the documented defaults; kept for the prediction model. */
#ifndef XMPI_CALIB_H
#define XMPI_CALIB_H

#include <stddef.h>

#include "../models/calibration.h"

/* Rank 0 at start-up: loads `path` ("" or NULL: the defaults). On a malformed or unreadable
 * file returns -1 with "xmpi: option --xmpi-calibration: FILE:LINE: ..." in err and keeps
 * the defaults; 0 on success. */
int xmpi_calib_start(const char *path, char *err, size_t errlen);

/* The values in use (the defaults until xmpi_calib_start loaded a file). Significant on
 * rank 0, where the decisions are made. */
const struct xmpi_calibration *xmpi_calib_get(void);

/* The loaded file's path, or "" when the defaults apply. */
const char *xmpi_calib_source(void);

/* The verbose note: "calibration: FILE" (with the keys it left at their defaults) or
 * "calibration: defaults (measured on the project's machine)". */
void xmpi_calib_describe(char *buf, size_t len);

#endif
