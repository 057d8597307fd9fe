/* A low-level program that follows the resource manager: every 5 iterations it asks
 * XMPI_Get_system_status and spawns onto offered PEs or gives reclaimed ones back.
 * usage: test_rmsfollow STOPFILE [--from ITERATION]; it ends when STOPFILE exists
 * (checked by rank 0 at the same points) or after 20000 iterations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xmpi.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *stop = argc > 1 ? argv[1] : "stop";
    long it = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--from")) it = atol(argv[i + 1]);

    int rank, size, last = -1;
    for (; it < 20000; it++) {
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        if (rank == 0 && size != last) {
            printf("size %d at iteration %ld\n", size, it);
            fflush(stdout);
            last = size;
        }
        XMPI_Monitor_iter_begin(NULL);
        double x = rank, y;
        XMPI_Monitor_add_work(1);
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, XMPI_COMM_WORLD);
        XMPI_Monitor_iter_end(NULL);
        nanosleep(&(struct timespec){0, 2000000}, NULL);   /* 2 ms: a few hundred iterations a second */
        if (it % 5 != 4) continue;

        XMPI_System_status st;
        if (XMPI_Get_system_status(&st) != XMPI_SUCCESS) break;
        char *cls[64];
        for (int i = 0; i < st.nprocs && i < 64; i++) cls[i] = st.node_class;
        if (st.action == XMPI_SYSTEM_SPAWN) {
            char from[32], *args[] = {(char *)stop, "--from", from, NULL};
            snprintf(from, sizeof from, "%ld", it + 1);
            XMPI_Spawn(argv[0], args, st.nprocs, MPI_INFO_NULL, cls);
        } else if (st.action == XMPI_SYSTEM_SHRINK) {
            XMPI_Remove(st.nprocs, cls);
            if (XMPI_Get_process_status() == XMPI_REMOVED) break;
        }
        int done = rank == 0 && access(stop, F_OK) == 0;
        MPI_Bcast(&done, 1, MPI_INT, 0, XMPI_COMM_WORLD);
        if (done) break;
    }
    MPI_Finalize();
    return 0;
}
