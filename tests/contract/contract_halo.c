/* Contract: halos, the partition and the program's rebuild. A row-block array with ghost rows
 * (XMPI_Register_ghost), a distributed CSR matrix's local view (XMPI_Get_halo) and a vector laid
 * out like its columns (XMPI_Register_halo_vector), filled by XMPI_Exchange; XMPI_Get_partition's
 * blocks and epoch; XMPI_Set_rebuild's callback. Every value is a function of its global row
 * (value()), every matrix column a function of its row (columns()), and the local view is
 * compared with a serial mapping computed here from the blocks alone.
 * usage: contract_halo               (on 1-3 processes)
 *        contract_halo mode=spawn    (on 1-2 processes, --xmpi-oversubscribe: XMPI_Spawn of one
 *                                     process, then XMPI_Remove of it) */
#include "contract.h"

enum { N = 23, L = 3, G = 2, NCOL = 7, MAXP = 8 };

static MPI_Comm W;
static int rank, nprocs;
static MPI_Datatype line;   /* one row of the ghost array: L doubles */

static double value(int row, int k) { return 1000.0 * row + k + 0.25; }

/* The columns of global row i (some repeat): a band, a far coupling and the ends. */
static int columns(int i, int *col)
{
    int n = 0;
    for (int c = i - 2; c <= i + 2; c++)
        if (c >= 0 && c < N) col[n++] = c;
    col[n++] = (i * 7 + 5) % N;
    col[n++] = i % 2 ? 0 : N - 1;
    return n;
}

/* Even blocks of N rows over p processes, computed here. */
static void even(int p, int *c, int *d)
{
    for (int r = 0, at = 0; r < p; at += c[r], r++) c[r] = N / p + (r < N % p), d[r] = at;
}

/* ---- the ghost array u: rows [displ - G, displ + count + G) of L values ---- */
static double *u;
static int count, displ;

static double *new_u(int c, int d, double outside)
{
    double *b = malloc(sizeof *b * (size_t)(c + 2 * G) * L + 1);
    for (int i = -G; i < c + G; i++)
        for (int k = 0; k < L; k++) b[(size_t)(G + i) * L + k] = i >= 0 && i < c ? value(d + i, k) : outside;
    return b;
}

/* The block of u holds its rows; its ghost rows inside [0, N) the neighbours', those outside
 * `outside` (ghost: check them too). */
static int u_right(int ghost, double outside)
{
    if (count > 0 && !u) return 0;
    for (int i = ghost ? -G : 0; i < count + (ghost ? G : 0); i++) {
        int row = displ + i;
        for (int k = 0; k < L; k++) {
            double want = row < 0 || row >= N ? outside : value(row, k);
            if (dbits(u[(size_t)(G + i) * L + k]) != dbits(want)) return 0;
        }
    }
    return 1;
}

/* Every ghost row of u is zero. */
static int u_ghosts_zero(void)
{
    if (count == 0 && !u) return 1;
    for (int i = 0; i < G * L; i++)
        if (u[i] != 0 || u[(size_t)(G + count) * L + i] != 0) return 0;
    return 1;
}

/* ---- the matrix (ia, ja, a) of this block, and the halo vector p ---- */
static int *ia, *ja;
static double *a, *p;

static void build_matrix(int c, int d)
{
    ia = malloc(sizeof *ia * (size_t)(c + 1));
    ja = malloc(sizeof *ja * (size_t)(c * NCOL + 1));
    a = malloc(sizeof *a * (size_t)(c * NCOL + 1));
    ia[0] = 0;
    for (int i = 0; i < c; i++) {
        int n = columns(d + i, ja + ia[i]);
        for (int k = 0; k < n; k++) a[ia[i] + k] = 1.0 / (1 + k);
        ia[i + 1] = ia[i] + n;
    }
}

/* The matrix this process holds is rows [displ, displ + count) of columns(). */
static int matrix_right(void)
{
    int col[NCOL];
    if (count > 0 && (!ia || !ja)) return 0;
    if (count >= 0 && ia && ia[0] != 0) return 0;
    for (int i = 0; i < count; i++) {
        int n = columns(displ + i, col);
        if (ia[i + 1] - ia[i] != n) return 0;
        for (int k = 0; k < n; k++)
            if (ja[ia[i] + k] != col[k]) return 0;
    }
    return 1;
}

/* The serial mapping: the halo columns (ascending, distinct) of this block's rows, and each
 * nonzero's local index. The view (lja, nowned, nhalo) must be this. */
