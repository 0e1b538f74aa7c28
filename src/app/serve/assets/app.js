// Tessel explorer: the page's logic. Every figure comes from the server's JSON API (the core
// library, the solver and the results module that `tessel compare` and `tessel search --json`
// print from); this file edits the placement, calls the API and draws.
//
// One state: the placement in the editor and the knobs. Every result on the page (summary,
// timeline, compare table, what-if chart) remembers the state it was computed for; when the state
// moves away from it, the result is greyed and says for which state it was. Loading a placement
// clears every result and resets the knobs it implies. The URL's hash always holds the state.
'use strict';

const $ = (id) => document.getElementById(id);
const state = {
  info: null,
  // names the placement in messages, as a file name does on the CLI: a file's name, or what a
  // built-in or model placement is (no file of it exists to blame)
  file: 'the placement in the editor',
  placement: { name: 'untitled', ndevs: 1, blocks: [], edges: [] },
  origin: { type: 'none' },   // builtin {name, ndevs, infer, chunks}, model {...}, file {name}, link
  loadedJson: '',             // the placement as loaded: an unedited one may sweep its device count
  schedule: null,             // the schedule on show (a search result, baseline or compare row)
  scheduleLabel: '',
  view: null,                 // the last /api/view answer
  pinned: null,               // {schedule, label, view}: stacked below the one on show
  keys: {},                   // panel -> the state its result was computed for
  job: null,                  // id of the running search, compare or what-if
  checkTimer: 0,
};
// Round-trip times of every API call, for the browser test's report (ms).
window.tsTimings = [];

// The token of this page's server (GET /api/session), sent with every POST: the server refuses
// a request that changes its state without it, so that a page of another site cannot.
let sessionToken = null;
async function token() {
  if (!sessionToken) sessionToken = (await (await fetch('/api/session')).json()).token;
  return sessionToken;
}

async function api(path, body) {
  const t0 = performance.now();
  const opt = body === undefined ? {} : {
    method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Tessel-Token': await token() },
    body: JSON.stringify(body) };
  const r = await fetch(path, opt);
  const j = await r.json();
  window.tsTimings.push({ path: path.replace(/\d+/g, 'ID'), ms: performance.now() - t0 });
  if (!r.ok) { const e = new Error(j.error || ('HTTP ' + r.status)); e.status = r.status; throw e; }
  return j;
}

