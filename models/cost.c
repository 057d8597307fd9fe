/* Cost accounting: the job's cost rate and its running account (cost.h). */
#include "cost.h"

#include <math.h>
#include <stddef.h>

double xmpi_cost_rate(const double *cost_per_pe_hour, int nprocs)
{
    if (!cost_per_pe_hour || nprocs < 1) return -1;
    double per_hour = 0;
    for (int i = 0; i < nprocs; i++) {
        double c = cost_per_pe_hour[i];
        if (!isfinite(c) || c < 0) return -1;
        per_hour += c;
    }
    return per_hour / 3600;
}

double xmpi_cost_step(struct xmpi_cost *c, double rate, int nprocs, double elapsed)
{
    if (!c || !isfinite(rate) || rate < 0 || nprocs < 1 || !isfinite(elapsed) ||
        elapsed < c->last_elapsed)
        return -1;
    double dt = elapsed - c->last_elapsed;
    double cost = rate * dt;
    if (c->steps == 0) c->first_rate = rate;
    c->total += cost;
    c->pe_seconds += nprocs * dt;
    c->last_elapsed = elapsed;
    c->steps++;
    return cost;
}

double xmpi_cost_at_initial(const struct xmpi_cost *c, double seconds)
{
    if (!c || c->steps < 1 || !isfinite(seconds) || seconds < 0) return -1;
    return c->first_rate * seconds;
}
