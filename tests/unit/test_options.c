/* libxmpi/options.c: --xmpi-NAME=VALUE arguments and XMPI_NAME variables, their
 * precedence, the removal of recognised arguments and every rejection path. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/formats/options.h"
#include "suites.h"

#define MAXARGS 32

static char err[1024];   /* the size runtime.c passes */

/* An argv built from string literals; the parser only moves the pointers. */
struct args {
    int argc;
    char *argv[MAXARGS + 1];
    char *orig[MAXARGS + 1];   /* the pointers as built, to detect any change */
    int orig_argc;
};

static void mkargs(struct args *a, ...)
{
    va_list ap;
    va_start(ap, a);
    a->argc = 0;
    for (char *s; (s = va_arg(ap, char *)) != NULL;) {
        ck_assert(a->argc < MAXARGS);
        a->argv[a->argc++] = s;
    }
    va_end(ap);
    a->argv[a->argc] = NULL;
    memcpy(a->orig, a->argv, sizeof a->argv);
    a->orig_argc = a->argc;
}

static void assert_args_untouched(const struct args *a)
{
    ck_assert_int_eq(a->argc, a->orig_argc);
    for (int i = 0; i <= a->orig_argc; i++)
        ck_assert_msg(a->argv[i] == a->orig[i], "argv[%d] changed", i);
}

/* After removal argv must be exactly `want` (NULL-terminated list of the pointers
 * that stay), same pointers, same order, then NULL. */
