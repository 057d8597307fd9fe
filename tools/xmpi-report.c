/* xmpi-report: a libxmpi trace (--xmpi-trace's CSV) drawn for the run it records: PNG plots made
 * with gnuplot and one self-contained HTML page (the plots embedded as data: URIs), with a
 * summary that summary.tsv also gives to scripts. No MPI: it reads the file and nothing else. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../io/textfile.h"
#include "../io/trace_table.h"
#include "../io/version.h"

#define PROG "xmpi-report"
/* Beyond this many ranks the per-rank plot shows the least, mean and largest rank. */
#define XMPIR_REPORT_RANK_LINES 12
/* Every decision of the run is listed up to this many rows; beyond, only those that act. */
#define XMPIR_REPORT_DECISIONS_MAX 200
/* Room for the output directory's name and a file name in it. */
#define XMPIR_PATH_MAX_REPORT 8192

static const char help_text[] =
    "NAME\n"
    "    " PROG " - draw a libxmpi trace: PNG plots and one self-contained HTML page\n"
    "\n"
    "SYNOPSIS\n"
    "    " PROG " [-o DIR] TRACE.csv\n"
    "    " PROG " -h | --help | --version\n"
    "\n"
    "DESCRIPTION\n"
    "    Reads the CSV trace a libxmpi job wrote with --xmpi-trace=TRACE.csv (or the\n"
    "    TRACE.csv.part of a job that died) and writes into DIR:\n"
    "      report.html     one page that opens offline: the summary, the plots (embedded),\n"
    "                      every decision of the malleability policy and the model's\n"
    "                      comparisons\n"
    "      processes.png   processes per node class over time, with spawns, removals,\n"
    "                      rebalances, redistributions, checkpoints, relaunches and the\n"
    "                      resource manager's offers and reclaims on a lane below\n"
    "      ranks.png       each rank's computation and communication time per interval\n"
    "      model.png       predicted against measured per phase, with the errors, on the\n"
    "                      rows that compare them (only when the trace has such rows)\n"
    "      cost.png        the cost so far over time, the static estimate and, under AMP,\n"
    "                      the goal (only when the trace has costs)\n"
    "      summary.tsv     the summary as KEY<TAB>VALUE lines, for scripts\n"
    "      report.gp, *.dat  gnuplot's script and data, to draw the plots again\n"
    "    Any trace format version (1 to 6) is read; what an older one lacks is said on\n"
    "    the page. A last row cut short (a job killed while writing it) is left out,\n"
    "    with a note on standard error and on the page.\n"
    "\n"
    "OPTIONS\n"
    "    -o DIR      the output directory (created if missing; its parent must exist).\n"
    "                Default: TRACE's name without .csv or .csv.part, with -report.\n"
    "                Files of an earlier report there are replaced.\n"
    "    -h, --help  print this help.\n"
    "    --version   print 'libxmpi VERSION'.\n"
    "\n"
    "ENVIRONMENT\n"
    "    GNUPLOT     the gnuplot program (default: gnuplot, found in PATH). Without it\n"
    "                the page has the summary and tables but no plots, said once.\n"
    "\n"
    "EXIT STATUS\n"
    "    0 the report was written; 1 it could not be (a directory or file not\n"
    "    writable, gnuplot failed: its log is DIR/gnuplot.log); 2 bad usage or a file\n"
    "    that is not a whole libxmpi trace (missing, empty, no rows, another format, a\n"
    "    malformed row), with one message naming the problem.\n";

/* ---- failing ------------------------------------------------------------------------------ */

static void fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(PROG ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(status);
}

static void *xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) fail(1, "out of memory");
    return p;
}

/* ---- the trace, parsed ---------------------------------------------------------------------- */

enum { PH_COMP, PH_COMM, PH_RECONF, PH_REDIST, NPHASES };
static const char *const phase_cols[NPHASES][2] = {
    {"pred_comp", "meas_comp"}, {"pred_comm", "meas_comm"},
    {"pred_reconf", "meas_reconf"}, {"pred_redist", "meas_redist"}};
static const char *const phase_names[NPHASES] = {
    "computation", "communication", "spawn or removal", "redistribution"};

/* Kinds of event on the processes plot's lane, in lane order. */
enum { EV_SPAWN, EV_REMOVE, EV_REBALANCE, EV_REDIST, EV_CKPT, EV_RMS, EV_RELAUNCH, NEVENTS };
static const char *const event_names[NEVENTS] = {
    "spawn", "removal", "rebalance", "redistribution", "checkpoint", "resource manager",
    "relaunch"};

struct row {
    int line;
    long interval, iteration, iterations;
    int nprocs;
    double t_real_max, elapsed;
    double t;                   /* seconds from the first launch's MPI_Init (relaunches added) */
    const char *action, *policy, *event, *decision, *why, *classes, *predicted_for;
    double *comp, *comm;        /* per rank; comm NULL in a version-1 trace, both NULL
                                 * where the trace left them out (--xmpi-trace-ranks) */
    int compared;
    double pred[NPHASES], meas[NPHASES];
    int costed;
    double cost_interval, cost_total;
    int relaunch_after;         /* the job ended here to be relaunched */
};

struct run {
    const char *fname;
    struct xmpi_trace_table tab;
    int n;
    struct row *r;
    int have_comm, have_model, have_policy, have_classes, have_cost;
    int maxprocs, minprocs;
    /* node classes in order of first appearance */
    int nclasses;
    char **classes;
    double goal;                /* AMP's goal (s), 0 without one */
    int goal_row;               /* the first row that names it, -1 */
    double static_t, static_cost, rate0;   /* the static estimate (-1: none) */
};

