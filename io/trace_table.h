/* A trace read back whole (xmpi-report): the header's columns, found by name, and every row's
 * fields as text, with the trace's format version told from its header. Only stdio. */
#ifndef XMPIR_TRACE_TABLE_H
#define XMPIR_TRACE_TABLE_H

#include <stdio.h>

/* The format versions of the trace, each header a prefix of the next (columns are only ever
 * appended): version V has xmpi_trace_version_columns[V - 1] columns of xmpi_trace_header.
 * The writer (trace.c) writes the last one. */
#define XMPIR_TRACE_VERSION 6
extern const int xmpi_trace_version_columns[XMPIR_TRACE_VERSION];

/* The version of a header line (its newline, if any, ignored): 1..XMPIR_TRACE_VERSION, 0 for
 * a header that begins as a trace's does ("interval,iteration,nprocs,") but is none of the
 * known versions (a newer writer, or a header edited by hand), -1 for anything else. */
int xmpi_trace_version_of(const char *header);

struct xmpi_trace_table {
    int version;             /* 1..XMPIR_TRACE_VERSION */
    int ncols;
    char **cols;             /* column names, ncols of them */
    int nrows;
    char **cells;            /* nrows * ncols fields, row by row ("" for an empty field) */
    int *lines;              /* each row's line number in the file */
    int cut;                 /* the last line was cut short (no newline, or fewer fields): left out */
    int cut_fields;          /* ... and how many fields it had */
    /* what the cells point into */
    char *header_buf;
    char **row_bufs;
};

/* Reads a whole trace from f (fname names it in messages). 0, or -1 with one message in err,
 * "FNAME:LINE: ..." where a line is at fault, and nothing allocated, for: an empty file, a
 * first line that is not a trace header, a header of an unknown version, a row other than the
 * last with a different number of fields, no whole row, or a read error. A last line cut
 * short (a job that died while writing it) is left out and said in t->cut. */
int xmpi_trace_table_read(FILE *f, const char *fname, struct xmpi_trace_table *t, char *err,
                          size_t errlen);

/* The index of column `name`, or -1 when this version of the trace has none. */
int xmpi_trace_table_col(const struct xmpi_trace_table *t, const char *name);

/* Row r's field in column c; "" for c < 0 (a column the trace's version lacks). */
const char *xmpi_trace_table_cell(const struct xmpi_trace_table *t, int r, int c);

void xmpi_trace_table_free(struct xmpi_trace_table *t);

#endif
