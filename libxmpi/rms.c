/* The resource manager as the library sees it: which backend --xmpi-rms chose, the poll
 * behind XMPI_Get_system_status, and the write-back of what the job holds (to the state file,
 * or to the schedule's availability; Slurm's allocation is grown and shrunk in rms_slurm.c). */
#include "rms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/rms_state.h"
#include "../policies/malleability.h"
#include "context.h"
#include "rms_slurm.h"
#include "xmpi.h"

/* How long the job waits for the state file's lock (held by xmpi-rms, or by someone who
 * took it by hand): bounded, so that a forgotten `flock PATH.lock` cannot hang the job. */
#define LOCK_WAIT_S 10.0

static void say_waiting(void *arg, const char *lock, long holder, double seconds)
{
    char who[64] = "";
    if (holder > 0) snprintf(who, sizeof who, ", held by pid %ld", holder);
    xmpi_note(arg, 0, "waiting for the lock file %s of the resource manager's state%s (up to "
              "%g s)", lock, who, seconds);
}

static int update(struct xmpi_ctx *cx, int create,
                  int (*fn)(struct xmpi_rms_state *, void *, char *, size_t), void *arg,
                  char *err, size_t errlen)
{
    struct xmpi_rms_wait w = {LOCK_WAIT_S, say_waiting, cx};
    return xmpi_rms_update_wait(cx->rms.path, create, &w, fn, arg, err, errlen);
}

struct adopt_arg {
    const struct xmpi_sched *s;
};

/* The job starts holding exactly its initial processes; offers of an earlier job that no
 * longer fit are trimmed so the file keeps its invariants. */
static int adopt_initial(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen)
{
    const struct xmpi_sched *s = ((struct adopt_arg *)arg)->s;
    const struct xmpi_pool *pool = s->pool;
    for (int h = 0; h < pool->nhosts; h++) {
        const struct xmpi_host *ph = &pool->hosts[h];
        int e = xmpi_rms_state_find(st, ph->name, ph->cls);
        if (e < 0) {
            struct xmpi_rms_entry *grown = realloc(st->e, sizeof *grown * (size_t)(st->n + 1));
            if (!grown) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            st->e = grown;
            e = st->n++;
            memset(&st->e[e], 0, sizeof st->e[e]);
            snprintf(st->e[e].host, sizeof st->e[e].host, "%s", ph->name);
            snprintf(st->e[e].cls, sizeof st->e[e].cls, "%s", ph->cls);
            st->e[e].pes = ph->pes;
        }
        struct xmpi_rms_entry *en = &st->e[e];
        en->allocated = ph->procs;
        en->initial = ph->procs;   /* never leave: the operator's tool refuses to reclaim them */
        en->reclaim = 0;
        if (en->pes < en->allocated) en->pes = en->allocated;
        if (en->free > en->pes - en->allocated) en->free = en->pes - en->allocated;
    }
    return 0;
}

