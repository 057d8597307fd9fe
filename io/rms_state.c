/* The embedded resource manager's state file: its text format, its parser and atomic
 * writer, the lock that serialises updates, and the offer/reclaim/take/give operations.
 *
 * File format (one entry per line, fields separated by blanks, '#' starts a comment):
 *
 *     # xmpi-rms state v2: host class pes free allocated reclaim initial
 *     vm fast 2 0 1 0 1
 *     vm slow 2 1 1 0 0
 *
 *   host, class  names without blanks or '#', 1 to XMPIR_NAME_MAX - 1 characters; a
 *                (host, class) pair appears once
 *   pes          capacity: PEs of that class on that host the job may ever hold
 *   free         offered to the job and not taken yet
 *   allocated    held by the job (it spawned there)
 *   reclaim      of the allocated ones, how many the job must give back at its next
 *                sampling interval
 *   initial      of the allocated ones, how many the job's initial processes hold: they
 *                never leave, so a reclaim cannot ask for them (v2; a v1 line has six
 *                fields and reads as initial 0)
 *   with 0 <= initial <= allocated, 0 <= reclaim <= allocated - initial and
 *   free + allocated <= pes on every line.
 *
 * The file is meant to be read and edited by people (xmpi-rms status prints it as a
 * table), so the parser names FILE:LINE and the field of any mistake. Writers replace it
 * by rename, never in place, so a reader without the lock still sees a whole file; the
 * lock lives in PATH.lock because the rename gives PATH a new inode with every write. */
#define _DEFAULT_SOURCE   /* flock() and fsync() hide behind _POSIX_C_SOURCE alone */
#include "rms_state.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "textfile.h"

/* Far above any host's cores, and low enough that sums over many entries fit a long
 * and a class's total fits an int for every realistic pool. */
#define COUNT_MAX 1000000

#define FIELDS "host class pes free allocated reclaim [initial]"
#define HEADER "# xmpi-rms state v2: host class pes free allocated reclaim initial\n"

/* ---- names and numbers ---- */

/* Anything the line format can carry back: no blanks (they separate fields), no '#'
 * (it starts a comment), no control characters (they would not survive an editor). */
static int name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= XMPIR_NAME_MAX) return 0;
    for (; *s; s++)
        if (!isgraph((unsigned char)*s) || *s == '#') return 0;
    return 1;
}

/* ---- entries ---- */

void xmpi_rms_state_free(struct xmpi_rms_state *st)
{
    if (!st) return;
    free(st->e);
    st->e = NULL;
    st->n = 0;
}

int xmpi_rms_state_find(const struct xmpi_rms_state *st, const char *host, const char *cls)
{
    if (!st || !host || !cls) return -1;
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->e[i].host, host) == 0 && strcmp(st->e[i].cls, cls) == 0) return i;
    return -1;
}

/* "free + allocated (3) exceeds pes (2)": empty when the entry is consistent. */
static void invariant_problem(const struct xmpi_rms_entry *e, char *buf, size_t len)
{
    buf[0] = '\0';
    if (e->initial > e->allocated)
        snprintf(buf, len, "initial (%d) exceeds allocated (%d)", e->initial, e->allocated);
    else if (e->reclaim > e->allocated - e->initial)
        snprintf(buf, len, "reclaim (%d) exceeds allocated - initial (%d)", e->reclaim,
                 e->allocated - e->initial);
    else if ((long)e->free + e->allocated > e->pes)
        snprintf(buf, len, "free + allocated (%ld) exceeds pes (%d)",
                 (long)e->free + e->allocated, e->pes);
}

#define INVARIANTS                                                                        \
    "expected initial <= allocated, reclaim <= allocated - initial (the initial processes " \
    "never leave) and free + allocated <= pes"

/* ---- parsing ---- */

static const char *const field_names[] = {"host", "class", "pes", "free", "allocated",
                                          "reclaim", "initial"};

