#!/usr/bin/env bash
# Measures libxmpi's overhead: the Jacobi benchmark with the library against the same code on plain MPI.
# Usage: scripts/bench-overhead.sh BUILD_DIR   (BUILD_DIR holds jacobi and jacobi-plain)
#
# Knobs (environment): PAIRS=7 ORDER=5000 ITERS=300 NP=2 MPIRUN=mpirun MPIRUN_FLAGS=""
#   QUIET=2   a run counts as undisturbed when its ranks were off their CPU (preempted by other
#             programs) for at most QUIET percent of its timed region
#   SLOW=5    ... and when its median iteration is at most SLOW percent slower than the fastest
#             median among the runs of the same build (a slower CPU: contention outside the
#             VM, which the guest does not see as time off the CPU)
# ORDER 5000 keeps one iteration above ~10 ms on 2 ranks, so per-iteration library costs
# are measured against real work rather than against loop overhead.
#
# The library only adds work, so the xmpi build can never be faster than the plain one. The
# script therefore does not stop at the ratio: it checks that the two builds' timed regions did
# the same work with the same memory behaviour on the same CPUs (the timed: line jacobi prints),
# that the machine left the runs alone, and it splits the difference into the first iteration
# (the library's start-up inside the first monitored iteration), the steady per-iteration cost
# and the rest. "target met" comes only from a fair, undisturbed comparison.
set -euo pipefail

PAIRS=${PAIRS:-7}
ORDER=${ORDER:-5000}
ITERS=${ITERS:-300}
NP=${NP:-2}
QUIET=${QUIET:-2}
SLOW=${SLOW:-5}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_FLAGS=${MPIRUN_FLAGS:-}
TARGET=0.5       # percent
FAULT_LIMIT=256  # page faults per rank inside the timed region (1 MiB of fresh 4 KiB pages)

die() { echo "bench-overhead: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 BUILD_DIR (the directory holding jacobi and jacobi-plain)"
build=$1
for b in jacobi jacobi-plain; do
    [ -x "$build/$b" ] || die "$build/$b is missing or not executable; build it first"
done
for v in PAIRS ORDER ITERS NP QUIET SLOW; do
    case ${!v} in
        '' | *[!0-9]* | 0*) die "$v must be a positive integer, got '${!v}'" ;;
    esac
done
[ "$ITERS" -ge 3 ] || die "ITERS must be at least 3 (first iteration, then a median of the others)"

