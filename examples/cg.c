/* CG benchmark: unpreconditioned conjugate gradient on a sparse SPD matrix in CSR, rows in blocks.
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
#include <unistd.h>

#define BENCH_NAME "cg"
#include "example_util.h"
#include "example_timed.h"

/* This program's part of where the two builds differ; example_util.h holds the part all benchmarks share. */
#ifdef XMPI_PLAIN
#define MONITOR_SI_INIT() MONITOR_OK
#define GET_WSIZE(rank, nprocs, n, count, displ) (even_block(rank, nprocs, n, count, displ), 0)
#define REGISTER_SPARSE(ia, ja, a, n) ((void)(ia), (void)(ja), (void)(a), (void)(n), 0)
#define REGISTER_VECTOR(v, n) ((void)(v), (void)(n), 0)
/* Plain MPI has nothing to move rows with; --cg-shuffle is refused before it is needed. */
#define CAN_MOVE 0
#define REDISTRIBUTE(sc, sd, rc, rd) ((void)(sc), (void)(sd), (void)(rc), (void)(rd), 0)
/* Nor any halo view: cg-plain gathers the whole search direction every iteration. */
#define HAVE_HALO 0
#define GET_HALO(P) ((void)(P), 0)
#define REGISTER_HALO_VECTOR(P) ((void)(P), 0)
#define EXCHANGE(P) ((void)(P), 0)
#define JOINING() 0
#else
#define MONITOR_SI_INIT() XMPI_Monitor_si_init()
#define GET_WSIZE(rank, nprocs, n, count, displ) XMPI_Get_wsize(rank, nprocs, n, count, displ)
#define REGISTER_SPARSE(ia, ja, a, n) XMPI_Register_sparse(ia, ja, a, n, MPI_DOUBLE, XMPI_DISTRIBUTED)
#define REGISTER_VECTOR(v, n) XMPI_Register_vector(v, n, MPI_DOUBLE, XMPI_DISTRIBUTED)
#define CAN_MOVE 1
#define REDISTRIBUTE(sc, sd, rc, rd) XMPI_Redistribute_data(sc, sd, rc, rd)
/* The search direction's halo: the library's local column indices, p registered with room for
 * the halo after its block, and only the neighbours' values exchanged each iteration. */
#define HAVE_HALO 1
#define GET_HALO(P) XMPI_Get_halo(&(P)->ia, &(P)->lja, NULL, &(P)->nhalo)
#define REGISTER_HALO_VECTOR(P) XMPI_Register_halo_vector(&(P)->p, &(P)->ia, MPI_DOUBLE)
#define EXCHANGE(P) XMPI_Exchange(&(P)->p)
#define JOINING() (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED)
#endif

enum { SRC_POISSON, SRC_UNEVEN, SRC_FILE };

/* N^3 rows must fit the int row numbers of the CSR arrays and of MPI counts. */
#define POISSON_MAX 1290
/* Pasted into printf formats only, where %%%% prints the header's %%. */
#define MM_ACCEPTED "%%%%MatrixMarket matrix coordinate real|integer|pattern general|symmetric"
#define ACCEPTED "-g poisson3d:N|uneven:N[:SEED] -m FILE -i MAXIT -t TOL -v N -b -d --cg-shuffle=K --cg-allgather -h"

struct options {
    int source, source_given;
    long size;       /* poisson3d: grid edge N; uneven: rows */
    uint64_t seed;
    const char *file;
    char source_text[96];
    long maxit;
    double tol;
    long verbose;
    long shuffle;
    int allgather;   /* --cg-allgather: gather the whole direction each iteration (always in cg-plain) */
    int balance;     /* -b: XMPI_Eval_lbalance after each iteration */
    int dynamic;     /* -d: XMPI_Eval_reconfig each iteration (grow and shrink by --xmpi-policy) */
    int help;
};

struct problem {
    int n;
    long long nnz;       /* global */
    int count, displ;    /* this rank's block: re-read after every call that may move rows */
    int *ia, *ja;        /* registered: local CSR rows, global column numbers */
    double *a;
    double *b, *x, *r;   /* registered: this rank's parts */
    double *p;           /* registered: this rank's part, then (halo exchange) room for the halo */
    int *lja, nhalo;     /* halo exchange: the library's local column indices and halo size */
    int allgather;       /* --cg-allgather: p gathered whole into `full` each iteration instead */
    double *q;           /* A p on this rank's rows */
    int qcap;
    double *full;        /* n: p gathered, then x for the final check */
    double *prod;        /* n: one product per row, gathered for the dot products */
    int *counts, *displs;
    int *part;           /* --cg-shuffle: a new partition and its scratch, 4 nprocs + 1 */
};

/* One entry of a row being assembled. `key` orders entries of the same (row, col): the edge
 * number of the generator, or the line of the file, so merging sums in a fixed order. */
struct trip {
    int row;             /* local row */
    int col;
    long long key;
    double val;
};

struct trips {
    struct trip *t;
    size_t n, cap;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cg [-g poisson3d:N | -g uneven:N[:SEED] | -m FILE] [-i MAXIT] [-t TOL] [-v N]\n"
            "          [-b] [-d] [--cg-shuffle=K] [--cg-allgather] [-h]\n"
            "  -g poisson3d:N      7-point 3D Poisson stencil on an N x N x N grid, N from 1 to %d\n"
            "                      (default poisson3d:20)\n"
            "  -g uneven:N[:SEED]  N rows (1 to %d) with heavy-tailed nonzeros per row: the first\n"
            "                      rows are hubs with up to thousands of entries, most rows have a\n"
            "                      handful; SEED from 0 to %llu (default 1)\n"
            "  -m FILE             read A from a Matrix Market file with the header\n"
            "                      '" MM_ACCEPTED "'\n"
            "                      (pattern: off-diagonals 1, diagonal = off-diagonals in the row + 1)\n"
            "  -i MAXIT            at most MAXIT iterations, 0 to %d (default 1000)\n"
            "  -t TOL              stop once ||r|| <= TOL ||b||; 0 runs every iteration (default 1e-10)\n"
            "  -v N                a progress line every N iterations on rank 0; 0: none (default 0)\n"
            "  -b                  balance the load with XMPI_Eval_lbalance after each iteration\n"
            "                      (--xmpi-lb=nnz weighs rows by their nonzeros; not in cg-plain)\n"
            "  -d                  malleable: call XMPI_Eval_reconfig after each iteration instead of\n"
            "                      XMPI_Eval_lbalance, so the job balances and grows or shrinks as\n"
            "                      --xmpi-policy decides (static, the default: balancing only; smp,\n"
            "                      hpmp: follow the offers and reclaims of --xmpi-rms). Spawned\n"
            "                      processes run this program with the same options, receive their\n"
            "                      rows (XMPI_Get_data) and CG's scalars from rank 0, and resume at\n"
            "                      the next iteration without building the matrix; removed ones hand\n"
            "                      their rows over and exit 0 without a result line. Rank 0 prints a\n"
            "                      line per change; the result, whose ranks= shows the final job, is\n"
            "                      the same bits as a static run. Not in cg-plain\n"
            "  --cg-allgather      gather the whole search direction on every rank each iteration\n"
            "                      (MPI_Allgatherv), as cg-plain always does, instead of exchanging\n"
            "                      only the halo with the neighbours (XMPI_Exchange); the same bits\n"
            "  --cg-shuffle=K      test: every K iterations move the rows to another partition with\n"
            "                      XMPI_Redistribute_data (not in cg-plain); the answer must not change\n"
            "  -h                  print this help\n"
            "b = A x* with x*[i] = 1 + (i %% 7) / 7; x starts at 0.\n",
            POISSON_MAX, INT_MAX, (unsigned long long)UINT64_MAX, INT_MAX);
}