/* Grows *e by one slot; the array doubles so a long file parses in linear time. */
static struct xmpi_rms_entry *append(struct xmpi_rms_entry **e, int *n, int *cap)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 16;
        struct xmpi_rms_entry *ne = realloc(*e, (size_t)nc * sizeof *ne);
        if (!ne) return NULL;
        *e = ne;
        *cap = nc;
    }
    struct xmpi_rms_entry *x = &(*e)[(*n)++];
    memset(x, 0, sizeof *x);
    return x;
}

int xmpi_rms_state_parse(struct xmpi_rms_state *st, FILE *f, const char *fname, char *err,
                         size_t errlen)
{
    struct xmpi_rms_entry *e = NULL;
    int n = 0, cap = 0;
    struct xmpi_text_pairs seen = {0};
    struct xmpi_text_lines rd;
    char *line;
    int got, rc = -1;
    if (!fname) fname = "(state)";

    xmpi_text_lines_init(&rd, f, fname);
    while ((got = xmpi_text_next(&rd, &line)) > 0) {
        char *tok[7];
        int nf = xmpi_text_fields_range(&rd, line, tok, 6, 7, field_names, FIELDS, err, errlen);
        if (nf < 0) goto out;
        for (int k = 0; k < 2; k++)
            if (!name_ok(tok[k])) {
                xmpi_text_field_error(&rd, err, errlen, field_names[k], tok[k],
                                      "a name of 1 to %d characters without blanks or '#'",
                                      XMPIR_NAME_MAX - 1);
                goto out;
            }
        long v[5] = {0};
        for (int k = 0; k < nf - 2; k++)
            if (xmpi_text_parse_long(tok[2 + k], 0, COUNT_MAX, &v[k]) != 0) {
                xmpi_text_field_error(&rd, err, errlen, field_names[2 + k], tok[2 + k],
                                      "a whole number from 0 to %d", COUNT_MAX);
                goto out;
            }
        long before = xmpi_text_pair_seen(&seen, tok[0], tok[1]);
        if (before) {
            xmpi_text_line_error(&rd, err, errlen,
                                 "host %s class %s already appears on line %ld; expected each "
                                 "(host, class) pair once", tok[0], tok[1], before);
            goto out;
        }
        if (xmpi_text_pair_add(&seen, tok[0], tok[1], rd.lineno)) goto nomem;
        struct xmpi_rms_entry *x = append(&e, &n, &cap);
        if (!x) goto nomem;
        memcpy(x->host, tok[0], strlen(tok[0]) + 1);
        memcpy(x->cls, tok[1], strlen(tok[1]) + 1);
        x->pes = (int)v[0];
        x->free = (int)v[1];
        x->allocated = (int)v[2];
        x->reclaim = (int)v[3];
        x->initial = (int)v[4];
        char why[128];
        invariant_problem(x, why, sizeof why);
        if (why[0]) {
            xmpi_text_line_error(&rd, err, errlen, "%s; " INVARIANTS, why);
            goto out;
        }
    }
    if (got < 0) {
        xmpi_text_lines_failed(&rd, err, errlen);
        goto out;
    }
    /* *st is overwritten, not freed: callers may pass an uninitialised struct. */
    st->n = n;
    st->e = e;
    e = NULL;
    rc = 0;
    goto out;
nomem:
    xmpi_text_line_error(&rd, err, errlen, "out of memory");
out:
    free(e);
    xmpi_text_pairs_free(&seen);
    xmpi_text_lines_free(&rd);
    return rc;
}

/* ENOENT gets its own message: it is the one mistake with an obvious remedy. */
static int read_state(const char *path, struct xmpi_rms_state *st, int *missing, char *err,
                      size_t errlen)
{
    *missing = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT) {
            *missing = 1;
            return xmpi_text_error(err, errlen,
                                   "%s: no such state file (create it with xmpi-rms init)",
                                   path);
        }
        return xmpi_text_error(err, errlen, "%s: cannot read the state file: %s", path,
                               strerror(errno));
    }
    int rc = xmpi_rms_state_parse(st, f, path, err, errlen);
    fclose(f);
    return rc;
}

