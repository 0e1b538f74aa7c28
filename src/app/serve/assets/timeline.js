// Tessel explorer: the timeline and memory chart, drawn on canvases so that 32 devices x 1,024
// micro-batches (65,536 boxes) zoom and pan at interactive speed. One time axis serves the
// overview strip (with its brush), every device row of up to two stacked schedules, and the
// memory chart. Wide views draw density (busy share of each pixel column), close views draw boxes
// with "block/micro-batch" where the label fits. Nothing here talks to the server.
'use strict';

const TS_GUTTER = 74;     // px left of the time axis: row labels
const TS_RIGHT = 10;      // px right of it
const TS_AXIS = 22;       // px of the axis above the rows
const TS_KIND_RGB = { forward: [74, 143, 214], backward: [224, 138, 60], other: [140, 140, 140] };

function tsHslRgb(h, s, l) {
  const a = s * Math.min(l, 1 - l);
  const f = (n) => { const k = (n + h / 30) % 12; return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1)))); };
  return [f(0), f(8), f(4)];
}

// Chains: a path decomposition of the DAG. In topological order, a block continues the chain of
// its first predecessor that no other block has continued yet; otherwise it starts a chain. Two
// towers of a model thus get two chains (and two colours) until they meet.
function tsChains(blocks, edges) {
  const n = blocks.length, idx = new Map(blocks.map((b, i) => [b.id, i]));
  const preds = blocks.map(() => []), indeg = new Array(n).fill(0), succ = blocks.map(() => []);
  for (const [a, b] of edges) {
    const i = idx.get(a), j = idx.get(b);
    if (i === undefined || j === undefined) continue;
    preds[j].push(i); succ[i].push(j); indeg[j]++;
  }
  const order = [], q = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) q.push(i);
  while (q.length) { const i = q.shift(); order.push(i); for (const j of succ[i]) if (!--indeg[j]) q.push(j); }
  for (let i = 0; i < n; i++) if (!order.includes(i)) order.push(i);
  const chain = new Array(n).fill(-1), taken = new Array(n).fill(false);
  let next = 0;
  for (const i of order) {
    const p = preds[i].find((x) => !taken[x] && chain[x] >= 0);
    if (p !== undefined) { taken[p] = true; chain[i] = chain[p]; } else chain[i] = next++;
  }
  return { chain, count: next };
}

// The edges of a schedule file's embedded placement as [from, to] pairs (distance 0 only: those
// link blocks of one micro-batch).
function tsEdgesOf(pl) {
  const out = [];
  for (const e of (pl && pl.edges) || []) {
    if (Array.isArray(e)) out.push([e[0], e[1]]);
    else if (!e.distance) out.push([e.from, e.to]);
  }
  for (const c of (pl && pl.chains) || []) for (let i = 0; i + 1 < c.length; i++) out.push([c[i], c[i + 1]]);
  return out;
}

// One schedule prepared for drawing: per device, its instances sorted by start.
function tsPrepare(view, label, edges) {
  const B = view.blocks, E = view.entries, D = view.ndevs;
  const rows = [];
  for (let d = 0; d < D; d++) rows.push([]);
  for (let i = 0; i < E.length; i += 3) {
    const b = E[i];
    for (const d of B[b].devices) rows[d].push(i / 3);
  }
  const start = (k) => E[3 * k + 2];
  const devs = rows.map((list) => {
    list.sort((a, b) => start(a) - start(b));
    const n = list.length, s = new Float64Array(n), e = new Float64Array(n), k = new Int32Array(n);
    let maxSpan = 1, busy = 0;
    list.forEach((x, j) => {
      const span = B[E[3 * x]].span;
      s[j] = E[3 * x + 2]; e[j] = s[j] + span; k[j] = x;
      maxSpan = Math.max(maxSpan, span); busy += span;
    });
    return { s, e, k, maxSpan, busy };
  });
  const ch = tsChains(B, edges);
  let minSpan = Infinity;
  for (const b of B) minSpan = Math.min(minSpan, b.span);
  return { view, label, blocks: B, entries: E, devs, chains: ch, minSpan,
    first: view.first, last: view.last };
}

