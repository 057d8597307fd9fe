/* bin/xmpi-ampdecide: what one AMP decision costs (policies/amp.h, xmpi_policy_amp: the
 * candidate evaluation and its glp_intopt mappings), timed on random pools with a synthetic
 * model, against the target "< 10 ms per decision for pools of 8 classes". No MPI. */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../policies/amp.h"
#define BENCH_NAME "xmpi-ampdecide"
#define BENCH_NO_MPI
#include "../tools/cli.h"
#include "../tools/median.h"

enum { MAX_CLASSES = 64, DEFAULT_CLASSES = 8, DEFAULT_DECISIONS = 2000, MAX_DECISIONS = 1000000 };
#define TARGET_MS 10.0
#define TARGET_CLASSES 8
#define TOL 0.05

enum which { C_EFFICIENCY = 1, C_COST = 2, C_BOTH = 3 };
enum outcome { O_KEEP, O_SPAWN, O_REMOVE, O_UNREACH, NOUT };

struct args {
    long classes, decisions;
    uint64_t seed;
    enum which which;
    int help;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xmpi-ampdecide [-c CLASSES] [-n DECISIONS] [-s SEED]\n"
            "                      [--constraint=efficiency|cost|both] [-h]\n"
            "\n"
            "Times AMP's decision (policies/amp.h, xmpi_policy_amp: phase 1, the candidate\n"
            "evaluation of phase 2 and its glp_intopt mappings) on random pools, against the\n"
            "target of < %g ms per decision for pools of %d classes. No MPI: the program calls the\n"
            "policy of the pure archive directly, as the runtime does at an interval end.\n"
            "\n"
            "Each decision draws, from the seed:\n"
            "  a pool of CLASSES classes, one slot each: 0..8 free PEs (spawn candidates), 0..4\n"
            "             processes that may leave, a power of 0.5..5 work units per second and a\n"
            "             cost per second of k p^e (k 0.5..1.5, e 1.2..1.8 per decision), so that\n"
            "             the most powerful classes are the least cost-efficient (thesis Table 6.4);\n"
            "  the job:   the removable processes plus 1..8 fixed ones, the work of an interval\n"
            "             (0.5..2 s at the current power), 5..100 intervals left, 0..1000 s\n"
            "             elapsed, a tolerance of %g%%, no cap on spawning beyond the free PEs;\n"
            "  a model:   comm(n) = a + b n, overhead(delta) = c |delta| + d, constants random;\n"
            "  a goal:    aimed in turn at keep (within the tolerance), grow, shrink and an\n"
            "             unreachable goal (faster than every free PE together could run).\n"
            "The same decisions are timed under each constraint asked for. Only the\n"
            "xmpi_policy_amp call is timed; one untimed call first warms\n"
            "GLPK up.\n"
            "\n"
            "Options:\n"
            "  -c CLASSES   classes in the pool, from 1 to %d (default %d).\n"
            "  -n DECISIONS decisions per constraint, from 1 to %d (default %d).\n"
            "  -s SEED      the random seed, an unsigned 64-bit number (default 1).\n"
            "  --constraint=efficiency|cost|both\n"
            "               the mapping constraint(s) timed (default both).\n"
            "  -h, --help   print this help and exit.\n"
            "\n"
            "Output: per constraint, the decisions, the outcomes (keep; spawn; remove; unreach:\n"
            "the goal cannot be met, the fastest configuration was chosen, spawn or keep) and\n"
            "the median, 90th percentile and largest milliseconds per decision, in wall time\n"
            "(CLOCK_MONOTONIC) and in this thread's CPU time (CLOCK_THREAD_CPUTIME_ID: what other\n"
            "programs on the machine do not inflate); then a verdict per constraint, judged on\n"
            "every decision: met when the largest CPU time is below %g ms (CPU time, so that a\n"
            "preemption by another program does not count; the line also gives the wall\n"
            "time's 90th percentile and largest, and counts the decisions whose wall time\n"
            "reached the target).\n"
            "\n"
            "Exit status: 0 done; 1 a run-time failure (memory, a decision refused by the\n"
            "policy); 2 a bad option, with one message naming it and what is accepted.\n"
            "\n"
            "Example: nice -n 19 xmpi-ampdecide -c 16 -n 500 --constraint=cost\n",
            TARGET_MS, TARGET_CLASSES, 100 * TOL, MAX_CLASSES, DEFAULT_CLASSES, MAX_DECISIONS,
            DEFAULT_DECISIONS, TARGET_MS);
}

