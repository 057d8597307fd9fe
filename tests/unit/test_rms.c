/* libxmpi/rms_state.c and rms_schedule.c: both file formats with every rejection path,
 * the operations against expectations computed here another way, and the locked update. */
#define _DEFAULT_SOURCE   /* DT_DIR for the clean-up walk */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../models/formats/rms_schedule.h"
#include "../../models/formats/rms_state.h"
#include "rng.h"
#include "suites.h"

static char err[1024];   /* the size xmpi-rms passes */
static char base[256];   /* made once per test case, in the parent */

/* ---- files ---- */

static void make_base(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/xmpi-rms-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(base) != NULL, "mkdtemp %s: %s", base, strerror(errno));
}

static void remove_tree(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp) return;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", d, de->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(p);
        else unlink(p);
    }
    closedir(dp);
    rmdir(d);
}

/* Unchecked fixtures run in the parent, so the directory goes away even when a test
 * fails halfway in its forked child. */
static void remove_base(void)
{
    remove_tree(base);
}

/* A directory of its own for each test, so no test sees another's files. */
static void test_dir(char *out, size_t len)
{
    snprintf(out, len, "%s/t-XXXXXX", base);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp %s: %s", out, strerror(errno));
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* The file's bytes (NUL-terminated; *len without it), or NULL when it does not exist. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    while ((got = fread(buf + n, 1, cap - 1 - n, f)) > 0) {
        n += got;
        if (n == cap - 1) {
            cap *= 2;
            buf = realloc(buf, cap);
            ck_assert_ptr_nonnull(buf);
        }
    }
    buf[n] = '\0';
    fclose(f);
    if (len) *len = n;
    return buf;
}

static int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Entries of dir, for "nothing but the state and its lock is left". */
static int count_entries(const char *d)
{
    DIR *dp = opendir(d);
    ck_assert_ptr_nonnull(dp);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    closedir(dp);
    return n;
}

