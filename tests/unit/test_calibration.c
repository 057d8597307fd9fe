/* io/calibration.c: the calibration file on good, partial, benchmark-written and
 * malformed input (exact FILE:LINE and wording), the writer's round trip, the defaults. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../io/calibration.h"
#include "errbuf.h"
#include "suites.h"
#include "tmpfiles.h"

static int parse_text(struct xmpi_calibration *c, const char *text, unsigned *defaulted)
{
    FILE *f = text_file(text);
    err[0] = '\0';
    int rc = xmpi_calibration_parse(c, f, "cal.txt", defaulted, err, sizeof err);
    fclose(f);
    return rc;
}

START_TEST(test_defaults)
{
    struct xmpi_calibration c;
    memset(&c, 0x5a, sizeof c);
    xmpi_calibration_defaults(&c);
    ck_assert_double_eq(c.net.alpha, 5.0e-7);
    ck_assert_double_eq(c.net.beta, 3.7e-10);
    ck_assert_double_eq(c.net.gamma, 2.6e-10);
    ck_assert_double_eq(c.spawn_single, 0.32);
    ck_assert_double_eq(c.spawn_group, 0.12);
    ck_assert_double_eq(c.remove, 0.010);
    ck_assert_int_eq(c.nclasses, 0);
    /* The brief's orders of magnitude for this machine. */
    ck_assert(c.spawn_group < 0.5 * c.spawn_single);
    ck_assert(c.remove < 0.1 * c.spawn_single);
}
END_TEST

START_TEST(test_good_file)
{
    struct xmpi_calibration c;
    unsigned def = 99;
    ck_assert_int_eq(parse_text(&c,
                                "# measured on the test cluster\n"
                                "alpha 1e-4\n"
                                "  beta   8.483e-12   # 0.008483 us per byte\n"
                                "\n"
                                "gamma 1.6E-11\r\n"
                                "spawn_single 0.5197\n"
                                "spawn_group .2\n"
                                "remove 0.000801\n"
                                "alpha_spawned 7.5e-6\n"
                                "beta_spawned 3e-10\n"
                                "copy 5e-10\n"
                                "spawn_join 0.0065\n"
                                "spawn_lag 0.41\n"
                                "remove_procs 3\n"
                                "copy_contention 0.25\n"
                                "touch 9.5e-10\n"
                                "power C1 2.5e9\n"
                                "power fast-node.x 1e10\n",
                                &def),
                     0);
    ck_assert_msg(!err[0], "%s", err);
    ck_assert_uint_eq(def, 0);
    ck_assert_double_eq(c.spawn_join, 0.0065);
    ck_assert_double_eq(c.spawn_lag, 0.41);
    ck_assert_double_eq(c.net.alpha, 1e-4);
    ck_assert_double_eq(c.net.beta, 8.483e-12);
    ck_assert_double_eq(c.net.gamma, 1.6e-11);
    ck_assert_double_eq(c.spawn_single, 0.5197);
    ck_assert_double_eq(c.spawn_group, 0.2);
    ck_assert_double_eq(c.remove, 0.000801);
    ck_assert_double_eq(c.remove_procs, 3);
    ck_assert_double_eq(c.net.copy_contention, 0.25);
    ck_assert_double_eq(c.spawned.copy_contention, 0.25);   /* as copy: memory, not the link */
    ck_assert_double_eq(c.net.touch, 9.5e-10);
    ck_assert_double_eq(c.spawned.touch, 9.5e-10);
    ck_assert_double_eq(c.spawned.alpha, 7.5e-6);
    ck_assert_double_eq(c.spawned.beta, 3e-10);
    ck_assert_double_eq(c.spawned.gamma, 1.6e-11);   /* the net's: a reduction is local */
    ck_assert_double_eq(c.net.copy, 5e-10);
    ck_assert_double_eq(c.spawned.copy, 5e-10);        /* and so is filling memory */
    ck_assert_int_eq(c.nclasses, 2);
    ck_assert_str_eq(c.cls[0].name, "C1");
    ck_assert_double_eq(c.cls[0].power, 2.5e9);
    ck_assert_double_eq(xmpi_calibration_power(&c, "fast-node.x"), 1e10);
    ck_assert_double_eq(xmpi_calibration_power(&c, "C2"), 0);
}
END_TEST

