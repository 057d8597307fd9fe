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

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rms_state.h"
#include "textfile.h"

#define COUNT_MAX 1000000
/* Iterations are counted in a long by the runtime; 10^15 leaves room to add to it. */
#define ITER_MAX 1000000000000000L
#define FIELDS "ITERATION spawn|remove COUNT CLASS"

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

int xmpi_rms_schedule_parse(struct xmpi_rms_schedule *s, FILE *f, const char *fname,
                            char *err, size_t errlen)
{
    static const char *const names[] = {"iteration", "action", "count", "class"};
    struct keyed *k = NULL;
    long n = 0, cap = 0;
    struct xmpi_text_lines rd;
    char *line;
    int got, rc = -1;
    if (!fname) fname = "(schedule)";

    xmpi_text_lines_init(&rd, f, fname);
    while ((got = xmpi_text_next(&rd, &line)) > 0) {
        char *tok[4];
        if (xmpi_text_fields(&rd, line, tok, 4, names, FIELDS, err, errlen) != 0) goto out;
        struct xmpi_rms_event ev;
        memset(&ev, 0, sizeof ev);
        long count;
        if (xmpi_text_parse_long(tok[0], 0, ITER_MAX, &ev.iteration) != 0) {
            xmpi_text_field_error(&rd, err, errlen, "iteration", tok[0],
                                  "a whole number from 0 to %ld", ITER_MAX);
            goto out;
        }
        if (strcmp(tok[1], "spawn") == 0) ev.action = XMPIR_RMS_ACT_SPAWN;
        else if (strcmp(tok[1], "remove") == 0) ev.action = XMPIR_RMS_ACT_SHRINK;
        else {
            xmpi_text_field_error(&rd, err, errlen, "action", tok[1], "spawn or remove");
            goto out;
        }
        if (xmpi_text_parse_long(tok[2], 1, COUNT_MAX, &count) != 0) {
            xmpi_text_field_error(&rd, err, errlen, "count", tok[2],
                                  "a whole number from 1 to %d", COUNT_MAX);
            goto out;
        }
        ev.count = (int)count;
        if (!xmpi_text_name_ok(tok[3])) {
            xmpi_text_field_error(&rd, err, errlen, "class", tok[3],
                                  "a class name of 1 to %d characters of A-Z a-z 0-9 _ . -",
                                  XMPIR_NAME_MAX - 1);
            goto out;
        }
        memcpy(ev.cls, tok[3], strlen(tok[3]) + 1);
        if (n == cap) {
            long nc = cap ? 2 * cap : 16;
            if (nc > INT_MAX) {
                xmpi_text_line_error(&rd, err, errlen, "too many events; expected at most %d",
                                     INT_MAX / 2);
                goto out;
            }
            struct keyed *nk = realloc(k, (size_t)nc * sizeof *nk);
            if (!nk) {
                xmpi_text_line_error(&rd, err, errlen, "out of memory");
                goto out;
            }
            k = nk;
            cap = nc;
        }
        k[n].ev = ev;
        k[n].pos = n;
        n++;
    }
    if (got < 0) {
        xmpi_text_lines_failed(&rd, err, errlen);
        goto out;
    }

    struct xmpi_rms_event *evs = NULL;
    if (n > 0) {
        qsort(k, (size_t)n, sizeof *k, by_iteration);
        evs = malloc((size_t)n * sizeof *evs);
        if (!evs) {
            xmpi_text_error(err, errlen, "%s: out of memory", fname);
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
    xmpi_text_lines_free(&rd);
    return rc;
}

int xmpi_rms_schedule_load(struct xmpi_rms_schedule *s, const char *path, char *err,
                           size_t errlen)
{
    if (!path || !*path)
        return xmpi_text_error(err, errlen, "no schedule file named; expected a path");
    FILE *f = fopen(path, "r");
    if (!f)
        return xmpi_text_error(err, errlen, "%s: cannot read the schedule file: %s", path,
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
