# Checkpoint and restart (issue 19, docs/checkpoint.md): a run restarted on 1, 2 or 3
# processes from checkpoints written by 2 and 3 ends with the same bytes as an uninterrupted
# run, for every kind of structure (test_ckpt) and for Jacobi; damaged, incomplete and
# mismatched checkpoints are refused with one message and nothing loaded; a crash while a
# checkpoint is written leaves the previous one loadable; the restart source is never changed.
. "$(dirname "$0")/lib.sh"
T="$ROOT/$BUILD/tests/test_ckpt"
J="$ROOT/$BUILD/bin/jacobi"
export XMPIRUN_TIMEOUT=${XMPIRUN_TIMEOUT:-60}
N=23 IT=30
export LC_ALL=C
ck() { echo "$TMP/$1/ckpt-$(printf %012d "$2")"; }
run() { # run OUT NP PROG ARGS...: stdout+stderr to OUT.log
    local out=$1 np=$2; shift 2
    "$LAUNCH" -np "$np" "$@" >"$out.log" 2>&1
}
# refused DESCRIPTION PATTERN NP ARGS...: the restart fails (not by the time limit), rank 0
# names the problem once, and the program wrote no result.
refused() {
    local d=$1 p=$2 np=$3; shift 3
    rm -f "$TMP/x.bin"
    run "$TMP/x" "$np" "$T" $N $IT "$TMP/x.bin" "$@"
    local rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$(grep -c -- "$p" "$TMP/x.log")" = 1 ] &&
       [ ! -e "$TMP/x.bin" ] && ! grep -q '^done:' "$TMP/x.log"; then
        ok "$d"
    else
        notok "$d (exit $rc)"; sed 's/^/#   /' "$TMP/x.log" | head -8
    fi
}

# The references: uninterrupted runs, without any checkpoint option.
run "$TMP/ref" 2 "$T" $N $IT "$TMP/ref.bin"
run "$TMP/ref3" 3 "$T" $N $IT "$TMP/ref3.bin"
check "reference runs on 2 and 3 processes write the same bytes" \
    sh -c "test -s '$TMP/ref.bin' && cmp -s '$TMP/ref.bin' '$TMP/ref3.bin'"

# Checkpoints every 10 iterations (intervals of 5), written by 2 and by 3 processes.
for np in 2 3; do
    run "$TMP/w$np" $np "$T" $N $IT "$TMP/w$np.bin" --xmpi-si=5 "--xmpi-checkpoint=$TMP/c$np" \
        --xmpi-checkpoint-every=10 --xmpi-checkpoint-keep=3
    check "writing checkpoints on $np processes changes no result" cmp -s "$TMP/ref.bin" "$TMP/w$np.bin"
    check "$np processes: checkpoints at iterations 10, 20, 30 and LATEST names the last" \
        sh -c "test -f '$(ck c$np 10)/manifest' -a -f '$(ck c$np 20)/manifest' -a -f '$(ck c$np 30)/manifest' &&
               test \"\$(cat '$TMP/c$np/LATEST')\" = ckpt-000000000030"
done
check "the manifest records the writers, the iteration and a CRC-32 per file" \
    sh -c "grep -qx 'nprocs 3' '$(ck c3 20)/manifest' && grep -qx 'iteration 20' '$(ck c3 20)/manifest' &&
           test \$(grep -c '^file ' '$(ck c3 20)/manifest') = 10"

# Restart at every size from both writers: the same bytes as the uninterrupted run.
sum_before=$(cd "$TMP" && find c2 c3 -type f | sort | xargs sha256sum)
for from in "c2 10" "c3 20"; do
    set -- $from
    for np in 1 2 3; do
        run "$TMP/r" $np "$T" $N $IT "$TMP/r.bin" "--xmpi-restart=$(ck "$1" "$2")"
        check "restart on $np from $1 at iteration $2: resumes there, bit-identical result" \
            sh -c "grep -q 'resumed at iteration $2 on $np processes' '$TMP/r.log' && cmp -s '$TMP/ref.bin' '$TMP/r.bin'"
    done
done
check "restarts leave the checkpoints they read unchanged" \
    test "$sum_before" = "$(cd "$TMP" && find c2 c3 -type f | sort | xargs sha256sum)"
run "$TMP/r" 3 "$T" $N $IT "$TMP/r.bin" "--xmpi-restart=$TMP/c2"
check "restart from a directory with LATEST takes the newest (iteration 30)" \
    sh -c "grep -q 'resumed at iteration 30' '$TMP/r.log' && cmp -s '$TMP/ref.bin' '$TMP/r.bin'"

# keep: only the newest K automatic checkpoints stay.
run "$TMP/k" 2 "$T" $N $IT "$TMP/k.bin" --xmpi-si=5 "--xmpi-checkpoint=$TMP/ck" --xmpi-checkpoint-every=5 \
    --xmpi-checkpoint-keep=2