static int parse_source(const char *s, struct options *o)
{
    char buf[96];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    char *arg = colon + 1, *seed = strchr(arg, ':');
    if (seed)
        *seed++ = '\0';
    if (strcmp(buf, "poisson3d") == 0) {
        if (seed || parse_long(arg, 1, POISSON_MAX, &o->size))
            return -1;
        o->source = SRC_POISSON;
    } else if (strcmp(buf, "uneven") == 0) {
        if (parse_long(arg, 1, INT_MAX, &o->size) || (seed && parse_u64(seed, &o->seed)))
            return -1;
        o->source = SRC_UNEVEN;
    } else {
        return -1;
    }
    return 0;
}

/* Whether argv has the flag NAME before a "--"; every occurrence is taken out of argv, which
 * getopt would not know. */
static int take_flag_option(int *argc, char **argv, const char *name)
{
    int out = 1, k = 1, seen = 0;
    for (; k < *argc && strcmp(argv[k], "--") != 0; k++)
        if (strcmp(argv[k], name) == 0)
            seen = 1;
        else
            argv[out++] = argv[k];
    for (; k < *argc; k++)
        argv[out++] = argv[k];
    argv[out] = NULL;
    *argc = out;
    return seen;
}

/* Every rank parses the same argv, so every rank reaches the same verdict. */
static int parse_options(int argc, char **argv, struct options *o, struct failure *f)
{
    *o = (struct options){.source = SRC_POISSON, .size = 20, .seed = 1, .maxit = 1000, .tol = 1e-10};
    const char *plain =
        CAN_MOVE ? NULL : "is not accepted by cg-plain: moving rows needs libxmpi's XMPI_Redistribute_data (use cg)";
    if (take_count_option(&argc, argv, "--cg-shuffle", plain, &o->shuffle, f))
        return -1;
    o->allgather = !HAVE_HALO || take_flag_option(&argc, argv, "--cg-allgather");

    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, ":g:m:i:t:v:bdh")) != -1) {
        switch (c) {
        case 'g':
            if (o->file || o->source_given)
                return fail(f, EXIT_USAGE, "cg: '-g %s': give one matrix source, -g or -m, once\n", optarg);
            if (parse_source(optarg, o))
                return fail(f, EXIT_USAGE,
                            "cg: bad matrix '-g %s'; accepted: poisson3d:N (N from 1 to %d) or "
                            "uneven:N[:SEED] (N from 1 to %d, SEED from 0 to %llu)\n",
                            optarg, POISSON_MAX, INT_MAX, (unsigned long long)UINT64_MAX);
            o->source_given = 1;
            break;
        case 'm':
            if (o->file || o->source_given)
                return fail(f, EXIT_USAGE, "cg: '-m %s': give one matrix source, -g or -m, once\n", optarg);
            o->file = optarg;
            o->source = SRC_FILE;
            break;
        case 'i':
            if (parse_long(optarg, 0, INT_MAX, &o->maxit))
                return fail(f, EXIT_USAGE,
                            "cg: bad iteration count '-i %s': expected an integer from 0 to %d\n", optarg,
                            INT_MAX);
            break;
        case 't':
            if (parse_double(optarg, 0.0, INFINITY, &o->tol))
                return fail(f, EXIT_USAGE,
                            "cg: bad tolerance '-t %s': expected a finite number >= 0 (0 runs every "
                            "iteration)\n",
                            optarg);
            break;
        case 'v':
            if (parse_long(optarg, 0, INT_MAX, &o->verbose))
                return fail(f, EXIT_USAGE,
                            "cg: bad progress interval '-v %s': expected an integer from 0 to %d\n", optarg,
                            INT_MAX);
            break;
        case 'b':
            if (!CAN_MOVE)
                return fail(f, EXIT_USAGE, "cg: -b needs libxmpi to move rows; cg-plain cannot balance\n");
            o->balance = 1;
            break;
        case 'd':
            if (!CAN_MOVE)
                return fail(f, EXIT_USAGE,
                            "cg: -d needs libxmpi to spawn and remove processes; cg-plain cannot (use cg)\n");
            o->dynamic = 1;
            break;
        case 'h':
            o->help = 1;
            return 0;
        default:
            return refuse_getopt(c, argc, argv, ACCEPTED, f);
        }
    }
    if (refuse_operands(argc, argv, f))
        return -1;
    if (o->source == SRC_POISSON)
        snprintf(o->source_text, sizeof o->source_text, "poisson3d:%ld", o->size);
    else if (o->source == SRC_UNEVEN)
        snprintf(o->source_text, sizeof o->source_text, "uneven:%ld:%llu", o->size,
                 (unsigned long long)o->seed);
    return 0;
}

static void release(struct problem *p)
{
    free(p->ia);
    free(p->ja);
    free(p->a);
    free(p->b);
    free(p->x);
    free(p->r);
    free(p->p);
    free(p->q);
    free(p->full);
    free(p->prod);
    free(p->counts);
    free(p->displs);
    free(p->part);
}

/* 53 random bits as a double in [0, 1): exact, the same on every rank. */
static double unit(uint64_t h)
{
    return (double)(h >> 11) * 0x1.0p-53;
}

static double x_star(int i)
{
    return 1.0 + (i % 7) / 7.0;
}

/* ---- building the local rows -------------------------------------------------------- */

static int local_nnz_ok(size_t nnz, int rank, struct failure *f)
{
    if (nnz <= (size_t)INT_MAX)
        return 0;
    return fail(f, EXIT_RUNTIME,
                "cg: rank %d would hold %zu nonzeros, more than int row pointers index (%d); use more ranks\n",
                rank, nnz, INT_MAX);
}

