import Foundation
import MockdTestSupport
import Testing

/// `POST /__mockd/emit` from many clients at once, on the real daemon: several sessions, each with several open
/// WebSockets (Python's `websockets`) and event streams (a raw HTTP/1.1 reader), and many emits posted in parallel
/// from a thread pool. Every push reaches exactly its own session's open connections, each exactly once, none
/// another session's; every emit answers with its own session and the connections it reached; the journal holds
/// each push once per connection it reached, in its own session.
struct ConcurrentEmitTests {
    static let scenario = #"""
        {"sets": ["chat"], "overrides": [
          {"id": "live", "match": {"path": "/live"}, "websocket": {"steps": []}},
          {"id": "feed", "match": {"path": "/feed"}, "events": {"items": [], "keepOpen": true}}
        ]}
        """#

    static let sessions = 4
    static let socketsPerSession = 3
    static let streamsPerSession = 2
    static let emitsPerSession = 30

    @Test func everyEmitReachesExactlyItsOwnSessionsSocketsAndStreams() throws {
        try RunningDaemon.serving(Self.scenario) { daemon in
            let result = try PushTests.python(
                daemon,
                """
                import concurrent.futures
                SESSIONS = ["tenant-%d" % n for n in range(\(Self.sessions))]
                SOCKETS, STREAMS, EMITS = \(Self.socketsPerSession), \(Self.streamsPerSession), \(Self.emitsPerSession)
                def open_sockets():
                    request = urllib.request.Request(BASE + "/__mockd/ws?all=true")
                    with urllib.request.urlopen(request) as response:
                        return json.loads(response.read())["connections"]
                sockets, streams = {}, {}
                for session in SESSIONS:
                    sockets[session] = [await websockets.connect(URL + "/live", extra_headers={"X-Mockd-Session": session}) for _ in range(SOCKETS)]
                    streams[session] = [await SSE().open("/feed", session) for _ in range(STREAMS)]
                # The upgrade completes on the client before the daemon registers the socket: wait until it lists all.
                for _ in range(200):
                    if len(open_sockets()) == len(SESSIONS) * SOCKETS: break
                    await asyncio.sleep(0.02)
                out = {"statuses": [s.status for ss in streams.values() for s in ss], "receipts": {}}
                def emit(session, n):
                    text = "%s #%d" % (session, n)
                    body = {"emit": [{"websocket": {"path": "/live", "send": text}},
                                     {"events": {"path": "/feed", "event": "note", "id": "%d" % n, "data": text}}]}
                    request = urllib.request.Request(BASE + "/__mockd/emit", method="POST", data=json.dumps(body).encode())
                    request.add_header("X-Mockd-Session", session)
                    request.add_header("Content-Type", "application/json")
                    with urllib.request.urlopen(request) as response:
                        return session, response.status, json.loads(response.read())
                # Emits of every session interleaved, posted from 12 threads at once.
                jobs = [(session, n) for n in range(EMITS) for session in SESSIONS]
                with concurrent.futures.ThreadPoolExecutor(max_workers=12) as pool:
                    answers = await asyncio.gather(*[asyncio.get_running_loop().run_in_executor(pool, emit, s, n) for s, n in jobs])
                for session, status, answer in answers:
                    receipt = [status, answer["session"]] + [[p["channel"], p["target"], p["openConnections"]] for p in answer["pushes"]]
                    out["receipts"].setdefault(session, []).append(receipt)
                # What each connection received: everything due, then nothing more for a while.
                async def drain_socket(ws):
                    got = []
                    try:
                        while True: got.append(await asyncio.wait_for(ws.recv(), 1.5 if len(got) >= EMITS else 10))
                    except asyncio.TimeoutError:
                        return got
                async def drain_stream(stream):
                    got = []
                    try:
                        while True:
                            event = await asyncio.wait_for(stream.next(), 1.5 if len(got) >= EMITS else 10)
                            got.append([event.get("event"), event.get("id"), event.get("data")])
                    except asyncio.TimeoutError:
                        return got
                drained = await asyncio.gather(
                    *[asyncio.gather(*[drain_socket(ws) for ws in sockets[s]]) for s in SESSIONS],
                    *[asyncio.gather(*[drain_stream(st) for st in streams[s]]) for s in SESSIONS])
                out["sockets"] = dict(zip(SESSIONS, drained[:len(SESSIONS)]))
                out["streams"] = dict(zip(SESSIONS, drained[len(SESSIONS):]))
                out["journals"] = {s: control("GET", "journal", s)["entries"] for s in SESSIONS}
                for session in SESSIONS:
                    for ws in sockets[session]: await ws.close()
                    for stream in streams[session]: stream.close()
                return out
                """
            )
            #expect(
                result["statuses"] as? [Int] == Array(repeating: 200, count: Self.sessions * Self.streamsPerSession)
            )
            let receipts = try #require(result["receipts"] as? [String: [[Any]]])
            let sockets = try #require(result["sockets"] as? [String: [[String]]])
            let streams = try #require(result["streams"] as? [String: [[[String]]]])
            let journals = try #require(result["journals"] as? [String: [[String: Any]]])
            for index in 0..<Self.sessions {
                let session = "tenant-\(index)"
                let texts = (0..<Self.emitsPerSession).map { "\(session) #\($0)" }
                // Every emit answered for its own session, each push reaching that session's connections now.
                let answered = try #require(receipts[session])
                #expect(answered.count == Self.emitsPerSession)
                for receipt in answered {
                    #expect(receipt[0] as? Int == 200)
                    #expect(receipt[1] as? String == session)
                    #expect(receipt[2] as? [AnyHashable] == ["websocket", "/live", Self.socketsPerSession])
                    #expect(receipt[3] as? [AnyHashable] == ["events", "/feed", Self.streamsPerSession])
                }
                // Each socket and stream got its own session's pushes, each once (in any order: the emits raced).
                let received = try #require(sockets[session])
                #expect(received.count == Self.socketsPerSession)
                for messages in received { #expect(messages.sorted() == texts.sorted(), "socket of \(session)") }
                let events = try #require(streams[session])
                #expect(events.count == Self.streamsPerSession)
                let expectedEvents = (0..<Self.emitsPerSession).map { ["note", "\($0)", "\(session) #\($0)"] }
                for stream in events {
                    #expect(
                        stream.sorted { $0[1].count == $1[1].count ? $0[1] < $1[1] : $0[1].count < $1[1].count }
                            == expectedEvents,
                        "stream of \(session)"
                    )
                }
                // The journal holds each push once per connection it reached, in its session, noted as the emit's.
                let entries = try #require(journals[session])
                let pushes = entries.filter { ["WS-OUT", "SSE-OUT"].contains($0["method"] as? String) }
                let opened = entries.filter { $0["method"] as? String == "GET" }.compactMap { $0["target"] as? String }
                #expect(
                    opened.sorted() == Array(repeating: "/feed", count: Self.streamsPerSession)
                        + Array(repeating: "/live", count: Self.socketsPerSession)
                )
                #expect(
                    pushes.count + opened.count == entries.count,
                    "only its own connections in \(session)'s journal"
                )
                // One WS-OUT per push and socket: each text once on each connection number.
                let sent = pushes.filter { $0["method"] as? String == "WS-OUT" }.map { entry in
                    "\((entry["headers"] as? [String] ?? []).filter { $0.hasPrefix("Connection-Number") }) \(entry["body"] ?? "")"
                }
                let eachSocket = (1...Self.socketsPerSession).flatMap { number in
                    texts.map { "[\"Connection-Number: \(number)\"] \($0)" }
                }
                #expect(sent.sorted() == eachSocket.sorted(), "WS-OUT of \(session)")
                let streamed = pushes.filter { $0["method"] as? String == "SSE-OUT" }.compactMap {
                    $0["body"] as? String
                }
                #expect(streamed.count == Self.emitsPerSession * Self.streamsPerSession, "SSE-OUT of \(session)")
                #expect(streamed.allSatisfy { $0.contains(session + " #") }, "\(streamed.prefix(2))")
                #expect(
                    pushes.allSatisfy {
                        $0["stub"] as? String == ($0["method"] as? String == "WS-OUT" ? "live" : "feed")
                    }
                )
                #expect(pushes.allSatisfy { $0["note"] as? String == "sent by POST /__mockd/emit" })
            }
        }
    }
}