static int strict_num(const char *s, double *out)
{
    if (!s || !*s) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static const char *cell(const struct run *u, int i, const char *col)
{
    return xmpi_trace_table_cell(&u->tab, i, xmpi_trace_table_col(&u->tab, col));
}

static void bad_field(const struct run *u, const struct row *w, const char *col, const char *v,
                      const char *expected)
{
    char echo[XMPIR_TEXT_ECHO_SIZE];
    fail(2, "%s:%d: column %s: '%s' is not accepted; expected %s (the file is not a trace "
         "libxmpi wrote)", u->fname, w->line, col, xmpi_text_echo(echo, v), expected);
}

static double need_num(const struct run *u, const struct row *w, int i, const char *col,
                       double lo)
{
    double v;
    const char *s = cell(u, i, col);
    if (strict_num(s, &v) || v < lo) {
        char exp[64];
        snprintf(exp, sizeof exp, "a number >= %g", lo);
        bad_field(u, w, col, s, exp);
    }
    return v;
}

/* A ';'-separated list of exactly n numbers (the per-rank columns). */
static double *need_list(const struct run *u, const struct row *w, int i, const char *col, int n)
{
    const char *s = cell(u, i, col);
    double *v = xmalloc(sizeof *v * (size_t)n);
    char buf[64];
    const char *p = s;
    for (int k = 0; k < n; k++) {
        size_t len = strcspn(p, ";");
        if (len >= sizeof buf) len = sizeof buf - 1;
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (strict_num(buf, &v[k]) || v[k] < 0 || (k < n - 1 && p[strcspn(p, ";")] != ';')) {
            char exp[96];
            snprintf(exp, sizeof exp, "%d numbers >= 0 separated by ';' (one per process)", n);
            bad_field(u, w, col, s, exp);
        }
        p += strcspn(p, ";");
        if (*p == ';') p++;
    }
    if (*p) {
        char exp[96];
        snprintf(exp, sizeof exp, "%d numbers separated by ';' (nprocs is %d)", n, n);
        bad_field(u, w, col, s, exp);
    }
    return v;
}

/* Is `word` one of the '+'-joined words of an action? */
static int has_word(const char *action, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = action; *p;) {
        size_t len = strcspn(p, "+");
        if (len == n && !strncmp(p, word, n)) return 1;
        p += len + (p[len] == '+');
    }
    return 0;
}

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

static void add_class(struct run *u, const char *name, size_t len)
{
    for (int c = 0; c < u->nclasses; c++)
        if (strlen(u->classes[c]) == len && !strncmp(u->classes[c], name, len)) return;
    char **nc = realloc(u->classes, sizeof *nc * (size_t)(u->nclasses + 1));
    if (!nc) fail(1, "out of memory");
    u->classes = nc;
    u->classes[u->nclasses] = xmalloc(len + 1);
    memcpy(u->classes[u->nclasses], name, len);
    u->nclasses++;
}

/* Class `name`'s count in a procs_by_class field ("fast=2;slow=1"), -1 when absent. */
static int class_count(const char *field, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = field; *p;) {
        size_t len = strcspn(p, ";");
        const char *eq = memchr(p, '=', len);
        if (eq && (size_t)(eq - p) == n && !strncmp(p, name, n)) return atoi(eq + 1);
        p += len + (p[len] == ';');
    }
    return -1;
}

static void parse(struct run *u)
{
    struct xmpi_trace_table *t = &u->tab;
    u->n = t->nrows;
    u->r = xmalloc(sizeof *u->r * (size_t)u->n);
    u->have_comm = xmpi_trace_table_col(t, "comm_time_ranks") >= 0;
    u->have_model = xmpi_trace_table_col(t, "predicted_for") >= 0;
    u->have_policy = xmpi_trace_table_col(t, "decision") >= 0;
    u->have_classes = xmpi_trace_table_col(t, "procs_by_class") >= 0;
    u->have_cost = 0;
    u->goal_row = -1;
    double offset = 0;
    for (int i = 0; i < u->n; i++) {
        struct row *w = &u->r[i];
        w->line = t->lines[i];
        w->interval = (long)need_num(u, w, i, "interval", 0);
        w->iteration = (long)need_num(u, w, i, "iteration", 0);
        w->iterations = (long)need_num(u, w, i, "iterations", 0);
        double np = need_num(u, w, i, "nprocs", 1);
        if (np != floor(np) || np > 1e6) bad_field(u, w, "nprocs", cell(u, i, "nprocs"),
                                                    "a whole number of processes from 1");
        w->nprocs = (int)np;
        w->t_real_max = need_num(u, w, i, "t_real_max", 0);
        w->elapsed = need_num(u, w, i, "elapsed", 0);
        /* A job larger than --xmpi-trace-ranks leaves the per-rank columns empty. */
        int ranks = cell(u, i, "t_real_ranks")[0] != '\0';
        double *treal = ranks ? need_list(u, w, i, "t_real_ranks", w->nprocs) : NULL;
        w->comm = ranks && u->have_comm ? need_list(u, w, i, "comm_time_ranks", w->nprocs) : NULL;
        w->comp = treal;
        for (int k = 0; w->comm && k < w->nprocs; k++) {
            w->comp[k] = treal[k] - w->comm[k];
            if (w->comp[k] < 0) w->comp[k] = 0;
        }
        w->action = cell(u, i, "action");
        w->policy = cell(u, i, "policy");
        w->event = cell(u, i, "event");
        w->decision = cell(u, i, "decision");
        w->why = cell(u, i, "why");
        w->classes = cell(u, i, "procs_by_class");
        w->predicted_for = cell(u, i, "predicted_for");
        if (w->predicted_for[0]) {
            w->compared = 1;
            for (int p = 0; p < NPHASES; p++) {
                w->pred[p] = need_num(u, w, i, phase_cols[p][0], 0);
                w->meas[p] = need_num(u, w, i, phase_cols[p][1], 0);
            }
        }
        if (cell(u, i, "cost_interval")[0]) {
            w->costed = 1;
            w->cost_interval = need_num(u, w, i, "cost_interval", 0);
            w->cost_total = need_num(u, w, i, "cost_total", 0);
            u->have_cost = 1;
        }
        /* A relaunched job's clock goes on from the launch before (resize.c); a trace whose
         * elapsed goes back (rows of two runs joined by hand) is drawn launch after launch. */
        if (i > 0 && w->elapsed < u->r[i - 1].elapsed) offset = u->r[i - 1].t;
        w->relaunch_after = has_word(w->action, "relaunch");
        w->t = w->elapsed + offset;
        if (i == 0 || w->nprocs > u->maxprocs) u->maxprocs = w->nprocs;
        if (i == 0 || w->nprocs < u->minprocs) u->minprocs = w->nprocs;
        for (const char *p = w->classes; *p;) {
            size_t len = strcspn(p, ";");
            const char *eq = memchr(p, '=', len);
            if (eq) add_class(u, p, (size_t)(eq - p));
            p += len + (p[len] == ';');
        }
        double g;
        if (u->goal_row < 0 && starts(w->event, "goal ") && sscanf(w->event + 5, "%lf", &g) == 1 &&
            g > 0) {
            u->goal = g;
            u->goal_row = i;
        }
    }
    /* The static estimate: the run at the pace of its initial configuration from the interval
     * AMP fixed its goal at (the first interval without AMP), for the iterations the trace
     * covers, at the cost rate of the processes that ran the first interval. */
    u->static_t = u->static_cost = u->rate0 = -1;
    const struct row *k = &u->r[u->goal_row >= 0 ? u->goal_row : 0];
    const struct row *last = &u->r[u->n - 1];
    if (k->iterations > 0)
        u->static_t = k->t + (double)(last->iteration - k->iteration) * k->t_real_max /
                                 (double)k->iterations;
    if (u->r[0].costed && u->r[0].elapsed > 0) {
        u->rate0 = u->r[0].cost_interval / u->r[0].elapsed;
        if (u->static_t >= 0) u->static_cost = u->rate0 * u->static_t;
    }
}

