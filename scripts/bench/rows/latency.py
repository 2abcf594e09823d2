"""Latency simulation: scripts/bench/latency (2,000 concurrent requests to a stub with 1 s latency)."""
import os
import subprocess

TITLE = "Latency simulation"


def run(bench):
    env = dict(os.environ, MOCKD_BIN=bench.mockd, BENCH_SKIP_INSTALL="1")
    out = subprocess.run([os.path.join(bench.repo, "scripts", "bench", "latency")], capture_output=True, text=True,
                         env=env, timeout=120)
    table = [l for l in out.stdout.splitlines() if l.startswith("|")]
    if out.returncode != 0 or len(table) < 3:
        raise RuntimeError("scripts/bench/latency failed: %s" % out.stderr[-300:])
    cells = [c.strip() for c in table[2].strip("|").split("|")]
    requests, ok, wall, before, peak, after = cells[:6]
    met = requests == ok and float(wall) < 1.5 and int(peak) <= int(before)
    targets = [{"target": "%s requests with 1 s latency: all 200, wall < 1.5 s, no extra threads" % requests,
                "measured": "%s OK, %s s, threads %s → %s" % (ok, wall, before, peak), "met": met}]
    intro = ("`scripts/bench/latency`: 2,000 requests at once (plain sockets, one connection each) to a stub with 1,000 ms "
             "latency. Latency suspends the libmicrohttpd connection and a timer resumes it, so no worker thread waits "
             "and the thread count should not grow.")
    return {"title": TITLE, "intro": intro, "targets": targets,
            "columns": ["requests", "200 OK", "wall time s", "daemon threads before", "peak", "after"],
            "rows": [cells[:6]], "data": cells}
