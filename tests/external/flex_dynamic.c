/* FLEX-MPI Fig. 4.13, right: a spawned process takes part in the reduction and the removal,
 * then either leaves (XMPI_REMOVED) or joins the final gather. */
#include <mpi.h>
#include <stdio.h>
#include <xmpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (XMPI_Get_process_status() != XMPI_NEWLY_SPAWNED)
        fprintf(stderr, "flex_dynamic: expected XMPI_NEWLY_SPAWNED, got %d\n", XMPI_Get_process_status());
    int rank, size, one = 1, max = 0, all[16];
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    XMPI_Remove(1, NULL);
    if (XMPI_Get_process_status() != XMPI_REMOVED)
        MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, XMPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
