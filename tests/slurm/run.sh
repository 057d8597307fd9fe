#!/usr/bin/env bash
# make check-slurm: a malleable Jacobi under Slurm (--xmpi-rms=slurm) on 3 test hosts (network
# namespaces, scripts/testbed) with a Slurm of its own (munged, slurmctld on the machine, one slurmd
# per test host; every file in a temporary directory): the job grows onto a node of its allocation
# that is free, shrinks off a node Slurm drains and gives it back, grows onto an idle node by a job
# expansion, and shrinks off that one too; Slurm before 24.11 refuses that last resize (no
# slurmdbd), which must be one clear message. Every answer is the plain 2-process run's, bit for bit.
# usage (root): tests/slurm/run.sh [BUILD]. Prints "SKIP: reason" and exits 0 where it cannot run.
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TB="$ROOT/scripts/testbed"
MPIRUN=${MPIRUN:-mpirun}
LIMIT=${SLURM_TEST_TIMEOUT:-180}
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"
# A testbed of its own, beside check-cluster's xmpi-h* on 10.77.0.0/24.
export LIBXMPI_TESTBED_PREFIX=xmpi-s LIBXMPI_TESTBED_NET=10.78.0
H1=xmpi-s-h1 H2=xmpi-s-h2 H3=xmpi-s-h3
HOSTS="$H1 $H2 $H3"
CTLD_PORT=${SLURM_TEST_PORT:-16817}
# Long enough that the job is still running when the last step is done: it spends most of its
# iterations on the 2 processes of one host, 0.15-1 ms each here (the faster on an idle machine;
# 5000 iterations ended before the expansion step there), and the steps take about 6 s.
N=300 ITERS=40000

