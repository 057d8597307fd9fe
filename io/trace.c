/* CSV trace rows: one per sampling interval, flushed as written so that a
 * job that dies still leaves every finished interval on disk. */
#define _DEFAULT_SOURCE   /* realpath() hides behind _POSIX_C_SOURCE alone */
#include "trace.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "textfile.h"

const char xmpi_trace_header[] =
    "interval,iteration,nprocs,t_real_max,t_real_min,t_cpu_sum,work_sum,work_source,"
    "comm_time_max,comm_bytes_sum,action,elapsed,iterations,t_real_ranks,t_cpu_ranks,"
    "work_ranks,comm_time_ranks,calibration,predicted_for,pred_comp,meas_comp,pred_comm,"
    "meas_comm,pred_reconf,meas_reconf,pred_redist,meas_redist,policy,event,decision,why,"
    "procs_by_class,t_decide,cost_interval,cost_total";

FILE *xmpi_trace_open(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "xmpi: option --xmpi-trace: cannot write '%s': %s", path,
                 strerror(errno));
        return NULL;
    }
    if (fprintf(f, "%s\n", xmpi_trace_header) < 0 || fflush(f)) {
        snprintf(err, errlen, "xmpi: option --xmpi-trace: cannot write '%s': %s", path,
                 strerror(errno));
        fclose(f);
        return NULL;
    }
    return f;
}

/* The canonical name of a path that may not exist yet: its directory resolved, then its last
 * component. -1 when the directory cannot be resolved either. */
static int canonical(const char *path, char *out, size_t len)
{
    char dir[XMPIR_PATH_MAX + 16], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!realpath(dir, real)) return -1;
    int n = snprintf(out, len, "%s/%s", strcmp(real, "/") ? real : "", base);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Two names of one file: the same device and inode when both exist (a symbolic link, ./x
 * and x, a hard link), else the same canonical path when neither exists yet. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    int ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb) return 0;
    char ca[XMPIR_PATH_MAX + 64], cb[XMPIR_PATH_MAX + 64];
    if (canonical(a, ca, sizeof ca) || canonical(b, cb, sizeof cb)) return !strcmp(a, b);
    return !strcmp(ca, cb);
}

FILE *xmpi_trace_begin(const char *path, const struct xmpi_input_file *in, int nin,
                       struct xmpi_trace_dest *d, char *err, size_t errlen)
{
    d->target[0] = d->part[0] = '\0';
    const char *shown = path;
    if (strlen(path) + 6 > sizeof d->target) {
        char shown_long[XMPIR_TEXT_ECHO_SIZE];
        snprintf(err, errlen, "xmpi: option --xmpi-trace: '%s' is too long",
                 xmpi_text_echo(shown_long, path));
        return NULL;
    }
    char part[sizeof d->part];
    snprintf(part, sizeof part, "%s.part", path);
    for (int i = 0; i < nin; i++)
        for (int k = 0; k < 2; k++)
            if (same_file(k ? part : path, in[i].path)) {
                snprintf(err, errlen, "xmpi: option --xmpi-trace: '%s' is not accepted; %s is "
                         "the file of %s ('%s'), which the job reads; expected a file "
                         "that is none of the job's input files", shown,
                         k ? "its temporary file (the name with .part)" : "it", in[i].option,
                         in[i].path);
                return NULL;
            }
    struct stat st;
    /* /dev/stdout, /proc/self/fd/N: written directly, never replaced (through a link, the
     * file behind a descriptor would be renamed over). */
    if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
        return xmpi_trace_open(path, err, errlen);
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "xmpi: option --xmpi-trace: cannot write '%s': it is a "
                     "directory; expected a file name", path);
            return NULL;
        }
        /* A device or a pipe (/dev/stdout) is written directly. */
        if (!S_ISREG(st.st_mode)) return xmpi_trace_open(path, err, errlen);
        if (xmpi_text_readonly(path, &st)) {
            snprintf(err, errlen, "xmpi: option --xmpi-trace: '%s' is not accepted; it exists "
                     "and is read-only (mode %03o); expected a writable file or a new name",
                     path, (unsigned)(st.st_mode & 0777));
            return NULL;
        }
        /* A symbolic link to a file: the trace replaces that file, the link stays. */
        char real[PATH_MAX];
        struct stat lst;
        if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, real)) {
            if (!strncmp(real, "/proc/", 6) || !strncmp(real, "/dev/", 5))
                return xmpi_trace_open(path, err, errlen);
            if (strlen(real) + 6 <= sizeof d->target) path = real;
        }
    }
    snprintf(d->target, sizeof d->target, "%s", path);
    snprintf(d->part, sizeof d->part, "%s.part", path);
    FILE *f = fopen(d->part, "w");
    if (!f || fprintf(f, "%s\n", xmpi_trace_header) < 0 || fflush(f)) {
        snprintf(err, errlen, "xmpi: option --xmpi-trace: cannot write '%s' (through '%s'): %s",
                 shown, d->part, strerror(errno));
        if (f) {
            fclose(f);
            unlink(d->part);
        }
        d->target[0] = d->part[0] = '\0';
        return NULL;
    }
    return f;
}

