/* policies/scheduler.c, a long random sequence of placements, removals and refused removals
 * (fixed seeds, both policies) checked after every step against a model kept here; and the
 * removal picks against the pass-per-pick algorithm they replaced. */
#include <stdint.h>

#include "rng.h"
#include "sched_util.h"
#include "suites.h"

#define MAXP 64

struct model {
    int n, ninit;
    int host[MAXP];
    int batch[MAXP];   /* 0 initial; spawns in one group share a batch */
};

static void model_check(const struct model *m, const struct xmpi_sched *s)
{
    ck_assert_int_eq(s->nprocs, m->n);
    int dyn = 0;
    for (int i = 0; i < m->n; i++) {
        ck_assert_int_eq(s->procs[i].host, m->host[i]);
        ck_assert_int_eq(s->procs[i].group == 0, m->batch[i] == 0);
        dyn += m->batch[i] != 0;
        for (int j = 0; j < i; j++)
            ck_assert_int_eq(s->procs[i].group == s->procs[j].group,
                             m->batch[i] == m->batch[j]);
        /* Dynamic ranks stay in spawn order, since new ones are appended. */
        if (i > 0 && m->batch[i] && m->batch[i - 1])
            ck_assert_int_gt(s->procs[i].order, s->procs[i - 1].order);
    }
    ck_assert_int_eq(xmpi_sched_removable(s, NULL), dyn);
    for (int h = 0; h < s->pool->nhosts; h++) {
        int c = 0;
        for (int i = 0; i < m->n; i++) c += m->host[i] == h;
        ck_assert_int_eq(s->pool->hosts[h].procs, c);
        ck_assert_int_le(c, s->pool->hosts[h].pes);
    }
}

START_TEST(test_random_sequence)
{
    uint64_t seed = 0x5eed0000ULL + (uint64_t)_i;
    struct xmpi_pool p;
    struct xmpi_sched s;
    thesis_job(&s, &p, _i, 0);
    struct model m = {.n = 5, .ninit = 5, .host = {0, 0, 1, 3, 4}};
    int next_batch = 1;
    char *names[] = {NULL, "quad", "dual"};
    int nplace = 0, nremove = 0;
    model_check(&m, &s);
    for (int step = 0; step < 400; step++) {
        int op = (int)(rng_next(&seed) % 3);
        int n = 1 + (int)(rng_next(&seed) % 4);
        int use_cls = (int)(rng_next(&seed) % 2);
        char *cls[4];
        for (int k = 0; k < 4; k++) cls[k] = names[rng_next(&seed) % 3];
        struct snap sn;
        take_snap(&sn, &s);
        if (op == 0) {
            int h[4];
            int rc = place(&s, use_cls ? cls : NULL, n, h);
            assert_snap(&sn, &s);
            if (rc == XMPIR_SCHED_ENOPE) continue;
            ck_assert_msg(rc == XMPIR_SCHED_OK, "step %d: %s", step, err);
            int group = (int)(rng_next(&seed) % 2);
            ck_assert_int_eq(xmpi_sched_add(&s, h, n, group), XMPIR_SCHED_OK);
            for (int k = 0; k < n; k++) {
                m.host[m.n] = h[k];
                m.batch[m.n++] = group ? next_batch : next_batch + k;
            }
            next_batch += group ? 1 : n;
            nplace++;
        } else if (op == 1) {
            int r[4] = {-1, -1, -1, -1};
            int rc = pick(&s, use_cls ? cls : NULL, n, r);
            assert_snap(&sn, &s);
            if (rc == XMPIR_SCHED_ECOUNT || rc == XMPIR_SCHED_EGROUP) continue;
            ck_assert_msg(rc == XMPIR_SCHED_OK, "step %d: %s", step, err);
            char out[MAXP] = {0};
            for (int k = 0; k < n; k++) {
                ck_assert_int_ge(r[k], m.ninit);
                ck_assert_int_lt(r[k], m.n);
                if (k) ck_assert_int_gt(r[k], r[k - 1]);
                out[r[k]] = 1;
            }
            /* Whole batches only. */
            for (int i = 0; i < m.n; i++)
                for (int j = 0; j < m.n; j++)
                    if (m.batch[i] && m.batch[i] == m.batch[j])
                        ck_assert_int_eq(out[i], out[j]);
            ck_assert_int_eq(xmpi_sched_remove(&s, r, n), XMPIR_SCHED_OK);
            int j = 0;
            for (int i = 0; i < m.n; i++)
                if (!out[i]) {
                    m.host[j] = m.host[i];
                    m.batch[j++] = m.batch[i];
                }
            m.n = j;
            nremove++;
        } else {
            /* An invalid list: an initial rank or one past the end, after a valid one. */
            int r[2] = {m.n - 1, (n & 1) ? (int)(rng_next(&seed) % 5) : m.n};
            ck_assert_int_eq(xmpi_sched_remove(&s, r, 2), XMPIR_SCHED_ECOUNT);
            assert_snap(&sn, &s);
        }
        model_check(&m, &s);
    }
    /* The sequence must have done real work both ways, or it proved little. */
    ck_assert_int_gt(nplace, 30);
    ck_assert_int_gt(nremove, 30);
    done(&s, &p);
}
END_TEST

