/* The checkpoint manifest: a few lines of text that say what a checkpoint holds, so that a
 * restart can refuse one that does not fit the program before loading anything. */
#include "ckpt_manifest.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

static const char *const kinds[] = {"vector", "dense", "sparse"};

const char *xmpi_ckpt_kind_name(int kind)
{
    return kind >= 0 && kind < 3 ? kinds[kind] : "?";
}

static int mul_ok(long long a, long long b, long long *out)
{
    if (a < 0 || b < 0 || (b && a > LLONG_MAX / b)) return -1;
    *out = a * b;
    return 0;
}

int xmpi_ckpt_layout(struct xmpi_ckpt_struct *s, int i, long long rows)
{
    memset(s->file, 0, sizeof s->file);
    if (s->kind != XMPIR_CKPT_SPARSE) {
        long long elems = rows;
        if (s->kind == XMPIR_CKPT_DENSE && mul_ok(rows, rows, &elems)) return -1;
        s->nfiles = 1;
        snprintf(s->file[0].part, sizeof s->file[0].part, "data");
        snprintf(s->file[0].name, sizeof s->file[0].name, "s%d.data", i);
        return mul_ok(elems, s->elsize, &s->file[0].bytes);
    }
    static const char *const parts[] = {"ia", "ja", "a"};
    s->nfiles = 3;
    for (int f = 0; f < 3; f++) {
        snprintf(s->file[f].part, sizeof s->file[f].part, "%s", parts[f]);
        snprintf(s->file[f].name, sizeof s->file[f].name, "s%d.%s", i, parts[f]);
    }
    if (rows == LLONG_MAX || mul_ok(rows + 1, 8, &s->file[0].bytes) ||
        mul_ok(s->nnz, 4, &s->file[1].bytes) || mul_ok(s->nnz, s->elsize, &s->file[2].bytes))
        return -1;
    return 0;
}

int xmpi_ckpt_write(FILE *out, const struct xmpi_ckpt_manifest *m)
{
    fprintf(out, "xmpi-checkpoint %d\nlibrary %s\niteration %lld\ninterval %lld\nnprocs %d\n"
            "rows %lld\nstructures %d\n", XMPIR_CKPT_VERSION, m->library, m->iteration,
            m->interval, m->nprocs, m->rows, m->n);
    for (int i = 0; i < m->n; i++) {
        const struct xmpi_ckpt_struct *s = &m->s[i];
        fprintf(out, "structure %d %s %s %s %lld %lld\n", i, xmpi_ckpt_kind_name(s->kind),
                s->replicated ? "replicated" : "distributed", s->type, s->elsize, s->nnz);
        for (int f = 0; f < s->nfiles; f++)
            fprintf(out, "file %d %s %lld %08lx %s\n", i, s->file[f].part, s->file[f].bytes,
                    s->file[f].crc & 0xffffffffUL, s->file[f].name);
    }
    if (m->app_bytes > 0)
        fprintf(out, "app %lld %08lx %s\n", m->app_bytes, m->app_crc & 0xffffffffUL, XMPIR_CKPT_APP);
    fprintf(out, "end\n");
    return ferror(out) ? -1 : 0;
}

/* ---- parsing ------------------------------------------------------------------------ */

/* Every field a line has, as xmpi_text_fields names them in messages. */
static const char *const head_names[] = {"keyword", "VERSION"};
static const char *const keyed_names[] = {"keyword", "N"};
static const char *const struct_names[] = {"keyword", "I", "KIND", "SCHEME", "TYPE", "ELSIZE",
                                           "NNZ"};
static const char *const file_names[] = {"keyword", "I", "PART", "BYTES", "CRC32", "NAME"};
static const char *const app_names[] = {"keyword", "BYTES", "CRC32", "NAME"};
#define WORDS_MAX 7

struct reader {
    struct xmpi_text_lines in;
    char *line;
    char *w[WORDS_MAX];
    char *err;
    size_t errlen;
};

/* The next line, as it is: 1, 0 at the end of the manifest, -1 with the message. The
 * manifest's words are separated by spaces, tabs and carriage returns only: a vertical tab
 * or a form feed, which the field splitter would take as a blank too, is refused rather than
 * read as something the manifest did not say. */
