"""tessel serve in a real browser (headless Chromium driven by Selenium), walked as a new user
would (issue 28):
 - one state: a search, then opening a file clears every result, resets the memory knob and says
   so; the URL's hash and the page agree after every step;
 - errors where the action is: a cycle, then Search, puts the message beside Search and greys the
   old result;
 - per-device memory: the list as given is drawn and judged, and the page says what the search
   was held to;
 - the command line's numbers: compare tables of three placements, cell by cell against
   `tessel compare` (rows, bound, labels greedy/optimal, fits);
 - the timeline at 32 devices x N = 1024: wheel zoom (each step timed in the browser and
   printed), density then labelled boxes, pan by dragging, the overview brush, a tooltip, colour
   modes and legend, the repetend, two schedules stacked;
 - a model placement in ms and GB, and what-if over the editor's placement;
 - issue 43: each lower bound says which it is, the built-in panel is reset by a file, a load's
   notice names the placement loaded, a built-in is named as such (no placement.json), and
   chunks show only on a built-in that takes them.
Screenshots and the API round-trip times go to OUTDIR.

usage: browser.py TESSEL OUTDIR      (exit 77: no Chromium, chromedriver or Selenium here)"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from serve_util import Server, cli

try:
    from selenium import webdriver
except ImportError:  # a python3 other than the system's (pyenv, venv) lacks Debian's package
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from selenium import webdriver
    except ImportError:
        webdriver = None

TESSEL, OUT = sys.argv[1], sys.argv[2]
CHROME = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")


def start_browser(profile):
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    o.binary_location = CHROME
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage", "--window-size=1600,1200",
                 "--user-data-dir=" + profile]:
        o.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=o)


class Page:
    def __init__(self, drv):
        self.d = drv

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def wait(self, script, what, timeout=60, *args):
        t0 = time.time()
        while time.time() - t0 < timeout:
            v = self.js(script, *args)
            if v:
                return v
            time.sleep(0.05)
        raise AssertionError("timed out waiting for " + what + "; status: " +
                             str(self.js("return document.getElementById('job-status').textContent")))

    def set(self, elem_id, value):
        """Types a value into an input the way a user's edit ends: value, then input/change."""
        self.js("const e = document.getElementById(arguments[0]); e.value = arguments[1];"
                "e.dispatchEvent(new Event('input')); e.dispatchEvent(new Event('change'));",
                elem_id, value)

    def set_cell(self, block, field, value):
        self.js("const i = document.querySelector(`#blocks tr[data-block='${arguments[0]}'] "
                "[data-field='${arguments[1]}']`); i.value = arguments[2];"
                "i.dispatchEvent(new Event('input'));", block, field, value)

    def click(self, elem_id):
        self.js("document.getElementById(arguments[0]).click()", elem_id)

    def checked(self):
        """Waits for the editor's check of the current state; returns LB or the error text."""
        return self.wait("const m = document.getElementById('check-msg');"
                         "if (m.dataset.pending) return null;"
                         "return m.className.includes('err') ? 'error: ' + m.textContent"
                         " : (m.dataset.lb || null)", "the placement check")

    def job(self, button, timeout=120):
        """Presses an action button; returns the state its message ends in (done, failed, ...)."""
        # (a page without the button's message element, as before issue 28: its job line)
        find = ("const m = document.getElementById(arguments[0] + '-msg') ||"
                " document.getElementById('job-status');")
        self.js(find + "m.dataset.state = ''", button)
        self.click(button)
        return self.wait(find + "const s = m.dataset.state;"
                         "return s && s !== 'running' ? s : null", button + " to finish", timeout,
                         button)

    def text(self, elem_id):
        return self.js("const e = document.getElementById(arguments[0]); return e && e.textContent",
                       elem_id)

    def url_agrees(self):
        """The URL's hash holds exactly the page's state (placement, knobs, file, origin)."""
        self.wait("return !document.body.dataset.urlPending", "the URL to follow the page", 10)
        url, page = self.js("return [tsUrlState(), tsPageState()]")
        assert url == page, ("URL and page disagree", url, page)

    def shot(self, elem_id, name):
        el = self.d.find_element("id", elem_id)
        el.screenshot(os.path.join(OUT, name))


def cli_json(*args, cwd=None):
    rc, out, err = cli(TESSEL, *args, cwd=cwd)
    assert rc == 0, (args, err)
    return json.loads(out)


def load_builtin(pg, name, ndevs, nblocks):
    pg.set("bi-name", name)
    pg.set("bi-ndevs", str(ndevs))
    # to the load's end: the page may already show the same built-in, from before
    assert pg.job("bi-load") == "done", pg.text("bi-load-msg")
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === arguments[0] && "
            "document.getElementById('status').textContent.startsWith('loaded ' + arguments[1])",
            "%s/%d's %d blocks" % (name, ndevs, nblocks), 30, nblocks, "%s on %d devices" % (name, ndevs))



