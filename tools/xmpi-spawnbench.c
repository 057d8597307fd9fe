/* bin/xmpi-spawnbench: cost per process of XMPI_Spawn and XMPI_Remove for 1..N processes in
 * the job's spawn mode, beside raw MPI_Comm_spawn + MPI_Intercomm_merge, to a calibration file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xmpi.h"
#include "median.h"

enum { OP_STOP, OP_SPAWN, OP_REMOVE };
enum { MAXK = 64, MAXREPS = 50 };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: mpirun -np 2 xmpi-spawnbench [-n MAXPROCS] [-r REPS] [-o FILE] [--xmpi-spawn=single|group]\n"
            "  Measures, for k = 1, 2, 4, ... up to MAXPROCS (default 4), the cost per process of\n"
            "  XMPI_Spawn(k) and XMPI_Remove(k), and of the raw MPI_Comm_spawn + MPI_Intercomm_merge\n"
            "  the library is built on, in the spawn mode of the job (--xmpi-spawn), REPS times each\n"
            "  (default 3, the median is kept), each until the grown job has completed its first\n"
            "  barrier (Open MPI connects to new processes at their first message). Results are\n"
            "  printed and merged into FILE (default xmpi-calibration.txt): lines\n"
            "  'spawn|remove|raw MODE K SECONDS_PER_PROCESS', replacing earlier lines of the same\n"
            "  kind, mode and k, keeping all other lines.\n"
            "  Run it with --xmpi-oversubscribe (or a resource file) on machines with few cores.\n");
}

/* Spawned by XMPI_Spawn: follow rank 0's commands until removed or told to stop. */
static int follow(void)
{
    MPI_Barrier(XMPI_COMM_WORLD);   /* the grown job's first collective: the clock stops */
    for (;;) {
        int cmd[2];
        MPI_Bcast(cmd, 2, MPI_INT, 0, XMPI_COMM_WORLD);
        if (cmd[0] == OP_STOP) break;
        MPI_Barrier(XMPI_COMM_WORLD);   /* the parents start their clock after it */
        if (cmd[0] == OP_SPAWN) {
            XMPI_Spawn(NULL, NULL, cmd[1], MPI_INFO_NULL, NULL);
            MPI_Barrier(XMPI_COMM_WORLD);
        }
        if (cmd[0] == OP_REMOVE) {
            XMPI_Remove(cmd[1], NULL);
            if (XMPI_Get_process_status() == XMPI_REMOVED) break;
        }
    }
    MPI_Finalize();
    return 0;
}

static void order(int op, int k)
{
    int cmd[2] = {op, k};
    MPI_Bcast(cmd, 2, MPI_INT, 0, XMPI_COMM_WORLD);
}

/* The same growth the library performs, with plain MPI: one merge per MPI_Comm_spawn, every
 * member (earlier children too) taking part in the next spawn; children leave at the end.
 * Both measurements end when the grown job has completed its first collective (a barrier):
 * Open MPI connects to the new processes at their first communication, which the library's
 * join does and a bare merge leaves to the program's next call. */
static double raw_spawn(const char *child, int k, int group)
{
    MPI_Comm comm, inter, merged;
    MPI_Comm_dup(XMPI_COMM_WORLD, &comm);
    /* Placed as the library places: on this host, named through the "host" key. */
    MPI_Info info;
    char host[MPI_MAX_PROCESSOR_NAME];
    int len;
    MPI_Get_processor_name(host, &len);
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    int rounds = group ? 1 : k, per = group ? k : 1;
    for (int i = 0; i < rounds; i++) {
        char more[16], *args[] = {more, NULL};
        snprintf(more, sizeof more, "%d", rounds - 1 - i);
        MPI_Comm_spawn(child, args, per, info, 0, comm, &inter, MPI_ERRCODES_IGNORE);
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Comm_disconnect(&inter);
        MPI_Comm_free(&comm);
        comm = merged;
    }
    MPI_Barrier(comm);   /* the children leave after this */
    double t = MPI_Wtime() - t0;
    MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    return t;
}