static void assert_err_has(const char *needle)
{
    ck_assert_msg(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

/* ---- states in memory ---- */

static int parse_text(struct xmpi_rms_state *st, const char *text, const char *fname)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_rms_state_parse(st, f, fname, err, sizeof err);
    fclose(f);
    return rc;
}

static void mk(struct xmpi_rms_state *st, const char *text)
{
    ck_assert_msg(parse_text(st, text, "t.state") == 0, "parse: %s", err);
}

static void assert_entry(const struct xmpi_rms_state *st, int i, const char *host,
                         const char *cls, int pes, int fr, int al, int rc)
{
    ck_assert_int_lt(i, st->n);
    const struct xmpi_rms_entry *x = &st->e[i];
    ck_assert_str_eq(x->host, host);
    ck_assert_str_eq(x->cls, cls);
    ck_assert_msg(x->pes == pes && x->free == fr && x->allocated == al && x->reclaim == rc,
                  "entry %d (%s %s): %d %d %d %d, want %d %d %d %d", i, host, cls, x->pes,
                  x->free, x->allocated, x->reclaim, pes, fr, al, rc);
}

/* A byte copy of the entries, to prove a failed operation touched nothing. */
struct snap {
    int n;
    struct xmpi_rms_entry *ptr;
    struct xmpi_rms_entry *copy;
};

static struct snap take_snap(const struct xmpi_rms_state *st)
{
    struct snap s = {st->n, st->e, malloc(sizeof *st->e * (size_t)(st->n ? st->n : 1))};
    ck_assert_ptr_nonnull(s.copy);
    if (st->n) memcpy(s.copy, st->e, sizeof *st->e * (size_t)st->n);
    return s;
}

static void assert_snap(const struct xmpi_rms_state *st, struct snap *s)
{
    ck_assert_int_eq(st->n, s->n);
    ck_assert_ptr_eq(st->e, s->ptr);
    if (st->n) ck_assert_msg(memcmp(st->e, s->copy, sizeof *st->e * (size_t)st->n) == 0,
                             "state changed by a failed operation");
    free(s->copy);
    s->copy = NULL;
}

/* ---- state parsing ---- */

START_TEST(test_parse_example)
{
    struct xmpi_rms_state st;
    mk(&st, "# xmpi-rms state v1: host class pes free allocated reclaim\n"
            "vm fast 2 0 1 0\n"
            "vm slow 2 1 1 0\n");
    ck_assert_int_eq(st.n, 2);
    assert_entry(&st, 0, "vm", "fast", 2, 0, 1, 0);
    assert_entry(&st, 1, "vm", "slow", 2, 1, 1, 0);
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
    char text[256], name[XMPI_NAME_MAX];
    memset(name, 'h', XMPI_NAME_MAX - 1);
    name[XMPI_NAME_MAX - 1] = '\0';
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
    {"vm fast 2 0 1\n", "t.state:1: field reclaim: missing; expected 6 fields: host class pes "
                        "free allocated reclaim",
     NULL},
    {"vm\n", "t.state:1: field class: missing", NULL},
    {"vm fast\n", "t.state:1: field pes: missing", NULL},
    {"vm fast 2 0 1 0 7\n", "t.state:1: more than 6 fields are not accepted; expected 6 fields",
     NULL},
    {"vm fast 2 0 1 0 # ok\nvm slow 2 0 1 0 x\n", "t.state:2: more than 6 fields", NULL},
    {"vm fast 2 1 2 0\n", "t.state:1: free + allocated (3) exceeds pes (2); expected 0 <= "
                          "reclaim <= allocated and free + allocated <= pes",
     NULL},
    {"vm fast 2 0 1 2\n", "t.state:1: reclaim (2) exceeds allocated (1); expected", NULL},
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

/* ---- reading and writing files ---- */

START_TEST(test_round_trip)
{
    char d[512], p1[600], p2[600];
    test_dir(d, sizeof d);
    snprintf(p1, sizeof p1, "%s/a.state", d);
    snprintf(p2, sizeof p2, "%s/b.state", d);
    struct xmpi_rms_state st, back;
    mk(&st, "# hand-edited\n n1\tfast 8 2 4 3 # note\nn2 fast 2 0 0 0\r\nn1 slow 3 3 0 0\n");
    ck_assert_msg(xmpi_rms_state_write(p1, &st, err, sizeof err) == 0, "%s", err);
    char *bytes = slurp(p1, NULL);
    ck_assert_ptr_nonnull(bytes);
    ck_assert_str_eq(bytes, "# xmpi-rms state v1: host class pes free allocated reclaim\n"
                            "n1 fast 8 2 4 3\n"
                            "n2 fast 2 0 0 0\n"
                            "n1 slow 3 3 0 0\n");
    ck_assert_msg(xmpi_rms_state_read(p1, &back, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(back.n, st.n);
    ck_assert(memcmp(back.e, st.e, sizeof *st.e * (size_t)st.n) == 0);
    ck_assert_msg(xmpi_rms_state_write(p2, &back, err, sizeof err) == 0, "%s", err);
    char *bytes2 = slurp(p2, NULL);
    ck_assert_str_eq(bytes2, bytes);
    /* Rewriting over an existing file replaces it whole and leaves no temporary. */
    ck_assert_int_eq(xmpi_rms_state_write(p1, &back, err, sizeof err), 0);
    char *bytes3 = slurp(p1, NULL);
    ck_assert_str_eq(bytes3, bytes);
    ck_assert_int_eq(count_entries(d), 2);
    free(bytes);
    free(bytes2);
    free(bytes3);
    xmpi_rms_state_free(&st);
    xmpi_rms_state_free(&back);

    /* The empty state is the header alone, and reads back empty. */
    struct xmpi_rms_state empty = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_write(p2, &empty, err, sizeof err), 0);
    bytes = slurp(p2, NULL);
    ck_assert_str_eq(bytes, "# xmpi-rms state v1: host class pes free allocated reclaim\n");
    free(bytes);
    ck_assert_int_eq(xmpi_rms_state_read(p2, &back, err, sizeof err), 0);
    ck_assert_int_eq(back.n, 0);
    xmpi_rms_state_free(&back);
}
END_TEST

START_TEST(test_random_round_trip)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/r.state", d);
    uint64_t seed = 42;
    for (int round = 0; round < 20; round++) {
        struct xmpi_rms_state st = {(int)(rng_next(&seed) % 30), NULL};
        st.e = calloc((size_t)st.n + 1, sizeof *st.e);
        for (int i = 0; i < st.n; i++) {
            struct xmpi_rms_entry *x = &st.e[i];
            snprintf(x->host, sizeof x->host, "h%d", i);
            snprintf(x->cls, sizeof x->cls, "c%d", (int)(rng_next(&seed) % 3));
            x->pes = (int)(rng_next(&seed) % 1000001);
            x->allocated = x->pes ? (int)(rng_next(&seed) % ((uint64_t)x->pes + 1)) : 0;
            x->free = (int)(rng_next(&seed) % ((uint64_t)(x->pes - x->allocated) + 1));
            x->reclaim = (int)(rng_next(&seed) % ((uint64_t)x->allocated + 1));
        }
        ck_assert_msg(xmpi_rms_state_write(p, &st, err, sizeof err) == 0, "%s", err);
        size_t l1;
        char *b1 = slurp(p, &l1);
        struct xmpi_rms_state back;
        ck_assert_msg(xmpi_rms_state_read(p, &back, err, sizeof err) == 0, "%s", err);
        ck_assert_int_eq(back.n, st.n);
        for (int i = 0; i < st.n; i++)
            assert_entry(&back, i, st.e[i].host, st.e[i].cls, st.e[i].pes, st.e[i].free,
                         st.e[i].allocated, st.e[i].reclaim);
        ck_assert_int_eq(xmpi_rms_state_write(p, &back, err, sizeof err), 0);
        size_t l2;
        char *b2 = slurp(p, &l2);
        ck_assert_uint_eq(l1, l2);
        ck_assert(memcmp(b1, b2, l1) == 0);
        free(b1);
        free(b2);
        xmpi_rms_state_free(&st);
        xmpi_rms_state_free(&back);
    }
}
END_TEST

START_TEST(test_read_errors)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/none.state", d);
    struct xmpi_rms_state st = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s: no such state file (create it with xmpi-rms init)", p);
    ck_assert_str_eq(err, want);

    /* The message names the file as given, with the line. */
    snprintf(p, sizeof p, "%s/bad.state", d);
    put(p, "# x\nvm fast 2 0 1 0\nvm slow 2 0 1 nope\n");
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: field reclaim: 'nope' is not accepted", p);
    assert_err_has(want);
    ck_assert_int_eq(st.n, 0);
}
END_TEST

START_TEST(test_write_errors)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    struct xmpi_rms_state st;
    mk(&st, "vm fast 2 0 1 0\n");

    snprintf(p, sizeof p, "%s/no/such/dir/s.state", d);
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), -1);
    assert_err_has(p);
    assert_err_has("cannot create");

    /* A state the parser would refuse is not written: the file stays as it was. */
    snprintf(p, sizeof p, "%s/s.state", d);
    ck_assert_int_eq(xmpi_rms_state_write(p, &st, err, sizeof err), 0);
    char *before = slurp(p, NULL);
    struct {
        int pes, fr, al, rc;
        const char *host, *cls, *want;
    } bad[] = {
        {2, 2, 1, 0, "vm", "fast", "free + allocated (3) exceeds pes (2)"},
        {2, 0, 1, 2, "vm", "fast", "reclaim (2) exceeds allocated (1)"},
        {2, -1, 1, 0, "vm", "fast", "free -1 cannot be written"},
        {2000000, 0, 1, 0, "vm", "fast", "pes 2000000 cannot be written"},
        {2, 0, 1, 0, "v m", "fast", "host 'v m' class 'fast' cannot be written"},
        {2, 0, 1, 0, "vm", "", "class '' cannot be written"},
        {2, 0, 1, 0, "vm", "a#b", "class 'a#b' cannot be written"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        struct xmpi_rms_entry e = {"", "", bad[k].pes, bad[k].fr, bad[k].al, bad[k].rc};
        snprintf(e.host, sizeof e.host, "%s", bad[k].host);
        snprintf(e.cls, sizeof e.cls, "%s", bad[k].cls);
        struct xmpi_rms_state b = {1, &e};
        ck_assert_int_eq(xmpi_rms_state_write(p, &b, err, sizeof err), -1);
        assert_err_has(bad[k].want);
        assert_err_has("expected");
        char *now = slurp(p, NULL);
        ck_assert_str_eq(now, before);
        free(now);
    }
    struct xmpi_rms_entry two[2] = {st.e[0], st.e[0]};
    struct xmpi_rms_state dup = {2, two};
    ck_assert_int_eq(xmpi_rms_state_write(p, &dup, err, sizeof err), -1);
    assert_err_has("appears twice");
    ck_assert_int_eq(count_entries(d), 1);
    free(before);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_print)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 8 2 4 3\nnode-two slow 3 3 0 0\nn3 fast 2 0 1 0\n");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(f);
    xmpi_rms_state_print(f, &st);
    fclose(f);
    ck_assert_str_eq(buf, "host      class  pes  free  allocated  reclaim\n"
                          "n1        fast     8     2          4        3\n"
                          "node-two  slow     3     3          0        0\n"
                          "n3        fast     2     0          1        0\n"
                          "(total)   fast    10     2          5        3\n"
                          "(total)   slow     3     3          0        0\n");
    free(buf);
    xmpi_rms_state_free(&st);

    struct xmpi_rms_state empty = {0, NULL};
    f = open_memstream(&buf, &len);
    xmpi_rms_state_print(f, &empty);
    fclose(f);
    ck_assert_str_eq(buf, "host  class  pes  free  allocated  reclaim\n");
    free(buf);
}
END_TEST

