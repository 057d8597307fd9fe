/* The schedule resource manager's file: its parser (iterations never go down), the cursor
 * over the due lines and the availability that offer/reclaim lines build up.
 *
 * One event per line, fields separated by blanks, '#' starts a comment:
 *
 *     # ITERATION spawn|remove|offer|reclaim COUNT CLASS
 *     100 spawn 2 fast
 *     150 offer 3 fast
 *     300 remove 1 fast
 *     400 reclaim 2 fast
 *
 * ITERATION is a whole number >= 0 (the event is due once that many iterations are
 * done), no lower than the previous line's; COUNT one from 1 to 1000000, CLASS a node
 * class name of [A-Za-z0-9_.-]. Lines due at the same point act in file order. */
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
#define FIELDS "ITERATION spawn|remove|offer|reclaim COUNT CLASS"

static int is_avail(int action)
{
    return action == XMPIR_RMS_SCHED_OFFER || action == XMPIR_RMS_SCHED_RECLAIM;
}

static struct xmpi_rms_avail *find_avail(struct xmpi_rms_schedule *s, const char *cls)
{
    for (int i = 0; s && i < s->nav; i++)
        if (!strcmp(s->av[i].cls, cls)) return &s->av[i];
    return NULL;
}

/* A line's four fields into *ev: its iteration no lower than prev, the previous line's. */
static int read_event(const struct xmpi_text_lines *rd, char *const tok[4], long prev,
                      struct xmpi_rms_event *ev, char *err, size_t errlen)
{
    memset(ev, 0, sizeof *ev);
    long count;
    if (xmpi_text_parse_long(tok[0], 0, ITER_MAX, &ev->iteration) != 0)
        return xmpi_text_field_error(rd, err, errlen, "iteration", tok[0],
                                     "a whole number from 0 to %ld", ITER_MAX);
    /* A timeline that goes back would need a sort that hides the author's mistake. */
    if (ev->iteration < prev)
        return xmpi_text_field_error(rd, err, errlen, "iteration", tok[0],
                                     "a whole number from %ld (the previous line's) to %ld", prev,
                                     ITER_MAX);
    if (strcmp(tok[1], "spawn") == 0) ev->action = XMPIR_RMS_ACT_SPAWN;
    else if (strcmp(tok[1], "remove") == 0) ev->action = XMPIR_RMS_ACT_SHRINK;
    else if (strcmp(tok[1], "offer") == 0) ev->action = XMPIR_RMS_SCHED_OFFER;
    else if (strcmp(tok[1], "reclaim") == 0) ev->action = XMPIR_RMS_SCHED_RECLAIM;
    else
        return xmpi_text_field_error(rd, err, errlen, "action", tok[1],
                                     "spawn, remove, offer or reclaim");
    if (xmpi_text_parse_long(tok[2], 1, COUNT_MAX, &count) != 0)
        return xmpi_text_field_error(rd, err, errlen, "count", tok[2],
                                     "a whole number from 1 to %d", COUNT_MAX);
    ev->count = (int)count;
    if (!xmpi_text_name_ok(tok[3]))
        return xmpi_text_field_error(rd, err, errlen, "class", tok[3],
                                     "a class name of 1 to %d characters of A-Z a-z 0-9 _ . -",
                                     XMPIR_NAME_MAX - 1);
    memcpy(ev->cls, tok[3], strlen(tok[3]) + 1);
    ev->line = rd->lineno;
    return 0;
}