/* ---- the removal picks against the pass-per-pick algorithm they replaced (issue 42) ---- */

static int ref_host_matches(const struct xmpi_pool *pool, int h, const char *cls)
{
    return !cls || strcmp(pool->hosts[h].cls, cls) == 0;
}

static int ref_group_size(const struct xmpi_sched *s, int group)
{
    int g = 0;
    for (int i = 0; i < s->nprocs; i++) g += s->procs[i].group == group;
    return g;
}

static void ref_mark(const struct xmpi_sched *s, int group, char *picked, int *taken_on)
{
    for (int i = 0; i < s->nprocs; i++)
        if (s->procs[i].group == group && !picked[i]) {
            picked[i] = 1;
            if (taken_on) taken_on[s->procs[i].host]++;
        }
}

/* Whole groups, newest first, each looked for by a pass over every process. */
static int ref_recent(const struct xmpi_sched *s, int n, char *picked)
{
    int need = n;
    while (need > 0) {
        int best = -1;
        for (int i = 0; i < s->nprocs; i++)
            if (s->procs[i].group > 0 && !picked[i] &&
                (best < 0 || s->procs[i].order > s->procs[best].order))
                best = i;
        if (best < 0) break;
        int g = s->procs[best].group, size = ref_group_size(s, g);
        if (size <= need) {
            need -= size;
            ref_mark(s, g, picked, NULL);
        } else {
            for (int i = 0; i < s->nprocs; i++)
                if (s->procs[i].group == g) picked[i] = 2;
        }
    }
    for (int i = 0; i < s->nprocs; i++)
        if (picked[i] == 2) picked[i] = 0;
    return need > 0 ? XMPIR_SCHED_EGROUP : XMPIR_SCHED_OK;
}

/* By class: per pick the candidate hosts, the most (least) loaded, its newest process. */
static int ref_by_class(const struct xmpi_sched *s, char *const cls[], int n, char *picked)
{
    const struct xmpi_pool *pool = s->pool;
    int taken_on[64] = {0}, done = 0;
    while (done < n) {
        char cand[64] = {0};
        for (int i = 0; i < s->nprocs; i++)
            if (s->procs[i].group > 0 && !picked[i] &&
                ref_host_matches(pool, s->procs[i].host, cls[done]))
                cand[s->procs[i].host] = 1;
        int best = -1;
        for (int h = 0; h < pool->nhosts; h++) {
            if (!cand[h]) continue;
            int load = pool->hosts[h].procs - taken_on[h];
            int bload = best < 0 ? 0 : pool->hosts[best].procs - taken_on[best];
            if (best < 0 || (s->policy == XMPIR_SCHED_BALANCE_OCCUPIED ? load < bload
                                                                        : load > bload))
                best = h;
        }
        if (best < 0) return XMPIR_SCHED_ECOUNT;
        int victim = -1;
        for (int i = 0; i < s->nprocs; i++)
            if (s->procs[i].group > 0 && !picked[i] && s->procs[i].host == best &&
                (victim < 0 || s->procs[i].order > s->procs[victim].order))
                victim = i;
        int g = s->procs[victim].group, size = ref_group_size(s, g);
        if (done + size > n) return XMPIR_SCHED_EGROUP;
        ref_mark(s, g, picked, taken_on);
        done += size;
    }
    return XMPIR_SCHED_OK;
}

