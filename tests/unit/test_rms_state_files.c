/* io/rms_state.c, files: writing and reading a state back byte for byte (by hand
 * and at random), the errors of both with the file left as it was, the printed table, and the
 * state made from a resources pool. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rms_util.h"
#include "rng.h"
#include "suites.h"

START_TEST(test_round_trip)
{
    char d[512], p1[600], p2[600];
    test_dir(d, sizeof d);
    snprintf(p1, sizeof p1, "%s/a.state", d);
    snprintf(p2, sizeof p2, "%s/b.state", d);
    struct xmpi_rms_state st, back;
    /* v1 lines (six fields, initial 0) and v2 lines mix; the file is written as v2. */
    mk(&st, "# hand-edited\n n1\tfast 8 2 4 3 # note\nn2 fast 2 0 1 0 1\r\nn1 slow 3 3 0 0\n");
    ck_assert_msg(xmpi_rms_state_write(p1, &st, err, sizeof err) == 0, "%s", err);
    char *bytes = slurp(p1, NULL);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_str_eq(bytes, "# xmpi-rms state v2: host class pes free allocated reclaim "
                            "initial\n"
                            "n1 fast 8 2 4 3 0\n"
                            "n2 fast 2 0 1 0 1\n"
                            "n1 slow 3 3 0 0 0\n");
    ck_assert_msg(xmpi_rms_state_read(p1, &back, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(back.n, st.n);
    ck_assert(memcmp(back.e, st.e, sizeof *st.e * (size_t)st.n) == 0);
    ck_assert_msg(xmpi_rms_state_write(p2, &back, err, sizeof err) == 0, "%s", err);
    char *bytes2 = slurp(p2, NULL);
    ck_assert_str_eq(bytes2, bytes);
    /* Rewriting over an existing file replaces it whole and leaves no temporary. */
    ck_assert_int_eq(xmpi_rms_state_write(p1, &back, err, sizeof err), 0);
    char *bytes3 = slurp(p1, NULL);
    ck_assert_str_eq(bytes3, bytes);
    ck_assert_int_eq(count_entries(d), 2);
    free(bytes);
    free(bytes2);
    free(bytes3);
    xmpi_rms_state_free(&st);
    xmpi_rms_state_free(&back);

    /* The empty state is the header alone, and reads back empty. */
    struct xmpi_rms_state empty = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_write(p2, &empty, err, sizeof err), 0);
    bytes = slurp(p2, NULL);
    ck_assert_str_eq(bytes, "# xmpi-rms state v2: host class pes free allocated reclaim "
                            "initial\n");
    free(bytes);
    ck_assert_int_eq(xmpi_rms_state_read(p2, &back, err, sizeof err), 0);
    ck_assert_int_eq(back.n, 0);
    xmpi_rms_state_free(&back);
}
END_TEST

START_TEST(test_random_round_trip)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/r.state", d);
    uint64_t seed = 42;
    for (int round = 0; round < 20; round++) {
        struct xmpi_rms_state st = {(int)(rng_next(&seed) % 30), NULL};
        st.e = calloc((size_t)st.n + 1, sizeof *st.e);
        for (int i = 0; i < st.n; i++) {
            struct xmpi_rms_entry *x = &st.e[i];
            snprintf(x->host, sizeof x->host, "h%d", i);
            snprintf(x->cls, sizeof x->cls, "c%d", (int)(rng_next(&seed) % 3));
            x->pes = (int)(rng_next(&seed) % 1000001);
            x->allocated = x->pes ? (int)(rng_next(&seed) % ((uint64_t)x->pes + 1)) : 0;
            x->free = (int)(rng_next(&seed) % ((uint64_t)(x->pes - x->allocated) + 1));
            x->reclaim = (int)(rng_next(&seed) % ((uint64_t)x->allocated + 1));
        }
        ck_assert_msg(xmpi_rms_state_write(p, &st, err, sizeof err) == 0, "%s", err);
        size_t l1;
        char *b1 = slurp(p, &l1);
        struct xmpi_rms_state back;
        ck_assert_msg(xmpi_rms_state_read(p, &back, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(back.n, st.n);
        for (int i = 0; i < st.n; i++)
            assert_entry(&back, i, st.e[i].host, st.e[i].cls, st.e[i].pes, st.e[i].free,
                         st.e[i].allocated, st.e[i].reclaim);
        ck_assert_int_eq(xmpi_rms_state_write(p, &back, err, sizeof err), 0);
        size_t l2;
        char *b2 = slurp(p, &l2);
        ck_assert_uint_eq(l1, l2);
        ck_assert(memcmp(b1, b2, l1) == 0);
        free(b1);
        free(b2);
        xmpi_rms_state_free(&st);
        xmpi_rms_state_free(&back);
    }
}
END_TEST

START_TEST(test_read_errors)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/none.state", d);
    struct xmpi_rms_state st = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s: no such state file (create it with xmpi-rms init)", p);
    ck_assert_str_eq(err, want);

    /* The message names the file as given, with the line. */
    snprintf(p, sizeof p, "%s/bad.state", d);
    put(p, "# x\nvm fast 2 0 1 0\nvm slow 2 0 1 nope\n");
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: field reclaim: 'nope' is not accepted", p);
    assert_err_has(want);
    ck_assert_int_eq(st.n, 0);
}
END_TEST

