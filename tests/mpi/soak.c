/* Soak test (make soak, not make check): CYCLES grow/shrink cycles of XMPI_COMM_WORLD.
 * Cycle c grows the world by k (k = 1 for odd c, 2 for even c) with XMPI_Spawn, checks it
 * with collectives, shrinks it by k with XMPI_Remove (the most recently spawned processes
 * leave, i.e. exactly the ones of this cycle) and checks it again.
 * The same binary runs as parent and child: spawned processes get "--joined C --cycles N
 * --n0 N0", enter the parents' sequence right after the spawn of cycle C and take part in
 * every collective until XMPI_Get_process_status() == XMPI_REMOVED; then they call
 * MPI_Finalize and exit 0.
 * Rank 0 prints a progress line every 10 cycles and a summary, and checks that its number of
 * open file descriptors after the warm-up (cycle 5) equals the number after the last cycle
 * (exit 1 if not); the growth of its VmRSS over the same span is only reported.
 * With --policy the cycles are a policy's instead (make soak's asynchronous phase): the
 * program registers a distributed vector, checks every iteration that each process holds its
 * own rows' values, and calls XMPI_Eval_reconfig; --xmpi-policy=smp with the schedule that
 * soak.sh writes grows and shrinks the job (by asynchronous spawns unless
 * --xmpi-spawn-async=off). A cycle is a return to the initial size; rank 0 counts them, and
 * checks its file descriptors as above.
 * usage: soak [CYCLES] [--policy] [--xmpi-spawn=single|group] [other --xmpi- options]
 * The local resource pool has as many PEs as cores, so the program asks for
 * --xmpi-oversubscribe by default (XMPI_OVERSUBSCRIBE in the environment overrides it). */
#define _XOPEN_SOURCE 700   /* realpath */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "xmpi.h"

#define WARMUP 5
#define REPORT_EVERY 10

static const char *self;   /* absolute path of this program, spawned as the children */
static int joined;         /* cycle whose spawn started this process (0: started by mpirun) */
static int cycles = 50;
static int n0;             /* processes started by mpirun */
static int policy;         /* --policy: the cycles come from --xmpi-policy */

static int grow_by(int c)
{
    return c % 2 ? 1 : 2;
}

/* Every member must agree; on disagreement rank 0 says what failed and the job stops (a
 * world that is not what the program thinks it is would hang the next collective). */
static void agree(int ok, int c, const char *what)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    if (all) return;
    int rank;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("soak: FAIL at cycle %d: %s\n", c, what);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* The others wait for rank 0's abort. */
    MPI_Barrier(XMPI_COMM_WORLD);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The world has n processes; everyone is in cycle c; ranks below n0 are the initial
 * processes, the others joined in cycle c; the Allreduce of the ranks is n(n-1)/2. */
static void check_world(int n, int c, const char *when)
{
    char what[200];
    int rank, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    int mine[3] = {size == n && (rank < n0 ? joined == 0 : joined == c), c, -c}, all[3];
    MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: XMPI_COMM_WORLD should have %d processes, all in cycle %d, "
             "in joining order", when, n, c);
    agree(all[0] && all[1] == c && -all[2] == c, c, what);

    long r = rank, sum = -1;
    MPI_Allreduce(&r, &sum, 1, MPI_LONG, MPI_SUM, XMPI_COMM_WORLD);
    snprintf(what, sizeof what, "%s: Allreduce of ranks is %ld, expected %d", when, sum,
             n * (n - 1) / 2);
    agree(sum == (long)n * (n - 1) / 2, c, what);
}

/* ---- leak probes (rank 0) ---------------------------------------------------------- */

/* Open file descriptors, counted from /proc/self/fd (the directory's own fd included, the
 * same at every count). With `list`, their targets are written there, one per line. */
static int count_fds(char *list, size_t len)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    size_t used = 0;
    if (list && len) list[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        n++;
        if (!list) continue;
        char path[300], target[PATH_MAX];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t t = readlink(path, target, sizeof target - 1);
        target[t > 0 ? t : 0] = '\0';
        int w = snprintf(list + used, len - used, "%s %s\n", e->d_name, target);
        if (w > 0 && (size_t)w < len - used) used += (size_t)w;
    }
    closedir(d);
    return n;
}

/* Descriptors of processes that just left (TCP connections of Open MPI's BTL to them) close
 * only once this process drives MPI progress and sees the other end gone: poll with
 * MPI_Iprobe until the count has not changed for 1 s (at most 10 s), then count. */
