import Foundation
import MockdTestSupport
import Testing

/// `mockd diff` end to end: two recordings of a small API, the real binary, every format and exit code.
@Suite(.serialized)
struct DiffTests {
    typealias HAR = ImportHygieneTests

    /// Version 1 of the API.
    static var oldEntries: [[String: Any]] {
        [
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/users/1042",
                text: #"{"id":1042,"name":"Anna","email":"anna@corp.io","plan":"pro","tags":[{"id":1}]}"#
            ),
            HAR.entry("DELETE", "https://api.shop.test/v1/cart", status: 204, headers: [], text: ""),
            HAR.entry("GET", "https://api.shop.test/v1/orders", text: #"{"orders":[{"id":"o_1","total":12}]}"#),
        ]
    }

    /// Version 2: `name` renamed `fullName`, a 404 documented for unknown users, `DELETE /v1/cart` gone; the e-mail
    /// differs but is a placeholder on both sides, so it is no change.
    static var newEntries: [[String: Any]] {
        [
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/users/1042",
                text: #"{"id":1042,"fullName":"Anna","email":"bob@corp.io","plan":"pro","tags":[{"id":1}]}"#
            ),
            HAR.entry(
                "GET",
                "https://api.shop.test/v1/users/9999",
                status: 404,
                text: #"{"error":"not found"}"#
            ),
            HAR.entry("GET", "https://api.shop.test/v1/orders", text: #"{"orders":[{"id":"o_1","total":12}]}"#),
        ]
    }

    private func withRecordings(_ body: (_ root: URL, _ old: String, _ new: String) throws -> Void) throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let old = root.appendingPathComponent("old.har")
        let new = root.appendingPathComponent("new.har")
        try HAR.write(Self.oldEntries, to: old)
        try HAR.write(Self.newEntries, to: new)
        try body(root, old.path, new.path)
    }

    @Test func textNamesExactlyTheRenamedFieldTheAddedStatusAndTheRemovedEndpoint() throws {
        try withRecordings { _, old, new in
            let result = try ProcessRunner.mockd(["diff", old, new])
            #expect(result.status == 1)
            #expect(
                result.stdout == """
                    \(old) → \(new): 0 endpoints added, 1 removed, 1 changed
                    - DELETE /v1/cart (api.shop.test)
                    ~ GET /v1/users/{id} (api.shop.test)
                        status added: 404
                        200: field added $.fullName (string)
                        200: field removed $.name (string)

                    """
            )
        }
    }

    @Test func markdownIsAPullRequestSection() throws {
        try withRecordings { _, old, new in
            let result = try ProcessRunner.mockd(["diff", old, new, "--format", "markdown"])
            #expect(result.status == 1)
            #expect(
                result.stdout == """
                    ## API changes: `\(old)` → `\(new)`

                    0 endpoints added, 1 removed, 1 changed.

                    ### Endpoints removed

                    - `DELETE /v1/cart` (api.shop.test)

                    ### Endpoints changed

                    #### `GET /v1/users/{id}` (api.shop.test)

                    - status added: 404
                    - 200: field added `$.fullName` (string)
                    - 200: field removed `$.name` (string)

                    """
            )
        }
    }

    @Test func jsonCarriesTheSameChangesAndTheStubIDs() throws {
        try withRecordings { _, old, new in
            let result = try ProcessRunner.mockd(["diff", old, new, "--format", "json"])
            #expect(result.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            )
            #expect(document["equal"] as? Bool == false)
            #expect((document["endpointsAdded"] as? [Any])?.count == 0)
            let removed = try #require(document["endpointsRemoved"] as? [[String: Any]])
            #expect(removed.count == 1)
            #expect(removed.first?["method"] as? String == "DELETE")
            #expect(removed.first?["template"] as? String == "/v1/cart")
            #expect(removed.first?["hosts"] as? [String] == ["api.shop.test"])
            let changed = try #require(document["endpointsChanged"] as? [[String: Any]])
            #expect(changed.count == 1)
            let change = try #require(changed.first)
            #expect((change["endpoint"] as? [String: Any])?["template"] as? String == "/v1/users/{id}")
            #expect(change["statusesAdded"] as? [Int] == [404])
            #expect(change["statusesRemoved"] as? [Int] == [])
            #expect((change["valueChanges"] as? [Any])?.count == 0)
            let bodies = try #require(change["bodyChanges"] as? [[String: Any]])
            #expect(bodies.count == 1)
            #expect(bodies.first?["status"] as? Int == 200)
            let changes = try #require(bodies.first?["changes"] as? [[String: String]])
            #expect(
                changes == [
                    ["kind": "added", "path": "$.fullName", "after": "string"],
                    ["kind": "removed", "path": "$.name", "before": "string"],
                ]
            )
        }
    }

    @Test func aRecordingEqualsTheSetImportedFromItAndValueChangesAreCounted() throws {
        try withRecordings { root, old, _ in
            let imported = try ProcessRunner.mockd(["import-har", old, "--set", "shop", "--root", root.path])
            #expect(imported.status == 0)
            let same = try ProcessRunner.mockd(["diff", old, "shop", "--root", root.path])
            #expect(same.stdout == "\(old) → shop: no changes\n")
            #expect(same.status == 0)
            var entries = Self.oldEntries
            entries[2] = HAR.entry(
                "GET",
                "https://api.shop.test/v1/orders",
                text: #"{"orders":[{"id":"o_1","total":15},{"id":"o_2","total":3}]}"#
            )
            let later = root.appendingPathComponent("later.har")
            try HAR.write(entries, to: later)
            let changed = try ProcessRunner.mockd(["diff", "shop", later.path, "--root", root.path])
            #expect(changed.status == 1)
            #expect(
                changed.stdout == """
                    shop → \(later.path): 0 endpoints added, 0 removed, 1 changed
                    ~ GET /v1/orders (api.shop.test)
                        200: 2 values changed ($.orders (length), $.orders[].total)

                    """
            )
        }
    }

    @Test func anUnreadableSideExitsTwoWithOneLine() throws {
        try withRecordings { root, old, _ in
            let missing = root.appendingPathComponent("nope").path
            let result = try ProcessRunner.mockd(["diff", old, missing])
            #expect(result.status == 2)
            #expect(result.stdout == "")
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.hasPrefix("mockd: "))
        }
    }
}

