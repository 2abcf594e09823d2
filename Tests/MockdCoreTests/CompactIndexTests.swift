import Foundation
import MockdFormat
import MockdPlatform
import MockdTestSupport
import Testing

@testable import MockdCore

/// The compact index (`mocks/<set>/index.cache`): written with every set, read by a start instead of `index.json`
/// only when it was made from that file as it is now, and never trusted when damaged.
struct CompactIndexTests {
    private static let set = "s"

    /// A fresh root with `set` imported from `har`; `nil` when the HAR gives no stub.
    private func imported(_ har: URL) throws -> MockdRoot? {
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        let result: HARImportPipeline.Result
        do {
            result = try HARImportPipeline.run(
                har: har,
                displayName: har.lastPathComponent,
                into: Self.set,
                root: root,
                options: HARImportOptions(),
                merge: false,
                replace: false
            )
        } catch is HARImportError {
            try? FileManager.default.removeItem(at: root.url)
            return nil  // not a HAR mockd imports (JSONP, broken JSON): its own tests pin the refusal
        }
        guard result.setWritten else {
            try? FileManager.default.removeItem(at: root.url)
            return nil
        }
        return root
    }

    /// A root whose set `s` has `index` as its `index.json` (no cache yet).
    private func root(index: String) throws -> MockdRoot {
        let url = Paths.makeTemporaryDirectory()
        let folder = url.appendingPathComponent("mocks/\(Self.set)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(index.utf8).write(to: folder.appendingPathComponent("index.json"))
        return MockdRoot(url: url)
    }

    /// A fresh root with set `set` written by `MockSetWriter` (which leaves its cache) from `stubs` and body `files`.
    private func written(_ stubs: [MockSetFile.StubEntry], files: [String: Data] = [:]) throws -> MockdRoot {
        let root = MockdRoot(url: Paths.makeTemporaryDirectory())
        try MockSetWriter(root: root).write(
            MockSetBuild(file: MockSetFile(stubs: stubs), files: files),
            set: Self.set,
            replace: false,
            source: "t"
        )
        return root
    }

    private func indexJSON(_ root: MockdRoot) -> URL { root.setURL(Self.set).appendingPathComponent("index.json") }
    private func cacheURL(_ root: MockdRoot) -> URL {
        root.setURL(Self.set).appendingPathComponent(CompactIndexFile.name)
    }

    /// The set as its `index.json` decodes now (what a start without a cache serves).
    private func decodedJSON(_ root: MockdRoot) throws -> MockSetFile {
        try JSONDecoder().decode(MockSetFile.self, from: Data(contentsOf: indexJSON(root)))
    }

    /// The cache's set when it is fresh for the `index.json` beside it, else `nil`.
    private func freshCache(_ root: MockdRoot) throws -> MockSetFile? {
        let index = try #require(FileSnapshot(path: indexJSON(root).path))
        return CompactIndexFile.read(folder: root.setURL(Self.set), source: CompactIndexFile.source(of: index))
    }

    /// What a start serves, stub by stub: id, key, constraints and the first response as the client gets it.
    private func served(_ root: MockdRoot) throws -> [String] {
        try MockSetLoader(root: root).load(set: Self.set).map { stub in
            let first = stub.firstResponse
            return "\(stub.id) \(stub.key) \(stub.headerConstraints) \(first.status) \(Array(first.headers)) "
                + "\(first.body.count):\(SHA256.hex(first.body)) \(first.recordedTimeMs ?? -1)"
        }
    }

    private func temporaryFiles(_ root: MockdRoot) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.setURL(Self.set).path).filter {
            $0.hasPrefix(CompactIndexFile.temporaryPrefix)
        }
    }

    /// A small index with every kind of record: a plain stub, one with dates and a body, and ones kept as JSON
    /// (GraphQL-free but with a `json` body, a fault, a sequence policy).
    private static let mixedIndex = #"""
        {"version": 1, "matchHeaders": ["accept", "x-mode"], "cors": true, "origins": ["https://api.example.com"],
         "stubs": [
          {"id": "plain", "request": {"method": "GET", "path": "/v1/items", "query": "a=1&b=2",
            "headers": ["Accept: application/json"]},
           "responses": [{"status": 200, "headers": ["Content-Type: application/json"], "body": "{\"n\": 1}",
             "recordedTimeMs": 12.5, "templated": false,
             "dates": {"recordedAt": "2024-05-01T10:00:00Z", "body": ["/at"], "headers": ["Date"]}}]},
          {"request": {"method": "POST", "path": "/v1/items", "host": "api.example.com",
            "body": {"text": "a=1", "contentType": "application/x-www-form-urlencoded"},
            "headers": ["Accept: application/json"]},
           "responses": [{"status": 201, "headers": ["Content-Type: application/json"], "body": "{}"},
                         {"status": 409, "templated": "redacted", "body": "again {{request.path}} AKIAIOSFODNN7EXAMPLE"}]},
          {"id": "json", "request": {"method": "PUT", "path": "/v1/j", "body": {"json": {"b": [1, 2.5, null]}}},
           "afterLast": "cycle",
           "responses": [{"status": 200, "json": {"ok": true}}, {"fault": "connectionReset"}]}
         ]}
        """#

    @Test func encodingThenDecodingGivesTheSameSet() throws {
        let file = try JSONDecoder().decode(MockSetFile.self, from: Data(Self.mixedIndex.utf8))
        let source = CompactIndex.Source(indexSize: 7, indexHash: (1, 2))
        let bytes = try CompactIndex.encode(file, source: source)
        #expect(bytes.withUnsafeBytes { CompactIndex.decode($0, source: source) } == file)
        // Another index (size or hash) is never served.
        #expect(
            bytes.withUnsafeBytes { CompactIndex.decode($0, source: .init(indexSize: 8, indexHash: (1, 2))) } == nil
        )
        #expect(
            bytes.withUnsafeBytes { CompactIndex.decode($0, source: .init(indexSize: 7, indexHash: (1, 3))) } == nil
        )
        // The same set gives the same bytes.
        #expect(try CompactIndex.encode(file, source: source) == bytes)
    }

    /// "é" as U+00E9 and as "e" + U+0301 are equal `String`s but other bytes: each stub gets back its own, in every
    /// field a record holds, used once or by several stubs (shared).
    @Test func stringsEqualOnlyUnderCanonicalEquivalenceKeepTheirBytes() throws {
        func stub(_ id: String, _ text: String) -> MockSetFile.StubEntry {
            MockSetFile.StubEntry(
                id: id,
                request: .init(method: "GET", path: "/\(text)", query: "q=\(text)", headers: ["Accept: \(text)"]),
                responses: [
                    .init(status: 200, headers: ["X-Name: \(text)"], bodyFile: "bodies/\(text).txt", body: text)
                ]
            )
        }
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        for stubs in [
            [stub("a", composed), stub("b", decomposed)],
            [stub("a", composed), stub("b", decomposed), stub("c", composed), stub("d", decomposed)],
        ] {
            let file = MockSetFile(stubs: stubs)
            let source = CompactIndex.Source(indexSize: 1, indexHash: (2, 3))
            let bytes = try CompactIndex.encode(file, source: source)
            let decoded = try #require(bytes.withUnsafeBytes { CompactIndex.decode($0, source: source) })
            func fields(_ file: MockSetFile) -> [[UInt8]] {
                file.stubs.flatMap { stub in
                    let response = stub.responses.first
                    return [
                        stub.request.path, stub.request.query, stub.request.headers?.first, response?.headers?.first,
                        response?.bodyFile, response?.body,
                    ].map { Array(($0 ?? "-").utf8) }
                }
            }
            #expect(fields(decoded) == fields(file))
        }
    }

    /// Large enough to be decoded on several threads, with shared and unique strings and lists.
    @Test func largeSetDecodesInSlicesAsJSON() throws {
        let file = Self.largeFile(bodiesInFiles: true)
        let source = CompactIndex.Source(indexSize: 1, indexHash: (3, 4))
        let bytes = try CompactIndex.encode(file, source: source)
        let decoded = try #require(bytes.withUnsafeBytes { CompactIndex.decode($0, source: source) })
        #expect(decoded == file)
        // Shared lists are one array in a slice: the builder compares consecutive lists by identity.
        #expect(decoded.stubs[100].request.headers == ["Accept: application/json"])
    }

    /// Every corpus HAR: `import-har` leaves a fresh cache holding exactly what `index.json` decodes to, and a start
    /// served from it answers as one from `index.json`.
    @Test func importHARWritesACacheThatServesAsTheJSON() throws {
        let hars = Paths.corpusHARFiles(for: "CompactIndexTests.importHARWritesACacheThatServesAsTheJSON")
        var checked = 0
        for har in hars {
            guard let root = try imported(har) else { continue }
            defer { try? FileManager.default.removeItem(at: root.url) }
            let name = har.lastPathComponent
            #expect(try freshCache(root) == (try decodedJSON(root)), "\(name)")
            let fromCache = try served(root)
            try FileManager.default.removeItem(at: cacheURL(root))
            let fromJSON = try served(root)
            #expect(fromCache == fromJSON, "\(name)")
            #expect(!fromCache.isEmpty, "\(name)")
            // The start from JSON wrote the cache again.
            #expect(try freshCache(root) == (try decodedJSON(root)), "\(name)")
            checked += 1
        }
        if !hars.isEmpty { #expect(checked >= 5) }
    }

    /// The cache keeps itself out of version control: a start writes a `.gitignore` naming it into the set folder,
    /// and git then lists neither the cache nor a cache being written; a user's own `.gitignore` is left as it is.
    @Test func theCacheIsIgnoredByGitWithoutTouchingAUsersIgnoreFile() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let folder = root.setURL(Self.set)
        let ignore = folder.appendingPathComponent(".gitignore")
        _ = try served(root)
        #expect(FileManager.default.fileExists(atPath: cacheURL(root).path))
        #expect(try String(contentsOf: ignore, encoding: .utf8) == CompactIndexFile.ignoreFileText)
        try Data().write(to: folder.appendingPathComponent(CompactIndexFile.temporaryPrefix + "1-2"))
        let git = URL(fileURLWithPath: "/usr/bin/git")
        if FileManager.default.isExecutableFile(atPath: git.path) {
            #expect(try ProcessRunner.run(git, ["-C", root.url.path, "init", "-q"]).status == 0)
            let status = try ProcessRunner.run(git, ["-C", folder.path, "status", "--porcelain", "-uall", "."])
            #expect(
                status.stdout.split(separator: "\n").sorted() == ["?? mocks/s/.gitignore", "?? mocks/s/index.json"]
            )
        } else {
            print("CompactIndexTests: git not installed; the ignore file's effect on git status not checked")
        }

        let own = "*.bak\n"
        try Data(own.utf8).write(to: ignore)
        try FileManager.default.removeItem(at: cacheURL(root))
        _ = try served(root)
        #expect(FileManager.default.fileExists(atPath: cacheURL(root).path))
        #expect(try String(contentsOf: ignore, encoding: .utf8) == own)
    }

    /// The cache is what a start reads: a fresh cache holding another set is served (which is how the tests below
    /// know which file a start used).
    @Test func aFreshCacheIsServedInsteadOfTheJSON() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect(try served(root).count == 3)
        var other = try decodedJSON(root)
        other.stubs.removeLast(2)
        let index = try #require(FileSnapshot(path: indexJSON(root).path))
        #expect(
            CompactIndexFile.write(other, source: CompactIndexFile.source(of: index), folder: root.setURL(Self.set))
        )
        #expect(try served(root).count == 1)
    }

    /// A hand edit of `index.json` that keeps its size (a status `200` → `201`) is found by the hash: the edit is
    /// served and the cache rewritten for it.
    @Test func handEditOfTheSameSizeIsServedAndTheCacheRewritten() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect(try served(root)[0].contains(" 200 "))
        let before = try Data(contentsOf: cacheURL(root))
        let edited = Self.mixedIndex.replacingOccurrences(
            of: #""status": 200, "headers""#,
            with: #""status": 201, "headers""#
        )
        #expect(edited.utf8.count == Self.mixedIndex.utf8.count && edited != Self.mixedIndex)
        try Data(edited.utf8).write(to: indexJSON(root))
        // A cache write a killed process left behind is cleared by the next write.
        let leftover = root.setURL(Self.set).appendingPathComponent(CompactIndexFile.temporaryPrefix + "999-1")
        try Data("half".utf8).write(to: leftover)
        #expect(try served(root)[0].contains(" 201 "))
        #expect(try Data(contentsOf: cacheURL(root)) != before)
        let cached = try #require(try freshCache(root))
        #expect(cached == (try decodedJSON(root)))
        #expect(cached.stubs[0].responses[0].status == 201)
        #expect(try temporaryFiles(root).isEmpty)
    }

    /// A truncated, garbled, foreign or other-revision cache is never read: the JSON is served and the cache rebuilt.
    @Test func aDamagedCacheIsNeverServed() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let expected = try served(root)
        let good = try Data(contentsOf: cacheURL(root))
        var flippedPayload = good
        flippedPayload[flippedPayload.count - 3] ^= 0x20
        var otherRevision = good
        otherRevision[8] &+= 1
        var otherVersion = good
        otherVersion[16] ^= 1
        let damaged: [(String, Data)] = [
            ("empty", Data()), ("truncated header", good.prefix(40)), ("truncated payload", good.dropLast(9)),
            ("garbage", Data((0..<good.count).map { UInt8(truncatingIfNeeded: $0 &* 7) })),
            ("a payload byte changed", flippedPayload), ("another layout revision", otherRevision),
            ("another mockd version", otherVersion), ("index.json itself", try Data(contentsOf: indexJSON(root))),
        ]
        for (what, bytes) in damaged {
            try bytes.write(to: cacheURL(root))
            #expect(try freshCache(root) == nil, "\(what)")
            #expect(try served(root) == expected, "\(what)")
            #expect(try Data(contentsOf: cacheURL(root)) == good, "rebuilt after \(what)")
        }
        // The good cache followed by 4 GiB (sparse): its header's size does not match the file's, so a start passes
        // it over without reading it (read whole, this took seconds and gigabytes).
        try good.write(to: cacheURL(root))
        let padded = try FileHandle(forWritingTo: cacheURL(root))
        try padded.truncate(atOffset: UInt64(good.count) + (4 << 30))
        try padded.close()
        #expect(try served(root) == expected)
        #expect(try Data(contentsOf: cacheURL(root)) == good, "rebuilt after 4 GiB of padding")
    }

    /// A set large enough to be built on several threads, every stub with its own path, query, id or not, and an
    /// inline body (no body files to write) or, with `bodiesInFiles`, a body file named (none written).
    private static func largeFile(
        bodiesInFiles: Bool = false,
        duplicating duplicate: (of: Int, at: Int)? = nil
    ) -> MockSetFile {
        var stubs = (0..<(MockSetLoader.parallelBuildThreshold + 321)).map { index -> MockSetFile.StubEntry in
            let body: String? = bodiesInFiles ? nil : "{\"n\": \(index)}"
            let bodyFile: String? = bodiesInFiles ? "bodies/\(index).json" : nil
            return MockSetFile.StubEntry(
                id: index % 3 == 0 ? "s\(index)" : nil,
                request: .init(
                    method: index % 2 == 0 ? "GET" : "POST",
                    path: "/items/\(index)",
                    query: index % 5 == 0 ? nil : "page=\(index % 7)",
                    headers: ["Accept: application/json"]
                ),
                responses: [
                    .init(
                        status: 200 + index % 3,
                        headers: ["Content-Type: application/json", "ETag: \"\(index)\""],
                        bodyFile: bodyFile,
                        body: body
                    )
                ]
            )
        }
        if let duplicate { stubs[duplicate.at].id = stubs[duplicate.of].id }
        return MockSetFile(stubs: stubs)
    }

    private func root(file: MockSetFile) throws -> MockdRoot {
        try root(index: String(decoding: JSONEncoder().encode(file), as: UTF8.self))
    }

    /// A start builds each stub straight from its record, on several threads for a large set: it serves what a
    /// start from `index.json` serves, stub by stub.
    @Test func largeSetServedFromTheCacheAsFromTheJSON() throws {
        let root = try root(file: Self.largeFile())
        defer { try? FileManager.default.removeItem(at: root.url) }
        let fromJSON = try served(root)
        #expect(try freshCache(root) == (try decodedJSON(root)))
        let fromCache = try served(root)
        #expect(fromCache.count == MockSetLoader.parallelBuildThreshold + 321)
        #expect(fromCache == fromJSON)
    }

    /// A start refills one entry per loading thread from each record: a record kept as JSON (a sequence policy, a
    /// fault, a `json` body) or one with more fields, more steps or a request body, before one with fewer, must
    /// leave nothing of its own to the next stub. Every stub serves all its steps as from the JSON.
    @Test func recordsBetweenOthersLeaveNothingBehind() throws {
        func stub(_ index: Int) -> MockSetFile.StubEntry {
            let path = "/mixed/\(index)"
            switch index % 6 {
            case 0:
                var response = MockSetFile.ResponseEntry(
                    status: 201,
                    headers: ["Content-Type: application/json"],
                    body: #"{"at": "2024-05-01T10:00:00Z"}"#,
                    recordedTimeMs: 12,
                    templated: .off
                )
                response.dates = .init(recordedAt: "2024-05-01T10:00:00Z", body: ["/at"], headers: ["Date"])
                return .init(id: "dated\(index)", request: .init(method: "GET", path: path), responses: [response])
            case 1:
                var fault = MockSetFile.ResponseEntry()
                fault.fault = .connectionReset
                return .init(
                    id: nil,
                    request: .init(method: "PUT", path: path, headers: ["Accept: application/json"]),
                    responses: [.init(status: 202, json: ["ok": true]), fault],
                    afterLast: .cycle
                )
            case 2:
                return .init(
                    id: nil,
                    request: .init(method: "GET", path: path, query: "page=\(index)"),
                    responses: [.init(body: "one"), .init(body: "two"), .init(status: 404, body: "three")]
                )
            case 3:
                return .init(id: "bare\(index)", request: .init(method: "DELETE", path: path), responses: [.init()])
            case 4:
                var miss = MockSetFile.ResponseEntry(status: 500, body: "down")
                miss.fault = .emptyResponse
                return .init(
                    id: nil,
                    request: .init(method: "GET", path: path, host: "b.example.com"),
                    responses: [miss],
                    afterLast: .notFound
                )
            default:
                return .init(
                    id: nil,
                    request: .init(
                        method: "POST",
                        path: path,
                        headers: ["Content-Type: application/json"],
                        body: .init(text: #"{"n": \#(index)}"#, contentType: "application/json")
                    ),
                    responses: [.init(status: 200, headers: ["X-N: \(index)"], body: "posted")]
                )
            }
        }
        let root = try root(
            file: MockSetFile(stubs: (0..<(MockSetLoader.parallelBuildThreshold + 37)).map(stub))
        )
        defer { try? FileManager.default.removeItem(at: root.url) }
        func described() throws -> [String] {
            try MockSetLoader(root: root).load(set: Self.set).map { stub in
                let steps = stub.responses.map { step in
                    "\(step.status) \(Array(step.headers)) \(String(decoding: step.body, as: UTF8.self)) "
                        + "\(step.fault.map { "\($0)" } ?? "-") \(step.recordedTimeMs ?? -1) \(step.template != nil)"
                }
                return "\(stub.id) \(stub.key) \(stub.headerConstraints) \(stub.body.map(SHA256.hex) ?? "-") "
                    + "\(stub.afterLast) \(steps)"
            }
        }
        let fromJSON = try described()
        #expect(try freshCache(root) == (try decodedJSON(root)))
        let fromCache = try described()
        #expect(fromCache.count == MockSetLoader.parallelBuildThreshold + 37)
        #expect(fromCache == fromJSON)
        #expect(fromCache[3].hasPrefix("bare3 DELETE /mixed/3"))
        #expect(fromCache[1].contains("cycle"))
    }

    /// A duplicate id is found from the records as from the JSON, with the same error (a cache is written only for
    /// a set that loads, so this one is written by hand), in the sequential and the parallel build: an id given
    /// twice, one given as another stub's derived `METHOD_path`, the first of two duplicates, and ids equal only
    /// under canonical equivalence (as `String` compares them: the ASCII hash of the records leaves them to it).
    @Test func duplicateIDFoundFromTheCacheAsFromTheJSON() throws {
        var derived = Self.largeFile()
        derived.stubs[4_000].id = "POST_/items/1"  // stub 1 has no id of its own
        derived.stubs[4_100].id = "s3"
        var accented = Self.largeFile()
        accented.stubs[10].id = "caf\u{E9}"
        accented.stubs[20].id = "cafe\u{301}"
        var lineBreak = Self.largeFile()
        lineBreak.stubs[5].id = "a\nb"
        lineBreak.stubs[7].id = "a\nb"
        for (file, culprit) in [
            (try JSONDecoder().decode(MockSetFile.self, from: Data(Self.mixedIndex.utf8)), "'plain'"),
            (Self.largeFile(duplicating: (of: 3, at: 3_000)), "'s3'"),
            (derived, "'POST_/items/1'"),
            (accented, "stubs[20]"),
            (lineBreak, #"'a\x0Ab'"#),  // escaped: the error stays on one line
        ] {
            var file = file
            if file.stubs.count == 3 { file.stubs[2].id = "plain" }
            let root = try root(file: file)
            defer { try? FileManager.default.removeItem(at: root.url) }
            func loadError() -> String {
                do {
                    _ = try MockSetLoader(root: root).load(set: Self.set)
                    return "loaded"
                } catch {
                    return "\(error)"
                }
            }
            let fromJSON = loadError()
            #expect(fromJSON.contains("duplicate stub id") && fromJSON.contains(culprit), "\(fromJSON)")
            #expect(!fromJSON.contains("\n"), "\(fromJSON)")
            #expect(!FileManager.default.fileExists(atPath: cacheURL(root).path))
            let index = try #require(FileSnapshot(path: indexJSON(root).path))
            #expect(
                CompactIndexFile.write(file, source: CompactIndexFile.source(of: index), folder: root.setURL(Self.set))
            )
            #expect(try freshCache(root) == file)
            #expect(loadError() == fromJSON)
        }
    }

    /// `bytes` (a compact index) with stub `stub`'s record made unreadable (an unknown record kind) and the payload's
    /// hash made to match again: damage only a writer's fault could cause.
    private func breakingRecord(of stub: Int, in bytes: Data) -> Data {
        var bytes = [UInt8](bytes)
        func word64(_ index: Int) -> Int {
            Int(bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self) })
        }
        func word32(_ index: Int) -> Int {
            Int(
                bytes.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: 8 * CompactIndex.headerWords + index * 4, as: UInt32.self)
                }
            )
        }
        let stubOffsets = word64(9) + word64(11) + word64(13)
        let records = stubOffsets + word64(14) + 1
        let record = 8 * CompactIndex.headerWords + 4 * (records + word32(stubOffsets + stub))
        bytes[record] = 9
        let hash = bytes.withUnsafeBytes {
            ContentHash.of(UnsafeRawBufferPointer(rebasing: $0[(8 * CompactIndex.headerWords)...]))
        }
        withUnsafeBytes(of: hash.0.littleEndian) { bytes.replaceSubrange(48..<56, with: $0) }
        withUnsafeBytes(of: hash.1.littleEndian) { bytes.replaceSubrange(56..<64, with: $0) }
        return Data(bytes)
    }

    /// A record that does not read back, met while the stubs are being built from the records (in one slice of a
    /// parallel build, or the sequential one), makes the start serve the JSON and rewrite the cache.
    @Test func aRecordThatDoesNotReadBackServesTheJSON() throws {
        for (file, stub) in [
            (try JSONDecoder().decode(MockSetFile.self, from: Data(Self.mixedIndex.utf8)), 1),
            (Self.largeFile(), 3_000),
        ] {
            let root = try root(file: file)
            defer { try? FileManager.default.removeItem(at: root.url) }
            let expected = try served(root)
            let good = try Data(contentsOf: cacheURL(root))
            let broken = breakingRecord(of: stub, in: good)
            try broken.write(to: cacheURL(root))
            // The header and hash still check out: only reading the record finds the fault.
            let source = CompactIndexFile.source(of: try #require(FileSnapshot(path: indexJSON(root).path)))
            #expect(broken.withUnsafeBytes { CompactIndex.readInPlace($0, source: source) } != nil)
            #expect(try freshCache(root) == nil)
            #expect(try served(root) == expected)
            #expect(try Data(contentsOf: cacheURL(root)) == good)
        }
    }

    /// A folder that refuses the cache (here: `index.cache` is a folder, so the rename fails; a read-only folder fails
    /// the same way, earlier) still starts, from its JSON, and keeps no half-written file.
    @Test func aFolderThatRefusesTheCacheStillStarts() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        try FileManager.default.createDirectory(
            at: cacheURL(root).appendingPathComponent("blocker"),
            withIntermediateDirectories: true
        )
        #expect(try served(root).count == 3)
        #expect(try served(root).count == 3)
        #expect(try temporaryFiles(root).isEmpty)
    }

    /// Tools that only read a set (`mockd validate`: bodies read at load) do not write into it.
    @Test func validateDoesNotWriteTheCache() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        _ = try MockSetLoader(root: root, defersBodies: false).load(set: Self.set)
        #expect(!FileManager.default.fileExists(atPath: cacheURL(root).path))
    }

    /// `mockd validate` checks every field of `index.json`, whatever a fresh cache holds.
    @Test func validateReadsTheJSONEvenWithAFreshCache() throws {
        let misspelt = Self.mixedIndex.replacingOccurrences(of: #""cors": true"#, with: #""corz": true"#)
        let root = try root(index: misspelt)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let file = try JSONDecoder().decode(MockSetFile.self, from: Data(Self.mixedIndex.utf8))
        let index = try #require(FileSnapshot(path: indexJSON(root).path))
        #expect(CompactIndexFile.write(file, source: CompactIndexFile.source(of: index), folder: root.setURL(Self.set)))
        #expect(try served(root).count == 3)
        let validate = MockSetLoader(root: root, alwaysCheckUnknownFields: true, defersBodies: false)
        #expect(throws: ConfigError.self) { try validate.load(set: Self.set) }
    }

    /// Two starts at once on a set without a cache both serve it, and leave one whole cache.
    @Test func concurrentStartsBothServe() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let results = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let count = (try? MockSetLoader(root: root).load(set: Self.set).count) ?? -1
            results.withLock { $0.append(count) }
        }
        #expect(results.withLock { $0 } == Array(repeating: 3, count: 8))
        #expect(try freshCache(root) == (try decodedJSON(root)))
        #expect(try temporaryFiles(root).isEmpty)
    }

    /// An editor saving `index.json` in place (truncate, then write) while a start reads it: each load serves the
    /// whole set or throws a `ConfigError`; none kills the process (a mapped file cut short under its reader does,
    /// with SIGBUS).
    @Test func indexJSONRewrittenInPlaceDuringLoadsNeverKillsTheProcess() throws {
        let stubs = (0..<6_000).map { index in
            MockSetFile.StubEntry(
                id: "s\(index)",
                request: .init(method: "GET", path: "/items/\(index)", headers: ["Accept: application/json"]),
                responses: [.init(status: 200, headers: ["Content-Type: application/json"], body: "{}")]
            )
        }
        let bytes = try JSONEncoder().encode(MockSetFile(stubs: stubs))
        let root = try root(index: String(decoding: bytes, as: UTF8.self))
        defer { try? FileManager.default.removeItem(at: root.url) }
        let path = indexJSON(root).path
        let done = Mutex(false)
        let writer = Thread {
            while !done.withLock({ $0 }) {
                // In place, as an editor without atomic saves writes: the file is empty, then grows again.
                guard let file = try? FileDescriptor.open(path, .replace(permissions: 0o644)) else { continue }
                bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let piece = min(64 * 1024, raw.count - offset)
                        _ = file.write(raw.baseAddress! + offset, count: piece)
                        offset += piece
                    }
                }
                file.close()
            }
        }
        writer.start()
        var outcomes: [String: Int] = [:]
        for _ in 0..<200 {
            do {
                let count = try MockSetLoader(root: root).load(set: Self.set).count
                outcomes[count == stubs.count ? "whole" : "count \(count)", default: 0] += 1
            } catch is ConfigError {
                outcomes["error", default: 0] += 1
            }
        }
        done.withLock { $0 = true }
        while writer.isExecuting { usleep(1_000) }
        #expect(Set(outcomes.keys).isSubset(of: ["whole", "error"]), "\(outcomes)")
        #expect(outcomes.values.reduce(0, +) == 200)
    }

    /// `cp -r` of a set over another while a start reads its cache: `index.cache` truncated and written again in
    /// place. Each load serves the whole set (from the cache or, when it is torn, from the JSON); none kills the
    /// process (a cache mapped into memory did, with SIGBUS).
    @Test func cacheRewrittenInPlaceDuringLoadsNeverKillsTheProcess() throws {
        let stubs = (0..<6_000).map { index in
            MockSetFile.StubEntry(
                id: "s\(index)",
                request: .init(method: "GET", path: "/items/\(index)", headers: ["Accept: application/json"]),
                responses: [.init(status: 200, headers: ["Content-Type: application/json"], body: "{}")]
            )
        }
        let root = try root(index: String(decoding: try JSONEncoder().encode(MockSetFile(stubs: stubs)), as: UTF8.self))
        defer { try? FileManager.default.removeItem(at: root.url) }
        #expect(try served(root).count == stubs.count)
        let path = cacheURL(root).path
        let bytes = try Data(contentsOf: cacheURL(root))
        #expect(bytes.count > 256 * 1024)
        let done = Mutex(false)
        let writer = Thread {
            while !done.withLock({ $0 }) {
                guard let file = try? FileDescriptor.open(path, .replace(permissions: 0o644)) else { continue }
                bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count {
                        let piece = min(64 * 1024, raw.count - offset)
                        _ = file.write(raw.baseAddress! + offset, count: piece)
                        offset += piece
                    }
                }
                file.close()
            }
        }
        writer.start()
        var outcomes: [String: Int] = [:]
        for _ in 0..<100 {
            let count = try MockSetLoader(root: root).load(set: Self.set).count
            outcomes[count == stubs.count ? "whole" : "count \(count)", default: 0] += 1
        }
        done.withLock { $0 = true }
        while writer.isExecuting { usleep(1_000) }
        #expect(outcomes == ["whole": 100])
    }

    /// Every command that writes a set (import-har, --merge, record, refresh, import-wiremock, import-openapi) writes
    /// it through `MockSetWriter`, which leaves a cache fresh for the new `index.json`, replacing a set's old one.
    @Test func mockSetWriterLeavesAFreshCache() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        _ = try served(root)
        var file = try decodedJSON(root)
        file.stubs[0].responses[0].status = 203
        let build = MockSetBuild(file: file, files: ["bodies/a.json": Data("{}".utf8)])
        try MockSetWriter(root: root).write(build, set: Self.set, replace: true, source: "test")
        let cached = try #require(try freshCache(root))
        #expect(cached == file)
        #expect(cached == (try decodedJSON(root)))
        #expect(try served(root)[0].contains(" 203 "))
    }

    /// An `index.json` larger than one piece of its hash (`ContentHash.pieceSize`), hashed as it is written, is named
    /// by its cache exactly as a start hashes the mapped file.
    @Test func aLargeWrittenIndexGetsAFreshCache() throws {
        let stubs = (0..<12_000).map { index in
            MockSetFile.StubEntry(
                id: "GET_items_\(index)",
                request: .init(method: "GET", path: "/items/\(index)", headers: ["Accept: application/json"]),
                responses: [
                    .init(
                        status: 200,
                        headers: ["Content-Type: application/json", "ETag: \"\(index)\""],
                        bodyFile: "bodies/GET_items_\(index).json"
                    )
                ]
            )
        }
        let file = MockSetFile(stubs: stubs)
        let files = Dictionary(uniqueKeysWithValues: stubs.map { ($0.responses[0].bodyFile!, Data("{}".utf8)) })
        let root = try written(stubs, files: files)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let size = try #require(try FileManager.default.attributesOfItem(atPath: indexJSON(root).path)[.size] as? Int)
        #expect(size > ContentHash.pieceSize)
        #expect(try freshCache(root) == file)
    }

    /// A start checks a large `index.json` against its cache by hashing it a piece at a time (never read whole): an
    /// edit in its last piece that keeps the file's size is served and the cache rewritten for it, and so is one that
    /// changes the size.
    @Test func aLargeIndexEditedInItsLastPieceIsServedAsEdited() throws {
        let stubs = (0..<16_000).map { index in
            MockSetFile.StubEntry(
                id: "GET_items_\(index)",
                request: .init(method: "GET", path: "/items/\(index)"),
                responses: [.init(status: 200, headers: ["ETag: \"\(index)\""], body: "{}")]
            )
        }
        let root = try written(stubs)
        defer { try? FileManager.default.removeItem(at: root.url) }
        var text = try String(contentsOf: indexJSON(root), encoding: .utf8)
        #expect(text.utf8.count > ContentHash.pieceSize)
        #expect(try freshCache(root) != nil)
        let fromCache = try served(root)
        #expect(fromCache.count == 16_000)
        #expect(fromCache.last?.contains(" 200 ") == true)

        let lastStatus = try #require(text.range(of: "\"status\"", options: .backwards))
        let code = try #require(text.range(of: "200", range: lastStatus.upperBound..<text.endIndex))
        text.replaceSubrange(code, with: "404")
        try FileSystem.write(Data(text.utf8), to: indexJSON(root).path)  // in place, same size
        let edited = try served(root)
        #expect(edited.last?.contains(" 404 ") == true)
        #expect(Array(edited.dropLast()) == Array(fromCache.dropLast()))
        #expect(try freshCache(root)?.stubs.last?.responses[0].status == 404)

        let etag = try #require(text.range(of: "15999", options: .backwards))
        text.replaceSubrange(etag, with: "15999-b")
        try FileSystem.write(Data(text.utf8), to: indexJSON(root).path)
        #expect(try served(root).last?.contains("15999-b") == true)
        #expect(try freshCache(root)?.stubs.last?.responses[0].headers == ["ETag: \"15999-b\""])
    }

    /// Lint scans a set's files for secrets; the cache repeats the index's strings and is not one of them.
    @Test func lintSkipsTheCache() throws {
        let root = try root(index: Self.mixedIndex)
        defer { try? FileManager.default.removeItem(at: root.url) }
        let before = try MockSetLint.run(folder: root.setURL(Self.set), display: "mocks/s").map { "\($0)" }
        #expect(before.count == 1 && before[0].contains("index.json"), "\(before)")
        _ = try served(root)
        #expect(FileManager.default.fileExists(atPath: cacheURL(root).path))
        #expect(try MockSetLint.run(folder: root.setURL(Self.set), display: "mocks/s").map { "\($0)" } == before)
    }

    /// A merge reads the existing set's body files; the cache is not one and the written set has its own fresh one.
    @Test func mergeLeavesAFreshCacheAndCopiesNoOldOne() throws {
        let hars = Paths.corpusHARFiles(for: "CompactIndexTests.mergeLeavesAFreshCacheAndCopiesNoOldOne")
        guard hars.count >= 2, let root = try imported(hars[0]) else { return }
        defer { try? FileManager.default.removeItem(at: root.url) }
        let existing = try MockSetMerger.read(set: Self.set, root: root)
        #expect(existing.files.keys.allSatisfy { !CompactIndexFile.isCacheFile($0) })
        _ = try HARImportPipeline.run(
            har: hars[1],
            displayName: hars[1].lastPathComponent,
            into: Self.set,
            root: root,
            options: HARImportOptions(),
            merge: true,
            replace: true
        )
        #expect(try freshCache(root) == (try decodedJSON(root)))
    }
}
