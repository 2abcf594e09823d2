"""Instruction counts (valgrind --tool=callgrind): figures that repeat whatever else runs on the machine.

Each case runs the server under callgrind and asks callgrind for a dump (`callgrind_control --dump`) at the points
that delimit what is counted, so a count is exactly the instructions of every thread of the process between two
points: the start (spawn → first 200), one keep-alive request (a part of N requests on one connection, after a
warm-up, ÷ N), one miss. Valgrind runs one thread at a time and counts instructions, not time: the counts are the
same on a busy and a quiet machine (to a few per cent where thread interleaving changes the work, e.g. lock
spinning), so a change of a few per cent shows where wall-clock figures on shared cores cannot.
"""
import glob
import http.client
import os
import shutil
import subprocess
import time

from benchlib import ACCEPT, HOST, commas, free_port, http_get, log

TITLE = "Instruction counts (callgrind)"

WARMUP = 200        # keep-alive requests before the counted part (first uses, caches, the journal's first laps)
COUNTED = 2000      # keep-alive requests in the counted part
MISSES = 20         # misses in the counted part of the miss case


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
        """Instructions (Ir) of the whole process since the previous dump (or the start)."""
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
    """Instructions of one keep-alive request: WARMUP requests, then COUNTED counted ones."""
    keep_alive(server.port, path, WARMUP, headers)
    server.dump()
    statuses = keep_alive(server.port, path, COUNTED, headers)
    total = server.dump()
    if statuses != {expect: COUNTED}:
        raise RuntimeError("unexpected answers %s for %s" % (statuses, path))
    return total / COUNTED


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
    raw_ir = per_request(raw, "/bench/3", headers)
    raw.stop()
    mockd_argv = [mockd, "--set", small[1], "--root", small[0], "--port", "{port}", "--threads", "1"]
    quiet = Counted(bench, "mockd-quiet", mockd_argv + ["--quiet"], "/bench/3", headers)
    quiet.dump()
    quiet_ir = per_request(quiet, "/bench/3", headers)
    quiet.stop()
    log("callgrind: keep-alive request raw %.0f, mockd %.0f instructions" % (raw_ir, quiet_ir))
    logged = Counted(bench, "mockd-logged", mockd_argv, "/bench/3", headers,
                     stderr_path=os.path.join(bench.work, "callgrind-logged.stderr"))
    logged.dump()
    logged_ir = per_request(logged, "/bench/3", headers)
    logged.stop()
    log("callgrind: logged request %.0f instructions" % logged_ir)
    rows.append(["one keep-alive GET, raw libmicrohttpd (pool of 1)", "—", "%s" % commas(raw_ir), "—"])
    rows.append(["one keep-alive GET, mockd `--threads 1 --quiet`, 10 imported stubs", "10", commas(quiet_ir),
                 "%.3f × raw" % (quiet_ir / raw_ir)])
    rows.append(["one keep-alive GET, mockd `--threads 1`, default log line (stderr to a file)", "10",
                 commas(logged_ir), "%.3f × quiet" % (logged_ir / quiet_ir)])
    targets.append({"target": "instructions per keep-alive request ≤ 1.05 × raw libmicrohttpd (callgrind, 10 "
                              "imported stubs)", "measured": "%.3f (%s ÷ %s)" % (quiet_ir / raw_ir, commas(quiet_ir),
                                                                                  commas(raw_ir)),
                    "met": quiet_ir / raw_ir <= 1.05})
    targets.append({"target": "the default log line's instructions (callgrind, 10 imported stubs), reported beside "
                              "the wall-clock ≤ 10% target", "measured": "+%s per request (%.1f%%)" % (
                                  commas(logged_ir - quiet_ir), (logged_ir / quiet_ir - 1) * 100), "met": None})
    data["raw"], data["quiet"], data["logged"] = raw_ir, quiet_ir, logged_ir

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

    intro = ("`valgrind --tool=callgrind` on the release binary (its debug sections stripped: the same code), all threads of the process; each count is the "
             "instructions between two `callgrind_control --dump` points. A keep-alive request: %d requests on one "
             "connection as warm-up, then %s counted (÷ %s), `GET /bench/3` with `Accept: application/json` (raw "
             "libmicrohttpd with mockd's flags and options answers the same request with an imported body). A start: "
             "spawn → the first 200 on `GET /bench/N-1` (the set as `mockd import-har` left it). A miss: `GET "
             "/bench/missing/N`, first once, then %d more. Instruction counts repeat under load (the figures to "
             "compare between runs); the wall-clock rows beside them do not." % (WARMUP, commas(COUNTED),
                                                                                 commas(COUNTED), MISSES))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["what", "stubs", "instructions", "ratio"]}
