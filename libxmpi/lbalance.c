/* XMPI_Eval_lbalance: at the end of each sampling interval, feeds the interval summary to the
 * pure balancer (policies/lbalance.c) and carries out its decision with the registry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/lbalance.h"
#include "../models/partition.h"
#include "monitor.h"
#include "registry.h"
#include "runtime.h"
#include "xmpi.h"

static struct {
    int last_index;               /* the last interval evaluated */
    int nprocs;                   /* the job size the state describes */
    struct xmpi_lb_state st;
} lb;

/* Per-rank columns of the summary, as the balancer takes them. */
struct columns {
    double *t_real, *t_cpu, *comm, *work;
    int *count, *displ;
};

static void columns_free(struct columns *c)
{
    free(c->t_real);
    free(c->count);
}

static int columns_alloc(struct columns *c, int p)
{
    c->t_real = malloc(sizeof(double) * 4 * (size_t)p);
    c->count = malloc(sizeof(int) * 2 * (size_t)p);
    if (!c->t_real || !c->count) return -1;
    c->t_cpu = c->t_real + p;
    c->comm = c->t_real + 2 * p;
    c->work = c->t_real + 3 * p;
    c->displ = c->count + p;
    return 0;
}

/* The whole row-weight array of the policy, gathered from every process's rows. */
static int gather_weights(int policy, const struct columns *c, int count, const double *weight,
                          double **out)
{
    int n = xmpi_registry_size(), ok = 1;
    double *mine = malloc(sizeof *mine * ((size_t)count + 1));
    double *all = malloc(sizeof *all * ((size_t)n + 1));
    int *len = policy == XMPI_LB_NNZ ? malloc(sizeof *len * ((size_t)count + 1)) : NULL;
    if (!mine || !all || (policy == XMPI_LB_NNZ && !len)) ok = 0;
    if (ok && policy == XMPI_LB_NNZ) {
        ok = xmpi_registry_row_nnz(len, count) == 0;
        for (int i = 0; ok && i < count; i++) mine[i] = len[i];
    } else if (ok) {
        ok = weight || count == 0;
        for (int i = 0; ok && i < count; i++) mine[i] = weight[i];
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, xmpi_rt.comm);
    if (all_ok)
        PMPI_Allgatherv(mine, count, MPI_DOUBLE, all, c->count, c->displ, MPI_DOUBLE, xmpi_rt.comm);
    free(mine);
    free(len);
    if (!all_ok) {
        free(all);
        return -1;
    }
    *out = all;
    return 0;
}

