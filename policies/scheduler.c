/* Process scheduler: initial placement from mpirun's hosts, where spawned processes go and
 * which dynamic ones leave, by balance-all or balance-occupied (FLEX-MPI 4.4.1, 4.4.2). */
#include "scheduler.h"

#include "../io/options.h"
#include "../io/textfile.h"

#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Classes lists and echoed tokens are cut to this, so messages keep their "expected". */
#define LIST_MAX 256
#define ECHO_MAX XMPIR_TEXT_ECHO_MAX

/* The shared echo, for a token that is not NUL-terminated in place. */
static void echo(char *out, size_t len, const char *v, size_t n)
{
    char token[XMPIR_TEXT_ECHO_MAX + 2], shown[XMPIR_TEXT_ECHO_SIZE];
    snprintf(token, sizeof token, "%.*s", (int)(n < sizeof token - 1 ? n : sizeof token - 1), v);
    snprintf(out, len, "%s", xmpi_text_echo(shown, token));
}

static int class_error(const struct xmpi_pool *pool, const char *cls, char *err,
                       size_t errlen)
{
    char known[LIST_MAX], shown[ECHO_MAX + 4];
    xmpi_pool_classes(pool, known, sizeof known);
    echo(shown, sizeof shown, cls, strlen(cls));
    xmpi_text_error(err, errlen, "node class '%s' is not in the resource pool; expected one of: %s",
           shown, known[0] ? known : "(the pool is empty)");
    return XMPIR_SCHED_ECLASS;
}

static int host_matches(const struct xmpi_pool *pool, int h, const char *cls)
{
    return !cls || strcmp(pool->hosts[h].cls, cls) == 0;
}

/* ---- initial placement ---- */

/* [*b, *e) without surrounding blanks, so "quad:2, dual:1" reads as meant. */
static void trim_span(const char **b, const char **e)
{
    while (*b < *e && isspace((unsigned char)**b)) (*b)++;
    while (*e > *b && isspace((unsigned char)(*e)[-1])) (*e)--;
}

static int span_len(const char *b, const char *e)
{
    return (int)(e - b > ECHO_MAX ? ECHO_MAX : e - b);
}

/* Splits "C1:1,C8:2" into per-rank classes (pointers to the pool's own names). */
static int parse_initial(const struct xmpi_pool *pool, const char *spec, int nprocs,
                         const char **rank_cls, char *err, size_t errlen)
{
    long placed = 0;
    for (const char *p = spec;;) {
        size_t tlen = strcspn(p, ",");
        char shown[ECHO_MAX + 4];
        echo(shown, sizeof shown, p, tlen);
        const char *colon = memchr(p, ':', tlen);
        if (!colon) {
            xmpi_text_error(err, errlen,
                   "initial placement: token '%s' is not accepted; expected CLASS:COUNT "
                   "pairs separated by commas, e.g. quad:2,dual:1",
                   shown);
            return XMPIR_SCHED_EINIT;
        }
        const char *cb = p, *ce = colon, *nb = colon + 1, *ne = p + tlen;
        trim_span(&cb, &ce);
        trim_span(&nb, &ne);
        char cls[XMPIR_NAME_MAX];
        size_t clen = (size_t)(ce - cb);
        /* Too long for any pool class: leave it unmatched rather than truncated. */
        if (clen >= sizeof cls) clen = 0;
        memcpy(cls, cb, clen);
        cls[clen] = '\0';
        int first = clen ? xmpi_pool_find_class(pool, cls) : -1;
        if (first < 0) {
            char known[LIST_MAX];
            xmpi_pool_classes(pool, known, sizeof known);
            xmpi_text_error(err, errlen,
                   "initial placement: token '%s': class '%.*s' is not in the resource "
                   "pool; expected one of: %s",
                   shown, span_len(cb, ce), cb, known[0] ? known : "(the pool is empty)");
            return XMPIR_SCHED_EINIT;
        }
        long count = 0;
        int ok = nb < ne;
        for (const char *q = nb; ok && q < ne; q++) {
            if (!isdigit((unsigned char)*q)) ok = 0;
            else if ((count = count * 10 + (*q - '0')) > INT_MAX) ok = 0;
        }
        if (!ok || count < 1) {
            xmpi_text_error(err, errlen,
                   "initial placement: token '%s': count '%.*s' is not accepted; expected "
                   "an integer >= 1",
                   shown, span_len(nb, ne), nb);
            return XMPIR_SCHED_EINIT;
        }
        for (long k = 0; k < count && placed + k < nprocs; k++)
            rank_cls[placed + k] = pool->hosts[first].cls;
        placed += count;
        if (p[tlen] == '\0') break;
        p += tlen + 1;
    }
    if (placed != nprocs) {
        char shown[ECHO_MAX + 4];
        echo(shown, sizeof shown, spec, strlen(spec));
        xmpi_text_error(err, errlen,
               "initial placement '%s' places %ld processes; expected counts summing to "
               "the job's %d processes",
               shown, placed, nprocs);
        return XMPIR_SCHED_EINIT;
    }
    return XMPIR_SCHED_OK;
}

