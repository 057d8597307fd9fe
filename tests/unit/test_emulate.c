/* libxmpi/emulate.c: argument rejection, the cgroup it creates, its quota, the move in and
 * back, speed updates, tag collisions, release at exit and the cleanup of stale groups. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../libxmpi/emulate.h"
#include "suites.h"

/* Each test runs in its own forked process (Check's default here), so a test that is
 * limited and fails still leaves through exit() and the library's atexit release. Every
 * tag carries the pid: other runs of this binary may share the machine's cgroups. */

static char err[512];   /* the size world.c passes */

/* The emulation state the runtime keeps in its context; like the runtime, the test
 * releases it at exit (each test runs in a forked process). */
static struct xmpi_emulation em_state;
static int em_ready;

static void release_at_exit(void)
{
    xmpi_emulate_release(&em_state);
}

/* Check has no skip: a test that cannot run here says so in the TAP form that tests/run.sh
 * counts as a skip (taking it out of Check's passes), instead of passing on nothing. */
#define SKIP_TEST(why)                                                        \
    do {                                                                      \
        printf("ok - %s # SKIP (check) %s\n", __func__, why);                 \
        fflush(stdout);                                                       \
        return;                                                               \
    } while (0)

static struct xmpi_emulation *emu(void)
{
    if (!em_ready) {
        xmpi_emulate_init(&em_state);
        atexit(release_at_exit);
        em_ready = 1;
    }
    return &em_state;
}

/* ---- an independent reading of where the process is ---- */

static void self_cgroup(char *buf, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static int has_token(const char *list, const char *tok)
{
    size_t k = strlen(tok);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == k && strncmp(p, tok, k) == 0) return 1;
        p += n;
        if (*p) p++;
    }
    return 0;
}

/* For a /proc/self/cgroup entry (controllers and path), calls fn with each directory
 * that shows that path: the mount of its hierarchy joined with the path below the
 * mount's root. Returns the first nonzero result of fn. */
static int for_each_dir(const char *ctrls, const char *path,
                        int (*fn)(const char *dir, void *arg), void *arg)
{
    FILE *f = fopen("/proc/self/mountinfo", "r");
    if (!f) return 0;
    char line[8192];
    int r = 0;
    while (!r && fgets(line, sizeof line, f)) {
        char root[4096], mnt[4096], fstype[64], super[1024];
        char *dash = strstr(line, " - ");
        if (!dash) continue;
        if (sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2) continue;
        if (sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2) continue;
        if (strchr(root, '\\') || strchr(mnt, '\\')) continue;   /* escaped: not ours */
        if (ctrls[0] == '\0') {
            if (strcmp(fstype, "cgroup2") != 0) continue;
        } else {
            if (strcmp(fstype, "cgroup") != 0) continue;
            char c[256];
            snprintf(c, sizeof c, "%s", ctrls);
            int all = 1;
            for (char *s = NULL, *t = strtok_r(c, ",", &s); t; t = strtok_r(NULL, ",", &s))
                all &= has_token(super, t);
            if (!all) continue;
        }
        size_t k = strcmp(root, "/") == 0 ? 0 : strlen(root);
        if (strncmp(path, root, k) != 0 || (path[k] && path[k] != '/')) continue;
        char dir[8300];
        snprintf(dir, sizeof dir, "%s%s", mnt, strcmp(path + k, "/") == 0 ? "" : path + k);
        r = fn(dir, arg);
    }
    fclose(f);
    return r;
}

/* Calls fn(ctrls, path) for each line of /proc/self/cgroup. */
static int for_each_line(int (*fn)(const char *ctrls, char *path, void *arg), void *arg)
{
    char buf[16384], *save = NULL;
    self_cgroup(buf, sizeof buf);
    int r = 0;
    for (char *l = strtok_r(buf, "\n", &save); l && !r; l = strtok_r(NULL, "\n", &save)) {
        char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = '\0';
        r = fn(c1 + 1, c2 + 1, arg);
    }
    return r;
}

struct found {
    const char *suffix;   /* "/xmpi/<tag>" */
    char dir[8300];
    int v2;
};

