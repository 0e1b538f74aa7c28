"""tessel serve in a real browser (headless Chromium driven by Selenium): load the page, pick
vshape on 4 devices with memory 4 and search, see 4 device rows and the compare table's LB (both
as the command line gives them), edit a span and see the makespan change, enter a negative span
and see the command line's message next to the field, cancel a long search; then a 32-device
timeline and a what-if chart. Screenshots and the API round-trip times go to OUTDIR.

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
        self.js("document.getElementById('job-status').dataset.state = ''")
        self.click(button)
        return self.wait("const s = document.getElementById('job-status').dataset.state;"
                         "return s && s !== 'running' ? s : null", button + " to finish", timeout)

    def shot(self, elem_id, name):
        el = self.d.find_element("id", elem_id)
        el.screenshot(os.path.join(OUT, name))


def cli_json(*args):
    rc, out, err = cli(TESSEL, *args)
    assert rc == 0, (args, err)
    return json.loads(out)


def search_and_measure(pg):
    """vshape, 4 devices, memory 4: search, 4 device rows, compare's LB = the command line's."""
    pg.set("bi-name", "vshape")
    pg.set("bi-ndevs", "4")
    pg.click("bi-load")
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === 8", "vshape's 8 blocks")
    pg.set("k-memory", "4")
    pg.set("k-n", "128")
    pg.set("k-method", "lazy")
    lb = int(pg.checked())
    assert pg.job("search") == "done"
    pg.wait("return document.querySelector('#timeline svg') && document.getElementById('makespan')",
            "the timeline")
    rows = pg.js("return Array.from(document.querySelectorAll('#timeline g.devices text'))"
                 ".map(t => t.textContent)")
    assert rows == ["dev %d" % d for d in range(4)], rows
    makespan = int(pg.js("return document.getElementById('makespan').textContent"))
    ref = cli_json("search", "--placement", "vshape", "--ndevs", "4", "--memory", "4", "--json")
    bound = cli_json("bound", "--placement", "vshape", "--ndevs", "4", "-n", "128", "--json")
    assert makespan == ref["makespan"] and lb == bound["lower_bound"], (makespan, ref, lb, bound)
    pg.shot("timeline-box", "timeline-vshape4.png")
    # The replayed timeline is the one the summary measures (as `tessel search --json` does).
    pg.js("document.querySelector('input[name=tl][value=replayed]').click()")
    info = pg.wait("const t = document.getElementById('view-info').textContent;"
                   "return t.startsWith('replayed') ? t : null", "the replayed timeline")
    assert ("makespan %d," % makespan) in info, info
    pg.js("document.querySelector('input[name=tl][value=planned]').click()")
    pg.set("cmp-methods", "1f1b, lazy, modulo")
    state = pg.job("compare")
    assert state == "done", (state, pg.js("return document.getElementById('job-status').textContent"))
    cells = pg.js("return Array.from(document.querySelectorAll('#compare-table tbody td.c-lb'))"
                  ".map(t => t.textContent)")
    assert cells == [str(bound["lower_bound"])] * 3, cells
    best = pg.js("return document.querySelector('#compare-table tr.best').dataset.method")
    pg.js("document.querySelector('#compare-table tr.best').click()")
    print("vshape/4, memory 4: %d device rows, makespan %d (CLI %d), compare LB %s (CLI %d), best "
          "row %s" % (len(rows), makespan, ref["makespan"], cells[0], bound["lower_bound"], best))
    return makespan


def edit_and_refuse(pg, makespan):
    """A longer span changes the makespan (as the CLI finds it); a negative one gets the CLI's words."""
    pg.set_cell("F0", "span", "3")
    pg.checked()
    assert pg.job("search") == "done"
    new = int(pg.wait("const m = document.getElementById('makespan');"
                      "return m && m.textContent !== arguments[0] ? m.textContent : null",
                      "the makespan to change", 60, str(makespan)))
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
        with open(os.path.join(d, "placement.json"), "w") as f:
            json.dump(pg.js("return window.tsPlacementJson()"), f)
        rc, _, err = cli(TESSEL, "bound", "placement.json", "-n", "128", cwd=d)
    assert rc == 2 and msg == err.strip()[len("tessel bound: "):], (msg, err)
    pg.shot("editor", "editor-negative-span.png")
    pg.set_cell("F0", "span", "1")
    print("span of F0 = 3: makespan %d -> %d (CLI %d); span -2: \"%s\"" % (makespan, new,
                                                                         ref["makespan"], msg))


def cancel_long(pg, srv):
    pg.set("bi-name", "xshape")
    pg.set("bi-ndevs", "8")
    pg.click("bi-load")
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === 32", "xshape/8")
    pg.set("k-memory", "5")
    pg.set("k-time", "120")
    pg.checked()
    pg.js("document.getElementById('job-status').dataset.state = '';"
          "document.getElementById('search').click()")
    pg.wait("return document.getElementById('job-status').textContent.includes('running')",
            "the long search to run")
    time.sleep(1.0)
    t0 = time.time()
    pg.click("cancel")
    pg.wait("return document.getElementById('job-status').dataset.state === 'cancelled'",
            "the page to say cancelled", 10)
    while srv.children() and time.time() - t0 < 10:
        time.sleep(0.05)
    assert not srv.children(), "the cancelled search's worker still runs"
    print("cancel: page says cancelled and the worker is gone %.2f s after the click" %
          (time.time() - t0))
    pg.set("k-time", "10")


