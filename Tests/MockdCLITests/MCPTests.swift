import Foundation
import MockdControl
import MockdTestSupport
import Testing

/// `mockd mcp` with the official Python MCP SDK (PyPI `mcp`, installed by scripts/install-deps into
/// `.build/test-venv`): the client lists the tools and calls every one against a live daemon, attached and run in
/// process. Skipped, saying so, when the SDK is not installed.
@Suite(.serialized)
struct MCPTests {
    static var python: URL? {
        let candidates = [
            ProcessInfo.processInfo.environment["MOCKD_TEST_PYTHON"],
            Paths.packageRoot.appendingPathComponent(".build/test-venv/bin/python").path,
        ].compactMap { $0 }
        for path in candidates where FileManager.default.isExecutableFile(atPath: path) {
            let check = try? ProcessRunner.run(URL(fileURLWithPath: path), ["-c", "import mcp"])
            if check?.status == 0 { return URL(fileURLWithPath: path) }
        }
        Skip.missing(
            .mcp,
            test: "MCPTests",
            "the Python MCP SDK is not installed (scripts/install-deps makes .build/test-venv)"
        )
        return nil
    }

    static let client = #"""
        import asyncio, json, sys, urllib.request
        from mcp import ClientSession, StdioServerParameters
        from mcp.client.stdio import stdio_client

