#!/usr/bin/env python3
"""Generate the MPI wrappers of one runtime build from the installed MPI.

    genwrap.py --impl openmpi --cc "mpicc.openmpi" --clib /path/libmpi.so.40 \
               --flib /path/libmpi_mpifh.so.40 ... --out build/gen/wrap-openmpi.c

Inputs, all read from the MPI actually installed:
  * the prototypes of mpi.h, preprocessed by the MPI's own compiler wrapper;
  * the dynamic symbol tables of the C library (which MPI_* it exports) and of
    the Fortran libraries (which Fortran entry points exist).

Every C routine that the library exports gets a wrapper; how much of its
arguments is recorded depends on its kind, which is inferred from the MPI
standard's parameter names (dest, source, tag, comm, count, datatype, ...)
plus the small hand-kept table below for request completion and hooks.
A routine nothing is known about still gets an enter/exit record.

Every Fortran entry point (all manglings, mpi_f08) gets a forwarding wrapper
that records the call exactly once (see runtime/rt.h, "Fortran").

The output is build output: never edit it, never commit it.
"""
import argparse
import re
import subprocess
import sys

# ---- hand-kept table ------------------------------------------------------
# Request completion: how requests and statuses are passed.
COMPLETION = {
    'MPI_Wait': 'wait', 'MPI_Test': 'test',
    'MPI_Waitall': 'waitall', 'MPI_Testall': 'testall',
    'MPI_Waitany': 'waitany', 'MPI_Testany': 'testany',
    'MPI_Waitsome': 'waitsome', 'MPI_Testsome': 'testsome',
    'MPI_Start': 'start', 'MPI_Startall': 'startall',
    'MPI_Cancel': 'start', 'MPI_Request_free': 'start',   # the request they act on
}
# Calls after which the runtime must act (the hook runs outside the record).
PRE_HOOK = {
    'MPI_Finalize': 'ml_before_finalize()',
    'MPI_Abort': 'ml_before_abort(&c, a0, a1)',
    'MPI_Comm_free': 'uint64_t h_ = a0 ? ML_HANDLE(*a0) : 0',
    'MPI_Comm_disconnect': 'uint64_t h_ = a0 ? ML_HANDLE(*a0) : 0',
    'MPI_Type_free': 'uint64_t h_ = a0 ? ML_HANDLE(*a0) : 0',
}
# The runtime's own work at MPI_Init (its clock sync: collectives on a
# communicator of its own) runs inside the recorded call, as at MPI_Finalize:
# after the record it would show as the program's computation before its next
# call (150-250 ms with MPICH here).
INIT_HOOK = {
    'MPI_Init': 'ml_after_init(-1)',
    'MPI_Init_thread': 'ml_after_init(ret == MPI_SUCCESS && a3 ? *a3 : -1)',
}
POST_HOOK = {
    'MPI_Finalize': 'ml_after_finalize()',
    'MPI_Comm_free': 'ml_comm_forget(h_)',
    'MPI_Comm_disconnect': 'ml_comm_forget(h_)',
    'MPI_Type_free': 'ml_type_forget(h_)',
    'MPI_Comm_set_name': 'if (ret == MPI_SUCCESS) ml_comm_named(a0)',
}
# Error handlers (runtime/failsafe.c): the program never sees the runtime's
# stand-in for MPI_ERRORS_ARE_FATAL.  set: the handler argument goes through
# ml_fs_eh_in (kind 0 communicator, 1 window, 2 file); get: the result goes
# through ml_fs_eh_out.  Both also when the call is nested in another wrapper.
ERRH_SET = {'MPI_Comm_set_errhandler': 0, 'MPI_Errhandler_set': 0,
            'MPI_Win_set_errhandler': 1, 'MPI_File_set_errhandler': 2}
# The program's own error handler functions go behind a trampoline that
# records the error first (runtime/failsafe.c).
ERRH_CREATE = {'MPI_Comm_create_errhandler': 0, 'MPI_Errhandler_create': 0,
               'MPI_Win_create_errhandler': 1, 'MPI_File_create_errhandler': 2}
ERRH_GET = {'MPI_Comm_get_errhandler', 'MPI_Errhandler_get',
            'MPI_Win_get_errhandler', 'MPI_File_get_errhandler'}
# New windows get the stand-in where their default handler is ERRORS_ARE_FATAL.
WIN_CREATE = re.compile(r'^MPI_Win_(create|allocate|allocate_shared|create_dynamic)(_c)?$')
# (MPI_Ibarrier, MPI_Iallreduce, ...: the letter after the I is lower case)
COLLECTIVE_NAMES = re.compile(
    r'^MPI_I?(Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|'
    r'Alltoall|Alltoallv|Alltoallw|Reduce|Allreduce|Reduce_scatter|'
    r'Reduce_scatter_block|Scan|Exscan|Neighbor_\w+)(_init)?(_c)?$'
    r'|^MPI_I(barrier|bcast|gather|gatherv|scatter|scatterv|allgather|allgatherv|'
    r'alltoall|alltoallv|alltoallw|reduce|allreduce|reduce_scatter|'
    r'reduce_scatter_block|scan|exscan|neighbor_\w+)(_c)?$'
    r'|^MPIX_(Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|'
    r'Alltoall|Alltoallv|Alltoallw|Reduce|Allreduce|Reduce_scatter|'
    r'Reduce_scatter_block|Scan|Exscan|Neighbor_\w+)_init$')
# Persistent collectives (MPI 4.0 MPI_Allreduce_init ...; Open MPI 4.1 has
# them as MPIX_*_init in mpi-ext.h, wrapped too): the init records its
# request (ML_REC_COLL with request, number 0), so that the analysis sees
# each MPI_Start of it as one collective operation (docs/FORMAT.md).
PCOLL_INIT = re.compile(
    r'^MPIX?_(Barrier|Bcast|Gather|Gatherv|Scatter|Scatterv|Allgather|Allgatherv|'
    r'Alltoall|Alltoallv|Alltoallw|Reduce|Allreduce|Reduce_scatter|'
    r'Reduce_scatter_block|Scan|Exscan|Neighbor_\w+)_init(_c)?$')
# Collectives that create a communicator, window or file: they take part in
# the collective order of their communicator like any other collective.
COMM_COLLECTIVES = re.compile(
    r'^MPI_(Comm_(dup|dup_with_info|split|split_type|create)|Intercomm_(create|merge)|Cart_(create|sub)|'
    r'Graph_create|Dist_graph_create(_adjacent)?|Win_(create|allocate|allocate_shared|create_dynamic)|'
    r'File_open)$')
# Collectives on a window or a file: they name no communicator; the one the
# window or file was created on (rt.c, ml_obj_comm) goes into the live slot
# with its next collective number.  (Passive target and general active
# target synchronisation, MPI_Win_lock/post/start/complete/wait, are not
# collective; the nonblocking MPI_File_i*_all are request-based.)
OBJ_COLLECTIVES = re.compile(
    r'^MPI_(Win_(fence|free|set_info)|File_(close|set_size|preallocate|set_view|set_info|set_atomicity|'
    r'sync|seek_shared|(read|write)(_at)?_all(_begin|_end)?|(read|write)_ordered(_begin|_end)?))(_c)?$')