static void assert_args_are(const struct args *a, char *const *want)
{
    int n = 0;
    while (want[n]) n++;
    ck_assert_int_eq(a->argc, n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(a->argv[i] == want[i], "argv[%d] is '%s', want '%s'", i,
                      a->argv[i] ? a->argv[i] : "(null)", want[i]);
    ck_assert_ptr_null(a->argv[n]);
}

static int parse(struct xmpi_options *o, struct args *a, int remove, char *const *envp)
{
    err[0] = '\0';
    return xmpi_options_parse(o, a ? &a->argc : NULL, a ? a->argv : NULL, remove, envp, err,
                              sizeof err);
}

static void assert_same_options(const struct xmpi_options *got,
                                const struct xmpi_options *want)
{
    ck_assert_int_eq(got->si, want->si);
    ck_assert_int_eq(got->verbose, want->verbose);
    ck_assert_int_eq(got->help, want->help);
    ck_assert_str_eq(got->trace, want->trace);
    ck_assert_str_eq(got->events, want->events);
}

static void assert_err_has(const char *needle)
{
    /* Only the message's ends are printed: a long echoed value would swamp the log. */
    size_t n = strlen(err);
    ck_assert_msg(strstr(err, needle) != NULL, "message '%.120s%s%s' (%zu chars) lacks '%s'",
                  err, n > 240 ? " ... " : "", n > 240 ? err + n - 120 : err + (n > 120 ? 120 : n),
                  n, needle);
}

/* Options that differ from every default, so a reset to defaults is visible. */
static void nondefault(struct xmpi_options *o)
{
    xmpi_options_defaults(o);
    o->si = 42;
    o->verbose = 2;
    o->help = 0;
    snprintf(o->trace, sizeof o->trace, "earlier.csv");
    snprintf(o->events, sizeof o->events, "PAPI_TOT_INS");
}

/* ---- defaults ---- */

START_TEST(test_defaults)
{
    struct xmpi_options o;
    memset(&o, 0xa5, sizeof o);
    xmpi_options_defaults(&o);
    ck_assert_int_eq(o.si, 100);
    ck_assert_int_eq(o.verbose, 0);
    ck_assert_str_eq(o.trace, "");
    ck_assert_str_eq(o.events, "");
    ck_assert_int_eq(o.help, 0);
}
END_TEST

START_TEST(test_nothing_given)
{
    struct xmpi_options o, want;
    xmpi_options_defaults(&o);
    want = o;
    struct args a;
    mkargs(&a, "prog", "input.dat", "-v", NULL);
    char *env[] = {"PATH=/usr/bin", "HOME=/root", NULL};
    ck_assert_int_eq(parse(&o, &a, 1, env), 0);
    assert_same_options(&o, &want);
    assert_args_untouched(&a);
    /* NULL environment and NULL argv are both allowed. */
    ck_assert_int_eq(parse(&o, NULL, 1, NULL), 0);
    assert_same_options(&o, &want);
}
END_TEST

/* ---- accepted values, one option at a time, from argv and from env ---- */

struct good {
    const char *arg;   /* the argv spelling */
    const char *env;   /* the environment spelling of the same setting */
    long si, verbose;
    int help;
    const char *trace, *events;
};

/* Expected fields are what each input says, starting from nondefault(). */
static const struct good goods[] = {
    {"--xmpi-si=1", "XMPI_SI=1", 1, 2, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-si=250", "XMPI_SI=250", 250, 2, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-si=1000000000", "XMPI_SI=1000000000", 1000000000L, 2, 0, "earlier.csv",
     "PAPI_TOT_INS"},
    {"--xmpi-verbose=0", "XMPI_VERBOSE=0", 42, 0, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-verbose=1", "XMPI_VERBOSE=1", 42, 1, 0, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-trace=/tmp/run 1/t.csv", "XMPI_TRACE=/tmp/run 1/t.csv", 42, 2, 0,
     "/tmp/run 1/t.csv", "PAPI_TOT_INS"},
    {"--xmpi-events=PAPI_FP_OPS", "XMPI_EVENTS=PAPI_FP_OPS", 42, 2, 0, "earlier.csv",
     "PAPI_FP_OPS"},
    {"--xmpi-events=PAPI_DP_OPS,PAPI_TOT_CYC", "XMPI_EVENTS=PAPI_DP_OPS,PAPI_TOT_CYC", 42, 2, 0,
     "earlier.csv", "PAPI_DP_OPS,PAPI_TOT_CYC"},
    {"--xmpi-events=perf::TASK-CLOCK,cpu:event:u=1", "XMPI_EVENTS=perf::TASK-CLOCK,cpu:event:u=1",
     42, 2, 0, "earlier.csv", "perf::TASK-CLOCK,cpu:event:u=1"},
    {"--xmpi-help=1", "XMPI_HELP=1", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=yes", "XMPI_HELP=yes", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=true", "XMPI_HELP=true", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=on", "XMPI_HELP=on", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
    {"--xmpi-help=YES", "XMPI_HELP=YES", 42, 2, 1, "earlier.csv", "PAPI_TOT_INS"},
};
#define NGOOD ((int)(sizeof goods / sizeof goods[0]))

static void check_good(const struct good *g, const struct xmpi_options *o)
{
    ck_assert_int_eq(o->si, g->si);
    ck_assert_int_eq(o->verbose, g->verbose);
    ck_assert_int_eq(o->help, g->help);
    ck_assert_str_eq(o->trace, g->trace);
    ck_assert_str_eq(o->events, g->events);
}

START_TEST(test_good_argv)
{
    const struct good *g = &goods[_i];
    struct xmpi_options o;
    nondefault(&o);
    struct args a;
    mkargs(&a, "prog", (char *)g->arg, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s rejected: %s", g->arg, err);
    check_good(g, &o);
}
END_TEST

START_TEST(test_good_env)
{
    const struct good *g = &goods[_i];
    struct xmpi_options o;
    nondefault(&o);
    char *env[] = {"OTHER=1", (char *)g->env, NULL};
    ck_assert_msg(parse(&o, NULL, 1, env) == 0, "%s rejected: %s", g->env, err);
    check_good(g, &o);
}
END_TEST

/* Off-words need help already on to show they switch it off. */
START_TEST(test_help_off_words)
{
    static const char *const words[] = {"0", "no", "false", "off", "No", "OFF"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        char arg[64], env[64];
        snprintf(arg, sizeof arg, "--xmpi-help=%s", words[i]);
        snprintf(env, sizeof env, "XMPI_HELP=%s", words[i]);
        struct xmpi_options o;
        nondefault(&o);
        o.help = 1;
        struct args a;
        mkargs(&a, "prog", arg, NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s: %s", arg, err);
        ck_assert_msg(o.help == 0, "%s left help on", arg);
        nondefault(&o);
        o.help = 1;
        char *envp[] = {env, NULL};
        ck_assert_msg(parse(&o, NULL, 1, envp) == 0, "%s: %s", env, err);
        ck_assert_msg(o.help == 0, "%s left help on", env);
    }
}
END_TEST

START_TEST(test_verbose_two)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose=2", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    ck_assert_int_eq(o.verbose, 2);
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_VERBOSE=2", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), 0);
    ck_assert_int_eq(o.verbose, 2);
}
END_TEST

START_TEST(test_bare_flags)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose", "--xmpi-help", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_int_eq(o.help, 1);
    char *const rest[] = {a.orig[0], NULL};
    assert_args_are(&a, rest);
}
END_TEST

START_TEST(test_env_help_no)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    o.help = 1;
    char *env[] = {"XMPI_HELP=no", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), 0);
    ck_assert_int_eq(o.help, 0);
}
END_TEST

