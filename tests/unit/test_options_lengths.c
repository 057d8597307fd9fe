/* io/options.c, lengths: the longest trace path and events list that fit are
 * taken, one more character is refused, and an echoed value however long does not push
 * "expected" out of the message. */
#include <stdlib.h>
#include <string.h>

#include "options_util.h"
#include "suites.h"

static char *repeat(char c, size_t n, const char *prefix)
{
    size_t p = strlen(prefix);
    char *s = malloc(p + n + 1);
    ck_assert_ptr_nonnull(s);
    memcpy(s, prefix, p);
    memset(s + p, c, n);
    s[p + n] = '\0';
    return s;
}

START_TEST(test_trace_length_limit)
{
    struct xmpi_options o, before;
    struct args a;

    char *fits = repeat('t', XMPIR_PATH_MAX - 1, "--xmpi-trace=");
    nondefault(&o);
    mkargs(&a, "prog", fits, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_str_eq(o.trace, fits + strlen("--xmpi-trace="));

    char *longer = repeat('t', XMPIR_PATH_MAX, "--xmpi-trace=");
    nondefault(&o);
    before = o;
    mkargs(&a, "prog", longer, NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), -1);
    assert_err_has("--xmpi-trace");
    assert_args_untouched(&a);
    assert_same_options(&o, &before);

    char *env_long = repeat('t', XMPIR_PATH_MAX, "XMPI_TRACE=");
    char *env[] = {env_long, NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), -1);
    assert_err_has("XMPI_TRACE");
    assert_same_options(&o, &before);
    free(fits);
    free(longer);
    free(env_long);
}
END_TEST

START_TEST(test_events_length_limit)
{
    struct xmpi_options o, before;
    struct args a;
    char *fits = repeat('E', XMPIR_EVENTS_MAX - 1, "--xmpi-events=");
    xmpi_options_defaults(&o);
    mkargs(&a, "prog", fits, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_str_eq(o.events, fits + strlen("--xmpi-events="));

    char *longer = repeat('E', XMPIR_EVENTS_MAX, "--xmpi-events=");
    nondefault(&o);
    before = o;
    mkargs(&a, "prog", longer, NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), -1);
    assert_err_has("--xmpi-events");
    assert_same_options(&o, &before);
    free(fits);
    free(longer);
}
END_TEST

/* The message is cut to the caller's buffer; an echoed value, however long, must
 * not push out what is accepted. 1024 is the buffer runtime.c uses. */
START_TEST(test_long_bad_value_keeps_expected)
{
    char *arg = repeat('9', 1500, "--xmpi-si=");
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", arg, NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), -1);
    assert_err_has("--xmpi-si");
    assert_err_has("expected");
    free(arg);
}
END_TEST

Suite *options_lengths_suite(void)
{
    Suite *s = suite_create("options_lengths");
    TCase *tc = tcase_create("errors");
    tcase_add_test(tc, test_trace_length_limit);
    tcase_add_test(tc, test_events_length_limit);
    tcase_add_test(tc, test_long_bad_value_keeps_expected);
    suite_add_tcase(s, tc);
    return s;
}
