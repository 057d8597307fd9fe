/* bin/xmpi-redistbench: XMPI_Redistribute_data throughput for dense, vector and CSR structures
 * against a bare MPI_Alltoallv and memcpy in the same run; growing 2 -> 3; counts past INT_MAX. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "xmpi.h"
#include "../tools/median.h"

enum { DENSE, VECTOR, CSR, NKIND };
static const char *const kind_name[NKIND] = {"dense", "vector", "csr"};
enum { NNZ_ROW = 16, MAXSIZES = 16, MAXREPS = 100 };
#define MIB (1024.0 * 1024.0)

static int rank;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpirun -np 2 xmpi-redistbench [-s MIB,MIB,...] [-r REPS] [-k KIND,...]\n"
            "       mpirun -np 2 xmpi-redistbench --grow [-n ROWS] [-r REPS] --xmpi-oversubscribe\n"
            "       mpirun -np 2 xmpi-redistbench --large [-n ROWS]\n"
            "  Default: for each kind (dense, vector, csr) and total size (default 64,128,256,512 MiB)\n"
            "  moves every row to the other rank REPS times (default 10) with XMPI_Redistribute_data,\n"
            "  a bare MPI_Alltoallv and memcpy into fresh buffers, then (a second phase) the library\n"
            "  again beside the same two into touched buffers, alternated within each phase,\n"
            "  and prints the medians and the throughput ratios; the data are checked afterwards.\n"
            "  --grow: a registered ROWS x ROWS dense matrix (default 4000) grows 2 -> 3 processes\n"
            "  REPS times (default 4): XMPI_Spawn, the move beside a bare MPI_Alltoallv, XMPI_Remove.\n"
            "  --large: a ROWS x ROWS MPI_CHAR matrix (default 46341, > INT_MAX elements) moved\n"
            "  and checked byte for byte.\n");
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "xmpi-redistbench: rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* Every rank regenerates the expected values from the global indices alone, so a value
 * that lands in the wrong row, column or slot is caught. Doubles stay exact integers. */
static double dense_val(long long i, long long j, long long n) { return (double)(i * n + j); }
static double vec_val(long long i) { return (double)i + 0.25; }
static int csr_col(long long i, int k, int n) { return (int)((i * 7 + (long long)k * 977) % n); }
static double csr_val(long long i, int k) { return (double)(i * NNZ_ROW + k); }

static void dense_fill(double *x, long long lo, long long n, long long N)
{
    for (long long r = 0; r < n; r++)
        for (long long j = 0; j < N; j++) x[r * N + j] = dense_val(lo + r, j, N);
}

static long long dense_check(const double *x, long long lo, long long n, long long N)
{
    long long bad = 0;
    for (long long r = 0; r < n; r++)
        for (long long j = 0; j < N; j++) bad += x[r * N + j] != dense_val(lo + r, j, N);
    return bad;
}

/* ---- throughput -------------------------------------------------------------------- */

/* One structure: p[] is what is registered (&S.p[k]), so the library's moves and the bare
 * ones replace the same pointers; spare[] are touched buffers of the same sizes. Both ranks
 * hold equal blocks (N is even), so a buffer fits either block. */
static struct {
    int kind, N, n, lo;      /* rows [lo, lo + n) are held */
    void *p[3], *spare[3];
    size_t bytes[3];         /* per array of one block */
    double moved;            /* bytes that cross per move, both ranks together */
} S;

