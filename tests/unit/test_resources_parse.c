/* io/resources.c, the --xmpi-resources parser: good files with every layout
 * freedom, the longest name, many hosts, and every kind of malformed line refused with its
 * exact FILE:LINE and field, leaving the pool empty. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resources_util.h"
#include "suites.h"

START_TEST(test_good_file)
{
    static const char text[] =
        "# cluster of the FLEX-MPI example\n"
        "\n"
        "node0:quad:4:1.5\n"
        "   node1 : quad : 4 : 1.5   # trailing comment\n"
        "\t\n"
        "node2.cluster-a:quad_x:16:0:0.25\n"
        "  # indented comment: with:colons:in:it:too\n"
        "n3:dual:2:0.75:1\r\n"
        "N-4_b:gpu.v2:65536:1e3:0.5#comment right after\n"
        "n3:quad:1:2\n"
        "x:y:0001:3";   /* no final newline, leading zeros */
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_msg(parse_text(&p, text, "good.txt") == 0, "rejected: %s", err);
    ck_assert_int_eq(p.nhosts, 7);
    assert_host(&p, 0, "node0", "quad", 4, 1.5, 0);
    assert_host(&p, 1, "node1", "quad", 4, 1.5, 0);
    assert_host(&p, 2, "node2.cluster-a", "quad_x", 16, 0, 0.25);
    assert_host(&p, 3, "n3", "dual", 2, 0.75, 1);
    assert_host(&p, 4, "N-4_b", "gpu.v2", 65536, 1000, 0.5);
    assert_host(&p, 5, "n3", "quad", 1, 2, 0);
    assert_host(&p, 6, "x", "y", 1, 3, 0);
    xmpi_pool_free(&p);
    ck_assert_int_eq(p.nhosts, 0);
    ck_assert_ptr_null(p.hosts);
}
END_TEST

START_TEST(test_name_length_limit)
{
    /* 63 characters is the longest name that fits XMPIR_NAME_MAX with its NUL. */
    char name[XMPIR_NAME_MAX], text[256];
    memset(name, 'h', XMPIR_NAME_MAX - 1);
    name[XMPIR_NAME_MAX - 1] = '\0';
    snprintf(text, sizeof text, "%s:%s:1:0\n", name, name);
    struct xmpi_pool p;
    ck_assert_msg(parse_text(&p, text, "long.txt") == 0, "rejected: %s", err);
    ck_assert_int_eq(p.nhosts, 1);
    ck_assert_str_eq(p.hosts[0].name, name);
    ck_assert_str_eq(p.hosts[0].cls, name);
    xmpi_pool_free(&p);
}
END_TEST

START_TEST(test_many_hosts)
{
    /* More lines than any initial allocation, to go through the growth path. */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    ck_assert_ptr_nonnull(m);
    for (int i = 0; i < 1000; i++) fprintf(m, "host%d:c%d:%d:%d\n", i, i % 3, 1 + i % 7, i);
    fclose(m);
    struct xmpi_pool p;
    ck_assert_msg(parse_text(&p, text, "many.txt") == 0, "rejected: %s", err);
    free(text);
    ck_assert_int_eq(p.nhosts, 1000);
    for (int i = 0; i < 1000; i++) {
        char name[32], cls[8];
        snprintf(name, sizeof name, "host%d", i);
        snprintf(cls, sizeof cls, "c%d", i % 3);
        assert_host(&p, i, name, cls, 1 + i % 7, i, 0);
    }
    xmpi_pool_free(&p);
}
END_TEST

struct bad {
    const char *text;
    int line;            /* 0: the message has FILE: and no line */
    const char *field;   /* "field NAME: 'VALUE'" expected, or NULL for other messages */
    /* VALUE as echoed: a long one is cut to 40 characters and "...". */
    const char *value;
    const char *also;    /* another piece the message must hold */
};

