/* FLEX-MPI Fig. 4.13, left: the processes mpirun starts spawn 3 processes of another
 * program (flex_dynamic), reduce over all of them, remove one (or argv[1] of them: processes
 * spawned together in group mode leave together), and gather from the rest. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xmpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* flex_dynamic sits next to this program. */
    char dyn[4096];
    snprintf(dyn, sizeof dyn, "%s", argv[0]);
    char *slash = strrchr(dyn, '/');
    snprintf(slash ? slash + 1 : dyn, sizeof dyn - (size_t)(slash ? slash + 1 - dyn : 0), "flex_dynamic");

    int rc = XMPI_Spawn(dyn, NULL, 3, MPI_INFO_NULL, NULL);
    int rank, size, one = 1, sum = 0, max = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &max, 1, MPI_INT, MPI_MAX, XMPI_COMM_WORLD);
    int grown_ok = rc == XMPI_SUCCESS && max == size - 1;

    int leave = argc > 1 ? atoi(argv[1]) : 1;
    int removed_ok = XMPI_Remove(leave, NULL) == XMPI_SUCCESS;
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    int all[16] = {0};
    MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, XMPI_COMM_WORLD);
    for (int i = 0; i < size && i < 16; i++) sum += all[i];
    if (rank == 0)
        printf("flex_static: spawn %s, %d processes after growing, remove %s, %d after removing %d, "
               "gather %s\n", grown_ok ? "ok" : "FAILED", max + 1, removed_ok ? "ok" : "FAILED",
               size, leave, sum == size ? "ok" : "FAILED");
    MPI_Finalize();
    return !(grown_ok && removed_ok && sum == size);
}