/* ---- precedence ---- */

START_TEST(test_argv_beats_env)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    /* Every option given both ways with different values, so any single option
     * where the environment wins shows up. */
    char *env[] = {"XMPI_SI=7", "XMPI_VERBOSE=2", "XMPI_TRACE=env.csv", "XMPI_EVENTS=ENV_EV",
                   "XMPI_HELP=1", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=9", "--xmpi-verbose=1", "--xmpi-trace=arg.csv",
           "--xmpi-events=ARG_EV", "--xmpi-help=0", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert_int_eq(o.si, 9);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_str_eq(o.trace, "arg.csv");
    ck_assert_str_eq(o.events, "ARG_EV");
    ck_assert_int_eq(o.help, 0);
}
END_TEST

START_TEST(test_env_fills_what_argv_lacks)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_SI=7", "XMPI_TRACE=env.csv", NULL};
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=9", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == 0, "%s", err);
    ck_assert_int_eq(o.si, 9);
    ck_assert_str_eq(o.trace, "env.csv");
}
END_TEST

START_TEST(test_later_argv_wins)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=3", "--xmpi-si=4", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    ck_assert_int_eq(o.si, 4);
}
END_TEST

START_TEST(test_env_ignores_other_names)
{
    struct xmpi_options o, want;
    nondefault(&o);
    want = o;
    /* None of these is an XMPI_ variable, even the invalid-looking ones. */
    char *env[] = {"PATH=/bin", "MY_XMPI_SI=0", "xmpi_si=0", "XMPISI=abc", "XMPI=1",
                   "SI=0", "_XMPI_FOO=1", NULL};
    ck_assert_msg(parse(&o, NULL, 1, env) == 0, "%s", err);
    assert_same_options(&o, &want);
}
END_TEST

START_TEST(test_env_name_is_upper_case)
{
    /* XMPI_si is an XMPI_ variable but not one of ours: refused, not silently taken. */
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char *env[] = {"XMPI_si=5", NULL};
    ck_assert_int_eq(parse(&o, NULL, 1, env), -1);
    ck_assert_msg(strstr(err, "unknown environment variable XMPI_si") != NULL, "%s", err);
    ck_assert_int_eq(o.si, 100);
}
END_TEST

/* ---- rejected values ---- */

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
    struct args a;
    mkargs(&a, "prog", "--xmpi-verbose=1", "x", NULL);
    ck_assert_msg(parse(&o, &a, 1, env) == -1, "'%s' accepted", entry);
    assert_err_has(var);
    assert_err_has("expected");
    assert_args_untouched(&a);
    assert_same_options(&o, &before);
}
END_TEST

static const char *const all_args[] = {"--xmpi-si", "--xmpi-trace", "--xmpi-verbose",
                                       "--xmpi-events", "--xmpi-help"};
static const char *const all_env[] = {"XMPI_SI", "XMPI_TRACE", "XMPI_VERBOSE", "XMPI_EVENTS",
                                      "XMPI_HELP"};

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

    char *fits = repeat('t', XMPI_PATH_MAX - 1, "--xmpi-trace=");
    nondefault(&o);
    mkargs(&a, "prog", fits, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_str_eq(o.trace, fits + strlen("--xmpi-trace="));

    char *longer = repeat('t', XMPI_PATH_MAX, "--xmpi-trace=");
    nondefault(&o);
    before = o;
    mkargs(&a, "prog", longer, NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), -1);
    assert_err_has("--xmpi-trace");
    assert_args_untouched(&a);
    assert_same_options(&o, &before);

    char *env_long = repeat('t', XMPI_PATH_MAX, "XMPI_TRACE=");
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
    char *fits = repeat('E', XMPI_EVENTS_MAX - 1, "--xmpi-events=");
    xmpi_options_defaults(&o);
    mkargs(&a, "prog", fits, NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_str_eq(o.events, fits + strlen("--xmpi-events="));

    char *longer = repeat('E', XMPI_EVENTS_MAX, "--xmpi-events=");
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

/* ---- argv editing ---- */

START_TEST(test_remove_keeps_order)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "a", "--xmpi-si=5", "-b", "--xmpi-verbose", "c", "--xmpi-trace=t.csv",
           "--xmpi-events=PAPI_FP_OPS", "--xmpi-help=0", "d", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    char *const want[] = {a.orig[0], a.orig[1], a.orig[3], a.orig[5], a.orig[9], NULL};
    assert_args_are(&a, want);
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 1);
    ck_assert_str_eq(o.trace, "t.csv");
    ck_assert_str_eq(o.events, "PAPI_FP_OPS");
}
END_TEST

