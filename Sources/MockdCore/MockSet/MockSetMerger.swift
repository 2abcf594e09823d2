import Foundation
import MockdFormat
import MockdPlatform

/// `mockd import-har --merge`: folds a fresh import into an existing mock set so that a re-recording
/// changes only what it recorded.
///
/// A stub is the same stub when host, method, path, query, header constraints and request body agree.
/// Such stubs are replaced by the new recording, keeping their id (so body file names stay put); stubs the
/// HAR did not record — hand-written ones, hand edits to old ones — are kept as they are, in place. New stubs
/// go to the end. Every other file in the set folder (notes, hand-made bodies) is kept; only body files
/// that belonged to replaced stubs alone are dropped.
public struct MockSetMerger {
    /// What the merge did, for the import report.
    public struct Summary: Sendable, Equatable {
        public var replaced = 0
        public var added = 0
        public var kept = 0
        /// The replaced stubs, `id (METHOD path)`, in set order.
        public var replacedStubs: [String] = []
        /// The added stubs, `id (METHOD path)`, in set order.
        public var addedStubs: [String] = []

        static func name(_ stub: MockSetFile.StubEntry) -> String {
            let query = stub.request.query.map { "?" + $0 } ?? ""
            return "\(stub.id ?? "(no id)") (\(stub.request.method) \(stub.request.path)\(query))"
        }
    }