function setStatus(t) { $('status').textContent = t; }
function esc(s) { return String(s).replace(/[<&>"]/g, (c) => ({ '<': '&lt;', '&': '&amp;', '>': '&gt;', '"': '&quot;' }[c])); }

// ---- units of a model-derived placement: steps in ms, memory units in GB ----

function units() {
  const u = state.placement.units;
  if (!u || !u.time_s) return null;
  const mb = Array.isArray(u.memory_bytes) && u.memory_bytes.length === Number(state.placement.ndevs) ? u.memory_bytes : null;
  return { time_s: u.time_s, memory_bytes: mb };
}
function uTime(steps) { const u = units(); return u && typeof steps === 'number' ? tsFmtTime(steps * u.time_s) : ''; }
function uMem(m, d) { const u = units(); return u && u.memory_bytes && typeof m === 'number' ? tsFmtGB(m * u.memory_bytes[d || 0]) : ''; }
function uMemList(list) { const u = units(); return u && u.memory_bytes && list ? list.map((m, d) => (m * u.memory_bytes[d] / 1e9).toFixed(2)).join(' ') + ' GB' : ''; }

// ---- the placement as a file (tessel-placement/1) and as the editor's state ----

function intOrText(s) { return /^\s*-?\d+\s*$/.test(s) ? parseInt(s, 10) : s; }

function placementJson() {
  const p = state.placement;
  const j = {
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
  // A derived placement's capacity and units travel with it while its device count stands.
  if (p.capacity !== undefined && String(p.ndevs) === String(p.unitsNdevs)) j.capacity = p.capacity;
  if (p.units && String(p.ndevs) === String(p.unitsNdevs)) j.units = p.units;
  return j;
}
window.tsPlacementJson = placementJson;

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
    edges, capacity: j.capacity, units: j.units, unitsNdevs: j.ndevs,
  };
  renderEditor();
}

// ---- one state: what every result was computed for ----

function memoryText() { return $('k-memory').value.trim().replace(/\s+/g, ''); }

function snapshot() {
  return { placement: JSON.stringify(placementJson()), memory: memoryText(), n: $('k-n').value.trim(),
    method: $('k-method').value, time: $('k-time').value.trim() };
}

// What moved between the state a result was computed for and the page's state now.
function differences(old, now, ignoreN) {
  const d = [];
  if (old.placement !== now.placement) d.push('another placement');
  if (old.memory !== now.memory) d.push(`memory ${old.memory || 'none'}`);
  if (!ignoreN && old.n !== now.n) d.push(`N = ${old.n}`);
  if (old.method !== now.method) d.push(`method ${old.method}`);
  if (old.time !== now.time) d.push(`time limit ${old.time} s`);
  return d;
}

const PANELS = { summary: 'summary-box', timeline: 'timeline-box', compare: 'compare-box', whatif: 'whatif-box' };
// Which knobs a panel's result depends on (the what-if sweeps one of them, compare ignores the method).
function panelDiff(name, old, now) {
  const d = differences(old, now, name === 'timeline').filter((x) =>
    !(name === 'compare' && x.startsWith('method')) &&
    !(name === 'whatif' && old.sweep && x.startsWith(old.sweep)));
  return d;
}

function setPanel(name, key) {
  // a copy: the timeline's N follows the knob, the summary's stays where it was computed
  state.keys[name] = Object.assign({}, key);
  const el = $(PANELS[name]);
  el.classList.remove('stale');
  delete el.dataset.stale;
  $(name + '-stale').hidden = true;
}

function clearPanel(name) {
  delete state.keys[name];
  const el = $(PANELS[name]);
  el.classList.remove('stale');
  delete el.dataset.stale;
  $(name + '-stale').hidden = true;
  if (name === 'summary') { $('summary').textContent = ''; $('mem-notice').hidden = true; }
  if (name === 'timeline') {
    state.schedule = null; state.view = null; state.pinned = null;
    $('view-info').textContent = ''; $('tl-window').textContent = '';
    tl.clear(); $('tl-unstack').hidden = true;
  }
  if (name === 'compare') {
    $('compare-table').tBodies[0].textContent = ''; $('compare-table').tHead.rows[0].textContent = '';
    $('compare-head').textContent = ''; $('compare-notice').hidden = true;
  }
  if (name === 'whatif') $('whatif-chart').textContent = '';
}

function greyPanel(name, text) {
  const el = $(PANELS[name]);
  if (!state.keys[name] && name !== 'summary') return;
  el.classList.add('stale');
  el.dataset.stale = '1';
  $(name + '-stale').textContent = text;
  $(name + '-stale').hidden = false;
}

// Greys every result whose state is not the page's, and says which state it belongs to.
function updateStale() {
  const now = snapshot();
  for (const name of Object.keys(PANELS)) {
    const key = state.keys[name];
    if (!key) continue;
    const d = panelDiff(name, key, now);
    if (!d.length) { setPanel(name, key); continue; }
    greyPanel(name, d[0] === 'another placement'
      ? 'for the previous placement: the editor has changed since (run it again for this one)'
      : `for the previous knobs: ${d.join(', ')} (run it again for the knobs now)`);
  }
  updateWhatifChoices();
  updateUnits();
  scheduleUrl();
}

function clearAllResults() {
  for (const name of Object.keys(PANELS)) clearPanel(name);
  for (const id of ['search-msg', 'baseline-msg', 'compare-msg', 'whatif-msg', 'bi-load-msg', 'md-load-msg']) {
    $(id).textContent = ''; $(id).className = 'act-msg';
  }
  $('job-status').textContent = ''; $('job-status').className = 'msg';
  delete $('job-status').dataset.state;
}

// ---- editor ----

function cell(obj, key, unit) {
  const td = document.createElement('td');
  const inp = document.createElement('input');
  inp.value = obj[key];
  inp.dataset.field = key;
  const size = () => { if (key === 'devices' || key === 'id') inp.style.width = Math.max(4, String(inp.value).length + 1) + 'ch'; };
  size();
  inp.addEventListener('input', () => { obj[key] = inp.value; size(); edited(); });
  td.appendChild(inp);
  if (unit) { const s = document.createElement('span'); s.className = 'unit'; s.dataset.unit = key; td.appendChild(s); }
  return td;
}

function kindCell(b) {
  const td = document.createElement('td');
  const s = document.createElement('select');
  s.dataset.field = 'kind';
  for (const k of ['forward', 'backward', 'other']) s.add(new Option(k, k));
  s.value = b.kind;
  s.addEventListener('change', () => { b.kind = s.value; edited(); });
  td.appendChild(s);
  return td;
}

function removeCell(list, i) {
  const td = document.createElement('td');
  const bt = document.createElement('button');
  bt.textContent = '×';
  bt.className = 'small';
  bt.title = 'remove';
  bt.addEventListener('click', () => { list.splice(i, 1); renderEditor(); edited(); });
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
    tr.append(cell(b, 'id'), kindCell(b), cell(b, 'span', true), cell(b, 'memory', true), cell(b, 'devices'),
      removeCell(p.blocks, i));
  });
  p.edges.forEach((e, i) => {
    const tr = et.insertRow();
    tr.dataset.index = i;
    tr.append(cell(e, 'from'), cell(e, 'to'), cell(e, 'delay'), cell(e, 'distance'), removeCell(p.edges, i));
  });
  updateUnits();
}

// ms beside spans, GB beside memory (on the block's first device), for a derived placement.
function updateUnits() {
  const rows = $('blocks').tBodies[0].rows;
  state.placement.blocks.forEach((b, i) => {
    const tr = rows[i];
    if (!tr) return;
    const d = parseInt(String(b.devices).split(',')[0], 10) || 0;
    const s = tr.querySelector('[data-unit=span]'), m = tr.querySelector('[data-unit=memory]');
    if (s) s.textContent = uTime(intOrText(String(b.span)));
    if (m) m.textContent = uMem(intOrText(String(b.memory)), d);
  });
  const mem = memoryKnob(), u = units();
  let t = '';
  if (u && u.memory_bytes && mem !== 'none') {
    const caps = Array.isArray(mem) ? mem : u.memory_bytes.map(() => mem);
    if (caps.every((c) => typeof c === 'number')) {
      const gb = caps.map((c, d) => c * u.memory_bytes[d] / 1e9);
      t = `= ${Math.min(...gb).toFixed(2)}–${Math.max(...gb).toFixed(2)} GB per GPU (units differ per GPU)`;
    }
  }
  $('k-memory-unit').textContent = t;
}

function edited() {
  scheduleCheck();
  updateSource();
  updateStale();
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
  const s = memoryText();
  if (s === '' || s === 'none') return 'none';
  const parts = s.split(',').map((x) => intOrText(x.trim()));
  return parts.length === 1 ? parts[0] : parts;
}

