#!/usr/bin/env bash
# make bench-overhead: what linking libxmpi and calling its monitor costs a program that never
# reconfigures. Each example program (Jacobi, CG, the epidemic) runs in its library build and in
# its plain-MPI build from the same source, alternated pair by pair, and the steady iteration
# (the median iteration after the first, the slowest rank's) of the two builds is compared.
#
# usage: scripts/bench-overhead.sh BIN_DIR   (BIN_DIR holds jacobi, jacobi-plain, cg, ...)
# Knobs (environment):
#   PROGRAMS="jacobi cg epidemic"  which programs
#   PAIRS=7        alternated pairs per program (plain first in odd pairs, xmpi first in even)
#   NP=2           ranks
#   QUIET=2        a pair is disturbed when a run's ranks were off their CPU (preempted by other
#                  programs) more than QUIET percent of its timed region; see "disturbed" below
#   JACOBI_ARGS, CG_ARGS, EPIDEMIC_ARGS   each program's problem (defaults below)
#   MPIRUN=mpirun  MPIRUN_FLAGS=""
#
# Target (issue 44): library build / plain build, steady iteration, median of the pairs <= 1.005
# and no pair above 1.02, for every program.
#
# What can and cannot excuse a pair. Only evidence that does not depend on the build being
# judged: a run whose ranks were off their CPU (wall minus thread CPU time) more than QUIET% was
# preempted by other programs. The library never blocks a rank in these runs (the MPI calls
# poll), so this does not hide a cost of its own; and when the library build's runs were off
# their CPU more than the plain runs in every pair, nothing is excused at all. A build that is
# slower in every pair is reported as slower, whatever the machine did.
#
# Both builds are compiled with the same hot-loop alignment (the Makefile's EXAMPLE_CFLAGS,
# -falign-loops=32): without it the library build's extra calls moved Jacobi's inner loop
# across a 32-byte boundary and it ran 10-25% slower for a reason that is not the library's
# (docs/benchmarks.md).
set -euo pipefail

PROGRAMS=${PROGRAMS:-jacobi cg epidemic}
PAIRS=${PAIRS:-7}
NP=${NP:-2}
QUIET=${QUIET:-2}
JACOBI_ARGS=${JACOBI_ARGS:--n 5000 -i 300}
CG_ARGS=${CG_ARGS:--g poisson3d:70 -i 400 -t 0}
EPIDEMIC_ARGS=${EPIDEMIC_ARGS:--n 1000000 -d 150}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_FLAGS=${MPIRUN_FLAGS:-}
TARGET_MEDIAN=1.005
TARGET_PAIR=1.02

die() { echo "bench-overhead: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 BIN_DIR (the directory holding jacobi, jacobi-plain, cg, ...)"
bin=$1
for v in PAIRS NP QUIET; do
    case ${!v} in '' | *[!0-9]* | 0*) die "$v must be a positive integer, got '${!v}'" ;; esac
done
for p in $PROGRAMS; do
    case $p in jacobi | cg | epidemic) ;; *) die "PROGRAMS: unknown program '$p'; accepted: jacobi cg epidemic" ;; esac
    for b in "$p" "$p-plain"; do [ -x "$bin/$b" ] || die "$bin/$b is missing or not executable; run make first"; done
