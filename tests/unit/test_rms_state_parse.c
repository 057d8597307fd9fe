/* io/rms_state.c, parsing: the xmpi-rms state file with its layout freedoms
 * (blanks, comments, CRLF, no final newline, the longest name) and every rejection path,
 * each of which leaves the state as it was. */
#include <string.h>

#include "rms_util.h"
#include "suites.h"

START_TEST(test_parse_example)
{
    struct xmpi_rms_state st;
    mk(&st, "# xmpi-rms state v2: host class pes free allocated reclaim initial\n"
            "vm fast 2 0 1 0 1\n"
            "vm slow 2 1 1 0 0\n");
    ck_assert_int_eq(st.n, 2);
    assert_entry(&st, 0, "vm", "fast", 2, 0, 1, 0);
    assert_entry(&st, 1, "vm", "slow", 2, 1, 1, 0);
    ck_assert_int_eq(st.e[0].initial, 1);
    ck_assert_int_eq(st.e[1].initial, 0);
    xmpi_rms_state_free(&st);
    /* A v1 file (six fields) still reads: nothing is known to belong to initial processes. */
    mk(&st, "# xmpi-rms state v1: host class pes free allocated reclaim\n"
            "vm fast 2 0 1 0\n"
            "vm slow 2 1 1 0\n");
    ck_assert_int_eq(st.n, 2);
    assert_entry(&st, 0, "vm", "fast", 2, 0, 1, 0);
    assert_entry(&st, 1, "vm", "slow", 2, 1, 1, 0);
    ck_assert_int_eq(st.e[0].initial, 0);
    ck_assert_int_eq(xmpi_rms_state_find(&st, "vm", "slow"), 1);
    ck_assert_int_eq(xmpi_rms_state_find(&st, "vm", "gpu"), -1);
    ck_assert_int_eq(xmpi_rms_state_find(&st, "vm2", "fast"), -1);
    xmpi_rms_state_free(&st);
    ck_assert_int_eq(st.n, 0);
    ck_assert_ptr_null(st.e);
}
END_TEST

