/* The predefined-events resource manager's schedule file: its parser, the stable sort by
 * iteration and the cursor that hands the due events out one at a time.
 *
 * One event per line, fields separated by blanks, '#' starts a comment:
 *
 *     # ITERATION spawn|remove COUNT CLASS
 *     100 spawn 2 fast
 *     300 remove 1 fast
 *
 * ITERATION is a whole number >= 0 (the event is due once that many iterations are
 * done), COUNT one from 1 to 1000000, CLASS a node class name of [A-Za-z0-9_.-]. Events
 * keep their file order among equal iterations, so a file can script a spawn and a
 * removal at the same point in a known order. */
#include "rms_schedule.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "rms_state.h"

#define COUNT_MAX 1000000
/* Iterations are counted in a long by the runtime; 10^15 leaves room to add to it. */
#define ITER_MAX 1000000000000000L
#define FIELDS "ITERATION spawn|remove COUNT CLASS"

static int fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Digits only, so "1e3", "+5", "0x10" and " 5" are all refused rather than guessed at. */
static int parse_whole(const char *s, long max, long *out)
{
    if (!*s) return -1;
    long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (*p - '0');
        if (v > max) return -1;
    }
    *out = v;
    return 0;
}

static int class_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= XMPI_NAME_MAX) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '.' && *s != '-') return 0;
    return 1;
}

static int tokenize(char *line, char **tok, int max)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p && isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (n == max) return max + 1;
        tok[n++] = p;
        while (*p && !isspace((unsigned char)*p)) p++;
        if (*p) *p++ = '\0';
    }
    return n;
}

/* qsort is not stable: the file position breaks ties. */
struct keyed {
    struct xmpi_rms_event ev;
    long pos;
};

static int by_iteration(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->ev.iteration != y->ev.iteration) return x->ev.iteration < y->ev.iteration ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

#define QUOTE(s) (s), strlen(s) > 40 ? "..." : ""

int xmpi_rms_schedule_parse(struct xmpi_rms_schedule *s, FILE *f, const char *fname,
                            char *err, size_t errlen)
{
    static const char *const names[] = {"iteration", "action", "count", "class"};
    struct keyed *k = NULL;
    long n = 0, cap = 0, lineno = 0;
    char *line = NULL;
    size_t linecap = 0;
    int rc = -1;
    if (!fname) fname = "(schedule)";

    for (;;) {
        errno = 0;
        ssize_t len = getline(&line, &linecap, f);
        if (len < 0) {
            if (ferror(f)) {
                fail(err, errlen, "%s:%ld: cannot read: %s", fname, lineno + 1,
                     strerror(errno ? errno : EIO));
                goto out;
            }
            break;
        }
        lineno++;
        if (memchr(line, '\0', (size_t)len)) {
            fail(err, errlen, "%s:%ld: a NUL byte is not accepted; expected a text file", fname,
                 lineno);
            goto out;
        }
        char *tok[4];
        int nt = tokenize(line, tok, 4);
        if (nt == 0) continue;
        if (nt < 4) {
            fail(err, errlen, "%s:%ld: field %s: missing; expected 4 fields: " FIELDS, fname,
                 lineno, names[nt]);
            goto out;
        }
        if (nt > 4) {
            fail(err, errlen,
                 "%s:%ld: more than 4 fields are not accepted; expected 4 fields: " FIELDS,
                 fname, lineno);
            goto out;
        }
        struct xmpi_rms_event ev;
        memset(&ev, 0, sizeof ev);
        long count;
        if (parse_whole(tok[0], ITER_MAX, &ev.iteration) != 0) {
            fail(err, errlen,
                 "%s:%ld: field iteration: '%.40s%s' is not accepted; expected a whole number "
                 "from 0 to %ld",
                 fname, lineno, QUOTE(tok[0]), ITER_MAX);
            goto out;
        }
        if (strcmp(tok[1], "spawn") == 0) ev.action = XMPI_RMS_ACT_SPAWN;
        else if (strcmp(tok[1], "remove") == 0) ev.action = XMPI_RMS_ACT_SHRINK;
        else {
            fail(err, errlen,
                 "%s:%ld: field action: '%.40s%s' is not accepted; expected spawn or remove",
                 fname, lineno, QUOTE(tok[1]));
            goto out;
        }
        if (parse_whole(tok[2], COUNT_MAX, &count) != 0 || count < 1) {
            fail(err, errlen,
                 "%s:%ld: field count: '%.40s%s' is not accepted; expected a whole number "
                 "from 1 to %d",
                 fname, lineno, QUOTE(tok[2]), COUNT_MAX);
            goto out;
        }
        ev.count = (int)count;
        if (!class_ok(tok[3])) {
            fail(err, errlen,
                 "%s:%ld: field class: '%.40s%s' is not accepted; expected a class name of 1 "
                 "to %d characters of A-Z a-z 0-9 _ . -",
                 fname, lineno, QUOTE(tok[3]), XMPI_NAME_MAX - 1);
            goto out;
        }
        memcpy(ev.cls, tok[3], strlen(tok[3]) + 1);
        if (n == cap) {
            long nc = cap ? 2 * cap : 16;
            if (nc > INT_MAX) {
                fail(err, errlen, "%s:%ld: too many events; expected at most %d", fname, lineno,
                     INT_MAX / 2);
                goto out;
            }
            struct keyed *nk = realloc(k, (size_t)nc * sizeof *nk);
            if (!nk) {
                fail(err, errlen, "%s:%ld: out of memory", fname, lineno);
                goto out;
            }
            k = nk;
            cap = nc;
        }
        k[n].ev = ev;
        k[n].pos = n;
        n++;
    }

    struct xmpi_rms_event *evs = NULL;
    if (n > 0) {
        qsort(k, (size_t)n, sizeof *k, by_iteration);
        evs = malloc((size_t)n * sizeof *evs);
        if (!evs) {
            fail(err, errlen, "%s: out of memory", fname);
            goto out;
        }
        for (long i = 0; i < n; i++) evs[i] = k[i].ev;
    }
    /* *s is overwritten, not freed: callers may pass an uninitialised struct. */
    s->n = (int)n;
    s->ev = evs;
    s->next = 0;
    rc = 0;
out:
    free(k);
    free(line);
    return rc;
}

int xmpi_rms_schedule_load(struct xmpi_rms_schedule *s, const char *path, char *err,
                           size_t errlen)
{
    if (!path || !*path) return fail(err, errlen, "no schedule file named; expected a path");
    FILE *f = fopen(path, "r");
    if (!f)
        return fail(err, errlen, "%s: cannot read the schedule file: %s", path,
                    strerror(errno));
    int rc = xmpi_rms_schedule_parse(s, f, path, err, errlen);
    fclose(f);
    return rc;
}

void xmpi_rms_schedule_free(struct xmpi_rms_schedule *s)
{
    if (!s) return;
    free(s->ev);
    s->ev = NULL;
    s->n = 0;
    s->next = 0;
}

const struct xmpi_rms_event *xmpi_rms_schedule_due(struct xmpi_rms_schedule *s, long iteration)
{
    if (!s || s->next < 0 || s->next >= s->n) return NULL;
    if (s->ev[s->next].iteration > iteration) return NULL;
    return &s->ev[s->next++];
}
