/* Emulated slower processors: the whole process confined to a fraction of one core by a
 * cgroup CPU quota, in a group it creates under .../xmpi/<tag> and removes on release. */
#include "emulate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* The quota period. Within a period a limited process runs at full speed until its quota is
 * spent, then waits: only over spans much longer than the period does it look like a slower
 * processor. 10 ms is well below the iterations the benchmarks run (a 100 ms period made a
 * 40 ms iteration wait out the whole throttle, see README); speeds below 0.1 need a longer
 * period for the kernel's 1 ms minimum quota, up to 100 ms, where speed 0.01 still fits. */
#define PERIOD_US 10000L
#define MAX_PERIOD_US 100000L
#define MIN_QUOTA_US 1000L
#define MAX_TAG 200
#define MAX_HIERS 8

struct hier {
    int v2;
    char mnt[PATH_MAX];   /* where the hierarchy is mounted */
    char rel[PATH_MAX];   /* our cgroup below the mount: "" for its root, else "/a/b" */
};


static void say(char *msg, size_t len, const char *fmt, ...)
{
    if (!msg || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
}

static int join(char *out, size_t len, const char *a, const char *b, const char *c)
{
    int n = snprintf(out, len, "%s%s%s", a, b, c ? c : "");
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    while (n + 1 < len) {
        ssize_t r = read(fd, buf + n, len - 1 - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    close(fd);
    return (ssize_t)n;
}

/* cgroup files take one value per write(), so the text must go out in a single call. */
static int write_str(const char *path, const char *s)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = strlen(s);
    ssize_t w;
    do w = write(fd, s, n);
    while (w < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (w == (ssize_t)n) return 0;
    errno = w < 0 ? e : EIO;
    return -1;
}

static int has_token(const char *list, const char *tok, const char *seps)
{
    size_t k = strlen(tok);
    for (const char *p = list; *p;) {
        p += strspn(p, seps);
        size_t n = strcspn(p, seps);
        if (n == k && strncmp(p, tok, k) == 0) return 1;
        p += n;
    }
    return 0;
}

static int file_has_token(const char *dir, const char *file, const char *tok)
{
    char path[PATH_MAX], buf[1024];
    if (join(path, sizeof path, dir, "/", file) < 0) return 0;
    return read_small(path, buf, sizeof buf) >= 0 && has_token(buf, tok, " \t\n");
}

/* mountinfo escapes blanks and backslashes in paths as \ooo. */
static void unescape(char *s)
{
    char *o = s;
    for (char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
            p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* Our cgroup path in the v2 hierarchy (v2 set) or in the v1 hierarchy holding "cpu". */
static int own_cgroup(int v2, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f) return -1;
    char line[PATH_MAX + 256];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':');
        char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = '\0';
        int match = v2 ? strcmp(line, "0") == 0 && c1 + 1 == c2
                       : has_token(c1 + 1, "cpu", ",");
        /* A removed cgroup cannot take a child group. */
        if (!match || strstr(c2 + 1, " (deleted)")) continue;
        if (strlen(c2 + 1) < len) {
            strcpy(out, c2 + 1);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* The path of `cg` below a mount of its hierarchy rooted at `root`; -1 when the mount
 * shows another part of the tree (a container's view of a sibling, say). */
static int below_root(const char *cg, const char *root, char *out, size_t len)
{
    size_t k = strcmp(root, "/") == 0 ? 0 : strlen(root);
    if (strncmp(cg, root, k) != 0 || (cg[k] != '\0' && cg[k] != '/')) return -1;
    const char *rest = cg + k;
    if (strcmp(rest, "/") == 0) rest = "";
    if (strlen(rest) >= len) return -1;
    strcpy(out, rest);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] == '/') out[--n] = '\0';
    return 0;
}

/* Every mount through which our own cgroup can get a CPU quota, v2 first: where v2 has
 * the cpu controller it is the one the kernel enforces, and a hybrid system cannot have
 * cpu in both. */
static int find_hiers(struct hier *h, int max)
{
    char cg2[PATH_MAX], cg1[PATH_MAX];
    int have2 = own_cgroup(1, cg2, sizeof cg2) == 0;
    int have1 = own_cgroup(0, cg1, sizeof cg1) == 0;
    if (!have1 && !have2) return 0;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f) return 0;
    int n = 0;
    char line[3 * PATH_MAX];
    for (int pass = 2; pass >= 1; pass--) {
        rewind(f);
        while (n < max && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = '\0';
            /* id parent dev root mountpoint options [optional...] - fstype source super */
            char *dash = strstr(line, " - ");
            if (!dash) continue;
            *dash = '\0';
            char *save = NULL, *field[5] = {0};
            char *tok = strtok_r(line, " ", &save);
            for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save)) field[i] = tok;
            if (!field[4]) continue;
            save = NULL;
            char *fstype = strtok_r(dash + 3, " ", &save);
            char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
            char *super = source ? strtok_r(NULL, " ", &save) : NULL;
            if (!super) continue;
            const char *cg;
            if (pass == 2 && have2 && strcmp(fstype, "cgroup2") == 0) cg = cg2;
            else if (pass == 1 && have1 && strcmp(fstype, "cgroup") == 0 &&
                     has_token(super, "cpu", ","))
                cg = cg1;
            else continue;
            unescape(field[3]);
            unescape(field[4]);
            if (strlen(field[4]) >= sizeof h[n].mnt) continue;
            if (below_root(cg, field[3], h[n].rel, sizeof h[n].rel) < 0) continue;
            strcpy(h[n].mnt, field[4]);
            h[n].v2 = pass == 2;
            n++;
        }
    }
    fclose(f);
    return n;
}

/* Drops the last component: "/a/b" -> "/a" -> ""; 0 once at the top. */
static int up(char *rel)
{
    char *s = strrchr(rel, '/');
    if (!s) return 0;
    *s = '\0';
    return 1;
}

void xmpi_emulate_init(struct xmpi_emulation *em)
{
    memset(em, 0, sizeof *em);
    em->base_period = PERIOD_US;
}

int xmpi_emulate_set_period(struct xmpi_emulation *em, long us)
{
    if (us < MIN_QUOTA_US || us > MAX_PERIOD_US) return -1;
    em->base_period = us;
    return 0;
}

static long period_us(const struct xmpi_emulation *em, double speed)
{
    if (speed * (double)em->base_period >= (double)MIN_QUOTA_US) return em->base_period;
    double p = ceil((double)MIN_QUOTA_US / speed);
    return p > (double)MAX_PERIOD_US ? MAX_PERIOD_US : (long)p;
}

static long quota_us(const struct xmpi_emulation *em, double speed)
{
    long period = period_us(em, speed);
    long q = (long)(speed * (double)period + 0.5);
    if (q < MIN_QUOTA_US) q = MIN_QUOTA_US;
    if (q > period) q = period;
    return q;
}

/* The first number in group/file, or 0 when unreadable. */
static long read_value(const char *group, const char *file)
{
    char path[PATH_MAX];
    long v = 0;
    if (join(path, sizeof path, group, file, NULL) < 0) return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    if (fscanf(f, "%ld", &v) != 1) v = 0;
    fclose(f);
    return v;
}

static int write_long(char *bad, size_t len, const char *group, const char *file, long v)
{
    char val[32];
    snprintf(val, sizeof val, "%ld", v);
    if (join(bad, len, group, file, NULL) < 0) return -1;
    return write_str(bad, val);
}

/* Writes the quota and period for `members` processes at `speed` each to `group`; on failure
 * names the file in `bad`. */
static int set_quota_for(const struct xmpi_emulation *em, const char *group, int v2,
                         double speed, int members, char *bad, size_t len)
{
    long q = quota_us(em, speed) * (members > 1 ? members : 1), period = period_us(em, speed);
    if (v2) {
        char val[64];
        snprintf(val, sizeof val, "%ld %ld", q, period);
        if (join(bad, len, group, "/cpu.max", NULL) < 0) return -1;
        return write_str(bad, val);
    }
    /* v1 takes the two values one at a time, and a parent's limit refuses any moment where
     * quota / period would exceed it. Writing the quota first when the period shrinks, and
     * the period first otherwise, keeps that ratio at most the larger of the old and new. */
    long old_period = read_value(group, "/cpu.cfs_period_us");
    long old_quota = read_value(group, "/cpu.cfs_quota_us");   /* -1: unlimited */
    if (old_quota > 0 && period < old_period) {
        if (write_long(bad, len, group, "/cpu.cfs_quota_us", q) < 0) return -1;
        return write_long(bad, len, group, "/cpu.cfs_period_us", period);
    }
    if (write_long(bad, len, group, "/cpu.cfs_period_us", period) < 0) return -1;
    return write_long(bad, len, group, "/cpu.cfs_quota_us", q);
}

static int set_quota(const struct xmpi_emulation *em, const char *group, int v2, double speed,
                     char *bad, size_t len)
{
    return set_quota_for(em, group, v2, speed, 1, bad, len);
}

static int move_self(const char *group)
{
    char path[PATH_MAX], pid[32];
    if (join(path, sizeof path, group, "/cgroup.procs", NULL) < 0) return -1;
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    return write_str(path, pid);
}

/* A leftover group is safe to take over only if nothing runs in it and nobody built
 * below it; a live one means the tag is not unique to this process. */
static int free_group(const char *group)
{
    struct stat sb;
    if (stat(group, &sb) < 0 || !S_ISDIR(sb.st_mode)) return 0;
    char path[PATH_MAX], buf[64];
    if (join(path, sizeof path, group, "/cgroup.procs", NULL) < 0) return 0;
    if (read_small(path, buf, sizeof buf) != 0) return 0;
    DIR *d = opendir(group);
    if (!d) return 0;
    int ok = 1;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (join(path, sizeof path, group, "/", e->d_name) < 0) continue;
        if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) ok = 0;
    }
    closedir(d);
    return ok;
}