START_TEST(test_from_pool)
{
    struct xmpi_host hosts[3] = {
        {"n1", "fast", 8, 1.0, 0, 5},
        {"n1", "slow", 2, 0.5, 0.5, 0},
        {"n2", "fast", 4, 1.0, 0, 1},
    };
    struct xmpi_pool pool = {3, hosts};
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_from_pool(&st, &pool), 0);
    ck_assert_int_eq(st.n, 3);
    /* Nothing offered or allocated, whatever the scheduler had placed. */
    assert_entry(&st, 0, "n1", "fast", 8, 0, 0, 0);
    assert_entry(&st, 1, "n1", "slow", 2, 0, 0, 0);
    assert_entry(&st, 2, "n2", "fast", 4, 0, 0, 0);
    xmpi_rms_state_free(&st);
    struct xmpi_pool none = {0, NULL};
    ck_assert_int_eq(xmpi_rms_state_from_pool(&st, &none), 0);
    ck_assert_int_eq(st.n, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

/* ---- operations ---- */

/* The greedy "one at a time to the largest, ties to the first" in closed form: every
 * value above a level L comes down to L, and the r left over go to the first values
 * (in order) that stand at L. gain[i] says how much value i lost. */
static void level_down(const int *v, int k, int n, int *gain)
{
    long total = 0;
    for (int i = 0; i < k; i++) total += v[i] > 0 ? v[i] : 0;
    ck_assert_int_le(n, total);
    int L = 0;
    for (int i = 0; i < k; i++) L = v[i] > L ? v[i] : L;
    /* The smallest level whose excess is at most n. */
    for (;;) {
        long excess = 0;
        for (int i = 0; i < k; i++) excess += v[i] > L - 1 && L > 0 ? v[i] - (L - 1) : 0;
        if (L == 0 || excess > n) break;
        L--;
    }
    long used = 0;
    for (int i = 0; i < k; i++) {
        gain[i] = v[i] > L ? v[i] - L : 0;
        used += gain[i];
    }
    for (int i = 0; i < k && used < n; i++)
        if (v[i] >= L && L > 0) gain[i]++, used++;
    ck_assert_int_eq(used, n);
}

START_TEST(test_level_down_by_hand)
{
    /* The helper itself, against sequences worked out on paper. */
    int g[4];
    level_down((int[]){2, 3, 3}, 3, 4, g);
    ck_assert(g[0] == 1 && g[1] == 2 && g[2] == 1);
    level_down((int[]){0, 5, 1, 5}, 4, 3, g);
    ck_assert(g[0] == 0 && g[1] == 2 && g[2] == 0 && g[3] == 1);
    level_down((int[]){1, 1, 1}, 3, 3, g);
    ck_assert(g[0] == 1 && g[1] == 1 && g[2] == 1);
    level_down((int[]){4, 1}, 2, 1, g);
    ck_assert(g[0] == 1 && g[1] == 0);
}
END_TEST

START_TEST(test_offer_spread)
{
    struct xmpi_rms_state st;
    /* fast spares: n1 4-1-1=2, n2 3, n3 3; slow is never touched. */
    mk(&st, "n1 fast 4 1 1 0\nn2 fast 3 0 0 0\nn1 slow 5 0 0 0\nn3 fast 5 2 0 0\n");
    ck_assert_msg(xmpi_rms_offer(&st, "fast", 1, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 1, "n2", "fast", 3, 1, 0, 0);   /* tie n2/n3 at 3: n2 is first */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 1, err, sizeof err), 0);
    assert_entry(&st, 3, "n3", "fast", 5, 3, 0, 0);   /* n3 now has the most (3) */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 3, err, sizeof err), 0);
    /* spares 2,2,2 -> n1, n2, n3 one each */
    assert_entry(&st, 0, "n1", "fast", 4, 2, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 2, 0, 0);
    assert_entry(&st, 3, "n3", "fast", 5, 4, 0, 0);
    assert_entry(&st, 2, "n1", "slow", 5, 0, 0, 0);
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 3, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 3, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 3, 0, 0);
    assert_entry(&st, 3, "n3", "fast", 5, 5, 0, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_offer_errors)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 4 1 1 0\nn2 fast 3 0 0 0\nn1 slow 5 0 0 0\nn1 gpu 1 0 1 0\n");
    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "huge", 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown class 'huge'; known classes: fast, slow, gpu");
    assert_snap(&st, &s);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 6, err, sizeof err), -1);
    assert_err_has("class fast: cannot offer 6 more PEs; only 5 of its 7 PEs are spare (1 "
                   "offered, 1 allocated)");
    assert_snap(&st, &s);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_offer(&st, "gpu", 1, err, sizeof err), -1);
    assert_err_has("only 0 of its 1 PEs are spare");
    assert_snap(&st, &s);

    for (int n = -1; n <= 0; n++) {
        s = take_snap(&st);
        ck_assert_int_eq(xmpi_rms_offer(&st, "fast", n, err, sizeof err), -1);
        assert_err_has("expected a count from 1");
        assert_snap(&st, &s);
    }
    struct xmpi_rms_state empty = {0, NULL};
    ck_assert_int_eq(xmpi_rms_offer(&empty, "fast", 1, err, sizeof err), -1);
    assert_err_has("unknown class 'fast'; known classes: none");
    /* Exactly the spare capacity is fine. */
    ck_assert_int_eq(xmpi_rms_offer(&st, "fast", 5, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 3, 1, 0);
    assert_entry(&st, 1, "n2", "fast", 3, 3, 0, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_reclaim_order)
{
    struct xmpi_rms_state st;
    mk(&st, "a fast 8 1 4 1\nb fast 8 2 5 0\nc slow 4 2 2 0\nd fast 8 2 0 0\n");
    /* Offers first, from the most free: b (2, before d), then d (2), then a/b/d (1 each). */
    ck_assert_msg(xmpi_rms_reclaim(&st, "fast", 2, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "a", "fast", 8, 1, 4, 1);
    assert_entry(&st, 1, "b", "fast", 8, 1, 5, 0);
    assert_entry(&st, 3, "d", "fast", 8, 1, 0, 0);
    /* The three offers left (a, b, d, all at 1) go first; then the three asks go to the
     * most held: b (5), b (4), then a and b tie at 3 and a comes first. */
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 6, err, sizeof err), 0);
    assert_entry(&st, 0, "a", "fast", 8, 0, 4, 2);
    assert_entry(&st, 1, "b", "fast", 8, 0, 5, 2);
    assert_entry(&st, 3, "d", "fast", 8, 0, 0, 0);
    assert_entry(&st, 2, "c", "slow", 4, 2, 2, 0);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_reclaim_errors)
{
    struct xmpi_rms_state st;
    mk(&st, "a fast 8 1 4 1\nb fast 8 2 5 5\nc slow 4 0 0 0\n");
    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "gpu", 1, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown class 'gpu'; known classes: fast, slow");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 7, err, sizeof err), -1);
    assert_err_has("class fast: cannot reclaim 7 PEs; only 6 can be (3 offered and not taken, "
                   "3 allocated and not already reclaimed; 6 being reclaimed)");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "slow", 1, err, sizeof err), -1);
    assert_err_has("only 0 can be");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 0, err, sizeof err), -1);
    assert_err_has("expected a count from 1");
    assert_snap(&st, &s);
    ck_assert_int_eq(xmpi_rms_reclaim(&st, "fast", 6, err, sizeof err), 0);
    assert_entry(&st, 0, "a", "fast", 8, 0, 4, 4);
    assert_entry(&st, 1, "b", "fast", 8, 0, 5, 5);
    xmpi_rms_state_free(&st);
}
END_TEST

