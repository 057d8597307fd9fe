/* MPI scenario: the program's data for joining processes (XMPI_Set_app_data). Rank 0's copy
 * reaches a process XMPI_Spawn starts before it registers anything, every member takes it,
 * it travels in a checkpoint to every process of a restarted job, and bad input is refused
 * without changing it.
 * usage: test_appdata spawn             (2 processes; spawns one, removes it)
 *        test_appdata write DIR          (--xmpi-checkpoint=DIR: writes checkpoint "c")
 *        test_appdata read               (--xmpi-restart=DIR/c, any number of processes) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "xmpi.h"

static const char rank0_data[] = "order=37 seed=5 rank0";

/* This process holds rank 0's data, whole, and a short buffer gets nothing but the size. */
static int holds_rank0_data(void)
{
    char buf[64] = "", small[4] = "xyz";
    int got = -1, got2 = -1;
    int rc = XMPI_Get_app_data(buf, sizeof buf, &got);
    int rc2 = XMPI_Get_app_data(small, sizeof small, &got2);
    return rc == XMPI_SUCCESS && got == (int)sizeof rank0_data && !strcmp(buf, rank0_data) &&
           rc2 == XMPI_ERR_ARG && got2 == got && !strcmp(small, "xyz");
}

static int spawn(const char *self, int child)
{
    int rank, spawned = XMPI_SUCCESS;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    if (!child) {
        char big = 0;
        int got = -1;
        agree_check(XMPI_Get_app_data(NULL, 0, &got) == XMPI_SUCCESS && got == 0,
                    "no data set: 0 bytes");
        agree_check(XMPI_Set_app_data(&big, -1) == XMPI_ERR_ARG &&
                        XMPI_Set_app_data(NULL, 4) == XMPI_ERR_ARG &&
                        XMPI_Set_app_data(&big, (1 << 20) + 1) == XMPI_ERR_ARG &&
                        XMPI_Get_app_data(NULL, 0, &got) == XMPI_SUCCESS && got == 0,
                    "bad sizes and buffers refused, nothing set");
        /* Rank 0's copy is what travels; the others set their own. */
        const char *mine = rank == 0 ? rank0_data : "rank1 other data";
        XMPI_Set_app_data(mine, (int)strlen(mine) + 1);
        char *argv[] = {"spawn", "--child", NULL};
        spawned = XMPI_Spawn(self, argv, 1, MPI_INFO_NULL, NULL);
    }
    /* Parents and the child, in the same order from here. */
    agree_check(spawned == XMPI_SUCCESS, "XMPI_Spawn");
    agree_check(holds_rank0_data(), "every process holds rank 0's data, the new one since MPI_Init");
    int rc = XMPI_Remove(1, NULL);
    if (XMPI_Get_process_status() == XMPI_REMOVED) {
        MPI_Finalize();
        return 0;
    }
    agree_check(rc == XMPI_SUCCESS, "XMPI_Remove");
    MPI_Finalize();
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 2 && !strcmp(argv[1], "spawn")) return spawn(argv[0], argc >= 3);
    int rank, nprocs, count, displ, it = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &nprocs);
    if (argc >= 2 && !strcmp(argv[1], "read")) {
        /* Restarted: the data is there before anything is registered. */
        agree_check(holds_rank0_data(), "restarted: every process holds the data before registering");
        double *v = NULL;
        XMPI_Register_vector(&v, 10, MPI_DOUBLE, XMPI_DISTRIBUTED);
        agree_check(XMPI_Get_data(&it) == XMPI_SUCCESS && it == 3, "restarted at iteration 3");
        MPI_Finalize();
        return 0;
    }
    XMPI_Get_wsize(rank, nprocs, 10, &count, &displ);
    double *v = malloc(sizeof *v * (size_t)(count ? count : 1));
    for (int i = 0; i < count; i++) v[i] = displ + i;
    XMPI_Register_vector(&v, 10, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (rank == 0) XMPI_Set_app_data(rank0_data, (int)sizeof rank0_data);
    for (; it < 3; it++) {
        XMPI_Monitor_iter_begin(NULL);
        XMPI_Monitor_iter_end(NULL);
    }
    agree_check(XMPI_Checkpoint("c") == XMPI_SUCCESS, "a checkpoint with the data");
    MPI_Finalize();
    return 0;
}
