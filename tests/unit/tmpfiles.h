/* Real files for the suites that read and write them: a fresh directory (made and removed by
 * unchecked fixtures, which run in the parent, so it goes away even when a test fails halfway
 * in its forked child), whole-file writes and reads, and what a directory holds. */
#ifndef XMPIR_TESTS_UNIT_TMPFILES_H
#define XMPIR_TESTS_UNIT_TMPFILES_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A new directory parent/stem-XXXXXX; parent NULL: $TMPDIR, or /tmp without it. */
static inline void make_tmpdir(char *out, size_t len, const char *parent, const char *stem)
{
    if (!parent) {
        parent = getenv("TMPDIR");
        if (!parent || !*parent) parent = "/tmp";
    }
    snprintf(out, len, "%s/%s-XXXXXX", parent, stem);
    ck_assert_msg(mkdtemp(out) != NULL, "mkdtemp %s: %s", out, strerror(errno));
}

static inline void remove_tree(const char *d)
{
    DIR *dp = opendir(d);
    if (!dp) return;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[1024];
        if (snprintf(p, sizeof p, "%s/%s", d, de->d_name) >= (int)sizeof p) continue;
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) remove_tree(p);
        else unlink(p);
    }
    closedir(dp);
    rmdir(d);
}

/* The text through a real FILE, as a parser gets it from fopen, at its start. */
static inline FILE *text_file(const char *text)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    size_t n = strlen(text);
    ck_assert_uint_eq(fwrite(text, 1, n, f), n);
    rewind(f);
    return f;
}

static inline void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* The file's bytes, NUL-terminated (*len without the NUL, when len is not NULL). */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read back %s", path);
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

static inline int exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/* Entries of d other than . and .., for "nothing but these files is left". */
static inline int count_entries(const char *d)
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

#endif