/* A random state of up to 3 classes whose hosts interleave in file order. */
static void random_state(struct xmpi_rms_state *st, uint64_t *seed)
{
    st->n = 1 + (int)(rng_next(seed) % 10);
    st->e = calloc((size_t)st->n, sizeof *st->e);
    ck_assert_ptr_nonnull(st->e);
    for (int i = 0; i < st->n; i++) {
        struct xmpi_rms_entry *x = &st->e[i];
        snprintf(x->host, sizeof x->host, "h%d", i);
        snprintf(x->cls, sizeof x->cls, "c%d", (int)(rng_next(seed) % 3));
        x->pes = (int)(rng_next(seed) % 9);
        x->allocated = (int)(rng_next(seed) % ((uint64_t)x->pes + 1));
        x->free = (int)(rng_next(seed) % ((uint64_t)(x->pes - x->allocated) + 1));
        x->reclaim = (int)(rng_next(seed) % ((uint64_t)x->allocated + 1));
    }
}

START_TEST(test_offer_reclaim_random)
{
    uint64_t seed = 7;
    int checked = 0;
    for (int round = 0; round < 400; round++) {
        struct xmpi_rms_state st;
        random_state(&st, &seed);
        const char *cls = st.e[rng_next(&seed) % (uint64_t)st.n].cls;
        int idx[16], k = 0, v[16], w[16], g1[16], g2[16];
        long cap_offer = 0, cap_free = 0, cap_held = 0;
        for (int i = 0; i < st.n; i++)
            if (!strcmp(st.e[i].cls, cls)) {
                idx[k] = i;
                cap_offer += st.e[i].pes - st.e[i].free - st.e[i].allocated;
                cap_free += st.e[i].free;
                cap_held += st.e[i].allocated - st.e[i].reclaim;
                k++;
            }
        int reclaim = (int)(rng_next(&seed) & 1);
        long cap = reclaim ? cap_free + cap_held : cap_offer;
        int n = 1 + (int)(rng_next(&seed) % (uint64_t)(cap + 2));   /* sometimes too many */
        struct xmpi_rms_state want = {st.n, malloc(sizeof *st.e * (size_t)st.n)};
        memcpy(want.e, st.e, sizeof *st.e * (size_t)st.n);
        if (n <= cap) {
            if (!reclaim) {
                for (int j = 0; j < k; j++)
                    v[j] = want.e[idx[j]].pes - want.e[idx[j]].free - want.e[idx[j]].allocated;
                level_down(v, k, n, g1);
                for (int j = 0; j < k; j++) want.e[idx[j]].free += g1[j];
            } else {
                int m1 = n < cap_free ? n : (int)cap_free;
                for (int j = 0; j < k; j++) {
                    v[j] = want.e[idx[j]].free;
                    w[j] = want.e[idx[j]].allocated - want.e[idx[j]].reclaim;
                }
                level_down(v, k, m1, g1);
                level_down(w, k, n - m1, g2);
                for (int j = 0; j < k; j++) {
                    want.e[idx[j]].free -= g1[j];
                    want.e[idx[j]].reclaim += g2[j];
                }
            }
        }
        struct snap s = take_snap(&st);
        int rc = reclaim ? xmpi_rms_reclaim(&st, cls, n, err, sizeof err)
                         : xmpi_rms_offer(&st, cls, n, err, sizeof err);
        if (n > cap) {
            ck_assert_msg(rc == -1, "round %d: %s %d of %ld accepted", round,
                          reclaim ? "reclaim" : "offer", n, cap);
            assert_snap(&st, &s);
        } else {
            free(s.copy);
            ck_assert_msg(rc == 0, "round %d: %s", round, err);
            for (int i = 0; i < st.n; i++)
                assert_entry(&st, i, want.e[i].host, want.e[i].cls, want.e[i].pes,
                             want.e[i].free, want.e[i].allocated, want.e[i].reclaim);
            checked++;
        }
        free(want.e);
        xmpi_rms_state_free(&st);
    }
    ck_assert_int_gt(checked, 100);
}
END_TEST

