/* XMPI_Checkpoint, the automatic checkpoints of --xmpi-checkpoint and the restart of
 * --xmpi-restart: one file per array in global row order written with collective MPI-IO. */
#define _GNU_SOURCE   /* realpath() hides behind _POSIX_C_SOURCE alone; renameat2() */
#include "ckpt.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../io/version.h"
#include "../io/interval.h"
#include "../models/partition.h"
#include "context.h"
#include "crc.h"
#include "xmpi.h"

#define PATHLEN (XMPIR_PATH_MAX + 64)

/* Messages name paths of up to PATHLEN bytes: an extreme one is cut, never overflowed. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* ---- small helpers --------------------------------------------------------------------- */

/* The bytes of all of a checkpoint's files. */
static double manifest_bytes(const struct xmpi_ckpt_manifest *m)
{
    double bytes = 0;
    for (int s = 0; s < m->n; s++)
        for (int f = 0; f < m->s[s].nfiles; f++) bytes += (double)m->s[s].file[f].bytes;
    return bytes;
}

static int fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* A checkpoint's directory holds plain files only. */
static void remove_flat_dir(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        char f[PATHLEN + 300];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(f, sizeof f, "%s/%s", path, e->d_name);
                unlink(f);
            }
        closedir(d);
    }
    rmdir(path);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The whole of a small text file, NUL-terminated; NULL when it cannot be read. A file longer
 * than max bytes is cut there, or, with too_long, not read: NULL and *too_long set. */
static char *slurp(const char *path, size_t max, int *too_long)
{
    if (too_long) *too_long = 0;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *buf = malloc(max + 2);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (buf && n > max && too_long) {
        free(buf);
        *too_long = 1;
        return NULL;
    }
    if (buf) buf[n > max ? max : n] = '\0';
    return buf;
}

/* A file of `bytes` bytes is over this process's file size limit (RLIMIT_FSIZE). Writing it
 * would fail part-way, with SIGXFSZ ending the process unless the program ignores it; with
 * collective MPI-IO any process may write any part of a file, so every process checks. */
static int over_fsize_limit(long long bytes)
{
    struct rlimit lim;
    return getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
           (unsigned long long)bytes > (unsigned long long)lim.rlim_cur;
}

static void mpi_text(int code, char *out, size_t len)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (PMPI_Error_string(code, s, &n) != MPI_SUCCESS) snprintf(s, sizeof s, "MPI error %d", code);
    /* One line: MPICH's texts hold line breaks, and the library says why in one line. */
    size_t o = 0;
    for (const char *c = s; *c && o + 1 < len; c++) {
        char ch = *c == '\n' || *c == '\r' || *c == '\t' ? ' ' : *c;
        if (ch == ' ' && (o == 0 || out[o - 1] == ' ')) continue;
        out[o++] = ch;
    }
    while (o > 0 && out[o - 1] == ' ') o--;
    if (len) out[o] = '\0';
}

/* ---- what is registered, as a manifest ------------------------------------------------- */

static void describe(const struct xmpi_ctx *cx, struct xmpi_ckpt_manifest *m)
{
    const struct xmpi_registry *R = &cx->reg;
    memset(m, 0, sizeof *m);
    m->version = XMPIR_CKPT_VERSION;
    snprintf(m->library, sizeof m->library, "%s", XMPIR_PURE_VERSION);
    m->rows = R->n ? R->r[0].size : 0;
    m->n = R->n < XMPIR_CKPT_MAX_STRUCTS ? R->n : XMPIR_CKPT_MAX_STRUCTS;
    m->nprocs = cx->size;
    for (int i = 0; i < m->n; i++) {
        const struct xmpi_reg *r = &R->r[i];
        struct xmpi_ckpt_struct *s = &m->s[i];
        s->kind = r->kind == K_SPARSE ? XMPIR_CKPT_SPARSE
                  : r->kind == K_DENSE ? XMPIR_CKPT_DENSE : XMPIR_CKPT_VECTOR;
        s->replicated = r->scheme == XMPI_REPLICATED;
        s->elsize = (long long)r->elsize;
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len = 0;
        if (PMPI_Type_get_name(r->type, name, &len) != MPI_SUCCESS || len == 0) snprintf(name, sizeof name, "-");
        for (char *p = name; *p; p++)
            if (isspace((unsigned char)*p) || iscntrl((unsigned char)*p)) *p = '_';
        snprintf(s->type, sizeof s->type, "%s", name);
    }
}

/* The same on every process, or the processes registered different structures. */
static unsigned long describe_hash(const struct xmpi_ckpt_manifest *m)
{
    unsigned long c = crc32(0L, Z_NULL, 0);
    long long head[2] = {m->n, m->rows};
    c = crc32(c, (const Bytef *)head, sizeof head);
    for (int i = 0; i < m->n; i++) {
        long long v[3] = {m->s[i].kind, m->s[i].replicated, m->s[i].elsize};
        c = crc32(c, (const Bytef *)v, sizeof v);
        c = crc32(c, (const Bytef *)m->s[i].type, (uInt)strlen(m->s[i].type));
    }
    return c;
}

/* ---- the pieces of one file ------------------------------------------------------------ */

/* Rank 0: the CRC of a file from every process's piece (offset, length, CRC), which must tile
 * [0, total). 0, or -1 when they do not. */
struct piece { long long off, len, crc; };

