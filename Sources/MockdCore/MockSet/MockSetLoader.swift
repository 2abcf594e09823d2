import Foundation
public import MockdFormat
import MockdPlatform

/// Reads a mock set folder (`index.json` + body files) into `Stub`s.
public struct MockSetLoader: Sendable {
    /// Index files larger than this (4 MiB, about 20,000 stubs) skip the unknown-field check when served.
    public static let unknownFieldCheckLimit = 4 * 1024 * 1024

    public let root: MockdRoot
    /// Check for unknown fields whatever the file size (`mockd validate`).
    public var alwaysCheckUnknownFields = false
    /// Read response body files when a stub first answers instead of at load (serving: a start then makes no system
    /// call per body file; a missing or unreadable one answers 500 with its error, see `DeferredResponses`). Tools
    /// that inspect a set (`mockd validate`) read them at load, so a missing or unreadable one is an error there.
    public var defersBodies = true
    /// A scenario's `rebaseDates`, which wins over each set's own; `nil`: the set's.
    public var rebaseDates: Bool?
    /// Set for the second try of a load whose compact index held a record that does not read back.
    private var skipsCompactIndex = false

    public init(
        root: MockdRoot,
        alwaysCheckUnknownFields: Bool = false,
        defersBodies: Bool = true,
        rebaseDates: Bool? = nil
    ) {
        self.root = root
        self.alwaysCheckUnknownFields = alwaysCheckUnknownFields
        self.defersBodies = defersBodies
        self.rebaseDates = rebaseDates
    }

    /// Loads mock set `name` from `mocks/<name>/`.
    ///
    /// - Returns: The set's stubs, in file order.
    /// - Throws: `ConfigError` naming the file and JSON path: `.fileNotFound` when the set or a body file is
    ///   missing, `.invalidJSON`, `.invalidValue` (bad method, header line, status, duplicate id, a body file
    ///   outside the set folder…), `.unsupportedVersion`.
    /// - Complexity: O(stubs + total body bytes).
    public func load(set name: String) throws -> [Stub] {
        try loadSet(name).stubs
    }

    /// A loaded set: its stubs and the set-wide settings a scenario combines.
    public struct LoadedSet: Sendable {
        public let stubs: [Stub]
        public let normalize: RequestNormalization
        public let cors: Bool
        public let conditionalRequests: Bool
    }