// The capacities as given, one per device (null: none).
function capacityList(memText, ndevs) {
  if (!memText || memText === 'none') return null;
  const parts = memText.split(',').map((x) => parseInt(x, 10));
  if (parts.some((x) => isNaN(x))) return null;
  return parts.length === 1 ? Array(ndevs).fill(parts[0]) : parts;
}

function knobs() {
  return { memory: memoryKnob(), micro_batches: intOrText($('k-n').value),
           method: $('k-method').value, time_limit: parseFloat($('k-time').value) };
}

// The page shows more than one lower bound: the check's is within the memory knob, a schedule's
// own is within the memory it was built for (none for a baseline), a compare table's within the
// compare's memory. Each says which it is, so that two different figures never share one label.
// mem: the knob's text ('2', '8,4,4,4', 'none'), its value, or a schedule's list per device.
function boundWords(mem) {
  let m = mem;
  if (Array.isArray(m)) m = m.length && m.every((c) => c === m[0]) ? String(m[0]) : m.join(',');
  m = m === undefined || m === null ? '' : String(m);
  return m === '' || m === 'none' ? 'ignoring memory' : `within memory ${m}`;
}

// Checks 150 ms after the last edit. data-pending on the message says a newer answer is due, so
// that nobody (a user, the browser test) reads a message about an older state.
function scheduleCheck() {
  clearTimeout(state.checkTimer);
  $('check-msg').dataset.pending = '1';
  state.checkTimer = setTimeout(() => { state.checkTimer = 0; check(); }, 150);
}

// Returns null when the state checks, or the one-line message.
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
    if (!done()) return null;
    msg.className = 'msg ok';
    const lbu = uTime(r.lower_bound);
    msg.textContent = `${r.nblocks} blocks, ${r.nedges} edges on ${r.ndevs} devices; ` +
      `load ${r.load.join(' ')}; LB at N = ${r.micro_batches} ${boundWords(k.memory)} = ${r.lower_bound}` +
      (lbu ? ` (${lbu})` : '');
    msg.dataset.lb = r.lower_bound;
    return null;
  } catch (e) {
    if (!done()) return e.message;
    msg.className = 'msg err';
    msg.textContent = e.message;
    delete msg.dataset.lb;
    showFieldMessage(e.message);
    return e.message;
  }
}

// ---- actions: each reports next to its button; a failure greys what it would have replaced ----

async function act(button, panels, fn) {
  const m = $(button + '-msg');
  m.textContent = ''; m.className = 'act-msg';
  m.dataset.state = 'running';
  // The job line speaks of the job now starting, never of an older one.
  const js = $('job-status');
  js.textContent = ''; js.className = 'msg';
  delete js.dataset.state;
  try {
    const text = await fn();
    m.className = 'act-msg ok';
    m.textContent = text || '';
    m.dataset.state = 'done';
  } catch (e) {
    m.className = e.cancelled ? 'act-msg warn' : 'act-msg err';
    m.textContent = e.message;
    m.dataset.state = e.cancelled ? 'cancelled' : 'failed';
    for (const p of panels) {
      if (p === 'summary' && state.keys.summary) greyPanel(p, `not updated: ${button} failed (${e.message}); below is the previous result`);
      else if (state.keys[p]) greyPanel(p, `not updated: ${button} failed; below is the previous result`);
    }
  }
}

// The state must check before anything runs: its message then goes beside the button too.
async function mustCheck(what) {
  const err = await check();
  if (err) throw new Error(`cannot ${what}: ${err}`);
}

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

// Runs a job to its end; returns its result or throws its one-line message.
async function runJob(body) {
  const st = $('job-status');
  const id = (await api('/api/jobs', Object.assign({ placement: placementJson(), file: state.file }, knobs(), body))).id;
  state.job = id;
  setBusy(true);
  st.className = 'msg';
  st.dataset.state = 'running';
  try {
    for (;;) {
      await new Promise((res) => setTimeout(res, 150));
      if (state.job !== id) {
        const e = new Error(`${body.job} cancelled`); e.cancelled = true;
        // what it finished before it stopped (a what-if's points so far)
        try { e.result = (await api(`/api/jobs/${id}`)).result; } catch (_) { /* gone */ }
        throw e;
      }
      const j = await api(`/api/jobs/${id}`);
      st.textContent = progressText(j);
      if (j.state === 'running') continue;
      st.dataset.state = j.state;
      if (j.state === 'done') { st.className = 'msg ok'; return j.result; }
      st.className = 'msg err';
      const e = new Error(`${j.job} ${j.state}: ${j.error || ''}`); e.cancelled = j.state === 'cancelled';
      e.result = j.result;
      throw e;
    }
  } finally {
    if (state.job === id) state.job = null;
    setBusy(false);
  }
}

async function cancelJob() {
  const id = state.job;
  if (!id) return;
  state.job = null;
  const st = $('job-status');
  try {
    const j = await api(`/api/jobs/${id}/cancel`, {});
    st.className = 'msg err';
    st.dataset.state = j.state;
    st.textContent = `${j.job} ${j.state} after ${j.elapsed.toFixed(1)} s`;
  } catch (e) { st.textContent = e.message; }
}

function fmt(x, d) { return typeof x === 'number' ? (d ? x.toFixed(d) : String(x)) : '–'; }

