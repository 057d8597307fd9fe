/* Heat: the 2-D heat equation, an explicit 5-point stencil with fixed boundary values, on an
 * NX x NY grid whose lines (rows) are distributed in blocks, each with a ghost line above and
 * one below. Written as a plain MPI stencil code: -DXMPI_PLAIN builds it so, exchanging the
 * ghost lines with MPI_Sendrecv to rank - 1 and rank + 1. The default build registers the grid
 * with libxmpi (XMPI_Register_ghost) and fills the ghost lines with XMPI_Exchange from whichever
 * processes own them, so that the library may move lines to balance the load (-b) and grow or
 * shrink the job (-d). scripts/example-diff.sh counts the lines in which the two builds differ. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_NAME "heat"
#include "example_util.h"
#include "example_timed.h"

#ifdef XMPI_PLAIN
#define XMPI_BUILD 0
#else
#define XMPI_BUILD 1
#endif

/* A line's points must fit an int count of doubles, with room to spare for MPI's byte counts. */
#define NX_MAX (1 << 24)
/* An explicit 5-point step is stable for any grid when the factor is at most 1/4. */
#define FACTOR 0.2
#define ACCEPTED "-n NX -m NY -i ITERATIONS -b -d --heat-shuffle=K -h"

struct options {
    long nx, ny, iterations, shuffle;
    int balance;   /* -b: XMPI_Eval_lbalance after each iteration */
    int dynamic;   /* -d: XMPI_Eval_reconfig after each iteration (grow and shrink by --xmpi-policy) */
    int help;
};

/* What a process that joins the job needs before it registers the grid. */
struct grid {
    int nx, ny;
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: heat [-n NX] [-m NY] [-i ITERATIONS] [-b] [-d] [--heat-shuffle=K] [-h]\n"
            "  -n NX           points per grid line, 3 to %d (default 256)\n"
            "  -m NY           grid lines, 3 to %d, at least one per rank (default 256)\n"
            "  -i ITERATIONS   explicit time steps, 0 to %d (default 500)\n"
            "  -b              balance the load: XMPI_Eval_lbalance after each step (not in heat-plain)\n"
            "  -d              malleable: XMPI_Eval_reconfig after each step, so the job balances and\n"
            "                  grows or shrinks as --xmpi-policy decides; spawned processes take the\n"
            "                  grid's size from the job (XMPI_Get_app_data) and their lines\n"
            "                  (XMPI_Get_data); removed ones hand their lines over and exit 0 without a\n"
            "                  result line. The result is the same bits as a static run (not in\n"
            "                  heat-plain)\n"
            "  --heat-shuffle=K  test: every K steps move the lines to another partition with\n"
            "                  XMPI_Redistribute_data (not in heat-plain); the result must not change\n"
            "  -h              print this help\n"
            "The top line is held at 100, the bottom at 25, the left side at 50, the right at 0;\n"
            "the inside starts at 0. The result line's checksum hashes the whole grid in line order.\n",
            NX_MAX, INT_MAX, INT_MAX);
}

/* Every rank parses the same argv, so every rank reaches the same verdict. */
static int parse_options(int argc, char **argv, struct options *o, struct failure *f)
{
    *o = (struct options){.nx = 256, .ny = 256, .iterations = 500};
    const char *plain = XMPI_BUILD ? NULL : "is not accepted by heat-plain: moving lines needs libxmpi (use heat)";
    if (take_count_option(&argc, argv, "--heat-shuffle", plain, &o->shuffle, f))
        return -1;
    opterr = 0;
    int c;
    while ((c = getopt(argc, argv, ":n:m:i:bdh")) != -1) {
        switch (c) {
        case 'n':
            if (parse_long(optarg, 3, NX_MAX, &o->nx))
                return fail(f, EXIT_USAGE, "heat: bad line length '-n %s': expected an integer from 3 to %d\n",
                            optarg, NX_MAX);
            break;
        case 'm':
            if (parse_long(optarg, 3, INT_MAX, &o->ny))
                return fail(f, EXIT_USAGE, "heat: bad line count '-m %s': expected an integer from 3 to %d\n",
                            optarg, INT_MAX);
            break;
        case 'i':
            if (parse_long(optarg, 0, INT_MAX, &o->iterations))
                return fail(f, EXIT_USAGE, "heat: bad iteration count '-i %s': expected an integer from 0 to %d\n",
                            optarg, INT_MAX);
            break;
        case 'b':
        case 'd':
            if (!XMPI_BUILD)
                return fail(f, EXIT_USAGE, "heat: -%c needs libxmpi to move lines%s; heat-plain cannot (use heat)\n",
                            c, c == 'd' ? " and to spawn and remove processes" : "");
            *(c == 'b' ? &o->balance : &o->dynamic) = 1;
            break;
        case 'h':
            o->help = 1;
            return 0;
        default:
            return refuse_getopt(c, argc, argv, ACCEPTED, f);
        }
    }
    return refuse_operands(argc, argv, f);
}

