/* The trace read back whole: rows of text fields under the header's column names, for the
 * tools that draw or check a run after the fact (xmpi-report). */
#include "trace_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"
#include "trace.h"

/* Columns were only ever appended: the per-rank work (1), the per-rank communication time
 * (2), the prediction model's comparison (3), the malleability policy's columns (4), the
 * decide step's time (5), the cost account (6). */
const int xmpi_trace_version_columns[XMPIR_TRACE_VERSION] = {16, 17, 27, 32, 33, 35};

/* Fields of a comma-separated line, split in place: *n of them (at most max) in out.
 * Returns the number of fields the line has (more than max when it has more). */
static int split(char *line, char **out, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *c = strchr(p, ',');
        if (n < max) out[n] = p;
        n++;
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static int count_fields(const char *line)
{
    int n = 1;
    for (; *line; line++) n += *line == ',';
    return n;
}

/* The line without its newline (and a carriage return before it). */
static size_t chomp(char *line, size_t len, int *had_newline)
{
    *had_newline = len > 0 && line[len - 1] == '\n';
    if (*had_newline) line[--len] = '\0';
    if (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
    return len;
}

int xmpi_trace_version_of(const char *header)
{
    size_t len = strcspn(header, "\r\n");
    if (strncmp(header, "interval,iteration,nprocs,", 26) || len < 26) return -1;
    int ncols = 1;
    for (size_t i = 0; i < len; i++) ncols += header[i] == ',';
    for (int v = 0; v < XMPIR_TRACE_VERSION; v++) {
        if (xmpi_trace_version_columns[v] != ncols) continue;
        /* The first ncols columns of the current header, and nothing else. */
        const char *h = xmpi_trace_header;
        int k = 0;
        size_t at = 0;
        while (k < ncols && h[at]) {
            at += strcspn(h + at, ",");
            if (++k < ncols && h[at] == ',') at++;
        }
        if (k == ncols && at == len && !strncmp(header, h, len)) return v + 1;
    }
    return 0;
}

static void free_parts(struct xmpi_trace_table *t, int nbufs)
{
    for (int i = 0; t->row_bufs && i < nbufs; i++) free(t->row_bufs[i]);
    free(t->row_bufs);
    free(t->cells);
    free(t->lines);
    free(t->cols);
    free(t->header_buf);
    memset(t, 0, sizeof *t);
}

void xmpi_trace_table_free(struct xmpi_trace_table *t)
{
    free_parts(t, t->nrows);
}

int xmpi_trace_table_col(const struct xmpi_trace_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (!strcmp(t->cols[c], name)) return c;
    return -1;
}

const char *xmpi_trace_table_cell(const struct xmpi_trace_table *t, int r, int c)
{
    if (c < 0 || c >= t->ncols || r < 0 || r >= t->nrows) return "";
    return t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
}

/* What a header that is none of the known versions looks like, for the message. */
static void describe_unknown(const char *header, char *out, size_t len)
{
    char name[XMPIR_TEXT_ECHO_SIZE], echo[XMPIR_TEXT_ECHO_SIZE];
    const char *h = xmpi_trace_header, *p = header;
    int k = 1;
    /* The first column that differs from the current header's, if any. */
    while (*p && *h) {
        size_t a = strcspn(p, ","), b = strcspn(h, ",");
        if (a != b || strncmp(p, h, a)) break;
        p += a;
        h += b;
        if (*p != ',' || *h != ',') break;
        p++;
        h++;
        k++;
    }
    int ncols = count_fields(header);
    if (*p == ',' && !*h) {
        size_t a = strcspn(p + 1, ",");
        snprintf(name, sizeof name, "%.*s", (int)(a < 60 ? a : 60), p + 1);
        snprintf(out, len, "%d columns, %d more than this reader knows (the first: '%s'): a "
                 "trace of a newer libxmpi", ncols, ncols - xmpi_trace_version_columns
                 [XMPIR_TRACE_VERSION - 1], xmpi_text_echo(echo, name));
    } else if (*p && *p != ',') {
        size_t a = strcspn(p, ",");
        snprintf(name, sizeof name, "%.*s", (int)(a < 60 ? a : 60), p);
        snprintf(out, len, "%d columns; column %d is '%s' where a trace has '%.*s'", ncols, k,
                 xmpi_text_echo(echo, name), (int)strcspn(h, ","), h);
    } else {
        snprintf(out, len, "%d columns, which is no version's number", ncols);
    }
}

/* The header line: the format version it tells and the column names. 0, or -1 with err. */
static int read_header(FILE *f, const char *fname, struct xmpi_trace_table *t, char *err,
                       size_t errlen)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got = getline(&line, &cap, f);
    if (got <= 0) {
        snprintf(err, errlen, "%s: %s", fname, ferror(f) ? "read error" : "empty file; expected "
                 "a trace written by --xmpi-trace");
        free(line);
        return -1;
    }
    int nl;
    chomp(line, (size_t)got, &nl);
    int v = xmpi_trace_version_of(line);
    if (v <= 0) {
        char what[400];
        char echo[XMPIR_TEXT_ECHO_SIZE];
        if (v == 0) describe_unknown(line, what, sizeof what);
        if (v == 0)
            snprintf(err, errlen, "%s:1: a trace header of an unknown format version (%s); this "
                     "xmpi-report reads versions 1 to %d (%d to %d columns)", fname, what,
                     XMPIR_TRACE_VERSION, xmpi_trace_version_columns[0],
                     xmpi_trace_version_columns[XMPIR_TRACE_VERSION - 1]);
        else
            snprintf(err, errlen, "%s:1: not a libxmpi trace: the first line is '%s', not the "
                     "header of --xmpi-trace's CSV ('interval,iteration,nprocs,...')", fname,
                     xmpi_text_echo(echo, line));
        free(line);
        return -1;
    }
    t->version = v;
    t->ncols = xmpi_trace_version_columns[v - 1];
    t->header_buf = line;
    t->cols = malloc(sizeof *t->cols * (size_t)t->ncols);
    if (!t->cols) {
        snprintf(err, errlen, "%s: out of memory reading the trace", fname);
        return -1;
    }
    split(t->header_buf, t->cols, t->ncols);
    return 0;
}

int xmpi_trace_table_read(FILE *f, const char *fname, struct xmpi_trace_table *t, char *err,
                          size_t errlen)
{
    memset(t, 0, sizeof *t);
    if (read_header(f, fname, t, err, errlen)) {
        free_parts(t, 0);
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int rcap = 0, ln = 1, nl;
    while ((got = getline(&line, &cap, f)) > 0) {
        ln++;
        size_t len = chomp(line, (size_t)got, &nl);
        if (len == 0 && nl) continue;   /* a blank line */
        int nf = count_fields(line);
        /* Peek: is there another line after this one? Only the last may be cut short. */
        int c = fgetc(f);
        int last = c == EOF;
        if (c != EOF) ungetc(c, f);
        if (nf != t->ncols || !nl) {
            if (last) {
                t->cut = 1;
                t->cut_fields = nf;
                break;
            }
            snprintf(err, errlen, "%s:%d: %d fields where the header has %d; the file is not a "
                     "whole trace", fname, ln, nf, t->ncols);
            free(line);
            free_parts(t, t->nrows);
            return -1;
        }
        if (t->nrows == rcap) {
            int nc = rcap ? 2 * rcap : 64;
            char **nb = realloc(t->row_bufs, sizeof *nb * (size_t)nc);
            if (nb) t->row_bufs = nb;
            char **ncl = nb ? realloc(t->cells, sizeof *ncl * (size_t)nc * (size_t)t->ncols) : NULL;
            if (ncl) t->cells = ncl;
            int *nln = ncl ? realloc(t->lines, sizeof *nln * (size_t)nc) : NULL;
            if (!nln) goto nomem;
            t->lines = nln;
            rcap = nc;
        }
        t->row_bufs[t->nrows] = line;
        split(line, t->cells + (size_t)t->nrows * (size_t)t->ncols, t->ncols);
        t->lines[t->nrows] = ln;
        t->nrows++;
        line = NULL;
        cap = 0;
    }
    free(line);
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", fname, strerror(errno));
        free_parts(t, t->nrows);
        return -1;
    }
    if (t->nrows == 0) {
        snprintf(err, errlen, "%s: no rows%s: the trace has no whole interval (a job stopped "
                 "before its first interval's end)", fname, t->cut ? " but one cut short" : "");
        free_parts(t, 0);
        return -1;
    }
    return 0;

nomem:
    snprintf(err, errlen, "%s: out of memory reading the trace", fname);
    free(line);
    free_parts(t, t->nrows);
    return -1;
}
