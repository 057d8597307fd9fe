/* The resize record: written by rank 0 of a job that ends to be relaunched at another size,
 * read by the relaunched job's rank 0 (and its first field by tools/xmpi-resume). */
#include "resize_record.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"

int xmpi_resize_record_write(FILE *out, const struct xmpi_resize_record *r)
{
    fprintf(out, "xmpi-resize %d\nnprocs %d\nfrom %d\ncheckpoint %s\nelapsed %.9g\nat %.6f\n"
            "write-seconds %.9g\nbytes %.17g\nstart-seconds %.9g\nread-seconds %.9g\n"
            "amp-goal %.17g\namp-static %.17g\ncost-total %.17g\ncost-pe-seconds %.17g\n"
            "cost-first-rate %.17g\nend\n", XMPIR_RESIZE_VERSION, r->nprocs, r->from,
            r->checkpoint, r->elapsed, r->at, r->write_seconds, r->bytes, r->start_seconds,
            r->read_seconds, r->amp_goal, r->amp_static, r->cost_total, r->cost_pe_seconds,
            r->cost_first_rate);
    return ferror(out) ? -1 : 0;
}

enum vkind { V_INT, V_NAME, V_NONNEG, V_OPT };   /* V_OPT: >= 0, or -1 for unknown */

struct key {
    const char *name;
    enum vkind kind;
    size_t off;
    const char *expected;
};

#define F(f) offsetof(struct xmpi_resize_record, f)
static const struct key keys[] = {
    {"nprocs", V_INT, F(nprocs), "an integer from 1 to 1000000"},
    {"from", V_INT, F(from), "an integer from 1 to 1000000"},
    {"checkpoint", V_NAME, F(checkpoint), "a checkpoint's name: 1 to 63 letters, digits, '.', '_' or '-', not starting with '.'"},
    {"elapsed", V_NONNEG, F(elapsed), "a number of seconds >= 0"},
    {"at", V_NONNEG, F(at), "a time in seconds since the epoch, >= 0"},
    {"write-seconds", V_NONNEG, F(write_seconds), "a number of seconds >= 0"},
    {"bytes", V_NONNEG, F(bytes), "a number of bytes >= 0"},
    {"start-seconds", V_OPT, F(start_seconds), "a number of seconds >= 0, or -1 (unknown)"},
    {"read-seconds", V_OPT, F(read_seconds), "a number of seconds >= 0, or -1 (unknown)"},
    {"amp-goal", V_NONNEG, F(amp_goal), "a number of seconds >= 0 (0: none)"},
    {"amp-static", V_NONNEG, F(amp_static), "a number of seconds >= 0 (0: none)"},
    {"cost-total", V_NONNEG, F(cost_total), "a cost >= 0"},
    {"cost-pe-seconds", V_NONNEG, F(cost_pe_seconds), "a number of PE-seconds >= 0"},
    {"cost-first-rate", V_OPT, F(cost_first_rate), "a rate >= 0, or -1 (none)"},
};
#undef F
enum { NKEYS = sizeof keys / sizeof keys[0] };

static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 63 || s[0] == '.') return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '-'))
            return 0;
    return 1;
}

static int number(const char *v, double *out)
{
    char *end;
    errno = 0;
    if (!*v) return -1;
    double x = strtod(v, &end);
    if (*end || errno || !isfinite(x)) return -1;
    *out = x;
    return 0;
}

static int set(const struct key *k, const char *v, struct xmpi_resize_record *r)
{
    void *at = (char *)r + k->off;
    double x;
    switch (k->kind) {
    case V_INT: {
        long n;
        if (xmpi_text_parse_long(v, 1, 1000000, &n)) return -1;
        *(int *)at = (int)n;
        return 0;
    }
    case V_NAME:
        if (!name_ok(v)) return -1;
        snprintf(at, sizeof r->checkpoint, "%s", v);
        return 0;
    case V_NONNEG:
        if (number(v, &x) || x < 0) return -1;
        *(double *)at = x;
        return 0;
    case V_OPT:
        if (number(v, &x) || (x < 0 && x != -1)) return -1;
        *(double *)at = x;
        return 0;
    }
    return -1;
}

