/* policies/scheduler.c, the initial placement: hosts and classes from the CLASS:COUNT spec or
 * each host's first class, and every bad spec or host refused with a message that names it,
 * leaving the scheduler and the pool untouched. */
#include <string.h>

#include "sched_util.h"
#include "suites.h"

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
        init_ok(&s, &p, XMPIR_SCHED_BALANCE_OCCUPIED, 1, 5, hosts, specs[k]);
        ck_assert_int_eq(s.nprocs, 5);
        ck_assert_int_eq(s.policy, XMPIR_SCHED_BALANCE_OCCUPIED);
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
    init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, 5, hosts, specs[0]);
    assert_counts(&s, (const int[]){2, 1, 1, 1});
    done(&s, &p);
    /* No spec: each host's first class; initial processes may exceed PEs. */
    static char *const many[] = {"n1", "n1", "n1", "n1", "n1", "n2"};
    for (int k = 0; k < 2; k++) {
        mkpool(&p, init_cluster, 4);
        init_ok(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, 6, many, k ? "" : NULL);
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
    int rc = xmpi_sched_init(&s, &p, XMPIR_SCHED_BALANCE_ALL, 0, b->nprocs,
                             (char *const *)b->hosts, b->spec, err, sizeof err);
    ck_assert_msg(rc == XMPIR_SCHED_EINIT, "case %d: %d (%s)", _i, rc, err);
    ck_assert_msg(memcmp(&s, &orig, sizeof s) == 0, "case %d: scheduler written", _i);
    ck_assert_msg(memcmp(before, p.hosts, sizeof before) == 0, "case %d: pool changed", _i);
    for (int k = 0; k < 3 && b->needle[k]; k++)
        ck_assert_msg(strstr(err, b->needle[k]) != NULL, "case %d: '%s' lacks '%s'", _i, err,
                      b->needle[k]);
    xmpi_pool_free(&p);
}
END_TEST

Suite *scheduler_init_suite(void)
{
    Suite *s = suite_create("scheduler_init");
    TCase *tc = tcase_create("init");
    tcase_add_test(tc, test_init_spec);
    tcase_add_loop_test(tc, test_init_errors, 0, NINITBAD);
    suite_add_tcase(s, tc);
    return s;
}