/* ---- the summary ---------------------------------------------------------------------------- */

struct summary {
    double time_s;
    long iterations;
    int procs_first, procs_last;
    int spawned, removed;            /* processes, from nprocs row to row (not across relaunches) */
    int spawn_events, remove_events, rebalances, redistributions, checkpoints, relaunches;
    int rm_events;
    int decisions, keeps, spawn_decisions, remove_decisions;
    int compared;
    double mean_abs_err[NPHASES];
    int err_n[NPHASES];
    int costed;
    double cost;
    double decide_s, decide_max;
};

static void summarize(const struct run *u, struct summary *s)
{
    memset(s, 0, sizeof *s);
    const struct row *last = &u->r[u->n - 1];
    s->time_s = last->t;
    s->iterations = last->iteration;
    s->procs_first = u->r[0].nprocs;
    s->procs_last = last->nprocs;
    for (int i = 0; i < u->n; i++) {
        const struct row *w = &u->r[i];
        if (i > 0 && !u->r[i - 1].relaunch_after) {
            int d = w->nprocs - u->r[i - 1].nprocs;
            if (d > 0) s->spawned += d;
            else s->removed -= d;
        }
        s->spawn_events += has_word(w->action, "spawn");
        s->remove_events += has_word(w->action, "remove");
        s->rebalances += has_word(w->action, "rebalance");
        s->redistributions += has_word(w->action, "redistribute");
        s->checkpoints += has_word(w->action, "checkpoint");
        s->relaunches += w->relaunch_after;
        s->rm_events += starts(w->event, "offer ") || starts(w->event, "reclaim ");
        if (w->decision[0]) {
            s->decisions++;
            s->keeps += !strcmp(w->decision, "keep");
            s->spawn_decisions += starts(w->decision, "spawn ");
            s->remove_decisions += starts(w->decision, "remove ");
            double td;
            if (!strict_num(cell(u, i, "t_decide"), &td)) {
                s->decide_s += td;
                if (td > s->decide_max) s->decide_max = td;
            }
        }
        if (w->compared) {
            s->compared++;
            for (int p = 0; p < NPHASES; p++)
                if (w->meas[p] > 0) {
                    s->mean_abs_err[p] += fabs(w->pred[p] - w->meas[p]) / w->meas[p];
                    s->err_n[p]++;
                }
        }
        if (w->costed) {
            s->costed = 1;
            s->cost += w->cost_interval;
        }
    }
    for (int p = 0; p < NPHASES; p++)
        if (s->err_n[p]) s->mean_abs_err[p] *= 100.0 / s->err_n[p];
}

/* ---- output files ---------------------------------------------------------------------------- */

static const char *out_dir;

static FILE *create(const char *name)
{
    char path[XMPIR_PATH_MAX_REPORT];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *f = fopen(path, "w");
    if (!f) fail(1, "cannot write '%s': %s", path, strerror(errno));
    return f;
}

static void finish(FILE *f, const char *name)
{
    if (fflush(f) || ferror(f) || fclose(f)) fail(1, "cannot write '%s/%s'", out_dir, name);
}

static void remove_file(const char *name)
{
    char path[XMPIR_PATH_MAX_REPORT];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    unlink(path);
}

/* A name as gnuplot's single-quoted string takes it, and as a plot title shows it. */
static void gp_text(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) fputc(*s == '\'' ? '`' : isprint((unsigned char)*s) ? *s : '?', f);
    fputc('\'', f);
}

static void write_summary_tsv(const struct run *u, const struct summary *s)
{
    FILE *f = create("summary.tsv");
    fprintf(f, "trace\t%s\nversion\t%d\nrows\t%d\ncut\t%d\n", u->fname, u->tab.version, u->n,
            u->tab.cut);
    fprintf(f, "time_s\t%.6f\niterations\t%ld\n", s->time_s, s->iterations);
    fprintf(f, "procs_first\t%d\nprocs_last\t%d\nprocs_min\t%d\nprocs_max\t%d\n", s->procs_first,
            s->procs_last, u->minprocs, u->maxprocs);
    fprintf(f, "spawned_procs\t%d\nremoved_procs\t%d\n", s->spawned, s->removed);
    fprintf(f, "spawn_events\t%d\nremove_events\t%d\nrebalances\t%d\nredistributions\t%d\n",
            s->spawn_events, s->remove_events, s->rebalances, s->redistributions);
    fprintf(f, "checkpoints\t%d\nrelaunches\t%d\nrm_events\t%d\n", s->checkpoints, s->relaunches,
            s->rm_events);
    fprintf(f, "decisions\t%d\ndecisions_keep\t%d\ndecisions_spawn\t%d\ndecisions_remove\t%d\n",
            s->decisions, s->keeps, s->spawn_decisions, s->remove_decisions);
    fprintf(f, "decide_s\t%.6f\n", s->decide_s);
    if (s->costed) fprintf(f, "cost\t%.9g\n", s->cost);
    else fprintf(f, "cost\t\n");
    if (u->static_t >= 0) fprintf(f, "static_time_s\t%.6f\n", u->static_t);
    else fprintf(f, "static_time_s\t\n");
    if (u->static_cost >= 0) fprintf(f, "static_cost\t%.9g\n", u->static_cost);
    else fprintf(f, "static_cost\t\n");
    if (u->goal > 0) fprintf(f, "goal_s\t%.6f\n", u->goal);
    else fprintf(f, "goal_s\t\n");
    fprintf(f, "compared\t%d\n", s->compared);
    static const char *const key[NPHASES] = {"comp", "comm", "reconf", "redist"};
    for (int p = 0; p < NPHASES; p++) {
        if (s->err_n[p]) fprintf(f, "mean_abs_err_%s_pct\t%.3f\n", key[p], s->mean_abs_err[p]);
        else fprintf(f, "mean_abs_err_%s_pct\t\n", key[p]);
    }
    finish(f, "summary.tsv");
}

