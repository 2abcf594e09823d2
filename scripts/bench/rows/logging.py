"""The default per-request log line against --quiet (pinned), and stderr to a pipe nobody reads."""
import json
import os
import time

from benchlib import commas, fmt, http_get, log, median, paired_summary, round_ratios, spread

TITLE = "Per-request log line"


def health(port):
    status, body = http_get(port, "/__mockd/health", read_body=True, timeout=5)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {}


def run(bench):
    big = bench.big
    sets = {10: bench.imported_set(10), big: bench.imported_set(big)}
    servers = {}
    for n, s in sets.items():
        servers[n, "quiet"] = bench.mockd_server("log-quiet-%d" % n, *s, cpu=0, threads=1, quiet=True)
        servers[n, "file"] = bench.mockd_server("log-file-%d" % n, *s, cpu=0, threads=1, quiet=False, stderr="file")
    plan = [(n, kind) for n in sets for kind in ("quiet", "file")]
    for n, kind in plan:  # each stub's first use (its body file read) before the measured runs, as in throughput
        bench.first_use(servers[n, kind].port, n, pinned=True, label="first-use-log-%s-%d" % (kind, n))
    results = {}
    for rnd in range(bench.rounds):
        order = plan[rnd % len(plan):] + plan[:rnd % len(plan)]
        for n, kind in order:
            server = servers[n, kind]
            bench.wrk_warm(server.port, n, pinned=True)
            r = bench.wrk(server.port, n, pinned=True, label="log-%s-%d-%d" % (kind, n, rnd))
            results.setdefault((n, kind), []).append(r)
            log("round %d/%d logging %s %d stubs: %.0f req/s" % (rnd + 1, bench.rounds, kind, n, r["rps"]))
    pairs = {n: bench.paired_ratios(servers[n, "quiet"].port, servers[n, "file"].port, n, "log-%d" % n) for n in sets}
    log_bytes = {n: os.path.getsize(servers[n, "file"].stderr_path) for n in sets}
    lines_logged = {n: sum(1 for _ in open(servers[n, "file"].stderr_path, "rb")) for n in sets}
    for server in list(servers.values()):
        server.stop()

    # stderr to a pipe that nobody reads: the writer thread's buffer fills, lines are dropped, requests go on.
    pipe = bench.mockd_server("log-pipe", *sets[10], cpu=0, threads=1, quiet=False, stderr="pipe")
    r_pipe = bench.wrk(pipe.port, 10, pinned=True, label="log-pipe")
    status, h = health(pipe.port)
    time.sleep(0.5)
    status2, _ = http_get(pipe.port, "/bench/0", {"Accept": "application/json"}, timeout=5)
    pipe.stop(kill=True)

    rows, targets, data = [], [], {}
    for n in sets:
        q = median([r["rps"] for r in results[n, "quiet"]])
        for kind in ("quiet", "file"):
            rs = results[n, kind]
            rps = median([r["rps"] for r in rs])
            rows.append(["pinned", commas(n), "`--quiet`" if kind == "quiet" else "default log, stderr to a file",
                         "%.0f" % rps, "%.0f%%" % spread([r["rps"] for r in rs]),
                         fmt(median([r["p99"] for r in rs]), 3), sum(r["errors"] for r in rs), "%.2f" % (rps / q),
                         "—" if kind == "quiet" else "%s lines, %.0f MiB" % (commas(lines_logged[n]), log_bytes[n] / 2**20)])
        f = median([r["rps"] for r in results[n, "file"]])
        paired = round_ratios(results[n, "file"], results[n, "quiet"])
        targets.append({"target": "default log line (stderr to a file) costs ≤ 10%% against `--quiet`, pinned, %s "
                        "imported stubs" % commas(n), "measured": "%s; the rows' medians %.2f × quiet (rounds %s)"
                        % (paired_summary(pairs[n]), f / q, paired), "met": median(pairs[n]) >= 0.90})
        data[n] = {k: results[n, k] for k in ("quiet", "file")}
        data["pairs-%d" % n] = pairs[n]
    q10 = median([r["rps"] for r in results[10, "quiet"]])
    dropped = h.get("logLinesDropped")
    rows.append(["pinned", "10", "default log, stderr to a pipe nobody reads", "%.0f" % r_pipe["rps"], "—",
                 fmt(r_pipe["p99"], 3), r_pipe["errors"], "%.2f" % (r_pipe["rps"] / q10),
                 "health %s, logLinesDropped %s, a request after it: %s" % (status, dropped if dropped is not None else "absent", status2)])
    ok = r_pipe["rps"] > 0 and r_pipe["errors"] == 0 and status == 200 and status2 == 200
    targets.append({"target": "stderr to an undrained pipe: mockd keeps answering (no errors, health 200), drops counted",
                    "measured": "%.0f req/s, %s errors, logLinesDropped %s" % (r_pipe["rps"], r_pipe["errors"], dropped),
                    "met": ok and dropped is not None})
    data["pipe"] = {"wrk": r_pipe, "health": h}
    intro = ("Pinned as in the throughput row (mockd `--threads 1` on core 0, wrk on core 1), imported sets, each "
             "server first asked every path once as there (its stubs' first use), rounds interleaved: `--quiet` "
             "against the default log line per request with stderr to a file (the targets judged on %d pairs of 2 s "
             "runs of the two back to back, the order swapped every pair, each run after its own warm-up: the median of "
             "the pairs' ratios, beside the ratio of the rows' medians), then one run with stderr to a pipe "
             "that is never read (after it fills, the log's writer thread drops lines and counts them in "
             "`/__mockd/health` `logLinesDropped`)." % len(pairs[10]))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["cores", "stubs", "stderr", "req/s", "spread", "p99 ms", "errors", "÷ quiet", "log"]}
