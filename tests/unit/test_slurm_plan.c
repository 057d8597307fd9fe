/* policies/slurm_plan.c: a look at Slurm in the pool's terms, against counts worked out by
 * hand: what the job may use, offers (its own free CPUs, idle nodes it could add) and reclaims
 * (nodes Slurm takes back), the nodes to add before a spawn and the ones to give back after a
 * removal. */
#include <stdio.h>
#include <string.h>

#include "../../io/rms_state.h"
#include "../../policies/slurm_plan.h"
#include "errbuf.h"
#include "suites.h"

/* A pool of up to 8 entries "host:class:pes" with `procs` processes each. */
struct fixture {
    struct xmpi_host hosts[8];
    struct xmpi_pool pool;
    int cap[8];
    struct xmpi_slurm_job job;
    struct xmpi_slurm_nodes nodes;
    struct xmpi_slurm_view v;
};

static void add_host(struct fixture *fx, const char *host, const char *cls, int pes, int procs)
{
    struct xmpi_host *h = &fx->hosts[fx->pool.nhosts];
    memset(h, 0, sizeof *h);
    snprintf(h->name, sizeof h->name, "%s", host);
    snprintf(h->cls, sizeof h->cls, "%s", cls);
    h->pes = pes;
    h->procs = procs;
    h->cost = 1;
    fx->cap[fx->pool.nhosts] = pes;
    fx->pool.nhosts++;
    fx->pool.hosts = fx->hosts;
}

static void set_job(struct fixture *fx, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(xmpi_slurm_job_parse(&fx->job, f, "job", err, sizeof err) == 0, "%s", err);
    fclose(f);
}

static void set_nodes(struct fixture *fx, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(xmpi_slurm_nodes_parse(&fx->nodes, f, "sinfo", err, sizeof err) == 0, "%s", err);
    fclose(f);
}

static void look(struct fixture *fx)
{
    xmpi_slurm_view_free(&fx->v);
    ck_assert_int_eq(xmpi_slurm_view_make(&fx->v, &fx->pool, fx->cap, &fx->job, &fx->nodes), 0);
}

static void done(struct fixture *fx)
{
    xmpi_slurm_view_free(&fx->v);
    xmpi_slurm_job_free(&fx->job);
    xmpi_slurm_nodes_free(&fx->nodes);
}

static void assert_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        ck_assert_msg(got[i] == want[i], "%s[%d] = %d, want %d", what, i, got[i], want[i]);
}

static void assert_action(struct fixture *fx, const int *removable, int expand, int act,
                          int count, const char *cls)
{
    int n = -1;
    char c[64] = "x";
    int got = xmpi_slurm_action(&fx->pool, &fx->v, removable, expand, &n, c, sizeof c);
    ck_assert_msg(got == act && n == count && !strcmp(c, cls), "action %d %d '%s', want %d %d '%s'",
                  got, n, c, act, count, cls);
}

static void assert_names(const struct xmpi_slurm_names *s, const char *want)
{
    char got[512] = "";
    size_t w = 0;
    for (int i = 0; i < s->n && w < sizeof got; i++)
        w += (size_t)snprintf(got + w, sizeof got - w, "%s%s", i ? " " : "", s->v[i]);
    ck_assert_msg(!strcmp(got, want), "got '%s', want '%s'", got, want);
}

#define JOB(nodes, extra) \
    "JobId=7 JobName=j\n   JobState=RUNNING\n   Partition=test\n   NodeList=" nodes "\n" extra

static const char three_nodes[] = "h1|h1|2|allocated|node\nh2|h2|2|allocated|node\nh3|h3|2|idle|node\n";