// The per-device memory as given against what the search was held to. The search takes one
// capacity per device and reports the list back, so they agree; should a server hold the devices
// to one capacity instead, the page says so rather than let it pass silently.
function memoryNotice(searched, key) {
  const list = capacityList(key.memory, Number(state.placement.ndevs));
  if (!list || typeof searched !== 'number' || list.every((c) => c === searched)) return '';
  return `The search held every device to ${searched}, not to the capacities as given ` +
    `(${key.memory}). "fits", the bound and the memory chart use the list as given.`;
}

// boundMem: the memory the summary's bound is within (see boundWords).
function showSummary(s, label, key, boundMem) {
  const labelWord = s.label ? ` <span id="result-label" class="label ${esc(s.label).replace(' ', '-')}">${esc(s.label)}</span>` : '';
  const mu = uTime(s.makespan), lu = uTime(s.lower_bound);
  $('summary').innerHTML = `<span>${esc(label)}${labelWord}, as run (replayed): makespan <b id="makespan">${s.makespan}</b>` +
    (mu ? ` <span class="unit" id="makespan-unit">${mu}</span>` : '') + ` at N = ${s.micro_batches}, ` +
    `LB (${boundWords(boundMem)}) <b id="lower-bound">${s.lower_bound}</b>` + (lu ? ` <span class="unit">${lu}</span>` : '') +
    ` (ratio ${fmt(s.ratio, 3)}), bubble rate ${fmt(s.bubble_rate * 100, 2)}%, peak memory <span id="peak">${s.peak_memory.join(' ')}</span>` +
    (uMemList(s.peak_memory) ? ` <span class="unit" id="peak-unit">(${uMemList(s.peak_memory)})</span>` : '') +
    `, memory ${esc(key.memory || 'none')}` +
    (s.fits === false ? ' — <b>does not fit</b>' : '') +
    (s.period ? `, period ${s.period}, k ${s.k}` : '') +
    (s.seconds !== undefined ? `, ${fmt(s.seconds, 2)} s` : '') + '</span>';
  const n = memoryNotice(s.memory_searched, key);
  $('mem-notice').textContent = n;
  $('mem-notice').hidden = !n;
  setPanel('summary', key);
}

// A summary's bound is the schedule's own (within the memory the schedule carries) unless the
// caller says otherwise: a compare row's is the table's, within the compare's memory.
async function showSchedule(schedule, summary, label, key, boundMem) {
  state.schedule = schedule;
  state.scheduleLabel = label;
  state.scheduleKey = key;
  if (summary) showSummary(summary, label, key, boundMem === undefined ? schedule.memory : boundMem);
  await refreshView();
  setPanel('timeline', key);
  updateStale();
}

function timelineKind() { return document.querySelector('input[name="tl"]:checked').value; }

async function viewOf(schedule) {
  return api('/api/view', { schedule, micro_batches: intOrText($('k-n').value), timeline: timelineKind(), svg: false });
}

// Draws the schedule on show (and the stacked one) at the knobs' N.
async function refreshView(keepWindow) {
  if (!state.schedule) return;
  const vi = $('view-info');
  try {
    const v = await viewOf(state.schedule);
    state.view = v;
    const tracks = [{ view: v, label: state.scheduleLabel, edges: tsEdgesOf(state.schedule.placement) }];
    if (state.pinned) {
      state.pinned.view = await viewOf(state.pinned.schedule);
      tracks.push({ view: state.pinned.view, label: state.pinned.label, edges: tsEdgesOf(state.pinned.schedule.placement) });
    }
    const key = state.scheduleKey || snapshot();
    tl.setData(tracks, units(), capacityList(key.memory, v.ndevs), keepWindow);
    vi.className = v.valid ? 'msg' : 'msg err';
    const mu = uTime(v.makespan);
    vi.textContent = `${timelineKind()} timeline of ${state.scheduleLabel} at N = ${v.micro_batches}: makespan ${v.makespan}` +
      (mu ? ` (${mu})` : '') + `, LB (${boundWords(state.schedule.memory)}) ${v.lower_bound}, bubble rate ${fmt(v.bubble_rate * 100, 2)}%, ` +
      `peak memory ${v.peak_memory.join(' ')}` + (v.valid ? ', valid' : ` — invalid: ${v.message}`) +
      (state.pinned ? `; below: ${state.pinned.label}, makespan ${state.pinned.view.makespan}` : '');
    vi.dataset.n = v.micro_batches;
    if (state.keys.timeline) state.keys.timeline.n = $('k-n').value.trim();
  } catch (e) { vi.className = 'msg err'; vi.textContent = e.message; tl.clear(); }
}

async function search() {
  await act('search', ['summary', 'timeline'], async () => {
    await mustCheck('search');
    const key = snapshot();
    const r = await runJob({ job: 'search' });
    await showSchedule(r.schedule, r.summary, `${r.summary.method} search`, key);
    return `done, ${fmt(r.summary.seconds, 2)} s`;
  });
}

async function baseline() {
  await act('baseline', ['summary', 'timeline'], async () => {
    await mustCheck('build a baseline');
    const key = snapshot(), kind = $('baseline-kind').value;
    const r = await api('/api/baseline', { placement: placementJson(), file: state.file,
      kind, micro_batches: intOrText($('k-n').value) });
    await showSchedule(r.schedule, r.summary, `baseline ${kind}`, key);
    return `${kind} built`;
  });
}

// ---- compare: the rows `tessel compare` prints, from the same results code ----

const CMP_COLS = [['best', ''], ['method', 'method'], ['k', 'k'], ['period', 'period'], ['makespan', 'makespan'],
  ['ratio', '/LB'], ['bubbles', 'bubble'], ['peak', 'peak memory'], ['fits', 'fits'], ['seconds', 'seconds'], ['status', 'status'], ['label', '']];