static int parse_args(int argc, char **argv, struct args *a, char *err, size_t len)
{
    *a = (struct args){.classes = DEFAULT_CLASSES, .decisions = DEFAULT_DECISIONS, .seed = 1,
                       .which = C_BOTH};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            a->help = 1;
        } else if (!strcmp(o, "-c")) {
            if (!(v = option_value(argc, argv, &i, o)) || parse_long(v, 1, MAX_CLASSES, &a->classes))
                return refuse_value(err, len, o, v, "a number of classes from 1 to 64");
        } else if (!strcmp(o, "-n")) {
            if (!(v = option_value(argc, argv, &i, o)) ||
                parse_long(v, 1, MAX_DECISIONS, &a->decisions))
                return refuse_value(err, len, o, v, "a number of decisions from 1 to 1000000");
        } else if (!strcmp(o, "-s")) {
            if (!(v = option_value(argc, argv, &i, o)) || parse_u64(v, &a->seed))
                return refuse_value(err, len, o, v, "a seed, an unsigned 64-bit number");
        } else if (!strncmp(o, "--constraint", 12) && (o[12] == '\0' || o[12] == '=')) {
            v = option_value(argc, argv, &i, "--constraint");
            if (v && !strcmp(v, "efficiency")) a->which = C_EFFICIENCY;
            else if (v && !strcmp(v, "cost")) a->which = C_COST;
            else if (v && !strcmp(v, "both")) a->which = C_BOTH;
            else return refuse_value(err, len, "--constraint", v, "efficiency, cost or both");
        } else {
            snprintf(err, len,
                     BENCH_NAME ": unknown option '%.64s'; accepted: -c CLASSES, -n DECISIONS, "
                     "-s SEED, --constraint=efficiency|cost|both, -h",
                     o);
            return -1;
        }
    }
    return 0;
}

/* splitmix64, as the unit tests use: the same decisions on every platform. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double unit(uint64_t *s) { return (double)(rng_next(s) >> 11) * 0x1.0p-53; }

struct model { double a, b, c, d; };   /* comm(n) = a + b n; overhead(delta) = c |delta| + d */

static int m_comm(void *arg, int n, double *seconds)
{
    const struct model *m = arg;
    *seconds = m->a + m->b * n;
    return 0;
}

static int m_overhead(void *arg, int delta, double *seconds)
{
    const struct model *m = arg;
    *seconds = m->c * abs(delta) + m->d;
    return 0;
}

struct decision {
    struct xmpi_amp_input in;
    struct xmpi_map_slot free[MAX_CLASSES], rem[MAX_CLASSES];
    struct model m;
};