START_TEST(test_partial_file)
{
    struct xmpi_calibration c;
    unsigned def = 0;
    ck_assert_int_eq(parse_text(&c, "alpha 2e-6\nremove 0.02\n", &def), 0);
    ck_assert_double_eq(c.net.alpha, 2e-6);
    ck_assert_double_eq(c.remove, 0.02);
    ck_assert_double_eq(c.net.beta, XMPIR_CAL_DEFAULT_BETA);
    ck_assert_double_eq(c.spawn_single, XMPIR_CAL_DEFAULT_SPAWN_SINGLE);
    ck_assert_uint_eq(def, XMPIR_CAL_BETA | XMPIR_CAL_GAMMA | XMPIR_CAL_SPAWN_SINGLE |
                               XMPIR_CAL_SPAWN_GROUP | XMPIR_CAL_ALPHA_SPAWNED |
                               XMPIR_CAL_BETA_SPAWNED | XMPIR_CAL_COPY | XMPIR_CAL_SPAWN_JOIN |
                               XMPIR_CAL_SPAWN_LAG | XMPIR_CAL_REMOVE_PROCS |
                               XMPIR_CAL_COPY_CONTENTION | XMPIR_CAL_TOUCH);
    ck_assert_double_eq(c.remove_procs, 0);   /* not known: priced per process removed */
    ck_assert_double_eq(c.net.touch, 0);      /* not counted */
    ck_assert_double_eq(c.net.copy_contention, 0);
    ck_assert_double_eq(c.net.copy, XMPIR_CAL_DEFAULT_COPY);
    ck_assert_double_eq(c.spawn_lag, XMPIR_CAL_DEFAULT_SPAWN_LAG);
    ck_assert_double_eq(c.spawn_join, XMPIR_CAL_DEFAULT_SPAWN_JOIN);
    ck_assert_double_eq(c.spawned.alpha, XMPIR_CAL_DEFAULT_ALPHA_SPAWNED);
    ck_assert_double_eq(c.spawned.beta, XMPIR_CAL_DEFAULT_BETA_SPAWNED);
    char names[200];
    xmpi_calibration_defaulted_names(def, names, sizeof names);
    ck_assert_str_eq(names, "beta, gamma, spawn_single, spawn_group, alpha_spawned, beta_spawned, copy, "
                            "spawn_join, spawn_lag, remove_procs, copy_contention, touch");

    ck_assert_int_eq(parse_text(&c, "# nothing but a comment\n\n", &def), 0);
    ck_assert_uint_eq(def, XMPIR_CAL_ALL);
    xmpi_calibration_defaulted_names(def, names, sizeof names);
    ck_assert_str_eq(names, "alpha, beta, gamma, spawn_single, spawn_group, remove, alpha_spawned, "
                            "beta_spawned, copy, spawn_join, spawn_lag, remove_procs, copy_contention, touch");
    xmpi_calibration_defaulted_names(0, names, sizeof names);
    ck_assert_str_eq(names, "");
    /* A short buffer is cut, never overrun. */
    char small[8];
    memset(small, 'x', sizeof small);
    xmpi_calibration_defaulted_names(XMPIR_CAL_ALL, small, 6);
    ck_assert_uint_le(strlen(small), 5);
    ck_assert_int_eq(small[7], 'x');
    /* defaulted may be NULL. */
    ck_assert_int_eq(parse_text(&c, "beta 1e-9\n", NULL), 0);
}
END_TEST

