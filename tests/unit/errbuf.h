/* The message buffer a module under test fills on an error, at the size the library and
 * its tools pass (1024), and the check that the message says what it should. */
#ifndef XMPIR_TESTS_UNIT_ERRBUF_H
#define XMPIR_TESTS_UNIT_ERRBUF_H

#include <check.h>
#include <string.h>

static char err[1024];

static inline void assert_err_has(const char *needle)
{
    ck_assert_msg(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

#endif
