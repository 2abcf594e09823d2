"""Session churn: 1,000 WebSocket sessions, create -> first answer -> drop; memory per active session."""
import json
import os
import subprocess
import sys
import time

from benchlib import commas, fmt, log

import importlib.util

TITLE = "WebSocket session churn"


def _ws():
    spec = importlib.util.spec_from_file_location("bench_row_websocket", os.path.join(os.path.dirname(__file__), "websocket.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(bench):
    ws = _ws()
    root = ws.ws_root(bench)
    sessions = 1000
    server = bench.start("sessions", [bench.mockd, "--config", "ws", "--root", root, "--port", "{port}", "--quiet"],
                         stderr="devnull")
    time.sleep(0.3)
    idle = server.status()
    churn = ws.client(bench, ["churn", str(server.port), "/greet", str(sessions)])
    time.sleep(0.5)
    after_churn = server.status()
    log("session churn: p99 %.2f ms per session" % churn["wholeP99"])
    # Memory per active session: 1,000 held open, each having had its first frame.
    client = os.path.join(bench.repo, "scripts", "bench", "lib", "wsclient.py")
    holder = subprocess.Popen([sys.executable, client, "hold", str(server.port), "/greet", str(sessions)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = holder.stdout.readline()
    held = json.loads(line) if line else {"open": 0, "errors": sessions}
    time.sleep(0.5)
    active = server.status()
    holder.stdin.write("\n")
    holder.stdin.flush()
    holder.wait(timeout=60)
    time.sleep(1)
    closed = server.status()
    server.stop()
    per_session_kib = (active["VmRSS"] - after_churn["VmRSS"]) / max(1, held["open"])
    rows = [["%s sessions one after another" % commas(sessions), churn["errors"], fmt(churn["firstP50"], 2),
             fmt(churn["firstP99"], 2), fmt(churn["wholeP50"], 2), fmt(churn["wholeP99"], 2), fmt(churn["wholeMax"], 1),
             "%.1f → %.1f" % (idle["VmRSS"] / 1024, after_churn["VmRSS"] / 1024)]]
    rows2 = "| %s open at once | %s errors | RSS %.1f → %.1f MiB: **%.1f KiB per active session** | after closing them: %.1f MiB, %s threads |" % (
        commas(held["open"]), held["errors"], after_churn["VmRSS"] / 1024, active["VmRSS"] / 1024, per_session_kib,
        closed["VmRSS"] / 1024, closed.get("Threads"))
    targets = [{"target": "WebSocket session churn: p99 per session (create → first answer → drop), 1,000 sessions",
                "measured": "%s ms" % fmt(churn["wholeP99"], 2), "met": None},
               {"target": "memory per active WebSocket session (1,000 open)", "measured": "%.1f KiB" % per_session_kib,
                "met": None}]
    intro = ("mockd (default threads, `--quiet`) with a WebSocket stub whose script sends one frame at the open. One "
             "client (`wsclient.py churn`) runs %s sessions one after another: TCP connect + upgrade (create) → the "
             "first frame from the server (first answer) → a close frame and the socket closed (drop). Then %s sockets "
             "are opened and held (`wsclient.py hold`): the RSS difference per open session. No target was set by the "
             "issue for these figures; they are reported for the comparison after." % (commas(sessions), commas(sessions)))
    return {"title": TITLE, "intro": intro, "rows": rows, "targets": targets, "notes": ["| held | | memory | |\n|---|---|---|---|\n" + rows2],
            "data": {"churn": churn, "held": held, "idle": idle, "afterChurn": after_churn, "active": active, "closed": closed},
            "columns": ["case", "errors", "first answer p50 ms", "first answer p99 ms", "whole session p50 ms",
                        "whole session p99 ms", "max ms", "RSS MiB before → after"]}
