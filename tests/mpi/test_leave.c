/* MPI scenario for tests/sh/leave.sh: after XMPI_Remove the removed processes leave while the
 * job goes on, under any MPI. The job grows 2 -> 4 and removes the newest processes; the
 * processes that stay keep exchanging messages until the shell has measured the removed ones
 * (it creates DIR/measured), so that the measurement never races the job's end.
 * usage: test_leave DIR single|group|held
 *   single  two spawns of 1 process, then XMPI_Remove(1): the newest leaves (its connections
 *           were the last ones a later spawn did not touch)
 *   group   one spawn of 2 (run with --xmpi-spawn=group), then XMPI_Remove(2)
 *   held    as single, but the program keeps a duplicate of XMPI_COMM_WORLD it made before
 *           the removal: MPI cannot let the removed process go before the job ends
 * A removed process writes DIR/left.PID when XMPI_Remove returned, DIR/finalized.PID when
 * MPI_Finalize returned. Rank 0 prints TAP lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xmpi.h"

static const char *dir;

static void mark(const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%ld", dir, what, (long)getpid());
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

/* The processes that stay: messages every 20 ms until the shell says it has measured (at
 * most 120 s: a test that never measures must not hang the job). */
static int wait_measured(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/measured", dir);
    int rank, done = 0, sum = 0, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    for (int i = 0; i < 6000 && !done; i++) {
        int one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, XMPI_COMM_WORLD);
        if (sum != size) return 0;
        if (rank == 0) done = access(path, F_OK) == 0;
        MPI_Bcast(&done, 1, MPI_INT, 0, XMPI_COMM_WORLD);
        nanosleep(&(struct timespec){0, 20000000L}, NULL);
    }
    return done;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: test_leave DIR single|group|held\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    dir = argv[1];
    const char *mode = argv[2];
    int group = !strcmp(mode, "group"), rank, size;
    int spawned = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED;
    /* The initial processes spawn; the process of the first single spawn takes part in the
     * second (it joined a job of 3). */
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    char *args[3] = {argv[1], argv[2], NULL};
    int rc = MPI_SUCCESS;
    if (group) {
        if (!spawned) rc = XMPI_Spawn(argv[0], args, 2, MPI_INFO_NULL, NULL);
    } else {
        if (!spawned) rc = XMPI_Spawn(argv[0], args, 1, MPI_INFO_NULL, NULL);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        if (size == 3) rc |= XMPI_Spawn(argv[0], args, 1, MPI_INFO_NULL, NULL);
    }
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    if (rank == 0) printf("%sok - the job grew to 4 processes\n", rc == XMPI_SUCCESS && size == 4 ? "" : "not ");
    MPI_Comm held = MPI_COMM_NULL;
    if (!strcmp(mode, "held")) MPI_Comm_dup(XMPI_COMM_WORLD, &held);
    XMPI_Remove(group ? 2 : 1, NULL);
    if (XMPI_Get_process_status() == XMPI_REMOVED) {
        mark("left");
        MPI_Finalize();
        mark("finalized");
        return 0;
    }
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    if (rank == 0) printf("%sok - the removal left %d processes\n", size == (group ? 2 : 3) ? "" : "not ", size);
    int measured = wait_measured();
    if (rank == 0) printf("%sok - the job went on until the removed processes were measured\n",
                          measured ? "" : "not ");
    if (held != MPI_COMM_NULL) MPI_Comm_free(&held);
    MPI_Finalize();
    return 0;
}
