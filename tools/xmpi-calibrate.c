/* bin/xmpi-calibrate: measures the prediction model's parameters on this machine (alpha and beta
 * by an MPI ping-pong, gamma by MPI_Reduce_local, spawn/remove costs) and writes a calibration file. */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

#include "xmpi.h"
#define BENCH_NAME "xmpi-calibrate"
#include "cli.h"
#include "median.h"
#include "../io/calibration.h"

enum { MAX_SIZES = 40, MAX_REPS = 1000, MAX_CYCLES = 50, TAG = 77 };
#define MAX_BYTES_LIMIT (1L << 30)
#define DEFAULT_MAX_BYTES (16L << 20)
/* One sample is a batch of round trips lasting about this long, so that the clock's resolution
 * and the cost of reading it vanish from the small sizes. */
#define SAMPLE_SECONDS 1e-3
#define GAMMA_DOUBLES (2L << 20)   /* 16 MiB in, 16 MiB in-out: out of cache, as redistributions are */

struct args {
    const char *out;
    long reps;
    long max_bytes;
    const char *spawn_file;
    long spawn;   /* spawn/remove cycles; 0: not asked */
    int help;
    int link_child;   /* internal: a process spawned to measure the spawned link */
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np 2 xmpi-calibrate [-o FILE] [-r REPS] [-m MAXBYTES]\n"
            "                                   [--spawn-file FILE | --spawn[=CYCLES] --xmpi-oversubscribe]\n"
            "  Measures the prediction model's parameters between the 2 processes and writes them to\n"
            "  FILE (default xmpi-calibration.txt) in the format of --xmpi-calibration:\n"
            "    alpha, beta  MPI_Send/MPI_Recv ping-pong over 0 B and 1 B .. MAXBYTES in powers of 2\n"
            "                 (default 16 MiB), REPS samples per size (default 15, the median is kept),\n"
            "                 then a least-squares fit of t = alpha + n * beta weighted by 1/t^2\n"
            "    gamma        MPI_Reduce_local(MPI_SUM) over 2 Mi doubles, per byte\n"
            "    copy         memcpy into a freshly allocated 64 MiB buffer, per byte, page\n"
            "                 faults included (a redistribution fills new buffers)\n"
            "    copy_contention\n"
            "                 the same on ranks 0 and 1 at once: the slower one's time over\n"
            "                 copy, less 1 (page faults that contend; the model adds it per\n"
            "                 other process filling at the same time)\n"
            "    touch        rank 1's first read (one byte per page) of a fresh 16 MiB buffer that\n"
            "                 an MPI_Recv from rank 0 filled, per byte, median of up to 7 (under\n"
            "                 shadow paging the pages the kernel wrote fault again; a\n"
            "                 redistribution reads what it received the same way)\n"
            "    spawn_single, spawn_group, remove, remove_procs\n"
            "                 --spawn-file FILE: taken from FILE (xmpi-spawnbench's output, or any\n"
            "                 calibration file); --spawn: XMPI_Spawn and XMPI_Remove of 1 process,\n"
            "                 CYCLES times (default 3, median), giving spawn_single and remove; the\n"
            "                 others keep their defaults, which the summary marks. remove_procs\n"
            "                 is the job's size before that removal (the processes started plus\n"
            "                 the one spawned): the model prices a removal by the job's size.\n"
            "    alpha_spawned, beta_spawned\n"
            "                 with --spawn: one more process is spawned and the ping-pong runs\n"
            "                 between rank 0 and it (up to 4 MiB): the link between processes of\n"
            "                 different spawns, which Open MPI 4.1 joins over TCP even on one host\n"
            "  -h prints this help. Bad options exit with status 2.\n");
}

