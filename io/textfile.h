/* The line reader, field checks and "FILE:LINE: ... expected ..." messages shared by the
 * parsers of the files people write for libxmpi (resources, RMS state, RMS schedule) and of
 * the checkpoint manifest libxmpi writes itself. */
#ifndef XMPIR_TEXTFILE_H
#define XMPIR_TEXTFILE_H

#include <stddef.h>
#include <stdio.h>

/* A bad value is echoed at most this long, so that "expected ..." always fits in err. */
#define XMPIR_TEXT_ECHO_MAX 40
#define XMPIR_TEXT_ECHO_SIZE (XMPIR_TEXT_ECHO_MAX + 4)
/* Host and node-class names, in every file format and in the pool. */
#define XMPIR_NAME_MAX 64

struct xmpi_text_lines {
    FILE *f;
    const char *fname;   /* for messages, "FILE:LINE: ..." */
    long lineno;         /* of the line last read */
    int error;           /* after -1: errno of the read, or 0 for a NUL byte */
    char *buf;
    size_t cap;
    /* Set after xmpi_text_lines_init, for a file a program writes (the checkpoint manifest):
     * verbatim returns every line as it is, blank or with a '#', its newline cut off; a line
     * longer than max_line bytes (its newline not counted; 0: any length) is an error. */
    int verbatim;
    size_t max_line;
    int too_long;        /* after -1: the line was longer than max_line */
};

/* Returns -1, so that failing with a message is one statement; err may be NULL. */
int xmpi_text_error(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixed with "FILE:LINE: " of the line last read, so people can go and fix it. */
int xmpi_text_line_error(const struct xmpi_text_lines *r, char *err, size_t errlen,
                         const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* "FILE:LINE: field FIELD: 'VALUE' is not accepted; expected ...": one wording for every
 * bad value in every file, the value cut as xmpi_text_echo does. */
int xmpi_text_field_error(const struct xmpi_text_lines *r, char *err, size_t errlen,
                          const char *field, const char *value, const char *expected, ...)
    __attribute__((format(printf, 6, 7)));
/* v as a message shows it, safe to print on a terminal: printable ASCII and well-formed
 * UTF-8 characters as themselves, any other byte (control characters, escape sequences,
 * binary data) and the backslash as \xNN; cut to XMPIR_TEXT_ECHO_MAX bytes and "..." when
 * longer, never in the middle of an escape or a character. */
const char *xmpi_text_echo(char out[XMPIR_TEXT_ECHO_SIZE], const char *v);

struct stat;
/* A file (st: its stat) that this user may not replace: no write bit at all, or none for
 * this user (access). A rename would replace it as easily as any other file. */
int xmpi_text_readonly(const char *path, const struct stat *st);

void xmpi_text_lines_init(struct xmpi_text_lines *r, FILE *f, const char *fname);
/* 1 with *line, the next line not blank once its '#' comment is cut off, for the caller to
 * split in place; 0 at the end; -1 on a read error, a NUL byte or a line longer than
 * max_line. No message: the files word these differently. */
int xmpi_text_next(struct xmpi_text_lines *r, char **line);
/* The state, schedule and manifest files' message for a -1 from xmpi_text_next. */
int xmpi_text_lines_failed(const struct xmpi_text_lines *r, char *err, size_t errlen);
void xmpi_text_lines_free(struct xmpi_text_lines *r);

/* Splits line in place into exactly n blank-separated fields; a message names the first
 * missing one (names[]) or shows synopsis, so the line can be fixed from it alone. */
int xmpi_text_fields(const struct xmpi_text_lines *r, char *line, char **tok, int n,
                     const char *const *names, const char *synopsis, char *err,
                     size_t errlen);

/* The same for a line of nmin to n fields (nmin < n: the last ones optional, as a column a
 * later version of a format added): the number of fields, or -1 with the message. */
int xmpi_text_fields_range(const struct xmpi_text_lines *r, char *line, char **tok, int nmin,
                           int n, const char *const *names, const char *synopsis, char *err,
                           size_t errlen);

/* 1 for 1 to XMPIR_NAME_MAX - 1 letters, digits, '.', '_' and '-': the host and class
 * names of the resources and schedule files (the state file allows more). */
int xmpi_text_name_ok(const char *s);
/* Decimal digits only, from min to max (min >= 0): 0, or -1 leaving *out alone. */
int xmpi_text_parse_long(const char *s, long min, long max, long *out);

/* The (host, class) pairs a file has named so far, with their lines: the resource and state
 * files both take each pair once. */
struct xmpi_text_pairs {
    struct xmpi_text_pair {
        char host[XMPIR_NAME_MAX], cls[XMPIR_NAME_MAX];
        long line;
    } *p;
    int n, cap;
};
/* The line where (host, cls) was named before, or 0. */
long xmpi_text_pair_seen(const struct xmpi_text_pairs *s, const char *host, const char *cls);
/* Records (host, cls) at `line`; -1 when out of memory. */
int xmpi_text_pair_add(struct xmpi_text_pairs *s, const char *host, const char *cls, long line);
void xmpi_text_pairs_free(struct xmpi_text_pairs *s);

#endif
