/* bin/xmpi-scalerank0: what rank 0 computes alone at an interval end and before a
 * reconfiguration, at job sizes far beyond this machine (make bench-scale): the pure steps of
 * the pure layers (io/, models/, policies/) on synthetic jobs of P processes, timed in one
 * process. No MPI. Each line: P, the step, the median seconds of one call (CPU time of this
 * process), the calls timed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../io/calibration.h"
#include "../io/interval.h"
#include "../io/resources.h"
#include "../io/trace.h"
#include "../models/config.h"
#include "../models/partition.h"
#include "../models/predict.h"
#include "../policies/amp.h"
#include "../policies/balance.h"
#include "../policies/scheduler.h"
#include "../tools/median.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double budget = 0.2;   /* CPU seconds per step and size, at most (-t) */

/* Times fn(arg) repeatedly: the median of up to 15 calls, stopping once the budget is spent. */
typedef void (*step_fn)(void *arg);
static void timeit(int P, const char *name, step_fn fn, void *arg)
{
    double t[15], spent = 0;
    int n = 0;
    while (n < 15 && (n < 3 || spent < budget)) {
        double t0 = cpu_now();
        fn(arg);
        t[n] = cpu_now() - t0;
        spent += t[n++];
        if (spent > 20 * budget) break;   /* a step far beyond the budget: one sample is enough */
    }
    printf("%d %s %.9g %d\n", P, name, bench_median(t, n), n);
    fflush(stdout);
}

/* A synthetic job of P processes: its interval, model, partition, pool and schedule. */
struct job {
    int P, H, N;
    struct xmpi_rank_record *rec;
    struct xmpi_interval s;
    int *cls, *group;
    long *count, *displ;
    int *icount, *idispl;
    double *t_real, *t_cpu, *comm, *work;
    struct xmpi_predict_model m;
    struct xmpi_struct_desc d[2];
    struct xmpi_pool pool;
    struct xmpi_sched sched;
    char **hostnames;
    struct xmpi_balance_params prm;
    struct xmpi_balance_state st;
    FILE *sink;
    int trace_ranks;
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fprintf(stderr, "xmpi-scalerank0: out of memory\n");
        exit(3);
    }
    return p;
}

static void job_init(struct job *j, int P)
{
    memset(j, 0, sizeof *j);
    j->P = P;
    j->H = P / 16 > 0 ? P / 16 : 1;   /* 16 PEs per host */
    j->N = 1000 * P;
    j->rec = xcalloc((size_t)P, sizeof *j->rec);
    j->cls = xcalloc((size_t)P, sizeof *j->cls);
    j->group = xcalloc((size_t)P, sizeof *j->group);
    j->count = xcalloc((size_t)P, sizeof *j->count);
    j->displ = xcalloc((size_t)P, sizeof *j->displ);
    j->icount = xcalloc((size_t)P, sizeof *j->icount);
    j->idispl = xcalloc((size_t)P, sizeof *j->idispl);
    j->t_real = xcalloc(4 * (size_t)P, sizeof *j->t_real);
    j->t_cpu = j->t_real + P, j->comm = j->t_real + 2 * P, j->work = j->t_real + 3 * P;
    srand(42);
    for (int r = 0; r < P; r++) {
        struct xmpi_rank_record *x = &j->rec[r];
        double slow = 1 + 0.3 * (r % 7 == 3);   /* a few slow ranks: the balancer wants to move */
        x->iterations = 100;
        x->t_real = 1.0 * slow + 0.01 * rand() / RAND_MAX;
        x->t_cpu = x->t_real * 0.99;
        x->comm_time = 0.05;
        x->work = 1e9;
        x->elapsed = 10;
        x->op[XMPIR_OP_ALLREDUCE] = (struct xmpi_opstat){100, 800, 0.03, 100.0 * P};
        x->op[XMPIR_OP_ISEND] = (struct xmpi_opstat){200, 200 * 8000, 0.01, 200.0 * P};
        x->op[XMPIR_OP_WAITALL] = (struct xmpi_opstat){100, 0, 0.01, 100.0 * P};
        xmpi_part_even_block(r, P, j->N, &j->icount[r], &j->idispl[r]);
        j->count[r] = j->icount[r], j->displ[r] = j->idispl[r];
        j->t_real[r] = x->t_real, j->t_cpu[r] = x->t_cpu, j->comm[r] = x->comm_time;
        j->work[r] = x->work;
    }
    xmpi_interval_reduce(&j->s, j->rec, P);
    j->s.index = 5;
    j->s.iteration = 500;
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    xmpi_predict_init(&j->m, &cal, 1);
    xmpi_predict_add_class(&j->m, "a", 1);
    xmpi_predict_add_class(&j->m, "b", 1);
    for (int k = 0; k < 4; k++) {
        j->s.index = k + 1;
        xmpi_predict_observe(&j->m, &j->s, j->cls);
    }
    j->d[0] = (struct xmpi_struct_desc){XMPIR_STRUCT_VECTOR, 0, 8, j->N, 1, 0, 0};
    j->d[1] = (struct xmpi_struct_desc){XMPIR_STRUCT_SPARSE, 0, 8, j->N, 0, 3.0 * j->N, 4};
    /* The pool: H hosts of class a (16 PEs each) and as many of class b, empty. */
    j->pool.nhosts = 2 * j->H;
    j->pool.hosts = xcalloc((size_t)j->pool.nhosts, sizeof *j->pool.hosts);
    for (int h = 0; h < j->pool.nhosts; h++) {
        struct xmpi_host *x = &j->pool.hosts[h];
        snprintf(x->name, sizeof x->name, "node%05d", h);
        snprintf(x->cls, sizeof x->cls, "%s", h < j->H ? "a" : "b");
        x->pes = 16;
        x->cost = h < j->H ? 1 : 2;
    }
    j->hostnames = xcalloc((size_t)P, sizeof *j->hostnames);
    for (int r = 0; r < P; r++) j->hostnames[r] = j->pool.hosts[r / 16 < j->H ? r / 16 : 0].name;
    j->prm = (struct xmpi_balance_params){0.1, 0.05, 3, 1};
    j->sink = fopen("/dev/null", "w");
}

