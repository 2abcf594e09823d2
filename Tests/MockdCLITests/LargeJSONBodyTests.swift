import Foundation
import MockdTestSupport
import Testing

/// A large JSON request body is matched by its canonical form (keys sorted, numbers by value), made once per request
/// and written without Foundation's re-boxing writer: a 1 MB body held its worker about five seconds, a 5 MB one
/// seventeen (issue 38).
struct LargeJSONBodyTests {
    /// `count` items as JSON, keys in the order given.
    static func items(_ count: Int, reversed: Bool, changing changed: Int? = nil) -> String {
        let items = (0..<count).map { index -> String in
            let price = index == changed ? "1.01" : "\(index).50"
            let fields = [#""id": "item-\#(index)""#, #""price": \#(price)"#, #""tags": ["a", "b/\#(index)"]"#]
            return "{" + (reversed ? fields.reversed() : fields).joined(separator: reversed ? " , " : ",") + "}"
        }
        return #"{"cart": [\#(items.joined(separator: ","))], "currency": "EUR"}"#
    }

    @Test func aLargeBodyMatchesItsRecordingInAnyKeyOrderAndADifferentOneIsANearMiss() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let set = root.appendingPathComponent("mocks/shop")
        try FileManager.default.createDirectory(at: set, withIntermediateDirectories: true)
        let recorded = Self.items(4000, reversed: false)
        let index: [String: Any] = [
            "version": 1,
            "stubs": [
                [
                    "id": "checkout",
                    "request": [
                        "method": "POST", "path": "/checkout",
                        "body": ["text": recorded, "contentType": "application/json"],
                    ],
                    "responses": [["status": 201, "body": "ordered"]],
                ]
            ],
        ]
        try JSONSerialization.data(withJSONObject: index).write(to: set.appendingPathComponent("index.json"))
        let daemon = try RunningDaemon(["--set", "shop", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        func post(_ body: String) throws -> CurlResponse {
            try Curl.send(
                CurlRequest(
                    method: "POST",
                    url: daemon.baseURL + "/checkout",
                    headers: [("Content-Type", "application/json")],
                    body: Data(body.utf8)
                )
            )
        }
        let same = Self.items(4000, reversed: true)
        #expect(same.utf8.count > 200_000)
        let served = try post(same)
        #expect(served.status == 201)
        #expect(String(decoding: served.body, as: UTF8.self) == "ordered")
        let missed = try post(Self.items(4000, reversed: true, changing: 3999))
        #expect(missed.status == 404)
        let report = try JSONSerialization.jsonObject(with: missed.body) as? [String: Any] ?? [:]
        let nearest = (report["nearMisses"] as? [[String: Any]])?.first
        #expect(nearest?["stub"] as? String == "checkout")
        let differs = nearest?["differs"] as? [[String: Any]] ?? []
        #expect(differs.compactMap { $0["part"] as? String } == ["body"])
        // The canonical forms, shortened: prices by value (`0.50` is `0.5`), keys sorted.
        #expect((differs.first?["actual"] as? String)?.hasSuffix("… (220695 bytes)") == true)
        #expect((differs.first?["expected"] as? String)?.hasPrefix(#"{"cart":[{"id":"item-0","price":0.5,"#) == true)
    }
}
