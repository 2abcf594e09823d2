#!/usr/bin/python3
"""The dashboard (/__mockd/ui) in a real browser: headless Chromium driven over the DevTools protocol against
live daemons (the built .build/debug/mockd on loopback ports), asserting on the rendered page.

    Tests/Browser/dashboard_test.py [--mockd PATH] [--screenshots DIR]

Each check prints `ok NAME` or `FAIL NAME: why`; the exit status is 1 when any failed, 0 when all passed. Without
Chromium (apt-get install chromium) it prints SKIPPED and exits 0; scripts/test reports the skip. --screenshots
writes the main views as 1280x800 PNGs (the README's docs/dashboard-*.png).

Needs only the standard library and `websockets` (Debian python3-websockets) for the DevTools socket and the
WebSocket client. Waits poll the page until a condition holds or a deadline passes; nothing sleeps for a fixed time.
"""

import argparse
import asyncio
import base64
import http.client
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request

import websockets

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
WAIT_SECONDS = 20


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


def equal(actual, expected, what):
    if actual != expected:
        raise CheckFailed("%s: expected %r, got %r" % (what, expected, actual))


# MARK: - the daemon and plain HTTP


class Daemon:
    """`mockd --config chat_happy_path` (or `config`) on port 0 over a copy of the repository's sample mocks and
    configs."""

    def __init__(self, mockd, extra=(), config="chat_happy_path"):
        self.root = tempfile.mkdtemp(prefix="mockd-browser-")
        for folder in ("mocks", "configs"):
            shutil.copytree(os.path.join(ROOT, folder), os.path.join(self.root, folder))
        self.process = subprocess.Popen(
            [mockd, "--config", config, "--root", self.root, "--port", "0", "--quiet", *extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline().strip()
        if not line.startswith("listening on "):
            self.process.kill()
            raise RuntimeError("mockd did not start: %r %s" % (line, self.process.stderr.read()))
        self.base = line[len("listening on ") :]
        self.port = int(self.base.rsplit(":", 1)[1])

    def request(self, method, target, session=None, headers=None, body=None, token=None):
        """(status, headers dict with lower-case names, body bytes) of one request."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        sent = dict(headers or {})
        if session:
            sent["X-Mockd-Session"] = session
        if token:
            sent["Authorization"] = "Bearer " + token
        connection.request(method, target, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, {name.lower(): value for name, value in response.getheaders()}, data

    def control(self, method, route, session=None, token=None, body=None):
        status, _, data = self.request(
            method,
            "/__mockd/" + route,
            session=session,
            token=token,
            body=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"} if body is not None else None,
        )
        return status, json.loads(data) if data else None

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.root, ignore_errors=True)


# MARK: - Chromium over the DevTools protocol


def find_chromium():
    for candidate in (os.environ.get("MOCKD_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if candidate and shutil.which(candidate):
            return shutil.which(candidate)
    return None


class Browser:
    """One headless Chromium; pages are targets attached in flat mode on the browser's DevTools socket."""

    async def start(self, executable):
        self.profile = tempfile.mkdtemp(prefix="mockd-chromium-")
        self.process = subprocess.Popen(
            [
                executable,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--remote-debugging-port=0",
                "--user-data-dir=" + self.profile,
                "--window-size=1280,800",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + WAIT_SECONDS
        while not (os.path.exists(port_file) and len(open(port_file).read().split("\n")) >= 2):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("chromium did not open its DevTools port")
            await asyncio.sleep(0.05)
        port, path = open(port_file).read().split("\n")[:2]
        self.socket = await websockets.connect("ws://127.0.0.1:%s%s" % (port, path), max_size=None)
        self.next_id = 0
        self.pending = {}
        self.listeners = []
        self.reader = asyncio.ensure_future(self.read())
        self.downloads = os.path.join(self.profile, "downloads")
        os.makedirs(self.downloads)
        await self.send("Browser.setDownloadBehavior", behavior="allow", downloadPath=self.downloads)

    async def downloaded(self, name):
        """The text of the file the browser downloaded as `name`, once it is complete."""
        path = os.path.join(self.downloads, name)
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if os.path.exists(path) and not os.path.exists(path + ".crdownload"):
                text = open(path, encoding="utf-8").read()
                if text:
                    return text
            await asyncio.sleep(0.05)
        raise CheckFailed("the browser did not download %s (%r)" % (name, os.listdir(self.downloads)))

    async def read(self):
        async for text in self.socket:
            message = json.loads(text)
            if "id" in message and message["id"] in self.pending:
                self.pending.pop(message["id"]).set_result(message)
            else:
                for listener in list(self.listeners):
                    listener(message)

    async def send(self, method, session=None, **params):
        self.next_id += 1
        future = asyncio.get_event_loop().create_future()
        self.pending[self.next_id] = future
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        await self.socket.send(json.dumps(message))
        answer = await asyncio.wait_for(future, WAIT_SECONDS)
        if "error" in answer:
            raise RuntimeError("%s: %s" % (method, answer["error"]))
        return answer.get("result", {})

    async def new_page(self):
        target = await self.send("Target.createTarget", url="about:blank")
        attached = await self.send("Target.attachToTarget", targetId=target["targetId"], flatten=True)
        page = Page(self, attached["sessionId"], target["targetId"])
        await page.send("Page.enable")
        await page.send("Runtime.enable")
        await page.send(
            "Emulation.setDeviceMetricsOverride", width=1280, height=800, deviceScaleFactor=1, mobile=False
        )
        return page

    async def stop(self):
        try:
            await self.send("Browser.close")
        except Exception:
            pass
        self.reader.cancel()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser, session, target):
        self.browser = browser
        self.session = session
        self.target = target
        self.errors = []
        browser.listeners.append(self.listen)

    def listen(self, message):
        if message.get("sessionId") != self.session:
            return
        if message.get("method") == "Runtime.exceptionThrown":
            self.errors.append(message["params"]["exceptionDetails"].get("text", ""))
        if message.get("method") == "Runtime.consoleAPICalled" and message["params"]["type"] == "error":
            self.errors.append(" ".join(str(arg.get("value", "")) for arg in message["params"]["args"]))

    async def send(self, method, **params):
        return await self.browser.send(method, session=self.session, **params)

    async def evaluate(self, expression):
        """The value of a JavaScript expression (a promise is awaited), by value."""
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError("%s: %s" % (expression, result["exceptionDetails"]))
        return result["result"].get("value")

    async def wait(self, expression, what, timeout=WAIT_SECONDS):
        """Polls `expression` until it is truthy; returns its value or fails naming `what`."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = await self.evaluate(expression)
            except RuntimeError as error:
                last = str(error)
            else:
                if last:
                    return last
            await asyncio.sleep(0.05)
        raise CheckFailed("timed out waiting for %s (last: %r)" % (what, last))

    async def goto(self, url, ready="document.readyState === 'complete'"):
        await self.send("Page.navigate", url=url)
        await self.wait("location.href.startsWith(%s) && %s" % (json.dumps(url.split("#")[0]), ready), url)

    async def click(self, selector):
        """A real mouse click (pressed and released) at the middle of the element."""
        box = await self.wait(
            "(() => { const e = document.querySelector(%s); if (!e || e.offsetParent === null) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()" % json.dumps(selector),
            "a visible " + selector,
        )
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1
            )

    async def type(self, selector, text):
        await self.click(selector)
        await self.send("Input.insertText", text=text)

    async def text(self, selector):
        return await self.evaluate(
            "(() => { const e = document.querySelector(%s); return e ? e.textContent : null; })()"
            % json.dumps(selector)
        )

    async def texts(self, selector):
        return await self.evaluate(
            "Array.from(document.querySelectorAll(%s), (e) => e.textContent)" % json.dumps(selector)
        )

    async def screenshot(self, directory, name):
        if not directory:
            return
        shot = await self.send("Page.captureScreenshot", format="png")
        with open(os.path.join(directory, "dashboard-%s.png" % name), "wb") as file:
            file.write(base64.b64decode(shot["data"]))

    async def close(self):
        self.browser.listeners.remove(self.listen)
        await self.browser.send("Target.closeTarget", targetId=self.target)


def rows(selector):
    """JavaScript: the cells' text of every row under `selector`."""
    return "Array.from(document.querySelectorAll(%s), (r) => Array.from(r.cells, (c) => c.textContent))" % json.dumps(
        selector
    )


async def wait_for_health(daemon, key, value, what, token=None):
    deadline = time.monotonic() + WAIT_SECONDS
    last = None
    while time.monotonic() < deadline:
        _, health = daemon.control("GET", "health", token=token)
        last = health.get(key)
        if last == value:
            return
        await asyncio.sleep(0.05)
    raise CheckFailed("timed out waiting for %s (health %s = %r)" % (what, key, last))


# MARK: - the checks


class Run:
    def __init__(self, args):
        self.args = args
        self.failures = []

    async def check(self, name, body):
        started = time.monotonic()
        try:
            await body()
        except Exception as error:  # a failed check must not stop the others
            detail = str(error) if isinstance(error, CheckFailed) else traceback.format_exc()
            self.failures.append(name)
            print("FAIL %s: %s" % (name, detail), flush=True)
        else:
            print("ok   %s (%.1f s)" % (name, time.monotonic() - started), flush=True)


def body_file(name):
    return open(os.path.join(ROOT, "mocks", "chat", "bodies", name), "rb").read()


async def main_checks(run, browser, mockd, shots):
    daemon = Daemon(mockd)
    try:
        ui = daemon.base + "/__mockd/ui"
        # Traffic before the page opens: two sessions besides the default one.
        equal(daemon.request("GET", "/v1/me", session="alpha", headers={"X-Test": "hello"})[0], 200, "GET /v1/me")
        # lastActivity has millisecond resolution and a tie keeps the first session: beta's request must arrive
        # in a later millisecond for it to be the newest (back to back, both can land in the same one).
        time.sleep(0.01)
        equal(daemon.request("GET", "/v1/conversations", session="beta")[0], 200, "GET /v1/conversations")
        page = await browser.new_page()

        async def sessions_list():
            await page.goto(ui)
            shown = await page.wait(
                "(() => { const r = %s; return r.length === 3 ? r : null; })()" % rows("#sessions tbody tr"),
                "three sessions",
            )
            equal([row[:3] for row in shown], [
                ["default", "chat_happy_path", "0"],
                ["alpha", "chat_happy_path", "1"],
                ["beta", "chat_happy_path", "1"],
            ], "sessions list (session, scenario, requests)")
            expect(shown[1][3].endswith("s ago"), "alpha's last activity %r is 'N s ago'" % shown[1][3])
            equal(shown[0][3], "never", "default session's last activity")
            equal(daemon.control("GET", "journal")[1]["count"], 0, "the page's own loads in the default journal")
            headers = daemon.request("GET", "/__mockd/ui")[1]
            equal(
                headers.get("content-security-policy"),
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                "Content-Security-Policy of /__mockd/ui",
            )
            equal(headers.get("x-frame-options"), "DENY", "X-Frame-Options")
            equal(await page.evaluate("document.querySelectorAll('script:not([src])').length"), 0, "inline scripts")

        await run.check("sessions list shows the exact sessions", sessions_list)

        async def opened_fresh():
            # No ?session=: the page follows the session with the newest request (beta), live, without a click.
            selected = await page.wait(
                "(() => { const r = document.querySelector('#sessions tr.selected');"
                " return r ? r.dataset.session : null; })()", "a session selected")
            equal(selected, "beta", "the session selected when the page opens")
            equal(await page.text("#session-title"), "Session beta", "the session shown")
            await page.wait("document.getElementById('live').textContent === 'live'", "the live badge")
            shown = await page.wait(
                "(() => { const r = %s; return r.length === 1 ? r[0] : null; })()" % rows("#journal tbody tr"),
                "beta's journal row")
            equal(shown[3], "/v1/conversations", "beta's request in the journal")

        await run.check("opened fresh, the page follows the active session live", opened_fresh)

        async def live_journal():
            await page.click('#sessions tr[data-session="alpha"]')
            first = await page.wait(
                "(() => { const r = %s; return r.length === 1 ? r[0] : null; })()" % rows("#journal tbody tr"),
                "alpha's journal row",
            )
            equal([first[0], first[2], first[3], first[4], first[5], first[7]],
                  ["1", "GET", "/v1/me", "200", "GET_v1_me", ""], "first journal row")
            expect(first[6].endswith(" ms"), "latency cell %r" % first[6])
            await page.screenshot(shots, "sessions")
            await page.evaluate("window.__notReloaded = true")
            equal(daemon.request("GET", "/v1/conversations?page=2", session="alpha")[0], 404, "miss")
            second = await page.wait(
                "(() => { const r = %s; return r.length === 2 ? r[1] : null; })()" % rows("#journal tbody tr"),
                "the curl request in the live journal",
            )
            equal([second[0], second[2], second[3], second[4], second[5]],
                  ["2", "GET", "/v1/conversations?page=2", "404", "no match"], "live row")
            equal(await page.evaluate("window.__notReloaded === true"), True, "the page was not reloaded")
            equal(await page.text("#live"), "live", "live badge")

        await run.check("a curl request appears in the live journal without reload", live_journal)

        async def detail():
            await page.click('#journal tr[data-seq="1"]')
            await page.wait("!!document.querySelector('#detail-response pre')", "the response body")
            request_headers = await page.evaluate(rows("#detail-request table.headers tr"))
            expect(["X-Test", "hello"] in request_headers, "request header X-Test: hello in %r" % request_headers)
            expect(["X-Mockd-Session", "alpha"] in request_headers, "X-Mockd-Session in %r" % request_headers)
            response_headers = await page.evaluate(rows("#detail-response table.headers tr"))
            expect(["ETag", 'W/"me-u_anna-17"'] in response_headers, "ETag in %r" % response_headers)
            expected = json.dumps(json.loads(body_file("GET_v1_me.json")), indent=2, ensure_ascii=False)
            equal(await page.text("#detail-response pre.json"), expected, "pretty-printed JSON body")
            equal(await page.text("#detail-title"), "#1 GET /v1/me", "detail title")
            await page.screenshot(shots, "detail")

        await run.check("the detail view shows the exact headers and body", detail)

        async def image_and_hex():
            equal(daemon.request("GET", "/v1/users/u_olga/avatar.png", session="alpha")[0], 200, "avatar")
            png = body_file("GET_v1_users_u_olga_avatar.png")
            width = int.from_bytes(png[16:20], "big")
            await page.click('#journal tr[data-seq="3"]')
            shown = await page.wait(
                "(() => { const i = document.querySelector('#detail-response img.preview');"
                " return i && i.complete && i.naturalWidth > 0 ? [i.naturalWidth, i.src.slice(0, 22)] : null; })()",
                "the avatar image",
            )
            equal(shown, [width, "data:image/png;base64,"], "image preview (natural width, source)")
            binary = bytes([0, 1, 2, 255]) + b"hello"
            daemon.request("POST", "/v1/upload", session="alpha", body=binary,
                           headers={"Content-Type": "application/octet-stream"})
            await page.click('#journal tr[data-seq="4"]')
            dump = await page.wait("(() => { const p = document.querySelector('#detail-request pre.hex');"
                                   " return p ? p.textContent : null; })()", "the hex dump")
            equal(dump, "00000000  00 01 02 ff 68 65 6c 6c 6f" + " " * 22 + "  ....hello", "hex dump")

        await run.check("an image body is shown and a binary body as hex", image_and_hex)

        async def escaped():
            hostile = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'
            daemon.request("POST", "/v1/comments", session="alpha", body=hostile.encode(),
                           headers={"Content-Type": "text/html", "X-Evil": '<b onclick="x()">bold</b>'})
            await page.wait("document.querySelectorAll('#journal tbody tr').length === 5", "row 5")
            await page.click('#journal tr[data-seq="5"]')
            text = await page.wait("(() => { const p = document.querySelector('#detail-request pre.text');"
                                   " return p ? p.textContent : null; })()", "the text body")
            equal(text, hostile, "body shown as text")
            equal(await page.evaluate("typeof window.__pwned"), "undefined", "no recorded script ran")
            equal(await page.evaluate("document.querySelectorAll('#detail img[src=\"x\"], #detail b').length"), 0,
                  "no recorded markup became elements")
            headers = await page.evaluate(rows("#detail-request table.headers tr"))
            expect(["X-Evil", '<b onclick="x()">bold</b>'] in headers, "header shown as text in %r" % headers)
            equal(page.errors, [], "script errors on the page")

        await run.check("recorded <script> and markup are shown as text and never run", escaped)

        async def miss():
            equal(daemon.request("GET", "/v1/conversations/c_1001/messages?limit=21", session="alpha")[0], 404,
                  "miss")
            await page.wait("document.querySelectorAll('#journal tbody tr').length === 6", "row 6")
            await page.click('#tabs button[data-tab="misses"]')
            card = '#view-misses .miss-card[data-seq="6"]'
            await page.wait("!!document.querySelector('%s table.side-by-side')" % card, "the near miss")
            first = await page.evaluate(
                "(() => { const t = document.querySelector('%s .near-miss');"
                " return [t.dataset.stub, Array.from(t.querySelectorAll('tbody tr'),"
                " (r) => Array.from(r.cells, (c) => c.textContent))]; })()" % card
            )
            equal(first, ["GET_v1_conversations_c_1001_messages__limit-20", [["query", "limit=20", "limit=21"]]],
                  "nearest stub and the part that differed, side by side")
            equal(await page.evaluate("document.querySelector('#view-misses .miss-card').dataset.seq"), "6",
                  "the newest miss first")
            await page.evaluate("document.getElementById('session').scrollTop = 0")
            await page.screenshot(shots, "miss")

        await run.check("a miss shows the differing key part side by side", miss)

        async def coverage():
            await page.click('#tabs button[data-tab="coverage"]')
            await page.wait("!!document.querySelector('#coverage-session ul, #coverage-session p')", "coverage")
            _, report = daemon.control("GET", "coverage", session="alpha")
            session = report["session"]
            titles = await page.texts("#coverage-session h3")
            equal(titles[0], "Stubs never used (%d of %d used)" % (session["stubs"]["used"], session["stubs"]["total"]),
                  "stub coverage title")
            unused = await page.texts("#coverage-session > div:first-child li")
            equal(unused, ["%s (%s)" % (stub["id"], stub["set"]) for stub in session["stubs"]["unused"]],
                  "unused stubs")
            expect("GET_v1_me (chat)" not in unused and "POST_v1_auth_sign-in (chat)" in unused,
                   "used GET_v1_me is not listed, unused sign-in is")
            overrides = await page.texts("#coverage-session > div:nth-child(2) li")
            equal(overrides, ["chat-events", "chat-socket"], "unused overrides")
            overall = await page.wait(
                "(() => { const d = document.querySelector('#overall .overall-scenario h3');"
                " return d ? d.textContent : null; })()", "overall coverage")
            equal(overall, "chat_happy_path (sessions default, alpha, beta)", "overall coverage per scenario")
            await page.screenshot(shots, "coverage")

        await run.check("coverage shows the stubs and overrides never used", coverage)

        async def web_socket_timeline():
            async with websockets.connect(
                "ws://127.0.0.1:%d/v1/conversations/c_1001/socket" % daemon.port,
                extra_headers={"X-Mockd-Session": "alpha"},
            ) as socket:
                greeting = await asyncio.wait_for(socket.recv(), WAIT_SECONDS)
                await socket.send(json.dumps({"type": "message", "text": "Where is my order?"}))
                typing = await asyncio.wait_for(socket.recv(), WAIT_SECONDS)
                answer = await asyncio.wait_for(socket.recv(), WAIT_SECONDS)
            await page.click('#tabs button[data-tab="websockets"]')
            frames = await page.wait(
                "(() => { const r = %s; return r.length === 6 ? r : null; })()" % rows("#view-websockets tbody tr"),
                "six frames",
            )
            equal([frame[1] for frame in frames], ["mockd → client", "client → mockd", "mockd → client",
                  "mockd → client", "client → mockd", "mockd → client"], "directions")
            equal([frame[2] for frame in frames], ["text"] * 4 + ["close"] * 2, "frame types")
            equal([frame[3] for frame in frames],
                  [greeting, json.dumps({"type": "message", "text": "Where is my order?"}), typing, answer,
                   "1000 ", "1000 "], "payloads")
            offsets = [int(frame[0][1:-3]) for frame in frames]
            expect(offsets[0] == 0 and offsets == sorted(offsets), "offsets %r grow from +0 ms" % offsets)
            expect(offsets[3] - offsets[1] >= 500, "the answer %r ms after the message (≥ 500)" % offsets)
            ticks = await page.evaluate("document.querySelectorAll('#view-websockets .timeline .tick').length")
            equal(ticks, 6, "timeline ticks")
            title = await page.text("#view-websockets h3")
            expect(title.startswith("/v1/conversations/c_1001/socket · connection 1 · 6 frames over "), title)
            await page.screenshot(shots, "websocket")

        await run.check("WebSocket frames of a connection on a timeline", web_socket_timeline)

        async def switch_scenario():
            await page.click('#tabs button[data-tab="journal"]')
            post = {"Content-Type": "application/json"}
            message = json.dumps({"text": "Where is my order?"}).encode()
            before = daemon.request("POST", "/v1/conversations/c_1001/messages", session="alpha", body=message,
                                    headers=post)
            expect(before[0] != 503, "chat_happy_path answers the send (got %d)" % before[0])
            await page.evaluate("(() => { const s = document.getElementById('scenario-select');"
                                " s.value = 'chat_send_fails'; s.dispatchEvent(new Event('change')); })()")
            await page.click("#scenario-switch")
            equal(await page.wait("(() => { const s = document.getElementById('status').textContent;"
                                  " return s.includes('now uses') ? s : null; })()", "the switch"),
                  "Session alpha now uses chat_send_fails", "status line")
            status, headers, _ = daemon.request("POST", "/v1/conversations/c_1001/messages", session="alpha",
                                                body=message, headers=post)
            equal((status, headers.get("retry-after")), (503, "5"), "the next send after the switch")
            last = daemon.control("GET", "journal", session="alpha")[1]["count"]
            await page.wait("document.querySelectorAll('#journal tbody tr').length === %d" % last, "the two sends")
            await page.click('#journal tr[data-seq="%d"]' % last)
            await page.wait("document.getElementById('detail-title').textContent.startsWith('#%d ')" % last, "the 503")
            await page.evaluate("document.getElementById('session').scrollTop = 0")
            await page.screenshot(shots, "journal")
            # The override that answered, from its link in the row.
            await page.click('#journal tr[data-seq="%d"] a.stub-link' % last)
            _, override = daemon.control("GET", "scenario/answers/send-503-then-ok", session="alpha")
            facts = await page.wait(
                "(() => { const r = %s; return r.length > 0 ? r : null; })()" % rows("#detail table.stub-facts tr"),
                "the override's facts",
            )
            equal(facts, [
                ["Kind", "override in scenario chat_send_fails (priority %d)" % override["priority"]],
                ["Matches", "POST /v1/conversations/{id}/messages"],
                ["Steps", "2, then repeatLast"],
            ], "the override behind the link")
            equal(await page.evaluate("document.querySelectorAll('#journal tbody tr').length"), 1,
                  "the journal shows what the override answered")
            await page.click("#filter-clear")
            await page.wait("document.querySelectorAll('#journal tbody tr').length === %d" % last, "all rows again")
            # A stub of a mock set, from its link.
            await page.click('#journal tr[data-seq="1"] a.stub-link')
            facts = await page.wait(
                "(() => { const r = %s; return r.length > 0 && r[0][1].startsWith('stub') ? r : null; })()"
                % rows("#detail table.stub-facts tr"),
                "the stub's facts",
            )
            equal(facts[:3], [
                ["Kind", "stub of mock set chat (scenario chat_send_fails)"],
                ["Request", "GET /v1/me"],
                ["Responses", "1, then repeatLast"],
            ], "the stub behind the link")
            expect(["ETag", 'W/"me-u_anna-17"'] in await page.evaluate(rows("#detail table.headers:not(.stub-facts) tr")),
                   "the stub's recorded response headers")
            await page.click("#filter-clear")
            await page.wait("document.querySelectorAll('#journal tbody tr').length === %d" % last, "all rows again")
            # The filter box: every word in the row's method, target, status, stub or fault.
            await page.type("#search", "post 503")
            shown = await page.wait(
                "(() => { const r = %s; return r.length === 1 ? r : null; })()" % rows("#journal tbody tr"),
                "one row for 'post 503'",
            )
            equal([shown[0][0], shown[0][2], shown[0][4], shown[0][5]], [str(last), "POST", "503", "send-503-then-ok"],
                  "the filtered row")
            await page.type("#search", " nothing-like-this")
            await page.wait("document.querySelectorAll('#journal tbody tr').length === 0", "no row")
            await page.evaluate("(() => { const s = document.getElementById('search'); s.value = '';"
                                " s.dispatchEvent(new Event('input')); })()")
            equal(daemon.control("GET", "scenario", session="beta")[1]["name"], "chat_happy_path",
                  "the other session keeps its scenario")

        await run.check("switching the scenario in the page changes what the next curl gets", switch_scenario)

        async def har():
            await page.click("#har")
            await page.wait("!document.getElementById('har-link').hidden", "the HAR link")
            equal(await page.evaluate("document.getElementById('har-link').download"), "mockd-alpha.har",
                  "download name")
            log = json.loads(await browser.downloaded("mockd-alpha.har"))["log"]
            _, journal = daemon.control("GET", "journal", session="alpha")
            equal(log["version"], "1.2", "HAR version")
            equal(len(log["entries"]), journal["count"], "HAR entries")
            equal(log["entries"][0]["request"]["url"], daemon.base + "/v1/me", "first HAR entry URL")
            equal(log["entries"][0]["response"]["status"], 200, "first HAR entry status")

        await run.check("the HAR download is a valid HAR of the session", har)

        async def reset():
            await page.click("#reset")
            await page.wait("document.getElementById('status').textContent === 'Session alpha was reset'", "reset")
            await page.wait("document.querySelectorAll('#journal tbody tr').length === 0", "an empty journal")
            equal(daemon.control("GET", "journal", session="alpha")[1]["count"], 0, "alpha's journal after reset")
            equal(daemon.control("GET", "journal", session="beta")[1]["count"], 1, "beta's journal after reset")
            daemon.request("GET", "/v1/me", session="alpha")
            row = await page.wait(
                "(() => { const r = %s; return r.length === 1 ? r[0] : null; })()" % rows("#journal tbody tr"),
                "the first request after reset",
            )
            equal([row[0], row[3]], ["1", "/v1/me"], "numbering starts over")

        await run.check("reset empties the session and the live journal follows", reset)

        async def latency_and_fault():
            for stub in ({"id": "slow", "match": {"path": "/v1/slow"}, "status": 200, "latency": 300},
                         {"id": "broken", "match": {"path": "/v1/broken"}, "fault": "connectionReset"},
                         {"id": "unread-0", "match": {"path": "/v1/me"}, "bodyPatch": {"unreadTotal": 0}}):
                equal(daemon.control("POST", "stubs", session="delta", body=stub)[0], 201, "runtime stub")
            equal(daemon.request("GET", "/v1/slow", session="delta")[0], 200, "the slow answer")
            try:
                daemon.request("GET", "/v1/broken", session="delta")
                raise CheckFailed("the broken stub answered")
            except (ConnectionError, http.client.HTTPException):
                pass
            equal(daemon.request("GET", "/v1/me", session="delta")[0], 200, "the patched answer")
            await page.click('#sessions tr[data-session="delta"]')
            shown = await page.wait(
                "(() => { const r = %s; return r.length === 3 ? r : null; })()" % rows("#journal tbody tr"),
                "delta's three rows",
            )
            equal([shown[0][2:6], shown[1][2:6], shown[2][2:6]], [["GET", "/v1/slow", "200", "slow"],
                                                                  ["GET", "/v1/broken", "—", "broken"],
                                                                  ["GET", "/v1/me", "200", "unread-0 › GET_v1_me"]],
                  "the rows (a patched stub names the runtime stub and the stub it edited)")
            links = await page.evaluate("Array.from(document.querySelectorAll('#journal tr[data-seq=\"3\"] a.stub-link'),"
                                        " (a) => a.dataset.stub)")
            equal(links, ["unread-0", "GET_v1_me"], "both are links")
            expect(float(shown[0][6].split()[0]) >= 300, "the simulated latency %r (≥ 300 ms)" % shown[0][6])
            equal([shown[0][7], shown[1][7]], ["", "connectionReset"], "faults")
            await page.click('#journal tr[data-seq="2"]')
            equal(await page.wait("(() => { const h = document.querySelector('#detail-response h3');"
                                  " return h ? h.textContent : null; })()", "the fault's detail"),
                  "Response (none: connectionReset)", "no response, the fault")

        await run.check("latency and faults applied are in the journal", latency_and_fault)

        async def tab_closed():
            await wait_for_health(daemon, "liveJournals", 1, "the page's live journal")
            await page.close()
            await wait_for_health(daemon, "liveJournals", 0, "the closed tab's live journal released")

        await run.check("a closed tab releases its live journal", tab_closed)

        async def cross_origin():
            evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EvilPage)
            threading.Thread(target=evil.serve_forever, daemon=True).start()
            other = await browser.new_page()
            try:
                await other.goto("http://127.0.0.1:%d/" % evil.server_address[1])
                base = json.dumps(daemon.base)
                answers = await other.evaluate(
                    "(async () => { const base = %s; const out = [];"
                    " for (const [path, init] of ["
                    "   ['/__mockd/reset?session=beta', {method: 'POST', mode: 'no-cors'}],"
                    "   ['/__mockd/stubs?session=beta', {method: 'POST', mode: 'no-cors',"
                    "     body: JSON.stringify({match: {path: '/v1/me'}, status: 500})}],"
                    "   ['/__mockd/scenario?session=beta', {method: 'PUT', mode: 'no-cors',"
                    "     body: JSON.stringify({name: 'chat_send_fails'})}],"
                    "   ['/__mockd/reset', {method: 'POST', headers: {'X-Mockd-Session': 'beta'}}],"
                    "   ['/__mockd/journal?session=beta', {}]]) {"
                    "   try { const r = await fetch(base + path, init); out.push(r.type + ' ' + r.status); }"
                    "   catch (e) { out.push(e.name); } }"
                    " return out; })()" % base
                )
                # no-cors sends a POST but lets the page read nothing; a PUT or a custom header needs a preflight, refused.
                equal(answers, ["opaque 0", "opaque 0", "TypeError", "TypeError", "TypeError"],
                      "what the other origin got")
                equal(daemon.control("GET", "journal", session="beta")[1]["count"], 1, "beta's journal untouched")
                equal(daemon.control("GET", "stubs", session="beta")[1]["stubs"], [], "no stub added to beta")
                equal(daemon.control("GET", "scenario", session="beta")[1]["name"], "chat_happy_path",
                      "beta's scenario untouched")
            finally:
                await other.close()
                evil.shutdown()

        await run.check("a cross-origin page cannot drive the control API", cross_origin)
    finally:
        daemon.stop()


class EvilPage(http.server.BaseHTTPRequestHandler):
    """A page of another origin (another port) that tries to drive the daemon."""

    def do_GET(self):
        body = b"<!doctype html><title>elsewhere</title><p>another origin</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


async def token_checks(run, browser, mockd):
    daemon = Daemon(mockd, ["--control-token", "s3cret-token-0123"])
    try:
        ui = daemon.base + "/__mockd/ui"
        daemon.request("GET", "/v1/me", session="gamma")

        async def asks_and_uses_the_token():
            page = await browser.new_page()
            try:
                await page.goto(ui)
                await page.wait("!document.getElementById('token-form').hidden", "the token form")
                equal(await page.evaluate("document.querySelectorAll('#sessions tbody tr').length"), 0,
                      "nothing shown without the token")
                await page.type("#token-input", "wrong")
                await page.click("#token-save")
                await page.wait("document.getElementById('token-error').textContent === 'The token was refused.'",
                                "the refusal")
                await page.type("#token-input", "s3cret-token-0123")
                await page.click("#token-save")
                shown = await page.wait(
                    "(() => { const r = %s; return r.length === 2 ? r : null; })()" % rows("#sessions tbody tr"),
                    "sessions with the token",
                )
                equal([row[0] for row in shown], ["default", "gamma"], "sessions")
                equal(await page.evaluate("document.getElementById('token-form').hidden"), True, "form hidden")
                equal(await page.evaluate("document.cookie"), "", "no cookie holds the token")
            finally:
                await page.close()

        await run.check("with a control token the page asks for it and then works", asks_and_uses_the_token)

        async def fragment_token_and_live_feed():
            page = await browser.new_page()
            try:
                await page.goto(ui + "?session=gamma#token=s3cret-token-0123")
                await page.wait("document.querySelectorAll('#journal tbody tr').length === 1", "gamma's journal")
                equal(await page.evaluate("location.hash"), "", "the token left the address bar")
                daemon.request("GET", "/v1/conversations", session="gamma")
                row = await page.wait(
                    "(() => { const r = %s; return r.length === 2 ? r[1] : null; })()" % rows("#journal tbody tr"),
                    "the live row with the token",
                )
                equal([row[2], row[3], row[4]], ["GET", "/v1/conversations", "200"], "live row")
                await page.click("#har")
                await page.wait("!document.getElementById('har-link').hidden", "the HAR link")
                text = await browser.downloaded("mockd-gamma.har")
                equal(len(json.loads(text)["log"]["entries"]), 2, "HAR entries with the token")
                equal(daemon.control("GET", "sessions")[0], 401, "the API without the token")
            finally:
                await page.close()

        await run.check("#token= on first load, the live journal and the HAR with a token", fragment_token_and_live_feed)
    finally:
        daemon.stop()


async def push_checks(run, browser, mockd, shots):
    """Pushes caused by a request (chat_live_receipts): the journal links each push to its cause and back."""
    daemon = Daemon(mockd, config="chat_live_receipts")
    try:

        async def cause_and_effect():
            # The app's event stream, open while it sends: the events are pushed into it.
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.port)
            writer.write(b"GET /v1/conversations/c_1001/events HTTP/1.1\r\nHost: mockd\r\nX-Mockd-Session: live\r\n\r\n")
            await writer.drain()
            await asyncio.wait_for(reader.readuntil(b"event: presence"), WAIT_SECONDS)
            async with websockets.connect(
                "ws://127.0.0.1:%d/v1/conversations/c_1001/socket" % daemon.port,
                extra_headers={"X-Mockd-Session": "live"},
            ) as socket:
                await asyncio.wait_for(socket.recv(), WAIT_SECONDS)
                message = json.dumps({"text": "Where is my order?", "clientMessageId": "cm-1"}).encode()
                status = daemon.request("POST", "/v1/conversations/c_1001/messages", session="live", body=message,
                                        headers={"Content-Type": "application/json"})[0]
                equal(status, 201, "the send")
                pushed = [json.loads(await asyncio.wait_for(socket.recv(), WAIT_SECONDS)) for _ in range(4)]
                equal([push["type"] for push in pushed], ["receipt", "receipt", "typing", "message"], "pushes")
                await asyncio.wait_for(reader.readuntil(b"event: message"), WAIT_SECONDS)
                writer.close()
                await socket.send(json.dumps({"type": "read"}))
                _, journal = daemon.control("GET", "journal", session="live")
                deadline = time.monotonic() + WAIT_SECONDS
                while not any(entry["method"] == "STATE" for entry in journal["entries"]):
                    expect(time.monotonic() < deadline, "the state change in the journal")
                    await asyncio.sleep(0.05)
                    _, journal = daemon.control("GET", "journal", session="live")
            entries = journal["entries"]
            post = next(entry for entry in entries if entry["method"] == "POST")
            pushes = [entry for entry in entries if entry.get("causedBy") == post["sequence"]]
            page = await browser.new_page()
            try:
                await page.goto(daemon.base + "/__mockd/ui?session=live")
                await page.wait("document.querySelectorAll('#journal tbody tr').length >= %d" % len(entries),
                                "the live session's rows")
                links = await page.texts('#journal tr[data-seq="%d"] a.cause' % pushes[0]["sequence"])
                equal(links, ["← #%d" % post["sequence"]], "a push's row links its cause")
                await page.click('#journal tr[data-seq="%d"]' % post["sequence"])
                effects = await page.wait(
                    "(() => { const r = Array.from(document.querySelectorAll('#detail-effects li a'),"
                    " (a) => a.textContent); return r.length === %d ? r : null; })()" % len(pushes),
                    "the send's effects",
                )
                equal(effects, ["#%d %s %s" % (push["sequence"], push["method"], push["target"]) for push in pushes],
                      "what the send caused")
                equal(sorted(set(push["method"] for push in pushes)), ["SSE-OUT", "WS-OUT"], "both channels")
                equal([push.get("note") for push in pushes], [None] * len(pushes), "every push reached its connection")
                await page.evaluate("document.getElementById('detail').scrollIntoView({block: 'end'})")
                await page.screenshot(shots, "pushes")
                # From an effect to its cause and back.
                await page.click('#journal tr[data-seq="%d"] a.cause' % pushes[-1]["sequence"])
                await page.wait("document.getElementById('detail-title').textContent.startsWith('#%d POST')"
                                % post["sequence"], "the cause's detail")
                state = next(entry for entry in entries if entry["method"] == "STATE")
                await page.click('#journal tr[data-seq="%d"]' % state["sequence"])
                cause = await page.wait(
                    "(() => { const e = document.getElementById('detail-cause'); return e ? e.textContent : null; })()",
                    "the state change's cause",
                )
                equal(cause, "Caused by ← #%d WS-IN /v1/conversations/c_1001/socket" % state["causedBy"],
                      "the state change names the socket message")
                equal(page.errors, [], "no script errors")
            finally:
                await page.close()

        await run.check("pushes link to the request that caused them, and back", cause_and_effect)
    finally:
        daemon.stop()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mockd", default=os.path.join(ROOT, ".build", "debug", "mockd"))
    parser.add_argument("--screenshots", help="write the main views as PNG files into this folder")
    args = parser.parse_args()
    chromium = find_chromium()
    if not chromium:
        print("SKIPPED [chromium] dashboard_test.py: Chromium is not installed (apt-get install chromium, or set MOCKD_CHROMIUM)")
        return 0
    if not os.access(args.mockd, os.X_OK):
        print("browser-tests: %s is not built (swift build)" % args.mockd)
        return 1
    run = Run(args)
    browser = Browser()
    await browser.start(chromium)
    try:
        await main_checks(run, browser, args.mockd, args.screenshots)
        await push_checks(run, browser, args.mockd, args.screenshots)
        await token_checks(run, browser, args.mockd)
    finally:
        await browser.stop()
    if run.failures:
        print("browser-tests: %d failed: %s" % (len(run.failures), "; ".join(run.failures)))
        return 1
    print("browser-tests: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
