/* policies/scheduler.c, refusals: no PE left, an unknown class, a bad count or host, a bad
 * removal list; each says why and leaves the scheduler, its process table and the pool as
 * they were. */
#include "sched_util.h"
#include "suites.h"

START_TEST(test_enope_unchanged)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    char *cls[] = {"dual", "dual", "dual"};
    int h[3] = {-7, -7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 3, h), XMPIR_SCHED_ENOPE);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7, -7}, 3, "hosts");
    assert_err_has("'dual'");
    assert_err_has("4 PEs");
    assert_err_has("already uses 2");

    /* Filled up by committed processes, even one is refused. */
    int two[2] = {NODE3, NODE4};
    ck_assert_int_eq(xmpi_sched_add(&s, two, 2, 0), XMPIR_SCHED_OK);
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 1, h), XMPIR_SCHED_ENOPE);
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
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED, 0);
    add_one(&s, NODE2);
    char *cls[] = {"quad", "tri"};
    int h[2] = {-7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, cls, 2, h), XMPIR_SCHED_ECLASS);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7}, 2, "hosts");
    assert_err_has("'tri'");
    assert_err_has("quad, dual");

    char *rcls[] = {"Quad"};
    take_snap(&sn, &s);
    ck_assert_int_eq(pick(&s, rcls, 1, h), XMPIR_SCHED_ECLASS);
    assert_snap(&sn, &s);
    ck_assert_int_eq(h[0], -7);
    assert_err_has("'Quad'");
    assert_err_has("quad, dual");
    done(&s, &p);
}
END_TEST

START_TEST(zero_or_too_many_processes_is_ecount_and_changes_nothing)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    int h[4] = {-7, -7, -7, -7};
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(place(&s, NULL, 0, h), XMPIR_SCHED_ECOUNT);
    ck_assert_int_eq(place(&s, NULL, -1, h), XMPIR_SCHED_ECOUNT);
    ck_assert_int_eq(pick(&s, NULL, 0, h), XMPIR_SCHED_ECOUNT);
    ck_assert_int_eq(xmpi_sched_add(&s, h, 0, 0), XMPIR_SCHED_ECOUNT);
    int bad_host[] = {NTHESIS};
    ck_assert_int_eq(xmpi_sched_add(&s, bad_host, 1, 0), XMPIR_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    assert_ints(h, (const int[]){-7, -7, -7, -7}, 4, "out");
    done(&s, &p);
}
END_TEST

START_TEST(test_remove_rejects)
{
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0);
    add_one(&s, NODE2);   /* 5 */
    add_one(&s, NODE2);   /* 6 */
    static const int lists[][2] = {{-1, 5}, {5, 7}, {6, 6}, {0, 5}, {5, 4}, {100, 6}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        struct snap sn;
        take_snap(&sn, &s);
        ck_assert_msg(xmpi_sched_remove(&s, lists[i], 2) == XMPIR_SCHED_ECOUNT,
                      "list %zu accepted", i);
        assert_snap(&sn, &s);
    }
    struct snap sn;
    take_snap(&sn, &s);
    ck_assert_int_eq(xmpi_sched_remove(&s, lists[0], 0), XMPIR_SCHED_ECOUNT);
    assert_snap(&sn, &s);
    done(&s, &p);
}
END_TEST

Suite *scheduler_errors_suite(void)
{
    Suite *s = suite_create("scheduler_errors");
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, test_enope_unchanged);
    tcase_add_test(tc, test_eclass_unchanged);
    tcase_add_test(tc, zero_or_too_many_processes_is_ecount_and_changes_nothing);
    tcase_add_test(tc, test_remove_rejects);
    suite_add_tcase(s, tc);
    return s;
}
