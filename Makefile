# libxmpi: `make` builds the libraries and benchmarks into build/, `make check` tests,
# `make install PREFIX=DIR` installs, `make demo` installs what is missing and runs Jacobi.

# MPI=openmpi (the default: Debian's Open MPI, whatever Debian's alternative points to) or
# MPI=mpich: the MPICH that `scripts/install-deps.sh --mpich` builds into MPICH_PREFIX
# (ch3:nemesis, which spawns; Hydra's mpiexec), built into build-mpich/ so that the two never
# share an object. MPICC and MPIRUN on the command line still choose any other MPI.
MPI ?= openmpi
MPICH_PREFIX ?= /opt/xmpi-mpich
ifeq ($(MPI),openmpi)
MPICC  ?= $(firstword $(shell command -v mpicc.openmpi 2>/dev/null) mpicc)
MPIRUN ?= $(subst mpicc,mpirun,$(MPICC))
BUILD  ?= build
else ifeq ($(MPI),mpich)
MPICC   = $(MPICH_PREFIX)/bin/mpicc
MPIRUN  = $(MPICH_PREFIX)/bin/mpiexec
BUILD  ?= build-mpich
ifneq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(MPICH_PREFIX)/bin/mpicc),)
$(error MPI=mpich: no MPICH in $(MPICH_PREFIX) (no bin/mpicc); build it once with `scripts/install-deps.sh --mpich` (or `make MPI=mpich deps`), or set MPICH_PREFIX to where it is)
endif
endif
else
$(error MPI=$(MPI): accepted values are openmpi (the default) and mpich)
endif
export MPICH_PREFIX
PREFIX ?= /usr/local
CFLAGS ?= -O2 -g
VERSION = 0.1.0
SOMAJOR = 0

