/* Shared by the test_interval_*.c suites (io/interval.c): the number of random trials and
 * the exact comparison of the record and reduction checks. */
#ifndef XMPIR_TESTS_UNIT_INTERVAL_UTIL_H
#define XMPIR_TESTS_UNIT_INTERVAL_UTIL_H

#include <check.h>

#include "../../io/interval.h"

#define TRIALS 50

/* Exact comparison: the reference adds in the same rank order, so any difference
 * means a field was missed, mixed up or accumulated twice. */
#define EQ(got, want, ...)                                                              \
    ck_assert_msg((got) == (want), "%s: got %.17g, want %.17g", __VA_ARGS__, (double)(got), \
                  (double)(want))

#endif
