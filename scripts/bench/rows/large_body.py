"""Serving a 64 MiB body: the daemon's memory while it streams (VmHWM/VmRSS), not the body's size."""
import json
import os
import socket
import threading
import time

from benchlib import HOST, log, proc_status, reset_hwm

TITLE = "Large body"
SIZE = 64 * 2**20


def make_set(bench):
    root = os.path.join(bench.cache, "sets", "large-body")
    set_dir = os.path.join(root, "mocks", "large")
    body = os.path.join(set_dir, "bodies", "large.bin")
    if not (os.path.exists(body) and os.path.getsize(body) == SIZE and os.path.exists(os.path.join(set_dir, "index.json"))):
        os.makedirs(os.path.dirname(body), exist_ok=True)
        with open(body + ".tmp", "wb") as f:
            block = os.urandom(2**20)
            for _ in range(SIZE // 2**20):
                f.write(block)
        os.replace(body + ".tmp", body)
        stubs = [{"id": "small", "request": {"method": "GET", "path": "/bench/0"},
                  "responses": [{"status": 200, "headers": ["Content-Type: application/json"], "body": "{\"ok\":true}"}]},
                 {"id": "large", "request": {"method": "GET", "path": "/large"},
                  "responses": [{"status": 200, "headers": ["Content-Type: application/octet-stream"],
                                 "bodyFile": "bodies/large.bin"}]}]
        with open(os.path.join(set_dir, "index.json"), "w") as f:
            json.dump({"version": 1, "stubs": stubs}, f, indent=2)
        # The same set without the large stub: the daemon's memory when it has no 64 MiB body at all.
        os.makedirs(os.path.join(root, "mocks", "nolarge"), exist_ok=True)
        with open(os.path.join(root, "mocks", "nolarge", "index.json"), "w") as f:
            json.dump({"version": 1, "stubs": stubs[:1]}, f, indent=2)
    return root, "large"


def download(port, results, slow=False):
    """GET /large, reading the whole body (slow: 256 KiB reads with pauses, a client slower than the disk)."""
    got = 0
    with socket.create_connection((HOST, port), timeout=30) as s:
        s.sendall(b"GET /large HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(65536)
            if not chunk:
                break
            head += chunk
        got = len(head.split(b"\r\n\r\n", 1)[1]) if b"\r\n\r\n" in head else 0
        while True:
            chunk = s.recv(262144)
            if not chunk:
                break
            got += len(chunk)
            if slow:
                time.sleep(0.002)
    results.append(got)


def run(bench):
    root, name = make_set(bench)
    base_server = bench.mockd_server("large-body-none", root, "nolarge")
    time.sleep(0.5)
    base = proc_status(base_server.pid)
    base_server.stop()
    server = bench.mockd_server("large-body", root, name)
    time.sleep(0.5)
    idle = proc_status(server.pid)
    rows, targets, data = [], [], {}
    for label, clients, slow in (("1 client", 1, False), ("4 clients at once", 4, False),
                                 ("4 slow clients at once", 4, True)):
        reset_hwm(server.pid)
        before = proc_status(server.pid)
        results = []
        threads = [threading.Thread(target=download, args=(server.port, results, slow)) for _ in range(clients)]
        start = time.monotonic()
        for t in threads:
            t.start()
        peak_rss = 0
        while any(t.is_alive() for t in threads):
            peak_rss = max(peak_rss, proc_status(server.pid).get("VmRSS", 0))
            time.sleep(0.01)
        wall = time.monotonic() - start
        after = proc_status(server.pid)
        hwm = after.get("VmHWM", 0)
        complete = sum(1 for r in results if r == SIZE)
        delta = (hwm - base.get("VmRSS", 0)) / 1024
        rows.append([label, "%d / %d" % (complete, clients), "%.2f" % wall, "%.1f" % (before.get("VmRSS", 0) / 1024),
                     "%.1f" % (hwm / 1024), "%.1f" % delta, "%.1f" % (after.get("VmRSS", 0) / 1024)])
        data[label] = {"before": before, "after": after, "sampled_peak_kib": peak_rss, "bytes": results, "wall": wall}
        log("large body %s: peak +%.1f MiB" % (label, delta))
        if label == "4 clients at once":
            targets.append({"target": "serving a 64 MiB body to 4 clients at once costs bounded memory (peak − the same "
                            "daemon without that body < 16 MiB)",
                            "measured": "+%.1f MiB" % delta, "met": delta < 16 and complete == clients})
    server.stop()
    intro = ("A set with one 64 MiB body file (`bodyFile`, random bytes) and one small stub; mockd (default threads, "
             "`--quiet`) idles at %.1f MiB with it (anonymous %.1f MiB, file-backed %.1f MiB), against %.1f MiB for the "
             "same set without the large stub (the baseline). Then the body is downloaded by 1, 4 and 4 slow clients "
             "(a pause per 256 KiB read). Before each case `VmHWM` is reset (`/proc/PID/clear_refs` 5), so \"peak\" is "
             "the highest RSS while serving that case; \"peak − baseline\" is what having and serving the body cost."
             % (idle.get("VmRSS", 0) / 1024, idle.get("RssAnon", 0) / 1024, idle.get("RssFile", 0) / 1024,
                base.get("VmRSS", 0) / 1024))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["case", "complete", "wall s", "RSS before MiB", "peak MiB", "peak − baseline MiB", "RSS after MiB"]}
