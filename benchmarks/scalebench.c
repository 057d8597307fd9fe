/* bin/xmpi-scalebench: what each of the library's steps costs at this job's size (make
 * bench-scale). Tiny work per process, so that the library's own time shows: per interval end
 * the gather, the model, the decision (balancer or policy), the record; the collectives the
 * interval end runs, timed alone; per reconfiguration a move (its plan, the data, the halo
 * views), a spawn of 1 and of K processes and their removal. Wall and thread CPU time on
 * rank 0 and on a typical rank (the median over ranks 1..P-1 of each rank's median).
 * It links libxmpi.a and reads the library's step clock (LIBXMPI_STEPCLOCK=1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "xmpi.h"
#include "../io/interval.h"
#include "../libxmpi/stepclock.h"
#include "../tools/median.h"

enum { CMD_STOP, CMD_INTERVALS, CMD_COLL, CMD_REDIST, CMD_SPAWN, CMD_REMOVE };

/* What is measured: each metric keeps one (wall, cpu) sample per occurrence. */
enum {
    M_CALL, M_INTERVAL, M_GATHER, M_MODEL, M_POLICY, M_BALANCE, M_RECORD, M_TRACE_BYTES,
    M_COLL, M_REDIST, M_PLAN, M_MOVE, M_VIEWS,
    M_SPAWN1, M_SPAWN1_MPI, M_SPAWN1_MOVE, M_REMOVE1, M_REMOVE1_MPI,
    M_SPAWNK, M_SPAWNK_MPI, M_SPAWNK_MOVE, M_REMOVEK, M_REMOVEK_MPI,
    NMETRIC
};
static const char *const metric_name[NMETRIC] = {
    "call", "interval", "gather", "model", "policy", "balance", "record", "trace_bytes",
    "coll", "redist", "plan", "move", "views",
    "spawn1", "spawn1_mpi", "spawn1_move", "remove1", "remove1_mpi",
    "spawnK", "spawnK_mpi", "spawnK_move", "removeK", "removeK_mpi"};
enum { MAXS = 256 };

struct samples {
    int n[NMETRIC];
    double wall[NMETRIC][MAXS], cpu[NMETRIC][MAXS];
};
static struct samples S;