/* What xmpi-spawnbench writes (tools/xmpi-spawnbench.c), read as is. */
START_TEST(test_spawnbench_file)
{
    struct xmpi_calibration c;
    unsigned def = 0;
    ck_assert_int_eq(parse_text(&c,
                                "# xmpi calibration v1: KIND MODE K SECONDS_PER_PROCESS "
                                "(written by xmpi-spawnbench)\n"
                                "spawn single 1 0.320100\n"
                                "remove single 1 0.016090\n"
                                "raw single 1 0.260600\n"
                                "spawn single 2 0.335800\n"
                                "remove single 2 0.012060\n"
                                "raw single 2 0.344100\n"
                                "spawn group 4 0.131000\n"
                                "remove group 4 0.006010\n"
                                "raw group 4 0.109700\n",
                                &def),
                     0);
    ck_assert_msg(!err[0], "%s", err);
    ck_assert(fabs(c.spawn_single - (0.3201 + 0.3358) / 2) < 1e-12);
    ck_assert(fabs(c.spawn_group - 0.131) < 1e-12);
    ck_assert(fabs(c.remove - (0.01609 + 0.01206 + 0.00601) / 3) < 1e-12);
    ck_assert_uint_eq(def, XMPIR_CAL_ALPHA | XMPIR_CAL_BETA | XMPIR_CAL_GAMMA | XMPIR_CAL_ALPHA_SPAWNED |
                               XMPIR_CAL_BETA_SPAWNED | XMPIR_CAL_COPY | XMPIR_CAL_SPAWN_JOIN |
                               XMPIR_CAL_SPAWN_LAG | XMPIR_CAL_REMOVE_PROCS | XMPIR_CAL_COPY_CONTENTION |
                               XMPIR_CAL_TOUCH);

    /* A key line wins over the benchmark, wherever it stands. */
    ck_assert_int_eq(parse_text(&c, "spawn single 1 0.3\nspawn_single 0.5\nspawn group 1 0.2\n",
                                &def),
                     0);
    ck_assert_double_eq(c.spawn_single, 0.5);
    ck_assert_double_eq(c.spawn_group, 0.2);
    ck_assert_uint_eq(def & (XMPIR_CAL_SPAWN_SINGLE | XMPIR_CAL_SPAWN_GROUP), 0);
    ck_assert_uint_eq(def & XMPIR_CAL_REMOVE, XMPIR_CAL_REMOVE);
}
END_TEST

