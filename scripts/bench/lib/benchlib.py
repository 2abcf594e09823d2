"""Shared helpers of scripts/bench/run and its rows (Python 3 standard library only).

A row file (scripts/bench/rows/NAME.py) defines TITLE and `run(bench) -> dict` returning a section:
    {"title": ..., "intro": "Markdown paragraph", "columns": [...], "rows": [[...], ...],
     "targets": [{"target": ..., "measured": ..., "met": True/False/None}], "notes": [...], "data": {...}}
`bench` is the Bench object below: built binaries, cached mock sets, servers, wrk.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time

HOST = "127.0.0.1"
ACCEPT = "application/json"


def log(text):
    print("bench: " + text, file=sys.stderr, flush=True)


def commas(n):
    return "{:,}".format(int(n))


def median(values):
    return statistics.median(values) if values else None


def spread(values):
    """(max - min) / median, in percent."""
    if not values:
        return None
    m = statistics.median(values)
    return (max(values) - min(values)) / m * 100 if m else 0.0


def round_ratios(runs, base_runs):
    """Each round's own ratio of `runs` to `base_runs` (req/s, rounds in the same order), as "0.93, 0.96": the two
    servers are asked back to back in a round, and the machine's speed swings between rounds by more than they differ."""
    return ", ".join("%.2f" % (r["rps"] / b["rps"]) for r, b in zip(runs, base_runs))


def paired_summary(ratios, seconds=2):
    """The median of `paired_ratios` and how it was taken, as "0.93 (median of 11 pairs of 2 s runs, 0.88–0.99)"."""
    return "%.2f (median of %d pairs of %d s runs, %.2f–%.2f)" % (median(ratios), len(ratios), seconds, min(ratios),
                                                                max(ratios))


def fmt(value, digits=1):
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return ("%%.%df" % digits) % value


def mark(ok):
    return "—" if ok is None else ("✓" if ok else "✗")