/* ---- gnuplot ---------------------------------------------------------------------------------- */

static void gp_header(FILE *gp, const char *png, int w, int h)
{
    fprintf(gp, "reset\n");
    fprintf(gp, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) "
                "{ set terminal pngcairo size %d,%d font ',10' } "
                "else { set terminal png size %d,%d }\n", w, h, w, h);
    fprintf(gp, "set termoption noenhanced\nset output '%s'\nset grid\n", png);
}

static const char *const palette[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e",
                                      "#e6ab02", "#a6761d", "#666666"};

static void plot_processes(const struct run *u, FILE *gp)
{
    FILE *d = create("processes.dat");
    fprintf(d, "# t_s all");
    for (int c = 0; c < u->nclasses; c++) fprintf(d, " %s", u->classes[c]);
    fputc('\n', d);
    /* Each row's processes ran the span (previous row's end, its end]: drawn as fsteps from
     * the start (0) at the first row's values. */
    for (int i = -1; i < u->n; i++) {
        const struct row *w = &u->r[i < 0 ? 0 : i];
        fprintf(d, "%.6f %d", i < 0 ? 0.0 : w->t, w->nprocs);
        for (int c = 0; c < u->nclasses; c++) {
            int k = w->classes[0] ? class_count(w->classes, u->classes[c]) : -1;
            if (k < 0 && w->classes[0]) k = 0;
            if (k < 0) fprintf(d, " NaN");
            else fprintf(d, " %d", k);
        }
        fputc('\n', d);
    }
    finish(d, "processes.dat");

    FILE *e = create("events.dat");
    fprintf(e, "# t_s lane\n");
    int any[NEVENTS] = {0};
    for (int i = 0; i < u->n; i++) {
        const struct row *w = &u->r[i];
        int k[NEVENTS] = {has_word(w->action, "spawn"), has_word(w->action, "remove"),
                          has_word(w->action, "rebalance"), has_word(w->action, "redistribute"),
                          has_word(w->action, "checkpoint"),
                          starts(w->event, "offer ") || starts(w->event, "reclaim "),
                          w->relaunch_after};
        for (int j = 0; j < NEVENTS; j++)
            if (k[j]) {
                fprintf(e, "%.6f %d\n", w->t, j + 1);
                any[j] = 1;
            }
    }
    finish(e, "events.dat");

    double xmax = u->r[u->n - 1].t;
    if (!(xmax > 0)) xmax = 1;
    gp_header(gp, "processes.png", 1100, 660);
    fprintf(gp, "set multiplot\nset lmargin 20\nset rmargin 16\n");
    fprintf(gp, "set origin 0,0.34\nset size 1,0.66\nset xrange [0:%.6f]\n", xmax * 1.02);
    fprintf(gp, "set yrange [0:%d]\n", u->maxprocs + 1);
    if (u->maxprocs <= 24) fprintf(gp, "set ytics 1\n");
    fprintf(gp, "set title 'Processes per node class over time (cf. thesis Fig. 6.20)'\n");
    fprintf(gp, "set ylabel 'processes'\nset format x ''\nunset xlabel\n"
                "set key outside right top\n");
    fprintf(gp, "plot 'processes.dat' using 1:2 with fsteps lw 3 lc rgb 'black' title 'all'");
    for (int c = 0; c < u->nclasses; c++) {
        fprintf(gp, ", '' using 1:%d with fsteps lw 2 lc rgb '%s' title ", c + 3,
                palette[c % 8]);
        gp_text(gp, u->classes[c]);
    }
    fprintf(gp, "\n");
    fprintf(gp, "set origin 0,0\nset size 1,0.36\nunset title\nset format x '%%g'\n"
                "set xlabel 'seconds since MPI_Init'\nset ylabel 'events'\n"
                "set yrange [0.4:%d.6]\nset ytics (", NEVENTS);
    for (int j = 0; j < NEVENTS; j++)
        fprintf(gp, "%s'%s' %d", j ? ", " : "", event_names[j], j + 1);
    fprintf(gp, ")\nunset key\n");
    static const int pt[NEVENTS] = {9, 11, 13, 5, 7, 6, 4};
    fprintf(gp, "plot NaN notitle");
    for (int j = 0; j < NEVENTS; j++)
        if (any[j])
            fprintf(gp, ", 'events.dat' using 1:($2 == %d ? $2 : 1/0) with points pt %d ps 1.8 "
                        "lc rgb '%s' notitle", j + 1, pt[j], palette[j == EV_RELAUNCH ? 7 : j]);
    fprintf(gp, "\nunset multiplot\n");
}

/* The x of each row on the per-interval plots: its interval number where those increase (a
 * trace of one launch), else its row number. */
static int use_interval_numbers(const struct run *u)
{
    for (int i = 1; i < u->n; i++)
        if (u->r[i].interval <= u->r[i - 1].interval) return 0;
    return 1;
}