int XMPI_Eval_lbalance(int rank, int nprocs, int it, int maxit, int *count, int *displ,
                       double *weight)
{
    int rc = xmpi_runtime_ready();
    if (rc) return rc;
    if (xmpi_rt.status == XMPI_REMOVED) return XMPI_ERR_STATE;
    /* Evaluated once per sampling interval: between interval ends the call costs nothing. */
    const struct xmpi_interval *s = xmpi_monitor_summary();
    int idx = xmpi_monitor_interval_index();
    if (!s || idx <= lb.last_index) return XMPI_SUCCESS;
    lb.last_index = idx;
    int p = xmpi_rt.size, me = xmpi_rt.rank;
    if (s->nprocs != p || lb.nprocs != p) {
        /* The interval was measured on other processes, or the job changed: start afresh. */
        memset(&lb.st, 0, sizeof lb.st);
        lb.nprocs = p;
        if (s->nprocs != p) return XMPI_SUCCESS;
    }

    struct columns c = {0};
    int mine[3] = {count ? *count : -1, displ ? *displ : -1,
                   !count || !displ || rank != me || nprocs != p};
    int *all = malloc(sizeof *all * 3 * (size_t)p);
    if (columns_alloc(&c, p) || !all) {
        fprintf(stderr, "xmpi: rank %d: out of memory in XMPI_Eval_lbalance\n", me);
        PMPI_Abort(MPI_COMM_WORLD, 3);
    }
    PMPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, xmpi_rt.comm);
    char why[400] = "";
    int n = xmpi_registry_size();
    for (int i = 0; i < p && !rc; i++)
        if (all[3 * i + 2]) {
            snprintf(why, sizeof why, "rank %d passed NULL count/displ, or a rank or nprocs that "
                     "is not its own (expected %d of %d)", i, i, p);
            rc = XMPI_ERR_ARG;
        }
    for (int i = 0; i < p; i++) {
        c.count[i] = all[3 * i];
        c.displ[i] = all[3 * i + 1];
        c.t_real[i] = s->ranks[i].t_real;
        c.t_cpu[i] = s->ranks[i].t_cpu;
        c.comm[i] = s->ranks[i].comm_time;
        c.work[i] = s->ranks[i].work;
    }
    free(all);
    char sub[300];
    if (!rc && n < 0) {
        snprintf(why, sizeof why, "nothing is registered: the balancer moves registered data");
        rc = XMPI_ERR_STATE;
    } else if (!rc && xmpi_part_check(n, p, c.count, c.displ, sub, sizeof sub)) {
        snprintf(why, sizeof why, "the blocks passed in do not tile [0, %d): %s", n, sub);
        rc = XMPI_ERR_ARG;
    }
    if (rc) {
        if (me == 0) xmpi_note(0, "XMPI_Eval_lbalance: %s", why);
        columns_free(&c);
        return rc;
    }

    const struct xmpi_options *o = &xmpi_rt.opts;
    struct xmpi_lb_params prm = {o->lb_th1 / 100.0, o->lb_th2 / 100.0, (int)o->lb_k};
    struct xmpi_lb_input in = {p, n, c.t_real, c.t_cpu, c.comm, c.work, c.count, c.displ,
                               NULL, NULL, s->iterations,
                               maxit > 0 ? (double)(maxit - it - 1) : -1.0};
    struct xmpi_lb_decision d;
    int need = xmpi_lb_assess(&prm, &lb.st, &in, &d);
    double *rowweight = NULL;
    int *nc = NULL;
    if (need > 0 && o->lb != XMPI_LB_ROWS &&
        gather_weights(o->lb, &c, c.count[me], weight, &rowweight)) {
        snprintf(why, sizeof why, "--xmpi-lb=%s needs %s on every process that holds rows",
                 o->lb == XMPI_LB_NNZ ? "nnz" : "weight",
                 o->lb == XMPI_LB_NNZ ? "a registered distributed sparse matrix" : "a weight array");
        rc = XMPI_ERR_ARG;
    }
    if (need > 0 && !rc) {
        in.rowweight = rowweight;
        if (!(nc = malloc(sizeof *nc * 2 * (size_t)p))) {
            fprintf(stderr, "xmpi: rank %d: out of memory in XMPI_Eval_lbalance\n", me);
            PMPI_Abort(MPI_COMM_WORLD, 3);
        }
        int pr = xmpi_lb_plan(&prm, &lb.st, &in, &d, nc, nc + p);
        if (pr) {
            snprintf(why, sizeof why, "%s", d.why);
            rc = pr == -2 ? XMPI_ERR_NOMEM : XMPI_ERR_ARG;
        }
    }
    if (rc) {
        if (me == 0) xmpi_note(0, "XMPI_Eval_lbalance: %s", why);
    } else {
        xmpi_note(2, "load balance, interval %d: %s", idx, d.why);
    }
    if (!rc && d.rebalance) {
        rc = xmpi_registry_move(*count, *displ, nc[me], nc[p + me], "XMPI_Eval_lbalance");
        if (rc == XMPI_SUCCESS) {
            *count = nc[me];
            *displ = nc[p + me];
            double t = xmpi_registry_stats()->seconds, tmax = t;
            PMPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, xmpi_rt.comm);
            lb.st.move_cost = tmax;
            lb.st.moved = 1;
            xmpi_monitor_set_action("rebalance");
            xmpi_note(1, "interval %d: rebalanced (imbalance %.1f%%) in %.3f s", idx,
                      100 * d.imbalance, tmax);
        }
    }
    free(nc);
    free(rowweight);
    columns_free(&c);
    return rc;
}