check "--xmpi-checkpoint-keep=2 keeps ckpt 25 and 30 only, no temporary left" \
    test "$(cd "$TMP/ck" && ls -A | tr '\n' ' ')" = "LATEST ckpt-000000000025 ckpt-000000000030 "

# XMPI_Checkpoint with a name, then a restart with --xmpi-restart=latest.
run "$TMP/n" 2 "$T" $N $IT "$TMP/n.bin" 7 mine "--xmpi-checkpoint=$TMP/cn"
check "XMPI_Checkpoint(\"mine\") after iteration 7 is in --xmpi-checkpoint's directory" \
    sh -c "grep -qx 'iteration 7' '$TMP/cn/mine/manifest' && test \"\$(cat '$TMP/cn/LATEST')\" = mine"
run "$TMP/r" 3 "$T" $N $IT "$TMP/r.bin" "--xmpi-checkpoint=$TMP/cn" --xmpi-restart=latest
check "restart=latest from the named checkpoint on 3: bit-identical" \
    sh -c "grep -q 'resumed at iteration 7' '$TMP/r.log' && cmp -s '$TMP/ref.bin' '$TMP/r.bin'"

# The same name again: the new checkpoint takes the old one's place in one step (the name
# always holds a whole checkpoint), and nothing is left aside.
run "$TMP/n2" 2 "$T" $N $IT "$TMP/n2.bin" 9 mine "--xmpi-checkpoint=$TMP/cn"
check "XMPI_Checkpoint(\"mine\") again after iteration 9 replaces it, nothing left aside" \
    sh -c "grep -qx 'iteration 9' '$TMP/cn/mine/manifest' && test \"\$(cd '$TMP/cn' && ls -A | tr '\n' ' ')\" = 'LATEST mine '"

# Rotation after a restart from an older checkpoint, with newer ones of the abandoned run in
# the directory: what was just published is kept (and LATEST names it), the restart's source
# too, and the abandoned run's later checkpoint is left alone.
mkdir -p "$TMP/cr" && cp -r "$(ck c2 10)" "$(ck c2 30)" "$TMP/cr/"
run "$TMP/rr" 2 "$T" $N 20 "$TMP/rr.bin" --xmpi-si=5 "--xmpi-checkpoint=$TMP/cr" \
    --xmpi-checkpoint-every=5 --xmpi-checkpoint-keep=1 "--xmpi-restart=$TMP/cr/ckpt-000000000010"
check "restart from 10 with --xmpi-checkpoint-keep=1: keeps 20 (published last, LATEST), 10 (the source) and 30" \
    sh -c "test \"\$(cat '$TMP/cr/LATEST')\" = ckpt-000000000020 && test -f '$TMP/cr/ckpt-000000000020/manifest' &&
           test \"\$(cd '$TMP/cr' && ls -A | tr '\n' ' ')\" = 'LATEST ckpt-000000000010 ckpt-000000000020 ckpt-000000000030 '"

# Jacobi (-d registers A, b, x's rows and x replicated): checkpoint on 3, restart on 2 and 1.
JA=(-n 120 -i 60 -s 7 -d)
field() { sed -n "s/^result:.* $1=\([^ ]*\).*/\1/p" "$2"; }
run "$TMP/jref" 2 "$J" "${JA[@]}"
run "$TMP/jw" 3 "$J" "${JA[@]}" --xmpi-si=10 "--xmpi-checkpoint=$TMP/cj" --xmpi-checkpoint-every=20
for np in 2 1; do
    run "$TMP/jr$np" $np "$J" "${JA[@]}" "--xmpi-restart=$(ck cj 40)"
    check "jacobi restarted on $np from 3 processes' checkpoint at 40: same checksum and residual" \
        sh -c "test -n '$(field checksum "$TMP/jref.log")' &&
               test '$(field checksum "$TMP/jref.log")' = '$(field checksum "$TMP/jr$np.log")' &&
               test '$(field residual "$TMP/jref.log")' = '$(field residual "$TMP/jr$np.log")' &&
               test '$(field ranks "$TMP/jr$np.log")' = $np"
done

