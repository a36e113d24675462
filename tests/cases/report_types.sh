# report_types: messages of derived datatypes (tests/programs/rep_types.c:
# vector, indexed, struct, resized, hindexed_block, MPI_Type_dup, a type
# named "halo column", MPI_BYTE, MPI_PACKED, count 0), 2 ranks through
# `mpilens run`, both MPIs.  report --json: matched messages and bytes, the
# MPI_Send and MPI_Recv routine bytes equal what the program computed
# (count x MPI_Type_size), no finding.  dump: every field after the call
# site is one key=value token; the resized double and the dup of MPI_FLOAT
# are derived#N(8) and derived#N(4) (Open MPI names both "Dup <old name>":
# the dump said 'type=Dup MPI_DOUBLE', a wrong name in two tokens), the
# named vector is type=halo_column (it was 'type=halo column').
# report --all (text): MPI_Type_create_hindexed_block (30 characters, the
# longest name the program calls) keeps the columns aligned: in the Routines
# table every row's calls cell ends in the column where the header's 'calls'
# ends, in the critical path's "by routine" list every time cell ends in one
# column; no line is wider than the report's 100 columns (docs/REPORT.md).
# Before: the Routines table's name column was 24 wide, so that row's cells
# stood 6 columns right of the others (2 in the by-routine list), and the
# call-site tables were 103 and 104 columns wide.
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    p=$(prog $impl rep_types) || continue
    d=$TEST_TMP/$impl
    mkdir -p "$d"
    (cd "$d" && mpilens_run $impl "$d/run" 2 "$p") >"$d/out" 2>"$d/err" ||
        { soft_fail "$impl: run failed: $(head -c 300 "$d/err")"; continue; }
    expect=$(grep '^EXPECT' "$d/out") || { soft_fail "$impl: no EXPECT line"; continue; }
    "$MPILENS" report --json -q "$d/run" >"$d/rep.json" 2>"$d/rep.err" ||
        { soft_fail "$impl: report failed: $(head -c 300 "$d/rep.err")"; continue; }
    r=$(python3 - "$d/rep.json" "$expect" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
exp = dict(kv.split('=') for kv in sys.argv[2].split()[1:])
m = rep['messages']
rb = {x['routine']: x['bytes'] for x in rep['routines']}
checks = [('matched', m['matched'], int(exp['messages'])), ('bytes', m['bytes'], int(exp['bytes'])),
          ('MPI_Send bytes', rb.get('MPI_Send'), int(exp['bytes'])),
          ('MPI_Recv bytes', rb.get('MPI_Recv'), int(exp['bytes'])),
          ('findings', len(rep['findings']), 0)]
print('; '.join('%s: got %s, want %s' % c for c in checks if c[1] != c[2]))
PY
)
    [ -z "$r" ] || soft_fail "$impl: $r"
    "$MPILENS" dump --no-header "$d/run" >"$d/dump" 2>"$d/dump.err" || soft_fail "$impl: dump failed"
    bad=$(awk '{for (i = 7; i <= NF; i++) if ($i !~ /=/) { print; break }}' "$d/dump" | head -3)
    [ -z "$bad" ] || soft_fail "$impl: dump fields that are not key=value: $bad"
    assert_not_contains "$(cat "$d/dump")" "Dup" "$impl: dump"
    ty() { awk -v t="tag=$1" '$5 == "MPI_Send" && $0 ~ " " t " " { for (i = 7; i <= NF; i++) if ($i ~ /^type=/) print substr($i, 6) }' "$d/dump"; }
    [[ $(ty 3) =~ ^derived#[0-9]+\(8\)$ ]] || soft_fail "$impl: the resized double's type: '$(ty 3)'"
    [[ $(ty 5) =~ ^derived#[0-9]+\(4\)$ ]] || soft_fail "$impl: MPI_Type_dup(MPI_FLOAT)'s type: '$(ty 5)'"
    assert_eq "halo_column" "$(ty 6)" "$impl: the named type"
    assert_eq "MPI_PACKED" "$(ty 12)" "$impl: the packed message's type"
    # (from $d: the title lines name the directory as given, here 'run')
    (cd "$d" && "$MPILENS" report --all -q run) >"$d/rep.txt" 2>"$d/rep.err" || soft_fail "$impl: report (text) failed"
    grep -q '^  MPI_Type_create_hindexed_block ' "$d/rep.txt" || soft_fail "$impl: no MPI_Type_create_hindexed_block row"
    # the column where each Routines row's 2nd cell (calls) ends, the header's first
    ends=$(awk '/^Routines/ { on = 1; next } on && /^$/ { on = 0 }
        on && /^  routine / { print index($0, "calls") + 4 }
        on && /^  MPI_/ { match($0, /^  [^ ]+ +[^ ]+/); print RLENGTH }' "$d/rep.txt" | sort -u | tr '\n' ' ')
    [[ $ends =~ ^[0-9]+\ $ ]] || soft_fail "$impl: the Routines table's calls column ends at columns $ends (one expected)"
    ends=$(awk '/by routine:$/ { on = 1; next } on && !/^    MPI_/ { on = 0 }
        on { match($0, /^    [^ ]+ +[0-9.]+ [a-z]+/); print RLENGTH }' "$d/rep.txt" | sort -u | tr '\n' ' ')
    [[ $ends =~ ^[0-9]+\ $ ]] || soft_fail "$impl: the critical path's by-routine times end at columns $ends (one expected)"
    wide=$(awk 'length($0) > 100 { print length($0) ": " $0 }' "$d/rep.txt" | head -2)
    [ -z "$wide" ] || soft_fail "$impl: report lines wider than 100 columns: $wide"
    note "$impl: $expect"
done