static int next(struct reader *r)
{
    int got = xmpi_text_next(&r->in, &r->line);
    if (got < 0) return xmpi_text_lines_failed(&r->in, r->err, r->errlen);
    if (got == 0) return 0;
    const char *c = strpbrk(r->line, "\v\f");
    if (c)
        return xmpi_text_line_error(&r->in, r->err, r->errlen,
                                    "byte \\x%02x is not accepted; expected words separated by "
                                    "spaces or tabs", (unsigned char)*c);
    return 1;
}

/* The manifest ends where the line after the last one read was expected. */
static int ended(struct reader *r, const char *expected, ...)
    __attribute__((format(printf, 2, 3)));
static int ended(struct reader *r, const char *expected, ...)
{
    if (!r->err || r->errlen == 0) return -1;
    int w = snprintf(r->err, r->errlen, "%s:%ld: the manifest ends here; expected ",
                     r->in.fname, r->in.lineno + 1);
    if (w >= 0 && (size_t)w < r->errlen) {
        va_list ap;
        va_start(ap, expected);
        vsnprintf(r->err + w, r->errlen - (size_t)w, expected, ap);
        va_end(ap);
    }
    return -1;
}

/* The next line, split into exactly n fields (names[], synopsis for messages), whose first
 * is `keyword`; `what`, when not NULL, says what the line belongs to. */
static int line(struct reader *r, int n, const char *const *names, const char *synopsis,
                const char *keyword, const char *what)
{
    int got = next(r);
    if (got < 0) return -1;
    if (got == 0)
        return what ? ended(r, "%s: '%s' (a cut manifest)", what, synopsis)
                    : ended(r, "'%s' (a cut manifest)", synopsis);
    if (xmpi_text_fields(&r->in, r->line, r->w, n, names, synopsis, r->err, r->errlen))
        return -1;
    if (strcmp(r->w[0], keyword))
        return what ? xmpi_text_field_error(&r->in, r->err, r->errlen, "keyword", r->w[0],
                                            "%s, for %s: '%s'", keyword, what, synopsis)
                    : xmpi_text_field_error(&r->in, r->err, r->errlen, "keyword", r->w[0],
                                            "%s, the line '%s'", keyword, synopsis);
    return 0;
}

/* Decimal digits only, from min to max (both >= 0). */
static int number(const char *v, long long min, long long max, long long *out)
{
    long x;
    if (xmpi_text_parse_long(v, (long)min, max > LONG_MAX ? LONG_MAX : (long)max, &x)) return -1;
    *out = x;
    return 0;
}

/* "KEY N" with N from min to max. */
static int keyed(struct reader *r, const char *key, long long min, long long max, long long *out)
{
    char synopsis[32];
    snprintf(synopsis, sizeof synopsis, "%s N", key);
    if (line(r, 2, keyed_names, synopsis, key, NULL)) return -1;
    if (number(r->w[1], min, max, out))
        return xmpi_text_field_error(&r->in, r->err, r->errlen, "N", r->w[1],
                                     "an integer from %lld to %lld, for '%s'", min, max,
                                     synopsis);
    return 0;
}

/* The line of structure i's file `want`: its part, bytes and name as the layout says, into *fl. */
static int parse_file(struct reader *r, const struct xmpi_ckpt_manifest *m, int i,
                      const struct xmpi_ckpt_file *want, struct xmpi_ckpt_file *fl)
{
    struct xmpi_text_lines *in = &r->in;
    const char *part = want->part;
    char synopsis[80], what[64];
    long long idx, bytes;
    snprintf(synopsis, sizeof synopsis, "file %d %s BYTES CRC32 NAME", i, part);
    snprintf(what, sizeof what, "the files of structure %d", i);
    if (line(r, 6, file_names, synopsis, "file", what)) return -1;
    if (number(r->w[1], 0, INT_MAX, &idx) || idx != i)
        return xmpi_text_field_error(in, r->err, r->errlen, "I", r->w[1],
                                     "%d, for %s: '%s'", i, what, synopsis);
    if (strcmp(r->w[2], part))
        return xmpi_text_field_error(in, r->err, r->errlen, "PART", r->w[2],
                                     "%s, for %s: '%s'", part, what, synopsis);
    if (number(r->w[3], 0, LLONG_MAX, &bytes) || bytes != want->bytes)
        return xmpi_text_field_error(in, r->err, r->errlen, "BYTES", r->w[3],
                                     "%lld, the size of file %d %s for %lld rows of "
                                     "structure %d (%s)", want->bytes, i, part,
                                     m->rows, i, kinds[m->s[i].kind]);
    /* Exactly what the writer writes: 8 hexadecimal digits (strtoul alone would take a
     * sign or a 0x, and "-0000001" would become a checksum no file can match). */
    char *end;
    errno = 0;
    unsigned long crc = strtoul(r->w[4], &end, 16);
    int digits = strlen(r->w[4]) == 8;
    for (int k = 0; digits && k < 8; k++) digits = isxdigit((unsigned char)r->w[4][k]) != 0;
    if (errno || *end || !digits)
        return xmpi_text_field_error(in, r->err, r->errlen, "CRC32", r->w[4],
                                     "8 hexadecimal digits, for file %d %s", i, part);
    if (strcmp(r->w[5], want->name))
        return xmpi_text_field_error(in, r->err, r->errlen, "NAME", r->w[5],
                                     "%s, for file %d %s", want->name, i, part);
    *fl = *want;
    fl->bytes = bytes;
    fl->crc = crc;
    return 0;
}

