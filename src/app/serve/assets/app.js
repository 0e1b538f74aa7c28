// Tessel explorer: the page's logic. Every figure comes from the server's JSON API (the core
// library and the solver); this file only edits the placement, calls the API and draws.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  info: null,
  file: 'placement.json',     // names the placement in messages, as a file name does on the CLI
  placement: { name: 'untitled', ndevs: 1, blocks: [], edges: [] },
  schedule: null,             // the schedule on show (a search result, baseline or compare row)
  view: null,                 // the last /api/view answer
  job: null,                  // id of the running search, compare or what-if
  checkTimer: 0,
};
// Round-trip times of every API call, for the browser test's report (ms).
window.tsTimings = [];

async function api(path, body) {
  const t0 = performance.now();
  const opt = body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  const j = await r.json();
  window.tsTimings.push({ path: path.replace(/\d+/g, 'ID'), ms: performance.now() - t0 });
  if (!r.ok) { const e = new Error(j.error || ('HTTP ' + r.status)); e.status = r.status; throw e; }
  return j;
}

function setStatus(t) { $('status').textContent = t; }

// ---- the placement as a file (tessel-placement/1) and as the editor's state ----

function intOrText(s) { return /^\s*-?\d+\s*$/.test(s) ? parseInt(s, 10) : s; }

function placementJson() {
  const p = state.placement;
  return {
    format: 'tessel-placement/1', name: p.name, ndevs: intOrText(String(p.ndevs)),
    blocks: p.blocks.map((b) => ({
      id: b.id, kind: b.kind, span: intOrText(String(b.span)), memory: intOrText(String(b.memory)),
      devices: String(b.devices).split(',').filter((x) => x.trim() !== '').map(intOrText),
    })),
    edges: p.edges.map((e) => {
      const o = { from: e.from, to: e.to };
      if (String(e.delay) !== '' && String(e.delay) !== '0') o.delay = intOrText(String(e.delay));
      if (String(e.distance) !== '' && String(e.distance) !== '0') o.distance = intOrText(String(e.distance));
      return o;
    }),
  };
}
window.tsPlacementJson = placementJson;

// A new placement starts with an empty timeline: the old one drew another placement.
function clearResults() {
  state.schedule = null;
  state.view = null;
  for (const id of ['summary', 'timeline', 'memory', 'view-info']) $(id).textContent = '';
}

function fromPlacementJson(j) {
  const edges = [];
  for (const e of j.edges || []) {
    if (Array.isArray(e)) edges.push({ from: e[0], to: e[1], delay: 0, distance: 0 });
    else edges.push({ from: e.from, to: e.to, delay: e.delay || 0, distance: e.distance || 0 });
  }
  for (const c of j.chains || [])
    for (let i = 0; i + 1 < c.length; i++) edges.push({ from: c[i], to: c[i + 1], delay: 0, distance: 0 });
  state.placement = {
    name: j.name || 'untitled', ndevs: j.ndevs,
    blocks: (j.blocks || []).map((b) => ({ id: b.id, kind: b.kind, span: b.span, memory: b.memory,
      devices: (b.devices || []).join(',') })),
    edges,
  };
  renderEditor();
  scheduleCheck();
}

// ---- editor ----

function cell(obj, key, cls) {
  const td = document.createElement('td');
  const inp = document.createElement('input');
  inp.value = obj[key];
  inp.dataset.field = key;
  if (cls) inp.className = cls;
  inp.addEventListener('input', () => { obj[key] = inp.value; scheduleCheck(); });
  td.appendChild(inp);
  return td;
}

function kindCell(b) {
  const td = document.createElement('td');
  const s = document.createElement('select');
  s.dataset.field = 'kind';
  for (const k of ['forward', 'backward', 'other']) s.add(new Option(k, k));
  s.value = b.kind;
  s.addEventListener('change', () => { b.kind = s.value; scheduleCheck(); });
  td.appendChild(s);
  return td;
}

function removeCell(list, i) {
  const td = document.createElement('td');
  const bt = document.createElement('button');
  bt.textContent = '×';
  bt.className = 'small';
  bt.title = 'remove';
  bt.addEventListener('click', () => { list.splice(i, 1); renderEditor(); scheduleCheck(); });
  td.appendChild(bt);
  return td;
}

