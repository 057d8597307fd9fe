/* io/slurm.c: hostlist expressions, the job record of `scontrol show job -d`, sinfo's
 * node lines, node states and salloc's grant line, on output captured from Slurm 22.05 (Debian
 * 12) and on malformed output, each refused with the line and the field. */
#include <stdio.h>
#include <string.h>

#include "../../io/options.h"
#include "../../io/slurm.h"
#include "errbuf.h"
#include "suites.h"

/* ---- hostlists ---- */

static void assert_names(const char *expr, const char *want)
{
    struct xmpi_slurm_names s;
    err[0] = '\0';
    ck_assert_msg(xmpi_slurm_hostlist(expr, &s, err, sizeof err) == 0, "%s: %s", expr, err);
    char got[4096] = "";
    size_t w = 0;
    for (int i = 0; i < s.n && w < sizeof got; i++)
        w += (size_t)snprintf(got + w, sizeof got - w, "%s%s", i ? " " : "", s.v[i]);
    ck_assert_msg(!strcmp(got, want), "%s: got '%s', want '%s'", expr, got, want);
    xmpi_slurm_names_free(&s);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(s.v);
}

START_TEST(test_hostlist)
{
    assert_names("xmpi-s-h[1-3]", "xmpi-s-h1 xmpi-s-h2 xmpi-s-h3");
    assert_names("xmpi-s-h1", "xmpi-s-h1");
    assert_names("n[01-03,7],login", "n01 n02 n03 n7 login");
    assert_names("n[08-11]", "n08 n09 n10 n11");
    assert_names("n[9-10]", "n9 n10");
    assert_names("a,b,a", "a b a");
    assert_names("rack[1-2]-n[1-2]", "rack1-n1 rack1-n2 rack2-n1 rack2-n2");
    assert_names("x[3]y", "x3y");
    assert_names("[1-2]", "1 2");
    assert_names("", "");
    assert_names("(null)", "");
}
END_TEST

static const char *const bad_lists[] = {
    "n[1-3",  "n1-3]",  "n[3-1]", "n[]",     "n[a-b]", "n[1--2]", "n[1-2,]", "a,,b",
    "a,",     ",a",     "n[1 2]", "n[[1]]",  "n[1-1000000]", "n[0-99999]x[0-9]",
    "n[1234567890]",
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[1-2]",
};
#define NBAD_LISTS ((int)(sizeof bad_lists / sizeof bad_lists[0]))

START_TEST(test_hostlist_bad)
{
    struct xmpi_slurm_names s = {7, NULL};
    err[0] = '\0';
    ck_assert_msg(xmpi_slurm_hostlist(bad_lists[_i], &s, err, sizeof err) == -1,
                  "'%s' accepted", bad_lists[_i]);
    ck_assert_msg(err[0] != '\0', "'%s': no message", bad_lists[_i]);
    ck_assert_int_eq(s.n, 0);
    ck_assert_ptr_null(s.v);
}
END_TEST

START_TEST(test_cpu_count)
{
    ck_assert_int_eq(xmpi_slurm_cpu_count("0-1"), 2);
    ck_assert_int_eq(xmpi_slurm_cpu_count("0"), 1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("0-3,8,10-11"), 7);
    ck_assert_int_eq(xmpi_slurm_cpu_count(""), -1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("0-"), -1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("3-1"), -1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("0,,1"), -1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("(null)"), -1);
    ck_assert_int_eq(xmpi_slurm_cpu_count("0-99999999"), -1);
}
END_TEST

/* ---- scontrol show job -d ---- */

