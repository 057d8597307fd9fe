/* MPI scenario: halos. Ghost rows of a row-block array and the halo of a registered sparse
 * matrix are filled by XMPI_Exchange with the owners' values, before and after moves to
 * other partitions (uneven, with empty blocks and blocks thinner than the ghost depth, and
 * blocks in reverse rank order); the local column indices point at the right values; the
 * partition's epoch counts the changes and the program's rebuild runs once per change; bad input is refused and changes nothing.
 * Every value is a function of its global row and column, so a check needs no reference run.
 * usage: test_halo   (2-4 processes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "xmpi.h"

enum { N = 37, W = 3, G = 2, BAND = 3 };

static int rank, nprocs;

static double value(int row, int col)
{
    return 1000.0 * row + col + 0.5;
}

/* The ghost array u: rows [displ - G, displ + count + G) of W values, the ghost rows of rows
 * outside [0, N) left at -1 by the program and by nobody else. */
static double *u;
static int count, displ;

static void fill_u(void)
{
    for (int i = 0; i < count; i++)
        for (int k = 0; k < W; k++) u[(size_t)(G + i) * W + k] = value(displ + i, k);
}

static int ghosts_right(int outside)
{
    /* A process without rows has no ghost rows to fill (xmpi.h). */
    for (int i = -G; count > 0 && i < count + G; i++) {
        int row = displ + i;
        for (int k = 0; k < W; k++) {
            double want = row < 0 || row >= N ? outside : value(row, k);
            if (u[(size_t)(G + i) * W + k] != want) return 0;
        }
    }
    return 1;
}

/* A banded sparse matrix with one far coupling per row, global column indices. */
static int *ia, *ja;
static double *a;

static void build_matrix(void)
{
    ia = malloc(sizeof *ia * (size_t)(count + 1));
    ja = malloc(sizeof *ja * (size_t)count * (2 * BAND + 2));
    a = malloc(sizeof *a * (size_t)count * (2 * BAND + 2));
    int nz = 0;
    ia[0] = 0;
    for (int i = 0; i < count; i++) {
        int row = displ + i;
        for (int c = row - BAND; c <= row + BAND; c++)
            if (c >= 0 && c < N) ja[nz] = c, a[nz++] = value(row, c);
        ja[nz] = (row * 7 + 11) % N, a[nz++] = 1;
        ia[i + 1] = nz;
    }
}

/* After XMPI_Exchange of x (x[j] = value(j, 0) for every global j): x at every local column
 * index holds the value of the nonzero's global column. */
static int halo_right(const int *local_ja, int nowned, int nhalo, const double *x, int blk,
                      int first)
{
    if (nowned != blk) return 0;
    for (int i = 0; i < blk; i++)
        for (int k = ia[i]; k < ia[i + 1]; k++) {
            int l = local_ja[k];
            if (l < 0 || l >= nowned + nhalo || x[l] != value(ja[k], 0)) return 0;
            if ((l < nowned) != (ja[k] >= first && ja[k] < first + blk)) return 0;
        }
    return 1;
}

static int rebuilds;
static void rebuild(void *arg)
{
    (*(int *)arg)++;
}

/* A move of every registered structure to blocks in proportion to `weights` (one per rank),
 * then the program's own blocks as XMPI_Get_partition gives them. */