static int poisson3d(struct problem *P, int g, int rank, struct failure *f)
{
    const int n = P->n, g2 = g * g;
    size_t cap = (size_t)P->count * 7;
    if (local_nnz_ok(cap, rank, f))
        return -1;
    P->ia = alloc_array((size_t)P->count + 1, sizeof *P->ia, f);
    P->ja = alloc_array(cap, sizeof *P->ja, f);
    P->a = alloc_array(cap, sizeof *P->a, f);
    if (f->code)
        return -1;
    int nz = 0;
    for (int ii = 0; ii < P->count; ii++) {
        const int i = P->displ + ii, ix = i % g, iy = (i / g) % g, iz = i / g2;
        /* Columns in increasing order, so every row is summed the same way wherever it lives. */
        const int cols[7] = {iz > 0 ? i - g2 : -1, iy > 0 ? i - g : -1,    ix > 0 ? i - 1 : -1, i,
                             ix < g - 1 ? i + 1 : -1, iy < g - 1 ? i + g : -1, iz < g - 1 ? i + g2 : -1};
        P->ia[ii] = nz;
        for (int k = 0; k < 7; k++) {
            if (cols[k] < 0 || cols[k] >= n)
                continue;
            P->ja[nz] = cols[k];
            P->a[nz] = cols[k] == i ? 6.0 : -1.0;
            nz++;
        }
    }
    P->ia[P->count] = nz;
    return 0;
}

static int trips_add(struct trips *T, int row, int col, long long key, double val, struct failure *f)
{
    if (T->n == T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 1024;
        struct trip *t = cap <= SIZE_MAX / sizeof *t ? realloc(T->t, cap * sizeof *t) : NULL;
        if (!t)
            return fail(f, EXIT_RUNTIME, "cg: out of memory (%zu matrix entries)\n", cap);
        T->t = t;
        T->cap = cap;
    }
    T->t[T->n++] = (struct trip){row, col, key, val};
    return 0;
}

static int trip_order(const void *pa, const void *pb)
{
    const struct trip *a = pa, *b = pb;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return (a->key > b->key) - (a->key < b->key);
}

/* CSR from the sorted entries of the local rows. Entries at the same place are summed in key
 * order. dominant: the diagonal becomes sum |off-diagonals| + 1 (strict diagonal dominance, so
 * SPD for a symmetric pattern), summed in column order: both are the same on every rank. */
static int build_csr(struct problem *P, const struct trips *T, int dominant, int rank, struct failure *f)
{
    size_t cap = T->n + (size_t)P->count;
    if (local_nnz_ok(cap, rank, f))
        return -1;
    P->ia = alloc_array((size_t)P->count + 1, sizeof *P->ia, f);
    P->ja = alloc_array(cap, sizeof *P->ja, f);
    P->a = alloc_array(cap, sizeof *P->a, f);
    if (f->code)
        return -1;
    size_t k = 0;
    int nz = 0;
    for (int ii = 0; ii < P->count; ii++) {
        const int row = P->displ + ii, start = nz;
        P->ia[ii] = nz;
        while (k < T->n && T->t[k].row == ii) {
            const int col = T->t[k].col;
            double v = T->t[k++].val;
            while (k < T->n && T->t[k].row == ii && T->t[k].col == col)
                v += T->t[k++].val;
            if (dominant && col == row)
                continue;
            P->ja[nz] = col;
            P->a[nz] = v;
            nz++;
        }
        if (!dominant)
            continue;
        double off = 0.0;
        int at = nz;
        for (int q = start; q < nz; q++) {
            off += fabs(P->a[q]);
            if (at == nz && P->ja[q] > row)
                at = q;
        }
        memmove(P->ja + at + 1, P->ja + at, sizeof *P->ja * (size_t)(nz - at));
        memmove(P->a + at + 1, P->a + at, sizeof *P->a * (size_t)(nz - at));
        P->ja[at] = row;
        P->a[at] = off + 1.0;
        nz++;
    }
    P->ia[P->count] = nz;
    return 0;
}

/* Three edges per row i, drawn from the seed and the edge number alone: one to a uniformly
 * random row, two to hubs: a uniform row below 2^L with L uniform in 0..ceil(log2 n), so row k
 * gets about 4n / ((k + 1) log2 n) of them (a Zipf law; integer arithmetic only, so every
 * host draws the same). Every rank walks the whole edge list and keeps the ends that fall in
 * its rows, so the pattern is symmetric and independent of the partition. */
static int uneven(struct problem *P, uint64_t seed, int rank, struct failure *f)
{
    const long long n = P->n, edges = 3 * n;
    const long long lo = P->displ, hi = lo + P->count;
    const uint64_t s = splitmix64(seed ^ 0x6a09e667f3bcc909ULL);
    int levels = 1;
    while ((1LL << (levels - 1)) < n)
        levels++;
    struct trips T = {0};
    for (long long k = 0; k < edges; k++) {
        const long long i = k / 3;
        const uint64_t h = splitmix64(s ^ (uint64_t)k), h2 = splitmix64(h);
        uint64_t range = (uint64_t)n;
        if (k % 3 != 0) {
            int level = (int)(h % (uint64_t)levels);
            if ((1LL << level) < n)
                range = 1ULL << level;
        }
        const long long j = (long long)(h2 % range);
        if (j == i)
            continue;
        const double v = -(0.1 + 0.9 * unit(splitmix64(h2)));
        if (i >= lo && i < hi && trips_add(&T, (int)(i - lo), (int)j, k, v, f))
            break;
        if (j >= lo && j < hi && trips_add(&T, (int)(j - lo), (int)i, k, v, f))
            break;
    }
    if (!f->code) {
        qsort(T.t, T.n, sizeof *T.t, trip_order);
        build_csr(P, &T, 1, rank, f);
    }
    free(T.t);
    return f->code ? -1 : 0;
}

/* ---- Matrix Market ---------------------------------------------------------------------- */

/* Splits s into at most max whitespace-separated fields; returns how many there are. */
static int fields(char *s, char **tok, int max)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n < max)
            tok[n] = t;
        n++;
    }
    return n;
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

enum { FIELD_REAL, FIELD_INTEGER, FIELD_PATTERN };

struct mm {
    const char *path;
    FILE *in;
    char *line;
    size_t cap;
    long lineno;
    int field, symmetric;
    long long rows, entries;   /* from the size line */
    long size_line;
};

