/* Dynamic processes: XMPI_COMM_WORLD as processes join (spawn + merge) and leave (group
 * exclusion), with rank 0 as the coordinator that holds the resource pool and scheduler. */
#ifndef XMPI_WORLD_H
#define XMPI_WORLD_H

#include <mpi.h>
#include <stddef.h>

#include "../models/formats/rms_state.h"
#include "../policies/scheduler.h"

/* Start-up of the processes mpirun started (collective over MPI_COMM_WORLD): the resource
 * pool, the placement of the initial processes and the resource manager on rank 0.
 * Returns -1 with a message (on the rank that found the problem) for a bad configuration. */
int xmpi_world_start_initial(char *err, size_t errlen);
/* Start-up of a spawned process, inside MPI_Init: joins XMPI_COMM_WORLD and takes part in
 * the rest of the spawn call that created it. */
void xmpi_world_start_child(MPI_Comm parent);
/* Applies the emulated speed of this process's class (after the configuration is agreed). */
void xmpi_world_emulate_initial(void);
/* The speed this process runs at under an emulation quota (0 < speed < 1), or 0 when it
 * runs unlimited. */
double xmpi_world_emulated_speed(void);
/* Rank 0: the prediction model's class index of each of the n ranks; -1 when n is not the
 * job's size or the scheduler is not there. */
int xmpi_world_rank_classes(int *cls, int n);
/* Frees what the world holds (inside MPI_Finalize, before PMPI_Finalize). */
void xmpi_world_stop(void);

#endif