/* The fixed boundary and the start: a pure function of the point, so that every rank sets its
 * own lines. */
static double initial(int i, int j, const struct grid *g)
{
    if (i == 0)
        return 100.0;
    if (i == g->ny - 1)
        return 25.0;
    if (j == 0)
        return 50.0;
    return 0.0;
}

/* One explicit step on the block's `count` lines from line `displ`: u holds them after a ghost
 * line, unew receives them. Each point is the same operations on the same values whatever the
 * partition, so the grid comes out the same bits on any number of ranks; boundary lines and
 * columns keep their values. */
static void step(const double *u, double *unew, int count, int displ, const struct grid *g)
{
    const int nx = g->nx;
    for (int i = 0; i < count; i++) {
        const double *up = u + (size_t)i * nx, *c = up + nx, *dn = c + nx;
        double *out = unew + (size_t)i * nx;
        if (displ + i == 0 || displ + i == g->ny - 1) {
            memcpy(out, c, sizeof *out * (size_t)nx);
            continue;
        }
        out[0] = c[0];
        out[nx - 1] = c[nx - 1];
        for (int j = 1; j < nx - 1; j++)
            out[j] = c[j] + FACTOR * (up[j] + dn[j] + c[j - 1] + c[j + 1] - 4.0 * c[j]);
    }
}

/* Rank 0's lines: the whole grid gathered in global line order (the blocks from their owners,
 * wherever the library left them), its mean and its checksum, so that the result does not
 * depend on the partition. */
static void report(const double *u, int count, int displ, MPI_Datatype line, const struct grid *g, int done,
                   int rank, int nprocs, double elapsed)
{
    int *counts = rank == 0 ? malloc(sizeof *counts * 2 * (size_t)nprocs) : NULL;
    int *displs = counts ? counts + nprocs : NULL;
    double *all = rank == 0 ? scratch((size_t)g->nx * (size_t)g->ny) : NULL;
    if (rank == 0 && !counts) {
        fputs("heat: out of memory for the gather's counts\n", stderr);
        MPI_Abort(COMM, EXIT_RUNTIME);
    }
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, COMM);
    MPI_Gather(&displ, 1, MPI_INT, displs, 1, MPI_INT, 0, COMM);
    MPI_Gatherv(u + g->nx, count, line, all, counts, displs, line, 0, COMM);
    if (rank == 0) {
        const size_t points = (size_t)g->nx * (size_t)g->ny;
        double sum = 0.0;
        for (size_t k = 0; k < points; k++)
            sum += all[k];
        char rows[256] = "";
        for (int r = 0, used = 0; r < nprocs && used < (int)sizeof rows - 16; r++)
            used += snprintf(rows + used, sizeof rows - (size_t)used, "%s%d", r ? "," : "", counts[r]);
        printf("result: nx=%d ny=%d iterations=%d ranks=%d mean=%.17e checksum=%016llx time=%.6f "
               "iter_time=%.6f rows=%s\n",
               g->nx, g->ny, done, nprocs, sum / (double)points,
               (unsigned long long)fnv1a64(FNV1A64_BASIS, all, points * sizeof *all), elapsed,
               done ? elapsed / done : 0.0, rows);
        fflush(stdout);
    }
    free(counts);
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();   /* a spawned process's clock; the others restart it below */
    int rank, nprocs, count = 0, displ = 0, it = 0, status = 0, warned = 0, joining = 0, left = 0;
    MPI_Comm_rank(COMM, &rank);
    MPI_Comm_size(COMM, &nprocs);
    struct options o;
    struct failure f = {0};
    struct timed tm = {0};
    parse_options(argc, argv, &o, &f);
    struct grid g = {(int)o.nx, (int)o.ny};
    double *u = NULL, *unew = NULL;
#ifndef XMPI_PLAIN
    joining = XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED;
    if (joining)   /* started by -d: the parents accepted the options and wait in XMPI_Eval_reconfig */
        must(XMPI_Get_app_data(&g, sizeof g, NULL), "XMPI_Get_app_data");