static int by_off(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int combine(struct piece *p, int n, long long total, unsigned long *crc)
{
    qsort(p, (size_t)n, sizeof *p, by_off);
    unsigned long c = crc32(0L, Z_NULL, 0);
    long long at = 0;
    for (int i = 0; i < n; i++) {
        if (p[i].len == 0) continue;
        if (p[i].off != at) return -1;
        c = crc32_combine(c, (unsigned long)p[i].crc, (z_off_t)p[i].len);
        at += p[i].len;
    }
    if (at != total) return -1;
    *crc = c;
    return 0;
}

/* Collective: every process's piece of the file to rank 0, which checks the tiling and
 * returns the file's CRC in *crc. 0 or -1 (on rank 0; 0 elsewhere). */
static int gather_crc(struct xmpi_ctx *cx, long long off, long long len, unsigned long crc,
                      long long total, unsigned long *out)
{
    struct piece mine = {off, len, (long long)crc};
    struct piece *all = cx->rank == 0 ? malloc(sizeof *all * (size_t)cx->size) : NULL;
    if (cx->rank == 0 && !all) xmpi_die_nomem(cx, "a checkpoint's checksum");
    PMPI_Gather(&mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, 0, cx->comm);
    int rc = 0;
    if (cx->rank == 0) rc = combine(all, cx->size, total, out);
    free(all);
    return rc;
}

/* One type for `len` elements of r (a row of a dense matrix, or one element). */
/* ---- writing ----------------------------------------------------------------------------- */

struct writer {
    struct xmpi_ctx *cx;
    char tmp[PATHLEN];       /* the directory being written */
    char why[900];           /* rank 0's (or this process's) reason of a failure */
    int bad;
};

/* Collective, after every process wrote its piece of a file of `bytes` bytes and synced it
 * (err: this process saw a failure): 1 on every process when some process saw one or the
 * file is not whole. A short write need not reach any process as an error: Open MPI 4.1's
 * ompio lets an aggregator write the others' pieces, takes its short write for success and
 * gives each process the full count of its own piece (3 processes under a file size limit
 * published files cut at the limit). The file's size, read once every process synced (sync,
 * barrier, sync: how MPI makes other processes' writes visible), catches what a full disk, a
 * quota or a limit set meanwhile leaves short. */
static int whole_file(struct xmpi_ctx *cx, MPI_File fh, int err, long long bytes)
{
    int any = 0;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, cx->comm);
    if (any) return 1;
    int bad = PMPI_File_sync(fh) != MPI_SUCCESS;
    MPI_Offset size = -1;
    if (cx->rank == 0 && (PMPI_File_get_size(fh, &size) != MPI_SUCCESS || size != bytes)) bad = 1;
    PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, cx->comm);
    return any;
}

/* Collective: writes count units of type t (unit bytes each) from buf at byte offset off of
 * file f, and its CRC into f->crc on rank 0. Nothing is written after a failure. */
static void put(struct writer *w, struct xmpi_ckpt_file *f, long long off, const void *buf,
                int count, MPI_Datatype t, size_t unit)
{
    struct xmpi_ctx *cx = w->cx;
    if (w->bad) return;
    char path[PATHLEN + 40];
    snprintf(path, sizeof path, "%s/%s", w->tmp, f->name);
    MPI_File fh;
    int rc = PMPI_File_open(cx->comm, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    /* Every process goes on only if every open succeeded (else some would wait in the
     * collective write for ever) and the file fits every process's size limit. */
    int failed = rc != MPI_SUCCESS ? 2 : over_fsize_limit(f->bytes), anyfail = 0;
    PMPI_Allreduce(&failed, &anyfail, 1, MPI_INT, MPI_MAX, cx->comm);
    if (anyfail) {
        char e[300] = "failed on another process";
        if (rc != MPI_SUCCESS) mpi_text(rc, e, sizeof e);
        else PMPI_File_close(&fh);
        if (anyfail == 1)
            snprintf(w->why, sizeof w->why, "%s would have %lld bytes, more than a process of the "
                     "job may write to a file (its file size limit, RLIMIT_FSIZE)", path, f->bytes);
        else snprintf(w->why, sizeof w->why, "cannot create %s: %s", path, e);
        w->bad = 1;
        return;
    }
    static const char none[1];
    MPI_Status st;
    int err = PMPI_File_write_at_all(fh, (MPI_Offset)off, count > 0 ? buf : none, count, t,
                                     &st) != MPI_SUCCESS;
    /* A short write can come back as success with a smaller count (Open MPI's ompio past a
     * file size limit): only the whole count is a written block. */
    int wrote = -1;
    if (!err && (PMPI_Get_count(&st, t, &wrote) != MPI_SUCCESS || wrote != count)) err = 1;
    err |= PMPI_File_sync(fh) != MPI_SUCCESS;
    int any = whole_file(cx, fh, err, f->bytes);
    any |= PMPI_File_close(&fh) != MPI_SUCCESS;
    PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, cx->comm);
    if (any) {
        snprintf(w->why, sizeof w->why, "writing %s failed or wrote less than asked (full or "
                 "read-only file system, or a file size limit?)", path);
        w->bad = 1;
        return;
    }
    size_t bytes = (size_t)count * unit;
    int tiled = gather_crc(cx, off, (long long)bytes, xmpi_crc32(0, buf, bytes), f->bytes,
                           &f->crc);
    PMPI_Bcast(&tiled, 1, MPI_INT, 0, cx->comm);
    if (tiled) {
        snprintf(w->why, sizeof w->why, "the blocks of the current partition do not tile %s "
                 "(internal error)", path);
        w->bad = 1;
    }
}

/* Structure s: its files. Every process calls put() for every file, with what it owns. */
static void write_struct(struct writer *w, struct xmpi_reg *r, struct xmpi_ckpt_struct *ms,
                         int c, int d, long long nnzoff, long long lnnz)
{
    long long N = r->size;
    if (r->kind != K_SPARSE) {
        long long rowlen = (long long)xmpi_registry_row_len(r);
        size_t rowbytes = (size_t)rowlen * r->elsize;
        MPI_Datatype t = xmpi_registry_row_type(r, rowlen ? (size_t)rowlen : 1);
        const char *base = *r->data;
        if (r->scheme == XMPI_REPLICATED && base) base += (size_t)d * rowbytes;
        put(w, &ms->file[0], (long long)d * (long long)rowbytes, base, rowlen ? c : 0, t, rowbytes);
        PMPI_Type_free(&t);
        return;
    }
    const int *ia = *r->data;
    int from = r->scheme == XMPI_REPLICATED ? d : 0;
    long long shift = r->scheme == XMPI_REPLICATED ? 0 : nnzoff;
    /* The block that ends the rows also writes the last row pointer (or rank 0 when there
     * are no rows). */
    int last = (c > 0 && d + c == N) || (N == 0 && w->cx->rank == 0);
    int n = c + last;
    int64_t *p = malloc(sizeof *p * ((size_t)n + 1));
    if (!p) xmpi_die_nomem(w->cx, "a checkpoint");
    for (int k = 0; k < n; k++) p[k] = (N == 0) ? 0 : (int64_t)ia[from + k] + shift;
    put(w, &ms->file[0], (long long)d * 8, p, n, MPI_INT64_T, 8);
    free(p);
    long long first = r->scheme == XMPI_REPLICATED && c > 0 ? ia[d] : 0;
    const char *ja = *r->ja ? (const char *)*r->ja + (size_t)first * sizeof(int) : NULL;
    const char *a = *r->a ? (const char *)*r->a + (size_t)first * r->elsize : NULL;
    put(w, &ms->file[1], nnzoff * 4, ja, (int)lnnz, MPI_INT, sizeof(int));
    MPI_Datatype t = xmpi_registry_row_type(r, 1);
    put(w, &ms->file[2], nnzoff * (long long)r->elsize, a, (int)lnnz, t, r->elsize);
    PMPI_Type_free(&t);
}

