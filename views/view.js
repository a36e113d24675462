// view.js — the page of `mpilens view`: decodes the run's data (written by
// tool/view.c from analysis/viewdata.c) and draws four views on canvases:
// message timings, network load, communication matrix, summary.
// Nothing is fetched: the data is in the page (#mpilens-meta, #mpilens-data),
// except when the page is served (`mpilens view --serve`): then it holds the
// run's overview (#mpilens-overview: bins per rank, merged messages) and
// fetches the calls and messages of the window shown when zoomed in.
//
// The timeline draws in layers (rows, collectives, calls, messages,
// markers, overlays): an extra layer (for example a critical path) is a
// function pushed onto TL.overlays, called with (ctx, geometry) after the
// others.
'use strict';

const KINDS = ['other', 'point-to-point', 'collective', 'wait/test', 'one-sided', 'I/O'];
const KIND_COLOURS = ['#9e9e9e', '#1e88e5', '#fb8c00', '#e53935', '#8e24aa', '#43a047'];

const D = {};          // the run: meta and decoded columns
const TL = { overlays: [], marks: [] };  // timeline state
const LD = {};         // network load state
const SM = {};         // summary state: the bars drawn
let drawnStats = { lines: 0, represented: 0 };

// ---- the critical path (an overlay of the timeline) -----------------------

// D.meta.critical_path (tool/view.c): the runtime path of `mpilens report`,
// its segments in the page's time base (ns after the earliest call).  Drawn
// as a band over [from, to] on each segment's rank row and, where the path
// goes on at another rank, a line between the two rows at the hop time.
const CP = { on: true, drawn: [] };
const CP_FILL = 'rgba(255,0,200,0.55)', CP_LINE = '#b0007f';

function cpOverlay(ctx, g, D) {
  CP.drawn = [];
  const cp = D.meta.critical_path;
  if (!CP.on || !cp || !cp.segments) return;
  const segs = cp.segments;
  const bandH = Math.max(2, Math.min(g.rowH * 0.5, 14));
  ctx.save();
  for (const s of segs) {
    const vis = g.inside(s.rank) && s.to >= TL.t0 && s.from <= TL.t1;
    let box = null;
    if (vis) {
      const x0 = Math.max(g.x0, g.x(s.from)), x1 = Math.max(Math.min(g.x1, g.x(s.to)), x0 + 2);
      const y0 = g.yMid(s.rank) - bandH / 2;
      ctx.fillStyle = CP_FILL;
      ctx.fillRect(x0, y0, x1 - x0, bandH);
      ctx.strokeStyle = CP_LINE;
      ctx.lineWidth = 1;
      ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0 - 1, bandH - 1);
      box = { x0, x1, y0, y1: y0 + bandH };
    }
    CP.drawn.push({ rank: s.rank, from: s.from, to: s.to, to_rank: s.to_rank, what: s.what, site: s.site, box });
  }
  // the hops: one rank to the next at the time the path leaves
  ctx.strokeStyle = CP_LINE;
  ctx.lineWidth = 2;
  ctx.beginPath();
  for (const s of segs) {
    if (s.to_rank < 0 || s.to < TL.t0 || s.to > TL.t1) continue;
    const x = g.x(s.to);
    ctx.moveTo(x, g.yMid(s.rank));
    ctx.lineTo(x, g.yMid(s.to_rank));
  }
  ctx.stroke();
  ctx.restore();
}
TL.overlays.push(cpOverlay);

// The summary's line about the path.
function cpSummary() {
  const cp = D.meta.critical_path, el = $('sm-cp');
  if (!cp) { el.textContent = cp === null ? 'critical path: left out (mpilens view --no-critical-path)' : ''; return; }
  if (cp.empty) { el.textContent = 'critical path: none (its window is empty)'; return; }
  el.textContent = 'critical path: ' + fmtTime(cp.runtime_ns) + ' of run time (' + fmtTime(cp.comm_ns) + ' communication, ' +
    fmtTime(cp.comp_ns) + ' computation), ends on rank ' + cp.end_rank +
    (cp.segments_total > cp.segments.length ? '; the timeline draws its first ' + fmtCount(cp.segments.length) + ' of ' +
      fmtCount(cp.segments_total) + ' segments' : '') + (cp.complete ? '' : ' (incomplete: see mpilens report)');
  el.dataset.ns = cp.runtime_ns;
}

// ---- helpers -----------------------------------------------------------------

function $(id) { return document.getElementById(id); }

function rankColour(r) {
  return 'hsl(' + ((r * 137.508) % 360).toFixed(1) + ',65%,' + (r % 2 ? 40 : 50) + '%)';
}

function fmtTime(ns) {
  const a = Math.abs(ns);
  if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 2 : 3) + ' s';
  if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e7 ? 2 : 3) + ' ms';
  if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e4 ? 2 : 3) + ' µs';
  return ns.toFixed(0) + ' ns';
}

function fmtBytes(b) {
  if (b >= 1 << 30) return (b / (1 << 30)).toFixed(2) + ' GiB';
  if (b >= 1 << 20) return (b / (1 << 20)).toFixed(2) + ' MiB';
  if (b >= 1 << 10) return (b / (1 << 10)).toFixed(2) + ' KiB';
  return b + ' B';
}

function fmtCount(n) { return n.toLocaleString('en-US'); }

function setupCanvas(c) {
  const r = c.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(r.width)), h = Math.max(1, Math.round(r.height));
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  const ctx = c.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, w, h };
}

// ---- decoding ----------------------------------------------------------------

// The data (tool/view.c, analysis/viewdata.c): columns of LEB128 integers,
// each preceded by its length; calls and messages grouped by rank.  Each
// column is read by a cursor; the bulk ones by a loop of their own (one
// shape per loop: it stays fast), into typed arrays once.
function columns(buf, n) {
  const cols = [];
  let pos = 0;
  for (let c = 0; c < n; c++) {
    let len = 0, mul = 1, b;
    do { b = buf[pos++]; len += (b & 127) * mul; mul *= 128; } while (b & 128 && pos < buf.length);
    if (pos + len > buf.length) throw new Error('data column ' + c + ' overruns the data');
    cols.push({ buf, pos, end: pos + len });
    pos += len;
  }
  return cols;
}

function readU(c) {
  const buf = c.buf;
  let b = buf[c.pos++], v = b & 127;
  if (b & 128) {
    let mul = 128;
    do { b = buf[c.pos++]; v += (b & 127) * mul; mul *= 128; } while (b & 128);
  }
  if (c.pos > c.end) throw new Error('data column overruns its length');
  return v;
}

function readS(c) { const v = readU(c); return (v % 2) ? -(v + 1) / 2 : v / 2; }

// n values of column c into out (zig: zigzag); two loops, each of one shape
function bulk(c, n, out, zig) {
  const buf = c.buf;
  let pos = c.pos;
  if (zig) {
    for (let i = 0; i < n; i++) {
      let b = buf[pos++], v = b & 127;
      if (b & 128) {
        let mul = 128;
        do { b = buf[pos++]; v += (b & 127) * mul; mul *= 128; } while (b & 128);
      }
      out[i] = (v % 2) ? -(v + 1) / 2 : v / 2;
    }
  } else {
    for (let i = 0; i < n; i++) {
      let b = buf[pos++], v = b & 127;
      if (b & 128) {
        let mul = 128;
        do { b = buf[pos++]; v += (b & 127) * mul; mul *= 128; } while (b & 128);
      }
      out[i] = v;
    }
  }
  if (pos > c.end) throw new Error('data column overruns its length');
  c.pos = pos;
  return out;
}

// The data's text back into its n bytes (tool/view.c, put_text7): 7 bits
// per character; a character from U+0080 is one of NUL, CR, '<' (which
// the page cannot hold) and the next 7 bits.
function text7Bytes(s, n) {
  const out = new Uint8Array(n), rare = [0, 13, 60];
  let acc = 0, nb = 0, o = 0;
  for (let i = 0, L = s.length; i < L; i++) {
    let c = s.charCodeAt(i);
    if (c >= 128) {
      const v = c - 128;
      if (v >= 384) throw new Error('the data holds a character it cannot');
      acc = (acc << 7) | rare[v >> 7]; nb += 7;
      if (nb >= 8) { nb -= 8; out[o++] = acc >> nb; acc &= (1 << nb) - 1; }
      c = v & 127;
    }
    acc = (acc << 7) | c; nb += 7;
    if (nb >= 8) { nb -= 8; out[o++] = acc >> nb; acc &= (1 << nb) - 1; }
  }
  if (o < n) throw new Error('the data is shorter than its length');
  return out;
}

// the columns' order: analysis/analysis.h, enum an_view_col
const COLS = ['c_count', 'c_t0', 'c_dur', 'c_name', 'c_kind', 'c_site', 'c_comm', 'c_peer', 'c_tag', 'c_bytes',
  'c_type', 'c_repeat', 'm_count', 'm_flags', 'm_scall', 'm_rcall', 'm_dst', 'm_ts', 'm_tr', 'm_bytes', 'm_tag',
  'm_comm', 'k_comm', 'k_name', 'k_first', 'k_len', 'k_members', 'k_bytes'];
const MF_TS = 1, MF_TR = 2, MF_DST = 4, MF_BYTES = 8, MF_TAG = 16, MF_COMM = 32;

