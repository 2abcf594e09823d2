/// Why a file could not be imported as a HAR, located by file and JSON path or entry index.
///
/// `description` is the one line printed to the user: `file: JSON path: message`.
public typealias HARImportError = LocatedError<HARImportErrorCode>

/// What kind of problem a `HARImportError` is.
public struct HARImportErrorCode: Hashable, Sendable, CustomStringConvertible {
    private enum Value: String { case fileNotFound, unreadable, notJSON, notHAR, nothingToImport, writeFailed }
    private let value: Value
    private init(_ value: Value) { self.value = value }

    /// The HAR file does not exist.
    public static let fileNotFound = HARImportErrorCode(.fileNotFound)
    /// The HAR file exists but cannot be read.
    public static let unreadable = HARImportErrorCode(.unreadable)
    /// The file is not JSON (truncated, JSONP-wrapped, binary…).
    public static let notJSON = HARImportErrorCode(.notJSON)
    /// The file is JSON but not a HAR log (no `log.entries`, wrong types).
    public static let notHAR = HARImportErrorCode(.notHAR)
    /// Every entry was skipped or filtered out.
    public static let nothingToImport = HARImportErrorCode(.nothingToImport)
    /// Writing the recording's HAR file failed (`mockd record`).
    public static let writeFailed = HARImportErrorCode(.writeFailed)

    public var description: String { value.rawValue }
}