/* Replaces this run's lines in FILE and keeps everything else. */
static int save(const char *path, const char *mode, int nk, const int *ks, double res[][3])
{
    static const char *const kinds[] = {"spawn", "remove", "raw"};
    char *keep = NULL;
    size_t keeplen = 0;
    FILE *in = fopen(path, "r"), *mem = open_memstream(&keep, &keeplen);
    if (!mem) return -1;
    char line[512];
    while (in && fgets(line, sizeof line, in)) {
        char kind[32], m[32];
        int k;
        int mine = sscanf(line, "%31s %31s %d", kind, m, &k) == 3 && !strcmp(m, mode);
        for (int i = 0; mine && i < nk; i++) {
            if (ks[i] != k) continue;
            for (int j = 0; j < 3; j++)
                if (!strcmp(kind, kinds[j])) goto skip;
        }
        if (strncmp(line, "# xmpi calibration", 18)) fputs(line, mem);
    skip:;
    }
    if (in) fclose(in);
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < 3; j++) fprintf(mem, "%s %s %d %.6f\n", kinds[j], mode, ks[i], res[i][j]);
    fclose(mem);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    int rc = out ? 0 : -1;
    if (out) {
        fprintf(out, "# xmpi calibration v1: KIND MODE K SECONDS_PER_PROCESS (written by xmpi-spawnbench)\n");
        fwrite(keep, 1, keeplen, out);
        rc = fclose(out) || rename(tmp, path) ? -1 : 0;
    }
    free(keep);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (XMPI_Get_process_status() == XMPI_NEWLY_SPAWNED) return follow();

    int rank, size, maxk = 4, reps = 3, bad = 0;
    const char *out = "xmpi-calibration.txt";
    MPI_Comm_rank(XMPI_COMM_WORLD, &rank);
    MPI_Comm_size(XMPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) maxk = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "-h")) bad = -1;
        else bad = 1;
    }
    if (maxk < 1 || maxk > MAXK || reps < 1 || reps > MAXREPS) bad = 1;
    if (bad) {
        if (rank == 0) usage(bad < 0 ? stdout : stderr);
        MPI_Finalize();
        return bad < 0 ? 0 : 2;
    }
    char mode[16] = "single";
    XMPI_Get_option("spawn", mode, sizeof mode);
    char child[4096];
    snprintf(child, sizeof child, "%s-child", argv[0]);

    int ks[16], nk = 0;
    for (int k = 1; k <= maxk && nk < 16; k *= 2) ks[nk++] = k;
    if (ks[nk - 1] != maxk && nk < 16) ks[nk++] = maxk;
    double res[16][3];
    for (int i = 0; i < nk; i++) {
        double sp[MAXREPS], rm[MAXREPS], raw[MAXREPS];
        for (int r = 0; r < reps; r++) {
            /* Alternate the raw and the library measurement so that drift hits both. */
            raw[r] = raw_spawn(child, ks[i], !strcmp(mode, "group")) / ks[i];
            order(OP_SPAWN, ks[i]);
            MPI_Barrier(XMPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int rc = XMPI_Spawn(argv[0], NULL, ks[i], MPI_INFO_NULL, NULL);
            if (rc == XMPI_SUCCESS) MPI_Barrier(XMPI_COMM_WORLD);
            sp[r] = (MPI_Wtime() - t0) / ks[i];
            if (rc != XMPI_SUCCESS) {
                if (rank == 0) fprintf(stderr, "xmpi-spawnbench: XMPI_Spawn(%d): %s\n", ks[i], XMPI_Error_string(rc));
                order(OP_STOP, 0);
                MPI_Finalize();
                return 1;
            }
            order(OP_REMOVE, ks[i]);
            MPI_Barrier(XMPI_COMM_WORLD);
            t0 = MPI_Wtime();
            XMPI_Remove(ks[i], NULL);
            rm[r] = (MPI_Wtime() - t0) / ks[i];
        }
        res[i][0] = bench_median(sp, reps);
        res[i][1] = bench_median(rm, reps);
        res[i][2] = bench_median(raw, reps);
        if (rank == 0)
            printf("spawnbench: %s k=%d: XMPI_Spawn %.4f s/process, raw spawn+merge %.4f s/process "
                   "(library %+.1f%%), XMPI_Remove %.5f s/process\n", mode, ks[i], res[i][0], res[i][2],
                   100 * (res[i][0] / res[i][2] - 1), res[i][1]);
        fflush(stdout);
    }
    int rc = 0;
    if (rank == 0 && save(out, mode, nk, ks, res)) {
        fprintf(stderr, "xmpi-spawnbench: cannot write %s\n", out);
        rc = 1;
    }
    if (rank == 0 && !rc) printf("spawnbench: wrote %s (%d processes launched the job)\n", out, size);
    MPI_Finalize();
    return rc;
}
