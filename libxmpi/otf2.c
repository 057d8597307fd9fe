/* --xmpi-otf2=DIR: each process writes its events as a one-location OTF2 archive of its own in
 * DIR/.xmpi-otf2/LOCATION/ (OTF2's serial mode), and records when it closed them in
 * LOCATION.info beside it. At MPI_Finalize rank 0 writes the archive's anchor, the global
 * definitions (every location the job ever had, the regions, the clock) and the markers into
 * DIR, and moves each location's event and definition files into DIR/traces/. OTF2's own
 * collective writing is not used: its collectives run over one group fixed at the start, and
 * this job's processes come and go. */
#include "otf2.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../io/interval.h"
#include "../io/version.h"
#include "context.h"
#include "xmpi.h"

#ifdef XMPI_HAVE_OTF2
#include <otf2/otf2.h>
#endif

/* Where the locations' own archives wait for rank 0, inside DIR. */
#define XMPIR_OTF2_PARTS ".xmpi-otf2"
/* Regions open at once on one location: the iteration, an interval's end inside it, an
 * action inside that, an MPI call: a few, with room. */
#define XMPIR_OTF2_DEPTH 16
/* OTF2 keeps at most this many chunks of a location's events in memory, then writes them:
 * memory stays bounded however long the job runs. */
#define XMPIR_OTF2_CHUNK (1u << 20)
#define XMPIR_OTF2_CHUNKS 2
/* How long rank 0 waits at MPI_Finalize for a removed process to close its location. */
#define XMPIR_OTF2_WAIT_S 10

#ifdef XMPI_HAVE_OTF2
/* The parts of DIR an earlier archive of this writer has: what may be replaced. */
static int archive_file(const char *name)
{
    return !strcmp(name, "traces.otf2") || !strcmp(name, "traces.def") ||
           !strcmp(name, "traces.marker") || !strcmp(name, "traces") ||
           !strcmp(name, XMPIR_OTF2_PARTS);
}

/* A location's file in DIR/traces: digits, then .evt or .def. */
static int location_file(const char *name)
{
    size_t d = strspn(name, "0123456789");
    return d > 0 && (!strcmp(name + d, ".evt") || !strcmp(name + d, ".def"));
}

/* DIR holds nothing but an earlier archive (or nothing): 0; else -1 with the first other
 * entry's name in `other`. */
static int only_archive(const char *dir, char *other, size_t len)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (!archive_file(e->d_name)) {
            snprintf(other, len, "%s", e->d_name);
            rc = -1;
        } else if (!strcmp(e->d_name, "traces")) {
            char sub[XMPIR_PATH_MAX + 16];
            snprintf(sub, sizeof sub, "%s/traces", dir);
            DIR *t = opendir(sub);
            struct dirent *f;
            while (t && !rc && (f = readdir(t)) != NULL)
                if (strcmp(f->d_name, ".") && strcmp(f->d_name, "..") &&
                    !location_file(f->d_name)) {
                    snprintf(other, len, "traces/%.200s", f->d_name);
                    rc = -1;
                }
            if (t) closedir(t);
        }
    }
    closedir(d);
    return rc;
}
#endif

int xmpi_otf2_check(const struct xmpi_ctx *cx, char *err, size_t len)
{
    const char *dir = cx->opts.otf2;
#ifndef XMPI_HAVE_OTF2
    (void)dir;
    snprintf(err, len, "xmpi: option --xmpi-otf2: this libxmpi was built without OTF2 (the "
             "OTF2 library, Debian's libotf2-trace-dev, was not installed when it was built); "
             "rebuild it with OTF2 (scripts/install-deps.sh installs it), or leave the option out");
    return -1;
#else
    struct stat st;
    char other[256];
    if (stat(dir, &st) != 0) {
        char parent[XMPIR_PATH_MAX];
        snprintf(parent, sizeof parent, "%s", dir);
        char *slash = strrchr(parent, '/');
        while (slash && slash > parent && slash[1] == '\0') {   /* DIR/ */
            *slash = '\0';
            slash = strrchr(parent, '/');
        }
        if (!slash) snprintf(parent, sizeof parent, ".");
        else if (slash == parent) parent[1] = '\0';
        else *slash = '\0';
        if (errno != ENOENT || stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(err, len, "xmpi: option --xmpi-otf2: '%s' is not accepted; its parent "
                     "directory '%s' does not exist; expected a directory to create in an "
                     "existing one", dir, parent);
            return -1;
        }
        if (access(parent, W_OK | X_OK)) {
            snprintf(err, len, "xmpi: option --xmpi-otf2: cannot create '%s': the directory "
                     "'%s' is not writable", dir, parent);
            return -1;
        }
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, len, "xmpi: option --xmpi-otf2: '%s' is not accepted; it exists and is not "
                 "a directory; expected a new or empty directory, or one with an earlier OTF2 "
                 "archive of libxmpi (which the new one replaces)", dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK)) {
        snprintf(err, len, "xmpi: option --xmpi-otf2: cannot write into '%s': it is not "
                 "writable", dir);
        return -1;
    }
    if (only_archive(dir, other, sizeof other)) {
        snprintf(err, len, "xmpi: option --xmpi-otf2: '%s' is not accepted; it holds '%.200s', "
                 "which is no part of an OTF2 archive of libxmpi; expected a new or empty "
                 "directory, or one with an earlier archive (which the new one replaces)", dir,
                 other);
        return -1;
    }
    return 0;