static int settled_fds(char *list, size_t len)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    int n = count_fds(NULL, 0), flag;
    double t0 = MPI_Wtime(), since = t0;
    while (MPI_Wtime() - since < 1.0 && MPI_Wtime() - t0 < 10.0) {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, XMPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        nanosleep(&tick, NULL);
        int m = count_fds(NULL, 0);
        if (m != n) {
            n = m;
            since = MPI_Wtime();
        }
    }
    return count_fds(list, len);
}

/* VmRSS in kB, or -1. */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    fclose(f);
    return kb;
}

/* Lines of `a` that are not in `b`, indented, to stdout. */
static void print_missing(const char *a, const char *b, const char *label)
{
    char line[PATH_MAX + 32];
    for (const char *p = a; *p; ) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l < sizeof line - 1) {
            memcpy(line, p, l);
            line[l] = '\n';
            line[l + 1] = '\0';
            if (!strstr(b, line)) printf("soak:   %s fd %.*s\n", label, (int)l, p);
        }
        p += l + (nl ? 1 : 0);
    }
}

/* ---- --policy: the cycles of a malleability policy ---------------------------------- */

static void policy_fds(int c, int warm_cycle, char *fds_warm, char *fds_end, int *nfd_warm,
                       int *nfd_end, long *rss_warm, long *rss_end, double t_start)
{
    int report = c % REPORT_EVERY == 0 || c == cycles;
    if (c != warm_cycle && c != cycles && !report) return;
    char *list = c == cycles ? fds_end : c == warm_cycle ? fds_warm : NULL;
    int nfd = settled_fds(list, list ? (size_t)(1 << 16) : 0);
    long rss = rss_kb();
    if (c == warm_cycle) *nfd_warm = nfd, *rss_warm = rss;
    if (c == cycles) *nfd_end = nfd, *rss_end = rss;
    if (report) {
        printf("soak: cycle %3d/%d: %.1f s since the start, rank 0: %d open fds, VmRSS %ld kB\n",
               c, cycles, MPI_Wtime() - t_start, nfd, rss);
        fflush(stdout);
    }
}

static int policy_soak(void)
{
    enum { N = 1200 };
    int rank, size, count, displ, it = 0;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    XMPI_Get_wsize(rank, size, N, &count, &displ);
    double *v = NULL;
    int status = XMPI_Get_process_status(), initial_size = size;
    if (status == XMPI_RUNNING) {
        v = malloc(sizeof *v * (size_t)(count > 0 ? count : 1));
        for (int i = 0; v && i < count; i++) v[i] = displ + i;
        agree(v != NULL, 0, "out of memory");
    }
    XMPI_Register_vector(&v, N, MPI_DOUBLE, XMPI_DISTRIBUTED);
    if (status == XMPI_NEWLY_SPAWNED) {
        XMPI_Get_data(&it);
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        XMPI_Get_wsize(rank, size, N, &count, &displ);
    } else if (rank == 0) {
        char mode[32] = "?", async[8] = "?";
        XMPI_Get_option("spawn", mode, sizeof mode);
        XMPI_Get_option("spawn-async", async, sizeof async);
        printf("soak: %d cycles of --xmpi-policy, %d initial processes, --xmpi-spawn=%s, "
               "--xmpi-spawn-async=%s\n", cycles, size, mode, async);
        fflush(stdout);
    }
    static char fds_warm[1 << 16], fds_end[1 << 16];
    /* Rank 0 is one of mpirun's processes: its first size is the initial one. */
    int nfd_warm = -1, nfd_end = -1, done = 0, grown = 0, initial = initial_size;
    long rss_warm = -1, rss_end = -1;
    int warm_cycle = cycles < WARMUP ? cycles : WARMUP;
    double t_start = MPI_Wtime();
    struct timespec tick = {0, 2 * 1000 * 1000};
    char what[160];
    int eval_ok = 1;
    for (;; it++) {
        /* Rank 0's verdict at the top of the iteration, where a process that just joined
         * (XMPI_Get_data returns the iteration to start) takes part too. */
        int stop = done >= cycles;
        MPI_Bcast(&stop, 1, MPI_INT, 0, XMPI_COMM_WORLD);
        snprintf(what, sizeof what, "XMPI_Eval_reconfig at iteration %d failed", it - 1);
        agree(eval_ok, done, what);
        if (stop) break;
        XMPI_Monitor_si_init();   /* the iterations are what the sampling interval counts */
        int ok = 1;
        for (int i = 0; i < count; i++) ok &= v[i] == (double)(displ + i);
        snprintf(what, sizeof what, "iteration %d: a process's rows hold other values", it);
        agree(ok, done, what);
        nanosleep(&tick, NULL);
        int rc = XMPI_Eval_reconfig(rank, size, it, 0, &count, &displ, NULL, NULL, NULL);
        if (XMPI_Get_process_status() == XMPI_REMOVED) {
            free(v);
            MPI_Finalize();
            return 0;
        }
        /* Checked at the top of the next iteration: a process that joined in this call
         * starts there. */
        eval_ok = rc == XMPI_SUCCESS;
        if (!eval_ok) fprintf(stderr, "soak: XMPI_Eval_reconfig: %s\n", XMPI_Error_string(rc));
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        MPI_Comm_size(XMPI_COMM_WORLD, &size);
        if (rank == 0) {
            if (size > initial) grown = 1;
            if (grown && size == initial) {
                grown = 0;
                done++;
                policy_fds(done, warm_cycle, fds_warm, fds_end, &nfd_warm, &nfd_end, &rss_warm,
                           &rss_end, t_start);
            }
        }
    }
    int fail = 0;
    if (rank == 0) {
        printf("soak: summary: %d cycles of --xmpi-policy in %.1f s (%d iterations); rank 0 open "
               "fds after cycle %d: %d, after cycle %d: %d (%s); VmRSS %ld kB -> %ld kB\n",
               cycles, MPI_Wtime() - t_start, it, warm_cycle, nfd_warm, cycles, nfd_end,
               nfd_warm == nfd_end ? "same" : "DIFFERENT", rss_warm, rss_end);
        if (nfd_warm != nfd_end || nfd_warm < 0) {
            fail = 1;
            printf("soak: FAIL: rank 0 leaks file descriptors\n");
            print_missing(fds_end, fds_warm, "new:");
            print_missing(fds_warm, fds_end, "gone:");
        }
        fflush(stdout);
    }
    free(v);
    MPI_Finalize();
    return fail;
}

