/* Jacobi benchmark: solves a dense, diagonally dominant system Ax=b distributed by row blocks.
 * Built against libxmpi by default; -DXMPI_PLAIN builds the same code against plain MPI. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define BENCH_NAME "jacobi"
#include "example_util.h"
#include "example_timed.h"

/* This program's part of where the two builds differ; example_util.h holds the part all benchmarks share. */
#ifdef XMPI_PLAIN
#define HAVE_LBALANCE 0
#else
#define HAVE_LBALANCE 1
#endif

#define MAX_WEIGHTS 4096
#define MM_HEADER "%%MatrixMarket matrix array real general"

struct options {
    long order;
    int order_given;
    long iterations;
    uint64_t seed;
    const char *file;
    double tol;
    int balance;   /* -b: register the rows and call XMPI_Eval_lbalance each iteration */
    int dynamic;   /* -d: XMPI_Eval_reconfig each iteration (grow and shrink by --xmpi-policy) */
    long uneven;   /* -u K: the first quarter of the rows costs K times the others */
    int no_work;   /* -w: declare no work to the library */
    const char *stamps;   /* -T FILE: rank 0 writes when each iteration ended */
    double weights[MAX_WEIGHTS];   /* -p: initial blocks in proportion to these, one per rank */
    int nweights;
    int help;
};

struct problem {
    int n;
    int count, displ; /* this rank's rows */
    int from_file;
    double *a;        /* count x n, row-major */
    double *b;        /* count */
    double *x;        /* n, replicated */
    double *xloc;     /* count */
    int *counts, *displs;
    int hot, repeat;  /* rows [0, hot) are computed `repeat` times (-u) */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: jacobi [-n ORDER] [-i ITERATIONS] [-s SEED] [-f FILE] [-t TOL] [-p W,W,...] [-T FILE] [-b] [-d]\n"
            "              [-h]\n"
            "  -n ORDER       order of the generated system, 1 to %d (default 1000)\n"
            "  -i ITERATIONS  Jacobi sweeps to run, 0 to %d (default 100)\n"
            "  -s SEED        seed of the generated matrix, 0 to %llu (default 1)\n"
            "  -f FILE        read A from a square Matrix Market array file instead\n"
            "                 (header '%s'); x_true is all ones\n"
            "  -t TOL         stop once max|x_new - x_old| < TOL; 0 runs every iteration (default 0)\n"
            "  -p W,W,...     start from blocks in proportion to these weights, one positive number\n"
            "                 per rank in rank order (e.g. the ranks' relative speeds); default: even\n"
            "                 blocks\n"
            "  -b             balance the load: register A, b and x's rows with libxmpi and call\n"
            "                 XMPI_Eval_lbalance after each iteration (not in jacobi-plain)\n"
            "  -u K           uneven rows: the first quarter of the rows costs K times the others\n"
            "                 (each is computed K times; the result is the same bits), 1 to 64\n"
            "  -w             declare no work to the library (XMPI_Monitor_add_work), so that it sees\n"
            "                 only times; by default the work declared is what each rank computed\n"
            "  -T FILE        write when each iteration ended (seconds from the start of the loop, one\n"
            "                 line per iteration; rank 0) to FILE, for make bench-spawn\n"
            "  -d             malleable: call XMPI_Eval_reconfig after each iteration, so the job\n"
            "                 balances and grows or shrinks as --xmpi-policy decides (static, the\n"
            "                 default: balancing only; smp, hpmp: follow the offers and reclaims of\n"
            "                 --xmpi-rms). Registers the rows as -b does and x as a replicated\n"
            "                 vector. Spawned processes run this program with the same options,\n"
            "                 receive their rows (XMPI_Get_data) and resume at the next iteration;\n"
            "                 removed ones hand their rows over and exit 0 without a result line.\n"
            "                 Rank 0 prints a line per change; the result, whose ranks= and rows=\n"
            "                 show the final job, is the same bits as a static run. Not in\n"
            "                 jacobi-plain\n"
            "  -h             print this help\n",
            INT_MAX, INT_MAX, (unsigned long long)UINT64_MAX, MM_HEADER);
}