int xmpi_rms_state_read(const char *path, struct xmpi_rms_state *st, char *err, size_t errlen)
{
    int missing;
    if (!path || !*path)
        return xmpi_text_error(err, errlen, "no state file named; expected a path");
    return read_state(path, st, &missing, err, errlen);
}

/* ---- writing ---- */

static void write_entries(FILE *out, const struct xmpi_rms_state *st)
{
    fputs(HEADER, out);
    for (int i = 0; i < st->n; i++) {
        const struct xmpi_rms_entry *x = &st->e[i];
        fprintf(out, "%s %s %d %d %d %d %d\n", x->host, x->cls, x->pes, x->free, x->allocated,
                x->reclaim, x->initial);
    }
}

/* What the parser would refuse is refused here too, so a write can never leave a file
 * that the next read rejects. */
static int check_state(const struct xmpi_rms_state *st, const char *path, char *err,
                       size_t errlen)
{
    for (int i = 0; i < st->n; i++) {
        const struct xmpi_rms_entry *x = &st->e[i];
        char sh[XMPIR_TEXT_ECHO_SIZE], sc[XMPIR_TEXT_ECHO_SIZE];
        if (!name_ok(x->host) || !name_ok(x->cls))
            return xmpi_text_error(err, errlen,
                                   "%s: entry %d: host '%s' class '%s' cannot be "
                                   "written; expected names of 1 to %d characters without "
                                   "blanks or '#'",
                                   path, i + 1, xmpi_text_echo(sh, x->host),
                                   xmpi_text_echo(sc, x->cls), XMPIR_NAME_MAX - 1);
        const int v[5] = {x->pes, x->free, x->allocated, x->reclaim, x->initial};
        for (int k = 0; k < 5; k++)
            if (v[k] < 0 || v[k] > COUNT_MAX)
                return xmpi_text_error(err, errlen,
                                       "%s: entry %d (host %s class %s): %s %d cannot be "
                                       "written; expected a whole number from 0 to %d",
                                       path, i + 1, x->host, x->cls, field_names[2 + k], v[k],
                                       COUNT_MAX);
        char why[128];
        invariant_problem(x, why, sizeof why);
        if (why[0])
            return xmpi_text_error(err, errlen,
                                   "%s: entry %d (host %s class %s): %s; " INVARIANTS, path,
                                   i + 1, x->host, x->cls, why);
        if (xmpi_rms_state_find(st, x->host, x->cls) != i)
            return xmpi_text_error(err, errlen,
                                   "%s: entry %d: host %s class %s appears twice; expected "
                                   "each (host, class) pair once",
                                   path, i + 1, x->host, x->cls);
    }
    return 0;
}