START_TEST(test_write_errors)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    struct xmpi_rms_state st;
    mk(&st, "vm fast 2 0 1 0\n");

    snprintf(p, sizeof p, "%s/no/such/dir/s.state", d);
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), -1);
    assert_err_has(p);
    assert_err_has("cannot create");

    /* A state the parser would refuse is not written: the file stays as it was. */
    snprintf(p, sizeof p, "%s/s.state", d);
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), 0);
    char *before = slurp(p, NULL);
    struct {
        int pes, fr, al, rc;
        const char *host, *cls, *want;
    } bad[] = {
        {2, 2, 1, 0, "vm", "fast", "free + allocated (3) exceeds pes (2)"},
        {2, 0, 1, 2, "vm", "fast", "reclaim (2) exceeds allocated - initial (1)"},
        {2, -1, 1, 0, "vm", "fast", "free -1 cannot be written"},
        {2000000, 0, 1, 0, "vm", "fast", "pes 2000000 cannot be written"},
        {2, 0, 1, 0, "v m", "fast", "host 'v m' class 'fast' cannot be written"},
        {2, 0, 1, 0, "vm", "", "class '' cannot be written"},
        {2, 0, 1, 0, "vm", "a#b", "class 'a#b' cannot be written"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        struct xmpi_rms_entry e = {"", "", bad[k].pes, bad[k].fr, bad[k].al, bad[k].rc, 0};
        snprintf(e.host, sizeof e.host, "%s", bad[k].host);
        snprintf(e.cls, sizeof e.cls, "%s", bad[k].cls);
        struct xmpi_rms_state b = {1, &e};
        ck_assert_int_eq(xmpi_rms_state_write(p, &b, err, sizeof err), -1);
        assert_err_has(bad[k].want);
        assert_err_has("expected");
        char *now = slurp(p, NULL);
        ck_assert_str_eq(now, before);
        free(now);
    }
    struct xmpi_rms_entry two[2] = {st.e[0], st.e[0]};
    struct xmpi_rms_state dup = {2, two};
    ck_assert_int_eq(xmpi_rms_state_write(p, &dup, err, sizeof err), -1);
    assert_err_has("appears twice");
    ck_assert_int_eq(count_entries(d), 1);
    free(before);
    xmpi_rms_state_free(&st);
}
END_TEST

/* A state nobody may write (mode 0444) is refused, not replaced by the rename, and stays as
 * it was; a writable one keeps its mode (and its owner and group where the writer may). */
START_TEST(test_write_read_only)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/ro.state", d);
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 8 2 4 3\n");
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), 0);
    char *before = slurp(p, NULL);
    ck_assert_int_eq(chmod(p, 0444), 0);
    st.e[0].free = 1;
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), -1);
    assert_err_has("ro.state: the state file is read-only (mode 0444, owner uid ");
    assert_err_has("nothing was changed; expected a state file this user may write");
    char *after = slurp(p, NULL);
    ck_assert_str_eq(after, before);
    struct stat sb;
    ck_assert_int_eq(stat(p, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 07777, 0444);
    ck_assert_int_eq(count_entries(d), 1);
    free(after);

    ck_assert_int_eq(chmod(p, 0640), 0);
    int root = geteuid() == 0;
    if (root) ck_assert_int_eq(chown(p, 1, 1), 0);
    ck_assert_msg(xmpi_rms_state_write(p, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(stat(p, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 07777, 0640);
    if (root) ck_assert(sb.st_uid == 1 && sb.st_gid == 1);
    free(before);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(state_prints_one_line_per_host)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 8 2 4 3\nnode-two slow 3 3 0 0\nn3 fast 2 0 1 0 1\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_rms_state_print(f, &st);
    fclose(f);
    ck_assert_str_eq(buf, "host      class  pes  free  allocated  reclaim  initial\n"
                          "n1        fast     8     2          4        3        0\n"
                          "node-two  slow     3     3          0        0        0\n"
                          "n3        fast     2     0          1        0        1\n"
                          "(total)   fast    10     2          5        3        1\n"
                          "(total)   slow     3     3          0        0        0\n");
    free(buf);
    xmpi_rms_state_free(&st);

    struct xmpi_rms_state empty = {0, NULL};
    f = open_memstream(&buf, &len);
    xmpi_rms_state_print(f, &empty);
    fclose(f);
    ck_assert_str_eq(buf, "host  class  pes  free  allocated  reclaim  initial\n");
    free(buf);
}
END_TEST

START_TEST(test_from_pool)
{
    struct xmpi_host hosts[3] = {
        {"n1", "fast", 8, 1.0, 0, 5},
        {"n1", "slow", 2, 0.5, 0.5, 0},
        {"n2", "fast", 4, 1.0, 0, 1},
    };
    struct xmpi_pool pool = {3, hosts};
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_from_pool(&st, &pool), 0);
    ck_assert_int_eq(st.n, 3);
    /* Nothing offered or allocated, whatever the scheduler had placed. */
    assert_entry(&st, 0, "n1", "fast", 8, 0, 0, 0);
    assert_entry(&st, 1, "n1", "slow", 2, 0, 0, 0);
    assert_entry(&st, 2, "n2", "fast", 4, 0, 0, 0);
    xmpi_rms_state_free(&st);
    struct xmpi_pool none = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_from_pool(&st, &none), 0);
    ck_assert_int_eq(st.n, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

Suite *rms_state_files_suite(void)
{
    Suite *s = suite_create("rms_state_files");
    TCase *tc = tcase_create("state_files");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_random_round_trip);
    tcase_add_test(tc, test_read_errors);
    tcase_add_test(tc, test_write_errors);
    tcase_add_test(tc, state_prints_one_line_per_host);
    tcase_add_test(tc, test_write_read_only);
    tcase_add_test(tc, test_from_pool);
    suite_add_tcase(s, tc);
    return s;
}
