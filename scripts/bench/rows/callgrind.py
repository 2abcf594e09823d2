"""Instruction counts (valgrind --tool=callgrind): figures that repeat whatever else runs on the machine.

Each case runs the server under callgrind and asks callgrind for a dump (`callgrind_control --dump`) at the points
that delimit what is counted, so a count is exactly the instructions of every thread of the process between two
points: the start (spawn → first 200), one keep-alive request (a part of N requests on one connection, after a
warm-up, ÷ N), one miss; and a whole `mockd import-har` (its own process, start to exit). Valgrind runs one thread at
a time and counts instructions, not time: the counts are the same on a busy and a quiet machine (to a few per cent
where thread interleaving changes the work, e.g. lock spinning), so a change of a few per cent shows where wall-clock
figures on shared cores cannot.
"""
import glob
import http.client
import os
import shutil
import subprocess
import time

from benchlib import ACCEPT, HOST, commas, free_port, http_get, log

TITLE = "Instruction counts (callgrind)"

JOURNAL_LIMIT = 10000   # mockd's default --journal-limit
# Keep-alive requests before the counted part: first uses and caches, and a full journal, so that every counted request
# also evicts the oldest entry (as in a long run; with 200 the journal only grew and no eviction was counted).
WARMUP = JOURNAL_LIMIT + 200
COUNTED = 2000          # keep-alive requests in the counted part
MISSES = 20             # misses in the counted part of the miss case
IMPORT_ENTRIES = 10000  # entries of the import counted whole
# Calls counted per keep-alive request beside the instructions (callgrind's call counts, all callers): the Swift
# runtime's reference count operations on objects (each an atomic read-modify-write unless the object is immortal, e.g.
# an empty array; `swift_bridgeObjectRetain` and the like reach these for an object and skip literals) and heap
# allocations.
RETAINS = ["swift_retain", "swift_retain_n", "swift_nonatomic_retain", "swift_nonatomic_retain_n"]
RELEASES = ["swift_release", "swift_release_n", "swift_nonatomic_release", "swift_nonatomic_release_n"]
ALLOCATIONS = ["malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc"]


class Counted:
    """A server process under callgrind; `dump()` returns the instructions since the previous dump."""

    def __init__(self, bench, name, argv, ready_path, ready_headers=None, stderr_path=None):
        self.folder = os.path.join(bench.work, "callgrind-" + name)
        shutil.rmtree(self.folder, ignore_errors=True)
        os.makedirs(self.folder)
        self.port = free_port()
        argv = [a.replace("{port}", str(self.port)) for a in argv]
        stderr_path = stderr_path or os.path.join(self.folder, "stderr")
        err = open(stderr_path, "wb")
        self.begin = time.monotonic()
        self.proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=%s/out.%%p" % self.folder,
             "--dump-instr=no", "--compress-strings=no"] + argv,
            cwd=self.folder, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
            start_new_session=True)
        err.close()
        self.dumps = 0
        deadline = time.monotonic() + 900
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = open(stderr_path, errors="replace").read().strip().splitlines()[-3:]
                raise RuntimeError("%s under callgrind exited with %s: %s" % (name, self.proc.returncode,
                                                                             " | ".join(tail)))
            status, _ = http_get(self.port, ready_path, ready_headers or {}, timeout=60)
            if status == 200:
                break
            time.sleep(0.01)
        else:
            self.stop()
            raise RuntimeError("%s under callgrind did not answer within 900 s" % name)
        self.start_seconds = time.monotonic() - self.begin

    def dump(self):
        """Instructions (Ir) of the whole process since the previous dump (or the start); the dump's calls per callee
        are in `self.calls` after it."""
        self.dumps += 1
        before = set(glob.glob(os.path.join(self.folder, "out.*")))
        subprocess.run(["callgrind_control", "--dump=part%d" % self.dumps, str(self.proc.pid)],
                       capture_output=True, timeout=300)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            new = sorted(set(glob.glob(os.path.join(self.folder, "out.*"))) - before)
            for path in new:
                total = totals(path)
                if total is not None:
                    self.calls = calls_by_callee(path)
                    return total
            time.sleep(0.05)
        raise RuntimeError("callgrind did not write dump %d" % self.dumps)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def totals(path):
    """The `totals:` (or `summary:`) line of a complete callgrind dump, else None (still being written)."""
    try:
        text = open(path).read()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("totals:") or line.startswith("summary:"):
            return int(line.split()[1])
    return None


def calls_by_callee(path):
    """Calls to each function in a callgrind dump (names uncompressed: `--compress-strings=no`), summed over its
    callers and recursion levels (`swift_release'2`): the `calls=N …` line after each `cfn=NAME`."""
    calls = {}
    callee = None
    for line in open(path, errors="replace"):
        if line.startswith("cfn="):
            callee = line[4:].strip().split("'")[0]
        elif line.startswith("calls=") and callee is not None:
            calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
    return calls


