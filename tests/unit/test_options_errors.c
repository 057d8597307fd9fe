/* io/options.c, rejected values and unknown names, from argv and from the
 * environment: the message names the option and says what is expected (or lists the known
 * ones), and neither argv nor the options change, not even by an earlier valid one. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "options_util.h"
#include "suites.h"

struct bad {
    const char *name;   /* option name as in --xmpi-NAME */
    const char *value;  /* NULL: bare argument, no '=' */
};

static const struct bad bads[] = {
    {"si", "0"}, {"si", "-1"}, {"si", "abc"}, {"si", "12x"}, {"si", "1.5"}, {"si", "0x10"},
    {"si", "1000000001"}, {"si", "99999999999999999999999"}, {"si", ""}, {"si", NULL},
    {"si", " 5"}, {"si", "5 "},
    {"verbose", "3"}, {"verbose", "-1"}, {"verbose", "two"}, {"verbose", ""},
    {"trace", ""}, {"trace", NULL},
    {"events", "PAPI_FP_OPS PAPI_TOT_CYC"}, {"events", "PAPI_FP_OPS, PAPI_TOT_CYC"},
    {"events", "A,,B"}, {"events", "A,"}, {"events", ",A"}, {"events", ","}, {"events", ""},
    {"events", NULL}, {"events", "PAPI_FP_OPS;PAPI_TOT_CYC"},
    {"help", "maybe"}, {"help", ""}, {"help", "2"},
};
#define NBAD ((int)(sizeof bads / sizeof bads[0]))

static void env_name(char *out, size_t len, const char *name)
{
    size_t k = (size_t)snprintf(out, len, "XMPI_");
    for (; *name && k + 1 < len; name++)
        out[k++] = *name == '-' ? '_' : (char)toupper((unsigned char)*name);
    out[k] = '\0';
}

START_TEST(test_bad_argv)
{
    const struct bad *b = &bads[_i];
    char arg[256], spelled[64];
    snprintf(spelled, sizeof spelled, "--xmpi-%s", b->name);
    if (b->value) snprintf(arg, sizeof arg, "%s=%s", spelled, b->value);
    else snprintf(arg, sizeof arg, "%s", spelled);

    struct xmpi_options o, before;
    nondefault(&o);
    before = o;
    /* A valid option first: it must not be half-applied when a later one fails. */
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=5", "keep", arg, "--xmpi-verbose=0", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == -1, "'%s' accepted", arg);
    assert_err_has(spelled);
    assert_err_has("expected");
    assert_args_untouched(&a);
    assert_same_options(&o, &before);
}
END_TEST

/* An environment entry always has '=', so the bare cases have no env form: _i
 * counts only the entries with a value. */
static int nbad_env(void)
{
    int n = 0;
    for (int i = 0; i < NBAD; i++) n += bads[i].value != NULL;
    return n;
}

static const struct bad *bad_env_case(int k)
{
    for (int i = 0; i < NBAD; i++)
        if (bads[i].value && k-- == 0) return &bads[i];
    ck_abort_msg("no env case %d", k);
    return NULL;
}

START_TEST(test_bad_env)
{
    const struct bad *b = bad_env_case(_i);
    char var[64], entry[256];
    env_name(var, sizeof var, b->name);
    snprintf(entry, sizeof entry, "%s=%s", var, b->value);

    struct xmpi_options o, before;
    nondefault(&o);
    before = o;
    char *env[] = {"XMPI_SI=5", entry, NULL};
    /* The command line sets an option no bad case names: a variable it overrides would not
     * be checked at all (test_options_precedence.c). */
    struct args a;
    mkargs(&a, "prog", "--xmpi-tol=2", "x", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == -1, "'%s' accepted", entry);
    assert_err_has(var);
    assert_err_has("expected");
    assert_args_untouched(&a);
    assert_same_options(&o, &before);
}
END_TEST

START_TEST(test_unknown_argv)
{
    static const char *const unknown[] = {"--xmpi-foo=1", "--xmpi-foo", "--xmpi-s=3",
                                          "--xmpi-sii=3", "--xmpi-SI=3", "--xmpi-=3"};
    for (size_t u = 0; u < sizeof unknown / sizeof unknown[0]; u++) {
        struct xmpi_options o, before;
        nondefault(&o);
        before = o;
        struct args a;
        mkargs(&a, "prog", "--xmpi-si=5", (char *)unknown[u], "tail", NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == -1, "'%s' accepted", unknown[u]);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(unknown[u], "="), unknown[u]);
        assert_err_has(name);
        for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++)
            assert_err_has(all_args[i]);
        assert_args_untouched(&a);
        assert_same_options(&o, &before);
    }
}
END_TEST

START_TEST(test_unknown_env)
{
    struct xmpi_options o, before;
    nondefault(&o);
    before = o;
    char *env[] = {"XMPI_SI=5", "XMPI_FOO=1", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose=1", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, env), -1);
    assert_err_has("XMPI_FOO");
    for (size_t i = 0; i < sizeof all_env / sizeof all_env[0]; i++) assert_err_has(all_env[i]);
    assert_args_untouched(&a);
    assert_same_options(&o, &before);
}
END_TEST

Suite *options_errors_suite(void)
{
    Suite *s = suite_create("options_errors");
    TCase *tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad_argv, 0, NBAD);
    tcase_add_loop_test(tc, test_bad_env, 0, nbad_env());
    tcase_add_test(tc, test_unknown_argv);
    tcase_add_test(tc, test_unknown_env);
    suite_add_tcase(s, tc);
    return s;
}
