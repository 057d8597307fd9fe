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
