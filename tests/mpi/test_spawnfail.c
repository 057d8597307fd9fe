/* MPI scenario: a spawn that cannot happen (no free slot, a host the launcher does not know,
 * or MPI_Comm_spawn itself refusing) returns the same error code on every process in bounded
 * time and leaves XMPI_COMM_WORLD as it was; the job then goes on, and a second attempt is
 * refused the same way.
 * usage: test_spawnfail [CLASS]   (CLASS: the node class to spawn on; default: any) */
#include <stdio.h>
#include <stdlib.h>

#include "xmpi.h"

static int rank, size;

/* Rank 0 prints one TAP line from every process's verdict. */
static void agree(int ok, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    if (rank == 0) printf("%sok - %s\n", all ? "" : "not ", what);
    fflush(stdout);
}

/* Every process got `expect`: gathered, so that one process's different code shows. */
static void same_code(int rc, int expect, const char *what)
{
    int *all = malloc(sizeof *all * (size_t)size);
    MPI_Gather(&rc, 1, MPI_INT, all, 1, MPI_INT, 0, XMPI_COMM_WORLD);
    if (rank == 0) {
        int ok = 1;
        for (int r = 0; r < size; r++) ok &= all[r] == expect;
        printf("%sok - %s: every process returned %s (", ok ? "" : "not ", what,
               XMPI_Error_string(expect));
        for (int r = 0; r < size; r++) printf("%s%d", r ? " " : "", all[r]);
        printf(")\n");
        fflush(stdout);
    }
    free(all);
}

static void world_intact(int n, const char *when)
{
    char what[160];
    int s = 0;
    MPI_Comm_size(XMPI_COMM_WORLD, &s);
    long sum = 0, mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, XMPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: XMPI_COMM_WORLD still has %d processes and its "
             "collectives work", when, n);
    agree(s == n && sum == (long)n * (n + 1) / 2, what);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED) {
        /* A refused spawn starts nothing; a process that does start says so. */
        printf("not ok - a process was spawned although the spawn had to be refused\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    int n = size;
    char *cls[] = {argc > 1 ? argv[1] : NULL, NULL};
    char **node_class = argc > 1 ? cls : NULL;

    int rc = XMPI_Spawn(argv[0], NULL, 1, MPI_INFO_NULL, node_class);
    same_code(rc, XMPI_ERR_SPAWN, "first spawn refused");
    world_intact(n, "after the first refusal");
    rc = XMPI_Spawn(argv[0], NULL, 1, MPI_INFO_NULL, node_class);
    same_code(rc, XMPI_ERR_SPAWN, "second spawn refused");
    world_intact(n, "after the second refusal");
    agree(XMPI_Get_process_status() == XMPI_RUNNING, "every process is still XMPI_RUNNING");
    if (rank == 0) printf("# done\n");
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
