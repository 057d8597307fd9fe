/* bin/xmpi-opmodel: times single MPI operations (Send/Recv ping-pong, Bcast, Gather, Allreduce)
 * over message sizes and sets each beside the Hockney model's prediction (thesis Figs. 6.9-6.12). */
#include <mpi.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/calibration.h"
#include "../models/hockney.h"
#define BENCH_NAME "xmpi-opmodel"
#include "../tools/cli.h"
#include "../tools/median.h"

enum { MAX_REPS = 1000, MAX_SIZES = 32, TAG = 61, DEFAULT_REPS = 11 };
#define MIN_BYTES 8L   /* one double, the smallest Allreduce */
#define MAX_BYTES_LIMIT (1L << 30)
#define DEFAULT_MAX_BYTES (4L << 20)
/* A sample is a batch of calls lasting about this long, so that the clock's resolution and
 * the cost of reading it vanish from the small sizes. */
#define SAMPLE_SECONDS 1e-3
#define MAX_BATCH 100000L
#define DEFAULT_OUT "xmpi-opmodel.csv"

enum kind { K_SEND, K_BCAST, K_GATHER, K_ALLREDUCE, NKINDS };

static const struct {
    const char *name;   /* the CSV's op column */
    const char *what;   /* the table's heading */
    int op;             /* enum xmpi_op, for the algorithm's name */
} kinds[NKINDS] = {
    [K_SEND] = {"send", "MPI_Send/MPI_Recv ping-pong between ranks 0 and 1, one way", XMPIR_OP_SEND},
    [K_BCAST] = {"bcast", "MPI_Bcast from rank 0, n = the buffer", XMPIR_OP_BCAST},
    [K_GATHER] = {"gather", "MPI_Gather to rank 0, n = one rank's block", XMPIR_OP_GATHER},
    [K_ALLREDUCE] = {"allreduce", "MPI_Allreduce(MPI_DOUBLE, MPI_SUM), n = the buffer",
                     XMPIR_OP_ALLREDUCE},
};

struct args {
    const char *cal;   /* NULL: the library's defaults */
    const char *out;
    long max_bytes;
    long reps;
    int help;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np P xmpi-opmodel [-c CALFILE] [-o CSV] [-m MAXBYTES] [-r REPS] [-h]\n"
            "\n"
            "Measured against predicted time of single MPI operations, after the FLEX-MPI thesis,\n"
            "section 6.3 (Figs. 6.9-6.12). On P >= 2 processes it times, for every message size\n"
            "n = 8 B, 16 B, ..., MAXBYTES (powers of 2):\n"
            "\n"
            "  send       MPI_Send/MPI_Recv ping-pong between ranks 0 and 1 (the other ranks wait in\n"
            "             MPI_Barrier); the time is half the round trip. Model: alpha + n beta.\n"
            "  bcast      MPI_Bcast of n bytes from rank 0.\n"
            "  gather     MPI_Gather to rank 0 of n bytes from every rank (n is one rank's block,\n"
            "             rank 0 receives P n bytes).\n"
            "  allreduce  MPI_Allreduce of n / 8 doubles with MPI_SUM.\n"
            "\n"
            "and compares each with the cost libxmpi's prediction model gives for the same call\n"
            "(models/hockney.h: the Hockney model of the algorithm MPICH selects for n and P, named\n"
            "in the algorithm column). Under another MPI library, e.g. Open MPI's tuned collectives,\n"
            "other algorithms run; that is part of what the error measures.\n"
            "\n"
            "How a time is measured: all ranks leave MPI_Barrier, run a batch of calls lasting about\n"
            "%g ms (one call for large messages), and divide by the number of calls; the sample is\n"
            "the largest of the ranks' times, and the reported time the median of REPS samples. As\n"
            "in most MPI micro-benchmarks, consecutive calls of a batch may overlap: a Bcast root\n"
            "returns once its small messages are sent, so small collectives can measure the rate of\n"
            "back-to-back calls, below the latency of one.\n"
            "\n"
            "Options:\n"
            "  -c CALFILE   calibration file giving alpha, beta and gamma (format: io/calibration.h;\n"
            "               xmpi-calibrate writes one). Keys it lacks keep their defaults. Without -c,\n"
            "               the library's defaults: alpha %g s, beta %g s/byte, gamma %g s/byte.\n"
            "  -o CSV       file rank 0 writes (default %s), one row per operation and size:\n"
            "                 op,procs,bytes,algorithm,measured_s,predicted_s,rel_error\n"
            "               op is send, bcast, gather or allreduce; procs is P; bytes is n;\n"
            "               rel_error = (predicted_s - measured_s) / measured_s.\n"
            "  -m MAXBYTES  the largest n, a power of 2 from %ld to %ld (default %ld). Rank 0\n"
            "               allocates (P + 1) x MAXBYTES bytes (the gather's receive buffer), the\n"
            "               others 2 x MAXBYTES.\n"
            "  -r REPS      samples per operation and size, from 1 to %d (default %d).\n"
            "  -h, --help   print this help and exit.\n"
            "\n"
            "Output: on rank 0, one table per operation (bytes, algorithm, measured and predicted\n"
            "microseconds, relative error) and a summary line per operation, 'op P=..: mean |rel\n"
            "error| ..%%, sd ..%%, mean ..%%, worst ..%% at n', where sd is the standard deviation of\n"
            "the relative error over the sizes and mean its signed mean (the model's bias).\n"
            "\n"
            "Exit status: 0 done; 1 a run-time failure (memory, writing CSV); 2 a bad option, an\n"
            "unreadable calibration file, an unwritable CSV or fewer than 2 processes, refused\n"
            "before any measurement with one message naming what was wrong and what is accepted.\n"
            "\n"
            "Example: mpirun -np 4 xmpi-opmodel -c xmpi-calibration.txt -m 1048576 -o ops.csv\n",
            SAMPLE_SECONDS * 1e3, XMPIR_CAL_DEFAULT_ALPHA, XMPIR_CAL_DEFAULT_BETA,
            XMPIR_CAL_DEFAULT_GAMMA, DEFAULT_OUT, MIN_BYTES, MAX_BYTES_LIMIT, DEFAULT_MAX_BYTES,
            MAX_REPS, DEFAULT_REPS);
}

