/* Microbenchmark of libxmpi's own cost: a wrapped MPI_ call against the raw PMPI_ call, and a
 * monitored iteration against an empty one, alternated block by block in one process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "xmpi.h"
#include "bench_median.h"

/* BLOCKS is odd, so the median is one block's value. */
enum { CALLS = 4000, BLOCKS = 41 };

/* Seconds per call of CALLS Allreduces, through the wrapper or straight to PMPI. */
static double allreduce_block(int wrapped)
{
    double in = 1, out;
    PMPI_Barrier(XMPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    for (int i = 0; i < CALLS; i++) {
        if (wrapped) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
        else PMPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
    }
    return (PMPI_Wtime() - t0) / CALLS;
}

/* Seconds per iteration of a loop doing a fixed amount of arithmetic, monitored or not. */
static volatile double sink;
static double iteration_block(int monitored)
{
    PMPI_Barrier(XMPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    for (int i = 0; i < CALLS; i++) {
        if (monitored) XMPI_Monitor_iter_begin(NULL);
        double s = 0;
        for (int k = 0; k < 200; k++) s += k * 0.5;
        sink = s;
        if (monitored) {
            XMPI_Monitor_add_work(400);
            XMPI_Monitor_iter_end(NULL);
        }
    }
    return (PMPI_Wtime() - t0) / CALLS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    double dw[BLOCKS], dm[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        /* Alternate which goes first so that drift does not favour either side. */
        int first = b % 2;
        double a = allreduce_block(first), c = allreduce_block(!first);
        dw[b] = first ? a - c : c - a;
        double m = iteration_block(first), e = iteration_block(!first);
        dm[b] = first ? m - e : e - m;
    }
    /* Rank 0's figures; the others measured the same collectives. */
    if (rank == 0) {
        printf("micro: wrapper %.1f ns per profiled call (MPI_Allreduce of 8 bytes, %d ranks)\n",
               1e9 * bench_median(dw, BLOCKS), size);
        printf("micro: monitor %.1f ns per monitored iteration (begin + add_work + end, "
               "interval gather every %s iterations included)\n",
               1e9 * bench_median(dm, BLOCKS), getenv("XMPI_SI") ? getenv("XMPI_SI") : "100");
    }
    MPI_Finalize();
    return 0;
}
