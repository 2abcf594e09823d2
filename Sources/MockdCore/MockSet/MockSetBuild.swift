public import Foundation
public import MockdFormat

/// A mock set ready to be written: the index and its files, by path relative to the set folder. What the HAR and
/// WireMock importers and the recorder build, and `MockSetWriter` writes.
public struct MockSetBuild: Sendable {
    public var file: MockSetFile
    /// `bodies/…` path → bytes: every file of a build made from a recording; of a merge, the files it read (see
    /// `carried`).
    public var files: [String: Data]
    /// Files of the set that are those of an existing file, path → that file's absolute path (a merge's files of the
    /// set it merges into): written as a second name of it (a hard link) rather than a copy, where the file system
    /// allows, else copied from it. A path here need not be in `files`: a merge reads such a file only when something
    /// needs its bytes (`bytes(at:)`), so its memory grows with what it changes, not with the set (merging three
    /// entries into a set of 211 MB of bodies read all of them: a peak of 250 MB).
    public var carried: [String: String]
    /// Folders made even when no file is written in them (a merge keeps the set's empty folders), relative paths.
    public var folders: [String]

    public init(file: MockSetFile, files: [String: Data], carried: [String: String] = [:], folders: [String] = []) {
        self.file = file
        self.files = files
        self.carried = carried
        self.folders = folders
    }

    /// Every file of the set: those of `files` and of `carried`, relative paths.
    public var paths: Set<String> { Set(files.keys).union(carried.keys) }

    /// The bytes of the file at `path` (relative): from `files`, else read from the file it is carried from.
    /// - Returns: `nil` when the set has no such file, or the file it is carried from cannot be read (the writer then
    ///   reports it, naming it, if it must copy it).
    public func bytes(at path: String) -> Data? {
        if let data = files[path] { return data }
        guard let source = carried[path] else { return nil }
        return try? Self.read(carriedFrom: source)
    }

    /// The bytes of the file a file of `carried` comes from (`source`, absolute), read now: what the merge, its change
    /// summary and the writer's copy each read, as a file of a folder (a FIFO is refused, not waited on).
    /// - Throws: `UserFile.Failure`.
    static func read(carriedFrom source: String) throws(UserFile.Failure) -> Data {
        try UserFile.read(URL(fileURLWithPath: source), from: .folder)
    }
}