static int parse_struct(struct reader *r, struct xmpi_ckpt_manifest *m, int i)
{
    struct xmpi_ckpt_struct *s = &m->s[i];
    struct xmpi_text_lines *in = &r->in;
    char synopsis[80], what[64];
    long long idx;
    snprintf(synopsis, sizeof synopsis, "structure %d KIND SCHEME TYPE ELSIZE NNZ", i);
    snprintf(what, sizeof what, "structure %d of %d", i, m->n);
    if (line(r, 7, struct_names, synopsis, "structure", what)) return -1;
    if (number(r->w[1], 0, INT_MAX, &idx) || idx != i)
        return xmpi_text_field_error(in, r->err, r->errlen, "I", r->w[1],
                                     "%d, for %s: '%s'", i, what, synopsis);
    s->kind = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(r->w[2], kinds[k])) s->kind = k;
    if (s->kind < 0)
        return xmpi_text_field_error(in, r->err, r->errlen, "KIND", r->w[2],
                                     "vector, dense or sparse, for structure %d", i);
    if (!strcmp(r->w[3], "replicated")) s->replicated = 1;
    else if (!strcmp(r->w[3], "distributed")) s->replicated = 0;
    else
        return xmpi_text_field_error(in, r->err, r->errlen, "SCHEME", r->w[3],
                                     "distributed or replicated, for structure %d", i);
    if (strlen(r->w[4]) >= sizeof s->type)
        return xmpi_text_field_error(in, r->err, r->errlen, "TYPE", r->w[4],
                                     "an MPI type name shorter than %zu characters, for "
                                     "structure %d", sizeof s->type, i);
    snprintf(s->type, sizeof s->type, "%s", r->w[4]);
    if (number(r->w[5], 1, INT_MAX, &s->elsize))
        return xmpi_text_field_error(in, r->err, r->errlen, "ELSIZE", r->w[5],
                                     "an integer from 1 to %d (bytes of an element), for "
                                     "structure %d", INT_MAX, i);
    if (s->kind == XMPIR_CKPT_SPARSE) {
        if (number(r->w[6], 0, LLONG_MAX / 16, &s->nnz))
            return xmpi_text_field_error(in, r->err, r->errlen, "NNZ", r->w[6],
                                         "a count from 0 to %lld, for structure %d (sparse)",
                                         LLONG_MAX / 16, i);
    } else if (number(r->w[6], 0, 0, &s->nnz)) {
        return xmpi_text_field_error(in, r->err, r->errlen, "NNZ", r->w[6],
                                     "0 for a %s (a count for a sparse matrix only), for "
                                     "structure %d", kinds[s->kind], i);
    }
    struct xmpi_ckpt_struct want = *s;
    if (xmpi_ckpt_layout(&want, i, m->rows))
        return xmpi_text_line_error(in, r->err, r->errlen,
                                    "structure %d's file sizes for %lld rows overflow; expected "
                                    "a smaller ELSIZE or NNZ", i, m->rows);
    s->nfiles = want.nfiles;
    for (int f = 0; f < want.nfiles; f++)
        if (parse_file(r, m, i, &want.file[f], &s->file[f])) return -1;
    return 0;
}

