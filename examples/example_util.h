/* What the jacobi, cg and epidemic benchmarks share: the build differences common to all three,
 * first-failure reporting, option parsing (with cli.h, which the measurement tools share
 * too), allocation and hashing. Define BENCH_NAME first. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

/* Header-only, so each benchmark still builds from its one .c file. Messages start with the
 * program's name as a string literal, so they stay whole format strings the compiler checks. */
#ifndef BENCH_NAME
#error "define BENCH_NAME (\"jacobi\", \"cg\", ...) before including example_util.h"
#endif

#include <mpi.h>

#include "../tools/cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the two builds differ alike in every benchmark; each program adds its own hooks after
 * the include, so the measured code is the same in both builds. */
#ifdef XMPI_PLAIN
#define COMM MPI_COMM_WORLD
#define LIBRARY_NAME "plain"
#define MONITOR_OK 0
#define MONITOR_BEGIN() MONITOR_OK
#define MONITOR_ADD_WORK(flop) ((void)(flop), MONITOR_OK)
#define MONITOR_END() MONITOR_OK
#define MONITOR_IS_WARNING(rc) ((void)(rc), 0)
#define MONITOR_ERROR_STRING(rc) ((void)(rc), "unknown error")
#else
#include "xmpi.h"
#define COMM XMPI_COMM_WORLD
#define LIBRARY_NAME "xmpi"
#define MONITOR_OK XMPI_SUCCESS
#define MONITOR_BEGIN() XMPI_Monitor_iter_begin(NULL)
#define MONITOR_ADD_WORK(flop) XMPI_Monitor_add_work(flop)
#define MONITOR_END() XMPI_Monitor_iter_end(NULL)
/* The header promises monitoring carries on without PAPI, so losing counters is no reason to stop. */
#define MONITOR_IS_WARNING(rc) ((rc) == XMPI_ERR_PAPI)
#define MONITOR_ERROR_STRING(rc) XMPI_Error_string(rc)
#endif

/* The first failure a rank meets; only its message survives, so the user sees the cause, not the fallout. */
struct failure {
    int code;
    char msg[768];
};

static int fail(struct failure *f, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(struct failure *f, int code, const char *fmt, ...)
{
    if (f->code)
        return -1;
    f->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    return -1;
}

/* Every rank must take the same exit, else the others block in the next collective.
 * The lowest failing rank speaks for all, so exactly one message appears. */
static int agree(struct failure *f, int rank, int nprocs)
{
    int mine[2] = {f->code, f->code ? -rank : -nprocs}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, COMM);
    if (all[0] && -all[1] == rank) {
        fputs(f->msg, stderr);
        fflush(stderr);
    }
    return all[0];
}

static void *alloc_array(size_t nmemb, size_t size, struct failure *f)
{
    if (nmemb == 0)
        nmemb = 1; /* a rank may own no rows; NULL must still mean failure */
    if (nmemb > SIZE_MAX / size) {
        fail(f, EXIT_RUNTIME, BENCH_NAME ": out of memory (%zu elements of %zu bytes)\n", nmemb, size);
        return NULL;
    }
    void *p = malloc(nmemb * size);
    if (!p)
        fail(f, EXIT_RUNTIME, BENCH_NAME ": out of memory (%zu elements of %zu bytes)\n", nmemb, size);
    return p;
}

static void monitor_check(int rc, const char *call, int rank, struct failure *f, int *warned)
{
    if (rc == MONITOR_OK)
        return;
    if (MONITOR_IS_WARNING(rc)) {
        if (!*warned)
            fprintf(stderr, BENCH_NAME ": rank %d: warning: %s: %s\n", rank, call, MONITOR_ERROR_STRING(rc));
        *warned = 1;
        return;
    }
    fail(f, EXIT_RUNTIME, BENCH_NAME ": rank %d: %s failed: %s\n", rank, call, MONITOR_ERROR_STRING(rc));
}

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#define FNV1A64_BASIS 0xcbf29ce484222325ULL

/* FNV-1a continued from h: FNV1A64_BASIS hashes one buffer, a previous result chains the next. */
static uint64_t fnv1a64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *s = data;
    for (size_t k = 0; k < len; k++) {
        h ^= s[k];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The rest is not used by every program (or every build of one), and an unused static inline
 * function draws no warning where a plain static one would. */

/* Whether any rank has failed, asked of every rank at once; no message (agree() says it). */
static inline int any_failed(const struct failure *f)
{
    int bad = f->code != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, COMM);
    return any;
}

/* The end of option parsing, on every rank: 1 when the program stops here, with *status its exit
 * status (the agreed failure, or 0 after rank 0 printed the help), 0 to go on. */
