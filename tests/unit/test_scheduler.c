/* libxmpi/scheduler.c: the FLEX-MPI examples of 4.4 (Figs 4.14-4.17), PE limits, errors that
 * leave the state untouched, whole groups, and a random sequence checked against a model. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../policies/scheduler.h"
#include "rng.h"
#include "suites.h"

static char err[1024];

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

static void mkpool(struct xmpi_pool *p, const struct hostdef *d, int n)
{
    p->nhosts = n;
    p->hosts = calloc((size_t)n, sizeof *p->hosts);
    ck_assert_ptr_nonnull(p->hosts);
    for (int i = 0; i < n; i++) {
        snprintf(p->hosts[i].name, XMPI_NAME_MAX, "%s", d[i].name);
        snprintf(p->hosts[i].cls, XMPI_NAME_MAX, "%s", d[i].cls);
        p->hosts[i].pes = d[i].pes;
        p->hosts[i].cost = 1;
    }
}

static void init_ok(struct xmpi_sched *s, struct xmpi_pool *p, int policy, int over, int n,
                    char *const hostnames[], const char *initial)
{
    err[0] = '\0';
    int rc = xmpi_sched_init(s, p, policy, over, n, hostnames, initial, err, sizeof err);
    ck_assert_msg(rc == XMPI_SCHED_OK, "init failed (%d): %s", rc, err);
}

/* The job of Figs 4.14/4.15: five processes, Node0:2, Node1:1, Node2:0, Node3:1, Node4:1. */
static void thesis_job(struct xmpi_sched *s, struct xmpi_pool *p, int policy, int over)
{
    static char *const hosts[] = {"Node0", "Node0", "Node1", "Node3", "Node4"};
    mkpool(p, thesis_cluster, NTHESIS);
    init_ok(s, p, policy, over, 5, hosts, NULL);
}

static void done(struct xmpi_sched *s, struct xmpi_pool *p)
{
    xmpi_sched_free(s);
    xmpi_pool_free(p);
}

/* Processes per host counted from the table, not from the scheduler's counters. */
static int recount(const struct xmpi_sched *s, int host)
{
    int c = 0;
    for (int i = 0; i < s->nprocs; i++) c += s->procs[i].host == host;
    return c;
}

static void assert_counts_match_table(const struct xmpi_sched *s)
{
    for (int h = 0; h < s->pool->nhosts; h++)
        ck_assert_msg(s->pool->hosts[h].procs == recount(s, h),
                      "host %d: counter %d, table %d", h, s->pool->hosts[h].procs,
                      recount(s, h));
}

static void assert_counts(const struct xmpi_sched *s, const int *want)
{
    for (int h = 0; h < s->pool->nhosts; h++)
        ck_assert_msg(s->pool->hosts[h].procs == want[h], "host %d: %d processes, want %d", h,
                      s->pool->hosts[h].procs, want[h]);
    assert_counts_match_table(s);
}

static void assert_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%d] = %d, want %d", what, i, got[i], want[i]);
}

