/* cg3d: conjugate gradient on a mini-app's 3-D Poisson problem (HPCG's 27-point stencil, or the
 * 7-point one) on an NX x NY x NZ grid, one row per grid point (x fastest, z slowest), the rows
 * distributed in blocks of whole z-planes where there are planes for every rank (any block
 * works). Written as a plain MPI mini-app: -DXMPI_PLAIN builds its own local column indices
 * (the block's columns first, then the halo grouped by owner) and neighbour lists, and exchanges
 * only the halo of the search direction each iteration (MPI_Irecv/MPI_Isend). The default build
 * registers the matrix with global column indices, computes with XMPI_Get_halo's local indices
 * and exchanges the direction with XMPI_Exchange, so that rows may move to balance the load (-b)
 * and the job may grow and shrink (-d). Dot products are exact sums rounded once at the end: the
 * result is the same bits on any partition. scripts/example-diff.sh counts the lines in which
 * the two builds differ. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "cg3d"
#include "example_util.h"
#include "example_timed.h"

#ifdef XMPI_PLAIN
#define XMPI_BUILD 0
#define EXCHANGE(c) exchange(c)
#else
#define XMPI_BUILD 1
#define EXCHANGE(c) must(XMPI_Exchange(&(c)->p), "XMPI_Exchange")
#endif

/* The largest grid: 27 nonzeros for each of its points must fit the int row pointers. */
#define POINTS_MAX (INT_MAX / 27)
#define ACCEPTED "-x NX -y NY -z NZ -s 7|27 -i MAXIT -t TOL -b -d --cg3d-shuffle=K -h"

struct options {
    long nx, ny, nz, points, maxit, shuffle;
    double tol;
    int balance;   /* -b: XMPI_Eval_lbalance after each iteration */
    int dynamic;   /* -d: XMPI_Eval_reconfig after each iteration (grow and shrink by --xmpi-policy) */
    int help;
};

/* The grid, and what CG carries from one iteration to the next besides its vectors: all that a
 * process joining the job needs to go on with the same bits (XMPI_Set_app_data). */
struct state {
    int nx, ny, nz, points;
    double rr, bb;   /* r'r and b'b */
};

struct cg3d {
    struct state s;
    int n, count, displ;   /* rows, and this process's block */
    int *ia, *ja;          /* CSR rows of the block, global column indices */
    double *a;
    double *b, *x, *r;     /* the block */
    double *p;             /* the search direction: the block, then room for the halo */
    double *q;             /* A p on the block */
    int *lja, nhalo;       /* local column indices: the block's columns first, then the halo */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: cg3d [-x NX] [-y NY] [-z NZ] [-s 7|27] [-i MAXIT] [-t TOL] [-b] [-d] [--cg3d-shuffle=K] [-h]\n"
            "  -x NX, -y NY, -z NZ  the grid's points along x, y and z, each from 1, at most %d points\n"
            "                  in all (default 16 x 16 x 16); rows are numbered x fastest, z slowest\n"
            "  -s 7|27         the stencil: 27 points as HPCG (diagonal 26), or 7 (diagonal 6);\n"
            "                  off-diagonals -1 (default 27)\n"
            "  -i MAXIT        at most MAXIT iterations, 0 to %d (default 500)\n"
            "  -t TOL          stop once ||r|| <= TOL ||b||; 0 runs every iteration (default 1e-10)\n"
            "  -b              balance the load: XMPI_Eval_lbalance after each iteration (not in\n"
            "                  cg3d-plain)\n"
            "  -d              malleable: XMPI_Eval_reconfig after each iteration, so the job balances\n"
            "                  and grows or shrinks as --xmpi-policy decides; spawned processes take\n"
            "                  the grid and CG's scalars from the job (XMPI_Get_app_data) and their\n"
            "                  rows (XMPI_Get_data); removed ones hand their rows over and exit 0\n"
            "                  without a result line. The result is the same bits as a static run\n"
            "                  (not in cg3d-plain)\n"
            "  --cg3d-shuffle=K  test: every K iterations move the rows to another partition with\n"
            "                  XMPI_Redistribute_data (not in cg3d-plain); the result must not change\n"
            "  -h              print this help\n"
            "b = A x* with x*[i] = 1 + (i %% 7) / 7; x starts at 0.\n",
            POINTS_MAX, INT_MAX);
}