/* Slurm 22.05.8: a job resized once (an expansion merged into it), two nodes. */
static const char job_running[] =
    "JobId=4 JobName=main2\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   Priority=4294901756 Nice=0 Account=(null) QOS=(null)\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   Requeue=1 Restarts=0 BatchFlag=0 Reboot=0 ExitCode=0:0\n"
    "   DerivedExitCode=0:0\n"
    "   RunTime=00:01:16 TimeLimit=UNLIMITED TimeMin=N/A\n"
    "   SubmitTime=2026-11-24T13:22:18 EligibleTime=2026-11-24T13:22:18\n"
    "   AccrueTime=Unknown\n"
    "   ResizeTime=2026-11-24T13:23:07\n"
    "   StartTime=2026-11-24T13:22:18 EndTime=Unknown Deadline=N/A\n"
    "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-24T13:22:18 Scheduler=Main\n"
    "   Partition=test AllocNode:Sid=localhost:9188\n"
    "   ReqNodeList=(null) ExcNodeList=(null)\n"
    "   NodeList=xmpi-s-h[1-2]\n"
    "   BatchHost=xmpi-s-h1\n"
    "   NumNodes=2 NumCPUs=4 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   TRES=cpu=4,node=2,billing=4\n"
    "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
    "   JOB_GRES=(null)\n"
    "     Nodes=xmpi-s-h[1-2] CPU_IDs=0-1 Mem=0 GRES=\n"
    "   MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0\n"
    "   Features=(null) DelayBoot=00:00:00\n"
    "   OverSubscribe=NO Contiguous=0 Licenses=(null) Network=(null)\n"
    "   Command=(null)\n"
    "   WorkDir=/tmp/sl/w\n"
    "   Power=\n"
    "   \n"
    "\n";

/* Slurm 22.05.8: a pending batch job whose name and comment look like fields. */
static const char job_pending[] =
    "JobId=11 JobName=evil NodeList=zz[1-3] JobState=FAKE\n"
    "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
    "   JobState=PENDING Reason=Resources Dependency=(null)\n"
    "   AccrueTime=Unknown\n"
    "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
    "   Partition=test AllocNode:Sid=localhost:9188\n"
    "   ReqNodeList=xmpi-s-h1 ExcNodeList=(null)\n"
    "   NodeList=\n"
    "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
    "   Command=(null)\n"
    "   WorkDir=/tmp/sl/w\n"
    "   Comment=NodeList=yy[1-2] \n"
    "   StdOut=/dev/null\n"
    "   Power=\n";

/* Heterogeneous detail lines (a job with part of a node), and a second record after it. */
static const char job_details[] =
    "JobId=20 JobName=x\n"
    "   JobState=RUNNING Reason=None Dependency=(null)\n"
    "   ResizeTime=None\n"
    "   Partition=batch AllocNode:Sid=login:1\n"
    "   NodeList=c[1-3],gpu7\n"
    "     Nodes=c[1-2] CPU_IDs=0-7 Mem=0 GRES=\n"
    "     Nodes=c3 CPU_IDs=0,2 Mem=0 GRES=\n"
    "   Command=(null)\n"
    "\n"
    "JobId=21 JobName=y\n"
    "   JobState=PENDING Reason=None\n"
    "   NodeList=zz9\n";

static int parse_job(struct xmpi_slurm_job *job, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_slurm_job_parse(job, f, "scontrol show job -d 4", err, sizeof err);
    fclose(f);
    return rc;
}

START_TEST(test_job_running)
{
    struct xmpi_slurm_job job;
    ck_assert_msg(parse_job(&job, job_running) == 0, "%s", err);
    ck_assert_int_eq(job.id, 4);
    ck_assert_str_eq(job.state, "RUNNING");
    ck_assert_str_eq(job.partition, "test");
    ck_assert_int_eq(job.nodes.n, 2);
    ck_assert_str_eq(job.nodes.v[0], "xmpi-s-h1");
    ck_assert_str_eq(job.nodes.v[1], "xmpi-s-h2");
    ck_assert_int_eq(job.cpus[0], 2);
    ck_assert_int_eq(job.cpus[1], 2);
    ck_assert_int_eq(job.resized, 1);
    xmpi_slurm_job_free(&job);
    ck_assert_ptr_null(job.cpus);
    ck_assert_int_eq(job.nodes.n, 0);
}
END_TEST

START_TEST(test_job_pending)
{
    struct xmpi_slurm_job job;
    ck_assert_msg(parse_job(&job, job_pending) == 0, "%s", err);
    ck_assert_int_eq(job.id, 11);
    /* Not the name's "JobState=FAKE" or "NodeList=zz[1-3]", nor the comment's. */
    ck_assert_str_eq(job.state, "PENDING");
    ck_assert_int_eq(job.nodes.n, 0);
    ck_assert_ptr_null(job.cpus);
    ck_assert_int_eq(job.resized, 0);
    xmpi_slurm_job_free(&job);
}
END_TEST