def search_and_measure(pg):
    """vshape, 4 devices, memory 4: search, the summary and the replayed timeline as the CLI's."""
    load_builtin(pg, "vshape", 4, 8)
    assert pg.js("return document.getElementById('k-memory').value") == "4"
    pg.set("k-n", "128")
    pg.set("k-method", "lazy")
    lb = int(pg.checked())
    assert pg.job("search") == "done"
    makespan = int(pg.text("makespan"))
    ref = cli_json("search", "--placement", "vshape", "--ndevs", "4", "--memory", "4", "--method",
                   "lazy", "--json")
    bound = cli_json("bound", "--placement", "vshape", "--ndevs", "4", "-n", "128", "--json")
    assert makespan == ref["makespan"] and lb == bound["lower_bound"], (makespan, ref, lb, bound)
    assert pg.text("result-label") == "optimal" and ref["optimal"], pg.text("summary")
    rows = pg.js("return tsTimeline.layout.rows.length")
    assert rows == 4, rows
    pg.js("document.querySelector('input[name=tl][value=replayed]').click()")
    info = pg.wait("const t = document.getElementById('view-info').textContent;"
                   "return t.startsWith('replayed') ? t : null", "the replayed timeline")
    assert ("makespan %d," % makespan) in info, info
    pg.js("document.querySelector('input[name=tl][value=planned]').click()")
    pg.url_agrees()
    # A new N redraws the timeline at it; the summary, computed at 128, says it is for N = 128.
    pg.set("k-n", "64")
    pg.wait("return document.getElementById('view-info').dataset.n === '64'", "the timeline at N = 64")
    got = pg.js("return [document.getElementById('summary-box').classList.contains('stale'),"
                " document.getElementById('summary-stale').textContent,"
                " document.getElementById('timeline-box').classList.contains('stale'), tsTimeline.full[1]]")
    assert got[0] and "N = 128" in got[1] and not got[2] and got[3] < makespan, got
    pg.url_agrees()
    pg.set("k-n", "128")
    pg.wait("return document.getElementById('view-info').dataset.n === '128' && "
            "!document.getElementById('summary-box').classList.contains('stale')", "N back at 128")
    print("vshape/4, memory 4: lazy search makespan %d (CLI %d), LB %d (CLI %d), label optimal; "
          "N = 64 redraws the timeline (ends at %d) and greys the summary" % (
              makespan, ref["makespan"], lb, bound["lower_bound"], got[3]))
    return makespan


def just_search(pg):
    """A search on vshape/4 to have results on the page (what the next items start from)."""
    load_builtin(pg, "vshape", 4, 8)
    pg.set("k-memory", "4")
    pg.checked()
    assert pg.job("search") == "done"


def open_file_after_search(pg, tmp):
    """Opening a file clears every result of the previous placement, resets the memory knob (the
    file states none) and says so; the file's name labels it; the URL follows."""
    pg.set("cmp-methods", "1f1b, lazy")
    assert pg.job("compare") == "done"
    pg.set("wi-knob", "memory")
    pg.set("wi-values", "3-4")
    assert pg.job("whatif") == "done"
    pg.set("k-memory", "512")
    path = os.path.join(tmp, "xshape8.json")
    with open(path, "w") as f:
        f.write(cli(TESSEL, "placement", "xshape", "--ndevs", "8")[1])
    pg.d.find_element("id", "file-open").send_keys(path)
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === 32", "xshape8.json")
    left = pg.js("""return {summary: document.getElementById('summary').textContent,
        tracks: tsTimeline.tracks.length, compare: document.querySelectorAll('#compare-table tbody tr').length,
        whatif: document.querySelectorAll('#whatif-chart circle').length,
        search: document.getElementById('search-msg').textContent,
        job: document.getElementById('job-status').textContent,
        memory: document.getElementById('k-memory').value,
        notice: document.getElementById('load-notice').textContent,
        source: document.getElementById('source').textContent}""")
    assert left["summary"] == "" and left["tracks"] == 0 and left["compare"] == 0, left
    assert left["whatif"] == 0 and left["search"] == "" and left["job"] == "", left
    assert left["memory"] == "none" and "xshape8.json states no capacity" in left["notice"], left
    assert left["source"] == "file xshape8.json", left
    # issue 43: the built-in panel kept describing vshape/4 (with its Load) over the file
    panel = pg.js("return [document.getElementById('bi-name').value, document.getElementById('bi-desc').textContent,"
                  " document.getElementById('bi-ndevs').offsetParent === null]")
    assert panel == ["", "", True], panel
    pg.url_agrees()
    assert pg.js("return tsUrlState().f") == "xshape8.json"
    pg.shot("left", "open-file-after-search.png")
    # A built-in after the file: the header names the built-in, the file input is empty again.
    load_builtin(pg, "vshape", 4, 8)
    got = pg.js("return [document.getElementById('source').textContent,"
                " document.getElementById('file-open').value, document.getElementById('file-label').textContent]")
    assert got == ["built-in vshape, 4 devices", "", ""], got
    pg.url_agrees()
    print("open a file after a search: summary, timeline, compare, what-if and messages cleared; "
          "memory 512 -> none with a notice; header '%s'; built-in panel reset (%s)" % (got[0], panel))


