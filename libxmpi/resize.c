/* Resizing by checkpoint and restart: the act step's other way to grow or shrink a job, for
 * MPI libraries that cannot spawn, shrinks below the processes mpirun started, and resizes the
 * model prices cheaper this way (docs/checkpoint.md#resizing-by-checkpoint-and-restart). */
#include "resize.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../policies/resize.h"
#include "context.h"
#include "xmpi.h"

#define PATHLEN (XMPIR_PATH_MAX + 64)
#pragma GCC diagnostic ignored "-Wformat-truncation"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds from this process's start (exec) to now, from /proc; -1 when unknown. */
static double own_startup(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return -1;
    char line[1024];
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    /* Field 22, starttime in clock ticks since boot; fields from 3 on follow the last ')'. */
    char *p = strrchr(line, ')');
    if (!p) return -1;
    p++;
    for (int field = 3; field < 22 && p; field++) {
        while (*p == ' ') p++;
        p = strchr(p, ' ');
    }
    if (!p) return -1;
    unsigned long long ticks = strtoull(p, NULL, 10);
    long hz = sysconf(_SC_CLK_TCK);
    struct timespec ts;
    if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts)) return -1;
    double up = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec, start = (double)ticks / (double)hz;
    return up >= start ? up - start : -1;
}

/* Under --xmpi-rms=slurm the allocation grows only for a spawn (an expansion): a relaunch at a
 * larger size would start processes on nodes the job does not hold. */
static int under_slurm(const struct xmpi_ctx *cx)
{
    return !strcmp(cx->opts.rms, "slurm");
}

int xmpi_resize_possible(const struct xmpi_ctx *cx)
{
    return cx->opts.checkpoint[0] && !under_slurm(cx) &&
           (cx->opts.resize == XMPIR_RESIZE_RESTART ||
            (cx->opts.resize == XMPIR_RESIZE_AUTO && cx->opts.relaunch));
}

int xmpi_resize_removable(const struct xmpi_ctx *cx, const char *cls)
{
    const struct xmpi_sched *sc = &cx->world.sched;
    int n = 0;
    for (int i = 0; i < sc->nprocs; i++) n += !strcmp(cx->world.pool.hosts[sc->procs[i].host].cls, cls);
    return n < sc->nprocs - 1 ? n : sc->nprocs - 1;
}

/* The checkpoint directory's RESIZE file. */
static void record_path(const struct xmpi_ctx *cx, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", cx->opts.checkpoint, XMPIR_RESIZE_FILE);
}

void xmpi_resize_check(struct xmpi_ctx *cx, char *err, size_t len)
{
    struct xmpi_resize_rt *rl = &cx->resize;
    if (cx->opts.resize == XMPIR_RESIZE_RESTART && !cx->opts.checkpoint[0]) {
        snprintf(err, len, "xmpi: option --xmpi-resize=restart: needs --xmpi-checkpoint=DIR, "
                 "where the checkpoint the job is relaunched from goes; or give "
                 "--xmpi-resize=auto or spawn");
        return;
    }
    if (cx->opts.resize == XMPIR_RESIZE_RESTART && under_slurm(cx)) {
        snprintf(err, len, "xmpi: option --xmpi-resize=restart: not with --xmpi-rms=slurm, whose "
                 "allocation grows only for a spawn (a relaunch at a larger size would start "
                 "processes outside it); give --xmpi-resize=auto or spawn");
        return;
    }
    if (!cx->ckpt.manifest || !cx->opts.checkpoint[0]) return;
    char path[PATHLEN];
    record_path(cx, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return;   /* no resize before this start: a crash's relaunch, or a first run */
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    int big = !feof(f);
    fclose(f);
    text[n] = '\0';
    char why[600];
    struct xmpi_resize_record rec;
    if (big || xmpi_resize_record_parse(text, path, &rec, why, sizeof why)) {
        xmpi_note(cx, 0, "%s: %s; not taken: the run's clock, AMP's goal and the cost account "
                  "start again", path, big ? "longer than 4 KiB" : why);
        return;
    }
    const char *slash = strrchr(cx->ckpt.restart_dir, '/');
    const char *leaf = slash ? slash + 1 : cx->ckpt.restart_dir;
    if (strcmp(leaf, rec.checkpoint)) return;   /* another checkpoint's: not this relaunch */
    rl->relaunched = 1;
    rl->rec = rec;
    /* It served: a later restart from the same checkpoint (a crash) is not a resize. */
    unlink(path);
}

void xmpi_resize_start(struct xmpi_ctx *cx)
{
    struct xmpi_resize_rt *rl = &cx->resize;
    if (!xmpi_resize_possible(cx)) return;
    double mine = own_startup(), worst = mine;
    PMPI_Reduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, cx->comm);
    double elapsed = -1;
    if (cx->rank == 0) {
        rl->meas = (struct xmpi_resize_measured){0, 0, -1, worst};
        if (rl->relaunched) {
            const struct xmpi_resize_record *r = &rl->rec;
            double gap = wall_now() - r->at;
            if (gap < 0) gap = 0;   /* clocks of two hosts */
            elapsed = r->elapsed + gap;
            rl->meas.start_s = gap;
            if (r->write_seconds > 0 && r->bytes > 0) rl->meas.write_bps = r->bytes / r->write_seconds;
            if (r->read_seconds > 0 && r->bytes > 0) rl->meas.read_bps = r->bytes / r->read_seconds;
            rl->bytes = r->bytes;
            cx->amp.goal = r->amp_goal;
            cx->amp.static_estimate = r->amp_static;
            if (r->amp_goal > 0) cx->amp.started = 1;
            cx->cost.total = r->cost_total;
            cx->cost.pe_seconds = r->cost_pe_seconds;
            cx->cost.first_rate = r->cost_first_rate;
            cx->cost.steps = r->cost_first_rate >= 0;
            cx->cost.last_elapsed = elapsed;   /* no process ran during the relaunch */
            xmpi_note(cx, 1, "relaunched at %d processes (from %d) %.3f s after the job ended "
                      "for it; the run's clock goes on from %.3f s", cx->size, r->from, gap,
                      elapsed);
        }
    }
    PMPI_Bcast(&elapsed, 1, MPI_DOUBLE, 0, cx->comm);
    if (elapsed >= 0) cx->t0 = PMPI_Wtime() - elapsed;
}