START_TEST(test_take)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 4 2 1 0\nn1 slow 2 0 0 0\n");
    ck_assert_msg(xmpi_rms_take(&st, "n1", "fast", 1, 0, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "n1", "fast", 4, 1, 2, 0);

    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 2, 0, err, sizeof err), -1);
    assert_err_has("host n1 class fast: cannot take 2 PEs; only 1 are offered");
    assert_snap(&st, &s);
    /* force: beyond the offer, from the spare capacity */
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 2, 1, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 4, 0, 4, 0);
    /* but never past the capacity the file can record */
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 1, 1, err, sizeof err), -1);
    assert_err_has("cannot take 1 PEs; it has 4 PEs");
    assert_snap(&st, &s);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "slow", 2, 1, err, sizeof err), 0);
    assert_entry(&st, 1, "n1", "slow", 2, 0, 2, 0);

    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n9", "fast", 1, 1, err, sizeof err), -1);
    assert_err_has("no host 'n9' of class fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "gpu", 1, 1, err, sizeof err), -1);
    assert_err_has("unknown class 'gpu'; known classes: fast, slow");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_take(&st, "n1", "fast", 0, 1, err, sizeof err), -1);
    assert_err_has("expected a count from 1");
    assert_snap(&st, &s);
    xmpi_rms_state_free(&st);
}
END_TEST