static void assert_err_has(const char *needle)
{
    ck_assert_msg(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

/* A byte copy of everything the scheduler could touch, to prove an error changed nothing. */
struct snap {
    struct xmpi_sched s;
    struct xmpi_proc *procs;
    struct xmpi_pool pool;
    struct xmpi_host *hosts;
};

static void take_snap(struct snap *sn, const struct xmpi_sched *s)
{
    sn->s = *s;
    sn->pool = *s->pool;
    sn->procs = malloc(((size_t)s->nprocs + 1) * sizeof *sn->procs);
    sn->hosts = malloc(((size_t)s->pool->nhosts + 1) * sizeof *sn->hosts);
    ck_assert(sn->procs && sn->hosts);
    memcpy(sn->procs, s->procs, (size_t)s->nprocs * sizeof *sn->procs);
    memcpy(sn->hosts, s->pool->hosts, (size_t)s->pool->nhosts * sizeof *sn->hosts);
}

static void assert_snap(struct snap *sn, const struct xmpi_sched *s)
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

static int place(const struct xmpi_sched *s, char *const cls[], int n, int *hosts)
{
    err[0] = '\0';
    return xmpi_sched_place(s, cls, n, hosts, err, sizeof err);
}

static int pick(const struct xmpi_sched *s, char *const cls[], int n, int *ranks)
{
    err[0] = '\0';
    return xmpi_sched_pick_remove(s, cls, n, ranks, err, sizeof err);
}

static void add_one(struct xmpi_sched *s, int host)
{
    ck_assert_int_eq(xmpi_sched_add(s, &host, 1, 0), XMPI_SCHED_OK);
}

/* ---- the thesis examples, reconstructed from the text of 4.4.1 and 4.4.2 ---- */

START_TEST(test_thesis_fig_4_14_spawn_balance_all)
{
    /* Fig 4.14: one new quad process goes to Node2, the quad node with fewest. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    char *cls[] = {"quad"};
    int h = -1;
    ck_assert_msg(place(&s, cls, 1, &h) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(h, NODE2);
    done(&s, &p);
}
END_TEST

START_TEST(test_thesis_fig_4_15_spawn_balance_occupied)
{
    /* Fig 4.15: it goes to Node1, balancing only the quad nodes already in use. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED, 0);
    char *cls[] = {"quad"};
    int h = -1;
    ck_assert_msg(place(&s, cls, 1, &h) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(h, NODE1);
    done(&s, &p);
}
END_TEST

/* Figs 4.16/4.17: dual nodes where Node3 holds two dynamic processes and Node4 one
 * (initial processes on quad nodes). Returns the ranks: Node3 gets 3 and 5, Node4 4. */
static void thesis_removal_job(struct xmpi_sched *s, struct xmpi_pool *p, int policy)
{
    static char *const hosts[] = {"Node0", "Node0", "Node1"};
    mkpool(p, thesis_cluster, NTHESIS);
    init_ok(s, p, policy, 0, 3, hosts, NULL);
    add_one(s, NODE3);
    add_one(s, NODE4);
    add_one(s, NODE3);
    assert_counts(s, (const int[]){2, 1, 0, 2, 1});
}

START_TEST(test_thesis_fig_4_16_remove_balance_all)
{
    /* Fig 4.16: the dual process leaves Node3, evening out the dual nodes. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_removal_job(&s, &p, XMPI_SCHED_BALANCE_ALL);
    char *cls[] = {"dual"};
    int r = -1;
    ck_assert_msg(pick(&s, cls, 1, &r) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(s.procs[r].host, NODE3);
    ck_assert_int_eq(r, 5);   /* the more recent of Node3's two */
    ck_assert_int_eq(xmpi_sched_remove(&s, &r, 1), XMPI_SCHED_OK);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    done(&s, &p);
}
END_TEST

START_TEST(test_thesis_fig_4_17_remove_balance_occupied)
{
    /* Fig 4.17: it leaves Node4 instead, so that the job uses one node less. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_removal_job(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED);
    char *cls[] = {"dual"};
    int r = -1;
    ck_assert_msg(pick(&s, cls, 1, &r) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(r, 4);
    ck_assert_int_eq(xmpi_sched_remove(&s, &r, 1), XMPI_SCHED_OK);
    assert_counts(&s, (const int[]){2, 1, 0, 2, 0});
    done(&s, &p);
}
END_TEST

/* ---- placement sequences, worked out by hand from the policy definitions ---- */

START_TEST(test_place_sequences)
{
    /* From Node0..2 = 2,1,0: balance-all always tops up the least loaded quad node. */
    static const int all9[] = {NODE2, NODE1, NODE2, NODE0, NODE1, NODE2, NODE0, NODE1, NODE2};
    /* Balance-occupied fills Node0 and Node1 before it opens Node2. */
    static const int occ9[] = {NODE1, NODE0, NODE1, NODE0, NODE1, NODE2, NODE2, NODE2, NODE2};
    char *cls[9];
    for (int i = 0; i < 9; i++) cls[i] = "quad";
    for (int pol = 0; pol < 2; pol++) {
        struct xmpi_pool p;
        struct xmpi_sched s;
        thesis_job(&s, &p, pol, 0);
        struct snap sn;
        take_snap(&sn, &s);
        int h[9];
        ck_assert_msg(place(&s, cls, 9, h) == XMPI_SCHED_OK, "%s", err);
        assert_ints(h, pol == XMPI_SCHED_BALANCE_ALL ? all9 : occ9, 9, "hosts");
        assert_snap(&sn, &s);   /* placing only proposes */
        done(&s, &p);
    }
}
END_TEST

START_TEST(test_place_mixed_classes)
{
    /* dual: Node3 and Node4 tie at 1, the first wins; quad: Node2 is empty; any class:
     * Node1, Node2 and Node4 tie at 1 with Node3 now full, Node1 comes first. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    char *cls[] = {"dual", "quad", NULL};
    int h[3];
    ck_assert_msg(place(&s, cls, 3, h) == XMPI_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){NODE3, NODE2, NODE1}, 3, "hosts");
    /* cls NULL: every process may go anywhere; 11 PEs are free in all. */
    int all[11];
    ck_assert_msg(place(&s, NULL, 11, all) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(place(&s, NULL, 12, all), XMPI_SCHED_ENOPE);
    done(&s, &p);
}
END_TEST

START_TEST(test_occupied_opens_first_empty)
{
    /* With every used node full, balance-occupied takes the first empty one in pool
     * order (e1 before e2 here), not the least loaded or the last. */
    static const struct hostdef d[] = {
        {"a", "c", 1}, {"b", "c", 2}, {"e1", "c", 8}, {"e2", "c", 1},
    };
    static char *const hosts[] = {"a", "b", "b"};
    struct xmpi_pool p;
    struct xmpi_sched s;
    mkpool(&p, d, 4);
    init_ok(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED, 0, 3, hosts, NULL);
    int h[3];
    ck_assert_msg(place(&s, NULL, 3, h) == XMPI_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){2, 2, 2}, 3, "hosts");
    done(&s, &p);
}
END_TEST

/* ---- PE limits ---- */

static int free_pes(const struct hostdef *d, int n, const int *initial, const char *cls)
{
    int f = 0;
    for (int i = 0; i < n; i++)
        if (!cls || strcmp(d[i].cls, cls) == 0) f += d[i].pes - initial[i];
    return f;
}

START_TEST(test_place_never_exceeds_pes)
{
    static const int initial[] = {2, 1, 0, 1, 1};
    char *classes[] = {"quad", "dual", NULL};
    for (int pol = 0; pol < 2; pol++)
        for (int c = 0; c < 3; c++) {
            struct xmpi_pool p;
            struct xmpi_sched s;
            thesis_job(&s, &p, pol, 0);
            int room = free_pes(thesis_cluster, NTHESIS, initial, classes[c]);
            /* All at once: exactly the free PEs fit, one more does not. */
            int *h = malloc((size_t)(room + 1) * sizeof *h);
            char **cls = malloc((size_t)(room + 1) * sizeof *cls);
            for (int i = 0; i <= room; i++) cls[i] = classes[c];
            ck_assert_int_eq(place(&s, cls, room + 1, h), XMPI_SCHED_ENOPE);
            ck_assert_msg(place(&s, cls, room, h) == XMPI_SCHED_OK, "%s", err);
            int per[NTHESIS] = {0};
            for (int i = 0; i < room; i++) per[h[i]]++;
            for (int i = 0; i < NTHESIS; i++) {
                ck_assert_int_le(initial[i] + per[i], thesis_cluster[i].pes);
                if (classes[c] && strcmp(thesis_cluster[i].cls, classes[c]) != 0)
                    ck_assert_int_eq(per[i], 0);
            }
            /* One at a time, committing each: the same number fits. */
            int placed = 0;
            for (;;) {
                int one;
                int rc = place(&s, cls, 1, &one);
                if (rc == XMPI_SCHED_ENOPE) break;
                ck_assert_msg(rc == XMPI_SCHED_OK, "%s", err);
                ck_assert_int_eq(xmpi_sched_add(&s, &one, 1, 0), XMPI_SCHED_OK);
                ck_assert_int_le(placed++, room);
            }
            ck_assert_int_eq(placed, room);
            for (int i = 0; i < NTHESIS; i++)
                ck_assert_int_le(p.hosts[i].procs, p.hosts[i].pes);
            assert_counts_match_table(&s);
            free(h);
            free(cls);
            done(&s, &p);
        }
}
END_TEST

START_TEST(test_oversubscribe)
{
    /* a (4 PEs) and b (2 PEs) both full: the excess goes by procs/PEs, a first on the
     * tie at 1, then b (1 < 5/4), then a (5/4 < 3/2). */
    static const struct hostdef d[] = {{"a", "c", 4}, {"b", "c", 2}};
    static char *const full[] = {"a", "a", "a", "a", "b", "b"};
    struct xmpi_pool p;
    struct xmpi_sched s;
    mkpool(&p, d, 2);
    init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 1, 6, full, NULL);
    int h[3];
    ck_assert_msg(place(&s, NULL, 3, h) == XMPI_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){0, 1, 0}, 3, "hosts");
    ck_assert_int_eq(xmpi_sched_add(&s, h, 3, 1), XMPI_SCHED_OK);
    assert_counts(&s, (const int[]){6, 3});
    done(&s, &p);

    /* Without it, the same request is refused. */
    mkpool(&p, d, 2);
    init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, 6, full, NULL);
    ck_assert_int_eq(place(&s, NULL, 3, h), XMPI_SCHED_ENOPE);
    done(&s, &p);

    /* While a PE is free, oversubscription changes nothing: a has 3 free PEs, b 2. */
    static char *const one[] = {"a"};
    for (int pol = 0; pol < 2; pol++) {
        int hs[2][5];
        for (int over = 0; over < 2; over++) {
            mkpool(&p, d, 2);
            init_ok(&s, &p, pol, over, 1, one, NULL);
            ck_assert_msg(place(&s, NULL, 5, hs[over]) == XMPI_SCHED_OK, "%s", err);
            done(&s, &p);
        }
        assert_ints(hs[1], hs[0], 5, "hosts with oversubscription");
    }
}
END_TEST

/* ---- errors leave everything unchanged ---- */

START_TEST(test_enope_unchanged)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    char *cls[] = {"dual", "dual", "dual"};
    int h[3] = {-7, -7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 3, h), XMPI_SCHED_ENOPE);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7, -7}, 3, "hosts");
    assert_err_has("'dual'");
    assert_err_has("4 PEs");
    assert_err_has("already uses 2");

    /* Filled up by committed processes, even one is refused. */
    int two[2] = {NODE3, NODE4};
    ck_assert_int_eq(xmpi_sched_add(&s, two, 2, 0), XMPI_SCHED_OK);
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 1, h), XMPI_SCHED_ENOPE);
    assert_snap(&sn, &s);
    assert_err_has("'dual'");
    assert_err_has("4 PEs");
    assert_err_has("already uses 4");
    ck_assert_int_eq(h[0], -7);
    done(&s, &p);
}
END_TEST