/* Rank 0: the checkpoint's final path and its temporary directory. */
static int plan_paths(struct xmpi_ctx *cx, const char *name, char *final, char *parent,
                      char *leaf, char *tmp, char *why, size_t len)
{
    const char *dir = cx->opts.checkpoint;
    char autoname[64];
    if (!name) {
        if (!dir[0]) {
            snprintf(why, len, "no name given and no --xmpi-checkpoint=DIR to put an automatic "
                     "checkpoint in");
            return XMPI_ERR_ARG;
        }
        xmpi_ckpt_auto_name(autoname, sizeof autoname, cx->mon.iterations);
        name = autoname;
    }
    if (!name[0] || strlen(name) >= XMPIR_PATH_MAX) {
        snprintf(why, len, "the checkpoint's name is empty or too long");
        return XMPI_ERR_ARG;
    }
    if (name[0] == '/' || !dir[0]) snprintf(final, PATHLEN, "%s", name);
    else snprintf(final, PATHLEN, "%s/%s", dir, name);
    size_t k = strlen(final);
    while (k > 1 && final[k - 1] == '/') final[--k] = '\0';
    const char *slash = strrchr(final, '/');
    snprintf(leaf, 256, "%s", slash ? slash + 1 : final);
    if (slash == final) snprintf(parent, PATHLEN, "/");
    else if (slash) snprintf(parent, PATHLEN, "%.*s", (int)(slash - final), final);
    else snprintf(parent, PATHLEN, ".");
    if (!leaf[0] || leaf[0] == '.' || !strcmp(leaf, XMPIR_CKPT_LATEST)) {
        snprintf(why, len, "'%s' is not accepted as a checkpoint's name (empty, starting with "
                 "'.', or LATEST)", leaf);
        return XMPI_ERR_ARG;
    }
    if (!is_dir(parent) && mkdir(parent, 0777) && errno != EEXIST) {
        snprintf(why, len, "cannot create the directory %s: %s", parent, strerror(errno));
        return XMPI_ERR_CHECKPOINT;
    }
    char a[PATH_MAX], b[PATH_MAX];
    if (cx->ckpt.restarting && realpath(final, a) && realpath(cx->ckpt.restart_dir, b) &&
        !strcmp(a, b)) {
        snprintf(why, len, "%s is the checkpoint this job restarted from; it is not replaced", final);
        return XMPI_ERR_CHECKPOINT;
    }
    snprintf(tmp, PATHLEN, "%s/.tmp-%s-%ld", parent, leaf, (long)getpid());
    remove_flat_dir(tmp);
    if (mkdir(tmp, 0777)) {
        snprintf(why, len, "cannot create %s: %s", tmp, strerror(errno));
        return XMPI_ERR_CHECKPOINT;
    }
    return XMPI_SUCCESS;
}

int xmpi_ckpt_publish_file(const char *dir, const char *name,
                           int (*fill)(FILE *, const void *), const void *arg)
{
    char tmp[PATHLEN + 80], dst[PATHLEN + 80];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    int bad = fill(f, arg) != 0;
    bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, dst)) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return fsync_path(dir);
}

static int put_leaf(FILE *f, const void *leaf)
{
    return fprintf(f, "%s\n", (const char *)leaf) < 0;
}

