/* io/rms_state.c, offer and reclaim: PEs spread one at a time to the host with the
 * most room (ties to the first), checked by hand and against a closed form on random states;
 * every refusal leaves the state as it was. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rms_util.h"
#include "rng.h"
#include "suites.h"

/* The greedy "one at a time to the largest, ties to the first" in closed form: every
 * value above a level L comes down to L, and the r left over go to the first values
 * (in order) that stand at L. gain[i] says how much value i lost. */
static void level_down(const int *v, int k, int n, int *gain)
{
    long total = 0;
    for (int i = 0; i < k; i++) total += v[i] > 0 ? v[i] : 0;
    ck_assert_int_le(n, total);
    int L = 0;
    for (int i = 0; i < k; i++) L = v[i] > L ? v[i] : L;
    /* The smallest level whose excess is at most n. */
    for (;;) {
        long excess = 0;
        for (int i = 0; i < k; i++) excess += v[i] > L - 1 && L > 0 ? v[i] - (L - 1) : 0;
        if (L == 0 || excess > n) break;
        L--;
    }
    long used = 0;
    for (int i = 0; i < k; i++) {
        gain[i] = v[i] > L ? v[i] - L : 0;
        used += gain[i];
    }
    for (int i = 0; i < k && used < n; i++)
        if (v[i] >= L && L > 0) gain[i]++, used++;
    ck_assert_int_eq(used, n);
}

START_TEST(test_level_down_by_hand)
{
    /* The helper itself, against sequences worked out on paper. */
    int g[4];
    level_down((int[]){2, 3, 3}, 3, 4, g);
    ck_assert(g[0] == 1 && g[1] == 2 && g[2] == 1);
    level_down((int[]){0, 5, 1, 5}, 4, 3, g);
    ck_assert(g[0] == 0 && g[1] == 2 && g[2] == 0 && g[3] == 1);
    level_down((int[]){1, 1, 1}, 3, 3, g);
    ck_assert(g[0] == 1 && g[1] == 1 && g[2] == 1);
    level_down((int[]){4, 1}, 2, 1, g);
    ck_assert(g[0] == 1 && g[1] == 0);
}
END_TEST

START_TEST(test_offer_spread)
{
    struct xmpi_rms_state st;
    /* fast spares: n1 4-1-1=2, n2 3, n3 3; slow is never touched. */
    mk(&st, "n1 fast 4 1 1 0\nn2 fast 3 0 0 0\nn1 slow 5 0 0 0\nn3 fast 5 2 0 0\n");
    ck_assert_msg(xmpi_rms_offer(&st, "fast", 1, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 1, "n2", "fast", 3, 1, 0, 0);   /* tie n2/n3 at 3: n2 is first */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 1, err, sizeof err), 0);
    assert_entry(&st, 3, "n3", "fast", 5, 3, 0, 0);   /* n3 now has the most (3) */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 3, err, sizeof err), 0);
    /* spares 2,2,2 -> n1, n2, n3 one each */
    assert_entry(&st, 0, "n1", "fast", 4, 2, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 2, 0, 0);
    assert_entry(&st, 3, "n3", "fast", 5, 4, 0, 0);
    assert_entry(&st, 2, "n1", "slow", 5, 0, 0, 0);
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 3, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 3, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 3, 0, 0);
    assert_entry(&st, 3, "n3", "fast", 5, 5, 0, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_offer_errors)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 4 1 1 0\nn2 fast 3 0 0 0\nn1 slow 5 0 0 0\nn1 gpu 1 0 1 0\n");
    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "huge", 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown class 'huge'; known classes: fast, slow, gpu");
    assert_snap(&st, &s);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 6, err, sizeof err), -1);
    assert_err_has("class fast: cannot offer 6 more PEs; only 5 of its 7 PEs are spare (1 "
                   "offered, 1 allocated)");
    assert_snap(&st, &s);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "gpu", 1, err, sizeof err), -1);
    assert_err_has("only 0 of its 1 PEs are spare");
    assert_snap(&st, &s);

    for (int n = -1; n <= 0; n++) {
        s = take_snap(&st);
        ck_assert_int_eq(xmpi_rms_offer(&st, "fast", n, err, sizeof err), -1);
        assert_err_has("expected a count from 1");
        assert_snap(&st, &s);
    }
    struct xmpi_rms_state empty = {0, NULL};
    ck_assert_int_eq(xmpi_rms_offer(&empty, "fast", 1, err, sizeof err), -1);
    assert_err_has("unknown class 'fast'; known classes: none");
    /* Exactly the spare capacity is fine. */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 5, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 3, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 3, 0, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_reclaim_order)
{
    struct xmpi_rms_state st;
    mk(&st, "a fast 8 1 4 1\nb fast 8 2 5 0\nc slow 4 2 2 0\nd fast 8 2 0 0\n");
    /* Offers first, from the most free: b (2, before d), then d (2), then a/b/d (1 each). */
    ck_assert_msg(xmpi_rms_reclaim(&st, "fast", 2, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "a", "fast", 8, 1, 4, 1);
    assert_entry(&st, 1, "b", "fast", 8, 1, 5, 0);
    assert_entry(&st, 3, "d", "fast", 8, 1, 0, 0);
    /* The three offers left (a, b, d, all at 1) go first; then the three asks go to the
     * most held: b (5), b (4), then a and b tie at 3 and a comes first. */
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 6, err, sizeof err), 0);
    assert_entry(&st, 0, "a", "fast", 8, 0, 4, 2);
    assert_entry(&st, 1, "b", "fast", 8, 0, 5, 2);
    assert_entry(&st, 3, "d", "fast", 8, 0, 0, 0);
    assert_entry(&st, 2, "c", "slow", 4, 2, 2, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_reclaim_errors)
{
    struct xmpi_rms_state st;
    mk(&st, "a fast 8 1 4 1\nb fast 8 2 5 5\nc slow 4 0 0 0\n");
    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "gpu", 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown class 'gpu'; known classes: fast, slow");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 7, err, sizeof err), -1);
    assert_err_has("class fast: cannot reclaim 7 PEs; only 6 can be (3 offered and not taken, "
                   "3 allocated and not already reclaimed; 6 being reclaimed)");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "slow", 1, err, sizeof err), -1);
    assert_err_has("class slow: cannot reclaim 1 PEs; none can be");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 0, err, sizeof err), -1);
    assert_err_has("expected a count from 1");
    assert_snap(&st, &s);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 6, err, sizeof err), 0);
    assert_entry(&st, 0, "a", "fast", 8, 0, 4, 4);
    assert_entry(&st, 1, "b", "fast", 8, 0, 5, 5);
    xmpi_rms_state_free(&st);
}
END_TEST

