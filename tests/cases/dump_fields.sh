# mpilens dump prints what the calls were, as the contract says:
#   <rank> <thread> <start_s> <end_s> <MPI_Routine> <file:line|func+off> [key=value ...]
# checked on tests/programs/dumpcheck.c (4 ranks, both MPIs): call sites,
# comm=, peer= as a world rank (also for a wildcard receive and on a
# reordered communicator), tag=, bytes=, type=, req=, result= for a failed
# call, end >= start, times ordered per thread, --rank R; communicators by
# name (comm=MPI_COMM_WORLD, comm=MPI_Comm_split#N for the reversed one, and
# its '#' line: created by MPI_Comm_split at dumpcheck.c:<line>, its
# members); every key dump prints is explained in `mpilens dump --help`.
# An MPI_Sendrecv whose halves have different types (rank 0 sends 4
# MPI_INT = 16 bytes tag 45 to rank 3 and receives 1 MPI_DOUBLE = 8 bytes
# tag 46 from it): the receive half's type is recv_type=, and no line holds
# a key twice.  Before: both halves' types were 'type=' (type=MPI_INT ...
# type=MPI_DOUBLE: read as key=value pairs, the send's type was the double).
# The MPI_Wait completing rank 0's MPI_Isend (2 MPI_CHAR to rank 2, tag 44)
# shows that send: peer=2 tag=44 bytes=2, in done= too.  A send's status is
# undefined but for MPI_Test_cancelled; the dump printed it: 'peer=0 tag=0
# bytes=0' on MPICH, 'peer=PROC_NULL tag=-1 bytes=0' on Open MPI.
need_mpilens
src=$ROOT/tests/programs/dumpcheck.c
for impl in openmpi mpich; do
    same_with_runtime "$impl" 4 dumpcheck || [ -d "$LAST_RUN/run" ] || continue
    d=$LAST_RUN
    if ! "$MPILENS" dump "$d/run" >"$d/dump.txt" 2>"$d/dump.err"; then
        soft_fail "$impl: mpilens dump failed: $(head -c 300 "$d/dump.err")"
        continue
    fi
    grep -av '^#' "$d/dump.txt" >"$d/ev.txt"
    [ -s "$d/ev.txt" ] || { soft_fail "$impl: no events"; continue; }
    bad=$(grep -avE '^[0-9]+ [0-9]+ [0-9]+\.[0-9]+ [0-9]+\.[0-9]+ MPI_[A-Za-z0-9_]+ [^ ]+( [a-z_]+=[^ ]+)*$' "$d/ev.txt" | head -2 | tr '\n' '|')
    [ -z "$bad" ] || soft_fail "$impl: lines not in the contract's format: ${bad:0:300}"
    bad=$(awk '$4 + 0 < $3 + 0' "$d/ev.txt" | head -1)
    [ -z "$bad" ] || soft_fail "$impl: event ending before it starts: $bad"
    bad=$(awk '{ k = $1 " " $2; if ((k in last) && $3 + 0 < last[k]) { print; exit } last[k] = $3 + 0 }' "$d/ev.txt")
    [ -z "$bad" ] || soft_fail "$impl: events of a thread not in time order: $bad"
    # one event: rank routine marker -> its line
    ev() { awk -v r="$1" -v f="$2" '$1 == r && $5 == f' "$d/ev.txt"; }
    site_ok() {  # what line marker
        local l; l=$(line_of "$src" "/* at:$3 */")
        [[ $2 =~ \ (.*/)?dumpcheck\.c:$l\  ]] || soft_fail "$impl: $1: site is not dumpcheck.c:$l: ${2:0:200}"
    }
    has() {  # what line field=value...
        local w=$1 l=$2 kv; shift 2
        for kv in "$@"; do
            [[ " $l " == *" $kv "* ]] || soft_fail "$impl: $w: no '$kv' in: ${l:0:200}"
        done
    }
    e=$(ev 0 MPI_Send | head -1)
    [ -n "$e" ] || soft_fail "$impl: rank 0 MPI_Send not recorded"
    site_ok "rank 0 MPI_Send" "$e " send42
    has "rank 0 MPI_Send" "$e" peer=1 tag=42 bytes=64 type=MPI_INT
    world=$(sed -n 's/.* comm=\([^ ]*\).*/\1/p' <<<"$e")
    assert_eq MPI_COMM_WORLD "$world" "$impl: rank 0 MPI_Send's comm="
    e=$(ev 1 MPI_Recv | head -1)
    site_ok "rank 1 MPI_Recv(ANY_SOURCE)" "$e " recvany
    has "rank 1 MPI_Recv(ANY_SOURCE)" "$e" peer=0 tag=42 bytes=64 type=MPI_INT
    e=$(ev 1 MPI_Send | head -1)
    site_ok "rank 1 MPI_Send on the reversed comm" "$e " sendrev
    has "rank 1 MPI_Send on the reversed comm" "$e" peer=3 tag=43 bytes=8 type=MPI_DOUBLE
    rc=$(sed -n 's/.* comm=\([^ ]*\).*/\1/p' <<<"$e")
    [ -n "$rc" ] && [ "$rc" != "$world" ] || soft_fail "$impl: the reversed comm has comm=$rc, world has comm=$world"
    [[ $rc =~ ^MPI_Comm_split#[0-9]+$ ]] || soft_fail "$impl: the reversed comm is comm=$rc, not MPI_Comm_split#N"
    l=$(line_of "$src" "/* at:split */")
    grep -qE "^# rank 1 comm $rc: created by MPI_Comm_split at (.*/)?dumpcheck\.c:$l, 4 ranks: 3,2,1,0\$" "$d/dump.txt" ||
        soft_fail "$impl: no '# rank 1 comm $rc: created by MPI_Comm_split at dumpcheck.c:$l, 4 ranks: 3,2,1,0' line: $(grep -m2 '^# rank 1 comm' "$d/dump.txt")"
    # every key printed is explained by --help
    "$MPILENS" dump --help >"$d/help.txt"
    for k in $(grep -o ' [a-z_]*=' "$d/ev.txt" | sort -u | tr -d ' '); do
        case $k in recv_*) k='recv_*=' ;; esac
        grep -qF -- "$k" "$d/help.txt" || soft_fail "$impl: dump prints $k, its --help does not explain it"
    done
    e=$(ev 3 MPI_Recv | head -1)
    site_ok "rank 3 MPI_Recv on the reversed comm" "$e " recvrev
    has "rank 3 MPI_Recv on the reversed comm" "$e" peer=1 tag=43 bytes=8
    e=$(ev 2 MPI_Send | head -1)
    site_ok "rank 2 failing MPI_Send" "$e " badsend
    [[ $e == *" result="* ]] || soft_fail "$impl: rank 2 failing MPI_Send has no result=: ${e:0:200}"
    e=$(ev 0 MPI_Isend | head -1)
    site_ok "rank 0 MPI_Isend" "$e " isend
    has "rank 0 MPI_Isend" "$e" peer=2 tag=44 bytes=2 type=MPI_CHAR
    [[ $e =~ \ req=0x[0-9a-f]+ ]] || soft_fail "$impl: rank 0 MPI_Isend has no req=0x..: ${e:0:200}"
    e=$(ev 0 MPI_Wait | head -1)
    has "rank 0 MPI_Wait of its MPI_Isend" "$e" peer=2 tag=44 bytes=2
    [[ $e =~ \ done=0x[0-9a-f]+/2/44/2( |$) ]] || soft_fail "$impl: rank 0 MPI_Wait of its MPI_Isend: done= is not HANDLE/2/44/2: ${e:0:200}"
    e=$(ev 2 MPI_Irecv | head -1)
    site_ok "rank 2 MPI_Irecv" "$e " irecv
    has "rank 2 MPI_Irecv" "$e" peer=0 tag=44
    e=$(ev 0 MPI_Sendrecv | head -1)
    site_ok "rank 0 MPI_Sendrecv" "$e " sendrecv
    has "rank 0 MPI_Sendrecv" "$e" peer=3 tag=45 bytes=16 type=MPI_INT recv_peer=3 recv_tag=46 recv_bytes=8 recv_type=MPI_DOUBLE
    e=$(ev 3 MPI_Sendrecv | head -1)
    has "rank 3 MPI_Sendrecv" "$e" peer=0 tag=46 bytes=8 type=MPI_DOUBLE recv_peer=0 recv_tag=45 recv_bytes=16 recv_type=MPI_INT
    bad=$(awk '{ delete seen; for (i = 7; i <= NF; i++) { k = $i; sub(/=.*/, "", k); if (k in seen) { print; next } seen[k] = 1 } }' "$d/ev.txt" | head -2)
    [ -z "$bad" ] || soft_fail "$impl: a key twice on one line: ${bad:0:300}"
    # six small MPI_Isends completed by one MPI_Waitall: each completion is
    # its own send, in order (both MPIs gave all six one handle, and every
    # completion showed the last send: /3/55/4 six times); then a freed
    # request's handle given again: the MPI_Wait is the send made last
    e=$(ev 0 MPI_Waitall | head -1)
    site_ok "rank 0 MPI_Waitall" "$e " waitall
    [[ $e =~ \ done=0x[0-9a-f]+/1/50/4,0x[0-9a-f]+/2/51/4,0x[0-9a-f]+/3/52/4,0x[0-9a-f]+/1/53/4,0x[0-9a-f]+/2/54/4,0x[0-9a-f]+/3/55/4( |$) ]] ||
        soft_fail "$impl: rank 0 MPI_Waitall of six MPI_Isends: done= is not the six sends in order: ${e:0:300}"
    e=$(ev 0 MPI_Wait | tail -1)
    site_ok "rank 0 MPI_Wait of the send of tag 57" "$e " wait57
    has "rank 0 MPI_Wait of the send of tag 57" "$e" peer=1 tag=57 bytes=4
    for r in 0 1 2 3; do
        e=$(ev $r MPI_Bcast | head -1)
        site_ok "rank $r MPI_Bcast" "$e " bcast
        has "rank $r MPI_Bcast" "$e" "comm=$world"
        [[ " $e " == *" result="* ]] && soft_fail "$impl: rank $r MPI_Bcast has a result=: ${e:0:200}"
    done
    # the successful calls carry no result=
    n=$(grep -c ' result=' "$d/ev.txt")
    assert_eq 1 "$n" "$impl: events with result="
    # --rank
    "$MPILENS" dump "$d/run" --rank 2 2>/dev/null | grep -av '^#' >"$d/r2.txt"
    others=$(awk '$1 != 2' "$d/r2.txt" | wc -l)
    mine=$(wc -l <"$d/r2.txt")
    want=$(awk '$1 == 2' "$d/ev.txt" | wc -l)
    assert_eq 0 "$others" "$impl: events of other ranks in dump --rank 2"
    assert_eq "$want" "$mine" "$impl: events in dump --rank 2"
done