function renderEditor() {
  const p = state.placement;
  $('pl-name').value = p.name;
  $('pl-ndevs').value = p.ndevs;
  const bt = $('blocks').tBodies[0], et = $('edges').tBodies[0];
  bt.textContent = '';
  et.textContent = '';
  p.blocks.forEach((b, i) => {
    const tr = bt.insertRow();
    tr.dataset.block = b.id;
    tr.dataset.index = i;
    tr.append(cell(b, 'id'), kindCell(b), cell(b, 'span'), cell(b, 'memory'), cell(b, 'devices'),
      removeCell(p.blocks, i));
  });
  p.edges.forEach((e, i) => {
    const tr = et.insertRow();
    tr.dataset.index = i;
    tr.append(cell(e, 'from'), cell(e, 'to'), cell(e, 'delay'), cell(e, 'distance'), removeCell(p.edges, i));
  });
}

function clearFieldMessages() {
  document.querySelectorAll('.field-msg').forEach((n) => n.remove());
  document.querySelectorAll('.bad').forEach((n) => n.classList.remove('bad'));
}

// Puts the message next to the field it names: "block 'F2': field 'span' ...", "blocks[3]...",
// "edges[1]...", or the device count.
function showFieldMessage(msg) {
  let target = null;
  let m = msg.match(/block '([^']*)': field '(\w+)'/);
  const rows = Array.from($('blocks').tBodies[0].rows);
  if (m) {
    const tr = rows.find((r) => r.dataset.block === m[1]);
    if (tr) target = tr.querySelector(`[data-field="${m[2]}"]`) || tr.cells[0].firstChild;
  }
  if (!target && (m = msg.match(/blocks\[(\d+)\](?:\.(\w+))?/))) {
    const tr = rows[parseInt(m[1], 10)];
    if (tr) target = (m[2] && tr.querySelector(`[data-field="${m[2]}"]`)) || tr.cells[0].firstChild;
  }
  if (!target && (m = msg.match(/(?:edges|chains)\[(\d+)\]/))) {
    const tr = $('edges').tBodies[0].rows[parseInt(m[1], 10)];
    if (tr) target = tr.cells[0].firstChild;
  }
  if (!target && /ndevs/.test(msg)) target = $('pl-ndevs');
  if (!target && /field 'memory'|memory\[\d+\]/.test(msg)) target = $('k-memory');
  if (!target && /micro_batches/.test(msg)) target = $('k-n');
  if (!target) return;
  target.classList.add('bad');
  const d = document.createElement('div');
  d.className = 'field-msg';
  d.textContent = msg;
  target.parentNode.appendChild(d);
}

function memoryKnob() {
  const s = $('k-memory').value.trim();
  if (s === '' || s === 'none') return 'none';
  const parts = s.split(',').map((x) => intOrText(x.trim()));
  return parts.length === 1 ? parts[0] : parts;
}

function knobs() {
  return { memory: memoryKnob(), micro_batches: intOrText($('k-n').value),
           method: $('k-method').value, time_limit: parseFloat($('k-time').value) };
}

// Checks 150 ms after the last edit. data-pending on the message says a newer answer is due, so
// that nobody (a user, the browser test) reads a message about an older state.
function scheduleCheck() {
  clearTimeout(state.checkTimer);
  $('check-msg').dataset.pending = '1';
  state.checkTimer = setTimeout(() => { state.checkTimer = 0; check(); }, 150);
}

async function check() {
  const seq = state.checkSeq = (state.checkSeq || 0) + 1;
  const k = knobs();
  const msg = $('check-msg');
  const done = () => {
    if (seq !== state.checkSeq) return false; // a newer check answers instead
    clearFieldMessages();
    if (!state.checkTimer) delete msg.dataset.pending;
    return true;
  };
  try {
    const r = await api('/api/check', { placement: placementJson(), file: state.file,
      memory: k.memory, micro_batches: k.micro_batches });
    if (!done()) return true;
    msg.className = 'msg ok';
    msg.textContent = `${r.nblocks} blocks, ${r.nedges} edges on ${r.ndevs} devices; ` +
      `load ${r.load.join(' ')}; LB(${r.micro_batches}) = ${r.lower_bound}`;
    msg.dataset.lb = r.lower_bound;
    return true;
  } catch (e) {
    if (!done()) return false;
    msg.className = 'msg err';
    msg.textContent = e.message;
    delete msg.dataset.lb;
    showFieldMessage(e.message);
    return false;
  }
}

