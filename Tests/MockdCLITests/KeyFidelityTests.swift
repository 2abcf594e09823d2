import Foundation
import MockdTestSupport
import Testing

/// Request keys that keep what tells requests apart (issue 18): repeated query names keep their values' order,
/// sequences of requests that differed are reported entry by entry, JSON numbers compare by exact decimal value,
/// and binary request bodies are keyed by their bytes. The real binary imports a hand-made HAR; curl asks.
@Suite(.serialized)
struct KeyFidelityTests {
    typealias HAR = ImportHygieneTests

    static func post(_ url: String, base64 body: Data, contentType: String, answer: String) -> [String: Any] {
        var entry = HAR.entry("POST", url, requestHeaders: [("Content-Type", contentType)], text: answer)
        var request = entry["request"] as! [String: Any]
        request["postData"] = ["mimeType": contentType, "text": body.base64EncodedString(), "_encoding": "base64"]
        entry["request"] = request
        return entry
    }

    @Test func requestsThatDifferStayApartAndMergedOnesAreReported() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("keys.har")
        let json = [("Content-Type", "application/json")]
        try HAR.write(
            [
                HAR.entry("GET", "https://api.test/v1/items?ids=10&ids=20", text: #"{"order":"10,20"}"#),
                HAR.entry("GET", "https://api.test/v1/items?ids=20&ids=10", text: #"{"order":"20,10"}"#),
                HAR.entry("GET", "https://api.test/v1/feed?_=1764633600001", text: #"{"page":1}"#),
                HAR.entry("GET", "https://api.test/v1/feed?_=1764633600002", text: #"{"page":2}"#),
                HAR.entry(
                    "POST",
                    "https://api.test/v1/pay",
                    requestHeaders: json,
                    body: #"{"amount": 9007199254740992}"#,
                    text: #"{"paid":"big"}"#
                ),
                HAR.entry(
                    "POST",
                    "https://api.test/v1/pay",
                    requestHeaders: json,
                    body: #"{"amount": 275.00}"#,
                    text: #"{"paid":"275"}"#
                ),
                Self.post(
                    "https://api.test/rpc",
                    base64: Data([0x08, 0x01, 0xFF]),
                    contentType: "application/x-protobuf",
                    answer: "one"
                ),
                Self.post(
                    "https://api.test/rpc",
                    base64: Data([0x08, 0x02, 0xFF]),
                    contentType: "application/x-protobuf",
                    answer: "two"
                ),
                HAR.entry(
                    "POST",
                    "https://api.test/v1/messages",
                    requestHeaders: json,
                    body: #"{"text":"hi","clientId":"a1"}"#,
                    text: #"{"id":1}"#
                ),
                HAR.entry(
                    "POST",
                    "https://api.test/v1/messages",
                    requestHeaders: json,
                    body: #"{"text":"hi","clientId":"b2"}"#,
                    text: #"{"id":2}"#
                ),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd([
            "import-har", har.path, "--set", "keys", "--root", root.path, "--ignore-body-field", "clientId",
        ])
        try #require(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("  stubs written:  8 (10 responses, 2 sequences)"), "\(imported.stdout)")
        #expect(
            imported.stdout.contains(
                "  sequences of requests that differed (only in what the key leaves out):\n    entry 4 answers as a later step of entry 3's GET /v1/feed although its query (_=1764633600002 vs _=1764633600001) differed; the set's normalize rules leave that out\n    entry 10 answers as a later step of entry 9's POST /v1/messages although its body (in fields the rules leave out) differed; the set's normalize rules leave that out\n"
            ),
            "\(imported.stdout)"
        )

        let daemon = try RunningDaemon(["--set", "keys", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        func pay(_ body: String) -> CurlRequest {
            CurlRequest(method: "POST", url: base + "/v1/pay", headers: json, body: Data(body.utf8))
        }
        func rpc(_ bytes: [UInt8]) -> CurlRequest {
            CurlRequest(
                method: "POST",
                url: base + "/rpc",
                headers: [("Content-Type", "application/x-protobuf")],
                body: Data(bytes)
            )
        }
        let responses = try Curl.batch([
            CurlRequest(url: base + "/v1/items?ids=20&ids=10"),
            CurlRequest(url: base + "/v1/items?ids=10&ids=20"),
            pay(#"{"amount": 9.007199254740993e15}"#),
            pay(#"{"amount": 9007199254740992.0}"#),
            pay(#"{"amount": 2.75e2}"#),
            pay(#"{"amount": 275.000001}"#),
            rpc([0x08, 0x02, 0xFF]),
            rpc([0x08, 0x01, 0xFF]),
            rpc([0x08, 0x03, 0xFF]),
        ])
        #expect(responses.map(\.status) == [200, 200, 404, 200, 200, 404, 200, 200, 404])
        #expect(responses[0].text == #"{"order":"20,10"}"#)
        #expect(responses[1].text == #"{"order":"10,20"}"#)
        #expect(responses[3].text == #"{"paid":"big"}"#)
        #expect(responses[4].text == #"{"paid":"275"}"#)
        #expect(responses[6].text == "two")
        #expect(responses[7].text == "one")
    }

    @Test func acceptIsNegotiatedUnlessTheSetSaysExact() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let har = root.appendingPathComponent("accept.har")
        try HAR.write(
            [
                HAR.entry(
                    "GET",
                    "https://api.test/v1/me",
                    requestHeaders: [("Accept", "application/json")],
                    text: #"{"me":1}"#
                ),
                HAR.entry(
                    "GET",
                    "https://api.test/img/a.png",
                    requestHeaders: [("Accept", "image/avif,image/webp,image/apng,*/*;q=0.8")],
                    headers: [("Content-Type", "image/png")],
                    text: "iVBORw0KGgo=",
                    encoding: "base64"
                ),
            ],
            to: har
        )
        let imported = try ProcessRunner.mockd(["import-har", har.path, "--set", "accept", "--root", root.path])
        try #require(imported.status == 0, "\(imported.stderr)")
        func ask(_ daemon: RunningDaemon) throws -> [Int] {
            try Curl.batch([
                CurlRequest(url: daemon.baseURL + "/v1/me"),  // curl's Accept: */*
                CurlRequest(
                    url: daemon.baseURL + "/v1/me",
                    headers: [("Accept", "text/plain, application/json;q=0.5")]
                ),
                CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("Accept", "text/html")]),
                CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("Accept", "application/*;q=0, */*")]),
                CurlRequest(url: daemon.baseURL + "/v1/me", headers: [("Accept", "application/json")]),
                CurlRequest(url: daemon.baseURL + "/img/a.png", headers: [("Accept", "image/*")]),
                CurlRequest(url: daemon.baseURL + "/img/a.png", headers: [("Accept", "image/png;q=0, image/*")]),
            ]).map(\.status)
        }
        do {
            let daemon = try RunningDaemon(["--set", "accept", "--root", root.path, "--port", "0", "--quiet"])
            defer { daemon.stop() }
            #expect(try ask(daemon) == [200, 200, 404, 404, 200, 200, 404])
        }
        let indexURL = root.appendingPathComponent("mocks/accept/index.json")
        let index = try String(contentsOf: indexURL, encoding: .utf8)
        try index.replacingOccurrences(of: #""stubs" :"#, with: #""acceptMatching" : "exact", "stubs" :"#)
            .write(to: indexURL, atomically: true, encoding: .utf8)
        let daemon = try RunningDaemon(["--set", "accept", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        #expect(try ask(daemon) == [404, 404, 404, 404, 200, 404, 404])
    }
}