/* rmdir can briefly see exiting threads as members after the move. */
static void remove_group(const char *group)
{
    for (int i = 0; i < 20; i++) {
        if (rmdir(group) == 0 || errno != EBUSY) return;
        struct timespec ts = {0, 5000000L};
        nanosleep(&ts, NULL);
    }
}

/* Where the v2 group goes: the nearest of our cgroup and its ancestors that can give
 * children the cpu controller. Our own cgroup can only when it is the root, as the
 * kernel refuses controllers for children of a cgroup holding processes; the price of
 * going up is that the process leaves its own cgroup's other limits while emulated. An
 * enabled cpu controller is left on: other processes of the job may rely on it already. */
static int v2_base(const struct hier *h, char *base, size_t len, char *why, size_t wlen)
{
    char rel[PATH_MAX];
    strcpy(rel, h->rel);
    do {
        if (join(base, len, h->mnt, rel, NULL) < 0) continue;
        if (file_has_token(base, "cgroup.subtree_control", "cpu")) return 0;
        if (!file_has_token(base, "cgroup.controllers", "cpu")) continue;
        char path[PATH_MAX];
        if (join(path, sizeof path, base, "/cgroup.subtree_control", NULL) < 0) continue;
        if (write_str(path, "+cpu") == 0) return 0;
        say(why, wlen, "cannot enable cpu in %s: %s", path, strerror(errno));
    } while (up(rel));
    return -1;
}

