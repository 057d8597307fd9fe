/* What every benchmark and measurement tool does alike on its command line and with its output
 * file: one reading of numbers, one wording of a refused value, rank 0's verdict shared, the file
 * written whole or not at all. Define BENCH_NAME ("cg", "xmpi-opmodel", ...) first; example_util.h
 * includes this for jacobi, cg and epidemic. Header-only, so each program still builds from its
 * one .c file, and static inline, so what a program does not use draws no warning. A program
 * without MPI (xmpi-ampdecide) defines BENCH_NO_MPI too: no <mpi.h>, no rank0_verdict. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#ifndef BENCH_NAME
#error "define BENCH_NAME (\"cg\", \"xmpi-opmodel\", ...) before including cli.h"
#endif

#ifndef BENCH_NO_MPI
#include <mpi.h>
#endif

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

/* For hand-written option loops: the value of "--name=VALUE", or the word after "--name" or
 * "-x" (advancing *i past it); NULL when there is none. */
static inline const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (!strncmp(argv[*i], name, n) && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* "PROG: option OPT: 'VALUE' is not accepted; expected ...", or "no value given" when value is
 * NULL, into err. Returns -1, so that refusing is one statement. */
static inline int refuse_value(char *err, size_t len, const char *opt, const char *value, const char *expected)
{
    if (value)
        snprintf(err, len, BENCH_NAME ": option %s: '%.64s' is not accepted; expected %s", opt, value, expected);
    else
        snprintf(err, len, BENCH_NAME ": option %s: no value given; expected %s", opt, expected);
    return -1;
}

/* Rank 0's verdict on what only it checks (files, the job's size), given to every process so
 * that all leave alike. PMPI_, so that no profiling wrapper sees it. */
#ifndef BENCH_NO_MPI
static inline int rank0_verdict(int code, MPI_Comm comm)
{
    PMPI_Bcast(&code, 1, MPI_INT, 0, comm);
    return code;
}
#endif

/* Whether out can be written, asked before the measurements rather than after them: tmp
 * becomes "OUT.tmp", the name the result is written under and then renamed from. 0, or errno. */
static inline int check_writable(const char *out, char *tmp, size_t tmplen)
{
    snprintf(tmp, tmplen, "%s.tmp", out);
    FILE *t = fopen(tmp, "w");
    if (!t)
        return errno;
    fclose(t);
    unlink(tmp);
    return 0;
}

/* Ends writing f (opened on tmp; NULL when that failed): out appears only whole. rc: nonzero
 * when the writer already failed. 0, or -1 after saying so on stderr. */
static inline int commit_output(FILE *f, int rc, const char *tmp, const char *out)
{
    if (!f || fclose(f) || rc || rename(tmp, out)) {
        fprintf(stderr, BENCH_NAME ": cannot write %s: %s\n", out, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* A byte count as the tools print it: "16 MiB", "64 KiB", or "1000 B" when it is not a whole
 * number of either. */
static inline const char *size_text(char buf[32], long n)
{
    if (n >= (1L << 20) && n % (1L << 20) == 0)
        snprintf(buf, 32, "%ld MiB", n >> 20);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, 32, "%ld KiB", n >> 10);
    else
        snprintf(buf, 32, "%ld B", n);
    return buf;
}

#endif