static int mm_header(struct mm *m, struct failure *f)
{
    const char *path = m->path;
    if (getline(&m->line, &m->cap, m->in) < 0)
        return fail(f, EXIT_USAGE, "cg: %s:1: file is empty; expected the header '" MM_ACCEPTED "'\n", path);
    m->lineno = 1;
    char *t[6], copy[256];
    snprintf(copy, sizeof copy, "%s", chomp(m->line));
    int nt = fields(m->line, t, 6);
    if (nt < 1 || strcmp(t[0], "%%MatrixMarket") != 0)
        return fail(f, EXIT_USAGE,
                    "cg: %s:1: not a Matrix Market file: '%.80s'; the first line must be '" MM_ACCEPTED "'\n",
                    path, copy);
    if (nt != 5)
        return fail(f, EXIT_USAGE, "cg: %s:1: header '%.80s' has %d words; accepted: '" MM_ACCEPTED "'\n", path,
                    copy, nt);
    if (strcasecmp(t[1], "matrix") != 0)
        return fail(f, EXIT_USAGE, "cg: %s:1: object '%s' is not accepted; accepted: matrix\n", path, t[1]);
    if (strcasecmp(t[2], "coordinate") != 0)
        return fail(f, EXIT_USAGE,
                    "cg: %s:1: format '%s' is not accepted; accepted: coordinate (sparse entries)\n", path, t[2]);
    if (strcasecmp(t[3], "real") == 0)
        m->field = FIELD_REAL;
    else if (strcasecmp(t[3], "integer") == 0)
        m->field = FIELD_INTEGER;
    else if (strcasecmp(t[3], "pattern") == 0)
        m->field = FIELD_PATTERN;
    else
        return fail(f, EXIT_USAGE, "cg: %s:1: field '%s' is not accepted; accepted: real, integer, pattern\n",
                    path, t[3]);
    if (strcasecmp(t[4], "general") == 0)
        m->symmetric = 0;
    else if (strcasecmp(t[4], "symmetric") == 0)
        m->symmetric = 1;
    else
        return fail(f, EXIT_USAGE, "cg: %s:1: symmetry '%s' is not accepted; accepted: general, symmetric\n",
                    path, t[4]);
    return 0;
}

/* The entries of a general file: each off-diagonal (i, j) of a local row must have a mirror
 * (j, i) of the same value, which this rank has collected from the entries in its columns. */
static int mm_check_mirror(const struct mm *m, const struct problem *P, const struct trips *D,
                           const struct trips *M, struct failure *f)
{
    size_t a = 0, b = 0;
    while (a < D->n || b < M->n) {
        if (a < D->n && D->t[a].row + P->displ == D->t[a].col) {
            a++;
            continue;
        }
        int c = a == D->n ? 1 : b == M->n ? -1 : trip_order(&(struct trip){D->t[a].row, D->t[a].col, 0, 0},
                                                             &(struct trip){M->t[b].row, M->t[b].col, 0, 0});
        if (c < 0) {
            const struct trip *e = &D->t[a];
            return fail(f, EXIT_USAGE,
                        "cg: %s:%lld: entry (%d,%d) has no mirror entry (%d,%d); CG needs a symmetric matrix\n",
                        m->path, e->key, e->row + P->displ + 1, e->col + 1, e->col + 1, e->row + P->displ + 1);
        }
        if (c > 0) {
            const struct trip *e = &M->t[b];
            return fail(f, EXIT_USAGE,
                        "cg: %s:%lld: entry (%d,%d) has no mirror entry (%d,%d); CG needs a symmetric matrix\n",
                        m->path, e->key, e->col + 1, e->row + P->displ + 1, e->row + P->displ + 1, e->col + 1);
        }
        if (D->t[a].val != M->t[b].val)
            return fail(f, EXIT_USAGE,
                        "cg: %s:%lld: entry (%d,%d) = %.17g differs from its mirror (%d,%d) = %.17g on line %lld; "
                        "CG needs a symmetric matrix\n",
                        m->path, D->t[a].key, D->t[a].row + P->displ + 1, D->t[a].col + 1, D->t[a].val,
                        D->t[a].col + 1, D->t[a].row + P->displ + 1, M->t[b].val, M->t[b].key);
        a++;
        b++;
    }
    return 0;
}

/* mirrors: T holds the entries of the local columns, transposed (general files). */
static int mm_duplicates(const struct mm *m, const struct problem *P, const struct trips *T, int mirrors,
                         struct failure *f)
{
    for (size_t k = 1; k < T->n; k++)
        if (T->t[k].row == T->t[k - 1].row && T->t[k].col == T->t[k - 1].col) {
            int i = T->t[k].row + P->displ + 1, j = T->t[k].col + 1;
            /* Report (row, col) as the file writes them: transposed entries are upper, or mirrors. */
            if (mirrors || (m->symmetric && j > i)) {
                int s = i;
                i = j;
                j = s;
            }
            return fail(f, EXIT_USAGE, "cg: %s:%lld: entry (%d,%d) repeats the entry on line %lld\n", m->path,
                        T->t[k].key, i, j, T->t[k - 1].key);
        }
    return 0;
}

/* The 'rows cols entries' line after the header and comments: a square matrix that int row
 * numbers index, and a count of entries >= 0. */
static int mm_size(struct mm *m, struct failure *f)
{
    const char *path = m->path;
    long long cols = 0;
    for (;;) {
        if (getline(&m->line, &m->cap, m->in) < 0)
            return fail(f, EXIT_USAGE, "cg: %s:%ld: file ends before the 'rows cols entries' line\n", path,
                        m->lineno);
        m->lineno++;
        if (!is_skippable(m->line))
            break;
    }
    char *t[4], copy[128];
    snprintf(copy, sizeof copy, "%s", chomp(m->line));
    if (fields(m->line, t, 4) != 3 || parse_ll(t[0], &m->rows) || parse_ll(t[1], &cols) ||
        parse_ll(t[2], &m->entries))
        return fail(f, EXIT_USAGE, "cg: %s:%ld: expected 'rows cols entries' (three integers), found '%.80s'\n",
                    path, m->lineno, copy);
    m->size_line = m->lineno;
    if (m->rows != cols)
        return fail(f, EXIT_USAGE, "cg: %s:%ld: matrix is %lld x %lld; CG needs a square matrix\n", path,
                    m->size_line, m->rows, cols);
    if (m->rows < 1 || m->rows > INT_MAX)
        return fail(f, EXIT_USAGE, "cg: %s:%ld: order %lld out of range; accepted: 1 to %d\n", path, m->size_line,
                    m->rows, INT_MAX);
    if (m->entries < 0)
        return fail(f, EXIT_USAGE, "cg: %s:%ld: %lld entries; expected a count >= 0\n", path, m->size_line,
                    m->entries);
    return 0;
}

/* The entry on the line just read: its row and column, 1-based and within the order, and its
 * value (1 in a pattern file). */
static int mm_entry(const struct mm *m, long long *i, long long *j, double *v, struct failure *f)
{
    const char *path = m->path;
    const int want = m->field == FIELD_PATTERN ? 2 : 3;
    char *t[4], copy[128];
    snprintf(copy, sizeof copy, "%s", chomp(m->line));
    long long iv;
    *v = 1.0;
    if (fields(m->line, t, 4) != want || parse_ll(t[0], i) || parse_ll(t[1], j))
        return fail(f, EXIT_USAGE, "cg: %s:%ld: expected '%s', found '%.80s'\n", path, m->lineno,
                    want == 2 ? "row col" : "row col value", copy);
    if (m->field == FIELD_REAL) {
        char *end;
        *v = strtod(t[2], &end);
        if (end == t[2] || *end != '\0' || !isfinite(*v))
            return fail(f, EXIT_USAGE, "cg: %s:%ld: value '%.40s' is not a finite real number\n", path, m->lineno,
                        t[2]);
    } else if (m->field == FIELD_INTEGER) {
        if (parse_ll(t[2], &iv))
            return fail(f, EXIT_USAGE, "cg: %s:%ld: value '%.40s' is not an integer (the header says integer)\n",
                        path, m->lineno, t[2]);
        *v = (double)iv;
    }
    const long long rows = m->rows;
    if (*i < 1 || *i > rows || *j < 1 || *j > rows)
        return fail(f, EXIT_USAGE, "cg: %s:%ld: %s index %lld out of range; accepted: 1 to %lld\n", path,
                    m->lineno, *i < 1 || *i > rows ? "row" : "column", *i < 1 || *i > rows ? *i : *j, rows);
    if (m->symmetric && *i < *j)
        return fail(f, EXIT_USAGE,
                    "cg: %s:%ld: entry (%lld,%lld) lies above the diagonal; a symmetric file holds the lower "
                    "triangle only\n",
                    path, m->lineno, *i, *j);
    return 0;
}