#endif
}

#ifndef XMPI_HAVE_OTF2

/* Without OTF2 the option is refused at start-up: nothing ever records. */
void xmpi_otf2_start(struct xmpi_ctx *cx) { cx->otf2.ever = cx->size; }
void xmpi_otf2_enter(struct xmpi_ctx *cx, enum xmpi_otf2_region r) { (void)cx, (void)r; }
void xmpi_otf2_leave(struct xmpi_ctx *cx, enum xmpi_otf2_region r, const char *what)
{
    (void)cx, (void)r, (void)what;
}
void xmpi_otf2_enter_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t)
{
    (void)cx, (void)r, (void)t;
}
void xmpi_otf2_leave_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t)
{
    (void)cx, (void)r, (void)t;
}
void xmpi_otf2_mpi(struct xmpi_ctx *cx, int op, double t0, double t1)
{
    (void)cx, (void)op, (void)t0, (void)t1;
}
void xmpi_otf2_merged(struct xmpi_ctx *cx, int nnew, int joined) { (void)cx, (void)nnew, (void)joined; }
void xmpi_otf2_removed(struct xmpi_ctx *cx) { (void)cx; }
void xmpi_otf2_finish(struct xmpi_ctx *cx) { (void)cx; }

#else

/* ---- one location's writer ----------------------------------------------------------------- */

struct frame {
    int region;
    uint64_t t;
    int size;                  /* XMPI_COMM_WORLD's size when it was entered */
};

struct marker {
    uint64_t t, duration;
    int category;              /* enum xmpi_otf2_region: spawn, remove, move, checkpoint */
    char text[128];
};

struct xmpi_otf2_writer {
    OTF2_Archive *archive;
    OTF2_EvtWriter *evt;
    uint64_t loc;
    int rank, spawned;         /* its rank when it opened; 1 for a process that joined */
    double base_w;             /* PMPI_Wtime ... */
    uint64_t base_ns;          /* ... and CLOCK_REALTIME (ns) read together: the clock map */
    uint64_t first, last;      /* timestamps of its first and last events */
    int any;
    struct frame stack[XMPIR_OTF2_DEPTH];
    int depth, deeper;         /* open regions; those beyond the stack (not recorded) */
    int broken;                /* a write failed: it records nothing more */
    int closed;                /* its files are closed and its .info written */
    char part[XMPIR_PATH_MAX + 64];
    /* rank 0: the markers of the job's actions, written into the archive at the end */
    struct marker *marks;
    int nmarks, capmarks;
    int markers_lost;
};

/* OTF2's last error, said once by broken(): its own handler would print each on stderr. */
static char otf2_error[256];

static OTF2_ErrorCode on_error(void *user, const char *file, uint64_t line, const char *function,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user, (void)file, (void)line, (void)function;
    char msg[200];
    vsnprintf(msg, sizeof msg, fmt ? fmt : "", va);
    snprintf(otf2_error, sizeof otf2_error, "%s: %s", OTF2_Error_GetName(code), msg);
    return code;
}

static void broken(struct xmpi_ctx *cx, const char *what)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    cx->otf2.on = 0;
    if (w && w->broken) return;
    if (w) w->broken = 1;
    fprintf(stderr, "xmpi: rank %d: option --xmpi-otf2: %s failed (%s); this process records "
            "no more events\n", cx->rank, what, otf2_error[0] ? otf2_error : "no reason given");
}

