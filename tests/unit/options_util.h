/* Shared by the test_options_*.c suites (io/options.c): argv built from literals
 * with a copy of its pointers to see any change, the parse with the error buffer, checks on
 * the options and the message, options that differ from every default, and the names of all
 * options as arguments and as variables. */
#ifndef XMPIR_TESTS_UNIT_OPTIONS_UTIL_H
#define XMPIR_TESTS_UNIT_OPTIONS_UTIL_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../io/options.h"

#define MAXARGS 32

static char err[1024];   /* the size runtime.c passes */

/* An argv built from string literals; the parser only moves the pointers. */
struct args {
    int argc;
    char *argv[MAXARGS + 1];
    char *orig[MAXARGS + 1];   /* the pointers as built, to detect any change */
    int orig_argc;
};

static inline void mkargs(struct args *a, ...)
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

static inline void assert_args_untouched(const struct args *a)
{
    ck_assert_int_eq(a->argc, a->orig_argc);
    for (int i = 0; i <= a->orig_argc; i++)
        ck_assert_msg(a->argv[i] == a->orig[i], "argv[%d] changed", i);
}

/* After removal argv must be exactly `want` (NULL-terminated list of the pointers
 * that stay), same pointers, same order, then NULL. */
static inline void assert_args_are(const struct args *a, char *const *want)
{
    int n = 0;
    while (want[n]) n++;
    ck_assert_int_eq(a->argc, n);
    for (int i = 0; i < n; i++)
        ck_assert_msg(a->argv[i] == want[i], "argv[%d] is '%s', want '%s'", i,
                      a->argv[i] ? a->argv[i] : "(null)", want[i]);
    ck_assert_ptr_null(a->argv[n]);
}

static inline int parse(struct xmpi_options *o, struct args *a, int remove, char *const *envp)
{
    err[0] = '\0';
    return xmpi_options_parse(o, a ? &a->argc : NULL, a ? a->argv : NULL, remove, envp, err,
                              sizeof err);
}

/* From the defaults, one argument: "prog ARG" with ARG taken out when accepted. */
static inline int parse_one(struct xmpi_options *o, const char *arg)
{
    struct args a;
    mkargs(&a, "prog", (char *)arg, NULL);
    xmpi_options_defaults(o);
    return parse(o, &a, 1, NULL);
}

static inline void assert_same_options(const struct xmpi_options *got,
                                       const struct xmpi_options *want)
{
    ck_assert_int_eq(got->si, want->si);
    ck_assert_int_eq(got->verbose, want->verbose);
    ck_assert_int_eq(got->help, want->help);
    ck_assert_str_eq(got->trace, want->trace);
    ck_assert_str_eq(got->events, want->events);
}

static inline void assert_err_has(const char *needle)
{
    /* Only the message's ends are printed: a long echoed value would swamp the log. */
    size_t n = strlen(err);
    ck_assert_msg(strstr(err, needle) != NULL, "message '%.120s%s%s' (%zu chars) lacks '%s'",
                  err, n > 240 ? " ... " : "", n > 240 ? err + n - 120 : err + (n > 120 ? 120 : n),
                  n, needle);
}

/* Options that differ from every default, so a reset to defaults is visible. */
static inline void nondefault(struct xmpi_options *o)
{
    xmpi_options_defaults(o);
    o->si = 42;
    o->verbose = 2;
    o->help = 0;
    snprintf(o->trace, sizeof o->trace, "earlier.csv");
    snprintf(o->events, sizeof o->events, "PAPI_TOT_INS");
}

static const char *const all_args[] = {"--xmpi-si", "--xmpi-trace", "--xmpi-verbose",
                                       "--xmpi-events", "--xmpi-help"};
static const char *const all_env[] = {"XMPI_SI", "XMPI_TRACE", "XMPI_VERBOSE", "XMPI_EVENTS",
                                      "XMPI_HELP"};

#endif