        async def main():
            mockd, base, root, har = sys.argv[1:5]
            args = ["mcp", "--attach", base] if base != "-" else ["mcp", "--config", "s", "--root", root, "--quiet"]
            async with stdio_client(StdioServerParameters(command=mockd, args=args)) as (read, write):
                async with ClientSession(read, write) as session:
                    init = await session.initialize()
                    out = {"protocolVersion": init.protocol_version, "server": init.server_info.name}
                    listed = await session.list_tools()
                    out["tools"] = sorted(t.name for t in listed.tools)
                    out["schemasAreObjects"] = all(t.input_schema["type"] == "object" for t in listed.tools)
                    async def call(name, arguments):
                        result = await session.call_tool(name, arguments)
                        text = result.content[0].text if result.content else ""
                        try:
                            value = json.loads(text)
                        except ValueError:
                            value = text
                        return {"isError": bool(result.is_error), "value": value}
                    if base == "-":
                        out["list_scenarios"] = await call("list_scenarios", {})
                        print(json.dumps(out))
                        return
                    called = set()
                    async def call(name, arguments):
                        called.add(name)
                        result = await session.call_tool(name, arguments)
                        text = result.content[0].text if result.content else ""
                        try:
                            value = json.loads(text)
                        except ValueError:
                            value = text
                        return {"isError": bool(result.is_error), "value": value}
                    out["outputSchemas"] = sorted(t.name for t in listed.tools if t.output_schema)
                    t = {"session": "t1"}
                    out["health"] = await call("health", {})
                    out["list_scenarios"] = await call("list_scenarios", t)
                    out["use_scenario"] = await call("use_scenario", {**t, "name": "s"})
                    out["current_scenario"] = await call("current_scenario", t)
                    out["add_stub"] = await call("add_stub", {**t, "stub": {"id": "me", "match": {"path": "/v1/me"}, "status": 418}})
                    out["replace_stub"] = await call("add_stub", {**t, "stub": {"id": "me", "match": {"path": "/v1/me"}, "status": 451}})
                    out["list_stubs"] = await call("list_stubs", t)
                    out["get_stub"] = await call("get_stub", {**t, "id": "me"})
                    out["explain_answer"] = await call("explain_answer", {**t, "id": "me"})
                    for target in ["/v1/me", "/v1/nope"]:
                        request = urllib.request.Request(base + target, headers={"X-Mockd-Session": "t1"})
                        try:
                            urllib.request.urlopen(request)
                        except urllib.error.HTTPError as error:
                            out.setdefault("statuses", []).append(error.code)
                    out["read_journal"] = await call("read_journal", {**t, "limit": 10})
                    out["read_journal_filtered"] = await call("read_journal", {**t, "unmatched": True})
                    out["read_journal_entry"] = await call("read_journal_entry", {**t, "sequence": 2})
                    out["explain_miss"] = await call("explain_miss", t)
                    out["verify"] = await call("verify", {**t, "path": "/v1/me", "count": 1})
                    out["verify_fails"] = await call("verify", {**t, "path": "/v1/me", "count": 5})
                    out["coverage"] = await call("coverage", t)
                    out["check_contract"] = await call("check_contract", t)
                    out["list_sessions"] = await call("list_sessions", {})
                    out["move_clock"] = await call("move_clock", {**t, "advanceMs": 30000})
                    out["read_clock"] = await call("read_clock", t)
                    out["set_switches"] = await call("set_switches", {**t, "latencyScale": 0})
                    out["read_switches"] = await call("read_switches", t)
                    out["list_resources"] = await call("list_resources", t)
                    out["get_resource"] = await call("get_resource", {**t, "name": "orders"})
                    out["list_websockets"] = await call("list_websockets", {**t, "all": True})
                    out["push_websocket"] = await call("push_websocket", {**t, "text": "hi"})
                    out["close_websockets"] = await call("close_websockets", {**t, "code": 4001})
                    out["release_held"] = await call("release_held", t)
                    out["record_status"] = await call("record_status", t)
                    out["flush_recording"] = await call("flush_recording", t)
                    out["reload"] = await call("reload", {})
                    g = {**t, "name": "orders"}
                    out["replace_group"] = await call("replace_group", {**g, "stubs": [{"match": {"path": "/v1/orders"}, "status": 200}, {"id": "o1", "match": {"path": "/v1/orders/1"}, "status": 200}]})
                    out["add_group"] = await call("add_group", {**g, "stubs": [{"match": {"path": "/v1/orders/2"}, "status": 410}]})
                    out["bad_group"] = await call("replace_group", {**g, "stubs": [{"match": {"path": "/x"}, "status": 99}]})
                    out["list_groups"] = await call("list_groups", t)
                    out["stubs_with_group"] = await call("list_stubs", t)
                    out["remove_group"] = await call("remove_group", g)
                    out["remove_group_again"] = await call("remove_group", g)
                    out["remove_stub"] = await call("remove_stub", {**t, "id": "me"})
                    out["remove_all_stubs"] = await call("remove_all_stubs", t)
                    out["fail_requests"] = await call("fail_requests", {**t, "method": "GET", "path": "/v1/me", "fault": "offline"})
                    for redirected in [True, False]:
                        headers = {"X-Mockd-Session": "t1", **({"X-Mockd-Client-Faults": "1"} if redirected else {})}
                        try:
                            answer = urllib.request.urlopen(urllib.request.Request(base + "/v1/me", headers=headers))
                        except urllib.error.HTTPError as error:
                            answer = error
                        out.setdefault("after_fail", []).append(f"{answer.status} {answer.headers.get('X-Mockd-Client-Fault')}")
                    out["emit"] = await call("emit", {**t, "emit": [{"after": 20, "events": {"path": "/v1/feed", "event": "order", "data": {"id": 4521}}}]})
                    out["bad_emit"] = await call("emit", {**t, "emit": [{"events": {"path": "feed"}}]})
                    out["reset"] = await call("reset", t)
                    out["add_graphql_stub"] = await call("add_graphql_stub", {**t, "id": "user7", "operationName": "GetUser", "variables": {"id": "7"}, "path": "/graphql", "data": {"user": {"name": "Ada"}}})
                    out["add_graphql_errors"] = await call("add_graphql_stub", {**t, "operationName": "SendMessage", "errors": "Rate limited"})
                    for document, variables in [("query GetUser($id: ID!) { user(id: $id) { name } }", {"id": "7"}), ("mutation SendMessage { send }", None)]:
                        request = urllib.request.Request(base + "/graphql", data=json.dumps({"query": document, "variables": variables}).encode(), headers={"X-Mockd-Session": "t1", "Content-Type": "application/json"})
                        out.setdefault("graphql_answers", []).append(urllib.request.urlopen(request).read().decode())
                    out["set_clock"] = await call("set_clock", {**t, "set": "2030-01-01T09:00:00Z"})
                    out["advance_clock"] = await call("set_clock", {**t, "advanceMs": 86400000})
                    out["clock_both"] = await call("set_clock", {**t, "set": "2030-01-01T09:00:00Z", "advanceMs": 1})
                    out["set_seed"] = await call("set_seed", {**t, "seed": 42})
                    out["reset_again"] = await call("reset", t)
                    out["drop_session"] = await call("drop_session", t)
                    out["import_har"] = await call("import_har", {"file": har, "set": "agent", "root": root})
                    out["lint_set"] = await call("lint_set", {"set": "agent", "root": root})
                    out["diff"] = await call("diff", {"old": "chat", "new": "agent", "root": root})
                    out["diff_same"] = await call("diff", {"old": "chat", "new": "chat", "root": root})
                    out["diff_missing"] = await call("diff", {"old": "chat", "new": "nope", "root": root})
                    out["validate_scenario"] = await call("validate_scenario", {"name": "s", "root": root})
                    out["wrong_type"] = await call("read_journal", {"limit": "ten"})
                    out["out_of_range"] = await call("read_journal", {"limit": 99999999999999999999999})
                    out["unknown_argument"] = await call("reset", {"sesion": "t1"})
                    out["bad_session"] = await call("reset", {"session": "a b"})
                    out["notCalled"] = sorted(set(out["tools"]) - called)
                    print(json.dumps(out))