static void plot_ranks(const struct run *u, FILE *gp)
{
    int byint = use_interval_numbers(u);
    int each = u->maxprocs <= XMPIR_REPORT_RANK_LINES;
    int nl = each ? u->maxprocs : 3;
    FILE *d = create("ranks.dat");
    fprintf(d, "# x imbalance_pct comp[%d] comm[%d]\n", nl, nl);
    for (int i = 0; i < u->n; i++) {
        const struct row *w = &u->r[i];
        double lo = 0, hi = 0, mean = 0, clo = 0, chi = 0, cmean = 0;
        for (int k = 0; w->comp && k < w->nprocs; k++) {
            double c = w->comp[k], m = w->comm ? w->comm[k] : 0;
            if (k == 0 || c < lo) lo = c;
            if (k == 0 || c > hi) hi = c;
            if (k == 0 || m < clo) clo = m;
            if (k == 0 || m > chi) chi = m;
            mean += c / w->nprocs;
            cmean += m / w->nprocs;
        }
        fprintf(d, "%ld", byint ? w->interval : (long)i + 1);
        if (!w->comp) {
            for (int k = 0; k < 1 + 2 * nl; k++) fprintf(d, " NaN");
            fputc('\n', d);
            continue;
        }
        fprintf(d, " %.4f", hi > 0 ? 100 * (hi - lo) / hi : 0);
        for (int part = 0; part < 2; part++)
            for (int k = 0; k < nl; k++) {
                double v;
                if (each) {
                    if (k >= w->nprocs || (part && !w->comm)) {
                        fprintf(d, " NaN");
                        continue;
                    }
                    v = part ? w->comm[k] : w->comp[k];
                } else {
                    v = part ? (k == 0 ? clo : k == 1 ? cmean : chi) : (k == 0 ? lo : k == 1 ? mean : hi);
                    if (part && !w->comm) {
                        fprintf(d, " NaN");
                        continue;
                    }
                }
                fprintf(d, " %.9g", v);
            }
        fputc('\n', d);
    }
    finish(d, "ranks.dat");

    long x0 = byint ? u->r[0].interval : 1, x1 = byint ? u->r[u->n - 1].interval : u->n;
    int any = 0;
    for (int i = 0; i < u->n; i++) any |= u->r[i].comp != NULL;
    if (!any) {
        /* gnuplot refuses a plot without one point: an empty frame that says why. */
        gp_header(gp, "ranks.png", 1100, 440);
        fprintf(gp, "set xrange [%.1f:%.1f]\nset xlabel '%s'\nset yrange [0:1]\nunset ytics\n"
                    "set title 'No per-rank columns in this trace: the job had more processes "
                    "than --xmpi-trace-ranks'\nplot NaN notitle\n",
                x0 - 0.5, x1 + 0.5, byint ? "interval" : "trace row");
        return;
    }
    gp_header(gp, "ranks.png", 1100, u->have_comm ? 760 : 440);
    if (u->have_comm) fprintf(gp, "set multiplot layout 2,1\n");
    fprintf(gp, "set xrange [%.1f:%.1f]\nset xlabel '%s'\nset key outside right top\n"
                "set lmargin 12\nset rmargin 30\nset ylabel 'seconds'\nset yrange [0:*]\n",
            x0 - 0.5, x1 + 0.5, byint ? "interval" : "trace row");
    if (x1 - x0 <= 30) fprintf(gp, "set xtics 1\n");
    fprintf(gp, "set y2label 'imbalance, %%'\nset y2tics\nset ytics nomirror\nset y2range [0:*]\n");
    fprintf(gp, "set title '%s'\n", u->have_comm
                ? "Computation per rank and interval (t_real - comm_time): what the balancer saw"
                : "Wall time per rank and interval (t_real; this trace version has no "
                  "per-rank communication)");
    for (int part = 0; part < (u->have_comm ? 2 : 1); part++) {
        if (part) {
            fprintf(gp, "unset y2label\nunset y2tics\nset ytics mirror\n"
                        "set title 'Communication per rank and interval (time in profiled MPI "
                        "calls)'\n");
        }
        fprintf(gp, "plot ");
        for (int k = 0; k < nl; k++) {
            static const char *const agg[3] = {"least", "mean", "largest"};
            char title[48];
            if (each) snprintf(title, sizeof title, "rank %d", k);
            else snprintf(title, sizeof title, "%s of the ranks", agg[k]);
            fprintf(gp, "%s'ranks.dat' using 1:%d with linespoints pt 7 ps 0.8 lw 2 lc rgb '%s' "
                        "title '%s'", k ? ", " : "", 3 + part * nl + k, palette[k % 8], title);
        }
        if (!part)
            fprintf(gp, ", 'ranks.dat' using 1:2 axes x1y2 with linespoints dt 2 pt 1 lw 2 lc rgb 'black' "
                        "title 'imbalance'");
        fputc('\n', gp);
    }
    if (u->have_comm) fprintf(gp, "unset multiplot\n");
}

static int compared_rows(const struct run *u)
{
    int n = 0;
    for (int i = 0; i < u->n; i++) n += u->r[i].compared;
    return n;
}

static void error_text(double pred, double meas, char *out, size_t len)
{
    if (meas > 0) snprintf(out, len, "%+.0f%%", 100 * (pred - meas) / meas);
    else snprintf(out, len, "n/a");
}

static void plot_model(const struct run *u, FILE *gp)
{
    int nc = compared_rows(u);
    FILE *d = create("model.dat");
    fprintf(d, "# j label pred/meas per phase (comp comm reconf redist), errors\n");
    double ymax[NPHASES] = {0};
    for (int i = 0, j = 0; i < u->n; i++) {
        const struct row *w = &u->r[i];
        if (!w->compared) continue;
        j++;
        fprintf(d, "%d \"%ld %s\"", j, w->interval, w->predicted_for);
        for (int p = 0; p < NPHASES; p++) {
            fprintf(d, " %.9g %.9g", w->pred[p], w->meas[p]);
            if (w->pred[p] > ymax[p]) ymax[p] = w->pred[p];
            if (w->meas[p] > ymax[p]) ymax[p] = w->meas[p];
        }
        for (int p = 0; p < NPHASES; p++) {
            char e[32];
            error_text(w->pred[p], w->meas[p], e, sizeof e);
            fprintf(d, " \"%s\"", e);
        }
        fputc('\n', d);
    }
    finish(d, "model.dat");
    gp_header(gp, "model.png", 1100, 760);
    fprintf(gp, "set multiplot layout 2,2 title 'Predicted against measured, first whole interval "
                "after each spawn or removal (labels: the error, predicted/measured - 1)'\n");
    fprintf(gp, "set style fill solid 0.85 border -1\nset boxwidth 0.36\n"
                "set xrange [0.4:%d.6]\nset ylabel 'seconds'\nset xlabel 'interval, action'\n"
                "set key top left\n", nc);
    for (int p = 0; p < NPHASES; p++) {
        int cp = 3 + 2 * p, cm = cp + 1, ce = 3 + 2 * NPHASES + p;
        fprintf(gp, "set title '%s'\nset yrange [0:%.9g]\n", phase_names[p],
                ymax[p] > 0 ? ymax[p] * 1.3 : 1);
        fprintf(gp, "plot 'model.dat' using ($1-0.19):%d:xtic(2) with boxes lc rgb '#7570b3' "
                    "title 'predicted', '' using ($1+0.19):%d with boxes lc rgb '#d95f02' "
                    "title 'measured', '' using 1:($%d > $%d ? $%d : $%d):%d with labels "
                    "offset 0,1 notitle\n", cp, cm, cp, cm, cp, cm, ce);
    }
    fprintf(gp, "unset multiplot\n");
}