# MPI-IO data access (mlformat.h ML_REC_IO): count x datatype size is the
# call's bytes.  Split collectives count at _begin (_end names no count);
# the nonblocking MPI_File_i* count at their start, not at completion.
IO_RW = re.compile(r'^MPI_File_(i?)(read|write)(_at|_shared)?(_all|_ordered)?(_begin)?(_c)?$')
OBJ_FORGET = re.compile(r'^MPI_(Win_free|File_close)$')
# One-sided communication (mlformat.h ML_REC_P2P, docs/FORMAT.md): peer = the
# target rank in the window's group, with the window's communicator (rt.c
# ml_obj_comm), tag ML_PEER_NONE, bytes = origin count x origin type size
# (MPI_Fetch_and_op, MPI_Compare_and_swap: one element).  The request of
# the R-forms is not recorded.  The analysis tells them from messages by
# routine (analysis/input.c, AN_RMA): nothing is matched.
RMA = re.compile(r'^MPI_(Put|Rput|Get|Rget|Accumulate|Raccumulate|Get_accumulate|Rget_accumulate|'
                 r'Fetch_and_op|Compare_and_swap)(_c)?$')


def coll_counts(name, pnames, ptypes, comm, root, cnt, dt, rc, rt):
    """The counts ml_rec_coll records where the call has count arrays (the v-
    and w-variants: their sums, in bytes of MPI_BYTE for the w-variants) or
    sends a block per neighbour (the neighbourhood collectives: count x
    neighbours, a Cartesian topology's MPI_PROC_NULL neighbours left out).  An array significant at the root alone (MPI_Gatherv's
    receive counts, MPI_Scatterv's send counts) is read at the root only;
    MPI_IN_PLACE for MPI_Alltoallv/w: the send side is the receive side."""
    def at(p):
        return pnames.index(p) if p in pnames else None
    nbr = 1 if 'Neighbor_' in name or 'neighbor_' in name else 0
    scs, rcs, sts, rts = at('sendcounts'), at('recvcounts'), at('sendtypes'), at('recvtypes')
    sbuf = at('sendbuf')
    if comm is not None and re.search(r'[Rr]educe_scatter_block', name) and at('recvcount') is not None:
        # MPI_Reduce_scatter_block: sends recvcount per member, receives its
        # own recvcount, both of datatype (no recvtype: the receive side
        # was recorded as 0 bytes, the send side as none)
        rcnt = 'a%d' % at('recvcount')
        return '(ret == MPI_SUCCESS ? (int64_t)%s * ml_coll_blocks(a%d, 0, 0) : 0)' % (rcnt, comm), dt, rcnt, dt
    if comm is None or (scs is None and rcs is None and not nbr):
        return cnt, dt, rc, rt
    c = 'a%d' % comm

    def c64(i):
        return 1 if 'MPI_Count' in ptypes[i] else 0

    def arr(i, ti, recv, kind=None):
        k = nbr if kind is None else kind
        if ti is not None:
            return ('ml_coll_wbytes(%s, a%d, %d, a%d, %d, %d)' % (c, i, c64(i), ti, k, recv), 'MPI_BYTE')
        return ('ml_coll_sum(%s, a%d, %d, %d, %d)' % (c, i, c64(i), k, recv), None)
    def ok(e):   # the arrays and the communicator are read after a call that succeeded only
        return e if e == '0' or re.match(r'^a\d+$', e) else '(ret == MPI_SUCCESS ? %s : 0)' % e
    isroot = 'ml_coll_isroot(%s, a%d)' % (c, root) if root is not None else None
    if rcs is not None and scs is None and 'sendtype' not in pnames and 'datatype' in pnames:
        # MPI_Reduce_scatter: sends the sum of the counts, receives its own
        cnt = arr(rcs, None, 0, 2)[0]
        rc = 'ml_coll_mine(%s, a%d, %d)' % (c, rcs, c64(rcs))
        return ok(cnt), dt, ok(rc), dt
    if rcs is not None:
        e, t = arr(rcs, rts, 1)
        rc = '(%s ? %s : 0)' % (isroot, e) if isroot else e
        if t:
            rt = t
    elif nbr and rc != '0':
        rc = '(int64_t)%s * ml_coll_peers(%s, 1)' % (rc, c)
    if scs is not None:
        e, t = arr(scs, sts, 0)
        if isroot:
            cnt = '(%s ? %s : 0)' % (isroot, e)
        elif rcs is not None and sbuf is not None and not nbr:
            cnt = '(a%d == MPI_IN_PLACE ? %s : %s)' % (sbuf, rc, e)
            if not t and dt != 'MPI_DATATYPE_NULL' and rt != 'MPI_DATATYPE_NULL':
                dt = '(a%d == MPI_IN_PLACE ? %s : %s)' % (sbuf, rt, dt)
        else:
            cnt = e
        if t:
            dt = t
    elif nbr and cnt != '0':
        cnt = '(int64_t)%s * ml_coll_peers(%s, 0)' % (cnt, c)
    return ok(cnt), dt, ok(rc), rt


def in_place_counts(name, pnames, ptypes, comm, root, cnt, dt, rc, rt):
    """The gather and scatter family with MPI_IN_PLACE, whose send side
    (MPI_Allgather(v), MPI_Alltoall, MPI_Gather(v) at the root) or receive
    side (MPI_Scatter(v) at the root) MPI ignores: that side is the rank's
    own block of the other side (its count and type), as for MPI_Alltoallv
    in coll_counts, not what the ignored arguments hold."""
    if comm is None:
        return cnt, dt, rc, rt
    kinds = ('allgather', 'allgatherv', 'alltoall', 'gather', 'gatherv', 'scatter', 'scatterv')
    b = re.sub(r'(_init)?(_c)?$', '', name[4:].lower())
    if b.startswith('i') and b[1:] in kinds:
        b = b[1:]
    if b not in kinds:
        return cnt, dt, rc, rt
    def at(p):
        return pnames.index(p) if p in pnames else None
    sb, rb, scs, rcs = at('sendbuf'), at('recvbuf'), at('sendcounts'), at('recvcounts')
    c = 'a%d' % comm
    def c64(i):
        return 1 if 'MPI_Count' in ptypes[i] else 0
    if b.startswith('scatter') and rb is not None:
        own = 'ml_coll_mine(%s, a%d, %d)' % (c, scs, c64(scs)) if b.endswith('v') and scs is not None else cnt
        rc = '(a%d == MPI_IN_PLACE ? (int64_t)(%s) : (int64_t)(%s))' % (rb, own, rc)
        rt = '(a%d == MPI_IN_PLACE ? %s : %s)' % (rb, dt, rt)
    elif not b.startswith('scatter') and sb is not None:
        own = 'ml_coll_mine(%s, a%d, %d)' % (c, rcs, c64(rcs)) if b.endswith('v') and rcs is not None else rc
        cnt = '(a%d == MPI_IN_PLACE ? (int64_t)(%s) : (int64_t)(%s))' % (sb, own, cnt)
        dt = '(a%d == MPI_IN_PLACE ? %s : %s)' % (sb, rt, dt)
    return cnt, dt, rc, rt


def obj_arg(ptypes):
    """(position, ML_OBJ_WIN|ML_OBJ_FILE, by pointer) of the window or file argument, or None"""
    for i, t in enumerate(ptypes):
        t = t.replace(' ', '')
        if t in ('MPI_Win{}', 'MPI_Win*{}', 'MPI_File{}', 'MPI_File*{}'):
            return i, 'ML_OBJ_WIN' if t.startswith('MPI_Win') else 'ML_OBJ_FILE', '*' in t
    return None