class TsTimeline {
  constructor(root, opts) {
    this.root = root;
    this.opts = opts || {};
    this.tracks = [];
    this.mode = 'block';
    this.win = [0, 1];
    this.full = [0, 1];
    this.units = null;
    this.capacity = null;
    this.stats = { draws: 0, lastMs: 0, drawMode: 'none', labels: 0 };
    root.innerHTML = '';
    const mk = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; root.appendChild(e); return e; };
    this.over = mk('canvas', 'tl-overview');
    this.main = mk('canvas', 'tl-main');
    this.mem = mk('canvas', 'tl-memory');
    this.legend = mk('div', 'tl-legend');
    this.tip = mk('div', 'tl-tip');
    this.tip.hidden = true;
    this.wire();
  }

  // tracks: [{view, label, edges}], the first on top; units: {time_s, memory_bytes} or null;
  // capacity: the capacities as given, one per device, or null.
  setData(tracks, units, capacity, keepWindow) {
    this.tracks = tracks.map((t) => tsPrepare(t.view, t.label, t.edges || []));
    this.units = units;
    this.capacity = capacity;
    let a = Infinity, b = -Infinity;
    for (const t of this.tracks) { a = Math.min(a, t.first); b = Math.max(b, t.last); }
    if (!this.tracks.length) { a = 0; b = 1; }
    this.full = [a, Math.max(b, a + 1)];
    if (!keepWindow || this.win[1] <= this.win[0] || this.win[0] < a || this.win[1] > this.full[1])
      this.win = this.full.slice();
    this.overCache = null;
    this.legendFor = null;
    this.tip.hidden = true;
    this.draw();
  }

  setMode(m) { this.mode = m; this.legendFor = null; this.draw(); }

  clear() { this.tip.hidden = true; this.tracks = []; this.full = [0, 1]; this.win = [0, 1]; this.overCache = null; this.legendFor = null; this.draw(); }

  plotW() { return Math.max(50, this.main.width - TS_GUTTER - TS_RIGHT); }
  x(t) { return TS_GUTTER + (t - this.win[0]) * this.plotW() / (this.win[1] - this.win[0]); }
  t(x) { return this.win[0] + (x - TS_GUTTER) * (this.win[1] - this.win[0]) / this.plotW(); }

  // Zooms by factor (< 1: in) around time tc, kept within the whole schedule.
  zoom(factor, tc) {
    const [a, b] = this.win, [fa, fb] = this.full;
    if (tc === undefined) tc = (a + b) / 2;
    let w = Math.min(fb - fa, Math.max(4, (b - a) * factor));
    let na = tc - (tc - a) * w / (b - a);
    na = Math.max(fa, Math.min(na, fb - w));
    this.win = [na, na + w];
    this.draw();
  }

  pan(dt) {
    const [a, b] = this.win, [fa, fb] = this.full, w = b - a;
    const na = Math.max(fa, Math.min(a + dt, fb - w));
    this.win = [na, na + w];
    this.draw();
  }

  setWindow(a, b) {
    const [fa, fb] = this.full;
    a = Math.max(fa, a); b = Math.min(fb, b);
    if (b - a < 4) { const c = (a + b) / 2; a = Math.max(fa, c - 2); b = Math.min(fb, a + 4); }
    this.win = [a, b];
    this.draw();
  }

  // The colour of block b of a track in the current mode (cached per track and mode: a zoom
  // step asks for it once per box).
  colour(track, b) {
    if (!track.pal || track.pal.mode !== this.mode) {
      track.pal = { mode: this.mode, rgb: track.blocks.map((x, i) => this.colourOf(track, i)) };
      track.pal.css = track.pal.rgb.map((c) => `rgb(${c[0]},${c[1]},${c[2]})`);
    }
    return track.pal.rgb[b];
  }

  css(track, b) { this.colour(track, b); return track.pal.css[b]; }

  colourOf(track, b) {
    const blk = track.blocks[b];
    if (this.mode === 'kind') return TS_KIND_RGB[blk.kind] || TS_KIND_RGB.other;
    const l = blk.kind === 'forward' ? 0.62 : blk.kind === 'backward' ? 0.45 : 0.75;
    if (this.mode === 'chain') return tsHslRgb((track.chains.chain[b] * 137.508 + 210) % 360, 0.62, l);
    return tsHslRgb((b * 137.508 + 210) % 360, 0.6, l);
  }

  rowLayout() {
    const D = this.tracks.reduce((s, t) => s + t.devs.length, 0);
    const rowH = D <= 8 ? 26 : D <= 16 ? 18 : D <= 40 ? 12 : 7;
    // Stacked schedules: each under a line of its own that names it.
    const gap = this.tracks.length > 1 ? 15 : 0;
    const rows = [];
    let y = TS_AXIS;
    this.tracks.forEach((t, ti) => {
      y += gap;
      t.devs.forEach((dev, d) => { rows.push({ track: t, ti, d, dev, y, h: rowH - 2 }); y += rowH; });
    });
    return { rows, height: y + 4, rowH };
  }

  sizeCanvases(height) {
    const w = Math.max(300, this.root.clientWidth - 2);
    for (const [c, h] of [[this.over, 44], [this.main, height], [this.mem, this.memHeight()]]) {
      if (c.width !== w) c.width = w;
      if (c.height !== h) c.height = h;
    }
  }

  memRowH() { const D = this.tracks.length ? this.tracks[0].devs.length : 0; return D <= 8 ? 40 : D <= 16 ? 26 : 16; }
  memHeight() { return this.tracks.length ? TS_AXIS + this.tracks[0].devs.length * this.memRowH() + 4 : 10; }

  draw() {
    const t0 = performance.now();
    const lay = this.rowLayout();
    this.layout = lay;
    this.sizeCanvases(lay.height);
    this.drawOverview();
    this.drawMain(lay);
    this.drawMemory();
    this.drawLegend();
    this.stats.draws++;
    this.stats.lastMs = performance.now() - t0;
    if (this.opts.onDraw) this.opts.onDraw(this);
  }

  axis(ctx, y, w) {
    const [a, b] = this.win, span = b - a;
    const raw = span / 8, p = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
    ctx.fillStyle = '#444'; ctx.strokeStyle = '#ccc'; ctx.font = '10px sans-serif'; ctx.textAlign = 'center';
    for (let s = Math.ceil(a / step) * step; s <= b; s += step) {
      const x = this.x(s);
      ctx.beginPath(); ctx.moveTo(x, y - 4); ctx.lineTo(x, y); ctx.stroke();
      let lab = String(Math.round(s));
      if (this.units) lab += ' · ' + tsFmtTime(s * this.units.time_s);
      // a label centred on a tick near the gutter would run into the axis title
      ctx.textAlign = x - ctx.measureText(lab).width / 2 < TS_GUTTER ? 'left' : 'center';
      ctx.fillText(lab, x, y - 7);
    }
    ctx.textAlign = 'left';
    ctx.fillText(this.units ? 'step · time' : 'step', 4, y - 7);
    ctx.strokeStyle = '#999';
    ctx.beginPath(); ctx.moveTo(TS_GUTTER, y); ctx.lineTo(w - TS_RIGHT, y); ctx.stroke();
  }

  // The repetend of a track: the steady state lightly, its first window darker.
  shadeRepetend(ctx, track, y0, y1) {
    const r = track.view.repetend;
    if (!r) return;
    const steady = r.start + r.period * Math.max(1, r.repeats);
    ctx.fillStyle = 'rgba(255, 214, 102, 0.16)';
    ctx.fillRect(this.x(r.start), y0, this.x(steady) - this.x(r.start), y1 - y0);
    ctx.fillStyle = 'rgba(255, 190, 40, 0.30)';
    ctx.fillRect(this.x(r.start), y0, Math.max(1, this.x(r.end) - this.x(r.start)), y1 - y0);
  }

  drawMain(lay) {
    const c = this.main, ctx = c.getContext('2d'), W = c.width, H = c.height, pw = this.plotW();
    ctx.clearRect(0, 0, W, H);
    if (!this.tracks.length) return;
    const [a, b] = this.win, scale = pw / (b - a);
    for (let ti = 0; ti < this.tracks.length; ti++) {
      const rs = lay.rows.filter((r) => r.ti === ti);
      this.shadeRepetend(ctx, this.tracks[ti], rs[0].y, rs[rs.length - 1].y + rs[rs.length - 1].h);
    }
    // Density: per row and pixel column, the busy share and the colour of the largest share.
    // One pixel buffer reused across draws (a zoom step allocates nothing large).
    if (!this.img || this.img.width !== pw || this.img.height !== H) {
      this.img = ctx.createImageData(pw, H);
      this.px32 = new Uint32Array(this.img.data.buffer);
    }
    const img = this.img, px32 = this.px32;
    let pxUsed = false;
    let dense = 0, boxes = 0, labels = 0;
    const cov = new Float32Array(pw), top = new Float32Array(pw), col = new Int32Array(pw);
    const lbl = lay.rowH >= 12;
    ctx.font = '9px sans-serif'; ctx.textBaseline = 'middle';
    for (const row of lay.rows) {
      const { dev, track, y, h } = row, E = track.entries;
      cov.fill(0); top.fill(0); col.fill(-1);
      let rowDense = false;
      // first instance that may end after a: starts at or after a - maxSpan
      let lo = 0, hi = dev.s.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (dev.s[m] < a - dev.maxSpan) lo = m + 1; else hi = m; }
      for (let j = lo; j < dev.s.length && dev.s[j] < b; j++) {
        if (dev.e[j] <= a) continue;
        const k = dev.k[j], blk = E[3 * k];
        const xs = (dev.s[j] - a) * scale, xe = (dev.e[j] - a) * scale;
        if (xe - xs >= 2.5) {
          ctx.fillStyle = this.css(track, blk);
          const x0 = TS_GUTTER + Math.max(xs, 0), x1 = TS_GUTTER + Math.min(xe, pw);
          ctx.fillRect(x0, y, Math.max(1, x1 - x0 - 0.5), h);
          boxes++;
          const text = track.blocks[blk].id + '/' + E[3 * k + 1];
          if (lbl && x1 - x0 > text.length * 5.6 + 4) {
            ctx.fillStyle = track.blocks[blk].kind === 'backward' ? '#fff' : '#111';
            ctx.fillText(text, x0 + 2, y + h / 2);
            labels++;
          }
          continue;
        }
        rowDense = true; dense++;
        const c0 = Math.max(0, Math.floor(xs)), c1 = Math.min(pw - 1, Math.floor(xe));
        for (let q = c0; q <= c1; q++) {
          const share = Math.min(q + 1, xe) - Math.max(q, xs);
          if (share <= 0) continue;
          cov[q] += share;
          if (share > top[q]) { top[q] = share; col[q] = blk; }
        }
      }
      if (!rowDense) continue;
      if (!pxUsed) { px32.fill(0); pxUsed = true; }
      const y0 = Math.max(0, Math.floor(y)), y1 = Math.min(H, Math.floor(y + h));
      for (let q = 0; q < pw; q++) {
        if (col[q] < 0) continue;
        const rgb = this.colour(track, col[q]), al = Math.round(255 * Math.min(1, 0.25 + 0.75 * cov[q]));
        // little-endian RGBA as one 32-bit word
        const v = ((al << 24) | (rgb[2] << 16) | (rgb[1] << 8) | rgb[0]) >>> 0;
        for (let yy = y0; yy < y1; yy++) px32[yy * pw + q] = v;
      }
    }
    if (dense) {
      if (!this.scratch) this.scratch = document.createElement('canvas');
      this.scratch.width = pw; this.scratch.height = H;
      this.scratch.getContext('2d').putImageData(img, 0, 0);
      ctx.drawImage(this.scratch, TS_GUTTER, 0);
    }
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, TS_GUTTER, H);
    ctx.fillStyle = '#333'; ctx.font = '10px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
    for (const row of lay.rows)
      if (lay.rowH >= 9 || row.d % 4 === 0) ctx.fillText((this.tracks.length > 1 ? 'ABCD'[row.ti] + ' ' : '') + 'dev ' + row.d, 4, row.y + row.h / 2);
    ctx.textBaseline = 'alphabetic';
    ctx.clearRect(0, 0, W, TS_AXIS);
    this.axis(ctx, TS_AXIS - 2, W);
    if (this.tracks.length > 1)
      for (let ti = 0; ti < this.tracks.length; ti++) {
        const r0 = lay.rows.find((r) => r.ti === ti);
        ctx.fillStyle = '#fff'; ctx.fillRect(0, r0.y - 14, W, 13);
        ctx.fillStyle = '#234'; ctx.font = 'bold 11px sans-serif'; ctx.textAlign = 'left';
        ctx.fillText('ABCD'[ti] + ': ' + this.tracks[ti].label, 4, r0.y - 4);
      }
    this.stats.drawMode = dense ? (boxes ? 'mixed' : 'density') : 'boxes';
    this.stats.boxes = boxes; this.stats.dense = dense; this.stats.labels = labels;
  }

  drawOverview() {
    const c = this.over, ctx = c.getContext('2d'), W = c.width, H = c.height, pw = this.plotW();
    ctx.clearRect(0, 0, W, H);
    if (!this.tracks.length) return;
    if (!this.overCache || this.overCache.width !== pw) {
      // Busy devices per column over the whole run, for every track: computed once per data.
      const oc = document.createElement('canvas');
      oc.width = pw; oc.height = H;
      const octx = oc.getContext('2d'), [fa, fb] = this.full, sc = pw / (fb - fa);
      const hh = (H - 6) / this.tracks.length;
      this.tracks.forEach((t, ti) => {
        const busy = new Float32Array(pw);
        for (const dev of t.devs)
          for (let j = 0; j < dev.s.length; j++) {
            const xs = (dev.s[j] - fa) * sc, xe = (dev.e[j] - fa) * sc;
            for (let q = Math.max(0, Math.floor(xs)); q <= Math.min(pw - 1, Math.floor(xe)); q++)
              busy[q] += Math.max(0, Math.min(q + 1, xe) - Math.max(q, xs));
          }
        const D = t.devs.length || 1;
        octx.fillStyle = ti ? '#b07a3a' : '#4a7fb5';
        for (let q = 0; q < pw; q++) {
          const v = Math.min(1, busy[q] / D) * (hh - 2);
          octx.fillRect(q, 3 + ti * hh + hh - v, 1, v);
        }
      });
      this.overCache = oc;
    }
    ctx.fillStyle = '#f3f3f3'; ctx.fillRect(TS_GUTTER, 0, pw, H);
    ctx.drawImage(this.overCache, TS_GUTTER, 0);
    ctx.fillStyle = '#555'; ctx.font = '10px sans-serif';
    ctx.fillText('whole run', 4, H / 2 + 3);
    const [fa, fb] = this.full, sc = pw / (fb - fa);
    const bx = TS_GUTTER + (this.win[0] - fa) * sc, bw = Math.max(3, (this.win[1] - this.win[0]) * sc);
    ctx.fillStyle = 'rgba(40, 90, 160, 0.18)'; ctx.fillRect(bx, 0, bw, H);
    ctx.strokeStyle = '#285aa0'; ctx.lineWidth = 1.5; ctx.strokeRect(bx, 0.75, bw, H - 1.5);
    ctx.lineWidth = 1;
    this.brush = { x: bx, w: bw, sc, fa };
  }

  // Each device's live memory of the top schedule, against the capacity as given (dashed).
  drawMemory() {
    const c = this.mem, ctx = c.getContext('2d'), W = c.width, H = c.height, pw = this.plotW();
    ctx.clearRect(0, 0, W, H);
    if (!this.tracks.length) return;
    const v = this.tracks[0].view, rh = this.memRowH(), [a, b] = this.win;
    this.axis(ctx, TS_AXIS - 2, W);
    ctx.save();
    ctx.beginPath(); ctx.rect(TS_GUTTER, 0, pw, H); ctx.clip();
    v.memory.devices.forEach((pts, d) => {
      const y0 = TS_AXIS + d * rh, h = rh - 4;
      const cap = this.capacity ? this.capacity[d] : null;
      let peak = 1;
      for (const p of pts) peak = Math.max(peak, p[1]);
      const sc = Math.max(peak, cap || 0) || 1, y = (l) => y0 + h - h * Math.max(0, l) / sc;
      ctx.fillStyle = '#f7f7f7'; ctx.fillRect(TS_GUTTER, y0, pw, h);
      let lo = 0, hi = pts.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (pts[m][0] < a) lo = m + 1; else hi = m; }
      let level = lo > 0 ? pts[lo - 1][1] : 0;
      ctx.strokeStyle = '#2a6db0'; ctx.lineWidth = 1.3;
      ctx.beginPath(); ctx.moveTo(TS_GUTTER, y(level));
      // At a wide view, one vertical stroke per pixel column (min to max) instead of every step.
      let lastX = -1, mn = level, mx = level;
      for (let j = lo; j < pts.length && pts[j][0] <= b; j++) {
        const x = this.x(pts[j][0]);
        if (Math.floor(x) === lastX) { mn = Math.min(mn, pts[j][1]); mx = Math.max(mx, pts[j][1]); level = pts[j][1]; continue; }
        if (lastX >= 0 && mn !== mx) { ctx.lineTo(lastX, y(mn)); ctx.lineTo(lastX, y(mx)); ctx.lineTo(lastX, y(level)); }
        ctx.lineTo(x, y(level)); ctx.lineTo(x, y(pts[j][1]));
        level = pts[j][1]; lastX = Math.floor(x); mn = mx = level;
      }
      ctx.lineTo(W - TS_RIGHT, y(level));
      ctx.stroke();
      if (cap !== null && cap !== undefined) {
        ctx.strokeStyle = '#c00'; ctx.setLineDash([4, 3]);
        ctx.beginPath(); ctx.moveTo(TS_GUTTER, y(cap)); ctx.lineTo(W - TS_RIGHT, y(cap)); ctx.stroke();
        ctx.setLineDash([]);
      }
    });
    ctx.restore();
    ctx.fillStyle = '#333'; ctx.font = '10px sans-serif';
    v.memory.devices.forEach((pts, d) => {
      if (rh < 20 && d % 4) return;
      ctx.fillText('mem ' + d, 4, TS_AXIS + d * rh + rh / 2 + 2);
    });
  }

  drawLegend() {
    const key = this.mode + '|' + this.tracks.length;
    if (this.legendFor === key) return;
    this.legendFor = key;
    const L = this.legend;
    L.innerHTML = '';
    if (!this.tracks.length) return;
    const t = this.tracks[0], sw = (rgb, text, title) => {
      const s = document.createElement('span');
      s.className = 'tl-key';
      s.innerHTML = `<i style="background:rgb(${rgb.join(',')})"></i>`;
      s.appendChild(document.createTextNode(text));
      if (title) s.title = title;
      L.appendChild(s);
    };
    const head = document.createElement('span');
    head.className = 'hint';
    head.textContent = 'colour by ' + this.mode + ': ';
    L.appendChild(head);
    if (this.mode === 'kind') {
      for (const k of ['forward', 'backward', 'other'])
        if (t.blocks.some((b) => b.kind === k)) sw(TS_KIND_RGB[k], k);
    } else if (this.mode === 'chain') {
      for (let c = 0; c < t.chains.count; c++) {
        const ids = t.blocks.filter((b, i) => t.chains.chain[i] === c).map((b) => b.id);
        const i0 = t.chains.chain.indexOf(c);
        sw(this.colour(t, i0), `chain ${c}: ${ids[0]}${ids.length > 1 ? ' … ' + ids[ids.length - 1] : ''}`, ids.join(' → '));
      }
    } else {
      const max = 40;
      t.blocks.slice(0, max).forEach((b, i) => sw(this.colour(t, i), b.id, `${b.kind}, span ${b.span}, memory ${b.memory}`));
      if (t.blocks.length > max) L.appendChild(document.createTextNode(` … and ${t.blocks.length - max} more`));
    }
    const rep = document.createElement('span');
    rep.className = 'tl-key';
    rep.innerHTML = '<i style="background:rgba(255,190,40,.55)"></i>repetend (lighter: its repeats)';
    if (t.view.repetend) L.appendChild(rep);
  }

  // What the pointer is over: an instance of a device row, or a memory level.
  hit(ev, canvas) {
    const r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
    if (x < TS_GUTTER || !this.tracks.length) return null;
    const t = this.t(x);
    if (canvas === this.mem) {
      const d = Math.floor((y - TS_AXIS) / this.memRowH()), pts = this.tracks[0].view.memory.devices[d];
      if (!pts) return null;
      let level = 0;
      for (const p of pts) { if (p[0] > t) break; level = p[1]; }
      return { mem: true, d, t, level, cap: this.capacity ? this.capacity[d] : null };
    }
    const row = this.layout.rows.find((q) => y >= q.y && y < q.y + q.h + 2);
    if (!row) return null;
    const dev = row.dev;
    let lo = 0, hi = dev.s.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (dev.s[m] <= t) lo = m + 1; else hi = m; }
    for (let j = lo - 1; j >= 0 && dev.s[j] > t - dev.maxSpan - 1; j--)
      if (dev.s[j] <= t && t < dev.e[j]) return { row, k: dev.k[j], t };
    return { row, k: -1, t };
  }

  tipText(h) {
    const U = this.units;
    if (h.mem) {
      let s = `device ${h.d} at step ${Math.floor(h.t)}: memory ${h.level}`;
      if (U && U.memory_bytes) s += ` (${tsFmtGB(h.level * U.memory_bytes[h.d])})`;
      if (h.cap !== null && h.cap !== undefined) s += `, capacity ${h.cap}` + (U && U.memory_bytes ? ` (${tsFmtGB(h.cap * U.memory_bytes[h.d])})` : '');
      return s;
    }
    const tr = h.row.track;
    if (h.k < 0) return `${this.tracks.length > 1 ? tr.label + ', ' : ''}device ${h.row.d} at step ${Math.floor(h.t)}: idle`;
    const E = tr.entries, b = tr.blocks[E[3 * h.k]], s = E[3 * h.k + 2];
    let txt = `${this.tracks.length > 1 ? tr.label + ': ' : ''}${b.id} (${b.kind}), micro-batch ${E[3 * h.k + 1]}\n` +
      `steps ${s}–${s + b.span} (span ${b.span}` + (U ? `, ${tsFmtTime(b.span * U.time_s)}` : '') + `)\n` +
      `memory ${b.memory}` + (U && U.memory_bytes ? ` (${tsFmtGB(b.memory * U.memory_bytes[b.devices[0]])})` : '') +
      `, devices ${b.devices.join(',')}`;
    if (U) txt += `\nstarts at ${tsFmtTime(s * U.time_s)}`;
    return txt;
  }

  wire() {
    const wheel = (ev) => {
      if (!this.tracks.length) return;
      ev.preventDefault();
      const r = ev.currentTarget.getBoundingClientRect();
      const f = Math.exp(Math.max(-3, Math.min(3, ev.deltaY * 0.0015)));
      if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) this.pan(ev.deltaX * (this.win[1] - this.win[0]) / this.plotW());
      else this.zoom(f, this.t(ev.clientX - r.left));
    };
    for (const c of [this.main, this.mem]) {
      c.addEventListener('wheel', wheel, { passive: false });
      c.addEventListener('mousedown', (ev) => {
        this.dragging = { x: ev.clientX, a: this.win[0] };
        this.tip.hidden = true;
        ev.preventDefault();
      });
      c.addEventListener('dblclick', () => this.setWindow(this.full[0], this.full[1]));
      c.addEventListener('mousemove', (ev) => {
        if (this.dragging) return;
        const h = this.hit(ev, c);
        if (!h) { this.tip.hidden = true; return; }
        this.tip.textContent = this.tipText(h);
        this.tip.hidden = false;
        const rr = this.root.getBoundingClientRect();
        this.tip.style.left = (ev.clientX - rr.left + 14) + 'px';
        this.tip.style.top = (ev.clientY - rr.top + 14) + 'px';
      });
      c.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    }
    window.addEventListener('mousemove', (ev) => {
      if (this.dragging) {
        const dt = (ev.clientX - this.dragging.x) * (this.win[1] - this.win[0]) / this.plotW();
        this.pan(this.dragging.a - dt - this.win[0]);
      } else if (this.brushing) this.brushMove(ev);
    });
    window.addEventListener('mouseup', (ev) => {
      if (this.brushing) this.brushMove(ev, true);
      this.dragging = null; this.brushing = null;
    });
    this.over.addEventListener('mousedown', (ev) => {
      if (!this.tracks.length || !this.brush) return;
      ev.preventDefault();
      const x = ev.clientX - this.over.getBoundingClientRect().left, br = this.brush;
      if (x >= br.x && x <= br.x + br.w) this.brushing = { move: true, x0: x, a: this.win[0] };
      else this.brushing = { move: false, x0: x };
    });
    if (window.ResizeObserver) new ResizeObserver(() => { if (this.tracks.length) { this.overCache = null; this.draw(); } }).observe(this.root);
  }

  // The overview's brush: drag inside it to move the window, drag elsewhere to draw a new one
  // (a click centres the window there).
  brushMove(ev, done) {
    const x = ev.clientX - this.over.getBoundingClientRect().left, br = this.brush, b = this.brushing;
    const tAt = (px) => br.fa + (px - TS_GUTTER) / br.sc;
    if (b.move) {
      const w = this.win[1] - this.win[0], a = b.a + (x - b.x0) / br.sc;
      this.setWindow(Math.min(Math.max(this.full[0], a), this.full[1] - w), Math.min(Math.max(this.full[0], a), this.full[1] - w) + w);
    } else if (Math.abs(x - b.x0) > 3) {
      this.setWindow(tAt(Math.min(x, b.x0)), tAt(Math.max(x, b.x0)));
    } else if (done) {
      const w = this.win[1] - this.win[0], c = tAt(x);
      this.setWindow(c - w / 2, c + w / 2);
    }
  }
}

function tsFmtTime(s) {
  if (Math.abs(s) >= 10) return s.toFixed(1) + ' s';
  if (Math.abs(s) >= 1) return s.toFixed(2) + ' s';
  return (s * 1e3).toFixed(1) + ' ms';
}
function tsFmtGB(bytes) { return (bytes / 1e9).toFixed(2) + ' GB'; }