static void plot_cost(const struct run *u, FILE *gp)
{
    FILE *d = create("cost.dat");
    fprintf(d, "# t_s cost_total\n0 0\n");
    double total = 0, ymax = 0;
    for (int i = 0; i < u->n; i++) {
        const struct row *w = &u->r[i];
        if (!w->costed) continue;
        total += w->cost_interval;
        fprintf(d, "%.6f %.9g\n", w->t, total);
    }
    ymax = total;
    finish(d, "cost.dat");
    FILE *s = create("static.dat");
    fprintf(s, "# t_s cost: the static estimate\n");
    if (u->static_cost >= 0) {
        fprintf(s, "0 0\n%.6f %.9g\n", u->static_t, u->static_cost);
        if (u->static_cost > ymax) ymax = u->static_cost;
    }
    finish(s, "static.dat");
    double xmax = u->r[u->n - 1].t;
    if (u->static_t > xmax) xmax = u->static_t;
    if (u->goal > xmax) xmax = u->goal;
    if (!(xmax > 0)) xmax = 1;
    gp_header(gp, "cost.png", 1100, 520);
    fprintf(gp, "set title 'Cost over time against the static estimate%s'\n",
            u->goal > 0 ? ", and the AMP goal" : "");
    fprintf(gp, "set xlabel 'seconds since MPI_Init'\nset ylabel 'cost (the resource file''s "
                "unit)'\nset xrange [0:%.6f]\nset yrange [0:%.9g]\nset key below\n",
            xmax * 1.05, ymax > 0 ? ymax * 1.15 : 1);
    if (u->goal > 0)
        fprintf(gp, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2 lw 2 "
                    "lc rgb '#e7298a'\n", u->goal, u->goal);
    fprintf(gp, "plot 'cost.dat' using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#1b9e77' "
                "title 'cost so far (the trace''s cost_interval, summed)'");
    if (u->static_cost >= 0)
        fprintf(gp, ", 'static.dat' using 1:2 with lines dt 3 lw 2 lc rgb '#666666' title "
                    "'static estimate: the initial processes at the first%s interval''s pace'",
                u->goal_row >= 0 ? " decided" : "");
    if (u->goal > 0)
        fprintf(gp, ", NaN with lines dt 2 lw 2 lc rgb '#e7298a' title 'AMP goal, %.4g s'",
                u->goal);
    fputc('\n', gp);
}

/* Runs gnuplot on DIR/report.gp in DIR. 0; 1 when gnuplot is not there; -1 when it failed. */
static int run_gnuplot(void)
{
    const char *prog = getenv("GNUPLOT");
    if (!prog || !*prog) prog = "gnuplot";
    char log[XMPIR_PATH_MAX_REPORT];
    snprintf(log, sizeof log, "%s/gnuplot.log", out_dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        FILE *l = freopen(log, "w", stdout);
        if (!l || chdir(out_dir)) _exit(126);
        dup2(fileno(stdout), 2);
        execlp(prog, prog, "report.gp", (char *)NULL);
        fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127) return 1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* ---- the page -------------------------------------------------------------------------------- */

static void html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(isprint((unsigned char)*s) || (unsigned char)*s >= 0x80 ? *s : '?', f);
        }
    }
}

/* The PNG as a data: URI, so that the page needs no other file. 0, or -1 when it is missing. */
static int embed_png(FILE *f, const char *name)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char path[XMPIR_PATH_MAX_REPORT];
    snprintf(path, sizeof path, "%s/%s", out_dir, name);
    FILE *in = fopen(path, "rb");
    if (!in) return -1;
    unsigned char buf[3 * 1024];
    size_t n;
    long total = 0;
    fputs("data:image/png;base64,", f);
    /* Reads whole triples until the end, so only the last chunk is padded. */
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        total += (long)n;
        for (size_t i = 0; i < n; i += 3) {
            unsigned v = (unsigned)buf[i] << 16;
            if (i + 1 < n) v |= (unsigned)buf[i + 1] << 8;
            if (i + 2 < n) v |= buf[i + 2];
            fputc(b64[v >> 18 & 63], f);
            fputc(b64[v >> 12 & 63], f);
            fputc(i + 1 < n ? b64[v >> 6 & 63] : '=', f);
            fputc(i + 2 < n ? b64[v & 63] : '=', f);
        }
    }
    fclose(in);
    return total > 0 ? 0 : -1;
}

static void figure(FILE *f, const char *png, int have, const char *alt, const char *caption)
{
    fprintf(f, "<figure>");
    if (have) {
        fprintf(f, "<img alt=\"%s\" src=\"", alt);
        embed_png(f, png);
        fprintf(f, "\">");
    }
    fprintf(f, "<figcaption>%s</figcaption></figure>\n", caption);
}