START_TEST(test_give)
{
    struct xmpi_rms_state st;
    mk(&st, "n1 fast 8 1 5 3\nn2 fast 8 0 2 0\n");
    ck_assert_msg(xmpi_rms_give(&st, "n1", "fast", 1, err, sizeof err) == 0, "%s", err);
    assert_entry(&st, 0, "n1", "fast", 8, 1, 4, 2);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", 3, err, sizeof err), 0);
    assert_entry(&st, 0, "n1", "fast", 8, 1, 1, 0);   /* reclaim 2 - 3 stops at 0 */
    ck_assert_int_eq(xmpi_rms_give(&st, "n2", "fast", 2, err, sizeof err), 0);
    assert_entry(&st, 1, "n2", "fast", 8, 0, 0, 0);

    struct snap s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", 2, err, sizeof err), -1);
    assert_err_has("host n1 class fast: cannot give 2 PEs back; only 1 are allocated");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n3", "fast", 1, err, sizeof err), -1);
    assert_err_has("no host 'n3' of class fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "slow", 1, err, sizeof err), -1);
    assert_err_has("unknown class 'slow'; known classes: fast");
    assert_snap(&st, &s);
    s = take_snap(&st);
    ck_assert_int_eq(xmpi_rms_give(&st, "n1", "fast", -2, err, sizeof err), -1);
    assert_snap(&st, &s);
    xmpi_rms_state_free(&st);
}
END_TEST

struct action_case {
    const char *text;
    int act, nprocs;
    const char *cls;
};

static const struct action_case actions[] = {
    {"", XMPI_RMS_ACT_NONE, 0, ""},
    {"a fast 4 0 2 0\nb slow 4 0 0 0\n", XMPI_RMS_ACT_NONE, 0, ""},
    {"a fast 4 0 2 0\nb slow 4 2 0 0\nc fast 4 1 0 0\nd slow 4 1 0 0\n", XMPI_RMS_ACT_SPAWN, 3,
     "slow"},
    {"a fast 4 1 0 0\nb slow 4 2 0 0\nc fast 4 1 0 0\n", XMPI_RMS_ACT_SPAWN, 2, "fast"},
    /* reclaims win over offers, even when the offer comes first in the file */
    {"a fast 4 3 0 0\nb slow 4 0 2 1\nc slow 4 0 3 2\nd fast 4 0 1 1\n", XMPI_RMS_ACT_SHRINK, 3,
     "slow"},
    {"a fast 4 0 2 2\nb slow 4 0 2 1\nc fast 4 0 1 1\n", XMPI_RMS_ACT_SHRINK, 3, "fast"},
};
#define NACTIONS ((int)(sizeof actions / sizeof actions[0]))

START_TEST(test_action)
{
    const struct action_case *c = &actions[_i];
    struct xmpi_rms_state st;
    mk(&st, c->text);
    int nprocs = -7;
    char cls[XMPI_NAME_MAX] = "junk";
    ck_assert_int_eq(xmpi_rms_state_action(&st, &nprocs, cls, sizeof cls), c->act);
    ck_assert_int_eq(nprocs, c->nprocs);
    ck_assert_str_eq(cls, c->cls);
    /* Optional outputs. */
    ck_assert_int_eq(xmpi_rms_state_action(&st, NULL, NULL, 0), c->act);
    xmpi_rms_state_free(&st);
}
END_TEST

/* ---- locked update ---- */

struct upd {
    int calls;
    int fail;        /* return -1 after changing the state */
    int seen_n;
    const char *cls;
};

static int upd_fn(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    struct upd *u = arg;
    u->calls++;
    u->seen_n = st->n;
    if (st->n == 0) {
        st->e = calloc(1, sizeof *st->e);
        if (!st->e) return -1;
        st->n = 1;
        snprintf(st->e[0].host, sizeof st->e[0].host, "new");
        snprintf(st->e[0].cls, sizeof st->e[0].cls, "fast");
        st->e[0].pes = 3;
        return u->fail ? (snprintf(e, elen, "refused on purpose"), -1) : 0;
    }
    int rc = xmpi_rms_offer(st, u->cls ? u->cls : st->e[0].cls, 1, e, elen);
    if (u->fail) {
        st->e[0].pes += 100;   /* a change that must not reach the file */
        snprintf(e, elen, "refused on purpose");
        return -1;
    }
    return rc;
}

START_TEST(test_update_create)
{
    char d[512], p[600], lock[700];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    snprintf(lock, sizeof lock, "%s.lock", p);
    struct upd u = {0, 0, -1, NULL};

    /* No file and no create: an error, fn not called, nothing created. */
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s: no such state file (create it with xmpi-rms init)", p);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(u.calls, 0);
    ck_assert(!exists(p));
    ck_assert_int_eq(count_entries(d), 0);

    /* create, but fn fails: still no file. */
    u.fail = 1;
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err), -1);
    ck_assert_str_eq(err, "refused on purpose");
    ck_assert_int_eq(u.calls, 1);
    ck_assert(!exists(p));

    /* create: fn sees an empty state and its result is written. */
    u.fail = 0;
    ck_assert_msg(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(u.seen_n, 0);
    char *bytes = slurp(p, NULL);
    ck_assert_str_eq(bytes, "# xmpi-rms state v1: host class pes free allocated reclaim\n"
                            "new fast 3 0 0 0\n");
    free(bytes);
    ck_assert(exists(lock));

    /* An existing file is read, with or without create. */
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), 0);
    ck_assert_int_eq(u.seen_n, 1);
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &u, err, sizeof err), 0);
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), 0);
    assert_entry(&st, 0, "new", "fast", 3, 2, 0, 0);
    xmpi_rms_state_free(&st);
    ck_assert_int_eq(count_entries(d), 2);   /* the state and its lock, no temporary */
}
END_TEST

START_TEST(test_update_unchanged_on_failure)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    put(p, "# kept as the operator wrote it\nn1  fast 2 0 1 0   # note\n");
    size_t l0, l1;
    char *before = slurp(p, &l0);
    struct stat sb0, sb1;
    ck_assert_int_eq(stat(p, &sb0), 0);

    /* fn fails after changing the state */
    struct upd u = {0, 1, -1, NULL};
    ck_assert_int_eq(xmpi_rms_update(p, 0, upd_fn, &u, err, sizeof err), -1);
    ck_assert_str_eq(err, "refused on purpose");
    /* an operation error inside fn (unknown class) */
    struct upd v = {0, 0, -1, "gpu"};
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &v, err, sizeof err), -1);
    assert_err_has("unknown class 'gpu'; known classes: fast");

    char *after = slurp(p, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    ck_assert_int_eq(stat(p, &sb1), 0);
    ck_assert(sb0.st_ino == sb1.st_ino);   /* not even rewritten with the same bytes */
    free(after);

    /* a malformed file: fn is never called, the file stays */
    put(p, "n1 fast 2 0 1 0\nn1 fast 2 0 1 0\n");
    free(before);
    before = slurp(p, &l0);
    struct upd w = {0, 0, -1, NULL};
    ck_assert_int_eq(xmpi_rms_update(p, 1, upd_fn, &w, err, sizeof err), -1);
    char want[800];
    snprintf(want, sizeof want, "%s:2: host n1 class fast already appears on line 1", p);
    assert_err_has(want);
    ck_assert_int_eq(w.calls, 0);
    after = slurp(p, &l1);
    ck_assert_uint_eq(l0, l1);
    ck_assert(memcmp(before, after, l0) == 0);
    free(before);
    free(after);
    ck_assert_int_eq(count_entries(d), 2);
}
END_TEST

static int break_invariant(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    (void)arg, (void)e, (void)elen;
    st->e[0].free = st->e[0].pes + 1;
    return 0;
}

START_TEST(test_update_refuses_bad_result)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/u.state", d);
    put(p, "n1 fast 2 0 1 0\n");
    char *before = slurp(p, NULL);
    ck_assert_int_eq(xmpi_rms_update(p, 0, break_invariant, NULL, err, sizeof err), -1);
    assert_err_has("free + allocated (4) exceeds pes (2)");
    char *after = slurp(p, NULL);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
}
END_TEST

static int offer_one(struct xmpi_rms_state *st, void *arg, char *e, size_t elen)
{
    return xmpi_rms_offer(st, (const char *)arg, 1, e, elen);
}

