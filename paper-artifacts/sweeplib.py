"""Shared pieces of the paper-artifact scripts: finding and running `tessel`, reading a sweep's
results.jsonl (tolerating a torn last line), Markdown tables, and small SVG charts written by hand
(Python 3 standard library only, so the artifacts regenerate on any machine with the binaries)."""

import json
import math
import os
import shutil
import subprocess
import sys
from html import escape

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def find_tessel(given=None):
    """The tessel binary: --tessel, $TESSEL, a build folder of this checkout, or PATH."""
    for cand in (given, os.environ.get("TESSEL")):
        if cand:
            if not os.access(cand, os.X_OK):
                sys.exit("no executable tessel at %s" % cand)
            return os.path.abspath(cand)
    builds = []
    for d in sorted(os.listdir(ROOT)):
        for sub in (("bin",), ("src", "cli")):
            exe = os.path.join(ROOT, d, *sub, "tessel")
            if d.startswith("build") and os.access(exe, os.X_OK):
                builds.append((os.path.getmtime(exe), exe))
    if builds:
        return max(builds)[1]
    exe = shutil.which("tessel")
    if exe:
        return exe
    sys.exit("cannot find the tessel binary: build it (cmake) or pass --tessel PATH")


def run_sweep(tessel, spec, outdir, jobs=2, time_limit=None, skip_run=False):
    """Runs (or resumes) a sweep; a sweep already complete costs nothing. Returns the records."""
    if not skip_run:
        cmd = [tessel, "sweep", spec, "-o", outdir, "-j", str(jobs), "--resume"]
        if time_limit:
            cmd += ["--time-limit", str(time_limit)]
        print("+", " ".join(cmd), file=sys.stderr)
        rc = subprocess.call(cmd)
        if rc not in (0, 1):  # 1: some point is an error, which the tables show as such
            sys.exit("tessel sweep failed with exit status %d" % rc)
    jsonl = os.path.join(outdir, "results.jsonl")
    if skip_run and not os.path.exists(jsonl):
        sys.exit("--no-run: %s is missing; the raw sweep records are made on this machine, not kept "
                 "in the repository: run the script without --no-run (it runs `tessel sweep %s -o "
                 "%s --resume`), then --no-run redraws from them"
                 % (os.path.relpath(jsonl), os.path.relpath(spec), os.path.relpath(outdir)))
    return read_records(jsonl)


def provenance():
    """Where a table comes from: the checkout's commit (-dirty with uncommitted changes) and the
    command that wrote it, so that a table can be checked against the code."""
    try:
        commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    script = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT)
    return "Made at commit %s by `python3 %s`." % (commit, " ".join([script] + sys.argv[1:]))


def read_records(path):
    """The complete records of a results.jsonl, by id. A torn last line (a kill during a write) is
    dropped; so is any line that is not a record."""
    recs = {}
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw.split(b"\n")
    if lines and lines[-1] != b"":
        lines = lines[:-1]  # no final newline: the last write was cut short
    for ln in lines:
        if not ln.strip():
            continue
        try:
            r = json.loads(ln)
        except ValueError:
            continue
        if isinstance(r, dict) and "id" in r:
            recs.setdefault(r["id"], r)
    return recs


def find(recs, **want):
    """The records whose parameters match every keyword (None matches JSON null)."""
    return [r for r in recs.values() if all(r.get(k) == v for k, v in want.items())]


def result(r, key):
    res = r.get("result") or {}
    v = res.get(key)
    if isinstance(v, dict):
        v = v.get("total")
    return v


def status_cell(r, time_limit=None):
    """A table cell for a point that has no figure: what happened to it, never a number."""
    if r is None:
        return "not run"
    s = r.get("status")
    if s == "timeout":
        # when the search stopped, and the limit it had: a cut search may stop before its limit
        wall = r.get("wall_seconds")
        text = "timeout"
        if isinstance(wall, (int, float)):
            text += " at %s s" % fmt(wall, 2)
        if time_limit:
            text += " (limit %g s)" % time_limit
        return text
    if s == "infeasible":
        return "infeasible"
    if s == "error":
        return "error"
    return str(s)


def fmt(v, digits=3):
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 100:
            return "%.0f" % v
        return ("%%.%dg" % digits) % v
    return str(v)


def md_table(header, rows):
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out) + "\n"


def write(path, text):
    """Writes an artifact; a Markdown table ends with its provenance line."""
    if path.endswith(".md"):
        text = text.rstrip("\n") + "\n\n" + provenance() + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    print("wrote", path, file=sys.stderr)


# ---- SVG ---------------------------------------------------------------------------------

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948",
           "#9c755f", "#bab0ac", "#ff9da7"]


def _ticks(lo, hi, log):
    if log:
        a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0 ** e for e in range(a, b + 1)]
    span = hi - lo if hi > lo else 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= 6:
            step *= m
            break
    t, out = math.floor(lo / step) * step, []
    while t <= hi + 1e-9:
        out.append(round(t, 10))
        t += step
    return out


