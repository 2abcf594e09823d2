import Foundation
import MockdTestSupport
import Testing

/// `mockd check --openapi` end to end: a recorded set with a body that breaks its schema, an undocumented
/// status, a malformed request body and an undocumented operation, checked by the binary.
@Suite(.serialized)
struct ContractCheckTests {
    typealias HAR = ImportHygieneTests

    static let spec = """
        openapi: 3.0.3
        info: {title: Shop, version: "1"}
        servers: [{url: "https://api.shop.test/v1"}]
        paths:
          /users/{id}:
            get:
              operationId: getUser
              parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
              responses:
                '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/User'}}}}
                '404': {description: missing}
          /orders:
            post:
              operationId: createOrder
              requestBody:
                required: true
                content:
                  application/json:
                    schema:
                      type: object
                      required: [sku]
                      properties: {sku: {type: string}, quantity: {type: integer, minimum: 1}}
              responses:
                '201': {description: created}
        components:
          schemas:
            User:
              type: object
              required: [id, name]
              properties:
                id: {type: integer}
                name: {type: string}
                email: {type: string, format: email, nullable: true}
        """

    static var entries: [[String: Any]] {
        [
            HAR.entry("GET", "https://api.shop.test/v1/users/1", text: #"{"id":1,"name":"Bo","email":null}"#),
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/users/1042",
                text: #"{"id":"1042","name":"Anna","email":"anna@corp.io"}"#
            ),
            HAR.entry("GET", "https://api.shop.test/v1/users/7", status: 418, text: #"{"error":"teapot"}"#),
            HAR.entry(
                "POST",
                "https://api.shop.test/v1/orders",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"quantity":0}"#,
                status: 201,
                headers: [],
                text: ""
            ),
            // A second body to the same URL: the set keeps request bodies in the key only where they differ.
            HAR.entry(
                "POST",
                "https://api.shop.test/v1/orders",
                requestHeaders: [("Content-Type", "application/json")],
                body: #"{"sku":"A1","quantity":2}"#,
                status: 201,
                headers: [],
                text: ""
            ),
            HAR.entry("DELETE", "https://api.shop.test/v1/cart", status: 204, headers: [], text: ""),
        ]
    }

    /// A fresh root with `shop.yaml` (the document above) and the set `shop` imported from `entries`; removed by the
    /// caller.
    static func importedShop() throws -> (root: URL, spec: URL) {
        let root = Paths.makeTemporaryDirectory()
        let spec = root.appendingPathComponent("shop.yaml")
        try Data(Self.spec.utf8).write(to: spec)
        let har = root.appendingPathComponent("shop.har")
        try HAR.write(Self.entries, to: har)
        #expect(try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path]).status == 0)
        return (root, spec)
    }

