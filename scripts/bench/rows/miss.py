"""A miss: the 404 that names the nearest stubs, timed by the daemon's own log line and by the client."""
import http.client
import re
import time

from benchlib import ACCEPT, HOST, commas, fmt, log, median

TITLE = "A miss"

MISSES = 200


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def run(bench):
    sizes = [10, 10000] if bench.quick else [10, 10000, bench.big]
    rows, targets, data = [], [], {}
    for n in sizes:
        root, name = bench.imported_set(n)
        server = bench.mockd_server("miss-%d" % n, root, name, threads=1, quiet=False, stderr="file")
        connection = http.client.HTTPConnection(HOST, server.port, timeout=30)
        round_trips = []
        paths = ["/bench/missing/%d" % i for i in range(MISSES)] + ["/bench/%d/extra" % i for i in range(MISSES)]
        for path in paths:
            begin = time.perf_counter()
            connection.request("GET", path, headers={"Accept": ACCEPT})
            response = connection.getresponse()
            response.read()
            round_trips.append((time.perf_counter() - begin) * 1000)
            if response.status != 404:
                raise RuntimeError("GET %s answered %d, not 404" % (path, response.status))
        connection.close()
        time.sleep(0.2)   # the log writer batches lines every 2 ms
        server.stop()
        logged = []
        for line in open(server.stderr_path, errors="replace"):
            m = re.search(r" GET /bench/(?:missing/\d+|\d+/extra) 404 unmatched ([\d.]+)ms$", line.rstrip())
            if m:
                logged.append(float(m.group(1)))
        if len(logged) != len(paths):
            raise RuntimeError("%d of %d misses logged" % (len(logged), len(paths)))
        first = logged[0]
        later = logged[1:]
        rows.append([commas(n), len(paths), fmt(first, 2), fmt(median(later), 3), fmt(percentile(later, 0.99), 3),
                     fmt(max(later), 3), fmt(median(round_trips[1:]), 3)])
        data[n] = {"logged": logged, "round_trips": round_trips}
        log("miss at %s stubs: first %.2f ms, then p50 %.3f ms (daemon), %.3f ms round trip" % (
            commas(n), first, median(later), median(round_trips[1:])))
        if n == sizes[-1]:
            targets.append({"target": "a miss at %s imported stubs < 1 ms (p50 of the daemon's own duration, after "
                                      "the first)" % commas(n),
                            "measured": "%.3f ms (p99 %.3f ms; first %.2f ms)" % (
                                median(later), percentile(later, 0.99), first),
                            "met": median(later) < 1.0})
    intro = ("mockd `--threads 1` with its default log line (stderr to a file), one keep-alive connection from Python: "
             "%d requests for paths no stub has (`/bench/missing/K`, then `/bench/K/extra`), each answered 404 with the "
             "nearest stubs named. \"daemon\" figures are the duration the log line gives (arrival → the response "
             "queued); \"round trip\" is the client's, Python included." % (2 * MISSES))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["stubs", "misses", "first ms (daemon)", "p50 ms (daemon)", "p99 ms (daemon)", "max ms (daemon)",
                        "p50 ms round trip"]}