# Local calls: they never wait for another process and complete nothing, so
# they leave the live slot alone (it keeps showing the last call that
# communicates, and a polling loop that also calls MPI_Wtime still reads as
# polling without progress).  They are still recorded.
LOCAL = re.compile(
    r'^MPI_(Wtime|Wtick|Comm_rank|Comm_size|Comm_remote_size|Comm_test_inter|Comm_compare|'
    r'Comm_get_name|Comm_get_attr|Comm_group|Comm_remote_group|Group_\w+|Get_count|Get_elements|'
    r'Get_elements_x|Status_set_\w+|Test_cancelled|Type_size|Type_size_x|Type_get_extent|'
    r'Type_get_extent_x|Type_get_true_extent|Type_get_true_extent_x|Type_get_name|'
    r'Type_get_envelope|Type_get_contents|Type_get_attr|Initialized|Finalized|Query_thread|'
    r'Is_thread_main|Get_version|Get_library_version|Get_processor_name|Error_string|'
    r'Error_class|Get_address|Address|Aint_add|Aint_diff|Topo_test|Cartdim_get|Cart_get|'
    r'Cart_rank|Cart_coords|Cart_shift|Graphdims_get|Graph_get|Graph_neighbors_count|'
    r'Graph_neighbors|Dist_graph_neighbors_count|Dist_graph_neighbors|[A-Za-z]+_c2f|[A-Za-z]+_f2c)(_c)?$')
# Routines returning int whose value is not an error code: the handle
# conversions (MPI_Comm_c2f gives a Fortran handle).  Their result is never
# recorded nor taken for a failure.  MPI_Status_c2f/f2c return an error code.
NOT_ERRCODE = re.compile(r'^MPI_(?!Status_)[A-Za-z]+_(c2f|f2c)$')
# Handle and status conversions between C and Fortran.
CONVERSION = re.compile(r'^MPI_[A-Za-z]+_(c2f|f2c|c2f08|f082c|f2f08|f082f)$')
TYPE_WORDS = {'int', 'char', 'void', 'double', 'float', 'long', 'short', 'unsigned',
              'signed', 'const', 'struct', 'size_t', 'int64_t', 'uint64_t'}


def strip_attributes(src):
    out, i = [], 0
    while True:
        j = src.find('__attribute__', i)
        if j < 0:
            out.append(src[i:])
            return ''.join(out)
        out.append(src[i:j])
        k = src.index('(', j)
        depth = 0
        while True:
            if src[k] == '(':
                depth += 1
            elif src[k] == ')':
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def parse_prototypes(src):
    """name -> (return type, [(type text with {} for the name, original name)], variadic)"""
    src = strip_attributes(src)
    src = re.sub(r'\s+', ' ', src)
    protos = {}
    for stmt in re.split(r'[;{}]', src):
        m = re.match(r'^\s*((?:extern )?[A-Za-z_][\w \*]*?)\b(MPIX?_\w+)\s*\(([^()]*)\)\s*$', stmt)
        if not m:
            continue
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
        ret = re.sub(r'^(extern|static|inline)\s+', '', ret).strip()
        if name in protos or 'typedef' in ret or (name.startswith('MPIX_') and not PCOLL_INIT.match(name)):
            continue
        plist, variadic = [], False
        if params not in ('', 'void'):
            for p in [x.strip() for x in params.split(',')]:
                if p == '...':
                    variadic = True
                    continue
                am = re.match(r'^(.*?)(\s*(?:\[[^\]]*\]\s*)*)$', p)
                core, arrays = am.group(1).strip(), am.group(2).strip()
                toks = re.findall(r'[A-Za-z_]\w*', core)
                last = toks[-1] if toks else ''
                named = (len(toks) >= 2 and last not in TYPE_WORDS and
                         not last.startswith(('MPI_', 'MPIX_', 'QMPI_')) and core.endswith(last))
                if named:
                    typ = core[:len(core) - len(last)].rstrip() + ' {}' + arrays
                    pname = last
                else:
                    typ = core + ' {}' + arrays
                    pname = ''
                plist.append((typ, pname))
        protos[name] = (ret, plist, variadic)
    return protos