/* A clock reading (PMPI_Wtime) as the archive's timestamp: nanoseconds of CLOCK_REALTIME, the
 * clock processes on every host share. Never earlier than the location's last event, which
 * OTF2 requires. */
static uint64_t stamp(struct xmpi_otf2_writer *w, double t)
{
    double d = (t - w->base_w) * 1e9;
    uint64_t ts = d > 0 ? w->base_ns + (uint64_t)d : w->base_ns;
    if (ts < w->last) ts = w->last;
    w->last = ts;
    if (!w->any) w->first = ts, w->any = 1;
    return ts;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

/* The buffer-flush record OTF2 writes: stamped with the last event's time, so that the
 * location's records stay in order. */
static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)type, (void)loc;
    const struct xmpi_otf2_writer *w = user;
    return w ? w->last : 0;
}

static OTF2_FlushCallbacks flush_callbacks = {pre_flush, post_flush};

/* A buffer's chunks, freed together when OTF2 has written them. */
struct chunks {
    void *list;                /* each chunk's first word links the one before */
    int n;
};

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                         uint64_t size)
{
    (void)user, (void)type, (void)loc;
    struct chunks *c = *per;
    if (!c && !(c = *per = calloc(1, sizeof *c))) return NULL;
    /* NULL makes OTF2 write what it holds and free it before asking again. */
    if (c->n >= XMPIR_OTF2_CHUNKS) return NULL;
    void **p = malloc(sizeof(void *) * 2 + size);
    if (!p) return NULL;
    p[0] = c->list;
    c->list = p;
    c->n++;
    return p + 2;   /* two words keep the chunk 16-byte aligned */
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per,
                           bool final)
{
    (void)user, (void)type, (void)loc;
    struct chunks *c = *per;
    if (!c) return;
    while (c->list) {
        void **p = c->list;
        c->list = p[0];
        free(p);
    }
    c->n = 0;
    if (final) {
        free(c);
        *per = NULL;
    }
}

static OTF2_MemoryCallbacks memory_callbacks = {chunk_alloc, chunk_free_all};

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        unlink(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char p[XMPIR_PATH_MAX + 300];
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(p);
        else unlink(p);
    }
    closedir(d);
    rmdir(path);
}

static void write_metric(struct xmpi_ctx *cx, double t)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (!cx->otf2.on) return;
    OTF2_Type type = OTF2_TYPE_INT64;
    OTF2_MetricValue v;
    v.signed_int = cx->size;
    if (OTF2_EvtWriter_Metric(w->evt, NULL, stamp(w, t), 0, 1, &type, &v) != OTF2_SUCCESS)
        broken(cx, "writing an event");
}

static void open_location(struct xmpi_ctx *cx, long loc, int spawned)
{
    struct xmpi_otf2_writer *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, "xmpi: rank %d: option --xmpi-otf2: out of memory; this process records "
                "no events\n", cx->rank);
        return;
    }
    cx->otf2.w = w;
    w->loc = (uint64_t)loc;
    w->rank = cx->rank;
    w->spawned = spawned;
    OTF2_Error_RegisterCallback(on_error, NULL);
    char parts[XMPIR_PATH_MAX + 32];
    snprintf(parts, sizeof parts, "%s/" XMPIR_OTF2_PARTS, cx->opts.otf2);
    mkdir(parts, 0777);
    snprintf(w->part, sizeof w->part, "%s/%ld", parts, loc);
    remove_tree(w->part);
    w->archive = OTF2_Archive_Open(w->part, "traces", OTF2_FILEMODE_WRITE, XMPIR_OTF2_CHUNK,
                                   4 * XMPIR_OTF2_CHUNK, OTF2_SUBSTRATE_POSIX,
                                   OTF2_COMPRESSION_NONE);
    if (!w->archive || OTF2_Archive_SetFlushCallbacks(w->archive, &flush_callbacks, w) ||
        OTF2_Archive_SetMemoryCallbacks(w->archive, &memory_callbacks, NULL) ||
        OTF2_Archive_SetSerialCollectiveCallbacks(w->archive) ||
        OTF2_Archive_OpenEvtFiles(w->archive) ||
        !(w->evt = OTF2_Archive_GetEvtWriter(w->archive, w->loc))) {
        broken(cx, "opening its location's files");
        return;
    }
    struct timespec ts;
    w->base_w = PMPI_Wtime();
    clock_gettime(CLOCK_REALTIME, &ts);
    w->base_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    cx->otf2.on = 1;
    write_metric(cx, w->base_w);
}

