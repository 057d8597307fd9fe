/* The program's calls into the interval machinery: the monitoring calls that close an
 * iteration, the evaluation calls (XMPI_Eval_lbalance, XMPI_Eval_reconfig) that run an
 * interval's end, and the program's own moves and reconfigurations (XMPI_Redistribute_data,
 * XMPI_Get_data, XMPI_Spawn, XMPI_Remove, XMPI_Checkpoint). An interval still due is
 * measured and recorded before any of them changes the job (xmpi_pipeline_catch_up). */
#include <stdlib.h>
#include <string.h>

#include "../io/ckpt_manifest.h"
#include "../policies/malleability.h"
#include "context.h"
#include "errors.h"
#include "pipeline.h"
#include "reconfig.h"
#include "xmpi.h"

/* Under an emulated speed by dilation (emulate.c), the program's computation up to a library
 * call is stretched on entry, and the library's own time in the call (a spawn, a move) is not
 * computation: the stretch starts again at the exit. */
static void lib_enter(void)
{
    struct xmpi_emulation *em = &xmpi_ctx->emu;
    if (em->dilate) xmpi_emulate_settle(em, PMPI_Wtime());
}

static void lib_leave(void)
{
    struct xmpi_emulation *em = &xmpi_ctx->emu;
    if (em->dilate) xmpi_emulate_resume(em, PMPI_Wtime());
}

int XMPI_Monitor_iter_end(long long *counts)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    /* The iteration XMPI_Monitor_si_init opened was already ended by the program's evaluation
     * call (or XMPI_Checkpoint, XMPI_Spawn, XMPI_Remove): ending it again asks for what is so. */
    if (!cx->mon.in_iter && cx->mon.si_ended && xmpi_member(cx) == XMPI_SUCCESS) {
        cx->mon.si_ended = 0;
        for (int i = 0; counts && i < cx->mon.nevents; i++) counts[i] = cx->mon.end_counts[i];
        return XMPI_SUCCESS;
    }
    if (cx->mon.in_iter && xmpi_member(cx) == XMPI_SUCCESS) xmpi_pipeline_catch_up(cx);
    int closed = 0, rc = xmpi_monitor_end_iteration(cx, counts, &closed);
    /* A program that evaluates runs the rest of the interval's end in its evaluation call. */
    if (!rc && closed && !cx->evaluates) xmpi_pipeline_interval_end(cx, NULL);
    return rc;
}

int XMPI_Monitor_si_init(void)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!cx->mon.in_iter) return xmpi_monitor_begin_next(cx, 0);
    xmpi_pipeline_catch_up(cx);
    int closed = 0;
    if ((rc = xmpi_monitor_end_iteration(cx, NULL, &closed))) return rc;
    /* An interval closed here runs its end between the two iterations, outside both. */
    if (closed && !cx->evaluates) {
        xmpi_pipeline_interval_end(cx, NULL);
        return xmpi_monitor_begin_next(cx, 0);
    }
    return xmpi_monitor_begin_next(cx, 1);
}

/* "Iterations completed", one definition for every record of an iteration (a checkpoint's
 * manifest, XMPI_Get_data's resume index, the trace's iteration column): the monitored
 * iterations the program has finished. An iteration XMPI_Monitor_si_init opened has no end
 * call of its own; the program's iteration is over at its evaluation call or at
 * XMPI_Checkpoint, so these end it there (any: XMPI_Eval_reconfig ends an iteration however
 * it was opened, so that a reconfiguration is never inside one). An interval it closes is due
 * for the evaluation call, or run now for a program that does not evaluate. */
static int end_open_iteration(struct xmpi_ctx *cx, int any)
{
    if (!cx->mon.in_iter || (!any && !cx->mon.si_opened)) return XMPI_SUCCESS;
    xmpi_pipeline_catch_up(cx);
    int closed = 0, si = cx->mon.si_opened;
    int rc = xmpi_monitor_end_iteration(cx, cx->mon.end_counts, &closed);
    if (!rc) cx->mon.si_ended = si;
    if (!rc && closed && !cx->evaluates) xmpi_pipeline_interval_end(cx, NULL);
    return rc;
}

