/* libxmpi's own counters published as PAPI software-defined events (sde:::libxmpi::NAME), so
 * that any PAPI tool reads them; the list and units are in docs/papi-sde.md. */
#ifndef XMPIR_SDE_H
#define XMPIR_SDE_H

struct xmpi_ctx;

/* Registers the counters of cx with PAPI's libsde once (nothing without libsde): when the
 * library is loaded, and again harmlessly at MPI_Init. They point at the runtime's own running
 * totals; nothing is counted twice. */
void xmpi_sde_register(struct xmpi_ctx *cx);

#ifdef XMPI_HAVE_SDE
#include <sde_lib.h>
/* Registers every event through f (libsde's functions, or those PAPI's papi_native_avail
 * hands to the listing hook) with its description. */
void xmpi_sde_publish(const papi_sde_fptr_struct_t *f, struct xmpi_ctx *cx);
#endif

#endif