/* The entries, as many as the size line declares: those in this rank's rows go to D (both
 * triangles of a symmetric file), and for a general file the transposed entries of its rows'
 * columns go to M, for the mirror check. */
static int mm_entries(struct mm *m, const struct problem *P, struct trips *D, struct trips *M, struct failure *f)
{
    const long long lo = P->displ, hi = lo + P->count;
    long long k = 0;
    while (getline(&m->line, &m->cap, m->in) >= 0) {
        m->lineno++;
        if (is_skippable(m->line))
            continue;
        if (k == m->entries)
            return fail(f, EXIT_USAGE, "cg: %s:%ld: more entries than the %lld that line %ld declares\n", m->path,
                        m->lineno, m->entries, m->size_line);
        long long i = 0, j = 0;
        double v;
        if (mm_entry(m, &i, &j, &v, f))
            return -1;
        i--, j--;
        if (i >= lo && i < hi && trips_add(D, (int)(i - lo), (int)j, m->lineno, v, f))
            return -1;
        if (i != j && j >= lo && j < hi && trips_add(m->symmetric ? D : M, (int)(j - lo), (int)i, m->lineno, v, f))
            return -1;
        k++;
    }
    if (ferror(m->in))
        return fail(f, EXIT_USAGE, "cg: %s:%ld: read error: %s\n", m->path, m->lineno + 1, strerror(errno));
    if (k < m->entries)
        return fail(f, EXIT_USAGE, "cg: %s:%ld: file ends after %lld of the %lld entries that line %ld declares\n",
                    m->path, m->lineno, k, m->entries, m->size_line);
    return 0;
}

/* Without a positive diagonal the matrix cannot be SPD; say so instead of diverging. D: the
 * entries the rows were built from, for the line to name. */
static int mm_check_diagonal(const struct problem *P, const struct trips *D, const char *path, struct failure *f)
{
    for (int ii = 0; ii < P->count; ii++) {
        const int row = P->displ + ii;
        double d = 0.0;
        int found = 0;
        for (int q = P->ia[ii]; q < P->ia[ii + 1]; q++)
            if (P->ja[q] == row)
                d = P->a[q], found = 1;
        if (found && d > 0)
            continue;
        long long line = 0;
        for (size_t e = 0; e < D->n; e++)
            if (D->t[e].row == ii && D->t[e].col == row)
                line = D->t[e].key;
        if (found)
            return fail(f, EXIT_USAGE,
                        "cg: %s:%lld: diagonal entry (%d,%d) is %g; CG needs a positive definite matrix\n", path,
                        line, row + 1, row + 1, d);
        return fail(f, EXIT_USAGE,
                    "cg: %s: diagonal entry (%d,%d) is missing; CG needs a positive definite matrix\n", path,
                    row + 1, row + 1);
    }
    return 0;
}

/* Every rank reads the whole file and keeps its rows: simple, and fine for the small matrices files hold. */
static int read_matrix_market(struct problem *P, const char *path, int rank, int nprocs, struct failure *f)
{
    struct mm m = {.path = path};
    struct trips D = {0}, M = {0};
    m.in = fopen(path, "r");
    if (!m.in)
        return fail(f, EXIT_USAGE, "cg: cannot read matrix file '%s' (-m): %s\n", path, strerror(errno));
    if (mm_header(&m, f) || mm_size(&m, f))
        goto out;
    P->n = (int)m.rows;
    if (GET_WSIZE(rank, nprocs, P->n, &P->count, &P->displ)) {
        fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Get_wsize refused %d rows on %d ranks\n", rank, P->n, nprocs);
        goto out;
    }
    if (mm_entries(&m, P, &D, &M, f))
        goto out;
    qsort(D.t, D.n, sizeof *D.t, trip_order);
    qsort(M.t, M.n, sizeof *M.t, trip_order);
    if (mm_duplicates(&m, P, &D, 0, f) || mm_duplicates(&m, P, &M, 1, f))
        goto out;
    if (!m.symmetric && mm_check_mirror(&m, P, &D, &M, f))
        goto out;
    if (m.field == FIELD_PATTERN) {
        /* A pattern has no values: off-diagonals 1 and a dominant diagonal make it SPD. */
        build_csr(P, &D, 1, rank, f);
        goto out;
    }
    if (build_csr(P, &D, 0, rank, f) == 0)
        mm_check_diagonal(P, &D, path, f);
out:
    free(D.t);
    free(M.t);
    free(m.line);
    fclose(m.in);
    return f->code ? -1 : 0;
}

/* ---- the solver ----------------------------------------------------------------------- */

/* Left to right over the whole vector in global row order: the same operations in the same
 * order on every rank and for every partition, hence the same bits. */
static double ordered_sum(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

/* Everyone's block, after any call that may have moved rows, and room for A p on the new block. */
static int refresh(struct problem *P, int rank, int nprocs, struct failure *f)
{
    for (int k = 0; k < nprocs; k++)
        if (GET_WSIZE(k, nprocs, P->n, &P->counts[k], &P->displs[k]))
            return fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Get_wsize failed for rank %d\n", rank, k);
    P->count = P->counts[rank];
    P->displ = P->displs[rank];
    /* The view, once there, was rebuilt with the move: this returns at once. */
    int rc = P->lja ? GET_HALO(P) : 0;
    if (rc)
        return fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Get_halo failed: %s\n", rank, MONITOR_ERROR_STRING(rc));
    if (P->count > P->qcap || !P->q) {
        free(P->q);
        P->q = alloc_array((size_t)P->count, sizeof *P->q, f);
        if (!P->q)
            return -1;
        P->qcap = P->count;
    }
    return 0;
}

/* The direction with room for its halo after the block, on the processes mpirun started, after
 * the other registrations: the view first (collective), then p grown to hold the halo. A process
 * that -d spawned holds no rows yet: register_rows registers its p as it is. */
static int register_direction(struct problem *P, int rank, struct failure *f)
{
    int rc = GET_HALO(P);
    if (rc)
        return fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Get_halo failed: %s\n", rank, MONITOR_ERROR_STRING(rc));
    double *p = alloc_array((size_t)P->count + (size_t)P->nhalo, sizeof *p, f);
    if (!p)
        return -1;
    memcpy(p, P->p, sizeof *p * (size_t)P->count);
    free(P->p);
    P->p = p;
    if ((rc = REGISTER_HALO_VECTOR(P)))
        return fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Register_halo_vector failed: %s\n", rank,
                    MONITOR_ERROR_STRING(rc));
    return 0;
}

