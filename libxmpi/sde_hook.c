/* The hook by which PAPI's `papi_native_avail -sde libxmpi.so` lists libxmpi's software-defined
 * events without running a job. Alone in its file: a static link takes it only when asked. */
#ifdef XMPI_HAVE_SDE
#include "sde.h"

#include "context.h"

__attribute__((visibility("default"))) papi_handle_t
papi_sde_hook_list_events(papi_sde_fptr_struct_t *f)
{
    xmpi_sde_publish(f, xmpi_ctx);
    return f->init("libxmpi");
}
#else
typedef int xmpi_no_sde_hook;   /* ISO C forbids an empty translation unit */
#endif