/* Rank 0: LATEST in `parent` names `leaf`, replaced atomically. */
static int write_latest(const char *parent, const char *leaf)
{
    return xmpi_ckpt_publish_file(parent, XMPIR_CKPT_LATEST, put_leaf, leaf);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A checkpoint set aside while another of its name came in (publish): ".old-LEAF-PID". When
 * LEAF is missing the writer died between the two renames, and the old one is put back. */
static void stale_old(const char *parent, const char *name)
{
    char leaf[256], back[PATHLEN + 300], path[PATHLEN + 300];
    const char *dash = strrchr(name, '-');
    size_t k = dash && dash > name + 5 ? (size_t)(dash - (name + 5)) : 0;
    snprintf(path, sizeof path, "%s/%s", parent, name);
    if (k > 0 && k < sizeof leaf) {
        memcpy(leaf, name + 5, k);
        leaf[k] = '\0';
        snprintf(back, sizeof back, "%s/%s", parent, leaf);
        struct stat st;
        if (stat(back, &st) != 0 && errno == ENOENT && rename(path, back) == 0) return;
    }
    remove_flat_dir(path);
}

/* Rank 0: keeps `leaf`, just published, and the newest --xmpi-checkpoint-keep - 1 automatic
 * checkpoints of `parent` that come before it (and the one the job restarted from). Those
 * after it are an abandoned run's, written before a restart from an older one: left alone. */
static void rotate(struct xmpi_ctx *cx, const char *parent, const char *leaf)
{
    DIR *d = opendir(parent);
    if (!d) return;
    char **names = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        /* Ours is published by now: a temporary left here is a crashed writer's. */
        if (!strncmp(e->d_name, ".tmp-", 5)) {
            char stale[PATHLEN + 300];
            snprintf(stale, sizeof stale, "%s/%s", parent, e->d_name);
            remove_flat_dir(stale);
            continue;
        }
        if (!strncmp(e->d_name, ".old-", 5)) {
            stale_old(parent, e->d_name);
            continue;
        }
        if (!xmpi_ckpt_is_auto(e->d_name) || strcmp(e->d_name, leaf) > 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **x = realloc(names, sizeof *x * (size_t)cap);
            if (!x) break;
            names = x;
        }
        if (!(names[n] = strdup(e->d_name))) break;
        n++;
    }
    closedir(d);
    if (names) qsort(names, (size_t)n, sizeof *names, by_name);
    char restart[PATH_MAX] = "";
    if (cx->ckpt.restarting && !realpath(cx->ckpt.restart_dir, restart)) restart[0] = '\0';
    for (int i = 0; i < n; i++) {
        char path[PATHLEN + 300], real[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", parent, names[i]);
        int keep = i >= n - cx->opts.checkpoint_keep || !strcmp(names[i], leaf) ||
                   (restart[0] && realpath(path, real) && !strcmp(real, restart));
        if (!keep) remove_flat_dir(path);
        free(names[i]);
    }
    free(names);
    fsync_path(parent);
}

/* Rank 0: the manifest, then the rename that publishes the checkpoint, then LATEST. */
/* Rank 0: the program's data for joining processes beside the arrays (file XMPIR_CKPT_APP),
 * its size and CRC in the manifest; 0, or -1 when it cannot be written. */
static int write_app(struct xmpi_ctx *cx, struct xmpi_ckpt_manifest *m, const char *tmp)
{
    m->app_bytes = cx->app_bytes;
    if (cx->app_bytes <= 0) return 0;
    if (over_fsize_limit(cx->app_bytes)) return -1;
    char path[PATHLEN + 40];
    snprintf(path, sizeof path, "%s/%s", tmp, XMPIR_CKPT_APP);
    FILE *f = fopen(path, "w");
    int bad = !f || fwrite(cx->app_data, 1, (size_t)cx->app_bytes, f) != (size_t)cx->app_bytes;
    if (f) bad |= fflush(f) != 0 || fsync(fileno(f)) != 0, bad |= fclose(f) != 0;
    m->app_crc = xmpi_crc32(0, cx->app_data, (size_t)cx->app_bytes);
    return bad ? -1 : 0;
}

static int publish(struct xmpi_ctx *cx, struct xmpi_ckpt_manifest *m, const char *tmp,
                   const char *final, const char *parent, const char *leaf, char *why, size_t len)
{
    char path[PATHLEN + 40];
    if (write_app(cx, m, tmp)) {
        snprintf(why, len, "cannot write %s/%s", tmp, XMPIR_CKPT_APP);
        return XMPI_ERR_CHECKPOINT;
    }
    snprintf(path, sizeof path, "%s/%s", tmp, XMPIR_CKPT_MANIFEST);
    FILE *f = fopen(path, "w");
    int bad = !f || xmpi_ckpt_write(f, m) != 0;
    if (f) bad |= fflush(f) != 0 || fsync(fileno(f)) != 0, bad |= fclose(f) != 0;
    if (bad || fsync_path(tmp)) {
        snprintf(why, len, "cannot write %s", path);
        return XMPI_ERR_CHECKPOINT;
    }
    if (rename(tmp, final)) {
        /* A checkpoint of the same name (a rerun after a crash, a name used again): the two
         * are swapped in one step, so that the name always holds a whole checkpoint, and the
         * old one (now at tmp) goes after. A file system without the exchange: the old one
         * is set aside, and put back if the new one cannot go in (or, after a crash in
         * between, by the next rotation: stale_old). */
        char old[PATHLEN + 40];
        int e = errno;
        if (e != ENOTEMPTY && e != EEXIST) {
            snprintf(why, len, "cannot rename %s to %s: %s", tmp, final, strerror(e));
            return XMPI_ERR_CHECKPOINT;
        }
        if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_EXCHANGE) == 0) {
            remove_flat_dir(tmp);
        } else {
            snprintf(old, sizeof old, "%s/.old-%s-%ld", parent, leaf, (long)getpid());
            remove_flat_dir(old);
            if (rename(final, old)) {
                snprintf(why, len, "cannot move %s aside: %s", final, strerror(errno));
                return XMPI_ERR_CHECKPOINT;
            }
            if (rename(tmp, final)) {
                e = errno;
                rename(old, final);
                snprintf(why, len, "cannot rename %s to %s: %s", tmp, final, strerror(e));
                return XMPI_ERR_CHECKPOINT;
            }
            remove_flat_dir(old);
        }
    }
    if (fsync_path(parent) || write_latest(parent, leaf)) {
        snprintf(why, len, "published %s but cannot update %s/%s", final, parent, XMPIR_CKPT_LATEST);
        return XMPI_ERR_CHECKPOINT;
    }
    if (xmpi_ckpt_is_auto(leaf)) rotate(cx, parent, leaf);
    return XMPI_SUCCESS;
}

/* Collective, before anything is created: every process knows its block and registered the
 * same structures, and a block with rows has its buffers (the sparse ones: row pointers that
 * index them). The same code on every process; why on failure. */
static int check_before(struct xmpi_ctx *cx, const struct xmpi_ckpt_manifest *m, int c, int d,
                        int nosub, char *why, size_t len, const char *call)
{
    struct xmpi_registry *R = &cx->reg;
    int nullbuf = 0, rc = XMPI_SUCCESS;
    for (int s = 0; s < R->n && c > 0 && !nosub; s++) {
        const struct xmpi_reg *r = &R->r[s];
        if (!*r->data) nullbuf = s + 1;
        else if (r->kind == K_SPARSE) {
            const int *ia = *r->data;
            int from = r->scheme == XMPI_REPLICATED ? d : 0;
            if ((r->scheme == XMPI_DISTRIBUTED && ia[0] != 0) || ia[from + c] < ia[from] ||
                (ia[from + c] > ia[from] && (!*r->ja || !*r->a)))
                nullbuf = s + 1;
        }
    }
    long long mine[3] = {nosub || R->n == 0 || R->n > XMPIR_CKPT_MAX_STRUCTS,
                         (long long)describe_hash(m), nullbuf};
    long long *all = malloc(sizeof *all * 3 * (size_t)cx->size);
    if (!all) xmpi_die_nomem(cx, call);
    PMPI_Allgather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, cx->comm);
    for (int i = 0; i < cx->size && !rc; i++) {
        if (all[3 * i + 2]) {
            snprintf(why, len, "rank %d: structure %lld holds rows but its buffer is NULL or its "
                     "row pointers are not valid", i, all[3 * i + 2] - 1);
            rc = XMPI_ERR_ARG;
        } else if (all[3 * i]) {
            snprintf(why, len, R->n == 0 ? "nothing is registered" :
                     R->n > XMPIR_CKPT_MAX_STRUCTS ? "more than 64 structures are registered" :
                     "rank %d does not know its rows (a spawned process before XMPI_Get_data?)", i);
            rc = R->n == 0 ? XMPI_ERR_STATE : XMPI_ERR_ARG;
        } else if (all[3 * i + 1] != all[1]) {
            snprintf(why, len, "rank %d registered other structures than rank 0", i);
            rc = XMPI_ERR_ARG;
        }
    }
    free(all);
    return rc;
}