static inline int stop_after_options(struct failure *f, int rank, int nprocs, int help, void (*usage)(FILE *),
                                     int *status)
{
    if ((*status = agree(f, rank, nprocs)))
        return 1;
    if (!help)
        return 0;
    if (rank == 0)
        usage(stdout);
    return 1;
}

/* The slowest rank's time since t0 into *elapsed, and agree()'s verdict on the run, in one
 * reduction when no rank failed. */
static inline int elapsed_agreed(double t0, struct failure *f, int rank, int nprocs, double *elapsed)
{
    double mine[2] = {MPI_Wtime() - t0, f->code ? 1.0 : 0.0}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, COMM);
    *elapsed = all[0];
    return all[1] != 0.0 ? agree(f, rank, nprocs) : 0;
}

/* getopt's ':' (a value missing) and '?' (an unknown option, named as the user wrote it: getopt
 * reports "--name" as an unknown '-'). accepted: the options, for the message. Returns -1. */
static inline int refuse_getopt(int c, int argc, char **argv, const char *accepted, struct failure *f)
{
    if (c == ':')
        return fail(f, EXIT_USAGE, BENCH_NAME ": option '-%c' needs a value (see " BENCH_NAME " -h)\n", optopt);
    if (optopt != '-')
        return fail(f, EXIT_USAGE, BENCH_NAME ": unknown option '-%c'; accepted: %s\n", optopt, accepted);
    for (int k = 1; k < argc; k++)
        if (strncmp(argv[k], "--", 2) == 0 && argv[k][2] != '\0')
            return fail(f, EXIT_USAGE, BENCH_NAME ": unknown option '%s'; accepted: %s\n", argv[k], accepted);
    return fail(f, EXIT_USAGE, BENCH_NAME ": unknown option '-'; accepted: %s\n", accepted);
}

/* After getopt: everything is given through options, so a word left over is refused. */
static inline int refuse_operands(int argc, char **argv, struct failure *f)
{
    if (optind < argc)
        return fail(f, EXIT_USAGE,
                    BENCH_NAME ": unexpected argument '%s'; everything is given through options (see -h)\n",
                    argv[optind]);
    return 0;
}

/* getopt knows no long options: every "NAME=K" (K from 1 to INT_MAX) before a "--" is taken out
 * of argv before it looks, the last one giving *value. plain: NULL, or why this build refuses
 * the option at all, the message going on after "PROG: option 'WORD' ". */
static inline int take_count_option(int *argc, char **argv, const char *name, const char *plain, long *value,
                                    struct failure *f)
{
    const size_t len = strlen(name);
    int out = 1, k = 1;
    for (; k < *argc && strcmp(argv[k], "--") != 0; k++) {
        if (strncmp(argv[k], name, len) != 0 || (argv[k][len] != '=' && argv[k][len] != '\0')) {
            argv[out++] = argv[k];
            continue;
        }
        if (argv[k][len] == '\0' || parse_long(argv[k] + len + 1, 1, INT_MAX, value))
            return fail(f, EXIT_USAGE,
                        BENCH_NAME ": bad option '%s': expected %s=K with K an integer from 1 to %d\n", argv[k],
                        name, INT_MAX);
        if (plain)
            return fail(f, EXIT_USAGE, BENCH_NAME ": option '%s' %s\n", argv[k], plain);
    }
    for (; k < *argc; k++)
        argv[out++] = argv[k];
    argv[out] = NULL;
    *argc = out;
    return 0;
}

/* The load balancer between two iterations, when the program was asked for it (-b, -L): under
 * libxmpi, XMPI_Eval_lbalance over the job, which may move the registered rows, so the caller
 * re-reads its block and pointers afterwards; weight: NULL, or each of this rank's rows' work.
 * 0 or an XMPI error code, the same on every rank; always 0 in the plain build. */
static inline int balance_rows(int enabled, int it, int maxit, int *count, int *displ, double *weight)
{
#ifdef XMPI_PLAIN
    (void)enabled, (void)it, (void)maxit, (void)count, (void)displ, (void)weight;
    return 0;
#else
    if (!enabled)
        return 0;
    int rank, nprocs;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    return XMPI_Eval_lbalance(rank, nprocs, it, maxit, count, displ, weight);
#endif
}

/* Even blocks, as XMPI_Get_wsize makes them: the first n % nprocs ranks take one extra row, so
 * no rank has more than one row above another. */