int xmpi_trace_end(FILE *f, const struct xmpi_trace_dest *d, char *err, size_t errlen)
{
    /* NULL: the writer gave up on a failed write (pipeline.c): the rows are not whole. */
    int bad = !f || fflush(f) || ferror(f);
    if (f && fclose(f)) bad = 1;
    if (!d->target[0]) return bad ? -1 : 0;
    if (bad) {
        snprintf(err, errlen, "the trace could not be written whole: its rows stay in '%s', "
                 "'%s' is left as it was", d->part, d->target);
        return -1;
    }
    if (rename(d->part, d->target)) {
        snprintf(err, errlen, "cannot rename the trace '%s' to '%s' (%s): its rows stay in '%s'",
                 d->part, d->target, strerror(errno), d->part);
        return -1;
    }
    return 0;
}

void xmpi_trace_discard(FILE *f, const struct xmpi_trace_dest *d)
{
    if (f) fclose(f);
    if (d->part[0] && d->target[0]) unlink(d->part);
}

/* Per-rank values joined by ';' so that the row keeps one CSV field per column; nothing (an
 * empty field) when `none` or without the records. */
static void per_rank(FILE *f, const struct xmpi_interval *s, size_t offset, int none)
{
    for (int r = 0; !none && s->ranks && r < s->nprocs; r++) {
        const double *v = (const double *)(const void *)((const char *)&s->ranks[r] + offset);
        fprintf(f, "%s%.9g", r ? ";" : "", *v);
    }
}

/* Free text (a path, a sentence) as one CSV field: separators and quotes would split it. */
static void field(FILE *f, const char *v)
{
    fputc(',', f);
    for (; v && *v; v++) fputc(*v == ',' || *v == '"' || *v == '\n' || *v == '\r' ? '_' : *v, f);
}

int xmpi_trace_row(FILE *f, const struct xmpi_interval *s, const char *source,
                   const char *action, const struct xmpi_trace_model *m)
{
    fprintf(f, "%d,%ld,%d,%.9g,%.9g,%.9g,%.17g,%s,%.9g,%.17g,%s,%.9g,%.17g,", s->index,
            s->iteration, s->nprocs, s->t_real_max, s->t_real_min, s->t_cpu_sum, s->work_sum,
            source, s->comm_time_max, s->comm_bytes_sum, action, s->elapsed, s->iterations);
    int none = m && m->no_ranks;
    per_rank(f, s, offsetof(struct xmpi_rank_record, t_real), none);
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, t_cpu), none);
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, work), none);
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, comm_time), none);
    field(f, m ? m->calibration : NULL);
    if (m && m->compared) {
        field(f, m->predicted_for);
        fprintf(f, ",%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", m->pred_comp, m->meas_comp,
                m->pred_comm, m->meas_comm, m->pred_reconf, m->meas_reconf, m->pred_redist,
                m->meas_redist);
    } else {
        fputs(",,,,,,,,,", f);
    }
    field(f, m ? m->policy : NULL);
    field(f, m ? m->event : NULL);
    field(f, m ? m->decision : NULL);
    field(f, m ? m->why : NULL);
    field(f, m ? m->classes : NULL);
    if (m && m->t_decide >= 0 && m->policy) fprintf(f, ",%.9g", m->t_decide);
    else fputc(',', f);
    if (m && m->costed) fprintf(f, ",%.17g,%.17g", m->cost_interval, m->cost_total);
    else fputs(",,", f);
    fputc('\n', f);
    return fflush(f) || ferror(f) ? -1 : 0;
}