START_TEST(test_job_details)
{
    struct xmpi_slurm_job job;
    ck_assert_msg(parse_job(&job, job_details) == 0, "%s", err);
    ck_assert_int_eq(job.id, 20);
    ck_assert_str_eq(job.state, "RUNNING");
    ck_assert_str_eq(job.partition, "batch");
    ck_assert_int_eq(job.resized, 0);
    ck_assert_int_eq(job.nodes.n, 4);
    ck_assert_str_eq(job.nodes.v[3], "gpu7");
    int want[] = {8, 8, 2, 0};
    for (int i = 0; i < 4; i++) ck_assert_int_eq(job.cpus[i], want[i]);
    xmpi_slurm_job_free(&job);
}
END_TEST

static const struct {
    const char *text, *needle;
} bad_jobs[] = {
    {"", "no JobId= line"},
    {"slurm_load_jobs error: Invalid job id specified\n", "no JobId= line"},
    {"JobId=abc JobName=x\n   JobState=RUNNING\n", "scontrol show job -d 4:1: field JobId: 'abc'"},
    {"JobId=-3\n", "field JobId"},
    {"JobId=4 JobName=x\n   Partition=test\n", "no JobState= line for job 4"},
    {"JobId=4\n   JobState=RUN-NING\n", ":2: field JobState: 'RUN-NING'"},
    {"JobId=4\n   JobState=RUNNING\n   NodeList=n[1-\n", ":3: field NodeList: 'n[1-' is not "
     "accepted; expected a Slurm hostlist"},
    {"JobId=4\n   JobState=RUNNING\n   NodeList=n1\n     Nodes=n[2 CPU_IDs=0\n",
     ":4: field Nodes: 'n[2'"},
    {"JobId=4\n   JobState=RUNNING\n   NodeList=n1\n     Nodes=n1 CPU_IDs=0-x Mem=0\n",
     ":4: field CPU_IDs: '0-x'"},
    {"JobId=4\n   JobState=RUNNING\n   Partition=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     ":3: field Partition"},
    {"JobId=4\n   JobState=RUNNING\n   NodeList=\x1b[31m\n", "field NodeList: '\\x1b[31m'"},
};
#define NBAD_JOBS ((int)(sizeof bad_jobs / sizeof bad_jobs[0]))

START_TEST(test_job_bad)
{
    struct xmpi_slurm_job job;
    ck_assert_msg(parse_job(&job, bad_jobs[_i].text) == -1, "case %d accepted", _i);
    assert_err_has(bad_jobs[_i].needle);
    ck_assert_ptr_null(job.cpus);
    ck_assert_ptr_null(job.nodes.v);
}
END_TEST

START_TEST(test_job_nul)
{
    static const char text[] = "JobId=4\n   JobState=RUN\0NING\n";
    FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
    ck_assert_ptr_nonnull(f);
    struct xmpi_slurm_job job;
    ck_assert_int_eq(xmpi_slurm_job_parse(&job, f, "out", err, sizeof err), -1);
    fclose(f);
    assert_err_has("out:2: a NUL byte is not accepted");
}
END_TEST

/* ---- sinfo ---- */

/* Slurm 22.05.8, sinfo -h -N -p test -o '%N|%n|%c|%T|%f'. */
static const char sinfo_text[] =
    "xmpi-s-h1|xmpi-s-h1|2|allocated|node\n"
    "xmpi-s-h2|xmpi-s-h2|2|draining|node\n"
    "xmpi-s-h3|xmpi-s-h3|2|drained|node\n"
    "xmpi-s-h4|xmpi-s-h4|2|idle|node\n"
    "xmpi-s-h5|xmpi-s-h5|2|idle*|node\n"
    "c1|c1.example.org|64|mixed|fast,ib\n"
    "c2|(null)|64|idle~|(null)\n"
    "c3||8|mixed@|bad:feature,ok\n"
    "xmpi-s-h1|xmpi-s-h1|2|allocated|node\n";

static int parse_nodes(struct xmpi_slurm_nodes *nodes, const char *text)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    err[0] = '\0';
    int rc = xmpi_slurm_nodes_parse(nodes, f, "sinfo", err, sizeof err);
    fclose(f);
    return rc;
}

