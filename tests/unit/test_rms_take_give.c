/* io/rms_state.c, one host at a time and the job's next action: taking offered
 * (or, forced, spare) PEs, giving them back, and which spawn or removal a state asks for. */
#include "rms_util.h"
#include "suites.h"

START_TEST(take_is_bounded_by_the_offer_unless_forced)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 4 2 1 0\nn1 slow 2 0 0 0\n");
    ck_assert_msg(xmpi_rms_take(&st, "n1", "fast", 1, 0, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "n1", "fast", 4, 1, 2, 0);

    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 2, 0, err, sizeof err), -1);
    assert_err_has("host n1 class fast: cannot take 2 PEs; only 1 are offered");
    assert_snap(&st, &s);
    /* force: beyond the offer, from the spare capacity */
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 2, 1, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 0, 4, 0);
    /* but never past the capacity the file can record */
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 1, 1, err, sizeof err), -1);
    assert_err_has("cannot take 1 PEs; it has 4 PEs");
    assert_snap(&st, &s);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "slow", 2, 1, err, sizeof err), 0);
    assert_entry(&st, 1, "n1", "slow", 2, 0, 2, 0);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n9", "fast", 1, 1, err, sizeof err), -1);
    assert_err_has("no host 'n9' of class fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "gpu", 1, 1, err, sizeof err), -1);
    assert_err_has("unknown class 'gpu'; known classes: fast, slow");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 0, 1, err, sizeof err), -1);
    assert_err_has("expected a count from 1");
    assert_snap(&st, &s);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(give_answers_a_reclaim_first)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 8 1 5 3\nn2 fast 8 0 2 0\n");
    ck_assert_msg(xmpi_rms_give(&st, "n1", "fast", 1, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "n1", "fast", 8, 1, 4, 2);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", 3, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 8, 1, 1, 0);   /* reclaim 2 - 3 stops at 0 */
    ck_assert_int_eq(xmpi_rms_give(&st, "n2", "fast", 2, err, sizeof err), 0);
    assert_entry(&st, 1, "n2", "fast", 8, 0, 0, 0);

    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", 2, err, sizeof err), -1);
    assert_err_has("host n1 class fast: cannot give 2 PEs back; only 1 are allocated");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n3", "fast", 1, err, sizeof err), -1);
    assert_err_has("no host 'n3' of class fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "slow", 1, err, sizeof err), -1);
    assert_err_has("unknown class 'slow'; known classes: fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", -2, err, sizeof err), -1);
    assert_snap(&st, &s);
    xmpi_rms_state_free(&st);
}
END_TEST

struct action_case {
    const char *text;
    int act, nprocs;
    const char *cls;
};

static const struct action_case actions[] = {
    {"", XMPIR_RMS_ACT_NONE, 0, ""},
    {"a fast 4 0 2 0\nb slow 4 0 0 0\n", XMPIR_RMS_ACT_NONE, 0, ""},
    {"a fast 4 0 2 0\nb slow 4 2 0 0\nc fast 4 1 0 0\nd slow 4 1 0 0\n", XMPIR_RMS_ACT_SPAWN, 3,
     "slow"},
    {"a fast 4 1 0 0\nb slow 4 2 0 0\nc fast 4 1 0 0\n", XMPIR_RMS_ACT_SPAWN, 2, "fast"},
    /* reclaims win over offers, even when the offer comes first in the file */
    {"a fast 4 3 0 0\nb slow 4 0 2 1\nc slow 4 0 3 2\nd fast 4 0 1 1\n", XMPIR_RMS_ACT_SHRINK, 3,
     "slow"},
    {"a fast 4 0 2 2\nb slow 4 0 2 1\nc fast 4 0 1 1\n", XMPIR_RMS_ACT_SHRINK, 3, "fast"},
};
#define NACTIONS ((int)(sizeof actions / sizeof actions[0]))

START_TEST(each_state_asks_its_action)
{
    const struct action_case *c = &actions[_i];
    struct xmpi_rms_state st;
    mk(&st, c->text);
    int nprocs = -7;
    char cls[XMPIR_NAME_MAX] = "junk";
    ck_assert_int_eq(xmpi_rms_state_action(&st, &nprocs, cls, sizeof cls), c->act);
    ck_assert_int_eq(nprocs, c->nprocs);
    ck_assert_str_eq(cls, c->cls);
    /* Optional outputs. */
    ck_assert_int_eq(xmpi_rms_state_action(&st, NULL, NULL, 0), c->act);
    xmpi_rms_state_free(&st);
}
END_TEST

Suite *rms_take_give_suite(void)
{
    Suite *s = suite_create("rms_take_give");
    TCase *tc = tcase_create("operations");
    tcase_add_test(tc, take_is_bounded_by_the_offer_unless_forced);
    tcase_add_test(tc, give_answers_a_reclaim_first);
    tcase_add_loop_test(tc, each_state_asks_its_action, 0, NACTIONS);
    suite_add_tcase(s, tc);
    return s;
}
