#!/usr/bin/python3
"""The control API fuzzed against its own OpenAPI document: schemathesis (PyPI, in the test venv scripts/install-deps
makes) generates requests for every operation of docs/control-api.openapi.json and sends them to a live daemon (the
built .build/debug/mockd), checking each answer: no server error, a documented status, a documented content type, a
body its schema accepts (the journal stream's events included, `contentSchema` of each `data`).

    Tests/Contract/control_api_fuzz.py [--mockd PATH] [--seconds N] [--seed N]

The daemon serves a copy of the bundled mocks with a resource, an override, a contract (--openapi) and a recording
(--on-miss proxy --record-misses), and some traffic, so that the routes that need them can answer 200. The run is
bounded by --seconds (default $MOCKD_SCHEMATHESIS_SECONDS, else 240). Prints `ok NAME` or `FAIL NAME: why` per check
and a last line `schemathesis: N operations, M cases, F failures in S s`; exits 1 on any failure. Without schemathesis
it prints `SKIPPED [schemathesis] …` and exits 0 (scripts/test fails the run unless MOCKD_EXPECTED_SKIPS names it).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOCUMENT = os.path.join(ROOT, "docs", "control-api.openapi.json")
CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"

SCENARIO = {
    "description": "what the control API fuzz serves",
    "sets": ["chat"],
    "resources": [{"name": "orders", "path": "/v1/orders", "seed": [{"id": "1", "status": "open"}]}],
    "overrides": [{"id": "flaky", "match": {"path": "/v1/flaky"}, "status": 503}],
}
CONTRACT = {
    "openapi": "3.1.0",
    "info": {"title": "the app's API", "version": "1"},
    "paths": {"/v1/me": {"get": {"responses": {"200": {"description": "me"}}}}},
}
# The journal stream never ends: each case reads a few events, for at most a second.
CONFIG = """
[[operations]]
include-operation-id = "journalStream"
request-timeout = 1.0
max-stream-events = 4
"""

failures = 0


def report(name, ok, why=""):
    global failures
    if ok:
        print("ok " + name, flush=True)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, why), flush=True)


def schemathesis_command():
    venv = os.environ.get("MOCKD_TEST_VENV") or os.path.join(ROOT, ".build", "test-venv")
    command = os.path.join(venv, "bin", "schemathesis")
    return command if os.access(command, os.X_OK) else None


class Daemon:
    def __init__(self, mockd, folder):
        self.root = os.path.join(folder, "root")
        os.makedirs(os.path.join(self.root, "configs"))
        shutil.copytree(os.path.join(ROOT, "mocks"), os.path.join(self.root, "mocks"))
        with open(os.path.join(self.root, "configs", "fuzz.json"), "w") as file:
            json.dump(SCENARIO, file)
        contract = os.path.join(folder, "app-api.json")
        with open(contract, "w") as file:
            json.dump(CONTRACT, file)
        self.stderr = open(os.path.join(folder, "mockd.stderr"), "w+")
        self.process = subprocess.Popen(
            [mockd, "--config", "fuzz", "--root", self.root, "--port", "0", "--quiet", "--openapi", contract,
             "--on-miss", "proxy", "--upstream", "http://127.0.0.1:9", "--record-misses"],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True,
        )
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise RuntimeError("mockd did not start: %r" % line)
        self.base = line[len("listening on "):]

    def request(self, method, path, body=None, session=None):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if session:
            headers["X-Mockd-Session"] = session
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def stop(self):
        self.process.terminate()
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def seed(daemon):
    """State the routes can show: stubs, a group, traffic in the default and a named session (a hit, a miss)."""
    for session in (None, "fuzz"):
        daemon.request("POST", "/__mockd/stubs", {"id": "me", "match": {"path": "/v1/me"}, "status": 200}, session)
        daemon.request("PUT", "/__mockd/groups/g", {"stubs": [{"match": {"path": "/v1/g"}, "status": 204}]}, session)
        for path in ("/v1/me", "/v1/conversations", "/v1/orders/1"):
            daemon.request("GET", path, session=session)


def summary(ndjson):
    """Operations, cases and failures from schemathesis's NDJSON events."""
    operations, cases, failed = set(), 0, 0
    with open(ndjson) as file:
        for line in file:
            event = json.loads(line)
            finished = event.get("ScenarioFinished")
            if finished:
                label = finished.get("label") or (finished.get("recorder") or {}).get("label")
                if label:
                    operations.add(label)
                recorder = finished.get("recorder") or {}
                cases += len(recorder.get("cases") or {})
                for checks in (recorder.get("checks") or {}).values():
                    failed += sum(1 for check in checks if check.get("status") == "FAILURE")
    return len(operations), cases, failed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mockd", default=os.path.join(ROOT, ".build", "debug", "mockd"))
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("MOCKD_SCHEMATHESIS_SECONDS", "240")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("MOCKD_SCHEMATHESIS_SEED", "20261204")))
    arguments = parser.parse_args()
    command = schemathesis_command()
    if command is None:
        print("SKIPPED [schemathesis] control-api-fuzz: schemathesis is not installed in .build/test-venv "
              "(scripts/install-deps installs it from PyPI)")
        return 0
    folder = tempfile.mkdtemp(prefix="mockd-schemathesis-")
    daemon = Daemon(arguments.mockd, folder)
    try:
        seed(daemon)
        status, served = daemon.request("GET", "/__mockd/openapi.json")
        with open(DOCUMENT, "rb") as file:
            report("served document is docs/control-api.openapi.json", status == 200 and served == file.read(),
                   "GET /__mockd/openapi.json answered %d with another document" % status)
        config = os.path.join(folder, "schemathesis.toml")
        with open(config, "w") as file:
            file.write(CONFIG)
        reports = os.path.join(folder, "reports")
        started = time.monotonic()
        run = subprocess.run(
            [command, "--no-color", "--config-file", config, "run", DOCUMENT, "--url", daemon.base,
             "--checks", CHECKS, "--phases", "examples,coverage,fuzzing", "--max-time", str(arguments.seconds),
             "--seed", str(arguments.seed), "--workers", "1", "--request-timeout", "10",
             "--suppress-health-check", "all", "--report", "ndjson", "--report-dir", reports,
             "--output-truncate", "false"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        took = time.monotonic() - started
        print(run.stdout)
        ndjson = [os.path.join(reports, name) for name in os.listdir(reports) if name.endswith(".ndjson")]
        operations, cases, failed = summary(ndjson[0]) if ndjson else (0, 0, 0)
        report("schemathesis finds no failure", run.returncode == 0,
               "exit %d, %d failing checks (the output above names them)" % (run.returncode, failed))
        report("every operation is tested", operations >= len(json.load(open(DOCUMENT))["paths"]) and operations > 0,
               "%d operations tested" % operations)
        alive = daemon.process.poll() is None
        report("the daemon is still serving", alive and daemon.request("GET", "/__mockd/health")[0] == 200,
               "it exited with %s" % daemon.process.poll())
        print("schemathesis: %d operations, %d cases, %d failures in %.0f s" % (operations, cases, failed, took))
    finally:
        exit_status = daemon.stop()
        daemon.stderr.seek(0)
        log = daemon.stderr.read()
        report("the daemon stops cleanly", exit_status == 0, "exit %s; stderr: %s" % (exit_status, log[-2000:]))
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