static void setup(int kind, double mib)
{
    double target = mib * MIB;
    long long N;
    if (kind == DENSE)
        for (N = 1; (double)(N + 1) * (double)(N + 1) * sizeof(double) <= target; N++) {}
    else if (kind == VECTOR) N = (long long)(target / sizeof(double));
    else N = (long long)(target / (sizeof(int) + NNZ_ROW * (sizeof(int) + sizeof(double))));
    N &= ~1LL;
    if (N < 2 || N > INT_MAX) {
        if (rank == 0) fprintf(stderr, "xmpi-redistbench: %g MiB is out of range\n", mib);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(&S, 0, sizeof S);
    S.kind = kind;
    S.N = (int)N;
    XMPI_Get_wsize(rank, 2, S.N, &S.n, &S.lo);
    size_t n = (size_t)S.n, nnz = n * NNZ_ROW;
    if (kind == DENSE) S.bytes[0] = n * (size_t)N * sizeof(double);
    else if (kind == VECTOR) S.bytes[0] = n * sizeof(double);
    else {
        S.bytes[0] = (n + 1) * sizeof(int);
        S.bytes[1] = nnz * sizeof(int);
        S.bytes[2] = nnz * sizeof(double);
    }
    S.moved = 2.0 * (kind == CSR ? (double)(n * sizeof(int) + S.bytes[1] + S.bytes[2])
                                 : (double)S.bytes[0]);
    for (int a = 0; a < 3; a++) {
        if (!S.bytes[a]) continue;
        S.p[a] = xmalloc(S.bytes[a]);
        S.spare[a] = xmalloc(S.bytes[a]);
        memset(S.spare[a], 0, S.bytes[a]);
    }
    long long lo = S.lo;
    if (kind == DENSE) {
        dense_fill(S.p[0], S.lo, S.n, S.N);
    } else if (kind == VECTOR) {
        double *x = S.p[0];
        for (size_t r = 0; r < n; r++) x[r] = vec_val(lo + (long long)r);
    } else {
        int *ia = S.p[0], *ja = S.p[1];
        double *a = S.p[2];
        for (size_t r = 0; r <= n; r++) ia[r] = (int)(r * NNZ_ROW);
        for (size_t r = 0; r < n; r++)
            for (int k = 0; k < NNZ_ROW; k++) {
                ja[r * NNZ_ROW + (size_t)k] = csr_col(lo + (long long)r, k, S.N);
                a[r * NNZ_ROW + (size_t)k] = csr_val(lo + (long long)r, k);
            }
    }
}

static long long check(void)
{
    long long bad = 0, lo = S.lo;
    size_t n = (size_t)S.n;
    if (S.kind == DENSE) {
        bad = dense_check(S.p[0], S.lo, S.n, S.N);
    } else if (S.kind == VECTOR) {
        const double *x = S.p[0];
        for (size_t r = 0; r < n; r++) bad += x[r] != vec_val(lo + (long long)r);
    } else {
        const int *ia = S.p[0], *ja = S.p[1];
        const double *a = S.p[2];
        for (size_t r = 0; r <= n; r++) bad += ia[r] != (int)(r * NNZ_ROW);
        for (size_t r = 0; r < n; r++)
            for (int k = 0; k < NNZ_ROW; k++) {
                bad += ja[r * NNZ_ROW + (size_t)k] != csr_col(lo + (long long)r, k, S.N);
                bad += a[r * NNZ_ROW + (size_t)k] != csr_val(lo + (long long)r, k);
            }
    }
    return bad;
}

static void teardown(void)
{
    XMPI_Unregister(&S.p[0]);
    for (int a = 0; a < 3; a++) {
        free(S.p[a]);
        free(S.spare[a]);
    }
    memset(&S, 0, sizeof S);
}

/* With two equal blocks, handing every row to the other rank means taking its block. */
static int other_lo(void) { return S.lo == 0 ? S.n : 0; }

/* OP_XMPI_T is XMPI_Redistribute_data again, timed in the touched phase (see timed_runs). */
enum { OP_XMPI, OP_BARE, OP_BARE_TOUCHED, OP_COPY, OP_COPY_TOUCHED, OP_XMPI_T, NOP };

static int op_xmpi(void)
{
    int to = other_lo();
    int rc = XMPI_Redistribute_data(S.n, S.lo, S.n, to);
    if (rc == XMPI_SUCCESS) S.lo = to;
    return rc;
}

/* What a program without libxmpi writes for the same move, with the datatypes and counts
 * the library uses (rows of a contiguous type; CSR: row pointers, indices, values after an
 * exchange of the nonzero counts, since the receiver cannot know them). touched: into the
 * spare buffers, which isolates the page faults of a fresh buffer. */
static int op_bare(int touched)
{
    MPI_Comm comm = XMPI_COMM_WORLD;
    int peer = 1 - rank, sc[2] = {0, 0}, rc[2] = {0, 0}, zero[2] = {0, 0}, err = 0;
    void *fresh[3] = {NULL, NULL, NULL};
    if (S.kind != CSR) {
        MPI_Datatype row;
        MPI_Type_contiguous(S.kind == DENSE ? S.N : 1, MPI_DOUBLE, &row);
        MPI_Type_commit(&row);
        fresh[0] = touched ? S.spare[0] : xmalloc(S.bytes[0]);
        sc[peer] = rc[peer] = S.n;
        err |= MPI_Alltoallv(S.p[0], sc, zero, row, fresh[0], rc, zero, row, comm);
        MPI_Type_free(&row);
    } else {
        long long snnz[2] = {0, 0}, rnnz[2];
        const int *oldia = S.p[0];
        snnz[peer] = oldia[S.n] - oldia[0];
        err |= MPI_Alltoall(snnz, 1, MPI_LONG_LONG, rnnz, 1, MPI_LONG_LONG, comm);
        long long nnz = rnnz[0] + rnnz[1];
        if (nnz > INT_MAX || (size_t)nnz * sizeof(int) != S.bytes[1]) {
            /* Equal blocks hold equal nonzeros; anything else is a broken benchmark. */
            fprintf(stderr, "xmpi-redistbench: rank %d would receive %lld nonzeros\n", rank, nnz);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (int a = 0; a < 3; a++) fresh[a] = touched ? S.spare[a] : xmalloc(S.bytes[a]);
        int *ia = fresh[0];
        sc[peer] = rc[peer] = S.n;
        err |= MPI_Alltoallv(S.p[0], sc, zero, MPI_INT, ia, rc, zero, MPI_INT, comm);
        int first = ia[0];
        for (int r = 0; r < S.n; r++) ia[r] -= first;
        ia[S.n] = (int)nnz;
        sc[peer] = (int)snnz[peer];
        rc[peer] = (int)rnnz[peer];
        MPI_Datatype val;
        MPI_Type_contiguous(1, MPI_DOUBLE, &val);
        MPI_Type_commit(&val);
        err |= MPI_Alltoallv(S.p[1], sc, zero, MPI_INT, fresh[1], rc, zero, MPI_INT, comm);
        err |= MPI_Alltoallv(S.p[2], sc, zero, val, fresh[2], rc, zero, val, comm);
        MPI_Type_free(&val);
    }
    for (int a = 0; a < 3; a++) {
        if (!S.bytes[a]) continue;
        if (touched) S.spare[a] = S.p[a];
        else free(S.p[a]);
        S.p[a] = fresh[a];
    }
    S.lo = other_lo();
    return err ? XMPI_ERR_MPI : XMPI_SUCCESS;
}

/* The ceiling: the same bytes through local memory, both ranks at once, nothing crossing. */
static int op_copy(int touched)
{
    for (int a = 0; a < 3; a++) {
        if (!S.bytes[a]) continue;
        void *to = touched ? S.spare[a] : xmalloc(S.bytes[a]);
        memcpy(to, S.p[a], S.bytes[a]);
        if (touched) S.spare[a] = S.p[a];
        else free(S.p[a]);
        S.p[a] = to;
    }
    return XMPI_SUCCESS;
}

static long minor_faults(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) ? 0 : u.ru_minflt;
}

/* faults: this process's minor page faults during the op, which tell a fresh buffer's cost. */
static double timed(int op, int *rc, double *faults)
{
    long f0 = minor_faults();
    MPI_Barrier(XMPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    switch (op) {
    case OP_XMPI:
    case OP_XMPI_T: *rc = op_xmpi(); break;
    case OP_BARE: *rc = op_bare(0); break;
    case OP_BARE_TOUCHED: *rc = op_bare(1); break;
    case OP_COPY: *rc = op_copy(0); break;
    default: *rc = op_copy(1); break;
    }
    double t = MPI_Wtime() - t0;
    *faults = (double)(minor_faults() - f0);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, rc, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    return t;
}

static const char *const op_name[NOP] = {"XMPI_Redistribute_data", "bare MPI_Alltoallv",
                                         "bare MPI_Alltoallv (touched)", "memcpy", "memcpy (touched)",
                                         "XMPI_Redistribute_data"};

/* The two phases of a size: the library beside the fresh-buffer baselines, then beside the
 * touched-buffer ones. They are not mixed: on the project's VM, faulting in fresh memory makes
 * memory touched before slow to write again (a 128 MiB buffer took 17 times longer to rewrite
 * after 256 MiB elsewhere were faulted in and freed, with no page fault in the guest), so a
 * fresh-buffer op run between two touched ones slows whichever buffers it hit. The library
 * itself takes a fresh buffer where a block exceeds --xmpi-redist-spare (the faults A' column):
 * that is what it costs at that setting, and B' and C' then feel it too. */
static const int phase_ops[2][3] = {{OP_XMPI, OP_BARE, OP_COPY}, {OP_XMPI_T, OP_BARE_TOUCHED, OP_COPY_TOUCHED}};

/* n runs of every op on the structure setup() made, alternated, after untimed moves; then the
 * data checked. t: seconds, flt: page faults, per op and run. 0, or 1 after saying why (the
 * structure is torn down then). */
static int timed_runs(int k, double mib, int n, double t[NOP][MAXREPS], double flt[NOP][MAXREPS])
{
    int rc = 0;
    for (int ph = 0; ph < 2; ph++) {
        /* Untimed moves first: the first transfer between the ranks sets up the shared-memory
         * path, a cost no later move pays; and every buffer of the phase is written once. */
        for (int i = 0; i < 3 && !rc; i++) timed(phase_ops[ph][i], &rc, &flt[phase_ops[ph][i]][0]);
        for (int r = 0; r < n && !rc; r++)
            for (int i = 0; i < 3 && !rc; i++) {
                /* Each op takes every position in turn, and every other run goes backwards, so
                 * that drift and the state the previous op leaves (caches, the host's state) fall
                 * on all of them alike. */
                int j = (i + r / 2) % 3, op = phase_ops[ph][r % 2 ? 2 - j : j];
                double v = timed(op, &rc, &flt[op][r]);
                if (rc && rank == 0)
                    fprintf(stderr, "xmpi-redistbench: %s %g MiB: %s failed: %s\n", kind_name[k], mib,
                            op_name[op], XMPI_Error_string(rc));
                t[op][r] = v;
            }
    }
    long long bad = rc ? 0 : check();
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, XMPI_COMM_WORLD);
    if (!rc && !bad) return 0;
    if (rank == 0 && bad)
        fprintf(stderr, "xmpi-redistbench: %s %g MiB: %lld values wrong after the last move; "
                "no speed reported\n", kind_name[k], mib, bad);
    teardown();
    return 1;
}

/* One kind's figures per size, for its summary line. */
struct kind_results {
    double ratio[MAXSIZES], ratio_t[MAXSIZES], copy[MAXSIZES], copy_t[MAXSIZES], thr[MAXSIZES], mib[MAXSIZES];
};

/* Kind k at mib MiB, n runs: the table's row on rank 0, and entry s of kr. 0, or 1 on failure. */
static int measure_size(int k, double mib, int n, struct kind_results *kr, int s)
{
    setup(k, mib);
    int rc = k == DENSE ? XMPI_Register_dense(&S.p[0], S.N, MPI_DOUBLE, XMPI_DISTRIBUTED)
           : k == VECTOR ? XMPI_Register_vector(&S.p[0], S.N, MPI_DOUBLE, XMPI_DISTRIBUTED)
           : XMPI_Register_sparse(&S.p[0], &S.p[1], &S.p[2], S.N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (rc != XMPI_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "xmpi-redistbench: registering %s: %s\n", kind_name[k], XMPI_Error_string(rc));
        return 1;
    }
    double t[NOP][MAXREPS], flt[NOP][MAXREPS], rb[MAXREPS], rt[MAXREPS];
    if (timed_runs(k, mib, n, t, flt)) return 1;
    double m[NOP];
    for (int op = 0; op < NOP; op++) m[op] = bench_median_copy(t[op], n);
    /* Per MiB of rank 0's new block: 256 when every 4 KiB page of it is new. */
    double per_mib = S.moved / 2 / MIB, fa = bench_median_copy(flt[OP_XMPI], n) / per_mib,
           fat = bench_median_copy(flt[OP_XMPI_T], n) / per_mib, fb = bench_median_copy(flt[OP_BARE], n) / per_mib;
    /* Ratios within a run compare moves seconds apart, which the machine's drift over a minute
     * does not skew. */
    for (int r = 0; r < n; r++) {
        rb[r] = t[OP_BARE][r] / t[OP_XMPI][r];
        rt[r] = t[OP_BARE_TOUCHED][r] / t[OP_XMPI_T][r];
    }
    kr->ratio[s] = bench_median_copy(rb, n);
    kr->ratio_t[s] = bench_median_copy(rt, n);
    kr->thr[s] = S.moved / m[OP_XMPI] / 1e9;
    kr->copy[s] = S.moved / m[OP_COPY] / 1e9;
    kr->copy_t[s] = S.moved / m[OP_COPY_TOUCHED] / 1e9;
    kr->mib[s] = mib;
    if (rank == 0) {
        printf("%-6s %5g %8.4f %8.4f %8.4f  %8.4f %8.4f %8.4f  %6.2f %6.2f %6.2f %6.2f  %5.2f %6.2f  "
               "%4.0f %4.0f %4.0f\n", kind_name[k], mib, m[OP_XMPI], m[OP_BARE], m[OP_COPY], m[OP_XMPI_T],
               m[OP_BARE_TOUCHED], m[OP_COPY_TOUCHED], kr->thr[s], S.moved / m[OP_BARE] / 1e9,
               S.moved / m[OP_BARE_TOUCHED] / 1e9, kr->copy_t[s], kr->ratio[s], kr->ratio_t[s], fa, fat, fb);
        fflush(stdout);
    }
    teardown();
    return 0;
}

static int throughput(const double *sizes, int nsizes, int reps, const int *kinds)
{
    if (rank == 0) {
        printf("redistbench: every row to the other rank; A = XMPI_Redistribute_data, B = bare MPI_Alltoallv\n"
               "  into a fresh buffer (old freed), C = memcpy into a fresh buffer; then, in a second phase\n"
               "  with no fresh buffer, A' = XMPI_Redistribute_data again, B' = bare MPI_Alltoallv into a\n"
               "  touched buffer, C' = memcpy into a touched buffer. Both ranks at once. Seconds: medians of\n"
               "  the runs (max over ranks), %d at the largest size and more at smaller ones (same time\n"
               "  per size, up to 4x); within a phase the ops alternate run by run, forwards and\n"
               "  backwards. GB/s = bytes of the whole structure / time. A/B, A'/B': medians of the ratios\n"
               "  within each run (> 1: the library is faster). faults: rank 0's minor page faults during\n"
               "  A, A' and B per MiB it receives (256 = every 4 KiB page new); where A' faults (a block\n"
               "  larger than --xmpi-redist-spare), the library's own fresh buffers are in that phase\n", reps);
        printf("%-6s %5s %8s %8s %8s  %8s %8s %8s  %6s %6s %6s %6s  %5s %6s  %14s\n", "kind", "MiB", "A s",
               "B s", "C s", "A' s", "B' s", "C' s", "A GB/s", "B", "B'", "C'", "A/B", "A'/B'", "faults A A' B");
    }
    double largest = 0;
    for (int s = 0; s < nsizes; s++) largest = sizes[s] > largest ? sizes[s] : largest;
    for (int k = 0; k < NKIND; k++) {
        if (!kinds[k]) continue;
        struct kind_results kr;
        for (int s = 0; s < nsizes; s++) {
            /* Small moves are the noisiest relative to their time, and cheap to repeat. */
            double more = largest / 2 / sizes[s];
            int n = reps * (more >= 4 ? 4 : more >= 1 ? (int)more : 1);
            if (measure_size(k, sizes[s], n > MAXREPS ? MAXREPS : n, &kr, s)) return 1;
        }
        if (rank == 0) {
            double mr = bench_median_copy(kr.ratio, nsizes), mt = bench_median_copy(kr.ratio_t, nsizes);
            /* Issue 16's target: every move of 64 MiB or more at >= 0.8 of the touched baseline. */
            double worst = 0, at = 0;
            for (int s = 0; s < nsizes; s++)
                if (kr.mib[s] >= 64 && (!at || kr.ratio_t[s] < worst)) worst = kr.ratio_t[s], at = kr.mib[s];
            printf("summary: %-6s A/B %.2f (target >= 0.9: %s), A'/B' %.2f, A %.2f GB/s, memcpy %.2f GB/s "
                   "(touched %.2f); medians over %g-%g MiB, data checked\n",
                   kind_name[k], mr, mr >= 0.9 ? "met" : "missed", mt, bench_median_copy(kr.thr, nsizes),
                   bench_median_copy(kr.copy, nsizes), bench_median_copy(kr.copy_t, nsizes), sizes[0],
                   sizes[nsizes - 1]);
            if (at)
                printf("summary: %-6s moves of 64 MiB or more: worst A'/B' %.2f at %g MiB (target >= 0.8: %s)\n",
                       kind_name[k], worst, at, worst >= 0.8 ? "met" : "missed");
            fflush(stdout);
        }
    }
    return 0;
}

/* ---- growing 2 -> 3 ------------------------------------------------------------- */

static int overlap(int ac, int ad, int bc, int bd, int *lo)
{
    int l = ad > bd ? ad : bd, h = ad + ac < bd + bc ? ad + ac : bd + bc;
    *lo = l;
    return h > l ? h - l : 0;
}

/* The same rows with plain MPI, as the library moves them (its own rows too), from blocks
 * b[0..1] to blocks b[2..3] of every rank: out of a touched buffer of the old block's size
 * (the registered one may already hold the new block) into a fresh one, dropped again. */
static double bare_grow(const int *b, int p, int me, int N)
{
    int *sc = xmalloc(sizeof *sc * 4 * (size_t)p), *sd = sc + p, *rc = sc + 2 * p, *rd = sc + 3 * p;
    for (int j = 0; j < p; j++) {
        int lo;
        sc[j] = overlap(b[4 * me], b[4 * me + 1], b[4 * j + 2], b[4 * j + 3], &lo);
        sd[j] = sc[j] ? lo - b[4 * me + 1] : 0;
        rc[j] = overlap(b[4 * j], b[4 * j + 1], b[4 * me + 2], b[4 * me + 3], &lo);
        rd[j] = rc[j] ? lo - b[4 * me + 3] : 0;
    }
    size_t old = (size_t)b[4 * me] * (size_t)N * sizeof(double);
    double *src = xmalloc(old);
    memset(src, 0, old);
    MPI_Datatype row;
    MPI_Barrier(XMPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Type_contiguous(N, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);
    double *to = xmalloc((size_t)b[4 * me + 2] * (size_t)N * sizeof(double));
    MPI_Alltoallv(src, sc, sd, row, to, rc, rd, row, XMPI_COMM_WORLD);
    free(to);
    MPI_Type_free(&row);
    double t = MPI_Wtime() - t0;
    free(src);
    free(sc);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    return t;
}

/* Run by the parents and the spawned process alike once XMPI_Spawn has merged them: the
 * move to even blocks over 3 (XMPI_Get_data in the child) beside the same move by a bare
 * MPI_Alltoallv (first in even rounds, second in odd ones: the first contact between a
 * parent and the new process costs extra), a check, then XMPI_Remove, which hands the
 * child's rows back. res: in: this process's spawn seconds and the round; out: spawn, move
 * and bare move seconds, bytes moved, and this process's remove seconds. */
static int grown(double **x, int N, int child, double res[5])
{
    int me, p, oc = 0, od = 0, nc, nd, rc, round = (int)res[1];
    MPI_Comm_rank(XMPI_COMM_WORLD, &me);
    MPI_Comm_size(XMPI_COMM_WORLD, &p);
    MPI_Bcast(&round, 1, MPI_INT, 0, XMPI_COMM_WORLD);
    if (!child) XMPI_Get_wsize(me, p - 1, N, &oc, &od);
    XMPI_Get_wsize(me, p, N, &nc, &nd);
    /* Rows this process receives: its new block less what it held of it already. */
    int keep_lo, keep = overlap(oc, od, nc, nd, &keep_lo);
    double bytes = (double)(nc - keep) * N * sizeof(double), bare = 0;
    int mine[4] = {oc, od, nc, nd}, *b = xmalloc(sizeof *b * 4 * (size_t)p);
    MPI_Allgather(mine, 4, MPI_INT, b, 4, MPI_INT, XMPI_COMM_WORLD);
    if (round % 2 == 0) bare = bare_grow(b, p, me, N);
    MPI_Barrier(XMPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = child ? XMPI_Get_data(NULL) : XMPI_Redistribute_data(oc, od, nc, nd);
    double t = MPI_Wtime() - t0;
    long long bad = rc ? 0 : dense_check(*x, nd, nc, N);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &res[0], 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    if (me == 0 && (rc || bad))
        fprintf(stderr, "xmpi-redistbench: grow 2 -> 3: %s\n",
                rc ? XMPI_Error_string(rc) : "wrong values after the move");
    if (round % 2) bare = bare_grow(b, p, me, N);
    free(b);
    res[1] = t;
    res[2] = bare;
    res[3] = bytes;
    /* Removed or not, every process goes through XMPI_Remove, so a failure cannot hang. */
    MPI_Barrier(XMPI_COMM_WORLD);
    t0 = MPI_Wtime();
    int rrc = XMPI_Remove(1, NULL);
    res[4] = MPI_Wtime() - t0;
    return rc || bad || rrc ? 1 : 0;
}

static int grow_child(int N)
{
    double *x = NULL, res[5] = {0};
    int rc = XMPI_Register_dense(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (rc) {
        /* The parents are waiting in the collective move: only an abort ends it. */
        fprintf(stderr, "xmpi-redistbench: spawned process: %s\n", XMPI_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    grown(&x, N, 1, res);
    free(x);
    MPI_Finalize();
    return 0;
}

static int grow(const char *self, int N, int reps)
{
    int size, n, lo;
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    XMPI_Get_wsize(rank, size, N, &n, &lo);
    double *x = xmalloc((size_t)n * (size_t)N * sizeof(double));
    dense_fill(x, lo, n, N);
    int rc = XMPI_Register_dense(&x, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (rc) {
        if (rank == 0) fprintf(stderr, "xmpi-redistbench: registering: %s\n", XMPI_Error_string(rc));
        return 1;
    }
    char flag[] = "--grow-child", rows[16], *args[] = {flag, rows, NULL};
    snprintf(rows, sizeof rows, "%d", N);
    double sp[MAXREPS], mv[MAXREPS], bm[MAXREPS], rm[MAXREPS], bytes = 0;
    if (rank == 0)
        printf("grow: a registered %d x %d MPI_DOUBLE dense matrix (%.0f MB) on %d processes, +1\n", N, N,
               (double)N * N * sizeof(double) / 1e6, size);
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(XMPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        rc = XMPI_Spawn(self, args, 1, MPI_INFO_NULL, NULL);
        sp[r] = MPI_Wtime() - t0;
        if (rc) {
            if (rank == 0) fprintf(stderr, "xmpi-redistbench: XMPI_Spawn: %s\n", XMPI_Error_string(rc));
            return 1;
        }
        double res[5] = {sp[r], r};
        if (grown(&x, N, 0, res)) return 1;
        sp[r] = res[0];
        mv[r] = res[1];
        bm[r] = res[2];
        bytes = res[3];
        rm[r] = res[4];
        MPI_Allreduce(MPI_IN_PLACE, &rm[r], 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
        /* The hand-back must have restored every row too. */
        XMPI_Get_wsize(rank, size, N, &n, &lo);
        long long bad = dense_check(x, lo, n, N);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, XMPI_COMM_WORLD);
        if (bad) {
            if (rank == 0) fprintf(stderr, "xmpi-redistbench: %lld wrong values after XMPI_Remove\n", bad);
            return 1;
        }
        if (rank == 0) {
            printf("grow 2 -> 3 #%d: XMPI_Spawn %.3f s, data movement %.4f s (%.1f MB moved, %.2f GB/s; "
                   "bare MPI_Alltoallv %.4f s), XMPI_Remove with hand-back %.4f s\n", r + 1, sp[r], mv[r],
                   bytes / 1e6, bytes / mv[r] / 1e9, bm[r], rm[r]);
            fflush(stdout);
        }
    }
    XMPI_Unregister(&x);
    free(x);
    if (rank == 0)
        printf("summary: grow 2 -> 3 (%d x %d doubles, %.0f MB): spawn %.3f s, data movement %.4f s "
               "(%.1f MB moved; bare MPI_Alltoallv %.4f s), remove %.4f s; medians of %d, data checked\n",
               N, N, (double)N * N * sizeof(double) / 1e6, bench_median_copy(sp, reps),
               bench_median_copy(mv, reps), bytes / 1e6, bench_median_copy(bm, reps),
               bench_median_copy(rm, reps), reps);
    return 0;
}

/* ---- counts past INT_MAX ------------------------------------------------------------ */

static unsigned char big_val(long long i, long long j)
{
    return (unsigned char)(i * 131 + j * 29 + (i >> 8) * 13 + (j >> 8) * 7);
}

static void big_fill(unsigned char *x, long long lo, long long n, long long N)
{
    for (long long r = 0; r < n; r++)
        for (long long j = 0; j < N; j++) x[r * N + j] = big_val(lo + r, j);
}

static long long big_check(const unsigned char *x, long long lo, long long n, long long N)
{
    long long bad = 0;
    for (long long r = 0; r < n; r++)
        for (long long j = 0; j < N; j++) bad += x[r * N + j] != big_val(lo + r, j);
    return bad;
}

static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb * 1024;
}

/* One move and check; on every process the same verdict. */
static int big_move(unsigned char **x, int N, int oc, int od, int nc, int nd, const char *what)
{
    MPI_Barrier(XMPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = XMPI_Redistribute_data(oc, od, nc, nd);
    double t = MPI_Wtime() - t0;
    long long bad = rc ? 0 : big_check(*x, nd, nc, N);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, XMPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    if (rank == 0) {
        if (rc) printf("large: %s: XMPI_Redistribute_data: %s\n", what, XMPI_Error_string(rc));
        else printf("large: %s: %.2f s, %s\n", what, t, bad ? "WRONG VALUES" : "every byte exact");
        if (bad) printf("large: %lld wrong bytes\n", bad);
        fflush(stdout);
    }
    return rc || bad;
}

static int large(int N)
{
    int size, n, lo;
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    XMPI_Get_wsize(rank, size, N, &n, &lo);
    long long elems = (long long)N * N;
    double block = (double)((N + 1) / 2) * N;
    /* First move: an old and a new block per rank. Second: one rank holds its old block
     * and the whole matrix, one block of more than INT_MAX elements. */
    double need1 = 2 * block, need2 = block + (double)elems;
    double avail = mem_available();
    MPI_Bcast(&avail, 1, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    if (rank == 0)
        printf("large: %d x %d MPI_CHAR (N^2 = %lld elements, %s INT_MAX), %.2f GB per rank per move; "
               "MemAvailable %.1f GB\n", N, N, elems, elems > INT_MAX ? ">" : "<=", need1 / 1e9, avail / 1e9);
    if (avail < 3 * need1 * 2) {
        if (rank == 0)
            printf("summary: large counts: skipped (MemAvailable %.1f GB < 3 x %.2f GB per rank x 2 ranks)\n",
                   avail / 1e9, need1 / 1e9);
        return 0;
    }
    unsigned char *x = xmalloc((size_t)n * (size_t)N);
    big_fill(x, lo, n, N);
    int rc = XMPI_Register_dense(&x, N, MPI_CHAR, XMPI_DISTRIBUTED);
    if (rc) {
        if (rank == 0) fprintf(stderr, "xmpi-redistbench: registering: %s\n", XMPI_Error_string(rc));
        return 1;
    }
    /* Swap the blocks: every row changes owner. */
    int other_n, other_lo;
    XMPI_Get_wsize(1 - rank, size, N, &other_n, &other_lo);
    int failed = big_move(&x, N, n, lo, other_n, other_lo, "every row to the other rank");
    int one_block = !failed && avail >= 3 * need2 * 2;
    if (!failed && !one_block && rank == 0)
        printf("large: the whole matrix on one rank skipped (needs MemAvailable >= %.1f GB)\n",
               6 * need2 / 1e9);
    if (one_block)
        failed = big_move(&x, N, other_n, other_lo, rank == 1 ? N : 0, 0,
                          "the whole matrix to rank 1 (one block > INT_MAX elements)");
    XMPI_Unregister(&x);
    free(x);
    if (rank == 0)
        printf("summary: large dense (N^2 = %lld elements %s INT_MAX): %s\n", elems,
               elems > INT_MAX ? ">" : "<=", failed ? "FAILED" : one_block ? "values exact (rows swapped; whole matrix on one rank)"
                                             : "values exact (rows swapped)");
    return failed;
}

/* ---- main ----------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED)
        return grow_child(argc == 3 && !strcmp(argv[1], "--grow-child") ? atoi(argv[2]) : 4000);

    int size, mode = 0, reps = -1, rows = -1, bad = 0, nsizes = 4, kinds[NKIND] = {1, 1, 1};
    double sizes[MAXSIZES] = {64, 128, 256, 512};
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    for (int i = 1; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--grow")) mode = 1;
        else if (!strcmp(argv[i], "--large")) mode = 2;
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) rows = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
            char *s = argv[++i], *end;
            for (nsizes = 0; *s && nsizes < MAXSIZES; s = *end == ',' ? end + 1 : end) {
                sizes[nsizes] = strtod(s, &end);
                if (end == s || sizes[nsizes++] <= 0) { bad = 1; break; }
            }
        } else if (!strcmp(argv[i], "-k") && i + 1 < argc) {
            char *list = argv[++i];
            int any = 0;
            for (int k = 0; k < NKIND; k++) any |= kinds[k] = strstr(list, kind_name[k]) != NULL;
            bad = !any;
        } else if (!strcmp(argv[i], "-h")) bad = -1;
        else bad = 1;
    }
    if (reps < 0) reps = mode == 1 ? 4 : 10;
    if (rows < 0) rows = mode == 1 ? 4000 : 46341;
    if (!bad && (reps < 1 || reps > MAXREPS || rows < 2 || nsizes < 1 || size != 2)) {
        if (rank == 0 && size != 2)
            fprintf(stderr, "xmpi-redistbench: run it with 2 processes (mpirun -np 2)\n");
        bad = 1;
    }
    if (bad) {
        if (rank == 0) usage(bad < 0 ? stdout : stderr);
        MPI_Finalize();
        return bad < 0 ? 0 : 2;
    }
    int rc;
    if (mode == 1) rc = grow(argv[0], rows, reps);
    else if (mode == 2) rc = large(rows);
    else {
        if (rank == 0) {
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int len;
            MPI_Get_library_version(lib, &len);
            lib[strcspn(lib, "\n,")] = '\0';
            printf("redistbench: MPI library: %s\n", lib);
        }
        rc = throughput(sizes, nsizes, reps, kinds);
    }
    MPI_Finalize();
    return rc;
}