def _value_axis(lo, hi, log, top, base):
    """Rounds the data range [lo, hi] out to tick marks and maps a value to its pixel row, from
    base (the axis origin) up to top."""
    if log:
        # a decade below the smallest bar so that every bar has a height
        lo, hi = 10 ** (math.ceil(math.log10(lo)) - 1), 10 ** math.ceil(math.log10(hi) + 1e-9)
    else:
        lo, hi = 0.0, hi * 1.1 if hi > 0 else 1.0
    ticks = _ticks(lo, hi, log)
    lo, hi = min(lo, ticks[0]), max(hi, ticks[-1])

    def y(v):
        if log:
            f = (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        else:
            f = (v - lo) / (hi - lo)
        return top + (1 - f) * (base - top)

    return lo, hi, ticks, y


def _tick_label(t):
    if t >= 1000 or (0 < t < 0.01):
        return "%g" % t
    return ("%.2f" % t).rstrip("0").rstrip(".")


def bar_chart(title, groups, series, value, ylabel, log=False, note=None, baseline=None):
    """Grouped bars. value(group, series) is a number, or a string saying why there is none
    (timeout, infeasible, error, not run), which is drawn as that word instead of a bar."""
    W, H = max(640, 90 + len(groups) * (26 * len(series) + 24)), 420
    left, right, top, bottom = 70, 20, 50, 90
    nums = [value(g, s) for g in groups for s in series]
    nums = [v for v in nums if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if log:
        nums = [v for v in nums if v > 0]
    lo = min(nums) if nums else 1.0
    hi = max(nums) if nums else 1.0
    if baseline is not None:
        hi = max(hi, baseline)
    lo, hi, ticks, y = _value_axis(lo, hi, log, top, H - bottom)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif"'
           ' font-size="11">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>' % (left, escape(title))]
    for t in ticks:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, W - right, y(t), y(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 4, y(t) + 4, _tick_label(t)))
    out.append('<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s</text>'
               % ((H - bottom + top) // 2, escape(ylabel)))
    if baseline is not None:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#333" stroke-dasharray="4 3"/>'
                   % (left, W - right, y(baseline), y(baseline)))
    gw = (W - left - right) / max(1, len(groups))
    bw = min(24, (gw - 16) / max(1, len(series)))
    for gi, g in enumerate(groups):
        x0 = left + gi * gw + (gw - bw * len(series)) / 2
        for si, s in enumerate(series):
            v = value(g, s)
            x = x0 + si * bw
            color = PALETTE[si % len(PALETTE)]
            if isinstance(v, (int, float)) and not isinstance(v, bool) and (v > 0 or not log):
                yt = y(v)
                out.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>'
                           % (x, yt, bw - 2, H - bottom - yt, color, escape(str(g)), escape(str(s)), fmt(v)))
            elif v is not None:
                # no figure: the reason, written upright along the empty slot
                out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="none" stroke="%s" stroke-dasharray="3 2"/>'
                           % (x, top, bw - 2, H - bottom - top, color))
                out.append('<text transform="translate(%.1f,%d) rotate(-90)" fill="%s" font-size="10">%s</text>'
                           % (x + bw / 2 + 3, H - bottom - 4, color, escape(str(v))))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (left + gi * gw + gw / 2, H - bottom + 16, escape(str(g))))
    lx = left
    for si, s in enumerate(series):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>' % (lx, H - 40, PALETTE[si % len(PALETTE)]))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 14, H - 31, escape(str(s))))
        lx += 24 + 7 * len(str(s))
    if note:
        out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (left, H - 10, escape(note)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def line_chart(title, xs, series, value, xlabel, ylabel, log=False, note=None, style=None):
    """One line per series over xs; value(series, x) is a number or a reason (drawn as a mark).
    style(series) may give (colour, stroke-dasharray) to tell many series apart."""
    W, H = 640, 440
    left, right, top, bottom = 70, 150, 70, 70
    nums = [value(s, x) for s in series for x in xs]
    nums = [v for v in nums if isinstance(v, (int, float)) and not isinstance(v, bool) and (v > 0 or not log)]
    lo, hi = (min(nums), max(nums)) if nums else (1.0, 10.0)
    lo, hi, ticks, y = _value_axis(lo, hi, log, top, H - bottom)

    def x(i):
        return left + (i + 0.5) * (W - left - right) / len(xs)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif"'
           ' font-size="11">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>' % (left, escape(title))]
    for t in ticks:
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, W - right, y(t), y(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>' % (left - 4, y(t) + 4, _tick_label(t)))
    for i, xv in enumerate(xs):
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (x(i), H - bottom + 16, escape(str(xv))))
    out.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % ((left + W - right) // 2, H - bottom + 34, escape(xlabel)))
    out.append('<text transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s</text>'
               % ((H - bottom + top) // 2, escape(ylabel)))
    for si, s in enumerate(series):
        color, dash = style(s) if style else (PALETTE[si % len(PALETTE)], "")
        dash_attr = ' stroke-dasharray="%s"' % dash if dash else ""
        pts = []
        for i, xv in enumerate(xs):
            v = value(s, xv)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and (v > 0 or not log):
                pts.append((x(i), y(v)))
                out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s at %s: %s</title></circle>'
                           % (x(i), y(v), color, escape(str(s)), escape(str(xv)), fmt(v)))
            else:
                if len(pts) > 1:
                    out.append('<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>'
                               % (color, dash_attr, " ".join("%.1f,%.1f" % p for p in pts)))
                pts = []
                if v is not None:
                    # no figure: a cross in the band above the plot, its reason in the tooltip
                    out.append('<text x="%.1f" y="%d" fill="%s" font-size="10" text-anchor="middle">×<title>%s at %s: %s</title></text>'
                               % (x(i), top - 6 - 6 * (si % 4), color, escape(str(s)), escape(str(xv)), escape(str(v))))
        if len(pts) > 1:
            out.append('<polyline fill="none" stroke="%s" stroke-width="1.5"%s points="%s"/>'
                       % (color, dash_attr, " ".join("%.1f,%.1f" % p for p in pts)))
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"%s/>'
                   % (W - right + 8, W - right + 22, top + 5 + 16 * si, top + 5 + 16 * si, color, dash_attr))
        out.append('<text x="%d" y="%d">%s</text>' % (W - right + 24, top + 9 + 16 * si, escape(str(s))))
    out.append('<text x="%d" y="%d" fill="#555" font-size="10">× above the plot: no figure there'
               ' (timeout, infeasible, error; hover for which)</text>' % (left, 36))
    if note:
        out.append('<text x="%d" y="%d" fill="#555">%s</text>' % (left, H - 10, escape(note)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---- command line shared by the artifact scripts -----------------------------------------

def parse_args(doc, spec_name):
    """--tessel, --out, --jobs, --time-limit, --no-run, --spec; returns (args, tessel, outdir,
    sweep folder)."""
    import argparse
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--tessel", help="the tessel binary (default: newest build folder, then PATH)")
    ap.add_argument("--spec", default=os.path.join(ROOT, "experiments", spec_name),
                    help="sweep specification (default: experiments/%s)" % spec_name)
    ap.add_argument("--out", default=os.path.join(HERE, "results"),
                    help="where the table and plot go (default: paper-artifacts/results)")
    ap.add_argument("--sweep", help="sweep folder (default: OUT/sweeps/<spec name>)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="sweep workers (default 2)")
    ap.add_argument("--time-limit", type=float, help="seconds per point (default: the spec's)")
    ap.add_argument("--no-run", action="store_true",
                    help="only read the sweep folder; do not run or resume the sweep")
    args = ap.parse_args()
    tessel = find_tessel(args.tessel)
    stem = os.path.splitext(os.path.basename(args.spec))[0]
    sweep = args.sweep or os.path.join(args.out, "sweeps", stem)
    return args, tessel, args.out, sweep


def machine_note(sweep=None):
    """Machine class, date and the sweep folder, for the captions."""
    import platform
    import time
    text = "%d cores, %s, %s" % (os.cpu_count() or 0, platform.system(),
                                 time.strftime("%Y-%m-%d", time.gmtime()))
    if sweep:
        rel = os.path.relpath(os.path.abspath(sweep), ROOT)
        text += "; sweep " + (os.path.basename(sweep) if rel.startswith("..") else rel)
    return text


def simulate(tessel, outdir, rec, n):
    """Replays a recorded schedule with `tessel simulate --json` (the makespan a runtime that
    follows each device's order reaches). Returns the JSON summary, or None when it fails."""
    sched = rec.get("schedule")
    if not sched:
        return None
    cmd = [tessel, "simulate", os.path.join(outdir, sched), "--json"]
    if n:
        cmd += ["--micro-batches", str(n)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print("simulate %s: %s" % (rec["id"], p.stderr.strip()), file=sys.stderr)
        return None
    try:
        return json.loads(p.stdout)
    except ValueError:
        return None


BASELINES = ("gpipe", "1f1b", "chimera", "interleaved", "zb-h1")


def replay(tessel, sweep, rec, n):
    """The replayed (simulated) summary of an ok point: a baseline's record already is one; a
    search's schedule is replayed here. None when there is no schedule to replay."""
    if rec is None or rec.get("status") != "ok":
        return None
    if rec.get("method") in BASELINES:
        return rec.get("result")
    if "_replay" not in rec:
        rec["_replay"] = simulate(tessel, sweep, rec, n)
    return rec["_replay"]
