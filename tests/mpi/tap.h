/* One TAP line per check of an MPI scenario, agreed over XMPI_COMM_WORLD: a check passes when
 * it passes on every process, and rank 0 prints it once. */
#ifndef XMPIR_TESTS_TAP_H
#define XMPIR_TESTS_TAP_H

#include <stdio.h>

#include "xmpi.h"

static inline int agree_check(int ok, const char *what)
{
    int all = 0, rank;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%sok - %s\n", all ? "" : "not ", what);
    fflush(stdout);
    return all;
}

#endif