    @Test func flagsTheBrokenBodyTheUndocumentedStatusTheBadRequestAndTheUnknownOperation() throws {
        let (root, spec) = try Self.importedShop()
        defer { try? FileManager.default.removeItem(at: root) }
        let result = try ProcessRunner.mockd(["check", "--openapi", spec.path, "mocks/shop", "--root", root.path])
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                mocks/shop/index.json: stubs[1].responses[0]: response body: $.id: expected integer, got string (getUser, 200)
                mocks/shop/index.json: stubs[2].responses[0]: status: 418 is not documented (documented: 200, 404) (getUser, 418)
                mocks/shop/index.json: stubs[3].request: request body: $: the required member "sku" is missing (createOrder)
                mocks/shop/index.json: stubs[3].request: request body: $.quantity: 0 is less than the minimum 1 (createOrder)
                mocks/shop/index.json: stubs[5]: operation: DELETE /v1/cart is not in the document

                """
        )
        #expect(result.stderr == "mockd check: mocks/shop against \(spec.path) (2 operations): 5 findings\n")
    }

    @Test func aSetThatHonoursTheDocumentExitsZeroAndAnUnreadableDocumentTwo() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let spec = root.appendingPathComponent("shop.yaml")
        try Data(Self.spec.utf8).write(to: spec)
        let har = root.appendingPathComponent("shop.har")
        try HAR.write([Self.entries[0]], to: har)
        #expect(try ProcessRunner.mockd(["import-har", har.path, "--set", "shop", "--root", root.path]).status == 0)
        let clean = try ProcessRunner.mockd(["check", "--openapi", spec.path, "shop", "--root", root.path])
        #expect(clean.status == 0)
        #expect(clean.stdout == "")
        let broken = root.appendingPathComponent("broken.yaml")
        try Data("openapi: 3.0.3\npaths: [1, 2\n".utf8).write(to: broken)
        let unreadable = try ProcessRunner.mockd(["check", "--openapi", broken.path, "shop", "--root", root.path])
        #expect(unreadable.status == 2)
        #expect(unreadable.stderr.hasPrefix("mockd: \(broken.path): line 3, column 1: "))
        #expect(unreadable.stderr.split(separator: "\n").count == 1)
    }

    /// A scenario is checked as served: the sets of the scenarios it includes, and what an override that edits makes of
    /// each stub it matches (before, neither: a scenario including the set above had no finding at all).
    @Test func aScenarioIsCheckedWithItsIncludedSetsAndWhatItsPatchesMake() throws {
        let (root, spec) = try Self.importedShop()
        defer { try? FileManager.default.removeItem(at: root) }
        let configs = root.appendingPathComponent("configs")
        try FileManager.default.createDirectory(at: configs, withIntermediateDirectories: true)
        try Data(#"{"sets": ["shop"]}"#.utf8).write(to: configs.appendingPathComponent("base.json"))
        try Data(
            #"""
            {"include": ["base"], "overrides": [
              {"id": "rename", "match": {"method": "GET", "path": "/v1/users/{id}"}, "bodyPatch": {"name": 7}},
              {"id": "gone", "match": {"method": "GET", "path": "/v1/users/{id}"}, "responses": [{"status": 410}, {}]},
              {"id": "ok-order", "match": {"method": "POST", "path": "/v1/orders"}, "status": 201}
            ]}
            """#.utf8
        ).write(to: configs.appendingPathComponent("edits.json"))
        let result = try ProcessRunner.mockd([
            "check", "--openapi", spec.path, "configs/edits.json", "--root", root.path,
        ])
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                configs/edits.json: overrides[0] over stub GET_v1_users_1: response body: $.name: expected string, got integer (getUser, 200)
                configs/edits.json: overrides[0] over stub GET_v1_users_1042: response body: $.id: expected integer, got string (getUser, 200)
                configs/edits.json: overrides[0] over stub GET_v1_users_1042: response body: $.name: expected string, got integer (getUser, 200)
                configs/edits.json: overrides[0] over stub GET_v1_users_7: status: 418 is not documented (documented: 200, 404) (getUser, 418)
                configs/edits.json: overrides[1].responses[0] over stub GET_v1_users_1: status: 410 is not documented (documented: 200, 404) (getUser, 410)
                configs/edits.json: overrides[1].responses[0] over stub GET_v1_users_1042: status: 410 is not documented (documented: 200, 404) (getUser, 410)
                configs/edits.json: overrides[1].responses[0] over stub GET_v1_users_7: status: 410 is not documented (documented: 200, 404) (getUser, 410)
                configs/edits.json: overrides[1].responses[1] over stub GET_v1_users_1042: response body: $.id: expected integer, got string (getUser, 200)
                configs/edits.json: overrides[1].responses[1] over stub GET_v1_users_7: status: 418 is not documented (documented: 200, 404) (getUser, 418)
                mocks/shop/index.json: stubs[1].responses[0]: response body: $.id: expected integer, got string (getUser, 200)
                mocks/shop/index.json: stubs[2].responses[0]: status: 418 is not documented (documented: 200, 404) (getUser, 418)
                mocks/shop/index.json: stubs[3].request: request body: $: the required member "sku" is missing (createOrder)
                mocks/shop/index.json: stubs[3].request: request body: $.quantity: 0 is less than the minimum 1 (createOrder)
                mocks/shop/index.json: stubs[5]: operation: DELETE /v1/cart is not in the document

                """
        )
        #expect(
            result.stderr
                == "mockd check: configs/edits.json, mocks/shop against \(spec.path) (2 operations): 14 findings\n"
        )
    }
}