/* Closes this process's location: its open regions left, its files written, then its .info
 * (written whole by a rename: rank 0 takes its presence for the location's end; a location
 * that could not be opened or written says ok 0, and rank 0 leaves it out at once). */
static void close_location(struct xmpi_ctx *cx)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (!w || w->closed) return;
    w->closed = 1;
    uint64_t nevents = 0;
    int ok = cx->otf2.on && w->archive;
    if (ok) {
        while (w->depth > 0) {
            w->depth--;
            if (OTF2_EvtWriter_Leave(w->evt, NULL, w->last,
                                     (OTF2_RegionRef)w->stack[w->depth].region)) {
                broken(cx, "writing an event");
                ok = 0;
                break;
            }
        }
    }
    cx->otf2.on = 0;
    if (w->archive) {
        if (w->evt) OTF2_EvtWriter_GetNumberOfEvents(w->evt, &nevents);
        if (w->evt && OTF2_Archive_CloseEvtWriter(w->archive, w->evt)) ok = 0;
        w->evt = NULL;
        if (OTF2_Archive_CloseEvtFiles(w->archive) || OTF2_Archive_OpenDefFiles(w->archive))
            ok = 0;
        OTF2_DefWriter *dw = ok ? OTF2_Archive_GetDefWriter(w->archive, w->loc) : NULL;
        if (!dw || OTF2_Archive_CloseDefWriter(w->archive, dw) ||
            OTF2_Archive_CloseDefFiles(w->archive))
            ok = 0;
        if (OTF2_Archive_Close(w->archive)) ok = 0;
        w->archive = NULL;
    }
    if (!ok) broken(cx, "closing its location's files");
    char info[XMPIR_PATH_MAX + 80], tmp[XMPIR_PATH_MAX + 96], host[256] = "";
    gethostname(host, sizeof host - 1);
    for (char *p = host; *p; p++)
        if (*p == ' ' || *p == '\n') *p = '_';
    snprintf(info, sizeof info, "%s.info", w->part);
    snprintf(tmp, sizeof tmp, "%s.info.tmp", w->part);
    FILE *f = fopen(tmp, "w");
    if (f) {
        fprintf(f, "ok %d\nlocation %llu\nrank %d\nspawned %d\nhost %s\npid %ld\nevents %llu\n"
                "first %llu\nlast %llu\n", ok, (unsigned long long)w->loc, w->rank, w->spawned,
                host[0] ? host : "unknown", (long)getpid(), (unsigned long long)nevents,
                (unsigned long long)w->first, (unsigned long long)w->last);
        if (fclose(f) == 0) rename(tmp, info);
    }
}

static void free_writer(struct xmpi_ctx *cx)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (!w) return;
    free(w->marks);
    free(w);
    cx->otf2.w = NULL;
    cx->otf2.on = 0;
}

/* ---- events ------------------------------------------------------------------------------- */

void xmpi_otf2_enter_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t)
{
    if (!cx->otf2.on) return;
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (w->depth == XMPIR_OTF2_DEPTH) {
        w->deeper++;
        return;
    }
    uint64_t ts = stamp(w, t);
    w->stack[w->depth++] = (struct frame){(int)r, ts, cx->size};
    if (OTF2_EvtWriter_Enter(w->evt, NULL, ts, (OTF2_RegionRef)r) != OTF2_SUCCESS)
        broken(cx, "writing an event");
}

/* Rank 0: the marker of an action's region, from its entry to now. */
static void add_marker(struct xmpi_ctx *cx, const struct frame *f, uint64_t now, const char *what)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (w->nmarks == w->capmarks) {
        int cap = w->capmarks ? 2 * w->capmarks : 64;
        struct marker *m = realloc(w->marks, sizeof *m * (size_t)cap);
        if (!m) {
            w->markers_lost++;
            return;
        }
        w->marks = m;
        w->capmarks = cap;
    }
    struct marker *m = &w->marks[w->nmarks++];
    m->t = f->t;
    m->duration = now - f->t;
    m->category = f->region;
    int n = 0;
    switch (f->region) {
    case XMPIR_OTF2_SPAWN:
        n = snprintf(m->text, sizeof m->text, "spawn: %d -> %d processes", f->size, cx->size);
        break;
    case XMPIR_OTF2_REMOVE:
        n = snprintf(m->text, sizeof m->text, "removal: %d -> %d processes", f->size, cx->size);
        break;
    case XMPIR_OTF2_MOVE: n = snprintf(m->text, sizeof m->text, "rows moved"); break;
    default: n = snprintf(m->text, sizeof m->text, "checkpoint"); break;
    }
    if (what && n > 0 && (size_t)n < sizeof m->text)
        snprintf(m->text + n, sizeof m->text - (size_t)n, " (%s)", what);
}