START_TEST(test_eclass_unchanged)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED, 0);
    add_one(&s, NODE2);
    char *cls[] = {"quad", "tri"};
    int h[2] = {-7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 2, h), XMPI_SCHED_ECLASS);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7}, 2, "hosts");
    assert_err_has("'tri'");
    assert_err_has("quad, dual");

    char *rcls[] = {"Quad"};
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, rcls, 1, h), XMPI_SCHED_ECLASS);
    assert_snap(&sn, &s);
    ck_assert_int_eq(h[0], -7);
    assert_err_has("'Quad'");
    assert_err_has("quad, dual");
    done(&s, &p);
}
END_TEST

START_TEST(test_ecount)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    int h[4] = {-7, -7, -7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, NULL, 0, h), XMPI_SCHED_ECOUNT);
    ck_assert_int_eq(place(&s, NULL, -1, h), XMPI_SCHED_ECOUNT);
    ck_assert_int_eq(pick(&s, NULL, 0, h), XMPI_SCHED_ECOUNT);
    ck_assert_int_eq(xmpi_sched_add(&s, h, 0, 0), XMPI_SCHED_ECOUNT);
    int bad_host[] = {NTHESIS};
    ck_assert_int_eq(xmpi_sched_add(&s, bad_host, 1, 0), XMPI_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7, -7, -7}, 4, "out");
    done(&s, &p);
}
END_TEST

