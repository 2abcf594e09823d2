public import Foundation
public import MockdFormat

/// A mock set ready to be written: the index and its files, by path relative to the set folder. What the HAR and
/// WireMock importers and the recorder build, and `MockSetWriter` writes.
public struct MockSetBuild: Sendable {
    public var file: MockSetFile
    /// `bodies/…` path → bytes.
    public var files: [String: Data]

    public init(file: MockSetFile, files: [String: Data]) {
        self.file = file
        self.files = files
    }
}
