/* io/textfile.c: what every file format's error message shows of a bad value
 * (xmpi_text_echo and xmpi_text_field_error): printable ASCII and well-formed UTF-8 as
 * themselves, any other byte and the backslash as \xNN, cut to XMPIR_TEXT_ECHO_MAX characters with "..." and never in the
 * middle of an escape; and a malformed state file's bytes reach the message escaped; the
 * line reader's verbatim mode and line limit (the checkpoint manifest's). */
#include <stdio.h>
#include <string.h>

#include "../../io/rms_state.h"
#include "../../io/textfile.h"
#include "errbuf.h"
#include "suites.h"

/* Nothing a terminal would act on (these tests echo ASCII and control bytes only). */
static void assert_printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte 0x%02x shown raw in '%s'", *p, s);
}

START_TEST(test_echo_plain)
{
    char out[XMPIR_TEXT_ECHO_SIZE];
    ck_assert_str_eq(xmpi_text_echo(out, "fast-1.x"), "fast-1.x");
    ck_assert_str_eq(xmpi_text_echo(out, ""), "");
    char forty[41], more[60];
    memset(forty, 'a', 40);
    forty[40] = '\0';
    ck_assert_str_eq(xmpi_text_echo(out, forty), forty);
    memset(more, 'b', 59);
    more[59] = '\0';
    xmpi_text_echo(out, more);
    ck_assert_uint_eq(strlen(out), XMPIR_TEXT_ECHO_MAX + 3);
    ck_assert_str_eq(out + XMPIR_TEXT_ECHO_MAX, "...");
}
END_TEST

START_TEST(test_echo_escapes)
{
    char out[XMPIR_TEXT_ECHO_SIZE];
    ck_assert_str_eq(xmpi_text_echo(out, "a\x1b[2Jb"), "a\\x1b[2Jb");
    ck_assert_str_eq(xmpi_text_echo(out, "\r\n\t\x7f"), "\\x0d\\x0a\\x09\\x7f");
    /* Well-formed UTF-8 is text; a stray byte, a cut character, a C1 control are not. */
    ck_assert_str_eq(xmpi_text_echo(out, "n\xc3\xa9"), "n\xc3\xa9");
    ck_assert_str_eq(xmpi_text_echo(out, "\xff\xc3"), "\\xff\\xc3");
    ck_assert_str_eq(xmpi_text_echo(out, "\xc2\x9b" "2J"), "\\xc2\\x9b2J");
    ck_assert_str_eq(xmpi_text_echo(out, "\xed\xa0\x80"), "\\xed\\xa0\\x80");
    ck_assert_str_eq(xmpi_text_echo(out, "a\\b"), "a\\x5cb");
    assert_printable(xmpi_text_echo(out, "\x01\x02\x9b"));
}
END_TEST

/* Escapes count as the four characters they print; the cut falls before one that would not
 * fit whole, and the result always fits XMPIR_TEXT_ECHO_SIZE. */
START_TEST(test_echo_cut)
{
    char out[XMPIR_TEXT_ECHO_SIZE + 8];
    memset(out, 'Z', sizeof out);
    char v[200];
    memset(v, '\x1b', sizeof v - 1);
    v[sizeof v - 1] = '\0';
    xmpi_text_echo(out, v);
    /* 10 escapes of 4 = 40 characters, then the "...". */
    ck_assert_uint_eq(strlen(out), 43);
    ck_assert_str_eq(out + 40, "...");
    ck_assert_int_eq(out[XMPIR_TEXT_ECHO_SIZE], 'Z');
    /* 38 plain characters leave no room for a whole escape. */
    memset(v, 'x', 38);
    v[38] = '\x07';
    v[39] = '\0';
    xmpi_text_echo(out, v);
    ck_assert_uint_eq(strlen(out), 41);
    ck_assert_str_eq(out + 38, "...");
    /* ... but an escape that ends exactly at the limit is kept. */
    v[36] = '\x07';
    v[37] = '\0';
    xmpi_text_echo(out, v);
    ck_assert_uint_eq(strlen(out), 40);
    ck_assert_str_eq(out + 36, "\\x07");
    assert_printable(out);
}
END_TEST

/* A value field of a file with terminal escapes in it: the message names it escaped. */
START_TEST(test_field_error_escaped)
{
    static const char text[] = "n1 fast 4 \x1b]0;owned\x07 0 0\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_parse(&st, f, "t.state", err, sizeof err), -1);
    fclose(f);
    assert_err_has("t.state:1: field free: '\\x1b]0;owned\\x07' is not accepted; expected");
    assert_printable(err);
}
END_TEST

/* Operations naming a class or a host from the command line quote it the same way. */
START_TEST(test_unknown_class_escaped)
{
    static const char text[] = "n1 fast 4 0 0 0\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_parse(&st, f, "t.state", err, sizeof err), 0);
    fclose(f);
    ck_assert_int_eq(xmpi_rms_offer(&st, "f\x1b[31m", 1, err, sizeof err), -1);
    assert_err_has("unknown class 'f\\x1b[31m'; known classes: fast");
    assert_printable(err);
    ck_assert_int_eq(xmpi_rms_take(&st, "n\n2", "fast", 1, 0, err, sizeof err), -1);
    assert_err_has("no host 'n\\x0a2' of class fast");
    xmpi_rms_state_free(&st);
}
END_TEST

/* The manifest's mode: every line as it is, '#' and blank ones too, and a line longer than
 * max_line an error naming it; the people's files keep comments and any length. */
START_TEST(test_lines_verbatim)
{
    char text[] = "a # b\n\n  \nlong-line\nafter\n";
    FILE *f = fmemopen(text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    struct xmpi_text_lines r;
    char *line, err[200];
    xmpi_text_lines_init(&r, f, "F");
    r.verbatim = 1;
    r.max_line = 8;
    ck_assert_int_eq(xmpi_text_next(&r, &line), 1);
    ck_assert_str_eq(line, "a # b");
    ck_assert_int_eq(xmpi_text_next(&r, &line), 1);
    ck_assert_str_eq(line, "");
    ck_assert_int_eq(xmpi_text_next(&r, &line), 1);
    ck_assert_str_eq(line, "  ");
    ck_assert_int_eq(xmpi_text_next(&r, &line), -1);
    ck_assert_int_eq(xmpi_text_lines_failed(&r, err, sizeof err), -1);
    ck_assert_str_eq(err, "F:4: a line longer than 8 bytes is not accepted; expected lines of "
                          "at most 8 bytes");
    xmpi_text_lines_free(&r);
    rewind(f);
    xmpi_text_lines_init(&r, f, "F");
    ck_assert_int_eq(xmpi_text_next(&r, &line), 1);
    ck_assert_str_eq(line, "a ");
    ck_assert_int_eq(xmpi_text_next(&r, &line), 1);
    ck_assert_str_eq(line, "long-line\n");
    ck_assert_int_eq(r.lineno, 4);
    xmpi_text_lines_free(&r);
    fclose(f);
}
END_TEST

Suite *textfile_suite(void)
{
    Suite *s = suite_create("textfile");
    TCase *tc = tcase_create("echo");
    tcase_add_test(tc, test_echo_plain);
    tcase_add_test(tc, test_echo_escapes);
    tcase_add_test(tc, test_echo_cut);
    tcase_add_test(tc, test_field_error_escaped);
    tcase_add_test(tc, test_unknown_class_escaped);
    tcase_add_test(tc, test_lines_verbatim);
    suite_add_tcase(s, tc);
    return s;
}
