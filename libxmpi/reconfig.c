/* The executors of a new processor configuration, shared by the policies' act step
 * (pipeline.c) and the program's XMPI_Spawn and XMPI_Remove (calls.c): rank 0 checks and
 * places, every process agrees on the verdict, the model predicts the next interval, the world
 * spawns or removes, the registry hands rows over, and the journal says what was done. */
#include "reconfig.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/config.h"
#include "context.h"
#include "errors.h"
#include "xmpi.h"

/* Collective (the registry's description): on rank 0, the model's prediction of the interval
 * after this action. New processes go to pool hosts new_hosts; leaving ranks are `leaving`. */
void xmpi_reconfig_predict(struct xmpi_ctx *cx, const char *action, const int *new_hosts,
                           int nnew, const int *leaving, int nleave)
{
    enum { MAXD = 32 };
    struct xmpi_struct_desc d[MAXD];
    int p = cx->size;
    int ready = cx->rank == 0 && cx->world.have_sched && cx->predict.on;
    long *part = ready ? malloc(sizeof *part * 2 * (size_t)p) : NULL;
    int nd = xmpi_registry_describe(cx, d, MAXD, part, part ? part + p : NULL);
    int *rank_class = part ? malloc(sizeof *rank_class * 2 * (size_t)p) : NULL;
    int *new_class = part ? malloc(sizeof *new_class * ((size_t)nnew + 1)) : NULL;
    int *group = rank_class ? rank_class + p : NULL;
    if (rank_class && new_class &&
        xmpi_predict_rank_classes(&cx->predict, &cx->world.sched, rank_class, p) == 0) {
        for (int i = 0; i < p; i++) group[i] = cx->world.sched.procs[i].group;
        for (int i = 0; i < nnew; i++) new_class[i] = cx->predict.host_class[new_hosts[i]];
        struct xmpi_config_change ch;
        if (xmpi_config_change(p, rank_class, group, new_class, nnew, leaving, nleave, &ch) == 0)
            xmpi_predict_plan(cx, action, xmpi_monitor_summary(cx), cx->mon.iterations, &ch,
                              rank_class, d, nd, nd ? part : NULL, nd ? part + p : NULL);
    }
    free(new_class);
    free(rank_class);
    free(part);
}

/* Arguments are checked on rank 0 and the verdict shared, so that every process returns
 * the same code and none starts a collective the others skip. */
int xmpi_reconfig_agree(struct xmpi_ctx *cx, int rc, const char *call, const char *why)
{
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc && cx->rank == 0) xmpi_note(cx, 0, "%s: %s", call, why);
    return rc;
}

/* Rank 0: the checks of XMPI_Spawn's arguments and the placement of the new processes. */
int xmpi_reconfig_check_spawn(struct xmpi_ctx *cx, const char *command, int nprocs,
                              MPI_Info info, char *node_class[], int **hosts, char *why,
                              size_t len)
{
    if (nprocs < 1) {
        snprintf(why, len, "nprocs is %d; expected at least 1", nprocs);
        return XMPI_ERR_ARG;
    }
    if (!command || !command[0]) {
        snprintf(why, len, "no program given");
        return XMPI_ERR_ARG;
    }
    if (!xmpi_world_find_program(command)) {
        snprintf(why, len, "cannot find the program '%s' (not an executable file in the "
                 "working directory or PATH); no process started", command);
        return XMPI_ERR_NOT_FOUND;
    }
    if (!(*hosts = malloc(sizeof **hosts * (size_t)nprocs))) {
        snprintf(why, len, "out of memory");
        return XMPI_ERR_NOMEM;
    }
    /* The resource manager makes room first (Slurm: the allocation grows onto idle nodes). */
    int rc = xmpi_rms_acquire(cx, node_class, nprocs, why, len);
    if (rc) return rc;
    int s = xmpi_sched_place(&cx->world.sched, node_class, nprocs, *hosts, why, len);
    if (s) return xmpi_error_code(s);
    return cx->opts.spawn_check == 0 ? xmpi_world_spawn_precheck(cx, nprocs, info, why, len)
                                     : XMPI_SUCCESS;
}

/* After a spawn of n processes on pool hosts `hosts` (rank 0) of which `done` joined, in
 * `seconds` of the job's time: the resource manager, the notes, the sink and the model. */
void xmpi_reconfig_after_spawn(struct xmpi_ctx *cx, const int *hosts, int n, int done, int rc,
                               double seconds)
{
    if (cx->rank == 0) {
        if (done > 0 && hosts) xmpi_rms_spawned(cx, hosts, done);
        if (rc) {
            char hint[512];
            xmpi_world_spawn_hint(cx, hint, sizeof hint);
            xmpi_note(cx, 0, "XMPI_Spawn: MPI_Comm_spawn failed after %d of %d processes; "
                      "XMPI_COMM_WORLD goes on with %d: %s", done, n, cx->size, hint);
        }
        xmpi_note(cx, 2, "spawned %d process(es); XMPI_COMM_WORLD has %d", done, cx->size);
        if (done == n) xmpi_journal_reconfigured(&cx->journal, seconds);
    }
    if (done > 0) {
        xmpi_journal_did(&cx->journal, "spawn", done);
        cx->predict.warmup = 1;   /* the next interval warms them up (model.h) */
    }
}

