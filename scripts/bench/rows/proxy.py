"""Proxy overhead: nginx as the upstream; direct, a mockd stub, `--on-miss proxy` and `mockd record` in front."""
import json
import os
import shutil
import signal

from benchlib import ONE_KB, commas, fmt, free_port, log, median

TITLE = "Proxy overhead"
PATHS = 1000


def nginx(bench):
    exe = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(exe):
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    folder = os.path.join(bench.work, "nginx")
    os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
    port = free_port()
    with open(os.path.join(folder, "nginx.conf"), "w") as f:
        f.write("""worker_processes %d;
pid %s/nginx.pid;
error_log %s/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path %s/tmp/body; proxy_temp_path %s/tmp/proxy; fastcgi_temp_path %s/tmp/fastcgi;
    uwsgi_temp_path %s/tmp/uwsgi; scgi_temp_path %s/tmp/scgi;
    server { listen 127.0.0.1:%d; location / { default_type application/json; return 200 '%s'; } }
}
""" % ((bench.cpus,) + (folder,) * 7 + (port, ONE_KB.decode())))
    return bench.start("nginx", [exe, "-c", os.path.join(folder, "nginx.conf"), "-p", folder, "-e",
                                 os.path.join(folder, "error.log"), "-g", "daemon off;"], port=port, stderr="file")


def run(bench):
    upstream = nginx(bench)
    url = "http://127.0.0.1:%d" % upstream.port
    root = os.path.join(bench.work, "proxy-root")
    os.makedirs(os.path.join(root, "mocks", "empty"), exist_ok=True)
    with open(os.path.join(root, "mocks", "empty", "index.json"), "w") as f:
        json.dump({"version": 1, "stubs": []}, f)
    syn_root, syn_name = bench.synthetic_set(10)
    servers = [("wrk → nginx (direct)", upstream, PATHS),
               ("wrk → mockd stub (no upstream)", bench.mockd_server("proxy-stub", syn_root, syn_name), 10),
               ("wrk → mockd `--on-miss proxy` → nginx",
                bench.mockd_server("proxy-miss", root, "empty", extra=["--on-miss", "proxy", "--upstream", url]), PATHS),
               ("wrk → `mockd record` → nginx",
                bench.start("proxy-record", [bench.mockd, "record", "--upstream", url, "--set", "proxyrec", "--force",
                                             "--root", root, "--port", "{port}", "--quiet", "--har",
                                             os.path.join(bench.work, "proxy-record.har")], stderr="devnull"), PATHS)]
    results = {}
    for rnd in range(bench.rounds):
        for label, server, paths in servers:
            bench.wrk_warm(server.port, paths)
            r = bench.wrk(server.port, paths, label="proxy-%d-%d" % (servers.index((label, server, paths)), rnd))
            results.setdefault(label, []).append(r)
            log("proxy round %d/%d %s: %.0f req/s" % (rnd + 1, bench.rounds, label, r["rps"]))
    single = {}
    for label, server, paths in servers:
        single[label] = bench.wrk(server.port, paths, threads=1, connections=1, label="proxy-single")["p50"]
    servers[3][1].proc.send_signal(signal.SIGKILL)   # record would write a HAR of every exchange at SIGTERM
    direct = median([r["rps"] for r in results[servers[0][0]]])
    rows = []
    for label, _, _ in servers:
        rs = results[label]
        rps = median([r["rps"] for r in rs])
        rows.append([label, "%.0f" % rps, fmt(median([r["p50"] for r in rs]), 3), fmt(median([r["p99"] for r in rs]), 3),
                     sum(r["errors"] for r in rs), "%.2f" % (rps / direct), fmt(single[label], 3)])
    intro = ("nginx answering a 1 KB JSON body is the upstream. wrk %d s, 2 threads, %d keep-alive connections, shared "
             "cores, a random path among %s per request (10 for the stub row), median of %d round(s). `--on-miss proxy` "
             "serves an empty set, so every request goes upstream; `record` also keeps every exchange for the HAR. The "
             "last column is one more wrk run with a single connection: the latency each hop adds."
             % (bench.seconds, bench.connections, commas(PATHS), bench.rounds))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": [], "data": {k: v for k, v in results.items()},
            "columns": ["path", "req/s", "p50 ms", "p99 ms", "errors", "÷ nginx direct", "p50 ms, 1 connection"]}
