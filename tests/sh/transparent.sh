# Transparency to programs that use dynamic processes themselves: a plain MPI program linked
# with the library spawns a child of its own and connects to it through a port (as MPICH's
# spawn/spaconacc does). The library takes only the processes it spawned into a job (its mark,
# libxmpi/world.h): the child starts with a plain MPI_Init and the job ends, where before it
# waited inside the library's MPI_Init for a join its parent never offered.
. "$(dirname "$0")/lib.sh"
require_spawn "a plain program's own MPI_Comm_spawn and MPI_Comm_connect/accept"
P="$ROOT/$BUILD/tests/plain_spawn"
SPAWN_TIMEOUT=40 launch_retry "$TMP/out" -np 1 "$P"
rc=$?
grep -E '^(not )?ok - ' "$TMP/out"
check "the plain spawning program exits 0 (no hang)" test $rc = 0
[ $rc = 0 ] || sed 's/^/#   /' "$TMP/out.err" | tail -5
check "6 checks reported by the parent" test "$(grep -c "^ok - " "$TMP/out")" = 6
left=$(leftovers "$P")
check "no process left behind${left:+ (pids $left)}" test -z "$left"
