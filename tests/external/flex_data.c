/* A program outside the tree holding a dense matrix, a replicated vector and a CSR matrix:
 * random redistributions, then grow 2 -> 4 (XMPI_Spawn + XMPI_Get_data) and shrink 4 -> 2
 * (XMPI_Remove hands the leaving rows over), checking every value after each step.
 * usage: flex_data [ROUNDS]   (mpirun -np 2; the spawned copies take the same path)
 * Prints "ok - ..." / "not ok - ..." lines (rank 0) agreed over XMPI_COMM_WORLD. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmpi.h>

#define N 37   /* rows: not a multiple of 2, 3 or 4, so blocks differ */

static double *A;            /* dense N x N, rows distributed */
static double *x;            /* vector, replicated */
static int *ia, *ja;         /* CSR, rows distributed */
static double *av;
static int count, displ, rank, nprocs;

/* Values depend on the row, the column (or place in the row) and an epoch: owners move
 * their rows to a new epoch, so a check finds stale copies as well as lost rows. */
static double dense_value(int r, int c, int epoch) { return r * 1000.0 + c + epoch / 8.0; }
static double vec_value(int r, int epoch) { return -r - epoch / 4.0; }
static int row_len(int r) { return (r * 7) % 5; }   /* 0..4: some rows empty */
static int col_of(int r, int k) { return (r * 31 + k * 17) % N; }
static double sp_value(int r, int k, int epoch) { return r + k / 10.0 + epoch * 100.0; }

/* This process's rows at `epoch`, written into the registered buffers (owners only). */
static void fill(int epoch, int allocate)
{
    if (allocate) {
        A = malloc(sizeof *A * (size_t)N * (size_t)(count ? count : 1));
        x = calloc(N, sizeof *x);
        ia = malloc(sizeof *ia * (size_t)(count + 1));
    }
    for (int i = 0; i < count; i++)
        for (int c = 0; c < N; c++) A[(size_t)i * N + c] = dense_value(displ + i, c, epoch);
    /* At the start every copy of the replicated vector is whole; later only the owners
     * refresh their rows and the other copies go stale until the next move. */
    for (int r = allocate ? 0 : displ; r < (allocate ? N : displ + count); r++) x[r] = vec_value(r, epoch);
    ia[0] = 0;
    for (int i = 0; i < count; i++) ia[i + 1] = ia[i] + row_len(displ + i);
    if (allocate) {
        ja = malloc(sizeof *ja * (size_t)(ia[count] + 1));
        av = malloc(sizeof *av * (size_t)(ia[count] + 1));
    }
    for (int i = 0; i < count; i++)
        for (int k = 0; k < row_len(displ + i); k++) {
            ja[ia[i] + k] = col_of(displ + i, k);
            av[ia[i] + k] = sp_value(displ + i, k, epoch);
        }
}

/* Every value this process holds is the one of `epoch`, for its block [displ, +count);
 * the whole replicated vector too unless own_x (only its own rows are fresh then). */
static int holds_rows(int epoch, int own_x)
{
    int ok = A && x && ia;
    for (int i = 0; ok && i < count; i++)
        for (int c = 0; c < N; c++) ok &= A[(size_t)i * N + c] == dense_value(displ + i, c, epoch);
    for (int r = own_x ? displ : 0; ok && r < (own_x ? displ + count : N); r++)
        ok &= x[r] == vec_value(r, epoch);
    ok = ok && ia[0] == 0;
    for (int i = 0; ok && i < count; i++) {
        ok &= ia[i + 1] - ia[i] == row_len(displ + i);
        for (int k = 0; ok && k < row_len(displ + i); k++)
            ok &= ja[ia[i] + k] == col_of(displ + i, k) && av[ia[i] + k] == sp_value(displ + i, k, epoch);
    }
    return ok;
}

static int holds(int epoch) { return holds_rows(epoch, 0); }

static int report(int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    if (rank == 0) printf("%sok - %s\n", all ? "" : "not ", what);
    fflush(stdout);
    return all;
}

static void where(void)
{
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    XMPI_Get_wsize(rank, nprocs, N, &count, &displ);
}

