/* MPI scenario for checkpoint and restart (tests/sh/checkpoint.sh): every kind of registered
 * structure (vector, dense, CSR; distributed and replicated; double, int and float elements)
 * updated by a partition-independent rule, written to OUT in global order at the end, so that
 * a run restarted at any size can be compared byte for byte with an uninterrupted one.
 * usage: test_ckpt N ITERATIONS OUT [NAMED_AT NAME]   (XMPI_Checkpoint(NAME) after iteration
 * NAMED_AT). Started by mpirun it fills the data and moves it to uneven blocks; restarted
 * (--xmpi-restart) it registers NULL pointers and takes data and iteration from XMPI_Get_data. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmpi.h"

static int N, rank, nprocs, count, displ;
static double *v, *D, *Dr, *sa;
static int *vi, *sia, *sja, *ria, *rja;
static float *ra;

static void die(const char *what, int rc)
{
    fprintf(stderr, "test_ckpt: rank %d: %s failed: %s\n", rank, what, XMPI_Error_string(rc));
    MPI_Finalize();
    exit(1);
}

static int row_nnz(int i) { return i % 5; }
static int col(int i, int k) { return (i * 7 + k * 3) % N; }

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("malloc", XMPI_ERR_NOMEM);
    return p;
}

/* This process's rows [displ, displ + count) of the distributed structures, every row of the
 * replicated ones: the values at the start. */
static void fill(void)
{
    v = xmalloc(sizeof *v * (size_t)count);
    D = xmalloc(sizeof *D * (size_t)count * (size_t)N);
    vi = xmalloc(sizeof *vi * (size_t)N);
    Dr = xmalloc(sizeof *Dr * (size_t)N * (size_t)N);
    for (int k = 0; k < count; k++) {
        int i = displ + k;
        v[k] = i * 0.5;
        for (int j = 0; j < N; j++) D[(size_t)k * N + j] = i - j * 0.125;
    }
    for (int i = 0; i < N; i++) {
        vi[i] = i * 3;
        for (int j = 0; j < N; j++) Dr[(size_t)i * N + j] = i * 0.25 + j;
    }
    int nnz = 0;
    for (int k = 0; k < count; k++) nnz += row_nnz(displ + k);
    sia = xmalloc(sizeof *sia * ((size_t)count + 1));
    sja = xmalloc(sizeof *sja * (size_t)nnz);
    sa = xmalloc(sizeof *sa * (size_t)nnz);
    sia[0] = 0;
    for (int k = 0, at = 0; k < count; k++) {
        int i = displ + k;
        for (int q = 0; q < row_nnz(i); q++, at++) {
            sja[at] = col(i, q);
            sa[at] = i + q * 0.25;
        }
        sia[k + 1] = at;
    }
    int rnnz = 0;
    for (int i = 0; i < N; i++) rnnz += row_nnz(N - 1 - i);
    ria = xmalloc(sizeof *ria * ((size_t)N + 1));
    rja = xmalloc(sizeof *rja * (size_t)rnnz);
    ra = xmalloc(sizeof *ra * (size_t)rnnz);
    ria[0] = 0;
    for (int i = 0, at = 0; i < N; i++) {
        for (int q = 0; q < row_nnz(N - 1 - i); q++, at++) {
            rja[at] = col(N - 1 - i, q);
            ra[at] = (float)(i - q);
        }
        ria[i + 1] = at;
    }
}

