/* bin/xmpi-crbench: XMPI_Checkpoint and the restart's XMPI_Get_data against a bare collective
 * MPI-IO write and read of the same bytes, alternated in one job (scripts/bench-cr.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmpi.h"
#include "../tools/median.h"

#define MIB (1024.0 * 1024.0)
enum { MAXREPS = 50 };

static int rank, nprocs;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpirun -np P xmpi-crbench -d DIR [-s MIB] [-r REPS] --xmpi-checkpoint=DIR\n"
            "       mpirun -np P xmpi-crbench -d DIR -s MIB --read --xmpi-restart=DIR/NAME\n"
            "  Write (default): a registered distributed dense matrix of MIB in all (default 256),\n"
            "  REPS times (default 5) alternately XMPI_Checkpoint(\"crbench-K\") and a bare\n"
            "  MPI_File_write_at_all of the same bytes (each process its block at its offset,\n"
            "  MPI_File_sync, close) into a new file DIR/bare-K; prints the median seconds, GB/s\n"
            "  and the ratio.\n"
            "  Each checkpoint is removed after it is timed. The last bare file is kept for --read.\n"
            "  --read (a job started with --xmpi-restart): times XMPI_Get_data, which loads the\n"
            "  checkpoint, and a bare MPI_File_read_at_all of DIR/bare-last of the same size into a\n"
            "  new buffer (as the library's); the order alternates with -o 0|1 (0: library first).\n");
}

static double wall(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    return MPI_Wtime();
}

/* A bare collective write of `bytes` at `off` into path, synced: what a checkpoint does at
 * least, without the manifest, the checksum or the publication. */