static int dir_exists(const char *dir)
{
    struct stat sb;
    return stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Releases, then checks the process is back in its original cgroup and, when dir is given,
 * that the group it was limited in is gone. */
static void release_restores(const char *before, const char *dir)
{
    char now[16384];
    xmpi_emulate_release(emu());
    self_cgroup(now, sizeof now);
    ck_assert_str_eq(now, before);
    if (dir) ck_assert_msg(!dir_exists(dir), "%s left behind", dir);
}

static int take_dir(const char *dir, void *arg)
{
    struct found *f = arg;
    if (!dir_exists(dir)) return 0;
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    return 1;
}

static int line_in_group(const char *ctrls, char *path, void *arg)
{
    struct found *f = arg;
    size_t n = strlen(path), k = strlen(f->suffix);
    if (n < k || strcmp(path + n - k, f->suffix) != 0) return 0;
    /* Only a hierarchy with the cpu controller can hold the quota. */
    if (ctrls[0] && !has_token(ctrls, "cpu")) return 0;
    f->v2 = ctrls[0] == '\0';
    return for_each_dir(ctrls, path, take_dir, f);
}

/* 1 with the group's directory when /proc/self/cgroup puts us in .../xmpi/<tag>. */
static int find_group(const char *tag, struct found *f)
{
    char suffix[256];
    snprintf(suffix, sizeof suffix, "/xmpi/%s", tag);
    f->suffix = suffix;
    int r = for_each_line(line_in_group, f);
    f->suffix = NULL;
    return r;
}

struct prefix_count {
    const char *prefix;
    int n;
};

static int count_in_xmpi(const char *dir, void *arg)
{
    struct prefix_count *pc = arg;
    char xdir[8400];
    snprintf(xdir, sizeof xdir, "%s/xmpi", dir);
    if (!dir_exists(xdir)) return 0;
    DIR *d = opendir(xdir);
    if (!d) return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, pc->prefix, strlen(pc->prefix)) == 0) pc->n++;
    closedir(d);
    return 0;
}

static int line_ancestors(const char *ctrls, char *path, void *arg)
{
    /* The library may put a v2 group below any ancestor, so look at all of them. */
    for (;;) {
        for_each_dir(ctrls, path[0] ? path : "/", count_in_xmpi, arg);
        char *s = strrchr(path, '/');
        if (!s || s == path) break;
        *s = '\0';
    }
    if (strcmp(path, "/") != 0) for_each_dir(ctrls, "/", count_in_xmpi, arg);
    return 0;
}

/* How many entries named prefix... sit in any xmpi directory the library could use. */
static int created_with_prefix(const char *prefix)
{
    struct prefix_count pc = {prefix, 0};
    for_each_line(line_ancestors, &pc);
    return pc.n;
}

/* ---- expectations ---- */

/* README, "Emulated node classes": a 10 ms period; below speed 0.1 the period grows so that
 * the quota stays at the kernel's 1 ms minimum, up to 100 ms. */
static long expected_period(double speed)
{
    if (speed >= 0.1) return 10000;
    long p = (long)ceil(1000.0 / speed);
    return p > 100000 ? 100000 : p;
}

static long expected_quota(double speed)
{
    long period = expected_period(speed);
    long q = lround(speed * (double)period);
    return q < 1000 ? 1000 : q > period ? period : q;
}

static long read_long_file(const char *dir, const char *file, long *second)
{
    char path[8500], buf[128] = "";
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    long a = -2, b = -2;
    ck_assert_msg(sscanf(buf, "%ld %ld", &a, &b) >= 1, "%s holds '%s'", path, buf);
    if (second) *second = b;
    return a;
}

static void assert_quota(const struct found *g, double speed)
{
    long want = expected_quota(speed);
    if (g->v2) {
        long period = 0, quota = read_long_file(g->dir, "cpu.max", &period);
        ck_assert_int_eq(quota, want);
        ck_assert_int_eq(period, expected_period(speed));
    } else {
        ck_assert_int_eq(read_long_file(g->dir, "cpu.cfs_quota_us", NULL), want);
        ck_assert_int_eq(read_long_file(g->dir, "cpu.cfs_period_us", NULL), expected_period(speed));
    }
}

static void tag_for(char *out, size_t len, const char *what)
{
    snprintf(out, len, "ut%ld-%s", (long)getpid(), what);
}

static void rmdir_patiently(const char *dir)
{
    for (int i = 0; i < 200 && rmdir(dir) < 0 && errno == EBUSY; i++) {
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
}

/* ---- rejected arguments ---- */

static const double bad_speeds[] = {0.0, -0.0, -0.5, 1.0000001, 2.0, -1.0, NAN, INFINITY,
                                     -INFINITY};

START_TEST(test_bad_speed)
{
    char before[16384], after[16384], tag[64], prefix[64];
    tag_for(tag, sizeof tag, "speed");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);
    err[0] = '\0';
    ck_assert_int_eq(xmpi_emulate_limit(emu(), bad_speeds[_i], tag, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "speed") && strstr(err, "at most 1"), "%s", err);
    self_cgroup(after, sizeof after);
    ck_assert_str_eq(after, before);
    ck_assert_int_eq(created_with_prefix(prefix), 0);
}
END_TEST