/* Every rank parses the same argv, so every rank reaches the same verdict. */
static int parse_options(int argc, char **argv, struct options *o, struct failure *f)
{
    *o = (struct options){.nx = 16, .ny = 16, .nz = 16, .points = 27, .maxit = 500, .tol = 1e-10};
    const char *plain = XMPI_BUILD ? NULL : "is not accepted by cg3d-plain: moving rows needs libxmpi (use cg3d)";
    if (take_count_option(&argc, argv, "--cg3d-shuffle", plain, &o->shuffle, f))
        return -1;
    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, ":x:y:z:s:i:t:bdh")) != -1) {
        switch (c) {
        case 'x':
        case 'y':
        case 'z':
            if (parse_long(optarg, 1, POINTS_MAX, c == 'x' ? &o->nx : c == 'y' ? &o->ny : &o->nz))
                return fail(f, EXIT_USAGE, "cg3d: bad grid size '-%c %s': expected an integer from 1 to %d\n", c,
                            optarg, POINTS_MAX);
            break;
        case 's':
            if (parse_long(optarg, 7, 27, &o->points) || (o->points != 7 && o->points != 27))
                return fail(f, EXIT_USAGE, "cg3d: bad stencil '-s %s': expected 7 or 27\n", optarg);
            break;
        case 'i':
            if (parse_long(optarg, 0, INT_MAX, &o->maxit))
                return fail(f, EXIT_USAGE, "cg3d: bad iteration count '-i %s': expected an integer from 0 to %d\n",
                            optarg, INT_MAX);
            break;
        case 't':
            if (parse_double(optarg, 0.0, INFINITY, &o->tol))
                return fail(f, EXIT_USAGE,
                            "cg3d: bad tolerance '-t %s': expected a finite number >= 0 (0 runs every iteration)\n",
                            optarg);
            break;
        case 'b':
        case 'd':
            if (!XMPI_BUILD)
                return fail(f, EXIT_USAGE, "cg3d: -%c needs libxmpi to move rows%s; cg3d-plain cannot (use cg3d)\n",
                            c, c == 'd' ? " and to spawn and remove processes" : "");
            *(c == 'b' ? &o->balance : &o->dynamic) = 1;
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
    if ((double)o->nx * (double)o->ny * (double)o->nz > POINTS_MAX)
        return fail(f, EXIT_USAGE, "cg3d: grid %ld x %ld x %ld has more than %d points (27 nonzeros per row must fit int)\n",
                    o->nx, o->ny, o->nz, POINTS_MAX);
    return 0;
}

/* ---- exact dot products ------------------------------------------------------------------
 * Every double is an integer multiple of 2^-1074. Each product is added exactly into an
 * accumulator of 32-bit digits held in int64 words, the processes' accumulators are summed as
 * integers (MPI_SUM: exact, so in any order), and only that sum is rounded to a double. The
 * dot product is thus the same bits on any partition and any number of processes, for one
 * MPI_Allreduce of DIGITS + 1 words: cg.c's gather of every row's product in global order gives
 * the same guarantee but sends n / P doubles per process. A word gains less than 2^32 per row,
 * so a block of up to 2^31 rows cannot overflow it before the carries. */
enum { DIGITS = 68 };   /* 2^-1074 to above 2^1100; the last word counts products not finite */

static void exact_add(int64_t *acc, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int e = (int)(bits >> 52 & 0x7ff);
    uint64_t m = bits & ((1ULL << 52) - 1);
    if (e == 0x7ff) {
        acc[DIGITS]++;
        return;
    }
    if (e)
        m |= 1ULL << 52;
    else
        e = 1;
    /* v = m 2^(e - 1075): m's lowest bit is bit e - 1 of the accumulator. */
    const int k = (e - 1) / 32, s = (e - 1) % 32;
    const uint64_t hi = s ? m >> (32 - s) : m >> 32;
    const int64_t sign = bits >> 63 ? -1 : 1;
    acc[k] += sign * (int64_t)((m << s) & 0xffffffffu);
    acc[k + 1] += sign * (int64_t)(hi & 0xffffffffu);
    acc[k + 2] += sign * (int64_t)(hi >> 32);
}

/* Every word but the last in [0, 2^32), the carries in the next: one form for one value. */
static void exact_carry(int64_t *acc)
{
    for (int k = 0; k < DIGITS - 1; k++) {
        const int64_t low = (int64_t)((uint64_t)acc[k] & 0xffffffffu);
        acc[k + 1] += (acc[k] - low) / 4294967296LL;
        acc[k] = low;
    }
}

/* u'v over the blocks of every process, the same bits whatever the partition. */
static double dot(const double *u, const double *v, int count)
{
    int64_t mine[DIGITS + 1] = {0}, all[DIGITS + 1];
    for (int i = 0; i < count; i++)
        exact_add(mine, u[i] * v[i]);
    exact_carry(mine);
    MPI_Allreduce(mine, all, DIGITS + 1, MPI_INT64_T, MPI_SUM, COMM);
    if (all[DIGITS])
        return NAN;
    exact_carry(all);
    /* Highest word first: a deterministic function of the exact sum, within an ulp of it. */
    double s = 0.0;
    for (int k = DIGITS - 1; k >= 0; k--)
        s += ldexp((double)all[k], 32 * k - 1074);
    return s;
}

/* ---- the problem ---------------------------------------------------------------------------- */

/* The start: blocks of whole z-planes when there are planes for every rank, else even blocks of
 * rows. */
static void start_block(const struct state *s, int rank, int nprocs, int *count, int *displ)
{
    const int plane = s->nx * s->ny;
    if (s->nz >= nprocs) {
        even_block(rank, nprocs, s->nz, count, displ);
        *count *= plane;
        *displ *= plane;
    } else {
        even_block(rank, nprocs, plane * s->nz, count, displ);
    }
}

static double x_star(int i)
{
    return 1.0 + (i % 7) / 7.0;
}

/* The block's rows of A (columns ascending, so that every row is summed the same way wherever
 * it lives), b = A x*, x = 0, r = b. */
static int build(struct cg3d *c, struct failure *f)
{
    const struct state *s = &c->s;
    const int plane = s->nx * s->ny;
    c->ia = alloc_array((size_t)c->count + 1, sizeof *c->ia, f);
    c->ja = alloc_array((size_t)c->count * (size_t)s->points, sizeof *c->ja, f);
    c->a = alloc_array((size_t)c->count * (size_t)s->points, sizeof *c->a, f);
    c->b = alloc_array((size_t)c->count, sizeof *c->b, f);
    c->x = alloc_array((size_t)c->count, sizeof *c->x, f);
    c->r = alloc_array((size_t)c->count, sizeof *c->r, f);
    if (f->code)
        return -1;
    int nz = 0;
    c->ia[0] = 0;
    for (int ii = 0; ii < c->count; ii++) {
        const int i = c->displ + ii, ix = i % s->nx, iy = i / s->nx % s->ny, iz = i / plane;
        double sum = 0.0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int x = ix + dx, y = iy + dy, z = iz + dz;
                    if (x < 0 || x >= s->nx || y < 0 || y >= s->ny || z < 0 || z >= s->nz)
                        continue;
                    if (s->points == 7 && abs(dx) + abs(dy) + abs(dz) > 1)
                        continue;
                    c->ja[nz] = x + s->nx * (y + s->ny * z);
                    c->a[nz] = dx || dy || dz ? -1.0 : s->points - 1.0;
                    sum += c->a[nz] * x_star(c->ja[nz]);
                    nz++;
                }
        c->ia[ii + 1] = nz;
        c->b[ii] = c->r[ii] = sum;
        c->x[ii] = 0.0;
    }
    return 0;
}

