"""Idle RSS after loading a set, on imported sets (and the old synthetic one)."""
import time

from benchlib import commas, log, smaps_rollup

TITLE = "Idle memory"


def run(bench):
    sizes = [10, 10000] + ([] if bench.quick else [100000])
    cases = [("imported", n, bench.imported_set(n), bench.stub_path(0)) for n in sizes]
    # The same set with URLs as long as recorded ones (make-har --urls corpus): a path or id over 15 bytes is a
    # string of its own on the heap, which /bench/K never is.
    cases.append(("imported, corpus-length URLs", sizes[-1], bench.imported_set(sizes[-1], urls="corpus"),
                  bench.stub_path(0, "corpus")))
    cases.append(("synthetic", bench.big, bench.synthetic_set(bench.big), bench.stub_path(0)))
    rows, data, targets = [], {}, []
    for kind, n, (root, name), ready_path in cases:
        server = bench.mockd_server("idle-%s-%d" % (kind.replace(", ", "-").replace(" ", "-"), n), root, name,
                                    ready_path=ready_path)
        time.sleep(1)
        status = server.status()
        rollup = smaps_rollup(server.pid)
        server.stop()
        mib = status.get("VmRSS", 0) / 1024
        rows.append([kind, commas(n), "%.1f" % mib, "%.1f" % (rollup.get("Anonymous", 0) / 1024),
                     "%.1f" % ((rollup.get("Rss", 0) - rollup.get("Anonymous", 0)) / 1024),
                     "%.1f" % (status.get("VmHWM", 0) / 1024), status.get("Threads", "?")])
        data["%s-%d" % (kind, n)] = {"status": status, "smaps_rollup": rollup}
        log("idle RSS %s %d: %.1f MiB" % (kind, n, mib))
        if kind == "imported" and n == 100000:
            targets.append({"target": "idle RSS, 100,000 imported stubs < 50 MiB", "measured": "%.1f MiB" % mib,
                            "met": mib < 50})
        if kind == "imported, corpus-length URLs" and n == 100000:
            targets.append({"target": "idle RSS, 100,000 imported stubs with URLs as long as the corpus's < 50 MiB",
                            "measured": "%.1f MiB" % mib, "met": mib < 50})
    intro = ("`VmRSS` from `/proc/PID/status` 1 s after mockd answered its first request (a fresh process per set, "
             "default threads, `--quiet`); anonymous and file-backed parts from `/proc/PID/smaps_rollup`; `VmHWM` is "
             "the peak during loading. *imported, corpus-length URLs*: the same entries asking "
             "`/api/v2/bench/K/details`, every third with `?page=K&per_page=20` (`make-har --urls corpus`: the "
             "corpus's recordings have a median path of 25 characters and a query on a third of their entries; "
             "`/bench/K` and its stub ids fit in a Swift string's 15 inline bytes, recorded ones mostly do not).")
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "data": data,
            "columns": ["set", "stubs", "idle RSS MiB", "anonymous MiB", "file-backed MiB", "peak while loading MiB",
                        "threads"]}