/* ---- add ---- */

START_TEST(test_add_groups_and_order)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(s.procs[i].group, 0);
        ck_assert_int_eq(s.procs[i].order, 0);
    }
    int g3[] = {NODE2, NODE2, NODE1};
    int g2[] = {NODE4, NODE0};
    ck_assert_int_eq(xmpi_sched_add(&s, g3, 3, 1), XMPI_SCHED_OK);
    ck_assert_int_eq(xmpi_sched_add(&s, g2, 2, 0), XMPI_SCHED_OK);
    ck_assert_int_eq(s.nprocs, 10);
    const struct xmpi_proc *q = s.procs;
    ck_assert_int_eq(q[5].host, NODE2);
    ck_assert_int_eq(q[7].host, NODE1);
    ck_assert_int_eq(q[9].host, NODE0);
    ck_assert_int_gt(q[5].group, 0);
    ck_assert_int_eq(q[6].group, q[5].group);
    ck_assert_int_eq(q[7].group, q[5].group);
    ck_assert_int_gt(q[8].group, 0);
    ck_assert_int_gt(q[9].group, 0);
    ck_assert_int_ne(q[8].group, q[5].group);
    ck_assert_int_ne(q[9].group, q[5].group);
    ck_assert_int_ne(q[8].group, q[9].group);
    for (int i = 5; i < 10; i++) ck_assert_int_gt(q[i].order, i == 5 ? 0 : q[i - 1].order);
    assert_counts(&s, (const int[]){3, 2, 2, 1, 2});
    ck_assert_int_eq(xmpi_sched_removable(&s), 5);
    done(&s, &p);
}
END_TEST

/* ---- removal ---- */

START_TEST(test_initial_never_picked)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    int r[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
    ck_assert_int_eq(xmpi_sched_removable(&s), 0);
    char *any[] = {NULL};
    ck_assert_int_eq(pick(&s, NULL, 1, r), XMPI_SCHED_ECOUNT);
    ck_assert_int_eq(pick(&s, any, 1, r), XMPI_SCHED_ECOUNT);
    ck_assert_int_eq(r[0], -7);

    /* Dynamic processes on dual nodes only; quad nodes hold initial ones. */
    add_one(&s, NODE3);
    add_one(&s, NODE4);
    char *quad[] = {"quad"};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, quad, 1, r), XMPI_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    assert_err_has("'quad'");
    ck_assert_int_eq(pick(&s, NULL, 3, r), XMPI_SCHED_ECOUNT);
    assert_err_has("1 to 2");

    /* Every policy, with and without classes: only ranks 5 and 6 ever come back. */
    char *two_any[] = {NULL, NULL};
    char *mixed[] = {"dual", NULL};
    for (int pol = 0; pol < 2; pol++) {
        s.policy = pol;
        char **lists[] = {NULL, two_any, mixed};
        for (int l = 0; l < 3; l++) {
            ck_assert_msg(pick(&s, lists[l], 2, r) == XMPI_SCHED_OK, "%s", err);
            assert_ints(r, (const int[]){5, 6}, 2, "ranks");
        }
    }
    int init_rank = 2;
    take_snap(&sn, &s);
    ck_assert_int_eq(xmpi_sched_remove(&s, &init_rank, 1), XMPI_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    done(&s, &p);
}
END_TEST

