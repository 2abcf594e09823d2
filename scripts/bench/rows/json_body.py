"""Large JSON request bodies: the worker time one costs, matched by body and missed.

Every JSON body a request brings is compared in its canonical form (keys sorted, numbers by value); a body-keyed
stub's route and a miss's near-miss search both need it. The row posts generated JSON documents of 1 and 5 MB to the
bundled chat set (`mocks/chat`, whose sign-in stub matches on its body) with `--threads 1`, so the time until the
answer is the worker's: a path with body-matched stubs and a path no stub has, both answered 404 naming the nearest.
"""
import http.client
import time

from benchlib import HOST, fmt, log, median

TITLE = "Large JSON request bodies"

TRIES = 3


def document(items):
    """A JSON object of about 26 bytes per item: an array of small objects with numbers, as an upload would be."""
    body = ",".join('{"a":"%d","b":[1,2,3]}' % i for i in range(items))
    return ('{"email":"anna@example.com","password":"x","pad":[%s]}' % body).encode()


def run(bench):
    sizes = [(40000, "1 MB")] if bench.quick else [(40000, "1 MB"), (200000, "5 MB")]
    argv = [bench.mockd, "--set", "chat", "--root", bench.repo, "--port", "{port}", "--threads", "1", "--quiet"]
    server = bench.start("json-body", argv, stderr="devnull", ready_path="/v1/me")
    rows, data = [], {}
    try:
        for items, label in sizes:
            body = document(items)
            for path in ["/v1/auth/sign-in", "/v1/nowhere"]:
                seconds = []
                for _ in range(TRIES):
                    connection = http.client.HTTPConnection(HOST, server.port, timeout=300)
                    begin = time.perf_counter()
                    connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    seconds.append(time.perf_counter() - begin)
                    connection.close()
                    if response.status != 404:
                        raise RuntimeError("POST %s answered %d, not 404" % (path, response.status))
                rows.append([label, "%d" % len(body), path, fmt(median(seconds), 2), fmt(max(seconds), 2)])
                data["%s %s" % (label, path)] = seconds
                log("json body %s to %s: median %.2f s" % (label, path, median(seconds)))
    finally:
        server.stop()
    intro = ("mockd `--threads 1 --quiet` on the bundled chat set; one POST per connection, %d tries each, time from "
             "sending to the whole answer (a 404 naming the nearest stubs), Python's client included." % TRIES)
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": [], "data": data,
            "columns": ["body", "bytes", "path", "median s", "max s"]}
