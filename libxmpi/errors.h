/* The one mapping from the internal codes to the public ones. */
#ifndef XMPIR_ERRORS_H
#define XMPIR_ERRORS_H

#include "../io/status.h"

/* An XMPI_ code for `status`: an XMPI_ code (>= 0) as it is, an internal XMPIR_E* code
 * (io/status.h, < 0) as the public code that says the same to a program. */
int xmpi_error_code(int status);

#endif
