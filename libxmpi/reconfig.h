/* The executors of a new processor configuration (spawn, remove), shared by the interval's
 * act step and the program's own XMPI_Spawn and XMPI_Remove. */
#ifndef XMPIR_RECONFIG_H
#define XMPIR_RECONFIG_H

#include <stddef.h>

#include <mpi.h>

struct xmpi_ctx;

/* Arguments are checked on rank 0 and its verdict `rc` shared, so that every process returns
 * the same code and none starts a collective the others skip; rank 0 says why on failure. */
int xmpi_reconfig_agree(struct xmpi_ctx *cx, int rc, const char *call, const char *why);
/* Rank 0: the checks of a spawn's arguments and the placement of its processes (*hosts,
 * malloc'ed: pool hosts, one per process); an XMPI code and why. */
int xmpi_reconfig_check_spawn(struct xmpi_ctx *cx, const char *command, int nprocs,
                              MPI_Info info, char *node_class[], int **hosts, char *why,
                              size_t len);
/* Collective (the registry's description): on rank 0, the model's prediction of the interval
 * after this action. New processes go to pool hosts new_hosts; leaving ranks are `leaving`. */
void xmpi_reconfig_predict(struct xmpi_ctx *cx, const char *action, const int *new_hosts,
                           int nnew, const int *leaving, int nleave);
/* After a spawn of n processes on pool hosts `hosts` (rank 0) of which `done` joined in
 * `seconds` of the job's time: the resource manager, the notes, the journal and the model. */
void xmpi_reconfig_after_spawn(struct xmpi_ctx *cx, const int *hosts, int n, int done, int rc,
                               double seconds);
/* Collective: a blocking spawn of nprocs processes of `command` (XMPI_Spawn's semantics). */
int xmpi_reconfig_spawn(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                        MPI_Info info, char *node_class[]);
/* Collective: nprocs spawned processes leave after handing their rows over (XMPI_Remove's
 * semantics); if the hand-off fails nobody leaves. */
int xmpi_reconfig_remove(struct xmpi_ctx *cx, int nprocs, char *node_class[]);

#endif
