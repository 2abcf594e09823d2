import Foundation
import MockdTestSupport
import Testing

/// A recorded app made stateful: a HAR is imported, the scenario seeds a resource from the recorded order list, and
/// the real daemon keeps list and detail consistent through cancel, create, patch and delete, per session.
struct StatefulResourceTests {
    static let har = """
        {"log": {"version": "1.2", "creator": {"name": "test", "version": "1"}, "entries": [
          {"request": {"method": "GET", "url": "https://api.example.com/v1/orders"},
           "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
             "content": {"text": "{\\"orders\\": [{\\"id\\": \\"4521\\", \\"status\\": \\"shipped\\"}, {\\"id\\": \\"4388\\", \\"status\\": \\"delivered\\"}], \\"nextCursor\\": null}"}}},
          {"request": {"method": "GET", "url": "https://api.example.com/v1/orders/4521"},
           "response": {"status": 200, "headers": [{"name": "Content-Type", "value": "application/json"}],
             "content": {"text": "{\\"id\\": \\"4521\\", \\"status\\": \\"shipped\\"}"}}}
        ]}}
        """

    static let scenario = """
        {
          "sets": ["recorded"],
          "resources": [
            {
              "name": "orders", "path": "/v1/orders",
              "seed": { "stub": "GET_v1_orders", "items": "/orders" },
              "actions": [ { "path": "cancel", "patch": { "status": "cancelled" } } ]
            }
          ],
          "overrides": [
            {
              "match": { "method": "GET", "path": "/v1/summary" },
              "status": 200,
              "body": { "orders": "{{resources.orders.count}}", "first": "{{resources.orders.4521.status}}" }
            }
          ]
        }
        """

    static func json(_ response: CurlResponse) -> Any? { try? JSONSerialization.jsonObject(with: response.body) }

    static func statuses(_ response: CurlResponse) -> [String] {
        ((json(response) as? [String: Any])?["orders"] as? [[String: Any]] ?? []).map {
            "\($0["id"] ?? "")=\($0["status"] ?? "")"
        }
    }

