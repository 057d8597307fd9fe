/* models/predict.c, redistribution costs: the bytes and time of moving dense, vector and
 * sparse structures (distributed or replicated) between two partitions, fresh buffers
 * included, and every invalid partition or description refused. */
#include <stdlib.h>

#include "predict_util.h"
#include "suites.h"

/* 100 rows from 2 processes (50 + 50) to 4 (25 each, 2 spawned).
 * Process 0 sends 25 rows to 1; process 1 sends 50 (to 2 and 3) and receives 25, talking
 * to 3 peers; 75 rows arrive at new owners. */

static const long old_c[2] = {50, 50}, old_d[2] = {0, 50};
static const long new_c[4] = {25, 25, 25, 25}, new_d[4] = {0, 25, 50, 75};

START_TEST(test_redist_dense_and_vector)
{
    const struct xmpi_partition from = {2, old_c, old_d, NULL}, to = {4, new_c, new_d, NULL};
    struct xmpi_struct_desc d[2] = {
        {XMPIR_STRUCT_VECTOR, 0, 8, 100, 0, 0, 0},
        {XMPIR_STRUCT_DENSE, 0, 8, 100, 100, 0, 0},
    };
    double bytes, t;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);
    NEAR(bytes, 75 * 8);
    ck_assert_int_eq(xmpi_predict_redist(&H, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B);
    NEAR(bytes, 75 * 800);
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 2, &from, &to, &bytes, &t), 0);
    NEAR(t, 6 * A + 50 * 808 * B);
    NEAR(bytes, 75 * 808);

    /* Replicated: an Allgatherv of the whole over the 4 processes, largest block 25 rows
     * (4 x 200 bytes: recursive doubling); every process receives the rows it does not own. */
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B);
    NEAR(bytes, 4 * 75 * 8);

    /* Shrinking back is the mirror image; the removed processes may be listed with 0 rows
     * or left out. */
    const long zc[4] = {50, 50, 0, 0}, zd[4] = {0, 50, 0, 0};
    const struct xmpi_partition back_z = {4, zc, zd, NULL};
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &to, &back_z, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);
    NEAR(bytes, 75 * 8);
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &to, &from, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);

    /* Nothing changes: nothing to pay, even for a replicated array. */
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 2, &to, &to, &bytes, &t), 0);
    NEAR(t, 0);
    NEAR(bytes, 0);
    /* A new process with no rows still needs a replicated array's copy. */
    const long one_more_c[3] = {50, 50, 0}, one_more_d[3] = {0, 50, 100};
    const struct xmpi_partition grown = {3, one_more_c, one_more_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&H, d, 1, &from, &grown, &bytes, &t), 0);
    NEAR(bytes, 100 * 8 + 50 * 8 + 50 * 8);
    ck_assert(t > 0);

    /* Filling fresh memory at `copy` per byte: for a distributed array, the most any process
     * fills as the registry moves it (2 -> 4: process 0 keeps 25 of its rows and fills
     * nothing, processes 1-3 receive whole blocks of 25 rows into new buffers), the whole
     * array per replicated one; nothing when nothing changes. */
    struct xmpi_hockney hc = H;
    hc.copy = 7e-10;
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10);
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B + 100 * 8 * 7e-10);
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 2, &to, &to, &bytes, &t), 0);
    NEAR(t, 0);

    /* Fillers contending: the 3 processes of 2 -> 4 that fill fresh memory do it at once, so
     * copy is (1 + 0.5 x 2) times as dear. 4 -> 2: process 1 receives a new block of 50 rows,
     * process 0 keeps its 25 and grows by 25 received in place: 2 fillers, (1 + 0.5) times,
     * 50 rows. 2 -> 1: process 0 keeps its 50 rows and grows by 50, alone. */
    hc.copy_contention = 0.5;
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10 * 2);
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &to, &back_z, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10 * 1.5);
    const long all_c[2] = {100, 0}, all_d[2] = {0, 0};
    const struct xmpi_partition one = {2, all_c, all_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, A + 50 * 800 * B + 50 * 800 * 7e-10);
    /* The three ways of the registry, 2 -> 2 with contention 0.5:
     * - [0, 50) + [50, 100) -> [0, 30) + [30, 100): process 0 keeps 30 of its 50 rows and
     *   fills nothing; process 1 keeps all its 50 and grows by the 20 it receives in place;
     * - [0, 60) + [60, 100) -> [0, 40) + [40, 100): process 1 keeps its 40 and grows by 20
     *   rows received in front of them; */
    const long c37[2] = {30, 70}, d37[2] = {0, 30};
    const struct xmpi_partition p37 = {2, c37, d37, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &p37, &bytes, &t), 0);
    NEAR(t, A + 20 * 800 * B + 20 * 800 * 7e-10);
    const long c64[2] = {60, 40}, d64[2] = {0, 60}, c46[2] = {40, 60}, d46[2] = {0, 40};
    const struct xmpi_partition p64 = {2, c64, d64, NULL}, p46 = {2, c46, d46, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &p64, &p46, &bytes, &t), 0);
    NEAR(t, A + 20 * 800 * B + 20 * 800 * 7e-10);
    /* - [0, 50) + [50, 100) -> process 0 [40, 100), process 1 [0, 40): process 0 keeps 10 of
     *   its rows, receives 50 into a buffer and copies them into its block grown by 10: 60
     *   fresh; process 1 keeps none and receives 40 into a new buffer; 2 fillers. */
    const long csw[2] = {60, 40}, dsw[2] = {40, 0};
    const struct xmpi_partition psw = {2, csw, dsw, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &psw, &bytes, &t), 0);
    NEAR(t, A + 50 * 800 * B + 60 * 800 * 7e-10 * 1.5);
    d[0].replicated = 1;   /* a replicated array: every filler copies the whole */
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B + 100 * 8 * 7e-10 * 2.5);

    /* The first read of what arrived (touch per byte), by the process receiving most: 25 rows
     * at 2 -> 4 (processes 1, 2 and 3 each), 50 at 4 -> 2 (process 1: its old rows go to 0)
     * and at 2 -> 1; a replicated array's whole. Process 0 of 2 -> 4 keeps 25 rows and
     * receives none. */
    hc.copy_contention = 0;
    hc.touch = 3e-10;
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10 + 25 * 800 * 3e-10);
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &to, &back_z, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10 + 50 * 800 * 3e-10);
    ck_assert_int_eq(xmpi_predict_redist(&hc, d + 1, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, A + 50 * 800 * B + 50 * 800 * 7e-10 + 50 * 800 * 3e-10);
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 2 * A + 3 * 200 * B + 100 * 8 * (7e-10 + 3e-10));
    ck_assert_int_eq(xmpi_predict_redist(&hc, d, 2, &to, &to, &bytes, &t), 0);
    NEAR(t, 0);

    /* More processes than cores (2): a replicated array's Allgatherv sends the whole's bytes
     * one message after another, (p - 1) alpha + (p - 1) x the whole x beta, with even blocks
     * (2 -> 4: 100 rows of 8 bytes) and uneven ones (10, 20, 30, 40 rows: the largest block
     * does not set it); a distributed array is not an Allgatherv and stays as it was. */
    struct xmpi_hockney crowd = H;
    crowd.cores = 2;
    d[0].replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&crowd, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 3 * 800 * B);
    const long uc[4] = {10, 20, 30, 40}, ud[4] = {0, 10, 30, 60};
    const struct xmpi_partition uneven = {4, uc, ud, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&crowd, d, 1, &from, &uneven, &bytes, &t), 0);
    NEAR(t, 3 * A + 3 * 800 * B);
    d[0].replicated = 0;
    ck_assert_int_eq(xmpi_predict_redist(&crowd, d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 8 * B);
}
END_TEST

