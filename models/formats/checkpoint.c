/* The checkpoint manifest: a few lines of text that say what a checkpoint holds, so that a
 * restart can refuse one that does not fit the program before loading anything. */
#include "checkpoint.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
    fprintf(out, "end\n");
    return ferror(out) ? -1 : 0;
}

/* ---- parsing ------------------------------------------------------------------------ */

struct reader {
    const char *p, *fname;
    long line;
    char buf[512];
    char *w[10];
    int nw;
    char *err;
    size_t errlen;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct reader *r, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->err) snprintf(r->err, r->errlen, "%s line %ld: %s", r->fname, r->line, msg);
    return -1;
}

/* The next line, split into words; 0 at the end of the text. */
static int next(struct reader *r)
{
    if (!*r->p) return 0;
    const char *e = strchr(r->p, '\n');
    size_t len = e ? (size_t)(e - r->p) : strlen(r->p);
    r->line++;
    if (len >= sizeof r->buf) len = sizeof r->buf - 1;
    memcpy(r->buf, r->p, len);
    r->buf[len] = '\0';
    r->p = e ? e + 1 : r->p + strlen(r->p);
    r->nw = 0;
    for (char *save = NULL, *t = strtok_r(r->buf, " \t\r", &save); t && r->nw < 10;
         t = strtok_r(NULL, " \t\r", &save))
        r->w[r->nw++] = t;
    return 1;
}

static int number(const char *v, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || !isdigit((unsigned char)v[0]) || x < min || x > max)
        return -1;
    *out = x;
    return 0;
}

/* "KEY VALUE" with a number in [min, max]. */
static int keyed(struct reader *r, const char *key, long long min, long long max, long long *out)
{
    if (!next(r)) return fail(r, "the manifest ends before '%s'", key);
    if (r->nw != 2 || strcmp(r->w[0], key) || number(r->w[1], min, max, out))
        return fail(r, "expected '%s N' with N from %lld to %lld", key, min, max);
    return 0;
}

static int parse_struct(struct reader *r, struct xmpi_ckpt_manifest *m, int i)
{
    struct xmpi_ckpt_struct *s = &m->s[i];
    long long idx;
    if (!next(r)) return fail(r, "the manifest ends before structure %d of %d", i, m->n);
    if (r->nw != 7 || strcmp(r->w[0], "structure") || number(r->w[1], 0, INT_MAX, &idx) || idx != i)
        return fail(r, "expected 'structure %d KIND SCHEME TYPE ELSIZE NNZ'", i);
    s->kind = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(r->w[2], kinds[k])) s->kind = k;
    if (s->kind < 0) return fail(r, "structure %d: kind '%.20s'; expected vector, dense or sparse", i, r->w[2]);
    if (!strcmp(r->w[3], "replicated")) s->replicated = 1;
    else if (!strcmp(r->w[3], "distributed")) s->replicated = 0;
    else return fail(r, "structure %d: scheme '%.20s'; expected distributed or replicated", i, r->w[3]);
    if (strlen(r->w[4]) >= sizeof s->type) return fail(r, "structure %d: type name too long", i);
    snprintf(s->type, sizeof s->type, "%s", r->w[4]);
    if (number(r->w[5], 1, INT_MAX, &s->elsize))
        return fail(r, "structure %d: element size '%.20s'; expected an integer from 1 to %d", i,
                    r->w[5], INT_MAX);
    if (number(r->w[6], 0, s->kind == XMPIR_CKPT_SPARSE ? LLONG_MAX / 16 : 0, &s->nnz))
        return fail(r, "structure %d: nonzeros '%.20s'; expected 0 for a %s, or a count for a "
                    "sparse matrix", i, r->w[6], kinds[s->kind]);
    struct xmpi_ckpt_struct want = *s;
    if (xmpi_ckpt_layout(&want, i, m->rows))
        return fail(r, "structure %d: its size overflows", i);
    s->nfiles = want.nfiles;
    for (int f = 0; f < want.nfiles; f++) {
        struct xmpi_ckpt_file *fl = &s->file[f];
        long long bytes;
        if (!next(r)) return fail(r, "the manifest ends before the files of structure %d", i);
        if (r->nw != 6 || strcmp(r->w[0], "file") || number(r->w[1], 0, INT_MAX, &idx) || idx != i ||
            strcmp(r->w[2], want.file[f].part))
            return fail(r, "expected 'file %d %s BYTES CRC32 NAME'", i, want.file[f].part);
        if (number(r->w[3], 0, LLONG_MAX, &bytes) || bytes != want.file[f].bytes)
            return fail(r, "file %d %s: %.24s bytes; expected %lld for %lld rows of this structure",
                        i, want.file[f].part, r->w[3], want.file[f].bytes, m->rows);
        char *end;
        errno = 0;
        unsigned long crc = strtoul(r->w[4], &end, 16);
        if (errno || *end || strlen(r->w[4]) != 8)
            return fail(r, "file %d %s: checksum '%.20s'; expected 8 hexadecimal digits", i,
                        want.file[f].part, r->w[4]);
        if (strcmp(r->w[5], want.file[f].name))
            return fail(r, "file %d %s: name '%.40s'; expected %s", i, want.file[f].part,
                        r->w[5], want.file[f].name);
        *fl = want.file[f];
        fl->bytes = bytes;
        fl->crc = crc;
    }
    return 0;
}

