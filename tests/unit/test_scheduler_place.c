/* policies/scheduler.c, placement: sequences worked out by hand from the policy definitions,
 * never more processes than PEs unless oversubscribed (and then by load), and what adding a
 * placed group records. */
#include <stdlib.h>
#include <string.h>

#include "sched_util.h"
#include "suites.h"

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
        ck_assert_msg(place(&s, cls, 9, h) == XMPIR_SCHED_OK, "%s", err);
        assert_ints(h, pol == XMPIR_SCHED_BALANCE_ALL ? all9 : occ9, 9, "hosts");
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
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    char *cls[] = {"dual", "quad", NULL};
    int h[3];
    ck_assert_msg(place(&s, cls, 3, h) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){NODE3, NODE2, NODE1}, 3, "hosts");
    /* cls NULL: every process may go anywhere; 11 PEs are free in all. */
    int all[11];
    ck_assert_msg(place(&s, NULL, 11, all) == XMPIR_SCHED_OK, "%s", err);
    ck_assert_int_eq(place(&s, NULL, 12, all), XMPIR_SCHED_ENOPE);
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
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED, 0, 3, hosts, NULL);
    int h[3];
    ck_assert_msg(place(&s, NULL, 3, h) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){2, 2, 2}, 3, "hosts");
    done(&s, &p);
}
END_TEST

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
            ck_assert_int_eq(place(&s, cls, room + 1, h), XMPIR_SCHED_ENOPE);
            ck_assert_msg(place(&s, cls, room, h) == XMPIR_SCHED_OK, "%s", err);
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
                if (rc == XMPIR_SCHED_ENOPE) break;
                ck_assert_msg(rc == XMPIR_SCHED_OK, "%s", err);
                ck_assert_int_eq(xmpi_sched_add(&s, &one, 1, 0), XMPIR_SCHED_OK);
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
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 1, 6, full, NULL);
    int h[3];
    ck_assert_msg(place(&s, NULL, 3, h) == XMPIR_SCHED_OK, "%s", err);
    assert_ints(h, (const int[]){0, 1, 0}, 3, "hosts");
    ck_assert_int_eq(xmpi_sched_add(&s, h, 3, 1), XMPIR_SCHED_OK);
    assert_counts(&s, (const int[]){6, 3});
    done(&s, &p);

    /* Without it, the same request is refused. */
    mkpool(&p, d, 2);
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, 6, full, NULL);
    ck_assert_int_eq(place(&s, NULL, 3, h), XMPIR_SCHED_ENOPE);
    done(&s, &p);

    /* While a PE is free, oversubscription changes nothing: a has 3 free PEs, b 2. */
    static char *const one[] = {"a"};
    for (int pol = 0; pol < 2; pol++) {
        int hs[2][5];
        for (int over = 0; over < 2; over++) {
            mkpool(&p, d, 2);
            init_ok(&s, &p, pol, over, 1, one, NULL);
            ck_assert_msg(place(&s, NULL, 5, hs[over]) == XMPIR_SCHED_OK, "%s", err);
            done(&s, &p);
        }
        assert_ints(hs[1], hs[0], 5, "hosts with oversubscription");
    }
}
END_TEST

START_TEST(test_add_groups_and_order)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(s.procs[i].group, 0);
        ck_assert_int_eq(s.procs[i].order, 0);
    }
    int g3[] = {NODE2, NODE2, NODE1};
    int g2[] = {NODE4, NODE0};
    ck_assert_int_eq(xmpi_sched_add(&s, g3, 3, 1), XMPIR_SCHED_OK);
    ck_assert_int_eq(xmpi_sched_add(&s, g2, 2, 0), XMPIR_SCHED_OK);
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
    ck_assert_int_eq(xmpi_sched_removable(&s, NULL), 5);
    done(&s, &p);
}
END_TEST

Suite *scheduler_place_suite(void)
{
    Suite *s = suite_create("scheduler_place");
    TCase *tc = tcase_create("place");
    tcase_add_test(tc, test_place_sequences);
    tcase_add_test(tc, test_place_mixed_classes);
    tcase_add_test(tc, test_occupied_opens_first_empty);
    tcase_add_test(tc, test_place_never_exceeds_pes);
    tcase_add_test(tc, test_oversubscribe);
    tcase_add_test(tc, test_add_groups_and_order);
    suite_add_tcase(s, tc);
    return s;
}