START_TEST(test_most_recent_first)
{
    /* Without classes the latest spawned leave first, whatever their hosts. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED, 0);
    add_one(&s, NODE2);   /* rank 5 */
    add_one(&s, NODE0);   /* rank 6 */
    add_one(&s, NODE2);   /* rank 7 */
    int r[3];
    ck_assert_msg(pick(&s, NULL, 1, r) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(r[0], 7);
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){6, 7}, 2, "ranks");
    /* After rank 6 leaves, the old rank 7 is rank 6 and a new one is rank 7. */
    int six = 6;
    ck_assert_int_eq(xmpi_sched_remove(&s, &six, 1), XMPI_SCHED_OK);
    add_one(&s, NODE1);
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){6, 7}, 2, "ranks");
    ck_assert_int_eq(s.procs[6].host, NODE2);
    ck_assert_int_eq(s.procs[7].host, NODE1);
    ck_assert_msg(pick(&s, NULL, 3, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){5, 6, 7}, 3, "ranks");
    done(&s, &p);
}
END_TEST

/* Initial ranks 0-2; B single on Node3 (3), G a group of three on the quads (4-6),
 * C single on Node4 (7). */
static void group_job(struct xmpi_sched *s, struct xmpi_pool *p, int policy)
{
    static char *const hosts[] = {"Node0", "Node0", "Node1"};
    mkpool(p, thesis_cluster, NTHESIS);
    init_ok(s, p, policy, 0, 3, hosts, NULL);
    add_one(s, NODE3);
    int g[] = {NODE0, NODE1, NODE2};
    ck_assert_int_eq(xmpi_sched_add(s, g, 3, 1), XMPI_SCHED_OK);
    add_one(s, NODE4);
}

START_TEST(test_groups_leave_whole)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    group_job(&s, &p, XMPI_SCHED_BALANCE_ALL);
    int r[5] = {-7, -7, -7, -7, -7};
    /* n=2: C, then G (3) is too big for the 1 left and is passed over for B. */
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 7}, 2, "ranks");
    ck_assert_msg(pick(&s, NULL, 4, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5, 6, 7}, 4, "ranks");
    ck_assert_msg(pick(&s, NULL, 5, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 4, 5, 6, 7}, 5, "ranks");
    /* n=3: C and B leave 1 that G cannot give without splitting. */
    struct snap sn;
    take_snap(&sn, &s);
    r[0] = -7;
    ck_assert_int_eq(pick(&s, NULL, 3, r), XMPI_SCHED_EGROUP);
    ck_assert_int_eq(r[0], -7);
    assert_snap(&sn, &s);

    /* By class: any quad process belongs to G, so one quad process cannot leave... */
    char *quad1[] = {"quad"};
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, quad1, 1, r), XMPI_SCHED_EGROUP);
    assert_snap(&sn, &s);
    ck_assert_int_eq(r[0], -7);
    /* ...but three can, and G counts for all three entries. */
    char *quad3[] = {"quad", "quad", "quad"};
    ck_assert_msg(pick(&s, quad3, 3, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5, 6}, 3, "ranks");
    /* Balance-all picks Node0 (3 processes) for a class-free entry: G again, which
     * covers three entries; the last one, dual, takes B on Node3. */
    char *any4[] = {NULL, "dual", "dual", "dual"};
    ck_assert_msg(pick(&s, any4, 4, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 4, 5, 6}, 4, "ranks");
    /* A single dual process leaves alone. */
    char *dual1[] = {"dual"};
    ck_assert_msg(pick(&s, dual1, 1, r) == XMPI_SCHED_OK, "%s", err);
    ck_assert_int_eq(r[0], 3);   /* Node3 and Node4 tie at 1: the first host */
    done(&s, &p);
}
END_TEST

START_TEST(test_pick_keeps_balancing)
{
    /* Balance-all over several picks counts the ones already chosen: y (index 0) has 2
     * dynamic processes, x 3; the first pick takes x's latest, leaving 2 and 2, so the
     * second goes to y (first on the tie) rather than to x again. */
    static const struct hostdef d[] = {{"y", "c", 4}, {"x", "c", 4}, {"z", "o", 1}};
    static char *const hosts[] = {"z"};
    struct xmpi_pool p;
    struct xmpi_sched s;
    mkpool(&p, d, 3);
    init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, 1, hosts, NULL);
    static const int spawn[] = {1, 0, 1, 0, 1};   /* ranks 1-5 */
    for (int i = 0; i < 5; i++) add_one(&s, spawn[i]);
    char *cls[] = {"c", "c"};
    int r[2];
    ck_assert_msg(pick(&s, cls, 2, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5}, 2, "ranks");
    /* Balance-occupied empties y first: its latest two. */
    s.policy = XMPI_SCHED_BALANCE_OCCUPIED;
    ck_assert_msg(pick(&s, cls, 2, r) == XMPI_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){2, 4}, 2, "ranks");
    done(&s, &p);
}
END_TEST

