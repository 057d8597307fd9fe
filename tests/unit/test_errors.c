/* XMPI_Error_string: every code has its own sentence, and codes outside the enum
 * get a fallback instead of NULL or an out-of-bounds read. */
#include <limits.h>
#include <string.h>

#include "../../libxmpi/errors.h"
#include "../../models/hockney.h"
#include "../../policies/mapping.h"
#include "../../policies/scheduler.h"
#include "xmpi.h"
#include "suites.h"

START_TEST(test_every_code_has_text)
{
    for (int c = 0; c < XMPI_ERR_LAST; c++) {
        const char *s = XMPI_Error_string(c);
        ck_assert_msg(s != NULL, "code %d: NULL", c);
        ck_assert_msg(s[0] != '\0', "code %d: empty string", c);
        /* A code sharing the fallback text would be indistinguishable from a bad code. */
        ck_assert_msg(strstr(s, "unknown") == NULL, "code %d: '%s' reads as unknown", c, s);
    }
}
END_TEST

START_TEST(test_codes_distinct)
{
    for (int a = 0; a < XMPI_ERR_LAST; a++)
        for (int b = a + 1; b < XMPI_ERR_LAST; b++)
            ck_assert_msg(strcmp(XMPI_Error_string(a), XMPI_Error_string(b)) != 0,
                          "codes %d and %d share '%s'", a, b, XMPI_Error_string(a));
}
END_TEST

START_TEST(test_out_of_range_unknown)
{
    const int bad[] = {-1, XMPI_ERR_LAST, XMPI_ERR_LAST + 1, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *s = XMPI_Error_string(bad[i]);
        ck_assert_msg(s != NULL, "code %d: NULL", bad[i]);
        ck_assert_msg(strstr(s, "unknown") != NULL, "code %d: '%s' does not say unknown",
                      bad[i], s);
    }
}
END_TEST

/* One convention: every internal failure maps to a public code that says the same thing, the
 * modules' names are the shared numbers, and public codes pass through. */
START_TEST(test_internal_codes_map_once)
{
    for (int c = 0; c < XMPI_ERR_LAST; c++) ck_assert_int_eq(xmpi_error_code(c), c);
    ck_assert_int_eq(xmpi_error_code(XMPI_ERR_LAST), XMPI_ERR_ARG);
    for (int st = XMPIR_EEMPTY; st > XMPIR_ELAST; st--) {
        int c = xmpi_error_code(st);
        ck_assert_msg(c > XMPI_SUCCESS && c < XMPI_ERR_LAST, "status %d maps to %d", st, c);
    }
    ck_assert_int_eq(xmpi_error_code(XMPIR_EEMPTY), XMPI_ERR_STATE);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_ECLASS), XMPI_ERR_CLASS);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_ENOPE), XMPI_ERR_RESOURCES);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_ECOUNT), XMPI_ERR_RESOURCES);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_EGROUP), XMPI_ERR_RESOURCES);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_ENOMEM), XMPI_ERR_NOMEM);
    ck_assert_int_eq(xmpi_error_code(XMPIR_SCHED_EINIT), XMPI_ERR_ARG);
    ck_assert_int_eq(xmpi_error_code(XMPIR_MODEL_EARG), XMPI_ERR_ARG);
    ck_assert_int_eq(xmpi_error_code(XMPIR_MODEL_ENODATA), XMPI_ERR_STATE);
    ck_assert_int_eq(xmpi_error_code(XMPIR_MAP_EINPUT), XMPI_ERR_ARG);
    /* The modules' codes are distinct numbers of the one enum. */
    const int sched[] = {XMPIR_SCHED_ECLASS, XMPIR_SCHED_ENOPE, XMPIR_SCHED_ECOUNT,
                         XMPIR_SCHED_EGROUP, XMPIR_SCHED_EINIT, XMPIR_SCHED_ENOMEM};
    for (size_t a = 0; a < 6; a++)
        for (size_t b = a + 1; b < 6; b++) ck_assert_int_ne(sched[a], sched[b]);
}
END_TEST

Suite *errors_suite(void)
{
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("error_string");
    tcase_add_test(tc, test_every_code_has_text);
    tcase_add_test(tc, test_codes_distinct);
    tcase_add_test(tc, test_out_of_range_unknown);
    tcase_add_test(tc, test_internal_codes_map_once);
    suite_add_tcase(s, tc);
    return s;
}