START_TEST(test_bad_tag)
{
    char before[16384], after[16384], prefix[64], t[512];
    snprintf(prefix, sizeof prefix, "ut%ld", (long)getpid());
    /* Each bad tag starts with the pid prefix, so any directory it made would show. */
    const char *suffix[] = {"/x", "/../x", " x", ";x", "\nx", "\tx", "\xc3\xa9", "*", "x/",
                            ":x", "\\x", "'x"};
    const char *bare[] = {"", ".", ".."};
    const int nsuffix = (int)(sizeof suffix / sizeof suffix[0]);
    if (_i < nsuffix) snprintf(t, sizeof t, "%s%s", prefix, suffix[_i]);
    else if (_i < nsuffix + 3) snprintf(t, sizeof t, "%s", bare[_i - nsuffix]);
    else {
        /* Longer than the 200 characters accepted, all of them valid ones. */
        snprintf(t, sizeof t, "%s", prefix);
        size_t n = strlen(t);
        memset(t + n, 'a', 201 - n);
        t[201] = '\0';
    }
    self_cgroup(before, sizeof before);
    err[0] = '\0';
    ck_assert_int_eq(xmpi_emulate_limit(emu(), 0.5, t, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "tag") && strstr(err, "A-Z a-z 0-9 _ . -"), "%s", err);
    ck_assert_msg(strchr(err, '\n') == NULL, "control character echoed: %s", err);
    self_cgroup(after, sizeof after);
    ck_assert_str_eq(after, before);
    ck_assert_int_eq(created_with_prefix(prefix), 0);
}
END_TEST

START_TEST(test_null_tag_and_msg)
{
    err[0] = 'x';
    ck_assert_int_eq(xmpi_emulate_limit(emu(), 0.5, NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "tag") != NULL, "%s", err);
    /* No message buffer at all must not crash either. */
    ck_assert_int_eq(xmpi_emulate_limit(emu(), 0.0, "x", NULL, 0), -1);
    ck_assert_int_eq(xmpi_emulate_limit(emu(), 0.5, "a/b", err, 0), -1);
}
END_TEST

/* ---- limit, update, release ---- */

/* When emulation is unavailable the call must say so and leave no trace. Only a missing
 * controller is accepted: a failure after finding one (a quota the kernel refused, say)
 * is a failure of the test, not a machine without cgroups. */
static void assert_unavailable(const char *before, const char *prefix)
{
    char after[16384];
    ck_assert_msg(err[0] != '\0', "limit returned 1 without a message");
    ck_assert_msg(strstr(err, "no writable cgroup cpu controller") &&
                  strstr(err, "full speed"), "%s", err);
    self_cgroup(after, sizeof after);
    ck_assert_str_eq(after, before);
    ck_assert_int_eq(created_with_prefix(prefix), 0);
}

START_TEST(test_limit_update_release)
{
    char before[16384], now[16384], tag[64], prefix[64], other[64];
    tag_for(tag, sizeof tag, "main");
    tag_for(other, sizeof other, "other");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);

    int rc = xmpi_emulate_limit(emu(), 0.5, tag, err, sizeof err);
    ck_assert_msg(rc == 0 || rc == 1, "rc %d: %s", rc, err);
    if (rc == 1) {
        assert_unavailable(before, prefix);
        return;
    }
    struct found g, g2;
    ck_assert_msg(find_group(tag, &g), "/proc/self/cgroup shows no .../xmpi/%s:\n%s", tag,
                  (self_cgroup(now, sizeof now), now));
    ck_assert(dir_exists(g.dir));
    assert_quota(&g, 0.5);

    /* A second call, even under another tag, changes the quota of the same group. */
    ck_assert_msg(xmpi_emulate_limit(emu(), 0.25, other, err, sizeof err) == 0, "%s", err);
    ck_assert(find_group(tag, &g2));
    ck_assert_str_eq(g2.dir, g.dir);
    assert_quota(&g, 0.25);
    ck_assert_int_eq(created_with_prefix(other), 0);
    /* Changes that lengthen and then shorten the period (speeds below 0.1 need a longer one). */
    ck_assert_msg(xmpi_emulate_limit(emu(), 0.02, tag, err, sizeof err) == 0, "%s", err);
    assert_quota(&g, 0.02);
    ck_assert_msg(xmpi_emulate_limit(emu(), 0.7, tag, err, sizeof err) == 0, "%s", err);
    assert_quota(&g, 0.7);

    release_restores(before, g.dir);

    release_restores(before, NULL);
}
END_TEST

/* 0.29 and 0.57 are just below whole microseconds in binary, so truncating would show. */
static const double speeds[] = {1.0, 0.75, 0.5, 0.29, 0.57, 0.1, 0.0999, 0.05, 0.02, 0.01, 0.005, 1e-9};