static int view_right(const int *lja, int nowned, int nhalo, int *halo_out)
{
    int col[NCOL], halo[N], nh = 0;
    char in[N] = {0};
    for (int i = 0; i < count; i++) {
        int n = columns(displ + i, col);
        for (int k = 0; k < n; k++)
            if ((col[k] < displ || col[k] >= displ + count) && !in[col[k]]) in[col[k]] = 1;
    }
    for (int c = 0; c < N; c++)
        if (in[c]) halo[nh++] = c;
    if (nowned != count || nhalo != nh || (count > 0 && !lja)) return 0;
    for (int i = 0, at = 0; i < count; i++) {
        int n = columns(displ + i, col);
        for (int k = 0; k < n; k++, at++) {
            int want = col[k] - displ;
            if (col[k] < displ || col[k] >= displ + count)
                for (int h = 0; h < nh; h++)
                    if (halo[h] == col[k]) want = count + h;
            if (lja[at] != want) return 0;
        }
    }
    if (halo_out) memcpy(halo_out, halo, sizeof *halo * (size_t)nh);
    return 1;
}

/* After XMPI_Exchange(&p): p holds the block's values and, at every local column index, the
 * value of that nonzero's global column. */
static int p_right(const int *lja, int nowned, int nhalo)
{
    int halo[N];
    if (!view_right(lja, nowned, nhalo, halo) || (nowned + nhalo > 0 && !p)) return 0;
    for (int l = 0; l < nowned; l++)
        if (dbits(p[l]) != dbits(value(displ + l, 0))) return 0;
    for (int h = 0; h < nhalo; h++)
        if (dbits(p[nowned + h]) != dbits(value(halo[h], 0))) return 0;
    return 1;
}

/* ---- the program's rebuild: what it saw, run by run ---- */
struct seen {
    int size, tiles, wsize_same, own, epoch, u_in_place;
    unsigned empty;   /* bit r: rank r's block is empty */
};
static struct seen runs[8];
static int nruns;

static void rebuild(void *arg)
{
    (void)arg;
    struct seen s = {0};
    int me = -1, c[MAXP], d[MAXP];
    MPI_Comm_size(XMPI_COMM_WORLD, &s.size);
    MPI_Comm_rank(XMPI_COMM_WORLD, &me);
    if (s.size <= MAXP && XMPI_Get_partition(&s.epoch, c, d) == XMPI_SUCCESS) {
        char hit[N] = {0};
        int rows = 0;
        s.tiles = s.wsize_same = 1;
        for (int r = 0; r < s.size; r++) {
            for (int i = d[r]; i < d[r] + c[r]; i++, rows++)
                if (i < 0 || i >= N || hit[i]++) s.tiles = 0;
            int wc = -1, wd = -1;
            XMPI_Get_wsize(r, s.size, N, &wc, &wd);
            if (wc != c[r] || (c[r] > 0 && wd != d[r])) s.wsize_same = 0;
            if (c[r] == 0) s.empty |= 1u << r;
        }
        s.tiles &= rows == N;
        s.own = c[me];
        /* the new block is in place in the program's array when the callback runs */
        int sc = count, sd = displ;
        count = c[me], displ = d[me];
        s.u_in_place = u_right(0, 0);
        count = sc, displ = sd;
    }
    if (nruns < 8) runs[nruns] = s;
    nruns++;
}

/* One run of the rebuild since `from`: size, tiling, XMPI_Get_wsize and the array in place. */
static int run_right(int i, int size, int own)
{
    return i < nruns && i < 8 && runs[i].size == size && runs[i].tiles && runs[i].wsize_same &&
           runs[i].u_in_place && (own < 0 || runs[i].own == own);
}

static int epoch_now(void)
{
    int e = -1;
    X(XMPI_Get_partition(&e, NULL, NULL));
    return e;
}

/* ---- before anything is registered ---- */
static void refusals_first(void)
{
    int rc, e = -5, pc[MAXP], pd[MAXP];
    for (int r = 0; r < MAXP; r++) pc[r] = pd[r] = -9;
    PROMISE("XMPI_ERR_STATE for counts or displs before anything is registered (the epoch alone is "
            "always available).");
    rc = X(XMPI_Get_partition(&e, NULL, NULL));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_partition(&epoch, NULL, NULL) before anything is registered");
    rc = X(XMPI_Get_partition(NULL, pc, pd));
    int kept = 1;
    for (int r = 0; r < MAXP; r++) kept &= pc[r] == -9 && pd[r] == -9;
    check_code(W, rc, XMPI_ERR_STATE, "XMPI_Get_partition(NULL, counts, displs) before anything is "
                                      "registered");
    check_all(W, kept, "the refused XMPI_Get_partition left counts and displs alone");

    PROMISE("XMPI_ERR_ARG for ghost < 0 or ghost > size, and as XMPI_Register_vector.");
    double *b = new_u(1, 0, -1), *const b0 = b, copy[(1 + 2 * G) * L];
    memcpy(copy, b, sizeof copy);
    struct { int size, ghost; MPI_Datatype t; int null; const char *what; } bad[] = {
        {N, -1, line, 0, "ghost -1"}, {N, N + 1, line, 0, "ghost size + 1"},
        {-1, G, line, 0, "size -1"}, {N, G, MPI_DATATYPE_NULL, 0, "MPI_DATATYPE_NULL"},
        {N, G, line, 1, "a NULL address"},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++) {
        rc = X(XMPI_Register_ghost(bad[i].null ? NULL : &b, bad[i].size, bad[i].t, bad[i].ghost));
        char what[96];
        snprintf(what, sizeof what, "XMPI_Register_ghost with %s", bad[i].what);
        check_code(W, rc, XMPI_ERR_ARG, what);
        PROMISE("on an error nothing the call would have changed has changed.");
        int ex = X(XMPI_Exchange(&b)), un = X(XMPI_Unregister(&b));
        check_all(W, b == b0 && !memcmp(copy, b, sizeof copy) && ex == XMPI_ERR_ARG && un == XMPI_ERR_ARG,
                  "%s: the pointer and buffer are unchanged and nothing is registered there", what);
        PROMISE("XMPI_ERR_ARG for ghost < 0 or ghost > size, and as XMPI_Register_vector.");
    }
    free(b);
}