if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The library reads XMPI_* variables as options (a resource file with emulated speeds, another
# sampling interval, a trace...): the xmpi runs must use the defaults the figure describes.
xmpi_env=$(env | sed -n 's/^\(XMPI_[A-Za-z0-9_]*\)=.*/\1/p' | tr '\n' ' ')
for v in $xmpi_env; do unset "$v"; done
mca_env=$(env | sed -n 's/^\(OMPI_MCA_[A-Za-z0-9_]*=.*\)/\1/p' | tr '\n' ' ')

read -r -a mpirun_cmd <<<"$MPIRUN"
read -r -a mpirun_flags <<<"$MPIRUN_FLAGS"
[ ${#mpirun_cmd[@]} -gt 0 ] || die "MPIRUN is empty"

errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT

checksum=          # the first run's; every later run must match it
# Set by run: the result's time=, the timed: line's fields, the whole run's wall time.
r_time='' r_first='' r_steady='' r_off='' r_faults='' r_waits='' r_cpus='' r_iters='' r_whole=''

# field NAME LINE: NAME=value from a key=value line.
field() { printf '%s\n' "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# run BINARY LIBRARY: one benchmark run; sets the r_ variables, dies on any failure.
run() {
    local bin=$1 lib=$2 out rc=0 result timed start end
    start=$EPOCHREALTIME
    out=$(timeout 600 "${mpirun_cmd[@]}" "${mpirun_flags[@]}" -np "$NP" "$build/$bin" \
              -n "$ORDER" -i "$ITERS" 2>"$errlog") || rc=$?
    end=$EPOCHREALTIME
    if [ $rc -ne 0 ]; then
        [ $rc -eq 124 ] && echo "bench-overhead: $bin timed out after 600 s" >&2
        printf '%s\n' "$out" >&2
        cat "$errlog" >&2
        die "$bin failed (exit status $rc)"
    fi
    # A swapped pair of binaries would silently report the inverse ratio.
    if ! printf '%s\n' "$out" | grep -q "^jacobi: .*, library $lib\$"; then
        printf '%s\n' "$out" >&2
        die "$build/$bin does not report 'library $lib'"
    fi
    result=$(printf '%s\n' "$out" | grep '^result: ' | tail -n 1)
    [ -n "$result" ] || { printf '%s\n' "$out" >&2; cat "$errlog" >&2; die "$bin printed no result line"; }
    timed=$(printf '%s\n' "$out" | grep '^timed: ' | tail -n 1)
    [ -n "$timed" ] || die "$bin printed no timed: line (rebuild it: make $build/$bin)"

    local sum
    sum=$(field checksum "$result")
    r_time=$(field time "$result")
    if [ -z "$sum" ] || [ -z "$r_time" ]; then die "cannot parse the result line of $bin: $result"; fi
    r_iters=$(field iterations "$timed")
    r_first=$(field first "$timed")
    r_steady=$(field steady "$timed")
    r_off=$(field offcpu "$timed")
    r_faults=$(field faults "$timed")
    r_waits=$(field waits "$timed")
    r_cpus=$(printf '%s\n' "$timed" | sed -n 's/.* cpus=\(.*\)$/\1/p')
    for v in r_iters r_first r_steady r_off r_faults r_waits r_cpus; do
        [ -n "${!v}" ] || die "cannot parse ${v#r_} from the timed: line of $bin: $timed"
    done
    r_whole=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')

    if [ -z "$checksum" ]; then
        checksum=$sum
    elif [ "$sum" != "$checksum" ]; then
        die "CHECKSUM MISMATCH: $bin printed $sum, an earlier run printed $checksum; the builds compute different x"
    fi
    awk -v t="$r_time" 'BEGIN { exit !(t > 0) }' || die "$bin reported time $r_time, too short to compare; raise ORDER or ITERS"
}

# Per-pair records, index k-1.
P_time=() X_time=() P_first=() X_first=() P_steady=() X_steady=() P_off=() X_off=()
P_faults=() X_faults=() P_waits=() X_waits=() P_whole=() X_whole=() ratios=() quiet=()
unfair=()   # reasons, each once
note_unfair() {
    local r
    for r in "${unfair[@]}"; do [ "$r" = "$1" ] && return 0; done
    unfair+=("$1")
}

# keep_run p|x: stores the r_ variables of the last run and checks what must match.
cpus_seen=
keep_run() {
    local s=$1 B
    B=$(printf '%s' "$s" | tr px PX)
    eval "${B}_time+=(\"$r_time\") ${B}_first+=(\"$r_first\") ${B}_steady+=(\"$r_steady\")"
    eval "${B}_off+=(\"$r_off\") ${B}_faults+=(\"$r_faults\") ${B}_waits+=(\"$r_waits\") ${B}_whole+=(\"$r_whole\")"
    [ "$r_iters" = "$ITERS" ] ||
        note_unfair "a $s run timed $r_iters iterations, not $ITERS: the builds did different work"
    [ "${r_faults%.*}" -le "$FAULT_LIMIT" ] ||
        note_unfair "a $s run took $r_faults page faults inside the timed region (limit $FAULT_LIMIT per rank): fresh memory is first touched while the clock runs"
    if [ -z "$cpus_seen" ]; then
        cpus_seen=$r_cpus
    elif [ "$r_cpus" != "$cpus_seen" ]; then
        note_unfair "the ranks ran on different CPUs ($cpus_seen, then $r_cpus in a $s run): different placement"
    fi
}

# off_pct TIME OFFCPU: percent of the timed region the ranks spent off their CPU.
off_pct() { awk -v t="$1" -v o="$2" 'BEGIN { printf "%.1f", 100 * o / t }'; }

echo "bench-overhead: $PAIRS pairs, order $ORDER, $ITERS iterations, $NP ranks, ${MPIRUN}${MPIRUN_FLAGS:+ $MPIRUN_FLAGS}"
cat <<EOF
timed (time=, both builds): the $ITERS iterations only, from the barrier after set-up to the end of
  the last iteration, slowest rank. Each iteration: one Jacobi sweep over this rank's rows, an
  MPI_Allgatherv of x and an MPI_Allreduce; in the xmpi build also XMPI_Monitor_iter_begin,
  add_work and iter_end, the profiling wrappers of both MPI calls, an interval gather every
  100 iterations, and in the first iteration the library's monitor start-up (PAPI).
not timed: mpirun, MPI_Init (with the library's start-up in the xmpi build), generating A and b
  (their first touch: $(awk -v n="$ORDER" -v p="$NP" 'BEGIN { printf "%.0f", n * n * 8 / p / 1048576 }') MiB per rank of fresh pages), the residual, MPI_Finalize. The whole-run
  column (mpirun to exit) includes them and is not the target figure.
EOF
[ -z "$xmpi_env" ] || echo "environment: unset for the runs (the xmpi build reads them as options): $xmpi_env"
[ -z "$mca_env" ] || echo "environment: Open MPI settings in force for both builds: $mca_env"

# The first runs pay for cold caches and page faults in the binaries and MPI; keep that out of pair 1.
run jacobi-plain plain; wp=$r_time
run jacobi xmpi;        wx=$r_time
printf 'warm-up: plain %.6f s, xmpi %.6f s (not counted)\n' "$wp" "$wx"

cat <<EOF
columns: solve time (time=) of each build and their ratio; first: the first iteration; steady: the
  median of the others; off-CPU: the ranks' time off their CPU in the timed region (preempted or
  blocked, summed over ranks) in % of the solve time; faults: page faults in the timed region and
  waits: blocking calls there (worst rank); whole: mpirun to exit. p/x: plain/xmpi. A pair is
  disturbed when either run was off-CPU more than $QUIET%, or (marked after the last pair) its
  steady iteration was more than $SLOW% slower than the fastest of its build; only undisturbed
  pairs are judged.
EOF
printf '%-7s %10s %10s %7s  %-12s %-12s %-13s %-8s %-7s %s\n' "pair" "plain s" "xmpi s" "ratio" \
    "first ms" "steady ms" "off-CPU %" "faults" "waits" "whole s"
for ((k = 1; k <= PAIRS; k++)); do
    # Alternating the order cancels drift (thermal, page cache, noisy neighbours) across pairs.
    if ((k % 2)); then
        run jacobi-plain plain; keep_run p
        run jacobi xmpi;        keep_run x
        first=plain
    else
        run jacobi xmpi;        keep_run x
        run jacobi-plain plain; keep_run p
        first=xmpi
    fi
    i=$((k - 1))
    ratio=$(awk -v p="${P_time[i]}" -v x="${X_time[i]}" 'BEGIN { printf "%.4f", x / p }')
    ratios+=("$ratio")
    op=$(off_pct "${P_time[i]}" "${P_off[i]}")
    ox=$(off_pct "${X_time[i]}" "${X_off[i]}")
    if awk -v a="$op" -v b="$ox" -v q="$QUIET" 'BEGIN { exit !(a <= q && b <= q) }'; then
        quiet+=(1); mark=
    else
        quiet+=(0); mark=" disturbed"
    fi
    printf '%-7s %10.6f %10.6f %7s  %-12s %-12s %-13s %-8s %-7s %s%s\n' "$k/$PAIRS" "${P_time[i]}" "${X_time[i]}" \
        "$ratio" \
        "$(awk -v a="${P_first[i]}" -v b="${X_first[i]}" 'BEGIN { printf "%.1f/%.1f", 1e3 * a, 1e3 * b }')" \
        "$(awk -v a="${P_steady[i]}" -v b="${X_steady[i]}" 'BEGIN { printf "%.2f/%.2f", 1e3 * a, 1e3 * b }')" \
        "$op/$ox" "${P_faults[i]}/${X_faults[i]}" "${P_waits[i]}/${X_waits[i]}" "${P_whole[i]}/${X_whole[i]}" \
        "$mark ($first first)"
done

# stats VALUES...: "median lo hi coverage" of the values, lo and hi the order statistics that
# bracket the median with at least 80% confidence whatever the distribution (sign test), or
# the extremes when there are too few values for that (coverage then says how much they hold).
stats() {
    printf '%s\n' "$@" | sort -g | awk '
        { v[NR] = $1 }
        END {
            n = NR
            m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            # [v(k), v(n+1-k)] holds the median with probability 1 - 2 P(X <= k-1), X ~ B(n, 1/2):
            # the largest k for which that is at least 80%, else k = 1.
            k = 1; p = 0.5 ^ n; cum = 0
            for (j = 0; j < n; j++) {
                if (j > 0) p = p * (n - j + 1) / j
                cum += p
                if (2 * cum <= 0.2 && j + 1 <= (n + 1) / 2) { k = j + 1; tail = cum } else break
            }
            if (k == 1) tail = 0.5 ^ n
            cov = 1 - 2 * tail
            printf "%.4f %.4f %.4f %.0f\n", m, v[k], v[n + 1 - k], 100 * cov
        }'
}

# A run whose iterations were slower than other runs of the same binary ran on a slower CPU:
# the library's cost is the same in every xmpi run, so it cancels out of this comparison.
slow_runs() { # slow_runs P|X: "k:percent" for each pair whose run of that build was slowed
    local B=$1 arr fastest i
    eval "arr=(\"\${${B}_steady[@]}\")"
    fastest=$(printf '%s\n' "${arr[@]}" | sort -g | head -n 1)
    for ((i = 0; i < PAIRS; i++)); do
        awk -v s="${arr[i]}" -v f="$fastest" -v q="$SLOW" 'BEGIN { exit !(s > f * (1 + q / 100)) }' &&
            printf '%d:%s ' "$((i + 1))" "$(awk -v s="${arr[i]}" -v f="$fastest" 'BEGIN { printf "+%.1f%%", 100 * (s / f - 1) }')"
    done
    return 0
}
for B in P X; do
    sr=$(slow_runs "$B")
    [ -n "$sr" ] || continue
    name=$([ "$B" = P ] && echo plain || echo xmpi)
    echo "slowed: the $name run of pair(s) ${sr% } (steady iteration over the fastest $name run): disturbed"
    for e in $sr; do quiet[${e%%:*} - 1]=0; done
done

# Pairs in which neither run was disturbed decide; the rest are shown but do not count.
qi=()
for ((i = 0; i < PAIRS; i++)); do [ "${quiet[i]}" = 1 ] && qi+=("$i"); done
nq=${#qi[@]}
need=$(((PAIRS + 1) / 2)); [ "$need" -lt 3 ] && need=3

echo "checksums: all $((2 * PAIRS + 2)) runs (warm-up included) printed $checksum"
read -r m_all lo_all hi_all cov_all <<<"$(stats "${ratios[@]}")"
pct() { awk -v r="$1" 'BEGIN { printf "%+.2f%%", (r - 1) * 100 }'; }
echo "all pairs: median ratio xmpi/plain = $m_all ($(pct "$m_all")), ${cov_all}% band $lo_all-$hi_all"
wr=()
for ((i = 0; i < PAIRS; i++)); do
    wr+=("$(awk -v p="${P_whole[i]}" -v x="${X_whole[i]}" 'BEGIN { printf "%.4f", x / p }')")
done
read -r m_w lo_w hi_w cov_w <<<"$(stats "${wr[@]}")"
echo "whole runs (mpirun to exit; not the target figure, start-up included): median ratio $m_w, ${cov_w}% band $lo_w-$hi_w"

# A pair's difference xmpi - plain, split: first iteration (one-off), steady state times the
# other iterations (per-iteration cost), the rest (the interval gathers, and disturbances).
explain() {
    local idx=("$@") d_time=() d_first=() d_steady=() d_rest=() d_off=() i
    for i in "${idx[@]}"; do
        d_time+=("$(awk -v a="${X_time[i]}" -v b="${P_time[i]}" 'BEGIN { printf "%.6f", a - b }')")
        d_first+=("$(awk -v a="${X_first[i]}" -v b="${P_first[i]}" 'BEGIN { printf "%.6f", a - b }')")
        d_steady+=("$(awk -v a="${X_steady[i]}" -v b="${P_steady[i]}" -v n="$ITERS" 'BEGIN { printf "%.6f", (n - 1) * (a - b) }')")
        d_off+=("$(awk -v a="${X_off[i]}" -v b="${P_off[i]}" 'BEGIN { printf "%.6f", a - b }')")
        d_rest+=("$(awk -v t="${d_time[-1]}" -v f="${d_first[-1]}" -v s="${d_steady[-1]}" 'BEGIN { printf "%.6f", t - f - s }')")
    done
    local mt mf ms mr mo
    mt=$(stats "${d_time[@]}" | cut -d' ' -f1)
    mf=$(stats "${d_first[@]}" | cut -d' ' -f1)
    ms=$(stats "${d_steady[@]}" | cut -d' ' -f1)
    mr=$(stats "${d_rest[@]}" | cut -d' ' -f1)
    mo=$(stats "${d_off[@]}" | cut -d' ' -f1)
    local mp
    mp=$(printf '%s\n' "${idx[@]}" | while read -r i; do echo "${P_steady[i]}"; done | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    awk -v t="$mt" -v f="$mf" -v s="$ms" -v r="$mr" -v o="$mo" -v n="$ITERS" -v ps="$mp" 'BEGIN {
        printf "difference xmpi - plain (medians over these pairs): %+.1f ms of the solve time\n", 1e3 * t
        printf "  first iteration: %+.1f ms  (one-off: the library starts its monitor, PAPI included, in the first\n", 1e3 * f
        printf "                   XMPI_Monitor_iter_begin; plain has nothing to start)\n"
        printf "  steady state:    %+.1f ms  (%d iterations x %+.2f us per iteration, %+.3f%% of a %.2f ms iteration)\n", 1e3 * s, n - 1, 1e6 * s / (n - 1), 100 * s / (n - 1) / ps, 1e3 * ps
        printf "  the rest:        %+.1f ms  (interval gathers every 100 iterations, and the machine: the ranks were\n", 1e3 * r
        printf "                   off their CPU %+.1f ms more in xmpi than in plain)\n", 1e3 * o
    }'
    local wp wx
    wp=$(for i in "${idx[@]}"; do echo "${P_waits[i]}"; done | sort -g | tail -n 1)
    wx=$(for i in "${idx[@]}"; do echo "${X_waits[i]}"; done | sort -g | tail -n 1)
    if [ "$wx" -gt "$((wp + 2))" ]; then
        echo "  note: xmpi blocked up to $wx times in the timed region (plain $wp): that off-CPU time is the"
        echo "        library's own cost, yet it makes xmpi runs look disturbed"
    fi
    PLAIN_STEADY=$mp
}

verdict=
reasons=()
if [ ${#unfair[@]} -gt 0 ]; then
    reasons=("${unfair[@]}")
    verdict="not judged: the comparison is unfair"
elif [ "$nq" -lt "$need" ]; then
    worst=0
    for ((i = 0; i < PAIRS; i++)); do
        worst=$(awk -v w="$worst" -v a="$(off_pct "${P_time[i]}" "${P_off[i]}")" -v b="$(off_pct "${X_time[i]}" "${X_off[i]}")" \
            'BEGIN { m = w; if (a > m) m = a; if (b > m) m = b; print m }')
    done
    reasons=("only $nq of $PAIRS pairs ran undisturbed (ranks off their CPU at most $QUIET% of the timed region, worst run $worst%; steady iteration within $SLOW% of the build's fastest), $need needed: other programs took the CPUs, and that moves single runs by far more than the target")
    verdict="not judged: the machine was busy"
fi

PLAIN_STEADY=
if [ "$nq" -gt 0 ]; then
    qr=() qc=()
    for i in "${qi[@]}"; do
        qr+=("${ratios[i]}")
        qc+=("$(awk -v p="${P_time[i]}" -v po="${P_off[i]}" -v x="${X_time[i]}" -v xo="${X_off[i]}" \
            'BEGIN { printf "%.4f", (x - xo) / (p - po) }')")
    done
    read -r m lo hi cov <<<"$(stats "${qr[@]}")"
    read -r mc loc hic _ <<<"$(stats "${qc[@]}")"
    percent=$(pct "$m")
    echo "undisturbed pairs ($nq): median ratio xmpi/plain = $m ($percent), ${cov}% band $lo-$hi"
    echo "  the same with each run's time off the CPU taken out: $mc ($(pct "$mc")), band $loc-$hic"
    explain "${qi[@]}"
    if [ -z "$verdict" ]; then
        # Judged on both bands together: the verdict must hold with or without that correction.
        lo=$(awk -v a="$lo" -v b="$loc" 'BEGIN { print (a < b ? a : b) }')
        hi=$(awk -v a="$hi" -v b="$hic" 'BEGIN { print (a > b ? a : b) }')
        half=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.2f", 50 * (b - a) }')
        if awk -v h="$hi" -v t="$TARGET" 'BEGIN { exit !(h < 1 - t / 100) }'; then
            verdict="not judged: xmpi is faster than plain beyond the noise"
            reasons=("the bands together, $lo-$hi, lie below 1 - $TARGET%, and the library only adds work (see the first iteration and the steady state above): something other than the library differs between the runs; compare the timed: figures of the two builds")
        elif awk -v l="$lo" -v h="$hi" -v t="$TARGET" 'BEGIN { exit !(l >= 1 - t / 100 && h <= 1 + t / 100) }'; then
            verdict="met"
            reasons=("median $percent; both bands together span $lo-$hi, within +-$TARGET%")
        elif awk -v l="$lo" -v t="$TARGET" 'BEGIN { exit !(l > 1 + t / 100) }'; then
            verdict="missed"
            reasons=("both bands together, $lo-$hi, lie above 1 + $TARGET%")
        else
            verdict="not shown"
            reasons=("median $percent, but the bands together span $lo-$hi (noise +-$half%), beyond +-$TARGET%; more PAIRS on a quieter machine narrow it")
        fi
    fi
else
    echo "undisturbed pairs: none"
fi
echo "target <= $TARGET%: $verdict"
for r in "${reasons[@]}"; do echo "  - $r"; done
echo "(figures from a shared machine are indicative only; each pair's first, steady, off-CPU and fault"
echo " columns show what moved it)"

# Run-to-run noise on a shared machine is often larger than the target, so also bound the
# library's cost directly: per profiled call and per monitored iteration, measured in one
# process (overhead-micro), applied to Jacobi's 2 profiled calls per iteration.
if [ -x "$build/overhead-micro" ]; then
    micro=$(timeout 300 "${mpirun_cmd[@]}" "${mpirun_flags[@]}" -np "$NP" "$build/overhead-micro" 2>"$errlog") ||
        die "overhead-micro failed: $(cat "$errlog")"
    printf '%s\n' "$micro"
    wrap=$(printf '%s\n' "$micro" | sed -n 's/^micro: wrapper \([0-9.-]*\) ns.*/\1/p')
    mon=$(printf '%s\n' "$micro" | sed -n 's/^micro: monitor \([0-9.-]*\) ns.*/\1/p')
    iter=${PLAIN_STEADY:-$(printf '%s\n' "${P_steady[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')}
    awk -v w="$wrap" -v m="$mon" -v it="$iter" 'BEGIN {
        c = (m + 2 * w) * 1e-9
        printf "estimate: library cost %.2f us per Jacobi iteration (monitor + 2 profiled calls) = %.4f%% of a %.2f ms iteration\n", c * 1e6, 100 * c / it, it * 1e3 }'
fi