static int parse_args(int argc, char **argv, struct args *a, char *err, size_t len)
{
    *a = (struct args){.out = "xmpi-calibration.txt", .reps = 15, .max_bytes = DEFAULT_MAX_BYTES};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            a->help = 1;
        } else if (!strcmp(o, "-o")) {
            if (!(v = option_value(argc, argv, &i, o)) || !*v)
                return refuse_value(err, len, "-o", v, "a file name");
            a->out = v;
        } else if (!strcmp(o, "-r")) {
            if (!(v = option_value(argc, argv, &i, o)) || parse_long(v, 1, MAX_REPS, &a->reps))
                return refuse_value(err, len, "-r", v, "a number of samples per size from 1 to 1000");
        } else if (!strcmp(o, "-m")) {
            if (!(v = option_value(argc, argv, &i, o)) ||
                parse_long(v, 1, MAX_BYTES_LIMIT, &a->max_bytes))
                return refuse_value(err, len, "-m", v,
                                    "the largest message in bytes, from 1 to 1073741824");
        } else if (!strcmp(o, "--spawn-file") || !strncmp(o, "--spawn-file=", 13)) {
            if (!(v = option_value(argc, argv, &i, "--spawn-file")) || !*v)
                return refuse_value(err, len, "--spawn-file", v,
                                    "a calibration file, e.g. xmpi-spawnbench's output");
            a->spawn_file = v;
        } else if (!strcmp(o, "--link-child")) {
            a->link_child = 1;
        } else if (!strcmp(o, "--spawn")) {
            a->spawn = 3;
        } else if (!strncmp(o, "--spawn=", 8)) {
            if (parse_long(o + 8, 1, MAX_CYCLES, &a->spawn))
                return refuse_value(err, len, "--spawn", o + 8,
                                    "no value, or a number of spawn/remove cycles from 1 to 50");
        } else {
            snprintf(err, len,
                     "xmpi-calibrate: unknown option '%.64s'; accepted: -o FILE, -r REPS, "
                     "-m MAXBYTES, --spawn-file FILE, --spawn[=CYCLES], -h",
                     o);
            return -1;
        }
    }
    if (a->spawn && a->spawn_file) {
        snprintf(err, len,
                 "xmpi-calibrate: option --spawn-file: not accepted together with --spawn; "
                 "expected one source of the spawn and remove costs");
        return -1;
    }
    return 0;
}

/* `m` round trips of n bytes between rank 0 and `peer`, bypassing the library's profiling
 * wrappers (PMPI_), so that what is measured is MPI's own cost. Seconds on rank 0; the other
 * ranks do nothing. */