def cycle_then_search(pg):
    """A cycle, then Search: the command line's message beside Search, the old result greyed."""
    assert pg.job("search") == "done"
    pg.click("add-edge")
    n = pg.js("return document.querySelectorAll('#edges tbody tr').length")
    pg.js("const r = document.querySelectorAll('#edges tbody tr')[arguments[0] - 1];"
          "const f = r.querySelector('[data-field=from]'), t = r.querySelector('[data-field=to]');"
          "f.value = 'B0'; f.dispatchEvent(new Event('input'));"
          "t.value = 'F0'; t.dispatchEvent(new Event('input'));", n)
    err = pg.checked()
    assert err.startswith("error: "), err
    assert pg.job("search") == "failed"
    msg = pg.text("search-msg")
    # issue 43: the built-in is named as what it is, not as a placement.json that does not exist
    name = pg.js("return tsPageState().f")
    assert name == "vshape on 4 devices" and "placement.json" not in msg and name in msg, (name, msg)
    with tempfile.TemporaryDirectory() as d:
        # the CLI on a file of that name says the same
        with open(os.path.join(d, name), "w") as f:
            json.dump(pg.js("return window.tsPlacementJson()"), f)
        rc, _, cerr = cli(TESSEL, "bound", name, "-n", "128", cwd=d)
    want = cerr.strip()[len("tessel bound: "):]
    assert rc == 2 and msg == "cannot search: " + want, (msg, cerr)
    greyed = pg.js("return ['summary-box', 'timeline-box'].map(i => document.getElementById(i).classList.contains('stale'))")
    assert greyed == [True, True], greyed
    assert "previous" in pg.text("summary-stale"), pg.text("summary-stale")
    assert "done" not in pg.text("job-status"), pg.text("job-status")
    pg.shot("main", "cycle-then-search.png")
    pg.js("document.querySelector('#edges tbody tr:last-child button').click()")
    pg.checked()
    # Back to the state the result was for: it is current again.
    pg.wait("return !document.getElementById('summary-box').classList.contains('stale')", "the result to be current")
    pg.url_agrees()
    pg.set("k-memory", "abc")
    assert pg.job("search") == "failed"
    mmsg = pg.text("search-msg")
    assert mmsg.startswith("cannot search: request: field 'memory'"), mmsg
    assert pg.js("return document.getElementById('summary-box').classList.contains('stale')")
    pg.set("k-memory", "4")
    pg.checked()
    print("cycle then Search: \"%s\" beside Search; summary and timeline greyed; memory abc: \"%s\""
          % (msg, mmsg))


def per_device_memory(pg):
    """memory 8,4,4,4: the list is drawn and judged as given, and the search holds each device to
    its own capacity (no notice of a capacity pulled down to one)."""
    pg.set("k-memory", "8,4,4,4")
    pg.checked()
    assert pg.job("search") == "done"
    got = pg.js("return [tsTimeline.capacity, document.getElementById('mem-notice').hidden,"
                " document.getElementById('mem-notice').textContent, document.getElementById('summary').textContent]")
    assert got[0] == [8, 4, 4, 4], got
    assert "memory 8,4,4,4" in got[3], got[3]
    assert got[1], got  # the search took the list: nothing to say
    pg.set("cmp-methods", "1f1b, lazy")
    assert pg.job("compare") == "done"
    head = pg.text("compare-head")
    assert "memory 8,4,4,4" in head and "held every device" not in pg.text("compare-notice"), head
    pg.shot("right", "per-device-memory.png")
    pg.url_agrees()
    print("per-device memory 8,4,4,4: chart capacities %s; notice: %s" % (got[0], got[2][:70]))
    pg.set("k-memory", "4")


def compare_rows(pg):
    """The page's compare table, cell by cell, against `tessel compare` (CSV and the table's head)."""
    rows = pg.js("""return Array.from(document.querySelectorAll('#compare-table tbody tr')).map(tr => {
        const o = {}; for (const td of tr.cells) o[td.className.slice(2)] = td.textContent; return o; })""")
    return rows, pg.text("compare-head")


def compare_against_cli(pg, name, ndevs, nblocks, memory, methods):
    load_builtin(pg, name, ndevs, nblocks)
    pg.set("k-memory", str(memory))
    pg.set("k-time", "10")
    pg.checked()
    pg.set("cmp-methods", methods)
    assert pg.job("compare") == "done", pg.text("compare-msg")
    rows, head = compare_rows(pg)
    args = ["compare", "--placement", name, "--ndevs", str(ndevs), "--memory", str(memory),
            "--methods", methods.replace(" ", ""), "-t", "10"]
    rc, table, err = cli(TESSEL, *args)
    assert rc == 0, err
    assert head == table.splitlines()[0], (head, table.splitlines()[0])
    rc, csv_text, err = cli(TESSEL, *args, "--csv")
    import csv
    want = list(csv.DictReader(csv_text.splitlines()))
    assert len(want) == len(rows), (rows, want)
    for r, w in zip(rows, want):
        assert r["method"] == w["method"] and r["status"] == w["status"], (r, w)
        assert r["k"] == (w["k"] or "-") and r["period"] == (w["period"] or "-"), (r, w)
        assert r["makespan"] == (w["makespan"] or "-") and r["peak"] == (w["peak_memory"] or "-"), (r, w)
        assert r["fits"] == (w["fits"] or "-") and (r["best"] == "*") == (w["best"] == "yes"), (r, w)
        if w["makespan"]:
            if w["makespan_over_lb"]:
                assert abs(float(r["ratio"]) - float(w["makespan_over_lb"])) < 6e-4, (r, w)
            else:  # over the memory: no ratio to the bound within it, on the page as in the CSV
                assert r["ratio"] == "-", (r, w)
            assert abs(float(r["bubbles"][:-1]) - 100 * float(w["bubble_rate"])) < 6e-3, (r, w)
    labels = pg.js("return Array.from(document.querySelectorAll('#compare-table tbody tr')).map(t => t.dataset.label || '')")
    print("compare %s/%d memory %s [%s]: %d rows match the CLI; %s; labels %s" % (
        name, ndevs, memory, methods, len(rows), head.split(", ")[-1], labels))
    return labels


