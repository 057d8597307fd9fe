/* The pieces the resources, RMS state and RMS schedule parsers share, so that the three
 * files are read, refused and explained alike. No MPI here. */
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>


/* After a prefix of w characters, so that the message is cut where one snprintf of the
 * whole would cut it. */
static void vappend(char *err, size_t errlen, int w, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

static void vappend(char *err, size_t errlen, int w, const char *fmt, va_list ap)
{
    if (w >= 0 && (size_t)w < errlen) vsnprintf(err + w, errlen - (size_t)w, fmt, ap);
}

int xmpi_text_error(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

int xmpi_text_line_error(const struct xmpi_text_lines *r, char *err, size_t errlen,
                         const char *fmt, ...)
{
    if (!err || errlen == 0) return -1;
    int w = snprintf(err, errlen, "%s:%ld: ", r->fname, r->lineno);
    va_list ap;
    va_start(ap, fmt);
    vappend(err, errlen, w, fmt, ap);
    va_end(ap);
    return -1;
}

int xmpi_text_field_error(const struct xmpi_text_lines *r, char *err, size_t errlen,
                          const char *field, const char *value, const char *expected, ...)
{
    if (!err || errlen == 0) return -1;
    char shown[XMPIR_TEXT_ECHO_SIZE];
    int w = snprintf(err, errlen, "%s:%ld: field %s: '%s' is not accepted; expected ",
                     r->fname, r->lineno, field, xmpi_text_echo(shown, value));
    va_list ap;
    va_start(ap, expected);
    vappend(err, errlen, w, expected, ap);
    va_end(ap);
    return -1;
}

const char *xmpi_text_echo(char out[XMPIR_TEXT_ECHO_SIZE], const char *v)
{
    if (strlen(v) <= XMPIR_TEXT_ECHO_MAX) snprintf(out, XMPIR_TEXT_ECHO_SIZE, "%s", v);
    else snprintf(out, XMPIR_TEXT_ECHO_SIZE, "%.*s...", XMPIR_TEXT_ECHO_MAX, v);
    return out;
}

void xmpi_text_lines_init(struct xmpi_text_lines *r, FILE *f, const char *fname)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->fname = fname;
}

int xmpi_text_next(struct xmpi_text_lines *r, char **line)
{
    for (;;) {
        errno = 0;
        ssize_t got = getline(&r->buf, &r->cap, r->f);
        if (got < 0) {
            if (!ferror(r->f)) return 0;
            r->error = errno ? errno : EIO;
            return -1;
        }
        r->lineno++;
        /* An embedded NUL would hide the rest of the line from every string function. */
        if (memchr(r->buf, '\0', (size_t)got)) {
            r->error = 0;
            return -1;
        }
        char *hash = strchr(r->buf, '#');
        if (hash) *hash = '\0';
        char *p = r->buf;
        while (isspace((unsigned char)*p)) p++;
        if (*p) {
            *line = r->buf;
            return 1;
        }
    }
}

int xmpi_text_lines_failed(const struct xmpi_text_lines *r, char *err, size_t errlen)
{
    if (r->error)
        return xmpi_text_error(err, errlen, "%s:%ld: cannot read: %s", r->fname,
                               r->lineno + 1, strerror(r->error));
    return xmpi_text_line_error(r, err, errlen,
                                "a NUL byte is not accepted; expected a text file");
}

void xmpi_text_lines_free(struct xmpi_text_lines *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

int xmpi_text_fields(const struct xmpi_text_lines *r, char *line, char **tok, int n,
                     const char *const *names, const char *synopsis, char *err,
                     size_t errlen)
{
    int nt = 0;
    for (char *p = line;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (nt == n)
            return xmpi_text_line_error(r, err, errlen,
                                        "more than %d fields are not accepted; expected %d "
                                        "fields: %s",
                                        n, n, synopsis);
        tok[nt++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = '\0';
    }
    if (nt < n)
        return xmpi_text_line_error(r, err, errlen, "field %s: missing; expected %d fields: %s",
                                    names[nt], n, synopsis);
    return 0;
}

int xmpi_text_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= XMPIR_NAME_MAX) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' && *s != '-') return 0;
    return 1;
}

/* Digits only: strtol would also take signs, blanks and "0x", and the files should mean
 * what they say. */
int xmpi_text_parse_long(const char *s, long min, long max, long *out)
{
    if (!*s) return -1;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        int d = *p - '0';
        if (v > (LONG_MAX - d) / 10) return -1;
        v = v * 10 + d;
        if (v > max) return -1;
    }
    if (v < min) return -1;
    *out = v;
    return 0;
}

long xmpi_text_pair_seen(const struct xmpi_text_pairs *s, const char *host, const char *cls)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->p[i].host, host) && !strcmp(s->p[i].cls, cls)) return s->p[i].line;
    return 0;
}

int xmpi_text_pair_add(struct xmpi_text_pairs *s, const char *host, const char *cls, long line)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        struct xmpi_text_pair *p = realloc(s->p, (size_t)cap * sizeof *p);
        if (!p) return -1;
        s->p = p;
        s->cap = cap;
    }
    struct xmpi_text_pair *x = &s->p[s->n++];
    snprintf(x->host, sizeof x->host, "%s", host);
    snprintf(x->cls, sizeof x->cls, "%s", cls);
    x->line = line;
    return 0;
}

void xmpi_text_pairs_free(struct xmpi_text_pairs *s)
{
    free(s->p);
    s->p = NULL;
    s->n = s->cap = 0;
}