int xmpi_sched_init(struct xmpi_sched *s, struct xmpi_pool *pool, int policy,
                    int oversubscribe, int nprocs, char *const hostnames[],
                    const char *initial, char *err, size_t errlen)
{
    if (policy != XMPIR_SCHED_BALANCE_ALL && policy != XMPIR_SCHED_BALANCE_OCCUPIED) {
        xmpi_text_error(err, errlen,
               "scheduling policy %d is not accepted; expected balance-all (%d) or "
               "balance-occupied (%d)",
               policy, XMPIR_SCHED_BALANCE_ALL, XMPIR_SCHED_BALANCE_OCCUPIED);
        return XMPIR_SCHED_EINIT;
    }
    if (!pool || nprocs < 1 || !hostnames) {
        xmpi_text_error(err, errlen,
               "initial placement of %d processes is not accepted; expected a resource "
               "pool and the host of each of at least 1 process",
               nprocs);
        return XMPIR_SCHED_EINIT;
    }
    const char **rank_cls = calloc((size_t)nprocs, sizeof *rank_cls);
    struct xmpi_proc *procs = calloc((size_t)nprocs, sizeof *procs);
    if (!rank_cls || !procs) {
        free(rank_cls);
        free(procs);
        xmpi_text_error(err, errlen, "initial placement of %d processes: out of memory", nprocs);
        return XMPIR_SCHED_ENOMEM;
    }
    int rc = XMPIR_SCHED_OK;
    if (initial && initial[0])
        rc = parse_initial(pool, initial, nprocs, rank_cls, err, errlen);
    for (int i = 0; rc == XMPIR_SCHED_OK && i < nprocs; i++) {
        const char *h = hostnames[i] ? hostnames[i] : "";
        int idx = xmpi_pool_find(pool, h, rank_cls[i]);
        if (idx < 0) {
            char shown[ECHO_MAX + 4];
            echo(shown, sizeof shown, h, strlen(h));
            if (rank_cls[i])
                xmpi_text_error(err, errlen,
                       "initial placement: rank %d runs on host '%s' with class '%s', which "
                       "is not in the resource pool; expected a hostname:class pair listed "
                       "there",
                       i, shown, rank_cls[i]);
            else
                xmpi_text_error(err, errlen,
                       "initial placement: rank %d runs on host '%s', which is not in the "
                       "resource pool; expected every host of the job listed there",
                       i, shown);
            rc = XMPIR_SCHED_EINIT;
            break;
        }
        procs[i].host = idx;
        procs[i].group = 0;
        procs[i].order = 0;
    }
    free(rank_cls);
    if (rc != XMPIR_SCHED_OK) {
        free(procs);
        return rc;
    }
    /* The pool's counts describe this job only: start from its initial processes. */
    for (int h = 0; h < pool->nhosts; h++) pool->hosts[h].procs = 0;
    for (int i = 0; i < nprocs; i++) pool->hosts[procs[i].host].procs++;
    s->pool = pool;
    s->policy = policy;
    s->oversubscribe = oversubscribe;
    s->nprocs = nprocs;
    s->procs = procs;
    s->next_group = 1;
    s->next_order = 1;
    return XMPIR_SCHED_OK;
}

void xmpi_sched_free(struct xmpi_sched *s)
{
    if (!s) return;
    free(s->procs);
    s->procs = NULL;
    s->nprocs = 0;
}

/* ---- spawn ---- */

