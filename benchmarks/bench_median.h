/* The median of a set of timings, shared by the measurement tools (xmpi-calibrate,
 * xmpi-spawnbench, xmpi-redistbench, xmpi-opmodel). Header-only: each tool is one file. */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v (n >= 1 values) in place and returns its median. */
static inline double bench_median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
