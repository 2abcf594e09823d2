#!/usr/bin/python3
"""The control API fuzzed against its own OpenAPI document: schemathesis (PyPI, in the test venv scripts/install-deps
makes) generates requests for every operation of docs/control-api.openapi.json and sends them to a live daemon (the
built .build/debug/mockd), checking each answer: no server error, a documented status, a documented content type, a
body its schema accepts (the journal stream's events included, `contentSchema` of each `data`). Before that, a Python
client generated from the document (openapi-python-client, as a team would generate theirs) calls the daemon.

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
import base64
import os.path
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
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
    "overrides": [
        {"id": "flaky", "match": {"path": "/v1/flaky"}, "status": 503},
        {"id": "live", "match": {"path": "/v1/live"}, "websocket": {"steps": [{"send": {"type": "hello"}}]}},
        {"id": "poll", "match": {"path": "/v1/poll"}, "status": 200, "body": {"messages": []},
         "hold": {"timeoutMs": 60000}},
    ],
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


def venv_command(name):
    venv = os.environ.get("MOCKD_TEST_VENV") or os.path.join(ROOT, ".build", "test-venv")
    command = os.path.join(venv, "bin", name)
    return command if os.access(command, os.X_OK) else None


# A client generated from the document, used as an Android or web team would use theirs: typed calls, typed answers.
GENERATED_CLIENT_USE = r"""
import sys
sys.path.insert(0, sys.argv[1])
from mockd_control_api_client import Client
from mockd_control_api_client.api.default import health, journal, use_scenario, verify
from mockd_control_api_client.models import Health, JournalPage, UseScenario, VerificationFailure, VerifyRequest
client = Client(base_url=sys.argv[2], headers={"X-Mockd-Session": "generated"})
assert isinstance(health.sync(client=client), Health)
assert use_scenario.sync(client=client, body=UseScenario(name="fuzz")).name == "fuzz"
page = journal.sync(client=client, limit=5)
assert isinstance(page, JournalPage) and page.count == 0 and page.next_ is None, page
failed = verify.sync_detailed(client=client, body=VerifyRequest(path="/v1/me", count=1))
assert failed.status_code == 409 and isinstance(failed.parsed, VerificationFailure), failed
assert failed.parsed.expected == 1 and failed.parsed.actual == 0
print("generated client: health, use_scenario, journal, verify (409 read as VerificationFailure)")
"""


def generated_client(folder, base):
    """openapi-python-client generates a client from the document; it reads the daemon's answers as their types."""
    generator = venv_command("openapi-python-client")
    if generator is None:
        report("a client generated from the document works", False, "openapi-python-client is not installed")
        return
    output = os.path.join(folder, "generated")
    os.makedirs(output)
    made = subprocess.run([generator, "generate", "--path", DOCUMENT, "--meta", "none"], cwd=output,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    package = os.path.join(output, "mockd_control_api_client")
    if made.returncode != 0 or not os.path.isdir(package):
        report("a client generated from the document works", False, "openapi-python-client: %s" % made.stdout[-2000:])
        return
    operations = len([name for name in os.listdir(os.path.join(package, "api", "default")) if name != "__init__.py"])
    used = subprocess.run([venv_command("python"), "-c", GENERATED_CLIENT_USE, output, base],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    report("a client generated from the document works (openapi-python-client, %d operations)" % operations,
           used.returncode == 0, used.stdout[-2000:])


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
        for path in ("/v1/me", "/v1/conversations", "/v1/orders/1", "/v1/nope"):
            daemon.request("GET", path, session=session)


class Live(threading.Thread):
    """Keeps a WebSocket (/v1/live) and a held long poll (/v1/poll) open in the default session for the whole run,
    opening them again when a fuzzed `ws/close` or `release` ends them: those routes then act on real connections."""

    def __init__(self, base):
        super().__init__(daemon=True)
        host, port = base[len("http://"):].rsplit(":", 1)
        self.address = (host, int(port))
        self.stopping = threading.Event()
        self.opened = 0

    def exchange(self, request):
        connection = socket.create_connection(self.address, timeout=5)
        connection.sendall(request.encode())
        return connection

    def run(self):
        sockets = {}
        while not self.stopping.is_set():
            for name, request in (
                ("live", "GET /v1/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % base64.b64encode(os.urandom(16)).decode()),
                ("poll", "GET /v1/poll HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            ):
                current = sockets.get(name)
                if current is not None:
                    try:
                        current.setblocking(False)
                        if current.recv(65536) == b"":
                            raise OSError("closed")
                        if name == "poll":
                            raise OSError("answered")
                    except BlockingIOError:
                        continue
                    except OSError:
                        current.close()
                try:
                    sockets[name] = self.exchange(request)
                    self.opened += 1
                except OSError:
                    sockets.pop(name, None)
            self.stopping.wait(0.2)
        for connection in sockets.values():
            connection.close()


def summary(ndjson):
    """Operations, cases and distinct failures (operation and check) from schemathesis's NDJSON events."""
    operations, cases, failed = set(), 0, set()
    with open(ndjson) as file:
        for line in file:
            finished = json.loads(line).get("ScenarioFinished")
            if not finished:
                continue
            recorder = finished.get("recorder") or {}
            label = recorder.get("label")
            if label and label.split(" ")[0] in ("GET", "PUT", "POST", "DELETE"):
                operations.add(label)
            cases += len(recorder.get("cases") or {})
            for checks in (recorder.get("checks") or {}).values():
                failed.update((label, check.get("name")) for check in checks if check.get("status") == "failure")
    return len(operations), cases, sorted(failed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mockd", default=os.path.join(ROOT, ".build", "debug", "mockd"))
    parser.add_argument("--seconds", type=int, default=int(os.environ.get("MOCKD_SCHEMATHESIS_SECONDS", "240")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("MOCKD_SCHEMATHESIS_SEED", "20261204")))
    arguments = parser.parse_args()
    command = venv_command("schemathesis")
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
        generated_client(folder, daemon.base)
        config = os.path.join(folder, "schemathesis.toml")
        with open(config, "w") as file:
            file.write(CONFIG)
        reports = os.path.join(folder, "reports")
        live = Live(daemon.base)
        live.start()
        started = time.monotonic()
        run = subprocess.run(
            [command, "--no-color", "--config-file", config, "run", DOCUMENT, "--url", daemon.base,
             "--checks", CHECKS, "--phases", "examples,coverage,fuzzing,stateful", "--max-time", str(arguments.seconds),
             "--seed", str(arguments.seed), "--workers", "1", "--request-timeout", "10",
             "--suppress-health-check", "all", "--report", "ndjson", "--report-dir", reports,
             "--output-truncate", "false"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=folder,
        )
        took = time.monotonic() - started
        live.stopping.set()
        live.join()
        print(run.stdout)
        ndjson = [os.path.join(reports, name) for name in os.listdir(reports) if name.endswith(".ndjson")]
        operations, cases, failed = summary(ndjson[0]) if ndjson else (0, 0, 0)
        report("schemathesis finds no failure", run.returncode == 0 and not failed,
               "exit %d; %s (the output above shows each)" % (run.returncode, "; ".join("%s: %s" % f for f in failed)))
        documented = sum(len(item) for item in json.load(open(DOCUMENT))["paths"].values())
        report("every operation is tested", operations == documented, "%d of %d operations tested" % (operations, documented))
        report("live connections were there to act on", live.opened >= 2, "%d opened" % live.opened)
        alive = daemon.process.poll() is None
        report("the daemon is still serving", alive and daemon.request("GET", "/__mockd/health")[0] == 200,
               "it exited with %s" % daemon.process.poll())
        print("schemathesis: %d operations, %d cases, %d failures in %.0f s" % (operations, cases, len(failed), took))
    finally:
        exit_status = daemon.stop()
        daemon.stderr.seek(0)
        log = daemon.stderr.read()
        report("the daemon stops cleanly", exit_status == 0, "exit %s; stderr: %s" % (exit_status, log[-2000:]))
        shutil.rmtree(folder, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