/* "W,W,...": positive finite numbers. 0, or -1 for anything else. */
static int parse_weights(const char *s, double *w, int *n)
{
    *n = 0;
    for (;;) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno || !isfinite(v) || !(v > 0) || *n == MAX_WEIGHTS) return -1;
        w[(*n)++] = v;
        if (*end == '\0') return 0;
        if (*end != ',') return -1;
        s = end + 1;
    }
}

/* Rows in proportion to w: each rank floor(n w / sum), then one more row to the largest
 * remainders (the lower rank on a tie), so that the blocks tile [0, n). */
static void weighted_blocks(int n, int nprocs, const double *w, int *counts, int *displs)
{
    double sum = 0;
    for (int r = 0; r < nprocs; r++) sum += w[r];
    long given = 0;
    for (int r = 0; r < nprocs; r++) {
        counts[r] = (int)floor((double)n * (w[r] / sum));
        given += counts[r];
    }
    for (long left = n - given; left > 0; left--) {
        int best = 0;
        double most = -1;
        for (int r = 0; r < nprocs; r++) {
            double frac = (double)n * (w[r] / sum) - counts[r];
            if (frac > most) {
                most = frac;
                best = r;
            }
        }
        counts[best]++;
    }
    for (int r = 0, d = 0; r < nprocs; d += counts[r], r++) displs[r] = d;
}

/* Every rank parses the same argv, so every rank reaches the same verdict. */
static int parse_options(int argc, char **argv, struct options *o, struct failure *f)
{
    *o = (struct options){.order = 1000, .iterations = 100, .seed = 1};

    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, ":n:i:s:f:t:p:u:T:wbdh")) != -1) {
        switch (c) {
        case 'n':
            if (parse_long(optarg, 1, INT_MAX, &o->order))
                return fail(f, EXIT_USAGE, "jacobi: bad order '-n %s': expected an integer from 1 to %d\n",
                            optarg, INT_MAX);
            o->order_given = 1;
            break;
        case 'i':
            if (parse_long(optarg, 0, INT_MAX, &o->iterations))
                return fail(f, EXIT_USAGE,
                            "jacobi: bad iteration count '-i %s': expected an integer from 0 to %d\n", optarg,
                            INT_MAX);
            break;
        case 's':
            if (parse_u64(optarg, &o->seed))
                return fail(f, EXIT_USAGE, "jacobi: bad seed '-s %s': expected an integer from 0 to %llu\n",
                            optarg, (unsigned long long)UINT64_MAX);
            break;
        case 'f':
            o->file = optarg;
            break;
        case 't':
            if (parse_double(optarg, 0.0, INFINITY, &o->tol))
                return fail(f, EXIT_USAGE,
                            "jacobi: bad tolerance '-t %s': expected a finite number >= 0 (0 runs every "
                            "iteration)\n",
                            optarg);
            break;
        case 'p':
            if (parse_weights(optarg, o->weights, &o->nweights))
                return fail(f, EXIT_USAGE,
                            "jacobi: bad weights '-p %s': expected 1 to %d comma-separated positive finite "
                            "numbers, one per rank\n",
                            optarg, MAX_WEIGHTS);
            break;
        case 'u':
            if (parse_long(optarg, 1, 64, &o->uneven))
                return fail(f, EXIT_USAGE, "jacobi: bad cost factor '-u %s': expected an integer from 1 "
                            "to 64\n", optarg);
            break;
        case 'w':
            o->no_work = 1;
            break;
        case 'T':
            o->stamps = optarg;
            break;
        case 'b':
            if (!HAVE_LBALANCE)
                return fail(f, EXIT_USAGE, "jacobi: -b needs libxmpi; jacobi-plain cannot balance\n");
            o->balance = 1;
            break;
        case 'd':
            if (!HAVE_LBALANCE)
                return fail(f, EXIT_USAGE,
                            "jacobi: -d needs libxmpi to spawn and remove processes; jacobi-plain cannot "
                            "(use jacobi)\n");
            o->dynamic = 1;
            break;
        case 'h':
            o->help = 1;
            return 0;
        case ':':
            return fail(f, EXIT_USAGE, "jacobi: option '-%c' needs a value (see jacobi -h)\n", optopt);
        default:
            if (optopt != '-')
                return fail(f, EXIT_USAGE,
                            "jacobi: unknown option '-%c'; accepted: -n ORDER -i ITERATIONS -s SEED -f FILE "
                            "-t TOL -p W,W,... -u K -T FILE -w -b -d -h\n",
                            optopt);
            /* getopt sees '--name' as an unknown '-' and does not say which word it was. */
            for (int k = 1; k < argc; k++)
                if (strncmp(argv[k], "--", 2) == 0 && argv[k][2] != '\0')
                    return fail(f, EXIT_USAGE,
                                "jacobi: unknown option '%s'; long options are not accepted, only -n ORDER "
                                "-i ITERATIONS -s SEED -f FILE -t TOL -p W,W,... -b -d -h\n",
                                argv[k]);
            return fail(f, EXIT_USAGE, "jacobi: unknown option '-'; accepted: -n -i -s -f -t -p -b -d -h\n");
        }
    }
    if (optind < argc)
        return fail(f, EXIT_USAGE,
                    "jacobi: unexpected argument '%s'; everything is given through options (see -h)\n",
                    argv[optind]);
    return 0;
}

