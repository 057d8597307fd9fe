/* io/rms_state.c, the locked update: create or not, a failing callback or a broken
 * result leaves the file as it was (not even rewritten), and concurrent updaters from
 * several processes lose nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rms_util.h"
#include "suites.h"

struct upd {
    int calls;
    int fail;        /* return -1 after changing the state */
    int seen_n;
    const char *cls;
};

static int upd_fn(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    struct upd *u = arg;
    u->calls++;
    u->seen_n = st->n;
    if (st->n == 0) {
        st->e = calloc(1, sizeof *st->e);
        if (!st->e) return -1;
        st->n = 1;
        snprintf(st->e[0].host, sizeof st->e[0].host, "new");
        snprintf(st->e[0].cls, sizeof st->e[0].cls, "fast");
        st->e[0].pes = 3;
        return u->fail ? (snprintf(e, elen, "refused on purpose"), -1) : 0;
    }
    int rc = xmpi_rms_offer(st, u->cls ? u->cls : st->e[0].cls, 1, e, elen);
    if (u->fail) {
        st->e[0].pes += 100;   /* a change that must not reach the file */
        snprintf(e, elen, "refused on purpose");
        return -1;
    }
    return rc;
}

START_TEST(test_update_create)
{
    char d[512], p[600], lock[700];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    snprintf(lock, sizeof lock, "%s.lock", p);
    struct upd u = {0, 0, -1, NULL};

    /* No file and no create: an error, fn not called, nothing created. */
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s: no such state file (create it with xmpi-rms init)", p);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(u.calls, 0);
    ck_assert(!exists(p));
    ck_assert_int_eq(count_entries(d), 0);

    /* create, but fn fails: still no file. */
    u.fail = 1;
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err), -1);
    ck_assert_str_eq(err, "refused on purpose");
    ck_assert_int_eq(u.calls, 1);
    ck_assert(!exists(p));

    /* create: fn sees an empty state and its result is written. */
    u.fail = 0;
    ck_assert_msg(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(u.seen_n, 0);
    char *bytes = slurp(p, NULL);
    ck_assert_str_eq(bytes, "# xmpi-rms state v2: host class pes free allocated reclaim "
                            "initial\n"
                            "new fast 3 0 0 0 0\n");
    free(bytes);
    ck_assert(exists(lock));

    /* An existing file is read, with or without create. */
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), 0);
    ck_assert_int_eq(u.seen_n, 1);
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err), 0);
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), 0);
    assert_entry(&st, 0, "new", "fast", 3, 2, 0, 0);
    xmpi_rms_state_free(&st);
    ck_assert_int_eq(count_entries(d), 2);   /* the state and its lock, no temporary */
}
END_TEST

START_TEST(test_update_unchanged_on_failure)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    put(p, "# kept as the operator wrote it\nn1  fast 2 0 1 0   # note\n");
    size_t l0, l1;
    char *before = slurp(p, &l0);
    struct stat sb0, sb1;
    ck_assert_int_eq(stat(p, &sb0), 0);

    /* fn fails after changing the state */
    struct upd u = {0, 1, -1, NULL};
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), -1);
    ck_assert_str_eq(err, "refused on purpose");
    /* an operation error inside fn (unknown class) */
    struct upd v = {0, 0, -1, "gpu"};
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &v, err, sizeof err), -1);
    assert_err_has("unknown class 'gpu'; known classes: fast");

    char *after = slurp(p, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    ck_assert_int_eq(stat(p, &sb1), 0);
    ck_assert(sb0.st_ino == sb1.st_ino);   /* not even rewritten with the same bytes */
    free(after);

    /* a malformed file: fn is never called, the file stays */
    put(p, "n1 fast 2 0 1 0\nn1 fast 2 0 1 0\n");
    free(before);
    before = slurp(p, &l0);
    struct upd w = {0, 0, -1, NULL};
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &w, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s:2: host n1 class fast already appears on line 1", p);
    assert_err_has(want);
    ck_assert_int_eq(w.calls, 0);
    after = slurp(p, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    free(before);
    free(after);
    ck_assert_int_eq(count_entries(d), 2);
}
END_TEST

static int break_invariant(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    (void)arg, (void)e, (void)elen;
    st->e[0].free = st->e[0].pes + 1;
    return 0;
}

START_TEST(test_update_refuses_bad_result)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    put(p, "n1 fast 2 0 1 0\n");
    char *before = slurp(p, NULL);
    ck_assert_int_eq(xmpi_rms_update(p, 0, break_invariant, NULL, err, sizeof err), -1);
    assert_err_has("free + allocated (4) exceeds pes (2)");
    char *after = slurp(p, NULL);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
}
END_TEST

static int offer_one(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    return xmpi_rms_offer(st, (const char *)arg, 1, e, elen);
}

START_TEST(test_update_concurrent)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/c.state", d);
    put(p, "n1 fast 100 0 0 0\nn2 fast 100 0 0 0\n");
    enum { KIDS = 3, EACH = 20 };
    pid_t kid[KIDS];
    for (int k = 0; k < KIDS; k++) {
        kid[k] = fork();
        ck_assert_int_ge(kid[k], 0);
        if (kid[k] == 0) {
            char e[1024];
            for (int i = 0; i < EACH; i++)
                if (xmpi_rms_update(p, 0, offer_one, "fast", e, sizeof e) != 0) _exit(1);
            _exit(0);
        }
    }
    for (int k = 0; k < KIDS; k++) {
        int status;
        ck_assert_int_eq(waitpid(kid[k], &status, 0), kid[k]);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), 0);
    /* 60 offers of one over two equal hosts, each to the one with more spare: 30 each. */
    assert_entry(&st, 0, "n1", "fast", 100, KIDS * EACH / 2, 0, 0);
    assert_entry(&st, 1, "n2", "fast", 100, KIDS * EACH / 2, 0, 0);
    xmpi_rms_state_free(&st);
    ck_assert_int_eq(count_entries(d), 2);
}
END_TEST

Suite *rms_state_update_suite(void)
{
    Suite *s = suite_create("rms_state_update");
    TCase *tc = tcase_create("update");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    /* fsync per write: 60 locked updates on a slow disk need more than Check's 4 s. */
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_update_create);
    tcase_add_test(tc, test_update_unchanged_on_failure);
    tcase_add_test(tc, test_update_refuses_bad_result);
    tcase_add_test(tc, test_update_concurrent);
    suite_add_tcase(s, tc);
    return s;
}