async function inflate(packed) {
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function loadData() {
  const tA = performance.now();
  const meta = JSON.parse($('mpilens-meta').textContent);
  Object.assign(D, { meta, sites: meta.sites, types: meta.types });
  const buf = await inflate(text7Bytes($('mpilens-data').textContent, meta.packed));
  const tB = performance.now();
  const shown = meta.shown_calls != null;
  decodeColumns(buf, shown ? meta.shown_calls : meta.calls, shown ? meta.shown_messages : meta.messages,
    shown ? meta.shown_colls : meta.colls);
  if (meta.overview) await loadOverview(meta);
  const tC = performance.now();
  index();
  D.timing = { inflate_ms: tB - tA, decode_ms: tC - tB, index_ms: performance.now() - tC, index: D.index_parts };
}

// The columns of buf (nc calls, nm messages, nk collectives) into D.
function decodeColumns(buf, nc, nm, nk) {
  const meta = D.meta, R = Math.max(meta.ranks, 1);
  const col = {};
  columns(buf, COLS.length).forEach((c, i) => { col[COLS[i]] = c; });
  D.ranks = R;
  // calls, rank after rank: a start is the time since the rank's previous call ended
  const count = bulk(col.c_count, R, new Float64Array(R), false);
  const start = new Int32Array(R + 1);
  for (let r = 0; r < R; r++) start[r + 1] = start[r] + count[r];
  if (start[R] !== nc) throw new Error('the call counts do not add up');
  D.rankStart = start;
  const rank = new Int32Array(nc);
  for (let r = 0; r < R; r++) rank.fill(r, start[r], start[r + 1]);
  D.c_rank = rank;
  const t0 = bulk(col.c_t0, nc, new Float64Array(nc), true), du = bulk(col.c_dur, nc, new Float64Array(nc), false);
  for (let r = 0; r < R; r++) {
    let prev = 0;
    for (let i = start[r]; i < start[r + 1]; i++) { const t = prev + t0[i]; t0[i] = t; prev = t + du[i]; }
  }
  D.c_t0 = t0; D.c_dur = du;
  D.c_name = bulk(col.c_name, nc, new Uint16Array(nc), false);
  D.c_kind = bulk(col.c_kind, nc, new Uint8Array(nc), false);
  // call sites, datatypes and repeats: only for details and search, decoded when first asked
  for (const [name, T] of [['c_site', Int32Array], ['c_type', Int32Array], ['c_repeat', Uint32Array]]) {
    let v = null;
    Object.defineProperty(D, name, { configurable: true, get: () => v || (v = bulk(col[name], nc, new T(nc), false)) });
  }
  D.c_comm = bulk(col.c_comm, nc, new Int32Array(nc), false);
  D.c_peer = bulk(col.c_peer, nc, new Int32Array(nc), false);
  D.c_tag = bulk(col.c_tag, nc, new Int32Array(nc), true);
  D.c_bytes = bulk(col.c_bytes, nc, new Float64Array(nc), false);
  // messages, sender after sender: each names its send call and the call
  // that completed its receive, whose times and arguments are its own
  const m_src = new Int32Array(nm), m_dst = new Int32Array(nm), m_ts = new Float64Array(nm), m_lat = new Float64Array(nm);
  const m_bytes = new Float64Array(nm), m_tag = new Int32Array(nm), m_comm = new Int32Array(nm);
  const m_sc = new Int32Array(nm), m_rc = new Int32Array(nm);
  const stamp = new Int32Array(R).fill(-1), last = new Float64Array(R);
  const mcount = bulk(col.m_count, R, new Float64Array(R), false);
  const fl = col.m_flags, sc = col.m_scall, rc = col.m_rcall, peer = D.c_peer, cb = D.c_bytes, ct = D.c_tag, cm = D.c_comm;
  let j = 0;
  for (let r = 0; r < R; r++) {
    const n = mcount[r], base = start[r], nr = start[r + 1] - base;
    if (j + n > nm) throw new Error('the message counts do not add up');
    let sidx = 0;
    for (const e = j + n; j < e; j++) {
      const f = readU(fl);
      let c = -1, dst = -1, ts = 0, bytes = 0, tag = 0, comm = 0;
      if (!(f & MF_TS)) {
        sidx += readS(sc);
        if (sidx < 0 || sidx >= nr) throw new Error('a message names a call its sender does not have');
        c = base + sidx;
        ts = t0[c]; dst = peer[c] >= 4 ? peer[c] - 4 : -1; bytes = cb[c]; tag = ct[c] - 1; comm = cm[c];
      }
      if (f & MF_DST) dst = readU(col.m_dst);
      if (f & MF_TS) ts = readS(col.m_ts);
      if (f & MF_BYTES) bytes = readU(col.m_bytes);
      if (f & MF_TAG) tag = readS(col.m_tag);
      if (f & MF_COMM) comm = readU(col.m_comm);
      if (!(dst >= 0 && dst < R)) throw new Error('a message without a receiver');
      let tr, c2 = -1;
      if (f & MF_TR) tr = ts + readS(col.m_tr);
      else {
        if (stamp[dst] !== r) { stamp[dst] = r; last[dst] = 0; }
        const k = last[dst] += readS(rc);
        if (k < 0 || k >= start[dst + 1] - start[dst]) throw new Error('a message names a call its receiver does not have');
        c2 = start[dst] + k;
        tr = t0[c2] + du[c2];
      }
      m_src[j] = r; m_dst[j] = dst; m_ts[j] = ts; m_lat[j] = tr - ts;
      m_bytes[j] = bytes; m_tag[j] = tag; m_comm[j] = comm; m_sc[j] = c; m_rc[j] = c2;
    }
  }
  if (j !== nm) throw new Error('the message counts do not add up');
  Object.assign(D, { m_src, m_dst, m_ts, m_lat, m_bytes, m_tag, m_comm, m_sc, m_rc });
  D.k_comm = bulk(col.k_comm, nk, new Int32Array(nk), false);
  D.k_name = bulk(col.k_name, nk, new Uint16Array(nk), false);
  const kf = bulk(col.k_first, nk, new Float64Array(nk), true);
  for (let k = 1; k < nk; k++) kf[k] += kf[k - 1];
  D.k_first = kf;
  D.k_len = bulk(col.k_len, nk, new Float64Array(nk), true);
  D.k_members = bulk(col.k_members, nk, new Uint32Array(nk), false);
  D.k_bytes = bulk(col.k_bytes, nk, new Float64Array(nk), false);
}

// The overview of a served page (tool/view.c, pack_overview): per rank and
// bin the kind of call covering most of it, the bin pyramid built from it;
// messages merged per rank pair and bins (O: drawn, counted and summed like
// messages, each entry standing for its count).
const OV_COLS = ['kind', 'best', 'src', 'dst', 'count', 'bytes', 'max', 'ts', 'lat'];
const O = {};
async function loadOverview(meta) {
  const ov = meta.overview;
  const buf = await inflate(text7Bytes($('mpilens-overview').textContent, ov.packed));
  const col = {};
  columns(buf, OV_COLS.length).forEach((c, i) => { col[OV_COLS[i]] = c; });
  const R = Math.max(meta.ranks, 1), B = ov.bins, n = ov.entries;
  const kind = bulk(col.kind, R * B, new Uint8Array(R * B), false), best = bulk(col.best, R * B, new Float32Array(R * B), false);
  D.served = { cap: ov.cap, win: null, loading: null, pending: 0, over: null, requests: 0, last_ms: 0, error: '' };
  D.binN = B; D.binW = ov.bin_ns;
  D.binLevels = binPyramid(R, B, ov.bin_ns, kind, best);
  O.m_src = bulk(col.src, n, new Int32Array(n), false);
  O.m_dst = bulk(col.dst, n, new Int32Array(n), false);
  O.m_cnt = bulk(col.count, n, new Float64Array(n), false);
  O.m_sum = bulk(col.bytes, n, new Float64Array(n), false);
  O.m_bytes = bulk(col.max, n, new Float64Array(n), false);
  const ts = bulk(col.ts, n, new Float64Array(n), true);
  for (let i = 1; i < n; i++) ts[i] += ts[i - 1];
  O.m_ts = ts;
  O.m_lat = bulk(col.lat, n, new Float64Array(n), true);
  const mo = new Int32Array(n);
  for (let i = 0; i < n; i++) mo[i] = i;
  sortByTime(mo, ts);
  O.msgOrder = mo;
  O.msgTsSorted = new Float64Array(n);
  let span = meta.last_ns;
  for (let i = 0; i < n; i++) { O.msgTsSorted[i] = ts[mo[i]]; if (ts[i] + O.m_lat[i] > span) span = ts[i] + O.m_lat[i]; }
  O.maxLat = ov.max_lat;
  O.levels = [];
  O.span = Math.max(span, 1);
}

// Per rank: its calls in time order (as they come) and the longest; messages
// by send start; rank pairs; the calls' time bins (buildBins).
function index() {
  const tI = performance.now();
  const m = D.meta, nc = D.c_t0.length, nm = D.m_ts.length, R = D.ranks;
  // per rank the longest call: the search for the first call in a window
  D.rankMaxDur = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    let mx = 0;
    for (let i = D.rankStart[r]; i < D.rankStart[r + 1]; i++) if (D.c_dur[i] > mx) mx = D.c_dur[i];
    D.rankMaxDur[r] = mx;
  }
  const mo = new Int32Array(nm);
  for (let i = 0; i < nm; i++) mo[i] = i;
  const ts = D.m_ts;
  let sorted = true;
  for (let i = 1; i < nm; i++) if (ts[i] < ts[i - 1]) { sorted = false; break; }
  const tS = performance.now();
  if (!sorted) sortByTime(mo, ts);
  const tS1 = performance.now();
  D.msgOrder = mo;
  D.msgTsSorted = new Float64Array(nm);
  let maxLat = 0, span = m.last_ns, bytes = 0;
  for (let i = 0; i < nm; i++) {
    D.msgTsSorted[i] = ts[mo[i]];
    const l = D.m_lat[i];
    if (l > maxLat) maxLat = l;
    if (ts[i] + l > span) span = ts[i] + l;
    bytes += D.m_bytes[i];
  }
  D.maxLat = maxLat;
  D.span = D.served ? O.span : Math.max(span, 1);
  D.bytes = D.served ? m.bytes : bytes;
  // rank pairs: an id per (sender, receiver)
  const pid = new Int32Array(nm), stamp = new Int32Array(R).fill(-1), ids = new Int32Array(R);
  let np = 0;
  for (let j = 0; j < nm; j++) {
    const s = D.m_src[j], d = D.m_dst[j];
    if (stamp[d] !== s) { stamp[d] = s; ids[d] = -1; }
    if (ids[d] < 0) ids[d] = np++;
    pid[j] = ids[d];
  }
  D.m_pair = pid; D.npairs = np;
  const t1 = performance.now();
  if (!D.served) buildBins();
  D.levels = [];   // built after the first picture (main)
  D.index_parts = { before_sort_ms: tS - tI, sort_ms: tS1 - tS, after_sort_ms: t1 - tS1, bins_ms: performance.now() - t1 };
}

// order (indices) sorted by t[order[i]]: bucketed by time, then an
// insertion sort that only moves messages within their bucket
function sortByTime(order, t) {
  const n = order.length;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) { if (t[i] < min) min = t[i]; if (t[i] > max) max = t[i]; }
  const B = Math.max(1, n), f = B / (max - min + 1);
  const cnt = new Int32Array(B + 1);
  for (let i = 0; i < n; i++) cnt[Math.floor((t[i] - min) * f) + 1]++;
  for (let b = 0; b < B; b++) cnt[b + 1] += cnt[b];
  for (let i = 0; i < n; i++) order[cnt[Math.floor((t[i] - min) * f)]++] = i;
  for (let i = 1; i < n; i++) {
    const v = order[i], tv = t[v];
    let j = i - 1;
    while (j >= 0 && t[order[j]] > tv) { order[j + 1] = order[j]; j--; }
    order[j + 1] = v;
  }
}

// first index i in sorted array a (length n) with a[i] >= v
function lowerBound(a, lo, hi, v) {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < v) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// first call of rank r (its calls are D.rankStart[r] to D.rankStart[r + 1] - 1) that starts at or after t
function firstCallAt(r, t) {
  let lo = D.rankStart[r], hi = D.rankStart[r + 1];
  const t0 = D.c_t0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t0[mid] < t) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// the call of rank r running at time t (or nearest within slack), -1 if none
function callAt(r, t, slack) {
  if (r < 0 || r >= D.ranks) return -1;
  let p = firstCallAt(r, t - D.rankMaxDur[r] - slack);
  const end = D.rankStart[r + 1];
  let best = -1, bestD = Infinity;
  for (; p < end; p++) {
    const i = p, a = D.c_t0[i], b = a + D.c_dur[i];
    if (a > t + slack) break;
    const d = t < a ? a - t : (t > b ? t - b : 0);
    if (d <= slack && d < bestD) { best = i; bestD = d; }
  }
  return best;
}

function siteName(s) { return s > 0 ? D.sites[s - 1] : '(unknown)'; }
function routineName(n) { return D.meta.names[n] || '?'; }
function commName(c) { return c > 0 && D.meta.comms[c - 1] ? D.meta.comms[c - 1].name : '-'; }
function peerName(p) {
  return p === 0 ? '-' : p === 1 ? 'MPI_ANY_SOURCE' : p === 2 ? 'MPI_PROC_NULL' : p === 3 ? '(unknown)' : 'rank ' + (p - 4);
}

function callText(i) {
  const lines = [
    routineName(D.c_name[i]) + '  (' + KINDS[D.c_kind[i]] + ')  on rank ' + D.c_rank[i],
    'at        ' + siteName(D.c_site[i]),
    'start     ' + fmtTime(D.c_t0[i]) + '   end ' + fmtTime(D.c_t0[i] + D.c_dur[i]) +
      '   duration ' + fmtTime(D.c_dur[i]),
  ];
  if (D.c_comm[i]) lines.push('comm      ' + commName(D.c_comm[i]));
  if (D.c_peer[i]) lines.push((D.c_kind[i] === 2 ? 'root      ' : 'peer      ') + peerName(D.c_peer[i]));
  if (D.c_tag[i]) lines.push('tag       ' + (D.c_tag[i] - 1));
  if (D.c_kind[i] === 1 || D.c_kind[i] === 2 || D.c_bytes[i]) lines.push('bytes     ' + fmtCount(D.c_bytes[i]));
  if (D.c_type[i]) lines.push('datatype  ' + D.types[D.c_type[i] - 1]);
  if (D.c_repeat[i]) lines.push('calls     ' + (D.c_repeat[i] + 1) + ' (a run of equal polls)');
  return lines.join('\n');
}