/* Decision number k's draw (its outcome aimed at k % 4); the constraint is the caller's. */
static void draw(uint64_t *rs, int classes, long k, struct decision *d)
{
    memset(d, 0, sizeof *d);
    struct xmpi_amp_input *in = &d->in;
    double ck = 0.5 + unit(rs), ce = 1.2 + 0.6 * unit(rs);
    int nfree = 0, nrem = 0;
    double pfree = 0, prem = 0, crem = 0;
    for (int i = 0; i < classes; i++) {
        double p = 0.5 + 4.5 * unit(rs), c = ck * pow(p, ce);
        d->free[i] = (struct xmpi_map_slot){(int)(rng_next(rs) % 9), p, c};
        d->rem[i] = (struct xmpi_map_slot){(int)(rng_next(rs) % 5), p, c};
        nfree += d->free[i].avail;
        nrem += d->rem[i].avail;
        pfree += d->free[i].avail * p;
        prem += d->rem[i].avail * p;
        crem += d->rem[i].avail * c;
    }
    int fixed = 1 + (int)(rng_next(rs) % 8);
    double pfix = 0.5 + 4.5 * unit(rs);
    in->free = d->free;
    in->nfree = classes;
    in->removable = d->rem;
    in->nremovable = classes;
    in->nprocs = nrem + fixed;
    in->max_spawn = nfree;
    in->power_now = prem + fixed * pfix;
    in->cost_now = crem + fixed * ck * pow(pfix, ce);
    in->work = in->power_now * (0.5 + 1.5 * unit(rs));
    in->intervals_left = 5 + (double)(rng_next(rs) % 96);
    in->elapsed = 1000 * unit(rs);
    in->tol = TOL;
    /* A too-fast job shrinks only on a second fast interval (amp.h); the decisions aimed at
     * a shrink come as that second one, so that the removal search is timed, not the wait. */
    in->fast_streak = 1;
    d->m.a = 0.05 * unit(rs);
    d->m.b = 0.002 * unit(rs);
    double t_now = in->work / in->power_now + d->m.a + d->m.b * in->nprocs;
    d->m.c = 0.5 * t_now * unit(rs);
    d->m.d = 0.5 * t_now * unit(rs);
    double u = unit(rs), t_goal;
    switch (k % 4) {
    case 0: t_goal = t_now * (0.96 + 0.08 * u); break;        /* within the tolerance */
    case 1: t_goal = t_now * exp(log(0.5) + log(0.9 / 0.5) * u); break;   /* grow */
    case 2: t_goal = t_now * exp(log(1.1) + log(3.0 / 1.1) * u); break;   /* shrink */
    default: {   /* faster than all the free PEs together, overheads aside */
        double best = in->work / (in->power_now + pfree) + d->m.a + d->m.b * (in->nprocs + nfree);
        t_goal = best * (0.2 + 0.7 * u);
    }
    }
    in->goal = in->elapsed + in->intervals_left * t_goal;
}

struct stats { double median, p90, max; };   /* ms */
struct result {
    long n, outcome[NOUT], over;   /* over: decisions above the target, wall time */
    struct stats wall, cpu;
};

static double now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Sorts ms (n >= 1 values); p90 by the nearest rank. */
static struct stats stats_of(double *ms, long n)
{
    struct stats s;
    s.median = bench_median(ms, n);
    s.p90 = ms[(long)ceil(0.9 * (double)n) - 1];
    s.max = ms[n - 1];
    return s;
}

/* The decisions of a under one constraint. 0, or -1 after saying why on stderr. */
static int run(const struct args *a, enum xmpi_map_constraint constraint, double *ms, double *cpu,
               struct result *r)
{
    static struct decision d;
    int count[MAX_CLASSES];
    struct xmpi_amp_model model = {&d.m, m_comm, m_overhead};
    struct xmpi_amp_plan plan;
    uint64_t rs = a->seed ^ 0x5741524d55505ULL;   /* the warm-up's own stream */
    *r = (struct result){.n = a->decisions};
    for (long k = -1; k < a->decisions; k++) {
        if (k == 0) rs = a->seed;
        draw(&rs, (int)a->classes, k < 0 ? 1 : k, &d);
        d.in.constraint = constraint;
        plan.count = count;
        double c0 = now(CLOCK_THREAD_CPUTIME_ID), t0 = now(CLOCK_MONOTONIC);
        int rc = xmpi_policy_amp(&d.in, &model, &plan);
        double t1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_THREAD_CPUTIME_ID);
        if (rc) {
            fprintf(stderr, BENCH_NAME ": decision %ld (seed %" PRIu64 "): %s\n", k, a->seed, plan.why);
            return -1;
        }
        if (k < 0) continue;
        ms[k] = 1e3 * (t1 - t0);
        cpu[k] = 1e3 * (c1 - c0);
        r->over += ms[k] >= TARGET_MS;
        r->outcome[plan.unreachable ? O_UNREACH : plan.action == XMPIR_PLAN_SPAWN ? O_SPAWN
                   : plan.action == XMPIR_PLAN_REMOVE ? O_REMOVE : O_KEEP]++;
    }
    r->wall = stats_of(ms, a->decisions);
    r->cpu = stats_of(cpu, a->decisions);
    return 0;
}