# PAPI is optional: without papi.h the library builds, counts no events and says so at run
# time; with PAPI's libsde it also exports its own counters as software-defined events
# (docs/papi-sde.md). PAPI=no builds without both.
ifeq ($(origin PAPI),undefined)
PAPI := $(if $(shell printf '\043include <papi.h>\n' | $(CC) $(shell pkg-config --cflags papi 2>/dev/null) -E -x c - >/dev/null 2>&1 && echo y),yes,no)
endif
ifeq ($(origin SDE),undefined)
SDE := $(if $(filter yes,$(PAPI)),$(if $(shell printf '\043include <sde_lib.h>\nint main(void){return !papi_sde_init("x");}\n' | $(CC) $(shell pkg-config --cflags papi 2>/dev/null) -x c - -o /dev/null $(shell pkg-config --libs-only-L papi 2>/dev/null) -lsde >/dev/null 2>&1 && echo y),yes,no),no)
endif
ifneq ($(PAPI),yes)
$(info libxmpi: building without PAPI (no papi.h, or PAPI=no): work is what programs declare, no events are counted)
else ifneq ($(SDE),yes)
$(info libxmpi: building without PAPI's libsde (no sde_lib.h or libsde, or SDE=no): its counters are not exported to PAPI)
endif
# ISA-L is optional: with isa-l/crc.h the checkpoints' CRC-32 runs about 8 times faster than
# zlib's (same values; docs/checkpoint.md). ISAL=no builds with zlib's alone.
ifeq ($(origin ISAL),undefined)
ISAL := $(if $(shell printf '\043include <isa-l/crc.h>\nint main(void){return (int)crc32_gzip_refl(0,0,0);}\n' | $(CC) -x c - -o /dev/null -lisal >/dev/null 2>&1 && echo y),yes,no)
endif
ifneq ($(ISAL),yes)
$(info libxmpi: building without ISA-L (no isa-l/crc.h or libisal, or ISAL=no): checkpoints use zlib's slower CRC-32)
endif
ISAL_CFLAGS = $(if $(filter yes,$(ISAL)),-DXMPI_HAVE_ISAL)
ISAL_LIBS = $(if $(filter yes,$(ISAL)),-lisal)
# OTF2 is optional: with otf2/otf2.h (Debian's libotf2-trace-dev) --xmpi-otf2=DIR writes an OTF2
# archive for HPC performance tools (libxmpi/otf2.c); OTF2=no, or without it, the option is
# refused at start-up.
ifeq ($(origin OTF2),undefined)
OTF2 := $(if $(shell printf '\043include <otf2/otf2.h>\nint main(void){return OTF2_Archive_Close(0) == 0;}\n' | $(CC) -x c - -o /dev/null -lotf2 >/dev/null 2>&1 && echo y),yes,no)
endif
ifneq ($(OTF2),yes)
$(info libxmpi: building without OTF2 (no otf2/otf2.h or libotf2, or OTF2=no): --xmpi-otf2 is refused at start-up)
endif
OTF2_CFLAGS = $(if $(filter yes,$(OTF2)),-DXMPI_HAVE_OTF2)
OTF2_LIBS = $(if $(filter yes,$(OTF2)),-lotf2)
PAPI_CFLAGS = $(if $(filter yes,$(PAPI)),-DXMPI_HAVE_PAPI $(shell pkg-config --cflags papi 2>/dev/null)) $(if $(filter yes,$(SDE)),-DXMPI_HAVE_SDE)
XCFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -fPIC -fvisibility=hidden -Iinclude $(PAPI_CFLAGS) $(ISAL_CFLAGS) $(OTF2_CFLAGS)
SDE_LIBS = $(if $(filter yes,$(SDE)),-lsde)
PAPI_LIBS = $(if $(filter yes,$(PAPI)),$(shell pkg-config --libs papi 2>/dev/null || echo -lpapi)) $(SDE_LIBS)
HWLOC_LIBS = $(shell pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
# GLPK (policies/mapping.c): Debian's libglpk-dev ships no .pc file, hence the fallback.
GLPK_LIBS = $(shell pkg-config --libs glpk 2>/dev/null || echo -lglpk)
# zlib: the CRC-32 of checkpoint files (libxmpi/ckpt.c).
ZLIB_LIBS = $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)
DEP_LIBS = $(PAPI_LIBS) $(HWLOC_LIBS) $(GLPK_LIBS) $(ISAL_LIBS) $(ZLIB_LIBS) $(OTF2_LIBS) -lm -pthread
# The example programs and their plain-MPI twins: hot loops aligned to 32 bytes in both builds,
# so that the library build's extra calls cannot move an inner loop across a 32-byte fetch
# boundary where the plain build's is not (Jacobi's sweep ran 10-25% slower that way;
# docs/benchmarks.md, make bench-overhead). Clear it to build with the compiler's defaults.
EXAMPLE_CFLAGS ?= -falign-loops=32
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck)

# The pure layers (io -> models -> policies; docs/architecture.md) build with the plain C
# compiler into one archive that the library, the unit tests and the tools link; libxmpi/ is
# the MPI runtime.
PURE_SRC := $(wildcard io/*.c models/*.c policies/*.c)
PURE_OBJ := $(PURE_SRC:%.c=$(BUILD)/obj/%.o)
RT_SRC   := $(wildcard libxmpi/*.c)
RT_OBJ   := $(RT_SRC:%.c=$(BUILD)/obj/%.o)
LIB_OBJ  := $(RT_OBJ) $(PURE_OBJ)
LIBPURE = $(BUILD)/lib/libxmpi-pure.a
# Runtime modules without MPI calls that the unit tests exercise directly.
UNIT_RT_OBJ = $(addprefix $(BUILD)/obj/libxmpi/,errors.o emulate.o crc.o)
LIBA  = $(BUILD)/lib/libxmpi.a
LIBSO = $(BUILD)/lib/libxmpi.so.$(VERSION)
# examples/: the applications users run and read, each with its plain-MPI twin.
EXAMPLES = $(BUILD)/bin/jacobi $(BUILD)/bin/jacobi-plain $(BUILD)/bin/cg $(BUILD)/bin/cg-plain \
           $(BUILD)/bin/epidemic $(BUILD)/bin/epidemic-plain $(BUILD)/bin/xmpi-spmd \
           $(BUILD)/bin/heat $(BUILD)/bin/heat-plain $(BUILD)/bin/cg3d $(BUILD)/bin/cg3d-plain
# benchmarks/: what only measures.
BENCH = $(BUILD)/bin/overhead-micro $(BUILD)/bin/xmpi-redistbench $(BUILD)/bin/xmpi-opmodel \
        $(BUILD)/bin/xmpi-ampdecide $(BUILD)/bin/xmpi-crbench $(BUILD)/bin/xmpi-scalebench \
        $(BUILD)/bin/xmpi-scalerank0
# tools/: the installed programs; the pure ones link only the pure archive (no MPI).
PURE_TOOLS = $(BUILD)/bin/xmpi-info $(BUILD)/bin/xmpi-interfere $(BUILD)/bin/xmpi-rms $(BUILD)/bin/xmpi-report
MPI_TOOLS = $(BUILD)/bin/xmpi-calibrate $(BUILD)/bin/xmpi-spawnbench $(BUILD)/bin/xmpi-spawnbench-child
TOOLS = $(PURE_TOOLS) $(MPI_TOOLS)
UNIT_SRC := $(wildcard tests/unit/*.c)
MPI_TESTS := $(patsubst tests/mpi/%.c,$(BUILD)/tests/%,$(wildcard tests/mpi/*.c))
# Programs link the shared library and find it next to them, in the tree or installed.
LINK_XMPI = -L$(BUILD)/lib -lxmpi -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: FORCE all hooks lib examples bench tools tests check check-cluster check-slurm check-conformance demo demo-classes install uninstall clean bench-overhead bench-spawn bench-redist bench-cr bench-dlb bench-model bench-policies bench-amp bench-halo bench-scale soak deps
all: lib examples bench tools hooks

# The commit rule (scripts/check-commits) as a commit-msg hook, in a git checkout; make check
# checks the history too (tests/sh/commits.sh).
hooks:
	@if git rev-parse --git-dir >/dev/null 2>&1 && [ "$$(git config core.hooksPath)" != .githooks ]; then \
	    git config core.hooksPath .githooks && echo "libxmpi: commit-msg hook installed (.githooks, scripts/check-commits)"; fi

# The MPI compiler a build directory was made with: what MPI compiles is made again when it
# changes (another MPICC into the same BUILD), so that two MPI libraries never mix in one tree.
$(BUILD)/mpi-id: FORCE
	@mkdir -p $(@D); echo '$(MPICC)' | cmp -s - $@ || echo '$(MPICC)' >$@
$(RT_OBJ) $(EXAMPLES) $(BENCH) $(MPI_TOOLS) $(MPI_TESTS) $(BUILD)/tests/unit: $(BUILD)/mpi-id

lib: $(LIBA) $(LIBSO) $(LIBPURE)

$(BUILD)/obj/libxmpi/%.o: libxmpi/%.c Makefile
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -MMD -MP -c $< -o $@

# No mpicc here: a pure module that reached for MPI would not compile.
$(PURE_OBJ): $(BUILD)/obj/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -MMD -MP -c $< -o $@

$(LIBPURE): $(PURE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBA): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	@mkdir -p $(@D)
	$(MPICC) -shared -Wl,-soname,libxmpi.so.$(SOMAJOR) -o $@ $^ $(DEP_LIBS)
	ln -sf libxmpi.so.$(VERSION) $(BUILD)/lib/libxmpi.so.$(SOMAJOR)
	ln -sf libxmpi.so.$(VERSION) $(BUILD)/lib/libxmpi.so

examples: $(EXAMPLES)

bench: $(BENCH)

tools: $(TOOLS)

# Command-line tools use only the pure archive (no MPI), and the linker takes from it only
# the modules a tool calls.
$(PURE_TOOLS): $(BUILD)/bin/%: tools/%.c $(LIBPURE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBPURE) $(HWLOC_LIBS) $(GLPK_LIBS) -lm

$(BUILD)/bin/jacobi: examples/jacobi.c examples/example_util.h examples/example_timed.h tools/cli.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI) -lm

$(BUILD)/bin/cg: examples/cg.c examples/example_util.h examples/example_timed.h tools/cli.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI) -lm

$(BUILD)/bin/epidemic: examples/epidemic.c examples/example_util.h examples/example_timed.h tools/cli.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI) -lm

# The halo examples (issue 38): a stencil code and a CG written as plain MPI first.
$(BUILD)/bin/heat $(BUILD)/bin/cg3d: $(BUILD)/bin/%: examples/%.c examples/example_util.h examples/example_timed.h tools/cli.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI) -lm

$(BUILD)/bin/heat-plain $(BUILD)/bin/cg3d-plain: $(BUILD)/bin/%-plain: examples/%.c examples/example_util.h examples/example_timed.h tools/cli.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -DXMPI_PLAIN -o $@ $< -lm

# The thesis's malleable SPMD example (Fig. 5.14): XMPI_Eval_reconfig is all it calls.
$(BUILD)/bin/xmpi-spmd: examples/spmd.c include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI)

$(BUILD)/bin/overhead-micro: benchmarks/overhead_micro.c tools/median.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI)

$(BUILD)/bin/xmpi-spawnbench: tools/xmpi-spawnbench.c tools/median.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI)

$(BUILD)/bin/xmpi-redistbench: benchmarks/redistbench.c tools/median.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI)

$(BUILD)/bin/xmpi-crbench: benchmarks/crbench.c tools/median.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LINK_XMPI)

# The calibration file's writer and parser are hidden inside libxmpi.so: the binary takes
# them from the pure archive and links the library for MPI_Init, XMPI_Spawn and XMPI_Remove.
$(BUILD)/bin/xmpi-calibrate: tools/xmpi-calibrate.c tools/cli.h tools/median.h include/xmpi.h io/calibration.h $(LIBPURE) $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBPURE) $(LINK_XMPI) $(GLPK_LIBS) -lm

# Plain MPI, without libxmpi: the model's own objects predict, so the prediction is judged
# against MPI alone.
$(BUILD)/bin/xmpi-opmodel: benchmarks/opmodel.c tools/cli.h tools/median.h models/hockney.h io/calibration.h $(LIBPURE)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBPURE) $(GLPK_LIBS) -lm

# No MPI: AMP's decision timed from the pure archive, with the plain C compiler. Not installed.
$(BUILD)/bin/xmpi-ampdecide: benchmarks/ampdecide.c tools/cli.h tools/median.h policies/amp.h policies/mapping.h $(LIBPURE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBPURE) $(GLPK_LIBS) -lm

# The library's steps at the job's size (make bench-scale): it reads the library's step clock
# (libxmpi/stepclock.h), so it links the static library, as the MPI tests do. Not installed.
$(BUILD)/bin/xmpi-scalebench: benchmarks/scalebench.c tools/median.h include/xmpi.h libxmpi/stepclock.h io/interval.h $(LIBA)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBA) $(DEP_LIBS)

# No MPI: rank 0's pure steps on synthetic jobs of up to 16384 processes (make bench-scale).
$(BUILD)/bin/xmpi-scalerank0: benchmarks/scalerank0.c tools/median.h $(LIBPURE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(XCFLAGS) -o $@ $< $(LIBPURE) $(HWLOC_LIBS) $(GLPK_LIBS) -lm

# The raw-MPI child of the spawn benchmark must not link libxmpi.
$(BUILD)/bin/xmpi-spawnbench-child: tools/xmpi-spawnbench-child.c
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) -o $@ $<

$(BUILD)/bin/jacobi-plain: examples/jacobi.c examples/example_util.h examples/example_timed.h tools/cli.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -DXMPI_PLAIN -o $@ $< -lm

$(BUILD)/bin/cg-plain: examples/cg.c examples/example_util.h examples/example_timed.h tools/cli.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -DXMPI_PLAIN -o $@ $< -lm

$(BUILD)/bin/epidemic-plain: examples/epidemic.c examples/example_util.h examples/example_timed.h tools/cli.h
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(EXAMPLE_CFLAGS) $(XCFLAGS) -DXMPI_PLAIN -o $@ $< -lm

tests: $(BUILD)/tests/unit $(MPI_TESTS)

$(BUILD)/tests/unit: $(UNIT_SRC) $(wildcard tests/unit/*.h) $(LIBPURE) $(UNIT_RT_OBJ)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) $(CHECK_CFLAGS) -o $@ $(UNIT_SRC) $(UNIT_RT_OBJ) $(LIBPURE) $(CHECK_LIBS) $(HWLOC_LIBS) $(GLPK_LIBS) $(ISAL_LIBS) $(ZLIB_LIBS) -lm

$(BUILD)/tests/%: tests/mpi/%.c include/xmpi.h $(LIBA)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(XCFLAGS) $(CHECK_CFLAGS) -o $@ $< $(LIBA) $(DEP_LIBS) $(CHECK_LIBS)

# ---- contract tests (tests/contract, issue 36) ---------------------------------------------
# Programs written from include/xmpi.h alone, each check quoting the header sentence it tests
# (tests/sh/promises.sh checks the quotes; tests/sh/contract.sh runs them). They link the shared
# library as a user's program does, from build/tests/contract/.
CONTRACT_TESTS := $(patsubst tests/contract/%.c,$(BUILD)/tests/contract/%,$(wildcard tests/contract/*.c))
CONTRACT_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -Iinclude
tests: $(CONTRACT_TESTS)
$(CONTRACT_TESTS): $(BUILD)/mpi-id
$(BUILD)/tests/contract/%: tests/contract/%.c tests/contract/contract.h include/xmpi.h $(LIBSO)
	@mkdir -p $(@D)
	$(MPICC) $(CFLAGS) $(CONTRACT_CFLAGS) -o $@ $< -L$(BUILD)/lib -lxmpi -Wl,-rpath,'$$ORIGIN/../../lib'
# ---- end of contract tests ------------------------------------------------------------------

# The README's test command: unit tests, MPI scenarios under timeouts, CLI and install checks.
check: all tests
	MPICC="$(MPICC)" MPIRUN="$(MPIRUN)" tests/run.sh $(BUILD)

# Malleable Jacobi on 3 test hosts (network namespaces, scripts/testbed; root), not part of
# check: it says SKIP with the reason where it cannot run. docs/cluster.md.
check-cluster: all
	MPIRUN="$(MPIRUN)" CC="$(CC)" tests/cluster/run.sh $(BUILD)

# Malleable Jacobi under a Slurm of its own (--xmpi-rms=slurm) on 3 test hosts (root), not part
# of check: it says SKIP with the reason where Slurm or the test hosts cannot run. docs/cluster.md.
check-slurm: all
	MPIRUN="$(MPIRUN)" CC="$(CC)" tests/slurm/run.sh $(BUILD)

# MPICH's own test suite (Debian's mpich source, test/mpi) built for this MPI twice, plain and
# linked with libxmpi; fails on a test that passes plain and fails linked. Not part of check:
# the first run fetches the source and builds the suite (docs/testing.md#conformance).
check-conformance: all
	MPICC="$(MPICC)" MPIRUN="$(MPIRUN)" scripts/conformance.sh $(BUILD)

deps:
	scripts/install-deps.sh$(if $(filter mpich,$(MPI)), --mpich)

demo: deps
	$(MAKE) all
	MPIRUN="$(MPIRUN)" scripts/demo.sh $(BUILD)

demo-classes: all
	MPIRUN="$(MPIRUN)" scripts/demo-classes.sh $(BUILD)

bench-spawn: all $(BUILD)/tests/test_leave
	MPIRUN="$(MPIRUN)" scripts/bench-spawn.sh $(BUILD)

bench-redist: all
	MPIRUN="$(MPIRUN)" scripts/bench-redist.sh $(BUILD)

bench-dlb: all
	MPIRUN="$(MPIRUN)" scripts/bench-dlb.sh $(BUILD)

bench-cr: all
	MPIRUN="$(MPIRUN)" scripts/bench-cr.sh $(BUILD)

bench-model: all
	MPIRUN="$(MPIRUN)" scripts/bench-model.sh $(BUILD)

bench-policies: all
	MPIRUN="$(MPIRUN)" scripts/bench-policies.sh $(BUILD)

bench-amp: all
	MPIRUN="$(MPIRUN)" scripts/bench-amp.sh $(BUILD)

# cg3d's bytes per process and iteration at 2-16 processes against its halo, and what the halo
# views' rebuild costs inside a move (docs/benchmarks.md).
bench-halo: all
	MPIRUN="$(MPIRUN)" scripts/bench-halo.sh $(BUILD)

soak: all tests
	MPIRUN="$(MPIRUN)" scripts/soak.sh $(BUILD)

bench-overhead: all
	MPIRUN="$(MPIRUN)" scripts/bench-overhead.sh $(BUILD)/bin

# What each of the library's steps costs as the job grows: 2 to 64 processes oversubscribed,
# rank 0's pure steps up to 16,384, with fitted slopes (docs/scale.md).
bench-scale: all
	MPIRUN="$(MPIRUN)" scripts/bench-scale.sh $(BUILD)

# docs/options.md is generated from the option table (io/options.c), so that it
# cannot drift from the code; tests/sh/docs.sh fails when it differs.
.PHONY: docs
docs: $(BUILD)/bin/xmpi-info
	@mkdir -p docs
	$(BUILD)/bin/xmpi-info --options-markdown > docs/options.md.tmp && mv docs/options.md.tmp docs/options.md

# What install puts in bin/ besides the renamed benchmarks, and the man pages; uninstall removes
# the same list, line for line.
INSTALL_TOOLS = $(TOOLS)
MAN1 = $(wildcard docs/man/man1/*.1)
MAN3 = $(wildcard docs/man/man3/*.3)

install: all
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin \
	           $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man3
	install -m 644 include/xmpi.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libxmpi.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxmpi.so.$(SOMAJOR)
	ln -sf libxmpi.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxmpi.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' -e 's|@PAPI_PC@|$(if $(filter yes,$(PAPI)),papi )|' \
	    -e 's|@SDE_LIBS@|$(if $(SDE_LIBS), $(SDE_LIBS))|' -e 's|@ISAL_LIBS@|$(if $(ISAL_LIBS), $(ISAL_LIBS))|' \
	    -e 's|@OTF2_LIBS@|$(if $(OTF2_LIBS), $(OTF2_LIBS))|' xmpi.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/xmpi.pc
	install -m 755 $(BUILD)/bin/jacobi $(DESTDIR)$(PREFIX)/bin/xmpi-jacobi
	install -m 755 $(BUILD)/bin/jacobi-plain $(DESTDIR)$(PREFIX)/bin/xmpi-jacobi-plain
	install -m 755 $(BUILD)/bin/cg $(DESTDIR)$(PREFIX)/bin/xmpi-cg
	install -m 755 $(BUILD)/bin/cg-plain $(DESTDIR)$(PREFIX)/bin/xmpi-cg-plain
	install -m 755 $(BUILD)/bin/epidemic $(DESTDIR)$(PREFIX)/bin/xmpi-epidemic
	install -m 755 $(BUILD)/bin/heat $(DESTDIR)$(PREFIX)/bin/xmpi-heat
	install -m 755 $(BUILD)/bin/heat-plain $(DESTDIR)$(PREFIX)/bin/xmpi-heat-plain
	install -m 755 $(BUILD)/bin/cg3d $(DESTDIR)$(PREFIX)/bin/xmpi-cg3d
	install -m 755 $(BUILD)/bin/cg3d-plain $(DESTDIR)$(PREFIX)/bin/xmpi-cg3d-plain
	$(foreach t,$(INSTALL_TOOLS),install -m 755 $(t) $(DESTDIR)$(PREFIX)/bin/;)
	install -m 755 tools/xmpi-resume $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(MAN1) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 $(MAN3) $(DESTDIR)$(PREFIX)/share/man/man3/

# Directories stay: they may hold other packages' files.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/xmpi.h
	rm -f $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBA))
	rm -f $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIBSO))
	rm -f $(DESTDIR)$(PREFIX)/lib/libxmpi.so.$(SOMAJOR)
	rm -f $(DESTDIR)$(PREFIX)/lib/libxmpi.so
	rm -f $(DESTDIR)$(PREFIX)/lib/pkgconfig/xmpi.pc
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-jacobi
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-jacobi-plain
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-cg
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-cg-plain
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-epidemic
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-heat
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-heat-plain
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-cg3d
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-cg3d-plain
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_TOOLS)))
	rm -f $(DESTDIR)$(PREFIX)/bin/xmpi-resume
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man3/,$(notdir $(MAN3)))

clean:
	rm -rf $(BUILD)

-include $(LIB_OBJ:.o=.d)

# ==== Fortran 2008 (module xmpi_f08) and the CMake package ===================================
# The module (include/xmpi_f08.f90) compiles with the MPI's Fortran wrapper into
# $(BUILD)/include/*.mod and libxmpi_f08.{a,so}, which link libxmpi; built when that wrapper
# and its mpi_f08 are there (scripts/fortran-probe says what is missing otherwise, and the
# Fortran tests skip saying it). MPIFC on the command line chooses another wrapper.
ifeq ($(MPI),mpich)
MPIFC = $(MPICH_PREFIX)/bin/mpifort
else
MPIFC ?= $(subst mpicc,mpifort,$(MPICC))
endif
FFLAGS ?= -O2 -g
XFFLAGS = -Wall -Wextra -Werror -fPIC -J$(BUILD)/include
# The Fortran Jacobi must reproduce the C one bit for bit: no fused multiply-adds (C11 mode
# makes gcc keep a * b + c as two roundings; gfortran would contract them where the CPU has FMA).
EXAMPLE_FFLAGS ?= -ffp-contract=off
ifneq ($(filter-out clean deps,$(or $(MAKECMDGOALS),all)),)
F08_STATUS := $(shell scripts/fortran-probe '$(MPIFC)' '$(BUILD)')
endif
F08_OBJ = $(BUILD)/obj/f08/xmpi_f08.o
F08_LIBA = $(BUILD)/lib/libxmpi_f08.a
F08_LIBSO = $(BUILD)/lib/libxmpi_f08.so.$(VERSION)
F08_MODS = $(BUILD)/include/xmpi_f08.mod $(BUILD)/include/xmpi_f08_core.mod
F08_PROGS = $(BUILD)/bin/jacobi-f08 $(BUILD)/tests/f08_api
LINK_XMPI_F08 = -I$(BUILD)/include -L$(BUILD)/lib -lxmpi_f08 -lxmpi -Wl,-rpath,'$$ORIGIN/../lib'

.PHONY: fortran install-fortran uninstall-fortran install-cmake uninstall-cmake
all: fortran
install: install-fortran install-cmake
uninstall: uninstall-fortran uninstall-cmake

ifeq ($(F08_STATUS),yes)
fortran: $(F08_LIBA) $(F08_LIBSO) $(F08_PROGS)

$(F08_OBJ) $(F08_PROGS): $(BUILD)/mpi-id

# One compilation makes the object and both .mod files.
$(F08_OBJ): include/xmpi_f08.f90 Makefile
	@mkdir -p $(@D) $(BUILD)/include
	$(MPIFC) $(FFLAGS) $(XFFLAGS) -c $< -o $@
$(F08_MODS): $(F08_OBJ)

$(F08_LIBA): $(F08_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(F08_LIBSO): $(F08_OBJ) $(LIBSO)
	@mkdir -p $(@D)
	$(MPIFC) -shared -Wl,-soname,libxmpi_f08.so.$(SOMAJOR) -Wl,-rpath,'$$ORIGIN' -o $@ $(F08_OBJ) -L$(BUILD)/lib -lxmpi
	ln -sf libxmpi_f08.so.$(VERSION) $(BUILD)/lib/libxmpi_f08.so.$(SOMAJOR)
	ln -sf libxmpi_f08.so.$(VERSION) $(BUILD)/lib/libxmpi_f08.so

$(BUILD)/bin/jacobi-f08: examples/jacobi_f08.f90 $(F08_LIBSO)
	@mkdir -p $(@D)
	$(MPIFC) $(FFLAGS) $(EXAMPLE_FFLAGS) -Wall -Wextra -Werror -J$(BUILD)/obj/f08 -o $@ $< $(LINK_XMPI_F08)

# The contract test compares values bit for bit on purpose.
$(BUILD)/tests/f08_api: tests/fortran/f08_api.f90 $(F08_LIBSO)
	@mkdir -p $(@D)
	$(MPIFC) $(FFLAGS) -Wall -Wextra -Werror -Wno-compare-reals -J$(BUILD)/obj/f08 -o $@ $< $(LINK_XMPI_F08)

install-fortran: fortran
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 644 $(F08_MODS) $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(F08_LIBA) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(F08_LIBSO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libxmpi_f08.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxmpi_f08.so.$(SOMAJOR)
	ln -sf libxmpi_f08.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libxmpi_f08.so
else
fortran:
	@echo "libxmpi: no Fortran module: $(F08_STATUS)"
install-fortran:
	@echo "libxmpi: no Fortran module to install: $(F08_STATUS)"
endif

# Whatever was built, uninstall removes (directories stay).
uninstall-fortran:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/,$(notdir $(F08_MODS)))
	rm -f $(DESTDIR)$(PREFIX)/lib/$(notdir $(F08_LIBA)) $(DESTDIR)$(PREFIX)/lib/$(notdir $(F08_LIBSO))
	rm -f $(DESTDIR)$(PREFIX)/lib/libxmpi_f08.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libxmpi_f08.so

# find_package(xmpi) from PREFIX/lib/cmake/xmpi: the files locate the prefix from where they
# are (so a DESTDIR tree works where it lies), and name the MPI compilers libxmpi was built
# with, so that FindMPI picks the same MPI.
CMAKE_FILES = xmpiConfig.cmake xmpiConfigVersion.cmake xmpiTargets.cmake
CMAKE_DIR = $(DESTDIR)$(PREFIX)/lib/cmake/xmpi
install-cmake:
	install -d $(CMAKE_DIR)
	$(foreach f,$(CMAKE_FILES),sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOMAJOR@|$(SOMAJOR)|g' \
	    -e 's|@MPICC@|$(shell command -v $(MPICC) 2>/dev/null || echo $(MPICC))|g' \
	    -e 's|@MPIFC@|$(shell command -v $(MPIFC) 2>/dev/null || echo $(MPIFC))|g' cmake/$(f).in >$(CMAKE_DIR)/$(f);)

uninstall-cmake:
	rm -f $(addprefix $(CMAKE_DIR)/,$(CMAKE_FILES))
