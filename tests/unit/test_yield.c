/* --xmpi-yield: the option's values, the PEs the pool gives a host, and the decision
 * (policies/scheduler.c xmpi_sched_yield) that runtime.c takes before PMPI_Init. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include "../../io/options.h"
#include "options_util.h"
#include "../../io/resources.h"
#include "../../policies/scheduler.h"
#include "suites.h"

START_TEST(test_option_values)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_AUTO);
    ck_assert_int_eq(parse_one(&o, "--xmpi-yield=on"), 0);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_ON);
    ck_assert_int_eq(parse_one(&o, "--xmpi-yield=off"), 0);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_OFF);
    ck_assert_int_eq(parse_one(&o, "--xmpi-yield=auto"), 0);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_AUTO);
    char *env[] = {"XMPI_YIELD=on", NULL};
    int argc = 0;
    xmpi_options_defaults(&o);
    ck_assert_int_eq(xmpi_options_parse(&o, &argc, NULL, 1, env, err, sizeof err), 0);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_ON);
}
END_TEST

START_TEST(test_option_refused)
{
    struct xmpi_options o;
    ck_assert_int_eq(parse_one(&o, "--xmpi-yield=sometimes"), -1);
    ck_assert_msg(strstr(err, "--xmpi-yield") && strstr(err, "auto, on or off"), "%s", err);
    ck_assert_int_eq(o.yield, XMPIR_YIELD_AUTO);
}
END_TEST

static void pool_of(struct xmpi_pool *p, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(xmpi_pool_parse(p, f, "pool.txt", err, sizeof err) == 0, "%s", err);
    fclose(f);
}

START_TEST(test_host_pes)
{
    struct xmpi_pool p;
    pool_of(&p, "a:fast:2:1\nb:fast:8:1\na:slow:3:1:0.5\n");
    ck_assert_int_eq(xmpi_pool_host_pes(&p, "a"), 5);
    ck_assert_int_eq(xmpi_pool_host_pes(&p, "b"), 8);
    ck_assert_int_eq(xmpi_pool_host_pes(&p, "c"), 0);
    ck_assert_int_eq(xmpi_pool_host_pes(&p, NULL), 0);
    ck_assert_int_eq(xmpi_pool_host_pes(NULL, "a"), 0);
    xmpi_pool_free(&p);
    ck_assert_int_ge(xmpi_local_pes(), 1);
}
END_TEST

/* The reference: hwloc with everything it loads by default, plugins included. */
static int reference_pes(void)
{
    hwloc_topology_t t;
    ck_assert_int_eq(hwloc_topology_init(&t), 0);
    ck_assert_int_eq(hwloc_topology_load(t), 0);
    int cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    int pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
    hwloc_topology_destroy(t);
    return cores > 0 ? cores : pus;
}

/* runtime.c counts the cores before MPI_Init without hwloc's plugins: that count is the
 * count with them, and later calls give the same. */
START_TEST(test_local_pes)
{
    setenv("HWLOC_PLUGINS_PATH", "", 1);
    int pes = xmpi_local_pes();
    unsetenv("HWLOC_PLUGINS_PATH");
    ck_assert_int_eq(pes, reference_pes());
    ck_assert_int_eq(xmpi_local_pes(), pes);
}
END_TEST

START_TEST(test_decision)
{
    struct xmpi_pool p;
    pool_of(&p, "a:fast:2:1\na:slow:3:1:0.5\nb:fast:2:1\n");
    /* on and off decide whatever the rest says. */
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_ON, 0, NULL, NULL, 64), 1);
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_OFF, 1, &p, "a", 1), 0);
    /* auto: oversubscription allowed, or more PEs for this host than it has cores. */
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 1, NULL, NULL, 64), 1);
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 0, NULL, "a", 2), 0);
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 0, &p, "a", 4), 1);   /* 5 PEs */
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 0, &p, "a", 5), 0);
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 0, &p, "b", 2), 0);
    ck_assert_int_eq(xmpi_sched_yield(XMPIR_YIELD_AUTO, 0, &p, "elsewhere", 1), 0);
    xmpi_pool_free(&p);
}
END_TEST

Suite *yield_suite(void)
{
    Suite *s = suite_create("yield");
    TCase *tc = tcase_create("decision");
    tcase_add_test(tc, test_option_values);
    tcase_add_test(tc, test_option_refused);
    tcase_add_test(tc, test_host_pes);
    tcase_add_test(tc, test_decision);
    tcase_add_test(tc, test_local_pes);
    suite_add_tcase(s, tc);
    return s;
}
