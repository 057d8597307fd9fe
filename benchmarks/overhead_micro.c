/* Microbenchmark of libxmpi's own cost: a wrapped MPI_ call against the raw PMPI_ call, and a
 * monitored iteration against an empty one, alternated block by block in one process. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "xmpi.h"
#include "../tools/median.h"

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

/* Seconds per iteration of a loop doing a fixed amount of arithmetic: not monitored (0),
 * bracketed by XMPI_Monitor_iter_begin/end (1), or opened by XMPI_Monitor_si_init (2). */
static volatile double sink;
static double iteration_block(int mode)
{
    PMPI_Barrier(XMPI_COMM_WORLD);
    double t0 = PMPI_Wtime();
    for (int i = 0; i < CALLS; i++) {
        if (mode == 1) XMPI_Monitor_iter_begin(NULL);
        else if (mode == 2) XMPI_Monitor_si_init();
        double s = 0;
        for (int k = 0; k < 200; k++) s += k * 0.5;
        sink = s;
        if (mode) XMPI_Monitor_add_work(400);
        if (mode == 1) XMPI_Monitor_iter_end(NULL);
    }
    double t = (PMPI_Wtime() - t0) / CALLS;
    if (mode == 2) XMPI_Monitor_iter_end(NULL);   /* the last iteration si_init opened */
    return t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    double dw[BLOCKS], dm[BLOCKS], ds[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        /* Alternate which goes first so that drift does not favour either side. */
        int first = b % 2;
        double a = allreduce_block(first), c = allreduce_block(!first);
        dw[b] = first ? a - c : c - a;
        double m = iteration_block(first), e = iteration_block(!first);
        dm[b] = first ? m - e : e - m;
        double si = iteration_block(first ? 2 : 0), e2 = iteration_block(first ? 0 : 2);
        ds[b] = first ? si - e2 : e2 - si;
    }
    /* Rank 0's figures; the others measured the same collectives. */
    if (rank == 0) {
        printf("micro: wrapper %.1f ns per profiled call (MPI_Allreduce of 8 bytes, %d ranks)\n",
               1e9 * bench_median(dw, BLOCKS), size);
        printf("micro: monitor %.1f ns per monitored iteration (begin + add_work + end, "
               "interval gather every %s iterations included)\n",
               1e9 * bench_median(dm, BLOCKS), getenv("XMPI_SI") ? getenv("XMPI_SI") : "100");
        printf("micro: si_init %.1f ns per monitored iteration (XMPI_Monitor_si_init + add_work, the "
               "same gathers)\n", 1e9 * bench_median(ds, BLOCKS));
    }
    MPI_Finalize();
    return 0;
}