def file_hash(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def proc_status(pid):
    """VmRSS, VmHWM (KiB) and Threads of a process, from /proc/PID/status."""
    out = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM", "Threads", "RssAnon", "RssFile"):
                    out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def smaps_rollup(pid):
    out = {}
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 2 and parts[0].endswith(":") and parts[1].isdigit():
                    out[parts[0][:-1]] = int(parts[1])
    except OSError:
        pass
    return out


def reset_hwm(pid):
    """Resets VmHWM to the current RSS (clear_refs 5), so a later VmHWM is the peak from now on."""
    try:
        with open("/proc/%d/clear_refs" % pid, "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def free_port():
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def http_get(port, path, headers=None, timeout=2.0, read_body=False):
    """One GET on a new connection; returns (status, body or b"") or (None, b"") on a connection error."""
    lines = ["GET %s HTTP/1.1" % path, "Host: %s:%d" % (HOST, port), "Connection: close"]
    for k, v in (headers or {}).items():
        lines.append("%s: %s" % (k, v))
    request = ("\r\n".join(lines) + "\r\n\r\n").encode()
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.sendall(request)
            data = b""
            while b"\r\n" not in data or (read_body and True):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                if not read_body and b"\r\n" in data:
                    break
            m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
            if not m:
                return None, b""
            body = data.split(b"\r\n\r\n", 1)[1] if read_body and b"\r\n\r\n" in data else b""
            return int(m.group(1)), body
    except OSError:
        return None, b""


class Server:
    def __init__(self, name, proc, port, stderr_path, stdout_path):
        self.name, self.proc, self.port = name, proc, port
        self.stderr_path, self.stdout_path = stderr_path, stdout_path

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc.poll() is None

    def status(self):
        return proc_status(self.proc.pid)

    def stop(self, kill=False):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Bench:
    def __init__(self, repo, quick=False, rounds=3, install=True, mockd_binary=None):
        self.repo = repo
        self.quick = quick
        self.rounds = rounds
        self.install = install
        self.cache = os.path.join(repo, ".build", "bench")
        self.work = os.path.join(self.cache, "work")
        self.servers = []
        self.seconds = 2 if quick else 6          # wrk seconds per measurement
        self.warmup = 1                           # wrk warm-up seconds before each measurement
        self.connections = 64
        self.request_table = 100000               # prepared requests in wrk's table, the same in every run
        self.big = 10000 if quick else 100000     # the "many stubs" size
        self.cpus = os.cpu_count() or 1
        self.mockd = mockd_binary
        self.mockd_given = mockd_binary is not None
        self.raw_mhd = None
        self.wrk_lua = None
        self.first_use_lua = None
        self.notes = []                           # things the report must say (rows that could not run, ...)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work, exist_ok=True)
        self._mockd_hash = None

    # ------------------------------------------------------------ processes
    def pin(self, cpu):
        """taskset prefix pinning a process to one core (cpu None = no pinning)."""
        if cpu is None or self.cpus < 2:
            return []
        return ["taskset", "-c", str(cpu)]

    def start(self, name, argv, cpu=None, stderr="file", ready_path="/bench/0", ready_headers=None, port=None,
              timeout=120, env=None):
        """Starts a server that takes its port on the command line (the caller puts PORT in argv as "{port}")
        and waits until GET ready_path answers 200. stderr: "file", "devnull" or "pipe" (a pipe nobody reads)."""
        port = port or free_port()
        argv = [a.replace("{port}", str(port)) for a in argv]
        out_path = os.path.join(self.work, name + ".stdout")
        err_path = os.path.join(self.work, name + ".stderr")
        out = open(out_path, "wb")
        if stderr == "file":
            err = open(err_path, "wb")
        elif stderr == "pipe":
            err = subprocess.PIPE
        else:
            err = subprocess.DEVNULL
        proc = subprocess.Popen(self.pin(cpu) + argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=env, start_new_session=True)
        out.close()
        if stderr == "file":
            err.close()
        server = Server(name, proc, port, err_path if stderr == "file" else None, out_path)
        self.servers.append(server)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = open(err_path, errors="replace").read()[-2000:] if stderr == "file" else ""
                raise RuntimeError("%s exited with %s before answering: %s" % (name, proc.returncode, tail))
            status, _ = http_get(port, ready_path, ready_headers or {"Accept": ACCEPT})
            if status == 200:
                return server
            time.sleep(0.02)
        server.stop(kill=True)
        raise RuntimeError("%s did not answer 200 on %s within %d s" % (name, ready_path, timeout))

    def mockd_server(self, name, root, set_name, cpu=None, threads=None, quiet=True, stderr=None, extra=(),
                     ready_path="/bench/0"):
        argv = [self.mockd, "--set", set_name, "--root", root, "--port", "{port}"]
        if threads:
            argv += ["--threads", str(threads)]
        if quiet:
            argv.append("--quiet")
        argv += list(extra)
        return self.start(name, argv, cpu=cpu, stderr=stderr or ("devnull" if quiet else "file"), ready_path=ready_path)

    def raw_server(self, name, cpu=None, threads=None, body_file=None):
        argv = [self.raw_mhd]
        if threads:
            argv += ["--threads", str(threads)]
        if body_file:
            argv += ["--body-file", body_file]
        argv.append("{port}")
        return self.start(name, argv, cpu=cpu, stderr="devnull")

    def stop_all(self):
        for server in self.servers:
            try:
                server.stop()
            except Exception:
                pass
        self.servers = []

    # ------------------------------------------------------------ wrk
    def write_lua(self):
        self.wrk_lua = os.path.join(self.work, "random.lua")
        with open(self.wrk_lua, "w") as f:
            f.write(RANDOM_LUA)
        self.first_use_lua = os.path.join(self.work, "first-use.lua")
        with open(self.first_use_lua, "w") as f:
            f.write(FIRST_USE_LUA)

    def wrk(self, port, paths, seconds=None, pinned=False, threads=None, connections=None, close=False,
            label="wrk", latency=True, script=None, script_args=None):
        """One wrk run, GET /bench/K for a random K < paths with Accept: application/json (or `script` with
        `script_args`). pinned: wrk on core 1, one thread. Returns {rps, p50, p99 (ms), requests, errors, seconds}."""
        seconds = seconds or self.seconds
        threads = threads or (1 if pinned else 2)
        connections = connections or self.connections
        argv = self.pin(1 if pinned else None) + ["wrk", "-t%d" % threads, "-c%d" % connections, "-d%ds" % seconds,
                                                   "--timeout", "5s"]
        if latency:
            argv.append("--latency")
        if close:
            argv += ["-H", "Connection: close"]
        argv += ["-s", script or self.wrk_lua, "http://%s:%d/" % (HOST, port), "--"]
        argv += [str(a) for a in (script_args if script_args is not None else (paths, self.request_table))]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 60)
        out = proc.stdout + proc.stderr
        with open(os.path.join(self.work, "wrk-%s.txt" % label), "w") as f:
            f.write(" ".join(argv) + "\n" + out)
        if proc.returncode != 0:
            raise RuntimeError("wrk failed (%s): %s" % (label, out[-500:]))
        return parse_wrk(out)

    def first_use(self, port, paths, pinned=False, label="first-use"):
        """GET /bench/0 … /bench/paths-1 in order before any measured run: each stub's first use (an imported stub
        reads its body file then). Measured rows then compare steady states; this pass is reported on its own.
        Runs wrk for 1 s at a time, each run going on from the path the answers so far reached (a script cannot
        end wrk early: its main thread sleeps out -d), until every path was answered. Returns {rps, requests,
        seconds, errors}."""
        answered, elapsed, errors, runs = 0, 0.0, 0, 0
        while answered < paths:
            started = time.monotonic()
            last = self.wrk(port, paths, seconds=1, pinned=pinned, threads=1, label="%s-%d" % (label, runs),
                            latency=False, script=self.first_use_lua, script_args=(paths, answered))
            elapsed += time.monotonic() - started
            if last["requests"] == 0:
                raise RuntimeError("first-use pass (%s) got no answer" % label)
            answered += last["requests"]
            errors += last["errors"]
            runs += 1
        return {"rps": answered / elapsed, "requests": answered, "seconds": elapsed, "errors": errors}

    def paired_ratios(self, base_port, port, paths, label, pairs=None, seconds=2):
        """Each of `pairs` short pinned wrk runs of two warm servers back to back, the order swapped every pair
        (base then other, other then base) so a drift of the machine's speed falls on both alike; returns each pair's
        other ÷ base req/s. Other work on a shared machine comes in bursts of seconds: the median of many short pairs
        moves less with it than the ratio of a few 6 s rounds taken minutes apart. Each run follows its own warm-up
        (`wrk_warm`), as the rows' runs do: the server that ran before has evicted the other's working set from the
        caches, which costs a 100,000-stub set far more than raw libmicrohttpd's one response."""
        pairs = pairs or (3 if self.quick else 11)
        ratios = []
        for i in range(pairs):
            order = [("base", base_port), ("other", port)]
            if i % 2:
                order.reverse()
            rps = {}
            for kind, p in order:
                self.wrk_warm(p, paths, pinned=True)
                rps[kind] = self.wrk(p, paths, seconds=seconds, pinned=True, latency=False,
                                     label="%s-pair%d-%s" % (label, i, kind))["rps"]
            ratios.append(rps["other"] / rps["base"])
        return ratios

    def wrk_warm(self, port, paths, pinned=False, close=False):
        if self.warmup > 0:
            self.wrk(port, paths, seconds=self.warmup, pinned=pinned, close=close, label="warmup", latency=False)

    # ------------------------------------------------------------ data sets
    def mockd_hash(self):
        if self._mockd_hash is None:
            self._mockd_hash = file_hash(self.mockd)[:16]
        return self._mockd_hash

    def har(self, entries, profile="small", size=None, seed=1, urls="bench"):
        """A generated HAR, cached under .build/bench/har by the generator's content and arguments. urls: "bench"
        (GET /bench/K) or "corpus" (URLs as long as the corpus's recorded ones; see make-har)."""
        make_har = os.path.join(self.repo, "scripts", "bench", "make-har")
        args = ["--seed", str(seed)]
        if profile == "small":
            args += ["--profile", "small", "--entries", str(entries)]
            if urls != "bench":
                args += ["--urls", urls]
        else:
            args += ["--size", size]
        key = hashlib.sha256((file_hash(make_har) + " ".join(args)).encode()).hexdigest()[:16]
        folder = os.path.join(self.cache, "har")
        os.makedirs(folder, exist_ok=True)
        label = profile if urls == "bench" else "%s-%s" % (profile, urls)
        path = os.path.join(folder, "%s-%s-%s.har" % (label, entries if profile == "small" else size, key))
        if not os.path.exists(path):
            log("generating %s" % os.path.relpath(path, self.repo))
            tmp = path + ".tmp"
            subprocess.run([sys.executable, make_har, tmp] + args, check=True, stderr=subprocess.DEVNULL)
            os.replace(tmp, path)
        return path

    @staticmethod
    def stub_path(index, urls="bench"):
        """The path entry `index` of a small-profile HAR asks (make-har's URL shapes; the query, on every third
        entry of --urls corpus, left out: entries 0 and N-1 of the sets the rows use have none)."""
        return "/api/v2/bench/%d/details" % index if urls == "corpus" else "/bench/%d" % index

    def imported_set(self, entries, urls="bench"):
        """Root and set name of the set `mockd import-har` writes from the small-profile HAR of `entries` entries
        (`urls` as in `har`), cached by the HAR and the mockd binary. The import that builds it is measured (wall,
        CPU, peak RSS from wait4) and the figures kept beside the set (import.json), for the import row."""
        har = self.har(entries, urls=urls)
        key = hashlib.sha256((os.path.basename(har) + self.mockd_hash()).encode()).hexdigest()[:16]
        kind = "imported" if urls == "bench" else "imported-" + urls
        root = os.path.join(self.cache, "sets", "%s-%d-%s" % (kind, entries, key))
        name = "imp%d" % entries
        if not os.path.exists(os.path.join(root, "import.json")):
            shutil.rmtree(root, ignore_errors=True)
            os.makedirs(root)
            log("importing %s (%s entries) with mockd import-har" % (os.path.basename(har), commas(entries)))
            stats = measure_import(self.mockd, har, root, name, self.work)
            stats.update(har=os.path.basename(har), har_bytes=os.path.getsize(har), entries_asked=entries,
                         date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                         load=" ".join(open("/proc/loadavg").read().split()[:3]), mockd=self.mockd_hash())
            with open(os.path.join(root, "import.json"), "w") as f:
                json.dump(stats, f, indent=1)
            self.imported_now = getattr(self, "imported_now", set()) | {entries}
            log("imported in %.1f s (%.1f s CPU), peak RSS %.1f MiB" % (stats["wall"], stats["cpu"], stats["peak"] / 2**20))
        return root, name

    def import_stats(self, entries):
        root, _ = self.imported_set(entries)
        stats = json.load(open(os.path.join(root, "import.json")))
        stats["this_run"] = entries in getattr(self, "imported_now", set())
        return stats

    def synthetic_set(self, n):
        """The old benchmark's set: GET /bench/K, one shared 1 KB body file, a compact index (continuity rows)."""
        root = os.path.join(self.cache, "sets", "synthetic")
        name = "bench%d" % n
        set_dir = os.path.join(root, "mocks", name)
        if not os.path.exists(os.path.join(set_dir, "index.json")):
            os.makedirs(os.path.join(set_dir, "bodies"), exist_ok=True)
            with open(os.path.join(set_dir, "bodies", "one_kb.json"), "wb") as f:
                f.write(ONE_KB)
            response = [{"status": 200, "headers": ["Content-Type: application/json"], "bodyFile": "bodies/one_kb.json"}]
            stubs = [{"id": "s%d" % i, "request": {"method": "GET", "path": "/bench/%d" % i}, "responses": response}
                     for i in range(n)]
            tmp = os.path.join(set_dir, "index.json.tmp")
            with open(tmp, "w") as f:
                json.dump({"version": 1, "stubs": stubs}, f, separators=(",", ":"))
                f.write("\n")
            os.replace(tmp, os.path.join(set_dir, "index.json"))
        return root, name

    def sample_body(self, root, name):
        """One of the set's body files (for raw_mhd's --body-file: the same body size as mockd answers)."""
        bodies = os.path.join(root, "mocks", name, "bodies")
        files = sorted(os.listdir(bodies))
        return os.path.join(bodies, files[0])


def measure_import(mockd, har, root, name, work):
    """`mockd import-har HAR --set NAME --root ROOT`, reaped with wait4: wall, CPU (user + system), peak RSS
    (ru_maxrss), the report's entry and stub counts, and the set's size on disk."""
    out_path, err_path = os.path.join(work, "import-%s.stdout" % name), os.path.join(work, "import-%s.stderr" % name)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        begin = time.monotonic()
        proc = subprocess.Popen([mockd, "import-har", har, "--set", name, "--root", root],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - begin
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("mockd import-har %s failed: %s" % (har, open(err_path, errors="replace").read()[-500:]))
    report = open(out_path).read()
    entries = int(re.search(r"entries read:\s+(\d+)", report).group(1))
    stubs = int(re.search(r"stubs written:\s+(\d+)", report).group(1))
    files, size = 0, 0
    for folder, _, names in os.walk(os.path.join(root, "mocks", name)):
        for n in names:
            files += 1
            size += os.path.getsize(os.path.join(folder, n))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime, "system": usage.ru_stime,
            "peak": usage.ru_maxrss * 1024, "entries": entries, "stubs": stubs, "files": files, "set_bytes": size}


def measure_command(argv, work, name):
    """One run of `argv` (a mockd tool), reaped with wait4: wall, CPU (user + system) and peak RSS (ru_maxrss)."""
    out_path, err_path = os.path.join(work, "%s.stdout" % name), os.path.join(work, "%s.stderr" % name)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        begin = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - begin
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(argv), open(err_path, errors="replace").read()[-500:]))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime, "system": usage.ru_stime,
            "peak": usage.ru_maxrss * 1024}


