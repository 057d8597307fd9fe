/* io/resources.c, pools from elsewhere: a resources file loaded (its errors named
 * with the path as given), a missing file or a directory refused, and hwloc's local pool. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "resources_util.h"
#include "suites.h"

START_TEST(test_load_file)
{
    char path[] = "/tmp/xmpi-res-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "# two\nh1:quad:4:2\nh2:dual:2:1:0.5\nh2:oops:x:1\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (int)(sizeof text - 1));
    close(fd);
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_int_eq(xmpi_pool_load(&p, path, err, sizeof err), -1);
    /* The message names the file as given, with the line of the bad PEs. */
    char want[64];
    snprintf(want, sizeof want, "%s:4: field PEs: 'x'", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
    ck_assert_int_eq(p.nhosts, 0);

    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("h1:quad:4:2\nh2:dual:2:1:0.5\n", f);
    fclose(f);
    ck_assert_msg(xmpi_pool_load(&p, path, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(p.nhosts, 2);
    assert_host(&p, 0, "h1", "quad", 4, 2, 0);
    assert_host(&p, 1, "h2", "dual", 2, 1, 0.5);
    xmpi_pool_free(&p);
    unlink(path);
}
END_TEST

START_TEST(test_load_missing)
{
    const char *path = "/nonexistent-dir-xmpi/res.txt";
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_int_eq(xmpi_pool_load(&p, path, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: cannot read: %s", path, strerror(ENOENT));
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(p.nhosts, 0);
    ck_assert_ptr_null(p.hosts);
}
END_TEST

START_TEST(test_load_directory)
{
    /* fopen of a directory succeeds; the read fails, and that is an error, not "empty". */
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_int_eq(xmpi_pool_load(&p, "/tmp", err, sizeof err), -1);
    char want[128];
    snprintf(want, sizeof want, "/tmp: cannot read: %s", strerror(EISDIR));
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(p.nhosts, 0);
}
END_TEST

START_TEST(test_local)
{
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_msg(xmpi_pool_local(&p, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(p.nhosts, 1);
    const struct xmpi_host *h = &p.hosts[0];
    ck_assert_str_eq(h->cls, "local");
    ck_assert_double_eq(h->cost, 1);
    ck_assert_double_eq(h->speed, 0);
    ck_assert_int_eq(h->procs, 0);
    /* Cores, never more than the online processors the OS counts. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    ck_assert_int_ge(h->pes, 1);
    if (online > 0) ck_assert_int_le(h->pes, online);
    /* The host name, or its first label when the full name does not fit. */
    char name[256];
    ck_assert_int_eq(gethostname(name, sizeof name), 0);
    name[sizeof name - 1] = '\0';
    size_t n = strlen(h->name);
    ck_assert_uint_gt(n, 0);
    ck_assert_msg(strncmp(name, h->name, n) == 0 && (name[n] == '\0' || name[n] == '.'),
                  "'%s' is not host '%s'", h->name, name);
    xmpi_pool_free(&p);
}
END_TEST

Suite *resources_load_suite(void)
{
    Suite *s = suite_create("resources_load");
    TCase *tc = tcase_create("load");
    tcase_add_test(tc, test_load_file);
    tcase_add_test(tc, test_load_missing);
    tcase_add_test(tc, test_load_directory);
    tcase_add_test(tc, test_local);
    suite_add_tcase(s, tc);
    return s;
}