/* The buffers a process keeps from earlier moves (the partition's spare, registry.c
 * take_buffer): a new buffer one serves (the smallest of at least its bytes and at most
 * twice as large) is memory already mapped, not fresh, and that process no longer contends;
 * a block grown in place (realloc) is fresh whatever the spares. */
START_TEST(test_redist_spares)
{
    struct xmpi_hockney hc = H;
    hc.copy = 7e-10;
    hc.copy_contention = 0.5;
    const struct xmpi_struct_desc dense = {XMPIR_STRUCT_DENSE, 0, 8, 100, 100, 0, 0};
    const long zc[4] = {50, 50, 0, 0}, zd[4] = {0, 50, 0, 0};
    double spare[4 * XMPIR_SPARE_SLOTS] = {0};
    struct xmpi_partition to = {4, new_c, new_d, spare};
    const struct xmpi_partition back = {4, zc, zd, NULL};
    double bytes, t;
    /* 4 -> 2: process 0 keeps its 25 rows and grows by 25 in place; process 1 receives a new
     * block of 50 rows (40000 bytes). Without spares: 2 fillers, 50 rows at 1.5 x copy. */
    ck_assert_int_eq(xmpi_predict_redist(&hc, &dense, 1, &to, &back, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10 * 1.5);
    /* Process 1 holds a spare of 40000 to 80000 bytes: only process 0's growth is fresh. The
     * boundaries are take_buffer's (80001 / 2 rounds down to 40000). */
    const double fits[] = {40000, 60000, 80000, 80001};
    for (size_t k = 0; k < sizeof fits / sizeof fits[0]; k++) {
        spare[XMPIR_SPARE_SLOTS + 3] = fits[k];
        ck_assert_int_eq(xmpi_predict_redist(&hc, &dense, 1, &to, &back, &bytes, &t), 0);
        NEAR(t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10);
    }
    const double misses[] = {39999, 80002, 0};
    for (size_t k = 0; k < sizeof misses / sizeof misses[0]; k++) {
        spare[XMPIR_SPARE_SLOTS + 3] = misses[k];
        ck_assert_int_eq(xmpi_predict_redist(&hc, &dense, 1, &to, &back, &bytes, &t), 0);
        NEAR(t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10 * 1.5);
    }
    /* Process 0's spares do nothing for its growth in place (the model does not know how
     * much room its buffer has beyond its rows); its bytes stay the same. */
    spare[0] = 20000;
    spare[1] = 40000;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &dense, 1, &to, &back, &bytes, &t), 0);
    NEAR(t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10 * 1.5);
    NEAR(bytes, 75 * 800);
    memset(spare, 0, sizeof spare);

    /* A sparse structure, 2 -> 1: process 0's new block of 100 rows takes three buffers in
     * the registry's order, IA (101 entries, 404 bytes), JA (4000) and A (8000). With all
     * three kept nothing is fresh; with only one of 8000 bytes, JA takes it (at least 4000,
     * at most twice), and IA and A are fresh; one of 400 bytes is one entry short for IA. */
    const struct xmpi_struct_desc sp = {XMPIR_STRUCT_SPARSE, 0, 8, 100, 0, 1000, 4};
    const long all_c[2] = {100, 0}, all_d[2] = {0, 0};
    const struct xmpi_partition one = {2, all_c, all_d, NULL};
    double two[2 * XMPIR_SPARE_SLOTS] = {8000, 404, 4000};
    struct xmpi_partition from = {2, old_c, old_d, two};
    const double moved = (A + 50 * 4 * B) + (A + 50 * 40 * B) + (A + 50 * 80 * B);
    hc.copy_contention = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &sp, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, moved);
    two[1] = 400;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &sp, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, moved + 100 * 4 * 7e-10);
    two[1] = two[2] = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &sp, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, moved + 100 * (4 + 80) * 7e-10);
    /* A replicated sparse structure takes whole-matrix buffers on every process (IA of 101
     * entries, JA and A of all 5000 nonzeros: 404, 20000 and 40000 bytes), priced as fresh
     * as before, but what it takes is gone for the arrays after it: process 1's spare of
     * 40000 bytes goes to its A, and the dense block after it (4 -> 2, process 1's new block
     * of 50 rows, 40000 bytes) is fresh again. */
    {
        const struct xmpi_struct_desc both[2] = {{XMPIR_STRUCT_SPARSE, 1, 8, 100, 0, 5000, 4},
                                                 dense};
        double sp4[4 * XMPIR_SPARE_SLOTS] = {0}, alone_t, both_t, sparse_t;
        sp4[XMPIR_SPARE_SLOTS] = 40000;
        struct xmpi_partition to4 = {4, new_c, new_d, sp4};
        hc.copy_contention = 0;
        ck_assert_int_eq(xmpi_predict_redist(&hc, &dense, 1, &to4, &back, &bytes, &alone_t), 0);
        NEAR(alone_t, 3 * A + 50 * 800 * B + 25 * 800 * 7e-10);   /* served */
        ck_assert_int_eq(xmpi_predict_redist(&hc, both, 1, &to4, &back, &bytes, &sparse_t), 0);
        ck_assert_int_eq(xmpi_predict_redist(&hc, both, 2, &to4, &back, &bytes, &both_t), 0);
        NEAR(both_t - sparse_t, 3 * A + 50 * 800 * B + 50 * 800 * 7e-10);   /* fresh */
    }
    /* The same spare listed for process 1, which leaves: nothing of it helps process 0. */
    two[0] = 0;
    two[XMPIR_SPARE_SLOTS] = 8000;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &sp, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, moved + 100 * (4 + 40 + 80) * 7e-10);
}
END_TEST

