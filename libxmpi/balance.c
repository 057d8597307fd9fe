/* The load balancer's "decide" step: gathers the program's blocks (and row weights) beside
 * the interval summary, asks the pure balancer (policies/balance.c) for a decision, and
 * returns the partition it wants. The pipeline moves the rows and records the move. */
#include "balance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../models/partition.h"
#include "context.h"
#include "xmpi.h"

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

/* The whole row-weight array of the policy, gathered from every process's rows: rank 0's
 * blocks (c) go to every process first, which only a move with weights needs. */
static int gather_weights(struct xmpi_ctx *cx, int policy, struct columns *c,
                          const double *weight, double **out)
{
    int p = cx->size;
    if (!c->count && !(c->count = malloc(sizeof(int) * 2 * (size_t)p)))
        xmpi_die_nomem(cx, "XMPI_Eval_lbalance");
    c->displ = c->count + p;
    PMPI_Bcast(c->count, 2 * p, MPI_INT, 0, cx->comm);
    int count = c->count[cx->rank];
    int n = xmpi_registry_size(cx), ok = 1;
    double *mine = malloc(sizeof *mine * ((size_t)count + 1));
    double *all = malloc(sizeof *all * ((size_t)n + 1));
    int *len = policy == XMPIR_LB_NNZ ? malloc(sizeof *len * ((size_t)count + 1)) : NULL;
    if (!mine || !all || (policy == XMPIR_LB_NNZ && !len)) ok = 0;
    if (ok && policy == XMPIR_LB_NNZ) {
        ok = xmpi_registry_row_nnz(cx, len, count) == 0;
        for (int i = 0; ok && i < count; i++) mine[i] = len[i];
    } else if (ok) {
        ok = weight || count == 0;
        for (int i = 0; ok && i < count; i++) mine[i] = weight[i];
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, cx->comm);
    if (all_ok)
        PMPI_Allgatherv(mine, count, MPI_DOUBLE, all, c->count, c->displ, MPI_DOUBLE, cx->comm);
    free(mine);
    free(len);
    if (!all_ok) {
        free(all);
        return -1;
    }
    *out = all;
    return 0;
}

/* What --xmpi-lb's policy needs from this process, as FACTS ints: a distributed sparse matrix
 * registered (nnz), the rows it holds (-1: count NULL), and a weight array passed (weight). */
enum { FACTS = 2 };
static void lb_facts(const struct xmpi_ctx *cx, const struct xmpi_app *app, int *out)
{
    int count = app->count ? *app->count : -1;
    out[0] = xmpi_registry_row_nnz(cx, NULL, 0) == 0;
    out[1] = count <= 0 || app->weight != NULL;
}

/* Does the program hold what --xmpi-lb's policy needs? From every process's facts (`stride`
 * ints apart, the facts at `at`; `count` its rows, or NULL), so that every process that has
 * them decides the same. XMPI_SUCCESS, or XMPI_ERR_ARG with one sentence in why. */
static int lb_prerequisites(int policy, int p, const int *all, int stride, int at,
                            const int *count, char *why, size_t len)
{
    if (policy == XMPIR_LB_ROWS || policy == XMPIR_LB_TIME) return XMPI_SUCCESS;
    int sparse_all = 1, sparse_none = 1, weight_all = 1, no_sparse = -1, no_weight = -1;
    for (int i = p - 1; i >= 0; i--) {
        if (!all[stride * i + at]) sparse_all = 0, no_sparse = i;
        else sparse_none = 0;
        if (!all[stride * i + at + 1]) weight_all = 0, no_weight = i;
    }
    if (policy == XMPIR_LB_NNZ && !sparse_all) {
        char who[48] = "no process has one";
        if (!sparse_none) snprintf(who, sizeof who, "rank %d has none", no_sparse);
        snprintf(why, len, "option --xmpi-lb: 'nnz' is not accepted; --xmpi-lb=nnz needs a "
                 "registered distributed sparse matrix and %s; expected a CSR or CSC matrix "
                 "registered with XMPI_Register_sparse(..., XMPI_DISTRIBUTED) before the first "
                 "evaluation call, or --xmpi-lb=rows%s", who,
                 weight_all ? " or weight (this program passes weights)" : "");
        return XMPI_ERR_ARG;
    }
    if (policy == XMPIR_LB_WEIGHT && !weight_all) {
        char rows[48] = "";
        if (count) snprintf(rows, sizeof rows, " %d", count[no_weight]);
        snprintf(why, len, "option --xmpi-lb: 'weight' is not accepted; --xmpi-lb=weight needs "
                 "a weight array and rank %d holds%s rows but passed weight NULL; expected one "
                 "weight per row of its block in the evaluation call's weight argument on every "
                 "process that holds rows, or --xmpi-lb=rows%s", no_weight, rows,
                 sparse_all ? " or nnz (this program registered a sparse matrix)" : "");
        return XMPI_ERR_ARG;
    }
    return XMPI_SUCCESS;
}