int xmpi_rms_state_write(const char *path, const struct xmpi_rms_state *st, char *err,
                         size_t errlen)
{
    if (!path || !*path)
        return xmpi_text_error(err, errlen, "no state file named; expected a path");
    if (check_state(st, path, err, errlen) != 0) return -1;
    /* A rename would replace a file nobody may write as easily as any other: a state made
     * read-only (for everyone, or for this user) is refused, not replaced. */
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && xmpi_text_readonly(path, &sb))
        return xmpi_text_error(err, errlen,
                               "%s: the state file is read-only (mode %04o, owner uid %ld); "
                               "nothing was changed; expected a state file this user may "
                               "write (e.g. chmod u+w %s)",
                               path, (unsigned)(sb.st_mode & 07777), (long)sb.st_uid, path);

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) return xmpi_text_error(err, errlen, "%s: out of memory", path);
    snprintf(tmp, plen + 32, "%s.tmp.%ld", path, (long)getpid());

    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) {
        xmpi_text_error(err, errlen, "%s: cannot create '%s': %s", path, tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    /* Keep the permissions, owner and group someone gave the state (e.g. group-writable for
     * an operator): the owner where the caller may (root), else at least the group. */
    if (exists) {
        if ((sb.st_uid != geteuid() || sb.st_gid != getegid()) &&
            fchown(fd, sb.st_uid, sb.st_gid) != 0 && fchown(fd, (uid_t)-1, sb.st_gid) != 0) {
            /* Not a member of its group: the replaced file is the caller's, as any new one. */
        }
        (void)fchmod(fd, sb.st_mode & 07777);
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        xmpi_text_error(err, errlen, "%s: cannot write '%s': %s", path, tmp, strerror(errno));
        close(fd);
        goto fail_unlink;
    }
    write_entries(f, st);
    int werr = 0;
    if (fflush(f) != 0 || ferror(f)) werr = errno ? errno : EIO;
    /* Durable before visible: after a crash PATH is the old or the new file, whole. */
    if (!werr && fsync(fd) != 0) werr = errno;
    if (fclose(f) != 0 && !werr) werr = errno ? errno : EIO;
    if (werr) {
        xmpi_text_error(err, errlen, "%s: cannot write '%s': %s", path, tmp, strerror(werr));
        goto fail_unlink;
    }
    if (rename(tmp, path) != 0) {
        xmpi_text_error(err, errlen, "%s: cannot replace it with '%s': %s", path, tmp,
                        strerror(errno));
        goto fail_unlink;
    }
    free(tmp);
    return 0;
fail_unlink:
    unlink(tmp);
    free(tmp);
    return -1;
}

/* ---- printing ---- */

static int digits(long v)
{
    int d = 1;
    while (v >= 10) v /= 10, d++;
    return d;
}

static int maxi(int a, int b) { return a > b ? a : b; }

void xmpi_rms_state_print(FILE *out, const struct xmpi_rms_state *st)
{
    static const char *const total = "(total)";
    int n = st ? st->n : 0;
    /* Class totals, in the order the classes first appear. */
    int ncls = 0;
    int *first = n ? malloc((size_t)n * sizeof *first) : NULL;
    long(*sum)[5] = n ? calloc((size_t)n, sizeof *sum) : NULL;
    if (n && (!first || !sum)) {
        /* Without memory for totals, the entries alone still tell the truth. */
        free(first);
        free(sum);
        first = NULL;
        sum = NULL;
    }
    for (int i = 0; i < n && first; i++) {
        const struct xmpi_rms_entry *x = &st->e[i];
        int c = 0;
        while (c < ncls && strcmp(st->e[first[c]].cls, x->cls) != 0) c++;
        if (c == ncls) first[ncls++] = i;
        sum[c][0] += x->pes;
        sum[c][1] += x->free;
        sum[c][2] += x->allocated;
        sum[c][3] += x->reclaim;
        sum[c][4] += x->initial;
    }

    int w[7] = {4, 5, 3, 4, 9, 7, 7};   /* the header words */
    if (ncls) w[0] = (int)strlen(total);
    for (int i = 0; i < n; i++) {
        const struct xmpi_rms_entry *x = &st->e[i];
        w[0] = maxi(w[0], (int)strlen(x->host));
        w[1] = maxi(w[1], (int)strlen(x->cls));
        w[2] = maxi(w[2], digits(x->pes));
        w[3] = maxi(w[3], digits(x->free));
        w[4] = maxi(w[4], digits(x->allocated));
        w[5] = maxi(w[5], digits(x->reclaim));
        w[6] = maxi(w[6], digits(x->initial));
    }
    for (int c = 0; c < ncls; c++)
        for (int k = 0; k < 5; k++) w[2 + k] = maxi(w[2 + k], digits(sum[c][k]));

    fprintf(out, "%-*s  %-*s  %*s  %*s  %*s  %*s  %*s\n", w[0], "host", w[1], "class", w[2],
            "pes", w[3], "free", w[4], "allocated", w[5], "reclaim", w[6], "initial");
    for (int i = 0; i < n; i++) {
        const struct xmpi_rms_entry *x = &st->e[i];
        fprintf(out, "%-*s  %-*s  %*d  %*d  %*d  %*d  %*d\n", w[0], x->host, w[1], x->cls, w[2],
                x->pes, w[3], x->free, w[4], x->allocated, w[5], x->reclaim, w[6], x->initial);
    }
    for (int c = 0; c < ncls; c++)
        fprintf(out, "%-*s  %-*s  %*ld  %*ld  %*ld  %*ld  %*ld\n", w[0], total, w[1],
                st->e[first[c]].cls, w[2], sum[c][0], w[3], sum[c][1], w[4], sum[c][2], w[5],
                sum[c][3], w[6], sum[c][4]);
    free(first);
    free(sum);
}

/* ---- construction ---- */

int xmpi_rms_state_from_pool(struct xmpi_rms_state *st, const struct xmpi_pool *pool)
{
    if (!st || !pool || pool->nhosts < 0) return -1;
    struct xmpi_rms_entry *e = NULL;
    if (pool->nhosts > 0) {
        e = calloc((size_t)pool->nhosts, sizeof *e);
        if (!e) return -1;
    }
    for (int i = 0; i < pool->nhosts; i++) {
        const struct xmpi_host *h = &pool->hosts[i];
        /* Both name arrays are XMPIR_NAME_MAX long; copy bounded all the same. */
        snprintf(e[i].host, sizeof e[i].host, "%s", h->name);
        snprintf(e[i].cls, sizeof e[i].cls, "%s", h->cls);
        e[i].pes = h->pes;
    }
    st->n = pool->nhosts;
    st->e = e;
    return 0;
}

/* ---- locked update ---- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The pid the holder wrote into the lock file, or 0 (a hand-taken lock writes none). */
static long lock_holder(int fd)
{
    char buf[32];
    ssize_t k = pread(fd, buf, sizeof buf - 1, 0);
    if (k <= 0) return 0;
    buf[k] = '\0';
    long pid = 0;
    for (char *p = buf; *p >= '0' && *p <= '9' && pid < 100000000; p++) pid = pid * 10 + (*p - '0');
    return pid;
}

int xmpi_rms_lock(const char *path, const struct xmpi_rms_wait *w, char *err, size_t errlen)
{
    size_t plen = strlen(path);
    char *lp = malloc(plen + 6);
    if (!lp) return xmpi_text_error(err, errlen, "%s: out of memory", path);
    memcpy(lp, path, plen);
    memcpy(lp + plen, ".lock", 6);
    int fd = open(lp, O_RDWR | O_CREAT, 0666);
    if (fd < 0) {
        xmpi_text_error(err, errlen, "%s: cannot open the lock file '%s': %s", path, lp,
                        strerror(errno));
        free(lp);
        return -1;
    }
    double limit = w ? w->seconds : -1, t0 = now_s(), pause = 0.005;
    int said = 0;
    for (;;) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) break;
        if (errno == EINTR) continue;
        if (errno != EWOULDBLOCK) {
            xmpi_text_error(err, errlen, "%s: cannot lock '%s': %s", path, lp, strerror(errno));
            goto fail;
        }
        double waited = now_s() - t0;
        if (limit >= 0 && waited >= limit) {
            long holder = lock_holder(fd);
            char who[64] = "";
            if (holder > 0) snprintf(who, sizeof who, " (pid %ld)", holder);
            if (limit == 0)
                xmpi_text_error(err, errlen, "%s: the lock file '%s' is held by another "
                                "process%s; not waiting (wait 0 s); nothing was changed",
                                path, lp, who);
            else
                xmpi_text_error(err, errlen, "%s: the lock file '%s' is held by another "
                                "process%s and was not released within %g s; nothing was "
                                "changed", path, lp, who, limit);
            goto fail;
        }
        /* Writers hold the lock for milliseconds: only a wait beyond that is news. */
        double grace = limit >= 0 && limit < 1 ? limit / 2 : 0.5;
        if (!said && waited >= grace) {
            if (w && w->waiting) w->waiting(w->arg, lp, lock_holder(fd), limit);
            said = 1;
        }
        double left = limit >= 0 ? limit - waited : pause;
        double nap = pause < left ? pause : left;
        struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
        nanosleep(&ts, NULL);
        if (pause < 0.1) pause *= 2;
    }
    /* Say who holds it, for the next process that has to wait. */
    char me[32];
    int k = snprintf(me, sizeof me, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) == 0 && pwrite(fd, me, (size_t)k, 0) != k) {
        /* Only a courtesy: the lock is held all the same. */
    }
    free(lp);
    return fd;