function msgText(j) {
  const s = D.m_src[j], d = D.m_dst[j], ts = D.m_ts[j], tr = ts + D.m_lat[j];
  const sc = D.m_sc[j] >= 0 ? D.m_sc[j] : callAt(s, ts, 0), rc = D.m_rc[j] >= 0 ? D.m_rc[j] : callAt(d, tr, 0);
  const lines = [
    'message rank ' + s + ' -> rank ' + d + ', ' + fmtCount(D.m_bytes[j]) + ' bytes, tag ' + D.m_tag[j] +
      ', comm ' + commName(D.m_comm[j]),
    'send      ' + (sc >= 0 ? routineName(D.c_name[sc]) + ' at ' + siteName(D.c_site[sc]) : '?') +
      '  started ' + fmtTime(ts),
    'receive   ' + (rc >= 0 ? routineName(D.c_name[rc]) + ' at ' + siteName(D.c_site[rc]) : '?') +
      '  completed ' + fmtTime(tr),
  ];
  if (sc >= 0 && D.c_type[sc]) lines.push('datatype  ' + D.types[D.c_type[sc] - 1]);
  lines.push('in flight ' + fmtTime(tr - ts));
  return lines.join('\n');
}

// ---- timeline ------------------------------------------------------------------

const AXIS = 30, LABEL = 78;

function tlGeometry(w, h) {
  const ra = TL.ra, n = TL.rb - TL.ra, avail = Math.max(h - AXIS - 4, 10);
  const group = Math.max(1, Math.ceil(n * 3 / avail));   // ranks per row when rows under 3 px
  const rows = Math.ceil(n / group);
  const rowH = Math.min(40, avail / rows);
  return {
    w, h, group, rows, rowH, ra, rb: TL.rb, x0: LABEL, x1: w - 8,
    inside: r => r >= ra && r < TL.rb,
    rowY: r => AXIS + Math.floor((r - ra) / group) * rowH,
    x: t => LABEL + (t - TL.t0) / (TL.t1 - TL.t0) * (w - 8 - LABEL),
    t: x => TL.t0 + (x - LABEL) / (w - 8 - LABEL) * (TL.t1 - TL.t0),
    yMid: r => AXIS + (Math.floor((r - ra) / group) + 0.5) * rowH,
    rowOf: y => Math.floor((y - AXIS) / rowH),
  };
}