static double round_trips(int rank, int peer, char *buf, int n, long m)
{
    double t0 = MPI_Wtime();
    for (long i = 0; i < m && (rank == 0 || rank == peer); i++) {
        if (rank == 0) {
            PMPI_Send(buf, n, MPI_BYTE, peer, TAG, XMPI_COMM_WORLD);
            PMPI_Recv(buf, n, MPI_BYTE, peer, TAG, XMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, n, MPI_BYTE, 0, TAG, XMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(buf, n, MPI_BYTE, 0, TAG, XMPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

struct pingpong {
    int nsizes;
    long bytes[MAX_SIZES];
    double t[MAX_SIZES];     /* median one-way time, seconds (rank 0) */
    double fit[MAX_SIZES];
    double alpha, beta;
    double rms, worst;       /* relative residuals of the fit */
    int worst_at;
    const char *how;         /* NULL: the fit; else why another estimate was used */
};

/* A barrier that sleeps while it waits: a process busy-polling beside the two that measure
 * would take a core from them on a small machine. */
static void sleepy_barrier(void)
{
    MPI_Request rq;
    int done = 0;
    PMPI_Ibarrier(XMPI_COMM_WORLD, &rq);
    while (PMPI_Test(&rq, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&(struct timespec){0, 1000000L}, NULL);
}

/* Collective over XMPI_COMM_WORLD; the ping-pong runs between rank 0 and `peer` while the
 * others sleep. */
static void ping_pong(int rank, int peer, const struct args *a, struct pingpong *p)
{
    if (rank != 0 && rank != peer) {
        sleepy_barrier();
        return;
    }
    char *buf = malloc((size_t)a->max_bytes);
    if (!buf) {
        fprintf(stderr, "xmpi-calibrate: rank %d: cannot allocate %ld bytes\n", rank, a->max_bytes);
        PMPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
    }
    memset(buf, rank + 1, (size_t)a->max_bytes);
    p->nsizes = 0;
    p->bytes[p->nsizes++] = 0;
    for (long n = 1; n <= a->max_bytes && p->nsizes < MAX_SIZES; n *= 2) p->bytes[p->nsizes++] = n;
    if (p->bytes[p->nsizes - 1] != a->max_bytes && p->nsizes < MAX_SIZES)
        p->bytes[p->nsizes++] = a->max_bytes;

    double samples[MAX_REPS];
    for (int s = 0; s < p->nsizes; s++) {
        int n = (int)p->bytes[s];
        round_trips(rank, peer, buf, n, 2);   /* warm-up: connection, buffers, protocol switch */
        long m = 0;
        if (rank == 0) {
            double pilot = round_trips(rank, peer, buf, n, 4) / 4;
            double want = SAMPLE_SECONDS / (pilot > 0 ? pilot : 1e-9);
            m = want < 1 ? 1 : want > 100000 ? 100000 : (long)ceil(want);
        } else {
            round_trips(rank, peer, buf, n, 4);
        }
        if (rank == 0) PMPI_Send(&m, 1, MPI_LONG, peer, TAG, XMPI_COMM_WORLD);
        else PMPI_Recv(&m, 1, MPI_LONG, 0, TAG, XMPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long r = 0; r < a->reps; r++) samples[r] = round_trips(rank, peer, buf, n, m) / (2.0 * m);
        p->t[s] = bench_median(samples, (int)a->reps);
    }
    free(buf);
    sleepy_barrier();

    /* Weighted by 1/t^2, i.e. relative errors: unweighted, the milliseconds of the largest
     * messages would decide alpha, which is a microsecond, and could make it negative. */
    double S = 0, Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
    for (int s = 0; s < p->nsizes; s++) {
        double w = 1 / (p->t[s] * p->t[s]), x = (double)p->bytes[s], y = p->t[s];
        S += w, Sx += w * x, Sy += w * y, Sxx += w * x * x, Sxy += w * x * y;
    }
    double D = S * Sxx - Sx * Sx;
    p->beta = D > 0 ? (S * Sxy - Sx * Sy) / D : 0;
    p->alpha = (Sy - p->beta * Sx) / S;
    p->how = NULL;
    if (!(p->alpha > 0 && p->beta > 0 && isfinite(p->alpha) && isfinite(p->beta))) {
        /* Only a machine far from the model gets here: fall back on the two ends. */
        int last = p->nsizes - 1;
        p->alpha = p->t[0];
        p->beta = (p->t[last] - p->t[0]) / (double)p->bytes[last];
        p->how = "the fit was not positive; alpha is the 0-byte time, beta the slope to the largest size";
        if (!(p->beta > 0)) p->beta = XMPIR_CAL_DEFAULT_BETA;
    }
    double sq = 0;
    p->worst = 0;
    p->worst_at = 0;
    for (int s = 0; s < p->nsizes; s++) {
        p->fit[s] = p->alpha + p->beta * (double)p->bytes[s];
        double r = (p->t[s] - p->fit[s]) / p->t[s];
        sq += r * r;
        if (fabs(r) > fabs(p->worst)) p->worst = r, p->worst_at = s;
    }
    p->rms = sqrt(sq / p->nsizes);
}

/* Seconds per byte of MPI_Reduce_local(MPI_SUM) on doubles, on rank 0 (the other waits). */
static double measure_gamma(int rank, long reps, double *median_s)
{
    double g = 0;
    if (rank == 0) {
        double *in = malloc(GAMMA_DOUBLES * sizeof *in), *io = malloc(GAMMA_DOUBLES * sizeof *io);
        if (!in || !io) {
            fprintf(stderr, "xmpi-calibrate: cannot allocate the reduction buffers\n");
            PMPI_Abort(MPI_COMM_WORLD, EXIT_RUNTIME);
        }
        for (long i = 0; i < GAMMA_DOUBLES; i++) in[i] = 1.0 / (double)(i + 1), io[i] = 1.0;
        PMPI_Reduce_local(in, io, (int)GAMMA_DOUBLES, MPI_DOUBLE, MPI_SUM);   /* warm-up */
        double samples[MAX_REPS];
        for (long r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            PMPI_Reduce_local(in, io, (int)GAMMA_DOUBLES, MPI_DOUBLE, MPI_SUM);
            samples[r] = MPI_Wtime() - t0;
        }
        *median_s = bench_median(samples, (int)reps);
        g = *median_s / (double)(GAMMA_DOUBLES * sizeof(double));
        free(in);
        free(io);
    }
    PMPI_Barrier(XMPI_COMM_WORLD);
    return g;
}

/* An allgather and a barrier over XMPI_COMM_WORLD: every pair of processes has exchanged a
 * message afterwards. */
static void touch_all_pairs(void)
{
    int me = 0, size = 1;
    MPI_Comm_rank(XMPI_COMM_WORLD, &me);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    int *all = malloc(sizeof *all * (size_t)size);
    if (all) {
        /* Point to point to each, not a collective whose algorithm may skip pairs. */
        for (int r = 0; r < size; r++) {
            if (r == me) continue;
            PMPI_Sendrecv(&me, 1, MPI_INT, r, TAG, &all[r], 1, MPI_INT, r, TAG, XMPI_COMM_WORLD,
                          MPI_STATUS_IGNORE);
        }
        free(all);
    }
    PMPI_Barrier(XMPI_COMM_WORLD);
}

/* Filling freshly allocated memory (memcpy into a new 64 MiB buffer, page faults included),
 * as a redistribution fills its new buffers. Large blocks come from mmap and go back with
 * free, so every sample gets fresh pages. */
#define COPY_BYTES (64L << 20)

/* One fill; seconds, or -1 without the memory. */
static double copy_once(const char *src)
{
    double t0 = MPI_Wtime();
    char *dst = malloc(COPY_BYTES);
    if (!dst) return -1;
    memcpy(dst, src, COPY_BYTES);
    double t = MPI_Wtime() - t0;
    /* Read one byte so that the copy cannot be optimized away. */
    if (dst[COPY_BYTES - 1] != 1) fprintf(stderr, "xmpi-calibrate: copy check failed\n");
    free(dst);
    return t;
}

/* Each rep, rank 0 fills alone, then ranks 0 and 1 at once (the slower one counts), one right
 * after the other so that both see the same machine: *alone is rank 0's median time per byte,
 * *ratio the median over the reps of (two at once / alone). 0 on ranks other than 0, and where
 * a process had not the memory (with one process only *alone is measured). */
static void measure_copy(int rank, int size, long reps, double *alone, double *ratio)
{
    *alone = *ratio = 0;
    int in = rank < 2, pair = size > 1;
    char *src = in ? malloc(COPY_BYTES) : NULL;
    int ok = !in || src != NULL, all = 0;
    if (src) memset(src, 1, COPY_BYTES);
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    double one[MAX_REPS], rat[MAX_REPS];
    long n = 0;
    for (long r = 0; all && r < reps; r++) {
        PMPI_Barrier(XMPI_COMM_WORLD);
        double t1 = rank == 0 ? copy_once(src) : 0, hi = 0;
        PMPI_Bcast(&t1, 1, MPI_DOUBLE, 0, XMPI_COMM_WORLD);
        if (t1 < 0) break;
        if (pair) {
            PMPI_Barrier(XMPI_COMM_WORLD);
            double t = in ? copy_once(src) : 0, lo = in ? t : 1;
            PMPI_Allreduce(&t, &hi, 1, MPI_DOUBLE, MPI_MAX, XMPI_COMM_WORLD);
            PMPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, XMPI_COMM_WORLD);
            if (lo < 0) break;   /* the same on every process */
        }
        one[n] = t1;
        rat[n++] = pair && t1 > 0 ? hi / t1 : 0;
    }
    free(src);
    if (rank != 0 || !n) return;
    *alone = bench_median(one, (int)n) / (double)COPY_BYTES;
    if (pair) *ratio = bench_median(rat, (int)n);
}

/* The first read of memory an MPI receive filled, as every process reads what a
 * redistribution brought it (libxmpi/registry.c reads one byte per page right after the
 * receive): rank 0 sends TOUCH_BYTES to rank 1, which receives them into a fresh buffer and
 * times one read of a byte per page. Under shadow paging (the project's VMs) the pages the
 * kernel wrote fault again at the process's first access; elsewhere the read costs next to
 * nothing. *touch: the median per byte on rank 0, -1 where not measured. */
#define TOUCH_BYTES (16L << 20)
#define TOUCH_REPS 7

static void measure_touch(int rank, int size, long reps, double *touch)
{
    *touch = -1;
    if (size < 2) return;
    if (reps > TOUCH_REPS) reps = TOUCH_REPS;
    char *src = rank == 0 ? malloc(TOUCH_BYTES) : NULL;
    int ok = rank != 0 || src, all = 0;
    if (src) memset(src, 1, TOUCH_BYTES);
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, XMPI_COMM_WORLD);
    double t[MAX_REPS];
    long n = 0;
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    for (long r = 0; all && r < reps; r++) {
        /* Mapped for each rep: malloc would hand back the last rep's pages, which the process
         * has read already. Rank 1 says whether it has the memory before anything is sent. */
        char *dst = NULL;
        int mapped = 1;
        if (rank == 1) {
            dst = mmap(NULL, TOUCH_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (dst == MAP_FAILED) dst = NULL;
            mapped = dst != NULL;
        }
        PMPI_Bcast(&mapped, 1, MPI_INT, 1, XMPI_COMM_WORLD);
        if (!mapped) break;   /* the same on every process */
        double took = 0;
        if (rank == 0) {
            PMPI_Send(src, (int)TOUCH_BYTES, MPI_CHAR, 1, 0, XMPI_COMM_WORLD);
        } else if (rank == 1) {
            PMPI_Recv(dst, (int)TOUCH_BYTES, MPI_CHAR, 0, 0, XMPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            const volatile char *c = dst;
            long sum = 0;
            for (long i = 0; i < TOUCH_BYTES; i += page) sum += c[i];
            took = MPI_Wtime() - t0;
            if (sum != TOUCH_BYTES / page) fprintf(stderr, "xmpi-calibrate: touch check failed\n");
            munmap(dst, TOUCH_BYTES);
        }
        PMPI_Bcast(&took, 1, MPI_DOUBLE, 1, XMPI_COMM_WORLD);
        t[n++] = took;
    }
    free(src);
    if (rank == 0 && n) *touch = bench_median(t, (int)n) / (double)TOUCH_BYTES;
}

/* XMPI_Spawn and XMPI_Remove of one process (this program), `cycles` times. 0, or -1 when a
 * spawn failed (rank 0 said why; nothing is left running). */
static int measure_spawn(int rank, const char *self, long cycles, double *spawn, double *remove)
{
    double sp[MAX_CYCLES], rm[MAX_CYCLES];
    for (long c = 0; c < cycles; c++) {
        MPI_Barrier(XMPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        int rc = XMPI_Spawn(self, NULL, 1, MPI_INFO_NULL, NULL);
        sp[c] = MPI_Wtime() - t0;
        if (rc != XMPI_SUCCESS) {
            if (rank == 0)
                fprintf(stderr,
                        "xmpi-calibrate: --spawn: XMPI_Spawn of 1 process failed: %s%s; spawn and "
                        "remove costs keep their defaults\n",
                        XMPI_Error_string(rc),
                        rc == XMPI_ERR_RESOURCES ? " (add --xmpi-oversubscribe on small machines)" : "");
            return -1;
        }
        /* The child is in; it removes itself with us. Every pair talks once first: MPI opens
         * connections on first contact (TCP to a spawned process), which a running job has
         * long paid when it removes processes. Then the child reaches XMPI_Remove first, so
         * that the time is the removal's own, not the wait for the last process. */
        touch_all_pairs();
        nanosleep(&(struct timespec){0, 20000000L}, NULL);
        t0 = MPI_Wtime();
        XMPI_Remove(1, NULL);
        rm[c] = MPI_Wtime() - t0;
    }
    *spawn = bench_median(sp, (int)cycles);
    *remove = bench_median(rm, (int)cycles);
    return 0;
}

/* The spawned link: on a host where MPI's shared-memory transport cannot join processes of
 * different jobs (Open MPI 4.1), a parent and a spawned process talk over TCP. Rank 0 and a
 * spawned process (rank 2) run the ping-pong; at most 4 MiB, since the link is slower. */
#define LINK_MAX_BYTES (4L << 20)

/* A process started by --spawn: join, run the link's ping-pong when asked, take part in its
 * own removal, leave. */
static int child(int argc, char **argv)
{
    struct args a;
    char err[256];
    if (parse_args(argc, argv, &a, err, sizeof err) == 0 && a.link_child) {
        int rank;
        MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
        struct pingpong p;
        ping_pong(rank, rank, &a, &p);
    }
    touch_all_pairs();
    XMPI_Remove(1, NULL);
    MPI_Finalize();
    return 0;
}

/* One more spawn, and the ping-pong between rank 0 and the new process. 0, or -1 when the
 * spawn failed. */
static int measure_link(int rank, const char *self, const struct args *a, struct pingpong *p)
{
    char reps[32], bytes[32];
    long m = a->max_bytes < LINK_MAX_BYTES ? a->max_bytes : LINK_MAX_BYTES;
    snprintf(reps, sizeof reps, "%ld", a->reps);
    snprintf(bytes, sizeof bytes, "%ld", m);
    char *args[] = {"--link-child", "-r", reps, "-m", bytes, NULL};
    if (XMPI_Spawn(self, args, 1, MPI_INFO_NULL, NULL) != XMPI_SUCCESS) return -1;
    struct args la = *a;
    la.max_bytes = m;
    ping_pong(rank, 2, &la, p);
    touch_all_pairs();
    XMPI_Remove(1, NULL);
    return 0;
}

/* What only rank 0 checks before any measurement: the options, the job's size, the output file
 * (tmp: the name it is written under) and the --spawn-file. 0: go on; -1: -h was answered;
 * else the exit status, said on stderr. */
static int check_args(int argc, char **argv, int size, struct args *a, struct xmpi_calibration *from_file,
                      unsigned *file_defaulted, char *tmp, size_t tmplen)
{
    char err[1024] = "", perr[900];
    int code = 0, e;
    if (parse_args(argc, argv, a, err, sizeof err)) {
        code = EXIT_USAGE;
    } else if (a->help) {
        usage(stdout);
        code = -1;
    } else if (size != 2) {
        snprintf(err, sizeof err, "xmpi-calibrate: needs exactly 2 processes (mpirun -np 2), not %d", size);
        code = EXIT_USAGE;
    } else if ((e = check_writable(a->out, tmp, tmplen))) {
        snprintf(err, sizeof err, "xmpi-calibrate: option -o: cannot write '%s': %s", a->out, strerror(e));
        code = EXIT_USAGE;
    } else if (a->spawn_file &&
               xmpi_calibration_load(from_file, a->spawn_file, file_defaulted, perr, sizeof perr)) {
        snprintf(err, sizeof err, "xmpi-calibrate: option --spawn-file: %s", perr);
        code = EXIT_USAGE;
    }
    if (err[0]) fprintf(stderr, "%s\n", err);
    return code;
}

/* What the measurements found (rank 0's figures). */
struct measured {
    struct pingpong p, link;
    double gamma, gamma_median, copy;
    double copy_ratio;    /* every process filling at once (the slowest) over one alone */
    double touch;         /* first read of received memory, s/byte (-1: not measured) */
    int procs;            /* the processes that filled at once */
    double sp, rm;        /* with spawned: medians of XMPI_Spawn and XMPI_Remove of 1 process */
    int rm_procs;         /* the job's processes before that removal */
    int spawned, linked;  /* --spawn: the spawn/remove cycles, the spawned link's ping-pong done */
};

/* Where each of spawn_single, spawn_group and remove comes from, for the summary and the
 * file's comments. */
struct sources {
    const char *src[3];
    char buf[3][4200];
};

/* The calibration from the measurements, the --spawn-file and the defaults. */
static void compose(struct xmpi_calibration *cal, struct sources *s, const struct args *a,
                    const struct xmpi_calibration *from_file, unsigned file_defaulted, const struct measured *m)
{
    xmpi_calibration_defaults(cal);
    s->src[0] = s->src[1] = s->src[2] = "default";
    cal->net.alpha = m->p.alpha;
    cal->net.beta = m->p.beta;
    if (m->gamma > 0) cal->net.gamma = m->gamma;
    if (m->copy > 0) cal->net.copy = cal->spawned.copy = m->copy;
    if (m->copy > 0 && m->copy_ratio > 0 && m->procs > 1) {
        double g = (m->copy_ratio - 1) / (m->procs - 1);
        cal->net.copy_contention = cal->spawned.copy_contention = g < 0 ? 0 : g > 100 ? 100 : g;
    }
    if (m->touch >= 0) cal->net.touch = cal->spawned.touch = m->touch;
    if (a->spawn_file) {
        static const unsigned bits[3] = {XMPIR_CAL_SPAWN_SINGLE, XMPIR_CAL_SPAWN_GROUP, XMPIR_CAL_REMOVE};
        cal->spawn_single = from_file->spawn_single;
        cal->spawn_group = from_file->spawn_group;
        cal->remove = from_file->remove;
        cal->remove_procs = from_file->remove_procs;
        cal->nclasses = from_file->nclasses;
        memcpy(cal->cls, from_file->cls, sizeof cal->cls);
        for (int i = 0; i < 3; i++) {
            if (file_defaulted & bits[i]) continue;
            snprintf(s->buf[i], sizeof s->buf[i], "%s", a->spawn_file);
            s->src[i] = s->buf[i];
        }
    } else if (m->spawned) {
        cal->spawn_single = m->sp;
        cal->remove = m->rm;
        cal->remove_procs = m->rm_procs;
        snprintf(s->buf[0], sizeof s->buf[0], "XMPI_Spawn of 1 process, median of %ld", a->spawn);
        snprintf(s->buf[2], sizeof s->buf[2], "XMPI_Remove of 1 process, median of %ld", a->spawn);
        s->src[0] = s->buf[0];
        s->src[2] = s->buf[2];
        s->src[1] = "default (--spawn spawns one process at a time)";
    } else if (a->spawn) {
        s->src[0] = s->src[1] = s->src[2] = "default (spawning failed)";
    }
    if (m->linked) {
        cal->spawned.alpha = m->link.alpha;
        cal->spawned.beta = m->link.beta;
    }
}

/* The ping-pong's table and fit. */
static void print_pingpong(const struct args *a, const struct pingpong *p, const char *host)
{
    char b1[32], b2[32];
    printf("xmpi-calibrate: ping-pong between 2 processes (rank 0 on %s), %d sizes from 0 B to %s, "
           "median of %ld samples each\n\n",
           host, p->nsizes, size_text(b1, a->max_bytes), a->reps);
    printf("%12s  %14s  %14s  %9s\n", "bytes", "one-way (us)", "fit (us)", "residual");
    for (int s = 0; s < p->nsizes; s++)
        printf("%12ld  %14.3f  %14.3f  %+8.1f%%\n", p->bytes[s], 1e6 * p->t[s], 1e6 * p->fit[s],
               100 * (p->t[s] - p->fit[s]) / p->t[s]);
    printf("\nfit t = alpha + n * beta (least squares, weighted by 1/t^2): residual rms %.1f%%, "
           "worst %+.1f%% at %s\n",
           100 * p->rms, 100 * p->worst, size_text(b2, p->bytes[p->worst_at]));
    if (p->how) printf("note: %s\n", p->how);
}

/* Every parameter, its value and where it comes from. */
static void print_parameters(const struct xmpi_calibration *cal, const struct sources *s, const struct measured *m)
{
    char b1[32];
    printf("gamma: MPI_Reduce_local(MPI_SUM) of %ld doubles (%s): median %.3f ms\n\n",
           GAMMA_DOUBLES, size_text(b1, GAMMA_DOUBLES * (long)sizeof(double)), 1e3 * m->gamma_median);
    printf("%-13s %-14s %s\n", "parameter", "value", "source");
    printf("%-13s %-14.4g %s\n", "alpha", cal->net.alpha, "ping-pong fit (s)");
    printf("%-13s %-14.4g ping-pong fit (s/byte; %.2f GB/s)\n", "beta", cal->net.beta,
           1e-9 / cal->net.beta);
    printf("%-13s %-14.4g %s\n", "gamma", cal->net.gamma,
           m->gamma > 0 ? "MPI_Reduce_local (s/byte)" : "default (the reduction was too fast to time)");
    printf("%-13s %-14.4g %s\n", "copy", cal->net.copy,
           m->copy > 0 ? "memcpy into a fresh 64 MiB buffer (s/byte)" : "default (no memory for the copy test)");
    if (m->copy > 0 && m->copy_ratio > 0 && m->procs > 1)
        printf("%-13s %-14.4g %d processes at once: the slower took %.3g times one alone "
               "(median of the reps, each alone then together)\n",
               "copy_contention", cal->net.copy_contention, m->procs, m->copy_ratio);
    else
        printf("%-13s %-14.4g %s\n", "copy_contention", cal->net.copy_contention,
               m->procs > 1 ? "default (no memory for the copy test)" : "default (needs 2 processes)");
    printf("%-13s %-14.4g %s\n", "touch", cal->net.touch,
           m->touch >= 0 ? "first read of a fresh 16 MiB buffer an MPI_Recv filled, one byte per "
                          "page (s/byte)"
                        : m->procs > 1 ? "default (no memory for the touch test)" : "default (needs 2 processes)");
    printf("%-13s %-14.4g %s\n", "spawn_single", cal->spawn_single, s->src[0]);
    printf("%-13s %-14.4g %s\n", "spawn_group", cal->spawn_group, s->src[1]);
    printf("%-13s %-14.4g %s\n", "remove", cal->remove, s->src[2]);
    printf("%-13s %-14.4g %s\n", "remove_procs", cal->remove_procs,
           cal->remove_procs > 0 ? "processes of the job that removal was timed on"
                                 : "not known: a removal is priced per process removed");
    printf("%-13s %-14.4g %s\n", "alpha_spawned", cal->spawned.alpha,
           m->linked ? "ping-pong fit, rank 0 and a spawned process (s)" : "default (needs --spawn)");
    printf("%-13s %-14.4g %s\n", "beta_spawned", cal->spawned.beta,
           m->linked ? "ping-pong fit, rank 0 and a spawned process (s/byte)" : "default (needs --spawn)");
    if (m->linked)
        printf("spawned link: %d sizes from 0 B to %s, fit residual rms %.1f%%\n", m->link.nsizes,
               size_text(b1, m->link.bytes[m->link.nsizes - 1]), 100 * m->link.rms);
}

/* The file, written under tmp and renamed to a->out whole, then read back as the library would.
 * 0, or -1 after saying why. */
static int write_calibration(const struct args *a, const char *tmp, const struct xmpi_calibration *cal,
                             const struct sources *s, const struct pingpong *p, const char *host)
{
    int rc = 0;
    FILE *f = fopen(tmp, "w");
    if (f) {
        char b1[32], b2[32], when[32] = "";
        time_t now = time(NULL);
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", localtime(&now));
        fprintf(f,
                "# xmpi-calibrate, %s, 2 processes (rank 0 on %s): ping-pong 0 B to %s in %d sizes, "
                "median of %ld; fit residual rms %.1f%%, worst %+.1f%% at %s\n",
                when, host, size_text(b1, a->max_bytes), p->nsizes, a->reps, 100 * p->rms,
                100 * p->worst, size_text(b2, p->bytes[p->worst_at]));
        fprintf(f, "# spawn_single: %s; spawn_group: %s; remove: %s\n", s->src[0], s->src[1], s->src[2]);
        rc = xmpi_calibration_write(cal, f);
    }
    if (commit_output(f, rc, tmp, a->out)) return -1;
    /* The file must be one the library accepts; the writer promises it, this checks it. */
    struct xmpi_calibration back;
    char perr[900];
    if (xmpi_calibration_load(&back, a->out, NULL, perr, sizeof perr)) {
        fprintf(stderr, "xmpi-calibrate: the written file does not read back: %s\n", perr);
        return -1;
    }
    printf("\nwrote %s (use it with --xmpi-calibration=%s)\n", a->out, a->out);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED) return child(argc, argv);
    int rank, size;
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);

    struct args a;
    struct xmpi_calibration cal, from_file;
    unsigned file_defaulted = 0;
    char tmp[4200];
    int code = 0;
    xmpi_calibration_defaults(&from_file);
    if (rank == 0) {
        code = check_args(argc, argv, size, &a, &from_file, &file_defaulted, tmp, sizeof tmp);
    } else {
        char err[1024];
        parse_args(argc, argv, &a, err, sizeof err);
    }
    code = rank0_verdict(code, XMPI_COMM_WORLD);
    if (code) {
        MPI_Finalize();
        return code < 0 ? 0 : code;
    }

    struct measured m = {0};
    ping_pong(rank, 1, &a, &m.p);
    m.gamma = measure_gamma(rank, a.reps, &m.gamma_median);
    measure_copy(rank, size, a.reps, &m.copy, &m.copy_ratio);
    measure_touch(rank, size, a.reps, &m.touch);
    m.procs = size > 1 ? 2 : 1;   /* measure_copy's pair */
    m.spawned = a.spawn && measure_spawn(rank, argv[0], a.spawn, &m.sp, &m.rm) == 0;
    m.rm_procs = size + 1;   /* the job and the one process it spawned */
    m.linked = m.spawned && measure_link(rank, argv[0], &a, &m.link) == 0;
    if (rank != 0) {
        MPI_Finalize();
        return 0;
    }

    struct sources src;
    compose(&cal, &src, &a, &from_file, file_defaulted, &m);
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int hlen;
    MPI_Get_processor_name(host, &hlen);
    print_pingpong(&a, &m.p, host);
    print_parameters(&cal, &src, &m);
    int rc = write_calibration(&a, tmp, &cal, &src, &m.p, host);
    MPI_Finalize();
    return rc ? EXIT_RUNTIME : 0;
}