static const struct bad bads[] = {
    /* hostname */
    {"a:q:1:0\n:q:1:0\n", 2, "hostname", "", "expected"},
    {"a b:q:1:0\n", 1, "hostname", "a b", "letters, digits"},
    {"a/b:q:1:0\n", 1, "hostname", "a/b", "expected"},
    {"n\xc3\xa9:q:1:0\n", 1, "hostname", "n\xc3\xa9", "expected"},
    {"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh:q:1:0\n", 1,
     "hostname", "hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...", "shorter than 64"},
    /* class */
    {"a:q:1:0\n\n# c\nb::1:0\n", 4, "class", "", "expected"},
    {"a:q*:1:0\n", 1, "class", "q*", "expected"},
    {"a:q r:1:0\n", 1, "class", "q r", "expected"},
    {"a:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc:1:0\n", 1, "class",
     "cccccccccccccccccccccccccccccccccccccccc...", "shorter than 64"},
    /* PEs */
    {"a:q:0:0\n", 1, "PEs", "0", "an integer from 1 to 65536"},
    {"a:q:65537:0\n", 1, "PEs", "65537", "an integer from 1 to 65536"},
    {"a:q:-1:0\n", 1, "PEs", "-1", "an integer from 1 to 65536"},
    {"a:q:+4:0\n", 1, "PEs", "+4", "an integer from 1 to 65536"},
    {"a:q:1.5:0\n", 1, "PEs", "1.5", "an integer from 1 to 65536"},
    {"a:q:four:0\n", 1, "PEs", "four", "an integer from 1 to 65536"},
    {"a:q:0x10:0\n", 1, "PEs", "0x10", "an integer from 1 to 65536"},
    {"a:q::0\n", 1, "PEs", "", "an integer from 1 to 65536"},
    {"a:q:   :0\n", 1, "PEs", "", "an integer from 1 to 65536"},
    {"a:q:4 4:0\n", 1, "PEs", "4 4", "an integer from 1 to 65536"},
    {"a:q:99999999999999999999999:0\n", 1, "PEs", "99999999999999999999999",
     "an integer from 1 to 65536"},
    /* cost */
    {"a:q:1:-1\n", 1, "cost", "-1", "a finite number >= 0"},
    {"a:q:1:-0.001\n", 1, "cost", "-0.001", "a finite number >= 0"},
    {"a:q:1:nan\n", 1, "cost", "nan", "a finite number >= 0"},
    {"a:q:1:inf\n", 1, "cost", "inf", "a finite number >= 0"},
    {"a:q:1:1e999\n", 1, "cost", "1e999", "a finite number >= 0"},
    {"a:q:1:cheap\n", 1, "cost", "cheap", "a finite number >= 0"},
    {"a:q:1:1.5x\n", 1, "cost", "1.5x", "a finite number >= 0"},
    {"a:q:1:\n", 1, "cost", "", "a finite number >= 0"},
    /* speed */
    {"a:q:1:0:0\n", 1, "speed", "0", "greater than 0 and at most 1"},
    {"a:q:1:0:1.5\n", 1, "speed", "1.5", "greater than 0 and at most 1"},
    {"a:q:1:0:-0.5\n", 1, "speed", "-0.5", "greater than 0 and at most 1"},
    {"a:q:1:0:nan\n", 1, "speed", "nan", "greater than 0 and at most 1"},
    {"a:q:1:0:half\n", 1, "speed", "half", "greater than 0 and at most 1"},
    {"a:q:1:0:\n", 1, "speed", "", "greater than 0 and at most 1"},
    {"a:q:1:0:1.0000001\n", 1, "speed", "1.0000001", "greater than 0 and at most 1"},
    /* field counts */
    {"a:q:1\n", 1, NULL, NULL, "expected hostname:class:PEs:cost[:speed], got 3 fields"},
    {"a\n", 1, NULL, NULL, "expected hostname:class:PEs:cost[:speed], got 1 fields"},
    {"ok:q:1:0\na:q:1:0:0.5:x\n", 2, NULL, NULL,
     "expected hostname:class:PEs:cost[:speed], got 6 fields"},
    {"a:q:1:0:0.5:x:y:z\n", 1, NULL, NULL,
     "expected hostname:class:PEs:cost[:speed], got 8 fields"},
    {"a:q:1 # :0\n", 1, NULL, NULL, "expected hostname:class:PEs:cost[:speed], got 3 fields"},
    /* duplicates: the same pair again, whatever its other fields */
    {"n0:quad:4:1\nn1:quad:4:1\n\nn0:quad:2:3:0.5\n", 4, "class", "quad", "line 1"},
    {"n0:quad:4:1\nn0:dual:2:1\nn0:dual:2:1\n", 3, "class", "dual", "line 2"},
    {" n0 :quad:4:1\nn0: quad :4:1\n", 2, "class", "quad", "once"},
    /* the first error wins, even when a later line is also bad */
    {"a:q:1:0\nb:q:0:0\nc:q:1:-1\n", 2, "PEs", "0", "expected"},
    /* no host lines */
    {"", 0, NULL, NULL, "no host lines"},
    {"\n\n   \n", 0, NULL, NULL, "no host lines"},
    {"# only\n  # comments\n", 0, NULL, NULL, "no host lines"},
};
#define NBAD ((int)(sizeof bads / sizeof bads[0]))