START_TEST(test_update_concurrent)
{
    char d[512], p[600];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/c.state", d);
    put(p, "n1 fast 100 0 0 0\nn2 fast 100 0 0 0\n");
    enum { KIDS = 3, EACH = 20 };
    pid_t kid[KIDS];
    for (int k = 0; k < KIDS; k++) {
        kid[k] = fork();
        ck_assert_int_ge(kid[k], 0);
        if (kid[k] == 0) {
            char e[1024];
            for (int i = 0; i < EACH; i++)
                if (xmpi_rms_update(p, 0, offer_one, "fast", e, sizeof e) != 0) _exit(1);
            _exit(0);
        }
    }
    for (int k = 0; k < KIDS; k++) {
        int status;
        ck_assert_int_eq(waitpid(kid[k], &status, 0), kid[k]);
        ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    struct xmpi_rms_state st;
    ck_assert_int_eq(xmpi_rms_state_read(p, &st, err, sizeof err), 0);
    /* 60 offers of one over two equal hosts, each to the one with more spare: 30 each. */
    assert_entry(&st, 0, "n1", "fast", 100, KIDS * EACH / 2, 0, 0);
    assert_entry(&st, 1, "n2", "fast", 100, KIDS * EACH / 2, 0, 0);
    xmpi_rms_state_free(&st);
    ck_assert_int_eq(count_entries(d), 2);
}
END_TEST

/* ---- schedule ---- */

static int parse_sched(struct xmpi_rms_schedule *s, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_rms_schedule_parse(s, f, "t.sched", err, sizeof err);
    fclose(f);
    return rc;
}

static void assert_event(const struct xmpi_rms_event *ev, long it, int act, int count,
                         const char *cls)
{
    ck_assert_ptr_nonnull(ev);
    ck_assert_msg(ev->iteration == it && ev->action == act && ev->count == count &&
                      !strcmp(ev->cls, cls),
                  "event %ld %d %d %s, want %ld %d %d %s", ev->iteration, ev->action, ev->count,
                  ev->cls, it, act, count, cls);
}

static const char sched_text[] =
    "# ITERATION spawn|remove COUNT CLASS\n"
    "200 spawn 1 a\n"
    "\n"
    "100\tremove 2 b   # a trailing comment\n"
    "  100 spawn 3 c\r\n"
    "0 spawn 1 x.y-z_9\n"
    "100 remove 1 d\n"
    "300 spawn 1000000 e";

START_TEST(test_schedule_parse)
{
    struct xmpi_rms_schedule s;
    ck_assert_msg(parse_sched(&s, sched_text) == 0, "%s", err);
    ck_assert_int_eq(s.n, 6);
    ck_assert_int_eq(s.next, 0);
    assert_event(&s.ev[0], 0, XMPI_RMS_ACT_SPAWN, 1, "x.y-z_9");
    assert_event(&s.ev[1], 100, XMPI_RMS_ACT_SHRINK, 2, "b");
    assert_event(&s.ev[2], 100, XMPI_RMS_ACT_SPAWN, 3, "c");
    assert_event(&s.ev[3], 100, XMPI_RMS_ACT_SHRINK, 1, "d");
    assert_event(&s.ev[4], 200, XMPI_RMS_ACT_SPAWN, 1, "a");
    assert_event(&s.ev[5], 300, XMPI_RMS_ACT_SPAWN, 1000000, "e");
    xmpi_rms_schedule_free(&s);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(s.ev);

    ck_assert_int_eq(parse_sched(&s, "# nothing\n\n"), 0);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 1000));
    xmpi_rms_schedule_free(&s);
}
END_TEST

START_TEST(test_schedule_stable_many)
{
    /* Many equal iterations: qsort alone would not keep their order. */
    char text[8192];
    size_t used = 0;
    for (int i = 0; i < 200; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%d spawn %d c%d\n",
                                 (i * 7) % 3, i + 1, i);
    struct xmpi_rms_schedule s;
    ck_assert_int_eq(parse_sched(&s, text), 0);
    ck_assert_int_eq(s.n, 200);
    for (int i = 1; i < s.n; i++) {
        ck_assert(s.ev[i - 1].iteration <= s.ev[i].iteration);
        if (s.ev[i - 1].iteration == s.ev[i].iteration)
            ck_assert_int_lt(s.ev[i - 1].count, s.ev[i].count);   /* count = file line */
    }
    xmpi_rms_schedule_free(&s);
}
END_TEST

struct bad_sched {
    const char *text, *want;
};

static const struct bad_sched bad_scheds[] = {
    {"-1 spawn 1 a\n", "t.sched:1: field iteration: '-1' is not accepted; expected a whole "
                       "number from 0"},
    {"# c\n\nabc spawn 1 a\n", "t.sched:3: field iteration: 'abc' is not accepted"},
    {"1e3 spawn 1 a\n", "t.sched:1: field iteration: '1e3'"},
    {"+5 spawn 1 a\n", "t.sched:1: field iteration: '+5'"},
    {"99999999999999999999 spawn 1 a\n", "t.sched:1: field iteration: '99999999999999999999'"},
    {"1 Spawn 1 a\n", "t.sched:1: field action: 'Spawn' is not accepted; expected spawn or "
                      "remove"},
    {"1 add 1 a\n", "t.sched:1: field action: 'add'"},
    {"1 spawn 1 a\n2 shrink 1 a\n", "t.sched:2: field action: 'shrink'"},
    {"1 spawn 0 a\n", "t.sched:1: field count: '0' is not accepted; expected a whole number "
                      "from 1 to 1000000"},
    {"1 spawn -2 a\n", "t.sched:1: field count: '-2'"},
    {"1 remove two a\n", "t.sched:1: field count: 'two'"},
    {"1 remove 1000001 a\n", "t.sched:1: field count: '1000001'"},
    {"1 spawn 1 a/b\n", "t.sched:1: field class: 'a/b' is not accepted; expected a class name"},
    {"1 spawn 1 a:b\n", "t.sched:1: field class: 'a:b'"},
    {"1 spawn 1 cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\n",
     "t.sched:1: field class: 'cccccccccccccccccccccccccccccccccccccccc...'"},
    {"1 spawn 1\n", "t.sched:1: field class: missing; expected 4 fields: ITERATION "
                    "spawn|remove COUNT CLASS"},
    {"1\n", "t.sched:1: field action: missing"},
    {"1 spawn 1 a b\n", "t.sched:1: more than 4 fields are not accepted; expected 4 fields"},
};
#define NBAD_SCHEDS ((int)(sizeof bad_scheds / sizeof bad_scheds[0]))