/* ---- the program's own blocks (uneven, in reverse rank order), recorded by a move onto
 * themselves; the ghost array registered and exchanged ---- */
static void start_uneven(void)
{
    int c[MAXP], d[MAXP], ec[MAXP], ed[MAXP], at = 0;
    for (int r = 0, left = N; r < nprocs; r++) {
        c[r] = r == nprocs - 1 ? left : (N * (r + 1)) / (nprocs * (nprocs + 1) / 2);
        left -= c[r];
    }
    for (int r = nprocs - 1; r >= 0; r--) d[r] = at, at += c[r];
    even(nprocs, ec, ed);
    count = c[rank], displ = d[rank];
    u = new_u(count, displ, -1);
    double *const u0 = u;
    int e0 = epoch_now();
    X(XMPI_Set_rebuild(rebuild, NULL));
    PROMISE("XMPI_Register_ghost: a distributed array of `size` rows of `type` (a row of a grid: any "
            "contiguous datatype, e.g. MPI_Type_contiguous of a line's points) with `ghost` rows above "
            "and below its block.");
    int rc = X(XMPI_Register_ghost(&u, N, line, G));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_ghost of rows of MPI_Type_contiguous(3, MPI_DOUBLE), "
                                    "2 ghost rows");
    int untouched = u == u0 && u_right(0, 0);
    for (int i = 0; untouched && i < G * L; i++)
        untouched = u[i] == -1 && u[(size_t)(G + count) * L + i] == -1;
    check_all(W, untouched, "registering left the pointer and the buffer alone");

    PROMISE("The processes mpirun started hold even blocks (XMPI_Get_wsize's) at the first "
            "registration, whatever their buffers hold: a program whose rows start in other blocks "
            "registers them as they are and calls XMPI_Redistribute_data with its block as the old one "
            "(and as the new one to keep it) before anything else uses the partition.");
    int pc[MAXP], pd[MAXP], same = 1;
    X(XMPI_Get_partition(NULL, pc, pd));
    for (int r = 0; r < nprocs; r++) same &= pc[r] == ec[r] && pd[r] == ed[r];
    check_all(W, same, "after the first registration XMPI_Get_partition gives even blocks, not the "
                       "program's");
    rc = X(XMPI_Redistribute_data(count, displ, count, displ));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Redistribute_data(count, displ, count, displ) of the "
                                    "program's own blocks");
    X(XMPI_Get_partition(NULL, pc, pd));
    same = 1;
    for (int r = 0; r < nprocs; r++) same &= pc[r] == c[r] && pd[r] == d[r];
    check_all(W, same && u_right(0, 0), "then XMPI_Get_partition gives the program's blocks (reverse "
                                        "rank order), the rows in place");
    PROMISE("The buffer must come from malloc.");
    check_all(W, u != u0, "the move laid the block out in a new buffer (the program's, from malloc, "
                          "was the library's to free)");
    PROMISE("XMPI_Get_partition: every process's block of the current partition (counts and displs: "
            "XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes "
            "with every move, spawn, removal and restart: a program compares it with the one it saw to "
            "learn cheaply that its blocks may have changed.");
    int e1 = epoch_now();
    check_all(W, e1 != e0 && same, "the move changed the epoch (%d -> %d)", e0, e1);

    /* the ghost rows outside [0, N) are the program's: it sets them, the exchange leaves them */
    for (int i = 0; i < G; i++)
        for (int k = 0; k < L; k++) {
            if (displ - G + i < 0) u[(size_t)i * L + k] = -1;
            if (displ + count + i >= N) u[(size_t)(G + count + i) * L + k] = -1;
        }
    PROMISE("XMPI_Exchange: fills the ghost rows of an array of XMPI_Register_ghost, or the halo part "
            "of a vector of XMPI_Register_halo_vector, with the owners' values.");
    rc = X(XMPI_Exchange(&u));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Exchange(&u)");
    PROMISE("The buffer behind *address holds ghost + count + ghost rows: the rows [displ - ghost, "
            "displ) of the neighbours, the block [displ, displ + count), then [displ + count, displ + "
            "count + ghost); ghost rows outside [0, size) stay as the program leaves them.");
    check_all(W, count == 0 || u_right(1, -1), "the ghost rows hold the neighbours' rows (blocks in "
                                               "reverse rank order), those outside [0, N) the program's -1");
}