def compares(pg):
    labels = compare_against_cli(pg, "vshape", 4, 8, 4, "1f1b, gpipe, lazy, modulo")
    assert "optimal" in labels
    labels = compare_against_cli(pg, "xshape", 8, 32, 8, "full, 1f1b, modulo")
    assert labels[0] == "greedy" and labels[1] == "no schedule", labels
    pg.shot("compare-box", "compare-xshape8.png")
    compare_against_cli(pg, "mshape", 8, 18, 8, "1f1b, full, modulo")
    # the sharded block's devices cell shows every device
    cut = pg.js("return Array.from(document.querySelectorAll('#blocks [data-field=devices]'))"
                ".filter(i => i.scrollWidth > i.clientWidth + 1).map(i => i.value)")
    assert cut == [], cut


def zoom_big(pg):
    """32 devices x N = 1024: wheel zoom steps timed in the browser; density at the wide view,
    labelled boxes at a close one; drag pans; the brush sets the window; tooltip; stacking."""
    load_builtin(pg, "vshape", 32, 64)
    pg.set("k-n", "1024")
    pg.checked()
    pg.set("baseline-kind", "1f1b")
    assert pg.job("baseline", 60) == "done", pg.text("baseline-msg")
    pg.wait("return tsTimeline.tracks.length === 1 && tsTimeline.layout.rows.length === 32", "32 rows")
    wide = pg.js("return [tsTimeline.stats.drawMode, tsTimeline.win, tsTimeline.full]")
    assert wide[0] == "density" and wide[1] == wide[2], wide
    pg.shot("timeline-box", "timeline-32x1024-wide.png")
    # the memory chart and the rows share one time axis: same canvas width and left edge
    a = pg.js("const m = tsTimeline.main.getBoundingClientRect(), q = tsTimeline.mem.getBoundingClientRect(),"
              " o = tsTimeline.over.getBoundingClientRect(); return [m.left, q.left, o.left, m.width, q.width, o.width]")
    assert a[0] == a[1] == a[2] and a[3] == a[4] == a[5], a
    steps = pg.js("""const c = tsTimeline.main, r = c.getBoundingClientRect(), out = [];
        for (let i = 0; i < 10; i++) {
          const t0 = performance.now();
          c.dispatchEvent(new WheelEvent('wheel', {deltaY: -400, clientX: r.left + r.width * 0.45,
            clientY: r.top + 60, bubbles: true, cancelable: true}));
          out.push([performance.now() - t0, tsTimeline.win[1] - tsTimeline.win[0], tsTimeline.stats.drawMode]);
        }
        return out;""")
    # the same steps to the next painted frame (raster included)
    frame = pg.d.execute_async_script("""const done = arguments[arguments.length - 1];
        const c = tsTimeline.main, r = c.getBoundingClientRect(), out = [];
        tsTimeline.setWindow(tsTimeline.full[0], tsTimeline.full[1]);
        let i = 0;
        const step = () => {
          if (i++ === 10) { done(out); return; }
          const t0 = performance.now();
          c.dispatchEvent(new WheelEvent('wheel', {deltaY: -400, clientX: r.left + r.width * 0.45,
            clientY: r.top + 60, bubbles: true, cancelable: true}));
          requestAnimationFrame(() => setTimeout(() => { out.push(performance.now() - t0); step(); }, 0));
        };
        // start after the whole-run view has been painted, so the first step measures itself
        requestAnimationFrame(() => setTimeout(step, 0));""")
    ms = [s[0] for s in steps]
    widths = [s[1] for s in steps]
    assert all(widths[i + 1] < widths[i] for i in range(len(widths) - 1)), widths
    close = pg.js("return [tsTimeline.stats.drawMode, tsTimeline.stats.labels]")
    assert close[0] == "boxes" and close[1] > 0, close
    pg.shot("timeline-box", "timeline-32x1024-zoomed.png")
    with open(os.path.join(OUT, "zoom-steps.json"), "w") as f:
        json.dump({"draw_ms": ms, "to_frame_ms": frame, "window": widths}, f, indent=1)
    print("zoom at 32 devices x N = 1024 (65,536 boxes): %d wheel steps, window %d -> %d steps; "
          "draw per step median %.1f ms, max %.1f ms; to the next frame median %.1f ms, max %.1f ms"
          % (len(ms), wide[2][1] - wide[2][0], widths[-1], statistics.median(ms), max(ms),
             statistics.median(frame), max(frame)))
    print("  draw modes: wide %s, close %s with %d labels" % (wide[0], close[0], close[1]))
    # drag pans later in time
    w0 = pg.js("return tsTimeline.win.slice()")
    pg.js("""const c = tsTimeline.main, r = c.getBoundingClientRect(), y = r.top + 60;
        c.dispatchEvent(new MouseEvent('mousedown', {clientX: r.left + 600, clientY: y, bubbles: true}));
        window.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + 300, clientY: y, bubbles: true}));
        window.dispatchEvent(new MouseEvent('mouseup', {clientX: r.left + 300, clientY: y, bubbles: true}));""")
    w1 = pg.js("return tsTimeline.win.slice()")
    assert w1[0] > w0[0] and abs((w1[1] - w1[0]) - (w0[1] - w0[0])) < 1e-6, (w0, w1)
    # the overview brush: draw a window over the middle fifth of the run
    pg.js("""const o = tsTimeline.over, r = o.getBoundingClientRect(), y = r.top + 10;
        const x = (f) => r.left + 74 + f * (r.width - 84);
        o.dispatchEvent(new MouseEvent('mousedown', {clientX: x(0.4), clientY: y, bubbles: true}));
        window.dispatchEvent(new MouseEvent('mousemove', {clientX: x(0.6), clientY: y, bubbles: true}));
        window.dispatchEvent(new MouseEvent('mouseup', {clientX: x(0.6), clientY: y, bubbles: true}));""")
    w2, full = pg.js("return [tsTimeline.win.slice(), tsTimeline.full]")
    span = full[1] - full[0]
    assert abs(w2[0] - (full[0] + 0.4 * span)) < 0.01 * span and abs(w2[1] - (full[0] + 0.6 * span)) < 0.01 * span, (w2, full)
    # tooltip over dev 0 in a close window
    pg.js("tsTimeline.setWindow(400, 440)")
    tip = pg.js("""const c = tsTimeline.main, r = c.getBoundingClientRect(), row = tsTimeline.layout.rows[0];
        for (let x = 80; x < r.width - 20; x += 3) {
          c.dispatchEvent(new MouseEvent('mousemove', {clientX: r.left + x, clientY: r.top + row.y + row.h / 2, bubbles: true}));
          if (!tsTimeline.tip.hidden && tsTimeline.tip.textContent.includes('micro-batch')) return tsTimeline.tip.textContent;
        }
        return tsTimeline.tip.textContent;""")
    assert "micro-batch" in tip and "steps" in tip, tip
    print("  drag panned %.0f -> %.0f; brush set %.0f-%.0f; tooltip: %s" % (
        w0[0], w1[0], w2[0], w2[1], tip.replace("\n", "; ")))