int xmpi_ckpt_parse(const char *text, const char *fname, struct xmpi_ckpt_manifest *m, char *err,
                    size_t errlen)
{
    struct reader r = {.p = text ? text : "", .fname = fname ? fname : "manifest", .err = err,
                       .errlen = errlen};
    memset(m, 0, sizeof *m);
    long long v;
    if (!next(&r) || r.nw != 2 || strcmp(r.w[0], "xmpi-checkpoint"))
        return fail(&r, "not a libxmpi checkpoint manifest (expected 'xmpi-checkpoint %d')",
                    XMPIR_CKPT_VERSION);
    if (number(r.w[1], 1, INT_MAX, &v) || v != XMPIR_CKPT_VERSION)
        return fail(&r, "format version '%.20s'; this library reads version %d", r.w[1],
                    XMPIR_CKPT_VERSION);
    m->version = (int)v;
    if (!next(&r) || r.nw != 2 || strcmp(r.w[0], "library") || strlen(r.w[1]) >= sizeof m->library)
        return fail(&r, "expected 'library VERSION'");
    snprintf(m->library, sizeof m->library, "%s", r.w[1]);
    if (keyed(&r, "iteration", 0, LLONG_MAX, &m->iteration) ||
        keyed(&r, "interval", 0, LLONG_MAX, &m->interval))
        return -1;
    if (keyed(&r, "nprocs", 1, INT_MAX, &v)) return -1;
    m->nprocs = (int)v;
    if (keyed(&r, "rows", 0, INT_MAX, &m->rows)) return -1;
    if (keyed(&r, "structures", 1, XMPIR_CKPT_MAX_STRUCTS, &v)) return -1;
    m->n = (int)v;
    for (int i = 0; i < m->n; i++)
        if (parse_struct(&r, m, i)) return -1;
    if (!next(&r) || r.nw != 1 || strcmp(r.w[0], "end"))
        return fail(&r, "expected 'end' after the %d structure(s) (a cut or edited manifest)", m->n);
    while (next(&r))
        if (r.nw) return fail(&r, "text after 'end'");
    return 0;
}

int xmpi_ckpt_match(const struct xmpi_ckpt_manifest *have, const struct xmpi_ckpt_manifest *want,
                    char *err, size_t errlen)
{
#define MISMATCH(...) (snprintf(err, errlen, __VA_ARGS__), -1)
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
                            "registered %s", i, xmpi_ckpt_kind_name(a->kind), a->type, b->type);
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