static void job_free(struct job *j)
{
    free(j->rec), free(j->cls), free(j->group), free(j->count), free(j->displ);
    free(j->icount), free(j->idispl), free(j->t_real), free(j->pool.hosts), free(j->hostnames);
    xmpi_balance_state_free(&j->st);
    if (j->sink) fclose(j->sink);
}

/* ---- the steps ---- */

static void s_reduce(void *a)
{
    struct job *j = a;
    xmpi_interval_reduce(&j->s, j->rec, j->P);
}

static void s_trace(void *a)
{
    struct job *j = a;
    struct xmpi_trace_model tm;
    memset(&tm, 0, sizeof tm);
    tm.calibration = "defaults";
    tm.t_decide = -1;
    xmpi_trace_row(j->sink, &j->s, "declared", "none", &tm);
}

static void s_trace_noranks(void *a)
{
    struct job *j = a;
    struct xmpi_trace_model tm;
    memset(&tm, 0, sizeof tm);
    tm.calibration = "defaults";
    tm.t_decide = -1;
    tm.no_ranks = 1;
    xmpi_trace_row(j->sink, &j->s, "declared", "none", &tm);
}

static void s_observe(void *a)
{
    struct job *j = a;
    xmpi_predict_observe(&j->m, &j->s, j->cls);
}

/* The balancer over a window of intervals, then its plan: rank 0's decision when it moves. */
static void s_balance(void *a)
{
    struct job *j = a;
    struct xmpi_balance_input in = {j->P, j->N, j->t_real, j->t_cpu, j->comm, j->work,
                                    j->icount, j->idispl, NULL, NULL, 100, 1e6};
    struct xmpi_balance_decision d;
    int *nc = xcalloc(2 * (size_t)j->P, sizeof *nc);
    xmpi_balance_state_free(&j->st);
    memset(&j->st, 0, sizeof j->st);
    int need = 0;
    for (int k = 0; k < 4; k++) need = xmpi_balance_assess(&j->prm, &j->st, &in, &d);
    if (need > 0) xmpi_balance_plan(&j->prm, &j->st, &in, &d, nc, nc + j->P);
    free(nc);
}

/* One prediction of the model for a candidate of `delta` processes, with the move of the
 * registered structures priced (what HPMP and AMP ask per candidate). */
static int predict_delta(struct job *j, int delta, struct xmpi_prediction *out)
{
    int nnew = delta > 0 ? delta : 0, nleave = delta < 0 ? -delta : 0;
    int *newc = xcalloc((size_t)nnew + 1, sizeof *newc);
    int *leaving = xcalloc((size_t)nleave + 1, sizeof *leaving);
    for (int k = 0; k < nleave; k++) leaving[k] = j->P - 1 - k;
    struct xmpi_config_change ch;
    int rc = xmpi_config_change(j->P, j->cls, j->group, newc, nnew, leaving, nleave, &ch);
    if (!rc) {
        struct xmpi_predict_request rq = {
            .interval = &j->s, .current = ch.current, .candidate = ch.candidate, .structs = j->d,
            .nstructs = 2, .part = {j->P, j->count, j->displ, NULL}, .rank_class = j->cls,
            .mixed_now = ch.mixed_now, .mixed_next = ch.mixed_next};
        rc = xmpi_predict_interval(&j->m, &rq, out);
    }
    free(newc);
    free(leaving);
    return rc;
}