/* --xmpi-emulate-period: another base period, the same rule below the 1 ms minimum quota. */
START_TEST(test_period_option)
{
    ck_assert_int_eq(xmpi_emulate_set_period(emu(), 999), -1);
    ck_assert_int_eq(xmpi_emulate_set_period(emu(), 100001), -1);
    ck_assert_int_eq(xmpi_emulate_set_period(emu(), 2000), 0);
    char before[16384], tag[64], prefix[64];
    tag_for(tag, sizeof tag, "per");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);
    int rc = xmpi_emulate_limit(emu(), 0.5, tag, err, sizeof err);
    if (rc == 1) {
        xmpi_emulate_set_period(emu(), 10000);
        assert_unavailable(before, prefix);
        return;
    }
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err);
    struct found g;
    ck_assert(find_group(tag, &g));
    long want_q = 1000, want_p = 2000;   /* 0.5 x 2 ms */
    for (int step = 0; step < 2; step++) {
        long period = 0, quota;
        if (g.v2) {
            quota = read_long_file(g.dir, "cpu.max", &period);
        } else {
            quota = read_long_file(g.dir, "cpu.cfs_quota_us", NULL);
            period = read_long_file(g.dir, "cpu.cfs_period_us", NULL);
        }
        ck_assert_int_eq(quota, want_q);
        ck_assert_int_eq(period, want_p);
        /* 0.3 x 2 ms is under 1 ms: the period grows to 1 ms / 0.3. */
        ck_assert_msg(xmpi_emulate_limit(emu(), 0.3, tag, err, sizeof err) == 0, "%s", err);
        want_q = 1000;
        want_p = 3334;
    }
    xmpi_emulate_set_period(emu(), 10000);
    release_restores(before, g.dir);
}
END_TEST

START_TEST(test_quota_values)
{
    char before[16384], tag[64], prefix[64];
    tag_for(tag, sizeof tag, "q");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);
    int rc = xmpi_emulate_limit(emu(), speeds[_i], tag, err, sizeof err);
    ck_assert_msg(rc == 0 || rc == 1, "rc %d: %s", rc, err);
    if (rc == 1) {
        assert_unavailable(before, prefix);
        return;
    }
    struct found g;
    ck_assert(find_group(tag, &g));
    assert_quota(&g, speeds[_i]);
    release_restores(before, g.dir);
}
END_TEST

START_TEST(test_release_without_limit)
{
    char before[16384];
    self_cgroup(before, sizeof before);
    xmpi_emulate_release(emu());
    release_restores(before, NULL);
}
END_TEST

START_TEST(test_release_then_limit_again)
{
    char before[16384], tag[64], prefix[64];
    tag_for(tag, sizeof tag, "again");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);
    for (int round = 0; round < 2; round++) {
        int rc = xmpi_emulate_limit(emu(), round ? 0.2 : 0.6, tag, err, sizeof err);
        ck_assert_msg(rc == 0 || rc == 1, "rc %d: %s", rc, err);
        if (rc == 1) {
            assert_unavailable(before, prefix);
            return;
        }
        struct found g;
        ck_assert(find_group(tag, &g));
        assert_quota(&g, round ? 0.2 : 0.6);
        release_restores(before, g.dir);
    }
}
END_TEST

static int line_v1_cpu(const char *ctrls, char *path, void *arg)
{
    if (!ctrls[0] || !has_token(ctrls, "cpu")) return 0;
    return for_each_dir(ctrls, path, take_dir, arg);
}

static void write_file(const char *dir, const char *file, const char *text)
{
    char path[8500];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
    fputs(text, f);
    ck_assert_msg(fclose(f) == 0, "%s: %s", path, strerror(errno));
}

/* A failure after the group exists must undo it and leave the process where it was.
 * v1 refuses a child quota above its parent's, which makes such a failure on demand;
 * where v1 cpu is not writable there is no way to provoke one, and nothing to check. */
START_TEST(test_failure_undone)
{
    struct found own;
    if (!for_each_line(line_v1_cpu, &own)) SKIP_TEST("no cgroup v1 cpu hierarchy here");
    char outer[8400], xdir[8500], before[16384], now[16384], prefix[64], tag[64];
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    tag_for(tag, sizeof tag, "undo");
    snprintf(outer, sizeof outer, "%s/%souter", own.dir, prefix);
    snprintf(xdir, sizeof xdir, "%s/xmpi", outer);
    if (mkdir(outer, 0755) < 0) SKIP_TEST("cannot create a cgroup in the v1 cpu hierarchy");
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    write_file(outer, "cpu.cfs_period_us", "100000");
    write_file(outer, "cpu.cfs_quota_us", "10000");
    write_file(outer, "cgroup.procs", pid);
    self_cgroup(before, sizeof before);

    int rc = xmpi_emulate_limit(emu(), 0.5, tag, err, sizeof err);
    char group[8600];
    snprintf(group, sizeof group, "%s/%s", xdir, tag);
    int group_left = dir_exists(group);
    self_cgroup(now, sizeof now);

    write_file(own.dir, "cgroup.procs", pid);
    rmdir(group);
    rmdir(xdir);
    rmdir_patiently(outer);

    ck_assert_msg(rc == 1, "rc %d: %s", rc, err);
    ck_assert_msg(strstr(err, "cpu.cfs_quota_us") && strstr(err, "full speed"), "%s", err);
    ck_assert_msg(strstr(err, strerror(EINVAL)) != NULL, "%s", err);
    ck_assert_msg(!group_left, "%s left behind", group);
    ck_assert_str_eq(now, before);
    /* Nothing to release, and a later call is not mistaken for a speed update. */
    xmpi_emulate_release(emu());
    ck_assert_msg(xmpi_emulate_limit(emu(), 0.5, tag, err, sizeof err) == 0, "%s", err);
    struct found g;
    ck_assert(find_group(tag, &g));
    assert_quota(&g, 0.5);
    xmpi_emulate_release(emu());
    ck_assert(!dir_exists(g.dir));
}
END_TEST