static int allocate(struct problem *p, const struct options *o, int rank, int nprocs, struct failure *f)
{
    if (o->nweights) {
        int *c = alloc_array((size_t)nprocs, sizeof *c, f), *d = alloc_array((size_t)nprocs, sizeof *d, f);
        if (!f->code) {
            weighted_blocks(p->n, nprocs, o->weights, c, d);
            p->count = c[rank];
            p->displ = d[rank];
        }
        free(c);
        free(d);
        if (f->code) return -1;
    } else {
        even_block(rank, nprocs, p->n, &p->count, &p->displ);
    }
    p->a = alloc_array((size_t)p->count * (size_t)p->n, sizeof *p->a, f);
    p->b = alloc_array((size_t)p->count, sizeof *p->b, f);
    p->x = alloc_array((size_t)p->n, sizeof *p->x, f);
    p->xloc = alloc_array((size_t)p->count, sizeof *p->xloc, f);
    p->counts = alloc_array((size_t)nprocs, sizeof *p->counts, f);
    p->displs = alloc_array((size_t)nprocs, sizeof *p->displs, f);
    if (f->code)
        return -1;
    if (o->nweights)
        weighted_blocks(p->n, nprocs, o->weights, p->counts, p->displs);
    else
        for (int r = 0; r < nprocs; r++)
            even_block(r, nprocs, p->n, &p->counts[r], &p->displs[r]);
    for (int i = 0; i < p->n; i++)
        p->x[i] = 0.0;
    /* Overwritten by every sweep before it is read; written here so that its first touch (a
     * page fault per page, very slow in a VM) happens before the clock starts, in both builds. */
    for (int ii = 0; ii < p->count; ii++)
        p->xloc[ii] = 0.0;
    return 0;
}

static void release(struct problem *p)
{
    free(p->a);
    free(p->b);
    free(p->x);
    free(p->xloc);
    free(p->counts);
    free(p->displs);
}

/* A pure function of (seed, i, j), so no rank needs another rank's rows or the rank count. */
static double element(uint64_t seed, uint64_t i, uint64_t j)
{
    uint64_t h = splitmix64(splitmix64(splitmix64(seed) ^ i) ^ j);
    return (double)(h >> 11) * 0x1.0p-52 - 1.0; /* 53 random bits: exact, in [-1, 1) */
}

static double x_true(const struct problem *p, int i)
{
    return p->from_file ? 1.0 : 1.0 + (i % 7) / 8.0;
}

/* Row by row, j increasing, so b is the same bits on whichever rank owns the row. */
static void make_rhs(struct problem *p)
{
    for (int ii = 0; ii < p->count; ii++) {
        const double *row = p->a + (size_t)ii * p->n;
        double s = 0.0;
        for (int j = 0; j < p->n; j++)
            s += row[j] * x_true(p, j);
        p->b[ii] = s;
    }
}

