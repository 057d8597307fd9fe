/* policies/scheduler.c, removal: initial processes never leave, the most recently spawned go
 * first, a group leaves whole or not at all, several picks keep balancing, and the table
 * closes up after a removal. */
#include "sched_util.h"
#include "suites.h"

START_TEST(test_initial_never_picked)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    int r[8] = {-7, -7, -7, -7, -7, -7, -7, -7};
    ck_assert_int_eq(xmpi_sched_removable(&s, NULL), 0);
    char *any[] = {NULL};
    ck_assert_int_eq(pick(&s, NULL, 1, r), XMPIR_SCHED_ECOUNT);
    ck_assert_int_eq(pick(&s, any, 1, r), XMPIR_SCHED_ECOUNT);
    ck_assert_int_eq(r[0], -7);

    /* Dynamic processes on dual nodes only; quad nodes hold initial ones. */
    add_one(&s, NODE3);
    add_one(&s, NODE4);
    char *quad[] = {"quad"};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, quad, 1, r), XMPIR_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    assert_err_has("'quad'");
    ck_assert_int_eq(pick(&s, NULL, 3, r), XMPIR_SCHED_ECOUNT);
    assert_err_has("1 to 2");

    /* Every policy, with and without classes: only ranks 5 and 6 ever come back. */
    char *two_any[] = {NULL, NULL};
    char *mixed[] = {"dual", NULL};
    for (int pol = 0; pol < 2; pol++) {
        s.policy = pol;
        char **lists[] = {NULL, two_any, mixed};
        for (int l = 0; l < 3; l++) {
            ck_assert_msg(pick(&s, lists[l], 2, r) == XMPIR_SCHED_OK, "%s", err);
            assert_ints(r, (const int[]){5, 6}, 2, "ranks");
        }
    }
    int init_rank = 2;
    take_snap(&sn, &s);
    ck_assert_int_eq(xmpi_sched_remove(&s, &init_rank, 1), XMPIR_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    done(&s, &p);
}
END_TEST

START_TEST(test_most_recent_first)
{
    /* Without classes the latest spawned leave first, whatever their hosts. */
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED, 0);
    add_one(&s, NODE2);   /* rank 5 */
    add_one(&s, NODE0);   /* rank 6 */
    add_one(&s, NODE2);   /* rank 7 */
    int r[3];
    ck_assert_msg(pick(&s, NULL, 1, r) == XMPIR_SCHED_OK, "%s", err);
    ck_assert_int_eq(r[0], 7);
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){6, 7}, 2, "ranks");
    /* After rank 6 leaves, the old rank 7 is rank 6 and a new one is rank 7. */
    int six = 6;
    ck_assert_int_eq(xmpi_sched_remove(&s, &six, 1), XMPIR_SCHED_OK);
    add_one(&s, NODE1);
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){6, 7}, 2, "ranks");
    ck_assert_int_eq(s.procs[6].host, NODE2);
    ck_assert_int_eq(s.procs[7].host, NODE1);
    ck_assert_msg(pick(&s, NULL, 3, r) == XMPIR_SCHED_OK, "%s", err);
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
    ck_assert_int_eq(xmpi_sched_add(s, g, 3, 1), XMPIR_SCHED_OK);
    add_one(s, NODE4);
}

START_TEST(test_groups_leave_whole)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    group_job(&s, &p, XMPIR_SCHED_BALANCE_ALL);
    int r[5] = {-7, -7, -7, -7, -7};
    /* n=2: C, then G (3) is too big for the 1 left and is passed over for B. */
    ck_assert_msg(pick(&s, NULL, 2, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 7}, 2, "ranks");
    ck_assert_msg(pick(&s, NULL, 4, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5, 6, 7}, 4, "ranks");
    ck_assert_msg(pick(&s, NULL, 5, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 4, 5, 6, 7}, 5, "ranks");
    /* n=3: C and B leave 1 that G cannot give without splitting. */
    struct snap sn;
    take_snap(&sn, &s);
    r[0] = -7;
    ck_assert_int_eq(pick(&s, NULL, 3, r), XMPIR_SCHED_EGROUP);
    ck_assert_int_eq(r[0], -7);
    assert_snap(&sn, &s);

    /* By class: any quad process belongs to G, so one quad process cannot leave... */
    char *quad1[] = {"quad"};
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, quad1, 1, r), XMPIR_SCHED_EGROUP);
    assert_snap(&sn, &s);
    ck_assert_int_eq(r[0], -7);
    /* ...but three can, and G counts for all three entries. */
    char *quad3[] = {"quad", "quad", "quad"};
    ck_assert_msg(pick(&s, quad3, 3, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5, 6}, 3, "ranks");
    /* Balance-all picks Node0 (3 processes) for a class-free entry: G again, which
     * covers three entries; the last one, dual, takes B on Node3. */
    char *any4[] = {NULL, "dual", "dual", "dual"};
    ck_assert_msg(pick(&s, any4, 4, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){3, 4, 5, 6}, 4, "ranks");
    /* A single dual process leaves alone. */
    char *dual1[] = {"dual"};
    ck_assert_msg(pick(&s, dual1, 1, r) == XMPIR_SCHED_OK, "%s", err);
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
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, 1, hosts, NULL);
    static const int spawn[] = {1, 0, 1, 0, 1};   /* ranks 1-5 */
    for (int i = 0; i < 5; i++) add_one(&s, spawn[i]);
    char *cls[] = {"c", "c"};
    int r[2];
    ck_assert_msg(pick(&s, cls, 2, r) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(r, (const int[]){4, 5}, 2, "ranks");
    /* Balance-occupied empties y first: its latest two. */
    s.policy = XMPIR_SCHED_BALANCE_OCCUPIED;
    ck_assert_msg(pick(&s, cls, 2, r) == XMPIR_SCHED_OK, "%s", err);
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
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, 3, hosts, NULL);
    add_one(&s, NODE3);   /* 3 */
    add_one(&s, NODE4);   /* 4 */
    add_one(&s, NODE2);   /* 5 */
    add_one(&s, NODE3);   /* 6 */
    long order4 = s.procs[4].order, order6 = s.procs[6].order;
    int gone[] = {5, 3};   /* any order */
    ck_assert_int_eq(xmpi_sched_remove(&s, gone, 2), XMPIR_SCHED_OK);
    ck_assert_int_eq(s.nprocs, 5);
    static const int want_host[] = {NODE0, NODE0, NODE1, NODE4, NODE3};
    for (int i = 0; i < 5; i++) ck_assert_int_eq(s.procs[i].host, want_host[i]);
    ck_assert_int_eq(s.procs[3].order, order4);
    ck_assert_int_eq(s.procs[4].order, order6);
    assert_counts(&s, (const int[]){2, 1, 0, 1, 1});
    ck_assert_int_eq(xmpi_sched_removable(&s, NULL), 2);
    /* By class: both spawned processes left are on dual nodes; quad ones are initial. */
    ck_assert_int_eq(xmpi_sched_removable(&s, "dual"), 2);
    ck_assert_int_eq(xmpi_sched_removable(&s, "quad"), 0);
    done(&s, &p);
}
END_TEST

Suite *scheduler_remove_suite(void)
{
    Suite *s = suite_create("scheduler_remove");
    TCase *tc = tcase_create("remove");
    tcase_add_test(tc, test_initial_never_picked);
    tcase_add_test(tc, test_most_recent_first);
    tcase_add_test(tc, test_groups_leave_whole);
    tcase_add_test(tc, test_pick_keeps_balancing);
    tcase_add_test(tc, test_remove_compacts);
    suite_add_tcase(s, tc);
    return s;
}