static void leave_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t, const char *what)
{
    if (!cx->otf2.on) return;
    struct xmpi_otf2_writer *w = cx->otf2.w;
    if (w->deeper > 0) {
        w->deeper--;
        return;
    }
    /* Regions close in the order they opened; one left open inside r (an error path that
     * returned early) is closed with it. */
    int k = w->depth - 1;
    while (k >= 0 && w->stack[k].region != (int)r) k--;
    if (k < 0) return;
    uint64_t ts = stamp(w, t);
    while (w->depth > k) {
        struct frame *f = &w->stack[--w->depth];
        if (OTF2_EvtWriter_Leave(w->evt, NULL, ts, (OTF2_RegionRef)f->region) != OTF2_SUCCESS) {
            broken(cx, "writing an event");
            return;
        }
    }
    if (cx->rank == 0 && r >= XMPIR_OTF2_MOVE) add_marker(cx, &w->stack[k], ts, what);
}

void xmpi_otf2_leave_at(struct xmpi_ctx *cx, enum xmpi_otf2_region r, double t)
{
    leave_at(cx, r, t, NULL);
}

void xmpi_otf2_enter(struct xmpi_ctx *cx, enum xmpi_otf2_region r)
{
    if (cx->otf2.on) xmpi_otf2_enter_at(cx, r, PMPI_Wtime());
}

void xmpi_otf2_leave(struct xmpi_ctx *cx, enum xmpi_otf2_region r, const char *what)
{
    if (cx->otf2.on) leave_at(cx, r, PMPI_Wtime(), what);
}

void xmpi_otf2_mpi(struct xmpi_ctx *cx, int op, double t0, double t1)
{
    struct xmpi_otf2_writer *w = cx->otf2.w;
    OTF2_RegionRef r = (OTF2_RegionRef)(XMPIR_OTF2_NREGIONS + op);
    uint64_t a = stamp(w, t0), b = stamp(w, t1);
    if (OTF2_EvtWriter_Enter(w->evt, NULL, a, r) || OTF2_EvtWriter_Leave(w->evt, NULL, b, r))
        broken(cx, "writing an event");
}

/* ---- the job's changes ---------------------------------------------------------------------- */

void xmpi_otf2_start(struct xmpi_ctx *cx)
{
    cx->otf2.ever = cx->size;
    if (!cx->opts.otf2[0]) return;
    /* Rank 0 makes DIR and an empty room for the locations (a crashed run's parts go). */
    int ok = 1;
    if (cx->rank == 0) {
        char parts[XMPIR_PATH_MAX + 32];
        snprintf(parts, sizeof parts, "%s/" XMPIR_OTF2_PARTS, cx->opts.otf2);
        if ((mkdir(cx->opts.otf2, 0777) && errno != EEXIST)) ok = 0;
        remove_tree(parts);
        if (ok && mkdir(parts, 0777)) ok = 0;
        if (!ok)
            fprintf(stderr, "xmpi: option --xmpi-otf2: cannot create '%s': %s; the job records "
                    "no OTF2 events\n", parts, strerror(errno));
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        cx->opts.otf2[0] = '\0';   /* the processes it spawns inherit that */
        return;
    }
    open_location(cx, cx->rank, 0);
}

void xmpi_otf2_merged(struct xmpi_ctx *cx, int nnew, int joined)
{
    if (!cx->opts.otf2[0]) return;
    long ever = cx->otf2.ever;
    PMPI_Bcast(&ever, 1, MPI_LONG, 0, cx->comm);
    cx->otf2.ever = ever + nnew;
    if (joined >= 0) open_location(cx, ever + joined, 1);
    else write_metric(cx, PMPI_Wtime());
}