/* Rounds of random partitions (the same on every rank: one seed), values checked each time. */
static int shuffle(int rounds, unsigned seed, int epoch)
{
    int ok = 1;
    for (int t = 0; t < rounds; t++) {
        int cut[8], nc[8], nd[8];
        for (int i = 0; i < nprocs - 1; i++) cut[i] = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (N + 1);
        for (int i = 1; i < nprocs - 1; i++)
            for (int k = i; k > 0 && cut[k - 1] > cut[k]; k--) {
                int s = cut[k]; cut[k] = cut[k - 1]; cut[k - 1] = s;
            }
        /* Blocks dealt in reverse rank order on odd rounds. */
        for (int b = 0; b < nprocs; b++) {
            int who = t % 2 ? nprocs - 1 - b : b;
            nd[who] = b ? cut[b - 1] : 0;
            nc[who] = (b == nprocs - 1 ? N : cut[b]) - nd[who];
        }
        int rc = XMPI_Redistribute_data(count, displ, nc[rank], nd[rank]);
        where();
        ok &= rc == XMPI_SUCCESS && count == nc[rank] && displ == nd[rank] && holds(epoch);
    }
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int spawned = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED;
    where();
    if (!spawned) {
        fill(1, 1);
    } else {
        A = x = av = NULL;
        ia = ja = NULL;
    }
    XMPI_Register_dense(&A, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    XMPI_Register_vector(&x, N, MPI_DOUBLE, XMPI_REPLICATED);
    XMPI_Register_sparse(&ia, &ja, &av, N, MPI_DOUBLE, XMPI_DISTRIBUTED);

    if (!spawned) {
        report(holds(1), "2 processes hold their even blocks");
        report(shuffle(rounds, 7, 1), "random partitions on 2 processes keep every value");
        /* Three monitored iterations: the spawned processes resume at the fourth. */
        for (int it = 0; it < 3; it++) {
            XMPI_Monitor_iter_begin(NULL);
            XMPI_Monitor_iter_end(NULL);
        }
        fill(2, 0);   /* owners move their rows to epoch 2 */
    }
    /* Parents spawn and move the rows to even blocks over 4; the new processes take theirs
     * with XMPI_Get_data (collective with the parents' call). */
    int rc, it = -1, again = XMPI_ERR_STATE;
    if (!spawned) {
        rc = XMPI_Spawn(argv[0], argv + 1, 2, MPI_INFO_NULL, NULL);
        if (rc != XMPI_SUCCESS) {
            fprintf(stderr, "flex_data: XMPI_Spawn: %s\n", XMPI_Error_string(rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        int nc, nd;
        MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
        XMPI_Get_wsize(rank, nprocs, N, &nc, &nd);   /* even blocks over 4 */
        rc = XMPI_Redistribute_data(count, displ, nc, nd);
        it = 3;
    } else {
        rc = XMPI_Get_data(&it);
        again = XMPI_Get_data(&it);
    }
    report(rc == XMPI_SUCCESS, "grow 2 -> 4: parents' XMPI_Redistribute_data with the new processes' XMPI_Get_data");
    report(it == 3, "XMPI_Get_data gives the iteration to resume at (3 completed)");
    report(again == XMPI_ERR_STATE, "a second XMPI_Get_data is refused");
    /* Everyone, the two new processes included, checks the grown job. */
    where();
    report(nprocs == 4 && holds(2), "after growing 2 -> 4 every process holds its rows of epoch 2");
    report(shuffle(rounds, 11, 2), "random partitions on 4 processes keep every value");
    /* Before the shrink rank 1 holds nothing: the hand-off must still give it rows. */
    const int pc[4] = {10, 0, 20, 7}, pd[4] = {0, 10, 10, 30};
    rc = XMPI_Redistribute_data(count, displ, pc[rank], pd[rank]);
    where();
    report(rc == XMPI_SUCCESS && count == pc[rank] && holds(2), "rank 1 gives all its rows away");
    fill(3, 0);
    /* A hand-off that cannot be done (rank 3 registered one structure more) stops the
     * removal: nobody leaves, nothing moves. */
    double *extra = NULL;
    if (rank == 3) XMPI_Register_vector(&extra, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    rc = XMPI_Remove(2, NULL);
    if (rank == 3) XMPI_Unregister(&extra);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    report(rc == XMPI_ERR_ARG && nprocs == 4 && XMPI_Get_process_status() != XMPI_REMOVED &&
           count == pc[rank] && holds_rows(3, 1), "a removal whose hand-off fails changes nothing");
    /* The two spawned processes leave; their rows stay. */
    rc = XMPI_Remove(2, NULL);
    if (XMPI_Get_process_status() == XMPI_REMOVED) {
        free(A); free(x); free(ia); free(ja); free(av);
        MPI_Finalize();
        return rc == XMPI_SUCCESS ? 0 : 1;
    }
    report(rc == XMPI_SUCCESS, "XMPI_Remove 2 processes");
    where();
    report(nprocs == 2 && holds(3), "after shrinking 4 -> 2 the rows of the removed processes are kept");
    report(count > 0, "both remaining processes hold rows");
    report(shuffle(rounds, 13, 3), "random partitions after shrinking keep every value");
    free(A); free(x); free(ia); free(ja); free(av);
    MPI_Finalize();
    return 0;
}
