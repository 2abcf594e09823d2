"""The peer a HAR user would pick instead: mitmproxy's server replay (mitmdump, PyPI, in a venv), same HAR, same wrk."""
import os
import subprocess
import sys
import time

from benchlib import ACCEPT, commas, fmt, free_port, http_get, log, median, proc_status

TITLE = "mitmproxy server replay (the peer)"
VERSION = "11.0.2"   # pinned: a later release may change the options below


def venv(bench):
    path = os.path.join(bench.repo, ".build", "bench-venv")
    mitmdump = os.path.join(path, "bin", "mitmdump")
    if not os.path.exists(mitmdump):
        log("installing mitmproxy==%s from PyPI into .build/bench-venv" % VERSION)
        subprocess.run([sys.executable, "-m", "venv", path], check=True, stdout=sys.stderr)
        subprocess.run([os.path.join(path, "bin", "pip"), "install", "-q", "--disable-pip-version-check",
                        "mitmproxy==%s" % VERSION], check=True, stdout=sys.stderr)
    version = subprocess.run([mitmdump, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return mitmdump, version.replace("Mitmproxy: ", "")


def start_mitm(bench, mitmdump, har, entries, cpu):
    """mitmdump reads the HAR directly (mitmproxy >= 10.1); returns (server, ms to the first 200)."""
    port = free_port()
    argv = [mitmdump, "-q", "--mode", "reverse:https://api.example.com", "--listen-host", "127.0.0.1", "-p", str(port),
            "--server-replay", har, "--set", "server_replay_reuse=true", "--set", "server_replay_extra=404",
            "--set", "connection_strategy=lazy"]
    start = time.perf_counter()
    server = bench.start("mitmdump-%d" % entries, argv, cpu=cpu, stderr="file", port=port,
                         ready_path="/bench/%d" % (entries - 1), timeout=600)
    return server, (time.perf_counter() - start) * 1000


def run(bench):
    mitmdump, version = venv(bench)
    sizes = [10, 10000] + ([] if bench.quick else [100000])
    rows, data, targets = [], {}, []
    for n in sizes:
        har = bench.har(n)
        # mockd on the same HAR, imported, measured the same way (cold start includes nothing of the import).
        root, name = bench.imported_set(n)
        for mode in ("pinned", "shared"):
            cpu, threads = (0, 1) if mode == "pinned" else (None, None)
            pinned = mode == "pinned"
            mitm, mitm_start = start_mitm(bench, mitmdump, har, n, cpu)
            mitm_rss = proc_status(mitm.pid).get("VmRSS", 0)
            t0 = time.perf_counter()
            mockd = bench.mockd_server("peer-mockd-%d-%s" % (n, mode), root, name, cpu=cpu, threads=threads)
            mockd_start = (time.perf_counter() - t0) * 1000
            mockd_rss = proc_status(mockd.pid).get("VmRSS", 0)
            r_mitm = bench.wrk(mitm.port, n, pinned=pinned, label="mitm-%d-%s" % (n, mode))
            bench.wrk_warm(mockd.port, n, pinned=pinned)
            r_mockd = bench.wrk(mockd.port, n, pinned=pinned, label="peer-mockd-%d-%s" % (n, mode))
            mitm.stop()
            mockd.stop()
            rows.append([commas(n), mode, "mitmdump --server-replay", "%.0f" % mitm_start, "%.1f" % (mitm_rss / 1024),
                         "%.0f" % r_mitm["rps"], fmt(r_mitm["p99"], 1), r_mitm["errors"], "—"])
            rows.append([commas(n), mode, "mockd (imported set)", "%.0f" % mockd_start, "%.1f" % (mockd_rss / 1024),
                         "%.0f" % r_mockd["rps"], fmt(r_mockd["p99"], 1), r_mockd["errors"],
                         "%.0f ×" % (r_mockd["rps"] / r_mitm["rps"]) if r_mitm["rps"] else "—"])
            data["%d-%s" % (n, mode)] = {"mitm": r_mitm, "mockd": r_mockd, "mitmStartMs": mitm_start,
                                          "mockdStartMs": mockd_start, "mitmRssKiB": mitm_rss, "mockdRssKiB": mockd_rss}
            log("peer %d %s: mitmdump %.0f req/s (start %.0f ms), mockd %.0f req/s" % (n, mode, r_mitm["rps"], mitm_start,
                                                                                     r_mockd["rps"]))
            if n >= 100000:
                break   # one mode at the largest size: mitmdump takes minutes to load it
    intro = ("mitmproxy %s from PyPI in `.build/bench-venv`: `mitmdump --mode reverse:https://api.example.com "
             "--server-replay FILE.har --set server_replay_reuse=true --set server_replay_extra=404 --set "
             "connection_strategy=lazy`, reading the same generated HAR that mockd imports (mitmproxy reads HAR files "
             "directly since 10.1, no conversion). The same wrk settings as the throughput row; \"start\" is spawn → "
             "first 200 on the last entry's URL (mockd: the start of the already imported set, not the import), RSS "
             "right after it. Pinned and shared as in the throughput row; at 100,000 entries only pinned." % version)
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["entries", "cores", "server", "start ms", "RSS MiB", "req/s", "p99 ms", "errors", "mockd ÷ mitmdump"]}