/* The loop re-reads everything it uses through these addresses after a move. A process that
 * -d spawned registers the same structures, in the same order, with NULL pointers. */
static int register_rows(struct problem *P, int rank, struct failure *f)
{
    int rc = REGISTER_SPARSE(&P->ia, &P->ja, &P->a, P->n);
    if (!rc)
        rc = REGISTER_VECTOR(&P->b, P->n);
    if (!rc)
        rc = REGISTER_VECTOR(&P->x, P->n);
    if (!rc)
        rc = REGISTER_VECTOR(&P->r, P->n);
    if (!rc && P->allgather)
        rc = REGISTER_VECTOR(&P->p, P->n);
    else if (!rc && JOINING())
        rc = REGISTER_HALO_VECTOR(P);
    if (rc)
        return fail(f, EXIT_RUNTIME, "cg: rank %d: registering the distributed arrays failed: %s\n", rank,
                    MONITOR_ERROR_STRING(rc));
    return 0;
}

static int setup(struct problem *P, const struct options *o, int rank, int nprocs, struct failure *f)
{
    P->allgather = o->allgather;
    if (o->source == SRC_FILE) {
        if (read_matrix_market(P, o->file, rank, nprocs, f))
            return -1;
    } else {
        long long rows = o->source == SRC_POISSON ? (long long)o->size * o->size * o->size : o->size;
        P->n = (int)rows;
        if (GET_WSIZE(rank, nprocs, P->n, &P->count, &P->displ))
            return fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Get_wsize refused %d rows\n", rank, P->n);
        if (o->source == SRC_POISSON ? poisson3d(P, (int)o->size, rank, f) : uneven(P, o->seed, rank, f))
            return -1;
    }
    const int c = P->count;
    P->b = alloc_array((size_t)c, sizeof *P->b, f);
    P->x = alloc_array((size_t)c, sizeof *P->x, f);
    P->r = alloc_array((size_t)c, sizeof *P->r, f);
    P->p = alloc_array((size_t)c, sizeof *P->p, f);
    P->full = alloc_array((size_t)P->n, sizeof *P->full, f);
    P->prod = alloc_array((size_t)P->n, sizeof *P->prod, f);
    P->counts = alloc_array((size_t)nprocs, sizeof *P->counts, f);
    P->displs = alloc_array((size_t)nprocs, sizeof *P->displs, f);
    P->part = alloc_array(4 * (size_t)nprocs + 1, sizeof *P->part, f);
    if (f->code)
        return -1;
    /* Row by row in stored column order, so b is the same bits on whichever rank owns the row. */
    for (int ii = 0; ii < c; ii++) {
        double s = 0.0;
        for (int k = P->ia[ii]; k < P->ia[ii + 1]; k++)
            s += P->a[k] * x_star(P->ja[k]);
        P->b[ii] = s;
        P->x[ii] = 0.0;
        P->r[ii] = s;
        P->p[ii] = s;
    }
    if (register_rows(P, rank, f))
        return -1;
    return refresh(P, rank, nprocs, f);
}

/* Gathers this rank's products (already at prod[displ..]) and sums them in global order. */
static double gathered_sum(struct problem *P)
{
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, P->prod, P->counts, P->displs, MPI_DOUBLE, COMM);
    return ordered_sum(P->prod, P->n);
}

#ifndef XMPI_PLAIN

/* What a spawned process cannot take from its options or the moved rows: the nonzeros for the
 * result line, and the scalars CG carries from one iteration to the next, as bits, so that it
 * goes on exactly as the others. Rank 0 sends it after every change of the job's size. */
struct join_header {
    long long nnz;
    double rr, bb;
};

/* After the job changed: rank and size from the new XMPI_COMM_WORLD, the per-rank arrays sized
 * for it, every rank's block from the library; then one reduction (new processes included)
 * saying whether any process failed, and rank 0's header. */
static int settle(struct problem *P, int *rank, int *nprocs, double *rr, double *bb, struct failure *f)
{
    MPI_Comm_rank(COMM, rank);
    MPI_Comm_size(COMM, nprocs);
    free(P->counts);
    free(P->displs);
    free(P->part);
    P->counts = alloc_array((size_t)*nprocs, sizeof *P->counts, f);
    P->displs = alloc_array((size_t)*nprocs, sizeof *P->displs, f);
    P->part = alloc_array(4 * (size_t)*nprocs + 1, sizeof *P->part, f);
    if (P->counts && P->displs && P->part)
        refresh(P, *rank, *nprocs, f);
    struct join_header h = {P->nnz, *rr, *bb};
    MPI_Bcast(&h, (int)sizeof h, MPI_BYTE, 0, COMM);
    P->nnz = h.nnz;
    *rr = h.rr;
    *bb = h.bb;
    return any_failed(f);
}

/* The order a spawned process registers its rows with: from its options, or a -m file's size
 * line (its parents read and checked the file; it takes its rows from them). */
static int joining_order(const struct options *o, struct failure *f)
{
    if (o->source != SRC_FILE)
        return (int)(o->source == SRC_POISSON ? (long long)o->size * o->size * o->size : o->size);
    struct mm m = {.path = o->file};
    m.in = fopen(o->file, "r");
    int n = m.in && !mm_header(&m, f) && !mm_size(&m, f) ? (int)m.rows : 0;
    if (m.in)
        fclose(m.in);
    free(m.line);
    if (!n)
        fail(f, EXIT_RUNTIME, "cg: a spawned process cannot read the order of '%s'\n", o->file);
    return n;
}

/* A process that -d spawned: the structures registered empty, then its rows and the iteration
 * to resume at, collectively with the parents' XMPI_Eval_reconfig. It builds and reads no
 * matrix. */
static int join(struct problem *P, const struct options *o, int *rank, int *nprocs, int *it, double *rr,
                double *bb, struct failure *f)
{
    P->n = joining_order(o, f);
    P->allgather = o->allgather;
    P->full = alloc_array((size_t)P->n, sizeof *P->full, f);
    P->prod = alloc_array((size_t)P->n, sizeof *P->prod, f);
    /* Even after a failure: XMPI_Get_data is what the parents wait for, and it fails for all. */
    register_rows(P, *rank, f);
    int rc = XMPI_Get_data(it);
    if (rc)
        fail(f, EXIT_RUNTIME, "cg: XMPI_Get_data failed: %s\n", XMPI_Error_string(rc));
    /* The view came with the rows: this returns at once, and refresh() keeps it current. */
    else if (!P->allgather && (rc = GET_HALO(P)))
        fail(f, EXIT_RUNTIME, "cg: XMPI_Get_halo failed: %s\n", XMPI_Error_string(rc));
    return settle(P, rank, nprocs, rr, bb, f) ? -1 : 0;
}