function niceStep(range, px) {
  const raw = range / Math.max(1, px / 110);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function tlDraw() {
  if (!TL.canvas || !$('view-timeline').classList.contains('on')) return;
  const t_start = performance.now();
  const { ctx, w, h } = setupCanvas(TL.canvas);
  const g = tlGeometry(w, h);
  TL.g = g;
  ctx.clearRect(0, 0, w, h);
  ctx.font = '11px sans-serif';
  // rows
  for (let row = 0; row < g.rows; row++) {
    const r0 = g.ra + row * g.group, r1 = Math.min(g.rb, r0 + g.group) - 1;
    const y = AXIS + row * g.rowH;
    ctx.strokeStyle = rankColour(r0);
    ctx.lineWidth = g.rowH > 6 ? 2 : 1;
    if (g.rowH >= 4) ctx.strokeRect(g.x0 + 0.5, y + 1.5, g.x1 - g.x0 - 1, g.rowH - 3);
    else { ctx.fillStyle = row % 2 ? '#f3f3f3' : '#fff'; ctx.fillRect(g.x0, y, g.x1 - g.x0, g.rowH); }
    if (g.rowH >= 10 || row % Math.ceil(12 / g.rowH) === 0) {
      ctx.fillStyle = rankColour(r0);
      ctx.textBaseline = 'middle';
      ctx.fillText(g.group > 1 ? 'ranks ' + r0 + '-' + r1 : 'rank ' + r0, 4, y + g.rowH / 2);
    }
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(g.x0, AXIS, g.x1 - g.x0, h - AXIS);
  ctx.clip();
  // collective instances: one band across the members' rows
  const kf = D.k_first, kl = D.k_len;
  for (let k = 0; k < kf.length; k++) {
    const a = kf[k], b = a + kl[k];
    if (b < TL.t0 || a > TL.t1) continue;
    const c = D.meta.comms[D.k_comm[k] - 1];
    let lo = 0, hi = D.ranks - 1;
    if (c && c.members && !c.world) {
      if (c.lo == null) { c.lo = c.members.reduce((x, y) => Math.min(x, y)); c.hi = c.members.reduce((x, y) => Math.max(x, y)); }
      lo = c.lo; hi = c.hi;
    }
    lo = Math.max(lo, g.ra); hi = Math.min(hi, g.rb - 1);
    if (lo > hi) continue;
    const x0 = g.x(a), x1 = Math.max(g.x(b), x0 + 1);
    const y0 = g.rowY(lo), y1 = g.rowY(hi) + g.rowH;
    ctx.fillStyle = 'rgba(251,140,0,0.13)';
    ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
    ctx.strokeStyle = 'rgba(251,140,0,0.6)';
    ctx.lineWidth = 1;
    ctx.strokeRect(x0 + 0.5, y0 + 0.5, x1 - x0, y1 - y0 - 1);
  }
  // calls: boxes, at most one per pixel column and kind when they crowd;
  // one path per kind, filled once
  const boxH = Math.max(1, g.rowH - (g.rowH > 8 ? 8 : 2));
  const scale = (g.x1 - g.x0) / (TL.t1 - TL.t0);
  const t0 = D.c_t0, du = D.c_dur, kind = D.c_kind;
  const hl = TL.highlight;
  const paths = KINDS.map(() => new Path2D());
  const nsPerPx = (TL.t1 - TL.t0) / (g.x1 - g.x0);
  TL.summary = null;
  const t_calls = performance.now();
  const sv = D.served, detail = !sv || inDetail();
  if (!detail) drawBins(ctx, g, boxH, nsPerPx);
  else if (g.group > 1) drawGroups(ctx, g);
  else if (nsPerPx >= 2 * D.binW) drawBins(ctx, g, boxH, nsPerPx);
  else for (let r = g.ra; r < g.rb; r++) {
    const y = g.rowY(r) + (g.rowH - boxH) / 2;
    const end = D.rankStart[r + 1];
    const lastPx = [-1, -1, -1, -1, -1, -1];
    for (let p = firstCallAt(r, TL.t0 - D.rankMaxDur[r]); p < end; p++) {
      const i = p, a = t0[i];
      if (a > TL.t1) break;
      const b = a + du[i];
      if (b < TL.t0) continue;
      const x0 = g.x0 + (a - TL.t0) * scale, x1 = g.x0 + (b - TL.t0) * scale;
      const k = kind[i], px = x0 | 0;
      if (x1 - x0 < 1) {
        if (px === lastPx[k]) continue;
        lastPx[k] = px;
        paths[k].rect(px, y, 1, boxH);
      } else {
        lastPx[k] = x1 | 0;
        paths[k].rect(x0, y, x1 - x0, boxH);
      }
    }
  }
  for (let k = 0; k < KINDS.length; k++) { ctx.fillStyle = KIND_COLOURS[k]; ctx.fill(paths[k]); }
  // highlighted calls (search)
  if (hl) {
    ctx.strokeStyle = '#000';
    ctx.lineWidth = 2;
    for (let r = g.ra; r < g.rb; r++) {
      const y = g.rowY(r);
      const end = D.rankStart[r + 1];
      let lastPx = -10;
      for (let p = firstCallAt(r, TL.t0 - D.rankMaxDur[r]); p < end; p++) {
        const i = p, a = t0[i];
        if (a > TL.t1) break;
        if (!hl[i] || a + du[i] < TL.t0) continue;
        const x0 = g.x(a), x1 = Math.max(g.x(a + du[i]), x0 + 2);
        if (x1 - lastPx < 2) continue;
        lastPx = x1;
        ctx.fillStyle = '#ffeb3b';
        ctx.fillRect(x0 - 1, y + 1, x1 - x0 + 2, g.rowH - 2);
        ctx.fillStyle = KIND_COLOURS[kind[i]];
        ctx.fillRect(x0, y + (g.rowH - boxH) / 2, x1 - x0, boxH);
      }
    }
  }
  // messages: a line from the send's start to the receive's completion
  const t_msgs = performance.now();
  drawMessages(ctx, g, detail ? D : O);
  const t_msgs_end = performance.now();
  if (!detail) requestDetail();
  // failure marks
  for (const mk of TL.marks) {
    if (mk.t < TL.t0 || mk.t > TL.t1 || !g.inside(mk.rank)) continue;
    const x = g.x(mk.t), y = g.yMid(mk.rank);
    ctx.strokeStyle = '#c62828';
    ctx.lineWidth = 2;
    ctx.beginPath(); ctx.moveTo(x, AXIS); ctx.lineTo(x, h); ctx.stroke();
    ctx.fillStyle = '#c62828';
    ctx.beginPath(); ctx.moveTo(x, y - 7); ctx.lineTo(x + 7, y); ctx.lineTo(x, y + 7); ctx.lineTo(x - 7, y); ctx.fill();
  }
  for (const f of TL.overlays) f(ctx, g, D);
  if (TL.drag && TL.drag.zoom) {
    ctx.fillStyle = 'rgba(30,136,229,0.15)';
    const a = Math.min(TL.drag.x, TL.drag.cx), b = Math.max(TL.drag.x, TL.drag.cx);
    ctx.fillRect(a, AXIS, b - a, h - AXIS);
  }
  ctx.restore();
  // time scale
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, w, AXIS);
  ctx.strokeStyle = '#555';
  ctx.fillStyle = '#333';
  ctx.lineWidth = 1;
  ctx.beginPath(); ctx.moveTo(g.x0, AXIS - 0.5); ctx.lineTo(g.x1, AXIS - 0.5); ctx.stroke();
  const step = niceStep(TL.t1 - TL.t0, g.x1 - g.x0);
  const labels = [];
  ctx.textBaseline = 'top';
  for (let t = Math.ceil(TL.t0 / step) * step; t <= TL.t1; t += step) {
    const x = g.x(t);
    ctx.beginPath(); ctx.moveTo(x + 0.5, AXIS - 6); ctx.lineTo(x + 0.5, AXIS); ctx.stroke();
    const s = fmtTime(t);
    labels.push(s);
    ctx.fillText(s, x + 2, 4);
  }
  ctx.fillText('elapsed', 4, 4);
  TL.labels = labels;
  let note = g.group > 1 ? 'each row: ' + g.group + ' ranks summarised (colour: their share of time per kind, ' +
    'pale: computing; ' + fmtCount(drawnStats.aggregated) + ' messages drawn between rows of ranks; hover for shares)' : '';
  if (drawnStats.hidden) note += (note ? '; ' : '') + fmtCount(drawnStats.hidden) + ' messages to or from ranks not shown';
  if (sv && !detail) note += (note ? '; ' : '') + 'summarised (the run\'s overview): ' + fmtCount(drawnStats.represented) +
    ' messages in ' + fmtCount(drawnStats.lines) + ' lines; ' + (sv.loading ? 'loading this window\u2026' : sv.error ? sv.error :
      sv.over ? 'too busy to load (over ' + fmtCount(sv.cap) + ' calls and messages): zoom in further' : 'zoom in to load each message');
  TL.canvas.dataset.note = note;
  if (note) {
    ctx.fillStyle = '#6d4c41';
    ctx.fillText(note + (g.group > 1 ? ' (ctrl+wheel or the ranks box shows fewer)' : ''), g.x0 + 4, AXIS - 14);
  }
  TL.frameMs = performance.now() - t_start;
  TL.frameParts = { rows_ms: t_calls - t_start, calls_ms: t_msgs - t_calls, messages_ms: t_msgs_end - t_msgs };
}

// Rows that stand for several ranks: per row and pixel column, the time the
// group spent in each call kind, from one pass over the window's calls;
// drawn as one colour per cell, the kinds' colours mixed by their shares and
// faded towards white by the share of computation (no call). The shares are
// kept (TL.summary) for the hover text and window.mpilens.rowSummary().
function groupShares(g) {
  const npx = Math.max(1, Math.ceil(g.x1 - g.x0)), K = KINDS.length;
  const acc = new Float64Array(g.rows * npx * K);
  const nsPerPx = (TL.t1 - TL.t0) / (g.x1 - g.x0);
  const t0 = D.c_t0, du = D.c_dur, kind = D.c_kind;
  for (let r = g.ra; r < g.rb; r++) {
    const base = Math.floor((r - g.ra) / g.group) * npx, end = D.rankStart[r + 1];
    for (let p = firstCallAt(r, TL.t0 - D.rankMaxDur[r]); p < end; p++) {
      const i = p;
      let a = t0[i];
      if (a > TL.t1) break;
      let b = a + du[i];
      if (b < TL.t0) continue;
      a = Math.max(a, TL.t0); b = Math.min(b, TL.t1);
      const fa = (a - TL.t0) / nsPerPx, fb = (b - TL.t0) / nsPerPx, k = kind[i];
      const c0 = Math.min(npx - 1, Math.floor(fa)), c1 = Math.min(npx - 1, Math.floor(fb));
      if (c0 === c1) { acc[(base + c0) * K + k] += b - a; continue; }
      acc[(base + c0) * K + k] += (c0 + 1 - fa) * nsPerPx;
      for (let c = c0 + 1; c < c1; c++) acc[(base + c) * K + k] += nsPerPx;
      acc[(base + c1) * K + k] += (fb - c1) * nsPerPx;
    }
  }
  return { acc, npx, nsPerPx, K };
}

const KIND_RGB = KIND_COLOURS.map(c => [1, 3, 5].map(i => parseInt(c.slice(i, i + 2), 16)));

function drawGroups(ctx, g) {
  const S = groupShares(g), { acc, npx, nsPerPx, K } = S;
  TL.summary = S;
  const H = Math.max(1, Math.round(g.rows * g.rowH));
  const img = new ImageData(npx, H), px = img.data;
  for (let row = 0; row < g.rows; row++) {
    const r0 = g.ra + row * g.group, n = Math.min(g.rb, r0 + g.group) - r0;
    const y0 = Math.round(row * g.rowH), y1 = Math.min(H, Math.round((row + 1) * g.rowH));
    const full = n * nsPerPx;
    for (let c = 0; c < npx; c++) {
      const base = ((row * npx) + c) * K;
      let sum = 0;
      for (let k = 0; k < K; k++) sum += acc[base + k];
      if (sum <= 0) continue;
      const busy = Math.min(1, sum / full);
      let R = 0, G = 0, B = 0;
      for (let k = 0; k < K; k++) {
        const f = acc[base + k] / sum;
        if (f) { R += f * KIND_RGB[k][0]; G += f * KIND_RGB[k][1]; B += f * KIND_RGB[k][2]; }
      }
      // at least a third of the colour: a busy moment of a few ranks stays visible
      const a = 0.33 + 0.67 * busy;
      R = 255 - a * (255 - R); G = 255 - a * (255 - G); B = 255 - a * (255 - B);
      for (let y = y0; y < y1; y++) {
        const q = (y * npx + c) * 4;
        px[q] = R; px[q + 1] = G; px[q + 2] = B; px[q + 3] = 255;
      }
    }
  }
  if (!TL.groupCanvas) TL.groupCanvas = document.createElement('canvas');
  const oc = TL.groupCanvas;
  oc.width = npx; oc.height = H;
  oc.getContext('2d').putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(oc, g.x0, AXIS);
}

// What grouped row `row` does over columns [c0, c1) of the last drawing:
// its ranks and the share of their time in each kind and in computation.
function rowSummary(row, c0, c1) {
  const g = TL.g, S = TL.summary;
  if (!g || !S || row < 0 || row >= g.rows) return null;
  const { acc, npx, nsPerPx, K } = S;
  c0 = Math.max(0, c0 == null ? 0 : c0); c1 = Math.min(npx, c1 == null ? npx : c1);
  const r0 = g.ra + row * g.group, r1 = Math.min(g.rb, r0 + g.group) - 1;
  const ns = new Array(K).fill(0);
  for (let c = c0; c < c1; c++) for (let k = 0; k < K; k++) ns[k] += acc[(row * npx + c) * K + k];
  const total = (r1 - r0 + 1) * (c1 - c0) * nsPerPx;
  const shares = {};
  let mpi = 0;
  for (let k = 0; k < K; k++) { shares[KINDS[k]] = total ? ns[k] / total : 0; mpi += ns[k]; }
  shares.computation = total ? Math.max(0, 1 - mpi / total) : 0;
  return { ranks: [r0, r1], t0: TL.t0 + c0 * nsPerPx, t1: TL.t0 + c1 * nsPerPx, mpi_ns: mpi, shares };
}

function summaryText(s) {
  const parts = Object.entries(s.shares).filter(([, v]) => v >= 0.0005)
    .sort((x, y) => y[1] - x[1]).map(([k, v]) => k + ' ' + (100 * v).toFixed(1) + '%');
  return 'ranks ' + s.ranks[0] + '-' + s.ranks[1] + ' (' + (s.ranks[1] - s.ranks[0] + 1) + ' ranks summarised), ' +
    fmtTime(s.t0) + ' to ' + fmtTime(s.t1) + ': ' + parts.join(', ');
}

// Zoomed out: per rank and pixel column, the kind that fills most of the
// column's time (buildBins' pyramid, from the level whose bins are no wider
// than a pixel), written into an image drawn once: the work grows with
// ranks and pixels, not with calls.
function drawBins(ctx, g, boxH, nsPerPx) {
  let lv = D.binLevels[0];
  for (const l of D.binLevels) if (l.w <= nsPerPx) lv = l;
  const B = lv.B, w = lv.w, bins = lv.kind, best = lv.best;
  const npx = Math.max(1, Math.ceil(g.x1 - g.x0)), H = Math.max(1, Math.ceil(g.h - AXIS));
  if (!TL.binImg || TL.binImg.width !== npx || TL.binImg.height !== H) TL.binImg = new ImageData(npx, H);
  const img = TL.binImg, px = new Uint32Array(img.data.buffer);
  px.fill(0);
  const little = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
  const col = [0].concat(KIND_RGB.map(([r, gg, b]) => little ? (255 << 24 | b << 16 | gg << 8 | r) >>> 0 : (r << 24 | gg << 16 | b << 8 | 255) >>> 0));
  for (let r = g.ra; r < g.rb; r++) {
    const y0 = Math.max(0, Math.round(g.rowY(r) + (g.rowH - boxH) / 2 - AXIS)), y1 = Math.min(H, y0 + Math.max(1, Math.round(boxH)));
    const base = r * B;
    for (let x = 0; x < npx; x++) {
      const ta = TL.t0 + x * nsPerPx;
      let b0 = Math.floor(ta / w), b1 = Math.floor((ta + nsPerPx) / w);
      if (b1 < 0 || b0 >= B) continue;
      b0 = Math.max(b0, 0); b1 = Math.min(b1, B - 1);
      let k = 0, kb = 0;
      for (let b = b0; b <= b1; b++) if (bins[base + b] && best[base + b] > kb) { k = bins[base + b]; kb = best[base + b]; }
      if (!k) continue;
      const c = col[k];
      for (let y = y0; y < y1; y++) px[y * npx + x] = c;
    }
  }
  if (!TL.binCanvas) TL.binCanvas = document.createElement('canvas');
  const oc = TL.binCanvas;
  if (oc.width !== npx || oc.height !== H) { oc.width = npx; oc.height = H; }
  oc.getContext('2d').putImageData(img, 0, 0);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(oc, g.x0, AXIS);
}

// Per rank, the kind of call that covers most of each of B time bins
// (level 0: B up to 65,536, fewer when ranks are many), then levels of
// bins twice as wide, each bin the kind of the better of its two halves.
function buildBins() {
  const R = D.ranks;
  const B = Math.max(256, Math.min(65536, 2 ** Math.floor(Math.log2((1 << 24) / R))));
  const w = D.span / B;
  const bins = new Uint8Array(R * B), best = new Float32Array(R * B);
  const t0 = D.c_t0, du = D.c_dur, kind = D.c_kind, rk = D.c_rank;
  for (let i = 0; i < t0.length; i++) {
    const a = t0[i], b = a + du[i], base = rk[i] * B;
    const b0 = Math.max(0, Math.floor(a / w)), b1 = Math.min(B - 1, Math.floor(b / w));
    for (let k = b0; k <= b1; k++) {
      const ov = Math.min(b, (k + 1) * w) - Math.max(a, k * w) + 1e-3;
      if (ov > best[base + k]) { best[base + k] = ov; bins[base + k] = kind[i] + 1; }
    }
  }
  D.binN = B; D.binW = w;
  D.binLevels = binPyramid(R, B, w, bins, best);
}

// levels of bins twice as wide up to 256 bins, each bin the kind of the better of its halves
function binPyramid(R, B, w, bins, best) {
  const L = [{ B, w, kind: bins, best }];
  for (let n = B; n > 256; n >>= 1) {
    const m = n >> 1, lo = L[L.length - 1];
    const nk = new Uint8Array(R * m), nb = new Float32Array(R * m);
    for (let r = 0; r < R; r++) for (let i = 0; i < m; i++) {
      const a = r * n + 2 * i, b = a + 1, o = r * m + i;
      if (lo.kind[a] === lo.kind[b]) { nk[o] = lo.kind[a]; nb[o] = lo.best[a] + lo.best[b]; }
      else if (lo.best[a] >= lo.best[b]) { nk[o] = lo.kind[a]; nb[o] = lo.best[a]; }
      else { nk[o] = lo.kind[b]; nb[o] = lo.best[b]; }
    }
    L.push({ B: m, w: w * B / m, kind: nk, best: nb });
  }
  return L;
}

// Messages at coarser and coarser time bins (bins of D.span / 8192 at level
// 0, twice as wide at each level up): an entry stands for the consecutive
// messages of one rank pair whose send start and receive completion fall in
// the same bins, with their count, their largest size and the first of them
// (where the entry is drawn).  A level is kept when it merges (no more than
// 60 % of the entries below it).  A crowded frame draws from the level whose
// bins fit in its cells: its work grows with the pixels, not the messages.
function buildLevels() {
  const nm = D.msgOrder.length;
  D.levels = [];
  if (nm <= 20000) return;
  const w0 = (D.levelSpan || D.span) / 8192, mo = D.msgOrder, ts = D.m_ts, lat = D.m_lat, by = D.m_bytes, pid = D.m_pair;
  const lastE = new Int32Array(D.npairs);
  // one set of arrays for every level, merged in place (an entry is written
  // at or before the one it is read from); the levels kept are copies
  const A = new Int32Array(nm), B = new Int32Array(nm), P = new Int32Array(nm), C = new Int32Array(nm);
  const M = new Float32Array(nm), Rp = new Int32Array(nm);
  let n0 = nm, kept = nm;
  for (let L = 0; L < 16; L++) {
    const w = w0 * 2 ** L;
    lastE.fill(-1);
    let n = 0;
    for (let q = 0; q < n0; q++) {
      let a, b, p, c, mx, rep;
      if (L) { a = A[q] >> 1; b = B[q] >> 1; p = P[q]; c = C[q]; mx = M[q]; rep = Rp[q]; }
      else { rep = mo[q]; a = Math.floor(ts[rep] / w); b = Math.floor((ts[rep] + lat[rep]) / w); p = pid[rep]; c = 1; mx = by[rep]; }
      const e = lastE[p];
      if (e >= 0 && A[e] === a && B[e] === b) { C[e] += c; if (mx > M[e]) M[e] = mx; continue; }
      A[n] = a; B[n] = b; P[n] = p; C[n] = c; M[n] = mx; Rp[n] = rep; lastE[p] = n; n++;
    }
    if (n <= 0.6 * kept) {
      D.levels.push({ w, n, A: A.slice(0, n), B: B.slice(0, n), P: P.slice(0, n), C: C.slice(0, n), M: M.slice(0, n), R: Rp.slice(0, n) });
      kept = n;
    }
    n0 = n;
    if (n <= 2000) break;
  }
}

// The message lines of a frame: every message in the window as its own
// line when they are few (20,000); when more, one line per rank pair (per
// pair of rows when rows are grouped) and cell of pixels for the messages
// that start and end in the same cells, the cells wide enough that the
// lines stay about 15,000, read from the message pyramid (buildLevels).
// Counted: lines drawn, messages they represent, messages to or from ranks
// not shown, messages drawn between grouped rows.
function drawMessages(ctx, g, S) {
  const nm = S.msgOrder.length, weight = S.m_cnt;
  const mo = S.msgOrder, src = S.m_src, dst = S.m_dst, ts = S.m_ts, lat = S.m_lat, by = S.m_bytes;
  const bpp = TL.bpp;
  const lo = lowerBound(S.msgTsSorted, 0, nm, TL.t0 - S.maxLat);
  const hi = lowerBound(S.msgTsSorted, lo, nm, TL.t1 + 1);
  const crowded = hi - lo > 20000;
  const plotW = g.x1 - g.x0, nsPerPx = (TL.t1 - TL.t0) / plotW;
  const rows = g.rows, pairs = Math.min(S.npairs || rows * rows, rows * rows);
  const cellPx = crowded ? Math.max(3, Math.ceil(pairs * plotW / 3 / 15000) * 3) : 1;
  let lv = null;
  if (crowded) for (const l of S.levels) if (l.w <= cellPx * nsPerPx) lv = l;
  const small = rows <= 1024;
  const last = crowded ? (small ? new Float64Array(rows * rows).fill(-1) : new Map()) : null;
  const seg = [];
  let lines = 0, represented = 0, hidden = 0, aggregated = 0;
  const scale = plotW / (TL.t1 - TL.t0);
  const maxW = Math.max(1, Math.round(g.rowH * 0.8));
  // one path per sender row and width: few strokes however many lines
  const paths = new Map();
  let q0 = lo, q1 = hi;
  if (lv) {
    q0 = lowerBound(lv.A, 0, lv.n, Math.floor((TL.t0 - S.maxLat) / lv.w));
    q1 = lowerBound(lv.A, q0, lv.n, Math.floor(TL.t1 / lv.w) + 1);
  }
  for (let q = q0; q < q1; q++) {
    const j = lv ? lv.R[q] : mo[q], cnt = lv ? lv.C[q] : weight ? weight[j] : 1, a = ts[j], b = a + lat[j];
    if (b < TL.t0 || a > TL.t1) continue;
    const s = src[j], d = dst[j];
    if (s < g.ra || s >= g.rb || d < g.ra || d >= g.rb) { hidden += cnt; continue; }
    if (g.group > 1) aggregated += cnt;
    represented += cnt;
    const x0 = g.x0 + (a - TL.t0) * scale, x1 = g.x0 + (b - TL.t0) * scale;
    const lw = Math.min(Math.max(1, Math.round((lv ? lv.M[q] : by[j]) / bpp)), maxW);
    const sr = Math.floor((s - g.ra) / g.group);
    if (crowded) {   // one line for the messages of a row pair that start and end in the same cells
      const k2 = Math.floor(x0 / cellPx) * 1048576 + Math.floor(x1 / cellPx);
      const key = sr * rows + Math.floor((d - g.ra) / g.group);
      if (small) { if (last[key] === k2) continue; last[key] = k2; }
      else { if (last.get(key) === k2) continue; last.set(key, k2); }
    }
    const pk = (g.ra + sr * g.group) * 256 + lw;
    let path = paths.get(pk);
    if (!path) { path = new Path2D(); paths.set(pk, path); }
    path.moveTo(x0, g.yMid(s));
    path.lineTo(x1, g.yMid(d));
    lines++;
    if (seg.length < 400000) seg.push(j);
  }
  for (const [pk, path] of paths) {
    ctx.strokeStyle = rankColour(Math.floor(pk / 256));
    ctx.lineWidth = pk % 256;
    ctx.stroke(path);
  }
  TL.segs = seg;
  TL.segSet = S;
  drawnStats = { lines, represented, crowded, hidden, aggregated, cell_px: cellPx, level: lv ? S.levels.indexOf(lv) : -1,
    summarised: S === O };
}

// ---- served: the window's detail from the server ------------------------------

// the loaded detail covers the window shown
function inDetail() {
  const w = D.served.win;
  return !!w && TL.t0 >= w[0] && TL.t1 <= w[1];
}

// Asks the server for the calls and messages of the window shown (and a
// quarter of it each side), 150 ms after the last move, one request at a
// time; the answer replaces the detail held (decodeColumns, index).
function requestDetail() {
  const sv = D.served;
  clearTimeout(sv.timer);
  sv.timer = setTimeout(() => {
    if (sv.loading || inDetail()) return;
    const len = TL.t1 - TL.t0, span = D.span;
    const from = Math.max(0, Math.floor(TL.t0 - len / 4)), to = Math.min(Math.ceil(span), Math.ceil(TL.t1 + len / 4));
    if (sv.over && from >= sv.over[0] && to <= sv.over[1] && sv.over[1] - sv.over[0] <= 2 * (to - from)) return;
    // too busy by the overview's count (its calls in proportion): not asked
    const est = overviewCount(from, to) * (1 + D.meta.calls / Math.max(1, D.meta.messages));
    if (est > 1.5 * sv.cap) { sv.over = [from, to]; scheduleDraw(); return; }
    sv.loading = [from, to];
    sv.error = '';
    sv.requests++;
    scheduleDraw();
    fetchDetail(from, to).catch(e => { sv.error = 'the server did not answer (' + e.message + ')'; })
      .finally(() => { sv.loading = null; scheduleDraw(); });
  }, 150);
}

// messages the overview has overlapping [a, b] (entries by their first message)
function overviewCount(a, b) {
  const n = O.msgOrder.length, lo = lowerBound(O.msgTsSorted, 0, n, a - O.maxLat), hi = lowerBound(O.msgTsSorted, lo, n, b + 1);
  let c = 0;
  for (let q = lo; q < hi; q++) { const j = O.msgOrder[q]; if (O.m_ts[j] + O.m_lat[j] >= a) c += O.m_cnt[j]; }
  return c;
}

async function fetchDetail(from, to) {
  const sv = D.served, t = performance.now();
  const r = await fetch('data?from=' + from + '&to=' + to, { cache: 'no-store' });
  if (!r.ok) throw new Error('HTTP ' + r.status);
  const buf = new Uint8Array(await r.arrayBuffer());
  const nl = buf.indexOf(10);
  const hdr = JSON.parse(new TextDecoder().decode(buf.subarray(0, nl)));
  if (hdr.over) { sv.over = [from, to]; sv.last_ms = performance.now() - t; return; }
  const cols = await inflate(buf.subarray(nl + 1, nl + 1 + hdr.packed));
  decodeColumns(cols, hdr.calls, hdr.messages, hdr.colls);
  D.sites = hdr.sites; D.types = hdr.types;
  index();
  D.levelSpan = Math.max(1, to - from);   // the pyramid's finest bins: of the window's width
  buildLevels();
  sv.over = null;
  sv.win = [from <= 0 ? -Infinity : from, to >= Math.ceil(D.span) ? Infinity : to];
  sv.server_ms = hdr.ms;
  sv.last_ms = performance.now() - t;
  if ($('tl-search').value.trim()) tlSearch($('tl-search').value);
}

function tlPick(x, y) {
  const g = TL.g;
  if (!g || x < g.x0 || y < AXIS) return null;
  // a message line within 4 px
  let best = -1, bestD = 4;
  const S = TL.segSet || D;
  for (const j of TL.segs || []) {
    const ax = g.x(S.m_ts[j]), ay = g.yMid(S.m_src[j]), bx = g.x(S.m_ts[j] + S.m_lat[j]), by = g.yMid(S.m_dst[j]);
    const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
    let t = l2 ? ((x - ax) * dx + (y - ay) * dy) / l2 : 0;
    t = Math.max(0, Math.min(1, t));
    const d = Math.hypot(ax + t * dx - x, ay + t * dy - y);
    if (d < bestD) { bestD = d; best = j; }
  }
  const row = g.rowOf(y);
  if (g.group > 1 && row >= 0 && row < g.rows) {
    // a summarised row says what its ranks do around the cursor (5 columns),
    // then the message under the cursor if there is one
    const c = Math.floor(x - g.x0), s = rowSummary(row, c - 2, c + 3);
    if (s) return best >= 0 ? { group: s, msg: best, set: S } : { group: s };
  }
  if (best >= 0) return { msg: best, set: S };
  if (row < 0 || row >= g.rows) return null;
  const slack = 3 * (TL.t1 - TL.t0) / (g.x1 - g.x0), t = g.t(x);
  for (let r = g.ra + row * g.group; r < Math.min(g.rb, g.ra + (row + 1) * g.group); r++) {
    const c = callAt(r, t, slack);
    if (c >= 0) return { call: c };
  }
  return null;
}

function tlSetRange(a, b) {
  const span = D.span;
  if (b - a < 100) { const m = (a + b) / 2; a = m - 50; b = m + 50; }
  const pad = span * 0.02;
  if (b - a > span + 2 * pad) { a = -pad; b = span + pad; }
  TL.t0 = a; TL.t1 = b;
  scheduleDraw();
}

function tlFit() { const pad = D.span * 0.02; tlSetRanks(0, D.ranks); tlSetRange(-pad, D.span + pad); }

// the ranks shown: [a, b)
function tlSetRanks(a, b) {
  a = Math.max(0, Math.min(D.ranks - 1, Math.floor(a)));
  b = Math.max(a + 1, Math.min(D.ranks, Math.ceil(b)));
  TL.ra = a; TL.rb = b;
  $('tl-ranks').value = a + '-' + (b - 1);
  scheduleDraw();
}

function tlZoom(f, atX) {
  const g = TL.g, t = atX != null && g ? g.t(atX) : (TL.t0 + TL.t1) / 2;
  tlSetRange(t - (t - TL.t0) * f, t + (TL.t1 - t) * f);
}

function tlPan(frac) { const d = (TL.t1 - TL.t0) * frac; tlSetRange(TL.t0 + d, TL.t1 + d); }

let drawPending = false, drawRaf = 0;
function scheduleDraw() {
  if (drawPending) return;
  drawPending = true;
  drawRaf = requestAnimationFrame(() => { drawPending = false; tlDraw(); });
}

function pickText(p) {
  const mt = j => p.set === O ? entryText(j) : msgText(j);
  if (p.group) return summaryText(p.group) + (p.msg != null ? '\n' + mt(p.msg) : '');
  return p.msg != null ? mt(p.msg) : callText(p.call);
}

// a line of the served page's overview: messages merged
function entryText(j) {
  return fmtCount(O.m_cnt[j]) + ' message' + (O.m_cnt[j] === 1 ? '' : 's') + ' rank ' + O.m_src[j] + ' -> rank ' +
    O.m_dst[j] + ', ' + fmtBytes(O.m_sum[j]) + ' (largest ' + fmtCount(O.m_bytes[j]) + ' bytes), the first sent at ' +
    fmtTime(O.m_ts[j]) + '\nsummarised: zoom in for each message, its routines and file:line';
}

function showDetails(pick) {
  $('tl-details').textContent = pick ? pickText(pick) :
    'Click a call or a message.';
}

function tlSearch(q) {
  q = q.trim().toLowerCase();
  if (!q) { TL.highlight = null; $('tl-found').textContent = ''; scheduleDraw(); return; }
  const names = D.meta.names.map(n => n.toLowerCase().includes(q));
  const sites = D.sites.map(s => s.toLowerCase().includes(q));
  const n = D.c_name.length, hl = new Uint8Array(n);
  let cnt = 0;
  for (let i = 0; i < n; i++) {
    if (names[D.c_name[i]] || (D.c_site[i] > 0 && sites[D.c_site[i] - 1])) { hl[i] = 1; cnt++; }
  }
  TL.highlight = hl;
  $('tl-found').textContent = fmtCount(cnt) + ' call' + (cnt === 1 ? '' : 's') + ' found' +
    (D.served ? (D.served.win ? ' in the window loaded' : ' (zoom in: the page holds the overview only)') : '');
  scheduleDraw();
}

function tlInit() {
  const c = $('tl-canvas');
  TL.canvas = c;
  const bytes = D.served ? O.m_bytes : D.m_bytes;
  let maxB = 1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > maxB) maxB = bytes[i];
  TL.bpp = Math.max(1, Math.ceil(maxB / 6));
  $('tl-bpp').value = TL.bpp;
  $('tl-bpp').addEventListener('input', e => { const v = +e.target.value; if (v > 0) { TL.bpp = v; scheduleDraw(); } });
  $('tl-fit').onclick = tlFit;
  $('tl-cp').checked = CP.on;
  $('tl-cp').addEventListener('change', e => { CP.on = e.target.checked; scheduleDraw(); });
  if (!D.meta.critical_path || D.meta.critical_path.empty) $('tl-cp').parentNode.style.display = 'none';
  $('tl-ranks').addEventListener('change', e => {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(e.target.value);
    if (m) tlSetRanks(+m[1], (m[2] != null ? +m[2] : +m[1]) + 1);
  });
  $('tl-in').onclick = () => tlZoom(0.5);
  $('tl-out').onclick = () => tlZoom(2);
  $('tl-search').addEventListener('input', e => tlSearch(e.target.value));
  $('tl-legend').innerHTML = KINDS.map((k, i) => '<span style="background:' + KIND_COLOURS[i] + '">' + k + '</span>')
    .join('') + '<span style="background:rgba(251,140,0,0.5)">collective instance</span>' +
    '<span style="background:' + CP_LINE + '">critical path</span>';
  c.tabIndex = 0;
  c.addEventListener('wheel', e => {
    e.preventDefault();
    const r = c.getBoundingClientRect();
    if (e.ctrlKey && TL.g) {   // ranks: fewer or more rows around the cursor's
      const g = TL.g, row = Math.max(0, g.rowOf(e.clientY - r.top)), at = g.ra + row * g.group;
      const f = e.deltaY > 0 ? 1.5 : 0.66, n = Math.max(1, (g.rb - g.ra) * f);
      const a = at - (at - g.ra) * f;
      tlSetRanks(a, a + n);
    } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) tlPan((e.deltaX || e.deltaY) > 0 ? 0.1 : -0.1);
    else tlZoom(e.deltaY > 0 ? 1.25 : 0.8, e.clientX - r.left);
  }, { passive: false });
  c.addEventListener('mousedown', e => {
    const r = c.getBoundingClientRect();
    TL.drag = { x: e.clientX - r.left, cx: e.clientX - r.left, t0: TL.t0, t1: TL.t1,
      zoom: !(e.altKey || e.button === 1), moved: false };
    c.focus();
  });
  window.addEventListener('mousemove', e => {
    const r = c.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    if (TL.drag) {
      TL.drag.cx = x;
      if (Math.abs(x - TL.drag.x) > 4) TL.drag.moved = true;
      if (!TL.drag.zoom && TL.g) {
        const dt = (x - TL.drag.x) / (TL.g.x1 - TL.g.x0) * (TL.drag.t1 - TL.drag.t0);
        TL.t0 = TL.drag.t0 - dt; TL.t1 = TL.drag.t1 - dt;
      }
      scheduleDraw();
      return;
    }
    if (e.target !== c) { $('tl-tip').style.display = 'none'; return; }
    const p = tlPick(x, y), tip = $('tl-tip');
    if (!p) { tip.style.display = 'none'; return; }
    tip.textContent = pickText(p);
    tip.style.display = 'block';
    tip.style.left = Math.min(x + 14, r.width - tip.offsetWidth - 4) + 'px';
    tip.style.top = (y + 14) + 'px';
  });
  window.addEventListener('mouseup', e => {
    if (!TL.drag) return;
    const d = TL.drag;
    TL.drag = null;
    if (d.zoom && d.moved && TL.g) {
      const a = TL.g.t(Math.min(d.x, d.cx)), b = TL.g.t(Math.max(d.x, d.cx));
      tlSetRange(a, b);
    } else if (!d.moved) {
      const r = c.getBoundingClientRect();
      showDetails(tlPick(e.clientX - r.left, e.clientY - r.top));
      scheduleDraw();
    } else scheduleDraw();
  });
  c.addEventListener('keydown', e => {
    if (e.key === '+' || e.key === '=') tlZoom(0.5);
    else if (e.key === '-') tlZoom(2);
    else if (e.key === '0' || e.key === 'f') tlFit();
    else if (e.key === 'ArrowLeft') tlPan(-0.2);
    else if (e.key === 'ArrowRight') tlPan(0.2);
    else return;
    e.preventDefault();
  });
  tlFit();
}