START_TEST(test_redist_sparse)
{
    const struct xmpi_partition from = {2, old_c, old_d, NULL}, to = {4, new_c, new_d, NULL};
    /* 1000 nonzeros, 10 per row; 4-byte indices, 8-byte values. */
    struct xmpi_struct_desc d = {XMPIR_STRUCT_SPARSE, 0, 8, 100, 0, 1000, 4};
    double bytes, t;
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, (3 * A + 50 * 4 * B) + (3 * A + 50 * 40 * B) + (3 * A + 50 * 80 * B));
    NEAR(bytes, 75 * (4 + 40 + 80));
    /* Replicated: IA still by Alltoallv, JA and A by Allgatherv (blocks of 1000 and 2000
     * bytes on 4: recursive doubling). */
    d.replicated = 1;
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, &bytes, &t), 0);
    NEAR(t, (3 * A + 50 * 4 * B) + (2 * A + 3 * 1000 * B) + (2 * A + 3 * 2000 * B));
    NEAR(bytes, 75 * 4 + 4 * 75 * (40 + 80));
    /* A sparse structure always moves into new buffers: 2 -> 1 fills the whole new block of
     * 100 rows (where a dense one keeps its 50 and grows by 50). */
    struct xmpi_hockney hc = H;
    hc.copy = 7e-10;
    d.replicated = 0;
    const long all_c[2] = {100, 0}, all_d[2] = {0, 0};
    const struct xmpi_partition one = {2, all_c, all_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&hc, &d, 1, &from, &one, &bytes, &t), 0);
    NEAR(t, (A + 50 * 4 * B) + (A + 50 * 40 * B) + (A + 50 * 80 * B) + 100 * (4 + 40 + 80) * 7e-10);

    /* 1 -> 2: process 0 copies its 50 remaining rows into new buffers before it sends the
     * other 50, which process 1 then receives into new ones: both fills in sequence, 100
     * rows of each array. With process 0's new buffers served by its spares (IA of 51
     * entries, JA and A of 500 nonzeros: 204, 2000 and 4000 bytes), only process 1's 50. */
    const long sc1[2] = {100, 0}, sd1[2] = {0, 100};
    double sp[2 * XMPIR_SPARE_SLOTS] = {0};
    struct xmpi_partition single = {1, sc1, sd1, NULL};
    const double sent = (A + 50 * 4 * B) + (A + 50 * 40 * B) + (A + 50 * 80 * B);
    ck_assert_int_eq(xmpi_predict_redist(&hc, &d, 1, &single, &from, &bytes, &t), 0);
    NEAR(t, sent + (50 + 50) * (4 + 40 + 80) * 7e-10);
    sp[0] = 204;
    sp[1] = 2000;
    sp[2] = 4000;
    single.spare = sp;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &d, 1, &single, &from, &bytes, &t), 0);
    NEAR(t, sent + 50 * (4 + 40 + 80) * 7e-10);
    /* Only the spare of 4000 bytes left: JA (2000 bytes, moved before A) takes it, as the
     * registry would (at most twice what it needs), so IA and A fill 50 + 50 rows, JA 50. */
    sp[0] = sp[1] = 0;
    ck_assert_int_eq(xmpi_predict_redist(&hc, &d, 1, &single, &from, &bytes, &t), 0);
    NEAR(t, sent + 100 * (4 + 80) * 7e-10 + 50 * 40 * 7e-10);
}
END_TEST