    /// Reads `mocks/<name>/` (its index, and the list of every file beside it) as a build; each file is `carried`
    /// (linked, not copied, when written) and every folder kept. Of the files, only request bodies are read (a stub's
    /// identity holds its body): the others are read if the merge needs their bytes, and most never are.
    /// - Throws: `ConfigError` when the index cannot be read or decoded, and, naming it, for anything in the folder
    ///   the merged set could not hold as it is (a symbolic link, a FIFO, socket or device, a folder that cannot be
    ///   opened, a name that is not UTF-8, two names equal only under Unicode normalization, a set folder that is a
    ///   link): the merge writes a new folder and removes the old one, which would take such a file with it.
    public static func read(set name: String, root: MockdRoot) throws -> MockSetBuild {
        let folder = root.setURL(name)
        let indexURL = folder.appendingPathComponent("index.json")
        let file = try MockSetFastDecoder.decodeIndex(
            at: indexURL,
            display: root.display(indexURL),
            missing: "mock set '\(name)' not found; --merge needs an existing set"
        )
        var files: [String: Data] = [:]
        var carried: [String: String] = [:]
        let requestBodies = Set(file.stubs.compactMap { $0.request.body?.file })
        func refuse(_ relative: String, _ problem: String) -> ConfigError {
            ConfigError(
                .invalidValue,
                file: root.display(folder.appendingPathComponent(relative)),
                message: "\(problem); nothing was changed"
            )
        }
        // A merge writes a new folder in the set's place: a link there would become that folder, and the set where the
        // link leads would keep the old stubs.
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder.path) {
            throw ConfigError(
                .invalidValue,
                file: root.display(folder),
                message:
                    "the set folder is a symbolic link (to \(target)); a merge writes the set anew and would replace the link with a folder: merge into the folder it leads to; nothing was changed"
            )
        }
        let listing: FileSystem.FolderListing
        do {
            listing = try FileSystem.listing(of: folder.path)
        } catch {
            throw ConfigError(.unreadable, file: root.display(folder), message: "cannot read the set folder (\(error))")
        }
        // Whatever the merged set could not hold as it is refuses the merge: the old folder goes once the new one is in
        // place, and a file not carried would go with it.
        if let name = listing.notUTF8.first {
            throw refuse(name, "the name is not UTF-8 and cannot be carried into the merged set; rename it")
        }
        if let name = listing.unreadableFolders.first {
            throw refuse(name, "cannot open this folder, so what it holds cannot be carried into the merged set")
        }
        var names: [String: String] = [:]
        for relative in listing.files {
            // Swift's strings are equal under canonical equivalence: two names spelt so (`é` and `e` + U+0301) are two
            // files on disk but one key here, and one would be lost.
            if let other = names.updateValue(relative, forKey: relative) {
                throw refuse(
                    relative,
                    "this name and '\(other)' differ only in Unicode normalization, and a merge would keep one; rename one"
                )
            }
            // Not body files: the merged set gets its own compact index.
            if relative == "index.json" || CompactIndexFile.isCacheFile(relative) { continue }
            let path = folder.path + "/" + relative
            do {
                if requestBodies.contains(relative) {
                    files[relative] = try UserFile.read(URL(fileURLWithPath: path), from: .folder)
                } else {
                    // Opened, not read: the change summary may read it, and must not take a file it cannot read for
                    // an empty one.
                    try UserFile.checkReadable(path)
                }
            } catch {
                throw refuse(relative, "cannot read: \(error)")
            }
            carried[relative] = path
        }
        // Every body file the index names must come along, or the merged set would lose it: a symbolic link,
        // a missing file or a path outside the set is refused before anything is written.
        for (path, jsonPath) in file.namedBodyFiles where carried[path] == nil {
            throw ConfigError(
                .invalidValue,
                file: root.display(indexURL),
                jsonPath: jsonPath,
                message: SetRelativePath.problem(path).map { "\($0); fix it or use --force; nothing was changed" }
                    ?? "'\(path)' cannot be carried into the merged set (missing, a symbolic link or outside the set); fix it or use --force; nothing was changed"
            )
        }
        if let name = listing.links.first {
            throw refuse(
                name,
                "a symbolic link, which a merge does not carry into the set it writes anew; replace it with what it leads to or use --force"
            )
        }
        if let name = listing.others.first {
            throw refuse(
                name,
                "not a regular file (a FIFO, socket or device), which a merge does not carry; move it out"
            )
        }
        return MockSetBuild(file: file, files: files, carried: carried, folders: listing.folders)
    }

    /// `incoming` merged over `existing`.
    ///
    /// Host layouts are lined up first (see `aligningHosts`), so a one-host re-recording replaces what that host
    /// recorded in a set imported from several hosts, and the other way round.
    public static func merge(_ incoming: MockSetBuild, into existing: MockSetBuild) -> (MockSetBuild, Summary) {
        let (incoming, existing) = aligningHosts(incoming, existing)
        var summary = Summary()
        var incomingByIdentity: [Identity: Int] = [:]
        for (position, stub) in incoming.file.stubs.enumerated() {
            incomingByIdentity[Identity(stub.request, files: incoming.files)] = position
        }
        var used = Set<Int>()
        var stubs: [MockSetFile.StubEntry] = []
        // The files the old set keeps, and those of them read (the others are linked when written, unread).
        var files = existing.files
        var carried = existing.carried
        var referencedByKept = Set<String>()
        var referencedByReplaced = Set<String>()
        var usedIDs = Set(existing.file.stubs.compactMap(\.id))
        var pending: [(position: Int, stub: MockSetFile.StubEntry, id: String?)] = []
        for stub in existing.file.stubs {
            if let position = incomingByIdentity[Identity(stub.request, files: existing.files)],
                !used.contains(position)
            {
                used.insert(position)
                referencedByReplaced.formUnion(bodyFiles(of: stub))
                pending.append((stubs.count, incoming.file.stubs[position], stub.id))
                stubs.append(stub)  // placeholder, filled below once file names are settled
                summary.replaced += 1
            } else {
                referencedByKept.formUnion(bodyFiles(of: stub))
                stubs.append(stub)
                summary.kept += 1
            }
        }
        for path in referencedByReplaced.subtracting(referencedByKept) {
            files[path] = nil
            carried[path] = nil
        }
        var taken = Set(files.keys).union(carried.keys)
        func place(_ stub: MockSetFile.StubEntry) -> MockSetFile.StubEntry {
            var stub = stub
            func move(_ path: String?) -> String? {
                guard let path, let data = incoming.files[path] else { return path }
                var candidate = path
                var counter = 2
                // A taken name is reused only for the same bytes (an old file's are read for that, one file), so a
                // carried file never gets other bytes under its name.
                while taken.contains(candidate), (files[candidate] ?? existing.bytes(at: candidate)) != data {
                    let dot = path.lastIndex(of: ".") ?? path.endIndex
                    candidate = "\(path[..<dot])-m\(counter)\(path[dot...])"
                    counter += 1
                }
                taken.insert(candidate)
                files[candidate] = data
                return candidate
            }
            let requestFile = move(stub.request.body?.file)
            stub.request.body?.file = requestFile
            let recordedFile = move(stub.request.recordedBody?.file)
            stub.request.recordedBody?.file = recordedFile
            for index in stub.responses.indices {
                stub.responses[index].bodyFile = move(stub.responses[index].bodyFile)
            }
            return stub
        }
        for (position, stub, id) in pending {
            var placed = place(stub)
            placed.id = id
            stubs[position] = placed
            summary.replacedStubs.append(Summary.name(placed))
        }
        for (position, stub) in incoming.file.stubs.enumerated() where !used.contains(position) {
            var placed = place(stub)
            if let id = placed.id, usedIDs.contains(id) {
                var counter = 2
                while usedIDs.contains("\(id)-\(counter)") { counter += 1 }
                placed.id = "\(id)-\(counter)"
            }
            if let id = placed.id { usedIDs.insert(id) }
            stubs.append(placed)
            summary.added += 1
            summary.addedStubs.append(Summary.name(placed))
        }
        var file = existing.file
        file.stubs = stubs
        if let normalize = incoming.file.normalize {
            file.normalize = (file.normalize ?? RequestNormalization()).merged(with: normalize)
        }
        let origins = Set((existing.file.origins ?? []) + (incoming.file.origins ?? []))
        file.origins = origins.isEmpty ? nil : origins.sorted()
        file.cors = file.cors == true || incoming.file.cors == true ? true : nil
        file.conditionalRequests =
            file.conditionalRequests == true || incoming.file.conditionalRequests == true ? true : nil
        if incoming.file.rebaseDates == true { file.rebaseDates = true }
        return (MockSetBuild(file: file, files: files, carried: carried, folders: existing.folders), summary)
    }

    /// Both builds keyed alike: a build whose stubs name no host but which was recorded from one host (its
    /// `origins`) gets that host on its stubs when the other build keeps hosts or was recorded from another host.
    /// Hand-written stubs of a set without `origins` stay host-free (they answer any host).
    static func aligningHosts(_ incoming: MockSetBuild, _ existing: MockSetBuild) -> (MockSetBuild, MockSetBuild) {
        func keepsHosts(_ build: MockSetBuild) -> Bool { build.file.stubs.contains { $0.request.host != nil } }
        func soleHost(_ build: MockSetBuild) -> String? {
            guard !keepsHosts(build), let rewrite = OriginRewrite(origins: build.file.origins ?? []),
                !rewrite.routesHosts
            else { return nil }
            return rewrite.spellings.first?.host
        }
        func keyed(_ build: MockSetBuild, by host: String) -> MockSetBuild {
            var build = build
            for index in build.file.stubs.indices where build.file.stubs[index].request.host == nil {
                build.file.stubs[index].request.host = host
            }
            return build
        }
        var (incoming, existing) = (incoming, existing)
        let (incomingHost, existingHost) = (soleHost(incoming), soleHost(existing))
        if let incomingHost, keepsHosts(existing) || (existingHost != nil && existingHost != incomingHost) {
            incoming = keyed(incoming, by: incomingHost)
        }
        if let existingHost, keepsHosts(incoming) || (incomingHost != nil && incomingHost != existingHost) {
            existing = keyed(existing, by: existingHost)
        }
        return (incoming, existing)
    }

    private static func bodyFiles(of stub: MockSetFile.StubEntry) -> Set<String> {
        Set(
            ([stub.request.body?.file, stub.request.recordedBody?.file] + stub.responses.map(\.bodyFile)).compactMap {
                $0
            }
        )
    }

    /// What makes two stubs the same request matcher.
    private struct Identity: Hashable {
        let host: String
        let key: RequestKey
        let headers: [String]
        let body: Data?
        /// A GraphQL stub's operation key (`GraphQLOperation.key`): the same operation with other variables is
        /// another stub.
        let graphQL: String?

        init(_ request: MockSetFile.RequestEntry, files: [String: Data]) {
            host = request.host.map(HostName.normalized) ?? ""
            graphQL = request.graphql.flatMap { try? GraphQLOperation(entry: $0) }?.key
            // GraphQL over HTTP sends an operation by GET or POST: one stub either way.
            key = RequestKey(
                method: graphQL == nil ? request.method : "POST",
                rawPath: request.path,
                rawQuery: request.query ?? ""
            )
            headers = (request.headers ?? []).map { $0.lowercased() }.sorted()
            if let body = request.body {
                let raw =
                    body.file.flatMap { files[$0] } ?? body.text.map { Data($0.utf8) }
                    ?? (try? body.json.map(JSONValueEncoding.data)) ?? nil
                self.body = raw.map { BodyCanonicalizer.canonicalize($0, contentType: body.contentType) }
            } else {
                body = nil
            }
        }
    }
}