START_TEST(test_nodes)
{
    struct xmpi_slurm_nodes nodes;
    ck_assert_msg(parse_nodes(&nodes, sinfo_text) == 0, "%s", err);
    ck_assert_int_eq(nodes.n, 8);   /* xmpi-s-h1 once */
    static const struct {
        const char *name, *host;
        int cpus, flags;
        const char *feature;
    } want[] = {
        {"xmpi-s-h1", "xmpi-s-h1", 2, 0, "node"},
        {"xmpi-s-h2", "xmpi-s-h2", 2, XMPIR_SLURM_NODE_LEAVING, "node"},
        {"xmpi-s-h3", "xmpi-s-h3", 2, XMPIR_SLURM_NODE_LEAVING, "node"},
        {"xmpi-s-h4", "xmpi-s-h4", 2, XMPIR_SLURM_NODE_IDLE, "node"},
        {"xmpi-s-h5", "xmpi-s-h5", 2, 0, "node"},
        {"c1", "c1.example.org", 64, 0, "fast"},
        {"c2", "c2", 64, 0, ""},
        {"c3", "c3", 8, XMPIR_SLURM_NODE_LEAVING, "ok"},
    };
    for (int i = 0; i < 8; i++) {
        const struct xmpi_slurm_node *x = &nodes.v[i];
        ck_assert_str_eq(x->name, want[i].name);
        ck_assert_str_eq(x->host, want[i].host);
        ck_assert_int_eq(x->cpus, want[i].cpus);
        ck_assert_msg(x->flags == want[i].flags, "%s (%s): flags %d, want %d", x->name, x->state,
                      x->flags, want[i].flags);
        ck_assert_str_eq(x->feature, want[i].feature);
    }
    ck_assert_int_eq(xmpi_slurm_nodes_find(&nodes, "c1"), 5);
    ck_assert_int_eq(xmpi_slurm_nodes_find(&nodes, "c1.example.org"), 5);
    ck_assert_int_eq(xmpi_slurm_nodes_find(&nodes, "c9"), -1);
    xmpi_slurm_nodes_free(&nodes);
    ck_assert_int_eq(nodes.n, 0);
    ck_assert_int_eq(parse_nodes(&nodes, ""), 0);
    ck_assert_int_eq(nodes.n, 0);
}
END_TEST

static const struct {
    const char *text, *needle;
} bad_nodes[] = {
    {"n1|n1|2|idle\n", "sinfo:1: 4 fields are not accepted; expected 5"},
    {"n1|n1|2|idle|f|x\n", "sinfo:1: 6 fields"},
    {"n1|n1|2|idle|f\n|n2|2|idle|f\n", "sinfo:2: field NodeName: ''"},
    {"n 1|n1|2|idle|f\n", "field NodeName: 'n 1'"},
    {"n1|n 1|2|idle|f\n", "field NodeHostname: 'n 1'"},
    {"n1|n1|0|idle|f\n", "field CPUs: '0'"},
    {"n1|n1|2+|idle|f\n", "field CPUs: '2+'"},
    {"n1|n1|65537|idle|f\n", "field CPUs: '65537'"},
    {"n1|n1|2||f\n", "field State: ''"},
    {"slurm_load_partitions: Unable to contact slurm controller (connect failure)\n",
     "1 fields are not accepted"},
};
#define NBAD_NODES ((int)(sizeof bad_nodes / sizeof bad_nodes[0]))

START_TEST(test_nodes_bad)
{
    struct xmpi_slurm_nodes nodes;
    ck_assert_msg(parse_nodes(&nodes, bad_nodes[_i].text) == -1, "case %d accepted", _i);
    assert_err_has(bad_nodes[_i].needle);
    ck_assert_int_eq(nodes.n, 0);
    ck_assert_ptr_null(nodes.v);
}
END_TEST