/* Field `want` (0-based) of a comma-separated line, into buf; -1 when the line is shorter. */
static int csv_field(const char *line, int want, char *buf, size_t len)
{
    int k = 0;
    const char *p = line;
    while (k < want) {
        p = strchr(p, ',');
        if (!p) return -1;
        p++;
        k++;
    }
    size_t m = strcspn(p, ",\r\n");
    if (m >= len) m = len - 1;
    memcpy(buf, p, m);
    buf[m] = '\0';
    return 0;
}

static int column_of(const char *header, const char *name)
{
    char buf[64];
    for (int i = 0; csv_field(header, i, buf, sizeof buf) == 0; i++)
        if (!strcmp(buf, name)) return i;
    return -1;
}

int xmpi_trace_read_profile(FILE *f, const char *fname, double **out, int *n, char *err,
                            size_t errlen)
{
    /* Whole rows whatever their length: a row carries four columns per rank. */
    char *line = NULL;
    size_t linecap = 0;
    *out = NULL;
    *n = 0;
    if (getline(&line, &linecap, f) < 0) {
        free(line);
        snprintf(err, errlen, "%s:1: empty file; expected a trace written by --xmpi-trace", fname);
        return -1;
    }
    int ci = column_of(line, "iterations"), cw = column_of(line, "work_sum");
    if (ci < 0 || cw < 0) {
        snprintf(err, errlen, "%s:1: no column '%s' in the header; expected a trace written by "
                 "--xmpi-trace", fname, ci < 0 ? "iterations" : "work_sum");
        free(line);
        return -1;
    }
    double *v = NULL;
    int cap = 0, cnt = 0;
    for (int ln = 2; getline(&line, &linecap, f) >= 0; ln++) {
        if (line[0] == '\n' || line[0] == '\0') continue;
        char a[64], b[64], *ea, *eb;
        if (csv_field(line, ci, a, sizeof a) || csv_field(line, cw, b, sizeof b)) {
            snprintf(err, errlen, "%s:%d: the row ends before its iterations and work_sum fields",
                     fname, ln);
            free(v);
            free(line);
            return -1;
        }
        errno = 0;
        double it = strtod(a, &ea), w = strtod(b, &eb);
        if (ea == a || *ea || eb == b || *eb || errno || !isfinite(it) || !isfinite(w) ||
            !(it > 0) || w < 0) {
            char sa[XMPIR_TEXT_ECHO_SIZE], sb[XMPIR_TEXT_ECHO_SIZE];
            snprintf(err, errlen, "%s:%d: iterations '%s', work_sum '%s': expected iterations > 0 "
                     "and work_sum >= 0", fname, ln, xmpi_text_echo(sa, a), xmpi_text_echo(sb, b));
            free(v);
            free(line);
            return -1;
        }
        if (cnt == cap) {
            int nc = cap ? 2 * cap : 64;
            double *nv = realloc(v, sizeof *nv * (size_t)nc);
            if (!nv) {
                snprintf(err, errlen, "%s:%d: out of memory", fname, ln);
                free(v);
                free(line);
                return -1;
            }
            v = nv;
            cap = nc;
        }
        v[cnt++] = w / it;
    }
    if (ferror(f) || cnt == 0) {
        snprintf(err, errlen, "%s: %s", fname, ferror(f) ? "read error" : "no rows: the trace has "
                 "no interval");
        free(v);
        free(line);
        return -1;
    }
    free(line);
    *out = v;
    *n = cnt;
    return 0;
}

int xmpi_trace_carry(FILE *f, const char *from)
{
    FILE *in = fopen(from, "r");
    if (!in) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, in);
    size_t hl = strlen(xmpi_trace_header);
    int rc = n > 0 && (size_t)n >= hl && !strncmp(line, xmpi_trace_header, hl) &&
                     (line[hl] == '\n' || line[hl] == '\0') ? 0 : -1;
    while (!rc && (n = getline(&line, &cap, in)) > 0)
        if (fwrite(line, 1, (size_t)n, f) != (size_t)n) rc = -1;
    if (ferror(in)) rc = -1;
    free(line);
    fclose(in);
    if (!rc && fflush(f)) rc = -1;
    return rc;
}