START_TEST(test_redist_invalid)
{
    const struct xmpi_partition from = {2, old_c, old_d, NULL}, to = {4, new_c, new_d, NULL};
    struct xmpi_struct_desc d = {XMPIR_STRUCT_VECTOR, 0, 8, 100, 0, 0, 0};
    double bytes, t;
    const long short_c[2] = {50, 49};
    const struct xmpi_partition lost_row = {2, short_c, old_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &lost_row, &bytes, &t),
                     XMPIR_MODEL_EARG);
    const long neg_c[2] = {-50, 150};
    const struct xmpi_partition neg = {2, neg_c, old_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &neg, &to, &bytes, &t), XMPIR_MODEL_EARG);
    const struct xmpi_partition nulls = {2, NULL, old_d, NULL};
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &nulls, &to, &bytes, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, NULL, &to, &bytes, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(NULL, &d, 1, &from, &to, &bytes, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, NULL, 1, &from, &to, &bytes, &t), XMPIR_MODEL_EARG);
    ck_assert_int_eq(xmpi_predict_redist(&H, &d, 1, &from, &to, NULL, &t), XMPIR_MODEL_EARG);
    struct xmpi_struct_desc bad[] = {
        {XMPIR_STRUCT_VECTOR, 0, 8, 99, 0, 0, 0},      /* rows differ from the partition */
        {XMPIR_STRUCT_VECTOR, 0, 0, 100, 0, 0, 0},     /* no element size */
        {XMPIR_STRUCT_VECTOR, 2, 8, 100, 0, 0, 0},     /* unknown scheme */
        {7, 0, 8, 100, 0, 0, 0},                      /* unknown kind */
        {XMPIR_STRUCT_DENSE, 0, 8, 100, -1, 0, 0},     /* negative row length */
        {XMPIR_STRUCT_SPARSE, 0, 8, 100, 0, -1, 4},    /* negative nnz */
        {XMPIR_STRUCT_SPARSE, 0, 8, 100, 0, 10, 0},    /* no index size */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(xmpi_predict_redist(&H, &bad[i], 1, &from, &to, &bytes, &t) ==
                          XMPIR_MODEL_EARG,
                      "bad description %zu accepted", i);
    /* No structures: nothing to move. */
    ck_assert_int_eq(xmpi_predict_redist(&H, NULL, 0, &from, &to, &bytes, &t), 0);
    NEAR(t, 0);
}
END_TEST