static void generate(struct problem *p, uint64_t seed)
{
    for (int ii = 0; ii < p->count; ii++) {
        int i = p->displ + ii;
        double *row = p->a + (size_t)ii * p->n;
        double off = 0.0;
        for (int j = 0; j < p->n; j++) {
            row[j] = element(seed, (uint64_t)i, (uint64_t)j);
            if (j != i)
                off += fabs(row[j]);
        }
        row[i] = off + 1.0; /* strict diagonal dominance: Jacobi converges */
    }
    make_rhs(p);
}

static int header_ok(const char *line)
{
    char t[6][32];
    int got = sscanf(line, "%31s %31s %31s %31s %31s %31s", t[0], t[1], t[2], t[3], t[4], t[5]);
    return got == 5 && strcmp(t[0], "%%MatrixMarket") == 0 && strcasecmp(t[1], "matrix") == 0 &&
           strcasecmp(t[2], "array") == 0 && strcasecmp(t[3], "real") == 0 && strcasecmp(t[4], "general") == 0;
}

/* Every rank reads the whole file and keeps its rows: simple, and fine for the small matrices files hold. */
static int read_matrix(struct problem *p, const struct options *o, int rank, int nprocs, struct failure *f)
{
    const char *path = o->file;
    FILE *in = fopen(path, "r");
    if (!in)
        return fail(f, EXIT_USAGE, "jacobi: cannot read matrix file '%s' (-f): %s\n", path, strerror(errno));

    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;

    if (getline(&line, &cap, in) < 0) {
        fail(f, EXIT_USAGE, "jacobi: %s:1: file is empty; expected the header '%s'\n", path, MM_HEADER);
        goto out;
    }
    lineno = 1;
    if (!header_ok(chomp(line))) {
        fail(f, EXIT_USAGE, "jacobi: %s:1: unsupported header '%.80s'; accepted: '%s'\n", path, line,
             MM_HEADER);
        goto out;
    }

    long rows = 0, cols = 0;
    for (;;) {
        if (getline(&line, &cap, in) < 0) {
            fail(f, EXIT_USAGE, "jacobi: %s:%ld: file ends before the 'rows cols' line\n", path, lineno);
            goto out;
        }
        lineno++;
        if (is_skippable(line))
            continue;
        char *s = chomp(line), *end;
        errno = 0;
        rows = strtol(s, &end, 10);
        char *mid = end;
        cols = strtol(mid, &end, 10);
        if (mid == s || end == mid || end[strspn(end, " \t")] != '\0' || errno == ERANGE) {
            fail(f, EXIT_USAGE, "jacobi: %s:%ld: expected 'rows cols', found '%.80s'\n", path, lineno, s);
            goto out;
        }
        break;
    }
    if (rows != cols) {
        fail(f, EXIT_USAGE, "jacobi: %s:%ld: matrix is %ld x %ld; only square matrices are accepted\n", path,
             lineno, rows, cols);
        goto out;
    }
    if (rows < 1 || rows > INT_MAX) {
        fail(f, EXIT_USAGE, "jacobi: %s:%ld: order %ld out of range; accepted: 1 to %d\n", path, lineno, rows,
             INT_MAX);
        goto out;
    }
    if (o->order_given && o->order != rows) {
        fail(f, EXIT_USAGE,
             "jacobi: -n %ld does not match the order %ld of matrix file '%s'; leave -n out with -f\n", o->order,
             rows, path);
        goto out;
    }

    p->n = (int)rows;
    if (allocate(p, o, rank, nprocs, f))
        goto out;

    /* Column-major: value k sits at row k % n, column k / n. */
    const uint64_t total = (uint64_t)p->n * (uint64_t)p->n;
    const uint64_t lo = (uint64_t)p->displ, hi = lo + (uint64_t)p->count;
    uint64_t k = 0;
    while (getline(&line, &cap, in) >= 0) {
        lineno++;
        if (is_skippable(line))
            continue;
        char *s = chomp(line);
        for (;;) {
            s += strspn(s, " \t");
            if (*s == '\0')
                break;
            char *end;
            double v = strtod(s, &end);
            if (end == s || !isfinite(v) || (*end != '\0' && *end != ' ' && *end != '\t')) {
                fail(f, EXIT_USAGE, "jacobi: %s:%ld: expected a finite real number, found '%.40s'\n", path, lineno,
                     s);
                goto out;
            }
            if (k == total) {
                fail(f, EXIT_USAGE, "jacobi: %s:%ld: more than the %llu values a %d x %d matrix holds\n", path,
                     lineno, (unsigned long long)total, p->n, p->n);
                goto out;
            }
            uint64_t row = k % (uint64_t)p->n, col = k / (uint64_t)p->n;
            if (row >= lo && row < hi)
                p->a[(row - lo) * (uint64_t)p->n + col] = v;
            k++;
            s = end;
        }
    }
    if (ferror(in)) {
        fail(f, EXIT_USAGE, "jacobi: %s:%ld: read error: %s\n", path, lineno + 1, strerror(errno));
        goto out;
    }
    if (k < total) {
        fail(f, EXIT_USAGE, "jacobi: %s:%ld: file ends after %llu of the %llu values of a %d x %d matrix\n", path,
             lineno, (unsigned long long)k, (unsigned long long)total, p->n, p->n);
        goto out;
    }
    for (int ii = 0; ii < p->count; ii++) {
        int i = p->displ + ii;
        if (p->a[(size_t)ii * p->n + i] == 0.0) {
            fail(f, EXIT_USAGE, "jacobi: %s: diagonal entry (%d,%d) is zero; Jacobi divides by the diagonal\n",
                 path, i + 1, i + 1);
            goto out;
        }
    }
    p->from_file = 1;
    make_rhs(p);
out:
    free(line);
    fclose(in);
    return f->code ? -1 : 0;
}

