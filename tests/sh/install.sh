# `make install PREFIX=DIR`, then a program outside the tree builds against the installed
# library with pkg-config (shared and static), runs under mpirun and writes the trace.
. "$(dirname "$0")/lib.sh"
PREFIX="$TMP/prefix"
make -s -C "$ROOT" install PREFIX="$PREFIX" BUILD="$BUILD" >"$TMP/install.log" 2>&1
check "make install PREFIX=DIR" test $? = 0
for f in include/xmpi.h lib/libxmpi.a lib/libxmpi.so lib/libxmpi.so.0 lib/pkgconfig/xmpi.pc \
         bin/xmpi-jacobi bin/xmpi-jacobi-plain bin/xmpi-cg bin/xmpi-cg-plain bin/xmpi-epidemic \
         bin/xmpi-heat bin/xmpi-heat-plain bin/xmpi-cg3d bin/xmpi-cg3d-plain share/man/man1/xmpi-heat-plain.1 \
         bin/xmpi-info bin/xmpi-rms bin/xmpi-interfere bin/xmpi-calibrate bin/xmpi-spawnbench \
         share/man/man1/xmpi-info.1 share/man/man3/libxmpi.3 share/man/man3/XMPI_Spawn.3; do
    check "installed $f" test -e "$PREFIX/$f"
done

# A staged install, as packagers make it: everything under DESTDIR, the man pages there and
# rendering, and `make uninstall` with the same DESTDIR and PREFIX leaving no file behind.
STAGE="$TMP/stage"
SPREFIX=/opt/libxmpi
make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX="$SPREFIX" BUILD="$BUILD" >"$TMP/stage.log" 2>&1
check "make install DESTDIR=DIR PREFIX=/opt/libxmpi" test $? = 0
out=$(find "$STAGE" ! -type d ! -path "$STAGE$SPREFIX/*")
check "everything is installed under DESTDIR/PREFIX${out:+: not $out}" test -z "$out"
MANDIR="$STAGE$SPREFIX/share/man"
missing=""
for b in "$STAGE$SPREFIX"/bin/*; do
    [ -s "$MANDIR/man1/$(basename "$b").1" ] || missing+=" $(basename "$b")"
done
check "every installed program has a man page in share/man/man1${missing:+: not$missing}" test -z "$missing"
missing=""
for fn in $(sed -n 's/^XMPI_PUBLIC [^(]*[ *]\(XMPI_[A-Za-z_]*\)(.*/\1/p' "$ROOT/include/xmpi.h"); do
    [ -s "$MANDIR/man3/$fn.3" ] || missing+=" $fn"
done
check "every function of xmpi.h has a page in share/man/man3${missing:+: not$missing}" \
    test -z "$missing" -a -s "$MANDIR/man3/libxmpi.3"
