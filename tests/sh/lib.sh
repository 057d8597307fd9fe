# Shared helpers for the shell tests: TAP output and running MPI jobs under a timeout.
BUILD=${1:-build}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
LAUNCH="$ROOT/scripts/xmpirun"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() { local d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }

# launch_retry OUT COMMAND...: runs an MPI job that spawns processes under a shorter limit and,
# only if it timed out, once more. A rare hang inside PMIx_Init of a spawned process is a known
# Open MPI 4.1 + PMIx 4.x bug (openpmix issue 2735); a deadlock of our own hangs both times.
# Set RETRY_HOOK to a command that resets the test's files before each attempt.
launch_retry() {
    local out=$1; shift
    local rc
    for attempt in 1 2; do
        [ -n "${RETRY_HOOK:-}" ] && eval "$RETRY_HOOK"
        XMPIRUN_TIMEOUT=${SPAWN_TIMEOUT:-60} "$LAUNCH" "$@" >"$out" 2>"$out.err"
        rc=$?
        [ $rc -ne 124 ] && return $rc
        echo "# attempt $attempt of '$*' timed out (known Open MPI 4.1 + PMIx 4.x spawn hang?)"
    done
    return $rc
}

# require_spawn WHAT: ends the test with an explicit skip when tests/run.sh found that this MPI
# cannot spawn processes (run on its own, the test assumes it can).
require_spawn() {
    if [ "${LIBXMPI_TEST_SPAWN:-yes}" = no ]; then
        echo "ok - $1 # SKIP this MPI library cannot spawn processes"
        exit 0
    fi
}

# leftovers PROG: processes of PROG still running a second after the job ended. Spawned
# processes run PROG with the program's own options, so its path starts their command line.
leftovers() {
    local pids
    for _ in 1 2 3 4 5; do
        pids=$(pgrep -f "^$1 " | tr '\n' ' ')
        [ -z "$pids" ] && return 0
        sleep 0.2
    done
    echo "$pids"
}