int xmpi_rms_start(struct xmpi_ctx *cx, char *err, size_t errlen)
{
    struct xmpi_rms *r = &cx->rms;
    const struct xmpi_sched *s = &cx->world.sched;
    const char *spec = cx->opts.rms;
    memset(r, 0, sizeof *r);
    if (!spec[0] || !strcmp(spec, "none")) return 0;
    if (!strcmp(spec, "slurm")) {
        r->kind = XMPIR_RMS_SLURM;
        if (xmpi_rms_slurm_start(cx, err, errlen)) {
            r->kind = XMPIR_RMS_NONE;
            return -1;
        }
        r->path = xmpi_rms_slurm_label(cx);
        return 0;
    }
    if (!strncmp(spec, "schedule:", 9)) {
        r->kind = XMPIR_RMS_SCHEDULE;
        r->path = spec + 9;
        if (xmpi_rms_schedule_load(&r->schedule, r->path, err, errlen)) return -1;
        /* A file is checked whole before any work: an event the job could never act on is a
         * mistake in the file, not something to discover at its iteration after hours. */
        int from_lines = xmpi_resize_possible(cx) ? XMPIR_SCHED_CHECK_RELAUNCH
                         : cx->opts.policy == XMPIR_POLICY_SMP ||
                               cx->opts.policy == XMPIR_POLICY_HPMP ? XMPIR_SCHED_CHECK_LINES
                         : XMPIR_SCHED_CHECK_ANY;
        if (xmpi_rms_schedule_check(&r->schedule, r->path, s->pool, cx->opts.oversubscribe,
                                    from_lines, err, errlen)) {
            xmpi_rms_schedule_free(&r->schedule);
            r->kind = XMPIR_RMS_NONE;
            return -1;
        }
        return 0;
    }
    r->kind = XMPIR_RMS_FILE;
    r->path = spec + 5;
    struct adopt_arg a = {s};
    return update(cx, 1, adopt_initial, &a, err, errlen);
}

struct change {
    const struct xmpi_pool *pool;
    const int *hosts;
    int n;
    int give;
};

static int apply_change(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen)
{
    const struct change *c = arg;
    for (int i = 0; i < c->n; i++) {
        const struct xmpi_host *h = &c->pool->hosts[c->hosts[i]];
        int e = xmpi_rms_state_find(st, h->name, h->cls);
        /* A job that oversubscribes holds more than the host's PEs: the file says so
         * rather than drop the record (as for the initial processes at start-up). */
        if (!c->give && e >= 0 && st->e[e].free + st->e[e].allocated >= st->e[e].pes)
            st->e[e].pes = st->e[e].free + st->e[e].allocated + 1;
        /* A low-level program may spawn without an offer: the file still tells the truth. */
        int rc = c->give ? xmpi_rms_give(st, h->name, h->cls, 1, err, errlen)
                         : xmpi_rms_take(st, h->name, h->cls, 1, 1, err, errlen);
        if (rc) return rc;
    }
    return 0;
}

static void write_back(struct xmpi_ctx *cx, const int *hosts, int n, int give)
{
    struct xmpi_rms *r = &cx->rms;
    const struct xmpi_pool *pool = &cx->world.pool;
    if (r->kind == XMPIR_RMS_SLURM) {
        if (give) xmpi_rms_slurm_removed(cx, hosts, n);
        return;
    }
    if (r->kind == XMPIR_RMS_SCHEDULE) {
        /* The schedule's availability follows what the job holds, as the state file does. */
        for (int i = 0; i < n; i++) {
            const char *cls = pool->hosts[hosts[i]].cls;
            if (give) xmpi_rms_schedule_gave(&r->schedule, cls, 1);
            else xmpi_rms_schedule_took(&r->schedule, cls, 1);
        }
        return;
    }
    if (r->kind != XMPIR_RMS_FILE || n <= 0) return;
    char err[512];
    struct change c = {pool, hosts, n, give};
    if (update(cx, 0, apply_change, &c, err, sizeof err))
        xmpi_note(cx, 0, "cannot record the %s in %s: %s", give ? "removal" : "spawn", r->path, err);
}

void xmpi_rms_spawned(struct xmpi_ctx *cx, const int *hosts, int n)
{
    write_back(cx, hosts, n, 0);
}

void xmpi_rms_removed(struct xmpi_ctx *cx, const int *hosts, int n)
{
    write_back(cx, hosts, n, 1);
}

void xmpi_rms_stop(struct xmpi_ctx *cx)
{
    if (cx->rms.kind == XMPIR_RMS_SCHEDULE) xmpi_rms_schedule_free(&cx->rms.schedule);
    xmpi_rms_slurm_stop(cx);
    cx->rms.kind = XMPIR_RMS_NONE;
}