static double bare_write(const char *path, const void *buf, size_t bytes, MPI_Offset off)
{
    double t0 = wall();
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_File_write_at_all(fh, off, buf, (int)(bytes / sizeof(double)), MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_File_close(&fh);
    return wall() - t0;
}

static double sum(const double *x, size_t bytes)
{
    double s = 0;
    for (size_t i = 0; i < bytes / sizeof *x; i++) s += x[i];
    return s;
}

static double bare_read(const char *path, void *buf, size_t bytes, MPI_Offset off)
{
    double t0 = wall();
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_File_read_at_all(fh, off, buf, (int)(bytes / sizeof(double)), MPI_DOUBLE,
                         MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    return wall() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *dir = NULL;
    double mib = 256;
    int reps = 5, read = 0, order = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-d") && i + 1 < argc) dir = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) mib = atof(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) order = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--read")) read = 1;
        else {
            if (rank == 0) usage(strcmp(argv[i], "-h") ? stderr : stdout);
            MPI_Finalize();
            return strcmp(argv[i], "-h") ? 2 : 0;
        }
    }
    if (!dir || !(mib > 0) || reps < 1 || reps > MAXREPS) {
        if (rank == 0) usage(stderr);
        MPI_Finalize();
        return 2;
    }
    /* A square matrix of about MIB in all, rows in even blocks. */
    int n = 1;
    while ((double)(n + 1) * (n + 1) * sizeof(double) <= mib * MIB) n++;
    int count, displ;
    XMPI_Get_wsize(rank, nprocs, n, &count, &displ);
    size_t bytes = (size_t)count * (size_t)n * sizeof(double);
    MPI_Offset off = (MPI_Offset)displ * n * (MPI_Offset)sizeof(double);
    double total = (double)n * n * sizeof(double);
    char path[4096];
    snprintf(path, sizeof path, "%s/bare-last", dir);

    double *a = NULL;
    if (read) {
        /* Restarted: the library fills the matrix; the bare read goes to a buffer of its own,
         * new as the library's are (a restarted program has no memory touched before). */
        double *mine = malloc(bytes ? bytes : 1);
        if (!mine) MPI_Abort(MPI_COMM_WORLD, 3);
        XMPI_Register_dense(&a, n, MPI_DOUBLE, XMPI_DISTRIBUTED);
        double t_lib = 0, t_bare = 0;
        int it = 0;
        for (int k = 0; k < 2; k++) {
            if ((k == 0) == (order == 0)) {
                double t0 = wall();
                if (XMPI_Get_data(&it) != XMPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
                t_lib = wall() - t0;
            } else {
                t_bare = bare_read(path, mine, bytes, off);
            }
        }
        /* The program's first pass over the data it got (a sum): on a VM with shadow page
         * tables the first user-mode touch of pages the kernel filled costs as much as a
         * slow read, and the restart's checksum has already paid it for its buffer. */
        double t_pass_lib = wall(), s_lib = sum(a, bytes);
        t_pass_lib = wall() - t_pass_lib;
        double t_pass_bare = wall(), s_bare = sum(mine, bytes);
        t_pass_bare = wall() - t_pass_bare;
        long long bad = memcmp(a, mine, bytes) != 0 || s_lib != s_bare, all = 0;
        MPI_Reduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("read %d procs %.0f MiB order %d: restart %.4f s (%.2f GB/s), bare %.4f s "
                   "(%.2f GB/s), ratio %.3f; with the first pass over the data: %.4f s, %.4f s, "
                   "ratio %.3f; data %s\n", nprocs, total / MIB, order, t_lib,
                   total / t_lib / 1e9, t_bare, total / t_bare / 1e9, t_bare / t_lib,
                   t_lib + t_pass_lib, t_bare + t_pass_bare,
                   (t_bare + t_pass_bare) / (t_lib + t_pass_lib), all ? "DIFFER" : "identical");
        free(mine);
        MPI_Finalize();
        return all ? 1 : 0;
    }

    a = malloc(bytes ? bytes : 1);
    if (!a) MPI_Abort(MPI_COMM_WORLD, 3);
    for (size_t r = 0; r < (size_t)count; r++)
        for (size_t j = 0; j < (size_t)n; j++) a[r * n + j] = (double)((displ + r) * (size_t)n + j);
    XMPI_Register_dense(&a, n, MPI_DOUBLE, XMPI_DISTRIBUTED);
    XMPI_Redistribute_data(count, displ, count, displ);   /* records the blocks */
    double t_lib[MAXREPS], t_bare[MAXREPS];
    for (int k = 0; k < reps; k++) {
        char name[64], cmd[8400], bare[4200];
        snprintf(name, sizeof name, "crbench-%d", k);
        for (int pass = 0; pass < 2; pass++) {
            if ((pass == 0) == (k % 2 == 0)) {
                double t0 = wall();
                if (XMPI_Checkpoint(name) != XMPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
                t_lib[k] = wall() - t0;
            } else {
                /* A new file each time, as every checkpoint is: rewriting one file in place
                 * skips the block allocation a new file pays, and made the baseline faster. */
                snprintf(bare, sizeof bare, "%s/bare-%d", dir, k);
                t_bare[k] = bare_write(bare, a, bytes, off);
            }
        }
        /* The last ones stay for --read (the bare file as bare-last); the others go (not
         * timed). */
        if (rank == 0 && k < reps - 1) {
            snprintf(cmd, sizeof cmd, "rm -rf '%s/%s' '%s'", dir, name, bare);
            if (system(cmd) != 0) fprintf(stderr, "xmpi-crbench: could not remove %s\n", name);
        }
        if (rank == 0 && k == reps - 1 && rename(bare, path) != 0)
            fprintf(stderr, "xmpi-crbench: could not rename %s to %s\n", bare, path);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double ml = bench_median_copy(t_lib, reps), mb = bench_median_copy(t_bare, reps);
    if (rank == 0)
        printf("write %d procs %.0f MiB, %d reps: checkpoint %.4f s (%.2f GB/s), bare %.4f s "
               "(%.2f GB/s), ratio %.3f; last checkpoint %s/crbench-%d\n", nprocs, total / MIB,
               reps, ml, total / ml / 1e9, mb, total / mb / 1e9, mb / ml, dir, reps - 1);
    free(a);
    MPI_Finalize();
    return 0;
}