/* Rows of this rank's block among the costly ones of -u. */
static int hot_rows(const struct problem *p)
{
    int end = p->displ + p->count < p->hot ? p->displ + p->count : p->hot;
    return end > p->displ ? end - p->displ : 0;
}

/* One sweep over this rank's rows. j runs in increasing order on every rank, so x comes out
 * bit-identical whatever the partition. Returns this rank's max |x_new - x_old|. */
static double sweep(struct problem *p)
{
    const int n = p->n;
    const double *x = p->x;
    double diff = 0.0;
    for (int ii = 0; ii < p->count; ii++) {
        const int i = p->displ + ii;
        const double *row = p->a + (size_t)ii * n;
        double s = 0.0;
        for (int k = i < p->hot ? p->repeat : 1; k > 0; k--) {
            /* -u: the same sum again; the barrier makes the compiler read row and x anew. */
            __asm__ __volatile__("" ::: "memory");
            s = 0.0;
            for (int j = 0; j < i; j++)
                s += row[j] * x[j];
            for (int j = i + 1; j < n; j++)
                s += row[j] * x[j];
        }
        double v = (p->b[ii] - s) / row[i];
        double d = fabs(v - x[i]);
        if (d > diff)
            diff = d;
        p->xloc[ii] = v;
    }
    return diff;
}

/* ||A x - b|| / ||b|| (rank 0), summed over the rows in global order rather than per rank, so
 * that it is the same bits whatever partition -b and -d have left. Returns agree()'s verdict. */
static int true_residual(const struct problem *p, int rank, int nprocs, double *out, struct failure *f)
{
    const int n = p->n;
    double *mine = alloc_array(2 * (size_t)p->count, sizeof *mine, f);
    double *all = rank == 0 ? alloc_array(2 * (size_t)n, sizeof *all, f) : NULL;
    int status = agree(f, rank, nprocs);
    if (!status) {
        for (int ii = 0; ii < p->count; ii++) {
            const double *row = p->a + (size_t)ii * n;
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += row[j] * p->x[j];
            double r = s - p->b[ii];
            mine[2 * ii] = r * r;
            mine[2 * ii + 1] = p->b[ii] * p->b[ii];
        }
        /* One element per row keeps the counts within int for any order. */
        MPI_Datatype pair;
        MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
        MPI_Type_commit(&pair);
        MPI_Gatherv(mine, p->count, pair, all, p->counts, p->displs, pair, 0, COMM);
        MPI_Type_free(&pair);
        if (rank == 0) {
            double rr = 0.0, bb = 0.0;
            for (int i = 0; i < n; i++) {
                rr += all[2 * i];
                bb += all[2 * i + 1];
            }
            *out = bb > 0 ? sqrt(rr) / sqrt(bb) : sqrt(rr);
        }
    }
    free(mine);
    free(all);
    return status;
}

