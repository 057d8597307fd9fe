/* CSV trace rows: one per sampling interval, flushed as written so that a
 * job that dies still leaves every finished interval on disk. */
#include "trace.h"

#include <errno.h>
#include <string.h>

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