/* One host for one new process of class cls (NULL: any), over the counts so far. */
static int choose_spawn_host(const struct xmpi_pool *pool, const int *cnt, const char *cls,
                             int policy, int oversubscribe)
{
    int best = -1, empty = -1;
    for (int h = 0; h < pool->nhosts; h++) {
        if (!host_matches(pool, h, cls) || cnt[h] >= pool->hosts[h].pes) continue;
        if (policy == XMPIR_SCHED_BALANCE_OCCUPIED && cnt[h] == 0) {
            /* Opening an unused node is the last resort: that is what saves nodes. */
            if (empty < 0) empty = h;
            continue;
        }
        if (best < 0 || cnt[h] < cnt[best]) best = h;
    }
    if (best < 0) best = empty;
    if (best >= 0 || !oversubscribe) return best;
    /* Every candidate is full: spread the excess by load relative to size. */
    for (int h = 0; h < pool->nhosts; h++) {
        if (!host_matches(pool, h, cls)) continue;
        if (best < 0 || (long long)cnt[h] * pool->hosts[best].pes <
                            (long long)cnt[best] * pool->hosts[h].pes)
            best = h;
    }
    return best;
}

int xmpi_sched_place(const struct xmpi_sched *s, char *const cls[], int n, int *hosts,
                     char *err, size_t errlen)
{
    const struct xmpi_pool *pool = s->pool;
    if (n < 1) {
        xmpi_text_error(err, errlen,
               "placing %d new processes is not accepted; expected at least 1 process", n);
        return XMPIR_SCHED_ECOUNT;
    }
    for (int k = 0; cls && k < n; k++)
        if (cls[k] && xmpi_pool_find_class(pool, cls[k]) < 0)
            return class_error(pool, cls[k], err, errlen);
    int *cnt = malloc(((size_t)pool->nhosts + 1) * sizeof *cnt);
    int *out = malloc((size_t)n * sizeof *out);
    if (!cnt || !out) {
        free(cnt);
        free(out);
        xmpi_text_error(err, errlen, "placing %d new processes: out of memory", n);
        return XMPIR_SCHED_ENOMEM;
    }
    for (int h = 0; h < pool->nhosts; h++) cnt[h] = pool->hosts[h].procs;
    int rc = XMPIR_SCHED_OK;
    for (int k = 0; k < n; k++) {
        const char *c = cls ? cls[k] : NULL;
        int h = choose_spawn_host(pool, cnt, c, s->policy, s->oversubscribe);
        if (h < 0) {
            long pes = 0, used = 0, mine = 0;
            for (int j = 0; j < pool->nhosts; j++) {
                if (!host_matches(pool, j, c)) continue;
                pes += pool->hosts[j].pes;
                used += pool->hosts[j].procs;
                mine += cnt[j] - pool->hosts[j].procs;
            }
            char what[XMPIR_NAME_MAX + 16];
            if (c) snprintf(what, sizeof what, "class '%s'", c);
            else snprintf(what, sizeof what, "the pool");
            xmpi_text_error(err, errlen,
                   "no free PE for new process %d of %d: %s has %ld PEs, this job already "
                   "uses %ld of them and this request %ld more; expected no more new "
                   "processes than free PEs, or oversubscription allowed",
                   k + 1, n, what, pes, used, mine);
            rc = XMPIR_SCHED_ENOPE;
            break;
        }
        out[k] = h;
        cnt[h]++;
    }
    if (rc == XMPIR_SCHED_OK) memcpy(hosts, out, (size_t)n * sizeof *hosts);
    free(cnt);
    free(out);
    return rc;
}

int xmpi_sched_add(struct xmpi_sched *s, const int *hosts, int n, int group_mode)
{
    if (n < 1 || n > INT_MAX - s->nprocs) return XMPIR_SCHED_ECOUNT;
    for (int k = 0; k < n; k++)
        if (hosts[k] < 0 || hosts[k] >= s->pool->nhosts) return XMPIR_SCHED_ECOUNT;
    struct xmpi_proc *procs =
        realloc(s->procs, ((size_t)s->nprocs + (size_t)n) * sizeof *procs);
    if (!procs) return XMPIR_SCHED_ENOMEM;
    s->procs = procs;
    for (int k = 0; k < n; k++) {
        struct xmpi_proc *p = &procs[s->nprocs + k];
        p->host = hosts[k];
        p->group = group_mode ? s->next_group : s->next_group + k;
        p->order = s->next_order++;
        s->pool->hosts[hosts[k]].procs++;
    }
    s->next_group += group_mode ? 1 : n;
    s->nprocs += n;
    return XMPIR_SCHED_OK;
}