/* ----------------------------------------------------------------------------------- */

static char arg_joined[16], arg_cycles[16], arg_n0[16];
static char *child_argv[] = {"--joined", arg_joined, "--cycles", arg_cycles, "--n0", arg_n0, NULL};

static int spawn(int k, int c)
{
    snprintf(arg_joined, sizeof arg_joined, "%d", c);
    snprintf(arg_cycles, sizeof arg_cycles, "%d", cycles);
    snprintf(arg_n0, sizeof arg_n0, "%d", n0);
    return XMPI_Spawn(self, child_argv, k, MPI_INFO_NULL, NULL);
}

int main(int argc, char **argv)
{
    /* The local pool has one PE per core, already taken by the initial processes. */
    setenv("XMPI_OVERSUBSCRIBE", "1", 0);
    MPI_Init(&argc, &argv);

    static char exe[PATH_MAX];
    self = realpath(argv[0], exe) ? exe : argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--joined") && i + 1 < argc) joined = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cycles") && i + 1 < argc) cycles = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--n0") && i + 1 < argc) n0 = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--policy")) policy = 1;
        else if (argv[i][0] != '-') cycles = atoi(argv[i]);
        else {
            fprintf(stderr, "soak: unknown argument '%s'\n"
                    "usage: soak [CYCLES] [--policy] [--xmpi-OPTION...]\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (cycles < 1) {
        fprintf(stderr, "soak: CYCLES must be at least 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    if (policy) return policy_soak();
    int rank;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    char mode[32] = "?";
    XMPI_Get_option("spawn", mode, sizeof mode);
    if (joined == 0) {
        MPI_Comm_size(XMPI_COMM_WORLD, &n0);
        if (rank == 0) {
            printf("soak: %d cycles, %d initial processes, --xmpi-spawn=%s, grow by 1 and 2 "
                   "alternately\n", cycles, n0, mode);
            fflush(stdout);
        }
        agree(XMPI_Get_process_status() == XMPI_RUNNING, 0, "initial processes are XMPI_RUNNING");
    }

    static char fds_warm[1 << 16], fds_end[1 << 16];
    int nfd_warm = -1, nfd_end = -1;
    long rss_warm = -1, rss_end = -1;
    double t_start = MPI_Wtime(), busy = 0, busy_block = 0;
    double dt_min = 1e30, dt_max = 0;
    int warm_cycle = cycles < WARMUP ? cycles : WARMUP;

    /* A child starts inside the cycle that spawned it, right after the spawn. */
    for (int c = joined > 0 ? joined : 1; c <= cycles; c++) {
        int k = grow_by(c);
        int joining = c == joined;
        double t0 = MPI_Wtime();
        char what[128];

        /* Pairs the children's first collective with the parents' check of XMPI_Spawn. */
        int rc = joining ? XMPI_SUCCESS : spawn(k, c);
        snprintf(what, sizeof what, "XMPI_Spawn of %d process(es) (%s)", k,
                 rc ? XMPI_Error_string(rc) : "ok");
        agree(rc == XMPI_SUCCESS, c, what);
        if (joining)
            agree(XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED, c,
                  "spawned processes start XMPI_NEWLY_SPAWNED");
        else
            agree(1, c, "");
        check_world(n0 + k, c, "after growing");

        rc = XMPI_Remove(k, NULL);
        if (XMPI_Get_process_status() == XMPI_REMOVED) {
            if (XMPI_COMM_WORLD != MPI_COMM_NULL || rc != XMPI_SUCCESS || joined != c) {
                fprintf(stderr, "soak: cycle %d: removed process (joined in cycle %d) has "
                        "rc %d and %s XMPI_COMM_WORLD\n", c, joined, rc,
                        XMPI_COMM_WORLD == MPI_COMM_NULL ? "no" : "still a");
                MPI_Finalize();
                return 1;
            }
            MPI_Finalize();
            return 0;
        }
        snprintf(what, sizeof what, "XMPI_Remove of %d process(es) (%s)", k,
                 rc ? XMPI_Error_string(rc) : "ok");
        agree(rc == XMPI_SUCCESS, c, what);
        check_world(n0, c, "after shrinking");

        if (rank != 0) continue;
        /* Cycle times leave out the probes' own time (the fd settling takes >= 1 s). */
        double t1 = MPI_Wtime();
        busy += t1 - t0;
        if (t1 - t0 < dt_min) dt_min = t1 - t0;
        if (t1 - t0 > dt_max) dt_max = t1 - t0;
        int report = c % REPORT_EVERY == 0 || c == cycles;
        if (c != warm_cycle && c != cycles && !report) continue;
        char *list = c == cycles ? fds_end : c == warm_cycle ? fds_warm : NULL;
        int nfd = settled_fds(list, list ? sizeof fds_end : 0);
        long rss = rss_kb();
        if (c == warm_cycle) {
            nfd_warm = nfd;
            rss_warm = rss;
        }
        if (c == cycles) {
            nfd_end = nfd;
            rss_end = rss;
        }
        if (report) {
            int size, first = (c - 1) / REPORT_EVERY * REPORT_EVERY + 1;
            MPI_Comm_size(XMPI_COMM_WORLD, &size);
            printf("soak: cycle %3d/%d: world %d, %.3f s/cycle (cycles %d-%d), rank 0: %d open "
                   "fds, VmRSS %ld kB\n", c, cycles, size, (busy - busy_block) / (c - first + 1),
                   first, c, nfd, rss);
            fflush(stdout);
            busy_block = busy;
        }
    }

    /* Only the initial processes get here (children leave in their own cycle). */
    int fail = 0;
    if (joined != 0) {
        fprintf(stderr, "soak: a process spawned in cycle %d was never removed\n", joined);
        fail = 1;
    }
    if (rank == 0) {
        double t_end = MPI_Wtime();
        printf("soak: summary: %d cycles (--xmpi-spawn=%s) in %.1f s: %.3f s/cycle on average "
               "(min %.3f, max %.3f); rank 0 open fds after cycle %d: %d, after cycle %d: %d "
               "(%s); VmRSS %ld kB -> %ld kB (%+ld kB, %+.1f kB/cycle over %d cycles)\n",
               cycles, mode, t_end - t_start, busy / cycles, dt_min, dt_max,
               warm_cycle, nfd_warm, cycles, nfd_end, nfd_warm == nfd_end ? "same" : "DIFFERENT",
               rss_warm, rss_end, rss_end - rss_warm,
               cycles > warm_cycle ? (double)(rss_end - rss_warm) / (cycles - warm_cycle) : 0.0,
               cycles - warm_cycle);
        if (nfd_warm != nfd_end || nfd_warm < 0) {
            fail = 1;
            printf("soak: FAIL: rank 0 leaks file descriptors (%d after cycle %d, %d after cycle "
                   "%d)\n", nfd_warm, warm_cycle, nfd_end, cycles);
            print_missing(fds_end, fds_warm, "new:");
            print_missing(fds_warm, fds_end, "gone:");
        }
        fflush(stdout);
    }
    MPI_Finalize();
    return fail;
}
