/* The pieces the resources, RMS state, RMS schedule and checkpoint manifest parsers share,
 * so that their files are read, refused and explained alike. No MPI here. */
#include "textfile.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>


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

/* How many bytes at p a terminal shows as themselves: 1 for printable ASCII, 2 to 4 for a
 * well-formed UTF-8 character that is not a control (no C1 controls U+0080..U+009F, no
 * overlong forms, no surrogates, nothing above U+10FFFF); 0 for anything else, which is
 * shown as \xNN: control characters, escape sequences, the bytes of a binary file. The
 * backslash is escaped too, so that what is shown reads back unambiguously. */
static size_t shown_raw(const unsigned char *p)
{
    if (p[0] < 0x80) return p[0] >= 0x20 && p[0] < 0x7f && p[0] != '\\';
    size_t n = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    for (size_t k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) return 0;          /* C1 controls */
    if (n == 3 && p[0] == 0xe0 && p[1] < 0xa0) return 0;          /* overlong */
    if (n == 3 && p[0] == 0xed && p[1] >= 0xa0) return 0;         /* surrogates */
    if (n == 4 && p[0] == 0xf0 && p[1] < 0x90) return 0;          /* overlong */
    if (n == 4 && p[0] == 0xf4 && p[1] >= 0x90) return 0;         /* above U+10FFFF */
    return n;
}

const char *xmpi_text_echo(char out[XMPIR_TEXT_ECHO_SIZE], const char *v)
{
    size_t w = 0;
    if (!v) v = "(null)";
    for (const unsigned char *p = (const unsigned char *)v; *p;) {
        size_t raw = shown_raw(p), need = raw ? raw : 4;
        if (w + need > XMPIR_TEXT_ECHO_MAX) {
            memcpy(out + w, "...", 4);
            return out;
        }
        if (raw) memcpy(out + w, p, raw);
        else snprintf(out + w, 5, "\\x%02x", *p);
        w += need;
        p += raw ? raw : 1;
    }
    out[w] = '\0';
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
        size_t len = (size_t)got;
        if (len > 0 && r->buf[len - 1] == '\n') len--;
        if (r->max_line && len > r->max_line) {
            r->error = 0;
            r->too_long = 1;
            return -1;
        }
        if (r->verbatim) {
            r->buf[len] = '\0';
            *line = r->buf;
            return 1;
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
    if (r->too_long)
        return xmpi_text_line_error(r, err, errlen,
                                    "a line longer than %zu bytes is not accepted; expected "
                                    "lines of at most %zu bytes",
                                    r->max_line, r->max_line);
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
    return xmpi_text_fields_range(r, line, tok, n, n, names, synopsis, err, errlen) < 0 ? -1
                                                                                          : 0;
}

int xmpi_text_fields_range(const struct xmpi_text_lines *r, char *line, char **tok, int nmin,
                           int n, const char *const *names, const char *synopsis, char *err,
                           size_t errlen)
{
    char count[32];
    if (nmin < n) snprintf(count, sizeof count, "%d or %d", nmin, n);
    else snprintf(count, sizeof count, "%d", n);
    int nt = 0;
    for (char *p = line;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (nt == n)
            return xmpi_text_line_error(r, err, errlen,
                                        "more than %d fields are not accepted; expected %s "
                                        "fields: %s",
                                        n, count, synopsis);
        tok[nt++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = '\0';
    }
    if (nt < nmin)
        return xmpi_text_line_error(r, err, errlen, "field %s: missing; expected %s fields: %s",
                                    names[nt], count, synopsis);
    return nt;
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

int xmpi_text_readonly(const char *path, const struct stat *st)
{
    return !(st->st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) || access(path, W_OK) != 0;
}