int xmpi_rms_schedule_parse(struct xmpi_rms_schedule *s, FILE *f, const char *fname,
                            char *err, size_t errlen)
{
    static const char *const names[] = {"iteration", "action", "count", "class"};
    struct xmpi_rms_event *k = NULL;
    struct xmpi_rms_avail *av = NULL;
    long n = 0, cap = 0, prev = 0;
    int nav = 0;
    struct xmpi_text_lines rd;
    char *line;
    int got, rc = -1;
    if (!fname) fname = "(schedule)";

    xmpi_text_lines_init(&rd, f, fname);
    while ((got = xmpi_text_next(&rd, &line)) > 0) {
        char *tok[4];
        if (xmpi_text_fields(&rd, line, tok, 4, names, FIELDS, err, errlen) != 0) goto out;
        struct xmpi_rms_event ev;
        if (read_event(&rd, tok, prev, &ev, err, errlen) != 0) goto out;
        prev = ev.iteration;
        if (n == cap) {
            long nc = cap ? 2 * cap : 16;
            if (nc > INT_MAX) {
                xmpi_text_line_error(&rd, err, errlen, "too many events; expected at most %d",
                                     INT_MAX / 2);
                goto out;
            }
            struct xmpi_rms_event *nk = realloc(k, (size_t)nc * sizeof *nk);
            if (!nk) {
                xmpi_text_line_error(&rd, err, errlen, "out of memory");
                goto out;
            }
            k = nk;
            cap = nc;
        }
        k[n++] = ev;
        /* Allocated here, so that polls never fail for memory. */
        int seen = 0;
        for (int i = 0; i < nav; i++) seen |= !strcmp(av[i].cls, ev.cls);
        if (is_avail(ev.action) && !seen) {
            struct xmpi_rms_avail *na = realloc(av, (size_t)(nav + 1) * sizeof *na);
            if (!na) {
                xmpi_text_line_error(&rd, err, errlen, "out of memory");
                goto out;
            }
            av = na;
            memset(&av[nav], 0, sizeof av[nav]);
            memcpy(av[nav].cls, ev.cls, sizeof ev.cls);
            nav++;
        }
    }
    if (got < 0) {
        xmpi_text_lines_failed(&rd, err, errlen);
        goto out;
    }

    /* *s is overwritten, not freed: callers may pass an uninitialised struct. */
    s->n = (int)n;
    s->ev = n > 0 ? k : NULL;
    s->next = 0;
    s->nav = nav;
    s->av = av;
    if (n > 0) k = NULL;
    av = NULL;
    rc = 0;
out:
    free(k);
    free(av);
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
    free(s->av);
    s->ev = NULL;
    s->av = NULL;
    s->n = 0;
    s->next = 0;
    s->nav = 0;
}

int xmpi_rms_schedule_check(const struct xmpi_rms_schedule *s, const char *fname,
                            const struct xmpi_pool *pool, int oversubscribe, int from_lines,
                            char *err, size_t errlen)
{
    if (!fname) fname = "(schedule)";
    int nh = pool ? pool->nhosts : 0;
    /* Per pool entry (the first of each class stands for it): what the lines before have
     * spawned or offered, for from_lines. */
    long *added = calloc((size_t)(nh ? nh : 1), sizeof *added);
    if (!added) return xmpi_text_error(err, errlen, "%s: out of memory", fname);
    int rc = 0;
    for (int i = 0; s && i < s->n && !rc; i++) {
        const struct xmpi_rms_event *ev = &s->ev[i];
        int c = xmpi_pool_find_class(pool, ev->cls);
        if (c < 0) {
            char classes[256];
            xmpi_pool_classes(pool, classes, sizeof classes);
            rc = xmpi_text_error(err, errlen, "%s:%ld: field class: '%s' is not accepted; "
                                 "expected a class of the job's pool: %s",
                                 fname, ev->line, ev->cls, classes);
            break;
        }
        long pes = 0, initial = 0;
        for (int h = 0; h < nh; h++)
            if (!strcmp(pool->hosts[h].cls, ev->cls)) {
                pes += pool->hosts[h].pes;
                initial += pool->hosts[h].procs;
            }
        long room = pes > initial ? pes - initial : 0;
        int grows = ev->action == XMPIR_RMS_ACT_SPAWN || ev->action == XMPIR_RMS_SCHED_OFFER;
        if (from_lines == XMPIR_SCHED_CHECK_RELAUNCH) {
            /* Any process may leave (the job is relaunched smaller), and the lines before
             * may have been carried out by an earlier launch: only the class's PEs bound a
             * removal. */
            if (!grows && !oversubscribe && ev->count > pes) {
                rc = xmpi_text_error(err, errlen, "%s:%ld: field count: '%d' is not accepted; "
                                     "expected at most %ld: class %s has %ld PEs, so the job "
                                     "can never hold more processes there",
                                     fname, ev->line, ev->count, pes, ev->cls, pes);
                break;
            }
            if (!grows) continue;
        }
        if (!oversubscribe && ev->count > room) {
            if (grows)
                rc = xmpi_text_error(err, errlen, "%s:%ld: field count: '%d' is not accepted; "
                                     "expected at most %ld: class %s has %ld PEs and the "
                                     "initial processes use %ld of them, so the job can never "
                                     "take more (--xmpi-oversubscribe allows more)",
                                     fname, ev->line, ev->count, room, ev->cls, pes, initial);
            else
                rc = xmpi_text_error(err, errlen, "%s:%ld: field count: '%d' is not accepted; "
                                     "expected at most %ld: the job can never hold more than "
                                     "%ld processes of class %s beside its %ld initial ones "
                                     "(%ld PEs), and the initial processes never leave",
                                     fname, ev->line, ev->count, room, room, ev->cls, initial,
                                     pes);
            break;
        }
        if (grows) {
            added[c] += ev->count;
        } else if (from_lines == XMPIR_SCHED_CHECK_LINES && ev->count > added[c]) {
            rc = xmpi_text_error(err, errlen, "%s:%ld: field count: '%d' is not accepted; "
                                 "expected at most %ld: the spawn and offer lines before it "
                                 "add up to %ld processes of class %s, and the initial "
                                 "processes never leave",
                                 fname, ev->line, ev->count, added[c], added[c], ev->cls);
            break;
        }
    }
    free(added);
    return rc;
}