// ---- jobs: search, compare, what-if (worker processes on the server) ----

function progressText(j) {
  const p = j.progress;
  let t = `${j.job} ${j.state}, ${j.elapsed.toFixed(1)} s`;
  if (p) {
    t += ` — ${p.step}`;
    if (p.parts > 1) t += ` (${p.part + 1}/${p.parts})`;
    if (p.phase) t += `: ${p.phase} ${p.tried}${p.total ? '/' + p.total : ''} tried`;
    if (p.best_bubbles >= 0) t += `, best bubbles ${p.best_bubbles}`;
  }
  return t;
}

// One job at a time from the page: its buttons wait while one runs; Cancel is the way out.
function setBusy(on) {
  for (const id of ['search', 'compare', 'whatif', 'baseline']) $(id).disabled = on;
  $('cancel').disabled = !on;
}

async function runJob(body, onDone) {
  if (!(await check())) return;
  const st = $('job-status');
  let id;
  try {
    id = (await api('/api/jobs', Object.assign({ placement: placementJson(), file: state.file }, knobs(), body))).id;
  } catch (e) { st.className = 'msg err'; st.textContent = e.message; return; }
  state.job = id;
  setBusy(true);
  st.className = 'msg';
  st.dataset.state = 'running';
  for (;;) {
    await new Promise((res) => setTimeout(res, 150));
    if (state.job !== id) return;
    let j;
    try { j = await api(`/api/jobs/${id}`); } catch (e) {
      st.className = 'msg err'; st.textContent = e.message; state.job = null; setBusy(false); break;
    }
    st.textContent = progressText(j);
    if (j.state === 'running') continue;
    st.dataset.state = j.state;
    state.job = null;
    setBusy(false);
    if (j.state === 'done') { st.className = 'msg ok'; await onDone(j.result); }
    else { st.className = 'msg err'; st.textContent = `${j.job} ${j.state}: ${j.error || ''}`; }
    break;
  }
}

async function cancelJob() {
  const id = state.job;
  if (!id) return;
  state.job = null;
  setBusy(false);
  const st = $('job-status');
  try {
    const j = await api(`/api/jobs/${id}/cancel`, {});
    st.className = 'msg err';
    st.dataset.state = j.state;
    st.textContent = `${j.job} ${j.state} after ${j.elapsed.toFixed(1)} s`;
  } catch (e) { st.textContent = e.message; }
}

function fmt(x, d) { return typeof x === 'number' ? (d ? x.toFixed(d) : String(x)) : '–'; }

function showSummary(s, label) {
  $('summary').innerHTML = '';
  const t = document.createElement('span');
  t.innerHTML = `${label.replace(/[<&]/g, '')}, as run (replayed): makespan <b id="makespan">${s.makespan}</b> at N = ${s.micro_batches}, ` +
    `LB <b id="lower-bound">${s.lower_bound}</b> (ratio ${fmt(s.ratio, 3)}), bubble rate ` +
    `${fmt(s.bubble_rate * 100, 1)}%, peak memory ${s.peak_memory.join(' ')}` +
    (s.fits === false ? ' — <b>does not fit</b>' : '') +
    (s.period ? `, period ${s.period}, k ${s.k}` : '') +
    (s.seconds !== undefined ? `, ${fmt(s.seconds, 2)} s` : '');
  $('summary').appendChild(t);
}

async function showSchedule(schedule, summary, label) {
  state.schedule = schedule;
  if (summary) showSummary(summary, label);
  await refreshView();
}

function timelineKind() { return document.querySelector('input[name="tl"]:checked').value; }

async function refreshView() {
  if (!state.schedule) return;
  try {
    const v = await api('/api/view', { schedule: state.schedule,
      micro_batches: intOrText($('k-n').value), timeline: timelineKind() });
    state.view = v;
    const box = $('timeline');
    box.innerHTML = v.svg.replace(/^<\?xml[^>]*>\s*/, '');
    const svg = box.querySelector('svg');
    svg.dataset.w = svg.getAttribute('width');
    svg.dataset.h = svg.getAttribute('height');
    svg.dataset.makespan = v.makespan;
    applyZoom();
    applyIds();
    drawMemory(v);
    const vi = $('view-info');
    vi.className = v.valid ? 'msg' : 'msg err';
    vi.textContent = `${timelineKind()} timeline: makespan ${v.makespan}, LB ${v.lower_bound}, ` +
      `bubble rate ${fmt(v.bubble_rate * 100, 1)}%, peak memory ${v.peak_memory.join(' ')}` +
      (v.valid ? ', valid' : ` — invalid: ${v.message}`);
  } catch (e) { $('timeline').textContent = e.message; }
}

