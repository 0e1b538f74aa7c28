"""Shared by the serve tests: start `tessel serve` on a free port and talk to its JSON API."""
import http.client
import json
import os
import re
import subprocess
import time


class Server:
    """A `tessel serve --port 0` child; stop() ends it with SIGTERM and checks it exits cleanly."""

    def __init__(self, tessel, *args):
        self.proc = subprocess.Popen([tessel, "serve", "--port", "0", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"http://([0-9.]+):(\d+)/", line)
        if not m:
            self.proc.kill()
            raise SystemExit("tessel serve printed no address: %r %s" % (line, self.proc.stderr.read()))
        self.url = m.group(0)
        self.host, self.port = m.group(1), int(m.group(2))
        # the page's token: every POST and DELETE carries it, as the page's own requests do
        self.token = None
        st, j = self.request("GET", "/api/session")
        self.token = j["token"] if st == 200 else None

    def request(self, method, path, body=None, headers=None, conn=None):
        """Returns (status, parsed JSON or raw bytes). body: bytes, str or a JSON-able object."""
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        c = conn or http.client.HTTPConnection(self.host, self.port, timeout=60)
        headers = dict(headers or {})
        if method not in ("GET", "HEAD") and self.token and "X-Tessel-Token" not in headers:
            headers["X-Tessel-Token"] = self.token
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        data = r.read()
        if conn is None:
            c.close()
        try:
            return r.status, json.loads(data)
        except ValueError:
            return r.status, data

    def children(self):
        """Worker processes of the server still alive (not reaped)."""
        kids = []
        for t in os.listdir("/proc/%d/task" % self.proc.pid):
            try:
                with open("/proc/%d/task/%s/children" % (self.proc.pid, t)) as f:
                    kids += f.read().split()
            except OSError:
                pass
        return kids

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        self.proc.terminate()
        try:
            rc = self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise SystemExit("tessel serve did not stop on SIGTERM")
        err = self.proc.stderr.read()
        if rc != 0:
            raise SystemExit("tessel serve exited %d: %s" % (rc, err))
        return err


def wait_job(srv, job_id, timeout=120):
    """Polls a job until it leaves 'running'; returns its final status object."""
    t0 = time.time()
    while time.time() - t0 < timeout:
        st, j = srv.request("GET", "/api/jobs/%d" % job_id)
        assert st == 200, (st, j)
        if j["state"] != "running":
            return j
        time.sleep(0.1)
    raise AssertionError("job %d still running after %d s" % (job_id, timeout))


def cli(tessel, *args, cwd=None):
    """Runs the command line; returns (exit code, stdout, stderr)."""
    p = subprocess.run([tessel, *args], capture_output=True, text=True, cwd=cwd)
    return p.returncode, p.stdout, p.stderr
