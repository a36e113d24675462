#!/usr/bin/env bash
# mpilens run: normal runs on both MPIs, -- mode, exit status, and every bad
# input gets one line, a non-zero exit and no directory left behind: missing,
# non-executable, non-MPI, static, linked against an MPI without a runtime
# (a fake libmpi.so.20), unknown --mpi, existing -o, -o whose parent is
# missing, a file, or not writable (also as root: /proc, chattr +i, a
# read-only tmpfs in a mount namespace, where possible); an unknown option
# of every verb; options that do not apply; report -o an existing file; a program that never calls MPI keeps its exit status; -q
# prints nothing but mpilens's own errors; no -g said once; SIGTERM to
# mpilens run (143) and Ctrl+C (130): one line, the trace kept, no ranks left.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
M=${MPILENS:-$root/build/bin/mpilens}
t=$(mktemp -d); trap 'chattr -i "$t/imm" 2>/dev/null; chmod -R u+w "$t"; rm -rf "$t"' EXIT
cd "$t"
fail=0
bad() { echo "FAIL $*"; fail=1; }
printf '#include <mpi.h>\n#include <stdlib.h>\nint main(int c,char**v){MPI_Init(&c,&v);int r;MPI_Comm_rank(MPI_COMM_WORLD,&r);MPI_Barrier(MPI_COMM_WORLD);MPI_Finalize();return c>1?atoi(v[1]):0;}\n' > p.c
for impl in openmpi mpich; do
    command -v mpicc.$impl >/dev/null || continue
    mpicc.$impl -g -o p-$impl p.c
    "$M" run -q -n 3 -o out-$impl ./p-$impl >/dev/null 2>err; rc=$?
    [ $rc -eq 0 ] || bad "$impl run: exit $rc: $(cat err)"
    n=$(ls out-$impl | grep -c '^rank-0000[0-2].mlt$')
    [ "$n" = 3 ] || bad "$impl run: want 3 rank files, got $(ls out-$impl)"
    [ "$(stat -c %a out-$impl)" = 700 ] || bad "$impl run: directory mode $(stat -c %a out-$impl)"
    [ "$("$M" dump out-$impl --no-header | grep -c ' MPI_Barrier p.c:3')" = 3 ] || bad "$impl: 3 MPI_Barrier at p.c:3 expected"
    "$M" run -q -n 2 -o st-$impl ./p-$impl 3 >/dev/null 2>&1; rc=$?
    [ $rc -eq 3 ] || bad "$impl exit status: want 3, got $rc"
    echo "ok $impl run"