function applyZoom() {
  const svg = $('timeline').querySelector('svg');
  const z = Math.pow(2, parseFloat($('zoom').value));
  $('zoom-val').textContent = Math.round(z * 100) + '%';
  if (!svg) return;
  const w = parseFloat(svg.dataset.w), h = parseFloat(svg.dataset.h);
  if (!svg.getAttribute('viewBox')) svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('width', w * z);
  svg.setAttribute('height', h * z);
}

// Box labels are micro-batches; with the toggle they read block/micro-batch (the tooltip always
// gives block, micro-batch and steps).
function applyIds() {
  const on = $('show-ids').checked;
  for (const g of $('timeline').querySelectorAll('g.inst')) {
    for (const t of g.querySelectorAll('text')) {
      if (t.dataset.micro === undefined) t.dataset.micro = t.textContent;
      t.textContent = on ? `${g.dataset.block}/${g.dataset.micro}` : t.dataset.micro;
    }
  }
}

const NS = 'http://www.w3.org/2000/svg';
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Each device's live memory over time (a step line) against its capacity (dashed).
function drawMemory(v) {
  const box = $('memory');
  box.textContent = '';
  const D = v.ndevs, rowH = 46, left = 60, W = 900;
  const cap = v.memory.capacity || (Array.isArray(memoryKnob()) ? memoryKnob()
    : (typeof memoryKnob() === 'number' ? Array(D).fill(memoryKnob()) : null));
  const t0 = v.first, t1 = Math.max(v.last, v.first + 1);
  const x = (s) => left + (W - left - 10) * (s - t0) / (t1 - t0);
  const svg = svgEl('svg', { width: W, height: D * rowH + 24, class: 'memory-chart' });
  svg.appendChild(svgEl('text', { x: 4, y: 14, 'font-size': 12 }, 'live memory per device (dashed: capacity)'));
  v.memory.devices.forEach((pts, d) => {
    const top = 20 + d * rowH, h = rowH - 8;
    const peak = Math.max(1, ...pts.map((p) => p[1]), cap ? cap[d] : 0);
    const y = (l) => top + h - h * Math.max(0, l) / peak;
    svg.appendChild(svgEl('text', { x: 4, y: top + h / 2 + 4, 'font-size': 11 }, `dev ${d}`));
    svg.appendChild(svgEl('rect', { x: left, y: top, width: W - left - 10, height: h, fill: '#f6f6f6' }));
    let path = `M${x(t0)},${y(0)}`, level = 0;
    for (const [s, l] of pts) { path += ` H${x(s)} V${y(l)}`; level = l; }
    path += ` H${x(t1)}`;
    svg.appendChild(svgEl('path', { d: path, fill: 'none', stroke: '#2a6db0', 'stroke-width': 1.5, class: 'mem-line' }));
    if (cap) svg.appendChild(svgEl('line', { x1: left, x2: W - 10, y1: y(cap[d]), y2: y(cap[d]),
      stroke: '#c00', 'stroke-dasharray': '4 3' }));
    svg.appendChild(svgEl('title', {}, `device ${d}: peak ${Math.max(0, ...pts.map((p) => p[1]))}` +
      (cap ? `, capacity ${cap[d]}` : '') + `, ends at ${level}`));
  });
  box.appendChild(svg);
}

async function search() {
  await runJob({ job: 'search' }, async (r) => {
    await showSchedule(r.schedule, r.summary, `${r.summary.method} search`);
  });
}

async function baseline() {
  if (!(await check())) return;
  const st = $('job-status');
  try {
    const r = await api('/api/baseline', { placement: placementJson(), file: state.file,
      kind: $('baseline-kind').value, micro_batches: intOrText($('k-n').value) });
    st.className = 'msg ok';
    st.textContent = `baseline ${$('baseline-kind').value} built`;
    await showSchedule(r.schedule, r.summary, `baseline ${$('baseline-kind').value}`);
  } catch (e) { st.className = 'msg err'; st.textContent = e.message; }
}