def colours_and_stack(pg):
    """xshape/8: colour by chain tells its two towers apart; the repetend is shaded; a baseline of
    the search kept below and the search stacked above on one axis."""
    load_builtin(pg, "xshape", 8, 32)
    pg.set("k-n", "128")
    pg.set("k-method", "modulo")
    pg.checked()
    assert pg.job("search") == "done"
    pg.set("tl-colour", "chain")
    legend = pg.js("return Array.from(document.querySelectorAll('#tl .tl-legend .tl-key')).map(k => k.textContent)")
    chains = [k for k in legend if k.startswith("chain")]
    assert len(chains) >= 2 and any("repetend" in k for k in legend), legend
    rep = pg.js("return tsTimeline.tracks[0].view.repetend")
    assert rep and rep["period"] > 0, rep
    pg.shot("timeline-box", "timeline-xshape8-chains.png")
    pg.set("tl-colour", "kind")
    kinds = pg.js("return Array.from(document.querySelectorAll('#tl .tl-legend .tl-key')).map(k => k.textContent)")
    assert kinds[:2] == ["forward", "backward"], kinds
    pg.click("tl-stack")
    pg.set("baseline-kind", "chimera")
    state = pg.job("baseline")
    if state != "done":  # a baseline kind of this build that fits xshape
        pg.set("baseline-kind", pg.js("return Array.from(document.getElementById('baseline-kind').options)"
                                      ".map(o => o.value).find(v => v.startsWith('chimera')) || 'gpipe'"))
        assert pg.job("baseline") == "done", pg.text("baseline-msg")
    got = pg.js("return [tsTimeline.tracks.length, tsTimeline.tracks.map(t => t.label), tsTimeline.layout.rows.length]")
    assert got[0] == 2 and got[2] == 16, got
    pg.set("tl-colour", "block")
    pg.shot("timeline-box", "timeline-stacked.png")
    print("xshape/8: %d chains in the legend, repetend period %d shaded; stacked: %s" % (
        len(chains), rep["period"], " above ".join(got[1])))
    pg.click("tl-unstack")


