/* The plain-MPI child of xmpi-spawnbench's raw measurement: joins its parents by merge, takes
 * part in the spawns still to come (argv[1]), then leaves. Built without libxmpi on purpose. */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, comm, inter, merged;
    MPI_Comm_get_parent(&parent);
    MPI_Intercomm_merge(parent, 1, &comm);
    MPI_Comm_disconnect(&parent);
    for (int more = argc > 1 ? atoi(argv[1]) : 0; more > 0; more--) {
        MPI_Comm_spawn(NULL, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, comm, &inter, MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Comm_disconnect(&inter);
        MPI_Comm_free(&comm);
        comm = merged;
    }
    MPI_Barrier(comm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