/* Collective: every structure's block into the temporary directory, in global row order; a
 * sparse block's nonzeros follow those of the blocks whose rows come first (blocks need not be
 * in rank order). w->bad and w->why say what failed. */
static void write_all(struct xmpi_ctx *cx, struct writer *w, struct xmpi_ckpt_manifest *m, int c,
                      int d, const char *call)
{
    struct xmpi_registry *R = &cx->reg;
    int ns = 0;
    for (int s = 0; s < R->n; s++) ns += R->r[s].kind == K_SPARSE;
    size_t width = 1 + (size_t)ns;
    long long *loc = calloc(width, sizeof *loc), *every = malloc(sizeof *every * width * (size_t)cx->size);
    if (!loc || !every) xmpi_die_nomem(cx, call);
    loc[0] = d;
    for (int s = 0, k = 1; s < R->n; s++) {
        const struct xmpi_reg *r = &R->r[s];
        if (r->kind != K_SPARSE) continue;
        const int *ia = *r->data;
        int from = r->scheme == XMPI_REPLICATED ? d : 0;
        loc[k++] = c > 0 && ia ? (long long)ia[from + c] - ia[from] : 0;
    }
    PMPI_Allgather(loc, (int)width, MPI_LONG_LONG, every, (int)width, MPI_LONG_LONG, cx->comm);
    for (int s = 0, k = 1; s < R->n; s++) {
        struct xmpi_reg *r = &R->r[s];
        struct xmpi_ckpt_struct *ms = &m->s[s];
        long long off = 0, total = 0, lnnz = 0;
        if (r->kind == K_SPARSE) {
            for (int j = 0; j < cx->size; j++) {
                long long nz = every[(size_t)j * width + k];
                total += nz;
                if (nz > 0 && every[(size_t)j * width] < d) off += nz;
            }
            lnnz = loc[k++];
            if (r->scheme == XMPI_REPLICATED) off = c > 0 ? ((const int *)*r->data)[d] : 0;
            ms->nnz = total;
        }
        if (xmpi_ckpt_layout(ms, s, m->rows)) {
            snprintf(w->why, sizeof w->why, "structure %d is too large to describe", s);
            w->bad = 1;
            break;
        }
        write_struct(w, r, ms, c, d, off, lnnz);
        if (w->bad) break;
    }
    free(loc);
    free(every);
}

/* After a checkpoint was published: what the model and the resize need of it, said once. */
static void written(struct xmpi_ctx *cx, const struct xmpi_ckpt_manifest *m, const char *final,
                    const char *leaf, double took)
{
    cx->ckpt.written++;
    if (cx->rank == 0) {
        snprintf(cx->ckpt.last_leaf, sizeof cx->ckpt.last_leaf, "%s", leaf);
        cx->ckpt.last_bytes = manifest_bytes(m);
        cx->ckpt.last_seconds = took;
    }
    xmpi_note(cx, 1, "checkpoint %s at iteration %ld written in %.3f s", final,
              (long)m->iteration, took);
    /* The crash of one process just after a checkpoint, in a job that did not restart:
     * what xmpi-resume recovers from (tests/sh/resume.sh). */
    if (!cx->ckpt.restarting && cx->rank == cx->size - 1) xmpi_fault("after-checkpoint");
}

/* Collective: one checkpoint. `name` (rank 0's): NULL for an automatic one. */
static int write_checkpoint(struct xmpi_ctx *cx, const char *name, const char *call)
{
    double t0 = PMPI_Wtime();
    xmpi_registry_sync(cx);   /* arrays with room around their block: the blocks as they are */
    struct writer w = {.cx = cx};
    char final[PATHLEN] = "", parent[PATHLEN] = "", leaf[256] = "";
    int c = 0, d = 0, nosub = xmpi_registry_own_block(cx, &c, &d) != 0 ||
                             cx->reg.part_n != cx->size;
    struct xmpi_ckpt_manifest *m = calloc(1, sizeof *m);
    if (!m) xmpi_die_nomem(cx, call);
    describe(cx, m);
    /* The iterations the data reflects: what the monitor counts as completed, the same on
     * every process. */
    m->iteration = cx->mon.iterations;
    m->interval = cx->mon.summary.index;
    int rc = check_before(cx, m, c, d, nosub, w.why, sizeof w.why, call);
    if (!rc && cx->rank == 0)
        rc = plan_paths(cx, name, final, parent, leaf, w.tmp, w.why, sizeof w.why);
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc) {
        if (cx->rank == 0) xmpi_note(cx, 0, "%s: %s; no checkpoint written", call, w.why);
        free(m);
        return rc;
    }
    PMPI_Bcast(w.tmp, PATHLEN, MPI_CHAR, 0, cx->comm);
    char what[160];
    snprintf(what, sizeof what, "%s (writing a checkpoint)", call);
    xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, cx->rank, what);
    write_all(cx, &w, m, c, d, call);
    /* A crash here, after the data and before the publication, must leave the previous
     * checkpoint the latest (tests/sh/checkpoint.sh). */
    if (cx->ckpt.written > 0) xmpi_fault("checkpoint");
    rc = w.bad ? XMPI_ERR_CHECKPOINT : XMPI_SUCCESS;
    if (!rc && cx->rank == 0) {
        /* Rank 0 alone now (manifest, fsyncs, renames, rotation): it waits on no other
         * process, and a watchdog firing here would stop it between two renames. The
         * others wait for it in the broadcast below, still watched. */
        xmpi_watchdog_disarm(&cx->watch);
        rc = publish(cx, m, w.tmp, final, parent, leaf, w.why, sizeof w.why);
    }
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc && cx->rank == 0) remove_flat_dir(w.tmp);
    xmpi_watchdog_disarm(&cx->watch);
    if (rc) xmpi_note(cx, 0, "%s: %s; the previous checkpoint stays the latest", call, w.why);
    else written(cx, m, final, leaf, PMPI_Wtime() - t0);
    free(m);
    return rc;
}

/* --xmpi-otf2: every checkpoint is a region of the library's own work. */
static int checkpoint(struct xmpi_ctx *cx, const char *name, const char *call)
{
    xmpi_otf2_enter(cx, XMPIR_OTF2_CHECKPOINT);
    int rc = write_checkpoint(cx, name, call);
    xmpi_otf2_leave(cx, XMPIR_OTF2_CHECKPOINT, call);
    return rc;
}