int xmpi_rms_pool(struct xmpi_ctx *cx, struct xmpi_pool *pool, char *err, size_t errlen)
{
    if (strcmp(cx->opts.rms, "slurm")) return 1;
    return xmpi_rms_slurm_pool(cx, pool, err, errlen);
}

int xmpi_rms_acquire(struct xmpi_ctx *cx, char *const cls[], int n, char *why, size_t len)
{
    if (cx->rms.kind != XMPIR_RMS_SLURM) return XMPI_SUCCESS;
    return xmpi_rms_slurm_acquire(cx, cls, n, why, len);
}

int xmpi_rms_pick_remove(const struct xmpi_ctx *cx, char *const cls[], int n, int *ranks)
{
    if (cx->rms.kind != XMPIR_RMS_SLURM) return 0;
    return xmpi_rms_slurm_pick_remove(cx, cls, n, ranks);
}

/* Rank 0: how many of n processes of class cls can leave now, the initial ones never and a
 * group spawned together whole or not at all (the test XMPI_Remove makes). */
static int can_remove(const struct xmpi_ctx *cx, const char *cls, int n)
{
    if (!cx->world.have_sched || n < 1) return 0;
    const struct xmpi_sched *sc = &cx->world.sched;
    if (xmpi_resize_possible(cx)) {
        int have = xmpi_resize_removable(cx, cls);
        return n < have ? n : have;
    }
    int room = xmpi_sched_removable(sc, cls);
    if (n > room) n = room;
    if (n < 1) return 0;
    char **c = malloc(sizeof *c * (size_t)n);
    int *ranks = malloc(sizeof *ranks * (size_t)n);
    int k = 0;
    if (c && ranks) {
        for (int i = 0; i < n; i++) c[i] = (char *)cls;
        for (k = n; k > 0; k--)
            if (xmpi_sched_pick_remove(sc, c, k, ranks, NULL, 0) == XMPIR_SCHED_OK) break;
    }
    free(c);
    free(ranks);
    return k;
}

struct cap_reclaim {
    const char *cls;
    int keep;
};

/* The class's reclaim lowered to what the job can give back; the rest of it is cleared so it
 * is not asked again at every interval (the operator sees it gone in xmpi-rms status). */
static int cap_reclaim(struct xmpi_rms_state *st, void *arg, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct cap_reclaim *c = arg;
    long total = 0;
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->e[i].cls, c->cls)) total += st->e[i].reclaim;
    for (int i = st->n - 1; i >= 0 && total > c->keep; i--) {
        struct xmpi_rms_entry *x = &st->e[i];
        if (strcmp(x->cls, c->cls)) continue;
        int cut = total - c->keep < x->reclaim ? (int)(total - c->keep) : x->reclaim;
        x->reclaim -= cut;
        total -= cut;
    }
    return 0;
}

/* Rank 0: a shrink the resource manager asks for, cut to what the job can honour. Nothing the
 * operator's file says may fail the job (a program aborts on an error of XMPI_Remove or
 * XMPI_Eval_reconfig): it gives back what it can and says once what it could not, and why. */
