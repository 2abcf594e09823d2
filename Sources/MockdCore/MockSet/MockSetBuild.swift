public import Foundation
public import MockdFormat

/// A mock set ready to be written: the index and its files, by path relative to the set folder. What the HAR and
/// WireMock importers and the recorder build, and `MockSetWriter` writes.
public struct MockSetBuild: Sendable {
    public var file: MockSetFile
    /// `bodies/…` path → bytes.
    public var files: [String: Data]
    /// Files of `files` whose bytes are those of an existing file, path → that file's absolute path (a merge's
    /// files of the set it merges into): written as a second name of it (a hard link) rather than a copy, where the
    /// file system allows.
    public var carried: [String: String]
    /// Folders made even when no file is written in them (a merge keeps the set's empty folders), relative paths.
    public var folders: [String]

    public init(file: MockSetFile, files: [String: Data], carried: [String: String] = [:], folders: [String] = []) {
        self.file = file
        self.files = files
        self.carried = carried
        self.folders = folders
    }
}