def call_counts(server, count):
    """Reference count operations and heap allocations per request in the last dump."""
    def total(names):
        return sum(server.calls.get(name, 0) for name in names) / count
    return {"retains": total(RETAINS), "releases": total(RELEASES), "allocations": total(ALLOCATIONS),
            "frees": total(["free", "cfree"])}


def keep_alive(port, path, count, headers):
    """`count` GETs on one keep-alive connection; every answer must be 200 (or 404 for a miss)."""
    connection = http.client.HTTPConnection(HOST, port, timeout=120)
    statuses = {}
    for _ in range(count):
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        statuses[response.status] = statuses.get(response.status, 0) + 1
    connection.close()
    return statuses


def per_request(server, path, headers, expect=200):
    """Instructions of one keep-alive request (WARMUP requests, then COUNTED counted ones), and its `call_counts`."""
    keep_alive(server.port, path, WARMUP, headers)
    server.dump()
    statuses = keep_alive(server.port, path, COUNTED, headers)
    total = server.dump()
    if statuses != {expect: COUNTED}:
        raise RuntimeError("unexpected answers %s for %s" % (statuses, path))
    return total / COUNTED, call_counts(server, COUNTED)


def without_debug_info(bench, binary):
    """A copy of `binary` without its debug sections (`objcopy --strip-debug`): Debian 12's valgrind 3.19 gives up on
    the DWARF 5 that Swift 6 writes ("Possibly corrupted debuginfo file"). The code is the same bytes, so the counts
    are the same; function names still come from the symbol table."""
    copy = os.path.join(bench.work, "callgrind-" + os.path.basename(binary))
    subprocess.run(["objcopy", "--strip-debug", binary, copy], check=True)
    return copy


