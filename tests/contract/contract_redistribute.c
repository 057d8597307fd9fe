/* Contract: partitions (XMPI_Get_wsize) and moving registered structures
 * (XMPI_Redistribute_data): every kind and scheme bit for bit, blocks out of rank order and
 * empty, and every refusal the same everywhere with nothing moved.
 * usage: contract_redistribute [nomem]   (on 1-3 processes; nomem: a move that needs more memory
 *        than the process may have, under RLIMIT_AS, must be refused with nothing moved) */
#include <sys/resource.h>

#include "contract.h"

enum { N = 17 };

static MPI_Comm W;
static int rank, nprocs;

/* The global structures: a distributed vector x (double), a distributed dense N x N matrix A
 * (double), a replicated vector r (int), a distributed CSR matrix S (ia, ja, a) and the same
 * matrix replicated (ria, rja, ra). Values depend on the global row only (and, for the
 * replicated ones, on a version the owners set before each move). */
static int nz(int i) { return (i * 7) % 4; }   /* 0..3 nonzeros; some rows are empty */
static int col(int i, int j) { return (i * 5 + j * 3) % N; }
static double sval(int i, int j) { return row_init(i) + j; }
static double aval(int i, int j) { return row_init(i) * (j + 1) - j; }
static int rval(int i, int version) { return i * 3 + 1 + version * 1000; }
static int nnz_before(int row)
{
    int s = 0;
    for (int i = 0; i < row; i++) s += nz(i);
    return s;
}

struct data {
    double *x, *A;
    int *r;
    int *ia, *ja;
    double *a;
    int *ria, *rja;
    double *ra;
    int *cp, *ri;   /* S by columns (CSC), distributed by columns */
    double *cv;
};
/* S's CSC, global: column pointers, row indices, values */
static int gcp[N + 1], gri[4 * N];
static double gcv[4 * N];
static void csc(void)
{
    int at = 0;
    gcp[0] = 0;
    for (int c = 0; c < N; c++) {
        for (int i = 0; i < N; i++)
            for (int j = 0; j < nz(i); j++)
                if (col(i, j) == c) gri[at] = i, gcv[at] = sval(i, j), at++;
        gcp[c + 1] = at;
    }
}
static struct data d;
static int version;   /* of the replicated values */

static void *xmalloc(size_t n) { return malloc(n ? n : 1); }

/* This process's rows [displ, displ + count) of every structure, and the replicated ones whole
 * with the rows it does not own spoiled (as a program that updates only its own rows has them). */
static void fill(int count, int displ)
{
    d.x = xmalloc(sizeof *d.x * count);
    d.A = xmalloc(sizeof *d.A * count * N);
    d.r = xmalloc(sizeof *d.r * N);
    int lnz = nnz_before(displ + count) - nnz_before(displ), gnz = nnz_before(N);
    d.ia = xmalloc(sizeof *d.ia * (count + 1));
    d.ja = xmalloc(sizeof *d.ja * lnz);
    d.a = xmalloc(sizeof *d.a * lnz);
    int cnz = gcp[displ + count] - gcp[displ];
    d.cp = xmalloc(sizeof *d.cp * (count + 1));
    d.ri = xmalloc(sizeof *d.ri * cnz);
    d.cv = xmalloc(sizeof *d.cv * cnz);
    for (int l = 0; l <= count; l++) d.cp[l] = gcp[displ + l] - gcp[displ];
    for (int k = 0; k < cnz; k++) d.ri[k] = gri[gcp[displ] + k], d.cv[k] = gcv[gcp[displ] + k];
    d.ria = xmalloc(sizeof *d.ria * (N + 1));
    d.rja = xmalloc(sizeof *d.rja * gnz);
    d.ra = xmalloc(sizeof *d.ra * gnz);
    d.ia[0] = 0;
    for (int l = 0; l < count; l++) {
        int i = displ + l;
        d.x[l] = row_init(i);
        for (int j = 0; j < N; j++) d.A[(size_t)l * N + j] = aval(i, j);
        d.ia[l + 1] = d.ia[l] + nz(i);
        for (int j = 0; j < nz(i); j++) d.ja[d.ia[l] + j] = col(i, j), d.a[d.ia[l] + j] = sval(i, j);
    }
    d.ria[0] = 0;
    for (int i = 0; i < N; i++) {
        d.ria[i + 1] = d.ria[i] + nz(i);
        for (int j = 0; j < nz(i); j++) d.rja[d.ria[i] + j] = col(i, j), d.ra[d.ria[i] + j] = sval(i, j);
    }
    for (int i = 0; i < N; i++) d.r[i] = rval(i, version);
}

