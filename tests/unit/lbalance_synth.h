/* Shared by the test_lbalance_*.c suites (policies/balance.c): synthetic intervals of P ranks
 * on even blocks, and the parameters most cases use (TH1 10%, TH2 5%, k = 3). */
#ifndef XMPIR_TESTS_UNIT_LBALANCE_SYNTH_H
#define XMPIR_TESTS_UNIT_LBALANCE_SYNTH_H

#include <string.h>

#include "../../models/partition.h"
#include "../../policies/balance.h"

#define P 4

/* A synthetic interval: per-rank compute seconds, CPU share, communication seconds. */
struct synth {
    double t_real[P], t_cpu[P], comm[P], work[P];
    int count[P], displ[P];
    struct xmpi_balance_input in;
};

/* Ranks with the given compute times on even blocks of `size` rows, dedicated, no MPI
 * time, work = rows (declared): power = rows / seconds. */
static inline void synth(struct synth *s, int p, int size, const double *compute)
{
    memset(s, 0, sizeof *s);
    xmpi_part_even(size, p, s->count, s->displ);
    for (int i = 0; i < p; i++) {
        s->t_real[i] = compute[i];
        s->t_cpu[i] = compute[i];
        s->work[i] = s->count[i];
    }
    s->in = (struct xmpi_balance_input){p, size, s->t_real, s->t_cpu, s->comm, s->work, s->count,
                                   s->displ, NULL, NULL, 100, -1};
}

static const struct xmpi_balance_params prm3 = {0.10, 0.05, 3, 0};

#endif