int main(int argc, char **argv)
{
    struct args a;
    char err[512];
    if (parse_args(argc, argv, &a, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return EXIT_USAGE;
    }
    if (a.help) {
        usage(stdout);
        return 0;
    }
    double *ms = malloc(sizeof *ms * (size_t)a.decisions), *cpu = malloc(sizeof *cpu * (size_t)a.decisions);
    if (!ms || !cpu) {
        free(ms);
        free(cpu);
        fprintf(stderr, BENCH_NAME ": cannot allocate %ld timings\n", a.decisions);
        return EXIT_RUNTIME;
    }
    static const struct { enum which w; enum xmpi_map_constraint c; const char *name; } cons[] = {
        {C_EFFICIENCY, XMPIR_MAP_EFFICIENCY, "efficiency"}, {C_COST, XMPIR_MAP_COST, "cost"}};
    struct result res[2];
    printf("xmpi-ampdecide: %ld decisions per constraint, %ld classes, seed %" PRIu64
           "; milliseconds per xmpi_policy_amp call\n\n",
           a.decisions, a.classes, a.seed);
    printf("%50s| %-26s | %s\n", "", "  wall (CLOCK_MONOTONIC)", "  CPU (this thread)");
    printf("%-10s %9s %6s %6s %6s %7s | %8s %8s %8s | %8s %8s %8s\n", "constraint", "decisions",
           "keep", "spawn", "remove", "unreach", "median", "p90", "max", "median", "p90", "max");
    for (int c = 0; c < 2; c++) {
        if (!(a.which & cons[c].w)) continue;
        if (run(&a, cons[c].c, ms, cpu, &res[c])) {
            free(ms);
            free(cpu);
            return EXIT_RUNTIME;
        }
        const struct result *r = &res[c];
        printf("%-10s %9ld %6ld %6ld %6ld %7ld | %8.3f %8.3f %8.3f | %8.3f %8.3f %8.3f\n",
               cons[c].name, r->n, r->outcome[O_KEEP], r->outcome[O_SPAWN], r->outcome[O_REMOVE],
               r->outcome[O_UNREACH], r->wall.median, r->wall.p90, r->wall.max, r->cpu.median,
               r->cpu.p90, r->cpu.max);
        fflush(stdout);
    }
    printf("\n");
    char with[48] = "";
    if (a.classes != TARGET_CLASSES) snprintf(with, sizeof with, " (this run: %ld)", a.classes);
    for (int c = 0; c < 2; c++) {
        if (!(a.which & cons[c].w)) continue;
        printf("%-10s target < %g ms per decision for %d classes%s: %s (every decision: CPU "
               "time at most %.3f ms; wall time p90 %.3f ms, max %.3f ms, %ld of %ld at %g ms "
               "or more)\n",
               cons[c].name, TARGET_MS, TARGET_CLASSES, with,
               res[c].cpu.max < TARGET_MS ? "met" : "missed", res[c].cpu.max, res[c].wall.p90,
               res[c].wall.max, res[c].over, res[c].n, TARGET_MS);
    }
    free(ms);
    free(cpu);
    return 0;
}
