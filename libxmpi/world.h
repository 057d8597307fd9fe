/* Dynamic processes: XMPI_COMM_WORLD as processes join (spawn + merge) and leave (group
 * exclusion), with rank 0 holding the resource pool and the placement of every process.
 * An executor: the interval pipeline places, predicts and records; the world carries out. */
#ifndef XMPIR_WORLD_H
#define XMPIR_WORLD_H

#include <mpi.h>
#include <stddef.h>

#include "../io/resources.h"
#include "../policies/scheduler.h"
#include "leave.h"

struct xmpi_ctx;
struct xmpi_async;

/* What rank 0 tells a process about its emulated class: the speed (0: real) and the name
 * of the CPU-quota group it shares with the job's other processes of that class on its
 * host ("" : a group of its own). */
struct xmpi_emu_assign {
    double speed;
    char tag[64];
};

struct xmpi_world {
    struct xmpi_pool pool;     /* rank 0 */
    struct xmpi_sched sched;   /* rank 0 */
    int have_sched;
    struct xmpi_emu_assign initial_emu;   /* this process's, when mpirun started it */
    char jobkey[24];           /* rank 0: names the job's shared quota groups */
    int emulation_reported;    /* rank 0 said once that emulation is unavailable */
    int spawn_refused;         /* MPI refused a policy's spawn: policies spawn no more */
    int pending;               /* every process: processes of an asynchronous spawn that have
                                * not joined yet (0: none under way) */
    struct xmpi_async *async;  /* rank 0: that spawn's helper thread and what it made */
    struct xmpi_leave leave;   /* MPICH: where a removed process is woken at the job's end */
};

/* What a new process learns from its parents to count on with them. */
struct xmpi_join {
    long iterations;           /* monitored iterations done */
    int interval_index;        /* intervals gathered */
    int evaluates;             /* the program calls XMPI_Eval_* */
    int papi;                  /* the work source: 1 PAPI counts, 0 declared work, -1 not chosen
                                * yet (no monitored iteration) */
};

/* The argument the library appends to the command line of every process it spawns. A process
 * with a parent is the library's own new process only when it carries it: the spawns a
 * program makes with plain MPI calls start processes that MPI_Init starts as MPI does (their
 * MPI_Comm_get_parent works), where the library's would wait inside MPI_Init for a join their
 * parent never offers. An argument, because it is what both Open MPI and MPICH's Hydra carry
 * to every spawned process, on any host and from the asynchronous spawn's thread too (Hydra
 * has no info key for the environment); MPI_Init takes it out of argv (runtime.c). */
#define XMPIR_SPAWN_MARK "--xmpi-spawned"

/* Start-up of the processes mpirun started (collective over MPI_COMM_WORLD): the resource
 * pool and the placement of the initial processes on rank 0. Returns -1 with a message (on
 * the rank that found the problem) for a bad configuration. */
int xmpi_world_start_initial(struct xmpi_ctx *cx, char *err, size_t errlen);
/* Start-up of a spawned process, inside MPI_Init: joins XMPI_COMM_WORLD, takes part in the
 * rest of the spawn call that created it, and returns what its parents told it. */
void xmpi_world_start_child(struct xmpi_ctx *cx, MPI_Comm parent, struct xmpi_join *join);
/* Applies the emulated speed of this process's class (after the configuration is agreed). */
void xmpi_world_emulate_initial(struct xmpi_ctx *cx);

/* Collective: starts n processes of `command` on pool hosts `hosts` (significant on rank 0)
 * and merges them in; *done receives how many joined. XMPI_ERR_SPAWN when MPI refused. */
int xmpi_world_spawn(struct xmpi_ctx *cx, const char *command, char *argv[], const int *hosts,
                     int n, MPI_Info info, const struct xmpi_join *join, int *done);
/* Rank 0, before spawning n processes (info: the caller's, or MPI_INFO_NULL): XMPI_SUCCESS,
 * or XMPI_ERR_SPAWN with the reason when the launcher has no slot for them (Open MPI, not
 * allowed to oversubscribe). Open MPI 4.1's mpirun never exits after a refused spawn, so
 * what can be checked is checked first. */
int xmpi_world_spawn_precheck(const struct xmpi_ctx *cx, int n, MPI_Info info, char *why,
                              size_t len);
/* Rank 0, after MPI refused a spawn: how to launch the job so that spawning works, as far
 * as this process can tell (Open MPI's slots and oversubscription). */
void xmpi_world_spawn_hint(const struct xmpi_ctx *cx, char *buf, size_t len);
/* Asynchronous spawns (--xmpi-spawn-async): rank 0 alone starts n processes of `command` on
 * pool hosts `hosts` on a helper thread and returns at once; the job goes on computing while
 * MPI_Comm_spawn runs and the new processes start up (they then wait, sleeping, for their
 * parents' word). XMPI_SUCCESS, or XMPI_ERR_NOMEM with nothing started. The caller sets
 * world.pending on every process. */
int xmpi_world_spawn_begin(struct xmpi_ctx *cx, const char *command, char *argv[],
                           const int *hosts, int n, MPI_Info info);
/* Rank 0: 1 when the spawn under way has finished (started its processes, or failed), 0 while
 * it runs, -1 when none is under way; *seconds: how long it took or has taken; *cpu: the CPU
 * seconds the helper thread used, once finished (either may be NULL). */
int xmpi_world_spawn_ready(const struct xmpi_ctx *cx, double *seconds, double *cpu);
/* Rank 0: the pool hosts of the spawn under way (n entries), or NULL. */
const int *xmpi_world_spawn_hosts(const struct xmpi_ctx *cx);
/* Collective, once rank 0 saw the spawn finished: the processes it started join
 * XMPI_COMM_WORLD as a blocking spawn's would (*done of them; in single mode one round each).
 * XMPI_ERR_SPAWN when MPI refused (part of) the spawn; world.pending is 0 after. */
int xmpi_world_spawn_join(struct xmpi_ctx *cx, const struct xmpi_join *join, int *done);
/* Collective: ranks[0..n) leave XMPI_COMM_WORLD (they get XMPI_REMOVED). */
void xmpi_world_remove(struct xmpi_ctx *cx, const int *ranks, int n);

/* The program to spawn exists as MPI_Comm_spawn would search it (PATH). */
int xmpi_world_find_program(const char *command);
/* Frees what the world holds (inside MPI_Finalize, before PMPI_Finalize); the processes of
 * an asynchronous spawn that did not join leave without running the program. */
void xmpi_world_stop(struct xmpi_ctx *cx);
/* Rank 0: cost units per second of the processes in the job now, each at its host's cost per
 * PE-hour (models/cost.h); -1 without a scheduler, or when the pool's costs are unusable. */
double xmpi_world_cost_rate(const struct xmpi_world *w);

#endif