fail:
    close(fd);
    free(lp);
    return -1;
}

void xmpi_rms_unlock(int fd)
{
    if (fd < 0) return;
    if (ftruncate(fd, 0) != 0) {
        /* The pid stays behind; the next holder overwrites it. */
    }
    close(fd);   /* releases the lock */
}

int xmpi_rms_update(const char *path, int create,
                    int (*fn)(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen),
                    void *arg, char *err, size_t errlen)
{
    return xmpi_rms_update_wait(path, create, NULL, fn, arg, err, errlen);
}

int xmpi_rms_update_wait(const char *path, int create, const struct xmpi_rms_wait *w,
                         int (*fn)(struct xmpi_rms_state *st, void *arg, char *err,
                                   size_t errlen),
                         void *arg, char *err, size_t errlen)
{
    if (!path || !*path)
        return xmpi_text_error(err, errlen, "no state file named; expected a path");
    if (!fn) return xmpi_text_error(err, errlen, "%s: no update function given", path);
    /* Checked before the lock too, so a mistyped path leaves no stray PATH.lock behind;
     * the read under the lock decides. */
    struct stat sb;
    if (!create && stat(path, &sb) != 0 && errno == ENOENT)
        return xmpi_text_error(err, errlen,
                               "%s: no such state file (create it with xmpi-rms init)", path);
    int fd = xmpi_rms_lock(path, w, err, errlen);
    if (fd < 0) return -1;
    struct xmpi_rms_state st = {0, NULL};
    int missing, rc = -1;
    if (read_state(path, &st, &missing, err, errlen) != 0) {
        if (!missing || !create) goto out;
        if (err && errlen) err[0] = '\0';
    }
    if (fn(&st, arg, err, errlen) != 0) {
        if (err && errlen && !err[0]) snprintf(err, errlen, "%s: update refused", path);
        goto out;
    }
    rc = xmpi_rms_state_write(path, &st, err, errlen);
out:
    xmpi_rms_state_free(&st);
    xmpi_rms_unlock(fd);
    return rc;
}