START_TEST(test_remove_all_but_argv0)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi-si=5", "--xmpi-verbose=1", NULL);
    ck_assert_int_eq(parse(&o, &a, 1, NULL), 0);
    char *const want[] = {a.orig[0], NULL};
    assert_args_are(&a, want);
}
END_TEST

START_TEST(test_no_remove)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "a", "--xmpi-si=5", "b", "--xmpi-verbose", NULL);
    ck_assert_int_eq(parse(&o, &a, 0, NULL), 0);
    assert_args_untouched(&a);
    /* Parsed all the same. */
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 1);
}
END_TEST

/* What follows "--" belongs to the program: never parsed, never removed, and the
 * "--" stays so the program's own parser still sees the separator. */
START_TEST(test_double_dash)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "x", "--xmpi-si=5", "--", "--xmpi-si=abc", "--xmpi-bogus", "--",
           "--xmpi-verbose=2", "y", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 5);
    ck_assert_int_eq(o.verbose, 0);
    char *const want[] = {a.orig[0], a.orig[1], a.orig[3], a.orig[4], a.orig[5],
                          a.orig[6], a.orig[7], a.orig[8], NULL};
    assert_args_are(&a, want);

    xmpi_options_defaults(&o);
    mkargs(&a, "prog", "--", "--xmpi-si=abc", NULL);
    ck_assert_int_eq(parse(&o, &a, 0, NULL), 0);
    ck_assert_int_eq(o.si, 100);
    assert_args_untouched(&a);
}
END_TEST

START_TEST(test_argv0_not_an_option)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "--xmpi-si=abc", "--xmpi-verbose=1", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 100);
    ck_assert_int_eq(o.verbose, 1);
    char *const want[] = {a.orig[0], NULL};
    assert_args_are(&a, want);

    /* A program named "--" does not switch option parsing off. */
    xmpi_options_defaults(&o);
    mkargs(&a, "--", "--xmpi-si=3", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 3);
    char *const want2[] = {a.orig[0], NULL};
    assert_args_are(&a, want2);
}
END_TEST

START_TEST(test_non_xmpi_dashes_kept)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    struct args a;
    mkargs(&a, "prog", "--xmpi", "-xmpi-si=3", "--xmpisi=3", "--XMPI-si=3", "--verbose", NULL);
    ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s", err);
    ck_assert_int_eq(o.si, 100);
    assert_args_untouched(&a);
}
END_TEST

/* ---- events list ---- */

START_TEST(test_events_split)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    snprintf(o.events, sizeof o.events, "A,B,C");
    char buf[XMPI_EVENTS_MAX];
    char *names[8];
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), 3);
    ck_assert_str_eq(names[0], "A");
    ck_assert_str_eq(names[1], "B");
    ck_assert_str_eq(names[2], "C");
    for (int i = 0; i < 3; i++)
        ck_assert_msg(names[i] >= buf && names[i] < buf + sizeof buf, "names[%d] not in buf",
                      i);
    /* The options themselves stay intact for the next caller. */
    ck_assert_str_eq(o.events, "A,B,C");
}
END_TEST

START_TEST(test_events_default_and_max)
{
    struct xmpi_options o;
    xmpi_options_defaults(&o);
    char buf[XMPI_EVENTS_MAX];
    char *names[8];
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), 0);

    snprintf(o.events, sizeof o.events, "PAPI_DP_OPS,PAPI_FP_OPS,PAPI_TOT_CYC,PAPI_TOT_INS");
    ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 2), 2);
    ck_assert_str_eq(names[0], "PAPI_DP_OPS");
    ck_assert_str_eq(names[1], "PAPI_FP_OPS");
}
END_TEST

/* Parsed and then split, as runtime code does: the count follows the input. */
START_TEST(test_events_round_trip)
{
    static const char *const ev[] = {"PAPI_DP_OPS", "perf::TASK-CLOCK", "PAPI_TOT_CYC",
                                     "cpu:event:u=1", "PAPI_L1_DCM"};
    for (int n = 1; n <= 5; n++) {
        char arg[512];
        size_t k = (size_t)snprintf(arg, sizeof arg, "--xmpi-events=");
        for (int i = 0; i < n; i++)
            k += (size_t)snprintf(arg + k, sizeof arg - k, "%s%s", i ? "," : "", ev[i]);
        struct xmpi_options o;
        xmpi_options_defaults(&o);
        struct args a;
        mkargs(&a, "prog", arg, NULL);
        ck_assert_msg(parse(&o, &a, 1, NULL) == 0, "%s: %s", arg, err);
        char buf[XMPI_EVENTS_MAX];
        char *names[8];
        ck_assert_int_eq(xmpi_options_events(&o, buf, sizeof buf, names, 8), n);
        for (int i = 0; i < n; i++) ck_assert_str_eq(names[i], ev[i]);
    }
}
END_TEST