START_TEST(test_remove_compacts)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    static char *const hosts[] = {"Node0", "Node0", "Node1"};
    mkpool(&p, thesis_cluster, NTHESIS);
    init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, 3, hosts, NULL);
    add_one(&s, NODE3);   /* 3 */
    add_one(&s, NODE4);   /* 4 */
    add_one(&s, NODE2);   /* 5 */
    add_one(&s, NODE3);   /* 6 */
    long order4 = s.procs[4].order, order6 = s.procs[6].order;
    int gone[] = {5, 3};   /* any order */
    ck_assert_int_eq(xmpi_sched_remove(&s, gone, 2), XMPI_SCHED_OK);
    ck_assert_int_eq(s.nprocs, 5);
    static const int want_host[] = {NODE0, NODE0, NODE1, NODE4, NODE3};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(s.procs[i].host, want_host[i]);
    ck_assert_int_eq(s.procs[3].order, order4);
    ck_assert_int_eq(s.procs[4].order, order6);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    ck_assert_int_eq(xmpi_sched_removable(&s), 2);
    done(&s, &p);
}
END_TEST

START_TEST(test_remove_rejects)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPI_SCHED_BALANCE_ALL, 0);
    add_one(&s, NODE2);   /* 5 */
    add_one(&s, NODE2);   /* 6 */
    static const int lists[][2] = {{-1, 5}, {5, 7}, {6, 6}, {0, 5}, {5, 4}, {100, 6}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        struct snap sn;
        take_snap(&sn, &s);
        ck_assert_msg(xmpi_sched_remove(&s, lists[i], 2) == XMPI_SCHED_ECOUNT,
                      "list %zu accepted", i);
        assert_snap(&sn, &s);
    }
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(xmpi_sched_remove(&s, lists[0], 0), XMPI_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    done(&s, &p);
}
END_TEST

/* ---- a long random sequence against a model kept here ---- */

#define MAXP 64

struct model {
    int n, ninit;
    int host[MAXP];
    int batch[MAXP];   /* 0 initial; spawns in one group share a batch */
};

static void model_check(const struct model *m, const struct xmpi_sched *s)
{
    ck_assert_int_eq(s->nprocs, m->n);
    int dyn = 0;
    for (int i = 0; i < m->n; i++) {
        ck_assert_int_eq(s->procs[i].host, m->host[i]);
        ck_assert_int_eq(s->procs[i].group == 0, m->batch[i] == 0);
        dyn += m->batch[i] != 0;
        for (int j = 0; j < i; j++)
            ck_assert_int_eq(s->procs[i].group == s->procs[j].group,
                             m->batch[i] == m->batch[j]);
        /* Dynamic ranks stay in spawn order, since new ones are appended. */
        if (i > 0 && m->batch[i] && m->batch[i - 1])
            ck_assert_int_gt(s->procs[i].order, s->procs[i - 1].order);
    }
    ck_assert_int_eq(xmpi_sched_removable(s), dyn);
    for (int h = 0; h < s->pool->nhosts; h++) {
        int c = 0;
        for (int i = 0; i < m->n; i++) c += m->host[i] == h;
        ck_assert_int_eq(s->pool->hosts[h].procs, c);
        ck_assert_int_le(c, s->pool->hosts[h].pes);
    }
}