done
launch_o=(mpirun.openmpi --allow-run-as-root -n 2 ./p-openmpi)
"$M" run -q -o dd1 -- "${launch_o[@]}" >/dev/null 2>err && [ "$(ls dd1 | wc -l)" = 2 ] || bad "-- mpirun.openmpi: $(cat err)"
"$M" run -q -o dd2 -- mpiexec.mpich -n 2 ./p-mpich >/dev/null 2>err && [ "$(ls dd2 | wc -l)" = 2 ] || bad "-- mpiexec.mpich: $(cat err)"
echo "ok -- mode"
# bad input
printf 'int main(void){return 0;}\n' > nompi.c; gcc -o nompi nompi.c
gcc -static -o static nompi.c 2>/dev/null || cp nompi static
cp p.c notexec
# a program linked against an MPI library mpilens has no runtime for
mkdir fake
printf 'int MPI_Init(int *c, char ***v) { return 0; }\nint MPI_Finalize(void) { return 0; }\n' > fake/fake.c
gcc -shared -fPIC -Wl,-soname,libmpi.so.20 -o fake/libmpi.so.20 fake/fake.c
printf 'int MPI_Init(int *, char ***); int MPI_Finalize(void);\nint main(int c, char **v) { MPI_Init(&c, &v); return MPI_Finalize(); }\n' > fake/app.c
gcc -o fakempi fake/app.c fake/libmpi.so.20 -Wl,-rpath,"$t/fake"
mkdir exists ro imm rofs; chmod 555 ro; : > afile; : > out; : > err
pre=()  # a command mpilens runs under (a mount namespace)
expect() {  # name, want, args...
    local name=$1 want=$2; shift 2
    before=$(ls -R | sort)
    "${pre[@]}" "$M" run "$@" >out 2>err; local rc=$?
    [ $rc -ne 0 ] && [ $rc -lt 128 ] || { bad "$name: exit $rc"; return; }
    [ "$(wc -l <err)" = 1 ] || { bad "$name: want one line: $(cat err)"; return; }
    grep -q -- "$want" err || { bad "$name: '$want' not in: $(cat err)"; return; }
    [ "$(ls -R | sort)" = "$before" ] || { bad "$name: left $(comm -13 <(echo "$before") <(ls -R | sort))"; return; }
    echo "ok $name: $(cat err)"
}
expect missing "no such program" -n 2 ./nothere
expect notexec "not an executable" -n 2 ./notexec
expect nompi "not linked against MPI" -n 2 ./nompi
expect static "statically linked" -n 2 ./static
expect other-mpi "fakempi is linked against libmpi.so.20, an MPI mpilens has no runtime for (known: Open MPI, MPICH); use --mpi=openmpi|mpich if it is one of them" -n 2 ./fakempi
expect unknown-mpi "unknown MPI" --mpi=lam -n 2 ./p-openmpi
# --mpi naming the other MPI than the program's: the runtime crashed the
# program in MPI_Init (Debian's lmp, linked with Open MPI, under --mpi=mpich)
expect wrong-mpi "p-openmpi is linked against Open MPI (libmpi.so.40), not MPICH: --mpi=mpich cannot record it (say --mpi=openmpi" --mpi=mpich -n 2 ./p-openmpi
expect wrong-launcher "p-openmpi is linked against Open MPI (libmpi.so.40) but mpiexec.mpich is MPICH's launcher: every process would be a job of one rank (use mpirun.openmpi)" -o wl -- mpiexec.mpich -n 2 ./p-openmpi
expect wrong-mpi2 "p-mpich is linked against MPICH, not Open MPI: --mpi=openmpi cannot record it (say --mpi=mpich" --mpi=openmpi -n 2 ./p-mpich
expect exists "already exists: choose another directory with -o" -o exists -n 2 ./p-openmpi
expect no-parent "nodir does not exist.*choose another directory with -o" -o nodir/x -n 2 ./p-openmpi
expect file-parent "afile is not a directory; choose another directory with -o" -o afile/x -n 2 ./p-openmpi
# unwritable: root may write anywhere access() says, so also where mkdir
# still fails for root: /proc, an immutable directory, a read-only mount
expect proc "/proc takes no new directories; choose another directory with -o" -o /proc/mpilens-x -n 2 ./p-openmpi
if [ "$(id -u)" != 0 ]; then
    expect unwritable "ro is not writable.*choose another directory with -o" -o ro/x -n 2 ./p-openmpi
fi
if chattr +i imm 2>/dev/null; then
    expect immutable "imm is not writable.*choose another directory with -o" -o imm/x -n 2 ./p-openmpi
    chattr -i imm
else
    echo "# chattr +i not possible here (file system or privileges)"
fi
if unshare -m sh -c 'mount -t tmpfs -o ro none rofs' 2>/dev/null; then
    pre=(unshare -m sh -c 'mount -t tmpfs -o ro none rofs && exec "$@"' sh)
    expect read-only "rofs is not writable (Read-only file system); choose another directory with -o" -o rofs/x -n 2 ./p-openmpi
    pre=()
else
    echo "# no read-only tmpfs mount possible here (not root, or no mount namespace)"
