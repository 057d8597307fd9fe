/* What every benchmark and measurement tool does alike on its command line: the exit statuses
 * and one reading of numbers. Define BENCH_NAME ("cg", "xmpi-opmodel", ...) first; bench_util.h
 * includes this for jacobi, cg and epidemic. Header-only, so each program still builds from its
 * one .c file, and static inline, so what a program does not use draws no warning. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#ifndef BENCH_NAME
#error "define BENCH_NAME (\"cg\", \"xmpi-opmodel\", ...) before including bench_cli.h"
#endif

#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* The benchmarks' one reading of an integer option: strtol's (leading blanks and a sign
 * allowed), the whole word a number, no overflow, from lo to hi. 0, or -1 leaving *out alone.
 * Not the file formats' xmpi_text_parse_long (digits only): option words keep this reading so
 * that every benchmark accepts what jacobi accepts. */
static inline int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static inline int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    /* strtoull would quietly wrap "-1" to the largest value. */
    if (strchr(s, '-'))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* A finite number in [lo, hi]; hi may be INFINITY for no upper bound. */
static inline int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v) || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

#endif