/* Before a move: the owners give the replicated rows a new version; the other copies are
 * spoiled. */
static void touch_replicated(int count, int displ)
{
    version++;
    for (int i = 0; i < N; i++) {
        int mine = i >= displ && i < displ + count;
        d.r[i] = mine ? rval(i, version) : -(rank + 1);
        for (int k = d.ria[i]; k < d.ria[i + 1]; k++)
            d.ra[k] = mine ? sval(i, k - d.ria[i]) + version : -1.0 - rank;
    }
}

/* Every structure holds exactly this process's rows [displ, displ + count), bit for bit. */
static int verify(int count, int displ)
{
    int ok = count == 0 || (d.x && d.A && d.a);
    ok = ok && d.ia && d.r && d.ria;
    for (int l = 0; ok && l < count; l++) {
        int i = displ + l;
        ok = dbits(d.x[l]) == dbits(row_init(i));
        for (int j = 0; ok && j < N; j++) ok = dbits(d.A[(size_t)l * N + j]) == dbits(aval(i, j));
    }
    ok = ok && d.ia[0] == 0;
    for (int l = 0; ok && l < count; l++) {
        int i = displ + l;
        ok = d.ia[l + 1] - d.ia[l] == nz(i);
        for (int j = 0; ok && j < nz(i); j++)
            ok = d.ja[d.ia[l] + j] == col(i, j) && dbits(d.a[d.ia[l] + j]) == dbits(sval(i, j));
    }
    ok = ok && d.cp && d.cp[0] == 0 && (count == 0 || (d.ri && d.cv));
    for (int l = 0; ok && l < count; l++) {
        int c = displ + l;
        ok = d.cp[l + 1] - d.cp[l] == gcp[c + 1] - gcp[c];
        for (int k = 0; ok && k < gcp[c + 1] - gcp[c]; k++)
            ok = d.ri[d.cp[l] + k] == gri[gcp[c] + k] && dbits(d.cv[d.cp[l] + k]) == dbits(gcv[gcp[c] + k]);
    }
    for (int i = 0; ok && i < N; i++) {
        ok = d.r[i] == rval(i, version) && d.ria[i + 1] - d.ria[i] == nz(i);
        for (int k = d.ria[i]; ok && k < d.ria[i + 1]; k++)
            ok = d.rja[k] == col(i, k - d.ria[i]) &&
                 dbits(d.ra[k]) == dbits(sval(i, k - d.ria[i]) + version);
    }
    return ok;
}

/* A byte image of everything a refused call must leave alone: the pointers and the local data. */
static size_t image(unsigned char *buf, int count)
{
    size_t n = 0;
#define PUT(p, bytes)                                                                               \
    do {                                                                                        \
        memcpy(buf + n, &(p), sizeof(p));                                                        \
        n += sizeof(p);                                                                          \
        if ((p) && (bytes) > 0) memcpy(buf + n, (p), (bytes));                                      \
        n += (bytes);                                                                            \
    } while (0)
    int lnz = count > 0 && d.ia ? d.ia[count] : 0, gnz = nnz_before(N);
    PUT(d.x, sizeof *d.x * count);
    PUT(d.A, sizeof *d.A * count * N);
    PUT(d.r, sizeof *d.r * N);
    PUT(d.ia, sizeof *d.ia * (count + 1));
    PUT(d.ja, sizeof *d.ja * lnz);
    PUT(d.a, sizeof *d.a * lnz);
    int cnz = count > 0 && d.cp ? d.cp[count] : 0;
    PUT(d.cp, sizeof *d.cp * (count + 1));
    PUT(d.ri, sizeof *d.ri * cnz);
    PUT(d.cv, sizeof *d.cv * cnz);
    PUT(d.ria, sizeof *d.ria * (N + 1));
    PUT(d.rja, sizeof *d.rja * gnz);
    PUT(d.ra, sizeof *d.ra * gnz);
#undef PUT
    return n;
}