# Damaged, incomplete, mismatched: refused, nothing loaded.
bad() { rm -rf "$TMP/$1"; cp -r "$(ck c2 10)" "$TMP/$1"; }
bad flip; printf '\125' | dd of="$TMP/flip/s2.data" bs=1 seek=100 conv=notrunc 2>/dev/null
refused "a flipped byte in a dense matrix fails its checksum" "s2.data fails its checksum" 2 "--xmpi-restart=$TMP/flip"
bad flipia; printf '\001' | dd of="$TMP/flipia/s4.ia" bs=1 seek=86 conv=notrunc 2>/dev/null
refused "a damaged sparse row pointer is refused" "s4.ia fails its checksum" 3 "--xmpi-restart=$TMP/flipia"
bad cut; truncate -s 100 "$TMP/cut/s4.ja"
refused "a cut file is refused by its size" "s4.ja holds 100 bytes but the manifest says 172" 3 "--xmpi-restart=$TMP/cut"
bad gone; rm "$TMP/gone/s5.a"
refused "a missing file is refused" "cannot open .*s5.a" 2 "--xmpi-restart=$TMP/gone"
bad mani; sed -i '$d' "$TMP/mani/manifest"
refused "a cut manifest is refused at start-up" "manifest:24: the manifest ends here; expected 'end'" 2 "--xmpi-restart=$TMP/mani"
bad big; head -c 70000 /dev/zero | tr '\0' '\n' >>"$TMP/big/manifest"
refused "a manifest over 64 KB is refused as such, not cut" "manifest is longer than 65536 bytes, which is not accepted" 2 "--xmpi-restart=$TMP/big"
bad kind; sed -i 's/^structure 2 dense/structure 2 vector/' "$TMP/kind/manifest"
refused "a manifest whose sizes do not fit its kinds is refused" "manifest:13: field BYTES: '4232' is not accepted; expected 184," 2 "--xmpi-restart=$TMP/kind"
bad type; sed -i 's/^structure 1 vector replicated MPI_INT/structure 1 vector replicated MPI_FLOAT/' "$TMP/type/manifest"
refused "another element type is refused" "structure 1 (vector) holds MPI_FLOAT in the checkpoint, the program registered MPI_INT" 2 "--xmpi-restart=$TMP/type"
rm -f "$TMP/x.bin"
"$LAUNCH" -np 2 "$T" 24 $IT "$TMP/x.bin" "--xmpi-restart=$(ck c2 10)" >"$TMP/x.log" 2>&1
rc=$?
check "another size is refused: one message naming the rows, nothing written" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && test \$(grep -c 'structures have 23 rows, the program.s 24' '$TMP/x.log') = 1 && test ! -e '$TMP/x.bin'"
"$LAUNCH" -np 2 "$J" -n 23 -d "--xmpi-restart=$(ck c2 10)" >"$TMP/x.log" 2>&1
rc=$?
check "another program's checkpoint is refused (6 structures, jacobi registers 4)" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && grep -q 'holds 6 structure(s), the program registered 4' '$TMP/x.log' && ! grep -q '^result:' '$TMP/x.log'"
refused "--xmpi-restart=latest without --xmpi-checkpoint is refused" "needs --xmpi-checkpoint=DIR" 2 --xmpi-restart=latest
refused "a directory without a checkpoint is refused" "holds no checkpoint" 2 "--xmpi-restart=$TMP"
refused "a bad --xmpi-checkpoint-every is refused" "checkpoint-every: 'ten' is not accepted" 2 --xmpi-checkpoint-every=ten

# A crash while the second checkpoint is written (LIBXMPI_FAULT=checkpoint-kill: after the data
# files, before the publication): the first stays the latest and a restart from it finishes
# with the uninterrupted run's bytes; the next checkpoint there clears the crashed temporary.
LIBXMPI_FAULT=checkpoint-kill run "$TMP/crash" 2 "$T" $N $IT "$TMP/crash.bin" --xmpi-si=5 \
    "--xmpi-checkpoint=$TMP/cc" --xmpi-checkpoint-every=10
rc=$?
check "the crash ends the job (exit $rc), without a result" \
    sh -c "test $rc -ne 0 -a $rc -ne 124 && test ! -e '$TMP/crash.bin'"
check "after the crash LATEST still names iteration 10 and a temporary is left" \
    sh -c "test \"\$(cat '$TMP/cc/LATEST')\" = ckpt-000000000010 && ls -A '$TMP/cc' | grep -q '^.tmp-ckpt-000000000020-' &&
           test ! -e '$(ck cc 20)'"
run "$TMP/after" 3 "$T" $N $IT "$TMP/after.bin" --xmpi-si=5 "--xmpi-checkpoint=$TMP/cc" \
    --xmpi-checkpoint-every=10 --xmpi-restart=latest
check "restart=latest after the crash resumes at 10 and ends bit-identical" \
    sh -c "grep -q 'resumed at iteration 10' '$TMP/after.log' && cmp -s '$TMP/ref.bin' '$TMP/after.bin'"
check "the restarted job's checkpoints replace the crashed temporary" \
    test "$(cd "$TMP/cc" && ls -A | tr '\n' ' ')" = "LATEST ckpt-000000000010 ckpt-000000000020 ckpt-000000000030 "
check "no process is left" sh -c "! pgrep -f '^$T ' >/dev/null && ! pgrep -f '^$J -n 120' >/dev/null"