void xmpi_otf2_removed(struct xmpi_ctx *cx)
{
    if (!cx->otf2.w) return;
    xmpi_otf2_leave(cx, XMPIR_OTF2_REMOVE, NULL);
    if (cx->status == XMPI_REMOVED) close_location(cx);
    else write_metric(cx, PMPI_Wtime());
}

/* ---- rank 0: the archive ------------------------------------------------------------------ */

struct loc_info {
    int ok, rank, spawned;
    unsigned long long events, first, last;
    char host[256];
};

static int read_info(const char *dir, long loc, struct loc_info *li)
{
    char path[XMPIR_PATH_MAX + 80];
    snprintf(path, sizeof path, "%s/" XMPIR_OTF2_PARTS "/%ld.info", dir, loc);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    unsigned long long l;
    long pid;
    int n = fscanf(f, "ok %d location %llu rank %d spawned %d host %255s pid %ld events %llu "
                   "first %llu last %llu", &li->ok, &l, &li->rank, &li->spawned, li->host, &pid,
                   &li->events, &li->first, &li->last);
    fclose(f);
    return n == 9 ? 0 : -1;
}

/* Global string definitions, numbered as they are written. */
struct strings {
    OTF2_GlobalDefWriter *g;
    OTF2_StringRef next;
    int failed;
};

static OTF2_StringRef str(struct strings *s, const char *text)
{
    if (OTF2_GlobalDefWriter_WriteString(s->g, s->next, text)) s->failed = 1;
    return s->next++;
}

static const char *const region_names[XMPIR_OTF2_NREGIONS][2] = {
    {"computation", "a monitored iteration of the program: its computation, with its MPI calls "
                    "nested inside"},
    {"xmpi: interval end", "libxmpi at the end of a sampling interval: measure, model, decide, "
                           "act, record"},
    {"xmpi: move rows", "libxmpi moving registered rows between processes"},
    {"xmpi: spawn", "libxmpi starting new processes and joining them to XMPI_COMM_WORLD"},
    {"xmpi: remove", "processes leaving XMPI_COMM_WORLD"},
    {"xmpi: checkpoint", "libxmpi writing a checkpoint of the registered data"},
};

static OTF2_RegionRole mpi_role(int op)
{
    switch (op) {
    case XMPIR_OP_BARRIER: return OTF2_REGION_ROLE_BARRIER;
    case XMPIR_OP_BCAST:
    case XMPIR_OP_SCATTER:
    case XMPIR_OP_SCATTERV: return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case XMPIR_OP_REDUCE:
    case XMPIR_OP_GATHER:
    case XMPIR_OP_GATHERV: return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case XMPIR_OP_ALLREDUCE:
    case XMPIR_OP_ALLGATHER:
    case XMPIR_OP_ALLGATHERV:
    case XMPIR_OP_ALLTOALL:
    case XMPIR_OP_ALLTOALLV: return OTF2_REGION_ROLE_COLL_ALL2ALL;
    default: return OTF2_REGION_ROLE_POINT2POINT;
    }
}

/* The definitions of every location that closed, the regions, the clock and the processes
 * metric; nloc of them in li (ok 0: left out). 0 or -1. */
