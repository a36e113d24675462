#!/usr/bin/env bash
# setup.sh — set up a fresh Debian 12 machine for mpilens and run it.
#
#   ./setup.sh example   install what building and the example need, build,
#                        run examples/ring.c on 4 ranks under `mpilens run`,
#                        print the report's first screen
#   ./setup.sh test      install that and what the tests use (LAMMPS, HPCC,
#                        mpi4py, ...), build, run the whole test suite
#   ./setup.sh deps      only install the Debian packages (both lists)
#
# Installing needs root (apt-get); run as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")"

# what building mpilens and running the example need
# (libunwind8: the fast unwinder of mpilens run -k, loaded when there; without it libgcc's)
PKGS=(build-essential python3 pkg-config openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
      libdw-dev libelf-dev libotf2-trace-dev zlib1g-dev libunwind8)
# what only the test suite uses (real programs, tools the cases call, the browser of the view tests)
TEST_PKGS=(otf2-tools vite valgrind clang lammps lammps-examples hpcc python3-mpi4py strace chromium nodejs)

say() { echo "setup: $*" >&2; }

deps() {  # PACKAGES...
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        say "Debian packages: all $# present"
        return 0
    fi
    say "installing ${#missing[@]} Debian packages (a few minutes on a fresh machine): ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: these Debian packages are missing and installing them needs root: rerun as root (or with sudo)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    say "apt-get update"
    apt-get update -qq
    say "apt-get install (progress: one line per package)"
    apt-get install -y -q --no-install-recommends "${missing[@]}" | grep --line-buffered '^Setting up' | sed -u 's/^/setup:   /' >&2 || true
    for p in "${missing[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || { say "could not install $p"; exit 1; }
    done
}

build() {
    say "building mpilens (make -j2: the tool, and one runtime per MPI; log in build/setup-make.log)"
    mkdir -p build
    if ! make -j2 >build/setup-make.log 2>&1; then
        tail -20 build/setup-make.log >&2
        say "the build failed (whole log: build/setup-make.log)"
        exit 1
    fi
    say "built build/bin/mpilens and build/lib/mpilens/"
}

browser() {
    # playwright-core (pinned in tests/browser/package-lock.json) drives
    # Debian's chromium in the tests of `mpilens view` (Debian's npm only
    # where the nodejs installed brings none)
    if ! command -v npm >/dev/null; then
        deps npm
    fi
    [ -d tests/browser/node_modules/playwright-core ] ||
        (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

mpi_env() {
    # Open MPI refuses to run as root without these; harmless otherwise.
    if [ "$(id -u)" -eq 0 ]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
}

case "${1:-}" in
deps)
    deps "${PKGS[@]}" "${TEST_PKGS[@]}" ;;
example)
    deps "${PKGS[@]}"
    build
    mpi_env
    mkdir -p build/example
    say "compiling examples/ring.c with mpicc.openmpi -g"
    mpicc.openmpi -g -O1 -o build/example/ring examples/ring.c
    out=build/example/mpilens-ring-$$
    say "running it on 4 ranks under mpilens run"
    build/bin/mpilens run -n 4 -o "$out" build/example/ring 5
    echo
    say "the report's first screen (build/bin/mpilens report $out):"
    echo
    build/bin/mpilens report "$out" | head -n 48
    echo
    say "the trace is in $out/ (one file per rank); more with:"
    echo "  build/bin/mpilens report $out        # the whole report"
    echo "  build/bin/mpilens dump $out --rank 0 # every call of rank 0"
    echo "  build/bin/mpilens export --format=perfetto $out -o ring.json   # open in https://ui.perfetto.dev" ;;
test)
    deps "${PKGS[@]}" "${TEST_PKGS[@]}"
    build
    browser
    mpi_env
    exec tests/run "${@:2}" ;;
*)
    echo "usage: $0 example|test|deps" >&2
    exit 2 ;;
esac