static inline void even_block(int rank, int nprocs, int n, int *count, int *displ)
{
    int base = n / nprocs, extra = n % nprocs;
    *count = base + (rank < extra);
    *displ = rank * base + (rank < extra ? rank : extra);
}

/* A call that must not fail (an XMPI_ call, an allocation of scratch): when one does, the job
 * cannot go on consistently, so it stops here, as MPI's default error handler stops a job on a
 * failed MPI call. For the programs that keep error handling short (heat, cg3d). */
static inline void must(int rc, const char *call)
{
    if (rc == MONITOR_OK)
        return;
    fprintf(stderr, BENCH_NAME ": %s failed: %s\n", call, MONITOR_ERROR_STRING(rc));
    fflush(stderr);
    MPI_Abort(COMM, EXIT_RUNTIME);
}

/* nmemb elements of size bytes (nmemb may be 0), or the job stops saying so. */
static inline void *must_alloc(size_t nmemb, size_t size)
{
    void *p = nmemb <= SIZE_MAX / size ? malloc((nmemb ? nmemb : 1) * size) : NULL;
    if (!p) {
        fprintf(stderr, BENCH_NAME ": out of memory (%zu elements of %zu bytes)\n", nmemb, size);
        fflush(stderr);
        MPI_Abort(COMM, EXIT_RUNTIME);
    }
    return p;
}

/* n doubles of scratch, or the job stops saying so. */
static inline double *scratch(size_t n)
{
    return must_alloc(n, sizeof(double));
}

/* Test partition number `s` of n rows: random cut points and a random order of the blocks over
 * the ranks (empty blocks allowed), a function of s alone so every rank computes the same one.
 * scratch: room for 2 nprocs + 1 ints. */
static inline void test_partition(int n, int nprocs, uint64_t s, int *count, int *displ, int *scratch)
{
    int *cut = scratch, *owner = scratch + nprocs + 1;
    uint64_t h = splitmix64(s * 0x9e3779b97f4a7c15ULL + 17);
    cut[0] = 0;
    cut[nprocs] = n;
    for (int k = 1; k < nprocs; k++) {
        h = splitmix64(h);
        int c = (int)(h % ((uint64_t)n + 1)), at = k;
        while (at > 1 && cut[at - 1] > c) {
            cut[at] = cut[at - 1];
            at--;
        }
        cut[at] = c;
    }
    for (int k = 0; k < nprocs; k++)
        owner[k] = k;
    for (int k = nprocs - 1; k > 0; k--) {
        h = splitmix64(h);
        int j = (int)(h % (uint64_t)(k + 1)), t = owner[k];
        owner[k] = owner[j];
        owner[j] = t;
    }
    for (int k = 0; k < nprocs; k++) {
        count[owner[k]] = cut[k + 1] - cut[k];
        displ[owner[k]] = cut[k];
    }
}

/* A --NAME-shuffle=K test move (heat, cg3d): every registered array to test partition number s,
 * *count and *displ this process's new block. 0 or the XMPI error, the same on every process.
 * The plain builds refuse the option, so there it is never reached. */
static inline int shuffle_rows(int n, uint64_t s, int *count, int *displ)
{
#ifdef XMPI_PLAIN
    (void)n, (void)s, (void)count, (void)displ;
    return 0;
#else
    int rank, nprocs;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    int *part = malloc(sizeof *part * (4 * (size_t)nprocs + 1));
    if (!part)
        return XMPI_ERR_NOMEM;
    test_partition(n, nprocs, s, part, part + nprocs, part + 2 * nprocs);
    int rc = XMPI_Redistribute_data(*count, *displ, part[rank], part[nprocs + rank]);
    if (rc == XMPI_SUCCESS)
        *count = part[rank], *displ = part[nprocs + rank];
    free(part);
    return rc;
#endif
}

#ifndef XMPI_PLAIN
/* -d: rank 0's line for each change of the job's size that XMPI_Eval_reconfig made after
 * iteration it (counted from 1). */
static inline void announce(int rank, int it, int before, int after)
{
    if (rank != 0 || before == after)
        return;
    const int howmany = after > before ? after - before : before - after;
    printf(BENCH_NAME ": iteration %d: %s %d process%s (now %d)\n", it, after > before ? "spawned" : "removed",
           howmany, howmany == 1 ? "" : "es", after);
    fflush(stdout);
}
#endif

/* Matrix Market lines (jacobi -f, cg -m). */
static inline char *chomp(char *s)
{
    size_t len = strlen(s);
    while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
        s[--len] = '\0';
    return s;
}

static inline int is_skippable(const char *s)
{
    s += strspn(s, " \t\r\n");
    return *s == '\0' || *s == '%';
}

#endif