int xmpi_ckpt_call(const char *name)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_member(cx);
    if (rc) return rc;
    if (cx->status == XMPI_NEWLY_SPAWNED && !cx->reg.got_data) return XMPI_ERR_STATE;
    return checkpoint(cx, cx->rank == 0 ? name : NULL, "XMPI_Checkpoint");
}

int xmpi_ckpt_now(struct xmpi_ctx *cx, const char *call)
{
    int rc = checkpoint(cx, NULL, call);
    if (rc == XMPI_SUCCESS && cx->rank == 0) {
        cx->ckpt.last_it = cx->mon.iterations;
        cx->ckpt.last_t = PMPI_Wtime() - cx->t0;
    }
    return rc;
}

int xmpi_ckpt_interval(struct xmpi_ctx *cx, const struct xmpi_interval *s)
{
    if (!cx->opts.checkpoint[0] || cx->ckpt.off || cx->status == XMPI_REMOVED) return 0;
    /* After a spawn or a removal in this interval's act step the processes are not all here:
     * the next interval end checkpoints. The test is the same on every process. */
    if (s->nprocs != cx->size || cx->reg.n == 0) return 0;
    int due = 0;
    if (cx->rank == 0) {
        long every = 0;
        double sec = 0;
        xmpi_ckpt_every(cx->opts.checkpoint_every, &every, &sec);
        due = sec > 0 ? s->elapsed - cx->ckpt.last_t >= sec
                      : cx->mon.iterations - cx->ckpt.last_it >= (every > 0 ? every : 1);
    }
    PMPI_Bcast(&due, 1, MPI_INT, 0, cx->comm);
    if (!due) return 0;
    if (checkpoint(cx, NULL, "--xmpi-checkpoint") != XMPI_SUCCESS) return 0;
    if (cx->rank == 0) {
        cx->ckpt.last_it = cx->mon.iterations;
        cx->ckpt.last_t = s->elapsed;
    }
    return 1;
}

/* ---- restart ------------------------------------------------------------------------------ */

void xmpi_ckpt_check(struct xmpi_ctx *cx, char *err, size_t len)
{
    struct xmpi_ckpt_state *st = &cx->ckpt;
    const char *v = cx->opts.restart;
    if (!v[0]) return;
    char dir[PATHLEN], path[PATHLEN + 40];
    if (!strcmp(v, "latest")) {
        if (!cx->opts.checkpoint[0]) {
            snprintf(err, len, "xmpi: option --xmpi-restart=latest: needs --xmpi-checkpoint=DIR, "
                     "whose LATEST names the checkpoint; or give the checkpoint's directory");
            return;
        }
        snprintf(dir, sizeof dir, "%s", cx->opts.checkpoint);
    } else {
        snprintf(dir, sizeof dir, "%s", v);
    }
    snprintf(path, sizeof path, "%s/%s", dir, XMPIR_CKPT_MANIFEST);
    if (access(path, F_OK) != 0) {
        snprintf(path, sizeof path, "%s/%s", dir, XMPIR_CKPT_LATEST);
        char *name = slurp(path, 300, NULL);
        if (!name) {
            snprintf(err, len, "xmpi: option --xmpi-restart=%s: %s holds no checkpoint (no %s, "
                     "no %s); expected a checkpoint's directory, a directory with %s, or latest",
                     v, dir, XMPIR_CKPT_MANIFEST, XMPIR_CKPT_LATEST, XMPIR_CKPT_LATEST);
            return;
        }
        name[strcspn(name, "\r\n")] = '\0';
        if (!name[0] || strchr(name, '/') || name[0] == '.') {
            snprintf(err, len, "xmpi: option --xmpi-restart=%s: %s does not name a checkpoint "
                     "('%.60s')", v, path, name);
            free(name);
            return;
        }
        char sub[PATHLEN + 300];
        snprintf(sub, sizeof sub, "%s/%s", dir, name);
        free(name);
        snprintf(dir, sizeof dir, "%.*s", (int)sizeof dir - 1, sub);
    }
    if (strlen(dir) >= sizeof st->restart_dir) {
        snprintf(err, len, "xmpi: option --xmpi-restart=%s: the checkpoint's path is longer than "
                 "%zu bytes; expected a shorter path", v, sizeof st->restart_dir - 1);
        return;
    }
    snprintf(st->restart_dir, sizeof st->restart_dir, "%s", dir);
    snprintf(path, sizeof path, "%s/%s", dir, XMPIR_CKPT_MANIFEST);
    int too_long;
    char *text = slurp(path, XMPIR_CKPT_MANIFEST_MAX, &too_long);
    if (too_long) {
        snprintf(err, len, "xmpi: option --xmpi-restart=%s: %s is longer than %d bytes, which "
                 "is not accepted; expected a checkpoint manifest (a damaged file?); nothing is "
                 "loaded", v, path, XMPIR_CKPT_MANIFEST_MAX);
        return;
    }
    if (!text) {
        snprintf(err, len, "xmpi: option --xmpi-restart=%s: cannot read %s: %s", v, path,
                 strerror(errno));
        return;
    }
    st->manifest = malloc(sizeof *st->manifest);
    char why[600];
    if (!st->manifest || xmpi_ckpt_parse(text, path, st->manifest, why, sizeof why))
        snprintf(err, len, "xmpi: option --xmpi-restart=%s: %s; nothing is loaded", v,
                 st->manifest ? why : "out of memory");
    free(text);
}

/* Collective at a restart, before the program registers: rank 0 reads the program's data for
 * joining processes from the checkpoint and every process gets it (XMPI_Get_app_data). A
 * damaged file ends the job as a damaged checkpoint does. */
static void restore_app(struct xmpi_ctx *cx)
{
    const struct xmpi_ckpt_manifest *m = cx->ckpt.manifest;
    int n = (int)m->app_bytes, bad = 0;
    if (n <= 0) return;
    char *d = malloc((size_t)n);
    if (!d) xmpi_die_nomem(cx, "--xmpi-restart");
    if (cx->rank == 0) {
        char path[PATHLEN + 40];
        snprintf(path, sizeof path, "%s/%s", cx->ckpt.restart_dir, XMPIR_CKPT_APP);
        FILE *f = fopen(path, "r");
        bad = !f || fread(d, 1, (size_t)n, f) != (size_t)n ||
              (xmpi_crc32(0, d, (size_t)n) & 0xffffffffUL) != (m->app_crc & 0xffffffffUL);
        if (f) fclose(f);
        if (bad)
            xmpi_note(cx, 0, "option --xmpi-restart: %s is missing, short or damaged (its CRC-32 "
                      "differs from the manifest's); the job stops", path);
    }
    PMPI_Bcast(&bad, 1, MPI_INT, 0, cx->comm);
    if (bad) xmpi_abort_said(2);   /* every process: rank 0 said why */
    PMPI_Bcast(d, n, MPI_BYTE, 0, cx->comm);
    free(cx->app_data);
    cx->app_data = d;
    cx->app_bytes = n;
}

