/* io/ckpt_manifest.c: the manifest written and read back field for field, every way a
 * damaged or edited manifest is refused (FILE:LINE, its bad value escaped), an over-long line
 * refused rather than cut, what the writer wrote read back the same however it is spaced,
 * the comparison with what a program registers, --xmpi-checkpoint-every's values and the
 * automatic names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../io/ckpt_manifest.h"
#include "suites.h"

static void sample(struct xmpi_ckpt_manifest *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->library, sizeof m->library, "0.1.0");
    m->iteration = 40;
    m->interval = 4;
    m->nprocs = 3;
    m->rows = 23;
    m->n = 2;
    m->s[0] = (struct xmpi_ckpt_struct){.kind = XMPIR_CKPT_DENSE, .elsize = 8};
    snprintf(m->s[0].type, sizeof m->s[0].type, "MPI_DOUBLE");
    m->s[1] = (struct xmpi_ckpt_struct){.kind = XMPIR_CKPT_SPARSE, .replicated = 1, .elsize = 4,
                                        .nnz = 43};
    snprintf(m->s[1].type, sizeof m->s[1].type, "MPI_FLOAT");
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(xmpi_ckpt_layout(&m->s[i], i, m->rows), 0);
        for (int f = 0; f < m->s[i].nfiles; f++) m->s[i].file[f].crc = 0x1234abcdUL + (unsigned long)f;
    }
}

static char *text_of(const struct xmpi_ckpt_manifest *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(xmpi_ckpt_write(f, m), 0);
    fclose(f);
    return buf;
}

START_TEST(test_layout_sizes)
{
    struct xmpi_ckpt_manifest m;
    sample(&m);
    ck_assert_int_eq(m.s[0].nfiles, 1);
    ck_assert_int_eq(m.s[0].file[0].bytes, 23 * 23 * 8);
    ck_assert_str_eq(m.s[0].file[0].name, "s0.data");
    ck_assert_int_eq(m.s[1].nfiles, 3);
    ck_assert_int_eq(m.s[1].file[0].bytes, 24 * 8);
    ck_assert_int_eq(m.s[1].file[1].bytes, 43 * 4);
    ck_assert_int_eq(m.s[1].file[2].bytes, 43 * 4);
    ck_assert_str_eq(m.s[1].file[2].name, "s1.a");
    struct xmpi_ckpt_struct big = {.kind = XMPIR_CKPT_DENSE, .elsize = 8};
    ck_assert_int_eq(xmpi_ckpt_layout(&big, 0, 4000000000LL), -1);
}
END_TEST

START_TEST(test_round_trip)
{
    struct xmpi_ckpt_manifest m, back;
    sample(&m);
    char *t = text_of(&m), err[512] = "";
    ck_assert_msg(xmpi_ckpt_parse(t, "manifest", &back, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(back.iteration, 40);
    ck_assert_int_eq(back.interval, 4);
    ck_assert_int_eq(back.nprocs, 3);
    ck_assert_int_eq(back.rows, 23);
    ck_assert_int_eq(back.n, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(back.s[i].kind, m.s[i].kind);
        ck_assert_int_eq(back.s[i].replicated, m.s[i].replicated);
        ck_assert_int_eq(back.s[i].elsize, m.s[i].elsize);
        ck_assert_int_eq(back.s[i].nnz, m.s[i].nnz);
        ck_assert_str_eq(back.s[i].type, m.s[i].type);
        for (int f = 0; f < m.s[i].nfiles; f++) {
            ck_assert_int_eq(back.s[i].file[f].bytes, m.s[i].file[f].bytes);
            ck_assert_uint_eq(back.s[i].file[f].crc, m.s[i].file[f].crc);
            ck_assert_str_eq(back.s[i].file[f].name, m.s[i].file[f].name);
        }
    }
    ck_assert_int_eq(xmpi_ckpt_match(&back, &m, err, sizeof err), 0);
    free(t);
}
END_TEST

/* The sample's text with `from` replaced by `to` is refused, naming `want`. */
static void refused(const char *from, const char *to, const char *want)
{
    struct xmpi_ckpt_manifest m, back;
    sample(&m);
    char *t = text_of(&m), err[512] = "";
    char *at = strstr(t, from);
    ck_assert_msg(at != NULL, "'%s' not in the sample", from);
    size_t n = strlen(t) + strlen(to) + 1;
    char *e = malloc(n);
    snprintf(e, n, "%.*s%s%s", (int)(at - t), t, to, at + strlen(from));
    ck_assert_int_eq(xmpi_ckpt_parse(e, "M", &back, err, sizeof err), -1);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' does not say '%s'", err, want);
    free(e);
    free(t);
}