/* Each malformed file: the exact message, and the calibration left as it was. */
START_TEST(test_malformed)
{
    static const struct {
        const char *text;
        const char *msg;
    } t[] = {
        {"alpha 1e-6\n\nfoo 1\n",
         "cal.txt:3: unknown key 'foo'; expected one of alpha, beta, gamma, spawn_single, "
         "spawn_group, remove, alpha_spawned, beta_spawned, copy, spawn_join, spawn_lag, remove_procs, copy_contention, touch, power, or a benchmark line "
         "'spawn|remove|raw MODE K "
         "SECONDS_PER_PROCESS'"},
        {"# c\nbeta abc\n",
         "cal.txt:2: field beta: 'abc' is not accepted; expected a number of seconds per byte "
         "from 0 to 0.001"},
        {"beta_spawned 0.002\n",
         "cal.txt:1: field beta_spawned: '0.002' is not accepted; expected a number of seconds per "
         "byte from 0 to 0.001"},
        {"alpha_spawned 1e-5\nalpha_spawned 2e-5\n",
         "cal.txt:2: key alpha_spawned given again; first given on line 1"},
        {"alpha -1e-6\n",
         "cal.txt:1: field alpha: '-1e-6' is not accepted; expected a number of seconds from 0 "
         "to 1"},
        {"alpha 2\n",
         "cal.txt:1: field alpha: '2' is not accepted; expected a number of seconds from 0 to 1"},
        {"alpha inf\n", "cal.txt:1: field alpha: 'inf' is not accepted;"},
        {"alpha nan\n", "cal.txt:1: field alpha: 'nan' is not accepted;"},
        {"alpha 0x1p-3\n", "cal.txt:1: field alpha: '0x1p-3' is not accepted;"},
        {"alpha 1e\n", "cal.txt:1: field alpha: '1e' is not accepted;"},
        {"alpha 1e999\n", "cal.txt:1: field alpha: '1e999' is not accepted;"},
        {"gamma 1e-9\n\n\nremove 1e9\n",
         "cal.txt:4: field remove: '1e9' is not accepted; expected a number of seconds per "
         "process from 0 to 3600"},
        {"remove_procs 2.5\n",
         "cal.txt:1: field remove_procs: '2.5' is not accepted; expected a whole number of "
         "processes from 0 to 1e+06"},
        {"remove_procs -1\n", "cal.txt:1: field remove_procs: '-1' is not accepted;"},
        {"copy_contention 101\n",
         "cal.txt:1: field copy_contention: '101' is not accepted; expected a number of times copy "
         "per other process from 0 to 100"},
        {"remove_procs 1000001\n", "cal.txt:1: field remove_procs: '1000001' is not accepted;"},
        {"touch 0.01\n",
         "cal.txt:1: field touch: '0.01' is not accepted; expected a number of seconds per byte "
         "from 0 to 0.001"},
        {"touch -1e-9\n", "cal.txt:1: field touch: '-1e-9' is not accepted;"},
        {"alpha\n", "cal.txt:1: field VALUE: missing; expected 2 fields: alpha VALUE"},
        {"spawn_group 1 2\n",
         "cal.txt:1: more than 2 fields are not accepted; expected 2 fields: spawn_group VALUE"},
        {"alpha 1e-6\n# again\nalpha 2e-6\n",
         "cal.txt:3: key alpha given again; first given on line 1"},
        {"power a/b 1\n", "cal.txt:1: field CLASS: 'a/b' is not accepted; expected a class name"},
        {"power c 0\n",
         "cal.txt:1: field WORK_PER_S: '0' is not accepted; expected a positive number of work "
         "units per second"},
        {"power c -5\n", "cal.txt:1: field WORK_PER_S: '-5' is not accepted;"},
        {"power c\n", "cal.txt:1: field WORK_PER_S: missing; expected 3 fields: power CLASS "
                      "WORK_PER_S"},
        {"power c 1\npower d 2\npower c 3\n",
         "cal.txt:3: power of class c given again; first given on line 1"},
        {"spawn triple 1 0.3\n",
         "cal.txt:1: field MODE: 'triple' is not accepted; expected single or group"},
        {"spawn single 0 0.3\n",
         "cal.txt:1: field K: '0' is not accepted; expected a whole number of processes from 1"},
        {"remove group 2 -0.3\n",
         "cal.txt:1: field SECONDS_PER_PROCESS: '-0.3' is not accepted; expected a number of "
         "seconds per process from 0 to 3600"},
        {"raw single 1 x\n", "cal.txt:1: field SECONDS_PER_PROCESS: 'x' is not accepted;"},
        {"spawn single 1\n",
         "cal.txt:1: field SECONDS_PER_PROCESS: missing; expected 4 fields: spawn|remove|raw "
         "MODE K SECONDS_PER_PROCESS"},
        {"remove single 0.01\n", "cal.txt:1: field SECONDS_PER_PROCESS: missing;"},
        {"spawn single 1 0.3 extra\n", "cal.txt:1: more than 4 fields are not accepted;"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct xmpi_calibration c;
        xmpi_calibration_defaults(&c);
        c.net.alpha = 42;   /* a value no successful parse of these files would give */
        unsigned def = 77;
        ck_assert_int_eq(parse_text(&c, t[i].text, &def), -1);
        ck_assert_msg(!strncmp(err, t[i].msg, strlen(t[i].msg)), "case %zu: got '%s'\nwant '%s'",
                      i, err, t[i].msg);
        ck_assert_double_eq(c.net.alpha, 42);
        ck_assert_uint_eq(def, 77);
    }
}
END_TEST

START_TEST(test_nul_byte)
{
    static const char text[] = "alpha 1e-6\nbe\0ta 1\n";
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, sizeof text - 1, f), sizeof text - 1);
    rewind(f);
    struct xmpi_calibration c;
    ck_assert_int_eq(xmpi_calibration_parse(&c, f, "cal.txt", NULL, err, sizeof err), -1);
    fclose(f);
    ck_assert_str_eq(err, "cal.txt:2: a NUL byte is not accepted; expected a text file");
}
END_TEST