/* q = A p on the block, with the local column indices (p's halo filled). */
static void matvec(const struct cg3d *c, const double *p, double *q)
{
    for (int ii = 0; ii < c->count; ii++) {
        double s = 0.0;
        for (int k = c->ia[ii]; k < c->ia[ii + 1]; k++)
            s += c->a[k] * p[c->lja[k]];
        q[ii] = s;
    }
}

#ifdef XMPI_PLAIN
/* The halo as a mini-app builds it: the columns outside the block, ascending and so grouped by
 * owner (the blocks follow rank order), local indices (the block's columns first, then the
 * halo's), how many of them each rank owns (need, at noff in the halo), and from the owners
 * which rows of this block each rank needs (give, at goff in idx). */
static struct {
    int *need, *noff, *give, *goff, *counts, *displs, *idx;
    double *buf;
    MPI_Request *req;
    MPI_Status *st;   /* not MPI_STATUSES_IGNORE: GCC 12 misreads MPICH's constant */
} H;

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static void setup_halo(struct cg3d *c, int nprocs)
{
    const int nnz = c->ia[c->count], lo = c->displ, hi = lo + c->count;
    int *h = must_alloc((size_t)nnz, sizeof *h), nh = 0, ngive = 0;
    c->lja = must_alloc((size_t)nnz, sizeof *c->lja);
    H.need = must_alloc(6 * (size_t)nprocs, sizeof *H.need);
    H.noff = H.need + nprocs, H.give = H.need + 2 * nprocs, H.goff = H.need + 3 * nprocs;
    H.counts = H.need + 4 * nprocs, H.displs = H.need + 5 * nprocs;
    H.req = must_alloc(2 * (size_t)nprocs, sizeof *H.req);
    H.st = must_alloc(2 * (size_t)nprocs, sizeof *H.st);
    for (int k = 0; k < nnz; k++)
        if (c->ja[k] < lo || c->ja[k] >= hi)
            h[nh++] = c->ja[k];
    qsort(h, (size_t)nh, sizeof *h, cmp_int);
    c->nhalo = 0;
    for (int k = 0; k < nh; k++)
        if (c->nhalo == 0 || h[k] != h[c->nhalo - 1])
            h[c->nhalo++] = h[k];
    for (int k = 0; k < nnz; k++)
        c->lja[k] = c->ja[k] >= lo && c->ja[k] < hi
                        ? c->ja[k] - lo
                        : c->count + (int)((int *)bsearch(&c->ja[k], h, (size_t)c->nhalo, sizeof *h, cmp_int) - h);
    for (int j = 0; j < nprocs; j++) {
        start_block(&c->s, j, nprocs, &H.counts[j], &H.displs[j]);
        H.need[j] = 0;
    }
    for (int k = 0, j = 0; k < c->nhalo; H.need[j]++, k++)
        while (h[k] >= H.displs[j] + H.counts[j])
            j++;
    H.noff[0] = 0;
    for (int j = 1; j < nprocs; j++)
        H.noff[j] = H.noff[j - 1] + H.need[j - 1];
    MPI_Alltoall(H.need, 1, MPI_INT, H.give, 1, MPI_INT, COMM);
    for (int j = 0; j < nprocs; ngive += H.give[j++])
        H.goff[j] = ngive;
    H.idx = must_alloc((size_t)ngive, sizeof *H.idx);
    H.buf = scratch((size_t)ngive);
    MPI_Alltoallv(h, H.need, H.noff, MPI_INT, H.idx, H.give, H.goff, MPI_INT, COMM);
    for (int k = 0; k < ngive; k++)
        H.idx[k] -= lo;
    free(h);
}