bad=""
for page in "$MANDIR"/man1/* "$MANDIR"/man3/*; do
    [ -z "$(groff -man -ww -z "$page" 2>&1)" ] || bad+=" $(basename "$page")"
done
check "every installed man page renders without a groff warning${bad:+: not$bad}" test -z "$bad"
if command -v man >/dev/null; then
    check "man -M finds and renders an installed alias page (XMPI_Remove(3))" \
        sh -c "man -M '$MANDIR' 3 XMPI_Remove 2>/dev/null | grep -q 'XMPI_Remove'"
fi
make -s -C "$ROOT" uninstall DESTDIR="$STAGE" PREFIX="$SPREFIX" BUILD="$BUILD" >"$TMP/unstage.log" 2>&1
check "make uninstall DESTDIR=DIR PREFIX=/opt/libxmpi" test $? = 0
left=$(find "$STAGE" ! -type d)
check "make uninstall leaves no file behind${left:+: left $(echo $left)}" test -z "$left"

export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
APP="$TMP/xmpi-ext-hello"
# shellcheck disable=SC2046
${MPICC:-mpicc} "$ROOT/tests/external/hello.c" -o "$APP" $(pkg-config --cflags --libs xmpi) 2>"$TMP/cc.log"
check "outside program builds with mpicc \$(pkg-config --cflags --libs xmpi)" test -x "$APP"
check "it links the installed libxmpi.so" sh -c "ldd '$APP' | grep -q '$PREFIX/lib/libxmpi.so'"

"$LAUNCH" -np 2 "$APP" 30 --xmpi-si=10 "--xmpi-trace=$TMP/trace.csv" >"$TMP/run.log" 2>&1
check "it runs under mpirun with correct results" grep -q 'sums correct' "$TMP/run.log"
check "the trace has the documented header" sh -c "head -1 '$TMP/trace.csv' | grep -q \
'^interval,iteration,nprocs,t_real_max,t_real_min,t_cpu_sum,work_sum,work_source,comm_time_max,comm_bytes_sum,action,elapsed'"
check "one trace row per interval (30 iterations / si 10 = 3)" test "$(wc -l <"$TMP/trace.csv")" = 4
# Declared work: rank r declares 100*(r+1) per iteration: 10 iterations * (100+200) = 3000.
check "work_sum of each row is the declared work" \
    test "$(awk -F, 'NR>1 && $7==3000' "$TMP/trace.csv" | wc -l)" = 3
# One MPI_LONG Allreduce per iteration per rank: 10 * 2 * 8 bytes.
check "comm_bytes_sum of each row is the profiled bytes" \
    test "$(awk -F, 'NR>1 && $10==160' "$TMP/trace.csv" | wc -l)" = 3

APPS="$TMP/xmpi-ext-hello-static"
# shellcheck disable=SC2046
${MPICC:-mpicc} "$ROOT/tests/external/hello.c" -o "$APPS" $(pkg-config --cflags xmpi) \
    "$PREFIX/lib/libxmpi.a" $(pkg-config --static --libs-only-l xmpi | sed 's/-lxmpi//') 2>"$TMP/ccs.log"
check "outside program links the static libxmpi.a" test -x "$APPS"
"$LAUNCH" -np 2 "$APPS" 20 --xmpi-si=10 "--xmpi-trace=$TMP/trace2.csv" >"$TMP/run2.log" 2>&1
check "static build runs and traces (2 rows)" \
    test "$(grep -c 'sums correct' "$TMP/run2.log")" = 1 -a "$(wc -l <"$TMP/trace2.csv")" = 3

require_spawn "FLEX-MPI Fig. 4.13 with the installed library"
# FLEX-MPI Fig. 4.13 with the installed library: the initial processes run flex_static, the
# spawned ones another program, flex_dynamic; both spawn modes.
for prog in flex_static flex_dynamic; do
    # shellcheck disable=SC2046
    ${MPICC:-mpicc} "$ROOT/tests/external/$prog.c" -o "$TMP/$prog" $(pkg-config --cflags --libs xmpi) 2>>"$TMP/cc.log"
done
printf '%s:local:8:1\n' "$(hostname)" >"$TMP/res8"
# In single mode one spawned process leaves (2 -> 5 -> 4); in group mode the three were
# spawned together and leave together (2 -> 5 -> 2), and removing one of them is refused.
for mode in single:1:4 group:3:2 group:1:5; do
    IFS=: read -r m leave after <<<"$mode"
    launch_retry "$TMP/flex.$m$leave" -np 2 "$TMP/flex_static" "$leave" "--xmpi-resources=$TMP/res8" "--xmpi-spawn=$m"
    rc=$?
    cat "$TMP/flex.$m$leave.err" >>"$TMP/flex.$m$leave"
    if [ "$after" = 5 ]; then
        check "Fig. 4.13, group spawn: removing 1 of a group of 3 is refused and the job goes on" \
            sh -c "test $rc = 1 && grep -q 'remove FAILED, 5 after removing 1, gather ok' '$TMP/flex.$m$leave'"
        continue
    fi
    check "Fig. 4.13 low-level program, $m spawn: 2 -> 5 -> $after processes, exit 0" \
        sh -c "test $rc = 0 && grep -q 'spawn ok, 5 processes after growing, remove ok, $after after removing $leave, gather ok' '$TMP/flex.$m$leave'"
    check "Fig. 4.13, $m spawn: the spawned program saw XMPI_NEWLY_SPAWNED" \
        sh -c "! grep -q 'expected XMPI_NEWLY_SPAWNED' '$TMP/flex.$m$leave'"
done

# A program outside the tree with a dense matrix, a replicated vector and a CSR matrix: random
# redistributions, grow 2 -> 4 with XMPI_Get_data, shrink 4 -> 2 keeping the removed rows.
# shellcheck disable=SC2046
${MPICC:-mpicc} "$ROOT/tests/external/flex_data.c" -o "$TMP/flex_data" $(pkg-config --cflags --libs xmpi) 2>>"$TMP/cc.log"
check "the data-redistribution program builds against the installed library" test -x "$TMP/flex_data"
launch_retry "$TMP/data.out" -np 2 "$TMP/flex_data" 30 --xmpi-oversubscribe
rc=$?
sed 's/^\(not \)\{0,1\}ok - /&flex_data: /' "$TMP/data.out" | grep -E '^(not )?ok - '
check "flex_data: the job exits 0" test $rc = 0
check "flex_data: all 13 checks reported" test "$(grep -c "^ok - " "$TMP/data.out")" = 13
