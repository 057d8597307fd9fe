/* io/resources.c, look-ups in a pool: hosts by name and class, classes by name,
 * and the list of classes cut safely to a short buffer. */
#include <string.h>

#include "resources_util.h"
#include "suites.h"

static const char lookup_text[] = "n0:quad:4:1\n"
                                  "n1:dual:2:1\n"
                                  "n2:quad:4:1\n"
                                  "n1:gpu:1:5\n"
                                  "n3:dual:2:1\n";

START_TEST(test_find)
{
    struct xmpi_pool p;
    ck_assert_msg(parse_text(&p, lookup_text, "l.txt") == 0, "%s", err);
    ck_assert_int_eq(xmpi_pool_find_class(&p, "quad"), 0);
    ck_assert_int_eq(xmpi_pool_find_class(&p, "dual"), 1);
    ck_assert_int_eq(xmpi_pool_find_class(&p, "gpu"), 3);
    ck_assert_int_eq(xmpi_pool_find_class(&p, "Quad"), -1);
    ck_assert_int_eq(xmpi_pool_find_class(&p, ""), -1);
    ck_assert_int_eq(xmpi_pool_find(&p, "n1", NULL), 1);
    ck_assert_int_eq(xmpi_pool_find(&p, "n1", "dual"), 1);
    ck_assert_int_eq(xmpi_pool_find(&p, "n1", "gpu"), 3);
    ck_assert_int_eq(xmpi_pool_find(&p, "n1", "quad"), -1);
    ck_assert_int_eq(xmpi_pool_find(&p, "n3", NULL), 4);
    ck_assert_int_eq(xmpi_pool_find(&p, "n4", NULL), -1);
    ck_assert_int_eq(xmpi_pool_find(&p, "n", NULL), -1);
    xmpi_pool_free(&p);
}
END_TEST

START_TEST(test_classes)
{
    struct xmpi_pool p;
    ck_assert_msg(parse_text(&p, lookup_text, "l.txt") == 0, "%s", err);
    char buf[64];
    xmpi_pool_classes(&p, buf, sizeof buf);
    ck_assert_str_eq(buf, "quad, dual, gpu");
    /* A short buffer gets a cut, terminated string and nothing past its end. */
    char small[12];
    memset(small, 'Z', sizeof small);
    xmpi_pool_classes(&p, small, 8);
    ck_assert_str_eq(small, "quad, d");
    for (size_t i = 8; i < sizeof small; i++) ck_assert_int_eq(small[i], 'Z');
    struct xmpi_pool empty = {0, NULL};
    xmpi_pool_classes(&empty, buf, sizeof buf);
    ck_assert_str_eq(buf, "");
    xmpi_pool_free(&p);
}
END_TEST

Suite *resources_lookup_suite(void)
{
    Suite *s = suite_create("resources_lookup");
    TCase *tc = tcase_create("lookup");
    tcase_add_test(tc, test_find);
    tcase_add_test(tc, test_classes);
    suite_add_tcase(s, tc);
    return s;
}
