/* The library's version for the pure layers and the tools, which cannot include <xmpi.h>
 * (it needs <mpi.h>). tests/sh/docs.sh checks that it equals XMPI_VERSION_STRING and the
 * Makefile's VERSION. */
#ifndef XMPIR_FORMATS_VERSION_H
#define XMPIR_FORMATS_VERSION_H

#define XMPIR_PURE_VERSION "0.1.0"

#endif
