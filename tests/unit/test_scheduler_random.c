/* policies/scheduler.c, a long random sequence of placements, removals and refused removals
 * (fixed seeds, both policies) checked after every step against a model kept here. */
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

Suite *scheduler_random_suite(void)
{
    Suite *s = suite_create("scheduler_random");
    TCase *tc = tcase_create("random");
    tcase_add_loop_test(tc, test_random_sequence, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}