    /// Loads `mocks/<name>/index.json` with its stubs and set-wide settings.
    /// - Throws: `ConfigError` naming the file and JSON path of the first problem.
    public func loadSet(_ name: String) throws -> LoadedSet {
        let folder = root.setURL(name)
        let indexURL = folder.appendingPathComponent("index.json")
        let indexName = root.display(indexURL)
        guard MockdRoot.isValidName(name) else {
            throw ConfigError(
                .invalidValue,
                file: name,
                message: "not a valid mock set name (use letters, digits, '.', '_' and '-')"
            )
        }
        // The compact index, when it was made from this `index.json` as it is now, spares the JSON scan (and
        // reading the JSON whole: it is only hashed). `index.json` is read, not mapped: users edit it in place, and
        // a mapped file cut short under a reader kills the process (SIGBUS) where a read only sees fewer bytes.
        var source: CompactIndex.Source?
        var cachedEntries: StubEntries?
        let file: MockSetFile = try {
            // `mockd validate` reads the JSON: a cache made when a large index skipped the unknown-field check
            // (serving) would hide a misspelt field from it.
            if !alwaysCheckUnknownFields, !skipsCompactIndex,
                let cached = CompactIndexFile.readInPlace(folder: folder, index: indexURL)
            {
                cachedEntries = cached.entries
                return cached.settings
            }
            let data = try ConfigFile.read(
                at: indexURL,
                display: indexName,
                missing: "mock set '\(name)' not found (create it with `mockd import-har FILE --set \(name)`)"
            )
            source = CompactIndexFile.source(of: data)
            return try decodeIndex(data, display: indexName)
        }()
        guard file.acceptMatching == nil || ["negotiate", "exact"].contains(file.acceptMatching!) else {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "acceptMatching",
                message: "'\(file.acceptMatching!)' is not one of \"negotiate\", \"exact\""
            )
        }
        for (position, origin) in (file.origins ?? []).enumerated() where !OriginRewrite.isOrigin(origin) {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "origins[\(position)]",
                message:
                    "'\(origin)' is not an origin: write http(s)://host[:port], with no path (https://api.example.com)"
            )
        }
        let normalize = file.normalize ?? RequestNormalization()
        if let problem = normalize.problems().first {
            throw ConfigError(
                .invalidValue,
                file: indexName,
                jsonPath: "normalize.\(problem.path)",
                message: problem.message
            )
        }
        let stubs: [Stub]
        do {
            stubs = try self.stubs(
                from: file,
                entries: cachedEntries ?? .decoded(file.stubs),
                setName: name,
                folder: folder,
                indexName: indexName
            )
        } catch is CompactIndex.MalformedRecord {
            var fromJSON = self
            fromJSON.skipsCompactIndex = true
            return try fromJSON.loadSet(name)
        }
        let loaded = LoadedSet(
            stubs: stubs,
            normalize: normalize,
            cors: file.cors ?? false,
            conditionalRequests: file.conditionalRequests ?? false
        )
        // A start (not a tool that only reads the set) leaves a fresh cache for the next one.
        if cachedEntries == nil, defersBodies, let source {
            CompactIndexFile.write(file, source: source, folder: folder)
        }
        MockSetLoader.releaseInBackground(consume file)
        return loaded
    }

    /// `index.json` decoded from its bytes: the fast decoder, else `JSONDecoder` with the unknown-field check.
    private func decodeIndex(_ data: Data, display: String) throws -> MockSetFile {
        let data = try ConfigFile.utf8(data, display: display)
        if let fast = MockSetFastDecoder.decode(data) {
            // Holds only known fields (the fast decoder gives up on any other), so needs no unknown-field check.
            return fast
        }
        let file = try ConfigFile.decode(MockSetFile.self, from: data, display: display)
        // The unknown-field check parses the file a second time; large (generated, imported) indexes skip it
        // when serving, and `mockd validate` always runs it.
        if data.count <= MockSetLoader.unknownFieldCheckLimit || alwaysCheckUnknownFields,
            let unknown = KnownFields.check(data, shape: KnownFields.mockSet, file: display).first
        {
            throw unknown
        }
        return file
    }

    /// Lets another thread free the decoded index once its stubs are built: tens of thousands of small objects,
    /// whose release was 12% of the instructions from start to the first response with 10,000 stubs. (A start from
    /// the compact index holds only the set-wide settings here: its entries went one by one, see `StubEntries`.)
    private static func releaseInBackground(_ file: consuming MockSetFile) {
        let owner = DecodedIndexOwner(file)
        pendingReleases.enter()
        DispatchQueue.global(qos: .utility).async {
            owner.release()
            pendingReleases.leave()
        }
    }

    private static let pendingReleases = DispatchGroup()

    /// Blocks until every decoded index is released: wait for it before handing freed memory back to the system
    /// (`malloc_trim` while an index is still being freed finds little to give back).
    public static func waitForReleases() { pendingReleases.wait() }

    /// Indexes with at least this many stubs are turned into stubs on several threads.
    static let parallelBuildThreshold = 4096

    /// Turns a decoded index into stubs, reading body files from `folder`.
    ///
    /// Large indexes are split into one slice per core (at most four) built at once: building was a third of the
    /// time from start to the first response with 10,000 stubs. Serving throws the first error in index order, as a
    /// single pass would (slices stop at their first error, and a duplicate id is found beforehand); a load that reads
    /// every body reports every invalid entry, in index order (`StubBuilder.build`).
    func stubs(from file: MockSetFile, setName: String, folder: URL, indexName: String) throws -> [Stub] {
        try stubs(from: file, entries: .decoded(file.stubs), setName: setName, folder: folder, indexName: indexName)
    }

    /// Turns `entries` into stubs with `file`'s set-wide settings (its own `stubs` are not read).
    /// - Throws: As `stubs(from:setName:folder:indexName:)`, and `CompactIndex.MalformedRecord`.
    func stubs(
        from file: MockSetFile,
        entries: StubEntries,
        setName: String,
        folder: URL,
        indexName: String
    ) throws -> [Stub] {
        let bodyReader = BodyFileReader(folder: folder)
        let origins = file.rewriteURLs == false ? nil : file.origins.flatMap(OriginRewrite.init(origins:))
        let builder = StubBuilder(
            setName: setName,
            indexName: indexName,
            bodyReader: bodyReader,
            matchHeaders: Set((file.matchHeaders ?? MockSetFile.defaultMatchHeaders).map(\.asciiLowercased)),
            origins: origins,
            negotiatesAccept: file.acceptMatching != "exact",
            rebasesDates: rebaseDates ?? file.rebaseDates ?? false,
            firstDuplicateID: try entries.firstDuplicateID(),
            deferred: defersBodies
                ? DeferredResponses.Context(
                    read: { path, templated, jsonPath in
                        try bodyReader.readOnFirstUse(
                            path,
                            templated: templated,
                            indexName: indexName,
                            jsonPath: jsonPath()
                        )
                    },
                    origins: origins,
                    indexName: indexName
                ) : nil
        )
        guard entries.count >= MockSetLoader.parallelBuildThreshold, ParallelSlices.sliceCount > 1 else {
            return try builder.build(entries, 0..<entries.count)
        }
        let slices = ParallelSlices.run(over: entries.count) { range in Result { try builder.build(entries, range) } }
        var stubs: [Stub] = []
        stubs.reserveCapacity(entries.count)
        var problems: [ConfigError] = []
        for slice in slices {
            do {
                stubs.append(contentsOf: try slice.get())
            } catch let errors as ConfigErrors where !defersBodies {
                problems += errors.errors
            } catch let problem as ConfigError where !defersBodies {
                problems.append(problem)
            }
        }
        try StubBuilder.throwIfAny(problems)
        return stubs
    }

    /// A stub's id: its own, or `METHOD_path`.
    static func stubID(of entry: MockSetFile.StubEntry) -> String {
        stubID(id: entry.id, method: entry.request.method, path: entry.request.path)
    }

    /// A stub's id from its entry's fields: `id`, or `METHOD_path`.
    static func stubID(id: String?, method: String, path: String) -> String {
        id ?? "\(method)_\(path)"
    }

    /// The position of the first stub whose id an earlier stub already has.
    static func firstDuplicateID(in entries: [MockSetFile.StubEntry]) -> Int? {
        var seen: Set<String> = []
        seen.reserveCapacity(entries.count)
        return entries.indices.first { !seen.insert(stubID(of: entries[$0])).inserted }
    }
}

/// Holds a decoded index until `release()` drops it; passed to the releasing thread so that the last reference
/// is let go there and not by whichever thread happens to finish last. `@unchecked Sendable`: touched by one
/// thread at a time, the loader, then the releaser.
private final class DecodedIndexOwner: @unchecked Sendable {
    private var file: MockSetFile?

    init(_ file: consuming MockSetFile) { self.file = file }

    func release() { file = nil }
}
