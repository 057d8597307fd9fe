/* MPI scenario: grow 2 -> 3 -> 5 and shrink 5 -> 3 -> 2 with XMPI_Spawn/XMPI_Remove, checking
 * XMPI_COMM_WORLD with collectives after every step, and the error paths that change nothing.
 * The same binary runs as parent and child: children get "--step K" and join at step K.
 * usage: test_world MARKER_DIR [--step K]   (removed processes leave MARKER_DIR/removed.PID) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "xmpi.h"

static const char *marker_dir;
static const char *self;
static int joined_at;   /* step at which this process joined (0: started by mpirun) */

/* The world has n processes, ranks 0..n-1, ordered by the step at which they joined, and
 * collectives over it give the values computed here independently. */
static void check_world(int n, const char *when)
{
    char what[200];
    int rank, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    snprintf(what, sizeof what, "%s: XMPI_COMM_WORLD has %d processes", when, n);
    int ok = size == n;
    agree_check(ok, what);

    long sum = 0;
    long mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, XMPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: Allreduce of ranks is %d", when, n * (n - 1) / 2);
    agree_check(sum == (long)n * (n - 1) / 2, what);

    int vals[2] = {rank * 7 + 1, joined_at}, all[64];
    ok = size <= 32;
    if (ok) MPI_Allgather(vals, 2, MPI_INT, all, 2, MPI_INT, XMPI_COMM_WORLD);
    for (int r = 0; ok && r < size; r++) {
        ok &= all[2 * r] == r * 7 + 1;
        if (r > 0) ok &= all[2 * r + 1] >= all[2 * r - 1];   /* existing ranks keep their numbers */
        if (r < 2) ok &= all[2 * r + 1] == 0;                 /* the initial processes are 0 and 1 */
    }
    snprintf(what, sizeof what, "%s: Allgather of known values, ranks in joining order", when);
    agree_check(ok, what);
}

static char step_arg[16];
static char *child_argv[4];

static int spawn(int n, int step)
{
    snprintf(step_arg, sizeof step_arg, "%d", step);
    child_argv[0] = (char *)marker_dir;
    child_argv[1] = "--step";
    child_argv[2] = step_arg;
    child_argv[3] = NULL;
    return XMPI_Spawn(self, child_argv, n, MPI_INFO_NULL, NULL);
}

/* Returns 1 when this process was removed and must leave. */
static int removed(void)
{
    return XMPI_Get_process_status() == XMPI_REMOVED;
}

static void error_paths(void)
{
    char *nope[] = {"no-such-class", NULL};
    char *fast2[] = {"fast", "fast"};
    agree_check(XMPI_Spawn("/no/such/program", NULL, 1, MPI_INFO_NULL, NULL) == XMPI_ERR_NOT_FOUND,
                "spawning a program that does not exist is refused (XMPI_ERR_NOT_FOUND)");
    agree_check(XMPI_Spawn(self, NULL, 0, MPI_INFO_NULL, NULL) == XMPI_ERR_ARG,
                "spawning 0 processes is refused (XMPI_ERR_ARG)");
    agree_check(XMPI_Spawn(self, NULL, 1, MPI_INFO_NULL, nope) == XMPI_ERR_CLASS,
                "spawning on an unknown class is refused (XMPI_ERR_CLASS)");
    agree_check(XMPI_Spawn(self, NULL, 2, MPI_INFO_NULL, fast2) == XMPI_ERR_RESOURCES,
                "spawning on a class with no free PE is refused (XMPI_ERR_RESOURCES)");
    agree_check(XMPI_Remove(0, NULL) == XMPI_ERR_ARG, "removing 0 processes is refused");
    agree_check(XMPI_Remove(4, NULL) == XMPI_ERR_RESOURCES,
                "removing more than the spawned processes is refused (initial ones never leave)");
    XMPI_Monitor_iter_begin(NULL);
    agree_check(XMPI_Spawn(self, NULL, 1, MPI_INFO_NULL, NULL) == XMPI_ERR_STATE,
                "spawning inside a monitored iteration is refused (XMPI_ERR_STATE)");
    XMPI_Monitor_iter_end(NULL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    self = argv[0];
    marker_dir = argc > 1 ? argv[1] : ".";
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--step")) joined_at = atoi(argv[i + 1]);

    int status = XMPI_Get_process_status();
    if (joined_at == 0) {
        agree_check(status == XMPI_RUNNING, "initial processes are XMPI_RUNNING");
        check_world(2, "start");
    } else {
        /* Pairs with the parents' check of XMPI_Spawn's result. */
        agree_check(status == XMPI_NEWLY_SPAWNED, "spawned processes start XMPI_NEWLY_SPAWNED");
    }

    /* Each step is run by every process that is a member by then. */
    /* A child starts inside the step that spawned it, right after the spawn. */
    for (int step = joined_at > 0 ? joined_at : 1; step <= 5; step++) {
        int joining = step == joined_at;
        switch (step) {
        case 1:
            if (!joining) agree_check(spawn(1, 1) == XMPI_SUCCESS, "XMPI_Spawn 1 process");
            check_world(3, "after growing 2 -> 3");
            break;
        case 2:
            if (!joining) agree_check(spawn(2, 2) == XMPI_SUCCESS, "XMPI_Spawn 2 processes");
            check_world(5, "after growing 3 -> 5");
            break;
        case 3:
            error_paths();
            check_world(5, "after the refused calls");
            break;
        case 4:
            if (XMPI_Remove(2, NULL) != XMPI_SUCCESS) printf("not ok - XMPI_Remove 2\n");
            if (removed()) goto leave;
            check_world(3, "after shrinking 5 -> 3");
            break;
        case 5:
            if (XMPI_Remove(1, NULL) != XMPI_SUCCESS) printf("not ok - XMPI_Remove 1\n");
            if (removed()) goto leave;
            check_world(2, "after shrinking 3 -> 2");
            break;
        }
    }
    MPI_Finalize();
    return 0;

leave:
    if (XMPI_COMM_WORLD != MPI_COMM_NULL) printf("not ok - a removed process still has XMPI_COMM_WORLD\n");
    MPI_Finalize();
    /* Written only once MPI_Finalize has returned: the shell side counts these. */
    char path[4096];
    snprintf(path, sizeof path, "%s/removed.%ld", marker_dir, (long)getpid());
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    return 0;
}
