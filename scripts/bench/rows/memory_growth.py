"""RSS under load: after a warm-up that fills the journal, growth over a million more requests."""
import time

from benchlib import commas, log

TITLE = "Memory under load"


def wrk_until(bench, server, paths, target, label):
    done, errors, runs, rate = 0, 0, 0, 50000.0
    while done < target and runs < 10:
        seconds = max(1, min(120, int((target - done) / rate * 1.05) + 1))
        r = bench.wrk(server.port, paths, seconds=seconds, label="mem-%s-%d" % (label, runs), latency=False)
        runs += 1
        done += r["requests"]
        errors += r["errors"]
        rate = max(1000.0, r["rps"])
        if not server.alive():
            raise RuntimeError("mockd died during the memory benchmark")
    return done, errors, runs


def run(bench):
    big = bench.big
    root, name = bench.imported_set(big)
    server = bench.mockd_server("mem-growth", root, name)
    time.sleep(1)
    idle = server.status()["VmRSS"]
    warm_target = max(200000, 6 * big)
    measured_target = 200000 if bench.quick else 1000000
    warm, warm_err, warm_runs = wrk_until(bench, server, big, warm_target, "warmup")
    time.sleep(1)
    warm_rss = server.status()["VmRSS"]
    more, more_err, more_runs = wrk_until(bench, server, big, measured_target, "measured")
    time.sleep(1)
    after = server.status()
    server.stop()
    growth = (after["VmRSS"] - warm_rss) * 100 / warm_rss
    log("memory: idle %d kB, after warm-up %d kB, after %d more %d kB (%.1f%%)" % (idle, warm_rss, more, after["VmRSS"], growth))
    rows = [["idle", "0", "%.1f" % (idle / 1024), ""],
            ["after the warm-up (journal full, every stub served)", commas(warm), "%.1f" % (warm_rss / 1024),
             "%d wrk run(s), %d errors" % (warm_runs, warm_err)],
            ["after the measured requests", "%s more" % commas(more), "%.1f" % (after["VmRSS"] / 1024),
             "growth %.1f%%, peak (VmHWM) %.1f MiB, %d errors, %s threads" % (growth, after["VmHWM"] / 1024, more_err,
                                                                                 after.get("Threads"))]]
    targets = [{"target": "RSS growth over %s requests after the warm-up ≤ 5%% (%s imported stubs)" % (commas(more), commas(big)),
                "measured": "%.1f%%" % growth, "met": growth <= 5}]
    intro = ("%s imported stubs, default threads and journal (`--journal-limit` 10,000 per session), wrk keep-alive "
             "with random stubs (shared cores, 2 threads, %d connections), runs sized from the measured rate. The "
             "baseline is taken after a warm-up of at least six requests per stub (each stub builds its native "
             "response on first use) that also fills the journal." % (commas(big), bench.connections))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets,
            "data": {"idle": idle, "warm": warm_rss, "after": after, "requests": [warm, more]},
            "columns": ["point", "requests", "RSS MiB", "note"]}
