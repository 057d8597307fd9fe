/* policies/scheduler.c, the FLEX-MPI examples of 4.4 (Figs 4.14-4.17), reconstructed from the
 * text of 4.4.1 and 4.4.2: where balance-all and balance-occupied spawn and remove. */
#include "sched_util.h"
#include "suites.h"

START_TEST(test_thesis_fig_4_14_spawn_balance_all)
{
    /* Fig 4.14: one new quad process goes to Node2, the quad node with fewest. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    char *cls[] = {"quad"};
    int h = -1;
    ck_assert_msg(place(&s, cls, 1, &h) == XMPIR_SCHED_OK, "%s", err);
    ck_assert_int_eq(h, NODE2);
    done(&s, &p);
}
END_TEST

START_TEST(test_thesis_fig_4_15_spawn_balance_occupied)
{
    /* Fig 4.15: it goes to Node1, balancing only the quad nodes already in use. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED, 0);
    char *cls[] = {"quad"};
    int h = -1;
    ck_assert_msg(place(&s, cls, 1, &h) == XMPIR_SCHED_OK, "%s", err);
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
    thesis_removal_job(&s, &p, XMPIR_SCHED_BALANCE_ALL);
    char *cls[] = {"dual"};
    int r = -1;
    ck_assert_msg(pick(&s, cls, 1, &r) == XMPIR_SCHED_OK, "%s", err);
    ck_assert_int_eq(s.procs[r].host, NODE3);
    ck_assert_int_eq(r, 5);   /* the more recent of Node3's two */
    ck_assert_int_eq(xmpi_sched_remove(&s, &r, 1), XMPIR_SCHED_OK);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    done(&s, &p);
}
END_TEST

START_TEST(test_thesis_fig_4_17_remove_balance_occupied)
{
    /* Fig 4.17: it leaves Node4 instead, so that the job uses one node less. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_removal_job(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED);
    char *cls[] = {"dual"};
    int r = -1;
    ck_assert_msg(pick(&s, cls, 1, &r) == XMPIR_SCHED_OK, "%s", err);
    ck_assert_int_eq(r, 4);
    ck_assert_int_eq(xmpi_sched_remove(&s, &r, 1), XMPIR_SCHED_OK);
    assert_counts(&s, (const int[]){2, 1, 0, 2, 0});
    done(&s, &p);
}
END_TEST

Suite *scheduler_thesis_suite(void)
{
    Suite *s = suite_create("scheduler_thesis");
    TCase *tc = tcase_create("thesis");
    tcase_add_test(tc, test_thesis_fig_4_14_spawn_balance_all);
    tcase_add_test(tc, test_thesis_fig_4_15_spawn_balance_occupied);
    tcase_add_test(tc, test_thesis_fig_4_16_remove_balance_all);
    tcase_add_test(tc, test_thesis_fig_4_17_remove_balance_occupied);
    suite_add_tcase(s, tc);
    return s;
}
