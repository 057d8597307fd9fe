# Sourced by tests/cluster/run.sh and tests/slurm/run.sh (which define skip, TB and TMP).
# testbed_up PROBE: SKIP where this machine cannot make network namespaces, veths and bridges at
# all; once it can, a testbed of 3 hosts that does not come up is a failure (exit 1).
testbed_up() {
    local probe=$1 err   # interface names have at most 15 characters
    if ! err=$( { ip netns add "$probe" && ip link add "$probe" type bridge &&
                  ip link add "${probe}v" type veth peer name eth0 netns "$probe"; } 2>&1); then
        ip link del "$probe" 2>/dev/null; ip netns del "$probe" 2>/dev/null
        skip "network namespaces, veths or bridges cannot be created here: $err"
    fi
    ip link del "${probe}v" 2>/dev/null; ip link del "$probe"; ip netns del "$probe"
    if ! "$TB" up 3 >"$TMP/up.log" 2>&1; then
        echo "not ok - scripts/testbed up 3"
        sed 's/^/#   /' "$TMP/up.log"
        exit 1
    fi
}
