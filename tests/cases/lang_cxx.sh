# tests/programs/ring.cpp through `mpilens run`, Open MPI and MPICH, 3 ranks: output as
# with a plain mpirun; via mpilens dump, each rank's MPI_Send and MPI_Recv
# recorded exactly once per call, at ring.cpp:<line>.  Then C++ names (below).
ring_test ring_cpp ring.cpp c

# C++ names (tests/programs/cxx_names.cpp built here without -g, so the call
# sites are function+0xOFF(module)), both MPIs, 2 ranks through mpilens run:
# demangled in dump, report --json and the Perfetto export (never "_Z...");
# in the text report's call-site table fitted by the one policy (too long
# for the column: on its own line, the outer namespace trimmed first, marked
# "..", the function and offset kept, 100 columns), and the routine name
# MPI_Comm_set_errhandler never cut.
need_mpilens
for impl in openmpi mpich; do
    have_impl "$impl" || { soft_fail "$impl is not installed"; continue; }
    d=$TEST_TMP/names-$impl
    mkdir -p "$d"
    "mpicxx.$impl" -O1 -std=c++17 -o "$d/cxx_names" "$ROOT/tests/programs/cxx_names.cpp" ||
        { soft_fail "$impl: cannot build cxx_names.cpp"; continue; }
    (cd "$d" && "$MPILENS" run -q --mpi="$impl" -n 2 -o "$d/run" ./cxx_names) >"$d/out" 2>&1 ||
        { soft_fail "$impl: mpilens run cxx_names failed: $(head -c 300 "$d/out")"; continue; }
    full='mpilens_outer_namespace::middle_namespace::HaloExchangerWithLongName::reverse_communication_step(int)+0x'
    "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>/dev/null
    n=$(awk -v f="$full" '$5 == "MPI_Sendrecv" && index($6, f) == 1 && $6 ~ /\(cxx_names\)$/' "$d/dump.txt" | wc -l)
    assert_eq 6 "$n" "$impl: dump MPI_Sendrecv at $full..(cxx_names) ($(awk '$5 == "MPI_Sendrecv" { print $6; exit }' "$d/dump.txt"))"
    "$MPILENS" report "$d/run" >"$d/report.txt" 2>/dev/null
    "$MPILENS" report --json "$d/run" >"$d/report.json" 2>/dev/null
    "$MPILENS" export -q "$d/run" -o "$d/trace.json" 2>/dev/null
    for f in dump.txt report.txt report.json trace.json; do
        ! grep -q '_Z[A-Z0-9]' "$d/$f" || soft_fail "$impl: a mangled name in $f: $(grep -o '_Z[A-Za-z0-9_]*' "$d/$f" | head -1)"
    done
    grep -qF "\"$full" "$d/report.json" || soft_fail "$impl: report --json has no call site $full.."
    grep -qF "\"$full" "$d/trace.json" || soft_fail "$impl: the Perfetto export has no site $full.."
    # too long for the column even without its namespaces: on a line of its
    # own above the row, namespaces trimmed first, within 100 columns
    above=$(grep -B1 -E '^ {20,}MPI_Sendrecv ' "$d/report.txt" | head -1)
    [[ $above == "  .."*"::reverse_communication_step(int)+0x"*"(cxx_names)" && $above != *mpilens_outer_namespace* ]] ||
        soft_fail "$impl: the call-site line above the MPI_Sendrecv row is not '..::reverse_communication_step(int)+0x..(cxx_names)': $above"
    grep -qE '^  \S+ +MPI_Comm_set_errhandler ' "$d/report.txt" ||
        soft_fail "$impl: the report's call-site table cuts MPI_Comm_set_errhandler: $(grep -m1 'MPI_Comm_set_err' "$d/report.txt")"
    wide=$(awk '/^Call sites/ { on = 1 } /^Message sizes/ { on = 0 } on && length($0) > 100' "$d/report.txt" | head -2)
    [ -z "$wide" ] || soft_fail "$impl: report lines wider than 100 columns: $wide"
done