/* "app BYTES CRC32 NAME": the program's data for joining processes, in file NAME. */
static int parse_app(struct reader *r, struct xmpi_ckpt_manifest *m)
{
    struct xmpi_text_lines *in = &r->in;
    if (xmpi_text_fields_range(in, r->line, r->w, 4, 4, app_names, "app BYTES CRC32 NAME", NULL, 0) != 4)
        return xmpi_text_line_error(in, r->err, r->errlen,
                                    "expected 'app BYTES CRC32 %s' (4 fields)", XMPIR_CKPT_APP);
    if (number(r->w[1], 1, XMPIR_APP_DATA_MAX, &m->app_bytes))
        return xmpi_text_field_error(in, r->err, r->errlen, "BYTES", r->w[1],
                                     "an integer from 1 to %d", XMPIR_APP_DATA_MAX);
    char *end;
    errno = 0;
    unsigned long crc = strtoul(r->w[2], &end, 16);
    if (errno || *end || strlen(r->w[2]) != 8)
        return xmpi_text_field_error(in, r->err, r->errlen, "CRC32", r->w[2], "8 hexadecimal digits");
    if (strcmp(r->w[3], XMPIR_CKPT_APP))
        return xmpi_text_field_error(in, r->err, r->errlen, "NAME", r->w[3], "%s", XMPIR_CKPT_APP);
    m->app_crc = crc;
    return 0;
}

static int parse(struct reader *r, struct xmpi_ckpt_manifest *m)
{
    struct xmpi_text_lines *in = &r->in;
    char head[32];
    long long v;
    int got;
    snprintf(head, sizeof head, "xmpi-checkpoint %d", XMPIR_CKPT_VERSION);
    if ((got = next(r)) < 0) return -1;
    if (got == 0) return ended(r, "'%s' (a libxmpi checkpoint manifest)", head);
    /* Any other first line: not a manifest at all, whatever its fields. */
    if (xmpi_text_fields_range(in, r->line, r->w, 0, 2, head_names, head, NULL, 0) != 2 ||
        strcmp(r->w[0], "xmpi-checkpoint"))
        return xmpi_text_line_error(in, r->err, r->errlen,
                                    "not a libxmpi checkpoint manifest; expected '%s' first",
                                    head);
    if (number(r->w[1], 1, INT_MAX, &v) || v != XMPIR_CKPT_VERSION)
        return xmpi_text_field_error(in, r->err, r->errlen, "VERSION", r->w[1],
                                     "%d, the manifest format this library reads",
                                     XMPIR_CKPT_VERSION);
    m->version = (int)v;
    if (line(r, 2, head_names, "library VERSION", "library", NULL)) return -1;
    if (strlen(r->w[1]) >= sizeof m->library)
        return xmpi_text_field_error(in, r->err, r->errlen, "VERSION", r->w[1],
                                     "a version shorter than %zu characters",
                                     sizeof m->library);
    snprintf(m->library, sizeof m->library, "%s", r->w[1]);
    if (keyed(r, "iteration", 0, LLONG_MAX, &m->iteration) ||
        keyed(r, "interval", 0, LLONG_MAX, &m->interval))
        return -1;
    if (keyed(r, "nprocs", 1, INT_MAX, &v)) return -1;
    m->nprocs = (int)v;
    if (keyed(r, "rows", 0, INT_MAX, &m->rows)) return -1;
    if (keyed(r, "structures", 1, XMPIR_CKPT_MAX_STRUCTS, &v)) return -1;
    m->n = (int)v;
    for (int i = 0; i < m->n; i++)
        if (parse_struct(r, m, i)) return -1;
    if ((got = next(r)) < 0) return -1;
    if (got == 0)
        return ended(r, "'end' after the %d structure(s) (a cut manifest)", m->n);
    if (!strncmp(r->line, "app ", 4)) {
        if (parse_app(r, m)) return -1;
        if ((got = next(r)) < 0) return -1;
        if (got == 0) return ended(r, "'end' after the app line (a cut manifest)");
    }
    if (xmpi_text_fields_range(in, r->line, r->w, 0, 1, head_names, "end", NULL, 0) != 1 ||
        strcmp(r->w[0], "end"))
        return xmpi_text_line_error(in, r->err, r->errlen,
                                    "this line is not accepted; expected 'end' after the %d "
                                    "structure(s) (a cut or edited manifest)", m->n);
    while ((got = next(r)) > 0)
        if (xmpi_text_fields_range(in, r->line, r->w, 0, 1, head_names, "", NULL, 0) != 0)
            return xmpi_text_line_error(in, r->err, r->errlen,
                                        "text after 'end' is not accepted; expected blank lines "
                                        "only");
    return got;
}