// ---- network load ------------------------------------------------------------------

function ldInterval() {
  const len = Math.min(LD.len, D.span);
  const a = (D.span - len) * (+$('ld-slider').value) / 1000;
  return [a, a + len];
}

// traffic per pair (sender < receiver folded) of messages sent in [a, b)
// (a served page: from the overview, each entry at its first message's time)
function trafficIn(a, b, metric) {
  const S = D.served ? O : D, nm = S.msgOrder.length, mo = S.msgOrder;
  const lo = lowerBound(S.msgTsSorted, 0, nm, a), hi = lowerBound(S.msgTsSorted, lo, nm, b);
  const pairs = new Map(), w = metric === 'bytes' ? (S.m_sum || S.m_bytes) : S.m_cnt;
  for (let p = lo; p < hi; p++) {
    const j = mo[p];
    const s = S.m_src[j], d = S.m_dst[j];
    const key = s < d ? s * 1048576 + d : d * 1048576 + s;
    pairs.set(key, (pairs.get(key) || 0) + (w ? w[j] : 1));
  }
  return pairs;
}

function ldDraw() {
  if (!$('view-load').classList.contains('on')) return;
  const { ctx, w, h } = setupCanvas($('ld-canvas'));
  ctx.clearRect(0, 0, w, h);
  const metric = document.querySelector('input[name=ld-metric]:checked').value;
  const [a, b] = ldInterval();
  const pairs = trafficIn(a, b, metric);
  const n = D.ranks, cx = w / 2, cy = h / 2, R = Math.max(20, Math.min(w, h) / 2 - 40);
  const per = metric === 'bytes' ? LD.bppBytes : LD.bppMsgs;
  const pos = r => [cx + R * Math.cos(2 * Math.PI * r / n - Math.PI / 2), cy + R * Math.sin(2 * Math.PI * r / n - Math.PI / 2)];
  const drawn = [];
  ctx.globalAlpha = 0.75;
  for (const [key, v] of pairs) {
    const s = Math.floor(key / 1048576), d = key % 1048576;
    const width = v / per;
    const [x0, y0] = pos(s), [x1, y1] = pos(d);
    ctx.strokeStyle = rankColour(s);
    ctx.lineWidth = Math.max(0.5, Math.min(width, 60));
    ctx.beginPath(); ctx.moveTo(x0, y0); ctx.quadraticCurveTo(cx, cy, x1, y1); ctx.stroke();
    drawn.push({ a: s, b: d, value: v, width });
  }
  ctx.globalAlpha = 1;
  LD.drawn = drawn;
  const dot = Math.max(1.5, Math.min(8, Math.PI * R / n));
  ctx.font = '11px sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  const every = Math.max(1, Math.ceil(n / 64));
  for (let r = 0; r < n; r++) {
    const [x, y] = pos(r);
    ctx.fillStyle = rankColour(r);
    ctx.beginPath(); ctx.arc(x, y, dot, 0, 2 * Math.PI); ctx.fill();
    if (r % every === 0) {
      const [lx, ly] = [cx + (R + 18) * Math.cos(2 * Math.PI * r / n - Math.PI / 2), cy + (R + 18) * Math.sin(2 * Math.PI * r / n - Math.PI / 2)];
      ctx.fillText(String(r), lx, ly);
    }
  }
  ctx.textAlign = 'left';
  let tot = 0;
  for (const v of pairs.values()) tot += v;
  $('ld-text').textContent = 'interval ' + fmtTime(a) + ' to ' + fmtTime(b) + ' (' + fmtTime(b - a) + ') of a run of ' +
    fmtTime(D.span) + ': ' + (metric === 'bytes' ? fmtBytes(tot) : fmtCount(tot) + ' messages') + ' between ' +
    pairs.size + ' pair' + (pairs.size === 1 ? '' : 's') + '; line width: ' + per + (metric === 'bytes' ? ' bytes' : ' messages') +
    ' per pixel' + (n > 64 ? '; every ' + every + 'th rank numbered' : '');
}

