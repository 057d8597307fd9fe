#!/usr/bin/env bash
# `make bench-redist`: XMPI_Redistribute_data throughput against a bare MPI_Alltoallv and memcpy,
# the cost of growing 2 -> 3 with a registered matrix, and a move of more than INT_MAX elements.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN="$BUILD/bin/xmpi-redistbench"
REPS=${REPS:-10}
SIZES=${SIZES:-64,128,256,512}
out=$(mktemp)
try=$(mktemp)
trap 'rm -f "$out" "$try"' EXIT
failed=()
if [ ! -x "$BIN" ]; then
    echo "bench-redist: $BIN is missing; run it through make bench-redist" >&2
    exit 1
fi

echo "bench-redist: $(date '+%Y-%m-%d %H:%M:%S'), host $(hostname), $(nproc) cores," \
     "$("${MPIRUN:-mpirun}" --version 2>/dev/null | head -n 1)"

# phase NAME LIMIT ARGS...: one mpirun under a timeout. A rare hang of a spawned process inside
# PMIx (Open MPI 4.1 + PMIx 4, openpmix 2735) ends in the timeout's 124; that alone is retried.
phase() {
    local name=$1 limit=$2 rc
    shift 2
    for attempt in 1 2; do
        echo
        XMPIRUN_TIMEOUT=$limit "$ROOT/scripts/xmpirun" -np 2 "$BIN" "$@" 2>&1 | tee "$try"
        rc=${PIPESTATUS[0]}
        if [ "$rc" = 124 ] || [ "$rc" = 137 ] && [ $attempt = 1 ]; then
            echo "bench-redist: $name timed out after $limit s (exit $rc); retrying once"
            continue
        fi
        # Only the attempt that counts adds its summary lines.
        sed "s/^summary: /summary: ${TAG:+$TAG: }/" "$try" >> "$out"
        [ "$rc" = 0 ] && return 0
        echo "bench-redist: $name failed (exit $rc$([ "$rc" = 124 ] && echo ", timed out twice"))"
        failed+=("$name")
        return 1
    done
}

phase throughput 900 -s "$SIZES" -r "$REPS"
# The same large moves with a spare that holds a whole block (--xmpi-redist-spare, default 64
# MiB): what reusing the memory gives where the default keeps too little. BIG_SPARE=0 skips it.
BIG_SPARE=${BIG_SPARE:-512}
if [ "$BIG_SPARE" != 0 ]; then
    TAG="spare $BIG_SPARE MiB" phase "throughput, spare $BIG_SPARE MiB" 600 -s 256,512 -k dense,csr \
        -r "$REPS" --xmpi-redist-spare="$BIG_SPARE"
fi
phase "grow 2->3" 120 --grow --xmpi-oversubscribe
if [ "${LIBXMPI_BENCH_LARGE:-1}" = 0 ]; then
    echo
    echo "summary: large counts: skipped (LIBXMPI_BENCH_LARGE=0)" | tee -a "$out"
else
    phase "large counts" 180 --large
fi

echo
echo "== summary (bench-redist; A = XMPI_Redistribute_data, B = bare MPI_Alltoallv into a fresh"
echo "   buffer; A', B' = the same in the phase with touched buffers only; ratios are throughput"
echo "   ratios, medians over the sizes)"
sed -n 's/^summary: //p' "$out"
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}"
    exit 1
fi
echo "all phases passed"
