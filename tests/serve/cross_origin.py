"""A page of another site, in a real browser, can neither start nor cancel the explorer's jobs
(issue 43): headless Chromium loads a page served from another loopback origin (another port of
127.0.0.1, and localhost), which tries what such a page can do without the user: a no-cors fetch
with a text/plain JSON body (a "simple" request, sent without a preflight), a form POST in an
iframe (the classic JSON-by-text/plain forgery), a cancel of the running job by a guessed id, a
DELETE, and reading the page's token. The server must refuse every one (403: Origin, token), the
job list must hold only the test's own job, still running, and the token must stay unreadable.
A control run of the same calls with the token, from the test itself, starts and cancels jobs.

usage: cross_origin.py TESSEL      (exit 77: no Chromium, chromedriver or Selenium here)"""
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from serve_util import Server, wait_job

try:
    from selenium import webdriver
except ImportError:  # a python3 other than the system's lacks Debian's package
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        from selenium import webdriver
    except ImportError:
        webdriver = None

TESSEL = sys.argv[1]
CHROME = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")

EVIL = """<!doctype html><html><body>
<iframe name="sink" style="display:none"></iframe>
<form id="f" method="POST" enctype="text/plain" target="sink"></form>
<script>
const target = new URLSearchParams(location.search).get('target');
const job = JSON.stringify({job: 'search', placement: PLACEMENT, memory: 'none',
                            time_limit: 1000000});
const report = {};
async function attempt(name, fn) {
  try { const r = await fn(); report[name] = r && r.type ? r.type + ':' + r.status : 'sent'; }
  catch (e) { report[name] = 'blocked:' + e.name; }
}
(async () => {
  await attempt('start', () => fetch(target + '/api/jobs', {method: 'POST', mode: 'no-cors',
      headers: {'Content-Type': 'text/plain'}, body: job}));
  await attempt('start_json', () => fetch(target + '/api/jobs', {method: 'POST',
      headers: {'Content-Type': 'application/json'}, body: job}));
  for (const id of [1, 2, 3])
    await attempt('cancel' + id, () => fetch(target + '/api/jobs/' + id + '/cancel',
        {method: 'POST', mode: 'no-cors'}));
  await attempt('delete', () => fetch(target + '/api/jobs/1', {method: 'DELETE'}));
  await attempt('token', async () => {
    const r = await fetch(target + '/api/session');
    report.token_value = (await r.json()).token;
    return r;
  });
  // the form: a text/plain body whose one field's name and value make a JSON object
  const f = document.getElementById('f');
  f.action = target + '/api/jobs';
  const i = document.createElement('input');
  i.name = job.slice(0, -1) + ', "x": "';
  i.value = '"}';
  f.appendChild(i);
  f.submit();
  await new Promise((ok) => setTimeout(ok, 1500));
  document.title = 'done';
  window.tsReport = report;
})();
</script></body></html>"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def start_site(folder):
    """Another site: a static server on another port of 127.0.0.1."""
    handler = lambda *a, **k: Quiet(*a, directory=folder, **k)  # noqa: E731
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    return site


def start_browser(profile):
    from selenium.webdriver.chrome.service import Service
    o = webdriver.ChromeOptions()
    o.binary_location = CHROME
    for flag in ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-dev-shm-usage",
                 "--user-data-dir=" + profile]:
        o.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=o)


def jobs(srv):
    st, j = srv.request("GET", "/api/jobs")
    assert st == 200, (st, j)
    return j["jobs"] if isinstance(j, dict) else j


def main():
    if not (webdriver and CHROME and DRIVER):
        print("cross_origin: skipped, no Chromium, chromedriver or Selenium here")
        return 77
    srv = Server(TESSEL, "--max-searches", "2")
    tmp = tempfile.mkdtemp()
    profile = tempfile.mkdtemp()
    drv = site = None
    try:
        st, b = srv.request("POST", "/api/builtin", {"name": "xshape", "ndevs": 8})
        assert st == 200, (st, b)
        placement = b["placement"]
        # lazy on vshape over 16 devices runs to any time limit (its offsets are many): the job
        # the other site tries to cancel is still running when it tries
        st, b = srv.request("POST", "/api/builtin", {"name": "vshape", "ndevs": 16})
        assert st == 200, (st, b)
        long_placement = b["placement"]
        with open(os.path.join(tmp, "evil.html"), "w") as f:
            f.write(EVIL.replace("PLACEMENT", json.dumps(placement)))
        # the test's own job: long enough to be running while the other site tries to cancel it
        st, own = srv.request("POST", "/api/jobs", {"job": "search",
                                                    "placement": long_placement, "memory": 18,
                                                    "method": "lazy", "time_limit": 120})
        assert st == 200, (st, own)
        site = start_site(tmp)
        drv = start_browser(profile)
        for host in ("127.0.0.1", "localhost"):
            target = "http://%s:%d" % (host, srv.port)
            drv.get("http://127.0.0.1:%d/evil.html?target=%s" % (site.server_address[1], target))
            t0 = time.time()
            while drv.title != "done" and time.time() - t0 < 30:
                time.sleep(0.1)
            report = drv.execute_script("return window.tsReport")
            print("from another origin to %s: %s" % (target, json.dumps(report, sort_keys=True)))
            assert report is not None, "the other site's page did not finish"
            assert "token_value" not in report, "the other site read the token"
            listed = jobs(srv)
            assert [j["id"] for j in listed] == [own["id"]], listed
            assert listed[0]["state"] == "running", listed
        # the control: the same requests with the page's token start and cancel a job
        st, mine = srv.request("POST", "/api/jobs", {"job": "search",
                                                     "placement": long_placement, "memory": 18,
                                                     "method": "lazy", "time_limit": 60})
        assert st == 200, (st, mine)
        for j in (own, mine):
            st, _ = srv.request("POST", "/api/jobs/%d/cancel" % j["id"], {})
            assert st == 200, st
            assert wait_job(srv, j["id"])["state"] == "cancelled"
        # and without it, from no browser at all, the server says why
        st, j = srv.request("POST", "/api/jobs", {"job": "search", "placement": placement,
                                                  "memory": 4}, headers={"X-Tessel-Token": "0"})
        assert st == 403 and "token" in j["error"], (st, j)
        st, j = srv.request("POST", "/api/check", {"placement": placement},
                            headers={"Origin": "http://127.0.0.1:1", "X-Tessel-Token": srv.token})
        assert st == 403 and "Origin" in j["error"], (st, j)
    finally:
        if drv:
            drv.quit()
        if site:
            site.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)
        if srv.alive():
            srv.stop()
    print("cross_origin: another origin could neither start nor cancel a job")
    return 0


if __name__ == "__main__":
    sys.exit(main())
