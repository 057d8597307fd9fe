/* Cost accounting: what a job's processes cost while they run, in the resource file's cost
 * unit. A host's cost is per PE per hour; the job pays, every second, the sum over its
 * processes of their host's cost / 3600. Pure arithmetic, no MPI. */
#ifndef XMPIR_MODELS_COST_H
#define XMPIR_MODELS_COST_H

/* Cost units per second of nprocs processes, cost_per_pe_hour[i] being process i's host's
 * cost per PE-hour. -1 for bad input: nprocs < 1, a NULL array, a negative or non-finite
 * cost (a pool of zero-cost hosts is fine and gives 0). */
double xmpi_cost_rate(const double *cost_per_pe_hour, int nprocs);

/* The running account, from MPI_Init (elapsed 0); zero it to start. */
struct xmpi_cost {
    double total;          /* cost units from MPI_Init to last_elapsed */
    double last_elapsed;   /* seconds since MPI_Init that the account covers */
    double pe_seconds;     /* processes times seconds over the same span */
    double first_rate;     /* the rate of the first step: the initial configuration's */
    int steps;             /* steps taken */
};

/* Charges the span from c->last_elapsed to `elapsed` (seconds since MPI_Init) at `rate`
 * (cost units per second, of nprocs processes) and moves the account there. Returns the
 * span's cost; -1 with the account unchanged for bad input: a negative or non-finite rate,
 * nprocs < 1, a non-finite elapsed or one before c->last_elapsed. */
double xmpi_cost_step(struct xmpi_cost *c, double rate, int nprocs, double elapsed);

/* What `seconds` cost at the initial configuration's rate (the first step's); -1 before any
 * step or for a negative or non-finite `seconds`. */
double xmpi_cost_at_initial(const struct xmpi_cost *c, double seconds);

#endif
