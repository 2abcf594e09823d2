import Foundation
import MockdTestSupport
import Testing

/// `mockd --openapi SPEC` end to end: the app's requests checked against the document, marked in the journal,
/// listed by `GET /__mockd/contract` and failing `POST /__mockd/verify` with `"contract": true`.
@Suite(.serialized)
struct ContractLiveTests {
    @Test func aMalformedBodyIsMarkedInTheJournalAndFailsVerify() throws {
        let (root, daemon) = try Self.servingTheDocument()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let json = [("Content-Type", "application/json")]
        let good = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/orders",
                headers: json,
                body: Data(#"{"sku":"A1"}"#.utf8)
            )
        )
        #expect(good.status == 201)
        let bad = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/v1/orders",
                headers: json,
                body: Data(#"{"quantity":0}"#.utf8)
            )
        )
        #expect(bad.status == 201)  // served all the same: the contract is checked, not enforced
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/users/abc")).status == 200)

        let journal = try Self.object(Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal")))
        let entries = try #require(journal["entries"] as? [[String: Any]])
        #expect(
            entries.map { $0["contractViolations"] as? [String] ?? ["(missing)"] } == [
                [],
                [
                    #"request body: $: the required member "sku" is missing"#,
                    "request body: $.quantity: 0 is less than the minimum 1",
                ],
                ["path parameter id: expected integer, got string"],
            ]
        )

        let listed = try Self.object(Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/contract")))
        #expect(listed["checked"] as? Int == 3)
        #expect(listed["violating"] as? Int == 2)
        #expect((listed["requests"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [2, 3])

        let verify = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/verify",
                body: Data(#"{"contract": true}"#.utf8)
            )
        )
        #expect(verify.status == 409)
        let failure = try Self.object(verify)
        #expect(failure["error"] as? String == "contract_violated")
        #expect(
            failure["message"] as? String
                == #"2 of 3 requests break the contract; first: #2 POST /v1/orders: request body: $: the required member "sku" is missing"#
        )
        let narrowed = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/verify",
                body: Data(#"{"contract": true, "method": "GET", "path": "/v1/orders"}"#.utf8)
            )
        )
        // No GET to /v1/orders was journaled: nothing checked is no evidence, so verify fails and says so.
        #expect(narrowed.status == 409)
        #expect(try Self.object(narrowed)["error"] as? String == "nothing_checked")
        // The document's own template and a lower-case method select the same requests as the exact path.
        let templated = try Curl.send(
            CurlRequest(
                method: "POST",
                url: daemon.baseURL + "/__mockd/verify",
                body: Data(#"{"contract": true, "method": "post", "path": "/v1/{collection}"}"#.utf8)
            )
        )
        #expect(templated.status == 409)
        #expect(try Self.object(templated)["error"] as? String == "contract_violated")
    }

    /// The answers are checked too, whoever gave them: a runtime stub or a stub group answering a body the document
    /// forbids, or an undocumented status, is marked in the journal, listed and fails verify.
    @Test func answersOfRuntimeStubsAndGroupsAreCheckedAgainstTheDocument() throws {
        let (root, daemon) = try Self.servingTheDocument()
        defer {
            daemon.stop()
            try? FileManager.default.removeItem(at: root)
        }
        let base = daemon.baseURL
        let setUp = try Curl.batch([
            CurlRequest(
                method: "POST",
                url: base + "/__mockd/stubs",
                body: Data(
                    #"{"match": {"method": "GET", "path": "/v1/users/5"}, "body": {"id": "not-a-number", "name": "Eve"}}"#
                        .utf8
                )
            ),
            CurlRequest(
                method: "PUT",
                url: base + "/__mockd/groups/teapots",
                body: Data(
                    #"{"stubs": [{"match": {"method": "GET", "path": "/v1/users/6"}, "status": 418, "body": {"error": "teapot"}}]}"#
                        .utf8
                )
            ),
        ])
        #expect(setUp.map(\.status) == [201, 200])
        let answers = try Curl.batch([
            CurlRequest(url: base + "/v1/users/5"), CurlRequest(url: base + "/v1/users/6"),
            CurlRequest(url: base + "/v1/users/1"), CurlRequest(url: base + "/v1/nowhere"),
        ])
        #expect(answers.map(\.status) == [200, 418, 200, 404])

        let journal = try Self.object(Curl.send(CurlRequest(url: base + "/__mockd/journal")))
        let entries = try #require(journal["entries"] as? [[String: Any]])
        #expect(
            entries.map { $0["contractViolations"] as? [String] ?? ["(missing)"] } == [
                ["response body: $.id: expected integer, got string"],
                ["status: 418 is not documented (documented: 200, 404)"],
                [],
                // mockd's own miss is not an answer of the API: only the request is checked.
                ["operation: GET /v1/nowhere is not in the document"],
            ]
        )
        let listed = try Self.object(Curl.send(CurlRequest(url: base + "/__mockd/contract")))
        #expect(listed["checked"] as? Int == 4)
        #expect((listed["requests"] as? [[String: Any]])?.map { $0["sequence"] as? Int } == [1, 2, 4])
        let verify = try Curl.send(
            CurlRequest(
                method: "POST",
                url: base + "/__mockd/verify",
                body: Data(#"{"contract": true, "path": "/v1/users/{id}"}"#.utf8)
            )
        )
        #expect(verify.status == 409)
        #expect(
            try Self.object(verify)["message"] as? String
                == "2 of 3 requests break the contract; first: #1 GET /v1/users/5: response body: $.id: expected integer, got string"
        )
    }

    @Test func withoutOpenAPITheJournalHasNoContractField() throws {
        let root = try Paths.makeRoot(scenario: #"{"sets": ["chat"]}"#)
        defer { try? FileManager.default.removeItem(at: root) }
        let daemon = try RunningDaemon(["--config", "s", "--root", root.path, "--port", "0", "--quiet"])
        defer { daemon.stop() }
        _ = try Curl.send(CurlRequest(url: daemon.baseURL + "/v1/conversations"))
        let journal = try Self.object(Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/journal")))
        let entry = try #require((journal["entries"] as? [[String: Any]])?.first)
        #expect(entry["contractViolations"] == nil)
        #expect(try Curl.send(CurlRequest(url: daemon.baseURL + "/__mockd/contract")).status == 404)
    }

    /// A daemon serving the scenario `import-openapi` makes of `ContractCheckTests.spec`, with `--openapi` on it, in a
    /// fresh root; stopped and removed by the caller.
    static func servingTheDocument() throws -> (root: URL, daemon: RunningDaemon) {
        let root = Paths.makeTemporaryDirectory()
        let spec = root.appendingPathComponent("shop.yaml")
        try Data(ContractCheckTests.spec.utf8).write(to: spec)
        #expect(
            try ProcessRunner.mockd(["import-openapi", spec.path, "--set", "shop", "--root", root.path]).status == 0
        )
        let daemon = try RunningDaemon([
            "--config", "shop", "--root", root.path, "--port", "0", "--quiet", "--openapi", spec.path,
        ])
        return (root, daemon)
    }

    static func object(_ response: CurlResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }
}