def run(bench):
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise RuntimeError("valgrind not found (apt-get install valgrind)")
    mockd = without_debug_info(bench, bench.mockd)
    small = bench.imported_set(10)
    sizes = [10000] if bench.quick else [10000, bench.big]
    rows, targets, data = [], [], {}
    headers = {"Accept": ACCEPT}

    # One keep-alive request: mockd (--threads 1, --quiet) against raw libmicrohttpd (a pool of 1), same path.
    body = bench.sample_body(*small)
    raw = Counted(bench, "raw", [bench.raw_mhd, "--threads", "1", "--body-file", body, "{port}"], "/bench/3")
    raw.dump()
    raw_ir, raw_calls = per_request(raw, "/bench/3", headers)
    raw.stop()
    mockd_argv = [mockd, "--set", small[1], "--root", small[0], "--port", "{port}", "--threads", "1"]
    quiet = Counted(bench, "mockd-quiet", mockd_argv + ["--quiet"], "/bench/3", headers)
    quiet.dump()
    quiet_ir, quiet_calls = per_request(quiet, "/bench/3", headers)
    quiet.stop()
    log("callgrind: keep-alive request raw %.0f, mockd %.0f instructions" % (raw_ir, quiet_ir))
    logged = Counted(bench, "mockd-logged", mockd_argv, "/bench/3", headers,
                     stderr_path=os.path.join(bench.work, "callgrind-logged.stderr"))
    logged.dump()
    logged_ir, logged_calls = per_request(logged, "/bench/3", headers)
    logged.stop()
    log("callgrind: logged request %.0f instructions" % logged_ir)
    rows.append(["one keep-alive GET, raw libmicrohttpd (pool of 1)", "—", "%s" % commas(raw_ir), "—"])
    rows.append(["one keep-alive GET, mockd `--threads 1 --quiet`, 10 imported stubs", "10", commas(quiet_ir),
                 "%.3f × raw" % (quiet_ir / raw_ir)])
    rows.append(["one keep-alive GET, mockd `--threads 1`, default log line (stderr to a file)", "10",
                 commas(logged_ir), "%.3f × quiet" % (logged_ir / quiet_ir)])
    for what, calls in [("raw libmicrohttpd (pool of 1)", raw_calls), ("mockd `--threads 1 --quiet`", quiet_calls),
                        ("mockd `--threads 1`, default log line", logged_calls)]:
        rows.append(["reference count operations (retains + releases) and heap allocations per keep-alive GET, %s"
                     % what, "—" if what.startswith("raw") else "10",
                     "%.1f + %.1f; %.1f allocations" % (calls["retains"], calls["releases"], calls["allocations"]),
                     "—"])
    log("callgrind: per request retains/releases/allocations raw %s, quiet %s, logged %s" % (
        raw_calls, quiet_calls, logged_calls))
    targets.append({"target": "instructions per keep-alive request ≤ 1.05 × raw libmicrohttpd (callgrind, 10 "
                              "imported stubs)", "measured": "%.3f (%s ÷ %s)" % (quiet_ir / raw_ir, commas(quiet_ir),
                                                                                  commas(raw_ir)),
                    "met": quiet_ir / raw_ir <= 1.05})
    targets.append({"target": "the default log line's instructions (callgrind, 10 imported stubs), reported beside "
                              "the wall-clock ≤ 10% target", "measured": "+%s per request (%.1f%%)" % (
                                  commas(logged_ir - quiet_ir), (logged_ir / quiet_ir - 1) * 100), "met": None})
    data["raw"], data["quiet"], data["logged"] = raw_ir, quiet_ir, logged_ir
    data["calls"] = {"raw": raw_calls, "quiet": quiet_calls, "logged": logged_calls}

    # Starts, and a miss in the largest set.
    for n in sizes:
        root, name = bench.imported_set(n)
        path = "/bench/%d" % (n - 1)
        server = Counted(bench, "start-%d" % n, [mockd, "--set", name, "--root", root, "--port", "{port}",
                                                 "--quiet"], path, headers)
        start_ir = server.dump()
        rows.append(["start → first 200 (all threads), %s imported stubs" % commas(n), commas(n), commas(start_ir),
                     "%.0f per stub" % (start_ir / n)])
        data["start-%d" % n] = start_ir
        log("callgrind: start with %s stubs %s instructions" % (commas(n), commas(start_ir)))
        if n == sizes[-1]:
            miss = "/bench/missing/%d" % n
            statuses = keep_alive(server.port, miss, 1, headers)
            first_ir = server.dump()
            statuses = keep_alive(server.port, miss, MISSES, headers)
            miss_ir = server.dump() / MISSES
            if set(statuses) != {404}:
                raise RuntimeError("a miss answered %s" % statuses)
            rows.append(["the first miss (404 naming the nearest stubs), %s imported stubs" % commas(n), commas(n),
                         commas(first_ir), "—"])
            rows.append(["one later miss, %s imported stubs (keep-alive)" % commas(n), commas(n), commas(miss_ir),
                         "—"])
            data["first-miss-%d" % n], data["miss-%d" % n] = first_ir, miss_ir
            log("callgrind: miss at %s stubs: first %s, then %s instructions" % (commas(n), commas(first_ir),
                                                                               commas(miss_ir)))
        server.stop()

    # An import: the whole `mockd import-har` of the small-profile HAR (wall-clock import rows on this VM's shared disk
    # vary twofold; the count does not).
    har = bench.har(IMPORT_ENTRIES)
    import_root = os.path.join(bench.work, "callgrind-import")
    shutil.rmtree(import_root, ignore_errors=True)
    out = os.path.join(bench.work, "callgrind-import.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, mockd, "import-har", har, "--set",
                    "imp", "--root", import_root], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import_ir = totals(out)
    shutil.rmtree(import_root, ignore_errors=True)
    rows.append(["`mockd import-har` of %s small entries (all threads, the set written)" % commas(IMPORT_ENTRIES),
                 commas(IMPORT_ENTRIES), commas(import_ir), "%.0f per entry" % (import_ir / IMPORT_ENTRIES)])
    data["import-%d" % IMPORT_ENTRIES] = import_ir
    log("callgrind: import of %s entries %s instructions" % (commas(IMPORT_ENTRIES), commas(import_ir)))

    intro = ("`valgrind --tool=callgrind` on the release binary (its debug sections stripped: the same code), all threads of the process; each count is the "
             "instructions between two `callgrind_control --dump` points. A keep-alive request: %s requests on one "
             "connection as warm-up (mockd's journal then holds its default limit of %s entries, so every counted "
             "request also evicts the oldest, as in a long run), then %s counted (÷ %s), `GET /bench/3` with `Accept: application/json` (raw "
             "libmicrohttpd with mockd's flags and options answers the same request with an imported body). A start: "
             "spawn → the first 200 on `GET /bench/N-1` (the set as `mockd import-har` left it). A miss: `GET "
             "/bench/missing/N`, first once, then %d more. An import: `mockd import-har` of the small-profile HAR of "
             "%s entries into a fresh root, start to exit. Reference count operations are calls to `swift_retain` and "
             "`swift_release` (and their `_n` forms), from any caller; allocations, calls to `malloc` and its kin. "
             "Instruction counts repeat under load (the figures to compare between runs); the wall-clock rows beside "
             "them do not." % (commas(WARMUP), commas(JOURNAL_LIMIT), commas(COUNTED), commas(COUNTED), MISSES,
                                                                   commas(IMPORT_ENTRIES)))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["what", "stubs", "instructions", "ratio"]}