async function compare() {
  await act('compare', ['compare'], async () => {
    await mustCheck('compare');
    const key = snapshot();
    const list = $('cmp-methods').value.split(',').map((s) => s.trim()).filter((s) => s);
    // compare runs every method it lists: the page's method knob is no field of it
    const body = { job: 'compare', method: undefined };
    if (list.length) body.methods = list;
    const r = await runJob(body);
    drawCompare(r, key);
    setPanel('compare', key);
    updateStale();
    return `${r.rows.length} rows`;
  });
}

function drawCompare(r, key) {
  const u = units(), p = state.placement;
  const mem = key.memory && key.memory !== 'none' ? key.memory : 'unlimited';
  $('compare-head').textContent = `placement ${p.name}, ${p.ndevs} devices, N = ${key.n} micro-batches, ` +
    `memory ${mem}, lower bound ${r.lower_bound} (${r.bound_term})` + (u ? ` = ${uTime(r.lower_bound)}` : '');
  const cols = CMP_COLS.slice();
  if (u) cols.splice(5, 0, ['ms', 'makespan (time)']);
  if (u && u.memory_bytes) cols.splice(cols.findIndex((c) => c[0] === 'peak') + 1, 0, ['gb', 'peak GB']);
  const head = $('compare-table').tHead.rows[0];
  head.textContent = '';
  for (const [c, t] of cols) {
    const th = document.createElement('th');
    // the ratio is to the table's bound (in the line above), not to a schedule's own
    th.textContent = c === 'ratio' ? `${t} (${boundWords(key.memory)})` : t;
    head.appendChild(th);
  }
  const tb = $('compare-table').tBodies[0];
  tb.textContent = '';
  const hasMem = key.memory && key.memory !== 'none';
  r.rows.forEach((row) => {
    const tr = tb.insertRow();
    tr.dataset.method = row.method;
    if (row.best) tr.classList.add('best');
    const ok = row.makespan !== undefined;
    const val = {
      best: row.best ? '*' : '', method: row.method, k: row.k ? String(row.k) : '-', period: row.period ? String(row.period) : '-',
      makespan: ok ? String(row.makespan) : '-', ratio: ok && row.ratio != null ? row.ratio.toFixed(3) : '-',
      bubbles: ok ? (100 * row.bubble_rate).toFixed(2) + '%' : '-', peak: ok ? row.peak_memory.join(' ') : '-',
      fits: ok && hasMem ? (row.fits ? 'yes' : 'no') : '-', seconds: row.seconds.toFixed(2), status: row.status,
      ms: ok ? uTime(row.makespan) : '-', gb: ok ? uMemList(row.peak_memory) : '-', label: '',
    };
    for (const [c] of cols) { const td = tr.insertCell(); td.textContent = val[c]; td.className = 'c-' + c; }
    // greedy, time limit, optimal: the status's word as a badge
    if (row.label && row.label !== 'no schedule') {
      const b = document.createElement('span');
      b.className = 'label ' + row.label.replace(' ', '-');
      b.textContent = row.label;
      tr.querySelector('.c-label').appendChild(b);
    }
    if (row.label) tr.dataset.label = row.label;
    if (row.schedule) tr.addEventListener('click', () => {
      tb.querySelectorAll('tr.selected').forEach((t) => t.classList.remove('selected'));
      tr.classList.add('selected');
      showSchedule(row.schedule, row, row.method, key, key.memory);
    });
  });
  const n = memoryNotice(r.memory_searched, key);
  $('compare-notice').textContent = n ? n.replace('The search', 'Every search') : '';
  $('compare-notice').hidden = !n;
}

// ---- what-if: sweeps the placement in the editor ----

function parseValues(s) {
  const out = [];
  for (const part of s.split(',')) {
    const m = part.trim().match(/^(\d+)\s*-\s*(\d+)$/);
    if (m) for (let v = +m[1]; v <= +m[2] && out.length < 64; v++) out.push(v);
    else if (part.trim() !== '') out.push(intOrText(part.trim()));
  }
  return out;
}

function unedited() { return state.loadedJson !== '' && JSON.stringify(placementJson()) === state.loadedJson; }

// The device count can be swept only where the placement can be re-made at another count: an
// unedited built-in (re-made) or model placement (re-derived).
function updateWhatifChoices() {
  const o = state.origin, opt = $('wi-knob').querySelector('option[value=ndevs]');
  const can = unedited() && (o.type === 'builtin' || o.type === 'model');
  opt.disabled = !can;
  opt.textContent = !can ? 'devices (only an unedited built-in or model)'
    : o.type === 'builtin' ? `devices (built-in ${o.name}, re-made at each count)`
      : `GPUs (${o.model} re-derived at each count)`;
  if (!can && $('wi-knob').value === 'ndevs') $('wi-knob').value = 'memory';
  const k = $('wi-knob').value;
  $('wi-hint').textContent = k === 'ndevs'
    ? (o.type === 'builtin' ? `re-makes ${o.name} at each device count; the other knobs as they stand`
      : `re-derives ${o.model} on ${o.hardware} at each GPU count, each with the capacity its derivation states`)
    : `sweeps the placement in the editor (${state.placement.name}${unedited() ? '' : ', as edited'}) over ${k === 'n' ? 'N' : k === 'time_limit' ? 'the time limit' : 'the memory'}; the other knobs as they stand` +
      (can ? '' : '. A sweep over the device count needs an unedited built-in or model placement');
}