static void s_predict_spawn(void *a)
{
    struct job *j = a;
    struct xmpi_prediction out;
    predict_delta(j, j->P / 4 > 0 ? j->P / 4 : 1, &out);
}

static void s_predict_remove(void *a)
{
    struct job *j = a;
    struct xmpi_prediction out;
    for (int r = 0; r < j->P; r++) j->group[r] = r < j->P / 2 ? 0 : r;   /* half spawned singly */
    predict_delta(j, -(j->P / 4 > 0 ? j->P / 4 : 1), &out);
    memset(j->group, 0, sizeof *j->group * (size_t)j->P);
}

/* The scheduler: the initial placement (once per job), a spawn of P/4 placed and added, and
 * a removal of P/4 single spawns picked and made (rank 0 before and after a reconfiguration),
 * timed apart. */
struct sched_arg { struct job *j; int what; };
enum { SCHED_INIT, SCHED_PLACE, SCHED_REMOVE };
static void sched_init(struct job *j, struct xmpi_sched *sc)
{
    char err[256];
    for (int h = 0; h < j->pool.nhosts; h++) j->pool.hosts[h].procs = 0;
    if (xmpi_sched_init(sc, &j->pool, XMPIR_SCHED_BALANCE_ALL, 1, j->P, j->hostnames, NULL, err,
                        sizeof err)) {
        fprintf(stderr, "xmpi-scalerank0: scheduler: %s\n", err);
        exit(3);
    }
}
static void s_sched(void *a)
{
    struct sched_arg *x = a;
    struct job *j = x->j;
    char err[256];
    int k = j->P / 4 > 0 ? j->P / 4 : 1;
    int *hosts = xcalloc((size_t)k, sizeof *hosts), *ranks = xcalloc((size_t)k, sizeof *ranks);
    char **cls = xcalloc((size_t)k, sizeof *cls);
    for (int i = 0; i < k; i++) cls[i] = "b";
    if (x->what == SCHED_INIT) {
        sched_init(j, &j->sched);
        xmpi_sched_free(&j->sched);
    } else if (x->what == SCHED_PLACE) {
        if (!xmpi_sched_place(&j->sched, cls, k, hosts, err, sizeof err))
            xmpi_sched_add(&j->sched, hosts, k, 0);
        j->sched.nprocs = j->P;   /* the P/4 just added go again: the next call places anew */
        for (int i = 0; i < k; i++) j->pool.hosts[hosts[i]].procs--;
    } else if (!xmpi_sched_pick_remove(&j->sched, NULL, k, ranks, err, sizeof err)) {
        for (int i = 0; i < k; i++) hosts[i] = j->sched.procs[ranks[i]].host;
        xmpi_sched_remove(&j->sched, ranks, k);
        xmpi_sched_add(&j->sched, hosts, k, 0);   /* put back for the next call */
    }
    free(hosts), free(ranks), free(cls);
}
static void time_sched(struct job *j)
{
    struct sched_arg x = {j, SCHED_INIT};
    timeit(j->P, "sched_init", s_sched, &x);
    sched_init(j, &j->sched);
    x.what = SCHED_PLACE;
    timeit(j->P, "sched_place", s_sched, &x);
    /* P/4 single spawns to remove, on the class b hosts */
    int k = j->P / 4 > 0 ? j->P / 4 : 1;
    char **cls = xcalloc((size_t)k, sizeof *cls);
    int *hosts = xcalloc((size_t)k, sizeof *hosts);
    char err[256];
    for (int i = 0; i < k; i++) cls[i] = "b";
    if (xmpi_sched_place(&j->sched, cls, k, hosts, err, sizeof err) ||
        xmpi_sched_add(&j->sched, hosts, k, 0)) {
        fprintf(stderr, "xmpi-scalerank0: scheduler: %s\n", err);
        exit(3);
    }
    x.what = SCHED_REMOVE;
    timeit(j->P, "sched_remove", s_sched, &x);
    xmpi_sched_free(&j->sched);
    free(cls), free(hosts);
}