done
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The library reads XMPI_* variables as options: the runs must use the defaults.
for v in $(env | sed -n 's/^\(XMPI_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
read -r -a mpirun_cmd <<<"$MPIRUN"
read -r -a mpirun_flags <<<"$MPIRUN_FLAGS"
errlog=$(mktemp)
trap 'rm -f "$errlog"' EXIT

field() { printf '%s\n' "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# run PROGRAM BUILD ARGS: one run; sets r_steady r_p10 r_p90 r_time r_off r_faults r_iters r_sum.
run() {
    local prog=$1 build=$2 args=$3 exe out rc=0 result timed
    exe=$prog; [ "$build" = plain ] && exe=$prog-plain
    # shellcheck disable=SC2086  # ARGS are words on purpose
    out=$(timeout 600 "${mpirun_cmd[@]}" "${mpirun_flags[@]}" -np "$NP" "$bin/$exe" $args 2>"$errlog") || rc=$?
    if [ $rc -ne 0 ]; then
        printf '%s\n' "$out" >&2; cat "$errlog" >&2
        die "$exe $args failed (exit status $rc$([ $rc -eq 124 ] && echo ', timed out after 600 s'))"
    fi
    printf '%s\n' "$out" | grep -q "library $build\$" || die "$bin/$exe does not say 'library $build': swapped binaries?"
    result=$(printf '%s\n' "$out" | grep '^result: ' | tail -n 1)
    timed=$(printf '%s\n' "$out" | grep '^timed: ' | tail -n 1)
    [ -n "$result" ] && [ -n "$timed" ] || die "$exe printed no result: or timed: line (rebuild it with make)"
    r_sum=$(field checksum "$result"); r_time=$(field time "$result")
    r_steady=$(field steady "$timed"); r_p10=$(field p10 "$timed"); r_p90=$(field p90 "$timed")
    r_off=$(field offcpu "$timed"); r_faults=$(field faults "$timed"); r_iters=$(field iterations "$timed")
    for v in r_sum r_time r_steady r_p10 r_p90 r_off r_faults r_iters; do
        [ -n "${!v}" ] || die "cannot read ${v#r_} from $exe's output"
    done
    awk -v s="$r_steady" 'BEGIN { exit !(s > 0) }' || die "$exe: steady iteration $r_steady s; raise the problem's iterations"
}

# stats VALUES...: "median lo hi coverage": lo and hi the order statistics that bracket the
# median with at least 80% confidence whatever the distribution (sign test), or the extremes
# when there are too few values for that (coverage then says how much they hold).
stats() {
    printf '%s\n' "$@" | sort -g | awk '
        { v[NR] = $1 }
        END {
            n = NR; m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            k = 1; p = 0.5 ^ n; cum = 0
            for (j = 0; j < n; j++) {
                if (j > 0) p = p * (n - j + 1) / j
                cum += p
                if (2 * cum <= 0.2 && j + 1 <= (n + 1) / 2) { k = j + 1; tail = cum } else break
            }
            if (k == 1) tail = 0.5 ^ n
            printf "%.6g %.6g %.6g %.0f\n", m, v[k], v[n + 1 - k], 100 * (1 - 2 * tail)
        }'
}
ms() { awk -v s="$1" 'BEGIN { printf "%.3f", 1e3 * s }'; }
pct_off() { awk -v t="$1" -v o="$2" 'BEGIN { printf "%.1f", 100 * o / t }'; }

echo "bench-overhead: $PAIRS pairs per program, $NP ranks, ${MPIRUN}${MPIRUN_FLAGS:+ $MPIRUN_FLAGS}; $(nproc) CPUs"
echo "steady: the median iteration after the first (slowest rank), in ms; p10/p90 the 10% and 90% quantiles;"
echo "off: the ranks' time off their CPU in % of the timed region (plain/xmpi); faults in the timed region."
summary=()
for prog in $PROGRAMS; do
    case $prog in
        jacobi) args=$JACOBI_ARGS ;; cg) args=$CG_ARGS ;; epidemic) args=$EPIDEMIC_ARGS ;;
    esac
    echo
    echo "== $prog $args"
    # Warm-up: binaries, MPI and the page cache; not counted.
    run "$prog" plain "$args"; sum0=$r_sum; iters0=$r_iters
    run "$prog" xmpi "$args"
    [ "$r_sum" = "$sum0" ] || die "$prog: the builds computed different answers (checksums $sum0 and $r_sum)"
    printf '%-6s %-22s %-22s %-7s %-11s %s\n' pair "plain steady p10/p90" "xmpi steady p10/p90" ratio "off %" faults
    ratios=() pst=() xst=() poff=() xoff=() disturbed=()
    for ((k = 1; k <= PAIRS; k++)); do
        if ((k % 2)); then order="plain xmpi"; else order="xmpi plain"; fi
        for b in $order; do
            run "$prog" "$b" "$args"
            [ "$r_sum" = "$sum0" ] || die "$prog: the $b build's answer changed (checksum $r_sum, first run $sum0)"
            [ "$r_iters" = "$iters0" ] || die "$prog: the $b build timed $r_iters iterations, the first run $iters0"
            if [ "$b" = plain ]; then p=("$r_steady" "$r_p10" "$r_p90" "$(pct_off "$r_time" "$r_off")" "$r_faults")
            else x=("$r_steady" "$r_p10" "$r_p90" "$(pct_off "$r_time" "$r_off")" "$r_faults"); fi
        done
        ratio=$(awk -v a="${p[0]}" -v b="${x[0]}" 'BEGIN { printf "%.4f", b / a }')
        ratios+=("$ratio"); pst+=("${p[0]}"); xst+=("${x[0]}"); poff+=("${p[3]}"); xoff+=("${x[3]}")
        d=0; awk -v a="${p[3]}" -v b="${x[3]}" -v q="$QUIET" 'BEGIN { exit !(a > q || b > q) }' && d=1
        disturbed+=("$d")
        printf '%-6s %-22s %-22s %-7s %-11s %s%s\n' "$k/$PAIRS" \
            "$(ms "${p[0]}") $(ms "${p[1]}")/$(ms "${p[2]}")" "$(ms "${x[0]}") $(ms "${x[1]}")/$(ms "${x[2]}")" \
            "$ratio" "${p[3]}/${x[3]}" "${p[4]}/${x[4]}" "$([ $d = 1 ] && echo '  disturbed')"
    done
    # The library's own time off the CPU never excuses it.
    xmore=0
    for ((i = 0; i < PAIRS; i++)); do
        awk -v a="${poff[i]}" -v b="${xoff[i]}" 'BEGIN { exit !(b > a) }' && xmore=$((xmore + 1))
    done
    if [ "$xmore" -eq "$PAIRS" ] && [ "$PAIRS" -ge 3 ]; then
        echo "the xmpi runs were off their CPU more than the plain runs in every pair: no pair is excused"
        for ((i = 0; i < PAIRS; i++)); do disturbed[i]=0; done
    fi
    judged=()
    for ((i = 0; i < PAIRS; i++)); do [ "${disturbed[i]}" = 0 ] && judged+=("${ratios[i]}"); done
    slower=$(printf '%s\n' "${ratios[@]}" | awk '$1 > 1 { n++ } END { print n + 0 }')
    read -r m lo hi cov <<<"$(stats "${ratios[@]}")"
    read -r pm _ _ _ <<<"$(stats "${pst[@]}")"; read -r xm _ _ _ <<<"$(stats "${xst[@]}")"
    echo "steady iterations over the runs (ms): plain $(ms "$(printf '%s\n' "${pst[@]}" | sort -g | head -1)")" \
         "/ $(ms "$pm") / $(ms "$(printf '%s\n' "${pst[@]}" | sort -g | tail -1)") (min/median/max)," \
         "xmpi $(ms "$(printf '%s\n' "${xst[@]}" | sort -g | head -1)") / $(ms "$xm") / $(ms "$(printf '%s\n' "${xst[@]}" | sort -g | tail -1)")"
    echo "all pairs: median ratio xmpi/plain $m (${cov}% band $lo-$hi); xmpi slower in $slower of $PAIRS pairs"
    # The program's own run-to-run noise: the slowest plain run over the fastest.
    noise=$(printf '%s\n' "${pst[@]}" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.4f", hi / lo }')
    echo "noise: the plain runs' slowest steady iteration over their fastest: $noise"
    need=$(((PAIRS + 1) / 2)); [ "$need" -lt 3 ] && need=3
    if [ ${#judged[@]} -lt "$need" ]; then
        verdict="not judged: only ${#judged[@]} of $PAIRS pairs ran with the ranks on their CPU (off <= $QUIET%), $need needed"
        [ "$slower" -eq "$PAIRS" ] && verdict="missed: xmpi slower in every pair (median $m), although the machine was busy"
    else
        read -r jm jlo jhi _ <<<"$(stats "${judged[@]}")"
        jmax=$(printf '%s\n' "${judged[@]}" | sort -g | tail -1)
        faster=$(printf '%s\n' "${judged[@]}" | awk -v t="$TARGET_MEDIAN" '$1 < 2 - t { n++ } END { print n + 0 }')
        if awk -v m="$jm" -v x="$jmax" -v tm="$TARGET_MEDIAN" -v tp="$TARGET_PAIR" 'BEGIN { exit !(m <= tm && x <= tp) }'; then
            verdict="met: median $jm <= $TARGET_MEDIAN, largest pair $jmax <= $TARGET_PAIR (${#judged[@]} pairs judged)"
        elif awk -v l="$jlo" -v tm="$TARGET_MEDIAN" 'BEGIN { exit !(l > tm) }' || [ "$slower" -eq "$PAIRS" ] ||
             awk -v n="$noise" -v tp="$TARGET_PAIR" 'BEGIN { exit !(n <= tp) }'; then
            # A loss beyond the noise, a loss in every pair, or a quiet program: a loss.
            verdict="missed: median $jm (target $TARGET_MEDIAN), band $jlo-$jhi, largest pair $jmax (target $TARGET_PAIR) over ${#judged[@]} pairs"
        else
            verdict="not resolved: the plain build alone varied by a factor $noise between its runs, beyond the pair target $TARGET_PAIR; median $jm, band $jlo-$jhi"
        fi
        # The library only adds work: a library build faster beyond the target in every judged
        # pair means the two builds differ in something else (code layout, placement).
        [ "$faster" -eq ${#judged[@]} ] &&
            verdict="$verdict; WARNING: xmpi faster than plain in every judged pair, a measurement fault until explained"
    fi
    echo "$prog: $verdict"
    summary+=("$(printf '%-9s median %s (band %s-%s), slower in %s/%s pairs: %s' "$prog" "$m" "$lo" "$hi" "$slower" "$PAIRS" "${verdict%%:*}")")
done

echo
echo "summary (target: median <= $TARGET_MEDIAN, no pair above $TARGET_PAIR):"
printf '  %s\n' "${summary[@]}"

# The library's cost per call and per monitored iteration, measured inside one process, bounds
# what the end-to-end ratios cannot resolve on a noisy machine.
if [ -x "$bin/overhead-micro" ]; then
    timeout 300 "${mpirun_cmd[@]}" "${mpirun_flags[@]}" -np "$NP" "$bin/overhead-micro" 2>"$errlog" ||
        die "overhead-micro failed: $(cat "$errlog")"
fi
