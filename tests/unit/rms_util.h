/* Shared by the test_rms_*.c suites (io/rms_state.c and rms_schedule.c): a scratch
 * directory per test case and one per test, states parsed from text, the check of one entry,
 * and a byte copy of a state to prove a failed operation touched nothing. */
#ifndef XMPIR_TESTS_UNIT_RMS_UTIL_H
#define XMPIR_TESTS_UNIT_RMS_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/rms_state.h"
#include "errbuf.h"
#include "tmpfiles.h"

static char base[256];   /* made once per test case, in the parent */

static inline void make_base(void)
{
    make_tmpdir(base, sizeof base, NULL, "xmpi-rms-unit");
}

static inline void remove_base(void)
{
    remove_tree(base);
}

/* A directory of its own for each test, so no test sees another's files. */
static inline void test_dir(char *out, size_t len)
{
    make_tmpdir(out, len, base, "t");
}

static inline int parse_text(struct xmpi_rms_state *st, const char *text, const char *fname)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_rms_state_parse(st, f, fname, err, sizeof err);
    fclose(f);
    return rc;
}

static inline void mk(struct xmpi_rms_state *st, const char *text)
{
    ck_assert_msg(parse_text(st, text, "t.state") == 0, "parse: %s", err);
}

static inline void assert_entry(const struct xmpi_rms_state *st, int i, const char *host,
                                const char *cls, int pes, int fr, int al, int rc)
{
    ck_assert_int_lt(i, st->n);
    const struct xmpi_rms_entry *x = &st->e[i];
    ck_assert_str_eq(x->host, host);
    ck_assert_str_eq(x->cls, cls);
    ck_assert_msg(x->pes == pes && x->free == fr && x->allocated == al && x->reclaim == rc,
                  "entry %d (%s %s): %d %d %d %d, want %d %d %d %d", i, host, cls, x->pes,
                  x->free, x->allocated, x->reclaim, pes, fr, al, rc);
}

/* A byte copy of the entries, to prove a failed operation touched nothing. */
struct snap {
    int n;
    struct xmpi_rms_entry *ptr;
    struct xmpi_rms_entry *copy;
};

static inline struct snap take_snap(const struct xmpi_rms_state *st)
{
    struct snap s = {st->n, st->e, malloc(sizeof *st->e * (size_t)(st->n ? st->n : 1))};
    ck_assert_ptr_nonnull(s.copy);
    if (st->n) memcpy(s.copy, st->e, sizeof *st->e * (size_t)st->n);
    return s;
}

static inline void assert_snap(const struct xmpi_rms_state *st, struct snap *s)
{
    ck_assert_int_eq(st->n, s->n);
    ck_assert_ptr_eq(st->e, s->ptr);
    if (st->n) ck_assert_msg(memcmp(st->e, s->copy, sizeof *st->e * (size_t)st->n) == 0,
                             "state changed by a failed operation");
    free(s->copy);
    s->copy = NULL;
}

#endif