/* ---- the matrix, its view and the halo vector ---- */
static int sentinel;   /* what a refused call must leave in its pointer output */

static void refused_view(void *addr, const char *what)
{
    int *lja = &sentinel, nowned = -3, nhalo = -3, *const l0 = lja;
    int rc = X(XMPI_Get_halo(addr, &lja, &nowned, &nhalo));
    check_code(W, rc, XMPI_ERR_ARG, what);
    PROMISE("on an error nothing the call would have changed has changed.");
    check_all(W, lja == l0 && nowned == -3 && nhalo == -3, "%s: the outputs are untouched", what);
    PROMISE("XMPI_ERR_ARG for an address that is no distributed sparse matrix, or a column index outside "
            "[0, size) on some process (rank 0 says which);");
}

static double *plain;   /* a distributed vector without room */

static void sparse_view(void)
{
    build_matrix(count, displ);
    X(XMPI_Register_sparse(&ia, &ja, &a, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    plain = malloc(sizeof *plain * (size_t)(count + 1));
    for (int l = 0; l < count; l++) plain[l] = value(displ + l, 1);
    X(XMPI_Register_vector(&plain, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    int *ria = malloc(sizeof *ria * (N + 1)), *rja = malloc(sizeof *rja * N);
    double *ra = malloc(sizeof *ra * N);
    for (int i = 0; i <= N; i++) ria[i] = i;
    for (int i = 0; i < N; i++) rja[i] = i, ra[i] = 1;
    X(XMPI_Register_sparse(&ria, &rja, &ra, N, MPI_DOUBLE, XMPI_REPLICATED));

    PROMISE("Call XMPI_Get_halo first on a process that holds rows (else XMPI_ERR_STATE);");
    p = malloc(sizeof *p * (size_t)(count + 1));
    double *const p0 = p;
    int rc = count > 0 ? X(XMPI_Register_halo_vector(&p, &ia, MPI_DOUBLE)) : XMPI_ERR_STATE;
    check_all(W, rc == XMPI_ERR_STATE && p == p0, "XMPI_Register_halo_vector before XMPI_Get_halo, on "
                                                  "every process with rows, returns XMPI_ERR_STATE");

    PROMISE("XMPI_ERR_ARG for an address that is no distributed sparse matrix, or a column index outside "
            "[0, size) on some process (rank 0 says which);");
    refused_view(&plain, "XMPI_Get_halo of a distributed vector");
    refused_view(&ria, "XMPI_Get_halo of a replicated sparse matrix");
    refused_view(&ja, "XMPI_Get_halo of the matrix's second address (&ja)");
    refused_view(&rc, "XMPI_Get_halo of an address never registered");

    PROMISE("XMPI_Get_halo: the local view of the registered distributed sparse matrix `address_ia` "
            "(CSR, global column indices): *local_ja (owned by the library, one entry per local nonzero) "
            "holds local column indices, the block's columns first (column displ + k is k), then the "
            "*nhalo halo columns, ascending and so grouped by owner, from *nowned on.");
    int *lja = NULL, nowned = -1, nhalo = -1;
    rc = X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_halo(&ia, ...)");
    check_all(W, view_right(lja, nowned, nhalo, NULL), "the view is the serial mapping of this block "
                                                       "(%d owned, %d halo columns)", nowned, nhalo);
    PROMISE("Collective over XMPI_COMM_WORLD: the first call for a matrix builds the view and its "
            "exchange plan;");
    check_all(W, rc == XMPI_SUCCESS, "every process took part in the first XMPI_Get_halo");

    PROMISE("XMPI_Register_halo_vector: a distributed vector laid out like the matrix's columns: its "
            "block, then room for the matrix's halo (*nhalo of XMPI_Get_halo) after it.");
    p = realloc(p, sizeof *p * (size_t)(nowned + nhalo + 1));
    for (int l = 0; l < nowned; l++) p[l] = value(displ + l, 0);
    for (int h = 0; h < nhalo; h++) p[nowned + h] = -7;
    rc = X(XMPI_Register_halo_vector(&p, &ia, MPI_DOUBLE));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_halo_vector(&p, &ia, MPI_DOUBLE) after XMPI_Get_halo");
    PROMISE("XMPI_Exchange: fills the ghost rows of an array of XMPI_Register_ghost, or the halo part "
            "of a vector of XMPI_Register_halo_vector, with the owners' values.");
    rc = X(XMPI_Exchange(&p));
    check_all(W, rc == XMPI_SUCCESS && p_right(lja, nowned, nhalo),
              "XMPI_Exchange(&p): every local column index finds its global column's value (rc %d)", rc);

    PROMISE("XMPI_ERR_ARG for an address registered by neither call;");
    check_code(W, X(XMPI_Exchange(&plain)), XMPI_ERR_ARG, "XMPI_Exchange of a vector without room");
    check_code(W, X(XMPI_Exchange(&ia)), XMPI_ERR_ARG, "XMPI_Exchange of the sparse matrix");
    check_code(W, X(XMPI_Exchange(&lja)), XMPI_ERR_ARG, "XMPI_Exchange of an address never registered");
    PROMISE("XMPI_ERR_ARG when nothing is registered there, or for a sparse matrix while a vector "
            "registered with XMPI_Register_halo_vector uses its halo.");
    check_code(W, X(XMPI_Unregister(&ia)), XMPI_ERR_ARG, "XMPI_Unregister(&ia) while p uses its halo");
    check_all(W, matrix_right() && p_right(lja, nowned, nhalo), "the matrix stayed, as it was");
    X(XMPI_Unregister(&ria));
    free(ria), free(rja), free(ra);
}

/* ---- a move to uneven blocks, one of them empty (3 processes) and some thinner than G ---- */
static void move_uneven(void)
{
    int c[MAXP], d[MAXP], left = N;
    for (int r = 0; r < nprocs - 1; r++) left -= c[r] = nprocs > 2 && r == 1 ? 0 : 1;
    c[nprocs - 1] = left;
    for (int r = 0, at = 0; r < nprocs; at += c[r], r++) d[r] = at;
    int e0 = epoch_now(), n0 = nruns;
    int rc = X(XMPI_Redistribute_data(count, displ, c[rank], d[rank]));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Redistribute_data to blocks 1, 0, 21 (or 1, 22)");
    count = c[rank], displ = d[rank];
    PROMISE("XMPI_Set_rebuild: fn(arg) runs on every process after every change of the partition (a "
            "move, a spawn, a removal, a restart), when the new blocks and halo views are in place, "
            "before the library call that changed them returns;");
    check_all(W, nruns == n0 + 1 && run_right(n0, nprocs, count),
              "the rebuild ran once, inside the call, with the new blocks in the array");
    PROMISE("it rebuilds what the program derives from its blocks (XMPI_Get_partition and "
            "XMPI_Get_wsize tell it the new ones; it must not call other XMPI_ functions).");
    check_all(W, n0 < 8 && runs[n0].tiles && runs[n0].wsize_same && runs[n0].own == count,
              "inside it XMPI_Get_partition gives blocks that tile the rows, XMPI_Get_wsize the same");
    PROMISE("Inside fn XMPI_COMM_WORLD is the communicator of the new partition: in a removal "
            "(XMPI_Remove's or a policy's) fn runs on every process with the old XMPI_COMM_WORLD, the "
            "leaving processes' blocks empty (their only run), then again on the processes that stay, "
            "with the smaller one.");
    check_all(W, n0 < 8 && runs[n0].size == nprocs, "inside it XMPI_COMM_WORLD has the %d processes of "
                                                    "the new partition", nprocs);
    int e1 = epoch_now();
    PROMISE("XMPI_Get_partition: every process's block of the current partition (counts and displs: "
            "XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes "
            "with every move, spawn, removal and restart: a program compares it with the one it saw to "
            "learn cheaply that its blocks may have changed.");
    check_all(W, e1 != e0 && n0 < 8 && runs[n0].epoch == e1, "the epoch changed (%d -> %d), as the "
                                                             "rebuild saw it", e0, e1);
    int pc[MAXP], got = 1;
    X(XMPI_Get_partition(NULL, pc, NULL));
    for (int r = 0; r < nprocs; r++) got &= pc[r] == c[r];
    check_all(W, got, "XMPI_Get_partition(NULL, counts, NULL) gives every block's count");

    PROMISE("After a move the library lays the new block out the same way, its ghost rows zero until "
            "the next XMPI_Exchange (a process whose block is empty has no ghost rows to fill).");
    check_all(W, u_right(0, 0) && u_ghosts_zero(), "after the move u holds the new block, its ghost "
                                                   "rows zero");
    rc = X(XMPI_Exchange(&u));
    check_all(W, rc == XMPI_SUCCESS && (count > 0 ? u_right(1, 0) : u_ghosts_zero()),
              "XMPI_Exchange fills them from every owner (blocks of 1 row under 2 ghost rows); a "
              "process without rows keeps its zero");

    PROMISE("after that the library rebuilds both after every move, spawn, removal and restart, and "
            "the call returns at once (its pointer may differ after a change of the partition).");
    int *lja = NULL, nowned = -1, nhalo = -1;
    /* rank 0 alone first: a call that communicated would wait for ever */
    rc = rank == 0 ? X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo)) : XMPI_SUCCESS;
    PMPI_Barrier(W);
    if (rank != 0) rc = X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
    check_all(W, rc == XMPI_SUCCESS && matrix_right() && view_right(lja, nowned, nhalo, NULL),
              "after the move XMPI_Get_halo (rank 0 alone first) gives the new block's view");
    rc = X(XMPI_Exchange(&p));
    check_all(W, rc == XMPI_SUCCESS && p_right(lja, nowned, nhalo), "the halo vector moved and its "
                                                                     "exchange follows the new view");
}

/* ---- a column outside [0, N): refused everywhere, nothing built ---- */
static void bad_column(void)
{
    X(XMPI_Unregister(&p));
    PROMISE("XMPI_ERR_ARG when nothing is registered there, or for a sparse matrix while a vector "
            "registered with XMPI_Register_halo_vector uses its halo.");
    check_code(W, X(XMPI_Unregister(&ia)), XMPI_SUCCESS, "XMPI_Unregister(&ia) once p is unregistered");
    free(ia), free(ja), free(a), free(p);
    p = NULL;
    /* the last process with rows gets column N in its first row */
    int last = -1, mine = count > 0 ? rank : -1;
    MPI_Allreduce(&mine, &last, 1, MPI_INT, MPI_MAX, W);
    build_matrix(count, displ);
    if (rank == last) ja[0] = N;
    X(XMPI_Register_sparse(&ia, &ja, &a, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
    int *lja = &sentinel, *const l0 = lja, nowned = -3, nhalo = -3;
    capture_begin();
    int rc = X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
    int lines = capture_end();
    PROMISE("XMPI_ERR_ARG for an address that is no distributed sparse matrix, or a column index outside "
            "[0, size) on some process (rank 0 says which);");
    check_code(W, rc, XMPI_ERR_ARG, "XMPI_Get_halo when one process has column N");
    check_one_line(W, lines, "XMPI_Get_halo when one process has column N");
    PROMISE("nothing is built then.");
    double *q = malloc(sizeof *q * (size_t)(count + 1));
    rc = count > 0 ? X(XMPI_Register_halo_vector(&q, &ia, MPI_DOUBLE)) : XMPI_ERR_STATE;
    check_all(W, lja == l0 && nowned == -3 && nhalo == -3 && rc == XMPI_ERR_STATE,
              "the outputs are untouched and a halo vector is still refused (no view)");
    free(q);
    X(XMPI_Unregister(&ia));
    free(ia), free(ja), free(a);
    ia = ja = NULL;
    a = NULL;
}

/* ---- ghost == size: every other row is a ghost row ---- */
static void ghost_everything(void)
{
    double *v = malloc(sizeof *v * (size_t)(count + 2 * N) * L + 1);
    for (int i = -N; i < count + N; i++)
        for (int k = 0; k < L; k++)
            v[(size_t)(N + i) * L + k] = i >= 0 && i < count ? value(displ + i, k) : -1;
    PROMISE("XMPI_ERR_ARG for ghost < 0 or ghost > size, and as XMPI_Register_vector.");
    int rc = X(XMPI_Register_ghost(&v, N, line, N));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Register_ghost with ghost == size");
    rc = X(XMPI_Exchange(&v));
    int ok = rc == XMPI_SUCCESS;
    for (int i = -N; ok && count > 0 && i < count + N; i++)
        for (int k = 0; k < L; k++) {
            int row = displ + i;
            ok &= dbits(v[(size_t)(N + i) * L + k]) == dbits(row < 0 || row >= N ? -1 : value(row, k));
        }
    PROMISE("The buffer behind *address holds ghost + count + ghost rows: the rows [displ - ghost, "
            "displ) of the neighbours, the block [displ, displ + count), then [displ + count, displ + "
            "count + ghost); ghost rows outside [0, size) stay as the program leaves them.");
    check_all(W, ok, "with ghost == size the exchange fills every row of [0, N) beside the block");
    X(XMPI_Unregister(&v));
    free(v);
}

static int static_run(void)
{
    refusals_first();
    start_uneven();
    sparse_view();
    move_uneven();
    bad_column();
    ghost_everything();
    PROMISE("NULL fn: none.");
    X(XMPI_Set_rebuild(NULL, NULL));
    int n0 = nruns, rc = X(XMPI_Redistribute_data(count, displ, count, displ));
    check_all(W, rc == XMPI_SUCCESS && nruns == n0, "after XMPI_Set_rebuild(NULL, NULL) a move runs no "
                                                    "rebuild");
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    X(XMPI_Unregister(&u));
    X(XMPI_Unregister(&plain));
    free(u), free(plain);
    return 0;
}

/* ---- mode=spawn: a process joins (XMPI_Spawn), then leaves (XMPI_Remove) ---- */
static void world(void)
{
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
}

/* Before the new process has its data: the partition is not known. */
static void spawn_unknown(int child, int hv)
{
    int *l2 = &sentinel, o2 = -3, h2 = -3;
    int s1 = X(XMPI_Get_halo(&ia, &l2, &o2, &h2)), s2 = X(XMPI_Exchange(&u)), s3 = X(XMPI_Exchange(&p));
    PROMISE("a spawned process registers it with a NULL pointer as any other array.");
    check_all(W, !child || hv == XMPI_SUCCESS, "the new process registered the halo vector with a NULL "
                                               "pointer (rc %d)", child ? hv : 0);
    PROMISE("XMPI_ERR_STATE while the partition is not known: on a process that joins, before its "
            "XMPI_Get_data, and on every process from XMPI_Spawn to the XMPI_Redistribute_data after it.");
    check_all(W, s1 == XMPI_ERR_STATE && l2 == &sentinel && o2 == -3 && h2 == -3,
              "XMPI_Get_halo returns XMPI_ERR_STATE, its outputs untouched (got %d)", s1);
    PROMISE("XMPI_ERR_STATE as XMPI_Get_halo.");
    check_all(W, s2 == XMPI_ERR_STATE && s3 == XMPI_ERR_STATE, "XMPI_Exchange of the ghost array and of "
                                                               "the halo vector returns XMPI_ERR_STATE "
                                                               "(got %d, %d)", s2, s3);
}

/* The new process's data, its view at once, and the exchanges. */
static void spawn_join(int child)
{
    int nc[MAXP], nd[MAXP], it = -1, n0 = nruns, e0 = epoch_now();
    even(nprocs, nc, nd);
    int rc = child ? X(XMPI_Get_data(&it)) : X(XMPI_Redistribute_data(count, displ, nc[rank], nd[rank]));
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Get_data beside XMPI_Redistribute_data to even blocks");
    count = nc[rank], displ = nd[rank];
    PROMISE("XMPI_Set_rebuild: fn(arg) runs on every process after every change of the partition (a "
            "move, a spawn, a removal, a restart), when the new blocks and halo views are in place, "
            "before the library call that changed them returns;");
    check_all(W, nruns == n0 + 1 && run_right(n0, nprocs, count), "the spawn's move ran the rebuild once "
                                                                  "on every process, the new one too, "
                                                                  "with %d processes", nprocs);
    PROMISE("XMPI_Get_partition: every process's block of the current partition (counts and displs: "
            "XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes "
            "with every move, spawn, removal and restart: a program compares it with the one it saw to "
            "learn cheaply that its blocks may have changed.");
    check_all(W, epoch_now() != e0, "the spawn changed the epoch");

    PROMISE("A process that joins later (XMPI_Spawn or a policy started it) receives the view with "
            "XMPI_Get_data when the others had built theirs, and its call returns at once too.");
    int *lja = NULL, nowned = -1, nhalo = -1;
    /* the new process alone first: a call that communicated would wait for ever */
    rc = child ? X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo)) : XMPI_SUCCESS;
    PMPI_Barrier(W);
    if (!child) rc = X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
    check_all(W, rc == XMPI_SUCCESS && matrix_right() && view_right(lja, nowned, nhalo, NULL),
              "the new process's XMPI_Get_halo (alone) and the others' give each block's view");
    int r1 = X(XMPI_Exchange(&p)), r2 = X(XMPI_Exchange(&u));
    PROMISE("after that the library rebuilds both after every move, spawn, removal and restart, and "
            "the call returns at once (its pointer may differ after a change of the partition).");
    check_all(W, r1 == XMPI_SUCCESS && r2 == XMPI_SUCCESS && p_right(lja, nowned, nhalo) && u_right(1, 0),
              "after the spawn both exchanges fill the halo and the ghost rows from their owners");
}

/* XMPI_Remove(1): the new process leaves. 1 on the process that left (it ended). */
static int spawn_leave(void)
{
    int old_size = nprocs, n0 = nruns, e0 = epoch_now();
    int rc = X(XMPI_Remove(1, NULL));
    PROMISE("Inside fn XMPI_COMM_WORLD is the communicator of the new partition: in a removal "
            "(XMPI_Remove's or a policy's) fn runs on every process with the old XMPI_COMM_WORLD, the "
            "leaving processes' blocks empty (their only run), then again on the processes that stay, "
            "with the smaller one.");
    if (XMPI_Get_process_status() == XMPI_REMOVED) {
        contract_start("contract_halo", "removed");
        check_self(nruns == n0 + 1 && run_right(n0, old_size, 0),
                   "the leaving process's rebuild ran once, with the old XMPI_COMM_WORLD of %d and its "
                   "block empty (%d runs, size %d)", old_size, nruns - n0, n0 < 8 ? runs[n0].size : -1);
        X(XMPI_Unregister(&p));
        X(XMPI_Unregister(&ia));
        X(XMPI_Unregister(&u));
        MPI_Type_free(&line);
        MPI_Finalize();
        contract_end();
        return 1;
    }
    world();
    check_code(W, rc, XMPI_SUCCESS, "XMPI_Remove(1)");
    X(XMPI_Get_wsize(rank, nprocs, N, &count, &displ));
    check_all(W, nruns == n0 + 2 && run_right(n0, old_size, -1) && (runs[n0].empty >> (old_size - 1) & 1) &&
                     run_right(n0 + 1, nprocs, count),
              "the staying processes' rebuild ran twice: with the old XMPI_COMM_WORLD of %d, the leaving "
              "process's block empty, then with the smaller one of %d", old_size, nprocs);
    PROMISE("XMPI_Get_partition: every process's block of the current partition (counts and displs: "
            "XMPI_COMM_WORLD's size entries each, NULL allowed) and its epoch, a number that changes "
            "with every move, spawn, removal and restart: a program compares it with the one it saw to "
            "learn cheaply that its blocks may have changed.");
    check_all(W, epoch_now() != e0, "the removal changed the epoch");
    PROMISE("after that the library rebuilds both after every move, spawn, removal and restart, and "
            "the call returns at once (its pointer may differ after a change of the partition).");
    int *lja = NULL, nowned = -1, nhalo = -1;
    rc = rank == 0 ? X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo)) : XMPI_SUCCESS;
    PMPI_Barrier(W);
    if (rank != 0) rc = X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
    int r1 = X(XMPI_Exchange(&p)), r2 = X(XMPI_Exchange(&u));
    check_all(W, rc == XMPI_SUCCESS && r1 == XMPI_SUCCESS && r2 == XMPI_SUCCESS && matrix_right() &&
                     p_right(lja, nowned, nhalo) && u_right(1, 0),
              "after the removal XMPI_Get_halo (rank 0 alone first) and both exchanges are right");
    return 0;
}