START_TEST(test_node_flags)
{
    static const struct {
        const char *state;
        int flags;
    } cases[] = {
        {"idle", XMPIR_SLURM_NODE_IDLE}, {"IDLE", XMPIR_SLURM_NODE_IDLE}, {"idle*", 0},
        {"idle~", 0}, {"idle#", 0}, {"mixed", 0}, {"allocated", 0}, {"completing", 0},
        {"reserved", 0}, {"down*", XMPIR_SLURM_NODE_LEAVING},
        {"draining", XMPIR_SLURM_NODE_LEAVING}, {"drained", XMPIR_SLURM_NODE_LEAVING},
        {"drained*", XMPIR_SLURM_NODE_LEAVING}, {"fail", XMPIR_SLURM_NODE_LEAVING},
        {"failing", XMPIR_SLURM_NODE_LEAVING}, {"maint", XMPIR_SLURM_NODE_LEAVING},
        {"mixed@", XMPIR_SLURM_NODE_LEAVING}, {"reboot^", XMPIR_SLURM_NODE_LEAVING},
        {"allocated$", XMPIR_SLURM_NODE_LEAVING}, {"mixed!", XMPIR_SLURM_NODE_LEAVING},
        {"allocated*", 0}, {"", 0}, {"unknown", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(xmpi_slurm_node_flags(cases[i].state) == cases[i].flags, "%s: %d, want %d",
                      cases[i].state, xmpi_slurm_node_flags(cases[i].state), cases[i].flags);
}
END_TEST

START_TEST(test_granted)
{
    ck_assert_int_eq(xmpi_slurm_granted("salloc: Granted job allocation 12\n"), 12);
    ck_assert_int_eq(xmpi_slurm_granted("salloc: Pending job allocation 13\n"
                                        "salloc: job 13 queued and waiting for resources\n"
                                        "salloc: job 13 has been allocated resources\n"
                                        "salloc: Granted job allocation 13\n"), 13);
    ck_assert_int_eq(xmpi_slurm_granted("salloc: error: Job submit/allocate failed: Requested "
                                        "operation not supported on this system\n"), -1);
    ck_assert_int_eq(xmpi_slurm_granted("Granted job allocation x\n"), -1);
    ck_assert_int_eq(xmpi_slurm_granted("Granted job allocation 99999999999\n"), -1);
    ck_assert_int_eq(xmpi_slurm_granted(""), -1);
}
END_TEST

/* ---- the option ---- */

static int parse_rms(struct xmpi_options *o, const char *arg)
{
    char *argv[] = {"prog", (char *)arg, NULL};
    int argc = 2;
    xmpi_options_defaults(o);
    err[0] = '\0';
    return xmpi_options_parse(o, &argc, argv, 1, NULL, err, sizeof err);
}

START_TEST(test_rms_option)
{
    struct xmpi_options o;
    ck_assert_msg(parse_rms(&o, "--xmpi-rms=slurm") == 0, "%s", err);
    ck_assert_str_eq(o.rms, "slurm");
    /* It names no file the trace could overwrite. */
    struct xmpi_input_file in[XMPIR_INPUTS_MAX];
    ck_assert_int_eq(xmpi_options_inputs(&o, in, XMPIR_INPUTS_MAX), 0);
    static const char *const bad[] = {"--xmpi-rms=slurm:", "--xmpi-rms=slurm:x", "--xmpi-rms=Slurm",
                                      "--xmpi-rms=slurmx", "--xmpi-rms= slurm"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(parse_rms(&o, bad[i]) == -1, "%s accepted", bad[i]);
        assert_err_has("option --xmpi-rms");
        assert_err_has("expected none, schedule:FILE, file:PATH or slurm");
    }
}
END_TEST

Suite *slurm_parse_suite(void)
{
    Suite *s = suite_create("slurm_parse");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_hostlist);
    tcase_add_loop_test(tc, test_hostlist_bad, 0, NBAD_LISTS);
    tcase_add_test(tc, test_cpu_count);
    tcase_add_test(tc, test_job_running);
    tcase_add_test(tc, test_job_pending);
    tcase_add_test(tc, test_job_details);
    tcase_add_loop_test(tc, test_job_bad, 0, NBAD_JOBS);
    tcase_add_test(tc, test_job_nul);
    tcase_add_test(tc, test_nodes);
    tcase_add_loop_test(tc, test_nodes_bad, 0, NBAD_NODES);
    tcase_add_test(tc, test_node_flags);
    tcase_add_test(tc, test_granted);
    tcase_add_test(tc, test_rms_option);
    suite_add_tcase(s, tc);
    return s;
}
