#!/usr/bin/env bash
# make check-cluster: malleable Jacobi and CG on 3 test hosts (network namespaces, scripts/testbed)
# under Open MPI's mpirun or MPICH's Hydra (MPIRUN names either): grows onto the other hosts and
# shrinks back under balance-all and balance-occupied, where every process's host and network
# namespace is logged by the process itself, and the load balancer across hosts; every answer bit
# for bit the single-host run's.
# usage (root): tests/cluster/run.sh [BUILD]. Prints "SKIP: reason" and exits 0 where it cannot run.
set -u
BUILD=${1:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TB="$ROOT/scripts/testbed"
MPIRUN=${MPIRUN:-mpirun}
LIMIT=${CLUSTER_TIMEOUT:-120}
J="$ROOT/$BUILD/bin/jacobi"
JP="$ROOT/$BUILD/bin/jacobi-plain"
C="$ROOT/$BUILD/bin/cg"
CP="$ROOT/$BUILD/bin/cg-plain"
HOSTS="xmpi-h1 xmpi-h2 xmpi-h3"
unset LIBXMPI_TESTBED_PREFIX   # the hosts' names above are the testbed's defaults

skip() { echo "SKIP: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "not root (network namespaces need root)"
command -v ip >/dev/null || skip "no ip command (iproute2)"
command -v unshare >/dev/null || skip "no unshare command (util-linux)"
command -v flock >/dev/null || skip "no flock command (util-linux)"
# The launcher's options differ: Open MPI's mpirun and MPICH's Hydra mpiexec are the two known.
version=$("$MPIRUN" --version 2>&1)
if grep -qiE 'open ?(mpi|rte)' <<<"$version"; then
    KIND=openmpi
elif grep -q 'HYDRA' <<<"$version"; then
    KIND=hydra
else
    skip "$MPIRUN is neither Open MPI's mpirun nor MPICH's Hydra mpiexec (MPIRUN names the launcher)"
fi
for p in "$J" "$JP" "$C" "$CP" "$ROOT/$BUILD/bin/xmpi-spawnbench"; do
    [ -x "$p" ] || { echo "not ok - $p is built (make all)"; exit 1; }
done

# One cluster test at a time: `testbed up` would pull the hosts from under another run. The
# lock is on this script itself, so that no lock file is left behind.
exec 9<"${BASH_SOURCE[0]}"
flock -n 9 || { echo "not ok - another check-cluster is running (it holds a lock on ${BASH_SOURCE[0]})"; exit 1; }

TMP=$(mktemp -d)
job=
# Can this MPI spawn at all? (Debian 12's own MPICH 4.0.2, ch4:ucx, cannot; docs/cluster.md.)
# Where it cannot, the malleable jobs could only fail: SKIP. Once more after a timeout only
# (the rare Open MPI 4.1 + PMIx spawn hang must not skip the test).
spawn_probe() {
    MPIRUN=$MPIRUN XMPIRUN_TIMEOUT=60 "$ROOT/scripts/xmpirun" -np 1 "$ROOT/$BUILD/bin/xmpi-spawnbench" \
        -n 1 -r 1 -o "$TMP/spawn-probe.txt" --xmpi-oversubscribe >"$TMP/spawn-probe.log" 2>&1
}
spawn_probe; rc=$?
[ $rc = 124 ] && { spawn_probe; rc=$?; }
if [ $rc != 0 ]; then
    echo "SKIP: this MPI cannot spawn processes (xmpi-spawnbench -n 1 exited $rc):"
    tail -3 "$TMP/spawn-probe.log" | sed 's/^/#   /'
    rm -rf "$TMP"
    exit 0
fi
cleanup() {
    # A job still running (the run was interrupted): timeout passes TERM on to mpirun.
    [ -n "$job" ] && kill -TERM "$job" 2>/dev/null && wait "$job" 2>/dev/null
    ip link del "xpr$$" 2>/dev/null; ip netns del "xpr$$" 2>/dev/null
    "$TB" down
    # CLUSTER_KEEP=1 keeps the logs, where-logs and traces for a look.
    if [ -n "${CLUSTER_KEEP:-}" ]; then echo "# files kept in $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$(dirname "$0")/../testbed_up.sh"
testbed_up "xpr$$"
# The launcher's words for the same things: the hostfile's format and option, one process per
# host, the environment of the job's processes, and oversubscribing one host.
if [ $KIND = openmpi ]; then
    LAUNCH=(mpirun --hostfile "$TMP/hostfile") PER_HOST=(--map-by node) ONE_HOST=(--oversubscribe)
    genv() { printf '%s\n' -x "$1=$2"; }
    "$TB" hostfile 2 >"$TMP/hostfile"
else
    # Hydra (docs/cluster.md#mpich-and-hydra): "HOST:SLOTS" lines, -ppn, -genv; it fills the
    # first host's slots first, as Open MPI does, and runs any number of processes on one host.
    export MPIEXEC=$MPIRUN
    LAUNCH=(mpiexec -f "$TMP/hostfile") PER_HOST=(-ppn 1) ONE_HOST=()
    genv() { printf '%s\n' -genv "$1" "$2"; }
    "$TB" hostfile 2 hydra >"$TMP/hostfile"
fi
echo "# launcher: $MPIRUN ($KIND)"
export PMIX_MCA_gds=hash   # rarer PMIx_Init hangs of spawned processes (see scripts/xmpirun)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Blocking spawns: the checks name the iteration at which each change happens and where the
# processes of each spawn ran; tests/sh/async.sh covers asynchronous spawns.
export XMPI_SPAWN_ASYNC=off

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
notok() { echo "not ok - $*"; failed=$((failed + 1)); }
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

# [RESET=FILE] tbrun OUT ARGS...: removes FILE, then the launcher on the test hosts under a timeout;
# once more only after a timeout (the rare Open MPI 4.1 + PMIx 4.x spawn hang, tests/sh/lib.sh),
# the first try's processes on the test hosts killed before the second.
tbrun() {
    local out=$1; shift
    local rc
    for attempt in 1 2; do
        [ -n "${RESET:-}" ] && rm -f "$RESET"
        # In the background, so that a signal to this script is handled at once (see cleanup).
        timeout -k 10 "$LIMIT" "$TB" "${LAUNCH[@]}" "$@" >"$out" 2>"$out.err" &
        job=$!
        wait $job
        rc=$?
        job=
        [ $rc -ne 124 ] && return $rc
        echo "# attempt $attempt timed out after ${LIMIT}s (known Open MPI 4.1 + PMIx spawn hang?)"
        for h in $HOSTS; do
            pids=$(ip netns pids "$h" | tr '\n' ' ')
            [ -n "$pids" ] && kill -KILL $pids 2>/dev/null
        done
    done
    return $rc
}

field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }

out=$(timeout -k 10 "$LIMIT" "$TB" "${LAUNCH[@]}" -np 3 "${PER_HOST[@]}" hostname 2>&1 |
      sort | tr '\n' ' ')
check "one process per test host, each with its own hostname" test "$out" = "xmpi-h1 xmpi-h2 xmpi-h3 "

# --- where every process runs, from the processes themselves -------------------------------
# tests/cluster/where.c, preloaded into the job (spawned processes inherit the environment), logs
# each process's start, MPI_Finalize and exit with its hostname, network namespace and a
# monotonic clock.
"${CC:-cc}" -O2 -shared -fPIC -o "$TMP/where.so" "$ROOT/tests/cluster/where.c" -ldl ||
    { echo "not ok - tests/cluster/where.c compiles"; exit 1; }
declare -A ns_host
for h in $HOSTS; do ns_host["net:[$(stat -L -c %i "/run/netns/$h")]"]=$h; done
mapfile -t WHERE < <(genv LD_PRELOAD "$TMP/where.so"; genv CLUSTER_WHERE_LOG "$TMP/where.log")

# where_ok LOG: every line's hostname is the test host whose network namespace it ran in, and
# every process that started also called MPI_Finalize and exited (none was killed).
where_ok() {
    local what host pid ns t bad=0
    while read -r what host pid ns t; do
        [ "${ns_host[$ns]:-}" = "$host" ] || { echo "#   $what $host $pid: in namespace $ns (${ns_host[$ns]:-no test host})"; bad=1; }
    done <"$1"
    [ "$(grep -c '^start ' "$1")" = "$(grep -c '^exit ' "$1")" ] || { echo "#   not every process exited"; bad=1; }
    [ "$(grep -c '^start ' "$1")" = "$(grep -c '^finalize ' "$1")" ] || { echo "#   not every process called MPI_Finalize"; bad=1; }
    [ $bad = 0 ]
}

# placements LOG NINIT: the processes per host (h1,h2,h3) at start, after each spawn, after the
# first removal and at the end, e.g. "2,0,0 2,1,0 ...". Spawns in the order they started
# (each spawn ends before the next begins); the first removal is the spawned process that
# left first, by its call of MPI_Finalize, the moment it leaves the job (the next removal comes
# 140 iterations later).
placements() {
    sort -k5,5n "$1" | awk -v ninit="$2" '
        BEGIN { split("xmpi-h1 xmpi-h2 xmpi-h3", hs, " ") }
        $1 == "start" { n++; host[$3] = $2; if (n <= ninit) cnt[$2]++; else { cnt[$2]++; spawned[$3] = 1; line = line " " state() } }
        $1 == "start" && n == ninit { line = state() }
        $1 == "finalize" && ($3 in spawned) { gone[++m] = $3 }
        END {
            for (i = 1; i <= m; i++) { cnt[host[gone[i]]]--; if (i == 1 || i == m) line = line " " state() }
            print line
        }
        function state(   k, s) { s = ""; for (k = 1; k <= 3; k++) s = s (k > 1 ? "," : "") (cnt[hs[k]] + 0); return s }
    '
}

# ref OUT NP PROG ARGS...: the reference, the plain MPI build (no library) on NP processes of one
# host.
ref() {
    local out=$1 np=$2; shift 2
    timeout -k 10 "$LIMIT" "$TB" exec xmpi-h1 "$MPIRUN" "${ONE_HOST[@]}" -np "$np" "$@" >"$out" 2>&1
    check "single-host reference: $(basename "$1") on $np processes prints a checksum" \
        test -n "$(field checksum "$out")"
}

# The pool: 2 PEs on each host, one class; the launcher puts the 2 initial processes on xmpi-h1.
printf 'xmpi-h1:node:2:1\nxmpi-h2:node:2:1\nxmpi-h3:node:2:1\n' >"$TMP/pool"
# Three spawns of one process, then one removal, then the two others: h1 -> +h2 -> +h3 -> back.
printf '20 spawn 1 node\n40 spawn 1 node\n60 spawn 1 node\n100 remove 1 node\n240 remove 2 node\n' >"$TMP/events"
# Worked out by hand from thesis 4.4.1/4.4.2 (docs/api.md), the pool's order breaking ties:
# balance-all spreads (a spawn to the host with fewest, a removal from the one with most),
# balance-occupied fills (a new host only when the used ones are full, a removal from the
# emptiest host, to free it).
declare -A expect=(
    [balance-all]="2,0,0 2,1,0 2,1,1 2,2,1 2,1,1 2,0,0"
    [balance-occupied]="2,0,0 2,1,0 2,2,0 2,2,1 2,2,0 2,0,0"
)

# malleable TAG REF POLICY PROG ARGS...: PROG ARGS -d on 2 processes under the schedule, with
# --xmpi-sched=POLICY, against the reference output REF.
malleable() {
    local tag=$1 refout=$2 policy=$3; shift 3
    local name="$(basename "$1") -d --xmpi-sched=$policy" f="$TMP/$tag-$policy"
    RESET="$TMP/where.log" tbrun "$f.out" "${WHERE[@]}" -np 2 "$@" -d --xmpi-si=20 --xmpi-policy=smp \
        "--xmpi-rms=schedule:$TMP/events" "--xmpi-resources=$TMP/pool" "--xmpi-sched=$policy" \
        --xmpi-yield=on --xmpi-verbose=1 "--xmpi-trace=$f.csv"
    local rc=$?
    cp "$TMP/where.log" "$f.where" 2>/dev/null
    check "$name: exits 0" test $rc = 0
    [ $rc = 0 ] || tail -8 "$f.out" "$f.out.err" | sed 's/^/#   /'
    check "$name: each process ran on the test host it names, finalized and exited" where_ok "$f.where"
    local got
    got=$(placements "$f.where" 2)
    check "$name: processes per host (h1,h2,h3) at each step: $got" test "$got" = "${expect[$policy]}"
    [ "$got" = "${expect[$policy]}" ] || echo "#   expected ${expect[$policy]}"
    check "$name: the single-host run's checksum" \
        test -n "$(field checksum "$refout")" -a "$(field checksum "$refout")" = "$(field checksum "$f.out")"
    check "$name: ... its residual and iterations" \
        test "$(field residual "$refout") $(field iterations "$refout")" = \
             "$(field residual "$f.out") $(field iterations "$f.out")"
    check "$name: rank 0 reported each change" \
        test "$(grep -c '^[a-z]*: iteration [0-9]*: \(spawned\|removed\)' "$f.out")" = 5
    check "$name: ends on 2 processes" test "$(field ranks "$f.out")" = 2
}

ref "$TMP/jacobi.ref" 2 "$JP" -n 300 -i 300 -s 5
# CG carries r'r from one iteration to the next; -t 0 runs all 300 iterations.
ref "$TMP/cg.ref" 2 "$CP" -g poisson3d:12 -t 0 -i 300
for policy in balance-all balance-occupied; do
    malleable jacobi "$TMP/jacobi.ref" "$policy" "$J" -n 300 -i 300 -s 5
    malleable cg "$TMP/cg.ref" "$policy" "$C" -g poisson3d:12 -t 0 -i 300
done

# The load balancer across hosts: one process per host, xmpi-h3 a half-speed class, thresholds
# that make it move rows. The verdict must not hang on the machine's load: the library's
# dilation makes the slow class's computing twice as long whatever else runs (a CPU quota only
# slows a process that computes for longer than its 10 ms period, and these iterations take
# well under a millisecond). The quota is checked on its own run below.
printf 'xmpi-h1:node:2:1\nxmpi-h2:node:2:1\nxmpi-h3:slow:2:1:0.5\n' >"$TMP/pool-slow"
ref "$TMP/jacobi3.ref" 3 "$JP" -n 600 -i 120 -s 5
same3() { # same3 OUT: OUT's checksum is the single-host 3-process run's
    test -n "$(field checksum "$TMP/jacobi3.ref")" -a "$(field checksum "$TMP/jacobi3.ref")" = "$(field checksum "$1")"
}
tbrun "$TMP/lb.out" -np 3 "${PER_HOST[@]}" "$J" -n 600 -i 120 -s 5 -b --xmpi-si=10 \
    --xmpi-lb-th1=0 --xmpi-lb-k=1 "--xmpi-resources=$TMP/pool-slow" --xmpi-emulate=dilate \
    --xmpi-yield=on --xmpi-verbose=1 "--xmpi-trace=$TMP/lb.csv"
rc=$?
check "jacobi -b on 3 hosts: exits 0" test $rc = 0
[ $rc = 0 ] || tail -8 "$TMP/lb.out" "$TMP/lb.out.err" | sed 's/^/#   /'
rebalances=$(grep -Ec ',([a-z]+[+])*rebalance([+][a-z]+)*,' "$TMP/lb.csv" 2>/dev/null)
check "jacobi -b on 3 hosts: rows moved across hosts (${rebalances:-0} interval(s) after a rebalance)" \
    test "${rebalances:-0}" -gt 0
# Rank 2 runs on xmpi-h3 (one process per host, in order).
rows=$(field rows "$TMP/lb.out")
check "jacobi -b on 3 hosts: the slow host's rank ends with the fewest rows (rows=${rows:-none})" \
    awk -v r="$rows" 'BEGIN { n = split(r, a, ","); exit !(n == 3 && a[3] + 0 < a[1] + 0 && a[3] + 0 < a[2] + 0) }'
check "jacobi -b on 3 hosts: the single-host 3-process run's checksum" same3 "$TMP/lb.out"
# The testbed mounts the machine's cgroups inside each host, so the quota applies there too.
if [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] || grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    tbrun "$TMP/quota.out" -np 3 "${PER_HOST[@]}" "$J" -n 600 -i 120 -s 5 -b --xmpi-si=10 \
        "--xmpi-resources=$TMP/pool-slow" --xmpi-emulate=quota --xmpi-yield=on
    rc=$?
    check "jacobi -b on 3 hosts, --xmpi-emulate=quota: exits 0 with the single-host run's checksum" \
        test $rc = 0 -a "$(same3 "$TMP/quota.out" && echo same)" = same
    check "jacobi -b on 3 hosts: the slow class's CPU quota applied on xmpi-h3" \
        test "$(cat "$TMP/quota.out" "$TMP/quota.out.err" | grep -c 'emulated class speeds are not applied')" = 0
else
    ok "jacobi -b on 3 hosts: the slow class's CPU quota applied on xmpi-h3 # SKIP this machine has no cgroup cpu controller"
fi

# Nothing of these runs outlives them.
left=
for h in $HOSTS; do left="$left$(ip netns pids "$h" | tr '\n' ' ')"; done
check "no process left on the test hosts${left:+ (pids $left)}" test -z "$left"

echo "check-cluster: $passed passed, $failed failed"
[ "$failed" = 0 ]
