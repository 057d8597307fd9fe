/* Shared by the test_scheduler_*.c suites (policies/scheduler.c): the cluster of the thesis'
 * figures and its job, pools from host tables, counts checked against the process table, a
 * byte copy of everything the scheduler could touch, and place/pick with the error buffer. */
#ifndef XMPIR_TESTS_UNIT_SCHED_UTIL_H
#define XMPIR_TESTS_UNIT_SCHED_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../policies/scheduler.h"
#include "errbuf.h"

struct hostdef {
    const char *name, *cls;
    int pes;
};

/* The cluster of the thesis' figures: three quad-core and two dual-core nodes. */
static const struct hostdef thesis_cluster[] = {
    {"Node0", "quad", 4}, {"Node1", "quad", 4}, {"Node2", "quad", 4},
    {"Node3", "dual", 2}, {"Node4", "dual", 2},
};
enum { NODE0, NODE1, NODE2, NODE3, NODE4, NTHESIS };

static inline void mkpool(struct xmpi_pool *p, const struct hostdef *d, int n)
{
    p->nhosts = n;
    p->hosts = calloc((size_t)n, sizeof *p->hosts);
    ck_assert_ptr_nonnull(p->hosts);
    for (int i = 0; i < n; i++) {
        snprintf(p->hosts[i].name, XMPIR_NAME_MAX, "%s", d[i].name);
        snprintf(p->hosts[i].cls, XMPIR_NAME_MAX, "%s", d[i].cls);
        p->hosts[i].pes = d[i].pes;
        p->hosts[i].cost = 1;
    }
}

static inline void init_ok(struct xmpi_sched *s, struct xmpi_pool *p, int policy, int over,
                           int n, char *const hostnames[], const char *initial)
{
    err[0] = '\0';
    int rc = xmpi_sched_init(s, p, policy, over, n, hostnames, initial, err, sizeof err);
    ck_assert_msg(rc == XMPIR_SCHED_OK, "init failed (%d): %s", rc, err);
}

/* The job of Figs 4.14/4.15: five processes, Node0:2, Node1:1, Node2:0, Node3:1, Node4:1. */
static inline void thesis_job(struct xmpi_sched *s, struct xmpi_pool *p, int policy, int over)
{
    static char *const hosts[] = {"Node0", "Node0", "Node1", "Node3", "Node4"};
    mkpool(p, thesis_cluster, NTHESIS);
    init_ok(s, p, policy, over, 5, hosts, NULL);
}

static inline void done(struct xmpi_sched *s, struct xmpi_pool *p)
{
    xmpi_sched_free(s);
    xmpi_pool_free(p);
}

/* Processes per host counted from the table, not from the scheduler's counters. */
static inline int recount(const struct xmpi_sched *s, int host)
{
    int c = 0;
    for (int i = 0; i < s->nprocs; i++) c += s->procs[i].host == host;
    return c;
}

static inline void assert_counts_match_table(const struct xmpi_sched *s)
{
    for (int h = 0; h < s->pool->nhosts; h++)
        ck_assert_msg(s->pool->hosts[h].procs == recount(s, h),
                      "host %d: counter %d, table %d", h, s->pool->hosts[h].procs,
                      recount(s, h));
}

static inline void assert_counts(const struct xmpi_sched *s, const int *want)
{
    for (int h = 0; h < s->pool->nhosts; h++)
        ck_assert_msg(s->pool->hosts[h].procs == want[h], "host %d: %d processes, want %d", h,
                      s->pool->hosts[h].procs, want[h]);
    assert_counts_match_table(s);
}

static inline void assert_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%d] = %d, want %d", what, i, got[i], want[i]);
}

/* A byte copy of everything the scheduler could touch, to prove an error changed nothing. */
struct snap {
    struct xmpi_sched s;
    struct xmpi_proc *procs;
    struct xmpi_pool pool;
    struct xmpi_host *hosts;
};

static inline void take_snap(struct snap *sn, const struct xmpi_sched *s)
{
    sn->s = *s;
    sn->pool = *s->pool;
    sn->procs = malloc(((size_t)s->nprocs + 1) * sizeof *sn->procs);
    sn->hosts = malloc(((size_t)s->pool->nhosts + 1) * sizeof *sn->hosts);
    ck_assert(sn->procs && sn->hosts);
    memcpy(sn->procs, s->procs, (size_t)s->nprocs * sizeof *sn->procs);
    memcpy(sn->hosts, s->pool->hosts, (size_t)s->pool->nhosts * sizeof *sn->hosts);
}

static inline void assert_snap(struct snap *sn, const struct xmpi_sched *s)
{
    ck_assert_msg(memcmp(&sn->s, s, sizeof *s) == 0, "scheduler struct changed");
    ck_assert_msg(memcmp(&sn->pool, s->pool, sizeof *s->pool) == 0, "pool struct changed");
    ck_assert_msg(memcmp(sn->procs, s->procs, (size_t)s->nprocs * sizeof *sn->procs) == 0,
                  "process table changed");
    ck_assert_msg(memcmp(sn->hosts, s->pool->hosts,
                         (size_t)s->pool->nhosts * sizeof *sn->hosts) == 0,
                  "pool hosts changed");
    free(sn->procs);
    free(sn->hosts);
}

static inline int place(const struct xmpi_sched *s, char *const cls[], int n, int *hosts)
{
    err[0] = '\0';
    return xmpi_sched_place(s, cls, n, hosts, err, sizeof err);
}

static inline int pick(const struct xmpi_sched *s, char *const cls[], int n, int *ranks)
{
    err[0] = '\0';
    return xmpi_sched_pick_remove(s, cls, n, ranks, err, sizeof err);
}

static inline void add_one(struct xmpi_sched *s, int host)
{
    ck_assert_int_eq(xmpi_sched_add(s, &host, 1, 0), XMPIR_SCHED_OK);
}

#endif