static void s_partition(void *a)
{
    struct job *j = a;
    char why[256];
    int P = j->P, *c = xcalloc(2 * (size_t)P, sizeof *c), *leaving = xcalloc((size_t)P, sizeof *leaving);
    double *power = xcalloc((size_t)P, sizeof *power);
    for (int r = 0; r < P; r++) power[r] = 1 / j->t_real[r];
    xmpi_part_weighted(j->N, P, NULL, power, c, c + P, why, sizeof why);
    xmpi_part_check(j->N, P, c, c + P, why, sizeof why);
    int k = P / 4 > 0 ? P / 4 : 1;
    for (int i = 0; i < k; i++) leaving[i] = P - 1 - i;
    xmpi_part_handoff(j->N, P, c, leaving, k, c, c + P, why, sizeof why);
    free(c), free(leaving), free(power);
}

/* AMP's decision on a pool with P/4 free PEs over two classes, every candidate priced by the
 * model as the runtime prices it (predict_delta); cost constraint: every candidate. */
struct amp_arg { struct job *j; int delta, rc; struct xmpi_prediction out; };
static const struct xmpi_prediction *amp_pred(struct amp_arg *x, int delta)
{
    if (x->rc == -2 || x->delta != delta) {
        x->delta = delta;
        x->rc = predict_delta(x->j, delta, &x->out);
    }
    return x->rc ? NULL : &x->out;
}
static int amp_comm(void *arg, int n, double *seconds)
{
    struct amp_arg *x = arg;
    const struct xmpi_prediction *o = amp_pred(x, n - x->j->P);
    if (!o) return -1;
    *seconds = o->t_comm;
    return 0;
}
static int amp_overhead(void *arg, int delta, double *seconds)
{
    struct amp_arg *x = arg;
    const struct xmpi_prediction *o = amp_pred(x, delta);
    if (!o) return -1;
    *seconds = o->t_spawn + o->t_remove + o->t_redist;
    return 0;
}
static void s_amp(void *a)
{
    struct job *j = a;
    int k = j->P / 4 > 0 ? j->P / 4 : 1;
    struct xmpi_map_slot free_pes[2] = {{k / 2, 1e9 / 1.0, 1}, {k - k / 2, 1e9 / 1.0, 2}};
    struct xmpi_map_slot leavers[2] = {{0, 1e9, 1}, {0, 1e9, 2}};
    struct amp_arg x = {j, 0, -2, {0}};
    struct xmpi_amp_input in = {
        .goal = 1e-3, .elapsed = 10, .intervals_left = 100, .tol = 0.01,
        .constraint = XMPIR_MAP_COST, .work = 1e9 * j->P, .power_now = 1e9 * j->P, .cost_now = j->P,
        .nprocs = j->P, .max_spawn = k, .free = free_pes, .nfree = 2, .removable = leavers,
        .nremovable = 2, .fast_streak = 0, .anchor = 0};
    struct xmpi_amp_model model = {&x, amp_comm, amp_overhead};
    int counts[2];
    struct xmpi_amp_plan plan = {.count = counts};
    xmpi_policy_amp(&in, &model, &plan);
}

int main(int argc, char **argv)
{
    int sizes[16] = {64, 256, 1024, 4096, 16384}, nsizes = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc) {
            budget = atof(argv[++i]);
        } else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
            nsizes = 0;
            for (char *s = strtok(argv[++i], ","); s && nsizes < 16; s = strtok(NULL, ","))
                sizes[nsizes++] = atoi(s);
        } else {
            fprintf(stderr, "usage: xmpi-scalerank0 [-p P,P,...] [-t SECONDS]\n"
                            "  Times rank 0's pure steps on synthetic jobs of P processes (default\n"
                            "  64,256,1024,4096,16384), at most about SECONDS of CPU per step and size\n"
                            "  (default 0.2). Prints: P step seconds-per-call calls.\n");
            return 2;
        }
    }
    printf("# P step seconds calls\n");
    for (int i = 0; i < nsizes; i++) {
        int P = sizes[i];
        if (P < 2) continue;
        struct job j;
        job_init(&j, P);
        timeit(P, "reduce", s_reduce, &j);
        timeit(P, "trace_row", s_trace, &j);
        timeit(P, "trace_row_noranks", s_trace_noranks, &j);
        timeit(P, "observe", s_observe, &j);
        timeit(P, "balance", s_balance, &j);
        timeit(P, "predict_spawn", s_predict_spawn, &j);
        timeit(P, "predict_remove", s_predict_remove, &j);
        time_sched(&j);
        timeit(P, "partition", s_partition, &j);
        timeit(P, "amp_cost", s_amp, &j);
        job_free(&j);
    }
    return 0;
}