static void honour_shrink(struct xmpi_ctx *cx, XMPI_System_status *st)
{
    struct xmpi_rms *r = &cx->rms;
    int asked = st->nprocs, k = can_remove(cx, st->node_class, asked);
    if (k >= asked) return;
    int spawned =
        cx->world.have_sched ? xmpi_sched_removable(&cx->world.sched, st->node_class) : 0;
    char why[160];
    if (spawned == 0)
        snprintf(why, sizeof why, "no process of that class may leave (the initial processes "
                 "never do)");
    else if (k < spawned)
        snprintf(why, sizeof why, "%d of its %d spawned process(es) may leave without splitting a "
                 "group spawned together (the initial processes never leave)", k, spawned);
    else
        snprintf(why, sizeof why, "only %d process(es) of that class were spawned (the initial "
                 "processes never leave)", spawned);
    char rest[200] = "";
    if (r->kind == XMPIR_RMS_FILE) {
        char uerr[512];
        struct cap_reclaim c = {st->node_class, k};
        if (update(cx, 0, cap_reclaim, &c, uerr, sizeof uerr))
            snprintf(rest, sizeof rest, "; the state could not be updated (%.150s)", uerr);
        else
            snprintf(rest, sizeof rest, k ? "; the other %d are cleared from the state"
                                           : "; the reclaim is cleared from the state",
                     asked - k);
    } else if (r->kind == XMPIR_RMS_SCHEDULE) {
        for (int i = 0; i < r->schedule.nav; i++)
            if (!strcmp(r->schedule.av[i].cls, st->node_class) && r->schedule.av[i].reclaim > k)
                r->schedule.av[i].reclaim = k;
    }
    xmpi_note(cx, 0, "the resource manager (%s) asks %d PE(s) of class '%s' back, but %s: "
              "%s%s; the job goes on", r->path, asked, st->node_class, why,
              k ? "giving back what it can" : "nothing given back", rest);
    if (k > 0) {
        st->nprocs = k;
    } else {
        st->action = XMPI_SYSTEM_NONE;
        st->nprocs = 0;
        st->node_class[0] = '\0';
    }
}

int xmpi_rms_poll(struct xmpi_ctx *cx, XMPI_System_status *st, char *err, size_t errlen)
{
    struct xmpi_rms *r = &cx->rms;
    *st = (XMPI_System_status){XMPI_SYSTEM_NONE, 0, ""};
    if (r->kind == XMPIR_RMS_SCHEDULE) {
        int act = xmpi_rms_schedule_poll(&r->schedule, cx->mon.iterations, &st->nprocs,
                                         st->node_class, sizeof st->node_class);
        st->action = act == XMPIR_RMS_ACT_SPAWN    ? XMPI_SYSTEM_SPAWN
                     : act == XMPIR_RMS_ACT_SHRINK ? XMPI_SYSTEM_SHRINK
                                                  : XMPI_SYSTEM_NONE;
    } else if (r->kind == XMPIR_RMS_FILE) {
        struct xmpi_rms_state s = {0};
        if (xmpi_rms_state_read(r->path, &s, err, errlen)) return XMPI_ERR_RMS;
        int act = xmpi_rms_state_action(&s, &st->nprocs, st->node_class, sizeof st->node_class);
        st->action = act == XMPIR_RMS_ACT_SPAWN    ? XMPI_SYSTEM_SPAWN
                     : act == XMPIR_RMS_ACT_SHRINK ? XMPI_SYSTEM_SHRINK
                                                  : XMPI_SYSTEM_NONE;
        xmpi_rms_state_free(&s);
    } else if (r->kind == XMPIR_RMS_SLURM) {
        int rc = xmpi_rms_slurm_poll(cx, st, err, errlen);
        if (rc) return rc;
    }
    if (st->action == XMPI_SYSTEM_SHRINK) honour_shrink(cx, st);
    return XMPI_SUCCESS;
}

int XMPI_Get_system_status(XMPI_System_status *status)
{
    struct xmpi_ctx *cx = xmpi_ctx;
    int rc = xmpi_ready(cx);
    if (rc) return rc;
    if (!status) return XMPI_ERR_ARG;
    XMPI_System_status st = {XMPI_SYSTEM_NONE, 0, ""};
    char err[512] = "";
    if (cx->rank == 0) rc = xmpi_rms_poll(cx, &st, err, sizeof err);
    PMPI_Bcast(&rc, 1, MPI_INT, 0, cx->comm);
    if (rc) {
        if (cx->rank == 0) xmpi_note(cx, 0, "XMPI_Get_system_status: %s", err);
        return rc;
    }
    PMPI_Bcast(&st, (int)sizeof st, MPI_BYTE, 0, cx->comm);
    *status = st;
    return XMPI_SUCCESS;
}