/* The same on every rank, since every rank gets the same argv: all reach the same verdict. */
static int parse_args(int argc, char **argv, struct args *a, char *err, size_t len)
{
    *a = (struct args){.out = DEFAULT_OUT, .max_bytes = DEFAULT_MAX_BYTES, .reps = DEFAULT_REPS};
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v;
        if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            a->help = 1;
        } else if (!strcmp(o, "-c")) {
            if (!(v = option_value(argc, argv, &i, o)) || !*v)
                return refuse_value(err, len, o, v, "a calibration file");
            a->cal = v;
        } else if (!strcmp(o, "-o")) {
            if (!(v = option_value(argc, argv, &i, o)) || !*v)
                return refuse_value(err, len, o, v, "a file name for the CSV");
            a->out = v;
        } else if (!strcmp(o, "-m")) {
            if (!(v = option_value(argc, argv, &i, o)) ||
                parse_long(v, MIN_BYTES, MAX_BYTES_LIMIT, &a->max_bytes) || (a->max_bytes & (a->max_bytes - 1)))
                return refuse_value(err, len, o, v,
                                    "the largest message in bytes, a power of 2 from 8 to 1073741824");
        } else if (!strcmp(o, "-r")) {
            if (!(v = option_value(argc, argv, &i, o)) || parse_long(v, 1, MAX_REPS, &a->reps))
                return refuse_value(err, len, o, v, "a number of samples per size from 1 to 1000");
        } else {
            snprintf(err, len,
                     "xmpi-opmodel: unknown option '%.64s'; accepted: -c CALFILE, -o CSV, "
                     "-m MAXBYTES, -r REPS, -h",
                     o);
            return -1;
        }
    }
    return 0;
}

struct bufs {
    char *send;   /* max_bytes: what a rank sends, and the Bcast buffer */
    char *recv;   /* P x max_bytes on rank 0 (Gather), max_bytes elsewhere */
};