/* p's halo from its owners: the only communication of a matrix-vector product. */
static void exchange(struct cg3d *c)
{
    int nprocs, k = 0;
    MPI_Comm_size(COMM, &nprocs);
    for (int j = 0; j < nprocs; j++)
        if (H.need[j])
            MPI_Irecv(c->p + c->count + H.noff[j], H.need[j], MPI_DOUBLE, j, 0, COMM, &H.req[k++]);
    for (int j = 0; j < nprocs; j++) {
        for (int i = H.goff[j]; i < H.goff[j] + H.give[j]; i++)
            H.buf[i] = c->p[H.idx[i]];
        if (H.give[j])
            MPI_Isend(H.buf + H.goff[j], H.give[j], MPI_DOUBLE, j, 0, COMM, &H.req[k++]);
    }
    MPI_Waitall(k, H.req, H.st);
}
#endif

#ifndef XMPI_PLAIN
/* XMPI_Set_rebuild's callback, after every change: the new block, and A p's scratch to match. */
static void rebuild(void *arg)
{
    struct cg3d *c = arg;
    int rank, nprocs;
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);
    must(XMPI_Get_wsize(rank, nprocs, c->n, &c->count, &c->displ), "XMPI_Get_wsize");
    free(c->q);
    c->q = scratch((size_t)c->count);
}
#endif

/* The true residual ||b - A x|| / ||b|| (x's halo exchanged through p's room), the largest error
 * against x*, and x gathered in global row order for the checksum: none depends on the
 * partition. Rank 0 prints the result line. */