/* -d, between iterations: XMPI_Eval_reconfig, which balances and grows or shrinks the job as
 * --xmpi-policy decides. 0: go on; 1: this process was removed; -1: a process failed (the same on
 * every process that stays). */
static int reconfig(struct problem *P, const struct options *o, int *rank, int *nprocs, int it, double *rr,
                    double *bb, struct failure *f)
{
    const int before = *nprocs;
    int rc = XMPI_Eval_reconfig(*rank, *nprocs, it, (int)o->maxit, &P->count, &P->displ, NULL, NULL, NULL);
    if (rc)
        fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Eval_reconfig at iteration %d failed: %s\n", *rank, it + 1,
             XMPI_Error_string(rc));
    if (XMPI_Get_process_status() == XMPI_REMOVED)
        return 1;
    int size;
    MPI_Comm_size(COMM, &size);
    if (size == before) {
        refresh(P, *rank, *nprocs, f);
        return any_failed(f) ? -1 : 0;
    }
    /* The new processes meet this in join(). */
    if (settle(P, rank, nprocs, rr, bb, f))
        return -1;
    announce(*rank, it + 1, before, *nprocs);
    return 0;
}
#else
static int reconfig(struct problem *P, const struct options *o, int *rank, int *nprocs, int it, double *rr,
                    double *bb, struct failure *f)
{
    (void)P, (void)o, (void)rank, (void)nprocs, (void)it, (void)rr, (void)bb, (void)f;
    return 0;
}
static int join(struct problem *P, const struct options *o, int *rank, int *nprocs, int *it, double *rr,
                double *bb, struct failure *f)
{
    (void)P, (void)o, (void)rank, (void)nprocs, (void)it, (void)rr, (void)bb;
    return fail(f, EXIT_RUNTIME, "cg: cg-plain cannot be spawned\n");
}
#endif

/* What the iterations carry besides the matrix and vectors. rank and nprocs follow the job's
 * changes (-d). */
struct run {
    int rank, nprocs;
    double bb, rr, bnorm;   /* b'b, r'r and ||b|| */
    int first;              /* the iteration to start at: 0, or the one a spawned process joins at */
    int done_iters, moves;  /* iterations done; --cg-shuffle's moves */
    int in_iter;            /* inside a monitored iteration not ended yet */
    int left;               /* -d removed this process */
    int warned;             /* monitor_check's first warning given */
    double t0;              /* the start of the timed region */
    struct timed tm;        /* the timed: line's record */
};

/* How uneven the matrix is, per rank (the load) and per row (the shape), in rank 0's first
 * line; P->nnz for the result line. Returns b'b. */
static double describe(struct problem *P, const struct options *o, int rank, int nprocs)
{
    long long mine_nnz = P->ia[P->count], ext[4] = {-mine_nnz, mine_nnz, -(long long)INT_MAX, 0}, all_ext[4];
    for (int ii = 0; ii < P->count; ii++) {
        long long len = P->ia[ii + 1] - P->ia[ii];
        ext[2] = ext[2] > -len ? ext[2] : -len;
        ext[3] = ext[3] > len ? ext[3] : len;
    }
    MPI_Allreduce(&mine_nnz, &P->nnz, 1, MPI_LONG_LONG, MPI_SUM, COMM);
    MPI_Allreduce(ext, all_ext, 4, MPI_LONG_LONG, MPI_MAX, COMM);
    for (int ii = 0; ii < P->count; ii++)
        P->prod[P->displ + ii] = P->b[ii] * P->b[ii];
    const double bb = gathered_sum(P);
    if (rank == 0) {
        printf("cg: rows %d, nnz %lld (per row %lld to %lld, per rank %lld to %lld), ranks %d, source %s, "
               "library %s\n",
               P->n, P->nnz, -all_ext[2], all_ext[3], -all_ext[0], all_ext[1], nprocs,
               o->file ? o->file : o->source_text, LIBRARY_NAME);
        fflush(stdout);
    }
    return bb;
}

/* One CG iteration on this rank's rows: q = A p, then x, r and p, and *rr the new r'r. 0, or -1
 * on a breakdown (p'Ap is the same on every rank, so all of them stop together). */
static int step(struct problem *P, double *rr, int it, struct failure *f)
{
    /* Read here, not kept: a move at the end of the last iteration may have replaced them. */
    const int count = P->count, displ = P->displ;
    const int *ia = P->ia, *ja = P->ja;
    const double *a = P->a;
    double *x = P->x, *r = P->r, *p = P->p, *q = P->q, *full = P->full, *prod = P->prod;

    /* p's values at A's columns: the neighbours' part exchanged into p's room (the library's
     * local indices), or the whole of p gathered (global indices). The same values, summed in
     * the same order: the same bits. */
    const double *pv = full;
    const int *cols = ja;
    if (P->allgather) {
        MPI_Allgatherv(p, count, MPI_DOUBLE, full, P->counts, P->displs, MPI_DOUBLE, COMM);
    } else {
        int rc = EXCHANGE(P);
        if (rc)
            return fail(f, EXIT_RUNTIME, "cg: XMPI_Exchange at iteration %d failed: %s\n", it + 1,
                        MONITOR_ERROR_STRING(rc));
        pv = p;
        cols = P->lja;
    }
    for (int ii = 0; ii < count; ii++) {
        double s = 0.0;
        for (int k = ia[ii]; k < ia[ii + 1]; k++)
            s += a[k] * pv[cols[k]];
        q[ii] = s;
        prod[displ + ii] = p[ii] * s;
    }
    const double pq = gathered_sum(P);
    if (!(pq > 0) || !isfinite(pq))
        return fail(f, EXIT_RUNTIME,
                    "cg: breakdown at iteration %d: p'Ap = %g; the matrix is not symmetric positive definite\n",
                    it + 1, pq);
    const double alpha = *rr / pq;
    for (int ii = 0; ii < count; ii++) {
        x[ii] += alpha * p[ii];
        r[ii] -= alpha * q[ii];
        prod[displ + ii] = r[ii] * r[ii];
    }
    const double rr_new = gathered_sum(P), beta = rr_new / *rr;
    for (int ii = 0; ii < count; ii++)
        p[ii] = r[ii] + beta * p[ii];
    *rr = rr_new;
    return 0;
}

/* Between two iterations: --cg-shuffle's test move, the load balancer, everyone's block after
 * them. A rank that failed still joins these collectives with its rows intact. Returns whether
 * any rank has failed, on every rank, so that all stop before the next iteration. */