    @Test func aHARSeededOrderListFollowsCancelCreatePatchAndDeleteAndResetsToTheRecording() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let harFile = root.appendingPathComponent("app.har")
        try Self.har.write(to: harFile, atomically: true, encoding: .utf8)
        let imported = try ProcessRunner.mockd(["import-har", harFile.path, "--set", "recorded", "--root", root.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        try Self.scenario.write(
            to: root.appendingPathComponent("configs/orders.json"),
            atomically: true,
            encoding: .utf8
        )
        let validated = try ProcessRunner.mockd(["validate", "--config", "orders", "--root", root.path])
        #expect(validated.status == 0, "\(validated.stderr)")

        let daemon = try RunningDaemon(["--config", "orders", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        let base = daemon.baseURL
        let json = [("Content-Type", "application/json")]
        let responses = try Curl.batch([
            CurlRequest(url: base + "/v1/orders"),
            CurlRequest(method: "POST", url: base + "/v1/orders/4521/cancel"),
            CurlRequest(url: base + "/v1/orders/4521"),
            CurlRequest(url: base + "/v1/orders"),
            CurlRequest(
                method: "POST",
                url: base + "/v1/orders",
                headers: json,
                body: Data(#"{"status": "new"}"#.utf8)
            ),
            CurlRequest(method: "POST", url: base + "/v1/orders", headers: json, body: Data(#"{"id": "4521"}"#.utf8)),
            CurlRequest(method: "POST", url: base + "/v1/orders", headers: json, body: Data("[1]".utf8)),
            CurlRequest(
                method: "PATCH",
                url: base + "/v1/orders/4388",
                headers: json,
                body: Data(#"{"note": "gift"}"#.utf8)
            ),
            CurlRequest(method: "DELETE", url: base + "/v1/orders/4388"),
            CurlRequest(url: base + "/v1/orders/4388"),
            CurlRequest(url: base + "/v1/orders?limit=1&offset=1"),
            CurlRequest(url: base + "/v1/orders?limit=9223372036854775807&offset=9223372036854775807"),
            CurlRequest(url: base + "/v1/summary"),
            CurlRequest(url: base + "/v1/orders", headers: [("X-Mockd-Session", "other")]),
        ])
        #expect(responses.map(\.status) == [200, 200, 200, 200, 201, 409, 422, 200, 204, 404, 200, 200, 200, 200])
        #expect(Self.statuses(responses[0]) == ["4521=shipped", "4388=delivered"])
        #expect(
            responses[0].text
                == #"{"nextCursor":null,"orders":[{"id":"4521","status":"shipped"},{"id":"4388","status":"delivered"}]}"#
                + "\n"
        )
        #expect((Self.json(responses[1]) as? [String: String]) == ["id": "4521", "status": "cancelled"])
        #expect((Self.json(responses[2]) as? [String: String]) == ["id": "4521", "status": "cancelled"])
        #expect(Self.statuses(responses[3]) == ["4521=cancelled", "4388=delivered"])
        #expect((Self.json(responses[4]) as? [String: String]) == ["id": "4522", "status": "new"])
        #expect(responses[4].header("Location") == "/v1/orders/4522")
        #expect((Self.json(responses[5]) as? [String: String])?["error"] == "conflict")
        #expect((Self.json(responses[6]) as? [String: String])?["error"] == "invalid_body")
        #expect(
            (Self.json(responses[7]) as? [String: String]) == ["id": "4388", "status": "delivered", "note": "gift"]
        )
        #expect((Self.json(responses[9]) as? [String: String])?["message"] == "orders has no item with id '4388'")
        #expect(Self.statuses(responses[10]) == ["4522=new"])
        #expect(Self.statuses(responses[11]) == [])
        // A whole-value placeholder keeps its type: the count is a number.
        #expect((Self.json(responses[12]) as? [String: Any])?["orders"] as? Int == 2)
        #expect((Self.json(responses[12]) as? [String: Any])?["first"] as? String == "cancelled")
        #expect(Self.statuses(responses[13]) == ["4521=shipped", "4388=delivered"])

        let state = try Curl.send(CurlRequest(url: base + "/__mockd/resources/orders"))
        #expect((Self.json(state) as? [String: Any])?["count"] as? Int == 2)
        let afterReset = try Curl.batch([
            CurlRequest(method: "POST", url: base + "/__mockd/reset"), CurlRequest(url: base + "/v1/orders"),
        ])
        #expect(Self.statuses(afterReset[1]) == ["4521=shipped", "4388=delivered"])
    }

    @Test func aMalformedResourceIsOneLinePerProblemFromValidate() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let harFile = root.appendingPathComponent("app.har")
        try Self.har.write(to: harFile, atomically: true, encoding: .utf8)
        _ = try ProcessRunner.mockd(["import-har", harFile.path, "--set", "recorded", "--root", root.path])
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("configs"),
            withIntermediateDirectories: true
        )
        let broken = #"""
            {"sets": ["recorded"], "resources": [
              {"name": "orders", "path": "/v1/orders", "seed": {"stub": "GET_v1_nope"}},
              {"name": "carts", "path": "carts", "seed": {"stub": "GET_v1_orders", "items": "/missing"}}
            ]}
            """#
        try broken.write(to: root.appendingPathComponent("configs/broken.json"), atomically: true, encoding: .utf8)
        let result = try ProcessRunner.mockd(["validate", "--config", "broken", "--root", root.path])
        #expect(result.status != 0)
        #expect(
            result.stderr.split(separator: "\n").filter { $0.contains("resources[") } == [
                "mockd: configs/broken.json: resources[0].seed.stub: no stub 'GET_v1_nope' in the scenario's mock sets",
                "mockd: configs/broken.json: resources[1].path: 'carts' must be a collection path such as /v1/orders (no query, no {templates})",
                "mockd: configs/broken.json: resources[1].seed.items: '/missing' does not lead to an array in the seed",
            ]
        )
    }
}