#if HAVE_LBALANCE
#define JOINING() (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED)

/* The rows move with their data: A, b and x's local part are registered, and the library
 * frees the old buffers and stores the new ones in p after a move. -d also registers the whole
 * x as replicated, so that a spawned process receives it with its rows. `record` tells the
 * library the uneven blocks -p starts from; a spawned process, which registers the same
 * structures with NULL pointers, records nothing. */
static int register_rows(struct problem *p, int with_x, int record, struct failure *f)
{
    int rc = XMPI_Register_dense(&p->a, p->n, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc) rc = XMPI_Register_vector(&p->b, p->n, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc) rc = XMPI_Register_vector(&p->xloc, p->n, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc && with_x) rc = XMPI_Register_vector(&p->x, p->n, MPI_DOUBLE, XMPI_REPLICATED);
    if (rc) fail(f, EXIT_RUNTIME, "jacobi: registering the rows failed: %s\n", XMPI_Error_string(rc));
    /* Called even after a failed registration: the library then refuses the move on every
     * process alike, where skipping it here would leave the others waiting in it. */
    if (record && (rc = XMPI_Redistribute_data(p->count, p->displ, p->count, p->displ)))
        fail(f, EXIT_RUNTIME, "jacobi: XMPI_Redistribute_data recording the initial blocks failed: %s\n",
             XMPI_Error_string(rc));
    return f->code ? -1 : 0;
}

/* The matrix's order from a -f file's 'rows cols' line, for a spawned process, which takes
 * its rows from the others and reads nothing else (its parents checked the file). */
static int file_order(const char *path, struct failure *f)
{
    FILE *in = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long rows = -1;
    while (in && getline(&line, &cap, in) >= 0)
        if (line[0] != '%' && !is_skippable(line)) {
            rows = strtol(line, NULL, 10);
            break;
        }
    if (in) fclose(in);
    free(line);
    if (rows < 1 || rows > INT_MAX)
        return fail(f, EXIT_RUNTIME, "jacobi: a spawned process cannot read the order of '%s'\n", path);
    return (int)rows;
}

/* After the rows may have moved: rank and size from XMPI_COMM_WORLD, every rank's block from
 * the library, and one reduction (new processes included) saying whether any process failed. */
static int settle(struct problem *p, int *rank, int *nprocs, struct failure *f)
{
    MPI_Comm_rank(COMM, rank);
    MPI_Comm_size(COMM, nprocs);
    free(p->counts);
    free(p->displs);
    p->counts = alloc_array((size_t)*nprocs, sizeof *p->counts, f);
    p->displs = alloc_array((size_t)*nprocs, sizeof *p->displs, f);
    if (p->counts && p->displs) {
        for (int r = 0; r < *nprocs; r++)
            XMPI_Get_wsize(r, *nprocs, p->n, &p->counts[r], &p->displs[r]);
        p->count = p->counts[*rank];
        p->displ = p->displs[*rank];
    }
    int bad = f->code != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, COMM);
    return any;
}

/* After iteration `it` (-b, -d): XMPI_Eval_lbalance, or with -d XMPI_Eval_reconfig, which also
 * grows and shrinks the job as --xmpi-policy decides. 0: go on; 1: this process was removed
 * and must leave; -1: stop. */
