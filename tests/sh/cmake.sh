# The CMake package: `make install` into a staged tree (DESTDIR), then a tiny C project and a
# tiny Fortran project outside the tree find it with find_package(xmpi) from where it lies,
# link xmpi::xmpi or xmpi::xmpi_f08, build and run on 2 processes with the library active (it
# writes the trace); a version the package is not is refused; make uninstall removes it.
. "$(dirname "$0")/lib.sh"
if ! command -v cmake >/dev/null; then
    echo "ok - CMake package # SKIP no cmake"
    exit 0
fi
STAGE="$TMP/stage"
SPREFIX=/opt/libxmpi
P="$STAGE$SPREFIX"
make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX="$SPREFIX" BUILD="$BUILD" >"$TMP/install.log" 2>&1
check "make install DESTDIR=DIR PREFIX=$SPREFIX" test $? = 0
for f in xmpiConfig.cmake xmpiConfigVersion.cmake xmpiTargets.cmake; do
    check "installed lib/cmake/xmpi/$f" test -s "$P/lib/cmake/xmpi/$f"
done

# configure NAME: cmake configure and build of the project in $TMP/NAME against the staged prefix.
configure() {
    cmake -S "$TMP/$1" -B "$TMP/$1/build" -DCMAKE_PREFIX_PATH="$P" >"$TMP/$1.cmake.log" 2>&1 &&
        cmake --build "$TMP/$1/build" >>"$TMP/$1.cmake.log" 2>&1
}

mkdir -p "$TMP/c"
cp "$ROOT/tests/external/hello.c" "$TMP/c/"
cat >"$TMP/c/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(xmpi_hello C)
find_package(xmpi 0.1 REQUIRED)
add_executable(xmpi-ext-hello-cmake hello.c)
target_link_libraries(xmpi-ext-hello-cmake PRIVATE xmpi::xmpi)
CMAKE
configure c
rc=$?
check "C project: find_package(xmpi 0.1 REQUIRED), xmpi::xmpi: configures and builds" test $rc = 0
[ $rc = 0 ] || tail -15 "$TMP/c.cmake.log" | sed 's/^/#   /'
APP="$TMP/c/build/xmpi-ext-hello-cmake"
check "it links the staged libxmpi.so" sh -c "ldd '$APP' | grep -q '$P/lib/libxmpi.so'"
"$LAUNCH" -np 2 "$APP" 20 --xmpi-si=10 "--xmpi-trace=$TMP/c.csv" >"$TMP/c.out" 2>&1
check "it runs on 2 processes with correct sums and libxmpi's trace (2 intervals)" \
    sh -c "grep -q 'sums correct' '$TMP/c.out' && test \$(wc -l <'$TMP/c.csv') = 3"

if [ ! -e "$P/lib/libxmpi_f08.so" ]; then
    why=$(sed -n 2p "$ROOT/$BUILD/fortran-status" 2>/dev/null)
    [ "$why" = yes ] && why="libxmpi_f08 not built in $BUILD (run make)"
    echo "ok - Fortran project with xmpi::xmpi_f08 # SKIP ${why:-libxmpi_f08 not built}"
else
    mkdir -p "$TMP/f"
    cp "$ROOT/tests/external/hello_f08.f90" "$TMP/f/"
    cat >"$TMP/f/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(xmpi_hello_f08 Fortran)
find_package(xmpi 0.1 REQUIRED COMPONENTS Fortran)
add_executable(xmpi-ext-hello-f08 hello_f08.f90)
target_link_libraries(xmpi-ext-hello-f08 PRIVATE xmpi::xmpi_f08)
CMAKE
    configure f
    rc=$?
    check "Fortran project: find_package(xmpi COMPONENTS Fortran), xmpi::xmpi_f08: configures and builds" test $rc = 0
    [ $rc = 0 ] || tail -15 "$TMP/f.cmake.log" | sed 's/^/#   /'
    APP="$TMP/f/build/xmpi-ext-hello-f08"
    check "it links the staged libxmpi_f08.so" sh -c "ldd '$APP' | grep -q '$P/lib/libxmpi_f08.so'"
    "$LAUNCH" -np 2 "$APP" --xmpi-si=10 "--xmpi-trace=$TMP/f.csv" >"$TMP/f.out" 2>&1
    check "it runs on 2 processes with correct sums and libxmpi's trace (3 intervals)" \
        sh -c "grep -q '^hello_f08: 2 ranks, 30 iterations, sums correct' '$TMP/f.out' && test \$(wc -l <'$TMP/f.csv') = 4"
fi

# A version the package is not, and a component it has not: refused at configure time.
mkdir -p "$TMP/v"
cat >"$TMP/v/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(xmpi_version C)
find_package(xmpi 9.0 REQUIRED)
CMAKE
cmake -S "$TMP/v" -B "$TMP/v/build" -DCMAKE_PREFIX_PATH="$P" >"$TMP/v.log" 2>&1
rc=$?
check "find_package(xmpi 9.0 REQUIRED) is refused, naming the version found" \
    sh -c "test $rc != 0 && grep -q '0.1.0' '$TMP/v.log'"
sed -i 's/find_package(xmpi 9.0 REQUIRED)/find_package(xmpi REQUIRED COMPONENTS Python)/' "$TMP/v/CMakeLists.txt"
rm -rf "$TMP/v/build"
cmake -S "$TMP/v" -B "$TMP/v/build" -DCMAKE_PREFIX_PATH="$P" >"$TMP/v.log" 2>&1
rc=$?
check "find_package(xmpi COMPONENTS Python) is refused, saying what there is" \
    sh -c "test $rc != 0 && grep -q 'no component Python' '$TMP/v.log'"

make -s -C "$ROOT" uninstall DESTDIR="$STAGE" PREFIX="$SPREFIX" BUILD="$BUILD" >"$TMP/uninstall.log" 2>&1
left=$(find "$STAGE" ! -type d)
check "make uninstall removes the CMake package and everything else${left:+: left $(echo $left)}" test -z "$left"
