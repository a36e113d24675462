#!/usr/bin/env bash
# setup.sh — set up a fresh Debian 12 machine for mpilens and run it.
#
#   ./setup.sh example   install what is missing, build, run examples/ring.c
#                        on 4 ranks under `mpilens run`, say where the trace is
#   ./setup.sh test      install what is missing, build, run the whole test suite
#   ./setup.sh deps      only install the Debian packages
#
# Installing needs root (apt-get); run as root or with sudo.
set -euo pipefail
cd "$(dirname "$0")"

PKGS=(build-essential python3 pkg-config openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran
      libdw-dev libelf-dev libotf2-trace-dev otf2-tools valgrind clang
      lammps lammps-examples hpcc python3-mpi4py strace
      zlib1g-dev chromium nodejs)

deps() {
    local missing=()
    for p in "${PKGS[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}" >&2
    if [ "$(id -u)" -ne 0 ]; then
        echo "setup: these Debian packages are missing and installing them needs root: rerun as root (or with sudo)" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
    make -j2 >/dev/null
}

browser() {
    # playwright-core (pinned in tests/browser/package-lock.json) drives
    # Debian's chromium in the tests of `mpilens view` (Debian's npm only
    # where the nodejs installed brings none)
    if ! command -v npm >/dev/null; then
        PKGS=(npm)
        deps
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
    deps ;;
example)
    deps
    build
    mpi_env
    mkdir -p build/example
    mpicc.openmpi -g -O1 -o build/example/ring examples/ring.c
    out=build/example/mpilens-ring-$$
    build/bin/mpilens run -n 4 -o "$out" build/example/ring 5
    echo "setup: the trace is in $out/ (one file per rank); look at it with:"
    echo "  build/bin/mpilens dump $out"
    build/bin/mpilens dump "$out" --rank 0 | head -n 12 ;;
test)
    deps
    build
    browser
    mpi_env
    exec tests/run "${@:2}" ;;
*)
    echo "usage: $0 example|test|deps" >&2
    exit 2 ;;
esac