START_TEST(test_parse_layout)
{
    struct xmpi_rms_state st;
    /* Tabs, runs of blanks, trailing comments, CRLF, blank lines, no final newline. */
    mk(&st, "\n   \n# comment\n\tn-1.a  c_1\t8 2 4 3   # a note\r\n\n"
            "node.example.org   gpu.x-2 1000000 0 1000000 1000000\r\n"
            "z z 0 0 0 0");
    ck_assert_int_eq(st.n, 3);
    assert_entry(&st, 0, "n-1.a", "c_1", 8, 2, 4, 3);
    assert_entry(&st, 1, "node.example.org", "gpu.x-2", 1000000, 0, 1000000, 1000000);
    assert_entry(&st, 2, "z", "z", 0, 0, 0, 0);
    xmpi_rms_state_free(&st);

    mk(&st, "");
    ck_assert_int_eq(st.n, 0);
    xmpi_rms_state_free(&st);
    mk(&st, "# only comments\n\n");
    ck_assert_int_eq(st.n, 0);
    xmpi_rms_state_free(&st);

    /* A 63-character name is the longest that fits. */
    char text[256], name[XMPIR_NAME_MAX];
    memset(name, 'h', XMPIR_NAME_MAX - 1);
    name[XMPIR_NAME_MAX - 1] = '\0';
    snprintf(text, sizeof text, "%s %s 1 1 0 0\n", name, name);
    mk(&st, text);
    assert_entry(&st, 0, name, name, 1, 1, 0, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

struct bad_state {
    const char *text;
    const char *want;   /* the whole message up to "expected", or its distinctive part */
    const char *also;
};

static const struct bad_state bad_states[] = {
    {"vm fast 2 x 1 0\n", "t.state:1: field free: 'x' is not accepted; expected a whole number",
     NULL},
    {"# h\nvm fast two 0 1 0\n", "t.state:2: field pes: 'two' is not accepted; expected", NULL},
    {"vm fast 2 0 1 0\n\nvm slow 2 0 -1 0\n",
     "t.state:3: field allocated: '-1' is not accepted; expected", NULL},
    {"vm fast 2 0 1 +0\n", "t.state:1: field reclaim: '+0' is not accepted; expected", NULL},
    {"vm fast 2 0 1.0 0\n", "t.state:1: field allocated: '1.0'", NULL},
    {"vm fast 0x2 0 1 0\n", "t.state:1: field pes: '0x2'", NULL},
    {"vm fast 1000001 0 1 0\n", "t.state:1: field pes: '1000001' is not accepted; expected a "
                                "whole number from 0 to 1000000",
     NULL},
    {"vm fast 99999999999999999999 0 1 0\n", "t.state:1: field pes: '99999999999999999999'",
     NULL},
    {"vm fast 2 0 1\n", "t.state:1: field reclaim: missing; expected 6 or 7 fields: host class "
                        "pes free allocated reclaim [initial]",
     NULL},
    {"vm\n", "t.state:1: field class: missing", NULL},
    {"vm fast\n", "t.state:1: field pes: missing", NULL},
    {"vm fast 2 0 1 0 1 7\n", "t.state:1: more than 7 fields are not accepted; expected 6 or 7 "
                             "fields",
     NULL},
    {"vm fast 2 0 1 0 # ok\nvm slow 2 0 1 0 x\n", "t.state:2: field initial: 'x' is not "
                                                  "accepted; expected a whole number",
     NULL},
    {"vm fast 2 0 1 0 7\n", "t.state:1: initial (7) exceeds allocated (1); expected initial <= "
                           "allocated, reclaim <= allocated - initial (the initial processes "
                           "never leave)",
     NULL},
    {"vm fast 4 0 3 2 2\n", "t.state:1: reclaim (2) exceeds allocated - initial (1); expected",
     NULL},
    {"vm fast 2 1 2 0\n", "t.state:1: free + allocated (3) exceeds pes (2); expected initial "
                          "<= allocated, reclaim <= allocated - initial",
     NULL},
    {"vm fast 2 0 1 2\n", "t.state:1: reclaim (2) exceeds allocated - initial (1); expected",
     NULL},
    {"vm fast 0 1 0 0\n", "t.state:1: free + allocated (1) exceeds pes (0)", NULL},
    {"vm fast 2 0 1 0\nvm slow 2 0 1 0\nvm fast 4 0 0 0\n",
     "t.state:3: host vm class fast already appears on line 1; expected each (host, class) "
     "pair once",
     NULL},
    {"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh fast 2 0 1 0\n",
     "t.state:1: field host: 'hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh...' is not accepted; "
     "expected a name of 1 to 63 characters",
     NULL},
    {"vm fa\x01st 2 0 1 0\n", "t.state:1: field class: ", "without blanks or '#'"},
};
#define NBAD_STATES ((int)(sizeof bad_states / sizeof bad_states[0]))

START_TEST(test_parse_bad)
{
    const struct bad_state *b = &bad_states[_i];
    struct xmpi_rms_entry sentinel;
    struct xmpi_rms_state st = {5, &sentinel};
    ck_assert_msg(parse_text(&st, b->text, "t.state") == -1, "accepted: %s", b->text);
    assert_err_has(b->want);
    if (b->also) assert_err_has(b->also);
    ck_assert_msg(strstr(err, "expected") != NULL, "no 'expected' in '%s'", err);
    ck_assert_int_eq(st.n, 5);
    ck_assert_ptr_eq(st.e, &sentinel);
}
END_TEST

START_TEST(test_parse_nul)
{
    static const char text[] = "vm fast 2 0 1 0\nvm sl\0ow 2 0 1 0\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    ck_assert_ptr_nonnull(f);
    struct xmpi_rms_state st = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_parse(&st, f, "n.state", err, sizeof err), -1);
    fclose(f);
    assert_err_has("n.state:2: a NUL byte is not accepted");
    ck_assert_int_eq(st.n, 0);
}
END_TEST

Suite *rms_state_parse_suite(void)
{
    Suite *s = suite_create("rms_state_parse");
    TCase *tc = tcase_create("state_parse");
    tcase_add_test(tc, test_parse_example);
    tcase_add_test(tc, test_parse_layout);
    tcase_add_loop_test(tc, test_parse_bad, 0, NBAD_STATES);
    tcase_add_test(tc, test_parse_nul);
    suite_add_tcase(s, tc);
    return s;
}