static int eval_lbalance_call(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    int first = !cx->evaluates;   /* spawned processes inherit it from their parents */
    cx->evaluates = 1;
    if ((rc = end_open_iteration(cx, 0))) return rc;
    struct xmpi_app app = {rank, nprocs, it, maxit, count, displ, weight, 0, NULL, NULL};
    /* --xmpi-lb's data is checked at once, not at the first imbalanced interval. */
    if (first && (rc = xmpi_balance_check(cx, &app))) return rc;
    /* Between interval ends the call costs nothing. */
    if (!cx->mon.due) return XMPI_SUCCESS;
    return xmpi_pipeline_interval_end(cx, &app);
}

static int eval_reconfig_call(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight, char *argv[], const char *command)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    int first = !cx->evaluates;   /* spawned processes inherit it from their parents */
    cx->evaluates = 1;
    if ((rc = end_open_iteration(cx, 1))) return rc;
    struct xmpi_app app = {rank, nprocs, it, maxit, count, displ, weight, 1, argv, command};
    /* --xmpi-lb's data is checked at once: the balancer runs whenever the policy keeps. */
    if (first && (rc = xmpi_balance_check(cx, &app))) return rc;
    if (!cx->mon.due) return XMPI_SUCCESS;
    /* AMP lands on a completion time: it must know how many iterations are left. */
    if (cx->opts.policy == XMPIR_POLICY_AMP && maxit <= 0) {
        if (!cx->amp.said_maxit)
            xmpi_note(cx, 0, "XMPI_Eval_reconfig: --xmpi-policy=amp needs maxit, the number of "
                      "iterations of the run (got %d); nothing changes", maxit);
        cx->amp.said_maxit = 1;
        return XMPI_ERR_ARG;
    }
    return xmpi_pipeline_interval_end(cx, &app);
}

static int redistribute_data_call(int scount, int sdispl, int rcount, int rdispl)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    struct xmpi_move mv = {scount, sdispl, rcount, rdispl, 0, NULL, 0, cx->mon.iterations, 0,
                           "XMPI_Redistribute_data"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc == XMPI_SUCCESS) xmpi_journal_action(&cx->journal, "redistribute");
    return xmpi_error_code(rc);
}

static int get_data_call(int *it)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (cx->status != XMPI_NEWLY_SPAWNED || cx->reg.got_data) return XMPI_ERR_STATE;
    if (cx->ckpt.restarting) {
        /* --xmpi-restart: the rows come from the checkpoint, for every process of the job. */
        long resume = 0;
        rc = xmpi_ckpt_restore(cx, &resume);
        if (rc == XMPI_SUCCESS && it) *it = (int)resume;
        return rc;
    }
    struct xmpi_move mv = {0, 0, 0, 0, 1, NULL, 0, cx->mon.iterations, 0, "XMPI_Get_data"};
    rc = xmpi_registry_move(cx, &mv);
    if (rc == XMPI_SUCCESS && it) *it = (int)mv.resume;
    return xmpi_error_code(rc);
}

/* XMPI_Spawn and XMPI_Remove change the job between iterations: inside one that
 * XMPI_Monitor_iter_begin opened they refuse; one that XMPI_Monitor_si_init opened is over
 * (end_open_iteration, after the other checks). */
static int usable(const struct xmpi_ctx *cx, const char *call)
{
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (!cx->mon.in_iter || cx->mon.si_opened) return XMPI_SUCCESS;
    xmpi_note(cx, 0, "%s: called inside a monitored iteration (after XMPI_Monitor_iter_begin); "
              "call it after XMPI_Monitor_iter_end; nothing changed", call);
    return XMPI_ERR_STATE;
}

/* XMPI_Spawn and XMPI_Remove wait for nothing a policy started: while an asynchronous spawn
 * is under way (the same on every process) they change nothing. */
static int async_busy(const struct xmpi_ctx *cx, const char *call)
{
    if (!cx->world.pending) return XMPI_SUCCESS;
    xmpi_note(cx, 0, "%s: an asynchronous spawn of %d process(es) that --xmpi-policy decided is "
              "under way; its processes join at the next interval end of XMPI_Eval_reconfig; "
              "nothing changed", call, cx->world.pending);
    return XMPI_ERR_STATE;
}

