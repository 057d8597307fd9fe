/* The "timed:" line of the jacobi, cg and epidemic benchmarks: what happened inside the timed
 * region, so that bench-overhead can judge whether the two builds' clocks saw the same work and
 * the same machine: when each iteration ended, the main thread's CPU time, the page faults and
 * the preemptions. Include after example_util.h (BENCH_NAME, COMM, chomp). */
#ifndef BENCH_TIMED_H
#define BENCH_TIMED_H

#include <sys/resource.h>
#include <time.h>

#define TIMED_MAX_STAMPS (1L << 20)

struct timed {
    double *stamp; /* end of iteration k since t0; written once before the clock starts */
    long cap, n;
    double cpu0;
    struct rusage ru0;
};

static double thread_cpu(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Before the clock: the stamps' memory is touched here, not by the first iterations. Without
 * memory the line still comes, with first=, steady= and the quantiles 0. */
static void timed_prepare(struct timed *t, long iterations)
{
    *t = (struct timed){0};
    t->cap = iterations < TIMED_MAX_STAMPS ? iterations : TIMED_MAX_STAMPS;
    t->stamp = t->cap > 0 ? malloc((size_t)t->cap * sizeof *t->stamp) : NULL;
    if (!t->stamp) t->cap = 0;
    for (long k = 0; k < t->cap; k++) t->stamp[k] = 0.0;
}

/* Right after t0. */
static void timed_start(struct timed *t)
{
    getrusage(RUSAGE_SELF, &t->ru0);
    t->cpu0 = thread_cpu();
}

/* At the end of each iteration: seconds since t0. */
static inline void timed_stamp(struct timed *t, double since_t0)
{
    if (t->n < t->cap) t->stamp[t->n++] = since_t0;
}

static int timed_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* This rank's allowed CPUs as the kernel lists them ("0", "0-1"), or "?". */
static void timed_cpus(char *out, size_t len)
{
    snprintf(out, len, "?");
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
            char *v = line + 18;
            v += strspn(v, " \t");
            snprintf(out, len, "%s", chomp(v));
            break;
        }
    fclose(f);
}

/* The q-quantile of the sorted d[0..m) (nearest rank). */
static double timed_quantile(const double *d, long m, double q)
{
    long k = (long)(q * (double)(m - 1) + 0.5);
    return d[k < 0 ? 0 : k >= m ? m - 1 : k];
}

/* After the clock stopped at `wall` (this rank's timed seconds); collective over COMM. Rank 0
 * prints the timed: line: the first iteration; of the others the median (steady), the fastest
 * and the 10% and 90% quantiles (p10, p90), each the slowest rank's; the page faults,
 * involuntary context switches (preempted) and voluntary ones (waits: the process blocked) in
 * the timed region (the worst rank's), each rank's CPUs, and offcpu, the time the ranks' main
 * threads were off their CPU (wall minus thread CPU time: preempted by other programs, or
 * blocked), summed over the ranks: the ranks wait for each other every iteration, so each
 * rank's lost time delays them all. With `stamps` rank 0 also writes its iteration ends there. */
static void timed_report(struct timed *t, double wall, int rank, int nprocs, const char *stamps)
{
    FILE *sf = rank == 0 && stamps ? fopen(stamps, "w") : NULL;
    if (rank == 0 && stamps && !sf) fprintf(stderr, BENCH_NAME ": -T %s: %s\n", stamps, strerror(errno));
    for (long k = 0; sf && k < t->n; k++) fprintf(sf, "%.9f\n", t->stamp[k]);
    if (sf) fclose(sf);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = thread_cpu() - t->cpu0;
    double first = t->n > 0 ? t->stamp[0] : 0.0, steady = 0.0, fastest = 0.0, p10 = 0.0, p90 = 0.0;
    if (t->n > 1) {
        double *d = malloc((size_t)(t->n - 1) * sizeof *d);
        if (d) {
            for (long k = 1; k < t->n; k++) d[k - 1] = t->stamp[k] - t->stamp[k - 1];
            long m = t->n - 1;
            qsort(d, (size_t)m, sizeof *d, timed_cmp);
            steady = m % 2 ? d[m / 2] : 0.5 * (d[m / 2 - 1] + d[m / 2]);
            fastest = d[0];
            p10 = timed_quantile(d, m, 0.1);
            p90 = timed_quantile(d, m, 0.9);
            free(d);
        }
    }
    enum { NV = 9 };
    double mine[NV] = {first, steady, fastest, 0.0,
                       (double)(ru.ru_minflt - t->ru0.ru_minflt + ru.ru_majflt - t->ru0.ru_majflt),
                       (double)(ru.ru_nivcsw - t->ru0.ru_nivcsw), (double)(ru.ru_nvcsw - t->ru0.ru_nvcsw), p10, p90},
           worst[NV];
    MPI_Allreduce(mine, worst, NV, MPI_DOUBLE, MPI_MAX, COMM);
    double off = wall - cpu;
    MPI_Allreduce(&off, &worst[3], 1, MPI_DOUBLE, MPI_SUM, COMM);
    enum { CPUS_LEN = 32 };
    char cpus[CPUS_LEN];
    timed_cpus(cpus, sizeof cpus);
    char *all = rank == 0 ? malloc((size_t)nprocs * CPUS_LEN) : NULL;
    MPI_Gather(cpus, CPUS_LEN, MPI_CHAR, all, CPUS_LEN, MPI_CHAR, 0, COMM);
    if (rank == 0) {
        char list[256] = "?";
        for (int r = 0, used = 0; all && r < nprocs && used < (int)sizeof list - CPUS_LEN - 4; r++)
            used += snprintf(list + used, sizeof list - (size_t)used, "%s%s", r ? "/" : "",
                             all + (size_t)r * CPUS_LEN);
        printf("timed: iterations=%ld first=%.6f steady=%.6f fastest=%.6f p10=%.6f p90=%.6f offcpu=%.6f "
               "faults=%.0f preempted=%.0f waits=%.0f cpus=%s\n",
               t->n, worst[0], worst[1], worst[2], worst[7], worst[8], worst[3], worst[4], worst[5], worst[6],
               list);
        fflush(stdout);
    }
    free(all);
    free(t->stamp);
    t->stamp = NULL;
}

#endif