double xmpi_resize_price(const struct xmpi_ctx *cx)
{
    const struct xmpi_resize_rt *rl = &cx->resize;
    const struct xmpi_ckpt_state *ck = &cx->ckpt;
    struct xmpi_resize_measured m = rl->meas;
    double bytes = rl->bytes;
    if (ck->last_seconds > 0 && ck->last_bytes > 0) {
        m.write_bps = ck->last_bytes / ck->last_seconds;
        bytes = ck->last_bytes;
    }
    if (ck->read_seconds > 0 && ck->read_bytes > 0) m.read_bps = ck->read_bytes / ck->read_seconds;
    struct xmpi_resize_estimate e;
    return xmpi_resize_predict(&m, bytes, &e) ? -1 : e.total;
}

static int put_record(FILE *f, const void *r)
{
    return xmpi_resize_record_write(f, r);
}

/* Rank 0: the record, published atomically beside the checkpoints. */
static int write_record(struct xmpi_ctx *cx, int nprocs, char *why, size_t len)
{
    struct xmpi_resize_rt *rl = &cx->resize;
    const struct xmpi_ckpt_state *ck = &cx->ckpt;
    struct xmpi_resize_record r = {
        .nprocs = nprocs, .from = cx->size, .elapsed = PMPI_Wtime() - cx->t0, .at = wall_now(),
        .write_seconds = ck->last_seconds, .bytes = ck->last_bytes,
        .start_seconds = rl->meas.start_s >= 0 ? rl->meas.start_s : -1,
        .read_seconds = ck->read_seconds > 0 ? ck->read_seconds
                        : rl->relaunched && rl->rec.read_seconds > 0 ? rl->rec.read_seconds : -1,
        .amp_goal = cx->amp.goal > 0 ? cx->amp.goal : 0,
        .amp_static = cx->amp.static_estimate > 0 ? cx->amp.static_estimate : 0,
        .cost_total = cx->cost.total, .cost_pe_seconds = cx->cost.pe_seconds,
        .cost_first_rate = cx->cost.steps > 0 ? cx->cost.first_rate : -1};
    snprintf(r.checkpoint, sizeof r.checkpoint, "%s", ck->last_leaf);
    errno = 0;
    if (xmpi_ckpt_publish_file(cx->opts.checkpoint, XMPIR_RESIZE_FILE, put_record, &r)) {
        char path[PATHLEN];
        record_path(cx, path, sizeof path);
        snprintf(why, len, "cannot write %s: %s", path, errno ? strerror(errno) : "write error");
        return -1;
    }
    return 0;
}

int xmpi_resize_prepare(struct xmpi_ctx *cx)
{
    /* the checkpoint says why on rank 0 when it fails */
    return xmpi_ckpt_now(cx, "--xmpi-resize=restart");
}

int xmpi_resize_commit(struct xmpi_ctx *cx, int nprocs)
{
    int rc = XMPI_SUCCESS;
    char why[PATHLEN + 200] = "";
    if (cx->rank == 0 && write_record(cx, nprocs, why, sizeof why)) rc = XMPI_ERR_CHECKPOINT;
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc) xmpi_note(cx, 0, "--xmpi-resize: %s; the job is not resized and goes on with its %d "
                      "processes", why, cx->size);
    return rc;
}

void xmpi_resize_exit(struct xmpi_ctx *cx)
{
    int me = cx->rank;
    MPI_Finalize();
    fflush(stdout);
    fflush(stderr);
    exit(me == 0 ? XMPIR_RESIZE_EXIT : 0);
}
