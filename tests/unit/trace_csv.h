/* Shared by the test_trace_*.c suites (io/trace.c): the scratch directory with the trace
 * file in it, and CSV lines cut into fields, read by column name so the checks hold whatever
 * order the columns come in. */
#ifndef XMPIR_TESTS_UNIT_TRACE_CSV_H
#define XMPIR_TESTS_UNIT_TRACE_CSV_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "../../io/trace.h"
#include "tmpfiles.h"

#define MAXF 64

static char dir[256];
static char path[512];

static inline void make_dir(void)
{
    make_tmpdir(dir, sizeof dir, NULL, "xmpi-unit");
    snprintf(path, sizeof path, "%s/trace.csv", dir);
}

static inline void remove_dir(void)
{
    remove_tree(dir);
}

/* Cuts s at each sep in place; empty fields count, as a CSV reader sees them. */
static inline int split(char *s, char sep, char **out, int max)
{
    int n = 0;
    out[n++] = s;
    for (char *p = s; *p; p++) {
        if (*p != sep) continue;
        *p = '\0';
        ck_assert_msg(n < max, "more than %d fields", max);
        out[n++] = p + 1;
    }
    return n;
}

static inline int column(char **names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    ck_abort_msg("column '%s' missing from the header", name);
    return -1;
}

#endif