/* ---- operations ---- */

static int check_n(int n, const char *what, char *err, size_t errlen)
{
    if (n < 1 || n > COUNT_MAX)
        return xmpi_text_error(err, errlen,
                               "%s %d PEs is not accepted; expected a count from 1 to %d", what,
                               n, COUNT_MAX);
    return 0;
}

/* "fast, slow": the distinct classes in file order. */
static void class_list(const struct xmpi_rms_state *st, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < st->n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++) seen = strcmp(st->e[j].cls, st->e[i].cls) == 0;
        if (seen) continue;
        int k = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", st->e[i].cls);
        if (k < 0 || (size_t)k >= len - used) break;
        used += (size_t)k;
    }
    if (!buf[0]) snprintf(buf, len, "none (the state is empty)");
}

static int check_class(const struct xmpi_rms_state *st, const char *cls, char *err,
                       size_t errlen)
{
    for (int i = 0; i < st->n; i++)
        if (cls && strcmp(st->e[i].cls, cls) == 0) return 0;
    char known[512], shown[XMPIR_TEXT_ECHO_SIZE];
    class_list(st, known, sizeof known);
    return xmpi_text_error(err, errlen, "unknown class '%s'; known classes: %s",
                           xmpi_text_echo(shown, cls), known);
}

static int spare(const struct xmpi_rms_entry *x)
{
    int s = x->pes - x->free - x->allocated;
    return s > 0 ? s : 0;
}