function ldInit() {
  LD.len = Math.max(1, D.span / 10);
  $('ld-len').value = +(LD.len / 1e6).toPrecision(4);
  let maxB = 1, maxM = 1;
  // the whole run's traffic per pair (sender < receiver folded), from the rank pairs
  const fold = new Map();
  if (D.served) {
    for (let j = 0; j < O.m_ts.length; j++) {
      const s = O.m_src[j], d = O.m_dst[j], key = s < d ? s * 1048576 + d : d * 1048576 + s;
      const v = fold.get(key) || [0, 0];
      v[0] += O.m_sum[j]; v[1] += O.m_cnt[j];
      fold.set(key, v);
    }
  } else {
    const pb = new Float64Array(D.npairs), pm = new Float64Array(D.npairs), first = new Int32Array(D.npairs).fill(-1);
    for (let j = 0; j < D.m_pair.length; j++) {
      const p = D.m_pair[j];
      pb[p] += D.m_bytes[j]; pm[p]++;
      if (first[p] < 0) first[p] = j;
    }
    for (let p = 0; p < D.npairs; p++) {
      const s = D.m_src[first[p]], d = D.m_dst[first[p]], key = s < d ? s * 1048576 + d : d * 1048576 + s;
      const v = fold.get(key) || [0, 0];
      v[0] += pb[p]; v[1] += pm[p];
      fold.set(key, v);
    }
  }
  for (const [b, n] of fold.values()) { maxB = Math.max(maxB, b); maxM = Math.max(maxM, n); }
  LD.bppBytes = Math.max(1, Math.ceil(maxB / 10 / 10));
  LD.bppMsgs = Math.max(0.01, +(maxM / 100).toPrecision(2));
  const syncBpp = () => {
    const m = document.querySelector('input[name=ld-metric]:checked').value;
    $('ld-bpp').value = m === 'bytes' ? LD.bppBytes : LD.bppMsgs;
  };
  syncBpp();
  $('ld-slider').addEventListener('input', ldDraw);
  $('ld-len').addEventListener('input', e => { const v = +e.target.value; if (v > 0) { LD.len = v * 1e6; ldDraw(); } });
  $('ld-bpp').addEventListener('input', e => {
    const v = +e.target.value;
    if (!(v > 0)) return;
    if (document.querySelector('input[name=ld-metric]:checked').value === 'bytes') LD.bppBytes = v; else LD.bppMsgs = v;
    ldDraw();
  });
  for (const el of document.querySelectorAll('input[name=ld-metric]')) el.addEventListener('change', () => { syncBpp(); ldDraw(); });
  $('ld-play').onclick = () => {
    if (LD.timer) { clearInterval(LD.timer); LD.timer = null; $('ld-play').textContent = 'Play'; return; }
    $('ld-play').textContent = 'Stop';
    LD.timer = setInterval(() => {
      const s = $('ld-slider');
      const stepv = Math.max(1, Math.round(1000 * Math.min(LD.len, D.span) / Math.max(1, D.span - Math.min(LD.len, D.span) || 1) / 4));
      let v = +s.value + Math.min(stepv, 100);
      if (v > 1000) v = 0;
      s.value = v;
      ldDraw();
    }, 400);
  };
}

