"""Cold start: process start -> first 200 on a real request, on imported sets (and the old synthetic one)."""
import copy
import os
import re
import shutil
import signal
import subprocess
import time

from benchlib import ACCEPT, commas, free_port, http_get, log, median

TITLE = "Cold start"


def one_start(bench, root, name, path, prefix=(), limit=60):
    """ms from before the spawn to the first 200 on GET path (a tight loop of connect attempts)."""
    port = free_port()
    argv = list(prefix) + [bench.mockd, "--set", name, "--root", root, "--port", str(port), "--quiet"]
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ok = False
    try:
        while time.perf_counter() - start < limit and proc.poll() is None:
            status, _ = http_get(port, path, {"Accept": ACCEPT}, timeout=5)
            if status == 200:
                ok = True
                break
            time.sleep(0.0005)
        elapsed = (time.perf_counter() - start) * 1000
    finally:
        target = proc.pid
        if prefix:   # under strace: stop mockd (strace's child), so that strace writes its summary and exits
            try:
                children = open("/proc/%d/task/%d/children" % (proc.pid, proc.pid)).read().split()
                target = int(children[0]) if children else proc.pid
            except OSError:
                pass
        os.kill(target, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if not ok:
        raise RuntimeError("mockd --set %s did not answer 200 on %s within %d s" % (name, path, limit))
    return elapsed


def strace_counts(bench, root, name, path):
    """`strace -c -f` of one start up to the first 200: calls per syscall."""
    out = os.path.join(bench.work, "strace-%s.txt" % name)
    one_start(bench, root, name, path, prefix=["strace", "-c", "-f", "-o", out], limit=300)
    counts, errors = {}, {}
    for line in open(out):
        parts = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(parts) >= 5 and re.match(r"^[\d.]+$", parts[0]) and parts[3].isdigit() and parts[-1] != "total":
            counts[parts[-1]] = int(parts[3])
            if len(parts) == 6 and parts[4].isdigit():
                errors[parts[-1]] = int(parts[4])
    return counts


def run(bench):
    runs = 3 if bench.quick else 7
    big = bench.big
    sizes = [10, 10000] + ([] if bench.quick else [100000])
    cases = [("imported", n, bench.imported_set(n), bench, "bench") for n in sizes]
    # URLs as long as recorded ones (make-har --urls corpus; see the idle memory row).
    cases.append(("imported, corpus-length URLs", sizes[-1], bench.imported_set(sizes[-1], urls="corpus"), bench,
                  "corpus"))
    cases.append(("synthetic", 10000, bench.synthetic_set(10000), bench, "bench"))
    compare = os.environ.get("MOCKD_COMPARE")
    if compare:
        # A second binary (e.g. the "before"), started in the same rounds on the sets it imports itself, so that
        # both are measured in the same minutes of a shared host.
        other = copy.copy(bench)
        other.mockd, other._mockd_hash = os.path.abspath(compare), None
        cases += [("imported, MOCKD_COMPARE", n, other.imported_set(n), other, "bench") for n in sizes]
    results = {}
    for rnd in range(runs):      # interleaved: a slow minute hits every size alike
        for kind, n, (root, name), b, urls in cases:
            ms = one_start(b, root, name, bench.stub_path(n - 1, urls))
            results.setdefault((kind, n), []).append(ms)
            time.sleep(0.2)
    rows, data = [], {}
    for kind, n, (root, name), _, _ in cases:
        times = results[(kind, n)]
        index = os.path.getsize(os.path.join(root, "mocks", name, "index.json"))
        bodies = len(os.listdir(os.path.join(root, "mocks", name, "bodies")))
        rows.append([kind, commas(n), "%.1f MiB" % (index / 2**20), commas(bodies), "%.1f" % median(times),
                     "%.1f" % min(times), "%.1f" % max(times), " ".join("%.0f" % t for t in times)])
        data["%s-%d" % (kind, n)] = times
        log("cold start %s %d: median %.1f ms" % (kind, n, median(times)))
    targets = []
    t10k = median(results[("imported", 10000)])
    targets.append({"target": "cold start, 10,000 imported stubs < 50 ms (median of %d)" % runs,
                    "measured": "%.1f ms" % t10k, "met": t10k < 50})
    if ("imported", 100000) in results:
        t100k = median(results[("imported", 100000)])
        targets.append({"target": "cold start, 100,000 imported stubs < 300 ms (median of %d)" % runs,
                        "measured": "%.1f ms" % t100k, "met": t100k < 300})
    if ("imported, corpus-length URLs", 100000) in results:
        t100k = median(results[("imported, corpus-length URLs", 100000)])
        targets.append({"target": "cold start, 100,000 imported stubs with URLs as long as the corpus's < 300 ms "
                                  "(median of %d)" % runs, "measured": "%.1f ms" % t100k, "met": t100k < 300})
    notes = []
    if shutil.which("strace"):
        root, name = bench.imported_set(10000)
        counts = strace_counts(bench, root, name, "/bench/9999")
        total = sum(counts.values())
        keys = ["openat", "newfstatat", "statx", "read", "pread64", "mmap", "munmap", "brk", "futex", "clone3", "getdents64"]
        notes.append("Syscalls of one start with 10,000 imported stubs up to the first 200 (`strace -c -f`, all "
                     "threads; strace slows the start, so no times): " + ", ".join(
                         "%s %s" % (k, commas(counts[k])) for k in keys if k in counts) + ", %s in all. "
                     "The set has 10,000 body files: an `openat` count near it means the start reads every body."
                     % commas(total))
        data["strace-10000"] = counts
        opens = counts.get("openat", 0)
        targets.append({"target": "a 10,000-stub start does not open every body file (strace openat < 10,000)",
                        "measured": "%s openat" % commas(opens), "met": opens < 10000})
    else:
        notes.append("strace is not installed: no syscall counts.")
    intro = ("Process start (`subprocess.Popen`, timed from just before the spawn) → first `200` on `GET /bench/N-1` "
             "with `Accept: application/json` (a stub, so the set is loaded and indexed), polling a new connection every "
             "0.5 ms from Python; %d starts per set, the sets interleaved. *imported*: the set `mockd import-har` writes "
             "from `make-har --profile small` (one body file per stub, pretty-printed index, an `Accept` constraint "
             "per stub); *imported, corpus-length URLs*: the same entries asking `/api/v2/bench/K/details`, every third "
             "with a query (`make-har --urls corpus`, the first request `GET /api/v2/bench/N-1/details`); "
             "*synthetic*: the old benchmark's set (one shared 1 KB body file, a compact index), kept for "
             "continuity. With `MOCKD_COMPARE=path/to/other/mockd`, that binary is started in the same rounds on the sets it "
             "imports itself (rows \"imported, MOCKD_COMPARE\"): before and after measured in the same minutes." % runs)
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "notes": notes, "data": data,
            "columns": ["set", "stubs", "index.json", "body files", "median ms", "min ms", "max ms", "runs ms"]}