START_TEST(test_schedule_bad)
{
    const struct bad_sched *b = &bad_scheds[_i];
    struct xmpi_rms_event sentinel;
    struct xmpi_rms_schedule s = {3, &sentinel, 2};
    ck_assert_msg(parse_sched(&s, b->text) == -1, "accepted: %s", b->text);
    assert_err_has(b->want);
    assert_err_has("expected");
    ck_assert_int_eq(s.n, 3);
    ck_assert_ptr_eq(s.ev, &sentinel);
    ck_assert_int_eq(s.next, 2);
}
END_TEST

START_TEST(test_schedule_due)
{
    struct xmpi_rms_schedule s;
    ck_assert_int_eq(parse_sched(&s, sched_text), 0);
    ck_assert_ptr_null(xmpi_rms_schedule_due(NULL, 5));
    assert_event(xmpi_rms_schedule_due(&s, 0), 0, XMPI_RMS_ACT_SPAWN, 1, "x.y-z_9");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 0));
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 99));
    /* Three due at 100 come out one per call, in file order. */
    assert_event(xmpi_rms_schedule_due(&s, 100), 100, XMPI_RMS_ACT_SHRINK, 2, "b");
    assert_event(xmpi_rms_schedule_due(&s, 100), 100, XMPI_RMS_ACT_SPAWN, 3, "c");
    assert_event(xmpi_rms_schedule_due(&s, 150), 100, XMPI_RMS_ACT_SHRINK, 1, "d");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 150));
    /* A late poll catches up, still one at a time. */
    assert_event(xmpi_rms_schedule_due(&s, 1000), 200, XMPI_RMS_ACT_SPAWN, 1, "a");
    assert_event(xmpi_rms_schedule_due(&s, 1000), 300, XMPI_RMS_ACT_SPAWN, 1000000, "e");
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 1000));
    ck_assert_ptr_null(xmpi_rms_schedule_due(&s, 100000));
    ck_assert_int_eq(s.next, 6);
    xmpi_rms_schedule_free(&s);
}
END_TEST

START_TEST(test_schedule_load)
{
    char d[512], p[600], want[800];
    test_dir(d, sizeof d);
    snprintf(p, sizeof p, "%s/events.txt", d);
    struct xmpi_rms_schedule s = {0, NULL, 0};
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot read the schedule file", p);
    assert_err_has(want);
    put(p, "10 spawn 2 fast\n5 remove 1 slow\n");
    ck_assert_msg(xmpi_rms_schedule_load(&s, p, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(s.n, 2);
    assert_event(&s.ev[0], 5, XMPI_RMS_ACT_SHRINK, 1, "slow");
    assert_event(&s.ev[1], 10, XMPI_RMS_ACT_SPAWN, 2, "fast");
    xmpi_rms_schedule_free(&s);
    put(p, "10 spawn 2 fast\n5 remove 1 slow\n7 remove x slow\n");
    ck_assert_int_eq(xmpi_rms_schedule_load(&s, p, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: field count: 'x' is not accepted", p);
    assert_err_has(want);
}
END_TEST

Suite *rms_suite(void)
{
    Suite *s = suite_create("rms");
    TCase *tc = tcase_create("state_parse");
    tcase_add_test(tc, test_parse_example);
    tcase_add_test(tc, test_parse_layout);
    tcase_add_loop_test(tc, test_parse_bad, 0, NBAD_STATES);
    tcase_add_test(tc, test_parse_nul);
    suite_add_tcase(s, tc);

    tc = tcase_create("state_files");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_random_round_trip);
    tcase_add_test(tc, test_read_errors);
    tcase_add_test(tc, test_write_errors);
    tcase_add_test(tc, test_print);
    tcase_add_test(tc, test_from_pool);
    suite_add_tcase(s, tc);

    tc = tcase_create("operations");
    tcase_add_test(tc, test_level_down_by_hand);
    tcase_add_test(tc, test_offer_spread);
    tcase_add_test(tc, test_offer_errors);
    tcase_add_test(tc, test_reclaim_order);
    tcase_add_test(tc, test_reclaim_errors);
    tcase_add_test(tc, test_offer_reclaim_random);
    tcase_add_test(tc, test_take);
    tcase_add_test(tc, test_give);
    tcase_add_loop_test(tc, test_action, 0, NACTIONS);
    suite_add_tcase(s, tc);

    tc = tcase_create("update");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    /* fsync per write: 60 locked updates on a slow disk need more than Check's 4 s. */
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_update_create);
    tcase_add_test(tc, test_update_unchanged_on_failure);
    tcase_add_test(tc, test_update_refuses_bad_result);
    tcase_add_test(tc, test_update_concurrent);
    suite_add_tcase(s, tc);

    tc = tcase_create("schedule");
    tcase_add_unchecked_fixture(tc, make_base, remove_base);
    tcase_add_test(tc, test_schedule_parse);
    tcase_add_test(tc, test_schedule_stable_many);
    tcase_add_loop_test(tc, test_schedule_bad, 0, NBAD_SCHEDS);
    tcase_add_test(tc, test_schedule_due);
    tcase_add_test(tc, test_schedule_load);
    suite_add_tcase(s, tc);
    return s;
}