static void register_all(void)
{
    int rc[6] = {
        X(XMPI_Register_vector(&d.x, N, MPI_DOUBLE, XMPI_DISTRIBUTED)),
        X(XMPI_Register_dense(&d.A, N, MPI_DOUBLE, XMPI_DISTRIBUTED)),
        X(XMPI_Register_vector(&d.r, N, MPI_INT, XMPI_REPLICATED)),
        X(XMPI_Register_sparse(&d.ia, &d.ja, &d.a, N, MPI_DOUBLE, XMPI_DISTRIBUTED)),
        X(XMPI_Register_sparse(&d.ria, &d.rja, &d.ra, N, MPI_DOUBLE, XMPI_REPLICATED)),
        X(XMPI_Register_sparse(&d.cp, &d.ri, &d.cv, N, MPI_DOUBLE, XMPI_DISTRIBUTED)),
    };
    int ok = 1;
    for (int i = 0; i < 6; i++) ok &= rc[i] == XMPI_SUCCESS;
    PROMISE("the call did what it says");
    check_all(W, ok, "registering a vector, a dense matrix, a replicated vector, a CSR matrix, a "
                     "replicated CSR matrix and a CSC matrix");
}

/* The blocks of a partition: counts[] in rank order, laid out in the order order[]. */
static void layout(const int *counts, const int *order, int *displs)
{
    int at = 0;
    for (int k = 0; k < nprocs; k++) displs[order[k]] = at, at += counts[order[k]];
}