#endif
    if (!joining) {
        if (!f.code && o.ny < nprocs)
            fail(&f, EXIT_USAGE, "heat: %ld grid lines (-m) for %d ranks; each rank needs at least one\n", o.ny,
                 nprocs);
        if (stop_after_options(&f, rank, nprocs, o.help, usage, &status))
            goto done;
        even_block(rank, nprocs, g.ny, &count, &displ);
        u = alloc_array((size_t)(count + 2) * (size_t)g.nx, sizeof *u, &f);
        if ((status = agree(&f, rank, nprocs)))
            goto done;
        for (int i = 0; i < count + 2; i++)
            for (int j = 0; j < g.nx; j++)
                u[(size_t)i * g.nx + j] = i == 0 || i == count + 1 ? 0.0 : initial(displ + i - 1, j, &g);
    }
    MPI_Datatype line;
    MPI_Type_contiguous(g.nx, MPI_DOUBLE, &line);
    MPI_Type_commit(&line);
#ifndef XMPI_PLAIN
    /* The library moves the lines; u's buffer is the block between a ghost line above and below. */
    must(XMPI_Register_ghost(&u, g.ny, line, 1), "XMPI_Register_ghost");
    must(XMPI_Set_app_data(&g, sizeof g), "XMPI_Set_app_data");
    if (joining)
        must(XMPI_Get_data(&it), "XMPI_Get_data");
    int seen = -1, epoch;
#endif
    unew = scratch((size_t)count * (size_t)g.nx);
    if (joining) {
        timed_prepare(&tm, o.iterations - it);
        timed_start(&tm);
    } else {
        if (rank == 0) {
            printf("heat: grid %d x %d, iterations %ld, ranks %d, library %s\n", g.nx, g.ny, o.iterations, nprocs,
                   LIBRARY_NAME);
            fflush(stdout);
        }
        timed_prepare(&tm, o.iterations);
        MPI_Barrier(COMM);
        t0 = MPI_Wtime();
        timed_start(&tm);
    }
    for (; it < o.iterations; it++) {
#ifndef XMPI_PLAIN
        /* The lines moved (balancing, a spawn, a removal): this block anew, and scratch to match. */
        if (XMPI_Get_partition(&epoch, NULL, NULL) == XMPI_SUCCESS && epoch != seen) {
            seen = epoch;
            must(XMPI_Get_wsize(rank, nprocs, g.ny, &count, &displ), "XMPI_Get_wsize");
            free(unew);
            unew = scratch((size_t)count * (size_t)g.nx);
        }
#endif
        monitor_check(MONITOR_BEGIN(), "XMPI_Monitor_iter_begin", rank, &f, &warned);
#ifdef XMPI_PLAIN
        const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank + 1 < nprocs ? rank + 1 : MPI_PROC_NULL;
        MPI_Sendrecv(u + g.nx, 1, line, up, 0, u + (size_t)(count + 1) * g.nx, 1, line, down, 0, COMM,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + (size_t)count * g.nx, 1, line, down, 1, u, 1, line, up, 1, COMM, MPI_STATUS_IGNORE);
#else
        must(XMPI_Exchange(&u), "XMPI_Exchange");
#endif
        step(u, unew, count, displ, &g);
        memcpy(u + g.nx, unew, sizeof *u * (size_t)count * (size_t)g.nx);
        monitor_check(MONITOR_ADD_WORK(6.0 * count * g.nx), "XMPI_Monitor_add_work", rank, &f, &warned);
        monitor_check(MONITOR_END(), "XMPI_Monitor_iter_end", rank, &f, &warned);
        timed_stamp(&tm, MPI_Wtime() - t0);
        /* Nothing moves after the last step: the result is gathered from these blocks. */
        if (it + 1 == o.iterations)
            break;
        if (o.shuffle && (it + 1) % o.shuffle == 0)
            must(shuffle_rows(g.ny, (uint64_t)(it + 1), &count, &displ), "XMPI_Redistribute_data");
#ifndef XMPI_PLAIN
        if (o.dynamic)
            must(XMPI_Eval_reconfig(rank, nprocs, it, (int)o.iterations, &count, &displ, NULL, NULL, NULL),
                 "XMPI_Eval_reconfig");
        else if (o.balance)
            must(XMPI_Eval_lbalance(rank, nprocs, it, (int)o.iterations, &count, &displ, NULL), "XMPI_Eval_lbalance");
        if ((left = XMPI_Get_process_status() == XMPI_REMOVED))
            break;
        MPI_Comm_rank(COMM, &rank);
        MPI_Comm_size(COMM, &nprocs);
#endif
    }
    /* A removed process is no member of XMPI_COMM_WORLD any more: nothing to report. */
    if (left)
        goto done;
    double elapsed, mine_t = MPI_Wtime() - t0;
    if ((status = elapsed_agreed(t0, &f, rank, nprocs, &elapsed)))
        goto done;
    timed_report(&tm, mine_t, rank, nprocs, NULL);
    report(u, count, displ, line, &g, (int)o.iterations, rank, nprocs, elapsed);
    MPI_Type_free(&line);

done:
    free(u);
    free(unew);
    free(tm.stamp);
    MPI_Finalize();
    return status;
}
