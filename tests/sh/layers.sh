#!/usr/bin/env bash
# The layering rule of docs/architecture.md, checked on every include: libxmpi -> policies ->
# models -> io, and nothing pure reaches MPI or the runtime.
# shared: the includes, compiled without mpicc
. "$(dirname "$0")/lib.sh"

# includes FILE [TEXT]: the quoted includes of FILE (its text read from TEXT when given, so
# that a sample can pretend to live anywhere), resolved to paths relative to the repository.
includes() {
    local dir; dir=$(dirname "$1")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "${2:-$ROOT/$1}" |
        while read -r inc; do realpath -m --relative-to="$ROOT" "$ROOT/$dir/$inc"; done
}

# layer_of PATH: the layer a repository path belongs to.
layer_of() {
    case $1 in
        io/*) echo io ;;
        models/*) echo models ;;
        policies/*) echo policies ;;
        libxmpi/*) echo runtime ;;
        include/*) echo api ;;
        examples/*) echo examples ;;
        tools/*) echo tools ;;
        *) echo other ;;
    esac
}

# allowed FROM TO: may a file of layer FROM include one of layer TO?
allowed() {
    case $1:$2 in
        io:io) return 0 ;;
        models:io|models:models) return 0 ;;
        policies:io|policies:models|policies:policies) return 0 ;;
        runtime:*) return 0 ;;
        tools:io|tools:models|tools:policies|tools:tools|tools:api) return 0 ;;
        benchmarks:*) return 0 ;;
        # The examples are what users read and copy: the public header and their own helpers.
        examples:api|examples:examples|examples:tools) return 0 ;;
        *) return 1 ;;
    esac
}

# violations FILE LAYER [TEXT]: prints each include of FILE that crosses a layer the wrong way.
violations() {
    local f=$1 from=$2 text=${3:-$ROOT/$1}
    for inc in $(includes "$f" "$text"); do
        local to; to=$(layer_of "$inc")
        allowed "$from" "$to" || echo "$f includes $inc ($from may not include $to)"
    done
    # The pure layers build without mpicc: <mpi.h> or PAPI there is a layer error too.
    if [ "$from" != runtime ] && [ "$from" != tools ] && [ "$from" != examples ] && [ "$from" != benchmarks ] && grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(mpi|papi)\.h>' "$text" >/dev/null; then
        echo "$f includes <mpi.h> or <papi.h> (pure code makes no MPI or PAPI call)"
    fi
}

scan() {
    local bad=""
    for f in $(cd "$ROOT" && ls io/*.[ch] models/*.[ch] policies/*.[ch] libxmpi/*.[ch] tools/*.[ch] \
                                  examples/*.[ch] benchmarks/*.[ch]); do
        local layer; layer=$(layer_of "$f")
        case $f in benchmarks/*) layer=benchmarks ;; esac
        bad+=$(violations "$f" "$layer")
    done
    printf '%s' "$bad"
}

out=$(scan)
if [ -z "$out" ]; then ok "no include crosses a layer the wrong way"; else notok "wrong-way includes:"; echo "$out" | sed 's/^/#   /'; fi

# Internal macros and enumerators are XMPIR_: an XMPI_ name defined outside include/xmpi.h
# would read as public API.
public_prefix() {
    (cd "$ROOT" && grep -nE '^[[:space:]]*#[[:space:]]*define[[:space:]]+XMPI_[A-Z0-9_]+' \
        libxmpi/*.[ch] models/*.[ch] io/*.[ch] policies/*.[ch] tools/*.c 2>/dev/null)
}
out=$(public_prefix)
if [ -z "$out" ]; then ok "no internal macro takes the public XMPI_ prefix"; else notok "internal XMPI_ macros:"; echo "$out" | sed 's/^/#   /'; fi

# The check itself must catch a violation: a pure file that includes the runtime, and an io/
# file that includes a model. The samples live in a temporary file, never in the tree.
fake=$(mktemp)
printf '#include "../libxmpi/runtime.h"\n#include <mpi.h>\n' >"$fake"
v=$(violations "models/selftest.c" models "$fake")
check "a models/ file including libxmpi/ and <mpi.h> is caught" [ "$(printf '%s\n' "$v" | grep -c .)" -eq 2 ]
printf '#include "../models/hockney.h"\n' >"$fake"
v=$(violations "io/selftest.c" io "$fake")
check "an io/ file including models/ is caught" [ "$(printf '%s\n' "$v" | grep -c .)" -eq 1 ]
printf '#include "../libxmpi/context.h"\n' >"$fake"
v=$(violations "examples/selftest.c" examples "$fake")
check "an example including the runtime's internals is caught" [ "$(printf '%s\n' "$v" | grep -c .)" -eq 1 ]
rm -f "$fake"

# Comments state the rule and the reason: a figure names the benchmark that measures it, never
# a date or "this VM" (dated measurements belong in commit bodies and docs/notes/).
dated() {
    (cd "$ROOT" && grep -nE '20[0-9]{2}-[01][0-9]-[0-3][0-9]|this VM|(project|our)'"'"'s VMs?\b' \
        libxmpi/*.[ch] models/*.[ch] io/*.[ch] policies/*.[ch] include/*.h 2>/dev/null)
}
out=$(dated)
if [ -z "$out" ]; then ok "no library comment cites a date or 'this VM'"; else notok "dated comments:"; echo "$out" | sed 's/^/#   /'; fi