static int write_definitions(OTF2_Archive *a, const struct loc_info *li, long nloc,
                             unsigned long long t0, unsigned long long t1)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(a);
    if (!g) return -1;
    struct strings s = {g, 0, 0};
    int bad = OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, t0, t1 - t0 + 1, t0) != 0;
    OTF2_StringRef empty = str(&s, "");
    bad |= OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, str(&s, "MPI"),
                                              OTF2_PARADIGM_CLASS_PROCESS) != 0;
    for (int r = 0; r < XMPIR_OTF2_NREGIONS; r++) {
        OTF2_StringRef name = str(&s, region_names[r][0]);
        bad |= OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)r, name, name,
                                                str(&s, region_names[r][1]),
                                                r == XMPIR_OTF2_COMPUTE ? OTF2_REGION_ROLE_LOOP
                                                                        : OTF2_REGION_ROLE_FUNCTION,
                                                OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, empty,
                                                0, 0) != 0;
    }
    for (int op = 0; op < XMPIR_OP_COUNT; op++) {
        OTF2_StringRef name = str(&s, xmpi_op_name(op));
        bad |= OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)(XMPIR_OTF2_NREGIONS + op),
                                                name, name, empty, mpi_role(op),
                                                OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, empty,
                                                0, 0) != 0;
    }
    OTF2_MetricMemberRef member = 0;
    bad |= OTF2_GlobalDefWriter_WriteMetricMember(g, member, str(&s, "processes"),
                                                  str(&s, "processes in XMPI_COMM_WORLD"),
                                                  OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                                                  OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
                                                  str(&s, "processes")) != 0;
    bad |= OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, &member, OTF2_METRIC_ASYNCHRONOUS,
                                                 OTF2_RECORDER_KIND_ABSTRACT) != 0;
    /* The system tree: the machine, one node per host. */
    bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str(&s, "libxmpi job"),
                                                    str(&s, "machine"),
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE) != 0;
    OTF2_StringRef node_class = str(&s, "node");
    long *node = calloc((size_t)nloc + 1, sizeof *node);
    if (!node) return -1;
    int nodes = 0;
    for (long l = 0; l < nloc; l++) {
        if (!li[l].ok) continue;
        long same = -1;
        for (long k = 0; k < l && same < 0; k++)
            if (li[k].ok && !strcmp(li[k].host, li[l].host)) same = node[k];
        if (same < 0) {
            same = ++nodes;
            bad |= OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (OTF2_SystemTreeNodeRef)same,
                                                            str(&s, li[l].host), node_class,
                                                            0) != 0;
        }
        node[l] = same;
    }
    for (long l = 0; l < nloc; l++) {
        if (!li[l].ok) continue;
        char name[96];
        if (li[l].spawned) snprintf(name, sizeof name, "process %ld (spawned, joined as rank %d)",
                                    l, li[l].rank);
        else snprintf(name, sizeof name, "rank %d", li[l].rank);
        OTF2_StringRef n = str(&s, name);
        bad |= OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)l, n,
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                       (OTF2_SystemTreeNodeRef)node[l],
                                                       li[l].spawned && li[0].ok
                                                           ? 0 : OTF2_UNDEFINED_LOCATION_GROUP) != 0;
        bad |= OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)l, n,
                                                  OTF2_LOCATION_TYPE_CPU_THREAD, li[l].events,
                                                  (OTF2_LocationGroupRef)l) != 0;
    }
    free(node);
    bad |= OTF2_Archive_CloseGlobalDefWriter(a, g) != 0;
    return bad || s.failed ? -1 : 0;
}

static int write_markers(OTF2_Archive *a, const struct xmpi_otf2_writer *w)
{
    if (!w || w->nmarks == 0) return 0;
    OTF2_MarkerWriter *m = OTF2_Archive_GetMarkerWriter(a);
    if (!m) return -1;
    static const char *const category[XMPIR_OTF2_NREGIONS] = {
        "", "", "rows moved", "spawn", "removal", "checkpoint"};
    int bad = 0;
    for (int r = XMPIR_OTF2_MOVE; r < XMPIR_OTF2_NREGIONS; r++)
        bad |= OTF2_MarkerWriter_WriteDefMarker(m, (OTF2_MarkerRef)r, "libxmpi", category[r],
                                                r == XMPIR_OTF2_MOVE || r == XMPIR_OTF2_CHECKPOINT
                                                    ? OTF2_SEVERITY_LOW : OTF2_SEVERITY_MEDIUM) != 0;
    for (int i = 0; i < w->nmarks; i++)
        bad |= OTF2_MarkerWriter_WriteMarker(m, w->marks[i].t, w->marks[i].duration,
                                             (OTF2_MarkerRef)w->marks[i].category,
                                             OTF2_MARKER_SCOPE_GLOBAL, 0, w->marks[i].text) != 0;
    bad |= OTF2_Archive_CloseMarkerWriter(a, m) != 0;
    return bad ? -1 : 0;
}

/* An earlier archive in DIR (xmpi_otf2_check let nothing else be there). */
static void remove_earlier(const char *dir)
{
    char p[XMPIR_PATH_MAX + 300];
    static const char *const files[] = {"traces.otf2", "traces.def", "traces.marker"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/traces", dir);
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (!location_file(e->d_name)) continue;
        char f[XMPIR_PATH_MAX + 600];
        snprintf(f, sizeof f, "%s/%s", p, e->d_name);
        unlink(f);
    }
    if (d) closedir(d);
    rmdir(p);
}