// ---- communication matrix -------------------------------------------------------------

function mxDraw() {
  if (!$('view-matrix').classList.contains('on')) return;
  const { ctx, w, h } = setupCanvas($('mx-canvas'));
  ctx.clearRect(0, 0, w, h);
  const metric = $('mx-metric').value, scope = $('mx-scope').value;
  let a = -Infinity, b = Infinity;
  if (scope === 'interval') [a, b] = ldInterval();
  else if (scope === 'visible') [a, b] = [TL.t0, TL.t1];
  const n = D.ranks, side = Math.max(40, Math.min(w - 200, h - 100));
  const group = Math.max(1, Math.ceil(n / side));
  const cells = Math.ceil(n / group), cell = side / cells;
  const bytes = new Float64Array(cells * cells), cnt = new Float64Array(cells * cells);
  // a served page: from the overview (each entry at its first message's time)
  const S = D.served ? O : D, nm = S.msgOrder.length, wb = S.m_sum || S.m_bytes, wc = S.m_cnt;
  const lo = a === -Infinity ? 0 : lowerBound(S.msgTsSorted, 0, nm, a);
  const hi = b === Infinity ? nm : lowerBound(S.msgTsSorted, lo, nm, b);
  for (let p = lo; p < hi; p++) {
    const j = S.msgOrder[p], k = Math.floor(S.m_src[j] / group) * cells + Math.floor(S.m_dst[j] / group);
    bytes[k] += wb[j]; cnt[k] += wc ? wc[j] : 1;
  }
  const val = k => metric === 'bytes' ? bytes[k] : metric === 'messages' ? cnt[k] : (cnt[k] ? bytes[k] / cnt[k] : 0);
  let max = 0;
  for (let k = 0; k < cells * cells; k++) max = Math.max(max, val(k));
  const X = 60, Y = 40;
  for (let i = 0; i < cells; i++) for (let j = 0; j < cells; j++) {
    const v = val(i * cells + j);
    if (!v) continue;
    const f = Math.log1p(v) / Math.log1p(max);
    ctx.fillStyle = 'hsl(' + (220 - 220 * f) + ',80%,' + (85 - 45 * f) + '%)';
    ctx.fillRect(X + j * cell, Y + i * cell, Math.ceil(cell), Math.ceil(cell));
  }
  ctx.strokeStyle = '#999';
  ctx.strokeRect(X, Y, side, side);
  ctx.fillStyle = '#333';
  ctx.font = '11px sans-serif';
  ctx.fillText('receiver →', X, 12);
  ctx.save(); ctx.translate(12, Y + 60); ctx.rotate(-Math.PI / 2); ctx.fillText('sender →', 0, 0); ctx.restore();
  const every = Math.max(1, Math.ceil(14 / cell));
  ctx.textBaseline = 'middle';
  for (let i = 0; i < cells; i += every) {
    const lab = group > 1 ? String(i * group) : String(i);
    ctx.fillText(lab, X - 4 - ctx.measureText(lab).width, Y + (i + 0.5) * cell);
    ctx.fillText(lab, X + (i + 0.2) * cell, Y - 8);
  }
  // totals: a column at the right (sent), a row below (received)
  const rowT = new Float64Array(cells), colT = new Float64Array(cells), rowC = new Float64Array(cells), colC = new Float64Array(cells);
  for (let i = 0; i < cells; i++) for (let j = 0; j < cells; j++) {
    const k = i * cells + j;
    rowT[i] += bytes[k]; colT[j] += bytes[k]; rowC[i] += cnt[k]; colC[j] += cnt[k];
  }
  const tv = (B, C, i) => metric === 'bytes' ? B[i] : metric === 'messages' ? C[i] : (C[i] ? B[i] / C[i] : 0);
  let tmax = 0;
  for (let i = 0; i < cells; i++) tmax = Math.max(tmax, tv(rowT, rowC, i), tv(colT, colC, i));
  for (let i = 0; i < cells; i++) {
    const fr = tmax ? tv(rowT, rowC, i) / tmax : 0, fc = tmax ? tv(colT, colC, i) / tmax : 0;
    ctx.fillStyle = '#546e7a';
    ctx.fillRect(X + side + 6, Y + i * cell, 60 * fr, Math.max(1, cell - 1));
    ctx.fillRect(X + i * cell, Y + side + 6, Math.max(1, cell - 1), 24 * fc);
  }
  ctx.fillStyle = '#333';
  ctx.fillText('sent (row totals)', X + side + 6, Y - 8);
  ctx.fillText('received (column totals)', X, Y + side + 40);
  const unit = metric === 'messages' ? ' messages' : ' bytes';
  const show = v => metric === 'messages' ? fmtCount(v) + unit : fmtCount(Math.round(v)) + unit + (metric === 'mean' ? ' mean' : '');
  $('mx-canvas').onmousemove = e => {
    const r = $('mx-canvas').getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    const i = Math.floor((y - Y) / cell), j = Math.floor((x - X) / cell);
    const rn = k => group > 1 ? 'ranks ' + k * group + '-' + (Math.min(n, (k + 1) * group) - 1) : 'rank ' + k;
    if (i >= 0 && i < cells && j >= 0 && j < cells)
      $('mx-hover').textContent = rn(i) + ' → ' + rn(j) + ': ' + show(val(i * cells + j)) + '; row total ' +
        show(tv(rowT, rowC, i)) + ', column total ' + show(tv(colT, colC, j));
    else $('mx-hover').textContent = '';
  };
  $('mx-hover').textContent = (group > 1 ? 'each cell: ' + group + 'x' + group + ' ranks; ' : '') +
    'largest cell ' + show(max) + (scope === 'run' ? ' over the whole run' : ' in ' + fmtTime(a) + ' to ' + fmtTime(b));
}

// ---- summary -------------------------------------------------------------------------

function smDraw() {
  if (!$('view-summary').classList.contains('on')) return;
  const m = D.meta;
  // per rank and routine: time in MPI (from the calls)
  const top = m.prof_routines.slice(0, 8).map(r => r.name);
  const slot = new Map(top.map((n, i) => [n, i]));
  const n = D.ranks, K = top.length + 1;
  const t = new Float64Array(n * K);
  const app = new Float64Array(n), mpi = new Float64Array(n);
  for (const r of m.prof_ranks) { app[r.rank] = r.app; mpi[r.rank] = r.mpi; }
  // the profile's time per rank and routine (a run of repeated polls: its
  // estimate, not the span of its box on the timeline)
  const parts = m.prof_rank_parts && m.prof_rank_parts.length === m.prof_ranks.length ? m.prof_rank_parts : null;
  if (parts) m.prof_ranks.forEach((r, i) => { for (let k = 0; k < K; k++) t[r.rank * K + k] = parts[i][k]; });
  // a served page holds the calls of one window: its MPI time per rank, not split by routine
  else if (D.served) for (let r = 0; r < n; r++) t[r * K + K - 1] = mpi[r];
  else for (let i = 0; i < D.c_t0.length; i++) {
    const s = slot.has(D.c_name[i]) ? slot.get(D.c_name[i]) : K - 1;
    t[D.c_rank[i] * K + s] += D.c_dur[i];
  }
  const { ctx, w, h } = setupCanvas($('sm-ranks'));
  ctx.clearRect(0, 0, w, h);
  const group = Math.max(1, Math.ceil(n / (h - 40)));
  const rows = Math.ceil(n / group), rh = (h - 40) / rows;
  let maxT = 1;
  const tot = new Float64Array(rows), bars = new Float64Array(rows * (K + 1));
  for (let r = 0; r < n; r++) {
    const row = Math.floor(r / group);
    let sum = 0;
    for (let k = 0; k < K; k++) { bars[row * (K + 1) + k + 1] += t[r * K + k] / group; sum += t[r * K + k]; }
    const comp = Math.max(0, app[r] - mpi[r]);   // computation: the application's time outside MPI
    bars[row * (K + 1)] += comp / group;
  }
  for (let row = 0; row < rows; row++) {
    for (let k = 0; k <= K; k++) tot[row] += bars[row * (K + 1) + k];
    maxT = Math.max(maxT, tot[row]);
  }
  const cols = ['#cfd8dc', '#1e88e5', '#fb8c00', '#e53935', '#8e24aa', '#43a047', '#00acc1', '#6d4c41', '#fdd835', '#9e9e9e'];
  const X = 90, W = w - X - 10;
  ctx.font = '11px sans-serif';
  ctx.textBaseline = 'middle';
  for (let row = 0; row < rows; row++) {
    let x = X;
    for (let k = 0; k <= K; k++) {
      const v = bars[row * (K + 1) + k], ww = v / maxT * W;
      ctx.fillStyle = cols[k];
      ctx.fillRect(x, row * rh + 1, ww, Math.max(1, rh - 2));
      x += ww;
    }
    if (rh >= 9 || row % Math.ceil(10 / rh) === 0) {
      ctx.fillStyle = '#333';
      ctx.fillText(group > 1 ? 'ranks ' + row * group + '-' + Math.min(n - 1, (row + 1) * group - 1) : 'rank ' + row, 4, row * rh + rh / 2);
    }
  }
  let lx = X, ly = h - 14;
  const names = ['computation'].concat(top.map(routineName)).concat(['other MPI']);
  for (let k = 0; k <= K; k++) {
    ctx.fillStyle = cols[k];
    ctx.fillRect(lx, ly - 5, 10, 10);
    ctx.fillStyle = '#333';
    ctx.fillText(names[k], lx + 13, ly);
    lx += 20 + ctx.measureText(names[k]).width;
  }
  if (group > 1) ctx.fillText('(each bar: the mean of ' + group + ' ranks)', lx + 10, ly);
  if (D.served && !parts) ctx.fillText('(served: MPI time per rank not split by routine)', lx + 10, ly - 14);
  SM.bars = { names, group, rows: Array.from({ length: rows }, (_, row) => Array.from(bars.slice(row * (K + 1), (row + 1) * (K + 1)))) };
  // sizes
  const s = setupCanvas($('sm-sizes'));
  s.ctx.clearRect(0, 0, s.w, s.h);
  const sz = m.sizes;
  let maxC = 1, first = sz.length, last = 0;
  sz.forEach((v, i) => { if (v[0]) { maxC = Math.max(maxC, v[0]); first = Math.min(first, i); last = i; } });
  if (first <= last) {
    const bw = (s.w - 20) / (last - first + 1);
    s.ctx.font = '10px sans-serif';
    for (let i = first; i <= last; i++) {
      const bh = sz[i][0] / maxC * (s.h - 40);
      s.ctx.fillStyle = '#1e88e5';
      s.ctx.fillRect(10 + (i - first) * bw + 2, s.h - 24 - bh, bw - 4, bh);
      s.ctx.fillStyle = '#333';
      const lab = i === 0 ? '0' : '≥' + fmtBytes(2 ** (i - 1)).replace('.00', '');
      s.ctx.fillText(lab, 10 + (i - first) * bw + 2, s.h - 10);
      s.ctx.fillText(fmtCount(sz[i][0]), 10 + (i - first) * bw + 2, s.h - 30 - bh);
    }
  } else {
    s.ctx.fillText('no matched point-to-point messages', 10, 20);
  }
}