// ---- compare ----

async function compare() {
  const list = $('cmp-methods').value.split(',').map((s) => s.trim()).filter((s) => s);
  const body = { job: 'compare' };
  if (list.length) body.methods = list;
  await runJob(body, async (r) => {
    const tb = $('compare-table').tBodies[0];
    tb.textContent = '';
    r.rows.forEach((row, i) => {
      const tr = tb.insertRow();
      tr.dataset.method = row.method;
      if (i === r.best) tr.classList.add('best');
      const cells = [row.method + (i === r.best ? ' ★' : ''), fmt(row.k), fmt(row.period), fmt(row.makespan),
        fmt(row.lower_bound), fmt(row.ratio, 3), row.bubble_rate !== undefined ? fmt(row.bubble_rate * 100, 1) + '%' : '–',
        row.peak_memory ? row.peak_memory.join(' ') : '–', row.fits === undefined ? '–' : (row.fits ? 'yes' : 'no'),
        fmt(row.seconds, 2), row.status];
      const names = ['method', 'k', 'period', 'makespan', 'lb', 'ratio', 'bubbles', 'peak', 'fits', 'seconds', 'status'];
      cells.forEach((c, k) => { const td = tr.insertCell(); td.textContent = c; td.className = 'c-' + names[k]; });
      if (row.schedule) tr.addEventListener('click', () => {
        tb.querySelectorAll('tr.selected').forEach((t) => t.classList.remove('selected'));
        tr.classList.add('selected');
        showSchedule(row.schedule, row, row.method);
      });
    });
  });
}

// ---- what-if ----

function parseValues(s) {
  const out = [];
  for (const part of s.split(',')) {
    const m = part.trim().match(/^(\d+)\s*-\s*(\d+)$/);
    if (m) for (let v = +m[1]; v <= +m[2] && out.length < 64; v++) out.push(v);
    else if (part.trim() !== '') out.push(intOrText(part.trim()));
  }
  return out;
}

async function whatif() {
  const knob = $('wi-knob').value;
  const body = { job: 'whatif', knob, values: parseValues($('wi-values').value) };
  if (knob === 'ndevs')
    body.builtin = { name: $('bi-name').value, infer: $('bi-infer').checked,
      chunks: parseInt($('bi-chunks').value, 10) || 0 };
  await runJob(body, async (r) => drawWhatif(r));
}

// Makespan (solid) and LB (dashed) against the knob's values; a red dot at the bottom is a
// value without a schedule (its tooltip says why). Tooltips give the ratio.
function drawWhatif(r) {
  const box = $('whatif-chart');
  box.textContent = '';
  const W = 640, H = 280, L = 64, B = 40, T = 24;
  const svg = svgEl('svg', { width: W, height: H, class: 'whatif-chart' });
  const xs = r.points.map((p) => p.value);
  const ok = r.points.filter((p) => p.makespan !== undefined);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.min(...ok.map((p) => p.lower_bound), Infinity) * 0.95 || 0;
  const y1 = Math.max(...ok.map((p) => p.makespan), y0 + 1) * 1.03;
  const x = (v) => L + (W - L - 16) * (v - x0) / (x1 - x0);
  const y = (v) => T + (H - T - B) * (1 - (v - y0) / (y1 - y0));
  const knob = r.knob === 'n' ? 'N' : r.knob === 'ndevs' ? 'devices' : 'memory per device';
  svg.appendChild(svgEl('text', { x: L, y: 15, 'font-size': 12, 'font-weight': 'bold' },
    `makespan (solid) and LB (dashed) against ${knob}`));
  for (let k = 0; k <= 4; k++) {
    const v = y0 + (y1 - y0) * k / 4;
    svg.appendChild(svgEl('text', { x: L - 6, y: y(v) + 4, 'font-size': 11, 'text-anchor': 'end' }, Math.round(v)));
    svg.appendChild(svgEl('line', { x1: L, x2: W - 16, y1: y(v), y2: y(v), stroke: '#eee' }));
  }
  for (const v of xs) svg.appendChild(svgEl('text', { x: x(v), y: H - B + 16, 'font-size': 11, 'text-anchor': 'middle' }, v));
  svg.appendChild(svgEl('text', { x: (L + W) / 2, y: H - 6, 'font-size': 11, 'text-anchor': 'middle' }, knob));
  for (const [key, dash] of [['makespan', ''], ['lower_bound', '5 4']]) {
    const d = ok.map((p, i) => `${i ? 'L' : 'M'}${x(p.value)},${y(p[key])}`).join(' ');
    if (d) svg.appendChild(svgEl('path', { d, fill: 'none', stroke: key === 'makespan' ? '#2a6db0' : '#888',
      'stroke-width': 2, 'stroke-dasharray': dash, class: 'line-' + key }));
  }
  for (const p of r.points) {
    const has = p.makespan !== undefined;
    const c = svgEl('circle', { cx: x(p.value), cy: has ? y(p.makespan) : H - B, r: 4,
      fill: has ? '#2a6db0' : '#c00', class: has ? 'pt' : 'pt none' });
    c.appendChild(svgEl('title', {}, has ? `${knob} ${p.value}: makespan ${p.makespan}, LB ${p.lower_bound}, ` +
      `ratio ${p.ratio.toFixed(3)}${p.fits === false ? ', does not fit' : ''}` : `${knob} ${p.value}: ${p.status}`));
    svg.appendChild(c);
  }
  box.appendChild(svg);
}