/* One call, or for the ping-pong one round trip, of n bytes. */
static void call(enum kind k, const struct bufs *b, int n, int rank)
{
    switch (k) {
    case K_SEND:
        if (rank == 0) {
            MPI_Send(b->send, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(b->recv, n, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(b->recv, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b->send, n, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
        }
        break;
    case K_BCAST: MPI_Bcast(b->send, n, MPI_BYTE, 0, MPI_COMM_WORLD); break;
    case K_GATHER:
        MPI_Gather(b->send, n, MPI_BYTE, b->recv, n, MPI_BYTE, 0, MPI_COMM_WORLD);
        break;
    case K_ALLREDUCE:
        MPI_Allreduce(b->send, b->recv, n / (int)sizeof(double), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        break;
    case NKINDS: break;
    }
}

/* Seconds per call of m calls on this rank, all ranks starting together. */
static double batch(enum kind k, const struct bufs *b, int n, long m, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < m; i++) call(k, b, n, rank);
    return (MPI_Wtime() - t0) / (double)m;
}

/* The median over reps samples of the slowest rank's time per call, on rank 0 (0 elsewhere).
 * For the ping-pong a call is a round trip, so the one-way time is half of it. */
static double measure(enum kind k, const struct bufs *b, int n, long reps, int rank)
{
    call(k, b, n, rank);   /* warm-up: connections, buffer registration, protocol switch */
    double pilot = batch(k, b, n, 2, rank), slowest;
    MPI_Allreduce(&pilot, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double want = slowest > 0 ? ceil(SAMPLE_SECONDS / slowest) : (double)MAX_BATCH;
    long m = want < 1 ? 1 : want > (double)MAX_BATCH ? MAX_BATCH : (long)want;

    double samples[MAX_REPS];
    for (long r = 0; r < reps; r++) {
        double t = batch(k, b, n, m, rank);
        MPI_Reduce(&t, &samples[r], 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (rank != 0) return 0;
    double t = bench_median(samples, reps);
    return k == K_SEND ? t / 2 : t;
}

static double predict(const struct xmpi_hockney *h, enum kind k, double n, int p)
{
    switch (k) {
    case K_SEND: return xmpi_hockney_p2p(h, n);
    case K_BCAST: return xmpi_hockney_bcast(h, n, p);
    case K_GATHER: return xmpi_hockney_gather(h, n, p);
    case K_ALLREDUCE: return xmpi_hockney_allreduce(h, n, p);
    case NKINDS: break;
    }
    return -1;
}

struct row {
    long bytes;
    const char *alg;
    double measured, predicted, err;
};

static void summary(enum kind k, int p, const struct row *r, int nsizes)
{
    double abs_sum = 0, sum = 0, sq = 0;
    int worst = 0;
    for (int s = 0; s < nsizes; s++) {
        abs_sum += fabs(r[s].err);
        sum += r[s].err;
        if (fabs(r[s].err) > fabs(r[worst].err)) worst = s;
    }
    double mean = sum / nsizes;
    for (int s = 0; s < nsizes; s++) sq += (r[s].err - mean) * (r[s].err - mean);
    char b[32];
    printf("%s P=%d: mean |rel error| %.1f%%, sd %.1f%%, mean %+.1f%%, worst %+.1f%% at %s "
           "(%d sizes)\n",
           kinds[k].name, p, 100 * abs_sum / nsizes, 100 * sqrt(sq / nsizes), 100 * mean,
           100 * r[worst].err, size_text(b, r[worst].bytes), nsizes);
}

/* What only rank 0 checks before any measurement: the job's size, the calibration file (read
 * into cal) and the CSV (tmp: the name it is written under). 0, or EXIT_USAGE after saying why. */
static int check_setup(const struct args *a, int size, struct xmpi_calibration *cal, unsigned *defaulted,
                       char *tmp, size_t tmplen)
{
    char err[1200] = "", perr[1000];
    int e;
    if (size < 2)
        snprintf(err, sizeof err,
                 "xmpi-opmodel: needs at least 2 processes (the ping-pong runs between ranks 0 "
                 "and 1), not %d; run it with mpirun -np 2 or more",
                 size);
    else if (a->cal && xmpi_calibration_load(cal, a->cal, defaulted, perr, sizeof perr))
        snprintf(err, sizeof err, "xmpi-opmodel: option -c: %s", perr);
    else if ((e = check_writable(a->out, tmp, tmplen)))
        snprintf(err, sizeof err, "xmpi-opmodel: option -o: cannot write '%.1000s': %s", a->out, strerror(e));
    if (!err[0]) return 0;
    fprintf(stderr, "%s\n", err);
    return EXIT_USAGE;
}

/* The buffers of every size, touched. Every rank learns whether every rank has its buffers, so
 * that all go on or all stop: 0, or -1 with nothing left allocated. */
static int alloc_bufs(struct bufs *b, long max_bytes, int rank, int size)
{
    size_t max = (size_t)max_bytes, rmax = rank == 0 ? (size_t)size * max : max;
    *b = (struct bufs){malloc(max), malloc(rmax)};
    int lacking = !b->send || !b->recv, anyone;
    if (lacking)
        fprintf(stderr, "xmpi-opmodel: rank %d: cannot allocate %zu bytes of buffers (-m %ld)\n",
                rank, max + rmax, max_bytes);
    MPI_Allreduce(&lacking, &anyone, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anyone) {
        free(b->send);
        free(b->recv);
        return -1;
    }
    /* Touched now, so that no page is first faulted in during a measurement; doubles of 1.0
     * keep the reduction away from NaN and subnormal arithmetic. */
    for (size_t i = 0; i < max / sizeof(double); i++) ((double *)b->send)[i] = 1.0;
    memset(b->recv, 0, rmax);
    return 0;
}

/* Rank 0's first lines: the job, the MPI library, the sizes and the model's parameters. */
static void print_header(const struct args *a, const struct xmpi_calibration *cal, unsigned defaulted, int size)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    char names[128];
    xmpi_calibration_defaulted_names(defaulted & (XMPIR_CAL_ALPHA | XMPIR_CAL_BETA | XMPIR_CAL_GAMMA),
                                     names, sizeof names);
    char b1[32];
    printf("xmpi-opmodel: %d processes, %s; sizes 8 B to %s, median of %ld samples\n", size, lib,
           size_text(b1, a->max_bytes), a->reps);
    printf("model: alpha %.4g s, beta %.4g s/byte, gamma %.4g s/byte from %s%s%s%s\n",
           cal->net.alpha, cal->net.beta, cal->net.gamma, a->cal ? a->cal : "the library's defaults",
           a->cal && names[0] ? " (defaults for " : "", a->cal && names[0] ? names : "",
           a->cal && names[0] ? ")" : "");
    fflush(stdout);
}

/* Every operation at every size, collectively; rank 0 fills rows and prints a table per
 * operation as it goes. */
static void measure_all(struct row rows[NKINDS][MAX_SIZES], const struct bufs *b, const long *sizes,
                        int nsizes, long reps, const struct xmpi_calibration *cal, int rank, int size)
{
    for (int k = 0; k < NKINDS; k++) {
        if (rank == 0) {
            printf("\n%s: %s%s\n%10s  %-22s %14s %14s %9s\n", kinds[k].name, kinds[k].what,
                   k == K_SEND && size > 2 ? " (the other ranks wait)" : "", "bytes",
                   "algorithm (MPICH)", "measured (us)", "predicted (us)", "error");
            fflush(stdout);
        }
        for (int s = 0; s < nsizes; s++) {
            double t = measure((enum kind)k, b, (int)sizes[s], reps, rank);
            if (rank != 0) continue;
            struct row *r = &rows[k][s];
            double n = (double)sizes[s];
            r->bytes = sizes[s];
            r->alg = xmpi_hockney_algorithm(kinds[k].op, n, k == K_SEND ? 2 : size);
            r->measured = t;
            r->predicted = predict(&cal->net, (enum kind)k, n, size);
            r->err = (r->predicted - t) / t;
            printf("%10ld  %-22s %14.3f %14.3f %+8.1f%%\n", r->bytes, r->alg, 1e6 * t,
                   1e6 * r->predicted, 100 * r->err);
            fflush(stdout);
        }
    }
}

/* The CSV, written under tmp and renamed to out whole. 0, or -1 after saying why. */
static int write_csv(struct row rows[NKINDS][MAX_SIZES], int nsizes, int size, const char *tmp,
                     const char *out)
{
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "op,procs,bytes,algorithm,measured_s,predicted_s,rel_error\n");
        for (int k = 0; k < NKINDS; k++)
            for (int s = 0; s < nsizes; s++) {
                const struct row *r = &rows[k][s];
                fprintf(f, "%s,%d,%ld,%s,%.9e,%.9e,%.6f\n", kinds[k].name, size, r->bytes, r->alg,
                        r->measured, r->predicted, r->err);
            }
    }
    if (commit_output(f, 0, tmp, out)) return -1;
    printf("wrote %s\n", out);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    struct args a;
    char err[1200] = "", tmp[4200] = "";
    int code = 0;
    struct xmpi_calibration cal;
    xmpi_calibration_defaults(&cal);
    unsigned defaulted = XMPIR_CAL_ALL;
    /* Every rank parses the same argv and reaches the same verdict; rank 0 says it. */
    if (parse_args(argc, argv, &a, err, sizeof err)) {
        if (rank == 0) fprintf(stderr, "%s\n", err);
        code = EXIT_USAGE;
    } else if (a.help) {
        if (rank == 0) usage(stdout);
        code = -1;
    } else if (rank == 0) {
        code = check_setup(&a, size, &cal, &defaulted, tmp, sizeof tmp);
    }
    code = rank0_verdict(code, MPI_COMM_WORLD);
    if (code) {
        MPI_Finalize();
        return code < 0 ? 0 : code;
    }
    struct bufs b;
    if (alloc_bufs(&b, a.max_bytes, rank, size)) {
        MPI_Finalize();
        return EXIT_RUNTIME;
    }

    long sizes[MAX_SIZES];
    int nsizes = 0;
    for (long n = MIN_BYTES; n <= a.max_bytes; n *= 2) sizes[nsizes++] = n;
    static struct row rows[NKINDS][MAX_SIZES];
    if (rank == 0) print_header(&a, &cal, defaulted, size);
    measure_all(rows, &b, sizes, nsizes, a.reps, &cal, rank, size);
    free(b.send);
    free(b.recv);
    if (rank != 0) {
        MPI_Finalize();
        return 0;
    }

    printf("\nsummary, rel error = (predicted - measured) / measured over the sizes:\n");
    for (int k = 0; k < NKINDS; k++) summary((enum kind)k, size, rows[k], nsizes);
    int rc = write_csv(rows, nsizes, size, tmp, a.out);
    MPI_Finalize();
    return rc ? EXIT_RUNTIME : 0;
}