int xmpi_rms_offer(struct xmpi_rms_state *st, const char *cls, int n, char *err, size_t errlen)
{
    if (check_n(n, "offering", err, errlen) != 0) return -1;
    if (check_class(st, cls, err, errlen) != 0) return -1;
    long pes = 0, fr = 0, al = 0, sp = 0;
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->e[i].cls, cls) == 0) {
            pes += st->e[i].pes;
            fr += st->e[i].free;
            al += st->e[i].allocated;
            sp += spare(&st->e[i]);
        }
    if (n > sp)
        return xmpi_text_error(err, errlen,
                               "class %s: cannot offer %d more PEs; only %ld of its %ld PEs "
                               "are spare (%ld offered, %ld allocated); expected a count from "
                               "1 to %ld",
                               cls, n, sp, pes, fr, al, sp);
    /* One PE at a time to the host with the most spare capacity, so an offer of many
     * spreads like a series of offers of one. */
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < st->n; i++)
            if (strcmp(st->e[i].cls, cls) == 0 && spare(&st->e[i]) > 0 &&
                (best < 0 || spare(&st->e[i]) > spare(&st->e[best])))
                best = i;
        st->e[best].free++;
    }
    return 0;
}

int xmpi_rms_reclaim(struct xmpi_rms_state *st, const char *cls, int n, char *err,
                     size_t errlen)
{
    if (check_n(n, "reclaiming", err, errlen) != 0) return -1;
    if (check_class(st, cls, err, errlen) != 0) return -1;
    long fr = 0, held = 0, asked = 0, initial = 0;
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->e[i].cls, cls) == 0) {
            fr += st->e[i].free;
            held += st->e[i].allocated - st->e[i].initial - st->e[i].reclaim;
            asked += st->e[i].reclaim;
            initial += st->e[i].initial;
        }
    if (n > fr + held) {
        char init[160] = "";
        if (initial)
            snprintf(init, sizeof init, "; %ld held by the job's initial processes, which never "
                     "leave", initial);
        if (fr + held == 0)
            return xmpi_text_error(err, errlen,
                                   "class %s: cannot reclaim %d PEs; none can be (nothing "
                                   "offered and not taken, nothing allocated and not already "
                                   "reclaimed%s; %ld being reclaimed)",
                                   cls, n, init, asked);
        return xmpi_text_error(err, errlen,
                               "class %s: cannot reclaim %d PEs; only %ld can be (%ld offered "
                               "and not taken, %ld allocated and not already reclaimed%s; %ld "
                               "being reclaimed); expected a count from 1 to %ld",
                               cls, n, fr + held, fr, held, init, asked, fr + held);
    }
    /* Withdrawing an offer costs the job nothing, so it goes first; then the hosts where
     * the job holds the most, as balance-all would remove from them. */
    for (int k = 0; k < n; k++) {
        int best = -1;
        for (int i = 0; i < st->n; i++)
            if (strcmp(st->e[i].cls, cls) == 0 && st->e[i].free > 0 &&
                (best < 0 || st->e[i].free > st->e[best].free))
                best = i;
        if (best >= 0) {
            st->e[best].free--;
            continue;
        }
        for (int i = 0; i < st->n; i++) {
            const struct xmpi_rms_entry *x = &st->e[i];
            if (strcmp(x->cls, cls) == 0 && x->allocated - x->initial > x->reclaim &&
                (best < 0 || x->allocated - x->initial - x->reclaim >
                                 st->e[best].allocated - st->e[best].initial -
                                     st->e[best].reclaim))
                best = i;
        }
        st->e[best].reclaim++;
    }
    return 0;
}