static const char *const head_names[] = {"keyword", "VERSION"};
static const char *const pair_names[] = {"KEY", "VALUE"};

static int parse(struct xmpi_text_lines *in, struct xmpi_resize_record *r, char *err,
                 size_t errlen)
{
    char *line, *tok[2];
    int got = xmpi_text_next(in, &line);
    if (got < 0) return xmpi_text_lines_failed(in, err, errlen);
    if (got == 0)
        return xmpi_text_error(err, errlen, "%s: empty; expected a resize record starting "
                               "with 'xmpi-resize %d'", in->fname, XMPIR_RESIZE_VERSION);
    if (xmpi_text_fields(in, line, tok, 2, head_names, "xmpi-resize VERSION", err, errlen))
        return -1;
    long version;
    if (strcmp(tok[0], "xmpi-resize"))
        return xmpi_text_field_error(in, err, errlen, "keyword", tok[0], "xmpi-resize");
    if (xmpi_text_parse_long(tok[1], 0, 1000000, &version) || version != XMPIR_RESIZE_VERSION)
        return xmpi_text_field_error(in, err, errlen, "VERSION", tok[1], "%d",
                                     XMPIR_RESIZE_VERSION);
    int seen[NKEYS] = {0}, ended = 0;
    while ((got = xmpi_text_next(in, &line)) > 0) {
        if (ended) {
            if (strspn(line, " \t\r") == strlen(line)) continue;
            return xmpi_text_line_error(in, err, errlen, "a line after 'end'; expected nothing "
                                        "more");
        }
        if (!strcmp(line, "end")) {
            ended = 1;
            continue;
        }
        if (xmpi_text_fields(in, line, tok, 2, pair_names, "KEY VALUE", err, errlen)) return -1;
        int k = 0;
        while (k < NKEYS && strcmp(keys[k].name, tok[0])) k++;
        if (k == NKEYS)
            return xmpi_text_field_error(in, err, errlen, "KEY", tok[0], "one of nprocs, from, "
                                         "checkpoint, elapsed, at, write-seconds, bytes, "
                                         "start-seconds, read-seconds, amp-goal, amp-static, "
                                         "cost-total, cost-pe-seconds, cost-first-rate");
        if (seen[k])
            return xmpi_text_line_error(in, err, errlen, "key %s a second time; expected each "
                                        "key once", keys[k].name);
        seen[k] = 1;
        if (set(&keys[k], tok[1], r))
            return xmpi_text_field_error(in, err, errlen, keys[k].name, tok[1], "%s",
                                         keys[k].expected);
    }
    if (got < 0) return xmpi_text_lines_failed(in, err, errlen);
    for (int k = 0; k < NKEYS; k++)
        if (!seen[k])
            return xmpi_text_error(err, errlen, "%s: no key %s; expected every key of the "
                                   "record (a file cut short?)", in->fname, keys[k].name);
    if (!ended)
        return xmpi_text_error(err, errlen, "%s: no 'end' line; expected the record to end "
                               "with 'end' (a file cut short?)", in->fname);
    return 0;
}

int xmpi_resize_record_parse(const char *text, const char *fname, struct xmpi_resize_record *r,
                      char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (!text) text = "";
    if (!fname) fname = XMPIR_RESIZE_FILE;
    if (!*text)
        return xmpi_text_error(err, errlen, "%s: empty; expected a resize record starting "
                               "with 'xmpi-resize %d'", fname, XMPIR_RESIZE_VERSION);
    FILE *f = fmemopen((char *)text, strlen(text), "r");
    if (!f) return xmpi_text_error(err, errlen, "%s: cannot read: %s", fname, strerror(errno));
    struct xmpi_text_lines in;
    xmpi_text_lines_init(&in, f, fname);
    in.verbatim = 1;
    in.max_line = 511;
    int rc = parse(&in, r, err, errlen);
    xmpi_text_lines_free(&in);
    fclose(f);
    return rc;
}