START_TEST(test_refused)
{
    refused("xmpi-checkpoint 1", "xmpi-checkpoint 2",
            "M:1: field VERSION: '2' is not accepted; expected 1, the manifest format");
    refused("xmpi-checkpoint 1", "hello",
            "M:1: not a libxmpi checkpoint manifest; expected 'xmpi-checkpoint 1' first");
    refused("library 0.1.0", "librar 0.1.0",
            "M:2: field keyword: 'librar' is not accepted; expected library");
    refused("iteration 40", "iteration -1",
            "M:3: field N: '-1' is not accepted; expected an integer from 0 to");
    refused("iteration 40", "iteration", "M:3: field N: missing; expected 2 fields: iteration N");
    refused("interval 4\n", "", "M:4: field keyword: 'nprocs' is not accepted; expected interval");
    refused("structures 2", "structures 3",
            "M:14: field I: missing; expected 7 fields: structure 2 KIND SCHEME TYPE ELSIZE NNZ");
    refused("end\n", "", "M:14: the manifest ends here; expected 'end' after the 2 structure(s)");
    refused("end\n", "end\nmore\n", "M:15: text after 'end' is not accepted");
    refused("end\n", "and\n", "M:14: this line is not accepted; expected 'end' after the 2");
    refused("dense distributed", "matrix distributed",
            "M:8: field KIND: 'matrix' is not accepted; expected vector, dense or sparse");
    refused("dense distributed", "dense scattered",
            "M:8: field SCHEME: 'scattered' is not accepted; expected distributed or replicated");
    refused("4232", "4231",
            "M:9: field BYTES: '4231' is not accepted; expected 4232, the size of file 0 data "
            "for 23 rows");
    refused("1234abcd s0", "1234abcg s0",
            "M:9: field CRC32: '1234abcg' is not accepted; expected 8 hexadecimal digits");
    refused("1234abcd s0", "-0000001 s0",
            "M:9: field CRC32: '-0000001' is not accepted; expected 8 hexadecimal digits");
    refused("1234abcd s0", "+1234567 s0",
            "M:9: field CRC32: '+1234567' is not accepted; expected 8 hexadecimal digits");
    refused("1234abcd s0", "0x123456 s0",
            "M:9: field CRC32: '0x123456' is not accepted; expected 8 hexadecimal digits");
    refused("s1.ja", "s9.ja", "M:12: field NAME: 's9.ja' is not accepted; expected s1.ja");
    refused("MPI_DOUBLE 8 0", "MPI_DOUBLE 8 5",
            "M:8: field NNZ: '5' is not accepted; expected 0 for a dense");
    refused("file 1 ja", "file 1 a",
            "M:12: field PART: 'a' is not accepted; expected ja, for the files of structure 1: "
            "'file 1 ja BYTES CRC32 NAME'");
    /* The field splitter would take these as blanks; the manifest's words never are. */
    refused("MPI_DOUBLE 8 0", "MPI_DOUBLE\v 8 0", "M:8: byte \\x0b is not accepted");
    struct xmpi_ckpt_manifest back;
    char err[512] = "";
    ck_assert_int_eq(xmpi_ckpt_parse("", "M", &back, err, sizeof err), -1);
    ck_assert_str_eq(err, "M:1: the manifest ends here; expected 'xmpi-checkpoint 1' (a libxmpi "
                          "checkpoint manifest)");
}
END_TEST