async function whatif() {
  await act('whatif', ['whatif'], async () => {
    const knob = $('wi-knob').value;
    if (knob !== 'ndevs') await mustCheck('sweep');
    const key = Object.assign(snapshot(), { sweep: { memory: 'memory', n: 'N', time_limit: 'time limit', ndevs: '' }[knob] });
    const body = { job: 'whatif', knob, values: parseValues($('wi-values').value) };
    const o = state.origin;
    if (knob === 'ndevs' && o.type === 'builtin') body.builtin = { name: o.name, infer: o.infer, chunks: o.chunks };
    if (knob === 'ndevs' && o.type === 'model') body.model = { model: o.model, hardware: o.hardware, gpus: o.gpus, strategy: o.strategy };
    let r;
    try {
      r = await runJob(body);
    } catch (e) {
      // a sweep stopped part way keeps the points it finished
      const done = e.result && e.result.points ? e.result.points.length : 0;
      if (done) {
        drawWhatif(e.result);
        setPanel('whatif', key);
        updateStale();
        e.message += ` (the chart keeps the ${done} of ${body.values.length} points finished before it stopped)`;
      }
      throw e;
    }
    drawWhatif(r);
    setPanel('whatif', key);
    updateStale();
    return `${r.points.length} points`;
  });
}

const NS = 'http://www.w3.org/2000/svg';
function svgEl(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
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
  const knob = { n: 'N', ndevs: state.origin.type === 'model' ? 'GPUs' : 'devices', time_limit: 'time limit (s)', memory: 'memory per device' }[r.knob];
  const perDevs = r.knob === 'ndevs';
  svg.appendChild(svgEl('text', { x: L, y: 15, 'font-size': 12, 'font-weight': 'bold' },
    `makespan (solid) and LB (dashed) against ${knob}` + (units() && !perDevs ? ' (steps of ' + uTime(1) + ')' : '')));
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
    const mu = !perDevs && has ? uTime(p.makespan) : '';
    c.appendChild(svgEl('title', {}, has ? `${knob} ${p.value}: makespan ${p.makespan}${mu ? ' (' + mu + ')' : ''}, LB ${p.lower_bound}, ` +
      `ratio ${p.ratio.toFixed(3)}${p.fits === false ? ', does not fit' : ''}` +
      (typeof p.memory_searched === 'number' ? `, memory ${p.memory_searched}` : '') : `${knob} ${p.value}: ${p.status}`));
    svg.appendChild(c);
  }
  box.appendChild(svg);
}

// ---- keep and share: the URL's hash is the state, always ----

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

// What the placement is called in messages and in the link: see state.file.
function sourceName(o) {
  if (o.type === 'file') return o.name;
  if (o.type === 'builtin') return `${o.name} on ${o.ndevs} devices` + (o.infer ? ', inference' : '') +
    (o.chunks ? `, ${o.chunks} chunks per device` : '');
  if (o.type === 'model') return `${o.model} on ${o.gpus} x ${o.hardware}, ${o.strategy}`;
  return 'the placement from the link';
}