/* The job holds h1 (its 2 initial processes) and h2 (nothing yet); h3 is idle. */
START_TEST(test_offers)
{
    struct fixture fx = {0};
    add_host(&fx, "h1", "node", 2, 2);
    add_host(&fx, "h2", "node", 2, 0);
    add_host(&fx, "h3", "node", 2, 0);
    set_job(&fx, JOB("h[1-2]", "     Nodes=h[1-2] CPU_IDs=0-1 Mem=0\n"));
    set_nodes(&fx, three_nodes);
    look(&fx);
    assert_ints(fx.v.pes, (int[]){2, 2, 0}, 3, "pes");
    assert_ints(fx.v.offer, (int[]){0, 0, 2}, 3, "offer");
    assert_ints(fx.v.jobnode, (int[]){0, 1, -1}, 3, "jobnode");
    ck_assert_int_eq(fx.v.leaving[0] | fx.v.leaving[1] | fx.v.leaving[2], 0);
    int none[3] = {0, 0, 0};
    assert_action(&fx, none, 1, XMPIR_RMS_ACT_SPAWN, 4, "node");
    assert_action(&fx, none, 0, XMPIR_RMS_ACT_SPAWN, 2, "node");
    /* The job's own PEs are used: only the idle node is left to offer. */
    fx.hosts[1].procs = 2;
    assert_action(&fx, none, 1, XMPIR_RMS_ACT_SPAWN, 2, "node");
    assert_action(&fx, none, 0, XMPIR_RMS_ACT_NONE, 0, "");
    /* Nothing to add for 2 new processes on h2's free CPUs; a third takes h3. */
    fx.hosts[1].procs = 0;
    char pick[3];
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, NULL, 2, pick), 0);
    ck_assert_int_eq(pick[0] | pick[1] | pick[2], 0);
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, NULL, 3, pick), 1);
    ck_assert_int_eq(pick[2], 1);
    char *cls[4] = {"node", "node", "node", "node"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, cls, 4, pick), 1);
    /* A fifth has nowhere to go: the scheduler says so. */
    char *cls5[5] = {"node", "node", "node", "node", "node"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, cls5, 5, pick), 1);
    char *other[1] = {"fast"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, other, 1, pick), 0);
    done(&fx);
}
END_TEST

/* h2 drained while 2 spawned processes run there: a reclaim of 2; once they left, h2 goes
 * back, h3 (idle, never the job's) is not the job's to give. */
START_TEST(test_reclaim_release)
{
    struct fixture fx = {0};
    add_host(&fx, "h1", "node", 2, 2);
    add_host(&fx, "h2", "node", 2, 2);
    add_host(&fx, "h3", "node", 2, 0);
    set_job(&fx, JOB("h[1-2]", ""));
    set_nodes(&fx, "h1|h1|2|allocated|node\nh2|h2|2|draining|node\nh3|h3|2|idle|node\n");
    look(&fx);
    assert_ints(fx.v.pes, (int[]){2, 0, 0}, 3, "pes");
    ck_assert_int_eq(fx.v.leaving[1], 1);
    assert_action(&fx, (int[]){0, 2, 0}, 1, XMPIR_RMS_ACT_SHRINK, 2, "node");
    /* Only what may leave is asked: the initial processes on a drained h1 are not. */
    assert_action(&fx, (int[]){0, 0, 0}, 1, XMPIR_RMS_ACT_SPAWN, 2, "node");
    struct xmpi_slurm_names keep, give;
    /* Still busy: nothing goes back. */
    ck_assert_int_eq(xmpi_slurm_plan_release(&fx.pool, &fx.v, &fx.job, NULL, &keep, &give), 0);
    assert_names(&keep, "h1 h2");
    xmpi_slurm_names_free(&keep);
    fx.hosts[1].procs = 0;
    ck_assert_int_eq(xmpi_slurm_plan_release(&fx.pool, &fx.v, &fx.job, NULL, &keep, &give), 1);
    assert_names(&keep, "h1");
    assert_names(&give, "h2");
    xmpi_slurm_names_free(&keep);
    xmpi_slurm_names_free(&give);
    done(&fx);
}
END_TEST

/* A removal the job chose itself empties a node it had added: the node goes back; one it
 * never used stays the job's (it was given to it), and so does a node outside the pool. */
START_TEST(test_release_emptied)
{
    struct fixture fx = {0};
    add_host(&fx, "h1", "node", 2, 2);
    add_host(&fx, "h2", "node", 2, 0);
    add_host(&fx, "h3", "node", 2, 0);
    set_job(&fx, JOB("h[1-3],login", ""));
    set_nodes(&fx, "h1|h1|2|mixed|node\nh2|h2|2|mixed|node\nh3|h3|2|allocated|node\n");
    look(&fx);
    struct xmpi_slurm_names keep, give;
    ck_assert_int_eq(xmpi_slurm_plan_release(&fx.pool, &fx.v, &fx.job, (char[]){0, 1, 0}, &keep,
                                             &give), 1);
    assert_names(&keep, "h1 h3 login");
    assert_names(&give, "h2");
    xmpi_slurm_names_free(&keep);
    xmpi_slurm_names_free(&give);
    /* The last node of the job never goes: not even when Slurm drains it. */
    done(&fx);
    memset(&fx, 0, sizeof fx);
    add_host(&fx, "h1", "node", 2, 0);
    set_job(&fx, JOB("h1", ""));
    set_nodes(&fx, "h1|h1|2|draining|node\n");
    look(&fx);
    ck_assert_int_eq(xmpi_slurm_plan_release(&fx.pool, &fx.v, &fx.job, (char[]){1}, &keep, &give),
                     0);
    assert_names(&keep, "h1");
    ck_assert_int_eq(give.n, 0);
    xmpi_slurm_names_free(&keep);
    done(&fx);
}
END_TEST

