/* models/partition.c, block overlaps (the rows a move sends from one block to another):
 * exhaustively on small blocks and at the edge of int. */
#include <limits.h>

#include "partition_util.h"
#include "suites.h"

START_TEST(test_overlap_exhaustive)
{
    int cases = 0, hits = 0;
    for (int ac = 0; ac <= 12; ac++)
        for (int ad = 0; ad <= 12; ad++)
            for (int bc = 0; bc <= 12; bc++)
                for (int bd = 0; bd <= 12; bd++) {
                    int want = 0, first = -1;
                    for (int r = 0; r < 25; r++)
                        if (r >= ad && r < ad + ac && r >= bd && r < bd + bc) {
                            if (!want) first = r;
                            want++;
                        }
                    int lo = SENT, got = xmpi_part_overlap(ac, ad, bc, bd, &lo);
                    REQUIRE(got == want, "[%d,+%d) and [%d,+%d): %d rows, want %d", ad, ac,
                                  bd, bc, got, want);
                    if (want)
                        REQUIRE(lo == first, "[%d,+%d) and [%d,+%d): first %d, want %d",
                                      ad, ac, bd, bc, lo, first);
                    else
                        REQUIRE(lo == SENT, "[%d,+%d) and [%d,+%d): lo set to %d", ad, ac,
                                      bd, bc, lo);
                    cases++;
                    hits += want > 0;
                }
    ck_assert(cases == 13 * 13 * 13 * 13 && hits > 1000);
}
END_TEST

START_TEST(test_overlap_large)
{
    int lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(5, INT_MAX - 5, INT_MAX - 3, 3, &lo), 5);
    REQUIRE_EQ(lo, INT_MAX - 5);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX, 0, 1, INT_MAX - 1, &lo), 1);
    REQUIRE_EQ(lo, INT_MAX - 1);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX, 0, INT_MAX, 0, &lo), INT_MAX);
    REQUIRE_EQ(lo, 0);
    lo = SENT;
    REQUIRE_EQ(xmpi_part_overlap(2, INT_MAX - 2, 0, INT_MAX, &lo), 0);
    REQUIRE_EQ(xmpi_part_overlap(INT_MAX - 7, 0, 7, INT_MAX - 7, &lo), 0);
    REQUIRE_EQ(lo, SENT);
}
END_TEST

Suite *partition_overlap_suite(void)
{
    Suite *s = suite_create("partition_overlap");
    TCase *tc = tcase_create("overlap");
    tcase_add_test(tc, test_overlap_exhaustive);
    tcase_add_test(tc, test_overlap_large);
    suite_add_tcase(s, tc);
    return s;
}