/* The processes in `group`: distinct entries of cgroup.procs (v1 may repeat one); -1 when
 * unreadable. */
static int count_members(const char *group)
{
    char path[PATH_MAX];
    if (join(path, sizeof path, group, "/cgroup.procs", NULL) < 0) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long seen[1024];
    int n = 0;
    for (long pid; fscanf(f, "%ld", &pid) == 1;) {
        int dup = 0;
        for (int i = 0; i < n && !dup; i++) dup = seen[i] == pid;
        if (!dup && n < (int)(sizeof seen / sizeof *seen)) seen[n++] = pid;
    }
    fclose(f);
    return n;
}

/* Members of a shared group join and leave one at a time: an exclusive flock on the group's
 * directory, taken before the move and held until the quota matches the new count. */
static int lock_group(const char *group)
{
    int fd = open(group, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    while (flock(fd, LOCK_EX) < 0)
        if (errno != EINTR) {
            close(fd);
            return -1;
        }
    return fd;
}

static void unlock_group(int fd)
{
    if (fd >= 0) close(fd);   /* closing the last descriptor drops the flock */
}

/* A group shared by the processes of one class on this host: each joins with the same
 * speed, and the quota is speed x members, so that the class's processes are throttled in
 * the same windows instead of each in its own (a message to a peer whose window is closed
 * waits up to a period, and a communicating code slowed down 20-fold). */
static int join_shared(struct xmpi_emulation *em, int v2, const char *group, const char *orig,
                       double speed, char *msg, size_t msglen, char *why, size_t wlen)
{
    char bad[PATH_MAX];
    if (mkdir(group, 0755) < 0 && errno != EEXIST) {
        say(why, wlen, "cannot create %s: %s", group, strerror(errno));
        return 1;
    }
    int fd = lock_group(group);
    if (fd < 0) {
        say(msg, msglen, "cannot lock %s: %s; running at full speed", group, strerror(errno));
        return 2;
    }
    int members = count_members(group);
    /* The quota grows before the move, so the group never holds more than it pays for. */
    int fail = members < 0 || set_quota_for(em, group, v2, speed, members + 1, bad, sizeof bad) < 0;
    if (!fail) {
        join(bad, sizeof bad, group, "/cgroup.procs", NULL);
        fail = move_self(group) < 0;
    }
    if (fail) {
        int e = errno;
        if (members >= 0) set_quota_for(em, group, v2, speed, members, bad, sizeof bad);
        if (members == 0) rmdir(group);
        unlock_group(fd);
        say(msg, msglen, "cannot write %s: %s; running at full speed", bad, strerror(e));
        return 2;
    }
    unlock_group(fd);
    strcpy(em->group, group);
    strcpy(em->orig, orig);
    em->shared = 1;
    em->v2 = v2;
    em->owner = getpid();
    em->active = 1;
    em->speed = speed;
    say(msg, msglen, "limited to %g of a core by %s (shared by %d process%s of its class)",
        speed, group, members + 1, members ? "es" : "");
    return 0;
}

/* Leaves a shared group: the quota shrinks to the members that stay; the last one removes
 * the group. */
static void leave_shared(struct xmpi_emulation *em)
{
    int fd = lock_group(em->group);
    if (move_self(em->orig) == 0) {
        int left = count_members(em->group);
        char bad[PATH_MAX];
        if (left > 0) set_quota_for(em, em->group, em->v2, em->speed, left, bad, sizeof bad);
        else if (left == 0) remove_group(em->group);
    }
    unlock_group(fd);
}

/* 0: limited; 1: this hierarchy cannot be used (why says so); 2: failed after creating
 * the group, undone (msg says so); -1: the tag's group is in use. */
static int try_hier(struct xmpi_emulation *em, const struct hier *h, double speed,
                    const char *tag, int shared, char *msg, size_t msglen, char *why, size_t wlen)
{
    char base[PATH_MAX], xdir[PATH_MAX], group[PATH_MAX], orig[PATH_MAX], bad[PATH_MAX];
    if (h->v2) {
        if (v2_base(h, base, sizeof base, why, wlen) < 0) return 1;
    } else if (join(base, sizeof base, h->mnt, h->rel, NULL) < 0) {
        return 1;
    }
    if (join(orig, sizeof orig, h->mnt, h->rel, NULL) < 0 ||
        join(xdir, sizeof xdir, base, "/xmpi", NULL) < 0 ||
        join(group, sizeof group, xdir, "/", tag) < 0) {
        say(why, wlen, "cgroup path below %s too long", base);
        return 1;
    }
    /* The xmpi level stays after release: removing it would race with other processes
     * of the job creating their groups in it at the same moment. */
    if (mkdir(xdir, 0755) < 0 && errno != EEXIST) {
        say(why, wlen, "cannot create %s: %s", xdir, strerror(errno));
        return 1;
    }
    if (h->v2 && !file_has_token(xdir, "cgroup.subtree_control", "cpu")) {
        if (join(bad, sizeof bad, xdir, "/cgroup.subtree_control", NULL) < 0 ||
            write_str(bad, "+cpu") < 0) {
            say(why, wlen, "cannot enable cpu in %s: %s", bad, strerror(errno));
            return 1;
        }
    }
    if (shared) return join_shared(em, h->v2, group, orig, speed, msg, msglen, why, wlen);
    if (mkdir(group, 0755) < 0) {
        int e = errno;
        if (e != EEXIST) {
            say(why, wlen, "cannot create %s: %s", group, strerror(e));
            return 1;
        }
        if (!free_group(group)) {
            say(msg, msglen,
                "%s already exists and is not an empty, unused cgroup: the tag must be "
                "unique to this process", group);
            return -1;
        }
    }
    int fail = set_quota(em, group, h->v2, speed, bad, sizeof bad) < 0;
    if (!fail) {
        join(bad, sizeof bad, group, "/cgroup.procs", NULL);
        fail = move_self(group) < 0;
    }
    if (fail) {
        int e = errno;
        /* The move is the last step, so a failure leaves the process where it was. */
        rmdir(group);
        say(msg, msglen, "cannot write %s: %s; running at full speed", bad, strerror(e));
        return 2;
    }
    strcpy(em->group, group);
    strcpy(em->orig, orig);
    em->shared = 0;
    em->v2 = h->v2;
    em->owner = getpid();
    em->active = 1;
    em->speed = speed;
    say(msg, msglen, "limited to %g of a core by %s", speed, group);
    return 0;
}

static void tag_shown(const char *tag, char *out, size_t len)
{
    size_t k = 0;
    for (; tag[k] && k + 4 < len && k < 40; k++)
        out[k] = tag[k] >= 0x20 && tag[k] < 0x7f ? tag[k] : '?';
    out[k] = '\0';
    if (tag[k]) strcpy(out + k, "...");
}

static int tag_ok(const char *tag)
{
    size_t n = strlen(tag);
    /* "." and ".." are made of accepted characters but name the xmpi level or above. */
    if (n == 0 || n > MAX_TAG || strcmp(tag, ".") == 0 || strcmp(tag, "..") == 0) return 0;
    for (const char *p = tag; *p; p++) {
        char c = *p;
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

static int limit(struct xmpi_emulation *em, double speed, const char *tag, int shared,
                 char *msg, size_t msglen)
{
    say(msg, msglen, "%s", "");
    if (!(speed > 0 && speed <= 1)) {
        say(msg, msglen, "emulated speed %g rejected: expected a fraction of one core, "
            "greater than 0 and at most 1", speed);
        return -1;
    }
    if (!tag || !tag_ok(tag)) {
        char shown[48];
        tag_shown(tag ? tag : "(null)", shown, sizeof shown);
        say(msg, msglen, "emulation tag '%s' rejected: expected 1 to %d characters among "
            "A-Z a-z 0-9 _ . - (not . or ..)", shown, MAX_TAG);
        return -1;
    }
    if (em->active && em->owner != getpid()) em->active = 0;
    /* Another kind of group, or another shared group: leave the present one first. */
    if (em->active && (shared || em->shared)) xmpi_emulate_release(em);
    if (em->active) {
        /* A speed change keeps the group: the process is already in it, and a second
         * group would need a second tag for the same process. */
        char bad[PATH_MAX];
        if (set_quota(em, em->group, em->v2, speed, bad, sizeof bad) < 0) {
            say(msg, msglen, "cannot write %s: %s; the previous speed stays", bad,
                strerror(errno));
            return -1;
        }
        say(msg, msglen, "limited to %g of a core by %s", speed, em->group);
        em->speed = speed;
        return 0;
    }
    struct hier *h = malloc(MAX_HIERS * sizeof *h);
    if (!h) {
        say(msg, msglen, "out of memory; running at full speed");
        return 1;
    }
    int n = find_hiers(h, MAX_HIERS), rc = 1;
    char why[PATH_MAX + 128] = "";
    for (int i = 0; i < n && rc == 1; i++) rc = try_hier(em, &h[i], speed, tag, shared, msg,
                                                          msglen, why, sizeof why);
    free(h);
    if (rc == 2) return 1;
    if (rc == 1) {
        if (why[0]) say(msg, msglen, "no writable cgroup cpu controller (v1 or v2): %s; "
                        "running at full speed", why);
        else say(msg, msglen, "no writable cgroup cpu controller (v1 or v2); running at "
                 "full speed");
        return 1;
    }
    return rc;
}

int xmpi_emulate_limit(struct xmpi_emulation *em, double speed, const char *tag, char *msg,
                       size_t msglen)
{
    return limit(em, speed, tag, 0, msg, msglen);
}

int xmpi_emulate_share(struct xmpi_emulation *em, double speed, const char *tag, char *msg,
                       size_t msglen)
{
    return limit(em, speed, tag, 1, msg, msglen);
}

#define SETTLE_MIN 200e-6

void xmpi_emulate_dilate(struct xmpi_emulation *em, double speed, double now)
{
    if (!(speed > 0 && speed < 1)) {
        em->dilate = 0;
        return;
    }
    em->dilate = 1;
    em->speed = speed;
    em->factor = 1 / speed - 1;
    em->last = now;
    em->debt = 0;
    em->cpu_clock = 1;
    em->cpu_last = xmpi_emulate_cpu();
}

double xmpi_emulate_cpu(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) return 0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double xmpi_emulate_settle(struct xmpi_emulation *em, double now)
{
    if (!em->dilate) return now;
    double computed = now - em->last;
    if (em->cpu_clock) {
        double cpu = xmpi_emulate_cpu(), used = cpu - em->cpu_last;
        em->cpu_last = cpu;
        if (used > 0 && computed > 0) em->debt += used * (em->factor + 1) - computed;
        if (em->debt < -SETTLE_MIN) em->debt = -SETTLE_MIN;
    } else if (computed > 0) {
        em->debt += computed * em->factor;
    }
    em->last = now;
    if (em->debt < SETTLE_MIN) return now;
    double t0 = mono(), want = em->debt;
    struct timespec ts = {(time_t)want, (long)((want - (double)(time_t)want) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {}
    double slept = mono() - t0;
    em->debt -= slept;
    /* An overshoot is paid back by later sleeps, but a long stop (the process preempted
     * in its sleep) is not worth a long stretch at full speed. */
    if (em->debt < -SETTLE_MIN) em->debt = -SETTLE_MIN;
    em->last = now + slept;
    if (em->cpu_clock) em->cpu_last = xmpi_emulate_cpu();
    return em->last;
}

double xmpi_emulate_speed(const struct xmpi_emulation *em)
{
    if (em->dilate) return em->speed;
    /* Read every monitored iteration: no system call here (a forked child's inherited state
     * is dropped by the calls that act on the group, which check the owner). */
    return em->active && em->speed > 0 && em->speed < 1 ? em->speed : 0;
}

void xmpi_emulate_release(struct xmpi_emulation *em)
{
    em->dilate = 0;
    if (!em->active) return;
    em->active = 0;
    if (em->owner != getpid()) return;
    if (em->shared) {
        leave_shared(em);
        return;
    }
    /* If the original group is gone the process stays; cleanup takes the group later. */
    if (move_self(em->orig) == 0) remove_group(em->group);
}

static int sweep(const char *xdir)
{
    DIR *d = opendir(xdir);
    if (!d) return 0;
    int n = 0;
    char path[PATH_MAX];
    struct stat sb;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (join(path, sizeof path, xdir, "/", e->d_name) < 0) continue;
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode) && rmdir(path) == 0) n++;
    }
    closedir(d);
    return n;
}

int xmpi_emulate_cleanup(void)
{
    struct hier *h = malloc(MAX_HIERS * sizeof *h);
    if (!h) return 0;
    int nh = find_hiers(h, MAX_HIERS), n = 0;
    char xdir[PATH_MAX];
    for (int i = 0; i < nh; i++) {
        /* v2 groups may sit below any ancestor (see v2_base); v1 ones only below ours. */
        do {
            if (join(xdir, sizeof xdir, h[i].mnt, h[i].rel, "/xmpi") == 0) n += sweep(xdir);
        } while (h[i].v2 && up(h[i].rel));
    }
    free(h);
    return n;
}