/* PEs the job's initial processes hold (the v2 column initial) can never be given back:
 * a reclaim that needs them is refused with the reason, the state untouched; the rest of a
 * class can still be reclaimed, and the hosts' spawned PEs are asked first. */
START_TEST(test_reclaim_initial)
{
    struct xmpi_rms_state st;
    mk(&st, "vm fast 2 0 2 0 2\nvm slow 3 0 1 0 0\n");
    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "class fast: cannot reclaim 1 PEs; none can be (nothing offered and "
                          "not taken, nothing allocated and not already reclaimed; 2 held by "
                          "the job's initial processes, which never leave; 0 being reclaimed)");
    assert_snap(&st, &s);
    xmpi_rms_state_free(&st);

    mk(&st, "a fast 8 1 4 0 3\nb fast 8 0 2 0 0\n");
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 5, err, sizeof err), -1);
    assert_err_has("cannot reclaim 5 PEs; only 4 can be (1 offered and not taken, 3 allocated "
                   "and not already reclaimed; 3 held by the job's initial processes, which "
                   "never leave; 0 being reclaimed); expected a count from 1 to 4");
    assert_snap(&st, &s);
    /* The offer first, then b (2 spawned) twice, then a's one spawned PE. */
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 4, err, sizeof err), 0);
    assert_entry(&st, 0, "a", "fast", 8, 0, 4, 1);
    assert_entry(&st, 1, "b", "fast", 8, 0, 2, 2);
    ck_assert_int_eq(st.e[0].initial, 3);
    /* Giving back keeps initial <= allocated and reclaim <= allocated - initial even when a
     * hand edit got initial wrong. */
    ck_assert_int_eq(xmpi_rms_give(&st, "a", "fast", 2, err, sizeof err), 0);
    ck_assert_int_eq(st.e[0].allocated, 2);
    ck_assert_int_eq(st.e[0].initial, 2);
    ck_assert_int_eq(st.e[0].reclaim, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

/* A random state of up to 3 classes whose hosts interleave in file order. */
static void random_state(struct xmpi_rms_state *st, uint64_t *seed)
{
    st->n = 1 + (int)(rng_next(seed) % 10);
    st->e = calloc((size_t)st->n, sizeof *st->e);
    ck_assert_ptr_nonnull(st->e);
    for (int i = 0; i < st->n; i++) {
        struct xmpi_rms_entry *x = &st->e[i];
        snprintf(x->host, sizeof x->host, "h%d", i);
        snprintf(x->cls, sizeof x->cls, "c%d", (int)(rng_next(seed) % 3));
        x->pes = (int)(rng_next(seed) % 9);
        x->allocated = (int)(rng_next(seed) % ((uint64_t)x->pes + 1));
        x->free = (int)(rng_next(seed) % ((uint64_t)(x->pes - x->allocated) + 1));
        x->reclaim = (int)(rng_next(seed) % ((uint64_t)x->allocated + 1));
    }
}

START_TEST(test_offer_reclaim_random)
{
    uint64_t seed = 7;
    int checked = 0;
    for (int round = 0; round < 400; round++) {
        struct xmpi_rms_state st;
        random_state(&st, &seed);
        const char *cls = st.e[rng_next(&seed) % (uint64_t)st.n].cls;
        int idx[16], k = 0, v[16], w[16], g1[16], g2[16];
        long cap_offer = 0, cap_free = 0, cap_held = 0;
        for (int i = 0; i < st.n; i++)
            if (!strcmp(st.e[i].cls, cls)) {
                idx[k] = i;
                cap_offer += st.e[i].pes - st.e[i].free - st.e[i].allocated;
                cap_free += st.e[i].free;
                cap_held += st.e[i].allocated - st.e[i].reclaim;
                k++;
            }
        int reclaim = (int)(rng_next(&seed) & 1);
        long cap = reclaim ? cap_free + cap_held : cap_offer;
        int n = 1 + (int)(rng_next(&seed) % (uint64_t)(cap + 2));   /* sometimes too many */
        struct xmpi_rms_state want = {st.n, malloc(sizeof *st.e * (size_t)st.n)};
        memcpy(want.e, st.e, sizeof *st.e * (size_t)st.n);
        if (n <= cap) {
            if (!reclaim) {
                for (int j = 0; j < k; j++)
                    v[j] = want.e[idx[j]].pes - want.e[idx[j]].free - want.e[idx[j]].allocated;
                level_down(v, k, n, g1);
                for (int j = 0; j < k; j++) want.e[idx[j]].free += g1[j];
            } else {
                int m1 = n < cap_free ? n : (int)cap_free;
                for (int j = 0; j < k; j++) {
                    v[j] = want.e[idx[j]].free;
                    w[j] = want.e[idx[j]].allocated - want.e[idx[j]].reclaim;
                }
                level_down(v, k, m1, g1);
                level_down(w, k, n - m1, g2);
                for (int j = 0; j < k; j++) {
                    want.e[idx[j]].free -= g1[j];
                    want.e[idx[j]].reclaim += g2[j];
                }
            }
        }
        struct snap s = take_snap(&st);
        int rc = reclaim ? xmpi_rms_reclaim(&st, cls, n, err, sizeof err)
                         : xmpi_rms_offer(&st, cls, n, err, sizeof err);
        if (n > cap) {
            ck_assert_msg(rc == -1, "round %d: %s %d of %ld accepted", round,
                          reclaim ? "reclaim" : "offer", n, cap);
            assert_snap(&st, &s);
        } else {
            free(s.copy);
            ck_assert_msg(rc == 0, "round %d: %s", round, err);
            for (int i = 0; i < st.n; i++)
                assert_entry(&st, i, want.e[i].host, want.e[i].cls, want.e[i].pes,
                             want.e[i].free, want.e[i].allocated, want.e[i].reclaim);
            checked++;
        }
        free(want.e);
        xmpi_rms_state_free(&st);
    }
    ck_assert_int_gt(checked, 100);
}
END_TEST

Suite *rms_offer_reclaim_suite(void)
{
    Suite *s = suite_create("rms_offer_reclaim");
    TCase *tc = tcase_create("operations");
    tcase_add_test(tc, test_level_down_by_hand);
    tcase_add_test(tc, test_offer_spread);
    tcase_add_test(tc, test_offer_errors);
    tcase_add_test(tc, test_reclaim_order);
    tcase_add_test(tc, test_reclaim_errors);
    tcase_add_test(tc, test_reclaim_initial);
    tcase_add_test(tc, test_offer_reclaim_random);
    suite_add_tcase(s, tc);
    return s;
}