/// `import-har --merge` names what it replaced and prints the changelog of the merge.
struct MergeChangelogTests {
    typealias HAR = ImportHygieneTests

    @Test func mergeListsReplacedAndAddedStubsByIDAndTheChangelog() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = root.appendingPathComponent("v1.har")
        try HAR.write(DiffTests.oldEntries, to: first)
        #expect(try ProcessRunner.mockd(["import-har", first.path, "--set", "shop", "--root", root.path]).status == 0)
        let second = root.appendingPathComponent("v2.har")
        try HAR.write(DiffTests.newEntries, to: second)
        let merged = try ProcessRunner.mockd([
            "import-har", second.path, "--set", "shop", "--root", root.path, "--merge",
        ])
        #expect(merged.status == 0, "\(merged.stderr)")
        let tail = merged.stdout.components(separatedBy: "  merged:").last ?? ""
        #expect(
            tail == """
                         2 stubs replaced, 1 added, 1 kept as they were
                    replaced GET_v1_users_1042 (GET /v1/users/1042)
                    replaced GET_v1_orders (GET /v1/orders)
                    added GET_v1_users_9999 (GET /v1/users/9999)
                  changes:        0 endpoints added, 0 removed, 1 changed
                    ~ GET /v1/users/{id} (api.shop.test)
                        status added: 404
                        200: field added $.fullName (string)
                        200: field removed $.name (string)

                """
        )
    }

    /// A set with a body file missing is broken, not changed: exit 2 with the field, never a changelog.
    @Test func aBrokenSetIsAnErrorNotAChange() throws {
        let root = Paths.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let index =
            #"{"version": 1, "stubs": [{"id": "x", "request": {"method": "GET", "path": "/x"}, "responses": [{"status": 200, "bodyFile": "bodies/x.json"}]}]}"#
        for name in ["a", "b"] {
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("mocks/\(name)/bodies"),
                withIntermediateDirectories: true
            )
            try index.write(
                to: root.appendingPathComponent("mocks/\(name)/index.json"),
                atomically: true,
                encoding: .utf8
            )
        }
        try #"{"a": 1}"#.write(
            to: root.appendingPathComponent("mocks/a/bodies/x.json"),
            atomically: true,
            encoding: .utf8
        )
        let result = try ProcessRunner.mockd(["diff", "a", "b", "--root", root.path])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasSuffix(
                "stubs[0].responses[0].bodyFile: body file 'bodies/x.json' not found\n"
            ),
            "\(result.stderr)"
        )
    }
}
