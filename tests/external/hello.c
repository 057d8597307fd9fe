/* A program written outside the tree, as a user would: it includes <xmpi.h>, builds with
 * pkg-config xmpi, and runs an iterative loop on XMPI_COMM_WORLD with monitoring. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <xmpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 50, bad = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    for (int it = 0; it < iters; it++) {
        int rc = XMPI_Monitor_iter_begin(NULL);
        if (rc != XMPI_SUCCESS) {
            fprintf(stderr, "XMPI_Monitor_iter_begin: %s\n", XMPI_Error_string(rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        long mine = rank + it, sum = 0;
        XMPI_Monitor_add_work(100.0 * (rank + 1));
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, XMPI_COMM_WORLD);
        bad |= sum != (long)size * (size - 1) / 2 + (long)size * it;
        XMPI_Monitor_iter_end(NULL);
    }
    if (rank == 0) printf("hello: %d ranks, %d iterations, %s, work source %s\n", size, iters,
                          bad ? "WRONG sums" : "sums correct", XMPI_Monitor_work_source());
    MPI_Finalize();
    return bad;
}
