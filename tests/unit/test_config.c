/* The pure pieces the runtime used to compute inline: the hand-off partition of a removal
 * (models/partition.c) and the configuration arithmetic of the model (models/config.c). */
#include <stdlib.h>
#include <string.h>

#include "../../models/config.h"
#include "../../models/partition.h"
#include "suites.h"

/* Independent tiling check: blocks in rank order of non-empty ones cover [0, n) once. */
static int tiles(int n, int p, const int *count, const int *displ)
{
    char *seen = calloc((size_t)n + 1, 1);
    int ok = seen != NULL;
    for (int i = 0; ok && i < p; i++) {
        if (count[i] < 0 || displ[i] < 0 || displ[i] + count[i] > n) ok = 0;
        for (int r = displ[i]; ok && r < displ[i] + count[i]; r++) ok = !seen[r]++;
    }
    for (int r = 0; ok && r < n; r++) ok = seen[r];
    free(seen);
    return ok;
}

START_TEST(handoff_gives_leavers_nothing_and_keeps_proportions)
{
    int oc[4] = {300, 100, 0, 200}, leaving[1] = {3}, nc[4], nd[4];
    char why[200];
    ck_assert_int_eq(xmpi_part_handoff(600, 4, oc, leaving, 1, nc, nd, why, sizeof why), 0);
    ck_assert(tiles(600, 4, nc, nd));
    ck_assert_int_eq(nc[3], 0);
    /* Stayers: 300, 100 and an average holder (200): weights 300:100:200 of 600 rows. */
    int want[3] = {300, 100, 200};
    for (int i = 0; i < 3; i++) ck_assert_int_le(abs(nc[i] - want[i]), 1);
}
END_TEST

START_TEST(handoff_everyone_empty_still_tiles)
{
    int oc[3] = {0, 0, 9}, leaving[2] = {2, 0}, nc[3], nd[3];
    char why[200];
    ck_assert_int_eq(xmpi_part_handoff(9, 3, oc, leaving, 2, nc, nd, why, sizeof why), 0);
    ck_assert(tiles(9, 3, nc, nd));
    ck_assert_int_eq(nc[1], 9);
    ck_assert_int_eq(nc[0] + nc[2], 0);
}
END_TEST

START_TEST(handoff_refuses_a_rank_outside_the_job)
{
    int oc[2] = {5, 5}, leaving[1] = {2}, nc[2], nd[2];
    char why[200] = "";
    ck_assert_int_eq(xmpi_part_handoff(10, 2, oc, leaving, 1, nc, nd, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "leaving rank 2"));
    leaving[0] = -1;
    ck_assert_int_eq(xmpi_part_handoff(10, 2, oc, leaving, 1, nc, nd, why, sizeof why), -1);
}
END_TEST

START_TEST(config_counts_classes_and_mixing)
{
    /* ranks: 0,1 initial (group 0) of class 0; 2 spawned (group 1) of class 1. */
    int cls[3] = {0, 0, 1}, grp[3] = {0, 0, 1}, newc[2] = {1, 2}, leave[1] = {2};
    struct xmpi_config_change ch;
    ck_assert_int_eq(xmpi_config_change(3, cls, grp, newc, 2, NULL, 0, &ch), 0);
    ck_assert_int_eq(ch.current[0], 2);
    ck_assert_int_eq(ch.current[1], 1);
    ck_assert_int_eq(ch.candidate[1], 2);
    ck_assert_int_eq(ch.candidate[2], 1);
    ck_assert_int_eq(ch.mixed_now, 1);
    ck_assert_int_eq(ch.mixed_next, 1);
    /* The spawned one leaves and nothing joins: back to mpirun's processes only. */
    ck_assert_int_eq(xmpi_config_change(3, cls, grp, NULL, 0, leave, 1, &ch), 0);
    ck_assert_int_eq(ch.candidate[1], 0);
    ck_assert_int_eq(ch.candidate[0], 2);
    ck_assert_int_eq(ch.mixed_now, 1);
    ck_assert_int_eq(ch.mixed_next, 0);
}
END_TEST

START_TEST(config_refuses_bad_indices)
{
    int cls[2] = {0, XMPIR_MODEL_CLASSES_MAX}, grp[2] = {0, 0}, leave[1] = {5};
    struct xmpi_config_change ch;
    ck_assert_int_eq(xmpi_config_change(2, cls, grp, NULL, 0, NULL, 0, &ch), -1);
    cls[1] = 0;
    ck_assert_int_eq(xmpi_config_change(2, cls, grp, NULL, 0, leave, 1, &ch), -1);
}
END_TEST

START_TEST(config_classes_in_file_order)
{
    struct xmpi_host h[4] = {
        {"a", "fast", 2, 1, 0, 0}, {"b", "slow", 2, 1, 0.5, 0},
        {"c", "fast", 2, 1, 0, 0}, {"d", "gpu", 1, 3, 0, 0}};
    struct xmpi_pool pool = {4, h};
    int hc[4];
    char *names[3];
    double speeds[3];
    ck_assert_int_eq(xmpi_config_classes(&pool, hc, names, speeds, 3), 3);
    ck_assert_int_eq(hc[0], 0);
    ck_assert_int_eq(hc[1], 1);
    ck_assert_int_eq(hc[2], 0);
    ck_assert_int_eq(hc[3], 2);
    ck_assert_str_eq(names[1], "slow");
    ck_assert(speeds[1] == 0.5);
    ck_assert_int_eq(xmpi_config_classes(&pool, hc, names, speeds, 2), -1);
}
END_TEST

Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("handoff");
    tcase_add_test(tc, handoff_gives_leavers_nothing_and_keeps_proportions);
    tcase_add_test(tc, handoff_everyone_empty_still_tiles);
    tcase_add_test(tc, handoff_refuses_a_rank_outside_the_job);
    suite_add_tcase(s, tc);
    tc = tcase_create("configurations");
    tcase_add_test(tc, config_counts_classes_and_mixing);
    tcase_add_test(tc, config_refuses_bad_indices);
    tcase_add_test(tc, config_classes_in_file_order);
    suite_add_tcase(s, tc);
    return s;
}