static void tr(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void tr(FILE *f, const char *key, const char *fmt, ...)
{
    char v[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    fprintf(f, "<tr><th>%s</th><td>", key);
    html_text(f, v);
    fprintf(f, "</td></tr>\n");
}

static const char *basename_of(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void write_html(const struct run *u, const struct summary *s, int plots,
                       const char *no_plots)
{
    FILE *f = create("report.html");
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
    html_text(f, basename_of(u->fname));
    fprintf(f, " - libxmpi run report</title>\n<style>\n"
               "body{font-family:sans-serif;margin:1.5em auto;max-width:1150px;color:#222}\n"
               "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc}\n"
               "table{border-collapse:collapse;margin:.5em 0}\n"
               "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\n"
               "th{background:#f0f0f0}td.n{text-align:right}\n"
               "figure{margin:1em 0}img{max-width:100%%;border:1px solid #ddd}\n"
               "figcaption{font-size:.9em;color:#555}.note{background:#fff6d5;padding:.4em}\n"
               "</style></head><body>\n<h1>libxmpi run report: ");
    html_text(f, basename_of(u->fname));
    fprintf(f, "</h1>\n<p>From <code>");
    html_text(f, u->fname);
    fprintf(f, "</code>, trace format version %d of %d, %d interval row%s; drawn by xmpi-report "
               "(libxmpi %s).</p>\n", u->tab.version, XMPIR_TRACE_VERSION, u->n,
            u->n == 1 ? "" : "s", XMPIR_PURE_VERSION);
    size_t fl = strlen(u->fname);
    if (fl > 5 && !strcmp(u->fname + fl - 5, ".part"))
        fprintf(f, "<p class=\"note\">A .part file: the job did not reach MPI_Finalize; these "
                   "are the intervals it finished.</p>\n");
    if (u->tab.cut)
        fprintf(f, "<p class=\"note\">The last line of the file was cut short (%d of %d fields; "
                   "the job stopped while writing it) and is left out.</p>\n",
                u->tab.cut_fields, u->tab.ncols);
    if (u->tab.version < XMPIR_TRACE_VERSION)
        fprintf(f, "<p class=\"note\">An older trace format (version %d): it has no%s%s%s%s "
                   "columns, and the page shows what its columns allow.</p>\n", u->tab.version,
                u->have_comm ? "" : " per-rank communication,",
                u->have_model ? "" : " prediction,",
                u->have_policy ? "" : " policy and node-class,", " cost");
    if (!plots) {
        fprintf(f, "<p class=\"note\">");
        html_text(f, no_plots);
        fprintf(f, "</p>\n");
    }

    fprintf(f, "<h2>Summary</h2>\n<table>\n");
    tr(f, "time", "%.4g s from MPI_Init to the last interval's end", s->time_s);
    tr(f, "iterations", "%ld", s->iterations);
    tr(f, "processes", "%d at the start, %d at the end, %d to %d", s->procs_first, s->procs_last,
       u->minprocs, u->maxprocs);
    if (s->costed) tr(f, "cost", "%.6g (the resource file's unit; the trace's intervals)", s->cost);
    else tr(f, "cost", "not in this trace (%s)", u->tab.version < 6 ? "an older format" :
            "no resource pool on rank 0");
    if (u->static_t >= 0) {
        if (u->static_cost >= 0)
            tr(f, "static estimate", "%.4g s, cost %.6g: the initial processes at the pace of "
               "interval %ld for every iteration", u->static_t, u->static_cost,
               u->r[u->goal_row >= 0 ? u->goal_row : 0].interval);
        else
            tr(f, "static estimate", "%.4g s: the initial processes at the pace of interval %ld "
               "for every iteration", u->static_t, u->r[u->goal_row >= 0 ? u->goal_row : 0].interval);
    }
    if (u->goal > 0) tr(f, "AMP goal", "%.4g s from MPI_Init (met: %s)", u->goal,
                        s->time_s <= u->goal ? "yes" : "no");
    tr(f, "moves", "%d rebalance%s, %d redistribution%s", s->rebalances,
       s->rebalances == 1 ? "" : "s", s->redistributions, s->redistributions == 1 ? "" : "s");
    tr(f, "spawns", "%d (%d process%s joined)", s->spawn_events, s->spawned,
       s->spawned == 1 ? "" : "es");
    tr(f, "removals", "%d (%d process%s left)", s->remove_events, s->removed,
       s->removed == 1 ? "" : "es");
    tr(f, "checkpoints", "%d", s->checkpoints);
    if (s->relaunches) tr(f, "relaunches", "%d", s->relaunches);
    tr(f, "resource manager", "%d offer%s or reclaim%s", s->rm_events,
       s->rm_events == 1 ? "" : "s", s->rm_events == 1 ? "" : "s");
    if (u->have_policy)
        tr(f, "decisions", "%d: keep %d, spawn %d, remove %d; %.3g s deciding", s->decisions,
           s->keeps, s->spawn_decisions, s->remove_decisions, s->decide_s);
    if (u->have_model)
        tr(f, "model comparisons", "%d row%s comparing a prediction with the interval after",
           s->compared, s->compared == 1 ? "" : "s");
    fprintf(f, "</table>\n");
    if (u->have_model && s->compared) {
        fprintf(f, "<p>Mean |predicted - measured| / measured:");
        for (int p = 0; p < NPHASES; p++)
            if (s->err_n[p]) fprintf(f, " %s %.1f%%%s", phase_names[p], s->mean_abs_err[p],
                                     p < NPHASES - 1 ? ";" : "");
        fprintf(f, "</p>\n");
    }

    fprintf(f, "<h2>Processes</h2>\n");
    figure(f, "processes.png", plots, "processes per node class over time",
           "Processes per node class (the trace's procs_by_class; \"all\" is nprocs) over the "
           "seconds since MPI_Init, each row's processes drawn over the span up to its end. "
           "Below, what happened at each interval's end: the action column's spawns, removals, "
           "rebalances, redistributions, checkpoints and relaunches, and the resource "
           "manager's offers and reclaims (the event column).");
    fprintf(f, "<h2>Ranks</h2>\n");
    figure(f, "ranks.png", plots, "computation and communication per rank",
           "Each rank's computation (t_real_ranks - comm_time_ranks) and communication "
           "(comm_time_ranks) per interval, summed over its iterations; the dashed line is the "
           "imbalance of the computation, (max - min) / max, on the right axis. Intervals of a "
           "job larger than --xmpi-trace-ranks have no per-rank columns: no points.");
    fprintf(f, "<h2>Prediction model</h2>\n");
    if (!u->have_model) {
        fprintf(f, "<p>This trace version has no prediction columns.</p>\n");
    } else if (!s->compared) {
        fprintf(f, "<p>No row compares a prediction: the model compares the first whole "
                   "interval after a spawn or a removal, and this run had none.</p>\n");
    } else {
        figure(f, "model.png", plots, "predicted against measured per phase",
               "The model's prediction, made just before the action, against the first whole "
               "interval after it, per phase; the label is the error.");
        fprintf(f, "<table><tr><th>interval</th><th>after</th>");
        for (int p = 0; p < NPHASES; p++)
            fprintf(f, "<th>%s: predicted / measured (s), error</th>", phase_names[p]);
        fprintf(f, "</tr>\n");
        for (int i = 0; i < u->n; i++) {
            const struct row *w = &u->r[i];
            if (!w->compared) continue;
            fprintf(f, "<tr><td class=\"n\">%ld</td><td>", w->interval);
            html_text(f, w->predicted_for);
            fprintf(f, "</td>");
            for (int p = 0; p < NPHASES; p++) {
                char e[32];
                error_text(w->pred[p], w->meas[p], e, sizeof e);
                fprintf(f, "<td class=\"n\">%.4g / %.4g, %s</td>", w->pred[p], w->meas[p], e);
            }
            fprintf(f, "</tr>\n");
        }
        fprintf(f, "</table>\n");
    }
    fprintf(f, "<h2>Cost</h2>\n");
    if (s->costed)
        figure(f, "cost.png", plots, "cost over time",
               "The cost so far (cost_interval summed row by row) against the static estimate: "
               "the initial processes' cost rate (the first interval's cost over its span) until "
               "the static estimate's end. Under AMP, the dashed vertical line is the goal.");
    else
        fprintf(f, "<p>No costs in this trace: %s.</p>\n", u->tab.version < 6
                ? "its format version has no cost columns"
                : "rank 0 had no resource pool with costs");

    fprintf(f, "<h2>Decisions</h2>\n");
    if (!u->have_policy || !s->decisions) {
        fprintf(f, "<p>No malleability policy decided in this run%s.</p>\n",
                u->have_policy ? "" : " (this trace version has no policy columns)");
    } else {
        int all = s->decisions <= XMPIR_REPORT_DECISIONS_MAX;
        if (!all)
            fprintf(f, "<p>%d decisions; the %d that were not keep are listed.</p>\n",
                    s->decisions, s->decisions - s->keeps);
        fprintf(f, "<table><tr><th>interval</th><th>time (s)</th><th>policy</th>"
                   "<th>event</th><th>decision</th><th>why</th><th>processes</th></tr>\n");
        for (int i = 0; i < u->n; i++) {
            const struct row *w = &u->r[i];
            if (!w->decision[0] || (!all && !strcmp(w->decision, "keep"))) continue;
            fprintf(f, "<tr><td class=\"n\">%ld</td><td class=\"n\">%.4g</td><td>", w->interval,
                    w->t);
            html_text(f, w->policy);
            fprintf(f, "</td><td>");
            html_text(f, w->event);
            fprintf(f, "</td><td>");
            html_text(f, w->decision);
            fprintf(f, "</td><td>");
            /* The writer turns the sentence's commas into '_'. */
            for (const char *p = w->why; *p; p++) {
                char c[2] = {*p == '_' && p[1] == ' ' ? ',' : *p, 0};
                html_text(f, c);
            }
            fprintf(f, "</td><td>");
            html_text(f, w->classes[0] ? w->classes : "");
            fprintf(f, "</td></tr>\n");
        }
        fprintf(f, "</table>\n");
    }
    fprintf(f, "<p style=\"font-size:.8em;color:#777\">The columns are described in libxmpi's "
               "docs/formats.md (The trace CSV); summary.tsv beside this page has the summary "
               "for scripts.</p>\n</body></html>\n");
    finish(f, "report.html");
}

/* ---- main ---------------------------------------------------------------------------------- */

static char *default_dir(const char *trace)
{
    size_t n = strlen(trace);
    char *d = xmalloc(n + 16);
    memcpy(d, trace, n + 1);
    if (n > 9 && !strcmp(d + n - 9, ".csv.part")) d[n - 9] = '\0';
    else if (n > 5 && !strcmp(d + n - 5, ".part")) d[n - 5] = '\0';
    else if (n > 4 && !strcmp(d + n - 4, ".csv")) d[n - 4] = '\0';
    strcat(d, "-report");
    return d;
}

static void make_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) fail(2, "-o '%s': it exists and is not a directory", dir);
        return;
    }
    if (mkdir(dir, 0777)) fail(1, "cannot create the directory '%s': %s", dir, strerror(errno));
}