START_TEST(test_random_sequence)
{
    uint64_t seed = 0x5eed0000ULL + (uint64_t)_i;
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, _i, 0);
    struct model m = {.n = 5, .ninit = 5, .host = {0, 0, 1, 3, 4}};
    int next_batch = 1;
    char *names[] = {NULL, "quad", "dual"};
    int nplace = 0, nremove = 0;
    model_check(&m, &s);
    for (int step = 0; step < 400; step++) {
        int op = (int)(rng_next(&seed) % 3);
        int n = 1 + (int)(rng_next(&seed) % 4);
        int use_cls = (int)(rng_next(&seed) % 2);
        char *cls[4];
        for (int k = 0; k < 4; k++) cls[k] = names[rng_next(&seed) % 3];
        struct snap sn;
        take_snap(&sn, &s);
        if (op == 0) {
            int h[4];
            int rc = place(&s, use_cls ? cls : NULL, n, h);
            assert_snap(&sn, &s);
            if (rc == XMPI_SCHED_ENOPE) continue;
            ck_assert_msg(rc == XMPI_SCHED_OK, "step %d: %s", step, err);
            int group = (int)(rng_next(&seed) % 2);
            ck_assert_int_eq(xmpi_sched_add(&s, h, n, group), XMPI_SCHED_OK);
            for (int k = 0; k < n; k++) {
                m.host[m.n] = h[k];
                m.batch[m.n++] = group ? next_batch : next_batch + k;
            }
            next_batch += group ? 1 : n;
            nplace++;
        } else if (op == 1) {
            int r[4] = {-1, -1, -1, -1};
            int rc = pick(&s, use_cls ? cls : NULL, n, r);
            assert_snap(&sn, &s);
            if (rc == XMPI_SCHED_ECOUNT || rc == XMPI_SCHED_EGROUP) continue;
            ck_assert_msg(rc == XMPI_SCHED_OK, "step %d: %s", step, err);
            char out[MAXP] = {0};
            for (int k = 0; k < n; k++) {
                ck_assert_int_ge(r[k], m.ninit);
                ck_assert_int_lt(r[k], m.n);
                if (k) ck_assert_int_gt(r[k], r[k - 1]);
                out[r[k]] = 1;
            }
            /* Whole batches only. */
            for (int i = 0; i < m.n; i++)
                for (int j = 0; j < m.n; j++)
                    if (m.batch[i] && m.batch[i] == m.batch[j])
                        ck_assert_int_eq(out[i], out[j]);
            ck_assert_int_eq(xmpi_sched_remove(&s, r, n), XMPI_SCHED_OK);
            int j = 0;
            for (int i = 0; i < m.n; i++)
                if (!out[i]) {
                    m.host[j] = m.host[i];
                    m.batch[j++] = m.batch[i];
                }
            m.n = j;
            nremove++;
        } else {
            /* An invalid list: an initial rank or one past the end, after a valid one. */
            int r[2] = {m.n - 1, (n & 1) ? (int)(rng_next(&seed) % 5) : m.n};
            ck_assert_int_eq(xmpi_sched_remove(&s, r, 2), XMPI_SCHED_ECOUNT);
            assert_snap(&sn, &s);
        }
        model_check(&m, &s);
    }
    /* The sequence must have done real work both ways, or it proved little. */
    ck_assert_int_gt(nplace, 30);
    ck_assert_int_gt(nremove, 30);
    done(&s, &p);
}
END_TEST

/* ---- initial placement ---- */

static const struct hostdef init_cluster[] = {
    {"n0", "quad", 4}, {"n1", "quad", 4}, {"n1", "gpu", 1}, {"n2", "dual", 2},
};

START_TEST(test_init_spec)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    static char *const hosts[] = {"n0", "n0", "n1", "n1", "n2"};
    static const char *const specs[] = {"quad:3,gpu:1,dual:1", " quad : 3 , gpu:1,dual:1 ",
                                        "quad:1,quad:2,gpu:1,dual:1"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        mkpool(&p, init_cluster, 4);
        init_ok(&s, &p, XMPI_SCHED_BALANCE_OCCUPIED, 1, 5, hosts, specs[k]);
        ck_assert_int_eq(s.nprocs, 5);
        ck_assert_int_eq(s.policy, XMPI_SCHED_BALANCE_OCCUPIED);
        ck_assert_int_eq(s.oversubscribe, 1);
        ck_assert_ptr_eq(s.pool, &p);
        ck_assert_int_eq(s.next_group, 1);
        ck_assert_int_eq(s.next_order, 1);
        static const int want[] = {0, 0, 1, 2, 3};
        for (int i = 0; i < 5; i++) {
            ck_assert_int_eq(s.procs[i].host, want[i]);
            ck_assert_int_eq(s.procs[i].group, 0);
            ck_assert_int_eq(s.procs[i].order, 0);
        }
        assert_counts(&s, (const int[]){2, 1, 1, 1});
        done(&s, &p);
    }
    /* Counts left in the pool by an earlier job do not carry over. */
    mkpool(&p, init_cluster, 4);
    for (int h = 0; h < 4; h++) p.hosts[h].procs = 3;
    init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, 5, hosts, specs[0]);
    assert_counts(&s, (const int[]){2, 1, 1, 1});
    done(&s, &p);
    /* No spec: each host's first class; initial processes may exceed PEs. */
    static char *const many[] = {"n1", "n1", "n1", "n1", "n1", "n2"};
    for (int k = 0; k < 2; k++) {
        mkpool(&p, init_cluster, 4);
        init_ok(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, 6, many, k ? "" : NULL);
        assert_counts(&s, (const int[]){0, 5, 0, 1});
        done(&s, &p);
    }
}
END_TEST

struct init_bad {
    int nprocs;
    const char *hosts[4];
    const char *spec;
    const char *needle[3];
};