int xmpi_balance_check(struct xmpi_ctx *cx, const struct xmpi_app *app)
{
    if (cx->opts.lb == XMPIR_LB_ROWS || cx->opts.lb == XMPIR_LB_TIME) return XMPI_SUCCESS;
    int p = cx->size, mine[FACTS + 1], rc = XMPI_SUCCESS;
    lb_facts(cx, app, mine);
    mine[FACTS] = app->count ? *app->count : -1;
    int *all = cx->rank == 0 ? malloc(sizeof *all * (FACTS + 1) * (size_t)p) : NULL;
    if (cx->rank == 0 && !all) xmpi_die_nomem(cx, "the first evaluation call");
    PMPI_Gather(mine, FACTS + 1, MPI_INT, all, FACTS + 1, MPI_INT, 0, cx->comm);
    if (cx->rank == 0) {
        int *count = malloc(sizeof *count * (size_t)p);
        for (int i = 0; count && i < p; i++) count[i] = all[(FACTS + 1) * i + FACTS];
        char why[600];
        rc = lb_prerequisites(cx->opts.lb, p, all, FACTS + 1, 0, count, why, sizeof why);
        if (rc) xmpi_note(cx, 0, "%s: %s", app->reconfig ? "XMPI_Eval_reconfig" :
                          "XMPI_Eval_lbalance", why);
        free(count);
        free(all);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    return rc;
}

enum { W = 3 + FACTS };

/* Rank 0: the columns from every process's W ints (`all`) and the summary's records, checked. */
static int check_columns(struct xmpi_ctx *cx, const struct xmpi_interval *s, const int *all,
                         struct columns *c, char *why, size_t len)
{
    int p = cx->size, rc = XMPI_SUCCESS;
    for (int i = 0; i < p && !rc; i++)
        if (all[W * i + 2]) {
            snprintf(why, len, "rank %d passed NULL count/displ, or a rank or nprocs that is "
                     "not its own (expected %d of %d)", i, i, p);
            rc = XMPI_ERR_ARG;
        }
    for (int i = 0; i < p; i++) {
        c->count[i] = all[W * i];
        c->displ[i] = all[W * i + 1];
        c->t_real[i] = s->ranks[i].t_real;
        c->t_cpu[i] = s->ranks[i].t_cpu;
        c->comm[i] = s->ranks[i].comm_time;
        c->work[i] = s->ranks[i].work;
    }
    if (!rc) rc = lb_prerequisites(cx->opts.lb, p, all, W, 3, c->count, why, len);
    int n = xmpi_registry_size(cx);
    char sub[300];
    if (!rc && n < 0) {
        snprintf(why, len, "nothing is registered: the balancer moves registered data");
        rc = XMPI_ERR_STATE;
    } else if (!rc && xmpi_part_check(n, p, c->count, c->displ, sub, sizeof sub)) {
        snprintf(why, len, "the blocks passed in do not tile [0, %d): %s", n, sub);
        rc = XMPI_ERR_ARG;
    }
    return rc;
}

/* Every process's block and whether its arguments are its own, with what --xmpi-lb's policy
 * needs, to rank 0 (one Gather), which checks them beside the summary's records and says the
 * verdict to all: the others hold no column (c stays empty), so that an interval end costs
 * them O(1), not P blocks received and checked (make bench-scale, docs/scale.md). */
static int gather_columns(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                          const struct xmpi_app *app, struct columns *c, char *why, size_t len)
{
    int p = cx->size, rc = XMPI_SUCCESS, root = cx->rank == 0;
    int mine[W] = {app->count ? *app->count : -1, app->displ ? *app->displ : -1,
                   !app->count || !app->displ || app->rank != cx->rank || app->nprocs != p};
    lb_facts(cx, app, mine + 3);
    int *all = root ? malloc(sizeof *all * W * (size_t)p) : NULL;
    if (root && (columns_alloc(c, p) || !all)) xmpi_die_nomem(cx, "XMPI_Eval_lbalance");
    PMPI_Gather(mine, W, MPI_INT, all, W, MPI_INT, 0, cx->comm);
    if (root) rc = check_columns(cx, s, all, c, why, len);
    free(all);
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    return rc;
}

/* Rank 0: the cost map updated with this interval's blocks (NULL when it cannot be kept),
 * and the blocks and totals kept for the next update. */
static double *learn_costs(struct xmpi_balance_rt *lb, const struct xmpi_balance_input *in)
{
    int n = in->size, p = in->nprocs;
    if (lb->costmap_n != n || !lb->costmap) {
        free(lb->costmap);
        lb->costmap = calloc((size_t)n + 1, sizeof *lb->costmap);
        lb->costmap_n = lb->costmap ? n : 0;
    }
    if (lb->prev_p != p) {
        free(lb->prev);
        free(lb->prev_total);
        free(lb->slow);
        lb->prev = malloc(sizeof *lb->prev * 2 * (size_t)p);
        lb->prev_total = malloc(sizeof *lb->prev_total * (size_t)p);
        lb->slow = malloc(sizeof *lb->slow * (size_t)p);
        for (int i = 0; lb->slow && i < p; i++) lb->slow[i] = 1;
        lb->prev_p = -1;   /* nothing kept yet for this job size */
    }
    double *total = malloc(sizeof *total * (size_t)p);
    if (!lb->costmap || !lb->prev || !lb->prev_total || !lb->slow || !total) {
        free(total);
        return NULL;
    }
    /* Measured work is cost already; times are cost only once each rank's speed is known. */
    int measured = xmpi_balance_block_totals(in, total);
    int have_prev = lb->prev_p == p;
    int bad = xmpi_balance_costmap_observe(lb->costmap, n, p, in->count, in->displ, total,
                                      have_prev ? lb->prev : NULL, lb->prev + p, lb->prev_total,
                                      measured ? NULL : lb->slow);
    memcpy(lb->prev, in->count, sizeof *lb->prev * (size_t)p);
    memcpy(lb->prev + p, in->displ, sizeof *lb->prev * (size_t)p);
    memcpy(lb->prev_total, total, sizeof *total * (size_t)p);
    lb->prev_p = p;
    free(total);
    return bad ? NULL : lb->costmap;
}

void xmpi_balance_free(struct xmpi_balance_rt *lb)
{
    xmpi_balance_state_free(&lb->st);
    free(lb->costmap);
    free(lb->prev);
    free(lb->prev_total);
    free(lb->slow);
    lb->costmap = NULL;
    lb->prev = NULL;
    lb->prev_total = NULL;
    lb->slow = NULL;
    lb->costmap_n = lb->prev_p = 0;
}

int xmpi_balance_step(struct xmpi_ctx *cx, const struct xmpi_interval *s,
                         const struct xmpi_app *app, int **blocks, char *why, size_t len)
{
    struct xmpi_balance_rt *lb = &cx->balance;
    int p = cx->size, me = cx->rank;
    *blocks = NULL;
    if (lb->nprocs != p) {
        /* The job changed since the state was built: start afresh (the costs learned per
         * row stay: they belong to the rows, not to the processes). */
        xmpi_balance_state_free(&lb->st);
        lb->nprocs = p;
    }
    struct columns c = {0};
    int rc = gather_columns(cx, s, app, &c, why, len);
    if (rc) {
        columns_free(&c);
        return rc;
    }
    const struct xmpi_options *o = &cx->opts;
    int n = xmpi_registry_size(cx);
    struct xmpi_balance_params prm = {o->lb_th1 / 100.0, o->lb_th2 / 100.0, (int)o->lb_k,
                                 o->lb == XMPIR_LB_TIME};
    struct xmpi_balance_input in = {p, n, c.t_real, c.t_cpu, c.comm, c.work, c.count, c.displ,
                               NULL, NULL, s->iterations,
                               app->maxit > 0 ? (double)(app->maxit - app->it - 1) : -1.0};
    /* --xmpi-lb=time: rank 0 learns each interval's cost per row, in measured work when
     * there is any (power then is work per second, as the thesis's), else in compute seconds
     * (every process the same power: what the rows cost where they ran). */
    double *costmap = o->lb == XMPIR_LB_TIME && me == 0 && n >= 0 ? learn_costs(lb, &in) : NULL;
    /* Rank 0 decides and says so: a process spawned later has no history in its state, and
     * one that decided differently from the others would skip the move they start (an AMP
     * Jacobi hung so, its newest process running on past the interval end). */
    struct xmpi_balance_decision d;
    memset(&d, 0, sizeof d);
    int need = me == 0 ? xmpi_balance_assess(&prm, &lb->st, &in, &d) : 0;
    PMPI_Bcast(&need, 1, MPI_INT, 0, cx->comm);
    if (need < 0) {
        snprintf(why, len, "%s", d.why);
        rc = need == -2 ? XMPI_ERR_NOMEM : XMPI_ERR_ARG;
    }
    double *rowweight = NULL;
    if (need > 0 && (o->lb == XMPIR_LB_NNZ || o->lb == XMPIR_LB_WEIGHT) &&
        gather_weights(cx, o->lb, &c, app->weight, &rowweight)) {
        snprintf(why, len, "--xmpi-lb=%s needs %s on every process that holds rows",
                 o->lb == XMPIR_LB_NNZ ? "nnz" : "weight",
                 o->lb == XMPIR_LB_NNZ ? "a registered distributed sparse matrix" : "a weight array");
        rc = XMPI_ERR_ARG;
    }
    int *nc = NULL;
    if (need > 0 && !rc) {
        in.rowweight = o->lb == XMPIR_LB_TIME ? costmap : rowweight;
        if (!(nc = malloc(sizeof *nc * 2 * (size_t)p))) xmpi_die_nomem(cx, "XMPI_Eval_lbalance");
        int pr = me == 0 ? xmpi_balance_plan(&prm, &lb->st, &in, &d, nc, nc + p) : 0;
        int said[2] = {pr, d.rebalance};
        PMPI_Bcast(said, 2, MPI_INT, 0, cx->comm);
        pr = said[0];
        d.rebalance = said[1];
        if (!pr && d.rebalance) PMPI_Bcast(nc, 2 * p, MPI_INT, 0, cx->comm);
        if (pr) {
            snprintf(why, len, "%s", d.why);
            rc = pr == -2 ? XMPI_ERR_NOMEM : XMPI_ERR_ARG;
        }
    }
    if (!rc) {
        xmpi_note(cx, 2, "load balance, interval %d: %s", s->index, d.why);
        if (d.rebalance) {
            *blocks = nc;
            nc = NULL;
            if (d.undo)
                xmpi_note(cx, 1, "interval %d: undoing the last move: %s", s->index, d.why);
            else
                xmpi_note(cx, 1, "interval %d: rebalancing (imbalance %.1f%%)", s->index,
                          100 * d.imbalance);
        }
    }
    free(nc);
    free(rowweight);
    columns_free(&c);
    return rc;
}

void xmpi_balance_moved(struct xmpi_ctx *cx, double seconds, double rebuild)
{
    cx->balance.st.move_cost = seconds > rebuild ? seconds - rebuild : 0;
    cx->balance.st.rebuild_cost = rebuild;
    cx->balance.st.moved = 1;
}