const struct xmpi_rms_event *xmpi_rms_schedule_due(struct xmpi_rms_schedule *s, long iteration)
{
    if (!s || s->next < 0 || s->next >= s->n) return NULL;
    if (s->ev[s->next].iteration > iteration) return NULL;
    return &s->ev[s->next++];
}

int xmpi_rms_schedule_unserved(const struct xmpi_rms_schedule *s, long iteration, char *out,
                               size_t len)
{
    static const char *const verb[] = {"", "spawn", "removal", "offer", "reclaim"};
    int n = 0;
    size_t used = 0;
    out[0] = '\0';
    for (int i = s ? s->next : 0; s && i >= 0 && i < s->n && s->ev[i].iteration <= iteration; i++) {
        const struct xmpi_rms_event *ev = &s->ev[i];
        int a = ev->action >= 1 && ev->action <= 4 ? ev->action : 0;
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%sthe %s of %d %s due at iteration "
                                     "%ld (line %ld)", n ? ", " : "", verb[a], ev->count, ev->cls,
                                     ev->iteration, ev->line);
        n++;
    }
    for (int c = 0; s && c < s->nav; c++) {
        if (s->av[c].reclaim < 1) continue;
        if (used < len)
            used += (size_t)snprintf(out + used, len - used, "%sthe return of %d %s reclaimed",
                                     n ? ", " : "", s->av[c].reclaim, s->av[c].cls);
        n++;
    }
    return n;
}

static void apply(struct xmpi_rms_schedule *s, const struct xmpi_rms_event *ev)
{
    struct xmpi_rms_avail *a = find_avail(s, ev->cls);
    if (!a) return;
    if (ev->action == XMPIR_RMS_SCHED_OFFER) {
        a->free = a->free > COUNT_MAX * 1000 - ev->count ? COUNT_MAX * 1000 : a->free + ev->count;
        return;
    }
    int back = ev->count < a->free ? ev->count : a->free;
    a->free -= back;
    /* Only what the job took through spawns can be asked back: mpirun's processes stay. */
    int rest = ev->count - back, askable = a->held - a->reclaim;
    a->reclaim += rest < askable ? rest : askable;
}

int xmpi_rms_schedule_poll(struct xmpi_rms_schedule *s, long iteration, int *count, char *cls,
                           size_t clslen)
{
    const struct xmpi_rms_event *ev;
    *count = 0;
    if (clslen) cls[0] = '\0';
    if (!s) return XMPIR_RMS_ACT_NONE;
    while ((ev = xmpi_rms_schedule_due(s, iteration))) {
        if (is_avail(ev->action)) {
            apply(s, ev);
            continue;
        }
        *count = ev->count;
        snprintf(cls, clslen, "%s", ev->cls);
        return ev->action;
    }
    for (int i = 0; i < s->nav; i++)
        if (s->av[i].reclaim > 0) {
            *count = s->av[i].reclaim;
            snprintf(cls, clslen, "%s", s->av[i].cls);
            return XMPIR_RMS_ACT_SHRINK;
        }
    for (int i = 0; i < s->nav; i++)
        if (s->av[i].free > 0) {
            *count = s->av[i].free;
            snprintf(cls, clslen, "%s", s->av[i].cls);
            return XMPIR_RMS_ACT_SPAWN;
        }
    return XMPIR_RMS_ACT_NONE;
}

void xmpi_rms_schedule_replay(struct xmpi_rms_schedule *s, long iteration)
{
    const struct xmpi_rms_event *ev;
    while ((ev = xmpi_rms_schedule_due(s, iteration))) {
        if (is_avail(ev->action)) apply(s, ev);
        else if (ev->action == XMPIR_RMS_ACT_SPAWN) xmpi_rms_schedule_took(s, ev->cls, ev->count);
        else xmpi_rms_schedule_gave(s, ev->cls, ev->count);
    }
}

void xmpi_rms_schedule_took(struct xmpi_rms_schedule *s, const char *cls, int n)
{
    struct xmpi_rms_avail *a = find_avail(s, cls);
    if (!a || n <= 0) return;
    a->free -= n < a->free ? n : a->free;
    a->held = a->held > INT_MAX - n ? INT_MAX : a->held + n;
}

void xmpi_rms_schedule_gave(struct xmpi_rms_schedule *s, const char *cls, int n)
{
    struct xmpi_rms_avail *a = find_avail(s, cls);
    if (!a || n <= 0) return;
    a->held -= n < a->held ? n : a->held;
    a->reclaim -= n < a->reclaim ? n : a->reclaim;
    if (a->reclaim > a->held) a->reclaim = a->held;
}