int xmpi_ckpt_parse(const char *text, const char *fname, struct xmpi_ckpt_manifest *m, char *err,
                    size_t errlen)
{
    struct reader r = {.err = err, .errlen = errlen};
    memset(m, 0, sizeof *m);
    if (!text) text = "";
    if (!fname) fname = "manifest";
    FILE *f = fmemopen((char *)text, strlen(text), "r");
    if (!f) return xmpi_text_error(err, errlen, "%s: cannot read: %s", fname, strerror(errno));
    xmpi_text_lines_init(&r.in, f, fname);
    r.in.verbatim = 1;
    r.in.max_line = XMPIR_CKPT_LINE_MAX;
    int rc = parse(&r, m);
    xmpi_text_lines_free(&r.in);
    fclose(f);
    return rc;
}

int xmpi_ckpt_match(const struct xmpi_ckpt_manifest *have, const struct xmpi_ckpt_manifest *want,
                    char *err, size_t errlen)
{
#define MISMATCH(...) (snprintf(err, errlen, __VA_ARGS__), -1)
    char ea[XMPIR_TEXT_ECHO_SIZE], eb[XMPIR_TEXT_ECHO_SIZE];   /* type names, from a file */
    if (have->n != want->n)
        return MISMATCH("the checkpoint holds %d structure(s), the program registered %d",
                        have->n, want->n);
    if (have->rows != want->rows)
        return MISMATCH("the checkpoint's structures have %lld rows, the program's %lld",
                        have->rows, want->rows);
    for (int i = 0; i < have->n; i++) {
        const struct xmpi_ckpt_struct *a = &have->s[i], *b = &want->s[i];
        if (a->kind != b->kind)
            return MISMATCH("structure %d is a %s in the checkpoint, the program registered a %s",
                            i, xmpi_ckpt_kind_name(a->kind), xmpi_ckpt_kind_name(b->kind));
        if (a->replicated != b->replicated)
            return MISMATCH("structure %d (%s) is %s in the checkpoint, the program registered "
                            "it %s", i, xmpi_ckpt_kind_name(a->kind),
                            a->replicated ? "replicated" : "distributed",
                            b->replicated ? "replicated" : "distributed");
        if (a->elsize != b->elsize)
            return MISMATCH("structure %d (%s) has %lld-byte elements in the checkpoint, %lld "
                            "in the program", i, xmpi_ckpt_kind_name(a->kind), a->elsize, b->elsize);
        if (strcmp(a->type, "-") && strcmp(b->type, "-") && strcmp(a->type, b->type))
            return MISMATCH("structure %d (%s) holds %s in the checkpoint, the program "
                            "registered %s", i, xmpi_ckpt_kind_name(a->kind),
                            xmpi_text_echo(ea, a->type), xmpi_text_echo(eb, b->type));
    }
    return 0;
#undef MISMATCH
}

int xmpi_ckpt_every(const char *v, long *iterations, double *seconds)
{
    long it = 0;
    double sec = 0;
    if (!v) return -1;
    if (*v) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)v[0]) && v[0] != '.') return -1;
        double x = strtod(v, &end);
        if (end == v || errno || !isfinite(x)) return -1;
        if (end[0] == 's' && end[1] == '\0') {
            if (!(x > 0) || x > 1e9) return -1;
            sec = x;
        } else {
            if (*end || x < 1 || x > 1e9 || x != floor(x) || strchr(v, '.') || strchr(v, 'e') ||
                strchr(v, 'E'))
                return -1;
            it = (long)x;
        }
    }
    if (iterations) *iterations = it;
    if (seconds) *seconds = sec;
    return 0;
}

void xmpi_ckpt_auto_name(char *out, size_t len, long long iteration)
{
    snprintf(out, len, XMPIR_CKPT_AUTO_PREFIX "%012lld", iteration);
}

int xmpi_ckpt_is_auto(const char *name)
{
    size_t k = strlen(XMPIR_CKPT_AUTO_PREFIX);
    if (strncmp(name, XMPIR_CKPT_AUTO_PREFIX, k) || strlen(name) != k + 12) return 0;
    for (const char *p = name + k; *p; p++)
        if (!isdigit((unsigned char)*p)) return 0;
    return 1;
}