static void move_to(const int *c)
{
    int d = 0;
    for (int r = 0; r < rank; r++) d += c[r];
    int rc = XMPI_Redistribute_data(count, displ, c[rank], d);
    agree_check(rc == XMPI_SUCCESS, "XMPI_Redistribute_data to another partition");
    count = c[rank];
    displ = d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    XMPI_Get_wsize(rank, nprocs, N, &count, &displ);
    MPI_Datatype row;
    MPI_Type_contiguous(W, MPI_DOUBLE, &row);
    MPI_Type_commit(&row);

    /* Bad input first, nothing registered by it. */
    double *nothing = NULL;
    agree_check(XMPI_Register_ghost(&nothing, N, row, -1) == XMPI_ERR_ARG,
                "XMPI_Register_ghost refuses a negative ghost depth");
    agree_check(XMPI_Register_ghost(&nothing, N, row, N + 1) == XMPI_ERR_ARG,
                "XMPI_Register_ghost refuses a ghost depth beyond the rows");
    agree_check(XMPI_Exchange(&nothing) == XMPI_ERR_ARG, "XMPI_Exchange on an unregistered address");
    agree_check(XMPI_Get_halo(&nothing, NULL, NULL, NULL) == XMPI_ERR_ARG,
                "XMPI_Get_halo on an unregistered address");

    int epoch0 = -1, epoch = -1;
    XMPI_Get_partition(&epoch0, NULL, NULL);
    XMPI_Set_rebuild(rebuild, &rebuilds);

    u = malloc(sizeof *u * (size_t)(count + 2 * G) * W);
    for (int i = 0; i < (count + 2 * G) * W; i++) u[i] = -1;
    fill_u();
    agree_check(XMPI_Register_ghost(&u, N, row, G) == XMPI_SUCCESS, "XMPI_Register_ghost");
    double *plain = NULL;   /* a vector without room: not for XMPI_Exchange */
    plain = malloc(sizeof *plain * (size_t)(count ? count : 1));
    XMPI_Register_vector(&plain, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    agree_check(XMPI_Exchange(&plain) == XMPI_ERR_ARG, "XMPI_Exchange on an array without room");
    agree_check(XMPI_Exchange(&u) == XMPI_SUCCESS && ghosts_right(-1),
                "even blocks: the ghost rows hold the neighbours' rows, those outside stay");

    build_matrix();
    XMPI_Register_sparse(&ia, &ja, &a, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    double *x = NULL;
    int *local_ja = NULL, nowned = -1, nhalo = -1;
    x = malloc(sizeof *x * (size_t)(count ? count : 1));
    agree_check(count == 0 || XMPI_Register_halo_vector(&x, &ia, MPI_DOUBLE) == XMPI_ERR_STATE,
                "XMPI_Register_halo_vector before XMPI_Get_halo is refused");
    free(x);
    int rc = XMPI_Get_halo(&ia, &local_ja, &nowned, &nhalo);
    agree_check(rc == XMPI_SUCCESS, "XMPI_Get_halo builds the view");
    x = malloc(sizeof *x * (size_t)(nowned + nhalo + 1));
    for (int i = 0; i < nowned; i++) x[i] = value(displ + i, 0);
    for (int i = nowned; i < nowned + nhalo; i++) x[i] = -7;
    agree_check(XMPI_Register_halo_vector(&x, &ia, MPI_DOUBLE) == XMPI_SUCCESS,
                "XMPI_Register_halo_vector after XMPI_Get_halo");
    agree_check(XMPI_Exchange(&x) == XMPI_SUCCESS &&
                    halo_right(local_ja, nowned, nhalo, x, count, displ),
                "even blocks: every local column index finds its global column's value");
    agree_check(XMPI_Unregister(&ia) == XMPI_ERR_ARG,
                "the matrix stays registered while a halo vector uses it");

    /* Uneven blocks: the last rank holds most, one rank nothing (3 or more processes), and the
     * blocks of others are thinner than the ghost depth. */
    int *c = malloc(sizeof *c * (size_t)nprocs), left = N;
    for (int r = 0; r < nprocs - 1; r++) {
        c[r] = nprocs > 2 && r == 1 ? 0 : 1;
        left -= c[r];
    }
    c[nprocs - 1] = left;
    move_to(c);
    XMPI_Get_partition(&epoch, NULL, NULL);
    agree_check(epoch == epoch0 + 1 && rebuilds == 1,
                "one move: the epoch counts one, the rebuild ran once");
    int *pc = malloc(sizeof *pc * 2 * (size_t)nprocs), ok = 1;
    XMPI_Get_partition(NULL, pc, pc + nprocs);
    for (int r = 0, d = 0; r < nprocs; d += c[r], r++) ok &= pc[r] == c[r] && pc[nprocs + r] == d;
    agree_check(ok, "XMPI_Get_partition gives every process's block");
    ok = 1;
    for (int i = 0; i < count; i++)
        for (int k = 0; k < W; k++) ok &= u[(size_t)(G + i) * W + k] == value(displ + i, k);
    for (int i = 0; i < G * W; i++) ok &= u[i] == 0 && u[(size_t)(G + count) * W + i] == 0;
    agree_check(ok, "after the move: the block in place, the ghost rows zero");
    agree_check(XMPI_Exchange(&u) == XMPI_SUCCESS && ghosts_right(0),
                "uneven blocks, some thinner than the ghosts: the exchange fills them from every owner");
    rc = XMPI_Get_halo(&ia, &local_ja, &nowned, &nhalo);
    for (int i = nowned; i < nowned + nhalo; i++) x[i] = -7;
    agree_check(rc == XMPI_SUCCESS && XMPI_Exchange(&x) == XMPI_SUCCESS &&
                    halo_right(local_ja, nowned, nhalo, x, count, displ),
                "uneven blocks: the view was rebuilt and the halo filled");

    /* Back to even blocks. */
    for (int r = 0; r < nprocs; r++) c[r] = N / nprocs + (r < N % nprocs);
    move_to(c);
    rc = XMPI_Get_halo(&ia, &local_ja, &nowned, &nhalo);
    agree_check(rc == XMPI_SUCCESS && XMPI_Exchange(&x) == XMPI_SUCCESS &&
                    halo_right(local_ja, nowned, nhalo, x, count, displ) &&
                    XMPI_Exchange(&u) == XMPI_SUCCESS && ghosts_right(0),
                "even blocks again: both exchanges right");
    XMPI_Get_partition(&epoch, NULL, NULL);
    agree_check(epoch == epoch0 + 2 && rebuilds == 2, "two moves: epoch and rebuilds count two");

    /* Blocks in reverse rank order (xmpi.h: blocks need not be in rank order): the halo ascends
     * by global column, so its owners' runs follow the blocks, not the ranks. */
    int rcount = N / nprocs + (nprocs - 1 - rank < N % nprocs), rdispl = 0;
    for (int r = nprocs - 1; r > rank; r--) rdispl += N / nprocs + (nprocs - 1 - r < N % nprocs);
    rc = XMPI_Redistribute_data(count, displ, rcount, rdispl);
    agree_check(rc == XMPI_SUCCESS, "XMPI_Redistribute_data to blocks in reverse rank order");
    count = rcount, displ = rdispl;
    rc = XMPI_Get_halo(&ia, &local_ja, &nowned, &nhalo);
    for (int i = nowned; i < nowned + nhalo; i++) x[i] = -7;
    agree_check(rc == XMPI_SUCCESS && XMPI_Exchange(&x) == XMPI_SUCCESS &&
                    halo_right(local_ja, nowned, nhalo, x, count, displ) &&
                    XMPI_Exchange(&u) == XMPI_SUCCESS && ghosts_right(0),
                "blocks in reverse rank order: both exchanges right");

    /* A matrix with a column outside [0, N) on one process: refused on every process. */
    XMPI_Unregister(&x);
    XMPI_Unregister(&ia);
    XMPI_Unregister(&plain);
    XMPI_Unregister(&u);
    int bc, bd;
    XMPI_Get_wsize(rank, nprocs, N, &bc, &bd);
    int *cia = malloc(sizeof *cia * (size_t)(bc + 1)), *cja = malloc(sizeof *cja * (size_t)(bc ? bc : 1));
    double *ca = malloc(sizeof *ca * (size_t)(bc ? bc : 1));
    cia[0] = 0;
    for (int i = 0; i < bc; i++) cja[i] = rank == nprocs - 1 && i == 0 ? N : bd + i, ca[i] = 1, cia[i + 1] = i + 1;
    XMPI_Register_sparse(&cia, &cja, &ca, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    agree_check(XMPI_Get_halo(&cia, NULL, NULL, NULL) == XMPI_ERR_ARG,
                "a column index outside [0, size) is refused on every process");
    free(c), free(pc);
    MPI_Type_free(&row);
    MPI_Finalize();
    return 0;
}