static void report(struct cg3d *c, int done, int rank, int nprocs, double elapsed)
{
    memcpy(c->p, c->x, sizeof *c->p * (size_t)c->count);
    EXCHANGE(c);
    matvec(c, c->p, c->q);
    double err = 0.0, error;
    for (int ii = 0; ii < c->count; ii++) {
        c->q[ii] = c->b[ii] - c->q[ii];
        const double e = fabs(c->x[ii] - x_star(c->displ + ii));
        err = e > err || isnan(e) ? e : err;
    }
    const double res = sqrt(dot(c->q, c->q, c->count)) / sqrt(c->s.bb);
    MPI_Reduce(&err, &error, 1, MPI_DOUBLE, MPI_MAX, 0, COMM);
    int *counts = must_alloc(2 * (size_t)nprocs, sizeof *counts), *displs = counts + nprocs;
    double *all = rank == 0 ? scratch((size_t)c->n) : NULL;
    MPI_Gather(&c->count, 1, MPI_INT, counts, 1, MPI_INT, 0, COMM);
    MPI_Gather(&c->displ, 1, MPI_INT, displs, 1, MPI_INT, 0, COMM);
    MPI_Gatherv(c->x, c->count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, COMM);
    if (rank == 0) {
        printf("result: grid=%dx%dx%d points=%d rows=%d iterations=%d ranks=%d residual=%.17e error=%.17e "
               "checksum=%016llx time=%.6f iter_time=%.6f\n",
               c->s.nx, c->s.ny, c->s.nz, c->s.points, c->n, done, nprocs, res, error,
               (unsigned long long)fnv1a64(FNV1A64_BASIS, all, (size_t)c->n * sizeof *all), elapsed,
               done ? elapsed / done : 0.0);
        fflush(stdout);
    }
    free(counts);
    free(all);
}

/* Rank 0's first line: the problem, and the halo summed over the ranks (bench-halo's count). */
static void describe(const struct cg3d *c, int rank, int nprocs)
{
    long long mine[2] = {c->ia[c->count], c->nhalo}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, 0, COMM);
    if (rank == 0) {
        printf("cg3d: grid %d x %d x %d, %d-point, rows %d, nnz %lld, halo %lld, ranks %d, library %s\n", c->s.nx,
               c->s.ny, c->s.nz, c->s.points, c->n, all[0], all[1], nprocs, LIBRARY_NAME);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();   /* a spawned process's clock; the others restart it below */
    int rank, nprocs, it = 0, status = 0, warned = 0, joining = 0, left = 0;
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);
    struct options o;
    struct failure f = {0};
    struct timed tm = {0};
    parse_options(argc, argv, &o, &f);
    struct cg3d c = {.s = {(int)o.nx, (int)o.ny, (int)o.nz, (int)o.points, 0.0, 0.0}};
#ifndef XMPI_PLAIN
    joining = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED;
    if (joining)   /* started by -d: the parents accepted the options and wait in XMPI_Eval_reconfig */
        must(XMPI_Get_app_data(&c.s, sizeof c.s, NULL), "XMPI_Get_app_data");
#endif
    c.n = c.s.nx * c.s.ny * c.s.nz;
    if (!joining) {
        if (stop_after_options(&f, rank, nprocs, o.help, usage, &status))
            goto done;
        start_block(&c.s, rank, nprocs, &c.count, &c.displ);
        build(&c, &f);
        if ((status = agree(&f, rank, nprocs)))
            goto done;
        c.s.bb = c.s.rr = dot(c.r, c.r, c.count);
    }
#ifdef XMPI_PLAIN
    setup_halo(&c, nprocs);
#else
    /* The library moves the matrix (global columns) and the vectors, and tells the halo. */
    must(XMPI_Register_sparse(&c.ia, &c.ja, &c.a, c.n, MPI_DOUBLE, XMPI_DISTRIBUTED), "XMPI_Register_sparse");
    must(XMPI_Register_vector(&c.b, c.n, MPI_DOUBLE, XMPI_DISTRIBUTED), "XMPI_Register_vector");
    must(XMPI_Register_vector(&c.x, c.n, MPI_DOUBLE, XMPI_DISTRIBUTED), "XMPI_Register_vector");
    must(XMPI_Register_vector(&c.r, c.n, MPI_DOUBLE, XMPI_DISTRIBUTED), "XMPI_Register_vector");
    if (!joining) {   /* the start's blocks of planes, then the halo of this block */
        must(XMPI_Redistribute_data(c.count, c.displ, c.count, c.displ), "XMPI_Redistribute_data");
        must(XMPI_Get_halo(&c.ia, &c.lja, NULL, &c.nhalo), "XMPI_Get_halo");
    }
#endif
    if (!joining) {
        c.p = scratch((size_t)c.count + (size_t)c.nhalo);
        memcpy(c.p, c.r, sizeof *c.p * (size_t)c.count);
        c.q = scratch((size_t)c.count);
    }
#ifndef XMPI_PLAIN
    must(XMPI_Register_halo_vector(&c.p, &c.ia, MPI_DOUBLE), "XMPI_Register_halo_vector");
    must(XMPI_Set_rebuild(rebuild, &c), "XMPI_Set_rebuild");
    if (joining)
        must(XMPI_Get_data(&it), "XMPI_Get_data");