int xmpi_reconfig_spawn(struct xmpi_ctx *cx, const char *command, char *argv[], int nprocs,
                        MPI_Info info, char *node_class[])
{
    int rc = XMPI_SUCCESS;
    char why[768] = "";
    int *hosts = NULL, n = nprocs;
    if (cx->rank == 0) rc = xmpi_reconfig_check_spawn(cx, command, nprocs, info, node_class, &hosts, why, sizeof why);
    if ((rc = xmpi_reconfig_agree(cx, rc, "XMPI_Spawn", why))) {
        free(hosts);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, cx->comm);
    xmpi_reconfig_predict(cx, "spawn", hosts, n, NULL, 0);
    double t0 = PMPI_Wtime();
    struct xmpi_join join = {cx->mon.iterations, cx->mon.summary.index, cx->evaluates,
                             xmpi_monitor_source_code(cx)};
    int done = 0;
    rc = xmpi_world_spawn(cx, command, argv, hosts, n, info, &join, &done);
    xmpi_reconfig_after_spawn(cx, hosts, n, done, rc, PMPI_Wtime() - t0);
    free(hosts);
    return rc;
}

/* Rank 0: the checks of XMPI_Remove's arguments and which ranks leave. */
static int check_remove(struct xmpi_ctx *cx, int nprocs, char *node_class[], int **ranks,
                        char *why, size_t len)
{
    if (nprocs < 1) {
        snprintf(why, len, "nprocs is %d; expected at least 1", nprocs);
        return XMPI_ERR_ARG;
    }
    if (!(*ranks = malloc(sizeof **ranks * (size_t)nprocs))) {
        snprintf(why, len, "out of memory");
        return XMPI_ERR_NOMEM;
    }
    /* The processes on the hosts the resource manager takes back go first (Slurm). */
    if (xmpi_rms_pick_remove(cx, node_class, nprocs, *ranks)) return XMPI_SUCCESS;
    int s = xmpi_sched_pick_remove(&cx->world.sched, node_class, nprocs, *ranks, why, len);
    return s ? xmpi_error_code(s) : XMPI_SUCCESS;
}

int xmpi_reconfig_remove(struct xmpi_ctx *cx, int nprocs, char *node_class[])
{
    int rc = XMPI_SUCCESS;
    char why[768] = "";
    int n = nprocs, *ranks = NULL, *hosts = NULL;
    if (cx->rank == 0) rc = check_remove(cx, nprocs, node_class, &ranks, why, sizeof why);
    if ((rc = xmpi_reconfig_agree(cx, rc, "XMPI_Remove", why))) {
        free(ranks);
        return rc;
    }
    PMPI_Bcast(&n, 1, MPI_INT, 0, cx->comm);
    if (cx->rank != 0 && !(ranks = malloc(sizeof *ranks * (size_t)n)))
        xmpi_die_nomem(cx, "XMPI_Remove");
    PMPI_Bcast(ranks, n, MPI_INT, 0, cx->comm);
    xmpi_reconfig_predict(cx, "remove", NULL, 0, ranks, n);
    double t0 = PMPI_Wtime(), moved0 = cx->journal.redist_seconds;
    /* The leaving processes' rows go to the others first; if they cannot, nobody leaves. */
    int sc = 0, sd = 0;
    xmpi_registry_own_block(cx, &sc, &sd);
    struct xmpi_move mv = {sc, sd, 0, 0, 0, ranks, n, cx->mon.iterations, 0, "XMPI_Remove"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc > 0) {
        free(ranks);
        return rc;
    }
    if (cx->rank == 0 && (hosts = malloc(sizeof *hosts * (size_t)n)))
        for (int i = 0; i < n; i++) hosts[i] = cx->world.sched.procs[ranks[i]].host;
    xmpi_world_remove(cx, ranks, n);
    xmpi_registry_after_remove(cx, ranks, n);
    xmpi_journal_did(&cx->journal, "remove", n);
    if (cx->rank == 0) {
        if (hosts) xmpi_rms_removed(cx, hosts, n);
        xmpi_note(cx, 2, "removed %d process(es); XMPI_COMM_WORLD has %d", n, cx->size);
        xmpi_journal_reconfigured(&cx->journal,
                               PMPI_Wtime() - t0 - (cx->journal.redist_seconds - moved0));
    }
    free(hosts);
    free(ranks);
    return XMPI_SUCCESS;
}