fi
expect bad-n "wants a number" -n zero ./p-openmpi
expect nothing "nothing after" --
expect noprog "which program" -n 2
"$M" run --help | grep -q 'usage: mpilens run' || bad "--help"
# an unknown option: one line "mpilens VERB: ..." with a hint, exit 2, every verb
for verb in run top dump report agent view calibrate export; do
    "$M" $verb --bogus-flag x >out 2>err; rc=$?
    [ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^mpilens $verb: unknown option.*--bogus-flag.*; try 'mpilens $verb --help'\$" err ||
        bad "$verb --bogus-flag: exit $rc, want 2 and one line 'mpilens $verb: unknown option ...; try ...': $(cat err)"
done
echo "ok unknown options"
# top's table sizes: too small to draw is refused in one line (--width 5 drew a 33-column table)
for o in "--width 5" "--width 31" "--rows 2" "--width ''"; do
    eval "\"\$M\" top --once $o ." >out 2>err; rc=$?
    [ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^mpilens top: --[a-z]* wants a number" err ||
        bad "top $o: exit $rc, want 2 and one line: $(cat err)"
done
# view's options of --serve without it: an error, not silently ignored
for o in "--port 8080" "--window-cap 500"; do
    "$M" view $o -q . -o never.html >out 2>err; rc=$?
    [ $rc = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^mpilens view: .*--serve" err && [ ! -e never.html ] ||
        bad "view $o without --serve: exit $rc, want 2 and one line 'mpilens view: ... --serve': $(cat err)"
done
# report -o an existing file: one line saying so, exit 1, the file intact
echo precious >exists.txt
"$M" report -q -o exists.txt . >out 2>err; rc=$?
[ $rc = 1 ] && [ "$(wc -l <err)" = 1 ] && grep -q "^mpilens report: cannot create exists.txt: File exists (an existing file is never overwritten)\$" err &&
    [ "$(cat exists.txt)" = precious ] || bad "report -o an existing file: exit $rc, want 1 and one line: $(cat err)"
echo "ok options that do not apply, existing outputs"
# exit statuses, -q, debug information, Ctrl+C and SIGTERM, both MPIs
cat > skip.c <<'EOC'
#include <mpi.h>
#include <stdlib.h>
#include <stdio.h>
#include <unistd.h>
/* skip STATUS: exits before MPI_Init (a test that skips itself);
 * softerr: an MPI error returned to the program, which goes on;
 * wait: prints "ready" then waits in MPI_Barrier loops for 60 s */
int main(int c, char **v)
{
    if (c > 2 && !strcmp(v[1], "skip")) return atoi(v[2]);
    MPI_Init(&c, &v);
    int r, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    if (c > 1 && !strcmp(v[1], "softerr")) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (r == 0 && MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD) == MPI_SUCCESS) printf("no error?\n");
    }
    if (c > 1 && !strcmp(v[1], "wait")) {
        if (r == 0) { printf("ready\n"); fflush(stdout); }
        for (int i = 0; i < 600; i++) { usleep(100000); MPI_Barrier(MPI_COMM_WORLD); }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
EOC
sed -i '1i #include <string.h>' skip.c
wait_ready() {  # file: until it says ready (30 s at most)
    for _ in $(seq 1 300); do grep -q ready "$1" 2>/dev/null && return 0; sleep 0.1; done
    return 1
}
for impl in openmpi mpich; do
    command -v mpicc.$impl >/dev/null || continue
    mpicc.$impl -g -o skip-$impl skip.c && mpicc.$impl -o nodbg-$impl p.c || { bad "$impl: compile skip.c"; continue; }
    # a program that never calls MPI keeps its status; -q says nothing
    "$M" run -q -n 2 -o sk0-$impl ./skip-$impl skip 0 >out 2>err; rc=$?
    [ $rc = 0 ] && [ ! -s err ] || bad "$impl skip 0 -q: exit $rc (want 0), stderr: $(cat err)"
    "$M" run -n 2 -o sk1-$impl ./skip-$impl skip 0 >out 2>err; rc=$?
    [ $rc = 0 ] && grep -q "warning: no rank files were written" err || bad "$impl skip 0: exit $rc (want 0) or no warning: $(cat err)"
    "$M" run -q -n 2 -o sk2-$impl ./skip-$impl skip 77 >out 2>err; rc=$?
    [ $rc = 77 ] || bad "$impl skip 77: exit $rc"
    # -q: nothing but mpilens's own fatal errors (no "went on after an MPI error")
    "$M" run -q -n 2 -o se-$impl ./skip-$impl softerr >out 2>err; rc=$?
    [ $rc = 0 ] && [ ! -s err ] || bad "$impl softerr -q: exit $rc, stderr: $(cat err)"
    "$M" run -n 2 -o se2-$impl ./skip-$impl softerr >out 2>err; rc=$?
    [ $rc = 0 ] && grep -q "returned to the program by MPI_Send" err || bad "$impl softerr: exit $rc, no note: $(cat err)"
    # without -g: said once; with -g: not said
    "$M" run -n 2 -o nd-$impl ./nodbg-$impl >out 2>err; rc=$?
    [ $rc = 0 ] && [ "$(grep -c 'has no debug information (built without -g)' err)" = 1 ] ||
        bad "$impl no -g: exit $rc, want one 'no debug information' line: $(cat err)"
    "$M" run -n 2 -o wd-$impl ./p-$impl >out 2>err
    ! grep -q 'no debug information' err || bad "$impl with -g: said no debug information"
    # SIGTERM to mpilens run (a time limit): one line, the trace kept, 143
    "$M" run -n 2 -o term-$impl ./skip-$impl wait >term.out 2>term.err &
    pid=$!
    if wait_ready term.out; then
        kill -TERM $pid; wait $pid; rc=$?
        [ $rc = 143 ] || bad "$impl SIGTERM: exit $rc, want 143: $(tail -3 term.err)"
        grep -q "^mpilens: terminated from outside (SIGTERM to mpilens run at [0-9:]*): the job was stopped; 2 rank files in term-$impl/" term.err ||
            bad "$impl SIGTERM: no 'terminated from outside' line: $(tail -3 term.err)"
        ! grep -q "FAILED\|failure diagnosis" term.err || bad "$impl SIGTERM: a failure diagnosis: $(grep -m2 FAILED term.err)"
        [ "$(ls term-$impl | grep -c '^rank-.*\.mlt$')" = 2 ] || bad "$impl SIGTERM: rank files: $(ls term-$impl)"
        pgrep -f "skip-$impl wait" >/dev/null && { bad "$impl SIGTERM: ranks left running"; pkill -9 -f "skip-$impl wait"; }
    else
        bad "$impl SIGTERM: the program never said ready: $(cat term.err)"; kill -9 $pid
    fi
    # Ctrl+C (SIGINT to the whole foreground process group): one line, 130
    setsid "$M" run -n 2 -o int-$impl ./skip-$impl wait >int.out 2>int.err &
    pid=$!
    if wait_ready int.out; then
        kill -INT -- -$pid; wait $pid; rc=$?
        [ $rc = 130 ] || bad "$impl Ctrl+C: exit $rc, want 130: $(tail -3 int.err)"
        grep -q "^mpilens: interrupted (Ctrl+C) at [0-9:]*: the job was stopped; 2 rank files in int-$impl/" int.err ||
            bad "$impl Ctrl+C: no 'interrupted' line: $(tail -3 int.err)"
        ! grep -q "FAILED\|failure diagnosis" int.err || bad "$impl Ctrl+C: a failure diagnosis: $(grep -m2 FAILED int.err)"
        pgrep -f "skip-$impl wait" >/dev/null && { bad "$impl Ctrl+C: ranks left running"; pkill -9 -f "skip-$impl wait"; }
    else
        bad "$impl Ctrl+C: the program never said ready: $(cat int.err)"; kill -9 -- -$pid
    fi
    echo "ok $impl statuses, -q, -g, SIGTERM, Ctrl+C"
done
# A process that dies inside MPI_Init (here the MPICH runtime preloaded by
# hand into an Open MPI program: SIGSEGV in MPI_Comm_rank) has a file with
# its launcher's rank and no size: dump and report said 'rank 0 of -1'
rtm=$(dirname "$M")/../lib/mpilens/libmpilens-mpich.so
if [ -f "$rtm" ] && command -v mpiexec.mpich >/dev/null; then
    timeout 60 mpiexec.mpich -genv LD_PRELOAD "$rtm" -genv MPILENS_DIR "$t/ininit" -n 2 ./p-openmpi >/dev/null 2>&1
    h=$("$M" dump ininit 2>&1 | grep -m1 '^# rank 0')
    case $h in
    "# rank 0 (MPI_Init never completed): pid "*", mpich, state "*) echo "ok died in MPI_Init: dump" ;;
    *) bad "died in MPI_Init: dump's header: $h" ;;
    esac
    "$M" report ininit >/dev/null 2>err
    grep -q 'rank-00000.mlt: the process never completed MPI_Init; skipped$' err && ! grep -q 'of -1' err ||
        bad "died in MPI_Init: report: $(head -2 err)"
    "$M" report --failures ininit >out 2>&1
    grep -q 'how: signal SIGSEGV' out || bad "died in MPI_Init: no SIGSEGV in the diagnosis: $(head -5 out)"
fi
exit $fail