#endif
    if (joining) {
        MPI_Comm_rank(COMM, &rank);
        MPI_Comm_size(COMM, &nprocs);
        timed_prepare(&tm, o.maxit - it);
        timed_start(&tm);
    } else {
        describe(&c, rank, nprocs);
        timed_prepare(&tm, o.maxit);
        MPI_Barrier(COMM);
        t0 = MPI_Wtime();
        timed_start(&tm);
    }
    while (it < o.maxit && c.s.rr > 0) {
#ifndef XMPI_PLAIN
        /* This block's local column indices, rebuilt with every change: returns at once. */
        must(XMPI_Get_halo(&c.ia, &c.lja, NULL, &c.nhalo), "XMPI_Get_halo");
#endif
        monitor_check(MONITOR_BEGIN(), "XMPI_Monitor_iter_begin", rank, &f, &warned);
        EXCHANGE(&c);
        matvec(&c, c.p, c.q);
        const double pq = dot(c.p, c.q, c.count);
        /* pq is the same on every rank: all of them stop together. */
        if (!(pq > 0) || !isfinite(pq)) {
            fail(&f, EXIT_RUNTIME, "cg3d: breakdown at iteration %d: p'Ap = %g\n", it + 1, pq);
            break;
        }
        const double alpha = c.s.rr / pq;
        for (int ii = 0; ii < c.count; ii++) {
            c.x[ii] += alpha * c.p[ii];
            c.r[ii] -= alpha * c.q[ii];
        }
        const double rr = dot(c.r, c.r, c.count), beta = rr / c.s.rr;
        for (int ii = 0; ii < c.count; ii++)
            c.p[ii] = c.r[ii] + beta * c.p[ii];
        c.s.rr = rr;
#ifndef XMPI_PLAIN
        /* Before the iteration ends: a checkpoint or a joiner at its interval end needs them. */
        must(XMPI_Set_app_data(&c.s, sizeof c.s), "XMPI_Set_app_data");
#endif
        monitor_check(MONITOR_ADD_WORK(2.0 * c.ia[c.count] + 10.0 * c.count), "XMPI_Monitor_add_work", rank, &f,
                      &warned);
        monitor_check(MONITOR_END(), "XMPI_Monitor_iter_end", rank, &f, &warned);
        timed_stamp(&tm, MPI_Wtime() - t0);
        /* Nothing moves after the last iteration: the result is computed on these blocks. */
        if (++it == o.maxit || sqrt(c.s.rr) <= o.tol * sqrt(c.s.bb))
            break;
        if (o.shuffle && it % o.shuffle == 0)
            must(shuffle_rows(c.n, (uint64_t)it, &c.count, &c.displ), "XMPI_Redistribute_data");
#ifndef XMPI_PLAIN
        if (o.dynamic)
            must(XMPI_Eval_reconfig(rank, nprocs, it - 1, (int)o.maxit, &c.count, &c.displ, NULL, NULL, NULL),
                 "XMPI_Eval_reconfig");
        else if (o.balance)
            must(XMPI_Eval_lbalance(rank, nprocs, it - 1, (int)o.maxit, &c.count, &c.displ, NULL), "XMPI_Eval_lbalance");
        if ((left = XMPI_Get_process_status() == XMPI_REMOVED))
            break;
        MPI_Comm_rank(COMM, &rank);
        MPI_Comm_size(COMM, &nprocs);
#endif
    }
    /* A removed process is no member of XMPI_COMM_WORLD any more: nothing to report. */
    if (left)
        goto done;
    double elapsed, mine_t = MPI_Wtime() - t0;
    if ((status = elapsed_agreed(t0, &f, rank, nprocs, &elapsed)))
        goto done;
    timed_report(&tm, mine_t, rank, nprocs, NULL);
    if (rank == 0 && o.tol > 0 && !(sqrt(c.s.rr) <= o.tol * sqrt(c.s.bb)))
        fprintf(stderr, "cg3d: not converged to -t %g in %d iterations (relative residual %.3e)\n", o.tol, it,
                sqrt(c.s.rr / c.s.bb));
    report(&c, it, rank, nprocs, elapsed);

done:
    free(c.ia);
    free(c.ja);
    free(c.a);
    free(c.b);
    free(c.x);
    free(c.r);
    free(c.p);
    free(c.q);
#ifdef XMPI_PLAIN
    free(c.lja);
#endif
    free(tm.stamp);
    MPI_Finalize();
    return status;
}