function stateForUrl() {
  return { p: placementJson(), f: state.file, o: state.origin, u: unedited(),
    k: { memory: $('k-memory').value, n: $('k-n').value, method: $('k-method').value, time: $('k-time').value } };
}
window.tsUrlState = () => { const m = location.hash.match(/#s=([A-Za-z0-9+/=]+)/); return m ? JSON.parse(unb64(m[1])) : null; };
window.tsPageState = () => JSON.parse(JSON.stringify(stateForUrl()));

function writeUrl() {
  clearTimeout(state.urlTimer);
  state.urlTimer = 0;
  if (!state.ready) return;
  const url = location.origin + location.pathname + '#s=' + b64(JSON.stringify(stateForUrl()));
  state.lastHash = url.slice(url.indexOf('#'));
  if (location.hash !== state.lastHash) history.replaceState(null, '', url);
  $('share-url').value = url;
  delete document.body.dataset.urlPending;
}
function scheduleUrl() {
  clearTimeout(state.urlTimer);
  document.body.dataset.urlPending = '1';
  state.urlTimer = setTimeout(writeUrl, 120);
}

function restoreFromHash() {
  const m = location.hash.match(/#s=([A-Za-z0-9+/=]+)/);
  if (!m) return false;
  try {
    const st = JSON.parse(unb64(m[1]));
    clearAllResults();
    $('k-memory').value = st.k.memory; $('k-n').value = st.k.n;
    $('k-method').value = st.k.method; $('k-time').value = st.k.time;
    state.origin = st.o || { type: 'link' };
    // a link of an older page says placement.json for a built-in or model: name it by its origin
    state.file = state.origin.type === 'link' && st.f && st.f !== 'placement.json' ? st.f : sourceName(state.origin);
    fromPlacementJson(st.p);
    // An edited placement stays edited: no JSON equals the marker.
    state.loadedJson = st.u ? JSON.stringify(placementJson()) : (st.o && st.o.type !== 'link' ? '(edited)' : '');
    $('file-open').value = '';
    showNotice('restored from the link: the placement and knobs it holds (results are computed anew)');
    afterLoad();
    return true;
  } catch (e) { setStatus('the link holds no readable state: ' + e.message); return false; }
}

async function downloadTrace() {
  if (!state.schedule) return;
  const t = await api('/api/trace', { schedule: state.schedule, micro_batches: intOrText($('k-n').value),
    timeline: timelineKind() });
  download('trace.json', JSON.stringify(t), 'application/json');
}

async function downloadSvg() {
  if (!state.schedule) return;
  const v = await api('/api/view', { schedule: state.schedule, micro_batches: intOrText($('k-n').value),
    timeline: timelineKind(), svg: true });
  download('timeline.svg', v.svg, 'image/svg+xml');
}

// ---- loading: a built-in, a model, a file, a link ----

function showNotice(t) { $('load-notice').textContent = t; $('load-notice').hidden = !t; }

function updateSource() {
  const o = state.origin;
  let t = o.type === 'builtin' ? `built-in ${o.name}, ${o.ndevs} devices` + (o.chunks ? `, ${o.chunks} chunks per device` : '')
    : o.type === 'model' ? `derived ${o.model} on ${o.gpus} x ${o.hardware}, ${o.strategy}`
      : o.type === 'file' ? `file ${o.name}` : o.type === 'link' ? 'from a link' : '';
  if (t && state.loadedJson && !unedited()) t += ' (edited)';
  $('source').textContent = t;
  $('file-label').textContent = o.type === 'file' ? `(${o.name} is open)` : '';
}

// The built-in panel shows the built-in that is loaded, or none: after a file, a model or a link
// it is reset, so that it does not read as the source of the placement in the editor.
function showBuiltinPanel() {
  const o = state.origin;
  if (o.type === 'builtin') {
    $('bi-name').value = o.name; $('bi-ndevs').value = o.ndevs; $('bi-infer').checked = !!o.infer;
    if (o.chunks) $('bi-chunks').value = o.chunks;
  } else $('bi-name').value = '';
  builtinChosen();
}

// The choice's description and options, and only the options it takes: chunks only where the
// built-in has them (at its default), none at all while no built-in is chosen.
function builtinChosen() {
  const b = state.info && state.info.builtins.find((x) => x.name === $('bi-name').value);
  $('bi-desc').textContent = b ? `${b.description} (${b.min_devs}–${b.max_devs} devices)` : '';
  $('bi-opts').hidden = !b;
  $('bi-chunks-label').hidden = !(b && b.chunks);
  if (b && b.chunks && !(parseInt($('bi-chunks').value, 10) > 0)) $('bi-chunks').value = b.chunks;
}

function afterLoad() {
  showBuiltinPanel();
  updateSource();
  scheduleCheck();
  updateStale();
  writeUrl();
}

// Every load starts from a clean page: no result of another placement stays, and the knobs that
// the placement implies are reset (and the page says so).
function loaded(pj, origin, file) {
  clearAllResults();
  state.origin = origin;
  state.file = file;
  fromPlacementJson(pj);
  state.loadedJson = JSON.stringify(placementJson());
  if (origin.type !== 'file') $('file-open').value = '';
  let note;
  if (pj.capacity !== undefined) {
    $('k-memory').value = String(pj.capacity);
    const u = units();
    note = `${file}: memory set to ${pj.capacity}, the capacity it states per device` +
      (u && u.memory_bytes ? ` (${uMemList(u.memory_bytes.map(() => pj.capacity))} on GPUs 0..${pj.ndevs - 1})` : '');
  } else if (origin.type === 'builtin') {
    $('k-memory').value = String(pj.ndevs);
    note = `${file}: memory set to ${pj.ndevs}, its device count (a built-in states no capacity` +
      (origin.name === 'vshape' ? '; 1F1B\'s peak on vshape)' : ')');
  } else {
    $('k-memory').value = 'none';
    note = `memory set to none: ${file} states no capacity (set one to hold the search to it)`;
  }
  showNotice(note);
  afterLoad();
}

function openFile(file) {
  const rd = new FileReader();
  rd.onload = () => {
    let j;
    try { j = JSON.parse(rd.result); } catch (e) {
      clearAllResults();
      // a check still due or under way (the last edit's) must not replace this message
      clearTimeout(state.checkTimer);
      state.checkTimer = 0;
      state.checkSeq = (state.checkSeq || 0) + 1;
      delete $('check-msg').dataset.pending;
      $('check-msg').className = 'msg err';
      $('check-msg').textContent = `${file.name}: not JSON: ${e.message}`;
      // the editor still holds the previous placement: the notice must not speak for it
      showNotice(`${file.name} is not opened (not JSON); the editor still holds ${state.file}`);
      return;
    }
    const o = { type: 'file', name: file.name };
    loaded(j, o, sourceName(o));
    setStatus(`opened ${file.name}`);
  };
  rd.readAsText(file);
}

async function loadBuiltin() {
  await act('bi-load', [], async () => {
    const b = state.info.builtins.find((x) => x.name === $('bi-name').value);
    if (!b) throw new Error('choose a built-in first');
    // chunks only where the built-in takes them (0 for one without: "0 chunks" means nothing)
    const o = { type: 'builtin', name: b.name, ndevs: intOrText($('bi-ndevs').value),
      infer: $('bi-infer').checked, chunks: b.chunks ? parseInt($('bi-chunks').value, 10) || b.chunks : 0 };
    const r = await api('/api/builtin', { name: o.name, ndevs: o.ndevs, infer: o.infer, chunks: o.chunks });
    loaded(r.placement, o, sourceName(o));
    setStatus(`loaded ${o.name} on ${o.ndevs} devices`);
    return '';
  });
}

// A placement derived from a model description (as `tessel placement --model` does); its
// capacity per GPU becomes the memory knob.
async function loadModel() {
  await act('md-load', [], async () => {
    const o = { type: 'model', model: $('md-model').value, hardware: $('md-hw').value,
      gpus: intOrText($('md-gpus').value), strategy: $('md-strategy').value };
    const r = await api('/api/model-placement', { model: o.model, hardware: o.hardware, gpus: o.gpus, strategy: o.strategy });
    loaded(r.placement, o, sourceName(o));
    setStatus(`derived ${o.model} on ${o.gpus} x ${o.hardware}, ${o.strategy}: a step is ${tsFmtTime(r.info.time_unit_s)}`);
    return '';
  });
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

// ---- start ----

const tl = new TsTimeline($('tl'), { onDraw: (t) => {
  $('tl-window').textContent = t.tracks.length ? `steps ${Math.round(t.win[0])}–${Math.round(t.win[1])} of ` +
    `${t.full[0]}–${t.full[1]}` + (units() ? ` (${uTime(t.win[1] - t.win[0])} shown)` : '') + `; ${t.stats.drawMode}` : '';
} });
window.tsTimeline = tl;

function wireTimeline() {
  document.querySelectorAll('input[name="tl"]').forEach((r) => r.addEventListener('change', () => refreshView(true)));
  $('tl-colour').addEventListener('change', () => tl.setMode($('tl-colour').value));
  $('tl-in').addEventListener('click', () => tl.zoom(0.5));
  $('tl-out').addEventListener('click', () => tl.zoom(2));
  $('tl-fit').addEventListener('click', () => tl.setWindow(tl.full[0], tl.full[1]));
  $('tl-stack').addEventListener('click', () => {
    if (!state.schedule) return;
    state.pinned = { schedule: state.schedule, label: state.scheduleLabel };
    $('tl-unstack').hidden = false;
    $('view-info').textContent = `${state.scheduleLabel} is kept: the next schedule you show is stacked above it on one time axis`;
  });
  $('tl-unstack').addEventListener('click', () => { state.pinned = null; $('tl-unstack').hidden = true; refreshView(true); });
}

function wire() {
  $('bi-load').addEventListener('click', loadBuiltin);
  $('bi-name').addEventListener('change', builtinChosen);
  $('pl-name').addEventListener('input', () => { state.placement.name = $('pl-name').value; edited(); });
  $('pl-ndevs').addEventListener('input', () => { state.placement.ndevs = $('pl-ndevs').value; edited(); });
  $('add-block').addEventListener('click', () => {
    state.placement.blocks.push({ id: 'X' + state.placement.blocks.length, kind: 'forward', span: 1, memory: 0, devices: '0' });
    renderEditor(); edited();
  });
  $('add-edge').addEventListener('click', () => {
    const b = state.placement.blocks;
    state.placement.edges.push({ from: b.length ? b[0].id : '', to: b.length > 1 ? b[1].id : '', delay: 0, distance: 0 });
    renderEditor(); edited();
  });
  for (const id of ['k-memory', 'k-n', 'k-time']) $(id).addEventListener('input', () => { scheduleCheck(); updateStale(); });
  $('k-method').addEventListener('change', updateStale);
  // A new N redraws the timeline at it (the schedule unrolls to any N); the figures computed at
  // the old N are greyed until run again.
  $('k-n').addEventListener('input', () => {
    clearTimeout(state.nTimer);
    state.nTimer = setTimeout(() => {
      const n = parseInt($('k-n').value, 10);
      if (state.schedule && n > 0 && String(n) === $('k-n').value.trim()) refreshView(true).then(updateStale);
    }, 250);
  });
  $('wi-knob').addEventListener('change', updateWhatifChoices);
  $('search').addEventListener('click', search);
  $('cancel').addEventListener('click', cancelJob);
  $('baseline').addEventListener('click', baseline);
  $('compare').addEventListener('click', compare);
  $('whatif').addEventListener('click', whatif);
  wireTimeline();
  $('file-open').addEventListener('change', (ev) => { if (ev.target.files[0]) openFile(ev.target.files[0]); });
  const ed = $('editor');
  ed.addEventListener('dragover', (ev) => { ev.preventDefault(); ed.classList.add('dropping'); });
  ed.addEventListener('dragleave', () => ed.classList.remove('dropping'));
  ed.addEventListener('drop', (ev) => {
    ev.preventDefault(); ed.classList.remove('dropping');
    if (ev.dataTransfer.files[0]) openFile(ev.dataTransfer.files[0]);
  });
  // a file keeps its name; a built-in's or model's name is no file name
  $('dl-placement').addEventListener('click', () => download(state.origin.type === 'file' ? state.origin.name : 'placement.json',
    JSON.stringify(placementJson(), null, 1), 'application/json'));
  $('dl-schedule').addEventListener('click', () => state.schedule && download('schedule.json', JSON.stringify(state.schedule, null, 1), 'application/json'));
  $('dl-svg').addEventListener('click', downloadSvg);
  $('dl-trace').addEventListener('click', downloadTrace);
  $('share').addEventListener('click', () => { writeUrl(); $('share-url').select(); });
  window.addEventListener('hashchange', () => { if (location.hash !== state.lastHash) restoreFromHash(); });
}

async function init() {
  wire();
  try { state.info = await api('/api/info'); } catch (e) { setStatus('server unreachable: ' + e.message); return; }
  // the empty choice: no built-in is loaded (a file, a model or a link is)
  $('bi-name').add(new Option('(none)', ''));
  for (const b of state.info.builtins) $('bi-name').add(new Option(b.name, b.name));
  for (const m of state.info.methods) $('k-method').add(new Option(m, m));
  $('k-method').value = 'auto';
  for (const b of state.info.baselines) $('baseline-kind').add(new Option(b.name, b.name));
  $('bi-name').value = 'vshape';
  $('bi-name').dispatchEvent(new Event('change'));
  state.ready = true;
  if (!restoreFromHash()) await loadBuiltin();
  await initModels();
  setStatus('ready');
  document.body.dataset.ready = '1';
}

init();