START_TEST(test_too_many_classes)
{
    size_t cap = 64 * (XMPIR_CAL_CLASSES_MAX + 1);
    char *text = malloc(cap), *p = text;
    for (int i = 0; i <= XMPIR_CAL_CLASSES_MAX; i++)
        p += snprintf(p, cap - (size_t)(p - text), "power c%d %d\n", i, i + 1);
    struct xmpi_calibration c;
    ck_assert_int_eq(parse_text(&c, text, NULL), -1);
    char want[64];
    snprintf(want, sizeof want, "cal.txt:%d: more than %d power lines", XMPIR_CAL_CLASSES_MAX + 1,
             XMPIR_CAL_CLASSES_MAX);
    ck_assert_msg(!strncmp(err, want, strlen(want)), "%s", err);
    free(text);
}
END_TEST

START_TEST(test_write_round_trip)
{
    struct xmpi_calibration c, back;
    xmpi_calibration_defaults(&c);
    c.net.alpha = 1.0 / 3 * 1e-6;   /* needs all 17 digits */
    c.net.beta = 4.2e-10;
    c.net.gamma = 0;
    c.spawn_single = 0.25;
    c.spawn_group = 0.095;
    c.remove = 0.0123;
    c.spawn_join = 0.0071;
    c.spawn_lag = 0.27;
    c.remove_procs = 5;
    c.net.copy_contention = 0.3;
    c.net.touch = 8.7e-10;
    c.nclasses = 2;
    snprintf(c.cls[0].name, sizeof c.cls[0].name, "slow");
    c.cls[0].power = 1.5e8;
    snprintf(c.cls[1].name, sizeof c.cls[1].name, "fast");
    c.cls[1].power = 6e8;
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(xmpi_calibration_write(&c, f), 0);
    rewind(f);
    unsigned def = 99;
    ck_assert_int_eq(xmpi_calibration_parse(&back, f, "written", &def, err, sizeof err), 0);
    fclose(f);
    ck_assert_uint_eq(def, 0);
    ck_assert_double_eq(back.net.alpha, c.net.alpha);
    ck_assert_double_eq(back.net.beta, c.net.beta);
    ck_assert_double_eq(back.net.gamma, c.net.gamma);
    ck_assert_double_eq(back.spawn_single, c.spawn_single);
    ck_assert_double_eq(back.spawn_group, c.spawn_group);
    ck_assert_double_eq(back.remove, c.remove);
    ck_assert_double_eq(back.spawn_join, c.spawn_join);
    ck_assert_double_eq(back.spawn_lag, c.spawn_lag);
    ck_assert_double_eq(back.remove_procs, 5);
    ck_assert_double_eq(back.net.copy_contention, 0.3);
    ck_assert_double_eq(back.net.touch, 8.7e-10);
    ck_assert_int_eq(back.nclasses, 2);
    ck_assert_str_eq(back.cls[1].name, "fast");
    ck_assert_double_eq(back.cls[1].power, 6e8);
    ck_assert_int_eq(xmpi_calibration_write(NULL, stdout), -1);
}
END_TEST

START_TEST(test_load)
{
    struct xmpi_calibration c;
    ck_assert_int_eq(xmpi_calibration_load(&c, "/nonexistent/cal.txt", NULL, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "/nonexistent/cal.txt: cannot open"), "%s", err);
    char path[] = "/tmp/xmpi-cal-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "alpha 3e-6\nbeta x\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (int)(sizeof text - 1));
    close(fd);
    ck_assert_int_eq(xmpi_calibration_load(&c, path, NULL, err, sizeof err), -1);
    char want[64];
    snprintf(want, sizeof want, "%s:2: field beta", path);
    ck_assert_msg(!strncmp(err, want, strlen(want)), "%s", err);
    unlink(path);
    ck_assert_int_eq(xmpi_calibration_parse(NULL, stdin, "x", NULL, err, sizeof err), -1);
}
END_TEST

Suite *calibration_suite(void)
{
    Suite *s = suite_create("calibration");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_good_file);
    tcase_add_test(tc, test_partial_file);
    tcase_add_test(tc, test_spawnbench_file);
    tcase_add_test(tc, test_malformed);
    tcase_add_test(tc, test_nul_byte);
    tcase_add_test(tc, test_too_many_classes);
    tcase_add_test(tc, test_write_round_trip);
    tcase_add_test(tc, test_load);
    suite_add_tcase(s, tc);
    return s;
}
