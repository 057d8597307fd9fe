/* The malleable SPMD program of FLEX-MPI's thesis (Fig. 5.14) with this library's API: a dense
 * matrix distributed by rows and a replicated vector, updated every iteration, grown and
 * shrunk by the policy of --xmpi-policy through XMPI_Eval_reconfig and nothing else.
 * usage: xmpi-spmd [N [ITERATIONS]]   (defaults 400 and 200); prints the vector's checksum,
 * the same bits on any number of processes. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "xmpi.h"

static void fill(double *A, double *x, int n, int count, int displ)
{
    for (int i = 0; i < count; i++)
        for (int j = 0; j < n; j++)
            A[(size_t)i * n + j] = 1.0 / (1.0 + (double)((displ + i) * 7 + j * 3) / n);
    for (int j = 0; j < n; j++) x[j] = 1.0 + (double)j / n;
}

/* Each process computes its rows of the new vector; MPI_MAX over -DBL_MAX elsewhere puts
 * every element together exactly, whoever owns the row. */
static void step(const double *A, double *x, double *xn, int n, int count, int displ)
{
    for (int j = 0; j < n; j++) xn[j] = -DBL_MAX;
    for (int i = 0; i < count; i++) {
        double s = 0;
        for (int j = 0; j < n; j++) s += A[(size_t)i * n + j] * x[j];
        xn[displ + i] = 0.5 * x[displ + i] + 0.5 * s / n;
    }
    XMPI_Monitor_add_work(2.0 * count * n);
    MPI_Allreduce(MPI_IN_PLACE, xn, n, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
    memcpy(x, xn, sizeof *x * (size_t)n);
}

static uint64_t checksum(const double *x, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int j = 0; j < n; j++) {
        uint64_t b;
        memcpy(&b, &x[j], sizeof b);
        h = (h ^ b) * 1099511628211ull;
    }
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 400, maxit = argc > 2 ? atoi(argv[2]) : 200;
    if (n < 1 || maxit < 0) {
        fprintf(stderr, "usage: %s [N >= 1 [ITERATIONS >= 0]]\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    int rank, size, count, displ, it = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    XMPI_Get_wsize(rank, size, n, &count, &displ);

    double *A = NULL, *x = NULL, *xn = malloc(sizeof *xn * (size_t)n);
    int status = XMPI_Get_process_status();
    if (status == XMPI_RUNNING) {
        A = malloc(sizeof *A * (size_t)count * n + 1);
        x = malloc(sizeof *x * (size_t)n);
        fill(A, x, n, count, displ);
    }
    XMPI_Register_dense(&A, n, MPI_DOUBLE, XMPI_DISTRIBUTED);
    XMPI_Register_vector(&x, n, MPI_DOUBLE, XMPI_REPLICATED);
    if (status == XMPI_NEWLY_SPAWNED) {
        XMPI_Get_data(&it);
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        XMPI_Get_wsize(rank, size, n, &count, &displ);
    }

    for (; it < maxit; it++) {
        XMPI_Monitor_si_init();
        step(A, x, xn, n, count, displ);
        XMPI_Eval_reconfig(rank, size, it, maxit, &count, &displ, NULL, NULL, NULL);
        if (XMPI_Get_process_status() == XMPI_REMOVED) break;
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
    }

    if (XMPI_Get_process_status() != XMPI_REMOVED && rank == 0)
        printf("result: n=%d iterations=%d procs=%d checksum=%016llx\n", n, maxit, size,
               (unsigned long long)checksum(x, n));
    free(A);
    free(x);
    free(xn);
    MPI_Finalize();
    return 0;
}