/* Random jobs on 12 hosts of three classes, spawned singly and in groups, some removed: every
 * request (by recency or by class, both policies) picks exactly what the pass-per-pick
 * algorithm picks, or fails with the same code. */
START_TEST(test_picks_match_reference)
{
    static const struct hostdef hosts[12] = {
        {"h0", "a", 4}, {"h1", "a", 8}, {"h2", "b", 4}, {"h3", "c", 6}, {"h4", "b", 8},
        {"h5", "a", 2}, {"h6", "c", 4}, {"h7", "b", 4}, {"h8", "a", 6}, {"h9", "c", 2},
        {"h10", "b", 6}, {"h11", "a", 4}};
    static char *const first[3] = {"h0", "h2", "h3"};
    char *names[] = {NULL, "a", "b", "c"};
    uint64_t seed = 0x42420000ULL + (uint64_t)_i;
    struct xmpi_pool p;
    struct xmpi_sched s;
    mkpool(&p, hosts, 12);
    init_ok(&s, &p, _i % 2 ? XMPIR_SCHED_BALANCE_OCCUPIED : XMPIR_SCHED_BALANCE_ALL, 1, 3,
            first, NULL);
    int compared = 0, agreed_ok = 0;
    for (int step = 0; step < 600; step++) {
        int n = 1 + (int)(rng_next(&seed) % 6);
        char *cls[6];
        for (int k = 0; k < 6; k++) cls[k] = names[rng_next(&seed) % 4];
        int by_class = (int)(rng_next(&seed) % 2);
        if (s.nprocs < 60 && rng_next(&seed) % 3 != 0) {
            int h[6];
            if (place(&s, by_class ? cls : NULL, n, h) == XMPIR_SCHED_OK)
                ck_assert_int_eq(xmpi_sched_add(&s, h, n, (int)(rng_next(&seed) % 3 == 0)),
                                 XMPIR_SCHED_OK);
            continue;
        }
        int got[128], want[128], m = 0;
        char picked[128] = {0};
        int rc = pick(&s, by_class ? cls : NULL, n, got);
        int rrc = xmpi_sched_removable(&s, NULL) < n ? XMPIR_SCHED_ECOUNT
                  : by_class ? ref_by_class(&s, cls, n, picked) : ref_recent(&s, n, picked);
        ck_assert_msg(rc == rrc, "seed %d step %d: code %d, reference %d", _i, step, rc, rrc);
        compared++;
        if (rc != XMPIR_SCHED_OK) continue;
        for (int i = 0; i < s.nprocs; i++)
            if (picked[i]) want[m++] = i;
        ck_assert_int_eq(m, n);
        assert_ints(got, want, n, "picked");
        agreed_ok++;
        if (rng_next(&seed) % 2) ck_assert_int_eq(xmpi_sched_remove(&s, got, n), XMPIR_SCHED_OK);
    }
    ck_assert_int_gt(compared, 100);
    ck_assert_int_gt(agreed_ok, 50);
    done(&s, &p);
}
END_TEST

Suite *scheduler_random_suite(void)
{
    Suite *s = suite_create("scheduler_random");
    TCase *tc = tcase_create("random");
    tcase_add_loop_test(tc, test_random_sequence, 0, 2);
    tcase_add_loop_test(tc, test_picks_match_reference, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}