static int rebalance(struct problem *p, int dynamic, int *rank, int *nprocs, int it, int maxit,
                     struct failure *f)
{
    const int before = *nprocs;
    int rc = dynamic ? XMPI_Eval_reconfig(*rank, *nprocs, it, maxit, &p->count, &p->displ, NULL, NULL, NULL)
                     : XMPI_Eval_lbalance(*rank, *nprocs, it, maxit, &p->count, &p->displ, NULL);
    if (rc)
        return fail(f, EXIT_RUNTIME, "jacobi: %s failed: %s\n",
                    dynamic ? "XMPI_Eval_reconfig" : "XMPI_Eval_lbalance", XMPI_Error_string(rc));
    if (XMPI_Get_process_status() == XMPI_REMOVED) return 1;
    int size;
    MPI_Comm_size(COMM, &size);
    if (size != before) {
        /* The new processes meet this in join(). */
        if (settle(p, rank, nprocs, f)) return -1;
        announce(*rank, it + 1, before, *nprocs);
        return 0;
    }
    for (int r = 0; r < size; r++) XMPI_Get_wsize(r, size, p->n, &p->counts[r], &p->displs[r]);
    return 0;
}

/* A process that -d spawned: the structures registered empty in the parents' order, then its
 * rows and the iteration to resume at, collectively with the parents' XMPI_Eval_reconfig. */