// ---- keep and share ----

function download(name, text, type) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

function b64(s) { return btoa(unescape(encodeURIComponent(s))); }
function unb64(s) { return decodeURIComponent(escape(atob(s))); }

function shareLink() {
  const st = { p: placementJson(), k: { memory: $('k-memory').value, n: $('k-n').value,
    method: $('k-method').value, time: $('k-time').value } };
  const url = location.origin + location.pathname + '#s=' + b64(JSON.stringify(st));
  $('share-url').value = url;
  history.replaceState(null, '', url);
  return url;
}

function restoreFromHash() {
  const m = location.hash.match(/#s=([A-Za-z0-9+/=]+)/);
  if (!m) return false;
  try {
    const st = JSON.parse(unb64(m[1]));
    $('k-memory').value = st.k.memory; $('k-n').value = st.k.n;
    $('k-method').value = st.k.method; $('k-time').value = st.k.time;
    fromPlacementJson(st.p);
    return true;
  } catch (e) { setStatus('the link holds no readable state: ' + e.message); return false; }
}

async function downloadTrace() {
  if (!state.schedule) return;
  const t = await api('/api/trace', { schedule: state.schedule, micro_batches: intOrText($('k-n').value),
    timeline: timelineKind() });
  download('trace.json', JSON.stringify(t), 'application/json');
}

function openFile(file) {
  const rd = new FileReader();
  rd.onload = () => {
    try {
      state.file = file.name;
      clearResults();
      fromPlacementJson(JSON.parse(rd.result));
    } catch (e) {
      $('check-msg').className = 'msg err';
      $('check-msg').textContent = `${file.name}: not JSON: ${e.message}`;
    }
  };
  rd.readAsText(file);
}

// ---- start ----

async function loadBuiltin() {
  try {
    const r = await api('/api/builtin', { name: $('bi-name').value, ndevs: intOrText($('bi-ndevs').value),
      infer: $('bi-infer').checked, chunks: parseInt($('bi-chunks').value, 10) || 0 });
    state.file = 'placement.json';
    clearResults();
    fromPlacementJson(r.placement);
    setStatus(`loaded ${$('bi-name').value} on ${$('bi-ndevs').value} devices`);
  } catch (e) { setStatus(e.message); }
}

// A placement derived from a model description (as `tessel placement --model` does); its
// capacity per GPU, when stated, becomes the memory knob.
async function loadModel() {
  const body = { model: $('md-model').value, hardware: $('md-hw').value,
    gpus: intOrText($('md-gpus').value), strategy: $('md-strategy').value };
  try {
    const r = await api('/api/model-placement', body);
    state.file = 'placement.json';
    clearResults();
    if (r.placement.capacity !== undefined) $('k-memory').value = String(r.placement.capacity);
    fromPlacementJson(r.placement);
    setStatus(`derived ${body.model} on ${body.gpus} x ${body.hardware}, ${body.strategy}` +
      (r.placement.capacity !== undefined ? `: capacity ${r.placement.capacity} per GPU` : ''));
  } catch (e) { setStatus(e.message); }
}

// The model picker shows only when the server embeds model descriptions.
async function initModels() {
  let r;
  try { r = await api('/api/models'); } catch (e) { return; }
  const models = r.models.filter((m) => !m.error);
  const hardware = r.hardware.filter((h) => !h.error);
  if (!models.length || !hardware.length) return;
  for (const m of models) $('md-model').add(new Option(m.name, m.name));
  for (const h of hardware) $('md-hw').add(new Option(`${h.name} (${h.hbm_gb} GB)`, h.name));
  const strategies = () => {
    const m = models.find((x) => x.name === $('md-model').value);
    $('md-strategy').textContent = '';
    for (const s of m ? m.strategies : []) $('md-strategy').add(new Option(s, s));
  };
  $('md-model').addEventListener('change', strategies);
  strategies();
  $('md-load').addEventListener('click', loadModel);
  $('md-row').hidden = false;
}

function wire() {
  $('bi-load').addEventListener('click', loadBuiltin);
  $('bi-name').addEventListener('change', () => {
    const b = state.info.builtins.find((x) => x.name === $('bi-name').value);
    $('bi-desc').textContent = b ? `${b.description} (${b.min_devs}–${b.max_devs} devices)` : '';
  });
  $('pl-name').addEventListener('input', () => { state.placement.name = $('pl-name').value; });
  $('pl-ndevs').addEventListener('input', () => { state.placement.ndevs = $('pl-ndevs').value; scheduleCheck(); });
  $('add-block').addEventListener('click', () => {
    state.placement.blocks.push({ id: 'X' + state.placement.blocks.length, kind: 'forward', span: 1, memory: 0, devices: '0' });
    renderEditor(); scheduleCheck();
  });
  $('add-edge').addEventListener('click', () => {
    const b = state.placement.blocks;
    state.placement.edges.push({ from: b.length ? b[0].id : '', to: b.length > 1 ? b[1].id : '', delay: 0, distance: 0 });
    renderEditor(); scheduleCheck();
  });
  for (const id of ['k-memory', 'k-n']) $(id).addEventListener('input', scheduleCheck);
  $('search').addEventListener('click', search);
  $('cancel').addEventListener('click', cancelJob);
  $('baseline').addEventListener('click', baseline);
  $('compare').addEventListener('click', compare);
  $('whatif').addEventListener('click', whatif);
  document.querySelectorAll('input[name="tl"]').forEach((r) => r.addEventListener('change', refreshView));
  $('zoom').addEventListener('input', applyZoom);
  $('show-ids').addEventListener('change', applyIds);
  $('file-open').addEventListener('change', (ev) => { if (ev.target.files[0]) openFile(ev.target.files[0]); });
  const ed = $('editor');
  ed.addEventListener('dragover', (ev) => { ev.preventDefault(); ed.classList.add('dropping'); });
  ed.addEventListener('dragleave', () => ed.classList.remove('dropping'));
  ed.addEventListener('drop', (ev) => {
    ev.preventDefault(); ed.classList.remove('dropping');
    if (ev.dataTransfer.files[0]) openFile(ev.dataTransfer.files[0]);
  });
  $('dl-placement').addEventListener('click', () => download(state.file, JSON.stringify(placementJson(), null, 1), 'application/json'));
  $('dl-schedule').addEventListener('click', () => state.schedule && download('schedule.json', JSON.stringify(state.schedule, null, 1), 'application/json'));
  $('dl-svg').addEventListener('click', () => state.view && download('timeline.svg', state.view.svg, 'image/svg+xml'));
  $('dl-trace').addEventListener('click', downloadTrace);
  $('share').addEventListener('click', shareLink);
}

async function init() {
  wire();
  try { state.info = await api('/api/info'); } catch (e) { setStatus('server unreachable: ' + e.message); return; }
  for (const b of state.info.builtins) $('bi-name').add(new Option(b.name, b.name));
  for (const m of state.info.methods) $('k-method').add(new Option(m, m));
  $('k-method').value = 'auto';
  for (const b of state.info.baselines) $('baseline-kind').add(new Option(b.name, b.name));
  $('bi-name').value = 'vshape';
  $('bi-name').dispatchEvent(new Event('change'));
  if (!restoreFromHash()) await loadBuiltin();
  await initModels();
  setStatus('ready');
  document.body.dataset.ready = '1';
}

init();
