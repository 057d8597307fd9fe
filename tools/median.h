/* The median of a set of timings, shared by the measurement tools (xmpi-calibrate,
 * xmpi-spawnbench, xmpi-redistbench, xmpi-opmodel, overhead-micro). Header-only: each tool is
 * one file. */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* The median of v (n >= 1 values) leaving v in its order, for callers that still pair its
 * values by position afterwards; NAN when there is no memory for the sorted copy. */
static inline double bench_median_copy(const double *v, long n)
{
    double *s = malloc(sizeof *s * (size_t)n);
    if (!s)
        return NAN;
    memcpy(s, v, sizeof *s * (size_t)n);
    double m = bench_median(s, n);
    free(s);
    return m;
}

#endif