int xmpi_ckpt_start(struct xmpi_ctx *cx)
{
    struct xmpi_ckpt_state *st = &cx->ckpt;
    int on = cx->rank == 0 && st->manifest != NULL;
    PMPI_Bcast(&on, 1, MPI_INT, 0, cx->comm);
    if (!on) return 0;
    if (cx->rank != 0 && !(st->manifest = malloc(sizeof *st->manifest)))
        xmpi_die_nomem(cx, "--xmpi-restart");
    PMPI_Bcast(st->manifest, (int)sizeof *st->manifest, MPI_BYTE, 0, cx->comm);
    PMPI_Bcast(st->restart_dir, (int)sizeof st->restart_dir, MPI_CHAR, 0, cx->comm);
    restore_app(cx);
    st->restarting = 1;
    st->last_it = st->manifest->iteration;
    xmpi_note(cx, 1, "restarting from %s (iteration %lld, written by %d process(es))",
              st->restart_dir, st->manifest->iteration, st->manifest->nprocs);
    return 1;
}

struct reader {
    struct xmpi_ctx *cx;
    const char *dir;
    int bad;                 /* agreed on every process */
    char why[900];           /* rank 0's */
};

/* Agrees on a problem found by some process (the lowest rank's says it). */
static void agree_problem(struct reader *rd, int mine, const char *text)
{
    struct xmpi_ctx *cx = rd->cx;
    int code = mine ? cx->rank : cx->size, first;
    PMPI_Allreduce(&code, &first, 1, MPI_INT, MPI_MIN, cx->comm);
    if (first == cx->size) return;
    rd->bad = 1;
    char msg[sizeof rd->why];
    snprintf(msg, sizeof msg, "%s", mine ? text : "");
    if (first != 0) {
        if (cx->rank == first) PMPI_Send(msg, (int)sizeof msg, MPI_CHAR, 0, 77, cx->comm);
        if (cx->rank == 0) PMPI_Recv(msg, (int)sizeof msg, MPI_CHAR, first, 77, cx->comm, MPI_STATUS_IGNORE);
    }
    if (cx->rank == 0) snprintf(rd->why, sizeof rd->why, "%s", msg);
}

/* Collective: reads count units of t (unit bytes) at byte offset off of file f into buf, and
 * checks the file's size and CRC: crc_len bytes of buf are this process's piece of the file
 * (the whole file when `whole`). */
static void get(struct reader *rd, const struct xmpi_ckpt_file *f, long long off, void *buf,
                int count, MPI_Datatype t, size_t unit, size_t crc_len, int whole)
{
    struct xmpi_ctx *cx = rd->cx;
    if (rd->bad) return;
    char path[PATHLEN + 40], text[sizeof rd->why];
    snprintf(path, sizeof path, "%s/%s", rd->dir, f->name);
    MPI_File fh;
    int rc = PMPI_File_open(cx->comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        char e[300];
        mpi_text(rc, e, sizeof e);
        snprintf(text, sizeof text, "cannot open %s (%s): the checkpoint is incomplete", path, e);
    }
    agree_problem(rd, rc != MPI_SUCCESS, text);
    if (rd->bad) return;
    MPI_Offset size = -1;
    PMPI_File_get_size(fh, &size);
    snprintf(text, sizeof text, "%s holds %lld bytes but the manifest says %lld: the file is "
             "cut or damaged", path, (long long)size, f->bytes);
    agree_problem(rd, size != f->bytes, text);
    static char none[1];
    int err = 0;
    MPI_Status st;
    int got = -1;
    if (!rd->bad)
        err = PMPI_File_read_at_all(fh, (MPI_Offset)off, count > 0 ? buf : none, count, t,
                                    &st) != MPI_SUCCESS ||
              PMPI_Get_count(&st, t, &got) != MPI_SUCCESS || got != count;
    PMPI_File_close(&fh);
    if (rd->bad) return;
    snprintf(text, sizeof text, "reading %s failed", path);
    agree_problem(rd, err, text);
    if (rd->bad) return;
    (void)unit;
    unsigned long crc = xmpi_crc32(0, buf, crc_len);
    int wrong;
    if (whole) {
        wrong = crc != f->crc;
    } else {
        unsigned long all = 0;
        wrong = gather_crc(cx, off, (long long)crc_len, crc, f->bytes, &all) || all != f->crc;
        crc = all;
        if (cx->rank != 0) wrong = 0;
    }
    snprintf(text, sizeof text, "%s fails its checksum (CRC-32 %08lx, the manifest says %08lx): "
             "the file is damaged", path, crc & 0xffffffffUL, f->crc & 0xffffffffUL);
    agree_problem(rd, wrong, text);
}

/* Row pointers read as 64-bit global offsets: valid, and local ints from 0 into ia. */
static int rebase_ia(const int64_t *p, int n, long long nnz, int *ia)
{
    if (p[0] < 0 || p[n] > nnz || p[n] - p[0] > INT_MAX) return -1;
    for (int k = 0; k < n; k++)
        if (p[k + 1] < p[k]) return -1;
    for (int k = 0; k <= n; k++) ia[k] = (int)(p[k] - p[0]);
    return 0;
}