/* A random partition of `rows` over n processes: contiguous blocks (some empty) in a random
 * order of processes, or, with `overlap`, blocks drawn anywhere (a partition the model is
 * given need not tile; the totals still agree). */
static void random_part(unsigned *seed, int n, long rows, int overlap, long *c, long *d)
{
    if (overlap) {
        long left = rows;
        for (int i = 0; i < n; i++) {
            c[i] = i == n - 1 ? left : (long)(rand_r(seed) % (unsigned)(left + 1));
            left -= c[i];
            d[i] = (long)(rand_r(seed) % (unsigned)(rows - c[i] + 1));
        }
        return;
    }
    int *order = malloc(sizeof *order * (size_t)n);
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(rand_r(seed) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    long at = 0;
    for (int k = 0; k < n; k++) {
        long cnt = k == n - 1 ? rows - at : (long)(rand_r(seed) % (unsigned)(2 * rows / n + 1));
        if (at + cnt > rows) cnt = rows - at;
        if (rand_r(seed) % 5 == 0 && k < n - 1) cnt = 0;
        c[order[k]] = cnt, d[order[k]] = at;
        at += cnt;
    }
    free(order);
}

/* The busiest process's peers, pair by pair: what the Alltoallv's latency term counts. */
static int brute_peers(const struct xmpi_partition *f, const struct xmpi_partition *t)
{
    int nid = f->nprocs > t->nprocs ? f->nprocs : t->nprocs, most = 0;
    for (int i = 0; i < nid; i++) {
        long oc = i < f->nprocs ? f->count[i] : 0, od = i < f->nprocs ? f->displ[i] : 0;
        long nc = i < t->nprocs ? t->count[i] : 0, nd = i < t->nprocs ? t->displ[i] : 0;
        int peers = 0;
        for (int j = 0; j < nid; j++) {
            if (j == i) continue;
            long ojc = j < f->nprocs ? f->count[j] : 0, ojd = j < f->nprocs ? f->displ[j] : 0;
            long njc = j < t->nprocs ? t->count[j] : 0, njd = j < t->nprocs ? t->displ[j] : 0;
            int a = oc > 0 && njc > 0 && od < njd + njc && njd < od + oc;
            int b = nc > 0 && ojc > 0 && nd < ojd + ojc && ojd < nd + nc;
            peers += a || b;
        }
        if (peers > most) most = peers;
    }
    return most;
}

/* Issue 42: the peers of a move are counted by walking sorted blocks (O(P log P)) instead of
 * pair by pair (O(P^2)); on a network of latency alone a distributed vector's move costs
 * exactly the busiest process's peers times alpha, the same count as pair by pair, on random
 * partitions of 1-40 processes growing, shrinking or keeping, with empty blocks, and on
 * partitions whose blocks overlap. */
START_TEST(test_redist_peers_random)
{
    const struct xmpi_hockney lat = {1, 0, 0, 0, 0, 0, 0};
    const struct xmpi_struct_desc d = {XMPIR_STRUCT_VECTOR, 0, 8, 0, 0, 0, 0};
    unsigned seed = 4242;
    long fc[40], fd[40], tc[40], td[40];
    for (int trial = 0; trial < 3000; trial++) {
        int nf = 1 + (int)(rand_r(&seed) % 40), nt = 1 + (int)(rand_r(&seed) % 40);
        long rows = 1 + (long)(rand_r(&seed) % 200);
        int overlap = trial % 7 == 6;
        random_part(&seed, nf, rows, overlap && trial % 2, fc, fd);
        random_part(&seed, nt, rows, overlap, tc, td);
        const struct xmpi_partition from = {nf, fc, fd, NULL}, to = {nt, tc, td, NULL};
        struct xmpi_struct_desc dd = d;
        dd.rows = (double)rows;
        double bytes, t;
        ck_assert_int_eq(xmpi_predict_redist(&lat, &dd, 1, &from, &to, &bytes, &t), 0);
        int changed = nf != nt;
        for (int i = 0; i < nf && i < nt; i++)
            changed |= fc[i] != tc[i] || (fc[i] && fd[i] != td[i]);
        ck_assert_msg(t == (changed ? brute_peers(&from, &to) : 0),
                      "trial %d: %g, pair by pair %d", trial, t, brute_peers(&from, &to));
    }
}
END_TEST

Suite *predict_redist_suite(void)
{
    Suite *s = suite_create("predict_redist");
    TCase *tc = tcase_create("redist");
    tcase_add_test(tc, test_redist_dense_and_vector);
    tcase_add_test(tc, test_redist_sparse);
    tcase_add_test(tc, test_redist_spares);
    tcase_add_test(tc, test_redist_invalid);
    tcase_add_test(tc, test_redist_peers_random);
    suite_add_tcase(s, tc);
    return s;
}