/* ---- helper processes holding or abandoning a group ---- */

struct report {
    int rc;
    int v2;
    char dir[8300];
    char msg[512];
};

struct helper {
    pid_t pid;
    int go;   /* write end: closing it lets the helper return from main normally */
    struct report r;
};

/* Forks a process that limits itself under `tag`, reports, then waits for `go` to close
 * and leaves with exit(0) without calling release. */
static void start_helper_as(struct helper *h, const char *tag, double speed, int shared)
{
    int rep[2], go[2];
    ck_assert(pipe(rep) == 0 && pipe(go) == 0);
    fflush(NULL);
    h->pid = fork();
    ck_assert(h->pid >= 0);
    if (h->pid == 0) {
        close(rep[0]);
        close(go[1]);
        struct report r;
        memset(&r, 0, sizeof r);
        r.rc = shared ? xmpi_emulate_share(emu(), speed, tag, r.msg, sizeof r.msg)
                      : xmpi_emulate_limit(emu(), speed, tag, r.msg, sizeof r.msg);
        struct found g;
        if (r.rc == 0 && find_group(tag, &g)) {
            snprintf(r.dir, sizeof r.dir, "%s", g.dir);
            r.v2 = g.v2;
        }
        if (write(rep[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(3);
        char c;
        while (read(go[0], &c, 1) > 0) {}
        exit(0);
    }
    close(rep[1]);
    close(go[0]);
    h->go = go[1];
    size_t got = 0;
    while (got < sizeof h->r) {
        ssize_t n = read(rep[0], (char *)&h->r + got, sizeof h->r - got);
        if (n < 0 && errno == EINTR) continue;
        ck_assert_msg(n > 0, "helper died before reporting");
        got += (size_t)n;
    }
    close(rep[0]);
}

static void start_helper(struct helper *h, const char *tag, double speed)
{
    start_helper_as(h, tag, speed, 0);
}

static int finish_helper(struct helper *h, int kill_it)
{
    if (kill_it) kill(h->pid, SIGKILL);
    close(h->go);
    int status = 0;
    ck_assert(waitpid(h->pid, &status, 0) == h->pid);
    return status;
}

START_TEST(test_atexit_release)
{
    char tag[64], prefix[64];
    tag_for(tag, sizeof tag, "exit");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    struct helper h;
    start_helper(&h, tag, 0.5);
    ck_assert_msg(h.r.rc == 0 || h.r.rc == 1, "rc %d: %s", h.r.rc, h.r.msg);
    if (h.r.rc == 1) {
        ck_assert_msg(strstr(h.r.msg, "no writable cgroup cpu controller"), "%s", h.r.msg);
        finish_helper(&h, 0);
        ck_assert_int_eq(created_with_prefix(prefix), 0);
        return;
    }
    ck_assert_msg(h.r.dir[0], "helper limited but not in .../xmpi/%s", tag);
    ck_assert(dir_exists(h.r.dir));
    int status = finish_helper(&h, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_msg(!dir_exists(h.r.dir), "%s survived a normal exit", h.r.dir);
}
END_TEST

START_TEST(test_tag_in_use_then_reuse)
{
    char before[16384], now[16384], tag[64];
    tag_for(tag, sizeof tag, "dup");
    self_cgroup(before, sizeof before);
    struct helper h;
    start_helper(&h, tag, 0.5);
    if (h.r.rc == 1) {
        ck_assert_msg(strstr(h.r.msg, "no writable cgroup cpu controller"), "%s", h.r.msg);
        finish_helper(&h, 0);
        self_cgroup(now, sizeof now);
        ck_assert_str_eq(now, before);
        ck_assert_int_eq(created_with_prefix(tag), 0);
        return;
    }
    ck_assert_msg(h.r.rc == 0 && h.r.dir[0], "rc %d: %s", h.r.rc, h.r.msg);

    /* The helper lives in the group: the same tag from here is a collision. */
    ck_assert_int_eq(xmpi_emulate_limit(emu(), 0.3, tag, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "unique") != NULL, "%s", err);
    self_cgroup(now, sizeof now);
    ck_assert_str_eq(now, before);
    struct found g = {.v2 = h.r.v2};
    snprintf(g.dir, sizeof g.dir, "%s", h.r.dir);
    ck_assert(dir_exists(g.dir));
    assert_quota(&g, 0.5);

    /* Killed, the helper leaves the group empty and unused: the tag can be taken over. */
    finish_helper(&h, 1);
    ck_assert(dir_exists(g.dir));
    ck_assert_msg(xmpi_emulate_limit(emu(), 0.3, tag, err, sizeof err) == 0, "%s", err);
    struct found mine;
    ck_assert(find_group(tag, &mine));
    ck_assert_str_eq(mine.dir, g.dir);
    assert_quota(&mine, 0.3);
    release_restores(before, g.dir);
}
END_TEST

START_TEST(test_cleanup)
{
    char before[16384], now[16384], live[64], stale[64], prefix[64];
    tag_for(live, sizeof live, "live");
    tag_for(stale, sizeof stale, "stale");
    snprintf(prefix, sizeof prefix, "ut%ld-", (long)getpid());
    self_cgroup(before, sizeof before);

    struct helper hl, hs;
    start_helper(&hl, live, 0.5);
    if (hl.r.rc == 1) {
        /* Nothing to clean where nothing can be created; the call must still be safe. */
        ck_assert_msg(strstr(hl.r.msg, "no writable cgroup cpu controller"), "%s", hl.r.msg);
        finish_helper(&hl, 0);
        ck_assert_int_ge(xmpi_emulate_cleanup(), 0);
        self_cgroup(now, sizeof now);
        ck_assert_str_eq(now, before);
        return;
    }
    ck_assert_msg(hl.r.rc == 0 && hl.r.dir[0], "rc %d: %s", hl.r.rc, hl.r.msg);
    /* A process killed while limited leaves its group behind, empty. */
    start_helper(&hs, stale, 0.5);
    ck_assert_msg(hs.r.rc == 0 && hs.r.dir[0], "rc %d: %s", hs.r.rc, hs.r.msg);
    finish_helper(&hs, 1);
    ck_assert(dir_exists(hs.r.dir));

    /* By hand, next to the live group: an empty one and one with a child group. */
    char xdir[8300], hand[8400], full[8400], sub[8500];
    snprintf(xdir, sizeof xdir, "%s", hl.r.dir);
    *strrchr(xdir, '/') = '\0';
    snprintf(hand, sizeof hand, "%s/%shand", xdir, prefix);
    snprintf(full, sizeof full, "%s/%sfull", xdir, prefix);
    snprintf(sub, sizeof sub, "%s/sub", full);
    ck_assert_msg(mkdir(hand, 0755) == 0, "%s: %s", hand, strerror(errno));
    ck_assert_msg(mkdir(full, 0755) == 0, "%s: %s", full, strerror(errno));
    ck_assert_msg(mkdir(sub, 0755) == 0, "%s: %s", sub, strerror(errno));

    int n = xmpi_emulate_cleanup();
    int kept_live = dir_exists(hl.r.dir), kept_full = dir_exists(full);
    int kept_sub = dir_exists(sub), gone_stale = !dir_exists(hs.r.dir);
    int gone_hand = !dir_exists(hand);

    /* Tidy up before asserting, so a failure leaves nothing for the next run. */
    finish_helper(&hl, 1);
    rmdir(sub);
    rmdir(full);
    rmdir(hand);
    rmdir_patiently(hl.r.dir);
    rmdir(hs.r.dir);

    ck_assert_msg(gone_stale, "stale %s kept", hs.r.dir);
    ck_assert_msg(gone_hand, "empty %s kept", hand);
    ck_assert_msg(kept_live, "in-use %s removed", hl.r.dir);
    ck_assert_msg(kept_full && kept_sub, "non-empty %s removed", full);
    ck_assert_int_ge(n, 2);
    self_cgroup(now, sizeof now);
    ck_assert_str_eq(now, before);
    ck_assert_int_eq(created_with_prefix(prefix), 0);
}
END_TEST

/* The quota of a shared group, in units of one member's quota at `speed`. */
static double members_paid(const struct found *g, double speed)
{
    long q = g->v2 ? read_long_file(g->dir, "cpu.max", NULL)
                   : read_long_file(g->dir, "cpu.cfs_quota_us", NULL);
    return (double)q / (double)expected_quota(speed);
}

/* xmpi_emulate_share: a second member doubles the group's quota (one period for both), a
 * member that leaves takes its share back, and the last one removes the group. */
START_TEST(test_share_join_leave)
{
    char before[16384], now[16384], tag[64];
    tag_for(tag, sizeof tag, "share");
    self_cgroup(before, sizeof before);
    struct helper h;
    start_helper_as(&h, tag, 0.4, 1);
    if (h.r.rc == 1) {
        ck_assert_msg(strstr(h.r.msg, "no writable cgroup cpu controller"), "%s", h.r.msg);
        finish_helper(&h, 0);
        SKIP_TEST("no writable cgroup cpu controller here");
    }
    ck_assert_msg(h.r.rc == 0 && h.r.dir[0], "rc %d: %s", h.r.rc, h.r.msg);
    struct found g = {.v2 = h.r.v2};
    snprintf(g.dir, sizeof g.dir, "%s", h.r.dir);
    ck_assert_double_eq_tol(members_paid(&g, 0.4), 1.0, 1e-9);
    ck_assert_int_eq(read_long_file(g.dir, g.v2 ? "cpu.max" : "cpu.cfs_period_us", NULL) > 0, 1);

    /* Where limit() calls the tag a collision, share() joins. */
    ck_assert_msg(xmpi_emulate_share(emu(), 0.4, tag, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(strstr(err, "shared by 2 processes"), "%s", err);
    struct found mine;
    ck_assert(find_group(tag, &mine));
    ck_assert_str_eq(mine.dir, g.dir);
    ck_assert_double_eq_tol(members_paid(&g, 0.4), 2.0, 1e-9);

    /* This process leaves: back where it was, the helper's share stays. */
    xmpi_emulate_release(emu());
    self_cgroup(now, sizeof now);
    ck_assert_str_eq(now, before);
    ck_assert(dir_exists(g.dir));
    ck_assert_double_eq_tol(members_paid(&g, 0.4), 1.0, 1e-9);

    /* The helper ends normally (its atexit release): the last member removes the group. */
    int status = finish_helper(&h, 0);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ck_assert_msg(!dir_exists(g.dir), "%s survived its last member", g.dir);
}
END_TEST

/* A member killed without leaving is not counted by the next one to join. */
START_TEST(test_share_after_kill)
{
    char before[16384], tag[64];
    tag_for(tag, sizeof tag, "sharek");
    self_cgroup(before, sizeof before);
    struct helper h;
    start_helper_as(&h, tag, 0.3, 1);
    if (h.r.rc == 1) {
        finish_helper(&h, 0);
        SKIP_TEST("no writable cgroup cpu controller here");
    }
    ck_assert_msg(h.r.rc == 0 && h.r.dir[0], "rc %d: %s", h.r.rc, h.r.msg);
    finish_helper(&h, 1);
    ck_assert(dir_exists(h.r.dir));
    /* The killed process may take a moment to leave cgroup.procs. */
    for (int i = 0; i < 100; i++) {
        char procs[8500], buf[64] = "";
        snprintf(procs, sizeof procs, "%s/cgroup.procs", h.r.dir);
        FILE *f = fopen(procs, "r");
        size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f) fclose(f);
        if (n == 0) break;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    ck_assert_msg(xmpi_emulate_share(emu(), 0.3, tag, err, sizeof err) == 0, "%s", err);
    struct found g = {.v2 = h.r.v2};
    snprintf(g.dir, sizeof g.dir, "%s", h.r.dir);
    ck_assert_double_eq_tol(members_paid(&g, 0.3), 1.0, 1e-9);
    release_restores(before, g.dir);
}
END_TEST

/* ---- time dilation ---- */

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Computation below 200 us of owed sleep is carried, not slept: the clock comes back as
 * given and the debt holds the stretch (1/speed - 1 times the computation). */
START_TEST(test_dilate_carries_small_debts)
{
    struct xmpi_emulation em;
    xmpi_emulate_init(&em);
    xmpi_emulate_dilate(&em, 0.5, 100.0);
    ck_assert_int_eq(em.dilate, 1);
    ck_assert_int_eq(em.cpu_clock, 1);
    em.cpu_clock = 0;   /* the arithmetic on the given wall clock */
    ck_assert_double_eq_tol(xmpi_emulate_speed(&em), 0.5, 1e-12);
    ck_assert_double_eq(xmpi_emulate_settle(&em, 100.00005), 100.00005);
    ck_assert_double_eq_tol(em.debt, 50e-6, 1e-12);
    /* Time inside MPI (from resume to the next entry is computation; before it is not). */
    xmpi_emulate_resume(&em, 100.001);
    ck_assert_double_eq(xmpi_emulate_settle(&em, 100.00104), 100.00104);
    ck_assert_double_eq_tol(em.debt, 90e-6, 1e-12);
    /* A clock that went backwards adds nothing. */
    xmpi_emulate_resume(&em, 100.002);
    ck_assert_double_eq(xmpi_emulate_settle(&em, 100.0015), 100.0015);
    ck_assert_double_eq_tol(em.debt, 90e-6, 1e-12);
}
END_TEST

/* Over the threshold the process sleeps at least what it owes (a lower bound the kernel
 * guarantees, not a timing); the returned clock moves by the sleep, the debt is paid down to
 * at most one threshold of overshoot, and computation restarts after the sleep. */
START_TEST(test_dilate_sleeps_what_it_owes)
{
    struct xmpi_emulation em;
    xmpi_emulate_init(&em);
    xmpi_emulate_dilate(&em, 0.25, 50.0);   /* factor 3 */
    em.cpu_clock = 0;
    double back = xmpi_emulate_settle(&em, 50.004);   /* owes 12 ms */
    ck_assert_msg(back - 50.004 >= 0.012 - 1e-6, "slept %g s for 0.012 owed", back - 50.004);
    ck_assert_msg(em.debt <= 1e-9 && em.debt >= -200e-6 - 1e-12, "debt %g", em.debt);
    ck_assert_double_eq(em.last, back);
    /* Speeds without dilation: at 1 and outside (0, 1) the emulation is off. */
    const double off[] = {1.0, 0.0, -0.5, 2.0, NAN};
    for (size_t i = 0; i < sizeof off / sizeof *off; i++) {
        xmpi_emulate_dilate(&em, off[i], 1.0);
        ck_assert_int_eq(em.dilate, 0);
        ck_assert_double_eq(xmpi_emulate_settle(&em, 9.0), 9.0);
    }
    /* Release turns it off as well. */
    xmpi_emulate_dilate(&em, 0.5, 1.0);
    xmpi_emulate_release(&em);
    ck_assert_int_eq(em.dilate, 0);
    ck_assert_double_eq(xmpi_emulate_speed(&em), 0);
}
END_TEST

/* On the CPU clock (the default): a stretch that burnt no CPU (the process was off its core,
 * here asleep) owes nothing however long it lasted, and the debt it leaves is at most one
 * threshold below zero; a stretch that burnt CPU owes cpu / speed minus its wall time, so a
 * process at speed 0.05 that computes 5 ms sleeps (a bound, unless the stretch's wall time
 * was 20 times its CPU time). */
START_TEST(test_dilate_cpu_clock)
{
    struct xmpi_emulation em;
    xmpi_emulate_init(&em);
    xmpi_emulate_dilate(&em, 0.05, mono_now());
    struct timespec ts = {0, 20000000L};
    nanosleep(&ts, NULL);
    double now = mono_now();
    ck_assert_double_eq(xmpi_emulate_settle(&em, now), now);
    ck_assert_msg(em.debt <= 0 && em.debt >= -200e-6 - 1e-12, "debt %g after a sleep", em.debt);
    xmpi_emulate_resume(&em, mono_now());
    double cpu0 = xmpi_emulate_cpu(), t0 = mono_now();
    volatile double x = 0;
    while (xmpi_emulate_cpu() - cpu0 < 0.005) x += 1;
    double wall = mono_now() - t0;
    now = mono_now();
    double back = xmpi_emulate_settle(&em, now);
    if (wall < 0.05)
        ck_assert_msg(back > now, "5 ms of CPU at speed 0.05 in %g s of wall time: no sleep", wall);
    ck_assert_msg(em.debt <= 1e-9 && em.debt >= -200e-6 - 1e-12, "debt %g", em.debt);
}
END_TEST

Suite *emulate_suite(void)
{
    Suite *s = suite_create("emulate");
    TCase *tc = tcase_create("arguments");
    tcase_add_loop_test(tc, test_bad_speed, 0,
                        (int)(sizeof bad_speeds / sizeof bad_speeds[0]));
    tcase_add_loop_test(tc, test_bad_tag, 0, 16);
    tcase_add_test(tc, test_null_tag_and_msg);
    suite_add_tcase(s, tc);

    tc = tcase_create("limit");
    tcase_add_test(tc, test_limit_update_release);
    tcase_add_test(tc, test_period_option);
    tcase_add_loop_test(tc, test_quota_values, 0, (int)(sizeof speeds / sizeof speeds[0]));
    tcase_add_test(tc, test_release_without_limit);
    tcase_add_test(tc, test_release_then_limit_again);
    tcase_add_test(tc, test_failure_undone);
    suite_add_tcase(s, tc);

    tc = tcase_create("dilation");
    tcase_add_test(tc, test_dilate_carries_small_debts);
    tcase_add_test(tc, test_dilate_sleeps_what_it_owes);
    tcase_add_test(tc, test_dilate_cpu_clock);
    suite_add_tcase(s, tc);

    tc = tcase_create("processes");
    tcase_add_test(tc, test_atexit_release);
    tcase_add_test(tc, test_tag_in_use_then_reuse);
    tcase_add_test(tc, test_cleanup);
    tcase_add_test(tc, test_share_join_leave);
    tcase_add_test(tc, test_share_after_kill);
    suite_add_tcase(s, tc);
    return s;
}
