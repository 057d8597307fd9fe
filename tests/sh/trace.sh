# --xmpi-trace never overwrites a file the job reads (the calibration, work profile, resource,
# schedule and RMS state files, the state's lock, the program), under any name for it (the
# same path, ./x, a symbolic or a hard link); an earlier trace is replaced only by a whole one
# (rows go to FILE.part, renamed at MPI_Finalize), stays as it was when the job stops at
# start-up or dies, and a read-only file, a directory and /dev/stdout are handled. A job larger
# than --xmpi-trace-ranks leaves the per-rank columns out.
. "$(dirname "$0")/lib.sh"
J="$ROOT/$BUILD/bin/jacobi"
RMS="$ROOT/$BUILD/bin/xmpi-rms"
H=$(hostname)
cd "$TMP" || exit 1

printf '%s:fast:2:1\n' "$H" >res
printf '5 offer 1 fast\n' >sched
printf 'alpha 1e-6\nspawn single 1 0.25\n' >cal
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace=profile >/dev/null 2>&1
"$RMS" --state state --force init res >/dev/null 2>&1
: >>state.lock
cp "$J" prog
ln -s res res-link
ln res res-hard
for f in res sched cal profile state state.lock prog; do cp -p "$f" "$f.orig"; done

# refused DESCRIPTION INPUT OPTION-NAMED -- ARGS...: the job stops with exit 2 and one message
# naming --xmpi-trace and the input's option, and INPUT is byte for byte what it was.
refused() {
    local desc=$1 input=$2 named=$3; shift 4
    LD_LIBRARY_PATH="$ROOT/$BUILD/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$LAUNCH" -np 2 "${PROG:-$J}" -n 100 -i 20 "$@" >out 2>&1
    local rc=$? n
    n=$(grep -c "option --xmpi-trace: .* is not accepted; it is the file of $named (.*), which the job reads" out)
    if [ $rc = 2 ] && [ "$n" = 1 ] && cmp -s "$input" "$input.orig" && ! ls ./*.part >/dev/null 2>&1; then
        ok "$desc"
    else
        notok "$desc (exit $rc, message seen $n times)"; sed 's/^/#   /' out | head -10
        cmp "$input" "$input.orig" | sed 's/^/#   /'
    fi
}

refused "the calibration file as the trace is refused and kept" cal "option --xmpi-calibration" -- \
    --xmpi-calibration=cal --xmpi-trace=cal
refused "the work profile as the trace is refused and kept" profile "option --xmpi-work-profile" -- \
    --xmpi-work-profile=profile --xmpi-trace=profile
refused "the resource file as the trace is refused and kept" res "option --xmpi-resources" -- \
    --xmpi-resources=res --xmpi-trace=res
refused "... named ./res" res "option --xmpi-resources" -- --xmpi-resources=res --xmpi-trace=./res
refused "... by its absolute path" res "option --xmpi-resources" -- \
    --xmpi-resources=res "--xmpi-trace=$TMP/res"
refused "... through a symbolic link" res "option --xmpi-resources" -- \
    --xmpi-resources=res --xmpi-trace=res-link
refused "... through a hard link" res "option --xmpi-resources" -- \
    --xmpi-resources=res --xmpi-trace=res-hard
refused "the schedule as the trace is refused and kept" sched "option --xmpi-rms" -- \
    --xmpi-resources=res --xmpi-rms=schedule:sched --xmpi-trace=sched
refused "the RMS state file as the trace is refused and kept" state "option --xmpi-rms" -- \
    --xmpi-resources=res --xmpi-rms=file:state --xmpi-trace=state
refused "the RMS state's lock file as the trace is refused and kept" state.lock "option --xmpi-rms" -- \
    --xmpi-resources=res --xmpi-rms=file:state --xmpi-trace=state.lock
XMPI_CALIBRATION=cal refused "XMPI_CALIBRATION's file as the trace is refused and kept" cal \
    "option --xmpi-calibration" -- --xmpi-trace=cal
PROG="$TMP/prog" refused "the program itself as the trace is refused and kept" prog "the program" -- \
    --xmpi-trace=prog

# An earlier trace: replaced by the whole new one at the end, nothing left beside it.
printf 'an earlier trace\n' >t.csv
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace=t.csv >out 2>&1
rc=$?
check "an existing trace is replaced at the end of a job that succeeds (exit $rc)" \
    sh -c "test $rc = 0 && head -1 t.csv | grep -q '^interval,' && test \$(wc -l <t.csv) = 5 && ! test -e t.csv.part"

# A job stopped at start-up after the trace was opened (a missing schedule): the earlier trace
# stays as it was, and no part file is left.
printf 'an earlier trace\n' >t.csv
cp t.csv t.csv.orig
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-trace=t.csv --xmpi-rms=schedule:no-such-file >out 2>&1
rc=$?
check "a job stopped at start-up (exit $rc) leaves the earlier trace as it was and no t.csv.part" \
    sh -c "test $rc = 2 && cmp -s t.csv t.csv.orig && ! test -e t.csv.part"

# A job that dies in the middle (killed by its time limit): the earlier trace stays whole, and
# the finished intervals are in t.csv.part.
XMPIRUN_TIMEOUT=6 "$LAUNCH" -np 2 "$J" -n 200 -i 100000000 --xmpi-si=20 --xmpi-trace=t.csv \
    >out 2>&1
rc=$?
check "a job killed mid-run (exit $rc) leaves the earlier trace as it was" \
    sh -c "test $rc != 0 && cmp -s t.csv t.csv.orig"
check "... and its finished intervals in t.csv.part" \
    sh -c "head -1 t.csv.part | grep -q '^interval,' && test \$(wc -l <t.csv.part) -gt 2"
rm -f t.csv.part

# A read-only trace file is respected; a directory is refused.
printf 'keep me\n' >ro.csv
chmod 444 ro.csv
cp ro.csv ro.orig
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-trace=ro.csv >out 2>&1
rc=$?
check "a read-only trace file is refused (exit $rc) and kept" \
    sh -c "test $rc = 2 && grep -q \"option --xmpi-trace: 'ro.csv' is not accepted; it exists and is read-only\" out && cmp -s ro.csv ro.orig && ! test -e ro.csv.part"
mkdir adir
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-trace=adir >out 2>&1
rc=$?
check "a directory as the trace is refused (exit $rc)" \
    sh -c "test $rc = 2 && grep -q \"option --xmpi-trace: cannot write 'adir': it is a directory\" out"

# A device is written directly: /dev/stdout gets the rows and stays what it was.
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace=/dev/stdout >out 2>&1
rc=$?
check "--xmpi-trace=/dev/stdout writes the rows to the output (exit $rc)" \
    sh -c "test $rc = 0 && test \$(grep -c '^interval,\|^[0-9]*,[0-9]*,2,' out) = 5 && test -L /dev/stdout && ! test -e /dev/stdout.part"

# --xmpi-trace-ranks (issue 42): a job larger than it leaves the four per-rank columns empty in
# every row, said once on rank 0, the other columns as ever; xmpi-report still draws it. 0 never
# writes them; at the job's size they are written.
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace=nr.csv --xmpi-trace-ranks=1 >out 2>&1
rc=$?
# ranks_fields CSV: "EMPTY FULL" counts of the per-rank fields over the rows.
ranks_fields() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
             { split("t_real_ranks t_cpu_ranks work_ranks comm_time_ranks", n, " ")
               for (k = 1; k <= 4; k++) if ($c[n[k]] == "") e++; else f++
               if ($c["t_real_max"] == "" || $c["nprocs"] != 2) bad++ }
             END { print e + 0, f + 0, bad + 0 }' "$1"
}
check "--xmpi-trace-ranks=1 on 2 processes: 4 rows, every per-rank field empty, the rest there (exit $rc)" \
    [ $rc = 0 ] && [ "$(ranks_fields nr.csv)" = "16 0 0" ]
check "... said once on rank 0" \
    [ "$(grep -c "per-rank columns .* left empty from interval 1 on while the job has more than 1 processes (2 now; --xmpi-trace-ranks)" out)" = 1 ]
check "... and xmpi-report reads it" "$ROOT/$BUILD/bin/xmpi-report" -o nr-report nr.csv
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace=r2.csv --xmpi-trace-ranks=2 >out 2>&1
check "--xmpi-trace-ranks=2 on 2 processes writes them, says nothing" \
    [ "$(ranks_fields r2.csv)" = "0 16 0" ] && ! grep -q "per-rank columns" out
"$LAUNCH" -np 2 "$J" -n 100 -i 20 --xmpi-si=5 --xmpi-trace-ranks=1 >out 2>&1
check "--xmpi-trace-ranks without --xmpi-trace is said to have no effect" \
    grep -q "option --xmpi-trace-ranks has no effect in this job; it acts with --xmpi-trace=FILE" out