static int spawn_run(const char *self, int child)
{
    int hv = XMPI_SUCCESS;
    if (!child) {
        int c[MAXP], d[MAXP], *lja, nowned, nhalo;
        even(nprocs, c, d);
        count = c[rank], displ = d[rank];
        u = new_u(count, displ, 0);
        X(XMPI_Register_ghost(&u, N, line, G));
        build_matrix(count, displ);
        X(XMPI_Register_sparse(&ia, &ja, &a, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
        X(XMPI_Get_halo(&ia, &lja, &nowned, &nhalo));
        p = malloc(sizeof *p * (size_t)(nowned + nhalo + 1));
        for (int l = 0; l < nowned; l++) p[l] = value(displ + l, 0);
        X(XMPI_Register_halo_vector(&p, &ia, MPI_DOUBLE));
        X(XMPI_Set_rebuild(rebuild, NULL));
        char *cargs[] = {"mode=spawn", "child", NULL};
        MPI_Comm before = W;
        int rc = X(XMPI_Spawn(self, cargs, 1, MPI_INFO_NULL, NULL));
        if (rc != XMPI_SUCCESS) {
            check_code(before, rc, XMPI_SUCCESS, "XMPI_Spawn(argv[0], 1)");
            return 0;
        }
        world();
    } else {
        check_self(XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED, "the new process starts "
                                                                    "XMPI_NEWLY_SPAWNED");
        count = displ = 0;
        u = NULL, ia = ja = NULL, a = p = NULL;
        X(XMPI_Register_ghost(&u, N, line, G));
        X(XMPI_Register_sparse(&ia, &ja, &a, N, MPI_DOUBLE, XMPI_DISTRIBUTED));
        hv = X(XMPI_Register_halo_vector(&p, &ia, MPI_DOUBLE));
        X(XMPI_Set_rebuild(rebuild, NULL));
    }
    spawn_unknown(child, hv);
    spawn_join(child);
    if (spawn_leave()) return 1;
    PROMISE("Every XMPI_ call returns one of these;");
    check_all(W, contract_bad_codes == 0, "every XMPI_ call returned one of the header's codes");
    X(XMPI_Unregister(&p));
    X(XMPI_Unregister(&ia));
    X(XMPI_Unregister(&u));
    free(u), free(p), free(ia), free(ja), free(a);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    W = XMPI_COMM_WORLD;
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &nprocs);
    MPI_Type_contiguous(L, MPI_DOUBLE, &line);
    MPI_Type_commit(&line);
    int spawn = 0, child = 0;
    for (int i = 1; i < argc; i++) {
        spawn |= !strcmp(argv[i], "mode=spawn");
        child |= !strcmp(argv[i], "child");
    }
    char tag[32];
    snprintf(tag, sizeof tag, "np%d%s%s", nprocs, spawn ? " spawn" : "", child ? " child" : "");
    contract_start("contract_halo", tag);
    if (nprocs > MAXP - 1) {
        check_all(W, 0, "at most %d processes", MAXP - 1);
        MPI_Finalize();
        return 1;
    }
    if (spawn && spawn_run(argv[0], child)) return 0;   /* removed: it ended already */
    if (!spawn) static_run();
    MPI_Type_free(&line);
    MPI_Finalize();
    if (rank == 0) contract_end();
    return 0;
}