/* A refused move: the code everywhere, one line on rank 0, and nothing moved or changed. */
static void refused_move(const char *what, int sc, int sd, int rc_, int rd, int cur_c, int cur_d,
                         int want)
{
    static unsigned char before[1 << 16], after[1 << 16];
    size_t nb = image(before, cur_c);
    capture_begin();
    int rc = X(XMPI_Redistribute_data(sc, sd, rc_, rd));
    int lines = capture_end();
    size_t na = image(after, cur_c);
    check_code(W, rc, want, what);
    PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and no "
            "data has moved and no pointer has changed: XMPI_ERR_STATE when nothing is registered;");
    check_all(W, na == nb && memcmp(before, after, nb) == 0,
              "%s: no data has moved and no pointer has changed", what);
    check_one_line(W, lines, what);
    int c, dd;
    X(XMPI_Get_wsize(rank, nprocs, N, &c, &dd));
    check_all(W, c == cur_c && dd == cur_d, "%s: XMPI_Get_wsize still gives the partition before the "
                                           "call", what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    char tag[16];
    snprintf(tag, sizeof tag, "np%d", nprocs);
    contract_start("contract_redistribute", tag);
    csc();
    int rc;
    if (argc > 1 && !strcmp(argv[1], "nomem")) {
        snprintf(tag, sizeof tag, "np%d nomem", nprocs);
        /* a dense 2048 x 2048 matrix of doubles (32 MiB) moves to rank 0 alone, whose address
         * space may grow by 8 MiB only */
        int n = 2048, c, dd;
        X(XMPI_Get_wsize(rank, nprocs, n, &c, &dd));
        double *B = malloc(sizeof *B * (size_t)c * n + 1);
        for (size_t i = 0; i < (size_t)c * n; i++) B[i] = (double)(dd * (size_t)n + i);
        X(XMPI_Register_dense(&B, n, MPI_DOUBLE, XMPI_DISTRIBUTED));
        double *B0 = B;
        long pages = 0;
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%ld", &pages) != 1) pages = 0;
        if (f) fclose(f);
        struct rlimit old, lim;
        getrlimit(RLIMIT_AS, &old);
        lim = old;
        lim.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (8u << 20);
        PMPI_Barrier(W);
        if (rank == 0 && pages > 0) setrlimit(RLIMIT_AS, &lim);
        capture_begin();
        rc = X(XMPI_Redistribute_data(c, dd, rank == 0 ? n : 0, 0));
        int lines = capture_end();
        if (rank == 0) setrlimit(RLIMIT_AS, &old);
        PROMISE("XMPI_ERR_NOMEM when a new buffer cannot be had.");
        check_code(W, rc, XMPI_ERR_NOMEM, "XMPI_Redistribute_data when rank 0 cannot have its new buffer");
        PROMISE("the library could not allocate memory");
        check_all(W, rc == XMPI_ERR_NOMEM, "XMPI_ERR_NOMEM is the code of an allocation that failed");
        int same = B == B0;
        for (size_t i = 0; same && i < (size_t)c * n; i++) same = B[i] == (double)(dd * (size_t)n + i);
        PROMISE("On an error every process gets the same code, rank 0 prints one line saying why, and no "
                "data has moved and no pointer has changed: XMPI_ERR_STATE when nothing is registered;");
        check_all(W, same, "no data has moved and no pointer has changed");
        check_one_line(W, lines, "XMPI_Redistribute_data without memory");
        X(XMPI_Unregister(&B));
        free(B);
        MPI_Finalize();
        if (rank == 0) contract_end();
        return 0;
    }

    /* ---- Even blocks ---- */
    PROMISE("XMPI_Get_wsize: process `rank`'s block of the current partition when nprocs and size "
            "describe it (the partition the last XMPI_Redistribute_data, XMPI_Get_data or XMPI_Remove "
            "set up), else its block of even blocks (the first size % nprocs ranks get one row more).");
    int even_ok = 1, order_ok = 1;
    for (int p = 1; p <= 7; p++)
        for (int size = 0; size <= 23; size++) {
            int at = 0;
            for (int r = 0; r < p; r++) {
                int c = -9, dd = -9;
                if (X(XMPI_Get_wsize(r, p, size, &c, &dd)) != XMPI_SUCCESS) even_ok = 0;
                if (c != size / p + (r < size % p)) even_ok = 0;
                if (dd != at) order_ok = 0;
                at += c;
            }
        }
    check_all(W, even_ok, "before any move, every (rank, nprocs <= 7, size <= 23): count is size / "
                          "nprocs, plus one for the first size %% nprocs ranks");
    PROMISE("Rows [0, size) are split into one contiguous block per process: `count` rows starting at "
            "row `displ`.");
    check_all(W, order_ok, "even blocks follow each other in rank order from row 0");

    /* ---- Misuse of XMPI_Get_wsize ---- */
    PROMISE("XMPI_ERR_ARG for NULL outputs, nprocs < 1, rank outside [0, nprocs) or size < 0.");
    struct { int r, p, s, nullc, nulld; const char *what; } bad[] = {
        {0, 2, 10, 1, 0, "NULL count"}, {0, 2, 10, 0, 1, "NULL displ"}, {0, 0, 10, 0, 0, "nprocs 0"},
        {0, -1, 10, 0, 0, "nprocs -1"}, {-1, 2, 10, 0, 0, "rank -1"}, {2, 2, 10, 0, 0, "rank == nprocs"},
        {0, 2, -1, 0, 0, "size -1"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        int c = -9, dd = -9;
        rc = X(XMPI_Get_wsize(bad[i].r, bad[i].p, bad[i].s, bad[i].nullc ? NULL : &c,
                              bad[i].nulld ? NULL : &dd));
        check_all(W, rc == XMPI_ERR_ARG, "XMPI_Get_wsize with %s returns XMPI_ERR_ARG (got %d)",
                  bad[i].what, rc);
        PROMISE("on an error nothing the call would have changed has changed.");
        check_all(W, c == -9 && dd == -9, "XMPI_Get_wsize with %s leaves count and displ alone",
                  bad[i].what);
        PROMISE("XMPI_ERR_ARG for NULL outputs, nprocs < 1, rank outside [0, nprocs) or size < 0.");
    }

    /* ---- Registration in an uneven partition, recorded by a move onto itself ---- */
    int cnt[8], ord[8], dsp[8];
    for (int r = 0; r < nprocs; r++) cnt[r] = 0, ord[r] = r;
    for (int i = 0; i < N; i++) cnt[(i * i + 3) % nprocs]++;   /* uneven, rank order */
    layout(cnt, ord, dsp);
    int count = cnt[rank], displ = dsp[rank];
    fill(count, displ);
    register_all();
    /* the first registration of this run: the library takes the blocks to be the even ones */
    PROMISE("The processes mpirun started hold even blocks (XMPI_Get_wsize's) at the first "
            "registration, whatever their buffers hold: a program whose rows start in other blocks "
            "registers them as they are and calls XMPI_Redistribute_data with its block as the old one "
            "(and as the new one to keep it) before anything else uses the partition.");
    {
        int pc[8], pd[8], even = 1;
        X(XMPI_Get_partition(NULL, pc, pd));
        for (int r = 0, at = 0; r < nprocs; at += pc[r], r++)
            even &= pc[r] == N / nprocs + (r < N % nprocs) && pd[r] == at;
        int ec = -1, ed = -1;
        X(XMPI_Get_wsize(rank, nprocs, N, &ec, &ed));
        check_all(W, even && ec == N / nprocs + (rank < N % nprocs),
                  "after the first registration of uneven blocks, XMPI_Get_partition and XMPI_Get_wsize "
                  "give even blocks");
    }
    DOC_PROMISE("docs/api.md", "call `XMPI_Redistribute_data(count, displ, count, displ)` once, before "
                               "anything else uses the partition (an exchange, a checkpoint, an "
                               "`XMPI_Eval_*` call): it moves nothing and records the blocks.");
    rc = X(XMPI_Redistribute_data(count, displ, count, displ));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Redistribute_data of a partition onto itself");
    check_all(W, verify(count, displ), "the move onto itself left every structure as it was");
    int c, dd;
    X(XMPI_Get_wsize(rank, nprocs, N, &c, &dd));
    PROMISE("XMPI_Get_wsize: process `rank`'s block of the current partition when nprocs and size "
            "describe it (the partition the last XMPI_Redistribute_data, XMPI_Get_data or XMPI_Remove "
            "set up), else its block of even blocks (the first size % nprocs ranks get one row more).");
    check_all(W, c == count && dd == displ, "XMPI_Get_wsize gives the recorded block (%d, %d; got %d, %d)",
              count, displ, c, dd);
    PROMISE("The processes mpirun started hold even blocks (XMPI_Get_wsize's) at the first "
            "registration, whatever their buffers hold: a program whose rows start in other blocks "
            "registers them as they are and calls XMPI_Redistribute_data with its block as the old one "
            "(and as the new one to keep it) before anything else uses the partition.");
    {
        int pc[8], pd[8], same = 1;
        X(XMPI_Get_partition(NULL, pc, pd));
        for (int r = 0; r < nprocs; r++) same &= pc[r] == cnt[r] && pd[r] == dsp[r];
        check_all(W, same && verify(count, displ), "after XMPI_Redistribute_data onto the program's own "
                                                   "blocks XMPI_Get_partition gives them, the data in place");
    }

    /* ---- To even blocks, then to blocks out of rank order with an empty one ---- */
    PROMISE("Moves every registered structure from the old partition (this process held rows [sdispl, "
            "sdispl + scount)) to the new one (it will hold [rdispl, rdispl + rcount)).");
    int ec, ed;
    X(XMPI_Get_wsize(rank, nprocs, N + 1, &ec, &ed));
    check_all(W, ec == (N + 1) / nprocs + (rank < (N + 1) % nprocs),
              "for another size XMPI_Get_wsize gives even blocks");
    if (nprocs < 7) {
        X(XMPI_Get_wsize(rank, nprocs + 1, N, &ec, &ed));
        check_all(W, ec == N / (nprocs + 1) + (rank < N % (nprocs + 1)),
                  "for another nprocs XMPI_Get_wsize gives even blocks");
    }
    ec = N / nprocs + (rank < N % nprocs);
    ed = rank * (N / nprocs) + (rank < N % nprocs ? rank : N % nprocs);
    touch_replicated(count, displ);
    rc = X(XMPI_Redistribute_data(count, displ, ec, ed));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Redistribute_data to even blocks");
    count = ec, displ = ed;
    PROMISE("Programs register their distributed arrays once; XMPI_Redistribute_data then moves every "
            "registered structure from the old to the new partition in one collective call.");
    check_all(W, verify(count, displ), "after the move every structure holds its new rows bit for bit");
    PROMISE("All structures have `size` rows. vector: `size` elements, one per row; dense: a size x size "
            "row-major matrix distributed by rows; sparse: CSR with rows distributed: *address_ia has "
            "count + 1 int entries starting at 0, *address_ja the int (global) column indices and "
            "*address_a the values; CSC is registered the same way (column pointers, row indices, "
            "values) and is distributed by columns.");
    check_all(W, verify(count, displ), "the vector, the dense matrix's rows, the CSR matrix's rows and "
                                       "the CSC matrix's columns are this process's new block's");
    PROMISE("XMPI_DISTRIBUTED: each process holds only the rows of its block.");
    int total = 0;
    PMPI_Allreduce(&count, &total, 1, MPI_INT, MPI_SUM, W);
    check_all(W, total == N && verify(count, displ), "the distributed structures' local rows are the "
                                                     "block's, from its first row, %d in all", total);
    PROMISE("A replicated sparse matrix holds all size + 1 row pointers.");
    check_all(W, d.ria[N] == nnz_before(N), "the replicated CSR matrix has all %d + 1 row pointers", N);
    PROMISE("XMPI_REPLICATED: each process holds all rows; after a redistribution every copy holds the "
            "values of the rows' owners (the processes whose old block has them).");
    check_all(W, verify(count, displ), "every copy of the replicated vector and CSR matrix holds the "
                                       "owners' values, none of the spoiled ones");

    PROMISE("The blocks need not be in rank order, and may be empty.");
    /* rank 0 empty (with 2 or more processes), the others' blocks laid out last rank first */
    for (int r = 0; r < nprocs; r++) cnt[r] = 0, ord[r] = nprocs - 1 - r;
    for (int i = 0; i < N; i++) cnt[nprocs == 1 ? 0 : 1 + i % (nprocs - 1)]++;
    layout(cnt, ord, dsp);
    touch_replicated(count, displ);
    rc = X(XMPI_Redistribute_data(count, displ, cnt[rank], dsp[rank]));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Redistribute_data to blocks in reverse rank order, rank 0's "
                                    "empty");
    count = cnt[rank], displ = dsp[rank];
    check_all(W, verify(count, displ), "after the move every structure holds its new rows bit for bit");
    PROMISE("XMPI_Get_wsize: process `rank`'s block of the current partition when nprocs and size "
            "describe it (the partition the last XMPI_Redistribute_data, XMPI_Get_data or XMPI_Remove "
            "set up), else its block of even blocks (the first size % nprocs ranks get one row more).");
    X(XMPI_Get_wsize(rank, nprocs, N, &c, &dd));
    check_all(W, c == count && dd == displ, "XMPI_Get_wsize gives the block of the last move");
    int all_ok = 1;
    for (int r = 0; r < nprocs; r++) {
        X(XMPI_Get_wsize(r, nprocs, N, &c, &dd));
        all_ok &= c == cnt[r] && dd == dsp[r];
    }
    check_all(W, all_ok, "XMPI_Get_wsize gives every rank's block of the last move, on every process");

    /* ---- Refusals: nothing moves ---- */
    PROMISE("XMPI_ERR_ARG when the old or the new blocks do not tile [0, size), a process holding "
            "rows has a NULL buffer or bad row pointers, or the processes registered different "
            "structures;");
    /* new blocks: the last row missing (a gap) */
    ec = N / nprocs + (rank < N % nprocs);
    ed = rank * (N / nprocs) + (rank < N % nprocs ? rank : N % nprocs);
    int last = ed + ec == N;
    refused_move("new blocks that leave the last row out", count, displ, ec - last, ed, count, displ,
                 XMPI_ERR_ARG);
    refused_move("new blocks that overlap (rank 0 takes one row more)", count, displ,
                 ec + (rank == 0), ed, count, displ, XMPI_ERR_ARG);
    refused_move("a new block past the last row", count, displ, ec, ed + last, count, displ,
                 XMPI_ERR_ARG);
    refused_move("a negative new count", count, displ, rank == 0 ? -1 : ec, ed, count, displ,
                 XMPI_ERR_ARG);
    refused_move("old blocks that are not the ones held (one row short)", count - (count > 0), displ,
                 ec, ed, count, displ, XMPI_ERR_ARG);
    /* the process with the most rows loses its x buffer */
    int most = count, who;
    PMPI_Allreduce(&most, &who, 1, MPI_INT, MPI_MAX, W);
    int me_most = count == who && count > 0;
    int first;
    int cand = me_most ? rank : nprocs;
    PMPI_Allreduce(&cand, &first, 1, MPI_INT, MPI_MIN, W);
    double *keep = d.x;
    if (rank == first) d.x = NULL;
    refused_move("a process holding rows with a NULL vector buffer", count, displ, ec, ed, count,
                 displ, XMPI_ERR_ARG);
    d.x = keep;
    int ia0 = d.ia[0];
    if (rank == first) d.ia[0] = 1;
    refused_move("CSR row pointers that do not start at 0", count, displ, ec, ed, count, displ,
                 XMPI_ERR_ARG);
    d.ia[0] = ia0;
    int ialast = d.ia[count];
    if (rank == first) d.ia[count] = d.ia[count - 1] - 1;
    refused_move("CSR row pointers that decrease", count, displ, ec, ed, count, displ, XMPI_ERR_ARG);
    d.ia[count] = ialast;

    PROMISE("Every process registers the same structures in the same order with the same sizes and "
            "element sizes.");
    if (nprocs > 1) {
        double *extra = NULL;
        float *extraf = NULL;
        if (rank == 0) {
            extra = malloc(sizeof *extra * N);
            for (int i = 0; i < N; i++) extra[i] = i;
            X(XMPI_Register_vector(&extra, N, MPI_DOUBLE, XMPI_REPLICATED));
        }
        refused_move("rank 0 registered one structure more", count, displ, ec, ed, count, displ,
                     XMPI_ERR_ARG);
        /* rank 0 alone unregisters: a local call, so nothing waits for the others */
        int unr = rank == 0 ? X(XMPI_Unregister(&extra)) : XMPI_SUCCESS;
        PROMISE("Forgets the structure registered at `address` (the first address for a sparse one); its "
                "buffers stay the program's. Local.");
        check_all(W, unr == XMPI_SUCCESS, "XMPI_Unregister on rank 0 alone returns at once");
        if (rank == 0) {
            free(extra);
            extra = NULL;
        }
        /* element sizes differ: double on rank 0, float elsewhere */
        if (rank == 0) {
            extra = malloc(sizeof *extra * N);
            for (int i = 0; i < N; i++) extra[i] = i;
            X(XMPI_Register_vector(&extra, N, MPI_DOUBLE, XMPI_REPLICATED));
        } else {
            extraf = malloc(sizeof *extraf * N);
            for (int i = 0; i < N; i++) extraf[i] = (float)i;
            X(XMPI_Register_vector(&extraf, N, MPI_FLOAT, XMPI_REPLICATED));
        }
        refused_move("a structure of doubles on rank 0 and of floats elsewhere", count, displ, ec, ed,
                     count, displ, XMPI_ERR_ARG);
        if (rank == 0) X(XMPI_Unregister(&extra));
        else X(XMPI_Unregister(&extraf));
        free(extra);
        free(extraf);
    }

    /* after the refusals the structures still move */
    PROMISE("Moves every registered structure from the old partition (this process held rows [sdispl, "
            "sdispl + scount)) to the new one (it will hold [rdispl, rdispl + rcount)).");
    touch_replicated(count, displ);
    rc = X(XMPI_Redistribute_data(count, displ, ec, ed));
    check_code(W, rc, XMPI_SUCCESS, "after the refusals, XMPI_Redistribute_data back to even blocks");
    count = ec, displ = ed;
    check_all(W, verify(count, displ), "every structure holds its rows bit for bit");

    /* ---- Nothing registered ---- */
    struct data keepd = d;
    X(XMPI_Unregister(&d.x));
    X(XMPI_Unregister(&d.A));
    X(XMPI_Unregister(&d.r));
    X(XMPI_Unregister(&d.ia));
    X(XMPI_Unregister(&d.ria));
    X(XMPI_Unregister(&d.cp));
    PROMISE("XMPI_ERR_STATE when nothing is registered;");
    refused_move("nothing registered", count, displ, count, displ, count, displ, XMPI_ERR_STATE);
    d = keepd;

    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    free(d.x), free(d.A), free(d.r), free(d.ia), free(d.ja), free(d.a), free(d.ria), free(d.rja),
        free(d.ra), free(d.cp), free(d.ri), free(d.cv);
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
