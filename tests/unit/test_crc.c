/* The checkpoints' CRC-32 (libxmpi/crc.c, ISA-L or zlib) against its definition computed bit by
 * bit here, and against zlib: on random buffers at every alignment, chained, and combined piece
 * by piece as the checkpoint does with crc32_combine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../../libxmpi/crc.h"
#include "rng.h"
#include "suites.h"

/* The reflected CRC-32 (polynomial 0xEDB88320, initial and final XOR with all ones), one bit at
 * a time: the definition, sharing no code with either library. */
static unsigned long crc_bits(unsigned long crc, const unsigned char *p, size_t n)
{
    uint32_t c = ~(uint32_t)crc;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static unsigned char *random_bytes(size_t n, uint64_t seed)
{
    unsigned char *b = malloc(n ? n : 1);
    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(rng_next(&seed) >> 56);
    return b;
}

START_TEST(test_check_value)
{
    /* The published check value of CRC-32 (ISO-HDLC), and the empty input. */
    ck_assert_uint_eq(xmpi_crc32(0, "123456789", 9), crc_bits(0, (const unsigned char *)"123456789", 9));
    ck_assert_uint_eq(xmpi_crc32(0, "123456789", 9), 0xCBF43926UL);
    ck_assert_uint_eq(xmpi_crc32(0, "", 0), 0);
    ck_assert_uint_eq(xmpi_crc32(0x12345678UL, "", 0), 0x12345678UL);
    ck_assert_uint_eq(xmpi_crc32(7, NULL, 0), 7);   /* a process that owns no rows */
}
END_TEST

START_TEST(test_random_against_definition)
{
    /* Lengths 0..4999 at offsets 0..63: every alignment, every tail length of a folded loop. */
    unsigned char *b = random_bytes(5100, 42);
    uint64_t s = 7;
    for (int t = 0; t < 2000; t++) {
        size_t off = (size_t)(rng_next(&s) % 64), len = (size_t)(rng_next(&s) % 5000);
        unsigned long want = crc_bits(0, b + off, len);
        ck_assert_msg(xmpi_crc32(0, b + off, len) == want, "length %zu at offset %zu", len, off);
        ck_assert_uint_eq(crc32(0L, b + off, (uInt)len), want);
    }
    free(b);
}
END_TEST

START_TEST(test_large_against_zlib)
{
    /* Larger than any folding block, odd length. */
    size_t n = (3u << 20) + 7;
    unsigned char *b = random_bytes(n, 99);
    ck_assert_uint_eq(xmpi_crc32(0, b, n), crc32(0L, b, (uInt)n));
    ck_assert_uint_eq(xmpi_crc32(0, b, n), crc_bits(0, b, n));
    free(b);
}
END_TEST

START_TEST(test_chained_and_combined)
{
    /* A file cut into pieces (a partition's blocks): the CRC continued piece after piece, and
     * the pieces' own CRCs combined in order, both equal the whole file's. */
    size_t n = 200000;
    unsigned char *b = random_bytes(n, 5);
    unsigned long whole = crc_bits(0, b, n);
    uint64_t s = 11;
    for (int t = 0; t < 50; t++) {
        size_t cut[6] = {0, 0, 0, 0, 0, n};
        for (int i = 1; i < 5; i++) cut[i] = (size_t)(rng_next(&s) % (n + 1));
        for (int i = 1; i < 5; i++)   /* sort the four cuts */
            for (int j = i + 1; j < 5; j++)
                if (cut[j] < cut[i]) { size_t x = cut[i]; cut[i] = cut[j]; cut[j] = x; }
        unsigned long chained = 0, combined = 0;
        for (int i = 0; i < 5; i++) {
            size_t len = cut[i + 1] - cut[i];
            chained = xmpi_crc32(chained, b + cut[i], len);
            combined = crc32_combine(combined, xmpi_crc32(0, b + cut[i], len), (z_off_t)len);
        }
        ck_assert_uint_eq(chained, whole);
        ck_assert_uint_eq(combined, whole);
    }
    free(b);
}
END_TEST

START_TEST(test_damage_detected)
{
    /* One flipped bit anywhere changes the CRC (a CRC-32 catches every single-bit error). */
    size_t n = 4096;
    unsigned char *b = random_bytes(n, 3);
    unsigned long good = xmpi_crc32(0, b, n);
    for (size_t bit = 0; bit < n * 8; bit += 97) {
        b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        ck_assert_msg(xmpi_crc32(0, b, n) != good, "bit %zu", bit);
        b[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    ck_assert_uint_eq(xmpi_crc32(0, b, n), good);
    free(b);
}
END_TEST

Suite *crc_suite(void)
{
    Suite *s = suite_create("crc");
    TCase *tc = tcase_create("crc");
    tcase_add_test(tc, test_check_value);
    tcase_add_test(tc, test_random_against_definition);
    tcase_add_test(tc, test_large_against_zlib);
    tcase_add_test(tc, test_chained_and_combined);
    tcase_add_test(tc, test_damage_detected);
    suite_add_tcase(s, tc);
    return s;
}