static int move_rows(struct problem *P, const struct options *o, struct run *R, int it, struct failure *f)
{
    const int rank = R->rank, nprocs = R->nprocs;
    if (o->shuffle && R->done_iters % o->shuffle == 0) {
        test_partition(P->n, nprocs, (uint64_t)(R->done_iters / o->shuffle), P->part, P->part + nprocs,
                           P->part + 2 * nprocs);
        int rc = REDISTRIBUTE(P->count, P->displ, P->part[rank], P->part[nprocs + rank]);
        if (rc)
            fail(f, EXIT_RUNTIME, "cg: rank %d: XMPI_Redistribute_data at iteration %d failed: %s\n", rank,
                 R->done_iters, MONITOR_ERROR_STRING(rc));
        R->moves += rc == 0;
        refresh(P, rank, nprocs, f);
    }
    if (o->dynamic) {
        /* Ends the monitored iteration si_init began, so nothing moves inside one. */
        R->in_iter = 0;
        int a = reconfig(P, o, &R->rank, &R->nprocs, it, &R->rr, &R->bb, f);
        if (a > 0)
            R->left = 1;
        return a != 0;
    }
    int rc = balance_rows(o->balance, it, (int)o->maxit, &P->count, &P->displ, NULL);
    if (rc)
        fail(f, EXIT_RUNTIME, "cg: rank %d: load balancing at iteration %d failed: %s\n", rank, R->done_iters,
             MONITOR_ERROR_STRING(rc));
    refresh(P, rank, nprocs, f);
    return any_failed(f);
}

/* The iterations from R->first until ||r|| <= TOL ||b||, -i, a failure, or -d removing this
 * process. */
static void solve(struct problem *P, const struct options *o, struct run *R, struct failure *f)
{
    R->done_iters = R->first;
    for (int it = R->first; it < o->maxit && R->rr > 0; it++) {
        monitor_check(MONITOR_SI_INIT(), "XMPI_Monitor_si_init", R->rank, f, &R->warned);
        R->in_iter = 1;
        const double work = 2.0 * (double)P->ia[P->count] + 10.0 * P->count;
        if (step(P, &R->rr, it, f))
            break;
        monitor_check(MONITOR_ADD_WORK(work), "XMPI_Monitor_add_work", R->rank, f, &R->warned);
        R->done_iters++;
        timed_stamp(&R->tm, MPI_Wtime() - R->t0);
        if (o->verbose && R->done_iters % o->verbose == 0 && R->rank == 0) {
            printf("cg: iteration %d: relative residual %.6e\n", R->done_iters, sqrt(R->rr) / R->bnorm);
            fflush(stdout);
        }
        /* rr is the same on every rank: all of them leave together, before anything moves. */
        if (sqrt(R->rr) <= o->tol * R->bnorm || R->rr == 0 || it + 1 == o->maxit)
            break;
        /* Not after the last iteration (the breaks above), where more processes would do nothing. */
        if (move_rows(P, o, R, it, f))
            break;
    }
}

/* The true residual b - A x, not the recurrence's, with the same ordered sums; then rank 0's
 * lines: the error against x*, the checksum of x and the result. */
static void report(struct problem *P, const struct options *o, const struct run *R, double elapsed)
{
    MPI_Allgatherv(P->x, P->count, MPI_DOUBLE, P->full, P->counts, P->displs, MPI_DOUBLE, COMM);
    for (int ii = 0; ii < P->count; ii++) {
        double s = 0.0;
        for (int k = P->ia[ii]; k < P->ia[ii + 1]; k++)
            s += P->a[k] * P->full[P->ja[k]];
        double d = P->b[ii] - s;
        P->prod[P->displ + ii] = d * d;
    }
    const double res = sqrt(gathered_sum(P)) / R->bnorm;
    if (R->rank != 0)
        return;
    double error = 0.0;
    for (int i = 0; i < P->n; i++) {
        double e = fabs(P->full[i] - x_star(i));
        if (e > error || isnan(e))
            error = e;
    }
    uint64_t sum = fnv1a64(FNV1A64_BASIS, P->full, (size_t)P->n * sizeof *P->full);
    const int done = R->done_iters;
    if (o->shuffle)
        printf("cg: --cg-shuffle=%ld moved the rows %d times\n", o->shuffle, R->moves);
    if (o->tol > 0 && !(sqrt(R->rr) <= o->tol * R->bnorm))
        fprintf(stderr, "cg: not converged to -t %g in %d iterations (relative residual %.3e)\n", o->tol, done,
                sqrt(R->rr) / R->bnorm);
    printf("result: rows=%d nnz=%lld iterations=%d ranks=%d residual=%.17e error=%.17e checksum=%016llx "
           "time=%.6f iter_time=%.6f\n",
           P->n, P->nnz, done, R->nprocs, res, error, (unsigned long long)sum, elapsed,
           done ? elapsed / done : 0.0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();   /* a spawned process's clock; the others restart it below */
    struct run R = {0};
    MPI_Comm_rank(COMM, &R.rank);
    MPI_Comm_size(COMM, &R.nprocs);

    struct options opt;
    struct failure f = {0};
    struct problem P = {0};
    int status = 0, stop = 0;

    parse_options(argc, argv, &opt, &f);
    if (JOINING()) {
        /* Started by -d: the parents accepted these options and wait for it in XMPI_Eval_reconfig. */
        stop = join(&P, &opt, &R.rank, &R.nprocs, &R.first, &R.rr, &R.bb, &f) != 0;
        timed_prepare(&R.tm, opt.maxit - R.first);
        timed_start(&R.tm);
    } else {
        if (stop_after_options(&f, R.rank, R.nprocs, opt.help, usage, &status))
            goto done;
        setup(&P, &opt, R.rank, R.nprocs, &f);
        if ((status = agree(&f, R.rank, R.nprocs)))
            goto done;
        if (!P.allgather && (register_direction(&P, R.rank, &f), (status = agree(&f, R.rank, R.nprocs))))
            goto done;
        R.bb = describe(&P, &opt, R.rank, R.nprocs);
        R.rr = R.bb; /* r = b since x starts at 0 */
        timed_prepare(&R.tm, opt.maxit);
        MPI_Barrier(COMM);
        t0 = MPI_Wtime();
        timed_start(&R.tm);
    }
    R.bnorm = sqrt(R.bb);
    R.t0 = t0;
    if (!stop)
        solve(&P, &opt, &R, &f);
    /* A removed process is no member of XMPI_COMM_WORLD any more: nothing to report. */
    if (R.left)
        goto done;
    if (R.in_iter)
        monitor_check(MONITOR_END(), "XMPI_Monitor_iter_end", R.rank, &f, &R.warned);
    /* A stop in the middle of a change may leave rank and size stale. */
    MPI_Comm_rank(COMM, &R.rank);
    MPI_Comm_size(COMM, &R.nprocs);
    double elapsed, mine_t = MPI_Wtime() - t0;
    if ((status = elapsed_agreed(t0, &f, R.rank, R.nprocs, &elapsed)))
        goto done;
    timed_report(&R.tm, mine_t, R.rank, R.nprocs, NULL);
    report(&P, &opt, &R, elapsed);

done:
    free(R.tm.stamp);
    release(&P);
    MPI_Finalize();
    return status;
}
