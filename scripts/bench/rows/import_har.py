"""`mockd import-har` of generated HARs: wall time, CPU and peak RSS against the file size."""
import os
import re
import shutil
import subprocess
import time

from benchlib import commas, log

TITLE = "HAR import"


def import_once(bench, har, root):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    out_path = os.path.join(bench.work, "import.stdout")
    with open(out_path, "wb") as out, open(os.path.join(bench.work, "import.stderr"), "wb") as err:
        begin = time.monotonic()
        proc = subprocess.Popen([bench.mockd, "import-har", har, "--set", "big", "--root", root],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)    # reaped here: ru_maxrss is this process's own peak
        wall = time.monotonic() - begin
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("mockd import-har %s failed: %s" % (har, open(os.path.join(bench.work, "import.stderr")).read()[-500:]))
    report = open(out_path).read()
    entries = int(re.search(r"entries read:\s+(\d+)", report).group(1))
    stubs = int(re.search(r"stubs written:\s+(\d+)", report).group(1))
    files, size = 0, 0
    for folder, _, names in os.walk(os.path.join(root, "mocks", "big")):
        for n in names:
            files += 1
            size += os.path.getsize(os.path.join(folder, n))
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss * 1024, "entries": entries,
            "stubs": stubs, "files": files, "set_bytes": size}


def run(bench):
    cases = [("small", 10000)] + ([] if bench.quick else [("small", 100000), ("realistic", "200M")])
    if bench.quick:
        cases.append(("realistic", "20M"))
    rows, targets, data = [], [], {}
    root = os.path.join(bench.work, "import-root")
    for profile, arg in cases:
        har = bench.har(arg, profile="small") if profile == "small" else bench.har(0, profile="realistic", size=arg)
        size = os.path.getsize(har)
        r = import_once(bench, har, root)
        shutil.rmtree(root, ignore_errors=True)
        ratio = r["peak"] / size
        label = "small, %s entries" % commas(arg) if profile == "small" else "realistic, %s" % arg
        rows.append([label, "%.1f" % (size / 2**20), commas(r["entries"]), commas(r["stubs"]), "%.2f" % r["wall"],
                     "%.2f" % r["cpu"], "%.1f" % (size / 2**20 / r["wall"]), "%.1f" % (r["peak"] / 2**20),
                     "%.2f" % ratio, "%.1f MiB, %s files" % (r["set_bytes"] / 2**20, commas(r["files"]))])
        data[label] = dict(r, har_bytes=size)
        log("import %s: %.2f s, peak %.1f MiB (%.2f × the HAR)" % (label, r["wall"], r["peak"] / 2**20, ratio))
        if profile == "small" and arg == 100000:
            targets.append({"target": "import of 100,000 small entries < 10 s", "measured": "%.1f s" % r["wall"],
                            "met": r["wall"] < 10})
            targets.append({"target": "import of 100,000 small entries: peak RSS < 2 × the file",
                            "measured": "%.2f × (%.0f MiB of %.0f MiB)" % (ratio, r["peak"] / 2**20, size / 2**20),
                            "met": ratio < 2})
        if profile == "realistic" and arg == "200M":
            targets.append({"target": "import of the 200 MiB realistic HAR: peak RSS ≤ 2 × the file",
                            "measured": "%.2f × (%.0f MiB)" % (ratio, r["peak"] / 2**20), "met": ratio <= 2})
    intro = ("`mockd import-har FILE --set big --root DIR` into a fresh root, once per HAR; peak RSS is the process's "
             "`ru_maxrss` (from `wait4`); wall time includes syncing every body file. *small*: `make-har --profile small "
             "--entries N` (one GET per URL, a ~120-byte JSON body, two stored response headers, an `Accept` "
             "constraint) — the sets the other rows serve are imported the same way; *realistic*: `make-har --size "
             "200M --seed 1`, the old benchmark's mixed recording (sequences, images, POST bodies), kept for continuity.")
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["HAR", "MiB", "entries", "stubs", "wall s", "CPU s", "MiB/s", "peak RSS MiB", "÷ HAR size",
                        "set on disk"]}