/* ---- help ---- */

START_TEST(test_help_text)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, "my-solver");
    fclose(f);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "my-solver") != NULL, "program name missing:\n%s", text);
    for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++)
        ck_assert_msg(strstr(text, all_args[i]) != NULL, "%s missing from help:\n%s",
                      all_args[i], text);
    ck_assert_msg(strstr(text, "XMPI_") != NULL, "help does not mention the environment");
    free(text);

    /* No program name is allowed too. */
    text = NULL;
    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, NULL);
    fclose(f);
    ck_assert_uint_gt(len, 0);
    free(text);
}
END_TEST

/* The Markdown page: one table row per option, and a '|' inside a cell is escaped so that it
 * does not split the row. */
START_TEST(test_markdown_table)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_markdown(f);
    fclose(f);
    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i < sizeof all_args / sizeof all_args[0]; i++) {
        char cell[96];
        snprintf(cell, sizeof cell, "| `%s", all_args[i]);
        ck_assert_msg(strstr(text, cell) != NULL, "no row for %s:\n%s", all_args[i], text);
    }
    int rows = 0, header_cells = -1;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (line[0] != '|') continue;
        int cells = 0;
        for (char *p = line; *p; p++)
            if (*p == '|' && (p == line || p[-1] != '\\')) cells++;
        if (header_cells < 0) header_cells = cells;
        ck_assert_msg(cells == header_cells, "row with %d separators, header %d: %s", cells,
                      header_cells, line);
        rows++;
    }
    free(text);

    /* As many option rows as the help lists options: the header and its rule are the 2 more. */
    text = NULL;
    f = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_options_help(f, NULL);
    fclose(f);
    int options = 0;
    for (const char *p = text; (p = strstr(p, "\n  --xmpi-")); p++) options++;
    ck_assert_int_gt(options, 5);
    ck_assert_int_eq(rows, options + 2);
    free(text);
}
END_TEST

Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("values");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_nothing_given);
    tcase_add_loop_test(tc, test_good_argv, 0, NGOOD);
    tcase_add_loop_test(tc, test_good_env, 0, NGOOD);
    tcase_add_test(tc, test_help_off_words);
    tcase_add_test(tc, test_verbose_two);
    tcase_add_test(tc, test_bare_flags);
    tcase_add_test(tc, test_env_help_no);
    suite_add_tcase(s, tc);

    tc = tcase_create("precedence");
    tcase_add_test(tc, test_argv_beats_env);
    tcase_add_test(tc, test_env_fills_what_argv_lacks);
    tcase_add_test(tc, test_later_argv_wins);
    tcase_add_test(tc, test_env_ignores_other_names);
    tcase_add_test(tc, test_env_name_is_upper_case);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_bad_argv, 0, NBAD);
    tcase_add_loop_test(tc, test_bad_env, 0, nbad_env());
    tcase_add_test(tc, test_unknown_argv);
    tcase_add_test(tc, test_unknown_env);
    tcase_add_test(tc, test_trace_length_limit);
    tcase_add_test(tc, test_events_length_limit);
    tcase_add_test(tc, test_long_bad_value_keeps_expected);
    suite_add_tcase(s, tc);

    tc = tcase_create("argv");
    tcase_add_test(tc, test_remove_keeps_order);
    tcase_add_test(tc, test_remove_all_but_argv0);
    tcase_add_test(tc, test_no_remove);
    tcase_add_test(tc, test_double_dash);
    tcase_add_test(tc, test_argv0_not_an_option);
    tcase_add_test(tc, test_non_xmpi_dashes_kept);
    suite_add_tcase(s, tc);

    tc = tcase_create("events_help");
    tcase_add_test(tc, test_events_split);
    tcase_add_test(tc, test_events_default_and_max);
    tcase_add_test(tc, test_events_round_trip);
    tcase_add_test(tc, test_help_text);
    tcase_add_test(tc, test_markdown_table);
    suite_add_tcase(s, tc);
    return s;
}
