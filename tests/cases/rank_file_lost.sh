# rank_file_lost: one rank cannot create its rank file (its name is taken by
# a directory): that rank runs unrecorded and says so once on stderr, while
# the others record as usual.  Before the fix the unrecorded rank skipped the
# runtime's hidden collectives at MPI_Init (the clock sync), so the recorded
# ranks waited for it forever.  Both MPIs, C (ok_chain, 3 ranks) and, where
# the Fortran binding calls PMPI_ directly (Open MPI), Fortran (rep_nb.f90,
# losing rank 0 there).  The program ends normally with its own output, the
# report names the missing rank and analyses the others.
# timeout: 240
need_mpilens
for impl in openmpi mpich; do
    have_impl $impl || continue
    need_runtime $impl
    for case in c fortran; do
        if [ $case = c ]; then p=$(prog $impl ok_chain) || continue; lost=1; done_re='^ok_chain done$'
        else p=$(prog $impl rep_nb_f90) || continue; lost=0; done_re='EXPECT'
        fi
        d=$TEST_TMP/$impl-$case
        mkdir -p "$d/run/$(printf 'rank-%05d.mlt' $lost)"
        rt=$(runtime_of $impl)
        case $impl in
        openmpi) launch=(mpirun.openmpi --oversubscribe -x LD_PRELOAD="$rt" -x MPILENS_DIR="$d/run" -n 3 "$p") ;;
        mpich) launch=(mpirun.mpich -genv LD_PRELOAD "$rt" -genv MPILENS_DIR "$d/run" -n 3 "$p") ;;
        esac
        (cd "$d" && timeout -k 5 40 "${launch[@]}") >"$d/out" 2>"$d/err"
        rc=$?
        [ $rc = 124 ] && { soft_fail "$impl $case: the job hung (killed after 40 s) with rank $lost unrecorded"; continue; }
        assert_eq 0 "$rc" "$impl $case: exit status (stderr: $(head -c 300 "$d/err"))"
        assert_eq 1 "$(grep -c "$done_re" "$d/out")" "$impl $case: the program's output"
        assert_eq 1 "$(grep -c "rank-$(printf %05d $lost).mlt.*this process is not recorded" "$d/err")" \
            "$impl $case: the unrecorded rank says so once (stderr: $(head -c 300 "$d/err"))"
        for r in 0 1 2; do
            [ $r = $lost ] && continue
            [ -s "$d/run/$(printf 'rank-%05d.mlt' $r)" ] || soft_fail "$impl $case: rank $r's file missing"
        done
        rmdir "$d/run/$(printf 'rank-%05d.mlt' $lost)"
        "$MPILENS" report -q "$d/run" >"$d/report" 2>"$d/report.err"
        assert_contains "$(cat "$d/report")" "rank $lost: no rank file (it died before its first MPI call, could not create it or" \
            "$impl $case: the report names the missing rank"
    done
done
