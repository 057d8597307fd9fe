/* The step clock (stepclock.h): wall and thread CPU time of the library's steps, on when
 * LIBXMPI_STEPCLOCK=1, for make bench-scale. */
#include "stepclock.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void xmpi_step_init(struct xmpi_ctx *cx)
{
    const char *v = getenv("LIBXMPI_STEPCLOCK");
    memset(&cx->steps, 0, sizeof cx->steps);
    cx->steps.on = v && !strcmp(v, "1");
}

void xmpi_step_begin(const struct xmpi_ctx *cx, double *mark)
{
    if (!cx->steps.on) return;
    mark[0] = PMPI_Wtime();
    mark[1] = thread_cpu();
}

void xmpi_step_end(struct xmpi_ctx *cx, enum xmpi_step step, const double *mark)
{
    struct xmpi_stepclock *c = &cx->steps;
    if (!c->on || step < 0 || step >= XMPIR_STEP_COUNT) return;
    c->calls[step] += 1;
    c->wall[step] += PMPI_Wtime() - mark[0];
    c->cpu[step] += thread_cpu() - mark[1];
}

const struct xmpi_stepclock *xmpi_step_totals(void)
{
    return &xmpi_ctx->steps;
}

const char *xmpi_step_name(int step)
{
    static const char *const names[XMPIR_STEP_COUNT] = {
        "interval", "gather", "model", "policy", "balance", "record",
        "plan", "move", "views", "spawn_mpi", "remove_mpi"};
    return step >= 0 && step < XMPIR_STEP_COUNT ? names[step] : NULL;
}