        asyncio.run(main())
        """#

    private func run(_ python: URL, base: String, root: URL, har: URL) throws -> [String: Any] {
        let script = root.appendingPathComponent("client.py")
        try Self.client.write(to: script, atomically: true, encoding: .utf8)
        let result = try ProcessRunner.run(
            python,
            [script.path, Paths.mockdBinary.path, base, root.path, har.path]
        )
        try #require(result.status == 0, "\(result.stderr)")
        let line = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func everyToolAgainstAnAttachedDaemon() throws {
        guard let python = Self.python else { return }
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("agent.har")
        try ImportHygieneTests.write(
            [ImportHygieneTests.entry("GET", "https://api.test/v1/ping", text: #"{"ok":true}"#)],
            to: har
        )
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let out = try run(python, base: daemon.baseURL, root: root, har: har)
        func tool(_ name: String) -> (isError: Bool, value: Any?) {
            let entry = out[name] as? [String: Any]
            return (entry?["isError"] as? Bool ?? true, entry?["value"])
        }
        #expect(out["protocolVersion"] as? String == "2025-11-25")
        #expect(out["server"] as? String == "mockd")
        // Every route of the control API's table is a tool unless it says why not, and every tool was called.
        let controlTools = try ControlTool.all().map(\.name)
        let offline = ["diff", "import_har", "lint_set", "validate_scenario"]
        #expect(out["tools"] as? [String] == (controlTools + offline).sorted())
        #expect(out["notCalled"] as? [String] == [])
        // The SDK checked every structured result against its tool's output schema (it raises when one does not fit).
        let answering = try ControlTool.all().filter { $0.outputSchema != nil }.map(\.name).sorted()
        #expect(out["outputSchemas"] as? [String] == answering)
        #expect(Set(controlTools).subtracting(answering) == ["remove_stub", "remove_all_stubs"], "204, no body")
        #expect((tool("replace_group").value as? [String: Any])?["stubs"] as? [String] == ["orders.1", "o1"])
        #expect((tool("add_group").value as? [String: Any])?["stubs"] as? [String] == ["orders.2"])
        #expect(tool("bad_group").isError)
        #expect((tool("bad_group").value as? String)?.hasPrefix("400: stubs[0]") == true, "\(out["bad_group"] ?? "")")
        let grouped = (tool("stubs_with_group").value as? [String: Any])?["stubs"] as? [[String: Any]] ?? []
        #expect(grouped.map { $0["id"] as? String } == ["me", "orders.1", "o1", "orders.2"])
        #expect(grouped.map { $0["group"] as? String } == [nil, "orders", "orders", "orders"])
        #expect((tool("remove_group").value as? [String: Any])?["removed"] as? Int == 3)
        #expect(tool("remove_group_again").value as? String == "404: session 't1' has no group 'orders'")
        #expect(out["schemasAreObjects"] as? Bool == true)
        #expect((tool("list_scenarios").value as? [String: Any])?["active"] as? String == "s")
        #expect((tool("use_scenario").value as? [String: Any])?["name"] as? String == "s")
        #expect((tool("add_stub").value as? [String: Any])?["id"] as? String == "me")
        #expect(tool("replace_stub").isError == false)
        #expect((tool("get_stub").value as? [String: Any])?["id"] as? String == "me")
        #expect((tool("explain_answer").value as? [String: Any])?["kind"] as? String == "runtimeStub")
        #expect((tool("health").value as? [String: Any])?["status"] as? String == "ok")
        #expect((tool("current_scenario").value as? [String: Any])?["name"] as? String == "s")
        let filtered = (tool("read_journal_filtered").value as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(filtered.map { $0["target"] as? String } == ["/v1/nope"])
        #expect((tool("read_journal_entry").value as? [String: Any])?["target"] as? String == "/v1/nope")
        #expect((tool("coverage").value as? [String: Any])?["session"] != nil)
        #expect(
            tool("check_contract").value as? String
                == "404: start mockd with --openapi <spec> to check requests against it"
        )
        #expect((tool("move_clock").value as? [String: Any])?["offsetMs"] as? Int == 30000)
        #expect((tool("read_switches").value as? [String: Any])?["latencyScale"] as? Double == 0)
        #expect(tool("get_resource").isError)
        #expect((tool("push_websocket").value as? [String: Any])?["delivered"] as? Int == 0)
        #expect((tool("close_websockets").value as? [String: Any])?["closed"] as? Int == 0)
        #expect((tool("release_held").value as? [String: Any])?["released"] as? Int == 0)
        #expect(tool("record_status").isError && tool("flush_recording").isError)
        #expect((tool("reload").value as? [String: Any])?["reloaded"] as? String == "s")
        #expect((tool("list_groups").value as? [String: Any])?["groups"] as? [[String: Any]] != nil)
        #expect(tool("remove_all_stubs").isError == false)
        #expect((tool("drop_session").value as? [String: Any])?["dropped"] as? String == "t1")
        let stubs = (tool("list_stubs").value as? [String: Any])?["stubs"] as? [[String: Any]] ?? []
        #expect(stubs.map { $0["id"] as? String } == ["me"])
        #expect(out["statuses"] as? [Int] == [451, 404])
        let journal = (tool("read_journal").value as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(journal.map { $0["target"] as? String } == ["/v1/me", "/v1/nope"])
        #expect(journal.map { $0["stub"] as? String } == ["me", nil])
        let misses = (tool("explain_miss").value as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        #expect(misses.map { $0["target"] as? String } == ["/v1/nope"])
        #expect((tool("verify").value as? [String: Any])?["count"] as? Int == 1, "\(out["verify"] ?? "")")
        #expect(tool("verify_fails").isError)
        #expect(
            (tool("verify_fails").value as? String)?.hasPrefix(
                "409: expected exactly 5 any method /v1/me, journal has 1"
            )
                == true
        )
        let sessions = (tool("list_sessions").value as? [String: Any])?["sessions"] as? [[String: Any]] ?? []
        #expect(sessions.contains { $0["id"] as? String == "t1" })
        #expect(tool("remove_stub").isError == false)
        // fail_requests: the next GET /v1/me is a client fault (told to a client that says it can raise one), the one
        // after it the set's answer again.
        #expect((tool("fail_requests").value as? [String: Any])?["session"] as? String == "t1")
        #expect(out["after_fail"] as? [String] == ["503 offline", "200 None"])
        let receipts = (tool("emit").value as? [String: Any])?["pushes"] as? [[String: Any]] ?? []
        #expect(receipts.map { $0["channel"] as? String } == ["events"])
        #expect(receipts.map { $0["target"] as? String } == ["/v1/feed"])
        #expect(receipts.map { ($0["dueInMs"] as? NSNumber)?.doubleValue } == [20])
        #expect(receipts.map { $0["openConnections"] as? Int } == [0])
        #expect(
            tool("bad_emit").isError
                && tool("bad_emit").value as? String
                    == """
                    400: body: emit[0].events.path: must start with '/' (got 'feed')
                    body: emit[0].events: give the event: data, event, id or retry
                    """,
            "\(out["bad_emit"] ?? "")"
        )
        #expect(tool("reset").isError == false)
        #expect((tool("add_graphql_stub").value as? [String: Any])?["id"] as? String == "user7")
        #expect(tool("add_graphql_errors").isError == false, "\(out["add_graphql_errors"] ?? "")")
        #expect(
            out["graphql_answers"] as? [String] == [
                #"{"data":{"user":{"name":"Ada"}}}"#, #"{"data":null,"errors":[{"message":"Rate limited"}]}"#,
            ]
        )
        #expect(
            ((tool("set_clock").value as? [String: Any])?["now"] as? String)?.hasPrefix("2030-01-01T09:00:") == true
        )
        #expect(
            ((tool("advance_clock").value as? [String: Any])?["now"] as? String)?.hasPrefix("2030-01-02T09:00:")
                == true,
            "\(out["advance_clock"] ?? "")"
        )
        #expect(
            tool("clock_both").isError
                && tool("clock_both").value as? String == "set_clock: give set or advanceMs, not both"
        )
        #expect((tool("set_seed").value as? [String: Any])?["seed"] as? Int == 42, "\(out["set_seed"] ?? "")")
        #expect((tool("import_har").value as? String)?.contains("stubs written:  1 (1 responses, 0 sequences)") == true)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("mocks/agent/index.json").path))
        #expect(tool("lint_set").isError == false)
        // diff: a changelog (exit 1, "they differ") is an answer, not a tool error; an unreadable side is one.
        let changes = tool("diff").value as? [String: Any]
        #expect(tool("diff").isError == false, "\(out["diff"] ?? "")")
        #expect((changes?["endpointsAdded"] as? [[String: Any]])?.map { $0["template"] as? String } == ["/v1/ping"])
        #expect(
            (changes?["endpointsRemoved"] as? [[String: Any]])?.contains { $0["template"] as? String == "/v1/me" }
                == true
        )
        let same = tool("diff_same").value as? [String: Any]
        #expect(tool("diff_same").isError == false)
        #expect((same?["endpointsAdded"] as? [Any])?.count == 0 && (same?["endpointsRemoved"] as? [Any])?.count == 0)
        #expect(tool("diff_missing").isError)
        #expect((tool("diff_missing").value as? String)?.contains("nope") == true, "\(out["diff_missing"] ?? "")")
        #expect(
            (tool("validate_scenario").value as? String)?.hasPrefix("ok: configs/s.json") == true,
            "\(out["validate_scenario"] ?? "")"
        )
        #expect(
            tool("wrong_type").isError
                && tool("wrong_type").value as? String == #"read_journal: "limit" must be an integer"#
        )
        #expect(
            tool("out_of_range").isError
                && tool("out_of_range").value as? String
                    == #"read_journal: "limit" must be a whole number from 1 to 10000"#
        )
        #expect(tool("unknown_argument").value as? String == #"reset: unknown argument "sesion" (known: all, session)"#)
        #expect(tool("bad_session").isError)
    }

    @Test func theDaemonRunsInProcessAndStopsWithTheClient() throws {
        guard let python = Self.python else { return }
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let out = try run(python, base: "-", root: root, har: root)
        #expect(out["protocolVersion"] as? String == "2025-11-25")
        #expect(((out["list_scenarios"] as? [String: Any])?["value"] as? [String: Any])?["active"] as? String == "s")
    }

    /// When the agent closes stdin, `mockd mcp` stops the daemon it runs cleanly and exits 0 (it used to die by its
    /// own SIGTERM, status 143). No SDK needed: a client that closes at once, and one that sends a request and closes,
    /// each starting mockd as an agent does (no signal blocked: a test runner's blocked signals would hide the bug).
    @Test func closingStdinStopsCleanlyWithExit0() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let client = """
            import json, signal, subprocess, sys
            def agent():
                signal.pthread_sigmask(signal.SIG_SETMASK, [])
            ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\\n"
            out = []
            for sent in [b"", ping.encode()]:
                done = subprocess.run(sys.argv[1:], input=sent, capture_output=True, timeout=30, preexec_fn=agent)
                out.append({"status": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()})
            print(json.dumps(out))
            """
        let run = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["-c", client, Paths.mockdBinary.path, "mcp", "--config", "s", "--root", root.path, "--quiet"]
        )
        let results = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        try #require(results.count == 2, "\(run.stderr)")
        for result in results {
            #expect(result["status"] as? Int == 0, "\(result["stderr"] ?? "")")
            #expect((result["stderr"] as? String)?.hasSuffix("mockd: SIGTERM received, stopping\n") == true)
        }
        #expect(results[0]["stdout"] as? String == "")
        let answer = try #require(
            try JSONSerialization.jsonObject(with: Data((results[1]["stdout"] as? String ?? "").utf8)) as? [String: Any]
        )
        #expect(answer["id"] as? Int == 1)
        #expect((answer["result"] as? [String: Any])?.isEmpty == true)
    }
}