static int spawn_call(const char *command, char *argv[], int nprocs, MPI_Info info, char *node_class[])
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = usable(cx, "XMPI_Spawn");
    if (!rc) rc = async_busy(cx, "XMPI_Spawn");
    if (!rc) rc = end_open_iteration(cx, 0);
    if (rc) return rc;
    xmpi_pipeline_catch_up(cx);
    return xmpi_reconfig_spawn(cx, command, argv, nprocs, info, node_class);
}

static int remove_call(int nprocs, char *node_class[])
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = usable(cx, "XMPI_Remove");
    if (!rc) rc = async_busy(cx, "XMPI_Remove");
    if (!rc) rc = end_open_iteration(cx, 0);
    if (rc) return rc;
    xmpi_pipeline_catch_up(cx);
    return xmpi_reconfig_remove(cx, nprocs, node_class);
}

/* ---- the public calls: the library's own time is not the program's computation ------ */

int XMPI_Eval_lbalance(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight)
{
    lib_enter();
    int rc = eval_lbalance_call(rank, nprocs, it, maxit, count, displ, weight);
    lib_leave();
    return rc;
}

int XMPI_Eval_reconfig(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight, char *argv[], const char *command)
{
    lib_enter();
    int rc = eval_reconfig_call(rank, nprocs, it, maxit, count, displ, weight, argv, command);
    lib_leave();
    return rc;
}

int XMPI_Redistribute_data(int scount, int sdispl, int rcount, int rdispl)
{
    lib_enter();
    int rc = redistribute_data_call(scount, sdispl, rcount, rdispl);
    lib_leave();
    return rc;
}

int XMPI_Get_data(int *it)
{
    lib_enter();
    int rc = get_data_call(it);
    lib_leave();
    return rc;
}

int XMPI_Spawn(const char *command, char *argv[], int nprocs, MPI_Info info, char *node_class[])
{
    lib_enter();
    int rc = spawn_call(command, argv, nprocs, info, node_class);
    lib_leave();
    return rc;
}

int XMPI_Remove(int nprocs, char *node_class[])
{
    lib_enter();
    int rc = remove_call(nprocs, node_class);
    lib_leave();
    return rc;
}

/* A checkpoint records the iterations completed: inside an iteration XMPI_Monitor_iter_begin
 * opened the data reflects part of one, and nothing is written. */
static int checkpoint_call(const char *name)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (cx->mon.in_iter && !cx->mon.si_opened) {
        xmpi_note(cx, 0, "XMPI_Checkpoint: called inside a monitored iteration (after "
                  "XMPI_Monitor_iter_begin); call it after XMPI_Monitor_iter_end; no checkpoint "
                  "written");
        return XMPI_ERR_STATE;
    }
    if ((rc = end_open_iteration(cx, 0))) return rc;
    return xmpi_ckpt_call(name);
}

int XMPI_Checkpoint(const char *name)
{
    lib_enter();
    int rc = checkpoint_call(name);
    lib_leave();
    return rc;
}

int XMPI_Set_app_data(const void *data, int bytes)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (bytes < 0 || bytes > XMPIR_APP_DATA_MAX || (bytes > 0 && !data)) {
        xmpi_note(cx, 0, "XMPI_Set_app_data: %d bytes; accepted: 0 to %d bytes (and a buffer for "
                  "more than 0); nothing changed", bytes, XMPIR_APP_DATA_MAX);
        return XMPI_ERR_ARG;
    }
    char *copy = bytes ? malloc((size_t)bytes) : NULL;
    if (bytes && !copy) return XMPI_ERR_NOMEM;
    if (bytes) memcpy(copy, data, (size_t)bytes);
    free(cx->app_data);
    cx->app_data = copy;
    cx->app_bytes = bytes;
    return XMPI_SUCCESS;
}

int XMPI_Get_app_data(void *data, int bytes, int *got)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (bytes < 0 || (bytes > 0 && !data)) return XMPI_ERR_ARG;
    if (got) *got = cx->app_bytes;
    if (cx->app_bytes > bytes) return XMPI_ERR_ARG;
    if (cx->app_bytes) memcpy(data, cx->app_data, (size_t)cx->app_bytes);
    return XMPI_SUCCESS;
}