int main(int argc, char **argv)
{
    const char *trace = NULL, *dir = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(help_text, stdout);
            return fflush(stdout) ? 1 : 0;
        } else if (!strcmp(a, "--version")) {
            printf("libxmpi %s\n", XMPIR_PURE_VERSION);
            return 0;
        } else if (!strcmp(a, "-o")) {
            if (i + 1 >= argc || !argv[i + 1][0]) fail(2, "-o needs a directory; usage: " PROG
                                                       " [-o DIR] TRACE.csv");
            dir = argv[++i];
        } else if (!strcmp(a, "--")) {
            if (i + 1 < argc) trace = argv[++i];
            if (i + 1 < argc) fail(2, "one trace at a time ('%.60s' is extra)", argv[i + 1]);
        } else if (a[0] == '-' && a[1]) {
            char echo[XMPIR_TEXT_ECHO_SIZE];
            fail(2, "unknown option '%s'; accepted: -o DIR, -h, --help, --version",
                 xmpi_text_echo(echo, a));
        } else if (trace) {
            fail(2, "one trace at a time ('%.60s' is extra); usage: " PROG " [-o DIR] TRACE.csv",
                 a);
        } else {
            trace = a;
        }
    }
    if (!trace) fail(2, "no trace given; usage: " PROG " [-o DIR] TRACE.csv (see --help)");

    struct stat st;
    if (stat(trace, &st) == 0 && S_ISDIR(st.st_mode))
        fail(2, "'%s' is a directory; expected a trace file written by --xmpi-trace", trace);
    FILE *in = fopen(trace, "r");
    if (!in) fail(2, "cannot read '%s': %s", trace, strerror(errno));
    struct run u;
    memset(&u, 0, sizeof u);
    u.fname = trace;
    char err[1024];
    if (xmpi_trace_table_read(in, trace, &u.tab, err, sizeof err)) {
        fclose(in);
        fail(2, "%s", err);
    }
    fclose(in);
    parse(&u);
    if (u.tab.cut)
        fprintf(stderr, PROG ": note: %s: the last line is cut short (%d of %d fields: the job "
                "stopped while writing it); it is left out\n", trace, u.tab.cut_fields,
                u.tab.ncols);

    out_dir = dir ? dir : default_dir(trace);
    if (strlen(out_dir) > XMPIR_PATH_MAX_REPORT - 64) fail(2, "-o: the directory's name is too long");
    make_dir(out_dir);
    struct summary s;
    summarize(&u, &s);
    write_summary_tsv(&u, &s);

    FILE *gp = create("report.gp");
    fprintf(gp, "# Written by " PROG " for %s; run `gnuplot report.gp` in this directory.\n",
            trace);
    plot_processes(&u, gp);
    plot_ranks(&u, gp);
    if (u.have_model && s.compared) plot_model(&u, gp);
    else remove_file("model.png"), remove_file("model.dat");
    if (s.costed) plot_cost(&u, gp);
    else remove_file("cost.png"), remove_file("cost.dat"), remove_file("static.dat");
    finish(gp, "report.gp");

    int rc = run_gnuplot(), plots = rc == 0;
    char no_plots[256] = "";
    if (rc == 1) {
        snprintf(no_plots, sizeof no_plots, "gnuplot was not found (install gnuplot-nox, or set "
                 "GNUPLOT): this page has the summary and tables, but no plots.");
        fprintf(stderr, PROG ": note: %s\n", no_plots);
        /* An earlier report's plots would not be this trace's. */
        static const char *const pngs[] = {"gnuplot.log", "processes.png", "ranks.png",
                                           "model.png", "cost.png"};
        for (size_t i = 0; i < sizeof pngs / sizeof pngs[0]; i++) remove_file(pngs[i]);
    } else if (rc < 0) {
        fail(1, "gnuplot failed on %s/report.gp; its messages are in %s/gnuplot.log", out_dir,
             out_dir);
    }
    write_html(&u, &s, plots, no_plots);
    printf("%s/report.html\n", out_dir);
    return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