static const struct init_bad init_bads[] = {
    {3, {"n0", "n0", "n1"}, "quad:2", {"quad:2", "2", "3"}},
    {3, {"n0", "n0", "n1"}, "quad:2,gpu:2", {"quad:2,gpu:2", "4", "3"}},
    {3, {"n0", "n0", "n1"}, "quad:0,quad:3", {"'quad:0'", "integer", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:x,gpu:1", {"'quad:x'", "'x'", "integer"}},
    {3, {"n0", "n0", "n1"}, "quad:-1", {"'quad:-1'", "integer", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:,gpu:3", {"'quad:'", "integer", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:99999999999", {"'quad:99999999999'", "integer", NULL}},
    {3, {"n0", "n0", "n1"}, "quad2", {"'quad2'", "CLASS:COUNT", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:2,,gpu:1", {"token ''", "CLASS:COUNT", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:2,", {"token ''", "CLASS:COUNT", NULL}},
    {3, {"n0", "n0", "n1"}, "quad:2,tri:1", {"'tri:1'", "'tri'", "quad, gpu, dual"}},
    {3, {"n0", "n0", "n1"}, ":3", {"':3'", "quad, gpu, dual", NULL}},
    {3, {"n0", "n0", "n9"}, NULL, {"rank 2", "'n9'", NULL}},
    {3, {"n0", "n0", "n9"}, "quad:3", {"rank 2", "'n9'", "'quad'"}},
    {3, {"n0", "n0", "n0"}, "quad:2,gpu:1", {"rank 2", "'n0'", "'gpu'"}},
    {2, {"n0", "n2"}, "dual:2", {"rank 0", "'n0'", "'dual'"}},
    {0, {"n0"}, NULL, {"0", NULL, NULL}},
};
#define NINITBAD ((int)(sizeof init_bads / sizeof init_bads[0]))

START_TEST(test_init_errors)
{
    const struct init_bad *b = &init_bads[_i];
    struct xmpi_pool p;
    mkpool(&p, init_cluster, 4);
    for (int h = 0; h < 4; h++) p.hosts[h].procs = 10 + h;   /* must survive the error */
    struct xmpi_host before[4];
    memcpy(before, p.hosts, sizeof before);
    struct xmpi_sched s, orig;
    memset(&s, 0xa5, sizeof s);
    orig = s;
    err[0] = '\0';
    int rc = xmpi_sched_init(&s, &p, XMPI_SCHED_BALANCE_ALL, 0, b->nprocs,
                             (char *const *)b->hosts, b->spec, err, sizeof err);
    ck_assert_msg(rc == XMPI_SCHED_EINIT, "case %d: %d (%s)", _i, rc, err);
    ck_assert_msg(memcmp(&s, &orig, sizeof s) == 0, "case %d: scheduler written", _i);
    ck_assert_msg(memcmp(before, p.hosts, sizeof before) == 0, "case %d: pool changed", _i);
    for (int k = 0; k < 3 && b->needle[k]; k++)
        ck_assert_msg(strstr(err, b->needle[k]) != NULL, "case %d: '%s' lacks '%s'", _i, err,
                      b->needle[k]);
    xmpi_pool_free(&p);
}
END_TEST

Suite *scheduler_suite(void)
{
    Suite *s = suite_create("scheduler");
    TCase *tc = tcase_create("thesis");
    tcase_add_test(tc, test_thesis_fig_4_14_spawn_balance_all);
    tcase_add_test(tc, test_thesis_fig_4_15_spawn_balance_occupied);
    tcase_add_test(tc, test_thesis_fig_4_16_remove_balance_all);
    tcase_add_test(tc, test_thesis_fig_4_17_remove_balance_occupied);
    suite_add_tcase(s, tc);

    tc = tcase_create("place");
    tcase_add_test(tc, test_place_sequences);
    tcase_add_test(tc, test_place_mixed_classes);
    tcase_add_test(tc, test_occupied_opens_first_empty);
    tcase_add_test(tc, test_place_never_exceeds_pes);
    tcase_add_test(tc, test_oversubscribe);
    tcase_add_test(tc, test_enope_unchanged);
    tcase_add_test(tc, test_eclass_unchanged);
    tcase_add_test(tc, test_ecount);
    tcase_add_test(tc, test_add_groups_and_order);
    suite_add_tcase(s, tc);

    tc = tcase_create("remove");
    tcase_add_test(tc, test_initial_never_picked);
    tcase_add_test(tc, test_most_recent_first);
    tcase_add_test(tc, test_groups_leave_whole);
    tcase_add_test(tc, test_pick_keeps_balancing);
    tcase_add_test(tc, test_remove_compacts);
    tcase_add_test(tc, test_remove_rejects);
    tcase_add_loop_test(tc, test_random_sequence, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("init");
    tcase_add_test(tc, test_init_spec);
    tcase_add_loop_test(tc, test_init_errors, 0, NINITBAD);
    suite_add_tcase(s, tc);
    return s;
}