static void add(int m, double wall, double cpu)
{
    if (S.n[m] < MAXS) {
        S.wall[m][S.n[m]] = wall;
        S.cpu[m][S.n[m]++] = cpu;
    }
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The registered data: a distributed vector and a tridiagonal CSR matrix with a halo view. */
struct data {
    int N, count, displ;
    double *x;
    int *ia, *ja;
    double *a;
};

static void fill(struct data *d)
{
    free(d->x), free(d->ia), free(d->ja), free(d->a);
    d->x = malloc(sizeof *d->x * ((size_t)d->count + 1));
    d->ia = malloc(sizeof *d->ia * ((size_t)d->count + 1));
    d->ja = malloc(sizeof *d->ja * (3 * (size_t)d->count + 1));
    d->a = malloc(sizeof *d->a * (3 * (size_t)d->count + 1));
    if (!d->x || !d->ia || !d->ja || !d->a) MPI_Abort(MPI_COMM_WORLD, 3);
    d->ia[0] = 0;
    for (int i = 0; i < d->count; i++) {
        int g = d->displ + i, k = d->ia[i];
        d->x[i] = g;
        for (int c = g - 1; c <= g + 1; c++)
            if (c >= 0 && c < d->N) d->ja[k] = c, d->a[k++] = c == g ? 2 : -1;
        d->ia[i + 1] = k;
    }
}

static void sizes(int *rank, int *size)
{
    MPI_Comm_rank(XMPI_COMM_WORLD, rank);
    MPI_Comm_size(XMPI_COMM_WORLD, size);
}

/* The step clock's totals of `step` now: calls, wall, cpu. */
static void clock_of(int step, double *v)
{
    const struct xmpi_stepclock *c = xmpi_step_totals();
    v[0] = c->wall[step];
    v[1] = c->cpu[step];
}

/* One metric from the step clock's difference around a call. */
struct snap { double wall[XMPIR_STEP_COUNT], cpu[XMPIR_STEP_COUNT], bytes; };
static void take(struct snap *s)
{
    for (int k = 0; k < XMPIR_STEP_COUNT; k++) {
        double v[2];
        clock_of(k, v);
        s->wall[k] = v[0];
        s->cpu[k] = v[1];
    }
    s->bytes = xmpi_step_totals()->trace_bytes;
}
static void add_step(int m, int step, const struct snap *a, const struct snap *b)
{
    add(m, b->wall[step] - a->wall[step], b->cpu[step] - a->cpu[step]);
}

static void work(double us)
{
    double t0 = MPI_Wtime();
    volatile double s = 0;
    while (MPI_Wtime() - t0 < us * 1e-6) s += 1;
    XMPI_Monitor_add_work(us);
}

/* n measured intervals of si iterations (after `warm` not measured), each ending in the
 * evaluation call; all ranks enter an interval's end together (a barrier before it), so that
 * it measures the library and its collectives, not the ranks' skew under oversubscription. */
static void intervals(struct data *d, int n, int warm, int si, int reconfig, long *it)
{
    int rank, size;
    sizes(&rank, &size);
    /* AMP needs the run's length: four times what is measured, so that intervals are left. */
    int maxit = reconfig ? (int)*it + 4 * (warm + n) * si : -1;
    for (int k = 0; k < warm + n; k++)
        for (int i = 0; i < si; i++, (*it)++) {
            XMPI_Monitor_iter_begin(NULL);
            work(20);
            XMPI_Monitor_iter_end(NULL);
            int last = i == si - 1;
            if (last) PMPI_Barrier(XMPI_COMM_WORLD);
            struct snap a, b;
            take(&a);
            double w0 = MPI_Wtime(), c0 = thread_cpu();
            int rc = reconfig ? XMPI_Eval_reconfig(rank, size, (int)*it, maxit, &d->count,
                                                   &d->displ, NULL, NULL, NULL)
                              : XMPI_Eval_lbalance(rank, size, (int)*it, -1, &d->count, &d->displ,
                                                   NULL);
            double w1 = MPI_Wtime(), c1 = thread_cpu();
            take(&b);
            if (rc) {
                fprintf(stderr, "xmpi-scalebench: evaluation failed: %s\n", XMPI_Error_string(rc));
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            if (!last || k < warm) continue;
            add(M_CALL, w1 - w0, c1 - c0);
            add_step(M_INTERVAL, XMPIR_STEP_INTERVAL, &a, &b);
            add_step(M_GATHER, XMPIR_STEP_GATHER, &a, &b);
            add_step(M_MODEL, XMPIR_STEP_MODEL, &a, &b);
            add_step(M_POLICY, XMPIR_STEP_POLICY, &a, &b);
            add_step(M_BALANCE, XMPIR_STEP_BALANCE, &a, &b);
            add_step(M_RECORD, XMPIR_STEP_RECORD, &a, &b);
            add(M_TRACE_BYTES, b.bytes - a.bytes, 0);
        }
}

/* The collectives an interval end of XMPI_Eval_lbalance runs when the balancer keeps, alone,
 * on the same communicator, n times after the same barrier: the records to rank 0 and the
 * summary back (libxmpi/monitor.c xmpi_monitor_gather), the blocks to rank 0, its verdict and
 * its decision (libxmpi/balance.c gather_columns, xmpi_balance_step). */
static void coll(int n)
{
    MPI_Comm c = XMPI_COMM_WORLD;
    int rank, size;
    sizes(&rank, &size);
    enum { RD = (int)XMPIR_RECORD_DOUBLES, W = 5 };
    double rec[RD];
    struct xmpi_interval sum;
    double *all = rank == 0 ? malloc(sizeof *all * RD * (size_t)size) : NULL;
    int cols[W] = {0}, *icols = rank == 0 ? malloc(sizeof *icols * W * (size_t)size) : NULL;
    memset(rec, 0, sizeof rec);
    memset(&sum, 0, sizeof sum);
    for (int k = 0; k < n; k++) {
        PMPI_Barrier(c);
        double w0 = MPI_Wtime(), c0 = thread_cpu();
        PMPI_Gather(rec, RD, MPI_DOUBLE, all, RD, MPI_DOUBLE, 0, c);
        PMPI_Bcast(&sum, (int)sizeof sum, MPI_BYTE, 0, c);
        PMPI_Gather(cols, W, MPI_INT, icols, W, MPI_INT, 0, c);
        int rc = 0, need = 0;
        PMPI_Bcast(&rc, 1, MPI_INT, 0, c);
        PMPI_Bcast(&need, 1, MPI_INT, 0, c);
        add(M_COLL, MPI_Wtime() - w0, thread_cpu() - c0);
    }
    free(all);
    free(icols);
}

/* A move between even blocks and blocks shifted by half a block (every process exchanges with
 * one neighbour), timed as a whole and by step. */
static void redist(struct data *d, int reps)
{
    int rank, size;
    sizes(&rank, &size);
    for (int k = 0; k < reps; k++) {
        int rc, q = d->N / size, r = d->N % size;
        int nc = q + (rank < r), nd = rank * q + (rank < r ? rank : r);   /* even blocks */
        if (d->displ == nd && d->count == nc) {
            int half = d->N / size / 2, end = rank == size - 1 ? d->N : nd + nc - half;
            nd = rank == 0 ? 0 : nd - half;
            nc = end - nd;
        }
        struct snap a, b;
        PMPI_Barrier(XMPI_COMM_WORLD);
        take(&a);
        double w0 = MPI_Wtime(), c0 = thread_cpu();
        rc = XMPI_Redistribute_data(d->count, d->displ, nc, nd);
        double w1 = MPI_Wtime(), c1 = thread_cpu();
        take(&b);
        if (rc) {
            fprintf(stderr, "xmpi-scalebench: XMPI_Redistribute_data: %s\n", XMPI_Error_string(rc));
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        d->count = nc, d->displ = nd;
        add(M_REDIST, w1 - w0, c1 - c0);
        add_step(M_PLAN, XMPIR_STEP_PLAN, &a, &b);
        add_step(M_MOVE, XMPIR_STEP_MOVE, &a, &b);
        add_step(M_VIEWS, XMPIR_STEP_VIEWS, &a, &b);
    }
}

/* Spawn k, then the rows spread evenly over everyone (the new processes in XMPI_Get_data). */
static void spawn(struct data *d, int k, int one)
{
    int rank, size;
    struct snap a, b, c;
    PMPI_Barrier(XMPI_COMM_WORLD);
    take(&a);
    double w0 = MPI_Wtime(), c0 = thread_cpu();
    char exe[4096] = "";
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) exe[len] = '\0';
    int rc = XMPI_Spawn(exe, NULL, k, MPI_INFO_NULL, NULL);
    double w1 = MPI_Wtime(), c1 = thread_cpu();
    take(&b);
    if (rc) {
        fprintf(stderr, "xmpi-scalebench: XMPI_Spawn(%d): %s\n", k, XMPI_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    sizes(&rank, &size);
    int nc, nd;
    XMPI_Get_wsize(rank, size, d->N, &nc, &nd);
    double w2 = MPI_Wtime(), c2 = thread_cpu();
    rc = XMPI_Redistribute_data(d->count, d->displ, nc, nd);
    double w3 = MPI_Wtime(), c3 = thread_cpu();
    take(&c);
    if (rc) MPI_Abort(MPI_COMM_WORLD, 3);
    d->count = nc, d->displ = nd;
    add(one ? M_SPAWN1 : M_SPAWNK, w1 - w0, c1 - c0);
    add_step(one ? M_SPAWN1_MPI : M_SPAWNK_MPI, XMPIR_STEP_SPAWN_MPI, &a, &b);
    add(one ? M_SPAWN1_MOVE : M_SPAWNK_MOVE, w3 - w2, c3 - c2);
}

static int remove_k(struct data *d, int k, int one)
{
    int rank, size;
    struct snap a, b;
    PMPI_Barrier(XMPI_COMM_WORLD);
    take(&a);
    double w0 = MPI_Wtime(), c0 = thread_cpu();
    int rc = XMPI_Remove(k, NULL);
    double w1 = MPI_Wtime(), c1 = thread_cpu();
    take(&b);
    if (rc) {
        fprintf(stderr, "xmpi-scalebench: XMPI_Remove(%d): %s\n", k, XMPI_Error_string(rc));
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (XMPI_Get_process_status() == XMPI_REMOVED) return 1;
    sizes(&rank, &size);
    XMPI_Get_wsize(rank, size, d->N, &d->count, &d->displ);
    add(one ? M_REMOVE1 : M_REMOVEK, w1 - w0, c1 - c0);
    add_step(one ? M_REMOVE1_MPI : M_REMOVEK_MPI, XMPIR_STEP_REMOVE_MPI, &a, &b);
    return 0;
}

/* Rank 0 prints, per metric with samples: rank 0's median wall and CPU, the typical rank's
 * (the median over ranks 1..P-1 of each rank's median), the samples, and rank 0's CPU
 * quartiles. */
static void report(int P)
{
    int rank, size;
    sizes(&rank, &size);
    double mine[NMETRIC][2];
    for (int m = 0; m < NMETRIC; m++) {
        mine[m][0] = S.n[m] ? bench_median_copy(S.wall[m], S.n[m]) : -1;
        mine[m][1] = S.n[m] ? bench_median_copy(S.cpu[m], S.n[m]) : -1;
    }
    double *all = rank == 0 ? malloc(sizeof *all * 2 * NMETRIC * (size_t)size) : NULL;
    MPI_Gather(mine, 2 * NMETRIC, MPI_DOUBLE, all, 2 * NMETRIC, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
    if (rank != 0) return;
    printf("# P metric rank0_wall rank0_cpu typical_wall typical_cpu samples rank0_cpu_q1 rank0_cpu_q3\n");
    double *w = malloc(sizeof *w * (size_t)size), *c = malloc(sizeof *c * (size_t)size);
    for (int m = 0; m < NMETRIC; m++) {
        if (!S.n[m]) continue;
        int k = 0;
        for (int r = 1; r < size; r++)
            if (all[(size_t)r * 2 * NMETRIC + 2 * m] >= 0) {
                w[k] = all[(size_t)r * 2 * NMETRIC + 2 * m];
                c[k++] = all[(size_t)r * 2 * NMETRIC + 2 * m + 1];
            }
        double tw = k ? bench_median(w, k) : mine[m][0], tc = k ? bench_median(c, k) : mine[m][1];
        double *s = S.cpu[m];
        qsort(s, (size_t)S.n[m], sizeof *s, bench_cmp_double);
        printf("%d %s %.9g %.9g %.9g %.9g %d %.9g %.9g\n", P, metric_name[m], mine[m][0],
               mine[m][1], tw, tc, S.n[m], s[S.n[m] / 4], s[(3 * S.n[m]) / 4]);
    }
    fflush(stdout);
    free(w), free(c), free(all);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: LIBXMPI_STEPCLOCK=1 mpirun -np P xmpi-scalebench [-i INTERVALS] [-n ROWS]\n"
            "           [-c COLL] [-m MOVES] [-k K] [-g REPS] [-p]\n"
            "  INTERVALS measured interval ends (default 20, after 3 not measured) of --xmpi-si\n"
            "  iterations of 20 us of work each; -p: XMPI_Eval_reconfig (the policy of --xmpi-policy)\n"
            "  instead of XMPI_Eval_lbalance; COLL times the interval end's collectives alone\n"
            "  (default 30); MOVES moves of ROWS rows per process (default 2000; default 10 moves);\n"
            "  REPS spawns of 1 and of K processes, each removed again (default 0: none; K default P/4).\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n_int = 20, si, rows = 2000, n_coll = 30, n_moves = 10, K = 0, reps = 0, pol = 0;
    for (int i = 1; i < argc; i++) {
        int *v = !strcmp(argv[i], "-i") ? &n_int : !strcmp(argv[i], "-n") ? &rows : !strcmp(argv[i], "-c") ? &n_coll
               : !strcmp(argv[i], "-m") ? &n_moves : !strcmp(argv[i], "-k") ? &K
               : !strcmp(argv[i], "-g") ? &reps : NULL;
        if (!strcmp(argv[i], "-p")) pol = 1;
        else if (v && i + 1 < argc) *v = atoi(argv[++i]);
        else {
            usage();
            MPI_Finalize();
            return 2;
        }
    }
    int rank, size;
    sizes(&rank, &size);
    char sis[32] = "";
    XMPI_Get_option("si", sis, sizeof sis);
    si = atoi(sis);
    struct data d = {0};
    int spawned = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED;
    if (!spawned) {
        if (!xmpi_step_totals()->on && rank == 0)
            fprintf(stderr, "xmpi-scalebench: LIBXMPI_STEPCLOCK=1 is not set: the library's steps read 0\n");
        d.N = rows * size;
        XMPI_Set_app_data(&d.N, sizeof d.N);
        XMPI_Get_wsize(rank, size, d.N, &d.count, &d.displ);
        fill(&d);
    } else {
        int got = 0;
        XMPI_Get_app_data(&d.N, sizeof d.N, &got);
    }
    XMPI_Register_vector(&d.x, d.N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    XMPI_Register_sparse(&d.ia, &d.ja, &d.a, d.N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    long it = 0;
    if (spawned) {
        int i0 = 0;
        if (XMPI_Get_data(&i0)) MPI_Abort(MPI_COMM_WORLD, 3);
        it = i0;
        sizes(&rank, &size);
        XMPI_Get_wsize(rank, size, d.N, &d.count, &d.displ);
    } else {
        int *lja, nown, nhalo;
        if (XMPI_Get_halo(&d.ia, &lja, &nown, &nhalo)) MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int P = size;
    if (K <= 0) K = P / 4 > 0 ? P / 4 : 1;
    /* Rank 0's script; everyone follows it (processes spawned later join at their command). */
    /* Commands: what, how many, 1 for the spawn or removal of one process. */
    int script[4 * 64 + 8][3], ns = 0, pc = 0;
#define CMD(a, b, c) (script[ns][0] = (a), script[ns][1] = (b), script[ns++][2] = (c))
    CMD(CMD_INTERVALS, n_int, 0);
    if (!pol) {
        CMD(CMD_COLL, n_coll, 0);
        CMD(CMD_REDIST, n_moves, 0);
        for (int r = 0; r < reps && r < 64; r++) {
            CMD(CMD_SPAWN, 1, 1);
            CMD(CMD_REMOVE, 1, 1);
            CMD(CMD_SPAWN, K, 0);
            CMD(CMD_REMOVE, K, 0);
        }
    }
    CMD(CMD_STOP, 0, 0);
    for (;;) {
        int cmd[3] = {0, 0, 0};
        if (rank == 0) memcpy(cmd, script[pc++], sizeof cmd);
        MPI_Bcast(cmd, 3, MPI_INT, 0, XMPI_COMM_WORLD);
        if (cmd[0] == CMD_STOP) break;
        if (cmd[0] == CMD_INTERVALS) intervals(&d, cmd[1], 3, si, pol, &it);
        if (cmd[0] == CMD_COLL) coll(cmd[1]);
        if (cmd[0] == CMD_REDIST) redist(&d, cmd[1]);
        if (cmd[0] == CMD_SPAWN) spawn(&d, cmd[1], cmd[2]);
        if (cmd[0] == CMD_REMOVE && remove_k(&d, cmd[1], cmd[2])) break;
        sizes(&rank, &size);
    }
    if (XMPI_Get_process_status() != XMPI_REMOVED) {
        if (size == P) report(P);
    }
    free(d.x), free(d.ia), free(d.ja), free(d.a);
    MPI_Finalize();
    return 0;
}