/* Processes on a node the job no longer holds (an operator's scontrol update NodeList=) are a
 * reclaim; classes are offered one at a time, the first in pool order; a capacity below the
 * node's CPUs, and the job's part of a node, bound what it may use. */
START_TEST(test_classes_and_caps)
{
    struct fixture fx = {0};
    add_host(&fx, "f1", "fast", 4, 1);
    add_host(&fx, "s1", "slow", 2, 1);
    add_host(&fx, "s2", "slow", 8, 0);
    add_host(&fx, "f2", "fast", 4, 0);
    set_job(&fx, JOB("f1,s1", "     Nodes=f1 CPU_IDs=0-1 Mem=0\n"));
    set_nodes(&fx, "f1|f1|8|mixed|fast\ns1|s1|4|mixed|slow\ns2|s2|4|idle|slow\nf2|f2|4|down*|fast\n");
    look(&fx);
    /* f1: the job holds 2 of its 8 CPUs; s1: the file's 2 of 4; s2: idle, the node's 4 of
     * the file's 8; f2: down, not offered. */
    assert_ints(fx.v.pes, (int[]){2, 2, 0, 0}, 4, "pes");
    assert_ints(fx.v.offer, (int[]){0, 0, 4, 0}, 4, "offer");
    assert_action(&fx, (int[]){0, 0, 0, 0}, 1, XMPIR_RMS_ACT_SPAWN, 1, "fast");
    fx.hosts[0].procs = 2;
    assert_action(&fx, (int[]){0, 0, 0, 0}, 1, XMPIR_RMS_ACT_SPAWN, 5, "slow");
    char pick[4];
    char *slow[2] = {"slow", "slow"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, slow, 2, pick), 1);
    ck_assert_int_eq(pick[2], 1);
    char *fast[1] = {"fast"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, fast, 1, pick), 0);
    /* The operator took s1 out of the job: its spawned process must leave. */
    xmpi_slurm_job_free(&fx.job);
    set_job(&fx, JOB("f1", ""));
    look(&fx);
    ck_assert_int_eq(fx.v.leaving[1], 1);
    assert_action(&fx, (int[]){0, 1, 0, 0}, 1, XMPIR_RMS_ACT_SHRINK, 1, "slow");
    done(&fx);
}
END_TEST

/* A host listed under two classes in a resource file is one node: an expansion takes it for
 * both. */
START_TEST(test_one_node_two_classes)
{
    struct fixture fx = {0};
    add_host(&fx, "h1", "fast", 1, 1);
    add_host(&fx, "h2", "fast", 1, 0);
    add_host(&fx, "h2", "slow", 1, 0);
    set_job(&fx, JOB("h1", ""));
    set_nodes(&fx, "h1|h1|2|allocated|x\nh2|h2|2|idle|x\n");
    look(&fx);
    assert_ints(fx.v.offer, (int[]){0, 1, 1}, 3, "offer");
    char pick[3];
    char *slow[1] = {"slow"};
    ck_assert_int_eq(xmpi_slurm_plan_expand(&fx.pool, &fx.v, slow, 1, pick), 1);
    ck_assert_int_eq(pick[1] && pick[2], 1);
    done(&fx);
}
END_TEST

/* A job that is not running holds nothing. */
START_TEST(test_pending_job)
{
    struct fixture fx = {0};
    add_host(&fx, "h1", "node", 2, 0);
    set_job(&fx, "JobId=7\n   JobState=PENDING\n   NodeList=\n");
    set_nodes(&fx, "h1|h1|2|idle|node\n");
    look(&fx);
    ck_assert_int_eq(fx.v.pes[0], 0);
    ck_assert_int_eq(fx.v.jobnode[0], -1);
    ck_assert_int_eq(fx.v.offer[0], 2);
    done(&fx);
}
END_TEST

Suite *slurm_plan_suite(void)
{
    Suite *s = suite_create("slurm_plan");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, test_offers);
    tcase_add_test(tc, test_reclaim_release);
    tcase_add_test(tc, test_release_emptied);
    tcase_add_test(tc, test_classes_and_caps);
    tcase_add_test(tc, test_one_node_two_classes);
    tcase_add_test(tc, test_pending_job);
    suite_add_tcase(s, tc);
    return s;
}