skip() { echo "SKIP: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (network namespaces and Slurm's daemons need root)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v unshare >/dev/null || skip "no unshare command (util-linux)"
command -v flock >/dev/null || skip "no flock command (util-linux)"
"$MPIRUN" --version 2>/dev/null | grep -qiE 'open ?(mpi|rte)' ||
    skip "$MPIRUN is not Open MPI's; the Slurm test runs under Open MPI only"
missing=
for c in munged slurmctld slurmd salloc scontrol sinfo squeue scancel; do
    command -v "$c" >/dev/null || missing="$missing $c"
done
[ -z "$missing" ] ||
    skip "Slurm not installed (no$missing; Debian: apt install slurmctld slurmd slurm-client munge)"
for p in "$J" "$JP"; do
    [ -x "$p" ] || { echo "not ok - $p is built (make all)"; exit 1; }
done

exec 9<"${BASH_SOURCE[0]}"
flock -n 9 || { echo "not ok - another check-slurm is running (it holds a lock on ${BASH_SOURCE[0]})"; exit 1; }

TMP=$(mktemp -d /tmp/xmpi-check-slurm.XXXXXX)
chmod 755 "$TMP"
export SLURM_CONF="$TMP/slurm.conf"
job=
cleanup() {
    [ -n "$job" ] && kill -TERM "$job" 2>/dev/null && wait "$job" 2>/dev/null
    if [ -f "$TMP/slurmctld.pid" ]; then
        pid=$(cat "$TMP/slurmctld.pid")
        kill -CONT "$pid" 2>/dev/null
        timeout 5 scancel --quiet --user=root 2>/dev/null
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
    fi
    ip link del "xps$$" 2>/dev/null; ip netns del "xps$$" 2>/dev/null
    "$TB" down   # ends the slurmds and anything else still running in the test hosts
    [ -f "$TMP/munge/pid" ] && kill -TERM "$(cat "$TMP/munge/pid")" 2>/dev/null
    if [ -n "${SLURM_KEEP:-}" ]; then echo "# files kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$(dirname "$0")/../testbed_up.sh"
testbed_up "xps$$"

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

# --- a Slurm of its own ------------------------------------------------------------------------
# munged with its own key and socket; slurmctld on the machine's address on the test bridge, in a
# UTS namespace named as SlurmctldHost says (slurmctld checks that it runs there); one slurmd in
# each test host, started in the host's namespace as `slurmd -N HOST`.
mkdir -p "$TMP/munge" "$TMP/ctld"
head -c 1024 /dev/urandom >"$TMP/munge/key" && chmod 400 "$TMP/munge/key"
started=$(date +%s.%N)
munged --force --key-file="$TMP/munge/key" --socket="$TMP/munge/sock" --pid-file="$TMP/munge/pid" \
    --log-file="$TMP/munge/log" --seed-file="$TMP/munge/seed" >"$TMP/munge/out" 2>&1 ||
    skip "Slurm cannot start here: munged failed: $(tail -1 "$TMP/munge/out")"
cat >"$SLURM_CONF" <<EOF
# check-slurm's cluster (tests/slurm/run.sh): every file under $TMP
ClusterName=xmpicheck
SlurmctldHost=xmpi-s-ctl($LIBXMPI_TESTBED_NET.254)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$((CTLD_PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$TMP/munge/sock
CredType=cred/munge
StateSaveLocation=$TMP/ctld
SlurmdSpoolDir=$TMP/spool-%n
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd-%n.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=permit_job_expansion
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
NodeName=${LIBXMPI_TESTBED_PREFIX}-h[1-3] NodeAddr=$LIBXMPI_TESTBED_NET.[1-3] CPUs=2 Feature=node State=UNKNOWN
PartitionName=test Nodes=${LIBXMPI_TESTBED_PREFIX}-h[1-3] Default=YES MaxTime=INFINITE State=UP
EOF
unshare --uts sh -c 'hostname xmpi-s-ctl && exec slurmctld -c' >"$TMP/slurmctld.out" 2>&1 ||
    skip "Slurm cannot start here: slurmctld failed: $(tail -2 "$TMP/slurmctld.out" "$TMP/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
for h in $HOSTS; do
    mkdir -p "$TMP/spool-$h"
    "$TB" exec "$h" slurmd -N "$h" >"$TMP/slurmd-$h.out" 2>&1 ||
        skip "Slurm cannot start here: slurmd on $h failed: $(tail -2 "$TMP/slurmd-$h.out" "$TMP/slurmd-$h.log" 2>/dev/null | tr '\n' ' ')"
done
idle=0
for _ in $(seq 100); do
    idle=$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$')
    [ "$idle" = 3 ] && break
    sleep 0.2
done
[ "$idle" = 3 ] || skip "Slurm cannot start here: its 3 nodes did not come up idle within 20 s: $(timeout 5 sinfo -h -N 2>&1 | tr '\n' ' ') $(tail -2 "$TMP/slurmctld.log" | tr '\n' ' ')"
version=$(timeout 20 sinfo -V | awk '{print $2}')
echo "# Slurm $version up in $(awk -v a="$started" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s: munged, slurmctld, a slurmd on each of $HOSTS"
ok "Slurm $version runs on the test hosts: 3 nodes idle"

# --- the malleable job ---------------------------------------------------------------------------
"${CC:-cc}" -O2 -shared -fPIC -o "$TMP/where.so" "$ROOT/tests/slurm/where.c" ||
    { echo "not ok - tests/slurm/where.c compiles"; exit 1; }
declare -A ns_host
for h in $HOSTS; do ns_host["net:[$(stat -L -c %i "/run/netns/$h")]"]=$h; done
WLOG="$TMP/where.log"
for h in $HOSTS; do echo "$h slots=2"; done >"$TMP/hostfile"
export PMIX_MCA_gds=hash OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Blocking spawns: the checks name the iteration at which each change happens and where the
# processes of each spawn ran; tests/sh/async.sh covers asynchronous spawns.
export XMPI_SPAWN_ASYNC=off

field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
# running HOST: the job's processes (jacobi) running on HOST now.
running() { awk -v h="$1" '$6 == "jacobi" && $2 == h { n += $1 == "start" ? 1 : -1 } END { print n + 0 }' "$WLOG" 2>/dev/null; }
# wait_until SECONDS CMD...: CMD succeeds within SECONDS while the job runs.
wait_until() {
    local end=$(( $(date +%s) + $1 )); shift
    while [ "$(date +%s)" -le "$end" ]; do
        "$@" && return 0
        kill -0 "$job" 2>/dev/null || { "$@"; return; }
        sleep 0.2
    done
    return 1
}
runs() { [ "$(running "$1")" = "$2" ]; }
nodelist() { timeout 5 squeue -h -j "$jobid" -o %N 2>/dev/null; }
state() { timeout 5 sinfo -h -N -n "$1" -o %T 2>/dev/null | head -1; }
said() { grep -q "$2" "$1" 2>/dev/null; }

timeout -k 10 "$LIMIT" "$TB" exec "$H1" "$MPIRUN" --oversubscribe -np 2 "$JP" -n $N -i $ITERS -s 5 \
    >"$TMP/ref.out" 2>&1
check "single-host reference: jacobi-plain on 2 processes prints a checksum" \
    test -n "$(field checksum "$TMP/ref.out")"

# xmpi-s-h3 is not free yet: the job starts on h1 and h2 and grows onto h2 first.
timeout 20 scontrol update nodename="$H3" state=drain reason="check-slurm: not yet"
# Open MPI under salloc: the hostfile names every test host (Open MPI 4.1 spawns only onto hosts
# it knew at launch) and the test hosts' agent starts the daemons, not srun (ras, plm); the
# allocation governs which hosts the library uses.
(cd "$TMP" && exec timeout -k 10 "$LIMIT" salloc -N2 -w "$H1,$H2" --exclusive -J xmpi-check-slurm \
    "$TB" mpirun --mca ras ^slurm --mca plm rsh --hostfile "$TMP/hostfile" \
    -x "LD_PRELOAD=$TMP/where.so" -x "CLUSTER_WHERE_LOG=$WLOG" \
    -np 2 "$J" -n $N -i $ITERS -s 5 -d --xmpi-si=20 --xmpi-policy=smp --xmpi-rms=slurm \
    --xmpi-yield=on --xmpi-verbose=1 "--xmpi-trace=$TMP/job.csv" >"$TMP/job.out" 2>"$TMP/job.err") &
job=$!
jobid=
wait_until 20 sh -c "timeout 5 squeue -h -n xmpi-check-slurm -o %i | grep -q ." &&
    jobid=$(timeout 5 squeue -h -n xmpi-check-slurm -o %i | head -1)
check "salloc -N2 starts the job on $H1,$H2 (job ${jobid:-none})" test -n "$jobid"

# 1. A node of the allocation is free: the job grows onto it (2 PEs offered, 2 spawned).
wait_until 60 runs "$H2" 2
check "grows onto $H2, the free node of its allocation: 2 processes there" runs "$H2" 2

# 2. Slurm takes $H2 back (drained) and offers $H3 (resumed): the job leaves $H2, gives it
# back (the job's first resize), then grows onto $H3 by a job expansion.
timeout 20 scontrol update nodename="$H2" state=drain reason="check-slurm: taken back"
timeout 20 scontrol update nodename="$H3" state=resume
wait_until 30 runs "$H2" 0
check "leaves $H2 once Slurm drains it" runs "$H2" 0
wait_until 30 runs "$H3" 2
check "grows onto $H3, idle in the partition, by a job expansion: 2 processes there" runs "$H3" 2
nl=$(nodelist)
check "the job holds $H1 and $H3 ($nl): $H2 given back, $H3 added" test "$nl" = "xmpi-s-h[1,3]"
check "$H2 is drained, no longer the job's ($(state "$H2"))" test "$(state "$H2")" = drained
check "no expansion job is left: the job is the only one ($(timeout 5 squeue -h -o %i | tr '\n' ' '))" \
    test "$(timeout 5 squeue -h | wc -l)" = 1

# 3. Slurm takes $H3 back: the job leaves it. Giving it back is the job's second resize, which
# Slurm before 24.11 refuses without slurmdbd: one clear message, and the job goes on.
timeout 20 scontrol update nodename="$H3" state=drain reason="check-slurm: taken back"
wait_until 30 runs "$H3" 0
check "leaves $H3 once Slurm drains it" runs "$H3" 0
major=${version%%.*} minor=${version#*.}; minor=${minor%%.*}
if [ "$major" -lt 24 ] || { [ "$major" = 24 ] && [ "$((10#$minor))" -lt 11 ]; }; then
    wait_until 30 said "$TMP/job.err" "did not take $H3 back"
    check "Slurm $version refuses the second resize: one clear message" \
        test "$(grep -c "did not take $H3 back.*job that was resized before" "$TMP/job.err")" = 1
else
    wait_until 30 sh -c "test \"\$(timeout 5 squeue -h -j $jobid -o %N)\" = $H1"
    check "Slurm $version takes $H3 back: the job holds $H1 only" test "$(nodelist)" = "$H1"
fi

wait "$job"
rc=$?
job=
check "the job exits 0" test $rc = 0
[ $rc = 0 ] || tail -8 "$TMP/job.out" "$TMP/job.err" | sed 's/^/#   /'
check "the single-host run's checksum" \
    test -n "$(field checksum "$TMP/ref.out")" -a "$(field checksum "$TMP/ref.out")" = "$(field checksum "$TMP/job.out")"
check "... its residual and iterations" \
    test "$(field residual "$TMP/ref.out") $(field iterations "$TMP/ref.out")" = \
         "$(field residual "$TMP/job.out") $(field iterations "$TMP/job.out")"
check "ends on 2 processes" test "$(field ranks "$TMP/job.out")" = 2

# Where every process ran, from the processes themselves: each hostname is the host whose
# namespace it ran in, and the processes per host (h1,h2,h3) after each start and exit.
where_ok() {
    local what host pid ns t prog bad=0
    while read -r what host pid ns t prog; do
        [ "$prog" = jacobi ] || continue
        [ "${ns_host[$ns]:-}" = "$host" ] || { echo "#   $what $host $pid: in namespace $ns"; bad=1; }
    done <"$WLOG"
    [ "$(grep -c '^start .* jacobi$' "$WLOG")" = "$(grep -c '^exit .* jacobi$' "$WLOG")" ] ||
        { echo "#   not every process exited"; bad=1; }
    [ $bad = 0 ]
}
check "each process ran on the test host it names, and exited" where_ok
steps=$(sort -k5,5n "$WLOG" | awk -v hs="$HOSTS" '
    BEGIN { split(hs, h, " ") }
    $6 != "jacobi" { next }
    { cnt[$2] += $1 == "start" ? 1 : -1; n++
      s = ""; for (k = 1; k <= 3; k++) s = s (k > 1 ? "," : "") (cnt[h[k]] + 0)
      if (n >= 2 && cnt[h[1]] == 2) line = line (line ? " " : "") s }
    END { print line }')
want="2,0,0 2,1,0 2,2,0 2,1,0 2,0,0 2,0,1 2,0,2 2,0,1 2,0,0"
check "processes per host ($HOSTS) at each step: $steps" test "$steps" = "$want"
[ "$steps" = "$want" ] || echo "#   expected $want"
grep -E 'slurm:|Slurm' "$TMP/job.err" | sed 's/^/#   /'

# --- Slurm stops answering in the middle of a run: said, and the job goes on ------------------------
# The job holds $H1 only (the others are drained): nothing to offer, only looks at Slurm. Its
# pool comes from a resource file this time, the node classes mapped by hand.
# The job must outlast a look at Slurm after the stop (at most one a second): a larger matrix
# (about 5 s on 2 processes here), its own single-host reference.
N2=600
timeout -k 10 "$LIMIT" "$TB" exec "$H1" "$MPIRUN" --oversubscribe -np 2 "$JP" -n $N2 -i $ITERS -s 5 \
    >"$TMP/ref2.out" 2>&1
ctld=$(cat "$TMP/slurmctld.pid")
printf '%s:fast:2:1\n%s:slow:2:0.5\n%s:slow:2:0.5\n' $HOSTS >"$TMP/map"
(cd "$TMP" && exec timeout -k 10 "$LIMIT" salloc -N1 -w "$H1" --exclusive -J xmpi-check-slurm-2 \
    "$TB" mpirun --mca ras ^slurm --mca plm rsh --hostfile "$TMP/hostfile" \
    -np 2 "$J" -n $N2 -i $ITERS -s 5 -d --xmpi-si=20 --xmpi-policy=smp --xmpi-rms=slurm \
    "--xmpi-resources=$TMP/map" --xmpi-yield=on --xmpi-verbose=1 >"$TMP/stop.out" 2>"$TMP/stop.err") &
job=$!
wait_until 30 said "$TMP/stop.err" "slurm: job .* holds $H1"
# A look is scontrol, then sinfo: the stop may catch either.
kill -STOP "$ctld"
wait_until 30 said "$TMP/stop.err" "cannot be read"
kill -CONT "$ctld"
wait "$job"
rc=$?
job=
check "slurmctld stopped during a run: the job says so and goes on (exit $rc)" \
    sh -c "[ $rc = 0 ] && grep -Eq 'the resource manager cannot be read \\(Slurm cannot (describe job [0-9]+: scontrol show job -d [0-9]+|list the nodes of partition [^:]+: sinfo [^)]*) did not answer within 5 s.*asking Slurm again in 2 s\\)' '$TMP/stop.err'"
grep -h 'cannot be read' "$TMP/stop.err" | head -2 | sed 's/^/#   /'
check "... with the single-host run's checksum" \
    test -n "$(field checksum "$TMP/ref2.out")" -a "$(field checksum "$TMP/ref2.out")" = "$(field checksum "$TMP/stop.out")"

# --- bad input: one clear message, never a hang ----------------------------------------------------
small=(-np 2 "$J" -n 100 -i 20 -d --xmpi-policy=smp --xmpi-rms=slurm)
timeout -k 10 60 env -u SLURM_JOB_ID -u SLURM_JOBID "$TB" exec "$H1" "$MPIRUN" --oversubscribe \
    "${small[@]}" >"$TMP/nojob.out" 2>&1
rc=$?
check "outside a Slurm job: stops at start-up with the reason (exit $rc)" \
    sh -c "[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'SLURM_JOB_ID is not set' '$TMP/nojob.out'"
timeout -k 10 60 env SLURM_JOB_ID="$jobid" "$TB" exec "$H1" "$MPIRUN" --oversubscribe \
    "${small[@]}" >"$TMP/ended.out" 2>&1
rc=$?
check "a job that has ended: stops at start-up with the reason (exit $rc)" \
    sh -c "[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'Slurm job $jobid is COMPLETED' '$TMP/ended.out'"
kill -STOP "$ctld"
t0=$(date +%s)
timeout -k 10 60 env SLURM_JOB_ID="$jobid" "$TB" exec "$H1" "$MPIRUN" --oversubscribe \
    "${small[@]}" >"$TMP/silent.out" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
kill -CONT "$ctld"
check "slurmctld not answering: stops at start-up with the reason after ${took} s (exit $rc)" \
    sh -c "[ $rc != 0 ] && [ $rc != 124 ] && grep -q 'did not answer within' '$TMP/silent.out'"
grep -h 'xmpi: option --xmpi-rms' "$TMP/nojob.out" "$TMP/ended.out" "$TMP/silent.out" | sed 's/^/#   /'

left=
for h in $HOSTS; do
    for p in $(ip netns pids "$h"); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmd ] || left="$left $p"
    done
done
check "no process of the jobs left on the test hosts${left:+ (pids$left)}" test -z "$left"

echo "check-slurm: $passed passed, $failed failed"
[ "$failed" = 0 ]