START_TEST(test_bad_file)
{
    const struct bad *b = &bads[_i];
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_msg(parse_text(&p, b->text, "res.txt") == -1, "case %d accepted", _i);
    ck_assert_int_eq(p.nhosts, 0);
    ck_assert_ptr_null(p.hosts);
    char want[256];
    if (b->line) snprintf(want, sizeof want, "res.txt:%d: ", b->line);
    else snprintf(want, sizeof want, "res.txt: ");
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "case %d: '%s' does not start '%s'",
                  _i, err, want);
    if (b->field) {
        snprintf(want, sizeof want, "res.txt:%d: field %s: '%s'", b->line, b->field,
                 b->value);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0,
                      "case %d: '%s' does not start '%s'", _i, err, want);
        ck_assert_msg(strstr(err, "expected") != NULL, "case %d: '%s' lacks expected", _i,
                      err);
    }
    ck_assert_msg(strstr(err, b->also) != NULL, "case %d: '%s' lacks '%s'", _i, err, b->also);
    ck_assert_msg(strchr(err, '\n') == NULL, "case %d: message spans lines: '%s'", _i, err);
}
END_TEST

START_TEST(test_long_bad_value_keeps_expected)
{
    /* A huge value must not push "expected ..." out of the message. */
    size_t n = 5000;
    char *text = malloc(n + 32);
    ck_assert_ptr_nonnull(text);
    memcpy(text, "a:q:", 4);
    memset(text + 4, '9', n);
    strcpy(text + 4 + n, ":0\n");
    struct xmpi_pool p;
    ck_assert_int_eq(parse_text(&p, text, "res.txt"), -1);
    free(text);
    ck_assert_msg(strncmp(err, "res.txt:1: field PEs: '999", 26) == 0, "%s", err);
    ck_assert_msg(strstr(err, "expected an integer from 1 to 65536") != NULL, "%s", err);
}
END_TEST

START_TEST(test_nul_byte)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    static const char text[] = "a:q:1:0\nb:q\0:1:0\n";
    ck_assert_uint_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    rewind(f);
    struct xmpi_pool p;
    garbage(&p);
    ck_assert_int_eq(xmpi_pool_parse(&p, f, "nul.txt", err, sizeof err), -1);
    fclose(f);
    ck_assert_msg(strncmp(err, "nul.txt:2: ", 11) == 0, "%s", err);
    /* Named as such: cut at the NUL, the line would read as a wrong field count. */
    ck_assert_msg(strstr(err, "NUL") != NULL, "%s", err);
    ck_assert_int_eq(p.nhosts, 0);
    ck_assert_ptr_null(p.hosts);
}
END_TEST

Suite *resources_parse_suite(void)
{
    Suite *s = suite_create("resources_parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_good_file);
    tcase_add_test(tc, test_name_length_limit);
    tcase_add_test(tc, test_many_hosts);
    tcase_add_loop_test(tc, test_bad_file, 0, NBAD);
    tcase_add_test(tc, test_long_bad_value_keeps_expected);
    tcase_add_test(tc, test_nul_byte);
    suite_add_tcase(s, tc);
    return s;
}