/* The sample's text with the line starting `key` padded with blanks to `len` bytes. */
static char *padded(const char *key, size_t len)
{
    struct xmpi_ckpt_manifest m;
    sample(&m);
    char *t = text_of(&m);
    char *at = strstr(t, key), *eol = strchr(at, '\n');
    size_t n = strlen(t) + len + 1;
    char *e = malloc(n);
    int w = snprintf(e, n, "%.*s", (int)(eol - t), t);
    while ((size_t)(w - (at - t)) < len) e[w++] = ' ';
    snprintf(e + w, n - (size_t)w, "%s", eol);
    free(t);
    return e;
}

/* An over-long line is refused and named, never cut to what fits (the reader cut lines to
 * 511 bytes and read the rest as if it were not there). */
START_TEST(test_long_line)
{
    struct xmpi_ckpt_manifest back;
    char err[512] = "";
    char *e = padded("rows 23", XMPIR_CKPT_LINE_MAX);
    ck_assert_msg(xmpi_ckpt_parse(e, "M", &back, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(back.rows, 23);
    free(e);
    e = padded("rows 23", XMPIR_CKPT_LINE_MAX + 1);
    ck_assert_int_eq(xmpi_ckpt_parse(e, "M", &back, err, sizeof err), -1);
    ck_assert_str_eq(err, "M:6: a line longer than 511 bytes is not accepted; expected lines of "
                          "at most 511 bytes");
    free(e);
    /* Blank up to the cut, with text after it: the text is not lost after 'end' either. */
    struct xmpi_ckpt_manifest m;
    sample(&m);
    char *t = text_of(&m);
    size_t n = strlen(t) + 700;
    e = malloc(n);
    snprintf(e, n, "%s%600sjunk\n", t, "");
    ck_assert_int_eq(xmpi_ckpt_parse(e, "M", &back, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "M:15: a line longer than 511 bytes is not accepted"));
    free(e);
    free(t);
}
END_TEST

/* Nothing a terminal would act on. */
static void assert_printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        ck_assert_msg(*p >= 0x20 && *p < 0x7f, "byte 0x%02x shown raw in '%s'", *p, s);
}

/* A damaged manifest's bytes reach the message escaped, as in every other file's. */
START_TEST(test_bad_value_escaped)
{
    struct xmpi_ckpt_manifest m, back;
    sample(&m);
    char *t = text_of(&m), err[512] = "";
    char *at = strstr(t, "dense distributed");
    size_t n = strlen(t) + 16;
    char *e = malloc(n);
    snprintf(e, n, "%.*sde\x1b[2Jnse%s", (int)(at - t), t, at + strlen("dense"));
    ck_assert_int_eq(xmpi_ckpt_parse(e, "M", &back, err, sizeof err), -1);
    ck_assert_str_eq(err, "M:8: field KIND: 'de\\x1b[2Jnse' is not accepted; expected vector, "
                          "dense or sparse, for structure 0");
    assert_printable(err);
    free(e);
    /* A type name too long to keep: cut in the message, its control bytes escaped. */
    at = strstr(t, "MPI_DOUBLE");
    n = strlen(t) + 128;
    e = malloc(n);
    snprintf(e, n, "%.*s\a%s%s", (int)(at - t), t,
             "MPI_DOUBLE_0123456789_0123456789_0123456789_0123456789_0123456789", at);
    ck_assert_int_eq(xmpi_ckpt_parse(e, "M", &back, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "M:8: field TYPE: '\\x07MPI_DOUBLE_0123456789_0123456789_012...' "
                                      "is not accepted; expected an MPI type name shorter than 64"));
    assert_printable(err);
    free(e);
    free(t);
}
END_TEST

static void assert_same(const struct xmpi_ckpt_manifest *a, const struct xmpi_ckpt_manifest *b)
{
    ck_assert_int_eq(a->version, b->version);
    ck_assert_str_eq(a->library, b->library);
    ck_assert(a->iteration == b->iteration && a->interval == b->interval);
    ck_assert_int_eq(a->nprocs, b->nprocs);
    ck_assert(a->rows == b->rows);
    ck_assert_int_eq(a->n, b->n);
    for (int i = 0; i < a->n; i++) {
        const struct xmpi_ckpt_struct *x = &a->s[i], *y = &b->s[i];
        ck_assert(x->kind == y->kind && x->replicated == y->replicated);
        ck_assert(x->elsize == y->elsize && x->nnz == y->nnz);
        ck_assert_str_eq(x->type, y->type);
        ck_assert_int_eq(x->nfiles, y->nfiles);
        for (int f = 0; f < x->nfiles; f++) {
            ck_assert_str_eq(x->file[f].part, y->file[f].part);
            ck_assert_str_eq(x->file[f].name, y->file[f].name);
            ck_assert(x->file[f].bytes == y->file[f].bytes);
            ck_assert_uint_eq(x->file[f].crc, y->file[f].crc);
        }
    }
}

/* The text with every `from` byte replaced by the string `to`. */
static char *each(const char *t, char from, const char *to)
{
    size_t n = strlen(t) * (strlen(to) + 1) + 1, w = 0;
    char *e = malloc(n);
    for (const char *p = t; *p; p++) {
        if (*p == from) w += (size_t)snprintf(e + w, n - w, "%s", to);
        else e[w++] = *p;
    }
    e[w] = '\0';
    return e;
}

/* Manifests the reader took before it used the shared line reader parse to what the writer
 * was given: the writer's own text, and the same with CRLF line ends, tabs and runs of
 * blanks between the words, blank lines after 'end', no final newline. */
START_TEST(test_same_as_written)
{
    struct xmpi_ckpt_manifest m, back;
    memset(&m, 0, sizeof m);
    m.version = XMPIR_CKPT_VERSION;
    snprintf(m.library, sizeof m.library, "0.1.0-rc.1+g#7ae5b2d");   /* a '#' is no comment */
    m.iteration = 9223372036854775807LL;
    m.interval = 0;
    m.nprocs = 2147483647;
    m.rows = 7;
    m.n = XMPIR_CKPT_MAX_STRUCTS;
    for (int i = 0; i < m.n; i++) {
        struct xmpi_ckpt_struct *s = &m.s[i];
        s->kind = i % 3;
        s->replicated = i % 2;
        s->elsize = 1 + i;
        s->nnz = s->kind == XMPIR_CKPT_SPARSE ? 11LL * i : 0;
        snprintf(s->type, sizeof s->type, "%s", i % 4 == 0 ? "-" : i % 4 == 1 ? "MPI_DOUBLE"
                                               : i % 4 == 2 ? "my#type" : "MPI_LONG_LONG_INT");
        ck_assert_int_eq(xmpi_ckpt_layout(s, i, m.rows), 0);
        for (int f = 0; f < s->nfiles; f++)
            s->file[f].crc = i == 0 ? 0 : 0xffffffffUL - 977UL * (unsigned long)(i + f);
    }
    char *t = text_of(&m), err[512] = "";
    size_t len = strlen(t);
    char *v[6];
    v[0] = strdup(t);
    v[1] = each(t, '\n', "\r\n");
    v[2] = each(t, ' ', " \t  ");
    v[3] = malloc(len + 16);
    snprintf(v[3], len + 16, "%s\n \t\r\n\n", t);
    v[4] = strdup(t);
    v[4][len - 1] = '\0';
    v[5] = each(t, '\n', "  \t\n");
    for (int k = 0; k < 6; k++) {
        ck_assert_msg(xmpi_ckpt_parse(v[k], "M", &back, err, sizeof err) == 0, "%d: %s", k, err);
        assert_same(&back, &m);
        free(v[k]);
    }
    free(t);
}
END_TEST

START_TEST(a_manifest_that_does_not_fit_is_refused_naming_why)
{
    struct xmpi_ckpt_manifest have, want;
    char err[512];
    sample(&have);
    sample(&want);
    want.rows = 24;
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_str_eq(err, "the checkpoint's structures have 23 rows, the program's 24");
    sample(&want);
    want.n = 1;
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_str_eq(err, "the checkpoint holds 2 structure(s), the program registered 1");
    sample(&want);
    want.s[1].replicated = 0;
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "structure 1 (sparse) is replicated in the checkpoint"));
    sample(&want);
    want.s[0].kind = XMPIR_CKPT_VECTOR;
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "structure 0 is a dense in the checkpoint"));
    sample(&want);
    want.s[0].elsize = 4;
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    sample(&want);
    snprintf(want.s[0].type, sizeof want.s[0].type, "MPI_LONG");
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "holds MPI_DOUBLE in the checkpoint, the program registered MPI_LONG"));
    /* A type name read from a damaged file reaches the message escaped, never raw. */
    sample(&want);
    snprintf(have.s[0].type, sizeof have.s[0].type, "MPI_\x1b[2J");
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), -1);
    ck_assert_ptr_null(strchr(err, '\x1b'));
    ck_assert_ptr_nonnull(strstr(err, "holds MPI_\\x1b[2J in the checkpoint"));
    sample(&have);
    /* An unnamed derived type is matched by its element size alone. */
    snprintf(want.s[0].type, sizeof want.s[0].type, "-");
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), 0);
}
END_TEST