def parse_wrk(out):
    def to_ms(text):
        m = re.match(r"([\d.]+)(us|ms|s|m)", text)
        if not m:
            return None
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v * 60000 if unit == "m" else v
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    requests = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
    p50 = re.search(r"^\s+50%\s+(\S+)", out, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M)
    errors = 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    if m:
        errors += sum(int(x) for x in m.groups())
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if m:
        errors += int(m.group(1))
    return {"rps": float(rps.group(1)) if rps else 0.0, "requests": int(requests.group(1)) if requests else 0,
            "p50": to_ms(p50.group(1)) if p50 else None, "p99": to_ms(p99.group(1)) if p99 else None,
            "errors": errors}


_head, _tail = b'{"data":"', b'"}'
ONE_KB = _head + b"x" * (1024 - len(_head) - len(_tail)) + _tail

FIRST_USE_LUA = r"""-- GET /bench/S, /bench/S+1, … in order, modulo N, with Accept: application/json (N, S: the script arguments).
local n, sent = 1, 0
function init(args)
    n = tonumber(args[1]) or 1
    sent = tonumber(args[2]) or 0
end
function request()
    local path = "/bench/" .. (sent % n)
    sent = sent + 1
    return wrk.format("GET", path, {["Accept"] = "application/json"})
end
"""

RANDOM_LUA = r"""-- GET /bench/K for a random K in [0, N) per request, with Accept: application/json (the imported stubs'
-- constraint, plus any -H header); N is the first script argument (wrk ... -- N T). The prepared requests fill a table of at least
-- T entries (a multiple of N, so every path is equally likely) whatever N is, so every run gives wrk a table of
-- the same size and rows differ only in their paths.
local reqs, size, counter = {}, 1, 0
function setup(thread)
    counter = counter + 1
    thread:set("seed", counter)
end
function init(args)
    local n = tonumber(args[1]) or 1
    size = math.ceil((tonumber(args[2]) or n) / n) * n
    math.randomseed(os.time() * 1000 + (seed or 0))
    -- wrk.format() takes these instead of wrk.headers: copy the command line's -H headers (Connection: close).
    local headers = {}
    for name, value in pairs(wrk.headers) do headers[name] = value end
    headers["Accept"] = "application/json"
    for i = 0, size - 1 do reqs[i + 1] = wrk.format("GET", "/bench/" .. (i % n), headers) end
end
function request()
    return reqs[math.random(size)]
end
"""