def model_units(pg):
    """gpt3-13b on 8 x a100-80gb, 1f1b: the memory knob becomes its capacity (said so), spans and
    memory show ms and GB as `tessel placement --model` prints them, figures in ms."""
    margs = ["--model", "gpt3-13b", "--hardware", "a100-80gb", "--gpus", "8", "--strategy", "1f1b"]
    want = cli_json("placement", *margs)
    rc, table, _ = cli(TESSEL, "placement", *margs, "--explain") if False else (0, "", "")
    pg.set("md-model", "gpt3-13b")
    pg.set("md-hw", "a100-80gb")
    pg.set("md-gpus", "8")
    pg.set("md-strategy", "1f1b")
    pg.click("md-load")
    pg.wait("return document.getElementById('source').textContent.startsWith('derived gpt3-13b')",
            "the derived placement")
    lb = pg.checked()
    assert not str(lb).startswith("error"), lb
    got = pg.js("return [document.querySelectorAll('#blocks tbody tr').length,"
                " document.getElementById('k-memory').value, document.getElementById('load-notice').textContent,"
                " Array.from(document.querySelectorAll('#blocks tbody tr')).map(r => [r.querySelector('[data-unit=span]').textContent,"
                " r.querySelector('[data-unit=memory]').textContent]), document.getElementById('check-msg').textContent]")
    assert got[0] == len(want["blocks"]) and got[1] == str(want["capacity"]), got[:2]
    assert ("memory set to %d" % want["capacity"]) in got[2], got[2]
    u = want["units"]
    for b, (ms, gb) in zip(want["blocks"], got[3]):
        d = b["devices"][0]
        assert ms.endswith(" ms") and abs(float(ms[:-3]) - b["span"] * u["time_s"] * 1e3) < 0.05, (b, ms)
        assert gb.endswith(" GB") and abs(float(gb[:-3]) - b["memory"] * u["memory_bytes"][d] / 1e9) < 0.006, (b, gb)
    assert " s)" in got[4] or " ms)" in got[4], got[4]
    pg.set("k-method", "modulo")
    assert pg.job("search") == "done"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "gpt.json"), "w") as f:
            json.dump(want, f)
        ref = cli_json("search", "gpt.json", "--memory", str(want["capacity"]), "--method", "modulo", "--json", cwd=d)
    mk, unit = int(pg.text("makespan")), pg.text("makespan-unit")
    assert mk == ref["makespan"], (mk, ref["makespan"])
    secs = ref["makespan"] * u["time_s"]
    assert unit.endswith(" s") and abs(float(unit[:-2]) - secs) < 0.06, (unit, secs)
    assert "GB" in pg.text("peak-unit")
    pg.url_agrees()
    pg.shot("main", "model-units.png")
    print("model gpt3-13b/8 x a100-80gb 1f1b: memory knob %s (notice), F0 %s / %s, makespan %d = %s "
          "(CLI %d x %.4f s)" % (got[1], got[3][0][0], got[3][0][1], mk, unit, ref["makespan"], u["time_s"]))
    # what-if over the GPU count re-derives the model; an edit takes that choice away
    opt = pg.js("return [document.querySelector('#wi-knob option[value=ndevs]').disabled,"
                " document.querySelector('#wi-knob option[value=ndevs]').textContent]")
    assert opt[0] is False and "gpt3-13b" in opt[1], opt
    pg.set("wi-knob", "ndevs")
    pg.set("wi-values", "4,8")
    assert pg.job("whatif") == "done", pg.text("whatif-msg")
    pts = pg.js("return document.querySelectorAll('#whatif-chart circle.pt').length")
    assert pts == 2, pts
    pg.set_cell("F0", "span", "5")
    opt = pg.js("return [document.querySelector('#wi-knob option[value=ndevs]').disabled, document.getElementById('wi-knob').value]")
    assert opt == [True, "memory"], opt
    assert pg.js("return document.getElementById('whatif-box').classList.contains('stale')")
    print("what-if over GPUs 4,8 of gpt3-13b: %d points; after an edit the device sweep is off: %s" % (pts, opt))


def whatif_editor(pg):
    """What-if sweeps the placement in the editor: an edited span shows in every point's bound."""
    load_builtin(pg, "vshape", 4, 8)
    pg.set("k-n", "128")
    pg.set("k-method", "lazy")
    pg.set_cell("F0", "span", "3")
    lb = int(pg.checked())
    pg.set("wi-knob", "n")
    pg.set("wi-values", "128")
    assert pg.job("whatif") == "done"
    title = pg.js("return document.querySelector('#whatif-chart circle.pt title').textContent")
    assert ("LB %d" % lb) in title, (title, lb)
    # an edited built-in cannot be re-made at another device count: the choice says so
    opt = pg.js("const o = document.querySelector('#wi-knob option[value=ndevs]'); return [o.disabled, o.textContent]")
    assert opt == [True, "devices (only an unedited built-in or model)"], opt
    pg.set("wi-knob", "time_limit")
    pg.set("wi-values", "1,2")
    assert pg.job("whatif") == "done", pg.text("whatif-msg")
    assert "time limit" in pg.text("wi-hint") and "as edited" in pg.text("wi-hint"), pg.text("wi-hint")
    pg.set("wi-knob", "memory")
    pg.set("wi-values", "1-8")
    assert pg.job("whatif") == "done"
    n = pg.js("return document.querySelectorAll('#whatif-chart circle.pt').length")
    pg.shot("whatif-box", "whatif-memory.png")
    print("what-if on the edited vshape/4 (F0 span 3): N=128 point's LB %d = the editor's; memory 1..8: %d points" % (lb, n))
    pg.set_cell("F0", "span", "1")


