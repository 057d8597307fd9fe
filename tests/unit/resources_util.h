/* Shared by the test_resources_*.c suites (io/resources.c): a pool parsed from
 * text through a real FILE, the check of one host, and garbage to start from. */
#ifndef XMPIR_TESTS_UNIT_RESOURCES_UTIL_H
#define XMPIR_TESTS_UNIT_RESOURCES_UTIL_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "../../io/resources.h"
#include "errbuf.h"
#include "tmpfiles.h"

static inline int parse_text(struct xmpi_pool *p, const char *text, const char *fname)
{
    FILE *f = text_file(text);
    err[0] = '\0';
    int rc = xmpi_pool_parse(p, f, fname, err, sizeof err);
    fclose(f);
    return rc;
}

static inline void assert_host(const struct xmpi_pool *p, int i, const char *name,
                               const char *cls, int pes, double cost, double speed)
{
    ck_assert_int_lt(i, p->nhosts);
    const struct xmpi_host *h = &p->hosts[i];
    ck_assert_str_eq(h->name, name);
    ck_assert_str_eq(h->cls, cls);
    ck_assert_int_eq(h->pes, pes);
    ck_assert_double_eq(h->cost, cost);
    ck_assert_double_eq(h->speed, speed);
    ck_assert_int_eq(h->procs, 0);
}

/* Pool fields set to garbage first: an error must leave it empty, not half-filled. */
static inline void garbage(struct xmpi_pool *p)
{
    memset(p, 0x5a, sizeof *p);
}

#endif
