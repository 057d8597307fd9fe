#!/usr/bin/env bash
# The layering rule of docs/architecture.md, checked on every include: libxmpi -> policies ->
# models -> models/formats, and nothing pure reaches MPI or the runtime.
. "$(dirname "$0")/lib.sh"

# includes FILE: the quoted includes of FILE, resolved to paths relative to the repository.
includes() {
    local dir; dir=$(dirname "$1")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$ROOT/$1" |
        while read -r inc; do realpath -m --relative-to="$ROOT" "$ROOT/$dir/$inc"; done
}

# layer_of PATH: the layer a repository path belongs to.
layer_of() {
    case $1 in
        models/formats/*) echo formats ;;
        models/*) echo models ;;
        policies/*) echo policies ;;
        libxmpi/*) echo runtime ;;
        include/*) echo api ;;
        *) echo other ;;
    esac
}

# allowed FROM TO: may a file of layer FROM include one of layer TO?
allowed() {
    case $1:$2 in
        formats:formats) return 0 ;;
        models:formats|models:models) return 0 ;;
        policies:formats|policies:models|policies:policies) return 0 ;;
        runtime:*) return 0 ;;
        tools:formats|tools:models|tools:policies) return 0 ;;
        *) return 1 ;;
    esac
}

# violations FILE LAYER: prints each include of FILE that crosses a layer the wrong way.
violations() {
    local f=$1 from=$2
    for inc in $(includes "$f"); do
        local to; to=$(layer_of "$inc")
        allowed "$from" "$to" || echo "$f includes $inc ($from may not include $to)"
    done
    # The pure layers build without mpicc: <mpi.h> or PAPI there is a layer error too.
    if [ "$from" != runtime ] && grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(mpi|papi)\.h>' "$ROOT/$f" >/dev/null; then
        echo "$f includes <mpi.h> or <papi.h> (pure code makes no MPI or PAPI call)"
    fi
}

scan() {
    local bad=""
    for f in $(cd "$ROOT" && ls models/formats/*.[ch] models/*.[ch] policies/*.[ch] libxmpi/*.[ch] tools/*.c); do
        local layer; layer=$(layer_of "$f")
        case $f in tools/*) layer=tools ;; esac
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
        libxmpi/*.[ch] models/*.[ch] models/formats/*.[ch] policies/*.[ch] tools/*.c 2>/dev/null)
}
out=$(public_prefix)
if [ -z "$out" ]; then ok "no internal macro takes the public XMPI_ prefix"; else notok "internal XMPI_ macros:"; echo "$out" | sed 's/^/#   /'; fi

# The check itself must catch a violation: a pure file that includes the runtime.
fake="$ROOT/models/.layers-selftest-$$.c"
printf '#include "../libxmpi/runtime.h"\n#include <mpi.h>\n' >"$fake"
v=$(violations "models/$(basename "$fake")" models)
rm -f "$fake"
check "a models/ file including libxmpi/ and <mpi.h> is caught" [ "$(printf '%s\n' "$v" | grep -c .)" -eq 2 ]