static int find_entry(const struct xmpi_rms_state *st, const char *host, const char *cls,
                      char *err, size_t errlen)
{
    int i = xmpi_rms_state_find(st, host, cls);
    if (i >= 0) return i;
    if (check_class(st, cls, err, errlen) != 0) return -1;
    char shown[XMPIR_TEXT_ECHO_SIZE];
    return xmpi_text_error(err, errlen,
                           "no host '%s' of class %s in the state; expected a host of it",
                           xmpi_text_echo(shown, host), cls);
}

int xmpi_rms_take(struct xmpi_rms_state *st, const char *host, const char *cls, int n,
                  int force, char *err, size_t errlen)
{
    if (check_n(n, "taking", err, errlen) != 0) return -1;
    int i = find_entry(st, host, cls, err, errlen);
    if (i < 0) return -1;
    struct xmpi_rms_entry *x = &st->e[i];
    if (n > x->free && !force)
        return xmpi_text_error(err, errlen,
                               "host %s class %s: cannot take %d PEs; only %d are offered; "
                               "expected at most %d (or force)",
                               host, cls, n, x->free, x->free);
    int from_free = n < x->free ? n : x->free;
    /* Beyond the offer the PEs come from spare capacity; the state cannot record more
     * than the host has (see the invariants in rms_state.h). */
    if ((long)x->free - from_free + x->allocated + n > x->pes)
        return xmpi_text_error(err, errlen,
                               "host %s class %s: cannot take %d PEs; it has %d PEs, %d "
                               "offered and %d allocated; expected at most %d",
                               host, cls, n, x->pes, x->free, x->allocated,
                               x->pes - x->allocated);
    x->free -= from_free;
    x->allocated += n;
    return 0;
}

int xmpi_rms_give(struct xmpi_rms_state *st, const char *host, const char *cls, int n,
                  char *err, size_t errlen)
{
    if (check_n(n, "giving", err, errlen) != 0) return -1;
    int i = find_entry(st, host, cls, err, errlen);
    if (i < 0) return -1;
    struct xmpi_rms_entry *x = &st->e[i];
    if (n > x->allocated)
        return xmpi_text_error(err, errlen,
                               "host %s class %s: cannot give %d PEs back; only %d are "
                               "allocated; expected at most %d",
                               host, cls, n, x->allocated, x->allocated);
    x->allocated -= n;
    x->reclaim = x->reclaim > n ? x->reclaim - n : 0;
    /* A hand-edited initial count may be wrong; the file keeps its invariants regardless. */
    if (x->initial > x->allocated) x->initial = x->allocated;
    if (x->reclaim > x->allocated - x->initial) x->reclaim = x->allocated - x->initial;
    return 0;
}

/* ---- what the job should do ---- */

static int class_total(const struct xmpi_rms_state *st, const char *cls, int reclaim)
{
    long t = 0;
    for (int i = 0; i < st->n; i++)
        if (strcmp(st->e[i].cls, cls) == 0) t += reclaim ? st->e[i].reclaim : st->e[i].free;
    return t > INT_MAX ? INT_MAX : (int)t;
}

int xmpi_rms_state_action(const struct xmpi_rms_state *st, int *nprocs, char *cls,
                          size_t clslen)
{
    int act = XMPIR_RMS_ACT_NONE, count = 0;
    const char *c = "";
    for (int pass = 0; st && pass < 2 && act == XMPIR_RMS_ACT_NONE; pass++)
        for (int i = 0; i < st->n; i++)
            if (pass == 0 ? st->e[i].reclaim > 0 : st->e[i].free > 0) {
                act = pass == 0 ? XMPIR_RMS_ACT_SHRINK : XMPIR_RMS_ACT_SPAWN;
                c = st->e[i].cls;
                count = class_total(st, c, pass == 0);
                break;
            }
    if (nprocs) *nprocs = count;
    if (cls && clslen) snprintf(cls, clslen, "%s", c);
    return act;
}