def exported(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True,
                         text=True, check=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in ('T', 'W', 'i'):
            syms.add(f[2])
    return syms


def preprocess(cc, extra_define_src=None):
    src = extra_define_src if extra_define_src else '#include <mpi.h>\n'
    return subprocess.run(cc.split() + ['-E', '-P', '-x', 'c', '-'], input=src,
                          capture_output=True, text=True, check=True).stdout


def is_fortran_name(s):
    """Fortran entry points: mpi_x, mpi_x_, mpi_x__, MPI_X (all caps), *_f08*, MPI_X_f."""
    if s.startswith('mpi_'):
        return True
    if s.startswith('MPI_'):
        if s == s.upper():
            return True
        if re.search(r'_(f|f08|f08ts)_?$', s):
            return True
    return False


def fortran_base(s):
    b = s.lower().rstrip('_')
    b = re.sub(r'_(f08ts_large|f08ts|f08|f)$', '', b)
    return b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--impl', required=True)
    ap.add_argument('--cc', required=True, help='the MPI C compiler wrapper')
    ap.add_argument('--header', required=True, help='path of the installed mpi.h')
    ap.add_argument('--clib', required=True)
    ap.add_argument('--flib', action='append', default=[])
    ap.add_argument('--out', required=True)
    ap.add_argument('--list', help='write the wrapped symbol names here')
    a = ap.parse_args()

    protos = parse_prototypes(preprocess(a.cc))
    # Open MPI hides the MPI-1 routines removed in MPI-3 behind a switch, but
    # still exports them: read their prototypes with the switch on.
    hdr = open(a.header).read()
    compat = re.sub(r'#define OMPI_ENABLE_MPI1_COMPAT 0', '#define OMPI_ENABLE_MPI1_COMPAT 1', hdr)
    extra = {}
    extra_types = []
    if compat != hdr:
        inc = a.header.rsplit('/', 1)[0]
        compat_src = subprocess.run(
            a.cc.split() + ['-E', '-P', '-x', 'c', '-I' + inc, '-'], input=compat,
            capture_output=True, text=True, check=True).stdout
        allp = parse_prototypes(compat_src)
        extra = {k: v for k, v in allp.items() if k not in protos}
        protos.update(extra)
        # types only the switch declares (MPI_Handler_function)
        normal = preprocess(a.cc)
        used = set(re.findall(r'MPI_\w+', ' '.join(t for v in extra.values() for t, _ in v[1])))
        for t in sorted(used):
            if not re.search(r'\b%s\b' % t, normal):
                m = re.search(r'typedef[^;]*\b%s\b[^;]*;' % t, compat_src)
                if m:
                    extra_types.append(m.group(0))

    # Open MPI's persistent collectives (MPIX_*_init, mpi-ext.h)
    ext = subprocess.run(a.cc.split() + ['-E', '-P', '-x', 'c', '-'],
                         input='#include <mpi.h>\n#include <mpi-ext.h>\n',
                         capture_output=True, text=True).stdout
    xprotos = {k: v for k, v in parse_prototypes(ext).items() if k.startswith('MPIX_')}
    protos.update(xprotos)

    csyms = exported(a.clib)
    cnames = sorted((s for s in csyms if (s.startswith('MPI_') or s in xprotos) and not is_fortran_name(s) and s in protos),
                    key=lambda s: (s.startswith('MPIX_'), s))
    missing = sorted(s for s in csyms if s.startswith('MPI_') and not is_fortran_name(s) and s not in protos)
    if missing:
        sys.exit('genwrap: exported but no prototype found: ' + ' '.join(missing))
    fsyms = set(s for s in csyms if is_fortran_name(s))
    for lib in a.flib:
        fsyms |= set(s for s in exported(lib) if is_fortran_name(s))
    fnames = sorted(fsyms)

    routines = list(cnames)
    rid = {n: i for i, n in enumerate(routines)}
    lower = {n.lower(): n for n in cnames}
    fmap = {}
    for f in fnames:
        base = fortran_base(f)
        if base in lower:
            fmap[f] = rid[lower[base]]
        else:
            canon = base.upper()
            if canon not in rid:
                rid[canon] = len(routines)
                routines.append(canon)
            fmap[f] = rid[canon]

    o = []
    w = o.append
    w('/* Generated by runtime/gen/genwrap.py for %s from %s. Do not edit. */' % (a.impl, a.header))
    w('#include "rt.h"')
    w('#include "rt_more.h"')
    if any(n in xprotos for n in cnames):
        w('#include <mpi-ext.h>')
    w('')
    for n in sorted(extra):
        w('#undef %s\n#undef P%s' % (n, n))
    for t in extra_types:
        w(t)
    for n in sorted(extra):
        ret, plist, var = extra[n]
        ps = ', '.join(t.format('') for t, _ in plist) or 'void'
        w('%s %s(%s);\n%s P%s(%s);' % (ret, n, ps, ret, n, ps))
    w('const char *const ml_routine_names[] = {')
    for n in routines:
        w('    "%s",' % n)
    w('};\nconst unsigned ml_nroutines = %d;\n' % len(routines))

    for n in cnames:
        emit_c(w, n, rid[n], protos[n])
    for f in fnames:
        emit_f(w, f, fmap[f], routines[fmap[f]], protos.get(routines[fmap[f]]))
    open(a.out, 'w').write('\n'.join(o) + '\n')
    if a.list:
        open(a.list, 'w').write(''.join('C %s\n' % n for n in cnames) +
                                ''.join('F %s\n' % f for f in fnames))


def emit_c(w, name, rid, proto):
    ret, plist, variadic = proto
    args = ['a%d' % i for i in range(len(plist))]
    pnames = [p[1] for p in plist]
    ptypes = [p[0] for p in plist]
    decl = ', '.join(t.format(args[i]) for i, t in enumerate(ptypes)) or 'void'
    if variadic:
        decl += ', ...'
    call = 'P%s(%s)' % (name, ', '.join(args))
    isint = ret == 'int'

    def idx(*names, typ=None):
        for nm in names:
            for i, p in enumerate(pnames):
                t = ptypes[i].replace(' ', '')
                if p == nm and (typ is None or any(t == x + '{}' for x in typ.split('|'))):
                    return i
        return None

    def typ_of(i):
        return ptypes[i].replace(' ', '').replace('{}', '')

    comm = next((i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Comm{}'), None)
    dest = idx('dest', typ='int')
    source = idx('source', typ='int')
    target = idx('target_rank', typ='int')
    root = idx('root', typ='int')
    tag = idx('tag', 'sendtag', typ='int')
    rtag = idx('recvtag', typ='int')
    status = next((i for i, p in enumerate(pnames) if p == 'status' and typ_of(i) == 'MPI_Status*'), None)
    request = next((i for i, p in enumerate(pnames) if p == 'request' and typ_of(i) == 'MPI_Request*'), None)
    msgi = next((i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Message*{}'), None)
    count = idx('count', 'origin_count', 'sendcount', typ='int|MPI_Count')
    dtype = idx('datatype', 'origin_datatype', 'sendtype', typ='MPI_Datatype')
    rcount = idx('recvcount', typ='int|MPI_Count')
    rtype = idx('recvtype', typ='MPI_Datatype')
    newcomms = [i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Comm*{}'
                and pnames[i] not in ('comm',)]

    eh = next((i for i, t in enumerate(ptypes) if t.replace(' ', '') in ('MPI_Errhandler{}', 'MPI_Errhandler*{}')), None)
    if name in ERRH_SET and eh is not None:
        args_eh = list(args)
        args_eh[eh] = 'ml_fs_eh_in(a%d, %d)' % (eh, ERRH_SET[name])
        call = 'P%s(%s)' % (name, ', '.join(args_eh))
        args = args_eh
    ehc = name in ERRH_CREATE and eh is not None and len(args) == 2
    if ehc:
        args_eh = list(args)
        args_eh[0] = '(%s)ml_fs_eh_fn((void *)a0, %d)' % (ptypes[0].replace('{}', '').strip(), ERRH_CREATE[name])
        call = 'P%s(%s)' % (name, ', '.join(args_eh))
        args = args_eh
    w('%s %s(%s)\n{' % (ret, name, decl))
    w('    struct ml_call c;')
    if ehc:
        w('    if (!ml_enter(&c, %d, __builtin_return_address(0))) {' % rid)
        w('        int r_ = %s;' % call)
        w('        ml_fs_eh_created(r_, a%d);' % eh)
        w('        return r_;')
        w('    }')
    elif name in ERRH_GET and eh is not None:
        w('    if (!ml_enter(&c, %d, __builtin_return_address(0))) {' % rid)
        w('        int r_ = %s;' % call)
        w('        if (r_ == MPI_SUCCESS) ml_fs_eh_out(a%d);' % eh)
        w('        return r_;')
        w('    }')
    elif name in ('MPI_Init', 'MPI_Init_thread', 'MPI_Finalize'):
        # a process that could not record still joins the runtime's hidden
        # collectives (ml_lost_pre/post in runtime/rt.c)
        w('    if (!ml_enter(&c, %d, __builtin_return_address(0))) {' % rid)
        w('        if (ML_LIKELY(!ml_lost)) return %s;' % call)
        w('        ml_lost_pre(%d);' % rid)
        w('        int r_ = %s;' % call)
        w('        ml_lost_post(%d);' % rid)
        w('        return r_;')
        w('    }')
    elif name == 'MPI_Abort':
        w('    if (!ml_enter(&c, %d, __builtin_return_address(0))) {' % rid)
        w('        ml_fs_abort_nested(a1, __builtin_return_address(0), %d);' % rid)
        w('        return %s;' % call)
        w('    }')
    else:
        if CONVERSION.match(name):
            # inside a Fortran binding (MPICH's ROMIO: mpi_file_write_at_all_
            # calls MPI_File_f2c, then PMPI_File_write_at_all): a handle
            # conversion must not take the Fortran wrapper's offer, or the
            # Fortran call is recorded as MPI_File_f2c and lost
            w('    if (ml_th.ok == -1) return %s;' % call)
        w('    if (!ml_enter(&c, %d, __builtin_return_address(0))) return %s;' % (rid, call))
    # MPI_Finalize: the hook takes part in hidden collectives (clock sync):
    # the live slot says MPI_Finalize first (below)
    if name in PRE_HOOK and name != 'MPI_Finalize':
        w('    %s;' % PRE_HOOK[name])
    kind = 'call'
    if name in COMPLETION and isint:
        kind = COMPLETION[name]
    elif comm is not None and dest is not None and source is not None:
        kind = 'sendrecv'
    elif comm is not None and (dest is not None or source is not None or target is not None) and isint:
        kind = 'p2p'
    elif comm is not None and (COLLECTIVE_NAMES.match(name) or root is not None) and isint:
        kind = 'coll'
    ccoll = comm is not None and isint and bool(COMM_COLLECTIVES.match(name))
    local = kind == 'call' and bool(LOCAL.match(name))
    cexpr = 'ML_COMM_NONE'
    if comm is not None and (kind in ('p2p', 'sendrecv', 'coll') or ccoll or newcomms):
        w('    uint16_t ci_ = ml_comm_index(a%d);' % comm)
        cexpr = 'ci_'
    # a collective on a window or file: the communicator behind it (rt.c)
    ocoll = obj_arg(ptypes) if comm is None and isint and OBJ_COLLECTIVES.match(name) else None
    if ocoll:
        oi, okind, optr = ocoll
        w('    uint64_t oh_ = %s;' % (('a%d ? ML_HANDLE(*a%d) : 0' % (oi, oi)) if optr else 'ML_HANDLE(a%d)' % oi))
        w('    uint16_t ci_ = ml_obj_comm(oh_, %s);' % okind)
        cexpr = 'ci_'
    live_comm = cexpr if kind in ('p2p', 'sendrecv', 'coll') or ccoll or ocoll else 'ML_COMM_NONE'

    # The live slot (mlformat.h, struct ml_live): what the call waits for.
    if local:
        pass
    elif kind == 'sendrecv' and rtag is not None:
        w('    ml_live_wait_aux(&c, a%d, a%d, %s, (uint32_t)a%d | (uint64_t)(uint32_t)a%d << 32);'
          % (dest, tag, live_comm, source, rtag))
    elif kind in ('p2p', 'sendrecv'):
        peer = dest if dest is not None else (source if source is not None else target)
        w('    ml_live_wait(&c, a%d, %s, %s);' % (peer, 'a%d' % tag if tag is not None else 'ML_PEER_NONE', live_comm))
    elif (kind == 'coll' or ccoll or ocoll) and not re.search(r'_init(_c)?$', name):
        w('    uint64_t cs_ = ml_coll_next(%s);' % live_comm)
        if name == 'MPI_Intercomm_create' and isint:
            # the local leader, the tag, and the remote leader's world rank
            # + 1 at the local leader above the number (live/deadlock.c)
            w('    ml_live_wait_aux(&c, a1, a4, %s, (cs_ & 0xffffffffu) | (uint64_t)ml_icc_remote(a0, a1, a2, a3) << 32);'
              % live_comm)
        else:
            w('    ml_live_wait_aux(&c, %s, ML_PEER_NONE, %s, cs_);'
              % ('a%d' % root if root is not None else 'ML_PEER_NONE', live_comm))
    elif kind in ('wait', 'test'):
        w('    ml_live_wait_aux(&c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE, a0 ? ML_HANDLE(*a0) : 0);')
    elif kind in ('waitall', 'testall', 'waitany', 'testany', 'waitsome', 'testsome'):
        w('    ml_live_wait_aux(&c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE, (uint64_t)(int64_t)a0);')
    elif name == 'MPI_Request_get_status' and isint:
        w('    ml_live_wait_aux(&c, ML_PEER_NONE, ML_PEER_NONE, ML_COMM_NONE, ML_HANDLE(a0));')
    else:
        w('    ml_live_wait(&c, %s, ML_PEER_NONE, %s);' % ('a%d' % root if root is not None else 'ML_PEER_NONE', live_comm))

    if name == 'MPI_Finalize' and name in PRE_HOOK:
        w('    %s;' % PRE_HOOK[name])

    # Substitute a status of our own where the program ignores it, so the
    # actual source, tag and size of a receive are known.
    st = None
    if status is not None and isint:
        w('    MPI_Status st_, *stp_ = a%d == MPI_STATUS_IGNORE ? &st_ : a%d;' % (status, status))
        args2 = list(args)
        args2[status] = 'stp_'
        call = 'P%s(%s)' % (name, ', '.join(args2))
        st = 'stp_'
    # MPI_Mrecv/MPI_Imrecv: the message their probe matched (requests.c),
    # by its handle before the call sets it to MPI_MESSAGE_NULL
    mrecv = bool(re.match(r'MPI_(Imrecv|Mrecv)(_c)?$', name)) and msgi is not None and isint and kind == 'call'
    if mrecv:
        w('    MPI_Message m_ = a%d ? *a%d : MPI_MESSAGE_NULL;' % (msgi, msgi))
    if kind in COMPLETION.values():
        emit_completion(w, kind, args, ptypes, pnames, call, name)
    else:
        if ret == 'void':
            w('    %s;' % call)
        else:
            w('    %s ret = %s;' % (ret, call))
        if name in INIT_HOOK:
            w('    %s;' % INIT_HOOK[name])
        w('    ml_leave(&c);')
        res = 'ret' if isint and not NOT_ERRCODE.match(name) else 'MPI_SUCCESS'
        if kind == 'p2p':
            peer = dest if dest is not None else (source if source is not None else target)
            cnt = 'a%d' % count if count is not None else '0'
            part = idx('partitions', typ='int|MPI_Count')
            if part is not None and count is not None:
                # MPI_Psend_init/Precv_init: the message is every partition
                cnt = '(int64_t)a%d * (int64_t)a%d' % (part, count)
            dt = 'a%d' % dtype if dtype is not None else 'MPI_DATATYPE_NULL'
            tg = 'a%d' % tag if tag is not None else 'ML_PEER_NONE'
            req = '(a%d ? ML_HANDLE(*a%d) : 0)' % (request, request) if request is not None else '0'
            if name in ('MPI_Improbe',) and st and idx('flag') is not None and msgi is not None:
                # whether it found a message, and which (requests.c)
                flag = idx('flag')
                w('    ml_rec_improbe(&c, %s, a%d, %s, a%d && *a%d, a%d, %s, %s);'
                  % (cexpr, peer, tg, flag, flag, msgi, st, res))
            elif st and dest is None:
                flag = idx('flag')
                w('    ml_rec_p2p_status(&c, %s, %s, a%d, %s, %s, %s, %s, %s, %d, %s);'
                  % (cexpr, dt, peer, tg, cnt, st, req, res, 1 if request is not None else 0,
                     '(a%d && *a%d)' % (flag, flag) if flag is not None else '1'))
                if name == 'MPI_Mprobe' and msgi is not None:
                    # the message, for its MPI_Mrecv/MPI_Imrecv (requests.c)
                    w('    if (%s == MPI_SUCCESS && a%d) ml_msg_note_st(*a%d, %s, %s);' % (res, msgi, msgi, cexpr, st))
            else:
                w('    ml_rec_p2p(&c, %s, %s, a%d, %s, %s, %s, %s, %d);'
                  % (cexpr, dt, peer, tg, cnt, req, res, 1 if request is not None else 0))
        elif kind == 'sendrecv' and count is not None and dtype is not None and request is not None:
            # MPI_Isendrecv(_replace): the request, for the receive half's
            # status at its completion (requests.c)
            rc = 'a%d' % rcount if rcount is not None else 'a%d' % count
            rt = 'a%d' % rtype if rtype is not None else 'a%d' % dtype
            w('    ml_rec_isendrecv(&c, %s, a%d, a%d, a%d, a%d, a%d, %s, %s, a%d, a%d, %s);'
              % (cexpr, dtype, dest, tag, count, source, rt, rc, rtag, request, res))
        elif kind == 'sendrecv' and count is not None and dtype is not None:
            rc = 'a%d' % rcount if rcount is not None else 'a%d' % count
            rt = 'a%d' % rtype if rtype is not None else 'a%d' % dtype
            w('    ml_rec_sendrecv(&c, %s, a%d, a%d, a%d, a%d, a%d, %s, %s, a%d, %s, %s);'
              % (cexpr, dtype, dest, tag, count, source, rt, rc, rtag, st or 'MPI_STATUS_IGNORE', res))
        elif kind == 'coll':
            cnt = 'a%d' % count if count is not None else '0'
            dt = 'a%d' % dtype if dtype is not None else 'MPI_DATATYPE_NULL'
            rc = 'a%d' % rcount if rcount is not None else '0'
            rt = 'a%d' % rtype if rtype is not None else 'MPI_DATATYPE_NULL'
            rr = 'a%d' % root if root is not None else 'ML_PEER_NONE'
            cnt, dt, rc, rt = coll_counts(name, pnames, ptypes, comm, root, cnt, dt, rc, rt)
            cnt, dt, rc, rt = in_place_counts(name, pnames, ptypes, comm, root, cnt, dt, rc, rt)
            req = '(a%d ? ML_HANDLE(*a%d) : 0)' % (request, request) if request is not None else '0'
            if request is not None and not re.search(r'_init(_c)?$', name):
                # nonblocking: the request and the instance number, for the
                # wait-for graph of a Wait on it (mlformat.h ML_REC_COLL)
                w('    ml_rec_coll_req(&c, %s, %s, %s, %s, %s, %s, %s, cs_, %s);' % (cexpr, rr, dt, cnt, rt, rc, req, res))
            elif request is not None and PCOLL_INIT.match(name):
                # persistent: the request (each MPI_Start of it is one
                # operation), number 0 (the init moves nothing)
                w('    ml_rec_coll_req(&c, %s, %s, %s, %s, %s, %s, %s, 0, %s);' % (cexpr, rr, dt, cnt, rt, rc, req, res))
                w('    if (ret == MPI_SUCCESS && a%d) ml_pcoll_note(ML_HANDLE(*a%d));' % (request, request))
            else:
                w('    ml_rec_coll(&c, %s, %s, %s, %s, %s, %s, %s, %s);' % (cexpr, rr, dt, cnt, rt, rc, req, res))
        elif mrecv:
            dti = next(i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Datatype{}')
            w('    ml_rec_mrecv(&c, m_, a%d, %s, %s, %s);'
              % (dti, st or 'NULL', 'a%d' % request if request is not None else 'NULL', res))
        elif local and name in ('MPI_Wtime', 'MPI_Wtick'):
            # runs of them are one record and a REPEAT (rt.h ml_rec_call_timer)
            w('    ml_rec_call_timer(&c, %s);' % res)
        elif local:
            w('    ml_rec_call_local(&c, %s);' % res)
        elif name == 'MPI_Request_get_status' and isint:
            w('    ml_rec_call_flag(&c, ret, a1 && *a1);')
        elif IO_RW.match(name) and isint and count is not None and dtype is not None and obj_arg(ptypes):
            m = IO_RW.match(name)
            fl = 'ML_IO_READ' if m.group(2) == 'read' else 'ML_IO_WRITE'
            if m.group(1):
                fl += ' | ML_IO_NONBLOCKING'
            fi = obj_arg(ptypes)[0]
            w('    ml_rec_io(&c, ML_HANDLE(a%d), a%d, a%d, %s, NULL, %s);' % (fi, dtype, count, fl, res))
        elif RMA.match(name) and isint and target is not None and dtype is not None and obj_arg(ptypes):
            wi = obj_arg(ptypes)[0]
            w('    ml_rec_p2p(&c, ml_obj_comm(ML_HANDLE(a%d), ML_OBJ_WIN), a%d, a%d, ML_PEER_NONE, %s, 0, %s, 0);'
              % (wi, dtype, target, 'a%d' % count if count is not None else '1', res))
        elif name == 'MPI_File_open' and isint and obj_arg(ptypes):
            fi = obj_arg(ptypes)[0]
            fname = next((i for i, t in enumerate(ptypes) if t.replace(' ', '') in ('constchar*{}', 'char*{}')), None)
            w('    ml_rec_io(&c, ret == MPI_SUCCESS && a%d ? ML_HANDLE(*a%d) : 0, MPI_DATATYPE_NULL, 0, ML_IO_OPEN, %s, %s);'
              % (fi, fi, 'a%d' % fname if fname is not None else 'NULL', res))
        else:
            kind = 'call'
            w('    ml_rec_call(&c, %s);' % res)
        group = next((i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Group{}'), None)
        for i in newcomms:
            if name.startswith('MPI_Comm_idup'):
                # the handle exists now; it may be used once the request completes
                w('    if (%s == MPI_SUCCESS) ml_comm_idup(*a%d, %s);' % (res, i, cexpr))
            elif name == 'MPI_Comm_create_group' and group is not None and tag is not None:
                w('    if (%s == MPI_SUCCESS) ml_comm_from_group(*a%d, %s, a%d, (uint32_t)a%d);'
                  % (res, i, cexpr, group, tag))
            elif name == 'MPI_Comm_create_from_group' and group is not None:
                stag = idx('stringtag')
                w('    if (%s == MPI_SUCCESS) ml_comm_from_group(*a%d, ML_COMM_NONE, a%d, %s);'
                  % (res, i, group, 'ml_str_hash(a%d)' % stag if stag is not None else '0'))
            else:
                w('    if (%s == MPI_SUCCESS) ml_comm_created(*a%d, %s);' % (res, i, cexpr))
        if name in POST_HOOK:
            w('    %s;' % POST_HOOK[name])
        if name in ERRH_GET and eh is not None:
            w('    if (ret == MPI_SUCCESS) ml_fs_eh_out(a%d);' % eh)
        if ehc:
            w('    ml_fs_eh_created(ret, a%d);' % eh)
        if WIN_CREATE.match(name):
            win = next(i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_Win*{}')
            w('    if (ret == MPI_SUCCESS) ml_fs_win_created(*a%d);' % win)
            if cexpr == 'ci_':
                w('    if (ret == MPI_SUCCESS) ml_obj_created(ML_HANDLE(*a%d), ML_OBJ_WIN, ci_);' % win)
        if name == 'MPI_File_open' and cexpr == 'ci_':
            fh = next(i for i, t in enumerate(ptypes) if t.replace(' ', '') == 'MPI_File*{}')
            w('    if (ret == MPI_SUCCESS) ml_obj_created(ML_HANDLE(*a%d), ML_OBJ_FILE, ci_);' % fh)
        if ocoll and OBJ_FORGET.match(name):
            w('    if (ret == MPI_SUCCESS) ml_obj_forget(oh_, %s);' % ocoll[1])
        if ret != 'void':
            w('    return ret;')
    w('}\n')


def emit_completion(w, kind, args, ptypes, pnames, call, name):
    """Wait/Test family and Start: record which requests completed."""
    if kind in ('wait', 'test', 'start'):
        w('    uint64_t rq_ = a0 ? ML_HANDLE(*a0) : 0;')
        w('    int ret = %s;' % call)
        w('    ml_leave(&c);')
        if kind == 'wait':
            w('    ml_rec_done(&c, ret, a0 ? 1 : 0, &rq_, stp_, NULL, 0, 1);')
        elif kind == 'test':
            w('    ml_rec_done(&c, ret, a0 && a1 && *a1 ? 1 : 0, &rq_, stp_, NULL, 0, 1);')
        else:
            w('    ml_rec_done(&c, ret, a0 ? 1 : 0, &rq_, NULL, NULL, 0, 1);')
        if name == 'MPI_Request_free':
            w('    if (ret == MPI_SUCCESS) ml_pcoll_forget(rq_);')
        w('    return ret;')
        return
    # array forms: a0 = count, a1 = requests
    w('    uint64_t rqb_[ML_REQ_STACK], *rq_ = ml_req_save(a0, a1, rqb_);')
    if kind == 'startall':
        w('    int ret = %s;' % call)
        w('    ml_leave(&c);')
        w('    ml_rec_done(&c, ret, a0, rq_, NULL, NULL, 0, a0);')
    else:
        sti = next(i for i, p in enumerate(pnames) if p.startswith('array_of_statuses') or p == 'status')
        arr = pnames[sti] == 'array_of_statuses'
        if arr:
            w('    MPI_Status stb_[ML_REQ_STACK], *stp_ = a%d;' % sti)
            w('    if (stp_ == MPI_STATUSES_IGNORE) stp_ = ml_status_buf_req(%s, stb_, rq_, a0);' % ('a0' if kind in ('waitall', 'testall', 'waitsome', 'testsome') else '1'))
        cargs = list(args)
        cargs[sti] = 'stp_'
        call = 'P%s(%s)' % (name, ', '.join(cargs))
        w('    int ret = %s;' % call)
        w('    ml_leave(&c);')
        if kind == 'waitall':
            w('    ml_rec_done(&c, ret, a0, rq_, stp_, NULL, 0, a0);')
        elif kind == 'testall':
            w('    ml_rec_done(&c, ret, a2 && *a2 ? a0 : 0, rq_, stp_, NULL, 0, a0);')
        elif kind == 'waitany':
            w('    ml_rec_done(&c, ret, a2 && *a2 != MPI_UNDEFINED, rq_, stp_, a2, 1, a0);')
        elif kind == 'testany':
            w('    ml_rec_done(&c, ret, a2 && a3 && *a3 && *a2 != MPI_UNDEFINED, rq_, stp_, a2, 1, a0);')
        elif kind in ('waitsome', 'testsome'):
            w('    ml_rec_done(&c, ret, !a2 || !a3 || *a2 == MPI_UNDEFINED ? 0 : *a2, rq_, stp_, a3, 2, a0);')
        if arr:
            w('    if (stp_ != a%d && stp_ != stb_ && stp_ != MPI_STATUSES_IGNORE) free(stp_);' % sti)
    w('    if (rq_ != rqb_) free(rq_);')
    w('    return ret;')


# Fortran entry points that record their requests, statuses or message
# themselves when the binding calls PMPI_ (requests.c).  Positions are the
# MPI standard's argument order (the same in C and Fortran; ierror follows).
F_REQ_P2P = re.compile(r'^MPI_(Isend|Ibsend|Issend|Irsend|Irecv|Send_init|Bsend_init|Ssend_init|'
                       r'Rsend_init|Recv_init)$')
# routine: (kind, count, requests, status(es), ierror, flag, index/outcount, indices)
F_DONE = {
    'MPI_Wait': ('WAIT', None, 0, 1, 2, None, None, None),
    'MPI_Test': ('TEST', None, 0, 2, 3, 1, None, None),
    'MPI_Waitall': ('WAITALL', 0, 1, 2, 3, None, None, None),
    'MPI_Testall': ('TESTALL', 0, 1, 3, 4, 2, None, None),
    'MPI_Waitany': ('WAITANY', 0, 1, 3, 4, None, 2, None),
    'MPI_Testany': ('TESTANY', 0, 1, 4, 5, 3, 2, None),
    'MPI_Waitsome': ('WAITSOME', 0, 1, 4, 5, None, 2, 3),
    'MPI_Testsome': ('TESTSOME', 0, 1, 4, 5, None, 2, 3),
    'MPI_Start': ('START', None, 0, None, 1, None, None, None),
    'MPI_Cancel': ('START', None, 0, None, 1, None, None, None),
    'MPI_Request_free': ('START', None, 0, None, 1, None, None, None),
    'MPI_Startall': ('STARTALL', 0, 1, None, 2, None, None, None),
}
# routine: (sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, comm, status)
F_SENDRECV = {
    'MPI_Sendrecv': (1, 2, 3, 4, 6, 7, 8, 9, 10, 11),
    'MPI_Sendrecv_replace': (1, 2, 3, 4, None, None, 5, 6, 7, 8),
}


def emit_f_special(w, sym, rid, base, names, ptypes, rt, arg):
    """The Fortran wrappers of requests.c; False when sym is not one."""
    nargs = len(names)
    A = lambda i: 'a%d' % i if i is not None else 'NULL'
    head = '#undef %s\nML_FORTRAN_REC(%s, %s, %d, ' % (sym, rt, sym, rid)
    if F_REQ_P2P.match(base) and 'request' in names:
        req = names.index('request')
        w(head + '%s, %s, %s, (void)0, {}, {ml_f_p2p_req(&c, %s, %s, %s, %s, %s, a%d, a%d);}, {})'
          % (arg('comm'), arg('peer'), arg('tag'), arg('comm'), arg('peer'), arg('tag'),
             arg('count'), arg('dtype'), req, nargs))
        return True
    if base in F_DONE:
        kind, cnt, reqs, st, ierr, flag, index, indices = F_DONE[base]
        if ierr != nargs:
            return False
        pre = 'ml_fd_pre(&c, &fd_, ML_FD_%s, %s, a%d, %s)' % (kind, A(cnt), reqs, A(st))
        pre = ('a%d = %s;' % (st, pre)) if st is not None else pre + ';'
        w(head + 'NULL, NULL, NULL, struct ml_fdone fd_; static int ib_ = -1, {%s}, '
          '{ml_fd_record(&c, &fd_, a%d, %s, %s, %s, (void *)real, &ib_);}, {ml_fd_post(&fd_);})'
          % (pre, ierr, A(flag), A(index), A(indices)))
        return True
    if base in F_SENDRECV:
        sc, stp, dest, stag, rc, rtp, src, rtag, comm, st = F_SENDRECV[base]
        if st + 1 != nargs:
            return False
        # the live slot holds both halves (the receive's source and tag in
        # aux, as the C wrapper's): published by PRE, the macro's is skipped
        w(head + 'NULL, NULL, NULL, struct ml_fst1 fs_, {a%d = ml_fst1_pre(&fs_, a%d); '
          'ml_fortran_live_sr(&c, a%d, a%d, a%d, a%d, a%d);}, '
          '{ml_f_sendrecv(&c, &fs_, a%d, a%d, a%d, a%d, a%d, a%d, %s, %s, a%d, a%d);}, {})'
          % (st, st, comm, dest, stag, src, rtag,
             comm, stp, dest, stag, sc, src, A(rtp), A(rc), rtag, nargs))
        return True
    if RMA.match(base) and 'target_rank' in names and nargs < 20:
        # Open MPI's binding calls PMPI_ (MPICH's goes on to the C wrapper)
        types = [t.replace(' ', '') for t in ptypes]
        wi = next((i for i, t in enumerate(types) if t == 'MPI_Win{}'), None)
        cnt = next((i for i, n in enumerate(names) if n in ('origin_count', 'count')), None)
        dt = next((i for i, n in enumerate(names) if n in ('origin_datatype', 'datatype')), None)
        if wi is None or dt is None:
            return False
        w(head + 'NULL, NULL, NULL, (void)0, {}, {ml_f_rma(&c, a%d, a%d, %s, %d, a%d, a%d);}, {})'
          % (wi, names.index('target_rank'), A(cnt), 1 if cnt is not None and 'MPI_Count' in types[cnt] else 0,
             dt, nargs))
        return True
    if base == 'MPI_Improbe' and nargs == 6:
        w(head + 'a2, a0, a1, struct ml_fst1 fs_, {a5 = ml_fst1_pre(&fs_, a5);}, '
          '{ml_f_improbe(&c, &fs_, a2, a0, a1, a3, a4, a6);}, {})')
        return True
    return False


def emit_f(w, sym, rid, routine, proto):
    """Fortran entry point: forward all argument registers and stack slots."""
    base = routine
    dbl = bool(re.search(r'wtime|wtick', sym, re.I)) and 'AINT' not in sym.upper()
    rt = 'double' if dbl else 'long'
    # positions of decodable arguments, same as in C
    pos = {}
    names = [p[1] for p in proto[1]] if proto else []
    is_p2p = any(n in names for n in ('dest', 'source', 'target_rank')) and 'comm' in names
    is_coll = 'comm' in names and (bool(COLLECTIVE_NAMES.match(base)) or 'root' in names)
    if is_p2p or is_coll:
        for key, cands in (('comm', ('comm',)), ('peer', ('dest', 'source', 'target_rank', 'root')),
                           ('tag', ('tag', 'sendtag')), ('count', ('count', 'sendcount', 'origin_count')),
                           ('dtype', ('datatype', 'sendtype', 'origin_datatype'))):
            for cnd in cands:
                if cnd in names:
                    pos[key] = names.index(cnd)
                    break
    def arg(k):
        return 'a%d' % pos[k] if k in pos else 'NULL'
    if proto and not dbl and emit_f_special(w, sym, rid, base, names, [t for t, _ in proto[1]], rt, arg):
        return
    hook_pre = hook_post = hook_mid = ''
    if base == 'MPI_Finalize':
        hook_pre, hook_post = 'ml_before_finalize();', 'ml_after_finalize();'
    elif base in ('MPI_Recv', 'MPI_Mprobe') and 'status' in names:
        # Open MPI's bindings call PMPI_Recv: the actual source and tag come
        # from the Fortran status (ours where the program ignores it)
        si = names.index('status')
        hook_pre = 'a%d = ml_fstatus_pre(a%d, a%d);' % (si, si, len(names))
        hook_post = 'ml_fstatus_post();'
    elif base in ('MPI_Init', 'MPI_Init_thread'):
        hook_mid = 'ml_after_init(-2);'
    elif base == 'MPI_Comm_set_name' and len(names) == 2:
        # Open MPI's binding calls PMPI_Comm_set_name (ierror follows the arguments)
        hook_post = 'if (!a2 || *(MPI_Fint *)a2 == 0) ml_comm_named_f(a0);'
    elif base == 'MPI_Abort':
        hook_pre = 'ml_before_abort_f(&c, a0, a1);'
    elif base in ERRH_SET or base in ERRH_GET or WIN_CREATE.match(base):
        # by type: parameter names differ between headers
        types = [t.replace(' ', '') for t, _ in proto[1]] if proto else []
        ehi = next((i for i, t in enumerate(types) if t in ('MPI_Errhandler{}', 'MPI_Errhandler*{}')), None)
        wi = next((i for i, t in enumerate(types) if t == 'MPI_Win*{}'), None)
        if base in ERRH_SET and ehi is not None:
            hook_pre = 'a%d = ml_fs_eh_in_f(a%d, %d);' % (ehi, ehi, ERRH_SET[base])
        elif base in ERRH_GET and ehi is not None:
            hook_post = 'ml_fs_eh_out_f(a%d);' % ehi
        elif wi is not None and len(types) < 20:
            e = len(types)  # ierror follows the C arguments
            ci = next((i for i, t in enumerate(types) if t == 'MPI_Comm{}'), None)
            hook_post = 'if (!a%d || *(MPI_Fint *)a%d == 0) { ml_fs_win_created_f(a%d);%s }' % (
                e, e, wi, ' ml_obj_created_f(a%d, ML_OBJ_WIN, a%d);' % (wi, ci) if ci is not None else '')
    elif base == 'MPI_File_open' and proto:
        types = [t.replace(' ', '') for t, _ in proto[1]]
        fi = next((i for i, t in enumerate(types) if t == 'MPI_File*{}'), None)
        ci = next((i for i, t in enumerate(types) if t == 'MPI_Comm{}'), None)
        e = len(types)
        if fi is not None and ci is not None and e < 20:
            hook_post = 'if (!a%d || *(MPI_Fint *)a%d == 0) ml_obj_created_f(a%d, ML_OBJ_FILE, a%d);' % (e, e, fi, ci)
    elif proto and OBJ_COLLECTIVES.match(base) and obj_arg([t for t, _ in proto[1]]) and len(proto[1]) < 20:
        oi, okind, _ = obj_arg([t for t, _ in proto[1]])
        forget = bool(OBJ_FORGET.match(base))
        hook_pre = 'ml_obj_fortran_live(&c, a%d, %s, %d);' % (oi, okind, 1 if forget else 0)
        if forget:
            hook_post = 'ml_obj_fortran_post(a%d);' % len(proto[1])
    vnames = ('sendcounts', 'recvcounts')
    if is_coll and any(v in names for v in vnames) and not hook_pre and 'Neighbor' not in base \
            and 'neighbor' not in base and len(names) < 20:
        # the count arrays (runtime/rt.c ml_fortran_vcoll), read after the call
        def fa(p):
            return 'a%d' % names.index(p) if p in names else 'NULL'
        rs = 1 if 'recvcounts' in names and 'sendcounts' not in names and 'recvtype' not in names else 0
        hook_pre = 'ml_fortran_vcoll(&c, %s, %s, %s, %s, %s, %s, %d);' % (
            fa('sendbuf'), fa('sendcounts'), fa('sendtypes'), fa('recvcounts'), fa('recvtypes'),
            fa('recvtype'), rs)
        if 'recvtype' in names:   # and the scalar receive side, as below
            hook_pre += ' ml_fortran_recv(&c, %s, %s);' % (fa('recvcount'), fa('recvtype'))
    if is_coll and re.match(r'^MPI_I?reduce_scatter_block$', base, re.I) and 'recvcount' in names \
            and not hook_pre and len(names) < 20:
        # no count array and no 'count': the C wrapper's sums from recvcount
        # (runtime/rt.c fortran_vcounts, kind 2)
        hook_pre = 'ml_fortran_vcoll(&c, NULL, NULL, NULL, a%d, NULL, NULL, 2);' % names.index('recvcount')
    if is_coll and 'recvtype' in names and not hook_pre:
        # the receive side, as the C wrapper records it (recvcount: 0 for
        # the v-variants, whose counts are an array)
        hook_pre = 'ml_fortran_recv(&c, %s, a%d);' % (
            'a%d' % names.index('recvcount') if 'recvcount' in names else 'NULL', names.index('recvtype'))
    ipk = re.sub(r'_c$', '', base[4:].lower())
    ipkinds = ('allgather', 'allgatherv', 'alltoall', 'gather', 'gatherv', 'scatter', 'scatterv')
    if ipk.startswith('i') and ipk[1:] in ipkinds:
        ipk = ipk[1:]
    if is_coll and len(names) < 20 and 'sendbuf' in names and 'recvbuf' in names and ipk in ipkinds:
        # MPI_IN_PLACE (runtime/rt.c ml_fortran_inplace), as the C wrapper's in_place_counts
        def fb(p):
            return 'a%d' % names.index(p) if p in names else 'NULL'
        scatter = ipk.startswith('scatter')
        cnts = fb('sendcounts' if scatter else 'recvcounts') if ipk.endswith('v') else 'NULL'
        hook_pre += ' ml_fortran_inplace(&c, %s, %s, %s, %d);' % (fb('sendbuf'), fb('recvbuf'), cnts,
                                                                  2 if scatter else 1)
    if proto and not hook_pre and 'comm' not in pos and COMM_COLLECTIVES.match(base) and len(proto[1]) < 20:
        # Open MPI's binding calls PMPI_: the communicator in the live slot
        # (no collective number, as for its Fortran collectives)
        ci = next((i for i, (t, _) in enumerate(proto[1]) if t.replace(' ', '') == 'MPI_Comm{}'), None)
        if ci is not None:
            hook_pre = 'ml_fortran_live(&c, a%d, NULL, NULL);' % ci
    w('#undef %s' % sym)
    if hook_mid:   # inside the recorded call, after the library's
        w('ML_FORTRAN_MID(%s, %s, %d, %s, %s, %s, %s, %s, {%s}, {%s}, {%s})' % (
            rt, sym, rid, arg('comm'), arg('peer'), arg('tag'), arg('count'), arg('dtype'), hook_pre, hook_mid,
            hook_post))
        return
    w('ML_FORTRAN(%s, %s, %d, %s, %s, %s, %s, %s, {%s}, {%s})' % (
        rt, sym, rid, arg('comm'), arg('peer'), arg('tag'), arg('count'), arg('dtype'), hook_pre, hook_post))


if __name__ == '__main__':
    main()
