/* The trace: a CSV file written by rank 0 with one row per sampling interval.
 * Only stdio here; the columns are documented in README.md. */
#ifndef XMPI_TRACE_H
#define XMPI_TRACE_H

#include <stdio.h>
#include "../models/interval.h"

/* The header row, without the newline. */
extern const char xmpi_trace_header[];

/* Opens (truncates) `path` and writes the header. NULL with a message in err. */
FILE *xmpi_trace_open(const char *path, char *err, size_t errlen);

/* Writes one row for summary `s`; `source` and `action` are single words. 0 or -1. */
int xmpi_trace_row(FILE *f, const struct xmpi_interval *s, const char *source,
                   const char *action);

#endif
