"""`mockd import-har` of generated HARs: wall time, CPU and peak RSS against the file size."""
import os
import shutil

from benchlib import commas, log, measure_command, measure_import

TITLE = "HAR import"


def row(label, har_bytes, r, when):
    ratio = r["peak"] / har_bytes
    return [label, "%.1f" % (har_bytes / 2**20), commas(r["entries"]), commas(r["stubs"]), "%.2f" % r["wall"],
            "%.2f (%.2f user, %.2f system)" % (r["cpu"], r.get("user", 0), r.get("system", 0)),
            "%.1f" % (har_bytes / 2**20 / r["wall"]), "%.1f" % (r["peak"] / 2**20), "%.2f" % ratio,
            "%.1f MiB, %s files" % (r["set_bytes"] / 2**20, commas(r["files"])), when]


def run(bench):
    rows, targets, data = [], [], {}
    sizes = [10000] + ([] if bench.quick else [100000])
    for n in sizes:
        # The import that built the cached set the other rows serve (measured when it was built; the cache is
        # keyed by the mockd binary, so a new binary is always imported and measured afresh).
        r = bench.import_stats(n)
        when = "this run" if r["this_run"] else "cached set, imported %s" % r["date"]
        when += " (load %s)" % r["load"]
        rows.append(row("small, %s entries" % commas(n), r["har_bytes"], r, when))
        data["small-%d" % n] = r
        if n == 100000:
            ratio = r["peak"] / r["har_bytes"]
            targets.append({"target": "import of 100,000 small entries < 10 s", "measured": "%.1f s (%.1f s CPU)" % (
                r["wall"], r["cpu"]), "met": r["wall"] < 10})
            targets.append({"target": "import of 100,000 small entries: peak RSS < 2 × the file",
                            "measured": "%.2f × (%.0f MiB of %.0f MiB)" % (ratio, r["peak"] / 2**20, r["har_bytes"] / 2**20),
                            "met": ratio < 2})
    size = "20M" if bench.quick else "200M"
    har = bench.har(0, profile="realistic", size=size)
    root = os.path.join(bench.work, "import-root")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    r = measure_import(bench.mockd, har, root, "big", bench.work)
    shutil.rmtree(root, ignore_errors=True)
    har_bytes = os.path.getsize(har)
    rows.append(row("realistic, %s" % size, har_bytes, r, "this run"))
    data["realistic-" + size] = dict(r, har_bytes=har_bytes)
    log("import realistic %s: %.2f s, peak %.1f MiB" % (size, r["wall"], r["peak"] / 2**20))
    if size == "200M":
        ratio = r["peak"] / har_bytes
        targets.append({"target": "import of the 200 MiB realistic HAR: peak RSS ≤ 2 × the file",
                        "measured": "%.2f × (%.0f MiB)" % (ratio, r["peak"] / 2**20), "met": ratio <= 2})
    # The tools a user runs on the set an import wrote: each reads every stub and body file.
    tools = []
    for n in sizes:
        root, name = bench.imported_set(n)
        folder = os.path.join(root, "mocks", name)
        for tool, argv in [("`mockd validate --set`", [bench.mockd, "validate", "--set", name, "--root", root]),
                           ("`mockd diff` (the set with itself)", [bench.mockd, "diff", folder, folder])]:
            r = measure_command(argv, bench.work, "tool-%s-%d" % (argv[1], n))
            tools.append([tool, commas(n), "%.2f" % r["wall"],
                          "%.2f (%.2f user, %.2f system)" % (r["cpu"], r["user"], r["system"]),
                          "%.1f" % (r["peak"] / 2**20)])
            data["%s-%d" % (argv[1], n)] = r
            log("%s at %s stubs: %.2f s, peak %.1f MiB" % (argv[1], commas(n), r["wall"], r["peak"] / 2**20))
    intro = ("`mockd import-har FILE --set NAME --root DIR` into a fresh root; peak RSS is the process's `ru_maxrss` "
             "(from `wait4`); wall time includes syncing every body file (on this VM's shared disk an `fsync` of a "
             "small file took ~4–5 ms during the run, so wall time is mostly waiting for the disk: compare CPU). "
             "*small*: `make-har --profile small --entries N` (one GET per URL, a ~100-byte JSON body, two stored "
             "response headers, an `Accept` constraint): the import that built the set the other rows serve; "
             "*realistic*: `make-har --size 200M --seed 1`, the old benchmark's mixed recording (sequences, images, "
             "POST bodies), kept for continuity.")
    notes = ["\n".join(
        ["The tools a user runs on the set an import wrote (the *small* sets above), each reading every stub and body "
         "file; peak RSS from `wait4`:", "", "| command | stubs | wall s | CPU s | peak RSS MiB |",
         "|---|---:|---:|---:|---:|"] + ["| " + " | ".join(t) + " |" for t in tools])]
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "notes": notes, "data": data,
            "columns": ["HAR", "MiB", "entries", "stubs", "wall s", "CPU s", "MiB/s (wall)", "peak RSS MiB",
                        "÷ HAR size", "set on disk", "measured"]}
