/* CSV trace rows: one per sampling interval, flushed as written so that a
 * job that dies still leaves every finished interval on disk. */
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/textfile.h"

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

/* Per-rank values joined by ';' so that the row keeps one CSV field per column. */
static void per_rank(FILE *f, const struct xmpi_interval *s, size_t offset)
{
    for (int r = 0; r < s->nprocs; r++) {
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
    per_rank(f, s, offsetof(struct xmpi_rank_record, t_real));
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, t_cpu));
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, work));
    fputc(',', f);
    per_rank(f, s, offsetof(struct xmpi_rank_record, comm_time));
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
    char line[16384];
    *out = NULL;
    *n = 0;
    if (!fgets(line, sizeof line, f)) {
        snprintf(err, errlen, "%s:1: empty file; expected a trace written by --xmpi-trace", fname);
        return -1;
    }
    int ci = column_of(line, "iterations"), cw = column_of(line, "work_sum");
    if (ci < 0 || cw < 0) {
        snprintf(err, errlen, "%s:1: no column '%s' in the header; expected a trace written by "
                 "--xmpi-trace", fname, ci < 0 ? "iterations" : "work_sum");
        return -1;
    }
    double *v = NULL;
    int cap = 0, cnt = 0;
    for (int ln = 2; fgets(line, sizeof line, f); ln++) {
        if (line[0] == '\n' || line[0] == '\0') continue;
        char a[64], b[64], *ea, *eb;
        if (csv_field(line, ci, a, sizeof a) || csv_field(line, cw, b, sizeof b)) {
            snprintf(err, errlen, "%s:%d: the row ends before its iterations and work_sum fields",
                     fname, ln);
            free(v);
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
            return -1;
        }
        if (cnt == cap) {
            int nc = cap ? 2 * cap : 64;
            double *nv = realloc(v, sizeof *nv * (size_t)nc);
            if (!nv) {
                snprintf(err, errlen, "%s:%d: out of memory", fname, ln);
                free(v);
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
        return -1;
    }
    *out = v;
    *n = cnt;
    return 0;
}