def edit_and_refuse(pg):
    """A longer span changes the makespan (as the CLI finds it); a negative one gets the CLI's words."""
    load_builtin(pg, "vshape", 4, 8)
    pg.set("k-method", "lazy")
    pg.set("k-n", "128")
    pg.set_cell("F0", "span", "3")
    pg.checked()
    assert pg.job("search") == "done"
    new = int(pg.text("makespan"))
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "placement.json"), "w") as f:
            json.dump(pg.js("return window.tsPlacementJson()"), f)
        ref = json.loads(cli(TESSEL, "search", "placement.json", "--memory", "4", "--method",
                             "lazy", "--json", cwd=d)[1])
        assert new == ref["makespan"], (new, ref["makespan"])
        pg.shot("editor", "editor.png")
        pg.set_cell("F0", "span", "-2")
        assert pg.checked().startswith("error: ")
        msg = pg.wait("const r = document.querySelector(\"#blocks tr[data-block='F0']\");"
                      "const m = r && r.querySelector('.field-msg'); return m && m.textContent",
                      "the message next to F0's span")
        # the page names the built-in by what it is: the CLI on a file of that name
        name = pg.js("return tsPageState().f")
        with open(os.path.join(d, name), "w") as f:
            json.dump(pg.js("return window.tsPlacementJson()"), f)
        rc, _, err = cli(TESSEL, "bound", name, "-n", "128", cwd=d)
    assert rc == 2 and msg == err.strip()[len("tessel bound: "):], (msg, err)
    pg.shot("editor", "editor-negative-span.png")
    pg.set_cell("F0", "span", "1")
    print("span of F0 = 3: makespan %d (CLI %d); span -2: \"%s\"" % (new, ref["makespan"], msg))


def bounds_say_which(pg):
    """Issue 43: the check's LB (within the memory knob), a baseline's own (it carries no memory)
    and the compare table's /LB (within the compare's memory) are different figures: each label
    says which bound it is."""
    load_builtin(pg, "vshape", 4, 8)
    pg.set("k-memory", "2")
    pg.set("k-n", "128")
    lb = int(pg.checked())
    pg.set("baseline-kind", "1f1b")
    assert pg.job("baseline") == "done", pg.text("baseline-msg")
    own = cli_json("bound", "--placement", "vshape", "--ndevs", "4", "-n", "128", "--json")["lower_bound"]
    base = [pg.text("summary"), pg.text("view-info")]
    pg.set("cmp-methods", "1f1b")
    assert pg.job("compare") == "done", pg.text("compare-msg")
    col = pg.js("return document.querySelector('#compare-table th:nth-child(6)').textContent")
    pg.js("document.querySelector('#compare-table tbody tr[data-method=\"1f1b\"]').click()")
    row = pg.wait("const t = document.getElementById('summary').textContent;"
                  "return t.startsWith('1f1b,') ? t : null", "the 1f1b row's summary")
    check = pg.text("check-msg")
    assert (("LB at N = 128 within memory 2 = %d" % lb) in check and lb != own
            and ("LB (ignoring memory) %d" % own) in base[0] and ("LB (ignoring memory) %d" % own) in base[1]
            and col == "/LB (within memory 2)" and ("LB (within memory 2) %d" % lb) in row), (check, base, col, row)
    print("bounds: the check's 'LB at N = 128 within memory 2 = %d'; the 1f1b baseline's own "
          "'LB (ignoring memory) %d'; compare column '%s'" % (lb, own, col))
    pg.set("k-memory", "4")


def notice_names_new(pg, tmp):
    """Issue 43: a load's notice names the placement loaded (it said 'on vshape' for xshape), and a
    file that cannot be opened leaves a notice naming it and what the editor still holds."""
    load_builtin(pg, "xshape", 8, 32)
    note = pg.text("load-notice")
    bad = os.path.join(tmp, "broken.json")
    with open(bad, "w") as f:
        f.write("{not json")
    pg.d.find_element("id", "file-open").send_keys(bad)
    pg.wait("return document.getElementById('check-msg').textContent.startsWith('broken.json')", "broken.json")
    after = pg.text("load-notice")
    assert (note.startswith("xshape on 8 devices: memory set to 8") and "vshape" not in note
            and after == "broken.json is not opened (not JSON); the editor still holds xshape on 8 devices"), (note, after)
    print("notices: '%s'; '%s'" % (note, after))


def chunks_where_taken(pg):
    """Issue 43: a built-in without chunks showed 'chunks 0'; the field shows only for one that
    takes chunks, at its default, and the header says how many it was loaded with."""
    pg.set("bi-name", "vshape")
    plain = pg.js("return document.getElementById('bi-chunks').offsetParent === null")
    pg.set("bi-name", "vshape_interleaved")
    pg.set("bi-ndevs", "4")
    shown = pg.js("return [document.getElementById('bi-chunks').offsetParent !== null,"
                  " document.getElementById('bi-chunks').value]")
    pg.click("bi-load")
    src = pg.wait("const t = document.getElementById('source').textContent;"
                  "return t.startsWith('built-in vshape_interleaved') ? t : null", "vshape_interleaved")
    assert plain and shown == [True, "2"] and src == "built-in vshape_interleaved, 4 devices, 2 chunks per device", (plain, shown, src)
    print("chunks: hidden for vshape, %s for vshape_interleaved; header '%s'" % (shown[1], src))


def cancel_long(pg, srv):
    load_builtin(pg, "xshape", 8, 32)
    pg.set("k-memory", "5")
    pg.set("k-time", "120")
    pg.set("k-method", "lazy")
    pg.checked()
    pg.js("document.getElementById('search-msg').dataset.state = '';"
          "document.getElementById('search').click()")
    pg.wait("return document.getElementById('job-status').textContent.includes('running')",
            "the long search to run")
    time.sleep(1.0)
    t0 = time.time()
    pg.click("cancel")
    pg.wait("return document.getElementById('job-status').dataset.state === 'cancelled' && "
            "document.getElementById('search-msg').dataset.state === 'cancelled'",
            "the page to say cancelled", 10)
    while srv.children() and time.time() - t0 < 10:
        time.sleep(0.05)
    assert not srv.children(), "the cancelled search's worker still runs"
    print("cancel: page says cancelled and the worker is gone %.2f s after the click" %
          (time.time() - t0))
    pg.set("k-time", "10")