function smInit() {
  const m = D.meta;
  cpSummary();
  // time%: a share of the MPI time of every routine but MPI_Init and
  // MPI_Finalize (outside the application time), as report's time%
  const totalMpi = m.prof_routines.reduce((a, r) => a + (r.outside ? 0 : r.total), 0);
  const share = r => r.outside || !totalMpi ? '-' : (100 * r.total / totalMpi).toFixed(1);
  $('sm-routines').innerHTML = '<tr><th>routine</th><th>calls</th><th>time</th>' +
    '<th title="share of the MPI time of all routines but MPI_Init and MPI_Finalize, as in mpilens report">time%</th><th>bytes</th></tr>' +
    m.prof_routines.slice(0, 15).map(r => '<tr><td>' + esc(routineName(r.name)) + '</td><td>' + fmtCount(r.calls) +
      '</td><td>' + fmtTime(r.total) + '</td><td>' + share(r) + '</td><td>' + fmtBytes(r.bytes) +
      '</td></tr>').join('');
  $('sm-sites').innerHTML = '<tr><th>call site</th><th>routine</th><th>calls</th><th>time</th></tr>' +
    m.prof_sites.slice(0, 15).map(r => '<tr><td>' + esc(r.where) + '</td><td>' + esc(routineName(r.name)) + '</td><td>' +
      fmtCount(r.calls) + '</td><td>' + fmtTime(r.total) + '</td></tr>').join('');
  const dg = m.diagnosis, box = $('sm-diag');
  const fails = dg && dg.failures ? dg.failures : [];
  if (!fails.length) {
    // no failure recorded, but a rank without a readable file may have failed
    const fs = dg && dg.failure_summary, unsure = fs && ((fs.ranks_without_file || []).length || (fs.unreadable_files || []).length);
    box.innerHTML = '<div class="' + (unsure ? 'warn' : 'ok') + '">' + esc(dg && dg.failure_summary && dg.failure_summary.text ? dg.failure_summary.text :
      'No rank failed.') + '</div>';
  } else {
    box.innerHTML = '';
    if (dg.failure_summary && dg.failure_summary.text) {
      const d = document.createElement('div');
      d.className = 'fail';
      d.textContent = dg.failure_summary.text;
      box.appendChild(d);
    }
    for (const f of fails) {
      const d = document.createElement('div');
      d.className = 'fail';
      const when = f.time_s != null ? timeOfFailure(f) : null;
      d.textContent = 'rank ' + f.rank + ': ' + (f.how || f.kind) + (f.where ? ' at ' + f.where : '') +
        (f.call && f.call.routine ? ' in ' + f.call.routine : '') + (f.time_s != null ? ', ' + fmtTime(f.time_s * 1e9) : '') +
        (f.time_s != null ? '  (click: show it on the timeline)' : '');
      if (when != null) {
        TL.marks.push({ rank: f.rank, t: when });
        d.onclick = () => { showView('timeline'); const half = Math.max(D.span / 50, 1e5); tlSetRange(when - half, when + half); };
      }
      box.appendChild(d);
    }
  }
  // the live monitor's deadlock verdict: who waits for whom, where
  if (dg && dg.deadlock && dg.deadlock.text) {
    const d = document.createElement('div');
    d.className = 'fail verdict';
    d.textContent = 'Deadlock found by the live monitor (' + dg.deadlock.file + ', ' + dg.deadlock.written + '):\n' +
      dg.deadlock.text;
    box.appendChild(d);
  }
}

// failures say seconds since the run's start (the earliest MPI_Init anchor,
// diag_origin_ns); the timeline's 0 is the earliest call
function timeOfFailure(f) {
  return f.time_s * 1e9 + (D.meta.diag_origin_ns - D.meta.origin_ns);
}

function esc(s) { return String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }

// ---- the page ------------------------------------------------------------------------

function showView(v) {
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.view === v);
  for (const s of document.querySelectorAll('.view')) s.classList.toggle('on', s.id === 'view-' + v);
  redraw();
}

function redraw() { tlDraw(); ldDraw(); mxDraw(); smDraw(); }

function notes() {
  const m = D.meta, out = [];
  // MPI calls as the report counts them: a run of equal polls is one box
  // on the timeline but 1 + repeat calls (it said the boxes: 411 MPI calls
  // where the program made 172,091)
  const calls = m.calls_repeated != null ? m.calls_repeated : m.calls;
  out.push('Shows ' + m.ranks_read + ' of ' + m.ranks + ' rank' + (m.ranks === 1 ? '' : 's') + ', ' + fmtCount(calls) +
    ' MPI calls' + (calls !== m.calls ? ' (' + fmtCount(m.calls) + ' boxes: a run of equal polls is one)' : '') +
    ', ' + fmtCount(m.messages) + ' matched messages (' + fmtBytes(D.bytes) + '), ' + fmtCount(m.colls) +
    ' collective instances, over ' + fmtTime(D.span) + '.');
  if (D.served) out.push('Served by mpilens view --serve: the page starts from the run\'s overview (' +
    fmtCount(O.m_ts.length) + ' lines stand for its messages); zoomed in, it loads the calls and messages of the window ' +
    'shown from the server (up to ' + fmtCount(D.served.cap) + ' at a time). The network load and the matrix use the overview.');
  if (m.ranks_read < m.ranks) out.push('Missing: ' + (m.ranks - m.ranks_read) + ' rank(s) have no readable file; their rows stay empty.');
  for (const p of m.problems) out.push('Problem: ' + p);
  if (!m.calls) out.push('Missing: no MPI call was recorded; there is nothing to draw.');
  else if (!m.messages) out.push('No point-to-point message was matched in this run: the timeline has calls only, the network load and the matrix are empty.');
  if (m.ranks === 1) out.push(m.messages ? 'One rank only: its ' + fmtCount(m.messages) + ' matched message' +
    (m.messages === 1 ? '' : 's') + ' went to itself.' : 'One rank only: there is no traffic between ranks.');
  const mt = m.match;
  if (mt.unmatched_sends || mt.unmatched_receives || mt.pending_receives || mt.coll_incomplete)
    out.push('Not drawn: ' + mt.unmatched_sends + ' unmatched sends, ' + mt.unmatched_receives + ' unmatched and ' +
      mt.pending_receives + ' pending receives, ' + mt.coll_incomplete + ' incomplete collectives (mpilens report lists them).');
  const dg = m.diagnosis;
  if (dg && dg.deadlock && dg.deadlock.text)
    out.push('The run deadlocked: ' + dg.deadlock.text.split('\n')[0].replace(/^DEADLOCK: /, '') +
      ' (Summary: the live monitor\'s verdict).');
  if (dg && dg.failures && dg.failures.length)
    out.push('The run failed: ' + (dg.failure_summary && dg.failure_summary.text || dg.failures.length + ' rank(s)') +
      ' (Summary: the diagnosis; the red mark on the timeline shows where).');
  $('notes').textContent = out.join('\n');
}

async function main() {
  try {
    await loadData();
  } catch (e) {
    $('notes').textContent = 'This page cannot show its run: ' + e.message;
    return;
  }
  const m = D.meta;
  $('runinfo').textContent = m.exe + ' · ' + m.ranks + ' ranks · ' + m.mpi.split('\n')[0].slice(0, 60);
  notes();
  for (const b of document.querySelectorAll('#tabs button')) b.onclick = () => showView(b.dataset.view);
  tlInit();
  if (drawPending) { cancelAnimationFrame(drawRaf); drawPending = false; }
  tlDraw();
  // the first picture is drawn: let the browser show it, then prepare the
  // rest (the message pyramid for crowded frames, the other views)
  D.timing.picture_ms = performance.now();
  await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const tL = performance.now();
  buildLevels();
  D.timing.levels_ms = performance.now() - tL;
  ldInit();
  smInit();
  $('mx-metric').onchange = mxDraw;
  $('mx-scope').onchange = mxDraw;
  window.addEventListener('resize', redraw);
  D.timing.ready_ms = performance.now();
  READY = true;
}

// The page's read-only hook (tests, automation): what the page holds.
let READY = false;
window.mpilens = Object.freeze({
  get ready() { return READY; },
  stats: () => ({ ranks: D.meta.ranks, messages: D.meta.messages, bytes: D.bytes }),
  // a served page: the detail it holds (window, calls, messages) and its requests
  detail: () => {
    const sv = D.served;
    return { served: !!sv, calls: D.c_t0.length, messages: D.m_ts.length, win: sv && sv.win ? sv.win.slice() : null,
      loading: !!(sv && sv.loading), over: sv ? sv.over : null, requests: sv ? sv.requests : 0,
      ms: sv ? sv.last_ms : 0, server_ms: sv ? sv.server_ms : 0, error: sv ? sv.error : '', shown: sv ? inDetail() : true,
      summarised: !!drawnStats.summarised };
  },
  drawn: () => ({ lines: drawnStats.lines, represented: drawnStats.represented, hidden: drawnStats.hidden,
    aggregated: drawnStats.aggregated, summarised: !!drawnStats.summarised, frame_ms: TL.frameMs, parts: TL.frameParts, cell_px: drawnStats.cell_px, level: drawnStats.level,
    timing: D.timing }),
  rowSummary: (row, c0, c1) => rowSummary(row, c0, c1),
  scale: () => ({ t0: TL.t0, t1: TL.t1, labels: TL.labels.slice(), ranks: [TL.ra, TL.rb], group: TL.g ? TL.g.group : 1 }),
  interval: () => { const [a, b] = ldInterval(); return { a, b }; },
  // the summary's time per rank: names (computation, routines, other MPI) and per row (a rank, or the mean of a group) ns each
  rankBars: () => SM.bars ? { names: SM.bars.names.slice(), group: SM.bars.group, rows: SM.bars.rows.map(r => r.slice()) } : null,
  load: () => (LD.drawn || []).map(x => Object.assign({}, x)),
  // the critical path as last drawn: segments (rank, from, to in the page's
  // ns, to_rank, what, site, box: its band in CSS pixels, null off screen),
  // [] when hidden; runtime_ns etc. from the page's data
  criticalPath: () => {
    const cp = D.meta.critical_path;
    return { on: CP.on, runtime_ns: cp && cp.runtime_ns, comm_ns: cp && cp.comm_ns, comp_ns: cp && cp.comp_ns,
      end_rank: cp && cp.end_rank, total: cp && cp.segments_total,
      segments: CP.drawn.map(x => Object.assign({}, x, { box: x.box && Object.assign({}, x.box) })) };
  },
  messagePos: j => { const g = TL.g; return { x: g.x(D.m_ts[j]), y: g.yMid(D.m_src[j]), x1: g.x(D.m_ts[j] + D.m_lat[j]), y1: g.yMid(D.m_dst[j]) }; },
  message: j => ({ src: D.m_src[j], dst: D.m_dst[j], ts: D.m_ts[j], tr: D.m_ts[j] + D.m_lat[j], bytes: D.m_bytes[j], tag: D.m_tag[j] }),
  // the page's calls (a served page: those it holds): rank, routine, kind as the legend names it, start and length in the page's ns
  calls: () => Array.from(D.c_t0, (t, i) => ({ rank: D.c_rank[i], name: routineName(D.c_name[i]), kind: KINDS[D.c_kind[i]],
    t0: t, dur: D.c_dur[i] })),
});
main();