static void read_struct(struct reader *rd, const struct xmpi_reg *r,
                        const struct xmpi_ckpt_struct *ms, int c, int d, void **fresh)
{
    struct xmpi_ctx *cx = rd->cx;
    long long N = r->size;
    int repl = r->scheme == XMPI_REPLICATED;
    int rows = repl ? (int)N : c, from = repl ? 0 : d;
    char text[sizeof rd->why];
    if (r->kind != K_SPARSE) {
        long long rowlen = (long long)xmpi_registry_row_len(r);
        size_t rowbytes = (size_t)rowlen * r->elsize, bytes = (size_t)rows * rowbytes;
        fresh[0] = malloc(bytes ? bytes : 1);
        snprintf(text, sizeof text, "cannot allocate %zu bytes for structure", bytes);
        agree_problem(rd, !fresh[0], text);
        MPI_Datatype t = xmpi_registry_row_type(r, rowlen ? (size_t)rowlen : 1);
        get(rd, &ms->file[0], (long long)from * (long long)rowbytes, fresh[0], rowlen ? rows : 0,
            t, rowbytes, bytes, repl);
        PMPI_Type_free(&t);
        return;
    }
    int last = (c > 0 && d + c == N) || (N == 0 && cx->rank == 0);
    int64_t *p = malloc(sizeof *p * ((size_t)rows + 1));
    fresh[0] = malloc(sizeof(int) * ((size_t)rows + 1));
    snprintf(text, sizeof text, "cannot allocate the row pointers of a sparse structure");
    agree_problem(rd, !p || !fresh[0], text);
    /* Every process reads its rows' pointers and the one after; its checksum piece is its rows
     * (and the final pointer for the block that ends the rows). */
    size_t piece = repl ? ((size_t)N + 1) * 8 : ((size_t)c + (size_t)last) * 8;
    get(rd, &ms->file[0], (long long)from * 8, p, rows + 1, MPI_INT64_T, 8, piece, repl);
    int bad = !rd->bad && (rebase_ia(p, rows, ms->nnz, fresh[0]) ||
                           (repl && (p[0] != 0 || p[rows] != ms->nnz)));
    snprintf(text, sizeof text, "%s/%s: the row pointers are not valid (decreasing, outside the "
             "%lld nonzeros, or more than INT_MAX on one process): the file is damaged", rd->dir,
             ms->file[0].name, ms->nnz);
    agree_problem(rd, bad, text);
    long long first = rd->bad ? 0 : p[0], n = rd->bad ? 0 : p[rows] - p[0];
    free(p);
    fresh[1] = malloc(sizeof(int) * (size_t)(n ? n : 1));
    fresh[2] = malloc(r->elsize * (size_t)(n ? n : 1));
    snprintf(text, sizeof text, "cannot allocate %lld nonzeros of a sparse structure", n);
    agree_problem(rd, !fresh[1] || !fresh[2], text);
    get(rd, &ms->file[1], first * 4, fresh[1], (int)n, MPI_INT, sizeof(int), (size_t)n * 4, repl);
    MPI_Datatype t = xmpi_registry_row_type(r, 1);
    get(rd, &ms->file[2], first * (long long)r->elsize, fresh[2], (int)n, t, r->elsize,
        (size_t)n * r->elsize, repl);
    PMPI_Type_free(&t);
}

int xmpi_ckpt_restore(struct xmpi_ctx *cx, long *it)
{
    struct xmpi_ckpt_state *st = &cx->ckpt;
    struct xmpi_registry *R = &cx->reg;
    struct reader rd = {.cx = cx, .dir = st->restart_dir};
    double t0 = PMPI_Wtime();
    struct xmpi_ckpt_manifest *want = calloc(1, sizeof *want);
    if (!want) xmpi_die_nomem(cx, "XMPI_Get_data");
    describe(cx, want);
    long long h = (long long)describe_hash(want), h0 = h;
    PMPI_Bcast(&h0, 1, MPI_LONG_LONG, 0, cx->comm);
    char text[sizeof rd.why];
    snprintf(text, sizeof text, "rank %d registered other structures than rank 0", cx->rank);
    agree_problem(&rd, h != h0, text);
    if (!rd.bad && R->n == 0) rd.bad = 1, snprintf(rd.why, sizeof rd.why, "nothing is registered");
    if (!rd.bad && (R->n > XMPIR_CKPT_MAX_STRUCTS ||
                    xmpi_ckpt_match(st->manifest, want, text, sizeof text))) {
        rd.bad = 1;
        snprintf(rd.why, sizeof rd.why, "the checkpoint does not match the program: %s",
                 R->n > XMPIR_CKPT_MAX_STRUCTS ? "more than 64 structures registered" : text);
    }
    free(want);
    int p = cx->size, *part = malloc(sizeof *part * 2 * (size_t)p);
    void **fresh = calloc((size_t)R->n * 3 + 1, sizeof *fresh);
    if (!part || !fresh) xmpi_die_nomem(cx, "XMPI_Get_data");
    int rc = XMPI_ERR_CHECKPOINT;
    if (!rd.bad) {
        char what[PATHLEN + 64];
        snprintf(what, sizeof what, "XMPI_Get_data (reading the checkpoint %s)", st->restart_dir);
        xmpi_watchdog_arm(&cx->watch, (int)cx->opts.wait_timeout, cx->rank, what);
        xmpi_part_even(R->r[0].size, p, part, part + p);
        int c = part[cx->rank], d = part[p + cx->rank];
        for (int s = 0; s < R->n && !rd.bad; s++)
            read_struct(&rd, &R->r[s], &st->manifest->s[s], c, d, &fresh[3 * s]);
        xmpi_watchdog_disarm(&cx->watch);
        if (!rd.bad) {
            xmpi_registry_install(cx, fresh, p, part, part + p);
            rc = XMPI_SUCCESS;
        }
        PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MAX, cx->comm);
    }
    for (int i = 0; i < 3 * R->n; i++) free(fresh[i]);
    free(fresh);
    free(part);
    if (rc) {
        xmpi_note(cx, 0, "XMPI_Get_data: restart from %s: %s; nothing was loaded",
                  st->restart_dir, rd.why);
        return rc;
    }
    xmpi_monitor_join(cx, (long)st->manifest->iteration, (int)st->manifest->interval);
    st->last_it = st->manifest->iteration;
    st->last_t = PMPI_Wtime() - cx->t0;   /* the run's clock (a relaunch continues it) */
    if (it) *it = (long)st->manifest->iteration;
    double took = PMPI_Wtime() - t0;
    if (cx->rank == 0) {
        st->read_bytes = manifest_bytes(st->manifest);
        st->read_seconds = took;
    }
    xmpi_note(cx, 1, "restarted from %s at iteration %lld on %d process(es) in %.3f s",
              st->restart_dir, st->manifest->iteration, p, took);
    return XMPI_SUCCESS;
}

void xmpi_ckpt_free(struct xmpi_ctx *cx)
{
    free(cx->ckpt.manifest);
    cx->ckpt.manifest = NULL;
}
