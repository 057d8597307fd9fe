/* models/formats/checkpoint.c: the manifest written and read back field for field, every way a
 * damaged or edited manifest is refused (with the line), the comparison with what a program
 * registers, --xmpi-checkpoint-every's values and the automatic names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../models/formats/checkpoint.h"
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
    refused("xmpi-checkpoint 1", "xmpi-checkpoint 2", "M line 1: format version '2'");
    refused("xmpi-checkpoint 1", "hello", "not a libxmpi checkpoint manifest");
    refused("iteration 40", "iteration -1", "line 3: expected 'iteration N'");
    refused("structures 2", "structures 3", "line 14: expected 'structure 2 KIND");
    refused("end\n", "", "expected 'end'");
    refused("end\n", "end\nmore\n", "text after 'end'");
    refused("dense distributed", "matrix distributed", "kind 'matrix'");
    refused("dense distributed", "dense scattered", "scheme 'scattered'");
    refused("4232", "4231", "file 0 data: 4231 bytes; expected 4232 for 23 rows");
    refused("1234abcd s0", "1234abcg s0", "checksum '1234abcg'");
    refused("s1.ja", "s9.ja", "name 's9.ja'; expected s1.ja");
    refused("MPI_DOUBLE 8 0", "MPI_DOUBLE 8 5", "nonzeros '5'");
    refused("file 1 ja", "file 1 a", "expected 'file 1 ja BYTES CRC32 NAME'");
}
END_TEST

START_TEST(test_match)
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
    /* An unnamed derived type is matched by its element size alone. */
    snprintf(want.s[0].type, sizeof want.s[0].type, "-");
    ck_assert_int_eq(xmpi_ckpt_match(&have, &want, err, sizeof err), 0);
}
END_TEST

START_TEST(test_every)
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
    tcase_add_test(tc, test_match);
    tcase_add_test(tc, test_every);
    tcase_add_test(tc, test_auto_names);
    suite_add_tcase(s, tc);
    return s;
}