/* ---- removal ---- */

int xmpi_sched_removable(const struct xmpi_sched *s, const char *cls)
{
    int r = 0;
    for (int i = 0; i < s->nprocs; i++)
        r += s->procs[i].group > 0 && (!cls || !strcmp(s->pool->hosts[s->procs[i].host].cls, cls));
    return r;
}

/* The dynamic processes indexed once per removal request, so that choosing n of P costs
 * O(P log P + n x hosts), not a pass over every process per pick (O(n x P): 0.18 s to pick
 * 4,096 of 16,384 in xmpi-scalerank0, make bench-scale). */
struct dyn_index {
    int ngroups;          /* group ids are 1..ngroups-1 */
    int *size;            /* processes per group id */
    int *gstart, *gmem;   /* members of group g: gmem[gstart[g] .. gstart[g + 1]) */
    int *hstart, *hmem;   /* dynamic processes of host h, most recent first */
    int *hpos;            /* per host: the first of hmem's not looked at yet */
    int *avail;           /* per host: dynamic processes not picked yet */
    int *newest;          /* the nd dynamic processes, most recent first */
    int nd;
};

struct recent { long order; int i; };

/* Most recent first; of equal orders, the lower rank (what a scan for the strictly highest
 * order would find first). */
static int more_recent(const void *a, const void *b)
{
    const struct recent *x = a, *y = b;
    if (x->order != y->order) return x->order > y->order ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void dyn_free(struct dyn_index *d)
{
    free(d->size), free(d->gstart), free(d->gmem), free(d->hstart), free(d->hmem);
    free(d->hpos), free(d->avail), free(d->newest);
}

/* Counts per bucket into start[0..n] as offsets (start[n] the total), for a counting sort. */
static void offsets(int *start, int n)
{
    for (int b = 0, at = 0; b <= n; b++) {
        int c = start[b];
        start[b] = at;
        at += c;
    }
}

/* Builds the index; -1 without memory. */
static int dyn_build(const struct xmpi_sched *s, struct dyn_index *d)
{
    int H = s->pool->nhosts, nd = 0, top = 0;
    memset(d, 0, sizeof *d);
    for (int i = 0; i < s->nprocs; i++)
        if (s->procs[i].group > 0) nd++, top = s->procs[i].group > top ? s->procs[i].group : top;
    d->ngroups = top + 1;
    struct recent *r = malloc(sizeof *r * ((size_t)nd + 1));
    d->size = calloc((size_t)top + 2, sizeof *d->size);
    d->gstart = calloc((size_t)top + 2, sizeof *d->gstart);
    d->gmem = malloc(sizeof *d->gmem * ((size_t)nd + 1));
    d->hstart = calloc((size_t)H + 1, sizeof *d->hstart);
    d->hmem = malloc(sizeof *d->hmem * ((size_t)nd + 1));
    d->hpos = calloc((size_t)H + 1, sizeof *d->hpos);
    d->avail = calloc((size_t)H + 1, sizeof *d->avail);
    d->newest = malloc(sizeof *d->newest * ((size_t)nd + 1));
    d->nd = nd;
    if (!r || !d->size || !d->gstart || !d->gmem || !d->hstart || !d->hmem || !d->hpos ||
        !d->avail || !d->newest) {
        free(r);
        dyn_free(d);
        return -1;
    }
    for (int i = 0, k = 0; i < s->nprocs; i++)
        if (s->procs[i].group > 0) r[k++] = (struct recent){s->procs[i].order, i};
    qsort(r, (size_t)nd, sizeof *r, more_recent);
    for (int k = 0; k < nd; k++) {
        const struct xmpi_proc *p = &s->procs[r[k].i];
        d->newest[k] = r[k].i;
        d->size[p->group]++, d->gstart[p->group]++, d->hstart[p->host]++, d->avail[p->host]++;
    }
    offsets(d->gstart, d->ngroups);
    offsets(d->hstart, H);
    memcpy(d->hpos, d->hstart, sizeof *d->hpos * (size_t)H);
    /* Filled most recent first, so every host's list keeps that order. */
    for (int k = 0; k < nd; k++) {
        const struct xmpi_proc *p = &s->procs[r[k].i];
        d->hmem[d->hpos[p->host]++] = r[k].i;
    }
    memcpy(d->hpos, d->hstart, sizeof *d->hpos * (size_t)H);
    int *at = malloc(sizeof *at * ((size_t)d->ngroups + 1));
    if (!at) {
        free(r);
        dyn_free(d);
        return -1;
    }
    memcpy(at, d->gstart, sizeof *at * (size_t)d->ngroups);
    for (int i = 0; i < s->nprocs; i++)
        if (s->procs[i].group > 0) d->gmem[at[s->procs[i].group]++] = i;
    free(at);
    free(r);
    return 0;
}

static void mark_group(const struct xmpi_sched *s, struct dyn_index *d, int group, char *picked,
                       int *taken_on)
{
    for (int k = d->gstart[group]; k < d->gstart[group + 1]; k++) {
        int i = d->gmem[k];
        if (picked[i]) continue;
        picked[i] = 1;
        d->avail[s->procs[i].host]--;
        if (taken_on) taken_on[s->procs[i].host]++;
    }
}

/* Whole groups from the most recent back; one too big for what is left is passed over,
 * since splitting it would break the communicator it was spawned with. */
static int pick_recent(const struct xmpi_sched *s, struct dyn_index *d, int n, char *picked,
                       char *err, size_t errlen)
{
    int need = n;
    char *seen = calloc((size_t)d->ngroups + 1, 1);
    if (!seen) {
        xmpi_text_error(err, errlen, "choosing %d processes to remove: out of memory", n);
        return XMPIR_SCHED_ENOMEM;
    }
    /* A group's first process in that order is its newest: the group is looked at there. */
    for (int k = 0; k < d->nd && need > 0; k++) {
        int g = s->procs[d->newest[k]].group;
        if (seen[g]) continue;
        seen[g] = 1;
        if (d->size[g] <= need) {
            need -= d->size[g];
            mark_group(s, d, g, picked, NULL);
        }
    }
    free(seen);
    if (need > 0) {
        xmpi_text_error(err, errlen,
               "cannot remove %d processes without splitting a group spawned together: "
               "taking whole groups from the most recent, %d remain that no group fits; "
               "expected a number that whole groups add up to",
               n, need);
        return XMPIR_SCHED_EGROUP;
    }
    return XMPIR_SCHED_OK;
}

/* The host a pick of class c takes from: one with a dynamic process of that class not picked
 * yet, the most loaded (balance-all) or the least (balance-occupied), counts net of this
 * request's picks; -1 when none. */
static int pick_host(const struct xmpi_sched *s, const struct dyn_index *d, const char *c,
                     const int *taken_on)
{
    const struct xmpi_pool *pool = s->pool;
    int best = -1;
    for (int h = 0; h < pool->nhosts; h++) {
        if (d->avail[h] == 0 || !host_matches(pool, h, c)) continue;
        int load = pool->hosts[h].procs - taken_on[h];
        int bload = best < 0 ? 0 : pool->hosts[best].procs - taken_on[best];
        if (best < 0 || (s->policy == XMPIR_SCHED_BALANCE_OCCUPIED ? load < bload
                                                                    : load > bload))
            best = h;
    }
    return best;
}

/* No host for pick done + 1 of class c: the sentence. */
static void no_host(const struct xmpi_sched *s, const char *c, int done, int n, char *err,
                    size_t errlen)
{
    int left = 0;
    for (int i = 0; i < s->nprocs; i++)
        left += s->procs[i].group > 0 && host_matches(s->pool, s->procs[i].host, c);
    char what[XMPIR_NAME_MAX + 16];
    if (c) snprintf(what, sizeof what, "class '%s'", c);
    else snprintf(what, sizeof what, "the pool");
    if (left == 0)
        xmpi_text_error(err, errlen,
               "cannot remove process %d of %d: %s holds no dynamic process of this "
               "job (initial processes never leave); expected removals only where "
               "processes were spawned",
               done + 1, n, what);
    else
        xmpi_text_error(err, errlen,
               "cannot remove process %d of %d: all %d dynamic processes in %s are "
               "already chosen by this request; expected at most %d there",
               done + 1, n, left, what, left);
}

static int pick_by_class(const struct xmpi_sched *s, struct dyn_index *d, char *const cls[],
                         int n, char *picked, char *err, size_t errlen)
{
    const struct xmpi_pool *pool = s->pool;
    int *taken_on = calloc((size_t)pool->nhosts + 1, sizeof *taken_on);
    if (!taken_on) {
        xmpi_text_error(err, errlen, "choosing %d processes to remove: out of memory", n);
        return XMPIR_SCHED_ENOMEM;
    }
    int rc = XMPIR_SCHED_OK, done = 0;
    while (done < n) {
        int best = pick_host(s, d, cls[done], taken_on);
        if (best < 0) {
            no_host(s, cls[done], done, n, err, errlen);
            rc = XMPIR_SCHED_ECOUNT;
            break;
        }
        /* The most recent process there not picked yet (a group marked whole may have taken
         * some of the host's list already). */
        while (picked[d->hmem[d->hpos[best]]]) d->hpos[best]++;
        int victim = d->hmem[d->hpos[best]];
        int g = s->procs[victim].group, size = d->size[g];
        if (done + size > n) {
            xmpi_text_error(err, errlen,
                   "cannot remove %d processes: the process chosen on host '%s' (rank %d) "
                   "was spawned in a group of %d that must leave whole, which makes %d; "
                   "expected a number that keeps groups whole",
                   n, pool->hosts[best].name, victim, size, done + size);
            rc = XMPIR_SCHED_EGROUP;
            break;
        }
        mark_group(s, d, g, picked, taken_on);
        done += size;
    }
    free(taken_on);
    return rc;
}

int xmpi_sched_pick_remove(const struct xmpi_sched *s, char *const cls[], int n, int *ranks,
                           char *err, size_t errlen)
{
    int removable = xmpi_sched_removable(s, NULL);
    if (n < 1 || n > removable) {
        xmpi_text_error(err, errlen,
               "removing %d processes is not accepted; expected 1 to %d (the job's dynamic "
               "processes; initial ones never leave)",
               n, removable);
        return XMPIR_SCHED_ECOUNT;
    }
    for (int k = 0; cls && k < n; k++)
        if (cls[k] && xmpi_pool_find_class(s->pool, cls[k]) < 0)
            return class_error(s->pool, cls[k], err, errlen);
    char *picked = calloc((size_t)s->nprocs, 1);
    if (!picked) {
        xmpi_text_error(err, errlen, "choosing %d processes to remove: out of memory", n);
        return XMPIR_SCHED_ENOMEM;
    }
    struct dyn_index d;
    if (dyn_build(s, &d)) {
        free(picked);
        xmpi_text_error(err, errlen, "choosing %d processes to remove: out of memory", n);
        return XMPIR_SCHED_ENOMEM;
    }
    int rc = cls ? pick_by_class(s, &d, cls, n, picked, err, errlen)
                 : pick_recent(s, &d, n, picked, err, errlen);
    dyn_free(&d);
    if (rc == XMPIR_SCHED_OK)
        for (int i = 0, k = 0; i < s->nprocs; i++)
            if (picked[i]) ranks[k++] = i;
    free(picked);
    return rc;
}

int xmpi_sched_remove(struct xmpi_sched *s, const int *ranks, int n)
{
    if (n < 1 || !ranks) return XMPIR_SCHED_ECOUNT;
    char *gone = calloc((size_t)s->nprocs, 1);
    if (!gone) return XMPIR_SCHED_ENOMEM;
    for (int k = 0; k < n; k++) {
        int r = ranks[k];
        if (r < 0 || r >= s->nprocs || gone[r] || s->procs[r].group <= 0) {
            free(gone);
            return XMPIR_SCHED_ECOUNT;
        }
        gone[r] = 1;
    }
    int j = 0;
    for (int i = 0; i < s->nprocs; i++) {
        if (gone[i]) s->pool->hosts[s->procs[i].host].procs--;
        else s->procs[j++] = s->procs[i];
    }
    s->nprocs = j;
    free(gone);
    return XMPIR_SCHED_OK;
}

int xmpi_sched_yield(int mode, int oversubscribe, const struct xmpi_pool *pool,
                     const char *host, int cores)
{
    if (mode == XMPIR_YIELD_ON) return 1;
    if (mode == XMPIR_YIELD_OFF) return 0;
    if (oversubscribe) return 1;
    return pool && host && xmpi_pool_host_pes(pool, host) > cores;
}