static void assemble(struct xmpi_ctx *cx)
{
    const char *dir = cx->opts.otf2;
    long n = cx->otf2.ever;
    struct loc_info *li = calloc((size_t)n + 1, sizeof *li);
    if (!li) {
        xmpi_note(cx, 0, "option --xmpi-otf2: out of memory writing the archive; the locations' "
                  "files stay in %s/" XMPIR_OTF2_PARTS, dir);
        return;
    }
    /* A removed process closed its location when it left; under a heavy load it may not have
     * finished writing it yet. */
    struct timespec nap = {0, 50000000L};
    long missing = 0;
    char *seen = calloc((size_t)n + 1, 1);
    for (int tries = 0; seen && tries <= XMPIR_OTF2_WAIT_S * 20; tries++) {
        missing = 0;
        for (long l = 0; l < n; l++)
            if (!seen[l] && !(seen[l] = read_info(dir, l, &li[l]) == 0)) missing++;
        if (!missing) break;
        nanosleep(&nap, NULL);
    }
    free(seen);
    unsigned long long t0 = 0, t1 = 0, events = 0;
    long used = 0, spawned = 0;
    for (long l = 0; l < n; l++) {
        if (!li[l].ok || li[l].events == 0) {
            li[l].ok = 0;
            continue;
        }
        if (!used || li[l].first < t0) t0 = li[l].first;
        if (!used || li[l].last > t1) t1 = li[l].last;
        used++;
        spawned += li[l].spawned;
        events += li[l].events;
    }
    if (missing || used < n)
        xmpi_note(cx, 0, "option --xmpi-otf2: %ld of the job's %ld processes left no events "
                  "(they did not close their location); the archive has the others", n - used,
                  n);
    remove_earlier(dir);
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, XMPIR_OTF2_CHUNK,
                                        4 * XMPIR_OTF2_CHUNK, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    char desc[400];
    snprintf(desc, sizeof desc, "%s under libxmpi: %ld processes in all", cx->progname, used);
    int bad = !a || OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL) ||
              OTF2_Archive_SetSerialCollectiveCallbacks(a) ||
              OTF2_Archive_SetCreator(a, "libxmpi " XMPIR_PURE_VERSION) ||
              OTF2_Archive_SetDescription(a, desc) ||
              write_definitions(a, li, n, t0, used ? t1 : t0) ||
              write_markers(a, cx->otf2.w);
    if (a && OTF2_Archive_Close(a)) bad = 1;
    /* The locations' events and definitions, into the archive's traces/ directory. */
    char traces[XMPIR_PATH_MAX + 16];
    snprintf(traces, sizeof traces, "%s/traces", dir);
    mkdir(traces, 0777);
    for (long l = 0; !bad && l < n; l++) {
        if (!li[l].ok) continue;
        for (int k = 0; k < 2; k++) {
            const char *ext = k ? "def" : "evt";
            char from[XMPIR_PATH_MAX + 128], to[XMPIR_PATH_MAX + 64];
            snprintf(from, sizeof from, "%s/" XMPIR_OTF2_PARTS "/%ld/traces/%ld.%s", dir, l, l, ext);
            snprintf(to, sizeof to, "%s/%ld.%s", traces, l, ext);
            if (rename(from, to)) bad = 1;
        }
    }
    if (bad) {
        xmpi_note(cx, 0, "option --xmpi-otf2: the archive %s/traces.otf2 could not be written "
                  "whole (%s); the locations' files stay in %s/" XMPIR_OTF2_PARTS, dir,
                  otf2_error[0] ? otf2_error : strerror(errno), dir);
    } else {
        char parts[XMPIR_PATH_MAX + 32];
        snprintf(parts, sizeof parts, "%s/" XMPIR_OTF2_PARTS, dir);
        remove_tree(parts);
        xmpi_note(cx, 1, "otf2: %s/traces.otf2: %ld locations (%ld joined later), %llu events, "
                  "%d markers", dir, used, spawned, events,
                  cx->otf2.w ? cx->otf2.w->nmarks : 0);
    }
    free(li);
}

void xmpi_otf2_finish(struct xmpi_ctx *cx)
{
    if (!cx->opts.otf2[0]) return;
    close_location(cx);
    if (cx->status != XMPI_REMOVED) {
        /* Every member's location is closed (its .info renamed into place) before rank 0
         * reads them. */
        PMPI_Barrier(cx->comm);
        if (cx->rank == 0) assemble(cx);
    }
    free_writer(cx);
}

#endif