def big_timeline_and_whatif(pg):
    pg.set("bi-name", "vshape")
    pg.set("bi-ndevs", "32")
    pg.click("bi-load")
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === 64", "vshape/32")
    pg.set("k-memory", "32")
    pg.checked()
    pg.set("baseline-kind", "1f1b")
    pg.click("baseline")
    pg.wait("return document.querySelectorAll('#timeline g.devices text').length === 32 && "
            "document.querySelectorAll('#timeline g.inst').length === 64 * 128", "32 device rows")
    pg.set("zoom", "-1")
    pg.shot("timeline-box", "timeline-vshape32-1f1b.png")
    pg.set("zoom", "0")
    pg.set("bi-ndevs", "4")
    pg.click("bi-load")
    pg.wait("return document.querySelectorAll('#blocks tbody tr').length === 8", "vshape/4")
    pg.set("k-memory", "8")
    pg.checked()
    pg.set("wi-knob", "memory")
    pg.set("wi-values", "1-8")
    assert pg.job("whatif") == "done"
    n = pg.wait("return document.querySelectorAll('#whatif-chart circle.pt').length", "the chart")
    assert n == 8, n
    pg.shot("whatif-box", "whatif-memory.png")
    print("32-device 1f1b timeline drawn (64 x 128 boxes); what-if over memory 1..8: %d points" % n)


def share_roundtrip(pg):
    """The share link holds the placement and knobs: loading it restores the editor."""
    pg.set_cell("B0", "span", "5")
    pg.set("k-memory", "3,4,5,6")
    pg.checked()
    pg.click("share")
    url = pg.wait("return document.getElementById('share-url').value", "the share link")
    pg.d.get("about:blank")
    pg.d.get(url)
    pg.wait("return document.body.dataset.ready === '1'", "the shared page to load")
    got = pg.js("return [document.querySelector(\"#blocks tr[data-block='B0'] [data-field=span]\")"
                ".value, document.getElementById('k-memory').value,"
                " document.querySelectorAll('#blocks tbody tr').length]")
    assert got == ["5", "3,4,5,6", 8], got
    print("share link (%d characters) restores the edited placement and knobs" % len(url))


def pick_model(pg):
    """The model picker fills the editor with the command line's derived placement and sets the
    memory knob to its capacity."""
    want = cli_json("placement", "--model", "gpt3-13b", "--hardware", "a100-80gb", "--gpus", "8",
                    "--strategy", "1f1b")
    pg.set("md-model", "gpt3-13b")
    pg.set("md-hw", "a100-80gb")
    pg.set("md-gpus", "8")
    pg.set("md-strategy", "1f1b")
    pg.click("md-load")
    pg.wait("return document.getElementById('status').textContent.startsWith('derived')",
            "the derived placement")
    lb = pg.checked()
    got = pg.js("return [document.querySelectorAll('#blocks tbody tr').length,"
                " document.getElementById('k-memory').value]")
    assert got == [len(want["blocks"]), str(want["capacity"])], (got, want["capacity"])
    assert not str(lb).startswith("error"), lb
    print("model picker: gpt3-13b on 8 x a100-80gb, 1f1b: %d blocks, memory %s, LB %s"
          % (got[0], got[1], lb))


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


def main():
    if webdriver is None or not CHROME or not DRIVER:
        print("skipped: needs chromium, chromedriver and python3-selenium")
        return 77
    os.makedirs(OUT, exist_ok=True)
    t0 = time.time()
    srv = Server(TESSEL, "--max-searches", "2")
    profile = tempfile.mkdtemp(prefix="tessel-chromium-")
    drv = None
    try:
        drv = start_browser(profile)
        drv.set_script_timeout(30)
        pg = Page(drv)
        drv.get(srv.url)
        pg.wait("return document.body.dataset.ready === '1'", "the page to load")
        makespan = search_and_measure(pg)
        edit_and_refuse(pg, makespan)
        n4 = pg.js("return window.tsTimings.length")
        cancel_long(pg, srv)
        big_timeline_and_whatif(pg)
        drv.save_screenshot(os.path.join(OUT, "explorer.png"))
        report_timings(pg, 0, n4, "vshape4", "on 4-device vshape")
        report_timings(pg, n4, None, "others", "on xshape/8, vshape/32 and the what-if")
        share_roundtrip(pg)
        pick_model(pg)
    except Exception:
        if drv:
            drv.save_screenshot(os.path.join(OUT, "failure.png"))
        raise
    finally:
        if drv:
            drv.quit()
        shutil.rmtree(profile, ignore_errors=True)
        if srv.alive():
            srv.stop()
    print("browser test: %.1f s; screenshots in %s" % (time.time() - t0, OUT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