def share_roundtrip(pg):
    """The URL holds the placement and knobs: loading it in a fresh page restores the editor."""
    load_builtin(pg, "vshape", 4, 8)
    pg.set_cell("B0", "span", "5")
    pg.set("k-memory", "3,4,5,6")
    pg.checked()
    pg.url_agrees()
    pg.click("share")
    url = pg.wait("return document.getElementById('share-url').value", "the share link")
    assert url == pg.d.current_url, (url, pg.d.current_url)
    pg.d.get("about:blank")
    pg.d.get(url)
    pg.wait("return document.body.dataset.ready === '1'", "the shared page to load")
    got = pg.js("return [document.querySelector(\"#blocks tr[data-block='B0'] [data-field=span]\")"
                ".value, document.getElementById('k-memory').value,"
                " document.querySelectorAll('#blocks tbody tr').length, document.getElementById('source').textContent]")
    assert got == ["5", "3,4,5,6", 8, "built-in vshape, 4 devices (edited)"], got
    pg.url_agrees()
    print("share link (%d characters) restores the edited placement and knobs: %s" % (len(url), got[3]))


def report_timings(pg, first, last, name, what):
    t = pg.js("return window.tsTimings")[first:last]
    by = {}
    for x in t:
        if x["path"] != "/api/jobs":  # starting a search is the search, not the interface
            by.setdefault(x["path"], []).append(x["ms"])
    with open(os.path.join(OUT, "timings-%s.json" % name), "w") as f:
        json.dump(by, f, indent=1)
    print("API round trips seen by the page, %s (ms): " % what + "; ".join(
        "%s n=%d median %.1f max %.1f" % (k, len(v), statistics.median(v), max(v))
        for k, v in sorted(by.items())))


def each_item(pg, srv, tmp):
    """TESSEL_BROWSER_EACH=1: every item on a fresh page, each reported passed or failed, so that
    a run against an older build shows which items it fails."""
    items = [("search", search_and_measure), ("a file after a search",
                                               lambda p: (just_search(p), open_file_after_search(p, tmp))),
             ("a cycle then Search", lambda p: (just_search(p), cycle_then_search(p))),
             ("per-device memory", per_device_memory), ("compare against the CLI", compares),
             ("zoom at 32 x 1024", zoom_big), ("colours and stacking", colours_and_stack),
             ("a model in ms and GB", model_units), ("what-if on the editor", whatif_editor),
             ("each bound says which", bounds_say_which),
             ("a notice names the placement loaded", lambda p: notice_names_new(p, tmp)),
             ("chunks only where taken", chunks_where_taken)]
    failed = []
    for name, fn in items:
        pg.d.get(srv.url + "?fresh")
        pg.wait("return document.body.dataset.ready === '1'", "the page to load")
        try:
            fn(pg)
            print("PASS %s" % name)
        except Exception as e:  # report and go on: the point is the list
            failed.append(name)
            print("FAIL %s: %s" % (name, str(e).splitlines()[0][:160] if str(e) else type(e).__name__))
    print("%d of %d items failed" % (len(failed), len(items)))
    return 1 if failed else 0


def main():
    if webdriver is None or not CHROME or not DRIVER:
        print("skipped: needs chromium, chromedriver and python3-selenium")
        return 77
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    srv = Server(TESSEL, "--max-searches", "2")
    profile = tempfile.mkdtemp(prefix="tessel-chromium-")
    tmp = tempfile.mkdtemp(prefix="tessel-browser-")
    drv = None
    try:
        drv = start_browser(profile)
        drv.set_script_timeout(60)
        pg = Page(drv)
        drv.get(srv.url)
        pg.wait("return document.body.dataset.ready === '1'", "the page to load")
        if os.environ.get("TESSEL_BROWSER_EACH"):
            return each_item(pg, srv, tmp)
        search_and_measure(pg)
        open_file_after_search(pg, tmp)
        cycle_then_search(pg)
        per_device_memory(pg)
        n4 = pg.js("return window.tsTimings.length")
        compares(pg)
        zoom_big(pg)
        colours_and_stack(pg)
        model_units(pg)
        whatif_editor(pg)
        edit_and_refuse(pg)
        bounds_say_which(pg)
        notice_names_new(pg, tmp)
        chunks_where_taken(pg)
        cancel_long(pg, srv)
        drv.save_screenshot(os.path.join(OUT, "explorer.png"))
        report_timings(pg, 0, n4, "vshape4", "on 4-device vshape")
        report_timings(pg, n4, None, "others", "on the compares, vshape/32 x 1024, xshape/8, a model")
        share_roundtrip(pg)
    except Exception:
        if drv:
            drv.save_screenshot(os.path.join(OUT, "failure.png"))
        raise
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
        if srv.alive():
            srv.stop()
    print("browser test: %.1f s; screenshots in %s" % (time.time() - t0, OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
