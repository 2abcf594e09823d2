/// Why WireMock mappings could not be imported, located by file and JSON path.
///
/// `description` is the one line printed to the user: `file: JSON path: message`. When an import fails with
/// one of these, nothing has been written.
public typealias WireMockImportError = LocatedError<WireMockImportErrorCode>

/// What kind of problem a `WireMockImportError` is.
public struct WireMockImportErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String {
        case fileNotFound, unreadable, notJSON, invalidMapping, nothingToImport, writeFailed, outputExists
    }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The file or folder does not exist, or a folder holds no `*.json` file.
    public static let fileNotFound = WireMockImportErrorCode(.fileNotFound)
    /// A file exists but cannot be read.
    public static let unreadable = WireMockImportErrorCode(.unreadable)
    /// A file is not JSON.
    public static let notJSON = WireMockImportErrorCode(.notJSON)
    /// A file is JSON but not a WireMock mapping: wrong types, a missing `request`, an invalid regex…
    public static let invalidMapping = WireMockImportErrorCode(.invalidMapping)
    /// Every mapping was skipped; nothing would be written.
    public static let nothingToImport = WireMockImportErrorCode(.nothingToImport)
    /// Writing the mock set or the scenario failed.
    public static let writeFailed = WireMockImportErrorCode(.writeFailed)
    /// The mock set or scenario exists and `--force` was not given.
    public static let outputExists = WireMockImportErrorCode(.outputExists)

    public var description: String { value.rawValue }
}