START_TEST(every_takes_iterations_or_seconds)
{
    long it = -1;
    double sec = -1;
    ck_assert_int_eq(xmpi_ckpt_every("", &it, &sec), 0);
    ck_assert(it == 0 && sec == 0);
    ck_assert_int_eq(xmpi_ckpt_every("25", &it, &sec), 0);
    ck_assert(it == 25 && sec == 0);
    ck_assert_int_eq(xmpi_ckpt_every("30s", &it, &sec), 0);
    ck_assert(it == 0 && sec == 30);
    ck_assert_int_eq(xmpi_ckpt_every("0.5s", &it, &sec), 0);
    ck_assert(sec == 0.5);
    const char *bad[] = {"0", "-3", "2.5", "1e3", "10m", "s", "0s", "ten", "5 ", " 5", NULL};
    for (int i = 0; bad[i]; i++)
        ck_assert_msg(xmpi_ckpt_every(bad[i], NULL, NULL) == -1, "'%s' accepted", bad[i]);
}
END_TEST

START_TEST(test_auto_names)
{
    char a[64], b[64];
    xmpi_ckpt_auto_name(a, sizeof a, 9);
    xmpi_ckpt_auto_name(b, sizeof b, 10);
    ck_assert_str_eq(a, "ckpt-000000000009");
    ck_assert_int_lt(strcmp(a, b), 0);   /* names sort as the iterations do */
    ck_assert(xmpi_ckpt_is_auto(a));
    ck_assert(!xmpi_ckpt_is_auto("ckpt-12"));
    ck_assert(!xmpi_ckpt_is_auto("mine"));
    ck_assert(!xmpi_ckpt_is_auto("ckpt-00000000000x"));
}
END_TEST

Suite *ckpt_manifest_suite(void)
{
    Suite *s = suite_create("ckpt_manifest");
    TCase *tc = tcase_create("ckpt_manifest");
    tcase_add_test(tc, test_layout_sizes);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_long_line);
    tcase_add_test(tc, test_bad_value_escaped);
    tcase_add_test(tc, test_same_as_written);
    tcase_add_test(tc, a_manifest_that_does_not_fit_is_refused_naming_why);
    tcase_add_test(tc, every_takes_iterations_or_seconds);
    tcase_add_test(tc, test_auto_names);
    suite_add_tcase(s, tc);
    return s;
}