static int join(struct problem *p, const struct options *o, int *rank, int *nprocs, int *it,
                struct failure *f)
{
    p->from_file = o->file != NULL;
    p->n = o->file ? file_order(o->file, f) : (int)o->order;
    register_rows(p, 1, 0, f);
    int rc = XMPI_Get_data(it);
    if (rc)
        return fail(f, EXIT_RUNTIME, "jacobi: XMPI_Get_data failed: %s\n", XMPI_Error_string(rc));
    return settle(p, rank, nprocs, f) ? -1 : 0;
}
#else
#define JOINING() 0
static int register_rows(struct problem *p, int with_x, int record, struct failure *f)
{
    (void)p; (void)with_x; (void)record; (void)f;
    return 0;
}
static int rebalance(struct problem *p, int dynamic, int *rank, int *nprocs, int it, int maxit,
                     struct failure *f)
{
    (void)p; (void)dynamic; (void)rank; (void)nprocs; (void)it; (void)maxit; (void)f;
    return 0;
}
static int join(struct problem *p, const struct options *o, int *rank, int *nprocs, int *it,
                struct failure *f)
{
    (void)p; (void)o; (void)rank; (void)nprocs; (void)it;
    return fail(f, EXIT_RUNTIME, "jacobi: jacobi-plain cannot be spawned\n");
}
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();   /* a spawned process's clock; the others restart it below */
    int rank, nprocs;
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);

    struct options opt;
    struct failure f = {0};
    struct problem p = {0};
    int status = 0, stop = 0, left = 0, warned = 0, done_iters = 0;
    const int joining = JOINING();
    struct timed tm = {0};

    parse_options(argc, argv, &opt, &f);
    if (joining) {
        /* Started by -d: the parents accepted these options and wait for it in XMPI_Eval_reconfig. */
        stop = join(&p, &opt, &rank, &nprocs, &done_iters, &f) != 0;
        timed_prepare(&tm, opt.iterations - done_iters);
        timed_start(&tm);
    } else {
        if ((status = agree(&f, rank, nprocs)))
            goto done;
        if (opt.help) {
            if (rank == 0)
                usage(stdout);
            goto done;
        }

        if (opt.nweights && opt.nweights != nprocs) {
            fail(&f, EXIT_USAGE, "jacobi: -p gives %d weight(s) for %d ranks; give one per rank\n", opt.nweights,
                 nprocs);
        } else if (opt.file) {
            read_matrix(&p, &opt, rank, nprocs, &f);
        } else {
            p.n = (int)opt.order;
            if (allocate(&p, &opt, rank, nprocs, &f) == 0)
                generate(&p, opt.seed);
        }
        /* Registration ends in a collective: every rank must get there, or none. */
        if ((status = agree(&f, rank, nprocs)))
            goto done;
        /* Even blocks are what the library assumes at the first registration; only -p's need
         * recording, and a recording move would show in the trace as the first interval's action. */
        if (opt.balance || opt.dynamic)
            register_rows(&p, opt.dynamic, opt.nweights > 0, &f);
        if ((status = agree(&f, rank, nprocs)))
            goto done;

        if (rank == 0) {
            printf("jacobi: order %d, iterations %ld, ranks %d, source %s, library %s\n", p.n, opt.iterations,
                   nprocs, opt.file ? opt.file : "generated", LIBRARY_NAME);
            fflush(stdout);
        }
        timed_prepare(&tm, opt.iterations);
        /* The timed region: the iterations only. Start-up (MPI_Init, the library's included),
         * generating and first touching the problem, the residual and MPI_Finalize are outside. */
        MPI_Barrier(COMM);
        t0 = MPI_Wtime();
        timed_start(&tm);
    }

    const int n = p.n;
    p.hot = opt.uneven > 1 ? n / 4 : 0;
    p.repeat = opt.uneven > 1 ? (int)opt.uneven : 1;
    while (!stop && done_iters < opt.iterations) {
        monitor_check(MONITOR_BEGIN(), "XMPI_Monitor_iter_begin", rank, &f, &warned);
        double diff = sweep(&p);
        if (!opt.no_work)
            monitor_check(MONITOR_ADD_WORK(2.0 * n * (p.count + (double)(p.repeat - 1) * hot_rows(&p))),
                          "XMPI_Monitor_add_work", rank, &f, &warned);
        MPI_Allgatherv(p.xloc, p.count, MPI_DOUBLE, p.x, p.counts, p.displs, MPI_DOUBLE, COMM);
        /* One reduction settles both the stopping test and whether any rank failed, and it comes
         * before iter_end so a rank that failed never leaves the others in the library's collective. */
        double mine[2] = {diff, f.code ? 1.0 : 0.0}, all[2];
        MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, COMM);
        if (all[1] != 0.0)
            break;
        monitor_check(MONITOR_END(), "XMPI_Monitor_iter_end", rank, &f, &warned);
        done_iters++;
        timed_stamp(&tm, MPI_Wtime() - t0);
        if (opt.balance || opt.dynamic) {
            int a = rebalance(&p, opt.dynamic, &rank, &nprocs, done_iters - 1, (int)opt.iterations, &f);
            if (a) {
                left = a > 0;
                break;
            }
        }
        if (opt.tol > 0 && all[0] < opt.tol)
            break;
    }
    /* A removed process is no member of XMPI_COMM_WORLD any more: nothing to report. */
    if (left)
        goto done;
    /* A stop in the middle of a change may leave rank and size stale. */
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);
    double mine_t = MPI_Wtime() - t0, elapsed;
    if ((status = agree(&f, rank, nprocs)))
        goto done;
    MPI_Allreduce(&mine_t, &elapsed, 1, MPI_DOUBLE, MPI_MAX, COMM);
    timed_report(&tm, mine_t, rank, nprocs, opt.stamps);

    double residual = 0.0;
    if ((status = true_residual(&p, rank, nprocs, &residual, &f)))
        goto done;

    if (rank == 0) {
        double error = 0.0;
        for (int i = 0; i < n; i++) {
            double e = fabs(p.x[i] - x_true(&p, i));
            if (e > error || isnan(e))
                error = e;
        }
        uint64_t sum = fnv1a64(FNV1A64_BASIS, p.x, (size_t)n * sizeof *p.x);
        char rows[256] = "";
        for (int r = 0, used = 0; r < nprocs && used < (int)sizeof rows - 16; r++)
            used += snprintf(rows + used, sizeof rows - (size_t)used, "%s%d", r ? "," : "", p.counts[r]);
        printf("result: order=%d iterations=%d ranks=%d residual=%.17e error=%.17e checksum=%016llx time=%.6f "
               "iter_time=%.6f rows=%s\n",
               n, done_iters, nprocs, residual, error, (unsigned long long)sum, elapsed,
               done_iters ? elapsed / done_iters : 0.0, rows);
        fflush(stdout);
    }

done:
    release(&p);
    free(tm.stamp);
    MPI_Finalize();
    return status;
}