static void register_all(void)
{
    int rc = XMPI_Register_vector(&v, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc) rc = XMPI_Register_vector(&vi, N, MPI_INT, XMPI_REPLICATED);
    if (!rc) rc = XMPI_Register_dense(&D, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc) rc = XMPI_Register_dense(&Dr, N, MPI_DOUBLE, XMPI_REPLICATED);
    if (!rc) rc = XMPI_Register_sparse(&sia, &sja, &sa, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (!rc) rc = XMPI_Register_sparse(&ria, &rja, &ra, N, MPI_FLOAT, XMPI_REPLICATED);
    if (rc) die("XMPI_Register_*", rc);
}

/* One iteration: every value depends on its global row, column and the iteration only. */
static void step(int it)
{
    for (int k = 0; k < count; k++) {
        int i = displ + k;
        v[k] = v[k] * 0.5 + (double)((i * 31 + it) % 17);
        for (int j = 0; j < N; j++) D[(size_t)k * N + j] = D[(size_t)k * N + j] * 0.75 + (i + j + it) % 7;
        for (int q = sia[k]; q < sia[k + 1]; q++) sa[q] = sa[q] * 0.5 + it + sja[q];
    }
    for (int i = 0; i < N; i++) {
        vi[i] = (vi[i] * 3 + it) % 100003;
        for (int j = 0; j < N; j++) Dr[(size_t)i * N + j] = Dr[(size_t)i * N + j] * 0.5 + (i * j + it) % 5;
    }
    for (int q = 0; q < ria[N]; q++) ra[q] = ra[q] * 0.5f + (float)(it % 3) + (float)rja[q];
}

/* Rank 0 writes every structure in global order. */
static void dump(const char *out)
{
    int *c = xmalloc(sizeof *c * (size_t)nprocs), *d = xmalloc(sizeof *d * (size_t)nprocs);
    int *nz = xmalloc(sizeof *nz * (size_t)nprocs), *nd = xmalloc(sizeof *nd * (size_t)nprocs);
    int *cr = xmalloc(sizeof *cr * (size_t)nprocs), *dr = xmalloc(sizeof *dr * (size_t)nprocs);
    for (int r = 0; r < nprocs; r++) XMPI_Get_wsize(r, nprocs, N, &c[r], &d[r]);
    int mine = sia[count];
    MPI_Allgather(&mine, 1, MPI_INT, nz, 1, MPI_INT, XMPI_COMM_WORLD);
    for (int r = 0; r < nprocs; r++) {
        nd[r] = 0;
        for (int q = 0; q < nprocs; q++)
            if (d[q] < d[r]) nd[r] += nz[q];
        cr[r] = c[r] * N;
        dr[r] = d[r] * N;
    }
    int total = 0;
    for (int r = 0; r < nprocs; r++) total += nz[r];
    double *gv = xmalloc(sizeof *gv * (size_t)N), *gD = xmalloc(sizeof *gD * (size_t)N * N);
    double *ga = xmalloc(sizeof *ga * (size_t)total);
    int *glen = xmalloc(sizeof *glen * (size_t)N), *gja = xmalloc(sizeof *gja * (size_t)total);
    int *len = xmalloc(sizeof *len * (size_t)count);
    for (int k = 0; k < count; k++) len[k] = sia[k + 1] - sia[k];
    MPI_Gatherv(v, count, MPI_DOUBLE, gv, c, d, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    MPI_Gatherv(D, count * N, MPI_DOUBLE, gD, cr, dr, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    MPI_Gatherv(len, count, MPI_INT, glen, c, d, MPI_INT, 0, XMPI_COMM_WORLD);
    MPI_Gatherv(sja, mine, MPI_INT, gja, nz, nd, MPI_INT, 0, XMPI_COMM_WORLD);
    MPI_Gatherv(sa, mine, MPI_DOUBLE, ga, nz, nd, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    if (rank == 0) {
        FILE *f = fopen(out, "wb");
        if (!f) die("writing the output file", XMPI_ERR_ARG);
        fwrite(gv, sizeof *gv, (size_t)N, f);
        fwrite(vi, sizeof *vi, (size_t)N, f);
        fwrite(gD, sizeof *gD, (size_t)N * N, f);
        fwrite(Dr, sizeof *Dr, (size_t)N * N, f);
        fwrite(glen, sizeof *glen, (size_t)N, f);
        fwrite(gja, sizeof *gja, (size_t)total, f);
        fwrite(ga, sizeof *ga, (size_t)total, f);
        fwrite(ria, sizeof *ria, (size_t)N + 1, f);
        fwrite(rja, sizeof *rja, (size_t)ria[N], f);
        fwrite(ra, sizeof *ra, (size_t)ria[N], f);
        fclose(f);
    }
    free(c), free(d), free(nz), free(nd), free(cr), free(dr), free(gv), free(gD), free(ga);
    free(glen), free(gja), free(len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    if (argc != 4 && argc != 6) {
        if (rank == 0) fprintf(stderr, "usage: test_ckpt N ITERATIONS OUT [NAMED_AT NAME]\n");
        MPI_Finalize();
        return 2;
    }
    N = atoi(argv[1]);
    int iters = atoi(argv[2]), named_at = argc == 6 ? atoi(argv[4]) : -1, it = 0, rc;
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED) {
        register_all();   /* every pointer NULL */
        if ((rc = XMPI_Get_data(&it))) die("XMPI_Get_data", rc);
        XMPI_Get_wsize(rank, nprocs, N, &count, &displ);
        if (rank == 0) printf("resumed at iteration %d on %d processes\n", it, nprocs);
    } else {
        XMPI_Get_wsize(rank, nprocs, N, &count, &displ);
        fill();
        register_all();
        /* Uneven blocks, rank r in proportion to r + 1, so that the checkpoint is written from
         * a partition no restart starts with. */
        int *c = xmalloc(sizeof *c * (size_t)nprocs), sum = nprocs * (nprocs + 1) / 2, at = 0;
        for (int r = 0; r < nprocs; r++) c[r] = N * (r + 1) / sum;
        for (int r = 0; r < nprocs; r++) at += c[r];
        c[nprocs - 1] += N - at;
        int nd = 0;
        for (int r = 0; r < rank; r++) nd += c[r];
        if ((rc = XMPI_Redistribute_data(count, displ, c[rank], nd))) die("XMPI_Redistribute_data", rc);
        count = c[rank];
        displ = nd;
        free(c);
    }
    for (; it < iters; it++) {
        XMPI_Monitor_iter_begin(NULL);
        step(it);
        XMPI_Monitor_iter_end(NULL);   /* at interval ends: the automatic checkpoint */
        if (it + 1 == named_at && (rc = XMPI_Checkpoint(argv[5]))) die("XMPI_Checkpoint", rc);
    }
    dump(argv[3]);
    if (rank == 0) printf("done: %d iterations on %d processes\n", iters, nprocs);
    MPI_Finalize();
    return 0;
}
