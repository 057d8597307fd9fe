/* Model costs compared to 1e-12 of the expected value (1e-18 absolute, for zero): the
 * formulas are evaluated in another order here than in the model. */
#ifndef XMPIR_TESTS_UNIT_NEAR_H
#define XMPIR_TESTS_UNIT_NEAR_H

#include <check.h>
#include <math.h>

#define NEAR(got, want)                                                                    \
    ck_assert_msg(near((got), (want)), "%s: got %.17g, want %.17g", #got, (double)(got),   \
                  (double)(want))

static inline int near(double got, double want)
{
    return fabs(got - want) <= 1e-12 * fabs(want) + 1e-18;
}

#endif
